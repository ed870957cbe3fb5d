"""Test-session hooks: the fuzz tests' case counts; the LibreOffice fixture (skip, or fail in CI)
and the ``libreoffice`` marker on every test that uses it, with a warning naming any test that
starts LibreOffice without it."""

from __future__ import annotations

import os
import shutil
import warnings

import pytest


@pytest.fixture(scope="session")
def default_template(tmp_path_factory):
    """The finance workbook as `gputco template -o gpu-tco.xlsx` writes it, written once per test
    process for the tests that only read it (a test that changes a workbook writes its own)."""
    from gputco.workbook.finance.build import write_template

    return write_template(tmp_path_factory.mktemp("default-template") / "gpu-tco.xlsx").path


@pytest.fixture(scope="session")
def example_scenarios_written(tmp_path_factory):
    """What `write_scenarios` returned for the workbook of `gputco scenarios --example` (its SPEC
    as written; its path and its recalculation report), written once per test process for the
    tests that only read it."""
    import tomllib

    from gputco.workbook.scenarios.build import write_scenarios
    from gputco.workbook.scenarios.example import EXAMPLE
    from gputco.workbook.scenarios.spec import parse_spec

    path = tmp_path_factory.mktemp("example-scenarios") / "scenarios.xlsx"
    return write_scenarios(parse_spec(tomllib.loads(EXAMPLE)), path)


@pytest.fixture(scope="session")
def example_scenarios(example_scenarios_written):
    """The path of the --example scenario workbook (example_scenarios_written)."""
    return example_scenarios_written.path


@pytest.fixture(scope="session")
def soffice_required():
    """Used through ``lo.requires_soffice``: skip without LibreOffice, fail in CI (CI=true)."""
    from lo import check_soffice

    check_soffice()


def pytest_collection_modifyitems(config, items):
    """Every test that needs LibreOffice (the soffice_required fixture, through
    ``lo.requires_soffice``) carries the ``libreoffice`` marker: ``pytest -m "not libreoffice"``
    runs the model's tests alone."""
    for item in items:
        if "soffice_required" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.libreoffice)


class UnmarkedLibreOfficeWarning(pytest.PytestWarning):
    """A test started LibreOffice without the ``libreoffice`` marker: ``-m "not libreoffice"``
    would still run it (mark it, or use ``lo.requires_soffice``)."""


#: the test being run in this process (set around each test's setup, call and teardown)
_RUNNING: dict[str, pytest.Item | None] = {"item": None}


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    _RUNNING["item"] = item
    try:
        yield
    finally:
        _RUNNING["item"] = None


def pytest_configure(config):
    """Every LibreOffice run goes through ``sandbox.run``: one started by the installed soffice
    (not a stand-in a test puts on PATH) for a test without the marker warns, naming the test."""
    found = shutil.which("soffice") or shutil.which("libreoffice")
    if found is None:
        return
    real = os.path.realpath(found)
    from gputco.workbook.soffice import sandbox

    started = sandbox.run

    def run(cmd, *args, **kwargs):
        item = _RUNNING["item"]
        if item is not None and item.get_closest_marker("libreoffice") is None and cmd:
            if os.path.realpath(cmd[0]) == real:
                warnings.warn(
                    UnmarkedLibreOfficeWarning(f"{item.nodeid} starts LibreOffice without the marker"),
                    stacklevel=2,
                )
        return started(cmd, *args, **kwargs)

    sandbox.run = run


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    from fuzzing import CASES, FUZZ_EXAMPLES

    if CASES:
        counts = ", ".join(f"{family} {n:,}" for family, n in sorted(CASES.items()))
        terminalreporter.write_line(f"fuzz cases run: {counts} (GPUTCO_FUZZ_EXAMPLES={FUZZ_EXAMPLES})")
