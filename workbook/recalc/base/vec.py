"""Vectorised Excel values: every value in the evaluator is a 3-D numpy array ``(m, h, w)``.

``m`` is 1 (the same for every row of a formula group) or n (one per row); ``h x w`` is 1x1 for a
scalar and the array's size for ranges and array expressions, so numpy broadcasting does the
rest. The fast path is a float64 (or bool) array; text, blanks (None) and errors live in object
arrays and go through the element rules of :mod:`.values`.
"""

from __future__ import annotations

import numpy as np

from gputco.workbook.recalc.base.values import MAX_TEXT, NA, NUM, VALUE, XlError, to_bool, to_number, to_text

FLOAT, BOOL, OBJ = np.dtype(np.float64), np.dtype(np.bool_), np.dtype(object)

#: errors as (mask, values): mask marks the elements holding an XlError in values
Errs = tuple[np.ndarray, np.ndarray] | None


def const(v: object) -> np.ndarray:
    """A scalar as a (1, 1, 1) array of the right dtype.

    >>> const(2.0).dtype, const(True).dtype, const("a").dtype
    (dtype('float64'), dtype('bool'), dtype('O'))
    """
    if isinstance(v, bool):
        return np.full((1, 1, 1), v, dtype=BOOL)
    if isinstance(v, float | int):
        return np.full((1, 1, 1), float(v), dtype=FLOAT)
    out = np.empty((1, 1, 1), dtype=OBJ)
    out[0, 0, 0] = v
    return out


