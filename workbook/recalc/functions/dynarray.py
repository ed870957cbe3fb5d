"""Excel 365's dynamic-array functions that choose and order rows: FILTER, UNIQUE, SORT, SORTBY.

LibreOffice 7.4 has none of them, so their oracle is Microsoft's documentation (cited in
tests/test_recalc_arrays.py). Their results have a size known only when they run: in a formula
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
"""

from __future__ import annotations

import functools

import numpy as np

from gputco.workbook.recalc.run import vec
from gputco.workbook.recalc.run.values import CALC, VALUE, XlError, compare

from ._args import Spec
from .arrays import full


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
    return ("n", 0.0 if v is None else float(v))


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
    out = lines[rows]
    return (out.T if by_col else out)[None]


def _rank(v) -> int:
    if isinstance(v, float | int) and not isinstance(v, bool):
        return 0
    return 1 if isinstance(v, str) else 2 if isinstance(v, bool) else 3 if isinstance(v, XlError) else 4


def _order(a, b, descending: bool) -> int:
    ra, rb = _rank(a), _rank(b)
    if ra == 4 or rb == 4:  # blanks last either way
        return (ra == 4) - (rb == 4)
    if ra != rb:
        c = -1 if ra < rb else 1
    elif ra == 3:
        c = 0
    else:
        c = compare(a, b)
    return -c if descending else c


def _sort(array, sort_index=None, sort_order=None, by_col=None):
    arr = _one(array)
    by_col = _flag(_scalar(by_col, False))
    index = _scalar(sort_index, 1.0)
    order = _scalar(sort_order, 1.0)
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


FUNCTIONS = {
    "FILTER": Spec(_filter, 2, 3, "aav"),
    "UNIQUE": Spec(_unique, 1, 3, "avv"),
    "SORT": Spec(_sort, 1, 4, "avvv"),
    "SORTBY": Spec(_sortby, 2, 255, "a" + "av" * 127),
}
