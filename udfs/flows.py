"""Kernels over rows of cash flows: NPV, IRR and payback of many scenarios at once.

A row is the net cash flow of one scenario in periods 0, 1, ..., T - 1 (years, or months with
``periods_per_year=12``), end-of-period, signed as cash; ``flows`` is an array (rows, T), or with
``by_period=True`` (T, rows), period-major, as the kernels work (no copy). Every kernel costs
O(rows x T) per pass with (rows,) temporaries (Horner's rule and running sums), so time and
memory are linear in the periods and callers bound memory by passing chunks of rows.

- NPV at an annual ``rate``: sum of flow_t x (1 + rate)^(-t / periods_per_year) (Excel's
  ``=flow_0 + NPV(rate, flow_1..)`` for years).
- IRR: the annual effective rate at which NPV = 0, (1 + r)^periods_per_year - 1 for the per-period
  root r in [-1 + 1e-9, 1e6]. Rows whose flows change sign once have exactly one root (Descartes'
  rule of signs in x = 1 / (1 + r)), found by a safeguarded Newton/bisection per row. Rows whose
  flows change sign several times can have several roots: the one nearest the starting guess is
  taken (-50% a year when the undiscounted sum is a loss, else 10%, as a rate per period: the
  guess the workbook's ``IRR`` is given), with roots bracketed on a fixed grid of rates, except
  where the running sums prove at most one root (:func:`_root_bound`): then none, or the one.
- Payback: the first time the cumulative flow turns >= 0, linear within the period, in periods.

Where many periods repeat the one before in every row (by month: the months of an operating
year), the IRR's NPV is evaluated a run of equal periods at a time (the geometric sum of the run,
:func:`_runs`): the same polynomial, rounded differently, so roots move in their last bits only.

>>> flows = np.array([[-100.0, 60.0, 60.0], [-100.0, 10.0, 10.0]])
>>> npv(flows, 0.1).round(4)
array([   4.1322, -82.6446])
>>> rate, why = irr(flows)
>>> rate.round(6).tolist(), why.tolist()
([0.130662, -0.629844], [0, 0])
>>> payback(flows)
array([1.66666667,        nan])
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np

#: the per-period rates an IRR is searched in (the old grid's ends)
LOW, HIGH = -1.0 + 1e-9, 1e6
#: why a row has no IRR: codes of :func:`irr`
FOUND, NO_SIGN_CHANGE, NO_ROOT = 0, 1, 2
REASONS = {
    NO_SIGN_CHANGE: "no IRR: the cash flows never change sign",
    NO_ROOT: "no IRR: NPV does not reach 0 at any rate above -100%",
}
#: rows whose flows change sign several times are bracketed on this many rows at once
_GRID_BLOCK = 1024
_MAX_STEPS = 200
#: Newton steps inside the bracket taken freely before each must also halve the step before last
_FREE_STEPS = 12


def npv(flows, rate, periods_per_year: int = 1, *, by_period: bool = False) -> np.ndarray:
    """NPV of each row at the annual ``rate`` (scalar or one per row), by Horner's rule.
    ``by_period``: ``flows`` is (T, rows), period-major (then no copy is made).

    >>> npv(np.array([[-100.0, 110.0]]), 0.1)
    array([0.])
    """
    c = _periods(flows, by_period)
    v = (1.0 + np.asarray(rate, dtype=float)) ** (-1.0 / periods_per_year)
    v = np.broadcast_to(v.reshape(-1) if v.ndim else v, c.shape[1:])
    acc = c[-1].copy()
    for t in range(len(c) - 2, -1, -1):
        acc *= v
        acc += c[t]
    return acc


def payback(flows, periods_per_year: int = 1, *, by_period: bool = False) -> np.ndarray:
    """Periods until the running sum of each row first turns >= 0 from below, linear within the
    period (then / periods_per_year: years); NaN where it never does.

    >>> payback(np.array([[-10.0, 4.0, 4.0, 4.0], [5.0, -1.0, 1.0, 1.0]]))
    array([2.5, nan])
    """
    c = _periods(flows, by_period)
    cum = np.zeros(c.shape[1])
    prev = np.empty_like(cum)
    out = np.full(c.shape[1], np.nan)
    for t in range(len(c)):
        prev[:] = cum
        cum += c[t]
        cross = (prev < 0) & (cum >= 0)
        if cross.any():
            cross &= np.isnan(out)
            out[cross] = t - 1.0 - prev[cross] / c[t][cross]
    return out / periods_per_year


def irr(flows, periods_per_year: int = 1, *, by_period: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The IRR of each row (annual effective) and why there is none (:data:`REASONS` codes,
    :data:`FOUND` where there is one; the rate is NaN there).

    >>> rate, why = irr(np.array([[-100.0, 50.0, 50.0, 50.0], [1.0, 1.0, 0.0, 0.0]]))
    >>> round(float(rate[0]), 9), why.tolist()
    (0.233751, [0, 1])
    """
    c = _periods(flows, by_period)
    n = c.shape[1]
    rate = np.full(n, np.nan)
    why = np.full(n, NO_ROOT, dtype=np.int8)
    runs = _runs(c)  # a run of equal periods changes no sign: its first period stands for it
    changes = sign_changes(c if runs is None else c[runs.starts], by_period=True)
    why[changes == 0] = NO_SIGN_CHANGE
    guess = np.where(c.sum(axis=0) < 0, -0.5, 0.1)
    if periods_per_year != 1:
        guess = (1.0 + guess) ** (1.0 / periods_per_year) - 1.0
    one = changes == 1
    several = np.flatnonzero(changes > 1)
    if several.size:  # those with at most one root proven: none, or the one _unique_root finds
        bound, ends_differ = _root_bound(c[:, several])
        one[several[(bound == 1) & ends_differ]] = True
        several = several[(bound > 1)]
    if one.all():
        rate = _unique_root(c, guess, runs)
    elif one.any():
        rate[one] = _unique_root(c[:, one], guess[one], runs)
    for s in range(0, several.size, _GRID_BLOCK):
        rows = several[s : s + _GRID_BLOCK]
        rate[rows] = _nearest_root(np.ascontiguousarray(c[:, rows].T), guess[rows], runs)
    why[np.isfinite(rate)] = FOUND
    if periods_per_year != 1:
        rate = (1.0 + rate) ** periods_per_year - 1.0
    return rate, why


