"""Recalculate a workbook in memory: compile, plan, evaluate group by group.

This is the glue of the engine; each step lives in its own module (package -> compile -> plan ->
evaluate -> writer). The result keeps every formula cell's new value in the column stores.
"""

from __future__ import annotations

import datetime
import time
from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

from gputco.workbook.recalc.base.errors import (
    CellFailure,
    CircularReferenceError,
    LimitExceededError,
    RecalcError,
    RecalcTimeoutError,
    UnsupportedFunctionError,
    UnsupportedValue,
    WorkbookFormatError,
)
from gputco.workbook.recalc.base.refs import RowTemplate, cell_name
from gputco.workbook.recalc.base.values import CHARSET, DATE1904, DATE_ORDER, DATE_ORDERS, NA, VALUE
from gputco.workbook.recalc.formula.parse import Binary, Call, RefNode, walk
from gputco.workbook.recalc.functions import BUILTINS, Spec, about
from gputco.workbook.recalc.functions.lookup import DYNAMIC, FormulaTexts
from gputco.workbook.recalc.functions.math import calls, mark_subtotals, pinned_functions
from gputco.workbook.recalc.read.cells import FormulaCell, SheetPart, area_of
from gputco.workbook.recalc.read.formulacols import columns, shape_starts
from gputco.workbook.recalc.read.limits import Limits
from gputco.workbook.recalc.read.package import Package
from gputco.workbook.recalc.run import spill
from gputco.workbook.recalc.run.compile import Compiled, Compiler
from gputco.workbook.recalc.run.evaluate import Ctx, Evaluator
from gputco.workbook.recalc.run.plan import Cycle, Group, GroupBuilder, Unit, order
from gputco.workbook.recalc.run.scalar import Bail
from gputco.workbook.recalc.run.store import BookStore, SheetStore
from gputco.workbook.recalc.run.udf import TableResult, spec_for


@dataclass
class Evaluation:
    """A recalculated package: the stores hold the new values of every formula cell."""

    package: Package
    book: BookStore
    groups: list[Group]
    units: int
    cells: int
    unsupported: dict[str, list[str]] = field(default_factory=dict)
    skipped: set[tuple[str, int, int]] = field(default_factory=set)  # cells left as stored
    #: cells left as stored whose value LibreOffice is known to get wrong too (TEXT formats the
    #: engine does not model: LibreOffice's TEXT differs from Excel's there, tests/data/
    #: excel_corpus); ``recalc --engine auto`` does not take them from it
    not_for_libreoffice: set[tuple[str, int, int]] = field(default_factory=set)
    problems: list[str] = field(default_factory=list)
    spill_grew: bool = False  # a dynamic array spilled past its stored block (see _run_array)
    #: cells of a circular reference computed by iteration, with the change Excel stops at
    iterative: dict[tuple[str, int, int], float] = field(default_factory=dict)

    def value(self, sheet: str, row: int, col: int) -> object:
        store = self.book.sheet(sheet)
        return None if store is None else store.get(row, col)


def evaluate_package(
    package: Package,
    functions: Mapping[str, Callable] | None = None,
    *,
    unsupported: str = "raise",
    timeout_s: float | None = None,
    now: datetime.datetime | None = None,
    seed: int | None = None,
    date_order: str = "mdy",
) -> Evaluation:
    """Evaluate every formula of an opened package.

    ``functions`` maps upper-case names to custom functions (default: none; gputco's callers hand in
    ``gputco.udfs.UDFS``); they take
    precedence over built-ins of the same name. ``unsupported`` is "raise" (default) or "stored"
    (keep the stored values of cells whose formulas use unsupported functions). ``now`` (a
    wall-clock time) is what NOW and TODAY return, ``seed`` (a whole number >= 0) the seed of
    numpy's ``default_rng`` that RAND, RANDBETWEEN and RANDARRAY draw from; without them those
    functions are unsupported (volatile: never evaluated unless pinned, so a recalculation is
    reproducible; see :mod:`..functions.math`). ``date_order`` is how a date text of two numbers
    and a year reads: "mdy" (3/4/2024 is March 4, Excel in the United States) or "dmy" (April 3,
    Excel with European regional settings); see :data:`..values.DATE_ORDER`.
    """
    if unsupported not in ("raise", "stored"):
        raise ValueError("unsupported must be 'raise' or 'stored'")
    if date_order not in DATE_ORDERS:
        raise ValueError(f"date_order must be one of {', '.join(DATE_ORDERS)}, not {date_order!r}")
    order_token = DATE_ORDER.set(date_order)  # compiling folds constant date texts too
    try:
        return _evaluate_package(package, functions, unsupported, timeout_s, now, seed)
    finally:
        DATE_ORDER.reset(order_token)


