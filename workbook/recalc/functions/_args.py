"""Argument handling shared by the function modules: numbers out of ranges, broadcasting.

Excel treats an argument differently depending on where it comes from: in a reference or an
array, SUM and friends take only the numbers (text, TRUE/FALSE and blanks are skipped); typed
directly as a scalar, a value is converted (TRUE is 1, "3" is 3, "x" is #VALUE!). Errors always
propagate, the first one (in argument order) winning.
"""

from __future__ import annotations

import functools
import inspect
import math
import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from gputco.workbook.recalc.base import vec
from gputco.workbook.recalc.base.rangeval import RangeVal, materialize
from gputco.workbook.recalc.base.values import NULL, NUM, VALUE, XlError, to_number


def added(vals: np.ndarray) -> np.ndarray:
    """Row sums of an (m, K) array (NaN = not taking part), added left to right as Excel adds
    (numpy's pairwise sum rounds differently where large terms cancel: POI's
    FormulaEvalTestData_Copy.xlsx EverythingTests!D180, Excel -4.089355473190933e-09)."""
    if vals.shape[1] == 0:
        return np.zeros(vals.shape[0])
    return np.cumsum(np.where(np.isnan(vals), 0.0, vals), axis=1)[:, -1]


def is_rangelike(x) -> bool:
    """True for references and arrays of more than one element (vs. a scalar expression)."""
    return isinstance(x, RangeVal) or x.shape[1] * x.shape[2] > 1


def numbers(args, *, errors: bool = True, scalars: str = "coerce", logical: bool = False):
    """Collect the numbers of aggregate arguments, one row per formula cell.

    Returns ``(vals, err)``: ``vals`` an (m, K) float array with NaN where an element is not a
    number taking part, ``err`` None or an (m,) object array holding each row's first error
    (None for rows without one). ``errors=False`` drops errors instead (COUNT).
    ``scalars="coerce"`` converts scalar arguments (SUM); ``"numbers"`` counts only those that
    convert cleanly without raising (COUNT). ``logical=True`` reads ranges and arrays as the
    "A" functions do (AVERAGEA, MAXA, MINA): TRUE is 1, FALSE and text (even "") are 0; blanks
    are still skipped.
    """
    parts, errs = [], []
    for a in args:
        if a is None:
            continue
        if is_rangelike(a):
            arr = materialize(a)
            m = arr.shape[0]
            flat = arr.reshape(m, -1)
            if flat.dtype == vec.FLOAT or (logical and flat.dtype == vec.BOOL):
                parts.append(flat if flat.dtype == vec.FLOAT else flat.astype(vec.FLOAT))
                errs.append(None)
                continue
            vals = [
                _logical(v) if logical else v if isinstance(v, float) and not isinstance(v, bool) else np.nan
                for v in flat.ravel().tolist()
            ]
            parts.append(np.array(vals, dtype=vec.FLOAT).reshape(flat.shape))
            errs.append(_err_part(flat) if errors else None)
        else:
            m = a.shape[0]
            conv = [to_number(v) for v in a.reshape(m).tolist()]
            vals = [v if isinstance(v, float) else np.nan for v in conv]
            parts.append(np.array(vals, dtype=vec.FLOAT).reshape(m, 1))
            e = np.array([v if isinstance(v, XlError) else None for v in conv], dtype=object)
            if scalars == "numbers" or not errors:
                e[:] = None
            errs.append(e.reshape(m, 1) if any(x is not None for x in e) else None)
    if not parts:
        return np.zeros((1, 0)), None
    m = max(p.shape[0] for p in parts)
    vals = np.concatenate([np.broadcast_to(p, (m, p.shape[1])) for p in parts], axis=1)
    return vals, _first_error(errs, parts, m)


def _logical(v) -> float:
    """An element of a range or array as AVERAGEA/MAXA/MINA read it (NaN: skipped)."""
    if isinstance(v, bool):
        return 1.0 if v else 0.0
    if isinstance(v, float):
        return v
    return 0.0 if isinstance(v, str) else np.nan


