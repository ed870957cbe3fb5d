"""One name, one meaning (issue 40, step 3; docs/project.md "Which NPV is which").

The chain's paid-in-cash results (the yearly table: ``npv_usd_per_gpu``, ``irr``...) and the
cluster project's (its period table: ``project_npv_usd_per_gpu``, ``project_irr``...) carry
different names on every route. The oracle here is the other route: for drawn projects (build,
ramp, contracts, MACRS and bonus, debt; by year and by month) the finance workbook recalculated by
gputco's engine and ``gputco batch`` run on the same inputs give the same number under every name
both have, and the drawn cases are ones where the paid-in-cash and the project's NPV differ, so a
name that meant one number on one route and the other elsewhere would fail. Old names are refused
with an error that names the new one.
"""

from __future__ import annotations

import csv
import math
import re
from pathlib import Path

import numpy as np
import openpyxl
import pytest
from project_cases import BOOKS, MEMO_BOOK, REL, SYSTEMS, system_terms

from gputco.udfs import chain, project, scenario, yearflows
from gputco.udfs.errors import RenamedError, UnknownNameError
from gputco.workbook.batch.errors import BatchError
from gputco.workbook.batch.run import run_batch
from gputco.workbook.finance.build import build_workbook, fill_cached_values

#: the memo case of docs/project.md (System 1 GB200 NVL72 racks, System 2 H100 servers)
MEMO = MEMO_BOOK
MEMO_SYSTEMS = {
    "GB200_NVL72": {"gpus": 1152, "rent_usd_per_gpu_hour": 4.0, "build_months": 12, "ramp_months": 3},
    "H100_HGX": {"gpus": 2048, "rent_usd_per_gpu_hour": 2.0, "build_months": 12, "ramp_months": 3},
}


def _drawn(name: str, seed: int) -> tuple[dict, list[tuple[str, dict]]]:
    """(inputs set once, [(system, its inputs)]) of a drawn case of tests/project_cases.py."""
    from gputco.workbook.finance.inputs import default_rent

    rng = np.random.default_rng(seed)
    fixed = dict(BOOKS[name])
    year = fixed["periods"] == "year"
    columns = []
    for system in SYSTEMS:
        rent = default_rent(system) * float(rng.uniform(0.9, 1.3))
        values = system_terms(rng, rent, year, fixed.get("life_years", 5), blanks=True)
        values["mfu"] = round(float(rng.uniform(0.3, 0.6)), 4)
        columns.append((system, {k: v for k, v in values.items() if v is not None}))
    return fixed, columns


CASES = {
    "year_debt_macrs5_bonus": _drawn("year_debt_macrs5_bonus", 401),
    "month_debt_macrs7": _drawn("month_debt_macrs7", 402),
    "memo": (MEMO, [(s, {**v, "mfu": 0.5}) for s, v in MEMO_SYSTEMS.items()]),
}


def _finance(path: Path, fixed: dict, columns: list[tuple[str, dict]]) -> dict[str, object]:
    """The finance workbook of the case, recalculated by gputco's engine: every ``out_`` name."""
    wb = build_workbook([s for s, _ in columns], fixed["buyer"])

    def put(name: str, value) -> None:
        ((sheet, ref),) = wb.defined_names[name].destinations
        wb[sheet][ref.replace("$", "")] = value

    for key, value in fixed.items():
        if key != "buyer":
            put(f"inp_{key}", value)
    for k, (_system, values) in enumerate(columns, start=1):
        for key, value in values.items():
            put(f"inp_{key}_{k}", value)
    wb.save(path)
    fill_cached_values(path)
    book = openpyxl.load_workbook(path, data_only=True)
    out = {}
    for name, dn in book.defined_names.items():
        if name.startswith("out_"):
            ((sheet, ref),) = dn.destinations
            out[name] = book[sheet][ref.replace("$", "")].value
    return out


def _batch(tmp: Path, fixed: dict, columns: list[tuple[str, dict]]) -> list[dict[str, str]]:
    """``gputco batch`` of the case: one row per system column, as the workbook's inputs."""
    rows = [{"system": s, **fixed, **values} for s, values in columns]
    names = list(dict.fromkeys(k for r in rows for k in r))
    src, dst = tmp / "in.csv", tmp / "out.csv"
    with src.open("w", newline="") as f:
        w = csv.DictWriter(f, names)
        w.writeheader()
        w.writerows(rows)
    run_batch(src, dst)
    with dst.open(newline="") as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="module")
def routes(tmp_path_factory) -> dict[str, tuple[dict, list[dict]]]:
    out = {}
    for name, (fixed, columns) in CASES.items():
        tmp = tmp_path_factory.mktemp(name)
        out[name] = (_finance(tmp / "finance.xlsx", fixed, columns), _batch(tmp, fixed, columns))
    return out


def _same(workbook, batch: str, key: str) -> bool:
    """One number: equal to 1e-9 relative (an IRR: 1e-7, Excel's IRR stops there); no number on
    either side (empty in batch, a text saying why in the workbook) on both."""
    if batch == "":
        return isinstance(workbook, str)
    if not isinstance(workbook, int | float) or isinstance(workbook, bool):
        return False
    rel = 1e-7 if key.endswith("irr") else REL
    return math.isclose(workbook, float(batch), rel_tol=rel, abs_tol=1e-9)


