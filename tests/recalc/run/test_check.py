"""`--check` reports exactly the cells whose stored values were tampered with; the CLI's exit
codes and one-line errors follow addin/cli.py."""

from __future__ import annotations

import re
import shutil
import zipfile
from pathlib import Path

import openpyxl
import pytest

from gputco.addin.cli import main
from gputco.workbook.recalc import recalc_file
from gputco.workbook.soffice.fallback import libreoffice_values


def _book(path: Path) -> Path:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Calc"
    for r in range(1, 21):
        ws[f"A{r}"] = r * 1.5
        ws[f"B{r}"] = f"=A{r}*2"
        ws[f"C{r}"] = f'=IF(B{r}>20,"high","low")'
        ws[f"D{r}"] = f"=B{r}>10"
    ws["E1"] = "=1/0"
    wb.save(path)
    return path


def _tamper(path: Path, cells: dict[str, bytes]) -> None:
    """Replace the cached <v> of formula cells in the Calc sheet."""
    with zipfile.ZipFile(path) as z:
        members = [(i, z.read(i.filename)) for i in z.infolist()]
    out = path.with_suffix(".tmp")
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for info, data in members:
            if info.filename == "xl/worksheets/sheet1.xml":
                for ref, value in cells.items():
                    data, n = re.subn(
                        rb'(<c r="' + ref.encode() + rb'"[^>]*>.*?<v>)[^<]*(</v>)',
                        rb"\g<1>" + value + rb"\g<2>",
                        data,
                        count=1,
                    )
                    assert n == 1, ref
            z.writestr(info, data)
    shutil.move(out, path)


@pytest.fixture
def filled(tmp_path) -> Path:
    src = _book(tmp_path / "calc.xlsx")
    dst = tmp_path / "filled.xlsx"
    recalc_file(src, dst, functions={}, fallback=libreoffice_values)
    return dst


def test_check_of_a_fresh_file_finds_nothing(filled):
    report = recalc_file(filled, check=True, functions={}, fallback=libreoffice_values)
    assert report.checked and report.mismatches == [] and report.cells == 61


def test_check_reports_exactly_the_tampered_cells(filled):
    _tamper(filled, {"B3": b"9.5", "C17": b"low", "D2": b"1", "E1": b"#N/A"})
    report = recalc_file(filled, check=True, functions={}, fallback=libreoffice_values)
    by_cell = {m.cell: m for m in report.mismatches}
    assert sorted(by_cell) == ["B3", "C17", "D2", "E1"]
    assert (by_cell["B3"].stored, by_cell["B3"].computed, by_cell["B3"].formula) == (9.5, 9.0, "A3*2")
    assert (by_cell["C17"].stored, by_cell["C17"].computed) == ("low", "high")
    assert (by_cell["D2"].stored, by_cell["D2"].computed) == (True, False)
    assert (str(by_cell["E1"].stored), str(by_cell["E1"].computed)) == ("#N/A", "#DIV/0!")
    table = report.mismatch_table()
    assert table.splitlines()[0].split() == ["cell", "stored", "computed", "formula"]
    assert "Calc!B3" in table and "=A3*2" in table


def test_a_relative_difference_below_1e_9_is_not_reported(filled):
    _tamper(filled, {"B3": b"9.000000000001", "B4": b"12.0000001"})
    report = recalc_file(filled, check=True, functions={}, fallback=libreoffice_values)
    assert [m.cell for m in report.mismatches] == ["B4"]


def test_cli_check_exit_codes_and_table(filled, capsys):
    assert main(["recalc", str(filled), "--check"]) == 0
    _tamper(filled, {"B5": b"1"})
    assert main(["recalc", str(filled), "--check"]) == 1
    out = capsys.readouterr().out
    assert "1 cells differ" in out and "Calc!B5" in out and "=A5*2" in out


def test_cli_writes_and_refuses_to_overwrite(tmp_path, capsys):
    src = _book(tmp_path / "calc.xlsx")
    out = tmp_path / "out.xlsx"
    assert main(["recalc", str(src), "-o", str(out)]) == 0
    assert openpyxl.load_workbook(out, data_only=True)["Calc"]["B2"].value == 6
    assert main(["recalc", str(src), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.strip().count("\n") == 0 and "exists; refusing to overwrite it (use --force" in err
    assert main(["recalc", str(src), "-o", str(out), "--force"]) == 0
    assert main(["recalc", str(src)]) == 2  # neither -o, --in-place nor --check
    assert main(["recalc", str(tmp_path / "missing.xlsx"), "--check"]) == 2
    assert main(["recalc", str(src), "-o", str(tmp_path / "no" / "dir.xlsx")]) == 3
    assert main(["recalc", str(src), "--in-place"]) == 0
    (tmp_path / "bad.xlsx").write_text("not a zip")
    assert main(["recalc", str(tmp_path / "bad.xlsx"), "--check"]) == 2
    assert "not an .xlsx file" in capsys.readouterr().err
