"""The MonteCarlo sheet: the base scenario with random inputs, one row per draw.

The draws are values generated when the file is written (``numpy.random.default_rng(seed)``, the
SPEC's distributions in order; see :mod:`gputco.udfs.sampling`), so the same SPEC gives the same file.
Every draw's row runs the whole chain in formulas (the Scenarios layout, with the other inputs
from the base scenario ``base_*``). Above the draws: the random inputs, P10/P50/P90 of the results
(``PERCENTILE``, Excel's inclusive percentile, numpy's default) with the NPV's and IRR's, the
probability of a loss (P(NPV < 0)) and of an IRR below the cost of capital (where a rent is
given); with the project's cells also the lender's and the equity's: the percentiles of the max
LTV among them (:data:`PROJECT_STATS`), P(min DSCR < covenant_dscr), P(equity IRR < cost of
equity) and P(max LTV > max_ltv_covenant) over every draw (:data:`LENDER_SHARES`), and a histogram of the cost per million tokens (20 bins between the smallest and the largest
draw, with a bar chart). The draws' columns are also defined names ``mc_<key>``.
"""

from __future__ import annotations

from openpyxl.chart import BarChart, Reference

from gputco.udfs import chain, ranges, sampling
from gputco.workbook.scenarios.layout import INPUTS, Layout
from gputco.workbook.scenarios.rows import row_block
from gputco.workbook.scenarios.spec import MonteCarlo
from gputco.workbook.xlsx import styles
from gputco.workbook.xlsx.book import BookBuilder
from gputco.workbook.xlsx.rowfill import BlockColumn

SHEET = "MonteCarlo"
BINS = 20
PERCENTILES = (0.1, 0.5, 0.9)
#: results with percentiles on the sheet (and on Summary)
STATS = (
    "tco_usd_per_gpu_hour",
    "usd_per_mtok",
    "training_cost_usd",
    "training_days",
    "joules_per_token",
    "project_npv_usd_per_gpu",
    "project_irr",
)
#: the project's results with percentiles where the draws carry the project's cells
PROJECT_STATS = ("equity_irr", "equity_npv_usd_per_gpu", "min_dscr", "peak_funding_usd_per_gpu", "max_ltv")
#: what a project statistic says where no draw has a number
NO_PROJECT_NUMBER = "no draw has one (they need a rent; the DSCR and the LTV need debt)"
#: what P(max LTV > covenant) says where no draw has both debt and a covenant
NO_LTV_COVENANT = "no draw has both debt and a max_ltv_covenant (0: none)"
#: with the project's cells, the lender's and the equity's risk over every draw: key, the result
#: whose guard applies (no draw with a number: says what is missing), label, formula of the share
LENDER_SHARES = (
    (
        "p_min_dscr_below_covenant",
        "min_dscr",
        "P(min DSCR < covenant_dscr): share of every draw (a draw without debt has no covenant to breach)",
        "SUM(mc_min_dscr_below_covenant)/ROWS(mc_min_dscr)",
    ),
    (
        "p_equity_irr_below_cost_of_equity",
        "equity_irr",
        "P(equity IRR < cost of equity): share of every draw (a draw without an equity IRR counts below)",
        "(SUM(mc_equity_irr_below_cost_of_equity)+ROWS(mc_equity_irr)-COUNT(mc_equity_irr))/ROWS(mc_equity_irr)",
    ),
    (
        "p_no_equity_irr",
        "equity_irr",
        "P(no equity IRR): share of the draws whose equity IRR does not exist or is not found",
        "(ROWS(mc_equity_irr)-COUNT(mc_equity_irr))/ROWS(mc_equity_irr)",
    ),
    (
        "p_max_ltv_above_covenant",
        "max_ltv",
        "P(max LTV > max_ltv_covenant): share of every draw (a draw without debt or without a "
        "covenant has none to breach)",
        f'IF(COUNT(mc_max_ltv_above_covenant)=0,"{NO_LTV_COVENANT}",'
        "SUM(mc_max_ltv_above_covenant)/ROWS(mc_max_ltv))",
    ),
)
#: the draws' columns the lender's shares count: key, label, template (Layout dialect)
LENDER_DRAW_COLUMNS = (
    (
        "min_dscr_below_covenant",
        "Lowest DSCR below the covenant (1) or not (0; blank without debt)",
        '=IF(ISNUMBER([min_dscr]),IF([min_dscr]<[covenant_dscr],1,0),"")',
    ),
    (
        "equity_irr_below_cost_of_equity",
        "Equity IRR below the cost of equity (1) or not (0; blank without one)",
        '=IF(ISNUMBER([equity_irr]),IF([equity_irr]<[cost_of_equity],1,0),"")',
    ),
    (
        "max_ltv_above_covenant",
        "Highest loan to value above max_ltv_covenant (1) or not (0; blank without debt or covenant)",
        '=IF(AND(ISNUMBER([max_ltv]),[max_ltv_covenant]>0),IF([max_ltv]>[max_ltv_covenant],1,0),"")',
    ),
)
#: results that need the rent: their percentiles count the draws with a number (AGGREGATE
#: ignoring errors: a draw whose IRR Excel cannot find is left out), or say what is missing
RENT_STATS = frozenset(k for k in STATS if chain.optional_inputs_of(chain.step_of(k)))


