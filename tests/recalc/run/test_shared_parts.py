"""A part that a formula holds more than once is computed once per group of cells (the scenario
rows repeat a period's debt sizing up to ten times in one cell), with the values of computing it
at each place: checked against Python's arithmetic row by row, against each row alone, and by
counting the calls a built-in function gets. Custom functions and random draws are never shared
(a custom function may count its calls, and every RAND() is a draw of its own).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from lo_record import same
from recalc_book import s_sheet

from gputco.workbook.recalc import evaluate_workbook
from gputco.workbook.recalc.functions import BUILTINS

ROWS = [(4.0, 2.0, 3.0), (-1.0, 5.0, 0.5), (9.0, -7.0, 2.0), (0.0, 0.0, 0.0), (2.25, "x", 1.0)]

#: a debt-sizing shape of the scenario rows, its SUM three times, B+C twice, A three times
SIZING = "=IF(AND(A{r}>0,SUM(B{r}:C{r})>0),MIN(1,SUM(B{r}:C{r})/A{r}),1)*(B{r}+C{r})-SUM(B{r}:C{r})+(B{r}+C{r})*A{r}"


def _sizing(a: float, b, c: float) -> object:
    """Python's value of SIZING (a text in B: #VALUE!, as Excel's arithmetic gives)."""
    if isinstance(b, str):
        return "#VALUE!"
    s = b + c
    factor = min(1.0, s / a) if a > 0 and s > 0 else 1.0
    return factor * s - s + s * a


def _book(tmp_path, template: str, rows: list[int], name: str):
    wb, ws = s_sheet(ROWS)
    for r in rows:
        ws.cell(r, 5, template.format(r=r))
    path = tmp_path / name
    wb.save(path)
    return path


def test_a_formula_with_repeated_parts_equals_pythons_arithmetic_row_by_row(tmp_path):
    got = evaluate_workbook(_book(tmp_path, SIZING, [1, 2, 3, 4, 5], "g.xlsx"), functions={})
    for r, (a, b, c) in enumerate(ROWS, start=1):
        want, value = _sizing(a, b, c), got[("S", f"E{r}")]
        if isinstance(want, str):
            assert str(value) == want, f"row {r}: {value!r}"
        else:
            assert math.isclose(value, want, rel_tol=0, abs_tol=0), f"row {r}: {value!r} against {want!r}"
        alone = evaluate_workbook(_book(tmp_path, SIZING, [r], f"c{r}.xlsx"), functions={})
        assert same(alone[("S", f"E{r}")], value)


def test_each_repeated_part_is_computed_once_per_group(tmp_path, monkeypatch):
    calls: list[int] = []
    spec = BUILTINS["SQRT"]

    def counted(x):
        calls.append(np.size(x))
        return spec.impl(x)

    monkeypatch.setitem(BUILTINS, "SQRT", dataclasses.replace(spec, impl=counted))
    template = "=SQRT(A{r}*A{r})*2+SQRT(A{r}*A{r})-SQRT(C{r})+SQRT(A{r}*A{r})/SQRT(C{r}+1)"
    got = evaluate_workbook(_book(tmp_path, template, [1, 2, 3, 4, 5], "g.xlsx"), functions={})
    assert len(calls) == 3  # SQRT(A*A), SQRT(C), SQRT(C+1): one call each for the five rows
    for r, (a, _b, c) in enumerate(ROWS, start=1):
        want = math.sqrt(a * a) * 2 + math.sqrt(a * a) - math.sqrt(c) + math.sqrt(a * a) / math.sqrt(c + 1)
        assert math.isclose(got[("S", f"E{r}")], want, rel_tol=1e-15), r


def test_a_custom_function_is_called_at_each_place(tmp_path):
    calls: list[float] = []

    def twice(x: float) -> float:
        calls.append(x)
        return 2 * x

    got = evaluate_workbook(
        _book(tmp_path, "=TWICE(A{r})+TWICE(A{r})", [1], "u.xlsx"), functions={"TWICE": twice}
    )
    assert got[("S", "E1")] == 16.0
    assert calls == [4.0, 4.0]


@pytest.mark.parametrize("seed", [3, 11])
def test_every_rand_is_a_draw_of_its_own(tmp_path, seed):
    got = evaluate_workbook(_book(tmp_path, "=RAND()-RAND()", [1, 2, 3], "r.xlsx"), functions={}, seed=seed)
    values = [got[("S", f"E{r}")] for r in (1, 2, 3)]
    assert all(v != 0.0 for v in values)  # two draws in each cell, not one drawn twice
    draws = np.random.default_rng(seed).random(6)
    assert sorted(abs(v) for v in values) == sorted(
        abs(draws[i] - draws[j]) for i, j in _pairs(draws, values)
    )


def _pairs(draws: np.ndarray, values: list[float]) -> list[tuple[int, int]]:
    """The pairs of the generator's six draws whose differences the three cells hold (the
    engine draws one value per place and row; which place draws first is its own business)."""
    out = []
    for v in values:
        hits = [(i, j) for i in range(6) for j in range(6) if i != j and math.isclose(draws[i] - draws[j], v)]
        assert len(hits) == 1, f"{v!r} is no difference of two of the seed's draws"
        out.append(hits[0])
    assert len({k for pair in out for k in pair}) == 6  # six draws, each used once
    return out


def test_one_text_on_two_sheets_reads_each_sheets_own_cells_and_names(tmp_path):
    """The tree of a formula text is shared by the sheets without names of their own (the
    scenario sheets repeat their columns); a reference without a sheet still reads the cell's
    own sheet, and a sheet's own name still means its own value there."""
    import openpyxl
    from openpyxl.workbook.defined_name import DefinedName

    wb = openpyxl.Workbook()
    sheets = [wb.active, wb.create_sheet("T"), wb.create_sheet("U")]
    sheets[0].title = "S"
    for k, ws in enumerate(sheets):
        for r in range(1, 41):  # a column long enough to be compiled in bulk
            ws.cell(r, 1, 10.0 * (k + 1) + r)
            ws.cell(r, 2, f"=A{r}*rate+SUM(A{r}:A{r})*rate")
    wb.defined_names["rate"] = DefinedName("rate", attr_text="0.5")
    sheets[2].defined_names["rate"] = DefinedName("rate", attr_text="3", localSheetId=2)
    path = tmp_path / "s.xlsx"
    wb.save(path)
    got = evaluate_workbook(path, functions={})
    for k, (name, rate) in enumerate((("S", 0.5), ("T", 0.5), ("U", 3.0))):
        for r in range(1, 41):
            a = 10.0 * (k + 1) + r
            assert got[(name, f"B{r}")] == a * rate + a * rate, (name, r)
