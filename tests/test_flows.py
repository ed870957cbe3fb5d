"""The cash-flow kernels (udfs/flows.py) against numpy-financial 1.0 (``npf.irr``, ``npf.npv``),
identities that hold whatever the implementation, and the chain's rent-or-buy results recorded at
commit d036a86 before the kernels replaced the IRR grid search (tests/decisions_recorded.py)."""

from __future__ import annotations

import doctest
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import numpy_financial as npf
import pytest
from fuzzing import fuzz_settings
from hypothesis import given
from hypothesis import strategies as st

from gputco.udfs import decisions, flows, scenario, yearflows

RECORDED = Path(__file__).parent / "data" / "decisions_recorded.json"


def _one_sign_change(rng: np.random.Generator, n: int, periods: int = 16) -> np.ndarray:
    """Rows of ``periods`` flows: outflows, then inflows (or the reverse), magnitudes over five
    decades, zeros sprinkled in, trailing zeros after a random length: one sign change each."""
    out = np.zeros((n, periods))
    for i in range(n):
        t = int(rng.integers(2, periods + 1))
        k = int(rng.integers(1, t))
        out[i, :k] = -rng.uniform(0.0, 1.0, k) * 10 ** rng.uniform(0, 5)
        out[i, k:t] = rng.uniform(0.0, 1.0, t - k) * 10 ** rng.uniform(0, 5)
        out[i, rng.integers(0, t)] *= rng.random() < 0.9  # now and then a zero
        if rng.random() < 0.5:
            out[i] = -out[i]
    keep = flows.sign_changes(out) == 1
    return out[keep]


def test_irr_equals_numpy_financial_on_10000_random_rows_with_one_sign_change():
    """One sign change: exactly one IRR (Descartes); ours equals npf.irr's to 1e-9 where it lies
    in the searched range [-100% + 1e-9, 1e6] and is "no root" where it lies beyond."""
    rows = _one_sign_change(np.random.default_rng(20), 10_300)[:10_000]
    assert len(rows) == 10_000
    got, why = flows.irr(rows)
    want = np.array([npf.irr(np.trim_zeros(r, "b")) for r in rows])
    found = (want > flows.LOW) & (want < flows.HIGH)
    assert found.mean() > 0.99  # nearly all roots lie in the range
    assert np.all(why[found] == flows.FOUND)
    assert np.all(why[~found] == flows.NO_ROOT)
    np.testing.assert_allclose(got[found], want[found], rtol=1e-9, atol=1e-9)


@given(st.lists(st.floats(1.0, 1e6), min_size=1, max_size=40), st.floats(1.0, 1e6), st.data())
@fuzz_settings(share=0.5)
def test_irr_of_monthly_rows_is_the_annualised_numpy_financial_irr(inflows, outflow, data):
    """Any number of periods: with periods_per_year = 12 the IRR is (1 + npf.irr)^12 - 1, and NPV
    at that annual rate is 0 (relative to the flows)."""
    row = np.array([-outflow, *inflows])
    monthly = npf.irr(row)
    got, why = flows.irr(row[None, :], periods_per_year=12)
    if not np.isfinite(monthly) or not (flows.LOW < monthly < flows.HIGH):
        return
    assert why[0] == flows.FOUND
    assert got[0] == pytest.approx((1 + monthly) ** 12 - 1, rel=1e-9, abs=1e-9)
    if -0.99 < got[0] < 1e3:  # away from -100%, where the annual rate loses the monthly one
        assert abs(flows.npv(row[None, :], got[0], 12)[0]) <= 1e-7 * np.abs(row).sum()


