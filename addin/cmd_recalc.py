"""`gputco recalc FILE [-o OUT | --in-place] [--check] [--engine auto|gputco|libreoffice]`.

Headless recalculation of any .xlsx: fills the cached value of every formula cell (Excel built-ins
and gputco's TCO_ functions; with the default ``--engine auto``, LibreOffice computes the cells the
engine cannot) while leaving everything else in the file as it was. ``--check`` writes nothing:
it prints every cell whose stored value differs from the recalculated one and exits 1 when any
does.
"""

from __future__ import annotations

import argparse
import datetime
import os
import sys
from pathlib import Path

from gputco.udfs.errors import GputcoError, InputRangeError, InputTypeError
from gputco.workbook.xlsx.files import FileExistsRefusal, check_input

from .budget_flags import add_budget_argument, add_timeout_argument, timeout_of
from .commands import command

#: the time limit of `gputco recalc` (seconds) unless --timeout says otherwise
DEFAULT_TIMEOUT_S = 600.0


class RecalcUsageError(GputcoError, ValueError):
    """Bad combination of options or paths for `gputco recalc`."""


def add_parser(sub) -> None:
    p = command(
        sub,
        "recalc",
        "Evaluate every formula of FILE (Excel built-ins and the TCO_ functions) and "
        "write the values into OUT, changing nothing else in the file. With --check, write "
        "nothing and list every cell whose stored value differs (exit 1 if any).",
    )
    p.add_argument("file", metavar="FILE", help="the .xlsx/.xlsm workbook")
    dest = p.add_mutually_exclusive_group()
    dest.add_argument("-o", "--output", metavar="OUT", help="write the recalculated copy here")
    dest.add_argument("--in-place", action="store_true", help="overwrite FILE (atomically)")
    dest.add_argument(
        "--check", action="store_true", help="write nothing; report cells whose stored value differs"
    )
    p.add_argument("--force", action="store_true", help="replace OUT if it exists")
    p.add_argument(
        "--keep-unsupported",
        action="store_true",
        help="keep the stored values of cells that use unsupported functions (default: stop and name them)",
    )
    add_budget_argument(p)
    add_timeout_argument(p, DEFAULT_TIMEOUT_S, "reading, screening and recalculating (LibreOffice too)")
    p.add_argument(
        "--now",
        metavar="TIME",
        help="evaluate NOW() and TODAY() at TIME (ISO 8601, e.g. 2026-01-31T09:30, "
        "read as local wall-clock time; 'clock' for the current time); without it, "
        "cells using them are unsupported, so a recalculation is reproducible",
    )
    p.add_argument(
        "--seed",
        metavar="N",
        help="evaluate RAND(), RANDBETWEEN() and RANDARRAY() with numpy's default_rng(N) "
        "(N a whole number >= 0): the same N gives the same values; without it, cells "
        "using them are unsupported. With --check, volatile cells and those depending "
        "on them are recomputed but not compared with their stored values",
    )
    p.add_argument(
        "--date-order",
        choices=("mdy", "dmy"),
        default="mdy",
        help="how a date text of two numbers and a year reads (3/4/2024, 29/02/1900), which "
        "a workbook does not record: mdy (default, Excel in the United States: March 4) or "
        "dmy (Excel with European regional settings: April 3); cells LibreOffice computes "
        "read dates as en-US",
    )
    p.add_argument(
        "--engine",
        choices=("auto", "gputco", "libreoffice"),
        default="auto",
        help="who computes the formulas: gputco's engine, and LibreOffice (when "
        "installed) for the cells it cannot (auto, the default); gputco alone "
        "(results never depend on what is installed); or LibreOffice for every "
        "formula cell. A workbook that reaches outside (WEBSERVICE, external links, "
        "DDE, RTD, CALL, macros) is never handed to LibreOffice",
    )
    p.add_argument(
        "--limit",
        type=int,
        default=200,
        metavar="N",
        help="show at most N mismatching cells (default: %(default)s)",
    )
    p.set_defaults(run=run)


def _now(text: str | None) -> datetime.datetime | None:
    """The --now option: an ISO 8601 date or date and time, or 'clock'."""
    if text is None:
        return None
    if text.strip().lower() == "clock":
        return datetime.datetime.now()
    try:
        return datetime.datetime.fromisoformat(text.strip())
    except ValueError:
        raise InputTypeError(
            "--now", text, "an ISO 8601 date or time such as 2026-01-31 or 2026-01-31T09:30, or 'clock'"
        ) from None