def _err_part(flat: np.ndarray):
    e = np.array(
        [v if isinstance(v, XlError) else None for v in flat.ravel().tolist()], dtype=object
    ).reshape(flat.shape)
    return e if any(x is not None for x in e.ravel()) else None


def _first_error(errs, parts, m):
    if all(e is None for e in errs):
        return None
    out = np.full(m, None, dtype=object)
    for e, p in zip(errs, parts, strict=True):
        if e is None:
            continue
        e = np.broadcast_to(e, (m, p.shape[1]))
        for i in range(m):
            if out[i] is None:
                row = e[i]
                hit = next((x for x in row if x is not None), None)
                out[i] = hit
    return out if any(x is not None for x in out) else None


def paired_numbers(x, y):
    """Two arrays' elements paired in reading order (SUMXMY2, COVARIANCE.P): ``(fx, fy, both,
    errors)`` with (m, K) numbers, the mask of pairs of two numbers and each row's first error
    (:func:`row_errors`); None when the counts of elements differ (Excel's #N/A)."""
    a, b = materialize(x), materialize(y)
    if a.shape[1] * a.shape[2] != b.shape[1] * b.shape[2]:
        return None
    m = max(a.shape[0], b.shape[0])
    fx, fy = element_numbers(x, m), element_numbers(y, m)
    return fx, fy, ~np.isnan(fx) & ~np.isnan(fy), row_errors([a, b])


def pair_errors(x, y) -> np.ndarray | None:
    """Each row's error of two arrays paired in reading order as Excel's regressions give it
    (CORREL, PEARSON, RSQ, SLOPE, INTERCEPT, STEYX, FORECAST, COVARIANCE.P/S): the pairs in
    order, a pair whose first element is #NULL! passed over, in each other pair the first
    array's element before the second's: the first error (#NULL! where only the pairs passed over
    have errors); None if no error at all. Fitted to the cells
    Mac Excel cached in vinci1it2000/formulas test/test_files/test.xlsx, STATISTICAL sheet:
    CORREL!Y20 of (TRUE, #VALUE!, #N/A) and (#N/A, #DIV/0!, #NAME?) is #N/A; COVARIANCE.P!AD26 of
    (#NULL!, #NUM!, #REF!) and (#REF!, -0.01, -0.01) is #NUM!; INTERCEPT!AD55 of (#NULL!, #NUM!,
    #REF!, 0.075, 0.175) and (#VALUE!, #N/A, #DIV/0!, #NAME?, #NULL!) is #NUM!; FORECAST!AD37
    of ("29/02/1900", TRUE, #VALUE!) and (#NAME?, #NULL!, #NUM!) is #NAME?; CORREL!AB20 of
    (#DIV/0!, #NAME?, #NULL!) and (#NULL!, #NUM!, #REF!) is #DIV/0! (neither the first
    error of the first array nor the highest error code gives all of these)."""
    a, b = materialize(x), materialize(y)
    m = max(a.shape[0], b.shape[0])
    if not (vec.is_error_array(a).any() or vec.is_error_array(b).any()):
        return None
    fa, fb = a.reshape(a.shape[0], -1), b.reshape(b.shape[0], -1)
    out = np.full(m, None, dtype=object)
    for i in range(m):
        ra, rb = fa[min(i, fa.shape[0] - 1)].tolist(), fb[min(i, fb.shape[0] - 1)].tolist()
        for u, v in zip(ra, rb, strict=False):  # two samples (F.TEST) may differ in size
            if u is NULL:
                continue
            e = u if isinstance(u, XlError) else v if isinstance(v, XlError) else None
            if e is not None:
                out[i] = e
                break
        else:
            if any(e is NULL for e in (*ra, *rb)):
                out[i] = NULL
    return out


