"""The buyer's decisions (udfs/decisions.py): cash flows checked against numpy-financial, the
annuity identity (break-even rent = TCO per GPU-hour), NPV = 0 at the break-even rent, IRR = cost
of capital there, and bad input named in Python, in the cell and in batch rows."""

from __future__ import annotations

import math

import numpy as np
import numpy_financial as npf
import pytest
from fuzzing import fuzz_settings
from hypothesis import given
from hypothesis import strategies as st

from gputco import udfs
from gputco.udfs import decisions, scenario
from gputco.udfs.errors import InputRangeError
from gputco.udfs.registry import UDFS

capex = st.floats(1_000.0, 100_000.0)
rate = st.floats(0.001, 0.5)
life = st.integers(1, 15).map(float)
opex = st.floats(0.05, 2.0)
#: the optional cash-flow inputs the tests switch on: residual, availability or utilisation,
#: tax, rent decline, opex escalation
residual = st.floats(0.0, 0.5)
fraction = st.floats(0.3, 1.0)
tax_rate = st.floats(0.0, 0.4)
decline = st.floats(0.0, 0.3)
escalation = st.floats(0.0, 0.2)


@given(capex, rate, life, st.floats(0.0, 0.9), st.floats(0.5, 20.0), opex, st.floats(0.0, 0.2))
@fuzz_settings(share=0.5)
def test_breakeven_rent_is_the_tco_per_gpu_hour(c, r, n, residual, kw, other, colo):
    """With availability = utilisation = 1, no tax, decline or escalation, renting out at the TCO
    per GPU-hour exactly repays the capital at the cost of capital: the annuity identity."""
    opex_h = udfs.tco_power_per_gpu_hour(kw, 1.3, 0.087) + udfs.tco_colo_per_gpu_hour(kw, 130) + other
    tco = udfs.tco_total_per_gpu_hour(c, r, n, kw, 1.3, 0.087, 130, residual, other)
    assert decisions.tco_breakeven_rent(c, opex_h, n, r, residual) == pytest.approx(tco, rel=1e-9)


@given(capex, rate, life, residual, fraction, fraction, tax_rate, decline, escalation, opex, st.data())
@fuzz_settings(share=0.5)
def test_npv_and_irr_equal_numpy_financial(c, r, n, residual, a, u, tax, decline, esc, o, data):
    """NPV and IRR of the cash flows with tax, decline and escalation switched on equal
    numpy-financial's npv and irr on the same net cash flows (built here from the definitions)."""
    dep = data.draw(st.integers(1, int(n)).map(float))
    rent = data.draw(st.floats(0.5, 10.0))
    years = np.arange(int(n) + 1)
    revenue = np.where(years >= 1, rent * 8760 * a * u * (1 - decline) ** (years - 1), 0.0)
    op = np.where(years >= 1, -o * 8760 * (1 + esc) ** (years - 1), 0.0)
    dep_y = np.where((years >= 1) & (years <= dep), c / dep, 0.0)
    res = np.where(years == n, residual * c, 0.0)
    tax_y = -tax * (revenue + op - dep_y + res)
    net = np.where(years == 0, -c, 0.0) + revenue + op + tax_y + res
    args = (c, rent, o, n, residual, a, u, tax, dep, decline, esc)
    npv = decisions.tco_npv(c, rent, o, n, r, residual, a, u, tax, dep, decline, esc)
    # numpy-financial's npv discounts the first value as year 0, as the definition does
    assert npv == pytest.approx(npf.npv(r, net), rel=1e-9, abs=1e-6)
    table = decisions.tco_cashflows(*args)
    assert [row[7] for row in table[1:]] == pytest.approx(net.tolist(), rel=1e-12, abs=1e-9)
    want = npf.irr(net)
    if (
        (net > 0).any()
        and (net < 0).any()
        and np.isfinite(want)
        and (np.sign(net[1:]) == np.sign(net[-1])).all()
    ):  # one sign change: one IRR
        assert decisions.tco_irr(*args) == pytest.approx(want, rel=1e-7, abs=1e-9)


