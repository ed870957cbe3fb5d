"""The Inputs sheet of a scenario workbook: every named cell the scenario rows read.

Sections, each row with its defined name in column A:

1. Scenario inputs ``inp_<input>``: one value for every scenario (the SPEC's ``[fixed]``, else the
   default; blank = each scenario's preset). Inputs of the grid say which Scenarios column holds
   them instead.
2. Values used by every scenario ``use_<key>``: preset lookups and FLOPs per token that do not
   vary between scenarios (grey).
3. Base scenario ``base_<input>`` and its used values ``base_use_<key>``: the centre of the
   Sensitivity and Monte Carlo sheets.
4. Unit constants ``k_*`` (the chain's).
"""

from __future__ import annotations

from gputco.udfs import chain, ranges, scenario
from gputco.workbook.finance import projectflows
from gputco.workbook.scenarios.layout import INPUTS, PRESET_BACKED, Layout
from gputco.workbook.scenarios.spec import WATERFALL
from gputco.workbook.xlsx import styles
from gputco.workbook.xlsx.book import BookBuilder
from gputco.workbook.xlsx.validation import only_value, preset_list, validate_range

SHEET = "Inputs"
VALUE_COL = 4  # D
#: drop-down list of each text input (defined on Presets)
LISTS = {
    "system": "list_systems",
    "buyer": "list_buyers",
    "model": "list_models",
    "precision": "list_precisions",
    "convention": "list_conventions",
}
#: what an empty value cell means, per input
BLANK_PRESET = {
    **{k: "blank = the buyer type's preset" for k in chain.BUYER_INPUTS},
    "capex_per_gpu": "blank = the system's all-in price per GPU x the buyer's price level",
    "it_kw_per_gpu": "blank = the system's preset",
    "peak_tflops": "blank = the system's dense peak at the precision",
    "seq_len": "blank = the model's preset",
    "depreciation_years": "blank = the life",
    "rent_usd_per_gpu_hour": "blank = no rent: NPV, IRR, payback and break-evens say so",
}


def default(name: str) -> object:
    """The value an input takes when the SPEC gives none (None: the presets')."""
    d = next(i.default for i in scenario.INPUTS if i.name == name)
    return None if d in (chain.PRESET, chain.OPTIONAL) or isinstance(d, chain.Like) else d


def build(
    book: BookBuilder,
    grid: Layout,
    base: Layout,
    fixed: dict,
    base_values: dict,
    grid_where: dict[str, str],
    project: bool = False,
) -> None:
    """Write the sheet. ``grid_where`` maps each grid input to a note on where it varies; with
    ``project`` the MACRS table the project's tax depreciation looks up."""
    ws = book.wb.create_sheet(SHEET)
    styles.title(
        ws,
        "Inputs: the named cells every scenario reads",
        "Blue on yellow: inputs (blank = preset). Grey: looked up from Presets. Column A: "
        "the defined name. Change a value here and every scenario follows.",
    )
    dvs = {}
    zero_only = () if grid.absolute_rows else WATERFALL  # rows in LibreOffice's groups: see ZERO_ONLY_WHY
    for key, list_name in LISTS.items():
        dvs[key] = preset_list(ws, list_name)
    row = 4
    styles.section_row(
        ws, row, "Scenario inputs: the same for every scenario (the SPEC's [fixed], else the default)", 5
    )
    row = _header(ws, row + 1)
    for name, q in INPUTS.items():
        row += 1
        if name in grid_where:
            _label(ws, row, "", q.label, q.unit)
            ws.cell(row=row, column=VALUE_COL, value="varies").font = styles.NOTE_FONT
            _note(ws, row, grid_where[name])
            continue
        value = fixed.get(name, default(name))
        _input(book, ws, row, f"{grid.inp}{name}", q, value, dvs, zero_only)
        note = "from [fixed]" if name in fixed else BLANK_PRESET.get(name, "default")
        _note(ws, row, ZERO_ONLY_NOTE if name in zero_only else note)

    row += 2
    styles.section_row(
        ws, row, "Values used by every scenario (the preset where the input above is blank)", 5
    )
    row = _header(ws, row + 1)
    for q in grid.constants:
        row += 1
        _used(book, ws, row, grid, q)

    row += 2
    styles.section_row(
        ws,
        row,
        "Base scenario: the centre of Sensitivity and Monte Carlo (the "
        "SPEC's [base], else each grid input's first value and [fixed])",
        5,
    )
    row = _header(ws, row + 1)
    for name, q in INPUTS.items():
        row += 1
        value = base_values.get(name, default(name))
        _input(book, ws, row, f"{base.inp}{name}", q, value, dvs, zero_only)
        note = "" if name in base_values else BLANK_PRESET.get(name, "default")
        _note(ws, row, ZERO_ONLY_NOTE if name in zero_only else note)
    row += 1
    for q in base.constants:
        row += 1
        _used(book, ws, row, base, q)

    row += 2
    styles.section_row(ws, row, "Unit constants (not assumptions)", 5)
    for name, label, unit, value, note in chain.CONSTANTS:
        row += 1
        _label(ws, row, name, label, unit)
        ws.cell(row=row, column=VALUE_COL, value=value).number_format = styles.constant_format(value)
        _note(ws, row, note)
        book.define_cell(name, ws, row, VALUE_COL)
    if project:
        _macrs(book, ws, row + 2)
    # column E holds the notes ("Scenarios column B (2 values)", "blank = the buyer type's preset"),
    # wide enough to be read whole, also in print
    styles.widths(ws, {1: 30, 2: 34, 3: 14, 4: 16, 5: 50, **{c: 14 for c in range(6, 17)}})
    ws.freeze_panes = "A4"
    styles.page_setup(ws, landscape=True, one_page=False)


