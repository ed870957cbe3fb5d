"""NOW and TODAY: never evaluated unless the caller fixes the time (`gputco recalc --now`), so a
recalculation is reproducible; with it, serials of the workbook's own date system."""

from __future__ import annotations

import datetime

import openpyxl
import pytest
from openpyxl.utils.datetime import CALENDAR_MAC_1904

from gputco.addin import cli
from gputco.workbook.recalc import UnsupportedFunctionError, evaluate_workbook

NOW = datetime.datetime(2026, 1, 31, 9, 30)
SERIAL = float((NOW.date() - datetime.date(1899, 12, 30)).days)  # 1900 system, after 1900-03-01
FRACTION = (9 * 3600 + 30 * 60) / 86400


def _book(path, date1904=False):
    wb = openpyxl.Workbook()
    if date1904:
        wb.epoch = CALENDAR_MAC_1904
    ws = wb.active
    ws.title = "S"
    for r, f in enumerate(
        ["=TODAY()", "=NOW()", "=YEAR(TODAY())", "=NOW()-TODAY()", '=TEXT(NOW(),"yyyy-mm-dd hh:mm")'], start=1
    ):
        ws.cell(r, 1, f)
    wb.save(path)
    return path


def test_without_now_they_are_unsupported(tmp_path):
    with pytest.raises(UnsupportedFunctionError) as err:
        evaluate_workbook(_book(tmp_path / "t.xlsx"), functions={})
    assert set(err.value.functions) == {"NOW", "TODAY"}


def test_with_now_they_are_that_time(tmp_path):
    got = evaluate_workbook(_book(tmp_path / "t.xlsx"), functions={}, now=NOW)
    assert got[("S", "A1")] == SERIAL
    assert got[("S", "A2")] == pytest.approx(SERIAL + FRACTION, abs=1e-9)
    assert got[("S", "A3")] == 2026.0
    assert got[("S", "A4")] == pytest.approx(FRACTION, abs=1e-9)
    assert got[("S", "A5")] == "2026-01-31 09:30"


def test_in_a_1904_workbook(tmp_path):
    got = evaluate_workbook(_book(tmp_path / "t.xlsx", True), functions={}, now=NOW)
    assert got[("S", "A1")] == SERIAL - 1462
    assert got[("S", "A5")] == "2026-01-31 09:30"


def test_cli_now_option(tmp_path, capsys):
    src, out = _book(tmp_path / "t.xlsx"), tmp_path / "out.xlsx"
    assert cli.main(["recalc", str(src), "-o", str(out), "--now", "2026-01-31T09:30"]) == 0
    assert openpyxl.load_workbook(out, data_only=True)["S"]["A3"].value == 2026
    capsys.readouterr()
    assert cli.main(["recalc", str(src), "--check", "--now", "yesterday"]) == cli.EXIT_USAGE
    err = capsys.readouterr().err
    assert "--now must be an ISO 8601 date" in err and "'yesterday'" in err
