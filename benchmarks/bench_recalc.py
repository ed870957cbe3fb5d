"""Benchmark: gputco's headless recalculation vs LibreOffice headless on the same scenario file.

Builds a scenario workbook of ``--rows`` rows (default 10,000) x 10 TCO-like formulas (PMT,
arithmetic, INDEX/MATCH and VLOOKUP into a small table, cross-sheet inputs through absolute
references; tests/recalc_book.tco_book), then times, median of ``--repeat`` runs:

- gputco: ``recalc_file`` end to end (open the zip, parse, evaluate, write the values back);
- LibreOffice 7.x: ``soffice --headless --convert-to xlsx`` with a profile that forces a full
  recalculation (load, recalculate, save), as gputco.workbook.soffice runs it.

and checks that gputco and LibreOffice produce the same values (1e-9 relative). Target: gputco
at most half of LibreOffice's time.

    python benchmarks/bench_recalc.py [--rows 10000] [--repeat 3] [--no-libreoffice]
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from gputco.addin.threads import single_threaded_libraries

single_threaded_libraries()  # as the command line does, before numpy and pyarrow load

from recalc_book import tco_book
from side_by_side import against_libreoffice, gputco_runs


def _values(path: Path) -> dict:
    import openpyxl

    ws = openpyxl.load_workbook(path, data_only=True, read_only=True)["Scenarios"]
    return {
        (r, c): v
        for r, row in enumerate(ws.iter_rows(min_row=2, min_col=6, max_col=15, values_only=True))
        for c, v in enumerate(row)
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-libreoffice", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        t0 = time.perf_counter()
        src = tco_book(tmp / "scenarios.xlsx", args.rows)
        build = time.perf_counter() - t0
        ours, report = gputco_runs(src, tmp, args.repeat, functions={})
        print(
            f"workbook: {args.rows:,} rows x 10 formulas = {report.cells:,} formula cells "
            f"(openpyxl build {build:.1f} s); {report.groups} groups"
        )
        labels = ("gputco recalc_file:               ", "LibreOffice headless:             ", "LibreOffice")
        lo_file = against_libreoffice(src, tmp, ours, args.repeat, args.no_libreoffice, labels)
        if lo_file is None:
            return
        a, b = _values(tmp / "ours-0.xlsx"), _values(lo_file)
        bad = [k for k in b if not math.isclose(a[k], b[k], rel_tol=1e-9, abs_tol=1e-12)]
        print(f"values: {len(b) - len(bad):,} of {len(b):,} cells equal (1e-9 relative)")


if __name__ == "__main__":
    main()
