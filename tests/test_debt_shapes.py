"""Debt as lenders write it (issue 40, docs/project.md): the repayment's shape (``debt_repayment``
level, straight or sculpted) and a grace period of interest only (``debt_grace_months``), on every
route.

Oracles: numpy-financial's ipmt / ppmt for the level annuity after the grace, and the straight
schedule written here from its definition (equal principal, interest on the opening balance), the
sculpted schedule by a loop written here from docs/project.md's definition; sculpting's identities
(one cover = min = mean DSCR = LLCR); the balance never below 0 and 0 at maturity on drawn cases (Hypothesis); the compiled batch path held
to the period lines; the finance workbook recalculated by gputco's engine and by LibreOffice
(live) against Python; the scenario evaluator, the TCO_ functions and batch against
:func:`gputco.udfs.project.results`."""

from __future__ import annotations

import math

import numpy as np
import numpy_financial as npf
import project_cases
import project_pin_record
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from project_draws import clock

from gputco.udfs import periodlines, project
from gputco.udfs.errors import InputRangeError, UnknownNameError

LENDER = ("min_dscr", "avg_dscr", "llcr", "plcr", "dscr_breach_periods", "debt_usd_per_gpu")
#: the memo case of docs/project.md, with debt
MEMO = project_cases.MEMO


def _schedule(case: dict) -> dict[str, np.ndarray]:
    """Interest and principal of operating periods 1..tenor from the definitions: numpy-financial's
    annuity over the repayment periods for level, B / R a period for straight; interest only in
    the grace."""
    _ppy, b, _life, tenor, grace, i = clock(case)
    owed = case["debt_fraction"] * case["capex_per_gpu"] * (1 + i) ** b
    repay = tenor - grace
    interest, principal = np.zeros(tenor), np.zeros(tenor)
    interest[:grace] = owed * i
    j = np.arange(1, repay + 1)
    if case.get("debt_repayment", "level") == "level":
        interest[grace:] = -npf.ipmt(i, j, repay, owed)
        principal[grace:] = -npf.ppmt(i, j, repay, owed)
    else:
        principal[grace:] = owed / repay
        interest[grace:] = (owed - owed / repay * (j - 1)) * i
    return {"interest": interest, "principal": principal, "b": b, "tenor": tenor, "owed": owed}


@pytest.mark.parametrize("periods", ["year", "month"])
@pytest.mark.parametrize("shape", ["level", "straight"])
@pytest.mark.parametrize("grace", [0, 12, 24])
def test_the_schedule_is_numpy_financials_and_the_definitions(periods, shape, grace):
    case = {**MEMO, "periods": periods, "debt_repayment": shape, "debt_grace_months": grace}
    want = _schedule(case)
    b, tenor = want["b"], want["tenor"]
    lines = project.period_lines(case)
    at = slice(b + 1, b + tenor + 1)
    assert lines["interest"][at, 0] == pytest.approx(want["interest"], rel=1e-12, abs=1e-9)
    assert lines["principal"][at, 0] == pytest.approx(want["principal"], rel=1e-12, abs=1e-9)
    assert lines["service"][b + tenor + 1 :, 0].tolist() == [0.0] * (
        lines["service"].shape[0] - b - tenor - 1
    )
    # the compiled batch path: the same service and equity (equity = net + drawn - service + tax x interest)
    f = project.project_flows(project.terms(case))
    assert f["service"].dense()[:, 0] == pytest.approx(lines["service"][:, 0], rel=1e-12, abs=1e-9)
    assert f["equity"].dense()[:, 0] == pytest.approx(lines["equity"][:, 0], rel=1e-12, abs=1e-9)
    # the lender's results read that service: the DSCRs of every period with service, grace included
    cfads = lines["cfads"][at, 0]
    dscr = cfads / (want["interest"] + want["principal"])
    out = {k: float(v[0]) for k, v in project.results(case, LENDER).items()}
    assert out["min_dscr"] == pytest.approx(dscr.min(), rel=1e-12)
    assert out["avg_dscr"] == pytest.approx(dscr.mean(), rel=1e-12)
    assert out["dscr_breach_periods"] == np.sum(dscr < 1.0)


