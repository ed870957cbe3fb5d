"""TAKE, DROP, EXPAND, HSTACK, VSTACK, TOCOL, TOROW, WRAPROWS, WRAPCOLS (Excel 365), which
LibreOffice 7.4 lacks: the oracle is Microsoft's documentation.

One probe table, PAGES: per support.microsoft.com page (its title) its examples, the same data at
the same cells of a data sheet, the same formula, and the result the page describes; one test a
page evaluates them in one workbook. The
formulas are saved as Excel 365 saves a spilled formula (an array formula over the block it
covered, with the ``cm`` dynamic-array marker), with the ``_xlfn.`` prefix Excel writes, and the
engine recomputes the block.
"""

from __future__ import annotations

from pathlib import Path

import openpyxl
import pytest
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


#: the TOCOL and TOROW pages' data (A2:D4) read by row and by column
FLAT = [v for row in NAMES for v in row]
BY_COL = [row[j] for j in range(4) for row in NAMES]


def _col(values) -> list[list[object]]:
    return [[v] for v in values]


#: page -> (its data on sheet D, its examples: (spilled block on sheet S, formula, the grid the
#: page describes, read from the block's top-left cell))
PAGES: dict[str, tuple[dict[str, object], list[tuple[str, str, list[list[object]]]]]] = {
    # "TAKE function": examples 1-4 on 1..9 in A2:C4; "Excel returns a #CALC! error to indicate
    # an empty array when either rows or columns is 0"
    "take": (
        NINE,
        [
            ("A1:C2", "=_xlfn.TAKE(D!A2:C4,2)", [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]),
            ("E1:F3", "=_xlfn.TAKE(D!A2:C4,,2)", [[1.0, 2.0], [4.0, 5.0], [7.0, 8.0]]),
            ("H1:J2", "=_xlfn.TAKE(D!A2:C4,-2)", [[4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]),
            ("L1:M2", "=_xlfn.TAKE(D!A2:C4,2,2)", [[1.0, 2.0], [4.0, 5.0]]),
            ("O1", "=_xlfn.TAKE(D!A2:C4,0)", [[CALC]]),
            ("P1", "=_xlfn.TAKE(D!A2:C4,1,0)", [[CALC]]),
            # negative counts take from the end on both axes
            ("Q1:R1", "=_xlfn.TAKE(D!A2:C4,-1,-2)", [[8.0, 9.0]]),
            ("T1", '=_xlfn.TAKE(D!A2:C4,"x")', [[VALUE]]),
        ],
    ),
    # "DROP function": examples 1-4 on 1..9 in A2:C4 (drop 2 rows, 2 columns, the last 2 rows,
    # 2 rows and 2 columns); dropping everything leaves the empty array, #CALC!
    "drop": (
        NINE,
        [
            ("A1:C1", "=_xlfn.DROP(D!A2:C4,2)", [[7.0, 8.0, 9.0]]),
            ("E1:E3", "=_xlfn.DROP(D!A2:C4,,2)", [[3.0], [6.0], [9.0]]),
            ("G1:I1", "=_xlfn.DROP(D!A2:C4,-2)", [[1.0, 2.0, 3.0]]),
            ("K1", "=_xlfn.DROP(D!A2:C4,2,2)", [[9.0]]),
            ("M1", "=_xlfn.DROP(D!A2:C4,3)", [[CALC]]),
            ("N1:O3", "=_xlfn.DROP(D!A2:C4,,-1)", [[1.0, 2.0], [4.0, 5.0], [7.0, 8.0]]),
        ],
    ),
    # "EXPAND Function": example 1 resizes the 2x2 array 1,2;3,4 in A2:B3 to 3x3, padded with
    # #N/A; example 2 the 1x1 array A2 to 3x3 padded with "-"; "Excel returns a #VALUE error when
    # the rows or columns argument is less than the rows or columns in the array argument"
    "expand": (
        {"A2": 1.0, "B2": 2.0, "A3": 3.0, "B3": 4.0},
        [
            ("A1:C3", "=_xlfn.EXPAND(D!A2:B3,3,3)", [[1.0, 2.0, NA], [3.0, 4.0, NA], [NA, NA, NA]]),
            ("E1:G3", '=_xlfn.EXPAND(D!A2,3,3, "-")', [[1.0, "-", "-"], ["-", "-", "-"], ["-", "-", "-"]]),
            ("I1", "=_xlfn.EXPAND(D!A2:B3,1,3)", [[VALUE]]),
            # columns missing: not expanded
            ("J1:K3", "=_xlfn.EXPAND(D!A2:B3,3)", [[1.0, 2.0], [3.0, 4.0], [NA, NA]]),
        ],
    ),
    # "HSTACK function": example 1 appends A2:C3 and E2:G3 side by side; example 2 appends three
    # arrays into 3 rows and 6 columns, "#N/A error to fill empty array elements"; example 3:
    # "because cell F3 was originally blank, a 0 value is added" (a blank cell spills as 0)
    "hstack": (
        STACKS,
        [
            (
                "A1:F2",
                "=_xlfn.HSTACK(D!A2:C3,D!E2:G3)",
                [["A", "B", "C", "AA", "BB", "CC"], ["D", "E", "F", "DD", "EE", "FF"]],
            ),
            (
                "A4:F6",
                "=_xlfn.HSTACK(D!A6:B8,D!C6:D7,D!E6:F6)",
                [[1.0, 2.0, "A", "B", "X", "Y"], [3.0, 4.0, "C", "D", NA, NA], [5.0, 6.0, NA, NA, NA, NA]],
            ),
            (
                "A8:F10",
                "=_xlfn.HSTACK(D!A10:B12,D!C10:D11,D!E10:F11)",
                [
                    [1.0, 2.0, "A", "B", "C", VALUE],
                    [3.0, 4.0, "D", "E", "F", 0.0],
                    [5.0, 6.0, NA, NA, NA, NA],
                ],
            ),
        ],
    ),
    # "VSTACK function": example 1 appends A2:C3 and E2:G3 one under the other; example 2 three
    # arrays into 6 rows and 2 columns; example 3 (A2:B4, C2:E3, F2) into 6 rows and 3 columns
    # with #N/A filling the empty elements
    "vstack": (
        STACKS,
        [
            (
                "A1:C4",
                "=_xlfn.VSTACK(D!A2:C3,D!E2:G3)",
                [["A", "B", "C"], ["D", "E", "F"], ["AA", "BB", "CC"], ["DD", "EE", "FF"]],
            ),
            (
                "E1:F6",
                "=_xlfn.VSTACK(D!A6:B8,D!C6:D7,D!E6:F6)",
                [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], ["A", "B"], ["C", "D"], ["X", "Y"]],
            ),
            (
                "H1:J6",
                "=_xlfn.VSTACK(D!A10:B12,D!C10:E11,D!F10)",
                [
                    [1.0, 2.0, NA],
                    [3.0, 4.0, NA],
                    [5.0, 6.0, NA],
                    ["A", "B", "C"],
                    ["D", "E", "F"],
                    [VALUE, NA, NA],
                ],
            ),
        ],
    ),
    # "TOCOL function" / "TOROW function": example 2, A2:D4 scanned by row, "blank values return
    # a 0"; example 3 ignores blanks (ignore 1); example 4 scans by column (scan_by_column TRUE);
    # ignore 2 leaves out errors (D!A6:B6 holds 7 and #DIV/0!)
    "tocol_and_torow": (
        _names(NAMES) | {"A6": 7.0, "B6": "=1/0"},
        [
            ("A1:A12", "=_xlfn.TOCOL(D!A2:D4)", _col(0.0 if v is None else v for v in FLAT)),
            ("B1:B10", "=_xlfn.TOCOL(D!A2:D4,1)", _col(v for v in FLAT if v is not None)),
            ("C1:C10", "=_xlfn.TOCOL(D!A2:D4,1,TRUE)", _col(v for v in BY_COL if v is not None)),
            ("D1", "=_xlfn.TOCOL(D!A6:B6,2)", [[7.0]]),
            ("E1:F1", "=_xlfn.TOROW(D!A6:B6)", [[7.0, "#DIV/0!"]]),
            ("E2:N2", "=_xlfn.TOROW(D!A2:D4,1)", [[v for v in FLAT if v is not None]]),
            ("E4", "=_xlfn.TOCOL(D!A2:D4,4)", [[VALUE]]),
        ],
    ),
    # "WRAPROWS function" / "WRAPCOLS function": the row A2:G2 (A..G) wrapped by 3, the last two
    # missing elements #N/A (example 1) or the pad character "x" (example 2); "Excel returns a
    # #VALUE when vector is not a one-dimensional array"; "#NUM! when wrap_count is less than 1"
    "wraprows_and_wrapcols": (
        {f"{c}2": c for c in "ABCDEFG"} | {"A3": 1.0, "B3": 2.0},
        [
            ("A1:C3", "=_xlfn.WRAPROWS(D!A2:G2,3)", [["A", "B", "C"], ["D", "E", "F"], ["G", NA, NA]]),
            ("E1:G3", '=_xlfn.WRAPROWS(D!A2:G2,3,"x")', [["A", "B", "C"], ["D", "E", "F"], ["G", "x", "x"]]),
            ("I1:K3", "=_xlfn.WRAPCOLS(D!A2:G2,3)", [["A", "D", "G"], ["B", "E", NA], ["C", "F", NA]]),
            ("M1:O3", '=_xlfn.WRAPCOLS(D!A2:G2,3,"x")', [["A", "D", "G"], ["B", "E", "x"], ["C", "F", "x"]]),
            ("Q1", "=_xlfn.WRAPROWS(D!A2:G3,3)", [[VALUE]]),
            ("R1", "=_xlfn.WRAPCOLS(D!A2:G2,0)", [[NUM]]),
            # "If wrap_count is greater or equal to the number of elements in vector, then the
            # vector is simply returned in a single row"
            ("S1:Y1", "=_xlfn.WRAPROWS(D!A2:G2,10)", [list("ABCDEFG")]),
        ],
    ),
    # the arrays are values for the functions around them, in an ordinary cell too
    "results_feed_other_formulas": (
        NINE,
        [
            ("A1", "=SUM(_xlfn.TAKE(D!A2:C4,-1))", [[24.0]]),
            ("B1", "=ROWS(_xlfn.VSTACK(D!A2:C4,D!A2:C3))", [[5.0]]),
            ("C1", "=SUM(_xlfn.TOCOL(_xlfn.DROP(D!A2:C4,1,1)))", [[28.0]]),
            ("D1", "=COLUMNS(_xlfn.HSTACK(D!A2:C4,1))", [[4.0]]),
        ],
    ),
}


@pytest.mark.parametrize("page", list(PAGES))
def test_the_pages_examples(tmp_path, page):
    data, examples = PAGES[page]
    grid = _evaluate(
        tmp_path, data, {block.split(":")[0]: (block, formula) for block, formula, _ in examples}
    )
    got = {formula: grid(block.split(":")[0], len(want), len(want[0])) for block, formula, want in examples}
    assert got == {formula: want for _block, formula, want in examples}