def build(
    book: BookBuilder, mc: MonteCarlo, base: Layout, last_year: int, project: int | None = None
) -> tuple[int, list[BlockColumn], dict]:
    """Write the sheet; returns (first draw row, columns to fill, {result: row of its P10..P90}).
    ``last_year``: the draws' cash-flow table has years 0..last_year; ``project``: the last
    period of the project's cells (None: no project terms)."""
    ws = book.wb.create_sheet(SHEET)
    styles.title(
        ws,
        f"Monte Carlo: {mc.draws:,} draws around the base scenario",
        f"Draws generated by gputco with numpy.random.default_rng({mc.seed}); each row is "
        "the base scenario (Inputs, base_*) with the random inputs below. Change the SPEC "
        "and run gputco scenarios again to redraw.",
    )
    layout = base.block(list(mc.dists), first_col=2, last_year=last_year, project=project)
    row = 4
    styles.section_row(ws, row, "Random inputs", 7)
    row += 1
    styles.header_row(ws, row, ["input", "", "unit", "distribution", "mean of draws", "smallest", "largest"])
    for name, (dist, params) in mc.dists.items():
        row += 1
        q = INPUTS[name]
        ws.cell(row=row, column=1, value=name).font = styles.KEY_FONT
        ws.cell(row=row, column=2, value=q.label)
        ws.cell(row=row, column=3, value=q.unit).font = styles.KEY_FONT
        ws.cell(
            row=row,
            column=4,
            value=sampling.describe(dist, params)
            + (", rounded to whole years" if name in ranges.WHOLE_YEARS else ""),
        )
        for col, func in ((5, "AVERAGE"), (6, "MIN"), (7, "MAX")):
            styles.style_formula(ws.cell(row=row, column=col, value=f"={func}(mc_{name})"), q.unit)

    row += 2
    styles.section_row(ws, row, "Results over the draws: percentiles (PERCENTILE, inclusive)", 7)
    row += 1
    styles.header_row(ws, row, ["result", "", "unit", "P10", "P50", "P90", "mean"])
    row += 1
    k_row = row
    ws.cell(row=row, column=2, value="percentile")
    for i, k in enumerate(PERCENTILES):
        styles.style_input(ws.cell(row=row, column=4 + i, value=k), "fraction")
    stat_rows = {}
    for key in (*STATS, *(PROJECT_STATS if project is not None else ())):
        row += 1
        step = chain.step_of(key)
        label, unit = (
            (chain.step(step).label, chain.step(step).unit)
            if chain.is_step(step)
            else chain.PROJECT_OUTPUTS[key][:2]
        )
        stat_rows[key] = row
        ws.cell(row=row, column=1, value=key).font = styles.KEY_FONT
        ws.cell(row=row, column=2, value=label)
        ws.cell(row=row, column=3, value=unit).font = styles.KEY_FONT
        for i in range(len(PERCENTILES)):
            col = 4 + i
            letter = "DEF"[i]
            every = _every_draw(key, f"{letter}${k_row}")
            styles.style_formula(
                ws.cell(
                    row=row,
                    column=col,
                    value=_stat(
                        key,
                        every or f"PERCENTILE(mc_{key},{letter}${k_row})",
                        every or f"_xlfn.AGGREGATE(16,6,mc_{key},{letter}${k_row})",
                    ),
                ),
                unit,
            )
        styles.style_formula(
            ws.cell(
                row=row, column=7, value=_stat(key, f"AVERAGE(mc_{key})", f"_xlfn.AGGREGATE(1,6,mc_{key})")
            ),
            unit,
        )
        if key in ("tco_usd_per_gpu_hour", "usd_per_mtok"):
            for col in range(4, 8):
                ws.cell(row=row, column=col).font = styles.BOLD

    # the decision's risk: the share of draws that lose money, and that earn less than the capital costs
    for key, src, label, share in (
        (
            "p_npv_below_0",
            "project_npv_usd_per_gpu",
            "P(NPV < 0): share of the draws that lose money",
            'COUNTIF(mc_project_npv_usd_per_gpu,"<0")/COUNT(mc_project_npv_usd_per_gpu)',
        ),
        (
            "p_irr_below_cost_of_capital",
            "project_irr",
            "P(IRR < cost of capital): share of every draw (a draw without an IRR counts below)",
            "(SUM(mc_irr_below_cost_of_capital)+ROWS(mc_project_irr)-COUNT(mc_project_irr))/ROWS(mc_project_irr)",
        ),
        (
            "p_no_irr",
            "project_irr",
            "P(no IRR): share of the draws whose IRR does not exist or is not found",
            "(ROWS(mc_project_irr)-COUNT(mc_project_irr))/ROWS(mc_project_irr)",
        ),
        *(LENDER_SHARES if project is not None else ()),
    ):
        row += 1
        stat_rows[key] = row
        ws.cell(row=row, column=1, value=key).font = styles.KEY_FONT
        ws.cell(row=row, column=2, value=label)
        ws.cell(row=row, column=3, value="fraction").font = styles.KEY_FONT
        value = _stat(src, "", share)
        cell = ws.cell(row=row, column=4, value=value)
        styles.style_formula(cell, "fraction")
        cell.font = styles.BOLD
    row += 2
    styles.section_row(ws, row, "Histogram of the cost per million tokens", 7)
    for label, name, value in (
        ("bins", "mc_bins", BINS),
        ("lowest draw", "mc_hist_min", "=MIN(mc_usd_per_mtok)"),
        ("bin width", "mc_hist_width", "=(MAX(mc_usd_per_mtok)-mc_hist_min)/mc_bins"),
    ):
        row += 1
        ws.cell(row=row, column=1, value=name).font = styles.KEY_FONT
        ws.cell(row=row, column=2, value=label)
        cell = ws.cell(row=row, column=4, value=value)
        cell.number_format = "General" if name == "mc_bins" else styles.number_format("USD/Mtok")
        book.define_cell(name, ws, row, 4)
    row += 1
    hist_head = row
    styles.header_row(ws, row, ["bin", "", "", "from ($/Mtok)", "to ($/Mtok)", "draws"])
    for b in range(1, BINS + 1):
        row += 1
        ws.cell(row=row, column=1, value=b)
        for col, formula in (
            (4, f"=mc_hist_min+(A{row}-1)*mc_hist_width"),
            (5, f"=mc_hist_min+A{row}*mc_hist_width"),
            (6, f"=COUNTIF(mc_bin,A{row})"),
        ):
            styles.style_formula(ws.cell(row=row, column=col, value=formula), "USD/Mtok" if col < 6 else "")
    _chart(ws, hist_head)

    head = row + 4
    styles.section_row(ws, head - 2, "The draws: one scenario per row", 12)
    bin_formula = layout.expand(
        "=IF(mc_hist_width=0,1,MIN(mc_bins,INT(([usd_per_mtok]-mc_hist_min)/mc_hist_width)+1))"
    )
    below_formula = layout.expand('=IF(ISNUMBER([irr]),IF([irr]<[cost_of_capital],1,0),"")')
    lender = tuple(
        (key, label, "", layout.expand(template))
        for key, label, template in (LENDER_DRAW_COLUMNS if project is not None else ())
    )
    first, cols = row_block(
        book,
        ws,
        layout,
        mc.sample(),
        mc.draws,
        "draw",
        "mc_",
        head_row=head,
        extra=(
            ("bin", "Histogram bin of the cost per Mtok", "", bin_formula),
            ("irr_below_cost_of_capital", "IRR below the cost of capital (1) or not (0)", "", below_formula),
            *lender,
        ),
    )
    styles.widths(ws, {1: 22, 2: 24, 3: 12, 4: 40})
    ws.freeze_panes = "A4"
    styles.page_setup(ws, one_page=False)
    return first, cols, stat_rows


