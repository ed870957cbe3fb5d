"""Bad input raises a typed error that names the argument, the value and the valid range.

Every error is a udfs.GputcoError and also the built-in that fits (ValueError, TypeError, KeyError).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from gputco import udfs
from gputco.udfs.errors import (
    GputcoError,
    InputRangeError,
    InputTypeError,
    MissingValueError,
    UnknownNameError,
)

FPT, PEAK = 1.07899e12, 989.4


@pytest.mark.parametrize("bad", [0.0, -0.1, 1.5, math.nan, math.inf, -math.inf])
def test_mfu_outside_0_1(bad):
    with pytest.raises(InputRangeError) as info:
        udfs.tco_cost_per_mtok(1.42, FPT, PEAK, bad)
    assert isinstance(info.value, ValueError) and isinstance(info.value, GputcoError)
    assert info.value.arg == "mfu"
    assert str(info.value).startswith("mfu must be in (0, 1], got ")


def test_mfu_message_names_value_and_range():
    with pytest.raises(ValueError, match=r"^mfu must be in \(0, 1\], got 1\.5$"):
        udfs.tco_tokens_per_gpu_second(FPT, PEAK, 1.5)


def test_array_error_names_the_element():
    with pytest.raises(InputRangeError, match=r"mfu must be in \(0, 1\], got 2 \(element \[2\]\)"):
        udfs.tco_tokens_per_gpu_second(FPT, PEAK, np.array([0.3, 0.4, 2.0]))


@pytest.mark.parametrize(
    ("func", "args", "arg"),
    [
        (udfs.tco_cost_per_mtok, (0.0, FPT, PEAK, 0.4), "gpu_hour_usd"),
        (udfs.tco_cost_per_mtok, (-1.42, FPT, PEAK, 0.4), "gpu_hour_usd"),
        (udfs.tco_power_per_gpu_hour, (1.389, 1.3, 0.0), "usd_per_kwh"),
        (udfs.tco_power_per_gpu_hour, (1.389, 1.3, -0.05), "usd_per_kwh"),
        (udfs.tco_power_per_gpu_hour, (1.389, 0.9, 0.08), "pue"),
        (udfs.tco_colo_per_gpu_hour, (1.389, -1.0), "usd_per_kw_month"),
        (udfs.tco_capital_per_gpu_hour, (0.0, 0.1, 5), "capex_per_gpu"),
        (udfs.tco_capital_per_gpu_hour, (31250, 0.1, 0.0), "life_years"),
        (udfs.tco_capital_per_gpu_hour, (31250, 0.1, -3), "life_years"),
        (udfs.tco_capital_per_gpu_hour, (31250, -0.01, 5), "cost_of_capital"),
        (udfs.tco_capital_per_gpu_hour, (31250, 0.1, 5, 1.0), "residual_fraction"),
        (udfs.tco_training_days, (1e12, 0, FPT, PEAK, 0.4), "gpus"),
        (udfs.tco_training_days, (1e12, -8, FPT, PEAK, 0.4), "gpus"),
        (udfs.tco_training_cost, (math.nan, 1.42, FPT, PEAK, 0.4), "tokens"),
        (udfs.tco_joules_per_token, (math.inf, FPT, PEAK, 0.4), "utility_watts_per_gpu"),
        (udfs.tco_household_years, (-1.0,), "joules"),
        (udfs.tco_tokens_per_gpu_second, (FPT, 0.0, 0.4), "peak_tflops"),
    ],
)
def test_out_of_range_names_argument_and_range(func, args, arg):
    with pytest.raises(InputRangeError) as info:
        func(*args)
    err = info.value
    assert err.arg == arg
    assert str(err).startswith(f"{arg} must be in ")
    assert "got" in str(err)


@pytest.mark.parametrize("bad", ["0.4", "abc", True, object(), [0.3, "x"]])
def test_wrong_types_are_type_errors(bad):
    with pytest.raises(InputTypeError) as info:
        udfs.tco_tokens_per_gpu_second(FPT, PEAK, bad)
    assert isinstance(info.value, TypeError) and info.value.arg == "mfu"
    assert "mfu must be a number" in str(info.value)


def test_none_is_missing():
    with pytest.raises(MissingValueError, match="mfu is required"):
        udfs.tco_tokens_per_gpu_second(FPT, PEAK, None)


@pytest.mark.parametrize(
    ("func", "args", "arg", "valid"),
    [
        (udfs.tco_gpu_hour, ("H100_NVL",), "system", "H100_HGX"),
        (udfs.tco_gpu_hour, ("H100_HGX", "hyperscalar"), "buyer", "hyperscaler"),
        (udfs.tco_flops_per_token, ("gpt4",), "model", "gpt3_175b"),
        (udfs.tco_flops_per_token, ("gpt3_175b", None, "chinchilla"), "convention", "palm"),
        (udfs.tco_breakeven_mfu, (0.5, "H100_HGX", "GB200_NVL72", "fp16"), "precision", "bf16"),
        (udfs.tco_system, ("H100_HGX", "price"), "system field", "unit_price_usd"),
    ],
)
def test_unknown_names_list_the_valid_ones(func, args, arg, valid):
    with pytest.raises(UnknownNameError) as info:
        func(*args)
    err = info.value
    assert isinstance(err, KeyError) and isinstance(err, GputcoError)
    assert err.arg == arg and valid in err.valid
    assert str(err).startswith(f"unknown {arg} ")
    assert valid in str(err)


def test_did_you_mean():
    with pytest.raises(UnknownNameError, match="Did you mean hyperscaler"):
        udfs.tco_gpu_hour("H100_HGX", "hyperscalar")


@pytest.mark.parametrize("name", ["H100 HGX", "h100_hgx", "h100-hgx", " H100_HGX "])
def test_lookup_accepts_spellings(name):
    assert udfs.tco_capex_per_gpu(name) == 31250.0


def test_missing_precision_on_a_system():
    # H100 has no FP4 tensor cores: the preset is empty, and asking for it fails loudly.
    with pytest.raises(MissingValueError, match="H100_HGX field peak_tflops_fp4"):
        udfs.tco_breakeven_mfu(0.4, "H100_HGX", "GB200_NVL72", "fp4")
    assert udfs.tco_system("H100_HGX", "peak_tflops_fp4") is None


def test_parameter_count_needs_6n():
    with pytest.raises(InputTypeError, match="convention '6n'"):
        udfs.tco_flops_per_token(175e9)
    assert udfs.tco_flops_per_token(175e9, convention="6n") == 1.05e12


@pytest.mark.parametrize(("arg", "bad"), [("mfu", 1.5), ("usd_per_kwh", -0.1), ("pue", 0.5)])
def test_a_bad_scenario_in_a_later_chunk_is_named_as_in_the_first(arg, bad):
    """scenario.evaluate runs the steps chunk by chunk, each array reduced once for all the steps
    that check it (values gathered from a preset table take the table's extent): a bad value in
    the third chunk, of a per-scenario input or an input over a preset, is still the error the
    function gives, naming the scenario."""
    from gputco.udfs import _check, scenario
    from gputco.udfs.scenario import Coded

    n = 3 * scenario.ROW_CHUNK
    row = 2 * scenario.ROW_CHUNK + 5
    values = np.full(n, {"mfu": 0.4, "usd_per_kwh": 0.08, "pue": 1.3}[arg])
    values[row] = bad
    inputs = {"system": Coded(np.arange(n) % 2, ["H100_HGX", "GB200_NVL72"]), "mfu": 0.4, arg: values}
    with pytest.raises(InputRangeError) as info:
        scenario.evaluate(inputs)
    assert info.value.arg == arg and info.value.value == bad
    assert f"[{row}]" in str(info.value)
    values[row] = values[0]
    good = scenario.evaluate(inputs)
    alone = scenario.evaluate({**inputs, "system": "GB200_NVL72", arg: values[row]})  # row is GB200's
    assert good["usd_per_mtok"][row] == pytest.approx(float(alone["usd_per_mtok"][0]), rel=1e-15)
    assert _check._EXTENTS.get() is None  # nothing is kept once the chunks are done
