"""Write big blocks of rows with their values in one pass: evaluate, then write (``fill_blocks``).

The scenario workbook's blocks (the Scenarios rows, the Monte Carlo draws) are written so: the engine evaluates the
workbook as openpyxl saved it, each block's one template row replaced in memory by the block's
cells (numbers, texts and formula texts straight from its columns, no XML read), then each
block's rows go into the file once, formulas and values together, by the row writer the caller
hands in (gputco's: :func:`gputco.workbook.xlsx.rowfill.fill_rows`, whose ``BlockColumn`` is
the column), and the other formula cells get their values patched in (:mod:`.patch`). Recalculating the file with ``recalc_file`` changes no byte of it
(tests/test_scenarios_onepass.py).
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Protocol

import numpy as np

from gputco.workbook.recalc.read.cells import SheetPart
from gputco.workbook.recalc.read.formulacols import FormulaColumns, columns, joined
from gputco.workbook.recalc.read.package import open_package
from gputco.workbook.recalc.run.engine import evaluate_package
from gputco.workbook.recalc.run.report import RecalcReport
from gputco.workbook.recalc.write.cellxml import value_xml
from gputco.workbook.recalc.write.patch import column_xml, patch_part


class BlockColumn(Protocol):
    """One column of a block: a formula template (``{r}`` for the row), or a number or a text
    (codes per row, categories) per row; ``col`` is 1-based."""

    col: int
    formula: str | None
    numbers: np.ndarray | None
    texts: tuple[np.ndarray, list[str]] | None


Fill = tuple[str, int, list[BlockColumn]]  # (sheet, first row of the block, its columns)
#: ``write_rows(path, sheet, first_row, columns, values=..., parts=...)``: writes the block's rows
#: (``values``: the formula columns' ``<v>`` texts by column) and the other parts given, in place
RowWriter = Callable[..., None]


def fill_blocks(
    path: Path, fills: list[Fill], write_rows: RowWriter, functions: Mapping[str, Callable] | None = None
) -> RecalcReport:
    """Evaluate the workbook at ``path`` (each block a template row) with the blocks' cells in
    place, write the blocks' rows with values (``write_rows``) and every other formula's value,
    in place. ``functions``: custom functions, as for :func:`.engine.evaluate_package`."""
    start = time.perf_counter()
    package = open_package(path)
    blocks = {sheet: (first, cols) for sheet, first, cols in fills}
    heads: dict[str, SheetPart] = {}
    for part in package.sheets:
        if part.name in blocks:
            heads[part.name] = _put_block(part, *blocks[part.name])
    evaluation = evaluate_package(package, functions)
    patched = {}
    for part in package.sheets:
        part = heads.get(part.name, part)
        if part.formulas:
            patched[part.path] = patch_part(part, evaluation)
    for sheet, first, cols in fills:
        store = evaluation.book.sheet(sheet)
        n = _rows(cols)
        rows = np.arange(first, first + n, dtype=np.int64)
        values = {c.col: column_xml(store, c.col, rows, value_xml) for c in cols if c.formula is not None}
        others = {p: x for p, x in patched.items() if p not in {heads[s].path for s in blocks if s != sheet}}
        write_rows(path, sheet, first, cols, values=values, parts=others)
    return RecalcReport(
        path,
        path,
        evaluation.cells,
        len(evaluation.groups),
        evaluation.units,
        time.perf_counter() - start,
        dict(evaluation.unsupported),
        problems=list(evaluation.problems),
    )


def _rows(cols: list[BlockColumn]) -> int:
    for c in cols:
        if c.numbers is not None:
            return len(c.numbers)
        if c.texts is not None:
            return len(c.texts[0])
    return 1


def _put_block(part: SheetPart, first: int, cols: list[BlockColumn]) -> SheetPart:
    """Replace the template row ``first`` (the sheet's last) of ``part`` by the block's cells;
    returns a copy of the part as read, with only the formulas above the block (for patching)."""
    head = copy.copy(part)
    above = columns(part.formulas)
    head.formulas = above.take(np.flatnonzero(above.row < first))
    n = _rows(cols)
    rows = np.arange(first, first + n, dtype=np.int64)

    def above(rs: list[int], *lists: list) -> list[list]:
        keep = [k for k, r in enumerate(rs) if r < first]
        return [[x[k] for k in keep] for x in (rs, *lists)]

    part.num_rows, part.num_cols, part.num_vals = above(part.num_rows, part.num_cols, part.num_vals)
    part.obj_rows, part.obj_cols, part.obj_vals = above(part.obj_rows, part.obj_cols, part.obj_vals)
    per_col: list[list[str]] = []
    formula_cols: list[int] = []
    for c in sorted(cols, key=lambda c: c.col):
        if c.numbers is not None:
            part.num_rows += rows.tolist()
            part.num_cols += [c.col] * n
            part.num_vals += np.asarray(c.numbers, dtype=float).tolist()
        elif c.texts is not None:
            codes, cats = c.texts
            part.obj_rows += rows.tolist()
            part.obj_cols += [c.col] * n
            part.obj_vals += [str(cats[i]) for i in np.asarray(codes).tolist()]
        else:
            text = c.formula[1:] if c.formula.startswith("=") else c.formula
            before, slot, after = text.partition("{r}")
            if not slot:
                per_col.append([text] * n)
            elif "{r}" in after:
                per_col.append([text.replace("{r}", r) for r in map(str, rows.tolist())])
            else:
                per_col.append([before + r + after for r in map(str, rows.tolist())])
            formula_cols.append(c.col)
    m = len(formula_cols)  # the block's formula cells, row by row, as the sheet lists them
    texts = np.empty((n, m), dtype=object)
    for j, col_texts in enumerate(per_col):
        texts[:, j] = col_texts
    none = np.full(n * m, -1, dtype=np.int64)
    block = FormulaColumns(
        np.repeat(rows, m),
        np.tile(np.array(formula_cols, np.int64), n),
        texts.reshape(-1).tolist(),
        [None] * (n * m),
        none,
        none,
        none,
        none,
        none,
    )
    part.formulas = joined(head.formulas, block) if len(head.formulas) else block
    part.max_row = max(part.max_row, first + n - 1)
    part.max_col = max(part.max_col, max(c.col for c in cols))
    return head
