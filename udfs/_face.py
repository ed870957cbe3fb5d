"""udfs' internal face: the modules (and, where narrower, the names) of ``gputco.udfs`` that
``gputco.workbook`` and ``gputco.addin`` may import, each with its job group and why. Everything
else in udfs/ is private to udfs; ``gputco.udfs`` itself (its ``__all__`` and ``UDFS``) is the
public face. tests/test_layout.py enforces this over workbook/ and addin/ (docs/architecture.md,
"udfs' internal face"). The groups are the subpackages udfs/ is to be split into next.
"""

from __future__ import annotations

#: job groups: the model and its steps, the maths, the catalog of presets, ranges and registry
MODEL, MATHS, CATALOG, RANGES = "model", "maths", "catalog", "ranges+registry"

#: module -> (job group, names other packages may use or None for the whole module, why)
FACE: dict[str, tuple[str, frozenset[str] | None, str]] = {
    "chain": (MODEL, None, "the workbooks lay out the chain's steps and formulas (one chain)"),
    "scenario": (MODEL, None, "batch and the scenario workbook evaluate the chain per row"),
    "periodlines": (MODEL, None, "the workbooks lay out the project's period lines, written once"),
    "project": (
        MODEL,
        frozenset(
            {"CHOICES", "CURVE_TERMS", "DEPRECIATION_METHODS", "MACRS", "MAX_LIFE", "PERIODS", "REPAYMENTS"}
            | {"SIZINGS"}
            | {"TAX_LOSSES", "RATE_BASES"}
            | {"ON_DEBT"}
            | {"DSCR_BREAKEVEN_REASONS", "WATERFALL_TERMS"}
            | {"FINANCED", "LTV"}
            | {"PROJECT_INPUTS", "TERMS", "choice"}
        ),
        "the project's inputs, choices and MACRS table for the workbooks' input cells",
    ),
    "decisions": (MODEL, frozenset({"MAX_LIFE"}), "the longest life a year table holds"),
    "decision_steps": (
        MODEL,
        frozenset({"NO_MARKET_RENT"}),
        "batch tells a break-even rent that cannot exist (no market rent sold) from a missing one",
    ),
    "sampling": (
        MATHS,
        frozenset({"check", "describe", "draw"}),
        "the scenario spec's distributions, drawn as the model draws them",
    ),
    "compute": (MATHS, frozenset({"CONVENTIONS"}), "the FLOPs-per-token conventions listed on Presets"),
    "excel": (MATHS, frozenset({"formula_literal"}), "a value written as an Excel literal, one way"),
    "presets": (CATALOG, None, "the workbooks, batch and the CLI show and look up the presets"),
    "curves": (
        CATALOG,
        frozenset({"CURVES", "parse", "text"}),
        "a market curve written as text on Presets; a curve typed into an input cell read as the "
        "model reads it (--set, gputco recalc's range warnings)",
    ),
    "calibration": (CATALOG, frozenset({"calibration_table"}), "the calibration table on Benchmarks"),
    "published": (CATALOG, frozenset({"speedup_table"}), "published speed-ups on Benchmarks and the report"),
    "ranges": (RANGES, None, "the one range table behind validation, input flags and batch checks"),
    "registry": (RANGES, None, "the TCO_ functions' specs for the add-ins, docs and formula checks"),
    "errors": (RANGES, None, "the error hierarchy every package raises and catches"),
    "_check": (
        RANGES,
        frozenset({"checked", "in_range", "parameters"}),
        "argument checks with the model's own messages (setinputs, the report)",
    ),
}
