"""A fallback for the cells the engine cannot compute: ``recalc_file(engine="auto"|"libreoffice")``.

After gputco's engine has evaluated a workbook (cells using unsupported functions kept as
stored), :func:`complete` screens it (:mod:`gputco.workbook.recalc.formula.screen`), picks the cells
the fallback should compute (:mod:`.reach`: for ``"auto"`` the cells the engine left unsupported
and every cell depending on them, for ``"libreoffice"`` every formula cell; never volatile ones)
and fills in its values. A workbook that reaches outside is never handed over. The fallback is a
callable handed in by the caller (``fallback(src, cells, limits, timeout) -> {cell: value}``,
raising :class:`FallbackUnavailable` when it cannot run at all, and on a failure a
:class:`RecalcError` or one of the exception types it lists in its attribute ``errors``): the
engine knows nothing of LibreOffice. gputco's is :func:`gputco.workbook.soffice.fallback.libreoffice_values`, which
opens a copy in a sandboxed LibreOffice and reads back the values it saved; the values go into
the evaluation, so the writer patches them into the original file like the engine's own
values. A cell LibreOffice cannot compute either (an error where the file stored a value: a
function LibreOffice lacks, :func:`takes`) keeps what the engine gave it, or its stored value and
its place in ``report.unsupported``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from gputco.workbook.recalc.base.errors import CircularReferenceError, RecalcError
from gputco.workbook.recalc.base.refs import cell_name
from gputco.workbook.recalc.base.values import ERRORS, XlError
from gputco.workbook.recalc.formula.screen import OutsideReachError, describe, is_dtd, screen
from gputco.workbook.recalc.run.engine import CIRCULAR, Evaluation
from gputco.workbook.recalc.run.reach import Cell, choose

ENGINES = ("auto", "gputco", "libreoffice")

#: ``fallback(src, cells, limits, timeout_s)``: the values of ``cells`` ((SHEET, row, col) with the
#: sheet name in upper case) computed by another application from the file ``src``
Fallback = Callable[[Path, set[Cell], object, float], Mapping[Cell, object]]


class FallbackUnavailable(RecalcError):
    """The fallback cannot run here at all (for LibreOffice: it is not installed).

    ``reason`` is what the report's note says ("... is not installed (how to install it)")."""

    def __init__(self, message: str, reason: str | None = None):
        super().__init__(message)
        self.reason = reason or message


#: LibreOffice's time limit when the caller set none (seconds)
DEFAULT_TIMEOUT_S = 300.0


@dataclass
class Outcome:
    """What LibreOffice did for one recalculation."""

    cells: list[str] = field(default_factory=list)  # "Sheet!A1" it computed, in sheet order
    screened: list[str] = field(default_factory=list)  # findings of the screen
    notes: list[str] = field(default_factory=list)  # why it did not run, or what it could not do


def complete(
    evaluation: Evaluation,
    engine: str,
    deadline: float | None,
    fallback: Fallback | None,
    *,
    all_or_nothing: bool = False,
) -> Outcome:
    """Screen the workbook and let ``fallback`` compute the cells ``engine`` gives it.

    ``all_or_nothing``: do not start LibreOffice when some unsupported cells would stay
    uncomputed anyway (the caller then raises, naming them).
    """
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, not {engine!r}")
    if all_or_nothing and engine != "gputco" and CIRCULAR in evaluation.unsupported:
        # said, as by the engine alone: LibreOffice would give #VALUE! (its Err:522), Excel warns
        raise CircularReferenceError(evaluation.unsupported[CIRCULAR])
    targets = set() if engine == "gputco" else choose(evaluation, engine)
    # every part parsed again only where LibreOffice may open the file; else the report's screen
    findings = screen(evaluation.package, evaluation.groups, worksheets=bool(targets))
    dtds = [f for f in findings if is_dtd(f)]
    if dtds:  # in a part the engine does not read (styles, [Content_Types].xml): refused all the same
        raise OutsideReachError(dtds)
    outcome = Outcome(screened=[str(f) for f in findings])
    if findings and not targets:  # said, though nothing goes to LibreOffice this time
        outcome.notes.append(
            f"the workbook reaches outside ({describe(findings)}): gputco computed it alone, and it "
            "is never handed to LibreOffice"
        )
    if engine == "gputco":
        return outcome
    if findings and engine == "libreoffice":
        raise OutsideReachError(findings)
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
    if fallback is None:
        if engine == "libreoffice":
            raise ValueError(
                "engine='libreoffice' needs a fallback: pass "
                "fallback=gputco.workbook.soffice.fallback.libreoffice_values"
            )
        outcome.notes.append(f"no fallback was given (fallback=...), so nothing computed {which}")
        return outcome
    timeout = DEFAULT_TIMEOUT_S if deadline is None else max(1.0, deadline - time.perf_counter())
    try:
        values = fallback(evaluation.package.path, targets, evaluation.package.limits, timeout)
    except FallbackUnavailable as err:
        if engine == "libreoffice":
            raise
        outcome.notes.append(f"{err.reason}, so it did not compute {which}")
        return outcome
    except (RecalcError, *getattr(fallback, "errors", ())) as err:  # e.g. LibreOfficeError
        if engine == "libreoffice":
            raise
        outcome.notes.append(f"LibreOffice failed, so it did not compute {which}: {err}")
        return outcome
    outcome.cells, failed = apply(evaluation, targets, values)
    if failed:
        outcome.notes.append(
            f"LibreOffice could not compute {len(failed)} cells either (it gave an error where "
            f"the file holds a value; the stored values stay): {', '.join(failed[:6])}"
            + (f" and {len(failed) - 6} more" if len(failed) > 6 else "")
        )
    return outcome


def is_error(value: object) -> bool:
    """Whether a cell value is a spreadsheet error (#VALUE!, #NAME?, ...)."""
    return isinstance(value, XlError) or (isinstance(value, str) and value in ERRORS)


def takes(computed: object, stored: object) -> bool:
    """Whether LibreOffice's value ``computed`` replaces a cell's ``stored`` value: the one rule,
    for ``--engine auto`` (:func:`apply`) and ``gputco render``. Never an error over a value that
    is not one (a function LibreOffice lacks, a LAMBDA it reads differently: the file's value
    stays, and the cell is reported as not computed), and never nothing.

    >>> takes(7.0, 6.0), takes(ERRORS["#VALUE!"], 6.0), takes("#NAME?", "#NAME?"), takes("#N/A", None)
    (True, False, True, True)
    """
    if computed is None:
        return False
    return not (is_error(computed) and stored is not None and not is_error(stored))


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
            if not takes(v, fc.cached):
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
