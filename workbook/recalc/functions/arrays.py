"""Excel's array functions: matrices (Math and trigonometry in Microsoft's list), and the dynamic-array functions that filter, sort and reshape (Lookup and reference in Microsoft's list).

Functions that build or reshape arrays: TRANSPOSE, MMULT, MINVERSE, MDETERM, SEQUENCE,
CHOOSECOLS, CHOOSEROWS; ANCHORARRAY and SINGLE, which Excel 365 writes for the spill reference
``A1#`` and the implicit-intersection operator ``@``.

Their results are arrays: in a multi-cell array formula (or an Excel 365 dynamic-array formula)
they fill the formula's block (see :mod:`..spill`); elsewhere a cell shows the top-left value.

- TRANSPOSE(array): rows become columns.
- MMULT(array1, array2): the matrix product; an empty or text cell, or columns of array1 unequal
  to rows of array2, is #VALUE! (Microsoft's MMULT page); an error cell gives that error.
- MINVERSE(array), MDETERM(array): the inverse and determinant of a square matrix; not square, or
  a cell that is not a number, #VALUE!; MINVERSE of a singular matrix #NUM!.
- CHOOSECOLS(array, n1, ...), CHOOSEROWS(array, n1, ...) (Excel 365): the columns (rows)
  numbered, negative numbers from the end; 0 or beyond the array #VALUE!.
- SEQUENCE(rows, [columns=1], [start=1], [step=1]) (Excel 365): ``start, start+step, ...`` row by
  row. A size of 0 is #CALC! (an empty array), a negative size #VALUE!.

Excel 365's dynamic-array functions that choose and order rows: FILTER, UNIQUE, SORT, SORTBY.

LibreOffice 7.4 has none of them, so their oracle is Microsoft's documentation (cited in
tests/recalc/run/test_spill.py). Their results have a size known only when they run: in a formula
group whose rows would give arrays of different sizes the engine evaluates row by row.

- FILTER(array, include, [if_empty]): the rows (include a column as tall as array) or columns
  (include a row as wide as array) whose include value is TRUE (a non-zero number). An error in
  include is that error; text in include, or an include of another size, #VALUE!; nothing
  left is if_empty, or #CALC! without it.
- UNIQUE(array, [by_col=FALSE], [exactly_once=FALSE]): the distinct rows (columns), first
  occurrence first; text compares case-insensitively; exactly_once keeps only rows that occur
  once. Nothing left is #CALC!.
- SORT(array, [sort_index=1], [sort_order=1], [by_col=FALSE]): rows (columns) ordered by the
  values in column (row) sort_index, ascending (1) or descending (-1); ties keep their order.
  Ascending puts numbers first, then text (case-insensitive), then TRUE/FALSE, then errors, then
  blanks; descending reverses all but the blanks, which stay last. sort_index outside the array or
  sort_order other than 1/-1 is #VALUE!.
- SORTBY(array, by_array1, [sort_order1], [by_array2, sort_order2], ...): rows ordered by one or
  more columns as tall as array (or columns by rows as wide), the first key first; by arrays of
  another size, or of both orientations, #VALUE!.

Excel 365's functions that cut, join and reshape arrays: TAKE, DROP, EXPAND, HSTACK, VSTACK,
TOCOL, TOROW, WRAPROWS, WRAPCOLS.

LibreOffice 7.4 has none of them, so their oracle is Microsoft's documentation (the examples of
each function's page, in tests/recalc/functions/test_arrays.py). Like FILTER and SORT (above)
their result has a size known only when they run and spills from the formula's cell; a blank cell
they pass on shows as 0 there (:func:`..spill.result_array`).

- TAKE(array, rows, [columns]) / DROP(array, rows, [columns]): the first (last, when negative)
  rows and columns, or all but them; an omitted count takes (drops) nothing on that axis. Nothing
  left (a count of 0 for TAKE, everything dropped for DROP) is #CALC!, Excel's empty array.
- EXPAND(array, [rows], [columns], [pad_with=#N/A]): the array grown to rows x columns, new cells
  pad_with; a size below the array's is #VALUE!.
- HSTACK(array1, ...) / VSTACK(array1, ...): the arrays side by side (one under the other); the
  result is as tall (wide) as the tallest (widest), shorter ones padded with #N/A.
- TOCOL(array, [ignore=0], [scan_by_column=FALSE]) / TOROW: the values in one column (row), read
  row by row (column by column); ignore 1 leaves out blanks, 2 errors, 3 both; other ignore
  values are #VALUE!; nothing left is #CALC!.
- WRAPROWS(vector, wrap_count, [pad_with=#N/A]) / WRAPCOLS: a row or column cut into rows
  (columns) of wrap_count values, the last padded; a wrap_count of the vector's length or more
  gives the vector in one row (column); a vector of two dimensions is #VALUE!, a wrap_count
  below 1 #NUM!.

Counts are truncated to whole numbers; an error in one is that error, text #VALUE!.
"""

