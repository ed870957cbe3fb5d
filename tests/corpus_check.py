"""Run the Excel-saved corpus (tests/data/excel_corpus) through ``recalc_file(check=True)``.

Shared by benchmarks/bench_corpus.py (prints the figures) and tests/recalc/test_excel_corpus.py (asserts
no crash and no regression). Each difference between the engine and Excel's cached value gets a
class: volatile (NOW/TODAY/RAND...), stale cache (no cached value in the file, or listed with the
reason in tests/data/excel_corpus/differences.toml after reading the file), locale (listed there
too), inherited (the cell reads a
differing cell) or engine bug (everything else).
"""

from __future__ import annotations

import datetime
import hashlib
import json
import re
import time
import tomllib
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from openpyxl.formula.tokenizer import Token, Tokenizer

from gputco.workbook.recalc import RecalcError, recalc_file
from gputco.workbook.recalc.base.refs import cell_name
from gputco.workbook.soffice.fallback import libreoffice_values

CORPUS = Path(__file__).resolve().parent / "data" / "excel_corpus"
CLASSES = ("volatile", "stale cache", "locale", "inherited", "engine bug")
VOLATILE_NAMES = frozenset({"NOW", "TODAY", "RAND", "RANDBETWEEN", "RANDARRAY", "INFO"})
VOLATILE = re.compile(r"\b(NOW|TODAY|RAND|RANDBETWEEN|RANDARRAY|INFO)\s*\(", re.I)
TIMEOUT_S = 120.0


@dataclass
class Tally:
    files: int = 0
    formula_cells: int = 0
    compared: int = 0
    equal: int = 0
    unsupported: int = 0
    volatile: int = 0  # of the unsupported: cells calling NOW/TODAY/RAND... (never reproducible)
    recomputed: int = 0  # computed at a pinned clock and seed, not compared (report.volatile)
    refused: int = 0
    crashes: int = 0

    def add(self, other: Tally) -> None:
        for k in vars(self):
            setattr(self, k, getattr(self, k) + getattr(other, k))


@dataclass
class Difference:
    file: str
    sheet: str
    cell: str
    stored: object
    computed: object
    formula: str
    cls: str = "engine bug"
    why: str = ""


@dataclass
class CorpusResult:
    total: Tally = field(default_factory=Tally)
    by_project: dict[str, Tally] = field(default_factory=dict)
    by_engine: Counter = field(default_factory=Counter)
    unsupported_files: Counter = field(default_factory=Counter)
    unsupported_cells: Counter = field(default_factory=Counter)
    refusals: list[tuple[str, str]] = field(default_factory=list)
    crash_list: list[tuple[str, str]] = field(default_factory=list)
    differences: list[Difference] = field(default_factory=list)
    seconds: float = 0.0


def load_manifest() -> dict:
    return json.loads((CORPUS / "manifest.json").read_text(encoding="utf-8"))


def load_known() -> dict[str, list[dict]]:
    """differences.toml: file -> entries {cells: [...] or ["*"], class, why}."""
    path = CORPUS / "differences.toml"
    out: dict[str, list[dict]] = defaultdict(list)
    if path.exists():
        for entry in tomllib.loads(path.read_text(encoding="utf-8")).get("difference", []):
            if entry["class"] not in CLASSES:
                raise ValueError(f"{path.name}: class {entry['class']!r} not in {CLASSES}")
            out[entry["file"]].append(entry)
    return out


#: the pinned clock and seed of the corpus runs that evaluate the volatile functions (any would
#: do: their cells are recomputed, not compared)
PINNED = {"now": datetime.datetime(2026, 12, 2, 9, 0), "seed": 0}


def run_corpus(
    manifest: dict, engine: str | None = None, projects: list[str] | None = None, pinned: bool = False
) -> CorpusResult:
    """The corpus through ``recalc_file(check=True)``; ``pinned``: with :data:`PINNED`'s clock and
    seed (volatile cells computed and reported apart), else without (they keep their values)."""
    start = time.perf_counter()
    result = CorpusResult()
    known = load_known()
    kwargs = {"fallback": libreoffice_values} | ({"engine": engine} if engine is not None else {})
    if pinned:
        kwargs |= PINNED
    for entry in manifest["files"]:
        project = entry["project"]
        if projects and project not in projects:
            continue
        tally = result.by_project.setdefault(project, Tally())
        one = Tally(files=1)
        path = CORPUS / entry["file"]
        data = path.read_bytes()
        if hashlib.sha256(data).hexdigest() != entry["sha256"]:
            raise AssertionError(f"{entry['file']}: sha256 differs from manifest.json")
        try:
            report = recalc_file(path, check=True, unsupported="stored", timeout_s=TIMEOUT_S, **kwargs)
        except RecalcError as err:
            one.refused = 1
            result.refusals.append((entry["file"], f"{type(err).__name__}: {_short(err)}"))
        except Exception as err:
            one.crashes = 1
            result.crash_list.append((entry["file"], f"{type(err).__name__}: {_short(err)}"))
        else:
            _tally(report, entry["file"], one, result, known.get(entry["file"], []))
        tally.add(one)
        result.total.add(one)
    result.seconds = time.perf_counter() - start
    return result


