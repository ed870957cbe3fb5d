"""The cluster as a financed project in the finance workbook, native formulas only.

:mod:`gputco.udfs.project` defines the project (docs/project.md): build, ramp, idle power, the
opex lines, take-or-pay contracts, GPU-backed debt and tax depreciation, by year or by month.
This module lays it out in the workbook:

- Inputs: :data:`INPUTS`, grouped (timing, operations, revenue, financing, tax), one cell per
  system column or one per workbook, with validation from :mod:`gputco.udfs.ranges`; and the
  MACRS table (IRS Publication 946, Table A-1) the tax depreciation looks up.
- Model: :func:`model_rows`, the project's inputs as the model uses them, the debt's level
  payment, and the results (project NPV and IRR, equity IRR and NPV, the lowest DSCR, the peak
  funding, the cluster totals) read from the period table.
- Cash flow k: :func:`build_periods` adds, right of the yearly table, one row per period 0..240
  (the longest build, 60 months, plus the longest life, 15 years, by month; by year only the
  first rows carry flows), the tax years' deductions, a yearly summary and a chart of the
  cumulative equity cash flow (discounted at the cost of equity and not).
- Compare and Checks: :data:`COMPARE_ROWS` and :func:`check_rows` (the TCO_PROJECT_ functions
  on the same Model cells).

Every period's cell is one formula for either kind of period: ``ppy`` periods a year (1 or 12),
``per`` = 12 / ppy months a period, hours = 8760 / ppy. At the defaults (year, no build, no debt,
straight line) the project's flows are the yearly table's, so every existing result holds.
"""

from __future__ import annotations

from openpyxl.chart import LineChart, Reference
from openpyxl.utils import get_column_letter, quote_sheetname
from openpyxl.worksheet.datavalidation import DataValidation

from gputco.udfs import project, ranges, registry
from gputco.workbook.finance import flags
from gputco.workbook.xlsx import styles
from gputco.workbook.xlsx.book import BookBuilder
from gputco.workbook.xlsx.validation import validate_range

#: the longest build (months) and life (years) the inputs allow: the period table's size
MAX_BUILD_MONTHS = int(ranges.RANGES["build_months"].hi)
MAX_LIFE_YEARS = project.MAX_LIFE
PERIODS = 1 + MAX_BUILD_MONTHS + 12 * MAX_LIFE_YEARS  # periods 0..240 (by month)
#: months a year: by month, year y of the summary is months 12y - 11 .. 12y
MONTHS = 12
SUMMARY_YEARS = 1 + (MAX_BUILD_MONTHS + MONTHS * MAX_LIFE_YEARS) // MONTHS  # years 0..20
TAX_YEARS = MAX_LIFE_YEARS

#: the MACRS table's source (docs/project.md quotes it)
MACRS_SOURCE = (
    "IRS Publication 946 (2023), How To Depreciate Property, Appendix A, Table A-1: GDS, 200% "
    "declining balance, half-year convention; percent of the basis by recovery year "
    "(https://www.irs.gov/publications/p946)"
)

