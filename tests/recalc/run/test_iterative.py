"""Circular references: Excel's iterative calculation, and what the engine does without it.

Excel computes a circular reference only when the workbook asks for iterative calculation
(workbook.xml ``<calcPr iterate="1" iterateCount="N" iterateDelta="D"/>``, ECMA-376 Part 1,
18.2.2; defaults 100 passes and 0.001): the cells are evaluated pass after pass, starting from
their current values, until no value changes by more than D or N passes are done (Microsoft,
"Change formula recalculation, iteration, or precision in Excel"). The oracle here is the fixed
point each cycle has in closed form (interest on the average balance, a tax on a profit that
pays the tax), which holds whatever the order of evaluation within a pass; the Excel-saved
workbooks with iterate="1" of tests/data/excel_corpus are recomputed equal to Excel's cached
values by tests/recalc/test_excel_corpus.py.
"""

from __future__ import annotations

import openpyxl
import pytest
from openpyxl.workbook.properties import CalcProperties

from gputco.workbook.recalc import CircularReferenceError, evaluate_workbook, recalc_file


def _book(tmp_path, cells, *, iterate=None, count=None, delta=None, name="c.xlsx"):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    for ref, v in cells.items():
        ws[ref] = v
    if iterate is not None:
        wb.calculation = CalcProperties(iterate=iterate, iterateCount=count, iterateDelta=delta)
    path = tmp_path / name
    wb.save(path)
    return path


#: a loan whose interest is on the average of the opening and closing balances, the closing
#: balance owing that interest: closing = opening + rate * (opening + closing) / 2
LOAN = {"A1": 1000, "A2": 0.08, "B1": "=A1+B2", "B2": "=A2*(A1+B1)/2"}


def test_interest_on_the_average_balance_converges_to_its_fixed_point(tmp_path):
    """closing = opening (1 + r/2) / (1 - r/2): 1083.333..., interest 83.333..., to within the
    workbook's iterateDelta (0.001 here by default)."""
    got = evaluate_workbook(_book(tmp_path, LOAN, iterate=True))
    closing = 1000 * (1 + 0.04) / (1 - 0.04)
    assert got[("S", "B1")] == pytest.approx(closing, abs=1e-3)
    assert got[("S", "B2")] == pytest.approx(closing - 1000, abs=1e-3)


@pytest.mark.parametrize("delta", [1e-3, 1e-9])
def test_the_change_excel_stops_at_bounds_the_distance_to_the_fixed_point(tmp_path, delta):
    """A tax that is 25% of the profit after the tax's own deduction (T = 0.25 (P - T)): the
    fixed point T = 0.2 P; each pass shrinks the error by 4, so stopping when no value moves by
    more than ``delta`` leaves the value within delta / 3 of it."""
    cells = {"A1": 500, "B1": "=0.25*(A1-B1)"}
    got = evaluate_workbook(_book(tmp_path, cells, iterate=True, count=1000, delta=delta))
    assert abs(got[("S", "B1")] - 100.0) <= delta / 3 + 1e-12


def test_iterate_count_bounds_the_passes(tmp_path):
    """With one pass allowed, the tax above moves from its stored 0 once: 0.25 * 500 = 125, not
    the fixed point 100 (a count of 1000 gets there)."""
    cells = {"A1": 500, "B1": "=0.25*(A1-B1)"}
    one = evaluate_workbook(_book(tmp_path, cells, iterate=True, count=1, delta=1e-12))
    assert one[("S", "B1")] == 125.0


def test_a_cell_computed_from_the_cycle_takes_its_converged_value(tmp_path):
    cells = {**LOAN, "C1": "=B1*2", "D5": "=C1+B2"}
    got = evaluate_workbook(_book(tmp_path, cells, iterate=True, delta=1e-10))
    closing = 1000 * 1.04 / 0.96
    assert got[("S", "C1")] == pytest.approx(2 * closing, abs=1e-8)
    assert got[("S", "D5")] == pytest.approx(2 * closing + closing - 1000, abs=1e-8)


def test_check_compares_iterated_cells_to_within_the_change_excel_stops_at(tmp_path):
    """Excel's cached value of an iterated cell is its last pass's, any value within
    iterateDelta of it equally Excel's answer: --check does not list such a cell, and lists one
    further off. The cached values are written into the file as Excel would cache them."""
    path = _book(tmp_path, LOAN, iterate=True, delta=0.001)
    out = tmp_path / "filled.xlsx"
    recalc_file(path, out, engine="gputco")
    assert recalc_file(out, check=True, engine="gputco").mismatches == []


def test_without_iterative_calculation_a_cycle_is_refused_naming_its_cells(tmp_path):
    path = _book(tmp_path, LOAN)
    with pytest.raises(CircularReferenceError, match=r"S!B1.*S!B2|S!B2.*S!B1"):
        recalc_file(path, check=True, engine="gputco")


def test_kept_as_stored_with_keep_unsupported_and_reported(tmp_path):
    """Excel without iterative calculation leaves a circular reference's cells as they are (and
    warns): ``unsupported="stored"`` keeps their stored values and reports them under
    "[circular reference]"; the other cells are computed."""
    path = _book(tmp_path, {**LOAN, "C9": "=A1*2"})
    report = recalc_file(path, check=True, engine="gputco", unsupported="stored")
    assert sorted(report.unsupported["[circular reference]"]) == ["S!B1", "S!B2"]
    got = evaluate_workbook(path, unsupported="stored")
    assert got[("S", "C9")] == 2000.0
    assert got[("S", "B1")] is None  # openpyxl wrote no cached value: blank, kept


def test_an_iteration_setting_that_is_no_number_is_refused_by_name(tmp_path):
    import zipfile

    path = _book(tmp_path, LOAN, iterate=True)
    with zipfile.ZipFile(path) as z:
        parts = {n: z.read(n) for n in z.namelist()}
    parts["xl/workbook.xml"] = parts["xl/workbook.xml"].replace(
        b'iterate="1"', b'iterate="1" iterateCount="many"'
    )
    bad = tmp_path / "bad.xlsx"
    with zipfile.ZipFile(bad, "w") as z:
        for n, data in parts.items():
            z.writestr(n, data)
    from gputco.workbook.recalc import RecalcError

    with pytest.raises(RecalcError, match=r"iterateCount 'many'"):
        recalc_file(bad, check=True, engine="gputco")
