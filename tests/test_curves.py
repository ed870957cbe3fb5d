"""Curve inputs (udfs/curves.py): text, numbers, Excel ranges and preset keys to factors by year,
every bad factor refused with the curve, the year and the valid range from the one range table."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from lo import requires_soffice

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
    assert str(ranges.of("max_ltv_covenant")) == ">= 0"


def test_the_rate_basis_is_fixed_or_floating():
    assert curves.rate_basis(None) == curves.rate_basis("") == "fixed"
    assert curves.rate_basis("FLOATING") == "floating"
    with pytest.raises(UnknownNameError, match="debt_rate_basis 'float'; valid: fixed, floating"):
        curves.rate_basis("float")
    with pytest.raises(InputTypeError, match="debt_rate_basis must be fixed or floating"):
        curves.rate_basis(1.0)


def test_one_curve_per_project_padded_with_its_last_factor():
    got = curves.table(
        "value_curve", np.array(["1, 0.5", "", "value_low", "1, 0.5"], dtype=object), 4, (1.0, 0.9)
    )
    low = presets.finance_curve("value_curve", "value_low")
    assert got.shape == (4, len(low))
    assert got[0].tolist() == [1.0, 0.5, *[0.5] * (len(low) - 2)] == got[3].tolist()
    assert got[1].tolist() == [1.0, 0.9, *[0.9] * (len(low) - 2)]
    assert tuple(got[2]) == low
    for t in range(40):  # column min(t, length - 1) is factor t of every row
        col = got[:, min(t, got.shape[1] - 1)]
        assert col.tolist() == [curves.at(tuple(r), t) for r in ((1.0, 0.5), (1.0, 0.9), low, (1.0, 0.5))]
    assert curves.table("rent_curve", "1, 0.8", 3, (1.0,)).tolist() == [[1.0, 0.8]] * 3
    assert curves.table("rent_curve", [1.0, 0.8], 2, (1.0,)).tolist() == [[1.0, 0.8]] * 2
    assert curves.table("rent_curve", None, 2, (1.0, 0.7)).tolist() == [[1.0, 0.7]] * 2


def test_a_bad_curve_in_one_project_names_its_row():
    with pytest.raises(
        InputRangeError, match=r"rent_curve factor t1 must be in \[0, inf\), got -1 \(element \[2\]\)"
    ) as e:
        curves.table("rent_curve", ["1", "1, 0.5", "1, -1"], 3, (1.0,))
    assert e.value.index == (2,)
    with pytest.raises(UnknownNameError, match=r"rent_curve \(element \[1\]\) 'nope'"):
        curves.table("rent_curve", ["1", "nope"], 2, (1.0,))
    with pytest.raises(InputRangeError, match=r"rent_curve \(rows\) must be in 1 or 3"):
        curves.table("rent_curve", ["1", "1"], 3, (1.0,))


def _curve_book(path, cases):
    """A sheet of curve texts (A), years (B), the factor formula (C) and the value formula (D)."""
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    for r, (curve, t, years) in enumerate(cases, start=1):
        ws.cell(r, 1, curve)
        ws.cell(r, 2, t)
        ws.cell(r, 5, years)
        ws.cell(r, 3, "=" + curves.excel_at(f"A{r}", f"B{r}"))
        ws.cell(r, 4, "=" + curves.excel_value_at(f"A{r}", f"E{r}"))
    wb.save(path)


def _cases():
    """20 drawn curves (up to 100 factors, commas or semicolons, 15 significant digits as Excel
    reads a number) with a year within, at and past their end, and a time between two years."""
    rng = np.random.default_rng(41)
    out = []
    for i in range(20):
        n = int(rng.choice([1, 2, 5, 15, 100]))
        xs = [float(f"{x:.15g}") for x in rng.uniform(0.01, 3.0, n)]
        sep = ", " if i % 2 else ";"
        out.append((sep.join(repr(x) for x in xs), int(rng.integers(0, n + 3)), float(rng.uniform(0, n + 2))))
    out.append(("1, 0.85, 0.7225", 1, 1.5))
    out.append(("0.9", 7, 3.25))
    return out


def _expected(cases):
    want = {}
    for r, (text_, t, years) in enumerate(cases, start=1):
        c = curves.parse("rent_curve", text_)
        want[("S", f"C{r}")] = float(curves.at(c, t))
        want[("S", f"D{r}")] = float(curves.value_at(np.array([c]), [years])[0])
    return want


def test_the_workbook_formulas_give_the_factor_and_the_value_as_python_engine(tmp_path):
    from gputco.workbook.recalc import evaluate_workbook

    cases = _cases()
    _curve_book(tmp_path / "c.xlsx", cases)
    got = evaluate_workbook(tmp_path / "c.xlsx")
    for cell, want in _expected(cases).items():
        assert got[cell] == pytest.approx(want, rel=1e-12, abs=1e-15), cell


@requires_soffice
def test_the_workbook_formulas_give_the_factor_and_the_value_as_python_libreoffice(tmp_path):
    import lo

    cases = _cases()
    _curve_book(tmp_path / "c.xlsx", cases)
    got = lo.values(lo.recalculate(tmp_path / "c.xlsx", tmp_path / "out"))
    for cell, want in _expected(cases).items():
        assert got[cell] == pytest.approx(want, rel=1e-12, abs=1e-15), cell


def test_a_preset_key_in_a_cell_gives_the_presets_factors_in_the_workbook(tmp_path):
    # the Presets sheet as both workbooks write it, and a curve cell naming a preset or typed
    import openpyxl

    from gputco.workbook.recalc import evaluate_workbook
    from gputco.workbook.xlsx import presets_sheet
    from gputco.workbook.xlsx.book import BookBuilder

    book = BookBuilder(openpyxl.Workbook(), ["H100_HGX"], "hyperscaler")
    presets_sheet.build(book)
    ws = book.wb.create_sheet("S")
    names = ["rent_h100_2024_25", "VALUE_LOW", "sofr_2026", "1, 0.5"]
    for r, name in enumerate(names, start=1):
        ws.cell(r, 1, name)
        ws.cell(r, 2, "=" + curves.excel_at(curves.excel_text(f"A{r}"), "3"))
    book.wb.save(tmp_path / "p.xlsx")
    got = evaluate_workbook(tmp_path / "p.xlsx")
    assert [got[("S", f"B{r}")] for r in range(1, 5)] == [0.4865, 0.25, 0.0365, 0.5]
    assert openpyxl.load_workbook(tmp_path / "p.xlsx")["S"]["A1"].value == "rent_h100_2024_25"