#: the project's inputs on Inputs: (group, field, per system?, label, unit, default, choices, note);
#: default None = blank (the note says what a blank means). Each default keeps today's results.
INPUTS: list[tuple[str, str, bool, str, str, object, tuple[str, ...] | None, str]] = [
    (
        "Timing",
        "periods",
        False,
        "Cash-flow periods of the project",
        "key",
        "year",
        tuple(project.PERIODS),
        "year = end-of-year flows (today's results); month = monthly flows, discounted by "
        "(1 + rate)^(-m/12), IRRs annual effective",
    ),
    (
        "Timing",
        "build_months",
        True,
        "Build: months from paying the capex to in-service",
        "months",
        0,
        None,
        "default 0 (assumption: in service at once); no revenue or opex during the build; "
        'a multiple of 12 with periods "year"',
    ),
    (
        "Timing",
        "ramp_months",
        True,
        "Ramp: months from in-service to full utilisation",
        "months",
        0,
        None,
        "default 0 (assumption: full utilisation at once); linear, month m sells (m - 1/2) / ramp",
    ),
    (
        "Operations",
        "idle_power_fraction",
        True,
        "Power an idle GPU draws (fraction of full load)",
        "fraction",
        1.0,
        None,
        "default 1 = charged at full load (today's); power = full load x (idle + (1 - idle) x "
        "utilisation x availability)",
    ),
    (
        "Operations",
        "maintenance_fraction_per_year",
        True,
        "Maintenance a year (fraction of capex)",
        "fraction",
        0.0,
        None,
        "default 0 (no sourced default); escalates with the opex",
    ),
    (
        "Operations",
        "staff_usd_per_gpu_year",
        True,
        "Staff a year per GPU",
        "USD/GPU-year",
        0.0,
        None,
        "default 0 (no sourced default); escalates with the opex",
    ),
    (
        "Operations",
        "insurance_fraction_per_year",
        True,
        "Insurance a year (fraction of capex)",
        "fraction",
        0.0,
        None,
        "default 0 (no sourced default); escalates with the opex",
    ),
    (
        "Operations",
        "software_usd_per_gpu_hour",
        True,
        "Software licence per installed GPU-hour",
        "USD/GPU-h",
        0.0,
        None,
        "default 0 (no sourced default); escalates with the opex",
    ),
    (
        "Revenue",
        "contracted_fraction",
        True,
        "Share of the GPUs let take-or-pay",
        "fraction",
        0.0,
        None,
        "default 0 = all sold at the market rent; contracted GPUs are paid every available hour, no decline",
    ),
    (
        "Revenue",
        "contract_rent_usd_per_gpu_hour",
        True,
        "Contract rent per available GPU-hour",
        "USD/GPU-h",
        None,
        None,
        "blank = the rent per GPU-hour above",
    ),
    (
        "Revenue",
        "contract_years",
        True,
        "Contract term from in-service (blank = the life)",
        "years",
        None,
        None,
        "after it the contracted GPUs sell at the falling market rent",
    ),
    (
        "Financing",
        "debt_fraction",
        False,
        "Debt: share of the capex borrowed when it is paid",
        "fraction",
        0.0,
        None,
        "default 0 = all equity; interest is added to the balance during the build, then level "
        "payments from in-service; interest is tax-deductible",
    ),
    (
        "Financing",
        "debt_rate",
        False,
        "Debt rate, annual effective (blank = cost of capital)",
        "1/year",
        None,
        None,
        "a month uses (1 + rate)^(1/12) - 1",
    ),
    (
        "Financing",
        "debt_years",
        False,
        "Debt tenor from in-service (blank = the life)",
        "years",
        None,
        None,
        "whole years within the life",
    ),
    (
        "Financing",
        "cost_of_equity",
        False,
        "Cost of equity (blank = cost of capital)",
        "1/year",
        None,
        None,
        "discounts the equity cash flows",
    ),
    (
        "Tax",
        "depreciation_method",
        False,
        "Tax depreciation method",
        "key",
        "straight_line",
        project.DEPRECIATION_METHODS,
        "straight_line over the depreciation period above (today's), or macrs_5 / macrs_7 (table below)",
    ),
    (
        "Tax",
        "bonus_depreciation_fraction",
        False,
        "Bonus depreciation (share of capex)",
        "fraction",
        0.0,
        None,
        "default 0; deducted in the in-service year, before the method on the rest",
    ),
]

#: the defined names of the MACRS table on Inputs
MACRS_YEARS, MACRS_RATES, MACRS_METHODS = "macrs_years", "macrs_rates", "macrs_methods"


def name_of(field: str, per_system: bool) -> str:
    """The defined name of an input (``{k}``: the system column)."""
    return f"inp_{field}_{{k}}" if per_system else f"inp_{field}"


def build_inputs(book: BookBuilder, ws, row: int) -> int:
    """The project's input rows on Inputs from ``row`` (the last row used before), by group, and
    the MACRS table; returns the last row written."""
    last_col = book.system_col(book.n) + 1
    first = book.system_col(1)
    group = heading = None
    for grp, field, per_system, label, unit, default, choices, text in INPUTS:
        if grp != group:
            group = grp
            row += 2
            styles.section_row(ws, row, f"Cluster project: {grp.lower()}", last_col)
        if (grp, per_system) != heading:  # a once-per-workbook input is headed "all systems"
            heading = (grp, per_system)
            row += 1
            systems = [f"System {k}" for k in range(1, book.n + 1)] if per_system else ["all systems"]
            styles.header_row(ws, row, ["name", "", "unit", *systems, "range check", "notes"])
        row += 1
        name = name_of(field, per_system)
        styles.label_row(ws, row, name.replace("{k}", "<n>"), label, unit)
        cols = list(book.system_cols()) if per_system else [first]
        dv = None
        if choices:
            dv = DataValidation(
                type="list",
                formula1='"' + ",".join(choices) + '"',
                allow_blank=False,
                showErrorMessage=True,
                errorTitle="Not a choice",
                error=f"{field} is one of {', '.join(choices)}.",
            )
            ws.add_data_validation(dv)
        for col in cols:
            cell = ws.cell(row=row, column=col, value=default)
            styles.style_input(cell, unit)
            if dv is not None:
                dv.add(cell)
            book.define_cell(name.replace("{k}", str(col - first + 1)), ws, row, col)
        if not choices:
            validate_range(ws, field, row, cols[0], row, cols[-1])
        styles.note_cell(ws, row, cols[-1] + 2, text)  # + 1: the range check (finance/flags.py)
    row += 2
    styles.section_row(ws, row, "MACRS percentages (tax depreciation)", last_col)
    return macrs_table(book, ws, row + 1, first)


