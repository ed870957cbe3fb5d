"""Excel-shaped calls: the thin adapter between worksheet cells and the plain numpy functions.

xlwings (classic UDFs, arguments declared with ``ndim=2, err_to_str=True``) hands a UDF numbers as
floats, empty cells as None, every range as a list of row lists (a single cell as ``[[x]]``), cell
errors as text such as ``"#N/A"``, and text, booleans and dates as they are. :func:`call` evaluates
one catalog function on such arguments and never raises:

- ranges broadcast against each other and against single values, and the result has their shape
  (a 1xN row, an Nx1 column or an NxM block), so one formula fills a column;
- where every element is valid, the plain function runs once on float arrays (the fast path);
- an invalid element only spoils its own cell, which shows a short text beginning with ``#``
  (``#VALUE! mfu must be in (0, 1], got 1.5``);
- an error in an input cell gives a text naming the error and the argument (``#SPILL! in
  argument mfu``), whether xlwings hands it over as a text (``"#N/A"``, the seven classic errors)
  or as the bare COM error number (the newer errors, see :data:`CELL_ERRORS`); another UDF's
  ``#...`` text passes through unchanged;
- a cell formatted as Currency or Accounting (COM hands it over as :class:`decimal.Decimal`) is a
  number like any other;
- an empty cell takes the argument's default when the argument is optional.

The maths stays in the plain functions: this module only reshapes, routes and words errors. The
catalog itself (names, argument docs) is :mod:`gputco.udfs.registry`.
"""

from __future__ import annotations

import decimal
import logging
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from numbers import Real
from typing import Any, cast

import numpy as np

from . import _check as chk
from . import ranges
from .errors import (
    GputcoError,
    InputRangeError,
    InputShapeError,
    MissingValueError,
    NoSolutionError,
)

logger = logging.getLogger(__name__)

#: kinds of argument: a number, a preset or option name, or either (TCO_FLOPS_PER_TOKEN's model)
NUMBER, TEXT, NAME_OR_NUMBER = "number", "text", "name or number"

#: longest text a UDF puts in a cell; longer error texts are cut with "..."
MAX_CELL_TEXT = 255

#: what a cell shows for an overflowing result (inf or nan out of valid inputs)
NOT_FINITE = "#NUM! the result is not a finite number"

#: Excel's cell errors by XlCVError number (Microsoft's VBA reference, "XlCVError enumeration",
#: learn.microsoft.com/office/vba/api/excel.xlcverror; 2043-2050 as Excel's ERROR.TYPE orders
#: them, 8-14). Through COM an error cell's ``Range.Value`` is the SCODE 0x800A0000 + number, a
#: negative int (#SPILL!: -2146826243). xlwings 0.37 (``xlwings/_xlwindows.py``, ``cell_errors``)
#: turns only the classic seven into texts; the others reach the UDF as that int.
CELL_ERRORS = {
    2000: "#NULL!",
    2007: "#DIV/0!",
    2015: "#VALUE!",
    2023: "#REF!",
    2029: "#NAME?",
    2036: "#NUM!",
    2042: "#N/A",
    2043: "#GETTING_DATA",
    2045: "#SPILL!",
    2046: "#CONNECT!",
    2047: "#BLOCKED!",
    2048: "#UNKNOWN!",
    2049: "#FIELD!",
    2050: "#CALC!",
}
#: the COM error number of XlCVError 0: an int in [COM_ERROR_BASE + 2000, COM_ERROR_BASE + 2100) is
#: a cell error (Excel hands numbers over as floats, never as ints)
COM_ERROR_BASE = -2146828288  # 0x800A0000 as a signed 32-bit int
#: error literals an input cell may show; #BUSY! has no published XlCVError number (assumption:
#: it arrives as another number in the range above, named by that number)
ERROR_LITERALS = frozenset(CELL_ERRORS.values()) | {"#BUSY!", "#PYTHON!", "#EXTERNAL!"}


@dataclass(frozen=True)
class ArgDoc:
    """One argument of a UDF: its name, what it is (with the valid range), unit and default."""

    name: str
    doc: str
    unit: str
    kind: str = NUMBER
    optional: bool = False
    default: object = None

    @property
    def valid(self) -> str:
        """The valid range from the one table (:data:`gputco.udfs.ranges.RANGES`), "" if none."""
        if self.kind != NUMBER or self.name not in ranges.RANGES:
            return ""
        r = ranges.of(self.name)
        return r.rule or str(r)

    @property
    def description(self) -> str:
        """What the argument is, with its valid range: ``Power usage effectiveness, in [1, 5]``."""
        valid = self.valid
        if not valid:
            return self.doc
        return f"{self.doc}, {valid}" if valid[0] in "<>a" else f"{self.doc}, in {valid}"

    @property
    def wizard_text(self) -> str:
        """The Function Wizard text of the argument: doc with its range, unit and default."""
        text = f"{self.description} [{self.unit}]" if self.unit else self.description
        if self.optional:
            default = "" if self.default is None else f"; default {formula_literal(self.default)}"
            text += f" Optional{default}."
        return text


