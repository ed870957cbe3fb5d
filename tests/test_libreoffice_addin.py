"""The TCO_* functions inside LibreOffice Calc (gputco addin libreoffice) and gputco render.

LibreOffice headless is the spreadsheet application under test: the add-in is installed into a
private profile, and LibreOffice recalculates workbooks whose formula cells carry no cached values,
so every TCO_* cell is computed by LibreOffice calling our Basic wrapper -> Python bridge -> udfs.
"""

from __future__ import annotations

import re
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import openpyxl
import pytest
from lo import formula_cells, requires_soffice, same

from gputco.udfs.registry import UDFS
from gputco.workbook.finance.build import build_workbook
from gputco.workbook.recalc import evaluate_workbook
from gputco.workbook.soffice import lo_addin
from gputco.workbook.soffice.process import LibreOfficeError, convert
from gputco.workbook.soffice.render import png_name, render_workbook, sheet_names

ROOT = Path(__file__).resolve().parents[1]


def _gputco(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "gputco.addin.cli", *args],
        capture_output=True,
        text=True,
        cwd=cwd or ROOT,
        timeout=300,
        check=False,
    )


# -- generation (no LibreOffice needed) ----------------------------------------------------------


def test_basic_module_has_one_generated_function_per_registry_entry():
    xba = lo_addin.basic_module(UDFS)
    names = re.findall(r"^Function (TCO_\w+)\(", xba, flags=re.M)
    assert names == list(UDFS)
    for name, udf in UDFS.items():
        n = len(udf.udf_spec.args)
        head = re.search(rf"^Function {name}\((.*)\)$", xba, flags=re.M).group(1)
        assert head.count("Optional") == n, name
        assert f'{name} = GputcoCall("{name}", aArgs)' in xba
    assert "gputco_bridge.py$call?language=Python&amp;location=user" in xba


def test_bridge_names_the_python_it_needs():
    text = lo_addin.bridge_script(["my_ext"], ["/opt/x"])
    assert "PATHS = ['/opt/x']" in text and "EXTENSIONS = ['my_ext']" in text
    assert f"PYTHON = {list(sys.version_info[:2])}" in text
    compile(text, "gputco_bridge.py", "exec")


def _fake_profile(tmp_path: Path) -> Path:
    """A profile as LibreOffice creates it (Standard library with Module1)."""
    std = tmp_path / "prof" / "user" / "basic" / "Standard"
    std.mkdir(parents=True)
    (std / "script.xlb").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<library:library xmlns:library='
        '"http://openoffice.org/2000/library" library:name="Standard">\n'
        ' <library:element library:name="Module1"/>\n</library:library>\n'
    )
    return tmp_path / "prof"


def test_install_twice_then_uninstall_restores_the_library_index(tmp_path):
    profile = _fake_profile(tmp_path)
    xlb = profile / "user" / "basic" / "Standard" / "script.xlb"
    before = xlb.read_bytes()
    done = lo_addin.install(profile)
    lo_addin.install(profile)
    assert xlb.read_text().count('library:name="gputco"') == 1
    assert done.functions == len(UDFS) and done.module.exists() and done.bridge.exists()
    removed = lo_addin.uninstall(profile)
    assert set(removed) == {done.module, done.bridge}
    assert xlb.read_bytes() == before


# -- inside LibreOffice --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def profile(tmp_path_factory) -> Path:
    """A private LibreOffice profile with the add-in installed through the CLI."""
    where = tmp_path_factory.mktemp("lo-addin") / "profile"
    proc = _gputco("addin", "libreoffice", "--profile", str(where))
    assert proc.returncode == 0, proc.stderr
    assert f"installed {len(UDFS)} TCO_* functions" in proc.stdout
    return where


def _udf_cells(path: Path) -> dict[tuple[str, str], str]:
    return {at: f for at, f in formula_cells(path).items() if "TCO_" in f.upper()}


@requires_soffice
def test_template_udfs_compute_live_in_libreoffice(profile, tmp_path):
    # The workbook as openpyxl writes it: no cached values anywhere, so LibreOffice computes every
    # cell, the TCO_* ones through the add-in.
    raw = tmp_path / "raw.xlsx"
    build_workbook(["H100_HGX", "GB200_NVL72", "B200_HGX"], "neocloud_giant").save(raw)
    udf_cells = _udf_cells(raw)
    assert len(udf_cells) > 50
    ours = evaluate_workbook(raw, functions=UDFS)  # our engine: the registry's Python functions (udfs)
    out = convert(raw, tmp_path / "lo", "xlsx", profile=profile)
    got = openpyxl.load_workbook(out, data_only=True)
    bad = []
    for sheet, cell in udf_cells:
        value = got[sheet][cell].value
        if isinstance(value, str) and value.startswith("#"):
            bad.append(f"{sheet}!{cell}: {value[:120]}")
        elif not same(value, ours[(sheet, cell)]):
            bad.append(f"{sheet}!{cell}: LibreOffice {value!r} vs udfs {ours[(sheet, cell)]!r}")
    assert not bad, "\n".join(bad[:20])
    # Every UDF equals its native twin: the Checks verdict, computed inside LibreOffice.
    sheet, ref = next(iter(got.defined_names["chk_ok"].destinations))
    assert got[sheet][ref.replace("$", "")].value is True