def test_a_grace_period_defers_the_repayment_and_keeps_the_balance():
    case = {**MEMO, "periods": "month", "debt_grace_months": 6}
    lines = project.period_lines(case)
    b, owed = 12, case["debt_fraction"] * case["capex_per_gpu"] * 1.09
    grace = slice(b + 1, b + 7)
    assert lines["principal"][grace, 0] == pytest.approx([0.0] * 6, abs=1e-9)
    assert lines["closing"][grace, 0] == pytest.approx([owed] * 6, rel=1e-12)
    # over the ramp the grace lifts the lowest cover: the first month pays interest only
    low = project.results(case, ("min_dscr",))["min_dscr"][0]
    level = project.results({**case, "debt_grace_months": 0}, ("min_dscr",))["min_dscr"][0]
    assert low > level


def _shaped(seed: int, month: bool) -> dict:
    """A drawn project with debt, a shape and a grace that fits its tenor."""
    rng = np.random.default_rng(seed)
    case = project_pin_record.draw(rng, month)
    case["debt_fraction"] = round(float(rng.uniform(0.1, 0.8)), 4)
    case["debt_repayment"] = str(rng.choice(project.REPAYMENTS))
    ppy, tenor = clock(case).ppy, clock(case).tenor
    case["debt_grace_months"] = int(rng.integers(0, tenor)) * 12 // ppy
    return case


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), month=st.booleans())
def test_the_balance_never_goes_below_zero_and_is_zero_at_maturity(seed, month):
    case = _shaped(seed, month)
    lines = project.period_lines(case)
    _ppy, b, _life, tenor, _grace, _rate = clock(case)
    owed = float(lines["debt_at_in_service"][0])
    closing = lines["closing"][:, 0]
    assert closing.min() >= -1e-9 * owed
    if case["debt_repayment"] == "sculpted" and lines["sculpt_cover"][0, 0] == 0:  # cannot be repaid
        assert project.results(case, ("min_dscr",))["unpayable"][0]
        return
    assert abs(closing[b + tenor]) <= 1e-9 * owed
    assert lines["principal"][:, 0].sum() == pytest.approx(owed, rel=1e-12)
    # the compiled path (batch's) equals the lines, and its loan to value reads the same balance
    f = project.project_flows(project.terms(case))
    for key in ("service", "equity", "cfads"):
        assert np.allclose(f[key].dense()[:, 0], lines[key][:, 0], rtol=1e-12, atol=1e-9 * owed), key
    got = project.results(case, ("max_ltv", "ltv_at_maturity"))
    assert got["max_ltv"][0] == pytest.approx(lines["ltv"][:, 0].max(), rel=1e-12)
    assert got["ltv_at_maturity"][0] == 0.0


def test_many_rows_of_many_shapes_at_once_are_each_row_alone():
    cases = [_shaped(seed, month=seed % 2 == 0) for seed in range(40)]
    for month in (False, True):
        rows = [c for c in cases if (c["periods"] == "month") == month]
        keys = sorted({k for c in rows for k in c})
        given_ = {k: [c.get(k) for c in rows] for k in keys}
        for k in list(given_):
            if any(v is None for v in given_[k]):  # a default left out: fill it as terms() would
                given_[k] = [
                    v
                    if v is not None
                    else project.terms(c)[k][0]
                    if k in project.TERMS
                    else project.CHOICES[k]
                    for c, v in zip(rows, given_[k], strict=True)
                ]
        together = project.results(given_, (*LENDER, "equity_irr", "max_ltv"))
        for j, c in enumerate(rows):
            alone = project.results(c, (*LENDER, "equity_irr", "max_ltv"))
            for k, v in alone.items():
                if k.endswith("_why"):
                    continue
                assert together[k][j] == pytest.approx(v[0], rel=1e-12, nan_ok=True), (j, k)


