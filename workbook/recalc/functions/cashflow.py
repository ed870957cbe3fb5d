"""Financial, cash-flow returns: IRR, XNPV, XIRR (Excel's semantics, solved per formula row).

- IRR(values, [guess=0.1]): the rate r with sum v_i / (1+r)^i = 0 over the numbers of ``values``
  (i = 0, 1, ... counting only numbers: text, TRUE/FALSE and blanks in ranges are skipped, as NPV
  does). Newton's method from ``guess``, at most 20 steps, until a step is under 1e-7 (Excel:
  "accurate within 0.00001 percent ... after 20 tries #NUM!"). #NUM! without at least one positive
  and one negative value.
- XNPV(rate, values, dates): sum v_i / (1+rate)^((d_i - d_0)/365), dates truncated to whole days.
  Every element of ``values`` and ``dates`` must be a number (#VALUE! otherwise); different
  counts, or a date before the first, are #NUM!.
- XIRR(values, dates, [guess=0.1]): the rate where XNPV is 0; Newton's method, at most 100 steps
  (Excel: "accurate within 0.000001 percent ... after 100 tries #NUM!"); where Newton's steps
  leave the rates above -1, the root nearest the guess is bracketed and bisected instead (Excel
  finds strongly negative rates too); the same argument rules as XNPV, plus #NUM! without a
  positive and a negative value.

Every row of a formula group is solved at once: the Newton iterations run on (m,) vectors and a
row stops moving once it has converged.
"""

from __future__ import annotations

import numpy as np

from gputco.workbook.recalc.run import vec
from gputco.workbook.recalc.run.rangeval import dims, materialize
from gputco.workbook.recalc.run.values import NUM, VALUE, XlError

from ._args import Spec, numbers, scalar_nums

IRR_STEPS, IRR_TOL = 20, 1e-7
XIRR_STEPS, XIRR_TOL = 100, 1e-10


def _rows_out(out: np.ndarray, err: np.ndarray) -> np.ndarray:
    """(m,) floats and (m,) object errors (None where none) as an (m, 1, 1) result."""
    out = out.reshape(-1, 1, 1)
    bad = np.array([e is not None for e in err], dtype=bool).reshape(-1, 1, 1)
    return vec.finish(out, (bad, err.reshape(-1, 1, 1)) if bad.any() else None)


