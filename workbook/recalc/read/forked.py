"""Run part of a job in a forked child process, on the machine's second core.

The regex reader (:mod:`.sheetscan`) reads a very large sheet in two halves at once: the child
reads the second half while this process reads the first, and sends its result back pickled
through a pipe. Only where it is safe and worth it: the platform can fork, this process has no
other thread, counted by the operating system (``/proc/self/task``; a fork copies only the
calling thread, and a lock another thread held would stay held in the child: numpy's BLAS and
pyarrow's allocator start threads of their own, which ``threading`` does not see, so the command
line asks them for none before they load: :mod:`gputco.addin.threads`), the machine
has a second core, and ``GPUTCO_RECALC_WORKERS`` is not ``1``. Where threads cannot be counted
(no ``/proc``), no child is started. The child runs nothing but the given function on data
already in memory (it reads no file, starts nothing and leaves through ``os._exit``); anything it
raises, its death, and its silence past a time limit (it is then killed) come back as
:class:`ChildFailed`, and the caller then does the work itself.
"""

from __future__ import annotations

import os
import pickle
import select
import time
from collections.abc import Callable

#: the least time a child may take after the parent finished its half, and how many times the
#: parent's time it may take at most, before it is killed and the parent does its half too
CHILD_GRACE_S = 10.0
CHILD_SLOWER = 4.0


class ChildFailed(Exception):
    """The child raised, died, or sent nothing usable."""


_CHILD = False


def in_child() -> bool:
    """True inside a child started by :class:`Child`."""
    return _CHILD


def os_threads() -> int | None:
    """The threads of this process as the operating system counts them (None: unknown)."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return None


def available() -> bool:
    """True when a forked child may take half of the work (see the module's docstring)."""
    if os.environ.get("GPUTCO_RECALC_WORKERS", "").strip() == "1":
        return False
    return hasattr(os, "fork") and os_threads() == 1 and (os.cpu_count() or 1) >= 2


def both(func: Callable, first: tuple, second: tuple) -> tuple:
    """``(func(*first), func(*second))``, the second computed by a child at the same time as
    the first here (call only where :func:`available`); if the child fails, or is still at work
    long after the first half is done, here after."""
    child = Child(func, *second)
    try:
        t0 = time.monotonic()
        a = func(*first)
        limit = max(CHILD_GRACE_S, CHILD_SLOWER * (time.monotonic() - t0))
        try:
            b = child.result(timeout=limit)
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

    def result(self, timeout: float | None = None):
        """The child's value; past ``timeout`` seconds it is killed (:class:`ChildFailed`)."""
        chunks = []
        end = None if timeout is None else time.monotonic() + timeout
        late = False
        try:
            while True:
                if end is not None:
                    ready, _, _ = select.select([self._read], [], [], max(0.0, end - time.monotonic()))
                    if not ready:
                        late = True
                        os.kill(self._pid, 9)
                        break
                chunk = os.read(self._read, 1 << 20)
                if not chunk:
                    break
                chunks.append(chunk)
        finally:
            os.close(self._read)
            _, status = os.waitpid(self._pid, 0)
            self._reaped = True
        if late:
            raise ChildFailed(f"the child process sent nothing for {timeout:.1f} s and was stopped")
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
