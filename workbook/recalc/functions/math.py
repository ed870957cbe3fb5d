"""Math and trigonometry: ABS ... SUMPRODUCT (Excel's "Math & Trig" category)."""

from __future__ import annotations

import numpy as np

from gputco.workbook.recalc.run import vec
from gputco.workbook.recalc.run.rangeval import materialize
from gputco.workbook.recalc.run.values import DIV0, NUM, VALUE

from ._args import Spec, added, int_arg, numbers, result, row_errors, scalar_nums


def _unary(func):
    def impl(x):
        f, e = vec.nums(x)
        with np.errstate(all="ignore"):
            return vec.finish(func(f), e)

    return impl


def _approx15(s: np.ndarray) -> np.ndarray:
    """Round positive magnitudes to 15 significant digits (what Excel shows and rounds from)."""
    with np.errstate(all="ignore"):
        mag = np.floor(np.log10(np.where(s > 0, s, 1.0)))
        scale = 10.0 ** (14 - mag)
        big = scale > 1e300
        return np.where((s > 0) & ~big & np.isfinite(scale), np.round(s * scale) / scale, s)


def _rounder(how: str):
    def impl(x, digits=None):
        (f, d), e = scalar_nums(x, digits if digits is not None else vec.const(0.0))
        d = int_arg(d)
        with np.errstate(all="ignore"):
            up = np.where(d >= 0, 10.0**d, 1.0)
            down = np.where(d < 0, 10.0 ** (-d), 1.0)
            s = _approx15(np.abs(f) * up / down)
            if how == "half":
                r = np.floor(s + 0.5)
            elif how == "up":
                r = np.ceil(s)
            else:
                r = np.floor(s)
            return vec.finish(np.sign(f) * r / up * down, e)

    return impl


def _int(x):
    f, e = vec.nums(x)
    s = _approx15(np.abs(f))
    # INT rounds down; work on the 15-digit value so 2.9999999999999996 gives 3 as in Calc/Excel
    return vec.finish(np.where(f >= 0, np.floor(s), -np.ceil(s)), e)


def _mod(n, d):
    (fn, fd), e = scalar_nums(n, d)
    with np.errstate(all="ignore"):
        r = fn - fd * np.floor(fn / fd)
    e = vec.add_error(e, np.broadcast_to(fd == 0, r.shape), DIV0)
    return vec.finish(r, e)


def _power(x, y):
    from gputco.workbook.recalc.run.operators import arith

    return arith("^", x, y)


def _log(x, base=None):
    (f, b), e = scalar_nums(x, base if base is not None else vec.const(10.0))
    with np.errstate(all="ignore"):
        r = np.log(f) / np.log(b)
    bad = (f <= 0) | (b <= 0)
    e = vec.add_error(e, np.broadcast_to(bad, r.shape), NUM)
    e = vec.add_error(e, np.broadcast_to((b == 1) & ~bad, r.shape), DIV0)
    return vec.finish(r, e)


def _sum(*args):
    vals, err = numbers(args)
    return result(added(vals), err)


def _product(*args):
    vals, err = numbers(args)
    used = ~np.isnan(vals)
    r = np.where(used.any(axis=1), np.prod(np.where(used, vals, 1.0), axis=1), 0.0)
    return result(r, err)


def _sumproduct(*args):
    arrays = [materialize(a) for a in args if a is not None]
    if not arrays or any(a.shape[1:] != arrays[0].shape[1:] for a in arrays):
        return vec.const(VALUE)
    prod = None
    for a in arrays:  # text, blanks and booleans in the arrays count as 0
        f = (
            a
            if a.dtype == vec.FLOAT
            else np.array([v if isinstance(v, float) else 0.0 for v in a.ravel().tolist()]).reshape(a.shape)
        )
        prod = f if prod is None else prod * f
    total = prod.reshape(prod.shape[0], -1).sum(axis=1)
    return result(total, row_errors(arrays))


def _sign(x):
    f, e = vec.nums(x)
    return vec.finish(np.sign(f), e)


def _sqrt(x):
    f, e = vec.nums(x)
    with np.errstate(all="ignore"):
        return vec.finish(np.sqrt(f), e)


def _trunc(x, digits=None):
    return _rounder("down")(x, digits)


FUNCTIONS = {
    "ABS": Spec(_unary(np.abs), 1, 1),
    "SQRT": Spec(_sqrt, 1, 1),
    "LN": Spec(_unary(np.log), 1, 1),
    "LOG10": Spec(_unary(np.log10), 1, 1),
    "LOG": Spec(_log, 1, 2),
    "EXP": Spec(_unary(np.exp), 1, 1),
    "POWER": Spec(_power, 2, 2),
    "MOD": Spec(_mod, 2, 2),
    "INT": Spec(_int, 1, 1),
    "TRUNC": Spec(_trunc, 1, 2),
    "SIGN": Spec(_sign, 1, 1),
    "ROUND": Spec(_rounder("half"), 2, 2),
    "ROUNDUP": Spec(_rounder("up"), 2, 2),
    "ROUNDDOWN": Spec(_rounder("down"), 2, 2),
    "PI": Spec(lambda: vec.const(np.pi), 0, 0),
    "SUM": Spec(_sum, 1, 255, "r"),
    "PRODUCT": Spec(_product, 1, 255, "r"),
    "SUMPRODUCT": Spec(_sumproduct, 1, 255, "r", array=True),
}
