"""Tax losses carried forward (issue 40, docs/project.md): ``tax_losses`` refund (a loss is a tax
credit, the default) or carry_forward (a running loss pool, the tax paid never a credit), on every
route.

Oracles: a loop written here from docs/project.md's definition, fed the taxable income of the
refund case's own lines (tax = -rate x taxable there); the identities carry_forward NPV <= refund
NPV with equality where no period is a loss, pool >= 0, tax paid >= 0; the compiled batch path
held to the period lines; the finance workbook recalculated by gputco's engine against Python."""

from __future__ import annotations

import numpy as np
import project_cases
import project_pin_record
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lo import requires_soffice

from gputco.udfs import project
from gputco.udfs.errors import UnknownNameError

#: the memo case of docs/project.md, with debt (MACRS 5 makes the first months losses)
MEMO = project_cases.MEMO
RESULTS = ("project_npv_usd_per_gpu", "equity_npv_usd_per_gpu", "min_dscr")


def _carried_by_hand(taxable: list[float], rate: float) -> tuple[list[float], list[float]]:
    """docs/project.md's definition, one period at a time: (tax paid as cash, pool after)."""
    pool, paid, pools = 0.0, [], []
    for x in taxable:
        paid.append(-rate * max(0.0, x - pool))
        pool = max(0.0, pool - x)
        pools.append(pool)
    return paid, pools


def _npv(net: np.ndarray, rate: float, ppy: int) -> float:
    return float(sum(v * (1 + rate) ** (-p / ppy) for p, v in enumerate(net)))


def _drawn(seed: int, month: bool) -> dict:
    return project_pin_record.seeded(seed, month, debt_chance=0.5)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), month=st.booleans())
def test_carry_forward_is_the_definitions_loop_and_never_worth_more(seed, month):
    case = _drawn(seed, month)
    refund = project.period_lines({**case, "tax_losses": "refund"})
    carried = project.period_lines({**case, "tax_losses": "carry_forward"})
    rate = float(refund["tax_rate"][0])
    taxable = (refund["revenue"] + refund["opex"] - refund["depreciation"] + refund["residual"])[:, 0]
    paid, pools = _carried_by_hand(list(taxable), rate)
    assert np.allclose(carried["tax"][:, 0], paid, rtol=1e-12, atol=1e-9)
    assert np.allclose(carried["loss_pool"][:, 0], pools, rtol=1e-12, atol=1e-9)
    assert np.all(carried["loss_pool"] >= 0) and np.all(carried["tax"] <= 0)  # tax paid >= 0
    assert np.all(refund["loss_pool"] == 0)
    ppy = 12 if month else 1
    r = {k: project.results({**case, "tax_losses": k}, RESULTS) for k in project.TAX_LOSSES}
    coc = float(refund["cost_of_capital"][0])
    # the compiled path's NPV is the NPV of the lines' net, and of the definition's
    want = _npv(carried["net"][:, 0], coc, ppy)
    assert r["carry_forward"]["project_npv_usd_per_gpu"][0] == pytest.approx(want, rel=1e-9, abs=1e-6)
    net_by_hand = refund["net"][:, 0] - refund["tax"][:, 0] + np.array(paid)
    assert want == pytest.approx(_npv(net_by_hand, coc, ppy), rel=1e-9, abs=1e-6)
    for k in ("project_npv_usd_per_gpu", "equity_npv_usd_per_gpu"):
        if np.all(taxable >= 0) or rate == 0:  # no loss: the same cash
            assert r["carry_forward"][k][0] == pytest.approx(r["refund"][k][0], rel=1e-12, abs=1e-7)
        else:
            assert r["carry_forward"][k][0] <= r["refund"][k][0] + 1e-7


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), month=st.booleans())
def test_the_compiled_path_equals_the_period_lines(seed, month):
    case = {**_drawn(seed, month), "tax_losses": "carry_forward"}
    lines = project.period_lines(case)
    f = project.project_flows(project.terms(case), table=True)
    n = f["net"].shape[0]
    for key, got in (("net", f["net"]), ("cfads", f["cfads"]), ("equity", f["equity"])):
        if case.get("debt_fraction", 0) == 0 and key == "cfads":
            continue
        assert np.allclose(got.dense()[:, 0], lines[key][:n, 0], rtol=1e-9, atol=1e-6), key
    assert np.allclose(f["lines"]["tax"][:, 0], lines["tax"][:n, 0], rtol=1e-9, atol=1e-6)


def test_many_rows_of_both_choices_at_once_are_each_row_alone():
    rng = np.random.default_rng(40)
    for periods in ("month", "year"):
        m = 30
        values = {
            **MEMO,
            "periods": periods,
            "rent_usd_per_gpu_hour": rng.uniform(0.8, 4.0, m).round(4),
            "tax_rate": rng.uniform(0.0, 0.35, m).round(4),
            "debt_fraction": rng.choice([0.0, 0.6], m),
            "build_months": (12 * rng.integers(0, 2, m)) if periods == "year" else rng.integers(0, 13, m),
            "depreciation_method": [str(x) for x in rng.choice(project.DEPRECIATION_METHODS, m)],
            "tax_losses": [str(x) for x in rng.choice(project.TAX_LOSSES, m)],
        }
        together = project.results(values, RESULTS)
        for j in range(m):
            one = {k: (v[j] if isinstance(v, (list, np.ndarray)) else v) for k, v in values.items()}
            alone = project.results(one, RESULTS)
            for k in RESULTS:
                assert together[k][j] == pytest.approx(alone[k][0], rel=1e-12, nan_ok=True), (j, k)


