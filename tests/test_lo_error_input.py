"""An error in an input cell of a TCO_ function, in LibreOffice and in gputco's engine.

Excel calls an xlwings function with the error, and gputco's xlwings layer answers with the text
"#N/A in argument mfu" (tests/test_xlwings_call_udf.py). LibreOffice does not call a Basic
function whose argument is an error: the cell shows the input's own error (#N/A, #DIV/0!), as its
built-in functions do, whatever the add-in would answer; gputco's engine (``gputco recalc``)
follows LibreOffice there (workbook/recalc/udf.py). This pins the difference, live and
as recorded in tests/data/lo_probes.json (set "error_input"), and the README says what each host
shows.
"""

from __future__ import annotations

import openpyxl
import pytest
from lo import requires_soffice
from lo_record import Err, recorded, same, verify_or_refresh

from gputco.udfs import UDFS
from gputco.workbook.recalc import evaluate_workbook
from gputco.workbook.soffice import session

SET = "error_input"
CELLS = {
    "A1": "=NA()",
    "B1": "=TCO_COST_PER_MTOK(1.42,1.07899E+12,1978.9,A1)",
    "C1": "=ISTEXT(B1)",
    "A2": "=1/0",
    "B2": "=TCO_COST_PER_MTOK(1.42,1.07899E+12,1978.9,A2)",
    "B3": "=TCO_COST_PER_MTOK(1.42,1.07899E+12,1978.9,0.5)",
}


@pytest.fixture(scope="module")
def book(tmp_path_factory):
    path = tmp_path_factory.mktemp("errin") / "errors.xlsx"
    wb = openpyxl.Workbook()
    for ref, formula in CELLS.items():
        wb.active[ref] = formula
    wb.save(path)
    return path


def keyed(values: dict) -> dict:
    return {f"Sheet!{ref}": values.get(ref) for ref in CELLS}


def test_the_engine_shows_the_inputs_error_as_libreoffice_does(book):
    got = keyed({ref: v for (_sheet, ref), v in evaluate_workbook(book, functions=UDFS).items()})
    rec = recorded(SET)
    for key in ("Sheet!B1", "Sheet!B2", "Sheet!C1", "Sheet!B3"):
        assert same(got[key], rec[key]), (key, got[key], rec[key])


def test_libreoffice_shows_the_inputs_own_error_as_recorded():
    rec = recorded(SET)
    assert same(rec["Sheet!B1"], Err("#N/A")) and same(rec["Sheet!B2"], Err("#DIV/0!"))
    assert rec["Sheet!C1"] is False
    assert same(rec["Sheet!B3"], 0.43013958371935)  # the add-in computes valid input


@requires_soffice
def test_libreoffice_live_equals_the_recording(book, tmp_path):
    out = session.convert(book, tmp_path, "xlsx", profile=tmp_path / "profile")
    ws = openpyxl.load_workbook(out, data_only=True).active
    live = keyed({ref: ws[ref].value for ref in CELLS})
    assert verify_or_refresh(SET, live) == []
