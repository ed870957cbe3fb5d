"""The finance workbook's structure: sheets, inputs, names, drop-downs, styles, tables, charts,
print setup, formulas Excel and LibreOffice 7.4 both know, and the `gputco template` command."""

from __future__ import annotations

import re

import openpyxl
import pytest

from gputco import udfs
from gputco.addin.cli import main
from gputco.udfs import presets
from gputco.workbook.finance import cashflow, projectflows
from gputco.workbook.finance import checks as sheet_checks
from gputco.workbook.finance import inputs as sheet_inputs
from gputco.workbook.finance import model as sheet_model
from gputco.workbook.finance.build import SHEET_ORDER, build_workbook, write_template
from gputco.workbook.xlsx.files import FileExistsRefusal

ALL_SYSTEMS = list(presets.catalog("system"))


@pytest.fixture(scope="module")
def wb(tmp_path_factory):
    """The default workbook as saved by openpyxl and read back (before recalculation)."""
    path = tmp_path_factory.mktemp("structure") / "plain.xlsx"
    build_workbook(["H100_HGX", "GB200_NVL72"]).save(path)
    return openpyxl.load_workbook(path)


def named_cell(wb, name):
    ((sheet, ref),) = wb.defined_names[name].destinations
    return wb[sheet][ref.replace("$", "")]


def all_formulas(wb):
    return [
        (ws.title, c.coordinate, c.value)
        for ws in wb.worksheets
        for row in ws.iter_rows()
        for c in row
        if isinstance(c.value, str) and c.value.startswith("=")
    ]


def test_sheets_in_order(wb):
    cash = [f"Cash flow {k}" for k in range(1, len(wb["Model"][4]) - 3)]  # one per system
    assert wb.sheetnames == [*SHEET_ORDER[:4], *cash, *SHEET_ORDER[4:]]
    assert wb.active.title == "Cover"


def test_cover_names_version_sources_and_legend(wb):
    text = " ".join(str(c.value) for row in wb["Cover"].iter_rows() for c in row if c.value)
    assert f"gputco {udfs.__version__}" in text
    for needle in (
        "How to use it",
        "Where every number comes from",
        "Colour legend",
        "SemiAnalysis",
        "inp_<field>_<n>",
    ):
        assert needle in text


def test_every_input_has_a_name_and_input_style(wb):
    names = [n for n in wb.defined_names if n.startswith("inp_")]
    scalar = {n for n, *_ in sheet_inputs.SCENARIO}
    per_system = {
        f"inp_{f}_{k}"
        for f in ("system", "mfu", "capex_per_gpu", "it_kw_per_gpu", "peak_tflops")
        for k in (1, 2)
    }
    buyer = {f"inp_{f}" for f, *_ in sheet_inputs.BUYER_FIELDS}
    assert scalar | per_system | buyer <= set(names)
    for name in scalar | per_system | buyer:
        cell = named_cell(wb, name)
        assert cell.font.color.rgb.endswith("0000FF"), name  # blue
        assert cell.fill.fgColor.rgb.endswith("FFF2CC"), name  # light yellow
        assert not (isinstance(cell.value, str) and cell.value.startswith("=")), name


def test_formulas_are_black(wb):
    for sheet in ("Model", "Compare"):
        for row in wb[sheet].iter_rows():
            for c in row:
                if isinstance(c.value, str) and c.value.startswith("="):
                    assert c.font.color is None or c.font.color.rgb.endswith("000000"), c


def test_drop_downs_list_the_presets(wb):
    ws = wb["Inputs"]
    lists = {}
    for dv in ws.data_validations.dataValidation:
        if dv.type == "list":
            for rng in dv.sqref.ranges:
                lists[rng.coord] = dv.formula1
    expect = {
        "inp_buyer": "list_buyers",
        "inp_model": "list_models",
        "inp_precision": "list_precisions",
        "inp_convention": "list_conventions",
        "inp_system_1": "list_systems",
        "inp_system_2": "list_systems",
    }
    for name, list_name in expect.items():
        assert lists[named_cell(wb, name).coordinate] == list_name, name
    ((sheet, ref),) = wb.defined_names["list_systems"].destinations
    assert [c.value for (c,) in wb[sheet][ref.replace("$", "")]] == ALL_SYSTEMS
    ((sheet, ref),) = wb.defined_names["list_buyers"].destinations
    assert [c.value for (c,) in wb[sheet][ref.replace("$", "")]] == list(presets.catalog("buyer"))


