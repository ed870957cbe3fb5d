"""The cluster as a financed project (udfs/project.py, docs/project.md): the identities of its definitions
for random inputs, with numpy-financial as the oracle for payments and IRRs, IRS Publication 946
Table A-1 for MACRS, and today's cash flows (the chain's per-year table) at the defaults."""

from __future__ import annotations

import math
import warnings

import numpy as np
import numpy_financial as npf
import pytest
from fuzzing import fuzz_settings
from hypothesis import assume, given
from hypothesis import strategies as st
from project_draws import MONTH_DEBT, drawn

from gputco.udfs import decisions, project, scenario
from gputco.udfs.errors import InputRangeError, UnknownNameError

#: a profitable GPU (one sign change in its cash flows): capex, rent, opex, life
profitable = st.fixed_dictionaries(
    {
        "capex_per_gpu": st.floats(10_000.0, 60_000.0),
        "rent_usd_per_gpu_hour": st.floats(2.0, 8.0),
        "opex_usd_per_gpu_hour": st.floats(0.1, 0.6),
        "life_years": st.integers(3, 8).map(float),
        "availability": st.floats(0.8, 1.0),
        "utilisation": st.floats(0.6, 1.0),
        "residual_fraction": st.floats(0.0, 0.3),
        "cost_of_capital": st.floats(0.02, 0.2),
    }
)
periods = st.sampled_from(["year", "month"])


def one(values, key):
    return float(project.results(values)[key][0])


def test_macrs_tables_are_irs_publication_946_table_a1():
    """IRS Publication 946 (2023), Table A-1, half-year convention: 5-year 20, 32, 19.2, 11.52,
    11.52, 5.76 %; 7-year 14.29, 24.49, 17.49, 12.49, 8.93, 8.92, 8.93, 4.46 %; each sums to 100."""
    assert project.MACRS["macrs_5"] == (20.00, 32.00, 19.20, 11.52, 11.52, 5.76)
    assert project.MACRS["macrs_7"] == (14.29, 24.49, 17.49, 12.49, 8.93, 8.92, 8.93, 4.46)
    for table in project.MACRS.values():
        assert sum(table) == pytest.approx(100.0, abs=1e-9)
    # a life shorter than the recovery period: the basis left is deducted in the last year
    assert project.depreciation_fractions("macrs_7", 4, 4) == pytest.approx([0.1429, 0.2449, 0.1749, 0.4373])
    assert sum(project.depreciation_fractions("macrs_5", 3, 8, bonus=0.4)) == pytest.approx(1.0, abs=1e-12)


#: today's cash-flow inputs over their ranges (life and depreciation in whole years)
todays = st.fixed_dictionaries(
    {
        "capex_per_gpu": st.floats(1_000.0, 100_000.0),
        "rent_usd_per_gpu_hour": st.floats(0.1, 10.0),
        "opex_usd_per_gpu_hour": st.floats(0.05, 2.0),
        "life_years": st.integers(1, 15).map(float),
        "residual_fraction": st.floats(0.0, 0.6),
        "availability": st.floats(0.3, 1.0),
        "utilisation": st.floats(0.2, 1.0),
        "tax_rate": st.floats(0.0, 0.5),
        "rent_decline_per_year": st.floats(0.0, 0.9),
        "opex_escalation_per_year": st.floats(-0.5, 1.0),
        "cost_of_capital": st.floats(0.0, 0.3),
    }
)


@given(todays, st.data())
@fuzz_settings(share=0.3)
def test_defaults_give_todays_npv_and_irr_exactly(v, data):
    """Every project input at its default: the NPV and IRR of TCO_NPV and TCO_IRR (today's
    end-of-year cash flows), to the last bit."""
    v = {**v, "depreciation_years": float(data.draw(st.integers(1, int(v["life_years"]))))}
    cash = {k: v[k] for k in decisions.CASH_TERMS}
    got = project.results(v, ("project_npv_usd_per_gpu", "project_irr", "equity_irr"))
    assert got["project_npv_usd_per_gpu"][0] == decisions.tco_npv(
        cost_of_capital=v["cost_of_capital"], **cash
    )
    if got["project_irr_why"][0] == 0:
        assert got["project_irr"][0] == decisions.tco_irr(**cash)
        assert got["equity_irr"][0] == got["project_irr"][0]