from __future__ import annotations

import functools

import numpy as np

from gputco.workbook.recalc.base import vec
from gputco.workbook.recalc.base.rangeval import RangeVal
from gputco.workbook.recalc.base.values import CALC, NA, NUM, REF, VALUE, XlError, compare
from gputco.workbook.recalc.read.limits import check_array_cells

from ._args import Spec, scalar_nums

# --- arrays ----------------------------------------------------------------------------------------------


def full(x) -> np.ndarray:
    """An array argument's values at its true size (a range's rows past the sheet's used area
    are blank, not cut off)."""
    if not isinstance(x, RangeVal):
        return x
    vals = x.values()
    if x.store is None or vals.shape[1:] == (x.h, x.w):
        return vals
    limit = x.store.max_block_cells
    if limit is not None and vals.shape[0] * x.h * x.w > limit:
        x.store.block(x.r0, limit + 1, x.c0, 1)  # raises LimitExceededError naming the sheet
    out = np.full((vals.shape[0], x.h, x.w), None, dtype=object)
    out[:, : vals.shape[1], : vals.shape[2]] = vals
    return out


def _transpose(a):
    return np.ascontiguousarray(full(a).transpose(0, 2, 1))


def _mmult(a, b):
    a, b = full(a), full(b)
    if a.shape[2] != b.shape[1]:
        return vec.const(VALUE)
    fa, ea = _strict_numbers(a)
    fb, eb = _strict_numbers(b)
    err = ea if ea is not None else eb
    if err is not None:
        return vec.const(err)
    return np.einsum("mik,mkj->mij", fa, fb) if fa.shape[0] == fb.shape[0] else np.matmul(fa, fb)


def _strict_numbers(a: np.ndarray):
    """(floats, None), or (None, the error): an error cell first, else #VALUE! for anything that
    is not a number."""
    if a.dtype == vec.FLOAT:
        return a, None
    flat = a.ravel().tolist()
    bad = next((v for v in flat if isinstance(v, XlError)), None)
    if bad is None and any(type(v) is not float for v in flat):
        bad = VALUE
    if bad is not None:
        return None, bad
    return np.array(flat, dtype=vec.FLOAT).reshape(a.shape), None


def _sequence(rows, columns=None, start=None, step=None):
    (r, c, s, d), errs = scalar_nums(rows, columns, start, step)
    if errs is not None:
        return vec.const(errs[1][errs[0]].ravel()[0])
    if any(x is not None and x.size != 1 for x in (r, c, s, d)):
        raise ValueError("SEQUENCE with arguments varying by row")
    n = 1 if r is None else int(np.trunc(r.item()))
    k = 1 if c is None else int(np.trunc(c.item()))
    first = 1.0 if s is None else s.item()
    inc = 1.0 if d is None else d.item()
    if n < 0 or k < 0:
        return vec.const(VALUE)
    if n == 0 or k == 0:
        return vec.const(CALC)
    check_array_cells(f"SEQUENCE({n:,}, {k:,})", n * k)  # past the budget: refused, exit 2
    return (first + inc * np.arange(n * k, dtype=vec.FLOAT)).reshape(1, n, k)


