"""The kernels of :mod:`gputco.udfs.flows`: NPV, IRR, payback, the lowest running sum and
sign changes, one row at a time.

The flows of ``m`` rows are held as runs of equal periods (:class:`gputco.udfs.flows.Periodic`;
a plain table is runs of one period): ``values`` (runs, m), run k covering the periods
``starts[k] .. starts[k] + lengths[k] - 1``, and per row a geometric term (a level-payment loan's
interest): in the periods ``first + j``, j = 0 .. count - 1, the flow has ``-coef x ratio^j``
more (``count`` 0: none). Each kernel loops over the rows and works on one row at a time, so a
row's result never depends on the rows beside it, and the loops release the GIL (the chunks of
:func:`gputco.udfs._parallel.each_chunk` run them on every core).

Each kernel is written once and runs either as Python (small calls: the TCO_ functions, the
workbooks; and wherever numba is absent, Pyodide: xlwings Lite) or compiled by numba (batch-sized
calls), to the same results: :mod:`gputco.udfs._jit` chooses.
"""

from __future__ import annotations

import math

import numpy as np

# the IRR's range [LOW, HIGH], the reasons for no IRR and the sides of 0 of a root, shared with flows
from ._flowcodes import ABOVE, BELOW, FOUND, HIGH, LOW, NO_ROOT, NO_SIGN_CHANGE

# the marks of a kernel, a kernel's step and a step of the innermost loop (numba's options for
# each, :mod:`gputco.udfs._jit`: the step of the innermost loop, a row's NPV and its slope at one
# rate at every Newton step, is written into each caller, so that a call passes no array
# descriptors: the IRR of a row of yearly flows 1.23x faster, measured side by side; inlining the
# outer steps as well made the kernels larger and slower)
from ._jit import inner_step as _inner_step
from ._jit import kernel as _kernel
from ._jit import step as _step

#: beside the reasons of :data:`gputco.udfs.flows.REASONS` (FOUND, NO_SIGN_CHANGE, NO_ROOT), why
#: :func:`irr_rows` left a row: several roots are possible, the caller brackets them on a grid of
#: rates (:func:`gputco.udfs.flows.irr`) and :func:`bracket_roots` solves them
GRID = 3
MAX_STEPS = 200
#: Newton steps inside the bracket taken freely before each must also halve the step before last
FREE_STEPS = 4
#: a bisection moves 1 + r by at most this factor: a bracket that still reaches -100% or 1e6 (a
#: row's first steps) is closed in on from the rate reached, not halved in log(1 + r) from 1e-9
REACH = 4.0


@_kernel
def _scratch(lengths):
    """Scratch of a kernel's rows: each run's geometric term (:func:`_geometric_starts`), the
    sums and powers of :func:`_value` and the ratio's of :func:`_geometric_starts`."""
    longest = max(1, lengths.max()) + 1
    return np.zeros(lengths.size), np.empty((6, longest)), np.empty((2, longest))


@_step
def _geometric_starts(starts, lengths, i, coef, first, count, ratio, g0, rtab):
    """Row i's geometric term in the first period of each run (0 where the run lies outside the
    row's span; a run lies wholly inside or outside it, and the span starts where a run does)
    into ``g0``, and whether the row has one; where it has, ``rtab`` (2, longest run + 1) holds
    ratio^j and 1 + ratio + .. + ratio^(j - 1) for j up to the longest run."""
    g0[:] = 0.0
    if count[i] <= 0 or coef[i] == 0.0:
        return False
    q = ratio[i]
    power, level = 1.0, 0.0
    for j in range(rtab.shape[1]):
        rtab[0, j] = power
        rtab[1, j] = level
        level = level + power
        power = power * q
    g = coef[i]
    for k in range(lengths.size):
        if first[i] <= starts[k] < first[i] + count[i]:
            g0[k] = g
            g = g * rtab[0, lengths[k]]
    return True