@dataclass(frozen=True)
class UdfSpec:
    """One catalog function: everything the xlwings module, the docs and the tests need."""

    name: str  #: Excel name, e.g. "TCO_COST_PER_MTOK"
    summary: str  #: Function Wizard text (<= 255 characters)
    args: tuple[ArgDoc, ...]
    returns: str  #: what the result is
    unit: str  #: unit of the result ("" for tables and preset values)
    example: tuple  #: arguments of the documented example formula
    plain: Callable  #: the numpy function in udfs that does the maths
    table: bool = False  #: returns a table with a header row (spills)
    category: str = "GPU TCO"

    @property
    def signature(self) -> str:
        """``TCO_X(a, b, [c])``: optional arguments in brackets."""
        names = [f"[{a.name}]" if a.optional else a.name for a in self.args]
        return f"{self.name}({', '.join(names)})"

    @property
    def example_formula(self) -> str:
        """The example as an Excel formula, e.g. ``=TCO_GPU_HOUR("H100_HGX")``."""
        return f"={self.name}({', '.join(formula_literal(x) for x in self.example)})"


def formula_literal(x: object) -> str:
    if isinstance(x, str):
        return '"' + x.replace('"', '""') + '"'
    if isinstance(x, bool):
        return "TRUE" if x else "FALSE"
    x = cast(float, x)  # a number: the only other kind of literal
    if float(x).is_integer() and abs(x) < 1e9:
        return str(int(x))
    shortest = next(t for t in (f"{x:.{p}g}" for p in range(1, 18)) if float(t) == x)
    return shortest.upper()


def error_text(err: BaseException) -> str:
    """The cell text for an error: the Excel code, then the message (``#N/A unknown system ...``)."""
    if isinstance(err, GputcoError):
        text = f"{err.excel_code} {err}"
    else:
        logger.warning("unexpected error in a gputco UDF", exc_info=err)
        text = f"#VALUE! internal error ({type(err).__name__}: {err}); please report it"
    return _short(text)


def _short(text: str) -> str:
    return text if len(text) <= MAX_CELL_TEXT else text[: MAX_CELL_TEXT - 3] + "..."


def call(spec: UdfSpec, values: tuple) -> object:
    """Evaluate ``spec`` on Excel-shaped argument values (in argument order); never raises.

    Returns a float, a text, or lists shaped like the broadcast arguments (a table for table
    functions). Every error becomes a ``#...`` text.
    """
    try:
        if spec.table:
            return _call_table(spec, values)
        with np.errstate(all="ignore"):  # an overflow shows as NOT_FINITE in its cell
            return _call_elementwise(spec, values)
    except Exception as err:  # the last line of defence: a cell shows text, never a traceback
        return error_text(err)


# --- tables -------------------------------------------------------------------------------------


def _call_table(spec: UdfSpec, values: tuple) -> object:
    args = []
    for arg, value in zip(spec.args, values, strict=True):
        x = _plain_value(_single_cell(arg, value))
        if _is_error_text(x) or _is_com_error(x):
            return _input_error(arg, x)
        if x is None:
            if not arg.optional:
                raise MissingValueError(arg.name, "the cell is empty")
            x = arg.default
        args.append(x)
    return [[_table_cell(x) for x in row] for row in spec.plain(*args)]


def _single_cell(arg: ArgDoc, value: object) -> object:
    if not _is_array(value):
        return value
    arr = _object_array(arg, value)
    if arr.size != 1:
        raise InputShapeError(f"{arg.name} must be a single cell for a table, got a {_dims(arr.shape)} range")
    return arr.reshape(-1)[0]


def _table_cell(x: object) -> object:
    return "" if x is None else _cell(x)


# --- element-wise functions ---------------------------------------------------------------------