def _no_sign_change(vals: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        return ~((np.nan_to_num(vals) > 0).any(axis=1) & (np.nan_to_num(vals) < 0).any(axis=1))


def _newton(f_df, x0: np.ndarray, steps: int, tol: float) -> tuple[np.ndarray, np.ndarray]:
    """Newton's method on each row: (roots, converged mask)."""
    x = x0.astype(float).copy()
    done = np.zeros(x.shape, dtype=bool)
    with np.errstate(all="ignore"):
        for _ in range(steps):
            f, df = f_df(x)
            new = x - f / df
            step = np.abs(new - x)
            x = np.where(done, x, new)
            done |= (step < tol * np.maximum(1.0, np.abs(x))) | (f == 0)
            done &= np.isfinite(x)
            if done.all() or not np.isfinite(x[~done]).any():
                break
    return x, done & np.isfinite(x)


def _irr(values, guess=None):
    vals, err = numbers([values])
    m = vals.shape[0]
    if guess is not None:
        (g,), ge = scalar_nums(guess)
        g = np.broadcast_to(g.reshape(-1), (m,)) if g.size > 1 else np.full(m, float(g.ravel()[0]))
        if g.shape[0] != m:  # the guess varies per row while the values do not
            m = g.shape[0]
            vals = np.broadcast_to(vals, (m, vals.shape[1]))
            err = None if err is None else np.broadcast_to(err, (m,))
    else:
        g, ge = np.full(m, 0.1), None
    used = ~np.isnan(vals)
    period = (np.cumsum(used, axis=1) - 1).astype(float)
    v = np.where(used, vals, 0.0)

    def f_df(r):
        base = 1.0 + r[:, None]
        disc = base**-period
        return (v * disc).sum(axis=1), (-period * v * disc / base).sum(axis=1)

    r, ok = _newton(f_df, g, IRR_STEPS, IRR_TOL)
    errs = np.full(m, None, dtype=object)
    errs[~ok | _no_sign_change(vals)] = NUM
    if err is not None:
        errs = np.where(np.array([e is not None for e in err]), err, errs)
    out = _rows_out(np.where(ok, r, 0.0), errs)
    return _merge_scalar_error(out, ge)


def _merge_scalar_error(out, e):
    if e is None:
        return out
    return vec.with_errors(out, e) if out.dtype == vec.OBJ else vec.finish(out, e)


def _flat(arg) -> tuple[np.ndarray, np.ndarray]:
    """Every element of a values/dates argument, blanks included: (m, K) floats, (m,) errors.

    A non-number element (text, TRUE/FALSE, blank) is #VALUE!; an error element is itself.
    """
    arr = materialize(arg)
    h, w = dims(arg)
    m = arr.shape[0]
    if arr.shape[1] < h:  # rows past the sheet's used area are blank
        pad = np.full((m, h - arr.shape[1], w), None, dtype=object)
        arr = np.concatenate([arr.astype(object), pad], axis=1)
    flat = arr.reshape(m, -1)
    if flat.dtype == vec.FLOAT:
        return flat, np.full(m, None, dtype=object)
    out = np.full(flat.shape, np.nan)
    errs = np.full(m, None, dtype=object)
    for i, row in enumerate(flat.tolist()):
        for j, x in enumerate(row):
            if type(x) is float:
                out[i, j] = x
            elif errs[i] is None:
                errs[i] = x if isinstance(x, XlError) else VALUE
    return out, errs


def _cash_and_days(values, dates):
    """(cash (m, K), days since the first date (m, K), errors (m,)) with Excel's argument rules."""
    v, ve = _flat(values)
    d, de = _flat(dates)
    m = max(v.shape[0], d.shape[0])
    errs = (
        np.where(np.array([e is not None for e in ve]), ve, de)
        if ve.shape[0] == m
        else np.broadcast_to(de, (m,)).copy()
    )
    if v.shape[1] != d.shape[1] or v.shape[1] == 0:
        errs = np.where(np.array([e is None for e in errs]), NUM, errs)
        return np.zeros((m, 1)), np.zeros((m, 1)), errs
    v, d = np.broadcast_to(v, (m, v.shape[1])), np.broadcast_to(d, (m, d.shape[1]))
    d = np.trunc(d)
    days = d - d[:, :1]
    with np.errstate(invalid="ignore"):
        before = (days < 0).any(axis=1) | (d < 0).any(axis=1) | (d > 2958465).any(axis=1)
    free = np.array([e is None for e in errs])
    errs = np.where(free & before, NUM, errs)
    return np.nan_to_num(v), np.nan_to_num(days), errs


def _xnpv(rate, values, dates):
    (r,), re = scalar_nums(rate)
    cash, days, errs = _cash_and_days(values, dates)
    m = max(cash.shape[0], r.shape[0])
    r = np.broadcast_to(r.reshape(-1), (m,))
    with np.errstate(all="ignore"):
        total = (cash / (1.0 + r[:, None]) ** (days / 365.0)).sum(axis=1)
    errs = np.broadcast_to(errs, (m,)).copy()
    errs[np.array([e is None for e in errs]) & ~np.isfinite(total)] = NUM
    return _merge_scalar_error(_rows_out(np.where(np.isfinite(total), total, 0.0), errs), re)


def _bracketed_root(cash: np.ndarray, t: np.ndarray, guess: float) -> float | None:
    """A rate in (-1, inf) where sum cash / (1+r)^t is 0, found where Newton's method from the
    guess leaves the domain (strongly negative roots, e.g. -100 then 10 and 10 a year apart:
    about -0.58, which Excel finds). In x = ln(1+r) the sum is smooth on the whole line: a grid
    brackets its sign changes, the bracket nearest the guess is bisected to full precision."""
    xs = np.linspace(-30.0, 8.0, 3801)
    with np.errstate(all="ignore"):
        f = np.exp(-np.outer(xs, t)) @ cash
    ok = np.isfinite(f)
    change = np.flatnonzero(ok[:-1] & ok[1:] & (np.sign(f[:-1]) * np.sign(f[1:]) < 0))
    if not len(change):
        return None
    x0 = np.log1p(guess) if guess > -1 else 0.0
    k = int(change[np.argmin(np.abs(xs[change] - x0))])
    lo, hi, flo = xs[k], xs[k + 1], f[k]
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        fm = float(np.exp(-mid * t) @ cash)
        if fm == 0.0 or hi - lo < 1e-15:
            lo = hi = mid
            break
        if np.sign(fm) == np.sign(flo):
            lo, flo = mid, fm
        else:
            hi = mid
    return float(np.expm1(0.5 * (lo + hi)))


def _xirr(values, dates, guess=None):
    cash, days, errs = _cash_and_days(values, dates)
    m = cash.shape[0]
    ge = None
    if guess is not None:
        (g,), ge = scalar_nums(guess)
        g = np.broadcast_to(g.reshape(-1), (m,)) if g.size > 1 else np.full(m, float(g.ravel()[0]))
    else:
        g = np.full(m, 0.1)
    t = days / 365.0

    def f_df(r):
        base = 1.0 + r[:, None]
        disc = base**-t
        return (cash * disc).sum(axis=1), (-t * cash * disc / base).sum(axis=1)

    r, ok = _newton(f_df, g, XIRR_STEPS, XIRR_TOL)
    free = np.array([e is None for e in errs])
    signs = ~_no_sign_change(cash)
    for i in np.flatnonzero(free & ~ok & signs).tolist():  # Newton left (-1, inf): bracket it
        root = _bracketed_root(cash[i], t[min(i, t.shape[0] - 1)], float(g[min(i, g.shape[0] - 1)]))
        if root is not None:
            r[i], ok[i] = root, True
    errs = errs.copy()
    errs[free & (~ok | ~signs)] = NUM
    return _merge_scalar_error(_rows_out(np.where(ok, r, 0.0), errs), ge)


FUNCTIONS = {
    "IRR": Spec(_irr, 1, 2, "rv"),
    "XNPV": Spec(_xnpv, 3, 3, "vrr"),
    "XIRR": Spec(_xirr, 2, 3, "rrv"),
}
