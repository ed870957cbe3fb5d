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


def table(arg: str, value: object, n: int, default: tuple[float, ...] | None = None) -> np.ndarray:
    """The curves of ``n`` projects as one array (n, length), each padded with its last factor
    (so column min(t, length - 1) is factor t of every row): ``value`` one curve for every row
    (text, a number, a list) or one per row (an array of texts, or codes into categories as
    :class:`gputco.udfs.scenario.Coded`); an empty row takes ``default``, or is NaN without one
    (the caller's own default applies there, e.g. today's constant decline). A row's error names it.

    >>> table("rent_curve", ["1, 0.5", "", "0.9"], 3, (1.0, 0.8, 0.64))
    array([[1.  , 0.5 , 0.5 ],
           [1.  , 0.8 , 0.64],
           [0.9 , 0.9 , 0.9 ]])
    """
    if is_one_curve(value):
        one = parse(arg, value) or default or (math.nan,)
        return np.broadcast_to(np.asarray(one, dtype=float), (n, len(one)))
    if hasattr(value, "codes"):
        categories, codes = list(value.categories), np.asarray(value.codes).reshape(-1)  # type: ignore[attr-defined]
    else:
        cells = np.asarray(value, dtype=object).reshape(-1)
        categories, codes = [], np.empty(cells.size, dtype=np.intp)
        seen: dict[object, int] = {}
        for i, c in enumerate(cells.tolist()):
            key = "" if c is None else c
            codes[i] = seen.setdefault(key, len(seen))
        categories = list(seen)
    if codes.size == 1:
        codes = np.broadcast_to(codes, (n,))
    if codes.size != n:
        raise InputRangeError(f"{arg} (rows)", int(codes.size), f"1 or {n}, one per project")
    parsed = []
    for c in categories:
        try:
            parsed.append(parse(arg, c) or default or (math.nan,))
        except (InputRangeError, InputTypeError, MissingValueError, UnknownNameError) as err:
            row = int(np.argmax(codes == len(parsed)))
            raise _with_row(err, row) from None
    length = max(len(c) for c in parsed)
    padded = np.array([[*c, *[c[-1]] * (length - len(c))] for c in parsed], dtype=float)
    return padded[codes]


def is_one_curve(value: object) -> bool:
    """Is ``value`` one curve for every project (text, a number, a list of numbers), not one per
    project (an array of texts)?"""
    return value is None or isinstance(value, str | np.str_ | Real) or _is_flat_numbers(value)


def _is_flat_numbers(value: object) -> bool:
    """A list of numbers (one curve for every row), not a column of texts."""
    if not isinstance(value, list | tuple | np.ndarray):
        return False
    cells = np.asarray(value, dtype=object).reshape(-1)
    return all(c is None or (isinstance(c, Real) and not isinstance(c, bool)) for c in cells.tolist())


def _with_row(err: Exception, row: int) -> Exception:
    """``err`` again, naming the project's row as other array errors do (``element [row]``,
    0-based; a range error carries it as its index, which batch maps to the file's row)."""
    if isinstance(err, InputRangeError):
        return InputRangeError(err.arg, err.value, err.valid, (row,))
    arg = f"{err.arg} (element [{row}])"  # type: ignore[attr-defined]
    if isinstance(err, InputTypeError):
        return InputTypeError(arg, err.value, err.expected)
    if isinstance(err, UnknownNameError):
        return UnknownNameError(arg, err.value, err.valid)
    return MissingValueError(arg, str(err).partition(": ")[2])


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


