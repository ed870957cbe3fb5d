"""Before and after in one process: another commit's ``udfs/`` imported as the package
``udfs_then`` beside this checkout's ``gputco.udfs``, the two called alternately, so that both
meet the same machine (the fairest ratio on a virtual machine whose speed drifts)."""

from __future__ import annotations

import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@contextmanager
def extracted(commit: str):
    """A folder holding ``commit``'s udfs/ as the package ``udfs_then`` (for the child's
    sys.path), removed afterwards."""
    with tempfile.TemporaryDirectory() as folder:
        tar = subprocess.run(["git", "archive", commit, "udfs"], cwd=ROOT, check=True, capture_output=True)
        subprocess.run(["tar", "-x", "-C", folder], input=tar.stdout, check=True)
        Path(folder, "udfs").rename(Path(folder, "udfs_then"))
        yield folder


def then_module(folder: str, name: str):
    """``udfs_then.<name>`` from ``folder`` (in the child process)."""
    import importlib

    sys.path.insert(0, folder)
    return importlib.import_module(f"udfs_then.{name}")


def alternate(calls: dict[str, Callable[[], object]], repeat: int) -> dict[str, list[tuple[float, float]]]:
    """Each call ``repeat`` times, in turns (the order flipped each round; each call's last result
    kept alive during its next call, as a caller keeps it): per name (wall, user CPU) seconds."""
    runs: dict[str, list[tuple[float, float]]] = {k: [] for k in calls}
    kept = {}
    names = list(calls)
    for i in range(repeat):
        for name in names if i % 2 == 0 else names[::-1]:
            r0, t0 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
            kept[name] = calls[name]()
            seconds, r1 = time.perf_counter() - t0, resource.getrusage(resource.RUSAGE_SELF)
            runs[name].append((seconds, r1.ru_utime - r0.ru_utime))
    return runs


def report(runs: dict[str, list], commit: str, n: int, what: str) -> None:
    """The best and median times of both versions and their ratio."""
    print(f"{what}, {n:,} scenarios, {len(runs['then'])} calls each, alternately in one process:")
    for name, label in (("then", commit), ("now", "this checkout")):
        wall, user = [r[0] for r in runs[name]], [r[1] for r in runs[name]]
        print(
            f"  {label}: best {min(wall):.3f} s = {n / min(wall) / 1e6:.3f} M/s, median "
            f"{statistics.median(wall):.3f} s; user best {min(user):.3f} s, median {statistics.median(user):.3f} s"
        )
    then, now = ([r[0] for r in runs[k]] for k in ("then", "now"))
    print(
        f"  ratio {commit} / this checkout: best {min(then) / min(now):.2f}x, "
        f"median {statistics.median(then) / statistics.median(now):.2f}x"
    )
