"""The project's break-even rent and utilisation with ``tax_losses`` ``carry_forward`` (issue 40,
step 4): the tax is then not linear in the rent or the utilisation (a loss carried moves tax to
later periods), so the line's root of the refund case is not theirs; they are searched (udfs/
yearflows.py ``_carried_root``). Checked by the identity that defines them, NPV at the break-even
= 0 (to 1e-6 of the capex; NPV evaluated from the project's own period lines by numpy-financial's
npv, an outside oracle for the discounting), on drawn scenarios by year and by month through
scenario.evaluate and batch; refund rows keep the line's root bit for bit; rows where none breaks
even say so as before."""

from __future__ import annotations

import csv
import math

import numpy as np
import numpy_financial as npf
import pytest

from gputco.addin.cli import main
from gputco.udfs import project, scenario

RENT, UTIL = "project_breakeven_rent_usd_per_gpu_hour", "project_breakeven_utilisation"


def _inputs(n: int, seed: int, losses: str | None = None) -> dict:
    rng = np.random.default_rng(seed)
    return {
        "system": "H100_HGX",
        "mfu": 0.5,
        "rent_usd_per_gpu_hour": rng.uniform(0.8, 4.0, n),
        "periods": np.where(rng.random(n) < 0.5, "month", "year").astype(object),
        "tax_rate": rng.uniform(0.05, 0.35, n),
        "tax_losses": np.full(n, losses, dtype=object)
        if losses
        else np.where(rng.random(n) < 0.5, "carry_forward", "refund").astype(object),
        "depreciation_method": "macrs_5",
        "build_months": 12.0,
        "ramp_months": rng.integers(0, 6, n).astype(float),
        "contracted_fraction": rng.uniform(0.0, 0.8, n),
        "contract_rent_usd_per_gpu_hour": rng.uniform(0.5, 3.0, n),
        "idle_power_fraction": rng.uniform(0.3, 1.0, n),
        "debt_fraction": rng.uniform(0.0, 0.7, n),
    }


def _terms(inputs: dict, out: dict, j: int, **moved) -> dict:
    """Scenario j's project terms (the values the scenario used), ``moved`` changed."""
    used = scenario.used_inputs(inputs)
    terms = {}
    for k in project.TERMS:
        v = used[k] if k in used and used[k] is not None else out.get(k)
        if v is not None:
            terms[k] = float(np.broadcast_to(v, (len(inputs["tax_losses"]),))[j])
    terms.update(
        periods=inputs["periods"][j], tax_losses=inputs["tax_losses"][j], depreciation_method="macrs_5"
    )
    return {**terms, **moved}


def _npv(terms: dict) -> float:
    """NPV of the project's net flows (its period lines) by numpy-financial at the period rate."""
    net = project.period_lines(terms)["net"][:, 0]
    ppy = 12 if terms["periods"] == "month" else 1
    return float(npf.npv((1 + terms["cost_of_capital"]) ** (1 / ppy) - 1, net))


@pytest.mark.parametrize("seed", [1, 2])
def test_npv_at_the_carried_breakevens_is_zero(seed):
    inputs = _inputs(60, 4400 + seed, "carry_forward")
    out = scenario.evaluate(inputs)
    checked = {RENT: 0, UTIL: 0}
    for j in range(60):
        rent, util = float(out[RENT][j]), float(out[UTIL][j])
        capex = _terms(inputs, out, j)["capex_per_gpu"]
        if math.isfinite(rent) and rent > 0:  # (a rent below 0 is the line's root no market pays)
            assert abs(_npv(_terms(inputs, out, j, rent_usd_per_gpu_hour=rent))) <= 1e-6 * capex
            checked[RENT] += 1
        if math.isfinite(util):
            assert 0 < util <= 1
            assert abs(_npv(_terms(inputs, out, j, utilisation=util))) <= 1e-6 * capex
            checked[UTIL] += 1
        else:  # none in (0, 1]: NPV keeps its sign over it
            lo = _npv(_terms(inputs, out, j, utilisation=1e-9))
            hi = _npv(_terms(inputs, out, j, utilisation=1.0))
            assert (lo > 0) == (hi > 0)
    assert checked[RENT] > 40 and checked[UTIL] > 10


