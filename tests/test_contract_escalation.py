"""Contract escalation (issue 41, docs/project.md): ``contract_escalation_per_year`` e makes the
contract rent of year y of operation contract rent x (1 + e)^y, y the whole years since in-service
(the year the rent decline and the opex escalation count); default 0, in (-1, 1].

Oracles: the revenue by period from a loop written here from the definition (hours x availability
x (market rent x utilisation x ramp x (1 - decline)^y on the GPUs not under contract + contract
rent x (1 + e)^y on those under it), the contract's share of a period the part within its term:
contracts ending mid-year, by year and by month), held against the Python period lines and the
kernel's lines (interpreted and compiled); the NPV and equity NPV moved by the loop's extra
revenue after tax, discounted (tax refunded, level debt: the debt service does not move); e = 0
gives today's results bit for bit; the finance workbook recalculated by gputco's engine and by
LibreOffice (live) equals Python (1e-9).
"""

from __future__ import annotations

import math

import numpy as np
import project_cases
import pytest
from test_market_curves import _drawn as market_drawn

from gputco.udfs import project
from gputco.udfs.errors import InputRangeError

KEY = "contract_escalation_per_year"
RESULTS = (
    "project_npv_usd_per_gpu",
    "equity_npv_usd_per_gpu",
    "project_irr",
    "equity_irr",
    "min_dscr",
    "project_payback_years",
)


def _drawn(n: int, seed: int) -> dict[str, np.ndarray]:
    """``n`` projects by year and by month (tests/test_market_curves.py's: build, ramp, decline, tax,
    debt) with a contract ending mid-year (whole years plus a fraction: by month also inside a
    month, 0.55 year = 6.6 months) at its own rent, and escalations drawn in (-0.3, 0.3)."""
    v = market_drawn(n, seed)
    rng = np.random.default_rng(seed + 1000)
    term = rng.integers(1, 5, n) + rng.choice([0.25, 0.5, 0.55, 0.8], n)
    v.update(
        contracted_fraction=rng.uniform(0.2, 1.0, n),
        contract_rent_usd_per_gpu_hour=rng.uniform(1.0, 3.5, n),
        contract_years=np.minimum(v["life_years"] - 0.25, term),
        **{KEY: rng.uniform(-0.3, 0.3, n)},
    )
    return v


def _revenue_by_hand(v: dict[str, float]) -> list[float]:
    """The revenue of periods 0..build + life of one project, from the definition, period by period."""
    ppy = 12 if v["periods"] == "month" else 1
    per = 12 // ppy
    b = round(v["build_months"] * ppy / 12)
    life = round(v["life_years"] * ppy)
    out = [0.0] * (b + 1)
    for k in range(1, life + 1):
        y = math.ceil(k / ppy) - 1
        ramp = (
            sum(min(1.0, (m - 0.5) / v["ramp_months"]) for m in range((k - 1) * per + 1, k * per + 1)) / per
            if v["ramp_months"] > 0
            else 1.0
        )
        under = v["contracted_fraction"] * max(0.0, min(1.0, v["contract_years"] * ppy - (k - 1)))
        market = v["rent_usd_per_gpu_hour"] * v["utilisation"] * ramp * (1 - v["rent_decline_per_year"]) ** y
        contract = v["contract_rent_usd_per_gpu_hour"] * (1 + v[KEY]) ** y
        out.append(8760 / ppy * v["availability"] * (market * (1 - under) + contract * under))
    return out


def _row(v: dict[str, np.ndarray], j: int) -> dict[str, object]:
    return {k: (x if isinstance(x, str) else x[j] if k == "periods" else float(x[j])) for k, x in v.items()}


