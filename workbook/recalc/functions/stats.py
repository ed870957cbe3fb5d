"""Statistical: MIN, MAX, AVERAGE, COUNT, COUNTA, MEDIAN, MODE, PERCENTILE, QUARTILE, SMALL...

Numbers come from :func:`._args.numbers` as an (m, K) array with NaN where an element does not
take part, so every statistic is a NaN-aware reduction along axis 1.

The "A" twins AVERAGEA, MAXA, MINA, STDEVA, STDEVPA, VARA, VARPA read ranges and arrays by
Microsoft's AVERAGEA/MAXA pages: TRUE is 1, FALSE and text (empty text too) are 0, blank cells are
skipped; arguments typed directly convert as for SUM (TRUE 1, "3" 3, text that is not a number
#VALUE!). SMALL and LARGE take an array k (``SUM(SMALL(A1:A9,{1,2,3}))``): one result per k.
"""

from __future__ import annotations

import numpy as np

from gputco.workbook.recalc.run import vec
from gputco.workbook.recalc.run.rangeval import materialize
from gputco.workbook.recalc.run.values import DIV0, NA, NUM, VALUE, XlError

from ._args import Spec, added, is_rangelike, numbers, result, scalar_nums


def _count_used(vals):
    return (~np.isnan(vals)).sum(axis=1)


def _extreme(largest: bool, logical: bool = False):
    """MAX/MIN (MAXA/MINA with ``logical``): 0 when no number takes part."""

    def impl(*args):
        vals, err = numbers(args, logical=logical)
        reduce = np.nanmax if largest else np.nanmin
        with np.errstate(all="ignore"):
            r = np.where(
                _count_used(vals) > 0, reduce(_fill(vals, -np.inf if largest else np.inf), axis=1), 0.0
            )
        return result(r, err)

    return impl


def _fill(vals, x):
    if vals.shape[1] == 0:
        return np.full((vals.shape[0], 1), x)
    return np.where(np.isnan(vals), x, vals)


def _average(logical: bool = False):
    def impl(*args):
        vals, err = numbers(args, logical=logical)
        n = _count_used(vals)
        with np.errstate(all="ignore"):
            r = added(vals) / n
        return result(r, err, bad=DIV0)

    return impl


def _count(*args):
    vals, _ = numbers(args, errors=False, scalars="numbers")
    return _count_used(vals).astype(float).reshape(-1, 1, 1)


def _counta(*args):
    total = 0
    for a in args:
        if a is None:
            total = total + 1  # an omitted argument counts, as in Excel
            continue
        arr = materialize(a)
        flat = arr.reshape(arr.shape[0], -1)
        if flat.dtype != vec.OBJ:
            total = total + flat.shape[1]
        else:
            total = total + (flat != None).sum(axis=1)  # noqa: E711 (element-wise)
    return np.asarray(total, dtype=float).reshape(-1, 1, 1)


def _countblank(rng):
    arr = materialize(rng)
    h, w = (rng.h, rng.w) if hasattr(rng, "h") else arr.shape[1:]
    flat = arr.reshape(arr.shape[0], -1)
    if flat.dtype != vec.OBJ:
        filled = flat.shape[1]
        blanks = np.full(flat.shape[0], h * w - filled)
    else:
        blanks = (h * w - flat.shape[1]) + np.array(
            [[v is None or v == "" for v in row] for row in flat.tolist()]
        ).sum(axis=1)
    return np.asarray(blanks, dtype=float).reshape(-1, 1, 1)


def _sorted(vals):
    """Rows sorted ascending with the NaN (unused) entries at the end, and the used counts."""
    return np.sort(vals, axis=1), _count_used(vals)


def _median(*args):
    vals, err = numbers(args)
    with np.errstate(all="ignore"), _quiet():
        r = np.nanmedian(_fill(vals, np.nan), axis=1)
    return result(r, err, bad=NUM)


class _quiet:
    def __enter__(self):
        import warnings

        self._w = warnings.catch_warnings()
        self._w.__enter__()
        warnings.simplefilter("ignore", RuntimeWarning)

    def __exit__(self, *exc):
        self._w.__exit__(*exc)


def _percentile_of(vals, k):
    """PERCENTILE.INC: linear interpolation at (count - 1) * k."""
    s, n = _sorted(vals)
    m = max(s.shape[0], k.shape[0])
    s = np.broadcast_to(s, (m, s.shape[1]))
    n = np.broadcast_to(n, (m,))
    k = np.broadcast_to(k, (m,))
    pos = (n - 1) * k
    lo = np.floor(pos).astype(np.int64)
    hi = np.minimum(lo + 1, np.maximum(n - 1, 0))
    lo = np.clip(lo, 0, max(s.shape[1] - 1, 0))
    hi = np.clip(hi, 0, max(s.shape[1] - 1, 0))
    if s.shape[1] == 0:
        return np.full(m, np.nan)
    a = np.take_along_axis(s, lo[:, None], axis=1)[:, 0]
    b = np.take_along_axis(s, hi[:, None], axis=1)[:, 0]
    r = a + (pos - np.floor(pos)) * (b - a)
    return np.where((n > 0) & (k >= 0) & (k <= 1), r, np.nan)