class _Column:
    """One argument, broadcast to the result size and checked element by element for its type."""

    def __init__(self, arg: ArgDoc, value: object, shape: tuple, arr: np.ndarray) -> None:
        self.arg = arg
        self.constant = arr.size == 1  # one value for every cell: passed to the plain function as is
        n = math.prod(shape)
        if self.constant:
            x = arr.reshape(-1)[0]
            self.value = arg.default if x is None and arg.optional else _plain_value(x)
            self.bad: bool | np.ndarray = self._is_bad(self.value)
            return
        flat = np.broadcast_to(arr, shape).reshape(-1)
        if arg.kind == NUMBER and all(map(float.__instancecheck__, flat)):  # every cell a number
            self.flat, self.bad = flat, np.zeros(n, dtype=bool)
            self.none = np.zeros(n, dtype=bool) if arg.optional and arg.default is None else None
            self.floats = flat.astype(float)
            return
        if arg.optional and arg.default is not None:
            flat = np.array([arg.default if x is None else x for x in flat], dtype=object)
        self.flat = flat
        self.bad = np.fromiter(map(self._is_bad, flat), bool, n)
        # None elements of an optional number whose default is None (seq_len: "the preset's") are
        # passed as None, so they are evaluated apart from the numbers
        self.none = None
        if arg.kind == NUMBER and arg.optional and arg.default is None:
            self.none = np.fromiter((x is None for x in flat), bool, n)
        if arg.kind == NUMBER:
            numbers = np.where(self.bad | (self.none if self.none is not None else False), 0.0, flat)
            self.floats = numbers.astype(float)

    def _is_bad(self, x: object) -> bool:
        """True where the element cannot reach the plain function: empty, an error, not a number."""
        if x is None:
            return not self.arg.optional
        if _is_error_text(x) or _is_com_error(x):
            return True
        return self.arg.kind == NUMBER and not _is_number(x)

    @property
    def keyed(self) -> bool:
        """Varies over the cells and is not a plain number: cells are grouped by its value."""
        return not self.constant and (self.arg.kind != NUMBER or self.none is not None)

    def key(self, j: int) -> object:
        x = self.flat[j]
        if self.arg.kind == NUMBER:
            return x is None
        return type(x), x

    def argument(self, idx: np.ndarray) -> object:
        """The value passed to the plain function for the cells ``idx`` (one group)."""
        if self.constant:
            return self.value
        if self.arg.kind != NUMBER or (self.none is not None and self.none[idx[0]]):
            return _plain_value(self.flat[idx[0]])
        if len(idx) == 1:  # one cell: a scalar call, so an error names no array element
            return float(self.floats[idx[0]])
        return self.floats[idx]

    def type_error(self, x: object) -> str:
        """The cell text for a bad element."""
        if _is_error_text(x) or _is_com_error(x):
            return _input_error(self.arg, x)
        if x is None:
            return error_text(MissingValueError(self.arg.name, "the cell is empty"))
        try:
            chk.as_float(self.arg.name, x)
        except GputcoError as err:
            return error_text(err)
        raise AssertionError(f"{x!r} was classed as a bad number")  # pragma: no cover


def _call_elementwise(spec: UdfSpec, values: tuple) -> object:
    arrays = [_object_array(a, v) if _is_array(v) else None for a, v in zip(spec.args, values, strict=True)]
    shapes = [np.shape(a) if a is not None else () for a in arrays]
    try:
        shape = np.broadcast_shapes(*shapes)
    except ValueError:
        sizes = ", ".join(f"{a.name} {_dims(s)}" for a, s in zip(spec.args, shapes, strict=True) if s)
        raise InputShapeError(
            f"ranges of different sizes: {sizes}; use ranges of the same size or single cells"
        ) from None
    n = math.prod(shape)
    cols = [
        _Column(a, v, shape, arr if arr is not None else _one(v))
        for a, v, arr in zip(spec.args, values, arrays, strict=True)
    ]
    out = _evaluate(spec, cols, n)
    if not any(a is not None for a in arrays):
        return out[0] if isinstance(out, list) else out.item()
    if isinstance(out, list):  # the fast path's floats
        return np.asarray(out).reshape(shape).tolist()
    return out.reshape(shape).tolist()