@pytest.mark.parametrize("seed", [41, 42])
def test_the_revenue_is_the_definitions_loop_on_every_path(monkeypatch, seed):
    v = _drawn(12, seed)
    lines = project.period_lines(v)["revenue"]
    kernels = {}
    for how in ("python", "compiled"):
        monkeypatch.setenv("GPUTCO_KERNELS", how)
        # a project at a time: the table's lines are one build's (rows that share a build)
        kernels[how] = [
            project.project_flows(project.terms({k: x[j : j + 1] for k, x in v.items()}), table=True)[
                "lines"
            ]["revenue"][:, 0]
            for j in range(12)
        ]
    mid_year = 0
    for j in range(12):
        want = np.array(_revenue_by_hand(_row(v, j)))
        n = want.size
        assert lines[:n, j] == pytest.approx(want, rel=1e-12, abs=1e-9), j
        assert np.all(lines[n:, j] == 0)
        for how, got in kernels.items():
            assert got[j] == pytest.approx(want, rel=1e-12, abs=1e-9), (how, j)
        mid_year += v["contract_years"][j] % 1 != 0
    assert mid_year == 12 and len(set(v["periods"])) == 2  # contracts end inside a year, by year and month
    # the escalation moves the revenue: it is not the flat contract rent's
    flat = project.period_lines({**v, KEY: 0.0})["revenue"]
    assert not np.allclose(flat, lines, rtol=1e-6)


@pytest.mark.parametrize("seed", [51, 52])
def test_the_npvs_move_by_the_extra_revenue_after_tax(monkeypatch, seed):
    """Tax refunded and level debt: the escalation adds its revenue x (1 - tax rate) to the project
    and equity flows, and nothing else (the level payment does not move)."""
    v = _drawn(20, seed)
    v["debt_repayment"] = "level"
    for how in ("python", "compiled"):
        monkeypatch.setenv("GPUTCO_KERNELS", how)
        got = project.results(v, RESULTS)
        flat = project.results({**v, KEY: 0.0}, RESULTS)
        for j in range(20):
            row = _row(v, j)
            extra = np.array(_revenue_by_hand(row)) - np.array(_revenue_by_hand({**row, KEY: 0.0}))
            after = extra * (1 - row["tax_rate"])
            p = np.arange(extra.size) / (12 if row["periods"] == "month" else 1)
            moved = float(np.sum(after * (1 + row["cost_of_capital"]) ** -p))  # = the cost of equity here
            for key in ("project_npv_usd_per_gpu", "equity_npv_usd_per_gpu"):
                assert got[key][j] - flat[key][j] == pytest.approx(moved, rel=1e-9, abs=1e-6), (how, j, key)


def test_zero_escalation_changes_no_bit():
    for seed in (61, 62):
        v = _drawn(40, seed)
        v["debt_repayment"] = np.where(np.arange(40) % 3 == 0, "sculpted", "level").astype(object)
        v["tax_losses"] = np.where(np.arange(40) % 2 == 0, "carry_forward", "refund").astype(object)
        keys = (*project.ONE_PASS,)
        got = project.results({**v, KEY: 0.0}, keys)
        want = project.results({k: x for k, x in v.items() if k != KEY}, keys)
        for k in keys:
            assert np.array_equal(got[k], want[k], equal_nan=True), k
        a = project.period_lines({**v, KEY: 0.0})
        b = project.period_lines({k: x for k, x in v.items() if k != KEY})
        for k in ("revenue", "net", "equity", "cfads"):
            assert np.array_equal(a[k], b[k], equal_nan=True), k


@pytest.mark.parametrize("value", [-1.0, -1.5, 1.01, float("nan")])
def test_a_bad_value_is_named_with_its_range(value):
    v = {k: x[:1] for k, x in _drawn(1, 71).items()}
    with pytest.raises(InputRangeError) as e:
        project.results({**v, KEY: value})
    text = str(e.value)
    assert KEY in text and "(-1, 1]" in text, text


def test_the_tco_functions_take_it_after_the_earlier_arguments():
    from gputco import udfs

    # after every argument before it (issue 40's waterfall, then floating debt came after it)
    names = list(project.OPTIONAL_ARGS)
    assert names[names.index(KEY) + 1 :] == [*project.WATERFALL_TERMS, *project.FLOATING_TERMS]
    v = {k: x[:1] for k, x in _drawn(1, 72).items()}
    want = project.results(v, ("project_npv_usd_per_gpu", "min_dscr"))
    args = {k: (x[0] if k == "periods" else float(x[0])) for k, x in v.items() if k not in project._REQUIRED}
    req = [float(v[k][0]) for k in project._REQUIRED]
    assert udfs.tco_project_npv(*req, **args) == pytest.approx(want["project_npv_usd_per_gpu"][0], rel=1e-12)
    positional = [args.get(k, d) for k, d in project.OPTIONAL_ARGS.items()]
    assert udfs.tco_min_dscr(*req, *positional) == pytest.approx(want["min_dscr"][0], rel=1e-12)
    table = udfs.tco_project_cashflows(*req, **args)
    revenue = [r[table[0].index("revenue")] for r in table[1:]]
    assert revenue == pytest.approx(_revenue_by_hand(_row(v, 0)), rel=1e-12, abs=1e-9)


