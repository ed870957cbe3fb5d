"""Run part of a job in a forked child process, on the machine's second core.

The regex reader (:mod:`.sheetscan`) reads a very large sheet in two halves at once: the child
reads the second half while this process reads the first, and sends its result back pickled
through a pipe. Only where it is safe and worth it: the platform can fork, this process has no
other thread (a fork copies only the calling thread; a lock another thread held would stay held
in the child), the machine has a second core, and ``GPUTCO_RECALC_WORKERS`` is not ``1``. The
child runs nothing but the given function on data already in memory (it reads no file, starts
nothing and leaves through ``os._exit``); anything it raises, and its death, come back as
:class:`ChildFailed`, and the caller then does the work itself.
"""

from __future__ import annotations

import os
import pickle
import threading
from collections.abc import Callable


class ChildFailed(Exception):
    """The child raised, died, or sent nothing usable."""


_CHILD = False


def in_child() -> bool:
    """True inside a child started by :class:`Child`."""
    return _CHILD


def available() -> bool:
    """True when a forked child may take half of the work (see the module's docstring)."""
    if os.environ.get("GPUTCO_RECALC_WORKERS", "").strip() == "1":
        return False
    return hasattr(os, "fork") and threading.active_count() == 1 and (os.cpu_count() or 1) >= 2


def both(func: Callable, first: tuple, second: tuple) -> tuple:
    """``(func(*first), func(*second))``, the second computed by a child at the same time as
    the first here (call only where :func:`available`); if the child fails, here after."""
    child = Child(func, *second)
    try:
        a = func(*first)
        try:
            b = child.result()
        except ChildFailed:
            b = func(*second)
    except BaseException:
        child.cancel()
        raise
    return a, b


class Child:
    """``Child(func, *args)`` starts ``func(*args)`` in a forked process; :meth:`result`
    waits for and returns its value (raises :class:`ChildFailed`)."""

    def __init__(self, func: Callable, *args) -> None:
        read, write = os.pipe()
        self._pid = os.fork()
        if self._pid == 0:  # the child: compute, send, leave without running any cleanup
            global _CHILD
            _CHILD = True
            code = 0
            try:
                os.close(read)
                try:
                    payload = pickle.dumps((True, func(*args)), protocol=pickle.HIGHEST_PROTOCOL)
                except BaseException as err:
                    payload = pickle.dumps((False, f"{type(err).__name__}: {err}"))
                view = memoryview(payload)
                while view:
                    view = view[os.write(write, view) :]
            except BaseException:
                code = 1
            finally:
                os._exit(code)
        os.close(write)
        self._read = read
        self._reaped = False

    def result(self):
        chunks = []
        try:
            while chunk := os.read(self._read, 1 << 20):
                chunks.append(chunk)
        finally:
            os.close(self._read)
            _, status = os.waitpid(self._pid, 0)
            self._reaped = True
        if status != 0 or not chunks:
            raise ChildFailed(f"the child process ended with status {status}")
        ok, value = pickle.loads(b"".join(chunks))
        if not ok:
            raise ChildFailed(value)
        return value

    def cancel(self) -> None:
        """Stop the child and reap it (when the parent gives up before :meth:`result`)."""
        if self._reaped:
            return
        self._reaped = True
        try:
            os.kill(self._pid, 9)
        except ProcessLookupError:
            pass
        try:
            os.close(self._read)
        except OSError:
            pass
        os.waitpid(self._pid, 0)
