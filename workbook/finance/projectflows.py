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

from gputco.udfs import chain, periodlines, project, ranges, registry
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
        "rent_curve",
        True,
        "Rent curve: factors by year of operation, or a finance preset key",
        "factors",
        None,
        None,
        'blank = the rent decline above; "1, 0.85, 0.7225": the rent in year t = the rent x factor t '
        "(past the last, the last); or a key of the finance presets (Presets sheet, tbl_finance: "
        "rent_h100_2024_25 = the 2024-25 H100 path)",
    ),
    (
        "Revenue",
        "rent_curve_shift",
        True,
        "Rent path shift: the rent factor x (1 + shift)",
        "fraction",
        0.0,
        None,
        "default 0; (-1, 10]; on the curve or, blank curve, on (1 - decline)^year (docs/project.md)",
    ),
    (
        "Revenue",
        "rent_curve_slope",
        True,
        "Rent path tilt: the rent factor x (1 + slope)^year of operation",
        "1/year",
        0.0,
        None,
        "default 0; (-1, 1]; without a curve the same as a decline of 1 - (1 - decline)(1 + slope)",
    ),
    (
        "Revenue",
        "contracted_fraction",
        True,
        "Share of the GPUs let take-or-pay",
        "fraction",
        0.0,
        None,
        "default 0 = all sold at the market rent; contracted GPUs are paid every available hour, no decline "
        "(the contract escalation below applies)",
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
        "Revenue",
        "contract_escalation_per_year",
        True,
        "Contract rent escalation a year",
        "1/year",
        0.0,
        None,
        "default 0; (-1, 1]; the contract rent of year y of operation x (1 + escalation)^y",
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
        "within the life, a whole number of periods (years by year, months by month: 2.5 needs month)",
    ),
    (
        "Financing",
        "max_ltv_covenant",
        False,
        "Loan-to-value covenant (0 = none)",
        "ratio",
        0.0,
        None,
        "periods whose debt / collateral value is above it are counted (ltv_breach_periods)",
    ),
    (
        "Financing",
        "value_curve",
        True,
        "Market value of the GPUs: fraction of the all-in capex by year, or a finance preset key",
        "factors",
        None,
        None,
        'blank = value_base (Epoch AI\'s decay, 10^(-0.14 t)); "1, 0.7, 0.5": the value t years after '
        "purchase = capex x factor t, joined linearly between years; value_low / value_high: the "
        "bands (Presets sheet, tbl_finance). The collateral of the LTV lines; the cash flows keep "
        "the residual fraction",
    ),
    (
        "Financing",
        "value_curve_shift",
        True,
        "Value curve shift: the value factor x (1 + shift)",
        "fraction",
        0.0,
        None,
        "default 0; (-1, 10]; the collateral of the LTV lines (docs/project.md)",
    ),
    (
        "Financing",
        "value_curve_slope",
        True,
        "Value curve tilt: the value factor x (1 + slope)^t, t years after purchase",
        "1/year",
        0.0,
        None,
        "default 0; (-1, 1]; t = period / periods a year, as the value line reads the curve",
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
        "Financing",
        "covenant_dscr",
        False,
        "DSCR covenant",
        "ratio",
        1.0,
        None,
        "default 1.0 (an assumption: a common minimum cover in GPU-backed loans; set your loan's); "
        "the breach count tests each repayment period's DSCR against it",
    ),
    (
        "Financing",
        "debt_repayment",
        False,
        "Debt repayment",
        "key",
        "level",
        project.REPAYMENTS,
        "level = an annuity over the repayment periods (today's); straight = equal principal, "
        "interest on the balance; sculpted = service CFADS / one cover (the period table's "
        "sculpt_cover), interest only where CFADS <= 0 (docs/project.md)",
    ),
    (
        "Financing",
        "debt_sizing",
        False,
        "Debt sizing",
        "key",
        "fraction",
        project.SIZINGS,
        "fraction = the debt share above x capex (today's); dscr = the largest debt whose sculpted "
        "service keeps the DSCR at the target below, capped at the debt share x capex (needs "
        "debt_repayment sculpted)",
    ),
    (
        "Financing",
        "target_dscr",
        False,
        "Target DSCR for dscr sizing",
        "ratio",
        1.3,
        None,
        "ASSUMPTION: 1.30 (no sourced default; a cover often asked of contracted GPU cash flows - set "
        "your lender's); > 0; used only with debt_sizing dscr",
    ),
    (
        "Financing",
        "debt_grace_months",
        False,
        "Debt grace: months of interest only from in-service",
        "months",
        0,
        None,
        "default 0; whole periods (a multiple of 12 by year), below the tenor; the repayment runs "
        "over the rest of the tenor",
    ),
    (
        "Financing",
        "dsra_months",
        False,
        "Debt service reserve, months of service",
        "months",
        0,
        None,
        "default 0 (none); whole periods (a multiple of 12 by year); funded by the equity at "
        "in-service to the scheduled service of the months ahead, topped up from cash after "
        "service, drawn on a shortfall, released at maturity",
    ),
    (
        "Financing",
        "sweep_fraction",
        False,
        "Cash sweep: share of the cash after service and reserve",
        "fraction",
        0,
        None,
        "default 0; [0, 1]; prepays the debt from the end of its schedule",
    ),
    (
        "Financing",
        "lockup_dscr",
        False,
        "Lock-up DSCR: below it the cash after service prepays the debt",
        "ratio",
        0,
        None,
        "default 0 (no lock-up); >= 0",
    ),
    (
        "Financing",
        "debt_upfront_fee_fraction",
        False,
        "Upfront fee on the debt drawn",
        "fraction",
        0,
        None,
        "default 0; [0, 1); paid by the equity at the draw; not deducted from tax (an assumption)",
    ),
    (
        "Financing",
        "debt_rate_basis",
        False,
        "Debt rate basis",
        "key",
        "fixed",
        project.RATE_BASES,
        "fixed = the debt rate above (today's); floating = each period's rate is the base-rate curve's "
        "rate of its year of operation + the spread below (leave the debt rate blank; docs/project.md)",
    ),
    (
        "Financing",
        "base_rate_curve",
        False,
        "Base-rate curve (floating): rates by year of operation, or a finance preset key",
        "rates",
        None,
        None,
        'blank with fixed debt; "0.043, 0.039": the base rate in year t of operation (past the last, the '
        "last; t0 in the build); or a key of the finance presets (Presets sheet, tbl_finance: sofr_2026)",
    ),
    (
        "Financing",
        "debt_spread",
        False,
        "Debt spread over the base rate (floating)",
        "1/year",
        0.0,
        None,
        "default 0 (0 with fixed debt); [0, 1]; spreads by offtaker credit grade from public filings on "
        "the Presets sheet (tbl_finance, group spread: spread_a3_2026 SOFR + 2.25 %, spread_ba2_2026 + 4.50 %)",
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
    (
        "Tax",
        "tax_losses",
        False,
        "Tax losses",
        "key",
        "refund",
        project.TAX_LOSSES,
        "refund = a period's loss is a tax credit (today's); carry_forward = a loss is carried to "
        "later periods and the tax paid is never negative; what is left after the life is lost "
        "(a simplification: IRC 172's 80% limit not modelled; docs/project.md)",
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
        if not choices and field not in project.CURVE_TERMS:  # a curve: text, read by the lines
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

#: the lines the period table leaves out: those read from the period before (the table's rows are
#: one shape down a column, which the engine computes column by column) and those only the
#: scenario rows read (the break-even rent and utilisation's parts)
LEFT_OUT = ("sold", "power_use", "cumulative", "payback_point")
#: the period table's columns: key, heading, unit, formula template (the lines of
#: :data:`gputco.udfs.periodlines.PERIOD_LINES`, in the chain's dialect), the period first
COLUMNS: list[tuple[str, str, str, str]] = [
    ("period", "period", "", ""),
    *((x.key, x.label, x.unit, x.formula) for x in periodlines.PERIOD_LINES if x.key not in LEFT_OUT),
]
_KEYS = [c[0] for c in COLUMNS]
#: the tax years' table right of the period table: tax year, MACRS rate, its running sum, deduction
TAX_FIRST_COL = FIRST_COL + len(COLUMNS) + 1
TAX_COLUMNS: list[tuple[str, str, str, str]] = [
    ("tax_year", "tax year", "", ""),
    *((x.key, x.label, x.unit, x.formula) for x in periodlines.TAX_LINES),
]
_TAX_KEYS = [c[0] for c in TAX_COLUMNS]
#: the yearly summary right of the tax years: year 0..20 (year y: months 12y-11..12y)
SUMMARY_FIRST_COL = TAX_FIRST_COL + len(TAX_COLUMNS) + 1
SUMMARY = [  # key, heading, the period column summed (or taken at the year's end: cumulative)
    ("revenue", "revenue"),
    ("opex", "opex"),
    ("tax", "tax"),
    ("net", "project net"),
    ("paid_service", "debt service"),
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


def _expand(template: str, r: int, model) -> str:
    """A line's template (:mod:`gputco.udfs.periodlines`) for row ``r`` of its table (the
    period table's, or the tax years'): ``[m]`` the system's Model row m, ``<x>`` this row of
    line x, ``<x@prev>`` the row above (0 in the first), ``<x@all>`` the whole line,
    ``<x@0:p>`` / ``<x@1:t>`` its first row to this one, ``<period>`` / ``<tax_year>`` the row's
    number."""

    def cell(key: str, at: str) -> str:
        if key in ("period", "tax_year"):
            return f"${col(key) if key == 'period' else _tax_col(key)}{r}"
        tax = periodlines.table_of(key) == "tax"
        c = _tax_col(key) if tax else col(key)
        last = FIRST_ROW + (TAX_YEARS if tax else PERIODS) - 1
        return (
            periodlines.place(
                key,
                at,
                r,
                FIRST_ROW,
                last,
                lambda i: f"{c}{i}",
                lambda a, b, whole: f"${c}${a}:{'$' if whole else ''}{c}{'$' if whole else ''}{b}",
                "the period table",
            )
            or f"{c}{r}"
        )

    return chain.expand(template, model, cell)


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
    _fill(ws, COLUMNS, FIRST_COL, PERIODS, model, style)
    styles.header_row(ws, HEAD_ROW, [h for _, h, _, _ in TAX_COLUMNS], first_col=TAX_FIRST_COL)
    _fill(ws, TAX_COLUMNS, TAX_FIRST_COL, TAX_YEARS, model, style, start=1)
    ws.cell(row=HEAD_ROW - 1, column=TAX_FIRST_COL, value="Tax years from in-service").font = styles.BOLD
    _summary(ws, model)
    _equity_chart(ws, system)
    headings = [h for _, h, _, _ in (*COLUMNS, *TAX_COLUMNS)] + [h for _, h in SUMMARY]
    styles.heading_height(ws, HEAD_ROW, headings, 13)
    widths = {FIRST_COL + i: 13 for i in range(len(COLUMNS))}
    widths.update({TAX_FIRST_COL + i: 13 for i in range(len(TAX_COLUMNS))})
    widths.update({SUMMARY_FIRST_COL + i: 13 for i in range(len(SUMMARY) + 1)})
    styles.widths(ws, widths)


def _fill(ws, columns, first_col: int, rows: int, model, style, start: int = 0) -> None:
    """Rows ``FIRST_ROW ..`` of a table: its first column numbered from ``start``, then each
    column's template expanded once for the first row and once with a marker row, the marker
    replaced row by row."""
    firsts = [_expand(c[3], FIRST_ROW, model) for c in columns[1:]]
    texts = [_expand(c[3], _MARK, model) for c in columns[1:]]
    for i in range(rows):
        r, row = FIRST_ROW + i, str(FIRST_ROW + i)
        ws.cell(row=r, column=first_col, value=start + i)
        for j, ((_key, _h, unit, _t), text) in enumerate(zip(columns[1:], texts, strict=True), start=1):
            value = firsts[j - 1] if i == 0 else text.replace(_MARK_TEXT, row).replace(_PREV_TEXT, str(r - 1))
            style(ws.cell(row=r, column=first_col + j, value=value), unit)


#: the row marker templates are expanded with (a row no table reaches; its digits appear nowhere else)
_MARK = 987654
_MARK_TEXT, _PREV_TEXT = str(_MARK), str(_MARK - 1)


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
    *project.FINANCED,
    "cluster_npv_usd",
    "cluster_equity_npv_usd",
    "cluster_peak_funding_usd",
)
#: the loan-to-value results on Model (out_<key>_<n>), from the period table's ltv lines
LTV_RESULTS = project.LTV
RESULTS_SHOWN = (
    ("project_npv_usd_per_gpu", "Project NPV"),
    ("project_irr", "Project IRR"),
    ("equity_irr", "Equity IRR"),
    ("equity_npv_usd_per_gpu", "Equity NPV"),
    ("min_dscr", "Lowest DSCR"),
    ("llcr", "LLCR"),
    ("peak_funding_usd_per_gpu", "Peak funding"),
)
_UNIT = {
    "project_npv_usd_per_gpu": "USD",
    "project_irr": "1/year",
    "equity_irr": "1/year",
    "equity_npv_usd_per_gpu": "USD",
    "min_dscr": "ratio",
    "peak_funding_usd_per_gpu": "USD",
    "llcr": "ratio",
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


def _scale() -> str:
    """The period table's debt scale (the same in every period): 1, or below with dscr sizing."""
    return f"INDEX({_cash('debt_scale')},1)"


def _owed() -> str:
    """The debt at in-service as drawn (x the debt scale)."""
    return f"[debt_at_in_service]*{_scale()}"


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
        elif field in project.CURVE_TERMS:  # text, blank as ""
            out.append((field, label, unit, f'=""&{cell}', "Inputs (text; blank: none)"))
        else:
            out.append((field, label, unit, f"={cell}", "Inputs"))
    out += [(x.key, x.label, x.unit, x.formula, x.how) for x in periodlines.SCALARS]
    out += [
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
            "avg_dscr",
            "Mean debt-service cover",
            "ratio",
            _guarded(f'IF([debt_payment]>0,AVERAGE({_cash("dscr")}),"{NO_DEBT}")'),
            "simple mean of CFADS / debt service over the repayment periods",
        ),
        (
            "llcr",
            "Loan-life cover ratio (LLCR)",
            "ratio",
            _guarded(f'IF([debt_payment]>0,SUM({_cash("cfads_loan_pv")})/({_owed()}),"{NO_DEBT}")'),
            "CFADS of the repayment periods discounted at the debt rate to in-service / the debt then",
        ),
        (
            "plcr",
            "Project-life cover ratio (PLCR)",
            "ratio",
            _guarded(f'IF([debt_payment]>0,SUM({_cash("cfads_life_pv")})/({_owed()}),"{NO_DEBT}")'),
            "CFADS of the life discounted at the debt rate to in-service / the debt then",
        ),
        (
            "dscr_breach_periods",
            "Periods below the DSCR covenant",
            "periods",
            _guarded(f'IF([debt_payment]>0,COUNTIF({_cash("dscr")},"<"&[covenant_dscr]),"{NO_DEBT}")'),
            "repayment periods whose DSCR is below the covenant on Inputs",
        ),
        (
            "debt_usd_per_gpu",
            "Debt per GPU",
            "USD",
            _guarded(f"[debt_drawn_usd_per_gpu]*{_scale()}"),
            "the debt drawn with the capex (x the period table's debt scale: dscr sizing)",
        ),
        (
            "max_ltv",
            "Highest loan to value",
            "ratio",
            _guarded(f'IF([debt_drawn_usd_per_gpu]>0,MAX({_cash("ltv")}),"{NO_DEBT}")'),
            "highest debt at a period's end / the collateral value then (value curve x capex)",
        ),
        (
            "ltv_at_maturity",
            "Loan to value at maturity",
            "ratio",
            _guarded(
                f"IF([debt_drawn_usd_per_gpu]>0,INDEX({_cash('ltv')},[build_periods]+[tenor_periods]+1),"
                f'"{NO_DEBT}")'
            ),
            "the loan to value at the end of the tenor (the debt repaid: 0)",
        ),
        (
            "ltv_breach_periods",
            "Periods above the LTV covenant",
            "periods",
            _guarded(f"SUM({_cash('ltv_breach')})"),
            "periods whose loan to value is above max_ltv_covenant (none without a covenant)",
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
    on_debt = {*project.ON_DEBT, "cluster_equity_npv_usd", "cluster_peak_funding_usd"}
    cover = f"INDEX({_cash('sculpt_cover')},1)"
    return [
        (key, label, unit, periodlines.unpayable(f, cover) if key in on_debt else f, how)
        for key, label, unit, f, how in out
    ]


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
        avg_dscr | Mean DSCR | ratio | =[Model:avg_dscr] | simple mean over the repayment periods
        llcr | LLCR | ratio | =[Model:llcr] | CFADS over the loan at the debt rate / the debt at in-service
        plcr | PLCR | ratio | =[Model:plcr] | CFADS over the life at the debt rate / the debt at in-service
        dscr_breach_periods | Periods below the covenant | periods | =[Model:dscr_breach_periods] | repayment periods with DSCR < the covenant on Inputs
        debt_usd_per_gpu | Debt per GPU | USD | =[Model:debt_usd_per_gpu] | drawn with the capex
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
    "avg_dscr": "TCO_AVG_DSCR",
    "llcr": "TCO_LLCR",
    "debt_usd_per_gpu": "TCO_DEBT_PER_GPU",
    "peak_funding_usd_per_gpu": "TCO_PEAK_FUNDING",
}


#: the native side of an IRR row of Checks where Excel's IRR does not converge from the sheet's guess
NO_NATIVE_IRR = "no IRR from the sheet's guess"


def irr_native(own: str, udf: str, from_udf: str) -> str:
    """The native side of an IRR row: ``own``, the Model's IRR (Excel's IRR from the sheet's guess),
    where it is a number the function's answer ``udf`` agrees with (or ``udf`` is no number);
    where both are numbers that differ, Excel's IRR started at the function's answer
    (``from_udf``): flows that change sign more than once have several IRRs, Newton from the
    sheet's guess may find another one, and started at a root it stays there, so it equals the
    function's answer exactly when that answer is an IRR of the flows. An error in the function's
    cell never reaches this side; where ``own`` is no number it says so in text."""
    differ = f"ABS({own}-{udf})>chk_tolerance*MAX(ABS({own}),ABS({udf}))"
    # nested IFs, not AND: Excel's AND evaluates every argument and passes an error on
    return f'IF(ISNUMBER({own}),IF(ISNUMBER({udf}),IF({differ},{from_udf},{own}),{own}),"{NO_NATIVE_IRR}")'


def check_rows(book: BookBuilder, col: int) -> list[tuple[str, str, str, str, str]]:
    """(key, where, native, udf, applies) of the project's checks of system column ``col``: the
    TCO_ function on the same Model cells. A check applies with a rent, inputs in range that fit
    together and (the DSCR) debt; where it does not, the native cell is empty. An IRR's native side is
    the Model's own IRR cell (Excel's IRR from the sheet's guess), or where the function found
    another root, Excel's IRR started at it (:func:`irr_native`); an IRR check applies where the
    Model's cell found one."""
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
        if key in ("min_dscr", "avg_dscr", "llcr"):
            tests.append(f"{m('debt_payment')}>0")
        if key.endswith("irr"):
            tests.append(f"ISNUMBER({m(key)})")
        native = m(key)
        where = f"Model!{letter} (System {k})"
        if key.endswith("irr"):
            flows = column_ref("net" if key == "project_irr" else "equity", f"Cash flow {k}")
            ppy = m("periods_per_year")
            from_udf = f"(1+IRR({flows},(1+{{udf}})^(1/{ppy})-1))^{ppy}-1"
            native = irr_native(native, "{udf}", from_udf)
            where += ": Excel's IRR from the sheet's guess"
        applies = f"AND({','.join(tests)})"
        # the function is called only where the check applies (TCO_MIN_DSCR without debt is an
        # error by design: there is no cover ratio)
        udf = f'=IF({applies},{udf},"does not apply")'
        rows.append((key, where, f'=IF({applies},{native},"")', udf, f"={applies}"))
    return rows