def macrs_table(book: BookBuilder, ws, row: int, first: int) -> int:
    """The MACRS percentages from ``row`` (its header), the methods from column ``first``:
    ``macrs_rates`` (recovery years x methods), ``macrs_years`` and ``macrs_methods``, from
    :data:`gputco.udfs.project.MACRS` with the IRS source; returns the last row written."""
    methods = list(project.MACRS)
    styles.header_row(ws, row, ["name", "recovery year", "unit", *methods])
    last_method = get_column_letter(first + len(methods) - 1)
    book.define(MACRS_METHODS, ws, f"${get_column_letter(first)}${row}:${last_method}${row}")
    top = row + 1
    for year in range(1, max(len(v) for v in project.MACRS.values()) + 1):
        row += 1
        ws.cell(row=row, column=1, value=MACRS_RATES if year == 1 else None).font = styles.KEY_FONT
        ws.cell(row=row, column=2, value=year)
        ws.cell(row=row, column=3, value="fraction").font = styles.KEY_FONT
        for i, m in enumerate(methods):
            table = project.MACRS[m]
            value = round(table[year - 1] / 100.0, 6) if year <= len(table) else 0.0
            ws.cell(row=row, column=first + i, value=value).number_format = "0.00%"
    book.define(MACRS_YEARS, ws, f"$B${top}:$B${row}")
    book.define(MACRS_RATES, ws, f"${get_column_letter(first)}${top}:${last_method}${row}")
    styles.note_cell(ws, top, first + len(methods) + 1, MACRS_SOURCE + "; 0 after the last recovery year")
    return row


def table(text: str) -> list[tuple[str, ...]]:
    """The rows of a table written as text: one row a line, its fields apart by " | ", "-" for
    an empty field; a line that starts with "..." goes on with the row above (a long formula
    wrapped, or its last field)."""
    rows: list[str] = []
    for line in text.strip().splitlines():
        line = line.strip()
        if line.startswith("..."):
            rows[-1] += line[3:].strip() if not line[3:].strip().startswith("|") else " " + line[3:].strip()
        else:
            rows.append(line)
    return [tuple("" if f.strip() == "-" else f.strip() for f in row.split(" | ")) for row in rows]


# --- the period table on each Cash flow sheet ---------------------------------------------------

#: where the table starts: right of the yearly table and its discounted column (A..K), one apart
FIRST_COL = 13
HEAD_ROW = 5
FIRST_ROW = HEAD_ROW + 1
LAST_ROW = FIRST_ROW + PERIODS - 1

