"""OFFSET and INDIRECT reach cells the planner cannot see: their dependencies are resolved while
evaluating (passes until no value changes), per row in column groups, and a loop through them is
reported as a circular reference."""

from __future__ import annotations

import pytest
from recalc_book import s_sheet

from gputco.workbook.recalc import CircularReferenceError, evaluate_workbook


def _eval(tmp_path, cells: dict[str, object]):
    wb, _ = s_sheet(cells=cells)
    wb.save(tmp_path / "d.xlsx")
    return evaluate_workbook(tmp_path / "d.xlsx", functions={})


def test_offset_and_indirect_read_formulas_computed_later(tmp_path):
    # A1 and A2 come first in the sheet and read B1:B3 / C5, which are formulas of later cells
    got = _eval(
        tmp_path,
        {
            "A1": "=SUM(OFFSET(E1,0,-3,3,1))",
            "A2": '=INDIRECT("C"&(2+3))*2',
            "B1": "=D1*10",
            "B2": "=D2*10",
            "B3": "=A4+1",
            "A4": "=D1+D2",
            "C5": "=A1+1",
            "D1": 1,
            "D2": 2,
        },
    )
    assert got[("S", "B3")] == 4.0
    assert got[("S", "A1")] == 10 + 20 + 4
    assert got[("S", "C5")] == 35.0
    assert got[("S", "A2")] == 70.0


def test_per_row_offsets_and_texts_in_a_column_group(tmp_path):
    cells = {f"A{r}": float(r * r) for r in range(1, 11)}
    for r in range(1, 11):
        cells[f"B{r}"] = f"=OFFSET($A$1,{r}-1,0)"  # the row's own square
        cells[f"C{r}"] = f'=INDIRECT("A"&(11-{r}))'  # the mirrored row
        cells[f"D{r}"] = f"=SUM(OFFSET(A{r},0,0,2,1))"  # moving reference, two rows
    got = _eval(tmp_path, cells)
    for r in range(1, 11):
        assert got[("S", f"B{r}")] == r * r
        assert got[("S", f"C{r}")] == (11 - r) ** 2
        assert got[("S", f"D{r}")] == r * r + ((r + 1) ** 2 if r < 10 else 0)


def test_a_loop_through_indirect_is_a_circular_reference(tmp_path):
    with pytest.raises(CircularReferenceError):
        _eval(tmp_path, {"A1": '=INDIRECT("B1")+1', "B1": "=A1+1"})


def test_references_outside_the_workbook_are_ref_errors(tmp_path):
    got = _eval(
        tmp_path,
        {
            "A1": '=INDIRECT("[other.xlsx]Sheet1!A1")',
            "A2": '=INDIRECT("Nowhere!A1")',
            "A3": "=OFFSET(A1,-5,0)",
        },
    )
    assert [str(got[("S", f"A{r}")]) for r in (1, 2, 3)] == ["#REF!"] * 3
