"""Floating debt (issue 41, docs/project.md "Floating debt"): ``debt_rate_basis`` floating makes the
rate of each period (1 + base + spread)^(1/ppy) - 1, base = ``base_rate_curve``'s rate of the
period's year of operation (t0 in the build; past the last the last holds), ``debt_spread`` >= 0.

Oracles: fixed debt at b + s (today's code path, the level annuity in closed form) for a flat base b
(1e-12 on NPV, IRRs, DSCRs, LLCR, PLCR, LTV: level, straight and sculpted, dscr sizing, by year and
month, interpreted and compiled kernels); for a varying base a loop written here from the
definition (interest = balance x the period's rate; level: the annuity of the balance left over the
repayment periods left at the period's rate; straight: equal principal; sculpted and LLCR/PLCR:
CFADS discounted at the compounded period rates); the defaults change no bit; bad input names the
argument, the value and the rule; the finance workbook recalculated by gputco's engine and by
LibreOffice (live) equals Python (1e-9).
"""

from __future__ import annotations

import numpy as np
import project_cases
import pytest
from lo import requires_soffice
from test_market_curves import _drawn as market_drawn

from gputco.udfs import curves, project
from gputco.udfs.errors import InputRangeError, MissingValueError, UnknownNameError

#: the results compared: the project's NPV and IRR, the financed ones (the equity's, the lender's,
#: the debt drawn) and the loan-to-value ones a floating rate moves
KEYS = (project.PROJECT_NPV, project.PROJECT_IRR, *project.FINANCED, "max_ltv", "ltv_at_maturity")
SHAPES = ("level", "straight", "sculpted")


def _drawn(n: int, seed: int) -> dict:
    """``n`` projects (tests/test_market_curves.py's draws: build, ramp, contracts, tax, by year and
    month) with debt on every row, a repayment shape each and some grace."""
    v = market_drawn(n, seed)
    rng = np.random.default_rng(seed + 4100)
    v["debt_fraction"] = rng.uniform(0.3, 0.8, n)
    v["debt_repayment"] = np.array(SHAPES, dtype=object)[np.arange(n) % 3]
    ppy = np.where(v["periods"] == "month", 12, 1)
    tenor = v["debt_years"] * ppy
    v["debt_grace_months"] = np.where(rng.random(n) < 0.3, np.minimum(tenor - 1, 1) * 12 / ppy, 0.0)
    return v


def _close(a, b, rel=1e-12, where=""):
    a, b = np.asarray(a, float), np.asarray(b, float)
    assert np.array_equal(np.isnan(a), np.isnan(b)), where
    ok = ~np.isnan(a)
    assert np.allclose(a[ok], b[ok], rtol=rel, atol=1e-9), (where, np.max(np.abs(a[ok] - b[ok])))


@pytest.mark.parametrize("how", ["python", "compiled"])
@pytest.mark.parametrize("seed", [1, 2])
def test_a_flat_base_plus_spread_is_fixed_debt_at_their_sum(monkeypatch, how, seed):
    monkeypatch.setenv("GPUTCO_KERNELS", how)
    v = _drawn(60, seed)
    rng = np.random.default_rng(seed)
    base, spread = rng.uniform(0.0, 0.06, 60), rng.uniform(0.0, 0.13, 60)
    fixed = project.results({**v, "debt_rate": base + spread}, KEYS)
    floating = project.results(
        {
            **v,
            "debt_rate": v["cost_of_capital"],
            "debt_rate_basis": "floating",
            "base_rate_curve": np.array([f"{float(b)!r}, {float(b)!r}" for b in base], dtype=object),
            "debt_spread": spread,
        },
        KEYS,
    )
    for k in KEYS:
        _close(floating[k], fixed[k], where=k)
    assert set(v["periods"]) == {"year", "month"} and set(v["debt_repayment"]) == set(SHAPES)


@pytest.mark.parametrize("periods", ["year", "month"])
def test_dscr_sizing_and_a_waterfall_float_as_fixed_debt_at_the_sum(periods):
    v = {
        "capex_per_gpu": 31250.0,
        "rent_usd_per_gpu_hour": 2.2,
        "opex_usd_per_gpu_hour": 0.4045,
        "life_years": 5.0,
        "cost_of_capital": 0.1,
        "debt_fraction": 0.7,
        "debt_years": 4.0,
        "tax_rate": 0.21,
        "build_months": 12.0,
        "periods": periods,
    }
    cases = (
        {"debt_repayment": "sculpted", "debt_sizing": "dscr", "target_dscr": 1.4},
        {"debt_repayment": "level", "dsra_months": 12.0, "sweep_fraction": 0.5, "lockup_dscr": 1.2},
        {"debt_repayment": "straight", "debt_grace_months": 12.0, "dsra_months": 12.0},
    )
    for extra in cases:
        fixed = project.results({**v, **extra, "debt_rate": 0.0365 + 0.045}, KEYS)
        floating = project.results(
            {
                **v,
                **extra,
                "debt_rate_basis": "floating",
                "base_rate_curve": "sofr_2026",
                "debt_spread": 0.045,
            },
            KEYS,
        )
        for k in KEYS:
            _close(floating[k], fixed[k], where=(extra, k))


