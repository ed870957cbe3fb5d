"""`gputco batch IN -o OUT`: scenarios from CSV/XLSX/Parquet to results in the same formats."""

from __future__ import annotations

import argparse
import sys

from gputco.udfs import scenario
from gputco.workbook.batch.run import DEFAULT_CHUNK_ROWS

from .budget_flags import add_budget_argument, add_timeout_argument, timeout_of
from .commands import command, options


def add_parser(sub) -> None:
    p = command(
        sub,
        "batch",
        "Run one scenario per row of IN (columns named like the scenario inputs, "
        "in any case; empty cells use the presets) and write the input columns as given plus "
        "the values used (use_<input>) and the result columns to OUT. Every bad cell is "
        "reported with its row and column, and then nothing is written. "
        "Streams in chunks, so memory stays bounded whatever the row count. Inputs: "
        + ", ".join(scenario.INPUT_NAMES)
        + ". Results: "
        + ", ".join(scenario.OUTPUTS)
        + ".",
    )
    p.add_argument("input", metavar="IN", help="scenarios file: .csv, .parquet or .xlsx")
    p.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="OUT",
        action=Once,
        help="results file: .csv, .parquet or .xlsx (one per run)",
    )
    p.add_argument(
        "--in-format", choices=["csv", "parquet", "xlsx"], help="input format when the extension does not say"
    )
    p.add_argument(
        "--out-format",
        choices=["csv", "parquet", "xlsx"],
        help="output format when the extension does not say",
    )
    p.add_argument(
        "--sep",
        choices=[",", ";", "tab", "|"],
        help="CSV field separator (default: detected from the header line)",
    )
    p.add_argument(
        "--decimal",
        choices=[".", ","],
        help="CSV decimal mark (default: detected; a comma needs another separator)",
    )
    p.add_argument(
        "--chunk-rows",
        type=int,
        default=DEFAULT_CHUNK_ROWS,
        help="scenarios per chunk (default: %(default)s)",
    )
    p.add_argument(
        "--dscr-breakeven",
        action="store_true",
        help="also the DSCR break-even rent, dscr_breakeven_rent_usd_per_gpu_hour (the market rent at "
        "which min_dscr = covenant_dscr, contracts as given: docs/project.md), and why it is empty, "
        "dscr_breakeven_rent_why; its search evaluates min_dscr about 40 times per scenario "
        "(measured: 20,000 month scenarios with debt 1.6x the time without it)",
    )
    p.add_argument("--force", action="store_true", help="replace OUT if it exists")
    p.add_argument("--progress", action="store_true", help="show progress even when stderr is not a terminal")
    add_budget_argument(p)
    add_timeout_argument(p, None, "the whole run (an .xlsx input's formulas included)")
    p.set_defaults(run=run)


class Once(argparse.Action):
    """An option given at most once: a second ``-o`` is refused rather than silently winning."""

    def __call__(self, parser, namespace, values, option_string=None):
        if getattr(namespace, self.dest, None) is not None:
            parser.error(
                f"argument {'/'.join(self.option_strings)}: given twice "
                f"({getattr(namespace, self.dest)} and {values}); one output per run"
            )
        setattr(namespace, self.dest, values)


def run(args: argparse.Namespace) -> int:
    from gputco.workbook.batch.run import Progress, run_batch
    from gputco.workbook.recalc import budgets
    from gputco.workbook.timebudget import time_budget

    if args.chunk_rows < 1:
        from gputco.udfs.errors import InputRangeError

        raise InputRangeError("--chunk-rows", args.chunk_rows, "[1, inf)")
    progress = Progress(force=args.progress)
    limits, timeout = budgets(args.budget), timeout_of(args)
    with time_budget(timeout):  # checked at every chunk and every piece of an .xlsx part
        report = run_batch(
            args.input,
            args.output,
            **options(args, "in_format", "out_format", "chunk_rows", "force"),
            progress=progress,
            sep="\t" if args.sep == "tab" else args.sep,
            decimal=args.decimal,
            limits=limits,
            dscr_breakeven=args.dscr_breakeven,
        )
    progress.done()
    print(
        f"{report.rows:,} scenarios -> {args.output} in {report.seconds:.2f} s "
        f"({report.rows_per_second:,.0f} scenarios/s)",
        file=sys.stderr,
    )
    return 0
