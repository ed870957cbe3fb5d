"""Excel's Statistical functions, continued: the hypothesis tests, PERCENTRANK and MODE.MULT.

Each follows its Microsoft page (tests/test_recalc_stattests.py holds the pages' examples):

- Z.TEST(array, x, [sigma]) and ZTEST: the one-tailed P-value ``1 - NORM.S.DIST((AVERAGE(array)
  - x) / (sigma / SQRT(n)), TRUE)``; sigma omitted is the sample standard deviation. Fewer than
  one number (two without sigma) or a zero deviation is #DIV/0!.
- T.TEST(array1, array2, tails, type) and TTEST: Student's t-test, type 1 paired, 2 two samples
  of equal variance, 3 of unequal variance (Welch's degrees of freedom); tails 1 or 2. tails or
  type (truncated) outside those values is #NUM!; paired arrays of different counts #N/A.
- F.TEST(array1, array2) and FTEST: the two-tailed probability that the variances of the two
  arrays do not differ (``2 * min(F, 1 - F)`` of F.DIST at their ratio); fewer than two numbers
  in either, or a zero variance, is #DIV/0!.
- CHISQ.TEST(actual_range, expected_range) and CHITEST: CHISQ.DIST.RT of ``sum((A - E)^2 / E)``
  with ``(r - 1)(c - 1)`` degrees of freedom (``r - 1`` or ``c - 1`` for a single row or column);
  ranges of different sizes #N/A; an expected value of 0 #DIV/0!.
- PERCENTRANK.INC(array, x, [significance=3]) and PERCENTRANK: the count of values below x over
  ``n - 1``, interpolated between neighbours when x is not in the array, truncated to
  significance digits; PERCENTRANK.EXC counts ``(below + 1) / (n + 1)``. x outside the array's
  range is #N/A, significance below 1 #NUM!.
- MODE.MULT(number1, ...): the most frequent numbers, as a vertical array in the order they first
  appear; no value repeated is #N/A.
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np

from gputco.workbook.recalc.run import vec
from gputco.workbook.recalc.run.rangeval import materialize
from gputco.workbook.recalc.run.values import DIV0, NA, NUM, XlError

from ._args import Spec, numbers, paired_numbers, scalar_nums
from .statistical import _chisq_dist_rt, _f_dist, _norm_s_dist, t_upper


def _rows(arg) -> tuple[list[np.ndarray], list]:
    """Per formula row: the numbers of a range or array argument, and the row's first error."""
    vals, err = numbers([arg], scalars="numbers")
    out = [row[~np.isnan(row)] for row in vals]
    errs = [None] * len(out) if err is None else list(err)
    return out, errs


def _per_row(func, *arrays, scalars=()):
    """``func(row, *numbers_per_array, *floats)`` for each formula row, errors first."""
    parts = [_rows(a) for a in arrays]
    nums, e = scalar_nums(*scalars)
    m = max([len(p[0]) for p in parts] + [1 if s is None else s.shape[0] for s in nums])
    out = []
    for i in range(m):
        err = next(
            (p[1][min(i, len(p[1]) - 1)] for p in parts if p[1][min(i, len(p[1]) - 1)] is not None), None
        )
        if err is None and e is not None:
            mask, codes = e
            j = min(i, mask.shape[0] - 1)
            err = codes[j].ravel()[0] if mask[j].ravel()[0] else None
        if err is not None:
            out.append(err)
            continue
        got = [p[0][min(i, len(p[0]) - 1)] for p in parts]
        sc = [None if s is None else float(s[min(i, s.shape[0] - 1)].ravel()[0]) for s in nums]
        r = func(i, *got, *sc)
        out.append(NUM if isinstance(r, float) and not math.isfinite(r) else r)
    return vec.from_list(out, (m, 1, 1))


def _ztest(array, x, sigma=None):
    def one(_, a, x, s):
        n = len(a)
        if s is None:
            if n < 2:
                return DIV0
            s = float(np.std(a, ddof=1))
        if n < 1 or s == 0:
            return DIV0
        return 1.0 - _norm_s_dist((float(np.mean(a)) - x) / (s / math.sqrt(n)), True)

    return _per_row(one, array, scalars=(x, sigma))


def _ttest(array1, array2, tails, kind):
    pairs = paired_numbers(array1, array2)

    def one(i, a, b, tails, kind):
        t, k = math.trunc(tails), math.trunc(kind)
        if t not in (1, 2) or k not in (1, 2, 3):
            return NUM
        if k == 1:
            if pairs is None:
                return NA
            fa, fb, both, _ = pairs
            j = min(i, fa.shape[0] - 1)
            return _paired(fa[j][both[j]] - fb[j][both[j]], t)
        n1, n2 = len(a), len(b)
        if n1 < 2 or n2 < 2:
            return DIV0
        v1, v2 = float(np.var(a, ddof=1)), float(np.var(b, ddof=1))
        diff = abs(float(np.mean(a)) - float(np.mean(b)))
        if k == 2:
            pooled = ((n1 - 1) * v1 + (n2 - 1) * v2) / (n1 + n2 - 2)
            se, df = math.sqrt(pooled * (1 / n1 + 1 / n2)), n1 + n2 - 2
        else:
            q1, q2 = v1 / n1, v2 / n2
            se = math.sqrt(q1 + q2)
            df = (q1 + q2) ** 2 / (q1**2 / (n1 - 1) + q2**2 / (n2 - 1)) if q1 + q2 else 0.0
        if se == 0:
            return DIV0
        return t * t_upper(diff / se, df)

    return _per_row(one, array1, array2, scalars=(tails, kind))


