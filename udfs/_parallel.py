"""Chunks of scenarios on every core: numpy releases the GIL in its array loops, so chunks that
each write their own rows of the results run in parallel on threads, and the values are the same
whatever the number of threads."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor, wait
from typing import Any


def threads() -> int:
    """Chunks run at once by :func:`gputco.udfs.scenario.evaluate` and
    :func:`gputco.udfs.project.results`: ``GPUTCO_THREADS`` if set (1: one after the other, in
    the caller's thread), else the cores this process may use."""
    env = os.environ.get("GPUTCO_THREADS", "").strip()
    if env:
        if not env.isdigit() or int(env) < 1:
            raise ValueError(f"GPUTCO_THREADS must be a whole number >= 1, got {env!r}")
        return int(env)
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)


#: the pool of the thread count in use, made when first needed (one per process)
_POOL: dict[int, ThreadPoolExecutor] = {}


def _pool(count: int) -> ThreadPoolExecutor:
    pool = _POOL.get(count)
    if pool is None:
        for old in _POOL.values():  # GPUTCO_THREADS changed: the old pool's threads end
            old.shutdown(wait=False)
        _POOL.clear()
        pool = _POOL[count] = ThreadPoolExecutor(count, thread_name_prefix="gputco-chunk")
    return pool


def each_chunk(work: Callable[[Any], None], chunks: Iterable[Any]) -> None:
    """``work(chunk)`` for every chunk, on :func:`threads` threads. Every chunk has run when it
    returns or raises; an error is the first chunk's (in chunk order), as one thread gives it.
    ``work`` must not call :func:`each_chunk` (its threads would wait on their own pool)."""
    chunks = list(chunks)
    count = threads()
    if count <= 1 or len(chunks) <= 1:
        for chunk in chunks:
            work(chunk)
        return
    futures = [_pool(count).submit(work, chunk) for chunk in chunks]
    wait(futures)
    for future in futures:
        future.result()
