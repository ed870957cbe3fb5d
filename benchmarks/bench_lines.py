"""Benchmark: one parse per line of formulas (workbook/recalc/formula/lines.py) on and off, side by side.

A monthly scenario workbook writes each period of a line in a column of its own; the formulas of
a line differ only in the period's number and the absolute columns they read, so each period
had its own R1C1 key and its own parse. With the line templates on, a line is parsed once and
each period's tree, references and shared parts are the template's with its own values.

This writes a financed scenario SPEC by month (``--systems`` systems zipped, debt 60% over 4
years, MACRS 7, a tornado of two project drivers and 20 Monte Carlo draws: the structure of
tests/test_scenarios_project.py's ``month_debt_macrs7``) with the templates on and off, alternately ``--repeat`` times in one
process, and prints both medians, their ratio and the cells whose written values differ between
the two (must be 0):

    python benchmarks/bench_lines.py [--systems H100_HGX,GB200_NVL72,B200_HGX,H200_HGX,MI300X] [--repeat 3]
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
import openpyxl

from gputco.workbook.recalc.run.compile import Compiler
from gputco.workbook.scenarios.build import write_scenarios
from gputco.workbook.scenarios.spec import parse_spec

ON = Compiler._from_line


def _off(self, *args):
    return None


def _bits(v: object) -> object:
    return np.float64(v).tobytes() if type(v) is float else (type(v), v)


def _cached(path: Path) -> dict[tuple[str, str], object]:
    """The values the workbook was written with (what a user sees before any recalculation)."""
    wb = openpyxl.load_workbook(path, data_only=True, read_only=True)
    return {
        (ws.title, c.coordinate): c.value
        for ws in wb.worksheets
        for row in ws.iter_rows()
        for c in row
        if c.value is not None
    }


GRID = (
    "system",
    "gpus",
    "rent_usd_per_gpu_hour",
    "build_months",
    "ramp_months",
    "contracted_fraction",
    "contract_rent_usd_per_gpu_hour",
    "contract_years",
)


def spec(systems: list[str]) -> dict:
    """The SPEC: one row per system, each with its own rent (USD per GPU-hour), build and ramp
    (months) and contract; illustrative values, not sourced figures."""
    n = len(systems)
    return {
        "grid": {
            "system": systems,
            "gpus": [1024 + 512 * i for i in range(n)],
            "rent_usd_per_gpu_hour": [2.0 + 0.25 * i for i in range(n)],
            "build_months": [3 * (i % 3) for i in range(n)],
            "ramp_months": [2 * (i % 2) for i in range(n)],
            "contracted_fraction": [0.2 * (i % 5) for i in range(n)],
            "contract_rent_usd_per_gpu_hour": [1.8 + 0.2 * i for i in range(n)],
            "contract_years": [1 + i % 4 for i in range(n)],
            "zip": [list(GRID)],
        },
        "fixed": {
            "buyer": "hyperscaler",
            "periods": "month",
            "mfu": 0.5,
            "depreciation_method": "macrs_7",
            "life_years": 6,
            "debt_fraction": 0.6,
            "debt_rate": 0.09,
            "debt_years": 4,
            "cost_of_equity": 0.2,
            "tax_rate": 0.25,
        },
        "sensitivity": {"inputs": ["debt_rate", "maintenance_fraction_per_year"], "swing": 0.3},
        "monte_carlo": {
            "draws": 20,
            "seed": 5,
            "debt_fraction": {"dist": "uniform", "low": 0.3, "high": 0.7},
            "contracted_fraction": {"dist": "triangular", "low": 0.0, "mode": 0.5, "high": 1.0},
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", default="H100_HGX,GB200_NVL72,B200_HGX,H200_HGX,MI300X")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    systems = args.systems.split(",")
    times: dict[str, list[float]] = {"on": [], "off": []}
    values = {}
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.repeat):
            for mode in ("on", "off"):
                Compiler._from_line = ON if mode == "on" else _off
                path = Path(tmp) / f"{mode}{i}.xlsx"
                t = time.perf_counter()
                write_scenarios(parse_spec(spec(systems)), path)
                times[mode].append(time.perf_counter() - t)
                if i == 0:
                    values[mode] = _cached(path)
        Compiler._from_line = ON
        on, off = values["on"], values["off"]
        moved = [k for k in on if _bits(on[k]) != _bits(off[k])] + sorted(on.keys() ^ off.keys())
    print(
        f"scenario workbook by month with debt, {len(systems)} systems zipped: {len(on):,} cells with values"
    )
    a, b = statistics.median(times["on"]), statistics.median(times["off"])
    runs = ", ".join(f"{x:.2f}" for x in times["on"])
    print(f"  write  templates on {a:6.2f} s  off {b:6.2f} s  off/on {b / a:4.2f}x  (on: {runs})")
    print(f"  cells that differ on/off: {len(moved)}")
    sys.exit(1 if moved else 0)


if __name__ == "__main__":
    main()
