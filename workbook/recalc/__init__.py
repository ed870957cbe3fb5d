"""gputco's headless recalculation engine: fill every formula cell's value in an .xlsx file.

Formulas are grouped by shape (the same R1C1 formula in consecutive rows of a column) and each
group is evaluated once as a numpy vector, so evaluating a 10,000-row scenario sheet costs about
as much as evaluating its first row; most of the time goes to reading and writing the XML. Custom
functions, handed in (``functions=``; gputco's ``TCO_*`` UDFs are ``gputco.udfs.UDFS``), are called
once per group. Only the values of formula cells change in the file; everything else is copied
unchanged. The engine imports nothing of the rest of gputco (docs/architecture.md).

Usage::

    from gputco.udfs import UDFS
    from gputco.workbook.recalc import recalc_file, evaluate_workbook
    report = recalc_file("model.xlsx", "model.filled.xlsx", functions=UDFS)   # or in_place=True
    report.by_engine                     # {"gputco": cells, "libreoffice": cells} (engine="auto")
    recalc_file("model.xlsx", check=True).mismatches          # cells whose stored value differs
    evaluate_workbook("model.xlsx")[("Model", "B2")]          # values without writing

This module is the engine's one public face (``__all__``); nothing outside workbook/recalc
imports what lies behind it (tests/test_layout.py). Behind it, a bottom layer and folders by
pipeline stage; a module imports only from its own stage or those listed before it:

- ``base/``: values and Excel's errors, the engine's exceptions, vectors, operators, references,
  structured-reference tables, ranges during evaluation;
- ``read/``: the package (zip limits, XML safety, DTDs refused), the sheet readers (the regex fast
  path, expat for the rest, and the streaming reader batch input uses);
- ``formula/``: the parser, and the screen (formulas that reach outside the workbook);
- ``functions/``: Excel's functions by category, and the generated table of them;
- ``run/``: compiled shapes, the plan (groups, order, cycles), the vectorised evaluator, the value
  store, spills, custom functions, the fallback for cells the engine cannot compute (a callable
  the caller hands in, e.g. LibreOffice: :mod:`gputco.workbook.soffice.fallback`), the report;
- ``write/``: the byte-preserving patcher and ``fill_blocks`` (rows written with their values).
"""

from __future__ import annotations

import datetime
import time
from collections.abc import Callable, Mapping
from pathlib import Path

from gputco.workbook.recalc.base.errors import (
    CircularReferenceError,
    FormulaSyntaxError,
    LimitExceededError,
    RecalcError,
    RecalcTimeoutError,
    UnsupportedFunctionError,
    WorkbookFormatError,
)
from gputco.workbook.recalc.base.refs import MAX_COL, cell_name, col_index
from gputco.workbook.recalc.base.values import XlError
from gputco.workbook.recalc.formula.parse import parse
from gputco.workbook.recalc.formula.screen import OutsideReachError, refuse_outside
from gputco.workbook.recalc.functions import BUILTINS, about
from gputco.workbook.recalc.read.limits import (
    DEFAULT_LIMITS,
    Limits,
    budgets,
    check_time,
    deadline,
    over,
    read_member,
    time_left,
    time_limit,
)
from gputco.workbook.recalc.read.package import list_sheets, open_package, open_zip
from gputco.workbook.recalc.read.stream import shared_strings, stream_rows
from gputco.workbook.recalc.read.xmlsafe import refuse_dtd
from gputco.workbook.recalc.run.engine import Evaluation, evaluate_package
from gputco.workbook.recalc.run.hybrid import ENGINES, Fallback, FallbackUnavailable, complete, takes
from gputco.workbook.recalc.run.reach import recomputed
from gputco.workbook.recalc.run.report import Mismatch, RecalcReport, day_first_texts, mismatches
from gputco.workbook.recalc.write.blocks import fill_blocks
from gputco.workbook.recalc.write.writer import Output, write_package

