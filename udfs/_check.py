"""Argument checks shared by every model function.

Each check converts an argument to a float array (or a float for a scalar), and raises a typed
error naming the argument, the bad value and the valid range when anything is wrong. The checks
are vectorised: a million-element array costs a few comparisons, and the slow path that finds
the offending element only runs when there is one.
"""

from __future__ import annotations

import contextlib
import contextvars
import datetime
import decimal
import functools
import inspect
import math
from numbers import Real

import numpy as np

from . import ranges
from .errors import InputRangeError, InputShapeError, InputTypeError, MissingValueError

INF = math.inf


def interval(lo: float, hi: float, lo_open: bool, hi_open: bool) -> str:
    """Text of an interval in the usual notation, e.g. ``(0, 1]``.

    >>> interval(0, 1, True, False)
    '(0, 1]'
    >>> interval(0, INF, True, True)
    '(0, inf)'
    """
    left = "(" if lo_open else "["
    right = ")" if hi_open or hi == INF else "]"
    return f"{left}{_num(lo)}, {_num(hi)}{right}"


def _num(x: float) -> str:
    if x in (INF, -INF):
        return "inf" if x > 0 else "-inf"
    return f"{x:g}"


def number(
    arg: str,
    value: object,
    lo: float = -INF,
    hi: float = INF,
    *,
    lo_open: bool = False,
    hi_open: bool = False,
) -> np.ndarray | float:
    """Check that ``value`` is a finite number (or array of them) in the interval [lo, hi].

    Returns a float for a scalar and a float ndarray otherwise.

    >>> number("mfu", 0.4, 0, 1, lo_open=True)
    0.4
    >>> number("mfu", [0.4, 1.5], 0, 1, lo_open=True)
    Traceback (most recent call last):
    ...
    gputco.udfs.errors.InputRangeError: mfu must be in (0, 1], got 1.5 (element [1])
    """
    x = as_float(arg, value)
    if x.size and _within(*_extent(x), lo, hi, lo_open, hi_open):  # NaN fails: the slow path
        return float(x) if x.ndim == 0 else x
    ok = (x > lo) if lo_open else (x >= lo)
    if hi == INF:
        ok &= x < INF
    else:
        ok &= (x < hi) if hi_open else (x <= hi)
    if not ok.all():
        _raise_range(arg, x, ok, interval(lo, hi, lo_open, hi_open))
    return float(x) if x.ndim == 0 else x


#: inside :func:`extents_kept`: per array checked (by id, the array held so that the id stays its
#: own), its least and largest element, so that an array several functions read costs its two
#: reductions once
_EXTENTS: contextvars.ContextVar[dict | None] = contextvars.ContextVar("gputco_extents", default=None)


def _extent(x: np.ndarray) -> tuple[float, float]:
    if x.ndim == 0:  # a scalar: itself, without two reductions
        value = float(x)
        return value, value
    kept = _EXTENTS.get()
    if kept is None:
        return x.min(), x.max()
    got = kept.get(id(x))
    if got is None or got[0] is not x:
        got = kept[id(x)] = (x, x.min(), x.max())
    return got[1], got[2]


@contextlib.contextmanager
def extents_kept():
    """Within the block, each array's least and largest element are worked out once, whatever
    the number of checks of it (the arrays must not change in the block: the chain's steps make
    new arrays); :func:`keep_extent` gives bounds known without reading an array."""
    token = _EXTENTS.set({})
    try:
        yield
    finally:
        _EXTENTS.reset(token)


def least(x: np.ndarray) -> float:
    """The least element of an array (NaN if it has one), worked out once within
    :func:`extents_kept`.

    >>> least(np.array([0.3, 0.1]))
    0.1
    """
    return float(_extent(x)[0]) if x.size else INF


def keep_extent(x: np.ndarray, least: float, most: float) -> None:
    """Within :func:`extents_kept`: bounds of ``x`` known without reading it (values gathered
    from a table: the table's least and largest); checks of ``x`` use them."""
    kept = _EXTENTS.get()
    if kept is not None:
        kept[id(x)] = (x, least, most)


def _within(least: float, most: float, lo: float, hi: float, lo_open: bool, hi_open: bool) -> bool:
    """Whether the smallest and largest element lie in the interval (two reductions, no
    temporaries: a million-element check costs two passes); False if either is NaN."""
    if not ((least > lo) if lo_open else (least >= lo)):
        return False
    if hi == INF:
        return bool(most < INF)
    return bool((most < hi) if hi_open else (most <= hi))


