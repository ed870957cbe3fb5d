"""Excel's rules the engine follows where LibreOffice differs (issue 23), each from its source.

The coercion of text to numbers is written once (``run/values.parse_number``) and used by
arithmetic, function arguments and criteria alike; the examples are Microsoft's own:

- VALUE: https://support.microsoft.com/en-us/office/value-function-257d0108-07dc-437d-ae1c-bc2d3953d8c2
  (``=VALUE("$1,000")`` 1000; ``=VALUE("16:48:00")-VALUE("12:00:00")`` 0.2);
- DATEVALUE: https://support.microsoft.com/en-us/office/datevalue-function-df8b07d4-7761-4a93-bc33-b7471bbff252
  (``=DATEVALUE("8/22/2011")`` 40777, ``"22-MAY-2011"`` 40685, ``"2011/02/23"`` 40597): the same
  texts are those numbers in arithmetic and as criteria;
- COUNTIF: https://support.microsoft.com/en-us/office/countif-function-e0de10c6-f885-4e71-abb4-1f464816df34
  (the apples/oranges/peaches table) and ECMA-376 Part 4 (Office Open XML formulas), COUNTIF's
  wildcard example (apples, oranges, grapes, melons);
- YEARFRAC: "If basis < 0 or if basis > 4, YEARFRAC returns the #NUM! error value"
  (https://support.microsoft.com/en-us/office/yearfrac-function-3844141e-c76d-4143-82b6-208454ddc6a8),
  checked before the dates (Excel-saved held-out workbooks of issue 23);
- TEXT: the format codes of "Review guidelines for customizing a number format"
  (https://support.microsoft.com/en-us/office/review-guidelines-for-customizing-a-number-format-c0a1d1fa-d3f4-4018-96b7-9c9354dd99f5):
  ``mmmmm`` the month's first letter (letters that are no code, which the page asks to quote,
  show as written: Excel-saved cells in tests/recalc/test_excel_saved_rules.py);
- XIRR: the rate where XNPV is 0 (an identity whatever the solver), strongly negative ones too.
"""

from __future__ import annotations

import itertools
import math

import openpyxl
import pytest
from recalc_book import s_sheet

from gputco.workbook.recalc import recalc_file


def _values(tmp_path, cells: dict[str, object]) -> dict[str, object]:
    wb, _ = s_sheet(cells=cells)
    wb.save(tmp_path / "r.xlsx")
    dst = tmp_path / "out.xlsx"
    report = recalc_file(tmp_path / "r.xlsx", dst, engine="gputco")
    assert report.unsupported == {}
    out = openpyxl.load_workbook(dst, data_only=True)["S"]
    return {ref: out[ref].value for ref, v in cells.items() if isinstance(v, str) and v.startswith("=")}


def _one(tmp_path, formula: str, inputs: dict[str, object] | None = None):
    return _values(tmp_path, {**(inputs or {}), "Z1": formula})["Z1"]


@pytest.mark.parametrize(
    ("formula", "expected"),
    [
        ('=VALUE("$1,000")', 1000),
        ('=VALUE("16:48:00")-VALUE("12:00:00")', 0.2),
        ('=DATEVALUE("8/22/2011")', 40777),
        ('=DATEVALUE("22-MAY-2011")', 40685),
        ('=DATEVALUE("2011/02/23")', 40597),
        # the same texts in arithmetic and in a function's number argument
        ('="8/22/2011"+0', 40777),
        ('="22-MAY-2011"*1', 40685),
        ('="2011/02/23"-0', 40597),
        ('="16:48:00"-"12:00:00"', 0.2),
        ('=MAX("8/22/2011",1)', 40777),
        ("=VALUE(#N/A)", "#N/A"),
    ],
)
def test_text_to_number_as_microsoft_documents_it(tmp_path, formula, expected):
    got = _one(tmp_path, formula)
    assert got == pytest.approx(expected, rel=1e-12) if isinstance(expected, float | int) else got == expected


def test_criteria_read_dates_as_arithmetic_does(tmp_path):
    got = _values(
        tmp_path,
        {
            "A1": 40777,  # 8/22/2011 as a serial
            "A2": 40685,
            "B1": '=COUNTIF(A1:A2,"8/22/2011")',
            "B2": '=COUNTIF(A1:A2,">22-May-2011")',
            "B3": '=SUMIF(A1:A2,"<=2011/08/22")',
        },
    )
    assert got == {"B1": 1, "B2": 1, "B3": 40777 + 40685}