#: the period table's columns: key, heading, unit, formula (``{x}``: this row's cell of column x,
#: ``{x@first}``: its first row's, ``{x@all}``: the whole column, ``<m>``: Model row m of this
#: system, ``{p}``: the period's cell). No cell reads the row above: each row's formulas are one
#: shape down a column, which the engine computes column by column. ``ramp_sum`` is the sum over
#: months j = 1..m of min(1, (j - 1/2) / ramp) for a whole number of ramp months (m^2 / (2 ramp)
#: within the ramp, ramp / 2 + m - ramp after it); ``opening`` the balance in closed form: during
#: the build the drawn debt with its interest added, then the balance at in-service after k - 1
#: level payments (an annuity's remaining balance).
COLUMNS = table(
    """
    period | period | - | -
    k | operating period | - | ={p}-<build_periods>
    live | in service | - | =IF(AND({k}>=1,{k}<=<life_periods>),1,0)
    year | year of operation | - | =IF({live}=1,ROUNDUP({k}/<periods_per_year>,0)-1,0)
    ramp_sum | ramp of months 1..m summed (m = period) | ratio | =IF(<ramp_months>=0,{p},
    ... IF({p}<=<ramp_months>,{p}^2/(2*<ramp_months>),<ramp_months>/2+{p}-<ramp_months>))
    ramp | ramp | fraction | =IF({live}=1,(INDEX({ramp_sum@all},{k}*<months_per_period>+1)
    ... -INDEX({ramp_sum@all},({k}-1)*<months_per_period>+1))/<months_per_period>,0)
    contract | contract share of the period | fraction
    ... | =IF({live}=1,MAX(0,MIN(1,<contract_years>*<periods_per_year>-({k}-1))),0)
    revenue | revenue | USD | =IF(AND({live}=1,ISNUMBER(<rent_usd_per_gpu_hour>)),<hours_per_period>
    ... *<availability>*(<rent_usd_per_gpu_hour>*<utilisation>*{ramp}*(1-<rent_decline_per_year>)^{year}
    ... *(1-<contracted_fraction>*{contract})+<contract_rent_usd_per_gpu_hour>*<contracted_fraction>
    ... *{contract}),0)
    opex | opex | USD | =IF({live}=1,(-<opex_usd_per_gpu_hour>*<hours_per_period>
    ... +<power_usd_per_gpu_hour>*(1-<idle_power_fraction>)*<hours_per_period>*(1-<utilisation>
    ... *<availability>*{ramp})-((<maintenance_fraction_per_year>+<insurance_fraction_per_year>)
    ... *<capex_per_gpu>+<staff_usd_per_gpu_year>)/<periods_per_year>-<software_usd_per_gpu_hour>
    ... *<hours_per_period>)*(1+<opex_escalation_per_year>)^{year},0)
    depreciation | tax depreciation (memo) | USD
    ... | =IF({live}=1,INDEX({deduction@tax},{year}+1)/<periods_per_year>,0)
    residual | residual | USD | =IF({k}=<life_periods>,<residual_fraction>*<capex_per_gpu>,0)
    tax | tax | USD | =({depreciation}-({revenue}+{opex}+{residual}))*<tax_rate>
    capex | capex | USD | =IF({p}=0,-<capex_per_gpu>,0)
    net | project net | USD | ={capex}+{revenue}+{opex}+{residual}+{tax}
    net_pv | project net, discounted | USD | ={net}*(1+<cost_of_capital>)^(-{p}/<periods_per_year>)
    drawn | debt drawn | USD | =IF({p}=0,<debt_drawn_usd_per_gpu>,0)
    opening | debt at start | USD | =IF({p}=0,0,IF({k}<=1,<debt_drawn_usd_per_gpu>
    ... *(1+<debt_period_rate>)^({p}-1),IF({k}-1<=<tenor_periods>,<debt_at_in_service>
    ... *(1+<debt_period_rate>)^({k}-1)-IF(<debt_period_rate>>0,<debt_payment>
    ... *((1+<debt_period_rate>)^({k}-1)-1)/<debt_period_rate>,<debt_payment>*({k}-1)),0)))
    capitalised | interest capitalised (build) | USD | =IF({k}<=0,{opening}*<debt_period_rate>,0)
    paying | repaying | - | =IF(AND({live}=1,{k}<=<tenor_periods>),1,0)
    interest | interest paid | USD | =IF({paying}=1,{opening}*<debt_period_rate>,0)
    service | debt service | USD | =IF({paying}=1,<debt_payment>,0)
    principal | principal repaid | USD | ={service}-{interest}
    closing | debt at end | USD | ={opening}+{drawn}+{capitalised}-{principal}
    shield | interest tax shield | USD | =<tax_rate>*{interest}
    equity | equity net | USD | ={net}+{drawn}-{service}+{shield}
    cfads | CFADS | USD | ={revenue}+{opex}+{tax}
    dscr | DSCR | ratio | =IF({service}>0,{cfads}/{service},"")
    cum_equity | cumulative equity | USD | =SUM({equity@first}:{equity})
    equity_pv | equity net, discounted | USD | ={equity}*(1+<cost_of_equity>)^(-{p}/<periods_per_year>)
    cum_equity_pv | cumulative equity, discounted | USD | =SUM({equity_pv@first}:{equity_pv})
    """
)
_KEYS = [c[0] for c in COLUMNS]
#: the tax years' table right of the period table: tax year, MACRS rate, its running sum, deduction
TAX_FIRST_COL = FIRST_COL + len(COLUMNS) + 1
TAX_COLUMNS: list[tuple[str, str, str, str]] = [
    ("tax_year", "tax year", "", ""),
    (
        "macrs",
        "MACRS rate of the method",
        "fraction",
        '=IF(OR(<depreciation_method>="straight_line",{tax_year}>MAX(macrs_years)),0,'
        "INDEX(macrs_rates,{tax_year},MATCH(<depreciation_method>,macrs_methods,0)))",
    ),
    ("macrs_sum", "MACRS rates summed", "fraction", "=SUM({macrs@first}:{macrs})"),
    (
        "deduction",
        "deduction",
        "USD",
        "=IF({tax_year}><life_years>,0,"
        '(IF(<depreciation_method>="straight_line",IF({tax_year}<=<depreciation_years>,'
        "<capex_per_gpu>*(1-<bonus_depreciation_fraction>)/<depreciation_years>,0),"
        "<capex_per_gpu>*(1-<bonus_depreciation_fraction>)*{macrs})"
        "+IF({tax_year}=1,<bonus_depreciation_fraction>*<capex_per_gpu>,0))"
        '+IF(AND(<depreciation_method><>"straight_line",{tax_year}=<life_years>),'
        "<capex_per_gpu>*(1-<bonus_depreciation_fraction>)*(1-{macrs_sum}),0))",
    ),
]
_TAX_KEYS = [c[0] for c in TAX_COLUMNS]
#: the yearly summary right of the tax years: year 0..20 (year y: months 12y-11..12y)
SUMMARY_FIRST_COL = TAX_FIRST_COL + len(TAX_COLUMNS) + 1
SUMMARY = [  # key, heading, the period column summed (or taken at the year's end: cumulative)
    ("revenue", "revenue"),
    ("opex", "opex"),
    ("tax", "tax"),
    ("net", "project net"),
    ("service", "debt service"),
    ("equity", "equity net"),
    ("cum_equity", "cumulative equity"),
    ("cum_equity_pv", "cumulative equity, discounted"),
]
_AT_END = ("cum_equity", "cum_equity_pv")