def _by_hand(row: dict) -> dict:
    """The debt of one project from the definition (docs/project.md "Floating debt"), a loop over
    its periods, and the results on it; the CFADS and the project's net from the period lines (no
    debt reaches them)."""
    lines = project.period_lines(row)
    cfads, net = lines["cfads"][:, 0], lines["net"][:, 0]
    ppy = 12 if row["periods"] == "month" else 1
    b, life = round(row["build_months"] * ppy / 12), round(row["life_years"] * ppy)
    tenor, grace = round(row["debt_years"] * ppy), round(row.get("debt_grace_months", 0.0) * ppy / 12)
    base = curves.parse("base_rate_curve", row["base_rate_curve"])
    shape = row["debt_repayment"]

    def rate(p: int) -> float:  # period p's rate: the year of operation of p (t0 in the build)
        k = p - b
        year = (k - 1) // ppy if k >= 1 else 0
        return (1 + base[min(year, len(base) - 1)] + row["debt_spread"]) ** (1 / ppy) - 1

    periods = b + life + 1
    drawn = row["debt_fraction"] * row["capex_per_gpu"]
    owed = drawn
    for p in range(1, b + 1):
        owed *= 1 + rate(p)
    at_service, repay = owed, tenor - grace
    counted = [grace < k <= tenor and cfads[b + k] > 0 for k in range(tenor + 1)]
    pv, d = 0.0, 1.0
    for k in range(1, tenor + 1):
        if counted[k]:
            d /= 1 + rate(b + k)
            pv += cfads[b + k] * d
    cover = pv / at_service
    service, interest = np.zeros(periods), np.zeros(periods)
    for k in range(1, tenor + 1):
        p = b + k
        r = rate(p)
        due = owed * r
        if k <= grace:
            principal = 0.0
        elif shape == "level":
            left = repay - (k - 1 - grace)
            principal = owed * r / (1 - (1 + r) ** -left) - due
        elif shape == "straight":
            principal = at_service / repay
        else:
            principal = cfads[p] / cover - due if counted[k] else 0.0
        service[p], interest[p] = due + principal, due
        owed -= principal
        if shape == "sculpted" and k == max(np.flatnonzero(counted), default=-1):
            owed = 0.0  # repaid at its last counted period (no rounding's dust left to bear interest)
    assert abs(owed) < 1e-6 * drawn  # repaid at maturity
    equity = net - service + row["tax_rate"] * interest
    equity[0] += drawn
    discount = np.cumprod([1.0] + [1 / (1 + rate(p)) for p in range(1, periods)])
    paying = service > 0
    t = np.arange(periods) / ppy
    return {
        "equity_npv_usd_per_gpu": float(np.sum(equity * (1 + row["cost_of_capital"]) ** -t)),
        "min_dscr": float(np.min(cfads[paying] / service[paying])),
        "avg_dscr": float(np.mean(cfads[paying] / service[paying])),
        "llcr": float(np.sum(np.where(paying, cfads, 0.0) * discount) / drawn),
        "plcr": float(np.sum(cfads * discount) / drawn),
        "service": service,
    }


@pytest.mark.parametrize("seed", [11, 12])
def test_a_varying_base_is_the_definitions_loop(monkeypatch, seed):
    v = _drawn(18, seed)
    rng = np.random.default_rng(seed)
    v["debt_rate"] = v["cost_of_capital"]
    v["debt_rate_basis"] = "floating"
    v["base_rate_curve"] = np.array(
        [curves.text(tuple(np.round(rng.uniform(0.0, 0.08, rng.integers(2, 6)), 4))) for _ in range(18)],
        dtype=object,
    )
    v["debt_spread"] = rng.uniform(0.0, 0.13, 18)
    v["tax_rate"] = np.full(18, 0.21)
    keys = ("equity_npv_usd_per_gpu", "min_dscr", "avg_dscr", "llcr", "plcr")
    got = {}
    for how in ("python", "compiled"):
        monkeypatch.setenv("GPUTCO_KERNELS", how)
        got[how] = project.results(v, keys)
    lines = project.period_lines(v)
    varied = 0
    for j in range(18):
        row = {k: (x[j] if isinstance(x, np.ndarray) else x) for k, x in v.items()}
        row = {k: (x if isinstance(x, str) else float(x)) for k, x in row.items()}
        hand = _by_hand(row)
        for how in got:
            for k in keys:
                assert got[how][k][j] == pytest.approx(hand[k], rel=1e-9), (how, j, k)
        n = hand["service"].size
        assert lines["paid_service"][:n, j] == pytest.approx(hand["service"], rel=1e-9, abs=1e-9), j
        varied += len(set(curves.parse("base_rate_curve", row["base_rate_curve"]))) > 1
    assert varied >= 12 and set(v["debt_repayment"]) == set(SHAPES)


