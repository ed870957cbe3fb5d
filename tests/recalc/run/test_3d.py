"""3-D references (``SUM(Jan:Mar!A1)``): the same cells on each sheet from the first to the last
in the workbook's order, taken by the functions Microsoft's "Create a 3-D reference to the same
cell range on multiple worksheets" lists (SUM, AVERAGE, AVERAGEA, COUNT, COUNTA, MAX, MAXA, MIN,
MINA, PRODUCT, STDEV*, VAR*); anywhere else (SUMPRODUCT, a bare ``=Jan:Mar!A1``) the cell is
unsupported, as is a span naming a sheet the workbook lacks.

Oracles: LibreOffice, live and recorded in tests/data/lo_3d.json (``GPUTCO_LO_REFRESH=1``
refreshes); where LibreOffice counts a boolean of a reference as a number, Excel's rule (its
COUNT page: only the numbers of a reference count) instead; the quoted form Excel writes for
sheet names with spaces (``'Jan:Q 2'!A1``: MS-OI29500 2.1.863, "sheet-range"; LibreOffice 7.4
does not read it: #NAME?) equals the
function over the sheets' references written one by one; and the Excel-saved POI files of
tests/data/excel_corpus (48703.xlsx, 55906-MultiSheetRefs.xlsx, FormulaSheetRange.xlsx:
tests/recalc/test_excel_corpus.py compares their 16 cells).
"""

from __future__ import annotations

from pathlib import Path

import openpyxl
import pytest
from lo import recalculate, requires_soffice
from lo import values as lo_values
from lo_record import recorded, same, verify_or_refresh
from recalc_book import formulas_in_a

from gputco.workbook.recalc import evaluate_workbook, recalc_file

RECORDING = Path(__file__).resolve().parents[2] / "data" / "lo_3d.json"
REFRESH = "GPUTCO_LO_REFRESH=1 python -m pytest -q tests/recalc/run/test_3d.py -k live"
SET = "3d"
SHEETS = ("Jan", "Feb", "Mar", "Q 2")

LO_PROBES = [
    "=SUM(Jan:Mar!A1)",
    "=SUM(Jan:Mar!A1:B2)",
    "=MAX(Jan:Mar!B1,100)",
    "=MIN(Jan:Mar!B1:B2)",
    "=PRODUCT(Jan:Feb!A1)",
    "=_xlfn.STDEV.S(Jan:Mar!A1)",
    "=AVERAGEA(Jan:Mar!A1:A2)",
    "=SUM(Mar:Jan!A1)",
    "=SUM(Jan:Jan!A1)",
    "=COUNT(Jan:Mar!A1:B2)",
    "=COUNTA(Jan:Mar!A2)",
]
#: Excel's answer where LibreOffice counts Mar!A2's TRUE as 1
EXCEL_NOT_LO = {
    "=SUM(Jan:Mar!A1:B2)": (61.5, "Excel's SUM ignores a reference's booleans (LibreOffice: 62.5)"),
    "=COUNT(Jan:Mar!A1:B2)": (9.0, "COUNT: only numbers of a reference (LibreOffice: 10)"),
}
#: the quoted form and the same function over each sheet's reference
IDENTITIES = [
    ("=AVERAGE('Feb:Q 2'!A1)", "=AVERAGE(Feb!A1,Mar!A1,'Q 2'!A1)"),
    ("=MIN('Jan:Q 2'!B1:B2)", "=MIN(Jan!B1:B2,Feb!B1:B2,Mar!B1:B2,'Q 2'!B1:B2)"),
    ("=COUNT('Jan:Q 2'!A1:B2)", "=COUNT(Jan!A1:B2,Feb!A1:B2,Mar!A1:B2,'Q 2'!A1:B2)"),
    ("=COUNTA('Jan:Q 2'!A2)", "=COUNTA(Jan!A2,Feb!A2,Mar!A2,'Q 2'!A2)"),
    ("=_xlfn.VAR.P('Jan:Q 2'!B1)", "=_xlfn.VAR.P(Jan!B1,Feb!B1,Mar!B1,'Q 2'!B1)"),
]
UNSUPPORTED = ["=SUMPRODUCT(Jan:Mar!A1)", "=Jan:Mar!A1", "=SUM('Jan:Nope'!A1)", "=SUM(Jan:Mar!A1)+Jan:Mar!A1"]
FORMULAS = LO_PROBES + [f for pair in IDENTITIES for f in pair] + UNSUPPORTED


@pytest.fixture(scope="module")
def book(tmp_path_factory) -> Path:
    wb = openpyxl.Workbook()
    for i, name in enumerate(SHEETS):
        ws = wb.create_sheet(name)
        ws["A1"], ws["B1"], ws["B2"] = 10.0 * (i + 1), i + 0.5, -float(i)
        ws["A2"] = {1: "x", 2: True}.get(i)
    return formulas_in_a(tmp_path_factory.mktemp("three_d") / "3d.xlsx", "F", FORMULAS, wb)


@pytest.fixture(scope="module")
def ours(book):
    got = evaluate_workbook(book, functions={}, unsupported="stored")
    return {f: got.get(("F", f"A{row}")) for row, f in enumerate(FORMULAS, start=1)}


@pytest.mark.parametrize("formula", LO_PROBES)
def test_matches_libreoffice_or_excel(ours, formula):
    lo = recorded(SET, RECORDING).get(formula, "<not recorded>")
    if formula in EXCEL_NOT_LO:
        want, why = EXCEL_NOT_LO[formula]
        assert same(want, ours[formula]) and not same(lo, want), (formula, ours[formula], lo, why)
        return
    assert same(lo, ours[formula]), f"{formula}: LibreOffice {lo!r}, gputco {ours[formula]!r}"


@pytest.mark.parametrize("three_d, one_by_one", IDENTITIES)
def test_the_quoted_form_is_the_sheets_one_by_one(ours, three_d, one_by_one):
    assert ours[three_d] is not None and same(ours[three_d], ours[one_by_one]), (three_d, ours[three_d])


def test_elsewhere_a_3d_reference_is_unsupported(book):
    report = recalc_file(book, check=True, unsupported="stored")
    cells = set(report.unsupported.get("[3-D reference across sheets]", []))
    assert cells == {f"F!A{FORMULAS.index(f) + 1}" for f in UNSUPPORTED}


@requires_soffice
def test_recording_equals_live_libreoffice(book, tmp_path):
    lo = lo_values(recalculate(book, tmp_path))
    live = {f: lo.get(("F", f"A{FORMULAS.index(f) + 1}")) for f in LO_PROBES}
    bad = verify_or_refresh(SET, live, path=RECORDING, regenerate=REFRESH)
    assert not bad, f"{len(bad)} answers changed, first: {bad[:5]}; if LibreOffice is right: {REFRESH}"
