"""Benchmark: the full model chain, vectorised over 1,000,000 scenarios vs a per-scenario loop.

Chain: capex -> capital per GPU-hour -> power -> facility -> TCO -> tokens/s -> cost per Mtok ->
J/token -> household-years for a training run. Prints scenarios per second for both and the ratio,
measured side by side in one run. Target: >= 5,000,000 scenarios/s vectorised on one core.

    python benchmarks/bench_model.py [--n 1000000] [--loop-sample 20000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import time

# One core, as the target says: set before numpy loads its thread pools.
for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, "1")

import numpy as np

from gputco import udfs


def scenarios(n: int, seed: int = 7) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {
        "capex": rng.uniform(20_000, 70_000, n),
        "rate": rng.uniform(0.05, 0.20, n),
        "life": rng.uniform(3, 7, n),
        "kw": rng.uniform(1.2, 2.2, n),
        "pue": rng.uniform(1.1, 1.6, n),
        "usd_kwh": rng.uniform(0.04, 0.15, n),
        "colo": rng.uniform(80, 200, n),
        "fpt": rng.uniform(5e10, 3e12, n),
        "peak": rng.uniform(900, 5000, n),
        "mfu": rng.uniform(0.2, 0.6, n),
        "tokens": rng.uniform(1e11, 2e13, n),
    }


def chain(s):
    tco = udfs.tco_total_per_gpu_hour(
        s["capex"], s["rate"], s["life"], s["kw"], s["pue"], s["usd_kwh"], s["colo"]
    )
    cost = udfs.tco_cost_per_mtok(tco, s["fpt"], s["peak"], s["mfu"])
    watts = udfs.tco_utility_watts_per_gpu(s["kw"], s["pue"])
    jpt = udfs.tco_joules_per_token(watts, s["fpt"], s["peak"], s["mfu"])
    hy = udfs.tco_household_years(jpt * s["tokens"])
    return tco, cost, jpt, hy


def best_of(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--loop-sample", type=int, default=20_000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()

    s = scenarios(args.n)
    t_vec, (tco, cost, jpt, hy) = best_of(lambda: chain(s), args.repeat)

    m = args.loop_sample
    rows = [{k: float(v[i]) for k, v in s.items()} for i in range(m)]
    t_loop, loop_out = best_of(lambda: [chain(r) for r in rows], 1)

    # Same numbers both ways (first m scenarios).
    loop_cost = np.array([o[1] for o in loop_out])
    assert np.allclose(loop_cost, cost[:m], rtol=1e-12), "vectorised and loop disagree"

    vec_rate, loop_rate = args.n / t_vec, m / t_loop
    print(
        f"full chain, {args.n:,} scenarios vectorised: {t_vec * 1e3:.1f} ms "
        f"= {vec_rate:,.0f} scenarios/s (best of {args.repeat})"
    )
    print(f"same chain, per-scenario Python loop over {m:,}: {t_loop:.2f} s = {loop_rate:,.0f} scenarios/s")
    print(f"ratio vectorised / loop: {vec_rate / loop_rate:,.0f}x")
    print(f"target >= 5,000,000 scenarios/s: {'met' if vec_rate >= 5e6 else 'NOT met'}")
    print(
        f"sample: TCO {tco[0]:.4f} $/GPU-h, {cost[0]:.4f} $/Mtok, {jpt[0]:.3f} J/token, "
        f"{hy[0]:.1f} household-years"
    )


if __name__ == "__main__":
    main()
