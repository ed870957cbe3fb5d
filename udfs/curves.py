"""Curve inputs: factors by year given as text, a number, an Excel range or a finance preset key.

A curve is a tuple of factors by year t = 0, 1, 2, ...; past the last factor the last one holds.
The three curves of the market model and what their factor t means:

- ``rent_curve``: the rent in year t of operation = the rent input x factor t (t = 0 the first
  year); a constant decline d is the curve (1 - d)^t.
- ``value_curve``: the GPUs' market value at the end of year t after purchase = the all-in capex x
  factor t (t0 = 1 at purchase in every preset).
- ``base_rate_curve``: the base rate (SOFR) in year t of the loan, to which ``debt_spread`` adds.

Each may be given as

- text, ``"1, 0.85, 0.7225"`` (commas or semicolons between the factors): what a CSV column, a
  scenario SPEC and an Excel cell carry;
- a finance preset key of its group (udfs/data/finance.toml), ``"rent_h100_2024_25"``;
- one number (a flat curve), or a list or an Excel range of numbers (blank cells after the last
  factor are left out);
- empty (None or blank text): the default, which the caller chooses (None is returned).

Every factor is checked against the range of its curve in the one range table
(:mod:`gputco.udfs.ranges`); an error names the curve, the factor (t) and the valid range.

>>> parse("rent_curve", "1, 0.85, 0.7225")
(1.0, 0.85, 0.7225)
>>> parse("rent_curve", "rent_h100_2024_25")
(1.0, 0.5916, 0.35, 0.4865)
>>> parse("base_rate_curve", 0.043)
(0.043,)
>>> parse("rent_curve", "") is None
True
>>> parse("value_curve", "1, 0.7, -0.5")
Traceback (most recent call last):
...
gputco.udfs.errors.InputRangeError: value_curve factor t2 must be in (0, inf), got -0.5
>>> parse("rent_curve", "1, 0.8x")
Traceback (most recent call last):
...
gputco.udfs.errors.InputTypeError: rent_curve factor t1 must be a number, got '0.8x' (str)
>>> at((1.0, 0.8, 0.6), [0, 1, 2, 3, 9])
array([1. , 0.8, 0.6, 0.6, 0.6])
"""

from __future__ import annotations

import math
from numbers import Real

import numpy as np

from . import presets, ranges
from .errors import InputRangeError, InputTypeError, MissingValueError, UnknownNameError

#: the curve inputs, each with its finance-preset group (udfs/data/finance.toml)
CURVES = {"rent_curve": "rent_curve", "value_curve": "value_curve", "base_rate_curve": "base_rate_curve"}
#: the most factors a curve may have: one a year over the longest life the model takes (100 years)
MAX_FACTORS = 100
#: how a loan's rate is set: ``fixed`` (``debt_rate``) or ``floating`` (``base_rate_curve`` +
#: ``debt_spread``)
RATE_BASES = ("fixed", "floating")
SEPARATORS = (",", ";")


def parse(arg: str, value: object) -> tuple[float, ...] | None:
    """The factors of curve input ``arg`` (a name of :data:`CURVES`) given as ``value``; None where
    it is empty (the caller's default applies)."""
    if arg not in CURVES:
        raise UnknownNameError("curve input", arg, CURVES)
    if value is None or (isinstance(value, str | np.str_) and not str(value).strip()):
        return None
    if isinstance(value, str | np.str_):
        items = _split(arg, str(value))
    elif isinstance(value, bool | np.bool_):
        raise InputTypeError(arg, value, "factors by year (text '1, 0.85'), a preset key or numbers")
    elif isinstance(value, Real):
        items = [value]
    elif isinstance(value, list | tuple | np.ndarray):
        items = _trimmed(np.asarray(value, dtype=object).ravel().tolist())
        if not items:
            return None
    else:
        raise InputTypeError(arg, value, "factors by year (text '1, 0.85'), a preset key or numbers")
    if isinstance(items, tuple):  # a preset's curve, sourced and checked on reading
        return items
    return _checked(arg, items)


def _split(arg: str, text: str) -> list | tuple[float, ...]:
    """The factors of a text, or a preset's factors where the text is one name."""
    parts = [text]
    for sep in SEPARATORS:
        parts = [p for part in parts for p in part.split(sep)]
    parts = [p.strip() for p in parts]
    if len(parts) > 1:
        parts = _trimmed(parts)  # "1, 0.8," as "1, 0.8"
    if len(parts) == 1 and not _is_number(parts[0]):
        return presets.finance_curve(CURVES[arg], parts[0])  # UnknownNameError lists the keys
    return list(parts)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _trimmed(items: list) -> list:
    """An Excel range's values without the blank cells after the last factor."""
    while items and (items[-1] is None or (isinstance(items[-1], str) and not items[-1].strip())):
        items.pop()
    return items


def _checked(arg: str, items: list[object]) -> tuple[float, ...]:
    if len(items) > MAX_FACTORS:
        raise InputRangeError(f"{arg} (number of factors)", len(items), f"[1, {MAX_FACTORS}]")
    r = ranges.of(arg)
    out = []
    for t, item in enumerate(items):
        name = f"{arg} factor t{t}"
        if item is None or (isinstance(item, str) and not item.strip()):
            raise MissingValueError(name, "every year up to the last needs a factor")
        if isinstance(item, bool | np.bool_):
            raise InputTypeError(name, item, "a number, not TRUE/FALSE")
        if isinstance(item, str):
            if not _is_number(item):
                raise InputTypeError(name, item, "a number")
            item = float(item)
        if not isinstance(item, Real):
            raise InputTypeError(name, item, "a number")
        x = float(item)
        if not math.isfinite(x) or not _within(x, r):
            raise InputRangeError(name, x, r.interval)
        out.append(x)
    return tuple(out)


def _within(x: float, r: ranges.Range) -> bool:
    above = x > r.lo if r.lo_open else x >= r.lo
    below = x < r.hi if r.hi_open else x <= r.hi
    return above and below


def at(curve: tuple[float, ...], t: object) -> np.ndarray:
    """The factors of ``curve`` at years ``t`` (whole numbers >= 0); past the last the last holds."""
    index = np.minimum(np.asarray(t, dtype=np.intp), len(curve) - 1)
    return np.asarray(curve, dtype=float)[index]


def decline(rate: float, n: int) -> tuple[float, ...]:
    """The curve of a constant decline per year: (1 - rate)^t for t = 0 .. n - 1.

    >>> decline(0.15, 3)
    (1.0, 0.85, 0.7224999999999999)
    """
    return tuple((1.0 - rate) ** t for t in range(n))


def rate_basis(value: object) -> str:
    """``fixed`` or ``floating`` (case-insensitive; empty = ``fixed``, today's).

    >>> rate_basis(" Floating")
    'floating'
    """
    if value is None or (isinstance(value, str) and not value.strip()):
        return "fixed"
    if not isinstance(value, str):
        raise InputTypeError("debt_rate_basis", value, "fixed or floating")
    key = presets.normalize(value)
    if key not in RATE_BASES:
        raise UnknownNameError("debt_rate_basis", value, RATE_BASES)
    return key