def _evaluate_package(package, functions, unsupported, timeout_s, now, seed) -> Evaluation:
    start = time.perf_counter()
    problems: list[str] = []
    table: dict[str, Spec] = dict(BUILTINS)
    custom = {} if functions is None else functions
    for name, func in custom.items():
        table[name.upper()] = spec_for(name.upper(), func, problems)
    table.update(pinned_functions(now, seed))
    limits = package.limits
    check_grid(package.sheets, limits)
    book = BookStore([SheetStore.from_part(p, limits.max_range_cells) for p in package.sheets])
    book.names = {
        ((n.sheet or "").upper() or None, n.name.upper()): n.formula for n in package.names
    }  # for INDIRECT("name")
    book.formulas = FormulaTexts(package)  # for FORMULATEXT
    book.package = package  # for INFO and CELL("filename")
    deadline = None if timeout_s is None else start + timeout_s
    evaluator = Evaluator(book, table, limits)
    compiler = Compiler(package.names, table, limits)
    compiler.pure = evaluator.pure  # a line's shared parts found once (formula.lines)
    compiler.tables = package.tables
    compiler.sheet_order = tuple(p.name for p in package.sheets)
    groups, cells, bad = _compile_all(package, compiler, deadline, timeout_s)
    if bad and unsupported == "raise":
        raise UnsupportedFunctionError(bad, about)
    mark_subtotals(book, groups)
    cycles = "iterate" if package.iterate else "stored" if unsupported == "stored" else "raise"
    units = order(groups, cycles)
    for unit in units:
        if isinstance(unit, Cycle) and cycles == "stored":  # Excel without iteration: as saved
            bad.setdefault(CIRCULAR, []).extend(unit.names)
    result = Evaluation(package, book, groups, len(units), cells, bad, problems=problems)
    for g in groups:
        if g.compiled.parts is not None:
            evaluator.known_parts(g.compiled.node, g.compiled.parts)

    def run_units() -> None:
        _run_units(evaluator, book, units, result, unsupported, deadline, timeout_s)

    token = DATE1904.set(package.date1904)  # date serials count from 1904-01-01 in such books
    charset = CHARSET.set(package.charset)  # CHAR and CODE: the saving application's set
    try:
        with np.errstate(all="ignore"):  # inf and nan become #NUM!/#DIV/0! cell by cell, silently
            run_units()
            if result.spill_grew or any(
                not g.compiled.unsupported and _reaches(g.compiled.node) for g in groups
            ):
                _settle(book, units, run_units)
    finally:
        CHARSET.reset(charset)
        DATE1904.reset(token)
    return result


def _reaches(node) -> bool:
    """Whether a formula reads cells the planner cannot see: OFFSET/INDIRECT, or a range
    operator with a function's result at an end (``A1:INDEX(C1:C9, n)`` spans B1:B9 too)."""
    if DYNAMIC & set(calls(node)):
        return True
    return any(
        type(n) is Binary and n.op == ":" and (type(n.left) is Call or type(n.right) is Call)
        for n in walk(node)
    )


#: passes over a workbook with OFFSET/INDIRECT before its values must have settled
MAX_PASSES = 20


def _settle(book: BookStore, units: list[Unit], run_units: Callable[[], None]) -> None:
    """Evaluate again (``run_units``: one pass over the units) until no formula value changes
    (OFFSET/INDIRECT reach cells the planner could not order them after; an unchanged pass means
    every formula agrees with its inputs)."""
    before = _snapshot(book, units)
    for _ in range(MAX_PASSES):
        run_units()
        after = _snapshot(book, units)
        if after == before:
            return
        before = after
    changed = sorted({cell for cell, v in after.items() if not _same(v, before.get(cell))})
    raise CircularReferenceError(changed or ["(OFFSET/INDIRECT)"])