def _square(a):
    """(floats (m, n, n), None) of a square numeric array, or (None, the error value)."""
    f, err = _strict_numbers(full(a))
    if err is not None:
        return None, err
    if f.shape[1] != f.shape[2]:
        return None, VALUE
    return f, None


def _minverse(a):
    f, err = _square(a)
    if err is not None:
        return vec.const(err)
    det = np.linalg.det(f)
    if np.any(np.abs(det) < 1e-300):
        if f.shape[0] == 1:
            return vec.const(NUM)
        raise ValueError("MINVERSE of a matrix singular for some rows")
    return np.linalg.inv(f)


def _mdeterm(a):
    f, err = _square(a)
    if err is not None:
        return vec.const(err)
    return np.linalg.det(f).reshape(-1, 1, 1)


def _choose(axis: int):
    """CHOOSEROWS (axis 1) / CHOOSECOLS (axis 2): the rows (columns) numbered, negative numbers
    counting from the end; 0 or beyond the array is #VALUE!."""

    def impl(array, *nums):
        arr = full(array)
        size = arr.shape[axis]
        picks = []
        for x in nums:
            if x is None:
                return vec.const(VALUE)
            if isinstance(x, np.ndarray) and x.ndim == 3 and x.shape[1] > 1 and x.shape[2] > 1:
                # numbers in several rows and columns: #VALUE! (formulas' test.xlsx LOOKUP!AH6
                # {=CHOOSECOLS({1,2,3;4,5,6;7,8,9},D6:E7)}, AH9 CHOOSEROWS alike)
                return vec.const(VALUE)
            f, e = vec.nums(x)
            if e is not None:
                return vec.const(e[1][e[0]].ravel()[0])
            if f.shape[0] != 1:
                raise ValueError("CHOOSECOLS/CHOOSEROWS with numbers varying by row")
            for k in np.trunc(f).ravel().tolist():
                if k == 0 or abs(k) > size:
                    return vec.const(VALUE)
                picks.append(int(k) - 1 if k > 0 else size + int(k))
        return np.take(arr, picks, axis=axis)

    return impl


def _anchorarray(ref):
    """``A1#`` (saved as ``ANCHORARRAY(A1)``): the block A1's array formula fills now; #REF! when
    A1 holds no array formula's result (or its spill is blocked)."""
    if not isinstance(ref, RangeVal) or ref.store is None or ref.moving:
        return vec.const(REF)
    blocks = getattr(ref.store, "spills", None) or {}
    end = blocks.get((ref.r0, ref.c0))
    if end is None:
        return vec.const(REF)
    return RangeVal(ref.store, ref.r0, end[0] - ref.r0 + 1, ref.c0, end[1] - ref.c0 + 1)


def _single(ctx, x):
    """``@x`` (saved as ``SINGLE(x)``): implicit intersection, even in an array formula: a range
    gives the cell in the formula's row (a column) or column (a row), an array its first value."""
    if isinstance(x, RangeVal):
        return x.intersect(ctx.rows, ctx.col)
    return x[:, :1, :1]


_ARRAYS_FUNCTIONS = {
    "ANCHORARRAY": Spec(_anchorarray, 1, 1, "r"),
    "SINGLE": Spec(_single, 1, 1, "r", needs_ctx=True),
    "TRANSPOSE": Spec(_transpose, 1, 1, "a"),
    "MMULT": Spec(_mmult, 2, 2, "a"),
    "MINVERSE": Spec(_minverse, 1, 1, "a"),
    "MDETERM": Spec(_mdeterm, 1, 1, "a"),
    "SEQUENCE": Spec(_sequence, 1, 4),
    "CHOOSECOLS": Spec(_choose(2), 2, 255, "av"),
    "CHOOSEROWS": Spec(_choose(1), 2, 255, "av"),
}


