"""Multi-cell array formulas (CSE blocks) against LibreOffice, cell by cell: recorded and live.

tests/arrays_book.py writes blocks filled by one formula each (arithmetic over ranges, IF,
TRANSPOSE, MMULT, LINEST with and without its statistics, TREND, GROWTH, LOGEST, array
constants, errors) and ordinary
formulas that read cells of the blocks. Every cell of every block must equal LibreOffice's
answer: the recorded one always (tests/data/lo_probes.json, set "arrays"), the live one where
LibreOffice is installed (which also refreshes the recording with GPUTCO_LO_REFRESH=1).
Excel and LibreOffice fill a block the same way: a one-row (one-column) result repeats down
(across), a single value fills it, cells beyond a larger result are #N/A.

tests/data/arrays_lo.xlsx is that workbook as LibreOffice 7.4.7 saved it (every cell of every
block written, as Excel writes them too; made by ``soffice --convert-to xlsx`` of the book above):
the engine reads it and finds no stored value that differs; with every stored value of the blocks
zeroed, it finds them all and writes LibreOffice's values back through the byte-patching writer.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

import openpyxl
import pytest
from arrays_book import BLOCKS, COLLINEAR, arrays_book, block_areas, cells
from lo import recalculate, requires_soffice
from lo import values as lo_values
from lo_record import recorded, same, verify_or_refresh
from openpyxl.utils import get_column_letter

from gputco.workbook.recalc import recalc_file
from gputco.workbook.recalc.base.refs import split_cell
from gputco.workbook.recalc.read.package import open_package
from gputco.workbook.recalc.run.engine import evaluate_package
from gputco.workbook.soffice.fallback import libreoffice_values

SET = "arrays"
REGENERATE = "GPUTCO_LO_REFRESH=1 python -m pytest -q tests/recalc/test_lo_arrays.py -k recording_equals_live"
LO_FILE = Path(__file__).resolve().parents[1] / "data" / "arrays_lo.xlsx"


#: cells where LibreOffice and Excel differ: Excel's documented value, and the source
EXCEL_NOT_LO: dict[str, tuple[object, str]] = {
    f"Blocks!{cell}": (
        "#NUM!",
        "Microsoft's MINVERSE page (https://support.microsoft.com/de-de/"
        "Excel/functions/minverse-function): 'Some square matrices cannot be "
        "inverted and will return the #NUM! error value'; LibreOffice: #VALUE!",
    )
    for cell in ("A88", "B88", "A89", "B89")
}  # =MINVERSE({1,2;2,4})


def _block_cells(formula: str) -> list[list[str]]:
    top, left, bottom, right = block_areas()[[b[2] for b in BLOCKS].index(formula)]
    return [
        [f"Blocks!{get_column_letter(c)}{r}" for c in range(left, right + 1)] for r in range(top, bottom + 1)
    ]


def _collinear_expected() -> dict[str, tuple[object, str]]:
    """Excel's LINEST over collinear x's ([MS-OI29500] 2.1.985, LINEST: collinear x vectors "are
    omitted from the regression calculations ... given a coefficient of 0 and a standard error of
    0"): LibreOffice's own answer for the x's without the redundant columns, with 0 and 0 in front
    (coefficients are listed last x first) and #N/A filling rows 3-5 of the wider block. Cells
    where LibreOffice, which solves the near-singular system as it stands, differs."""
    rec, out = recorded(SET), {}
    for formula, reduced, dropped in COLLINEAR:
        small = [[rec.get(k) for k in row] for row in _block_cells(reduced)]
        for i, row in enumerate(_block_cells(formula)):
            want = [0.0] * dropped + small[i] if i < 2 else small[i] + ["#N/A"] * dropped
            for k, v in zip(row, want, strict=True):
                if k in rec and not same(rec[k], v):
                    out[k] = (
                        v,
                        "Excel drops a collinear x column ([MS-OI29500] 2.1.985); "
                        f"LibreOffice 7.4 does not ({formula})",
                    )
    return out


EXCEL_NOT_LO |= _collinear_expected()
EXCEL_NOT_LO |= {
    cell: (
        "#NUM!",
        "Microsoft's GROWTH page (https://support.microsoft.com/en-us/Excel/functions/"
        "growth-function): 'If any of the numbers in known_y's is 0 or negative, "
        "GROWTH returns the #NUM! error value'; LibreOffice: #VALUE!",
    )
    for row in _block_cells("=GROWTH(Data!A1:A6-3)")
    for cell in row
}


def _key(sheet: str, ref: str) -> str:
    return f"{sheet}!{ref}"


@pytest.fixture(scope="module")
def book(tmp_path_factory):
    return arrays_book(tmp_path_factory.mktemp("recalc_arrays") / "arrays.xlsx")


@pytest.fixture(scope="module")
def ours(book):
    evaluation = evaluate_package(open_package(book), {})
    assert not evaluation.problems
    return {_key(s, a): evaluation.value(s, *split_cell(a)) for s, a in cells()}


@pytest.fixture(scope="module")
def lo_recorded():
    rec = recorded(SET)
    missing = [_key(s, a) for s, a in cells() if _key(s, a) not in rec]
    assert not missing, (
        f"{len(missing)} cells have no recorded LibreOffice answer (first: "
        f"{missing[:3]}); record them with: {REGENERATE}"
    )
    return rec


@pytest.mark.parametrize("block", range(len(BLOCKS)), ids=[b[2] for b in BLOCKS])
def test_block_matches_recorded_lo(ours, lo_recorded, block):
    top, left, bottom, right = block_areas()[block]
    keys = [
        f"Blocks!{get_column_letter(c)}{r}" for r in range(top, bottom + 1) for c in range(left, right + 1)
    ]
    bad = [
        f"{k}: LibreOffice {lo_recorded[k]!r}, gputco {ours[k]!r}"
        for k in keys
        if k not in EXCEL_NOT_LO and not same(lo_recorded[k], ours[k])
    ]
    for k in set(keys) & set(EXCEL_NOT_LO):
        excel, why = EXCEL_NOT_LO[k]
        assert same(excel, ours[k]), f"{k}: Excel gives {excel!r} ({why}), gputco {ours[k]!r}"
        assert not same(lo_recorded[k], excel), f"{k}: LibreOffice now agrees with Excel"
    assert not bad, bad


def test_formulas_reading_blocks_match_recorded_lo(ours, lo_recorded):
    keys = [k for k in ours if k.startswith("Blocks!H")]
    bad = [
        f"{k}: LibreOffice {lo_recorded[k]!r}, gputco {ours[k]!r}"
        for k in keys
        if not same(lo_recorded[k], ours[k])
    ]
    assert not bad, bad


def _zero_blocks(src: Path, dst: Path) -> None:
    """A copy of ``src`` whose Blocks sheet stores 0 in every cell (stale values)."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename == "xl/worksheets/sheet2.xml":
                data = re.sub(rb"<v>[^<]*</v>", b"<v>0</v>", data)
                data = re.sub(rb'(<c [^>]*?) t="[a-z]+"', rb'\1 t="n"', data)
            zout.writestr(info, data)


def test_libreoffice_file_checks_clean_and_writes_back(lo_recorded, tmp_path):
    """The file LibreOffice saved (all block cells present): nothing differs; with the blocks'
    values zeroed, every cell is flagged, and the values the writer patches read back as
    LibreOffice's (openpyxl, an independent reader)."""
    differ = {
        f"{m.sheet}!{m.cell}"
        for m in recalc_file(LO_FILE, check=True, functions={}, fallback=libreoffice_values).mismatches
    }
    assert differ == set(EXCEL_NOT_LO)
    src = tmp_path / "stale.xlsx"
    _zero_blocks(LO_FILE, src)
    want = {k: EXCEL_NOT_LO[k][0] if k in EXCEL_NOT_LO else v for k, v in lo_recorded.items()}
    flagged = {
        m.cell for m in recalc_file(src, check=True, functions={}, fallback=libreoffice_values).mismatches
    }
    nonzero = {a for s, a in cells() if not same(want[_key(s, a)], 0.0)}
    assert flagged == nonzero
    out = tmp_path / "out.xlsx"
    report = recalc_file(src, out, functions={}, fallback=libreoffice_values)
    assert report.cells >= len(cells()) and not report.problems
    wb = openpyxl.load_workbook(out, data_only=True)
    bad = [
        f"{s}!{a}: expected {want[_key(s, a)]!r}, written {wb[s][a].value!r}"
        for s, a in cells()
        if not same(want[_key(s, a)], wb[s][a].value)
    ]
    assert not bad, bad


@requires_soffice
def test_recording_equals_live_libreoffice(book, tmp_path_factory):
    """The installed LibreOffice still gives every recorded answer (or refreshes them)."""
    lo_file = recalculate(book, tmp_path_factory.mktemp("recalc_arrays_lo"))
    lo = lo_values(lo_file)
    live = {_key(s, a): lo.get((s, a)) for s, a in cells()}
    bad = verify_or_refresh(SET, live)
    assert not bad, (
        f"{len(bad)} answers changed, first: {bad[:5]}; if LibreOffice is right, refresh with: {REGENERATE}"
    )


def test_collinear_x_columns_without_constant_and_in_trend(tmp_path):
    """[MS-OI29500] 2.1.985's rule with const FALSE (numpy's least squares on the x's kept as
    the oracle): x2 = 2*x1 is left out (0, standard error 0), df = n - 2; TREND over the
    collinear x's predicts what numpy's fit (const FALSE) and TREND over the x's kept (const
    TRUE) predict."""
    import numpy as np
    from openpyxl.worksheet.formula import ArrayFormula

    x1, x3 = np.arange(1.0, 7.0), np.array([3.0, 1.0, 4.0, 1.0, 5.0, 9.0])
    y = np.array([2.1, 3.9, 6.2, 7.8, 10.1, 12.2])
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    for i in range(6):
        ws.cell(i + 1, 1, float(y[i]))
        for j, col in enumerate((x1, 2 * x1, x3), start=2):
            ws.cell(i + 1, j, float(col[i]))
        ws.cell(i + 1, 5, float(x3[i]))  # E: x3 again, next to x1 in B (B1:B6 and E1:E6 kept)
    ws["F1"] = ArrayFormula("F1:I2", "=LINEST(A1:A6,B1:D6,FALSE,TRUE)")
    ws["F3"] = ArrayFormula("F3:F4", "=TREND(A1:A6,B1:D6,{7,14,2;8,16,6},FALSE)")
    ws["G3"] = ArrayFormula("G3:G4", "=TREND(A1:A6,B1:D6,{7,14,2;8,16,6})")
    ws["H3"] = ArrayFormula("H3:H4", "=TREND(A1:A6,CHOOSE({1,2},B1:B6,E1:E6),{7,2;8,6})")
    ws["I3"] = ArrayFormula("I3", "=INDEX(LINEST(A1:A6,B1:D6,FALSE,TRUE),4,2)")
    wb.save(tmp_path / "c.xlsx")
    evaluation = evaluate_package(open_package(tmp_path / "c.xlsx"), {})
    assert not evaluation.problems
    got = {
        ("S", a): evaluation.value("S", *split_cell(a))
        for a in [f"{c}{r}" for c in "FGHI" for r in (1, 2, 3, 4)]
    }
    kept = np.column_stack([x1, x3])
    coef = np.linalg.lstsq(kept, y, rcond=None)[0]
    resid = y - kept @ coef
    se = np.sqrt(np.diag(resid @ resid / 4 * np.linalg.inv(kept.T @ kept)))
    row = [got[("S", f"{c}1")] for c in "FGHI"]
    assert np.allclose(row, [coef[1], 0.0, coef[0], 0.0], rtol=1e-12), row
    ses = [got[("S", f"{c}2")] for c in "FGH"]
    assert np.allclose(ses, [se[1], 0.0, se[0]], rtol=1e-9), ses
    assert str(got[("S", "I2")]) == "#N/A" and got[("S", "I3")] == 4.0
    new = np.array([[7.0, 2.0], [8.0, 6.0]])
    for r in (3, 4):
        assert got[("S", f"F{r}")] == pytest.approx(new[r - 3] @ coef, rel=1e-12)
        assert got[("S", f"G{r}")] == pytest.approx(got[("S", f"H{r}")], rel=1e-12)
