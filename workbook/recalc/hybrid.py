"""LibreOffice for the cells the engine cannot compute: ``recalc_file(engine="auto"|"libreoffice")``.

After gputco's engine has evaluated a workbook (cells using unsupported functions kept as
stored), :func:`complete` screens it (:mod:`.screen`), picks the cells LibreOffice should compute
(:mod:`.reach`: for ``"auto"`` the cells the engine left unsupported and every cell depending on
them, for ``"libreoffice"`` every formula cell; never volatile ones) and fills in its values.
A workbook that reaches outside is never handed over. LibreOffice opens a copy in a temporary
folder, with the gputco add-in in a private profile (so ``TCO_`` cells compute) that recalculates
every formula on load, and saves it as .xlsx; the chosen cells' values are read from that file
into the evaluation, so the writer patches them into the original file like the engine's own
values. A cell LibreOffice cannot compute either (``#NAME?`` where the file stored something else:
a function LibreOffice lacks) keeps what the engine gave it, or its stored value and its place in
``report.unsupported``.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from .engine import Evaluation
from .errors import RecalcError
from .package import open_package
from .reach import Cell, choose
from .refs import cell_name
from .screen import OutsideReachError, describe, screen

ENGINES = ("auto", "gputco", "libreoffice")
#: LibreOffice's time limit when the caller set none (seconds)
DEFAULT_TIMEOUT_S = 300.0


@dataclass
class Outcome:
    """What LibreOffice did for one recalculation."""

    cells: list[str] = field(default_factory=list)  # "Sheet!A1" it computed, in sheet order
    screened: list[str] = field(default_factory=list)  # findings of the screen
    notes: list[str] = field(default_factory=list)  # why it did not run, or what it could not do


def complete(
    evaluation: Evaluation, engine: str, deadline: float | None, *, all_or_nothing: bool = False
) -> Outcome:
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
        outcome.notes.append(
            f"LibreOffice not used for {which}: the workbook reaches outside ({describe(findings)})"
        )
        return outcome
    if all_or_nothing and not evaluation.skipped <= targets:
        names = {f"{s}!{cell_name(r, c)}" for s, r, c in targets}
        outcome.notes.append(
            f"LibreOffice not started: it would compute {len(targets)} cells but not the ones named"
        )
        for func in list(evaluation.unsupported):  # name only what LibreOffice cannot compute
            evaluation.unsupported[func] = [c for c in evaluation.unsupported[func] if c.upper() not in names]
            if not evaluation.unsupported[func]:
                del evaluation.unsupported[func]
        return outcome
    from gputco.workbook.soffice import process

    if process.soffice() is None:
        if engine == "libreoffice":
            raise process.LibreOfficeError(f"LibreOffice (soffice) is not installed: {process.INSTALL_HINT}")
        outcome.notes.append(
            f"LibreOffice is not installed ({process.INSTALL_HINT}), so it did not compute {which}"
        )
        return outcome
    timeout = DEFAULT_TIMEOUT_S if deadline is None else max(1.0, deadline - time.perf_counter())
    try:
        values = libreoffice_values(evaluation.package.path, targets, evaluation.package.limits, timeout)
    except (process.LibreOfficeError, RecalcError) as err:
        if engine == "libreoffice":
            raise
        outcome.notes.append(f"LibreOffice failed, so it did not compute {which}: {err}")
        return outcome
    outcome.cells, failed = apply(evaluation, targets, values)
    if failed:
        outcome.notes.append(
            f"LibreOffice could not compute {len(failed)} cells either "
            f"(#NAME?): {', '.join(failed[:6])}" + (f" and {len(failed) - 6} more" if len(failed) > 6 else "")
        )
    return outcome


def libreoffice_values(src: Path, cells: set[Cell], limits, timeout: float) -> dict[Cell, object]:
    """LibreOffice's values of ``cells`` after a full recalculation of a copy of ``src``."""
    from gputco.workbook.soffice import session

    with tempfile.TemporaryDirectory(prefix="gputco-recalc-lo-") as tmp:
        suffix = Path(src).suffix.lower()  # a plain name: LibreOffice names its output after it
        copy = Path(tmp) / "in" / ("book" + (suffix if suffix in (".xlsx", ".xlsm") else ".xlsx"))
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
        for rows, cols, vals in (
            (part.num_rows, part.num_cols, part.num_vals),
            (part.obj_rows, part.obj_cols, part.obj_vals),
        ):
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
