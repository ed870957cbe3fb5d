"""The workbook of multi-cell array formulas (CSE blocks) compared with LibreOffice.

A Data sheet (two x columns, a y column, a 2x2 matrix, text, an error, three collinear x
columns in K:M), and a Blocks sheet with
one array formula per block, stacked down column A with a blank row between blocks, plus ordinary
formulas in column H that read cells of the blocks (so the planner must order them after the
block's formula). openpyxl writes only each block's top-left cell; LibreOffice writes them all.
"""

from __future__ import annotations

from pathlib import Path

import openpyxl
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.formula import ArrayFormula

X1 = [1, 2, 3, 4, 5, 6]
X2 = [3, 1, 4, 1, 5, 9]
Y = [2.1, 3.9, 6.2, 7.8, 10.1, 12.2]

#: (rows, columns, formula) of each block
BLOCKS = [
    (4, 1, "=Data!A1:A4*Data!C1:C4"),
    (5, 2, "=Data!A1:A4*2"),  # one column repeats across; rows past the result are #N/A
    (2, 3, "=TRANSPOSE(Data!A1:B3)"),
    (3, 3, "={1,2,3}"),  # one row repeats down
    (2, 2, "=SUM(Data!A1:A4*Data!C1:C4)"),  # one value fills the block
    (2, 2, "=MMULT(Data!E1:F2,Data!E1:F2)"),
    (2, 3, "=MMULT(Data!E1:F2,TRANSPOSE(Data!A1:B3))"),
    (2, 2, "=MMULT(Data!E1:F2,Data!A1:A3)"),  # sizes do not match
    (2, 2, "=MMULT(Data!E1:F2,Data!G1:H2)"),  # text and blank cells
    (1, 2, "=LINEST(Data!C1:C6,Data!A1:A6)"),
    (5, 2, "=LINEST(Data!C1:C6,Data!A1:A6,TRUE,TRUE)"),
    (5, 3, "=LINEST(Data!C1:C6,Data!A1:B6,TRUE,TRUE)"),
    (5, 2, "=LINEST(Data!C1:C6,Data!A1:A6,FALSE,TRUE)"),
    (1, 2, "=LINEST(Data!C1:C6)"),
    (1, 3, "=LINEST(Data!C1:C6,Data!A1:B6,TRUE,FALSE)"),
    (4, 1, '=IF(Data!A1:A4>2,"big","small")'),
    (3, 1, '=Data!G1:G3&"x"'),
    (1, 4, "=TRANSPOSE(Data!A1:A4)*10"),
    (3, 1, "=Data!A20:A22"),  # blank cells below the data read as 0
    (2, 2, "=Data!A1:B2+Data!I1"),  # an error cell spreads
    (3, 1, "=ROW(Data!A2:A4)"),  # a range's rows as an array
    (1, 3, "=COLUMN(Data!B1:D1)*2"),
    (2, 1, "=SMALL(IF(Data!A1:A6>2,ROW(Data!A1:A6)),2)"),
    (2, 2, "=MINVERSE(Data!E1:F2)"),
    (2, 2, "=MINVERSE({1,2;2,4})"),  # singular
    (2, 2, "=MINVERSE(Data!A1:B3)"),  # not square
    (2, 1, "=MDETERM(Data!E1:F2)+{0;1}"),
    (8, 1, "=Data!A1:A8*2"),  # rows past the data's last row are blank: 0, not #N/A
    # TREND, GROWTH, LOGEST: LINEST's fit, its values and its exponential twin
    (6, 1, "=TREND(Data!C1:C6,Data!A1:A6)"),
    (2, 1, "=TREND(Data!C1:C6,Data!A1:B6,{7,2;8,3})"),
    (1, 3, "=TREND(Data!C1:C6,,{7,8,9})"),
    (6, 1, "=TREND(Data!C1:C6,Data!A1:A6,,FALSE)"),
    (3, 1, "=GROWTH(Data!C1:C6,Data!A1:A6,{7;8;9})"),
    (6, 1, "=GROWTH(Data!C1:C6)"),
    (2, 1, "=GROWTH(Data!C1:C6,Data!A1:B6,{7,2;8,3},FALSE)"),
    (1, 2, "=LOGEST(Data!C1:C6,Data!A1:A6)"),
    (5, 3, "=LOGEST(Data!C1:C6,Data!A1:B6,TRUE,TRUE)"),
    (5, 2, "=LOGEST(Data!C1:C6,Data!A1:A6,FALSE,TRUE)"),
    (2, 1, "=GROWTH(Data!A1:A6-3)"),  # a y of 0 or less
    (2, 2, "=TREND(Data!C1:C6,Data!A1:A6,Data!G1:G2)"),  # text new_x's
    # collinear x's: Data!M = K + 2*L (K, L are the x columns of A, B)
    (5, 4, "=LINEST(Data!C1:C6,Data!K1:M6,TRUE,TRUE)"),
    (1, 3, "=LINEST(Data!C1:C6,Data!K1:K6*{1,2})"),
]

