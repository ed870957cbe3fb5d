"""Compiler.compile's own-row pre-pass (issue 40): a reference whose row is absolute and is the
formula cell's own row (``$C$6``, ``C$6``, ``$A$6:$C$6`` in row 6) reads as row-relative.

The scenario workbooks write their rows' own-row references absolute, so that LibreOffice 7.4
forms no formula groups there (its threaded group calculation reads some cells as 0, see
docs/scenarios.md); in gputco's engine such a column must still be one group, with the values of
the relative column. The expected values are computed here from the inputs by plain Python.
"""

from __future__ import annotations

import math

import openpyxl
import pytest

from gputco.workbook.recalc import evaluate_workbook, recalc_file
from gputco.workbook.recalc.run.compile import Compiler

ROWS = 40  # 160 formula cells: the engine compiles the sheet column by column (runs)


def _inputs(r: int) -> tuple[float, float, float]:
    return 1.5 * r, 10.0 - r / 4, (r % 7) - 3.0


def _book(path, absolute: bool, rows: int = ROWS):
    """Inputs in A:C; E = A*B + SUM(A:C) of the row; F = running total of E (reads the row
    above); G = $A$5*2 + B, both ways (its own row in row 5 only: a true absolute in the other
    rows, one formula filled down); H = SUM($B$1:$B$r) (one end fixed, on the own row)."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    for r in range(1, rows + 1):
        for c, v in enumerate(_inputs(r), start=1):
            ws.cell(r, c, v)
        d = "$" if absolute else ""
        ws.cell(r, 5, f"=$A{d}{r}*B{d}{r}+SUM($A{d}{r}:$C{d}{r})")
        ws.cell(r, 6, f"=$E{d}{r}" if r == 1 else f"=F{r - 1}+$E{d}{r}")
        ws.cell(r, 7, f"=$A$5*2+B{r}")
        ws.cell(r, 8, f"=SUM($B$1:$B${r})")
    wb.save(path)
    return path


def _expected(rows: int) -> dict[str, float]:
    out, total, b_sum = {}, 0.0, 0.0
    a5 = _inputs(5)[0]
    for r in range(1, rows + 1):
        a, b, c = _inputs(r)
        e = a * b + (a + b + c)
        total += e
        b_sum += b
        out |= {f"E{r}": e, f"F{r}": total, f"G{r}": a5 * 2 + b, f"H{r}": b_sum}
    return out


@pytest.mark.parametrize("rows", [ROWS, 6], ids=["by column", "cell by cell"])
@pytest.mark.parametrize("absolute", [False, True], ids=["relative", "absolute own row"])
def test_own_row_absolute_references_compute_the_relative_values(tmp_path, absolute, rows):
    """(6 rows: 24 cells, fewer than the by-column compile takes: the row-by-row loop.)"""
    got = evaluate_workbook(_book(tmp_path / "b.xlsx", absolute, rows), functions={})
    want = _expected(rows)
    bad = [
        (k, got[("S", k)], v)
        for k, v in want.items()
        if not math.isclose(got[("S", k)], v, rel_tol=1e-12, abs_tol=1e-12)
    ]
    assert not bad, bad[:5]


def test_own_row_absolute_references_form_the_relative_groups(tmp_path):
    rel = recalc_file(_book(tmp_path / "r.xlsx", False), tmp_path / "r2.xlsx", functions={})
    ab = recalc_file(_book(tmp_path / "a.xlsx", True), tmp_path / "a2.xlsx", functions={})
    assert ab.cells == rel.cells == 4 * ROWS
    # E and G one group each, F two (its first row, then the running total), H one cell a row
    # (its range grows): the same both ways
    assert ab.groups == rel.groups == 4 + ROWS, (ab.summary(), rel.summary())


def test_a_true_absolute_row_keeps_its_row():
    """$A$5 in row 5 is its own row (A5 relative there); in row 6 it stays row 5: two shapes."""
    c = Compiler([], {"SUM": None})
    k5, own = c.compile("S", 5, 7, "=$A$5*2", own_row=True)
    k6, fixed = c.compile("S", 6, 7, "=$A$5*2")
    k7, rel = c.compile("S", 7, 7, "=$A7*2", own_row=True)
    assert k5 == k7 and k5 != k6
    assert own.refs[0].rect(5, 7) == fixed.refs[0].rect(6, 7) == (5, 1, 5, 1)
    assert rel.refs[0].rect(7, 7) == (7, 1, 7, 1) and fixed.refs[0].ar1 and not own.refs[0].ar1
    # a range with one end on another row keeps its fixed end (no per-cell shape made)
    _, rng = c.compile("S", 6, 8, "=SUM($B$1:$B$6)")
    assert rng.refs[0].ar1 and rng.refs[0].ar2 and not rng.per_cell


def test_as_written_unless_the_column_moves_its_own_row():
    """Unasked, a cell is read as written (=A2*$B$2 filled down from row 2 keeps one shape);
    it reads its own row as relative where the cell above is the same formula so moved."""
    c = Compiler([], {})
    k2, _ = c.compile("S", 2, 3, "=A2*$B$2")
    k3, _ = c.compile("S", 3, 3, "=A3*$B$2")
    assert k2 == k3
    d = Compiler([], {})
    keys = [d.compile("S", r, 3, f"=A{r}*$B${r}")[0] for r in (2, 3, 4)]
    assert keys[0] != keys[1] == keys[2]  # row 2 alone, as written; then one shape