@pytest.mark.parametrize("name", list(CASES))
def test_the_finance_workbooks_and_batchs_columns_of_one_name_are_one_number(routes, name):
    finance, rows = routes[name]
    names = {re.sub(r"_\d+$", "", n[4:]) for n in finance}
    common = [c for c in rows[0] if c in names]
    # the names both routes give: the chain's outputs that do not read the cash flows, the
    # project's NPV and IRR, the equity's, the lender's and the cluster totals
    assert {"tco_usd_per_gpu_hour", "usd_per_mtok", "project_npv_usd_per_gpu", "project_irr"} <= set(common)
    assert {"equity_irr", "min_dscr", "llcr", "debt_usd_per_gpu", "cluster_npv_usd"} <= set(common)
    # the paid-in-cash results are the finance workbook's alone
    paid = [k for k in chain.PROJECT_NAMED if chain.step(k).output]
    assert not set(paid) & set(rows[0]) and all(f"out_{k}_1" in finance for k in paid)
    bad = [
        (k, key, finance[f"out_{key}_{k}"], row[key])
        for k, row in enumerate(rows, start=1)
        for key in common
        if not _same(finance[f"out_{key}_{k}"], row[key], key)
    ]
    assert bad == [], bad[:10]
    # the cases tell the two apart: where the project has a build, a ramp or MACRS, the
    # paid-in-cash NPV (the yearly table) is another number than the project's
    differ = [
        k
        for k in range(1, len(rows) + 1)
        if not math.isclose(
            finance[f"out_npv_usd_per_gpu_{k}"], float(rows[k - 1]["project_npv_usd_per_gpu"])
        )
    ]
    assert len(differ) >= len(rows) - 1, differ


def test_the_memo_figures_of_docs_project_md(routes):
    """docs/project.md "Which NPV is which": paid in cash against the project on the memo case."""
    finance, rows = routes["memo"]

    def both(key, digits):
        return [round(float(finance[f"out_{key}_{k}"]), digits) for k in (1, 2)]

    assert both("npv_usd_per_gpu", 0) == [32357, 8523]
    assert both("project_npv_usd_per_gpu", 0) == [23260, 4233]
    assert both("payback_years", 2) == [2.13, 2.66]
    assert [round(float(r["project_payback_years"]), 2) for r in rows] == [3.21, 3.73]
    assert both("breakeven_rent_usd_per_gpu_hour", 2) == [2.61, 1.63]
    assert [round(float(r["project_breakeven_rent_usd_per_gpu_hour"]), 2) for r in rows] == [2.88, 1.80]
    text = (Path(__file__).resolve().parents[1] / "docs" / "project.md").read_text()
    for figure in ("$32,357", "$8,523", "2.13 and 2.66", "$2.61 and", "$23,260", "3.21 and 3.73", "$2.88"):
        assert figure in text, figure


def test_the_project_names_are_the_steps_the_project_computes():
    """PROJECT_NAMED holds the steps the evaluator computes from the project's flows (the
    kernels of udfs/yearflows.py and the steps on them) and every output step that reads the
    yearly table; the scenario outputs carry them under project_ names only."""
    assert set(yearflows.FROM_FLOWS) <= set(chain.PROJECT_NAMED)
    assert all(chain.reads_year_table(k) for k in chain.PROJECT_NAMED)
    assert {s.key for s in chain.STEPS if s.output and chain.reads_year_table(s.key)} <= set(
        chain.PROJECT_NAMED
    )
    outputs = set(scenario.OUTPUTS)
    assert {f"project_{k}" for k in chain.PROJECT_NAMED if chain.step(k).output} <= outputs
    assert not outputs & set(chain.PROJECT_NAMED)
    assert {project.PROJECT_NPV, project.PROJECT_IRR, project.PROJECT_PAYBACK} <= outputs


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("npv_usd_per_gpu", "project_npv_usd_per_gpu"),
        ("IRR", "project_irr"),
        ("payback_years", "project_payback_years"),
        ("breakeven_rent_usd_per_gpu_hour", "project_breakeven_rent_usd_per_gpu_hour"),
        ("breakeven_utilisation", "project_breakeven_utilisation"),
        ("breakeven_rent_why", "project_breakeven_rent_why"),
    ],
)
def test_an_old_batch_column_is_refused_naming_the_new_one(tmp_path, old, new):
    """A results file of an earlier gputco run again: its old result column is an error naming
    the new one (case-insensitively, as every column), and nothing is written."""
    src = tmp_path / "in.csv"
    src.write_text(f"system,mfu,rent_usd_per_gpu_hour,{old}\nH100_HGX,0.5,2.0,1.0\n")
    with pytest.raises((BatchError, UnknownNameError)) as err:
        run_batch(src, tmp_path / "out.csv")
    assert f"'{old}' is now '{new}'" in str(err.value) and "Which NPV is which" in str(err.value)
    assert not (tmp_path / "out.csv").exists()


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("npv_usd_per_gpu", "project_npv_usd_per_gpu"),
        ("irr", "project_irr"),
        ("payback_years", "project_payback_years"),
    ],
)
def test_an_old_result_name_in_python_is_refused_naming_the_new_one(old, new):
    values = {
        "capex_per_gpu": 31250.0,
        "rent_usd_per_gpu_hour": 2.0,
        "opex_usd_per_gpu_hour": 0.4045,
        "life_years": 5.0,
        "cost_of_capital": 0.1,
    }
    with pytest.raises(RenamedError, match=f"'{old}' is now '{new}'"):
        project.results(values, (old,))
    got = project.results(values)
    assert math.isfinite(got[new][0])
    with pytest.raises(KeyError, match=f"'{old}' is now '{new}'"):
        got[old]
    out = scenario.evaluate({"system": "H100_HGX", "mfu": 0.5, "rent_usd_per_gpu_hour": 2.0})
    assert math.isfinite(out[new][0])
    with pytest.raises(KeyError, match=f"'{old}' is now '{new}'"):
        out[old]
    with pytest.raises(UnknownNameError, match="unknown project result 'npv'"):
        project.results(values, ("npv",))
