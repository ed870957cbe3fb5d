"""Excel's Math and trigonometry functions (SUBTOTAL and AGGREGATE included).

Math and trigonometry: ABS ... SUMPRODUCT (Excel's "Math & Trig" category).

- FACT(number) and COMBIN(number, number_chosen) truncate their arguments; a negative one (or
  number < number_chosen) is #NUM!, and so is a factorial past 170! (beyond Excel's largest number).
- SUMSQ adds the squares of the numbers SUM would add. SUMX2MY2, SUMX2PY2 and SUMXMY2 pair the
  elements of two arrays in reading order (the counts must agree, else #N/A; the shapes need not),
  use only pairs of two numbers, and are #DIV/0! without one (Excel's values in POI's
  FormulaEvalTestData_Copy.xlsx).

Math and trigonometry, continued: SIN ... TANH, ASINH, ACOSH (#NUM! below 1), ATANH (#NUM!
outside (-1, 1)), ATAN2, RADIANS, DEGREES, and rounding to a
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

Math and trigonometry, more (Excel 2013's and the Analysis ToolPak's): ACOT, ACOTH, COT, COTH,
CSC, CSCH, SEC, SECH (|x| < 2^27, else #NUM!; a pole at 0 #DIV/0!), ROMAN (forms 0..4, TRUE
classic, FALSE simplified) and ARABIC, BASE and DECIMAL (radix 2..36), COMBINA, FACTDOUBLE,
GCD, LCM and MULTINOMIAL (lists of numbers, references included: a blank cell, a logical value
or a text in them is #VALUE!, as Excel cached in an Excel-saved workbook), MUNIT (an array),
QUOTIENT, SERIESSUM, SQRTPI. Each function's rule and source is in its docstring.

SUBTOTAL and AGGREGATE: an aggregate over references that skips other subtotals' cells.

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

import datetime as _dt
import functools
import math

import numpy as np

from gputco.workbook.recalc.base import vec
from gputco.workbook.recalc.base.rangeval import RangeVal, materialize
from gputco.workbook.recalc.base.values import CALC, DIV0, NA, NUM, VALUE, XlError, to_number, to_text
from gputco.workbook.recalc.formula.parse import Binary, Call, Node, Unary

from . import statistical as _stats
from ._args import (
    Spec,
    added,
    int_arg,
    numbers,
    paired_numbers,
    result,
    row_errors,
    scalar_function,
    scalar_nums,
)
from .datetime import clock_functions

# --- math ------------------------------------------------------------------------------------------------


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
            out = np.sign(f) * r / up * down
            # 10^digits past the largest number: more decimals than any number has keeps it, so
            # many digits left of the point makes it 0 (ROUND(2.5, 1000) is 2.5, as LibreOffice)
            out = np.where(d > 308, f, np.where(d < -308, 0.0 * f, out))
            return vec.finish(out, e)

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
    from gputco.workbook.recalc.base.operators import arith

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
    if not arrays:
        return vec.const(VALUE)
    if any(a.shape[1:] != arrays[0].shape[1:] for a in arrays):
        # arrays of different sizes: #VALUE!, but an error value in them first (formulas'
        # test.xlsx MATH & TRIG!AE75 =SUMPRODUCT(P75:Q75,H75:I75,I75:K75) with P75 #NUM! is #NUM!)
        err = row_errors(arrays)
        if err is None:
            return vec.const(VALUE)
        return np.array([VALUE if e is None else e for e in err], dtype=object).reshape(-1, 1, 1)
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


def _fact(n: float) -> float | XlError:
    """FACT(number): number truncated; negative #NUM!; past 170! a float overflows (#NUM!)."""
    k = math.trunc(n)
    return NUM if k < 0 or k > 170 else float(math.factorial(k))


def _combin(n: float, k: float) -> float | XlError:
    """COMBIN(number, number_chosen): both truncated; negative or number < number_chosen #NUM!."""
    a, b = math.trunc(n), math.trunc(k)
    return NUM if a < 0 or b < 0 or a < b else float(math.comb(a, b))


def _sumsq(*args):
    vals, err = numbers(args)
    return result(added(vals * vals), err)


