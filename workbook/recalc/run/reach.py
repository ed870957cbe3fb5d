"""Which cells LibreOffice computes: the engine's unsupported cells and everything depending on them.

:func:`choose` starts from the cells to hand over (``"auto"``: those the engine left as stored;
``"libreoffice"``: every formula cell) and adds every formula cell that depends on one of them,
directly or through others (:func:`dependents`, one pass over the engine's evaluation order).
A formula with OFFSET or INDIRECT, whose references are known only when it runs, is taken as
depending on them. Cells that must never come from LibreOffice, and all that depend on them, are
left out: volatile ones (its clock, random numbers and environment would leak in), those that
reach outside, formulas filling several cells (their other cells hold plain values the
writer keeps, so the master's value alone would disagree with them), and TEXT with a number
format the engine does not model (fractions, odd scientific formats: LibreOffice's TEXT
differs from Excel's there as well; 394 such cells of the Excel-saved corpus).
"""

from __future__ import annotations

import bisect
from collections import defaultdict

from gputco.workbook.recalc.base.refs import MAX_ROW
from gputco.workbook.recalc.formula.parse import Call, Const, walk
from gputco.workbook.recalc.formula.screen import EXTERNAL_REF, OUTSIDE
from gputco.workbook.recalc.functions.lookup import DYNAMIC
from gputco.workbook.recalc.functions.math import CLOCK, SEEDED, calls
from gputco.workbook.recalc.run.engine import Evaluation
from gputco.workbook.recalc.run.plan import Cycle, order

Cell = tuple[str, int, int]  # (upper-case sheet name, row, column)

#: functions whose value depends on when or where they run: never taken from LibreOffice
VOLATILE = CLOCK | SEEDED | {"INFO", "CELL"}
#: what ``--check`` recomputes without comparing with the stored value: Excel's volatile
#: functions (pinned by --now/--seed), INFO, and CELL("filename") (the path on Excel's machine)
RECOMPUTED = CLOCK | SEEDED | {"INFO"}
#: never taken from LibreOffice: what reaches outside (the screen keeps such workbooks from it
#: anyway) and data tables; blocks of several cells are kept apart by :func:`_several_cells`
NEVER_LO = OUTSIDE | {EXTERNAL_REF, "[data table]"}


def choose(evaluation: Evaluation, engine: str) -> set[Cell]:
    """The formula cells LibreOffice should compute for ``engine`` ("auto" or "libreoffice")."""
    kept: set[Cell] = set()  # never from LibreOffice
    seeds: set[Cell] = set()
    for g in evaluation.groups:
        rows = range(g.r0, g.r1 + 1)
        key = g.sheet.upper()
        if (
            VOLATILE.intersection(calls(g.compiled.node))
            or g.compiled.unsupported & NEVER_LO
            or _several_cells(g.compiled)
        ):
            kept.update((key, r, g.col) for r in rows)
        elif engine == "libreoffice":
            seeds.update((key, r, g.col) for r in rows)
        else:
            seeds.update(c for c in ((key, r, g.col) for r in rows) if c in evaluation.skipped)
    kept |= evaluation.not_for_libreoffice  # LibreOffice's TEXT differs from Excel's there too
    if not seeds - kept:
        return set()
    units = order(evaluation.groups, "stored")  # a circular reference is a step here, never an error
    return dependents(units, seeds) - dependents(units, kept)


def recomputed(evaluation: Evaluation) -> set[Cell]:
    """The computed cells ``--check`` does not compare: those calling a :data:`RECOMPUTED`
    function or CELL("filename"), and every formula cell depending on them."""
    seeds: set[Cell] = set()
    for g in evaluation.groups:
        names = set(calls(g.compiled.node))
        if RECOMPUTED & names or ("CELL" in names and _asks_filename(g.compiled.node)):
            key = g.sheet.upper()
            seeds.update((key, r, g.col) for r in range(g.r0, g.r1 + 1))
    seeds -= evaluation.skipped
    if not seeds:
        return set()
    return dependents(order(evaluation.groups, "stored"), seeds) - evaluation.skipped


def _asks_filename(node) -> bool:
    return any(
        isinstance(n, Call)
        and n.name == "CELL"
        and n.args
        and type(n.args[0]) is Const
        and str(n.args[0].value).upper() == "FILENAME"
        for n in walk(node)
    )


def _several_cells(compiled) -> bool:
    """A cell of a formula that fills several cells (an array formula's block)."""
    if compiled.spill_of is not None:
        return True
    area = compiled.area
    return area is not None and (area[0], area[1]) != (area[2], area[3])


def dependents(units, seeds: set[Cell]) -> set[Cell]:
    """``seeds`` and every formula cell that depends on one of them, directly or not."""
    if not seeds:
        return set()
    rows_of: dict[str, dict[int, list[int]]] = defaultdict(lambda: defaultdict(list))
    for sheet, r, c in seeds:
        rows_of[sheet][c].append(r)
    for cols in rows_of.values():
        for rows in cols.values():
            rows.sort()
    out = set(seeds)

    def hit(sheet: str, top: int, left: int, bottom: int, right: int) -> bool:
        for col, rows in rows_of.get(sheet, {}).items():
            if left <= col <= right:
                i = bisect.bisect_left(rows, top)
                if i < len(rows) and rows[i] <= bottom:
                    return True
        return False

    def visit(unit) -> bool:
        """Add the unit's cells that depend on ``out``; whether it added any."""
        g = unit.group
        key = g.sheet.upper()
        rows = range(g.r0, g.r1 + 1) if unit.row is None else range(unit.row, unit.row + 1)
        dynamic = bool(DYNAMIC & set(calls(g.compiled.node)))
        refs = [((ref.sheet or g.sheet).upper(), ref) for ref in g.compiled.refs]
        if not dynamic and not any(hit(s, *_span(ref, rows, g.col)) for s, ref in refs):
            return False
        added = False
        for r in rows:
            cell = (key, r, g.col)
            if cell in out:
                continue
            if dynamic or any(hit(s, *ref.rect(r, g.col)) for s, ref in refs):
                out.add(cell)
                bisect.insort(rows_of[key][g.col], r)
                added = True
        return added

    for unit in units:
        if isinstance(unit, Cycle):  # a cell of a circular reference may depend on a later one
            while any([visit(u) for u in unit.cells]):
                pass
        else:
            visit(unit)
    return out


def _span(ref, rows: range, col: int) -> tuple[int, int, int, int]:
    """The rectangle a reference covers over all of ``rows``."""
    a, b = ref.rect(rows[0], col), ref.rect(rows[-1], col)
    return max(1, min(a[0], b[0])), a[1], min(MAX_ROW, max(a[2], b[2])), a[3]
