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
year), the flows are held as runs of equal periods (:class:`Periodic`; the project's monthly
flows are built that way, :func:`gputco.udfs.project.project_flows`, and :func:`_runs` finds
them in a table), with at most one geometric term per row (a level-payment loan's interest); NPV,
IRR, payback and the lowest running sum are evaluated a run at a time (the geometric sum of the
run): the same polynomial, rounded differently, so results move in their last bits only.

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
from dataclasses import dataclass
from typing import Any

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
_FREE_STEPS = 4
#: a bisection moves 1 + r by at most this factor: a bracket that still reaches -100% or 1e6 (a
#: row's first steps) is closed in on from the rate reached, not halved in log(1 + r) from 1e-9
_REACH = 4.0


def npv(flows, rate, periods_per_year: int = 1, *, by_period: bool = False) -> np.ndarray:
    """NPV of each row at the annual ``rate`` (scalar or one per row), by Horner's rule.
    ``by_period``: ``flows`` is (T, rows), period-major (then no copy is made).

    >>> npv(np.array([[-100.0, 110.0]]), 0.1)
    array([0.])
    """
    c = _periods(flows, by_period)
    v = (1.0 + np.asarray(rate, dtype=float)) ** (-1.0 / periods_per_year)
    v = np.broadcast_to(v.reshape(-1) if v.ndim else v, c.shape[1:])
    if isinstance(c, Periodic):
        return c.value(v, slope=False)[0]
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
    if isinstance(c, Periodic):
        return c.payback() / periods_per_year
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
    runs = c if isinstance(c, Periodic) else _runs(c)  # what the NPV is evaluated on
    f = c if runs is None else runs
    n = c.shape[1]
    rate = np.full(n, np.nan)
    why = np.full(n, NO_ROOT, dtype=np.int8)
    # a run changes no sign but where its geometric term crosses its level: its ends stand for it
    changes, last_sign = _changes(_extremes(f))
    why[changes == 0] = NO_SIGN_CHANGE
    guess = np.where(_total(f) < 0, -0.5, 0.1)
    if periods_per_year != 1:
        guess = (1.0 + guess) ** (1.0 / periods_per_year) - 1.0
    one = changes == 1
    several = np.flatnonzero(changes > 1)
    if several.size:  # those with at most one root proven: none, or the one _unique_root finds
        table = _dense(f, several)
        bound, ends_differ, sides = _root_bound(table)
        one[several[(bound == 1) & ends_differ]] = True
        several, table, sides = several[(bound > 1)], table[:, bound > 1], sides[bound > 1]
    if one.all():
        rate = _unique_root(f, _prepared(f, guess, last_sign > 0))
    elif one.any():
        scale, up, start = _prepared(f, guess, last_sign > 0)  # every row's: what the flows hold
        rate[one] = _unique_root(_take(f, one), (scale[one], up[one], start[one]))
    if several.size:  # bracketed on the grid's rates where their roots may lie, solved at once
        parts = []
        for side in (ABOVE, BELOW, ABOVE | BELOW):
            at = np.flatnonzero(sides == side)
            for s in range(0, at.size, _GRID_BLOCK):
                parts.append(_grid_brackets(table[:, at[s : s + _GRID_BLOCK]], side, at[s : s + _GRID_BLOCK]))
        rate[several] = _nearest_root(f, several, guess[several], parts)
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
    return _changes(_extremes(c))[0]


def _changes(c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`sign_changes` of the table ``c`` (T, rows), and each row's last non-zero sign (+1,
    -1; 0 for a row of zeros)."""
    last = np.zeros(c.shape[1])
    count = np.zeros(c.shape[1], dtype=np.int64)
    for t in range(len(c)):
        s = np.sign(c[t])
        count += (s * last) < 0
        np.copyto(last, s, where=s != 0)
    return count, last


def _root_bound(c: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For rows whose flows ``c`` (T, rows) change sign several times: a bound on the number of
    roots of NPV in x = 1 / (1 + r) > 0, whether the first and last non-zero flows differ in
    sign (then the number of roots is odd, else even), and the sides of 0 where a root may lie
    (:data:`ABOVE`: a rate > 0, :data:`BELOW`: a rate < 0; a root at 0 is on both). On 0 < x <
    1, NPV / (1 - x) is the power series of the running sums S_t (S_(T-1) from then on), so by
    Descartes' rule for power series it has at most as many roots as the running sums change
    sign (the criterion of Norstrom, 1972): none there, no root above 0; on x > 1 likewise the
    running sums from the last period back, for the rates below 0; x = 1 is a root where
    the sum is 0. The sums from the end are the total less those from period 0, each within 2 T
    eps x the sum of |flows| of its exact value (recursive summation): a sum within 4 T eps x
    that of 0 could have either sign, and the row's bound is then the number of periods (nothing
    proven)."""
    periods, m = c.shape
    limit = 4.0 * periods * np.finfo(float).eps
    nonzero = c != 0
    first_at = np.argmax(nonzero, axis=0)
    last_at = periods - 1 - np.argmax(nonzero[::-1], axis=0)
    size = np.abs(c).sum(axis=0)  # the sum of |flows|: no running sum of them from either end is larger
    sums = _running(c)  # from period 0: S_t
    back = np.empty_like(sums)  # from period t to the end: the total - S_(t-1)
    back[0] = sums[-1]
    np.subtract(sums[-1], sums[:-1], out=back[1:])
    t = np.arange(periods)[:, None]
    bound = np.zeros(m, dtype=np.int64)
    unsure = np.zeros(m, dtype=bool)
    sides = np.zeros(m, dtype=np.int8)
    for side, run, flowing in ((ABOVE, sums, t >= first_at), (BELOW, back, t <= last_at)):
        # within rounding of 0 (each sum's error is below 2 T eps x the sum of |flows|) once a flow
        # is in it; before that (after it, from the end) a sum is exactly 0 and counts no change
        unsure |= ((np.abs(run) < limit * size) & flowing).any(axis=0)
        sign = np.sign(run)
        changes = np.count_nonzero(sign[1:] * sign[:-1] < 0, axis=0)
        bound += changes
        sides[changes > 0] |= side
    bound[unsure] = periods
    sides[unsure] = ABOVE | BELOW
    first = c[first_at, np.arange(m)]
    last = c[last_at, np.arange(m)]
    return bound, (first > 0) != (last > 0), sides


def _running(c: np.ndarray) -> np.ndarray:
    """The running sums of ``c`` (T, rows) from period 0, as ``np.cumsum(c, axis=0)`` to the bit
    (a period at a time: numpy's cumsum down the first axis of a C-ordered table is far slower)."""
    out = np.empty_like(c)
    out[0] = c[0]
    for t in range(1, len(c)):
        np.add(out[t - 1], c[t], out=out[t])
    return out


def _periods(flows, by_period: bool) -> np.ndarray | Periodic:
    """The flows period-major, (T, rows), contiguous (a :class:`Periodic` as it is)."""
    if isinstance(flows, Periodic):
        return flows.values if flows.plain else flows
    f = np.asarray(flows, dtype=float)
    if f.ndim == 1:
        f = f.reshape(-1, 1) if by_period else f.reshape(1, -1)
    return f if by_period else np.ascontiguousarray(f.T)


# --- flows held as runs of equal periods -------------------------------------------------------


@dataclass
class Periodic:
    """Flows of rows, period-major, held as runs of equal periods: run k covers the periods
    ``starts[k] .. starts[k] + lengths[k] - 1`` (from period 0, one after the other) and each row's
    flow is ``values[k]`` in every one of them; with ``geometric`` = (coef, first, count, ratio),
    each row's flow in periods ``first + j``, j = 0 .. count - 1, has -coef x ratio^j more (a
    level-payment loan's interest: a run lies wholly inside or outside each row's span). It
    stands for its table, (periods, rows): ``shape``, indexing and ``np.asarray`` give the table."""

    values: np.ndarray
    lengths: Any
    geometric: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None

    #: runs whose flows are 0 in every row (skipped by NPV); None: found from the values
    zero: Any = None

    def __post_init__(self) -> None:
        self.lengths = np.asarray(self.lengths, dtype=np.int64)
        self.starts = np.concatenate([[0], np.cumsum(self.lengths)[:-1]]).astype(np.int64)
        if self.zero is None:
            self.zero = (~self.values.any(axis=1)).tolist()
        self._ends: tuple | None = None
        self._extremes: np.ndarray | None = None
        self._shared: tuple | None = None
        self._source: tuple | None = None  # (the flows these rows were taken from, the rows)

    @property
    def shape(self) -> tuple[int, int]:
        return int(self.lengths.sum()), self.values.shape[1]

    @property
    def plain(self) -> bool:
        """Every run one period long and no geometric term: ``values`` is the table."""
        return self.geometric is None and bool(np.all(self.lengths == 1))

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        return self.dense() if dtype is None else self.dense().astype(dtype)

    def __getitem__(self, key):
        return self.dense()[key]

    def dense(self, rows=None) -> np.ndarray:
        """The table (periods, rows) of all rows or of ``rows``."""
        v = self.values if rows is None else self.values[:, rows]
        out = np.repeat(v, self.lengths, axis=0)
        if self.geometric is not None:
            coef, first, count, ratio = (g if rows is None else g[rows] for g in self.geometric)
            j = np.arange(len(out))[:, None] - first
            inside = (j >= 0) & (j < count)
            one = _common(ratio)
            if isinstance(one, float):  # one ratio: its powers once, by period
                power = (one ** np.arange(-int(first.max()), len(out), dtype=float))[j + int(first.max())]
            else:
                power = ratio ** np.where(inside, j, 0)
            out -= np.where(inside, coef * power, 0.0)
        return out

    def take(self, rows) -> Periodic:
        """The flows of ``rows``: the loan's terms already worked out, and the runs' ends and
        geometric terms taken from these flows' when first asked for (not copied unless used)."""
        geo = None if self.geometric is None else tuple(g[rows] for g in self.geometric)
        out = Periodic(self.values[:, rows], self.lengths, geo, self.zero)
        if self._shared is not None:
            out._shared = tuple(g[rows] if isinstance(g, np.ndarray) else g for g in self._shared)
        source = self._source
        if self._ends is None and self._extremes is None and source is not None:  # its source's
            out._source = (source[0], _indices(source[1])[rows])
        else:
            out._source = (self, rows)
        return out

    def scaled(self, factor: np.ndarray, divide: bool = False) -> Periodic:
        """The flows x ``factor`` (per row), or / it."""
        op = np.divide if divide else np.multiply
        geo = self.geometric
        if geo is not None:
            geo = (op(geo[0], factor), *geo[1:])
        return Periodic(op(self.values, factor), self.lengths, geo, self.zero)

    def _terms(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The geometric term of each run and row (runs, rows): in the run's first period, in its
        last, and summed over it (0 where the run is outside the row's span)."""
        source = self._source
        if self._ends is None and source is not None and source[0]._ends is not None:
            self._ends = tuple(e[:, source[1]] for e in source[0]._ends)
        if self._ends is None:
            assert self.geometric is not None
            coef, first, count, ratio = self.geometric
            at_first, at_last, total = (np.empty_like(self.values) for _ in range(3))  # each run set
            power = _common(ratio) ** (-first.astype(float))  # ratio^(period - first) at a run's start
            lengths = self.lengths.tolist()
            one = _common(ratio)
            by = {n: (one ** (n - 1), one**n, _level_sum(one, n)) for n in set(lengths)}
            for k, (p0, length) in enumerate(zip(self.starts.tolist(), lengths, strict=True)):
                inside = (first <= p0) & (p0 < first + count)
                g = np.where(inside, coef * power, 0.0)
                last_power, run_power, run_sum = by[length]
                at_first[k] = g
                at_last[k] = g * last_power
                total[k] = g * run_sum
                power = power * run_power
            self._ends = (at_first, at_last, total)
        return self._ends

    def ends(self) -> np.ndarray:
        """Each run's flows in its first and last periods, (2 runs, rows): within a run the flow is
        monotone, so these hold its extremes and its sign changes."""
        if self.geometric is None:
            return self.values
        source = self._source
        if self._extremes is None and source is not None and source[0]._extremes is not None:
            self._extremes = source[0]._extremes[:, source[1]]
        if self._extremes is None:
            at_first, at_last, _ = self._terms()
            self._extremes = np.empty((2 * len(self.values), self.values.shape[1]))
            self._extremes[0::2] = self.values - at_first
            self._extremes[1::2] = self.values - at_last
        return self._extremes

    def total(self) -> np.ndarray:
        """The sum of each row's flows."""
        out = self.lengths.astype(float) @ self.values
        if self.geometric is not None:
            out -= self._terms()[2].sum(axis=0)
        return out

    def value(self, x: np.ndarray, slope: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
        """The polynomial sum flow_t x^t of each row and its derivative in x (x per row; None
        without ``slope``: the sum alone, the same value)."""
        acc, d = _value_by_runs(self, x, slope)
        if self.geometric is not None:
            if self._shared is None:  # a loan's terms as one number where every row has the same
                coef, first, count, ratio = self.geometric
                self._shared = (coef, _common(first), _common(count.astype(float)), _common(ratio))
            g, dg = _geometric_value(self._shared, x, slope)
            acc -= g
            if d is not None and dg is not None:  # (with slope)
                d -= dg
        return acc, d

    def payback(self) -> np.ndarray:
        """:func:`payback` in periods, a run at a time (the running sum is linear within a run)."""
        if self.geometric is not None:
            return payback(self.dense(), by_period=True)
        cum = np.zeros(self.values.shape[1])
        out = np.full(cum.size, np.nan)
        for p0, length, v in zip(self.starts.tolist(), self.lengths.tolist(), self.values, strict=True):
            after = cum + v if length == 1 else cum + length * v
            cross = (cum < 0) & (after >= 0)
            if cross.any():
                cross &= np.isnan(out)
                c, f = cum[cross], v[cross]
                if length == 1:
                    out[cross] = p0 - 1.0 - c / f
                else:  # the first period j (1..length) of the run where the sum is >= 0
                    j = np.clip(np.ceil(-c / f), 1, length)
                    j = np.where(c + j * f < 0, j + 1, j)
                    j = np.where((j > 1) & (c + (j - 1) * f >= 0), j - 1, j)
                    out[cross] = p0 + j - 2.0 - (c + (j - 1) * f) / f
            cum = after
        return out

    def lowest_sum(self) -> np.ndarray:
        """The lowest running sum of each row's flows: within a run the flow is monotone and
        falling where it has a geometric term (coef >= 0), so the running sum is lowest at an end
        of the run."""
        cum = np.zeros(self.values.shape[1])
        low = np.full(cum.size, np.inf)
        terms = self._terms() if self.geometric is not None else None
        for k, (length, v) in enumerate(zip(self.lengths.tolist(), self.values, strict=True)):
            if terms is None:
                first, total = cum + v, cum + length * v
            else:
                first, total = cum + v - terms[0][k], cum + length * v - terms[2][k]
            np.minimum(low, first, out=low)
            np.minimum(low, total, out=low)
            cum = total
        return low


def _indices(rows) -> np.ndarray:
    """Rows given as a mask or as indices, as indices."""
    rows = np.asarray(rows)
    return np.flatnonzero(rows) if rows.dtype == bool else rows


def _common(x: np.ndarray) -> np.ndarray | float:
    """``x`` as one number where every row has the same (a loan's rate): its powers once."""
    return float(x[0]) if x.size and x.min() == x.max() else x


def _level_sum(y: np.ndarray | float, m: np.ndarray | int) -> np.ndarray:
    """1 + y + .. + y^(m - 1) (m where y = 1)."""
    with np.errstate(all="ignore"):
        u = y - 1.0
        s = np.expm1(m * np.log1p(u)) / u
    return np.where(u == 0, np.asarray(m, dtype=float), s)


def _geometric_value(geo, x: np.ndarray, slope: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
    """sum over j < count of coef ratio^j x^(first + j) = coef x^first S(ratio x), S(y) = 1 + y +
    .. + y^(count - 1) = (y^count - 1) / (y - 1), and its derivative in x (None without
    ``slope``); ``geo``: (coef, first, count as float, ratio), each per row or one number that
    every row shares."""
    coef, first, m, ratio = geo
    with np.errstate(all="ignore"):
        lx = np.log(x)
        ly = np.log(ratio) + lx
        u = np.expm1(ly)  # y - 1
        e = np.expm1(m * ly)  # y^m - 1
        s = e / u
        near = np.abs(u) < 1e-10  # S and S' by their series about y = 1 (0 / 0 at y = 1)
        some = bool(near.any())
        if some:
            s = np.where(near, m + m * (m - 1.0) / 2.0 * u, s)
        xf = np.exp(first * lx)  # x^first
        value = coef * xf * s
        if not slope:
            return value, None
        ds = (m * (e + 1.0) / (u + 1.0) * u - e) / (u * u)  # dS/dy
        if some:
            ds = np.where(near, m * (m - 1.0) / 2.0 + m * (m - 1.0) * (m - 2.0) / 3.0 * u, ds)
        deriv = coef * xf * (first / x * s + ratio * ds)
    return value, deriv


def stack(parts: list[tuple[np.ndarray, Periodic]], n: int) -> Periodic:
    """The flows of groups of rows (each: the rows, among ``n``, and their :class:`Periodic`
    flows) as one: the runs split wherever a group's do; a group's shorter table ends in zeros."""
    periods = max(p.shape[0] for _, p in parts)
    bounds = {0}
    for _, p in parts:
        bounds.update(p.starts.tolist())
        bounds.add(p.shape[0])
    starts = np.array(sorted(b for b in bounds if b < periods))
    values = np.zeros((starts.size, n))
    geo = None
    if any(p.geometric is not None for _, p in parts):
        geo = (np.zeros(n), np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64), np.ones(n))
    for rows, p in parts:
        k = np.searchsorted(p.starts, starts, side="right") - 1
        values[:, rows] = np.where((starts < p.shape[0])[:, None], p.values[k], 0.0)
        if geo is not None and p.geometric is not None:
            for whole, part in zip(geo, p.geometric, strict=True):
                whole[rows] = part
    return Periodic(values, np.diff(np.append(starts, periods)), geo)


def _runs(c: np.ndarray) -> Periodic | None:
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
    return Periodic(c[starts], lengths)


def _take(f: np.ndarray | Periodic, rows) -> np.ndarray | Periodic:
    return f.take(rows) if isinstance(f, Periodic) else f[:, rows]


def _dense(f: np.ndarray | Periodic, rows) -> np.ndarray:
    return f.dense(rows) if isinstance(f, Periodic) else f[:, rows]


def _total(f: np.ndarray | Periodic) -> np.ndarray:
    return f.total() if isinstance(f, Periodic) else f.sum(axis=0)


def _extremes(f: np.ndarray | Periodic) -> np.ndarray:
    """Per row, the flows where they are largest and smallest stand: the table, or the runs' ends."""
    return f.ends() if isinstance(f, Periodic) else f


def lowest_sum(flows, *, by_period: bool = False) -> np.ndarray:
    """The lowest running sum of each row (the most negative cumulative flow, or the first flow).

    >>> lowest_sum(np.array([[-10.0, 4.0, -3.0, 20.0]])).tolist()
    [-10.0]
    """
    c = _periods(flows, by_period)
    return c.lowest_sum() if isinstance(c, Periodic) else np.cumsum(c, axis=0).min(axis=0)


# --- one sign change: one root, safeguarded Newton ---------------------------------------------


def _value(c: np.ndarray | Periodic, r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """NPV of the period-major flows ``c`` (T, rows) at per-period rates ``r`` and its derivative
    in r, by Horner's rule in x = 1 / (1 + r); for :class:`Periodic` flows a run of L equal
    flows v is one step: v (1 + x + .. + x^(L-1)) + x^L (the rest), with the derivative by the
    product rule (rows where that overflows are evaluated period by period, as the table)."""
    x = 1.0 / (1.0 + r)
    if isinstance(c, Periodic):
        with np.errstate(over="ignore", invalid="ignore"):  # where it overflows: as the table
            acc, d = c.value(x)
        assert d is not None  # (with its slope)
        bad = ~np.isfinite(acc)
        if bad.any():
            acc[bad], d[bad] = _horner(c.dense(bad), x[bad])
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


def _value_by_runs(runs: Periodic, x: np.ndarray, slope: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
    """:func:`_horner` by runs of equal periods: for each run length L the sum S_L = 1 + x + ..
    + x^(L-1) (Horner: S_(j+1) = 1 + x S_j, all terms positive for x > 0), its derivative and
    x^L, then one step per run; without ``slope`` the sum alone (the same value; None for the
    derivative, whose operations are left out)."""
    lengths = runs.lengths.tolist()
    c = runs.values
    m = c.shape[1]
    if np.shape(x) != (m,):
        x = np.broadcast_to(x, (m,))
    longest = max(lengths)
    need = set(lengths)
    table: dict[int, tuple] = {}
    s, ds, p = np.ones(m), np.zeros(m), x  # S_1, S_1', x
    tmp = np.empty(m)  # in place, the same operations: fewer and warmer arrays
    for j in range(2, longest + 1):
        if slope:
            ds *= x
            ds += s
        s *= x
        s += 1.0
        p, before = p * x, p
        if j in need:  # (S_j, S_j', x^j, j x^(j-1))
            table[j] = (s.copy(), ds.copy(), p, j * before) if slope else (s.copy(), None, p, None)
    k = len(lengths) - 1
    d: np.ndarray | None
    if lengths[k] == 1:
        acc, d = c[k].copy(), np.zeros(m) if slope else None
    else:
        acc, d = c[k] * table[lengths[k]][0], c[k] * table[lengths[k]][1] if slope else None
    for k in range(len(lengths) - 2, -1, -1):
        length = lengths[k]
        if length == 1:
            if slope:
                d *= x
                d += acc
            acc *= x
            acc += c[k]
            continue
        sl, dsl, pl, dpl = table[length]
        if slope:
            d *= pl
            d += np.multiply(acc, dpl, out=tmp)
        acc *= pl
        if not runs.zero[k]:
            if slope:
                d += np.multiply(c[k], dsl, out=tmp)
            acc += np.multiply(c[k], sl, out=tmp)
    return acc, d if slope else None


def _unique_root(c: np.ndarray | Periodic, prepared: tuple) -> np.ndarray:
    """The per-period root in [LOW, HIGH] of rows with one sign change (NaN if it lies outside).

    With one sign change NPV has one root in (-100%, inf): above -100% NPV has the sign of the
    last non-zero flow, above the root the other sign. Newton's method from :func:`_start`, each
    step taken where it stays inside the bracket (after the first :data:`_FREE_STEPS` steps where
    it also at least halves the step before last, which bounds the steps), else bisection of the
    bracket in log(1 + r). A row is done once a Newton step is below 1e-8 x (1 + r) (the error
    after it is of the order of the step squared), its NPV is exactly 0 or its bracket has
    closed; a row done at an end of [LOW, HIGH] is checked there (its root may lie beyond). Rows
    are scaled to a largest flow of 1 (the roots are unchanged). ``c``: the flows, (T, rows);
    ``prepared``: :func:`_prepared` of these rows (their scale, sign and start)."""
    scale, up, r = prepared
    c = c.scaled(scale) if isinstance(c, Periodic) else c * scale
    m = up.size
    out = _newton(c, r, np.full(m, LOW), np.full(m, HIGH), up)
    return _inside(c, up, out)


def _prepared(
    c: np.ndarray | Periodic, guess: np.ndarray, up: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per row of the flows ``c``: the scale to a largest flow of 1, whether NPV > 0 between
    -100% and the root (``up``: the last non-zero flow is positive, as :func:`_changes` tells),
    and :func:`_start` within [LOW, HIGH] (``guess`` where it cannot); each row's own, whatever
    the rows beside it."""
    ends = _extremes(c)  # a positive scale keeps every sign: the unscaled ends tell them
    with np.errstate(divide="ignore"):  # (a row of zeros has no root to scale for)
        scale = 1.0 / np.maximum(ends.max(axis=0), -ends.min(axis=0))
    return scale, up, np.clip(_start(c, guess), LOW, HIGH)  # (a row's scale does not move its start)


def _newton(
    c: np.ndarray | Periodic, r: np.ndarray, lo: np.ndarray, hi: np.ndarray, up: np.ndarray
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
        fr, dfr = _value(c, r)
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
            mid = np.sqrt((1.0 + lo) * (1.0 + hi))  # the bracket's middle in log(1 + r), at most
            np.clip(mid, (1.0 + r) / _REACH, (1.0 + r) * _REACH, out=mid)  # _REACH from r
            np.copyto(new, mid - 1.0, where=~newton)
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
        if left < 0.8 * done.size:  # drop the finished rows (each row on its own: the same roots)
            out[idx[done]] = r[done]
            keep = ~done
            idx, c, lo, hi, r, up = idx[keep], _take(c, keep), lo[keep], hi[keep], r[keep], up[keep]
            step, older, done = step[keep], older[keep], done[keep]
    out[idx[done]] = r[done]
    return out


def _inside(c: np.ndarray | Periodic, up: np.ndarray, out: np.ndarray) -> np.ndarray:
    """The roots found at (or next to) an end of [LOW, HIGH] kept only where NPV does change sign
    between the ends; NaN where the root lies beyond them."""
    edge = np.flatnonzero((out - LOW <= 1e-6) | (out >= HIGH * (1.0 - 1e-6)))
    if edge.size:
        f_lo = _value(_take(c, edge), np.full(edge.size, LOW))[0]
        f_hi = _value(_take(c, edge), np.full(edge.size, HIGH))[0]
        inside = ((f_lo == 0) | ((f_lo > 0) == up[edge])) & ((f_hi == 0) | ((f_hi > 0) != up[edge]))
        out[edge[~inside]] = np.nan
    return out


def _start(c: np.ndarray | Periodic, guess: np.ndarray) -> np.ndarray:
    """A first estimate of the root: with rho = log(1 + r), the inflows' total P at the mean time
    tP and variance vP of their periods is worth about P exp(-tP rho + vP rho^2 / 2) (the first
    two cumulants of their times), the outflows' N likewise; the root of the difference of the
    logs, rho = 2 c / (b + sqrt(b^2 - 4 a c)) with a = (vP - vN) / 2, b = tP - tN, c = log(P / N)
    (at a = 0: 1 + r = (P / N)^(1 / (tP - tN)), exact for one outflow and one inflow); ``guess``
    where that is not finite. The outflows' sums are the inflows' less the flows' (three sums
    by BLAS each); for :class:`Periodic` flows a run's periods count at its mean flow."""
    if isinstance(c, Periodic):
        weight = c.lengths.astype(float)
        v = c.values if c.geometric is None else c.values - c._terms()[2] / weight[:, None]  # means
        t = c.starts + (weight - 1.0) / 2.0  # the runs' mean periods
        moments = np.stack([weight, weight * t, weight * (t * t + (weight * weight - 1.0) / 12.0)])
    else:
        v = c
        t = np.arange(len(c), dtype=float)
        moments = np.stack([np.ones_like(t), t, t * t])
    p, tpp, ttp = moments @ np.maximum(v, 0.0)
    n, tnn, ttn = np.array([p, tpp, ttp]) - moments @ v
    with np.errstate(all="ignore"):
        mp, mn = tpp / p, tnn / n
        a = 0.5 * ((ttp / p - mp * mp) - (ttn / n - mn * mn))
        b, lc = mp - mn, np.log(p / n)
        root = np.sqrt(b * b - 4.0 * a * lc)
        rho = np.where(np.isfinite(root), 2.0 * lc / (b + np.copysign(root, b)), lc / b)
        r = np.expm1(rho)
        r = np.clip(np.where(np.isfinite(r), r, guess), LOW, HIGH)  # a finite log below
    # log(1 + r) to single precision: BLAS sums a column in an order that depends on the block
    # beside it, and Newton's last step keeps a trace of its start; rounded, a row's root is the
    # same whichever rows are solved with it (the start's own error is far above 1e-7)
    return np.expm1(np.log1p(r).astype(np.float32).astype(float))


# --- several sign changes: the root nearest the guess, bracketed on a grid ---------------------

#: the rates NPV is evaluated at to bracket the roots of rows with several sign changes
_GRID = np.unique(
    np.concatenate([-1.0 + np.geomspace(1e-9, 1.0, 200)[:-1], np.geomspace(1e-9, 1e6, 400), [0.0]])
)
#: the sides of 0 a root may lie on (:func:`_root_bound`), and the grid's rates on each (0 on both)
ABOVE, BELOW = 1, 2
_GRIDS = {ABOVE: _GRID[_GRID >= 0.0], BELOW: _GRID[_GRID <= 0.0], ABOVE | BELOW: _GRID}


@functools.lru_cache(maxsize=8)
def _grid_discount(periods: int, side: int = ABOVE | BELOW) -> np.ndarray:
    """(1 + rate)^-t for the grid's rates on ``side`` (rows) and periods 0..periods - 1 (columns)."""
    with np.errstate(all="ignore"):
        return (1.0 + _GRIDS[side])[:, None] ** -np.arange(periods, dtype=float)[None, :]


def _grid_brackets(table: np.ndarray, side: int, rows: np.ndarray) -> tuple[np.ndarray, ...]:
    """For ``rows`` (of those :func:`_nearest_root` solves) whose flows are ``table`` (T, rows):
    NPV on the grid's rates on ``side`` of 0 (all of them for both sides; where the rows' roots
    are proven to lie on one side, :func:`_root_bound`, only those), and from it the rows and
    rates where NPV is exactly 0 (roots) and the rows, brackets and signs (NPV > 0 at the
    bracket's low end) of every sign change between neighbouring rates. Rates where a row's NPV
    overflows are left out of its brackets: they are the grid's lowest (a discount factor
    (1 + r)^-t only grows as r falls towards -100%), so the brackets are those between its
    finite values."""
    grid = _GRIDS[side]
    with np.errstate(all="ignore"):
        values = np.ascontiguousarray(table.T) @ _grid_discount(len(table), side).T
    values[~np.isfinite(values)] = np.nan
    sign = np.sign(values)
    zr, zj = np.nonzero(sign == 0)
    cr, cj = np.nonzero(sign[:, :-1] * sign[:, 1:] < 0)
    return rows[zr], grid[zj], rows[cr], grid[cj], grid[cj + 1], values[cr, cj] > 0


def _nearest_root(
    f: np.ndarray | Periodic, several: np.ndarray, guess: np.ndarray, parts: list
) -> np.ndarray:
    """For the rows ``several`` of ``f`` (several sign changes; ``guess``, one per row): every
    bracket of ``parts`` (:func:`_grid_brackets`, rows numbered within ``several``) solved to its
    root (:func:`_newton`, all at once), and per row the root nearest its guess (NaN if none); a
    rate where NPV is exactly 0 is a root."""
    zr, zroot, cr, lo, hi, up = (np.concatenate(x) for x in zip(*parts, strict=True))
    root = np.empty(0)
    if cr.size:
        c = _take(f, several[cr])
        scale = np.abs(_extremes(c)).max(axis=0)
        c = c.scaled(scale, divide=True) if isinstance(c, Periodic) else c / scale
        start = -1.0 + np.sqrt((1.0 + lo) * (1.0 + hi))
        root = _newton(c, start, lo.copy(), hi.copy(), up)
    row = np.concatenate([zr, cr])
    root = np.concatenate([zroot, root])
    out = np.full(several.size, np.nan)
    if row.size:
        order = np.lexsort((np.abs(root - guess[row]), row))
        first = np.unique(row[order], return_index=True)[1]
        out[row[order][first]] = root[order][first]
    return out
