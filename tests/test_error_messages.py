"""Small error-message points, each pinned: errors that name the argument (system_a or
system_b), and TCO_BREAKEVEN_RENT at extreme in-range inputs (precise, or a clear "no break-even",
never an internal ZeroDivisionError).

Oracles: the identity of docs/udfs.md, TCO_BREAKEVEN_RENT = TCO_CAPITAL_PER_GPU_HOUR + opex at
availability = utilisation = 1 and no tax (the level annuity, Excel's PMT / 8760), which holds at
every scale; and the definition itself, NPV at the break-even rent = 0 (TCO_NPV).
"""

from __future__ import annotations

import math

import pytest

from gputco import udfs
from gputco.udfs import decisions

U = udfs.UDFS
VALID = "valid: B200_HGX"


@pytest.mark.parametrize(
    ("name", "args", "which"),
    [
        ("TCO_RATIO", ("H100_HGX", "H100"), "system_b"),
        ("TCO_RATIO", ("H100", "H100_HGX"), "system_a"),
        ("TCO_BREAKEVEN_MFU", (0.5, "H100_HGX", "GB200", "bf16"), "system_b"),
        ("TCO_BREAKEVEN_MFU", (0.5, "GB200", "H100_HGX", "bf16"), "system_a"),
    ],
)
def test_an_unknown_system_names_its_argument(name, args, which):
    got = U[name](*args)
    assert got.startswith(f"#N/A unknown {which} '") and VALID in got, got


def test_a_missing_peak_names_the_system_argument():
    # H100 has no FP4 peak: which of the two systems lacks it?
    assert U["TCO_BREAKEVEN_MFU"](0.5, "H100_HGX", "GB200_NVL72", "fp4").startswith(
        "#VALUE! system_a: system H100_HGX field peak_tflops_fp4 is required"
    )
    assert U["TCO_BREAKEVEN_MFU"](0.5, "GB200_NVL72", "H100_HGX", "fp4").startswith(
        "#VALUE! system_b: system H100_HGX field peak_tflops_fp4 is required"
    )


@pytest.mark.parametrize("scale", [1e-200, 1e-12, 1.0, 1e12, 1e200])
@pytest.mark.parametrize(("life", "rate"), [(1, 0.0), (5, 0.1305), (15, 1.0)])
def test_breakeven_rent_is_the_level_annuity_at_every_scale(scale, life, rate):
    capex, opex = 31250 * scale, 0.4 * scale
    want = udfs.tco_capital_per_gpu_hour(capex, rate, life) + opex
    got = decisions.tco_breakeven_rent(capex, opex, life, rate)
    assert math.isclose(got, want, rel_tol=1e-12), (got, want)


@pytest.mark.parametrize(
    "kw",
    [
        dict(availability=1e-10, utilisation=1e-10),  # before: ZeroDivisionError
        dict(availability=0.9, utilisation=0.8, tax_rate=0.3, residual_fraction=0.2),
        dict(availability=1e-150, utilisation=1.0, rent_decline_per_year=0.5),
    ],
)
def test_npv_at_the_breakeven_rent_is_zero(kw):
    capex, opex, life, rate = 1e15, 0.4, 5, 0.1
    rent = decisions.tco_breakeven_rent(capex, opex, life, rate, **kw)
    npv = decisions.tco_npv(capex, rent, opex, life, rate, **kw)
    assert abs(npv) <= 1e-9 * capex, (rent, npv)


def test_no_breakeven_rent_says_so_instead_of_an_internal_error():
    # availability x utilisation underflows: no rent pays for anything
    got = U["TCO_BREAKEVEN_RENT"](30000, 0.4, 5, 0.1, 0, 1e-320, 1e-320)
    assert got.startswith("#NUM! no break-even rent: the revenue of any rent discounts to 0"), got
    with pytest.raises(udfs.errors.NoSolutionError):
        decisions.tco_breakeven_rent(30000, 0.4, 5, 0.1, availability=1e-320, utilisation=1e-320)
