"""Regression tests for the bugs the fuzz tests and the hostile corpus found, one per bug."""

from __future__ import annotations

import warnings
import zipfile

import numpy as np
import pytest
from hostile import cell, package, sheet

from gputco import udfs
from gputco.udfs.errors import InputShapeError
from gputco.workbook.recalc import WorkbookFormatError, evaluate_workbook, recalc_file
from gputco.workbook.soffice.fallback import libreoffice_values


def _values(tmp_path, *cells: str) -> dict:
    path = package(tmp_path / "r.xlsx", sheet(cell("A1", 1), *cells))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no numpy warning may reach the terminal either
        return {ref: v for (_s, ref), v in evaluate_workbook(path).items()}


def _column_d(tmp_path, *formulas):
    """The values of ``formulas`` evaluated in D1, D2, ..."""
    return _values(tmp_path, *(cell(f"D{r}", f=f) for r, f in enumerate(formulas, start=1)))


def test_arrays_that_do_not_broadcast_raise_input_shape_error_not_numpy_value_error():
    with pytest.raises(InputShapeError, match=r"peak_tflops \(3,\), mfu \(2,\)"):
        udfs.tco_tokens_per_gpu_second(1e12, [1.0, 2.0, 3.0], [0.3, 0.4])
    with pytest.raises(InputShapeError):
        udfs.tco_gpu_hour([["H100_HGX"], ["GB200_NVL72", "H100_HGX"]], [])
    assert np.shape(udfs.tco_tokens_per_gpu_second(1e12, [[989.4], [1978.9]], [0.3, 0.4])) == (
        2,
        2,
    )  # shapes that broadcast still do


def test_an_underflowing_throughput_gives_inf_not_zero_division_error():
    """Valid but extreme inputs: tokens/s underflows to 0; the cost is inf, as numpy gives for
    arrays (and the Excel function shows #NUM!)."""
    assert udfs.tco_cost_per_mtok(1.0, 1e308, 5e-324, 1.0) == np.inf
    assert udfs.tco_training_days(1.0, 1.0, 1e308, 5e-324, 1.0) == np.inf
    assert udfs.tco_joules_per_token(1.0, 1e308, 5e-324, 1.0) == np.inf
    assert udfs.UDFS["TCO_COST_PER_MTOK"](1.0, 1e308, 5e-324, 1.0).startswith("#NUM!")


def test_an_unknown_xml_encoding_is_a_format_error_not_lookup_error(tmp_path):
    xml = sheet(cell("A1", 1)).replace('encoding="UTF-8"', 'encoding="A0"')
    path = package(tmp_path / "enc.xlsx", xml)
    with pytest.raises(WorkbookFormatError, match="unknown text encoding"):
        recalc_file(path, check=True, fallback=libreoffice_values)


def test_duplicate_parts_are_refused_not_copied_with_warnings(tmp_path):
    path = package(tmp_path / "dup.xlsx", sheet(cell("A1", 1), cell("A2", f="A1+1")))
    with zipfile.ZipFile(path, "a") as z, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        z.writestr("xl/workbook.xml", b"<x/>")
    with pytest.raises(WorkbookFormatError, match=r"two parts named xl/workbook\.xml"):
        recalc_file(path, tmp_path / "out.xlsx", fallback=libreoffice_values)


def test_a_cell_below_the_used_rows_reads_as_blank_not_value_error(tmp_path):
    values = _column_d(tmp_path, "A5+1", "XFD1048576", 'A9&"x"', "ISBLANK(A900)")
    assert values == {"D1": 1.0, "D2": 0.0, "D3": "x", "D4": True}


def test_edate_far_out_of_range_is_num_error_not_a_wrong_number(tmp_path):
    values = _column_d(tmp_path, "EDATE(0,1E+308)", 'MONTH("")', "EDATE(45000,12)", "EOMONTH(45000,-1)")
    assert [str(values["D1"]), str(values["D2"])] == ["#NUM!", "#VALUE!"]
    assert (values["D3"], values["D4"]) == (45366.0, 44985.0)  # 2024-03-15, 2023-02-28


def test_text_longer_than_a_cell_is_value_error_not_unbounded_memory(tmp_path):
    """A doubling chain would reach 2^40 characters; Excel stops at 32,767 with #VALUE!."""
    cells = [cell("B1", f='REPT("ab",10)')] + [cell(f"B{r}", f=f"B{r - 1}&B{r - 1}") for r in range(2, 42)]
    cells += [
        cell("C1", f='REPT("x",1E+12)'),
        cell("C2", f='LEN(REPT("x",32767))'),
        cell("C3", f='CONCATENATE(REPT("x",30000),REPT("y",3000))'),
    ]
    values = _values(tmp_path, *cells)
    assert values["B11"] == "ab" * 10 * 2**10 and str(values["B12"]) == "#VALUE!"
    assert str(values["B41"]) == "#VALUE!"
    assert str(values["C1"]) == "#VALUE!" and values["C2"] == 32767.0
    assert str(values["C3"]) == "#VALUE!"


def test_vlookup_and_hlookup_of_an_array_of_lookup_values_are_arrays(tmp_path):
    """VLOOKUP/HLOOKUP given an array of lookup values give one answer per value (the cell shows
    the top-left): the sizes and elements LibreOffice 7.4.7.2 answers for the same formulas (the
    differential fuzzer's 100,000 of 2026-12-04, batch 1000, row 1965: ROWS(VLOOKUP({1,2;3,4},
    10,In!A2,-1)) is 2 there); before, the engine looked up the top-left value only."""
    cells = [cell(f"B{r}", float(r)) for r in range(1, 7)] + [cell(f"C{r}", 10.0 * r) for r in range(1, 7)]
    formulas = [
        "ROWS(VLOOKUP({1,2;3,4},B1:C6,2))",
        "COLUMNS(VLOOKUP({1,2,3},B1:C6,2))",
        "INDEX(VLOOKUP({1;3},B1:C6,2),2)",
        "ROWS(HLOOKUP({1;2;3},{1,2;3,4},2))",
        "VLOOKUP({3,2;3,4},B1:C6,2)",
    ]
    values = _values(tmp_path, *cells, *(cell(f"D{r}", f=f) for r, f in enumerate(formulas, start=1)))
    assert [values[f"D{r}"] for r in range(1, 6)] == [2.0, 3.0, 30.0, 3.0, 30.0]
