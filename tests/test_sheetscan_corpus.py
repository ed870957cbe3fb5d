"""The regex reader (workbook/recalc/sheetscan.py) against the expat reader on every sheet part of
the Excel-saved corpus (tests/data/excel_corpus: files saved by real Excel, from six public
projects) and of gputco's own scenario workbook: the same cells, values, formulas, kinds and
byte offsets wherever the regex reader takes a part (it leaves the others to expat)."""

from __future__ import annotations

import json
import math
import zipfile
from pathlib import Path

from gputco.workbook.recalc.read import sheetscan
from gputco.workbook.recalc.read.sheetxml import read_shared_strings, read_sheet
from gputco.workbook.recalc.write.cellxml import element_end

CORPUS = Path(__file__).parent / "data" / "excel_corpus"


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


def test_the_regex_reader_reads_a_scenario_workbook_as_expat_does(tmp_path):
    import tomllib

    from gputco.workbook.scenarios.build import write_scenarios
    from gputco.workbook.scenarios.example import EXAMPLE
    from gputco.workbook.scenarios.spec import parse_spec

    out = tmp_path / "s.xlsx"
    write_scenarios(parse_spec(tomllib.loads(EXAMPLE)), out, force=True)
    taken, total = compare_package(out)
    assert taken == total >= 4


def test_a_sheet_read_in_two_halves_by_two_processes_is_the_sheet_read_whole(monkeypatch, tmp_path):
    """Large sheets are read in two halves at once, the second by a forked child
    (workbook/recalc/forked.py): forced on every part here, every result must still be expat's,
    and a child that dies leaves the reading to this process."""
    from gputco.workbook.recalc.run import forked

    started = []
    real = forked.Child

    class Counted(real):
        def __init__(self, *args):
            started.append(args[5:])
            super().__init__(*args)

    monkeypatch.setattr(sheetscan, "SPLIT_BYTES", 0)
    monkeypatch.setattr(forked, "Child", Counted)
    assert forked.available()  # one thread, two cores: CI's machine
    for path in _files()[:60]:
        if path.suffix.lower() in (".xlsx", ".xlsm") and path.exists():
            compare_package(path)
    test_the_regex_reader_reads_a_scenario_workbook_as_expat_does(tmp_path)
    assert len(started) > 50

    def dies(self):
        self.cancel()
        raise forked.ChildFailed("killed")

    monkeypatch.setattr(Counted, "result", dies)
    test_the_regex_reader_reads_a_scenario_workbook_as_expat_does(tmp_path)


def test_one_process_when_asked(monkeypatch):
    from gputco.workbook.recalc.run import forked

    monkeypatch.setenv("GPUTCO_RECALC_WORKERS", "1")
    assert not forked.available()