def test_yearly_flows_spread_over_their_months_keep_their_annual_irr():
    """A yearly row whose every flow is paid as 12 equal monthly ones (months 12k .. 12k + 11) has
    NPV S(x) Q(x^12) in x = 1 / (1 + monthly rate), S = 1 + x + .. + x^11 > 0, Q the yearly NPV:
    the same annual IRR as the yearly row's npf.irr, to 1e-9. The months come in runs of 12
    equal periods, which the kernel evaluates a run at a time (magnitudes over five decades, roots
    near -100% where the runs overflow and are evaluated period by period)."""
    yearly = _one_sign_change(np.random.default_rng(21), 2_100)[:2_000]
    monthly = np.repeat(yearly, 12, axis=1)
    runs = flows._runs(np.ascontiguousarray(monthly.T))
    assert runs is not None and max(runs.lengths) == 12  # the path taken is the one by runs
    with np.errstate(over="ignore", invalid="ignore"):  # NPV near -100% over 192 months overflows
        got, why = flows.irr(monthly, periods_per_year=12)
    want = np.array([npf.irr(np.trim_zeros(r, "b")) for r in yearly])
    with np.errstate(invalid="ignore"):
        per_month = (1.0 + want) ** (1.0 / 12.0) - 1.0
    found = (per_month > flows.LOW) & (per_month < flows.HIGH)
    assert found.mean() > 0.99
    assert np.all(why[found] == flows.FOUND)
    assert np.all(why[~found] == flows.NO_ROOT)
    np.testing.assert_allclose(got[found], want[found], rtol=1e-9, atol=1e-9)


def test_several_sign_changes_with_one_root_proven_by_the_running_sums():
    """Rows like a levered project's equity (an outlay, inflows, a tail of losses, a residual at
    the end: three sign changes) where the running sums forwards and backwards change sign once in all:
    exactly one root in x = 1 / (1 + r) > 0 (Norstrom 1972), the IRR the kernel gives without the
    grid of rates; it equals npf.irr's to 1e-9, and numpy's polynomial roots find one positive
    real root. Rows with several roots keep the root nearest the guess (tests above)."""
    rng = np.random.default_rng(22)
    n, t = 3_000, 20
    rows = np.zeros((n, t))
    rows[:, 0] = -rng.uniform(50.0, 150.0, n)
    turn = rng.integers(6, 18, n)
    for i in range(n):
        rows[i, 1 : turn[i]] = rng.uniform(5.0, 40.0, turn[i] - 1)
        rows[i, turn[i] : -1] = -rng.uniform(0.0, 10.0, t - 1 - turn[i])
    rows[:, -1] = rng.uniform(1.0, 30.0, n)  # a residual sold at the end
    several = flows.sign_changes(rows) > 1
    bound, ends_differ, _ = flows.root_bound(rows[several])
    proven = np.flatnonzero(several)[(bound == 1) & ends_differ]
    assert proven.size > 400
    got, why = flows.irr(rows[proven])
    want = np.array([npf.irr(r) for r in rows[proven]])
    assert np.all(why == flows.FOUND)
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9)
    for r in rows[proven[:200]]:
        x = np.roots(r[::-1])
        assert np.sum((np.abs(x.imag) < 1e-9) & (x.real > 0)) == 1
    # and a bound: never fewer than the positive real roots numpy finds
    for r, b in zip(rows[several][:300], bound[:300], strict=True):
        x = np.roots(r[::-1])
        assert np.sum((np.abs(x.imag) < 1e-12) & (x.real > 0)) <= b


def test_no_sign_change_and_no_root_say_why():
    """No sign change: no IRR; several sign changes and NPV never 0 (1 - 3x + 3x^2 > 0 for every
    x = 1 / (1 + r)): no root, as npf.irr also finds none; a root beyond 1e6 per year: none."""
    rows = np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0], [1.0, -3.0, 3.0], [-1.0, 1e9, 0.0]])
    rate, why = flows.irr(rows)
    assert np.isnan(rate).all()
    assert why.tolist() == [flows.NO_SIGN_CHANGE, flows.NO_SIGN_CHANGE, flows.NO_ROOT, flows.NO_ROOT]
    assert np.isnan(npf.irr(rows[2]))
    assert flows.REASONS[flows.NO_ROOT].startswith("no IRR")


def _two_roots(r1: float, r2: float) -> np.ndarray:
    """Flows whose NPV is (x - 1/(1+r1)) (x - 1/(1+r2)) in x = 1 / (1 + r): IRRs r1 and r2."""
    x1, x2 = 1 / (1 + r1), 1 / (1 + r2)
    return np.array([x1 * x2, -(x1 + x2), 1.0])


