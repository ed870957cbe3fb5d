"""Excel's operators over vectorised values: arithmetic, comparison, ``&``, unary minus, ``%``.

Addition and subtraction snap results that cancel to within 15 significant digits to zero, and
comparisons treat numbers equal to 15 digits as equal, as both Excel and LibreOffice do
(``=0.1+0.2-0.3`` is 0, ``=0.1+0.2=0.3`` is TRUE).
"""

from __future__ import annotations

import numpy as np

from gputco.workbook.recalc.base import vec
from gputco.workbook.recalc.base.values import DIV0, EPS48, NUM, XlError, compare

_ARITH = frozenset("+-*/^")
_COMPARE = frozenset(("=", "<>", "<", ">", "<=", ">="))


def binary(op: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Apply an infix operator to two values (arrays of shape (m, h, w)), expanded to one size
    as Excel does (:func:`vec.expand`)."""
    a, b = vec.expand(a, b)
    if op in _ARITH:
        return arith(op, a, b)
    if op in _COMPARE:
        return comparison(op, a, b)
    if op == "&":
        return concat(a, b)
    raise ValueError(f"not a value operator: {op!r}")


def arith(op: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``+ - * / ^`` with Excel's errors: #DIV/0! for x/0 and 0^-1, #NUM! for overflow and
    roots of negatives, input errors first (leftmost wins).

    >>> arith("/", vec.const(1.0), vec.const(0.0))[0, 0, 0]
    #DIV/0!
    >>> float(arith("-", arith("+", vec.const(0.1), vec.const(0.2)), vec.const(0.3))[0, 0, 0])
    0.0
    """
    fa, ea = vec.nums(a)
    fb, eb = vec.nums(b)
    errs = vec.merge(ea, eb)
    with np.errstate(all="ignore"):
        if op == "+":
            r = _snap(fa + fb, fa)
        elif op == "-":
            r = _snap(fa - fb, fa)
        elif op == "*":
            r = fa * fb
        elif op == "/":
            r = fa / fb
            zero = fb == 0.0
            if zero.any():
                errs = vec.add_error(errs, np.broadcast_to(zero, r.shape), DIV0)
        else:
            r, errs = _power(fa, fb, errs)
    return vec.finish(r, errs)


def _snap(r: np.ndarray, a: np.ndarray) -> np.ndarray:
    """Zero where a sum cancels to within Excel's 15 digits (rtl::math::approxAdd)."""
    tiny = np.abs(r) < np.abs(a) * EPS48
    if tiny.any():
        r = np.where(tiny, 0.0, r)
    return r


def _power(fa: np.ndarray, fb: np.ndarray, errs):
    r = np.power(fa, fb)
    zero_neg = (fa == 0.0) & (fb < 0.0)
    if zero_neg.any():
        errs = vec.add_error(errs, np.broadcast_to(zero_neg, r.shape), DIV0)
    # Excel: 0^0 is #NUM!; negative base with a non-integer exponent is #NUM! (nan already)
    zero_zero = (fa == 0.0) & (fb == 0.0)
    if zero_zero.any():
        errs = vec.add_error(errs, np.broadcast_to(zero_zero, r.shape), NUM)
    return r, errs


def negate(a: np.ndarray) -> np.ndarray:
    fa, ea = vec.nums(a)
    return vec.finish(-fa, ea)


def percent(a: np.ndarray) -> np.ndarray:
    fa, ea = vec.nums(a)
    return vec.finish(fa / 100.0, ea)


def comparison(op: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``= <> < > <= >=``: numbers to 15 digits, text case-insensitive, numbers < text < TRUE/FALSE.

    >>> bool(comparison("=", vec.const("abc"), vec.const("ABC"))[0, 0, 0])
    True
    """
    if a.dtype == vec.FLOAT and b.dtype == vec.FLOAT:
        with np.errstate(all="ignore"):
            eq = (a == b) | (np.abs(a - b) < np.maximum(np.abs(a), np.abs(b)) * EPS48)
        if op == "=":
            return eq
        if op == "<>":
            return ~eq
        if op == "<":
            return (a < b) & ~eq
        if op == ">":
            return (a > b) & ~eq
        if op == "<=":
            return (a < b) | eq
        return (a > b) | eq
    test = ORDER_TESTS[op]

    def one(x, y):
        c = compare(x, y)
        return c if isinstance(c, XlError) else test(c)

    return vec.elementwise(one, a, b)


#: each comparison operator as a test of a three-way comparison (values.compare's -1, 0, 1)
ORDER_TESTS = {
    "=": lambda c: c == 0,
    "<>": lambda c: c != 0,
    "<": lambda c: c < 0,
    ">": lambda c: c > 0,
    "<=": lambda c: c <= 0,
    ">=": lambda c: c >= 0,
}


def concat(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``&``: both sides as text (numbers in General format, TRUE as "TRUE").

    >>> concat(vec.const("x"), vec.const(1.5))[0, 0, 0]
    'x1.5'
    """
    ta, ea = vec.texts(a)
    tb, eb = vec.texts(b)
    return vec.with_errors(vec.cap_text(ta + tb), vec.merge(ea, eb))
