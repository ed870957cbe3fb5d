"""LibreOffice helpers for tests: the real spreadsheet application as the oracle.

One shared place for every test that asks LibreOffice to recalculate a workbook:

- ``requires_soffice``: marker for tests that run LibreOffice: skipped on machines without it
  (the reason says how to install it); in CI (CI=true) they fail instead, as .ci/run installs it;
- ``recalculate(src, out_dir)``: LibreOffice headless opens ``src`` with a profile that forces a
  full recalculation (OOXMLRecalcMode = 0, see docs/engines.md) and saves it as
  .xlsx; returns the new file's path;
- ``recalculate_unthreaded(src, out_dir)``: the same with Calc's threaded calculation of formula
  groups turned off in the profile (the evidence of issue 40's refusal of a reserve, sweep or
  lock-up in the scenario workbooks: LibreOffice 7.4 computes those rows right only so);
- ``formula_cells(path)`` / ``values(path)``: formulas and cached values by (sheet, cell)
  (``formula_cells`` also of a workbook already read);
- ``mismatches(expected, actual, cells)``: a per-cell mismatch report (cell, stored, computed).
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import openpyxl
import pytest

from gputco.workbook.soffice.process import INSTALL_HINT, convert, soffice

#: tests that run LibreOffice: skipped where it is not installed, except in CI (env CI=true),
#: where LibreOffice is installed and a missing soffice FAILS the test (fixture in conftest.py)
requires_soffice = pytest.mark.usefixtures("soffice_required")
SOFFICE_MISSING = f"LibreOffice (soffice) is not installed: {INSTALL_HINT}"


def check_soffice() -> None:
    """Skip (fail in CI) when LibreOffice is not installed."""
    if soffice() is not None:
        return
    if os.environ.get("CI", "").strip().lower() in ("true", "1", "yes"):
        pytest.fail(f"{SOFFICE_MISSING} (CI=true: LibreOffice tests must run here, not skip)")
    pytest.skip(SOFFICE_MISSING)


REL_TOL = 1e-9


def recalculate(src: str | Path, out_dir: str | Path, timeout: float = 180) -> Path:
    """LibreOffice's full recalculation of ``src``, saved as .xlsx in ``out_dir`` (within
    ``timeout`` seconds)."""
    return convert(src, out_dir, "xlsx", timeout=timeout)


#: Calc's setting that turns its threaded calculation of formula groups off (Tools > Options >
#: LibreOffice Calc > Calculate > "Enable multi-threaded calculation"), in a profile's
#: registrymodifications.xcu
UNTHREADED = (
    '<?xml version="1.0" encoding="UTF-8"?>\n<oor:items xmlns:oor="http://openoffice.org/2001/registry" '
    'xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n'
    '<item oor:path="/org.openoffice.Office.Calc/Formula/Calculation">'
    '<prop oor:name="UseThreadedCalculationForFormulaGroups" oor:op="fuse" oor:type="xs:boolean">'
    "<value>false</value></prop></item>\n</oor:items>\n"
)


def recalculate_unthreaded(src: str | Path, out_dir: str | Path, timeout: float = 180) -> Path:
    """:func:`recalculate` in a profile with Calc's threaded group calculation off
    (:data:`UNTHREADED`; the profile is made in ``out_dir``/profile)."""
    profile = Path(out_dir) / "profile"
    xcu = profile / "user" / "registrymodifications.xcu"
    xcu.parent.mkdir(parents=True, exist_ok=True)
    xcu.write_text(UNTHREADED, encoding="utf-8")
    return convert(src, Path(out_dir) / "out", "xlsx", timeout=timeout, profile=profile)


def formula_cells(path: str | Path | openpyxl.Workbook) -> dict[tuple[str, str], str]:
    """Every formula cell: (sheet, coordinate) -> formula text (of a file, or of a workbook
    already read with its formulas, which is not read again)."""
    wb = path if isinstance(path, openpyxl.Workbook) else openpyxl.load_workbook(path)
    return {
        (ws.title, c.coordinate): c.value
        for ws in wb.worksheets
        for row in ws.iter_rows()
        for c in row
        if isinstance(c.value, str) and c.value.startswith("=")
    }


def values(path: str | Path) -> dict[tuple[str, str], object]:
    """Every non-empty cached value: (sheet, coordinate) -> value."""
    wb = openpyxl.load_workbook(path, data_only=True)
    return {
        (ws.title, c.coordinate): c.value
        for ws in wb.worksheets
        for row in ws.iter_rows()
        for c in row
        if c.value is not None
    }


def same(a: object, b: object, rel: float = REL_TOL) -> bool:
    """Numbers within ``rel`` relative (1e-12 absolute near zero); anything else equal."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b or a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return math.isclose(a, b, rel_tol=rel, abs_tol=1e-12)
    return a == b


def mismatches(expected: dict, actual: dict, cells, rel: float = REL_TOL) -> list[str]:
    """One line per cell whose values differ: cell, expected (stored), actual (computed)."""
    return [
        f"{sheet}!{ref}: stored {expected.get((sheet, ref))!r}, computed {actual.get((sheet, ref))!r}"
        for sheet, ref in cells
        if not same(expected.get((sheet, ref)), actual.get((sheet, ref)), rel)
    ]
