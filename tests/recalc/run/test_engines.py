"""recalc_file(engine=...) without LibreOffice: the screen, the choice of cells, the fallbacks.

Nothing here runs LibreOffice, so nothing is marked as needing it: the screen must stop a workbook
that reaches outside before soffice could start (``subprocess.Popen`` fails the test if anything
is started, and soffice is made to look installed so the screen, not its absence, is what stops
it), ``engine="gputco"`` must give today's results whatever is installed, and auto without
LibreOffice must fall back to the engine and say so. tests/recalc/run/test_engines_lo.py runs the
real LibreOffice.
"""

from __future__ import annotations

import functools
import subprocess
import zipfile

import openpyxl
import pytest
from openpyxl.packaging.relationship import Relationship
from openpyxl.workbook.external_link.external import ExternalBook, ExternalLink

from gputco.udfs import UDFS
from gputco.workbook.recalc import OutsideReachError, UnsupportedFunctionError
from gputco.workbook.recalc import recalc_file as _recalc_file
from gputco.workbook.recalc.formula.screen import called, screen_parts
from gputco.workbook.recalc.read.package import open_package
from gputco.workbook.recalc.run.engine import evaluate_package
from gputco.workbook.recalc.run.reach import choose
from gputco.workbook.soffice import process
from gputco.workbook.soffice.fallback import libreoffice_values

#: gputco's TCO_ functions handed in, as the command line and gputco's workbooks do
recalc_file = functools.partial(_recalc_file, functions=UDFS)


def mixed_book(path):
    """A supported formula, EUROCONVERT (LibreOffice has it, the engine does not: Excel's Euro
    Currency Tools add-in), cells depending on it (one through a TCO_ function, one on another
    sheet) and TCO_ and NOW cells."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Model"
    ws["A1"], ws["A2"] = 0.1305, 0.5
    ws["B1"] = "=A1*3"
    ws["C1"] = '=EUROCONVERT(A2,"DEM","EUR",TRUE)'
    ws["D1"] = "=C1*2"
    ws["E1"] = "=TCO_CAPITAL_PER_GPU_HOUR(31250,A1,5)"
    ws["F1"] = "=TCO_CAPITAL_PER_GPU_HOUR(31250,C1/4,5)"
    for r in range(2, 6):
        ws[f"B{r}"] = f"=A$1*{r}"
    other = wb.create_sheet("Summary")
    other["A1"] = "Twice EUROCONVERT"
    other["B1"] = "=Model!D1+1"
    other["B2"] = "=Model!B1+1"
    wb.save(path)
    return path


@pytest.fixture
def no_process(monkeypatch):
    """soffice looks installed, and starting any process fails the test."""
    started = []

    def refuse(*args, **kwargs):
        started.append(args)
        raise AssertionError(f"a process was started: {args[:1]}")

    monkeypatch.setattr(process, "soffice", lambda: "/usr/bin/soffice")
    monkeypatch.setattr(subprocess, "Popen", refuse)
    return started


def test_gputco_engine_keeps_todays_unsupported_cells(tmp_path, no_process):
    src = mixed_book(tmp_path / "mixed.xlsx")
    report = recalc_file(src, check=True, unsupported="stored", engine="gputco")
    assert report.unsupported == {"EUROCONVERT": ["Model!C1"]}
    assert report.by_engine == {"gputco": 10, "libreoffice": 0}
    assert report.libreoffice_cells == [] and report.notes == [] and not no_process
    with pytest.raises(UnsupportedFunctionError, match=r"EUROCONVERT \(in Model!C1\)"):
        recalc_file(src, check=True, engine="gputco")


def test_gputco_engine_writes_the_same_file_as_before(tmp_path, no_process):
    """engine="gputco" and auto without LibreOffice write byte-identical files."""
    src = mixed_book(tmp_path / "mixed.xlsx")
    recalc_file(src, tmp_path / "g.xlsx", unsupported="stored", engine="gputco")
    process.soffice = lambda: None  # monkeypatched by the fixture, restored after the test
    report = recalc_file(
        src, tmp_path / "a.xlsx", unsupported="stored", engine="auto", fallback=libreoffice_values
    )
    assert (tmp_path / "g.xlsx").read_bytes() == (tmp_path / "a.xlsx").read_bytes()
    assert report.unsupported == {"EUROCONVERT": ["Model!C1"]}
    assert report.notes == [
        "LibreOffice is not installed (apt-get install "
        "libreoffice-calc-nogui), so it did not compute 4 cells (the engine "
        "cannot compute them, or they depend on such cells)"
    ]
    assert "gputco computed 10, LibreOffice 0" in report.summary()


def test_auto_picks_the_unsupported_cells_and_their_dependents(tmp_path):
    src = mixed_book(tmp_path / "mixed.xlsx")
    evaluation = evaluate_package(open_package(src), UDFS, unsupported="stored")
    picked = sorted(choose(evaluation, "auto"))
    assert picked == [("MODEL", 1, 3), ("MODEL", 1, 4), ("MODEL", 1, 6), ("SUMMARY", 1, 2)]
    assert len(choose(evaluation, "libreoffice")) == 11


def test_text_formats_the_engine_does_not_model_are_not_taken_from_libreoffice(tmp_path):
    """A TEXT format whose Excel result no Microsoft page or Excel-saved file settles (a whole
    number in a fraction format with a written denominator) is kept as stored, and not handed to
    LibreOffice either: LibreOffice's TEXT differs from Excel's for fraction formats (POI's
    Excel-saved format files in tests/data/excel_corpus); an unsupported function beside it
    still goes to LibreOffice."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws["A1"] = '=TEXT(2,"# ?/8")'
    ws["A2"] = '=A1&"!"'
    ws["B1"] = '=EUROCONVERT(1,"DEM","EUR",TRUE)'
    wb.save(tmp_path / "t.xlsx")
    evaluation = evaluate_package(open_package(tmp_path / "t.xlsx"), unsupported="stored")
    assert evaluation.unsupported["TEXT (a fraction of 0 with a written denominator)"] == ["Sheet!A1"]
    assert sorted(choose(evaluation, "auto")) == [("SHEET", 1, 2)]


