"""The Scenarios sheet: one row per scenario of the grid, the whole chain in native formulas.

Columns: ``scenario`` (1..N), the grid's inputs (blue), the used values that vary between
scenarios (grey), the results (black; TCO bold) and the cross-checks: ``=TCO_TOTAL_PER_GPU_HOUR``
and ``=TCO_COST_PER_MTOK`` beside the native TCO and cost per Mtok, with relative differences.
Row 4 holds headings with units, row 5 the column keys (the names of ``gputco.udfs.scenario``; read it
with ``pandas.read_excel(path, "Scenarios", header=4)``), data start on row 6. Each column
``key`` of the data is also the defined name ``scn_<key>``.

:func:`row_block` writes the headings and one styled template row of any such block (the Monte
Carlo draws use it too) and returns the columns for :func:`gputco.workbook.xlsx.rowfill.fill_rows`.
"""

from __future__ import annotations

from collections.abc import Mapping
from copy import copy

import numpy as np
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.datavalidation import DataValidation

from gputco.udfs import ranges
from gputco.udfs.scenario import Coded
from gputco.workbook.scenarios.inputs import LISTS
from gputco.workbook.scenarios.layout import Layout
from gputco.workbook.xlsx import styles
from gputco.workbook.xlsx.book import BookBuilder
from gputco.workbook.xlsx.rowfill import BlockColumn
from gputco.workbook.xlsx.validation import validate_range

SHEET = "Scenarios"
HEAD_ROW = 4  # headings; keys on the next row, data after
GROUPS = {
    "input": "inputs",
    "used": "values used",
    "result": "results",
    "check": "TCO_ functions (need the add-in in Excel) vs native formulas",
    "year": "cash flow per year of owning one GPU and renting it out (USD; year 0 = "
    "purchase; the NPV, IRR and payback columns read these)",
    "project": "the project's terms as used (docs/project.md; the finance workbook's Model rows)",
    "period": "the cluster as a project, per GPU: tax years, then one cell per period (period 0 = "
    "paying the capex; USD, signed as cash) of the terms the results read",
}


def build(
    book: BookBuilder, layout: Layout, columns: Mapping[str, object], n: int, subtitle: str
) -> tuple[int, list[BlockColumn]]:
    """Headings and the template row; returns (first data row, the columns to fill)."""
    ws = book.wb.create_sheet(SHEET)
    styles.title(ws, f"Scenarios: {n:,} rows, one per combination of the grid", subtitle)
    first, cols = row_block(book, ws, layout, columns, n, "scenario", "scn_")
    ws.freeze_panes = ws.cell(row=first, column=2)
    last = get_column_letter(max(c.col for c in cols))
    ws.auto_filter.ref = f"A{first - 1}:{last}{first + n - 1}"
    for key in layout.varying:
        if key in LISTS:
            dv = DataValidation(
                type="list",
                formula1=LISTS[key],
                allow_blank=False,
                showErrorMessage=True,
                errorTitle="Not a preset",
                error="Pick a value from the drop-down (the list is on Presets).",
            )
            letter = layout.letter(key)
            dv.add(f"{letter}{first}:{letter}{first + n - 1}")
            ws.add_data_validation(dv)
        elif key in ranges.RANGES:
            validate_range(ws, key, first, layout.col[key], first + n - 1, layout.col[key])
    styles.page_setup(ws, one_page=False)
    return first, cols


def row_block(
    book: BookBuilder,
    ws,
    layout: Layout,
    columns: Mapping[str, object],
    n: int,
    id_key: str,
    prefix: str,
    head_row: int = HEAD_ROW,
    extra: tuple = (),
) -> tuple[int, list[BlockColumn]]:
    """Write a block's headings and styled template row; define ``<prefix><key>`` per column.

    ``columns`` holds the values of the varying inputs (arrays, or Coded for text); ``extra``
    are (key, label, unit, formula) columns appended after the layout's.
    """
    first = head_row + 2
    cols = [BlockColumn(1, numbers=np.arange(1, n + 1, dtype=float))]
    heads = {1: (id_key, id_key, "", "")}
    for q in layout.columns:
        col = layout.col[q.key]
        heads[col] = (q.key, q.label, q.unit, q.kind)
        if q.kind == "input":
            values = columns[q.key]
            if isinstance(values, Coded):
                cols.append(BlockColumn(col, texts=(values.codes, list(values.categories))))
            else:
                cols.append(BlockColumn(col, numbers=np.asarray(values, dtype=float)))
        else:
            cols.append(BlockColumn(col, formula=layout.formula(q.key)))
    next_col = max(heads) + 1
    for key, label, unit, formula in extra:
        heads[next_col] = (key, label, unit, "result")
        cols.append(BlockColumn(next_col, formula=formula))
        next_col += 1
    groups_row = head_row - 1
    for col, (key, label, unit, kind) in sorted(heads.items()):
        if kind and (col == 2 or heads.get(col - 1, ("",) * 4)[3] != kind):
            ws.cell(row=groups_row, column=col, value=GROUPS[kind]).font = styles.SECTION_FONT
        styles.header_row(
            ws, head_row, [f"{label} ({unit})" if unit and unit != "key" else label], first_col=col
        )
        ws.cell(row=head_row + 1, column=col, value=key).font = styles.KEY_FONT
        styles.widths(
            ws, {col: 9 if col == 1 else 16 if kind == "check" else 12 if kind in ("year", "period") else 14}
        )
        letter = get_column_letter(col)
        book.define(f"{prefix}{key}", ws, f"${letter}${first}:${letter}${first + n - 1}")
    ws.row_dimensions[head_row].height = 45
    for c in cols:
        cell = ws.cell(row=first, column=c.col, value=c.first_value(first))
        key, _label, unit, kind = heads[c.col]
        if kind == "input":
            styles.style_input(cell, unit)
        elif kind in ("used", "project"):
            styles.style_lookup(cell, unit)
        elif kind == "check":
            styles.style_formula(cell, unit)
            cell.font = styles.NOTE_FONT
        else:
            styles.style_formula(cell, unit)
        if key in ("tco_usd_per_gpu_hour", "usd_per_mtok"):
            cell.font = styles.BOLD
    return first, cols


def write_all(ws, first: int, cols: list[BlockColumn], n: int) -> None:
    """Write rows 2..n of a small block with openpyxl, styled like its template row."""
    for c in cols:
        template = ws.cell(row=first, column=c.col)
        for i in range(1, n):
            r = first + i
            if c.formula is not None:
                value = c.formula.replace("{r}", str(r))
            elif c.numbers is not None:
                value = float(c.numbers[i])
            else:
                value = c.texts[1][int(c.texts[0][i])]
            cell = ws.cell(row=r, column=c.col, value=value)
            cell._style = copy(template._style)
