"""Many rows of the same shape, fast: openpyxl writes one styled template row, this writes the rest.

openpyxl spends 8 to 15 microseconds per cell, so a 10,000-scenario sheet of 25 columns took about
3.7 s in openpyxl alone (write-only mode, styled cells; 4.0 s in normal mode), most of the time
budget of ``gputco scenarios``. Here the block's cells are formatted a column at a time with
Arrow's string kernels, about 0.2 s for the same sheet, streamed into the zip so memory stays
flat for a million rows.

The workbook is built with openpyxl as usual (styles, names, charts, validation), with the big
block's first data row written as the *template row*, styled cell by cell, and as the last row of
its sheet. :func:`fill_rows` then replaces that row with ``n`` rows: the same style ids (read
from the template row as openpyxl wrote it), formulas from templates where ``{r}`` is the row
number, and per-row numbers or texts. Formula cells are written with the values given
(``values=``, computed beforehand by the engine: :mod:`gputco.workbook.scenarios.onepass`), or without
a ``<v>`` for a recalculation to fill in.

The cells are written by :func:`gputco.workbook.xlsx.sheetrows.rows_xml`, the rules every writer of rows
shares (:mod:`gputco.workbook.xlsx.stream` too); texts are inline strings, as openpyxl writes every
other text of the package (no shared-string table to extend). This module keeps what is
particular to splicing: finding the sheet and its template row, reading the row's style ids,
widening the sheet's dimension and copying the other parts of the package.

>>> import tempfile, openpyxl, numpy as np
>>> path = Path(tempfile.mkdtemp()) / "rows.xlsx"
>>> wb = openpyxl.Workbook(); ws = wb.active; ws.title = "Rows"
>>> ws.append(["x", "name", "double"]); ws.append([0.0, "", "=A2*2"]); wb.save(path)
>>> fill_rows(path, "Rows", 2, [BlockColumn(1, numbers=np.array([1.5, 2.0, 3.0])),
...                            BlockColumn(2, texts=(np.array([0, 1, 0]), ["a&b", "c"])),
...                            BlockColumn(3, formula="=A{r}*2")])
>>> [[c.value for c in r] for r in openpyxl.load_workbook(path)["Rows"].iter_rows(min_row=2)]
[[1.5, 'a&b', '=A2*2'], [2, 'c', '=A3*2'], [3, 'a&b', '=A4*2']]
"""

from __future__ import annotations

import os
import posixpath
import re
import tempfile
import xml.etree.ElementTree as ET
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from openpyxl.utils import get_column_letter

from gputco.workbook.xlsx.sheetrows import FormulaColumn, InlineStrings, TextCodes, rows_xml

_MAIN = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_REL = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
_PKG_REL = "{http://schemas.openxmlformats.org/package/2006/relationships}"
_CHUNK_ROWS = 20_000


@dataclass(frozen=True)
class BlockColumn:
    """One column of the block: a formula template, or one number or text per row."""

    col: int  # 1-based column index
    formula: str | None = None  # "=A{r}*2": {r} is the row number
    numbers: np.ndarray | None = None
    texts: tuple[np.ndarray, Sequence[str]] | None = None  # (codes per row, categories)

    def first_value(self, row: int) -> object:
        """The value of the first row, for the openpyxl template row."""
        if self.formula is not None:
            return self.formula.replace("{r}", str(row))
        if self.numbers is not None:
            return float(self.numbers[0])
        codes, cats = self.texts
        return cats[int(codes[0])]


def fill_rows(
    path: str | os.PathLike,
    sheet: str,
    first_row: int,
    columns: Sequence[BlockColumn],
    *,
    values: Mapping[int, tuple] | None = None,
    parts: Mapping[str, bytes] | None = None,
) -> None:
    """Replace the template row ``first_row`` of ``sheet`` (its last row) by the block's rows.

    The number of rows is the length of the value columns (1 when there are only formulas).
    ``values`` gives formula columns (by column number) their computed values, as
    ``(t attributes, texts of <v>)`` per row (:func:`gputco.workbook.recalc.write.patch.column_xml`), written
    in the same pass; without them a formula has no ``<v>``. ``parts`` replaces the bytes of
    zip members (the sheet's own bytes too, before its rows are filled). The file is rewritten
    in place (through a temporary file beside it).
    """
    path = Path(path)
    n = _length(columns)
    parts = parts or {}
    with zipfile.ZipFile(path) as zf:
        part = _sheet_part(zf, sheet)
        xml = (parts.get(part) or zf.read(part)).decode("utf-8")
        head, template, tail = _split(xml, sheet, first_row)
        styles = _styles(template)
        cells = [
            (c.col, _column(c, (values or {}).get(c.col)), styles.get(get_column_letter(c.col), 0))
            for c in sorted(columns, key=lambda c: c.col)
        ]
        last_col = max(c.col for c in columns)
        head = _dimension(head, first_row + n - 1, last_col)
        fd, tmp_name = tempfile.mkstemp(prefix=f".~{path.name}.", suffix=".tmp", dir=path.parent)
        os.close(fd)
        tmp = Path(tmp_name)
        try:
            with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as out:
                for info in zf.infolist():
                    if info.filename != part:
                        out.writestr(info, parts.get(info.filename) or zf.read(info.filename))
                        continue
                    # by name: the archive's fast compression (a recalculation rewrites it anyway)
                    with out.open(part, "w", force_zip64=True) as fh:
                        fh.write(head.encode("utf-8"))
                        for start in range(0, n, _CHUNK_ROWS):
                            stop = min(n, start + _CHUNK_ROWS)
                            block = [(j, _rows(col, start, stop), st) for j, col, st in cells]
                            fh.write(rows_xml(first_row + start, stop - start, block, InlineStrings()))
                        fh.write(tail.encode("utf-8"))
            os.replace(tmp, path)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise


