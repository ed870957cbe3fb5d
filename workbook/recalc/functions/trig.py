"""Math and trigonometry, continued: SIN ... TANH, ATAN2, RADIANS, DEGREES, and rounding to a
multiple: CEILING, FLOOR, MROUND, EVEN, ODD (Excel 2010+ rules).

- ATAN2(x, y) is the angle of the point (x, y) (Excel's argument order); (0, 0) is #DIV/0!.
- CEILING(number, significance) rounds away from zero to a multiple of significance, except that a
  negative number with a positive significance rounds toward zero; a positive number with a
  negative significance is #NUM!; a significance of 0 gives 0. FLOOR is the mirror image, with a
  significance of 0 #DIV/0!. MROUND(number, multiple) rounds half away from zero; different signs
  are #NUM!. Quotients are taken at 15 significant digits, as Excel computes them, so
  CEILING(0.3, 0.1) is 0.3.
- CEILING.MATH(number, [significance], [mode]) rounds up (toward +infinity) to a multiple of
  |significance| (default 1; 0 gives 0); a negative number with a non-zero mode rounds away from
  zero instead. FLOOR.MATH rounds down, a negative number with a non-zero mode toward zero.
  CEILING.PRECISE and ISO.CEILING are CEILING.MATH without mode, FLOOR.PRECISE is FLOOR.MATH
  without mode (Microsoft's function reference).
"""

from __future__ import annotations

import numpy as np

from gputco.workbook.recalc.run import vec
from gputco.workbook.recalc.run.values import DIV0, NUM

from ._args import Spec, scalar_nums
from .math import _approx15


def _unary(func, domain=None):
    def impl(x):
        (f,), e = scalar_nums(x)
        with np.errstate(all="ignore"):
            out = func(f)
        if domain is not None:
            e = vec.add_error(e, np.broadcast_to(~domain(f), out.shape), NUM)
        return vec.finish(out, e)

    return impl


def _atan2(x, y):
    (a, b), e = scalar_nums(x, y)
    out = np.arctan2(b, a)
    return vec.finish(out, vec.add_error(e, np.broadcast_to((a == 0) & (b == 0), out.shape), DIV0))


def _quotient(n, s):
    with np.errstate(all="ignore"):
        q = n / s
    return np.sign(q) * _approx15(np.abs(q))


def _ceiling(number, significance):
    (n, s), e = scalar_nums(number, significance)
    q = _quotient(n, s)
    with np.errstate(all="ignore"):
        # up in the quotient: away from zero when number and significance share a sign, toward
        # zero for a negative number with a positive significance
        out = np.where(s == 0, 0.0, _snap(np.ceil(q) * s))
    bad = (n > 0) & (s < 0)
    return vec.finish(out, vec.add_error(e, np.broadcast_to(bad, out.shape), NUM))


def _floor(number, significance):
    (n, s), e = scalar_nums(number, significance)
    q = _quotient(n, s)
    with np.errstate(all="ignore"):
        k = np.where((n < 0) & (s > 0), np.floor(q), np.trunc(q))
        k = np.where((n < 0) & (s < 0), np.trunc(q), k)
        k = np.where(n >= 0, np.floor(q), k)
        out = _snap(k * s)
    e = vec.add_error(e, np.broadcast_to((s == 0) & (n != 0), out.shape), DIV0)
    out = np.where((s == 0) & (n == 0), 0.0, out)
    bad = (n > 0) & (s < 0)
    return vec.finish(out, vec.add_error(e, np.broadcast_to(bad, out.shape), NUM))


def _mround(number, multiple):
    (n, m), e = scalar_nums(number, multiple)
    q = _quotient(n, m)
    with np.errstate(all="ignore"):
        k = np.sign(q) * np.floor(np.abs(q) + 0.5)
        out = np.where(m == 0, 0.0, _snap(k * m))
    bad = n * m < 0
    return vec.finish(out, vec.add_error(e, np.broadcast_to(bad, out.shape), NUM))


def _math_multiple(up: bool):
    def impl(number, significance=None, mode=None):
        (n, s, md), e = scalar_nums(
            number,
            vec.const(1.0) if significance is None else significance,
            vec.const(0.0) if mode is None else mode,
        )
        s = np.abs(s)
        q = _quotient(n, s)
        with np.errstate(all="ignore"):
            flip = (n < 0) & (md != 0)
            k = np.where(flip, np.floor(q), np.ceil(q)) if up else np.where(flip, np.ceil(q), np.floor(q))
            out = np.where(s == 0, 0.0, _snap(k * s))
        return vec.finish(out, e)

    return impl


def _snap(x):
    """Products such as 3 * 0.1 back to the 15-digit value Excel shows (0.3)."""
    return np.sign(x) * _approx15(np.abs(x))


def _even_odd(odd: bool):
    def impl(number):
        (n,), e = scalar_nums(number)
        a = np.ceil(_approx15(np.abs(n)))
        if odd:
            a = np.where(a % 2 == 0, a + 1, a)
        else:
            a = np.where(a % 2 == 1, a + 1, a)
        return vec.finish(np.sign(n) * a + np.where((n == 0) & odd, 1.0, 0.0), e)

    return impl


FUNCTIONS = {
    "SIN": Spec(_unary(np.sin), 1, 1),
    "COS": Spec(_unary(np.cos), 1, 1),
    "TAN": Spec(_unary(np.tan), 1, 1),
    "ASIN": Spec(_unary(np.arcsin, lambda f: np.abs(f) <= 1), 1, 1),
    "ACOS": Spec(_unary(np.arccos, lambda f: np.abs(f) <= 1), 1, 1),
    "ATAN": Spec(_unary(np.arctan), 1, 1),
    "ATAN2": Spec(_atan2, 2, 2),
    "SINH": Spec(_unary(np.sinh), 1, 1),
    "COSH": Spec(_unary(np.cosh), 1, 1),
    "TANH": Spec(_unary(np.tanh), 1, 1),
    "RADIANS": Spec(_unary(np.radians), 1, 1),
    "DEGREES": Spec(_unary(np.degrees), 1, 1),
    "CEILING": Spec(_ceiling, 2, 2),
    "FLOOR": Spec(_floor, 2, 2),
    "MROUND": Spec(_mround, 2, 2),
    "CEILING.MATH": Spec(_math_multiple(True), 1, 3),
    "FLOOR.MATH": Spec(_math_multiple(False), 1, 3),
    "CEILING.PRECISE": Spec(_math_multiple(True), 1, 2),
    "ISO.CEILING": Spec(_math_multiple(True), 1, 2),
    "FLOOR.PRECISE": Spec(_math_multiple(False), 1, 2),
    "EVEN": Spec(_even_odd(False), 1, 1),
    "ODD": Spec(_even_odd(True), 1, 1),
}
