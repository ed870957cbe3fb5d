"""Text, Information and Date functions added to the engine (functions/text.py, information.py,
datetime.py, lookup.py): TEXTJOIN, TEXTBEFORE, TEXTAFTER, TEXTSPLIT, UNICHAR, UNICODE, NUMBERVALUE,
FIXED, ARRAYTOTEXT, VALUETOTEXT, the byte versions LENB, LEFTB, RIGHTB, MIDB, FINDB, SEARCHB,
REPLACEB, N, TYPE, SHEET, SHEETS, AREAS, WEEKNUM and ISOWEEKNUM.

Each Microsoft example is the formula of the function's page with its data typed in (or on a sheet
of :data:`SHEETS`) and the result as the page shows it; the further probes are edge cases and the
documented errors, compared with LibreOffice's recorded answers (tests/family_probes.py).
LibreOffice 7.4 has no TEXTBEFORE, TEXTAFTER, TEXTSPLIT, ARRAYTOTEXT or VALUETOTEXT: their
examples are listed in EXCEL_NOT_LO (LibreOffice answers #NAME?) and their edge cases are plain
asserts on Microsoft's documented rules below. Where a page's example table shows a translated
result (the localized copies of the page the search found), the result is the English text the
formula itself produces, as the note beside it says.
"""

from __future__ import annotations

import datetime as dt
import tempfile
from pathlib import Path

import numpy as np
import openpyxl
import pytest
from family_probes import FamilyProbes
from hypothesis import given, settings
from hypothesis import strategies as st
from openpyxl.workbook.defined_name import DefinedName
from recalc_book import ms

from gputco.workbook.recalc import XlError, evaluate_workbook
from gputco.workbook.recalc.base import vec
from gputco.workbook.recalc.functions import datetime as dates
from gputco.workbook.recalc.functions import text

HOOD = '"Red riding hood\'s, red hood"'