#: (block, block of the same fit without the redundant x columns, columns dropped): Excel leaves
#: a collinear x out with coefficient 0 and standard error 0 ([MS-OI29500] 2.1.985)
COLLINEAR = [
    ("=LINEST(Data!C1:C6,Data!K1:M6,TRUE,TRUE)", "=LINEST(Data!C1:C6,Data!A1:B6,TRUE,TRUE)", 1),
    ("=LINEST(Data!C1:C6,Data!K1:K6*{1,2})", "=LINEST(Data!C1:C6,Data!A1:A6)", 1),
]


def block_areas() -> list[tuple[int, int, int, int]]:
    """(top, left, bottom, right) of every block on the Blocks sheet."""
    out, row = [], 1
    for h, w, _ in BLOCKS:
        out.append((row, 1, row + h - 1, w))
        row += h + 1
    return out


#: ordinary formulas in Blocks!H1.. that read cells of the blocks
DEPENDENTS = [
    "=SUM(A1:A4)",
    "=A9",
    "=B8+1",
    "=SUM(A36:B40)",
    "=A37*2",
    # FORMULATEXT of an ordinary formula, a block's first and other cells, a constant
    "=_xlfn.FORMULATEXT(H1)",
    "=_xlfn.FORMULATEXT(A15)",
    "=_xlfn.FORMULATEXT(B16)",
    "=_xlfn.FORMULATEXT(Data!A1)",
    # CELL's info types that depend on the workbook alone
    '=CELL("address",B7)',
    '=CELL("row",A6)',
    '=CELL("col",C12)',
    '=CELL("contents",A9)',
    '=CELL("type",A1)',
    '=CELL("type",J1)',
    '=CELL("type",Data!G1)',
    "=SUMPRODUCT(ROW(Data!A1:A4))",
    '=SUMPRODUCT(--(Data!A1:A10=""))',
]  # blank cells past the data's last row count


def arrays_book(path: Path) -> Path:
    wb = openpyxl.Workbook()
    data = wb.active
    data.title = "Data"
    for i, (a, b, y) in enumerate(zip(X1, X2, Y, strict=True), start=1):
        data.cell(i, 1, a)
        data.cell(i, 2, b)
        data.cell(i, 3, y)
    for i, row in enumerate([[1, 2], [3, 4]], start=1):
        for j, v in enumerate(row):
            data.cell(i, 5 + j, v)  # E1:F2
    data["G1"], data["G2"], data["G3"] = "a", "b", "c"  # H1:H2 blank
    data["I1"] = "=1/0"
    for i, (a, b) in enumerate(zip(X1, X2, strict=True), start=1):
        data.cell(i, 11, a)  # K: x1
        data.cell(i, 12, b)  # L: x2
        data.cell(i, 13, a + 2 * b)  # M: x1 + 2*x2, collinear with K and L
    blocks = wb.create_sheet("Blocks")
    for (top, left, bottom, right), (_, _, formula) in zip(block_areas(), BLOCKS, strict=True):
        ref = f"A{top}:{get_column_letter(right)}{bottom}"
        blocks.cell(top, left).value = ArrayFormula(ref, formula)
    for i, formula in enumerate(DEPENDENTS, start=1):
        blocks.cell(i, 8, formula)
    wb.save(path)
    return path


def cells() -> list[tuple[str, str]]:
    """Every cell compared: each block's cells, then the dependents."""
    out = []
    for top, left, bottom, right in block_areas():
        out += [
            ("Blocks", f"{get_column_letter(c)}{r}")
            for r in range(top, bottom + 1)
            for c in range(left, right + 1)
        ]
    return out + [("Blocks", f"H{i}") for i in range(1, len(DEPENDENTS) + 1)]
