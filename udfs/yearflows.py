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
from .decision_steps import breakeven_utilisation_of_table

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
    ``idle_power_fraction`` 1 the chain's own formula (the revenue alone)."""
    u = np.asarray(used["utilisation"], dtype=float)
    npv, per_rent = used["npv_usd_per_gpu"], used["npv_per_unit_rent"]
    if f["power_use"] is None:
        return breakeven_utilisation_of_table(u, npv, per_rent, used["rent_usd_per_gpu_hour"])
    tax = np.asarray(used["tax_rate"], dtype=float)
    power = flows.npv(f["power_use"], used["cost_of_capital"], f["ppy"], by_period=True) * (1.0 - tax)
    with np.errstate(all="ignore"):
        slope = (per_rent * used["rent_usd_per_gpu_hour"] - u * power) / u
        out = u - npv / slope
    return np.where((out > 0) & (out <= 1), out, np.nan)


#: the chain's steps that read the per-year table, from :func:`by_period`'s flows: key ->
#: function(flows, used values of the scenarios); each equals the chain step's own function
#: applied to the table (tests/test_flows.py)
FROM_FLOWS = {
    "npv_usd_per_gpu": _npv,
    "irr": _irr,
    "payback_years": _payback,
    "npv_per_unit_rent": _npv_per_unit_rent,
    "breakeven_utilisation": _breakeven_utilisation,
}