#: the examples of Microsoft's pages, as the pages show the results
MICROSOFT = [
    # TEXTJOIN: the syntax section's example, and example 2 (the TJ sheet, a blank row in it)
    (
        '=_xlfn.TEXTJOIN(" ",TRUE,"The","sun","will","come","up","tomorrow.")',
        "The sun will come up tomorrow.",
        ms("textjoin"),
    ),
    ('=_xlfn.TEXTJOIN(", ",TRUE,TJ!A2:B8)', "a1, b1, a2, b2, a4, b4, a5, b5, a6, b6, a7, b7", ms("textjoin")),
    (
        '=_xlfn.TEXTJOIN(", ",FALSE,TJ!A2:B8)',
        "a1, b1, a2, b2, , , a4, b4, a5, b5, a6, b6, a7, b7",
        ms("textjoin"),
    ),
    # TEXTBEFORE / TEXTAFTER: the remarks' table (the empty delimiter matches at once) and
    # example 2 (Marcus Aurelius, Socrates); the localized copies show the text results translated
    (f'=_xlfn.TEXTBEFORE({HOOD},"hood")', "Red riding ", ms("textbefore")),
    (f'=_xlfn.TEXTBEFORE({HOOD},"")', "", ms("textbefore")),
    (f'=_xlfn.TEXTBEFORE({HOOD},"",-1)', "Red riding hood's, red hood", ms("textbefore")),
    ('=_xlfn.TEXTBEFORE("Marcus Aurelius"," ",,,1)', "Marcus", ms("textbefore")),
    ('=_xlfn.TEXTBEFORE("Socrates"," ",,,0)', "#N/A", ms("textbefore")),
    (f'=_xlfn.TEXTAFTER({HOOD},"hood")', "'s, red hood", ms("textafter")),
    (f'=_xlfn.TEXTAFTER({HOOD},"")', "Red riding hood's, red hood", ms("textafter")),
    (f'=_xlfn.TEXTAFTER({HOOD},"",-1)', "", ms("textafter")),
    ('=_xlfn.TEXTAFTER("Marcus Aurelius"," ",,,1)', "Aurelius", ms("textafter")),
    ('=_xlfn.TEXTAFTER("Socrates"," ",,,0)', "#N/A", ms("textafter")),
    ('=_xlfn.TEXTAFTER("Socrates"," ",,,1)', "", ms("textafter")),
    # TEXTSPLIT example 2: "1,2,3;4,5,6" split "into 2X3 array" (the page shows it as a figure)
    ('=ROWS(_xlfn.TEXTSPLIT("1,2,3;4,5,6",",",";"))', "2", ms("textsplit")),
    ('=COLUMNS(_xlfn.TEXTSPLIT("1,2,3;4,5,6",",",";"))', "3", ms("textsplit")),
    ('=INDEX(_xlfn.TEXTSPLIT("1,2,3;4,5,6",",",";"),2,3)', "6", ms("textsplit")),
    ('=COLUMNS(_xlfn.TEXTSPLIT("Dakota Lennon Sanchez"," "))', "3", ms("textsplit")),
    ("=_xlfn.UNICHAR(66)", "B", ms("unichar")),
    ("=_xlfn.UNICHAR(32)", " ", ms("unichar")),
    ("=_xlfn.UNICHAR(0)", "#VALUE!", ms("unichar")),
    ('=_xlfn.UNICODE(" ")', "32", ms("unicode")),
    ('=_xlfn.UNICODE("B")', "66", ms("unicode")),
    ('=_xlfn.NUMBERVALUE("2.500,27",",",".")', "2500.27", ms("numbervalue")),
    ('=_xlfn.NUMBERVALUE("3.5%")', "0.035", ms("numbervalue")),
    # NUMBERVALUE's remarks: "" is 0, spaces are ignored, % signs add up (=9%% is 0.0009)
    ('=_xlfn.NUMBERVALUE("")', "0", ms("numbervalue")),
    ('=_xlfn.NUMBERVALUE(" 3 000 ")', "3000", ms("numbervalue")),
    ('=_xlfn.NUMBERVALUE("9%%")', "0.0009", ms("numbervalue")),
    ("=FIXED(1234.567,1)", "1,234.6", ms("fixed")),
    ("=FIXED(1234.567,-1)", "1,230", ms("fixed")),
    ("=FIXED(-1234.567,-1,TRUE)", "-1230", ms("fixed")),
    ("=FIXED(44.332)", "44.33", ms("fixed")),
    # ARRAYTOTEXT's example data: TRUE, #VALUE!; 1234.01234, Seattle; Hello, "1,123" (text: the
    # strict result quotes it)
    (
        '=_xlfn.ARRAYTOTEXT({TRUE,#VALUE!;1234.01234,"Seattle";"Hello","1,123"},0)',
        "TRUE, #VALUE!, 1234.01234, Seattle, Hello, 1,123",
        ms("arraytotext"),
    ),
    (
        '=_xlfn.ARRAYTOTEXT({TRUE,#VALUE!;1234.01234,"Seattle";"Hello","1,123"},1)',
        '{TRUE,#VALUE!;1234.01234,"Seattle";"Hello","1,123"}',
        ms("arraytotext"),
    ),
    ("=_xlfn.VALUETOTEXT(TRUE,0)", "TRUE", ms("valuetotext")),
    ("=_xlfn.VALUETOTEXT(TRUE,1)", "TRUE", ms("valuetotext")),
    ("=_xlfn.VALUETOTEXT(1234.01234,0)", "1234.01234", ms("valuetotext")),
    ("=_xlfn.VALUETOTEXT(1234.01234,1)", "1234.01234", ms("valuetotext")),
    ('=_xlfn.VALUETOTEXT("Hello",0)', "Hello", ms("valuetotext")),
    ('=_xlfn.VALUETOTEXT("Hello",1)', '"Hello"', ms("valuetotext")),
    ("=_xlfn.VALUETOTEXT(1234,1)", "1234", ms("valuetotext")),
    # N's example data: 7, "Even", TRUE, 4/17/2011
    ("=N(7)", "7", ms("n")),
    ('=N("Even")', "0", ms("n")),
    ("=N(TRUE)", "1", ms("n")),
    ("=N(DATE(2011,4,17))", "40650", ms("n")),
    ('=N("7")', "0", ms("n")),
    # TYPE's example data: "Smith"
    ('=TYPE("Smith")', "2", ms("type")),
    ('=TYPE("Mr. "&"Smith")', "2", ms("type")),
    ('=TYPE(2+"Smith")', "16", ms("type")),
    ("=TYPE({1,2;3,4})", "64", ms("type")),
    # AREAS (on the Data sheet: the page's ranges hold the probe formulas here)
    ("=AREAS(Data!B2:D4)", "1", ms("areas")),
    ("=AREAS((Data!B2:D4,Data!E5,Data!F6:I9))", "3", ms("areas")),
    ("=AREAS(Data!B2:D4 Data!B2)", "1", ms("areas")),
    # WEEKNUM's and ISOWEEKNUM's example date: 3/9/2012
    ("=WEEKNUM(DATE(2012,3,9))", "10", ms("weeknum")),
    ("=WEEKNUM(DATE(2012,3,9),2)", "11", ms("weeknum")),
    ("=_xlfn.ISOWEEKNUM(DATE(2012,3,9))", "10", ms("isoweeknum")),
]

