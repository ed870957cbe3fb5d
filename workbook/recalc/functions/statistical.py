"""Excel's Statistical functions: aggregates, regression, distributions.

Statistical: MIN, MAX, AVERAGE, COUNT, COUNTA, MEDIAN, MODE, PERCENTILE, QUARTILE, SMALL...

COVARIANCE.P (and the older COVAR) and COVARIANCE.S pair two arrays' elements in reading order
(the counts must agree, else #N/A), use only pairs of two numbers, and divide by n (P) or n - 1
(S); no pair, or one for S, is #DIV/0!.

CORREL, PEARSON, RSQ, SLOPE, INTERCEPT, STEYX, FORECAST and FORECAST.LINEAR pair their arrays the
same way (the section "correlation and the regression line" below); GEOMEAN, HARMEAN, KURT, SKEW,
SKEW.P, TRIMMEAN, PERMUT, PERMUTATIONA, PROB and FREQUENCY are in the last section.

DEVSQ (the sum of squared deviations from the mean) and AVEDEV (the mean absolute deviation)
take their numbers as SUM does (number texts and TRUE/FALSE typed as arguments count); no number
at all is #NUM! (POI's FormulaEvalTestData_Copy.xlsx, saved by Excel).

Numbers come from :func:`._args.numbers` as an (m, K) array with NaN where an element does not
take part, so every statistic is a NaN-aware reduction along axis 1.

The "A" twins AVERAGEA, MAXA, MINA, STDEVA, STDEVPA, VARA, VARPA read ranges and arrays by
Microsoft's AVERAGEA/MAXA pages: TRUE is 1, FALSE and text (empty text too) are 0, blank cells are
skipped; arguments typed directly convert as for SUM (TRUE 1, "3" 3, text that is not a number
#VALUE!). SMALL and LARGE take an array k (``SUM(SMALL(A1:A9,{1,2,3}))``): one result per k.

LINEST, LOGEST, TREND, GROWTH: least-squares regression, as Excel returns it.

LINEST(known_y's, [known_x's], [const=TRUE], [stats=FALSE]) fits ``y = m1*x1 + ... + mk*xk + b``.
known_y's is one column (then each column of known_x's is a variable) or one row (each row a
variable); with one variable, y and x may be any shape of the same size; known_x's defaults to
1, 2, 3... The result's first row is ``mk, ..., m1, b`` (the coefficients in reverse order of the
x's); with stats TRUE four more rows follow (Microsoft's LINEST page): standard errors of the
coefficients and of b; r² and the standard error of y; the F statistic and the degrees of
freedom; the regression and residual sums of squares. Cells of rows 3-5 past the second column
are #N/A. With const FALSE, b is 0 (its standard error #N/A) and r² and F are about the uncentred
sums (y is not reduced by its mean), as in Excel. A cell that is not a number is #VALUE!; sizes
that do not match are #REF!; fewer observations than coefficients #NUM!.

Collinear x's: as Microsoft documents for Excel ([MS-OI29500] 2.1.985, LINEST: "vectors in
known-xs that are collinear ... are omitted from the regression calculations. The vectors are
given a coefficient of 0 and a standard error of 0 ... df is affected"), an x column that the
columns before it (and the constant, with const TRUE) already span is left out: coefficient 0,
standard error 0, and df counts only the columns kept. The columns are taken in order, so of two
equal columns the second is dropped. LibreOffice 7.4 does not drop them (it returns the
meaningless solution of a near-singular system: tests/recalc/test_lo_arrays.py lists it).

- LOGEST(known_y's, [known_x's], [const], [stats]): LINEST of ln(y), its first row raised to
  ``e`` (``y = b * m1^x1 * ...``; const FALSE makes b 1); the statistics are those of the
  fit of ln(y). A y of 0 or less is #NUM!.
- TREND(known_y's, [known_x's], [new_x's], [const]): the fitted line's values at new_x's (by
  default at known_x's): with one variable, one value per cell of new_x's, in its shape; with k
  variables new_x's has k columns (rows) and the result one value per row (column).
- GROWTH(known_y's, [known_x's], [new_x's], [const]): TREND of the exponential curve of LOGEST.

Statistical distributions: normal, lognormal, Student's t, chi-squared, F, gamma, beta,
binomial, negative binomial, hypergeometric, Poisson, exponential and Weibull, as Microsoft's
function reference defines them, with the legacy names Excel keeps (NORMDIST, TDIST, CHIDIST, ...).

The special functions are written here with the standard library (scipy is not a dependency):

- the normal CDF from :func:`math.erfc` (full double precision in both tails); its inverse from
  P. J. Acklam's rational approximation polished by Halley steps on that CDF;
- the regularised incomplete gamma function P(a, x) (and Q = 1 - P computed directly, so upper
  tails keep their digits) by its power series for x < a + 1 and by the Legendre continued fraction
  otherwise (modified Lentz), with log-gamma prefactors (Numerical Recipes, 3rd ed., 6.2);
- the regularised incomplete beta function I_x(a, b) (and 1 - I_x) by its continued fraction,
  evaluated on whichever side of (a + 1)/(a + b + 2) converges (NR 6.4); the caller passes x and
  1 - x separately where 1 - x is known exactly (t and F tails);
- the inverses (CHISQ.INV, T.INV, F.INV, GAMMA.INV, BETA.INV, BINOM.INV) by bisection of the CDF
  down to adjacent doubles (geometric steps while the bracket spans magnitudes), on the tail the
  probability is given for; Excel documents its inverses as iterative searches the same way.

Domain errors are Microsoft's: #NUM! for an argument outside its range (the ranges are in each
function's docstring), #VALUE! for a non-numeric argument, an error argument propagating first
(leftmost). Degrees of freedom, trials and counts are truncated to integers, as Excel does.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

import numpy as np

from gputco.workbook.recalc.base import vec
from gputco.workbook.recalc.base.rangeval import RangeVal, materialize
from gputco.workbook.recalc.base.values import DIV0, NA, NULL, NUM, REF, VALUE, XlError, parse_number

from ._args import (
    Spec,
    added,
    is_rangelike,
    numbers,
    pair_errors,
    paired_numbers,
    result,
    scalar_function,
    scalar_nums,
)
from .arrays import _strict_numbers, full

# --- stats -----------------------------------------------------------------------------------------------


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
    fq = fq.reshape(-1)  # quart < 0 is #NUM! before truncating (-0.1 is no 0: Excel-saved
    fq = np.where(fq < 0, -1.0, np.trunc(fq))  # test.xlsx COMPATIBILITY!U32 =QUARTILE(F32:G32,G32))
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
    """MODE: the most frequent number (the first to reach that count, in the order the arguments
    list them); #N/A when no number repeats. Ranges give their numbers only; a value or single
    cell that is not a number (text, TRUE, blank) is #VALUE! (Excel's cached values in POI's
    FormulaEvalTestData_Copy.xlsx, EverythingTests row 936); the first error wins."""
    return _mode_of(args, cells_skipped=False)


def _mode_sngl(*args):
    """MODE.SNGL: as MODE, but a single cell is a reference whose text, logical value or blank is
    ignored ("If an array or reference argument contains text, logical values, or empty cells,
    those values are ignored", Microsoft's MODE.SNGL page), and so is an empty text typed:
    formulas' Excel-saved test.xlsx STATISTICAL!Y71 =MODE.SNGL(J71,G71) (J71 TRUE) is #N/A, S71
    =MODE.SNGL(D71:E71,E71:F71,F71:G71,"") 0.2; a typed text that reads as a number is that
    number (T71 =MODE.SNGL(E71:F71,F71:G71,G71:H71,"29/02/1900") is 0.3, the file's dates read
    day first), another typed text is #VALUE! ("text that cannot be translated into numbers
    cause errors")."""
    return _mode_of(args, cells_skipped=True)


def _mode_of(args, cells_skipped: bool):
    parts = []
    for a in args:
        if a is None:
            continue
        arr = materialize(a) if is_rangelike(a) else np.asarray(a)
        arr = arr.reshape(arr.shape[0], -1) if arr.ndim else arr.reshape(1, 1)
        single = arr.shape[1] == 1 and not (cells_skipped and isinstance(a, RangeVal))
        parts.append((arr.tolist(), single, not isinstance(a, RangeVal)))
    m = max((len(rows) for rows, _, _ in parts), default=1)
    out = np.empty(m, dtype=object)
    for i in range(m):
        seen: dict[float, int] = {}
        bad = None
        for rows, single, typed in parts:
            for v in rows[min(i, len(rows) - 1)]:
                if cells_skipped and typed and single and isinstance(v, str) and parse_number(v) is not None:
                    v = parse_number(v)  # MODE.SNGL/MODE.MULT: a number typed as text counts
                if isinstance(v, XlError):
                    bad = v
                elif type(v) is float:
                    seen[v] = seen.get(v, 0) + 1
                elif single and not (cells_skipped and v == ""):
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
    #NUM!. k may be an array: the result has k's shape, one answer per k. A k that is not a
    whole number is truncated (Microsoft's pages are silent; Mac Excel cached #NUM! for
    LARGE(C57:J57,0.9) and SMALL(C95:J95,0.9), and SMALL(C95:J95,2.2) the second smallest, in
    the formulas project's test.xlsx STATISTICAL!AG57 and AH95:AK95)."""

    def impl(rng, k):
        vals, err = numbers([rng])
        fk, ek = vec.nums(k)
        s, n = _sorted(vals)
        mk, hk, wk = fk.shape
        m = max(s.shape[0], mk)
        kk = np.floor(np.where(np.isfinite(fk), fk, 0.0) + 1e-12).astype(np.int64)
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


def _deviations(absolute: bool):
    """DEVSQ (sum of squared deviations from the mean) and AVEDEV (mean absolute deviation):
    the numbers as SUM takes them; none is #NUM! (Microsoft's DEVSQ and AVEDEV pages)."""

    def impl(*args):
        vals, err = numbers(args)
        n = _count_used(vals)
        with np.errstate(all="ignore"):
            mean = added(vals) / n
            dev = vals - mean[:, None]
            r = added(np.abs(dev)) / n if absolute else added(dev * dev)
        return result(np.where(n > 0, r, np.nan), err, bad=NUM)

    return impl


@dataclass
class _Paired:
    """Two arrays paired in reading order, the pairs of two numbers only (one row per formula
    cell): their count, means, and sums of squared and crossed deviations from the means."""

    n: np.ndarray  # (m,) float
    mx: np.ndarray
    my: np.ndarray
    sxx: np.ndarray
    syy: np.ndarray
    sxy: np.ndarray
    errors: np.ndarray | None  # each row's first error (:func:`._args.row_errors`)


def _pair_moments(ys, xs) -> _Paired | None:
    """The paired moments of ``ys`` and ``xs`` (in the order of SLOPE's known_y's and known_x's;
    their error as :func:`._args.pair_errors` picks it); None when their counts of elements
    differ (#N/A)."""
    pairs = paired_numbers(ys, xs)
    if pairs is None:
        return None
    fy, fx, both, _ = pairs
    errors = pair_errors(ys, xs)
    n = both.sum(axis=1).astype(float)
    with np.errstate(all="ignore"):
        mx = added(np.where(both, fx, np.nan)) / n
        my = added(np.where(both, fy, np.nan)) / n
        dx = np.where(both, fx - mx[:, None], np.nan)
        dy = np.where(both, fy - my[:, None], np.nan)
        sxx = np.where(_all_equal(np.where(both, fx, np.nan)), 0.0, added(dx * dx))
        syy = np.where(_all_equal(np.where(both, fy, np.nan)), 0.0, added(dy * dy))
        return _Paired(n, mx, my, sxx, syy, added(dx * dy), errors)


def _all_equal(vals: np.ndarray) -> np.ndarray:
    """Rows whose numbers (NaN: not taking part) are all equal, or fewer than two: their squared
    deviations are 0, though the mean need not be one of them exactly (0.1 three times averages
    0.10000000000000002)."""
    return np.nanmax(_fill(vals, -np.inf), axis=1) <= np.nanmin(_fill(vals, np.inf), axis=1)


def _covariance(sample: bool):
    """COVARIANCE.P / COVAR (population) and COVARIANCE.S (sample) of two arrays paired in
    reading order: different counts #N/A; only pairs of two numbers take part; none (or one for
    COVARIANCE.S) is #DIV/0! (Microsoft's COVARIANCE.P and COVARIANCE.S pages)."""

    def impl(x, y):
        p = _pair_moments(x, y)
        if p is None:
            return vec.const(NA)
        with np.errstate(all="ignore"):
            r = p.sxy / (p.n - 1 if sample else p.n)
        return result(np.where(p.n > (1 if sample else 0), r, np.nan), p.errors, bad=DIV0)

    return impl


# --- correlation and the regression line of two arrays ---------------------------------------
# CORREL, PEARSON, RSQ, SLOPE, INTERCEPT, STEYX, FORECAST and FORECAST.LINEAR pair their two
# arrays as COVARIANCE.P does (:func:`_pair_moments`): text, logical values and blanks in them are
# ignored (with their partner), arrays of different counts are #N/A. Each is a quotient of the
# paired sums of squares (Microsoft's pages give the formulas), so a zero denominator is #DIV/0!:
# no pair of numbers, one pair (RSQ's page: "only 1 data point ... #DIV/0!"), x's (or y's, for
# CORREL, PEARSON and RSQ) all equal (CORREL's page: "if s (the standard deviation) of their
# values equals zero"; FORECAST's: "If the variance of known_x's equals zero"), fewer than three
# pairs for STEYX (its page). PEARSON's, SLOPE's, INTERCEPT's, RSQ's and FORECAST's pages also
# say "empty ... #N/A", CORREL's and STEYX's "empty ... #DIV/0!" (STEYX's page said #N/A too in
# Excel 2003's help): arrays without a pair of numbers are #DIV/0! here for all of them, as
# CORREL and STEYX document and as the formulas (0 / 0) give.


def _pair_stat(stat):
    """A statistic of the paired moments: ``stat(p)`` gives (m,) values, NaN where #DIV/0!."""

    def impl(ys, xs):
        p = _pair_moments(ys, xs)
        if p is None:
            return vec.const(NA)
        with np.errstate(all="ignore"):
            r = stat(p)
        return result(r, p.errors, bad=DIV0)

    return impl


def _correl(p: _Paired):
    return np.where((p.sxx > 0) & (p.syy > 0), p.sxy / np.sqrt(p.sxx * p.syy), np.nan)


def _rsq(p: _Paired):
    return _correl(p) ** 2


def _slope(p: _Paired):
    return np.where(p.sxx > 0, p.sxy / p.sxx, np.nan)


def _intercept(p: _Paired):
    return p.my - _slope(p) * p.mx


def _steyx(p: _Paired):
    resid = np.maximum(p.syy - p.sxy * p.sxy / p.sxx, 0.0)  # a perfect fit can round below 0
    return np.where((p.n >= 3) & (p.sxx > 0), np.sqrt(resid / (p.n - 2)), np.nan)


def _forecast(x, ys, xs):
    """FORECAST(x, known_y's, known_x's) and FORECAST.LINEAR: INTERCEPT + SLOPE * x, for each
    value of x (an array x gives an array); x that is not a number is #VALUE!, its error first."""
    fx, ex = vec.nums(x)
    p = _pair_moments(ys, xs)
    if p is None:
        return vec.finish(np.full(fx.shape, np.nan), ex, bad=NA)
    with np.errstate(all="ignore"):
        b = _slope(p)
        r = (p.my - b * p.mx)[:, None, None] + b[:, None, None] * fx
    errs = ex
    if p.errors is not None:
        mask = np.array([e is not None for e in p.errors], dtype=bool).reshape(-1, 1, 1)
        errs = vec.merge(ex, (mask, np.asarray(p.errors, dtype=object).reshape(-1, 1, 1)))
    return vec.finish(r, errs, bad=DIV0)


_LINE_FUNCTIONS = {
    "CORREL": Spec(_pair_stat(_correl), 2, 2, "aa"),
    "PEARSON": Spec(_pair_stat(_correl), 2, 2, "aa"),
    "RSQ": Spec(_pair_stat(_rsq), 2, 2, "aa"),
    "SLOPE": Spec(_pair_stat(_slope), 2, 2, "aa"),
    "INTERCEPT": Spec(_pair_stat(_intercept), 2, 2, "aa"),
    "STEYX": Spec(_pair_stat(_steyx), 2, 2, "aa"),
    "FORECAST": Spec(_forecast, 3, 3, "vaa"),
    "FORECAST.LINEAR": Spec(_forecast, 3, 3, "vaa"),
}


_STATS_FUNCTIONS = {
    "COVARIANCE.P": Spec(_covariance(False), 2, 2, "r", array=True),
    "COVAR": Spec(_covariance(False), 2, 2, "r", array=True),
    "COVARIANCE.S": Spec(_covariance(True), 2, 2, "r", array=True),
    "DEVSQ": Spec(_deviations(False), 1, 255, "r"),
    "AVEDEV": Spec(_deviations(True), 1, 255, "r"),
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
    "MODE.SNGL": Spec(_mode_sngl, 1, 255, "r"),
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


# --- regression ------------------------------------------------------------------------------------------

#: a column counts as spanned by the ones kept before it when what it adds is below this share
#: of its length (exact combinations leave rounding noise of about 1e-15)
_COLLINEAR = 1e-10


@dataclass
class _Data:
    y: np.ndarray  # (n,) observations
    x: np.ndarray  # (n, k) one column per variable
    by_row: bool  # known_y's is a row: variables are rows of known_x's
    shape: tuple[int, int]  # known_y's shape (the default new_x's of one variable)


@dataclass
class _Fit:
    coef: np.ndarray  # (k,) slopes, 0 for the columns left out
    b: float
    kept: np.ndarray  # (k,) bool
    design: np.ndarray  # (n, p) the columns kept, then the constant
    params: np.ndarray  # (p,) their coefficients
    const: bool


def _one_row(a):
    """(the numbers of one row's argument, None) or (None, its first error)."""
    v, err = _strict_numbers(full(a))
    if err is not None:
        return None, err
    if v.shape[0] != 1:
        raise ValueError("a regression over arrays varying by row")
    return v[0], None


def _data(ys, xs) -> _Data | XlError:
    y, err = _one_row(ys)
    if err is not None:
        return err
    xa = None
    if xs is not None:
        xa, err = _one_row(xs)
        if err is not None:
            return err
    n = y.size
    if y.shape[1] == 1 or y.shape[0] == 1:
        by_row = y.shape[1] != 1
        yv = y.ravel()
        if xa is None:
            x = np.arange(1, n + 1, dtype=vec.FLOAT)[:, None]
        elif xa.shape == y.shape:
            x = xa.reshape(n, 1)
        else:
            x = xa.T if by_row else xa
            if x.shape[0] != n:
                return REF
        return _Data(yv, x, by_row, y.shape)
    # two-dimensional known_y's: one variable of the same shape
    if xa is not None and xa.shape != y.shape:
        return REF
    x = np.arange(1, n + 1, dtype=vec.FLOAT) if xa is None else xa.ravel()
    return _Data(y.ravel(), x[:, None], False, y.shape)


def _fit(d: _Data, use_const: bool) -> _Fit | XlError:
    """Least squares, leaving out each x column already spanned by those kept before it."""
    n, k = d.x.shape
    if n < k + (1 if use_const else 0):
        return NUM
    kept = np.zeros(k, dtype=bool)
    basis = [np.ones(n)] if use_const else []
    for j in range(k):
        col = d.x[:, j]
        size = float(np.linalg.norm(col))
        if basis:
            a = np.column_stack(basis)
            resid = col - a @ np.linalg.lstsq(a, col, rcond=None)[0]
        else:
            resid = col
        if size > 0 and float(np.linalg.norm(resid)) > _COLLINEAR * size:
            kept[j] = True
            basis.append(col)
    cols = [d.x[:, j] for j in range(k) if kept[j]] + ([np.ones(n)] if use_const else [])
    design = np.column_stack(cols) if cols else np.zeros((n, 0))
    params = np.linalg.lstsq(design, d.y, rcond=None)[0] if cols else np.zeros(0)
    coef = np.zeros(k)
    coef[kept] = params[: int(kept.sum())]
    b = float(params[-1]) if use_const else 0.0
    return _Fit(coef, b, kept, design, params, use_const)


def _predict(f: _Fit, x: np.ndarray) -> np.ndarray:
    return x @ f.coef + f.b


def _fitted(ys, xs, const, log: bool, flags_ok: bool = True):
    """(data, fit) of y on x (of log y for LOGEST/GROWTH), or the error to show (``flags_ok``:
    the caller's other flags were read)."""
    d = _data(ys, xs)
    if isinstance(d, XlError):
        return d
    use_const = _flag(const, True)
    if use_const is None or not flags_ok:
        return VALUE
    if log:
        if (d.y <= 0).any():
            return NUM
        d.y = np.log(d.y)
    f = _fit(d, use_const)
    return f if isinstance(f, XlError) else (d, f)


def _estimate(ys, xs, const, stats, log: bool):
    want_stats = _flag(stats, False)
    fitted = _fitted(ys, xs, const, log, want_stats is not None)
    if isinstance(fitted, XlError):
        return vec.const(fitted)
    d, f = fitted
    k = d.x.shape[1]
    top = np.array([*f.coef[::-1].tolist(), f.b])
    if log:
        top = np.exp(top)
    if not want_stats:
        return top.reshape(1, 1, k + 1)
    out = _statistics(d, f)
    out[0] = top.tolist()
    return out.reshape(1, 5, k + 1)


def _statistics(d: _Data, f: _Fit) -> np.ndarray:
    """LINEST's rows 2-5 (row 1 left for the coefficients)."""
    n, k = d.x.shape
    used = int(f.kept.sum())
    p = used + (1 if f.const else 0)
    fitted = f.design @ f.params if p else np.zeros(n)
    ss_resid = float(np.sum((d.y - fitted) ** 2))
    ss_reg = float(np.sum((fitted - d.y.mean()) ** 2)) if f.const else float(np.sum(fitted**2))
    df = n - p
    out = np.full((5, k + 1), NA, dtype=object)
    if df > 0:
        sey2 = ss_resid / df
        se = np.sqrt(np.diag(sey2 * np.linalg.inv(f.design.T @ f.design))) if p else np.zeros(0)
        se_x = np.zeros(k)
        se_x[f.kept] = se[:used]
        out[1, :k] = se_x[::-1].tolist()
        out[1, k] = float(se[-1]) if f.const else NA
        out[2, 1] = float(np.sqrt(sey2))
        out[3, 0] = (ss_reg / used) / sey2 if sey2 > 0 and used else NUM
    else:
        out[1, :] = NUM if f.const else [*([NUM] * k), NA]
        out[2, 1] = NUM
        out[3, 0] = NUM
    total = ss_reg + ss_resid
    out[2, 0] = ss_reg / total if total > 0 else NUM
    out[3, 1] = float(df)
    out[4, 0], out[4, 1] = ss_reg, ss_resid
    return out


def _linest(ys, xs=None, const=None, stats=None):
    return _estimate(ys, xs, const, stats, log=False)


def _logest(ys, xs=None, const=None, stats=None):
    return _estimate(ys, xs, const, stats, log=True)


def _trend_of(log: bool):
    def impl(ys, xs=None, new_xs=None, const=None):
        fitted = _fitted(ys, xs, const, log)
        if isinstance(fitted, XlError):
            return vec.const(fitted)
        d, f = fitted
        k = d.x.shape[1]
        if new_xs is None:
            new = d.x.T.reshape(k, *d.shape) if k == 1 else (d.x.T if d.by_row else d.x)
            new = new[0] if k == 1 else new
        else:
            new, err = _strict_numbers(full(new_xs))
            if err is not None:
                return vec.const(err)
            if new.shape[0] != 1:
                raise ValueError("TREND/GROWTH with new_x's varying by row")
            new = new[0]
        if k == 1:
            out = _predict(f, new.reshape(-1, 1)).reshape(new.shape)
        else:
            rows = new.T if d.by_row else new
            if rows.shape[1] != k:
                return vec.const(REF)
            out = _predict(f, rows)
            out = out.reshape(1, -1) if d.by_row else out.reshape(-1, 1)
        if log:
            out = np.exp(out)
        return vec.finish(out[None].astype(vec.FLOAT), None)

    return impl


def _flag(x, default: bool) -> bool | None:
    """A TRUE/FALSE argument (numbers non-zero; omitted: the default); None for text."""
    if x is None:
        return default
    b, e = vec.bools(x)
    if e is not None or b.size != 1:
        return None
    return bool(b.ravel()[0])


def _errors_refused(func, arrays: int):
    """A regression given an error value in one of its arrays: #VALUE!, not that error (formulas'
    test.xlsx STATISTICAL!AB58:AF58 =LINEST(M58:O58,O58:Q58,0,0) with M58 #DIV/0! and AA51:AF51
    GROWTH, AB59:AF59 LOGEST, AA113:AF113 TREND alike are #VALUE!)."""

    def impl(*args):
        for a in args[:arrays]:
            if a is None:
                continue
            arr = materialize(a) if is_rangelike(a) else np.asarray(a)
            if arr.dtype == object and any(isinstance(v, XlError) for v in arr.ravel().tolist()):
                return vec.const(VALUE)
        return func(*args)

    return impl


_REGRESSION_FUNCTIONS = {
    "LINEST": Spec(_errors_refused(_linest, 2), 1, 4, "aavv"),
    "LOGEST": Spec(_errors_refused(_logest, 2), 1, 4, "aavv"),
    "TREND": Spec(_errors_refused(_trend_of(False), 3), 1, 4, "aaav"),
    "GROWTH": Spec(_errors_refused(_trend_of(True), 3), 1, 4, "aaav"),
}


# --- distributions ---------------------------------------------------------------------------------------

_EPS = 1e-16
_TINY = 1e-300
_SQRT2 = math.sqrt(2.0)
_SQRT2PI = math.sqrt(2.0 * math.pi)
_MAX_DF = 1e10  # Excel: degrees of freedom of 10^10 or more are #NUM!


def _dist_flag(v) -> bool:
    """A logical argument (cumulative, tails as TRUE/FALSE): non-zero is TRUE."""
    return v is not None and v != 0


# --- special functions ----------------------------------------------------------------------


def norm_cdf(z: float) -> float:
    """Standard normal CDF, accurate in both tails."""
    return 0.5 * math.erfc(-z / _SQRT2)


def norm_pdf(z: float) -> float:
    return math.exp(-0.5 * z * z) / _SQRT2PI


_A = (-3.969683028665376e01, 2.209460984245205e02, -2.759285104469687e02, 1.383577518672690e02,
      -3.066479806614716e01, 2.506628277459239e00)  # fmt: skip
_B = (-5.447609879822406e01, 1.615858368580409e02, -1.556989798598866e02, 6.680131188771972e01,
      -1.328068155288572e01)  # fmt: skip
_C = (-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e00, -2.549732539343734e00,
      4.374664141464968e00, 2.938163982698783e00)  # fmt: skip
_D = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e00, 3.754408661907416e00)


def norm_inv(p: float) -> float:
    """Standard normal quantile for 0 < p < 1: Acklam's approximation (relative error below
    1.2e-9), then Halley steps on :func:`norm_cdf` to full precision."""
    if p > 0.5:
        return -norm_inv(1.0 - p)  # 1 - p is exact for p >= 0.5
    if p < 0.02425:
        q = math.sqrt(-2.0 * math.log(p))
        num = ((((_C[0] * q + _C[1]) * q + _C[2]) * q + _C[3]) * q + _C[4]) * q + _C[5]
        x = num / ((((_D[0] * q + _D[1]) * q + _D[2]) * q + _D[3]) * q + 1.0)
    else:
        q = p - 0.5
        r = q * q
        num = (((((_A[0] * r + _A[1]) * r + _A[2]) * r + _A[3]) * r + _A[4]) * r + _A[5]) * q
        x = num / (((((_B[0] * r + _B[1]) * r + _B[2]) * r + _B[3]) * r + _B[4]) * r + 1.0)
    for _ in range(3):
        e = norm_cdf(x) - p
        u = e * _SQRT2PI * math.exp(0.5 * x * x)
        x -= u / (1.0 + 0.5 * x * u)
    return x


def _gamma_prefix(a: float, x: float) -> float:
    return math.exp(-x + a * math.log(x) - math.lgamma(a))


def gamma_pq(a: float, x: float) -> tuple[float, float]:
    """(P(a, x), Q(a, x)): the regularised lower and upper incomplete gamma functions."""
    if x <= 0.0:
        return 0.0, 1.0
    if x < a + 1.0:
        term = total = 1.0 / a
        ap = a
        for _ in range(100_000):
            ap += 1.0
            term *= x / ap
            total += term
            if abs(term) < abs(total) * _EPS:
                break
        p = min(1.0, total * _gamma_prefix(a, x))
        return p, 1.0 - p
    b = x + 1.0 - a
    c, d = 1.0 / _TINY, 1.0 / b
    h = d
    for i in range(1, 100_000):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = _TINY if abs(d) < _TINY else d
        c = b + an / c
        c = _TINY if abs(c) < _TINY else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < _EPS:
            break
    q = min(1.0, _gamma_prefix(a, x) * h)
    return 1.0 - q, q


def _beta_cf(a: float, b: float, x: float) -> float:
    """The continued fraction of I_x(a, b) (modified Lentz)."""
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (_TINY if abs(d) < _TINY else d)
    h = d
    for m in range(1, 100_000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (_TINY if abs(d) < _TINY else d)
        c = 1.0 + aa / c
        c = _TINY if abs(c) < _TINY else c
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (_TINY if abs(d) < _TINY else d)
        c = 1.0 + aa / c
        c = _TINY if abs(c) < _TINY else c
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < _EPS:
            break
    return h


def beta_i(a: float, b: float, x: float, y: float | None = None) -> tuple[float, float]:
    """(I_x(a, b), 1 - I_x(a, b)), the regularised incomplete beta function and its complement;
    ``y`` is 1 - x when the caller knows it more exactly than ``1 - x``."""
    y = 1.0 - x if y is None else y
    if x <= 0.0:
        return 0.0, 1.0
    if y <= 0.0:
        return 1.0, 0.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log(y))
    if x < (a + 1.0) / (a + b + 2.0):
        i = front * _beta_cf(a, b, x) / a
        return i, 1.0 - i
    j = front * _beta_cf(b, a, y) / b
    return 1.0 - j, j


def _bisect(f, target: float, lo: float, hi: float, increasing: bool = True) -> float:
    """x in [lo, hi] where the monotone ``f`` crosses ``target``, to adjacent doubles."""
    for _ in range(3000):
        if lo > 0.0 and hi > 4.0 * lo:
            mid = math.sqrt(lo * hi)
        elif hi < 0.0 and lo < 4.0 * hi:
            mid = -math.sqrt(lo * hi)
        else:
            mid = 0.5 * (lo + hi)
        if not lo < mid < hi:
            break
        if (f(mid) < target) == increasing:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def _positive_root(f, target: float, increasing: bool = True) -> float:
    """The x > 0 where a monotone ``f`` on (0, inf) crosses ``target`` (bracket grown first)."""
    hi = 1.0
    while ((f(hi) < target) == increasing) and hi < 1e300:
        hi *= 16.0
    return _bisect(f, target, _TINY, hi, increasing)


# --- shared argument checks -----------------------------------------------------------------


def _df(v: float) -> float | XlError:
    """Degrees of freedom: truncated; below 1 or 10^10 and above is #NUM!."""
    d = math.trunc(v)
    return NUM if d < 1 or d >= _MAX_DF else float(d)


def _prob(p: float, *, zero: bool, one: bool) -> bool:
    """Whether p is a probability in range (0 and 1 included when ``zero``/``one``)."""
    return (p > 0.0 or (zero and p == 0.0)) and (p < 1.0 or (one and p == 1.0))


# --- normal and lognormal -------------------------------------------------------------------


def _norm_dist(x, mean, sd, cumulative):
    """NORM.DIST(x, mean, standard_dev, cumulative): standard_dev <= 0 is #NUM!."""
    if sd <= 0.0:
        return NUM
    z = (x - mean) / sd
    return norm_cdf(z) if _dist_flag(cumulative) else norm_pdf(z) / sd


def _norm_s_dist(z, cumulative):
    return norm_cdf(z) if _dist_flag(cumulative) else norm_pdf(z)


def _norm_inv(p, mean, sd):
    """NORM.INV(probability, mean, standard_dev): 0 < probability < 1, standard_dev > 0."""
    if not _prob(p, zero=False, one=False) or sd <= 0.0:
        return NUM
    return mean + sd * norm_inv(p)


def _norm_s_inv(p):
    return norm_inv(p) if _prob(p, zero=False, one=False) else NUM


def _lognorm_dist(x, mean, sd, cumulative):
    """LOGNORM.DIST(x, mean, standard_dev, cumulative): x <= 0 or standard_dev <= 0 is #NUM!."""
    if x <= 0.0 or sd <= 0.0:
        return NUM
    z = (math.log(x) - mean) / sd
    return norm_cdf(z) if _dist_flag(cumulative) else norm_pdf(z) / (sd * x)


def _lognorm_inv(p, mean, sd):
    """LOGNORM.INV(probability, mean, standard_dev): 0 < probability < 1, standard_dev > 0."""
    if not _prob(p, zero=False, one=False) or sd <= 0.0:
        return NUM
    return math.exp(mean + sd * norm_inv(p))


def _standardize(x, mean, sd):
    return NUM if sd <= 0.0 else (x - mean) / sd


def _phi(x):
    return norm_pdf(x)


def _gauss(z):
    """GAUSS(z): the probability of lying between the mean and z standard deviations from it."""
    return norm_cdf(z) - 0.5 if z <= 0 else 0.5 - norm_cdf(-z)


def _confidence_norm(alpha, sd, size):
    """CONFIDENCE.NORM(alpha, standard_dev, size): 0 < alpha < 1, standard_dev > 0, size >= 1."""
    n = math.trunc(size)
    if not 0.0 < alpha < 1.0 or sd <= 0.0 or n < 1:
        return NUM
    return -norm_inv(alpha / 2.0) * sd / math.sqrt(n)


def _confidence_t(alpha, sd, size):
    """CONFIDENCE.T(alpha, standard_dev, size): as CONFIDENCE.NORM; a size of 1 is #DIV/0!."""
    n = math.trunc(size)
    if not 0.0 < alpha < 1.0 or sd <= 0.0 or n < 1:
        return NUM
    if n == 1:
        return DIV0
    return _t_upper_inv(alpha / 2.0, float(n - 1)) * sd / math.sqrt(n)


# --- Student's t ----------------------------------------------------------------------------


def t_upper(t: float, df: float) -> float:
    """P(T > t) for t >= 0 (x = df/(df + t^2) and 1 - x passed separately)."""
    s = df + t * t
    return 0.5 * beta_i(df / 2.0, 0.5, df / s, t * t / s)[0]


def _t_cdf(t: float, df: float) -> float:
    return 1.0 - t_upper(t, df) if t >= 0 else t_upper(-t, df)


def _t_pdf(t: float, df: float) -> float:
    lg = math.lgamma((df + 1) / 2) - math.lgamma(df / 2)
    return math.exp(lg - 0.5 * math.log(df * math.pi) - (df + 1) / 2 * math.log1p(t * t / df))


def _t_upper_inv(q: float, df: float) -> float:
    """The t >= 0 with P(T > t) = q, for 0 < q <= 0.5."""
    if q >= 0.5:
        return 0.0
    return _positive_root(lambda t: t_upper(t, df), q, increasing=False)


def _t_dist(x, df, cumulative):
    """T.DIST(x, deg_freedom, cumulative): deg_freedom < 1 is #NUM!, but the density's at a
    deg_freedom of 0 (truncated) is #DIV/0! (formulas' Excel-saved test.xlsx STATISTICAL!R102
    ``T.DIST(0,,)`` #DIV/0!, W102 ``T.DIST(0,0,1)`` with blank cells #NUM!)."""
    d = _df(df)
    if isinstance(d, XlError):
        return DIV0 if not _dist_flag(cumulative) and math.trunc(df) == 0 else d
    return _t_cdf(x, d) if _dist_flag(cumulative) else _t_pdf(x, d)


def _t_dist_2t(x, df):
    """T.DIST.2T(x, deg_freedom): x < 0 or deg_freedom < 1 is #NUM!."""
    d = _df(df)
    if isinstance(d, XlError) or x < 0:
        return NUM
    return min(1.0, 2.0 * t_upper(x, d))


def _t_dist_rt(x, df):
    d = _df(df)
    if isinstance(d, XlError):
        return d
    return t_upper(x, d) if x >= 0 else 1.0 - t_upper(-x, d)


def _tdist(x, df, tails):
    """TDIST(x, deg_freedom, tails): x < 0, tails not 1 or 2 is #NUM!."""
    d, k = _df(df), math.trunc(tails)
    if isinstance(d, XlError) or x < 0 or k not in (1, 2):
        return NUM
    return min(1.0, k * t_upper(x, d))


def _t_inv(p, df):
    """T.INV(probability, deg_freedom): 0 < probability < 1, deg_freedom >= 1."""
    d = _df(df)
    if isinstance(d, XlError) or not _prob(p, zero=False, one=False):
        return NUM
    return -_t_upper_inv(p, d) if p < 0.5 else _t_upper_inv(1.0 - p, d)


def _t_inv_2t(p, df):
    """T.INV.2T(probability, deg_freedom) and TINV: 0 < probability <= 1, deg_freedom >= 1."""
    d = _df(df)
    if isinstance(d, XlError) or not _prob(p, zero=False, one=True):
        return NUM
    return _t_upper_inv(p / 2.0, d)


# --- chi-squared, gamma, exponential, Poisson -----------------------------------------------


def _chisq_dist(x, df, cumulative):
    """CHISQ.DIST(x, deg_freedom, cumulative): x < 0 or deg_freedom outside 1..10^10 is #NUM!."""
    d = _df(df)
    if isinstance(d, XlError) or x < 0:
        return NUM
    if _dist_flag(cumulative):
        return gamma_pq(d / 2.0, x / 2.0)[0]
    return _gamma_pdf(x, d / 2.0, 2.0)


def _chisq_dist_rt(x, df):
    """CHISQ.DIST.RT(x, deg_freedom) and CHIDIST: x < 0 is #NUM!."""
    d = _df(df)
    if isinstance(d, XlError) or x < 0:
        return NUM
    return gamma_pq(d / 2.0, x / 2.0)[1]


def _chisq_inv(p, df):
    """CHISQ.INV(probability, deg_freedom): 0 <= probability < 1 (0 gives 0)."""
    d = _df(df)
    if isinstance(d, XlError) or not _prob(p, zero=True, one=False):
        return NUM
    return _gamma_inv(p, d / 2.0, 2.0, upper=False)


def _chisq_inv_rt(p, df):
    """CHISQ.INV.RT(probability, deg_freedom) and CHIINV: 0 < probability <= 1 (1 gives 0)."""
    d = _df(df)
    if isinstance(d, XlError) or not _prob(p, zero=False, one=True):
        return NUM
    return _gamma_inv(p, d / 2.0, 2.0, upper=True)


def _gamma_pdf(x: float, a: float, b: float) -> float:
    if x == 0.0:
        return 1.0 / b if a == 1.0 else (0.0 if a > 1.0 else math.inf)
    return math.exp((a - 1.0) * math.log(x) - x / b - math.lgamma(a) - a * math.log(b))


def _gamma_inv(p: float, a: float, b: float, upper: bool) -> float:
    """x with P(a, x/b) = p (or Q(a, x/b) = p when ``upper``)."""
    if (p == 0.0 and not upper) or (p == 1.0 and upper):
        return 0.0
    k = 1 if upper else 0
    return b * _positive_root(lambda t: gamma_pq(a, t)[k], p, increasing=not upper)


def _gamma_dist(x, alpha, beta, cumulative):
    """GAMMA.DIST(x, alpha, beta, cumulative): x < 0, alpha <= 0 or beta <= 0 is #NUM!."""
    if x < 0 or alpha <= 0 or beta <= 0:
        return NUM
    if _dist_flag(cumulative):
        return gamma_pq(alpha, x / beta)[0]
    return _gamma_pdf(x, alpha, beta)


def _gamma_inv_fn(p, alpha, beta):
    """GAMMA.INV(probability, alpha, beta): 0 <= probability < 1, alpha > 0, beta > 0."""
    if not _prob(p, zero=True, one=False) or alpha <= 0 or beta <= 0:
        return NUM
    return _gamma_inv(p, alpha, beta, upper=False)


def _gamma(x):
    """GAMMA(number): 0 and negative integers are #NUM! (and results too large for a double)."""
    if x <= 0 and x == math.trunc(x):
        return NUM
    return math.gamma(x)


def _gammaln(x):
    """GAMMALN(x) and GAMMALN.PRECISE(x): x <= 0 is #NUM!."""
    return NUM if x <= 0 else math.lgamma(x)


def _expon_dist(x, lam, cumulative):
    """EXPON.DIST(x, lambda, cumulative): x < 0 or lambda <= 0 is #NUM!."""
    if x < 0 or lam <= 0:
        return NUM
    return -math.expm1(-lam * x) if _dist_flag(cumulative) else lam * math.exp(-lam * x)


def _poisson_dist(x, mean, cumulative):
    """POISSON.DIST(x, mean, cumulative): x truncated; x < 0 or mean < 0 is #NUM!."""
    k = math.trunc(x)
    if k < 0 or mean < 0:
        return NUM
    if mean == 0:
        return 1.0 if (k == 0 or _dist_flag(cumulative)) else 0.0
    if _dist_flag(cumulative):
        return gamma_pq(k + 1.0, mean)[1]
    return math.exp(k * math.log(mean) - mean - math.lgamma(k + 1.0))


def _weibull_dist(x, alpha, beta, cumulative):
    """WEIBULL.DIST(x, alpha, beta, cumulative): x < 0, alpha <= 0 or beta <= 0 is #NUM!."""
    if x < 0 or alpha <= 0 or beta <= 0:
        return NUM
    try:
        z = (x / beta) ** alpha
    except OverflowError:  # (x / beta)^alpha past the largest number: F is 1, f is 0
        z = math.inf
    if _dist_flag(cumulative):
        return -math.expm1(-z)
    if x > 0:  # in logarithms: beta^alpha alone may overflow or underflow where f does not
        return math.exp(math.log(alpha) - alpha * math.log(beta) + (alpha - 1.0) * math.log(x) - z)
    if alpha == 1.0:  # f(0) is 0 for alpha > 1, 1/beta for alpha = 1, infinite below (#NUM!)
        return 1.0 / beta
    return 0.0 if alpha > 1.0 else NUM


# --- F and beta -----------------------------------------------------------------------------


def _f_tails(x: float, d1: float, d2: float) -> tuple[float, float]:
    s = d1 * x + d2
    return beta_i(d1 / 2.0, d2 / 2.0, d1 * x / s, d2 / s)


def _f_dist(x, d1, d2, cumulative):
    """F.DIST(x, deg_freedom1, deg_freedom2, cumulative): x < 0 or a deg_freedom < 1 is #NUM!."""
    a, b = _df(d1), _df(d2)
    if isinstance(a, XlError) or isinstance(b, XlError) or x < 0:
        return NUM
    if _dist_flag(cumulative):
        return _f_tails(x, a, b)[0]
    if x == 0:
        return 0.0 if a > 2 else (1.0 if a == 2 else math.inf)
    lg = math.lgamma((a + b) / 2) - math.lgamma(a / 2) - math.lgamma(b / 2)
    return math.exp(
        lg + a / 2 * math.log(a / b) + (a / 2 - 1) * math.log(x) - (a + b) / 2 * math.log1p(a * x / b)
    )


def _f_dist_rt(x, d1, d2):
    """F.DIST.RT(x, deg_freedom1, deg_freedom2) and FDIST: x < 0 is #NUM!."""
    a, b = _df(d1), _df(d2)
    if isinstance(a, XlError) or isinstance(b, XlError) or x < 0:
        return NUM
    return _f_tails(x, a, b)[1]


def _f_inv_tail(p: float, d1, d2, upper: bool):
    a, b = _df(d1), _df(d2)
    if isinstance(a, XlError) or isinstance(b, XlError) or not _prob(p, zero=not upper, one=upper):
        return NUM
    if (p == 0.0 and not upper) or (p == 1.0 and upper):
        return 0.0
    k = 1 if upper else 0
    return _positive_root(lambda x: _f_tails(x, a, b)[k], p, increasing=not upper)


def _f_inv(p, d1, d2):
    """F.INV(probability, deg_freedom1, deg_freedom2): 0 <= probability < 1."""
    return _f_inv_tail(p, d1, d2, upper=False)


def _f_inv_rt(p, d1, d2):
    """F.INV.RT(probability, deg_freedom1, deg_freedom2) and FINV: 0 < probability <= 1."""
    return _f_inv_tail(p, d1, d2, upper=True)


def _bounds(lo, hi):
    return (0.0 if lo is None else lo), (1.0 if hi is None else hi)


def _beta_dist(x, alpha, beta, cumulative, lo=None, hi=None):
    """BETA.DIST(x, alpha, beta, cumulative, [A=0], [B=1]): alpha <= 0, beta <= 0, x < A,
    x > B or A = B is #NUM!."""
    lo, hi = _bounds(lo, hi)
    if alpha <= 0 or beta <= 0 or x < lo or x > hi or lo == hi:
        return NUM
    w = hi - lo
    z, y = (x - lo) / w, (hi - x) / w
    if _dist_flag(cumulative):
        return beta_i(alpha, beta, z, y)[0]
    if z == 0.0 or y == 0.0:
        edge_a = alpha if z == 0.0 else beta
        if edge_a < 1:
            return NUM
        if edge_a > 1:
            return 0.0
    lb = math.lgamma(alpha + beta) - math.lgamma(alpha) - math.lgamma(beta)
    la = (alpha - 1) * math.log(z) if alpha != 1 else 0.0
    lbb = (beta - 1) * math.log(y) if beta != 1 else 0.0
    return math.exp(lb + la + lbb) / w


def _betadist(x, alpha, beta, lo=None, hi=None):
    """BETADIST(x, alpha, beta, [A], [B]): the cumulative BETA.DIST."""
    return _beta_dist(x, alpha, beta, 1.0, lo, hi)


def _beta_inv(p, alpha, beta, lo=None, hi=None):
    """BETA.INV(probability, alpha, beta, [A=0], [B=1]): 0 < probability < 1, alpha > 0,
    beta > 0, A < B. Microsoft's remarks allow a probability of 1; Excel gives #NUM! there
    (formulas' Excel-saved test.xlsx STATISTICAL!AO9, of {=BETA.INV(C9:Q9,3,2)} at J9 TRUE, is
    #NUM!, where TRUE reads as 1 in the same array formulas: AO74 {=NORM.S.DIST(C74:Q74,1)} is
    NORM.S.DIST(1,TRUE))."""
    lo, hi = _bounds(lo, hi)
    if not _prob(p, zero=False, one=False) or alpha <= 0 or beta <= 0 or lo >= hi:
        return NUM
    z = _bisect(lambda t: beta_i(alpha, beta, t)[0], p, 0.0, 1.0)
    return lo + z * (hi - lo)


# --- discrete: binomial, negative binomial, hypergeometric ----------------------------------


def _binom_pmf(k: int, n: int, p: float) -> float:
    if p == 0.0:
        return 1.0 if k == 0 else 0.0
    if p == 1.0:
        return 1.0 if k == n else 0.0
    lc = math.lgamma(n + 1.0) - math.lgamma(k + 1.0) - math.lgamma(n - k + 1.0)
    return math.exp(lc + k * math.log(p) + (n - k) * math.log1p(-p))


def _binom_cdf(k: int, n: int, p: float) -> float:
    if k >= n:
        return 1.0
    if p == 0.0:
        return 1.0
    if p == 1.0:
        return 0.0
    # P(X <= k) = I_{1-p}(n - k, k + 1)
    return beta_i(n - k, k + 1.0, 1.0 - p, p)[0]


def _binom_dist(x, trials, p, cumulative):
    """BINOM.DIST(number_s, trials, probability_s, cumulative): number_s and trials truncated;
    number_s < 0, number_s > trials, or probability_s outside 0..1 is #NUM!."""
    k, n = math.trunc(x), math.trunc(trials)
    if k < 0 or k > n or not 0.0 <= p <= 1.0:
        return NUM
    return _binom_cdf(k, n, p) if _dist_flag(cumulative) else _binom_pmf(k, n, p)


def _binom_dist_range(trials, p, s, s2=None):
    """BINOM.DIST.RANGE(trials, probability_s, number_s, [number_s2]): the probability of
    number_s to number_s2 successes; 0 <= number_s <= number_s2 <= trials, 0 <= p <= 1."""
    n, k1 = math.trunc(trials), math.trunc(s)
    k2 = k1 if s2 is None else math.trunc(s2)
    if n < 0 or not 0.0 <= p <= 1.0 or not 0 <= k1 <= n or not k1 <= k2 <= n:
        return NUM
    return math.fsum(_binom_pmf(k, n, p) for k in range(k1, k2 + 1))


def _binom_inv(trials, p, alpha):
    """BINOM.INV(trials, probability_s, alpha) and CRITBINOM: the smallest k with
    BINOM.DIST(k, trials, p, TRUE) >= alpha; trials < 0, p or alpha outside 0..1 is #NUM!."""
    n = math.trunc(trials)
    if n < 0 or not 0.0 <= p <= 1.0 or not 0.0 <= alpha <= 1.0:
        return NUM
    total = 0.0
    for k in range(n + 1):
        total += _binom_pmf(k, n, p)
        if total >= alpha * (1.0 - 1e-15):
            return float(k)
    return float(n)


def _negbinom_dist(f, s, p, cumulative=None):
    """NEGBINOM.DIST(number_f, number_s, probability_s, cumulative): failures before the
    number_s-th success; number_f < 0, number_s < 1, probability_s < 0 or > 1 is #NUM! (Microsoft's
    page), and so is probability_s 0 (Mac Excel cached #NUM! for NEGBINOM.DIST(60,60,0,TRUE) in
    the formulas project's test.xlsx STATISTICAL!X72, a blank cell as probability_s); 1 is
    success at every trial (ISO/IEC 29500 Part 4's NEGBINOMDIST: no failure before it)."""
    k, r = math.trunc(f), math.trunc(s)
    if k < 0 or r < 1 or not 0.0 < p <= 1.0:
        return NUM
    if p == 1.0:
        return float(k == 0 or _dist_flag(cumulative))
    if _dist_flag(cumulative):
        return beta_i(float(r), k + 1.0, p)[0]
    lc = math.lgamma(k + r) - math.lgamma(k + 1.0) - math.lgamma(float(r))
    return math.exp(lc + r * math.log(p) + k * math.log1p(-p))


def _hypgeom_dist(x, n, big_k, big_n, cumulative=None):
    """HYPGEOM.DIST(sample_s, number_sample, population_s, number_pop, cumulative): all
    truncated; a negative one, n > N or K > N is #NUM!; the density at a sample_s outside
    max(0, n - N + K)..min(n, K) is #NUM! (Microsoft's remarks).

    Excel-saved (formulas' test.xlsx, STATISTICAL row 54), where Microsoft's remarks say #NUM!:
    a number_pop of 0 is no error (R54 ``HYPGEOM.DIST(0,,,,)`` is 1), and the cumulative
    distribution is 0 below that range and 1 above it (AG54 ``HYPGEOM.DIST(0,2,3,3,1)`` 0, AI54
    ``HYPGEOM.DIST(5,3,2,30,1)`` 1)."""
    k, n, kk, nn = (math.trunc(v) for v in (x, n, big_k, big_n))
    if nn < 0 or n < 0 or kk < 0 or n > nn or kk > nn or k < 0:
        return NUM
    lo, hi = max(0, n - nn + kk), min(n, kk)

    def pmf(j: int) -> float:
        return math.comb(kk, j) * math.comb(nn - kk, n - j) / math.comb(nn, n)

    if _dist_flag(cumulative):
        if k >= hi:
            return 1.0
        return min(1.0, math.fsum(pmf(j) for j in range(lo, k + 1)))  # 0 for k < lo
    if k > hi or k < lo:
        return NUM
    return pmf(k)


def _fisher(x):
    return NUM if not -1.0 < x < 1.0 else math.atanh(x)


def _fisherinv(y):
    return math.tanh(y)


# --- the table ------------------------------------------------------------------------------


def _legacy_norms_dist(z):
    return norm_cdf(z)


def _legacy_lognorm_dist(x, mean, sd):
    return _lognorm_dist(x, mean, sd, 1.0)


_DEFS = {
    # name: (function, required args, most args)
    "NORM.DIST": (_norm_dist, 4, 4),
    "NORMDIST": (_norm_dist, 4, 4),
    "NORM.S.DIST": (_norm_s_dist, 2, 2),
    "NORMSDIST": (_legacy_norms_dist, 1, 1),
    "NORM.INV": (_norm_inv, 3, 3),
    "NORMINV": (_norm_inv, 3, 3),
    "NORM.S.INV": (_norm_s_inv, 1, 1),
    "NORMSINV": (_norm_s_inv, 1, 1),
    "LOGNORM.DIST": (_lognorm_dist, 4, 4),
    "LOGNORMDIST": (_legacy_lognorm_dist, 3, 3),
    "LOGNORM.INV": (_lognorm_inv, 3, 3),
    "LOGINV": (_lognorm_inv, 3, 3),
    "STANDARDIZE": (_standardize, 3, 3),
    "PHI": (_phi, 1, 1),
    "GAUSS": (_gauss, 1, 1),
    "CONFIDENCE.NORM": (_confidence_norm, 3, 3),
    "CONFIDENCE": (_confidence_norm, 3, 3),
    "CONFIDENCE.T": (_confidence_t, 3, 3),
    "T.DIST": (_t_dist, 3, 3),
    "T.DIST.2T": (_t_dist_2t, 2, 2),
    "T.DIST.RT": (_t_dist_rt, 2, 2),
    "TDIST": (_tdist, 3, 3),
    "T.INV": (_t_inv, 2, 2),
    "T.INV.2T": (_t_inv_2t, 2, 2),
    "TINV": (_t_inv_2t, 2, 2),
    "CHISQ.DIST": (_chisq_dist, 3, 3),
    "CHISQ.DIST.RT": (_chisq_dist_rt, 2, 2),
    "CHIDIST": (_chisq_dist_rt, 2, 2),
    "CHISQ.INV": (_chisq_inv, 2, 2),
    "CHISQ.INV.RT": (_chisq_inv_rt, 2, 2),
    "CHIINV": (_chisq_inv_rt, 2, 2),
    "GAMMA": (_gamma, 1, 1),
    "GAMMALN": (_gammaln, 1, 1),
    "GAMMALN.PRECISE": (_gammaln, 1, 1),
    "GAMMA.DIST": (_gamma_dist, 4, 4),
    "GAMMADIST": (_gamma_dist, 4, 4),
    "GAMMA.INV": (_gamma_inv_fn, 3, 3),
    "GAMMAINV": (_gamma_inv_fn, 3, 3),
    "EXPON.DIST": (_expon_dist, 3, 3),
    "EXPONDIST": (_expon_dist, 3, 3),
    "POISSON.DIST": (_poisson_dist, 3, 3),
    "POISSON": (_poisson_dist, 3, 3),
    "WEIBULL.DIST": (_weibull_dist, 4, 4),
    "WEIBULL": (_weibull_dist, 4, 4),
    "F.DIST": (_f_dist, 4, 4),
    "F.DIST.RT": (_f_dist_rt, 3, 3),
    "FDIST": (_f_dist_rt, 3, 3),
    "F.INV": (_f_inv, 3, 3),
    "F.INV.RT": (_f_inv_rt, 3, 3),
    "FINV": (_f_inv_rt, 3, 3),
    "BETA.DIST": (_beta_dist, 4, 6),
    "BETADIST": (_betadist, 3, 5),
    "BETA.INV": (_beta_inv, 3, 5),
    "BETAINV": (_beta_inv, 3, 5),
    "BINOM.DIST": (_binom_dist, 4, 4),
    "BINOMDIST": (_binom_dist, 4, 4),
    "BINOM.DIST.RANGE": (_binom_dist_range, 3, 4),
    "BINOM.INV": (_binom_inv, 3, 3),
    "CRITBINOM": (_binom_inv, 3, 3),
    "NEGBINOM.DIST": (_negbinom_dist, 4, 4),
    "NEGBINOMDIST": (_negbinom_dist, 3, 3),
    "HYPGEOM.DIST": (_hypgeom_dist, 5, 5),
    "HYPGEOMDIST": (_hypgeom_dist, 4, 4),
    "FISHER": (_fisher, 1, 1),
    "FISHERINV": (_fisherinv, 1, 1),
}

_DISTRIBUTIONS_FUNCTIONS = {name: Spec(scalar_function(f, lo), lo, hi) for name, (f, lo, hi) in _DEFS.items()}


# --- hypothesis tests, ranks and modes ----------------------------------------------------------
# Excel's Statistical functions, continued: the hypothesis tests, PERCENTRANK and MODE.MULT.
#
# Each follows its Microsoft page (tests/recalc/functions/test_statistical.py holds the pages' examples):
#
# - Z.TEST(array, x, [sigma]) and ZTEST: the one-tailed P-value ``1 - NORM.S.DIST((AVERAGE(array)
#   - x) / (sigma / SQRT(n)), TRUE)``; sigma omitted is the sample standard deviation. Fewer than
#   one number (two without sigma) or a zero deviation is #DIV/0!.
# - T.TEST(array1, array2, tails, type) and TTEST: Student's t-test, type 1 paired, 2 two samples
#   of equal variance, 3 of unequal variance (Welch's degrees of freedom); tails 1 or 2. tails or
#   type (truncated) outside those values is #NUM!; paired arrays of different counts #N/A.
# - F.TEST(array1, array2) and FTEST: the two-tailed probability that the variances of the two
#   arrays do not differ (``2 * min(F, 1 - F)`` of F.DIST at their ratio); fewer than two numbers
#   in either, or a zero variance, is #DIV/0!.
# - CHISQ.TEST(actual_range, expected_range) and CHITEST: CHISQ.DIST.RT of ``sum((A - E)^2 / E)``
#   with ``(r - 1)(c - 1)`` degrees of freedom (``r - 1`` or ``c - 1`` for a single row or column);
#   ranges of different sizes #N/A; an expected value of 0 #DIV/0!.
# - PERCENTRANK.INC(array, x, [significance=3]) and PERCENTRANK: the count of values below x over
#   ``n - 1``, interpolated between neighbours when x is not in the array, truncated to
#   significance digits; PERCENTRANK.EXC counts ``(below + 1) / (n + 1)``. x outside the array's
#   range is #N/A, significance below 1 #NUM!.
# - MODE.MULT(number1, ...): the most frequent numbers, as a vertical array in the order they first
#   appear; no value repeated is #N/A.


def _test_rows(arg) -> tuple[list[np.ndarray], list]:
    """Per formula row: the numbers of a range or array argument, and the row's first error."""
    vals, err = numbers([arg], scalars="numbers")
    out = [row[~np.isnan(row)] for row in vals]
    errs = [None] * len(out) if err is None else list(err)
    return out, errs


def _per_row(func, *arrays, scalars=(), scalars_first: bool = False, errors=None):
    """``func(row, *numbers_per_array, *floats)`` for each formula row, errors first: the arrays'
    before the scalars' (the scalars' first with ``scalars_first``; ``errors``, one per row or
    None, in place of the arrays' first errors). A scalar
    argument that is an array of several values is lifted by the evaluator (Excel's array
    formula {=T.TEST(A1:A3,B1:B3,{1;2},{1;2})} fills a row per tails and type, STATISTICAL!R107:
    R112 of formulas' test.xlsx): it raises for that."""
    for s in scalars:
        if isinstance(s, np.ndarray) and s.ndim == 3 and s.shape[1] * s.shape[2] > 1:
            raise ValueError("an array of scalar arguments: lifted")
    parts = [_test_rows(a) for a in arrays]
    nums, e = scalar_nums(*scalars)
    m = max([len(p[0]) for p in parts] + [1 if s is None else s.shape[0] for s in nums])
    out = []
    for i in range(m):
        err = next(
            (p[1][min(i, len(p[1]) - 1)] for p in parts if p[1][min(i, len(p[1]) - 1)] is not None), None
        )
        if errors is not None:
            err = errors[min(i, len(errors) - 1)] if err is not None else None
        if e is not None and (err is None or scalars_first):
            mask, codes = e
            j = min(i, mask.shape[0] - 1)
            err = codes[j].ravel()[0] if mask[j].ravel()[0] else err
        if err is not None:
            out.append(err)
            continue
        got = [p[0][min(i, len(p[0]) - 1)] for p in parts]
        sc = [None if s is None else float(s[min(i, s.shape[0] - 1)].ravel()[0]) for s in nums]
        r = func(i, *got, *sc)
        out.append(NUM if isinstance(r, float) and not math.isfinite(r) else r)
    return vec.from_list(out, (m, 1, 1))


def _ztest(array, x, sigma=None):
    """Z.TEST(array, x, [sigma]). As Mac Excel cached them in the formulas project's test.xlsx,
    STATISTICAL row 121: an error of x or sigma comes before the array's (Y121 =Z.TEST(J121:K121,
    L121) of TRUE, #VALUE! and x #N/A is #N/A; AB121 with sigma #NAME? is #NAME?); fewer than two
    numbers is #DIV/0! with sigma given too (V121 =Z.TEST(G121:I121,H121,2) of one number); a
    sigma of 0 (or below) is #NUM! (U121 =Z.TEST(D121:E121,F121,0))."""

    def one(_, a, x, s):
        n = len(a)
        if n < 2:
            return DIV0
        if s is not None and s <= 0:
            return NUM
        s = float(np.std(a, ddof=1)) if s is None else s
        if s == 0:
            return DIV0
        return 1.0 - _norm_s_dist((float(np.mean(a)) - x) / (s / math.sqrt(n)), True)

    return _per_row(one, array, scalars=(x, sigma), scalars_first=True)


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

    # the arrays' error as the regressions' (pair_errors): STATISTICAL!Y107 =T.TEST(J107:K107,
    # L107:M107,...) of TRUE, #VALUE! and #N/A, #DIV/0! cached #N/A, AD107 of #NULL!, #NUM! and
    # #REF!, 0.066 cached #NUM! (the formulas project's test.xlsx)
    return _per_row(one, array1, array2, scalars=(tails, kind), errors=pair_errors(array1, array2))


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

    # the arrays' error as T.TEST's (pair_errors): STATISTICAL!AD34 =F.TEST(O34:P34,Q34:R34) of
    # #NULL!, #NUM! and #REF!, #DIV/0! cached #NUM! (the formulas project's test.xlsx)
    return _per_row(one, array1, array2, errors=pair_errors(array1, array2))


def _chitest(actual, expected):
    """CHISQ.TEST(actual_range, expected_range) / CHITEST, as Mac Excel cached it in the
    formulas project's test.xlsx (STATISTICAL row 17): ranges of as many cells pair in reading
    order whatever their shapes (R17 of a 2x2 and a 4x1 range, 9.66041305483331E-58), different
    counts #N/A; the degrees of freedom come from actual_range's shape; no pair of two numbers is
    #DIV/0! (V17); the error is actual_range's first, then expected_range's, #NULL! passed over
    (Y17 #VALUE! of TRUE, #VALUE! against #N/A, #DIV/0!; AD17 #NUM! of #NULL!, #NUM!)."""
    a, b = materialize(actual), materialize(expected)
    if a.shape[1] * a.shape[2] != b.shape[1] * b.shape[2]:
        return vec.const(NA)
    out = []
    for i in range(max(a.shape[0], b.shape[0])):
        ra, rb = a[min(i, a.shape[0] - 1)], b[min(i, b.shape[0] - 1)]
        errs = [v for v in [*ra.ravel().tolist(), *rb.ravel().tolist()] if isinstance(v, XlError)]
        err = next((v for v in errs if v is not NULL), errs[0] if errs else None)
        if err is not None:
            out.append(err)
            continue
        stat, pairs = 0.0, 0
        for x, e in zip(ra.ravel().tolist(), rb.ravel().tolist(), strict=True):
            if _is_num(x) and _is_num(e):
                pairs += 1
                if e == 0:
                    stat = math.nan
                    break
                stat += (x - e) ** 2 / e
        if math.isnan(stat) or not pairs:
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
    """MODE.MULT: as MODE.SNGL (:func:`_mode_sngl`), Microsoft's page says it alike ("Arguments
    that are error values or text that cannot be translated into numbers cause errors"; ranges
    and references give their numbers only): a value typed that is not a number is #VALUE! (MODE
    refuses a number-text too, as Excel's cached =MODE(B8,"1",2,3) is: POI's
    FormulaEvalTestData_Copy.xlsx, EverythingTests!H936; MODE.SNGL and MODE.MULT count it), an
    empty text is ignored, as a single cell's text, logical value
    or blank (formulas' Excel-saved test.xlsx STATISTICAL!S69 =MODE.MULT(D69:E69,E69:F69,
    F69:G69,"") 0.1, Y69 =MODE.MULT(J69,G69) with J69 TRUE #N/A); the first error in argument
    order wins."""
    for a in args:
        if a is None:
            continue
        arr = materialize(a) if is_rangelike(a) else np.asarray(a)
        if arr.size == 1:
            v = arr.reshape(-1)[0]
            if isinstance(v, XlError):
                return vec.const(v)
            typed_number = isinstance(v, str) and parse_number(v) is not None  # counts, as in
            if (  # MODE.SNGL (STATISTICAL!T69 =MODE.MULT(...,"29/02/1900") 0.3, day first)
                not isinstance(v, float | np.floating)
                and not isinstance(a, RangeVal)
                and v != ""
                and not typed_number
            ):
                return vec.const(VALUE)
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
_TESTS_TABLE = (
    ("Z.TEST ZTEST", _ztest, 2, 3, "rvv"),
    ("T.TEST TTEST", _ttest, 4, 4, "rrvv"),
    ("F.TEST FTEST", _ftest, 2, 2, "rr"),
    ("CHISQ.TEST CHITEST", _chitest, 2, 2, "rr"),
    ("PERCENTRANK.INC PERCENTRANK", _percentrank(False), 2, 3, "rvv"),
    ("PERCENTRANK.EXC", _percentrank(True), 2, 3, "rvv"),
    ("MODE.MULT", _mode_mult, 1, 255, "r"),
)
_TESTS_FUNCTIONS = {
    name: Spec(f, lo, hi, modes) for names, f, lo, hi, modes in _TESTS_TABLE for name in names.split()
}


# --- means, shape, permutations, PROB and FREQUENCY ----------------------------------------------
# Each as its Microsoft page defines it (tests/recalc/functions/test_statistical.py holds the pages' examples):
#
# - GEOMEAN and HARMEAN take their numbers as SUM does (numbers, logical values and number texts
#   typed as arguments count; text, logical values and blanks in ranges and arrays are ignored);
#   a number <= 0 is #NUM! ("If any data point <= 0"), and so is no number at all.
# - KURT, SKEW (sample) and SKEW.P (population) take their numbers alike; fewer than four (KURT)
#   or three (SKEW, and SKEW.P as its page says: "If there are fewer than three data points, or the
#   sample standard deviation is zero, SKEW.P returns the #DIV/0! error value") numbers, or all
#   equal, is #DIV/0!.
# - TRIMMEAN(array, percent): the mean of the numbers of array left once ``2 * INT(n * percent /
#   2)`` of them (as many from the bottom as from the top) are excluded; percent < 0 or > 1 is
#   #NUM!, and so is no number left.
# - PERMUT(number, number_chosen): number! / (number - number_chosen)!, both truncated; number <= 0,
#   number_chosen < 0 or number < number_chosen is #NUM!. PERMUTATIONA(number, number_chosen):
#   number ^ number_chosen, both truncated; either below 0 is #NUM!.
# - PROB(x_range, prob_range, lower_limit, [upper_limit]): the sum of the probabilities of the x's
#   from lower_limit to upper_limit (equal to lower_limit without upper_limit; an upper_limit
#   below lower_limit, a blank cell's 0 included, is 0: Mac Excel cached 0 for
#   PROB({1,2,3,4,5},{0.1,0.2,0.3,0.3,0.1},1,H86) with H86 blank in the formulas project's test.xlsx
#   STATISTICAL!Z86, where LibreOffice swaps the limits; Microsoft's page is silent); the two ranges pair
#   as COVARIANCE.P's do (different counts #N/A). Probabilities that do not add up to 1 are #NUM!;
#   single ones outside 0..1 are not an error: Microsoft's page says they are #NUM!, but Office's
#   own notes on the standard say otherwise ([MS-OI29500] 2.1.1023, PROB: "In Office, values in
#   argument probability-range may be <= 0 or > 1"; "Office returns #NUM! if the sum of the values
#   in probability-range is not equal to 1").
# - FREQUENCY(data_array, bins_array): a vertical array of len(bins) + 1 counts, the i-th counting
#   the numbers of data_array above the next lower bin and at most bins[i] (bins need not be
#   sorted: each count sits at its bin's place; of equal bins the first gets the count), the last
#   those above every bin; blanks and text (and logical values) in either array are ignored; no
#   bin is one count of all the numbers.

#: PROB's probabilities add up to 1 within this (they are typed decimals: 0.1 + 0.2 is not 0.3)
_PROB_TOLERANCE = 1e-9


def _positive_mean(geometric: bool):
    """GEOMEAN (exp of the mean log) and HARMEAN (n over the sum of reciprocals)."""

    def impl(*args):
        vals, err = numbers(args)
        n = _count_used(vals)
        with np.errstate(all="ignore"):
            bad = (np.where(np.isnan(vals), 1.0, vals) <= 0).any(axis=1) | (n == 0)
            r = np.exp(added(np.log(vals)) / n) if geometric else n / added(1.0 / vals)
        return result(np.where(bad, np.nan, r), err, bad=NUM)

    return impl


def _shape(kind: str):
    """KURT, SKEW and SKEW.P by the formulas of their pages (s the sample standard deviation,
    sigma the population one): SKEW = n / ((n-1)(n-2)) * sum(((x - mean) / s)^3); SKEW.P =
    sum(((x - mean) / sigma)^3) / n; KURT = n(n+1) / ((n-1)(n-2)(n-3)) * sum(((x - mean) / s)^4) -
    3(n-1)^2 / ((n-2)(n-3))."""
    least = 4 if kind == "KURT" else 3

    def impl(*args):
        vals, err = numbers(args)
        n = _count_used(vals).astype(float)
        with np.errstate(all="ignore"):
            mean = added(vals) / n
            dev = vals - mean[:, None]
            ss = added(dev * dev)
            if kind == "SKEW.P":
                r = added((dev / np.sqrt(ss / n)[:, None]) ** 3) / n
            elif kind == "SKEW":
                r = n / ((n - 1) * (n - 2)) * added((dev / np.sqrt(ss / (n - 1))[:, None]) ** 3)
            else:
                z4 = added((dev / np.sqrt(ss / (n - 1))[:, None]) ** 4)
                r = n * (n + 1) / ((n - 1) * (n - 2) * (n - 3)) * z4 - 3 * (n - 1) ** 2 / ((n - 2) * (n - 3))
        ok = (n >= least) & ~_all_equal(vals)
        return result(np.where(ok, r, np.nan), err, bad=DIV0)

    return impl


def _trimmean(array, percent):
    """TRIMMEAN: the mean without 2 * INT(n * percent / 2) numbers (half from each end);
    percent < 0 or > 1 is #NUM! (Microsoft's page) and so is percent 1 (Mac Excel cached #NUM!
    for TRIMMEAN(C115:J115,D115) with D115 = 1 and with J115 TRUE in the formulas project's
    test.xlsx STATISTICAL!S115 and Y115, where the formula leaves one number)."""
    vals, err = numbers([array])
    (fp,), ep = scalar_nums(percent)
    s, n = _sorted(vals)
    p = fp.reshape(-1)
    m = max(s.shape[0], p.shape[0])
    s, n, p = np.broadcast_to(s, (m, s.shape[1])), np.broadcast_to(n, (m,)), np.broadcast_to(p, (m,))
    with np.errstate(all="ignore"):
        cut = np.floor(n * p / 2.0)  # excluded from each end
        keep = np.arange(s.shape[1])[None, :]
        inside = (keep >= cut[:, None]) & (keep < (n - cut)[:, None])
        r = added(np.where(inside, s, np.nan)) / (n - 2 * cut)
    ok = (p >= 0) & (p < 1) & (n - 2 * cut > 0)
    return _with_scalar_errors(result(np.where(ok, r, np.nan), err, bad=NUM), ep)


def _permut(number, chosen):
    n, k = math.trunc(number), math.trunc(chosen)
    if n <= 0 or k < 0 or n < k:
        return NUM
    if k > 1000 and math.lgamma(n + 1.0) - math.lgamma(n - k + 1.0) > 710.0:
        return NUM  # beyond the largest double: not worth the exact product
    return float(math.perm(n, k))  # an integer too large for a double raises OverflowError: #NUM!


def _permutationa(number, chosen):
    n, k = math.trunc(number), math.trunc(chosen)
    if n < 0 or k < 0:
        return NUM
    return float(n) ** k


def _prob_of_range(x_range, prob_range, lower, upper=None):
    pairs = paired_numbers(x_range, prob_range)

    def one(i, _x, _p, lo, hi):
        if pairs is None:
            return NA
        fx, fp, both, _ = pairs
        j = min(i, fx.shape[0] - 1)
        xs, ps = fx[j][both[j]], fp[j][both[j]]
        if abs(math.fsum(ps.tolist()) - 1.0) > _PROB_TOLERANCE:
            return NUM
        hi = lo if hi is None else hi  # upper < lower: no x in between, 0
        return math.fsum(ps[(xs >= lo) & (xs <= hi)].tolist())

    return _per_row(one, x_range, prob_range, scalars=(lower, upper))


def _frequency(data, bins):
    """FREQUENCY(data_array, bins_array): the counts of data_array's numbers at or below each bin
    and above the last. Microsoft's page: "FREQUENCY ignores blank cells and text"; an error is
    not ignored, typed or given by a call (as in a range), but returned. Bins that are blank
    cells and no number are one bin of 0, not "no values" (the page: the count of data_array):
    Mac Excel cached {0;3} for {=FREQUENCY(I41:I44,J41:J44)} with J41:J44 blank and 2 for
    FREQUENCY(C43:G43,H43) of 1, 2, 3, 0, -1 with H43 blank, in the formulas project's test.xlsx
    EXTRA!J50:J51 and STATISTICAL!W43."""
    parts = []
    for a in (data, bins):
        if not is_rangelike(a):
            cells = np.asarray(a, dtype=object).ravel().tolist()
            first = next((v for v in cells if isinstance(v, XlError)), None)
            if first is not None:
                return vec.const(first)
        vals, err = numbers([a], scalars="numbers")
        if vals.shape[0] != 1:
            raise ValueError("FREQUENCY over rows")  # evaluated cell by cell
        if err is not None and err[0] is not None:
            return vec.const(err[0])
        parts.append(vals[0][~np.isnan(vals[0])])
    xs, edges = parts
    if not len(edges) and any(v is None for v in materialize(bins).ravel().tolist()):
        edges = np.zeros(1)  # blank bins and no number: one bin of 0
    order = np.argsort(edges, kind="stable")
    sorted_edges = edges[order]
    slot = np.searchsorted(sorted_edges, xs, side="left")  # the first bin >= x; past all: the last
    counts = np.bincount(slot, minlength=len(edges) + 1).astype(vec.FLOAT)
    out = np.empty(len(edges) + 1, dtype=vec.FLOAT)
    out[order] = counts[: len(edges)]
    out[-1] = counts[len(edges)]
    return out.reshape(1, -1, 1)


_MORE_DEFS = {
    # name: (function, required args, most args)
    "PERMUT": (_permut, 2, 2),
    "PERMUTATIONA": (_permutationa, 2, 2),
}
_MORE_FUNCTIONS = {
    **{name: Spec(scalar_function(f, lo), lo, hi) for name, (f, lo, hi) in _MORE_DEFS.items()},
    "GEOMEAN": Spec(_positive_mean(True), 1, 255, "r"),
    "HARMEAN": Spec(_positive_mean(False), 1, 255, "r"),
    "KURT": Spec(_shape("KURT"), 1, 255, "r"),
    "SKEW": Spec(_shape("SKEW"), 1, 255, "r"),
    "SKEW.P": Spec(_shape("SKEW.P"), 1, 255, "r"),
    "TRIMMEAN": Spec(_trimmean, 2, 2, "rv"),
    "PROB": Spec(_prob_of_range, 3, 4, "aavv"),
    "FREQUENCY": Spec(_frequency, 2, 2, "aa"),
}


FUNCTIONS = {
    **_STATS_FUNCTIONS,
    **_LINE_FUNCTIONS,
    **_REGRESSION_FUNCTIONS,
    **_DISTRIBUTIONS_FUNCTIONS,
    **_TESTS_FUNCTIONS,
    **_MORE_FUNCTIONS,
}
