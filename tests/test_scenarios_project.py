"""Scenario workbooks with the cluster-project inputs (workbook/scenarios/projectcells.py): every
row of Scenarios, the Sensitivity cases and the Monte Carlo draws, recalculated by gputco's engine
and by LibreOffice, equals ``gputco.udfs.scenario.evaluate`` to 1e-9 relative: the rent-or-buy
results (NPV, IRR, payback, break-evens) with the project's terms and the project's own results
(equity IRR and NPV, lowest DSCR, peak funding, cluster totals).

The SPECs are drawn as tests/test_project_workbook.py draws its projects: four structures (by
year and by month, debt with a build and without, MACRS 5 and 7, bonus, straight line), five
systems zipped with per-row draws of the gpus, rent, availability, utilisation, build, ramp,
idle power, opex lines and contracts (two rows share a value: zip takes repeated values), a
tornado of project drivers, and Monte Carlo draws of project inputs. LibreOffice's values are
recorded in tests/data/lo_scenarios_project.json, so the comparison with Python runs where
LibreOffice is absent (refresh: ``GPUTCO_LO_REFRESH=1 python -m pytest -q
tests/test_scenarios_project.py -k live``).
"""

from __future__ import annotations

import itertools
import math
import re
from pathlib import Path

import numpy as np
import pytest
from lo import recalculate, requires_soffice
from lo_record import recorded, same, verify_or_refresh
from project_cases import BOOKS, REL, SYSTEMS, system_terms
from scenario_book import block, load, unrecalculated

from gputco.udfs import chain, scenario
from gputco.workbook.finance.inputs import default_rent
from gputco.workbook.scenarios import montecarlo, projectcells
from gputco.workbook.scenarios.build import build, write_scenarios
from gputco.workbook.scenarios.rows import HEAD_ROW
from gputco.workbook.scenarios.spec import WATERFALL, SpecError, parse_spec

RECORDING = Path(__file__).parent / "data" / "lo_scenarios_project.json"
REGENERATE = "GPUTCO_LO_REFRESH=1 python -m pytest -q tests/test_scenarios_project.py -k live"
PPY = {"year": 1, "month": 12}
#: the results compared on every row: those that read the cash flows, and the project's own
RESULTS = (
    "project_npv_usd_per_gpu",
    "project_irr",
    "project_payback_years",
    "project_breakeven_rent_usd_per_gpu_hour",
    "project_breakeven_utilisation",
    "tco_usd_per_gpu_hour",
    "usd_per_mtok",
    *chain.PROJECT_OUTPUTS,
)

#: the tornado's drivers (project inputs) and the Monte Carlo of each SPEC
PROBES = {
    "year_debt_macrs5_bonus": {
        "sensitivity": {"inputs": ["debt_fraction", "contracted_fraction", "idle_power_fraction"]},
    },
    "month_debt_macrs7": {
        "sensitivity": {"inputs": ["debt_rate", "maintenance_fraction_per_year"], "swing": 0.3},
        "monte_carlo": {
            "draws": 20,
            "seed": 5,
            "debt_fraction": {"dist": "uniform", "low": 0.3, "high": 0.7},
            "contracted_fraction": {"dist": "triangular", "low": 0.0, "mode": 0.5, "high": 1.0},
            "idle_power_fraction": {"dist": "uniform", "low": 0.2, "high": 1.0},
        },
    },
    "month_equity_bonus": {"sensitivity": {"inputs": ["staff_usd_per_gpu_year", "mfu"]}},
    "year_debt_straight_line": {
        "monte_carlo": {
            "draws": 20,
            "seed": 2,
            "debt_fraction": {"dist": "uniform", "low": 0.2, "high": 0.8},
        },
    },
    # the waterfall's inputs moved as the other lender inputs are (the reserve in whole months)
    "month_lender_waterfall": {
        "sensitivity": {
            "inputs": ["sweep_fraction", "lockup_dscr", "dsra_months"],
            "swing": {"dsra_months": 0.5},
        },
        "monte_carlo": {
            "draws": 12,
            "seed": 3,
            "sweep_fraction": {"dist": "uniform", "low": 0.0, "high": 1.0},
            "lockup_dscr": {"dist": "triangular", "low": 1.0, "mode": 1.3, "high": 2.0},
        },
    },
}


