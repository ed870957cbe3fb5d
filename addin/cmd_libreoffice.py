"""LibreOffice front doors: ``gputco addin libreoffice``, ``gputco open`` and ``gputco render``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .budget_flags import add_budget_argument, add_timeout_argument, timeout_of
from .commands import command, options

#: seconds `gputco render` and `gputco open --convert-to` may take unless --timeout says otherwise
DEFAULT_TIMEOUT_S = 300.0


def add_addin_parser(addin_sub: argparse._SubParsersAction) -> None:
    """``gputco addin libreoffice [--profile DIR] [--module M] [--uninstall]``."""
    p = addin_sub.add_parser(
        "libreoffice",
        help="install the TCO_* functions into LibreOffice Calc",
        description="Write Basic wrappers for every registry entry (generated from udfs.UDFS) "
        "and a Python bridge into a LibreOffice user profile, so that =TCO_... formulas compute "
        "in Calc with the same Python functions. Close LibreOffice first; it picks them up on "
        "its next start.",
    )
    p.add_argument(
        "--profile",
        metavar="DIR",
        help="the profile folder (LibreOffice's UserInstallation, which holds user/); "
        "default: your own profile",
    )
    p.add_argument(
        "--module",
        action="append",
        default=[],
        metavar="M",
        help="an extension module that registers more TCO_ functions (repeatable)",
    )
    p.add_argument(
        "--path",
        action="append",
        default=[],
        metavar="DIR",
        help="a folder LibreOffice's Python must also search (for --module)",
    )
    p.add_argument("--uninstall", action="store_true", help="remove the add-in instead")
    p.set_defaults(run=_libreoffice)


def _libreoffice(args: argparse.Namespace) -> int:
    from gputco.workbook.soffice import lo_addin

    if args.uninstall:
        removed = lo_addin.uninstall(args.profile)
        where = args.profile or lo_addin.default_profile()
        print(f"removed the gputco add-in from {where}" + ("" if removed else " (it was not installed)"))
        return 0
    if args.path:
        sys.path[:0] = [str(Path(p).resolve()) for p in args.path]
    done = lo_addin.install(args.profile, modules=args.module, paths=args.path)
    print(
        f"installed {done.functions} TCO_* functions into LibreOffice profile {done.profile}\n"
        f"  Basic module: {done.module}\n  Python bridge: {done.bridge}\n"
        "Restart LibreOffice; in a generated workbook press Ctrl+Shift+F9 to recalculate."
    )
    return 0


def add_open_parser(sub: argparse._SubParsersAction) -> None:
    """``gputco open FILE [--profile DIR] [--convert-to FMT [--outdir DIR]]``."""
    p = command(
        sub,
        "open",
        "Start LibreOffice Calc on FILE with the gputco add-in and an environment in "
        "which LibreOffice's own Python starts, whatever PATH, VIRTUAL_ENV or PYTHONHOME this "
        "shell has (a virtualenv first on the PATH breaks a plain `soffice`). The profile is "
        "gputco's own (in ~/.cache/gputco/libreoffice-profile, the add-in refreshed each time, "
        "every formula recalculated on load), or your own with --own-profile (after `gputco "
        "addin libreoffice`), or DIR with --profile. With --convert-to, LibreOffice runs "
        "headless instead: it recalculates FILE with the add-in and writes it in that format.",
    )
    p.add_argument("file", metavar="FILE", help="the workbook (.xlsx, .ods, ...)")
    where = p.add_mutually_exclusive_group()
    where.add_argument(
        "--profile", metavar="DIR", help="use (and install the add-in into) this profile folder"
    )
    where.add_argument(
        "--own-profile",
        action="store_true",
        help="use your own LibreOffice profile (it must have the add-in)",
    )
    p.add_argument(
        "--convert-to",
        metavar="FMT",
        help="headless: recalculate and write FILE as FMT (xlsx, ods, pdf, ...)",
    )
    p.add_argument(
        "--outdir",
        metavar="DIR",
        default=".",
        help="folder for --convert-to's file (default: the current folder)",
    )
    p.add_argument(
        "--force", action="store_true", help="with --convert-to: replace the file in DIR if it exists"
    )
    add_budget_argument(p)
    add_timeout_argument(p, DEFAULT_TIMEOUT_S, "the screen, and with --convert-to LibreOffice's run")
    p.set_defaults(run=_open)


def _open(args: argparse.Namespace) -> int:
    from gputco.workbook.soffice import lo_addin, session
    from gputco.workbook.soffice.process import LibreOfficeError

    if args.own_profile and not lo_addin.installed():
        raise LibreOfficeError(
            f"your LibreOffice profile {lo_addin.default_profile()} has no "
            "gputco add-in: run `gputco addin libreoffice` first, or leave "
            "out --own-profile"
        )
    from gputco.workbook.recalc import budgets, refuse_outside
    from gputco.workbook.timebudget import time_budget
    from gputco.workbook.xlsx.files import check_input

    limits, timeout = budgets(args.budget), timeout_of(args)
    if not args.convert_to:  # the window: the same screen first, then LibreOffice on its own time
        with time_budget(timeout, alarm=True):
            refuse_outside(check_input(args.file), limits)  # whatever its name: LibreOffice reads content
    else:
        if args.own_profile:
            raise LibreOfficeError(
                "--convert-to runs headless in gputco's own profile or --profile DIR, not in your own profile"
            )
        with time_budget(timeout, alarm=True):  # the screen and LibreOffice's run share it
            src = check_input(args.file)
            refuse_outside(src, limits)  # whatever its name: LibreOffice reads content
            written = _convert(args, src, limits)
        print(written)
        return 0
    pid, where = session.start_calc(args.file, profile=args.profile, own_profile=args.own_profile)
    print(
        f"started LibreOffice Calc (pid {pid}) on {args.file} with the gputco add-in "
        f"(profile {where or lo_addin.default_profile()})"
    )
    return 0


def _convert(args: argparse.Namespace, src: Path, limits) -> Path:
    """``open --convert-to``: LibreOffice writes into a temporary folder; the file is then put
    in place through the one safe output (:func:`atomic_output`: never onto the input, an
    existing file only with --force, never through a symbolic link unless --force says so,
    atomically). A --outdir it made is removed again when nothing was written."""
    import contextlib
    import shutil
    import tempfile

    from gputco.workbook.soffice import session
    from gputco.workbook.xlsx.files import WriteError, atomic_output

    out = Path(args.outdir)
    dst = out / f"{src.stem}.{args.convert_to.split(':')[0]}"
    made_dir = not out.exists()
    if made_dir:
        try:
            out.mkdir(parents=True)
        except OSError as err:
            raise WriteError(out, err.strerror or str(err)) from None
    try:
        with atomic_output(dst, force=args.force, inputs=[src]) as tmp_out:
            with tempfile.TemporaryDirectory(prefix="gputco-lo-convert-") as tmp:
                made = session.convert(
                    src,
                    tmp,
                    args.convert_to,
                    profile=args.profile or session.cached_profile_dir(),
                    limits=limits,
                )
                shutil.copyfile(made, tmp_out)
    except BaseException:
        if made_dir:
            with contextlib.suppress(OSError):
                out.rmdir()  # only when empty
        raise
    return dst


def add_render_parser(sub: argparse._SubParsersAction) -> None:
    """``gputco render FILE --png DIR [--sheet NAME] [--rows N]``."""
    from gputco.workbook.soffice.render import HEAD_ROWS

    p = command(
        sub,
        "render",
        "LibreOffice headless recalculates a copy of FILE with the gputco add-in (in "
        "a private profile, so TCO_ cells and checks show their real values), prints each sheet "
        "(or one) to PDF, and pdftoppm makes a PNG per sheet. Each picture is the sheet's head: "
        "its first rows (--rows) fitted to one A3 landscape page, so 10-point text is legible at "
        "100 dpi; a sheet that is cut says so in its page footer and on stderr.",
    )
    p.add_argument("file", metavar="FILE", help="the .xlsx workbook")
    p.add_argument("--png", required=True, metavar="DIR", help="folder for the PNG files")
    p.add_argument(
        "--sheet", action="append", metavar="NAME", help="only this sheet (repeatable); default: every sheet"
    )
    p.add_argument("--dpi", type=int, default=100, help="resolution (default: %(default)s)")
    p.add_argument(
        "--rows", type=int, default=HEAD_ROWS, help="rows of a long sheet to show (default: %(default)s)"
    )
    p.add_argument(
        "--columns",
        metavar="FIRST:LAST",
        help="the columns to show, e.g. S:AH for the period table's debt columns (as many as fit "
        "legibly; default: from A, as many as fit)",
    )
    p.add_argument("--force", action="store_true", help="replace existing PNG files")
    add_budget_argument(p)
    add_timeout_argument(p, DEFAULT_TIMEOUT_S, "everything: the screen, reading, LibreOffice, pdftoppm")
    p.set_defaults(run=_render)


def _render(args: argparse.Namespace) -> int:
    from gputco.workbook.recalc import budgets
    from gputco.workbook.soffice.render import render_workbook
    from gputco.workbook.timebudget import time_budget

    shown: dict = {}
    stored: dict = {}
    timeout = timeout_of(args)
    with time_budget(timeout, alarm=True):  # every phase: screen, reading, LibreOffice, pdftoppm
        written = render_workbook(
            args.file,
            args.png,
            sheets=args.sheet,
            **options(args, "dpi", "force", "rows", "columns"),
            shown=shown,
            stored=stored,
            limits=budgets(args.budget),
            timeout=timeout,
        )
    for path in written:
        print(path)
    for sheet, cut in shown.items():
        if cut:
            print(
                f"gputco render: sheet {sheet!r} shows {cut} (--rows, --columns to change)", file=sys.stderr
            )
    if stored:
        cells = ", ".join(f"{s}!{ref}" for s, refs in stored.items() for ref in refs)
        print(
            "gputco render: note: LibreOffice gave errors where the file holds values; the stored "
            f"values are shown, not computed by LibreOffice: {cells}",
            file=sys.stderr,
        )
    return 0
