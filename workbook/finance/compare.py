"""The Compare sheet: every system against the first (the reference), the MFU sweep and the charts.

The comparison rows (TCO ratio, break-even speed-up and MFU on the delivered cost per kept token,
speed-up, cost ratio, verdict, rent parity) are the chain's :data:`gputco.udfs.chain.COMPARISONS`
with this system's Model column for ``[name]`` and System 1's for ``[ref_name]``: the sheet lays them
out, it does not restate them.
"""

from __future__ import annotations

from openpyxl.chart import BarChart, LineChart, Reference, Series
from openpyxl.chart.series import SeriesLabel, StrRef
from openpyxl.utils import get_column_letter, quote_sheetname

from gputco.udfs import chain
from gputco.workbook.finance import projectflows
from gputco.workbook.xlsx import styles
from gputco.workbook.xlsx.book import BookBuilder

SHEET = "Compare"


def _model_ref(name: str) -> str:
    """A comparison's operand on this sheet: an earlier comparison's row, else the Model row of
    this system (``[x]``) or of System 1 (``[ref_x]``)."""
    if name in _COMPARISON_KEYS:
        return f"[{name}]"
    if name.startswith(chain.REF_PREFIX):
        return f"[Model:{name.removeprefix(chain.REF_PREFIX)}@1]"
    return f"[Model:{name}]"


_COMPARISON_KEYS = {c.key for c in chain.COMPARISONS}


def _comparison(key: str, label: str | None = None, how: str | None = None) -> tuple:
    c = chain.comparison(key)
    return (key, label or c.label, c.unit, chain.comparison_formula(key, _model_ref), how or c.how)


def _system_preset(field: str) -> str:
    return f'INDEX(sys_value,MATCH([Model:system]&".{field}_"&inp_precision,sys_id,0))'


#: "measured: <run key>" or "assumed" where the MFU is the system's default, else "entered"
_MFU_SOURCE = (
    f'=IF([Model:mfu]<>{_system_preset("default_mfu")},"entered on Inputs",{_system_preset("mfu_source")})'
)

