"""IRR, XIRR and XNPV in the engine against numpy-financial and closed forms (no LibreOffice).

numpy-financial's ``irr`` solves the same equation (sum v_i/(1+r)^i = 0) through polynomial roots,
an independent method from the engine's Newton iteration; XIRR is checked by discounting its
own answer with XNPV's definition written out here (Microsoft's XNPV formula,
sum P_i/(1+rate)^((d_i-d_1)/365)), and against a case whose answer is exact.
"""

from __future__ import annotations

import math

import numpy as np
import numpy_financial as npf
import openpyxl
import pytest
from recalc_book import s_sheet

from gputco.workbook.recalc import XlError, evaluate_workbook

FLOWS = [
    [-1000, 300, 400, 500],
    [-70000, 12000, 15000, 18000, 21000, 26000],
    [-5e6, 1.2e6, 1.4e6, 1.6e6, 1.8e6, 2e6, -0.5e6],
    [-100, 0, 0, 0, 0, 250],
    [-250_000, 40_000, 60_000, 80_000, 90_000, 95_000, 95_000],
]


def _book(tmp_path, rows: list[list], formulas: list[str]):
    wb, ws = s_sheet(rows)
    for r, f in enumerate(formulas, start=1):
        ws.cell(r, 20, f)
    path = tmp_path / "b.xlsx"
    wb.save(path)
    values = evaluate_workbook(path, functions={})
    return [values[("S", f"T{r}")] for r in range(1, len(formulas) + 1)]


def test_irr_equals_numpy_financial_for_a_column_of_cash_flow_rows(tmp_path):
    width = max(len(f) for f in FLOWS)
    rows = [f + [None] * (width - len(f)) for f in FLOWS]  # blanks are skipped, not periods
    got = _book(tmp_path, rows, [f"=IRR(A{r}:G{r})" for r in range(1, len(rows) + 1)])
    for flows, ours in zip(FLOWS, got, strict=True):
        assert math.isclose(ours, float(npf.irr(flows)), rel_tol=1e-9), (flows, ours)


def test_irr_without_both_signs_or_without_convergence_is_num(tmp_path):
    got = _book(
        tmp_path,
        [[100, 200, 300], [-1, -2, -3], [-1, 1e-300, 0]],
        ["=IRR(A1:C1)", "=IRR(A2:C2)", "=IRR(A3:C3,-0.9999)"],
    )
    assert all(isinstance(v, XlError) and str(v) == "#NUM!" for v in got), got


def test_xirr_zeroes_xnpv_and_exact_doubling(tmp_path):
    dates = [45292, 45350, 45500, 45700, 46000]  # serial days, first is the start
    cash = [-10000, 2000, 3000, 4000, 4500]
    got = _book(
        tmp_path,
        [cash, dates, [-100, 200], [45292, 45292 + 365]],
        ["=XIRR(A1:E1,A2:E2)", "=XNPV(0.07,A1:E1,A2:E2)", "=XIRR(A3:B3,A4:B4)"],
    )
    rate, xnpv, doubled = got
    pairs = list(zip(cash, dates, strict=True))
    assert abs(sum(c / (1 + rate) ** ((d - dates[0]) / 365) for c, d in pairs)) < 1e-6
    want = sum(c / 1.07 ** ((d - dates[0]) / 365) for c, d in pairs)
    assert math.isclose(xnpv, want, rel_tol=1e-12)
    assert math.isclose(doubled, 1.0, rel_tol=1e-9)  # 100 -> 200 in exactly 365 days


@pytest.mark.parametrize(
    "formula, code",
    [
        ("=XNPV(0.1,A1:B1,A2:C2)", "#NUM!"),  # different counts
        ("=XNPV(0.1,A1:B1,A3:B3)", "#NUM!"),  # a date before the first
        ("=XIRR(A1:B1,A4:B4)", "#VALUE!"),  # a date that is text
        # Microsoft's XNPV page: "If any number in dates is not a valid date, XNPV returns the
        # #VALUE! error value", before a date that precedes the first (#NUM!) is looked at
        ("=XNPV(0.1,A1:B1,A5:B5)", "#VALUE!"),  # a negative serial
        ("=XNPV(0.1,A1:B1,A6:B6)", "#VALUE!"),  # a serial past 9999-12-31, and before the first
        ("=XIRR(A1:B1,A5:B5)", "#VALUE!"),
    ],
)
def test_xnpv_xirr_argument_errors(tmp_path, formula, code):
    rows = [[-100, 150, 0], [45000, 45100, 45200], [45000, 44000], [45000, "soon"], [-1, 45000]]
    got = _book(tmp_path, [*rows, [2958466, 45000]], [formula])
    assert str(got[0]) == code


def test_irr_vector_group_matches_cell_by_cell(tmp_path):
    rng = np.random.default_rng(7)
    rows = [[-1000.0, *np.round(rng.uniform(100, 500, 5), 2).tolist()] for _ in range(50)]
    got = _book(tmp_path, rows, [f"=IRR(A{r}:F{r},0.1)" for r in range(1, 51)])
    for row, ours in zip(rows, got, strict=True):
        assert math.isclose(ours, float(npf.irr(row)), rel_tol=1e-9)


def test_npv_irr_payback_sheet_without_array_entry(tmp_path):
    """The usual cash-flow block: NPV, IRR, XIRR on yearly dates, and payback as the first year
    the cumulative cash turns non-negative (MATCH over an INDEX(..., 0) array, no CSE)."""
    flows = [-5e6, 1.2e6, 1.4e6, 1.6e6, 1.8e6, 2e6, -0.5e6]
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    for i, f in enumerate(flows):
        r = i + 1
        ws[f"A{r}"], ws[f"B{r}"] = i, f
        ws[f"C{r}"] = f"=SUM($B$1:B{r})"
        ws[f"D{r}"] = f"=EDATE(DATE(2026,1,1),12*A{r})"
    ws["F1"] = "=B1+NPV(0.08,B2:B7)"
    ws["F2"] = "=IRR(B1:B7)"
    ws["F3"] = "=MATCH(TRUE,INDEX(C1:C7>=0,0),0)-1"
    ws["F4"] = "=XIRR(B1:B7,D1:D7)"
    wb.save(tmp_path / "cf.xlsx")
    got = evaluate_workbook(tmp_path / "cf.xlsx", functions={})
    assert math.isclose(got[("S", "F1")], float(npf.npv(0.08, flows)), rel_tol=1e-12)
    assert math.isclose(got[("S", "F2")], float(npf.irr(flows)), rel_tol=1e-9)
    assert got[("S", "F3")] == 4.0  # cumulative: -5.0, -3.8, -2.4, -0.8, +1.0 (millions)
    days = [got[("S", f"D{r}")] for r in range(1, 8)]
    rate = got[("S", "F4")]
    assert abs(sum(f / (1 + rate) ** ((d - days[0]) / 365) for f, d in zip(flows, days, strict=True))) < 1e-4