def _seed(text: str | None) -> int | None:
    """The --seed option: a whole number >= 0."""
    if text is None:
        return None
    try:
        seed = int(text.strip())
    except ValueError:
        raise InputTypeError("--seed", text, "a whole number >= 0 such as 42") from None
    if seed < 0:
        raise InputRangeError("--seed", seed, "[0, inf) (whole numbers)")
    return seed


def run(args: argparse.Namespace) -> int:
    from gputco.udfs import UDFS
    from gputco.workbook.recalc import budgets, recalc_file
    from gputco.workbook.soffice.fallback import libreoffice_values
    from gputco.workbook.timebudget import time_budget
    from gputco.workbook.xlsx.files import atomic_output

    src = check_input(args.file)
    if not (args.output or args.in_place or args.check):
        raise RecalcUsageError("say where to write: -o OUT, --in-place, or --check to only compare")
    timeout = timeout_of(args)
    if args.limit < 0:
        raise InputRangeError("--limit", args.limit, "[0, inf)")
    dst = Path(args.output) if args.output else None
    if dst is not None and dst.exists() and not args.force:
        raise FileExistsRefusal(dst)
    # --in-place: written beside the input first, put over it only once the input check is done
    # (a time limit or an error there leaves the input as it was)
    staged = _staged(src) if args.in_place else None
    with time_budget(timeout, alarm=True):  # every phase, names and one huge formula included
        report = recalc_file(
            src,
            staged or dst,
            check=args.check,
            timeout_s=timeout,
            limits=budgets(args.budget),
            unsupported="stored" if args.keep_unsupported else "raise",
            now=_now(args.now),
            seed=_seed(args.seed),
            engine=args.engine,
            fallback=libreoffice_values,
            date_order=args.date_order,
            functions=UDFS,
            output=lambda path: atomic_output(path, force=True),
        )
        try:
            inputs_said, bad_inputs = _input_warnings(src, report, staged or dst or src)  # in --timeout
            if staged is not None:
                os.replace(staged, os.path.realpath(src))  # atomic; through a link, the link stays
                report.destination = src
        except BaseException:
            # the command fails: the output it wrote before the input check is not left behind,
            # and with --in-place the input is as it was
            for written in (staged, dst):
                if written is not None and not args.check and written.resolve() != src.resolve():
                    written.unlink(missing_ok=True)
            raise
    print(report.summary())
    for note in report.notes:
        print(f"note: {note}", file=sys.stderr)
    for problem in report.problems:
        print(f"warning: {problem}", file=sys.stderr)
    for line in inputs_said:
        print(line, file=sys.stderr)
    if args.check:
        if report.mismatches:
            print(report.mismatch_table(args.limit))
        return 1 if report.mismatches or bad_inputs else 0
    print(f"wrote {report.destination}")
    return 0


def _staged(src: Path) -> Path:
    """Where ``--in-place`` writes before the result replaces the input: a hidden file beside the
    input's real path (same folder, so the replacement is one atomic rename)."""
    real = Path(os.path.realpath(src))
    return real.with_name(f".{real.stem}.gputco-{os.getpid()}{real.suffix}")


def _input_warnings(src: Path, report, result: Path) -> tuple[list[str], bool]:
    """For a workbook gputco wrote (its marker, see gputco.workbook.xlsx.inputcheck): one warning
    line per named input outside its valid range, and the Checks rows that fail when chk_ok is
    not TRUE, and whether any input is out of range or a check fails. Run inside the command's
    --timeout: the time limit stops it as every other phase."""
    from gputco.workbook.recalc import RecalcTimeoutError
    from gputco.workbook.xlsx import inputcheck

    try:
        kind, bad = inputcheck.out_of_range(src)
        if kind is None:
            return [], False
        if report.checked:  # nothing written: the computed values are the stored ones but these
            computed = {(m.sheet, m.cell): m.computed for m in report.mismatches}
            failed = inputcheck.failed_checks(src, computed)
        else:
            failed = inputcheck.failed_checks(result, {})
    except RecalcTimeoutError:
        raise
    except Exception as err:  # a part openpyxl cannot read (the engine reads only what it needs)
        return [f"note: the named inputs were not checked: {type(err).__name__}: {err}"], False
    lines = [f"warning: input {item.line()}" for item in bad]
    lines += [f"warning: check failed: {line}" for line in failed or ()]
    return lines, bool(bad or failed)
