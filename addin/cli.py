"""The `gputco` command line: one front door, one sub-command per job.

Exit codes (documented in docs/cli.md):
  0 success; 1 a check found differences; 2 bad usage or bad input (unknown preset, bad number,
  bad file); 3 a file could not be written; 4 an internal error (a bug: please report it).
"""

from __future__ import annotations

import argparse
import sys

from gputco.addin.threads import single_threaded_libraries

single_threaded_libraries()  # before numpy and pyarrow load: the engine may then use both cores

from .commands import HELP, command, options, version  # noqa: E402
from .failures import EXIT_BUG, EXIT_DIFFERENCES, EXIT_OK, EXIT_USAGE, EXIT_WRITE, OneLineParser, run  # noqa: E402

__all__ = ["EXIT_BUG", "EXIT_DIFFERENCES", "EXIT_OK", "EXIT_USAGE", "EXIT_WRITE", "main"]


def _compare(args: argparse.Namespace) -> int:
    from gputco import udfs

    from .report import comparison_table

    try:
        table = comparison_table(
            args.systems,
            args.buyer,
            args.model,
            args.precision,
            args.mfu,
            **options(
                args,
                "rent",
                "availability",
                "utilisation",
                "goodput",
                "gpus",
                "debt_fraction",
                "debt_rate",
                "debt_years",
                "covenant_dscr",
            ),
        )
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
    parser.add_argument(
        "--unsandboxed-libreoffice",
        action="store_true",
        help="start LibreOffice on untrusted workbooks even where no network sandbox can be made "
        "(also GPUTCO_LIBREOFFICE_UNSANDBOXED=1; see docs/safety.md)",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    if not full:
        for name, text in HELP.items():
            sub.add_parser(name, help=text)
        return parser

    from gputco.udfs import presets

    p = command(
        sub,
        "compare",
        "Print capex, TCO per GPU-hour by component, the TCO ratio, the break-even "
        "speed-up and MFU (on the delivered cost per kept token) and the verdict of each system "
        "against the first; with --rent the rent-or-buy rows (rent parity, NPV, IRR, payback, "
        "break-even rent and utilisation), with --rent and --debt-fraction the lender's rows (debt "
        "per GPU, lowest and mean DSCR, LLCR, PLCR, periods below the covenant, highest LTV, "
        "equity IRR), with --gpus the cluster totals. Every per-system "
        "option takes one value or one per system (2.0,4.0).",
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
        default=None,
        help="MFU reached: one for every system, or one per system (0.54,0.40) (default: each "
        "system's published MFU at the precision, else the H100's, shown as 'assumed')",
    )
    for option, what in (
        ("--rent", "rent per GPU-hour in USD (adds the rent-or-buy rows)"),
        ("--availability", "fraction of hours up and allocatable (default 1)"),
        ("--utilisation", "fraction of available hours used or sold (default 1)"),
        ("--goodput", "fraction of paid GPU time kept as training progress (default 1)"),
        ("--gpus", "GPUs in the cluster (adds the cluster totals, on whole servers or racks)"),
        ("--debt-fraction", "share of the capex borrowed, [0, 1) (with --rent adds the lender's rows)"),
        ("--debt-rate", "annual interest rate of the debt (default: the cost of capital)"),
        ("--debt-years", "the tenor: years from in-service to the last repayment (default: the life)"),
        ("--covenant-dscr", "the DSCR covenant the breach count is measured against (default 1.0)"),
    ):
        p.add_argument(option, default=None, help=f"{what}: one for every system or one per system")
    p.set_defaults(run=_compare)

    p = sub.add_parser("presets", help=HELP["presets"])
    p.add_argument(
        "kind",
        nargs="?",
        choices=[*presets.KINDS, *presets.TABLES],
        help="only this kind of preset or table (default: system, buyer, model, run, serving, grid, finance)",
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
    if args.unsandboxed_libreoffice:
        from gputco.workbook.soffice import sandbox

        sandbox.allow_unsandboxed()
    return run(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