def test_several_roots_the_one_nearest_the_workbooks_guess():
    """The documented choice (docs/finance.md): of several IRRs, the one nearest the guess the
    workbook gives Excel's IRR, -50% when the undiscounted sum is a loss, else 10%."""
    loss = _two_roots(-0.6, 0.3)  # sum = (1 - 2.5)(1 - 1/1.3) < 0: guess -50%
    assert loss.sum() < 0
    assert np.sort(1 / np.roots(loss[::-1]) - 1) == pytest.approx([-0.6, 0.3])
    rate, _ = flows.irr(np.array([loss, -loss]))
    assert rate == pytest.approx([-0.6, 0.3], abs=1e-12)  # -loss sums > 0: guess 10%


def test_a_running_sum_at_zero_proves_nothing_but_leading_and_trailing_zeros_do_not_count():
    """Norstrom's bound counts sign changes of the running sums; a sum within rounding of 0 could
    have either sign, so nothing is proven (the bound is the number of periods). Periods before
    the first flow (from the end: after the last) hold no flow: their sums are exactly 0 and
    count nothing. [-1, 1, -1, 2]: the sum after period 1 is 0; [0, -1, 3, -1, 0]: sums
    -1, 2, 1 from the start and -1, 2, 1 from the end, one change each."""
    rows = [np.array([-1.0, 1.0, -1.0, 2.0, 0.0]), np.array([0.0, -1.0, 3.0, -1.0, 0.0])]
    bound, ends_differ, sides = flows.root_bound(np.array(rows))
    assert bound.tolist() == [5, 2] and ends_differ.tolist() == [True, False]
    assert sides.tolist() == [flows.ABOVE | flows.BELOW, flows.ABOVE | flows.BELOW]


def test_roots_proven_on_one_side_of_zero_are_bracketed_there_and_found():
    """Rows with two IRRs both below 0 (-92.4%, -22.2%) or both above (59.5%, 526%) whose
    running sums from the other end never change sign: only that side's grid rates are
    evaluated, and of the roots of the polynomial (numpy's np.roots) the one nearest the guess
    (-50% for a loss, else 10%) is taken."""
    below, above = np.array([-100.0, 50.0, -60.0, 70.0, -5.0]), np.array([14.0, -99.0, 55.0, 96.0, 18.0])
    bound, _, sides = flows.root_bound(np.array([below, above]))
    assert bound.tolist() == [2, 2] and sides.tolist() == [flows.BELOW, flows.ABOVE]
    for row in (below, above):
        x = np.roots(row[::-1])
        roots = [1.0 / v.real - 1.0 for v in x if v.imag == 0 and v.real > 0]
        assert len(roots) == 2 and all((r < 0) == (row is below) for r in roots)
        guess = -0.5 if row.sum() < 0 else 0.1
        rate, why = flows.irr(row[None, :])
        assert why[0] == flows.FOUND
        assert rate[0] == pytest.approx(min(roots, key=lambda r: abs(r - guess)), rel=1e-9)


@given(st.floats(-0.9, 2.0), st.floats(-0.9, 2.0), st.floats(0.01, 1e4))
@fuzz_settings(share=0.5)
def test_of_two_separated_roots_the_nearest_to_the_guess_is_taken(r1, r2, scale):
    if abs(r1 - r2) < 0.05:
        return
    row = scale * _two_roots(r1, r2)
    for sign in (1.0, -1.0):
        guess = -0.5 if (sign * row).sum() < 0 else 0.1
        want = min((r1, r2), key=lambda r: abs(r - guess))
        rate, why = flows.irr(sign * row[None, :])
        assert why[0] == flows.FOUND
        assert rate[0] == pytest.approx(want, abs=1e-9)


@given(st.lists(st.floats(-1e5, 1e5), min_size=1, max_size=30), st.floats(-0.5, 1.0))
@fuzz_settings(share=0.5)
def test_npv_equals_numpy_financial(row, rate):
    """npf.npv discounts the first value by (1 + rate)^0, as the kernel does."""
    got = flows.npv(np.array([row]), rate)[0]
    assert got == pytest.approx(npf.npv(rate, row), rel=1e-12, abs=1e-9 * max(1.0, np.abs(row).sum()))


