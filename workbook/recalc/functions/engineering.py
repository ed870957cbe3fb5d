"""Excel's Engineering functions (complex numbers included).

Base conversions: DEC2BIN, DEC2OCT, DEC2HEX, BIN2DEC, BIN2OCT, BIN2HEX, OCT2DEC, OCT2BIN,
OCT2HEX, HEX2DEC, HEX2BIN, HEX2OCT (Microsoft's function reference).

Binary, octal and hexadecimal numbers have at most 10 digits; the leftmost bit of a 10-digit
number is the sign (two's complement), so the ranges are -512..511 (binary), -2^29..2^29-1
(octal) and -2^39..2^39-1 (hexadecimal). ``places`` pads a non-negative result with zeros
(#NUM! if it is too short); below 1 or above 10 it is #NUM! whatever the number (checked
first); negative results are always 10 digits. A number outside the target's range, or a digit
the base does not have, is #NUM!; TRUE/FALSE and non-numeric text for a decimal are #VALUE!.
Checked against Excel's cached values in xlcalculator's BASES.xlsx (tests/data/excel_corpus).

DELTA(number1, [number2=0]) is 1 when the numbers are equal, else 0; GESTEP(number, [step=0])
is 1 when number >= step, else 0.

BITAND, BITOR, BITXOR, BITLSHIFT, BITRSHIFT (Excel 2013): numbers that are whole, >= 0 and below
2^48 (else #NUM!); a shift amount truncated, negative for the other way, |amount| > 53 #NUM!
(Microsoft's pages; an Excel-saved workbook's cached values, see :func:`_bits`).

Engineering: ERF, ERFC (and .PRECISE), the Bessel functions BESSELJ/Y/I/K, CONVERT, and the
complex-number functions COMPLEX, IMREAL, IMAGINARY, IMABS, IMARGUMENT, IMCONJUGATE, IMSUM,
IMSUB, IMPRODUCT, IMDIV, IMPOWER, IMSQRT, IMEXP, IMLN, IMLOG10, IMLOG2, IMSIN, IMCOS, IMTAN,
IMSINH, IMCOSH, IMSEC, IMCSC, IMCOT, IMSECH, IMCSCH (Microsoft's function reference; the base
conversions are above).

- ERF(lower, [upper]) is erf(lower), or erf(upper) - erf(lower); ERFC(x) = 1 - erf(x), from
  :func:`math.erfc` (no cancellation in the tail).
- BESSELI(x, n) as Excel computes it (the polynomials of Abramowitz & Stegun 9.8.1-9.8.4 and
  Miller's downward recurrence: :func:`_besseli`, matched to the last bit on Excel-saved cells;
  Excel's error, about 1e-7 and more where x is large against n, is kept).
- BESSELJ(x, n) by its power series (J's where |x| <= 12
  or n > |x|, unless its terms pass the largest number before they cancel), else by Bessel's
  integral (1/pi) int_0^pi cos(n t - x sin t) dt with the trapezoid rule, exact to rounding for this periodic integrand); BESSELY(x, n) by its two integrals (DLMF
  10.9.7), with Gauss-Legendre panels (the second's growing geometrically from 1/x, the scale its
  integrand falls off on); BESSELK(x, n) as Excel computes it (polynomial
  approximations of K0 and K1, accurate to about 1e-8, and the recurrence: :func:`_k01`). n is
  truncated; n < 0 is #NUM!, and so is x <= 0 for BESSELY and BESSELK. BESSELK's recurrence
  stops at a value past Excel's largest number (#NUM!) or at 0 (x so large that K underflows);
  BESSELJ and BESSELY that would need more than :data:`MAX_BESSEL_POINTS` points (|x| + n in the
  hundreds of thousands) take Hankel's asymptotic expansion where x >= 4 n^2 (:func:`_hankel`,
  equal to the integrals to rounding where both run), BESSELY of a huge order past the largest
  number is #NUM!, and the rest are unsupported, not computed for minutes with gigabytes: the
  differential fuzzer's BESSELJ(1E+10, ...) took 23 GB by the integral.
- Complex numbers are texts "x+yi" or "x+yj" (a number is a real one); COMPLEX writes them with
  Excel's rules ("3+4i", "i", "-i", "2", "0"), the parts in General format (15 significant
  digits). A text that is not a complex number is #NUM!, COMPLEX's suffix other than "i" or "j"
  #VALUE!, mixed suffixes in one IMSUM/IMPRODUCT #VALUE! but in IMSUB/IMDIV #NUM! (Mac Excel's
  cached values in the formulas project's test.xlsx: ENGINEERING!T44 =IMPRODUCT(F44,E44) of
  "-3+2i" and "3.1+2j" #VALUE!, T38 =IMDIV(E38,F38) and T51 =IMSUB(E51,F51) #NUM!); IMDIV by 0 and IMLN, IMLOG10, IMLOG2 of
  0 are #NUM!, IMARGUMENT of 0 #DIV/0!.
- CONVERT(number, from_unit, to_unit): the units of Microsoft's tables (weight and mass,
  distance, time, pressure, force, energy, power, magnetism, temperature, volume, area,
  information, speed), with the decimal prefixes (Y .. y, "da" or "e" for deka) on the metric
  units (and on K, mmHg, uk_pt, mph, as Excel allows) and the binary prefixes (ki, Mi, ...) on
  bit and byte; a prefix on a length squared or cubed is squared or cubed ("km2", "km^3"), not
  on a litre or an are ("kl"); "m^2" is "m2". Units are case-sensitive. An unknown unit, or
  two of different kinds, is #N/A. The prefixes each unit takes, the "e" and "^" forms and the
  factors of u (1.660538782E-27 kg) and mmHg (133.322 Pa) are those of an Excel-saved workbook,
  vinci1it2000/formulas test/test_files/test.xlsx, sheet EXTRA (CONVERT of every unit with
  every prefix, cached by Excel).
"""

