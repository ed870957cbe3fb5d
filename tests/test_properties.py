"""Property tests (Hypothesis) for the invariants of the model, plus an outside oracle for PMT.

The maths tests use their own inline inputs, so preset data updates never break them.
numpy-financial's ``pmt`` (whose tests were checked against Google Sheets) is the oracle for the
annuity.
"""

from __future__ import annotations

import math

import numpy as np
import numpy_financial as npf
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gputco import udfs

mfu = st.floats(0.01, 1.0)
price = st.floats(0.01, 1.0)
capex = st.floats(1_000.0, 200_000.0)
rate = st.floats(0.0, 0.4)
life = st.floats(1.0, 15.0)
kw = st.floats(0.3, 5.0)
pue = st.floats(1.0, 3.0)
rent = st.floats(0.0, 400.0)
fpt = st.floats(1e9, 1e13)
peak = st.floats(100.0, 20_000.0)


@given(capex, st.one_of(st.just(0.0), st.floats(1e-6, 0.4)), life, st.floats(0.0, 0.9))
def test_capital_matches_excel_pmt(c, r, n, residual):
    # Excel PMT convention (end-of-period payments, fv = residual value), via numpy-financial.
    # (numpy-financial returns inf for rates below ~1e-16; ours stays exact there, see
    # test_zero_cost_of_capital_is_straight_line.)
    expected = -npf.pmt(r, n, c, -residual * c) / 8760
    assert udfs.tco_capital_per_gpu_hour(c, r, n, residual) == pytest.approx(expected, rel=1e-9)


@given(capex, rate, life, life)
def test_capital_falls_as_life_lengthens(c, r, n1, n2):
    short, long_ = sorted((n1, n2))
    assert udfs.tco_capital_per_gpu_hour(c, r, long_) <= udfs.tco_capital_per_gpu_hour(c, r, short)


@given(capex, rate, rate, life)
def test_capital_rises_with_cost_of_capital(c, r1, r2, n):
    lo, hi = sorted((r1, r2))
    assert udfs.tco_capital_per_gpu_hour(c, lo, n) <= udfs.tco_capital_per_gpu_hour(c, hi, n) * (1 + 1e-12)


@given(price, fpt, peak, mfu, mfu)
def test_cost_per_token_falls_as_mfu_rises(usd, f, p, u1, u2):
    lo, hi = sorted((u1, u2))
    assert udfs.tco_cost_per_mtok(usd, f, p, hi) <= udfs.tco_cost_per_mtok(usd, f, p, lo)


@given(capex, rate, life, kw, pue, rent, price, price)
def test_tco_is_linear_in_electricity_price(c, r, n, k, p, colo, e1, e2):
    def tco(e):
        return udfs.tco_total_per_gpu_hour(c, r, n, k, p, e, colo)

    # f(e) = a + b*e: the slope is IT kW x PUE per kWh, and f(e1) + f(e2) = 2 f((e1 + e2) / 2).
    assert tco(e2) - tco(e1) == pytest.approx(k * p * (e2 - e1), rel=1e-6, abs=1e-9)
    assert tco(e1) + tco(e2) == pytest.approx(2 * tco((e1 + e2) / 2), rel=1e-12)


@given(capex, rate, life, kw, pue, rent, price, fpt, peak, mfu, st.floats(1e6, 1e13))
def test_chain_is_finite_and_positive(c, r, n, k, p, colo, e, f, pk, u, tokens):
    tco = udfs.tco_total_per_gpu_hour(c, r, n, k, p, e, colo)
    results = [
        tco,
        udfs.tco_tokens_per_gpu_second(f, pk, u),
        udfs.tco_cost_per_mtok(tco, f, pk, u),
        udfs.tco_training_cost(tokens, tco, f, pk, u),
        udfs.tco_training_days(tokens, 64, f, pk, u),
        udfs.tco_joules_per_token(udfs.tco_utility_watts_per_gpu(k, p), f, pk, u),
        udfs.tco_household_years(tokens),
    ]
    for x in results:
        assert isinstance(x, float)
        assert math.isfinite(x) and x > 0


@settings(max_examples=25)
@given(st.lists(st.tuples(capex, rate, life, kw, pue, rent, price, mfu), min_size=1, max_size=40))
def test_vectorised_and_scalar_calls_agree(rows):
    cols = [np.array(c) for c in zip(*rows, strict=True)]
    c, r, n, k, p, colo, e, u = cols
    tco = udfs.tco_total_per_gpu_hour(c, r, n, k, p, e, colo)
    cost = udfs.tco_cost_per_mtok(tco, 1.07899e12, 989.4, u)
    assert isinstance(cost, np.ndarray) and cost.shape == (len(rows),)
    for i, row in enumerate(rows):
        c1, r1, n1, k1, p1, colo1, e1, u1 = row
        tco1 = udfs.tco_total_per_gpu_hour(c1, r1, n1, k1, p1, e1, colo1)
        assert tco[i] == tco1
        assert cost[i] == udfs.tco_cost_per_mtok(tco1, 1.07899e12, 989.4, u1)


def test_arrays_broadcast_against_scalars():
    out = udfs.tco_cost_per_mtok(np.array([[1.0], [2.0]]), 1e12, 1000.0, np.array([0.25, 0.5]))
    assert out.shape == (2, 2)
    assert out[1, 0] == pytest.approx(4 * out[0, 1])


def test_names_broadcast_too():
    out = udfs.tco_gpu_hour(["H100_HGX", "GB200_NVL72"], "hyperscaler")
    assert out.shape == (2,)
    assert out[1] / out[0] == pytest.approx(udfs.tco_ratio("H100_HGX", "GB200_NVL72"))


def test_capital_rises_with_cost_of_capital_at_subnormal_rates():
    # Regression: a subnormal rate (5e-324) lost all precision in (1 + r)^n - 1 and gave a capital
    # cost above that at 12.5% (found by Hypothesis).
    tiny = udfs.tco_capital_per_gpu_hour(1000.0, 5e-324, 1.25)
    assert tiny == pytest.approx(1000.0 / 1.25 / 8760, rel=1e-12)
    assert tiny < udfs.tco_capital_per_gpu_hour(1000.0, 0.125, 1.25)


def test_zero_cost_of_capital_is_straight_line():
    # r = 0: capex x (1 - residual) / life / 8760, the limit of the annuity.
    assert udfs.tco_capital_per_gpu_hour(8760 * 5, 0.0, 5, 0.2) == pytest.approx(0.8)
    assert udfs.tco_capital_per_gpu_hour(8760 * 5, 1e-12, 5, 0.2) == pytest.approx(0.8, rel=1e-9)
