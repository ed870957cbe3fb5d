"""The finance workbook's cluster project (workbook/finance/projectflows.py) in native formulas
equals the Python model, ``gputco.udfs.project.results`` and ``gputco.udfs.scenario.evaluate``,
to 1e-9 relative, by year and by month.

Four workbooks of five system columns each (20 projects) draw their inputs from a seeded
generator, with the structure fixed per workbook so that every feature is met: by year and by
month, debt with a build (interest capitalised) and without, MACRS 5 and 7 with and without
bonus, straight line, contracts shorter than the life, ramps, idle power and the opex lines.
A fifth workbook is the memo case of docs/project.md and the README. Each is recalculated by
gputco's engine and by LibreOffice; LibreOffice's values are recorded in
tests/data/lo_project_workbook.json, so that the comparison with Python also runs where
LibreOffice is absent (refresh: ``GPUTCO_LO_REFRESH=1 python -m pytest -q
tests/test_project_workbook.py -k live``).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import numpy_financial as npf
import openpyxl
import pytest
from lo import recalculate, requires_soffice
from lo_record import recorded, same, verify_or_refresh
from project_cases import BOOKS as CASE_BOOKS
from project_cases import REL, SYSTEMS, system_terms

from gputco.udfs import project, scenario
from gputco.workbook.finance import projectflows
from gputco.workbook.finance.build import build_workbook, fill_cached_values

RECORDING = Path(__file__).parent / "data" / "lo_project_workbook.json"
REGENERATE = "GPUTCO_LO_REFRESH=1 python -m pytest -q tests/test_project_workbook.py -k live"

#: the structure of each drawn workbook: the inputs set once per workbook, as Inputs names them
BOOKS = {
    name: {k if k == "buyer" else f"inp_{k}": v for k, v in fixed.items()}
    for name, fixed in CASE_BOOKS.items()
}

#: the memo case (docs/project.md): System 1 = 256 H100 servers, System 2 = 16 GB200 NVL72 racks
MEMO = {
    "buyer": "neocloud_giant",
    "inp_periods": "month",
    "inp_depreciation_method": "macrs_5",
    "inp_debt_fraction": 0.6,
    "inp_debt_rate": 0.09,
    "inp_debt_years": 4,
    "inp_tax_rate": 0.21,
    **{f"inp_{f}_{k}": v for k, v in ((1, 0.5), (2, 0.5)) for f in ("mfu",)},
    "inp_gpus_1": 2048,
    "inp_gpus_2": 1152,
    "inp_rent_usd_per_gpu_hour_1": 2.0,
    "inp_rent_usd_per_gpu_hour_2": 4.0,
    **{f"inp_build_months_{k}": 12 for k in (1, 2)},
    **{f"inp_ramp_months_{k}": 3 for k in (1, 2)},
}


def _drawn(name: str, seed: int) -> dict[str, object]:
    """A workbook's inputs: its structure (BOOKS) and per system column values drawn from ``seed``."""
    rng = np.random.default_rng(seed)
    fixed = BOOKS[name]
    year = fixed["inp_periods"] == "year"
    out: dict[str, object] = dict(fixed)
    out["inp_rent_decline_per_year"] = round(float(rng.uniform(0.0, 0.15)), 4)
    out["inp_opex_escalation_per_year"] = round(float(rng.uniform(0.0, 0.05)), 4)
    for k, system in enumerate(SYSTEMS, start=1):
        life = fixed.get("inp_life_years", 5)
        rent = project_rent(system) * float(rng.uniform(0.9, 1.3))
        values = system_terms(rng, rent, year, life, blanks=True)
        out.update({f"inp_{key}_{k}": v for key, v in values.items()})
    return out


def project_rent(system: str) -> float:
    from gputco.workbook.finance.inputs import default_rent

    rent = default_rent(system)
    assert rent is not None, system
    return rent