@given(st.lists(st.floats(-1e5, 1e5), min_size=1, max_size=30))
@fuzz_settings(share=0.5)
def test_payback_is_where_the_running_sum_first_turns_non_negative(row):
    """Payback p: the cumulative sum is < 0 just before period ceil(p) and >= 0 at it, and the
    straight line between those two sums crosses 0 at p."""
    got = flows.payback(np.array([row]))[0]
    cum = np.cumsum(row)
    prev = np.concatenate([[0.0], cum[:-1]])
    turns = np.flatnonzero((prev < 0) & (cum >= 0))
    if turns.size == 0:
        assert np.isnan(got)
        return
    t = int(turns[0])
    assert t - 1 <= got <= t
    assert prev[t] + (got - (t - 1)) * row[t] == pytest.approx(0.0, abs=1e-9 * max(1.0, abs(prev[t])))


def _recorded():
    data = json.loads(RECORDED.read_text())
    inputs = {k: np.asarray(v, dtype=object if k == "system" else float) for k, v in data["inputs"].items()}
    return inputs, data["results"]


@pytest.mark.parametrize("chunk", [None, 257])
def test_chain_results_equal_the_recorded_ones(chunk, monkeypatch):
    """NPV, IRR (several sign changes included), payback and break-even rent of 3,000 scenarios
    equal those the grid-search IRR and (scenarios x 16) tables gave (recorded at d036a86), with
    "none" in the same scenarios; also when the evaluator works in chunks of 257 rows."""
    if chunk:
        monkeypatch.setattr(scenario, "CHUNK_ROWS", chunk)
    inputs, results = _recorded()
    out = scenario.evaluate(inputs)
    net = _recorded_net(inputs, out)
    assert (flows.sign_changes(net) > 1).sum() > 100  # the several-roots path is exercised
    for key, values in results.items():
        want = np.array([np.nan if v is None else v for v in values])
        np.testing.assert_array_equal(np.isnan(out[key]), np.isnan(want), err_msg=key)
        np.testing.assert_allclose(out[key], want, rtol=1e-9, atol=1e-9, err_msg=key)


def _recorded_net(inputs, out):
    """The net cash flows of the recorded scenarios that give a rent (the chain's per-year table)."""
    used = scenario.used_inputs(inputs)
    keep = ~np.isnan(np.asarray(inputs["rent_usd_per_gpu_hour"]))
    names = ("residual_fraction", "availability", "utilisation", "tax_rate", "depreciation_years")
    cols, _ = decisions.cash_flow_columns(
        used["capex_per_gpu"][keep],
        used["rent_usd_per_gpu_hour"][keep],
        out["opex_usd_per_gpu_hour"][keep],
        used["life_years"][keep],
        *(used[k][keep] for k in names),
        used["rent_decline_per_year"][keep],
        used["opex_escalation_per_year"][keep],
    )
    return cols["net"]


@given(
    st.floats(1_000.0, 100_000.0),
    st.floats(0.1, 10.0),
    st.floats(0.05, 2.0),
    st.integers(1, 15),
    st.floats(0.0, 0.6),
    st.floats(0.3, 1.0),
    st.floats(0.2, 1.0),
    st.floats(0.0, 0.5),
    st.floats(0.0, 0.9),
    st.floats(-0.5, 1.0),
    st.data(),
)
@fuzz_settings(share=0.5)
def test_flows_by_period_are_the_tables_net_and_revenue(c, rent, o, life, res, a, u, tax, dec, esc, data):
    """yearflows.by_period gives the per-year table's own net and revenue columns (the chain's
    YEAR_STEPS functions), year by year, for depreciation over any whole years up to the life."""
    dep = data.draw(st.integers(1, life))
    args = (c, rent, o, float(life), res, a, u, tax, float(dep), dec, esc)
    got = yearflows.by_period(dict(zip(decisions.CASH_TERMS, args, strict=True)))
    cols, _ = decisions.cash_flow_columns(*args)
    for key in ("net", "revenue"):
        want = cols[key][0]
        assert got[key].shape == (life + 1, 1)
        np.testing.assert_allclose(got[key][:, 0], want[: life + 1], rtol=1e-12, atol=1e-9, err_msg=key)
        assert not want[life + 1 :].any()  # the table is 0 after the life