# --- dynarray --------------------------------------------------------------------------------------------


def _one(a) -> np.ndarray:
    """The (h, w) array of an argument that must be the same for every row of a group."""
    a = full(a)
    if a.shape[0] != 1:
        raise ValueError("a dynamic array varying by row")
    return a[0]


def _scalar(x, default):
    if x is None:
        return default
    if x.size != 1:
        raise ValueError("a dynamic-array option varying by row")
    return x.ravel().tolist()[0]


def _filter(array, include, if_empty=None):
    arr, inc = _one(array), _one(include)
    h, w = arr.shape
    if inc.shape[1] == 1 and inc.shape[0] == h:
        axis, flags = 0, inc[:, 0]
    elif inc.shape[0] == 1 and inc.shape[1] == w:
        axis, flags = 1, inc[0]
    else:
        return vec.const(VALUE)
    keep = []
    for v in flags.tolist():
        if isinstance(v, XlError):
            return vec.const(v)
        if isinstance(v, str):
            return vec.const(VALUE)
        keep.append(bool(v))
    if not any(keep):
        return vec.const(CALC) if if_empty is None else if_empty
    out = arr[np.array(keep)] if axis == 0 else arr[:, np.array(keep)]
    return out[None]


def _key(v):
    """Identity of a value for UNIQUE: text without case, numbers and booleans apart."""
    if isinstance(v, str):
        return ("s", v.lower())
    if isinstance(v, bool):
        return ("b", v)
    if isinstance(v, XlError):
        return ("e", v.code)
    if v is None:  # a blank cell is not 0 (formulas' test.xlsx LOOKUP!AN117:AQ119)
        return ("z",)
    return ("n", float(v))


def _unique(array, by_col=None, exactly_once=None):
    arr = _one(array)
    by_col, once = _flag(_scalar(by_col, False)), _flag(_scalar(exactly_once, False))
    if by_col is None or once is None:
        return vec.const(VALUE)
    lines = arr.T if by_col else arr
    counts: dict[tuple, int] = {}
    first: dict[tuple, int] = {}
    for i, line in enumerate(lines.tolist()):
        k = tuple(_key(v) for v in line)
        counts[k] = counts.get(k, 0) + 1
        first.setdefault(k, i)
    rows = [i for k, i in first.items() if not once or counts[k] == 1]
    if not rows:
        return vec.const(CALC)
    out = lines[rows].astype(object)
    # blank cells come out as 0 (Excel's LOOKUP!AN117:AQ119 {=UNIQUE(D117:G119,-1)}: the
    # columns 2,blank,blank and 2,0,0 both kept, shown 2,0,0)
    out[np.equal(out, None)] = 0.0
    return (out.T if by_col else out)[None]


def _rank(v) -> int:
    if isinstance(v, float | int) and not isinstance(v, bool):
        return 0
    return 1 if isinstance(v, str) else 2 if isinstance(v, bool) else 3 if isinstance(v, XlError) else 4