def _drawn(name: str, seed: int) -> dict:
    """A SPEC: its structure (BOOKS), five systems zipped with per-row draws from ``seed``."""
    rng = np.random.default_rng(seed)
    fixed = dict(BOOKS[name])  # the lender's book: its reserve, sweep and lock-up too
    year = fixed["periods"] == "year"
    life = fixed.get("life_years", 5)
    fixed["mfu"] = 0.5
    fixed["rent_decline_per_year"] = round(float(rng.uniform(0.0, 0.15)), 4)
    fixed["opex_escalation_per_year"] = round(float(rng.uniform(0.0, 0.05)), 4)
    rows: dict[str, list] = {"system": list(SYSTEMS)}
    for system in SYSTEMS:
        rent = default_rent(system) * float(rng.uniform(0.9, 1.3))
        values = system_terms(rng, rent, year, life)
        for key, value in values.items():
            rows.setdefault(key, []).append(value)
    # two systems share a value: zip takes repeated values
    rows["availability"][1] = rows["availability"][0]
    rows["gpus"][3] = rows["gpus"][2] = 1152
    grid = {**rows, "zip": [list(rows)]}
    return {"grid": grid, "fixed": fixed, **PROBES.get(name, {})}


SPECS = {name: _drawn(name, seed) for seed, name in enumerate(BOOKS, start=41)}


def _expected(spec) -> dict[str, dict[str, np.ndarray]]:
    """Python's results per block: the grid's rows, the draws', the cases' (the base with the
    driver values the cases hold)."""
    return {"scenario": spec.results, "draw": spec.draw_results}


def _read(path: Path) -> dict[str, object]:
    """{"<block>:<row>:<result>": value} of every block's rows."""
    wb = load(path)
    out: dict[str, object] = {}
    for sheet, id_key in (("Scenarios", "scenario"), ("Sensitivity", "case"), ("MonteCarlo", "draw")):
        if sheet not in wb.sheetnames:
            continue
        keys, data, _first = block(wb[sheet], id_key)
        for i, row in enumerate(data):
            for key in RESULTS:
                out[f"{id_key}:{i}:{key}"] = row[keys.index(key)]
            if id_key == "case":
                for d in keys:
                    if d in scenario.INPUT_NAMES:
                        out[f"{id_key}:{i}:{d}"] = row[keys.index(d)]
            for flow in ("net", "equity"):  # the flows an IRR is a root of
                cells = [j for j, k in enumerate(keys) if k and k.startswith(f"{flow}_p")]
                out[f"{id_key}:{i}:{flow}"] = [row[j] for j in cells]
    if "MonteCarlo" in wb.sheetnames:  # the percentiles and the mean of the draws
        for r in wb["MonteCarlo"].iter_rows(max_row=60, values_only=True):
            if r[0] in MC_STATS:
                out[f"mcstat:{r[0]}"] = list(r[3:7])
            if r[0] in MC_SHARES:
                out[f"mcshare:{r[0]}"] = r[3]
    return out


#: the Monte Carlo statistics compared with numpy's (percentile, inclusive, and mean)
MC_STATS = ("project_npv_usd_per_gpu", "project_irr", *montecarlo.PROJECT_STATS)

#: the lender's and the equity's shares of every draw (compared with numpy on the draws' own cells)
MC_SHARES = tuple(k for k, *_ in montecarlo.LENDER_SHARES)


def _number(value, missing: float) -> float:
    """A cell's number, or ``missing`` for a text or an error (no DSCR without debt, no IRR)."""
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else missing


def _shares(spec, got: dict[str, object]) -> dict[str, float | None]:
    """numpy's shares of the draws' own cells: min DSCR below the draw's covenant (a draw without
    debt has none to breach), equity IRR below its cost of equity (a draw without one counts
    below: -inf), the share without an equity IRR, and max LTV above the draw's max_ltv_covenant
    (None where no draw has both debt and a covenant: the workbook says so)."""
    draws = {**spec.base, **spec.monte_carlo.sample()}
    n = spec.monte_carlo.draws
    used = scenario.used_inputs(draws)
    covenant = np.broadcast_to(np.asarray(used["covenant_dscr"], dtype=float).ravel(), (n,))
    coe = np.broadcast_to(np.asarray(used["cost_of_equity"], dtype=float).ravel(), (n,))
    dscr = np.array([_number(got[f"draw:{i}:min_dscr"], np.nan) for i in range(n)])
    eirr = np.array([_number(got[f"draw:{i}:equity_irr"], -np.inf) for i in range(n)])
    ltv_cov = np.broadcast_to(np.asarray(used["max_ltv_covenant"], dtype=float).ravel(), (n,))
    ltv = np.array([_number(got[f"draw:{i}:max_ltv"], np.nan) for i in range(n)])
    with np.errstate(invalid="ignore"):
        below = dscr < covenant
        above = (ltv > ltv_cov) & (ltv_cov > 0)
    return {
        "p_min_dscr_below_covenant": float(np.mean(below)),
        "p_equity_irr_below_cost_of_equity": float(np.mean(eirr < coe)),
        "p_no_equity_irr": float(np.mean(np.isinf(eirr))),
        "p_max_ltv_above_covenant": float(np.mean(above))
        if np.any(np.isfinite(ltv) & (ltv_cov > 0))
        else None,
    }


