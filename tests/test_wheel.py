"""The wheel: one top-level import package, gputco, that computes with numpy alone.

``pip wheel --no-deps .`` builds what ``pip install gputco`` would install (PEP 427 wheel: its
files are laid out as they land in site-packages); a fresh ``python -m venv`` with only numpy and
that wheel imports ``gputco.udfs`` and reproduces the H100 HGX TCO of the README (1.4199 USD per
GPU-hour), and none of the old top-level names (udfs, workbook, addin) is installed.
"""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(ROOT)],
        check=True,
        timeout=600,
    )
    (path,) = out.glob("gputco-*.whl")
    return path


def test_the_only_top_level_package_is_gputco(wheel):
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        entry_points = next(z.read(n).decode() for n in names if n.endswith(".dist-info/entry_points.txt"))
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"gputco"}
    for module in ("gputco/udfs/__init__.py", "gputco/workbook/recalc/__init__.py", "gputco/addin/cli.py"):
        assert module in names
    assert "gputco/udfs/data/systems.toml" in names
    assert "gputco/udfs/py.typed" in names  # PEP 561: users' type checkers read udfs' annotations
    assert "gputco/workbook/recalc/functions/excel_functions.tsv" in names  # the function table
    # the console script names a module the wheel carries
    assert "gputco = gputco.addin.cli:main" in entry_points
    assert wheel.name.endswith("-py3-none-any.whl")


def test_a_venv_with_only_numpy_and_the_wheel_computes_the_tco(wheel, tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps",
         f"numpy=={np.__version__}", str(wheel)],
        check=True,
        timeout=600,
    )  # fmt: skip
    code = (
        "import importlib.metadata as m, importlib.util as u, sys\n"
        "from gputco import udfs\n"
        "print(f'{udfs.tco_gpu_hour(\"H100_HGX\"):.4f}')\n"
        "print(sorted(d.metadata['Name'].lower() for d in m.distributions()))\n"
        "print([n for n in ('udfs', 'workbook', 'addin') if u.find_spec(n)])\n"
        "print(sorted({n.split('.')[0] for n in sys.modules} & {'pandas', 'pyarrow', 'openpyxl'}))\n"
    )
    done = subprocess.run(
        [str(python), "-I", "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["1.4199", "['gputco', 'numpy']", "[]", "[]"]
    done = subprocess.run([str(venv / "bin" / "gputco"), "--version"], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.startswith("gputco "), done.stderr


def test_without_xlwings_the_vba_command_names_the_extra(tmp_path):
    # a Python where xlwings cannot be imported (None in sys.modules blocks the import)
    code = "import sys; sys.modules['xlwings'] = None; from gputco.addin.cli import main; sys.exit(main())"
    done = subprocess.run(
        [sys.executable, "-c", code, "addin", "vba"], cwd=tmp_path, capture_output=True, text=True
    )
    assert (done.returncode, done.stderr) == (
        2,
        "gputco addin: error: writing the xlwings VBA module needs xlwings, which is not installed: "
        "pip install 'gputco[excel]'\n",
    )