def test_bad_values_are_named_with_their_range():
    with pytest.raises(
        UnknownNameError, match=r"unknown debt_repayment .balloon.; valid: level, sculpted, straight"
    ):
        project.results({**MEMO, "debt_repayment": "balloon"})
    with pytest.raises(
        InputRangeError, match=r"debt_grace_months must be in \[0, 48\) months .*multiple of 12 .*got 6$"
    ):
        project.results({**MEMO, "debt_grace_months": 6})  # by year: whole years
    with pytest.raises(
        InputRangeError, match=r"debt_grace_months must be in \[0, 48\) months \(below the tenor.*got 48$"
    ):
        project.results({**MEMO, "debt_grace_months": 48, "periods": "month"})
    with pytest.raises(InputRangeError, match=r"debt_grace_months.*whole.*2\.5"):
        project.results({**MEMO, "debt_grace_months": 2.5, "periods": "month"})
    with pytest.raises(InputRangeError, match=r"debt_grace_months.*-12"):
        project.results({**MEMO, "debt_grace_months": -12})
    # without debt there is no grace to fit
    assert project.results(
        {**MEMO, "debt_fraction": 0.0, "debt_grace_months": 60}, ("project_npv_usd_per_gpu",)
    )


def test_the_functions_take_the_shape_after_every_existing_argument():
    from gputco import udfs

    names = list(project.OPTIONAL_ARGS)
    i = names.index("debt_repayment")  # after the curves; only arguments added later come after
    assert names[i - 1 : i + 4] == [
        "value_curve",
        "debt_repayment",
        "debt_grace_months",
        "debt_sizing",
        "target_dscr",
    ]
    # issue 41's curve moves, then issue 40's tax_losses, then issue 41's contract escalation, then
    # issue 40's waterfall, then issue 41's floating debt, added after
    assert names[i + 4 :] == [
        *project.MOVE_TERMS,
        *project.TAX_TERMS,
        *project.CONTRACT_TERMS,
        *project.WATERFALL_TERMS,
        *project.FLOATING_TERMS,
    ]
    case = {**MEMO, "periods": "month", "debt_repayment": "straight", "debt_grace_months": 3}
    want = project.results(case, LENDER)
    args = {k: v for k, v in case.items() if k not in project._REQUIRED}
    req = [case[k] for k in project._REQUIRED]
    assert udfs.tco_avg_dscr(*req, **args) == pytest.approx(want["avg_dscr"][0], rel=1e-12)
    assert udfs.tco_min_dscr(*req, **args) == pytest.approx(want["min_dscr"][0], rel=1e-12)
    assert udfs.tco_llcr(*req, **args) == pytest.approx(want["llcr"][0], rel=1e-12)
    rows = udfs.tco_project_cashflows(*req, **args)
    service = [-r[rows[0].index("debt_service")] for r in rows[1:]]
    lines = project.period_lines(case)
    assert service == pytest.approx(lines["service"][:, 0].tolist(), rel=1e-12, abs=1e-9)


def test_the_scenario_evaluator_and_batch_take_the_shape(tmp_path):

    spec = project_cases.financed_spec(
        4,
        debt_repayment=["level", "straight", "straight", "sculpted"],
        debt_grace_months=[0, 0, 6, 0],
        debt_sizing=["fraction", "fraction", "fraction", "dscr"],
        target_dscr=[1.3, 1.3, 1.3, 3.0],  # above the cover at the cap (2.77): sized below it
    )
    out, _ = project_cases.scenario_equals_project(
        spec, 4, ("min_dscr", "avg_dscr", "llcr", "debt_usd_per_gpu")
    )
    assert len({round(float(x), 9) for x in out["min_dscr"]}) == 4  # each shape its own cover
    assert out["min_dscr"][3] == pytest.approx(3.0, rel=1e-9)  # sized to its target
    project_cases.assert_batch_is_scenario(tmp_path, spec, 4, out, ("min_dscr",))
    said = project_cases.batch_refusal(
        tmp_path,
        "system,mfu,rent_usd_per_gpu_hour,debt_fraction,debt_repayment,debt_grace_months\n"
        "H100_HGX,0.5,2,0.6,balloon,0\nH100_HGX,0.5,2,0.6,level,-1\n",
    )
    assert "row 2, column E (debt_repayment): unknown debt_repayment 'balloon'" in said
    assert "row 3, column F (debt_grace_months): debt_grace_months must be in [0, 180], got -1" in said


# --- the finance workbook: 4 books x 5 systems, engine and LibreOffice ----------------------------

SYSTEMS = ("H100_HGX", "GB200_NVL72", "B200_HGX", "H200_HGX", "MI300X")
DEBT_LINES = (
    "opening",
    "interest",
    "service",
    "principal",
    "closing",
    "dscr",
    "equity",
    "sculpt_cover",
    "debt_scale",
)
DEBT_RESULTS = (
    "min_dscr",
    "avg_dscr",
    "llcr",
    "plcr",
    "dscr_breach_periods",
    "equity_irr",
    "max_ltv",
    "debt_usd_per_gpu",
)


