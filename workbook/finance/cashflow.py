"""The Cash flow sheets: one per system column, the chain's per-year table in native formulas.

Owning one GPU and renting it out (udfs.decisions): one row per year 0..15 (blank after the life),
one column per :data:`gputco.udfs.chain.YEAR_STEPS` column, each cell the chain's formula with the
system's Model cells in place of its scalar operands. Years after the life are blank (NPV, IRR,
COUNT and MIN ignore text in a range, as they ignore the zeros the chain gives those years; the two
charted cumulative columns hold #N/A there, shown blank, so the lines stop at the life). The
Model sheet's NPV, IRR, payback and break-even rent read these rows. A last column, the discounted
cumulative net (net / (1 + cost of capital)^year, summed; its value at the life is the NPV), is
drawn with the undiscounted cumulative in the chart.
"""

from __future__ import annotations

import re

from openpyxl.chart import LineChart, Reference
from openpyxl.formatting.rule import FormulaRule
from openpyxl.styles import Font
from openpyxl.utils import get_column_letter, quote_sheetname

from gputco.udfs import chain, presets
from gputco.workbook.finance import marketcharts, projectflows
from gputco.workbook.xlsx import styles
from gputco.workbook.xlsx.book import BookBuilder

YEARS = 16  # years 0..15
HEAD_ROW = 5
FIRST_ROW = HEAD_ROW + 1
LAST_ROW = FIRST_ROW + YEARS - 1
#: column of each per-year quantity: A = year, then the chain's columns
COLUMNS = ["year", *(y.key for y in chain.YEAR_STEPS)]
#: the sheet's own last column: the running sum of the discounted net cash flow
DISCOUNTED = "discounted cumulative"


#: the cumulative cash flow chart's top left cell, below the table
CHART_CELL = f"A{LAST_ROW + 3}"


