"""gputco's time budget for one command: ``--timeout SECONDS`` or ``GPUTCO_TIMEOUT`` over every phase.

The engine keeps the deadline its readers, screen and evaluator check
(:func:`gputco.workbook.recalc.deadline`, :func:`check_time`, :func:`time_left`,
:func:`time_limit`, re-exported here for batch and LibreOffice's doors); this module adds what is
gputco's: the environment variable, and the alarm that interrupts whatever Python code runs when
the time is up, naming the phase by the gputco module it found (:data:`_PHASES`) and never
landing inside the code that must finish (:data:`_CRITICAL`).
"""

from __future__ import annotations

import contextlib
import signal
import time
from collections.abc import Iterator

from gputco.workbook.recalc import RecalcTimeoutError, check_time, deadline, time_left, time_limit

__all__ = ["TIMEOUT_ENV", "check_time", "time_budget", "time_left", "time_limit"]

#: the environment variable that sets ``--timeout`` for every command
TIMEOUT_ENV = "GPUTCO_TIMEOUT"


@contextlib.contextmanager
def time_budget(seconds: float | None, *, alarm: bool = False) -> Iterator[None]:
    """Everything inside has ``seconds`` (None: no limit) of wall-clock time, every phase.

    The phases check it themselves (:func:`check_time`). With ``alarm`` (the command line's
    doors, in the main thread), a SIGALRM timer also interrupts whatever Python code runs when the
    time is up (a defined name written out 2^30 times, one huge formula), repeated every half
    second in case a containment handler took the first for a cell's error.

    >>> with time_budget(1e-9):
    ...     time.sleep(0.001)
    ...     check_time("screening the package")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gputco.workbook.recalc.base.errors.RecalcTimeoutError: stopped after the time limit of 1e-09 s (screening the package); raise it with --timeout SECONDS or GPUTCO_TIMEOUT=SECONDS...
    """
    with deadline(seconds) as budget:
        armed = _arm(budget) if alarm and budget is not None else None
        try:
            yield
        finally:
            if armed is not None:
                _disarm(armed)


def _disarm(armed) -> None:
    """Stop the timer, then put back the handler and timer it replaced: each step once, retried
    if the alarm rings in the middle (it raises between any two lines). The budget ends after,
    with the engine's deadline."""
    done: set[str] = set()
    while True:
        try:
            if "timer" not in done:
                signal.setitimer(signal.ITIMER_REAL, 0)
                done.add("timer")
            if "handler" not in done:
                previous, (delay, _interval), started = armed
                signal.signal(signal.SIGALRM, previous)
                if delay > 0:  # an outer timer (a test's hard limit): what it had left
                    signal.setitimer(signal.ITIMER_REAL, max(delay - (time.perf_counter() - started), 1e-3))
                done.add("handler")
            return
        except RecalcTimeoutError:
            continue


#: where the alarm found the command, by the folder of the innermost gputco frame
_PHASES = (
    ("gputco.workbook.recalc.formula.screen", "reading and screening the package"),
    ("gputco.workbook.recalc.run.compile", "compiling the formulas and the defined names they use"),
    ("gputco.workbook.recalc.formula", "compiling the formulas and the defined names they use"),
    ("gputco.workbook.recalc.functions", "evaluating the formulas"),
    ("gputco.workbook.recalc.run", "evaluating the formulas"),
    ("gputco.workbook.recalc.read", "reading and screening the package"),
    ("gputco.workbook.recalc.write", "writing the result"),
    ("gputco.workbook.soffice", "running LibreOffice"),
    ("gputco.workbook.xlsx", "writing the output"),
    ("gputco.workbook.batch", "reading and computing the scenarios"),
    ("gputco.workbook.scenarios", "reading the SPEC and building the scenario workbook"),
    ("gputco.udfs", "computing the scenarios"),
)


#: code the alarm never interrupts (it rings again 50 ms later): making, renaming and removing
#: temporary files and folders, and the sandbox's run, which ends itself on the same deadline
#: and kills its process tree on the way out
_CRITICAL = {
    ("gputco.workbook.xlsx.files", "atomic_output"),
    ("gputco.workbook.xlsx.files", "remove_stale"),
    ("gputco.workbook.soffice.sandbox", "run"),
    # numba's import: an alarm inside it was taken for a broken binary package (a warning, then
    # the kernels as Python) instead of the time limit
    ("gputco.udfs._flowkernels", "_numba"),
    ("tempfile", "__exit__"),
    ("tempfile", "cleanup"),
    ("tempfile", "mkdtemp"),
    ("tempfile", "mkstemp"),
    ("shutil", "rmtree"),
}


def _arm(budget: tuple[float, float]):
    """Install the SIGALRM handler and timer (main thread, POSIX only): (the handler and timer
    they replace, when), or None where no alarm can be set."""
    if not hasattr(signal, "setitimer"):
        return None

    def ring(_signum, frame) -> None:
        stage = None
        while frame is not None:
            name = frame.f_globals.get("__name__", "")
            if (name, frame.f_code.co_name) in _CRITICAL:
                signal.setitimer(signal.ITIMER_REAL, 0.05)  # after it
                return
            if stage is None:
                stage = next((what for prefix, what in _PHASES if name.startswith(prefix)), None)
            frame = frame.f_back
        signal.setitimer(signal.ITIMER_REAL, 0.5)  # again, if this one is swallowed
        raise RecalcTimeoutError(budget[0], 0, 0, stage=stage or "working")

    try:
        previous = signal.signal(signal.SIGALRM, ring)
    except ValueError:  # not the main thread
        return None
    started = time.perf_counter()
    old = signal.setitimer(signal.ITIMER_REAL, max(budget[1] - started, 1e-3))
    return (signal.SIG_DFL if previous is None else previous), old, started
