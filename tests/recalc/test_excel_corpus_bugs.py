"""Engine bugs the Excel-saved corpus found (tests/data/excel_corpus), one case per bug.

Each case names the corpus file and cell; the expected value is the value Excel cached in that
cell (Excel's answer). The engine must compute the cell (not keep it as unsupported) and get
Excel's value. A second set builds the smallest workbook showing the same bug.
"""

from __future__ import annotations

import functools

import openpyxl
import pytest
from corpus_check import CORPUS
from recalc_book import s_sheet

from gputco.workbook.recalc import UnsupportedFunctionError, evaluate_workbook, recalc_file
from gputco.workbook.recalc.base.values import error
from gputco.workbook.recalc.functions.text import format_value, general
from gputco.workbook.soffice.fallback import libreoffice_values

POI = "poi/test-data/spreadsheet/"
XLC = "xlcalculator/tests/resources/BASES.xlsx"
CX = "closedxml/ClosedXML.Tests/Resource/TryToLoad/LO/xlsx/functions-excel-2010.xlsx"

#: (corpus file, sheet, cell, Excel's cached value, what was wrong)
CASES = [
    (POI + "57181.xlsm", "General", "CG41", 0.0, "IF(c, x, ) with an empty third argument is 0"),
    (CX, "Sheet2", "C17", 49.0, "AGGREGATE whose option number is read per row ($A17)"),
    (CX, "Sheet2", "H18", 400626533260800.0, "AGGREGATE(6 = PRODUCT, option per row)"),
    (CX, "Sheet2", "P17", 77.0, "AGGREGATE(14 = LARGE, option per row, k)"),
    (CX, "Sheet2", "O17", 77.0, "AGGREGATE(13 = MODE.SNGL) (MODE.SNGL was missing)"),
    (CX, "Sheet2", "T17", 77.0, "AGGREGATE(18 = PERCENTILE.EXC) (was missing)"),
    (CX, "Sheet2", "U19", 32.5, "AGGREGATE(19 = QUARTILE.EXC) (was missing)"),
    (XLC, "dec2", "T10", "7777777601", "DEC2OCT of a negative number (was missing)"),
    (XLC, "dec2", "W13", "400", "DEC2HEX (was missing)"),
    (XLC, "places", "G26", error("#NUM!"), "DEC2BIN(-25, 0): places 0 is #NUM! even for a negative number"),
    (XLC, "places-dec2", "B9", error("#NUM!"), "DEC2BIN(-1, 0)"),
    (
        "closedxml/ClosedXML.Tests/Resource/TryToLoad/LO/xlsx/ceiling-floor.xlsx",
        "Sheet1",
        "C34",
        24.0,
        "ISO.CEILING (was missing)",
    ),
    (POI + "63934.xlsx", "Sheet1", "B2", "Male", "CLEAN inside a lookup (was missing)"),
    (
        POI + "FormulaEvalTestData_Copy.xlsx",
        "EverythingTests",
        "D1136",
        "AxxEFG",
        "REPLACE with fractional start and count (was missing)",
    ),
    (
        POI + "FormulaEvalTestData_Copy.xlsx",
        "EverythingTests",
        "D1312",
        "NoN-Numeric",
        "SUBSTITUTE (was missing)",
    ),
    (
        POI + "FormulaEvalTestData_Copy.xlsx",
        "EverythingTests",
        "N1352",
        "",
        "T of a range is its first cell (was missing)",
    ),
    ("xlcalculator/tests/resources/SLN.xlsx", "Sheet1", "A1", 2250.0, "SLN (was missing)"),
    (
        POI + "FormulaEvalTestData_Copy.xlsx",
        "EverythingTests",
        "F1168",
        "a string",
        "RIGHT with a count beyond the text's length",
    ),
    (
        POI + "FormulaEvalTestData_Copy.xlsx",
        "EverythingTests",
        "G716",
        " beginsWithSpace",
        "HLOOKUP(..., TRUE) on unsorted text: Excel's binary search, not a sorted search",
    ),
    (POI + "FormulaEvalTestData_Copy.xlsx", "EverythingTests", "E872", 1.1, "LOOKUP on unsorted text"),
    (
        POI + "FormulaEvalTestData_Copy.xlsx",
        "EverythingTests",
        "D1472",
        1.00001,
        "VLOOKUP approximate on unsorted numbers with a text item",
    ),
    (
        POI + "FormulaEvalTestData_Copy.xlsx",
        "EverythingTests",
        "F1472",
        "endsWithSpace ",
        "VLOOKUP(..., TRUE) on unsorted numbers",
    ),
    (
        POI + "FormulaEvalTestData_Copy.xlsx",
        "EverythingTests",
        "D180",
        -4.089355473190933e-09,
        "AVERAGE adds left to right like Excel (large terms cancel; a pairwise sum differs)",
    ),
    (
        POI + "table-sample.xlsx",
        "Tabelle1",
        "G5",
        1 / 6,
        "structured reference to a column whose name ends in a space ([#This Row], [#Totals])",
    ),
    (
        "closedxml/ClosedXML.Tests/Resource/TryToLoad/TableHeadersWithLineBreaks.xlsx",
        "Sheet1",
        "H7",
        33059.0,
        "structured reference to a header with a line break (_x000a_)",
    ),
    (
        POI + "simple-table-named-range.xlsx",
        "Sheet1",
        "B7",
        9.0,
        "a defined name standing for SUM(Table1[c]) (was an unsupported structured reference)",
    ),
    (
        "phpspreadsheet/tests/data/Reader/XLSX/issue.3453.xlsx",
        "Sheet1",
        "H2",
        error("#REF!"),
        "SUM(#REF!:#REF!) parses (the file was refused before)",
    ),
    (POI + "GeneralFormatTests.xlsx", "Tests", "A13", "1.234567891", "TEXT General: 10 digits"),
    (POI + "GeneralFormatTests.xlsx", "Tests", "A18", "1E+11", "TEXT General: scientific"),
    (POI + "GeneralFormatTests.xlsx", "Tests", "A34", "1.12346E-10", "TEXT General: small"),
    (POI + "FormatConditionTests.xlsx", "Tests", "A9", "10 Wow", "TEXT [<=10] condition"),
    (POI + "FormatConditionTests.xlsx", "Tests", "A24", "-9 Big", "TEXT [>-10] condition"),
    (POI + "DateFormatTests.xlsx", "Tests", "A4", "Sat-Oct-1952", "ddd in a 1904-date book, yyy"),
    (POI + "DateFormatTests.xlsx", "Tests", "A11", "02:35:27 p", "a/p keeps its case"),
    (POI + "ElapsedFormatTests.xlsx", "Tests", "A8", "53:23 @ hour 75", "m after s is minutes"),
    (
        POI + "ElapsedFormatTests.xlsx",
        "Tests",
        "A10",
        "It was 75 [yes, 75] hours and 23:53",
        "h after [h] is the elapsed hours",
    ),
    (POI + "ElapsedFormatTests.xlsx", "Tests", "A42", "-75:23:53.376", "negative duration"),
    (POI + "TextFormatTests.xlsx", "Tests", "A6", "@jello@", "text section with \\@ and @"),
    (POI + "TextFormatTests.xlsx", "Tests", "A20", "-TRUE-TRUE-", "TRUE through the text section"),
    (POI + "NumberFormatTests.xlsx", "Tests", "A69", "0,001,234,567", "grouped leading zeros"),
    (POI + "NumberFormatTests.xlsx", "Tests", "A93", "1.2", "#,.#, scales twice"),
]


