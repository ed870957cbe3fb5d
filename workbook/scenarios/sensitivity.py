"""The Sensitivity sheet: a tornado around the base scenario, ranked by the NPV where the base gives
a rent (rent, utilisation and availability among the default drivers), else by the cost per Mtok.

Each driver is moved down and up by its swing, a fraction of its base value (PUE: of its
overhead above 1, see ``scenario_spec.FLOORS``), with every other input at the base scenario
(Inputs: ``base_*``). The table gives the low and high values, the cost per Mtok at each and the
change from the base, and beside them the NPV and IRR of owning one GPU and renting it out at
each (they need the rent; life and depreciation move in whole years) and the NPV's change; with
the project's cells also the lowest DSCR, the equity IRR and the highest loan to value at each
(:data:`LENDER`: a value curve's shift or slope moves the LTV alone); the bar
chart shows the changes of the ranking metric, largest range on top (the order is computed when
the file is written). Below it, the *cases* block runs the whole chain once per
case (base, then each driver low and high), so every number is a formula.
"""

from __future__ import annotations

import numpy as np
from openpyxl.chart import BarChart, Reference
from openpyxl.styles import Border, PatternFill

from gputco.udfs import ranges, scenario
from gputco.workbook.scenarios import projectcells
from gputco.workbook.scenarios.layout import INPUTS, LAST_YEAR, Layout, cash_flow_years
from gputco.workbook.scenarios.rows import row_block, write_all
from gputco.workbook.scenarios.spec import FLOORS, Spec
from gputco.workbook.xlsx import styles
from gputco.workbook.xlsx.book import BookBuilder

SHEET = "Sensitivity"
TABLE_ROW = 5  # header of the tornado table
HEADINGS = [
    "driver",
    "",
    "unit",
    "base value",
    "swing",
    "floor",
    "low value",
    "high value",
    "$/Mtok at low",
    "$/Mtok at high",
    "change at low",
    "change at high",
    "NPV at low ($/GPU)",
    "NPV at high ($/GPU)",
    "IRR at low",
    "IRR at high",
    "NPV change at low",
    "NPV change at high",
]
#: the rent-or-buy results beside the tornado (columns M..P): key, unit, first column
DECISIONS = (("project_npv_usd_per_gpu", "USD", 13), ("project_irr", "1/year", 15))
#: with the project's cells, the lender's and the equity's results at each case (columns S..X;
#: "no debt" where the case has none; the max LTV moves with the value curve, which the cash
#: flows do not read): key, unit, first column, headings
LENDER = (
    ("min_dscr", "ratio", 19, ("min DSCR at low", "min DSCR at high")),
    ("equity_irr", "1/year", 21, ("equity IRR at low", "equity IRR at high")),
    ("max_ltv", "ratio", 23, ("max LTV at low", "max LTV at high")),
)
#: where the tornado chart goes: right of the table (with the project's columns, right of those)
CHART_CELL = {False: "T4", True: "Z4"}


def metric(spec: Spec) -> str:
    """What the tornado ranks by: the NPV where the base scenario gives a rent, else $/Mtok."""
    return "project_npv_usd_per_gpu" if cash_flow_years(spec.base) else "usd_per_mtok"


def ordered_cases(spec: Spec) -> list[tuple[str, float, float, float, float, float]]:
    """(driver, base, low, high, :func:`metric` at low, at high), largest range first."""
    out, ranked = [], []
    key = metric(spec)
    for d, b, lo, hi in spec.sensitivity_cases():
        m = scenario.evaluate({**spec.base, d: np.array([lo, hi])})[key]
        out.append((d, b, lo, hi, float(m[0]), float(m[1])))
        ranked.append(abs(float(m[1]) - float(m[0])))
    order = sorted(range(len(out)), key=lambda i: -ranked[i])
    return [out[i] for i in order]


