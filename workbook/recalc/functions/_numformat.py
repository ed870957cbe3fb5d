"""Excel's fraction (``# ?/?``) and scientific (``0.00E+00``, ``##0.0E+0``) number formats, for
TEXT: one job, kept apart from the rest of TEXT's format reading (text.py).

A format arrives as text.py's tokens, ``(kind, text)`` with kind "lit" (literal text) or "code".

Fractions (Microsoft, "Number format codes": ``# ?/?`` shows 5.25 as "5 1/4", ``?/?`` as an
improper fraction; ``# ?/8`` a fixed denominator). The digits before ``/`` are the numerator, the
placeholders before it (apart from it by literal text) the whole part, those after ``/`` the
denominator: its placeholder count bounds it (``??`` up to 99; the closest fraction is taken) or
it is written (``/8``). Where the fraction is 0 and the numerator has no ``0`` placeholder the
fraction is not shown: blanks of its width where a ``?`` asks for alignment, nothing else; a whole
part of 0 beside a fraction shows no digit (``?`` a blank), and its separator goes with it.
These rules are read off Excel's own answers in POI's NumberFormatTests.xlsx (rows 120-332 of
tests/data/excel_corpus, which tests/recalc/test_excel_corpus.py compares cell by cell).

Scientific: digits before ``E+``/``E-``/``e+``/``e-`` are the mantissa, after it the exponent;
with more than one whole-number placeholder the exponent is a multiple of their count
(engineering notation, ``##0.0E+0`` shows 12345 as "12.3E+3"); ``E-`` shows the exponent's sign
only when negative, ``E+`` always, just before the exponent's digits; ``%`` and commas outside
the mantissa's digits are shown (``%``) or dropped (``,``) without scaling; 0 shows every
whole-number placeholder as 0. Read off Excel's answers in POI's NumberFormatApproxTests.xlsx.

Anything else such a format could hold (a decimal point in a fraction, placeholders after the
exponent's digits, mixed denominator placeholders) raises :class:`FormatUnsupported`, and the
cell keeps its stored value, rather than being guessed.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

PLACEHOLDERS = "0#?"
#: codes that format as themselves (text.py reads them as codes: they need no quotes)
_SELF = "$-+():/ "


class FormatUnsupported(Exception):
    """A format whose Excel output is not modelled."""


def is_fraction(tokens) -> bool:
    """A ``/`` between digit placeholders (or before a written denominator)."""
    for i, (k, t) in enumerate(tokens):
        if k == "code" and t == "/":
            before = [x for x in tokens[:i] if x[0] == "code" and x[1] in PLACEHOLDERS]
            after = tokens[i + 1 :]
            later = [x for x in after if x[1] in PLACEHOLDERS or (x[0] == "lit" and x[1][:1].isdigit())]
            if before and later:
                return True
    return False


def decimal15(x: float) -> Decimal:
    """The number as Excel holds it: 15 significant digits."""
    return Decimal(format(x, ".15g"))


def group(digits: str) -> str:
    """Thousands separators between digits, leading zeros kept: '0001234567' -> '0,001,234,567'.
    Leading blanks (``?`` placeholders without a digit) keep their places, and a separator
    between two of them, or between a blank and the first digit, is a blank too: the text is
    as wide as the placeholders grouped (Excel: TEXT(1234567, "?,?????????") is 4 blanks, then
    1,234,567; TEXT(123456.789, "?,??????.????e-?") 2 blanks, then 123,456.789; POI's
    NumberFormatTests.xlsx and NumberFormatApproxTests.xlsx)."""
    body = digits.lstrip(" ")
    lead = digits[: len(digits) - len(body)]
    lead += " " * sum(1 for s in range(max(len(body), 1), len(digits)) if s % 3 == 0)
    parts = []
    while len(body) > 3:
        parts.insert(0, body[-3:])
        body = body[:-3]
    return lead + ",".join([body, *parts] if body else parts)


def place(kinds: list[str], digits: str) -> list[str]:
    """Digits right to left into placeholders; the extra ones go to the leftmost; an unfilled
    ``0`` shows 0, ``?`` a blank, ``#`` nothing."""
    out = []
    ds = list(digits)
    for kind in reversed(kinds):
        out.append(ds.pop() if ds else "0" if kind == "0" else " " if kind == "?" else "")
    out.reverse()
    if out and ds:
        out[0] = "".join(ds) + out[0]
    return out


def _literal(tokens):
    """Codes that show as themselves become literal text."""
    return [("lit", t) if k == "code" and t in _SELF else (k, t) for k, t in tokens]


def _grouping(tokens, positions: list[int]) -> bool:
    """A comma between the whole-number placeholders; one anywhere else is refused."""
    commas = [i for i, (k, t) in enumerate(tokens) if k == "code" and t == ","]
    inside = [i for i in commas if positions and positions[0] < i < positions[-1]]
    if inside and any(k == "lit" for k, _ in tokens[positions[0] : positions[-1]]):
        raise FormatUnsupported("thousands separator between literal text")
    return bool(inside)