from __future__ import annotations

import cmath
import math
import re

import numpy as np

from gputco.workbook.recalc.base import vec
from gputco.workbook.recalc.base.errors import UnsupportedValue
from gputco.workbook.recalc.base.values import DIV0, NA, NUM, VALUE, XlError, number_text, parse_number

from ._args import Spec, given_rows, scalar_function

# --- engineering -----------------------------------------------------------------------------------------

BASES = {"BIN": (2, 10), "OCT": (8, 30), "HEX": (16, 40), "DEC": (10, 0)}
_DIGITS = "0123456789ABCDEF"


def _settled(v):
    """What an integer argument is before its digits are read: its error, #VALUE! for a boolean,
    0 for a blank; None for a number or a text."""
    if isinstance(v, XlError):
        return v
    if isinstance(v, bool):
        return VALUE
    if v is None:
        return 0
    return None


def _decimal(v):
    """A decimal argument as an integer (truncated), or an error."""
    early = _settled(v)
    if early is not None:
        return early
    if isinstance(v, str):
        v = parse_number(v)
        if v is None:
            return VALUE
    if not math.isfinite(v):
        return NUM
    return math.trunc(v)


def _from_base(v, base: str):
    """A BIN/OCT/HEX argument (text or a number written in that base) as an integer."""
    early = _settled(v)
    if early is not None:
        return early
    if isinstance(v, float):
        if v != math.trunc(v) or v < 0:
            return NUM
        v = str(int(v))
    radix, bits = BASES[base]
    text = v.upper()
    if len(text) > 10 or any(ch not in _DIGITS[:radix] for ch in text):
        return NUM
    n = int(text, radix) if text else 0
    return n - (1 << bits) if len(text) == 10 and n >= 1 << (bits - 1) else n


def _to_base(n: int, base: str, places):
    radix, bits = BASES[base]
    if base == "DEC":
        return float(n)
    if not -(1 << (bits - 1)) <= n < 1 << (bits - 1):
        return NUM
    if n < 0:
        return _digits(n + (1 << bits), radix)
    text = _digits(n, radix)
    if places is None:
        return text
    return NUM if len(text) > places else text.zfill(places)


def _digits(n: int, radix: int) -> str:
    out = ""
    while True:
        n, d = divmod(n, radix)
        out = _DIGITS[d] + out
        if not n:
            return out


def _converter(source: str, target: str):
    def one(v, places=None):
        if places is not None:  # checked first: places outside 1..10 is #NUM! whatever v is
            places = _decimal(places)
            if isinstance(places, XlError):
                return places
            if not 1 <= places <= 10:
                return NUM
        n = _decimal(v) if source == "DEC" else _from_base(v, source)
        return n if isinstance(n, XlError) else _to_base(n, target, places)

    def impl(x, places=None):
        if places is None or target == "DEC":
            return vec.elementwise(one, x)
        return vec.elementwise(one, x, places)

    return impl


def _delta(n1: float, n2: float | None = None) -> float:
    """DELTA(number1, [number2=0]): 1 when the numbers are equal, else 0."""
    return 1.0 if n1 == (0.0 if n2 is None else n2) else 0.0


def _gestep(number: float, step: float | None = None) -> float:
    """GESTEP(number, [step=0]): 1 when number >= step, else 0 (Microsoft's GESTEP page)."""
    return 1.0 if number >= (0.0 if step is None else step) else 0.0


#: the bitwise functions' bound: their numbers are whole and below 2^48 (Microsoft's BITAND page)
_BIT_LIMIT = 2**48


def _bits(x: float) -> int | None:
    """A bitwise function's number as an integer, or None (#NUM!) when it is negative, not whole
    or 2^48 or more (Microsoft's BITAND, BITOR, BITXOR pages; Excel-saved test.xlsx,
    ENGINEERING R10:X10: BITAND of 2^48, of 2.3, of -1 are #NUM!)."""
    return int(x) if 0 <= x < _BIT_LIMIT and x == math.trunc(x) else None


def _bitwise(op):
    def one(a: float, b: float) -> float | XlError:
        x, y = _bits(a), _bits(b)
        return NUM if x is None or y is None else float(op(x, y))

    return one


def _shift(direction: int):
    """BITLSHIFT (direction 1) and BITRSHIFT (-1): number (as :func:`_bits`) shifted by
    shift_amount truncated, the other way when it is negative; |shift_amount| > 53 is #NUM!
    (Microsoft's BITLSHIFT page; test.xlsx ENGINEERING S11, U11, S13: BITLSHIFT(25,2.3) is 100,
    BITLSHIFT(99,-1) 49, BITRSHIFT(25,2.3) 6)."""

    def one(number: float, amount: float) -> float | XlError:
        x, k = _bits(number), math.trunc(amount) * direction
        if x is None or abs(k) > 53:
            return NUM
        return float(x << k if k >= 0 else x >> -k)

    return one


_ENGINEERING_FUNCTIONS = {
    **{f"{a}2{b}": Spec(_converter(a, b), 1, 1 if b == "DEC" else 2) for a in BASES for b in BASES if a != b},
    "DELTA": Spec(scalar_function(_delta, 1), 1, 2),
    "GESTEP": Spec(scalar_function(_gestep, 1), 1, 2),
    "BITAND": Spec(scalar_function(_bitwise(lambda x, y: x & y), 2), 2, 2),
    "BITOR": Spec(scalar_function(_bitwise(lambda x, y: x | y), 2), 2, 2),
    "BITXOR": Spec(scalar_function(_bitwise(lambda x, y: x ^ y), 2), 2, 2),
    "BITLSHIFT": Spec(scalar_function(_shift(1), 2), 2, 2),
    "BITRSHIFT": Spec(scalar_function(_shift(-1), 2), 2, 2),
}


