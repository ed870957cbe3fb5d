"""Excel 365's dynamic arrays: FILTER, UNIQUE, SORT, SEQUENCE, LET, and how spills are written.

LibreOffice 7.4 has none of these functions, so the oracle is Microsoft's documentation; each test
names the page and the statement or example it checks. Excel saves a dynamic-array formula as an
array formula over the block it spilled to (``<f t="array" ref="A1:A5">``) with a ``cm`` attribute
on the cell; the books here are written that way (openpyxl, then the attribute added).

Spill sizes (Microsoft, "Handle dynamic arrays and spilling",
https://learn.microsoft.com/en-us/office/dev/add-ins/excel/excel-add-ins-ranges-dynamic-arrays):
a result spills over as many cells as it has; if a cell it needs is not empty the formula is
#SPILL!. Recalculated, a smaller result leaves the rest of the old block empty, a blocked one
shows #SPILL!, and a larger one that runs past the cells the file holds is computed (formulas
that read it get it) and reported as not written.
"""

from __future__ import annotations

import math
import re
import zipfile
from pathlib import Path

import openpyxl
import pytest
from openpyxl.worksheet.formula import ArrayFormula
from recalc_book import mark_dynamic

from gputco.workbook.recalc import evaluate_workbook, recalc_file
from gputco.workbook.recalc.base.refs import split_cell
from gputco.workbook.recalc.read.package import open_package
from gputco.workbook.recalc.run.engine import evaluate_package
from gputco.workbook.soffice.fallback import libreoffice_values

FILTER_PAGE = "https://support.microsoft.com/en-us/excel/filter-function"
UNIQUE_PAGE = "https://support.microsoft.com/es-es/excel/functions/unique-function"
SORT_PAGE = "https://support.microsoft.com/ko-KR/Excel/sort-function"
SEQUENCE_PAGE = "https://support.microsoft.com/ko-KR/Excel/sequence-function"
LET_PAGE = "https://support.microsoft.com/en-us/Excel/functions/let-function"

#: Region, Sales Rep, Product, Units: the shape of the FILTER page's example table (A5:D20 there;
#: A2:D9 here, values ours)
SALES = [
    ("East", "Tom", "Apple", 6380),
    ("West", "Fred", "Grape", 5619),
    ("North", "Amy", "Pear", 4565),
    ("South", "Sal", "Banana", 5323),
    ("East", "Fritz", "Apple", 4394),
    ("West", "Sravan", "Apple", 7195),
    ("East", "Xi", "Banana", 5231),
    ("South", "Hector", "Apple", 2427),
]


def _book(
    path: Path,
    blocks: dict[str, tuple[str, str]],
    cells: dict[str, object] | None = None,
    dynamic: bool = True,
) -> Path:
    """Sales data in Data!A1:D9, and on sheet S one array formula per block (cell -> (ref,
    formula)), every cell of each ref holding a stale 0 as Excel would have saved it; with
    ``dynamic`` the formula cells carry cm="1" (Excel 365's dynamic-array marker)."""
    wb = openpyxl.Workbook()
    data = wb.active
    data.title = "Data"
    for j, head in enumerate(("Region", "Sales Rep", "Product", "Units"), start=1):
        data.cell(1, j, head)
    for i, row in enumerate(SALES, start=2):
        for j, v in enumerate(row, start=1):
            data.cell(i, j, v)
    ws = wb.create_sheet("S")
    for cell, value in (cells or {}).items():
        ws[cell] = value
    for cell, (ref, formula) in blocks.items():
        top, left = split_cell(ref.split(":")[0])
        bottom, right = split_cell(ref.split(":")[-1])
        for r in range(top, bottom + 1):
            for c in range(left, right + 1):
                ws.cell(r, c, 0)
        ws[cell] = ArrayFormula(ref, formula)
    wb.save(path)
    if dynamic:
        mark_dynamic(path, list(blocks), "xl/worksheets/sheet2.xml")
    return path


def _values(path: Path, refs: list[str], sheet: str = "S") -> list:
    evaluation = evaluate_package(open_package(path), {})
    return [evaluation.value(sheet, *split_cell(a)) for a in refs], evaluation


