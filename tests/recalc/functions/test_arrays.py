"""TAKE, DROP, EXPAND, HSTACK, VSTACK, TOCOL, TOROW, WRAPROWS, WRAPCOLS (Excel 365), which
LibreOffice 7.4 lacks: the oracle is Microsoft's documentation.

Each test names the support.microsoft.com page (its title) and reproduces its examples: the same
data at the same cells of a data sheet, the same formula, and the result the page describes. The
formulas are saved as Excel 365 saves a spilled formula (an array formula over the block it
covered, with the ``cm`` dynamic-array marker), with the ``_xlfn.`` prefix Excel writes, and the
engine recomputes the block.
"""

from __future__ import annotations

from pathlib import Path

import openpyxl
from openpyxl.worksheet.formula import ArrayFormula
from recalc_book import mark_dynamic

from gputco.workbook.recalc.base.refs import split_cell
from gputco.workbook.recalc.read.package import open_package
from gputco.workbook.recalc.run.engine import evaluate_package

NA, VALUE, NUM, CALC = "#N/A", "#VALUE!", "#NUM!", "#CALC!"

#: the examples' data: 1..9 in A2:C4 (TAKE, DROP)
NINE = {f"{c}{r}": float(3 * (r - 2) + i + 1) for r in (2, 3, 4) for i, c in enumerate("ABC")}


def _evaluate(tmp_path: Path, data: dict[str, object], blocks: dict[str, tuple[str, str]]):
    """Sheet D holds ``data``; sheet S one spilled formula per block (cell -> (ref, formula)),
    every cell of the block holding a stale 0 as Excel saves it. Returns a function giving the
    grid of values of a block."""
    wb = openpyxl.Workbook()
    s = wb.active
    s.title = "S"
    d = wb.create_sheet("D")
    for ref, v in data.items():
        d[ref] = v
    for cell, (ref, formula) in blocks.items():
        for row in s[ref] if ":" in ref else ((s[ref],),):
            for c in row:
                c.value = 0
        s[cell] = ArrayFormula(ref, formula)
    path = tmp_path / "reshape.xlsx"
    wb.save(path)
    mark_dynamic(path, blocks, "xl/worksheets/sheet1.xml")
    evaluation = evaluate_package(open_package(path), {})
    assert not evaluation.problems, evaluation.problems

    def grid(top_left: str, h: int, w: int) -> list[list[object]]:
        r0, c0 = split_cell(top_left)
        return [[_plain(evaluation.value("S", r0 + i, c0 + j)) for j in range(w)] for i in range(h)]

    return grid


def _plain(v):
    return str(v) if type(v).__name__ == "XlError" else v


