"""Literal cell values: text from data (preset labels, sources, keys) is text, never a formula.

openpyxl stores any string that begins with ``=`` as a formula. Text that comes from data files
or from users must not: ``=HYPERLINK(...)`` in a preset's source would become a live link, and
``=WEBSERVICE(...)`` a request. :func:`put` writes such text as a string cell. Texts beginning with
``+``, ``-`` or ``@`` are stored as strings by openpyxl anyway (in an .xlsx a string cell is never
evaluated); CSV output, which has no types, is handled in :mod:`gputco.workbook.batch.run`.

>>> from openpyxl import Workbook
>>> ws = Workbook().active
>>> put(ws, 1, 1, '=HYPERLINK("http://example.com")').data_type, put(ws, 2, 1, 3.5).data_type
('s', 'n')
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # openpyxl is imported by the callers; `gputco batch` starts without it
    from openpyxl import Workbook
    from openpyxl.cell.cell import Cell
    from openpyxl.worksheet.worksheet import Worksheet

#: first characters that make a spreadsheet read text as a formula
FORMULA_PREFIXES = ("=", "+", "-", "@")


def looks_like_formula(value: object) -> bool:
    """True for text a spreadsheet would take as a formula if typed or imported (CSV)."""
    return isinstance(value, str) and value.startswith(FORMULA_PREFIXES)


def put(ws: Worksheet, row: int, col: int, value: object) -> Cell:
    """Write a literal value (text, number, date, boolean); text always stays text."""
    cell = ws.cell(row=row, column=col, value=value)
    as_text(cell)
    return cell


def as_text(cell: Cell) -> Cell:
    """Make a cell that holds a string a string cell, even if the string begins with ``=``."""
    if isinstance(cell.value, str) and cell.data_type == "f":
        cell.data_type = "s"
    return cell


def blank_empty_texts(wb: Workbook) -> None:
    """Leave the value out of every cell that holds the empty text, keeping its style.

    openpyxl writes ``""`` as ``<c t="inlineStr"></c>``, an inline string without its ``<is>``, a
    form Excel never writes: Excel keeps no empty text constants (a cell typed empty is blank; the
    384 Excel-saved workbooks of tests/data/excel_corpus hold none), only formulas whose value is
    ``""`` (``t="str"``, an empty ``<v>``). Every formula of the generated workbooks tests emptiness
    with ``=""``, which a blank cell also meets."""
    for ws in wb.worksheets:
        for cell in ws._cells.values():
            if cell._value == "" and cell.data_type == "s":
                cell.value = None
