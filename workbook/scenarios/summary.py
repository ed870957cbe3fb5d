"""The Summary sheet: the scenarios per system, the cheapest one of each, Monte Carlo percentiles,
the largest sensitivity and the check of the TCO_ functions, all by formulas.

Per system: the number of scenarios (COUNTIF), the smallest and largest TCO per GPU-hour and cost
per million tokens (MINIFS/MAXIFS: written ``_xlfn.MINIFS`` as Excel stores them), the median (a
single-cell array formula ``{=MEDIAN(IF(scn_system=A7,scn_tco_usd_per_gpu_hour))}``: Excel and
LibreOffice have no MEDIANIFS) and the cheapest scenario by cost per Mtok: the smallest scenario
number among that system's rows at its minimum (MINIFS on ``scn_scenario``), then its inputs by
INDEX/MATCH. Without ``system`` in the grid there is one row, for all scenarios.

Where the SPEC gives a rent, a second table ranks the systems by their best NPV (MAXIFS) and shows
that scenario's IRR, payback, break-even rent and cost per Mtok, and the share of scenarios with
NPV < 0; the Monte Carlo section adds the NPV and IRR percentiles, P(NPV < 0) and P(IRR < cost of
capital), and with the project's cells the max LTV's percentiles and the lender's and the equity's
shares (P(min DSCR < covenant_dscr), P(max LTV > max_ltv_covenant), ...).
"""

from __future__ import annotations

from openpyxl.chart import BarChart, Reference
from openpyxl.formatting.rule import CellIsRule
from openpyxl.worksheet.formula import ArrayFormula

from gputco import udfs
from gputco.workbook.scenarios.layout import INPUTS, Layout
from gputco.workbook.scenarios.montecarlo import LENDER_SHARES
from gputco.workbook.scenarios.sensitivity import TABLE_ROW
from gputco.workbook.xlsx import styles
from gputco.workbook.xlsx.book import BookBuilder

SHEET = "Summary"
HEADINGS = [
    "system",
    "scenarios",
    "TCO min",
    "TCO median",
    "TCO max",
    "$/Mtok min",
    "$/Mtok median",
    "$/Mtok max",
    "cheapest scenario (by $/Mtok)",
]
TOLERANCE = 1e-9


