"""recalc_file(engine="auto"|"libreoffice") with the real LibreOffice.

The workbook of tests/recalc/run/test_engines.py mixes formulas the engine computes, EUROCONVERT
(which LibreOffice has and the engine lacks), cells depending on it (one through a TCO_ function,
so the add-in must work inside LibreOffice, one on another sheet) and a TCO_ cell of its own. Auto
must compute every cell; the cells LibreOffice computed must hold exactly the values LibreOffice
gives on its own (a separate full recalculation with the add-in, ``session.recalculate``), and
EUROCONVERT(x,"DEM","EUR",TRUE) must equal x / 1.95583, the fixed rate of Council Regulation (EC)
No 2866/98; every other byte of the file stays as it was.
"""

from __future__ import annotations

import functools

import openpyxl
import pytest
from hostile import cell, package, sheet
from lo import requires_soffice
from test_engines import mixed_book
from xlsx_parts import _compare_sheet, _members

from gputco.addin.cli import main
from gputco.udfs import UDFS
from gputco.workbook.recalc import DEFAULT_LIMITS
from gputco.workbook.recalc import recalc_file as _recalc_file
from gputco.workbook.soffice import session
from gputco.workbook.soffice.fallback import libreoffice_values

#: gputco's TCO_ functions handed in, as the command line and gputco's workbooks do
recalc_file = functools.partial(_recalc_file, functions=UDFS)


LO_CELLS = ["Model!C1", "Model!D1", "Model!F1", "Summary!B1"]


@requires_soffice
def test_auto_computes_every_cell_and_patches_only_values(tmp_path):
    src = mixed_book(tmp_path / "mixed.xlsx")
    dst = tmp_path / "auto.xlsx"
    report = recalc_file(
        src, dst, fallback=libreoffice_values
    )  # engine="auto", unsupported="raise": nothing left over
    assert report.unsupported == {} and report.notes == [] and report.screened == []
    assert report.by_engine == {"gputco": 7, "libreoffice": 4}
    assert report.libreoffice_cells == LO_CELLS
    assert "gputco computed 7, LibreOffice 4 (Model!C1, Model!D1, Model!F1, Summary!B1)" in report.summary()

    ours = openpyxl.load_workbook(dst, data_only=True)
    eur = 0.5 / 1.95583  # the fixed rate, Council Regulation (EC) No 2866/98: 1 EUR = 1.95583 DEM
    assert ours["Model"]["C1"].value == pytest.approx(eur, rel=1e-14)
    assert ours["Model"]["D1"].value == pytest.approx(2 * eur, rel=1e-14)
    assert ours["Summary"]["B1"].value == pytest.approx(2 * eur + 1, rel=1e-14)
    capital = UDFS["TCO_CAPITAL_PER_GPU_HOUR"]
    assert ours["Model"]["F1"].value == pytest.approx(capital(31250, eur / 4, 5), rel=1e-12)
    assert ours["Model"]["E1"].value == pytest.approx(capital(31250, 0.1305, 5), rel=1e-15)
    assert ours["Summary"]["B2"].value == pytest.approx(0.1305 * 3 + 1, rel=1e-15)

    lo = openpyxl.load_workbook(session.recalculate(src, tmp_path / "lo.xlsx"), data_only=True)
    for name in LO_CELLS:
        sheet, cell = name.split("!")
        assert ours[sheet][cell].value == lo[sheet][cell].value, f"{name} is LibreOffice's value"

    before, after = _members(src), _members(dst)
    assert list(before) == list(after)
    sheets = [n for n in before if n.startswith("xl/worksheets/sheet")]
    for name in before:
        if name not in sheets:
            assert before[name] == after[name], f"{name} changed"
    assert sum(_compare_sheet(before[n], after[n]) for n in sheets) == 11


@requires_soffice
def test_libreoffice_engine_computes_every_cell(tmp_path):
    src = mixed_book(tmp_path / "mixed.xlsx")
    report = recalc_file(src, tmp_path / "lo-engine.xlsx", engine="libreoffice", fallback=libreoffice_values)
    assert report.by_engine == {"gputco": 0, "libreoffice": 11} and report.unsupported == {}
    # gputco's own values agree with LibreOffice's to within --check's 1e-9
    check = recalc_file(tmp_path / "lo-engine.xlsx", check=True, unsupported="stored", engine="gputco")
    assert check.mismatches == [] and check.unsupported == {"EUROCONVERT": ["Model!C1"]}


@requires_soffice
def test_cli_check_says_which_engine_computed_which_cells(tmp_path, capsys):
    src = mixed_book(tmp_path / "mixed.xlsx")  # openpyxl stores no values: every cell differs
    assert main(["recalc", str(src), "--check"]) == 1
    out = capsys.readouterr().out
    assert "gputco computed 7, LibreOffice 4 (Model!C1, Model!D1, Model!F1, Summary!B1)" in out
    rows = {line.split()[0]: line.split() for line in out.splitlines()[1:]}
    assert rows["cell"][:4] == ["cell", "stored", "computed", "engine"]
    assert rows["Model!C1"][3] == "libreoffice" and rows["Model!B1"][3] == "gputco"
    out_file = tmp_path / "out.xlsx"
    assert main(["recalc", str(src), "-o", str(out_file)]) == 0
    capsys.readouterr()
    assert main(["recalc", str(out_file), "--check"]) == 0, "LibreOffice's cells checked too"
    assert "LibreOffice 4" in capsys.readouterr().out


