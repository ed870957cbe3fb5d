"""The market curves drawn on each Cash flow sheet (issue 41): the rent path and the collateral.

- **Rent path** (:data:`RENT_CHART_CELL`): the market rent per GPU-hour by year of operation, the
  rent x the rent curve's factor of that year (the period table's own ``rent factor of the year``
  cell of the year's first operating period), and the contract rent x (1 + contract escalation)^year
  in the years under contract.
  A small table right of the yearly summary holds the two lines, one row a year of operation
  (0..14), #N/A (shown blank) past the life and outside the contract, so Excel leaves a gap.
- **Collateral** (:data:`COLLATERAL_CHART_CELL`): the period table's collateral value, debt at
  end and recovery if sold, by period from paying the capex.

Both charts read cells that follow the inputs when Excel or LibreOffice recalculates; their series
end at the project's last year or period as the workbook holds it when written (:func:`place`, from
``cashflow.fit_charts``, after ``--set`` too), since LibreOffice draws a #N/A past the end as a fall to 0. They sit below the yearly
table's two charts (A24, A42), left of the period table (column M), covering no table.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from openpyxl.chart import LineChart, Reference
from openpyxl.formatting.rule import FormulaRule
from openpyxl.styles import Font
from openpyxl.utils import column_index_from_string, get_column_letter

from gputco.workbook.finance import projectflows
from gputco.workbook.xlsx import styles

#: the charts' top left cells: below the equity chart (A42, 8 cm, about 16 rows), one above the other
RENT_CHART_CELL = "A60"
COLLATERAL_CHART_CELL = "A78"
#: the rent path's table: right of the yearly summary, one column apart
RENT_FIRST_COL = projectflows.SUMMARY_FIRST_COL + len(projectflows.SUMMARY) + 2
#: years of operation 0 .. the longest life - 1
RENT_YEARS = projectflows.MAX_LIFE_YEARS
#: the rent path table's columns: key, heading
RENT_COLUMNS = [
    ("year", "year of operation"),
    ("market_rent", "market rent"),
    ("contract_rent", "contract rent"),
]
#: the collateral chart's period-table columns
COLLATERAL_LINES = ("collateral", "owed_end", "recovery")


def rent_col(key: str) -> str:
    """The column letter of the rent path table's ``key``."""
    return get_column_letter(RENT_FIRST_COL + [k for k, _ in RENT_COLUMNS].index(key))


def build(ws, system: str, model, life: float) -> None:
    """The rent path table and both charts on Cash flow sheet ``ws`` (``model(name)``: the
    system's Model cell), drawn for a project of ``life`` years, no build, by year, no rent
    and no contract; ``cashflow.fit_charts`` draws them again for the inputs as the workbook holds
    them (when it is built, and after ``--set``)."""
    _rent_table(ws, model)
    place(ws, system, Drawn(life))


@dataclass(frozen=True)
class Drawn:
    """What the charts' series span, from the inputs as the workbook holds them when written:
    the life (years), the build (months), "year" or "month" periods, whether a rent is typed in,
    and the contract's term in years (0: no contract)."""

    life: float
    build_months: float = 0.0
    periods: str = "year"
    rent: bool = False
    contract_years: float = 0.0


def place(ws, system: str, drawn: Drawn) -> None:
    """(Re)draw the two charts on ``ws`` for ``drawn``: the rent path's market rent over the years
    of operation (none without a rent: LibreOffice would draw the #N/A as a line at $0), its
    contract rent over the contract's years (none without a contract), the collateral lines over
    periods 0..build + life; no series runs past the project's end (LibreOffice draws a #N/A
    there as a fall to 0)."""
    ws._charts = [c for c in ws._charts if c.anchor not in (RENT_CHART_CELL, COLLATERAL_CHART_CELL)]
    ws.add_chart(_rent_chart(ws, system, drawn), RENT_CHART_CELL)
    ws.add_chart(_collateral_chart(ws, system, drawn), COLLATERAL_CHART_CELL)


