"""udfs.scenario: the full chain from named inputs, row by row, against numpy-financial and the
unit definitions of each step."""

from __future__ import annotations

import functools
import itertools

import numpy as np
import numpy_financial as npf
import pytest

from gputco import udfs
from gputco.udfs import presets, scenario
from gputco.udfs.errors import GputcoError, InputRangeError, MissingValueError, UnknownNameError

SYSTEMS = list(presets.catalog("system"))
BUYERS = list(presets.catalog("buyer"))
MODELS = list(presets.catalog("model"))


def test_every_preset_combination_obeys_the_definitions_and_numpy_financial():
    """Every preset combination through the chain, against outside oracles rather than the catalog
    functions the chain itself calls: the capital charge is numpy-financial's level payment over
    the buyer's life at its cost of capital, per hour of a 8,760-hour year; power and facility are
    kW x PUE x USD/kWh and kW x colo USD/kW-month x 12 / 8,760; the rest are the unit identities
    (FLOP/s delivered = peak TFLOPS x 1e12 x MFU; USD per million tokens, cost, days, J/token)."""
    combos = list(itertools.product(SYSTEMS, BUYERS, MODELS, ["bf16", "fp8"], udfs.CONVENTIONS))
    cols = {
        name: [c[i] for c in combos]
        for i, name in enumerate(["system", "buyer", "model", "precision", "convention"])
    }
    mfu = np.linspace(0.2, 0.6, len(combos))
    tokens, gpus = 1e12, 1024
    out = scenario.evaluate({**cols, "mfu": mfu, "tokens": tokens, "gpus": gpus})
    approx = functools.partial(pytest.approx, rel=1e-12)
    for i, (sy, bu, mo, pr, co) in enumerate(combos):
        row = {key: float(values[i]) for key, values in out.items()}
        where = (sy, bu, mo, pr, co)
        kw = udfs.tco_system(sy, "it_kw_per_gpu")
        capex = udfs.tco_system(sy, "capex_per_gpu") * udfs.tco_buyer(bu, "capex_multiplier")
        rate, life, pue = (udfs.tco_buyer(bu, f) for f in ("cost_of_capital", "life_years", "pue"))
        assert row["capex_per_gpu"] == approx(capex), where
        assert row["capital_usd_per_gpu_hour"] == approx(-npf.pmt(rate, life, capex) / 8760), where
        assert row["power_usd_per_gpu_hour"] == approx(kw * pue * udfs.tco_buyer(bu, "usd_per_kwh")), where
        colo = udfs.tco_buyer(bu, "colo_usd_per_kw_month")
        assert row["facility_usd_per_gpu_hour"] == approx(kw * colo * 12 / 8760), where
        parts = ("capital", "power", "facility", "other")
        assert row["tco_usd_per_gpu_hour"] == approx(sum(row[f"{p}_usd_per_gpu_hour"] for p in parts)), where
        assert row["utility_watts_per_gpu"] == approx(kw * pue * 1000), where
        tps = row["tokens_per_gpu_second"]
        assert tps * row["flops_per_token"] == approx(presets.peak_tflops(sy, pr) * 1e12 * mfu[i]), where
        assert row["usd_per_mtok"] == approx(row["delivered_usd_per_gpu_hour"] / (3600 * tps) * 1e6), where
        assert row["training_cost_usd"] == approx(tokens * row["usd_per_mtok"] / 1e6), where
        assert row["training_gpu_hours"] == approx(tokens / tps / 3600), where
        gpu_seconds = row["training_gpu_hours"] * 3600
        # availability and goodput at their documented default of 1 (udfs/chain.py's inputs)
        assert row["delivered_usd_per_gpu_hour"] == approx(row["tco_usd_per_gpu_hour"]), where
        assert row["training_days"] == approx(gpu_seconds / gpus / 86400), where
        assert row["joules_per_token"] == approx(row["utility_watts_per_gpu"] * gpu_seconds / tokens), where