def _paired(d: np.ndarray, tails: int):
    n = len(d)
    if n < 2:
        return DIV0
    sd = float(np.std(d, ddof=1))
    if sd == 0:
        return DIV0
    return tails * t_upper(abs(float(np.mean(d))) / (sd / math.sqrt(n)), n - 1)


def _ftest(array1, array2):
    def one(_, a, b):
        if len(a) < 2 or len(b) < 2:
            return DIV0
        v1, v2 = float(np.var(a, ddof=1)), float(np.var(b, ddof=1))
        if v1 == 0 or v2 == 0:
            return DIV0
        f = _f_dist(v1 / v2, len(a) - 1, len(b) - 1, True)
        return 2.0 * min(f, 1.0 - f)

    return _per_row(one, array1, array2)


def _chitest(actual, expected):
    a, b = materialize(actual), materialize(expected)
    if a.shape[1:] != b.shape[1:]:
        return vec.const(NA)
    out = []
    for i in range(max(a.shape[0], b.shape[0])):
        ra, rb = a[min(i, a.shape[0] - 1)], b[min(i, b.shape[0] - 1)]
        err = next((v for v in [*ra.ravel().tolist(), *rb.ravel().tolist()] if isinstance(v, XlError)), None)
        if err is not None:
            out.append(err)
            continue
        stat = 0.0
        for x, e in zip(ra.ravel().tolist(), rb.ravel().tolist(), strict=True):
            if _is_num(x) and _is_num(e):
                if e == 0:
                    stat = math.nan
                    break
                stat += (x - e) ** 2 / e
        if math.isnan(stat):
            out.append(DIV0)
            continue
        r, c = ra.shape
        df = (r - 1) * (c - 1) if r > 1 and c > 1 else max(r, c) - 1
        out.append(NA if df < 1 else _chisq_dist_rt(stat, df))
    return vec.from_list(out, (len(out), 1, 1))


def _is_num(v) -> bool:
    return isinstance(v, float) and not isinstance(v, bool)


def _percentrank(exclusive: bool):
    def one(_, a, x, significance):
        s = 3 if significance is None else math.trunc(significance)
        if s < 1:
            return NUM
        a = np.sort(a)
        n = len(a)
        if n == 0 or x < a[0] or x > a[-1]:
            return NA
        below = int(np.sum(a < x))
        if exclusive:
            rank = lambda k: (k + 1) / (n + 1)  # noqa: E731
        else:
            if n == 1:
                return 1.0
            rank = lambda k: k / (n - 1)  # noqa: E731
        if a[below] == x:
            r = rank(below)
        else:  # between a[below - 1] and a[below]
            lo, hi = a[below - 1], a[below]
            r = rank(below - 1) + (x - lo) / (hi - lo) * (rank(below) - rank(below - 1))
        scale = 10.0**s
        return math.floor(round(r * scale, 9)) / scale

    return lambda array, x, significance=None: _per_row(one, array, scalars=(x, significance))


def _mode_mult(*args):
    vals, err = numbers(list(args), scalars="numbers")
    if vals.shape[0] != 1:
        raise ValueError("MODE.MULT over rows")  # evaluated cell by cell
    if err is not None and err[0] is not None:
        return vec.const(err[0])
    row = [v for v in vals[0].tolist() if not math.isnan(v)]
    counts = Counter(row)
    top = max(counts.values(), default=0)
    if top < 2:
        return vec.const(NA)
    seen, out = set(), []
    for v in row:
        if counts[v] == top and v not in seen:
            seen.add(v)
            out.append(v)
    return np.array(out, dtype=vec.FLOAT).reshape(1, -1, 1)


#: (names, implementation, least and most arguments, argument modes)
_TABLE = (
    ("Z.TEST ZTEST", _ztest, 2, 3, "rvv"),
    ("T.TEST TTEST", _ttest, 4, 4, "rrvv"),
    ("F.TEST FTEST", _ftest, 2, 2, "rr"),
    ("CHISQ.TEST CHITEST", _chitest, 2, 2, "rr"),
    ("PERCENTRANK.INC PERCENTRANK", _percentrank(False), 2, 3, "rvv"),
    ("PERCENTRANK.EXC", _percentrank(True), 2, 3, "rvv"),
    ("MODE.MULT", _mode_mult, 1, 255, "r"),
)
FUNCTIONS = {name: Spec(f, lo, hi, modes) for names, f, lo, hi, modes in _TABLE for name in names.split()}