CASES = {**{name: _drawn(name, seed) for seed, name in enumerate(BOOKS, start=21)}, "memo": MEMO}


def _systems(name: str) -> tuple[str, ...]:
    return ("H100_HGX", "GB200_NVL72") if name == "memo" else SYSTEMS


def _write(path: Path, name: str) -> Path:
    inputs = CASES[name]
    wb = build_workbook(list(_systems(name)), str(inputs["buyer"]))
    for key, value in inputs.items():
        if key == "buyer":
            continue
        ((sheet, ref),) = wb.defined_names[key].destinations
        wb[sheet][ref.replace("$", "")] = value
    wb.save(path)
    return path


#: the Model rows read per system column: the project's results and every term of the project
READ = (*projectflows.RESULTS, *project.TERMS, *project.CHOICES, "cluster_gpus_installed")


def _read(path: Path, name: str) -> dict[str, object]:
    """{"<key>_<n>": value} of the Model rows of every system column (cached values)."""
    wb = openpyxl.load_workbook(path, data_only=True)
    ws = wb["Model"]
    rows = {ws.cell(row=r, column=1).value: r for r in range(1, ws.max_row + 1)}
    out = {}
    for k in range(1, len(_systems(name)) + 1):
        for key in READ:
            out[f"{key}_{k}"] = ws.cell(row=rows[key], column=3 + k).value
    ws = wb["Checks"]
    checks = [
        [c.value for c in row[:7]] for row in ws.iter_rows(min_row=8) if row[0].value in projectflows.CHECKS
    ]
    out["project_checks"] = checks
    return out


def _expected(name: str, got: dict[str, object], k: int) -> dict[str, float]:
    """The results of system column ``k`` by gputco.udfs.project.results, its terms the column's
    Model values (the chain's capex, opex, power, life... and the project inputs as used)."""
    values = {key: got[f"{key}_{k}"] for key in (*project.TERMS, *project.CHOICES)}
    out = {key: float(v[0]) for key, v in project.results(values).items() if not key.endswith("_why")}
    n = float(got[f"cluster_gpus_installed_{k}"])
    return {
        "project_npv_usd_per_gpu": out["project_npv_usd_per_gpu"],
        "project_irr": out["project_irr"],
        "equity_irr": out["equity_irr"],
        "equity_npv_usd_per_gpu": out["equity_npv_usd_per_gpu"],
        "min_dscr": out["min_dscr"],
        "peak_funding_usd_per_gpu": out["peak_funding_usd_per_gpu"],
        **{key: out[key] for key in ("avg_dscr", "llcr", "plcr", "dscr_breach_periods", "debt_usd_per_gpu")},
        "cluster_npv_usd": out["project_npv_usd_per_gpu"] * n,
        "cluster_equity_npv_usd": out["equity_npv_usd_per_gpu"] * n,
        "cluster_peak_funding_usd": out["peak_funding_usd_per_gpu"] * n,
    }


def _evaluated(name: str, k: int) -> dict[str, float]:
    """The same results by gputco.udfs.scenario.evaluate from the workbook's inputs (the chain
    from the presets, then the project)."""
    inputs = CASES[name]
    given: dict[str, object] = {"system": _systems(name)[k - 1], "buyer": inputs["buyer"]}
    for key, value in inputs.items():
        if value is None or key == "buyer":
            continue
        field = key[4:]
        if field.endswith(f"_{k}"):
            given[field[: -len(f"_{k}")]] = value
        elif not field[-1].isdigit():
            given[field] = value
    given.setdefault("mfu", 0.54)
    out = scenario.evaluate({key: v if isinstance(v, str) else [v] for key, v in given.items()})
    got = {key: float(v[0]) for key, v in out.items()}  # the finance workbook's names (one meaning)
    return {key: got[key] for key in projectflows.RESULTS}


