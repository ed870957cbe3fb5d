"""A long fuzz run: the Hypothesis fuzz tests with many more examples, randomised.

The default test run keeps the fuzz tests short (GPUTCO_FUZZ_EXAMPLES=200 sets the examples of
each fuzz test, see tests/fuzzing.py); this script runs them long and prints the cases run.

    python benchmarks/fuzz.py [--examples 20000] [--only udfs|workbook] [--seed N]

Failures are reported by pytest with the smallest failing example Hypothesis found; it also
stores them in .hypothesis/ so that the next run tries them first.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SUITES = {"udfs": "tests/test_fuzz_udfs.py", "workbook": "tests/test_fuzz_workbook.py"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--examples", type=int, default=20_000, help="GPUTCO_FUZZ_EXAMPLES for the run (default: %(default)s)"
    )
    parser.add_argument("--only", choices=sorted(SUITES), help="run one suite only")
    parser.add_argument("--seed", type=int, help="Hypothesis seed (default: random)")
    args = parser.parse_args()
    env = dict(os.environ, GPUTCO_FUZZ_EXAMPLES=str(args.examples), GPUTCO_FUZZ_RANDOM="1")
    suites = [SUITES[args.only]] if args.only else list(SUITES.values())
    cmd = [sys.executable, "-m", "pytest", "-q", *suites]
    if args.seed is not None:
        cmd.append(f"--hypothesis-seed={args.seed}")
    start = time.perf_counter()
    code = subprocess.call(cmd, cwd=ROOT, env=env)
    print(
        f"fuzz run with GPUTCO_FUZZ_EXAMPLES={args.examples}: {time.perf_counter() - start:.0f} s,"
        f" exit {code}"
    )
    return code


if __name__ == "__main__":
    sys.exit(main())