def col(key: str) -> str:
    """The column letter of a period-table column."""
    return get_column_letter(FIRST_COL + _KEYS.index(key))


def _tax_col(key: str) -> str:
    return get_column_letter(TAX_FIRST_COL + _TAX_KEYS.index(key))


def column_ref(key: str, sheet: str | None = None) -> str:
    """The whole period column ``key`` (absolute), on ``sheet`` if given."""
    ref = f"${col(key)}${FIRST_ROW}:${col(key)}${LAST_ROW}"
    return ref if sheet is None else f"{quote_sheetname(sheet)}!{ref}"


def _expand(template: str, keys: list[str], letter, r: int, first: int, last: int, model) -> str:
    """A column template for row ``r``: ``{x}`` this row of column x, ``{x@all}`` the column's rows
    first..last, ``{x@first}`` its first row, ``{deduction@tax}`` the tax years' deductions,
    ``<m>`` Model row m."""
    import re

    def cell(m: re.Match) -> str:
        key, at = m.group(1), m.group(2)
        if key == "p":
            return f"${col('period')}{r}"
        if at == "tax":
            c = _tax_col(key)
            return f"${c}${FIRST_ROW}:${c}${FIRST_ROW + TAX_YEARS - 1}"
        c = letter(key)
        if at == "all":
            return f"${c}${first}:${c}${last}"
        if at == "first":
            return f"${c}${first}"
        return f"{c}{r}"

    text = re.sub(r"\{([a-z_]+)(?:@([a-z]+))?\}", cell, template)
    return re.sub(r"<([a-z0-9_]+)>", lambda m: model(m.group(1)), text)


def build_periods(book: BookBuilder, ws, k: int, model) -> None:
    """The period table, the tax years, the yearly summary and the equity chart on Cash flow
    sheet ``ws`` of system ``k``; ``model(name)`` is the system's Model cell of row ``name``."""
    system = book.systems[k - 1]
    head = ws.cell(
        row=2,
        column=FIRST_COL,
        value=f"The cluster as a project, per {system} GPU: one row per period (inp_periods: year or "
        "month), period 0 = paying the capex; build, ramp, contracts, opex lines, tax depreciation, "
        "debt (docs/project.md). USD per GPU, signed as cash.",
    )
    head.font = styles.BOLD
    for i, (key, label) in enumerate(RESULTS_SHOWN):
        c = FIRST_COL + 2 * i
        ws.cell(row=3, column=c, value=label).font = styles.BOLD
        cell = ws.cell(row=3, column=c + 1, value=f"={model(key)}")
        styles.style_formula(cell, _UNIT[key])
        cell.font = styles.BOLD
    styles.header_row(ws, HEAD_ROW, [h for _, h, _, _ in COLUMNS], first_col=FIRST_COL)
    style = styles.formula_styler()
    _fill(ws, COLUMNS, _KEYS, col, FIRST_COL, PERIODS, model, style)
    styles.header_row(ws, HEAD_ROW, [h for _, h, _, _ in TAX_COLUMNS], first_col=TAX_FIRST_COL)
    _fill(ws, TAX_COLUMNS, _TAX_KEYS, _tax_col, TAX_FIRST_COL, TAX_YEARS, model, style, start=1)
    ws.cell(row=HEAD_ROW - 1, column=TAX_FIRST_COL, value="Tax years from in-service").font = styles.BOLD
    _summary(ws, model)
    _equity_chart(ws, system)
    widths = {FIRST_COL + i: 13 for i in range(len(COLUMNS))}
    widths.update({TAX_FIRST_COL + i: 13 for i in range(len(TAX_COLUMNS))})
    widths.update({SUMMARY_FIRST_COL + i: 13 for i in range(len(SUMMARY) + 1)})
    styles.widths(ws, widths)


def _fill(ws, columns, keys, letter, first_col: int, rows: int, model, style, start: int = 0) -> None:
    """Rows ``FIRST_ROW ..`` of a table: its first column numbered from ``start``, then each
    column's template expanded once with a marker row and the marker replaced row by row."""
    last = FIRST_ROW + rows - 1
    texts = [_expand(c[3], keys, letter, _MARK, FIRST_ROW, last, model) for c in columns[1:]]
    for i in range(rows):
        r, row = FIRST_ROW + i, str(FIRST_ROW + i)
        ws.cell(row=r, column=first_col, value=start + i)
        for j, ((_key, _h, unit, _t), text) in enumerate(zip(columns[1:], texts, strict=True), start=1):
            style(ws.cell(row=r, column=first_col + j, value=text.replace(_MARK_TEXT, row)), unit)


