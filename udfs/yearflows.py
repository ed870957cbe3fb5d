"""The rent-or-buy results of many scenarios from their yearly cash flows built period by period.

The chain's per-year table (:data:`gputco.udfs.chain.YEAR_STEPS`, the workbook's Cash flow sheet)
defines the cash flows of owning one GPU and renting it out. Of that table the steps that read it
need only two columns: the net cash flow and the revenue. :func:`by_period` builds just those two,
period-major (years, scenarios), one year at a time with running products for the rent decline
and the opex escalation, so the scenario evaluator never holds a (scenarios x 16) column per step
of the table; :data:`FROM_FLOWS` computes the table's readers from them with the kernels of
:mod:`gputco.udfs.flows`. Tests check both against the table, column by column.

>>> f = by_period(31250.0, 2.0, 0.4045, 5.0, 0.0, 1.0, 1.0, 0.0, 5.0, 0.0, 0.0)
>>> f["net"].shape, round(float(f["net"][1, 0]), 2), round(float(f["revenue"][5, 0]), 2)
((6, 1), 13976.58, 17520.0)
"""

from __future__ import annotations

import numpy as np

from . import _check as chk
from . import flows
from .finance import HOURS_PER_YEAR

#: the per-year table's inputs, in the order of :func:`by_period`'s arguments
INPUTS = (
    "capex_per_gpu",
    "rent_usd_per_gpu_hour",
    "opex_usd_per_gpu_hour",
    "life_years",
    "residual_fraction",
    "availability",
    "utilisation",
    "tax_rate",
    "depreciation_years",
    "rent_decline_per_year",
    "opex_escalation_per_year",
)


def by_period(
    capex_per_gpu,
    rent_usd_per_gpu_hour,
    opex_usd_per_gpu_hour,
    life_years,
    residual_fraction,
    availability,
    utilisation,
    tax_rate,
    depreciation_years,
    rent_decline_per_year,
    opex_escalation_per_year,
) -> dict[str, np.ndarray]:
    """The net cash flow and the revenue of the per-year table, each (years 0..T - 1, scenarios)
    with T = 1 + the longest life or depreciation (whole years 1..15, checked).

    Year 0: net = -capex. Year t >= 1: revenue = rent x 8760 x availability x utilisation x
    (1 - decline)^(t - 1) while t <= life; opex = -opex x 8760 x (1 + escalation)^(t - 1) while
    t <= life; depreciation = capex / depreciation years while t <= depreciation years; residual =
    residual fraction x capex in year life; tax = -tax rate x (revenue + opex - depreciation +
    residual); net = revenue + opex + tax + residual.
    """
    given = (
        capex_per_gpu, rent_usd_per_gpu_hour, opex_usd_per_gpu_hour, life_years, residual_fraction,
        availability, utilisation, tax_rate, depreciation_years, rent_decline_per_year,
        opex_escalation_per_year,
    )  # fmt: skip
    args = dict(zip(INPUTS, given, strict=True))
    n = max(np.size(v) for v in args.values())
    v = {k: np.broadcast_to(np.asarray(a, dtype=float), (n,)) for k, a in args.items()}
    life = chk.checked("life_years", v["life_years"], "TCO_CASHFLOWS")
    dep = chk.checked("depreciation_years", v["depreciation_years"], "TCO_CASHFLOWS")
    periods = 1 + int(max(np.max(life), np.max(dep)))
    capex, tax = v["capex_per_gpu"], v["tax_rate"]
    rent = v["rent_usd_per_gpu_hour"] * HOURS_PER_YEAR * v["availability"] * v["utilisation"]
    opex = -v["opex_usd_per_gpu_hour"] * HOURS_PER_YEAR
    decline, escalation = 1.0 - v["rent_decline_per_year"], 1.0 + v["opex_escalation_per_year"]
    per_year_dep = capex / dep
    residual = v["residual_fraction"] * capex
    net, revenue = np.empty((periods, n)), np.empty((periods, n))
    net[0], revenue[0] = -capex, 0.0
    r, o, d, s = (np.empty(n) for _ in range(4))
    for t in range(1, periods):
        live = life >= t
        np.multiply(rent, live, out=r)
        np.multiply(opex, live, out=o)
        np.multiply(per_year_dep, dep >= t, out=d)
        np.multiply(residual, life == t, out=s)
        revenue[t] = r
        # tax = -tax rate x (revenue + opex - depreciation + residual); net = the four flows
        d -= r + o + s
        d *= tax
        d += r + o + s
        net[t] = d
        rent = rent * decline
        opex = opex * escalation
    return {"net": net, "revenue": revenue}


def _npv(f, used):
    return flows.npv(f["net"], used["cost_of_capital"], by_period=True)


def _irr(f, used):
    return flows.irr(f["net"], by_period=True)[0]


def _payback(f, used):
    return flows.payback(f["net"], by_period=True)


def _npv_per_unit_rent(f, used):
    rent = np.asarray(chk.checked("rent_usd_per_gpu_hour", used["rent_usd_per_gpu_hour"]), dtype=float)
    tax = np.asarray(chk.checked("tax_rate", used["tax_rate"]), dtype=float)
    return flows.npv(f["revenue"], used["cost_of_capital"], by_period=True) / rent * (1.0 - tax)


#: the chain's steps that read the per-year table, from :func:`by_period`'s flows: key ->
#: function(flows, used values of the scenarios); each equals the chain step's own function
#: applied to the table (tests/test_flows.py)
FROM_FLOWS = {
    "npv_usd_per_gpu": _npv,
    "irr": _irr,
    "payback_years": _payback,
    "npv_per_unit_rent": _npv_per_unit_rent,
}