def _evaluate(spec: UdfSpec, cols: list[_Column], n: int) -> list | np.ndarray:
    """The n cell values, as a list of floats (fast path) or an object array."""
    keyed = [c for c in cols if c.keyed]
    bad_cols = [c for c in cols if np.any(c.bad)]
    everything = np.arange(n)
    failure = None  # the fast path's error, handed to the general path
    if not keyed and not bad_cols:  # fast path: one vectorised call
        try:
            res = spec.plain(*(c.argument(everything) for c in cols))
        except Exception as err:
            failure = err
        else:
            arr = np.asarray(res)
            if arr.dtype.kind == "f" and np.isfinite(arr).all():
                return np.broadcast_to(arr, (n,)).tolist()
            out = np.empty(n, dtype=object)
            out[:] = np.broadcast_to(arr, (n,)) if arr.ndim else [res] * n
            return _name_overflows(spec, cols, np.array([_cell(x) for x in out], dtype=object))
    out = np.empty(n, dtype=object)
    # cells with an element of the wrong type: the first such argument names the error
    first_bad = np.full(n, -1)
    for i in reversed(range(len(cols))):
        if cols[i].constant:
            if cols[i].bad:
                first_bad[:] = i
        else:
            first_bad[cols[i].bad] = i
    memo: dict = {}  # one message per distinct bad element
    for j in np.flatnonzero(first_bad >= 0):
        col = cols[first_bad[j]]
        x = col.value if col.constant else col.flat[j]
        key = (first_bad[j], type(x), repr(x))
        if key not in memo:
            memo[key] = col.type_error(x)
        out[j] = memo[key]
    # the other cells: one vectorised call per combination of names (usually one)
    good = np.flatnonzero(first_bad < 0)
    groups: dict[tuple, Any] = {}  # lists of cell positions, or the array of them
    if keyed:
        for j in good:
            groups.setdefault(tuple(c.key(int(j)) for c in keyed), []).append(j)
    elif good.size:
        groups[()] = good
    for idx in groups.values():
        _solve(spec, cols, np.asarray(idx), out, failure)
    return _name_overflows(spec, cols, np.array([_cell(x) for x in out], dtype=object))


def _solve(
    spec: UdfSpec,
    cols: list[_Column],
    idx: np.ndarray,
    out: np.ndarray,
    failure: Exception | None = None,
) -> None:
    """Evaluate the cells ``idx`` in one call; on a data error, split them in halves (bisection).

    ``failure`` is the error this very call is known to raise (from the fast path), if any.
    """
    try:
        if failure is not None:
            raise failure
        res = spec.plain(*(c.argument(idx) for c in cols))
    except Exception as err:
        bad = _bad_cells(err, cols, idx)
        if bad is not None:  # every bad element known at once: linear, not bisected
            memo: dict[float, str] = {}
            assert isinstance(err, InputRangeError)  # what _bad_cells found it to be
            for j in idx[bad]:
                v = float(next(c for c in cols if c.arg.name == err.arg).floats[j])
                if v not in memo:
                    memo[v] = error_text(InputRangeError(err.arg, v, err.valid))
                out[j] = memo[v]
            if not bad.all():
                _solve(spec, cols, idx[~bad], out)
            return
        if len(idx) > 1 and _data_dependent(err, cols):
            mid = len(idx) // 2
            _solve(spec, cols, idx[:mid], out)
            _solve(spec, cols, idx[mid:], out)
        else:
            out[idx] = error_text(err)
        return
    if isinstance(res, np.ndarray):
        out[idx] = np.broadcast_to(res, idx.shape)
    else:
        for j in idx:  # a text or None is one object per cell
            out[j] = res


def _bad_cells(err: Exception, cols: list[_Column], idx: np.ndarray) -> np.ndarray | None:
    """The cells of ``idx`` whose element is out of range, when the error lists them all (a
    range check over the array that was passed for one argument): a mask over ``idx``."""
    if not isinstance(err, InputRangeError) or err.bad is None or len(idx) < 2:
        return None
    col = next((c for c in cols if c.arg.name == err.arg and not c.constant), None)
    if col is None or col.arg.kind != NUMBER or err.bad.ndim != 2 or err.bad.shape[1] != 1:
        return None
    if np.shape(cast(Any, col.argument(idx))) != (len(idx),):
        return None
    mask = np.zeros(len(idx), dtype=bool)
    mask[err.bad[:, 0]] = True
    return mask


#: an argument value beyond these magnitudes is named when a result overflows
EXTREME = 1e100
#: a range error about a quantity (the first word) that may be internal to the calculation
_RANGE_TEXT = re.compile(r"^#VALUE! (\w+) must be in ")


def _name_overflows(spec: UdfSpec, cols: list[_Column], cells: np.ndarray) -> np.ndarray:
    """Cells whose result is not finite, or whose error names an intermediate quantity that is
    not an argument (power_usd_per_gpu_hour inside TCO_TOTAL_PER_GPU_HOUR), say which arguments
    are extreme (beyond 1e100 or within 1e-100 of 0), as "usd_per_kwh = 1e+308".

    >>> from gputco.udfs import UDFS
    >>> UDFS["TCO_POWER_PER_GPU_HOUR"](14, 1.2, 1e308)
    '#NUM! the result is not a finite number: usd_per_kwh = 1e+308 is too large or too small to compute with'
    """
    names = {a.name for a in spec.args}
    for j, text in enumerate(cells):
        if not isinstance(text, str):
            continue
        internal = _RANGE_TEXT.match(text)
        if text != NOT_FINITE and not (internal and internal.group(1) not in names):
            continue
        extreme = []
        for c in cols:
            x: Any = c.value if c.constant else c.flat[j]
            if c.arg.kind == NUMBER and _is_number(x) and x != 0 and not 1 / EXTREME < abs(x) < EXTREME:
                extreme.append(f"{c.arg.name} = {float(x):g}")
        if extreme:
            verb = "is" if len(extreme) == 1 else "are"
            cells[j] = f"{NOT_FINITE}: {', '.join(extreme)} {verb} too large or too small to compute with"
    return cells