#: SORT's order of errors: #NULL! < #DIV/0! < #VALUE! < #REF! < #NAME? < #NUM! < #N/A
_ERROR_ORDER = {
    e: i for i, e in enumerate(("#NULL!", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#N/A"))
}


def _order(a, b, descending: bool) -> int:
    ra, rb = _rank(a), _rank(b)
    if ra == 4 or rb == 4:  # blanks last either way
        return (ra == 4) - (rb == 4)
    if ra != rb:
        c = -1 if ra < rb else 1
    elif ra == 3:  # errors in Excel's order of their codes (formulas' test.xlsx LOOKUP!U118:AI119)
        ka, kb = _ERROR_ORDER.get(str(a), 99), _ERROR_ORDER.get(str(b), 99)
        c = (ka > kb) - (ka < kb)
    else:
        c = compare(a, b)
    return -c if descending else c


def _sort(array, sort_index=None, sort_order=None, by_col=None):
    arr = _one(array)
    by_col = _flag(_scalar(by_col, False))
    if any(x is not None and sum(d > 1 for d in np.shape(x)) > 1 for x in (sort_index, sort_order)):
        return vec.const(VALUE)  # several rows and columns of indexes or orders (LOOKUP!AS117)
    index = _scalar(sort_index, 1.0)
    order = _scalar(sort_order, 1.0)
    index, order = (0.0 if v is None else v for v in (index, order))  # a blank cell is 0: #VALUE!
    if by_col is None or isinstance(index, str | XlError) or isinstance(order, str | XlError):
        return vec.const(VALUE)
    lines = arr.T if by_col else arr
    k = int(index) - 1
    if not 0 <= k < lines.shape[1] or float(order) not in (1.0, -1.0):
        return vec.const(VALUE)
    keys = lines[:, k].tolist()
    desc = float(order) == -1.0
    idx = sorted(range(len(keys)), key=functools.cmp_to_key(lambda i, j: _order(keys[i], keys[j], desc)))
    out = lines[idx]
    return (out.T if by_col else out)[None]


def _sortby(array, *pairs):
    arr = _one(array)
    h, w = arr.shape
    keys, orders, axis = [], [], None
    for i in range(0, len(pairs), 2):
        by = pairs[i]
        if by is None:
            return vec.const(VALUE)
        by = _one(by)
        order = _scalar(pairs[i + 1], 1.0) if i + 1 < len(pairs) else 1.0
        if isinstance(order, str | XlError | bool) or float(order) not in (1.0, -1.0):
            return vec.const(VALUE)
        if by.shape == (h, 1) and axis != 1:
            axis, key = 0, by[:, 0].tolist()
        elif by.shape == (1, w) and axis != 0:
            axis, key = 1, by[0].tolist()
        else:
            return vec.const(VALUE)
        keys.append(key)
        orders.append(float(order) == -1.0)

    def cmp(i, j):
        for key, desc in zip(keys, orders, strict=True):
            c = _order(key[i], key[j], desc)
            if c:
                return c
        return 0

    idx = sorted(range(h if axis == 0 else w), key=functools.cmp_to_key(cmp))
    return (arr[idx] if axis == 0 else arr[:, idx])[None]


def _flag(v) -> bool | None:
    if isinstance(v, bool):
        return v
    if isinstance(v, float | int):
        return v != 0
    return None


_DYNARRAY_FUNCTIONS = {
    "FILTER": Spec(_filter, 2, 3, "aav"),
    "UNIQUE": Spec(_unique, 1, 3, "avv"),
    "SORT": Spec(_sort, 1, 4, "avvv"),
    "SORTBY": Spec(_sortby, 2, 255, "a" + "av" * 127),
}


# --- reshape ---------------------------------------------------------------------------------------------


def _count(x) -> int | XlError | None:
    """A whole-number argument: None when omitted or empty, the error, or #VALUE! for text."""
    v = _scalar(x, None)
    if v is None or isinstance(v, XlError):
        return v
    f, e = vec.nums(vec.const(v))
    if e is not None:
        return VALUE
    return int(np.trunc(f.item()))


def _objects(a: np.ndarray) -> np.ndarray:
    return a if a.dtype == vec.OBJ else a.astype(object)


def _cut(keep: bool):
    """TAKE (``keep``) or DROP: slices of each axis from its start (positive) or end."""

    def impl(array, rows=None, columns=None):
        arr = _one(array)
        counts = [_count(rows), _count(columns)]
        bad = next((c for c in counts if isinstance(c, XlError)), None)
        if bad is not None:
            return vec.const(bad)
        out = arr
        for axis, n in enumerate(counts):
            if n is None:
                continue
            size = out.shape[axis]
            if keep:
                part = slice(0, min(n, size)) if n >= 0 else slice(max(size + n, 0), size)
            else:
                part = slice(min(n, size), size) if n >= 0 else slice(0, max(size + n, 0))
            out = out[part] if axis == 0 else out[:, part]
        if out.size == 0:
            return vec.const(CALC)
        return out[None]

    return impl


def _expand(array, rows=None, columns=None, pad_with=None):
    arr = _one(array)
    h, w = arr.shape
    counts = [_count(rows), _count(columns)]
    bad = next((c for c in counts if isinstance(c, XlError)), None)
    if bad is not None:
        return vec.const(bad)
    nh = h if counts[0] is None else counts[0]
    nw = w if counts[1] is None else counts[1]
    if nh < h or nw < w:
        return vec.const(VALUE)
    out = np.full((nh, nw), _scalar(pad_with, NA), dtype=object)
    out[:h, :w] = arr
    return out[None]


def _stack(axis: int):
    """HSTACK (axis 1) / VSTACK (axis 0): the arrays joined, padded with #N/A."""

    def impl(*arrays):
        parts = [_objects(_one(a)) if a is not None else np.full((1, 1), None, dtype=object) for a in arrays]
        other = 1 - axis
        size = max(p.shape[other] for p in parts)
        padded = []
        for p in parts:
            if p.shape[other] < size:
                shape = (size - p.shape[0], p.shape[1]) if other == 0 else (p.shape[0], size - p.shape[1])
                p = np.concatenate([p, np.full(shape, NA, dtype=object)], axis=other)
            padded.append(p)
        return np.concatenate(padded, axis=axis)[None]

    return impl


def _flatten(as_row: bool):
    """TOCOL / TOROW."""

    def impl(array, ignore=None, scan_by_column=None):
        arr = _one(array)
        how = _count(ignore)
        by_col = _flag(_scalar(scan_by_column, False))
        if isinstance(how, XlError):
            return vec.const(how)
        how = 0 if how is None else how
        if how not in (0, 1, 2, 3) or by_col is None:
            return vec.const(VALUE)
        values = (arr.T if by_col else arr).ravel().tolist()
        kept = [v for v in values if not (how & 1 and v is None) and not (how & 2 and isinstance(v, XlError))]
        if not kept:
            return vec.const(CALC)
        out = np.empty(len(kept), dtype=object)
        out[:] = kept
        return out.reshape((1, 1, -1) if as_row else (1, -1, 1))

    return impl


def _wrap(by_rows: bool):
    """WRAPROWS (``by_rows``) / WRAPCOLS."""

    def impl(vector, wrap_count, pad_with=None):
        arr = _one(vector)
        if arr.shape[0] != 1 and arr.shape[1] != 1:
            return vec.const(VALUE)
        n = _count(wrap_count)
        if isinstance(n, XlError):
            return vec.const(n)
        if n is None:
            return vec.const(VALUE)
        if n < 1:
            return vec.const(NUM)
        values = arr.ravel().tolist()
        n = min(n, len(values))  # a wrap_count past the vector: the vector in one line
        lines = -(-len(values) // n)
        out = np.full(lines * n, _scalar(pad_with, NA), dtype=object)
        out[: len(values)] = values
        out = out.reshape(lines, n)
        return (out if by_rows else out.T)[None]

    return impl


_RESHAPE_FUNCTIONS = {
    "TAKE": Spec(_cut(True), 2, 3, "avv"),
    "DROP": Spec(_cut(False), 2, 3, "avv"),
    "EXPAND": Spec(_expand, 2, 4, "avvv"),
    "HSTACK": Spec(_stack(1), 1, 254, "a"),
    "VSTACK": Spec(_stack(0), 1, 254, "a"),
    "TOCOL": Spec(_flatten(False), 1, 3, "avv"),
    "TOROW": Spec(_flatten(True), 1, 3, "avv"),
    "WRAPROWS": Spec(_wrap(True), 2, 3, "avv"),
    "WRAPCOLS": Spec(_wrap(False), 2, 3, "avv"),
}


FUNCTIONS = {**_ARRAYS_FUNCTIONS, **_DYNARRAY_FUNCTIONS, **_RESHAPE_FUNCTIONS}
