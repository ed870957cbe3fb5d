"""Multi-cell array formulas: one formula filling a block of cells.

In the sheet XML such a formula sits in the top-left cell of its block only (``<f t="array"
ref="B2:D4">``); the other cells of the block hold just their values. Two kinds exist:

- A CSE array formula (entered with Ctrl+Shift+Enter, any Excel): the block is fixed. The formula's
  array fills it from the top left; a result of one row (or one column) repeats down (across) the
  block, a single value fills all of it, and cells beyond a larger result show #N/A.
- A dynamic-array formula (Excel 365, saved as the same element with a ``cm`` attribute on the
  cell): the formula's result spills over as many cells as it has, and the ref records the block
  it covered when the file was saved. Recalculated, a result of another size spills over its new
  block: cells of the old block outside it become empty; if a cell of the new block outside the
  old one is not empty (a value or a formula), the spill is blocked and the formula shows #SPILL!
  (the rest of the block empty), as in Excel.

The engine treats every cell of a block as a formula cell: the master is evaluated once, as an
array formula, and writes the whole block; the other cells are planned after it (so formulas that
read them see the new values) and evaluate to nothing themselves. The writer patches the cells
present in the file. A dynamic array that now spills beyond its stored block has values the file
holds no cells for: they are computed (formulas reading them get them) but not written, and the
report's problems name them; the block's ``ref`` attribute is not rewritten.
"""

from __future__ import annotations

import numpy as np

from gputco.workbook.recalc.base.rangeval import RangeVal
from gputco.workbook.recalc.base.refs import MAX_COL, MAX_ROW, Ref, cell_name
from gputco.workbook.recalc.base.values import NA, SPILL, VALUE
from gputco.workbook.recalc.formula.parse import RefNode
from gputco.workbook.recalc.run.compile import Compiled
from gputco.workbook.recalc.run.store import BLANK, SheetStore


def master_compiled(compiled: Compiled, area: tuple[int, int, int, int], dynamic: bool) -> Compiled:
    """The master cell's shape: the formula evaluated as an array, writing ``area``."""
    return Compiled(
        compiled.node,
        compiled.refs,
        compiled.unsupported,
        compiled.per_cell,
        True,
        area,
        dynamic,
        deps=compiled.deps,
    )


def part_compiled(master: Compiled, row: int, col: int) -> Compiled:
    """The shape of the other cells of a master's block: they depend on the master cell (so the
    planner orders them, and what reads them, after it) and take what it wrote."""
    ref = Ref(None, row, col, row, col)
    return Compiled(RefNode(ref), [ref], set(master.unsupported), spill_of=(row, col))


def part_cells(area: tuple[int, int, int, int]):
    """The block's cells other than the master, column by column (so each column is a group)."""
    top, left, bottom, right = area
    for c in range(left, right + 1):
        for r in range(top, bottom + 1):
            if (r, c) != (top, left):
                yield r, c


def result_array(raw, limit: int | None) -> np.ndarray:
    """An evaluated array formula as an (h, w) object array; references at their true size, blank
    cells (inside arrays Excel shows them as 0) as 0."""
    if isinstance(raw, RangeVal):
        if raw.store is None:
            return np.full((1, 1), raw.values()[0, 0, 0], dtype=object)
        if raw.moving:
            raise ValueError("a moving range in an array formula")
        if limit is not None and raw.h * raw.w > limit:
            raise ValueError(f"an array of {raw.h:,} x {raw.w:,} cells")
        vals = raw.values()[0]
        out = np.full((raw.h, raw.w), None, dtype=object)
        out[: vals.shape[0], : vals.shape[1]] = vals
    else:
        out = np.asarray(raw, dtype=object)[0]
    if out.size == 0:
        return np.full((1, 1), VALUE, dtype=object)
    flat = out.ravel()
    for i, v in enumerate(flat.tolist()):
        if v is None:
            flat[i] = 0.0
        elif isinstance(v, np.generic):
            flat[i] = v.item()
    return out


