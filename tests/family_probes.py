"""Function families checked against Microsoft's documented examples and LibreOffice's answers.

A family's test module subclasses :class:`FamilyProbes` and lists

- ``MICROSOFT``: (formula, result as Microsoft's function page shows it, the page's URL). The
  engine must show the same digits (its value rounded to as many decimals as the page shows) or
  the same error; text results must be equal;
- ``PROBES``: further formulas (edge cases, documented errors, legacy names) compared with
  LibreOffice's answer, within ``REL`` relative for numbers and exactly otherwise. Microsoft's
  examples are compared with LibreOffice as well;
- ``EXCEL_NOT_LO``: formula -> (Excel's result, why, with the Microsoft source) where LibreOffice
  differs from Excel: the engine follows Excel, and the test fails once LibreOffice agrees; a
  text result is compared as Microsoft shows it (an error code, or digits as in MICROSOFT);
- ``UNDECIDED``: formula -> (the engine's answer, LibreOffice's) where Microsoft's pages are
  silent and the two differ: both are pinned (docs/recalc-excel-rules.md lists them undecided);
- ``SHEETS``: extra sheets of values (a database table, say), name -> rows, next to the Data sheet
  of :func:`recalc_book.probe_book`.

LibreOffice's answers are recorded in tests/data/lo_families.json (one set per family), so the
comparison runs where LibreOffice is absent; the ``..._libreoffice`` test recalculates the same
workbook live and checks the recording (refresh with the command in :data:`REGENERATE`).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import ClassVar

import openpyxl
import pytest
from lo import recalculate, requires_soffice
from lo import values as lo_values
from lo_record import recorded, same, verify_or_refresh
from recalc_book import probe_book

from gputco.workbook.recalc import XlError, evaluate_workbook

RECORDING = Path(__file__).parent / "data" / "lo_families.json"
REGENERATE = (
    "GPUTCO_LO_REFRESH=1 python -m pytest -q tests/recalc/functions/test_financial.py "
    "tests/recalc/functions/test_database.py "
    "tests/recalc/functions/test_engineering.py tests/recalc/functions/test_corpus_functions.py "
    "tests/recalc/functions/test_text.py "
    "tests/recalc/functions/test_math.py "
    "tests/recalc/functions/test_statistical.py -k recording_equals_live"
)


def shows(expected: object, got: object) -> bool:
    """Whether ``got`` displays as Microsoft's page shows ``expected`` (rounded, or cut off, to
    the decimals shown).

    >>> shows("0.9087888", 0.90878878027), shows("0.9087888", 0.9087), shows("#NUM!", 1.0)
    (True, False, False)
    >>> shows("5.73E-20", 5.725037161098787e-20), shows("1.87E-13", 1.8e-13)
    (True, False)
    """
    if isinstance(expected, str) and expected.startswith("#"):
        return isinstance(got, XlError) and str(got) == expected
    if isinstance(expected, str) and isinstance(got, float) and "E" in expected:
        digits = len(expected.split("E")[0].split(".")[1]) if "." in expected else 0
        return f"{got:.{digits}E}".replace("E-0", "E-").replace("E+0", "E+") == expected
    if isinstance(expected, str) and isinstance(got, float):
        try:
            float(expected)
        except ValueError:
            return False
        decimals = len(expected.split(".")[1]) if "." in expected else 0
        cut = math.trunc(got * 10**decimals) / 10**decimals  # some pages cut the digits off
        return expected in (f"{got:.{decimals}f}", f"{cut:.{decimals}f}")
    return type(expected) is type(got) and expected == got


class FamilyProbes:
    SET = ""
    MICROSOFT: ClassVar[list[tuple[str, object, str]]] = []
    PROBES: ClassVar[list[str]] = []
    EXCEL_NOT_LO: ClassVar[dict[str, tuple[object, str]]] = {}
    UNDECIDED: ClassVar[dict[str, tuple[object, object]]] = {}
    SHEETS: ClassVar[dict[str, list[list[object]]]] = {}
    REL = 1e-9

    @classmethod
    def formulas(cls) -> list[str]:
        out = [f for f, _, _ in cls.MICROSOFT]
        return out + [p for p in [*cls.PROBES, *cls.EXCEL_NOT_LO, *cls.UNDECIDED] if p not in out]

    @classmethod
    def pytest_generate_tests(cls, metafunc):
        if "microsoft" in metafunc.fixturenames:
            metafunc.parametrize("microsoft", cls.MICROSOFT, ids=[m[0] for m in cls.MICROSOFT])
        if "formula" in metafunc.fixturenames:
            metafunc.parametrize("formula", cls.formulas(), ids=cls.formulas())

    @pytest.fixture(scope="class")
    @classmethod
    def book(cls, tmp_path_factory):
        path = probe_book(tmp_path_factory.mktemp(cls.SET) / f"{cls.SET}.xlsx", cls.formulas())
        if cls.SHEETS:
            wb = openpyxl.load_workbook(path)
            for name, rows in cls.SHEETS.items():
                ws = wb.create_sheet(name)
                for row in rows:
                    ws.append(row)
            wb.save(path)
        return path

    @pytest.fixture(scope="class")
    @classmethod
    def ours(cls, book):
        cells = evaluate_workbook(book, functions={})
        return {f: cells.get(("Probes", f"B{i}")) for i, f in enumerate(cls.formulas(), start=1)}

    @pytest.fixture(scope="class")
    @classmethod
    def lo_recorded(cls):
        rec = recorded(cls.SET, RECORDING)
        missing = [f for f in cls.formulas() if f not in rec]
        assert not missing, f"{len(missing)} probes have no recorded answer ({missing[:3]}): {REGENERATE}"
        return rec

    def test_microsoft_example(self, ours, microsoft):
        formula, expected, url = microsoft
        assert url.startswith("https://support.microsoft.com/"), url
        got = ours[formula]
        assert shows(expected, got), f"{formula}: Microsoft shows {expected!r} ({url}), engine {got!r}"

    def test_matches_recorded_libreoffice(self, ours, lo_recorded, formula):
        got, lo = ours[formula], lo_recorded[formula]
        if formula in self.UNDECIDED:
            engine, libreoffice = self.UNDECIDED[formula]
            assert same(engine, got) and same(libreoffice, lo), (
                f"{formula}: engine {got!r}, LibreOffice {lo!r}"
            )
            return
        if formula in self.EXCEL_NOT_LO:
            expected, why = self.EXCEL_NOT_LO[formula]
            agrees = shows if isinstance(expected, str) else same  # a str: as Microsoft shows it
            assert agrees(expected, got), f"{formula}: Excel gives {expected!r} ({why}), engine {got!r}"
            assert not agrees(expected, lo), f"{formula}: LibreOffice now agrees with Excel ({why})"
            return
        assert same(lo, got, self.REL), f"{formula}: LibreOffice {lo!r}, engine {got!r}"

    @requires_soffice
    def test_recording_equals_live_libreoffice(self, book, tmp_path_factory):
        lo = lo_values(recalculate(book, tmp_path_factory.mktemp(f"{self.SET}_lo")))
        live = {f: lo.get(("Probes", f"B{i}")) for i, f in enumerate(self.formulas(), start=1)}
        bad = verify_or_refresh(self.SET, live, self.REL, RECORDING, REGENERATE)
        assert not bad, f"{len(bad)} answers changed, first: {bad[:5]}; refresh with: {REGENERATE}"
