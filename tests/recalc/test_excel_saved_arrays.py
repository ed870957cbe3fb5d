"""Array formulas in workbooks saved by Excel: every cell the engine computes equals Excel's value.

tests/data/excel_arrays.json names seven Excel-saved files with array formulas, copied unchanged
from public projects' test suites (project, repository, path, commit, licence, sha256): CSE blocks
of MMULT, MINVERSE, MDETERM, TRANSPOSE and arithmetic over ranges (Apache POI's matrix test data,
xlcalculator, ClosedXML), and Excel 365 dynamic arrays (PhpSpreadsheet: single-cell SUMPRODUCT
formulas saved with ``cm``, and a CHOOSECOLS spill next to a CELL("width") spill). The cached
values are Excel's answers; cells inside blocks are compared one by one.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import openpyxl
import pytest
from lo_record import same

from gputco.workbook.recalc import recalc_file
from gputco.workbook.recalc.base.refs import cell_name
from gputco.workbook.recalc.read.package import open_package
from gputco.workbook.soffice.fallback import libreoffice_values

DATA = Path(__file__).resolve().parents[1] / "data"
MANIFEST = json.loads((DATA / "excel_arrays.json").read_text())
FILES = [e["file"] for e in MANIFEST["files"]]

#: array-formula cells per file, and how many of them stay unsupported (and why)
EXPECTED = {
    "poi/test-data/spreadsheet/MatrixFormulaEvalTestData.xlsx": (262, 0),
    "phpspreadsheet/tests/data/Reader/XLSX/atsign.choosecols.xlsx": (12, 2),  # CELL("width")
    "phpspreadsheet/tests/data/Reader/XLSX/issue.3909b.xlsx": (13, 0),
    "closedxml/ClosedXML.Tests/Resource/TryToLoad/LO/xlsx/matrix-multiplication.xlsx": (2, 0),
    "xlcalculator/examples/common_use_case/use_case_01.xlsm": (39, 0),
    "xlcalculator/tests/resources/reader.xlsm": (16423, 0),
    "xlcalculator/tests/resources/choose.xlsx": (5, 0),
}


def _array_cells(path: Path) -> set[tuple[str, str]]:
    return {
        (p.name, cell_name(fc.row, fc.col))
        for p in open_package(path).sheets
        for fc in p.formulas
        if fc.kind in ("array", "spill")
    }


def test_manifest_names_every_file_with_its_hash():
    assert set(FILES) == set(EXPECTED)
    for entry in MANIFEST["files"]:
        data = (DATA / "excel_corpus" / entry["file"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == entry["sha256"], entry["file"]
        assert entry["application"].startswith("Microsoft") and entry["licence"]
        licence = MANIFEST["projects"][entry["project"]]["licence_file"]
        assert (DATA / "excel_corpus" / licence).is_file()


@pytest.mark.parametrize("name", FILES)
def test_array_cells_equal_excels_values(name):
    path = DATA / "excel_corpus" / name
    cells = _array_cells(path)
    report = recalc_file(path, check=True, functions={}, unsupported="stored", fallback=libreoffice_values)
    skipped = {c for cs in report.unsupported.values() for c in cs}
    kept = {c for c in cells if f"{c[0]}!{c[1]}" in skipped}
    assert (len(cells), len(kept)) == EXPECTED[name]
    differ = [m for m in report.mismatches if (m.sheet, m.cell) in cells]
    assert not differ, differ[:5]


def test_written_blocks_read_back_as_excels(tmp_path):
    """The writer patches every cell of the POI matrix blocks; an independent reader (openpyxl)
    finds Excel's values in the copy."""
    name = "poi/test-data/spreadsheet/MatrixFormulaEvalTestData.xlsx"
    src = tmp_path / "m.xlsx"
    shutil.copy(DATA / "excel_corpus" / name, src)
    cells = _array_cells(src)
    before = openpyxl.load_workbook(src, data_only=True)
    out = tmp_path / "out.xlsx"
    recalc_file(src, out, functions={}, fallback=libreoffice_values)
    after = openpyxl.load_workbook(out, data_only=True)
    bad = [
        (s, a, before[s][a].value, after[s][a].value)
        for s, a in cells
        if not same(before[s][a].value, after[s][a].value)
    ]
    assert not bad, bad[:5]
