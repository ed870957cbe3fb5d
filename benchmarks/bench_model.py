"""Benchmark: the model chain at batch speed, with and without a rent, measured side by side.

1. The full chain of TCO_ functions (capex -> TCO -> cost per Mtok -> J/token -> household-years),
   vectorised over --n scenarios against a per-scenario Python loop (target: >= 5 M/s).
2. ``scenario.evaluate`` of --n scenarios without a rent and with one (so with NPV, IRR, payback
   and break-even rent, tax and rent decline on), each in a fresh child process: scenarios per
   second, the peak RSS of the child (its own ru_maxrss) and the ratio (target: >= 1 M/s and
   < 1.5 GB with a rent, >= 20 M/s without), each on one thread and on every core (evaluate runs
   its chunks of scenarios on GPUTCO_THREADS threads, default every core); beside them the floor
   without a rent: the least work any numpy implementation does on one thread (the annuity's
   log1p and expm1, one array per result).
3. The IRR of --irr-rows cash-flow rows by the per-row Newton/bisection (udfs/flows.py) against
   the grid search over 600 rates it replaced (kept here, in the benchmark only), same rows.
4. ``gputco batch`` of --batch-rows Parquet rows with a rent and without, each in a child process
   (target: with a rent < 2x the time without, peak < 1 GB); with --big also --big-rows rows
   with rents (peak < 1.5 GB; a few minutes).

numpy's own thread pools (BLAS) stay at one thread; evaluate's chunks are the only parallel
work. The machine's load moves every timing: run it when the
machine is quiet, and read the ratios (measured in the same run) before the absolute rates; the
evaluate lines also give the process's CPU time, which other processes move less.

    python benchmarks/bench_model.py [--n 1000000] [--loop-sample 20000] [--repeat 3]
        [--irr-rows 20000] [--batch-rows 1000000] [--big] [--big-rows 10000000] [--dir DIR]
        [--only evaluate|irr|batch|chain]
    python benchmarks/bench_model.py --against COMMIT [--rent] [--repeat 20]   # before/after, one process
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

# numpy's own pools at one thread: set before numpy loads them (evaluate's chunk threads apart).
for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, "1")

import numpy as np

from gputco import udfs

SYSTEMS = ("H100_HGX", "GB200_NVL72", "H200_HGX", "B200_HGX")


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


def bench_chain(args) -> None:
    s = scenarios(args.n)
    t_vec, (tco, cost, jpt, hy) = best_of(lambda: chain(s), args.repeat)
    m = args.loop_sample
    rows = [{k: float(v[i]) for k, v in s.items()} for i in range(m)]
    t_loop, loop_out = best_of(lambda: [chain(r) for r in rows], 1)
    loop_cost = np.array([o[1] for o in loop_out])
    assert np.allclose(loop_cost, cost[:m], rtol=1e-12), "vectorised and loop disagree"
    vec_rate, loop_rate = args.n / t_vec, m / t_loop
    print(
        f"TCO_ chain, {args.n:,} scenarios vectorised: {t_vec * 1e3:.1f} ms "
        f"= {vec_rate:,.0f} scenarios/s (best of {args.repeat})"
    )
    print(f"same chain, per-scenario Python loop over {m:,}: {t_loop:.2f} s = {loop_rate:,.0f} scenarios/s")
    print(f"ratio vectorised / loop: {vec_rate / loop_rate:,.0f}x")
    print(f"target >= 5,000,000 scenarios/s: {'met' if vec_rate >= 5e6 else 'NOT met'}")
    print(
        f"sample: TCO {tco[0]:.4f} $/GPU-h, {cost[0]:.4f} $/Mtok, {jpt[0]:.3f} J/token, "
        f"{hy[0]:.1f} household-years"
    )


# --- 2. scenario.evaluate with and without a rent, in child processes --------------------------


def evaluate_inputs(n: int, rent: bool, seed: int = 11) -> dict[str, object]:
    """Scenarios as a batch file gives them: four systems (dictionary-encoded), MFU, cost of
    capital, power price; with a rent also tax and a rent decline."""
    from gputco.udfs.scenario import Coded

    rng = np.random.default_rng(seed)
    inputs: dict[str, object] = {
        "system": Coded(rng.integers(0, len(SYSTEMS), n), list(SYSTEMS)),
        "mfu": rng.uniform(0.25, 0.6, n),
        "cost_of_capital": rng.uniform(0.06, 0.2, n),
        "usd_per_kwh": rng.uniform(0.04, 0.15, n),
    }
    if rent:
        inputs["rent_usd_per_gpu_hour"] = rng.uniform(1.0, 4.0, n)
        inputs["tax_rate"] = rng.uniform(0.0, 0.3, n)
        inputs["rent_decline_per_year"] = rng.uniform(0.0, 0.2, n)
    return inputs


def child_evaluate(n: int, rent: bool, repeat: int) -> None:
    from gputco.udfs import scenario

    inputs = evaluate_inputs(n, rent)
    runs = []
    for _ in range(repeat):
        r0, t0 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
        out = scenario.evaluate(inputs)
        seconds, r1 = time.perf_counter() - t0, resource.getrusage(resource.RUSAGE_SELF)
        runs.append(
            {
                "seconds": seconds,
                "cpu": (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime),
                "user": r1.ru_utime - r0.ru_utime,
                "system": r1.ru_stime - r0.ru_stime,
                "faults": r1.ru_minflt - r0.ru_minflt,
            }
        )
    best = min(runs, key=lambda r: r["seconds"])
    found = int(np.isfinite(out["project_irr"]).sum())
    print(json.dumps({**best, "irr_found": found}))


def _child(argv: list[str], threads: int | None = None) -> tuple[dict, float]:
    """Run this script as a child with ``argv`` (``threads``: its GPUTCO_THREADS, else the
    default, every core); its JSON line and peak RSS in MiB."""
    env = {k: v for k, v in os.environ.items() if k != "GPUTCO_THREADS"}
    if threads is not None:
        env["GPUTCO_THREADS"] = str(threads)
    child = subprocess.Popen([sys.executable, __file__, *argv], stdout=subprocess.PIPE, text=True, env=env)
    out = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"child {argv} failed")
    return json.loads(out.strip().splitlines()[-1]), usage.ru_maxrss / 1024


def floor_without_rent(n: int, repeat: int) -> tuple[float, int]:
    """A lower bound on ``scenario.evaluate`` without a rent on this machine's numpy: the two
    transcendental functions of the annuity (log1p, expm1) and one multiply into a fresh array for
    each result column a rent-free scenario has (seconds, columns). No model is computed: it is
    the cost of the least work any implementation with numpy does."""
    from gputco.udfs import scenario

    sample = scenario.evaluate(evaluate_inputs(1000, rent=False))
    columns = sum(bool(np.isfinite(v).any()) for v in sample.values())
    rng = np.random.default_rng(3)
    rate, years, x = rng.uniform(0.06, 0.2, n), np.full(n, 5.0), rng.uniform(1, 2, n)

    def least():
        growth = np.expm1(years * np.log1p(rate))
        return [x * growth for _ in range(columns)]

    return best_of(least, repeat)[0], columns


def bench_evaluate(args) -> None:
    """Without a rent and with one, each on one thread and on every core (the default: chunks of
    scenarios on :func:`gputco.udfs.scenario.threads` threads), the four children alternating."""
    from gputco.udfs.scenario import threads

    cores = threads()
    base = ["--child-evaluate", str(args.n), str(args.repeat)]
    got = {}
    for rent in (0, 1):
        for count in dict.fromkeys((1, cores)):
            got[rent, count] = _child([*base, str(rent)], count)
    for count in dict.fromkeys((1, cores)):
        (without, mem_without), (with_rent, mem_with) = got[0, count], got[1, count]
        r0, r1 = args.n / without["seconds"], args.n / with_rent["seconds"]
        print(f"-- {count} thread{'s' if count > 1 else ''} (GPUTCO_THREADS={count}):")
        print(
            f"scenario.evaluate, {args.n:,} scenarios without a rent: {without['seconds']:.3f} s = "
            f"{r0 / 1e6:.2f} M scenarios/s (CPU {without['cpu']:.3f} s), peak {mem_without:,.0f} MiB "
            f"(best of {args.repeat})"
        )
        print(
            f"  its CPU: user {without['user']:.3f} s, system {without['system']:.3f} s for "
            f"{without['faults']:,} page faults (the kernel mapping the fresh result arrays: "
            f"it varies from call to call with what the allocator kept of the last call's memory)"
        )
        print(
            f"same, with a rent (NPV, IRR, payback, break-even rent; {with_rent['irr_found']:,} IRRs): "
            f"{with_rent['seconds']:.3f} s = {r1 / 1e6:.2f} M scenarios/s (CPU {with_rent['cpu']:.3f} s), "
            f"peak {mem_with:,.0f} MiB"
        )
        print(f"ratio time with a rent / without: {with_rent['seconds'] / without['seconds']:.2f}x")
        print(f"target with a rent >= 1 M/s: {'met' if r1 >= 1e6 else 'NOT met'}")
        print(f"target with a rent peak < 1.5 GB: {'met' if mem_with < 1.5 * 1024 else 'NOT met'}")
        print(f"target without a rent >= 20 M/s: {'met' if r0 >= 20e6 else 'NOT met'}")
    if cores > 1:
        for rent, label in ((0, "without a rent"), (1, "with a rent")):
            one, many = got[rent, 1][0]["seconds"], got[rent, cores][0]["seconds"]
            print(f"{cores} threads / 1 thread, {label}: {one / many:.2f}x faster")
    least, columns = floor_without_rent(args.n, args.repeat)
    print(
        f"floor without a rent on this machine's numpy, one thread (log1p + expm1 of the annuity, "
        f"one multiply into a fresh array per result column, {columns} columns; no model): "
        f"{least:.3f} s = {args.n / least / 1e6:.2f} M/s; ratio evaluate on one thread / floor "
        f"{got[0, 1][0]['seconds'] / least:.2f}x"
    )


def child_against(n: int, rent: bool, repeat: int, folder: str) -> None:
    """``scenario.evaluate`` of this checkout and of another commit's (benchmarks/then_now.py),
    called alternately in this one process: per version its times."""
    from then_now import alternate, then_module

    from gputco.udfs import scenario as now

    then = then_module(folder, "scenario")
    inputs = evaluate_inputs(n, rent)
    coded = inputs["system"]
    given = {**inputs, "system": then.Coded(coded.codes, coded.categories)}
    # the compiled kernels loaded before the timing: a call of batch size (udfs/_jit.py's
    # COMPILE_FROM rows x periods) loads them, a smaller one runs interpreted
    now.evaluate(evaluate_inputs(20_000, rent))
    runs = alternate({"then": lambda: then.evaluate(given), "now": lambda: now.evaluate(inputs)}, repeat)
    print(json.dumps(runs))


def bench_against(args) -> None:
    """``--against COMMIT``: evaluate (with a rent where ``--rent``), this checkout beside
    COMMIT's, alternately in one child process on one thread (the same machine state for both:
    the fairest before/after on a busy machine)."""
    from then_now import extracted, report

    with extracted(args.against) as folder:
        argv = ["--child-against", str(args.n), str(args.repeat), str(int(args.rent)), folder]
        runs, _ = _child(argv, threads=1)
    report(runs, args.against, args.n, f"scenario.evaluate {'with' if args.rent else 'without'} a rent")


# --- 3. the IRR kernel against the grid search it replaced -------------------------------------

_OLD_GRID = np.unique(
    np.concatenate([-1.0 + np.geomspace(1e-9, 1.0, 200)[:-1], np.geomspace(1e-9, 1e6, 400), [0.0]])
)


def old_grid_irr(net: np.ndarray) -> np.ndarray:
    """The IRR as udfs/decisions.py computed it before the per-row solver (kept here, in the benchmark
    only): NPV of every row at 600 rates (a rows x rates matrix), each sign change bisected."""
    years = np.arange(net.shape[1], dtype=float)
    with np.errstate(all="ignore"):
        values = net @ ((1.0 + _OLD_GRID)[:, None] ** -years[None, :]).T
    sign = np.sign(values)
    cr, cj = np.nonzero(sign[:, :-1] * sign[:, 1:] < 0)
    lo, hi, flo = _OLD_GRID[cj], _OLD_GRID[cj + 1], values[cr, cj]
    active = np.ones(cr.size, dtype=bool)
    for _ in range(200):
        if not active.any():
            break
        mid = 0.5 * (lo + hi)
        with np.errstate(all="ignore"):
            fmid = (net[cr] / (1.0 + mid)[:, None] ** years).sum(axis=1)
        same = np.sign(fmid) == np.sign(flo)
        lo = np.where(active & same, mid, lo)
        flo = np.where(active & same, fmid, flo)
        hi = np.where(active & ~same, mid, hi)
        active &= ~(hi - lo <= 1e-15 * np.maximum(1.0, np.abs(mid)))
    root = 0.5 * (lo + hi)
    guess = np.where(net.sum(axis=1) < 0, -0.5, 0.1)[cr]
    order = np.lexsort((np.abs(root - guess), cr))
    first = np.unique(cr[order], return_index=True)[1]
    out = np.full(len(net), np.nan)
    out[cr[order][first]] = root[order][first]
    return out


def bench_irr(args) -> None:
    from gputco.udfs import decisions, flows, scenario, yearflows

    inputs = evaluate_inputs(args.irr_rows, rent=True)
    used = scenario.used_inputs(inputs)
    out = scenario.evaluate(inputs)
    values = {**used, "opex_usd_per_gpu_hour": out["opex_usd_per_gpu_hour"]}
    net = yearflows.by_period({k: values[k] for k in decisions.CASH_TERMS})["net"]
    rows = np.ascontiguousarray(np.asarray(net).T)  # (the flows held as runs: their table)
    t_new, (new, _) = best_of(lambda: flows.irr(rows), args.repeat)
    t_old, old = best_of(lambda: old_grid_irr(rows), 1)
    both = np.isfinite(new) & np.isfinite(old)
    assert (np.isfinite(new) == np.isfinite(old)).all(), "the two IRRs find roots in other rows"
    worst = float(np.max(np.abs(new[both] - old[both]))) if both.any() else 0.0
    print(
        f"IRR of {len(rows):,} rows x {rows.shape[1]} years: per-row Newton/bisection "
        f"{t_new * 1e3:.1f} ms, grid search over {_OLD_GRID.size} rates {t_old * 1e3:.1f} ms, "
        f"ratio {t_old / t_new:,.0f}x (largest difference {worst:.1e})"
    )


# --- 4. gputco batch, with and without a rent --------------------------------------------------


def make_input(path: Path, rows: int, rent: bool, seed: int = 11) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    writer = None
    for start in range(0, rows, 1_000_000):
        n = min(1_000_000, rows - start)
        inputs = evaluate_inputs(n, rent, seed + start)
        system = inputs.pop("system")
        cols = {"system": pa.array(np.asarray(SYSTEMS)[system.codes])}
        table = pa.table({**cols, **inputs})
        if writer is None:
            writer = pq.ParquetWriter(path, table.schema)
        writer.write_table(table)
    writer.close()


def run_batch(src: Path, dst: Path) -> tuple[float, float]:
    """Seconds and peak RSS (MiB) of one `gputco batch` child process (its own rusage)."""
    dst.unlink(missing_ok=True)
    t0 = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-m", "gputco.addin.cli", "batch", str(src), "-o", str(dst)])
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"gputco batch failed on {src}")
    return seconds, usage.ru_maxrss / 1024


def bench_batch(args) -> None:
    d = Path(args.dir)
    d.mkdir(parents=True, exist_ok=True)
    n = args.batch_rows
    plain, rented = d / f"plain-{n}.parquet", d / f"rent-{n}.parquet"
    for path, rent in ((plain, False), (rented, True)):
        if not path.exists():
            make_input(path, n, rent)
    t0, m0 = run_batch(plain, d / "plain-out.parquet")
    t1, m1 = run_batch(rented, d / "rent-out.parquet")
    print(f"gputco batch, {n:,} Parquet rows without a rent: {t0:.2f} s, peak {m0:,.0f} MiB")
    print(f"same rows with a rent, tax and decline: {t1:.2f} s, peak {m1:,.0f} MiB")
    print(f"ratio time with a rent / without: {t1 / t0:.2f}x")
    print(f"target with a rent < 2x the time without: {'met' if t1 < 2 * t0 else 'NOT met'}")
    print(f"target peak < 1 GB: {'met' if max(m0, m1) < 1024 else 'NOT met'}")
    if args.big:
        big = d / f"rent-{args.big_rows}.parquet"
        if not big.exists():
            make_input(big, args.big_rows, True)
        t, m = run_batch(big, d / "big-out.parquet")
        print(f"gputco batch, {args.big_rows:,} Parquet rows with rents: {t:.1f} s, peak {m:,.0f} MiB")
        print(f"target peak < 1.5 GB: {'met' if m < 1.5 * 1024 else 'NOT met'}")
        (d / "big-out.parquet").unlink(missing_ok=True)


def main() -> None:
    if len(sys.argv) == 5 and sys.argv[1] == "--child-evaluate":
        child_evaluate(int(sys.argv[2]), sys.argv[4] == "1", int(sys.argv[3]))
        return
    if len(sys.argv) == 6 and sys.argv[1] == "--child-against":
        child_against(int(sys.argv[2]), sys.argv[4] == "1", int(sys.argv[3]), sys.argv[5])
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--loop-sample", type=int, default=20_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--irr-rows", type=int, default=20_000)
    ap.add_argument("--batch-rows", type=int, default=1_000_000)
    ap.add_argument("--big", action="store_true", help="also gputco batch of --big-rows rows with rents")
    ap.add_argument("--big-rows", type=int, default=10_000_000)
    ap.add_argument("--dir", default="/tmp/gputco-bench-model")
    ap.add_argument("--only", choices=("chain", "evaluate", "irr", "batch"))
    ap.add_argument(
        "--against",
        metavar="COMMIT",
        help="only: evaluate beside COMMIT's udfs/, alternately in one process, on one thread",
    )
    ap.add_argument("--rent", action="store_true", help="with --against: the scenarios give a rent")
    args = ap.parse_args()
    if args.against:
        bench_against(args)
        return
    parts = {"chain": bench_chain, "evaluate": bench_evaluate, "irr": bench_irr, "batch": bench_batch}
    for name, part in parts.items():
        if args.only in (None, name):
            part(args)


if __name__ == "__main__":
    main()