#: the results whose percentiles count every draw, a draw without one below every draw with one
EVERY_DRAW = ("project_irr", "equity_irr")
NO_IRR = "no IRR (the draws at this percentile have none)"


def _every_draw(key: str, p: str) -> str | None:
    """The inclusive percentile ``p`` (Excel's PERCENTILE, numpy's default) of every draw of an
    IRR, the draws without one (Excel's IRR finds none: an error or a text) counted below every
    draw with one: where the percentile's lower point is such a draw it says so."""
    if key not in EVERY_DRAW:
        return None
    col, n = f"mc_{key}", f"ROWS(mc_{key})"
    none, h = f"({n}-COUNT({col}))", f"(({n}-1)*{p})"
    lo = f"_xlfn.AGGREGATE(15,6,{col},INT({h})-{none}+1)"
    hi = f"_xlfn.AGGREGATE(15,6,{col},MIN(INT({h})-{none}+2,COUNT({col})))"
    return f'IF(INT({h})<{none},"{NO_IRR}",{lo}+({h}-INT({h}))*({hi}-{lo}))'


def _stat(key: str, plain: str, ignoring_errors: str) -> str:
    """A statistic of the draws' column ``key``: ``plain``, or for a result that needs the rent
    the same over the draws with a number (``ignoring_errors``), or what is missing."""
    if key in PROJECT_STATS:
        return f'=IF(COUNT(mc_{key})=0,"{NO_PROJECT_NUMBER}",{ignoring_errors})'
    if key not in RENT_STATS:
        return "=" + plain
    needs = " and ".join(chain.optional_inputs_of(chain.step_of(key)))
    return f'=IF(COUNT(mc_{key})=0,"needs {needs}",{ignoring_errors})'


def _chart(ws, head: int) -> None:
    chart = BarChart()
    chart.type = "col"
    chart.gapWidth = 10
    chart.title = "Draws by cost per million tokens"
    chart.add_data(Reference(ws, min_col=6, min_row=head, max_row=head + BINS), titles_from_data=True)
    chart.set_categories(Reference(ws, min_col=4, min_row=head + 1, max_row=head + BINS))
    chart.x_axis.title = "from $/Mtok"
    chart.x_axis.numFmt = '"$"0.000'
    chart.x_axis.delete = False
    chart.y_axis.delete = False
    chart.y_axis.title = "draws"
    chart.legend = None
    chart.height, chart.width = 9, 18
    ws.add_chart(chart, "I4")
