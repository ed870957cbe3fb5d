"""Test-session hooks: the fuzz tests' case counts; the LibreOffice fixture (skip, or fail in CI)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def soffice_required():
    """Used through ``lo.requires_soffice``: skip without LibreOffice, fail in CI (CI=true)."""
    from lo import check_soffice

    check_soffice()


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    from fuzzing import CASES, FUZZ_EXAMPLES

    if CASES:
        counts = ", ".join(f"{family} {n:,}" for family, n in sorted(CASES.items()))
        terminalreporter.write_line(f"fuzz cases run: {counts} (GPUTCO_FUZZ_EXAMPLES={FUZZ_EXAMPLES})")
