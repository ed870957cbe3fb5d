"""The DSCR break-even rent (issue 40; udfs/project.py ``dscr_breakeven_rent``, docs/project.md):
the market rent at which min_dscr = covenant_dscr, contracts as given. Checked against the
identity itself (min_dscr at the rent found = the covenant, 1e-6), its monotonic neighbours (1%
above: no breach; 1% below: a breach), and an independent closed form from the period lines (each
period's CFADS is linear in the market rent with tax as a refund, today's: the break-even is the
largest over the service periods of the rent at which that period's DSCR is the covenant)."""

from __future__ import annotations

import math

import numpy as np
import project_pin_record
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gputco import udfs
from gputco.udfs import project
from gputco.udfs.errors import NoSolutionError

KEY = project.DSCR_BREAKEVEN


def _case(seed: int, month: bool, repayment: str) -> dict:
    rng = np.random.default_rng(seed)
    case = project_pin_record.draw(rng, month)
    case["debt_fraction"] = round(float(rng.uniform(0.1, 0.8)), 4)
    case["covenant_dscr"] = round(float(rng.uniform(0.5, 2.5)), 3)
    case["debt_repayment"] = repayment
    # contracts as given: their rent pinned to the value the case gives or defaults to
    case["contract_rent_usd_per_gpu_hour"] = float(project.terms(case)["contract_rent_usd_per_gpu_hour"][0])
    return case


def _min_dscr(case: dict, rent: float) -> float:
    return float(project.results({**case, "rent_usd_per_gpu_hour": rent}, ("min_dscr",))["min_dscr"][0])


def _closed_form(case: dict) -> float:
    """max over the service periods of (covenant x service - a) / b, CFADS = a + b x rent there
    (a, b from the period lines at two rents); -inf-free: periods with b = 0 must already hold."""
    one = project.period_lines({**case, "rent_usd_per_gpu_hour": 1.0})
    two = project.period_lines({**case, "rent_usd_per_gpu_hour": 2.0})
    service = one["service"][:, 0]
    b = two["cfads"][:, 0] - one["cfads"][:, 0]
    a = one["cfads"][:, 0] - b
    paying = service > 0
    need = case["covenant_dscr"] * service[paying]
    flat = b[paying] <= 0
    if (a[paying][flat] < need[flat]).any():
        return math.nan
    roots = (need[~flat] - a[paying][~flat]) / b[paying][~flat]
    return max(0.0, float(roots.max())) if roots.size else 0.0


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), month=st.booleans(), repayment=st.sampled_from(["level", "straight"]))
def test_at_the_breakeven_rent_min_dscr_is_the_covenant(seed, month, repayment):
    case = _case(seed, month, repayment)
    out = project.results(case, (KEY,))
    rent, why = float(out[KEY][0]), int(out[f"{KEY}_why"][0])
    want = _closed_form(case)
    if math.isnan(want):
        assert math.isnan(rent) and why == 3
        return
    assert why == 0
    assert rent == pytest.approx(want, rel=1e-9, abs=1e-9)
    cov = case["covenant_dscr"]
    if rent == 0.0:  # the covenant holds even at a market rent of 0
        assert _min_dscr(case, 1e-300) >= cov  # the smallest rent the inputs take; CFADS rises with it
        return
    assert _min_dscr(case, rent) == pytest.approx(cov, rel=1e-6)
    above = project.results({**case, "rent_usd_per_gpu_hour": rent * 1.01}, ("dscr_breach_periods",))
    below = project.results({**case, "rent_usd_per_gpu_hour": rent * 0.99}, ("dscr_breach_periods",))
    assert above["dscr_breach_periods"][0] == 0
    assert below["dscr_breach_periods"][0] >= 1


def test_rows_at_once_equal_rows_one_by_one_and_the_function():
    cases = [_case(s, s % 2 == 0, ("level", "straight")[s % 3 == 0]) for s in range(8)]
    keys = sorted({k for c in cases for k in c} - {"periods", "debt_repayment", "depreciation_method"})
    full = {k: np.array([c.get(k, np.nan) for c in cases]) for k in keys}
    # a missing term takes its default: fill per row from each case's own terms
    for k in keys:
        full[k] = np.array([float(project.terms(c)[k][0]) for c in cases])
    full["periods"] = np.array([c["periods"] for c in cases])
    full["debt_repayment"] = np.array([c["debt_repayment"] for c in cases])
    full["depreciation_method"] = np.array([c.get("depreciation_method", "straight_line") for c in cases])
    together = project.results(full, (KEY,))[KEY]
    for i, c in enumerate(cases):
        alone = project.results(c, (KEY,))[KEY][0]
        assert together[i] == pytest.approx(alone, rel=1e-9, nan_ok=True)
        if not math.isnan(alone):
            req = [c[k] for k in ("capex_per_gpu", "rent_usd_per_gpu_hour", "opex_usd_per_gpu_hour",
                                  "life_years", "cost_of_capital")]  # fmt: skip
            rest = {k: v for k, v in c.items() if k not in project._REQUIRED}
            assert udfs.tco_dscr_breakeven_rent(*req, **rest) == alone


def test_the_memo_case_and_the_refusals_name_why():
    kw = {"periods": "month", "build_months": 12, "ramp_months": 3, "debt_fraction": 0.6, "debt_rate": 0.09,
          "debt_years": 4, "tax_rate": 0.21, "depreciation_method": "macrs_5"}  # fmt: skip
    rent = udfs.tco_dscr_breakeven_rent(31250, 2.0, 0.4045, 5, 0.1, **kw)
    # the first ramp month (a third of the hours sold) is the lowest cover: a high break-even
    assert _min_dscr({"capex_per_gpu": 31250, "rent_usd_per_gpu_hour": 2.0, "opex_usd_per_gpu_hour": 0.4045,
                      "life_years": 5, "cost_of_capital": 0.1, **kw}, rent) == pytest.approx(1.0, rel=1e-6)  # fmt: skip
    with pytest.raises(NoSolutionError, match="no debt service"):
        udfs.tco_dscr_breakeven_rent(31250, 2.0, 0.4045, 5, 0.1)
    with pytest.raises(NoSolutionError, match="debt_repayment 'sculpted'"):
        udfs.tco_dscr_breakeven_rent(31250, 2.0, 0.4045, 5, 0.1, **{**kw, "debt_repayment": "sculpted"})
    # every GPU under contract for the whole life at a rent below the cover: no market rent helps
    with pytest.raises(NoSolutionError, match="every market rent"):
        udfs.tco_dscr_breakeven_rent(31250, 2.0, 0.4045, 5, 0.1, **{**kw, "ramp_months": 0},
                                     contracted_fraction=1.0, contract_rent_usd_per_gpu_hour=0.5)  # fmt: skip
    # contracts alone cover the service: 0, the covenant holding at a market rent of 0
    assert udfs.tco_dscr_breakeven_rent(31250, 2.0, 0.4045, 5, 0.1, **{**kw, "ramp_months": 0},
                                        contracted_fraction=1.0, contract_rent_usd_per_gpu_hour=9.0) == 0.0  # fmt: skip
    with pytest.raises(Exception, match="covenant_dscr"):
        udfs.tco_dscr_breakeven_rent(31250, 2.0, 0.4045, 5, 0.1, **kw, covenant_dscr=-1)
    with pytest.raises(Exception, match="debt_repayment"):
        udfs.tco_dscr_breakeven_rent(31250, 2.0, 0.4045, 5, 0.1, **kw, debt_repayment="balloon")
