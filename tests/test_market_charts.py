"""The market curves' pictures on each Cash flow sheet (issue 41; workbook/finance/marketcharts.py):
the rent path (market rent x rent curve by year of operation, and the contract rent) and the
collateral value against the debt and the recovery, by period.

Read back from the saved file with openpyxl: the chart types, titles and axis titles, and where
each series points, checked against the sheet itself (the header cell above a series names it;
the period and operating-period cells at its last row say the project ends there). The values the
rent series draws equal the rent typed in x the curve's factors typed in (the text is the oracle),
in the engine and in LibreOffice (which opens and converts the workbook, charts and all). The
pictures were looked at too (`gputco render FILE --png DIR --rows 96 --columns A:K`).
"""

from __future__ import annotations

import math

import openpyxl
import pytest
from lo import requires_soffice

from gputco.workbook.finance import marketcharts, projectflows
from gputco.workbook.finance.build import write_template
from gputco.workbook.finance.cashflow import sheet_name

RENT, CURVE, CONTRACT_RENT, ESCALATION = 2.5, (1.0, 0.6, 0.5), 3.0, 0.1
INPUTS = {
    "inp_life_years": 6,
    "inp_periods": "month",
    "inp_debt_fraction": 0.6,
    "inp_debt_years": 3,
    "inp_build_months_1": 6,
    "inp_rent_usd_per_gpu_hour_1": RENT,
    "inp_rent_curve_1": ", ".join(map(str, CURVE)),
    "inp_value_curve_1": "value_low",
    "inp_contracted_fraction_1": 0.5,
    "inp_contract_years_1": 2.5,
    "inp_contract_rent_usd_per_gpu_hour_1": CONTRACT_RENT,
    "inp_contract_escalation_per_year_1": ESCALATION,
    "inp_rent_usd_per_gpu_hour_2": None,  # no rent: nothing to draw
}


@pytest.fixture(scope="module")
def book(tmp_path_factory):
    path = tmp_path_factory.mktemp("charts") / "charts.xlsx"
    write_template(path, ["H100_HGX", "GB200_NVL72"], inputs=INPUTS)
    return path


def _text(title) -> str:
    return "".join(r.t for p in title.tx.rich.p for r in (p.r or []))


def _charts(ws) -> dict[str, object]:
    """The sheet's charts by the cell of their top left corner."""
    out = {}
    for chart in ws._charts:
        cell = f"{openpyxl.utils.get_column_letter(chart.anchor._from.col + 1)}{chart.anchor._from.row + 1}"
        out[cell] = chart
    return out


def _ref(ref: str) -> tuple[str, str, int, int]:
    """(sheet, column, first row, last row) of ``'Sheet'!$C$6:$C$11``."""
    sheet, _, cells = ref.rpartition("!")
    a, b = cells.replace("$", "").split(":")
    col = "".join(ch for ch in a if ch.isalpha())
    assert col == "".join(ch for ch in b if ch.isalpha())
    return sheet.strip("'"), col, int(a[len(col) :]), int(b[len(col) :])


def _series(ws, chart) -> list[tuple[str, str, int, int]]:
    """Per series: (the header its name points at, its values' column, first and last row, its
    categories' column and last row); the series' name reference is the header cell above its
    values, on this sheet, and its categories start at the same row."""
    out = []
    for s in chart.series:
        sheet, col, first, last = _ref(s.val.numRef.f)
        assert sheet == ws.title
        name = s.tx.strRef.f.replace("$", "").rpartition("!")[2]
        assert name == f"{col}{first - 1}"  # the header row above the values
        cats = _ref(s.cat.numRef.f)
        assert cats[0] == ws.title and cats[2] == first
        out.append((ws[name].value, col, first, last, cats[1], cats[3]))
    return out


