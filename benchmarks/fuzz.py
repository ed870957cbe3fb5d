"""A long fuzz run: the Hypothesis fuzz tests with many more examples, randomised; or the
differential fuzzer (tests/difffuzz.py), the engine against LibreOffice, at scale.

The default test run keeps the fuzz tests short (GPUTCO_FUZZ_EXAMPLES=200 sets the examples of
each fuzz test, see tests/fuzzing.py); this script runs them long and prints the cases run.

    python benchmarks/fuzz.py [--examples 20000] [--only udfs|workbook] [--seed N]

Failures are reported by pytest with the smallest failing example Hypothesis found; it also
stores them in .hypothesis/ so that the next run tries them first.

    python benchmarks/fuzz.py --differential 100000 [--batch 5000] [--seed 1000]
                              [--cache DIR] [--show 40] [--dump FILE]

generates the formulas in batches (one workbook and one LibreOffice run per batch), and prints
formulas run, engine crashes and refusals (must be 0), agreements, the disagreements each rule
of difffuzz.RULES explains (with its source), the unexplained ones (engine bugs or undecided)
by function with examples (``--dump`` writes every one, a JSON line each, with its row on sheet F), and the engine's and LibreOffice's seconds side by side. A batch
LibreOffice does not finish (difffuzz.LO_TIMEOUT_S) is reported and left uncompared. ``--cache``
keeps LibreOffice's answers per batch (rerun the engine alone, e.g. before/after a fix). Without
LibreOffice only the engine runs (crashes and refusals are still counted).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SUITES = {"udfs": "tests/test_fuzz_udfs.py", "workbook": "tests/test_fuzz_workbook.py"}


def differential(args) -> int:
    """The differential run: see the module's docstring."""
    import hashlib
    import json
    import tempfile
    from collections import Counter

    sys.path[:0] = [str(ROOT / "tests")]
    import difffuzz as d
    from lo_record import Err

    from gputco.workbook.soffice.process import soffice
    from gputco.workbook.soffice.sandbox import SandboxError

    live = soffice() is not None
    if args.not_yet_recorded and not d.not_yet_recorded():
        print("--not-yet-recorded: every function is in the seeded recording; fuzzing the whole table")
    cache = Path(args.cache) if args.cache else None
    total = d.Outcome()
    crashes, refused, t_engine, t_lo = 0, 0, 0.0, 0.0
    lo_failed: list[int] = []  # seeds of batches LibreOffice gave no answers for
    by_function: Counter[str] = Counter()
    examples: dict[str, list] = {}
    done = 0
    batch_no = 0
    while done < args.differential:
        n = min(args.batch, args.differential - done)
        seed = args.seed + batch_no
        formulas = d.generate(seed, n, d.not_yet_recorded() if args.not_yet_recorded else ())
        with tempfile.TemporaryDirectory(prefix="gputco-difffuzz-") as tmp:
            path = d.write_batch(Path(tmp) / "batch.xlsx", formulas)
            start = time.perf_counter()
            try:
                engine = d.engine_values(path, n)
            except Exception as err:  # a crash: counted, never hidden
                crashes += n
                print(f"batch {seed}: engine crashed: {type(err).__name__}: {err}")
                engine = [f"<crash: {type(err).__name__}>"] * n
            t_engine += time.perf_counter() - start
            refused += sum(isinstance(v, str) and v.startswith("<refused") for v in engine)
            lo = None
            digest = hashlib.sha256("\n".join(formulas).encode()).hexdigest()[:16]
            hit = cache / f"lo-{seed}-{n}-{digest}.json" if cache else None
            if hit is not None and hit.exists():
                lo = _read_answers(hit)
            elif live:
                start = time.perf_counter()
                try:
                    lo = d.libreoffice_values(path, n)
                except SandboxError as err:  # LibreOffice stuck or failed: this batch is not compared
                    lo_failed.append(seed)
                    print(f"batch {seed}: LibreOffice gave no answers: {err}", flush=True)
                t_lo += time.perf_counter() - start
                if hit is not None and lo is not None:
                    _write_answers(hit, lo)
        if lo is not None:
            before = len(total.bugs)
            d.compare(formulas, engine, lo, total)
            for f, e, v in total.bugs[before:]:
                name = d._outer(f)
                by_function[name] += 1
                examples.setdefault(name, []).append((f, e, v))
        done += n
        batch_no += 1
        print(f"  {done:>7,} formulas, {len(total.bugs):,} unexplained so far", flush=True)
    nested = Counter()
    if total.bugs:  # the ones an inner call's own disagreement explains (its rule)
        with tempfile.TemporaryDirectory(prefix="gputco-difffuzz-inner-") as tmp:
            rules = d.explain_nested(
                total.bugs, Path(tmp), lambda fs: _inner_lo(d, fs, Path(tmp), cache, live), total.rows
            )
        nested.update((r.cls, r.what) for r in rules if r is not None)
        kept = [r is None for r in rules]
        total.bugs = [b for b, k in zip(total.bugs, kept, strict=True) if k]
        total.rows = [row for row, k in zip(total.rows, kept, strict=True) if k]
        by_function = Counter(d._outer(f) for f, _, _ in total.bugs)
        examples = {}
        for f, e, v in total.bugs:
            examples.setdefault(d._outer(f), []).append((f, e, v))
    if args.dump:  # every unexplained disagreement, one JSON line each: formula, engine, LibreOffice, row
        enc = lambda v: {"error": str(v)} if isinstance(v, Err) else v  # noqa: E731
        with open(args.dump, "w", encoding="utf-8") as fh:
            for (f, e, v), row in zip(total.bugs, total.rows, strict=True):
                fh.write(json.dumps([f, enc(e), enc(v), row], ensure_ascii=False) + "\n")
    print(
        f"\ndifferential fuzz: {done:,} formulas in {batch_no} batches (seeds {args.seed}..{args.seed + batch_no - 1})"
    )
    print(f"engine crashes: {crashes}, formulas refused: {refused}")
    if lo_failed:
        print(f"batches LibreOffice gave no answers for (not compared): {lo_failed}")
    print(
        f"engine {t_engine:.1f} s, LibreOffice {t_lo:.1f} s"
        + (f" (LibreOffice / engine {t_lo / t_engine:.1f}x)" if t_engine and t_lo else "")
    )
    if total.formulas:
        dis = total.formulas - total.agree
        print(f"compared with LibreOffice: {total.formulas:,}; agree {total.agree:,}; disagree {dis:,}")
        for (cls, what), k in total.classified.most_common():
            print(f"  {k:>7,}  [{cls}] {what}")
        if nested:
            print(
                f"  {sum(nested.values()):>7,}  explained by the disagreement of an inner call, evaluated alone:"
            )
            for (cls, what), k in nested.most_common():
                print(f"      {k:>6,}  [{cls}] {_cut(what)}")
        print(
            f"  {len(total.bugs):>7,}  [unexplained: engine bug or undecided], by function (top {args.show}):"
        )
        for name, k in by_function.most_common(args.show):
            f, e, v = examples[name][0]
            print(
                f"      {k:>6,}  {name:<16} e.g. ={_cut(f)}  engine {_cut(repr(e))}  LibreOffice {_cut(repr(v))}"
            )
    return 1 if crashes or refused else 0


