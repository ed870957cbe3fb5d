"""Lookup and reference: MATCH, INDEX, VLOOKUP, HLOOKUP, CHOOSE, ROWS, COLUMNS, ROW, COLUMN.

A lookup table is usually fixed (absolute references) while the looked-up values change per row,
so the table is indexed once (a dict for exact matches, a sorted array for approximate ones) and
all rows of the group are answered from it.
"""

from __future__ import annotations

import re

import numpy as np

from gputco.workbook.recalc.run import vec
from gputco.workbook.recalc.run.rangeval import RangeVal, dims, materialize
from gputco.workbook.recalc.run.values import NA, REF, VALUE, XlError

from ._args import Spec, as_value, scalar_nums, wildcard


def _key(v):
    """Exact-match key: numbers by value, text case-insensitively, booleans apart."""
    if isinstance(v, bool):
        return ("b", v)
    if isinstance(v, float):
        return ("n", v)
    if isinstance(v, str):
        return ("s", v.lower())
    return None


class _Index:
    """Positions in one 1-D lookup vector, for exact and approximate matching."""

    def __init__(self, items: list) -> None:
        self.items = items
        self.exact: dict = {}
        for i, v in enumerate(items):
            k = _key(v)
            if k is not None and k not in self.exact:
                self.exact[k] = i
        self._sorted: dict = {}

    def find(self, x, how: int):
        """0-based position or NA; how is 0 (exact), 1 (largest <= x), -1 (smallest >= x)."""
        if isinstance(x, XlError):
            return x
        if x is None:
            return NA
        if how == 0:
            if isinstance(x, str) and (rx := wildcard(x)) is not None:
                return next(
                    (i for i, v in enumerate(self.items) if isinstance(v, str) and rx.fullmatch(v)), NA
                )
            return self.exact.get(_key(x), NA)
        kind = "n" if isinstance(x, float) else "s" if isinstance(x, str) else "b"
        if how > 0 and not self.plain(kind):
            return _bsearch(self.items, kind, x.lower() if isinstance(x, str) else x)
        pos, vals = self._typed(kind)
        if not len(vals):
            return NA
        xv = x.lower() if isinstance(x, str) else x
        if how > 0:  # ascending data: the last value <= x
            i = int(np.searchsorted(vals, xv, side="right")) - 1
        else:  # descending data: the last value >= x
            i = len(vals) - int(np.searchsorted(vals[::-1], xv, side="left")) - 1
        return NA if i < 0 or i >= len(vals) else int(pos[i])

    def plain(self, kind) -> bool:
        """Every item of this kind and in ascending order: a sorted search gives Excel's answer;
        otherwise Excel's own binary search (:func:`_bsearch`) decides what unsorted data yields."""
        key = ("plain", kind)
        if key not in self._sorted:
            pos, vals = self._typed(kind)
            self._sorted[key] = len(pos) == len(self.items) and bool(
                len(vals) < 2 or np.all(vals[1:] >= vals[:-1])
            )
        return self._sorted[key]

    def _typed(self, kind):
        if kind not in self._sorted:
            sel = [
                (i, v.lower() if isinstance(v, str) else v)
                for i, v in enumerate(self.items)
                if _key(v) is not None and _key(v)[0] == kind
            ]
            pos = np.array([i for i, _ in sel], dtype=np.int64)
            vals = np.array([v for _, v in sel], dtype=float if kind != "s" else object)
            self._sorted[kind] = (pos, vals)
        return self._sorted[kind]


def _bsearch(items: list, kind: str, x):
    """Excel's approximate match (VLOOKUP/HLOOKUP/LOOKUP/MATCH type 1) on any data: a binary
    search that steps over items of another type and, on a hit, goes to the last of a run of
    equal items; the answer on unsorted data is where that search ends (the algorithm Apache POI
    documents as Excel's, LookupUtils.performBinarySearch; checked against Excel's cached values
    in tests/data/excel_corpus, POI's FormulaEvalTestData_Copy.xlsx).
    """

    def cmp(i):  # None: another type; else -1 (x < item), 0, 1
        v = items[i]
        if _key(v) is None or _key(v)[0] != kind:
            return None
        v = v.lower() if kind == "s" else v
        return -1 if x < v else 0 if x == v else 1

    low, high = -1, len(items)
    while high - low >= 2:
        mid = low + (high - low) // 2
        c = cmp(mid)
        if c is None:  # step right over other types; none before high: search the low half
            j = mid + 1
            while j < high and cmp(j) is None:
                j += 1
            if j == high or (cmp(j) == -1 and j == high - 1):
                high = mid
                continue
            mid, c = j, cmp(j)
        if c == 0:
            while mid + 1 < high and cmp(mid + 1) == 0:
                mid += 1
            return mid
        if c < 0:
            high = mid
        else:
            low = mid
    return NA if low < 0 else low


def _vectors(arr: np.ndarray, axis: str):
    """Per-row lookup vectors from an (m, h, w) array: its only column/row, or first col/row."""
    if axis == "col":
        return [list(a) for a in arr[:, :, 0].tolist()] if arr.shape[2] else [[]]
    return [list(a) for a in arr[:, 0, :].tolist()] if arr.shape[1] else [[]]


