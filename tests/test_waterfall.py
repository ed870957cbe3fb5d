"""The debt's waterfall (issue 40; docs/project.md "Reserve, sweep, lock-up and fee"): a debt
service reserve (``dsra_months``), a cash sweep (``sweep_fraction``), a lock-up cover
(``lockup_dscr``) and an upfront fee (``debt_upfront_fee_fraction``).

Oracles nobody tuned to the code: a loop written here from the definitions in docs/project.md
(one project at a time, scalar arithmetic, the schedule from numpy-financial for level and
straight debt), and identities that hold whatever the implementation (the balance never below 0
and 0 at maturity with any sweep or trap; the reserve never negative and released at maturity;
what the reserve takes from the equity it gives back; prepayments lower the interest paid; every
new input at 0 gives today's results bit for bit). Then the routes: the period lines (both
workbooks' formulas in Python), the compiled path batch uses, the finance workbook recalculated
by gputco's engine and by LibreOffice, batch, the scenario evaluator and the TCO_ functions.
"""

from __future__ import annotations

import numpy as np
import numpy_financial as npf
import project_cases
import project_pin_record
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lo import requires_soffice
from project_draws import clock

from gputco.udfs import project
from gputco.udfs.errors import InputRangeError

WATER = ("dsra_months", "sweep_fraction", "lockup_dscr", "debt_upfront_fee_fraction")