def sign_changes(flows, *, by_period: bool = False) -> np.ndarray:
    """How many times each row changes sign (zeros skipped): at most that many IRRs.

    >>> sign_changes(np.array([[-1.0, 0.0, 2.0, -1.0], [1.0, 2.0, 0.0, 0.0]])).tolist()
    [2, 0]
    """
    c = _periods(flows, by_period)
    last = np.zeros(c.shape[1])
    count = np.zeros(c.shape[1], dtype=np.int64)
    for t in range(len(c)):
        s = np.sign(c[t])
        count += (s * last) < 0
        np.copyto(last, s, where=s != 0)
    return count


def _root_bound(c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For rows whose flows ``c`` (T, rows) change sign several times: a bound on the number of
    roots of NPV in x = 1 / (1 + r) > 0, and whether the first and last non-zero flows differ in
    sign (then the number of roots is odd, else even). On 0 < x < 1, NPV / (1 - x) is the power
    series of the running sums S_t (S_(T-1) from then on), so by Descartes' rule for power series
    it has at most as many roots as the running sums change sign (the criterion of Norstrom,
    1972); on x > 1 likewise the running sums from the last period back; x = 1 is a root where
    the sum is 0. A running sum within rounding of 0 (4 T eps x the running sum of |flows|) could
    have either sign: the row's bound is then the number of periods (nothing proven)."""
    limit = 4.0 * len(c) * np.finfo(float).eps
    bound = np.zeros(c.shape[1], dtype=np.int64)
    unsure = np.zeros(c.shape[1], dtype=bool)
    for f in (c, c[::-1]):
        sums, size = np.cumsum(f, axis=0), np.cumsum(np.abs(f), axis=0)
        near = np.abs(sums) <= limit * size
        unsure |= (near & (size > 0)).any(axis=0)
        bound += sign_changes(np.where(near, 0.0, sums), by_period=True)
    bound[unsure] = len(c)
    nonzero = c != 0
    first = c[np.argmax(nonzero, axis=0), np.arange(c.shape[1])]
    last = c[len(c) - 1 - np.argmax(nonzero[::-1], axis=0), np.arange(c.shape[1])]
    return bound, (first > 0) != (last > 0)


def _periods(flows, by_period: bool) -> np.ndarray:
    """The flows period-major, (T, rows), contiguous."""
    f = np.asarray(flows, dtype=float)
    if f.ndim == 1:
        f = f.reshape(-1, 1) if by_period else f.reshape(1, -1)
    return f if by_period else np.ascontiguousarray(f.T)


# --- one sign change: one root, safeguarded Newton ---------------------------------------------


class _Runs(NamedTuple):
    """Periods whose flows equal the period before's in every row, as runs: ``starts`` and
    ``lengths`` of the runs, ``zero`` where a run's flows are all 0."""

    starts: list[int]
    lengths: list[int]
    zero: list[bool]


def _runs(c: np.ndarray) -> _Runs | None:
    """The runs of equal periods of ``c`` (T, rows) where evaluating NPV by runs takes fewer
    operations than period by period (by month: the months of an operating year), else None."""
    if len(c) < 8:
        return None
    new = np.ones(len(c), dtype=bool)
    new[1:] = (c[1:] != c[:-1]).any(axis=1)
    starts = np.flatnonzero(new)
    lengths = np.diff(np.append(starts, len(c)))
    if 6 * starts.size + 5 * int(lengths.max()) >= 3 * len(c):  # too few equal periods
        return None
    zero = [not c[t].any() for t in starts]
    return _Runs(starts.tolist(), lengths.tolist(), zero)


def _value(c: np.ndarray, r: np.ndarray, runs: _Runs | None = None) -> tuple[np.ndarray, np.ndarray]:
    """NPV of the period-major flows ``c`` (T, rows) at per-period rates ``r`` and its derivative
    in r, by Horner's rule in x = 1 / (1 + r); with ``runs`` (:func:`_runs`) a run of L equal
    flows v is one step: v (1 + x + .. + x^(L-1)) + x^L (the rest), with the derivative by the
    product rule (rows where that overflows are evaluated period by period, as without runs)."""
    x = 1.0 / (1.0 + r)
    if runs is not None:
        with np.errstate(over="ignore", invalid="ignore"):  # where it overflows: as without runs
            acc, d = _value_by_runs(c, x, runs)
        bad = ~np.isfinite(acc)
        if bad.any():
            acc[bad], d[bad] = _horner(c[:, bad], x[bad])
        return acc, -d * x * x
    acc, d = _horner(c, x)
    return acc, -d * x * x


def _horner(c: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The polynomial sum c_t x^t of each row and its derivative in x, period by period."""
    acc = c[-1].copy()
    d = np.zeros_like(acc)
    for t in range(len(c) - 2, -1, -1):
        d *= x
        d += acc
        acc *= x
        acc += c[t]
    return acc, d


def _value_by_runs(c: np.ndarray, x: np.ndarray, runs: _Runs) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_horner` by runs of equal periods: for each run length L the sum S_L = 1 + x + ..
    + x^(L-1) (Horner: S_(j+1) = 1 + x S_j, all terms positive for x > 0), its derivative and
    x^L, then one step per run."""
    longest = max(runs.lengths)
    need = set(runs.lengths)
    table: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = {}
    s, ds, p, before = np.ones_like(x), np.zeros_like(x), x, np.ones_like(x)  # S_1, S_1', x, x^0
    for j in range(2, longest + 1):
        ds = ds * x + s
        s = s * x + 1.0
        p, before = p * x, p
        if j in need:  # (S_j, S_j', x^j, j x^(j-1))
            table[j] = (s, ds, p, j * before)
    k = len(runs.starts) - 1
    first, length = runs.starts[k], runs.lengths[k]
    if length == 1:
        acc, d = c[first].copy(), np.zeros_like(x)
    else:
        acc, d = c[first] * table[length][0], c[first] * table[length][1]
    for k in range(len(runs.starts) - 2, -1, -1):
        first, length = runs.starts[k], runs.lengths[k]
        if length == 1:
            d *= x
            d += acc
            acc *= x
            acc += c[first]
            continue
        sl, dsl, pl, dpl = table[length]
        d = d * pl + acc * dpl
        acc = acc * pl
        if not runs.zero[k]:
            d += c[first] * dsl
            acc += c[first] * sl
    return acc, d


def _unique_root(c: np.ndarray, guess: np.ndarray, runs: _Runs | None = None) -> np.ndarray:
    """The per-period root in [LOW, HIGH] of rows with one sign change (NaN if it lies outside).

    With one sign change NPV has one root in (-100%, inf): above -100% NPV has the sign of the
    last non-zero flow, above the root the other sign. Newton's method from :func:`_start`, each
    step taken where it stays inside the bracket (after the first :data:`_FREE_STEPS` steps where
    it also at least halves the step before last, which bounds the steps), else bisection of the
    bracket in log(1 + r). A row is done once a Newton step is below 1e-8 x (1 + r) (the error
    after it is of the order of the step squared), its NPV is exactly 0 or its bracket has
    closed; a row done at an end of [LOW, HIGH] is checked there (its root may lie beyond). Rows
    are scaled to a largest flow of 1 (the roots are unchanged). ``c``: the flows, (T, rows);
    ``guess``: where to start if :func:`_start` cannot."""
    c = c * (1.0 / np.maximum(c.max(axis=0), -c.min(axis=0)))
    m = c.shape[1]
    nonzero = c != 0
    last = len(c) - 1 - np.argmax(nonzero[::-1], axis=0)  # the last non-zero flow's period
    up = c[last, np.arange(m)] > 0  # NPV > 0 between -100% and the root
    r = np.clip(_start(c, guess), LOW, HIGH)
    out = _newton(c, r, np.full(m, LOW), np.full(m, HIGH), up, runs)
    return _inside(c, up, out, runs)


def _newton(
    c: np.ndarray, r: np.ndarray, lo: np.ndarray, hi: np.ndarray, up: np.ndarray, runs: _Runs | None = None
) -> np.ndarray:
    """The root of each row's NPV in its bracket [lo, hi] (NPV > 0 at lo where ``up``, < 0
    elsewhere) by the safeguarded Newton's method of :func:`_unique_root`, from ``r``."""
    m = c.shape[1]
    idx = np.arange(m)
    out = np.full(m, np.nan)
    step = np.full(m, np.inf)
    older = step
    done = np.zeros(m, dtype=bool)
    for it in range(_MAX_STEPS):
        fr, dfr = _value(c, r, runs)
        below = (fr > 0) == up
        np.copyto(lo, r, where=below)
        np.copyto(hi, r, where=~below)
        with np.errstate(all="ignore"):
            new = r - fr / dfr
        newton = ((new > lo) & (new < hi)) | (new == r)  # (== r: a step below half an ulp)
        if it >= _FREE_STEPS:
            newton &= np.abs(new - r) <= 0.5 * np.abs(older)
        older, step = step, new - r
        finished = np.abs(step) <= 1e-8 * (1.0 + new)
        if not newton.all():  # bisect there; an exact 0 stays; a closed bracket is done
            exact = fr == 0
            np.copyto(new, -1.0 + np.sqrt((1.0 + lo) * (1.0 + hi)), where=~newton)
            np.copyto(new, r, where=exact)
            finished &= newton
            closed = hi - lo <= np.maximum(4e-16 * (1.0 + new), 4.0 * np.spacing(np.abs(new)))
            finished |= exact | closed
        np.copyto(new, r, where=done)
        done |= finished
        r = new
        left = done.size - np.count_nonzero(done)
        if left == 0:
            break
        if left < 0.5 * done.size:  # drop the finished rows
            out[idx[done]] = r[done]
            keep = ~done
            idx, c, lo, hi, r, up = idx[keep], c[:, keep], lo[keep], hi[keep], r[keep], up[keep]
            step, older, done = step[keep], older[keep], done[keep]
    out[idx[done]] = r[done]
    return out


def _inside(c: np.ndarray, up: np.ndarray, out: np.ndarray, runs: _Runs | None = None) -> np.ndarray:
    """The roots found at (or next to) an end of [LOW, HIGH] kept only where NPV does change sign
    between the ends; NaN where the root lies beyond them."""
    edge = np.flatnonzero((out - LOW <= 1e-6) | (out >= HIGH * (1.0 - 1e-6)))
    if edge.size:
        f_lo = _value(c[:, edge], np.full(edge.size, LOW), runs)[0]
        f_hi = _value(c[:, edge], np.full(edge.size, HIGH), runs)[0]
        inside = ((f_lo == 0) | ((f_lo > 0) == up[edge])) & ((f_hi == 0) | ((f_hi > 0) != up[edge]))
        out[edge[~inside]] = np.nan
    return out


def _start(c: np.ndarray, guess: np.ndarray) -> np.ndarray:
    """A first estimate of the root: the rate at which the inflows' total P, at their mean time
    tP, is worth the outflows' total N at theirs, tN: 1 + r = (P / N)^(1 / (tP - tN)) (exact for
    one outflow and one inflow); ``guess`` where that is not finite. N = P - the total and
    tN N = tP P - the time-weighted total, so one pass takes the inflows (two sums by BLAS)."""
    t = np.arange(len(c), dtype=float)
    pos = np.maximum(c, 0.0)
    p, tpp = pos.sum(axis=0), t @ pos
    n, tnn = p - c.sum(axis=0), tpp - t @ c
    with np.errstate(all="ignore"):
        r = (p / n) ** (1.0 / (tpp / p - tnn / n)) - 1.0
    return np.where(np.isfinite(r), r, guess)


# --- several sign changes: the root nearest the guess, bracketed on a grid ---------------------

#: the rates NPV is evaluated at to bracket the roots of rows with several sign changes
_GRID = np.unique(
    np.concatenate([-1.0 + np.geomspace(1e-9, 1.0, 200)[:-1], np.geomspace(1e-9, 1e6, 400), [0.0]])
)


@functools.lru_cache(maxsize=8)
def _grid_discount(periods: int) -> np.ndarray:
    """(1 + rate)^-t for the grid's rates (rows) and periods 0..periods - 1 (columns)."""
    with np.errstate(all="ignore"):
        return (1.0 + _GRID)[:, None] ** -np.arange(periods, dtype=float)[None, :]


def _nearest_root(f: np.ndarray, guess: np.ndarray, runs: _Runs | None = None) -> np.ndarray:
    """For rows with several sign changes: NPV on the grid of rates, each bracket solved, and
    of the roots the one nearest the guess (NaN: no root). Rates where a row's NPV overflows are
    left out of its brackets: they are the grid's lowest (a discount factor (1 + r)^-t only grows
    as r falls towards -100%), so the brackets are those between its finite values."""
    with np.errstate(all="ignore"):
        values = f @ _grid_discount(f.shape[1]).T
    values[~np.isfinite(values)] = np.nan
    return _bracketed(f, values, _GRID, guess, runs)


def _bracketed(
    f: np.ndarray, values: np.ndarray, grid: np.ndarray, guess: np.ndarray, runs: _Runs | None = None
) -> np.ndarray:
    """Every sign change of ``values`` (rows x rates on ``grid``) solved to its root within the
    bracket of the two rates (:func:`_newton`), and per row the root nearest its guess (NaN if
    none); a rate where NPV is exactly 0 is a root."""
    sign = np.sign(values)
    zr, zj = np.nonzero(sign == 0)
    cr, cj = np.nonzero(sign[:, :-1] * sign[:, 1:] < 0)
    lo, hi = grid[cj], grid[cj + 1]
    root = np.empty(0)
    if cr.size:
        c = f[cr] / np.abs(f[cr]).max(axis=1)[:, None]
        start = -1.0 + np.sqrt((1.0 + lo) * (1.0 + hi))
        root = _newton(np.ascontiguousarray(c.T), start, lo.copy(), hi.copy(), values[cr, cj] > 0, runs)
    row = np.concatenate([zr, cr])
    root = np.concatenate([grid[zj], root])
    out = np.full(len(f), np.nan)
    if row.size:
        order = np.lexsort((np.abs(root - guess[row]), row))
        first = np.unique(row[order], return_index=True)[1]
        out[row[order][first]] = root[order][first]
    return out
