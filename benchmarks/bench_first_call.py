"""Benchmark: Excel's first minute. Nothing interactive waits for a compiler (issue 42).

1. The first call of every TCO_ function (each registry entry with its example arguments, those
   of docs/udfs.md), in a fresh process with an empty numba cache (``NUMBA_CACHE_DIR`` a new
   empty folder), through the registry (what the LibreOffice add-in and the engine call) and
   through the xlwings module (what Excel calls; where xlwings is installed): each call's time,
   the slowest, how many took over 0.2 s (target: none), and whether numba was imported.
2. ``gputco template`` cold (a fresh process, an empty numba cache) and warm (the same command
   again on the cache the cold run left), alternately, ``--rounds`` times each, side by side:
   the ratio of the medians (target: cold within 1.3x of warm).
3. With ``--against COMMIT``: ``benchmarks/bench_model.py --against COMMIT --rent`` (evaluate of
   1,000,000 scenarios with a rent, this checkout beside COMMIT's, alternately in one process;
   target: at least 0.9x COMMIT's throughput), its lines as they come.

The machine's load moves every time: the load average is printed before and after; read the
ratios, measured side by side in one run, before the absolute times.

    python benchmarks/bench_first_call.py [--rounds 3] [--against 7fe5098] [--repeat 9]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
TARGET_FIRST_CALL = 0.2
TARGET_COLD_OVER_WARM = 1.3

_FIRST_CALLS = r"""
import json, sys, time
start = time.perf_counter()
from gputco.udfs import registry
imported = time.perf_counter() - start
faces = {"registry": {name: registry.UDFS[name] for name in registry.SPECS}}
try:
    import gputco.addin.xlwings_udfs as xl
    faces["xlwings"] = {name: getattr(xl, name) for name in registry.SPECS}
except ImportError:
    pass
times = {}
for face, functions in faces.items():
    for name, f in functions.items():
        t = time.perf_counter()
        f(*registry.SPECS[name].example)
        times[f"{face} {name}"] = time.perf_counter() - t
print(json.dumps({"import": imported, "times": times,
                  "numba": any(m.split(".")[0] in ("numba", "llvmlite") for m in sys.modules)}))
"""


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def first_calls() -> None:
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        env.pop("GPUTCO_KERNELS", None)
        done = subprocess.run(
            [sys.executable, "-c", _FIRST_CALLS], env=env, capture_output=True, text=True, check=True
        )
        left = sorted(Path(cache).rglob("*"))
    got = json.loads(done.stdout.strip().splitlines()[-1])
    times = got["times"]
    over = {k: v for k, v in times.items() if v > TARGET_FIRST_CALL}
    slowest = sorted(times.items(), key=lambda kv: -kv[1])[:5]
    print(f"1. first calls in a fresh process, empty numba cache: {len(times)} calls")
    print(f"   import gputco.udfs.registry {got['import']:.3f} s (before any call, not counted)")
    print(f"   slowest {max(times.values()):.4f} s; over {TARGET_FIRST_CALL} s: {len(over)} {sorted(over)}")
    for name, t in slowest:
        print(f"     {name:<45} {t * 1e3:8.1f} ms")
    print(f"   numba imported: {got['numba']}; files in the numba cache afterwards: {len(left)}")


def _template(cache: str, out: Path) -> float:
    env = {**os.environ, "NUMBA_CACHE_DIR": cache}
    env.pop("GPUTCO_KERNELS", None)
    gputco = Path(sys.executable).with_name("gputco")
    command = [str(gputco)] if gputco.exists() else [sys.executable, "-m", "gputco.addin.cli"]
    start = time.perf_counter()
    subprocess.run(
        [*command, "template", "-o", str(out), "--force"], env=env, capture_output=True, check=True
    )
    return time.perf_counter() - start


def template(rounds: int) -> None:
    cold, warm = [], []
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "gpu-tco.xlsx"
        previous = tempfile.mkdtemp(dir=folder)
        for i in range(rounds):
            fresh = tempfile.mkdtemp(dir=folder)  # an empty numba cache: cold, then warm on it
            if i % 2 == 0:
                cold.append(_template(fresh, out))
                warm.append(_template(fresh, out))
            else:  # warm first (on the cache of the round before), then cold
                warm.append(_template(previous, out))
                cold.append(_template(fresh, out))
            previous = fresh
    c, w = statistics.median(cold), statistics.median(warm)
    print(f"2. gputco template, {rounds} rounds, cold and warm alternately:")
    print(f"   cold (empty numba cache) {', '.join(f'{t:.2f}' for t in cold)} s, median {c:.2f} s")
    print(f"   warm (the same again)    {', '.join(f'{t:.2f}' for t in warm)} s, median {w:.2f} s")
    print(f"   cold / warm {c / w:.2f}x (target <= {TARGET_COLD_OVER_WARM}x)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3, help="template: cold and warm runs each")
    ap.add_argument("--against", metavar="COMMIT", help="also bench_model.py --against COMMIT --rent")
    ap.add_argument("--repeat", type=int, default=9, help="with --against: evaluate calls per version")
    args = ap.parse_args()
    print(load())
    first_calls()
    template(args.rounds)
    if args.against:
        print(f"3. batch with a rent against {args.against} (benchmarks/bench_model.py):", flush=True)
        model = [sys.executable, str(HERE / "bench_model.py"), "--against", args.against, "--rent"]
        subprocess.run([*model, "--repeat", str(args.repeat)], check=True)
    print(load())


if __name__ == "__main__":
    main()
