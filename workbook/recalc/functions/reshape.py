"""Excel 365's functions that cut, join and reshape arrays: TAKE, DROP, EXPAND, HSTACK, VSTACK,
TOCOL, TOROW, WRAPROWS, WRAPCOLS.

LibreOffice 7.4 has none of them, so their oracle is Microsoft's documentation (the examples of
each function's page, in tests/test_recalc_reshape.py). Like FILTER and SORT (:mod:`.dynarray`)
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

import numpy as np

from gputco.workbook.recalc.run import vec
from gputco.workbook.recalc.run.values import CALC, NA, NUM, VALUE, XlError

from ._args import Spec
from .dynarray import _flag, _one, _scalar


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


FUNCTIONS = {
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