def _grid(path: Path, top_left: str, h: int, w: int):
    r0, c0 = split_cell(top_left)
    evaluation = evaluate_package(open_package(path), {})
    return [[evaluation.value("S", r0 + i, c0 + j) for j in range(w)] for i in range(h)], evaluation


def test_sequence_four_by_five(tmp_path):
    # SEQUENCE_PAGE: "=SEQUENCE(4,5)" creates an array 4 rows tall by 5 columns wide (1..20)
    book = _book(tmp_path / "s.xlsx", {"A1": ("A1:E4", "=_xlfn.SEQUENCE(4,5)")})
    grid, _ = _grid(book, "A1", 4, 5)
    assert grid == [[float(5 * i + j + 1) for j in range(5)] for i in range(4)]


def test_sequence_start_step_and_defaults(tmp_path):
    # SEQUENCE_PAGE: [start] the first number, [step] the amount to increment each value;
    # "any missing optional arguments will default to 1"
    book = _book(
        tmp_path / "s.xlsx",
        {
            "A1": ("A1:C2", "=_xlfn.SEQUENCE(2,3,10,-1)"),
            "A4": ("A4:A6", "=_xlfn.SEQUENCE(3)"),
            "C4": ("C4:C4", "=SUM(_xlfn.SEQUENCE(100))"),
        },
    )
    grid, _ = _grid(book, "A1", 2, 3)
    assert grid == [[10.0, 9.0, 8.0], [7.0, 6.0, 5.0]]
    assert _values(book, ["A4", "A5", "A6", "C4"])[0] == [1.0, 2.0, 3.0, 5050.0]


def test_filter_returns_the_matching_records(tmp_path):
    # FILTER_PAGE: "=FILTER(A5:D20,C5:C20=H2,"")" returns all records for Apple
    book = _book(
        tmp_path / "f.xlsx",
        {"A1": ("A1:D4", '=_xlfn._xlws.FILTER(Data!A2:D9,Data!C2:C9=H1,"")')},
        {"H1": "Apple"},
    )
    grid, evaluation = _grid(book, "A1", 4, 4)
    assert grid == [
        list(r) if isinstance(r[3], str) else [*r[:3], float(r[3])] for r in SALES if r[2] == "Apple"
    ]
    assert not evaluation.problems


def test_filter_with_two_conditions_and_sorted(tmp_path):
    # FILTER_PAGE: (C5:C20=H1)*(A5:A20=H2) is both conditions; SORT(FILTER(...),4,-1) sorts the
    # records by Units, descending
    f = '=_xlfn._xlws.SORT(_xlfn._xlws.FILTER(Data!A2:D9,(Data!C2:C9=H1)*(Data!A2:A9=H2),""),4,-1)'
    book = _book(tmp_path / "f.xlsx", {"A1": ("A1:D2", f)}, {"H1": "Apple", "H2": "East"})
    grid, _ = _grid(book, "A1", 2, 4)
    assert grid == [["East", "Tom", "Apple", 6380.0], ["East", "Fritz", "Apple", 4394.0]]


def test_filter_empty_result_is_calc_unless_if_empty(tmp_path):
    # FILTER_PAGE: "If your dataset has the potential of returning an empty value, then use the
    # 3rd argument ([if_empty]). Otherwise, a #CALC! error will result"
    book = _book(
        tmp_path / "f.xlsx",
        {
            "A1": ("A1:A2", "=_xlfn._xlws.FILTER(Data!A2:A9,Data!D2:D9>9000)"),
            "B1": ("B1:B2", '=_xlfn._xlws.FILTER(Data!A2:A9,Data!D2:D9>9000,"none")'),
        },
    )
    vals, _ = _values(book, ["A1", "A2", "B1", "B2"])
    assert [str(vals[0]), vals[1], vals[2], vals[3]] == ["#CALC!", None, "none", None]