def build(
    book: BookBuilder,
    grid: Layout,
    systems: list[str] | None,
    n: int,
    description: str,
    mc_rows: dict | None,
    sensitivity: bool,
) -> None:
    """``systems``: the grid's systems (None when system is not in the grid); ``mc_rows``: the
    MonteCarlo sheet's percentile rows (None without Monte Carlo)."""
    ws = book.wb.create_sheet(SHEET)
    styles.title(ws, f"Scenario workbook: {n:,} scenarios", description)
    ws["A3"] = (
        f"Written by gputco {udfs.__version__}. Every number is a formula: change Inputs "
        "(or a blue cell on Scenarios) and everything follows."
    )
    ws["A3"].font = styles.NOTE_FONT
    row = 5
    styles.section_row(
        ws,
        row,
        "By system: TCO per GPU-hour (USD) and cost per million tokens (USD) over the scenarios",
        len(HEADINGS),
    )
    row += 1
    styles.header_row(ws, row, HEADINGS)
    ws.row_dimensions[row].height = 45  # three lines: "cheapest scenario (by $/Mtok)"
    head = row
    labels = systems if systems else ["=inp_system"]
    for system in [*labels, None] if systems else labels:
        row += 1
        _stats_row(ws, row, system, bool(systems))
    last = row
    book.define("sum_cheapest", ws, f"$I${head + 1}:$I${last}")
    widest = len(HEADINGS)  # the chart goes right of the widest table, not over its last columns
    if grid.last_year:  # a rent is given: the decision ranks by NPV
        widest = max(widest, len(NPV_HEADINGS) + (len(PROJECT_COLUMNS) if grid.project is not None else 0))
        row = _npv_table(
            ws, row + 2, labels if systems else ["=inp_system"], bool(systems), grid.project is not None
        )
        if grid.project is not None:  # the lender's view: ranked by the lowest DSCR
            row = _lender_table(ws, row + 2, labels if systems else ["=inp_system"], bool(systems))
    _chart(ws, head, last, widest + 2)

    row += 2
    inputs = [q.key for q in grid.columns if q.kind == "input"]
    heads = [
        "system",
        "scenario",
        "$/Mtok",
        "TCO per GPU-hour",
        *(INPUTS[k].label for k in inputs if k != "system"),
    ]
    styles.section_row(
        ws, row, "The cheapest scenario of each system: its inputs", max(len(heads), len(HEADINGS))
    )
    row += 1
    styles.header_row(ws, row, heads)
    ws.row_dimensions[row].height = 30
    for i in range(last - head):
        row += 1
        src = head + 1 + i
        ws.cell(row=row, column=1, value=f"=A{src}")
        ws.cell(row=row, column=2, value=f"=I{src}")
        match = f"MATCH($B{row},scn_scenario,0)"
        cells = [("usd_per_mtok", "USD/Mtok"), ("tco_usd_per_gpu_hour", "USD/GPU-h")]
        cells += [(k, INPUTS[k].unit) for k in inputs if k != "system"]
        for j, (key, unit) in enumerate(cells):
            styles.style_formula(ws.cell(row=row, column=3 + j, value=f"=INDEX(scn_{key},{match})"), unit)

    row = _mfu_sources(ws, row + 2, labels if systems else ["=inp_system"], grid)

    if mc_rows:
        row += 2
        styles.section_row(ws, row, "Monte Carlo around the base scenario (MonteCarlo sheet)", 6)
        row += 1
        styles.header_row(ws, row, ["result", "unit", "P10", "P50", "P90", "mean"])
        units = {"tco_usd_per_gpu_hour": "USD/GPU-h", "usd_per_mtok": "USD/Mtok"}
        units.update(project_npv_usd_per_gpu="USD", project_irr="fraction")
        if "max_ltv" in mc_rows:  # with the project's cells: the collateral's risk
            units["max_ltv"] = "ratio"
        for key, unit in units.items():
            row += 1
            src = mc_rows[key]
            ws.cell(row=row, column=1, value=key).font = styles.KEY_FONT
            ws.cell(row=row, column=2, value=unit).font = styles.KEY_FONT
            for j, letter in enumerate("DEFG"):
                styles.style_formula(ws.cell(row=row, column=3 + j, value=f"=MonteCarlo!{letter}{src}"), unit)
        shares = ("p_npv_below_0", "p_irr_below_cost_of_capital", *(k for k, *_ in LENDER_SHARES))
        for key in (k for k in shares if k in mc_rows):
            row += 1
            ws.cell(row=row, column=1, value=key).font = styles.KEY_FONT
            ws.cell(row=row, column=2, value="fraction").font = styles.KEY_FONT
            cell = ws.cell(row=row, column=3, value=f"=MonteCarlo!D{mc_rows[key]}")
            styles.style_formula(cell, "fraction")
            cell.font = styles.BOLD
    if sensitivity:
        row += 2
        styles.section_row(ws, row, "Sensitivity around the base scenario (Sensitivity sheet)", 6)
        row += 1
        ws.cell(row=row, column=1, value="base scenario $/Mtok")
        styles.style_formula(ws.cell(row=row, column=3, value="=sens_base_usd_per_mtok"), "USD/Mtok")
        row += 1
        top = TABLE_ROW + 1  # the tornado table's first (largest) driver
        ws.cell(row=row, column=1, value="largest driver")
        ws.cell(row=row, column=3, value=f"=Sensitivity!B{top}")
        for what, unit, cols in (("$/Mtok", "USD/Mtok", "KL"), ("NPV", "USD", "QR")):
            row += 1  # a row each, its note in the label column (notes beside numbers were cut)
            ws.cell(row=row, column=1, value=f"  {what} change at low / high")
            ws.cell(row=row, column=2, value=unit).font = styles.KEY_FONT
            low, high = (f"Sensitivity!{src}{top}" for src in cols)
            # a text (why there is no number: "needs rent_usd_per_gpu_hour") is shown once, in
            # the high cell, whose right neighbour is empty so it reads whole: a formula's "" in
            # the low cell lets no text run over it, and two copies cut the first
            styles.style_formula(ws.cell(row=row, column=3, value=f'=IF(ISTEXT({low}),"",{low})'), unit)
            styles.style_formula(ws.cell(row=row, column=4, value=f"={high}"), unit)

    row += 2
    styles.section_row(
        ws,
        row,
        "Check: the TCO_ functions agree with the native formulas on every "
        "scenario (they need the xlwings add-in in Excel, gputco open or gputco addin "
        "libreoffice in LibreOffice)",
        len(HEADINGS),
    )
    row += 1
    ws.cell(row=row, column=1, value="largest relative difference")
    diffs = ",".join(f"MAX(scn_{k}),-MIN(scn_{k})" for k in ("tco_udf_diff", "usd_per_mtok_udf_diff"))
    cell = ws.cell(row=row, column=3, value=f"=MAX({diffs})")
    cell.number_format = "0.0E+00"
    book.define_cell("chk_max_difference", ws, row, 3)
    row += 1
    ws.cell(row=row, column=1, value="tolerance")
    styles.style_input(ws.cell(row=row, column=3, value=TOLERANCE))
    ws.cell(row=row, column=3).number_format = "0.0E+00"
    book.define_cell("chk_tolerance", ws, row, 3)
    row += 1
    ws.cell(row=row, column=1, value="all agree").font = styles.BOLD
    ok = ws.cell(row=row, column=3, value="=chk_max_difference<=chk_tolerance")
    ok.font = styles.BOLD
    book.define_cell("chk_ok", ws, row, 3)
    ws.conditional_formatting.add(
        f"C{row}", CellIsRule(operator="equal", formula=["TRUE"], fill=styles.OK_DXF_FILL)
    )
    ws.conditional_formatting.add(
        f"C{row}", CellIsRule(operator="notEqual", formula=["TRUE"], fill=styles.BAD_DXF_FILL)
    )
    styles.widths(ws, {1: 26, 2: 12, **{c: 13 for c in range(3, 9)}, 9: 16, **{c: 13 for c in range(10, 26)}})
    ws.freeze_panes = "A5"
    styles.page_setup(ws, one_page=False)


