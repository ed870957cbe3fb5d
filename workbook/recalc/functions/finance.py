"""Financial: PMT, PV, FV, NPV, IPMT, PPMT (Excel's annuity conventions), SLN.

With f = (1 + rate)^nper and type 0 (end of period) or 1 (beginning)::

    pv*f + pmt*(1 + rate*type)*(f - 1)/rate + fv = 0       (rate != 0)
    pv + pmt*nper + fv = 0                                  (rate == 0)

PMT, PV and FV solve this for one unknown. NPV discounts its values at periods 1, 2, ... counting
only numbers (blanks and text in ranges are skipped, not counted as periods). SLN is
straight-line depreciation per period, (cost - salvage) / life (#DIV/0! for a life of 0).
"""

from __future__ import annotations

import numpy as np

from gputco.workbook.recalc.run import vec
from gputco.workbook.recalc.run.values import DIV0, NUM

from ._args import Spec, numbers, result, scalar_nums

ZERO = vec.const(0.0)


def _args(*xs):
    return scalar_nums(*(ZERO if x is None else x for x in xs))


def _pmt(rate, nper, pv, fv=None, typ=None):
    (r, n, p, f, t), e = _args(rate, nper, pv, fv, typ)
    t = (t != 0).astype(float)
    with np.errstate(all="ignore"):
        g = (1.0 + r) ** n
        out = np.where(r == 0, -(p + f) / n, -r * (p * g + f) / ((1.0 + r * t) * (g - 1.0)))
    e = vec.add_error(e, np.broadcast_to(n == 0, out.shape), NUM)
    return vec.finish(out, _div0(e, r, out))


def _div0(e, r, out):
    """A rate of -1 makes (1 + rate)^nper zero (or its inverse infinite): Excel's #DIV/0!."""
    return vec.add_error(e, np.broadcast_to((r == -1.0) & ~np.isfinite(out), out.shape), DIV0)


def _pv(rate, nper, pmt, fv=None, typ=None):
    (r, n, m, f, t), e = _args(rate, nper, pmt, fv, typ)
    t = (t != 0).astype(float)
    with np.errstate(all="ignore"):
        g = (1.0 + r) ** n
        out = np.where(r == 0, -(f + m * n), -(f + m * (1.0 + r * t) * (g - 1.0) / r) / g)
    return vec.finish(out, _div0(e, r, out))


def _fv(rate, nper, pmt, pv=None, typ=None):
    (r, n, m, p, t), e = _args(rate, nper, pmt, pv, typ)
    t = (t != 0).astype(float)
    with np.errstate(all="ignore"):
        g = (1.0 + r) ** n
        out = np.where(r == 0, -(p + m * n), -(p * g + m * (1.0 + r * t) * (g - 1.0) / r))
    return vec.finish(out, _div0(e, r, out))


def _ipmt(rate, per, nper, pv, fv=None, typ=None):
    (r, k, n, p, f, t), e = _args(rate, per, nper, pv, fv, typ)
    t = (t != 0).astype(float)
    with np.errstate(all="ignore"):
        pmt = _pmt_raw(r, n, p, f, t)
        # balance after k-1 payments, then interest on it (none in period 1 when type is 1)
        bal = _fv_raw(r, k - 1, pmt, p, t)
        out = np.where((t == 1) & (k == 1), 0.0, bal * r)
        out = np.where(t == 1, out / (1.0 + r), out)
    bad = (k < 1) | (k > n)
    e = vec.add_error(e, np.broadcast_to(bad, out.shape), NUM)
    return vec.finish(out, e)


def _ppmt(rate, per, nper, pv, fv=None, typ=None):
    (r, n, p, f, t), e = _args(rate, nper, pv, fv, typ)
    tt = (t != 0).astype(float)
    with np.errstate(all="ignore"):
        pmt = _pmt_raw(r, n, p, f, tt)
    ip = _ipmt(rate, per, nper, pv, fv, typ)
    fi, ei = vec.nums(ip)
    return vec.finish(pmt - fi, vec.merge(e, ei))


def _pmt_raw(r, n, p, f, t):
    g = (1.0 + r) ** n
    return np.where(r == 0, -(p + f) / n, -r * (p * g + f) / ((1.0 + r * t) * (g - 1.0)))


def _fv_raw(r, n, m, p, t):
    g = (1.0 + r) ** n
    return np.where(r == 0, -(p + m * n), -(p * g + m * (1.0 + r * t) * (g - 1.0) / r))


def _npv(rate, *values):
    (r,), e = scalar_nums(rate)
    vals, err = numbers(values)
    used = ~np.isnan(vals)
    period = np.cumsum(used, axis=1)
    r = r.reshape(-1, 1)
    with np.errstate(all="ignore"):
        total = np.nansum(np.where(used, vals, 0.0) / (1.0 + r) ** period, axis=1)
    out = result(total, err, bad=NUM)
    return vec.finish(out, e) if out.dtype == vec.FLOAT else vec.with_errors(out, e)


def _sln(cost, salvage, life):
    (c, s, n), e = scalar_nums(cost, salvage, life)
    with np.errstate(all="ignore"):
        out = (c - s) / n
    e = vec.add_error(e, np.broadcast_to(n == 0, out.shape), DIV0)
    return vec.finish(out, e)


FUNCTIONS = {
    "PMT": Spec(_pmt, 3, 5),
    "PV": Spec(_pv, 3, 5),
    "FV": Spec(_fv, 3, 5),
    "IPMT": Spec(_ipmt, 4, 6),
    "PPMT": Spec(_ppmt, 4, 6),
    "NPV": Spec(_npv, 2, 255, "vr"),
    "SLN": Spec(_sln, 3, 3),
}
