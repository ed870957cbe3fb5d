"""Kernels over rows of cash flows: NPV, IRR and payback of many scenarios at once.

A row is the net cash flow of one scenario in periods 0, 1, ..., T - 1 (years, or months with
``periods_per_year=12``), end-of-period, signed as cash; ``flows`` is an array (rows, T), or with
``by_period=True`` (T, rows), period-major, as the kernels work (no copy). Every kernel is
written once and works on one row at a time (:mod:`gputco.udfs._flowkernels`, run as Python
for small calls and compiled for batch-sized ones: :mod:`gputco.udfs._jit`; Horner's rule and
running sums, O(T) per pass), so time is linear in the periods, memory is the rows' results,
and a row's results are its own, whatever rows are passed with it.

- NPV at an annual ``rate``: sum of flow_t x (1 + rate)^(-t / periods_per_year) (Excel's
  ``=flow_0 + NPV(rate, flow_1..)`` for years).
- IRR: the annual effective rate at which NPV = 0, (1 + r)^periods_per_year - 1 for the per-period
  root r in [-1 + 1e-9, 1e6]. Rows whose flows change sign once have exactly one root (Descartes'
  rule of signs in x = 1 / (1 + r)), found by a safeguarded Newton/bisection per row. Rows whose
  flows change sign several times can have several roots: the one nearest the starting guess is
  taken (-50% a year when the undiscounted sum is a loss, else 10%, as a rate per period: the
  guess the workbook's ``IRR`` is given), with roots bracketed on a fixed grid of rates, and two
  close roots between two of its rates found where NPV dips between them (:func:`_dips`), except
  where the running sums prove at most one root (:func:`root_bound`): then none, or the one. So
  "no IRR" only where NPV neither changes sign nor touches 0 at any rate in the range.
- Payback: the first time the cumulative flow turns >= 0, linear within the period, in periods.

Where many periods repeat the one before in every row (by month: the months of an operating
year), the flows are held as runs of equal periods (:class:`Periodic`; the project's monthly
flows are built that way, :func:`gputco.udfs.project.project_flows`, and :func:`_runs` finds
them in a table), with at most one geometric term per row (a level-payment loan's interest); NPV
and IRR are evaluated a run at a time (the geometric sum of the run): the same polynomial, rounded
differently, so results move in their last bits only.

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

# the codes shared with the kernels; LOW and HIGH (the IRR's range) are part of this module's face
from . import _flowkernels, _jit
from ._flowcodes import ABOVE, BELOW, FOUND, NO_ROOT, NO_SIGN_CHANGE
from ._flowcodes import HIGH as HIGH
from ._flowcodes import LOW as LOW

REASONS = {
    NO_SIGN_CHANGE: "no IRR: the cash flows never change sign",
    NO_ROOT: "no IRR: NPV does not reach 0 at any rate above -100%",
}
#: rows whose flows change sign several times are bracketed on this many rows at once
_GRID_BLOCK = 1024
#: NPV touches 0 (a double root, no sign change) where its least |NPV| in a dip is at most this
#: share of the sum of its discounted |flows| (their rounding is about periods x 2.2e-16 of it)
TOUCH = 1e-12


def _kernels(work: int) -> Any:
    """The kernels for a call of ``work`` (rows x runs of periods): interpreted for small work,
    compiled for batch-sized work (:func:`gputco.udfs._jit.kernels`, the one place that chooses)."""
    return _jit.kernels(_flowkernels, work)


def _arrays(c: np.ndarray | Periodic, by_runs: bool = True) -> tuple[np.ndarray, ...]:
    """The flows ``c`` (T, rows) as the kernels take them: the runs' values (runs, rows), their
    lengths and first periods, and per row the geometric term's coef, first, count and ratio
    (count 0 where there is none). A table is taken in runs where :func:`_runs` finds them (with
    ``by_runs``: for the kernels that evaluate a run at once)."""
    p = c if isinstance(c, Periodic) else (_runs(c) if by_runs else None)
    if p is None:
        table = np.asarray(c)
        p = Periodic(table, np.ones(len(table), dtype=np.int64))
    m = p.shape[1]
    geo: tuple[np.ndarray, ...]
    if p.geometric is None:
        geo = (np.zeros(m), np.zeros(m, dtype=np.int64), np.zeros(m, dtype=np.int64), np.ones(m))
    else:
        geo = tuple(
            np.ascontiguousarray(np.broadcast_to(g, (m,)), dtype=t)
            for g, t in zip(p.geometric, (float, np.int64, np.int64, float), strict=True)
        )
    return (np.ascontiguousarray(p.values, dtype=float), p.lengths, p.starts, *geo)


def npv(flows, rate, periods_per_year: int = 1, *, by_period: bool = False) -> np.ndarray:
    """NPV of each row at the annual ``rate`` (scalar or one per row), by Horner's rule.
    ``by_period``: ``flows`` is (T, rows), period-major (then no copy is made).

    >>> npv(np.array([[-100.0, 110.0]]), 0.1)
    array([0.])
    """
    c = _periods(flows, by_period)
    v = (1.0 + np.asarray(rate, dtype=float)) ** (-1.0 / periods_per_year)
    x = np.ascontiguousarray(np.broadcast_to(v.reshape(-1) if v.ndim else v, c.shape[1:]))
    out = np.empty(c.shape[1])
    arrays = _arrays(c)
    _kernels(arrays[0].size).npv_rows(*arrays, x, out)
    return out


def payback(flows, periods_per_year: int = 1, *, by_period: bool = False) -> np.ndarray:
    """Periods until the running sum of each row first turns >= 0 from below, linear within the
    period (then / periods_per_year: years); NaN where it never does.

    >>> payback(np.array([[-10.0, 4.0, 4.0, 4.0], [5.0, -1.0, 1.0, 1.0]]))
    array([2.5, nan])
    """
    c = _periods(flows, by_period)
    out = np.empty(c.shape[1])
    arrays = _arrays(c, by_runs=False)
    _kernels(arrays[0].size).payback_rows(*arrays, out)
    return out / periods_per_year


def irr(flows, periods_per_year: int = 1, *, by_period: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The IRR of each row (annual effective) and why there is none (:data:`REASONS` codes,
    :data:`FOUND` where there is one; the rate is NaN there).

    One sign change: the one root, by a safeguarded Newton/bisection per row
    (:func:`gputco.udfs._flowkernels.irr_rows`). Several: none, or the one, where the running sums
    prove at most one root (:func:`root_bound`); else every root bracketed on the grid's rates
    (:func:`_grid_brackets`; two close roots between two rates where NPV dips between them,
    :func:`_dips`, and a root where it touches 0 within :data:`TOUCH`) and solved, and the one
    nearest the guess taken.

    >>> rate, why = irr(np.array([[-100.0, 50.0, 50.0, 50.0], [1.0, 1.0, 0.0, 0.0]]))
    >>> round(float(rate[0]), 9), why.tolist()
    (0.233751, [0, 1])
    """
    c = _periods(flows, by_period)
    arrays = _arrays(c)
    kernels = _kernels(arrays[0].size)
    n = c.shape[1]
    rate, guess = np.empty(n), np.empty(n)
    why, sides = np.empty(n, dtype=np.int8), np.empty(n, dtype=np.int8)
    kernels.irr_rows(*arrays, int(periods_per_year), rate, why, sides, guess)
    several = np.flatnonzero(why == kernels.GRID)
    if several.size:  # bracketed on the grid's rates where their roots may lie, solved at once
        table = c.dense(several) if isinstance(c, Periodic) else c[:, several]
        parts = []
        for side in (ABOVE, BELOW, ABOVE | BELOW):
            at = np.flatnonzero(sides[several] == side)
            for s in range(0, at.size, _GRID_BLOCK):
                parts.append(_grid_brackets(table[:, at[s : s + _GRID_BLOCK]], side, at[s : s + _GRID_BLOCK]))
        rate[several] = _nearest_root(arrays, several, guess[several], parts, table)
        why[several] = np.where(np.isfinite(rate[several]), FOUND, NO_ROOT)
    if periods_per_year != 1:
        rate = (1.0 + rate) ** periods_per_year - 1.0
    return rate, why


