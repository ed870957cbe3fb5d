"""Logical: IF, IFERROR, IFNA, AND, OR, XOR, NOT, TRUE, FALSE, IFS, SWITCH.

IF evaluates both branches for the whole group and picks per row; an error in the branch not
taken never shows, as in Excel.
"""

from __future__ import annotations

import numpy as np

from gputco.workbook.recalc.run import vec
from gputco.workbook.recalc.run.rangeval import RangeVal, materialize
from gputco.workbook.recalc.run.values import NA, VALUE, XlError, approx_equal, to_bool

from ._args import Spec, as_value, is_rangelike


def _if(cond, *rest):
    """IF(c, yes[, no]): an omitted ``no`` is FALSE, an empty one (``IF(c, x, )``) is 0."""
    c, e = vec.bools(cond)
    yes = vec.const(0.0) if not rest or rest[0] is None else rest[0]
    no = vec.const(False) if len(rest) < 2 else vec.const(0.0) if rest[1] is None else rest[1]
    out = vec.select(c, yes, no)
    return vec.with_errors(out, e)


def _iferror(value, alt=None):
    alt = vec.const(0.0) if alt is None else alt
    return vec.select(vec.is_error_array(value), alt, value)


def _ifna(value, alt=None):
    alt = vec.const(0.0) if alt is None else alt
    if value.dtype != vec.OBJ:
        return value
    mask = np.array([v is NA for v in value.ravel().tolist()], dtype=bool).reshape(value.shape)
    return vec.select(mask, alt, value)


def _logicals(args):
    """Per row: list of boolean arrays (m, k) and the first error, Excel's AND/OR argument rules."""
    parts, m = [], 1
    errs = []
    for a in args:
        if a is None:
            continue
        arr = materialize(a)
        m = max(m, arr.shape[0])
        flat = arr.reshape(arr.shape[0], -1)
        if flat.dtype == vec.FLOAT:
            parts.append((flat != 0.0).astype(np.int8))
            continue
        if flat.dtype == vec.BOOL:
            parts.append(flat.astype(np.int8))
            continue
        rangelike = is_rangelike(a)
        codes = []
        for v in flat.ravel().tolist():
            if isinstance(v, XlError):
                codes.append(v)
            elif isinstance(v, bool | float):
                codes.append(int(bool(v)))
            elif rangelike or v is None:
                codes.append(-1)  # text and blanks in ranges are skipped
            else:
                b = to_bool(v)
                codes.append(b if isinstance(b, XlError) else int(b))
        err = np.array([c if isinstance(c, XlError) else None for c in codes], dtype=object)
        ints = np.array([c if isinstance(c, int) else -1 for c in codes], dtype=np.int8)
        parts.append(ints.reshape(flat.shape))
        errs.append(err.reshape(flat.shape))
    return parts, errs, m


def _combine(args, reduce):
    parts, errs, m = _logicals(args)
    if not parts:
        return vec.const(VALUE)
    allv = np.concatenate([np.broadcast_to(p, (m, p.shape[1])) for p in parts], axis=1)
    used = allv >= 0
    any_used = used.any(axis=1)
    r = reduce(allv, used)
    out = np.where(any_used, r, False).reshape(-1, 1, 1)
    if any_used.all() and not errs:
        return out
    res = out.astype(object)
    res[~any_used] = VALUE
    for e in reversed(errs):
        e = np.broadcast_to(e, (m, e.shape[1]))
        for i in range(m):
            hit = next((x for x in e[i] if x is not None), None)
            if hit is not None:
                res[i, 0, 0] = hit
    return res


def _and(*args):
    return _combine(args, lambda v, used: np.all((v == 1) | ~used, axis=1))


def _or(*args):
    return _combine(args, lambda v, used: np.any(v == 1, axis=1))


def _xor(*args):
    return _combine(args, lambda v, used: (v == 1).sum(axis=1) % 2 == 1)


