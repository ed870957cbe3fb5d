"""What a recalculation did: counts, timing, unsupported functions, and per-cell mismatches.

With ``check=True`` every formula cell's stored value is compared with the computed one: numbers
are equal when ``|a - b| <= 1e-9 * max(|a|, |b|)``; text, booleans and errors must match exactly
(a stored empty text and no stored value both read as blank text). A number LibreOffice computed
is equal when ``|a - b| <= 1e-9 * max(1, |a|, |b|)``: LibreOffice adds and iterates in its own order,
so a sum that cancels to about zero keeps the rounding of its addends (on the finance workbook's
cash flows of 1e4 to 1e6 USD: 1e-11 where gputco and Excel store 9e-12, docs/recalc.md), and a
relative test of two such residues fails although both are zero to the precision of the inputs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from openpyxl.formula.translate import Translator

from gputco.workbook.recalc.base.refs import cell_name
from gputco.workbook.recalc.base.values import XlError
from gputco.workbook.recalc.run.engine import Evaluation

REL_TOL = 1e-9
#: below 1 in magnitude, LibreOffice's numbers are compared to REL_TOL absolute
LIBREOFFICE_ABS_TOL = 1e-9


@dataclass(frozen=True)
class Mismatch:
    """One formula cell whose stored value differs from the computed one."""

    sheet: str
    cell: str
    stored: object
    computed: object
    formula: str
    engine: str = "gputco"  # which engine computed the value: "gputco" or "libreoffice"


@dataclass
class RecalcReport:
    """The outcome of :func:`gputco.workbook.recalc.recalc_file`."""

    source: Path
    destination: Path | None
    cells: int  # formula cells
    groups: int  # vectorised groups (a group of one is a single cell)
    units: int  # evaluation steps: groups, plus single cells of recurrences
    seconds: float
    unsupported: dict[str, list[str]] = field(default_factory=dict)
    mismatches: list[Mismatch] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    checked: bool = False
    engine: str = "gputco"  # the engine asked for: "auto", "gputco" or "libreoffice"
    #: formula cells computed by each engine ("gputco", "libreoffice"); the rest kept as stored
    by_engine: dict[str, int] = field(default_factory=lambda: {"gputco": 0, "libreoffice": 0})
    libreoffice_cells: list[str] = field(default_factory=list)  # "Sheet!A1" LibreOffice computed
    screened: list[str] = field(default_factory=list)  # what reaches outside (see screen.py)
    notes: list[str] = field(default_factory=list)  # why LibreOffice did not run or could not
    #: with check: cells recomputed but not compared (volatile, or depending on a volatile cell)
    volatile: set[tuple[str, int, int]] = field(default_factory=set)

    @property
    def ok(self) -> bool:
        """True when nothing differs and nothing was left unevaluated."""
        return not self.mismatches and not self.unsupported and not self.problems

    def summary(self) -> str:
        what = "checked" if self.checked else "recalculated"
        line = (
            f"{self.source.name}: {what} {self.cells} formula cells in {self.groups} groups "
            f"({self.units} steps) in {self.seconds:.2f} s"
        )
        lo = self.by_engine.get("libreoffice", 0)
        line += f"; gputco computed {self.by_engine.get('gputco', 0)}"
        if lo or self.engine != "gputco":
            shown = ", ".join(self.libreoffice_cells[:6])
            more = f" and {lo - 6} more" if lo > 6 else ""
            line += f", LibreOffice {lo}" + (f" ({shown}{more})" if lo else "")
        if self.checked:
            line += f"; {len(self.mismatches)} cells differ from their stored values"
            if self.volatile:
                line += (
                    f"; volatile: {len(self.volatile)} cells recomputed, not compared with the "
                    "stored value (NOW, TODAY, RAND, RANDBETWEEN, RANDARRAY, INFO, "
                    'CELL("filename") and the cells depending on them)'
                )
        if self.unsupported:
            line += (
                f"; kept stored values for {sum(map(len, self.unsupported.values()))} cells "
                f"with unsupported functions ({', '.join(sorted(self.unsupported))})"
            )
        return line

    def mismatch_table(self, limit: int | None = None) -> str:
        """The mismatches as an aligned text table (cell, stored, computed, formula), with the
        engine that computed each value when LibreOffice computed any."""
        engines = any(m.engine != "gputco" for m in self.mismatches)
        rows = [("cell", "stored", "computed") + (("engine",) if engines else ()) + ("formula",)]
        for m in self.mismatches[:limit]:
            formula = m.formula if m.formula.startswith("(") else "=" + m.formula.lstrip("=")
            rows.append(
                (f"{m.sheet}!{m.cell}", _show(m.stored), _show(m.computed))
                + ((m.engine,) if engines else ())
                + (formula,)
            )
        n = len(rows[0]) - 1
        widths = [max(len(r[i]) for r in rows) for i in range(n)]
        lines = ["  ".join(r[i].ljust(widths[i]) for i in range(n)) + "  " + r[n] for r in rows]
        if limit is not None and len(self.mismatches) > limit:
            lines.append(f"... and {len(self.mismatches) - limit} more")
        return "\n".join(lines)


def _show(v: object) -> str:
    if v is None:
        return "(none)"
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, str):
        return repr(v) if len(v) <= 40 else repr(v[:37] + "...")
    return str(v)


def same(stored: object, computed: object, libreoffice: bool = False) -> bool:
    """Whether a stored value matches a computed one (the --check rule); ``libreoffice``: the
    computed value is LibreOffice's.

    >>> same(1.0, 1.0 + 1e-12), same(1.0, 1.001), same("", None), same(True, 1.0)
    (True, False, True, False)
    >>> same(8.98e-12, -1.30e-11), same(8.98e-12, -1.30e-11, libreoffice=True)
    (False, True)
    >>> same(1e-6, 2e-6, libreoffice=True), same(1e6, 1e6 + 1e-2, libreoffice=True)
    (False, False)
    """
    if isinstance(stored, bool) or isinstance(computed, bool):
        return type(stored) is type(computed) and stored == computed
    if isinstance(stored, float) and isinstance(computed, float):
        scale = max(abs(stored), abs(computed))
        if libreoffice:
            return abs(stored - computed) <= max(REL_TOL * scale, LIBREOFFICE_ABS_TOL)
        return abs(stored - computed) <= REL_TOL * scale
    if isinstance(stored, XlError) or isinstance(computed, XlError):
        return stored is computed
    if stored in (None, "") and computed in (None, ""):
        return True
    return stored == computed


def mismatches(
    evaluation: Evaluation, libreoffice: set[str] = frozenset(), volatile: set = frozenset()
) -> list[Mismatch]:
    """Every evaluated formula cell whose stored value differs from the computed one
    (``libreoffice``: the "Sheet!A1" cells LibreOffice computed; ``volatile``: the
    (upper-case sheet, row, column) cells recomputed but not compared)."""
    out = []
    for part in evaluation.package.sheets:
        masters = {}
        for fc in part.formulas:
            if fc.kind == "shared" and fc.text is not None:
                masters[fc.si] = fc
            key = (part.name.upper(), fc.row, fc.col)
            if key in evaluation.skipped or key in volatile:
                continue
            computed = evaluation.value(part.name, fc.row, fc.col)
            delta = evaluation.iterative.get(key)  # iterated: Excel's value to within its change
            if delta is not None and type(computed) is float and type(fc.cached) is float:
                if abs(computed - fc.cached) <= delta:
                    continue
            by_lo = bool(libreoffice) and f"{part.name}!{cell_name(fc.row, fc.col)}" in libreoffice
            if not same(fc.cached, computed, by_lo):
                cell = cell_name(fc.row, fc.col)
                engine = "libreoffice" if by_lo else "gputco"
                out.append(Mismatch(part.name, cell, fc.cached, computed, _formula_text(fc, masters), engine))
    return out


def _formula_text(fc, masters) -> str:
    if fc.text is not None:
        return fc.text
    if fc.kind == "spill":
        return f"(in the array formula of {fc.ref})"
    master = masters.get(fc.si)
    if master is None:
        return "(shared formula)"
    origin = cell_name(master.row, master.col)
    return Translator("=" + master.text, origin).translate_formula(cell_name(fc.row, fc.col))[1:]


#: a date text of two numbers and a year whose first number is no month (13 to 31): day first
_DAY_FIRST = re.compile(r"(?<![\d/])(1[3-9]|2\d|3[01])/(0?[1-9]|1[0-2])/(\d{4}|\d{2})(?![\d/])")


def day_first_texts(evaluation: Evaluation, most: int = 3) -> list[str]:
    """Up to ``most`` texts of the workbook (cells, and texts typed in formulas) that are dates
    only when read day first ("29/02/1900": no month 29), as "Sheet!A1 '29/02/1900'": a sign
    that the Excel which computed the workbook read dates day first (``date_order="dmy"``)."""
    found: list[str] = []
    for part in evaluation.package.sheets:
        for row, col, v in zip(part.obj_rows, part.obj_cols, part.obj_vals, strict=True):
            if isinstance(v, str) and _DAY_FIRST.fullmatch(v.strip()):
                found.append(f"{part.name}!{cell_name(row, col)} {v.strip()!r}")
                if len(found) >= most:
                    return found
        for fc in part.formulas:
            m = _DAY_FIRST.search(fc.text or "")
            if m and f'"{m.group(0)}"' in (fc.text or ""):
                found.append(f"{part.name}!{cell_name(fc.row, fc.col)} {m.group(0)!r}")
                if len(found) >= most:
                    return found
    return found