# --- fractions ----------------------------------------------------------------------------------


def format_fraction(x: float, tokens, signed: bool) -> str:
    """``x`` in a fraction format (see the module's docstring)."""
    tokens = list(tokens)
    slash = next(i for i, (k, t) in enumerate(tokens) if k == "code" and t == "/")
    tokens = _literal(tokens)
    tokens[slash] = ("slash", "/")
    if any(k == "code" and t not in PLACEHOLDERS + "," for k, t in tokens):
        raise FormatUnsupported("fraction format with " + "".join(t for k, t in tokens if k == "code"))
    # the denominator: placeholders, or written digits (``/8``, ``/100``)
    j = slash + 1
    while j < len(tokens) and tokens[j][0] == "lit" and not tokens[j][1][:1].isdigit():
        j += 1
    den_start, fixed = j, ""
    if j < len(tokens) and tokens[j][0] == "lit" and tokens[j][1][:1] in "123456789":
        while j < len(tokens) and (
            (tokens[j][0] == "lit" and tokens[j][1].isdigit()) or tokens[j] == ("code", "0")
        ):
            fixed += tokens[j][1]
            j += 1
    else:
        while j < len(tokens) and tokens[j][0] == "code" and tokens[j][1] in PLACEHOLDERS:
            j += 1
    den_pos = list(range(den_start, j))
    if not den_pos or any(k != "lit" for k, _ in tokens[j:]):
        raise FormatUnsupported("fraction format with digits after the denominator")
    # the numerator: the placeholders just before the slash (literal text may come between)
    j = slash - 1
    while j >= 0 and tokens[j][0] == "lit":
        j -= 1
    num_end = j + 1
    while j >= 0 and tokens[j][0] == "code" and tokens[j][1] in PLACEHOLDERS:
        j -= 1
    num_pos = list(range(j + 1, num_end))
    if not num_pos:
        raise FormatUnsupported("fraction format without a numerator")
    # the separator (literal text) and the whole part before it
    k = j
    while k >= 0 and tokens[k][0] == "lit":
        k -= 1
    sep_pos = list(range(k + 1, j + 1))
    int_pos = [i for i in range(k + 1) if tokens[i][0] == "code" and tokens[i][1] in PLACEHOLDERS]
    if not int_pos:  # an improper fraction: the literal text before the numerator is a prefix
        sep_pos = []
    if any(tokens[i] == ("code", ",") for i in range(k + 1, len(tokens))):
        raise FormatUnsupported("comma in a fraction's numerator or denominator")
    grouping = _grouping(tokens[: k + 1], int_pos)
    int_kinds = [tokens[i][1] for i in int_pos]
    num_kinds = [tokens[i][1] for i in num_pos]
    den_kinds = [] if fixed else [tokens[i][1] for i in den_pos]
    if len(set(den_kinds)) > 1:
        raise FormatUnsupported("denominator of mixed placeholders")

    value = Fraction(decimal15(abs(x)))
    whole = int(value) if int_pos else 0
    rest = value - whole
    if fixed:
        den = int(fixed)
        if (rest * den) % 1 == Fraction(1, 2):  # a tie: Excel's rounding is not documented
            raise FormatUnsupported("a fraction halfway between two numerators")
        num = math.floor(rest * den + Fraction(1, 2))
    else:
        best = rest.limit_denominator(10 ** len(den_pos) - 1)
        num, den = best.numerator, best.denominator
    if int_pos and num == den:
        whole, num = whole + 1, 0
    if num == 0 and not fixed:
        den = 1
    if max(whole, num) >= 10**15:  # beyond Excel's 15 digits: how it shows them is not documented
        raise FormatUnsupported("a fraction of a number of more than 15 digits")
    if x < 0 and signed and not (whole or num):
        raise FormatUnsupported("a negative number shown as zero")
    neg = "-" if x < 0 and signed else ""
    shown = num != 0 or not int_pos or "0" in num_kinds
    out = [t if kind == "lit" else "" for kind, t in tokens]
    # the whole part
    if whole:
        digits = str(whole)
    elif not shown:
        digits = "0"  # nothing else shows: the whole part shows 0
    elif num == 0:
        digits = "" if int_kinds and int_kinds[-1] == "#" else "0"
    else:
        digits = ""
    int_texts = place(int_kinds, digits)
    for i, t in zip(int_pos, int_texts, strict=True):
        out[i] = t
    if grouping:
        for i in int_pos:
            out[i] = ""
        out[int_pos[0]] = group("".join(int_texts))
    if not shown:  # the fraction, its separator included, is blank or left out
        if fixed:  # how wide the blank of a written denominator is, is not documented
            raise FormatUnsupported("a fraction of 0 with a written denominator")
        start = sep_pos[0] if sep_pos else num_pos[0]
        width = sum(len(t) if kind == "lit" else 1 for kind, t in tokens[start : den_pos[-1] + 1])
        blank = " " * width if "?" in int_kinds + num_kinds + den_kinds else ""
        return neg + "".join(out[:start]) + blank + "".join(out[den_pos[-1] + 1 :])
    if int_pos and not whole and not any(c.isdigit() for c in "".join(int_texts)):
        blank = "?" in int_kinds + num_kinds
        for i in sep_pos:
            out[i] = " " * len(tokens[i][1]) if blank else ""
    for i, t in zip(num_pos, place(num_kinds, str(num)), strict=True):
        out[i] = t
    out[slash] = "/"
    if fixed:
        for i in den_pos:
            out[i] = tokens[i][1]
    else:
        den_text = str(den)
        if den_kinds[0] == "?":  # left-aligned: the slashes of a column line up
            den_text = den_text.ljust(len(den_pos))
        elif den_kinds[0] == "0":
            den_text = den_text.zfill(len(den_pos))
        for n, i in enumerate(den_pos):
            out[i] = den_text if n == 0 else ""
    return neg + "".join(out)


