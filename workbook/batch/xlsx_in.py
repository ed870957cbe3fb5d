"""Batch input from an .xlsx file: the first worksheet, streamed through the one safe door.

The package is opened with the engine's :func:`~gputco.workbook.recalc.open_zip` (part counts,
sizes, compression ratio, encryption) and the worksheet streamed by its
:func:`~gputco.workbook.recalc.stream_rows` (limits, DTDs refused, parsed in pieces), so memory
holds one chunk of rows. Formula cells are never read as empty and never trusted for
their stored value: the first one met runs gputco's own engine (:mod:`gputco.workbook.recalc`) over the
workbook, and each formula cell takes the value it computes (``=0.06*2`` is 0.12). A formula the
engine cannot evaluate stops the run naming its cell.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np

from gputco.udfs import UDFS
from gputco.workbook.batch.errors import BatchError
from gputco.workbook.batch.table import Table, text_column
from gputco.workbook.recalc import (
    DEFAULT_LIMITS,
    Limits,
    RecalcError,
    RecalcTimeoutError,
    UnsupportedFunctionError,
    WorkbookFormatError,
    XlError,
    cell_name,
    evaluate_package,
    list_sheets,
    open_package,
    open_zip,
    shared_strings,
    stream_rows,
)
from gputco.workbook.timebudget import check_time, time_left


class FormulaValues:
    """The engine's values for the formula cells of one sheet, computed on first use."""

    def __init__(self, path: Path, sheet: str, limits: Limits = DEFAULT_LIMITS) -> None:
        self.path, self.sheet, self.limits = path, sheet, limits
        self._evaluation = None

    def value(self, row: int, col: int) -> object:
        if self._evaluation is None:
            try:
                self._evaluation = evaluate_package(
                    open_package(self.path, self.limits),
                    UDFS,
                    timeout_s=time_left(None, "computing the input's formulas"),
                )
            except RecalcTimeoutError:
                check_time("computing the input's formulas")  # named with the command's --timeout
                raise
            except UnsupportedFunctionError as err:
                cells = "; ".join(
                    f"{name} in {', '.join(where[:3])}"
                    + (f" and {len(where) - 3} more" if len(where) > 3 else "")
                    for name, where in sorted(err.functions.items())
                )
                raise BatchError(
                    f"{self.path}: formula cells that gputco's engine does not "
                    f"compute: {cells}; put the values in those cells"
                ) from None
            except RecalcError as err:
                raise BatchError(
                    f"{self.path}: a formula cell cannot be evaluated by gputco's engine: {err}"
                ) from None
        value = self._evaluation.value(self.sheet, row, col)
        if isinstance(value, XlError):
            return f"{value} (the formula in {self.sheet}!{cell_name(row, col)})"
        return value


def read_xlsx(
    path: str | Path, chunk_rows: int, limits: Limits = DEFAULT_LIMITS
) -> Iterator[tuple[Table, np.ndarray]]:
    """Yield (table, spreadsheet row of each table row) for the first worksheet's data rows,
    read within the budgets ``limits`` (docs/safety.md)."""
    path = Path(path)
    try:
        zf = open_zip(path, limits)
    except WorkbookFormatError as err:
        raise BatchError(f"{path}: {err}" if str(path) not in str(err) else str(err)) from None
    with zf:
        try:
            book = list_sheets(zf, limits)
            first = next((s for s in book.sheets if s.kind == "worksheet"), None)
            if first is None:
                raise BatchError(f"{path}: the workbook has no worksheet")
            if first.part is None:
                raise BatchError(f"{path}: sheet {first.name!r} points to a missing part")
            strings = shared_strings(zf, book.shared_strings, limits)
            formulas = FormulaValues(path, first.name, limits)
            header: list[str] | None = None
            buf: list[tuple[int, dict[int, object]]] = []
            for rownum, cells in stream_rows(zf, first.part, strings, formulas.value, limits):
                if header is None:
                    if not cells:
                        continue
                    width = max(cells)
                    header = [_text(cells.get(j, "")).strip() for j in range(1, width + 1)]
                    named = [h for h in header if h]
                    if len(set(named)) != len(named):
                        twice = next(h for h in named if named.count(h) > 1)
                        raise BatchError(f"{path}: two columns are named {twice!r}")
                    continue
                if all(v is None or (isinstance(v, str) and not v.strip()) for v in cells.values()):
                    continue
                buf.append((rownum, cells))
                if len(buf) >= chunk_rows:
                    yield _table(header, buf)
                    buf = []
            if header is None:
                raise BatchError(f"{path}: the first sheet has no header row")
            if buf:
                yield _table(header, buf)
        except WorkbookFormatError as err:
            raise BatchError(f"{path}: {err}") from None


def _table(header: list[str], buf: list[tuple[int, dict[int, object]]]) -> tuple[Table, np.ndarray]:
    """Numbers stay numbers; a column with any text is text (its numbers written exactly)."""
    names, cols = [], []
    for j, name in enumerate(header, start=1):
        if not name:
            continue
        values = [cells.get(j) for _, cells in buf]
        names.append(name)
        if all(v is None or (type(v) is float) for v in values):
            cols.append(np.array([np.nan if v is None else v for v in values], dtype=float))
        else:
            cols.append(text_column([None if v is None else _text(v) for v in values]))
    return Table(names, cols), np.array([r for r, _ in buf], dtype=np.int64)


def _text(v: object) -> str:
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, float):
        return repr(v)
    return str(v)