#: the MFU table's columns: heading, unit
MFU_HEADINGS = [
    ("system", ""),
    ("MFU in the scenarios, min", "fraction"),
    ("max", "fraction"),
    ("published MFU (default)", "fraction"),
    ("unit", ""),
    ("as of", ""),
    ("source (measured or assumption)", ""),
]


def _mfu_sources(ws, row: int, labels: list[str], grid: Layout) -> int:
    """Per system: the MFU its scenarios use (the SPEC's, min and max over its rows) beside the
    evidence, the system's published MFU at the precision with its unit, date and source (Presets:
    ``measured: <run key>; ...``, or ``assumption: the H100 figure ...``), as every other input
    shows its source. Returns the last row."""
    precision = grid.ref("precision")
    varies = "{r}" in precision
    if varies:  # the precision varies over the scenarios: the base scenario's
        precision = "base_precision"
    styles.section_row(
        ws,
        row,
        "MFU: the scenarios' values (the SPEC's) beside the published run behind each system's "
        + ("default (at the base scenario's precision, Presets)" if varies else "default (Presets)"),
        len(MFU_HEADINGS),
    )
    row += 1
    styles.header_row(ws, row, [h for h, _ in MFU_HEADINGS])
    ws.row_dimensions[row].height = 45
    for label in labels:
        row += 1
        ws.cell(row=row, column=1, value=label)
        key = f'$A{row}&".{{}}_"&{precision}'
        for col, fn in ((2, "MIN"), (3, "MAX")):
            if "{r}" not in grid.ref("mfu"):  # one MFU for every scenario (the SPEC's [fixed])
                value = f"={grid.ref('mfu')}"
            elif "{r}" in grid.ref("system"):  # per system, over its rows
                value = f"=_xlfn.{fn}IFS(scn_mfu,scn_system,$A{row})"
            else:
                value = f"={fn}(scn_mfu)"
            styles.style_formula(ws.cell(row=row, column=col, value=value), "fraction")
        match = f"MATCH({key.format('default_mfu')},sys_id,0)"
        styles.style_formula(ws.cell(row=row, column=4, value=f"=INDEX(sys_value,{match})"), "fraction")
        ws.cell(row=row, column=5, value=f"=INDEX(sys_unit,{match})").font = styles.KEY_FONT
        ws.cell(row=row, column=6, value=f"=INDEX(sys_as_of,{match})").number_format = "yyyy-mm-dd"
        ws.cell(row=row, column=7, value=f"=INDEX(sys_source,{match})").font = styles.NOTE_FONT
    return row


