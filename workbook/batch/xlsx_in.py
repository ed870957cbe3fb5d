"""Batch input from an .xlsx file: the first worksheet, streamed through the one safe door.

The package is opened with :func:`gputco.workbook.recalc.package.open_zip` (part counts, sizes,
compression ratio, encryption), its parts read with the limits of :mod:`gputco.workbook.recalc.limits`
and parsed with DTDs refused (:mod:`gputco.workbook.recalc.xmlsafe`); the worksheet is parsed in pieces,
so memory holds one chunk of rows. Formula cells are never read as empty and never trusted for
their stored value: the first one met runs gputco's own engine (:mod:`gputco.workbook.recalc`) over the
workbook, and each formula cell takes the value it computes (``=0.06*2`` is 0.12). A formula the
engine cannot evaluate stops the run naming its cell.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pyarrow as pa

from gputco.workbook.recalc import limits as lim
from gputco.workbook.recalc import xmlsafe
from gputco.workbook.recalc.errors import RecalcError, UnsupportedFunctionError, WorkbookFormatError
from gputco.workbook.recalc.package import list_sheets, open_zip
from gputco.workbook.recalc.refs import MAX_COL, cell_name, col_index
from gputco.workbook.recalc.sheetxml import _NAMESPACES, decode, read_shared_strings
from gputco.workbook.recalc.values import XlError

_TAGS = {
    f"{ns} {local}": local
    for ns in _NAMESPACES
    for local in ("sheetData", "row", "c", "f", "v", "is", "t", "rPh")
}


class FormulaValues:
    """The engine's values for the formula cells of one sheet, computed on first use."""

    def __init__(self, path: Path, sheet: str) -> None:
        self.path, self.sheet = path, sheet
        self._evaluation = None

    def value(self, row: int, col: int) -> object:
        if self._evaluation is None:
            from gputco.workbook.batch.run import BatchError
            from gputco.workbook.recalc.engine import evaluate_package
            from gputco.workbook.recalc.package import open_package

            try:
                self._evaluation = evaluate_package(open_package(self.path))
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


def read_xlsx(path: str | Path, chunk_rows: int) -> Iterator[tuple[pa.Table, np.ndarray]]:
    """Yield (table, spreadsheet row of each table row) for the first worksheet's data rows."""
    from gputco.workbook.batch.run import BatchError

    path = Path(path)
    try:
        zf = open_zip(path)
    except WorkbookFormatError as err:
        raise BatchError(f"{path}: {err}" if str(path) not in str(err) else str(err)) from None
    with zf:
        try:
            book = list_sheets(zf)
            first = next((s for s in book.sheets if s.kind == "worksheet"), None)
            if first is None:
                raise BatchError(f"{path}: the workbook has no worksheet")
            if first.part is None:
                raise BatchError(f"{path}: sheet {first.name!r} points to a missing part")
            strings: list[str] = []
            if book.shared_strings:
                strings = read_shared_strings(lim.read_member(zf, book.shared_strings), book.shared_strings)
            formulas = FormulaValues(path, first.name)
            header: list[str] | None = None
            buf: list[tuple[int, dict[int, object]]] = []
            for rownum, cells in _rows(lim.stream_member(zf, first.part), first.part, strings, formulas):
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


def _rows(
    pieces: Iterator[bytes], part: str, strings: list[str], formulas: FormulaValues
) -> Iterator[tuple[int, dict[int, object]]]:
    """(row number, {column: value}) of every row of a worksheet part, parsed piece by piece."""
    done: list[tuple[int, dict[int, object]]] = []
    st = {
        "row": 0,
        "col": 0,
        "t": "n",
        "v": None,
        "buf": None,
        "inline": None,
        "f": False,
        "rph": False,
        "cells": None,
        "data": False,
    }
    cols: dict[str, int] = {}

    def start(tag, attrs):
        name = _TAGS.get(tag)
        if name is None:
            return
        if name == "sheetData":
            st["data"] = True
        elif not st["data"]:
            return
        elif name == "row":
            r = attrs.get("r")
            st["row"] = int(r) if r and r.isdigit() else st["row"] + 1
            st["col"], st["cells"] = 0, {}
        elif name == "c":
            r = attrs.get("r")
            if r:
                letters = r.rstrip("0123456789")
                col = cols.get(letters) or cols.setdefault(letters, col_index(letters))
                st["col"] = col
            else:
                st["col"] += 1
            if not 0 < st["col"] <= MAX_COL:
                raise WorkbookFormatError(f"{part} has a cell with a bad reference {r!r}")
            st["t"], st["v"], st["inline"], st["f"] = attrs.get("t", "n"), None, None, False
        elif name == "v":
            st["buf"] = []
        elif name == "f":
            st["f"] = True
        elif name == "is":
            st["inline"] = []
        elif name == "t" and st["inline"] is not None and not st["rph"]:
            st["buf"] = []
        elif name == "rPh":
            st["rph"] = True

    def end(tag):
        name = _TAGS.get(tag)
        if name is None or not st["data"]:
            return
        if name == "c":
            if st["f"]:
                value = formulas.value(st["row"], st["col"])
            else:
                try:
                    value = decode(st["t"], st["v"], st["inline"], strings, False)
                except (ValueError, IndexError) as err:
                    raise WorkbookFormatError(f"{cell_name(st['row'], st['col'])}: {err}") from None
            if value is not None:
                st["cells"][st["col"]] = value
        elif name == "v":
            st["v"], st["buf"] = "".join(st["buf"]), None
        elif name == "t" and st["inline"] is not None and st["buf"] is not None:
            st["inline"].append("".join(st["buf"]))
            st["buf"] = None
        elif name == "rPh":
            st["rph"] = False
        elif name == "row":
            done.append((st["row"], st["cells"]))
        elif name == "sheetData":
            st["data"] = False

    def chars(text):
        if st["buf"] is not None:
            st["buf"].append(text)

    p = xmlsafe.make_parser()
    p.StartElementHandler, p.EndElementHandler, p.CharacterDataHandler = start, end, chars
    for piece in pieces:
        xmlsafe.run_piece(p, piece, part, final=False)
        yield from done
        done.clear()
    xmlsafe.run_piece(p, b"", part, final=True)
    yield from done


def _table(header: list[str], buf: list[tuple[int, dict[int, object]]]) -> tuple[pa.Table, np.ndarray]:
    """Numbers stay numbers; a column with any text is text (its numbers written exactly)."""
    cols = {}
    for j, name in enumerate(header, start=1):
        if not name:
            continue
        values = [cells.get(j) for _, cells in buf]
        if all(v is None or (type(v) is float) for v in values):
            cols[name] = pa.array(values, pa.float64())
        else:
            cols[name] = pa.array([None if v is None else _text(v) for v in values], pa.string())
    return pa.table(cols), np.array([r for r, _ in buf], dtype=np.int64)


def _text(v: object) -> str:
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, float):
        return repr(v)
    return str(v)