def test_each_cash_flow_sheet_has_the_rent_path_and_the_collateral_charts(book):
    wb = openpyxl.load_workbook(book)
    ws = wb[sheet_name(1)]
    charts = _charts(ws)
    assert set(charts) == {"A24", "A42", "A60", "A78"}  # under one another, left of the period table
    rent, collateral = charts["A60"], charts["A78"]
    assert rent.tagname == collateral.tagname == "lineChart"
    assert _text(rent.title) == "Rent path per GPU-hour, H100_HGX"
    assert _text(rent.y_axis.title) == "USD per GPU-hour" and _text(rent.x_axis.title) == "year of operation"
    assert _text(collateral.title) == "Collateral value against the debt, per GPU, H100_HGX"
    assert _text(collateral.y_axis.title) == "USD per GPU"
    assert _text(collateral.x_axis.title) == "month from paying the capex"
    assert rent.legend is not None and collateral.legend is not None
    # the rent path: years of operation 0..5 of the life, the contract's 0..2 (2.5 years)
    first = projectflows.FIRST_ROW
    (market, under) = _series(ws, rent)
    assert market[0] == "market rent" and market[2:4] == (first, first + 5)
    assert under[0] == "contract rent" and under[2:4] == (first, first + 2)
    assert market[5] == under[5] == first + 5  # the years of the life on the axis
    assert [ws[f"{market[4]}{r}"].value for r in range(first, first + 6)] == list(range(6))
    # the collateral lines: the period table's own columns, periods 0..build + life (6 + 72 months)
    lines = _series(ws, collateral)
    assert [x[0] for x in lines] == ["collateral value", "debt at end", "recovery if sold"]
    assert {(*x[2:4], x[5]) for x in lines} == {(first, first + 78, first + 78)}
    period_col = lines[0][4]
    assert ws[f"{period_col}{projectflows.HEAD_ROW}"].value == "period"
    assert ws[f"{period_col}{first + 78}"].value == 78
    # the project ends at the series' last row: operating period 72 = the life by month, the next
    # row is past it (the table runs on to the longest project, blank of flows)
    values = openpyxl.load_workbook(book, data_only=True)[sheet_name(1)]
    k, live = projectflows.col("k"), projectflows.col("live")
    assert values[f"{k}{first + 78}"].value == 72 and values[f"{live}{first + 78}"].value == 1
    assert values[f"{live}{first + 79}"].value == 0


def test_the_rent_path_draws_the_rent_times_the_typed_curve(book):
    """Market rent in year y = rent x factor y (past the last, the last); the contract rent x
    (1 + escalation)^y in the contract's years; #N/A after (Excel leaves a gap; the series end
    before it)."""
    ws = openpyxl.load_workbook(book, data_only=True)[sheet_name(1)]
    first = projectflows.FIRST_ROW
    market = [ws[f"{marketcharts.rent_col('market_rent')}{first + y}"].value for y in range(6)]
    under = [ws[f"{marketcharts.rent_col('contract_rent')}{first + y}"].value for y in range(6)]
    want = [RENT * CURVE[min(y, len(CURVE) - 1)] for y in range(6)]
    assert market == pytest.approx(want, rel=1e-12)
    assert under[:3] == pytest.approx([CONTRACT_RENT * (1 + ESCALATION) ** y for y in range(3)], rel=1e-12)
    assert under[3:] == ["#N/A"] * 3
    assert ws[f"{marketcharts.rent_col('market_rent')}{first + 6}"].value == "#N/A"  # past the life


def test_a_system_without_rent_or_contract_draws_no_line_at_zero(book, tmp_path):
    """LibreOffice draws a #N/A as 0: a series of #N/A only would be a line at $0. Without a rent
    the rent path has no series and says why; without a contract (the default), no contract
    series; the default's market rent ends at the buyer's life."""
    wb = openpyxl.load_workbook(book)
    rent = _charts(wb[sheet_name(2)])["A60"]
    assert rent.series == [] and "no rent typed in" in _text(rent.title)
    write_template(tmp_path / "default.xlsx", ["H100_HGX"])
    ws = openpyxl.load_workbook(tmp_path / "default.xlsx")[sheet_name(1)]
    (market,) = _series(ws, _charts(ws)["A60"])
    life = openpyxl.load_workbook(tmp_path / "default.xlsx", data_only=True)["Model"]
    rows = {life.cell(row=r, column=1).value: r for r in range(1, life.max_row + 1)}
    years = life.cell(row=rows["life_years"], column=4).value
    assert market[0] == "market rent"
    assert market[2:4] == (projectflows.FIRST_ROW, projectflows.FIRST_ROW + int(years) - 1)


@requires_soffice
def test_libreoffice_opens_the_workbook_with_its_charts_and_draws_the_same_rent(book, tmp_path):
    import lo

    out = lo.recalculate(book, tmp_path / "lo")
    got = openpyxl.load_workbook(out, data_only=True)[sheet_name(1)]
    first = projectflows.FIRST_ROW
    market = [got[f"{marketcharts.rent_col('market_rent')}{first + y}"].value for y in range(6)]
    assert market == pytest.approx([RENT * CURVE[min(y, 2)] for y in range(6)], rel=1e-9)
    collateral = projectflows.col("collateral")
    engine = openpyxl.load_workbook(book, data_only=True)[sheet_name(1)]
    for r in range(first, first + 79):
        assert math.isclose(got[f"{collateral}{r}"].value, engine[f"{collateral}{r}"].value, rel_tol=1e-9)
    # the charts came through LibreOffice's own reading and writing
    charts = openpyxl.load_workbook(out)[sheet_name(1)]._charts
    assert len(charts) == 4


def test_the_charts_with_a_contract_line_and_without_a_rent_are_schema_valid(book):
    """The ECMA-376 schemas (tests/ooxml.py) over every part of the workbook whose charts carry a
    contract series shorter than its categories and a rent chart without series."""
    from ooxml import package_errors

    parts, errors = package_errors(book)
    assert parts > 0 and errors == []