def _paired(term):
    """SUMX2MY2, SUMX2PY2, SUMXMY2: the two arrays' elements paired in reading order (their
    counts must agree, else #N/A), only pairs where both are numbers taking part; no such pair is
    #DIV/0! (POI's FormulaEvalTestData_Copy.xlsx, saved by Excel); the first error wins."""

    def impl(x, y):
        pairs = paired_numbers(x, y)
        if pairs is None:
            return vec.const(NA)
        fa, fb, both, errors = pairs
        r = np.where(both.any(axis=1), added(np.where(both, term(fa, fb), np.nan)), np.nan)
        return result(r, errors, bad=DIV0)

    return impl


_MATH_FUNCTIONS = {
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
    "FACT": Spec(scalar_function(_fact, 1), 1, 1),
    "COMBIN": Spec(scalar_function(_combin, 2), 2, 2),
    "SUMSQ": Spec(_sumsq, 1, 255, "r"),
    "SUMX2MY2": Spec(_paired(lambda a, b: a * a - b * b), 2, 2, "r", array=True),
    "SUMX2PY2": Spec(_paired(lambda a, b: a * a + b * b), 2, 2, "r", array=True),
    "SUMXMY2": Spec(_paired(lambda a, b: (a - b) ** 2), 2, 2, "r", array=True),
}


# --- trig ------------------------------------------------------------------------------------------------


def _trig_unary(func, domain=None):
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


def _num_where(out, e, bad):
    """The result, #NUM! where ``bad`` (a number and a significance or multiple of opposite signs)."""
    return vec.finish(out, vec.add_error(e, np.broadcast_to(bad, out.shape), NUM))


def _ceiling(number, significance):
    (n, s), e = scalar_nums(number, significance)
    q = _quotient(n, s)
    with np.errstate(all="ignore"):
        # up in the quotient: away from zero when number and significance share a sign, toward
        # zero for a negative number with a positive significance
        out = np.where(s == 0, 0.0, _snap(np.ceil(q) * s))
    return _num_where(out, e, (n > 0) & (s < 0))


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
    return _num_where(out, e, (n > 0) & (s < 0))


def _mround(number, multiple):
    (n, m), e = scalar_nums(number, multiple)
    q = _quotient(n, m)
    with np.errstate(all="ignore"):
        k = np.sign(q) * np.floor(np.abs(q) + 0.5)
        out = np.where(m == 0, 0.0, _snap(k * m))
    return _num_where(out, e, n * m < 0)


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


