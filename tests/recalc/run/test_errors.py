"""Circular references are reported with their cells, unsupported functions by name, and unsafe
or oversized packages are refused; nothing hangs and nothing is silently taken as 0."""

from __future__ import annotations

import time
import zipfile
from pathlib import Path

import openpyxl
import pytest

from gputco.workbook.recalc import (
    CircularReferenceError,
    LimitExceededError,
    Limits,
    RecalcTimeoutError,
    UnsupportedFunctionError,
    WorkbookFormatError,
    evaluate_workbook,
    recalc_file,
)
from gputco.workbook.soffice.fallback import libreoffice_values


def _book(path: Path, cells: dict[str, dict[str, object]]) -> Path:
    wb = openpyxl.Workbook()
    wb.remove(wb.active)
    for title, values in cells.items():
        ws = wb.create_sheet(title)
        for ref, v in values.items():
            ws[ref] = v
    wb.save(path)
    return path


def test_two_cell_cycle_names_both_cells(tmp_path):
    src = _book(tmp_path / "c.xlsx", {"S": {"A1": "=B1+1", "B1": "=A1*2", "C1": "=A1"}})
    with pytest.raises(CircularReferenceError) as err:
        evaluate_workbook(src, functions={})
    assert err.value.cells == ["S!A1", "S!B1"]
    assert "S!A1, S!B1" in str(err.value)


def test_self_reference_and_cross_sheet_cycle(tmp_path):
    src = _book(tmp_path / "c.xlsx", {"S": {"A1": "=A1+1"}})
    with pytest.raises(CircularReferenceError) as err:
        evaluate_workbook(src, functions={})
    assert err.value.cells == ["S!A1"]
    src = _book(tmp_path / "d.xlsx", {"One": {"A1": "=Two!B2"}, "Two": {"B2": "=SUM(One!A1:A3)"}})
    with pytest.raises(CircularReferenceError) as err:
        evaluate_workbook(src, functions={})
    assert err.value.cells == ["One!A1", "Two!B2"]


def test_a_long_cycle_through_a_column_is_found_quickly(tmp_path):
    cells = {f"A{r}": f"=A{r + 1}+1" for r in range(1, 3000)}
    cells["A3000"] = "=A1"
    src = _book(tmp_path / "long.xlsx", {"S": cells})
    start = time.perf_counter()
    with pytest.raises(CircularReferenceError) as err:
        evaluate_workbook(src, functions={})
    assert len(err.value.cells) == 3000
    assert time.perf_counter() - start < 20


def test_recurrences_are_not_cycles(tmp_path):
    """Rows reading the row below (a backwards recurrence) and a running total are fine."""
    cells = {f"A{r}": f"=A{r + 1}+1" for r in range(1, 200)}
    cells["A200"] = 0
    cells.update({f"B{r}": f"=SUM($A$1:A{r})" for r in range(1, 201)})
    src = _book(tmp_path / "rec.xlsx", {"S": cells})
    values = evaluate_workbook(src, functions={})
    assert values[("S", "A1")] == 199
    assert values[("S", "B200")] == sum(range(200))


def test_unsupported_functions_are_named_with_their_cells(tmp_path):
    src = _book(
        tmp_path / "u.xlsx",
        {
            "S": {
                "A1": 5,
                "A2": '=CELL("format",A1)',
                "A3": '=INFO("directory")*2',
                "A4": '=WEBSERVICE("http://example.com")',
                "A5": "=BAHTTEXT(A1)",
                "A6": "=[1]Sheet1!A1",
                "A7": "=A1*3",
                "A8": "=A2+1",
                "A9": '=GETPIVOTDATA("x",A1)',
            }
        },
    )
    with pytest.raises(UnsupportedFunctionError) as err:
        recalc_file(src, tmp_path / "out.xlsx", functions={}, fallback=libreoffice_values)
    assert err.value.functions == {
        "CELL (info types that depend on the application or file)": ["S!A2"],
        "INFO (type_text values that depend on the application)": ["S!A3"],
        "WEBSERVICE": ["S!A4"],
        "BAHTTEXT": ["S!A5"],
        "[external workbook reference]": ["S!A6"],
        "GETPIVOTDATA": ["S!A9"],
    }
    assert not (tmp_path / "out.xlsx").exists(), "nothing is written"
    assert isinstance(err.value, ValueError)


def test_unsupported_cells_can_keep_their_stored_values(tmp_path):
    src = _book(tmp_path / "u.xlsx", {"S": {"A1": 5, "A2": '=CELL("format",A1)', "A3": "=A1*3"}})
    out = tmp_path / "out.xlsx"
    report = recalc_file(src, out, functions={}, unsupported="stored", fallback=libreoffice_values)
    assert report.unsupported == {"CELL (info types that depend on the application or file)": ["S!A2"]}
    assert not report.ok
    ws = openpyxl.load_workbook(out, data_only=True)["S"]
    assert ws["A3"].value == 15
    assert ws["A2"].value is None, "no value is invented for the unsupported cell"


def test_timeout(tmp_path):
    cells = {f"A{r}": f"=A{r - 1}+1" for r in range(2, 3000)}
    cells["A1"] = 1
    src = _book(tmp_path / "slow.xlsx", {"S": cells})
    with pytest.raises(RecalcTimeoutError):
        evaluate_workbook(src, functions={}, timeout_s=0.0)


def test_limits_and_unsafe_xml_are_refused(tmp_path):
    src = _book(tmp_path / "ok.xlsx", {"S": {"A1": "=1+1"}})
    with pytest.raises(LimitExceededError, match="parts"):
        evaluate_workbook(src, functions={}, limits=Limits(max_members=3))
    with pytest.raises(LimitExceededError, match="bytes"):
        evaluate_workbook(src, functions={}, limits=Limits(max_member_bytes=100))
    bomb = tmp_path / "bomb.xlsx"
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename == "xl/worksheets/sheet1.xml":
                data = data.replace(b"</worksheet>", b"<!--" + b" " * 50_000_000 + b"--></worksheet>")
            zout.writestr(info.filename, data)
    with pytest.raises(LimitExceededError, match="ratio"):
        evaluate_workbook(bomb, functions={})
    evil = tmp_path / "evil.xlsx"
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(evil, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename == "xl/worksheets/sheet1.xml":
                data = (
                    b'<?xml version="1.0"?><!DOCTYPE w [<!ENTITY a "aaaaaaaaaa">'
                    b'<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>'
                    + data.split(b"?>", 1)[-1].replace(b"<sheetData>", b"<sheetData>&b;")
                )
            zout.writestr(info.filename, data)
    with pytest.raises(WorkbookFormatError, match="DTD"):
        evaluate_workbook(evil, functions={})
    (tmp_path / "notzip.xlsx").write_bytes(b"hello")
    with pytest.raises(WorkbookFormatError, match=r"not an \.xlsx"):
        evaluate_workbook(tmp_path / "notzip.xlsx", functions={})
