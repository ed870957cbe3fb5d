"""LibreOffice for the cells the engine cannot compute: ``recalc_file(engine="auto"|"libreoffice")``.

After gputco's engine has evaluated a workbook (cells using unsupported functions kept as
stored), :func:`complete` picks the cells LibreOffice should compute and fills in its values:

- ``"auto"``: the cells the engine left unsupported, and every cell depending on them (found
  through the formulas' references in evaluation order; a formula with OFFSET or INDIRECT, whose
  references are known only when it runs, is taken as depending on them);
- ``"libreoffice"``: every formula cell.

Volatile cells (NOW, TODAY, RAND, RANDBETWEEN, INFO, CELL) and the cells depending on them are
never taken from LibreOffice, which would use its own clock, random numbers or environment; nor
are cells that reach outside (:data:`.screen.OUTSIDE`), multi-cell array formulas and data tables,
and the cells depending on them.
The workbook is screened first (:mod:`.screen`); a workbook that reaches outside is never handed
over. LibreOffice opens a copy in a temporary folder, with the gputco add-in in a private
profile (so ``TCO_`` cells compute) that recalculates every formula on load, and saves it as
.xlsx; the chosen cells' values are read from that file into the evaluation, so the writer patches
them into the original file like the engine's own values. A cell LibreOffice cannot compute
either (``#NAME?`` where the file stored something else: a function LibreOffice lacks) keeps what
the engine gave it, or its stored value and its place in ``report.unsupported``.
"""

from __future__ import annotations

import bisect
import shutil
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from .engine import Evaluation
from .errors import RecalcError
from .functions.dynamic import DYNAMIC
from .functions.subtotal import calls
from .package import open_package
from .plan import order
from .refs import MAX_ROW, cell_name
from .screen import EXTERNAL_REF, OUTSIDE, OutsideReachError, describe, screen

ENGINES = ("auto", "gputco", "libreoffice")
#: functions whose value depends on when or where they run: never taken from LibreOffice
VOLATILE = frozenset({"NOW", "TODAY", "RAND", "RANDBETWEEN", "INFO", "CELL"})
#: never taken from LibreOffice: what reaches outside (the screen keeps such workbooks from it
#: anyway), and formulas filling several cells, whose other cells hold plain values the writer
#: does not replace (so the master's value alone would disagree with them)
NEVER_LO = OUTSIDE | {EXTERNAL_REF, "[array formula over several cells]", "[data table]"}
#: LibreOffice's time limit when the caller set none (seconds)
DEFAULT_TIMEOUT_S = 300.0

Cell = tuple[str, int, int]  # (upper-case sheet name, row, column)


@dataclass
class Outcome:
    """What LibreOffice did for one recalculation."""

    cells: list[str] = field(default_factory=list)  # "Sheet!A1" it computed, in sheet order
    screened: list[str] = field(default_factory=list)  # findings of the screen
    notes: list[str] = field(default_factory=list)  # why it did not run, or what it could not do


def complete(evaluation: Evaluation, engine: str, deadline: float | None, *,
             all_or_nothing: bool = False) -> Outcome:
    """Screen the workbook and let LibreOffice compute the cells ``engine`` gives it.

    ``all_or_nothing``: do not start LibreOffice when some unsupported cells would stay
    uncomputed anyway (the caller then raises, naming them).
    """
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, not {engine!r}")
    findings = screen(evaluation.package, evaluation.groups)
    outcome = Outcome(screened=[str(f) for f in findings])
    if engine == "gputco":
        return outcome
    if findings and engine == "libreoffice":
        raise OutsideReachError(findings)
    targets = choose(evaluation, engine)
    if not targets:
        return outcome
    which = f"{len(targets)} cells (the engine cannot compute them, or they depend on such cells)"
    if findings:
        outcome.notes.append(f"LibreOffice not used for {which}: the workbook reaches outside "
                             f"({describe(findings)})")
        return outcome
    if all_or_nothing and not evaluation.skipped <= targets:
        names = {f"{s}!{cell_name(r, c)}" for s, r, c in targets}
        outcome.notes.append(f"LibreOffice not started: it would compute {len(targets)} cells "
                             "but not the ones named")
        for func in list(evaluation.unsupported):  # name only what LibreOffice cannot compute
            evaluation.unsupported[func] = [c for c in evaluation.unsupported[func]
                                            if c.upper() not in names]
            if not evaluation.unsupported[func]:
                del evaluation.unsupported[func]
        return outcome
    from workbook.soffice import process

    if process.soffice() is None:
        if engine == "libreoffice":
            raise process.LibreOfficeError(
                f"LibreOffice (soffice) is not installed: {process.INSTALL_HINT}")
        outcome.notes.append(f"LibreOffice is not installed ({process.INSTALL_HINT}), so it did "
                             f"not compute {which}")
        return outcome
    timeout = DEFAULT_TIMEOUT_S if deadline is None else max(1.0, deadline - time.perf_counter())
    try:
        values = libreoffice_values(evaluation.package.path, targets, evaluation.package.limits,
                                    timeout)
    except (process.LibreOfficeError, RecalcError) as err:
        if engine == "libreoffice":
            raise
        outcome.notes.append(f"LibreOffice failed, so it did not compute {which}: {err}")
        return outcome
    outcome.cells, failed = apply(evaluation, targets, values)
    if failed:
        outcome.notes.append(f"LibreOffice could not compute {len(failed)} cells either "
                             f"(#NAME?): {', '.join(failed[:6])}"
                             + (f" and {len(failed) - 6} more" if len(failed) > 6 else ""))
    return outcome