@_inner_step
def _value(values, lengths, i, g0, ratio, x, slope, tab, geo=True):
    """Row i's polynomial sum flow_t x^t and its derivative in x (0 without ``slope``), a run at
    a time: a run of L periods with flow v - g ratio^j is v S_L(x) - g S_L(ratio x) with
    S_L(y) = 1 + y + .. + y^(L - 1) (Horner: S_(j+1) = 1 + y S_j, all terms positive for
    y > 0), then x^L times the runs after it. ``tab`` (6, longest run + 1): scratch; ``geo``:
    whether the row has a geometric term (else its sums in ratio x are not worked out)."""
    longest = tab.shape[1] - 1
    y = ratio * x
    s, ds, p, sy, dsy = 1.0, 0.0, x, 1.0, 0.0
    tab[0, 1] = 1.0
    tab[1, 1] = 0.0
    tab[2, 1] = x
    tab[3, 1] = 1.0
    tab[4, 1] = 1.0
    tab[5, 1] = 0.0
    for j in range(2, longest + 1):
        ds = ds * x + s
        s = s * x + 1.0
        before = p
        p = p * x
        tab[0, j] = s
        tab[1, j] = ds
        tab[2, j] = p
        tab[3, j] = j * before
        if geo:
            dsy = dsy * y + sy
            sy = sy * y + 1.0
            tab[4, j] = sy
            tab[5, j] = dsy
    acc, d = 0.0, 0.0
    for k in range(lengths.size - 1, -1, -1):
        n = lengths[k]
        v, g = values[k, i], g0[k]
        if n == 1:
            if slope:
                d = d * x + acc
            acc = acc * x + (v - g)
            continue
        if slope:
            d = d * tab[2, n] + acc * tab[3, n]
        acc = acc * tab[2, n]
        if v != 0.0:
            acc += v * tab[0, n]
            if slope:
                d += v * tab[1, n]
        if g != 0.0:
            acc -= g * tab[4, n]
            if slope:
                d -= g * ratio * tab[5, n]
    return acc, d


@_step
def _value_by_period(values, lengths, i, g0, rtab, x):
    """:func:`_value` period by period (where the runs' sums overflow)."""
    acc, d = 0.0, 0.0
    for k in range(lengths.size - 1, -1, -1):
        for j in range(lengths[k] - 1, -1, -1):
            f = values[k, i] - (g0[k] * rtab[0, j] if g0[k] != 0.0 else 0.0)
            d = d * x + acc
            acc = acc * x + f
    return acc, d


@_inner_step
def _npv_and_slope(values, lengths, i, g0, ratio, rtab, r, tab, geo):
    """Row i's NPV at the per-period rate r and its derivative in r."""
    x = 1.0 / (1.0 + r)
    acc, d = _value(values, lengths, i, g0, ratio, x, True, tab, geo)
    if not (math.isfinite(acc) and math.isfinite(d)):
        acc, d = _value_by_period(values, lengths, i, g0, rtab, x)
    return acc, -d * x * x


@_kernel
def npv_rows(values, lengths, starts, coef, first, count, ratio, x, out):
    """NPV of each row: its flows' sum flow_t x_i^t, x per row (1 / (1 + rate per period))."""
    m = values.shape[1]
    g0, tab, rtab = _scratch(lengths)
    for i in range(m):
        geo = _geometric_starts(starts, lengths, i, coef, first, count, ratio, g0, rtab)
        out[i] = _value(values, lengths, i, g0, ratio[i], x[i], False, tab, geo)[0]


@_step
def _changes(values, lengths, i, g0, rtab):
    """Row i's sign changes (zeros skipped) and its last non-zero sign: within a run the flow is
    monotone, so its ends hold its sign changes."""
    count, last = 0, 0.0
    for k in range(lengths.size):
        for end in range(2 if g0[k] != 0.0 else 1):
            f = values[k, i] - g0[k] * (rtab[0, lengths[k] - 1] if end else 1.0)
            s = 1.0 if f > 0.0 else (-1.0 if f < 0.0 else 0.0)
            if s * last < 0.0:
                count += 1
            if s != 0.0:
                last = s
    return count, last