def test_the_defaults_change_no_bit():
    v = _drawn(45, 21)
    v["tax_losses"] = np.where(np.arange(45) % 2 == 0, "carry_forward", "refund").astype(object)
    keys = project.ONE_PASS
    want = project.results(v, keys)
    got = project.results({**v, "debt_rate_basis": "fixed", "base_rate_curve": "", "debt_spread": 0.0}, keys)
    for k in keys:
        assert np.array_equal(got[k], want[k], equal_nan=True), k
    a = project.period_lines(v)
    b = project.period_lines({**v, "debt_rate_basis": "fixed", "debt_spread": 0.0})
    for k in ("interest", "service", "closing", "equity", "cfads_loan_pv", "cfads_life_pv"):
        assert np.array_equal(a[k], b[k], equal_nan=True), k


def _one() -> dict:
    return {k: (x[0] if k == "periods" else float(x[0])) for k, x in market_drawn(1, 31).items()}


@pytest.mark.parametrize(
    "extra, error, said",
    [
        (
            {"debt_rate_basis": "floating"},
            MissingValueError,
            "base_rate_curve is required: debt_rate_basis floating",
        ),
        (
            {"debt_rate_basis": "floating", "base_rate_curve": "sofr_2026", "debt_rate": 0.081},
            InputRangeError,
            "debt_rate must be a value left at its default, the cost_of_capital",
        ),
        ({"debt_spread": 0.045}, InputRangeError, "debt_spread must be a 0 with debt_rate_basis fixed"),
        (
            {"base_rate_curve": "0.04"},
            InputRangeError,
            "base_rate_curve must be a blank with debt_rate_basis fixed",
        ),
        (
            {"debt_rate_basis": "floating", "base_rate_curve": "sofr_2026", "debt_spread": -0.01},
            InputRangeError,
            r"debt_spread must be in [0, 1], got -0.01",
        ),
        (
            {"debt_rate_basis": "floating", "base_rate_curve": "0.04, 1.5"},
            InputRangeError,
            "base_rate_curve factor t1 must be in [0, 1], got 1.5",
        ),
        ({"debt_rate_basis": "float"}, UnknownNameError, "debt_rate_basis"),
        ({"debt_rate_basis": "floating", "base_rate_curve": "sofr_2099"}, UnknownNameError, "sofr_2099"),
    ],
)
def test_bad_input_is_named_with_its_rule(extra, error, said):
    v = {**_one(), "debt_rate": None, **extra}
    with pytest.raises(error) as e:
        project.results(v)
    assert said in str(e.value), str(e.value)


def test_the_tco_functions_take_it_last():
    from gputco import udfs

    names = list(project.OPTIONAL_ARGS)
    assert names[-3:] == list(project.FLOATING_TERMS)
    v = _one()
    v.pop("debt_rate")
    f = {"debt_rate_basis": "floating", "base_rate_curve": "0.043, 0.039", "debt_spread": 0.0225}
    want = project.results({**v, **f}, ("equity_irr", "min_dscr"))
    req = [v[k] for k in project._REQUIRED]
    args = {k: x for k, x in v.items() if k not in project._REQUIRED}
    assert udfs.tco_equity_irr(*req, **args, **f) == pytest.approx(want["equity_irr"][0], rel=1e-12)
    positional = [{**args, **f}.get(k, d) for k, d in project.OPTIONAL_ARGS.items()]
    assert udfs.tco_min_dscr(*req, *positional) == pytest.approx(want["min_dscr"][0], rel=1e-12)