def element_numbers(x, m: int) -> np.ndarray:
    """(m, K) numbers of a paired-array argument (SUMXMY2, COVARIANCE.P): the elements of a
    reference or array (text, booleans and blanks NaN), or a scalar converted as arithmetic does."""
    flat = materialize(x)
    flat = np.broadcast_to(flat, (m, *flat.shape[1:])).reshape(m, -1)
    if flat.dtype == vec.FLOAT:
        return flat
    conv = flat.ravel().tolist() if is_rangelike(x) else [to_number(v) for v in flat.ravel().tolist()]
    vals = [v if isinstance(v, float) and not isinstance(v, bool) else np.nan for v in conv]
    return np.array(vals, dtype=vec.FLOAT).reshape(flat.shape)


def row_errors(arrays) -> np.ndarray | None:
    """Each row's first error over arrays of shape (m_i, h, w), in order; None if none at all."""
    found = []
    for a in arrays:
        mask = vec.is_error_array(a)
        if mask.any():
            found.append((mask.reshape(a.shape[0], -1), a.reshape(a.shape[0], -1)))
    if not found:
        return None
    m = max(mask.shape[0] for mask, _ in found)
    out = np.full(m, None, dtype=object)
    for mask, vals in reversed(found):  # earlier arrays overwrite later ones
        for i in range(m):
            mi = mask[min(i, mask.shape[0] - 1)]
            if mi.any():
                out[i] = vals[min(i, vals.shape[0] - 1)][mi][0]
    return out


def result(values: np.ndarray, err, bad: XlError | None = None) -> np.ndarray:
    """(m,) numeric results with row errors as an (m, 1, 1) value; NaN/inf become ``bad``."""
    out = values.reshape(-1, 1, 1)
    if err is not None:
        mask = np.array([e is not None for e in err], dtype=bool).reshape(-1, 1, 1)
        return vec.finish(out, (mask, np.asarray(err, dtype=object).reshape(-1, 1, 1)), bad=bad or VALUE)
    return vec.finish(out, None, bad=bad) if bad is not None else vec.finish(out, None)


#: parameters Excel documents as "a logical value" (the distributions' cumulative, VDB's
#: no_switch, ACCRINT's calc_method, DAYS360's method): :func:`scalar_function` reads an argument
#: given for a parameter of one of these names as a condition (:func:`.vec.bools`), not as a number
LOGICAL_PARAMS = frozenset({"cumulative", "no_switch", "calc_method", "method"})


def scalar_nums(*xs, logical=()):
    """Numbers of scalar arguments (None stays None) and their merged errors, leftmost first.

    The arguments at the positions ``logical`` are logical values, read as a condition is
    (:func:`.vec.bools`): a number is TRUE when non-zero, a blank FALSE, and of texts only
    "TRUE" and "FALSE" (any case) are logical values; any other text is #VALUE!, a number's text
    too. They come out as 1.0 or 0.0 (NaN under an error). Excel-saved: formulas' test.xlsx
    STATISTICAL!U74 ``NORM.S.DIST(3,"TRUE")`` is 0.99865, COMPATIBILITY!U26
    ``NORMDIST(3,-1,2,"TRUE")`` 0.97725, STATISTICAL!T74 ``NORM.S.DIST(0.7,"1")`` #VALUE!
    (where "1" given for a number is 1: T73 ``NORM.DIST(0.7,"1","3",5)`` is 0.46017).

    >>> (f, b), e = scalar_nums(vec.const("2"), vec.const("true"), logical=(1,))
    >>> f.item(), b.item(), e
    (2.0, 1.0, None)
    >>> (b,), e = scalar_nums(vec.const("1"), logical=(0,))
    >>> b.item(), e[1].item()
    (nan, #VALUE!)
    """
    out, errs = [], []
    for i, x in enumerate(xs):
        if x is None:
            out.append(None)
            continue
        f, e = _logical_num(x) if i in logical else vec.nums(x)
        out.append(f)
        errs.append(e)
    return out, vec.merge(*errs)


def _logical_num(x):
    b, e = vec.bools(x)
    f = b.astype(vec.FLOAT)
    if e is not None:
        f = np.where(e[0], np.nan, f)
    return f, e


