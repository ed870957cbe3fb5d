"""FORMULATEXT and CELL: what a reference's cell holds, rather than its value.

- FORMULATEXT(reference): the formula of the reference's top-left cell as Excel shows it (``=``
  and the formula, without the ``_xlfn.`` prefixes the file stores; a CSE array formula in
  braces, ``{=...}``); a cell without a formula is #N/A.
- CELL(info_type, [reference]): only the info types that depend on the workbook alone:
  "address" (``$A$1``; for another sheet's cell Excel writes the workbook's file name too, so that
  is unsupported), "row", "col", "contents" (the value of the top-left cell) and "type" ("b"
  blank, "l" text, "v" anything else). The others
  (filename, format, width, color, protect, prefix, parentheses) and CELL without a reference
  (the last changed cell) depend on the application or the file's location: formulas using them
  are unsupported (the compiler checks the info type, see :func:`cell_supported`).
"""

from __future__ import annotations

import re

import numpy as np
from openpyxl.formula.translate import Translator

from gputco.workbook.recalc.formula.parse import Call, Const, RefNode
from gputco.workbook.recalc.formula.refs import cell_name, col_letters
from gputco.workbook.recalc.read.cells import area_of
from gputco.workbook.recalc.run import vec
from gputco.workbook.recalc.run.rangeval import RangeVal
from gputco.workbook.recalc.run.values import NA, VALUE, XlError

from ._args import Spec

_PREFIXES = re.compile(r"_xlfn\._xlws\.|_xlfn\.|_xlws\.|_xlpm\.", re.I)
CELL_TYPES = frozenset({"ADDRESS", "ROW", "COL", "CONTENTS", "TYPE"})


class FormulaTexts:
    """Formula texts of a package's cells, indexed on first use."""

    def __init__(self, package) -> None:
        self.package = package
        self._index: dict[str, dict[tuple[int, int], str]] | None = None

    def get(self, sheet: str, row: int, col: int) -> str | None:
        if self._index is None:
            self._index = {part.name.upper(): _texts(part) for part in self.package.sheets}
        return self._index.get(sheet.upper(), {}).get((row, col))


def _texts(part) -> dict[tuple[int, int], str]:
    out: dict[tuple[int, int], str] = {}
    masters: dict[str, object] = {}
    for fc in part.formulas:
        if fc.kind == "shared" and fc.text is not None:
            masters[fc.si] = fc
        if fc.kind == "spill":
            continue  # filled with its block below
        if fc.text is None:
            master = masters.get(fc.si)
            if master is None:
                continue
            origin = cell_name(master.row, master.col)
            text = Translator("=" + master.text, origin).translate_formula(cell_name(fc.row, fc.col))
        else:
            text = "=" + fc.text
        if text is None:
            continue
        text = _PREFIXES.sub("", text)
        if fc.kind == "array" and not fc.dynamic:
            text = "{" + text + "}"
        out[(fc.row, fc.col)] = text
        area = area_of(fc.ref) if fc.kind == "array" and fc.ref else None
        if area is not None and area[:2] == (fc.row, fc.col) and not fc.dynamic:
            for r in range(area[0], area[2] + 1):  # every cell of a CSE block shows its formula
                for c in range(area[1], area[3] + 1):
                    out[(r, c)] = text
    return out


def _formulatext(ctx, ref):
    if not isinstance(ref, RangeVal):
        return vec.const(VALUE if not isinstance(ref.ravel()[0], XlError) else ref.ravel()[0])
    texts = getattr(ctx.book, "formulas", None)
    if texts is None or ref.store is None:
        return vec.const(NA)
    rows = np.atleast_1d(np.asarray(ref.r0)).tolist()
    found = [texts.get(ref.store.name, r, ref.c0) for r in rows]
    return vec.from_list([NA if t is None else t for t in found], (len(found), 1, 1))


def _cell(ctx, info, ref=None):
    kinds = vec.texts(info)[0].ravel().tolist()
    if len(set(kinds)) != 1 or not isinstance(ref, RangeVal) or ref.store is None:
        return vec.const(VALUE)
    kind = str(kinds[0]).upper()
    if kind not in CELL_TYPES:
        return vec.const(VALUE)
    if kind == "ROW":
        return np.asarray(ref.r0, dtype=float).reshape(-1, 1, 1)
    if kind == "COL":
        return vec.const(float(ref.c0))
    if kind == "ADDRESS":
        rows = np.atleast_1d(np.asarray(ref.r0)).tolist()
        return vec.from_list([f"${col_letters(ref.c0)}${r}" for r in rows], (len(rows), 1, 1))
    vals = ref.store.block(ref.r0, 1, ref.c0, 1)
    if kind == "CONTENTS":
        if vals.dtype == object:
            vals = vals.copy()
            vals[vals == None] = 0.0  # noqa: E711 (elementwise)
        return vals
    flat = vals.ravel().tolist()
    return vec.from_list(["b" if v is None else "l" if isinstance(v, str) else "v" for v in flat], vals.shape)


def cell_supported(node: Call) -> bool:
    """CELL with an info type the engine evaluates, written as text, and a reference (for
    "address", to the formula's own sheet: Excel names the workbook for others)."""
    if len(node.args) != 2 or type(node.args[0]) is not Const:
        return False
    info = node.args[0].value
    ref = node.args[1]
    if not isinstance(info, str) or info.upper() not in CELL_TYPES or type(ref) is not RefNode:
        return False
    return info.upper() != "ADDRESS" or ref.ref.sheet is None


FUNCTIONS = {
    "FORMULATEXT": Spec(_formulatext, 1, 1, "r", needs_ctx=True),
    "CELL": Spec(_cell, 1, 2, "vr", needs_ctx=True),
}