def test_presets_tables_hold_every_value_with_unit_source_and_date(wb):
    ws = wb["Presets"]
    assert set(ws.tables) == {
        "tbl_systems",
        "tbl_buyers",
        "tbl_models",
        "tbl_runs",
        "tbl_serving",
        "tbl_grid",
        "tbl_finance",
    }
    rows = {}
    for table in ws.tables.values():
        cells = ws[table.ref]
        assert [c.value for c in cells[0]] == ["id", "preset", "field", "value", "unit", "source", "as_of"]
        for r in cells[1:]:
            rows[r[0].value] = [c.value for c in r]
    n = 0
    kinds = [*presets.KINDS, "serving", "grid", "finance"]  # serving throughputs, grid factors
    for kind in kinds:
        for key, p in presets.catalog(kind).items():
            for name, e in p.entries.items():
                if name == "capex_per_gpu":
                    continue  # derived: a formula on Inputs
                row = rows[f"{key}.{name}"]
                assert row[3] == e.value and row[4] == e.unit and row[5] == e.source, row
                assert row[6].date() == e.as_of
                n += 1
    assert n == sum(len(p.entries) for kind in kinds for p in presets.catalog(kind).values()) - len(
        presets.catalog("system")
    )


def test_model_formulas_hold_no_typed_numbers(wb):
    """Constants are named cells (k_*); only the integer coefficients of the FLOPs formulas."""
    for sheet, ref, f in all_formulas(wb):
        if sheet != "Model":
            continue
        text = re.sub(r'"[^"]*"', "", f)  # drop string literals
        text = re.sub(r"'[^']*'!", "", text)  # drop quoted sheet names ('Cash flow 1'!)
        text = re.sub(r"\$?[A-Z]{1,3}\$?\d+", "", text)  # drop cell references
        text = re.sub(r"[A-Za-z_][A-Za-z0-9_]*", "", text)  # drop names and functions
        numbers = set(re.findall(r"\d+(?:\.\d+)?(?:E[+-]?\d+)?", text))
        # the published FLOPs coefficients (2, 6, 12), 0 and 1 as structure (ROUNDUP(x,0),
        # 1 - tax rate, year 1 of the cash flows) and IRR's starting guesses (-0.5, 0.1)
        assert numbers <= {"0", "1", "2", "6", "12", "0.1", "0.5"}, (ref, f, numbers)


def test_formulas_use_functions_libreoffice_74_knows(wb):
    allowed = {
        "INDEX",
        "MATCH",
        "IF",
        "ISNUMBER",
        "NA",
        "PMT",
        "AND",
        "OR",
        "NOT",
        "ABS",
        "MAX",
        "MIN",
        "ISERROR",
        "ISTEXT",
        "EXACT",  # Checks: the same documented text on both sides
        "LEFT",
        "LEN",
        "COUNTA",
        "TRUE",
        "NPV",
        "IRR",
        "ROUNDUP",
        "COUNT",
        "SUM",
        "AVERAGE",
        "COUNTIF",
        # a curve's factor cut from its text (udfs/curves.py excel_at): text functions of every release
        "VALUE",
        "MID",
        "FIND",
        "CHAR",
        "SUBSTITUTE",
        "INT",
        # floating debt's compounded discount (udfs/periodlines.py sculpt_log, loan_log): LN and EXP
        "LN",
        "EXP",
    }
    udf_names = set(udfs.UDFS)
    for sheet, ref, f in all_formulas(wb):
        for func in re.findall(r"([A-Z][A-Z0-9_.]*)\(", re.sub(r'"[^"]*"', "", f)):
            assert func in allowed or (sheet == "Checks" and func in udf_names), (sheet, ref, f)


def test_checks_use_registered_udfs_only():
    assert sheet_checks.udf_names() <= set(udfs.UDFS)
    assert {"TCO_COST_PER_MTOK", "TCO_GPU_HOUR", "TCO_RATIO", "TCO_BREAKEVEN_MFU"} <= sheet_checks.udf_names()


def test_model_rows_have_keys_units_and_how(wb):
    ws = wb["Model"]
    keys = [k for k, *_ in sheet_model.rows() if k]
    found = {ws.cell(row=r, column=1).value: r for r in range(1, ws.max_row + 1)}
    for key in keys:
        r = found[key]
        assert ws.cell(row=r, column=2).value  # label
        assert ws.cell(row=r, column=6).value  # how (after the 2 system columns)


