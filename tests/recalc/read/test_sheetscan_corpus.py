"""The regex reader (workbook/recalc/read/sheetscan.py) against the expat reader on every sheet part of
the Excel-saved corpus (tests/data/excel_corpus: files saved by real Excel, from six public
projects) and of gputco's own scenario workbook: the same cells, values, formulas, kinds and
byte offsets wherever the regex reader takes a part (it leaves the others to expat)."""

from __future__ import annotations

import json
import math
import zipfile
from pathlib import Path

import pytest

from gputco.addin.threads import NO_LIBRARY_THREADS
from gputco.workbook.recalc.read import sheetscan
from gputco.workbook.recalc.read.sheetxml import read_shared_strings, read_sheet
from gputco.workbook.recalc.write.cellxml import element_end

CORPUS = Path(__file__).resolve().parents[2] / "data" / "excel_corpus"


def _files() -> list[Path]:
    manifest = json.loads((CORPUS / "manifest.json").read_text())
    entries = manifest["files"] if isinstance(manifest, dict) else manifest
    return [CORPUS / e["file"] for e in entries]


def _expat(name, path, data, strings):
    real = sheetscan.scan
    sheetscan.scan = lambda *_a: None
    try:
        return read_sheet(name, path, data, strings)
    finally:
        sheetscan.scan = real


def _same(a, b) -> bool:
    return (
        a == b
        or (isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b))
        or (str(a) == str(b) and type(a) is type(b))
    )


def _formulas(part) -> list[tuple]:
    data = part.data
    out = []
    for fc in part.formulas:
        f_end = (
            fc.f_end_event
            if part.exact_ends or fc.f_start < 0
            else element_end(data, fc.f_start, fc.f_end_event)
        )
        v_end = (
            fc.v_end_event
            if part.exact_ends or fc.v_start < 0
            else element_end(data, fc.v_start, fc.v_end_event)
        )
        out.append(
            (
                fc.row,
                fc.col,
                fc.text,
                fc.kind,
                fc.si,
                fc.ref,
                repr(fc.cached),
                fc.c_start,
                fc.f_start,
                f_end,
                fc.v_start,
                v_end,
                fc.dynamic,
            )
        )
    return out


def compare_package(path: Path) -> tuple[int, int]:
    """(parts read by the regex reader, parts in all); asserts each is what expat reads."""
    taken = total = 0
    with zipfile.ZipFile(path) as z:
        names = set(z.namelist())
        strings = []
        if "xl/sharedStrings.xml" in names:
            strings = read_shared_strings(z.read("xl/sharedStrings.xml"), "xl/sharedStrings.xml")
        for member in sorted(n for n in names if n.startswith("xl/worksheets/sheet") and n.endswith(".xml")):
            data = z.read(member)
            total += 1
            try:
                slow = _expat("S", member, data, strings)
            except Exception as err:
                assert sheetscan.scan("S", member, data, strings) is None, (path, member, err)
                continue
            fast = sheetscan.scan("S", member, data, strings)
            if fast is None:
                continue
            taken += 1
            where = f"{path.name}:{member}"
            for field in (
                "max_row",
                "max_col",
                "hidden_rows",
                "num_rows",
                "num_cols",
                "obj_rows",
                "obj_cols",
            ):
                assert (
                    list(getattr(fast, field)) == list(getattr(slow, field))
                    if isinstance(getattr(slow, field), list)
                    else getattr(fast, field) == getattr(slow, field)
                ), (where, field)
            assert fast.num_vals == slow.num_vals, where
            assert all(_same(a, b) for a, b in zip(fast.obj_vals, slow.obj_vals, strict=True)), where
            assert _formulas(fast) == _formulas(slow), where
    return taken, total


def test_the_regex_reader_reads_the_excel_corpus_as_expat_does():
    taken = total = 0
    for path in _files():
        if path.suffix.lower() not in (".xlsx", ".xlsm") or not path.exists():
            continue
        a, b = compare_package(path)
        taken, total = taken + a, total + b
    assert total > 700 and taken > 0.9 * total, (taken, total)


def test_the_regex_reader_reads_a_scenario_workbook_as_expat_does(example_scenarios):
    taken, total = compare_package(example_scenarios)
    assert taken == total >= 4


def test_a_sheet_read_in_two_halves_by_two_processes_is_the_sheet_read_whole(monkeypatch, example_scenarios):
    """Large sheets are read in two halves at once, the second by a forked child
    (workbook/recalc/read/forked.py): forced on every part here, every result must still be expat's,
    and a child that dies leaves the reading to this process. (The test process has numpy's and
    pyarrow's threads, so the guard is told there is one: the guard itself is tested below, in
    processes of their own.)"""
    from gputco.workbook.recalc.read import forked

    started = []
    real = forked.Child

    class Counted(real):
        def __init__(self, *args):
            started.append(args[5:])
            super().__init__(*args)

    monkeypatch.setattr(sheetscan, "SPLIT_BYTES", 0)
    monkeypatch.setattr(forked, "Child", Counted)
    monkeypatch.setattr(forked, "os_threads", lambda: 1)
    assert forked.available()  # two cores: CI's machine
    for path in _files()[:60]:
        if path.suffix.lower() in (".xlsx", ".xlsm") and path.exists():
            compare_package(path)
    test_the_regex_reader_reads_a_scenario_workbook_as_expat_does(example_scenarios)
    assert len(started) > 50

    def dies(self, timeout=None):
        self.cancel()
        raise forked.ChildFailed("killed")

    monkeypatch.setattr(Counted, "result", dies)
    test_the_regex_reader_reads_a_scenario_workbook_as_expat_does(example_scenarios)


def test_one_process_when_asked(monkeypatch):
    from gputco.workbook.recalc.read import forked

    monkeypatch.setenv("GPUTCO_RECALC_WORKERS", "1")
    assert not forked.available()


_GUARD = (
    "import sys\n"
    "if sys.argv[1] == 'cli': import gputco.addin.cli\n"
    "import numpy, pyarrow\n"
    "from gputco.workbook.recalc.read import forked\n"
    "print(forked.os_threads(), forked.available())\n"
)


def test_no_fork_while_libraries_run_threads_of_their_own():
    """numpy's BLAS and pyarrow start operating-system threads that ``threading`` does not see;
    the guard counts them (/proc/self/task). The command line asks the libraries for none before
    they load, so there the engine may fork; a process that loaded them first may not."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k not in NO_LIBRARY_THREADS}
    env.pop("GPUTCO_RECALC_WORKERS", None)
    run = [sys.executable, "-c", _GUARD]
    threads, ok = subprocess.run(
        [*run, "plain"], env=env, capture_output=True, text=True, check=True
    ).stdout.split()
    assert int(threads) > 1 and ok == "False"
    threads, ok = subprocess.run(
        [*run, "cli"], env=env, capture_output=True, text=True, check=True
    ).stdout.split()
    assert (threads, ok) == ("1", "True")


def test_a_child_that_hangs_is_stopped_at_its_time_limit():
    import time

    from gputco.workbook.recalc.read import forked

    t0 = time.monotonic()
    child = forked.Child(time.sleep, 60)
    with pytest.raises(forked.ChildFailed, match=r"sent nothing for 0\.5 s"):
        child.result(timeout=0.5)
    assert time.monotonic() - t0 < 10
