"""The loan to value in the scenario workbooks (issue 41): with debt, the tornado shows the max LTV
at each driver's low and high (so a value curve's shift, which the cash flows do not read, moves
something), the Monte Carlo its P10/P50/P90 and mean over the draws with debt and
P(max LTV > max_ltv_covenant) over every draw, and Summary both.

Oracle: ``udfs.project.results`` on the same draws and cases (the terms
``udfs.scenario.used_inputs`` gives each), numpy's inclusive percentiles and shares; the workbook
recalculated by gputco's engine, and once by LibreOffice (live).
"""

from __future__ import annotations

import numpy as np
import pytest
from lo import requires_soffice

from gputco.udfs import project, scenario
from gputco.workbook.scenarios import montecarlo, sensitivity
from gputco.workbook.scenarios.spec import parse_spec

COVENANT = 0.8
RAW = {
    "grid": {"system": ["H100_HGX"], "mfu": [0.5]},
    "base": {
        "system": "H100_HGX",
        "mfu": 0.5,
        "rent_usd_per_gpu_hour": 2.2,
        "debt_fraction": 0.6,
        "debt_years": 4,
        "periods": "month",
        "build_months": 3,
        "max_ltv_covenant": COVENANT,
        "value_curve": "value_base",
        "tax_rate": 0.21,
    },
    "sensitivity": {
        "inputs": ["value_curve_shift", "value_curve_slope", "debt_fraction", "rent_usd_per_gpu_hour"],
        "swing": {"value_curve_shift": 0.3, "value_curve_slope": 0.1},
    },
    "monte_carlo": {
        "draws": 40,
        "seed": 3,
        "value_curve_shift": {"dist": "uniform", "low": -0.4, "high": 0.4},
        "debt_fraction": {"dist": "uniform", "low": 0.0, "high": 0.8},
    },
}


def _max_ltv(spec, moved: dict[str, np.ndarray]) -> np.ndarray:
    """``project.results``' max LTV of the base scenario with ``moved`` inputs (one array each)."""
    values = {**spec.base, **moved}
    # the inputs as used, and the chain's own terms (the opex per GPU-hour)
    src = {**scenario.used_inputs(values), **scenario.evaluate(values)}
    terms = {k: v for k, v in src.items() if k in project.TERMS}
    terms.update({k: spec.base[k] for k in ("periods", "value_curve")})
    return project.results(terms, ("max_ltv",))["max_ltv"]


def _read(path) -> tuple[dict[str, tuple], dict[str, list], dict[str, object]]:
    """The tornado's rows by driver (low, high, max LTV at low, at high), the Monte Carlo's
    statistics and shares by key (P10, P50, P90, mean / the share), Summary's by key."""
    from scenario_book import load

    wb = load(path)
    ws = wb[sensitivity.SHEET]
    (col,) = [c for k, _u, c, _h in sensitivity.LENDER if k == "max_ltv"]
    tornado = {}
    for r in range(sensitivity.TABLE_ROW + 1, sensitivity.TABLE_ROW + 1 + len(RAW["sensitivity"]["inputs"])):
        row = [ws.cell(row=r, column=c).value for c in (1, 7, 8, col, col + 1)]
        tornado[row[0]] = tuple(row[1:])
    stats = {
        r[0]: list(r[3:7])
        for r in wb[montecarlo.SHEET].iter_rows(max_row=80, values_only=True)
        if r[0] in ("max_ltv", "p_max_ltv_above_covenant")
    }
    summary = {
        r[0]: list(r[2:6])
        for r in wb["Summary"].iter_rows(values_only=True)
        if r[0] in ("max_ltv", "p_max_ltv_above_covenant")
    }
    return tornado, stats, summary


def _check(spec, path) -> None:
    tornado, stats, summary = _read(path)
    # the tornado: each driver's max LTV at its low and high values = Python's
    assert set(tornado) == set(RAW["sensitivity"]["inputs"])
    for driver, (low, high, at_low, at_high) in tornado.items():
        want = _max_ltv(spec, {driver: np.array([low, high])})
        assert [at_low, at_high] == pytest.approx(want.tolist(), rel=1e-9), driver
    # a value shift divides the max LTV by 1 + shift (the cash flows do not move)
    low, high, at_low, at_high = tornado["value_curve_shift"]
    base = float(_max_ltv(spec, {"value_curve_shift": np.array([0.0])})[0])
    assert at_low == pytest.approx(base / (1 + low), rel=1e-9) and at_high < base < at_low
    # the Monte Carlo: percentiles of the draws with debt, the share of every draw above the covenant
    drawn = spec.monte_carlo.sample()
    ltv = _max_ltv(spec, drawn)
    with_debt = ltv[np.isfinite(ltv)]
    assert with_debt.size == ltv.size  # every draw borrows (a draw without debt has no LTV)
    want = [*np.percentile(with_debt, [10, 50, 90]), with_debt.mean()]
    assert stats["max_ltv"] == pytest.approx(want, rel=1e-9)
    share = float(np.mean(np.where(np.isfinite(ltv), ltv, 0.0) > COVENANT))
    assert 0 < share < 1
    assert stats["p_max_ltv_above_covenant"][0] == pytest.approx(share, rel=1e-12)
    assert summary["max_ltv"] == pytest.approx(want, rel=1e-9)
    assert summary["p_max_ltv_above_covenant"][0] == pytest.approx(share, rel=1e-12)


def test_the_workbook_in_the_engine_equals_project_results(tmp_path):
    from gputco.workbook.scenarios.build import write_scenarios

    spec = parse_spec(RAW)
    _check(spec, write_scenarios(spec, tmp_path / "ltv.xlsx").path)


def test_without_a_covenant_the_share_says_so(tmp_path):
    from scenario_book import load

    from gputco.workbook.scenarios.build import write_scenarios

    raw = {**RAW, "base": {k: v for k, v in RAW["base"].items() if k != "max_ltv_covenant"}}
    raw.pop("sensitivity")
    spec = parse_spec(raw)
    wb = load(write_scenarios(spec, tmp_path / "none.xlsx").path)
    (share,) = [
        r[3] for r in wb[montecarlo.SHEET].iter_rows(values_only=True) if r[0] == "p_max_ltv_above_covenant"
    ]
    assert share == montecarlo.NO_LTV_COVENANT


@requires_soffice
def test_the_workbook_in_libreoffice_equals_project_results(tmp_path):
    from lo import recalculate
    from scenario_book import unrecalculated

    spec = parse_spec(RAW)
    _check(spec, recalculate(unrecalculated(spec, tmp_path / "ltv.xlsx"), tmp_path / "lo"))