__all__ = [
    "BUILTINS",
    "DEFAULT_LIMITS",
    "ENGINES",
    "MAX_COL",
    "CircularReferenceError",
    "Evaluation",
    "Fallback",
    "FallbackUnavailable",
    "FormulaSyntaxError",
    "LimitExceededError",
    "Limits",
    "Mismatch",
    "OutsideReachError",
    "RecalcError",
    "RecalcReport",
    "RecalcTimeoutError",
    "UnsupportedFunctionError",
    "WorkbookFormatError",
    "XlError",
    "budgets",
    "cell_name",
    "check_time",
    "col_index",
    "deadline",
    "evaluate_package",
    "evaluate_workbook",
    "fill_blocks",
    "list_sheets",
    "open_package",
    "open_zip",
    "over",
    "parse",
    "read_member",
    "recalc_file",
    "refuse_dtd",
    "refuse_outside",
    "shared_strings",
    "stream_rows",
    "supported_functions",
    "takes",
    "time_left",
    "time_limit",
]

Functions = Mapping[str, Callable]


def recalc_file(
    src: str | Path,
    dst: str | Path | None = None,
    *,
    functions: Functions | None = None,
    check: bool = False,
    in_place: bool = False,
    timeout_s: float | None = None,
    unsupported: str = "raise",
    limits: Limits = DEFAULT_LIMITS,
    now: datetime.datetime | None = None,
    seed: int | None = None,
    engine: str = "auto",
    fallback: Fallback | None = None,
    date_order: str = "mdy",
    output: Output | None = None,
) -> RecalcReport:
    """Recalculate ``src`` and write the values into ``dst`` (or check them).

    Parameters
    ----------
    src : path
        The .xlsx/.xlsm file.
    dst : path, optional
        Where to write the recalculated copy (may equal ``src``). Required unless ``check`` or
        ``in_place`` is set.
    functions : mapping, optional
        Custom functions, upper-case Excel name -> callable (default: none; gputco's command line
        and workbooks hand in ``gputco.udfs.UDFS``).
    check : bool
        Write nothing; report every formula cell whose stored value differs from the computed one
        (``report.mismatches``).
    in_place : bool
        Overwrite ``src`` (atomically). Never implied.
    timeout_s : float, optional
        Stop with :class:`RecalcTimeoutError` after this many seconds.
    unsupported : {"raise", "stored"}
        What to do with formulas that use functions the engine does not evaluate: raise
        :class:`UnsupportedFunctionError` naming them and their cells (default), or keep the
        values stored in the file for those cells and list them in ``report.unsupported``.
    now : datetime, optional
        The wall-clock time NOW() and TODAY() return; without it, cells using them are
        unsupported (never guessed).
    seed : int, optional
        The seed (a whole number >= 0) of numpy's ``default_rng`` that RAND, RANDBETWEEN and
        RANDARRAY draw from: the same seed gives the same values. Without it, cells using them
        are unsupported. With ``check``, volatile cells (these, INFO, CELL("filename")) and the
        cells depending on them are listed in ``report.volatile``, recomputed but never
        compared with their stored values.
    fallback : callable, optional
        Who computes what the engine cannot (``engine`` "auto" or "libreoffice"):
        ``fallback(src, cells, limits, timeout_s) -> {cell: value}``. gputco's is
        :func:`gputco.workbook.soffice.fallback.libreoffice_values` (the command line passes
        it); without one, "auto" is the engine alone and says so in ``report.notes``.
    engine : {"auto", "gputco", "libreoffice"}
        Who computes the formulas. "gputco": the engine alone (results never depend on what is
        installed). "auto" (default): the engine, and LibreOffice (when installed) for the cells
        it cannot compute and the cells depending on them. "libreoffice": LibreOffice computes
        every formula cell. Either way the values are patched into the original file, and a
        workbook that reaches outside (see :mod:`.screen`) is never handed to LibreOffice (auto
        falls back to the engine and says so in ``report.notes``; "libreoffice" raises
        :class:`.screen.OutsideReachError`). Volatile cells (NOW, RAND, ...) are never taken
        from LibreOffice. See :mod:`.hybrid`.
    date_order : {"mdy", "dmy"}
        How a date text such as "3/4/2024" or "29/02/1900" reads (typed in a formula, in a cell,
        or made by a formula), which a workbook does not record: "mdy" (default, Excel in the
        United States: March 4) or "dmy" (Excel with most European regional settings: April 3).
        The cells LibreOffice computes (``engine`` "auto") read dates its own way (en-US).
    output : callable, optional
        ``output(dst)``, a context manager yielding the temporary path the new file is written
        to and moving it onto ``dst`` when done (gputco's command line hands in
        :func:`gputco.workbook.xlsx.files.atomic_output` with ``force=True``); default: a
        temporary file beside ``dst`` renamed onto it.

    Returns
    -------
    RecalcReport
    """
    start = time.perf_counter()
    src = Path(src)
    if check:
        if dst is not None or in_place:
            raise ValueError("check=True writes nothing: do not pass dst or in_place")
        target = None
    elif in_place:
        if dst is not None and Path(dst).resolve() != src.resolve():
            raise ValueError("in_place=True writes over src: do not pass a different dst")
        target = src
    elif dst is None:
        raise ValueError("pass dst, or in_place=True to overwrite src, or check=True")
    else:
        target = Path(dst)
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, not {engine!r}")
    if unsupported not in ("raise", "stored"):
        raise ValueError("unsupported must be 'raise' or 'stored'")
    stop_at = None if timeout_s is None else start + timeout_s
    with deadline(timeout_s):  # reading and screening too, not only the engine
        evaluation = _evaluate(
            src,
            functions,
            timeout_s,
            "stored" if engine != "gputco" else unsupported,
            limits,
            now,
            seed,
            date_order,
        )
        outcome = complete(evaluation, engine, stop_at, fallback, all_or_nothing=unsupported == "raise")
    if evaluation.unsupported and unsupported == "raise":
        err = UnsupportedFunctionError(evaluation.unsupported, about)
        err.args = (" ".join([err.args[0], *outcome.notes]),)
        raise err
    if target is not None:
        write_package(evaluation, target, limits, output)
    report = RecalcReport(
        src,
        target,
        evaluation.cells,
        len(evaluation.groups),
        evaluation.units,
        0.0,
        dict(evaluation.unsupported),
        problems=list(evaluation.problems),
        checked=check,
        engine=engine,
        libreoffice_cells=outcome.cells,
        screened=outcome.screened,
        notes=outcome.notes,
    )
    lo = len(outcome.cells)
    report.by_engine = {"gputco": evaluation.cells - len(evaluation.skipped) - lo, "libreoffice": lo}
    if check:
        report.volatile = recomputed(evaluation)
        report.mismatches = mismatches(evaluation, set(outcome.cells), report.volatile)
        seen = day_first_texts(evaluation) if report.mismatches and date_order == "mdy" else []
        if seen:  # the differences may be the saving Excel's regional settings: say so
            report.notes.append(
                f"the workbook holds dates written day first ({', '.join(seen)}), which this "
                "recalculation reads month first (as Excel in the United States): if an Excel with "
                "day-first regional settings computed it, check again with --date-order dmy"
            )
    report.seconds = time.perf_counter() - start
    return report