def _lambda_book(tmp_path):
    """REGEXEXTRACT (Excel 2024; stored "ab"), which neither the engine nor LibreOffice 7.4 knows
    (#NAME? there), FORECAST.ETS (LibreOffice has it, the engine not) and a cell depending on the
    first. (The book held a LAMBDA until the engine learnt LAMBDA, then TEXTBEFORE and BITAND
    until it learnt those.)"""
    return package(
        tmp_path / "lambda.xlsx",
        sheet(
            cell("A1", "ab", f='_xlfn.REGEXEXTRACT("ab-c","[a-z]+")', t="str"),
            cell("A2", 1, f="_xlfn.FORECAST.ETS(4,{1,2,3},{1,2,3})>0", t="b"),
            cell("A3", "abx", f='A1&"x"', t="str"),
        ),
    )


#: what LibreOffice 7.4.7.2 gave for the cells of _lambda_book (libreoffice_values, recorded
#: 2026-12-01; the same answers for REGEXEXTRACT and FORECAST.ETS on 2026-12-04)
LAMBDA_RECORDED = {("S", 1, 1): "#NAME?", ("S", 2, 1): True, ("S", 3, 1): "#NAME?"}


def _check_lambda_kept(report, dst):
    """LibreOffice's error never replaces a value the file holds that is not one."""
    assert report.libreoffice_cells == ["S!A2"]
    assert report.unsupported == {"REGEXEXTRACT": ["S!A1"]}
    assert report.by_engine == {"gputco": 1, "libreoffice": 1}
    assert any("could not compute 1 cells either" in n and "S!A1" in n for n in report.notes)
    ws = openpyxl.load_workbook(dst, data_only=True)["S"]
    assert [ws["A1"].value, ws["A2"].value, ws["A3"].value] == ["ab", True, "abx"]


@requires_soffice
def test_a_libreoffice_error_never_replaces_a_stored_value_live(tmp_path):
    from gputco.workbook.recalc.run.hybrid import takes

    src = _lambda_book(tmp_path)
    live = libreoffice_values(src, set(LAMBDA_RECORDED), DEFAULT_LIMITS, 120)
    assert {k: str(v) if not isinstance(v, bool) else v for k, v in live.items()} == LAMBDA_RECORDED
    assert not takes(live[("S", 1, 1)], 6.0)
    dst = tmp_path / "out.xlsx"
    _check_lambda_kept(recalc_file(src, dst, unsupported="stored", fallback=libreoffice_values), dst)


def test_a_libreoffice_error_never_replaces_a_stored_value_recorded(tmp_path):
    src = _lambda_book(tmp_path)
    dst = tmp_path / "out.xlsx"
    report = recalc_file(
        src, dst, unsupported="stored", fallback=lambda path, cells, limits, timeout: dict(LAMBDA_RECORDED)
    )
    _check_lambda_kept(report, dst)


@requires_soffice
def test_render_keeps_the_stored_value_where_libreoffice_errs(tmp_path):
    """The same rule in `gputco render`: the picture shows the file's "ab" and "abx", not LibreOffice's
    #NAME?, and says which cells it kept; the print copy has their formulas taken out."""
    import zipfile

    from gputco.workbook.soffice import render

    src = _lambda_book(tmp_path)
    kept = render.libreoffice_errors(src, tmp_path / "values")
    assert kept == {"S": ["A1", "A3"]}  # A3 = A1&"x" is LibreOffice's #NAME? too
    copy = tmp_path / "copy.xlsx"
    render._copy_for_print(src, copy, {"S"}, render.sheet_names(src), kept=kept)
    xml = zipfile.ZipFile(copy).read("xl/worksheets/sheet1.xml").decode()
    assert '<c r="A1" t="str"><v>ab</v></c>' in xml and '<c r="A3" t="str"><v>abx</v></c>' in xml
    assert (
        "<f>_xlfn.FORECAST.ETS(4,{1,2,3},{1,2,3})&gt;0</f>" in xml
    )  # the cell LibreOffice computes keeps its formula
    stored: dict = {}
    (png,) = render.render_workbook(src, tmp_path / "png", stored=stored)
    assert stored == kept and png.stat().st_size > 0


def test_render_applies_the_same_rule_recorded(tmp_path, monkeypatch):
    """Where LibreOffice is absent: render's choice of cells goes through the one rule
    (hybrid.takes, which auto uses), on LibreOffice 7.4.7.2's recorded values (LAMBDA_RECORDED)."""
    from gputco.workbook.recalc.run import hybrid
    from gputco.workbook.soffice import render

    assert render.takes is hybrid.takes  # one function, not a copy
    src = _lambda_book(tmp_path)

    def recorded(path, out_dir, fmt, **_):
        out = package(
            tmp_path / "lo-out.xlsx",
            sheet(
                cell("A1", "#NAME?", f='_xlfn.REGEXEXTRACT("ab-c","[a-z]+")', t="e"),
                cell("A2", 1, f="_xlfn.FORECAST.ETS(4,{1,2,3},{1,2,3})>0", t="b"),
                cell("A3", "#NAME?", f='A1&"x"', t="e"),
            ),
        )
        return out

    monkeypatch.setattr(render.session, "convert", recorded)
    assert render.libreoffice_errors(src, tmp_path / "values") == {"S": ["A1", "A3"]}
    seen = []
    monkeypatch.setattr(
        render, "takes", lambda computed, stored: seen.append((str(computed), stored)) or True
    )
    assert render.libreoffice_errors(src, tmp_path / "values2") == {}
    assert sorted(seen) == [("#NAME?", "ab"), ("#NAME?", "abx"), ("True", True)]
