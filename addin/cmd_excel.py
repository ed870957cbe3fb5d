"""Sub-commands for the Excel front door: ``gputco docs`` and ``gputco addin vba``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .commands import HELP, command


def _write(text: str, args: argparse.Namespace, newline: str = "\n") -> None:
    """Print ``text``, or write it to ``args.output`` atomically (never half a file)."""
    if args.output is None or str(args.output) == "-":
        sys.stdout.write(text)
        return
    from gputco.workbook.xlsx.files import atomic_output

    with atomic_output(args.output, force=args.force) as tmp:
        tmp.write_text(text, encoding="utf-8", newline=newline)
    print(f"wrote {args.output}", file=sys.stderr)


def _docs(args: argparse.Namespace) -> int:
    from .docs import render

    _write(render(), args)
    return 0


def _vba(args: argparse.Namespace) -> int:
    from .vba import vba_module

    # the VBA editor's File > Import expects Windows line ends
    _write(vba_module(args.module, addin=args.addin), args, newline="\r\n")
    return 0


def _lite(args: argparse.Namespace) -> int:
    from gputco.workbook.xlsx.files import atomic_output

    from .lite import lite_files

    files = lite_files()
    args.outdir.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        with atomic_output(args.outdir / name, force=args.force) as tmp:
            tmp.write_text(text, encoding="utf-8")
    print(f"wrote {', '.join(str(args.outdir / n) for n in files)}", file=sys.stderr)
    return 0


def _output_options(p: argparse.ArgumentParser, example: str) -> None:
    p.add_argument("-o", "--output", type=Path, help=f"file to write, e.g. {example} (default: print)")
    p.add_argument("--force", action="store_true", help="replace the file if it exists")


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Add ``docs`` and ``addin`` to the ``gputco`` sub-commands."""
    p = command(
        sub,
        "docs",
        "Write the reference of every TCO_* Excel function (arguments with units, "
        "result, an example formula and its value), generated from the registry udfs.UDFS.",
    )
    _output_options(p, "udfs.md")
    p.set_defaults(run=_docs)

    p = sub.add_parser("addin", help=HELP["addin"])
    addin_sub = p.add_subparsers(dest="addin_command", metavar="ACTION", required=True)
    from . import cmd_libreoffice

    cmd_libreoffice.add_addin_parser(addin_sub)
    p = addin_sub.add_parser(
        "vba",
        help="write the xlwings_udfs VBA module (.bas) of the TCO_* functions",
        description="Write the VBA wrappers that xlwings's 'Import Functions' would write, using "
        "xlwings's own generator, to import by hand in the VBA editor (File > Import File).",
    )
    _output_options(p, "xlwings_udfs.bas")
    p.add_argument(
        "--module",
        default="gputco.addin.xlwings_udfs",
        help="Python module named in 'UDF Modules' (default: %(default)s)",
    )
    p.add_argument(
        "--addin",
        action="store_true",
        help="for a custom add-in (.xlam): pass ActiveWorkbook, as xlwings does",
    )
    p.set_defaults(run=_vba)

    p = addin_sub.add_parser(
        "lite",
        help="write main.py and requirements.txt for xlwings Lite (Excel on Mac and the web)",
        description="Write the two files an xlwings Lite workbook needs for the TCO_* functions: "
        "main.py (every registry function decorated with xlwings Lite's @func) and "
        "requirements.txt (this gputco release). Paste them into the xlwings Lite editor's "
        "main.py and requirements.txt tabs, then restart xlwings Lite (docs/xlwings-lite.md).",
    )
    p.add_argument(
        "-o", "--outdir", type=Path, default=Path("."), help="folder to write them in (default: .)"
    )
    p.add_argument("--force", action="store_true", help="replace the files if they exist")
    p.set_defaults(run=_lite)