#: LibreOffice 7.4 has none of these
NOT_IN_LO = ("TEXTBEFORE", "TEXTAFTER", "TEXTSPLIT", "ARRAYTOTEXT", "VALUETOTEXT")

#: further cases, compared with LibreOffice
PROBES = [
    "=_xlfn.TEXTJOIN(Cities!A8:D8,TRUE,Cities!A2:D7)",
    '=_xlfn.TEXTJOIN({"-","+"},TRUE,1,2,3,4)',
    '=_xlfn.TEXTJOIN("-",TRUE,"a","","b")',
    '=_xlfn.TEXTJOIN("-",FALSE,"a","","b")',
    '=_xlfn.TEXTJOIN("",TRUE,Data!A1:A4)',
    '=_xlfn.TEXTJOIN(", ",TRUE,Data!C1:D2)',
    '=_xlfn.TEXTJOIN(",",TRUE,"a",NA())',
    '=_xlfn.TEXTJOIN(",",TRUE,Data!B1:B8)',
    '=_xlfn.TEXTJOIN(1,TRUE,"a","b")',
    '=_xlfn.TEXTJOIN(",",TRUE,{1,2;3,4},5)',
    "=_xlfn.UNICHAR(8364)",
    "=_xlfn.UNICHAR(65.9)",
    "=_xlfn.UNICHAR(1114111)=_xlfn.UNICHAR(1114111)",
    "=_xlfn.UNICHAR(1114112)",
    "=_xlfn.UNICHAR(-1)",
    '=_xlfn.UNICHAR("x")',
    '=_xlfn.UNICODE("€uro")',
    '=_xlfn.UNICODE("")',
    "=_xlfn.UNICODE(5)",
    "=_xlfn.UNICODE(Data!B1)",
    '=_xlfn.NUMBERVALUE("1,234.5",".",",")',
    '=_xlfn.NUMBERVALUE("1.234,5",".",",")',
    '=_xlfn.NUMBERVALUE("1.2.3",".",",")',
    '=_xlfn.NUMBERVALUE("1 234,5",","," ")',
    '=_xlfn.NUMBERVALUE("abc",".",",")',
    '=_xlfn.NUMBERVALUE("-12.5",".",",")',
    '=_xlfn.NUMBERVALUE("12%",",",".")',
    '=_xlfn.NUMBERVALUE("1,5",",,",".")',
    '=_xlfn.NUMBERVALUE(12.5,".",",")',
    "=FIXED(1234567.891)",
    "=FIXED(0.5,0)",
    "=FIXED(2.5,0)",
    "=FIXED(-2.5,0)",
    "=FIXED(1234.5,-2,TRUE)",
    '=FIXED("12.345",1)',
    "=FIXED(1,128)",
    "=FIXED(1,127)=FIXED(1,127)",
    "=FIXED(-0.001)",
    "=FIXED(123456789,2,FALSE)",
    '=FIXED("x")',
    '=LENB("abc")',
    '=LEFTB("abcdef",2)',
    '=RIGHTB("abcdef",2)',
    '=MIDB("abcdef",2,3)',
    '=FINDB("c","abcabc",4)',
    '=SEARCHB("C","abcabc")',
    '=REPLACEB("abcdef",2,3,"X")',
    "=N(Data!B1)",
    "=N(Data!B6)",
    "=N(Data!F1)",
    "=N(Data!Z99)",
    "=N(NA())",
    "=TYPE(Data!A1)",
    "=TYPE(Data!B1)",
    "=TYPE(Data!B6)",
    "=TYPE(Data!F1)",
    "=TYPE(Data!Z99)",
    "=TYPE(1/0)",
    "=_xlfn.SHEET()",
    "=_xlfn.SHEET(Data!A1)",
    "=_xlfn.SHEET(Data!A1:B3)",
    "=_xlfn.SHEET('Other Sheet'!A1)",
    '=_xlfn.SHEET("Other Sheet")',
    '=_xlfn.SHEET("other sheet")',
    '=_xlfn.SHEET("nope")',
    "=_xlfn.SHEET(NA())",
    "=_xlfn.SHEETS()",
    "=_xlfn.SHEETS(Data!A1:B3)",
    "=_xlfn.SHEETS(Data:Probes!A1)",
    "=AREAS(Data!A1)",
    "=AREAS(INDEX(Data!A1:B3,2,1))",
    *(
        f"=WEEKNUM(DATE({y},{m},{d}),{k})"
        for y, m, d in ((2021, 1, 1), (2021, 1, 3), (2022, 12, 31), (2024, 2, 29), (2016, 1, 2))
        for k in (1, 2, 11, 12, 13, 14, 15, 16, 17, 21)
    ),
    "=WEEKNUM(DATE(2012,3,9),3)",
    "=WEEKNUM(DATE(2012,3,9),22)",
    "=WEEKNUM(-1)",
    '=WEEKNUM("2012-03-09")',
    "=WEEKNUM(DATE(2012,3,9)+0.75)",
    "=WEEKNUM(DATE(2000,12,31))",
    *(
        f"=_xlfn.ISOWEEKNUM(DATE({y},{m},{d}))"
        for y, m, d in (
            (2020, 12, 31),
            (2021, 1, 1),
            (2021, 1, 4),
            (2016, 1, 1),
            (2008, 12, 29),
            (2010, 1, 3),
        )
    ),
    "=_xlfn.ISOWEEKNUM(-1)",
    '=_xlfn.ISOWEEKNUM("x")',
]

