"""Custom functions in headless recalculation: one call per group, Excel-shaped arguments,
``#...`` texts as error values, and gputco's own TCO_* registry (``gputco.udfs.UDFS``) by default."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import openpyxl
import pytest
from lo import recalculate, requires_soffice
from lo import values as lo_values
from lo_record import REGENERATE, recorded, verify_or_refresh

from gputco import udfs
from gputco.udfs import UDFS
from gputco.workbook.recalc import UnsupportedFunctionError, evaluate_workbook, recalc_file
from gputco.workbook.soffice.fallback import libreoffice_values


def _column_book(path: Path, rows: int, formula: str, inputs=None) -> Path:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    ws["E1"] = 10.0
    for r in range(1, rows + 1):
        ws[f"A{r}"] = inputs[r - 1] if inputs else r * 0.5
        ws[f"B{r}"] = formula.format(r=r)
    wb.save(path)
    return path


class Recorder:
    """A custom function that records how it was called: (args) per call."""

    def __init__(self, func):
        self.func, self.calls = func, []

    def __call__(self, *args):
        self.calls.append(args)
        return self.func(*args)


def _scale(x, factor=2.0):
    if isinstance(x, list):
        return [[_scale(row[0], factor)] for row in x]
    if x is None:
        return "#N/A empty input"
    return x * factor


def test_a_group_calls_the_function_once_with_column_arguments(tmp_path):
    src = _column_book(tmp_path / "u.xlsx", 500, "=MY_SCALE(A{r},$E$1)+1")
    rec = Recorder(_scale)
    values = evaluate_workbook(src, functions={"MY_SCALE": rec})
    assert len(rec.calls) == 1, "one vectorised call for the 500-row group"
    x, factor = rec.calls[0]
    assert factor == 10.0 and len(x) == 500 and x[0] == [0.5] and x[-1] == [250.0]
    assert values[("S", "B7")] == 3.5 * 10 + 1


def test_error_texts_and_error_inputs(tmp_path):
    src = _column_book(tmp_path / "u.xlsx", 4, "=MY_SCALE(A{r})", inputs=[1.0, "=NA()", None, "=1/0"])
    rec = Recorder(_scale)
    values = evaluate_workbook(src, functions={"MY_SCALE": rec})
    assert values[("S", "B1")] == 2.0
    assert str(values[("S", "B2")]) == "#N/A", "an error input passes through"
    # the function's text stays a text, as in Excel (xlwings) and LibreOffice (add-in)
    assert values[("S", "B3")] == "#N/A empty input"
    assert str(values[("S", "B4")]) == "#DIV/0!"
    assert [len(a[0]) for a in rec.calls] == [2], "error rows are not passed to the function"


def test_a_failing_function_gives_value_errors_and_is_reported(tmp_path):
    def broken(x):
        raise RuntimeError("boom")

    src = _column_book(tmp_path / "u.xlsx", 3, "=BROKEN(A{r})")
    report = recalc_file(
        src, tmp_path / "out.xlsx", functions={"BROKEN": broken}, fallback=libreoffice_values
    )
    assert len(report.problems) == 3 and "BROKEN raised RuntimeError: boom" in report.problems[0]
    values = openpyxl.load_workbook(tmp_path / "out.xlsx", data_only=True)["S"]
    assert values["B1"].value == "#VALUE!"


def test_a_function_that_only_takes_scalars_is_called_per_row(tmp_path):
    def scalar_only(x):
        if isinstance(x, list):
            raise TypeError("scalars only")
        return x + 1

    src = _column_book(tmp_path / "u.xlsx", 5, "=PLUS1(A{r})")
    values = evaluate_workbook(src, functions={"PLUS1": scalar_only})
    assert [values[("S", f"B{r}")] for r in range(1, 6)] == [1.5, 2.0, 2.5, 3.0, 3.5]


def test_unknown_custom_functions_are_unsupported(tmp_path):
    src = _column_book(tmp_path / "u.xlsx", 2, "=NOT_A_UDF(A{r})")
    with pytest.raises(UnsupportedFunctionError) as err:
        evaluate_workbook(src, functions={})
    assert err.value.functions == {"NOT_A_UDF": ["S!B1", "S!B2"]}


def test_gputco_registry_handed_in(tmp_path):
    """TCO_ functions over 1,000 rows equal the plain numpy functions of udfs; the engine alone
    (no ``functions``) knows none of them and says so."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    rates = np.linspace(0.0, 0.2, 1000)
    for i, rate in enumerate(rates, start=1):
        ws[f"A{i}"] = float(rate)
        ws[f"B{i}"] = f"=TCO_CAPITAL_PER_GPU_HOUR(31250,A{i},5)"
        ws[f"C{i}"] = '=TCO_GPU_HOUR(IF(MOD(ROW(),2)=0,"H100_HGX","GB200_NVL72"))'
        ws[f"D{i}"] = f"=TCO_COST_PER_MTOK(B{i}+1,1.079e12,989.4,0.4)"
    ws["E1"] = '=TCO_GPU_HOUR("H100")'
    src = tmp_path / "tco.xlsx"
    wb.save(src)
    with pytest.raises(UnsupportedFunctionError, match="TCO_CAPITAL_PER_GPU_HOUR"):
        evaluate_workbook(src)
    values = evaluate_workbook(src, functions=UDFS)
    want_b = udfs.tco_capital_per_gpu_hour(31250, rates, 5)
    got_b = np.array([values[("S", f"B{i}")] for i in range(1, 1001)])
    np.testing.assert_allclose(got_b, want_b, rtol=1e-12)
    assert values[("S", "C2")] == pytest.approx(udfs.tco_gpu_hour("H100_HGX"), rel=1e-12)
    assert values[("S", "C3")] == pytest.approx(udfs.tco_gpu_hour("GB200_NVL72"), rel=1e-12)
    assert values[("S", "D5")] == pytest.approx(
        udfs.tco_cost_per_mtok(want_b[4] + 1, 1.079e12, 989.4, 0.4), rel=1e-12
    )
    assert values[("S", "E1")].startswith("#N/A unknown system 'H100'"), "a text naming the cause"


