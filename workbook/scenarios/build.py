"""Scenario workbooks (`gputco scenarios`): a grid of scenarios, sensitivity and Monte Carlo, live.

Flow: validate the SPEC (:mod:`.scenario_spec`; the model runs on every scenario, so a bad value
fails here, naming its key) -> build the workbook with openpyxl, big blocks as one styled template
row each -> evaluate every formula with the headless engine, the blocks' cells put in place in
memory, and write the blocks' rows with their values in one pass (:func:`gputco.workbook.recalc.fill_blocks`,
:mod:`.rowfill`) -> rename onto the destination (never replacing a file unless ``force``).

Sheets: Summary, Scenarios (one row per scenario), Sensitivity (tornado), MonteCarlo (with a
``[monte_carlo]`` table), Inputs (the named cells every row reads), Presets (the finance
workbook's tables, with sources) and xlwings.conf.

>>> import tempfile, pathlib, openpyxl
>>> path = pathlib.Path(tempfile.mkdtemp()) / "s.xlsx"
>>> spec = parse_spec({"grid": {"system": ["H100_HGX", "GB200_NVL72"], "mfu": [0.4, 0.5]}})
>>> result = write_scenarios(spec, path)
>>> ws = openpyxl.load_workbook(path, data_only=True)["Scenarios"]
>>> keys = [c.value for c in ws[5]]
>>> keys[:3], [round(r[keys.index("usd_per_mtok")].value, 4) for r in ws.iter_rows(min_row=6)]
(['scenario', 'system', 'mfu'], [1.0754, 0.8603, 0.6742, 0.5393])
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from openpyxl import Workbook

from gputco.udfs import UDFS, presets
from gputco.workbook.recalc import RecalcError, RecalcReport, fill_blocks
from gputco.workbook.scenarios import inputs as sheet_scenario_inputs
from gputco.workbook.scenarios import montecarlo as sheet_montecarlo
from gputco.workbook.scenarios import projectcells
from gputco.workbook.scenarios import rows as sheet_scenarios
from gputco.workbook.scenarios import sensitivity as sheet_sensitivity
from gputco.workbook.scenarios import summary as sheet_summary
from gputco.workbook.scenarios.layout import Layout, cash_flow_years
from gputco.workbook.scenarios.spec import Spec, SpecError, load_spec, parse_spec
from gputco.workbook.xlsx import calc, cells, chartcache, inputcheck, xlwings_sheet
from gputco.workbook.xlsx import presets_sheet as sheet_presets
from gputco.workbook.xlsx.book import BookBuilder
from gputco.workbook.xlsx.files import atomic_output
from gputco.workbook.xlsx.rowfill import fill_rows

__all__ = ["ScenariosResult", "build", "load_spec", "parse_spec", "write_scenarios"]

SHEET_ORDER = (
    "Summary",
    "Scenarios",
    "Sensitivity",
    "MonteCarlo",
    "Inputs",
    "Presets",
    xlwings_sheet.XLWINGS_SHEET,
)


@dataclass(frozen=True)
class ScenariosResult:
    """What :func:`write_scenarios` wrote: the path, the model's results and timings (seconds)."""

    path: Path
    spec: Spec
    results: dict[str, np.ndarray]  # udfs.scenario.evaluate of every scenario, in row order
    sensitivity: list[tuple[str, float, float, float, float, float]]
    monte_carlo: dict[str, np.ndarray] | None  # the results of every draw
    build_seconds: float
    recalc_seconds: float
    recalc_report: RecalcReport


@dataclass(frozen=True)
class Built:
    """A built workbook and the row blocks still to be written into its file."""

    wb: Workbook
    fills: list[tuple[str, int, list]]
    sensitivity: list


def describe(spec: Spec) -> str:
    """One line: the grid, e.g. ``system 2 x mfu 5 = 10 scenarios`` (lists zipped together are
    one axis: ``system+mfu 2``)."""
    sizes = " x ".join(f"{'+'.join(axis)} {len(spec.grid[axis[0]])}" for axis in spec.axes())
    return f"grid: {sizes} = {spec.n_scenarios:,} scenarios"


def uses_project(spec: Spec) -> bool:
    """Does the SPEC set a project input (build, debt, MACRS...: docs/project.md) anywhere? Then
    every block of rows carries the project's periods (:mod:`.projectcells`)."""
    names = [*spec.grid, *spec.fixed, *spec.base, *spec.drivers]
    if spec.monte_carlo is not None:
        names += list(spec.monte_carlo.dists)
    return projectcells.uses_project(names)


