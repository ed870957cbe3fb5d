"""`gputco --help` and `gputco --version` import neither numpy nor pandas nor pyarrow.

Measured with Python's own import log (``python -X importtime``, one line per module imported,
https://docs.python.org/3/using/cmdline.html#cmdoption-X), in a fresh interpreter running the
command line as the ``gputco`` console script does.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from gputco import udfs
from gputco.addin.commands import HELP

HEAVY = {"numpy", "pandas", "pyarrow"}


def imported(*args: str) -> tuple[set[str], str]:
    """(top-level packages imported, stdout) of ``gputco ARGS`` in a fresh interpreter."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "gputco.addin.cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )
    names = {
        line.rsplit("|", 1)[1].strip().split(".")[0]
        for line in done.stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }
    return names, done.stdout


@pytest.mark.parametrize("flag", ["--help", "--version"])
def test_help_and_version_import_no_numpy_pandas_or_pyarrow(flag):
    names, out = imported(flag)
    assert "argparse" in names  # the import log was read
    assert not names & HEAVY, sorted(names & HEAVY)
    if flag == "--version":
        assert out == f"gputco {udfs.__version__}\n"
    else:
        assert all(name in out for name in HELP)


def test_a_command_does_import_numpy():
    # the control: the log shows numpy when a command needs it
    names, out = imported("compare")
    assert "numpy" in names and "H100_HGX" in out
