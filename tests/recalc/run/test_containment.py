"""Containment: one cell's failure never takes the file down (issue 23).

A defect inside a built-in (any exception it raises that is not one of the engine's own signals)
is that cell's only: the cell keeps its stored value and the report names it, with the function
and the exception, among the cells not computed; every other cell is computed, the file is
written, and the CLI exits 0/1 (never 4, "internal error"). To prove it whatever the functions'
own defects are, the tests replace a built-in with one made to raise.

Omitted arguments (``MROUND(5,)``: the argument is there but empty) used to reach functions as
Python ``None`` and crash them (exit 4 on Excel-saved files); a required argument that is
omitted is now an empty value, as in Excel.
"""

from __future__ import annotations

import contextlib
import io

import openpyxl
import pytest
from hostile import cell, package, sheet
from recalc_book import s_sheet

from gputco.addin.cli import main
from gputco.workbook.recalc import BUILTINS, UnsupportedFunctionError, recalc_file
from gputco.workbook.recalc.functions import Spec
from gputco.workbook.recalc.functions import engineering as cx


def _broken(*_args):
    raise ZeroDivisionError("made to fail")


@pytest.fixture
def broken_abs(monkeypatch):
    """ABS replaced by a function that raises ZeroDivisionError (not an engine signal)."""
    monkeypatch.setitem(BUILTINS, "ABS", Spec(_broken, 1, 1))


def _book(tmp_path):
    """A1:A3 numbers; B1:B3 ABS filled down (a group), C1 a single ABS inside SUM, D1 an
    ordinary formula, E1:E2 an array formula over ABS; every formula cell has a stored value."""
    cells = [cell(f"A{r}", -r) for r in (1, 2, 3)]
    cells += [cell(f"B{r}", 10 * r, f=f"ABS(A{r})") for r in (1, 2, 3)]
    cells += [cell("C1", 99, f="SUM(ABS(A1),1)"), cell("D1", 0, f="A1+A2")]
    cells.append('<c r="E1"><f t="array" ref="E1:E2">ABS(A1:A2)</f><v>7</v></c>')
    cells.append(cell("E2", 8))
    return package(tmp_path / "broken.xlsx", sheet(*cells))


def test_a_function_made_to_raise_keeps_its_cells_stored_and_names_them(tmp_path, broken_abs):
    src = _book(tmp_path)
    dst = tmp_path / "out.xlsx"
    report = recalc_file(src, dst, unsupported="stored", engine="gputco")
    (why,) = report.unsupported
    assert why.startswith("ABS (internal error: ZeroDivisionError: made to fail")
    assert sorted(report.unsupported[why]) == [
        "S!B1",
        "S!B2",
        "S!B3",
        "S!C1",
        "S!E1",
        "S!E2",
    ]
    ws = openpyxl.load_workbook(dst, data_only=True).active
    assert [ws[f"B{r}"].value for r in (1, 2, 3)] == [10, 20, 30]  # stored values kept
    assert ws["C1"].value == 99 and ws["E1"].value == 7 and ws["E2"].value == 8
    assert ws["D1"].value == -3  # the rest is computed


def test_the_cli_never_exits_4_for_a_cell_failure(tmp_path, broken_abs):
    src = _book(tmp_path)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["recalc", str(src), "--check", "--keep-unsupported", "--engine", "gputco"])
    assert code in (0, 1), err.getvalue()
    assert "Traceback" not in err.getvalue() and "internal error" in out.getvalue() + err.getvalue()


def test_without_keep_unsupported_the_failure_is_a_named_refusal(tmp_path, broken_abs):
    with pytest.raises(UnsupportedFunctionError) as err:
        recalc_file(_book(tmp_path), check=True, engine="gputco")
    assert "ABS (internal error: ZeroDivisionError" in str(err.value) and "S!B1" in str(err.value)


@pytest.mark.parametrize(
    ("formula", "expected"),
    [
        # an omitted required argument is an empty value: 0 in arithmetic (Excel: =MROUND(5,)
        # is 0, =TRUNC(,) is 0, =ROUND(2.5,) rounds to 0 digits); an empty matrix is #VALUE!
        # (Microsoft's MMULT page: "any cells are empty" gives #VALUE!)
        ("MROUND(5,)", 0),
        ("TRUNC(,)", 0),
        ("ROUND(2.5,)", 3),
        ("MMULT(A1:A3,)", "#VALUE!"),
        ("MMULT(,A1)", "#VALUE!"),
    ],
)
def test_omitted_required_arguments_are_empty_values_not_crashes(tmp_path, formula, expected):
    cells = [cell(f"A{r}", r) for r in (1, 2, 3)] + [cell("B1", 0, f=formula)]
    dst = tmp_path / "out.xlsx"
    report = recalc_file(package(tmp_path / "o.xlsx", sheet(*cells)), dst, engine="gputco")
    assert report.unsupported == {}
    got = openpyxl.load_workbook(dst, data_only=True).active["B1"].value
    assert got == expected


# --- whole-file refusals of valid files (issue 23) ---------------------------------------------


def _openpyxl_book(path, cells):
    wb, _ = s_sheet(cells=cells)
    wb.save(path)
    return path


