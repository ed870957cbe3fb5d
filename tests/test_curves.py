"""Curve inputs (udfs/curves.py): text, numbers, Excel ranges and preset keys to factors by year,
every bad factor refused with the curve, the year and the valid range from the one range table."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gputco.udfs import curves, presets, ranges
from gputco.udfs.errors import InputRangeError, InputTypeError, MissingValueError, UnknownNameError

FACTORS = st.lists(st.floats(0.001, 5.0, allow_nan=False), min_size=1, max_size=30)


@given(FACTORS, st.sampled_from([", ", ",", "; ", " ;  "]))
def test_text_of_factors_reads_back_the_same_numbers(xs, sep):
    # repr(float) reads back exactly (Python's shortest round-trip repr)
    assert curves.parse("rent_curve", sep.join(map(repr, xs))) == tuple(xs)
    assert curves.parse("value_curve", xs) == tuple(xs)
    assert curves.parse("value_curve", np.array(xs).reshape(-1, 1)) == tuple(xs)  # an Excel column


@given(FACTORS, st.integers(0, 200))
def test_past_the_last_factor_the_last_one_holds(xs, t):
    assert curves.at(tuple(xs), t) == xs[min(t, len(xs) - 1)]


@given(st.floats(0.0, 0.99), st.integers(1, 40))
def test_a_constant_decline_is_the_curve_of_powers(d, n):
    c = curves.decline(d, n)
    assert c[0] == 1.0 and len(c) == n
    for t in range(1, n):
        assert c[t] == pytest.approx(c[t - 1] * (1 - d), rel=1e-12, abs=1e-300)


def test_a_preset_key_gives_the_presets_factors_in_any_case():
    want = presets.finance_curve("rent_curve", "rent_h100_2024_25")
    assert curves.parse("rent_curve", "Rent H100 2024-25") == want == (1.0, 0.5916, 0.35, 0.4865)
    assert curves.parse("value_curve", "value_base")[5] == pytest.approx(10 ** (-0.7), abs=5e-5)
    assert curves.parse("base_rate_curve", "sofr_2026") == (0.0365,)
    with pytest.raises(UnknownNameError, match="value_curve 'rent_h100_2024_25'; valid: value_base"):
        curves.parse("value_curve", "rent_h100_2024_25")  # a rent path is not a value curve


def test_empty_is_the_default_and_blank_cells_after_the_last_factor_are_left_out():
    for empty in (None, "", "   ", [None, None], np.array([["", None]], dtype=object)):
        assert curves.parse("rent_curve", empty) is None
    assert curves.parse("rent_curve", [1.0, 0.9, None, ""]) == (1.0, 0.9)
    assert curves.parse("rent_curve", "1, 0.9,") == (1.0, 0.9)
    assert curves.parse("rent_curve", 0.9) == (0.9,)
    assert curves.parse("rent_curve", 1) == (1.0,)


@pytest.mark.parametrize(
    ("arg", "value", "error", "message"),
    [
        ("value_curve", "1, 0.7, 0", InputRangeError, r"value_curve factor t2 must be in \(0, inf\), got 0"),
        ("rent_curve", "1, -0.1", InputRangeError, r"rent_curve factor t1 must be in \[0, inf\), got -0.1"),
        (
            "base_rate_curve",
            "0.04, 1.5",
            InputRangeError,
            r"base_rate_curve factor t1 must be in \[0, 1\], got 1.5",
        ),
        ("rent_curve", "1, nan", InputRangeError, r"rent_curve factor t1 must be in \[0, inf\), got nan"),
        ("rent_curve", "1, inf", InputRangeError, r"factor t1 must be in \[0, inf\), got inf"),
        ("rent_curve", "1, 0.8x, 0.6", InputTypeError, r"rent_curve factor t1 must be a number, got '0.8x'"),
        ("rent_curve", "1,, 0.6", MissingValueError, r"rent_curve factor t1 is required"),
        ("rent_curve", [1.0, None, 0.6], MissingValueError, r"rent_curve factor t1 is required"),
        ("rent_curve", [1.0, True], InputTypeError, r"rent_curve factor t1 must be a number, not TRUE/FALSE"),
        ("rent_curve", True, InputTypeError, r"rent_curve must be factors by year"),
        ("rent_curve", {"a": 1}, InputTypeError, r"rent_curve must be factors by year"),
        ("rent_curve", "no_such_path", UnknownNameError, r"unknown rent_curve 'no_such_path'; valid: "),
        (
            "rent_curve",
            ", ".join(["1"] * 101),
            InputRangeError,
            r"rent_curve \(number of factors\) must be in \[1, 100\], got 101",
        ),
    ],
)
def test_bad_curves_are_refused_naming_the_curve_the_year_and_the_range(arg, value, error, message):
    with pytest.raises(error, match=message):
        curves.parse(arg, value)


def test_the_ranges_come_from_the_one_table():
    assert str(ranges.of("rent_curve")) == ">= 0"
    assert str(ranges.of("value_curve")) == "> 0"
    assert str(ranges.of("base_rate_curve")) == str(ranges.of("debt_spread")) == "[0, 1]"
    assert str(ranges.of("max_ltv_covenant")) == "> 0"


def test_the_rate_basis_is_fixed_or_floating():
    assert curves.rate_basis(None) == curves.rate_basis("") == "fixed"
    assert curves.rate_basis("FLOATING") == "floating"
    with pytest.raises(UnknownNameError, match="debt_rate_basis 'float'; valid: fixed, floating"):
        curves.rate_basis("float")
    with pytest.raises(InputTypeError, match="debt_rate_basis must be fixed or floating"):
        curves.rate_basis(1.0)