def _length(columns: Sequence[BlockColumn]) -> int:
    lengths = {
        len(c.numbers) if c.numbers is not None else len(c.texts[0]) for c in columns if c.formula is None
    }
    if len(lengths) > 1:
        raise ValueError(f"value columns of different lengths: {sorted(lengths)}")
    return lengths.pop() if lengths else 1


def _sheet_part(zf: zipfile.ZipFile, sheet: str) -> str:
    """The zip member of the worksheet called ``sheet``."""
    wb = ET.fromstring(zf.read("xl/workbook.xml"))
    rels = ET.fromstring(zf.read("xl/_rels/workbook.xml.rels"))
    targets = {r.get("Id"): r.get("Target") for r in rels.iter(f"{_PKG_REL}Relationship")}
    for s in wb.iter(f"{_MAIN}sheet"):
        if s.get("name") == sheet:
            target = targets[s.get(f"{_REL}id")]
            return (
                target.lstrip("/")
                if target.startswith("/")
                else posixpath.normpath(posixpath.join("xl", target))
            )
    raise KeyError(f"no sheet {sheet!r}")


def _split(xml: str, sheet: str, row: int) -> tuple[str, str, str]:
    """(everything before the template row, the row's XML, everything after it)."""
    m = re.search(rf'<row r="{row}"[^>]*>(.*?)</row>', xml, re.S)
    if m is None:
        raise ValueError(f"sheet {sheet!r} has no template row {row}")
    tail = xml[m.end() :]
    if not tail.lstrip().startswith("</sheetData>"):
        raise ValueError(f"the template row {row} of sheet {sheet!r} is not its last row")
    return xml[: m.start()], m.group(1), tail


def _styles(template: str) -> dict[str, int]:
    """The style id of each cell of the template row, by column letters."""
    styles = {}
    for m in re.finditer(r"<c\s[^>]*>", template):  # each cell's start tag: its column and style
        col = re.search(r'\sr="([A-Z]+)\d+"', m.group())
        style = re.search(r'\ss="(\d+)"', m.group())
        if col and style:
            styles[col.group(1)] = int(style.group(1))
    return styles


def _column(c: BlockColumn, values: tuple | None):
    """The block column as :func:`rows_xml` takes it (``values``: its formulas' cached values
    as ``(t attributes, texts of <v>)``)."""
    if c.formula is not None:
        return FormulaColumn(c.formula, xml=values)
    if c.numbers is not None:
        return np.asarray(c.numbers, dtype=float)
    codes, cats = c.texts
    return TextCodes(np.asarray(codes), [str(x) for x in cats])


def _rows(cells, start: int, stop: int):
    """Rows ``start:stop`` of a column from :func:`_column`."""
    if isinstance(cells, FormulaColumn):
        if cells.xml is None:
            return cells
        types, texts = cells.xml
        return FormulaColumn(cells.template, xml=(types[start:stop], texts[start:stop]))
    return cells[start:stop]


def _dimension(head: str, last_row: int, last_col: int) -> str:
    def widen(m: re.Match) -> str:
        first, _, end = m.group(1).partition(":")
        end = end or first
        letters = end.rstrip("0123456789")
        col = max(last_col, _col_index(letters))
        return f'<dimension ref="{first}:{get_column_letter(col)}{last_row}"'

    return re.sub(r'<dimension ref="([^"]+)"', widen, head, count=1)


def _col_index(letters: str) -> int:
    n = 0
    for ch in letters:
        n = n * 26 + ord(ch) - 64
    return n