def _percentile(rng, k):
    vals, err = numbers([rng])
    (fk,), ek = scalar_nums(k)
    r = _percentile_of(vals, fk.reshape(-1))
    return _with_scalar_errors(result(r, err, bad=NUM), ek)


def _quartile(rng, q):
    vals, err = numbers([rng])
    (fq,), eq = scalar_nums(q)
    fq = np.trunc(fq.reshape(-1))
    r = _percentile_of(vals, np.where((fq >= 0) & (fq <= 4), fq / 4.0, -1.0))
    return _with_scalar_errors(result(r, err, bad=NUM), eq)


def _percentile_exc(rng, k):
    """PERCENTILE.EXC: rank k * (n + 1), #NUM! unless 1 <= rank <= n; PERCENTILE.INC at the same
    position (k' = (rank - 1) / (n - 1))."""
    vals, err = numbers([rng])
    (fk,), ek = scalar_nums(k)
    n = _count_used(vals).astype(float)
    m = max(n.shape[0], fk.reshape(-1).shape[0])
    n, kk = np.broadcast_to(n, (m,)), np.broadcast_to(fk.reshape(-1), (m,))
    rank = kk * (n + 1.0)
    with np.errstate(all="ignore"):
        inc = np.where(n > 1, (rank - 1.0) / np.maximum(n - 1.0, 1.0), 0.0)
    r = np.where((rank >= 1.0) & (rank <= n), _percentile_of(vals, inc), np.nan)
    return _with_scalar_errors(result(r, err, bad=NUM), ek)


def _quartile_exc(rng, q):
    (fq,), eq = scalar_nums(q)
    fq = np.trunc(fq)
    quarter = np.where((fq >= 1) & (fq <= 3), fq / 4.0, np.nan)  # 0 and 4 are #NUM!
    return _with_scalar_errors(_percentile_exc(rng, quarter), eq)


def _mode(*args):
    """MODE/MODE.SNGL: the most frequent number (the first to reach that count, in the order the
    arguments list them); #N/A when no number repeats. Ranges give their numbers only; a value
    or single cell that is not a number (text, TRUE, blank) is #VALUE! (Excel's cached values in
    POI's FormulaEvalTestData_Copy.xlsx, EverythingTests row 936); the first error wins."""
    parts = []
    for a in args:
        if a is None:
            continue
        arr = materialize(a) if is_rangelike(a) else np.asarray(a)
        arr = arr.reshape(arr.shape[0], -1) if arr.ndim else arr.reshape(1, 1)
        parts.append((arr.tolist(), arr.shape[1] == 1))
    m = max((len(rows) for rows, _ in parts), default=1)
    out = np.empty(m, dtype=object)
    for i in range(m):
        seen: dict[float, int] = {}
        bad = None
        for rows, single in parts:
            for v in rows[min(i, len(rows) - 1)]:
                if isinstance(v, XlError):
                    bad = v
                elif type(v) is float:
                    seen[v] = seen.get(v, 0) + 1
                elif single:
                    bad = VALUE
                if bad is not None:
                    break
            if bad is not None:
                break
        best = max(seen.values(), default=0)
        out[i] = bad or (next(v for v, c in seen.items() if c == best) if best > 1 else NA)
    return out.reshape(-1, 1, 1)


def _rank(average: bool):
    """RANK/RANK.EQ(number, ref, [order]): 1 + how many numbers of ref are greater (order 0,
    the default) or smaller (order non-zero); ties share the best rank, RANK.AVG their average;
    #N/A when ref does not hold the number."""

    def impl(number, ref, order=None):
        vals, err = numbers([ref])
        (x, o), ex = scalar_nums(number, vec.const(0.0) if order is None else order)
        m = max(vals.shape[0], x.reshape(-1).shape[0], o.reshape(-1).shape[0])
        v = np.broadcast_to(vals, (m, vals.shape[1]))
        x = np.broadcast_to(x.reshape(-1), (m,))[:, None]
        o = np.broadcast_to(o.reshape(-1), (m,))
        with np.errstate(invalid="ignore"):
            above = np.where(o == 0, (v > x).sum(axis=1), (v < x).sum(axis=1)).astype(float)
            ties = (v == x).sum(axis=1)
        r = above + 1.0 + ((ties - 1) / 2.0 if average else 0.0)
        return _with_scalar_errors(result(np.where(ties > 0, r, np.nan), err, bad=NA), ex)

    return impl


def _with_scalar_errors(out, errs):
    if errs is None:
        return out
    return vec.finish(out, errs) if out.dtype != vec.OBJ else vec.with_errors(out, errs)