def _book(seed: int) -> dict[str, object]:
    rng = np.random.default_rng(seed)
    month = seed % 2 == 0
    years = int(rng.integers(2, 5))
    out: dict[str, object] = {
        "inp_periods": "month" if month else "year",
        "inp_debt_fraction": round(float(rng.uniform(0.3, 0.8)), 4),
        "inp_debt_rate": round(float(rng.uniform(0.04, 0.12)), 4),
        "inp_debt_years": years,
        "inp_tax_rate": 0.21,
        # 51: year, straight; 52: month, straight with a grace; 53: year, sculpted with a grace; 54: month,
        # sculpted and sized to a cover of 2.2 (below the cap: min DSCR 2.2) (level is
        # tests/test_project_workbook.py's)
        "inp_debt_repayment": "straight" if seed in (51, 52) else "sculpted",
        "inp_debt_grace_months": (int(rng.integers(1, 12)) if month else 12) if seed in (52, 53) else 0,
    }
    if seed == 54:
        out.update(inp_debt_sizing="dscr", inp_target_dscr=2.2)
    for k in range(1, len(SYSTEMS) + 1):
        out[f"inp_rent_usd_per_gpu_hour_{k}"] = round(float(rng.uniform(2.0, 4.0)), 4)
        out[f"inp_mfu_{k}"] = 0.5
        out[f"inp_build_months_{k}"] = int(rng.integers(0, 13)) if month else 12 * int(rng.integers(0, 2))
        out[f"inp_ramp_months_{k}"] = int(rng.integers(0, 7))
    return out


BOOKS = {f"debt_{seed}": _book(seed) for seed in (51, 52, 53, 54)}


def _check(path, _name: str) -> None:
    for column in project_cases.finance_book_columns(path, DEBT_LINES, SYSTEMS):
        k, cell, lines, terms, py = column.k, column.cell, column.lines, column.given, column.py
        assert cell["project_inputs_check"] in ("", None)
        n = py["net"].shape[0]
        for key in DEBT_LINES:
            got = lines[key][:n]
            want = py[key][:, 0]
            if key == "dscr":
                got = [np.nan if v in ("", None) else v for v in got]
            assert np.allclose(np.array(got, float), want, rtol=1e-9, atol=1e-6, equal_nan=True), (k, key)
        project_cases.assert_cells_are_results(cell, terms, DEBT_RESULTS, k)
        if terms.get("debt_sizing") == "dscr":  # the identities in the workbook's own numbers
            capped = lines["debt_scale"][0] == 1
            assert (
                cell["min_dscr"] >= terms["target_dscr"] - 1e-9
                if capped
                else cell["min_dscr"] == pytest.approx(terms["target_dscr"], rel=1e-9)
            )


(
    test_the_finance_workbook_in_the_engine_equals_python,
    test_the_finance_workbook_in_libreoffice_equals_python,
) = project_cases.finance_book_tests(BOOKS, _check, list(BOOKS)[1::2])


def test_a_grace_that_does_not_fit_is_said_on_the_model(tmp_path):
    from gputco.workbook.finance.build import fill_cached_values

    inputs = {"inp_rent_usd_per_gpu_hour_1": 2.0, "inp_debt_fraction": 0.5, "inp_debt_years": 2}
    path = project_cases.write_finance_book(
        tmp_path / "g.xlsx", ["H100_HGX"], {**inputs, "inp_debt_grace_months": 24}
    )
    fill_cached_values(path)
    ((cell, _),) = project_cases.read_finance_book(path, 1, ())
    said = cell["project_inputs_check"]
    assert said.startswith("debt_grace_months must be whole periods")
    assert cell["min_dscr"] == said
    assert math.isfinite(project.results({**MEMO, "debt_grace_months": 36}, ("min_dscr",))["min_dscr"][0])


# --- sculpted ------------------------------------------------------------------------------------


