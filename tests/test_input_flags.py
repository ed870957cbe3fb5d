"""The finance workbook flags out-of-range inputs itself: a "range check" cell beside each input
row and a banner on Model and Compare, native formulas computed alike by gputco's engine and by
LibreOffice (live, and recorded in tests/data/lo_probes.json, set "input_flags", so that the
comparison also runs where LibreOffice is absent).

The inputs are written with openpyxl, which runs no data validation (a cost of capital
of 13 for 13%, a utilisation of 85 for 85%).
"""

from __future__ import annotations

import openpyxl
import pytest
from lo import recalculate, requires_soffice
from lo_record import recorded, verify_or_refresh
from openpyxl.utils import column_index_from_string
from openpyxl.utils.cell import coordinate_from_string

from gputco.udfs import UDFS, ranges
from gputco.workbook.finance.flags import COUNT
from gputco.workbook.recalc import recalc_file

SET = "input_flags"
BANNER = (
    "Inputs out of range: 2 rows flagged in the range check column on Inputs. These results are not valid."
)


def _cell(wb, name):
    ((sheet, ref),) = wb.defined_names[name].destinations
    return sheet, ref.replace("$", "")


@pytest.fixture(scope="module")
def books(tmp_path_factory, default_template):
    """(clean workbook, the workbook with two bad inputs, {key: Sheet!A1 of the cells to read})."""
    where = tmp_path_factory.mktemp("flags")
    clean = default_template
    wb = openpyxl.load_workbook(clean)
    sheet, count_ref = _cell(wb, COUNT)
    rows = {}
    for name, value in (("inp_cost_of_capital", 13), ("inp_utilisation_2", 85), ("inp_pue", None)):
        s, ref = _cell(wb, name)
        wb[s][ref] = value
        rows[name] = f"{s}!{_flag_beside(wb[s], ref)}"
    bad = where / "bad.xlsx"
    wb.save(bad)
    cells = {**rows, "count": f"{sheet}!{count_ref}", "model": "Model!A3", "compare": "Compare!A3"}
    return clean, bad, cells


def _flag_beside(ws, ref):
    """The range check cell right beside an input (the row's last input here: the buyer's value,
    the last system's column), where a user sees it (it sat in a column far right)."""
    col, row = column_index_from_string(coordinate_from_string(ref)[0]), coordinate_from_string(ref)[1]
    cell = ws.cell(row=row, column=col + 1)
    assert str(cell.value).startswith("=IF(AND(OR("), f"no range check beside {ref}: {cell.value!r}"
    return cell.coordinate


def read(path, cells):
    wb = openpyxl.load_workbook(path, data_only=True)
    out = {}
    for where in cells.values():
        sheet, ref = where.split("!")
        v = wb[sheet][ref].value
        out[where] = "" if v is None else v
    return out


def expected(cells):
    return {
        cells["inp_cost_of_capital"]: f"outside {ranges.of('cost_of_capital')}",  # [0, 1]
        cells["inp_utilisation_2"]: f"outside {ranges.of('utilisation')}",  # (0, 1]
        cells["inp_pue"]: "",  # blank: the preset is used
        cells["count"]: 2,
        cells["model"]: BANNER,
        cells["compare"]: BANNER,
    }


def test_a_generated_workbook_flags_nothing(books):
    clean, _bad, cells = books
    got = read(clean, cells)
    assert got[cells["count"]] == 0
    assert got[cells["model"]] == got[cells["compare"]] == ""
    assert got[cells["inp_cost_of_capital"]] == ""
    wb = openpyxl.load_workbook(clean)
    for sheet in ("Model", "Compare"):  # an empty banner shows nothing: no fill but while it shows
        assert wb[sheet]["A3"].fill.fill_type is None
        (rule,) = [r for cf in wb[sheet].conditional_formatting if "A3" in str(cf.sqref) for r in cf.rules]
        assert rule.formula == [f"{COUNT}>0"]


def test_the_engine_flags_the_rows_and_shows_the_banner(books, tmp_path):
    _clean, bad, cells = books
    out = recalc_file(bad, tmp_path / "engine.xlsx", engine="gputco", functions=UDFS).destination
    got = read(out, cells)
    assert got == expected(cells)
    # LibreOffice's recorded answers for the same cells
    rec = {k: "" if v is None else v for k, v in recorded(SET).items()}  # an empty text: blank
    assert set(rec) == set(got) and got == rec


@requires_soffice
def test_libreoffice_flags_the_same_live_and_as_recorded(books, tmp_path):
    _clean, bad, cells = books
    live = read(recalculate(bad, tmp_path), cells)
    assert live == expected(cells)
    assert verify_or_refresh(SET, live) == []