#: the NPV table's columns: heading, unit (a rent is given)
NPV_HEADINGS = [
    ("system", ""),
    ("rank by NPV", ""),
    ("best NPV per GPU", "USD"),
    ("scenario (by NPV)", ""),
    ("its IRR", "fraction"),
    ("its payback, years", "years"),
    ("its break-even rent", "USD/GPU-h"),
    ("its $/Mtok", "USD/Mtok"),
    ("share with NPV < 0", "fraction"),
]
#: with project inputs, the best-NPV scenario's financing beside it: key, heading, unit
PROJECT_COLUMNS = [
    ("equity_irr", "its equity IRR", "fraction"),
    ("min_dscr", "its lowest DSCR", "ratio"),
    ("peak_funding_usd_per_gpu", "its peak funding per GPU", "USD"),
]


def _npv_table(ws, row: int, labels: list[str], per_system: bool, project: bool = False) -> int:
    """Per system: the scenario with the highest NPV (a rent is given), ranked, with its IRR,
    payback, break-even rent and cost per Mtok, and the share of scenarios that lose money; with
    ``project`` (the rows carry the project's cells) also its equity IRR, lowest DSCR and peak
    funding. Returns the last row."""
    headings = NPV_HEADINGS + ([(h, u) for _k, h, u in PROJECT_COLUMNS] if project else [])

    def cells(row: int, first: int, last: int) -> list[str]:
        crit = f",scn_system,$A{row}" if per_system else ""
        best = (
            f"_xlfn.MAXIFS(scn_project_npv_usd_per_gpu{crit})"
            if per_system
            else "MAX(scn_project_npv_usd_per_gpu)"
        )
        scenario = f"_xlfn.MINIFS(scn_scenario{crit},scn_project_npv_usd_per_gpu,$C{row})"
        match = f"MATCH($D{row},scn_scenario,0)"
        of_system = f"(scn_system=$A{row})*" if per_system else ""
        out = [
            f"=RANK($C{row},$C${first}:$C${last})",
            f"={best}",
            f"={scenario}",
            f"=INDEX(scn_project_irr,{match})",
            f"=INDEX(scn_project_payback_years,{match})",
            f"=INDEX(scn_project_breakeven_rent_usd_per_gpu_hour,{match})",
            f"=INDEX(scn_usd_per_mtok,{match})",
            f"=SUMPRODUCT({of_system}ISNUMBER(scn_project_npv_usd_per_gpu)*(scn_project_npv_usd_per_gpu<0))"
            f"/SUMPRODUCT({of_system}ISNUMBER(scn_project_npv_usd_per_gpu))",
        ]
        if project:
            out += [f"=INDEX(scn_{key},{match})" for key, _h, _u in PROJECT_COLUMNS]
        return out

    title = (
        "Rent or buy by system: the scenario with the highest NPV of owning one GPU and renting it "
        "out (ranked), beside its cost per million tokens"
    )
    return _system_table(ws, row, title, headings, labels, cells)


def _system_table(ws, row: int, title: str, headings, labels: list[str], cells) -> int:
    """A table of one row per system: a section row ``title``, the ``headings`` (heading, unit),
    then per label its name in column A and ``cells(row, first, last)`` from column B, each
    styled by its heading's unit (a count without one). Returns the last row."""
    styles.section_row(ws, row, title, len(headings))
    row += 1
    styles.header_row(ws, row, [h for h, _u in headings])
    ws.row_dimensions[row].height = 45  # three lines: "its peak funding per GPU"
    first, last = row + 1, row + len(labels)
    for system in labels:
        row += 1
        ws.cell(row=row, column=1, value=system)
        for j, value in enumerate(cells(row, first, last)):
            cell = ws.cell(row=row, column=2 + j, value=value)
            unit = headings[1 + j][1]
            if unit:
                styles.style_formula(cell, unit)
            else:
                cell.number_format = "#,##0"
    return row


#: the lender's table (project cells): heading, unit
LENDER_HEADINGS = [
    ("system", ""),
    ("rank by lowest DSCR", ""),
    ("best lowest DSCR", "ratio"),
    ("scenario (by lowest DSCR)", ""),
    ("its equity IRR", "fraction"),
    ("its debt per GPU", "USD"),
    ("its average DSCR", "ratio"),
    ("its LLCR", "ratio"),
    ("its periods below the covenant", ""),
    ("share breaching the covenant", "fraction"),
]
#: what the lender's table says of a system none of whose scenarios borrows
NO_DEBT_ROWS = "no scenario with debt"


