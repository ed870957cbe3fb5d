"""Logical: IF, IFERROR, IFNA, AND, OR, XOR, NOT, TRUE, FALSE.

IF evaluates both branches for the whole group and picks per row; an error in the branch not
taken never shows, as in Excel.
"""

from __future__ import annotations

import numpy as np

from .. import vec
from ..rangeval import materialize
from ..values import NA, VALUE, XlError, to_bool
from . import Spec
from ._args import is_rangelike


def _if(cond, yes=None, no=None):
    c, e = vec.bools(cond)
    yes = vec.const(0.0) if yes is None else yes
    no = vec.const(False) if no is None else no
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


def _ifs(*args):
    """IFS(c1, v1, c2, v2, ...): the value of the first true condition, #N/A if none."""
    if len(args) % 2:
        return vec.const(VALUE)
    out = vec.const(NA)
    for cond, value in reversed(list(zip(args[0::2], args[1::2], strict=True))):
        c, e = vec.bools(cond)
        out = vec.with_errors(vec.select(c, vec.const(0.0) if value is None else value, out), e)
    return out


def _switch(expr, *args):
    """SWITCH(x, v1, r1, ..., [default]): the result for the first value equal to x."""
    from ..operators import comparison

    pairs = list(zip(args[0::2], args[1::2], strict=False))
    out = args[-1] if len(args) % 2 else vec.const(NA)
    for value, res in reversed(pairs[: len(args) // 2]):
        hit = comparison("=", expr, value)
        c, e = vec.bools(hit)
        out = vec.with_errors(vec.select(c, res, out), e)
    return out


FUNCTIONS = {
    "IFS": Spec(_ifs, 2, 254),
    "SWITCH": Spec(_switch, 3, 254),
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