#: the IRR of each flow
IRRS = {"project_irr": "net", "equity_irr": "equity"}


def _sign_changes(flows) -> int:
    signs = [f > 0 for f in flows if f != 0]
    return sum(a != b for a, b in itertools.pairwise(signs))


def _is_root(rate: object, flows, ppy: int) -> bool:
    """NPV of the flows at the annual rate is 0 within 1e-9 of the flows' discounted sizes."""
    if not isinstance(rate, int | float) or rate <= -1:
        return False
    d = [(1 + rate) ** (-p / ppy) for p in range(len(flows))]
    return abs(sum(f * x for f, x in zip(flows, d, strict=True))) <= 1e-9 * sum(
        abs(f) * x for f, x in zip(flows, d, strict=True)
    )


def _mismatches(spec, got: dict[str, object]) -> list[str]:
    want = _expected(spec)
    n_cases = sum(1 for k in got if k.startswith("case:") and k.endswith(":project_npv_usd_per_gpu"))
    if n_cases:
        drivers = [d for d in spec.drivers]
        moved = {d: np.array([got[f"case:{i}:{d}"] for i in range(n_cases)], dtype=float) for d in drivers}
        want["case"] = scenario.evaluate({**spec.base, **moved})
    bad: list[str] = []
    for id_key, results in want.items():
        if results is None:
            continue
        n = len(results["project_npv_usd_per_gpu"])
        assert (
            f"{id_key}:{n - 1}:project_npv_usd_per_gpu" in got
            and f"{id_key}:{n}:project_npv_usd_per_gpu" not in got
        )
        for i in range(n):
            for key in RESULTS:
                value, expected = got[f"{id_key}:{i}:{key}"], float(results[key][i])
                if math.isnan(expected):  # none: the workbook says why (a text or an error)
                    ok = not isinstance(value, int | float) or isinstance(value, bool)
                else:
                    ok = isinstance(value, int | float) and math.isclose(
                        value, expected, rel_tol=REL, abs_tol=1e-9
                    )
                if (
                    not ok
                    and value == projectcells.CARRIED
                    and spec.fixed.get("tax_losses") == "carry_forward"
                ):
                    ok = (
                        True  # a carried loss's break-even is searched: the cells say where (batch, evaluate)
                    )
                if not ok and key in IRRS and _sign_changes(got[f"{id_key}:{i}:{IRRS[key]}"]) > 1:
                    # flows that change sign more than once may have several IRRs: Excel's IRR and
                    # Python's pick a root each (not always the same one); the workbook's must be one
                    ok = _is_root(value, got[f"{id_key}:{i}:{IRRS[key]}"], PPY[spec.fixed["periods"]])
                if not ok:
                    bad.append(f"{id_key} {i} {key}: workbook {value!r}, Python {expected!r}")
    if want["draw"] is not None:
        for key in MC_STATS:
            values = np.asarray(want["draw"][key], dtype=float)
            values = values[np.isfinite(values)]
            expected = [*np.percentile(values, [10, 50, 90]), values.mean()]
            got_stats = got[f"mcstat:{key}"]
            if not all(
                math.isclose(a, b, rel_tol=REL, abs_tol=1e-9)
                for a, b in zip(got_stats, expected, strict=True)
            ):
                bad.append(f"Monte Carlo {key}: workbook {got_stats}, numpy {expected}")
        for key, expected in _shares(spec, got).items():
            if expected is None:  # no draw to count: the workbook says why
                if got[f"mcshare:{key}"] != montecarlo.NO_LTV_COVENANT:
                    bad.append(
                        f"Monte Carlo {key}: workbook {got[f'mcshare:{key}']}, no draw with a covenant"
                    )
            elif not math.isclose(got[f"mcshare:{key}"], expected, rel_tol=1e-12, abs_tol=1e-12):
                bad.append(f"Monte Carlo {key}: workbook {got[f'mcshare:{key}']}, numpy {expected}")
    return bad


