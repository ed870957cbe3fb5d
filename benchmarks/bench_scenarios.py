"""Benchmark: writing a 10,000-scenario workbook, and recalculating it with gputco vs LibreOffice.

The SPEC: system 4 x mfu 5 x usd_per_kwh 5 x cost_of_capital 5 x life_years 4 x pue 5 = 10,000
scenarios (``--scale`` multiplies the mfu list), the default sensitivity and 1,000 Monte Carlo
draws. Printed side by side, medians of ``--repeat`` runs:

- ``gputco scenarios`` end to end (validate, build with openpyxl, evaluate, write the rows with
  their values, write atomically), with its stages;
- recalculation of the same finished file by gputco's engine (``recalc_file``: every formula is
  evaluated, cached values are never trusted) and by LibreOffice headless with a profile that
  forces a full recalculation on load (``gputco.workbook.soffice.process.convert``); the ratio
  gputco / LibreOffice (target <= 0.5);
- whether both give the same values (1e-9 relative) on every formula cell, except the TCO_ cells
  and those computed from them: LibreOffice has no TCO_ functions yet (#NAME?).

    python benchmarks/bench_scenarios.py [--repeat 3] [--scale 1] [--no-libreoffice]
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gputco.addin.threads import single_threaded_libraries

single_threaded_libraries()  # as the command line does, before numpy and pyarrow load

import openpyxl
from side_by_side import against_libreoffice, gputco_runs, times_text

from gputco.workbook.scenarios.build import write_scenarios
from gputco.workbook.scenarios.spec import parse_spec

#: Scenarios columns that hold TCO_ functions or depend on them (and Summary's check cells)
UDF_KEYS = {"tco_udf", "tco_udf_diff", "usd_per_mtok_udf", "usd_per_mtok_udf_diff"}


def spec_dict(scale: int = 1) -> dict:
    mfu = [round(0.30 + 0.05 * i / scale, 6) for i in range(5 * scale)]
    return {
        "grid": {
            "system": ["H100_HGX", "GB200_NVL72", "B200_HGX", "H200_HGX"],
            "mfu": mfu,
            "usd_per_kwh": [0.05, 0.07, 0.09, 0.11, 0.13],
            "cost_of_capital": [0.08, 0.10, 0.12, 0.14, 0.16],
            "life_years": [3, 4, 5, 6],
            "pue": [1.15, 1.2, 1.3, 1.4, 1.5],
        },
        "fixed": {"model": "gpt3_175b", "precision": "bf16"},
        "monte_carlo": {
            "draws": 1000,
            "seed": 1,
            "mfu": {"dist": "triangular", "low": 0.35, "mode": 0.45, "high": 0.55},
            "usd_per_kwh": {"dist": "uniform", "low": 0.05, "high": 0.12},
        },
    }


def compared_values(path: Path) -> dict:
    """Every formula cell's value outside the TCO_ columns and Summary's check block."""
    formulas = openpyxl.load_workbook(path, read_only=True)
    values = openpyxl.load_workbook(path, read_only=True, data_only=True)
    out = {}
    for ws in formulas.worksheets:
        vs = values[ws.title]
        skip = set()
        rows_f = ws.iter_rows(values_only=True)
        rows_v = vs.iter_rows(values_only=True)
        for r, (fr, vr) in enumerate(zip(rows_f, rows_v, strict=False), start=1):
            if ws.title in ("Scenarios", "MonteCarlo", "Sensitivity"):
                skip |= {c for c, v in enumerate(fr) if v in UDF_KEYS}
            for c, (f, v) in enumerate(zip(fr, vr, strict=False)):
                if not (isinstance(f, str) and f.startswith("=")) or c in skip:
                    continue
                if "chk_" in f or "udf" in f.lower():
                    continue
                out[(ws.title, r, c)] = v
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--scale", type=int, default=1, help="multiply the grid by this")
    parser.add_argument("--no-libreoffice", action="store_true")
    args = parser.parse_args()
    spec = parse_spec(spec_dict(args.scale))
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        out = tmp / "scenarios.xlsx"
        total, build, recalc = [], [], []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            result = write_scenarios(parse_spec(spec_dict(args.scale)), out, force=True)
            total.append(time.perf_counter() - t0)
            build.append(result.build_seconds)
            recalc.append(result.recalc_seconds)
        size = out.stat().st_size / 1e6
        print(
            f"workbook: {spec.n_scenarios:,} scenarios + {spec.monte_carlo.draws:,} Monte Carlo "
            f"draws, {result.recalc_report.cells:,} formula cells, {size:.1f} MB"
        )
        print(
            f"gputco scenarios, end to end: {times_text(total)}; openpyxl build "
            f"{statistics.median(build):.2f} s, rows with values "
            f"{statistics.median(recalc):.2f} s"
        )
        ours, _ = gputco_runs(out, tmp, args.repeat)
        labels = ("recalc, gputco engine:        ", "recalc, LibreOffice headless: ", "recalc, LibreOffice")
        lo_file = against_libreoffice(out, tmp, ours, args.repeat, args.no_libreoffice, labels)
        if lo_file is None:
            return
        a, b = compared_values(tmp / "ours-0.xlsx"), compared_values(lo_file)
        bad = [
            k
            for k in a
            if not (
                a[k] == b.get(k)
                or (
                    isinstance(a[k], float)
                    and isinstance(b.get(k), int | float)
                    and math.isclose(a[k], b[k], rel_tol=1e-9, abs_tol=1e-12)
                )
            )
        ]
        print(
            f"values: {len(a) - len(bad):,} of {len(a):,} formula cells equal (1e-9 relative; "
            "TCO_ cells left out: a plain LibreOffice has no TCO_ functions; with the add-in "
            "see tests/test_scenarios_lo.py)"
        )
        for k in bad[:10]:
            print(f"  differs: {k}: gputco {a[k]!r}, LibreOffice {b.get(k)!r}")


if __name__ == "__main__":
    main()