def checked(arg: str, value: object, function: str | None = None) -> np.ndarray | float:
    """Check ``value`` against the range of ``arg`` in the one table, :data:`gputco.udfs.ranges.RANGES`.

    >>> checked("pue", 1.3)
    1.3
    >>> checked("pue", 0.9)
    Traceback (most recent call last):
    ...
    gputco.udfs.errors.InputRangeError: pue must be in [1, 5], got 0.9
    """
    return in_range(arg, value, ranges.of(arg, function))


def in_range(arg: str, value: object, r: ranges.Range) -> np.ndarray | float:
    """Check ``value`` against the range ``r`` (its interval, and whole numbers where it says so)."""
    try:
        x = number(arg, value, r.lo, r.hi, lo_open=r.lo_open, hi_open=r.hi_open)
    except InputRangeError as err:  # said as the range's rule, where it has one (the debt tenor)
        if r.rule is None:
            raise
        raise InputRangeError(arg, err.value, r.rule, err.index, err.bad) from None
    if r.whole:
        arr = np.asarray(x)
        ok = arr == np.floor(arr)
        if not ok.all():
            _raise_range(arg, arr, ok, str(r))
    return x


def positive(arg: str, value: object) -> np.ndarray | float:
    """A finite number > 0."""
    return number(arg, value, 0.0, INF, lo_open=True)


def non_negative(arg: str, value: object) -> np.ndarray | float:
    """A finite number >= 0."""
    return number(arg, value, 0.0, INF)


#: elements an argument may hold (8 GiB of floats): past it, one error naming the argument, not
#: numpy's MemoryError (``range(10**12)``)
MAX_ELEMENTS = 1 << 30
#: a number a float cannot hold (10**400 as a Python int): its text in the error
_FLOAT_RANGE = "a number within a float's range (magnitude below 1.8e308)"


def as_float(arg: str, value: object) -> np.ndarray:
    """Convert to a float ndarray, refusing None, text, booleans, complex numbers, dates and
    other non-numbers, numbers no float holds, and sizes or nesting past what memory and numpy
    hold: every refusal a :class:`GputcoError` naming ``arg``.

    >>> as_float("mfu", [0.5, 1]).tolist()
    [0.5, 1.0]
    >>> as_float("mfu", 1 + 2j)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gputco.udfs.errors.InputTypeError: mfu must be a real number, not complex, got (1+2j) (complex)
    >>> as_float("mfu", np.array([0.5, 10**400], dtype=object))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gputco.udfs.errors.InputRangeError: mfu must be a number within a float's range ..., got 1000...
    """
    if value is None:
        raise MissingValueError(arg, "a number is expected")
    if isinstance(value, np.ndarray):
        return _array_as_float(arg, value)
    if isinstance(value, bool | np.bool_):
        raise InputTypeError(arg, value, "a number, not TRUE/FALSE")
    if isinstance(value, complex | np.complexfloating):
        raise InputTypeError(arg, value, "a real number, not complex")
    if isinstance(value, Real):
        return np.asarray(_real(arg, value))
    if isinstance(value, str | bytes | bytearray | memoryview | datetime.date | datetime.timedelta):
        raise InputTypeError(arg, value, "a number")  # a date is a number in Excel, never here
    if isinstance(value, range):
        _check_size(arg, len(value))
    elif not isinstance(value, list | tuple) and not hasattr(value, "__array__"):
        if isinstance(value, decimal.Decimal):
            return np.asarray(_real(arg, value))
        raise InputTypeError(arg, value, "a number, or a list or array of numbers")
    try:
        arr = np.asarray(value)
    except MemoryError:
        raise InputShapeError(
            f"{arg} holds more elements than memory holds; at most {MAX_ELEMENTS:,}"
        ) from None
    except ValueError as err:
        if "number of dim" in str(err):
            raise InputShapeError(
                f"{arg} is nested deeper than the dimensions numpy holds; a number, or a list or table"
                " of numbers, is expected"
            ) from None
        arr = _ragged(arg, value)
    return _array_as_float(arg, arr)


def _ragged(arg: str, value: object) -> np.ndarray:
    """A ragged list (rows of unequal length): the first element that is not a number, else a
    shape error."""
    try:
        arr = np.asarray(value, dtype=object)
    except ValueError:
        arr = None
    if arr is not None:
        bad = _first_non_number(arr)
        if bad is not None:
            raise InputTypeError(arg, bad, "a number")
    raise InputShapeError(f"{arg} must be a number, or a list or table of numbers with rows of equal length")


def _check_size(arg: str, n: int) -> None:
    if n > MAX_ELEMENTS:
        raise InputShapeError(f"{arg} holds {n:,} elements; at most {MAX_ELEMENTS:,}")