def _read_answers(path: Path) -> list:
    """LibreOffice's answers kept in the cache (an error as {"error": code})."""
    import json

    from lo_record import Err

    return [Err(v["error"]) if isinstance(v, dict) else v for v in json.loads(path.read_text())]


def _write_answers(path: Path, lo: list) -> None:
    import json

    from lo_record import Err

    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps([{"error": str(v)} if isinstance(v, Err) else v for v in lo]))


def _inner_lo(d, formulas: list[str], folder: Path, cache: Path | None, live: bool) -> list | None:
    """LibreOffice's answers for the inner calls of the unexplained disagreements (``d`` is
    tests/difffuzz.py): one batch, kept in the cache as the other batches are (None without
    LibreOffice or a cached answer)."""
    import hashlib

    digest = hashlib.sha256("\n".join(formulas).encode()).hexdigest()[:16]
    hit = cache / f"lo-inner-{len(formulas)}-{digest}.json" if cache else None
    if hit is not None and hit.exists():
        return _read_answers(hit)
    if not live:
        return None
    lo = d.libreoffice_values(d.write_batch(folder / "inner-lo.xlsx", formulas), len(formulas))
    if hit is not None:
        _write_answers(hit, lo)
    return lo


def _cut(text: str, width: int = 100) -> str:
    """An example as printed: a long text (REPT's) cut to ``width`` characters, its length said."""
    return text if len(text) <= width else f"{text[:width]}... ({len(text):,} characters)"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--examples", type=int, default=20_000, help="GPUTCO_FUZZ_EXAMPLES for the run (default: %(default)s)"
    )
    parser.add_argument("--only", choices=sorted(SUITES), help="run one suite only")
    parser.add_argument(
        "--seed", type=int, help="Hypothesis seed; with --differential the first batch's seed"
    )
    parser.add_argument(
        "--differential", type=int, metavar="N", help="run N formulas of the differential fuzzer"
    )
    parser.add_argument(
        "--batch", type=int, default=5000, help="formulas per workbook (default: %(default)s)"
    )
    parser.add_argument(
        "--not-yet-recorded",
        action="store_true",
        help="with --differential: each formula's outer call one of the functions the seeded "
        "recording does not cover yet (difffuzz.NOT_YET_RECORDED); inner calls from every function",
    )
    parser.add_argument("--cache", help="folder keeping LibreOffice's answers per batch")
    parser.add_argument("--dump", help="file getting every unexplained disagreement (JSON lines)")
    parser.add_argument("--show", type=int, default=40, help="functions listed with unexplained cases")
    args = parser.parse_args()
    if args.differential:
        if args.seed is None:
            args.seed = 1000
        return differential(args)
    env = dict(os.environ, GPUTCO_FUZZ_EXAMPLES=str(args.examples), GPUTCO_FUZZ_RANDOM="1")
    suites = [SUITES[args.only]] if args.only else list(SUITES.values())
    cmd = [sys.executable, "-m", "pytest", "-q", *suites]
    if args.seed is not None:
        cmd.append(f"--hypothesis-seed={args.seed}")
    start = time.perf_counter()
    code = subprocess.call(cmd, cwd=ROOT, env=env)
    print(
        f"fuzz run with GPUTCO_FUZZ_EXAMPLES={args.examples}: {time.perf_counter() - start:.0f} s,"
        f" exit {code}"
    )
    return code


if __name__ == "__main__":
    sys.exit(main())