def fit_charts(wb) -> None:
    """End the Cash flow sheets' charts at the project's last year as the workbook holds it
    (after ``--set``): the cumulative cash flow at the life, the cumulative equity cash flow at
    the year of build + life, the rent path and the collateral drawn again for the inputs
    (:func:`.marketcharts.place`); the tables run on (they follow a life changed later on Inputs,
    where a chart's series cannot: LibreOffice draws the #N/A past the end as 0)."""
    life = _input(wb, "inp_life_years")
    if life is None:
        life = presets.buyer(_input(wb, "inp_buyer")).value("life_years")
    periods = _input(wb, "inp_periods") or "year"
    k = 1
    while sheet_name(k) in wb.sheetnames:
        build = _input(wb, f"inp_build_months_{k}") or 0
        ends = {
            CHART_CELL: FIRST_ROW + min(YEARS - 1, int(life)),
            projectflows.CHART_CELL: projectflows.FIRST_ROW
            + min(projectflows.SUMMARY_YEARS - 1, -(-int(build + 12 * life) // 12)),
        }
        for chart in wb[sheet_name(k)]._charts:
            last = ends.get(chart.anchor) if isinstance(chart.anchor, str) else None
            if last is not None:
                _end_series_at(chart, last)
        contracted = _input(wb, f"inp_contracted_fraction_{k}") or 0
        drawn = marketcharts.Drawn(
            life,
            build,
            periods,
            rent=isinstance(_input(wb, f"inp_rent_usd_per_gpu_hour_{k}"), int | float),
            contract_years=(_input(wb, f"inp_contract_years_{k}") or life) if contracted > 0 else 0.0,
        )
        marketcharts.place(wb[sheet_name(k)], _input(wb, f"inp_system_{k}"), drawn)
        k += 1


def _input(wb, name: str):
    sheet, ref = wb.defined_names[name].attr_text.split("!")
    return wb[sheet.strip("'")][ref.replace("$", "")].value


def _end_series_at(chart, last: int) -> None:
    """Every series' values and categories end at row ``last``."""
    for series in chart.series:
        for ref in (series.val.numRef, series.cat.numRef if series.cat else None):
            if ref is not None:
                ref.f = re.sub(r"\$?(\d+)$", lambda m: f"${last}", ref.f)


def sheet_name(k: int) -> str:
    return f"Cash flow {k}"


def _col(key: str) -> str:
    return get_column_letter(COLUMNS.index(key) + 1)


def year_ref(column: str, spec: str, row: int | None = None, sheet: str | None = None) -> str:
    """The reference of a per-year cell or range: spec "0", "1:last", "0:last" (absolute rows),
    "" or "prev" (the year of ``row``, or the one before: 0 before year 0); on ``sheet`` if given.
    """
    c = _col(column)
    if spec in ("", "prev"):
        r = row if spec == "" else row - 1
        if r < FIRST_ROW:
            return "0"
        ref = f"{c}{r}"
    else:
        first, _, last = spec.partition(":")
        ref = f"${c}${FIRST_ROW + int(first)}"
        if last:
            ref += f":${c}${LAST_ROW if last == 'last' else FIRST_ROW + int(last)}"
    return ref if sheet is None else f"{quote_sheetname(sheet)}!{ref}"


def build(book: BookBuilder) -> None:
    for k in range(1, book.n + 1):
        _build_one(book, k)


def _build_one(book: BookBuilder, k: int) -> None:
    ws = book.wb.create_sheet(sheet_name(k))
    col = book.system_col(k)
    letter = get_column_letter(col)
    system = book.systems[k - 1]
    styles.title(
        ws,
        f"Cash flow {k}: owning one {system} GPU and renting it out",
        "USD per GPU, end-of-year cash flows (outflows negative); years after the life "
        "are blank. Rent, life, tax, decline and escalation are on Inputs; the results are "
        "on Model (NPV, IRR, payback, break-even rent).",
    )
    styles.header_row(
        ws,
        HEAD_ROW,
        [*(("year" if c == "year" else chain.year_step(c).heading) for c in COLUMNS), DISCOUNTED],
    )
    ws.row_dimensions[HEAD_ROW].height = 30  # two-line headings

    def model(name: str) -> str:
        return f"Model!${letter}${book.row('Model', name)}"

    disc = len(COLUMNS) + 1
    life = model("life_years")
    for y in range(YEARS):
        r = FIRST_ROW + y
        ws.cell(row=r, column=1, value=y)
        for step in chain.YEAR_STEPS:
            text = chain.formula(step.key, model, year=lambda c, spec, r=r: year_ref(c, spec, r))
            needs = chain.optional_inputs_of(step.key)
            tests = [f"ISNUMBER({model(n)})" for n in needs] + ([f"$A{r}<={life}"] if y > 1 else [])
            if step.key == "cumulative" and y > 1:  # charted: #N/A after the life is a gap
                rent = ",".join(tests[:-1]) or "TRUE"
                text = f'=IF(AND({rent}),IF({tests[-1]},{text[1:]},NA()),"")'
            elif tests:  # blank without the rent and after the life (years 0 and 1 always exist)
                text = f'=IF(AND({",".join(tests)}),{text[1:]},"")'
            cell = ws.cell(row=r, column=COLUMNS.index(step.key) + 1, value=text)
            styles.style_formula(cell, "USD" if step.key != "payback_point" else "years")
        net = year_ref("net", "", r)
        prev = "0" if y == 0 else f"{get_column_letter(disc)}{r - 1}"
        rent = ",".join(f"ISNUMBER({model(n)})" for n in chain.optional_inputs_of("net")) or "TRUE"
        text = (
            f'=IF(ISNUMBER({net}),{prev}+{net}/(1+{model("cost_of_capital")})^$A{r},IF(AND({rent}),NA(),""))'
        )
        styles.style_formula(ws.cell(row=r, column=disc, value=text), "USD")
    summary = HEAD_ROW - 2
    for i, (key, label) in enumerate(
        (
            ("npv_usd_per_gpu", "NPV"),
            ("irr", "IRR"),
            ("payback_years", "Payback, years"),
            ("breakeven_rent_usd_per_gpu_hour", "Break-even rent"),
        )
    ):
        c = 1 + 2 * i
        ws.cell(row=summary, column=c, value=label).font = styles.BOLD
        cell = ws.cell(row=summary, column=c + 1, value=f"={model(key)}")
        styles.style_formula(cell, chain.step(key).unit if key != "irr" else "fraction")
        cell.font = styles.BOLD
    styles.widths(ws, {i + 1: 15 for i in range(len(COLUMNS) + 1)})
    for c in (COLUMNS.index("cumulative") + 1, disc):  # the charts' gaps: #N/A, shown blank
        cells = f"{get_column_letter(c)}{FIRST_ROW}:{get_column_letter(c)}{LAST_ROW}"
        ws.conditional_formatting.add(
            cells,
            FormulaRule(formula=[f"ISNA({get_column_letter(c)}{FIRST_ROW})"], font=Font(color="FFFFFF")),
        )
    net_col = get_column_letter(COLUMNS.index("net") + 1)  # years after the life: no year shown
    ws.conditional_formatting.add(
        f"A{FIRST_ROW}:A{LAST_ROW}",
        FormulaRule(formula=[f'${net_col}{FIRST_ROW}=""'], font=Font(color="FFFFFF")),
    )
    ws.freeze_panes = ws.cell(row=FIRST_ROW, column=2)
    chart = LineChart()
    chart.title = f"Cumulative cash flow per GPU, {system}"
    chart.y_axis.title = "USD per GPU"
    chart.x_axis.title = "year"
    chart.y_axis.number_format = '"$"#,##0'
    cum = COLUMNS.index("cumulative") + 1
    # years 0..the life as written (fit_charts): LibreOffice draws a #N/A as 0, so the lines end
    # at the life only if the series do; the table follows a life changed on Inputs later
    last = FIRST_ROW + min(YEARS - 1, int(presets.buyer(book.buyer).value("life_years")))
    for c in (cum, disc):  # undiscounted and discounted (its last point is the NPV)
        chart.add_data(Reference(ws, min_col=c, min_row=HEAD_ROW, max_row=last), titles_from_data=True)
    for series, dash in zip(chart.series, ("solid", "dash"), strict=True):
        series.smooth = False
        series.graphicalProperties.line.dashStyle = dash
    chart.legend.position = "b"
    chart.x_axis.tickLblPos = "low"  # year labels below the plot, clear of negative values
    chart.set_categories(Reference(ws, min_col=1, min_row=FIRST_ROW, max_row=last))
    chart.x_axis.delete = False
    chart.y_axis.delete = False
    chart.width, chart.height = 18, 8
    ws.add_chart(chart, CHART_CELL)
    projectflows.build_periods(book, ws, k, model)
    marketcharts.build(ws, system, model, presets.buyer(book.buyer).value("life_years"))
    styles.page_setup(ws, landscape=True, one_page=True)