def test_filter_include_error_or_text_is_an_error(tmp_path):
    # FILTER_PAGE: "If any value of the include argument is an error (#N/A, #VALUE, etc) or
    # cannot be converted to a Boolean, the FILTER function will return an error"
    book = _book(
        tmp_path / "f.xlsx",
        {
            "A1": ("A1", "=_xlfn._xlws.FILTER(Data!A2:A4,{TRUE;#N/A;FALSE})"),
            "B1": ("B1", '=_xlfn._xlws.FILTER(Data!A2:A4,{TRUE;"x";FALSE})'),
            "C1": ("C1", "=_xlfn._xlws.FILTER(Data!A2:A4,{TRUE;FALSE})"),
        },
    )  # wrong height
    vals, _ = _values(book, ["A1", "B1", "C1"])
    assert [str(v) for v in vals] == ["#N/A", "#VALUE!", "#VALUE!"]


def test_unique_rows_and_exactly_once(tmp_path):
    # UNIQUE_PAGE: returns the distinct rows; exactly_once TRUE "will return all distinct rows
    # or columns that occur exactly once"; by_col TRUE compares columns
    book = _book(
        tmp_path / "u.xlsx",
        {
            "A1": ("A1:A4", "=_xlfn.UNIQUE(Data!C2:C9)"),
            "B1": ("B1:B1", "=_xlfn.UNIQUE(Data!C2:C9,FALSE,TRUE)"),
            "C1": ("C1:E1", "=_xlfn.UNIQUE({1,2,1,3},TRUE)"),
        },
    )
    vals, _ = _values(book, ["A1", "A2", "A3", "A4", "B1", "C1", "D1", "E1"])
    assert vals == ["Apple", "Grape", "Pear", "Banana", "Grape", 1.0, 2.0, 3.0]


def test_sort_ascending_descending_and_by_column(tmp_path):
    # SORT_PAGE: sort_index defaults to row1/col1, order to ascending (1), -1 descending; by_col
    # TRUE sorts columns
    book = _book(
        tmp_path / "o.xlsx",
        {
            "A1": ("A1:A8", "=_xlfn._xlws.SORT(Data!B2:B9)"),
            "B1": ("B1:B8", "=_xlfn._xlws.SORT(Data!D2:D9,1,-1)"),
            "C1": ("C1:E1", "=_xlfn._xlws.SORT({3,1,2},1,1,TRUE)"),
            "F1": ("F1", "=_xlfn._xlws.SORT(Data!D2:D9,5)"),
        },
    )
    grid, _ = _grid(book, "A1", 8, 2)
    assert [r[0] for r in grid] == sorted((r[1] for r in SALES), key=str.lower)
    assert [r[1] for r in grid] == sorted((float(r[3]) for r in SALES), reverse=True)
    vals, _ = _values(book, ["C1", "D1", "E1", "F1"])
    assert vals[:3] == [1.0, 2.0, 3.0] and str(vals[3]) == "#VALUE!"


def test_let_examples(tmp_path):
    # LET_PAGE, example 1: "=LET(x, 5, SUM(x, 1))" returns 6; names apply only inside the LET,
    # later names may use earlier ones, and a name may stand for a range
    path = tmp_path / "l.xlsx"
    wb = openpyxl.Workbook()
    ws = wb.active
    ws["A1"] = "=_xlfn.LET(_xlpm.x,5,SUM(_xlpm.x,1))"
    ws["A2"] = "=_xlfn.LET(_xlpm.x,2,_xlpm.y,_xlpm.x*10,_xlpm.y+_xlpm.x)"
    ws["A3"] = "=_xlfn.LET(_xlpm.r,B1:B3,SUM(_xlpm.r)*2)"
    ws["A4"] = "=_xlfn.LET(_xlpm.x,1,_xlfn.LET(_xlpm.x,7,_xlpm.x)+_xlpm.x)"  # inner x shadows
    ws["A5"] = "=_xlfn.LET(_xlpm.x,1)"  # no calculation
    ws["A6"] = "=x+1"  # x is not defined outside the LET
    for r, v in enumerate((1, 2, 3), start=1):
        ws.cell(r, 2, v)
    wb.save(path)
    got = evaluate_workbook(path, functions={})
    assert [got[("Sheet", f"A{r}")] for r in range(1, 5)] == [6.0, 22.0, 12.0, 8.0]
    assert str(got[("Sheet", "A5")]) == "#VALUE!" and str(got[("Sheet", "A6")]) == "#NAME?"


