"""LOOKUP, XLOOKUP and XMATCH.

- LOOKUP(x, lookup_vector, [result_vector]): the largest value <= x in an ascending vector (same
  type: numbers with numbers, text with text, case-insensitive), and the element at the same
  position of ``result_vector`` (a reference extends past its end, as in Excel); without it, the
  array form: the first row of a wider-than-tall array is searched and its last row returned,
  else the first and last columns.
- XLOOKUP(x, lookup_array, return_array, [if_not_found], [match_mode=0], [search_mode=1]) and
  XMATCH(x, lookup_array, [match_mode=0], [search_mode=1]) as Microsoft documents them:
  match_mode 0 exact, -1 exact or next smaller, 1 exact or next larger, 2 wildcards (``* ? ~``);
  search_mode 1 first to last, -1 last to first, 2 and -2 binary search over data sorted
  ascending / descending (answered like a scan of sorted data). Text matches case-insensitively;
  numbers and text never match each other. A 2-D return array gives its first element of the
  matching row or column (the anchor cell of Excel's spill; spilling itself is not written).
  LibreOffice 7.4 has neither function: the tests follow Microsoft's documentation.
"""

from __future__ import annotations

import numpy as np

from gputco.workbook.recalc.run import vec
from gputco.workbook.recalc.run.rangeval import RangeVal, dims, materialize
from gputco.workbook.recalc.run.values import NA, VALUE, XlError

from ._args import Spec, scalar_nums, wildcard
from .lookup import _Index


def _vectors(arg) -> tuple[list[list], bool]:
    """1-D lookup vectors, one per block of rows (one for a fixed range), and whether they run
    down a column."""
    arr = materialize(arg)
    h, w = dims(arg)
    if arr.shape[1] < h:  # rows past the used area are blank
        pad = np.full((arr.shape[0], h - arr.shape[1], w), None, dtype=object)
        arr = np.concatenate([arr.astype(object), pad], axis=1)
    if w == 1:
        return arr[:, :, 0].tolist(), True
    return arr[:, 0, :].tolist(), False


def _at(arg, pos: int, down: bool, i: int = 0, last: bool = False):
    """Element ``pos`` of a result vector (or of the last row/column of an array), for row i."""
    if isinstance(arg, RangeVal):
        if arg.store is None:
            return NA
        h, w = arg.h, arg.w
        r0 = int(arg.r0[min(i, len(arg.r0) - 1)]) if arg.moving else arg.r0
        if down:
            return arg.store.block(r0 + pos, 1, arg.c0 + (w - 1 if last else 0), 1)[0, 0, 0]
        return arg.store.block(r0 + (h - 1 if last else 0), 1, arg.c0 + pos, 1)[0, 0, 0]
    arr = arg[min(i, arg.shape[0] - 1)]
    h, w = arr.shape
    if down:
        return arr[pos, w - 1 if last else 0] if pos < h else NA
    return arr[h - 1 if last else 0, pos] if pos < w else NA


def _lookup(x, vector, result=None):
    h, w = dims(vector)
    if result is None and h > 1 and w > 1:
        arr = materialize(vector)
        down = not (w > h)
        vectors = arr[:, :, 0].tolist() if down else arr[:, 0, :].tolist()
    else:
        vectors, down = _vectors(vector)
        if result is not None:
            down = dims(result)[1] == 1
    indexes = [_Index(v) for v in vectors]
    xs = x.reshape(-1).tolist()
    m = max(len(xs), len(indexes))
    out = []
    for i in range(m):
        p = indexes[min(i, len(indexes) - 1)].find(xs[min(i, len(xs) - 1)], 1)
        if isinstance(p, XlError):
            out.append(p)
        else:
            out.append(_at(vector if result is None else result, p, down, i, last=result is None))
    return vec.from_list(out, (len(out), 1, 1))


def _key(v):
    if isinstance(v, bool):
        return ("b", v)
    if isinstance(v, float):
        return ("n", v)
    if isinstance(v, str):
        return ("s", v.lower())
    return None


def _position(x, items: list, match: int, search: int):
    """0-based position of x in items for XLOOKUP/XMATCH, or #N/A."""
    if isinstance(x, XlError):
        return x
    if x is None:
        x = 0.0
    order = range(len(items) - 1, -1, -1) if search == -1 else range(len(items))
    kx = _key(x)
    if match == 2 and isinstance(x, str):
        rx = wildcard(x)
        if rx is not None:
            return next((i for i in order if isinstance(items[i], str) and rx.fullmatch(items[i])), NA)
    exact = next((i for i in order if _key(items[i]) == kx), None)
    if exact is not None or match in (0, 2):
        return NA if exact is None else exact
    best, best_key = None, None
    for i in order:
        k = _key(items[i])
        if k is None or k[0] != kx[0]:
            continue
        if (match == -1 and k[1] < kx[1]) or (match == 1 and k[1] > kx[1]):
            closer = best_key is None or (k[1] > best_key if match == -1 else k[1] < best_key)
            if closer:
                best, best_key = i, k[1]
    return NA if best is None else best


def _modes(match, search):
    (m, s), e = scalar_nums(
        match if match is not None else vec.const(0.0), search if search is not None else vec.const(1.0)
    )
    m, s = np.trunc(m).ravel(), np.trunc(s).ravel()
    if e is not None or len(set(m.tolist())) != 1 or len(set(s.tolist())) != 1:
        return None, None
    m, s = int(m[0]), int(s[0])
    if m not in (-1, 0, 1, 2) or s not in (-2, -1, 1, 2):
        return None, None
    return m, s


def _xmatch(x, array, match=None, search=None):
    m, s = _modes(match, search)
    h, w = dims(array)
    if m is None or (h > 1 and w > 1):
        return vec.const(VALUE)
    vectors, _ = _vectors(array)
    xs = x.reshape(-1).tolist()
    n = max(len(xs), len(vectors))
    out = [_position(xs[min(i, len(xs) - 1)], vectors[min(i, len(vectors) - 1)], m, s) for i in range(n)]
    return vec.from_list([p + 1.0 if isinstance(p, int) else p for p in out], (n, 1, 1))


def _xlookup(x, array, result, if_not_found=None, match=None, search=None):
    m, s = _modes(match, search)
    h, w = dims(array)
    if m is None or (h > 1 and w > 1):
        return vec.const(VALUE)
    vectors, down = _vectors(array)
    rh, rw = dims(result)
    if (rh if down else rw) != (h if down else w):
        return vec.const(VALUE)
    xs = x.reshape(-1).tolist()
    nf = None if if_not_found is None else if_not_found.reshape(-1).tolist()
    n = max(len(xs), len(vectors), len(nf or ()))
    out = []
    for i in range(n):
        p = _position(xs[min(i, len(xs) - 1)], vectors[min(i, len(vectors) - 1)], m, s)
        if p is NA and nf is not None:
            out.append(nf[min(i, len(nf) - 1)])
        elif isinstance(p, XlError):
            out.append(p)
        else:
            out.append(_at(result, p, down, i))
    return vec.from_list(out, (n, 1, 1))


FUNCTIONS = {
    "LOOKUP": Spec(_lookup, 2, 3, "va"),
    "XLOOKUP": Spec(_xlookup, 3, 6, "vaav"),
    "XMATCH": Spec(_xmatch, 2, 4, "vav"),
}