@given(capex, rate, life, residual, fraction, tax_rate, decline, escalation, opex)
@fuzz_settings(share=0.5)
def test_npv_is_zero_and_irr_is_the_cost_of_capital_at_the_breakeven_rent(
    c, r, n, residual, a, tax, decline, esc, o
):
    kw = dict(
        residual_fraction=residual,
        availability=a,
        tax_rate=tax,
        rent_decline_per_year=decline,
        opex_escalation_per_year=esc,
    )
    rent = decisions.tco_breakeven_rent(c, o, n, r, **kw)
    if rent <= 0:
        return  # no positive rent pays (the residual and tax credits alone repay)
    assert decisions.tco_npv(c, rent, o, n, r, **kw) == pytest.approx(0.0, abs=1e-6 * c)
    net = np.array([row[7] for row in decisions.tco_cashflows(c, rent, o, n, **kw)[1:]])
    signs = np.sign(net[net != 0])
    if (np.diff(signs) != 0).sum() != 1:
        return  # several sign changes: NPV may have several roots, the IRR is ambiguous
    assert decisions.tco_irr(c, rent, o, n, **kw) == pytest.approx(r, abs=1e-7)


def test_the_seed_figures_hold_at_the_defaults():
    """Availability, utilisation and goodput of 1 change nothing: the article's figures hold
    (SemiAnalysis 2025-08-20: H100 $1.42 per GPU-hour, GB200/H100 TCO ratio 1.58)."""
    out = scenario.evaluate({"system": ["H100_HGX", "GB200_NVL72"], "mfu": [0.54, 0.54]})
    assert out["tco_usd_per_gpu_hour"][0] == pytest.approx(1.42, abs=0.005)
    assert out["tco_usd_per_gpu_hour"][1] / out["tco_usd_per_gpu_hour"][0] == pytest.approx(1.584, abs=0.001)
    assert (out["delivered_usd_per_gpu_hour"] == out["tco_usd_per_gpu_hour"]).all()
    plain = udfs.tco_cost_per_mtok(out["tco_usd_per_gpu_hour"], out["flops_per_token"], [989.4, 2500.0], 0.54)
    assert out["usd_per_mtok"] == pytest.approx(plain, rel=1e-15)


def test_goodput_and_availability_scale_cost_days_and_energy():
    base = scenario.evaluate({"system": "GB200_NVL72", "mfu": [0.4]})
    lossy = scenario.evaluate(
        {
            "system": "GB200_NVL72",
            "mfu": [0.4],
            "availability": [64 / 72],
            "utilisation": [0.9],
            "goodput": [0.8],
        }
    )
    assert lossy["delivered_usd_per_gpu_hour"][0] == pytest.approx(
        base["tco_usd_per_gpu_hour"][0] / (64 / 72 * 0.9), rel=1e-15
    )
    assert lossy["usd_per_mtok"][0] == pytest.approx(
        base["usd_per_mtok"][0] / (64 / 72 * 0.9) / 0.8, rel=1e-12
    )
    assert lossy["training_days"][0] == pytest.approx(base["training_days"][0] / (64 / 72) / 0.8, rel=1e-12)
    assert lossy["joules_per_token"][0] == pytest.approx(base["joules_per_token"][0] / 0.8, rel=1e-12)


def test_irr_without_a_sign_change_is_an_error_not_a_number():
    with pytest.raises(decisions.NoSolutionError, match="never change sign"):
        decisions.tco_irr(31250, 0.1, 0.4045, 5)
    assert UDFS["TCO_IRR"](31250, 0.1, 0.4045, 5).startswith("#NUM! no IRR")
    assert UDFS["TCO_PAYBACK_YEARS"](31250, 0.5, 0.4045, 5) == (
        "#NUM! no payback within life: the cumulative cash flow stays below 0"
    )