def _not(x):
    b, e = vec.bools(x)
    return vec.with_errors(~b, e)


def _uniform(x) -> object:
    """The single value of a condition or case that is the same for the whole group, or a
    sentinel when it varies by row (then the vector path runs)."""
    if isinstance(x, RangeVal) or x.shape != (1, 1, 1):
        return _VARIES
    return x.reshape(-1).tolist()[0]


_VARIES = object()


def _ifs(ctx, *args):
    """IFS(c1, v1, c2, v2, ...): the value of the first true condition, #N/A if none. With the
    conditions the same for the whole group, the chosen value is passed on as it is (a reference
    stays a reference: SUM(IFS(TRUE, A1:A3)) sums the range)."""
    if len(args) % 2:
        return vec.const(VALUE)
    pairs = list(zip(args[0::2], args[1::2], strict=True))
    fixed = [_uniform(c) for c, _ in pairs]
    if all(f is not _VARIES for f in fixed):
        for f, (_, value) in zip(fixed, pairs, strict=True):
            b = f if isinstance(f, XlError) else to_bool(f)
            if isinstance(b, XlError):
                return vec.const(b)
            if b:
                return vec.const(0.0) if value is None else value
        return vec.const(NA)
    out = vec.const(NA)
    for cond, value in reversed(pairs):
        c, e = vec.bools(cond)
        value = vec.const(0.0) if value is None else as_value(ctx, value)
        out = vec.with_errors(vec.select(c, value, out), e)
    return out


def _same(a, b) -> bool:
    """SWITCH's equality: same type (numbers within Excel's precision, text case-insensitively,
    booleans), a blank equal to a blank or to "" only; an error case never matches."""
    if a is None:
        return b is None or b == ""
    if b is None:
        return a == ""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, float) and isinstance(b, float):
        return approx_equal(a, b)
    if isinstance(a, str) and isinstance(b, str):
        return a.lower() == b.lower()
    return False


def _switch(ctx, expr, *args):
    """SWITCH(x, v1, r1, ..., [default]): the result for the first value equal to x."""
    n = len(args) // 2
    pairs = [(args[2 * k], args[2 * k + 1]) for k in range(n)]
    default = args[-1] if len(args) % 2 else None
    expr = as_value(ctx, expr)
    cases = [vec.const(0.0) if v is None else as_value(ctx, v) for v, _ in pairs]
    x = _uniform(expr)
    if x is not _VARIES and all(_uniform(c) is not _VARIES for c in cases):
        if isinstance(x, XlError):
            return vec.const(x)
        for c, (_, res) in zip(cases, pairs, strict=True):
            if _same(x, _uniform(c)):
                return vec.const(0.0) if res is None else res
        return vec.const(NA) if default is None else default
    out = vec.const(NA) if default is None else as_value(ctx, default)
    for c, (_, res) in reversed(list(zip(cases, pairs, strict=True))):
        hit = vec.elementwise(lambda a, b: a if isinstance(a, XlError) else _same(a, b), expr, c)
        h, e = vec.bools(hit)
        res = vec.const(0.0) if res is None else as_value(ctx, res)
        out = vec.with_errors(vec.select(h, res, out), e)
    return out


FUNCTIONS = {
    "IFS": Spec(_ifs, 2, 254, "vr" * 127, needs_ctx=True),
    "SWITCH": Spec(_switch, 3, 254, "r", needs_ctx=True),
    "IF": Spec(_if, 2, 3),
    "IFERROR": Spec(_iferror, 2, 2),
    "IFNA": Spec(_ifna, 2, 2),
    "AND": Spec(_and, 1, 255, "r"),
    "OR": Spec(_or, 1, 255, "r"),
    "XOR": Spec(_xor, 1, 255, "r"),
    "NOT": Spec(_not, 1, 1),
    "TRUE": Spec(lambda: vec.const(True), 0, 0),
    "FALSE": Spec(lambda: vec.const(False), 0, 0),
}