def test_dynamic_spill_shrinks_and_the_writer_empties_cells(tmp_path):
    """A5:A9 held five values; FILTER now returns three: the last two cells become empty."""
    book = _book(
        tmp_path / "d.xlsx",
        {"A1": ("A1:A5", '=_xlfn._xlws.FILTER(Data!B2:B9,Data!C2:C9="Apple")')},
        {"H1": "=COUNTA(A1:A9)"},
    )
    out = tmp_path / "out.xlsx"
    report = recalc_file(book, out, functions={}, fallback=libreoffice_values)
    assert not report.problems
    ws = openpyxl.load_workbook(out, data_only=True)["S"]
    assert [ws[f"A{r}"].value for r in range(1, 6)] == ["Tom", "Fritz", "Sravan", "Hector", None]
    assert ws["H1"].value == 4
    sheet = zipfile.ZipFile(out).read("xl/worksheets/sheet2.xml")
    assert re.search(rb'<c r="A5"[^>]*/>|<c r="A5"[^>]*></c>', sheet), "A5 keeps no value"


def test_dynamic_spill_blocked_is_spill_error(tmp_path):
    """Three rows stored, five now: A4 holds a value, so the spill is blocked (#SPILL!) and the
    rest of the old block is empty."""
    book = _book(tmp_path / "d.xlsx", {"A1": ("A1:A3", "=_xlfn.SEQUENCE(5)")}, {"A4": "in the way"})
    vals, evaluation = _values(book, ["A1", "A2", "A3", "A4"])
    assert [str(vals[0]), vals[1], vals[2], vals[3]] == ["#SPILL!", None, None, "in the way"]
    assert not evaluation.problems


def test_dynamic_spill_grows_past_the_file(tmp_path):
    """Three rows stored, five now, nothing below: the values are computed (formulas reading
    C4:C5, which the planner could not order after C1, get them: the workbook is evaluated again
    until its values settle) and the report names the cells the file has no place for."""
    book = _book(
        tmp_path / "d.xlsx",
        {"C1": ("C1:C3", "=_xlfn.SEQUENCE(5)")},
        {"A1": "=C5*2", "A2": "=SUM(C1:C9)", "E1": "=C4+1"},
    )
    vals, evaluation = _values(book, ["C1", "C3", "C5", "A1", "A2", "E1"])
    assert vals == [1.0, 3.0, 5.0, 10.0, 15.0, 5.0]
    assert (
        len(evaluation.problems) == 1
        and "S!C1" in evaluation.problems[0]
        and "C1:C5" in evaluation.problems[0]
        and "2 cells" in evaluation.problems[0]
    )


def test_cse_block_keeps_its_size(tmp_path):
    """A CSE formula (no cm) keeps its block: a larger result is cut, a smaller one is #N/A."""
    book = _book(
        tmp_path / "c.xlsx",
        {"A1": ("A1:A2", "=_xlfn.SEQUENCE(5)"), "B1": ("B1:B4", "=_xlfn.SEQUENCE(2)")},
        {"A3": "free"},
        dynamic=False,
    )
    vals, _ = _values(book, ["A1", "A2", "A3", "B1", "B2", "B3", "B4"])
    assert vals[:3] == [1.0, 2.0, "free"] and vals[3:5] == [1.0, 2.0]
    assert [str(v) for v in vals[5:]] == ["#N/A", "#N/A"]


