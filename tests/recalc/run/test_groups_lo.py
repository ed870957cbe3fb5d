"""Shape grouping: a 10,000-row scenario sheet evaluates column by column, equal to LibreOffice.

Each formula column of tests/recalc_book.tco_book (PMT, arithmetic, INDEX/MATCH and VLOOKUP into
a small table, cross-sheet inputs through absolute references, IF/NA, ROUND, MIN/MAX) is one
shape in 10,000 consecutive rows, so it must become one group evaluated as one vector.

LibreOffice's answers for the first RECORDED rows (the per-row inputs cycle through every value
they take well within them) and for the running-balance sheet are recorded in
tests/data/lo_probes.json, so the engine is compared with them everywhere; the ``..._libreoffice``
tests compare all 10,000 rows with the installed LibreOffice live and refresh the recording
(GPUTCO_LO_REFRESH=1, see tests/lo_record.py).
"""

from __future__ import annotations

import math
import time

import openpyxl
import pytest
from lo import recalculate, requires_soffice
from lo import values as lo_values
from lo_record import REGENERATE, recorded, verify_or_refresh
from recalc_book import tco_book

from gputco.workbook.recalc import evaluate_workbook, recalc_file
from gputco.workbook.soffice.fallback import libreoffice_values

ROWS = 10_000
RECORDED = 200
COLS = "FGHIJKLMNO"


def _recorded(name: str, keys: list[str]) -> dict:
    rec = recorded(name)
    missing = [k for k in keys if k not in rec]
    assert not missing, f"{len(missing)} cells have no recorded LibreOffice answer; {REGENERATE}"
    return rec


@pytest.fixture(scope="module")
def scenarios(tmp_path_factory):
    folder = tmp_path_factory.mktemp("groups")
    src = tco_book(folder / "scenarios.xlsx", ROWS)
    t0 = time.perf_counter()
    report = recalc_file(src, folder / "ours.xlsx", functions={}, fallback=libreoffice_values)
    seconds = time.perf_counter() - t0
    return src, report, lo_values(folder / "ours.xlsx"), seconds


def _tco_keys(rows: int) -> list[tuple[str, str]]:
    return [("Scenarios", f"{c}{r}") for r in range(2, rows + 2) for c in COLS]


def test_10000_row_scenarios_are_one_group_per_column_and_equal_recorded_lo(scenarios):
    _, report, ours, _ = scenarios
    assert report.cells == ROWS * 10
    assert report.groups == 10, "each formula column should be one vectorised group"
    keys = _tco_keys(RECORDED)
    rec = _recorded("groups_tco", [f"{s}!{r}" for s, r in keys])
    bad = [
        (k, rec[f"{k[0]}!{k[1]}"], ours.get(k))
        for k in keys
        if not math.isclose(rec[f"{k[0]}!{k[1]}"], ours.get(k, math.nan), rel_tol=1e-9, abs_tol=1e-12)
    ]
    assert not bad, f"{len(bad)} cells differ from LibreOffice's recorded answers: {bad[:5]}"


@requires_soffice
def test_recording_equals_live_libreoffice_10000_rows(scenarios, tmp_path, capsys):
    src, report, ours, ours_s = scenarios
    t0 = time.perf_counter()
    lo_file = recalculate(src, tmp_path / "lo")
    lo_s = time.perf_counter() - t0
    lo = lo_values(lo_file)
    formula_cells = _tco_keys(ROWS)
    bad = [
        (k, lo[k], ours.get(k))
        for k in formula_cells
        if not math.isclose(lo[k], ours.get(k, math.nan), rel_tol=1e-9, abs_tol=1e-12)
    ]
    assert not bad, f"{len(bad)} cells differ, first: {bad[:5]}"
    changed = verify_or_refresh("groups_tco", {f"{s}!{r}": lo[(s, r)] for s, r in _tco_keys(RECORDED)})
    assert not changed, f"LibreOffice's answers changed: {changed[:5]}; {REGENERATE}"
    with capsys.disabled():
        print(
            f"\n10,000 x 10 formulas: gputco recalc_file {ours_s:.2f} s "
            f"(evaluate {report.seconds:.2f} s), LibreOffice {lo_s:.2f} s"
        )


@pytest.fixture(scope="module")
def loan(tmp_path_factory):
    """A running balance (each row reads the row above): it cannot be one vector, so it runs
    cell by cell in dependency order, interleaved across two columns."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws["A1"], ws["B1"], ws["C1"] = 1000.0, 0.0, 0.01
    for r in range(2, 502):
        ws[f"B{r}"] = f"=A{r - 1}*$C$1"  # interest on last balance
        ws[f"A{r}"] = f"=A{r - 1}+B{r}-10"  # new balance
        ws[f"D{r}"] = f"=SUM($B$2:B{r})"  # running total: a range with one fixed end
    src = tmp_path_factory.mktemp("loan") / "loan.xlsx"
    wb.save(src)
    return src, evaluate_workbook(src, functions={})


def test_recurrence_splits_into_cells_and_equals_recorded_lo(loan):
    _, ours = loan
    assert len(ours) == 1500
    rec = _recorded("groups_loan", [f"{s}!{r}" for s, r in ours])
    for (sheet, ref), v in ours.items():
        assert math.isclose(v, rec[f"{sheet}!{ref}"], rel_tol=1e-9), (ref, v, rec[f"{sheet}!{ref}"])


@requires_soffice
def test_recording_equals_live_libreoffice_recurrence(loan, tmp_path):
    src, ours = loan
    lo = lo_values(recalculate(src, tmp_path / "lo"))
    for key, v in ours.items():
        assert math.isclose(v, lo[key], rel_tol=1e-9), (key, v, lo[key])
    changed = verify_or_refresh("groups_loan", {f"{s}!{r}": lo[(s, r)] for s, r in ours})
    assert not changed, f"LibreOffice's answers changed: {changed[:5]}; {REGENERATE}"