def _snapshot(book: BookStore, units: list[Unit]) -> dict[str, object]:
    out = {}
    for unit in (cell for u in units for cell in (u.cells if isinstance(u, Cycle) else (u,))):
        g = unit.group
        store = book.sheet(g.sheet)
        rows = range(g.r0, g.r1 + 1) if unit.row is None else (unit.row,)
        vals = store.block(np.arange(min(rows), max(rows) + 1), 1, g.col, 1).reshape(-1).tolist()
        for r, v in zip(range(min(rows), max(rows) + 1), vals, strict=True):
            if r in rows:
                out[f"{g.sheet}!{cell_name(r, g.col)}"] = v
    return out


def _same(a, b) -> bool:
    return a is b or (type(a) is type(b) and a == b) or (a != a and b != b)


def _run_units(
    evaluator: Evaluator,
    book: BookStore,
    units: list[Unit],
    result: Evaluation,
    unsupported: str,
    deadline: float | None,
    timeout_s: float | None,
) -> None:
    for done, unit in enumerate(units):
        if deadline is not None and time.perf_counter() > deadline:
            raise RecalcTimeoutError(timeout_s, done, len(units))
        if isinstance(unit, Cycle):
            _run_cycle(evaluator, book, unit, result, unsupported)
            continue
        if unit.group.compiled.unsupported:
            g = unit.group
            rows = range(g.r0, g.r1 + 1) if unit.row is None else (unit.row,)
            result.skipped.update((g.sheet.upper(), r, g.col) for r in rows)
            continue
        _run_unit(evaluator, book, unit, result, unsupported)


#: the name under which cells of a circular reference kept as stored are reported unsupported
CIRCULAR = "[circular reference]"


def _run_cycle(
    evaluator: Evaluator, book: BookStore, cycle: Cycle, result: Evaluation, unsupported: str
) -> None:
    """A circular reference: with the workbook's iterative calculation on (calcPr iterate), its
    cells evaluated pass after pass from their current (stored) values, at most
    ``iterate_count`` passes, until no number changes by more than ``iterate_delta`` (Excel's
    "Maximum Iterations" and "Maximum Change"); their values are then Excel's only to within
    that change, and ``--check`` compares them so. Without it, kept as stored (Excel leaves a
    circular reference's cells as they are and warns)."""
    keys = [(u.group.sheet.upper(), u.row, u.group.col) for u in cycle.cells]
    package = result.package
    if not package.iterate:
        result.skipped.update(keys)
        return
    stores = [book.sheet(u.group.sheet) for u in cycle.cells]
    for _ in range(package.iterate_count):
        before = [s.get(u.row, u.group.col) for s, u in zip(stores, cycle.cells, strict=True)]
        for u in cycle.cells:
            if u.group.compiled.unsupported:
                result.skipped.add((u.group.sheet.upper(), u.row, u.group.col))
                continue
            _run_unit(evaluator, book, u, result, unsupported)
        after = [s.get(u.row, u.group.col) for s, u in zip(stores, cycle.cells, strict=True)]
        if all(_within(a, b, package.iterate_delta) for a, b in zip(before, after, strict=True)):
            break
    result.iterative.update((k, package.iterate_delta) for k in keys)


def _within(a: object, b: object, delta: float) -> bool:
    """Whether a value moved by at most ``delta`` (numbers) or not at all (anything else)."""
    if type(a) is float and type(b) is float:
        return abs(a - b) <= delta
    return type(a) is type(b) and a == b