#: the row marker templates are expanded with (a row no table reaches; its digits appear nowhere else)
_MARK = 987654
_MARK_TEXT = str(_MARK)


def _summary(ws, model) -> None:
    """Year y of the project: by year its period's row, by month the sum of months 12y-11..12y
    (the cumulative columns: their value at the year's end)."""
    first = SUMMARY_FIRST_COL
    ws.cell(row=HEAD_ROW - 1, column=first, value="Yearly summary from paying the capex").font = styles.BOLD
    styles.header_row(ws, HEAD_ROW, ["year", *(h for _, h in SUMMARY)], first_col=first)
    ppy = model("periods_per_year")
    for y in range(SUMMARY_YEARS):
        r = FIRST_ROW + y
        ws.cell(row=r, column=first, value=y)
        for j, (key, _h) in enumerate(SUMMARY, start=1):
            c = col(key)
            if y == 0:
                text = f"={c}{FIRST_ROW}"
            elif key in _AT_END:
                text = f"=IF({ppy}=1,{c}{FIRST_ROW + y},{c}{FIRST_ROW + y * MONTHS})"
            else:
                a, b = FIRST_ROW + (y - 1) * MONTHS + 1, FIRST_ROW + y * MONTHS
                text = f"=IF({ppy}=1,{c}{FIRST_ROW + y},SUM({c}{a}:{c}{b}))"
            styles.style_formula(ws.cell(row=r, column=first + j, value=text), "USD")


def summary_ref(key: str, year: int) -> tuple[int, int]:
    """(row, column) of the yearly summary's ``key`` in ``year``."""
    return FIRST_ROW + year, SUMMARY_FIRST_COL + 1 + [k for k, _ in SUMMARY].index(key)


#: the equity chart's top left cell: below the yearly table's chart (A24, 8 cm tall)
CHART_CELL = "A42"


def _equity_chart(ws, system: str) -> None:
    chart = LineChart()
    chart.title = f"Cumulative equity cash flow per GPU, {system}"
    chart.y_axis.title = "USD per GPU"
    chart.x_axis.title = "year from paying the capex"
    chart.y_axis.number_format = '"$"#,##0'
    last = FIRST_ROW + SUMMARY_YEARS - 1
    for key in _AT_END:
        _row, c = summary_ref(key, 0)
        chart.add_data(Reference(ws, min_col=c, min_row=HEAD_ROW, max_row=last), titles_from_data=True)
    for series, dash in zip(chart.series, ("solid", "dash"), strict=True):
        series.smooth = False
        series.graphicalProperties.line.dashStyle = dash
    chart.legend.position = "b"
    chart.x_axis.tickLblPos = "low"
    chart.set_categories(Reference(ws, min_col=SUMMARY_FIRST_COL, min_row=FIRST_ROW, max_row=last))
    chart.x_axis.delete = False
    chart.y_axis.delete = False
    chart.width, chart.height = 18, 8
    ws.add_chart(chart, CHART_CELL)  # below the yearly table's chart, where the sheet opens


# --- Model rows --------------------------------------------------------------------------------

#: the project's results on Model, with their defined names out_<key>_<n>
RESULTS = (
    "project_npv_usd_per_gpu",
    "project_irr",
    "equity_irr",
    "equity_npv_usd_per_gpu",
    "min_dscr",
    "peak_funding_usd_per_gpu",
    "cluster_npv_usd",
    "cluster_equity_npv_usd",
    "cluster_peak_funding_usd",
)
RESULTS_SHOWN = (
    ("project_npv_usd_per_gpu", "Project NPV"),
    ("project_irr", "Project IRR"),
    ("equity_irr", "Equity IRR"),
    ("equity_npv_usd_per_gpu", "Equity NPV"),
    ("min_dscr", "Lowest DSCR"),
    ("peak_funding_usd_per_gpu", "Peak funding"),
)
_UNIT = {
    "project_npv_usd_per_gpu": "USD",
    "project_irr": "1/year",
    "equity_irr": "1/year",
    "equity_npv_usd_per_gpu": "USD",
    "min_dscr": "ratio",
    "peak_funding_usd_per_gpu": "USD",
}
NEEDS_RENT = "needs rent_usd_per_gpu_hour"
NO_DEBT = "no debt"
NO_IRR = "no IRR from the sheet's guess"


def _cash(key: str) -> str:
    """A period column on this system's Cash flow sheet (``{k}``: the system)."""
    return column_ref(key, "Cash flow {k}")


def _irr(key: str) -> str:
    """The annual effective IRR of a period column: Excel's IRR of the periods, started at the
    chain's guess (-50% when the undiscounted sum is a loss, else 10%) per period; a text where
    it finds none (flows that never change sign, an NPV that never reaches 0)."""
    flows = _cash(key)
    guess = f"(1+IF(SUM({flows})<0,-0.5,0.1))^(1/[periods_per_year])-1"
    rate = f"(1+IRR({flows},{guess}))^[periods_per_year]-1"
    return f'IF(ISNUMBER({rate}),{rate},"{NO_IRR}")'