def test_countif_examples_of_microsoft_s_page(tmp_path):
    data = {"A2": "apples", "A3": "oranges", "A4": "peaches", "A5": "apples"}
    data.update({"B2": 32, "B3": 54, "B4": 75, "B5": 86})
    got = _values(
        tmp_path,
        {
            **data,
            "C1": '=COUNTIF(A2:A5,"apples")',
            "C2": "=COUNTIF(A2:A5,A4)",
            "C3": "=COUNTIF(A2:A5,A2)+COUNTIF(A2:A5,A3)",
            "C4": '=COUNTIF(B2:B5,">55")',
            "C5": '=COUNTIF(B2:B5,"<>"&B4)',
            "C6": '=COUNTIF(B2:B5,">=32")-COUNTIF(B2:B5,">85")',
            "C7": '=COUNTIF(A2:A5,"*")',
            "C8": '=COUNTIF(A2:A5,"?????es")',
        },
    )
    assert got == {"C1": 2, "C2": 1, "C3": 3, "C4": 2, "C5": 3, "C6": 3, "C7": 4, "C8": 2}


def test_countif_wildcards_of_ecma_376(tmp_path):
    data = {"A2": "apples", "B2": "oranges", "C2": "grapes", "D2": "melons"}
    got = _values(
        tmp_path,
        {
            **data,
            "E1": '=COUNTIF(A2:D2,"*es")',
            "E2": '=COUNTIF(A2:D2,"??a*")',
            "E3": '=COUNTIF(A2:D2,"*l*")',
        },
    )
    assert got == {"E1": 3, "E2": 2, "E3": 2}


#: Microsoft's WorksheetFunction.SumIf page (the same rule as the SUMIF and AVERAGEIF pages),
#: https://learn.microsoft.com/en-us/office/vba/api/excel.worksheetfunction.sumif: "The actual
#: cells that are added are determined by using the top, left cell in sum_range as the
#: beginning cell, and then including cells that correspond in size and shape to range":
#: (range, sum_range) -> the cells added
SUM_RANGE_EXAMPLES = [
    ("A1:A5", "B1:B5", "B1:B5"),
    ("A1:A5", "B1:B3", "B1:B5"),
    ("A1:B4", "C1:D4", "C1:D4"),
    ("A1:B4", "C1:C2", "C1:D4"),
]


@pytest.mark.parametrize(("rng", "sum_range", "actual"), SUM_RANGE_EXAMPLES)
def test_sum_range_takes_the_size_of_range_as_microsoft_documents_it(tmp_path, rng, sum_range, actual):
    data = {f"{c}{r}": 1 for c in "AB" for r in range(1, 6)}  # every criterion cell matches
    data.update({f"{c}{r}": 10 ** (r - 1) * (1 if c == "C" else 7) for c in "CD" for r in range(1, 6)})
    got = _values(
        tmp_path,
        {
            **data,
            "F1": f"=SUMIF({rng},1,{sum_range})",
            "F2": f"=SUM({actual})",
            "F3": f"=AVERAGEIF({rng},1,{sum_range})",
            "F4": f"=AVERAGE({actual})",
        },
    )
    assert got["F1"] == got["F2"] and got["F3"] == pytest.approx(got["F4"], rel=1e-15)


def test_sum_range_cells_beyond_the_one_written_are_computed_first(tmp_path):
    """The widened sum_range reads cells the formula does not name: formulas there are
    evaluated before the SUMIF (they depend on an input written below it)."""
    got = _values(
        tmp_path,
        {
            "A1": '=SUMIF(B2:B4,">0",C2)',
            "A2": '=AVERAGEIF(B2:B4,">0",C2)',
            **{f"B{r}": 1 for r in (2, 3, 4)},
            "C2": "=D9*1",
            "C3": "=D9*2",
            "C4": "=D9*3",
            "D9": 5,
        },
    )
    assert got == {"A1": 30, "A2": 10, "C2": 5, "C3": 10, "C4": 15}


def test_an_array_of_criteria_gives_an_array_of_answers(tmp_path):
    data = {"A1": "a", "A2": "b", "A3": "a", "A4": "c"}
    got = _values(
        tmp_path, {**data, "B1": '=SUM(COUNTIF(A1:A4,{"a","b"}))', "B2": '=COUNTIF(A1:A4,{"c";"a"})'}
    )
    assert got == {"B1": 3, "B2": 1}  # a normal cell shows the array's first answer


@pytest.mark.parametrize(
    ("formula", "expected"),
    [
        ('=YEARFRAC("x","y",7)', "#NUM!"),  # the basis before the dates
        ('=YEARFRAC("x",2,1)', "#VALUE!"),
        ("=YEARFRAC(1,2,-1)", "#NUM!"),
    ],
)
def test_yearfrac_checks_its_basis_first(tmp_path, formula, expected):
    assert _one(tmp_path, formula) == expected