def test_the_flows_path_equals_the_table_path(monkeypatch):
    """The evaluator's two ways to the table's readers agree: from yearflows' net and revenue (the
    kernels of FROM_FLOWS) and from the whole table by the chain steps' own functions (used when
    a step without a kernel reads the table)."""
    inputs, _ = _recorded()
    fast = scenario.evaluate(inputs)
    monkeypatch.setattr(yearflows, "FROM_FLOWS", {})
    table = scenario.evaluate(inputs)
    for key in _recorded()[1]:
        np.testing.assert_allclose(fast[key], table[key], rtol=1e-12, atol=1e-9, err_msg=key)


def test_regression_a_start_on_the_root_near_minus_100_percent_is_kept():
    """Regression: a row whose first estimate is the root to the last ulp, near -100% (one
    inflow, one outflow: the estimate is exact), once bisected away and never closed its bracket
    (narrower than an ulp of r there) and came back as "no IRR"."""
    row = np.zeros(16)
    row[:2] = 4728.703675002652, -396.0100589508761
    rate, why = flows.irr(row[None, :])
    assert why[0] == flows.FOUND
    assert rate[0] == pytest.approx(npf.irr(row[:2]), rel=1e-12)


def test_the_examples_of_docs_finance_md_run():
    """docs/finance.md documents the IRR's choices with examples that run as written."""
    result = doctest.testfile(str(Path(__file__).parents[1] / "docs" / "finance.md"), module_relative=False)
    assert result.attempted >= 7  # the measured count (2026-12-06)
    assert result.failed == 0


def test_tco_functions_work_chunk_by_chunk_with_the_same_results(monkeypatch):
    """TCO_NPV, TCO_IRR, TCO_PAYBACK_YEARS and TCO_BREAKEVEN_RENT of arrays build their cash flows
    in chunks (here of 7 scenarios): each element equals the function of that element alone."""
    rng = np.random.default_rng(5)
    n = 40
    capex, rent = rng.uniform(2e4, 4e4, n), rng.uniform(3.0, 5.0, n)
    life = rng.integers(4, 9, n).astype(float)
    kw = dict(tax_rate=rng.uniform(0, 0.3, n), rent_decline_per_year=rng.uniform(0, 0.1, n))
    monkeypatch.setattr(decisions, "CHUNK_ROWS", 7)
    npv = decisions.tco_npv(capex, rent, 0.4, life, 0.1, **kw)
    irr = decisions.tco_irr(capex, rent, 0.4, life, **kw)
    pay = decisions.tco_payback_years(capex, rent, 0.4, life, **kw)
    even = decisions.tco_breakeven_rent(capex, 0.4, life, 0.1, **kw)
    for i in range(n):
        one = {k: v[i] for k, v in kw.items()}
        assert npv[i] == pytest.approx(
            decisions.tco_npv(capex[i], rent[i], 0.4, life[i], 0.1, **one), rel=1e-12
        )
        assert irr[i] == pytest.approx(decisions.tco_irr(capex[i], rent[i], 0.4, life[i], **one), rel=1e-12)
        assert pay[i] == pytest.approx(decisions.tco_payback_years(capex[i], rent[i], 0.4, life[i], **one))
        assert even[i] == pytest.approx(decisions.tco_breakeven_rent(capex[i], 0.4, life[i], 0.1, **one))
    assert decisions.tco_npv(capex, even, 0.4, life, 0.1, **kw) == pytest.approx(np.zeros(n), abs=1e-6)


ADDED = r"""
import json
import subprocess
import sys
import numpy as np
from gputco.udfs import chain, scenario

inputs = {"system": ["H100_HGX", "GB200_NVL72"], "mfu": [0.5, 0.5], "rent_usd_per_gpu_hour": [2.0, 4.0]}
before = scenario.evaluate(inputs)

def first_year_net(net):
    return np.asarray(net, dtype=float)[:, 1]

chain.add_step(chain.Step(
    "first_year_net", "Net cash flow in year 1 (toy)", "USD", "the table's net in year 1",
    "=<net@1>", first_year_net, ("net",), "Rent or buy"))
after = scenario.evaluate(inputs)
print(json.dumps({"before": "first_year_net" in before, "net1": after["first_year_net"].tolist(),
                  "npv": [before["project_npv_usd_per_gpu"].tolist(), after["project_npv_usd_per_gpu"].tolist()]}))
"""


