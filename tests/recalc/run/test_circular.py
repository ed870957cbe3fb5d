"""A circular reference next to formulas the planner cannot order ahead (INDEX(...):INDEX(...),
OFFSET): recalculated, never an internal error.

The shape is that of koala's Excel-saved workbooks tests/ast/basic_evaluation.xlsx and
examples/advanced.xlsx (github.com/anthill/koala, commit 3e7a654, GPL-3.0: rebuilt here with
openpyxl, not copied), on which ``gputco recalc --check --keep-unsupported`` stopped with
"internal error (AttributeError: 'Cycle' object has no attribute 'group')": row 16 holds 1..7
(the name Indice), and B17:G17 each sum row 17 (the name Liste3, their own row) up to the column
before their own, ``SUM(INDEX(Liste3,1,1):INDEX(Liste3,1,Indice-1))``. The planner sees each
cell read its own row, a circular reference; Excel computes it (the range ends before the cell)
and saved 30, 30, 60, 120, 240, 480, 960 in A17:G17 of both files.
"""

from __future__ import annotations

import openpyxl
import pytest
from lo import requires_soffice
from openpyxl.workbook.defined_name import DefinedName

from gputco.addin.cli import main
from gputco.workbook.recalc import CircularReferenceError, evaluate_workbook, recalc_file
from gputco.workbook.soffice.fallback import libreoffice_values

#: A17:G17 as Excel saved them in koala's two workbooks
EXCEL_ROW_17 = [30, 30, 60, 120, 240, 480, 960]
CYCLE = [f"Sheet1!{c}17" for c in "BCDEFG"]


def koala_shape(path, iterate: bool = False):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Sheet1"
    ws["A16"] = 1
    for col in "BCDEFG":
        ws[f"{col}16"] = f"={chr(ord(col) - 1)}16+1"
        ws[f"{col}17"] = "=SUM(INDEX(Liste3,1,1):INDEX(Liste3,1,Indice-1))"
    ws["A17"] = 30
    ws["H17"] = "=SUM(B17:G17)"  # depends on the circular reference
    for r, (a, b) in enumerate([(1, 2), (3, 4), (5, 6)], start=22):
        ws[f"A{r}"], ws[f"B{r}"] = a, b
    ws["F26"] = "=SUM(OFFSET(A22:B23,1,0,2,1))"  # as in koala's files: read where it runs
    wb.defined_names["Indice"] = DefinedName("Indice", attr_text="Sheet1!$A$16:$G$16")
    wb.defined_names["Liste3"] = DefinedName("Liste3", attr_text="Sheet1!$A$17:$G$17")
    if iterate:
        wb.calculation.iterate = True
    wb.save(path)
    return path


def test_kept_as_stored_without_iteration(tmp_path):
    """The engine alone: the circular cells keep their stored values (none: openpyxl wrote the
    file) and are named; everything else is computed (row 16, the OFFSET, H17 from the stored)."""
    src = koala_shape(tmp_path / "koala.xlsx")
    with pytest.raises(CircularReferenceError, match="B17"):
        evaluate_workbook(src)  # unsupported="raise": a circular reference is said, not guessed
    values = evaluate_workbook(src, unsupported="stored")
    assert [values[("Sheet1", f"{c}16")] for c in "BCDEFG"] == [2, 3, 4, 5, 6, 7]
    assert values[("Sheet1", "F26")] == 3 + 5  # A23:A24
    report = recalc_file(src, check=True, unsupported="stored", engine="gputco")
    assert report.unsupported == {"[circular reference]": CYCLE}


def test_iterated_when_the_workbook_asks(tmp_path):
    """With iterative calculation on (calcPr iterate), the cells settle on Excel's values."""
    src = koala_shape(tmp_path / "koala.xlsx", iterate=True)
    values = evaluate_workbook(src)
    assert [values[("Sheet1", f"{c}17")] for c in "BCDEFG"] == EXCEL_ROW_17[1:]
    assert values[("Sheet1", "H17")] == sum(EXCEL_ROW_17[1:])


@requires_soffice
def test_libreoffice_computes_them_and_the_check_passes(tmp_path):
    """``--engine auto`` hands the circular cells, H17 and the OFFSET to LibreOffice, which gives Excel's
    saved values; the command of the report then checks the written file without an error."""
    src = koala_shape(tmp_path / "koala.xlsx")
    dst = tmp_path / "filled.xlsx"
    report = recalc_file(src, dst, unsupported="stored", fallback=libreoffice_values)
    assert report.libreoffice_cells == [*CYCLE, "Sheet1!H17", "Sheet1!F26"]  # OFFSET: may read them
    ws = openpyxl.load_workbook(dst, data_only=True)["Sheet1"]
    assert [ws[f"{c}17"].value for c in "ABCDEFG"] == EXCEL_ROW_17
    assert ws["H17"].value == sum(EXCEL_ROW_17[1:])
    assert main(["recalc", "--check", "--keep-unsupported", str(dst)]) == 0