@pytest.fixture(scope="module")
def engine(tmp_path_factory) -> dict[str, dict[str, object]]:
    """The engine's values of every SPEC's workbook."""
    where = tmp_path_factory.mktemp("scenarios-project")
    return {
        name: _read(write_scenarios(parse_spec(s), where / f"{name}.xlsx").path) for name, s in SPECS.items()
    }


def test_the_drawn_specs_meet_every_feature():
    specs = [parse_spec(s) for s in SPECS.values()]
    rows = [
        dict(zip(s.grid, values, strict=True)) for s in specs for values in zip(*s.grid.values(), strict=True)
    ]
    assert len(rows) == len(SYSTEMS) * len(BOOKS)
    assert {s.fixed["periods"] for s in specs} == {"year", "month"}
    assert {s.fixed["depreciation_method"] for s in specs} == {"straight_line", "macrs_5", "macrs_7"}
    assert sum(r["build_months"] > 0 for r in rows) >= 5 and sum(r["ramp_months"] > 0 for r in rows) >= 10
    assert sum(s.monte_carlo is not None for s in specs) == 3
    waterfall = [r for r in rows if r.get("sweep_fraction", 0) > 0]  # (fixed: on every row of its SPEC)
    assert not waterfall or len(waterfall) == len(SYSTEMS)
    lender = parse_spec(SPECS["month_lender_waterfall"])
    assert all(lender.base[k] > 0 for k in ("dsra_months", "sweep_fraction", "lockup_dscr"))
    assert {"sweep_fraction", "lockup_dscr", "dsra_months"} <= set(lender.drivers)
    assert all(any(d in projectcells.project.PROJECT_INPUTS for d in s.drivers) for s in specs[:3])


def test_the_drawn_rows_pay_back_and_borrow(engine):
    """Not only losses: rows with a payback, a positive equity IRR and a debt-service cover."""
    values = [v for got in engine.values() for k, v in got.items() if k.endswith(":project_payback_years")]
    assert sum(isinstance(v, float) for v in values) >= 50
    covers = [v for got in engine.values() for k, v in got.items() if k.endswith(":min_dscr")]
    assert sum(isinstance(v, float) for v in covers) >= 50


def test_the_drawn_draws_breach_and_clear_the_covenant(engine):
    """The lender's shares are tested on draws of both kinds: some below the covenant and some
    above, some equity IRRs below the cost of equity and some above."""
    shares = [got for got in engine.values() if "mcshare:p_min_dscr_below_covenant" in got]
    assert len(shares) == 3
    assert any(0 < got["mcshare:p_min_dscr_below_covenant"] < 1 for got in shares)
    assert any(0 < got["mcshare:p_equity_irr_below_cost_of_equity"] < 1 for got in shares)


@pytest.mark.parametrize("name", list(SPECS))
def test_the_engine_equals_python(engine, name):
    assert _mismatches(parse_spec(SPECS[name]), engine[name]) == []


@pytest.mark.parametrize("name", list(SPECS))
def test_the_recorded_libreoffice_values_equal_python_and_the_engine(engine, name):
    rec = recorded(name, RECORDING)
    assert rec, f"no LibreOffice recording of {name}: {REGENERATE}"
    assert _mismatches(parse_spec(SPECS[name]), rec) == []
    assert [
        k
        for k in engine[name]
        if not same(rec[k], engine[name][k], REL) and not _both_missing(rec[k], engine[name][k])
    ] == []


def _both_missing(a, b) -> bool:
    """Neither is a number (an IRR Excel cannot find is #NUM! in one and an error text in the other)."""
    return not isinstance(a, int | float) and not isinstance(b, int | float)


@requires_soffice
@pytest.mark.parametrize("name", list(SPECS))
def test_libreoffice_live_equals_python_and_its_recording(tmp_path, name, monkeypatch):
    spec = parse_spec(SPECS[name])
    if spec.waterfall:  # no formula groups: more memory (WATERFALL_LO_MB)
        monkeypatch.setenv("GPUTCO_LIBREOFFICE_MEMORY_MB", WATERFALL_LO_MB)
    path = recalculate(unrecalculated(spec, tmp_path / f"{name}.xlsx"), tmp_path / "lo")
    live = _read(path)
    assert _mismatches(spec, live) == []
    assert verify_or_refresh(name, live, REL, RECORDING, REGENERATE) == []