def evaluate_workbook(
    src: str | Path,
    *,
    functions: Functions | None = None,
    timeout_s: float | None = None,
    unsupported: str = "raise",
    limits: Limits = DEFAULT_LIMITS,
    now: datetime.datetime | None = None,
    seed: int | None = None,
    date_order: str = "mdy",
) -> dict[tuple[str, str], object]:
    """Every formula cell's computed value, keyed by (sheet name, "A1").

    Values are floats, str, bool or :class:`XlError` (compare errors with ``str(v) == "#N/A"``).
    ``date_order`` as for :func:`recalc_file`.
    """
    evaluation = _evaluate(Path(src), functions, timeout_s, unsupported, limits, now, seed, date_order)
    out = {}
    for part in evaluation.package.sheets:
        for fc in part.formulas:
            out[(part.name, cell_name(fc.row, fc.col))] = evaluation.value(part.name, fc.row, fc.col)
    return out


def supported_functions() -> list[str]:
    """Names of the Excel built-in functions the engine evaluates."""
    return sorted(BUILTINS)


def _evaluate(
    src: Path, functions, timeout_s, unsupported, limits, now=None, seed=None, date_order="mdy"
) -> Evaluation:
    package = open_package(src, limits)
    return evaluate_package(
        package,
        functions,
        unsupported=unsupported,
        timeout_s=timeout_s,
        now=now,
        seed=seed,
        date_order=date_order,
    )
