"""Benchmark: the recalculation engine against Excel's own cached values on a corpus of real files.

tests/data/excel_corpus holds workbooks saved by Microsoft Excel (docProps/app.xml says so) from
public projects' test suites and examples, with their project, path, commit, licence and sha256
in manifest.json. Every file goes through ``recalc_file(path, check=True, unsupported="stored")``
(``gputco recalc --check``) and the script prints, per engine, per project and in total: files,
formula cells, cells compared (computed), cells equal to Excel's cached value (1e-9 relative,
text exact), cells unsupported (stored values kept), files refused (a clean RecalcError), crashes
(any other exception; must be 0), the unsupported functions needed by the most files, and every
difference classified (see tests/corpus_check.py):

- volatile: the formula calls NOW/TODAY/RAND/... (Excel's value was true when it was saved);
- stale cache: the file stores no value for the formula, or its stored value does not match its
  own stored inputs in Excel either (listed, with the reason, in
  tests/data/excel_corpus/differences.toml);
- locale: a text result that depends on Excel's regional settings (same file);
- inherited: the cell reads a cell that differs (the difference is counted at its root);
- engine bug: every other difference (the engine disagrees with Excel on Excel's own inputs).

    python benchmarks/bench_corpus.py [--engine gputco|auto|libreoffice ...] [--project NAME]
                                      [--show 20] [--list-differences]

Each engine runs twice: without a pinned clock and seed (volatile cells unsupported, their stored
values kept, as ``gputco recalc`` without ``--now``/``--seed``) and with them
(corpus_check.PINNED: ``--now 2026-12-02T09:00 --seed 0``; volatile cells and those depending on
them computed, reported apart and never compared, since Excel's values were drawn when it saved).

Columns: eq/cmp = equal / compared; cmp/all = compared / formula cells; volatile = unsupported
cells calling NOW/TODAY/RAND/RANDBETWEEN (no engine can reproduce Excel's value; kept as stored);
cmp/nonv = compared / (formula cells - volatile); recomp. = volatile cells computed at the pinned
clock and seed, not compared; computed = (compared + recomp.) / formula cells.

Target, with auto: at least 90% of the formula cells computed and at least 99.5% of the
computed cells equal to Excel's value.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]  # this checkout's engine, not an installed one

from corpus_check import CLASSES, load_manifest, run_corpus


def _pct(a: int, b: int) -> str:
    return f"{100.0 * a / b:6.2f}%" if b else "     -"


def _row(label: str, t) -> str:
    return (
        f"{label:<16} {t.files:>5} {t.formula_cells:>9} {t.compared:>9} {t.equal:>9} "
        f"{_pct(t.equal, t.compared)} {t.unsupported:>9} {_pct(t.compared, t.formula_cells)} "
        f"{t.volatile:>8} {_pct(t.compared, t.formula_cells - t.volatile)} {t.recomputed:>7} "
        f"{_pct(t.compared + t.recomputed, t.formula_cells)} {t.refused:>7} {t.crashes:>7}"
    )


HEADER = (
    f"{'project':<16} {'files':>5} {'formulas':>9} {'compared':>9} {'equal':>9} "
    f"{'eq/cmp':>7} {'unsupp.':>9} {'cmp/all':>7} {'volatile':>8} {'cmp/nonv':>7} "
    f"{'recomp.':>7} {'computed':>7} {'refused':>7} {'crashes':>7}"
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--engine",
        action="append",
        choices=["gputco", "auto", "libreoffice"],
        help="engine(s) to run (default: gputco, and auto when the installed "
        "recalc_file has an engine= keyword)",
    )
    parser.add_argument("--project", action="append", help="only these projects")
    parser.add_argument("--show", type=int, default=20, help="top unsupported functions to list")
    parser.add_argument(
        "--list-differences", action="store_true", help="print every difference with its class"
    )
    args = parser.parse_args()
    engines = args.engine or ["gputco", "auto"]
    manifest = load_manifest()
    worst = 0
    for engine, pinned in [(e, p) for e in engines for p in (False, True)]:
        label = engine + (", pinned clock and seed" if pinned else ", volatile functions unsupported")
        result = run_corpus(manifest, engine=engine, projects=args.project, pinned=pinned)
        print(f"\n=== engine: {label} ({result.seconds:.1f} s)")
        print(HEADER)
        for project, t in sorted(result.by_project.items()):
            print(_row(project, t))
        print(_row("TOTAL", result.total))
        if result.by_engine:
            print(
                "cells computed by engine: "
                + ", ".join(f"{k} {v:,}" for k, v in sorted(result.by_engine.items()))
            )
        print(f"\nunsupported functions, by files needing them (top {args.show}):")
        for name, n in result.unsupported_files.most_common(args.show):
            print(f"  {n:>4} files  {result.unsupported_cells[name]:>7} cells  {name}")
        if result.refusals:
            print("\nrefused files:")
            for file, why in result.refusals:
                print(f"  {file}: {why}")
        if result.crash_list:
            print("\nCRASHES:")
            for file, why in result.crash_list:
                print(f"  {file}: {why}")
        classes = Counter(d.cls for d in result.differences)
        print("\ndifferences by class: " + ", ".join(f"{c} {classes.get(c, 0)}" for c in CLASSES))
        lo = sum(d.why == "computed by LibreOffice" for d in result.differences)
        if lo:
            print(f"  of the engine bugs, in cells LibreOffice computed: {lo}")
        if args.list_differences:
            for d in result.differences:
                print(
                    f"  [{d.cls}] {d.file} {d.sheet}!{d.cell} stored={d.stored!r} "
                    f"computed={d.computed!r} ={d.formula}  {d.why}"
                )
        worst = max(worst, result.total.crashes)
    return 1 if worst else 0


if __name__ == "__main__":
    raise SystemExit(main())
