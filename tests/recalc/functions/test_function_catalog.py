"""docs/functions.md, the list of the functions `gputco recalc` evaluates, is generated from the engine's table;
the table's rows (category, version, Microsoft page) checked against what holds whatever they say."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from openpyxl.utils.formulas import FORMULAE

from gputco.workbook.recalc import UnsupportedFunctionError, recalc_file, supported_functions
from gputco.workbook.recalc.functions import NEVER, excel_functions
from gputco.workbook.recalc.functions.catalog import BEGIN, END, replace_in, section

PAGE = Path(__file__).resolve().parents[3] / "docs" / "functions.md"


def test_readme_lists_exactly_the_engines_functions():
    # on failure: run `python -m gputco.workbook.recalc.functions.catalog --write docs/functions.md` and commit it
    text = PAGE.read_text(encoding="utf-8")
    assert replace_in(text) == text
    listed = text.split(BEGIN, 1)[1].split(END, 1)[0]
    for name in supported_functions():
        assert f" {name}," in listed or f" {name}\\n" in listed or listed.count(name), name


def test_every_function_is_in_one_category():
    body = section()
    for name in supported_functions():
        rows = [ln for ln in body.splitlines() if ln.startswith(f"| {name} |")]
        assert len(rows) == 1, (name, rows)


# Microsoft's categories on "Excel functions (by category)", support.microsoft.com
MICROSOFT_CATEGORIES = {
    "Compatibility",
    "Cube",
    "Database",
    "Date and time",
    "Engineering",
    "Financial",
    "Information",
    "Logical",
    "Lookup and reference",
    "Math and trigonometry",
    "Statistical",
    "Text",
    "Web",
}
OPERATORS = {"ANCHORARRAY", "SINGLE"}  # A1# and @ as files store them, not functions


def test_every_engine_function_has_a_row_with_microsofts_category_and_page():
    table = excel_functions()
    for name in [*supported_functions(), *NEVER - {"DDE"}]:
        entry = table[name]
        if name in OPERATORS:
            assert entry.category == "Operators as files store them"
            continue
        assert entry.category in MICROSOFT_CATEGORIES, entry
        page = re.fullmatch(
            r"https://support\.microsoft\.com/en-us/office/([a-z0-9.-]+)-[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}(#.*)?",
            entry.url,
        )
        assert page, entry
        words = page.group(1).split("-")
        slug = name.lower().replace(".", "-").split("-")
        named = any(words[i : i + len(slug)] == slug for i in range(len(words)))
        # Microsoft's pages shared by a family: "IS functions" (ISBLANK, ISERR...)
        assert named or (page.group(1) == "is-functions" and name.startswith("IS")), entry


def test_versions_agree_with_the_functions_excel_2007_files_store_without_the_xlfn_prefix():
    # openpyxl's FORMULAE lists the functions a file may use without "_xlfn." (those of Excel 2007);
    # a newer function is written "_xlfn.NAME" (ECMA-376 / MS-XLSX future functions). So a row is
    # "before 2010" exactly when openpyxl knows the name, except the two functions below that
    # Microsoft marks Excel 2010 and openpyxl lists, and the add-in functions openpyxl leaves out.
    known = {"NETWORKDAYS.INTL", "WORKDAY.INTL", "CALL", "DBCS", "EUROCONVERT", "REGISTER.ID"}
    odd = {
        n
        for n, e in excel_functions().items()
        if n not in OPERATORS and (e.version == "before 2010") != (n in FORMULAE)
    }
    assert odd == known


def test_microsofts_documented_versions():
    # Microsoft's function pages: "XLOOKUP ... available in Excel 2021", LAMBDA in Excel 2024, AGGREGATE and
    # the renamed distributions in Excel 2010, IFNA/XOR in Excel 2013, CONCAT/IFS/SWITCH in Excel 2019
    table = excel_functions()
    want = {"XLOOKUP": "2021", "LAMBDA": "2024", "AGGREGATE": "2010", "NORM.S.DIST": "2010", "IFNA": "2013"}
    want |= {"XOR": "2013", "CONCAT": "2019", "IFS": "2019", "SWITCH": "2019", "SUM": "before 2010"}
    assert {n: table[n].version for n in want} == want
    assert table["XLOOKUP"].excel == "Excel 2021" and table["SUM"].excel == "Excel 2007 or earlier"


def test_the_unsupported_message_names_the_functions_page(tmp_path):
    from openpyxl import Workbook

    wb = Workbook()
    wb.active["A1"] = '=GROUPBY(B1:B2,C1:C2,SUM)+ENCODEURL("a b")'
    path = tmp_path / "book.xlsx"
    wb.save(path)
    with pytest.raises(UnsupportedFunctionError) as info:
        recalc_file(path, tmp_path / "out.xlsx")
    text = str(info.value)
    assert text.startswith("unsupported functions or features: ")
    assert (
        "ENCODEURL (Web, Excel 2013: https://support.microsoft.com/en-us/office/encodeurl-function-" in text
    )
    assert text.count("GROUPBY (") == 1 and "GROUPBY (in Sheet!A1)" in text  # not in the table: cells only