def ensure_rows(store: SheetStore, bottom: int) -> None:
    """Grow a sheet's store to hold row ``bottom`` (a block reaching below the last row the
    file has cells in)."""
    if bottom < store.max_row:
        return
    grow = bottom + 2 - store.length
    for column in store.cols.values():
        column.kind = np.concatenate([column.kind, np.zeros(grow, dtype=column.kind.dtype)])
        column.num = np.concatenate([column.num, np.zeros(grow, dtype=column.num.dtype)])
        if column.obj is not None:
            column.obj = np.concatenate([column.obj, np.empty(grow, dtype=object)])
    store.max_row, store.length = bottom, bottom + 2


def fill_cse(
    store: SheetStore, area: tuple[int, int, int, int], values: np.ndarray, pad: object = NA
) -> None:
    """Write a CSE block: one row or column repeats, one value fills, beyond a result is #N/A
    (``pad``)."""
    top, left, bottom, right = area
    ensure_rows(store, bottom)
    spilled(store)[(top, left)] = (bottom, right)
    h, w = values.shape
    for r in range(top, bottom + 1):
        i = r - top
        i = 0 if h == 1 else i if i < h else -1
        for c in range(left, right + 1):
            j = c - left
            j = 0 if w == 1 else j if j < w else -1
            store.set(r, c, pad if i < 0 or j < 0 else values[i, j])


def fill_dynamic(
    store: SheetStore, area: tuple[int, int, int, int], values: np.ndarray, occupied
) -> list[str]:
    """Spill ``values`` from the block's top-left; returns problems (cells not in the file).

    ``occupied(row, col)`` says whether a cell outside the stored block holds a formula (values
    are read from the store)."""
    top, left, bottom, right = area
    h, w = values.shape
    new_bottom, new_right = top + h - 1, left + w - 1
    blocked = new_bottom > MAX_ROW or new_right > MAX_COL
    ensure_rows(store, min(max(bottom, new_bottom), MAX_ROW))
    # cells it filled on an earlier pass over the workbook (past the stored block) are its own
    prev_bottom, prev_right = spilled(store).get((top, left), (bottom, right))
    mine = (max(bottom, prev_bottom), max(right, prev_right))
    outside = [
        (r, c)
        for r in range(top, min(new_bottom, MAX_ROW) + 1)
        for c in range(left, min(new_right, MAX_COL) + 1)
        if r > bottom or c > right
    ]
    if not blocked:
        blocked = any(
            (r > mine[0] or c > mine[1]) and (_filled(store, r, c) or occupied(r, c)) for r, c in outside
        )
    for r in range(top, mine[0] + 1):
        for c in range(left, mine[1] + 1):
            inside = not blocked and r <= new_bottom and c <= new_right
            store.set(r, c, values[r - top, c - left] if inside else None)
    if blocked:
        store.set(top, left, SPILL)
        spilled(store).pop((top, left), None)
        return []
    spilled(store)[(top, left)] = (new_bottom, new_right)
    for r, c in outside:
        store.set(r, c, values[r - top, c - left])
    if not outside:
        return []
    span = f"{cell_name(top, left)}:{cell_name(new_bottom, new_right)}"
    return [
        f"{store.name}!{cell_name(top, left)}: the dynamic array now spills over {span}, "
        f"beyond the {cell_name(top, left)}:{cell_name(bottom, right)} the file holds; "
        f"{len(outside)} cells are computed but not written (Excel fills them on its next "
        "recalculation)"
    ]


def spilled(store: SheetStore) -> dict[tuple[int, int], tuple[int, int]]:
    """The blocks a sheet's array formulas fill now: (top, left) -> (bottom, right); read by
    ANCHORARRAY (Excel's ``A1#``)."""
    blocks = getattr(store, "spills", None)
    if blocks is None:
        blocks = store.spills = {}
    return blocks


def _filled(store: SheetStore, row: int, col: int) -> bool:
    column = store.cols.get(col)
    return column is not None and row < store.length and column.kind[row] != BLANK