def build(
    book: BookBuilder, spec: Spec, base: Layout, project: bool = False
) -> list[tuple[str, float, float, float, float, float]]:
    """Write the sheet; return the cases in table order (for the command's summary). With
    ``project`` the cases carry the project's periods (every build and life the cases reach)."""
    ws = book.wb.create_sheet(SHEET)
    cases = ordered_cases(spec)
    styles.title(
        ws,
        "Sensitivity: "
        + ("NPV per GPU" if metric(spec) == "project_npv_usd_per_gpu" else "cost per million tokens")
        + " when one driver moves (largest range first)",
        "Each driver down and up by its swing (a fraction of its base value; PUE: of its "
        "overhead above 1), everything else at the base scenario (Inputs, base_*). "
        "Change the swings or the base and the table, the cases and the chart follow.",
    )
    styles.header_row(ws, TABLE_ROW, HEADINGS + ([h for *_k, hs in LENDER for h in hs] if project else []))
    ws.row_dimensions[TABLE_ROW].height = 30
    k = len(cases)
    first_case = TABLE_ROW + max(k + 8, 30)  # the cases block's data rows, below the chart
    # a cash-flow table of every whole life the cases can reach, if the base gives a rent
    years = LAST_YEAR if cash_flow_years(spec.base) else 0
    last = None
    if project:
        reach = [{**spec.base, d: value} for d, _b, lo, hi, *_ in cases for value in (lo, hi)]
        last = max(projectcells.last_period(x) for x in [spec.base, *reach])
    layout = base.block([c[0] for c in cases], first_col=3, last_year=years, project=last)
    mtok = layout.letter("usd_per_mtok")
    rows = {}
    for i, (d, *_rest) in enumerate(cases):
        r = TABLE_ROW + 1 + i
        rows[d] = r
        q = INPUTS[d]
        ws.cell(row=r, column=1, value=d).font = styles.KEY_FONT
        ws.cell(row=r, column=2, value=q.label)
        ws.cell(row=r, column=3, value=q.unit).font = styles.KEY_FONT
        styles.style_lookup(ws.cell(row=r, column=4, value=f"={base.ref(d)}"), q.unit)
        styles.style_input(ws.cell(row=r, column=5, value=spec.swing(d)), "fraction")
        ws.cell(row=r, column=6, value=FLOORS.get(d, 0.0))
        for col, sign in ((7, "-"), (8, "+")):
            moved = f"F{r}+(D{r}-F{r})*(1{sign}E{r})"
            if d in ranges.WHOLE_YEARS:  # moved in whole years, at least one
                moved = f"MAX(1,ROUND({moved},0))"
            styles.style_formula(ws.cell(row=r, column=col, value="=" + moved), q.unit)
        low_row, high_row = first_case + 1 + 2 * i, first_case + 2 + 2 * i
        for col, case_row in ((9, low_row), (10, high_row)):
            styles.style_formula(ws.cell(row=r, column=col, value=f"={mtok}{case_row}"), "USD/Mtok")
        for col, src in ((11, "I"), (12, "J")):
            styles.style_formula(
                ws.cell(row=r, column=col, value=f"={src}{r}-sens_base_usd_per_mtok"), "USD/Mtok"
            )
        for key, unit, first_col in (*DECISIONS, *((k, u, c) for k, u, c, _h in LENDER if project)):
            letter = layout.letter(key)
            for col, case_row in ((first_col, low_row), (first_col + 1, high_row)):
                styles.style_formula(ws.cell(row=r, column=col, value=f"={letter}{case_row}"), unit)
        npv = layout.letter("project_npv_usd_per_gpu")
        for col, src in ((17, "M"), (18, "N")):
            text = f'=IF(ISNUMBER({src}{r}),{src}{r}-{npv}{first_case},"needs rent_usd_per_gpu_hour")'
            styles.style_formula(ws.cell(row=r, column=col, value=text), "USD")
    base_row = TABLE_ROW + k + 2
    ws.cell(row=base_row, column=2, value="Base scenario: cost per million tokens").font = styles.BOLD
    cell = ws.cell(row=base_row, column=9, value=f"={mtok}{first_case}")
    styles.style_formula(cell, "USD/Mtok")
    cell.font = styles.BOLD
    book.define_cell("sens_base_usd_per_mtok", ws, base_row, 9)
    _chart(ws, k, metric(spec), CHART_CELL[project])

    head = first_case - 2
    styles.section_row(
        ws,
        head - 2,
        "Cases: the whole chain for the base and each driver moved (driver columns point at the table above)",
        12,
    )
    n = 1 + 2 * k
    columns = {d: np.zeros(n) for d in layout.varying}
    first, cols = row_block(book, ws, layout, columns, n, "case", "sens_", head_row=head)
    write_all(ws, first, cols, n)
    labels = ["base"] + [f"{d} {side}" for d, *_ in cases for side in ("low", "high")]
    styles.header_row(ws, head, ["what moves"], first_col=2)
    for i, label in enumerate(labels):
        ws.cell(row=first + i, column=2, value=label)
    for i, label in enumerate(labels):
        moved, _, side = label.partition(" ")
        for d in layout.varying:
            src = "D" if d != moved else ("G" if side == "low" else "H")
            cell = ws.cell(row=first + i, column=layout.col[d], value=f"=${src}${rows[d]}")
            styles.style_formula(cell, INPUTS[d].unit)
            cell.fill, cell.border = PatternFill(), Border()
    styles.widths(ws, {1: 22, 2: 30, 3: 12, **{c: 13 for c in range(4, 25 if project else 19)}})
    ws.freeze_panes = "A6"
    styles.page_setup(ws, one_page=False)
    return cases


def _chart(ws, k: int, ranked_by: str, anchor: str) -> None:
    """The tornado of the metric the table is sorted by (NPV with a rent, else $/Mtok)."""
    chart = BarChart()
    chart.type = "bar"
    chart.grouping = "clustered"
    chart.overlap = 100
    chart.gapWidth = 40
    npv = ranked_by == "project_npv_usd_per_gpu"
    chart.title = (
        "Change in NPV per GPU from the base (USD)"
        if npv
        else "Change in cost per million tokens from the base ($/Mtok)"
    )
    first = 17 if npv else 11
    data = Reference(ws, min_col=first, max_col=first + 1, min_row=TABLE_ROW, max_row=TABLE_ROW + k)
    chart.add_data(data, titles_from_data=True)
    chart.set_categories(Reference(ws, min_col=2, min_row=TABLE_ROW + 1, max_row=TABLE_ROW + k))
    chart.x_axis.scaling.orientation = "maxMin"  # the first (largest) driver on top
    chart.x_axis.delete = False
    chart.x_axis.tickLblPos = "low"  # labels at the left edge, clear of the bars
    chart.y_axis.delete = False
    chart.y_axis.numFmt = '"$"#,##0' if npv else '"$"0.000'
    chart.y_axis.majorGridlines = None
    chart.legend.position = "b"
    chart.height, chart.width = 7.5 + 0.4 * k, 18
    ws.add_chart(chart, anchor)