def _computed(tmp_path, cells):
    src = _openpyxl_book(tmp_path / "b.xlsx", cells)
    dst = tmp_path / "out.xlsx"
    report = recalc_file(src, dst, engine="gputco")
    assert report.unsupported == {}
    ws = openpyxl.load_workbook(dst, data_only=True)["S"]
    return {ref: ws[ref].value for ref, v in cells.items() if isinstance(v, str) and v.startswith("=")}


def test_the_range_operator_between_references_that_functions_return(tmp_path):
    # Microsoft's INDEX page: "the reference returned by INDEX ... =SUM(B2:INDEX(A2:C6,5,2))";
    # OFFSET returns a reference too; the range runs between the two ends whatever they are
    got = _computed(
        tmp_path,
        {
            "A1": 1,
            "A2": 2,
            "A3": 3,
            "C1": 10,
            "C2": 20,
            "B5": "=SUM(INDEX(A1:A3,1):INDEX(A1:A3,2))",
            "B6": "=SUM(A2:INDEX(A1:A3,3))",
            "B7": "=SUM(OFFSET(A1,1,0):A3)",
            "B8": "=ROWS(INDEX(A1:A3,1):INDEX(A1:A3,3))",
            "B9": "=SUM(A1:INDEX(C1:C2,2))",  # A1:C2, wider than either end
        },
    )
    assert got == {"B5": 3, "B6": 5, "B7": 5, "B8": 3, "B9": 33}


def test_references_excel_does_not_evaluate_make_no_cycle(tmp_path):
    # CHOOSE evaluates only the option its index picks; FORMULATEXT, CELL("address"), ROW read
    # the address or the formula of their reference, not its value: Excel reports no cycle
    got = _computed(
        tmp_path,
        {
            "A1": 5,
            "B1": "=CHOOSE(1,A1,C1)",
            "C1": "=B1+1",
            "D1": "=LEN(FORMULATEXT(D1))",
            "E1": '=CELL("address",E1)',
            "F1": "=ROW(F1)+ROWS(F1:F5)",
        },
    )
    assert got == {"B1": 5, "C1": 6, "D1": 21, "E1": "$E$1", "F1": 6}


@pytest.mark.parametrize(
    "cells",
    [
        {"A1": "=CHOOSE(2,5,B1)", "B1": "=A1+1"},  # the option picked closes the loop
        {"A1": '=CELL("contents",A1)'},  # reads the value of its own cell
    ],
)
def test_true_cycles_are_still_refused(tmp_path, cells):
    from gputco.workbook.recalc import CircularReferenceError

    with pytest.raises(CircularReferenceError):
        recalc_file(_openpyxl_book(tmp_path / "c.xlsx", cells), check=True, engine="gputco")


def test_a_range_to_a_function_result_that_covers_its_own_cell_is_a_cycle(tmp_path):
    from gputco.workbook.recalc import CircularReferenceError

    cells = {"A1": 1, "C1": 10, "B1": "=SUM(A1:INDEX(C1:C3,1))"}  # A1:C1 holds B1 itself
    with pytest.raises(CircularReferenceError):
        recalc_file(_openpyxl_book(tmp_path / "c.xlsx", cells), check=True, engine="gputco")


def test_bessel_arguments_that_would_take_minutes_or_gigabytes(tmp_path):
    """The differential fuzzer's BESSELJ(1E+10, 2) once asked the integration for 2e10 points
    (23 GB) and BESSELK(1, 1E+10) for 1e10 steps: now BESSELJ(1E+10, 2) takes Hankel's expansion
    (x >= 4 n^2), an order where it does not hold (1E+6 at 1E+10) is unsupported (named, kept as
    stored), and the recurrence stops past Excel's largest number (#NUM!) or at 0, in well under a
    second; ordinary arguments are computed as before (Microsoft's BESSELK(1.5, 1) = 0.277387804)."""
    import time

    cells = {
        "A1": "=BESSELJ(1E+10,1E+6)",
        "A2": "=BESSELY(1E+10,1E+6)",
        "A7": "=BESSELJ(1E+10,2)",
        "A3": "=BESSELK(1,1E+10)",
        "A4": "=BESSELK(1E+10,1E+10)",
        "A5": "=BESSELK(1.5,1)",
        "A6": "=BESSELJ(100000,2)",
    }
    wb, _ = s_sheet(cells=cells)
    wb.save(tmp_path / "b.xlsx")
    start = time.perf_counter()
    report = recalc_file(tmp_path / "b.xlsx", check=True, functions={}, unsupported="stored", engine="gputco")
    assert time.perf_counter() - start < 10
    assert report.unsupported == {
        "BESSELJ (|x| + n too large for the engine's integration)": ["S!A1"],
        "BESSELY (|x| + n too large for the engine's integration)": ["S!A2"],
    }
    got = {m.cell: m.computed for m in report.mismatches}  # openpyxl stores no values: all differ
    assert str(got["A3"]) == "#NUM!" and got["A4"] == 0.0
    assert got["A5"] == pytest.approx(0.277387804, abs=1e-9)
    assert got["A6"] == pytest.approx(0.00171923805138804, rel=1e-9)  # LibreOffice 7.4's value
    # J_2(x) = -J_0(x) + (2/x) J_1(x) (DLMF 10.6.1), with J_0 and J_1 of the same expansion
    j0, j1 = cx._hankel(1e10, 0)[0], cx._hankel(1e10, 1)[0]
    assert got["A7"] == pytest.approx(-j0 + 2e-10 * j1, rel=1e-9)
