"""The finance workbook (`gputco template`): H100 HGX vs GB200 NVL72 TCO, with numbers everywhere.

Flow: build the sheets with openpyxl -> save to a temporary file beside the destination -> fill
the cached value of every formula with the headless recalculation -> rename onto the destination
(refusing to replace an existing file unless ``force``).

>>> from gputco.workbook.finance.build import build_workbook
>>> wb = build_workbook(["H100_HGX", "GB200_NVL72"])
>>> wb.sheetnames
['Cover', 'Inputs', 'Model', 'Compare', 'Cash flow 1', 'Cash flow 2', 'Benchmarks', 'Checks',
 'Presets', 'xlwings.conf']
>>> wb.defined_names["inp_mfu_2"].attr_text  # system 2's MFU: an input cell on Inputs
"'Inputs'!$E$28"
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from openpyxl import Workbook

from gputco.udfs import UDFS, presets
from gputco.udfs.errors import MissingValueError
from gputco.workbook.finance import benchmarks as sheet_benchmarks
from gputco.workbook.finance import cashflow, flags
from gputco.workbook.finance import checks as sheet_checks
from gputco.workbook.finance import compare as sheet_compare
from gputco.workbook.finance import cover as sheet_cover
from gputco.workbook.finance import inputs as sheet_inputs
from gputco.workbook.finance import model as sheet_model
from gputco.workbook.recalc import RecalcError, RecalcReport, recalc_file
from gputco.workbook.xlsx import calc, cells, chartcache, inputcheck, xlwings_sheet
from gputco.workbook.xlsx import presets_sheet as sheet_presets
from gputco.workbook.xlsx.book import BookBuilder
from gputco.workbook.xlsx.files import atomic_output
from gputco.workbook.xlsx.setinputs import set_inputs

DEFAULT_SYSTEMS = ("H100_HGX", "GB200_NVL72")
SHEET_ORDER = (
    "Cover",
    "Inputs",
    "Model",
    "Compare",
    "Benchmarks",
    "Checks",
    "Presets",
    xlwings_sheet.XLWINGS_SHEET,
)
MAX_SYSTEMS = 10


@dataclass(frozen=True)
class TemplateResult:
    """What :func:`write_template` wrote, and how long each stage took (seconds)."""

    path: Path
    systems: tuple[str, ...]
    buyer: str
    build_seconds: float
    recalc_seconds: float
    recalc_report: RecalcReport


def system_keys(systems: str | Sequence[str]) -> list[str]:
    """Preset keys of a comma-separated list (or sequence) of system names, validated."""
    items = systems.split(",") if isinstance(systems, str) else list(systems)
    keys = [presets.system(s.strip()).key for s in items if s.strip()]
    if not keys:
        raise MissingValueError("systems", "name at least one system preset")
    if len(keys) > MAX_SYSTEMS:
        from gputco.udfs.errors import InputRangeError

        raise InputRangeError("number of systems", len(keys), f"[1, {MAX_SYSTEMS}]")
    return keys


def build_workbook(
    systems: str | Sequence[str] = DEFAULT_SYSTEMS,
    buyer: str = presets.DEFAULT_BUYER,
    xlwings_rows: list[tuple[str, str]] | None = None,
) -> Workbook:
    """The finance workbook in memory (formulas without cached values)."""
    wb = Workbook()
    wb.remove(wb.active)
    inputcheck.mark(wb, "finance")
    book = BookBuilder(wb, system_keys(systems), presets.buyer(buyer).key)
    sheet_presets.build(book)
    sheet_inputs.build(book)
    sheet_model.build(book)
    sheet_compare.build(book)
    sheet_benchmarks.build(book)
    sheet_checks.build(book)
    flags.build_flags(book)
    flags.build_banners(book)
    cashflow.build(book)
    sheet_cover.build(book)
    xlwings_sheet.build_xlwings_conf(book, xlwings_rows)
    order = [*SHEET_ORDER[:4], *(cashflow.sheet_name(k) for k in range(1, book.n + 1)), *SHEET_ORDER[4:]]
    for i, name in enumerate(order):
        wb.move_sheet(name, i - wb.sheetnames.index(name))
    wb.active = 0
    cells.blank_empty_texts(wb)
    cashflow.fit_charts(wb)  # the charts drawn for the inputs as built (a rent, a contract)
    calc.show_cached_values(wb)  # every formula is written with its value (calc.py)
    return wb


def fill_cached_values(path: str | os.PathLike) -> RecalcReport:
    """Write the cached value of every formula into ``path``, in place: THE one recalc call.

    Uses the headless engine ``gputco.workbook.recalc.recalc_file`` (Excel built-ins + the TCO_ UDFs of
    ``gputco.udfs.UDFS``); a function it does not know raises, and so does anything it could not
    evaluate, so a written workbook never lacks a value.
    """
    report = recalc_file(
        path, path, engine="gputco", functions=UDFS, output=lambda p: atomic_output(p, force=True)
    )
    if report.problems:
        raise RecalcError(
            "the finance workbook did not recalculate cleanly: " + "; ".join(report.problems[:5])
        )
    return report


def write_template(
    path: str | os.PathLike = "gpu-tco.xlsx",
    systems: str | Sequence[str] = DEFAULT_SYSTEMS,
    buyer: str = presets.DEFAULT_BUYER,
    *,
    force: bool = False,
    xlwings_rows: list[tuple[str, str]] | None = None,
    inputs: Mapping[str, object] | None = None,
) -> TemplateResult:
    """Build, recalculate and atomically write the finance workbook to ``path``; ``inputs`` maps
    input names (``inp_debt_fraction``) to the values typed into them (checked as their data
    validation would check them in Excel)."""
    t0 = time.perf_counter()
    wb = build_workbook(systems, buyer, xlwings_rows)
    set_inputs(wb, inputs or {})
    cashflow.fit_charts(wb)
    keys = tuple(system_keys(systems))
    with atomic_output(path, force=force) as tmp:
        wb.save(tmp)
        t1 = time.perf_counter()
        report = fill_cached_values(tmp)
        chartcache.add_caches(tmp)
        t2 = time.perf_counter()
    return TemplateResult(Path(path), keys, presets.buyer(buyer).key, t1 - t0, t2 - t1, report)
