"""`gputco recalc` checks the named inputs of the workbooks gputco wrote, wherever they came from.

A value written with openpyxl (the README's own recipe for changing inputs) bypasses Excel's data
validation: a cost of capital of 13 (for 13%) gives a capital cost of dollars per GPU-hour and an
IRR in the thousands of percent. The workbook carries gputco's marker (the custom document
property ``gputco``); recalc prints one warning per input outside its range in
gputco.udfs.ranges (defined name, value, range, cell), and ``--check`` exits 1 on any, naming the
Checks rows that fail.
"""

from __future__ import annotations

import openpyxl
import pytest
from recalc_book import with_inputs

from gputco.addin.cli import main
from gputco.udfs import ranges
from gputco.workbook.finance.build import write_template
from gputco.workbook.xlsx import inputcheck


@pytest.fixture(scope="module")
def finance(tmp_path_factory):
    path = tmp_path_factory.mktemp("inputs") / "finance.xlsx"
    write_template(path)
    return path


def cell_of(path, name):
    ((sheet, ref),) = openpyxl.load_workbook(path).defined_names[name].destinations
    return f"{sheet}!{ref.replace('$', '')}"


def test_the_workbooks_carry_the_marker(finance):
    wb = openpyxl.load_workbook(finance, read_only=True)
    assert inputcheck.marker(wb).startswith("finance workbook, gputco ")


def test_a_cost_of_capital_of_13_is_named_and_check_exits_1(finance, tmp_path, capsys):
    bad = with_inputs(finance, tmp_path / "bad.xlsx", inp_cost_of_capital=13)
    assert main(["recalc", "--check", str(bad)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert "warning: input inp_cost_of_capital = 13 is outside its valid range [0, 1] (Inputs!E53)" in err
    assert str(ranges.of("cost_of_capital")) == "[0, 1]"
    failed = [line for line in err if line.startswith("warning: check failed: Checks row ")]
    assert (
        "warning: check failed: Checks row 8: capital_usd_per_gpu_hour (Model!D (System 1)) is FALSE"
        in failed
    )
    # capital, TCO, NPV, break-even rent and break-even utilisation of both systems (the last: the
    # native side's "no utilisation in (0, 1] breaks even", the function's refusal of the input)
    assert len(failed) == 10, failed
    # writing the recalculated copy warns the same and still writes it (exit 0)
    assert main(["recalc", str(bad), "-o", str(tmp_path / "out.xlsx")]) == 0
    err = capsys.readouterr().err
    assert "inp_cost_of_capital = 13" in err and "Checks row 8" in err


def test_every_kind_of_bad_value_gets_one_line(finance, tmp_path, capsys):
    bad = with_inputs(
        finance,
        tmp_path / "bad.xlsx",
        inp_utilisation_2=85,
        inp_pue=0.9,
        inp_mfu_1="54%",
        inp_capex_per_gpu_1=None,  # blank: the preset, fine
    )
    kind, found = inputcheck.out_of_range(bad)
    assert kind.startswith("finance workbook")
    at = {n: cell_of(finance, n) for n in ("inp_mfu_1", "inp_pue", "inp_utilisation_2")}
    assert sorted(f.line() for f in found) == [
        f"inp_mfu_1 = '54%' (not a number) is outside its valid range (0, 1] ({at['inp_mfu_1']})",
        f"inp_pue = 0.9 is outside its valid range [1, 5] ({at['inp_pue']})",
        f"inp_utilisation_2 = 85 is outside its valid range (0, 1] ({at['inp_utilisation_2']})",
    ]
    assert main(["recalc", "--check", str(bad)]) == 1
    assert capsys.readouterr().err.count("warning: input ") == 3


def test_a_good_workbook_passes_quietly(finance, capsys):
    assert main(["recalc", "--check", str(finance)]) == 0
    assert "warning" not in capsys.readouterr().err


def test_a_workbook_gputco_did_not_write_is_not_judged(tmp_path, capsys):
    wb = openpyxl.Workbook()
    wb.active["A1"] = 13
    wb.active["A2"] = "=A1*2"
    wb.defined_names["inp_cost_of_capital"] = openpyxl.workbook.defined_name.DefinedName(
        "inp_cost_of_capital", attr_text="Sheet!$A$1"
    )
    wb.save(tmp_path / "own.xlsx")
    assert inputcheck.out_of_range(tmp_path / "own.xlsx") == (None, [])
    assert main(["recalc", "--check", str(tmp_path / "own.xlsx")]) == 1  # A2 has no stored value
    assert "warning: input" not in capsys.readouterr().err