@_kernel
def payback_rows(values, lengths, starts, coef, first, count, ratio, out):
    """Per row, the periods until its running sum first turns >= 0 from below, linear within the
    period (NaN where it never does). A run of equal flows f is one step: its sums rise or fall
    linearly, the sum crosses 0 within it where it is below 0 before it and at or above 0 after
    it, and the interpolation within the period of the crossing, t + j - 1 - (sum + j f) / f,
    is t - 1 - sum / f whichever period j of the run it is; the runs with a geometric term
    period by period."""
    g0, _, rtab = _scratch(lengths)
    for i in range(values.shape[1]):
        _geometric_starts(starts, lengths, i, coef, first, count, ratio, g0, rtab)
        out[i] = np.nan
        cum, t = 0.0, 0
        for k in range(lengths.size):
            n = lengths[k]
            if g0[k] == 0.0:
                f = values[k, i]
                after = cum + n * f
                if cum < 0.0 and f > 0.0 and after >= 0.0:  # (cum + f >= 0 implies it)
                    out[i] = t - 1.0 - cum / f
                    break
                cum, t = after, t + n
                continue
            for j in range(n):
                f = values[k, i] - g0[k] * rtab[0, j]
                after = cum + f
                if cum < 0.0 and after >= 0.0:
                    out[i] = t - 1.0 - cum / f
                    break
                cum = after
                t += 1
            if not math.isnan(out[i]):
                break


@_kernel
def lowest_sum_rows(values, lengths, starts, coef, first, count, ratio, out):
    """Per row, the lowest of its running sums: in a run of equal flows the sums are linear, so
    the lowest is after its first or its last period; the runs with a geometric term period by
    period."""
    g0, _, rtab = _scratch(lengths)
    for i in range(values.shape[1]):
        _geometric_starts(starts, lengths, i, coef, first, count, ratio, g0, rtab)
        cum, low = 0.0, np.inf
        for k in range(lengths.size):
            n = lengths[k]
            if g0[k] == 0.0:
                f = values[k, i]
                low = min(low, cum + f, cum + n * f)
                cum = cum + n * f
                continue
            for j in range(n):
                cum += values[k, i] - g0[k] * rtab[0, j]
                low = min(low, cum)
        out[i] = low


@_kernel
def changes_rows(values, lengths, starts, coef, first, count, ratio, out):
    """How many times each row's flows change sign (zeros skipped)."""
    g0, _, rtab = _scratch(lengths)
    for i in range(values.shape[1]):
        _geometric_starts(starts, lengths, i, coef, first, count, ratio, g0, rtab)
        out[i] = _changes(values, lengths, i, g0, rtab)[0]


@_step
def _dense(values, lengths, i, g0, rtab, row):
    """Row i's flows, period by period, into ``row``."""
    t = 0
    for k in range(lengths.size):
        for j in range(lengths[k]):
            row[t] = values[k, i] - (g0[k] * rtab[0, j] if g0[k] != 0.0 else 0.0)
            t += 1


@_step
def _bound(row):
    """Norstrom's bound on the roots of the NPV of one row of flows (period by period) in
    x = 1 / (1 + r) > 0, whether its first and last non-zero flows differ in sign, and the sides
    of 0 where a root may lie (:func:`gputco.udfs.flows.root_bound` says how)."""
    periods = row.size
    limit = 4.0 * periods * 2.220446049250313e-16  # 4 T eps
    first_at, last_at, size = -1, -1, 0.0
    for t in range(periods):
        if row[t] != 0.0:
            if first_at < 0:
                first_at = t
            last_at = t
        size += abs(row[t])
    if first_at < 0:
        first_at, last_at = 0, periods - 1
    total = 0.0
    for t in range(periods):
        total += row[t]
    bound, sides, unsure = 0, 0, False
    # from period 0: the running sums S_t (a root above 0); from the end: total - S_(t-1) (below)
    for side in (ABOVE, BELOW):
        changes, before, run = 0, 0.0, 0.0
        for t in range(periods):
            if side == ABOVE:
                run += row[t]
                here = run
                flowing = t >= first_at
            else:
                here = total - run
                run += row[t]
                flowing = t <= last_at
            if flowing and abs(here) < limit * size:
                unsure = True
            s = 1.0 if here > 0.0 else (-1.0 if here < 0.0 else 0.0)
            if t > 0 and s * before < 0.0:
                changes += 1
            before = s
        bound += changes
        if changes > 0:
            sides |= side
    if unsure:
        bound, sides = periods, ABOVE | BELOW
    return bound, (row[first_at] > 0.0) != (row[last_at] > 0.0), sides