# --- complexnum ------------------------------------------------------------------------------------------

# --- ERF --------------------------------------------------------------------------------------


def _erf(lower, upper=None):
    return math.erf(lower) if upper is None else math.erf(upper) - math.erf(lower)


def _erfc(x):
    return math.erfc(x)


# --- Bessel -----------------------------------------------------------------------------------

_GL_X, _GL_W = np.polynomial.legendre.leggauss(64)


def _gauss(f, a: float, b: float, panels: int) -> float:
    """int_a^b f by 64-point Gauss-Legendre on ``panels`` equal panels (f vectorised)."""
    edges = np.linspace(a, b, panels + 1)
    half = (edges[1:] - edges[:-1]) / 2
    mid = (edges[1:] + edges[:-1]) / 2
    t = (mid[:, None] + half[:, None] * _GL_X[None, :]).ravel()
    w = (half[:, None] * _GL_W[None, :]).ravel()
    return float(np.dot(w, f(t)))


def _series(x: float, n: int, sign: float) -> float:
    """sum_k sign^k (x/2)^(2k+n) / (k! (n+k)!): J (sign -1) and I (sign +1)."""
    half = x / 2.0
    term = math.exp(n * math.log(abs(half)) - math.lgamma(n + 1.0)) if half != 0 else (1.0 if n == 0 else 0.0)
    if half < 0 and n % 2:
        term = -term
    total, k, q = term, 0, sign * half * half
    while term != 0 and k < 10_000:
        k += 1
        term *= q / (k * (n + k))
        total += term
        if abs(term) <= 1e-17 * abs(total):
            break
    return total


def _besselj(x, n):
    """BESSELJ(x, n): n truncated, n < 0 is #NUM!."""
    k = math.trunc(n)
    if k < 0:
        return NUM
    if abs(x) <= 12 or (k > abs(x) and k * math.log(abs(x) / 2.0) - math.lgamma(k + 1.0) < _LOG_LARGEST):
        # the power series, but not for an order near a large x (BESSELJ(45322, 45323)), where
        # its terms pass the largest number before they cancel: Bessel's integral serves there
        # (J is not small there, so the integral's rounding is small against it)
        return _series(x, k, -1.0)
    m = int(2 * (abs(x) + k)) + 64
    if m > MAX_BESSEL_POINTS and _hankel_holds(abs(x), k):
        j = _hankel(abs(x), k)[0]
        return -j if x < 0 and k % 2 else j  # J_n(-x) = (-1)^n J_n(x)
    _within_work("BESSELJ", m)
    t = np.arange(m + 1) * (math.pi / m)
    f = np.cos(k * t - x * np.sin(t))
    return float((f.sum() - 0.5 * (f[0] + f[-1])) / m)


#: the most points the Bessel integrals are evaluated at for one cell; beyond it (|x| + n in the
#: hundreds of thousands) Hankel's expansion serves where it holds; elsewhere the cell is
#: unsupported, kept as stored and named, rather than computed for minutes or with gigabytes
MAX_BESSEL_POINTS = 4_000_000


#: ln of Excel's largest number, 1.7976931348623158E+308
_LOG_LARGEST = math.log(1.7976931348623158e308)


def _hankel_holds(x: float, k: int) -> bool:
    """Whether Hankel's expansion (:func:`_hankel`) is accurate to rounding: x large against
    n^2, where its terms fall by at least 2 from one to the next over the first dozens."""
    return x >= 1000.0 and x >= 4.0 * k * k