def _case(seed: int, month: bool) -> dict:
    """A drawn project with debt of any shape, a grace, and a reserve, sweep, lock-up and fee."""
    rng = np.random.default_rng(seed)
    case = project_pin_record.draw(rng, month)
    case["debt_fraction"] = round(float(rng.uniform(0.2, 0.8)), 4)
    case["debt_repayment"] = str(rng.choice(("level", "straight", "sculpted")))
    ppy, tenor = clock(case).ppy, clock(case).tenor
    case["debt_grace_months"] = int(rng.integers(0, max(1, tenor // 3))) * 12 // ppy
    case["dsra_months"] = int(rng.integers(0, 13)) if month else 12 * int(rng.integers(0, 2))
    case["sweep_fraction"] = float(rng.choice((0.0, 0.25, 0.5, 1.0)))
    case["lockup_dscr"] = float(rng.choice((0.0, 1.1, 1.5, 3.0)))
    case["debt_upfront_fee_fraction"] = float(rng.choice((0.0, 0.01, 0.02)))
    return case


def _repayable(seed: int, month: bool) -> tuple[dict, dict | None]:
    """A drawn case (:func:`_case`) and its period lines, None for a sculpted debt that cannot be
    repaid (no repayment period with CFADS > 0: tests/test_debt_shapes.py holds what it says)."""
    case = _case(seed, month)
    lines = project.period_lines(case)
    if case["debt_repayment"] == "sculpted" and lines["sculpt_cover"][0, 0] == 0:
        return case, None
    return case, lines


def _by_hand(case: dict, lines: dict) -> dict[str, np.ndarray]:
    """The waterfall of one project from docs/project.md's definitions, period by period, given
    its CFADS and its scheduled debt (``service``, ``interest``, ``closing``: the schedule the
    existing tests hold to numpy-financial and the sculpting loop)."""
    ppy, b, life, tenor, _grace, i = clock(case)
    n = round(case.get("dsra_months", 0) * ppy / 12)
    sweep, lockup = case.get("sweep_fraction", 0.0), case.get("lockup_dscr", 0.0)
    cfads, service = lines["cfads"][:, 0], lines["service"][:, 0]
    interest, closing = lines["interest"][:, 0], lines["closing"][:, 0]
    prepaying = sweep > 0 or lockup > 0
    periods = service.size
    out = {k: np.zeros(periods) for k in ("paid", "interest", "owed", "reserve", "equity_moved", "prepaid")}

    def ahead(p: int) -> float:
        return float(sum(service[p + 1 : min(p + n, b + life) + 1]))

    held = ahead(b)
    out["equity_moved"][b] -= held
    out["reserve"][b] = held
    owed = float(lines["debt_at_in_service"][0] * lines["debt_scale"][0, 0])
    for p in range(b + 1, periods):
        k = p - b
        scheduled_principal = service[p] - interest[p]
        if prepaying:
            due = owed * i if k <= tenor else 0.0
            # at most what is owed; all of it at maturity or where the schedule is repaid
            principal = owed if k == tenor or closing[p] == 0 else min(scheduled_principal, owed)
            paid, left = due + principal, owed - principal
        else:
            due, paid, left = interest[p], service[p], closing[p]
        cash = cfads[p] - paid
        target = ahead(p) if k < tenor and left > 0 else 0.0
        draw = min(held, max(0.0, -cash))
        funded = min(max(0.0, target - (held - draw)), max(0.0, cash))
        released = max(0.0, held - draw - target)
        held += funded - draw - released
        free = max(0.0, cash + draw - funded)
        locked = lockup > 0 and paid > 0 and cfads[p] / paid < lockup
        prepaid = min(left, free if locked else sweep * free) if prepaying else 0.0
        owed = left - prepaid if prepaying else closing[p]
        out["paid"][p], out["interest"][p], out["owed"][p], out["reserve"][p] = paid, due, owed, held
        out["equity_moved"][p] = -funded + draw + released - prepaid
        out["prepaid"][p] = prepaid
    return out


def _on_repayable_cases(check):
    """The test of ``check(case, lines, month)`` on 80 drawn cases by year and by month
    (:func:`_repayable`; a sculpted debt that cannot be repaid is passed over)."""

    @settings(max_examples=80, deadline=None)
    @given(seed=st.integers(0, 2**32 - 1), month=st.booleans())
    def test(seed, month):
        case, lines = _repayable(seed, month)
        if lines is not None:
            check(case, lines, month)

    test.__name__, test.__qualname__, test.__doc__ = check.__name__, check.__qualname__, check.__doc__
    return test


@_on_repayable_cases
def test_the_waterfall_is_the_definitions_loop_on_every_path(case, lines, month):
    hand = _by_hand(case, lines)
    scale = float(lines["debt_at_in_service"][0]) + 1.0
    close = dict(rtol=1e-9, atol=1e-9 * scale)
    assert np.allclose(lines["paid_service"][:, 0], hand["paid"], **close)
    assert np.allclose(lines["paid_interest"][:, 0], hand["interest"], **close)
    assert np.allclose(lines["reserve"][:, 0], hand["reserve"], **close)
    assert np.allclose(lines["trapped"][:, 0] + lines["swept"][:, 0], hand["prepaid"], **close)
    b = round(case.get("build_months", 0) * (12 if month else 1) / 12)
    assert np.allclose(lines["owed_end"][b + 1 :, 0], hand["owed"][b + 1 :], **close)
    # the equity: the schedule's equity (no waterfall) + what the waterfall moves - the fee
    plain = project.period_lines({**case, **dict.fromkeys(WATER, 0.0)})
    fee = case["debt_upfront_fee_fraction"] * float(lines["drawn"][0, 0])
    tax = case.get("tax_rate", 0.0)
    want = (
        plain["equity"][:, 0]
        + hand["equity_moved"]
        + (plain["service"][:, 0] - hand["paid"])
        - tax * (plain["interest"][:, 0] - hand["interest"])
    )
    want[0] -= fee
    assert np.allclose(lines["equity"][:, 0], want, **close)
    # the compiled path (batch's) is the lines
    f = project.project_flows(project.terms(case))
    assert np.allclose(f["service"].dense()[:, 0], lines["paid_service"][:, 0], **close)
    assert np.allclose(f["equity"].dense()[:, 0], lines["equity"][:, 0], **close)
    got = project.results(case, ("min_dscr", "avg_dscr", "llcr", "max_ltv", "equity_irr"))
    dscr = lines["dscr"][:, 0]
    assert got["min_dscr"][0] == pytest.approx(np.nanmin(dscr), rel=1e-9)
    assert got["avg_dscr"][0] == pytest.approx(np.nanmean(dscr), rel=1e-9)
    assert got["max_ltv"][0] == pytest.approx(lines["ltv"][:, 0].max(), rel=1e-9, abs=1e-12)


@_on_repayable_cases
def test_the_balance_and_the_reserve_never_go_below_zero_and_end_at_zero(case, lines, _month):
    _ppy, b, _life, tenor, _grace, _rate = clock(case)
    owed = float(lines["debt_at_in_service"][0])
    eps = 1e-9 * owed
    assert lines["owed_end"][:, 0].min() >= -eps
    assert abs(lines["owed_end"][b + tenor, 0]) <= eps  # repaid at maturity, whatever was prepaid
    assert lines["reserve"][:, 0].min() >= -eps
    assert abs(lines["reserve"][b + tenor :, 0]).max() <= eps  # released at maturity
    # what the reserve took from the equity it gave back (funded = drawn + released over the life)
    taken = lines["reserve_in"][:, 0].sum()
    assert taken == pytest.approx(
        lines["reserve_draw"][:, 0].sum() + lines["reserve_out"][:, 0].sum(), abs=eps
    )
    # principal paid + prepaid = the debt at in-service (x the debt scale)
    repaid = lines["paid_principal"][:, 0].sum() + lines["trapped"][:, 0].sum() + lines["swept"][:, 0].sum()
    assert repaid == pytest.approx(owed * lines["debt_scale"][0, 0], rel=1e-9)
    # prepaying never raises the interest paid
    assert lines["paid_interest"][:, 0].sum() <= lines["interest"][:, 0].sum() + eps


def test_every_new_input_at_zero_is_todays_result_bit_for_bit():
    rng = np.random.default_rng(40)
    for month in (False, True):
        for _ in range(20):
            case = _case(int(rng.integers(0, 2**31)), month)
            base = {k: v for k, v in case.items() if k not in WATER}
            zero = {**base, **dict.fromkeys(WATER, 0)}
            a, z = project.results(base), project.results(zero)
            for k in project.ONE_PASS:
                assert np.array_equal(a[k], z[k], equal_nan=True), k


def test_level_debt_with_a_full_sweep_is_repaid_from_the_cash_left():
    """A flat project (no ramp, no build, no tax): level debt, the whole cash after service swept.
    The balance then falls by payment - interest + (CFADS - payment) = CFADS - interest each
    period until it is gone: numpy-financial's nper at a payment of CFADS gives the periods."""
    case = dict(
        capex_per_gpu=30000.0,
        rent_usd_per_gpu_hour=2.0,
        opex_usd_per_gpu_hour=0.5,
        life_years=5,
        cost_of_capital=0.1,
        debt_fraction=0.6,
        debt_rate=0.09,
        debt_years=5,
        periods="month",
        sweep_fraction=1.0,
    )
    lines = project.period_lines(case)
    cfads = float(lines["cfads"][1, 0])
    i = 1.09 ** (1 / 12) - 1
    periods = float(npf.nper(i, -cfads, 18000.0))
    repaid = int(np.argmax(lines["owed_end"][1:, 0] <= 1e-9)) + 1
    assert repaid == int(np.ceil(periods))
    # the service: the interest on the balance left + the schedule's principal (numpy-financial's
    # ppmt: a prepayment shortens the schedule from its end), the level payment in the first period
    assert lines["paid_service"][1, 0] == pytest.approx(-float(npf.pmt(i, 60, 18000.0)), rel=1e-12)
    for k in range(2, repaid):
        owed = float(lines["owed_end"][k - 1, 0])
        want = owed * i - float(npf.ppmt(i, k, 60, 18000.0))
        assert lines["paid_service"][k, 0] == pytest.approx(want, rel=1e-9), k


def test_a_reserve_is_funded_at_in_service_and_pays_a_shortfall():
    """A 6-month reserve on the memo case (12-month build, 3-month ramp): the equity funds six
    months of scheduled service at in-service; the first ramp month's shortfall is paid from it."""
    case = {**project_cases.MEMO, "periods": "month", "dsra_months": 6}
    lines = project.period_lines(case)
    b = 12
    assert lines["reserve_in"][b, 0] == pytest.approx(lines["service"][b + 1 : b + 7, 0].sum(), rel=1e-12)
    short = lines["paid_service"][b + 1, 0] - lines["cfads"][b + 1, 0]
    assert short > 0  # the first ramp month does not cover its service
    assert lines["reserve_draw"][b + 1, 0] == pytest.approx(short, rel=1e-12)
    plain = project.period_lines(project_cases.MEMO | {"periods": "month"})
    # the equity pays the reserve at in-service and gets the shortfall back in the month
    assert lines["equity"][b, 0] == pytest.approx(
        plain["equity"][b, 0] - lines["reserve_in"][b, 0], rel=1e-12
    )
    got, before = project.results(case), project.results(project_cases.MEMO | {"periods": "month"})
    assert got["peak_funding_usd_per_gpu"][0] < before["peak_funding_usd_per_gpu"][0]  # more equity up front
    assert got["min_dscr"][0] == before["min_dscr"][0]  # the cover is CFADS / service, reserve aside


def test_a_lockup_traps_the_cash_of_a_period_below_its_cover():
    case = {**project_cases.MEMO, "periods": "month", "lockup_dscr": 3.0}
    lines = project.period_lines(case)
    dscr = lines["dscr"][:, 0]
    low = (
        (dscr < 3.0) & (lines["free_cash"][:, 0] > 0) & (lines["owed"][:, 0] > lines["paid_principal"][:, 0])
    )
    assert low.any()
    assert np.all(lines["trapped"][low, 0] > 0)
    assert np.all(lines["trapped"][dscr >= 3.0, 0] == 0)
    assert lines["swept"][:, 0].sum() == 0  # no sweep asked


def test_the_fee_is_paid_by_the_equity_at_the_draw():
    base = {**project_cases.MEMO, "periods": "month"}
    a = project.period_lines(base)
    f = project.period_lines({**base, "debt_upfront_fee_fraction": 0.02})
    assert f["equity"][0, 0] == pytest.approx(a["equity"][0, 0] - 0.02 * 0.6 * 31250.0, rel=1e-12)
    assert np.array_equal(f["equity"][1:, 0], a["equity"][1:, 0])
    eq = project.results({**base, "debt_upfront_fee_fraction": 0.02}, ("equity_npv_usd_per_gpu",))
    before = project.results(base, ("equity_npv_usd_per_gpu",))
    assert eq["equity_npv_usd_per_gpu"][0] == pytest.approx(
        before["equity_npv_usd_per_gpu"][0] - 375.0, rel=1e-12
    )


@pytest.mark.parametrize(
    ("term", "value", "said"),
    [
        ("sweep_fraction", 1.5, "[0, 1]"),
        ("debt_upfront_fee_fraction", 1.0, "[0, 1)"),
        ("lockup_dscr", -0.5, "[0, inf)"),
        ("dsra_months", 2.5, "whole number"),
    ],
)
def test_bad_values_are_named_with_their_range(term, value, said):
    with pytest.raises(InputRangeError) as e:
        project.results({**project_cases.MEMO, term: value}, ("min_dscr",))
    assert term in str(e.value) and said in str(e.value)


def test_a_reserve_of_part_of_a_year_is_refused_by_year():
    with pytest.raises(InputRangeError) as e:
        project.results({**project_cases.MEMO, "dsra_months": 6}, ("min_dscr",))
    assert "dsra_months" in str(e.value) and "multiple of 12" in str(e.value)


def test_the_functions_take_the_waterfall_after_every_existing_argument():
    args = {**project_cases.MEMO, "periods": "month"}
    required = [args.pop(k) for k in project._REQUIRED]
    water = dict(dsra_months=6, sweep_fraction=0.5, lockup_dscr=1.2, debt_upfront_fee_fraction=0.01)
    got = project.tco_equity_irr(*required, **args, **water)
    want = project.results({**project_cases.MEMO, "periods": "month", **water}, ("equity_irr",))[
        "equity_irr"
    ][0]
    assert got == pytest.approx(want, rel=1e-12)
    names = list(project.OPTIONAL_ARGS)
    # only issue 41's floating debt, added later, comes after
    assert names[-len(WATER) - len(project.FLOATING_TERMS) :] == [*WATER, *project.FLOATING_TERMS]


def test_batch_and_the_scenario_evaluator_take_the_waterfall(tmp_path):
    water = {
        "dsra_months": [6, 0, 3],
        "sweep_fraction": [0.5, 0.0, 1.0],
        "lockup_dscr": [0.0, 2.5, 1.5],
        "debt_upfront_fee_fraction": [0.0, 0.01, 0.02],
    }
    spec = project_cases.financed_spec(3, build_months=[6] * 3, ramp_months=[3] * 3, **water)
    keys = ("equity_irr", "min_dscr", "llcr", "equity_npv_usd_per_gpu", "peak_funding_usd_per_gpu")
    out, _ = project_cases.scenario_equals_project(spec, 3, keys)
    assert len({round(float(x), 6) for x in out["equity_irr"]}) == 3  # each waterfall its own
    project_cases.assert_batch_is_scenario(tmp_path, spec, 3, out, keys)
    said = project_cases.batch_refusal(
        tmp_path, "system,mfu,rent_usd_per_gpu_hour,debt_fraction,sweep_fraction\nH100_HGX,0.5,2,0.6,1.5\n"
    )
    assert "row 2, column E (sweep_fraction): sweep_fraction must be in [0, 1], got 1.5" in said


FINANCE_LINES = ("paid_service", "reserve", "trapped", "swept", "owed_end", "equity", "dscr")
FINANCE_RESULTS = ("min_dscr", "avg_dscr", "llcr", "equity_irr", "max_ltv", "peak_funding_usd_per_gpu")


def _finance_inputs(month: bool) -> dict[str, object]:
    out: dict[str, object] = {
        "inp_periods": "month" if month else "year",
        "inp_debt_fraction": 0.6,
        "inp_debt_rate": 0.09,
        "inp_debt_years": 3,
        "inp_tax_rate": 0.21,
        "inp_debt_repayment": "sculpted" if month else "level",
        "inp_dsra_months": 6 if month else 12,
        "inp_sweep_fraction": 0.5,
        "inp_lockup_dscr": 1.4,
        "inp_debt_upfront_fee_fraction": 0.015,
    }
    rng = np.random.default_rng(41 if month else 42)
    for k in range(1, len(project_cases.SYSTEMS) + 1):
        out[f"inp_rent_usd_per_gpu_hour_{k}"] = round(float(rng.uniform(1.5, 4.0)), 4)
        out[f"inp_build_months_{k}"] = int(rng.integers(0, 7)) if month else 12 * int(rng.integers(0, 2))
        out[f"inp_ramp_months_{k}"] = int(rng.integers(0, 7))
    return out


def _check_finance(path) -> None:
    for column in project_cases.finance_book_columns(path, FINANCE_LINES):
        k, cell, lines, terms, py = column.k, column.cell, column.lines, column.given, column.py
        assert cell["project_inputs_check"] in ("", None)
        n = py["net"].shape[0]
        for key in FINANCE_LINES:
            got = [np.nan if v in ("", None) else v for v in lines[key][:n]]
            want = py[key][:, 0]
            assert np.allclose(np.array(got, float), want, rtol=1e-9, atol=1e-6, equal_nan=True), (k, key)
        project_cases.assert_cells_are_results(cell, terms, FINANCE_RESULTS, k)


@pytest.mark.parametrize("month", [False, True])
def test_the_finance_workbook_in_the_engine_equals_python(tmp_path, month):
    _check_finance(
        project_cases.recalculated_finance_book(tmp_path, _finance_inputs(month), "engine", "water")
    )


@requires_soffice
def test_the_finance_workbook_in_libreoffice_equals_python(tmp_path):
    _check_finance(project_cases.recalculated_finance_book(tmp_path, _finance_inputs(True), "lo", "water"))


def test_the_cash_flow_table_shows_the_waterfall_and_adds_up():
    """TCO_PROJECT_CASHFLOWS: equity = net + debt drawn + debt service + interest tax shield + fee
    + reserve flow + prepaid (columns signed as cash), the shield = tax rate x interest paid."""
    case = {**project_cases.MEMO, "periods": "month"}
    water = dict(dsra_months=6, sweep_fraction=0.5, lockup_dscr=1.3, debt_upfront_fee_fraction=0.01)
    given_ = dict(case)
    required = [given_.pop(k) for k in project._REQUIRED]
    rows = project.tco_project_cashflows(*required, **given_, **water)
    cols = {k: np.array([r[j] for r in rows[1:]]) for j, k in enumerate(rows[0])}
    assert list(rows[0][-3:]) == ["debt_fee", "reserve_flow", "prepaid"]
    parts = (
        "net",
        "debt_drawn",
        "debt_service",
        "interest_tax_shield",
        "debt_fee",
        "reserve_flow",
        "prepaid",
    )
    assert np.allclose(sum(cols[k] for k in parts), cols["equity"], rtol=0, atol=1e-9)
    lines = project.period_lines({**case, **water})
    assert np.allclose(cols["interest_tax_shield"], 0.21 * lines["paid_interest"][:, 0], rtol=0, atol=1e-9)
    assert np.allclose(cols["prepaid"], -(lines["trapped"][:, 0] + lines["swept"][:, 0]), rtol=0, atol=1e-9)
    assert cols["debt_fee"][0] == pytest.approx(-0.01 * 0.6 * 31250.0, rel=1e-12)
    assert abs(cols["reserve_flow"].sum()) < 1e-9  # what the reserve takes it gives back


def test_many_rows_of_mixed_waterfalls_at_once_are_each_row_alone():
    """Rows with and without a reserve, sweep or lock-up in one call (the compiled path picks its
    work by the rows' mix) give each row's own results."""
    keys = ("equity_irr", "min_dscr", "avg_dscr", "llcr", "max_ltv", "peak_funding_usd_per_gpu")
    for month in (False, True):
        cases = [_case(seed, month) for seed in range(24)]
        for j, c in enumerate(cases):  # some rows without a waterfall, some with a part of it
            if j % 4 == 0:
                c.update(dict.fromkeys(WATER, 0.0))
            elif j % 4 == 1:
                c.update(sweep_fraction=0.0, lockup_dscr=0.0)
        names = sorted({k for c in cases for k in c})

        def filled(c: dict, k: str):
            if k in c:
                return c[k]
            return project.CHOICES[k] if k in project.CHOICES else project.terms(c)[k][0]

        together = project.results({k: [filled(c, k) for c in cases] for k in names}, keys)
        for j, c in enumerate(cases):
            alone = project.results(c, keys)
            for k in keys:
                assert together[k][j] == pytest.approx(alone[k][0], rel=1e-12, nan_ok=True), (month, j, k)


def test_the_waterfall_kernel_is_the_same_bits_interpreted_and_compiled(monkeypatch):
    """udfs/_projectkernels.waterfall_rows runs as Python for small calls and compiled by numba for
    batch-sized ones (udfs/_jit.py): the same results to the last bit either way."""
    keys = ("equity_irr", "equity_npv_usd_per_gpu", "min_dscr", "avg_dscr", "llcr", "max_ltv")
    cases = [_case(seed, month=True) for seed in range(12)]
    names = sorted({k for c in cases for k in c})
    values = {
        k: [
            c[k] if k in c else project.CHOICES[k] if k in project.CHOICES else project.terms(c)[k][0]
            for c in cases
        ]
        for k in names
    }
    got = {}
    for how in ("python", "compiled"):
        monkeypatch.setenv("GPUTCO_KERNELS", how)
        got[how] = project.results(values, keys)
    for k in keys:
        assert np.array_equal(got["python"][k], got["compiled"][k], equal_nan=True), k