def _header(ws, row: int) -> int:
    styles.header_row(ws, row, ["name", "", "unit", "value", "note"])
    return row


def _label(ws, row: int, name: str, label: str, unit: str) -> None:
    ws.cell(row=row, column=1, value=name).font = styles.KEY_FONT
    ws.cell(row=row, column=2, value=label)
    ws.cell(row=row, column=3, value=unit).font = styles.KEY_FONT


def _note(ws, row: int, text: str) -> None:
    if text:
        ws.cell(row=row, column=VALUE_COL + 1, value=text).font = styles.NOTE_FONT


def _input(book: BookBuilder, ws, row: int, name: str, q, value, dvs, zero_only=()) -> None:
    _label(ws, row, name, q.label, q.unit)
    cell = ws.cell(row=row, column=VALUE_COL, value=value)
    styles.style_input(cell, q.unit)
    if q.key in dvs:
        dvs[q.key].add(cell)
    elif q.key in zero_only:
        _zero_only(ws, q.key, cell.coordinate)
    elif q.key in ranges.RANGES:
        validate_range(ws, q.key, row, VALUE_COL)
    book.define_cell(name, ws, row, VALUE_COL)


#: the note of a reserve, sweep or lock-up input in a workbook whose SPEC sets none
ZERO_ONLY_NOTE = "0 only here: set it in the SPEC (its rows then take it)"


#: why such an input takes 0 only there (its Excel message)
ZERO_ONLY_WHY = (
    "0 only in this workbook: its SPEC sets no reserve, sweep or lock-up, so its rows form "
    "LibreOffice formula groups, whose threaded calculation computes these wrongly. Set it in the "
    "SPEC (fixed, grid, sensitivity or monte_carlo) and write the workbook again."
)


def _zero_only(ws, key: str, ref: str) -> None:
    """A reserve, sweep or lock-up input (spec.WATERFALL) of a workbook written without one takes
    0 only (its rows read their own row relatively: Layout.absolute_rows): a value typed here
    would be computed wrongly by LibreOffice, so Excel and LibreOffice refuse it, saying why and
    how to get a workbook that takes it."""
    only_value(ws, ref, 0, key, "0 only in this workbook", ZERO_ONLY_WHY)


def _used(book: BookBuilder, ws, row: int, layout: Layout, q) -> None:
    name = f"{layout.use}{q.key}"
    _label(ws, row, name, q.label + (" used" if q.key in PRESET_BACKED else ""), q.unit)
    cell = ws.cell(row=row, column=VALUE_COL, value=layout.formula(q.key).replace("{r}", ""))
    styles.style_lookup(cell, q.unit)
    if not q.unit:  # architecture counts (no unit): 12,288, not 12288
        cell.number_format = styles.ARCHITECTURE
    book.define_cell(name, ws, row, VALUE_COL)


def _macrs(book: BookBuilder, ws, row: int) -> None:
    """The MACRS percentages (``macrs_rates``: recovery years x methods, ``macrs_years``,
    ``macrs_methods``), as on the finance workbook's Inputs, from :data:`gputco.udfs.project.MACRS`."""
    styles.section_row(ws, row, "MACRS percentages (tax depreciation of the project)", 5)
    projectflows.macrs_table(book, ws, row + 1, VALUE_COL)