def test_table_functions_are_reported_not_guessed(tmp_path):
    src = _column_book(tmp_path / "t.xlsx", 1, "=TCO_SYSTEMS()")
    with pytest.raises(UnsupportedFunctionError, match="returns a table"):
        evaluate_workbook(src, functions=UDFS)


@pytest.fixture(scope="module")
def pmt_book(tmp_path_factory):
    """TCO_CAPITAL_PER_GPU_HOUR (our UDF) next to -PMT(...)/8760 over 200 rows."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    for i in range(1, 201):
        ws[f"A{i}"], ws[f"B{i}"], ws[f"C{i}"] = 20000 + 100 * i, 0.01 + i / 2000, 2 + i % 6
        ws[f"D{i}"] = f"=-PMT(B{i},C{i},A{i})/8760"
        ws[f"E{i}"] = f"=TCO_CAPITAL_PER_GPU_HOUR(A{i},B{i},C{i})"
    src = tmp_path_factory.mktemp("pmt") / "pmt.xlsx"
    wb.save(src)
    return src, evaluate_workbook(src, functions=UDFS)


def test_udf_equals_recorded_libreoffice_native_pmt(pmt_book):
    """The UDF and the engine's PMT equal LibreOffice's -PMT(...)/8760 (recorded answers)."""
    _, ours = pmt_book
    rec = recorded("udf_pmt")
    assert len(rec) == 200, f"LibreOffice's answers are not recorded; {REGENERATE}"
    for i in range(1, 201):
        assert math.isclose(ours[("S", f"E{i}")], rec[f"S!D{i}"], rel_tol=1e-9)
        assert math.isclose(ours[("S", f"D{i}")], rec[f"S!D{i}"], rel_tol=1e-9)


@requires_soffice
def test_recording_equals_live_libreoffice_native_pmt(pmt_book, tmp_path):
    src, ours = pmt_book
    lo = lo_values(recalculate(src, tmp_path / "lo"))
    for i in range(1, 201):
        assert math.isclose(ours[("S", f"E{i}")], lo[("S", f"D{i}")], rel_tol=1e-9)
        assert math.isclose(ours[("S", f"D{i}")], lo[("S", f"D{i}")], rel_tol=1e-9)
    changed = verify_or_refresh("udf_pmt", {f"S!D{i}": lo[("S", f"D{i}")] for i in range(1, 201)})
    assert not changed, f"LibreOffice's answers changed: {changed[:5]}; {REGENERATE}"
