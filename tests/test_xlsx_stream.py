"""workbook/xlsx/stream.py: the streaming .xlsx writer, read back by openpyxl, by gputco's engine
and by LibreOffice (the real application), values exact and text never a formula."""

from __future__ import annotations

import numpy as np
import openpyxl
import pyarrow as pa
import pytest
from lo import recalculate, requires_soffice
from lo import values as lo_values

from gputco.workbook.recalc import evaluate_workbook, recalc_file
from gputco.workbook.soffice.fallback import libreoffice_values
from gputco.workbook.xlsx.files import atomic_output
from gputco.workbook.xlsx.stream import Formula, FormulaColumn, XlsxStream

NUMBERS = np.array([0.1, 1 / 3, 300e9, 1e-300, 2.0, np.nan, -1.4199398e-7])
TEXTS = ["H100_HGX", '=HYPERLINK("http://x","y")', "a<b&c>\"d'", "tab\x01bell", None, "@SUM(1)", "H100_HGX"]


def _write(path, shared=True):
    with atomic_output(path, force=True) as tmp, XlsxStream(tmp, shared_strings=shared) as book:
        sheet = book.sheet("results", header=["number", "text", "double"])
        sheet.write_columns(
            [
                NUMBERS,
                pa.array(TEXTS, pa.string()),
                FormulaColumn("=A{r}*2", list(np.nan_to_num(NUMBERS) * 2)),
            ],
            style=[0, 0, 1],
        )
        sheet.write_row([True, 7, Formula('=B9&"!"', "7!")])
        book.sheet("second").write_row(["x", 1.5])


@pytest.mark.parametrize("shared", [True, False])
def test_values_and_texts_read_back_exactly(tmp_path, shared):
    path = tmp_path / "s.xlsx"
    _write(path, shared)
    wb = openpyxl.load_workbook(path, data_only=True)
    ws = wb["results"]
    assert [c.value for c in ws[1]] == ["number", "text", "double"]
    assert ws["A1"].font.b  # the header row is bold
    got = [ws.cell(r, 1).value for r in range(2, 9)]
    for g, want in zip(got, NUMBERS, strict=True):
        assert (g is None) if np.isnan(want) else g == want  # shortest round-trip text
    texts = [ws.cell(r, 2).value for r in range(2, 9)]
    assert texts[1] == '=HYPERLINK("http://x","y")' and ws["B3"].data_type == "s"
    assert texts[2] == "a<b&c>\"d'" and texts[3] == "tab_x0001_bell" and texts[4] is None
    assert ws["A9"].value is True and ws["C9"].value == "7!"
    assert ws["C2"].font.b and not ws["A2"].font.b  # a style per column
    assert wb["second"]["B1"].value == 1.5
    formulas = openpyxl.load_workbook(path)["results"]
    assert formulas["C2"].value == "=A2*2" and formulas["B3"].value.startswith("=HYPERLINK")
    assert formulas["B3"].data_type == "s"  # a text, not a formula


def test_cached_values_are_what_gputco_engine_computes(tmp_path):
    path = tmp_path / "s.xlsx"
    _write(path)
    assert recalc_file(path, check=True, fallback=libreoffice_values).mismatches == []
    assert evaluate_workbook(path)[("results", "C3")] == pytest.approx(2 / 3, rel=1e-15)


@requires_soffice
def test_libreoffice_opens_it_and_recalculates_the_same_values(tmp_path):
    path = tmp_path / "s.xlsx"
    _write(path)
    ours = lo_values(path)
    theirs = lo_values(recalculate(path, tmp_path / "lo"))
    for key, want in ours.items():
        got = theirs.get(key)
        if isinstance(want, float):
            assert got == pytest.approx(want, rel=1e-15), key
        else:
            assert got == want, key
