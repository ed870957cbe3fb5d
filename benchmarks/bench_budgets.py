"""Benchmark: the safety budgets (docs/safety.md) against the largest legitimate file known, and
every hostile case (tests/hostile.py) timed and measured in a child process.

Part 1, the largest legitimate file: `gputco batch` writes its largest output, one sheet of
1,048,575 scenarios and the header (1,048,576 rows, Excel's limit), then reads it back as input.
Printed: each part's uncompressed bytes and compression ratio, the shared strings, and the two
runs' seconds and peak RSS, each beside the budget it must stay under (ratio: measured / budget).

Part 2, the hostile corpus: each case of ``BOMBS`` and ``SCREENED`` (every door) run by
``gputco`` in a child process with a recorder named soffice first on PATH: seconds, peak RSS
(the child's own, os.wait4), exit code, whether soffice was started, and the refusal.

    python benchmarks/bench_budgets.py [--rows 1048575] [--dir /tmp/gputco-budgets]
                                       [--skip-largest] [--skip-hostile]
"""

from __future__ import annotations

import argparse
import os
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "benchmarks"), str(ROOT / "tests")]


def child(argv: list[str], env: dict | None = None) -> tuple[int, str, float, float]:
    """(exit code, stderr, seconds, peak RSS in MiB) of `gputco ARGV` in a fresh process."""
    from hostile import fresh

    run = fresh(argv, ROOT, env)
    return run.code, run.err, run.seconds, run.rss / 2**20


def largest(d: Path, rows: int) -> None:
    from bench_batch import make_input

    from gputco.workbook.recalc import DEFAULT_LIMITS as L

    src, big = d / f"in-{rows}.parquet", d / f"largest-{rows}.xlsx"
    if not src.exists():
        make_input(src, rows, "parquet")
    big.unlink(missing_ok=True)
    code, err, t, mib = child(["batch", str(src), "-o", str(big)])
    if code:
        raise SystemExit(err)
    print(f"largest batch .xlsx: {rows + 1:,} rows, {big.stat().st_size / 2**20:,.0f} MiB on disk")
    print(f"  written by gputco batch (parquet -> xlsx): {t:.1f} s, peak RSS {mib:,.0f} MiB")
    with zipfile.ZipFile(big) as z:
        infos = z.infolist()
        print(
            f"  parts: {len(infos)} (budget max_members {L.max_members:,}; ratio {len(infos) / L.max_members:.4f})"
        )
        for i in infos:
            ratio = i.file_size / max(i.compress_size, 1)
            print(f"  {i.filename}: {i.file_size:,} bytes, compression {ratio:.1f}:1")
        top = max(infos, key=lambda i: i.file_size)
        print(
            f"  largest part vs max_stream_bytes {L.max_stream_bytes:,}: "
            f"{top.file_size / L.max_stream_bytes:.3f}; worst ratio vs max_ratio {L.max_ratio:g}: "
            f"{max(i.file_size / max(i.compress_size, 1) for i in infos) / L.max_ratio:.4f}"
        )
        names = z.namelist()
        if "xl/sharedStrings.xml" in names:
            n = z.read("xl/sharedStrings.xml").count(b"<si")
            print(f"  shared strings: {n:,} (budget max_strings {L.max_strings:,})")
        else:
            print("  shared strings: none (inline text)")
    back = d / "back.parquet"
    back.unlink(missing_ok=True)
    code, err, t, mib = child(["batch", str(big), "-o", str(back)])
    print(
        f"  read back by gputco batch (xlsx -> parquet): exit {code}, {t:.1f} s, peak RSS {mib:,.0f} MiB"
        + (f"\n  {err.strip()}" if code else "")
    )


def hostile(d: Path) -> None:
    from hostile import BOMBS, SCREENED, soffice_recorder

    recorder, log = soffice_recorder(d)
    env = {**os.environ, "PATH": f"{recorder}:{os.environ['PATH']}", "XDG_CACHE_HOME": str(d / "cache")}
    doors = {
        "render": lambda p, o: ["render", str(p), "--png", str(o)],
        "open": lambda p, o: ["open", str(p), "--convert-to", "pdf", "--outdir", str(o)],
        "recalc": lambda p, o: ["recalc", str(p), "--check", "--engine", "libreoffice"],
    }
    cases = [(n, make, [c[0], "{path}", *c[1:]]) for n, (make, c, _m) in BOMBS.items()]
    cases += [
        (f"{n} ({door})", make, doors[door]("{path}", "{tmp}/out"))
        for n, (make, _m) in SCREENED.items()
        for door in doors
    ]
    print(f"hostile corpus: {len(cases)} runs (each in its own process; soffice = a recorder)")
    print(f"  {'case':<38} {'s':>6} {'MiB':>6} exit soffice  refusal")
    for name, make, argv in cases:
        tmp = d / name.split()[0]
        tmp.mkdir(exist_ok=True)
        path = make(tmp)
        log.unlink(missing_ok=True)
        args = [a.format(path=path, tmp=tmp) for a in argv]
        code, err, t, mib = child(args, env)
        started = "yes" if log.exists() else "no"
        print(f"  {name:<38} {t:6.1f} {mib:6.0f} {code:>4} {started:>7}  {err.strip()[:110]}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1_048_575)
    ap.add_argument("--dir", default="/tmp/gputco-budgets")
    ap.add_argument("--skip-largest", action="store_true")
    ap.add_argument("--skip-hostile", action="store_true")
    args = ap.parse_args()
    d = Path(args.dir)
    d.mkdir(parents=True, exist_ok=True)
    if not args.skip_largest:
        largest(d, args.rows)
    if not args.skip_hostile:
        hostile(d)


if __name__ == "__main__":
    main()
