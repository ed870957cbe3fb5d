"""The Checks sheet cannot pass vacuously (workbook/finance/checks.py): a row is OK only where both
sides are numbers that agree or say the same documented text; an Excel error on either side makes
the row FALSE, and ``chk_ok`` with it.

The TCO_ cells are turned into errors (``=NA()``: #N/A, ``=1/0``: #DIV/0!) and the workbook is
recalculated by gputco's engine; LibreOffice without the add-in knows no TCO_ function, so every
TCO_ cell is #NAME? there (as in Excel without the add-in), and every row must say FALSE.
"""

from __future__ import annotations

import openpyxl
import pytest
from lo import recalculate, requires_soffice

from gputco.udfs import UDFS
from gputco.workbook.finance.build import write_template
from gputco.workbook.recalc import recalc_file

HEADER = 7  # the Checks sheet's heading row (checks.build)


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    path = tmp_path_factory.mktemp("checks") / "gpu-tco.xlsx"
    write_template(path)
    return path


def _rows(ws) -> list[int]:
    """The Checks rows whose UDF cell calls a TCO_ function."""
    rows = [r for r in range(HEADER + 1, ws.max_row + 1) if "TCO_" in str(ws.cell(r, 4).value)]
    assert len(rows) > 150
    return rows


def _break(src, dst, pick) -> list[int]:
    """Copy of ``src`` with the UDF cell of the rows ``pick`` chooses replaced by an error formula;
    returns those rows."""
    wb = openpyxl.load_workbook(src)
    ws = wb["Checks"]
    rows = pick(ws, _rows(ws))
    for i, r in enumerate(rows):
        ws.cell(r, 4).value = "=NA()" if i % 2 == 0 else "=1/0"
    wb.save(dst)
    return rows


def _verdicts(path) -> tuple[object, dict[int, object], dict[int, str]]:
    ws = openpyxl.load_workbook(path, data_only=True)["Checks"]
    rows = range(HEADER + 1, ws.max_row + 1)
    return ws["C4"].value, {r: ws.cell(r, 7).value for r in rows}, {r: ws.cell(r, 1).value for r in rows}


def test_the_written_workbook_passes(written):
    ok, verdicts, _ = _verdicts(written)
    assert ok is True
    assert set(verdicts.values()) == {True}


@pytest.mark.parametrize(
    "key", ["irr", "project_irr", "equity_irr", "payback_years", "min_dscr", "tco_ratio"]
)
def test_one_tco_cell_in_error_fails_its_row_and_chk_ok(written, tmp_path, key):
    """The IRR rows (whose native IRR once started from the TCO_ cell, so both failed together), a
    text-answer row, a row that does not apply (min_dscr without debt) and a name-based row."""
    src = tmp_path / "broken.xlsx"
    out = tmp_path / "recalculated.xlsx"
    (row,) = _break(written, src, lambda ws, rows: [next(r for r in rows if ws.cell(r, 1).value == key)])
    recalc_file(src, out, engine="gputco", functions=UDFS)
    ok, verdicts, _ = _verdicts(out)
    assert verdicts[row] is False
    assert ok is False
    assert {r for r, v in verdicts.items() if v is not True} == {row}


def test_every_tco_cell_in_error_fails_every_row(written, tmp_path):
    src = tmp_path / "broken.xlsx"
    out = tmp_path / "recalculated.xlsx"
    rows = _break(written, src, lambda ws, rows: rows)
    recalc_file(src, out, engine="gputco", functions=UDFS)
    ok, verdicts, _ = _verdicts(out)
    assert ok is False
    assert [r for r in rows if verdicts[r] is not False] == []


@requires_soffice
def test_libreoffice_without_the_add_in_fails_every_row(written, tmp_path):
    """LibreOffice's full recalculation: every TCO_ cell is #NAME?, every row and chk_ok FALSE."""
    lo = recalculate(written, tmp_path / "lo")
    ws = openpyxl.load_workbook(lo, data_only=True)["Checks"]
    rows = _rows(openpyxl.load_workbook(written)["Checks"])
    named = [r for r in rows if ws.cell(r, 4).value == "#NAME?"]
    # the rest call their function only where the check applies, and say why not
    assert {ws.cell(r, 4).value for r in set(rows) - set(named)} <= {
        "does not apply",
        "needs serve_tokens_per_gpu_second",
    }
    assert len(named) > 150
    assert ws["C4"].value is False
    assert [r for r in named if ws.cell(r, 7).value is not False] == []