def _lender_table(ws, row: int, labels: list[str], per_system: bool) -> int:
    """Per system: the scenario whose lowest DSCR is the highest (ranked across systems), its
    equity IRR, debt per GPU, average DSCR, LLCR and periods below its covenant, and the share of
    the system's scenarios with debt whose lowest DSCR is below their covenant (a breach period).
    Returns the last row."""

    def cells(row: int, first: int, last: int) -> list[str]:
        crit = f",scn_system,$A{row}" if per_system else ""
        of_system = f"(scn_system=$A{row})*" if per_system else ""
        with_debt = f"SUMPRODUCT({of_system}ISNUMBER(scn_min_dscr))"
        best = f"_xlfn.MAXIFS(scn_min_dscr{crit})" if per_system else "MAX(scn_min_dscr)"
        match = f"MATCH($D{row},scn_scenario,0)"
        return [
            f'=IF(ISNUMBER($C{row}),RANK($C{row},$C${first}:$C${last}),"")',
            f'=IF({with_debt}=0,"{NO_DEBT_ROWS}",{best})',
            f'=IF(ISNUMBER($C{row}),_xlfn.MINIFS(scn_scenario{crit},scn_min_dscr,$C{row}),"")',
            *(
                f'=IF(ISNUMBER($C{row}),INDEX(scn_{key},{match}),"")'
                for key in ("equity_irr", "debt_usd_per_gpu", "avg_dscr", "llcr", "dscr_breach_periods")
            ),
            f'=IF({with_debt}=0,"{NO_DEBT_ROWS}",SUMPRODUCT({of_system}ISNUMBER(scn_min_dscr)'
            f"*ISNUMBER(scn_dscr_breach_periods)*(scn_dscr_breach_periods>0))/{with_debt})",
        ]

    title = (
        "The lender's view by system: the best lowest DSCR (ranked), its cover, the share that "
        "breach the covenant"
    )
    return _system_table(ws, row, title, LENDER_HEADINGS, labels, cells)


def _stats_row(ws, row: int, system: str | None, per_system: bool) -> None:
    """One row of the per-system table; ``system`` None is the all-scenarios row."""
    if system is None:
        ws.cell(row=row, column=1, value="all scenarios").font = styles.BOLD
    else:
        ws.cell(row=row, column=1, value=system)
    crit = f",scn_system,$A{row}" if per_system and system is not None else ""
    ws.cell(
        row=row, column=2, value=f"=COUNTIF(scn_system,$A{row})" if crit else "=COUNT(scn_scenario)"
    ).number_format = "#,##0"
    for first, key, unit in ((3, "tco_usd_per_gpu_hour", "USD/GPU-h"), (6, "usd_per_mtok", "USD/Mtok")):
        rng = f"scn_{key}"
        if crit:
            low = f"=_xlfn.MINIFS({rng}{crit})"
            mid = ArrayFormula(f"{_col(first + 1)}{row}", f"=MEDIAN(IF(scn_system=$A{row},{rng}))")
            high = f"=_xlfn.MAXIFS({rng}{crit})"
        else:
            low, mid, high = f"=MIN({rng})", f"=MEDIAN({rng})", f"=MAX({rng})"
        for j, value in enumerate((low, mid, high)):
            styles.style_formula(ws.cell(row=row, column=first + j, value=value), unit)
    cheapest = f"=_xlfn.MINIFS(scn_scenario{crit},scn_usd_per_mtok,$F{row})"
    ws.cell(row=row, column=9, value=cheapest).number_format = "#,##0"


def _col(c: int) -> str:
    from openpyxl.utils import get_column_letter

    return get_column_letter(c)


def _chart(ws, head: int, last: int, col: int) -> None:
    """The cost per Mtok by system, anchored in row 5 of column ``col``."""
    chart = BarChart()
    chart.type = "col"
    chart.title = "Cost per million tokens by system: min, median, max"
    chart.add_data(Reference(ws, min_col=6, max_col=8, min_row=head, max_row=last), titles_from_data=True)
    chart.set_categories(Reference(ws, min_col=1, min_row=head + 1, max_row=last))
    chart.y_axis.numFmt = '"$"0.00'
    chart.y_axis.title = "USD per million tokens"
    chart.x_axis.delete = False
    chart.y_axis.delete = False
    chart.legend.position = "b"
    chart.height, chart.width = 8, 16
    ws.add_chart(chart, f"{_col(col)}5")