_TRIG_FUNCTIONS = {
    "SIN": Spec(_trig_unary(np.sin), 1, 1),
    "COS": Spec(_trig_unary(np.cos), 1, 1),
    "TAN": Spec(_trig_unary(np.tan), 1, 1),
    "ASIN": Spec(_trig_unary(np.arcsin, lambda f: np.abs(f) <= 1), 1, 1),
    "ACOS": Spec(_trig_unary(np.arccos, lambda f: np.abs(f) <= 1), 1, 1),
    "ATAN": Spec(_trig_unary(np.arctan), 1, 1),
    "ATAN2": Spec(_atan2, 2, 2),
    "SINH": Spec(_trig_unary(np.sinh), 1, 1),
    "COSH": Spec(_trig_unary(np.cosh), 1, 1),
    "TANH": Spec(_trig_unary(np.tanh), 1, 1),
    "ASINH": Spec(_trig_unary(np.arcsinh), 1, 1),
    "ACOSH": Spec(_trig_unary(np.arccosh, lambda f: f >= 1), 1, 1),
    "ATANH": Spec(_trig_unary(np.arctanh, lambda f: np.abs(f) < 1), 1, 1),
    "RADIANS": Spec(_trig_unary(np.radians), 1, 1),
    "DEGREES": Spec(_trig_unary(np.degrees), 1, 1),
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


# --- more math: reciprocal trig, Roman and other bases, number theory, MUNIT, SERIESSUM ------------

#: the largest angle the reciprocal trig functions take (Microsoft's COT, CSC, SEC, COTH, CSCH,
#: SECH pages: "The absolute value of Number must be less than 2^27", else #NUM!)
_MAX_ANGLE = 2.0**27
#: BASE's, GCD's and LCM's bound (their pages: numbers less than 2^53)
_WHOLE_LIMIT = 2.0**53
_LOG_LARGEST = math.log(1.7976931348623158e308)


def _reciprocal(func, zero_pole: bool):
    """COT, CSC, COTH, CSCH (a pole at 0: #DIV/0!, as COT's page says of COT(0)) and SEC, SECH:
    1 / func(x) for |x| < 2^27 (#NUM! beyond). A hyperbolic function past the largest number
    gives 0 (its reciprocal is below the smallest), not #NUM!."""

    def one(x: float) -> float | XlError:
        if abs(x) >= _MAX_ANGLE:
            return NUM
        if zero_pole and x == 0:
            return DIV0
        try:
            return 1.0 / func(x)
        except OverflowError:
            return 0.0

    return one


def _acot(x: float) -> float:
    """ACOT(number): the angle in (0, pi) whose cotangent is number (Microsoft's ACOT page)."""
    return math.atan2(1.0, x)


def _acoth(x: float) -> float | XlError:
    """ACOTH(number): atanh(1/number); |number| <= 1 is #NUM! (Excel-saved test.xlsx, MATH & TRIG
    R7:W7: ACOTH of 0, 1 and -1 are #NUM!)."""
    return NUM if abs(x) <= 1 else math.atanh(1.0 / x)


def _sqrtpi(x: float) -> float | XlError:
    """SQRTPI(number): sqrt(number * pi); number < 0 is #NUM!."""
    return NUM if x < 0 else math.sqrt(x * math.pi)


def _quotient_int(n: float, d: float) -> float | XlError:
    """QUOTIENT(numerator, denominator): the integer part of the quotient (toward zero), taken at
    15 significant digits as the rounding functions take theirs; a denominator of 0 is #DIV/0!
    (not on Microsoft's page; exceltip.com's #DIV/0! article shows Excel's QUOTIENT of a blank
    denominator so; LibreOffice #VALUE!)."""
    if d == 0:
        return DIV0
    q = n / d
    return math.copysign(math.trunc(float(_approx15(np.array([abs(q)]))[0])), q) + 0.0


def _binomial(n: int, k: int) -> float | XlError:
    """C(n, k) as a float; #NUM! past the largest number (checked on its logarithm first, so a
    huge n never builds a huge integer)."""
    k = min(k, n - k)
    if k < 0:
        return 0.0
    if math.lgamma(n + 1.0) - math.lgamma(k + 1.0) - math.lgamma(n - k + 1.0) > _LOG_LARGEST + 1:
        return NUM
    return float(math.comb(n, k))


def _combina(n: float, k: float) -> float | XlError:
    """COMBINA(number, number_chosen): C(number + number_chosen - 1, number - 1), both truncated
    (Microsoft's COMBINA page, its equation; so 0 for a number of 0, as LibreOffice gives). Both
    must be >= 0 and number >= number_chosen, else #NUM! (the page's constraints); a result past
    the largest number is #NUM!."""
    a, b = math.trunc(n), math.trunc(k)
    if a < 0 or b < 0 or a < b:
        return NUM
    return 0.0 if a == 0 else _binomial(a + b - 1, b)


def _factdouble(x: float) -> float | XlError:
    """FACTDOUBLE(number): n!! of number truncated, n (n-2) (n-4) ... down to 2 or 1; 0!! and
    (-1)!! are 1. Below -1 is #NUM! (Excel-saved test.xlsx, MATH & TRIG V31, T31: FACTDOUBLE(-1)
    is 1, FACTDOUBLE(-1.1) #NUM!; Microsoft's page says "If number is negative ... #NUM!")."""
    if x < -1:
        return NUM
    k = math.trunc(x)
    if k > 400:
        return NUM  # 301!! is past the largest number already
    out = 1
    for j in range(k, 1, -2):
        out *= j
    return float(out)


# --- BASE, DECIMAL, ROMAN, ARABIC -------------------------------------------------------------------

_DIGITS36 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _base(number: float, radix: float, min_length: float | None = None) -> str | XlError:
    """BASE(number, radix, [min_length]): number (0 <= number < 2^53) written in radix (2..36),
    padded with zeros to min_length (0..255); each truncated; outside the bounds #NUM!
    (Microsoft's BASE page)."""
    n, r = math.trunc(number), math.trunc(radix)
    width = 0 if min_length is None else math.trunc(min_length)
    if not 0 <= number < _WHOLE_LIMIT or not 2 <= r <= 36 or not 0 <= width <= 255:
        return NUM
    digits = ""
    while True:
        n, d = divmod(n, r)
        digits = _DIGITS36[d] + digits
        if not n:
            break
    return digits.rjust(width, "0")


def _first_error(*values) -> XlError | None:
    """The first of ``values`` that is an error (arguments, then what they read as, in order)."""
    return next((v for v in values if isinstance(v, XlError)), None)


def _decimal(text, radix) -> float | XlError:
    """DECIMAL(text, radix): the text's digits read in radix (2..36, truncated, else #NUM!),
    letters in either case; a character that is not a digit of the radix is #NUM! (Excel-saved
    test.xlsx, MATH & TRIG R26:Y26: DECIMAL("FF",16.6) 255, DECIMAL(111,2.5) 7, DECIMAL(113,2)
    #NUM!, DECIMAL("FF",15) #NUM!, a blank or TRUE radix #NUM!, DECIMAL("FF","ciao") #VALUE!); a
    text longer than 255 characters is #VALUE! (Microsoft's DECIMAL page: "must be less than or
    equal to 255")."""
    r, t = to_number(radix), to_text(text)
    bad = _first_error(text, radix, r, t)
    if bad is not None:
        return bad
    if len(t) > 255:
        return VALUE
    if not 2 <= r < 37:
        return NUM
    r = math.trunc(r)
    total = 0
    for ch in t.upper():
        d = _DIGITS36.find(ch)
        if d < 0 or d >= r:
            return NUM
        total = total * r + d
    try:
        return float(total)
    except OverflowError:
        return NUM  # past the largest number


_ROMAN_VALUES = (1, 5, 10, 50, 100, 500, 1000)
_ROMAN_LETTERS = "IVXLCDM"


def _roman_terms(form: int) -> list[tuple[int, str]]:
    """The symbols and subtractive pairs ROMAN may write in a form, largest first. A pair puts a
    smaller symbol before a larger one: classic (form 0) only the power of ten just below (IV,
    IX, XL, XC, CD, CM); each form up to 4 allows the next smaller symbol too (form 1: VL, VC,
    LD, LM; ... form 4: ID, IM), which makes the numerals more concise, as Microsoft's ROMAN
    page shows for 499 (CDXCIX, LDVLIV, XDIX, VDIV, ID) and the Excel-saved test.xlsx for 999
    (MATH & TRIG R58:V58: CMXCIX, LMVLIV, XMIX, VMIV, IM)."""
    terms = list(zip(_ROMAN_VALUES, _ROMAN_LETTERS, strict=True))
    for j in range(1, len(_ROMAN_VALUES)):
        classic = j - 2 if j % 2 == 0 else j - 1
        for i in range(max(0, classic - form), classic + 1):
            terms.append((_ROMAN_VALUES[j] - _ROMAN_VALUES[i], _ROMAN_LETTERS[i] + _ROMAN_LETTERS[j]))
    return sorted(terms, reverse=True)


_ROMAN_TERMS = tuple(_roman_terms(f) for f in range(5))


def _roman_form(form) -> int | XlError:
    """ROMAN's form: omitted, blank or TRUE is 0 (classic), FALSE 4 (simplified), a number
    truncated to 0..4 (else #VALUE!)."""
    if form is None or form is True:
        return 0
    if form is False:
        return 4
    f = to_number(form)
    if isinstance(f, XlError):
        return f
    return math.trunc(f) if 0 <= f < 5 else VALUE


def _roman(number, form=None) -> str | XlError:
    """ROMAN(number, [form]): number truncated; negative or above 3999 #VALUE!, 0 the empty
    text (Microsoft's ROMAN page; test.xlsx MATH & TRIG AH58, ROMAN(0), is empty). Greedy: the
    largest symbol or pair of the form that fits, again and again."""
    n, k = to_number(number), _roman_form(form)
    bad = _first_error(number, form, n, k)
    if bad is not None:
        return bad
    if not 0 <= n < 4000:
        return VALUE
    left, out = math.trunc(n), []
    for value, letters in _ROMAN_TERMS[k]:
        while left >= value:
            out.append(letters)
            left -= value
    return "".join(out)


def _arabic(text) -> float | XlError:
    """ARABIC(text): a Roman numeral's value, in either case, spaces around it ignored, a leading
    minus allowed, "" 0 (Microsoft's ARABIC page). Read from the right, a symbol smaller than one
    after it is subtracted, the others added (test.xlsx MATH & TRIG S9:V9: "IL" 49, "IIIIIIV" -1,
    "IILmIIC" 1046; Microsoft: "mxmvii" 1997). A number, a logical value or another character is
    #VALUE! (test.xlsx R9, Y9, U9 "Vh"), and so is a text of more than 255 characters; a blank
    cell is 0 (W9)."""
    if isinstance(text, XlError):
        return text
    if text is None:
        return 0.0
    if not isinstance(text, str) or len(text) > 255:
        return VALUE
    t = text.strip().upper()
    sign = 1.0
    if t.startswith("-"):
        sign, t = -1.0, t[1:]
    total, top = 0, 0
    for ch in reversed(t):
        i = _ROMAN_LETTERS.find(ch)
        if i < 0:
            return VALUE
        v = _ROMAN_VALUES[i]
        if v < top:
            total -= v
        else:
            total, top = total + v, v
    return sign * total + 0.0


def _element_wise(func):
    """A function of raw element values (errors, blanks, logical values and texts as they are),
    over its broadcast arguments, returning texts or numbers (DECIMAL, ROMAN, ARABIC)."""

    def impl(*args):
        return vec.elementwise(func, *(vec.const(None) if a is None else a for a in args))

    return functools.update_wrapper(impl, func)


# --- GCD, LCM, MULTINOMIAL, SERIESSUM's coefficients: lists of numbers -----------------------------


def _list_numbers(args) -> list[list[float] | XlError]:
    """The numbers of an Analysis ToolPak list (GCD, LCM, MULTINOMIAL, SERIESSUM's coefficients),
    one list per formula cell, or the cell's first error in argument and reading order: the
    elements of references and arrays and the values typed are all taken; a number-text is its
    number; a blank cell, a logical value or another text is #VALUE! (Excel-saved test.xlsx,
    MATH & TRIG R34:AW34: GCD of a blank cell, of "ciao", of TRUE are #VALUE!, GCD(C34:F34) of
    four numbers is 1, GCD(N34,K34:L34) the first error, #NAME?)."""
    arrays = [materialize(a) for a in args if a is not None]
    m = max((a.shape[0] for a in arrays), default=1)
    out: list[list[float] | XlError] = []
    for i in range(m):
        nums: list[float] = []
        bad = None
        for a in arrays:
            for v in a[min(i, a.shape[0] - 1)].ravel().tolist():
                if isinstance(v, XlError):
                    bad = v
                elif v is None or isinstance(v, bool):
                    bad = VALUE
                elif isinstance(v, str):
                    v = to_number(v)
                    bad = v if isinstance(v, XlError) else None
                if bad is not None:
                    break
                nums.append(float(v))
            if bad is not None:
                break
        out.append(nums if bad is None else bad)
    return out


def _per_cell(rows) -> np.ndarray:
    """(m, 1, 1) results from one float or error a cell."""
    out = np.empty(len(rows), dtype=vec.OBJ)
    out[:] = rows
    if not any(isinstance(r, XlError) for r in rows):
        return out.astype(vec.FLOAT).reshape(-1, 1, 1)
    return out.reshape(-1, 1, 1)


def _list_function(func):
    """GCD, LCM, MULTINOMIAL: ``func(numbers)`` of each cell's list (:func:`_list_numbers`)."""

    def impl(*args):
        return _per_cell([r if isinstance(r, XlError) else func(r) for r in _list_numbers(args)])

    return functools.update_wrapper(impl, func)


def _whole(nums: list[float]) -> list[int] | XlError:
    """GCD's and LCM's numbers truncated: a negative one, or one of 2^53 or more, is #NUM!
    (Microsoft's GCD and LCM pages; test.xlsx MATH & TRIG U34: GCD(-0.4) is #NUM!)."""
    if any(x < 0 or x >= _WHOLE_LIMIT for x in nums):
        return NUM
    return [math.trunc(x) for x in nums]


def _gcd(nums: list[float]) -> float | XlError:
    """GCD(number1, ...): the greatest common divisor of the numbers truncated; GCD(0) is 0."""
    ints = _whole(nums)
    return ints if isinstance(ints, XlError) else float(math.gcd(*ints))


def _lcm(nums: list[float]) -> float | XlError:
    """LCM(number1, ...): the least common multiple of the numbers truncated, 0 if one is 0;
    2^53 or more is #NUM! (Microsoft's LCM page)."""
    ints = _whole(nums)
    if isinstance(ints, XlError):
        return ints
    out = math.lcm(*ints)
    return NUM if out >= _WHOLE_LIMIT else float(out)


def _multinomial(nums: list[float]) -> float | XlError:
    """MULTINOMIAL(number1, ...): (sum of the numbers)! / (product of their factorials), the
    numbers truncated; a negative one is #NUM! (Microsoft's MULTINOMIAL page), and so is a
    result past the largest number."""
    if any(x < 0 for x in nums):
        return NUM
    total, out = 0, 1.0
    for k in (math.trunc(x) for x in nums):  # the product of C(k1 + ... + ki, ki)
        total += k
        b = _binomial(total, k)
        if isinstance(b, XlError):
            return b
        out *= b
        if not math.isfinite(out):
            return NUM
    return out


def _seriessum(x, n, m, coefficients):
    """SERIESSUM(x, n, m, coefficients): the sum of a_i x^(n + i m) over the coefficients in
    reading order (Microsoft's SERIESSUM page); 0 to a negative power is #NUM!."""
    (fx, fn, fm), errs = scalar_nums(x, n, m)
    lists = _list_numbers([coefficients])
    shape = np.broadcast_shapes(fx.shape, fn.shape, fm.shape, (len(lists), 1, 1))
    xs, ns, ms = (np.broadcast_to(v, shape).ravel().tolist() for v in (fx, fn, fm))
    per_cell = shape[1] * shape[2]
    out = []
    for i in range(len(xs)):
        a = lists[min(i // per_cell, len(lists) - 1)]
        if isinstance(a, XlError):
            out.append(a)
            continue
        try:
            out.append(math.fsum(c * math.pow(xs[i], ns[i] + j * ms[i]) for j, c in enumerate(a)))
        except (OverflowError, ValueError, ZeroDivisionError):
            out.append(NUM)
    return vec.finish(_per_cell(out).reshape(shape), errs)


# --- MUNIT -------------------------------------------------------------------------------------------


def _munit(dimension):
    """MUNIT(dimension): the dimension x dimension unit matrix, dimension truncated; below 1 is
    #VALUE! (Microsoft's MUNIT page; test.xlsx MATH & TRIG R47:Z47: MUNIT(0), MUNIT(-0.2), of a
    blank cell #VALUE!, MUNIT(2.3) a 2 x 2 matrix, MUNIT(TRUE) 1). An array of dimensions is
    lifted by the evaluator, a cell showing each matrix's top-left (test.xlsx CORE!P31
    =SUM(MUNIT({1,2;3,4;7,8})) is 6)."""
    (d,), errs = scalar_nums(dimension)
    if d.size != 1:
        raise ValueError("MUNIT of several dimensions")  # lifted, or evaluated cell by cell
    if errs is not None:
        return vec.const(errs[1].ravel()[0])
    k = math.trunc(d.item()) if math.isfinite(d.item()) else -1
    if k < 1:
        return vec.const(VALUE)
    if k * k > 1 << 20:
        raise ValueError(f"MUNIT of {k:,} x {k:,} cells")
    return np.eye(k, dtype=vec.FLOAT).reshape(1, k, k)


_MORE_FUNCTIONS = {
    "ACOT": Spec(scalar_function(_acot, 1), 1, 1),
    "ACOTH": Spec(scalar_function(_acoth, 1), 1, 1),
    "COT": Spec(scalar_function(_reciprocal(math.tan, True), 1), 1, 1),
    "COTH": Spec(scalar_function(_reciprocal(math.tanh, True), 1), 1, 1),
    "CSC": Spec(scalar_function(_reciprocal(math.sin, True), 1), 1, 1),
    "CSCH": Spec(scalar_function(_reciprocal(math.sinh, True), 1), 1, 1),
    "SEC": Spec(scalar_function(_reciprocal(math.cos, False), 1), 1, 1),
    "SECH": Spec(scalar_function(_reciprocal(math.cosh, False), 1), 1, 1),
    "SQRTPI": Spec(scalar_function(_sqrtpi, 1), 1, 1),
    "QUOTIENT": Spec(scalar_function(_quotient_int, 2), 2, 2),
    "COMBINA": Spec(scalar_function(_combina, 2), 2, 2),
    "FACTDOUBLE": Spec(scalar_function(_factdouble, 1), 1, 1),
    "BASE": Spec(scalar_function(_base, 2, text=True), 2, 3),
    "DECIMAL": Spec(_element_wise(_decimal), 2, 2),
    "ROMAN": Spec(_element_wise(_roman), 1, 2),
    "ARABIC": Spec(_element_wise(_arabic), 1, 1),
    "GCD": Spec(_list_function(_gcd), 1, 255, "r"),
    "LCM": Spec(_list_function(_lcm), 1, 255, "r"),
    "MULTINOMIAL": Spec(_list_function(_multinomial), 1, 255, "r"),
    "SERIESSUM": Spec(_seriessum, 4, 4, "vvvr"),
    "MUNIT": Spec(_munit, 1, 1),
}


# --- subtotal --------------------------------------------------------------------------------------------

#: SUBTOTAL's functions by function_num 1-11 (101-111 the same, skipping hidden rows)
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
#: AGGREGATE's by function_num 1-19: SUBTOTAL's first six (1-6), then 7-11 by their newer names, then 12-19
AGGREGATE_FUNCS = (
    *SUBTOTAL_FUNCS[:6],
    *("STDEV.S", "STDEV.P", "SUM", "VAR.S", "VAR.P", "MEDIAN", "MODE.SNGL", "LARGE", "SMALL"),
    *("PERCENTILE.INC", "QUARTILE.INC", "PERCENTILE.EXC", "QUARTILE.EXC"),
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


_SUBTOTAL_FUNCTIONS = {
    "SUBTOTAL": Spec(_subtotal, 2, 255, "vr"),
    "AGGREGATE": Spec(_aggregate, 3, 255, "vvr"),
}

#: the functions SUBTOTAL and AGGREGATE apply, by name
_AGGREGATED = {n: {**_MATH_FUNCTIONS, **_stats.FUNCTIONS}[n] for n in {*SUBTOTAL_FUNCS, *AGGREGATE_FUNCS}}


FUNCTIONS = {**_MATH_FUNCTIONS, **_TRIG_FUNCTIONS, **_MORE_FUNCTIONS, **_SUBTOTAL_FUNCTIONS}


# --- the volatile functions at a pinned clock and seed -----------------------------------------
# The volatile functions at a pinned clock and seed: a recalculation that can be repeated.
#
# Excel recomputes NOW, TODAY, RAND, RANDBETWEEN and RANDARRAY on every recalculation, so their
# values are never those stored in the file. The engine evaluates them only when the caller pins
# them (``gputco recalc --now TIME --seed N``); without that, their cells are unsupported and keep
# their stored values.
#
# - NOW and TODAY: the time given (:func:`.datetime.clock_functions`).
# - RAND() (Microsoft's RAND page: "an evenly distributed random real number greater than or
#   equal to 0 and less than 1"): numpy's ``default_rng(seed).random()``, one draw per cell.
# - RANDBETWEEN(bottom, top): a whole number from bottom to top, both included (``integers(...,
#   endpoint=True)``). Microsoft's page says neither how fractional bounds are read nor which
#   error bottom above top gives; the engine does as LibreOffice 7.4 does (measured 2026-12-02:
#   RANDBETWEEN(1.5, 2.5) gives 2 or 3, RANDBETWEEN(-2.5, -1.5) -3 or -2, RANDBETWEEN(2, 1)
#   #VALUE!): both bounds rounded half away from zero, bottom above top #VALUE! (listed
#   undecided in docs/recalc-excel-rules.md); text that is not a number is #VALUE!.
# - RANDARRAY([rows=1], [columns=1], [min=0], [max=1], [whole_number=FALSE]) (Excel 2021): an
#   array of ``random()`` scaled to [min, max), or whole numbers from min to max. min above max is
#   #VALUE! (Microsoft's RANDARRAY page); a size of 0 is #CALC! (an empty array) and a negative one
#   #VALUE! (as SEQUENCE); assumption, not on Microsoft's page: a fractional min or max with
#   whole_number TRUE is #VALUE!.
#
# A LET name bound to a draw and used twice (``LET(x, RAND(), x - x)``, 0 in Excel, which
# calculates a name once) would be drawn at each use: such cells are unsupported instead
# (run/compile.py).
#
# One generator serves the whole recalculation: cells draw in the engine's evaluation order
# (groups in dependency order, a group's cells top to bottom), so the same file with the same seed
# gives the same values, and a different seed different ones.

#: pinned by ``now`` (``--now``)
CLOCK = frozenset({"NOW", "TODAY"})
#: pinned by ``seed`` (``--seed``)
SEEDED = frozenset({"RAND", "RANDBETWEEN", "RANDARRAY"})
#: the largest whole number a bound may be (2**53: every whole number up to it is a float)
_MAX_WHOLE = 2.0**53


def _half_away(x: np.ndarray) -> np.ndarray:
    """Rounded to whole numbers, halves away from zero."""
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


def pinned_functions(now: _dt.datetime | None, seed: int | None) -> dict[str, Spec]:
    """The table entries for the functions pinned by ``now`` and ``seed`` (either may be None)."""
    out: dict[str, Spec] = {}
    if now is not None:
        out.update(clock_functions(now))
    if seed is not None:
        out.update(random_functions(seed))
    return out


def random_functions(seed: int) -> dict[str, Spec]:
    """RAND, RANDBETWEEN and RANDARRAY drawing from ``numpy.random.default_rng(seed)``."""
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a whole number >= 0 (numpy's default_rng), not {seed!r}")
    rng = np.random.default_rng(seed)

    def rand(ctx):
        return rng.random((ctx.n, 1, 1))

    def randbetween(ctx, bottom, top):
        (lo, hi), errs = scalar_nums(bottom, top)
        shape = np.broadcast_shapes(lo.shape, hi.shape, (ctx.n, 1, 1))
        lo, hi = _half_away(np.broadcast_to(lo, shape)), _half_away(np.broadcast_to(hi, shape))
        bad = (
            ~(np.isfinite(lo) & np.isfinite(hi))
            | (lo > hi)
            | (np.abs(lo) > _MAX_WHOLE)
            | (np.abs(hi) > _MAX_WHOLE)
        )
        safe_lo, safe_hi = np.where(bad, 0.0, lo), np.where(bad, 0.0, hi)
        out = rng.integers(safe_lo.astype(np.int64), safe_hi.astype(np.int64), endpoint=True).astype(
            vec.FLOAT
        )
        if bad.any():
            obj = out.astype(vec.OBJ)
            obj[bad] = VALUE
            out = obj
        return vec.with_errors(out, errs)

    def randarray(ctx, rows=None, columns=None, low=None, high=None, whole=None):
        (r, c, a, b), errs = scalar_nums(rows, columns, low, high)
        flag = None if whole is None else vec.bools(whole)
        if errs is not None:
            return vec.const(errs[1][errs[0]].ravel()[0])
        if flag is not None and flag[1] is not None:
            return vec.const(flag[1][1][flag[1][0]].ravel()[0])
        if any(x is not None and x.size != 1 for x in (r, c, a, b)) or (
            flag is not None and flag[0].size != 1
        ):
            raise ValueError("RANDARRAY with arguments varying by row")  # evaluated cell by cell
        n = 1 if r is None else math.trunc(r.item())
        k = 1 if c is None else math.trunc(c.item())
        first = 0.0 if a is None else a.item()
        last = 1.0 if b is None else b.item()
        integer = flag is not None and bool(flag[0].item())
        if n < 0 or k < 0 or first > last:
            return vec.const(VALUE)
        if n == 0 or k == 0:
            return vec.const(CALC)
        if n * k * ctx.n > 1 << 20:
            raise ValueError(f"RANDARRAY of {n:,} x {k:,} cells")
        shape = (ctx.n, n, k)
        if not integer:
            return first + (last - first) * rng.random(shape)
        if first != math.floor(first) or last != math.floor(last) or max(abs(first), abs(last)) > _MAX_WHOLE:
            return vec.const(VALUE)
        return rng.integers(int(first), int(last), size=shape, endpoint=True).astype(vec.FLOAT)

    return {
        "RAND": Spec(rand, 0, 0, needs_ctx=True),
        "RANDBETWEEN": Spec(randbetween, 2, 2, "vv", needs_ctx=True),
        "RANDARRAY": Spec(randarray, 0, 5, "vvvvv", needs_ctx=True),
    }
