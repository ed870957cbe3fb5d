"""Database functions (functions/database.py) against Microsoft and LibreOffice.

The data is Microsoft's example of the database functions' pages (an orchard: Tree, Height,
Age, Yield, Profit in A4:E10 of the DB sheet, criteria in A1:F3 typed as the pages do,
``="=Apple"``); the results are the pages' own. Further probes (field by position, wildcards,
begins-with texts, no criteria rows, DGET of one record, documented errors) are compared with
LibreOffice's recorded answers (see tests/family_probes.py).
"""

from __future__ import annotations

import numpy as np
import pytest
from family_probes import FamilyProbes
from recalc_book import ms

from gputco.workbook.recalc.base.errors import UnsupportedValue
from gputco.workbook.recalc.functions import database

ORCHARD = [
    ["Tree", "Height", "Age", "Yield", "Profit", "Height"],
    ['="=Apple"', ">10", None, None, None, "<16"],
    ['="=Pear"'],
    ["Tree", "Height", "Age", "Yield", "Profit"],
    ["Apple", 18, 20, 14, 105],
    ["Pear", 12, 12, 10, 96],
    ["Cherry", 13, 14, 9, 105],
    ["Apple", 14, 15, 10, 75],
    ["Pear", 9, 8, 8, 76.8],
    ["Apple", 8, 9, 6, 45],
    [],
    ["Tree", "Age"],  # A12:B13: wildcard and begins-with criteria
    ["P*", ">10"],
    [],
    ["Tree"],  # A15:A16: a bare text selects the texts beginning with it
    ["Ch"],
    [],
    ["Yield"],  # A18:A19: an equality with a number
    [10],
    [],
    ["Bogus"],  # A21:A22: a label that is not the database's (computed criteria)
    [1],
]
SHEETS = {"DB": ORCHARD}
DB = "DB!A4:E10"

