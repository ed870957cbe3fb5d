"""Benchmark: `gputco template` for the default workbook (H100_HGX vs GB200_NVL72, hyperscaler).

Times the two stages separately (build = openpyxl sheets + save; recalc = the headless engine
filling every cached value) and end to end through ``write_template`` (atomic write included),
median of ``--repeat`` runs. Target: generation + recalculation < 3 s.
With ``--libreoffice`` it also times LibreOffice's forced full recalculation of the same file,
for comparison.

    python benchmarks/bench_template.py [--repeat 5] [--libreoffice]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from gputco.workbook.finance.build import build_workbook, fill_cached_values, write_template

TARGET_SECONDS = 3.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--libreoffice",
        action="store_true",
        help="also time LibreOffice's full recalculation of the same file",
    )
    args = parser.parse_args()

    build, recalc, total = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.repeat):
            path = Path(tmp) / f"stages-{i}.xlsx"
            t0 = time.perf_counter()
            build_workbook().save(path)
            t1 = time.perf_counter()
            fill_cached_values(path)
            t2 = time.perf_counter()
            build.append(t1 - t0)
            recalc.append(t2 - t1)
            t0 = time.perf_counter()
            write_template(Path(tmp) / f"gpu-tco-{i}.xlsx")
            total.append(time.perf_counter() - t0)
        lo = None
        if args.libreoffice:
            from gputco.workbook.soffice.process import convert

            t0 = time.perf_counter()
            convert(Path(tmp) / "gpu-tco-0.xlsx", Path(tmp) / "lo", "xlsx")
            lo = time.perf_counter() - t0

    med = statistics.median
    print(f"build (openpyxl, save)     {med(build):6.3f} s   (median of {args.repeat})")
    print(f"recalc (headless engine)   {med(recalc):6.3f} s")
    print(
        f"write_template end to end  {med(total):6.3f} s   target < {TARGET_SECONDS:.0f} s: "
        f"{'met' if med(total) < TARGET_SECONDS else 'MISSED'}"
    )
    if lo is not None:
        print(f"LibreOffice full recalc    {lo:6.3f} s   (soffice --convert-to xlsx, one run)")


if __name__ == "__main__":
    main()
