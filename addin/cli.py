"""The `gputco` command line: one front door, one sub-command per job.

Exit codes (documented in README.md):
  0 success; 1 a check found differences; 2 bad usage or bad input (unknown preset, bad number,
  bad file); 3 a file could not be written; 4 an internal error (a bug: please report it).
"""

from __future__ import annotations

import argparse
import sys

from .commands import HELP, version
from .failures import EXIT_BUG, EXIT_DIFFERENCES, EXIT_OK, EXIT_USAGE, EXIT_WRITE, OneLineParser, run

__all__ = ["EXIT_BUG", "EXIT_DIFFERENCES", "EXIT_OK", "EXIT_USAGE", "EXIT_WRITE", "main"]


def _compare(args: argparse.Namespace) -> int:
    from gputco import udfs

    from .report import comparison_table

    try:
        table = comparison_table(args.systems, args.buyer, args.model, args.precision, args.mfu)
    except udfs.InputRangeError as err:
        if err.arg != "mfu_a":
            raise
        raise udfs.InputRangeError("--mfu", err.value, err.valid) from None
    print(table)
    return EXIT_OK


def _presets(args: argparse.Namespace) -> int:
    from .report import presets_listing

    print(presets_listing(args.kind))
    return EXIT_OK


def build_parser(full: bool = True) -> argparse.ArgumentParser:
    """The ``gputco`` parser; ``full=False``: the commands' names and help lines only (what
    ``--help`` and ``--version`` need, without importing numpy, pandas or pyarrow)."""
    parser = OneLineParser(  # usage errors: one line on stderr, exit 2 (sub-commands inherit it)
        prog="gputco",
        description="GPU-cluster TCO, cost per trained token and energy, with sources.",
    )
    parser.add_argument("--version", action="version", version=f"gputco {version()}")
    parser.add_argument("--debug", action="store_true", help="show a traceback on errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    if not full:
        for name, text in HELP.items():
            sub.add_parser(name, help=text)
        return parser

    from gputco.udfs import presets

    p = sub.add_parser(
        "compare",
        help=HELP["compare"],
        description="Print capex, TCO per GPU-hour by component, the TCO ratio (break-even "
        "speed-up) and the break-even MFU of each system against the first.",
    )
    p.add_argument(
        "--systems",
        default="H100_HGX,GB200_NVL72",
        help="comma-separated system presets; the first is the reference (default: %(default)s)",
    )
    p.add_argument(
        "--buyer",
        default="hyperscaler",
        help="buyer type: hyperscaler, neocloud_giant, emerging_neocloud (default: %(default)s)",
    )
    p.add_argument("--model", default="gpt3_175b", help="model preset (default: %(default)s)")
    p.add_argument("--precision", default="bf16", help="bf16, fp8 or fp4 (default: %(default)s)")
    p.add_argument(
        "--mfu",
        default="0.54",
        help="MFU reached: one for every system, or one per system (0.54,0.40) "
        "(default: %(default)s, SemiAnalysis 2025-08 H100 BF16 Dec 2024)",
    )
    p.set_defaults(run=_compare)

    p = sub.add_parser("presets", help=HELP["presets"])
    p.add_argument(
        "kind",
        nargs="?",
        choices=[*presets.KINDS, *presets.TABLES],
        help="only this kind of preset or table (default: system, buyer, model, run, serving, grid)",
    )
    p.set_defaults(run=_presets)

    from . import cmd_batch, cmd_excel, cmd_libreoffice, cmd_recalc, cmd_scenarios, cmd_template

    cmd_batch.add_parser(sub)
    cmd_excel.add_parser(sub)
    cmd_recalc.add_parser(sub)
    cmd_scenarios.add_parser(sub)
    cmd_template.add_parser(sub)
    cmd_libreoffice.add_open_parser(sub)
    cmd_libreoffice.add_render_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    command = next((a for a in argv if not a.startswith("-")), None)  # top-level options take no value
    parser = build_parser(full=command in HELP)
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        print("gputco: error: name a command (see the list above)", file=sys.stderr)
        return EXIT_USAGE
    return run(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