def _lookup_rows(vectors, x: np.ndarray, how: np.ndarray):
    """0-based positions (object array (m,)) for lookup values x against per-row vectors."""
    indexes = [_Index(v) for v in vectors]
    xs, hs = x.reshape(-1).tolist(), how.reshape(-1).tolist()
    m = max(len(indexes), len(xs), len(hs))
    if len(indexes) == 1 and len(set(hs)) == 1:  # one fixed table: answer all rows from it
        return _lookup_fixed(indexes[0], xs, int(hs[0]), m)
    out = np.empty(m, dtype=object)
    for i in range(m):
        out[i] = indexes[min(i, len(indexes) - 1)].find(xs[min(i, len(xs) - 1)], int(hs[min(i, len(hs) - 1)]))
    return out


def _lookup_fixed(index: _Index, xs: list, how: int, m: int) -> np.ndarray:
    out = np.empty(m, dtype=object)
    if how == 0:
        exact, find = index.exact, index.find
        out[:] = [
            exact.get(("n", v), NA)
            if type(v) is float
            else exact.get(("s", v.lower()), NA)
            if type(v) is str and not _WILD.search(v)
            else find(v, 0)
            for v in (xs if len(xs) == m else xs * m)
        ]
        return out
    if all(type(v) is float for v in xs) and (how < 0 or index.plain("n")):
        pos, vals = index._typed("n")
        if not len(vals):
            out[:] = NA
            return out
        arr = np.broadcast_to(np.asarray(xs, dtype=float), (m,))
        if how > 0:
            i = np.searchsorted(vals, arr, side="right") - 1
        else:
            i = len(vals) - np.searchsorted(vals[::-1], arr, side="left") - 1
        ok = (i >= 0) & (i < len(vals))
        out[:] = [
            int(p) if k else NA
            for p, k in zip(pos[np.clip(i, 0, len(vals) - 1)].tolist(), ok.tolist(), strict=True)
        ]
        return out
    for i in range(m):
        out[i] = index.find(xs[min(i, len(xs) - 1)], how)
    return out


_WILD = re.compile(r"[*?~]")


def _match(x, rng, how=None):
    arr = materialize(rng)
    h, w = dims(rng)
    if h > 1 and w > 1:
        return vec.const(NA)
    (fh,), eh = scalar_nums(how if how is not None else vec.const(1.0))
    how_arr = np.sign(np.trunc(fh))
    pos = _lookup_rows(_vectors(arr, "col" if w == 1 else "row"), x[:, 0, 0], how_arr)
    out = vec.from_list([p + 1.0 if isinstance(p, int) else p for p in pos.tolist()], (len(pos), 1, 1))
    return vec.with_errors(out, eh)


def _xlookup_table(axis: str):
    def impl(x, table, idx, approx=None):
        if not isinstance(table, RangeVal) and table.shape[1:] == (1, 1):
            return vec.const(VALUE)  # a single value is no table (Excel: #VALUE!)
        arr = materialize(table)
        (fi,), ei = scalar_nums(idx)
        if approx is None:
            a = np.ones((1, 1, 1), dtype=bool)
            ea = None
        else:
            a, ea = vec.bools(approx)
        how = np.where(a, 1.0, 0.0)
        pos = _lookup_rows(_vectors(arr, "col" if axis == "v" else "row"), x[:, 0, 0], how)
        h, w = dims(table)
        width = w if axis == "v" else h
        fi = np.trunc(fi.reshape(-1))
        m = max(len(pos), len(fi), arr.shape[0])
        out = []
        for i in range(m):
            p, k = pos[min(i, len(pos) - 1)], fi[min(i, len(fi) - 1)]
            if isinstance(p, XlError):
                out.append(p)
            elif k < 1:
                out.append(VALUE)
            elif k > width:
                out.append(REF)
            else:
                block = arr[min(i, arr.shape[0] - 1)]
                r, c = (p, int(k) - 1) if axis == "v" else (int(k) - 1, p)
                out.append(block[r, c] if r < block.shape[0] else None)
        return vec.with_errors(vec.from_list(out, (m, 1, 1)), vec.merge(ei, ea))

    return impl