def check_grid(sheets: list[SheetPart], limits: Limits) -> None:
    """Refuse workbooks whose cells would not fit the memory bound (see limits.max_grid_cells).

    The engine keeps each used column of a sheet as arrays from row 1 to the last used row, so
    the cost is rows x used columns, whatever the number of cells actually filled.
    """
    blocks = 0
    for part in sheets:  # array formulas' blocks: each cell is planned (see .spill)
        for top, left, bottom, right in part.array_areas:
            blocks += (bottom - top + 1) * (right - left + 1)
            if blocks > limits.max_range_cells:
                raise LimitExceededError(
                    f"sheet {part.name!r}: array formulas fill {blocks:,} cells (the block at "
                    f"{cell_name(top, left)}:{cell_name(bottom, right)} and those before it; "
                    f"limit {limits.max_range_cells:,})"
                )

    def rows(p: SheetPart) -> int:
        return max([p.max_row] + [a[2] for a in p.array_areas])

    if sum((rows(p) + 2) * p.max_col for p in sheets) <= limits.max_grid_cells:
        return  # the cheap upper bound is enough (every real workbook)
    total = 0
    for part in sheets:
        used = set(part.num_cols)
        used.update(part.obj_cols)
        used.update(columns(part.formulas).col.tolist())
        total += (rows(part) + 2) * len(used)
        if total > limits.max_grid_cells:
            raise LimitExceededError(
                f"sheet {part.name!r} spans {part.max_row:,} rows x {len(used):,} used columns = "
                f"{part.max_row * len(used):,} cells (limit {limits.max_grid_cells:,} for the "
                "whole workbook); too large to recalculate in memory"
            )


def _compile_all(
    package: Package, compiler: Compiler, deadline: float | None = None, timeout_s: float | None = None
):
    """Compile every formula cell into groups; also return unsupported names -> cells."""
    builder = GroupBuilder()
    bad: dict[str, list[str]] = defaultdict(list)
    cells = 0
    for part in package.sheets:
        masters: dict[str, tuple] = {}
        name, upper = part.name, part.name.upper()
        last = compiler.last
        fcs = columns(part.formulas)
        special, texts = fcs.special, fcs.text
        add = builder.add
        if _by_column(part, fcs, compiler, builder, bad, deadline, timeout_s):
            cells += len(fcs)
            continue
        for k, (row, col) in enumerate(zip(fcs.row.tolist(), fcs.col.tolist(), strict=True)):
            if deadline is not None and cells % 4096 == 0 and time.perf_counter() > deadline:
                raise RecalcTimeoutError(timeout_s, 0, 0)
            fc = special.get(k)
            if fc is None:  # a plain formula: the column's last shape, one row further down?
                memo = last.get((name, col, False))
                text = texts[k]
                if memo is not None and memo[0].render(row) == text:
                    add(upper, row, col, memo[1], memo[2])
                    cells += 1
                    for func in memo[2].unsupported:
                        bad[func].append(f"{name}!{cell_name(row, col)}")
                    continue
                fc = FormulaCell(row, col, text, "normal", None, None, None, -1, -1, -1)
            elif fc.kind == "spill":
                continue  # planned with its master (below)
            key, compiled = _compile_cell(part, fc, compiler, masters)
            add(upper, row, col, key, compiled)
            cells += 1
            if compiled.unsupported:
                for func in compiled.unsupported:
                    bad[func].append(f"{name}!{cell_name(row, col)}")
            if compiled.area is not None:  # the other cells of a multi-cell array formula
                part_shape = spill.part_compiled(compiled, row, col)
                for r, c in spill.part_cells(compiled.area):
                    add(upper, r, c, ("spill", upper, row, col), part_shape)
                    cells += 1
                    for func in compiled.unsupported:
                        bad[func].append(f"{name}!{cell_name(r, c)}")
    spelling = {part.name.upper(): part.name for part in package.sheets}
    for g in builder.groups:  # groups carry the sheet's own spelling
        g.sheet = spelling[g.sheet]
    return builder.groups, cells, dict(bad)