def test_volatile_cells_and_their_dependents_are_never_taken_from_libreoffice(tmp_path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws["A1"] = '=EUROCONVERT(1,"DEM","EUR",TRUE)'
    ws["A2"] = "=NOW()"
    ws["A3"] = "=A1+A2"  # depends on both: LibreOffice's clock would leak in
    ws["A4"] = "=A1+1"
    for r in range(1, 6):  # a group of which only row 3 reads A3
        ws[f"B{r}"] = f"=A{r}*2"
    wb.save(tmp_path / "v.xlsx")
    evaluation = evaluate_package(open_package(tmp_path / "v.xlsx"), unsupported="stored")
    assert sorted(choose(evaluation, "auto")) == [
        ("SHEET", 1, 1),
        ("SHEET", 1, 2),
        ("SHEET", 4, 1),
        ("SHEET", 4, 2),
    ]


def webservice_book(path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws["A1"] = '=_xlfn.WEBSERVICE("http://example.com/rate")'
    ws["A2"] = '=EUROCONVERT(2,"DEM","EUR",TRUE)'  # a cell LibreOffice would otherwise compute
    wb.save(path)
    return path


def external_link_book(path):
    wb = openpyxl.Workbook()
    wb.active["A1"] = "=[1]Sheet1!A1*2"
    link = ExternalLink(externalBook=ExternalBook(id="rId1"))
    link.file_link = Relationship(
        Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/externalLinkPath",
        Target="file:///srv/prices.xlsx",
        TargetMode="External",
        Id="rId1",
    )
    wb._external_links.append(link)
    wb.save(path)
    return path


def test_the_screen_refuses_webservice_before_libreoffice_starts(tmp_path, no_process):
    src = webservice_book(tmp_path / "web.xlsx")
    with pytest.raises(
        OutsideReachError,
        match=r"not handed to LibreOffice: WEBSERVICE "
        r"\(Sheet!A1\)",
    ):
        recalc_file(src, tmp_path / "out.xlsx", engine="libreoffice", fallback=libreoffice_values)
    report = recalc_file(src, tmp_path / "out.xlsx", unsupported="stored", fallback=libreoffice_values)
    assert report.screened == ["WEBSERVICE (Sheet!A1)"]
    assert report.notes == [
        "LibreOffice not used for 1 cells (the engine cannot compute them, "
        "or they depend on such cells): the workbook reaches outside "
        "(WEBSERVICE (Sheet!A1))"
    ]
    assert report.unsupported == {"EUROCONVERT": ["Sheet!A2"], "WEBSERVICE": ["Sheet!A1"]}
    assert report.by_engine == {"gputco": 0, "libreoffice": 0}
    assert not no_process, "soffice never started"


def test_the_screen_refuses_an_external_link(tmp_path, no_process):
    src = external_link_book(tmp_path / "ext.xlsx")
    with pytest.raises(OutsideReachError) as err:
        recalc_file(src, check=True, engine="libreoffice", fallback=libreoffice_values)
    assert str(err.value) == (
        "not handed to LibreOffice: reference to another workbook (Sheet!A1); external link "
        "(xl/externalLinks/externalLink1.xml); link (externalLinkPath) to "
        "'file:///srv/prices.xlsx' (xl/externalLinks/_rels/externalLink1.xml.rels); "
        "LibreOffice would run them (fetch URLs, update links, start programs)"
    )
    report = recalc_file(src, check=True, unsupported="stored", fallback=libreoffice_values)
    assert report.unsupported == {"[external workbook reference]": ["Sheet!A1"]}
    assert report.screened[0] == "reference to another workbook (Sheet!A1)"
    # nothing for LibreOffice to do, yet what reaches outside is said (issue 43: named in the note)
    assert len(report.notes) == 1, report.notes
    assert report.notes[0].startswith(
        "the workbook reaches outside (reference to another workbook (Sheet!A1)"
    )
    assert not no_process


def test_cli_names_what_the_screen_found(tmp_path, no_process, capsys):
    from gputco.addin.cli import main

    src = webservice_book(tmp_path / "web.xlsx")
    assert main(["recalc", str(src), "--check", "--engine", "libreoffice"]) == 2
    assert "not handed to LibreOffice: WEBSERVICE (Sheet!A1)" in capsys.readouterr().err
    assert main(["recalc", str(src), "--check", "--keep-unsupported"]) == 0
    captured = capsys.readouterr()
    assert "gputco computed 0, LibreOffice 0" in captured.out
    assert "note: LibreOffice not used for 1 cells" in captured.err
    assert not no_process


def test_the_screen_finds_parts_and_formulas_outside_cells(tmp_path):
    path = tmp_path / "parts.xlsx"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("xl/vbaProject.bin", b"\0")
        z.writestr("xl/connections.xml", b"<connections/>")
        z.writestr(
            "xl/externalLinks/externalLink2.xml",
            b'<externalLink><ddeLink ddeService="cmd" ddeTopic="/c calc"/></externalLink>',
        )
        z.writestr("xl/charts/chart1.xml", b'<c:f>RTD("srv",,"x")</c:f>')
        z.writestr(
            "xl/styles.xml",
            b'<?xml version="1.0"?><!DOCTYPE s [<!ENTITY e SYSTEM '
            b'"file:///etc/passwd">]><styleSheet>&e;</styleSheet>',
        )
        z.writestr(
            "xl/_rels/workbook.xml.rels",
            b'<Relationships xmlns="http://schemas.'
            b'openxmlformats.org/package/2006/relationships"><Relationship Id="r1" '
            b'Type="http://x/hyperlink" Target="http://a" TargetMode="External"/>'
            b'<Relationship Id="r2" Type="http://x/image" Target="http://b/i.png" '
            b'TargetMode="External"/></Relationships>',
        )
    with zipfile.ZipFile(path) as z:
        found = sorted(map(str, screen_parts(z)))
    assert found == [
        "RTD (xl/charts/chart1.xml)",
        "data connection (xl/connections.xml)",
        "document type declaration (DTD: entities, external files) (xl/styles.xml)",
        "external link (DDE) (xl/externalLinks/externalLink2.xml)",
        "link (image) to 'http://b/i.png' (xl/_rels/workbook.xml.rels)",
        "macros (VBA project) (xl/vbaProject.bin)",
    ], "hyperlinks are harmless"


def test_called_ignores_text_and_longer_names():
    assert called('IF(A1,"=WEBSERVICE(x)",RTD("a",,"b"))') == ["RTD"]
    assert called('HYPERLINK("http://x")+RECALL(1)+CALLS(2)') == []
    assert called("_xlfn.webservice(A1)&DDE (1)") == ["DDE", "WEBSERVICE"]


def test_bad_engine_is_named(tmp_path):
    src = mixed_book(tmp_path / "mixed.xlsx")
    with pytest.raises(ValueError, match="engine must be one of auto, gputco, libreoffice, not 'excel'"):
        recalc_file(src, check=True, engine="excel", fallback=libreoffice_values)


def test_formulas_filling_several_cells_are_not_taken_from_libreoffice(tmp_path):
    """Their other cells hold plain values the writer does not replace: the master's value from
    LibreOffice would disagree with them, so they stay named (with their dependents)."""
    from openpyxl.worksheet.formula import ArrayFormula

    wb = openpyxl.Workbook()
    ws = wb.active
    ws["A1"], ws["A2"], ws["A3"] = 1, 2, 3
    ws["B1"] = ArrayFormula("B1:B3", '=EUROCONVERT(4/A1:A3,"DEM","EUR",TRUE)')
    ws["C1"] = "=B1+1"
    ws["D1"] = '=EUROCONVERT(1,"DEM","EUR",TRUE)'
    wb.save(tmp_path / "array.xlsx")
    evaluation = evaluate_package(open_package(tmp_path / "array.xlsx"), unsupported="stored")
    assert choose(evaluation, "auto") == {("SHEET", 1, 4)}


def test_auto_falls_back_when_libreoffice_fails(tmp_path, monkeypatch):
    from gputco.workbook.soffice import session

    def broken(*args, **kwargs):
        raise process.LibreOfficeError("soffice failed to convert mixed.xlsx to xlsx (exit 81)")

    monkeypatch.setattr(process, "soffice", lambda: "/usr/bin/soffice")
    monkeypatch.setattr(session, "convert", broken)
    src = mixed_book(tmp_path / "mixed.xlsx")
    report = recalc_file(src, check=True, unsupported="stored", fallback=libreoffice_values)
    assert report.unsupported == {"EUROCONVERT": ["Model!C1"]}
    assert report.notes == [
        "LibreOffice failed, so it did not compute 4 cells (the engine cannot "
        "compute them, or they depend on such cells): soffice failed to "
        "convert mixed.xlsx to xlsx (exit 81)"
    ]
    with pytest.raises(process.LibreOfficeError, match="exit 81"):
        recalc_file(src, check=True, engine="libreoffice", fallback=libreoffice_values)


def test_cli_engine_gputco_names_the_cells_and_starts_nothing(tmp_path, no_process, capsys):
    from gputco.addin.cli import main

    src = mixed_book(tmp_path / "mixed.xlsx")
    assert main(["recalc", str(src), "--check", "--engine", "gputco"]) == 2
    assert "unsupported functions or features: EUROCONVERT (in Model!C1)" in capsys.readouterr().err
    out = tmp_path / "out.xlsx"
    assert main(["recalc", str(src), "-o", str(out), "--engine", "gputco", "--keep-unsupported"]) == 0
    line = capsys.readouterr().out.splitlines()[0]
    assert "gputco computed 10;" in line and "LibreOffice" not in line
    assert "kept stored values for 1 cells with unsupported functions (EUROCONVERT)" in line
    assert not no_process


def test_a_part_the_screen_cannot_read_keeps_the_workbook_from_libreoffice(tmp_path):
    """The engine never reads a chart's relationships; the screen does, and a damaged one is a
    finding (the engine alone still recalculates the workbook as before)."""
    src = mixed_book(tmp_path / "mixed.xlsx")
    damaged = tmp_path / "damaged.xlsx"
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(damaged, "w") as zout:
        for info in zin.infolist():
            zout.writestr(info, zin.read(info.filename))
        zout.writestr("xl/charts/_rels/chart1.xml.rels", b"<Relationships><oops")
    report = recalc_file(damaged, check=True, unsupported="stored", engine="gputco")
    assert report.unsupported == {"EUROCONVERT": ["Model!C1"]}
    assert report.screened == [
        "part that cannot be read (xl/charts/_rels/chart1.xml.rels is not well-formed XML: "
        "unclosed token: line 1, column 15) (xl/charts/_rels/chart1.xml.rels)"
    ]


def test_render_and_convert_refuse_a_workbook_that_reaches_outside(tmp_path, no_process, capsys):
    """`gputco render` and `gputco open --convert-to` hand the whole workbook to headless
    LibreOffice, which would fetch the URL or update the link unasked: the same screen refuses
    them first, naming the cell, and no soffice starts."""
    from gputco.addin.cli import main

    web = webservice_book(tmp_path / "web.xlsx")
    assert main(["render", str(web), "--png", str(tmp_path / "png")]) == 2
    assert "not handed to LibreOffice: WEBSERVICE (Sheet!A1)" in capsys.readouterr().err
    ext = external_link_book(tmp_path / "ext.xlsx")
    assert main(["open", str(ext), "--convert-to", "pdf", "--outdir", str(tmp_path)]) == 2
    assert "reference to another workbook (Sheet!A1)" in capsys.readouterr().err
    assert not (tmp_path / "png").exists() and not no_process
