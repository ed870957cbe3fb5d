"""Today's project results, pinned: the results and the TCO_PROJECT_CASHFLOWS tables of 400
drawn projects over every term (tests/project_pin_record.py drew them from a fixed seed and
recorded what the code gave on 2026-12-06, before the period lines were written once). Year mode
must give them bit for bit, month mode within 1e-12 (relative to the value, or to the capex for
amounts in USD)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import project_pin_record
import pytest

from gputco.udfs import project

PINNED = json.loads((Path(__file__).parent / "data" / "project_pinned.json").read_text())
REL = 1e-12


def _value(x):
    return (
        math.nan if x is None else {"inf": math.inf, "-inf": -math.inf}.get(x, x) if isinstance(x, str) else x
    )


def _same(got: float, want, year: bool, scale: float) -> bool:
    want = _value(want)
    if math.isnan(want) or math.isnan(got):
        return math.isnan(want) and math.isnan(got)
    if year or math.isinf(want):
        return got == want
    return abs(got - want) <= REL * max(abs(want), scale)


def test_the_pin_covers_both_modes_debt_and_every_method():
    cases = [r["case"] for r in PINNED["results"]]
    assert sum(c["periods"] == "month" for c in cases) == 200
    assert sum(c.get("debt_fraction", 0) > 0 for c in cases) > 200
    assert {c.get("depreciation_method", "straight_line") for c in cases} == set(project.DEPRECIATION_METHODS)
    assert sum(r["results"]["min_dscr"] is not None for r in PINNED["results"]) > 200


@pytest.mark.parametrize("periods", ["year", "month"])
def test_results_are_the_pinned_ones(periods):
    rows = [r for r in PINNED["results"] if r["case"]["periods"] == periods]
    for i, r in enumerate(rows):
        got = project.results(r["case"])
        for k, want in r["results"].items():
            g = float(got[k][0])
            scale = r["case"]["capex_per_gpu"] if "usd" in k or k == "revenue_npv" else 1.0
            assert _same(g, want, periods == "year", scale), (i, k, g, want, r["case"])


@pytest.mark.parametrize("periods", ["year", "month"])
def test_results_in_one_batch_are_the_pinned_ones(periods):
    """The same cases as one call of many rows (batch's path: an IRR's search may end a last bit
    apart from one row's, so the batch is pinned on its own)."""
    rows = [r for r in PINNED["results"] if r["case"]["periods"] == periods]
    got = project.results(project_pin_record.batch_values([r["case"] for r in rows]))
    for k, want in PINNED["batch"][periods].items():
        for i, r in enumerate(rows):
            scale = r["case"]["capex_per_gpu"] if "usd" in k or k == "revenue_npv" else 1.0
            assert _same(float(got[k][i]), want[i], periods == "year", scale), (i, k, got[k][i], want[i])


def test_cashflow_tables_are_the_pinned_ones():
    for t in PINNED["tables"]:
        year = t["case"]["periods"] == "year"
        rows = project.tco_project_cashflows(**t["case"])
        pinned = len(t["rows"][0])  # the columns pinned; later ones appended (issue 40's waterfall)
        assert rows[0][:pinned] == t["rows"][0]
        assert rows[0][pinned:] == ["debt_fee", "reserve_flow", "prepaid"]
        assert len(rows) == len(t["rows"])
        for got, want in zip(rows[1:], t["rows"][1:], strict=True):
            for g, w in zip(got[:pinned], want, strict=True):
                assert _same(g, w, year, t["case"]["capex_per_gpu"]), (t["case"], got, want)
            assert got[pinned:] == [0.0, 0.0, 0.0]  # no fee, reserve or sweep at the defaults