def test_the_memo_case_pays_no_tax_while_its_losses_last():
    memo = {**MEMO, "periods": "month"}
    refund = project.results(memo, RESULTS)
    carried = project.results({**memo, "tax_losses": "carry_forward"}, RESULTS)
    # MACRS 5's first years are losses: their refunds are cash only with refund
    assert carried["min_dscr"][0] < refund["min_dscr"][0]
    assert carried["project_npv_usd_per_gpu"][0] < refund["project_npv_usd_per_gpu"][0]
    # the default is refund, today's
    assert (
        project.results({**memo, "tax_losses": "refund"}, RESULTS)["project_npv_usd_per_gpu"][0]
        == refund["project_npv_usd_per_gpu"][0]
    )


def test_a_bad_value_is_named_with_the_valid_ones():
    with pytest.raises(UnknownNameError, match=r"unknown tax_losses .carry.; valid: carry_forward, refund"):
        project.results({**MEMO, "tax_losses": "carry"})


def test_the_functions_take_tax_losses_after_every_existing_argument():
    # after every argument before it; issue 41's contract escalation and issue 40's waterfall added after
    tail = [*project.CONTRACT_TERMS, *project.WATERFALL_TERMS, *project.FLOATING_TERMS]
    assert list(project.OPTIONAL_ARGS)[-1 - len(tail) :] == ["tax_losses", *tail]
    from gputco.udfs import tco_project_npv

    base = tco_project_npv(31250, 2.0, 0.4045, 5, 0.1)
    assert tco_project_npv(31250, 2.0, 0.4045, 5, 0.1, tax_losses="refund") == base
    kw = {k: v for k, v in MEMO.items() if k not in project._REQUIRED}
    carried = tco_project_npv(31250, 2.0, 0.4045, 5, 0.1, periods="month", tax_losses="carry_forward", **kw)
    want = project.results(
        {**MEMO, "periods": "month", "tax_losses": "carry_forward"}, ("project_npv_usd_per_gpu",)
    )
    assert carried == pytest.approx(want["project_npv_usd_per_gpu"][0], rel=1e-12)
    assert carried < tco_project_npv(31250, 2.0, 0.4045, 5, 0.1, periods="month", **kw)


def test_the_scenario_evaluator_and_batch_take_tax_losses(tmp_path):
    spec = project_cases.financed_spec(
        2,
        rent_usd_per_gpu_hour=[1.5, 1.5],
        build_months=[12, 12],
        ramp_months=[3, 3],
        depreciation_method="macrs_5",
        tax_rate=0.21,
        tax_losses=["refund", "carry_forward"],
    )
    out, columns = project_cases.scenario_equals_project(spec, 2, RESULTS)
    assert [terms["tax_rate"] for terms in columns] == [0.21, 0.21]
    assert out["min_dscr"][1] < out["min_dscr"][0]  # the ramp's losses are no cash when carried
    project_cases.assert_batch_is_scenario(tmp_path, spec, 2, out, ("min_dscr",))
    said = project_cases.batch_refusal(
        tmp_path,
        "system,mfu,rent_usd_per_gpu_hour,debt_fraction,tax_losses\nH100_HGX,0.5,2,0.6,refund\nH100_HGX,0.5,2,0.6,carry\n",
    )
    assert "row 3, column E (tax_losses): unknown tax_losses 'carry'" in said


SYSTEMS = ("H100_HGX", "GB200_NVL72", "B200_HGX", "H200_HGX", "MI300X")


def _write_book(path, month: bool):
    rng = np.random.default_rng(40 + month)
    inputs: dict[str, object] = {
        "inp_periods": "month" if month else "year",
        "inp_debt_fraction": 0.6,
        "inp_debt_years": 4,
        "inp_tax_rate": 0.21,
        "inp_depreciation_method": "macrs_5",
        "inp_tax_losses": "carry_forward",
    }
    for k in range(1, len(SYSTEMS) + 1):
        inputs[f"inp_rent_usd_per_gpu_hour_{k}"] = round(float(rng.uniform(1.0, 4.0)), 4)
        inputs[f"inp_build_months_{k}"] = int(rng.integers(0, 13)) if month else 12 * int(rng.integers(0, 2))
    return project_cases.write_finance_book(path, SYSTEMS, inputs)


def _check_book(path) -> None:
    losses = 0
    for column in project_cases.finance_book_columns(path, ("tax", "loss_pool", "net", "equity"), SYSTEMS):
        k, lines, py = column.k, column.lines, column.py
        assert column.given["tax_losses"] == "carry_forward"
        n = py["net"].shape[0]
        for key in ("tax", "loss_pool", "net", "equity"):
            got = np.array(lines[key][:n], float)
            assert np.allclose(got, py[key][:, 0], rtol=1e-9, atol=1e-6), (k, key)
        losses += int(np.any(py["loss_pool"] > 0))
        project_cases.assert_cells_are_results(
            column.cell, column.given, ("equity_npv_usd_per_gpu", "min_dscr"), k
        )
    assert losses  # the books test a carried loss


@pytest.mark.parametrize("month", [True, False])
def test_the_finance_workbook_in_the_engine_equals_python(tmp_path, month):
    from gputco.workbook.finance.build import fill_cached_values

    path = _write_book(tmp_path / "t.xlsx", month)
    fill_cached_values(path)
    _check_book(path)


@requires_soffice
def test_the_finance_workbook_in_libreoffice_equals_python(tmp_path):
    import lo

    _check_book(lo.recalculate(_write_book(tmp_path / "t.xlsx", True), tmp_path / "lo"))