def test_a_step_added_after_a_run_that_reads_the_table_gets_the_table():
    """A step added to the chain after the evaluator has run once (its plan is made again) and
    reading a column of the per-year table without a kernel: the evaluator builds the whole table
    for it by the chain's own functions, and the other results stay as they were."""
    root = Path(__file__).resolve().parents[1]
    proc = subprocess.run(
        [sys.executable, "-c", ADDED], capture_output=True, text=True, cwd=root, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["before"] is False
    used = scenario.used_inputs(
        {"system": ["H100_HGX", "GB200_NVL72"], "mfu": [0.5, 0.5], "rent_usd_per_gpu_hour": [2.0, 4.0]}
    )
    opex = scenario.evaluate({"system": ["H100_HGX", "GB200_NVL72"], "mfu": [0.5, 0.5]})[
        "opex_usd_per_gpu_hour"
    ]
    cols, _ = decisions.cash_flow_columns(
        used["capex_per_gpu"],
        used["rent_usd_per_gpu_hour"],
        opex,
        used["life_years"],
        used["residual_fraction"],
    )
    assert out["net1"] == pytest.approx(cols["net"][:, 1].tolist(), rel=1e-12)
    assert out["npv"][0] == pytest.approx(out["npv"][1], rel=1e-12)


def test_a_rows_results_are_its_own_whatever_rows_come_with_it():
    """The kernels work a row at a time: each row's IRR, NPV and payback alone are bit for bit
    those it gets among 2,000 others (one sign change and several, yearly and by month)."""
    rng = np.random.default_rng(31)
    rows = np.concatenate([_one_sign_change(rng, 1_200)[:1_000], rng.normal(0.0, 1.0, (1_000, 16))])
    rate, why = flows.irr(rows)
    monthly, _ = flows.irr(rows, periods_per_year=12)
    value = flows.npv(rows, 0.08)
    back = flows.payback(rows)
    for i in rng.choice(len(rows), 60, replace=False):
        one = rows[i : i + 1]
        assert flows.irr(one)[0][0] == rate[i] or (np.isnan(rate[i]) and np.isnan(flows.irr(one)[0][0]))
        assert flows.irr(one)[1][0] == why[i]
        alone = flows.irr(one, periods_per_year=12)[0][0]
        assert alone == monthly[i] or (np.isnan(alone) and np.isnan(monthly[i]))
        assert flows.npv(one, 0.08)[0] == value[i]
        got = flows.payback(one)[0]
        assert got == back[i] or (np.isnan(got) and np.isnan(back[i]))


_INTERPRETED = """
import json, sys
sys.modules["numba"] = None  # as in Pyodide (xlwings Lite): no numba to import
import numpy as np
from gputco.udfs import flows
rows = np.array(json.loads(sys.stdin.read()))
rate, why = flows.irr(rows)
print(json.dumps({
    "irr": [None if np.isnan(r) else float(r) for r in rate], "why": why.tolist(),
    "npv": flows.npv(rows, 0.08).tolist(), "changes": flows.sign_changes(rows).tolist(),
    "payback": [None if np.isnan(p) else float(p) for p in flows.payback(rows)],
    "lowest": flows.lowest_sum(rows).tolist(),
    "numba": "numba" in sys.modules and sys.modules["numba"] is not None,
}))
"""


def test_the_kernels_interpreted_as_in_pyodide_give_the_compiled_results(monkeypatch):
    """Where numba is absent (Pyodide: xlwings Lite) the same kernels run as Python, whatever the
    work (udfs/_jit.py): on 120 rows (one sign change and several) every result equals the
    compiled one here to the last bit (JSON carries a float's every bit), and the IRRs
    numpy-financial's."""
    import os

    rng = np.random.default_rng(32)
    rows = np.concatenate([_one_sign_change(rng, 100)[:60], rng.normal(0.0, 1.0, (60, 16))])
    done = subprocess.run(
        [sys.executable, "-c", _INTERPRETED],
        input=json.dumps(rows.tolist()),
        capture_output=True,
        text=True,
        env={**os.environ, "GPUTCO_KERNELS": "auto"},
        timeout=300,
        check=True,
    )
    got = json.loads(done.stdout)
    assert got["numba"] is False
    monkeypatch.setenv("GPUTCO_KERNELS", "compiled")
    rate, why = flows.irr(rows)
    nan = lambda xs: np.array([np.nan if x is None else x for x in xs])  # noqa: E731
    np.testing.assert_array_equal(nan(got["irr"]), rate)
    assert got["why"] == why.tolist()
    np.testing.assert_array_equal(got["npv"], flows.npv(rows, 0.08))
    assert got["changes"] == flows.sign_changes(rows).tolist()
    np.testing.assert_array_equal(nan(got["payback"]), flows.payback(rows))
    np.testing.assert_array_equal(got["lowest"], flows.lowest_sum(rows))
    one = flows.sign_changes(rows) == 1
    want = np.array([npf.irr(np.trim_zeros(r, "b")) for r in rows[one]])
    found = (want > flows.LOW) & (want < flows.HIGH)
    np.testing.assert_allclose(nan(got["irr"])[one][found], want[found], rtol=1e-9, atol=1e-9)


@given(st.lists(st.floats(-1e5, 1e5), min_size=1, max_size=30))
@fuzz_settings(share=0.5)
def test_the_lowest_sum_is_numpys_lowest_cumulative_sum(row):
    """lowest_sum is np.cumsum's minimum (the same additions in the same order: to the bit)."""
    assert flows.lowest_sum(np.array([row]))[0] == np.cumsum(row).min()


@st.composite
def _runs_of_flows(draw):
    """Flows of a few rows held as runs of equal periods (as the project builds them by month),
    with a level-payment loan's geometric term in some rows or none."""
    rows = draw(st.integers(1, 4))
    lengths = draw(st.lists(st.integers(1, 14), min_size=1, max_size=8))
    values = np.array(
        [[draw(st.floats(-1e4, 1e4)) for _ in range(rows)] for _ in lengths], dtype=float
    ).reshape(len(lengths), rows)
    geometric = None
    if draw(st.booleans()) and len(lengths) > 1:
        starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
        k = draw(st.integers(1, len(lengths) - 1))  # the loan's span starts and ends where runs do
        end = draw(st.integers(k, len(lengths) - 1))
        count = int(starts[end] + lengths[end] - starts[k])
        coef = np.array([draw(st.floats(0.0, 500.0)) for _ in range(rows)])
        ratio = np.full(rows, 1.0 + draw(st.floats(0.0, 0.02)))
        geometric = (coef, np.full(rows, int(starts[k])), np.full(rows, count), ratio)
    return flows.Periodic(values, lengths, geometric)


@given(_runs_of_flows())
@fuzz_settings(share=0.5)
def test_flows_held_as_runs_give_the_results_of_their_table(p):
    """Payback, the lowest running sum and NPV step over a run of equal flows at once (the running
    sum is linear within it) or period by period under a loan's geometric term: whatever the
    runs, they are those of the same flows written period by period (``Periodic.dense``), from
    numpy's running sums and discounting, to rounding (1e-9 of the flows' size)."""
    table = p.dense()  # (periods, rows)
    size = np.abs(table).sum(axis=0) + 1.0
    cum = np.cumsum(table, axis=0)
    np.testing.assert_allclose(
        flows.lowest_sum(p, by_period=True), cum.min(axis=0), rtol=0, atol=1e-9 * size.max()
    )
    x = 1.0 / 1.01 ** np.arange(len(table))
    np.testing.assert_allclose(flows.npv(p, 0.01, by_period=True), x @ table, rtol=0, atol=1e-9 * size.max())
    got = flows.payback(p, by_period=True)
    for i in range(table.shape[1]):
        before = np.concatenate([[0.0], cum[:-1, i]])
        cross = np.flatnonzero((before < 0) & (cum[:, i] >= 0))
        # a crossing within rounding of 0 may land a period apart; elsewhere the same time
        if cross.size and min(abs(before[cross[0]]), abs(cum[cross[0], i])) > 1e-9 * size[i]:
            t = cross[0]
            assert got[i] == pytest.approx(t - 1.0 - before[t] / table[t, i], rel=1e-9, abs=1e-9)
        elif not cross.size and np.all(np.abs(cum[:, i]) > 1e-9 * size[i]):
            assert np.isnan(got[i])