def test_zip_takes_repeated_values():
    """Two systems can share 0.9 availability or 1,152 GPUs: the zipped lists vary together."""
    spec = parse_spec(
        {
            "grid": {
                "system": ["H100_HGX", "GB200_NVL72", "B200_HGX"],
                "availability": [0.9, 0.9, 0.95],
                "gpus": [1152, 1152, 2048],
                "zip": [["system", "availability", "gpus"]],
            },
            "fixed": {"mfu": 0.5},
        }
    )
    assert spec.n_scenarios == 3
    cols = spec.grid_columns()
    assert list(np.asarray(cols["availability"], dtype=float)) == [0.9, 0.9, 0.95]
    assert list(np.asarray(cols["gpus"], dtype=float)) == [1152, 1152, 2048]


@pytest.mark.parametrize(
    ("table", "value", "message"),
    [
        ("grid", {"debt_fraction": [0.2, 1.5]}, r"^grid\.debt_fraction: .*\[0, 1\).*1\.5"),
        ("fixed", {"depreciation_method": "macrs_9"}, r"^fixed\.depreciation_method: .*macrs_9"),
        ("fixed", {"build_months": 61}, r"^fixed\.build_months: .*61"),
        ("fixed", {"periods": "year", "build_months": 6}, r"build_months.*multiple of 12"),
    ],
)
def test_a_bad_project_value_is_refused_by_name(table, value, message):
    base = {"grid": {"system": ["H100_HGX"]}, "fixed": {"mfu": 0.5, "rent_usd_per_gpu_hour": 2.0}}
    base[table] = {**base.get(table, {}), **value}
    with pytest.raises(SpecError, match=message):
        build(parse_spec(base))


def test_a_block_too_big_for_its_periods_is_refused_with_the_limit():
    """By month 600 scenarios of a 5-year life and a 24-month build are 600 x 85 row-periods,
    beyond projectcells.MAX_ROW_PERIODS: refused, naming the table, the size and the limit."""
    spec = parse_spec(
        {
            "grid": {"utilisation": [round(0.4 + 0.001 * i, 3) for i in range(600)]},
            "fixed": {"mfu": 0.5, "rent_usd_per_gpu_hour": 2.0, "periods": "month", "build_months": 24},
        }
    )
    with pytest.raises(
        SpecError, match=r"^grid: 600 rows x 85 periods = 51,000 row-periods; .* at most 50,000"
    ):
        build(spec)


def test_without_a_rent_the_project_results_say_what_they_need(tmp_path):
    spec = parse_spec({"grid": {"system": ["H100_HGX"], "debt_fraction": [0.0, 0.5]}, "fixed": {"mfu": 0.5}})
    path = write_scenarios(spec, tmp_path / "s.xlsx").path
    keys, data, _ = block(load(path)["Scenarios"], "scenario")
    for key in ("project_npv_usd_per_gpu", "equity_irr", "min_dscr"):
        assert {r[keys.index(key)] for r in data} == {projectcells.NEEDS_RENT}
    assert not any(k.startswith("net_p") for k in keys)  # no period cells without a rent


def test_a_project_input_typed_into_a_workbook_without_project_cells_is_said_not_ignored(tmp_path):
    """A SPEC without project inputs gives rows without the project's cells (the yearly table);
    typing a project input on Inputs afterwards turns their rent-or-buy results into a text
    that says so, recalculated by gputco's engine, instead of numbers that ignore it."""
    import openpyxl

    from gputco.udfs import UDFS
    from gputco.workbook.recalc import recalc_file
    from gputco.workbook.scenarios.layout import NEEDS_PROJECT

    spec = parse_spec(
        {"grid": {"system": ["H100_HGX", "GB200_NVL72"]}, "fixed": {"mfu": 0.4, "rent_usd_per_gpu_hour": 3.0}}
    )
    path = write_scenarios(spec, tmp_path / "s.xlsx").path
    keys, data, _ = block(load(path)["Scenarios"], "scenario")
    assert all(isinstance(r[keys.index("project_npv_usd_per_gpu")], float) for r in data)
    wb = openpyxl.load_workbook(path)
    ((sheet, ref),) = wb.defined_names["inp_debt_fraction"].destinations
    wb[sheet][ref.replace("$", "")] = 0.5
    wb.save(tmp_path / "typed.xlsx")
    recalc_file(tmp_path / "typed.xlsx", tmp_path / "out.xlsx", functions=UDFS)
    keys, data, _ = block(load(tmp_path / "out.xlsx")["Scenarios"], "scenario")
    for key in (
        "project_npv_usd_per_gpu",
        "project_irr",
        "project_payback_years",
        "project_breakeven_rent_usd_per_gpu_hour",
    ):
        assert {r[keys.index(key)] for r in data} == {NEEDS_PROJECT}, key
    # the chain's own steps read no project input
    assert all(isinstance(r[keys.index("usd_per_mtok")], float) for r in data)