#: (key, label, unit, formula template, how); section headings have key None
ROWS: list[tuple] = [
    (None, "Cost of a GPU-hour", "", "", ""),
    ("system", "System", "key", "=[Model:system]", ""),
    ("capex_per_gpu", "All-in capex per GPU", "USD", "=[Model:capex_per_gpu]", ""),
    (
        "price_source",
        "Price source",
        "text",
        '=INDEX(sys_value,MATCH([Model:system]&".price_source",sys_id,0))',
        "the preset's all-in price: published, fitted (to InferenceX's TCO ratio) or assumed (Presets)",
    ),
    (
        "capex_ratio",
        "Capex ratio vs System 1",
        "x",
        "=[capex_per_gpu]/[capex_per_gpu@1]",
        "capex / reference capex",
    ),
    ("opex_usd_per_gpu_hour", "Opex per GPU-hour", "USD/GPU-h", "=[Model:opex_usd_per_gpu_hour]", ""),
    (
        "opex_ratio",
        "Opex ratio vs System 1",
        "x",
        "=[opex_usd_per_gpu_hour]/[opex_usd_per_gpu_hour@1]",
        "power + facility + other, against the reference",
    ),
    ("tco_usd_per_gpu_hour", "TCO per GPU-hour", "USD/GPU-h", "=[Model:tco_usd_per_gpu_hour]", ""),
    _comparison("tco_ratio", "TCO ratio vs System 1"),
    (
        "delivered_usd_per_gpu_hour",
        "Delivered cost per GPU-hour",
        "USD/GPU-h",
        "=[Model:delivered_usd_per_gpu_hour]",
        "TCO / (availability x utilisation), Inputs",
    ),
    ("goodput", "Goodput", "fraction", "=[Model:goodput]", "Inputs"),
    _comparison("breakeven_speedup", "Break-even speed-up vs System 1"),
    (None, "Speed and cost per token", "", "", ""),
    ("peak_tflops", "Dense peak TFLOPS", "TFLOPS", "=[Model:peak_tflops]", "at the chosen precision"),
    (
        "peak_ratio",
        "Peak ratio vs System 1",
        "x",
        "=[peak_tflops]/[peak_tflops@1]",
        "the speed-up at equal MFU",
    ),
    ("mfu", "MFU entered", "fraction", "=[Model:mfu]", "Inputs"),
    (
        "mfu_source",
        "MFU source",
        "text",
        _MFU_SOURCE,
        "the default's evidence: measured (a published run, Presets) or assumed (the H100 figure)",
    ),
    _comparison("speedup"),
    _comparison("breakeven_mfu"),
    ("usd_per_mtok", "Cost per million tokens", "USD/Mtok", "=[Model:usd_per_mtok]", "at the MFU entered"),
    _comparison("cost_per_mtok_ratio", "Cost per token vs System 1"),
    (
        "cost_per_mtok_at_breakeven",
        "Cost per million tokens at break-even MFU",
        "USD/Mtok",
        chain.formula(
            "usd_per_mtok",
            {
                "delivered_usd_per_gpu_hour": "[Model:delivered_usd_per_gpu_hour]",
                "goodput": "[Model:goodput]",
                "mfu": "[breakeven_mfu]",
                "peak_tflops": "[peak_tflops]",
                "flops_per_token": "[Model:flops_per_token]",
            }.get,
        ),
        "equals the reference's cost per token",
    ),
    ("joules_per_token", "Energy per token", "J/token", "=[Model:joules_per_token]", ""),
    (
        "household_years",
        "Training energy in household-years",
        "household-years",
        "=[Model:household_years]",
        "for the tokens on Inputs",
    ),
    _comparison("verdict"),
    (None, "Rent or buy", "", "", ""),
    (
        "rent_usd_per_gpu_hour",
        "Rent per GPU-hour",
        "USD/GPU-h",
        '=IF(ISNUMBER([Model:rent_usd_per_gpu_hour]),[Model:rent_usd_per_gpu_hour],"none given")',
        "Inputs (default: sourced market rent)",
    ),
    (
        "breakeven_utilisation",
        "Break-even utilisation (NPV = 0)",
        "fraction",
        "=[Model:breakeven_utilisation]",
        "above it owning and renting out beats not buying, with tax, decline, escalation, residual",
    ),
    (
        "cash_breakeven_utilisation",
        "Cash break-even utilisation (undiscounted)",
        "fraction",
        "=[Model:cash_breakeven_utilisation]",
        "TCO / (availability x rent): no tax, decline or timing",
    ),
    _comparison("rent_parity", "Rent parity vs System 1's rent"),
    (
        "usd_per_mtok_rented",
        "Cost per million tokens, rented",
        "USD/Mtok",
        "=IF(ISNUMBER([Model:rent_usd_per_gpu_hour]),"
        + chain.formula(
            "usd_per_mtok",
            lambda q: (
                "[Model:rent_usd_per_gpu_hour]" if q == "delivered_usd_per_gpu_hour" else f"[Model:{q}]"
            ),
        )[1:]
        + ',"needs rent_usd_per_gpu_hour")',
        "the rent in place of the delivered cost",
    ),
    (
        "usd_per_mtok_owned",
        "Cost per million tokens, owned",
        "USD/Mtok",
        "=[Model:usd_per_mtok]",
        "delivered cost per GPU-hour",
    ),
    (
        "npv_usd_per_gpu",
        "NPV of owning and renting out",
        "USD",
        "=[Model:npv_usd_per_gpu]",
        "the yearly table of the Cash flow sheets: paid in cash, in service at once (the project below adds build, ramp, debt...)",
    ),
    ("irr", "IRR", "1/year", "=[Model:irr]", "the yearly table of the Cash flow sheets"),
    *projectflows.COMPARE_ROWS,
]

#: Model rows the MFU sweep reads; the steps between them and the cost are computed in the cell
_FROM_MODEL = ("delivered_usd_per_gpu_hour", "flops_per_token")

