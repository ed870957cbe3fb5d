"""Benchmark: `gputco batch` through the full chain, Parquet in and out, plus CSV throughput.

Targets: 10,000,000 scenarios Parquet -> Parquet in under 20 s with peak memory under
1 GB; the model alone over 5,000,000 scenarios/s. Each measurement runs `gputco batch` in a fresh
process, so its peak RSS is its own (ru_maxrss of the child).

The .xlsx output: the same 200,000-row results table written by the streaming
writer (workbook/xlsx/stream.py, what `gputco batch` uses) and by the openpyxl write-only path
it replaced (kept here, in the benchmark only), side by side; target >= 5x.

    python benchmarks/bench_batch.py [--rows 10000000] [--csv-rows 1000000] [--xlsx-rows 200000]
                                     [--dir /tmp/gputco-bench] [--only-xlsx]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pcsv
import pyarrow.parquet as pq


def make_input(path: Path, rows: int, fmt: str, seed: int = 11) -> None:
    rng = np.random.default_rng(seed)
    chunk = 1_000_000
    writer = None
    systems = pa.array(["H100_HGX", "GB200_NVL72", "H200_HGX", "B200_HGX"])
    buyers = pa.array(["hyperscaler", "neocloud_giant", "emerging_neocloud"])
    for start in range(0, rows, chunk):
        n = min(chunk, rows - start)
        table = pa.table(
            {
                "system": systems.take(pa.array(rng.integers(0, 4, n))),
                "buyer": buyers.take(pa.array(rng.integers(0, 3, n))),
                "precision": pa.array(np.where(rng.random(n) < 0.5, "bf16", "fp8")),
                "mfu": rng.uniform(0.25, 0.6, n),
                "usd_per_kwh": rng.uniform(0.04, 0.15, n),
                "pue": rng.uniform(1.1, 1.5, n),
                "cost_of_capital": rng.uniform(0.06, 0.2, n),
            }
        )
        if writer is None:
            writer = (
                pq.ParquetWriter(path, table.schema)
                if fmt == "parquet"
                else pcsv.CSVWriter(path, table.schema)
            )
        writer.write_table(table)
    writer.close()


def run(src: Path, dst: Path) -> tuple[float, float]:
    """Seconds and peak RSS (MiB) of one `gputco batch` child process (its own rusage)."""
    dst.unlink(missing_ok=True)
    t0 = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, "-m", "gputco.addin.cli", "batch", str(src), "-o", str(dst)],
        cwd=Path(__file__).resolve().parents[1],
    )
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"gputco batch failed on {src}")
    return seconds, usage.ru_maxrss / 1024


def old_openpyxl_xlsx(table: pa.Table, path: Path) -> None:
    """The .xlsx writer `gputco batch` had before its streaming writer (openpyxl write-only, one cell
    object per value), kept only to measure the new one against."""
    from openpyxl import Workbook
    from openpyxl.cell import WriteOnlyCell

    from gputco.workbook.xlsx.cells import looks_like_formula

    wb = Workbook(write_only=True)
    ws = wb.create_sheet("results")
    ws.append(table.column_names)
    for batch in table.to_batches(max_chunksize=500_000):
        cols = [c.to_pylist() for c in batch.columns]
        for row in zip(*cols, strict=True):
            cells = []
            for v in row:
                if isinstance(v, str) and looks_like_formula(v):
                    cell = WriteOnlyCell(ws, value=v)
                    cell.data_type = "s"
                    v = cell
                cells.append(v)
            ws.append(cells)
    wb.save(path)


def new_stream_xlsx(table: pa.Table, path: Path) -> None:
    """What `gputco batch` writes now: workbook/xlsx/stream.py."""
    from gputco.workbook.xlsx.stream import XlsxStream

    with XlsxStream(path) as book:
        sheet = book.sheet("results", header=table.column_names)
        for batch in table.to_batches(max_chunksize=50_000):
            sheet.write_columns(batch.columns)


def bench_xlsx(d: Path, rows: int) -> None:
    """Old and new .xlsx writers on the same results table, timed side by side."""
    from gputco.workbook.batch.run import evaluate_chunk, plan_columns, read_chunks
    from gputco.workbook.batch.validate import Problems, check_chunk

    src = d / f"in-{rows}.csv"
    if not src.exists():
        make_input(src, rows, "csv")
    (chunk,) = read_chunks(src, "csv", rows)
    plan = plan_columns(chunk.table.column_names)
    table = evaluate_chunk(chunk, *plan, check_chunk(chunk.table, chunk.rows, plan[0], Problems()))
    print(f"xlsx output: {rows:,} rows x {table.num_columns} columns (inputs, values used, results)")
    times = {}
    for name, write in (("old openpyxl", old_openpyxl_xlsx), ("new stream", new_stream_xlsx)):
        out = d / f"out-{name.split()[0]}.xlsx"
        out.unlink(missing_ok=True)
        t0 = time.perf_counter()
        write(table, out)
        times[name] = time.perf_counter() - t0
        print(f"  {name:>12}: {times[name]:6.2f} s  ({out.stat().st_size / 2**20:,.0f} MiB)")
    print(f"  speed-up: {times['old openpyxl'] / times['new stream']:.1f}x (target >= 5x)")
    t, mib = run(src, d / "out-cli.xlsx")
    print(f"  gputco batch csv -> xlsx end to end: {t:.2f} s, peak RSS {mib:,.0f} MiB")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--csv-rows", type=int, default=1_000_000)
    ap.add_argument("--xlsx-rows", type=int, default=200_000)
    ap.add_argument("--dir", default="/tmp/gputco-bench")
    ap.add_argument("--only-xlsx", action="store_true", help="run the .xlsx comparison only")
    args = ap.parse_args()
    d = Path(args.dir)
    d.mkdir(parents=True, exist_ok=True)
    bench_xlsx(d, args.xlsx_rows)
    if args.only_xlsx:
        return

    pin, csvin = d / f"in-{args.rows}.parquet", d / f"in-{args.csv_rows}.csv"
    if not pin.exists():
        make_input(pin, args.rows, "parquet")
    if not csvin.exists():
        make_input(csvin, args.csv_rows, "csv")

    t, mib = run(pin, d / "out.parquet")
    print(
        f"parquet -> parquet: {args.rows:,} scenarios in {t:.2f} s = {args.rows / t:,.0f}/s, "
        f"peak RSS {mib:,.0f} MiB (targets: < 20 s, < 1024 MiB)"
    )
    t2, mib2 = run(csvin, d / "out.csv")
    print(
        f"csv -> csv:         {args.csv_rows:,} scenarios in {t2:.2f} s = "
        f"{args.csv_rows / t2:,.0f}/s, peak RSS {mib2:,.0f} MiB"
    )
    print(f"ratio parquet/csv throughput: {(args.rows / t) / (args.csv_rows / t2):.1f}x")
    out = pq.ParquetFile(d / "out.parquet")
    print(f"output rows: {out.metadata.num_rows:,}, columns: {out.metadata.num_columns}")


if __name__ == "__main__":
    main()