def _by_column(
    part: SheetPart,
    fcs,
    compiler: Compiler,
    builder: GroupBuilder,
    bad: dict,
    deadline: float | None,
    timeout_s: float | None,
) -> bool:
    """Compile a sheet's plain formulas in bulk: only the cells that start a run of one
    formula filled down a column (:func:`.formulacols.shape_starts`) are compiled; the others
    share their run's shape. Gives the groups, in the order and with the cells the row-by-row
    loop gives (False, nothing done, where it might not: shared or array formulas, cells out
    of row order, table names with digits, an error to name in sheet order).
    """
    n = len(fcs)
    tables = compiler.tables
    if fcs.special or n < 32 or any(map(str.isdigit, "".join(tables))):
        return False  # (a table name without digits is in a text iff in the text moved down)
    rows, cols = fcs.row, fcs.col
    if not (np.diff(rows * (1 << 15) + cols) > 0).all():
        return False
    texts = fcs.text
    starts = fcs.starts if fcs.starts is not None else shape_starts(rows, cols, texts)
    by_col = np.lexsort((rows, cols))  # positions in the sheet's list, column by column
    run_of = np.cumsum(starts[by_col]) - 1  # each of those cells' run
    firsts = by_col[np.flatnonzero(starts[by_col])].tolist()  # each run's first cell
    shapes: dict[tuple, int] = {}  # key -> shape number
    compiled: list[Compiled] = []

    def compile_one(k: int, own_row: bool = False) -> int:
        fc = FormulaCell(int(rows[k]), int(cols[k]), texts[k], "normal", None, None, None, -1, -1, -1)
        key, shape = _compile_cell(part, fc, compiler, {}, own_row)
        if key not in shapes:
            shapes[key] = len(compiled)
            compiled.append(shape)
        return shapes[key]

    try:
        run_shape = np.empty(len(firsts), dtype=np.int64)
        own = _own_row_runs(firsts, by_col, starts, rows, texts)
        for r, k in enumerate(firsts):
            if deadline is not None and r % 256 == 0 and time.perf_counter() > deadline:
                raise RecalcTimeoutError(timeout_s, 0, 0)
            run_shape[r] = compile_one(k, own[r])
        keys = list(shapes)  # shape number -> key
        # runs whose first shape is tied to its cell (the key names it: the quick key was not
        # trusted) or reads a table: each cell of them compiled on its own
        alone = [
            r
            for r, (k, s) in enumerate(zip(firsts, run_shape.tolist(), strict=True))
            if len(keys[s]) != 3
            or (tables and ("[" in texts[k] or any(t in texts[k].upper() for t in tables)))
        ]
        shape = run_shape[run_of]  # each cell's shape, column by column
        if alone:
            for pos in np.flatnonzero(np.isin(run_of, alone) & ~starts[by_col]).tolist():
                shape[pos] = compile_one(int(by_col[pos]), own[int(run_of[pos])])
    except (RecalcTimeoutError, LimitExceededError):
        raise
    except RecalcError:
        compiler.last.clear()
        return False  # the row-by-row loop names the first bad cell in sheet order
    # groups: runs of one shape on consecutive rows of a column, made in the order of their
    # first cells in the sheet (row by row), as the builder makes them
    r_col, c_col = rows[by_col], cols[by_col]
    new = np.ones(n, dtype=bool)
    new[1:] = (shape[1:] != shape[:-1]) | (r_col[1:] != r_col[:-1] + 1) | (c_col[1:] != c_col[:-1])
    heads = np.flatnonzero(new)
    ends = np.append(heads[1:], n) - 1
    upper = part.name.upper()
    for j in np.argsort(by_col[heads], kind="stable").tolist():
        h = heads[j]
        builder.groups.append(
            Group(
                upper,
                int(c_col[h]),
                int(r_col[h]),
                int(r_col[ends[j]]),
                compiled[int(shape[h])],
                len(builder.groups),
            )
        )
    unsupported = [s for s, c in enumerate(compiled) if c.unsupported]
    if unsupported:
        in_sheet = np.empty(n, dtype=np.int64)
        in_sheet[by_col] = shape
        for k in np.flatnonzero(np.isin(in_sheet, unsupported)).tolist():
            for func in compiled[in_sheet[k]].unsupported:
                bad[func].append(f"{part.name}!{cell_name(int(rows[k]), int(cols[k]))}")
    return True


def _own_row_runs(firsts: list[int], by_col, starts, rows, texts) -> list[bool]:
    """For each run of a column (:func:`.formulacols.shape_starts`): True where it is one formula
    filled down only when an absolute reference to the own row moves with the row (``$X$6`` in
    row 6, ``$X$7`` in row 7): its cells are compiled reading those as row-relative."""
    out = [False] * len(firsts)
    at = np.flatnonzero(starts[by_col]).tolist()  # each run's first position, column by column
    n = len(by_col)
    for r, k in enumerate(firsts):
        p = at[r]
        if p + 1 >= n or starts[by_col[p + 1]]:
            continue  # a run of one cell: as written
        nxt = int(by_col[p + 1])
        row = int(rows[k])
        if f"${row}" in texts[k]:
            out[r] = RowTemplate.of(texts[k], row).render(int(rows[nxt])) != texts[nxt]
    return out