SWEEP_KEY = "cost_per_mtok_at_mfu"
#: the sweep chart's series styles: ten systems stay apart (colour-blind-safe palette, Okabe-Ito)
COLOURS = ("0072B2", "D55E00", "009E73", "CC79A7", "E69F00", "56B4E9", "000000", "F0E442")
MARKERS = ("circle", "square", "triangle", "diamond", "x", "star", "plus", "dash", "dot")
DASHES = ("solid", "dash", "sysDot")
SWEEP_ROWS = 11
#: the "how" column's width and the characters of a 9-point italic note that fit on one line of it
_HOW_WIDTH = 70
_HOW_CHARS = 80


def build(book: BookBuilder) -> None:
    ws = book.wb.create_sheet(SHEET)
    how_col = book.system_col(book.n) + 1
    ref = book.systems[0]
    styles.title(
        ws,
        f"Compare: each system against System 1 ({ref} as generated)",
        "Break-even speed-up = the kept tokens per second a system needs, against System 1, "
        "to cost the same per token (delivered cost per GPU-hour / goodput ratio). All cells "
        "are formulas on Model.",
    )
    header = 4
    styles.header_row(ws, header, ["key", "", "unit", *(f"System {k}" for k in range(1, book.n + 1)), "how"])
    row = header
    for key, label, *_ in ROWS:
        row += 1
        if key is None:
            styles.section_row(ws, row, label, how_col)
        else:
            book.put_row(SHEET, key, row)
    for key, label, unit, template, how in ROWS:
        if key is None:
            continue
        r = book.row(SHEET, key)
        _labels(ws, r, key, label, unit)
        for col in book.system_cols():
            text = template
            if col == book.system_col(1) and key == "verdict":
                text = '="reference"'
            cell = ws.cell(row=r, column=col, value=book.formula(text, SHEET, col))
            styles.style_formula(cell, unit)
            if key in ("breakeven_speedup", "breakeven_mfu", "verdict"):
                cell.font = styles.BOLD
        note = ws.cell(row=r, column=how_col, value=how)
        note.font, note.alignment = styles.NOTE_FONT, styles.WRAP  # inside the page: wrapped
        lines = max(1, -(-len(how) // _HOW_CHARS), 2 if key == "mfu_source" else 1)
        if lines > 1:
            ws.row_dimensions[r].height = 12.5 * lines
        if key == "mfu_source":  # "measured: <run key>" wraps in its column
            for col in book.system_cols():
                ws.cell(row=r, column=col).alignment = styles.WRAP

    row += 2
    styles.section_row(ws, row, "Cost per million tokens against MFU (the line chart)", how_col)
    row += 1
    styles.header_row(ws, row, ["key", "MFU", "unit", *(f"System {k}" for k in range(1, book.n + 1)), "how"])
    sweep_first = row + 1
    for i in range(SWEEP_ROWS):
        row += 1
        ws.cell(row=row, column=1, value=SWEEP_KEY).font = styles.KEY_FONT
        mfu = "=inp_sweep_mfu_start" if i == 0 else f"=B{row - 1}+inp_sweep_mfu_step"
        styles.style_formula(ws.cell(row=row, column=2, value=mfu), "fraction")
        ws.cell(row=row, column=3, value="USD/Mtok").font = styles.KEY_FONT
        for col in book.system_cols():
            f = book.formula(
                chain.formula(
                    "usd_per_mtok",
                    lambda name, r=row: (
                        f"$B{r}"
                        if name == "mfu"
                        else (None if chain.is_step(name) and name not in _FROM_MODEL else f"[Model:{name}]")
                    ),
                ),
                SHEET,
                col,
            )
            styles.style_formula(ws.cell(row=row, column=col, value=f), "USD/Mtok")
    ws.cell(
        row=sweep_first, column=how_col, value="TCO per GPU-hour / tokens per GPU-hour at that MFU x 1e6"
    ).font = styles.NOTE_FONT

    chart_row = row + 2
    ws.add_chart(_breakdown_chart(book), f"A{chart_row}")
    ws.add_chart(_sweep_chart(book, sweep_first, row), f"{get_column_letter(book.system_col(1))}{chart_row}")
    styles.widths(ws, {1: 22, 2: 40, 3: 14, **{c: 26 for c in book.system_cols()}, how_col: _HOW_WIDTH})
    ws.freeze_panes = ws.cell(row=header + 1, column=book.system_col(1))
    styles.page_setup(ws, landscape=True, one_page=True)


def _labels(ws, row: int, key: str, label: str, unit: str) -> None:
    ws.cell(row=row, column=1, value=key).font = styles.KEY_FONT
    ws.cell(row=row, column=2, value=label)
    ws.cell(row=row, column=3, value=unit).font = styles.KEY_FONT


def _breakdown_chart(book: BookBuilder) -> BarChart:
    """TCO per GPU-hour stacked by component, one bar per system (data: Model rows)."""
    model = book.wb["Model"]
    chart = BarChart()
    chart.type = "col"
    chart.grouping = "stacked"
    chart.overlap = 100
    chart.title = "TCO per GPU-hour by component"
    chart.y_axis.title = "USD per GPU-hour"
    chart.y_axis.number_format = '"$"0.00'
    chart.y_axis.majorGridlines = None
    first, last = book.system_col(1), book.system_col(book.n)
    cats = Reference(model, min_col=first, max_col=last, min_row=book.row("Model", "system"))
    for key in (
        "capital_usd_per_gpu_hour",
        "power_usd_per_gpu_hour",
        "facility_usd_per_gpu_hour",
        "other_usd_per_gpu_hour",
    ):
        r = book.row("Model", key)
        values = Reference(model, min_col=first, max_col=last, min_row=r)
        series = Series(values)
        series.tx = SeriesLabel(strRef=StrRef(f"{quote_sheetname('Model')}!$B${r}"))
        chart.series.append(series)
    chart.set_categories(cats)
    chart.x_axis.delete = False
    chart.y_axis.delete = False
    chart.width, chart.height = 15, 8
    if book.n > 4:  # many bars: as tall as the sweep chart, the legend below so bars get the width
        chart.height = 12
        chart.legend.position = "b"
    return chart


def _sweep_chart(book: BookBuilder, first_row: int, last_row: int) -> LineChart:
    """Cost per million tokens against MFU, one line per system (data: the sweep table)."""
    ws = book.wb[SHEET]
    chart = LineChart()
    chart.title = "Cost per million tokens against MFU"
    chart.y_axis.title = "USD per million tokens"
    chart.x_axis.title = "MFU"
    chart.y_axis.number_format = '"$"0.00'
    chart.x_axis.number_format = "0%"
    chart.x_axis.tickLblSkip = 2
    for col in book.system_cols():
        values = Reference(ws, min_col=col, min_row=first_row, max_row=last_row)
        series = Series(values)
        series.tx = SeriesLabel(
            strRef=StrRef(
                f"{quote_sheetname('Model')}!${get_column_letter(col)}${book.row('Model', 'system')}"
            )
        )
        series.smooth = False
        i = col - book.system_col(1)  # many systems: a colour, a marker and a dash each
        series.marker.symbol = MARKERS[i % len(MARKERS)]
        series.marker.size = 6
        series.graphicalProperties.line.solidFill = COLOURS[i % len(COLOURS)]
        series.marker.graphicalProperties.solidFill = COLOURS[i % len(COLOURS)]
        series.graphicalProperties.line.dashStyle = DASHES[(i // len(COLOURS)) % len(DASHES)]
        chart.series.append(series)
    chart.set_categories(Reference(ws, min_col=2, min_row=first_row, max_row=last_row))
    chart.x_axis.delete = False
    chart.y_axis.delete = False
    chart.width, chart.height = (18, 9) if book.n <= 4 else (24, 12)  # room for many lines
    return chart