def choose(evaluation: Evaluation, engine: str) -> set[Cell]:
    """The formula cells LibreOffice should compute for ``engine`` ("auto" or "libreoffice")."""
    volatile: set[Cell] = set()
    seeds: set[Cell] = set()
    for g in evaluation.groups:
        rows = range(g.r0, g.r1 + 1)
        key = g.sheet.upper()
        if VOLATILE.intersection(calls(g.compiled.node)) or g.compiled.unsupported & NEVER_LO:
            volatile.update((key, r, g.col) for r in rows)
        elif engine == "libreoffice":
            seeds.update((key, r, g.col) for r in rows)
        else:
            seeds.update(c for c in ((key, r, g.col) for r in rows) if c in evaluation.skipped)
    if not seeds:
        return set()
    units = order(evaluation.groups)
    return dependents(units, seeds) - dependents(units, volatile)


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

    for unit in units:
        g = unit.group
        key = g.sheet.upper()
        rows = range(g.r0, g.r1 + 1) if unit.row is None else range(unit.row, unit.row + 1)
        dynamic = bool(DYNAMIC & set(calls(g.compiled.node)))
        refs = [((ref.sheet or g.sheet).upper(), ref) for ref in g.compiled.refs]
        if not dynamic and not any(hit(s, *_span(ref, rows, g.col)) for s, ref in refs):
            continue
        for r in rows:
            cell = (key, r, g.col)
            if cell in out:
                continue
            if dynamic or any(hit(s, *ref.rect(r, g.col)) for s, ref in refs):
                out.add(cell)
                bisect.insort(rows_of[key][g.col], r)
    return out


def _span(ref, rows: range, col: int) -> tuple[int, int, int, int]:
    """The rectangle a reference covers over all of ``rows``."""
    a, b = ref.rect(rows[0], col), ref.rect(rows[-1], col)
    return max(1, min(a[0], b[0])), a[1], min(MAX_ROW, max(a[2], b[2])), a[3]


def libreoffice_values(src: Path, cells: set[Cell], limits, timeout: float) -> dict[Cell, object]:
    """LibreOffice's values of ``cells`` after a full recalculation of a copy of ``src``."""
    from workbook.soffice import session

    with tempfile.TemporaryDirectory(prefix="gputco-recalc-lo-") as tmp:
        copy = Path(tmp) / "in" / Path(src).name
        copy.parent.mkdir()
        shutil.copyfile(src, copy)  # LibreOffice never sees (or locks) the original
        made = session.convert(copy, Path(tmp) / "out", "xlsx", timeout=timeout)
        return read_values(made, cells, limits)


def read_values(path: Path, cells: set[Cell], limits) -> dict[Cell, object]:
    """The stored values of ``cells`` in the .xlsx ``path`` (missing cells left out)."""
    wanted: dict[str, set[tuple[int, int]]] = defaultdict(set)
    for sheet, r, c in cells:
        wanted[sheet].add((r, c))
    out: dict[Cell, object] = {}
    for part in open_package(path, limits).sheets:
        key = part.name.upper()
        want = wanted.get(key)
        if not want:
            continue
        for fc in part.formulas:
            if (fc.row, fc.col) in want and fc.cached is not None:
                out[(key, fc.row, fc.col)] = fc.cached
        # cells of multi-cell array formulas are plain values in LibreOffice's file
        for rows, cols, vals in ((part.num_rows, part.num_cols, part.num_vals),
                                 (part.obj_rows, part.obj_cols, part.obj_vals)):
            for r, c, v in zip(rows, cols, vals, strict=True):
                if (r, c) in want and (key, r, c) not in out:
                    out[(key, r, c)] = v
    return out


def apply(evaluation: Evaluation, targets: set[Cell], values: dict[Cell, object]):
    """Put LibreOffice's values into the evaluation; return (cells it computed, cells neither
    engine computed), as "Sheet!A1" texts in sheet order."""
    done: list[str] = []
    failed: list[str] = []
    for part in evaluation.package.sheets:
        key = part.name.upper()
        store = evaluation.book.sheet(part.name)
        for fc in part.formulas:
            cell = (key, fc.row, fc.col)
            if cell not in targets:
                continue
            name = f"{part.name}!{cell_name(fc.row, fc.col)}"
            v = values.get(cell)
            if v is None or (str(v) == "#NAME?" and str(fc.cached) != "#NAME?"):
                if cell in evaluation.skipped:  # else the engine's own value stays
                    failed.append(name)
                continue
            store.set(fc.row, fc.col, v)
            evaluation.skipped.discard(cell)
            done.append(name)
    computed = set(done)
    for func in list(evaluation.unsupported):
        left = [c for c in evaluation.unsupported[func] if c not in computed]
        if left:
            evaluation.unsupported[func] = left
        else:
            del evaluation.unsupported[func]
    return done, failed