@pytest.mark.parametrize("cell", ['<c r="B1"/>', '<c r="B1" s="0"></c>'])
def test_writer_fills_block_cells_written_without_value(tmp_path, cell):
    """Cells of a block stored empty (``<c r="B1"/>``) get their value written in."""
    path = _book(tmp_path / "w.xlsx", {"A1": ("A1:B1", "={1,2}")}, dynamic=False)
    tmp = tmp_path / "w2.xlsx"
    with zipfile.ZipFile(path) as zin, zipfile.ZipFile(tmp, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename == "xl/worksheets/sheet2.xml":
                data, n = re.subn(rb'<c r="B1"[^>]*>(<v>0</v>)?</c>|<c r="B1"[^>]*/>', cell.encode(), data)
                assert n == 1
            zout.writestr(info, data)
    out = tmp_path / "out.xlsx"
    recalc_file(tmp, out, functions={}, fallback=libreoffice_values)
    ws = openpyxl.load_workbook(out, data_only=True)["S"]
    assert (ws["A1"].value, ws["B1"].value) == (1, 2)


def test_table_udf_fills_an_array_block(tmp_path):
    """gputco's TCO_SYSTEMS() returns a table (header row, one row per preset system): in an
    array formula over its size it fills the block, as Excel spills an xlwings table; a dynamic
    array stored one row short grows past the file (computed, and reported)."""
    from gputco import udfs

    table = udfs.UDFS["TCO_SYSTEMS"]()
    h, w = len(table), len(table[0])
    last = f"{chr(ord('A') + w - 1)}{h}"
    book = _book(tmp_path / "t.xlsx", {"A1": (f"A1:{last}", "=TCO_SYSTEMS()")}, dynamic=False)
    evaluation = evaluate_package(open_package(book), udfs.UDFS)
    got = [[evaluation.value("S", r + 1, c + 1) for c in range(w)] for r in range(h)]
    assert got == table
    short = _book(tmp_path / "d.xlsx", {"A1": (f"A1:{chr(ord('A') + w - 1)}{h - 1}", "=TCO_SYSTEMS()")})
    evaluation = evaluate_package(open_package(short), udfs.UDFS)
    assert evaluation.value("S", h, 1) == table[-1][0]
    assert len(evaluation.problems) == 1 and f"{w} cells" in evaluation.problems[0]


def test_choosecols_and_chooserows(tmp_path):
    # Microsoft's CHOOSECOLS page (https://support.microsoft.com/en-us/Excel/choosecols-function):
    # example 1 returns columns 1, 3, 5 and 1 again of the 6x5 table 1..30 (SEQUENCE(6,5)
    # here); example 3, -1,-2, the last column then the one before; "Excel returns a #VALUE
    # error if the absolute value of any of the col_num arguments is zero or exceeds the number
    # of columns". CHOOSEROWS is its row twin. Excel's own answers for CHOOSECOLS(A1:C5,3,1) are
    # in tests/recalc/test_excel_saved_arrays.py
    book = _book(
        tmp_path / "c.xlsx",
        {
            "A1": ("A1:D6", "=_xlfn.CHOOSECOLS(_xlfn.SEQUENCE(6,5),1,3,5,1)"),
            "F1": ("F1:G6", "=_xlfn.CHOOSECOLS(_xlfn.SEQUENCE(6,4),-1,-2)"),
            "I1": ("I1:L2", "=_xlfn.CHOOSEROWS(Data!A2:D9,{1,8})"),
            "N1": ("N1", "=_xlfn.CHOOSECOLS(Data!A2:D4,5)"),
            "O1": ("O1", "=_xlfn.CHOOSEROWS(Data!A2:D4,0)"),
        },
    )
    grid, _ = _grid(book, "A1", 6, 4)
    assert grid == [[5.0 * r + c for c in (1, 3, 5, 1)] for r in range(6)]
    grid, _ = _grid(book, "F1", 6, 2)
    assert grid == [[4.0 * r + c for c in (4, 3)] for r in range(6)]
    grid, _ = _grid(book, "I1", 2, 4)
    assert grid == [["East", "Tom", "Apple", 6380.0], ["South", "Hector", "Apple", 2427.0]]
    vals, _ = _values(book, ["N1", "O1"])
    assert [str(v) for v in vals] == ["#VALUE!", "#VALUE!"]


def test_spill_reference_and_implicit_intersection(tmp_path):
    """Excel 365 saves ``A1#`` as ``_xlfn.ANCHORARRAY(A1)`` and ``@`` as ``_xlfn.SINGLE(...)``:
    A1# is the block A1's formula fills now (here grown from the 3 rows stored to 5), #REF! for a
    cell that is not a spill's anchor; @ picks the cell in the formula's row."""
    book = _book(
        tmp_path / "a.xlsx",
        {"A1": ("A1:A3", "=_xlfn.SEQUENCE(5)")},
        {
            "C1": "=SUM(_xlfn.ANCHORARRAY(A1))",
            "C2": "=ROWS(_xlfn.ANCHORARRAY(A1))",
            "C3": "=_xlfn.ANCHORARRAY(B1)",
            "C4": "=_xlfn.SINGLE(A1:A9)*10",
            "C5": "=_xlfn.SINGLE({7,8,9})",
        },
    )
    vals, _ = _values(book, ["C1", "C2", "C3", "C4", "C5"])
    assert vals[:2] == [15.0, 5.0] and str(vals[2]) == "#REF!" and vals[3:] == [40.0, 7.0]


def test_sortby(tmp_path):
    # Microsoft's SORTBY page (https://support.microsoft.com/zh-CN/Excel/sortby-function):
    # =SORTBY(D2:E9,E2:E9) sorts names by age, ascending; a table by region ascending, then by
    # age descending; "By_array arguments must either be one row high or one column wide", "all
    # of the arguments must be the same size", a sort order other than -1 or 1 is #VALUE!
    book = _book(
        tmp_path / "b.xlsx",
        {
            "A1": ("A1:A8", "=_xlfn.SORTBY(Data!B2:B9,Data!D2:D9)"),
            "C1": ("C1:D8", "=_xlfn.SORTBY(Data!A2:B9,Data!A2:A9,1,Data!D2:D9,-1)"),
            "F1": ("F1", "=_xlfn.SORTBY(Data!B2:B9,Data!D2:D5)"),
            "G1": ("G1", "=_xlfn.SORTBY(Data!B2:B9,Data!D2:D9,2)"),
        },
    )
    vals, _ = _values(book, [f"A{r}" for r in range(1, 9)] + ["F1", "G1"])
    assert vals[:8] == [r[1] for r in sorted(SALES, key=lambda r: r[3])]
    assert [str(v) for v in vals[8:]] == ["#VALUE!", "#VALUE!"]
    grid, _ = _grid(book, "C1", 8, 2)
    assert grid == [[r[0], r[1]] for r in sorted(SALES, key=lambda r: (r[0], -r[3]))]


def test_a_huge_block_is_refused_before_any_work(tmp_path):
    """A file whose array formula claims a block of the whole sheet (17 billion cells) is refused
    with the limit named, not planned cell by cell."""
    from gputco.workbook.recalc import LimitExceededError

    book = _book(tmp_path / "h.xlsx", {"A1": ("A1:A2", "=1")}, dynamic=False)
    tmp = tmp_path / "h2.xlsx"
    with zipfile.ZipFile(book) as zin, zipfile.ZipFile(tmp, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename == "xl/worksheets/sheet2.xml":
                data = data.replace(b'ref="A1:A2"', b'ref="A1:XFD1048576"')
            zout.writestr(info, data)
    with pytest.raises(LimitExceededError, match="A1:XFD1048576"):
        evaluate_workbook(tmp, functions={})


def test_a_function_over_arrays_of_different_sizes_pads_with_na(tmp_path):
    """Excel's rule for arrays of different sizes in one formula ("How Microsoft Excel expands
    array formulas", Excel's help on array formulas: ``={1,2}+{1,2,3;4,5,6}`` is evaluated as
    ``{1,2,#N/A;1,2,#N/A}+{1,2,3;4,5,6}``) holds for a function's arguments as for an operator's:
    a one-row array serves every row, and where a larger array has no element the result is #N/A.
    Before, the engine gave #VALUE! for the whole formula (the differential fuzzer's
    ``EXPON.DIST({1,2;3,4},{1,2,3},7)``, whose top-left LibreOffice gives as 1 - e^-1)."""
    book = _book(
        tmp_path / "s.xlsx",
        {
            "A1": ("A1:C2", "=_xlfn.EXPON.DIST({1,2;3,4},{1,2,3},TRUE)"),
            "A4": ("A4:C5", "={1,2}+{1,2,3;4,5,6}"),
        },
        dynamic=False,
    )
    grid, _ = _grid(book, "A1", 2, 3)
    expected = [[1 - math.exp(-1), 1 - math.exp(-4)], [1 - math.exp(-3), 1 - math.exp(-8)]]
    for got, want in zip(grid, expected, strict=True):
        assert [round(v, 15) for v in got[:2]] == [round(v, 15) for v in want] and str(got[2]) == "#N/A"
    ops, _ = _grid(book, "A4", 2, 3)
    assert ops[0][:2] == [2.0, 4.0] and ops[1][:2] == [5.0, 7.0] and [str(r[2]) for r in ops] == ["#N/A"] * 2