@pytest.mark.parametrize(
    ("formula", "expected"),
    [
        ('=TEXT(45000,"mmmmm")', "M"),  # 2023-03-15: March's initial
        ('=TEXT(45000,"dddd")', "Wednesday"),
        ('=TEXT(45000,"ddddd")', "Wednesday"),  # longer runs of d: the day's name
        ('=TEXT(5,"0 x")', "5 x"),  # a letter that is no code shows (test_recalc_excel_saved_rules)
        ('=TEXT(5,"""USD ""0")', "USD 5"),  # quoted letters are text
        ('=TEXT("2024-01-31 06:00","[h]")', "1087734"),  # a date-time text: its serial's hours
    ],
)
def test_text_format_codes(tmp_path, formula, expected):
    assert _one(tmp_path, formula) == expected


@pytest.mark.parametrize(
    ("values", "dates"),
    [
        ((-100, 10, 10), (45000, 45365, 45730)),  # about -0.63
        ((-100, 1), (45000, 45365)),  # -0.99
        ((-100, 110), (45000, 45365)),  # 0.10
        ((-100, 50, 60), (45000, 45100, 45365)),
    ],
)
def test_xirr_is_a_root_of_xnpv_strongly_negative_ones_too(tmp_path, values, dates):
    cells = {f"A{i + 1}": v for i, v in enumerate(values)}
    cells.update({f"B{i + 1}": d for i, d in enumerate(dates)})
    n = len(values)
    got = _values(tmp_path, {**cells, "C1": f"=XIRR(A1:A{n},B1:B{n})"})["C1"]
    assert isinstance(got, float) and got > -1
    npv = sum(v / (1 + got) ** ((d - dates[0]) / 365) for v, d in zip(values, dates, strict=True))
    assert abs(npv) < 1e-6 * max(map(abs, values))
    if n == 2:  # closed form: (-v1/v0)^(365/days) - 1
        assert math.isclose(got, (-values[1] / values[0]) ** (365 / (dates[1] - dates[0])) - 1, rel_tol=1e-9)


@pytest.mark.parametrize(
    ("formula", "expected"),
    [
        ("=MIN(5,)", 0),  # an empty argument in the list counts as 0
        ("=COUNT(1,)", 2),
        ('=LEFT("abc",)', None),  # num_chars empty: 0 characters ("" reads back as blank)
        ("=IF(FALSE,1,)", 0),
        ("=AND(TRUE,)", False),
        ('=CONCATENATE("a",,"b")', "ab"),
        ('=_xlfn.CONCAT(,"D",2.5)', "D2.5"),  # a list of texts: the empty one is "" (LibreOffice too)
        ("=DOLLAR(2.5,)", "$3"),  # decimals empty: 0, not the default 2 (LibreOffice too)
        ("=RIGHT(1,#N/A)", "#N/A"),
    ],
)
def test_arguments_left_empty(tmp_path, formula, expected):
    assert _one(tmp_path, formula) == expected


@pytest.mark.parametrize(
    ("formula", "expected"),
    [
        ("=ROUND(2.5,1000)", 2.5),
        ('=ROUNDDOWN(7,"1,000")', 7.0),
        ("=ROUND(-2.5,400)", -2.5),
        ("=ROUNDUP(10,-1000)", 0.0),
    ],
)
def test_round_to_more_digits_than_a_number_has(tmp_path, formula, expected):
    """ROUND/ROUNDUP/ROUNDDOWN with num_digits whose power of ten passes the largest number:
    the number kept (more decimals than it has), or 0 (more digits left of the point than it
    has); before, 10^1000 overflowed to #NUM!. LibreOffice 7.4.7.2 gives the same (the
    differential fuzzer's run of 2026-12-03); Microsoft's ROUND page sets no limit on num_digits."""
    assert _one(tmp_path, formula) == expected


# Microsoft, "Default sort orders" (Excel help; office.microsoft.com/en-nz/excel-help/
# default-sort-orders-HP005199669.aspx): "Text and text that includes numbers are sorted in the
# following order: 0 1 2 3 4 5 6 7 8 9 (space) ! " # $ % & ( ) * , . / : ; ? @ [ \ ] ^ _ ` { | }
# ~ + < = > A B C ... Z. Apostrophes (') and hyphens (-) are ignored, with one exception: If two
# text strings are the same except for a hyphen, the text with the hyphen is sorted last."; "if a
# cell contains the text "A100," Excel places the cell after a cell that contains the entry "A1"
# and before a cell that contains the entry "A11"". LibreOffice 7.4 orders by ICU's collation
# (punctuation before digits: ="!"<"1" is TRUE there, FALSE in Excel's order).
_PAGE_ORDER = list("0123456789 " + '!"#$%&()*,./:;?@[\\]^_`{|}~+<=>' + "ABCDEFGHIJKLMNOPQRSTUVWXYZ")