def excel_at(curve: str, t: str) -> str:
    """An Excel formula for factor ``t`` (an expression, 0-based) of the curve whose factors are the
    text ``curve`` (a cell or an expression: "1, 0.85, 0.7225", commas or semicolons), past the
    last the last: what :func:`at` computes, in functions Excel and LibreOffice share. With the
    text between two added commas, factor i lies between comma i + 1 and comma i + 2, found by
    marking that one comma (SUBSTITUTE's instance) and FIND.

    >>> excel_at("A1", "B1")[:40]
    'VALUE(MID(","&SUBSTITUTE(A1,";",",")&","'
    """
    text = f'","&SUBSTITUTE({curve},";",",")&","'
    count = f'(LEN({text})-LEN(SUBSTITUTE({text},",",""))-1)'
    i = f"MIN({t},{count}-1)"

    def comma(k: str) -> str:
        return f'FIND(CHAR(1),SUBSTITUTE({text},",",CHAR(1),{k}))'

    start = comma(f"{i}+1")
    return f"VALUE(MID({text},{start}+1,{comma(f'{i}+2')}-{start}-1))"


def excel_text(ref: str) -> str:
    """The formula text of a curve input's factors in a workbook: the factors of the finance
    preset the cell ``ref`` names (its ``<key>.factors`` row on the Presets sheet, any case), else
    the cell's own text.

    >>> excel_text("B5")
    'IF(ISNUMBER(MATCH(B5&".factors",fin_id,0)),INDEX(fin_value,MATCH(B5&".factors",fin_id,0)),""&B5)'
    """
    match = f'MATCH({ref}&".factors",fin_id,0)'
    return f'IF(ISNUMBER({match}),INDEX(fin_value,{match}),""&{ref})'


def excel_value_at(curve: str, years: str) -> str:
    """An Excel formula for the value factor ``years`` after purchase (:func:`value_at`): the
    factors of the whole years around it joined linearly."""
    whole = f"INT(MAX(0,{years}))"
    a, b = excel_at(curve, whole), excel_at(curve, f"{whole}+1")
    return f"{a}+(MAX(0,{years})-{whole})*({b}-{a})"


def text(curve: tuple[float, ...]) -> str:
    """The text of a curve's factors, which :func:`parse` reads back exactly.

    >>> text((1.0, 0.85, 0.7225))
    '1.0, 0.85, 0.7225'
    """
    return ", ".join(repr(float(x)) for x in curve)


def value_at(curves: np.ndarray, years: object) -> np.ndarray:
    """The value factor of each project (a row of ``curves``, :func:`table`) ``years`` after
    purchase (one per row, or an array whose first axis is the rows): between the ends of years the factors are joined linearly; past the last factor the
    last holds.

    >>> value_at(np.array([[1.0, 0.7, 0.5]]), [1.5])
    array([0.6])
    """
    y = np.maximum(np.asarray(years, dtype=float), 0.0)
    last = curves.shape[1] - 1
    whole = np.floor(y)
    lo = np.minimum(whole, last).astype(np.intp)
    hi = np.minimum(whole + 1, last).astype(np.intp)
    rows = np.arange(curves.shape[0]).reshape((-1,) + (1,) * max(y.ndim - 1, 0))  # years (rows, ...)
    a, b = curves[rows, lo], curves[rows, hi]
    return a + (y - whole) * (b - a)


def factor_at(curves: np.ndarray, t: object) -> np.ndarray:
    """Factor ``t`` (whole years, 0-based) of each project's curve, past the last the last."""
    index = np.minimum(np.asarray(t, dtype=float), curves.shape[1] - 1).astype(np.intp)
    return curves[np.arange(curves.shape[0]), index]


def moved(shift: object, slope: object, t: object) -> np.ndarray:
    """The multiplier (1 + shift) x (1 + slope)^t of a curve shifted by ``shift`` and tilted by
    ``slope`` at its time ``t`` (1.0 exactly at shift = slope = 0, so the defaults change no bit).

    >>> float(moved(0.1, -0.5, 2))
    0.275
    """
    return (1.0 + np.asarray(shift, dtype=float)) * (1.0 + np.asarray(slope, dtype=float)) ** np.asarray(
        t, dtype=float
    )


def excel_moved(shift: str, slope: str, t: str) -> str:
    """The Excel formula of :func:`moved` (cells or expressions ``shift``, ``slope``, ``t``)."""
    return f"(1+{shift})*(1+{slope})^({t})"
