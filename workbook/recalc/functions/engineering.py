"""Base conversions: DEC2BIN, DEC2OCT, DEC2HEX, BIN2DEC, BIN2OCT, BIN2HEX, OCT2DEC, OCT2BIN,
OCT2HEX, HEX2DEC, HEX2BIN, HEX2OCT (Microsoft's function reference).

Binary, octal and hexadecimal numbers have at most 10 digits; the leftmost bit of a 10-digit
number is the sign (two's complement), so the ranges are -512..511 (binary), -2^29..2^29-1
(octal) and -2^39..2^39-1 (hexadecimal). ``places`` pads a non-negative result with zeros
(#NUM! if it is too short); below 1 or above 10 it is #NUM! whatever the number (checked
first); negative results are always 10 digits. A number outside the target's range, or a digit
the base does not have, is #NUM!; TRUE/FALSE and non-numeric text for a decimal are #VALUE!.
Checked against Excel's cached values in xlcalculator's BASES.xlsx (tests/data/excel_corpus).
"""

from __future__ import annotations

import math

from gputco.workbook.recalc.run import vec
from gputco.workbook.recalc.run.values import NUM, VALUE, XlError, parse_number

from ._args import Spec

BASES = {"BIN": (2, 10), "OCT": (8, 30), "HEX": (16, 40), "DEC": (10, 0)}
_DIGITS = "0123456789ABCDEF"


def _decimal(v):
    """A decimal argument as an integer (truncated), or an error."""
    if isinstance(v, XlError):
        return v
    if isinstance(v, bool):
        return VALUE
    if v is None:
        return 0
    if isinstance(v, str):
        v = parse_number(v)
        if v is None:
            return VALUE
    if not math.isfinite(v):
        return NUM
    return math.trunc(v)


def _from_base(v, base: str):
    """A BIN/OCT/HEX argument (text or a number written in that base) as an integer."""
    if isinstance(v, XlError):
        return v
    if isinstance(v, bool):
        return VALUE
    if v is None:
        return 0
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


FUNCTIONS = {
    f"{a}2{b}": Spec(_converter(a, b), 1, 1 if b == "DEC" else 2) for a in BASES for b in BASES if a != b
}