def _array_as_float(arg: str, value: np.ndarray) -> np.ndarray:
    kind = value.dtype.kind
    if kind in "fiu":
        return value.astype(float, copy=False)
    if kind == "b":
        raise InputTypeError(arg, value, "a number, not TRUE/FALSE")
    if kind == "c":
        raise InputTypeError(arg, value, "a real number, not complex")
    if kind == "O":
        bad = _first_non_number(value)
        if bad is not None:
            raise InputTypeError(arg, bad, "a number")
        if any(v is None for v in value.flat):
            raise MissingValueError(arg, "a number is expected in every element")
        try:
            return value.astype(float)
        except OverflowError:
            for idx in np.ndindex(value.shape):
                _real(arg, value[idx], idx)
            raise  # pragma: no cover - _real raised for the element float() could not take
    what = {"M": "a date", "m": "a duration", "U": "text", "S": "bytes"}.get(kind, f"{value.dtype} elements")
    raise InputTypeError(arg, value, f"a number, not {what}")


def _real(arg: str, value: object, index: tuple[int, ...] | None = None) -> float:
    """``float(value)`` for a real number (an int, a Fraction or a Decimal beyond a float's range
    is refused, not turned into inf or OverflowError)."""
    try:
        x = float(value)  # type: ignore[arg-type]
    except OverflowError:
        raise InputRangeError(arg, value, _FLOAT_RANGE, index) from None
    if math.isinf(x) and isinstance(value, decimal.Decimal) and value.is_finite():
        raise InputRangeError(arg, value, _FLOAT_RANGE, index)
    return x


def _first_non_number(value: object) -> object:
    """The first element that is not a real number (a bool, text, complex, a nested list), or
    None when every element is one or None."""
    for v in np.asarray(value, dtype=object).ravel():
        if v is None:
            continue
        if isinstance(v, bool | np.bool_ | complex | np.complexfloating) or not isinstance(
            v, Real | decimal.Decimal
        ):
            return v
    return None


def _raise_range(arg: str, x: np.ndarray, ok: np.ndarray, valid: str) -> None:
    if x.ndim == 0:
        raise InputRangeError(arg, float(x), valid)
    bad = np.argwhere(~ok)  # every bad element, in one pass (the UDF layer uses them all)
    idx = tuple(int(i) for i in bad[0])
    raise InputRangeError(arg, float(x[idx]), valid, idx, bad)


def broadcast(**values: object) -> None:
    """Check that the array arguments broadcast together (scalars always do).

    >>> broadcast(mfu=[0.3, 0.4], peak_tflops=989.4)
    >>> broadcast(mfu=[0.3, 0.4], tokens=[1e9, 2e9, 3e9])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gputco.udfs.errors.InputShapeError: arrays that do not broadcast together: mfu (2,), tokens (3,); ...
    """
    shapes = {}
    for name, v in values.items():
        if isinstance(v, np.ndarray):
            if v.ndim:
                shapes[name] = v.shape
            continue
        if not isinstance(v, list | tuple):
            continue
        try:
            shape = np.shape(v)
        except ValueError:  # ragged: the shape numpy gives it as an array of objects
            try:
                shape = np.asarray(v, dtype=object).shape
            except ValueError:
                continue  # the number checks name the bad element
        if shape:
            shapes[name] = shape
    if len(shapes) < 2:
        return
    first = next(iter(shapes.values()))
    if all(shape == first for shape in shapes.values()):  # one shape: nothing to work out
        return
    try:
        np.broadcast_shapes(*shapes.values())
    except ValueError:
        listed = ", ".join(f"{name} {shape}" for name, shape in shapes.items())
        raise InputShapeError(
            f"arrays that do not broadcast together: {listed}; use arrays of one shape, or scalars"
        ) from None


def broadcasting(func):
    """Decorator: :func:`broadcast` over every argument of ``func`` by its name, before it runs.

    >>> @broadcasting
    ... def f(mfu, tokens=1.0):
    ...     return np.multiply(mfu, tokens)
    >>> f([0.3, 0.4], [1e9, 2e9, 3e9])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gputco.udfs.errors.InputShapeError: arrays that do not broadcast together: mfu (2,), tokens (3,); ...
    """
    signature = inspect.signature(func)
    names = _plain_names(signature)

    @functools.wraps(func)
    def checked(*args, **kwargs):
        if names and not kwargs and len(args) <= len(names):  # what bind gives, without its cost
            broadcast(**dict(zip(names, args, strict=False)))  # fewer args: defaults
        else:
            broadcast(**signature.bind(*args, **kwargs).arguments)
        return func(*args, **kwargs)

    return checked