def test_take(tmp_path):
    # "TAKE function": examples 1-4 on 1..9 in A2:C4; "Excel returns a #CALC! error to indicate
    # an empty array when either rows or columns is 0"
    grid = _evaluate(
        tmp_path,
        NINE,
        {
            "A1": ("A1:C2", "=_xlfn.TAKE(D!A2:C4,2)"),
            "E1": ("E1:F3", "=_xlfn.TAKE(D!A2:C4,,2)"),
            "H1": ("H1:J2", "=_xlfn.TAKE(D!A2:C4,-2)"),
            "L1": ("L1:M2", "=_xlfn.TAKE(D!A2:C4,2,2)"),
            "O1": ("O1", "=_xlfn.TAKE(D!A2:C4,0)"),
            "P1": ("P1", "=_xlfn.TAKE(D!A2:C4,1,0)"),
            "Q1": ("Q1:R1", "=_xlfn.TAKE(D!A2:C4,-1,-2)"),
            "T1": ("T1", '=_xlfn.TAKE(D!A2:C4,"x")'),
        },
    )
    assert grid("A1", 2, 3) == [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    assert grid("E1", 3, 2) == [[1.0, 2.0], [4.0, 5.0], [7.0, 8.0]]
    assert grid("H1", 2, 3) == [[4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]
    assert grid("L1", 2, 2) == [[1.0, 2.0], [4.0, 5.0]]
    assert grid("O1", 1, 2) == [[CALC, CALC]]
    assert grid("Q1", 1, 2) == [[8.0, 9.0]]  # negative counts take from the end on both axes
    assert grid("T1", 1, 1) == [[VALUE]]


def test_drop(tmp_path):
    # "DROP function": examples 1-4 on 1..9 in A2:C4 (drop 2 rows, 2 columns, the last 2 rows,
    # 2 rows and 2 columns); dropping everything leaves the empty array, #CALC!
    grid = _evaluate(
        tmp_path,
        NINE,
        {
            "A1": ("A1:C1", "=_xlfn.DROP(D!A2:C4,2)"),
            "E1": ("E1:E3", "=_xlfn.DROP(D!A2:C4,,2)"),
            "G1": ("G1:I1", "=_xlfn.DROP(D!A2:C4,-2)"),
            "K1": ("K1", "=_xlfn.DROP(D!A2:C4,2,2)"),
            "M1": ("M1", "=_xlfn.DROP(D!A2:C4,3)"),
            "N1": ("N1:O3", "=_xlfn.DROP(D!A2:C4,,-1)"),
        },
    )
    assert grid("A1", 1, 3) == [[7.0, 8.0, 9.0]]
    assert grid("E1", 3, 1) == [[3.0], [6.0], [9.0]]
    assert grid("G1", 1, 3) == [[1.0, 2.0, 3.0]]
    assert grid("K1", 1, 1) == [[9.0]]
    assert grid("M1", 1, 1) == [[CALC]]
    assert grid("N1", 3, 2) == [[1.0, 2.0], [4.0, 5.0], [7.0, 8.0]]


def test_expand(tmp_path):
    # "EXPAND Function": example 1 resizes the 2x2 array 1,2;3,4 in A2:B3 to 3x3, padded with
    # #N/A; example 2 the 1x1 array A2 to 3x3 padded with "-"; "Excel returns a #VALUE error when
    # the rows or columns argument is less than the rows or columns in the array argument"
    grid = _evaluate(
        tmp_path,
        {"A2": 1.0, "B2": 2.0, "A3": 3.0, "B3": 4.0},
        {
            "A1": ("A1:C3", "=_xlfn.EXPAND(D!A2:B3,3,3)"),
            "E1": ("E1:G3", '=_xlfn.EXPAND(D!A2,3,3, "-")'),
            "I1": ("I1", "=_xlfn.EXPAND(D!A2:B3,1,3)"),
            "J1": ("J1:K3", "=_xlfn.EXPAND(D!A2:B3,3)"),
        },
    )  # columns missing: not expanded
    assert grid("A1", 3, 3) == [[1.0, 2.0, NA], [3.0, 4.0, NA], [NA, NA, NA]]
    assert grid("E1", 3, 3) == [[1.0, "-", "-"], ["-", "-", "-"], ["-", "-", "-"]]
    assert grid("I1", 1, 1) == [[VALUE]]
    assert grid("J1", 3, 2) == [[1.0, 2.0], [3.0, 4.0], [NA, NA]]


#: the HSTACK and VSTACK pages' data: example 1, and examples 2 and 3 (rows 6-8 here)
STACKS = {
    "A2": "A",
    "B2": "B",
    "C2": "C",
    "E2": "AA",
    "F2": "BB",
    "G2": "CC",
    "A3": "D",
    "B3": "E",
    "C3": "F",
    "E3": "DD",
    "F3": "EE",
    "G3": "FF",
    "A6": 1.0,
    "B6": 2.0,
    "C6": "A",
    "D6": "B",
    "E6": "X",
    "F6": "Y",
    "A7": 3.0,
    "B7": 4.0,
    "C7": "C",
    "D7": "D",
    "A8": 5.0,
    "B8": 6.0,
    "A10": 1.0,
    "B10": 2.0,
    "C10": "A",
    "D10": "B",
    "E10": "C",
    "F10": '=1+"x"',
    "A11": 3.0,
    "B11": 4.0,
    "C11": "D",
    "D11": "E",
    "E11": "F",
    "A12": 5.0,
    "B12": 6.0,
}


def test_hstack(tmp_path):
    # "HSTACK function": example 1 appends A2:C3 and E2:G3 side by side; example 2 appends three
    # arrays into 3 rows and 6 columns, "#N/A error to fill empty array elements"; example 3:
    # "because cell F3 was originally blank, a 0 value is added" (a blank cell spills as 0)
    grid = _evaluate(
        tmp_path,
        STACKS,
        {
            "A1": ("A1:F2", "=_xlfn.HSTACK(D!A2:C3,D!E2:G3)"),
            "A4": ("A4:F6", "=_xlfn.HSTACK(D!A6:B8,D!C6:D7,D!E6:F6)"),
            "A8": ("A8:F10", "=_xlfn.HSTACK(D!A10:B12,D!C10:D11,D!E10:F11)"),
        },
    )
    assert grid("A1", 2, 6) == [["A", "B", "C", "AA", "BB", "CC"], ["D", "E", "F", "DD", "EE", "FF"]]
    assert grid("A4", 3, 6) == [
        [1.0, 2.0, "A", "B", "X", "Y"],
        [3.0, 4.0, "C", "D", NA, NA],
        [5.0, 6.0, NA, NA, NA, NA],
    ]
    assert grid("A8", 3, 6) == [
        [1.0, 2.0, "A", "B", "C", VALUE],
        [3.0, 4.0, "D", "E", "F", 0.0],
        [5.0, 6.0, NA, NA, NA, NA],
    ]


def test_vstack(tmp_path):
    # "VSTACK function": example 1 appends A2:C3 and E2:G3 one under the other; example 2 three
    # arrays into 6 rows and 2 columns; example 3 (A2:B4, C2:E3, F2) into 6 rows and 3 columns
    # with #N/A filling the empty elements
    grid = _evaluate(
        tmp_path,
        STACKS,
        {
            "A1": ("A1:C4", "=_xlfn.VSTACK(D!A2:C3,D!E2:G3)"),
            "E1": ("E1:F6", "=_xlfn.VSTACK(D!A6:B8,D!C6:D7,D!E6:F6)"),
            "H1": ("H1:J6", "=_xlfn.VSTACK(D!A10:B12,D!C10:E11,D!F10)"),
        },
    )
    assert grid("A1", 4, 3) == [["A", "B", "C"], ["D", "E", "F"], ["AA", "BB", "CC"], ["DD", "EE", "FF"]]
    assert grid("E1", 6, 2) == [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], ["A", "B"], ["C", "D"], ["X", "Y"]]
    assert grid("H1", 6, 3) == [
        [1.0, 2.0, NA],
        [3.0, 4.0, NA],
        [5.0, 6.0, NA],
        ["A", "B", "C"],
        ["D", "E", "F"],
        [VALUE, NA, NA],
    ]


NAMES = [
    ["Ben", "Peter", "Mary", "Sam"],
    ["John", "Hillary", "Jenny", "James"],
    ["Agnes", "Harry", None, None],
]


def _names(rows) -> dict[str, object]:
    return {
        f"{c}{r}": v
        for r, row in enumerate(rows, start=2)
        for c, v in zip("ABCD", row, strict=True)
        if v is not None
    }


def test_tocol_and_torow(tmp_path):
    # "TOCOL function" / "TOROW function": example 2, A2:D4 scanned by row, "blank values return
    # a 0"; example 3 ignores blanks (ignore 1); example 4 scans by column (scan_by_column TRUE);
    # ignore 2 leaves out errors (D!A6:B6 holds 7 and #DIV/0!)
    data = _names(NAMES) | {"A6": 7.0, "B6": "=1/0"}
    flat = [v for row in NAMES for v in row]
    by_col = [row[j] for j in range(4) for row in NAMES]
    grid = _evaluate(
        tmp_path,
        data,
        {
            "A1": ("A1:A12", "=_xlfn.TOCOL(D!A2:D4)"),
            "B1": ("B1:B10", "=_xlfn.TOCOL(D!A2:D4,1)"),
            "C1": ("C1:C10", "=_xlfn.TOCOL(D!A2:D4,1,TRUE)"),
            "D1": ("D1", "=_xlfn.TOCOL(D!A6:B6,2)"),
            "E1": ("E1:F1", "=_xlfn.TOROW(D!A6:B6)"),
            "E2": ("E2:N2", "=_xlfn.TOROW(D!A2:D4,1)"),
            "E4": ("E4", "=_xlfn.TOCOL(D!A2:D4,4)"),
        },
    )
    assert [r[0] for r in grid("A1", 12, 1)] == [0.0 if v is None else v for v in flat]
    assert [r[0] for r in grid("B1", 10, 1)] == [v for v in flat if v is not None]
    assert [r[0] for r in grid("C1", 10, 1)] == [v for v in by_col if v is not None]
    assert grid("D1", 1, 1) == [[7.0]]
    assert grid("E1", 1, 2) == [[7.0, "#DIV/0!"]]
    assert grid("E2", 1, 10) == [[v for v in flat if v is not None]]
    assert grid("E4", 1, 1) == [[VALUE]]


def test_wraprows_and_wrapcols(tmp_path):
    # "WRAPROWS function" / "WRAPCOLS function": the row A2:G2 (A..G) wrapped by 3, the last two
    # missing elements #N/A (example 1) or the pad character "x" (example 2); "Excel returns a
    # #VALUE when vector is not a one-dimensional array"; "#NUM! when wrap_count is less than 1"
    data = {f"{c}2": c for c in "ABCDEFG"} | {"A3": 1.0, "B3": 2.0}
    grid = _evaluate(
        tmp_path,
        data,
        {
            "A1": ("A1:C3", "=_xlfn.WRAPROWS(D!A2:G2,3)"),
            "E1": ("E1:G3", '=_xlfn.WRAPROWS(D!A2:G2,3,"x")'),
            "I1": ("I1:K3", "=_xlfn.WRAPCOLS(D!A2:G2,3)"),
            "M1": ("M1:O3", '=_xlfn.WRAPCOLS(D!A2:G2,3,"x")'),
            "Q1": ("Q1", "=_xlfn.WRAPROWS(D!A2:G3,3)"),
            "R1": ("R1", "=_xlfn.WRAPCOLS(D!A2:G2,0)"),
            "S1": ("S1:Y1", "=_xlfn.WRAPROWS(D!A2:G2,10)"),
        },
    )
    assert grid("A1", 3, 3) == [["A", "B", "C"], ["D", "E", "F"], ["G", NA, NA]]
    assert grid("E1", 3, 3) == [["A", "B", "C"], ["D", "E", "F"], ["G", "x", "x"]]
    assert grid("I1", 3, 3) == [["A", "D", "G"], ["B", "E", NA], ["C", "F", NA]]
    assert grid("M1", 3, 3) == [["A", "D", "G"], ["B", "E", "x"], ["C", "F", "x"]]
    assert grid("Q1", 1, 1) == [[VALUE]]
    assert grid("R1", 1, 1) == [[NUM]]
    # "If wrap_count is greater or equal to the number of elements in vector, then the vector is
    # simply returned in a single row"
    assert grid("S1", 1, 7) == [list("ABCDEFG")]


def test_results_feed_other_formulas(tmp_path):
    """The arrays are values for the functions around them, in an ordinary cell too."""
    grid = _evaluate(
        tmp_path,
        NINE,
        {
            "A1": ("A1", "=SUM(_xlfn.TAKE(D!A2:C4,-1))"),
            "B1": ("B1", "=ROWS(_xlfn.VSTACK(D!A2:C4,D!A2:C3))"),
            "C1": ("C1", "=SUM(_xlfn.TOCOL(_xlfn.DROP(D!A2:C4,1,1)))"),
            "D1": ("D1", "=COLUMNS(_xlfn.HSTACK(D!A2:C4,1))"),
        },
    )
    assert grid("A1", 1, 4) == [[24.0, 5.0, 28.0, 4.0]]