def test_the_scenario_evaluator_batch_and_the_tornado_take_it(tmp_path):
    from gputco.workbook.scenarios.spec import parse_spec

    spec = project_cases.financed_spec(
        3,
        contracted_fraction=[0.7, 0.7, 0.7],
        contract_rent_usd_per_gpu_hour=[1.8, 1.8, 1.8],
        contract_years=[2.5, 2.5, 2.5],
        tax_rate=0.21,
        **{KEY: [0.0, 0.04, -0.05]},
    )
    out, columns = project_cases.scenario_equals_project(spec, 3, ("project_npv_usd_per_gpu",))
    assert [terms[KEY] for terms in columns] == spec[KEY]
    assert (
        out["project_npv_usd_per_gpu"][2]
        < out["project_npv_usd_per_gpu"][0]
        < out["project_npv_usd_per_gpu"][1]
    )
    project_cases.assert_batch_is_scenario(tmp_path, spec, 3, out, ("project_npv_usd_per_gpu", "min_dscr"))
    said = project_cases.batch_refusal(
        tmp_path, f"system,mfu,rent_usd_per_gpu_hour,{KEY}\nH100_HGX,0.5,2,0.02\nH100_HGX,0.5,2,-1\n"
    )
    assert f"row 3, column D ({KEY})" in said and "(-1, 1]" in said, said
    # as a tornado driver it moves as its multiplier 1 + x: a base of 0 at swing 0.2 gives +-0.2
    parsed = parse_spec(
        {
            "grid": {"mfu": [0.5]},
            "base": {"system": "H100_HGX", "rent_usd_per_gpu_hour": 2.0, "contracted_fraction": 0.5},
            "sensitivity": {"inputs": [KEY], "swing": 0.2},
        }
    )
    cases = {d: (lo, hi) for d, _b, lo, hi in parsed.sensitivity_cases()}
    assert cases[KEY] == pytest.approx((-0.2, 0.2), abs=1e-15)


# --- the finance workbook: gputco's engine and LibreOffice equal Python ---------------------------

LINES = ("contract", "revenue", "net", "equity", "cfads")


def _book(seed: int) -> dict[str, object]:
    """One drawn finance workbook: debt, by year or month, per system a contract ending mid-year
    and a drawn escalation."""

    def contract(rng, k: int) -> dict[str, object]:
        return {
            f"inp_contracted_fraction_{k}": round(float(rng.uniform(0.3, 1.0)), 4),
            f"inp_contract_rent_usd_per_gpu_hour_{k}": round(float(rng.uniform(1.5, 3.5)), 4),
            f"inp_contract_years_{k}": float(rng.integers(1, 4)) + 0.5,
            f"inp_{KEY}_{k}": round(float(rng.uniform(-0.2, 0.2)), 4),
        }

    return project_cases.drawn_finance_book(seed, contract)


BOOKS = {f"escalation_{seed}": _book(seed) for seed in (413, 414)}


def _check(path, name: str) -> None:
    for column in project_cases.finance_book_columns(path, LINES):
        cell, lines, terms, k = column.cell, column.lines, column.terms, column.k
        assert terms[KEY] == BOOKS[name][f"inp_{KEY}_{k}"], k
        project_cases.assert_lines_are_python(column, LINES)
        # the Model rows hold every term as used (blanks as their defaults)
        hand = _revenue_by_hand({key: terms[key] for key in (*project.TERMS, "periods")})
        assert lines["revenue"][: len(hand)] == pytest.approx(hand, rel=1e-9, abs=1e-9), k
        project_cases.assert_cells_are_results(
            cell, column.given, ("project_npv_usd_per_gpu", "equity_npv_usd_per_gpu", "min_dscr"), k
        )


(
    test_the_finance_workbook_in_the_engine_equals_python,
    test_the_finance_workbook_in_libreoffice_equals_python,
) = project_cases.finance_book_tests(BOOKS, _check, ["escalation_413"])