def test_two_charts_on_compare():
    wb = build_workbook(["H100_HGX", "GB200_NVL72"])
    charts = wb["Compare"]._charts
    assert len(charts) == 2
    bar, line = charts
    assert bar.grouping == "stacked" and len(bar.series) == 4
    assert len(line.series) == 2


def test_every_sheet_prints_fit_to_width(wb):
    for ws in wb.worksheets:
        assert ws.sheet_properties.pageSetUpPr.fitToPage, ws.title
        assert ws.page_setup.fitToWidth == 1, ws.title


def test_xlwings_conf_sheet(wb):
    ws = wb["xlwings.conf"]
    conf = {ws.cell(row=r, column=1).value: ws.cell(row=r, column=2).value for r in range(1, ws.max_row + 1)}
    assert conf["UDF Modules"]


def test_excel_opens_showing_the_cached_values(wb):
    """No full calculation on load (ECMA-376 Part 1 §18.2.2): without the add-in Excel would turn
    every TCO_ cell into #NAME?; the engine id of Excel 2019/365, else Excel recalculates anyway
    (docs/workbook.md)."""
    assert not wb.calculation.fullCalcOnLoad
    assert wb.calculation.calcId == 191029


def test_one_column_per_system_up_to_all_ten():
    n = len(ALL_SYSTEMS)
    assert n == 10  # the template takes all ten system presets
    wb = build_workbook(ALL_SYSTEMS, "neocloud_giant")
    assert [named_cell(wb, f"inp_system_{k}").value for k in range(1, n + 1)] == ALL_SYSTEMS
    assert named_cell(wb, "inp_buyer").value == "neocloud_giant"
    assert f"inp_system_{n + 1}" not in wb.defined_names


def test_unknown_system_is_a_usage_error(tmp_path, capsys):
    assert main(["template", "-o", str(tmp_path / "x.xlsx"), "--systems", "H100_HXG"]) == 2
    err = capsys.readouterr().err
    assert "unknown system 'H100_HXG'" in err and "Did you mean H100_HGX?" in err
    assert not (tmp_path / "x.xlsx").exists()


def test_refuses_to_overwrite_without_force(tmp_path):
    path = tmp_path / "gpu-tco.xlsx"
    path.write_bytes(b"keep me")
    with pytest.raises(FileExistsRefusal):
        write_template(path)
    assert path.read_bytes() == b"keep me"
    assert main(["template", "-o", str(path)]) == 2
    assert path.read_bytes() == b"keep me"
    assert list(tmp_path.iterdir()) == [path]  # no temporary file left behind


def test_xlwings_fallback_rows_match_the_addin():
    """workbook/ may not import addin/, so it keeps a copy of the rows; the CLI passes the real
    ones. The copy must not drift."""
    from gputco.addin.xlwings_conf import xlwings_conf_rows
    from gputco.workbook.xlsx.xlwings_sheet import FALLBACK_XLWINGS_ROWS

    assert FALLBACK_XLWINGS_ROWS == xlwings_conf_rows()


def test_cash_flow_charts_end_at_the_project_s_last_year(tmp_path):
    """The charts stop where the project does, as written after --set (LibreOffice draws the
    #N/A past the end as 0, and a cumulative line past the end is flat): the cash flow at the
    life (7 years), the equity cash flow and the collateral at build + life (1 + 7 years for
    system 1, 7 for 2), the rent path at the last year of operation (6)."""
    path = tmp_path / "t.xlsx"
    write_template(path, ["H100_HGX", "GB200_NVL72"], inputs={"inp_life_years": 7, "inp_build_months_1": 12})
    wb = openpyxl.load_workbook(path)
    for k, equity_years in ((1, 8), (2, 7)):
        ws = wb[cashflow.sheet_name(k)]
        ends = {}
        for chart in ws._charts:
            rows = {int(re.search(r"(\d+)$", s.val.numRef.f)[1]) for s in chart.series}
            rows |= {int(re.search(r"(\d+)$", s.cat.numRef.f)[1]) for s in chart.series}
            ends[chart.title.tx.rich.p[0].r[0].t.split(" per GPU")[0]] = rows
        assert ends == {
            "Cumulative cash flow": {cashflow.FIRST_ROW + 7},
            "Cumulative equity cash flow": {projectflows.FIRST_ROW + equity_years},
            # the market curves: years of operation 0..6, periods 0..build + life
            "Rent path": {projectflows.FIRST_ROW + 6},
            "Collateral value against the debt,": {projectflows.FIRST_ROW + equity_years},
        }
