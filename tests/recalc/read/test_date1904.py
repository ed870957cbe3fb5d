"""Workbooks saved with the 1904 date system (``<workbookPr date1904="1"/>``, Excel for Mac's old
default) compute dates in their own system: serial 0 is 1904-01-01, with no fictitious
1900-02-29. Expected serials come from Python's calendar (days since 1904-01-01)."""

from __future__ import annotations

import datetime

import openpyxl
from openpyxl.utils.datetime import CALENDAR_MAC_1904

from gputco.workbook.recalc import evaluate_workbook, recalc_file
from gputco.workbook.soffice.fallback import libreoffice_values

EPOCH = datetime.date(1904, 1, 1)


def _days(y, m, d) -> float:
    return float((datetime.date(y, m, d) - EPOCH).days)


def _book(path, formulas, date1904=True):
    wb = openpyxl.Workbook()
    if date1904:
        wb.epoch = CALENDAR_MAC_1904
    ws = wb.active
    ws.title = "S"
    for r, f in enumerate(formulas, start=1):
        ws.cell(r, 1, f)
    wb.save(path)
    return path


def test_dates_count_from_1904(tmp_path):
    formulas = [
        "=DATE(2024,1,1)",
        "=YEAR(0)",
        "=MONTH(0)",
        "=DAY(0)",
        "=EOMONTH(0,1)",
        "=DAY(59)",
        '="2024-01-01"+0',
        "=DATE(1903,12,31)",
        "=EDATE(DATE(2024,1,31),1)",
        "=YEAR(-1)",
        "=DATE(2024,1,1)-DATE(1904,1,1)",
    ]
    got = evaluate_workbook(_book(tmp_path / "mac.xlsx", formulas), functions={})
    want = [
        _days(2024, 1, 1),
        1904.0,
        1.0,
        1.0,
        _days(1904, 2, 29),
        29.0,
        _days(2024, 1, 1),
        "#NUM!",
        _days(2024, 2, 29),
        "#NUM!",
        _days(2024, 1, 1),
    ]
    for r, (f, w) in enumerate(zip(formulas, want, strict=True), start=1):
        v = got[("S", f"A{r}")]
        assert (str(v) == w) if isinstance(w, str) else v == w, (f, v, w)


def test_the_same_formulas_in_a_1900_book_differ_by_1462_days(tmp_path):
    f = ["=DATE(2024,1,1)"]
    mac = evaluate_workbook(_book(tmp_path / "mac.xlsx", f), functions={})[("S", "A1")]
    win = evaluate_workbook(_book(tmp_path / "win.xlsx", f, False), functions={})[("S", "A1")]
    assert win - mac == 1462.0 and win == 45292.0


def test_written_values_read_back_as_the_right_dates(tmp_path):
    src = _book(tmp_path / "mac.xlsx", ["=DATE(2030,6,30)"])
    recalc_file(src, tmp_path / "out.xlsx", functions={}, fallback=libreoffice_values)
    wb = openpyxl.load_workbook(tmp_path / "out.xlsx", data_only=True)
    assert wb.epoch == CALENDAR_MAC_1904
    assert wb["S"]["A1"].value == _days(2030, 6, 30)
