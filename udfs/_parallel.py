"""Chunks of scenarios on every core: numpy releases the GIL in its array loops, so chunks that
each write their own rows of the results run in parallel on threads, and the values are the same
whatever the number of threads."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
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


_POOL: list[ThreadPoolExecutor] = []


def each_chunk(work: Callable[[Any], None], chunks: Iterable[Any]) -> None:
    """``work(chunk)`` for every chunk, on :func:`threads` threads; the first chunk's error (in
    chunk order) is raised, after every chunk has run."""
    chunks = list(chunks)
    count = min(threads(), len(chunks))
    if count <= 1:
        for chunk in chunks:
            work(chunk)
        return
    if not _POOL or _POOL[0]._max_workers != count:  # one pool per process, made when first needed
        if _POOL:
            _POOL.pop().shutdown(wait=False)
        _POOL.append(ThreadPoolExecutor(count, thread_name_prefix="gputco-chunk"))
    for future in [_POOL[0].submit(work, chunk) for chunk in chunks]:
        future.result()