def _short(err: Exception) -> str:
    text = str(err).replace("\n", " ")
    return text if len(text) <= 200 else text[:197] + "..."


def _tally(report, file: str, one: Tally, result: CorpusResult, known: list[dict]) -> None:
    unsupported, volatile = set(), set()
    for name, cells in report.unsupported.items():
        unsupported.update(cells)
        if name in VOLATILE_NAMES:
            volatile.update(cells)
        result.unsupported_files[name] += 1
        result.unsupported_cells[name] += len(cells)
    one.formula_cells = report.cells
    one.unsupported = len(unsupported)
    one.volatile = len(volatile)
    one.recomputed = len(getattr(report, "volatile", ()))
    one.compared = report.cells - len(unsupported) - one.recomputed
    one.equal = one.compared - len(report.mismatches)
    by_engine = getattr(report, "by_engine", None)
    if isinstance(by_engine, dict):
        result.by_engine.update({k: v if isinstance(v, int) else len(v) for k, v in by_engine.items()})
    lo = set(getattr(report, "libreoffice_cells", None) or [])
    result.differences.extend(classify(file, report.mismatches, known, lo))


def classify(
    file: str, mismatches, known: list[dict], libreoffice: set[str] = frozenset()
) -> list[Difference]:
    """Each mismatch as a Difference with its class (see the module docstring); an engine bug in
    a cell LibreOffice computed (engine="auto") says so."""
    differing = {(m.sheet.upper(), m.cell) for m in mismatches}
    out = []
    for m in mismatches:
        d = Difference(file, m.sheet, m.cell, m.stored, m.computed, m.formula)
        listed = next((e for e in known if "*" in e["cells"] or f"{m.sheet}!{m.cell}" in e["cells"]), None)
        if VOLATILE.search(m.formula):
            d.cls, d.why = "volatile", "calls a volatile function"
        elif listed is not None:
            d.cls, d.why = listed["class"], listed["why"]
        elif m.stored is None:
            d.cls, d.why = "stale cache", "the file stores no value for this formula cell"
        elif _reads_any(m.sheet, m.formula, differing - {(m.sheet.upper(), m.cell)}):
            d.cls, d.why = "inherited", "reads a cell that differs"
        elif getattr(m, "engine", "") == "libreoffice" or f"{m.sheet}!{m.cell}" in libreoffice:
            d.why = "computed by LibreOffice"
        out.append(d)
    return out


_REF = re.compile(
    r"^(?:(?P<sheet>'(?:[^']|'')+'|[^!]+)!)?\$?(?P<c1>[A-Z]{1,3})?\$?(?P<r1>\d+)?"
    r"(?::\$?(?P<c2>[A-Z]{1,3})?\$?(?P<r2>\d+)?)?$",
    re.I,
)


def _reads_any(sheet: str, formula: str, cells: set[tuple[str, str]]) -> bool:
    if not cells:
        return False
    try:
        tokens = Tokenizer("=" + formula.lstrip("=")).items
    except Exception:
        return False
    boxes = []
    for tok in tokens:
        if tok.type != Token.OPERAND or tok.subtype != Token.RANGE:
            continue
        m = _REF.match(tok.value)
        if not m or not (m["c1"] or m["r1"]):
            continue
        target = (m["sheet"] or sheet).strip("'").replace("''", "'").upper()
        c1, r1 = _col(m["c1"], 1), int(m["r1"] or 1)
        c2 = _col(m["c2"] or (m["c1"] if not m["c2"] and not m["r2"] else None), 16384)
        r2 = int(m["r2"] or (m["r1"] if not m["c2"] and not m["r2"] else 1048576))
        if m["c1"] is None:
            c1, c2 = 1, 16384
        boxes.append((target, min(r1, r2), max(r1, r2), min(c1, c2), max(c1, c2)))
    for s, name in cells:
        r, c = _split(name)
        if any(s == b[0] and b[1] <= r <= b[2] and b[3] <= c <= b[4] for b in boxes):
            return True
    return False


def _col(letters: str | None, default: int) -> int:
    if not letters:
        return default
    n = 0
    for ch in letters.upper():
        n = n * 26 + ord(ch) - 64
    return n


def _split(name: str) -> tuple[int, int]:
    m = re.match(r"([A-Z]+)(\d+)", name)
    return int(m[2]), _col(m[1], 1)


__all__ = [
    "CLASSES",
    "CorpusResult",
    "Difference",
    "Tally",
    "cell_name",
    "classify",
    "load_manifest",
    "run_corpus",
]
