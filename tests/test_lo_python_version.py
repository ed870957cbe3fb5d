"""`gputco open --convert-to` (and every headless LibreOffice run with the add-in) fails loudly when
LibreOffice embeds another Python minor version than the one gputco is installed in.

Before, the conversion exited 0 and every TCO_ cell of the written file held the bridge's message
"gputco was installed for Python 3.X but LibreOffice runs 3.Y". The version is read
from LibreOffice's program folder: the libpython3.X that pyuno links (Linux), python-core-3.X.Y
(Windows), LibreOfficePython.framework/Versions/3.X (macOS).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import openpyxl
import pytest
from lo import requires_soffice

from gputco.workbook.soffice import process

OTHER = (3, 9) if sys.version_info[:2] != (3, 9) else (3, 10)


def fake_program(tmp_path: Path, layout: str, minor: int) -> Path:
    """A LibreOffice program folder of one platform's layout whose soffice does nothing."""
    if layout == "macos":
        program = tmp_path / "LibreOffice.app" / "Contents" / "MacOS"
        (program.parent / "Frameworks" / "LibreOfficePython.framework" / "Versions" / f"3.{minor}").mkdir(
            parents=True
        )
        program.mkdir()
    else:
        program = tmp_path / "program"
        program.mkdir(parents=True)
    if layout == "linux":
        (program / "libpyuno.so").write_bytes(b"\x7fELF...libpython3.%d.so.1.0\x00..." % minor)
    if layout == "windows":
        (program / f"python-core-3.{minor}.7").mkdir()
    exe = program / "soffice"
    exe.write_text("#!/bin/sh\nexit 0\n")
    exe.chmod(0o755)
    return exe


@pytest.mark.parametrize("layout", ["linux", "windows", "macos"])
def test_the_version_is_read_from_each_layout(tmp_path, layout):
    assert process.libreoffice_python(fake_program(tmp_path, layout, 12)) == (3, 12)


def test_an_unknown_layout_says_nothing(tmp_path):
    (tmp_path / "soffice").write_text("")
    assert process.libreoffice_python(tmp_path / "soffice") is None
    process.check_python(tmp_path / "soffice")  # no version known: no refusal


def test_convert_to_from_another_python_fails_with_exit_2(tmp_path):
    exe = fake_program(tmp_path, "linux", OTHER[1])
    book = tmp_path / "book.xlsx"
    wb = openpyxl.Workbook()
    wb.active["A1"] = '=TCO_GPU_HOUR("H100_HGX")'
    wb.save(book)
    env = dict(os.environ, PATH=f"{exe.parent}{os.pathsep}{os.environ['PATH']}")
    done = subprocess.run(
        [sys.executable, "-m", "gputco.addin.cli", "open", str(book), "--convert-to", "csv", "--outdir",
         str(tmp_path / "out"), "--profile", str(tmp_path / "profile")],
        capture_output=True, text=True, env=env, timeout=120, cwd=tmp_path,
    )  # fmt: skip
    ours = "{}.{}".format(*sys.version_info[:2])
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip() == (
        f"gputco open: error: LibreOffice runs Python 3.{OTHER[1]} but gputco is installed for Python "
        f"{ours}: every TCO_ cell would hold an error; install gputco with Python 3.{OTHER[1]} "
        f"(python3.{OTHER[1]} -m pip install gputco)"
    )
    assert not (tmp_path / "out").exists()


@requires_soffice
def test_the_installed_libreoffice_runs_this_python():
    # the premise of every live LibreOffice test here: the add-in's Python is this one
    assert process.libreoffice_python(process.soffice()) in (tuple(sys.version_info[:2]), None)