def _text(s: str) -> str:
    return '"' + s.replace('"', '""') + '"'


def test_text_compares_in_the_order_of_microsoft_s_sort_page(tmp_path):
    cells = {}
    pairs = list(itertools.pairwise(_PAGE_ORDER))
    for i, (a, b) in enumerate(pairs, 1):
        cells[f"A{i}"] = f"={_text(a)}<{_text(b)}"
        cells[f"B{i}"] = f"={_text(b.lower())}>{_text(a.lower())}"  # without case, either way round
    got = _values(tmp_path, cells)
    wrong = [
        (a, b) for i, (a, b) in enumerate(pairs, 1) if got[f"A{i}"] is not True or got[f"B{i}"] is not True
    ]
    assert wrong == []


def test_text_order_examples_of_the_page(tmp_path):
    got = _values(
        tmp_path,
        {
            "A1": '="A1"<"A100"',
            "A2": '="A100"<"A11"',
            "A3": '="a-c">"ab"',  # the hyphen ignored: ac after ab
            "A4": '="a-b">"ab"',  # the same but for a hyphen: the hyphen's sorts last
            "A5": '="a-b"="ab"',
            "A6": '="it\'s">"its"',
            "A7": '="a"="A"',
            "A8": '=LOOKUP("?pple","<>")',  # "?" sorts before "<": no text <= "?pple"
            "A9": '=MATCH("b",{"1","!","<","a","c"},1)',  # sorted in Excel's order: "a" is 4th
            "A10": '=COUNTIF(C1:C4,"<a")',
            "C1": "1",
            "C2": "!",
            "C3": "~",
            "C4": "b",
        },
    )
    assert [got[f"A{i}"] for i in range(1, 11)] == [True, True, True, True, False, True, True, "#N/A", 4, 3]


def test_a_logical_value_a_call_gives_is_the_text_true_or_false_in_text_functions(tmp_path):
    """Excel writes a logical value as TRUE or FALSE where text is asked: POI's Excel-saved
    FormulaEvalTestData_Copy.xlsx, EverythingTests!I824 =LEFT(TRUE,2) cached "TR" (I1168
    =RIGHT(TRUE,2) "UE"); a call's logical value is the same value (LibreOffice reads 1 or 0:
    EXACT("0",NOT(-2.5)) is TRUE there)."""
    got = _values(
        tmp_path,
        {
            "A1": '=EXACT("0",NOT(-2.5))',
            "A2": '=EXACT("FALSE",NOT(-2.5))',
            "A3": "=LEN(NOT(1))",
            "A4": "=LEFT(ISNUMBER(1),2)",
            "A5": '=CONCATENATE(AND(1,1),"x")',
        },
    )
    assert [got[f"A{i}"] for i in range(1, 6)] == [False, True, 5, "TR", "TRUEx"]


def test_mode_mult_reads_its_arguments_as_mode_sngl_does(tmp_path):
    """Microsoft's MODE.MULT page, as its MODE.SNGL page: "If an array or reference argument
    contains text, logical values, or empty cells, those values are ignored ... Arguments that are
    error values or text that cannot be translated into numbers cause errors"
    (https://support.microsoft.com/en-us/office/mode-mult-function-50fd9464-b2ba-4191-b57a-39446689ae8c).
    A text typed as an argument was ignored (1 where LibreOffice, too, gives #VALUE!)."""
    got = _values(
        tmp_path,
        {
            "A1": 1.0,
            "A2": 1.0,
            "A3": "a",
            "A4": 2.0,
            "B1": '=_xlfn.MODE.MULT(1,1,"a*")',
            "B2": '=_xlfn.MODE.MULT(A1:A4,"a*")',
            "B3": "=_xlfn.MODE.MULT(A1:A4)",  # the range's text is ignored
            "B4": "=_xlfn.MODE.MULT(A1:A4,1/0)",
            "B5": '=MODE.SNGL(1,1,"a*")',
            "B6": "=_xlfn.MODE.MULT(1,2)",
        },
    )
    assert [got[f"B{i}"] for i in range(1, 7)] == ["#VALUE!", "#VALUE!", 1, "#DIV/0!", "#VALUE!", "#N/A"]