def _rent_table(ws, model) -> None:
    first, head = RENT_FIRST_COL, projectflows.HEAD_ROW
    ws.cell(
        row=head - 1,
        column=first,
        value="Rent path by year of operation, USD per GPU-hour (the chart at A60)",
    ).font = styles.BOLD
    styles.header_row(ws, head, [h for _, h in RENT_COLUMNS], first_col=first)
    factor, contract = (projectflows.column_ref(k) for k in ("rent_factor", "contract"))
    rent, contract_rent = model("rent_usd_per_gpu_hour"), model("contract_rent_usd_per_gpu_hour")
    life = model("life_years")
    for y in range(RENT_YEARS):
        r = projectflows.FIRST_ROW + y
        year = f"${rent_col('year')}{r}"
        # the year's first operating period: period build + y x periods a year + 1, row 1 + that
        at = f"{model('build_periods')}+{year}*{model('periods_per_year')}+2"
        ws.cell(row=r, column=first, value=y)
        market = f"=IF(AND(ISNUMBER({rent}),{year}<{life}),{rent}*INDEX({factor},{at}),NA())"
        under = (
            f"=IF(AND(ISNUMBER({contract_rent}),{year}<{life},{model('contracted_fraction')}>0,"
            f"INDEX({contract},{at})>0),{contract_rent}*(1+{model('contract_escalation_per_year')})^{year},NA())"
        )
        for key, text in (("market_rent", market), ("contract_rent", under)):
            styles.style_formula(ws[f"{rent_col(key)}{r}"], "USD/GPU-h")
            ws[f"{rent_col(key)}{r}"] = text
    last = projectflows.FIRST_ROW + RENT_YEARS - 1
    # the gaps: #N/A, shown blank; a year without a market rent (past the life) not shown
    for key, test in (
        ("market_rent", "market_rent"),
        ("contract_rent", "contract_rent"),
        ("year", "market_rent"),
    ):
        c = rent_col(key)
        ws.conditional_formatting.add(
            f"{c}{projectflows.FIRST_ROW}:{c}{last}",
            FormulaRule(
                formula=[f"ISNA(${rent_col(test)}{projectflows.FIRST_ROW})"], font=Font(color="FFFFFF")
            ),
        )
    styles.widths(ws, {first + i: 15 for i in range(len(RENT_COLUMNS))})


def _chart(title: str, y_title: str, x_title: str, number_format: str) -> LineChart:
    chart = LineChart()
    chart.title = title
    chart.y_axis.title = y_title
    chart.x_axis.title = x_title
    chart.y_axis.number_format = number_format
    chart.legend.position = "b"
    chart.x_axis.tickLblPos = "low"
    chart.x_axis.delete = False
    chart.y_axis.delete = False
    chart.width, chart.height = 18, 8
    return chart


def _rent_chart(ws, system: str, drawn: Drawn) -> LineChart:
    years = max(1, min(RENT_YEARS, math.ceil(drawn.life)))  # year t: operating months 12t+1..12t+12
    chart = _chart(
        f"Rent path per GPU-hour, {system}" + ("" if drawn.rent else ": no rent typed in"),
        "USD per GPU-hour",
        "year of operation",
        '"$"#,##0.00',
    )
    spans = {"market_rent": years if drawn.rent else 0}
    spans["contract_rent"] = min(years, math.ceil(drawn.contract_years)) if drawn.rent else 0
    dashes = {"market_rent": "solid", "contract_rent": "dash"}
    for key, span in spans.items():
        if span > 0:
            c = column_index_from_string(rent_col(key))
            last = projectflows.FIRST_ROW + span - 1
            chart.add_data(
                Reference(ws, min_col=c, min_row=projectflows.HEAD_ROW, max_row=last), titles_from_data=True
            )
            chart.series[-1].smooth = False
            chart.series[-1].graphicalProperties.line.dashStyle = dashes[key]
    last = projectflows.FIRST_ROW + years - 1
    chart.set_categories(Reference(ws, min_col=RENT_FIRST_COL, min_row=projectflows.FIRST_ROW, max_row=last))
    return chart


def last_period(drawn: Drawn) -> int:
    """The project's last period: build + life, in periods."""
    ppy = 12 if drawn.periods == "month" else 1
    return min(projectflows.PERIODS - 1, round(drawn.build_months * ppy / 12) + int(drawn.life * ppy))


def _collateral_chart(ws, system: str, drawn: Drawn) -> LineChart:
    chart = _chart(
        f"Collateral value against the debt, per GPU, {system}",
        "USD per GPU",
        f"{'month' if drawn.periods == 'month' else 'year'} from paying the capex",
        '"$"#,##0',
    )
    last = projectflows.FIRST_ROW + last_period(drawn)
    for key, dash in zip(COLLATERAL_LINES, ("solid", "solid", "dash"), strict=True):
        c = column_index_from_string(projectflows.col(key))
        chart.add_data(
            Reference(ws, min_col=c, min_row=projectflows.HEAD_ROW, max_row=last), titles_from_data=True
        )
        chart.series[-1].smooth = False
        chart.series[-1].graphicalProperties.line.dashStyle = dash
    period = column_index_from_string(projectflows.col("period"))
    chart.set_categories(Reference(ws, min_col=period, min_row=projectflows.FIRST_ROW, max_row=last))
    return chart