@requires_soffice
def test_a_registered_extension_appears_after_reinstalling(tmp_path):
    # An extension module registers one more TCO_ function; no Basic is written by hand.
    ext = tmp_path / "ext"
    ext.mkdir()
    (ext / "gputco_test_ext.py").write_text(
        "from gputco.udfs.excel import ArgDoc, UdfSpec\n"
        "from gputco.udfs.registry import register\n\n\n"
        "def tco_test_double(x):\n"
        "    return 2.0 * x\n\n\n"
        "register(UdfSpec('TCO_TEST_DOUBLE', 'Twice x.', (ArgDoc('x', 'a number', ''),),\n"
        "                 'twice x', '', (21,), tco_test_double))\n"
    )
    book = tmp_path / "ext.xlsx"
    wb = openpyxl.Workbook()
    wb.active["A1"] = "=TCO_TEST_DOUBLE(21)"
    wb.active["A2"] = '=TCO_GPU_HOUR("H100_HGX")'
    wb.save(book)
    where = tmp_path / "profile"

    assert _gputco("addin", "libreoffice", "--profile", str(where)).returncode == 0
    before = openpyxl.load_workbook(
        convert(book, tmp_path / "before", "xlsx", profile=where), data_only=True
    ).active
    assert before["A1"].value == "#NAME?"  # not in the registry LibreOffice was given
    assert same(before["A2"].value, UDFS["TCO_GPU_HOUR"]("H100_HGX"))

    proc = _gputco(
        "addin", "libreoffice", "--profile", str(where), "--module", "gputco_test_ext", "--path", str(ext)
    )
    assert proc.returncode == 0, proc.stderr
    assert f"installed {len(UDFS) + 1} TCO_* functions" in proc.stdout
    after = openpyxl.load_workbook(
        convert(book, tmp_path / "after", "xlsx", profile=where), data_only=True
    ).active
    assert after["A1"].value == 42

    assert _gputco("addin", "libreoffice", "--profile", str(where), "--uninstall").returncode == 0
    assert not (where / "user" / "basic" / "Standard" / "gputco.xba").exists()


# -- gputco render -------------------------------------------------------------------------------


def _png_info(path: Path) -> tuple[int, int, int]:
    """Width, height and the number of distinct byte values of the decoded image data."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    idat, pos = b"", 8
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        if kind == b"IDAT":
            idat += data[pos + 8 : pos + 8 + length]
        pos += 12 + length
    return width, height, len(set(zlib.decompress(idat)))


@requires_soffice
def test_render_writes_a_readable_png_per_sheet(tmp_path, default_template):
    book = default_template
    proc = _gputco("render", str(book), "--png", str(tmp_path / "png"))
    assert proc.returncode == 0, proc.stderr
    names = [n for n, _, visible in sheet_names(book) if visible]
    pngs = [Path(line) for line in proc.stdout.split()]
    assert [p.name for p in pngs] == [png_name("gpu-tco", n) for n in names]
    for png in pngs:
        width, height, distinct = _png_info(png)
        # A3 at 100 dpi, landscape or portrait: 1654 x 1170 pixels.
        assert sorted((width, height)) == [1170, 1654], png.name
        assert distinct > 20, f"{png.name} looks blank"
    # The sheet with charts carries more picture than the two-cell xlwings.conf sheet.
    sizes = {p.name: p.stat().st_size for p in pngs}
    assert sizes["gpu-tco-Compare.png"] > 5 * sizes["gpu-tco-xlwings.conf.png"]
    # It refuses to overwrite the pictures without --force.
    again = _gputco("render", str(book), "--png", str(tmp_path / "png"), "--sheet", "Compare")
    assert again.returncode == 2 and "refusing to overwrite" in again.stderr


def test_render_names_unknown_sheets(tmp_path, default_template):
    book = default_template
    with pytest.raises(LibreOfficeError, match=r"no sheet 'Nope'.*sheets: Cover, Inputs"):
        render_workbook(book, tmp_path / "png", ["Nope"])