@functools.cache
def _run(file: str):
    path = CORPUS / file
    report = recalc_file(path, check=True, unsupported="stored", functions={}, fallback=libreoffice_values)
    unsupported = {c for cells in report.unsupported.values() for c in cells}
    return evaluate_workbook(path, unsupported="stored", functions={}), unsupported


@pytest.mark.parametrize(
    ("file", "sheet", "cell", "excel", "bug"), CASES, ids=[f"{c[0].rsplit('/', 1)[-1]}!{c[2]}" for c in CASES]
)
def test_corpus_cell_equals_excel(file, sheet, cell, excel, bug):
    values, unsupported = _run(file)
    assert f"{sheet}!{cell}" not in unsupported, bug
    assert values[(sheet, cell)] == excel, bug


def test_fraction_format_is_excel_s():
    """NumberFormatTests.xlsx A120 =TEXT(23.75, "|#\\:#/#|") is '|23:3/4|' in Excel: computed (it
    was kept unsupported before fractions were modelled; tests/recalc/functions/test_numformat.py has the
    rest of the file)."""
    values, unsupported = _run(POI + "NumberFormatTests.xlsx")
    assert "Tests!A120" not in unsupported
    assert values[("Tests", "A120")] == "|23:3/4|"


def test_an_undecided_fraction_stops_the_run_by_default(tmp_path):
    """Without unsupported="stored" a TEXT format whose Excel output is not known (a whole number
    in a written-denominator fraction: how wide Excel's blank is) names the cell."""
    wb = openpyxl.Workbook()
    wb.active.title = "S"
    wb.active["A1"] = '=TEXT(24,"# ?/8")'
    wb.active["A2"] = '=TEXT(23.75,"# ?/8")'
    wb.save(tmp_path / "frac.xlsx")
    with pytest.raises(
        UnsupportedFunctionError, match=r"TEXT \(a fraction of 0 with a written denominator\).*S!A1"
    ):
        evaluate_workbook(tmp_path / "frac.xlsx", functions={})
    got = evaluate_workbook(tmp_path / "frac.xlsx", functions={}, unsupported="stored")
    assert got[("S", "A2")] == "23 6/8"


