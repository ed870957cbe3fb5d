"""gputco's pytest plugin: the ``gputco_workbook`` fixture in a user's own test suite.

The user's suite runs in a fresh pytest process (``python -m pytest`` in a folder of its own, no
conftest): the fixture comes through the ``pytest11`` entry point of the installed gputco. A
workbook whose stored values are stale fails the test with the cell, its formula and both values.
"""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
import zipfile
from pathlib import Path

import openpyxl

from gputco.workbook.recalc import recalc_file

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "tests" / "test_example_pytest_fixture.py"


def run_pytest(where: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(where)],
        cwd=where,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_plugin_is_registered_for_pytest():
    (ep,) = [e for e in importlib.metadata.entry_points(group="pytest11") if e.name == "gputco"]
    assert ep.value == "gputco.addin.pytest_plugin"


def test_the_worked_example_is_in_the_docs_and_passes_on_its_own(tmp_path):
    text = EXAMPLE.read_text(encoding="utf-8")
    assert text in (ROOT / "docs" / "pytest.md").read_text(encoding="utf-8")
    (tmp_path / "test_model.py").write_text(text, encoding="utf-8")
    done = run_pytest(tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 passed" in done.stdout


def stale_workbook(path: Path) -> Path:
    """A1 = 2, A2 = A1*3 with its value 6 stored, then A1 changed to 5 in the XML (as a tool
    that writes values without recalculating would leave it)."""
    wb = openpyxl.Workbook()
    wb.active["A1"], wb.active["A2"] = 2, "=A1*3"
    wb.save(path.with_suffix(".tmp.xlsx"))
    recalc_file(path.with_suffix(".tmp.xlsx"), path.with_suffix(".filled.xlsx"), engine="gputco")
    with zipfile.ZipFile(path.with_suffix(".filled.xlsx")) as src, zipfile.ZipFile(path, "w") as dst:
        for item in src.infolist():
            data = src.read(item)
            if item.filename == "xl/worksheets/sheet1.xml":
                assert b"<v>2</v>" in data and b"<v>6</v>" in data
                data = data.replace(b"<v>2</v>", b"<v>5</v>")
            dst.writestr(item, data)
    return path


def test_stale_stored_values_fail_with_cell_formula_and_both_values(tmp_path):
    stale_workbook(tmp_path / "stale.xlsx")
    (tmp_path / "test_stale.py").write_text(
        "def test_stale(gputco_workbook):\n"
        "    gputco_workbook('stale.xlsx')\n\n\n"
        "def test_read_anyway(gputco_workbook):\n"
        "    book = gputco_workbook('stale.xlsx', check=False)\n"
        "    assert book['Sheet!A2'] == 15 and book['Sheet', 'A1'] == 5\n",
        encoding="utf-8",
    )
    done = run_pytest(tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1 failed, 1 passed" in done.stdout
    assert "stale.xlsx: 1 formula cells differ from their stored values" in done.stdout
    # the table is in the failure's report, and again in the short summary where CI=true makes
    # pytest print messages whole
    rows = {line for line in done.stdout.splitlines() if line.startswith("Sheet!A2")}
    assert [row.split() for row in rows] == [["Sheet!A2", "6.0", "15.0", "=A1*3"]]