def _guarded(formula: str) -> str:
    """A result: empty with the reason without a rent, or where the inputs do not fit together."""
    return (
        f'=IF(NOT(ISNUMBER([rent_usd_per_gpu_hour])),"{NEEDS_RENT}",'
        f'IF([project_inputs_check]<>"",[project_inputs_check],{formula}))'
    )


def model_rows() -> list[tuple[str | None, str, str, str, str]]:
    """(key, label, unit, formula template, how) of the project's Model section (key None: its
    heading): its inputs as used, the debt's terms, the results."""
    out: list[tuple[str | None, str, str, str, str]] = [
        (None, "Cluster project (Cash flow sheets, right of the yearly table)", "", "", "")
    ]
    for _grp, field, per_system, label, unit, _default, _choices, _note in INPUTS:
        cell = name_of(field, per_system)
        like = {
            "contract_rent_usd_per_gpu_hour": "rent_usd_per_gpu_hour",
            "contract_years": "life_years",
            "debt_rate": "cost_of_capital",
            "debt_years": "life_years",
            "cost_of_equity": "cost_of_capital",
        }.get(field)
        if like:
            out.append(
                (
                    field,
                    label,
                    unit,
                    f'=IF({cell}="",[{like}],{cell})',
                    f"your value on Inputs, else the {like}",
                )
            )
        else:
            out.append((field, label, unit, f"={cell}", "Inputs"))
    out += [
        (
            "periods_per_year",
            "Periods a year",
            "",
            '=IF([periods]="month",k_months_per_year,1)',
            "1 by year, 12 by month",
        ),
        (
            "months_per_period",
            "Months a period",
            "months",
            "=k_months_per_year/[periods_per_year]",
            "12 by year, 1 by month",
        ),
        (
            "hours_per_period",
            "Hours a period",
            "h",
            "=k_hours_per_year/[periods_per_year]",
            "8760 / periods a year",
        ),
        (
            "build_periods",
            "Build, periods",
            "",
            "=[build_months]/[months_per_period]",
            "the in-service period; by year a whole number of years",
        ),
        (
            "life_periods",
            "Life, periods",
            "",
            "=[life_years]*[periods_per_year]",
            "the last period of the life after the build",
        ),
        (
            "project_inputs_check",
            "Project inputs fit together",
            "text",
            '=IF([build_periods]<>ROUNDUP([build_periods],0),"build_months must be a multiple of 12 with periods year",'
            'IF([debt_years]>[life_years],"debt_years must be within the life",'
            'IF([depreciation_years]>[life_years],"depreciation_years must be within the life","")))',
            "empty when they do; else what to change (the results say it too)",
        ),
        (
            "debt_period_rate",
            "Debt rate a period",
            "fraction",
            "=(1+[debt_rate])^(1/[periods_per_year])-1",
            "(1 + annual rate)^(1 / periods a year) - 1",
        ),
        (
            "debt_drawn_usd_per_gpu",
            "Debt drawn with the capex",
            "USD",
            "=[debt_fraction]*[capex_per_gpu]",
            "debt share x capex",
        ),
        (
            "debt_at_in_service",
            "Debt at in-service",
            "USD",
            "=[debt_drawn_usd_per_gpu]*(1+[debt_period_rate])^[build_periods]",
            "with the build's interest added",
        ),
        (
            "tenor_periods",
            "Debt tenor, periods",
            "",
            "=[debt_years]*[periods_per_year]",
            "debt years x periods a year",
        ),
        (
            "debt_payment",
            "Level debt payment a period",
            "USD",
            "=IF([debt_at_in_service]>0,IF([debt_period_rate]>0,[debt_at_in_service]*[debt_period_rate]"
            "/(1-(1+[debt_period_rate])^(-[tenor_periods])),[debt_at_in_service]/[tenor_periods]),0)",
            "the annuity that repays the debt at in-service over the tenor (Excel PMT)",
        ),
        (
            "project_npv_usd_per_gpu",
            "Project NPV (unlevered)",
            "USD",
            _guarded(f"SUM({_cash('net_pv')})"),
            "sum of the discounted project net cash flows, at the cost of capital",
        ),
        (
            "project_irr",
            "Project IRR",
            "1/year",
            _guarded(_irr("net")),
            "annual effective: (1 + IRR of the periods)^(periods a year) - 1",
        ),
        (
            "equity_irr",
            "Equity IRR",
            "1/year",
            _guarded(_irr("equity")),
            "the equity net cash flows' IRR, annual effective",
        ),
        (
            "equity_npv_usd_per_gpu",
            "Equity NPV",
            "USD",
            _guarded(f"SUM({_cash('equity_pv')})"),
            "sum of the discounted equity cash flows, at the cost of equity",
        ),
        (
            "min_dscr",
            "Lowest debt-service cover",
            "ratio",
            _guarded(f'IF([debt_payment]>0,MIN({_cash("dscr")}),"{NO_DEBT}")'),
            "lowest CFADS / debt service over the repayment periods",
        ),
        (
            "peak_funding_usd_per_gpu",
            "Peak funding per GPU",
            "USD",
            _guarded(f"MIN(0,MIN({_cash('cum_equity')}))"),
            "the most negative cumulative equity cash flow (undiscounted)",
        ),
        (
            "cluster_npv_usd",
            "Cluster NPV",
            "USD",
            _guarded("[project_npv_usd_per_gpu]*[cluster_gpus_installed]"),
            "project NPV per GPU x GPUs installed",
        ),
        (
            "cluster_equity_npv_usd",
            "Cluster equity NPV",
            "USD",
            _guarded("[equity_npv_usd_per_gpu]*[cluster_gpus_installed]"),
            "equity NPV per GPU x GPUs installed",
        ),
        (
            "cluster_peak_funding_usd",
            "Cluster peak funding",
            "USD",
            _guarded("[peak_funding_usd_per_gpu]*[cluster_gpus_installed]"),
            "peak funding per GPU x GPUs installed",
        ),
    ]
    return out