def _compile_cell(
    part: SheetPart, fc: FormulaCell, compiler: Compiler, masters: dict, own_row: bool | None = None
):
    """(key, compiled) of one cell; ``own_row`` for a plain formula as Compiler.compile takes it
    (a shared formula's master and an array formula are read as written: their tree serves
    other cells, whose own rows are others)."""
    if fc.kind == "normal" and not (fc.text or "").strip():  # <f/>: Excel keeps the value only
        return ("empty", part.name, fc.row, fc.col), Compiled(
            compiler.compile(part.name, fc.row, fc.col, "0")[1].node, [], {"[empty formula]"}
        )
    if fc.kind == "normal":
        return compiler.compile(part.name, fc.row, fc.col, fc.text or "", own_row=own_row)
    if fc.kind == "shared":
        if fc.text is None:
            if fc.si not in masters:
                raise WorkbookFormatError(
                    f"{part.name}!{cell_name(fc.row, fc.col)} uses shared "
                    f"formula {fc.si} before its master cell"
                )
            return masters[fc.si]
        masters[fc.si] = compiler.compile(part.name, fc.row, fc.col, fc.text, own_row=False)
        return masters[fc.si]
    if fc.kind == "array":
        key, compiled = compiler.compile(part.name, fc.row, fc.col, fc.text or "", array=True, own_row=False)
        area = area_of(fc.ref) if fc.ref else None
        if area is not None and area[:2] == (fc.row, fc.col) and area[2:] != area[:2]:
            compiled = spill.master_compiled(compiled, area, fc.dynamic)
            key = (*key, "multi", fc.row, fc.col)
        elif area is not None and fc.dynamic:  # one cell now; may spill when recalculated
            compiled = spill.master_compiled(compiled, area, True)
            key = (*key, "multi", fc.row, fc.col)
        return key, compiled
    if fc.kind == "dataTable":
        return ("dataTable", part.name, fc.row, fc.col), Compiled(
            compiler.compile(part.name, fc.row, fc.col, "0")[1].node, [], {"[data table]"}
        )
    return compiler.compile(part.name, fc.row, fc.col, fc.text or "", own_row=False)


def _run_unit(
    evaluator: Evaluator, book: BookStore, unit: Unit, result: Evaluation, unsupported: str
) -> None:
    g = unit.group
    store = book.sheet(g.sheet)
    if g.compiled.spill_of is not None:
        return  # written by its master
    if g.compiled.area is not None:
        _run_array(evaluator, book, g, result, unsupported)
        return
    array = g.compiled.array
    if not array and (unit.row is not None or g.r0 == g.r1):
        one_cell = evaluator.scalar(g.compiled.node)
        if one_cell is not None:  # one cell in plain Python (run.scalar); on Bail, below
            r = g.r0 if unit.row is None else unit.row
            try:
                v = one_cell(store, r, g.col)
            except Bail:
                pass
            else:
                store.set(r, g.col, 0.0 if v is None else v)
                return
    if unit.row is None and not g.compiled.per_cell:
        rows = np.arange(g.r0, g.r1 + 1, dtype=np.int64)
        try:
            values = evaluator.run(g.compiled.node, Ctx(g.sheet, rows, g.col, array))
            store.write(g.col, rows, np.asarray(values))
            return
        except LimitExceededError:
            pass  # the group reads too much at once: row by row below, each within the limit
        except RecalcError:
            raise
        except TableResult as err:
            _table_result(err, g, list(range(g.r0, g.r1 + 1)), result, unsupported)
            return
        except Exception:
            pass  # shapes that do not vectorise, rows not modelled, a failure: one by one below
    rows_todo = range(g.r0, g.r1 + 1) if unit.row is None else (unit.row,)
    for r in rows_todo:
        one = np.array([r], dtype=np.int64)
        try:
            values = evaluator.run(g.compiled.node, Ctx(g.sheet, one, g.col, array))
        except TableResult as err:
            _table_result(err, g, [r], result, unsupported)
            continue
        except UnsupportedValue as err:
            _keep_stored(str(err.args[0]), g, [r], result, unsupported)
            if str(err.args[0]).startswith("TEXT ("):
                result.not_for_libreoffice.add((g.sheet.upper(), r, g.col))
            continue
        except RecalcError:
            raise
        except (ValueError, IndexError) as err:
            result.problems.append(f"{g.sheet}!{cell_name(r, g.col)}: {err}; shown as #VALUE!")
            values = np.array([VALUE], dtype=object)
        except Exception as err:  # outside any function (an operator, a reference): contained
            _keep_stored(CellFailure("formula", err).args[0], g, [r], result, unsupported)
            continue
        store.write(g.col, one, np.asarray(values))


