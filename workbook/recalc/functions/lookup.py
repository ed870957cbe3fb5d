"""Excel's Lookup and reference functions (OFFSET and INDIRECT, which compute references, included).

Lookup and reference: MATCH, INDEX, VLOOKUP, HLOOKUP, CHOOSE, ROWS, COLUMNS, ROW, COLUMN.

A lookup table is usually fixed (absolute references) while the looked-up values change per row,
so the table is indexed once (a dict for exact matches, a sorted array for approximate ones) and
all rows of the group are answered from it.

LOOKUP, XLOOKUP and XMATCH.

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

FORMULATEXT and CELL: what a reference's cell holds, rather than its value; AREAS, how many
areas a reference (a union of them, ``(A1:B2,C3)``) has.

- FORMULATEXT(reference): the formula of the reference's top-left cell as Excel shows it (``=``
  and the formula, without the ``_xlfn.`` prefixes the file stores; a CSE array formula in
  braces, ``{=...}``); a cell without a formula is #N/A.
- CELL(info_type, [reference]): only the info types that depend on the workbook alone:
  "address" (``$A$1``; for another sheet's cell Excel writes the workbook's file name too, so that
  is unsupported), "row", "col", "contents" (the value of the top-left cell) and "type" ("b"
  blank, "l" text, "v" anything else); and "filename", the file's own path as Excel writes it
  (``folder/[file.xlsx]Sheet``, with or without a reference: see :func:`_filename`), which
  ``--check`` reports as recomputed rather than compared (Excel stored the path on its own
  machine). The others (format, width, color, protect, prefix, parentheses) and CELL without a
  reference for them (the last changed cell) depend on the application: formulas using them
  are unsupported (the compiler checks the info type, see :func:`cell_supported`).

OFFSET and INDIRECT: references computed while the workbook is evaluated (same workbook only);
ADDRESS, the text of a reference.

- OFFSET(reference, rows, cols, [height], [width]): the range ``rows`` down and ``cols`` right of
  ``reference``'s top-left cell, of ``height`` x ``width`` (default: the reference's size); a
  range off the sheet, or a height/width below 1, is #REF!.
- INDIRECT(ref_text, [a1=TRUE]): the reference a text spells (``B3``, ``'My Sheet'!A1:B2``;
  ``R3C2`` / ``R[-1]C`` with a1 FALSE), or a defined name of a range. References to other
  workbooks, and texts that are not a reference, are #REF!: nothing outside the workbook is read.

Which cells these reach is known only when they run, so the engine evaluates a workbook that uses
them until its values settle (see :func:`..engine.evaluate_package`): a formula read before it was
computed is simply computed again on the next pass.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
from openpyxl.formula.translate import Translator

from gputco.workbook.recalc.base import vec
from gputco.workbook.recalc.base.rangeval import RangeVal, dims, materialize
from gputco.workbook.recalc.base.refs import MAX_COL, MAX_ROW, cell_name, col_letters, parse_ref
from gputco.workbook.recalc.base.values import NA, REF, VALUE, XlError, text_order
from gputco.workbook.recalc.formula.parse import Call, Const, RefNode
from gputco.workbook.recalc.read.cells import area_of

from ._args import Spec, as_value, scalar_nums, wildcard

# --- lookup ----------------------------------------------------------------------------------------------


def _key(v):
    """Exact-match key: numbers by value, text case-insensitively (in Excel's order of text,
    :func:`text_order`), booleans apart."""
    if isinstance(v, bool):
        return ("b", v)
    if isinstance(v, float):
        return ("n", v)
    if isinstance(v, str):
        return ("s", text_order(v))
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
        if x is None:  # a blank lookup value: 0 to an approximate match (Excel's LOOKUP!W65
            if how == 0:  # MATCH(blank, {-1.1,2.1,3.1,4.1}) is 1, W144 VLOOKUP(blank, ..., -2))
                return NA
            x = 0.0
        if how == 0:
            if isinstance(x, str) and (rx := wildcard(x)) is not None:
                return next(
                    (i for i, v in enumerate(self.items) if isinstance(v, str) and rx.fullmatch(v)), NA
                )
            return self.exact.get(_key(x), NA)
        kind = "n" if isinstance(x, float) else "s" if isinstance(x, str) else "b"
        if how > 0 and not self.plain(kind):
            return _bsearch(self.items, kind, text_order(x) if isinstance(x, str) else x)
        if how < 0 and not self.plain(kind, descending=True):
            return _descending_scan(self.items, kind, text_order(x) if isinstance(x, str) else x)
        pos, vals = self._typed(kind)
        if not len(vals):
            return NA
        xv = text_order(x) if isinstance(x, str) else x
        if how > 0:  # ascending data: the last value <= x
            i = int(np.searchsorted(vals, xv, side="right")) - 1
        else:  # descending data: the last value >= x
            i = len(vals) - int(np.searchsorted(vals[::-1], xv, side="left")) - 1
        return NA if i < 0 or i >= len(vals) else int(pos[i])

    def plain(self, kind, descending: bool = False) -> bool:
        """Every item of this kind and in ascending order: a sorted search gives Excel's answer;
        otherwise Excel's own binary search (:func:`_bsearch`) decides what unsorted data yields.
        Descending: the items of this kind in descending order (others are stepped over), else
        :func:`_descending_scan` decides."""
        key = ("plain", kind, descending)
        if key not in self._sorted:
            pos, vals = self._typed(kind)
            if descending:
                self._sorted[key] = bool(len(vals) < 2 or np.all(vals[1:] <= vals[:-1]))
            else:
                self._sorted[key] = len(pos) == len(self.items) and bool(
                    len(vals) < 2 or np.all(vals[1:] >= vals[:-1])
                )
        return self._sorted[key]

    def _typed(self, kind):
        if kind not in self._sorted:
            sel = [
                (i, text_order(v) if isinstance(v, str) else v)
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
        v = text_order(v) if kind == "s" else v
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


def _descending_scan(items: list, kind: str, x):
    """MATCH type -1 (the smallest value >= x, data in descending order) on any data: items of
    another type are stepped over, the first item of x's type below x ends the scan, and the
    answer is the last item before it (#N/A if none). Excel's cached values decide it on
    unsorted data (formulas' test.xlsx, LOOKUP!R83:Y91: MATCH(1.1, {-1.1,2.1,3.1,4.1}, -1) is
    #N/A, MATCH(-2, {-1.1,2.1,3.1,4.1}, -1) 4, MATCH(3, {"c bau c",4.1,"a",1.1}, -1) 2)."""
    last = NA
    for i, v in enumerate(items):
        k = _key(v)
        if k is None or k[0] != kind:
            continue
        if k[1] < x:
            break
        last = i
    return last


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
            else exact.get(("s", text_order(v)), NA)
            if type(v) is str and not _WILD.search(v)
            else find(v, 0)
            for v in (xs if len(xs) == m else xs * m)
        ]
        return out
    if all(type(v) is float for v in xs) and index.plain("n", descending=how < 0):
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
        if x.shape[0] == 1 and x.shape[1] * x.shape[2] > 1:
            # an array of lookup values in one cell: the lookup over each (Excel 365:
            # VLOOKUP({1,2;3,4}, ...) is a 2x2 array; a cell shows its top-left), with the first
            # of an array of indexes (Excel's LOOKUP!AH44:AW44 {=HLOOKUP(C44:Q44, {-1.1,2.1,3.1,
            # 4.1;5,6,7,8}, {2,1}, 0)} is 5, 6, #N/A, #N/A, 8, ...: row 2 for every value)
            if isinstance(idx, np.ndarray) and idx.ndim == 3 and idx.shape[0] == 1:
                idx = idx[:, :1, :1]
            out = np.empty(x.shape, dtype=object)
            for r in range(x.shape[1]):
                for c in range(x.shape[2]):
                    one = impl(x[:, r : r + 1, c : c + 1], table, idx, approx)
                    out[0, r, c] = np.asarray(one, dtype=object).reshape(-1)[0]
            return out
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
    elif col is None and h > 1 and w > 1 and isinstance(rng, RangeVal) and bool(np.all(fr >= 1)):
        # a reference of several rows and columns wants both numbers (formulas' test.xlsx
        # LOOKUP!R53 =INDEX(C52:E53,2) is #REF!; R54 =INDEX(C52:E53,-1) #VALUE! as before)
        return vec.with_errors(vec.const(REF), e)
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


def _error_of(rng):
    """The error a range expression gave (an empty intersection's #NULL!), or None: ROWS, COLUMNS,
    ROW and COLUMN give it (formulas' test.xlsx LOOKUP!AG13 =COLUMN(C12:E13 F12:H13), T15
    =COLUMNS((E15:H15 J15:K15 L15:O15)) are #NULL!)."""
    if isinstance(rng, np.ndarray) and rng.size == 1 and isinstance(rng.reshape(-1)[0], XlError):
        return rng
    return None


def _rows(rng):
    if (e := _error_of(rng)) is not None:
        return e
    return vec.const(float(dims(rng)[0]))


def _columns(rng):
    if (e := _error_of(rng)) is not None:
        return e
    return vec.const(float(dims(rng)[1]))


def _row(ctx, rng=None):
    if rng is None:
        return ctx.rows.astype(float).reshape(-1, 1, 1)
    if isinstance(rng, RangeVal):  # a range's rows as a column array ({2;3;4} for A2:A4)
        r0 = np.asarray(rng.r0, dtype=float).reshape(-1, 1, 1)
        return r0 if rng.h == 1 else r0 + np.arange(rng.h, dtype=float).reshape(1, -1, 1)
    return _error_of(rng) if _error_of(rng) is not None else vec.const(VALUE)


def _column(ctx, rng=None):
    if rng is None:
        return vec.const(float(ctx.col))
    if isinstance(rng, RangeVal):  # a range's columns as a row array
        return (rng.c0 + np.arange(rng.w, dtype=float)).reshape(1, 1, -1)
    return _error_of(rng) if _error_of(rng) is not None else vec.const(VALUE)


_LOOKUP_FUNCTIONS = {
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


# --- xlookup ---------------------------------------------------------------------------------------------


def _xvectors(arg) -> tuple[list[list], bool]:
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
        vectors, down = _xvectors(vector)
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


def _rank(v):
    """XLOOKUP's and XMATCH's order of values of any type: numbers < texts < FALSE < TRUE, and a
    blank lookup value after them all (it equals none). Excel's cached values decide it
    (formulas' test.xlsx, LOOKUP!W189:Y197: XMATCH(blank, {-1.1,2.1,3.1,4.1}, -1) is 4,
    XMATCH(TRUE, {"a",2.1,"c bau c",4.1}, -1) 3, XMATCH("*b?u*", {"",4.1,"a",1.1}, -1) 1)."""
    if v is None:
        return (3, 0)
    if isinstance(v, bool):
        return (2, int(v))
    if isinstance(v, float):
        return (0, v)
    if isinstance(v, str):
        return (1, text_order(v))
    return None


def _position(x, items: list, match: int, search: int):
    """0-based position of x in items for XLOOKUP/XMATCH, or #N/A (#VALUE! for a wildcard
    match by binary search, as Excel's LOOKUP!R183:Y184)."""
    if isinstance(x, XlError):
        return x
    if abs(search) == 2:
        return VALUE if match == 2 else _binary_position(x, items, match, search < 0)
    order = range(len(items) - 1, -1, -1) if search == -1 else range(len(items))
    if match == 2 and isinstance(x, str):
        rx = wildcard(x)
        if rx is not None:
            return next((i for i in order if isinstance(items[i], str) and rx.fullmatch(items[i])), NA)
    kx = _key(x)
    exact = None if kx is None else next((i for i in order if _key(items[i]) == kx), None)
    if exact is not None or match in (0, 2):
        return NA if exact is None else exact
    rx_ = _rank(x)
    best, best_key = None, None
    for i in order:
        k = _rank(items[i]) if items[i] is not None else None
        if k is None:
            continue
        if (match == -1 and k < rx_) or (match == 1 and k > rx_):
            if best_key is None or (k > best_key if match == -1 else k < best_key):
                best, best_key = i, k
    return NA if best is None else best


def _binary_position(x, items: list, match: int, descending: bool):
    """XLOOKUP's and XMATCH's binary search (search mode 2, -2 descending) over values of any
    type in :func:`_rank`'s order, mid = (low + high) // 2; on unsorted data the answer is where
    it ends (Excel's LOOKUP!R175:Y178 and R185:Y186: XMATCH(-2, {"",4.1,"a",1.1}, 1, 2) is 1,
    XMATCH(1.1, {"c bau c",4.1,"a",1.1}, 0, 2) #N/A)."""
    rx = _rank(x)
    lo, hi = 0, len(items) - 1
    while lo <= hi:
        mid = (lo + hi) // 2
        k = _rank(items[mid]) if items[mid] is not None else None
        if k is not None and k == rx:
            return mid
        left = k is None or (rx < k) != descending
        if left:
            hi = mid - 1
        else:
            lo = mid + 1
    if match == 0:
        return NA
    # ascending: items[hi] is the next smaller, items[lo] the next larger; descending: reversed
    i = (hi if match == -1 else lo) if not descending else (lo if match == -1 else hi)
    return i if 0 <= i < len(items) else NA


def _modes(match, search):
    (m, s), e = scalar_nums(
        match if match is not None else vec.const(0.0), search if search is not None else vec.const(1.0)
    )
    if any(
        isinstance(a, np.ndarray) and a.ndim == 3 and a.shape[1] * a.shape[2] > 1 for a in (match, search)
    ):
        # an array of modes: the evaluator lifts the function over each (Excel's LOOKUP!AH162:
        # AW170 {=XLOOKUP(C162:Q162, ..., C163:Q163, C162:C169)}: a value per mode)
        raise ValueError("lifted over the modes")
    m, s = np.floor(m).ravel(), np.floor(s).ravel()  # INT: a search mode -1.1 is -2 (LOOKUP!AK162)
    if len(set(m.tolist())) > 1 or len(set(s.tolist())) > 1:
        raise ValueError("modes varying by row: cell by cell")
    if e is not None:
        return None, None
    m, s = int(m[0]), int(s[0])
    if m not in (-1, 0, 1, 2) or s not in (-2, -1, 1, 2):
        return None, None
    return m, s


def _invalid(x):
    """#VALUE! for invalid modes or a 2-D lookup array, but a lookup value's error first (Excel's
    LOOKUP!AT162:AV169: XLOOKUP(#NULL!, ..., match mode 3) is #NULL!)."""
    if isinstance(x, np.ndarray) and x.size == 1 and isinstance(x.reshape(-1)[0], XlError):
        return x
    return vec.const(VALUE)


def _xmatch(x, array, match=None, search=None):
    m, s = _modes(match, search)
    h, w = dims(array)
    if m is None or (h > 1 and w > 1):
        return _invalid(x)
    vectors, _ = _xvectors(array)
    xs = x.reshape(-1).tolist()
    n = max(len(xs), len(vectors))
    out = [_position(xs[min(i, len(xs) - 1)], vectors[min(i, len(vectors) - 1)], m, s) for i in range(n)]
    return vec.from_list([p + 1.0 if isinstance(p, int) else p for p in out], (n, 1, 1))


def _xlookup(x, array, result, if_not_found=None, match=None, search=None):
    m, s = _modes(match, search)
    h, w = dims(array)
    if m is None or (h > 1 and w > 1):
        return _invalid(x)
    vectors, down = _xvectors(array)
    rh, rw = dims(result)
    if (rh if down else rw) != (h if down else w):
        return vec.const(VALUE)
    xs = x.reshape(-1).tolist()
    nf = None if if_not_found is None else if_not_found.reshape(-1).tolist()
    n = max(len(xs), len(vectors), len(nf or ()))
    out = []
    for i in range(n):
        xi = xs[min(i, len(xs) - 1)]
        p = _position(xi, vectors[min(i, len(vectors) - 1)], m, s)
        if p is NA and nf is not None and not isinstance(xi, XlError):
            out.append(nf[min(i, len(nf) - 1)])
        elif isinstance(p, XlError):
            out.append(p)
        else:
            out.append(_at(result, p, down, i))
    return vec.from_list(out, (n, 1, 1))


_XLOOKUP_FUNCTIONS = {
    "LOOKUP": Spec(_lookup, 2, 3, "va"),
    "XLOOKUP": Spec(_xlookup, 3, 6, "vaav"),
    "XMATCH": Spec(_xmatch, 2, 4, "vav"),
}


# --- reference -------------------------------------------------------------------------------------------

_PREFIXES = re.compile(r"_xlfn\._xlws\.|_xlfn\.|_xlws\.|_xlpm\.", re.I)
CELL_TYPES = frozenset({"ADDRESS", "ROW", "COL", "CONTENTS", "TYPE"})


class FormulaTexts:
    """Formula texts of a package's cells, indexed on first use."""

    def __init__(self, package) -> None:
        self.package = package
        self._index: dict[str, dict[tuple[int, int], str]] | None = None

    def get(self, sheet: str, row: int, col: int) -> str | None:
        if self._index is None:
            self._index = {part.name.upper(): _texts(part) for part in self.package.sheets}
        return self._index.get(sheet.upper(), {}).get((row, col))


def _texts(part) -> dict[tuple[int, int], str]:
    out: dict[tuple[int, int], str] = {}
    masters: dict[str, object] = {}
    for fc in part.formulas:
        if fc.kind == "shared" and fc.text is not None:
            masters[fc.si] = fc
        if fc.kind == "spill":
            continue  # filled with its block below
        if fc.text is None:
            master = masters.get(fc.si)
            if master is None:
                continue
            origin = cell_name(master.row, master.col)
            text = Translator("=" + master.text, origin).translate_formula(cell_name(fc.row, fc.col))
        else:
            text = "=" + fc.text
        if text is None:
            continue
        text = _PREFIXES.sub("", text)
        if fc.kind == "array" and not fc.dynamic:
            text = "{" + text + "}"
        out[(fc.row, fc.col)] = text
        area = area_of(fc.ref) if fc.kind == "array" and fc.ref else None
        if area is not None and area[:2] == (fc.row, fc.col) and not fc.dynamic:
            for r in range(area[0], area[2] + 1):  # every cell of a CSE block shows its formula
                for c in range(area[1], area[3] + 1):
                    out[(r, c)] = text
    return out


def _formulatext(ctx, ref):
    if not isinstance(ref, RangeVal):
        return vec.const(VALUE if not isinstance(ref.ravel()[0], XlError) else ref.ravel()[0])
    texts = getattr(ctx.book, "formulas", None)
    if texts is None or ref.store is None:
        return vec.const(NA)
    rows = np.atleast_1d(np.asarray(ref.r0)).tolist()
    found = [texts.get(ref.store.name, r, ref.c0) for r in rows]
    return vec.from_list([NA if t is None else t for t in found], (len(found), 1, 1))


def _cell(ctx, info, ref=None):
    kinds = vec.texts(info)[0].ravel().tolist()
    kind = str(kinds[0]).upper() if len(set(kinds)) == 1 else None
    if kind == "FILENAME":
        return vec.const(_filename(ctx, ref))
    if kind not in CELL_TYPES or not isinstance(ref, RangeVal) or ref.store is None:
        return vec.const(VALUE)
    if kind == "ROW":
        return np.asarray(ref.r0, dtype=float).reshape(-1, 1, 1)
    if kind == "COL":
        return vec.const(float(ref.c0))
    if kind == "ADDRESS":
        rows = np.atleast_1d(np.asarray(ref.r0)).tolist()
        return vec.from_list([f"${col_letters(ref.c0)}${r}" for r in rows], (len(rows), 1, 1))
    vals = ref.store.block(ref.r0, 1, ref.c0, 1)
    if kind == "CONTENTS":
        if vals.dtype == object:
            vals = vals.copy()
            vals[vals == None] = 0.0  # noqa: E711 (elementwise)
        return vals
    flat = vals.ravel().tolist()
    return vec.from_list(["b" if v is None else "l" if isinstance(v, str) else "v" for v in flat], vals.shape)


def _filename(ctx, ref) -> object:
    """CELL("filename", [reference]): "folder/[file.xlsx]Sheet" of the file being recalculated
    (its absolute folder on this machine, with this system's separator), the sheet of the
    reference; without one, the sheet active when the file was saved (Microsoft: the cell
    "selected at the time of calculation"; assumption: the view Excel opens the file with)."""
    package = getattr(ctx.book, "package", None)
    if package is None or getattr(package, "path", None) is None:
        return (
            ""  # Microsoft: "empty text ("") if the worksheet that contains reference has not yet been saved"
        )
    if ref is None:
        sheet = package.active_sheet or ctx.sheet
    elif isinstance(ref, RangeVal) and ref.store is not None:
        sheet = ref.store.name
    else:
        return VALUE
    path = Path(package.path).resolve()
    return f"{path.parent}{os.sep}[{path.name}]{sheet}"


def cell_supported(node: Call) -> bool:
    """CELL with an info type the engine evaluates, written as text, and a reference (for
    "address", to the formula's own sheet: Excel names the workbook for others); "filename"
    with or without one."""
    if not node.args or len(node.args) > 2 or type(node.args[0]) is not Const:
        return False
    info = node.args[0].value
    if not isinstance(info, str):
        return False
    if info.upper() == "FILENAME":
        return len(node.args) == 1 or type(node.args[1]) is RefNode
    if len(node.args) != 2 or info.upper() not in CELL_TYPES or type(node.args[1]) is not RefNode:
        return False
    return info.upper() != "ADDRESS" or node.args[1].ref.sheet is None


#: the node the parser makes of a union of references, ``(A1:B2,C3)``
UNION = "[union of ranges]"


def _areas(ref):
    """AREAS(reference): the number of areas of a reference, a union such as ``(A1:B2,C3,D4)``
    counting each of its ranges (Microsoft's AREAS page); a value that is no reference is
    #VALUE! (an error, that error). Unions are evaluated nowhere else (see compile.py)."""

    def count(node):
        if type(node) is Call and node.name == UNION:
            total = 0
            for a in node.args:
                k = count(a)
                if isinstance(k, XlError):
                    return k
                total += k
            return total
        r = ref.evaluator.raw(node, ref.ctx)
        if isinstance(r, RangeVal):
            return 1
        first = np.asarray(r, dtype=object).ravel()[0]
        return first if isinstance(first, XlError) else VALUE

    k = count(ref.node)
    return vec.const(k if isinstance(k, XlError) else float(k))


_REFERENCE_FUNCTIONS = {
    "AREAS": Spec(_areas, 1, 1, "l"),
    "FORMULATEXT": Spec(_formulatext, 1, 1, "r", needs_ctx=True),
    "CELL": Spec(_cell, 1, 2, "vr", needs_ctx=True),
}


# --- dynamic ---------------------------------------------------------------------------------------------

DYNAMIC = frozenset({"OFFSET", "INDIRECT"})


def _uniform(a: np.ndarray) -> float | None:
    flat = np.unique(a.ravel())
    return float(flat[0]) if len(flat) == 1 else None


def _offset(ref, rows, cols, height=None, width=None):
    if not isinstance(ref, RangeVal):
        return vec.const(VALUE)
    (dr, dc, h, w), e = scalar_nums(rows, cols, height, width)
    if e is not None:
        errs = e[1][e[0]]
        return vec.const(errs.ravel()[0])
    dr, dc = np.trunc(dr), np.trunc(dc)
    h = np.full(1, float(ref.h)) if h is None else np.trunc(h)
    w = np.full(1, float(ref.w)) if w is None else np.trunc(w)
    uc, uh, uw = _uniform(dc), _uniform(h), _uniform(w)
    if uc is None or uh is None or uw is None:
        raise ValueError("OFFSET with a width, height or column offset varying by row")
    if uh < 1 or uw < 1:
        return vec.const(REF)
    c0 = ref.c0 + int(uc)
    r0 = np.asarray(ref.r0) + dr.reshape(-1).astype(np.int64)
    if c0 < 1 or c0 + int(uw) - 1 > MAX_COL or (r0 < 1).any() or (r0 + int(uh) - 1 > MAX_ROW).any():
        if r0.size == 1:
            return vec.const(REF)
        raise ValueError("OFFSET off the sheet for some rows")
    top = int(r0[0]) if r0.size == 1 else r0
    return RangeVal(ref.store, top, int(uh), c0, int(uw))


_R1C1 = re.compile(r"^R(\[-?\d+\]|\d*)C(\[-?\d+\]|\d*)$", re.I)


def _r1c1(text: str, row: int, col: int):
    """(top, left, bottom, right) of an R1C1 reference (one cell or a range), or None."""
    parts = text.split(":")
    if len(parts) > 2:
        return None
    cells = []
    for p in parts:
        m = _R1C1.match(p)
        if not m:
            return None
        cells.append((_axis(m[1], row), _axis(m[2], col)))
    (r1, c1), (r2, c2) = cells[0], cells[-1]
    return min(r1, r2), min(c1, c2), max(r1, r2), max(c1, c2)


def _axis(part: str, here: int) -> int:
    if part == "":
        return here
    if part.startswith("["):
        return here + int(part[1:-1])
    return int(part)


def _indirect(ctx, text, a1=None):
    book = ctx.book
    texts = text.reshape(-1).tolist()
    if a1 is None:
        styles = [True]
    else:
        b, e = vec.bools(a1)
        if e is not None:
            return vec.const(VALUE)
        styles = b.reshape(-1).tolist()
    rows = ctx.rows.tolist()
    n = max(len(texts), len(styles))
    if n > 1 and len(rows) == 1:  # INDIRECT({"A1","B2"}) in one cell: its top-left result
        texts, styles, n = texts[:1], styles[:1], 1
    if n > 1 and n != len(rows):
        raise ValueError("INDIRECT over an array")
    found = []
    for i in range(n):
        t = texts[min(i, len(texts) - 1)]
        if isinstance(t, XlError):
            found.append(t)
            continue
        found.append(
            _resolve(
                book, ctx.sheet, t, styles[min(i, len(styles) - 1)], rows[min(i, len(rows) - 1)], ctx.col
            )
        )
    if all(f == found[0] for f in found):
        return _as_range(book, found[0])
    tops = {(f[0], f[2], f[3], f[4]) if not isinstance(f, XlError) else None for f in found}
    if len(tops) != 1 or None in tops:
        raise ValueError("INDIRECT with references of different shapes by row")
    sheet, _, left, h, w = found[0]
    store = book.sheet(sheet)
    return RangeVal(store, np.array([f[1] for f in found], dtype=np.int64), h, left, w)


def _as_range(book, f):
    if isinstance(f, XlError):
        return vec.const(f)
    sheet, top, left, h, w = f
    store = book.sheet(sheet)
    return vec.const(REF) if store is None else RangeVal(store, top, h, left, w)


_PLAIN_SHEET = re.compile(r"^[A-Za-z_][A-Za-z0-9_.]*$")


def _resolve(book, here: str, text, a1: bool, row: int, col: int, depth: int = 0):
    """(sheet, top, left, height, width) of a reference text, or #REF!."""
    if not isinstance(text, str) or not text.strip():
        return REF
    text = text.strip()
    if a1 and "!" not in text:  # a defined name (sheet scope first) that names a range
        name = text.upper()
        target = book.names.get((here.upper(), name)) or book.names.get((None, name))
        if target is not None:
            if depth > 8 or "!" not in target:
                return REF
            return _resolve(book, here, target.lstrip("="), True, row, col, depth + 1)
    sheet, body = here, text
    if "!" in text:
        sheet, _, body = text.rpartition("!")
        if sheet.startswith("[") or "]" in sheet:
            return REF  # another workbook: never read
        if sheet.startswith("'") and sheet.endswith("'"):
            sheet = sheet[1:-1].replace("''", "'")
        elif not _PLAIN_SHEET.match(sheet):
            return REF  # a sheet name with spaces or signs must be quoted
    if book.sheet(sheet) is None:
        return REF
    if a1:
        try:
            ref = parse_ref(body, row, col)
        except ValueError:
            return REF
        if ref is None:
            return REF  # not a reference
        top, left, bottom, right = ref.rect(row, col)
    else:
        rect = _r1c1(body, row, col)
        if rect is None:
            return REF
        top, left, bottom, right = rect
    if top < 1 or left < 1 or bottom > MAX_ROW or right > MAX_COL:
        return REF
    return (book.sheet(sheet).name, top, left, bottom - top + 1, right - left + 1)


#: ADDRESS's sheet_text left out (a blank cell or "" given as sheet_text gives "!A1": an
#: Excel-saved workbook, vinci1it2000/formulas test/test_files/test.xlsx, LOOKUP!AH3:AW3
#: {=ADDRESS(D3:Q3,E3,F3,G3,H3)} with H3 blank is cached "!C1", "!C3", ...)
_NO_SHEET = object()


def _address_one(r, c, kind, a1, sheet):
    if any(isinstance(x, XlError) for x in (r, c, kind, a1, sheet)):
        return next(x for x in (r, c, kind, a1, sheet) if isinstance(x, XlError))
    try:
        r, c, kind = int(r), int(c), int(kind)
    except (TypeError, ValueError):
        return VALUE
    if not (1 <= r <= MAX_ROW and 1 <= c <= MAX_COL and 1 <= kind <= 4):
        return VALUE
    abs_row, abs_col = kind in (1, 2), kind in (1, 3)
    if a1:
        ref = f"{'$' if abs_col else ''}{col_letters(c)}{'$' if abs_row else ''}{r}"
    else:
        ref = (f"R{r}" if abs_row else f"R[{r}]") + (f"C{c}" if abs_col else f"C[{c}]")
    if sheet is _NO_SHEET:
        return ref
    if sheet is None or sheet == "":  # given, but a blank cell or an empty text: "!" alone
        return f"!{ref}"
    name = str(sheet)
    if not _PLAIN_SHEET.match(name):
        name = "'" + name.replace("'", "''") + "'"
    return f"{name}!{ref}"


def _address(row, col, kind=None, a1=None, sheet=None):
    """ADDRESS(row, column, [abs_num=1], [a1=TRUE], [sheet_text]): a reference as text."""
    (r, c, k), e = scalar_nums(row, col, kind if kind is not None else vec.const(1.0))
    b, eb = vec.bools(a1 if a1 is not None else vec.const(True))
    sh = sheet if sheet is not None else vec.const(_NO_SHEET)
    r, c, k = np.trunc(r), np.trunc(c), np.trunc(k)
    out = vec.elementwise(lambda *xs: _address_one(*xs), r, c, k, b, sh)
    return vec.with_errors(out, vec.merge(e, eb))


_DYNAMIC_FUNCTIONS = {
    "ADDRESS": Spec(_address, 2, 5),
    "OFFSET": Spec(_offset, 3, 5, "rv"),
    "INDIRECT": Spec(_indirect, 1, 2, needs_ctx=True),
}


FUNCTIONS = {**_LOOKUP_FUNCTIONS, **_XLOOKUP_FUNCTIONS, **_REFERENCE_FUNCTIONS, **_DYNAMIC_FUNCTIONS}
