"""`gputco scenarios` writes its big blocks once, formulas with values (recalc's fill_blocks): the
file must be the one the recalculation of the written rows gives, and every stored value the
engine's value of that formula (so Excel and openpyxl readers see computed numbers)."""

from __future__ import annotations

import datetime
import functools
import math
import zipfile

import openpyxl
from openpyxl.utils.datetime import to_excel

from gputco.udfs import UDFS
from gputco.workbook.recalc import evaluate_workbook as _evaluate_workbook
from gputco.workbook.recalc import recalc_file as _recalc_file
from gputco.workbook.scenarios.build import write_scenarios
from gputco.workbook.scenarios.spec import parse_spec

#: gputco's TCO_ functions handed in, as the command line and gputco's workbooks do
evaluate_workbook = functools.partial(_evaluate_workbook, functions=UDFS)
recalc_file = functools.partial(_recalc_file, functions=UDFS)


SPEC = {
    "grid": {"system": ["H100_HGX", "GB200_NVL72"], "mfu": [0.4, 0.5], "usd_per_kwh": [0.05, 0.12]},
    "monte_carlo": {
        "draws": 30,
        "seed": 3,
        "mfu": {"dist": "triangular", "low": 0.35, "mode": 0.45, "high": 0.55},
    },
}


def test_one_pass_gives_the_recalculated_file_byte_for_byte(tmp_path):
    """Recalculating the written file (every formula evaluated again, every value patched in)
    changes no byte: the one pass wrote what a full recalculation writes. (The old writer, rows
    with empty values and then the whole file recalculated, was compared the same way before it
    was deleted.)"""
    new, again = tmp_path / "new.xlsx", tmp_path / "again.xlsx"
    write_scenarios(parse_spec(SPEC), new)
    report = recalc_file(new, again, engine="gputco")
    assert report.cells > 8 * 30
    with zipfile.ZipFile(new) as a, zipfile.ZipFile(again) as b:
        assert a.namelist() == b.namelist()
        differ = [n for n in a.namelist() if a.read(n) != b.read(n)]
    assert differ == []


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
        if isinstance(got, datetime.datetime):  # a date format (Summary's "as of"): its serial
            got = to_excel(got)
        if isinstance(value, float):
            assert math.isclose(got, value, rel_tol=0, abs_tol=0), (sheet, ref, got, value)
        else:
            assert str(got) == str(value), (sheet, ref, got, value)
    scn = stored["Scenarios"]
    keys = [c.value for c in scn[5]]
    assert scn.cell(row=6, column=keys.index("usd_per_mtok") + 1).value > 0