def _project_last(spec: Spec, inputs, table: str, rows: int) -> int:
    """The last period of a block's cells; a block too big for them is refused, naming the table,
    its rows x periods and the limit."""
    last = projectcells.last_period(inputs)
    size = rows * (last + 1)
    if last and size > projectcells.MAX_ROW_PERIODS:
        raise SpecError(
            table,
            f"{rows:,} rows x {last + 1} periods = {size:,} row-periods; a scenario workbook with "
            f"project inputs holds at most {projectcells.MAX_ROW_PERIODS:,} per sheet (each period "
            f'is {len(projectcells.CELLS)} cells a row): fewer rows, periods = "year", or `gputco batch` (no limit)',
        )
    return last


def build(spec: Spec, xlwings_rows: list[tuple[str, str]] | None = None) -> Built:
    """The workbook in memory (formulas without values) and its pending row blocks."""
    project = uses_project(spec)
    wb = Workbook()
    wb.remove(wb.active)
    inputcheck.mark(wb, "scenarios")
    systems = list(spec.grid.get("system", [spec.base.get("system", "H100_HGX")]))
    book = BookBuilder(wb, systems, spec.base.get("buyer", presets.DEFAULT_BUYER))
    sheet_presets.build(book)
    grid = Layout(
        list(spec.grid),
        "inp_",
        "use_",
        first_col=2,
        checks=True,
        last_year=0 if project else cash_flow_years(spec.scenario_inputs()),
        project=_project_last(spec, spec.scenario_inputs(), "grid", spec.n_scenarios) if project else None,
        absolute_rows=spec.waterfall,
    )
    base = Layout([], "base_", "base_use_", first_col=2, absolute_rows=spec.waterfall)
    where = {
        k: f"Scenarios column {grid.letter(k)} ({len(v)} values: the [grid])" for k, v in spec.grid.items()
    }
    sheet_scenario_inputs.build(book, grid, base, spec.fixed, spec.base, where, project)
    fills = []
    first, cols = sheet_scenarios.build(
        book, grid, spec.grid_columns(), spec.n_scenarios, describe(spec) + "; everything else on Inputs"
    )
    fills.append(("Scenarios", first, cols))
    cases = sheet_sensitivity.build(book, spec, base, project)
    mc_rows = None
    if spec.monte_carlo is not None:
        draws = {**spec.base, **spec.monte_carlo.sample()}
        first, cols, mc_rows = sheet_montecarlo.build(
            book,
            spec.monte_carlo,
            base,
            cash_flow_years(draws),
            _project_last(spec, draws, "monte_carlo.draws", spec.monte_carlo.draws) if project else None,
        )
        fills.append(("MonteCarlo", first, cols))
    sheet_summary.build(
        book,
        grid,
        list(spec.grid["system"]) if "system" in spec.grid else None,
        spec.n_scenarios,
        describe(spec),
        mc_rows,
        bool(cases),
    )
    xlwings_sheet.build_xlwings_conf(book, xlwings_rows)
    order = [s for s in SHEET_ORDER if s in wb.sheetnames]
    for i, name in enumerate(order):
        wb.move_sheet(name, i - wb.sheetnames.index(name))
    wb.active = 0
    cells.blank_empty_texts(wb)
    calc.show_cached_values(wb)  # every formula is written with its value (calc.py)
    return Built(wb, fills, cases)


def write_scenarios(
    spec: Spec,
    path: str | os.PathLike,
    *,
    force: bool = False,
    xlwings_rows: list[tuple[str, str]] | None = None,
) -> ScenariosResult:
    """Build, recalculate and atomically write the scenario workbook of ``spec`` to ``path``.

    The big blocks' rows are written once, formulas with their values (:func:`gputco.workbook.recalc.fill_blocks`)."""
    return _write(spec, path, force, xlwings_rows, lambda p, fills: fill_blocks(p, fills, fill_rows, UDFS))


def _write(
    spec: Spec, path: str | os.PathLike, force: bool, xlwings_rows: list[tuple[str, str]] | None, fill
) -> ScenariosResult:
    t0 = time.perf_counter()
    results, mc = spec.results, spec.draw_results  # evaluated once, when the SPEC was checked
    built = build(spec, xlwings_rows)
    with atomic_output(path, force=force) as tmp:
        built.wb.save(tmp)
        t1 = time.perf_counter()
        report = fill(Path(tmp), built.fills)
        if report.problems:
            raise RecalcError(
                "the scenario workbook did not recalculate cleanly: " + "; ".join(report.problems[:5])
            )
        chartcache.add_caches(tmp)
        t2 = time.perf_counter()
    return ScenariosResult(Path(path), spec, results, built.sensitivity, mc, t1 - t0, t2 - t1, report)