MICROSOFT = [
    (f'=DCOUNT({DB},"Age",DB!A1:F2)', "1", ms("dcount")),
    (f'=DCOUNTA({DB},"Profit",DB!A1:F2)', "1", ms("dcounta")),
    (f'=DMAX({DB},"Profit",DB!A1:A3)', "105", ms("dmax")),
    (f'=DMIN({DB},"Profit",DB!A1:B2)', "75", ms("dmin")),
    (f'=DSUM({DB},"Profit",DB!A1:A2)', "225", ms("dsum")),
    (f'=DSUM({DB},"Profit",DB!A1:F2)', "75", ms("dsum")),
    (f'=DPRODUCT({DB},"Yield",DB!A1:F2)', "10", ms("dproduct")),
    (f'=DAVERAGE({DB},"Yield",DB!A1:B2)', "12", ms("daverage")),
    (f"=DAVERAGE({DB},3,{DB})", "13", ms("daverage")),
    (f'=DSTDEV({DB},"Yield",DB!A1:A3)', "2.97", ms("dstdev")),
    (f'=DSTDEVP({DB},"Yield",DB!A1:A3)', "2.65", ms("dstdevp")),
    (f'=DVAR({DB},"Yield",DB!A1:A3)', "8.8", ms("dvar")),
    (f'=DVARP({DB},"Yield",DB!A1:A3)', "7.04", ms("dvarp")),
    (f'=DGET({DB},"Yield",DB!A1:A3)', "#NUM!", ms("dget")),
]
PROBES = [
    f"=DSUM({DB},5,DB!A1:A3)",
    f'=DSUM({DB},"profit",DB!A1:A3)',
    f'=DSUM({DB},"Nope",DB!A1:A3)',
    f"=DSUM({DB},6,DB!A1:A3)",
    f"=DSUM({DB},0,DB!A1:A3)",
    f"=DCOUNT({DB},,DB!A1:A3)",
    f"=DCOUNTA({DB},,DB!A12:B13)",
    f'=DSUM({DB},"Profit",DB!A12:B13)',
    f'=DGET({DB},"Profit",DB!A12:B13)',
    f'=DGET({DB},"Height",DB!A15:A16)',
    f'=DGET({DB},"Tree",DB!A18:A19)',
    f'=DCOUNT({DB},"Tree",DB!A18:A19)',
    f'=DCOUNTA({DB},"Tree",DB!A18:A19)',
    f'=DAVERAGE({DB},"Yield",DB!A15:A16)',
    f'=DMAX({DB},"Yield",DB!A1:B1)',
    f'=DAVERAGE({DB},"Tree",DB!A1:A3)',
    f'=DMAX({DB},"Tree",DB!A1:A3)',
    f'=DSTDEV({DB},"Yield",DB!A15:A16)',
    f'=DVARP({DB},"Yield",DB!A15:A16)',
    f'=DGET({DB},"Yield",DB!A12:A13)',
    '=DSUM(DB!A4:E4,"Profit",DB!A1:A3)',
]
#: Microsoft's "Filter by using advanced criteria" page (the criteria ranges the database
#: functions take): a text typed without "=" selects the texts beginning with it ("Sm" finds
#: Smith); LibreOffice 7.4 matches whole cells. "Ch" selects the one Cherry record: Height 13,
#: Yield 9, one value (a sample deviation needs two)
BEGINS = "Microsoft: a bare text criterion selects texts beginning with it (LibreOffice: whole cells)"
EXCEL_NOT_LO = {
    f'=DGET({DB},"Yield",DB!A1:A3)': ("#NUM!", "Microsoft's DGET example: several records"),
    f'=DGET({DB},"Tree",DB!A18:A19)': ("#NUM!", "Microsoft: DGET of several records (LibreOffice #VALUE!)"),
    f'=DGET({DB},"Yield",DB!A12:A13)': ("#NUM!", "Microsoft: DGET of several records (LibreOffice #VALUE!)"),
    f'=DGET({DB},"Height",DB!A15:A16)': (13.0, BEGINS),
    f'=DAVERAGE({DB},"Yield",DB!A15:A16)': (9.0, BEGINS),
    f'=DSTDEV({DB},"Yield",DB!A15:A16)': ("#DIV/0!", BEGINS),
    f'=DVARP({DB},"Yield",DB!A15:A16)': (0.0, BEGINS),
}


class TestDatabase(FamilyProbes):
    SET = "database"
    MICROSOFT = MICROSOFT
    PROBES = PROBES
    EXCEL_NOT_LO = EXCEL_NOT_LO
    SHEETS = SHEETS


def test_computed_criteria_are_reported_not_guessed():
    """Microsoft's criteria ranges may hold a formula under a label that is not the database's
    (evaluated for every record): not modelled, so the cell keeps its stored value."""
    db = np.array([["Tree", "Yield"], ["Apple", 1.0]], dtype=object)
    with pytest.raises(UnsupportedValue, match="computed criteria"):
        database._selected(db, np.array([["Bogus"], [1.0]], dtype=object))


@pytest.mark.parametrize(
    "formula", ['=DCOUNT("Y",1,1)', "=DCOUNTA(-2.5,1,{0.5})", f"=DSUM({DB},1,5)", "=DSUM(5,1,DB!A1:A2)"]
)
def test_a_database_or_criteria_that_is_no_range_is_value_error(tmp_path, formula):
    """Microsoft's pages: database is "the range of cells that makes up the list or database",
    criteria "the range of cells that contains the conditions"; a single value is neither, and
    LibreOffice 7.4 answers #VALUE! to the first two (the differential fuzzer, seed 1000), where
    the engine counted a database without records (0)."""
    import openpyxl

    from gputco.workbook.recalc import evaluate_workbook

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "DB"
    for r, row in enumerate(ORCHARD, start=1):
        for c, v in enumerate(row, start=1):
            ws.cell(r, c).value = v
    ws["H1"] = formula
    wb.save(tmp_path / "db.xlsx")
    assert str(evaluate_workbook(tmp_path / "db.xlsx", functions={})[("DB", "H1")]) == "#VALUE!"