def test_if_with_empty_else_is_zero_in_a_small_book(tmp_path):
    """57181.xlsm General!CG41 (Excel caches 0): the smallest book with the same formula shape."""
    wb, _ = s_sheet(
        cells={"B1": "=IF(COUNT(A1:A3)<>0,AVERAGE(A1:A3),)", "B2": "=IF(FALSE,1)", "B3": "=IF(TRUE,,2)"}
    )
    wb.save(tmp_path / "if.xlsx")
    got = evaluate_workbook(tmp_path / "if.xlsx", functions={})
    assert got[("S", "B1")] == 0.0 and got[("S", "B3")] == 0.0
    assert got[("S", "B2")] is False  # an omitted else (not an empty one) is FALSE


@pytest.mark.parametrize(
    ("x", "text"),
    [
        (1.2345678912, "1.234567891"),
        (-1.2345678919, "-1.234567892"),
        (1e10, "10000000000"),
        (1.12345e11, "1.12345E+11"),
        (1e-9, "0.000000001"),
        (-1.1e-10, "-1.1E-10"),
        (0.0, "0"),
    ],
)
def test_general_matches_general_format_tests(x, text):
    """GeneralFormatTests.xlsx rows 13-68 (Excel's cached TEXT(x, "General"))."""
    assert general(x) == text


@pytest.mark.parametrize(
    ("x", "fmt", "text"),
    [
        (1.0, '[<10]#" Wow"', "1 Wow"),
        (10.0, '[<10]#" Wow"', "10"),
        (11.0, '[>10]#" Big"', "11 Big"),
        (10.0, '[=10]#" Wow"', "10 Wow"),
        (-11.0, '[<>-10]#" Wow"', "-11 Wow"),
        (1234.5, "[Red]#,##0.00", "1,234.50"),
        (1234.5, "[$€-407]#,##0", "€1,235"),
    ],
)
def test_conditions_colours_and_currency(x, fmt, text):
    """FormatConditionTests.xlsx / FormatChoiceTests.xlsx (conditions, Excel's cached values);
    colours are not shown in text and [$€-407] shows its symbol (Microsoft, number format codes)."""
    assert format_value(x, fmt) == text