def test_the_summary_shows_the_financing_of_each_systems_best_npv_scenario(tmp_path):
    """Summary's rent-or-buy table, with project inputs: per system the scenario of the highest
    NPV and its equity IRR, lowest DSCR and peak funding, as Python computes that scenario."""
    spec = parse_spec(
        {
            "grid": {"system": ["GB200_NVL72", "H100_HGX"], "contracted_fraction": [0.0, 0.5]},
            "fixed": {
                "mfu": 0.5,
                "rent_usd_per_gpu_hour": 3.0,
                "tax_rate": 0.21,
                "periods": "month",
                "build_months": 12,
                "ramp_months": 3,
                "debt_fraction": 0.6,
                "debt_rate": 0.09,
                "debt_years": 4,
                "depreciation_method": "macrs_5",
            },
            "sensitivity": {"inputs": ["debt_fraction", "rent_usd_per_gpu_hour"]},
        }
    )
    path = write_scenarios(spec, tmp_path / "s.xlsx").path
    # the tornado's lender columns: the lowest DSCR and the equity IRR at each case, as Python
    table = list(load(path)["Sensitivity"].iter_rows(min_row=5, max_row=7, values_only=True))
    for r in table[1:]:
        for side, moved in (("low", r[6]), ("high", r[7])):
            want = scenario.evaluate({**spec.base, r[0]: moved})
            for key, heading in (("min_dscr", "min DSCR"), ("equity_irr", "equity IRR")):
                got = r[table[0].index(f"{heading} at {side}")]
                assert math.isclose(got, float(want[key][0]), rel_tol=1e-9), (r[0], side, key)
    rows = list(load(path)["Summary"].iter_rows(values_only=True))
    (head,) = [i for i, r in enumerate(rows) if r[0] == "system" and "rank by NPV" in r]
    names = list(rows[head])
    systems = np.asarray(spec.grid["system"])[spec.grid_columns()["system"].codes]
    npv = spec.results["project_npv_usd_per_gpu"]
    for r in rows[head + 1 : head + 3]:
        mine = np.flatnonzero(systems == r[0])
        best = int(mine[np.argmax(npv[mine])])
        assert r[names.index("scenario (by NPV)")] == best + 1
        for key, heading in (
            ("equity_irr", "its equity IRR"),
            ("min_dscr", "its lowest DSCR"),
            ("peak_funding_usd_per_gpu", "its peak funding per GPU"),
        ):
            assert math.isclose(r[names.index(heading)], spec.results[key][best], rel_tol=1e-9), (r[0], key)
    # the lender's table: per system the scenario of the highest lowest DSCR, ranked, its equity
    # IRR and cover, and the share of its scenarios whose lowest DSCR is below the covenant
    (head,) = [i for i, r in enumerate(rows) if r[0] == "system" and "rank by lowest DSCR" in r]
    names = list(rows[head])
    dscr = spec.results["min_dscr"]
    best_of = {}
    for r in rows[head + 1 : head + 3]:
        mine = np.flatnonzero(systems == r[0])
        best = int(mine[np.argmax(dscr[mine])])
        best_of[r[0]] = dscr[best]
        assert r[names.index("scenario (by lowest DSCR)")] == best + 1
        assert math.isclose(r[names.index("best lowest DSCR")], dscr[best], rel_tol=1e-9)
        for key, heading in (
            ("equity_irr", "its equity IRR"),
            ("debt_usd_per_gpu", "its debt per GPU"),
            ("avg_dscr", "its average DSCR"),
            ("llcr", "its LLCR"),
            ("dscr_breach_periods", "its periods below the covenant"),
        ):
            assert math.isclose(r[names.index(heading)], spec.results[key][best], rel_tol=1e-9), (r[0], key)
        share = np.mean(dscr[mine] < 1.0)  # covenant_dscr's default
        assert math.isclose(r[names.index("share breaching the covenant")], share), r[0]
    for r in rows[head + 1 : head + 3]:
        assert r[names.index("rank by lowest DSCR")] == 1 + sum(v > best_of[r[0]] for v in best_of.values())


