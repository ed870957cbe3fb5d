"""Shape grouping: a 10,000-row scenario sheet evaluates column by column, equal to LibreOffice.

Each formula column of tests/recalc_book.tco_book (PMT, arithmetic, INDEX/MATCH and VLOOKUP into
a small table, cross-sheet inputs through absolute references, IF/NA, ROUND, MIN/MAX) is one
shape in 10,000 consecutive rows, so it must become one group evaluated as one vector.
"""

from __future__ import annotations

import math
import time

from lo import recalculate, requires_soffice
from lo import values as lo_values
from recalc_book import tco_book

from workbook.recalc import evaluate_workbook, recalc_file

pytestmark = requires_soffice
ROWS = 10_000


def test_10000_row_scenarios_equal_libreoffice(tmp_path, capsys):
    src = tco_book(tmp_path / "scenarios.xlsx", ROWS)
    t0 = time.perf_counter()
    report = recalc_file(src, tmp_path / "ours.xlsx", functions={})
    ours_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    lo_file = recalculate(src, tmp_path / "lo")
    lo_s = time.perf_counter() - t0
    assert report.cells == ROWS * 10
    assert report.groups == 10, "each formula column should be one vectorised group"
    lo = lo_values(lo_file)
    ours = lo_values(tmp_path / "ours.xlsx")
    formula_cells = [k for k in lo if k[0] == "Scenarios" and k[1][0] in "FGHIJKLMNO"
                     and k[1][1:] != "1"]
    assert len(formula_cells) == ROWS * 10
    bad = [(k, lo[k], ours.get(k)) for k in formula_cells
           if not math.isclose(lo[k], ours.get(k, math.nan), rel_tol=1e-9, abs_tol=1e-12)]
    assert not bad, f"{len(bad)} cells differ, first: {bad[:5]}"
    with capsys.disabled():
        print(f"\n10,000 x 10 formulas: gputco recalc_file {ours_s:.2f} s "
              f"(evaluate {report.seconds:.2f} s), LibreOffice {lo_s:.2f} s")


def test_recurrence_splits_into_cells_and_equals_libreoffice(tmp_path):
    """A running balance (each row reads the row above) cannot be one vector: it runs cell by
    cell in dependency order, interleaved across two columns, and still agrees with LibreOffice."""
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws["A1"], ws["B1"], ws["C1"] = 1000.0, 0.0, 0.01
    for r in range(2, 502):
        ws[f"B{r}"] = f"=A{r - 1}*$C$1"  # interest on last balance
        ws[f"A{r}"] = f"=A{r - 1}+B{r}-10"  # new balance
        ws[f"D{r}"] = f"=SUM($B$2:B{r})"  # running total: a range with one fixed end
    src = tmp_path / "loan.xlsx"
    wb.save(src)
    ours = evaluate_workbook(src, functions={})
    lo = lo_values(recalculate(src, tmp_path / "lo"))
    for key, v in ours.items():
        assert math.isclose(v, lo[key], rel_tol=1e-9), (key, v, lo[key])
