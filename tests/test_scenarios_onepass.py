"""`gputco scenarios` writes its big blocks once, formulas with values (scenarios/onepass.py): the
file must be the one the recalculation of the written rows gives, and every stored value the
engine's value of that formula (so Excel and openpyxl readers see computed numbers)."""

from __future__ import annotations

import math
import zipfile

import openpyxl

from gputco.workbook.recalc import evaluate_workbook
from gputco.workbook.scenarios.build import _fill_then_recalc, _write, write_scenarios
from gputco.workbook.scenarios.spec import parse_spec

SPEC = {
    "grid": {"system": ["H100_HGX", "GB200_NVL72"], "mfu": [0.4, 0.5], "usd_per_kwh": [0.05, 0.12]},
    "monte_carlo": {
        "draws": 30,
        "seed": 3,
        "mfu": {"dist": "triangular", "low": 0.35, "mode": 0.45, "high": 0.55},
    },
}


def test_one_pass_gives_the_recalculated_file_byte_for_byte(tmp_path):
    new, old = tmp_path / "new.xlsx", tmp_path / "old.xlsx"
    write_scenarios(parse_spec(SPEC), new)
    _write(parse_spec(SPEC), old, False, None, _fill_then_recalc)
    with zipfile.ZipFile(new) as a, zipfile.ZipFile(old) as b:
        assert a.namelist() == b.namelist()
        differ = [n for n in a.namelist() if a.read(n) != b.read(n)]
    assert differ in ([], ["docProps/core.xml"])  # that one holds the time of writing


def test_every_stored_value_is_the_formulas_value(tmp_path):
    path = tmp_path / "s.xlsx"
    result = write_scenarios(parse_spec(SPEC), path)
    computed = evaluate_workbook(path)
    stored = openpyxl.load_workbook(path, data_only=True)
    assert len(computed) == result.recalc_report.cells > 8 * 30
    for (sheet, ref), value in computed.items():
        got = stored[sheet][ref].value
        if value == "" and got is None:  # openpyxl reads a stored empty text as None
            continue
        if isinstance(value, float):
            assert math.isclose(got, value, rel_tol=0, abs_tol=0), (sheet, ref, got, value)
        else:
            assert str(got) == str(value), (sheet, ref, got, value)
    scn = stored["Scenarios"]
    keys = [c.value for c in scn[5]]
    assert scn.cell(row=6, column=keys.index("usd_per_mtok") + 1).value > 0