#: an IS function of #N/A: its value past the end of its reference argument in a larger block
_IS_OF_NA = {"ISBLANK": False, "ISERR": False, "ISERROR": True, "ISNA": True, "ISNUMBER": False,
             "ISTEXT": False, "ISNONTEXT": True, "ISLOGICAL": False}  # fmt: skip


def _cse_pad(node) -> object:
    """What fills a CSE block past its result: #N/A, but for an IS function of a reference the
    function of #N/A (Excel pads the reference with #N/A, then tests each: formulas' test.xlsx
    INFORMATION!AH6:AW18, {=ISBLANK(D6:Q6)} is FALSE and {=ISNA(C12:Q12)} TRUE in the last
    column of blocks one column wider than their range)."""
    if (
        type(node) is Call
        and node.name in _IS_OF_NA
        and len(node.args) == 1
        and type(node.args[0]) is RefNode
    ):
        return _IS_OF_NA[node.name]
    return NA


def _run_array(evaluator: Evaluator, book: BookStore, g: Group, result: Evaluation, unsupported: str) -> None:
    """A multi-cell array formula's master: evaluate once as an array, fill its block."""
    store = book.sheet(g.sheet)
    ctx = Ctx(g.sheet, np.array([g.r0], dtype=np.int64), g.col, True, book)
    try:
        values = spill.result_array(evaluator.raw(g.compiled.node, ctx), store.max_block_cells)
    except RecalcError:
        raise
    except TableResult as err:
        _table_result(err, g, [g.r0], result, unsupported)
        return
    except (ValueError, IndexError) as err:
        result.problems.append(f"{g.sheet}!{cell_name(g.r0, g.col)}: {err}; shown as #VALUE!")
        values = np.full((1, 1), VALUE, dtype=object)
    except Exception as err:  # TEXT not modelled, a function's failure: the block kept as stored
        why = err.args[0] if isinstance(err, UnsupportedValue) else CellFailure("formula", err).args[0]
        area = g.compiled.area
        block = [(area[0], area[1]), *spill.part_cells(area)]
        _keep_stored(str(why), g, [g.r0], result, unsupported, block)
        return
    if not g.compiled.dynamic:
        spill.fill_cse(store, g.compiled.area, values, _cse_pad(g.compiled.node))
        return

    cells: set[tuple[int, int]] = set()

    def occupied(r: int, c: int) -> bool:  # formula cells of the sheet, listed when first needed
        if not cells:
            cells.update(
                (row, h.col) for h in result.groups if h.sheet == g.sheet for row in range(h.r0, h.r1 + 1)
            )
        return (r, c) in cells

    for problem in spill.fill_dynamic(store, g.compiled.area, values, occupied):
        # the planner ordered only the stored block's readers after it: evaluate again until
        # the values settle (as for OFFSET/INDIRECT)
        result.spill_grew = True
        if problem not in result.problems:
            result.problems.append(problem)


def _table_result(err: TableResult, g: Group, rows: list[int], result: Evaluation, unsupported: str) -> None:
    _keep_stored(
        f"{err.args[0]} (returns a table; spilled results are not supported)", g, rows, result, unsupported
    )


def _keep_stored(
    name: str,
    g: Group,
    rows: list[int],
    result: Evaluation,
    unsupported: str,
    block: list[tuple[int, int]] | None = None,
) -> None:
    """Rows (or an array formula's ``block`` of (row, col)) found unsupported while evaluating:
    raise, or keep their stored values."""
    at = block if block is not None else [(r, g.col) for r in rows]
    cells = [f"{g.sheet}!{cell_name(r, c)}" for r, c in at]
    if unsupported == "raise":
        raise UnsupportedFunctionError({name: cells}, about)
    listed = result.unsupported.setdefault(name, [])
    listed.extend(c for c in cells if c not in listed)  # once, whatever the passes
    result.skipped.update((g.sheet.upper(), r, c) for r, c in at)
