"""The lender's results of today's debt (udfs/project.py, docs/project.md): the mean DSCR, LLCR,
PLCR, the periods below the covenant and the debt per GPU, against numpy-financial's NPV of the
period lines' CFADS, the lines' own DSCRs, and an annuity's identity (a level payment against a
level CFADS: every cover the same, LLCR = DSCR)."""

from __future__ import annotations

import math

import numpy as np
import numpy_financial as npf
import project_pin_record
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gputco.udfs import project
from gputco.udfs.errors import NoSolutionError

LENDER = ("min_dscr", "avg_dscr", "llcr", "plcr", "dscr_breach_periods", "debt_usd_per_gpu")


def _levered(seed: int, month: bool) -> dict:
    return project_pin_record.seeded(seed, month, covenant=True)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), month=st.booleans())
def test_the_lender_results_are_numpy_financials_npv_of_the_lines(seed, month):
    case = _levered(seed, month)
    out = {k: float(v[0]) for k, v in project.results(case, LENDER).items()}
    lines = project.period_lines(case)
    service, cfads = lines["service"][:, 0], lines["cfads"][:, 0]
    paying = service > 0
    assert paying.any()
    dscr = cfads[paying] / service[paying]
    assert math.isclose(out["min_dscr"], dscr.min(), rel_tol=1e-9, abs_tol=1e-12)
    assert math.isclose(out["avg_dscr"], dscr.mean(), rel_tol=1e-9, abs_tol=1e-12)
    assert out["min_dscr"] <= out["avg_dscr"] + 1e-12
    assert out["dscr_breach_periods"] == np.sum(dscr < case["covenant_dscr"])
    # LLCR and PLCR: numpy-financial's NPV at the period rate from in-service (its first value
    # undiscounted: the in-service period itself carries no CFADS), over the debt then
    b = round(case.get("build_months", 0) * (12 if month else 1) / 12)
    rate = (1 + case.get("debt_rate", case["cost_of_capital"])) ** (1 / (12 if month else 1)) - 1
    owed = case["debt_fraction"] * case["capex_per_gpu"] * (1 + rate) ** b
    assert cfads[b] == 0.0
    llcr = npf.npv(rate, np.where(paying, cfads, 0.0)[b:]) / owed
    plcr = npf.npv(rate, cfads[b:]) / owed
    assert math.isclose(out["llcr"], llcr, rel_tol=1e-9, abs_tol=1e-12)
    assert math.isclose(out["plcr"], plcr, rel_tol=1e-9, abs_tol=1e-12)
    assert out["debt_usd_per_gpu"] == case["debt_fraction"] * case["capex_per_gpu"]


@settings(max_examples=40, deadline=None)
@given(
    capex=st.floats(10000, 60000),
    rent=st.floats(1.5, 6.0),
    debt=st.floats(0.1, 0.9),
    rate=st.floats(0.0, 0.15),
    life=st.integers(2, 8),
    month=st.booleans(),
    data=st.data(),
)
def test_a_level_payment_against_a_level_cfads_has_one_cover_and_llcr_equal_to_it(
    capex, rent, debt, rate, life, month, data
):
    """No ramp, decline, escalation, tax or contract: CFADS is the same every period, so every
    DSCR is CFADS / payment and the LLCR (the PV of CFADS over the PV of the payments, which is
    the debt) is the same number."""
    years = data.draw(st.integers(1, life))
    case = {
        "capex_per_gpu": capex,
        "rent_usd_per_gpu_hour": rent,
        "opex_usd_per_gpu_hour": 0.3,
        "life_years": life,
        "cost_of_capital": 0.1,
        "debt_fraction": debt,
        "debt_rate": rate,
        "debt_years": years,
        "periods": "month" if month else "year",
    }
    out = {k: float(v[0]) for k, v in project.results(case, LENDER).items()}
    assert math.isclose(out["min_dscr"], out["avg_dscr"], rel_tol=1e-9)
    assert math.isclose(out["llcr"], out["avg_dscr"], rel_tol=1e-9)
    assert out["plcr"] >= out["llcr"] * (1 - 1e-12)
    if years == life:
        assert math.isclose(out["plcr"], out["llcr"], rel_tol=1e-9)
    # the covenant at the cover itself: no period is below it (the test is strict)
    at = dict(case, covenant_dscr=out["min_dscr"])
    assert project.results(at, ("dscr_breach_periods",))["dscr_breach_periods"][0] == 0
    above = dict(case, covenant_dscr=out["min_dscr"] * 1.001)
    assert project.results(above, ("dscr_breach_periods",))["dscr_breach_periods"][0] == years * (
        12 if month else 1
    )