def test_the_breakeven_rent_with_contracts_in_the_rows(tmp_path):
    """The scenario rows' break-even rent, recalculated by gputco's engine: every GPU under
    contract for the life sells no GPU-hour at the market rent, so the row says so
    (decision_steps.NO_MARKET_RENT, as it says 'no payback within life'), not #DIV/0!; contracts
    that pay alone give a break-even market rent below 0, kept; each equals Python's (1e-9)."""
    from gputco.udfs.decision_steps import NO_MARKET_RENT

    spec = parse_spec(
        {
            "grid": {"contracted_fraction": [1.0, 0.9, 0.0]},
            "fixed": {
                "system": "H100_HGX",
                "mfu": 0.5,
                "rent_usd_per_gpu_hour": 2.0,
                "contract_rent_usd_per_gpu_hour": 6.0,
                "periods": "month",
                "ramp_months": 3,
            },
        }
    )
    keys, data, _ = block(load(write_scenarios(spec, tmp_path / "s.xlsx").path)["Scenarios"], "scenario")
    got = [r[keys.index("project_breakeven_rent_usd_per_gpu_hour")] for r in data]
    want = scenario.evaluate(spec.scenario_inputs())["project_breakeven_rent_usd_per_gpu_hour"]
    assert got[0] == NO_MARKET_RENT and math.isnan(want[0])
    assert got[1] < 0 and want[2] > 0
    assert np.allclose(got[1:], want[1:], rtol=1e-9, atol=0)


#: LibreOffice's resident memory for a SPEC with the waterfall: its rows form no formula groups
#: (docs/scenarios.md: the two-row LENDER_WATERFALL workbook needs 2.0-2.3 GiB in LibreOffice
#: 7.4.7.2, against under 1.2 GiB with groups; measured 2026-12-07): the default budget (4 GiB)
#: takes it; the five-system drawn SPECs with the waterfall get more
WATERFALL_LO_MB = "6144"


@pytest.mark.parametrize("table", ["fixed", "grid", "monte_carlo", "sensitivity"])
def test_a_reserve_sweep_or_lockup_is_taken_in_every_table(table):
    """Set in [fixed], listed in [grid], drawn by the Monte Carlo or moved by the tornado: taken,
    and Python's results of the rows move with them (a sweep repays the debt sooner)."""
    base = {
        "grid": {"system": ["H100_HGX"]},
        "fixed": {"mfu": 0.5, "rent_usd_per_gpu_hour": 3.0, "debt_fraction": 0.6, "periods": "month"},
    }
    spec = parse_spec(
        {
            "fixed": {**base, "fixed": {**base["fixed"], "sweep_fraction": 0.5, "dsra_months": 6}},
            "grid": {**base, "grid": {**base["grid"], "dsra_months": [0, 6], "sweep_fraction": [0, 0.5]}},
            "monte_carlo": {
                **base,
                "monte_carlo": {"draws": 8, "sweep_fraction": {"dist": "uniform", "low": 0.0, "high": 1.0}},
            },
            "sensitivity": {**base, "sensitivity": {"inputs": ["sweep_fraction", "lockup_dscr"]}},
        }[table]
    )
    if table == "fixed":
        assert spec.base["sweep_fraction"] == 0.5 and spec.base["dsra_months"] == 6
    elif table == "grid":
        irr = spec.results["equity_irr"]
        assert len(irr) == 4 and len(set(np.round(irr, 12))) == 4  # each row its own waterfall
    elif table == "monte_carlo":
        assert np.ptp(spec.draw_results["equity_irr"]) > 0
    else:
        assert spec.drivers[:2] == ("sweep_fraction", "lockup_dscr")
        assert [c[0] for c in spec.sensitivity_cases()][:2] == ["sweep_fraction", "lockup_dscr"]