def _sculpted_by_hand(cfads: np.ndarray, i: float, owed: float, b: int, grace: int, tenor: int):
    """Sculpted service of periods 0.. from docs/project.md's definition, one period at a time: m
    counts the repayment periods with CFADS > 0, c = sum CFADS v^m / B; service CFADS / c there,
    the interest where CFADS <= 0 and in the grace."""
    c, m = 0.0, 0
    for k in range(grace + 1, tenor + 1):
        if cfads[b + k] > 0:
            m += 1
            c += cfads[b + k] / (1 + i) ** m
    c /= owed
    service, balance = np.zeros_like(cfads), owed
    for k in range(1, tenor + 1):
        interest = balance * i
        pay = cfads[b + k] / c if k > grace and cfads[b + k] > 0 else interest
        service[b + k] = pay
        balance -= pay - interest
    return c, service, balance


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), month=st.booleans())
def test_sculpted_service_is_the_definitions_loop(seed, month):
    case = {**_shaped(seed, month), "debt_repayment": "sculpted"}
    lines = project.period_lines(case)
    _ppy, b, _life, tenor, grace, rate = clock(case)
    owed = float(lines["debt_at_in_service"][0])
    cfads = lines["cfads"][:, 0]
    if not (cfads[b + grace + 1 : b + tenor + 1] > 0).any():  # cannot be repaid: said, no number
        got = project.results(case, LENDER)
        assert got["unpayable"][0] and np.isnan(got["min_dscr"][0])
        return
    c, service, balance = _sculpted_by_hand(cfads, rate, owed, b, grace, tenor)
    assert lines["sculpt_cover"][0, 0] == pytest.approx(c, rel=1e-12)
    assert np.allclose(lines["service"][:, 0], service, rtol=1e-12, atol=1e-9 * owed)
    assert abs(balance) <= 1e-9 * owed
    f = project.project_flows(project.terms(case))
    assert np.allclose(f["service"].dense()[:, 0], service, rtol=1e-12, atol=1e-9 * owed)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), month=st.booleans())
def test_sculpted_without_grace_and_with_cfads_above_zero_has_one_cover(seed, month):
    """min_dscr = avg_dscr = LLCR = c (1e-9) where every repayment period has CFADS > 0."""
    case = {**_shaped(seed, month), "debt_repayment": "sculpted", "debt_grace_months": 0}
    case["rent_usd_per_gpu_hour"] = case["rent_usd_per_gpu_hour"] + 3.0  # CFADS > 0 mostly
    lines = project.period_lines(case)
    _ppy, b, _life, tenor, _grace, _rate = clock(case)
    assume(bool((lines["cfads"][b + 1 : b + tenor + 1, 0] > 0).all()))
    c = float(lines["sculpt_cover"][0, 0])
    got = {k: float(v[0]) for k, v in project.results(case, LENDER).items()}
    for key in ("min_dscr", "avg_dscr", "llcr"):
        assert math.isclose(got[key], c, rel_tol=1e-9), key
    assert got["dscr_breach_periods"] == (tenor if c < 1.0 else 0)


def test_sculpting_around_the_ramp_lifts_the_lowest_cover():
    """docs/project.md's memo case by month: the level payment's lowest cover is the first ramp
    month; sculpted, every repayment month has the same cover, the LLCR."""
    case = {**MEMO, "periods": "month"}
    level = project.results(case, LENDER)
    sculpted = project.results({**case, "debt_repayment": "sculpted"}, LENDER)
    assert level["min_dscr"][0] < 0.2
    assert sculpted["min_dscr"][0] == pytest.approx(sculpted["llcr"][0], rel=1e-9)
    assert sculpted["min_dscr"][0] == pytest.approx(sculpted["avg_dscr"][0], rel=1e-9)
    assert sculpted["llcr"][0] == pytest.approx(level["llcr"][0], rel=1e-12)  # the same CFADS and debt