def test_overrides_replace_presets_and_nan_means_preset():
    base = scenario.evaluate({"system": "H100_HGX", "mfu": 0.5})
    out = scenario.evaluate({"system": ["H100_HGX"] * 2, "mfu": [0.5, 0.5], "usd_per_kwh": [np.nan, 0.12]})
    assert out["tco_usd_per_gpu_hour"][0] == base["tco_usd_per_gpu_hour"][0]
    # Linear in price: +$0.033/kWh x 1.389 kW x PUE 1.3.
    assert out["tco_usd_per_gpu_hour"][1] - out["tco_usd_per_gpu_hour"][0] == pytest.approx(
        (0.12 - 0.087) * 1.389 * 1.3
    )


def test_coded_text_columns_equal_plain_text():
    codes = np.array([1, 0, 1, 1])
    coded = scenario.evaluate({"system": scenario.Coded(codes, ["H100_HGX", "GB200_NVL72"]), "mfu": 0.4})
    plain = scenario.evaluate({"system": np.array(["GB200_NVL72", "H100_HGX"])[1 - codes], "mfu": [0.4] * 4})
    np.testing.assert_array_equal(coded["usd_per_mtok"], plain["usd_per_mtok"])


@pytest.mark.parametrize(
    ("inputs", "error", "text"),
    [
        ({"system": "H100_HGX"}, MissingValueError, "mfu is required"),
        ({"mfu": 1.2}, InputRangeError, "mfu must be in (0, 1]"),
        ({"mfu": 0.4, "systen": "x"}, UnknownNameError, "unknown scenario input 'systen'"),
        ({"mfu": 0.4, "system": ["H100_HGX", "B300"]}, UnknownNameError, "unknown system 'B300'"),
        ({"mfu": 0.4, "precision": "fp4"}, MissingValueError, "H100_HGX has no fp4 peak"),
        (  # among several systems: the first scenario without the preset is named
            {
                "mfu": 0.4,
                "precision": "fp4",
                "system": ["GB200_NVL72", "GB200_NVL72", "H100_HGX", "H100_HGX"],
            },
            MissingValueError,
            "system H100_HGX has no fp4 peak_tflops preset (scenario 2)",
        ),
        ({"mfu": [0.4, 0.5], "tokens": [1e9, 2e9, 3e9]}, InputRangeError, "columns of one length"),
        ({"mfu": 0.4, "pue": 0.5}, InputRangeError, "pue must be in [1, 5]"),
    ],
)
def test_bad_scenarios_fail_loudly(inputs, error, text):
    with pytest.raises(error) as info:
        scenario.evaluate(inputs)
    assert isinstance(info.value, GputcoError)
    assert text in str(info.value)


def test_chunks_on_several_threads_give_the_values_of_one(monkeypatch):
    """evaluate runs its chunks of scenarios on GPUTCO_THREADS threads: every result column,
    with a rent (the per-year table's chunks) and without, is bit for bit the one-thread value;
    a thread count that is no whole number >= 1 is refused naming the variable."""
    rng = np.random.default_rng(5)
    n = 2 * scenario.ROW_CHUNK + 123  # three chunks of the per-scenario steps, nine of the table's
    inputs = {
        "system": scenario.Coded(rng.integers(0, 2, n), ["H100_HGX", "GB200_NVL72"]),
        "mfu": rng.uniform(0.25, 0.6, n),
        "rent_usd_per_gpu_hour": np.where(rng.uniform(size=n) < 0.8, rng.uniform(1.0, 4.0, n), np.nan),
        "tax_rate": rng.uniform(0.0, 0.3, n),
    }
    got = {}
    for count in ("1", "2", "3"):
        monkeypatch.setenv("GPUTCO_THREADS", count)
        assert scenario.threads() == int(count)
        got[count] = scenario.evaluate(inputs)
    for key, one in got["1"].items():
        for count in ("2", "3"):
            assert np.array_equal(got[count][key], one, equal_nan=True), (key, count)
    assert np.isfinite(got["1"]["project_irr"]).sum() > n // 2
    for bad in ("0", "two", "-1"):
        monkeypatch.setenv("GPUTCO_THREADS", bad)
        with pytest.raises(ValueError, match=f"GPUTCO_THREADS must be a whole number >= 1, got '{bad}'"):
            scenario.evaluate({"system": "H100_HGX", "mfu": 0.4})
