"""`gputco scenarios SPEC.toml -o FILE`: a scenario workbook (grid, sensitivity, Monte Carlo)."""

from __future__ import annotations

import argparse

import numpy as np

from gputco.addin.budget_flags import add_budget_argument, add_timeout_argument, timeout_of

from .commands import add_workbook_output, command

DEFAULT_OUTPUT = "scenarios.xlsx"


def add_parser(sub) -> None:
    p = command(
        sub,
        "scenarios",
        "Write a scenario workbook: one row per combination of the SPEC's [grid] "
        "(the whole chain in native formulas, with TCO_ cross-checks), a Summary per system, a "
        "Sensitivity tornado and, with [monte_carlo], Monte Carlo draws with P10/P50/P90. Every "
        "formula carries its computed value. `gputco scenarios --example` prints a commented "
        "SPEC to start from.",
    )
    p.add_argument("spec", nargs="?", metavar="SPEC", help="the SPEC file (TOML)")
    add_workbook_output(p, DEFAULT_OUTPUT)
    p.add_argument("--force", action="store_true", help="replace FILE if it exists")
    add_budget_argument(p)
    add_timeout_argument(p, None, "reading the SPEC, computing and writing the workbook")
    p.add_argument("--example", action="store_true", help="print a commented example SPEC and exit")
    p.set_defaults(run=run)


def _xlwings_rows():
    from .xlwings_conf import xlwings_conf_rows

    return [tuple(r) for r in xlwings_conf_rows()]


def run(args: argparse.Namespace) -> int:
    from gputco.udfs.errors import MissingValueError
    from gputco.workbook.scenarios.build import load_spec, write_scenarios
    from gputco.workbook.scenarios.example import EXAMPLE

    if args.example:
        print(EXAMPLE, end="")
        return 0
    if not args.spec:
        raise MissingValueError(
            "SPEC", "name a SPEC file (TOML), or print an example with gputco scenarios --example"
        )
    from gputco.workbook.recalc import budgets
    from gputco.workbook.timebudget import time_budget

    limits, timeout = budgets(args.budget), timeout_of(args)
    with time_budget(timeout, alarm=True):  # every phase: the SPEC's reading included
        spec = load_spec(args.spec, limits)
        result = write_scenarios(spec, args.output, force=args.force, xlwings_rows=_xlwings_rows())
    print(summary(result))
    return 0


def summary(result) -> str:
    """The one-screen summary of a written scenario workbook (numbers from the model)."""
    from gputco.udfs import scenario
    from gputco.workbook.scenarios.build import describe
    from gputco.workbook.scenarios.sensitivity import metric

    spec, out = result.spec, result.results
    mc = spec.monte_carlo
    sheets = "Summary, Scenarios, Sensitivity" + (
        f", MonteCarlo ({mc.draws:,} draws, seed {mc.seed})" if mc else ""
    )
    tco, mtok, npv = out["tco_usd_per_gpu_hour"], out["usd_per_mtok"], out["project_npv_usd_per_gpu"]
    rented = bool(np.isfinite(npv).any())  # a rent is given: the decision is the NPV's
    lines = [
        f"wrote {result.path} in {result.build_seconds + result.recalc_seconds:.2f} s "
        f"(build {result.build_seconds:.2f} s, recalc {result.recalc_seconds:.2f} s)",
        f"{describe(spec)}; sheets {sheets}",
        "TCO in USD per GPU-hour, $/Mtok in USD per million tokens; cheapest = the "
        "scenario number with the lowest $/Mtok"
        + ("; NPV in USD per GPU, best NPV = the scenario number with the highest" if rented else ""),
        f"{'system':<16}{'scenarios':>10}{'TCO min':>10}{'median':>9}{'max':>9}"
        f"{'$/Mtok min':>12}{'median':>9}{'max':>9}{'cheapest':>10}"
        + (f"{'NPV max':>12}{'best NPV':>10}" if rented else ""),
    ]
    groups = []
    if "system" in spec.grid:
        codes = spec.grid_columns()["system"].codes
        groups = [(s, codes == i) for i, s in enumerate(spec.grid["system"])]
    label = "all scenarios" if groups else spec.base.get("system", "H100_HGX")
    groups.append((label, np.ones(len(tco), dtype=bool)))
    for name, mask in groups:
        t, m = tco[mask], mtok[mask]
        cheapest = int(np.flatnonzero(mask)[np.argmin(m)]) + 1
        line = (
            f"{name:<16}{int(mask.sum()):>10,}{t.min():>10.4f}{np.median(t):>9.4f}"
            f"{t.max():>9.4f}{m.min():>12.4f}{np.median(m):>9.4f}{m.max():>9.4f}"
            f"{cheapest:>10,}"
        )
        if rented:
            v = np.where(np.isfinite(npv[mask]), npv[mask], -np.inf)
            best = int(np.flatnonzero(mask)[np.argmax(v)]) + 1
            line += f"{v.max():>12,.0f}{best:>10,}" if np.isfinite(v.max()) else f"{'no rent':>12}{'':>10}"
        lines.append(line)
    base = ", ".join(
        f"{k} {v}" for k, v in spec.base.items() if k in ("system", "buyer", "model", "precision")
    )
    if result.sensitivity:
        key = metric(spec)
        label, shown = ("NPV", "{:,.0f}") if key == "project_npv_usd_per_gpu" else ("$/Mtok", "{:.4f}")
        at_base = float(scenario.evaluate(spec.base)[key][0])
        lines.append(
            f"sensitivity, ranked by {label}: {label} {shown.format(at_base)} at the base ({base}); "
            "each driver low .. high"
        )
        for d, _b, lo, hi, m_lo, m_hi in result.sensitivity:
            lines.append(
                f"  {d:<24}{_num(lo):>10} .. {_num(hi):<10}  {label} "
                f"{shown.format(m_lo)} .. {shown.format(m_hi)}"
            )
    if result.monte_carlo is not None:
        draws_npv = result.monte_carlo["project_npv_usd_per_gpu"]
        if np.isfinite(draws_npv).any():
            given = draws_npv[np.isfinite(draws_npv)]
            lines.append(
                "Monte Carlo NPV per GPU P10 / P50 / P90: "
                + " / ".join(f"{x:,.0f}" for x in np.percentile(given, [10, 50, 90]))
                + f"; P(NPV < 0) {np.mean(given < 0):.1%} of {given.size:,} draws with a rent"
            )
        p = {
            k: np.percentile(result.monte_carlo[k], [10, 50, 90])
            for k in ("tco_usd_per_gpu_hour", "usd_per_mtok")
        }
        lines.append(
            "Monte Carlo P10 / P50 / P90: TCO $/GPU-h "
            + " / ".join(f"{x:.4f}" for x in p["tco_usd_per_gpu_hour"])
            + "; $/Mtok "
            + " / ".join(f"{x:.4f}" for x in p["usd_per_mtok"])
        )
    return "\n".join(lines)


def _num(x: float) -> str:
    return f"{x:,.0f}" if abs(x) >= 1000 else f"{x:.4g}"