def _plain_names(signature: inspect.Signature) -> tuple[str, ...]:
    """The parameter names of a signature whose parameters are all positional-or-keyword (the
    calls the decorators bind by position themselves), else () (``Signature.bind`` does)."""
    params = signature.parameters.values()
    return tuple(signature.parameters) if all(p.kind is p.POSITIONAL_OR_KEYWORD for p in params) else ()


def checking(func):
    """Decorator: :func:`broadcasting`, then every argument checked against its range
    (:func:`checked`, in the order of the signature, defaults included) and handed to ``func``
    as the checked number, so the body only computes.

    >>> @checking
    ... def f(mfu, pue=1.3):
    ...     return mfu * pue
    >>> f(0.5)
    0.65
    >>> f(1.5)
    Traceback (most recent call last):
    ...
    gputco.udfs.errors.InputRangeError: mfu must be in (0, 1], got 1.5
    """
    signature = inspect.signature(func)
    names = _plain_names(signature)
    defaults = [p.default for p in signature.parameters.values()]

    @functools.wraps(func)
    def run(*args, **kwargs):
        if names and not kwargs and len(args) <= len(names):  # what bind gives, without its cost
            given = dict(zip(names, args, strict=False))
            broadcast(**given)
            if len(args) < len(names) and inspect.Parameter.empty in defaults[len(args) :]:
                signature.bind(*args)  # a required argument missing: bind's TypeError names it
            given.update(zip(names[len(args) :], defaults[len(args) :], strict=True))
        else:
            bound = signature.bind(*args, **kwargs)
            broadcast(**bound.arguments)
            bound.apply_defaults()
            given = bound.arguments
        return func(**{k: checked(k, v) for k, v in given.items()})

    return run


def parameters(
    required: tuple[str, ...], optional: dict[str, object], keyword: dict[str, object] | None = None
):
    """Decorator: give a function the parameters ``required``, then ``optional`` with their
    defaults (both positional or by name), then ``keyword`` (by name only), and call it with every
    argument by name, the defaults filled in: one parameter list for the functions that share it.

    >>> @parameters(("capex",), {"life_years": 5.0})
    ... def f(**given):
    ...     return given
    >>> f(100.0), inspect.signature(f)
    ({'capex': 100.0, 'life_years': 5.0}, <Signature (capex, life_years=5.0)>)
    """
    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    params = [inspect.Parameter(k, kind) for k in required]
    params += [inspect.Parameter(k, kind, default=v) for k, v in optional.items()]
    params += [
        inspect.Parameter(k, inspect.Parameter.KEYWORD_ONLY, default=v) for k, v in (keyword or {}).items()
    ]
    signature = inspect.Signature(params)

    def decorate(body):
        @functools.wraps(body)
        def function(*args, **kwargs):
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            return body(**bound.arguments)

        function.__signature__ = signature  # type: ignore[attr-defined]
        return function

    return decorate


def ratio(num: np.ndarray | float, den: np.ndarray | float) -> np.ndarray | float:
    """``num / den`` with IEEE rules for scalars too: a denominator that underflowed to 0 gives
    inf (as numpy does for arrays), never ZeroDivisionError.

    >>> ratio(1.0, 0.0), ratio(3.0, 2.0)
    (inf, 1.5)
    """
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        return out(np.divide(num, den))


def fresh_divided(x: np.ndarray | float, d: np.ndarray | float) -> np.ndarray | float:
    """``x / d`` where ``x`` is the caller's own new result: divided in place when that gives the
    same array (one pass, no new array), else as usual. The same value as ``x / d``.

    >>> fresh_divided(np.array([2.0, 4.0]), 2.0).tolist(), fresh_divided(3.0, 2.0)
    ([1.0, 2.0], 1.5)
    """
    if isinstance(x, np.ndarray) and x.ndim and x.dtype == float and np.shape(d) in ((), x.shape):
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            np.divide(x, d, out=x)
        return x
    return ratio(x, d)


def out(x: np.ndarray | float) -> np.ndarray | float:
    """Return a float for a 0-d result and the array otherwise (scalars in give floats out)."""
    if isinstance(x, np.ndarray) and x.ndim == 0:
        return float(x)
    if isinstance(x, np.floating):
        return float(x)
    return x


def text(arg: str, value: object) -> str:
    """A non-empty string argument (a preset name, a convention)."""
    if value is None:
        raise MissingValueError(arg, "a name is expected")
    if isinstance(value, np.str_):
        value = str(value)
    if not isinstance(value, str):
        raise InputTypeError(arg, value, "text (a name)")
    if not value.strip():
        raise MissingValueError(arg, "a name is expected")
    return value
