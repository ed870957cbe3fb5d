"""One rule and one message for the debt tenor on every route (issue 40, step 4: a tenor of 0 got
"(0, 100]" from batch, "(0, 15]" from the functions and the API's whole-period rule elsewhere).
A tenor of 0, a negative one and one of part of a period (2.5 years by year, 2.51 by month) are
refused by the Python API (udfs.project.terms, results), the project TCO_ functions, batch (CSV
and .xlsx, with the row and the column), a scenario SPEC (grid and fixed) and, for 0 and
negative, ``gputco template --set inp_debt_years=...``, each with the text of
:data:`gputco.udfs.ranges.TENOR_RULE` and the value."""

from __future__ import annotations

import openpyxl
import pytest
from test_batch import PROJECT_CLEAN, _project_file

from gputco.addin.cli import main
from gputco.udfs import project, ranges, scenario
from gputco.udfs.errors import InputRangeError
from gputco.workbook.scenarios.build import build
from gputco.workbook.scenarios.spec import SpecError, parse_spec

RULE = 'a whole number of periods in (0, life_years] (whole years with periods "year", whole months with "month")'
#: (tenor, periods): refused on every route
BAD = [("0", "year"), ("-1", "year"), ("0", "month"), ("-0.5", "month"), ("2.5", "year"), ("2.51", "month")]
BASE = {
    "capex_per_gpu": 30000.0,
    "rent_usd_per_gpu_hour": 2.0,
    "opex_usd_per_gpu_hour": 0.4,
    "life_years": 5.0,
}


def _said(tenor: str) -> str:
    return f"debt_years must be {RULE}, got {float(tenor):g}"


def test_the_rule_is_one_text():
    assert ranges.TENOR_RULE == RULE == project.TENOR_RULE
    assert ranges.of("debt_years").rule == RULE
    assert ranges.of("debt_years", "TCO_PROJECT_NPV").rule == RULE
    assert ranges.tenor_rule(5) == RULE.replace("life_years]", "life_years = 5]")


@pytest.mark.parametrize(("tenor", "periods"), BAD)
def test_python_and_the_functions_say_the_rule(tenor, periods):
    values = {**BASE, "debt_fraction": 0.5, "debt_years": float(tenor), "periods": periods}
    for call in (
        lambda: project.terms(values),
        lambda: project.results(values),
        lambda: project.tco_project_npv(
            30000, 2.0, 0.4, 5, 0.1, debt_fraction=0.5, debt_years=float(tenor), periods=periods
        ),
        lambda: project.tco_min_dscr(
            30000, 2.0, 0.4, 5, 0.1, debt_fraction=0.5, debt_years=float(tenor), periods=periods
        ),
    ):
        with pytest.raises(InputRangeError) as err:
            call()
        assert str(err.value) == _said(tenor)


def test_a_tenor_beyond_the_life_says_the_rule_with_the_life():
    with pytest.raises(InputRangeError) as err:
        project.terms({**BASE, "debt_fraction": 0.5, "debt_years": 6.0})
    assert str(err.value) == f"debt_years must be {ranges.tenor_rule(5)}, got 6"


@pytest.mark.parametrize("ext", ["csv", "xlsx"])
@pytest.mark.parametrize(("tenor", "periods"), BAD)
def test_batch_says_the_rule_with_the_row_and_the_column(tmp_path, capsys, ext, tenor, periods):
    bad = [*PROJECT_CLEAN[:4], periods, "0.5", tenor, *PROJECT_CLEAN[7:]]
    src = _project_file(tmp_path, ext, [PROJECT_CLEAN, PROJECT_CLEAN, bad])
    assert main(["batch", str(src), "-o", str(tmp_path / "out.csv")]) == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    # a cell out of its range is listed by the input checks, a rule between inputs by the model
    assert last.endswith(f"row 4, column G (debt_years): {_said(tenor)}"), last
    assert not (tmp_path / "out.csv").exists()


