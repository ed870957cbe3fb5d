"""Functions that build or reshape arrays: TRANSPOSE, MMULT, MINVERSE, MDETERM, SEQUENCE,
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
"""

from __future__ import annotations

import numpy as np

from gputco.workbook.recalc.run import vec
from gputco.workbook.recalc.run.rangeval import RangeVal
from gputco.workbook.recalc.run.values import CALC, NUM, REF, VALUE, XlError

from ._args import Spec, scalar_nums


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
    if n * k > 1 << 20:
        raise ValueError(f"SEQUENCE of {n:,} x {k:,} cells")
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


FUNCTIONS = {
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