# --- scientific ---------------------------------------------------------------------------------


def format_scientific(x: float, tokens, signed: bool) -> str:
    """``x`` in a scientific format (see the module's docstring)."""
    tokens = _literal(tokens)
    epos = next(i for i, (k, t) in enumerate(tokens) if k == "code" and t in "Ee")
    sign_tok = tokens[epos + 1] if epos + 1 < len(tokens) else ("", "")
    if sign_tok[1] not in "+-" or not sign_tok[1]:
        raise FormatUnsupported("exponent without its sign")
    mant, expo = tokens[:epos], tokens[epos + 2 :]
    dot = next((i for i, (k, t) in enumerate(mant) if k == "code" and t == "."), len(mant))
    int_pos = [i for i in range(dot) if mant[i][0] == "code" and mant[i][1] in PLACEHOLDERS]
    frac_pos = [i for i in range(dot + 1, len(mant)) if mant[i][0] == "code" and mant[i][1] in PLACEHOLDERS]
    exp_pos = [i for i, (k, t) in enumerate(expo) if k == "code" and t in PLACEHOLDERS]
    if not int_pos or not exp_pos:
        raise FormatUnsupported("scientific format without whole-number or exponent digits")
    if any(k == "code" and t not in PLACEHOLDERS + ",.%" for k, t in mant + expo) or any(
        t == "." for k, t in expo if k == "code"
    ):
        raise FormatUnsupported("scientific format with " + "".join(t for k, t in mant + expo if k == "code"))
    grouping = _grouping(mant, int_pos)
    k, p = len(int_pos), len(frac_pos)
    d = decimal15(abs(x))
    if d == 0:
        e, int_digits, frac_digits = 0, "0" * k, "0" * p
    else:
        e = (d.adjusted() // k) * k
        m = d.scaleb(-e).quantize(Decimal(1).scaleb(-p), rounding=ROUND_HALF_UP)
        if m >= Decimal(10) ** k:
            e += k
            m = d.scaleb(-e).quantize(Decimal(1).scaleb(-p), rounding=ROUND_HALF_UP)
        int_digits, _, frac_digits = f"{m:f}".partition(".")
        int_digits = int_digits.lstrip("0")
        frac_digits = frac_digits.ljust(p, "0")
    int_kinds = [mant[i][1] for i in int_pos]
    frac_kinds = [mant[i][1] for i in frac_pos]
    texts = place(int_kinds, int_digits)
    keep = len(frac_digits)  # trailing zeros of # and ? placeholders: not shown (? a blank)
    for n in range(p - 1, -1, -1):
        if frac_kinds[n] == "0" or frac_digits[n] != "0":
            break
        keep = n
    ftexts = [frac_digits[n] if n < keep else (" " if frac_kinds[n] == "?" else "") for n in range(p)]
    out = [t if kd == "lit" or t in ".%" else "" for kd, t in mant]
    for i, t in zip(frac_pos, ftexts, strict=True):
        out[i] = t
    for i, t in zip(int_pos, texts, strict=True):
        out[i] = t
    if grouping:
        whole = "".join(texts)
        for i in int_pos:
            out[i] = ""
        out[int_pos[0]] = group(whole)
    exp_texts = place([expo[i][1] for i in exp_pos], str(abs(e)))
    sign = "-" if e < 0 else "+" if sign_tok[1] == "+" else ""
    tail = [t if kd == "lit" or t == "%" else "" for kd, t in expo]
    for i, t in zip(exp_pos, exp_texts, strict=True):
        tail[i] = t
    tail[exp_pos[0]] = sign + tail[exp_pos[0]]
    neg = "-" if x < 0 and signed and d != 0 else ""
    return neg + "".join(out) + tokens[epos][1] + "".join(tail)
