"""recalc_file changes only the values of formula cells; everything else comes back intact.

A workbook with styles, a user's extra sheet, merged cells, a chart, data validation, conditional
formatting, comments and defined names is recalculated; every zip member other than the
worksheets is byte-identical, and in the worksheets only the ``<v>`` and ``t`` of formula cells
differ (both parts parsed and compared element by element).
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import openpyxl
import pytest
from openpyxl.chart import BarChart, Reference
from openpyxl.comments import Comment
from openpyxl.formatting.rule import CellIsRule
from openpyxl.styles import Font, PatternFill
from openpyxl.workbook.defined_name import DefinedName
from openpyxl.worksheet.datavalidation import DataValidation
from xlsx_parts import _compare_sheet, _members

from gputco.workbook.recalc import evaluate_workbook, recalc_file
from gputco.workbook.soffice.fallback import libreoffice_values

NS = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"


def _rich_book(path: Path) -> Path:
    wb = openpyxl.Workbook()
    inputs = wb.active
    inputs.title = "Inputs"
    inputs["A1"], inputs["B1"] = "System", "H100_HGX"
    inputs["A2"], inputs["B2"] = "Price", 31250
    inputs["A3"], inputs["B3"] = "Rate", 0.1305
    inputs["A4"], inputs["B4"] = "Life", 5
    inputs["B2"].font = Font(bold=True, color="0000FF")
    inputs["B2"].fill = PatternFill("solid", fgColor="FFFF99")
    inputs["B2"].number_format = "#,##0"
    inputs.column_dimensions["A"].width = 24
    inputs.freeze_panes = "A2"
    dv = DataValidation(type="list", formula1='"H100_HGX,GB200_NVL72"', allow_blank=False)
    inputs.add_data_validation(dv)
    dv.add("B1")
    inputs["A1"].comment = Comment("Pick a system", "analyst")
    wb.defined_names["price"] = DefinedName("price", attr_text="Inputs!$B$2")
    model = wb.create_sheet("Model")
    model["A1"], model["B1"] = "Capital per year", "=-PMT(Inputs!B3,Inputs!B4,price)"
    model["A2"], model["B2"] = "Per GPU-hour", "=B1/8760"
    model["A3"], model["B3"] = "Label", '="TCO of "&Inputs!B1'
    model["A4"], model["B4"] = "Check", "=B2>0"
    model["A5"], model["B5"] = "Missing", "=NA()"
    for r in range(6, 12):
        model[f"A{r}"], model[f"B{r}"] = r, f"=A{r}*$B$2"
    model.conditional_formatting.add(
        "B6:B11",
        CellIsRule(operator="greaterThan", formula=["5"], fill=PatternFill("solid", fgColor="FFC7CE")),
    )
    chart = BarChart()
    chart.add_data(Reference(model, min_col=2, min_row=6, max_row=11))
    chart.title = "Cost by row"
    model.add_chart(chart, "D2")
    notes = wb.create_sheet("User notes")
    notes["A1"] = "My own notes; do not touch"
    notes.merge_cells("A1:C1")
    notes["A3"] = "=1+1"
    wb.save(path)
    return path


def test_only_formula_values_change(tmp_path):
    src = _rich_book(tmp_path / "rich.xlsx")
    dst = tmp_path / "rich.recalc.xlsx"
    report = recalc_file(src, dst, functions={}, fallback=libreoffice_values)
    assert report.cells == 12 and not report.problems
    before, after = _members(src), _members(dst)
    assert list(before) == list(after), "same members in the same order"
    sheets = [n for n in before if n.startswith("xl/worksheets/sheet")]
    for name in before:
        if name not in sheets:
            assert before[name] == after[name], f"{name} changed"
    changed = sum(_compare_sheet(before[n], after[n]) for n in sheets)
    assert changed == 12
    assert _members(src) == before, "the source file is untouched"


def test_values_and_user_content_come_back(tmp_path):
    src = _rich_book(tmp_path / "rich.xlsx")
    dst = tmp_path / "out.xlsx"
    recalc_file(src, dst, functions={}, fallback=libreoffice_values)
    wb = openpyxl.load_workbook(dst)
    assert wb.sheetnames == ["Inputs", "Model", "User notes"]
    assert wb["Inputs"]["B2"].font.bold and wb["Inputs"]["B2"].number_format == "#,##0"
    assert str(wb["Inputs"].data_validations.dataValidation[0].sqref) == "B1"
    assert wb["Inputs"]["A1"].comment.text == "Pick a system"
    assert wb["Model"]["B2"].value == "=B1/8760", "formulas stay"
    assert [str(cf.sqref) for cf in wb["Model"].conditional_formatting] == ["B6:B11"]
    assert "A1:C1" in str(wb["User notes"].merged_cells)
    with zipfile.ZipFile(dst) as z:
        assert any(n.startswith("xl/charts/chart") for n in z.namelist())
        assert b"fullCalcOnLoad" in z.read("xl/workbook.xml"), "Excel still recalculates on open"
    values = openpyxl.load_workbook(dst, data_only=True)["Model"]
    capital = 31250 * 0.1305 / (1 - 1.1305**-5)
    assert values["B1"].value == pytest.approx(capital, rel=1e-12)
    assert values["B2"].value == pytest.approx(capital / 8760, rel=1e-12)
    assert values["B3"].value == "TCO of H100_HGX"
    assert values["B4"].value is True
    assert values["B5"].value == "#N/A"
    assert openpyxl.load_workbook(dst, data_only=True)["User notes"]["A3"].value == 2


def test_in_place_needs_to_be_asked_for(tmp_path):
    src = _rich_book(tmp_path / "rich.xlsx")
    with pytest.raises(ValueError, match="dst"):
        recalc_file(src, functions={}, fallback=libreoffice_values)
    recalc_file(src, in_place=True, functions={}, fallback=libreoffice_values)
    assert openpyxl.load_workbook(src, data_only=True)["Model"]["B2"].value > 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rich.xlsx"], "no temp files left"
    recalc_file(src, src, functions={}, fallback=libreoffice_values)  # dst == src is an explicit request too


def test_recalculating_twice_gives_identical_files(tmp_path):
    src = _rich_book(tmp_path / "rich.xlsx")
    recalc_file(src, tmp_path / "a.xlsx", functions={}, fallback=libreoffice_values)
    recalc_file(tmp_path / "a.xlsx", tmp_path / "b.xlsx", functions={}, fallback=libreoffice_values)
    assert _members(tmp_path / "a.xlsx") == _members(tmp_path / "b.xlsx")


def test_stale_values_are_replaced(tmp_path):
    """LibreOffice-style cached values that differ (a stale file) are overwritten."""
    src = _rich_book(tmp_path / "rich.xlsx")
    recalc_file(src, tmp_path / "a.xlsx", functions={}, fallback=libreoffice_values)
    wb = openpyxl.load_workbook(tmp_path / "a.xlsx")
    wb["Inputs"]["B2"] = 62500  # openpyxl drops cached values on save: all recomputed
    wb.save(tmp_path / "b.xlsx")
    values = evaluate_workbook(tmp_path / "b.xlsx", functions={})
    assert values[("Model", "B6")] == pytest.approx(6 * 62500 * 0.1305 / (1 - 1.1305**-5) / 8760, rel=1e-12)
