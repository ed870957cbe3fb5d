"""Benchmark: the engine's one-cell fast path (workbook/recalc/run/scalar.py) on and off, side by side.

A monthly finance workbook lays its periods across columns, so every formula cell is a group of
its own; the fast path computes such a cell in plain Python, the vectorised evaluator is its
reference. This writes the finance workbook by month with debt (60% over 4 years, MACRS 5, the
memo case of docs/project.md) for ``--systems`` systems, then evaluates it with the path on and
off, alternately ``--repeat`` times in one process, and prints both medians, their ratio and the
cells that differ between the two (must be 0), and the same for ``gputco template`` end to end
(build, save, recalculate, write):

    python benchmarks/bench_one_cell.py [--systems GB200_NVL72,H100_HGX] [--repeat 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from gputco.addin.threads import single_threaded_libraries

single_threaded_libraries()  # as the command line does, before numpy loads

import numpy as np

from gputco.udfs import UDFS
from gputco.workbook.finance.build import write_template
from gputco.workbook.recalc import evaluate_workbook
from gputco.workbook.recalc.run.evaluate import Evaluator

INPUTS = {
    "inp_periods": "month",
    "inp_debt_fraction": 0.6,
    "inp_debt_rate": 0.09,
    "inp_debt_years": 4,
    "inp_depreciation_method": "macrs_5",
    "inp_tax_rate": 0.21,
}
ON = Evaluator.scalar


def _off(self, root):
    return None


def _bits(v: object) -> object:
    return np.float64(v).tobytes() if type(v) is float else (type(v), v)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", default="GB200_NVL72,H100_HGX")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    systems = args.systems.split(",")
    times: dict[str, list[float]] = {
        "evaluate on": [],
        "evaluate off": [],
        "template on": [],
        "template off": [],
    }
    values = {}
    with tempfile.TemporaryDirectory() as tmp:
        book = Path(tmp) / "month.xlsx"
        write_template(book, systems, "neocloud_giant", inputs=INPUTS)
        for _ in range(args.repeat):
            for mode in ("on", "off"):
                Evaluator.scalar = ON if mode == "on" else _off
                t = time.perf_counter()
                values[mode] = evaluate_workbook(book, functions=UDFS)
                times[f"evaluate {mode}"].append(time.perf_counter() - t)
                t = time.perf_counter()
                write_template(
                    Path(tmp) / f"t_{mode}.xlsx", systems, "neocloud_giant", inputs=INPUTS, force=True
                )
                times[f"template {mode}"].append(time.perf_counter() - t)
        Evaluator.scalar = ON
    on, off = values["on"], values["off"]
    moved = [k for k in on if _bits(on[k]) != _bits(off[k])]
    print(
        f"finance workbook by month with debt, {len(systems)} systems ({', '.join(systems)}): {len(on):,} formula cells"
    )
    for what in ("evaluate", "template"):
        a, b = statistics.median(times[f"{what} on"]), statistics.median(times[f"{what} off"])
        runs = ", ".join(f"{x:.2f}" for x in times[f"{what} on"])
        print(f"  {what:8s} path on {a:6.2f} s  off {b:6.2f} s  off/on {b / a:4.2f}x  (on: {runs})")
    print(f"  cells that differ on/off: {len(moved)}")
    sys.exit(1 if moved else 0)


if __name__ == "__main__":
    main()