def expand(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two operands of (m, h, w) made the same size as Excel expands arrays of different sizes:
    a dimension of 1 serves every row (column), and a larger one that is still short is padded
    with #N/A (``{1,2}+{1,2,3;4,5,6}`` is ``{1,2,#N/A;1,2,#N/A}+{1,2,3;4,5,6}``). Operands that
    broadcast already, or differ in m (cells, not array elements), are returned as they are.

    >>> [x.shape for x in expand(np.ones((1, 1, 2)), np.ones((1, 2, 3)))]
    [(1, 1, 3), (1, 2, 3)]
    """
    if a.ndim != 3 or b.ndim != 3 or a.shape[0] != b.shape[0]:
        return a, b
    if all(x == y or 1 in (x, y) for x, y in zip(a.shape[1:], b.shape[1:], strict=True)):
        return a, b
    h, w = max(a.shape[1], b.shape[1]), max(a.shape[2], b.shape[2])
    return _padded(a, h, w), _padded(b, h, w)


def _padded(x: np.ndarray, h: int, w: int) -> np.ndarray:
    th, tw = (1 if x.shape[1] == 1 else h), (1 if x.shape[2] == 1 else w)
    if (th, tw) == x.shape[1:]:
        return x
    out = np.full((x.shape[0], th, tw), NA, dtype=object)
    out[:, : x.shape[1], : x.shape[2]] = x
    return out


def from_list(values: list, shape: tuple[int, ...]) -> np.ndarray:
    """An array from Python values: float64 when all are numbers, bool when all are booleans,
    else object."""
    if all(type(v) is float or type(v) is np.float64 for v in values):
        return np.array(values, dtype=FLOAT).reshape(shape)
    if values and all(type(v) is bool for v in values):
        return np.array(values, dtype=BOOL).reshape(shape)
    out = np.empty(len(values), dtype=OBJ)
    out[:] = values
    return out.reshape(shape)


def _convert(a: np.ndarray, conv, fill):
    flat = [conv(v) for v in a.ravel().tolist()]
    mask = np.array([isinstance(x, XlError) for x in flat], dtype=BOOL).reshape(a.shape)
    if mask.any():
        vals = np.empty(a.shape, dtype=OBJ)
        vals.ravel()[:] = flat
        errs = (mask, vals)
        flat = [fill if isinstance(x, XlError) else x for x in flat]
    else:
        errs = None
    return flat, errs


def nums(a: np.ndarray) -> tuple[np.ndarray, Errs]:
    """Numbers for arithmetic: (float array, errors). Blank 0, TRUE 1, numeric text converted."""
    if a.dtype == FLOAT:
        return a, None
    if a.dtype == BOOL:
        return a.astype(FLOAT), None
    flat, errs = _convert(a, to_number, np.nan)
    return np.array(flat, dtype=FLOAT).reshape(a.shape), errs


def bools(a: np.ndarray) -> tuple[np.ndarray, Errs]:
    """Conditions: (bool array, errors). Numbers are TRUE when non-zero; text must say TRUE/FALSE."""
    if a.dtype == BOOL:
        return a, None
    if a.dtype == FLOAT:
        return a != 0.0, None
    flat, errs = _convert(a, to_bool, False)
    return np.array(flat, dtype=BOOL).reshape(a.shape), errs


def texts(a: np.ndarray) -> tuple[np.ndarray, Errs]:
    """Text for ``&`` and text functions: (object array of str, errors)."""
    flat, errs = _convert(a, to_text, "")
    out = np.empty(a.shape, dtype=OBJ)
    out.ravel()[:] = flat
    return out, errs


def cap_text(a: np.ndarray) -> np.ndarray:
    """Texts longer than a cell holds (32,767 characters) become #VALUE!, as in Excel.

    >>> cap_text(from_list(["ab", "x" * 40_000], (1, 1, 2))).tolist()
    [[['ab', #VALUE!]]]
    """
    if a.dtype != OBJ:
        return a
    long = np.fromiter(
        (isinstance(v, str) and len(v) > MAX_TEXT for v in a.ravel().tolist()), BOOL, a.size
    ).reshape(a.shape)
    if not long.any():
        return a
    out = a.copy()
    out[long] = VALUE
    return out


def merge(*errs: Errs) -> Errs:
    """Combine error sets; where several operands hold errors the leftmost wins (as in Excel)."""
    result: Errs = None
    for e in errs:
        if e is None:
            continue
        if result is None:
            result = e
            continue
        m0, v0 = result
        m1, v1 = e
        result = (m0 | m1, np.where(m0, v0, v1))
    return result


def add_error(errs: Errs, where: np.ndarray, err: XlError) -> Errs:
    """Add ``err`` where ``where`` is true and no earlier error sits."""
    if not where.any():
        return errs
    new = (where, np.full(where.shape, err, dtype=OBJ))
    return new if errs is None else merge(errs, new)


def finish(values: np.ndarray, errs: Errs, bad: XlError = NUM) -> np.ndarray:
    """Numeric results with errors put back; inf/nan not caused by an input error become ``bad``.

    >>> finish(np.array([[[1.0, np.inf]]]), None)
    array([[[1.0, #NUM!]]], dtype=object)
    """
    nonfinite = ~np.isfinite(values) if values.dtype == FLOAT else None
    has_bad = nonfinite is not None and nonfinite.any()
    if errs is None and not has_bad:
        return values
    shape = values.shape if errs is None else np.broadcast_shapes(values.shape, errs[0].shape)
    out = np.empty(shape, dtype=OBJ)
    out[...] = values
    if has_bad:
        out[np.broadcast_to(nonfinite, shape)] = bad
    if errs is not None:
        mask, vals = (np.broadcast_to(x, shape) for x in errs)
        out[mask] = vals[mask]
    return out


def select(cond: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Element-wise choice keeping the fast dtype when both sides share it."""
    if a.dtype == b.dtype and a.dtype != OBJ:
        return np.where(cond, a, b)
    if a.dtype == OBJ or b.dtype == OBJ or a.dtype != b.dtype:
        a = a.astype(OBJ) if a.dtype != OBJ else a
        b = b.astype(OBJ) if b.dtype != OBJ else b
    return np.where(cond, a, b)


def with_errors(values: np.ndarray, errs: Errs) -> np.ndarray:
    """Any-dtype results with errors put back (for text and boolean results)."""
    if errs is None:
        return values
    mask, vals = errs
    shape = np.broadcast_shapes(values.shape, mask.shape)
    out = np.empty(shape, dtype=OBJ)
    out[...] = values
    mask, vals = np.broadcast_to(mask, shape), np.broadcast_to(vals, shape)
    out[mask] = vals[mask]
    return out


def elementwise(func, *arrays: np.ndarray) -> np.ndarray:
    """Apply a Python function of element values over broadcast arrays (the slow, general path)."""
    shape = np.broadcast_shapes(*(a.shape for a in arrays))
    cols = [np.broadcast_to(a, shape).ravel().tolist() for a in arrays]
    return from_list([func(*vs) for vs in zip(*cols, strict=True)], shape)


def is_error_array(a: np.ndarray) -> np.ndarray:
    """Mask of the elements that are errors."""
    if a.dtype != OBJ:
        return np.zeros(a.shape, dtype=BOOL)
    return np.array([isinstance(v, XlError) for v in a.ravel().tolist()], dtype=BOOL).reshape(a.shape)


def rows_of(a: np.ndarray, n: int) -> np.ndarray:
    """The per-row result (n,) from a (m, h, w) value: top-left element of each row's array."""
    top = a[:, 0, 0] if a.ndim == 3 else a.reshape(-1)
    return np.broadcast_to(top, (n,)) if top.shape[0] != n else top