def sign_changes(flows, *, by_period: bool = False) -> np.ndarray:
    """How many times each row changes sign (zeros skipped): at most that many IRRs.

    >>> sign_changes(np.array([[-1.0, 0.0, 2.0, -1.0], [1.0, 2.0, 0.0, 0.0]])).tolist()
    [2, 0]
    """
    c = _periods(flows, by_period)
    out = np.empty(c.shape[1], dtype=np.int64)
    arrays = _arrays(c)
    _kernels(arrays[0].size).changes_rows(*arrays, out)
    return out


def root_bound(flows, *, by_period: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For rows whose flows change sign several times: a bound on the number of roots of NPV in
    x = 1 / (1 + r) > 0, whether the first and last non-zero flows differ in sign (then the
    number of roots is odd, else even), and the sides of 0 where a root may lie (:data:`ABOVE`: a
    rate > 0, :data:`BELOW`: a rate < 0; a root at 0 is on both). On 0 < x < 1, NPV / (1 - x) is
    the power series of the running sums S_t (S_(T-1) from then on), so by Descartes' rule for
    power series it has at most as many roots as the running sums change sign (the criterion of
    Norstrom, 1972): none there, no root above 0; on x > 1 likewise the running sums from the
    last period back, for the rates below 0; x = 1 is a root where the sum is 0. The sums from
    the end are the total less those from period 0, each within 2 T eps x the sum of |flows| of
    its exact value (recursive summation): a sum within 4 T eps x that of 0 could have either
    sign, and the row's bound is then the number of periods (nothing proven).

    >>> bound, ends_differ, sides = root_bound(np.array([[-1.0, 3.0, -1.0]]))
    >>> bound.tolist(), ends_differ.tolist(), sides.tolist() == [ABOVE | BELOW]
    ([2], [False], True)
    """
    c = np.asarray(_periods(flows, by_period), dtype=float)
    n = c.shape[1]
    bound, ends_differ, sides = (
        np.empty(n, dtype=np.int64),
        np.empty(n, dtype=bool),
        np.empty(n, dtype=np.int8),
    )
    _kernels(c.size).bound_rows(c, bound, ends_differ, sides)
    return bound, ends_differ, sides


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

    def __post_init__(self) -> None:
        self.lengths = np.asarray(self.lengths, dtype=np.int64)
        self.starts = np.concatenate([[0], np.cumsum(self.lengths)[:-1]]).astype(np.int64)

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


def _common(x: np.ndarray) -> np.ndarray | float:
    """``x`` as one number where every row has the same (a loan's rate): its powers once."""
    return float(x[0]) if x.size and x.min() == x.max() else x


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


def lowest_sum(flows, *, by_period: bool = False) -> np.ndarray:
    """The lowest running sum of each row (the most negative cumulative flow, or the first flow).

    >>> lowest_sum(np.array([[-10.0, 4.0, -3.0, 20.0]])).tolist()
    [-10.0]
    """
    c = _periods(flows, by_period)
    out = np.empty(c.shape[1])
    arrays = _arrays(c, by_runs=False)
    _kernels(arrays[0].size).lowest_sum_rows(*arrays, out)
    return out


# --- several sign changes: the root nearest the guess, bracketed on a grid ---------------------

#: the 600 rates the roots of rows with several sign changes were first bracketed between (1 + r
#: geometric towards -100%, r geometric from 1e-9 to 1e6 above 0): a root alone in one of their
#: cells is still bracketed by it, so that it is solved to the same bits as before
_COARSE = np.unique(
    np.concatenate([-1.0 + np.geomspace(1e-9, 1.0, 200)[:-1], np.geomspace(1e-9, 1e6, 400), [0.0]])
)
#: the rates NPV is evaluated at to bracket the roots of rows with several sign changes: those
#: and r geometric from -1e-9 to -50% as densely as above 0 (27 a decade): the rates a month's
#: root lies at, a few % at most, are in cells a few % of the rate wide on either side of 0 (the
#: 600 left (-9.9%, 0) one cell), where NPV has at most one extremum (:func:`_dips`)
_GRID = np.unique(np.concatenate([_COARSE, -np.geomspace(1e-9, 0.5, 235)]))
#: the grid's rates on each side of 0 a root may lie on (:func:`root_bound`; 0 on both)
_GRIDS = {ABOVE: _GRID[_GRID >= 0.0], BELOW: _GRID[_GRID <= 0.0], ABOVE | BELOW: _GRID}


def _coarse_ends(grid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per rate of ``grid``: the index of the nearest rate of :data:`_COARSE` at or below it
    (0 where none) and at or above it (the last where none)."""
    coarse = np.isin(grid, _COARSE)
    at = np.flatnonzero(coarse)
    below = at[np.maximum(np.searchsorted(at, np.arange(grid.size), side="right") - 1, 0)]
    above = at[np.minimum(np.searchsorted(at, np.arange(grid.size), side="left"), at.size - 1)]
    return below, above


_COARSE_ENDS = {side: _coarse_ends(grid) for side, grid in _GRIDS.items()}


@functools.lru_cache(maxsize=8)
def _grid_discount(periods: int, side: int = ABOVE | BELOW) -> tuple[np.ndarray, np.ndarray]:
    """(1 + rate)^-t for the grid's rates on ``side`` (rows) and periods t = 0..periods - 1
    (columns), and its derivative in the rate, -t (1 + rate)^(-t - 1)."""
    grid = 1.0 + _GRIDS[side][:, None]
    t = np.arange(periods, dtype=float)[None, :]
    with np.errstate(all="ignore"):
        discount = grid**-t
        return discount, -t * discount / grid


def _grid_brackets(table: np.ndarray, side: int, rows: np.ndarray) -> tuple[np.ndarray, ...]:
    """For ``rows`` (of those :func:`_nearest_root` solves) whose flows are ``table`` (T, rows):
    NPV and its slope on the grid's rates on ``side`` of 0 (all of them for both sides; where the
    rows' roots are proven to lie on one side, :func:`root_bound`, only those), and from it the
    rows and rates where NPV is exactly 0 (roots), the rows, brackets and signs (NPV > 0 at the
    bracket's low end) of every sign change between neighbouring rates, and the dips between
    neighbouring rates where two close roots may hide (:func:`_dips`). Rates where a row's NPV
    overflows are left out of its brackets: they are the grid's lowest (a discount factor
    (1 + r)^-t only grows as r falls towards -100%), so the brackets are those between its
    finite values."""
    grid = _GRIDS[side]
    discount, slope = _grid_discount(len(table), side)
    with np.errstate(all="ignore"):
        flows_t = np.ascontiguousarray(table.T)
        values, slopes = flows_t @ discount.T, flows_t @ slope.T
    bad = ~(np.isfinite(values) & np.isfinite(slopes))
    values[bad], slopes[bad] = np.nan, np.nan
    sign = np.sign(values)
    zr, zj = np.nonzero(sign == 0)
    change = sign[:, :-1] * sign[:, 1:] < 0
    cr, cj = np.nonzero(change)
    # a sign change alone in a cell of the 600 first rates, whose ends differ in sign: that cell
    below, above = _COARSE_ENDS[side]
    lo, hi = below[cj], above[cj + 1]
    count = np.concatenate([np.zeros((len(sign), 1), dtype=np.int64), np.cumsum(change, axis=1)], axis=1)
    alone = (count[cr, hi] - count[cr, lo] == 1) & (sign[cr, lo] * sign[cr, hi] < 0)
    lo, hi = np.where(alone, lo, cj), np.where(alone, hi, cj + 1)
    dr, dlo, dhi, dsign = _dips(values, slopes, sign, grid)
    return rows[zr], grid[zj], rows[cr], grid[lo], grid[hi], values[cr, lo] > 0, rows[dr], dlo, dhi, dsign


def _dips(
    values: np.ndarray, slopes: np.ndarray, sign: np.ndarray, grid: np.ndarray
) -> tuple[np.ndarray, ...]:
    """The dips of NPV between the grid's rates (``values`` and their ``slopes`` in r, rows x
    rates; NaN where they overflow): neighbouring rates where NPV has one sign and moves towards
    0 at the lower and away from it at the higher, so that |NPV| is least between them, where
    two close roots, or one where NPV touches 0, may lie without a sign change on the grid: the
    rows, the two rates and NPV's sign there, for :func:`gputco.udfs._flowkernels.dip_roots`."""
    with np.errstate(invalid="ignore"):
        falls, rises = sign * slopes < 0, sign * slopes > 0
    dip = (sign[:, :-1] == sign[:, 1:]) & (sign[:, :-1] != 0) & falls[:, :-1] & rises[:, 1:]
    r, j = np.nonzero(dip)
    return r, grid[j], grid[j + 1], sign[r, j]


def _nearest_root(
    arrays: tuple, several: np.ndarray, guess: np.ndarray, parts: list, table: np.ndarray
) -> np.ndarray:
    """For the rows ``several`` of the flows ``arrays`` (:func:`_arrays`; several sign changes;
    ``guess``, one per row; their flows ``table``, periods x rows): every bracket of ``parts``
    (:func:`_grid_brackets`, rows numbered within ``several``) solved to its root
    (:func:`gputco.udfs._flowkernels.bracket_roots`), each dip searched for a rate where NPV takes
    the other sign, which splits it into two such brackets, or touches 0 (within :data:`TOUCH`:
    a root; :func:`gputco.udfs._flowkernels.dip_roots`), and per row the root nearest its guess
    (NaN if none); a rate where NPV is exactly 0 is a root."""
    zr, zroot, cr, lo, hi, up, dr, dlo, dhi, dsign = (np.concatenate(x) for x in zip(*parts, strict=True))
    if dr.size:  # a dip holding two roots splits into two brackets; one touching 0 is a root
        split, at, least = np.empty(dr.size), np.empty(dr.size), np.empty(dr.size)
        rows = np.ascontiguousarray(several[dr], dtype=np.int64)
        _kernels(rows.size * len(arrays[0])).dip_roots(*arrays, rows, dlo, dhi, dsign, split, at, least)
        two = np.isfinite(split)
        cr = np.concatenate([cr, dr[two], dr[two]])
        lo = np.concatenate([lo, dlo[two], split[two]])
        hi = np.concatenate([hi, split[two], dhi[two]])
        up = np.concatenate([up, dsign[two] > 0, dsign[two] < 0])
        touch = np.flatnonzero(~two & np.isfinite(least))
        if touch.size:
            with np.errstate(all="ignore"):  # the scale: sum of |flow_t| (1 + r)^-t at the dip
                power = (1.0 + at[touch])[None, :] ** -np.arange(len(table), dtype=float)[:, None]
                scale = (np.abs(table[:, dr[touch]]) * power).sum(axis=0)
            touch = touch[least[touch] <= TOUCH * scale]
            zr, zroot = np.concatenate([zr, dr[touch]]), np.concatenate([zroot, at[touch]])
    root = np.empty(cr.size)
    if cr.size:
        rows = np.ascontiguousarray(several[cr], dtype=np.int64)
        _kernels(rows.size * len(arrays[0])).bracket_roots(*arrays, rows, lo, hi, up, root)
    row = np.concatenate([zr, cr])
    root = np.concatenate([zroot, root])
    out = np.full(several.size, np.nan)
    if row.size:
        order = np.lexsort((np.abs(root - guess[row]), row))
        first = np.unique(row[order], return_index=True)[1]
        out[row[order][first]] = root[order][first]
    return out
