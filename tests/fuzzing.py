"""Shared settings of the fuzz tests: how many examples, a hard time limit per case, a case count.

``GPUTCO_FUZZ_EXAMPLES`` sets the examples per fuzz test (default 200, which keeps the default
test run fast); a long run is ``GPUTCO_FUZZ_EXAMPLES=20000 pytest tests/test_fuzz_*.py`` (see
``benchmarks/fuzz.py``). Each test adds its cases to :data:`CASES`; ``tests/conftest.py`` prints
the totals at the end of the run.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections import Counter

from hypothesis import HealthCheck, settings

FUZZ_EXAMPLES = int(os.environ.get("GPUTCO_FUZZ_EXAMPLES", "200"))

#: cases run per fuzz family (udf, plain, workbook...), printed by conftest.pytest_terminal_summary
CASES: Counter[str] = Counter()


def fuzz_settings(share: float = 1.0) -> settings:
    """Hypothesis settings for a fuzz test: ``share`` of GPUTCO_FUZZ_EXAMPLES, no deadline
    (a slow case is caught by :func:`hard_timeout` instead), no shrinking time limit games."""
    return settings(
        max_examples=max(10, int(FUZZ_EXAMPLES * share)),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
        derandomize=os.environ.get("GPUTCO_FUZZ_RANDOM") is None,
    )


class Hung(BaseException):
    """A case ran past its hard time limit: a hang (a BaseException, so that the engine's
    containment of a cell's failure, which catches Exception, does not swallow it)."""


@contextlib.contextmanager
def hard_timeout(seconds: float):
    """Fail with :class:`Hung` if the block runs longer than ``seconds`` (SIGALRM, main thread)."""

    def alarm(_signum, _frame):
        raise Hung(f"still running after {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
