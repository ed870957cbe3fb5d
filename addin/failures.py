"""How the command line fails: one clear line on stderr, a documented exit code, no traceback.

:func:`run` runs a parsed command and turns every error into one line on stderr and an exit code
(documented in docs/cli.md): gputco's own errors are bad input (2) or a file that
could not be written (3); an error nobody foresaw is a bug (4, with a request to report it).
argparse prints its usage block before an error; :class:`OneLineParser` prints the error alone,
with a pointer to ``--help`` (2). ``--debug`` (before the command) shows the traceback instead.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import signal
import sys
from collections.abc import Iterator
from typing import NoReturn

#: exit codes: success; a check found differences; bad usage or input; a file could not be
#: written; an internal error (a bug)
EXIT_OK, EXIT_DIFFERENCES, EXIT_USAGE, EXIT_WRITE, EXIT_BUG = 0, 1, 2, 3, 4
EXIT_INTERRUPTED = 130


def run(args: argparse.Namespace) -> int:
    """Run the parsed command ``args.run(args)``; every failure becomes one line and a code."""
    command = args.command
    with quiet_finalizers(args.debug), signals_as_interrupts():
        try:
            return args.run(args)
        except Terminated as stop:
            print(f"gputco {command}: terminated by {signal.Signals(stop.signum).name}", file=sys.stderr)
            return 128 + stop.signum
        except KeyboardInterrupt:
            print(f"gputco {command}: interrupted", file=sys.stderr)
            return EXIT_INTERRUPTED
        except BrokenPipeError:  # the reader of stdout went away (gputco presets | head)
            quiet_broken_pipe()
            return EXIT_OK
        except Exception as err:
            if args.debug:
                raise
            line, code = describe(command, timed_out(err) or err)
            wrote = isinstance(err, OSError)
        print(line, file=sys.stderr)
        if wrote:
            gc.collect()  # a failed write's half-written streams are cleaned up now, quietly
        return code


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP while a command runs: raised where the command is, like Ctrl-C's
    KeyboardInterrupt, so every cleanup Ctrl-C runs (temporary outputs, LibreOffice's process
    tree, temporary folders) runs for them too; the exit code is 128 + the signal's number."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


#: the signals a command cleans up after as after Ctrl-C
STOP_SIGNALS = ("SIGTERM", "SIGHUP")


@contextlib.contextmanager
def signals_as_interrupts() -> Iterator[None]:
    """Within the block, SIGTERM and SIGHUP raise :class:`Terminated` (main thread only, and only
    where the signal's handler is the default: an embedding program's own is kept). The first
    one raises; later ones are ignored, so that the cleanup it starts runs to its end."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    signums = [getattr(signal, n) for n in STOP_SIGNALS if hasattr(signal, n)]
    previous = {s: signal.getsignal(s) for s in signums}
    mine = [s for s in signums if previous[s] is signal.SIG_DFL]

    def stop(signum, _frame) -> None:
        for s in mine:
            signal.signal(s, signal.SIG_IGN)
        raise Terminated(signum)

    for s in mine:
        signal.signal(s, stop)
    try:
        yield
    finally:
        for s in mine:
            signal.signal(s, previous[s])


def timed_out(err: BaseException) -> BaseException | None:
    """The time limit behind ``err``, if a library turned the alarm's exception into its own
    (--timeout interrupts whatever code runs; a wrapper may re-raise it as a TypeError)."""
    seen = 0
    while err is not None and seen < 20:
        if type(err).__name__ == "RecalcTimeoutError":
            return err
        err, seen = err.__cause__ or err.__context__, seen + 1
    return None


def describe(command: str, err: Exception) -> tuple[str, int]:
    """The one-line message and exit code for an error of ``gputco COMMAND``.

    >>> from gputco.workbook.xlsx.files import WriteError
    >>> describe("docs", WriteError("out.md", "the disk is full"))
    ('gputco docs: error: cannot write out.md: the disk is full', 3)
    >>> describe("docs", ZeroDivisionError("division by zero"))[1]
    4
    """
    from gputco.udfs.errors import GputcoError  # here: --help and --version import no numpy

    engine = sys.modules.get("gputco.workbook.recalc")  # its errors have their own base
    ours = (GputcoError,) if engine is None else (GputcoError, engine.RecalcError)
    if isinstance(err, ours):
        code = EXIT_WRITE if isinstance(err, OSError) and not isinstance(err, FileExistsError) else EXIT_USAGE
        if getattr(err, "listing", False):  # a summary line, then one line per bad cell
            head, *lines = str(err).splitlines()
            return "\n".join(
                [f"gputco {command}: error: {one_line(head)}", *(f"  {one_line(line)}" for line in lines)]
            ), code
        return f"gputco {command}: error: {one_line(err)}", code
    if isinstance(err, OSError):  # a file problem the command did not foresee: not a bug
        where = f" {err.filename}" if err.filename else ""
        return (f"gputco {command}: error: cannot use{where}: {one_line(err.strerror or err)}", EXIT_WRITE)
    return bug_line(command, err), EXIT_BUG


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one line on stderr (exit code 2)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {one_line(message)} (see {self.prog} --help)\n")


def one_line(text: object) -> str:
    """The text with line breaks and runs of white space folded into single spaces.

    >>> one_line("cannot read a\\nb.csv:  no such file")
    'cannot read a b.csv: no such file'
    """
    return " ".join(str(text).split())


def bug_line(command: str, err: BaseException) -> str:
    """The message for an unexpected exception: a bug in gputco, to be reported."""
    return (
        f"gputco {command}: internal error ({type(err).__name__}: {one_line(err)[:300]}); "
        "this is a bug in gputco: please report it with the output of "
        f"`gputco --debug {command} ...`"
    )


@contextlib.contextmanager
def quiet_finalizers(debug: bool) -> Iterator[None]:
    """Keep errors raised while objects are cleaned up off stderr (unless ``--debug``).

    After a write failed (a full disk), libraries' half-written temporary streams fail again
    when they are garbage-collected; Python prints those as "Exception ignored in ..." with a
    traceback under the one-line error. They say nothing new: :func:`run` collects them inside
    this block, where they are dropped, and the previous hook is put back.
    """
    if debug:
        yield
        return
    previous = sys.unraisablehook
    sys.unraisablehook = lambda _unraisable: None
    try:
        yield
    finally:
        sys.unraisablehook = previous


def quiet_broken_pipe() -> None:
    """After stdout was closed by the reader (``gputco presets | head``): exit without noise."""
    import os

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