def test_the_functions_give_the_results_and_refuse_without_debt():
    kw = {"periods": "month", "build_months": 12, "ramp_months": 3, "debt_fraction": 0.6, "debt_rate": 0.09,
          "debt_years": 4, "tax_rate": 0.21, "depreciation_method": "macrs_5"}  # fmt: skip
    out = project.results({"capex_per_gpu": 31250.0, "rent_usd_per_gpu_hour": 2.0, "opex_usd_per_gpu_hour": 0.4045,
                           "life_years": 5, "cost_of_capital": 0.1, **kw})  # fmt: skip
    assert project.tco_avg_dscr(31250, 2.0, 0.4045, 5, 0.1, **kw) == out["avg_dscr"][0]
    assert project.tco_llcr(31250, 2.0, 0.4045, 5, 0.1, **kw) == out["llcr"][0]
    assert project.tco_debt_per_gpu(31250, 2.0, 0.4045, 5, 0.1, **kw) == 0.6 * 31250
    # the ramp's first month is the lowest cover; the memo case breaches a 1.0x covenant twice
    assert out["dscr_breach_periods"][0] == 2
    for f in (project.tco_avg_dscr, project.tco_llcr):
        with pytest.raises(NoSolutionError, match="debt_fraction is 0"):
            f(31250, 2.0, 0.4045, 5, 0.1)
    assert project.tco_debt_per_gpu(31250, 2.0, 0.4045, 5, 0.1) == 0.0
    with pytest.raises(Exception, match="covenant_dscr"):
        project.tco_llcr(31250, 2.0, 0.4045, 5, 0.1, debt_fraction=0.5, covenant_dscr=0)


@pytest.mark.parametrize("rate", [5e-324, 1e-310, 1e-17])
def test_a_rate_too_small_to_show_gives_the_covers_and_ltv_of_a_rate_of_zero(rate):
    """The limit of the annuity as the rate goes to 0 is balance / n: Hypothesis found the
    smallest subnormal rate, where balance x rate rounded (DSCR 5.2959 against an LLCR of 5.2949,
    the level payment 2,812 for 2,812.50); (1 + rate)^k - 1 is 0 in floats below about 1e-16, so
    the balance did not fall. The case: 10,000 capex, 28.125% debt over 1 and 2 years."""
    for years, periods in ((1, "year"), (2, "month")):
        case = {
            "capex_per_gpu": 10000.0,
            "rent_usd_per_gpu_hour": 2.0,
            "opex_usd_per_gpu_hour": 0.3,
            "life_years": 2,
            "cost_of_capital": 0.1,
            "debt_fraction": 0.28125,
            "debt_years": years,
            "periods": periods,
            "max_ltv_covenant": 0.2,
        }
        keys = (*LENDER, "max_ltv", "ltv_at_maturity", "ltv_breach_periods")
        tiny = project.results(dict(case, debt_rate=rate), keys)
        zero = project.results(dict(case, debt_rate=0.0), keys)
        for k in keys:
            assert math.isclose(tiny[k][0], zero[k][0], rel_tol=1e-12), (k, tiny[k][0], zero[k][0])
