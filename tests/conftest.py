"""Test-session hooks: the fuzz tests' case counts, printed at the end of the run."""

from __future__ import annotations


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    from fuzzing import CASES, FUZZ_EXAMPLES

    if CASES:
        counts = ", ".join(f"{family} {n:,}" for family, n in sorted(CASES.items()))
        terminalreporter.write_line(f"fuzz cases run: {counts} (GPUTCO_FUZZ_EXAMPLES="
                                    f"{FUZZ_EXAMPLES})")