#: where LibreOffice differs from Excel: Excel's result and its source
EXCEL_NOT_LO: dict[str, tuple[object, str]] = {
    **{
        f: (shown, f"LibreOffice 7.4 has no {next(n for n in NOT_IN_LO if n in f)}; Microsoft's page {url}")
        for f, shown, url in MICROSOFT
        if any(n in f for n in NOT_IN_LO)
    },
    "=_xlfn.UNICHAR(0)": (
        "#VALUE!",
        "Microsoft's UNICHAR page: 0 is #VALUE! (LibreOffice 7.4: the character 0)",
    ),
    **{
        f: (
            shown,
            "Microsoft's NUMBERVALUE page: without separators the locale's (en-US: . and ,); "
            + why
            + " (LibreOffice 7.4: #VALUE! without separators)",
        )
        for f, shown, why in (
            ('=_xlfn.NUMBERVALUE("3.5%")', "0.035", "the page's example"),
            (
                '=_xlfn.NUMBERVALUE("")',
                "0",
                '"If an empty string is specified as the Text argument, the result is 0"',
            ),
        )
    },
    '=_xlfn.NUMBERVALUE("1,5",",,",".")': (
        "1.5",
        "Microsoft's NUMBERVALUE page: of a separator of several characters only the first is used "
        "(LibreOffice 7.4: #VALUE!)",
    ),
    "=FIXED(1,127)=FIXED(1,127)": (
        True,
        "Microsoft's FIXED page: decimals can be as large as 127 (LibreOffice 7.4: #VALUE!)",
    ),
    "=TYPE(Data!F1)": (
        "4",
        "Microsoft's TYPE page: a logical value is 4 (LibreOffice 7.4: 8, its code for a formula cell)",
    ),
    '=_xlfn.SHEET("nope")': (
        "#N/A",
        "Microsoft's SHEET page: a value that is not a valid sheet name is #NA (LibreOffice 7.4: #VALUE!)",
    ),
    **{
        f"=WEEKNUM(DATE(2022,12,31),{k})": (
            "53",
            "Microsoft's WEEKNUM page, system 1: week 1 holds 1 January and weeks begin on return_type's "
            "day, so Saturday 31 Dec 2022 is in week 53 of 2022 (LibreOffice 7.4: 1)",
        )
        for k in (2, 11, 12, 13, 14, 15, 16)
    },
    **{
        f"=WEEKNUM(DATE(2012,3,9),{k})": (
            "#NUM!",
            "Microsoft's WEEKNUM page: a return_type outside its table is #NUM! (LibreOffice 7.4: #VALUE!)",
        )
        for k in (3, 22)
    },
    "=WEEKNUM(DATE(2000,12,31))": (
        "54",
        "Microsoft's WEEKNUM page, system 1: the week holding 1 January 2000 (a Saturday) is week 1, "
        "so Sunday 31 Dec 2000 opens week 54 of 2000 (LibreOffice 7.4: 1, the week of 1 January 2001)",
    ),
    "=WEEKNUM(-1)": (
        "#NUM!",
        "Microsoft's WEEKNUM page: a serial_number out of range for the date base is #NUM! (LibreOffice 7.4: 52)",
    ),
    "=_xlfn.ISOWEEKNUM(-1)": (
        "#NUM!",
        "Microsoft's ISOWEEKNUM page: a date that is not a valid number is #NUM! (LibreOffice 7.4: 52)",
    ),
}

