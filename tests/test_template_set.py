"""`gputco template --set NAME=VALUE`: values typed into the finance workbook's named input cells,
refused as the cells' own data validation refuses them in Excel (the range each cell's
validation states; a drop-down's list), with the name, the value, the valid range and the cell.

Oracle for the values: the memo case of docs/project.md through ``udfs.scenario.evaluate`` (the
numpy model), which the workbook recalculated by the engine must equal.
"""

from __future__ import annotations

import math

import openpyxl
import pytest

from gputco.addin.cli import main
from gputco.udfs import scenario
from gputco.udfs.errors import InputRangeError

MEMO_SET = {
    "inp_gpus_1": "1152",
    "inp_gpus_2": "2048",
    "inp_rent_usd_per_gpu_hour_1": "4",
    "inp_rent_usd_per_gpu_hour_2": "2",
    "inp_mfu_1": "0.5",
    "inp_mfu_2": "0.5",
    "inp_tax_rate": "21%",
    "inp_periods": "month",
    "inp_build_months_1": "12",
    "inp_build_months_2": "12",
    "inp_ramp_months_1": "3",
    "inp_ramp_months_2": "3",
    "inp_depreciation_method": "macrs_5",
    "inp_debt_fraction": "0.6",
    "inp_debt_rate": "0.09",
    "inp_debt_years": "4",
}


def _value(wb, name: str):
    sheet, ref = next(iter(wb.defined_names[name].destinations))
    return wb[sheet][ref.replace("$", "")].value


def test_the_memo_case_typed_in_by_set_equals_the_python_model(tmp_path, capsys):
    out = tmp_path / "memo.xlsx"
    argv = ["template", "-o", str(out), "--systems", "GB200_NVL72,H100_HGX", "--buyer", "neocloud_giant"]
    assert main(argv + [a for k, v in MEMO_SET.items() for a in ("--set", f"{k}={v}")]) == 0
    printed = capsys.readouterr().out
    want = scenario.evaluate(
        {
            "system": ["GB200_NVL72", "H100_HGX"],
            "gpus": [1152, 2048],
            "mfu": 0.5,
            "buyer": "neocloud_giant",
            "rent_usd_per_gpu_hour": [4.0, 2.0],
            "tax_rate": 0.21,
            "periods": "month",
            "build_months": 12,
            "ramp_months": 3,
            "depreciation_method": "macrs_5",
            "debt_fraction": 0.6,
            "debt_rate": 0.09,
            "debt_years": 4,
        }
    )
    wb = openpyxl.load_workbook(out, data_only=True)
    for k in (1, 2):
        for key, got_name in (
            ("cluster_capex_usd", "out_cluster_capex_usd"),
            ("cluster_npv_usd", "out_cluster_npv_usd"),
            ("project_irr", "out_project_irr"),
            ("equity_irr", "out_equity_irr"),
            ("min_dscr", "out_min_dscr"),
            ("cluster_peak_funding_usd", "out_cluster_peak_funding_usd"),
        ):
            got = _value(wb, f"{got_name}_{k}")
            assert math.isclose(got, float(want[key][k - 1]), rel_tol=1e-9), (key, k, got)
    assert "26,794,956" in printed and "48.02%" in printed  # the workbook's own values, printed


@pytest.mark.parametrize(
    "assignment, message",
    [
        ("inp_debt_fraction=1.5", "inp_debt_fraction must be in [0, 1) (Inputs!"),
        ("inp_periods=weekly", "inp_periods must be a value of its list: year, month (Inputs!"),
        ("inp_build_months_1=2.5", "inp_build_months_1 must be a whole number in [0, 60] (Inputs!"),
        ("inp_availability_2=0", "inp_availability_2 must be in (0, 1] (Inputs!"),
        ("inp_system_1=H100", "inp_system_1 must be a value of its list: "),
        ("inp_debt_fractio=0.5", "Did you mean inp_debt_fraction?"),
        ("inp_debt_fraction", "--set must be in NAME=VALUE"),
        (
            "inp_rent_curve_1=1, -0.6",
            "inp_rent_curve_1 must be a curve: factors by year as text ('1, 0.85'), each in [0, inf), "
            "or a rent_curve finance preset key (Inputs!",
        ),
        ("inp_rent_curve_1=1, -0.6", "rent_curve factor t1 must be in [0, inf), got -0.6"),
        ("inp_value_curve_2=1, 0.7x", "value_curve factor t1 must be a number, got '0.7x'"),
        ("inp_value_curve_2=value_nope", "unknown value_curve 'value_nope'; valid: value_base, "),
    ],
)
def test_a_value_the_cell_would_refuse_is_refused_and_nothing_is_written(
    tmp_path, capsys, assignment, message
):
    out = tmp_path / "t.xlsx"
    assert main(["template", "-o", str(out), "--set", "inp_tax_rate=0.2", "--set", assignment]) == 2
    err = capsys.readouterr().err
    assert message in err, err
    assert not out.exists()