#: the Compare rows of the project: key, label, unit, formula template, how
COMPARE_ROWS: list[tuple] = [
    (None, "The cluster as a project", "", "", ""),
    *table(
        """
        cluster_capex_usd | Cluster capex | USD | =[Model:cluster_capex_usd] | GPUs installed x capex per GPU
        cluster_it_mw | Cluster IT load | MW | =[Model:cluster_it_mw] | GPUs installed x IT kW per GPU
        cluster_npv_usd | Cluster NPV | USD | =[Model:cluster_npv_usd] | the project's NPV x GPUs installed
        project_irr | Project IRR | 1/year | =[Model:project_irr] | unlevered, annual effective
        equity_irr | Equity IRR | 1/year | =[Model:equity_irr] | with the debt on Inputs
        min_dscr | Lowest DSCR | ratio | =[Model:min_dscr] | CFADS / debt service, lowest repayment period
        cluster_peak_funding_usd | Cluster peak funding | USD | =[Model:cluster_peak_funding_usd] | the equity the cluster needs at its worst
        """
    ),
]


# --- Checks rows -------------------------------------------------------------------------------

#: the project's results a TCO_ function computes: Model key -> function
CHECKS = {
    "project_npv_usd_per_gpu": "TCO_PROJECT_NPV",
    "project_irr": "TCO_PROJECT_IRR",
    "equity_irr": "TCO_EQUITY_IRR",
    "equity_npv_usd_per_gpu": "TCO_EQUITY_NPV",
    "min_dscr": "TCO_MIN_DSCR",
    "peak_funding_usd_per_gpu": "TCO_PEAK_FUNDING",
}


def check_rows(book: BookBuilder, col: int) -> list[tuple[str, str, str, str, str]]:
    """(key, where, native, udf, applies) of the project's checks of system column ``col``: the
    TCO_ function on the same Model cells. A check applies with a rent, inputs in range that fit
    together and (the DSCR) debt; where it does not, the native cell is empty. An IRR's native side is
    Excel's IRR of the same periods started at the function's root ({udf}), as for TCO_IRR."""
    k = col - book.system_col(1) + 1
    letter = get_column_letter(col)

    def m(key: str) -> str:
        return f"Model!${letter}${book.row('Model', key)}"

    rows = []
    for key, udf_name in CHECKS.items():
        args = {a.name: m(a.name) for a in registry.SPECS[udf_name].args}
        udf = registry.udf_call(udf_name, **args)
        tests = [
            f"ISNUMBER({m('rent_usd_per_gpu_hour')})",
            f'{m("project_inputs_check")}=""',
            f"{flags.COUNT}=0",  # a TCO_ function refuses an input out of range (the banner says so)
        ]
        if key == "min_dscr":
            tests.append(f"{m('debt_payment')}>0")
        if key.endswith("irr"):
            tests.append(f"ISNUMBER({m(key)})")
        native = m(key)
        where = f"Model!{letter} (System {k})"
        if key.endswith("irr"):
            flows = column_ref("net" if key == "project_irr" else "equity", f"Cash flow {k}")
            ppy = m("periods_per_year")
            native = f"(1+IRR({flows},(1+{{udf}})^(1/{ppy})-1))^{ppy}-1"
            where += ": Excel's IRR started at the function's root"
        applies = f"AND({','.join(tests)})"
        # the function is called only where the check applies (TCO_MIN_DSCR without debt is an
        # error by design: there is no cover ratio)
        udf = f'=IF({applies},{udf},"does not apply")'
        rows.append((key, where, f'=IF({applies},{native},"")', udf, f"={applies}"))
    return rows
