"""Benchmark: `gputco batch` through the full chain, Parquet in and out, plus CSV throughput.

Targets: 10,000,000 scenarios Parquet -> Parquet in under 20 s with peak memory under
1 GB; the model alone over 5,000,000 scenarios/s. Each measurement runs `gputco batch` in a fresh
process, so its peak RSS is its own (ru_maxrss of the child).

The .xlsx output: the same 200,000-row results table written by the streaming
writer (workbook/xlsx/stream.py, what `gputco batch` uses) and by the openpyxl write-only path
it replaced (kept here, in the benchmark only), side by side; target >= 5x.

The CSV output: the same results table written by pyarrow's CSVWriter on an Arrow table (what
`gputco batch` ran before), by gputco's CsvWriter with pyarrow and without it (the core install's
standard-library writer), side by side, then `gputco batch` CSV -> CSV with and without pyarrow.

    python benchmarks/bench_batch.py [--rows 10000000] [--csv-rows 1000000] [--xlsx-rows 200000]
                                     [--csv-writer-rows 200000] [--dir /tmp/gputco-bench]
                                     [--only-xlsx] [--only-csv]
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


def new_stream_xlsx(table, path: Path) -> None:
    """What `gputco batch` writes now: workbook/xlsx/stream.py (numpy columns, 50,000 rows a block)."""
    from gputco.workbook.xlsx.stream import XlsxStream

    with XlsxStream(path) as book:
        sheet = book.sheet("results", header=table.column_names)
        for start in range(0, table.num_rows, 50_000):
            sheet.write_columns(table.slice(start, start + 50_000).columns)


def results_table(d: Path, rows: int):
    """The results table `gputco batch` writes for ``rows`` random scenarios (numpy columns)."""
    from gputco.workbook.batch.run import evaluate_chunk, plan_columns, read_chunks
    from gputco.workbook.batch.validate import Problems, check_chunk

    src = d / f"in-{rows}.csv"
    if not src.exists():
        make_input(src, rows, "csv")
    (chunk,) = read_chunks(src, "csv", rows)
    plan = plan_columns(chunk.table.column_names)
    return src, evaluate_chunk(chunk, *plan, check_chunk(chunk.table, chunk.rows, plan[0], Problems()))


def run_without_pyarrow(src: Path, dst: Path) -> tuple[float, float]:
    """`gputco batch` in a child where pyarrow cannot be imported (as in the core install)."""
    dst.unlink(missing_ok=True)
    code = "import sys; sys.modules['pyarrow'] = None; from gputco.addin.cli import main; sys.exit(main())"
    t0 = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-c", code, "batch", str(src), "-o", str(dst)])
    _, status, usage = os.wait4(child.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"gputco batch without pyarrow failed on {src}")
    return time.perf_counter() - t0, usage.ru_maxrss / 1024


def bench_csv(d: Path, rows: int) -> None:
    """The CSV results writer, side by side: pyarrow's CSVWriter on an Arrow table (what `gputco
    batch` ran before the numpy columns), gputco's CsvWriter with pyarrow (the parquet extra)
    and without it (the core install); then `gputco batch` CSV -> CSV with and without pyarrow."""
    from gputco.workbook.batch.csv_out import CsvWriter
    from gputco.workbook.batch.table import to_arrow

    src = d / f"in-{rows}.csv"
    if not src.exists():
        make_input(src, rows, "csv")
    # the children first: a child forked from a parent that holds the table counts its pages
    t1, m1 = run(src, d / "out-cli.csv")
    t2, m2 = run_without_pyarrow(src, d / "out-cli-core.csv")
    src, table = results_table(d, rows)
    arrow_table = to_arrow(table)
    print(f"CSV output: {rows:,} rows x {table.num_columns} columns")

    def old(path):
        with pcsv.CSVWriter(path, arrow_table.schema) as w:
            w.write_table(arrow_table)

    def new(path, use_arrow):
        w = CsvWriter(path, table.names, use_arrow=use_arrow)
        w.write(table)
        w.close()

    times = {}
    for name, write in (
        ("before: pyarrow CSVWriter", old),
        ("now, with pyarrow", lambda p: new(p, None)),
        ("now, core (stdlib)", lambda p: new(p, False)),
    ):
        out = d / "out-writer.csv"
        best = []
        for _ in range(3):  # the best of three: a shared machine's noise is one-sided
            t0 = time.perf_counter()
            write(out)
            best.append(time.perf_counter() - t0)
        times[name] = min(best)
        print(f"  {name:>26}: {times[name]:6.2f} s  ({out.stat().st_size / 2**20:,.0f} MiB)")
    base = times["before: pyarrow CSVWriter"]
    print(
        f"  ratio to before: with pyarrow {times['now, with pyarrow'] / base:.2f}x, "
        f"core {times['now, core (stdlib)'] / base:.2f}x (time; 1.00 = as fast)"
    )
    print(
        f"  gputco batch csv -> csv end to end: with pyarrow {t1:.2f} s ({m1:,.0f} MiB), "
        f"without {t2:.2f} s ({m2:,.0f} MiB), ratio {t2 / t1:.2f}x"
    )


def bench_xlsx(d: Path, rows: int) -> None:
    """Old and new .xlsx writers on the same results table, timed side by side."""
    from gputco.workbook.batch.table import to_arrow

    src, table = results_table(d, rows)
    print(f"xlsx output: {rows:,} rows x {table.num_columns} columns (inputs, values used, results)")
    times = {}
    for name, write in (("old openpyxl", old_openpyxl_xlsx), ("new stream", new_stream_xlsx)):
        out = d / f"out-{name.split()[0]}.xlsx"
        out.unlink(missing_ok=True)
        t0 = time.perf_counter()
        write(to_arrow(table) if write is old_openpyxl_xlsx else table, out)
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
    ap.add_argument("--only-csv", action="store_true", help="run the CSV writer comparison only")
    ap.add_argument("--csv-writer-rows", type=int, default=200_000)
    args = ap.parse_args()
    d = Path(args.dir)
    d.mkdir(parents=True, exist_ok=True)
    if not args.only_xlsx:
        bench_csv(d, args.csv_writer_rows)
    if args.only_csv:
        return
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