@_kernel
def bound_rows(table, bound, ends_differ, sides):
    """:func:`_bound` of each column of ``table`` (periods, rows)."""
    row = np.empty(table.shape[0])
    for i in range(table.shape[1]):
        row[:] = table[:, i]
        bound[i], ends_differ[i], sides[i] = _bound(row)


@_step
def _start(values, lengths, moments, i, g0, rtab, guess):
    """A first estimate of row i's root: with rho = log(1 + r), the inflows' total P at the mean
    time tP and variance vP of their periods is worth about P exp(-tP rho + vP rho^2 / 2) (the
    first two cumulants of their times), the outflows' N likewise; the root of the difference of
    the logs, rho = 2 c / (b + sqrt(b^2 - 4 a c)) with a = (vP - vN) / 2, b = tP - tN,
    c = log(P / N) (at a = 0: 1 + r = (P / N)^(1 / (tP - tN)), exact for one outflow and one
    inflow); ``guess`` where that is not finite. A run's periods count at its mean flow, with the
    runs' ``moments`` (:func:`_moments`)."""
    p = tp = ttp = sv = tv = ttv = 0.0
    for k in range(lengths.size):
        v = values[k, i]
        if g0[k] != 0.0:
            v -= g0[k] * rtab[1, lengths[k]] / lengths[k]
        m0, m1, m2 = moments[0, k], moments[1, k], moments[2, k]
        pos = max(v, 0.0)
        p += m0 * pos
        tp += m1 * pos
        ttp += m2 * pos
        sv += m0 * v
        tv += m1 * v
        ttv += m2 * v
    n, tn, ttn = p - sv, tp - tv, ttp - ttv
    r = np.nan
    if p > 0.0 and n > 0.0:
        mp, mn = tp / p, tn / n
        a = 0.5 * ((ttp / p - mp * mp) - (ttn / n - mn * mn))
        b, lc = mp - mn, math.log(p / n)
        disc = b * b - 4.0 * a * lc
        if disc >= 0.0:
            root = math.sqrt(disc)
            r = math.expm1(2.0 * lc / (b + math.copysign(root, b)))
        elif b != 0.0:
            r = math.expm1(lc / b)
    if not math.isfinite(r):
        r = guess
    return min(max(r, LOW), HIGH)


@_kernel
def _moments(lengths, starts):
    """Each run's number of periods, the sum of its periods and of their squares (3, runs)."""
    out = np.empty((3, lengths.size))
    for k in range(lengths.size):
        w = float(lengths[k])
        t = starts[k] + (w - 1.0) / 2.0  # the run's mean period
        out[0, k] = w
        out[1, k] = w * t
        out[2, k] = w * (t * t + (w * w - 1.0) / 12.0)
    return out