def test_a_range_shows_no_irr_only_in_the_cells_that_have_none():
    """A range of rents where one cell has no IRR: that cell says why, the others get their IRR,
    the same as one-cell calls (a Hypothesis example found the whole range shown as #NUM!)."""
    got = UDFS["TCO_IRR"](31250, [[2.0, 0.1, 1e300]], 0.4045, 5)
    assert got[0][0] == UDFS["TCO_IRR"](31250, 2.0, 0.4045, 5) == pytest.approx(0.346027, abs=1e-6)
    assert got[0][1] == "#NUM! no IRR: the cash flows never change sign"
    assert got[0][2] == UDFS["TCO_IRR"](31250, 1e300, 0.4045, 5)
    assert got[0][2].startswith("#NUM! no IRR")


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: decisions.tco_delivered_gpu_hour(2.0, 0.0), "availability must be in (0, 1], got 0"),
        (lambda: decisions.tco_delivered_gpu_hour(2.0, 1.2), "availability must be in (0, 1], got 1.2"),
        (
            lambda: decisions.tco_cashflows(31250, 2.0, 0.4, 4.5),
            "life_years must be a whole number in [1, 15], got 4.5",
        ),
        (
            lambda: decisions.tco_npv(31250, 0.0, 0.4, 5, 0.1),
            "rent_usd_per_gpu_hour must be in (0, inf), got 0",
        ),
    ],
)
def test_bad_input_names_the_argument_and_range(call, message):
    with pytest.raises(InputRangeError) as err:
        call()
    assert str(err.value) == message


def test_bad_input_in_the_cell_and_in_batch_rows(tmp_path):
    assert UDFS["TCO_DELIVERED_GPU_HOUR"](2.0, 1.2) == "#VALUE! availability must be in (0, 1], got 1.2"
    assert UDFS["TCO_CASHFLOWS"](31250, 2.0, 0.4, 4.5) == (
        "#VALUE! life_years must be a whole number in [1, 15], got 4.5"
    )
    from gputco.workbook.batch.run import BatchError, run_batch

    src = tmp_path / "in.csv"
    src.write_text("system,mfu,availability,rent_usd_per_gpu_hour\nH100_HGX,0.5,1.2,2\nH100_HGX,0.5,0.9,0\n")
    with pytest.raises(BatchError) as err:
        run_batch(src, tmp_path / "out.csv")
    text = str(err.value)
    assert "row 2, column C (availability): availability must be in (0, 1], got 1.2" in text
    assert "row 3, column D (rent_usd_per_gpu_hour): rent_usd_per_gpu_hour must be in (0, inf), got 0" in text


def test_batch_outputs_the_decisions_and_leaves_them_empty_without_a_rent(tmp_path):
    import csv

    from gputco.workbook.batch.run import run_batch

    src = tmp_path / "in.csv"
    src.write_text("system,mfu,rent_usd_per_gpu_hour\nH100_HGX,0.5,2\nGB200_NVL72,0.5,\n")
    run_batch(src, tmp_path / "out.csv")
    rows = list(csv.DictReader(open(tmp_path / "out.csv")))
    assert rows[0]["delivered_usd_per_gpu_hour"] != "" and rows[1]["delivered_usd_per_gpu_hour"]
    for key in (
        "project_breakeven_utilisation",
        "project_breakeven_rent_usd_per_gpu_hour",
        "project_npv_usd_per_gpu",
        "project_irr",
        "project_payback_years",
    ):
        assert rows[0][key] != "", key
        assert rows[1][key] == "", key  # no rent: empty
    assert math.isclose(
        float(rows[0]["project_breakeven_rent_usd_per_gpu_hour"]),
        float(rows[0]["tco_usd_per_gpu_hour"]),
        rel_tol=1e-9,
    )