@pytest.mark.parametrize("table", ["grid", "fixed"])
@pytest.mark.parametrize(("tenor", "periods"), BAD)
def test_a_spec_says_the_rule_with_its_key(table, tenor, periods):
    base = {
        "grid": {"system": ["H100_HGX"]},
        "fixed": {"mfu": 0.5, "rent_usd_per_gpu_hour": 2.0, "debt_fraction": 0.5, "periods": periods},
    }
    base[table]["debt_years"] = [float(tenor)] if table == "grid" else float(tenor)
    with pytest.raises(SpecError) as err:
        build(parse_spec(base))
    assert str(err.value) == f"{table}.debt_years: {_said(tenor)}"


def test_scenario_evaluate_says_the_rule():
    with pytest.raises(InputRangeError) as err:
        scenario.evaluate({"system": "H100_HGX", "mfu": 0.5, "rent_usd_per_gpu_hour": 2.0,
                           "debt_fraction": 0.5, "debt_years": [2.0, 0.0]})  # fmt: skip
    assert str(err.value).startswith(_said("0"))


@pytest.mark.parametrize("tenor", ["0", "-1"])
def test_template_set_says_the_rule_with_the_cell(tmp_path, capsys, tenor):
    out = tmp_path / "t.xlsx"
    assert main(["template", "-o", str(out), "--set", f"inp_debt_years={tenor}"]) == 2
    err = capsys.readouterr().err
    assert f"inp_debt_years must be {RULE} (Inputs!" in err, err
    assert err.rstrip().endswith(f"got {tenor}"), err
    assert not out.exists()


@pytest.mark.parametrize(("tenor", "periods"), [("2.5", "year"), ("6", "year"), ("2.51", "month")])
def test_the_finance_workbook_says_the_rule_in_its_results(tmp_path, capsys, tenor, periods):
    """A tenor the model refuses, typed into the finance workbook's inputs (here by --set, the
    cell's own range passed): the workbook's inputs check, and so its project results, say the
    rule (udfs.periodlines.TENOR_CHECK), the same text as every other route."""
    import openpyxl
    from test_template_set import _value

    out = tmp_path / "t.xlsx"
    sets = {"inp_periods": periods, "inp_rent_usd_per_gpu_hour_1": 2.0, "inp_debt_fraction": 0.5,
            "inp_debt_years": tenor, "inp_life_years": 5}  # fmt: skip
    argv = ["template", "-o", str(out), "--systems", "H100_HGX"]
    assert main(argv + [a for k, v in sets.items() for a in ("--set", f"{k}={v}")]) == 0
    capsys.readouterr()
    wb = openpyxl.load_workbook(out, data_only=True)
    assert _value(wb, "out_equity_irr_1") == f"debt_years must be {RULE}"


def test_the_workbooks_tenor_cells_say_the_rule_when_a_value_is_typed(tmp_path):
    """The data validation of the tenor cells (finance workbook: inp_debt_years; scenario
    workbook: the Inputs cell of debt_years) says the same rule in its prompt and its error
    message as every other route; the cell's check still refuses 0 and 101."""
    from gputco.workbook.scenarios.build import write_scenarios

    finance = tmp_path / "f.xlsx"
    assert main(["template", "-o", str(finance)]) == 0
    spec = parse_spec(
        {"grid": {"system": ["H100_HGX"]}, "fixed": {"mfu": 0.5, "debt_fraction": 0.5, "debt_years": 4}}
    )
    scenarios = write_scenarios(spec, tmp_path / "s.xlsx").path
    for path, name in ((finance, "inp_debt_years"), (scenarios, "inp_debt_years")):
        wb = openpyxl.load_workbook(path)
        ((sheet, ref),) = wb.defined_names[name].destinations
        cell = ref.replace("$", "")
        (dv,) = [dv for dv in wb[sheet].data_validations.dataValidation if cell in dv.sqref]
        assert dv.prompt == f"debt_years must be {RULE}" and dv.error == f"debt_years must be {RULE}.", (
            path,
            dv,
        )
        assert f"{cell}>0" in dv.formula1 and f"{cell}<=100" in dv.formula1, dv.formula1
