"""The model chain (udfs/chain.py) is the one description of the model: its formulas read what its
numpy functions read, every workbook formula and batch column comes from it, and a step added to
it appears everywhere with no edit to a sheet module."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from installed import editable_checkout

from gputco.addin.chain_docs import PAGE, render
from gputco.udfs import chain, ranges
from gputco.udfs.errors import MissingValueError, UnknownNameError
from gputco.udfs.registry import SPECS, udf_call

ROOT = Path(__file__).resolve().parents[1]


def test_each_step_formula_reads_exactly_its_function_arguments():
    known = {i.key for i in chain.INPUTS} | {"year"} | {s.key for s in chain.STEPS}
    for y in chain.YEAR_STEPS:  # the per-year table reads scalars, earlier columns and itself
        reads_itself = f"<{y.key}@prev>" in y.formula
        assert set(chain.operands(y.formula)) == set(y.args) | ({y.key} if reads_itself else set()), y.key
        assert all(a in known for a in y.args), y.key
        known.add(y.key)
    known = {i.key for i in chain.INPUTS} | {y.key for y in chain.YEAR_STEPS}
    for s in chain.STEPS:
        assert set(chain.operands(s.formula)) == set(s.args), s.key
        assert all(a in known for a in s.args), (s.key, [a for a in s.args if a not in known])
        known.add(s.key)  # later steps may read it


def test_every_numeric_input_has_a_range_and_every_check_names_real_arguments():
    for i in chain.INPUTS:
        if i.kind == "number":
            assert i.key in ranges.RANGES, i.key
    for s in chain.STEPS:
        if s.check:
            names = {a.name for a in SPECS[s.check.udf].args}
            assert set(s.check.bind) <= names, s.key


def test_the_checked_in_chain_page_is_what_the_generator_writes():
    # on failure: run `python -m gputco.addin.chain_docs` and commit docs/chain.md
    checked_in = Path(__file__).resolve().parents[1] / "docs" / "chain.md"
    if editable_checkout() == ROOT:  # pip recorded an editable install of this checkout
        assert PAGE == checked_in  # its default output is the checked-in page
    assert checked_in.read_text(encoding="utf-8") == render()


def test_udf_calls_are_built_by_argument_name():
    operands = {
        "capex_per_gpu": "X",
        "cost_of_capital": "A",
        "life_years": "B",
        "it_kw_per_gpu": "C",
        "pue": "D",
        "usd_per_kwh": "E",
        "colo_usd_per_kw_month": "F",
    }
    backwards = dict(reversed(operands.items()))
    assert udf_call("TCO_TOTAL_PER_GPU_HOUR", **backwards) == "TCO_TOTAL_PER_GPU_HOUR(X,A,B,C,D,E,F)"
    # an optional argument between given ones is left empty, a trailing one is left out
    given = {**backwards, "other_usd_per_gpu_hour": "G"}
    assert udf_call("TCO_TOTAL_PER_GPU_HOUR", **given) == "TCO_TOTAL_PER_GPU_HOUR(X,A,B,C,D,E,F,,G)"
    with pytest.raises(UnknownNameError, match="kwh"):
        udf_call("TCO_POWER_PER_GPU_HOUR", it_kw_per_gpu="C", pue="D", kwh="E")
    with pytest.raises(MissingValueError, match="usd_per_kwh"):
        udf_call("TCO_POWER_PER_GPU_HOUR", it_kw_per_gpu="C", pue="D")


def test_pmt_and_the_unit_constants_appear_only_in_the_chain():
    """Every step formula is written once: outside udfs/chain.py (and the engine's own PMT), no
    Python source builds a formula with PMT or a unit constant."""
    pattern = re.compile(
        r"PMT\(\[|[\"']=-?PMT\(|[*/+(-]k_(?:" + "|".join(name[2:] for name, *_ in chain.CONSTANTS) + r")\b"
    )
    found = []
    for path in [*ROOT.glob("udfs/**/*.py"), *ROOT.glob("workbook/**/*.py"), *ROOT.glob("addin/**/*.py")]:
        rel = path.relative_to(ROOT).as_posix()
        if rel == "udfs/chain.py" or rel.startswith("workbook/recalc/"):
            continue
        found += [
            f"{rel}:{n}" for n, line in enumerate(path.read_text().splitlines(), 1) if pattern.search(line)
        ]
    assert found == []
    assert (ROOT / "udfs/chain.py").read_text().count('"=-PMT([') == 1


TOY = r"""
import json, sys, tempfile, pathlib
import numpy as np
from gputco.udfs import chain

def usd_per_gpu_day(tco_usd_per_gpu_hour):
    return np.asarray(tco_usd_per_gpu_hour, dtype=float) * 24.0

chain.add_step(chain.Step(
    "usd_per_gpu_day", "TCO per GPU-day (toy)", "USD/GPU-day", "TCO per GPU-hour x 24",
    "=[tco_usd_per_gpu_hour]*24", usd_per_gpu_day, ("tco_usd_per_gpu_hour",), "Operating cost"))

import openpyxl
from gputco.udfs import scenario
from gputco.workbook.finance.build import write_template
from gputco.workbook.scenarios.build import parse_spec, write_scenarios
from gputco.workbook.batch.run import run_batch

out = {}
tmp = pathlib.Path(tempfile.mkdtemp())
write_template(tmp / "t.xlsx", ["H100_HGX", "GB200_NVL72"], "hyperscaler")
wb = openpyxl.load_workbook(tmp / "t.xlsx", data_only=True)
sheet, ref = next(iter(wb.defined_names["out_usd_per_gpu_day_2"].destinations))
model = wb["Model"]
keys = [c.value for c in model["A"]]
out["model_row"] = "usd_per_gpu_day" in keys
out["out_name"] = [sheet, wb[sheet][ref.replace("$", "")].value]
write_scenarios(parse_spec({"grid": {"system": ["H100_HGX", "GB200_NVL72"], "mfu": [0.5]}}),
                tmp / "s.xlsx")
ws = openpyxl.load_workbook(tmp / "s.xlsx", data_only=True)["Scenarios"]
head = [c.value for c in ws[5]]
col = head.index("usd_per_gpu_day")
out["scenarios"] = [r[col].value for r in ws.iter_rows(min_row=6)]
(tmp / "in.csv").write_text("system,mfu\nH100_HGX,0.5\nGB200_NVL72,0.5\n")
run_batch(tmp / "in.csv", tmp / "out.csv")
import csv
rows = list(csv.DictReader(open(tmp / "out.csv")))
out["batch"] = [float(r["usd_per_gpu_day"]) for r in rows]
out["numpy"] = [float(x) for x in scenario.evaluate(
    {"system": ["H100_HGX", "GB200_NVL72"], "mfu": [0.5, 0.5]})["usd_per_gpu_day"]]
out["tco"] = [float(x) for x in scenario.evaluate(
    {"system": ["H100_HGX", "GB200_NVL72"], "mfu": [0.5, 0.5]})["tco_usd_per_gpu_hour"]]
print(json.dumps(out))
"""


def test_a_step_added_to_the_chain_appears_everywhere_without_editing_a_sheet_module():
    """A toy result (TCO per GPU-day) added with chain.add_step, in a fresh interpreter: a Model
    row with its out_ name, a Scenarios column and a batch output column, all equal to its numpy
    function."""
    proc = subprocess.run([sys.executable, "-c", TOY], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    want = [t * 24 for t in out["tco"]]
    assert out["numpy"] == pytest.approx(want, rel=1e-15)
    assert out["model_row"] is True
    assert out["out_name"][0] == "Model" and out["out_name"][1] == pytest.approx(want[1], rel=1e-12)
    assert out["scenarios"] == pytest.approx(want, rel=1e-12)
    assert out["batch"] == pytest.approx(want, rel=1e-15)


def test_add_step_refuses_operands_that_are_not_its_arguments():
    with pytest.raises(ValueError, match="operands"):
        chain.add_step(
            chain.Step(
                "bad",
                "bad",
                "",
                "",
                "=[tco_usd_per_gpu_hour]*[pue]",
                abs,
                ("tco_usd_per_gpu_hour",),
                "Energy",
            )
        )
    with pytest.raises(ValueError, match="already"):
        chain.add_step(chain.step("usd_per_mtok"))