def _hankel(x: float, k: int) -> tuple[float, float]:
    """J_n(x) and Y_n(x) for large x by Hankel's asymptotic expansion (DLMF 10.17.3-10.17.4):
    sqrt(2 / (pi x)) (P cos w - Q sin w) and sqrt(2 / (pi x)) (P sin w + Q cos w), w = x - (n/2 +
    1/4) pi, P and Q the even and odd terms of a_j(n) / x^j, summed while they fall; cos w and
    sin w from cos x and sin x (exact argument reduction), not from x - (n/2 + 1/4) pi rounded."""
    mu = 4.0 * k * k
    p, q, term, j = 1.0, 0.0, 1.0, 0
    while j < 200:
        j += 1
        nxt = term * (mu - (2 * j - 1) ** 2) / (j * 8.0 * x)
        if abs(nxt) >= abs(term) and j > 1:
            break  # the asymptotic series starts to grow: stop at its smallest term
        term = nxt
        if j % 2:
            q += term * (-1 if (j // 2) % 2 else 1)
        else:
            p += term * (-1 if (j // 2) % 2 else 1)
        if abs(term) < 1e-17:
            break
    c = (k / 2.0 + 0.25) * math.pi
    cw = math.cos(x) * math.cos(c) + math.sin(x) * math.sin(c)
    sw = math.sin(x) * math.cos(c) - math.cos(x) * math.sin(c)
    f = math.sqrt(2.0 / (math.pi * x))
    return f * (p * cw - q * sw), f * (p * sw + q * cw)


def _within_work(name: str, points: int) -> None:
    if points > MAX_BESSEL_POINTS:
        raise UnsupportedValue(f"{name} (|x| + n too large for the engine's integration)")


#: Abramowitz & Stegun (1964) 9.8.1-9.8.4, the polynomial approximations of I0 and I1 (|error|
#: below 1.6e-7 of I0's, 2.2e-7 of I1's scale), lowest degree first: in t^2 = (x/3.75)^2 below
#: 3.75, in 3.75/x above (times e^x / sqrt(x))
_I0_NEAR = (1.0, 3.5156229, 3.0899424, 1.2067492, 0.2659732, 0.0360768, 0.0045813)
_I0_FAR = (
    0.39894228,
    0.01328592,
    0.00225319,
    -0.00157565,
    0.00916281,
    -0.02057706,
    0.02635537,
    -0.01647633,
    0.00392377,
)
_I1_NEAR = (0.5, 0.87890594, 0.51498869, 0.15084934, 0.02658733, 0.00301532, 0.00032411)
_I1_FAR = (
    0.39894228,
    -0.03988024,
    -0.00362018,
    0.00163801,
    -0.01031555,
    0.02282967,
    -0.02895312,
    0.01787654,
    -0.00420059,
)
#: Abramowitz & Stegun 9.8.5-9.8.8, K0 and K1 (lowest degree first): in y = x^2/4 up to x = 2
#: (added to -ln(x/2) I0 and ln(x/2) I1, K1's over x), in 2/x above (times e^-x / sqrt(x))
_K0_NEAR = (-0.57721566, 0.42278420, 0.23069756, 0.03488590, 0.00262698, 0.00010750, 0.00000740)
_K1_NEAR = (1.0, 0.15443144, -0.67278579, -0.18156897, -0.01919402, -0.00110404, -0.00004686)
_K0_FAR = (1.25331414, -0.07832358, 0.02189568, -0.01062446, 0.00587872, -0.00251540, 0.00053208)
_K1_FAR = (1.25331414, 0.23498619, -0.03655620, 0.01504268, -0.00780353, 0.00325614, -0.00068245)
#: the largest order BESSELI takes by the recurrence below (the power series above it)
MAX_MILLER_ORDER = 100_000


def _poly(coefs: tuple[float, ...], y: float) -> float:
    p = coefs[-1]
    for c in reversed(coefs[:-1]):
        p = c + y * p
    return p


def _i0(x: float) -> float:
    ax = abs(x)
    if ax < 3.75:
        return _poly(_I0_NEAR, (x / 3.75) ** 2)
    with np.errstate(all="ignore"):
        return float(np.exp(ax) / np.sqrt(ax) * _poly(_I0_FAR, 3.75 / ax))


def _i1(x: float) -> float:
    ax = abs(x)
    if ax < 3.75:
        r = ax * _poly(_I1_NEAR, (x / 3.75) ** 2)
    else:
        with np.errstate(all="ignore"):
            r = float(_poly(_I1_FAR, 3.75 / ax) * (np.exp(ax) / np.sqrt(ax)))
    return -r if x < 0 else r


def _besseli(x, n):
    """BESSELI(x, n), n truncated, n < 0 #NUM!, as Excel computes it: I0 and I1 by the
    polynomials of Abramowitz & Stegun 9.8.1-9.8.4, a higher order by Miller's downward
    recurrence I_{j-1} = I_{j+1} + (2j/x) I_j from order 2 (n + INT(SQRT(40 n))), rescaled by
    1E-10 past 1E10 and normalised by the I0 polynomial. Decided by the values Mac Excel cached
    in the formulas project's test.xlsx, matched to the last bit: ENGINEERING!T3
    =BESSELI(2.3,2) 1.0054316669125958 (the true value 1.005431663655915), V3 =BESSELI(-1,0)
    1.2660658480342601 (true 1.2660658777520082). Orders above :data:`MAX_MILLER_ORDER` take
    the power series."""
    k = math.trunc(n)
    if k < 0:
        return NUM
    if k > MAX_MILLER_ORDER:
        return _series(x, k, 1.0)
    if k == 0:
        return _i0(x)
    if k == 1:
        return _i1(x)
    if x == 0:
        return 0.0
    tox = 2.0 / abs(x)
    after, here, got = 0.0, 1.0, 0.0
    for j in range(2 * (k + int(math.sqrt(40 * k))), 0, -1):
        after, here = here, after + j * tox * here
        if abs(here) > 1e10:
            got, here, after = got * 1e-10, here * 1e-10, after * 1e-10
        if j == k:
            got = after
    with np.errstate(all="ignore"):
        r = float(got * _i0(x) / here)
    return -r if x < 0 and k % 2 else r


def _tail(x: float, k: int) -> float:
    """Where exp(-x sinh t + k t) has fallen below 1e-40 of its size near 0."""
    t = 1.0
    while x * math.sinh(t) - k * t < 95.0 + abs(math.log(x)) and t < 50:
        t += 0.5
    return t


def _k01(x: float) -> tuple[float, float]:
    """K0(x), K1(x) by the polynomial approximations of Abramowitz & Stegun 9.8.5-9.8.8 (with
    the I0, I1 polynomials of BESSELI, 9.8.1 and 9.8.3, below x = 2), which Excel's BESSELK
    uses: Microsoft's BESSELK(1.5, 1) shows 0.277387804 where the true value is 0.27738780046,
    and Mac Excel cached BESSELK(2.3,2) as 0.1617333633782021, these polynomials' value to the
    last bit, in the formulas project's test.xlsx ENGINEERING!T5."""
    if x <= 2.0:
        y = x * x / 4.0
        lg = math.log(x / 2.0)
        return -lg * _i0(x) + _poly(_K0_NEAR, y), lg * _i1(x) + _poly(_K1_NEAR, y) / x
    f = math.exp(-x) / math.sqrt(x)
    return f * _poly(_K0_FAR, 2.0 / x), f * _poly(_K1_FAR, 2.0 / x)


def _besselk(x, n):
    """BESSELK(x, n): n truncated; n < 0 or x <= 0 is #NUM!; K0 and K1 (:func:`_k01`), then the
    upward recurrence K_{j+1} = K_{j-1} + (2j/x) K_j."""
    k = math.trunc(n)
    if k < 0 or x <= 0:
        return NUM
    if k > x * x / 4.0 and math.lgamma(k) + k * math.log(2.0 / x) - math.log(2.0) > _LOG_LARGEST:
        return NUM  # K above its leading term (n-1)! (2/x)^n / 2: past the largest number
    a, b = _k01(x)
    if k == 0:
        return a
    for j in range(1, k):
        a, b = b, a + 2.0 * j / x * b
        if not math.isfinite(b):
            return NUM  # past Excel's largest number
        if a == 0.0 and b == 0.0:
            return 0.0  # below the smallest: stays 0 (x very large)
    return b


def _bessely(x, n):
    """BESSELY(x, n): n truncated; n < 0 or x <= 0 is #NUM!."""
    k = math.trunc(n)
    if k < 0 or x <= 0:
        return NUM
    panels = max(4, int((x + k) / 4) + 4)
    if 64 * panels > MAX_BESSEL_POINTS:
        if _hankel_holds(x, k):
            return _hankel(x, k)[1]
        if k > x and math.lgamma(k) + k * math.log(2.0 / x) - math.log(math.pi) > _LOG_LARGEST:
            return NUM  # |Y| above its leading term (n-1)! (2/x)^n / pi: past the largest number
    _within_work("BESSELY", 64 * panels)
    first = _gauss(lambda t: np.sin(x * np.sin(t) - k * t), 0.0, math.pi, panels)
    top = _tail(x, k)
    sign = -1.0 if k % 2 else 1.0

    def g(t):
        s = x * np.sinh(t)  # the exponents joined: e^(k t) alone overflows for a large order
        with np.errstate(over="ignore"):
            return np.exp(k * t - s) + sign * np.exp(-k * t - s)

    # the second integrand falls off on the scale 1/x near 0: on [0, top] with panels of equal
    # width it is unresolved for large x (BESSELY(45322, 100) was off by 0.2%); the panels grow
    # geometrically from 1/x instead (one stretch, as before, where 1/x >= top)
    second, a, h = 0.0, 0.0, 1.0 / x
    while a < top:
        b = top if a + h >= top else a + h
        second += _gauss(g, a, b, max(8, int(4 * (b - a))))
        a, h = b, 2.0 * h
    y = (first - second) / math.pi
    return y if math.isfinite(y) else NUM  # past the largest number


# --- complex numbers --------------------------------------------------------------------------

_NUM = r"(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?"
_COMPLEX = re.compile(rf"^([+-]?{_NUM})?(?:([+-])({_NUM})?([ij]))?$")
_IMAG_ONLY = re.compile(rf"^([+-]?)({_NUM})?([ij])$")


def parse_complex(v) -> tuple[complex, str | None] | XlError:
    """A complex-number argument as (value, suffix or None), or its error."""
    if isinstance(v, XlError):
        return v
    if isinstance(v, bool):
        return VALUE
    if v is None:
        return complex(0.0), None
    if isinstance(v, float):
        return complex(v), None
    text = v.strip() if isinstance(v, str) else str(v)
    if text == "":
        return complex(0.0), None
    m = _IMAG_ONLY.match(text)
    if m:
        im = float(m.group(2)) if m.group(2) else 1.0
        return complex(0.0, -im if m.group(1) == "-" else im), m.group(3)
    m = _COMPLEX.match(text)
    if not m or (m.group(1) is None and m.group(2) is None):
        return NUM
    re_part = float(m.group(1)) if m.group(1) else 0.0
    if m.group(2) is None:
        return complex(re_part), None
    im = float(m.group(3)) if m.group(3) else 1.0
    return complex(re_part, -im if m.group(2) == "-" else im), m.group(4)


def _part_text(x: float) -> str:
    """A part of a complex number as Excel's IM functions write it: :func:`number_text` (15
    significant digits), but in scientific notation below 1E-5 in absolute value. Decided by the
    values Mac Excel cached in vinci1it2000/formulas test/test_files/test.xlsx, ENGINEERING
    sheet: IMCSCH S37 "1.28233995888454E-06+4.33496947416312E-06j", IMCSC R36
    "1.82483860060804E-11-2.09403043759793E-11j", where IMCOT S35
    "0.0000692442674613868-1.00005873951153j" and IMCSCH R37 "...+0.000241378936123788j" stay
    decimal; the General text of a number (``""&x``) has no such Excel-saved cell and keeps
    :func:`number_text`.

    >>> _part_text(1.28233995888454e-06), _part_text(6.92442674613868e-05), _part_text(-3e-11)
    ('1.28233995888454E-06', '0.0000692442674613868', '-3E-11')
    """
    if x == 0 or abs(x) >= 1e-5:
        return number_text(x)
    mant, _, exp = f"{x:.14e}".partition("e")
    if "." in mant:
        mant = mant.rstrip("0").rstrip(".")
    e = int(exp)
    if e >= -5:  # rounded up to 1E-05
        return number_text(x)
    return f"{mant}E-{abs(e):02d}"


def format_complex(z: complex, suffix: str | None) -> str | XlError:
    """Excel's text of a complex number (``"3+4i"``, ``"-i"``, ``"2"``); each part as
    :func:`_part_text` writes it."""
    x, y = z.real, z.imag
    if not (math.isfinite(x) and math.isfinite(y)):
        return NUM
    s = suffix or "i"
    re_text = _part_text(x) if x != 0 else ""
    if y == 0 or number_text(y) == "0":
        return re_text or "0"
    im_text = _part_text(abs(y))
    im_text = ("" if im_text == "1" else im_text) + s
    sign = "-" if y < 0 else ("+" if re_text else "")
    return f"{re_text}{sign}{im_text}"


def _complex_fn(op, result: str = "complex"):
    """An IM function of one complex number: ``op(z)`` gives a complex (written as text), a
    float, or an XlError."""

    def one(v):
        p = parse_complex(v)
        if isinstance(p, XlError):
            return p
        z, suffix = p
        try:
            r = op(z)
        except (ValueError, ZeroDivisionError, OverflowError):
            return NUM
        if isinstance(r, XlError):
            return r
        if result == "real":
            return float(r) if math.isfinite(r) else NUM
        return format_complex(r, suffix)

    return lambda x: vec.elementwise(one, x)


def _nonzero(f):
    def g(z: complex):
        return NUM if z == 0 else f(z)

    return g


def _argument(z: complex):
    return DIV0 if z == 0 else cmath.phase(z)


def _complex(real, imag, suffix=None):
    def one(a, b, s):
        for v in (a, b):
            if isinstance(v, XlError):
                return v
        if s is not None and (not isinstance(s, str) or s not in ("i", "j", "")):
            return s if isinstance(s, XlError) else VALUE
        x, y = (_real_arg(v) for v in (a, b))
        if isinstance(x, XlError) or isinstance(y, XlError):
            return x if isinstance(x, XlError) else y
        return format_complex(complex(x, y), s or "i")

    return vec.elementwise(one, real, imag, vec.const(None) if suffix is None else suffix)


def _real_arg(v) -> float | XlError:
    if isinstance(v, bool):
        return VALUE
    if v is None:
        return 0.0
    if isinstance(v, str):
        n = parse_number(v)
        return VALUE if n is None else n
    return v


def _fold(op, unit):
    """IMSUM / IMPRODUCT over any number of complex numbers, ranges included."""

    def impl(*args):
        given, shape_m = given_rows(args)
        flat = [part for _a, part in given]
        out = []
        for i in range(shape_m):
            acc, suffix = unit, None
            result = None
            for part in flat:
                for v in part[min(i, part.shape[0] - 1)].tolist():
                    p = parse_complex(v)
                    if isinstance(p, XlError):
                        result = p
                        break
                    z, s = p
                    if s is not None and suffix is not None and s != suffix:
                        result = VALUE
                        break
                    suffix = suffix or s
                    acc = op(acc, z)
                if result is not None:
                    break
            out.append(result if result is not None else format_complex(acc, suffix))
        return vec.from_list(out, (shape_m, 1, 1))

    return impl


def _binary(op):
    def one(a, b):
        pa, pb = parse_complex(a), parse_complex(b)
        for p in (pa, pb):
            if isinstance(p, XlError):
                return p
        (za, sa), (zb, sb) = pa, pb
        if sa is not None and sb is not None and sa != sb:
            return NUM  # IMSUB and IMDIV; IMSUM and IMPRODUCT #VALUE! (see the module's notes)
        r = op(za, zb)
        return r if isinstance(r, XlError) else format_complex(r, sa or sb)

    return lambda a, b: vec.elementwise(one, a, b)


def _div(a: complex, b: complex):
    return NUM if b == 0 else a / b


def _power(z, n):
    def one(v, k):
        p = parse_complex(v)
        if isinstance(p, XlError):
            return p
        k = _real_arg(k) if not isinstance(k, XlError) else k
        if isinstance(k, XlError):
            return k
        zz, s = p
        if zz == 0:
            return NUM if k <= 0 else "0"
        r, theta = abs(zz), cmath.phase(zz)
        return format_complex(cmath.rect(r**k, theta * k), s)

    return vec.elementwise(one, z, n)


def _sqrt(z: complex) -> complex:
    return cmath.rect(math.sqrt(abs(z)), cmath.phase(z) / 2)


_ONE = {
    "IMREAL": (lambda z: z.real, "real"),
    "IMAGINARY": (lambda z: z.imag, "real"),
    "IMABS": (abs, "real"),
    "IMARGUMENT": (_argument, "real"),
    "IMCONJUGATE": (lambda z: z.conjugate(), "complex"),
    "IMSQRT": (_sqrt, "complex"),
    "IMEXP": (cmath.exp, "complex"),
    "IMLN": (_nonzero(cmath.log), "complex"),
    "IMLOG10": (_nonzero(cmath.log10), "complex"),
    "IMLOG2": (_nonzero(lambda z: cmath.log(z) / math.log(2.0)), "complex"),
    "IMSIN": (cmath.sin, "complex"),
    "IMCOS": (cmath.cos, "complex"),
    "IMTAN": (cmath.tan, "complex"),
    "IMSINH": (cmath.sinh, "complex"),
    "IMCOSH": (cmath.cosh, "complex"),
    "IMSEC": (lambda z: 1 / cmath.cos(z), "complex"),
    "IMCSC": (lambda z: 1 / cmath.sin(z), "complex"),
    "IMCOT": (lambda z: 1 / cmath.tan(z), "complex"),
    "IMSECH": (lambda z: 1 / cmath.cosh(z), "complex"),
    "IMCSCH": (lambda z: 1 / cmath.sinh(z), "complex"),
}


# --- CONVERT ----------------------------------------------------------------------------------

_IN = 0.0254
_FT, _YD, _MI = 12 * _IN, 36 * _IN, 63360 * _IN
_GAL = 231 * _IN**3
_LBM = 0.45359237
_G = 9.80665
_LY = 9460730472580800.0
_UK_PT = 0.00056826125

#: unit -> (kind, factor to the kind's base unit, prefixes allowed); temperatures are separate
_UNITS: dict[str, tuple[str, float, bool]] = {}


def _add(kind: str, factor: float, prefixed: bool, *names: str) -> None:
    for n in names:
        _UNITS[n] = (kind, factor, prefixed)


# mass (kg), after Microsoft's CONVERT table
_add("mass", 1e-3, True, "g")
_add("mass", 14.593902937206364, False, "sg")
_add("mass", _LBM, False, "lbm")
_add("mass", 1.660538782e-27, True, "u")  # Excel's (CODATA 2006)
_add("mass", _LBM / 16, False, "ozm")
_add("mass", 0.06479891e-3, False, "grain")
_add("mass", 100 * _LBM, False, "cwt", "shweight")
_add("mass", 112 * _LBM, False, "uk_cwt", "lcwt", "hweight")
_add("mass", 14 * _LBM, False, "stone")
_add("mass", 2000 * _LBM, False, "ton")
_add("mass", 2240 * _LBM, False, "uk_ton", "LTON", "brton")
# distance (m)
_add("distance", 1.0, True, "m")
_add("distance", _MI, False, "mi")
_add("distance", 1852.0, False, "Nmi")
_add("distance", _IN, False, "in")
_add("distance", _FT, False, "ft")
_add("distance", _YD, False, "yd")
_add("distance", 1e-10, True, "ang")
_add("distance", 45 * _IN, False, "ell")
_add("distance", _LY, True, "ly")
_add("distance", 3.08567758128155e16, True, "parsec", "pc")
_add("distance", _IN / 72, False, "Picapt", "Pica")
_add("distance", _IN / 6, False, "pica")
_add("distance", 5280 * 1200 / 3937, False, "survey_mi")
# time (s)
_add("time", 365.25 * 86400, False, "yr")
_add("time", 86400.0, False, "day", "d")
_add("time", 3600.0, False, "hr")
_add("time", 60.0, False, "mn", "min")
_add("time", 1.0, True, "sec", "s")
# pressure (Pa)
_add("pressure", 1.0, True, "Pa", "p")
_add("pressure", 101325.0, True, "atm", "at")
_add("pressure", 133.322, True, "mmHg")  # Excel's: 133.322 Pa, prefixes allowed
_add("pressure", 101325.0 / 760, False, "Torr")
_add("pressure", _LBM * _G / _IN**2, False, "psi")
# force (N)
_add("force", 1.0, True, "N")
_add("force", 1e-5, True, "dyn", "dy")
_add("force", _LBM * _G, False, "lbf")
_add("force", _G * 1e-3, True, "pond")
# energy (J)
_add("energy", 1.0, True, "J")
_add("energy", 1e-7, True, "e")
_add("energy", 4.184, True, "c")
_add("energy", 4.1868, True, "cal")
_add("energy", 1.602176487e-19, True, "eV", "ev")
_add("energy", 745.69987158227022 * 3600, False, "HPh", "hh")
_add("energy", 3600.0, True, "Wh", "wh")
_add("energy", _LBM * _G * _FT, False, "flb")
_add("energy", 1055.05585262, False, "BTU", "btu")
# power (W)
_add("power", 745.69987158227022, False, "HP", "h")
_add("power", 735.49875, False, "PS")
_add("power", 1.0, True, "W", "w")
# magnetism (T)
_add("magnetism", 1.0, True, "T")
_add("magnetism", 1e-4, True, "ga")
# volume (m3)
_add("volume", _GAL / 768, False, "tsp")
_add("volume", 5e-6, False, "tspm")
_add("volume", _GAL / 256, False, "tbs")
_add("volume", _GAL / 128, False, "oz")
_add("volume", _GAL / 16, False, "cup")
_add("volume", _GAL / 8, False, "pt", "us_pt")
_add("volume", _UK_PT, True, "uk_pt")
_add("volume", _GAL / 4, False, "qt")
_add("volume", 2 * _UK_PT, False, "uk_qt")
_add("volume", _GAL, False, "gal")
_add("volume", 8 * _UK_PT, False, "uk_gal")
_add("volume", 1e-3, True, "l", "L", "lt")
_add("volume", 1.0, True, "m3")
_add("volume", _MI**3, False, "mi3")
_add("volume", _YD**3, False, "yd3")
_add("volume", _FT**3, False, "ft3")
_add("volume", _IN**3, False, "in3")
_add("volume", 1e-30, True, "ang3")
_add("volume", 42 * _GAL, False, "barrel")
_add("volume", 2150.42 * _IN**3, False, "bushel")
_add("volume", 100 * _FT**3, False, "GRT", "regton")
_add("volume", 40 * _FT**3, False, "MTON")
_add("volume", 1852.0**3, False, "Nmi3")
_add("volume", _LY**3, False, "ly3")
_add("volume", (_IN / 72) ** 3, False, "Picapt3", "Pica3")
# area (m2)
_add("area", 1.0, True, "m2")
_add("area", _MI**2, False, "mi2")
_add("area", 1852.0**2, False, "Nmi2")
_add("area", _IN**2, False, "in2")
_add("area", _FT**2, False, "ft2")
_add("area", _YD**2, False, "yd2")
_add("area", 1e-20, True, "ang2")
_add("area", (_IN / 72) ** 2, False, "Picapt2", "Pica2")
_add("area", 2500.0, False, "Morgen")
_add("area", 100.0, True, "ar")
_add("area", 4840 * _YD**2, False, "uk_acre")
_add("area", 43560 * (1200 / 3937) ** 2, False, "us_acre")
_add("area", _LY**2, False, "ly2")
_add("area", 10000.0, False, "ha")
# information (bit)
_add("information", 1.0, True, "bit")
_add("information", 8.0, True, "byte")
# speed (m/s)
_add("speed", 1.0, True, "m/s", "m/sec")
_add("speed", 1 / 3600, True, "m/h", "m/hr")
_add("speed", _MI / 3600, True, "mph")
_add("speed", 1852.0 / 3600, False, "kn")
_add("speed", 6080 * _FT / 3600, False, "admkn")

# "m^2", "ft^3", ...: the same units written with a power sign
for _name, (_kind, _factor, _prefixed) in list(_UNITS.items()):
    if _kind in ("area", "volume") and _name[-1] in "23":
        _UNITS[_name[:-1] + "^" + _name[-1]] = (_kind, _factor, _prefixed)

_DECIMAL = {
    "Y": 1e24, "Z": 1e21, "E": 1e18, "P": 1e15, "T": 1e12, "G": 1e9, "M": 1e6, "k": 1e3,
    "h": 1e2, "da": 1e1, "e": 1e1, "d": 1e-1, "c": 1e-2, "m": 1e-3, "u": 1e-6, "n": 1e-9,
    "p": 1e-12, "f": 1e-15, "a": 1e-18, "z": 1e-21, "y": 1e-24,
}  # fmt: skip
_BINARY = {"ki": 2.0**10, "Mi": 2.0**20, "Gi": 2.0**30, "Ti": 2.0**40, "Pi": 2.0**50,
           "Ei": 2.0**60, "Zi": 2.0**70, "Yi": 2.0**80}  # fmt: skip
_TEMPERATURE = {
    # unit -> (scale, offset): kelvin = value * scale + offset
    "C": (1.0, 273.15), "cel": (1.0, 273.15), "F": (5 / 9, 273.15 - 32 * 5 / 9),
    "fah": (5 / 9, 273.15 - 32 * 5 / 9), "K": (1.0, 0.0), "kel": (1.0, 0.0),
    "Rank": (5 / 9, 0.0), "Reau": (1.25, 273.15),
}  # fmt: skip


def _unit(text: str):
    """(kind, factor) or ("temperature", (scale, offset)) of a unit text, or None."""
    if text in _UNITS:
        kind, factor, _ = _UNITS[text]
        return kind, factor
    if text in _TEMPERATURE:
        return "temperature", _TEMPERATURE[text]
    for table, binary in ((_BINARY, True), (_DECIMAL, False)):
        for prefix, scale in table.items():
            base = text[len(prefix) :]
            if not text.startswith(prefix):
                continue
            if base in ("K", "kel") and not binary:  # kelvin takes the decimal prefixes
                return "temperature", (scale, 0.0)
            if base not in _UNITS:
                continue
            kind, factor, prefixed = _UNITS[base]
            if not prefixed or (binary and kind != "information"):
                continue
            # a prefix on a length squared or cubed is squared or cubed (km2), on a litre or an
            # are it is not (kl, har)
            power = int(base[-1]) if kind in ("area", "volume") and base[-1] in "23" else 1
            return kind, factor * scale**power
    return None


def _convert(number, from_unit, to_unit):
    def one(x, a, b):
        for v in (x, a, b):
            if isinstance(v, XlError):
                return v
        x = _real_arg(x)
        if isinstance(x, XlError):
            return x
        if not isinstance(a, str) or not isinstance(b, str):
            return NA
        ua, ub = _unit(a), _unit(b)
        if ua is None or ub is None or ua[0] != ub[0]:
            return NA
        if ua[0] == "temperature":
            (sa, oa), (sb, ob) = ua[1], ub[1]
            return ((x * sa + oa) - ob) / sb
        return x * ua[1] / ub[1]

    return vec.elementwise(one, number, from_unit, to_unit)


_COMPLEXNUM_FUNCTIONS = {
    "ERF": Spec(scalar_function(_erf, 1), 1, 2),
    "ERF.PRECISE": Spec(scalar_function(_erf, 1), 1, 1),
    "ERFC": Spec(scalar_function(_erfc, 1), 1, 1),
    "ERFC.PRECISE": Spec(scalar_function(_erfc, 1), 1, 1),
    "BESSELJ": Spec(scalar_function(_besselj, 2), 2, 2),
    "BESSELY": Spec(scalar_function(_bessely, 2), 2, 2),
    "BESSELI": Spec(scalar_function(_besseli, 2), 2, 2),
    "BESSELK": Spec(scalar_function(_besselk, 2), 2, 2),
    "CONVERT": Spec(_convert, 3, 3),
    "COMPLEX": Spec(_complex, 2, 3),
    "IMSUM": Spec(_fold(lambda a, b: a + b, complex(0.0)), 1, 255, "r"),
    "IMPRODUCT": Spec(_fold(lambda a, b: a * b, complex(1.0)), 1, 255, "r"),
    "IMSUB": Spec(_binary(lambda a, b: a - b), 2, 2),
    "IMDIV": Spec(_binary(_div), 2, 2),
    "IMPOWER": Spec(_power, 2, 2),
    **{name: Spec(_complex_fn(op, kind), 1, 1) for name, (op, kind) in _ONE.items()},
}


FUNCTIONS = {**_ENGINEERING_FUNCTIONS, **_COMPLEXNUM_FUNCTIONS}