@pytest.mark.parametrize("periods", ["year", "month"])
def test_a_tenor_of_two_and_a_half_years_is_one_rule_in_the_workbook_and_in_python(tmp_path, capsys, periods):
    """2.5 years of debt: by month 30 payments, computed alike by the workbook and by Python; by
    year no whole number of periods, refused alike (the workbook's results say why)."""
    out = tmp_path / "tenor.xlsx"
    sets = {"inp_periods": periods, "inp_rent_usd_per_gpu_hour_1": 2.0, "inp_debt_fraction": 0.5,
            "inp_debt_years": 2.5}  # fmt: skip
    argv = ["template", "-o", str(out), "--systems", "H100_HGX", "--buyer", "neocloud_giant"]
    assert main(argv + [a for k, v in sets.items() for a in ("--set", f"{k}={v}")]) == 0
    capsys.readouterr()
    wb = openpyxl.load_workbook(out, data_only=True)
    inputs = {"system": ["H100_HGX"], "mfu": 0.5, "buyer": "neocloud_giant", "rent_usd_per_gpu_hour": [2.0],
              "periods": periods, "debt_fraction": 0.5, "debt_years": 2.5}  # fmt: skip
    if periods == "month":
        want = scenario.evaluate(inputs)
        for key in ("equity_irr", "min_dscr", "llcr"):
            assert math.isclose(_value(wb, f"out_{key}_1"), want[key][0], rel_tol=1e-9), key
    else:
        with pytest.raises(InputRangeError, match="debt_years must be a whole number of periods"):
            scenario.evaluate(inputs)
        assert "debt_years must be a whole number of periods" in _value(wb, "out_equity_irr_1")


def test_a_curve_typed_in_by_set_is_the_curve_of_the_python_model(tmp_path, capsys):
    """``--set inp_rent_curve_1="1, 0.6"``: a curve is text in its cell, not a number out of its
    range. The workbook's revenue by year follows the typed factors (year 1 x 1, then x 0.6 every
    year after: past the last factor the last holds), its results equal the numpy model's with
    the same curve, its own range check counts nothing out of range, and gputco recalc warns
    about nothing."""
    from gputco.workbook.finance import projectflows
    from gputco.workbook.finance.cashflow import sheet_name
    from gputco.workbook.xlsx import inputcheck

    out = tmp_path / "curve.xlsx"
    sets = {"inp_rent_usd_per_gpu_hour_1": "2.5", "inp_rent_curve_1": "1, 0.6", "inp_value_curve_1": "1; 0.5"}
    argv = ["template", "-o", str(out), "--systems", "H100_HGX", "--buyer", "neocloud_giant"]
    assert main(argv + [a for k, v in sets.items() for a in ("--set", f"{k}={v}")]) == 0
    capsys.readouterr()
    wb = openpyxl.load_workbook(out, data_only=True)
    assert _value(wb, "inp_rent_curve_1") == "1, 0.6"
    ws = wb[sheet_name(1)]
    life = int(_value(wb, "use_life_years"))
    c = projectflows.col("revenue")
    revenue = [ws[f"{c}{projectflows.FIRST_ROW + p}"].value for p in range(1, life + 1)]
    assert [r / revenue[0] for r in revenue] == pytest.approx([1.0] + [0.6] * (life - 1), rel=1e-12)
    want = scenario.evaluate(
        {
            "system": ["H100_HGX"],
            "mfu": 0.5,
            "buyer": "neocloud_giant",
            "rent_usd_per_gpu_hour": [2.5],
            "rent_curve": "1, 0.6",
            "value_curve": "1; 0.5",
        }
    )
    for key, name in (("project_irr", "out_project_irr_1"), ("cluster_npv_usd", "out_cluster_npv_usd_1")):
        assert math.isclose(_value(wb, name), float(want[key][0]), rel_tol=1e-9), key
    assert _value(wb, "chk_inputs_out_of_range") == 0
    assert inputcheck.out_of_range(out)[1] == []
    # the control: a curve the reading refuses, written past --set, is what recalc warns about
    book = openpyxl.load_workbook(out)
    sheet, ref = next(iter(book.defined_names["inp_rent_curve_1"].destinations))
    book[sheet][ref.replace("$", "")] = "1, -0.6"
    book.save(tmp_path / "bad.xlsx")
    (bad,) = inputcheck.out_of_range(tmp_path / "bad.xlsx")[1]
    assert (
        bad.name == "inp_rent_curve_1" and "rent_curve factor t1 must be in [0, inf), got -0.6" in bad.line()
    )
