"""Benchmark: the cluster as a financed project, by month with debt, beside the yearly model.

--n scenarios (default 1,000,000) of random GPUs (capex, rent, opex, life 4..6 years, availability,
utilisation, tax) through :func:`gputco.udfs.project.results` (every result: NPV, IRR, payback,
equity IRR and NPV, min DSCR, peak funding), each case in a fresh child process on one core
(GPUTCO_THREADS=1; then month+debt again on every core, the default of project.results), called
--repeat times (the best is shown, with the first call's time beside it):

- ``yearly``: today's model (end-of-year flows, no build, no debt);
- ``month+debt``: by month, 60% debt at 9% over 4 years, a 12-month build, a 3-month ramp,
  MACRS 5-year, 21% tax;
- ``month+sculpted``: the same debt sculpted (service = CFADS / one cover; issue 40), its
  throughput beside month+debt's (target: >= 0.5x);
- ``month+waterfall``: sculpted with a 6-month debt service reserve and a 50% cash sweep (issue
  40's waterfall), its throughput beside month+debt's (target: >= 0.5x).

It prints scenarios per second, the peak RSS of each child (its own ru_maxrss) and the ratios of the
two (wall and CPU time), measured side by side in one run (target: >= 0.5 M scenarios/s by month with debt, bounded
memory). The machine's load moves every timing: read the ratio before the absolute rates.

    python benchmarks/bench_project.py [--n 1000000] [--only yearly|month+debt] [--repeat 3]
    python benchmarks/bench_project.py --against COMMIT [--n 200000] [--repeat 6]   # before/after

``--against COMMIT``: each case's ``project.results`` of this checkout and of COMMIT's udfs/ called
alternately in one child process on one thread (benchmarks/then_now.py): the ratio of the two on
the same machine state, the fairest before/after on a virtual machine whose speed drifts.
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

for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, "1")

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from project_draws import MONTH_DEBT  # the financed case the threads test runs too

CASES = {
    "yearly": {},
    "month+debt": MONTH_DEBT,
    "month+sculpted": {**MONTH_DEBT, "debt_repayment": "sculpted"},
    "month+waterfall": {**MONTH_DEBT, "debt_repayment": "sculpted", "dsra_months": 6, "sweep_fraction": 0.5},
}


def scenarios(n: int, seed: int = 11) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {
        "capex_per_gpu": rng.uniform(25_000, 60_000, n),
        "rent_usd_per_gpu_hour": rng.uniform(2.0, 5.0, n),
        "opex_usd_per_gpu_hour": rng.uniform(0.3, 0.7, n),
        "life_years": rng.integers(4, 7, n).astype(float),
        "availability": rng.uniform(0.85, 1.0, n),
        "utilisation": rng.uniform(0.6, 1.0, n),
        "tax_rate": np.full(n, 0.21),
        "cost_of_capital": rng.uniform(0.08, 0.15, n),
        "rent_decline_per_year": rng.uniform(0.0, 0.15, n),
    }


def child(case: str, n: int, repeat: int) -> None:
    from gputco.udfs import project

    values = {**scenarios(n), **CASES[case]}
    runs = []
    for _ in range(repeat):
        start, cpu = time.perf_counter(), time.process_time()
        out = project.results(values)
        runs.append((time.perf_counter() - start, time.process_time() - cpu))
        del out
    seconds, cpu = min(runs)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    found = float(np.isfinite(project.results(values, (project.PROJECT_IRR,))[project.PROJECT_IRR]).mean())
    print(
        json.dumps(
            {"seconds": seconds, "cpu": cpu, "first": runs[0][0], "peak_mib": peak, "irr_found": found}
        )
    )


def child_against(case: str, folder: str, n: int, repeat: int) -> None:
    from then_now import alternate, then_module

    from gputco.udfs import project as now

    then = then_module(folder, "project")
    values = {**scenarios(n), **CASES[case]}
    # (the compiled kernels loaded: a call of batch size, udfs/_jit.py's COMPILE_FROM)
    now.results({k: v[:20_000] if isinstance(v, np.ndarray) else v for k, v in values.items()})
    runs = alternate({"then": lambda: then.results(values), "now": lambda: now.results(values)}, repeat)
    print(json.dumps(runs))


def against(commit: str, n: int, repeat: int) -> None:
    from then_now import extracted, report

    with extracted(commit) as folder:
        for case in ("yearly", "month+debt"):  # the cases every commit has (a before and an after)
            proc = subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--child-against",
                    case,
                    folder,
                    "--n",
                    str(n),
                    "--repeat",
                    str(repeat),
                ],
                capture_output=True,
                text=True,
                check=True,
                env={**os.environ, "GPUTCO_THREADS": "1"},
            )
            report(json.loads(proc.stdout.strip().splitlines()[-1]), commit, n, f"project.results, {case}")


def run(case: str, n: int, repeat: int, threads: int = 1) -> dict:
    """One case in a child process, its chunks on ``threads`` threads (GPUTCO_THREADS)."""
    proc = subprocess.run(
        [sys.executable, __file__, "--child", case, "--n", str(n), "--repeat", str(repeat)],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "GPUTCO_THREADS": str(threads)},
    )
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--only", choices=list(CASES))
    ap.add_argument("--repeat", type=int, default=3, help="calls per case in its process; the best is shown")
    ap.add_argument("--against", metavar="COMMIT", help="before/after: COMMIT's udfs/ beside this checkout's")
    ap.add_argument("--child", choices=list(CASES), help=argparse.SUPPRESS)
    ap.add_argument("--child-against", nargs=2, metavar=("CASE", "FOLDER"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child, args.n, args.repeat)
        return
    if args.child_against:
        child_against(*args.child_against, args.n, args.repeat)
        return
    if args.against:
        against(args.against, args.n, args.repeat)
        return
    got = {}
    for case in [args.only] if args.only else list(CASES):
        r = got[case] = run(case, args.n, args.repeat)
        print(
            f"{case:>14}: {args.n:,} scenarios in {r['seconds']:.2f} s ({args.n / r['seconds']:,.0f}/s; "
            f"CPU {r['cpu']:.2f} s; best of {args.repeat}, the first {r['first']:.2f} s), "
            f"peak RSS {r['peak_mib']:,.0f} MiB, IRR found {r['irr_found']:.1%} (one thread)"
        )
    for shaped in ("month+sculpted", "month+waterfall"):  # debt shapes against level debt
        if shaped in got and "month+debt" in got:
            slow, level = got[shaped], got["month+debt"]
            print(
                f"{shaped} / month+debt throughput: {level['seconds'] / slow['seconds']:.2f}x wall, "
                f"{level['cpu'] / slow['cpu']:.2f}x CPU (target >= 0.5x)"
            )
    if "month+debt" in got and "yearly" in got:
        month, year = got["month+debt"], got["yearly"]
        print(
            f"month+debt / yearly time: {month['seconds'] / year['seconds']:.1f}x wall, "
            f"{month['cpu'] / year['cpu']:.1f}x CPU; month+debt {args.n / month['seconds'] / 1e6:.2f} M/s wall, "
            f"{args.n / month['cpu'] / 1e6:.2f} M/s CPU on one core (target >= 0.5 M/s)"
        )
    from gputco.udfs._parallel import threads

    cores = threads()
    if cores > 1 and "month+debt" in got:
        many = run("month+debt", args.n, args.repeat, cores)
        one = got["month+debt"]
        print(
            f" month+debt on {cores} threads (GPUTCO_THREADS={cores}, the default): {many['seconds']:.2f} s "
            f"({args.n / many['seconds']:,.0f}/s), peak RSS {many['peak_mib']:,.0f} MiB; "
            f"{one['seconds'] / many['seconds']:.2f}x the one-thread rate"
        )


if __name__ == "__main__":
    main()
