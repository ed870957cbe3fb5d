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


def _version(name: str) -> str:
    import importlib.metadata

    return importlib.metadata.version(name)


def test_a_core_install_runs_a_csv_batch_and_names_the_extra_for_parquet(wheel, tmp_path):
    """The core install (numpy, openpyxl, defusedxml; no pyarrow, no pandas) runs
    `gputco batch` of CSV to CSV and to .xlsx, and Parquet says, in one line, which file needs
    pyarrow and what to install."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    core = [f"{n}=={_version(n)}" for n in ("numpy", "openpyxl", "et_xmlfile", "defusedxml")]
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "-q",
            "--no-deps",
            *core,
            str(wheel),
        ],
        check=True,
        timeout=600,
    )
    src = tmp_path / "in.csv"
    src.write_text("id,system,mfu,rent_usd_per_gpu_hour\na,H100_HGX,0.54,2\nb,GB200_NVL72,0.4,\n")
    gputco = str(venv / "bin" / "gputco")
    for out in ("out.csv", "out.xlsx"):
        done = subprocess.run(
            [gputco, "batch", str(src), "-o", str(tmp_path / out)], capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
    import csv

    with open(tmp_path / "out.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    from gputco.udfs import scenario

    expected = scenario.evaluate(
        {"system": ["H100_HGX", "GB200_NVL72"], "mfu": [0.54, 0.4], "rent_usd_per_gpu_hour": [2.0, np.nan]}
    )
    assert [float(r["tco_usd_per_gpu_hour"]) for r in rows] == expected["tco_usd_per_gpu_hour"].tolist()
    assert (
        float(rows[0]["project_npv_usd_per_gpu"]) == expected["project_npv_usd_per_gpu"][0]
        and rows[1]["project_npv_usd_per_gpu"] == ""
    )
    wb_rows = subprocess.run(
        [str(python), "-I", "-c", "import openpyxl, sys; ws = openpyxl.load_workbook(sys.argv[1]).active; "
         "print(ws.max_row, ws['A2'].value)", str(tmp_path / "out.xlsx")],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert wb_rows.split() == ["3", "a"]
    dst = tmp_path / "out.parquet"
    done = subprocess.run([gputco, "batch", str(src), "-o", str(dst)], capture_output=True, text=True)
    assert done.returncode != 0 and not dst.exists()
    (line,) = done.stderr.splitlines()
    assert str(dst) in line and "needs pyarrow" in line and "pip install 'gputco[parquet]'" in line
    done = subprocess.run([str(python), "-I", "-c", "import pyarrow"], capture_output=True, text=True)
    assert "No module named 'pyarrow'" in done.stderr  # the venv really has none
