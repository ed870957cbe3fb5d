"""SUBTOTAL and AGGREGATE: an aggregate over references that skips other subtotals' cells.

- SUBTOTAL(function_num, ref1, ...): 1..11 are AVERAGE, COUNT, COUNTA, MAX, MIN, PRODUCT, STDEV,
  STDEVP, SUM, VAR, VARP; 101..111 the same ignoring rows hidden in the file (``<row hidden="1">``).
  Cells whose own formulas call SUBTOTAL or AGGREGATE are skipped (Microsoft: "If there are other
  subtotals within ref1, ref2,... these nested subtotals are ignored to avoid double counting").
- AGGREGATE(function_num, options, ref1, ...) / AGGREGATE(function_num, options, array, k):
  1..19 are AVERAGE, COUNT, COUNTA, MAX, MIN, PRODUCT, STDEV.S, STDEV.P, SUM, VAR.S, VAR.P,
  MEDIAN, MODE.SNGL, LARGE, SMALL, PERCENTILE.INC, QUARTILE.INC, PERCENTILE.EXC, QUARTILE.EXC;
  options 0..7 choose what to ignore: nested SUBTOTAL/AGGREGATE cells (0..3), hidden rows
  (1, 3, 5, 7), error values (2, 3, 6, 7). A function this engine lacks is #VALUE!, never guessed.

Skipped cells read as blanks, which every aggregate ignores in references. The cells holding
SUBTOTAL/AGGREGATE are found once per workbook (:func:`mark_subtotals`) and kept on each sheet's
store; hidden rows come from the sheet XML.
"""

from __future__ import annotations

import numpy as np

from gputco.workbook.recalc.formula.parse import Binary, Call, Node, Unary
from gputco.workbook.recalc.run import vec
from gputco.workbook.recalc.run.rangeval import RangeVal
from gputco.workbook.recalc.run.values import VALUE, XlError

from . import math as _math
from . import stats as _stats
from ._args import Spec, scalar_nums

SUBTOTAL_FUNCS = (
    "AVERAGE",
    "COUNT",
    "COUNTA",
    "MAX",
    "MIN",
    "PRODUCT",
    "STDEV",
    "STDEVP",
    "SUM",
    "VAR",
    "VARP",
)
AGGREGATE_FUNCS = (
    "AVERAGE",
    "COUNT",
    "COUNTA",
    "MAX",
    "MIN",
    "PRODUCT",
    "STDEV.S",
    "STDEV.P",
    "SUM",
    "VAR.S",
    "VAR.P",
    "MEDIAN",
    "MODE.SNGL",
    "LARGE",
    "SMALL",
    "PERCENTILE.INC",
    "QUARTILE.INC",
    "PERCENTILE.EXC",
    "QUARTILE.EXC",
)
_NESTED = frozenset({"SUBTOTAL", "AGGREGATE"})


def calls(node: Node):
    """Every function name called in a formula tree."""
    stack = [node]
    while stack:
        n = stack.pop()
        t = type(n)
        if t is Call:
            yield n.name
            stack.extend(n.args)
        elif t is Binary:
            stack.extend((n.left, n.right))
        elif t is Unary:
            stack.append(n.arg)


def mark_subtotals(book, groups) -> None:
    """Record on each sheet's store the cells whose formulas call SUBTOTAL or AGGREGATE."""
    seen: dict[int, bool] = {}
    for g in groups:
        key = id(g.compiled)
        if key not in seen:
            seen[key] = any(name in _NESTED for name in calls(g.compiled.node))
        if seen[key]:
            store = book.sheet(g.sheet)
            if store is not None:
                store.subtotal_cells.update((r, g.col) for r in range(g.r0, g.r1 + 1))