#: extra sheets: TEXTJOIN's examples 2 and 3
SHEETS = {
    "TJ": [
        ["A's", "B's"],
        ["a1", "b1"],
        ["a2", "b2"],
        [None, None],
        ["a4", "b4"],
        ["a5", "b5"],
        ["a6", "b6"],
        ["a7", "b7"],
    ],
    "Cities": [
        ["City", "State", "Postcode", "Country"],
        ["Tulsa", "OK", "74133", "US"],
        ["Seattle", "WA", "98109", "US"],
        ["Iselin", "NJ", "08830", "US"],
        ["Fort Lauderdale", "FL", "33309", "US"],
        ["Tempe", "AZ", "85285", "US"],
        ["end"],
        [",", ",", ",", ";"],
    ],
}


class TestTextMore(FamilyProbes):
    SET = "text_more"
    MICROSOFT = MICROSOFT
    PROBES = PROBES
    EXCEL_NOT_LO = EXCEL_NOT_LO
    SHEETS = SHEETS


# --- the functions LibreOffice lacks: Microsoft's documented rules -----------------------------


def _eval(formulas: list[str], setup=None) -> list[object]:
    """The engine's values of formulas written in A1, A2, ... of a sheet "S" (after ``setup(wb)``)."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    for i, f in enumerate(formulas, start=1):
        ws.cell(i, 1, f)
    if setup is not None:
        setup(wb)
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "t.xlsx"
        wb.save(path)
        cells = evaluate_workbook(path, functions={})
    return [cells.get(("S", f"A{i}")) for i in range(1, len(formulas) + 1)]


DOCUMENTED = [
    # TEXTBEFORE / TEXTAFTER (their pages): instance_num 0 or beyond the text's length #VALUE!,
    # no such delimiter or instance #N/A or if_not_found; negative instance_num counts from the end
    ('=_xlfn.TEXTBEFORE("a-b-c","-",0)', "#VALUE!"),
    ('=_xlfn.TEXTBEFORE("a-b-c","-",6)', "#VALUE!"),
    ('=_xlfn.TEXTBEFORE("a-b-c","-",3)', "#N/A"),
    ('=_xlfn.TEXTBEFORE("a-b-c","x")', "#N/A"),
    ('=_xlfn.TEXTBEFORE("a-b-c","x",,,,"none")', "none"),
    ('=_xlfn.TEXTBEFORE("a-b-c","-",2)', "a-b"),
    ('=_xlfn.TEXTBEFORE("a-b-c","-",-1)', "a-b"),
    ('=_xlfn.TEXTAFTER("a-b-c","-",-2)', "b-c"),
    ('=_xlfn.TEXTAFTER("a-b-c","-",2)', "c"),
    ('=_xlfn.TEXTBEFORE("aXbxc","x",,1)', "a"),
    ('=_xlfn.TEXTBEFORE("aXbxc","x")', "aXb"),
    ('=_xlfn.TEXTBEFORE("a,b;c",{";",","})', "a"),
    ('=_xlfn.TEXTAFTER("a,b;c",{";",","},-1)', "c"),
    ('=_xlfn.TEXTBEFORE("","x")', ""),
    ('=_xlfn.TEXTAFTER("abc","x",,,1)', ""),
    ('=_xlfn.TEXTBEFORE("abc","x",-1,,1)', ""),
    ('=_xlfn.TEXTAFTER("abc","x",-1,,1)', "abc"),
    ('=_xlfn.TEXTBEFORE(1/0,"x")', "#DIV/0!"),
    # TEXTSPLIT: ignore_empty, pad_with, several delimiters, match_mode
    ('=COLUMNS(_xlfn.TEXTSPLIT("a,,b",","))', 3.0),
    ('=COLUMNS(_xlfn.TEXTSPLIT("a,,b",",",,TRUE))', 2.0),
    ('=INDEX(_xlfn.TEXTSPLIT("a,b;c",",",";"),2,2)', "#N/A"),
    ('=INDEX(_xlfn.TEXTSPLIT("a,b;c",",",";",,,"-"),2,2)', "-"),
    ('=ROWS(_xlfn.TEXTSPLIT("a.b-c",,{".","-"}))', 3.0),
    ('=COLUMNS(_xlfn.TEXTSPLIT("aXbxc","x",,,1))', 3.0),
    ('=COLUMNS(_xlfn.TEXTSPLIT("aXbxc","x"))', 2.0),
    ('=_xlfn.TEXTSPLIT("abc","")', "#VALUE!"),
    # VALUETOTEXT / ARRAYTOTEXT: a format other than 0 or 1 is #VALUE!
    ("=_xlfn.VALUETOTEXT(1,2)", "#VALUE!"),
    ("=_xlfn.ARRAYTOTEXT({1,2},-1)", "#VALUE!"),
    ('=_xlfn.ARRAYTOTEXT({1,"a"})', "1, a"),
]


@pytest.mark.parametrize(("formula", "expected"), DOCUMENTED, ids=[f for f, _ in DOCUMENTED])
def test_documented_rules_of_functions_libreoffice_lacks(formula, expected):
    (got,) = _eval([formula])
    if isinstance(expected, str) and expected.startswith("#"):
        assert isinstance(got, XlError) and str(got) == expected, (formula, got)
    else:
        assert got == expected, (formula, got)


def test_valuetotext_writes_an_error_as_text():
    """VALUETOTEXT's page: #VALUE! gives the text "#VALUE!" in both formats (a text, not the
    error), and TEXTJOIN's: a result over 32,767 characters is #VALUE! (LibreOffice 7.4 returns the
    whole text)."""
    got = _eval(
        [
            "=_xlfn.VALUETOTEXT(#VALUE!,0)",
            "=_xlfn.VALUETOTEXT(#VALUE!,1)",
            '=_xlfn.TEXTJOIN(",",TRUE,REPT("a",20000),REPT("b",20000))',
        ]
    )
    assert got[:2] == ["#VALUE!", "#VALUE!"]
    assert isinstance(got[2], XlError) and str(got[2]) == "#VALUE!"


def test_sheet_and_sheets_on_microsofts_examples():
    """SHEET's and SHEETS's pages: a workbook of three sheets (the third "Stuff"), a name
    QSalesByRegion on the second sheet, the 3-D name My3DRef over Sheet2 and Sheet3, and
    Hi_Temps scoped to another sheet (#NAME? where it is out of scope)."""

    def setup(wb):
        wb.create_sheet("Sheet2")
        wb.create_sheet("Stuff")
        wb.defined_names["QSalesByRegion"] = DefinedName("QSalesByRegion", attr_text="Sheet2!$A$1:$B$4")
        wb.defined_names["My3DRef"] = DefinedName("My3DRef", attr_text="Sheet2:Stuff!$A$1")
        wb["Stuff"].defined_names["Hi_Temps"] = DefinedName("Hi_Temps", attr_text="Stuff!$A$1")

    got = _eval(
        [
            "=_xlfn.SHEETS()",
            "=_xlfn.SHEETS(My3DRef)",
            "=_xlfn.SHEET(QSalesByRegion)",
            '=_xlfn.SHEET("Stuff")',
            "=_xlfn.SHEET(Hi_Temps)",
            "=_xlfn.SHEET()",
            '=_xlfn.SHEETS("x")',
        ],
        setup,
    )
    assert got[:4] == [3.0, 2.0, 2.0, 3.0]
    assert str(got[4]) == "#NAME?"
    assert got[5] == 1.0
    assert str(got[6]) == "#REF!"  # Microsoft: "If reference is not a valid value ... #REF!"


def test_weeknum_before_march_1900_counts_excels_weekdays():
    """In the 1900 system Excel's serial 1 (1900-01-01) is a Sunday and 1900-02-29 exists, so
    the weeks of January and February 1900 follow from the serials themselves (LibreOffice's
    serials there are a day off): serial 1 is in week 1 and serial 8 (a Sunday) opens week 2."""
    got = _eval(
        ["=WEEKNUM(1)", "=WEEKNUM(7)", "=WEEKNUM(8)", "=WEEKNUM(8,2)", "=WEEKNUM(0)", "=_xlfn.ISOWEEKNUM(1)"]
    )
    assert got == [1.0, 1.0, 2.0, 2.0, 0.0, 52.0]


# --- identities -------------------------------------------------------------------------------------


def _serial(day: dt.date) -> float:
    return float((day - dt.date(1899, 12, 30)).days)  # (from March 1900 on, Excel's serials)


DAYS = st.dates(min_value=dt.date(1900, 3, 1), max_value=dt.date(9999, 12, 31))


@settings(max_examples=300, deadline=None)
@given(day=DAYS)
def test_isoweeknum_is_pythons_iso_calendar_week(day):
    week = day.isocalendar()[1]
    assert dates._isoweeknum_one(_serial(day)) == week
    assert dates._weeknum_one(_serial(day), 21.0) == week


#: WEEKNUM's return_type: the first day of its weeks as Python's weekday() (Monday 0)
STARTS = {1: 6, 2: 0, 11: 0, 12: 1, 13: 2, 14: 3, 15: 4, 16: 5, 17: 6}


@settings(max_examples=300, deadline=None)
@given(
    day=st.dates(min_value=dt.date(1901, 1, 1), max_value=dt.date(9999, 12, 31)),
    kind=st.sampled_from(sorted(STARTS)),
)
def test_weeknum_counts_week_starts_since_january_first(day, kind):
    """System 1 by a direct count: 1 plus the days from 2 January to the date that begin a week
    (from 1901: Excel's 1900 has its own weekdays, see the test above)."""
    starts = sum(
        1
        for k in range(1, day.timetuple().tm_yday)
        if (dt.date(day.year, 1, 1) + dt.timedelta(days=k)).weekday() == STARTS[kind]
    )
    assert dates._weeknum_one(_serial(day), float(kind)) == 1 + starts


@settings(max_examples=300, deadline=None)
@given(n=st.integers(1, 0x10FFFF).filter(lambda n: not 0xD800 <= n <= 0xDFFF))
def test_unicode_of_unichar_is_the_number(n):
    ch = text._unichar(n)
    assert text._unicode(ch) == n


@settings(max_examples=200, deadline=None)
@given(pieces=st.lists(st.text(alphabet="ab;x ", max_size=4), min_size=1, max_size=6))
def test_textjoin_undoes_textsplit(pieces):
    """TEXTSPLIT "is the inverse of the TEXTJOIN function" (Microsoft's TEXTSPLIT page): joining
    the pieces of a split with the same delimiter gives the text back."""
    s = ",".join(pieces)
    split = text._textsplit(vec.const(s), vec.const(","))
    joined = text._textjoin(vec.const(","), vec.const(False), split)
    assert joined.ravel()[0] == s
    assert [str(v) for v in np.asarray(split, dtype=object).ravel()] == pieces
