"""mypy (default settings: the basic check) is clean on the installed ``gputco.udfs`` package.

The package ships a ``py.typed`` marker (PEP 561), so a user's type checker reads its annotations;
this test runs ``python -m mypy -p gputco.udfs`` on the files Python imports it from. mypy cannot
follow an editable install's import hook, so the package folder is linked into a temporary search
path (``MYPYPATH``) under its import name: the same files, wheel or editable.
"""

from __future__ import annotations

import os
import subprocess
import sys
from importlib.resources import files
from pathlib import Path

import gputco.udfs


def test_udfs_ships_its_type_marker():
    assert files("gputco.udfs").joinpath("py.typed").is_file()


def test_mypy_is_clean_on_udfs(tmp_path):
    root = tmp_path / "path" / "gputco"
    root.mkdir(parents=True)
    (root / "udfs").symlink_to(Path(gputco.udfs.__file__).parent, target_is_directory=True)
    env = {**os.environ, "MYPYPATH": str(tmp_path / "path")}
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "cache"), "-p", "gputco.udfs"],
        cwd=tmp_path,  # no project configuration: mypy's defaults
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Success: no issues found" in run.stdout