def _masked(ref, nested: bool, hidden: bool, errors: bool):
    """A reference's values with the skipped cells blank; the reference itself if none are."""
    if not isinstance(ref, RangeVal):
        if errors and ref.dtype == vec.OBJ:
            return _blank_errors(ref)
        return ref
    store = ref.store
    if store is None:
        return ref
    rows_fixed = not ref.moving
    skip_cells = store.subtotal_cells if nested else ()
    skip_rows = store.hidden_rows if hidden else frozenset()
    touched = any(
        True
        for r, c in skip_cells
        if ref.c0 <= c < ref.c0 + ref.w and (not rows_fixed or ref.r0 <= r < ref.r0 + ref.h)
    ) or any(True for r in skip_rows if not rows_fixed or ref.r0 <= r < ref.r0 + ref.h)
    if not touched and not errors:
        return ref
    arr = ref.values()
    m, h, w = arr.shape
    out = arr.astype(object)
    r0 = np.broadcast_to(np.asarray(ref.r0).reshape(-1, 1), (m, 1))
    rows = r0 + np.arange(h)[None, :]  # (m, h) sheet rows
    for i in range(m):
        for j in range(h):
            r = int(rows[i, j])
            if r in skip_rows:
                out[i, j, :] = None
                continue
            for k in range(w):
                if (r, ref.c0 + k) in skip_cells:
                    out[i, j, k] = None
    if errors:
        out = _blank_errors(out)
    if h * w == 1:  # keep reference semantics for a single cell: an array of two elements
        out = np.concatenate([out, np.full((m, 1, 1), None, dtype=object)], axis=2)
    return out


def _blank_errors(arr: np.ndarray) -> np.ndarray:
    out = arr.astype(object)
    out[vec.is_error_array(out)] = None
    return out


def _call(name: str, *args):
    spec = _AGGREGATED.get(name)
    if spec is None:
        return vec.const(VALUE)
    return spec.impl(*args)


def _fixed_number(x) -> tuple[float | None, XlError | None]:
    """The function/option number, one for the whole group (ValueError if it varies)."""
    (f,), e = scalar_nums(x)
    if e is not None:
        return None, next(v for v in e[1].ravel().tolist() if isinstance(v, XlError))
    vals = np.unique(np.trunc(f.ravel()))
    if len(vals) > 1:  # varies down the group (e.g. read from the row): evaluate row by row
        raise ValueError("SUBTOTAL/AGGREGATE function or option number varies within the group")
    return float(vals[0]), None


def _subtotal(fn, *refs):
    k, err = _fixed_number(fn)
    if err is not None:
        return vec.const(err)
    if k is None or not (1 <= k <= 11 or 101 <= k <= 111) or not refs:
        return vec.const(VALUE)
    hidden = k > 100
    name = SUBTOTAL_FUNCS[int(k) - (101 if hidden else 1)]
    return _call(name, *(_masked(r, True, hidden, False) for r in refs if r is not None))


def _aggregate(fn, opt, *refs):
    k, err = _fixed_number(fn)
    o, err2 = (0.0, None) if opt is None else _fixed_number(opt)
    if err is not None or err2 is not None:
        return vec.const(err or err2)
    if k is None or o is None or not 1 <= k <= 19 or not 0 <= o <= 7 or not refs:
        return vec.const(VALUE)
    o = int(o)
    nested, hidden, errors = o <= 3, o in (1, 3, 5, 7), o in (2, 3, 6, 7)
    name = AGGREGATE_FUNCS[int(k) - 1]
    if k >= 14:  # array form: AGGREGATE(k, opt, array, k)
        if len(refs) != 2 or refs[1] is None:
            return vec.const(VALUE)
        arr = _masked(refs[0], nested, hidden, errors)
        kth = refs[1].values() if isinstance(refs[1], RangeVal) else refs[1]
        return _call(name, arr, kth)
    return _call(name, *(_masked(r, nested, hidden, errors) for r in refs if r is not None))


FUNCTIONS = {
    "SUBTOTAL": Spec(_subtotal, 2, 255, "vr"),
    "AGGREGATE": Spec(_aggregate, 3, 255, "vvr"),
}

#: the functions SUBTOTAL and AGGREGATE apply, by name
_AGGREGATED = {n: {**_math.FUNCTIONS, **_stats.FUNCTIONS}[n] for n in {*SUBTOTAL_FUNCS, *AGGREGATE_FUNCS}}