def _mismatches(got: dict[str, object], name: str, want_of) -> list[str]:
    bad = []
    for k in range(1, len(_systems(name)) + 1):
        want = want_of(k)
        for key in projectflows.RESULTS:
            value, expected = got[f"{key}_{k}"], want[key]
            if math.isnan(expected):  # none: the workbook says why
                ok = value == (projectflows.NO_DEBT if key in project.NEED_DEBT else projectflows.NO_IRR)
            else:
                ok = isinstance(value, int | float) and math.isclose(
                    value, expected, rel_tol=REL, abs_tol=1e-9
                )
            if not ok:
                bad.append(f"{name} system {k} {key}: workbook {value!r}, Python {expected!r}")
    return bad


@pytest.fixture(scope="module")
def engine(tmp_path_factory) -> dict[str, dict[str, object]]:
    """The engine's values of every case."""
    where = tmp_path_factory.mktemp("project-engine")
    out = {}
    for name in CASES:
        path = _write(where / f"{name}.xlsx", name)
        fill_cached_values(path)
        out[name] = {**_read(path, name), "path": path}
    return out


def test_the_drawn_inputs_meet_every_feature():
    """The drawn workbooks hold what the test claims: both kinds of period, builds, ramps,
    contracts shorter than the life, debt with a build, MACRS and bonus."""
    drawn = [CASES[n] for n in BOOKS]
    assert {c["inp_periods"] for c in drawn} == {"year", "month"}
    assert {c["inp_depreciation_method"] for c in drawn} == set(project.DEPRECIATION_METHODS)
    cols = [(c, k) for c in drawn for k in range(1, len(SYSTEMS) + 1)]
    assert sum(c[f"inp_build_months_{k}"] > 0 and c.get("inp_debt_fraction", 0) > 0 for c, k in cols) >= 5
    assert sum(c[f"inp_ramp_months_{k}"] > 0 for c, k in cols) >= 10
    assert sum(c[f"inp_contract_years_{k}"] is not None for c, k in cols) >= 5
    assert any(c.get("inp_bonus_depreciation_fraction", 0) > 0 for c in drawn)
    assert len(cols) == len(SYSTEMS) * len(BOOKS)


@pytest.mark.parametrize("name", list(CASES))
def test_the_engine_equals_python(engine, name):
    got = engine[name]
    assert _mismatches(got, name, lambda k: _expected(name, got, k)) == []
    assert _mismatches(got, name, lambda k: _evaluated(name, k)) == []
    # the TCO_PROJECT_ functions on Checks agree with the native cells
    checks = got["project_checks"]
    assert len(checks) == len(projectflows.CHECKS) * len(_systems(name))
    assert [row for row in checks if row[6] is not True] == []
    assert sum(row[5] is True for row in checks) >= 4 * len(_systems(name))


@pytest.mark.parametrize("name", list(CASES))
def test_the_recorded_libreoffice_values_equal_python_and_the_engine(engine, name):
    rec = recorded(name, RECORDING)
    assert rec, f"no LibreOffice recording of {name}: {REGENERATE}"
    assert _mismatches(rec, name, lambda k: _expected(name, rec, k)) == []
    keys = [f"{key}_{k}" for key in projectflows.RESULTS for k in range(1, len(_systems(name)) + 1)]
    assert [key for key in keys if not same(rec[key], engine[name][key], REL)] == []


@requires_soffice
@pytest.mark.parametrize("name", list(CASES))
def test_libreoffice_live_equals_its_recording(tmp_path, name):
    path = recalculate(_write(tmp_path / f"{name}.xlsx", name), tmp_path / "lo")
    live = {k: v for k, v in _read(path, name).items() if k != "project_checks"}  # no add-in there
    assert _mismatches(live, name, lambda k: _expected(name, live, k)) == []
    assert verify_or_refresh(name, live, REL, RECORDING, REGENERATE) == []