@given(profitable, periods, st.floats(0.0, 0.4), st.sampled_from(list(project.DEPRECIATION_METHODS)))
@fuzz_settings(share=0.3)
def test_without_debt_equity_is_the_project(v, per, tax, method):
    """debt_fraction 0: equity IRR = project IRR and equity NPV = NPV (cost of equity = cost of
    capital), whatever the period, tax and depreciation."""
    values = {**v, "periods": per, "tax_rate": tax, "depreciation_method": method, "build_months": 12.0}
    out = project.results(values)
    assert out["equity_irr"][0] == out["project_irr"][0]
    assert out["equity_npv_usd_per_gpu"][0] == out["project_npv_usd_per_gpu"][0]
    assert np.isnan(out["min_dscr"][0])


@given(profitable, periods, st.floats(0.1, 0.8), st.floats(0.0, 0.6), st.integers(0, 12))
@fuzz_settings(share=0.3)
def test_leverage_raises_equity_irr_above_the_debt_rate_and_lowers_it_below(v, per, debt, rate, build):
    """Tax 0: with a project IRR above debt_rate, equity IRR > IRR; below it, equity IRR < IRR
    (leverage amplifies the spread between the project's return and the debt's)."""
    values = {**v, "periods": per, "debt_fraction": debt, "debt_rate": rate}
    values["build_months"] = float(12 * (build // 12) if per == "year" else build)
    out = project.results(values)
    irr, eq = out["project_irr"][0], out["equity_irr"][0]
    assume(np.isfinite(irr) and np.isfinite(eq) and abs(irr - rate) > 1e-6)
    if irr > rate:
        assert eq > irr
    else:
        assert eq < irr


@pytest.mark.filterwarnings("ignore:invalid value encountered in divide")  # npf.pmt at rate 0
@given(profitable, periods, st.floats(0.1, 0.9), st.floats(0.0, 0.3), st.integers(1, 8), st.integers(0, 24))
@fuzz_settings(share=0.3)
def test_debt_service_is_numpy_financial_pmt_and_repays_principal_and_interest(
    v, per, debt, rate, tenor, build
):
    """Level payments per period = numpy-financial's pmt at the period rate (1 + rate)^(1/ppy) - 1
    on the balance at in-service (the draw with the build's interest added); over the tenor they
    repay exactly that balance plus the interest on it."""
    tenor = min(tenor, int(v["life_years"]))
    ppy = project.PERIODS[per]
    build = 12 * (build // 12) if per == "year" else build
    values = {**v, "periods": per, "debt_fraction": debt, "debt_rate": rate, "debt_years": float(tenor)}
    values["build_months"] = float(build)
    t = project.terms(values)
    f = project.project_flows(t)
    i = (1.0 + rate) ** (1.0 / ppy) - 1.0
    assume(rate == 0 or rate > 1e-6)  # below, numpy-financial's pmt loses its digits
    b = build * ppy // 12
    balance = debt * v["capex_per_gpu"] * (1.0 + i) ** b
    n = tenor * ppy
    payment = -npf.pmt(i, n, balance)
    service = f["service"][:, 0]
    assert service[1 : b + 1].sum() == 0  # nothing is paid during the build
    np.testing.assert_allclose(service[b + 1 : b + n + 1], payment, rtol=1e-9)  # npf's own precision
    assert service[b + n + 1 :].sum() == 0
    interest = sum(
        -npf.ipmt(i, k, n, balance) for k in range(1, n + 1)
    )  # numpy-financial's interest part of each payment
    assert service.sum() == pytest.approx(balance + interest, rel=1e-10)


@given(profitable, st.floats(0.1, 0.8), st.floats(0.02, 0.15), st.floats(0.0, 0.35), st.integers(0, 12))
@fuzz_settings(share=0.3)
def test_monthly_equity_irr_is_numpy_financial_irr_of_the_months(v, debt, rate, tax, build):
    """periods "month": equity IRR = (1 + numpy-financial's irr of the monthly equity flows)^12 - 1
    to 1e-9, and NPV = numpy-financial's npv at the monthly rate (1 + r)^(1/12) - 1."""
    v = {
        **v,
        "life_years": min(v["life_years"], 5.0),
        "rent_usd_per_gpu_hour": v["rent_usd_per_gpu_hour"] + 2,
    }
    values = {**v, "periods": "month", "debt_fraction": debt, "debt_rate": rate, "tax_rate": tax}
    values.update(build_months=float(build), ramp_months=3.0, depreciation_method="macrs_5")
    f = project.project_flows(project.terms(values))
    equity, net = f["equity"][:, 0], f["net"][:, 0]
    assume(np.count_nonzero(np.diff(np.sign(equity[equity != 0]))) == 1)  # one root
    out = project.results(values)
    monthly = npf.irr(equity)
    assert out["equity_irr"][0] == pytest.approx((1.0 + monthly) ** 12 - 1.0, abs=1e-9)
    r = (1.0 + v["cost_of_capital"]) ** (1.0 / 12.0) - 1.0
    assert out["project_npv_usd_per_gpu"][0] == pytest.approx(npf.npv(r, net), rel=1e-9, abs=1e-6)


@given(profitable, periods, st.floats(0.05, 0.45), st.floats(0.0, 1.0))
@fuzz_settings(share=0.3)
def test_depreciation_changes_only_the_timing_of_tax(v, per, tax, bonus):
    """At a cost of capital of 0 the NPV is the same for every method and bonus fraction (the
    deductions always total the capex; losses are credits); at a positive rate straight line over
    5 years <= MACRS 5 <= 100% bonus (earlier deductions are worth more)."""
    v = {**v, "periods": per, "tax_rate": tax, "life_years": max(v["life_years"], 5.0)}
    flat = {**v, "cost_of_capital": 0.0}
    base = one({**flat, "depreciation_years": 5.0}, "project_npv_usd_per_gpu")
    for method in project.DEPRECIATION_METHODS:
        got = one(
            {**flat, "depreciation_method": method, "bonus_depreciation_fraction": bonus},
            "project_npv_usd_per_gpu",
        )
        assert got == pytest.approx(base, rel=1e-9, abs=1e-6)
    sl5 = one({**v, "depreciation_years": 5.0}, "project_npv_usd_per_gpu")
    macrs5 = one({**v, "depreciation_method": "macrs_5"}, "project_npv_usd_per_gpu")
    bonus_all = one({**v, "bonus_depreciation_fraction": 1.0}, "project_npv_usd_per_gpu")
    assert sl5 <= macrs5 + 1e-6 <= bonus_all + 2e-6


@given(profitable, periods, st.floats(0.0, 0.4), st.floats(0.0, 0.2), st.floats(0.0, 0.1))
@fuzz_settings(share=0.3)
def test_a_twelve_month_build_discounts_everything_after_the_capex_by_a_year(v, per, tax, dec, esc):
    """build_months 12, no debt, nothing else changed: NPV = -capex + (NPV at build 0 + capex) /
    (1 + cost_of_capital)."""
    values = {**v, "periods": per, "tax_rate": tax, "rent_decline_per_year": dec}
    values.update(opex_escalation_per_year=esc, ramp_months=2.0, maintenance_fraction_per_year=0.02)
    now = one(values, "project_npv_usd_per_gpu")
    later = one({**values, "build_months": 12.0}, "project_npv_usd_per_gpu")
    c, r = v["capex_per_gpu"], v["cost_of_capital"]
    assert later == pytest.approx(-c + (now + c) / (1.0 + r), rel=1e-10, abs=1e-6)


@given(profitable, periods, st.floats(0.0, 0.5), st.floats(0.0, 0.9), st.floats(0.5, 6.0))
@fuzz_settings(share=0.3)
def test_a_whole_life_contract_makes_the_rent_decline_irrelevant(v, per, tax, dec, rent):
    """contracted_fraction 1 and contract_years >= the life: rent_decline_per_year has no effect
    (every GPU is paid the contract rent for every available hour)."""
    values = {**v, "periods": per, "tax_rate": tax, "contracted_fraction": 1.0}
    values.update(contract_years=v["life_years"] + 1, contract_rent_usd_per_gpu_hour=rent)
    flat = project.results(values)
    falling = project.results({**values, "rent_decline_per_year": dec})
    assert falling["project_npv_usd_per_gpu"][0] == flat["project_npv_usd_per_gpu"][0]
    # and the revenue is the contract's: rent x 8760 x availability a year, undiscounted
    f = project.project_flows(project.terms({**values, "tax_rate": 0.0, "opex_usd_per_gpu_hour": 0.0}))
    yearly = rent * 8760 * v["availability"] * v["life_years"]
    assert f["net"][1:, 0].sum() == pytest.approx(yearly + v["residual_fraction"] * v["capex_per_gpu"])


@given(profitable, periods, st.floats(0.05, 0.5), st.floats(0.3, 1.0), st.floats(0.3, 1.0))
@fuzz_settings(share=0.3)
def test_with_idle_power_zero_power_cost_is_proportional_to_utilisation(v, per, power, u1, u2):
    """idle_power_fraction 0: the power per installed GPU-hour, and the opex of a GPU whose only
    opex is power, are proportional to utilisation x availability."""
    a = v["availability"]
    assert project.power_usd_per_gpu_hour(power, 0.0, u1, a) == pytest.approx(power * u1 * a)
    base = {**v, "periods": per, "opex_usd_per_gpu_hour": power, "power_usd_per_gpu_hour": power}
    base.update(idle_power_fraction=0.0, rent_usd_per_gpu_hour=1e-9, residual_fraction=0.0)
    opex = [
        project.project_flows(project.terms({**base, "utilisation": u}))["net"][1:, 0].sum()
        - 1e-9 * 8760 * a * u * v["life_years"]
        for u in (u1, u2)
    ]
    assert opex[0] / opex[1] == pytest.approx(u1 / u2, rel=1e-9)
    full = project.project_flows(project.terms({**base, "idle_power_fraction": 1.0}))["net"][1:, 0].sum()
    assert full == pytest.approx(
        -power * 8760 * v["life_years"] + 1e-9 * 8760 * a * v["utilisation"] * v["life_years"]
    )


@pytest.mark.parametrize("idle", [1.0, 0.3, 0.0])
def test_the_breakeven_utilisation_has_npv_zero_whatever_the_idle_power(idle):
    """The break-even utilisation (NPV = 0) where an idle GPU draws less power: the opex falls with
    the utilisation too; at that utilisation the NPV is 0 (by month, with a ramp and debt)."""
    base = {
        "system": ["H100_HGX", "GB200_NVL72"],
        "mfu": 0.5,
        "rent_usd_per_gpu_hour": [2.2, 3.6],
        "idle_power_fraction": idle,
        "tax_rate": 0.21,
        "periods": "month",
        "ramp_months": 3,
        "utilisation": 0.9,
    }
    u = scenario.evaluate(base)["project_breakeven_utilisation"]
    assert np.all((u > 0.3) & (u < 1))
    again = scenario.evaluate({**base, "utilisation": u})
    np.testing.assert_allclose(again["project_npv_usd_per_gpu"], 0.0, atol=1e-6)


def test_cluster_results_are_per_gpu_times_the_gpus_installed():
    """cluster_npv_usd = npv_usd_per_gpu x GPUs installed (whole racks: 1,152 GB200 = 16 x 72);
    the same for the equity NPV and the peak funding; debt, month mode and MACRS included."""
    inputs = {
        "system": ["GB200_NVL72", "H100_HGX", "GB200_NVL72"],
        "gpus": [1152, 2048, 1000],
        "mfu": 0.5,
        "rent_usd_per_gpu_hour": [4.0, 2.0, 3.5],
        "periods": ["month", "year", "month"],
        "debt_fraction": [0.6, 0.0, 0.5],
        "debt_rate": 0.09,
        "debt_years": 4.0,
        "depreciation_method": ["macrs_5", "straight_line", "macrs_7"],
        "build_months": [12.0, 0.0, 6.0],
        "ramp_months": [3.0, 0.0, 0.0],
        "tax_rate": 0.21,
    }
    out = scenario.evaluate(inputs)
    np.testing.assert_array_equal(out["cluster_gpus_installed"], [1152, 2048, 1008])
    for cluster, per_gpu in (
        ("cluster_npv_usd", "project_npv_usd_per_gpu"),
        ("cluster_equity_npv_usd", "equity_npv_usd_per_gpu"),
        ("cluster_peak_funding_usd", "peak_funding_usd_per_gpu"),
    ):
        np.testing.assert_allclose(out[cluster], out[per_gpu] * out["cluster_gpus_installed"], rtol=1e-15)
    assert out["equity_irr"][1] == out["project_irr"][1] and np.isnan(out["min_dscr"][1])
    # peak funding: year 0 of an all-equity GPU is its capex; with debt, the equity part at least
    assert out["peak_funding_usd_per_gpu"][1] == pytest.approx(-out["capex_per_gpu"][1])
    assert out["peak_funding_usd_per_gpu"][0] <= -0.4 * out["capex_per_gpu"][0]


def test_defaults_leave_the_evaluator_unchanged():
    """The seed's figures at the defaults: H100 at $2.00 (NPV 17,850.43, IRR 34.60%, payback 2.2358
    years, the TCO_ functions' doctests) with every project input at its default, given or not."""
    base = {"system": "H100_HGX", "mfu": 0.5, "rent_usd_per_gpu_hour": 2.0}
    out = scenario.evaluate(base)
    assert round(float(out["project_npv_usd_per_gpu"][0]), 2) == 17850.43
    assert round(float(out["project_irr"][0]), 6) == 0.346044
    defaults = {"periods": "year", "build_months": 0.0, "idle_power_fraction": 1.0, "debt_fraction": 0.0}
    again = scenario.evaluate({**base, **defaults, "depreciation_method": "straight_line"})
    for key in (
        "project_npv_usd_per_gpu",
        "project_irr",
        "project_payback_years",
        "project_breakeven_rent_usd_per_gpu_hour",
    ):
        assert again[key][0] == out[key][0], key


def test_bad_project_inputs_name_the_input_the_value_and_the_range():
    base = {
        "capex_per_gpu": 30000.0,
        "rent_usd_per_gpu_hour": 2.0,
        "opex_usd_per_gpu_hour": 0.4,
        "life_years": 5.0,
    }
    with pytest.raises(
        InputRangeError, match=r'build_months must be a multiple of 12 with periods "year", got 6'
    ):
        project.results({**base, "build_months": 6.0})
    with pytest.raises(InputRangeError, match=r"debt_years must be .* in \(0, life_years = 5\] .*, got 6"):
        project.results({**base, "debt_years": 6.0})
    # the tenor: whole periods where there is debt, one rule on every route
    with pytest.raises(InputRangeError, match=r"debt_years must be a whole number of periods .*got 2.5"):
        project.results({**base, "debt_years": 2.5, "debt_fraction": 0.5})
    with pytest.raises(InputRangeError, match=r"debt_years must be a whole number of periods .*got 2.51"):
        project.results({**base, "debt_years": 2.51, "debt_fraction": 0.5, "periods": "month"})
    with pytest.raises(InputRangeError, match=r"debt_years must be a whole number of periods .*got 2.5"):
        project.tco_equity_irr(30000, 2.0, 0.4, 5, 0.1, debt_fraction=0.5, debt_years=2.5)
    with pytest.raises(
        InputRangeError, match=r"debt_years must be a whole number of periods .*got 2.5 \(element \[1\]\)"
    ):
        scenario.evaluate({"system": "H100_HGX", "mfu": 0.5, "rent_usd_per_gpu_hour": 2.0,
                           "debt_fraction": 0.5, "debt_years": [2.0, 2.5]})  # fmt: skip
    # 2.5 years by month is 30 months: computed on every route (the function's range was whole years)
    monthly = {**base, "cost_of_capital": 0.1, "debt_years": 2.5, "debt_fraction": 0.5, "periods": "month"}
    got = project.tco_equity_irr(30000, 2.0, 0.4, 5, 0.1, debt_fraction=0.5, debt_years=2.5, periods="month")
    assert got == project.results(monthly, ("equity_irr",))["equity_irr"][0]
    with pytest.raises(InputRangeError, match=r"debt_fraction must be in \[0, 1\), got 1"):
        project.results({**base, "debt_fraction": 1.0})
    with pytest.raises(UnknownNameError, match="depreciation_method"):
        project.results({**base, "depreciation_method": "macrs_3"})
    with pytest.raises(InputRangeError, match=r"got 3 \(element \[1\]\)"):
        scenario.evaluate(
            {"system": "H100_HGX", "mfu": 0.5, "rent_usd_per_gpu_hour": 2.0, "build_months": [12.0, 3.0]}
        )


def test_zip_accepts_repeated_values_and_batch_takes_the_project_inputs(tmp_path):
    """Two systems may share 0.9 availability in a zipped grid (a plain list still may not repeat);
    gputco batch reads the project's text and numbers and writes its results."""
    from gputco.workbook.batch.run import run_batch
    from gputco.workbook.scenarios.spec import SpecError, parse_spec

    spec = parse_spec(
        {
            "grid": {
                "system": ["H100_HGX", "GB200_NVL72"],
                "availability": [0.9, 0.9],
                "zip": [["system", "availability"]],
            },
            "fixed": {"mfu": 0.5},
        }
    )
    assert spec.n_scenarios == 2
    with pytest.raises(SpecError, match="listed twice"):
        parse_spec({"grid": {"availability": [0.9, 0.9]}, "fixed": {"mfu": 0.5}})
    src = tmp_path / "in.csv"
    src.write_text(
        "system,mfu,rent_usd_per_gpu_hour,periods,debt_fraction,debt_rate,debt_years,depreciation_method\n"
        "H100_HGX,0.5,2.0,month,0.6,0.09,4,macrs_5\nH100_HGX,0.5,2.0,,,,,\n",
        encoding="utf-8",
    )
    run_batch(src, tmp_path / "out.csv")
    import pandas as pd

    df = pd.read_csv(tmp_path / "out.csv")
    assert list(df["use_periods"]) == ["month", "year"]
    assert df["project_npv_usd_per_gpu"][1] == pytest.approx(17850.43, abs=0.005)
    assert df["equity_irr"][1] == df["project_irr"][1] and df["min_dscr"].isna().tolist() == [False, True]
    bad = tmp_path / "bad.csv"
    bad.write_text("system,mfu,rent_usd_per_gpu_hour,periods\nH100_HGX,0.5,2.0,week\n", encoding="utf-8")
    with pytest.raises(Exception, match=r"row 2, column D \(periods\): unknown periods 'week'"):
        run_batch(bad, tmp_path / "bad_out.csv")


def test_the_monthly_table_adds_up_to_the_results():
    """TCO_PROJECT_CASHFLOWS by month: net = capex + revenue + opex + tax + residual; equity = net
    + debt drawn + debt service + tax shield; the debt service totals numpy-financial's pmt x the
    tenor; the equity NPV and IRR and the peak funding are those of its columns."""
    kw = dict(periods="month", build_months=12, ramp_months=3, debt_fraction=0.6, debt_rate=0.09)
    kw.update(debt_years=4, tax_rate=0.21, depreciation_method="macrs_5")
    rows = project.tco_project_cashflows(31250, 2.0, 0.4045, 5, 0.1, **kw)
    head, body = rows[0], np.array(rows[1:])
    col = {k: body[:, i] for i, k in enumerate(head)}
    assert len(body) == 1 + 12 + 60
    parts = col["capex"] + col["revenue"] + col["opex"] + col["tax"] + col["residual"]
    np.testing.assert_allclose(col["net"], parts, atol=1e-9)
    equity = col["net"] + col["debt_drawn"] + col["debt_service"] + col["interest_tax_shield"]
    np.testing.assert_allclose(col["equity"], equity, atol=1e-9)
    i = 1.09 ** (1 / 12) - 1
    balance = 0.6 * 31250 * (1 + i) ** 12
    assert -col["debt_service"].sum() == pytest.approx(-48 * npf.pmt(i, 48, balance), rel=1e-12)
    assert col["depreciation"].sum() == pytest.approx(31250, rel=1e-12)
    values = {"capex_per_gpu": 31250, "rent_usd_per_gpu_hour": 2.0, "opex_usd_per_gpu_hour": 0.4045}
    out = project.results({**values, "life_years": 5.0, "cost_of_capital": 0.1, **kw})
    assert out["equity_irr"][0] == pytest.approx((1 + npf.irr(col["equity"])) ** 12 - 1, abs=1e-9)
    assert out["peak_funding_usd_per_gpu"][0] == pytest.approx(col["cumulative_equity"].min())
    assert out["equity_npv_usd_per_gpu"][0] == pytest.approx(npf.npv(1.1 ** (1 / 12) - 1, col["equity"]))


def test_a_spec_takes_project_inputs_for_python_and_its_workbook():
    """SPEC's grid and Monte Carlo take the project's inputs (the draws run through the
    evaluator: equity IRR per draw); the scenario workbook carries them (its rows' values against
    the evaluator: tests/test_scenarios_project.py)."""
    from gputco.workbook.scenarios.build import build
    from gputco.workbook.scenarios.spec import parse_spec

    spec = parse_spec(
        {
            "grid": {"system": ["H100_HGX"], "debt_fraction": [0.0, 0.6], "periods": ["year", "month"]},
            "fixed": {"mfu": 0.5, "rent_usd_per_gpu_hour": 2.0, "debt_rate": 0.09, "debt_years": 4},
            "monte_carlo": {"draws": 50, "debt_fraction": {"dist": "uniform", "low": 0.3, "high": 0.7}},
        }
    )
    assert spec.n_scenarios == 4
    draws = spec.draw_results
    assert np.all(np.isfinite(draws["equity_irr"])) and np.all(draws["min_dscr"] > 0)
    assert np.all(
        draws["equity_irr"] > draws["project_irr"]
    )  # the project's IRR (34.6%) is above the 9% debt
    keys = [c.value for c in build(spec).wb["Scenarios"][5]]
    assert {"debt_fraction", "periods", "equity_irr", "min_dscr", "equity_p0", "deduction_t1"} <= set(keys)


def test_a_step_reading_the_whole_table_refuses_project_terms_it_cannot_see():
    """A step added to the chain without a kernel reads the chain's per-year table, which has no
    project terms: a scenario that sets one is refused by name (row and value), never computed
    without it; at the defaults it runs (a child process: the chain is changed)."""
    import subprocess
    import sys
    from pathlib import Path

    code = (
        "import numpy as np\n"
        "from gputco.udfs import chain, scenario\n"
        "chain.add_step(chain.Step('first_year_net', 'toy', 'USD', 't', '=<net@1>',\n"
        "    lambda net: np.asarray(net)[:, 1], ('net',), 'Rent or buy'))\n"
        "base = {'system': 'H100_HGX', 'mfu': 0.5, 'rent_usd_per_gpu_hour': [2.0, 2.0]}\n"
        "print(round(float(scenario.evaluate(base)['first_year_net'][0]), 2))\n"
        "try:\n"
        "    scenario.evaluate({**base, 'debt_fraction': [0.0, 0.5]})\n"
        "except Exception as err:\n"
        "    print(err)\n"
    )
    root = Path(__file__).resolve().parents[1]
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root, timeout=300)
    assert proc.returncode == 0, proc.stderr
    first, error = proc.stdout.strip().splitlines()[-2:]
    assert first == "13977.0"
    assert error.startswith("debt_fraction must be in its default (0.0) where a step added without a kernel")
    assert error.endswith("got 0.5 (element [1])")


def test_project_chunks_on_several_threads_give_the_values_of_one(monkeypatch):
    """project.results runs its chunks on GPUTCO_THREADS threads: by month with debt, MACRS, a
    build and a ramp, every result (IRRs, NPVs, DSCR, peak funding) on 2 threads is bit for bit
    the one-thread value."""
    rng = np.random.default_rng(8)
    n = 3000  # several chunks of the monthly flows
    values = {**drawn(rng, n), "tax_rate": np.full(n, 0.21), **MONTH_DEBT}
    got = {}
    for count in ("1", "2"):
        monkeypatch.setenv("GPUTCO_THREADS", count)
        got[count] = project.results(values)
    assert got["1"].keys() == got["2"].keys()
    for key, one in got["1"].items():
        assert np.array_equal(got["2"][key], one, equal_nan=True), key
    assert np.isfinite(got["1"]["equity_irr"]).mean() > 0.5


def test_the_breakeven_rent_with_contracts_is_the_market_rent_and_never_infinite():
    """Take-or-pay contracts keep their rent: the break-even rent is the market rent at which the
    NPV is 0 (an identity, by re-evaluating there); where every GPU is under contract for the
    life no market rent moves the NPV, so there is none (NaN, no numpy warning, not -inf)."""
    base = {"system": "H100_HGX", "mfu": 0.5, "rent_usd_per_gpu_hour": 2.0, "tax_rate": 0.2,
            "contract_rent_usd_per_gpu_hour": 1.5, "periods": "month", "ramp_months": 3}  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = scenario.evaluate({**base, "contracted_fraction": [1.0, 0.5, 0.8]})
    rent = out["project_breakeven_rent_usd_per_gpu_hour"]
    assert math.isnan(rent[0])
    for i, share in ((1, 0.5), (2, 0.8)):
        again = scenario.evaluate(
            {**base, "contracted_fraction": share, "rent_usd_per_gpu_hour": float(rent[i])}
        )
        assert abs(again["project_npv_usd_per_gpu"][0]) < 1e-6 * out["capex_per_gpu"][i]