def _data_dependent(err: Exception, cols: list[_Column]) -> bool:
    """Whether the error may come from some elements of an array (then bisect) or from all cells.

    Errors about names and missing preset fields hold for the whole group; a range error about a
    single-valued argument too. A range error about an array, or an unexpected error, may come
    from a few elements only.
    """
    arrays = [c for c in cols if not c.constant and c.arg.kind == NUMBER]
    if not arrays:
        return False
    if isinstance(err, GputcoError) and not isinstance(err, InputRangeError | NoSolutionError):
        return False
    return getattr(err, "arg", None) not in {c.arg.name for c in cols if c.constant}


# --- elements -----------------------------------------------------------------------------------


def _plain_value(x: object) -> object:
    """A Currency or Accounting cell (COM hands it over as a Decimal) as the float it is."""
    return float(x) if isinstance(x, decimal.Decimal) else x


def _is_com_error(x: object) -> bool:
    """An error cell as COM hands it over: the int 0x800A0000 + its XlCVError number."""
    return type(x) is int and COM_ERROR_BASE + 2000 <= x < COM_ERROR_BASE + 2100


def _input_error(arg: ArgDoc, x: object) -> str:
    """The cell text for an error in an input cell: the error and the argument it is in.

    Another UDF's error text (``#VALUE! mfu must be ...``) already says what it is: unchanged.
    """
    if _is_com_error(x):
        code = cast(int, x) - COM_ERROR_BASE
        x = CELL_ERRORS.get(code, f"#N/A Excel cell error {code}")
    elif x not in ERROR_LITERALS:
        return _short(cast(str, x))
    return _short(f"{x} in argument {arg.name}")


def _is_array(value: object) -> bool:
    return isinstance(value, list | tuple) or (isinstance(value, np.ndarray) and value.ndim > 0)


def _object_array(arg: ArgDoc, value: object) -> np.ndarray:
    try:
        arr = np.array(value, dtype=object)
    except (ValueError, MemoryError):  # ragged, nested past numpy's dimensions, too large
        raise InputShapeError(f"{arg.name} must be a rectangular range (rows of equal length)") from None
    if arr.ndim > 2 or arr.size == 0:
        raise InputShapeError(
            f"{arg.name} must be a cell or a range with rows and columns, got an array of shape {arr.shape[:4]}"
            + ("..." if arr.ndim > 4 else "")
        )
    if any(isinstance(x, list | tuple | np.ndarray) for x in arr.flat):
        raise InputShapeError(f"{arg.name} must be a rectangular range (rows of equal length)")
    return arr


def _one(value: object) -> np.ndarray:
    """A one-element object array holding ``value`` as it is (np.array([v]) would unpack a
    sequence: range(10**12) into memory)."""
    arr = np.empty(1, dtype=object)
    arr[0] = value
    return arr


def _dims(shape: tuple) -> str:
    return "x".join(str(d) for d in (shape if len(shape) == 2 else (1, *shape)))


def _is_number(x: object) -> bool:
    """A real number a float holds (an int past 1.8e308 is not: its check names it)."""
    if type(x) is float:
        return True
    if not isinstance(x, Real | decimal.Decimal) or isinstance(x, bool | np.bool_) or _is_com_error(x):
        return False
    try:
        float(x)  # type: ignore[arg-type]
    except OverflowError:
        return False
    return True


def _is_error_text(x: object) -> bool:
    """An Excel error arriving from an input cell ("#N/A", or another UDF's "#VALUE! ...")."""
    return isinstance(x, str) and x.startswith("#")


def _cell(x: object) -> object:
    """A Python value for a cell: floats (finite), texts, booleans."""
    if x is None or isinstance(x, str):
        return "" if x is None else x
    if isinstance(x, bool | np.bool_):
        return bool(x)
    if isinstance(x, Real):
        f = float(x)
        return f if math.isfinite(f) else NOT_FINITE
    return str(x)