def _kth(largest: bool):
    """SMALL/LARGE(array, k): the k-th smallest (largest) number; k < 1 or past the count is
    #NUM!. k may be an array: the result has k's shape, one answer per k."""

    def impl(rng, k):
        vals, err = numbers([rng])
        fk, ek = vec.nums(k)
        s, n = _sorted(vals)
        mk, hk, wk = fk.shape
        m = max(s.shape[0], mk)
        kk = np.ceil(np.where(np.isfinite(fk), fk, 0.0) - 1e-12).astype(np.int64)
        kk = np.broadcast_to(kk, (m, hk, wk)).reshape(m, hk * wk)
        n = np.broadcast_to(n, (m,))[:, None]
        s = np.broadcast_to(s, (m, s.shape[1]))
        ok = (kk >= 1) & (kk <= n)
        idx = np.clip(np.where(ok, n - kk if largest else kk - 1, 0), 0, max(s.shape[1] - 1, 0))
        r = np.take_along_axis(s, idx, axis=1) if s.shape[1] else np.zeros(idx.shape)
        r = np.where(ok, r, np.nan).reshape(m, hk, wk)
        if err is not None:  # the array's first error fills every answer
            mask = np.array([e is not None for e in err], dtype=bool).reshape(-1, 1, 1)
            rows = (mask, np.asarray(err, dtype=object).reshape(-1, 1, 1))
            ek = rows if ek is None else vec.merge(ek, rows)
        return vec.finish(r, ek, bad=NUM)

    return impl


def _var(sample: bool, root: bool, logical: bool = False):
    def impl(*args):
        vals, err = numbers(args, logical=logical)
        n = _count_used(vals)
        with np.errstate(all="ignore"):
            mean = np.nansum(vals, axis=1) / n
            ss = np.nansum((vals - mean[:, None]) ** 2, axis=1)
            v = ss / (n - 1 if sample else n)
            r = np.sqrt(v) if root else v
        return result(np.where(n > (1 if sample else 0), r, np.nan), err, bad=DIV0)

    return impl


FUNCTIONS = {
    "MIN": Spec(_extreme(False), 1, 255, "r"),
    "MAX": Spec(_extreme(True), 1, 255, "r"),
    "AVERAGE": Spec(_average(), 1, 255, "r"),
    "MINA": Spec(_extreme(False, logical=True), 1, 255, "r"),
    "MAXA": Spec(_extreme(True, logical=True), 1, 255, "r"),
    "AVERAGEA": Spec(_average(logical=True), 1, 255, "r"),
    "COUNT": Spec(_count, 1, 255, "r"),
    "COUNTA": Spec(_counta, 1, 255, "r"),
    "COUNTBLANK": Spec(_countblank, 1, 1, "r"),
    "MEDIAN": Spec(_median, 1, 255, "r"),
    "PERCENTILE": Spec(_percentile, 2, 2, "rv"),
    "PERCENTILE.INC": Spec(_percentile, 2, 2, "rv"),
    "QUARTILE": Spec(_quartile, 2, 2, "rv"),
    "QUARTILE.INC": Spec(_quartile, 2, 2, "rv"),
    "PERCENTILE.EXC": Spec(_percentile_exc, 2, 2, "rv"),
    "QUARTILE.EXC": Spec(_quartile_exc, 2, 2, "rv"),
    "MODE": Spec(_mode, 1, 255, "r"),
    "RANK": Spec(_rank(False), 2, 3, "vrv"),
    "RANK.EQ": Spec(_rank(False), 2, 3, "vrv"),
    "RANK.AVG": Spec(_rank(True), 2, 3, "vrv"),
    "MODE.SNGL": Spec(_mode, 1, 255, "r"),
    "SMALL": Spec(_kth(False), 2, 2, "rv"),
    "LARGE": Spec(_kth(True), 2, 2, "rv"),
    "STDEV": Spec(_var(True, True), 1, 255, "r"),
    "STDEV.S": Spec(_var(True, True), 1, 255, "r"),
    "STDEV.P": Spec(_var(False, True), 1, 255, "r"),
    "STDEVP": Spec(_var(False, True), 1, 255, "r"),
    "VAR": Spec(_var(True, False), 1, 255, "r"),
    "VAR.S": Spec(_var(True, False), 1, 255, "r"),
    "VAR.P": Spec(_var(False, False), 1, 255, "r"),
    "VARP": Spec(_var(False, False), 1, 255, "r"),
    "STDEVA": Spec(_var(True, True, logical=True), 1, 255, "r"),
    "STDEVPA": Spec(_var(False, True, logical=True), 1, 255, "r"),
    "VARA": Spec(_var(True, False, logical=True), 1, 255, "r"),
    "VARPA": Spec(_var(False, False, logical=True), 1, 255, "r"),
}

__all__ = ["FUNCTIONS", "XlError"]