def _index(rng, row=None, col=None):
    h, w = dims(rng)
    (fr, fc), e = scalar_nums(
        row if row is not None else vec.const(0.0), col if col is not None else vec.const(0.0)
    )
    fr, fc = np.trunc(fr.reshape(-1)), np.trunc(fc.reshape(-1))
    if col is None and h == 1 and w > 1:  # INDEX(row_vector, k)
        fr, fc = np.ones_like(fr), fr
    elif col is None:
        fc = np.ones_like(fc) if w == 1 else fc
    if fr.size == 1 and fc.size == 1 and (fr[0] == 0 or fc[0] == 0):
        return _index_whole(rng, int(fr[0]), int(fc[0]), h, w, e)
    if isinstance(rng, RangeVal) and rng.store is not None and e is None and fr.size == 1 and fc.size == 1:
        r, c = fr[0], fc[0]
        if 1 <= r <= h and 1 <= c <= w:  # one cell of a reference: a reference (INDEX(..):INDEX(..))
            return RangeVal(rng.store, rng.r0 + int(r) - 1, 1, rng.c0 + int(c) - 1, 1)
    arr = materialize(rng)
    m = max(len(fr), len(fc), arr.shape[0])
    r = np.broadcast_to(fr, (m,)).astype(np.int64)
    c = np.broadcast_to(fc, (m,)).astype(np.int64)
    inside = (r >= 1) & (c >= 1) & (r <= h) & (c <= w)
    stored = inside & (r <= arr.shape[1])  # rows past the sheet's used rows are blank
    if arr.shape[1] and arr.shape[2]:
        blocks = np.broadcast_to(np.arange(arr.shape[0]), (m,)) if arr.shape[0] > 1 else 0
        vals = arr[blocks, np.clip(r - 1, 0, arr.shape[1] - 1), np.clip(c - 1, 0, arr.shape[2] - 1)]
        vals = np.broadcast_to(vals, (m,))
    else:
        vals = np.full(m, None, dtype=object)
    if stored.all():
        return vec.with_errors(vals.reshape(m, 1, 1), e)
    out = vals.astype(object)
    out[inside & ~stored] = None
    bad = ~inside
    out[bad & ((r > h) | (c > w))] = REF  # outside the range: #REF!
    out[bad & ((r < 0) | (c < 0) | ((r <= h) & (c <= w)))] = VALUE  # negative: #VALUE! (Excel)
    return vec.with_errors(out.reshape(m, 1, 1), e)


def _index_whole(rng, r: int, c: int, h: int, w: int, e):
    """INDEX(range, 0, k) / INDEX(range, k, 0): a whole column or row (a reference if given one)."""
    if r < 0 or c < 0:
        return vec.const(VALUE)
    if r > h or c > w:
        return vec.const(REF)
    if isinstance(rng, RangeVal):
        out = RangeVal(
            rng.store,
            rng.r0 + (r - 1 if r else 0),
            1 if r else h,
            rng.c0 + (c - 1 if c else 0),
            1 if c else w,
        )
        return out if e is None else vec.with_errors(out.values(), e)
    arr = rng[:, r - 1 : r, :] if r else rng
    arr = arr[:, :, c - 1 : c] if c else arr
    return vec.with_errors(arr, e)


def _choose(ctx, idx, *options):
    """CHOOSE(k, a, b, ...): with one k for the whole group, the chosen argument as it is (a
    reference stays a reference: SUM(CHOOSE(2, A1:A2, A1:A3)) sums A1:A3); with k varying per
    row, the values picked row by row."""
    (fi,), e = scalar_nums(idx)
    fi = np.trunc(fi)
    if fi.size == 1 and e is None:
        k = fi.ravel()[0]
        if not 1 <= k <= len(options):
            return vec.const(VALUE)
        o = options[int(k) - 1]
        return vec.const(0.0) if o is None else o
    opts = [vec.const(0.0) if o is None else as_value(ctx, o) for o in options]
    out = vec.const(VALUE)
    for k in range(len(opts), 0, -1):
        hit = fi == k
        if hit.any():
            out = vec.select(hit, opts[k - 1], out)
    return vec.with_errors(out, e)


def _rows(rng):
    return vec.const(float(dims(rng)[0]))


def _columns(rng):
    return vec.const(float(dims(rng)[1]))


def _row(ctx, rng=None):
    if rng is None:
        return ctx.rows.astype(float).reshape(-1, 1, 1)
    if isinstance(rng, RangeVal):  # a range's rows as a column array ({2;3;4} for A2:A4)
        r0 = np.asarray(rng.r0, dtype=float).reshape(-1, 1, 1)
        return r0 if rng.h == 1 else r0 + np.arange(rng.h, dtype=float).reshape(1, -1, 1)
    return vec.const(VALUE)


def _column(ctx, rng=None):
    if rng is None:
        return vec.const(float(ctx.col))
    if isinstance(rng, RangeVal):  # a range's columns as a row array
        return (rng.c0 + np.arange(rng.w, dtype=float)).reshape(1, 1, -1)
    return vec.const(VALUE)


FUNCTIONS = {
    "MATCH": Spec(_match, 2, 3, "vav"),
    "INDEX": Spec(_index, 2, 3, "rv"),
    "VLOOKUP": Spec(_xlookup_table("v"), 3, 4, "vrv"),
    "HLOOKUP": Spec(_xlookup_table("h"), 3, 4, "vrv"),
    "CHOOSE": Spec(_choose, 2, 255, "vr", needs_ctx=True),
    "ROWS": Spec(_rows, 1, 1, "r"),
    "COLUMNS": Spec(_columns, 1, 1, "r"),
    "ROW": Spec(_row, 0, 1, "r", needs_ctx=True),
    "COLUMN": Spec(_column, 0, 1, "r", needs_ctx=True),
}