def test_sculpted_debt_that_cannot_be_repaid_is_said_not_numbered(tmp_path):
    from gputco import udfs
    from gputco.udfs.errors import NoSolutionError
    from gputco.workbook.finance.build import fill_cached_values

    case = {**MEMO, "rent_usd_per_gpu_hour": 0.1, "debt_repayment": "sculpted"}  # CFADS < 0 throughout
    got = project.results(case)
    assert got["unpayable"][0]
    assert np.isnan(got["min_dscr"][0]) and np.isnan(got["equity_irr"][0])
    assert math.isfinite(got["project_npv_usd_per_gpu"][0])  # the project's own results stand
    req = [case[k] for k in project._REQUIRED]
    args = {k: v for k, v in case.items() if k not in project._REQUIRED}
    with pytest.raises(NoSolutionError, match="no repayment period has CFADS > 0"):
        udfs.tco_min_dscr(*req, **args)
    inputs = {
        "inp_rent_usd_per_gpu_hour_1": 0.1,
        "inp_debt_fraction": 0.5,
        "inp_debt_years": 2,
        "inp_debt_repayment": "sculpted",
    }
    path = project_cases.write_finance_book(tmp_path / "u.xlsx", ["H100_HGX"], inputs)
    fill_cached_values(path)
    ((cell, _),) = project_cases.read_finance_book(path, 1, ())
    for key in ("min_dscr", "llcr", "equity_irr", "cluster_equity_npv_usd"):
        assert cell[key] == periodlines.UNPAYABLE, key
    assert isinstance(cell["project_npv_usd_per_gpu"], float)


# --- dscr sizing --------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), month=st.booleans(), target=st.floats(0.5, 4.0))
def test_dscr_sizing_keeps_the_lowest_repayment_cover_at_the_target_or_caps_the_debt(seed, month, target):
    """Below the cap min DSCR over the repayment periods = target_dscr (1e-9); at the cap >= it;
    the drawn debt = the balance at repayment start / (1 + i)^build."""
    case = {
        **_shaped(seed, month),
        "debt_repayment": "sculpted",
        "debt_sizing": "dscr",
        "target_dscr": target,
    }
    case["rent_usd_per_gpu_hour"] = case["rent_usd_per_gpu_hour"] + 3.0
    lines = project.period_lines(case)
    _ppy, b, _life, tenor, grace, rate = clock(case)
    repay = slice(b + grace + 1, b + tenor + 1)
    assume(bool((lines["cfads"][repay, 0] > 0).all()))
    cover = lines["cfads"][repay, 0] / lines["service"][repay, 0]
    scale = float(lines["debt_scale"][0, 0])
    cap = case["debt_fraction"] * case["capex_per_gpu"]
    got = {k: float(v[0]) for k, v in project.results(case, LENDER).items()}
    pv = sum(float(x) / (1 + rate) ** m for m, x in enumerate(lines["cfads"][repay, 0], start=1))
    owed = min(cap * (1 + rate) ** b, pv / target)
    assert got["debt_usd_per_gpu"] == pytest.approx(owed / (1 + rate) ** b, rel=1e-9)
    if scale < 1:
        assert cover.min() == pytest.approx(target, rel=1e-9)
        assert np.allclose(cover, target, rtol=1e-9)
        if grace == 0:
            assert got["min_dscr"] == pytest.approx(target, rel=1e-9)
    else:
        assert cover.min() >= target * (1 - 1e-9)
        assert got["debt_usd_per_gpu"] == pytest.approx(cap, rel=1e-12)
    f = project.project_flows(project.terms(case))
    for key in ("service", "equity"):
        assert np.allclose(f[key].dense()[:, 0], lines[key][:, 0], rtol=1e-12, atol=1e-9 * cap), key
    assert abs(lines["closing"][b + tenor, 0]) <= 1e-9 * cap


def test_dscr_sizing_with_another_repayment_is_refused_naming_both():
    for shape in ("level", "straight"):
        with pytest.raises(
            InputRangeError, match=f'debt_sizing .*debt_repayment "{shape}".*sculpted.*got .dscr.'
        ):
            project.results({**MEMO, "debt_sizing": "dscr", "debt_repayment": shape})
    with pytest.raises(InputRangeError, match=r"target_dscr must be in \(0, inf\), got 0"):
        project.results({**MEMO, "debt_sizing": "dscr", "debt_repayment": "sculpted", "target_dscr": 0})
    # the default target is 1.30: the memo case by month sized to it sits at the cap (cover 1.95 > 1.3)
    out = project.results({**MEMO, "periods": "month", "debt_sizing": "dscr", "debt_repayment": "sculpted"})
    assert out["debt_usd_per_gpu"][0] == MEMO["debt_fraction"] * MEMO["capex_per_gpu"]