def test_the_line_is_not_the_carried_breakeven_and_refund_rows_keep_it():
    """The refund case's line (today's number for every row) misses the carried root by more than
    the tolerance on these draws; refund rows give the line's root, mixed with carried rows or
    alone (to 1e-12: a chunk's flows are held in runs that its rows share, which round NPV in
    the last bits)."""
    inputs = _inputs(60, 4410)
    out = scenario.evaluate(inputs)
    refund = {**inputs, "tax_losses": np.full(60, "refund", dtype=object)}
    line = scenario.evaluate(refund)
    carried = inputs["tax_losses"] == "carry_forward"
    for key in (RENT, UTIL):
        np.testing.assert_allclose(out[key][~carried], line[key][~carried], rtol=1e-12, atol=1e-12)
    rents = np.flatnonzero(np.isfinite(line[RENT]) & carried & (line[RENT] > 0))
    worst = rents[np.argmax(np.abs(out[RENT][rents] - line[RENT][rents]))]
    assert abs(out[RENT][worst] - line[RENT][worst]) > 1e-5
    # the line's root fails the identity where the carried one holds it
    at_line = _npv(_terms(inputs, out, worst, rent_usd_per_gpu_hour=float(line[RENT][worst])))
    assert abs(at_line) > 1e-6 * _terms(inputs, out, worst)["capex_per_gpu"]


def test_batch_gives_the_carried_breakevens(tmp_path):
    inputs = _inputs(12, 4420, "carry_forward")
    out = scenario.evaluate(inputs)
    src = tmp_path / "in.csv"
    cols = [k for k in inputs if k not in ("system", "mfu", "depreciation_method", "build_months")]
    with open(src, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["system", "mfu", "depreciation_method", "build_months", *cols])
        for j in range(12):
            w.writerow(["H100_HGX", 0.5, "macrs_5", 12, *(inputs[k][j] for k in cols)])
    assert main(["batch", str(src), "-o", str(tmp_path / "out.csv")]) == 0
    with open(tmp_path / "out.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    for j, r in enumerate(rows):
        for key in (RENT, UTIL):
            want = float(out[key][j])
            if math.isnan(want):
                assert r[key] == ""
            else:
                assert float(r[key]) == pytest.approx(want, rel=1e-9, abs=1e-12)


def test_the_scenario_rows_say_a_carried_breakeven_is_searched(tmp_path):
    """The scenario workbook (recalculated by gputco's engine): a carry_forward row's break-even
    rent and utilisation cells say why they hold no formula's number (projectcells.CARRIED; the
    search is Python's), a refund row's equal scenario.evaluate (1e-9)."""
    from scenario_book import block, load

    from gputco.workbook.scenarios.build import write_scenarios
    from gputco.workbook.scenarios.projectcells import CARRIED
    from gputco.workbook.scenarios.spec import parse_spec

    spec = parse_spec(
        {
            "grid": {"tax_losses": ["carry_forward", "refund"]},
            "fixed": {
                "system": "H100_HGX",
                "mfu": 0.5,
                "rent_usd_per_gpu_hour": 2.0,
                "periods": "month",
                "ramp_months": 3,
                "build_months": 6,
                "tax_rate": 0.21,
                "depreciation_method": "macrs_5",
                "utilisation": 0.8,
            },
        }
    )
    keys, data, _ = block(load(write_scenarios(spec, tmp_path / "s.xlsx").path)["Scenarios"], "scenario")
    want = scenario.evaluate(spec.scenario_inputs())
    for key in (RENT, UTIL):
        got = [r[keys.index(key)] for r in data]
        assert got[0] == CARRIED and math.isfinite(want[key][0])
        assert got[1] == pytest.approx(want[key][1], rel=1e-9)