def scalar_function(func, n_required: int, *, text: bool = False):
    """An Excel function of scalar numbers, applied element-wise over broadcast arguments.

    ``func(*floats)`` gets each argument as a float (None where an optional one is omitted) and
    returns a float or an :class:`XlError` (with ``text=True``: a str, as BASE and ROMAN do); an
    argument for a parameter named in :data:`LOGICAL_PARAMS` is read as a logical value and
    passed as 1.0 or 0.0. Argument errors (and #VALUE! for text that is not a number) win over
    the function's own, leftmost first; a non-finite result is #NUM!.
    """
    logical = tuple(i for i, p in enumerate(inspect.signature(func).parameters) if p in LOGICAL_PARAMS)

    def impl(*args):
        # a required argument left empty (NORM.DIST(1,0,1,)) reads as 0 (FALSE), as in Excel
        args = [vec.const(0.0) if a is None and i < n_required else a for i, a in enumerate(args)]
        vals, e = scalar_nums(*args, logical=logical)
        present = [v for v in vals if v is not None]
        shape = np.broadcast_shapes(*(v.shape for v in present)) if present else (1, 1, 1)
        cols = [None if v is None else np.broadcast_to(v, shape).ravel().tolist() for v in vals]
        out = np.empty(int(np.prod(shape)), dtype=vec.OBJ if text else vec.FLOAT)
        errs = np.zeros(out.shape, dtype=vec.BOOL)
        codes = np.empty(out.shape, dtype=vec.OBJ)
        for i in range(out.size):
            xs = [None if c is None else c[i] for c in cols]
            if any(x is not None and math.isnan(x) for x in xs):
                out[i] = np.nan  # an argument error: put back by finish below
                continue
            try:
                r = func(*xs)
            except (OverflowError, ValueError, ZeroDivisionError):
                r = NUM
            if isinstance(r, XlError):
                out[i], errs[i], codes[i] = np.nan, True, r
            else:
                out[i] = r
        own = (errs.reshape(shape), codes.reshape(shape)) if errs.any() else None
        if text:  # the texts, with argument errors (NaN in ``out``) put back
            return vec.with_errors(out.reshape(shape), vec.merge(e, own))
        return vec.finish(out.reshape(shape), vec.merge(e, own))

    return functools.update_wrapper(impl, func)  # the function's module: its Excel category


def given_rows(args) -> tuple[list[tuple[object, np.ndarray]], int]:
    """The arguments given (an omitted one is None), each with its values as rows (rows, cells),
    and the most rows of any (at least 1)."""
    out, m = [], 1
    for a in args:
        if a is None:
            continue
        arr = materialize(a)
        m = max(m, arr.shape[0])
        out.append((a, arr.reshape(arr.shape[0], -1)))
    return out, m


def int_arg(f: np.ndarray) -> np.ndarray:
    """Excel truncates non-integer counts and indexes."""
    return np.trunc(f)


def wildcard(text: str):
    """Excel wildcard criterion (* ? and ~ escapes) as a case-insensitive regex; None if plain text."""
    if not any(ch in text for ch in "*?~"):
        return None
    return wildcard_regex(text)


def wildcard_regex(text: str, star: str = ".*", escaped: str | None = None):
    """Excel's wildcards as a case-insensitive regex: * any run (as ``star``), ? one character,
    ~x a literal x (any x, or only one of ``escaped``: another ~ is itself)."""
    out, i = [], 0
    while i < len(text):
        ch = text[i]
        if ch == "~" and i + 1 < len(text) and (escaped is None or text[i + 1] in escaped):
            out.append(re.escape(text[i + 1]))
            i += 2
            continue
        out.append(star if ch == "*" else "." if ch == "?" else re.escape(ch))
        i += 1
    return re.compile("".join(out), re.I | re.S)


def as_value(ctx, x):
    """A raw argument read as a value: references intersected with the formula's cells (or read
    whole in array formulas), as the evaluator does for ``"v"`` arguments."""
    if isinstance(x, RangeVal):
        return x.array_values() if ctx.array else x.intersect(ctx.rows, ctx.col)
    return x


@dataclass(frozen=True)
class Spec:
    """How the evaluator calls one function."""

    impl: Callable
    min_args: int
    max_args: int | None
    modes: str = "v"
    array: bool = False
    needs_ctx: bool = False
