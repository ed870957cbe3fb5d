"""Inference cost per million tokens at a measured rate, and CO2 from energy."""

from __future__ import annotations

import numpy as np
import pytest

from gputco import udfs
from gputco.udfs.energy import grid_factor


def test_cost_per_mtok_at_rate_is_inferencex_formula():
    # InferenceX-app PR #391: $/M tokens = $/GPU-hr x 1e6 / (tok/s x 3600).
    assert udfs.tco_cost_per_mtok_at_rate(2.0, 500.0) == pytest.approx(2.0 * 1e6 / (500 * 3600))
    # utilisation divides the hourly cost (idle hours are paid for)
    assert udfs.tco_cost_per_mtok_at_rate(2.0, 500.0, 0.5) == pytest.approx(
        2 * udfs.tco_cost_per_mtok_at_rate(2.0, 500.0)
    )


def test_cost_per_mtok_at_rate_agrees_with_the_training_cost_at_the_same_throughput():
    # SA-2025-08: 54.2 cents per Mtok at $1.42 and 39.5% FP8 MFU on GPT-3 175B.
    tps = udfs.tco_tokens_per_gpu_second(udfs.tco_flops_per_token("gpt3_175b"), 1978.9, 0.395)
    assert udfs.tco_cost_per_mtok_at_rate(1.42, tps) == pytest.approx(
        udfs.tco_cost_per_mtok(1.42, udfs.tco_flops_per_token("gpt3_175b"), 1978.9, 0.395), rel=1e-12
    )
    assert udfs.tco_cost_per_mtok_at_rate(1.42, tps) == pytest.approx(0.542, rel=0.01)


def test_cost_per_mtok_at_rate_vectorised_and_checked():
    out = udfs.tco_cost_per_mtok_at_rate(np.array([1.0, 2.0]), 1000.0, [1.0, 0.5])
    assert out.tolist() == pytest.approx([1e6 / 3.6e6, 4e6 / 3.6e6])
    with pytest.raises(udfs.InputRangeError, match=r"utilisation must be in \(0, 1\], got 0"):
        udfs.tco_cost_per_mtok_at_rate(1.0, 1000.0, 0.0)
    with pytest.raises(udfs.InputRangeError, match="tokens_per_gpu_second"):
        udfs.tco_cost_per_mtok_at_rate(1.0, -5.0)


def test_co2_default_is_the_eia_us_average():
    # US EIA FAQ 74 (2022): 1,650 million tonnes of CO2 from 4,230,672 million kWh.
    assert udfs.KG_CO2_PER_KWH_US == pytest.approx(1650e9 / 4230672e6, rel=1e-4)
    one_gwh = 1e6 * 3.6e6  # J
    assert udfs.tco_co2_tonnes(one_gwh) == pytest.approx(390.0, rel=1e-4)
    # EIA's own rounding: 0.86 lb/kWh
    assert udfs.KG_CO2_PER_KWH_US / 0.45359237 == pytest.approx(0.86, abs=0.005)


def test_co2_for_the_articles_gpt3_run_and_other_grids():
    # SA-2025-08: 300B GPT-3 tokens at 2.46 J/token (FP8) = 19 household-years; on the US-average
    # grid that is about 80 tonnes of CO2, on coal about 214.
    joules = 300e9 * 2.46
    assert udfs.tco_co2_tonnes(joules) == pytest.approx(79.95, abs=0.05)
    assert udfs.tco_co2_tonnes(joules, grid_factor("us_coal")) == pytest.approx(214.0, abs=0.1)
    assert udfs.tco_co2_tonnes([joules, 0.0], [0.0, 1.0]).tolist() == [0.0, 0.0]
    with pytest.raises(udfs.InputRangeError, match="kg_co2_per_kwh"):
        udfs.tco_co2_tonnes(1.0, -0.1)
    with pytest.raises(udfs.UnknownNameError, match="us_average"):
        grid_factor("mars")
