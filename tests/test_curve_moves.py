"""A curve's level shift and tilt (issue 41, "downside as the market did it"): ``rent_curve_shift``,
``rent_curve_slope``, ``value_curve_shift``, ``value_curve_slope`` multiply a curve's factor at t
by (1 + shift) (1 + slope)^t (docs/project.md, "Shifting and tilting a curve").

- identities against inputs that mean the same thing: a shift s on a flat curve is the rent x
  (1 + s); a slope g without a curve is the decline 1 - (1 - d)(1 + g); a value shift s divides
  the LTV by (1 + s) (1e-12 on NPV, IRRs, DSCR);
- the defaults change no bit; the compiled path equals the period lines with moves;
- the finance workbook recalculated by gputco's engine (and LibreOffice, live) equals Python with
  shifts and slopes drawn per system (1e-9);
- docs/scenarios.md's SPEC (a replay, a Monte Carlo on the rent path, a tornado with the rent
  slope and the value shift): its draws' and cases' results equal udfs.scenario.evaluate's;
- a bad value is refused naming the argument, the value and the range.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import numpy as np
import project_cases
import pytest
from lo import requires_soffice
from test_market_curves import RESULTS, _close, _drawn

from gputco.udfs import project
from gputco.udfs.errors import InputRangeError

MOVES = ("rent_curve_shift", "rent_curve_slope", "value_curve_shift", "value_curve_slope")
LTV = ("max_ltv", "ltv_at_maturity", "ltv_breach_periods")


@pytest.mark.parametrize("seed", [11, 12])
def test_a_shift_on_a_flat_curve_is_the_rent_times_one_plus_the_shift(seed):
    v = _drawn(50, seed)
    s = np.random.default_rng(seed).uniform(-0.6, 1.5, 50)
    rent = v["rent_usd_per_gpu_hour"]
    # the contract rent (default: the rent) does not move with the market's path
    moved = {"rent_usd_per_gpu_hour": rent * (1 + s), "contract_rent_usd_per_gpu_hour": rent}
    want = project.results({**v, "rent_decline_per_year": 0.0, **moved}, RESULTS)
    for flat in ("1", "1, 1, 1"):
        got = project.results({**v, "rent_curve": flat, "rent_curve_shift": s}, RESULTS)
        for k in RESULTS:
            _close(got[k], want[k])


@pytest.mark.parametrize("seed", [13, 14])
def test_a_slope_without_a_curve_is_a_decline(seed):
    v = _drawn(50, seed)
    d = v["rent_decline_per_year"]
    g = np.random.default_rng(seed).uniform(-0.3, 1.0, 50) * (1 / (1 - d) - 1)  # keeps the decline >= 0
    g[:10] = np.random.default_rng(seed + 100).uniform(-0.5, -0.05, 10)  # falls faster
    want = project.results({**v, "rent_decline_per_year": 1 - (1 - d) * (1 + g)}, RESULTS)
    got = project.results({**v, "rent_curve_slope": g}, RESULTS)
    for k in RESULTS:
        _close(got[k], want[k])
    # through the period lines, period by period
    lines = project.period_lines({**v, "rent_curve_slope": g})
    base = project.period_lines({**v, "rent_decline_per_year": 1 - (1 - d) * (1 + g)})
    for k in ("revenue", "net", "equity", "cfads", "dscr"):
        _close(lines[k], base[k])


def test_a_slope_on_a_curve_is_the_curve_tilted():
    """A curve c tilted by g is the curve c_t (1 + g)^t typed out."""
    v = _drawn(30, 15)
    c = np.array([1.0, 0.62, 0.55, 0.7, 0.66, 0.5, 0.45])
    g, s = 0.07, -0.2
    typed = ", ".join(repr(float(x)) for x in c * (1 + s) * (1 + g) ** np.arange(c.size))
    want = project.results({**v, "rent_curve": typed}, RESULTS)
    got = project.results(
        {**v, "rent_curve": ", ".join(map(str, c)), "rent_curve_shift": s, "rent_curve_slope": g}, RESULTS
    )
    for k in RESULTS:
        _close(got[k], want[k])


@pytest.mark.parametrize("repayment", ["level", "straight"])
def test_a_value_shift_divides_the_ltv_and_leaves_the_cash_flows(repayment):
    v = _drawn(40, 16)
    v.update(debt_fraction=np.random.default_rng(16).uniform(0.2, 0.8, 40), debt_repayment=repayment)
    s = np.random.default_rng(17).uniform(-0.5, 2.0, 40)
    base = project.results(v, (*RESULTS, "max_ltv"))
    got = project.results({**v, "value_curve_shift": s}, (*RESULTS, "max_ltv"))
    _close(got["max_ltv"], base["max_ltv"] / (1 + s))
    for k in RESULTS:
        assert np.array_equal(got[k], base[k], equal_nan=True), k  # the cash flows keep the residual
    # a value slope g: the value t years after purchase x (1 + g)^t, in the lines
    lines = project.period_lines({**v, "value_curve_slope": 0.1})
    plain = project.period_lines(v)
    t = np.arange(lines["value_fraction"].shape[0])[:, None] / np.where(v["periods"] == "month", 12.0, 1.0)
    _close(lines["value_fraction"], plain["value_fraction"] * 1.1**t)


def test_the_defaults_change_no_bit():
    v = _drawn(40, 18)
    v["rent_curve"] = np.where(np.arange(40) % 2, "rent_h100_2024_25", "").astype(object)
    keys = (*RESULTS, *LTV, "project_irr", "avg_dscr", "llcr")
    want = project.results(v, keys)
    got = project.results({**v, **dict.fromkeys(MOVES, 0.0)}, keys)
    for k in keys:
        assert np.array_equal(got[k], want[k], equal_nan=True), k


def test_positional_calls_keep_their_places():
    args = list(project.OPTIONAL_ARGS)
    first = args.index(MOVES[0])  # only arguments added later (tax_losses, contract escalation) after them
    assert args[first : first + 4] == list(MOVES)
    later = (project.TAX_TERMS, project.CONTRACT_TERMS, project.WATERFALL_TERMS, project.FLOATING_TERMS)
    assert args[first + 4 :] == [k for terms in later for k in terms]
    assert args.index("debt_grace_months") < args.index("rent_curve_shift")


@pytest.mark.parametrize("seed", [19, 20])
def test_the_compiled_path_equals_the_period_lines_with_moves(seed):
    """NPV, equity NPV and lowest DSCR of the compiled flows equal the same computed from the
    period lines (the workbooks' table in Python), curves and no curves, rows at once."""
    v = _drawn(40, seed)
    rng = np.random.default_rng(seed)
    v["rent_curve"] = np.where(
        np.arange(40) % 3 == 0, "1, 0.7, 0.8, 0.5", np.where(np.arange(40) % 3 == 1, "rent_h100_2024_25", "")
    ).astype(object)
    for k, (lo, hi) in zip(MOVES, ((-0.5, 1.0), (-0.3, 0.3), (-0.5, 1.0), (-0.3, 0.3)), strict=True):
        v[k] = rng.uniform(lo, hi, 40)
    got = project.results(v, ("project_npv_usd_per_gpu", "min_dscr", "max_ltv"))
    lines = project.period_lines(v)
    ppy = np.where(v["periods"] == "month", 12.0, 1.0)
    p = np.arange(lines["net"].shape[0])[:, None]
    npv = np.nansum(lines["net"] * (1 + v["cost_of_capital"]) ** (-p / ppy), axis=0)
    _close(got["project_npv_usd_per_gpu"], npv, 1e-9)
    _close(got["max_ltv"], np.where(v["debt_fraction"] > 0, np.nanmax(lines["ltv"], axis=0), np.nan), 1e-9)


@pytest.mark.parametrize(
    ("key", "value", "interval"),
    [
        ("rent_curve_shift", -1.0, "(-1, 10]"),
        ("rent_curve_shift", 10.5, "(-1, 10]"),
        ("rent_curve_slope", 1.5, "(-1, 1]"),
        ("value_curve_shift", -2.0, "(-1, 10]"),
        ("value_curve_slope", -1.0, "(-1, 1]"),
    ],
)
def test_a_bad_value_is_named(key, value, interval):
    v = {k: x[:1] for k, x in _drawn(1, 21).items()}
    with pytest.raises(InputRangeError) as e:
        project.results({**v, key: value})
    text = str(e.value)
    assert key in text and interval in text and f"{value:g}" in text, text


# --- the finance workbook: gputco's engine and LibreOffice equal Python ---------------------------

LINES = ("rent_factor", "revenue", "net", "equity", "value_fraction", "collateral", "ltv")


def _book(seed: int) -> dict[str, object]:
    """One drawn finance workbook: debt, by year or month, and per system a rent curve (typed, a
    preset, none) and drawn shifts and slopes on both curves."""

    def moves(rng, k: int) -> dict[str, object]:
        return {
            f"inp_rent_curve_{k}": ("1, 0.6, 0.7, 0.5", "rent_h100_2024_25", None)[k % 3],
            f"inp_rent_curve_shift_{k}": round(float(rng.uniform(-0.5, 1.0)), 4),
            f"inp_rent_curve_slope_{k}": round(float(rng.uniform(-0.3, 0.3)), 4),
            f"inp_value_curve_shift_{k}": round(float(rng.uniform(-0.5, 1.0)), 4),
            f"inp_value_curve_slope_{k}": round(float(rng.uniform(-0.3, 0.3)), 4),
        }

    return project_cases.drawn_finance_book(seed, moves)


BOOKS = {f"moves_{seed}": _book(seed) for seed in (411, 412)}


def _check(path, name: str) -> None:
    for column in project_cases.finance_book_columns(path, LINES):
        for key in MOVES:
            assert column.terms[key] == BOOKS[name][f"inp_{key}_{column.k}"], (column.k, key)
        project_cases.assert_lines_are_python(column, LINES)
        project_cases.assert_cells_are_results(
            column.cell,
            column.given,
            ("project_npv_usd_per_gpu", "equity_npv_usd_per_gpu", "max_ltv"),
            column.k,
        )


(
    test_the_finance_workbook_in_the_engine_equals_python,
    test_the_finance_workbook_in_libreoffice_equals_python,
) = project_cases.finance_book_tests(BOOKS, _check, ["moves_411"])


# --- docs/scenarios.md's SPEC: a replay, Monte Carlo on the rent path, a tornado ----------------


def _doc_spec() -> dict:
    page = (Path(__file__).resolve().parents[1] / "docs" / "scenarios.md").read_text(encoding="utf-8")
    (text,) = [t for t in re.findall(r"```toml\n(.*?)```", page, re.S) if "rent_curve_shift" in t]
    return tomllib.loads(text)


def test_the_docs_spec_draws_and_cases_equal_the_evaluator(tmp_path):
    from test_scenarios_project import _mismatches, _read

    from gputco.workbook.scenarios.build import write_scenarios
    from gputco.workbook.scenarios.spec import parse_spec

    raw = _doc_spec()
    assert raw["fixed"]["rent_curve"] == "rent_h100_2024_25"
    assert {"rent_curve_shift", "rent_curve_slope"} <= set(raw["monte_carlo"])
    assert {"rent_curve_slope", "value_curve_shift"} <= set(raw["sensitivity"]["inputs"])
    raw["fixed"]["periods"] = "year"  # the default, named for the IRR-root check
    raw["monte_carlo"]["draws"] = 60
    spec = parse_spec(raw)
    got = _read(write_scenarios(spec, tmp_path / "moves.xlsx").path)
    assert _mismatches(spec, got) == []
    # the draws vary the rent path: their NPVs differ, and equal the evaluator's draw by draw
    from gputco.udfs import scenario

    drawn = spec.monte_carlo.sample()
    npv = scenario.evaluate({**spec.base, **drawn})["project_npv_usd_per_gpu"]
    cells = np.array([got[f"draw:{i}:project_npv_usd_per_gpu"] for i in range(60)], dtype=float)
    assert np.allclose(cells, npv, rtol=1e-9) and np.ptp(cells) > 1000
    # the tornado's cases move the slope about -1: base 0 at swing 0.1 gives -0.1 and +0.1
    cases = {d: (lo, hi) for d, _b, lo, hi in spec.sensitivity_cases()}
    assert cases["rent_curve_slope"] == pytest.approx((-0.1, 0.1), abs=1e-15)
    assert cases["value_curve_shift"] == pytest.approx((-0.3, 0.3), abs=1e-15)


def test_a_replay_runs_from_the_in_service_date():
    """The 2024-25 H100 path by year of operation: after a 12-month build the same revenues, a
    year later."""
    v = {k: x[:1] for k, x in _drawn(1, 22).items()}
    v.update(
        periods="year",
        build_months=np.array([0.0]),
        ramp_months=np.array([0.0]),
        contracted_fraction=np.array([0.0]),
        rent_curve="rent_h100_2024_25",
    )
    now = project.period_lines(v)["revenue"][:, 0]
    later = project.period_lines({**v, "build_months": np.array([12.0])})["revenue"][:, 0]
    assert later[2 : 1 + now.size] == pytest.approx(now[1:], rel=1e-15)
    assert later[1] == 0


@requires_soffice
def test_the_docs_spec_in_libreoffice_equals_the_evaluator(tmp_path):
    """The same SPEC's rows, cases and 20 draws recalculated by LibreOffice (live)."""
    from lo import recalculate
    from scenario_book import unrecalculated
    from test_scenarios_project import _mismatches, _read

    from gputco.workbook.scenarios.spec import parse_spec

    raw = _doc_spec()
    raw["fixed"]["periods"] = "year"
    raw["monte_carlo"]["draws"] = 20
    spec = parse_spec(raw)
    path = recalculate(unrecalculated(spec, tmp_path / "moves.xlsx"), tmp_path / "lo")
    assert _mismatches(spec, _read(path)) == []