def test_the_memo_case_of_the_readme(engine):
    """docs/project.md's memo case, from the workbook: System 1 = 256 H100 servers (2,048 GPUs),
    System 2 = 16 GB200 NVL72 racks (1,152 GPUs)."""
    got = engine["memo"]

    def both(key, scale=1.0, digits=2):
        return [round(float(got[f"{key}_{k}"]) / scale, digits) for k in (1, 2)]

    assert both("cluster_gpus_installed", digits=0) == [2048, 1152]
    assert both("project_irr", digits=4) == [0.1938, 0.2808]
    assert both("equity_irr", digits=4) == [0.3116, 0.4802]
    assert both("cluster_npv_usd", 1e6) == [8.67, 26.79]
    assert both("cluster_peak_funding_usd", 1e6) == [-27.62, -26.62]
    assert both("min_dscr", digits=3) == [0.112, 0.31]


def test_at_the_defaults_the_project_is_the_yearly_table(engine, tmp_path):
    """A generated workbook: the project's NPV and IRR are the yearly table's, the equity's the
    project's (no debt), no DSCR, the peak funding the capex."""
    path = tmp_path / "default.xlsx"
    build_workbook(list(SYSTEMS)).save(path)
    fill_cached_values(path)
    wb = openpyxl.load_workbook(path, data_only=True)
    ws = wb["Model"]
    rows = {ws.cell(row=r, column=1).value: r for r in range(1, ws.max_row + 1)}
    for k in range(1, len(SYSTEMS) + 1):

        def cell(key, k=k):
            return ws.cell(row=rows[key], column=3 + k).value

        assert math.isclose(cell("project_npv_usd_per_gpu"), cell("npv_usd_per_gpu"), rel_tol=1e-12)
        assert math.isclose(cell("project_irr"), cell("irr"), rel_tol=1e-9)
        assert cell("equity_irr") == cell("project_irr")
        assert cell("equity_npv_usd_per_gpu") == cell("project_npv_usd_per_gpu")
        assert cell("min_dscr") == projectflows.NO_DEBT
        assert cell("peak_funding_usd_per_gpu") == -cell("capex_per_gpu")
    assert wb["Checks"]["C4"].value is True


@pytest.mark.parametrize(("name", "ppy"), [("memo", 12), ("year_debt_macrs5_bonus", 1)])
def test_the_debt_schedule_is_numpy_financials_annuity(engine, name, ppy):
    """On the Cash flow sheets: the debt service of every repayment period is numpy-financial's
    pmt at the period rate on the balance at in-service (the drawn debt with the build's interest),
    the balance is 0 after the tenor, and the equity IRR is (1 + npf.irr of the periods)^ppy - 1."""
    got = engine[name]
    wb = openpyxl.load_workbook(got["path"], data_only=True)
    for k in range(1, len(_systems(name)) + 1):
        ws = wb[f"Cash flow {k}"]

        def column(key, ws=ws):
            c = projectflows.col(key)
            return np.array(
                [ws[f"{c}{r}"].value for r in range(projectflows.FIRST_ROW, projectflows.LAST_ROW + 1)], float
            )

        i = (1 + got[f"debt_rate_{k}"]) ** (1 / ppy) - 1
        tenor = round(got[f"debt_years_{k}"] * ppy)
        build = round(got[f"build_months_{k}"] * ppy / 12)
        owed = got[f"debt_fraction_{k}"] * got[f"capex_per_gpu_{k}"] * (1 + i) ** build
        service = column("service")
        paid = np.flatnonzero(service)
        assert paid.tolist() == list(range(build + 1, build + tenor + 1))
        assert service[paid] == pytest.approx(npf.pmt(i, tenor, -owed), rel=1e-12)
        assert abs(column("closing")[build + tenor]) < 1e-9 * owed
        monthly = npf.irr(column("equity"))
        assert got[f"equity_irr_{k}"] == pytest.approx((1 + monthly) ** ppy - 1, rel=1e-9)
