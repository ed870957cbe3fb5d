"""The rent-or-buy results of many scenarios from their cash flows built period by period.

The chain's per-year table (:data:`gputco.udfs.chain.YEAR_STEPS`, the workbook's Cash flow sheet)
defines the cash flows of owning one GPU and renting it out; :mod:`gputco.udfs.project` builds
them, period-major (periods, scenarios), one period at a time (by year, or by month with the
project's build, ramp, contracts, debt and tax depreciation), so the scenario evaluator never
holds a (scenarios x periods) column per step of the table. :data:`FROM_FLOWS` computes the
table's readers from the net cash flow and the revenue with the kernels of
:mod:`gputco.udfs.flows`; at the project inputs' defaults the flows are the table's own, column
by column (tests/test_flows.py).

>>> f = by_period({"capex_per_gpu": 31250.0, "rent_usd_per_gpu_hour": 2.0,
...                "opex_usd_per_gpu_hour": 0.4045, "life_years": 5.0})
>>> f["net"].shape, round(float(f["net"][1, 0]), 2), round(float(f["revenue"][5, 0]), 2)
((6, 1), 13976.58, 17520.0)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from . import _check as chk
from . import flows, project
from .decision_steps import breakeven_rent_of_table, breakeven_utilisation_of_table

#: the inputs of the cash flows (the names of the project's terms and choices)
INPUTS = (*project.TERMS, *project.CHOICES, *project.CURVE_TERMS)


def by_period(values: Mapping[str, object], function: str = "TCO_CASHFLOWS") -> dict[str, Any]:
    """The flows of :func:`gputco.udfs.project.project_flows` (each (periods, scenarios)) of
    scenarios that share one kind of period, with ``ppy`` (periods per year) and the checked
    ``terms``."""
    t = project.terms(values, function)
    if t["ppy"].min() != t["ppy"].max():
        raise chk.InputRangeError("periods", "year and month", "one kind of period per call")
    f: dict[str, Any] = dict(project.project_flows(t))
    f["ppy"] = int(t["ppy"][0])
    f["terms"] = t
    return f


def _npv(f, used):
    return flows.npv(f["net"], used["cost_of_capital"], f["ppy"], by_period=True)


def _irr(f, used):
    return flows.irr(f["net"], f["ppy"], by_period=True)[0]


def _payback(f, used):
    return flows.payback(f["net"], f["ppy"], by_period=True)


def _npv_per_unit_rent(f, used):
    rent = np.asarray(chk.checked("rent_usd_per_gpu_hour", used["rent_usd_per_gpu_hour"]), dtype=float)
    tax = np.asarray(chk.checked("tax_rate", used["tax_rate"]), dtype=float)
    return flows.npv(f["revenue"], used["cost_of_capital"], f["ppy"], by_period=True) / rent * (1.0 - tax)


def _breakeven_utilisation(f, used):
    """Where an idle GPU draws less power the opex falls with the utilisation too: NPV is still a
    straight line in the utilisation, with slope (NPV of the revenue sold - NPV of the power it
    draws) per unit of utilisation, after tax; its root in (0, 1] (else NaN). At
    ``idle_power_fraction`` 1 the chain's own formula (the revenue alone). With ``tax_losses``
    ``carry_forward`` the tax is not linear in the utilisation: those rows' root is searched
    (:func:`_carried_root`)."""
    u = np.asarray(used["utilisation"], dtype=float)
    npv, per_rent = used["npv_usd_per_gpu"], used["npv_per_unit_rent"]
    if f["power_use"] is None:
        out = breakeven_utilisation_of_table(u, npv, per_rent, used["rent_usd_per_gpu_hour"])
    else:
        tax = np.asarray(used["tax_rate"], dtype=float)
        power = flows.npv(f["power_use"], used["cost_of_capital"], f["ppy"], by_period=True) * (1.0 - tax)
        with np.errstate(all="ignore"):
            slope = (per_rent * used["rent_usd_per_gpu_hour"] - u * power) / u
            out = u - npv / slope
        out = np.where((out > 0) & (out <= 1), out, np.nan)
    return _carried_root(f, used, "utilisation", out, (UTILISATION_FLOOR, 1.0))


def _breakeven_rent(f, used):
    """The chain's break-even rent (NPV is linear in the rent: the line's root, the contracts as
    given); with ``tax_losses`` ``carry_forward`` the tax is not linear in the rent: those rows'
    root is searched (:func:`_carried_root`), NaN where no GPU-hour is sold at the market rent."""
    rent = used["rent_usd_per_gpu_hour"]
    out = breakeven_rent_of_table(rent, used["npv_usd_per_gpu"], used["npv_per_unit_rent"])
    return _carried_root(f, used, "rent_usd_per_gpu_hour", out, None)


#: the least utilisation the break-even utilisation's search tries (the range is (0, 1])
UTILISATION_FLOOR = 1e-9
#: the break-even search's tolerance: the bracket's width relative to its rate (or 1)
CARRIED_TOLERANCE = 1e-13


def _carried_root(f, used, name: str, out: np.ndarray, bounds: tuple[float, float] | None) -> np.ndarray:
    """``out`` (the linear break-even of term ``name``: the rent or the utilisation) with the
    rows whose tax losses are carried forward (``tax_losses`` ``carry_forward``) replaced by the
    root of their NPV in ``name``: NPV is then piecewise linear in it (a loss carried moves the
    tax to later periods), continuous and rising (more rent sold, more cash after tax: the tax
    takes at most the tax rate of it, later), so the root is unique where NPV changes sign. From
    the linear estimate (or the middle of ``bounds``) a bracket is widened (doubling its step)
    until NPV changes sign, then closed by regula falsi (Illinois) to
    :data:`CARRIED_TOLERANCE`; with ``bounds`` (the utilisation's (0, 1]) the root is searched
    there only, NaN where NPV does not change sign within them (as the linear formula's NaN).
    Rows where the linear break-even is NaN for want of a market rent stay NaN."""
    t = f["terms"]
    rows = np.flatnonzero(t["losses"] == project.TAX_LOSSES.index("carry_forward"))
    if not rows.size:
        return out
    out = np.array(np.broadcast_to(out, t["losses"].shape), dtype=float)
    coc = np.broadcast_to(np.asarray(used["cost_of_capital"], dtype=float), t["losses"].shape)[rows]
    sub = {k: v[rows] for k, v in t.items()}
    ppy = int(f["ppy"])

    def npv(x: np.ndarray, at: np.ndarray) -> np.ndarray:
        terms = {k: v[at] for k, v in sub.items()}
        terms[name] = x
        return flows.npv(project.project_flows(terms)["net"], coc[at], ppy, by_period=True)

    if bounds is None:
        start = out[rows]
        live = np.isfinite(start)  # NaN: no GPU-hour sold at the market rent, no root
        lo, hi = start.copy(), start.copy()
        f_lo = np.full(rows.size, np.nan)
        at = np.flatnonzero(live)
        f_lo[at] = npv(start[at], at)
        f_hi = f_lo.copy()
        step = np.maximum(np.abs(start), 1.0) * 0.01
        for _ in range(80):  # widen the bracket away from the linear estimate until NPV changes sign
            need = np.flatnonzero(live & ~((f_lo <= 0) & (f_hi >= 0)))
            if not need.size:
                break
            below = f_hi[need] < 0  # NPV rises with the rent: the root lies above
            x = np.where(below, hi[need] + step[need], lo[need] - step[need])
            got = npv(x, need)
            up, down = need[below], need[~below]
            lo[up], f_lo[up] = hi[up], f_hi[up]
            hi[up], f_hi[up] = x[below], got[below]
            hi[down], f_hi[down] = lo[down], f_lo[down]
            lo[down], f_lo[down] = x[~below], got[~below]
            step[need] *= 2.0
        live &= (f_lo <= 0) & (f_hi >= 0)
    else:
        lo, hi = np.full(rows.size, bounds[0]), np.full(rows.size, bounds[1])
        all_rows = np.arange(rows.size)
        f_lo, f_hi = npv(lo, all_rows), npv(hi, all_rows)
        live = (f_lo <= 0) & (f_hi >= 0) & ~((f_lo == 0) & (f_hi == 0))
    root = np.where(f_lo == 0, lo, hi)
    going = live & (f_lo < 0) & (f_hi > 0)
    side = np.zeros(rows.size, dtype=np.int8)  # the end kept by the last step (Illinois)
    for _ in range(200):
        at = np.flatnonzero(going & (hi - lo > CARRIED_TOLERANCE * np.maximum(np.abs(hi), 1.0)))
        if not at.size:
            break
        x = hi[at] - f_hi[at] * (hi[at] - lo[at]) / (f_hi[at] - f_lo[at])
        bad = ~((x > lo[at]) & (x < hi[at]))
        x[bad] = 0.5 * (lo[at][bad] + hi[at][bad])
        got = npv(x, at)
        root[at] = x
        done = got == 0
        going[at[done]] = False
        pos = got > 0
        a, b = at[pos & ~done], at[~pos & ~done]
        hi[a], f_hi[a] = x[pos & ~done], got[pos & ~done]
        f_lo[a] = np.where(side[a] == 1, 0.5 * f_lo[a], f_lo[a])  # the low end kept twice: halved
        lo[b], f_lo[b] = x[~pos & ~done], got[~pos & ~done]
        f_hi[b] = np.where(side[b] == -1, 0.5 * f_hi[b], f_hi[b])
        side[a], side[b] = 1, -1
    root = np.where(going, np.where(np.abs(f_lo) < np.abs(f_hi), lo, hi), root)
    out[rows] = np.where(live, root, np.nan)
    return out


#: the chain's steps that read the per-year table, from :func:`by_period`'s flows: key ->
#: function(flows, used values of the scenarios); each equals the chain step's own function
#: applied to the table (tests/test_flows.py)
FROM_FLOWS = {
    "npv_usd_per_gpu": _npv,
    "irr": _irr,
    "payback_years": _payback,
    "npv_per_unit_rent": _npv_per_unit_rent,
    "breakeven_utilisation": _breakeven_utilisation,
    "breakeven_rent_usd_per_gpu_hour": _breakeven_rent,
}
