"""Benchmark: one parse per line of formulas (workbook/recalc/formula/lines.py) on and off, side by side.

A monthly scenario workbook writes each period of a line in a column of its own; the formulas of
a line differ only in the period's number and the absolute columns they read, so each period
had its own R1C1 key and its own parse. With the line templates on, a line is parsed once and
each period's tree, references and shared parts are the template's with its own values.

This writes a financed scenario SPEC of tests/test_scenarios_project.py (default
``month_debt_macrs7``: five systems zipped with drawn terms, by month, debt 60% over 4 years,
MACRS 7, a tornado of two project drivers and 20 Monte Carlo draws) with the templates on and
off, alternately ``--repeat`` times in one process, and prints both medians, their ratio and the
parts of the two files whose bytes differ (must be none: the same formulas and the same cached
values; docProps/core.xml holds the time of writing and is left out):

    python benchmarks/bench_lines.py [--spec month_debt_macrs7] [--repeat 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from gputco.addin.threads import single_threaded_libraries

single_threaded_libraries()  # as the command line does, before numpy loads

from test_scenarios_project import SPECS

from gputco.workbook.recalc.run.compile import Compiler
from gputco.workbook.scenarios.build import write_scenarios
from gputco.workbook.scenarios.spec import parse_spec

ON = Compiler._from_line


def _off(self, *args):
    return None


def _parts(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as z:
        return {n: z.read(n) for n in z.namelist() if n != "docProps/core.xml"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", default="month_debt_macrs7", choices=sorted(SPECS))
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    times: dict[str, list[float]] = {"on": [], "off": []}
    written = {}
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.repeat):
            for mode in ("on", "off"):
                Compiler._from_line = ON if mode == "on" else _off
                path = Path(tmp) / f"{mode}{i}.xlsx"
                t = time.perf_counter()
                write_scenarios(parse_spec(SPECS[args.spec]), path)
                times[mode].append(time.perf_counter() - t)
                written.setdefault(mode, path)
        Compiler._from_line = ON
        on, off = _parts(written["on"]), _parts(written["off"])
    moved = sorted(n for n in on.keys() | off.keys() if on.get(n) != off.get(n))
    a, b = statistics.median(times["on"]), statistics.median(times["off"])
    runs = ", ".join(f"{x:.2f}" for x in times["on"])
    print(f"scenario workbook {args.spec} (tests/test_scenarios_project.py), {len(on)} parts")
    print(f"  write  templates on {a:6.2f} s  off {b:6.2f} s  off/on {b / a:4.2f}x  (on: {runs})")
    print(f"  parts whose bytes differ on/off: {len(moved)} {moved[:5]}")
    sys.exit(1 if moved else 0)


if __name__ == "__main__":
    main()