def test_the_scenario_evaluator_and_batch_take_it(tmp_path):
    spec = project_cases.financed_spec(
        3,
        tax_rate=0.21,
        debt_rate_basis=["fixed", "floating", "floating"],
        base_rate_curve=["", "sofr_2026", "0.05, 0.03"],
        debt_spread=[0.0, 0.0225, 0.045],
    )
    out, _ = project_cases.scenario_equals_project(spec, 3, ("equity_npv_usd_per_gpu", "min_dscr"))
    project_cases.assert_batch_is_scenario(tmp_path, spec, 3, out, ("equity_npv_usd_per_gpu",))
    said = project_cases.batch_refusal(
        tmp_path,
        "system,mfu,rent_usd_per_gpu_hour,debt_fraction,debt_rate_basis,base_rate_curve,debt_spread\n"
        "H100_HGX,0.5,2,0.6,floating,sofr_2026,0.02\nH100_HGX,0.5,2,0.6,floating,sofr_2026,-0.5\n",
    )
    assert "row 3, column G (debt_spread)" in said and "[0, 1]" in said, said


# --- the finance workbook: gputco's engine and LibreOffice equal Python ---------------------------

LINES = ("period_rate", "interest", "paid_service", "owed_end", "equity", "cfads_loan_pv")


def _book(seed: int) -> dict[str, object]:
    """One drawn finance workbook (by month for an odd seed) with floating debt: a drawn base-rate
    curve (or the SOFR preset), spread and repayment shape."""
    rng = np.random.default_rng(seed)
    book = project_cases.drawn_finance_book(seed, lambda rng, k: {})
    del book["inp_debt_rate"]  # floating: the debt rate stays at its default
    curve = curves.text(tuple(np.round(rng.uniform(0.0, 0.07, 3), 4)))
    book.update(
        inp_debt_rate_basis="floating",
        inp_base_rate_curve="sofr_2026_falling" if seed % 3 == 0 else curve,
        inp_debt_spread=round(float(rng.uniform(0.0, 0.13)), 4),
        inp_debt_repayment=SHAPES[seed % 3],
    )
    return book


BOOKS = {f"floating_{seed}": _book(seed) for seed in (415, 416, 417)}


def _check(path, name: str) -> None:
    keys = ("equity_npv_usd_per_gpu", "equity_irr", "min_dscr", "llcr", "plcr", "max_ltv")
    for column in project_cases.finance_book_columns(path, LINES):
        given = column.given
        assert (
            given["debt_rate_basis"] == "floating"
            and given["base_rate_curve"] == BOOKS[name]["inp_base_rate_curve"]
        )
        project_cases.assert_lines_are_python(column, LINES)
        project_cases.assert_cells_are_results(column.cell, given, keys, column.k)


(
    test_the_finance_workbook_in_the_engine_equals_python,
    test_the_finance_workbook_in_libreoffice_equals_python,
) = project_cases.finance_book_tests(BOOKS, _check, ["floating_415"])


# --- the scenario workbooks: the rows' cells equal scenario.evaluate -------------------------------

#: a SPEC of floating rows: the SOFR preset and a typed path, two spreads, every repayment shape
SPEC = {
    "grid": {
        "base_rate_curve": ["sofr_2026_falling", "0.05, 0.03, 0.06"],
        "debt_spread": [0.0225, 0.13],
        "debt_repayment": list(SHAPES),
    },
    "fixed": {
        "system": "H100_HGX",
        "mfu": 0.5,
        "rent_usd_per_gpu_hour": 2.4,
        "periods": "month",
        "build_months": 6,
        "debt_fraction": 0.6,
        "debt_years": 4,
        "debt_grace_months": 6,
        "tax_rate": 0.21,
        "debt_rate_basis": "floating",
    },
}
ROW_RESULTS = ("equity_npv_usd_per_gpu", "equity_irr", "min_dscr", "avg_dscr", "llcr", "plcr", "max_ltv")


def _rows_equal_python(path, spec) -> None:
    from scenario_book import block, load

    keys, data, _ = block(load(path)["Scenarios"], "scenario")
    assert len(data) == 12
    for key in ROW_RESULTS:
        got = [r[keys.index(key)] for r in data]
        assert got == pytest.approx(list(spec.results[key]), rel=1e-9, abs=1e-9), key


def test_the_scenario_rows_in_the_engine_equal_python(tmp_path):
    from gputco.workbook.scenarios.build import write_scenarios
    from gputco.workbook.scenarios.spec import parse_spec

    spec = parse_spec(SPEC)
    _rows_equal_python(write_scenarios(spec, tmp_path / "s.xlsx").path, spec)


@requires_soffice
def test_the_scenario_rows_in_libreoffice_equal_python(tmp_path):
    import lo

    from gputco.workbook.scenarios.build import write_scenarios
    from gputco.workbook.scenarios.spec import parse_spec

    spec = parse_spec(SPEC)
    path = write_scenarios(spec, tmp_path / "s.xlsx").path
    _rows_equal_python(lo.recalculate(path, tmp_path / "lo"), spec)