@_step
def _solve(values, lengths, i, g0, ratio, rtab, r, lo, hi, up, tab, geo):
    """Row i's root in its bracket [lo, hi] (NPV > 0 at lo where ``up``, < 0 elsewhere) from r:
    Newton's method, each step taken where it stays inside the bracket (after the first
    FREE_STEPS steps where it also at least halves the step before last, which bounds the
    steps), else bisection of the bracket in log(1 + r). Done once a Newton step is below
    1e-8 x (1 + r) (the error after it is of the order of the step squared), NPV is exactly 0 or
    the bracket has closed (to 4e-16 x (1 + r), or 2^-50 |r|: 4 to 8 ulps of r, without a call to
    libm's nextafter, which cost 6% of a yearly row's IRR); NaN if not done in MAX_STEPS."""
    step, older = np.inf, np.inf
    for it in range(MAX_STEPS):
        fr, dfr = _npv_and_slope(values, lengths, i, g0, ratio, rtab, r, tab, geo)
        if (fr > 0.0) == up:
            lo = r
        else:
            hi = r
        new = r - fr / dfr if dfr != 0.0 else (np.nan if fr == 0.0 else np.inf)
        newton = (lo < new < hi) or new == r  # (== r: a step below half an ulp)
        if it >= FREE_STEPS and not abs(new - r) <= 0.5 * abs(older):
            newton = False
        older, step = step, new - r
        finished = abs(step) <= 1e-8 * (1.0 + new)
        if not newton:
            mid = math.sqrt((1.0 + lo) * (1.0 + hi))  # the bracket's middle in log(1 + r)
            mid = min(max(mid, (1.0 + r) / REACH), (1.0 + r) * REACH)  # at most REACH from r
            new, finished = mid - 1.0, False
        if fr == 0.0:
            new, finished = r, True
        a = abs(new)
        if hi - lo <= max(4e-16 * (1.0 + new), 8.881784197001252e-16 * a):  # 4 to 8 ulps of a
            finished = True
        r = new
        if finished:
            return r
    return np.nan


@_step
def _inside(values, lengths, i, g0, ratio, rtab, up, r, tab, geo):
    """A root found at (or next to) an end of [LOW, HIGH] kept only where NPV changes sign
    between the ends; NaN where the root lies beyond them."""
    if not (r - LOW <= 1e-6 or r >= HIGH * (1.0 - 1e-6)):
        return r
    f_lo = _npv_and_slope(values, lengths, i, g0, ratio, rtab, LOW, tab, geo)[0]
    f_hi = _npv_and_slope(values, lengths, i, g0, ratio, rtab, HIGH, tab, geo)[0]
    if (f_lo == 0.0 or (f_lo > 0.0) == up) and (f_hi == 0.0 or (f_hi > 0.0) != up):
        return r
    return np.nan


@_kernel
def irr_rows(values, lengths, starts, coef, first, count, ratio, periods_per_year, rate, why, sides, guess):
    """Per row: the per-period IRR (``rate``) and why there is none (``why``: FOUND,
    NO_SIGN_CHANGE, NO_ROOT, or GRID where several roots are possible, with the ``sides`` of 0
    they may lie on), and the guess (per period) of the root to take among several.

    One sign change: one root (Descartes' rule of signs in x = 1 / (1 + r)), by :func:`_solve`
    from :func:`_start` in [LOW, HIGH]. Several: one root where Norstrom's bound (:func:`_bound`)
    is 1 and the first and last flows differ in sign, none where the bound is 0 or 1 otherwise."""
    m = values.shape[1]
    g0, tab, rtab = _scratch(lengths)
    row = np.empty(lengths.sum())
    moments = _moments(lengths, starts)
    for i in range(m):
        geo = _geometric_starts(starts, lengths, i, coef, first, count, ratio, g0, rtab)
        q = ratio[i]
        changes, last = _changes(values, lengths, i, g0, rtab)
        total = 0.0
        for k in range(lengths.size):
            total += lengths[k] * values[k, i]
            if g0[k] != 0.0:
                total -= g0[k] * rtab[1, lengths[k]]
        g = -0.5 if total < 0.0 else 0.1
        if periods_per_year != 1:
            g = (1.0 + g) ** (1.0 / periods_per_year) - 1.0
        guess[i], rate[i], sides[i] = g, np.nan, 0
        if changes == 0:
            why[i] = NO_SIGN_CHANGE
            continue
        if changes > 1:
            _dense(values, lengths, i, g0, rtab, row)
            bound, ends_differ, side = _bound(row)
            if bound > 1:
                why[i], sides[i] = GRID, side
                continue
            if not (bound == 1 and ends_differ):
                why[i] = NO_ROOT
                continue
        up = last > 0.0
        r = _start(values, lengths, moments, i, g0, rtab, g)
        r = _solve(values, lengths, i, g0, q, rtab, r, LOW, HIGH, up, tab, geo)
        r = _inside(values, lengths, i, g0, q, rtab, up, r, tab, geo)
        rate[i] = r
        why[i] = FOUND if math.isfinite(r) else NO_ROOT