@pytest.mark.parametrize("waterfall", [False, True], ids=["without", "with a sweep"])
def test_the_waterfall_inputs_on_the_inputs_sheet(waterfall):
    """Each waterfall Inputs cell (the scenarios' and the base scenario's): in a workbook whose
    SPEC sets a reserve, sweep or lock-up (its rows read their own row absolutely), the range
    check of every input (udfs/ranges.py); in one whose SPEC sets none (its rows form
    LibreOffice's formula groups), 0 only (custom rule ``cell=0``, as Excel and LibreOffice check
    it when a value is typed), saying why and how to get a workbook that takes it."""
    from openpyxl.utils.cell import range_boundaries

    from gputco.udfs import ranges

    fixed = {"mfu": 0.5, **({"sweep_fraction": 0.5, "debt_fraction": 0.5} if waterfall else {})}
    spec = parse_spec({"grid": {"system": ["H100_HGX"]}, "fixed": fixed})
    assert spec.waterfall == waterfall
    wb = build(spec).wb
    ws = wb["Inputs"]
    rules = {str(ref): dv for dv in ws.data_validations.dataValidation for ref in dv.sqref.ranges}
    for prefix in ("inp_", "base_"):
        for key in WATERFALL:
            ((sheet, ref),) = wb.defined_names[prefix + key].destinations
            ref = ref.replace("$", "")
            assert sheet == "Inputs" and ws[ref].value == fixed.get(key, 0), (prefix, key)
            dv = rules[ref]
            col, row, _, _ = range_boundaries(ref)
            note = ws.cell(row=row, column=col + 1).value or ""
            if waterfall:
                assert dv.formula1 == ranges.of(key).excel(ref) and dv.error.startswith(f"{key} must be")
                assert "0 only" not in note
            else:
                assert (dv.type, dv.formula1, dv.allowBlank) == ("custom", f"{ref}=0", False), key
                assert dv.showErrorMessage and "LibreOffice" in dv.error and "SPEC" in dv.error
                assert len(dv.error) <= 255 and len(dv.prompt) <= 255  # Excel's limits on the texts
                assert "0 only" in note
    ((_, ref),) = wb.defined_names["inp_debt_fraction"].destinations
    assert rules[ref.replace("$", "")].formula1 != f"{ref.replace('$', '')}=0"
    # the rows read their own columns absolutely with the waterfall only
    first = HEAD_ROW + 2  # the first scenario's row
    texts = [c.value for c in wb["Scenarios"][first] if isinstance(c.value, str) and c.value.startswith("=")]
    own = [t for t in texts if re.search(rf"\$[A-Z]{{1,3}}\${first}(?!\d)", t)]
    rel = [t for t in texts if re.search(rf"\$[A-Z]{{1,3}}{first}(?!\d)", t)]
    assert (bool(own), bool(rel)) == ((True, False) if waterfall else (False, True))


#: a lender's SPEC with the whole waterfall: two systems (two rows: in LibreOffice 7.4 a formula
#: group per column, were the rows' references relative) on the lender's book (sculpted, 3-month
#: grace, 6-month reserve, 50% sweep, lock-up below 1.3x, a fee, carried losses) by month
LENDER_WATERFALL = {
    "grid": {"system": ["H100_HGX", "GB200_NVL72"]},
    "fixed": {
        **BOOKS["month_lender_waterfall"],
        "mfu": 0.5,
        "rent_usd_per_gpu_hour": 3.0,
        "build_months": 6,
        "ramp_months": 3,
    },
}


@requires_soffice
def test_libreoffice_threaded_and_the_engine_compute_a_lender_waterfall_spec_equal_to_python(
    tmp_path, monkeypatch
):
    """LibreOffice 7.4 as installed (its default profile: threaded calculation of formula groups
    on) and gputco's engine compute every row of a two-row lender SPEC with a reserve, sweep and
    lock-up, its Sensitivity cases too, equal to Python (udfs.project.results through
    scenario.evaluate) to 1e-9. With the rows' references relative, LibreOffice read the first
    row's scheduled interest as 0 from its second repayment month (docs/scenarios.md, measured
    2026-12-07 with LibreOffice 7.4.7.2: 16 results of the first row off); a SPEC with the
    waterfall has its rows read their own row absolutely (Layout.absolute_rows). LibreOffice runs
    within the default memory budget (libreoffice_memory_mb, 4 GiB: 2 GiB refused it)."""
    monkeypatch.delenv("GPUTCO_LIBREOFFICE_MEMORY_MB", raising=False)
    spec = parse_spec(LENDER_WATERFALL)
    assert spec.base["sweep_fraction"] == 0.5 and spec.base["dsra_months"] == 6 and spec.waterfall
    src = unrecalculated(spec, tmp_path / "waterfall.xlsx")
    threaded = _read(recalculate(src, tmp_path / "threaded"))
    assert _mismatches(spec, threaded) == []
    ours = _read(write_scenarios(spec, tmp_path / "engine.xlsx").path)
    assert _mismatches(spec, ours) == []
    # the waterfall is there: each row's equity IRR is a number, and the rows differ
    irr = [threaded[f"scenario:{i}:equity_irr"] for i in range(2)]
    assert all(isinstance(v, float) for v in irr) and irr[0] != irr[1]
