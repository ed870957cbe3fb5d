"""A vector group where some rows' arguments are errors: every other row keeps its own answer.

Each function template runs as one group over five rows (rows 3 and 4 read #N/A and #DIV/0!
cells) and, separately, as a single formula per workbook (no group); the two must agree cell by
cell. This is the class of the CONCAT bug found on the Excel corpus (one row's error blanked the whole group).
"""

from __future__ import annotations

import pytest
from lo_record import same
from recalc_book import s_sheet

from gputco.workbook.recalc import evaluate_workbook

INPUTS = [
    (-100, 2, 60, "x"),
    (-50, 20, 40, "y"),
    ("=NA()", 3, 70, "z"),
    (-80, "=1/0", 90, "w"),
    (-10, 4, 8, "v"),
]
TEMPLATES = [
    "=CONCAT(A{r}:C{r})",
    "=CONCAT(D{r},A{r})",
    "=CONCATENATE(A{r},D{r})",
    "=A{r}&D{r}",
    "=SUM(A{r}:C{r})",
    "=PRODUCT(A{r}:C{r})",
    "=MAX(A{r}:C{r})",
    "=MIN(A{r}:C{r})",
    "=AVERAGE(A{r}:C{r})",
    "=MEDIAN(A{r}:C{r})",
    "=SMALL(A{r}:C{r},2)",
    "=LARGE(A{r}:C{r},1)",
    "=COUNT(A{r}:C{r})",
    "=COUNTA(A{r}:D{r})",
    "=AND(A{r}<0,B{r}>0)",
    "=OR(A{r}>0,B{r}>0)",
    "=IF(A{r}<0,B{r},C{r})",
    "=IFERROR(A{r}*B{r},-1)",
    "=ROUND(A{r}/7,2)",
    "=ABS(A{r})",
    "=SUMPRODUCT(A{r}:C{r},A{r}:C{r})",
    "=IRR(A{r}:C{r})",
    "=NPV(0.1,A{r}:C{r})",
    "=COUNTIF($A$1:$A$5,A{r})",
    "=SUMIF($A$1:$A$5,A{r},$C$1:$C$5)",
    "=MATCH(A{r},$A$1:$A$5,0)",
    "=VLOOKUP(A{r},$A$1:$C$5,3,FALSE)",
    "=INDEX($A$1:$C$5,{r},2)",
    "=CHOOSE(2,A{r},B{r})",
    "=LEFT(D{r}&A{r},2)",
    "=LEN(A{r})",
    "=UPPER(D{r}&B{r})",
    "=ISNUMBER(A{r})",
    "=PMT(0.05,B{r},A{r})",
    "=STDEV(A{r}:C{r})",
    "=MAX(A{r},B{r})*2",
]


def _book(path, rows: list[int], template: str):
    wb, ws = s_sheet(INPUTS)
    for r in rows:
        ws.cell(r, 10, template.format(r=r))
    wb.save(path)
    return evaluate_workbook(path, functions={})


@pytest.mark.parametrize("template", TEMPLATES)
def test_group_rows_equal_single_cells(tmp_path, template):
    grouped = _book(tmp_path / "g.xlsx", [1, 2, 3, 4, 5], template)
    for r in range(1, 6):
        alone = _book(tmp_path / f"c{r}.xlsx", [r], template)[("S", f"J{r}")]
        got = grouped[("S", f"J{r}")]
        assert same(got, alone), f"{template} row {r}: in a group {got!r}, alone {alone!r}"