@_step
def _row_of(starts, lengths, rows, j, coef, first, count, ratio, g0, rtab, geo):
    """Whether row ``rows[j]`` has a geometric term (its terms into ``g0`` and ``rtab``, worked
    out where it is not the row before, ``rows[j - 1]``: a row's brackets come one after the
    other; ``geo``: the answer for the row before)."""
    if j > 0 and rows[j] == rows[j - 1]:
        return geo
    return _geometric_starts(starts, lengths, rows[j], coef, first, count, ratio, g0, rtab)


@_kernel
def bracket_roots(values, lengths, starts, coef, first, count, ratio, rows, lo, hi, up, out):
    """The root in each bracket [lo, hi] of the row ``rows[j]`` (NPV > 0 at lo where ``up``),
    by :func:`_solve` from the bracket's middle in log(1 + r)."""
    g0, tab, rtab = _scratch(lengths)
    geo = False
    for j in range(rows.size):
        i = rows[j]
        geo = _row_of(starts, lengths, rows, j, coef, first, count, ratio, g0, rtab, geo)
        start = -1.0 + math.sqrt((1.0 + lo[j]) * (1.0 + hi[j]))
        out[j] = _solve(values, lengths, i, g0, ratio[i], rtab, start, lo[j], hi[j], up[j], tab, geo)


@_kernel
def dip_roots(values, lengths, starts, coef, first, count, ratio, rows, lo, hi, sign, split, at, least):
    """Where the grid of rates saw NPV keep its sign (``sign[j]``) at lo[j] and hi[j] but |NPV|
    least at a rate between (a dip: two close roots may lie in it, or one where NPV touches 0):
    the extremum of NPV in [lo, hi], the root of its slope found by regula falsi (Illinois) with
    a bisection in log(1 + r) every third step, stopped at the first rate where NPV has the other
    sign (``split[j]``, NaN where there is none; where there is one, [lo, split] and
    [split, hi] each bracket a root). ``at[j]``, ``least[j]``: the rate where sign x NPV was least and that value (NaN where
    the slope does not go from falling at lo to rising at hi: no one extremum inside)."""
    g0, tab, rtab = _scratch(lengths)
    geo = False
    for j in range(rows.size):
        i = rows[j]
        geo = _row_of(starts, lengths, rows, j, coef, first, count, ratio, g0, rtab, geo)
        split[j], at[j], least[j] = np.nan, np.nan, np.nan
        s = sign[j]
        a, b = lo[j], hi[j]
        fa, da = _npv_and_slope(values, lengths, i, g0, ratio[i], rtab, a, tab, geo)
        fb, db = _npv_and_slope(values, lengths, i, g0, ratio[i], rtab, b, tab, geo)
        ha, sa, hb, sb = s * fa, s * da, s * fb, s * db
        if not (sa < 0.0 < sb and ha > 0.0 and hb > 0.0):
            continue
        best, low = (a, ha) if ha < hb else (b, hb)
        kept = 0  # which end the last step kept: -1 a, 1 b (Illinois halves a twice-kept end's slope)
        for it in range(MAX_STEPS):
            m = a - sa * (b - a) / (sb - sa)
            if not (a < m < b) or it % 3 == 2:
                m = math.sqrt((1.0 + a) * (1.0 + b)) - 1.0
                if not (a < m < b):
                    break
            fm, dm = _npv_and_slope(values, lengths, i, g0, ratio[i], rtab, m, tab, geo)
            hm, sm = s * fm, s * dm
            if hm < low:
                best, low = m, hm
            if hm < 0.0:
                split[j] = m
                break
            if sm == 0.0:
                break
            if sm < 0.0:
                a, sa = m, sm
                if kept == 1:
                    sb *= 0.5
                kept = 1
            else:
                b, sb = m, sm
                if kept == -1:
                    sa *= 0.5
                kept = -1
            if b - a <= max(4e-16 * (1.0 + m), 8.881784197001252e-16 * abs(m)):
                break
        at[j], least[j] = best, low
