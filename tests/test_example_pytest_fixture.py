"""The worked example of docs/pytest.md: a team's own tests of its model workbook with the
``gputco_workbook`` fixture, which gputco's pytest plugin provides (no conftest needed)."""

import openpyxl
import pytest

from gputco.workbook.finance.build import write_template


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    path = tmp_path_factory.mktemp("model") / "model.xlsx"
    write_template(path)  # the same file as `gputco template -o model.xlsx`
    return path


def test_h100_tco_per_gpu_hour(gputco_workbook, model):
    book = gputco_workbook(model)  # recalculated once; fails if a stored value is stale
    assert book["out_tco_usd_per_gpu_hour_1"] == pytest.approx(1.4199, rel=1e-4)
    assert book["Model!D6"] == "H100_HGX"  # a cell by sheet and reference
    assert book["chk_ok"] is True


def test_cheaper_power_lowers_the_tco(gputco_workbook, model, tmp_path):
    wb = openpyxl.load_workbook(model)
    ((sheet, ref),) = wb.defined_names["inp_usd_per_kwh"].destinations
    wb[sheet][ref] = 0.05  # USD/kWh; openpyxl leaves every formula without a value
    wb.save(tmp_path / "cheap.xlsx")
    book = gputco_workbook(tmp_path / "cheap.xlsx", check=False)  # read the recalculated values
    assert book["out_tco_usd_per_gpu_hour_1"] < 1.4199
    assert book["chk_ok"] is True
