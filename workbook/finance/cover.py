"""The Cover sheet (what the workbook is, how to use it, where the numbers come from, the colour
legend) and the ``xlwings.conf`` sheet that points Excel's xlwings add-in at gputco's UDFs."""

from __future__ import annotations

from gputco import udfs
from gputco.workbook.xlsx import styles
from gputco.workbook.xlsx.book import BookBuilder
from gputco.workbook.xlsx.xlwings_sheet import XLWINGS_SHEET

#: width of the Cover's text column, in characters
TEXT_WIDTH = 100

SHEETS = [
    (
        "Inputs",
        "choose the buyer type, model, precision and a system per column; type MFU, tokens, "
        "GPUs; override any preset (blank = preset)",
    ),
    ("Model", "every step in native formulas, one column per system, with units and how"),
    (
        "Compare",
        "each system against System 1: capex, opex and TCO ratios, break-even speed-up "
        "and MFU, cost per million tokens; two charts",
    ),
    ("Benchmarks", "published training runs recomputed, each published figure beside ours"),
    (
        "Checks",
        "gputco's Excel functions (=TCO_...) against the native formulas; chk_ok is TRUE when all agree",
    ),
    ("Presets", "every preset value with unit, source and as-of date, as Excel tables"),
    (XLWINGS_SHEET, "settings for the xlwings Excel add-in that provides the TCO_ functions"),
]

SOURCES = [
    "SemiAnalysis, 'H100 vs GB200 NVL72 Training Benchmarks', 2025-08-20: server and rack prices, "
    "chip power, MFUs, $1.42 per H100-hour, J/token and household-years.",
    "SemiAnalysis, 'AI Datacenter Energy Dilemma' (2024-03) and 'AI Neocloud Playbook' (2024-10): "
    "IT power per GPU, PUE ranges, tariffs, buyer types.",
    "NVIDIA datasheets (dense peak TFLOPS = half the 'with sparsity' figure) and NVIDIA "
    "dgxc-benchmarking READMEs: benchmark MFUs and tokens/s.",
    "Model papers and configs (GPT-3, Llama 3.1); PaLM appendix B for FLOPs per token.",
    "US EIA: 10,791 kWh per household-year (2022).",
    "Values that are not published figures say 'assumption' in their source on Presets.",
]

NAMES = [
    (
        "inp_<field>",
        "scenario input: inp_buyer, inp_model, inp_precision, inp_convention, "
        "inp_seq_len, inp_tokens, inp_kwh_per_household_year, ... and the buyer-type "
        "overrides inp_cost_of_capital, inp_usd_per_kwh, ... (blank = preset)",
    ),
    (
        "inp_<field>_<n>",
        "input of system column n: inp_system_1, inp_mfu_1, inp_gpus_1, and the overrides "
        "inp_capex_per_gpu_1, inp_it_kw_per_gpu_1, inp_peak_tflops_1",
    ),
    ("pre_<field>[_<n>]", "preset value looked up from Presets (formula)"),
    ("use_<field>", "buyer-type value the model uses (your value, else the preset)"),
    ("k_<what>", "unit constant: k_hours_per_year, k_joules_per_kwh, ..."),
    ("chk_ok", "TRUE when every check on Checks passes"),
]


def build(book: BookBuilder) -> None:
    ws = book.wb.create_sheet("Cover", 0)
    names = " vs ".join(book.systems)
    styles.title(
        ws,
        f"GPU-cluster TCO: {names}",
        f"gputco {udfs.__version__} finance workbook, written by `gputco template`. "
        "Open it anywhere: it carries computed values and recalculates in Excel and "
        "LibreOffice.",
    )
    row = 4
    row = _paragraph(
        ws,
        row,
        "What it is",
        [
            "What a GPU-hour really costs (capex, cost of capital, power, facility), what that makes "
            "a million trained tokens cost at the MFU you reach, how much faster a new system must "
            "be to pay off, and how much energy a training run takes (J/token, US household-years).",
            f"Buyer type as generated: {book.buyer}. Every number is a formula on the inputs and "
            "presets, visible on Model.",
        ],
    )
    row = _paragraph(
        ws,
        row,
        "How to use it",
        [
            "1. On Inputs, pick the buyer type, model and precision, a system per column, and type "
            "your MFU, tokens and GPUs. Type over a grey preset's override cell to use your own value.",
            "2. Read Compare: the TCO ratio is the break-even speed-up; the break-even MFU is what "
            "the challenger must reach for the same cost per token.",
            "3. Model shows each step; Benchmarks audits the published figures; Checks compares "
            "gputco's =TCO_ functions with the native formulas (needs the xlwings add-in in Excel).",
            "Excel recalculates on open. In LibreOffice use Data > Calculate > Recalculate Hard "
            "after changing presets. `gputco recalc FILE --in-place` refreshes the stored values "
            "headlessly.",
        ],
    )
    row = _paragraph(ws, row, "Where every number comes from", SOURCES)

    styles.section_row(ws, row, "Colour legend", 3)
    row += 1
    for style, text, value in (
        (styles.style_input, "Input: type over it (blue on light yellow)", 0.54),
        (styles.style_lookup, "Preset value looked up from Presets (grey)", 1.389),
        (styles.style_formula, "Formula (black)", 1.4199),
    ):
        cell = ws.cell(row=row, column=1, value=value)
        style(cell)
        ws.cell(row=row, column=2, value=text)
        row += 1
    for fill, text in ((styles.OK_FILL, "Check passes"), (styles.BAD_FILL, "Check fails")):
        cell = ws.cell(row=row, column=1, value=text == "Check passes")
        cell.fill = fill
        ws.cell(row=row, column=2, value=text)
        row += 1
    row += 1

    row = _glossary(ws, row, "Sheets", SHEETS, styles.BOLD) + 2
    _glossary(ws, row, "Defined names (Formulas > Name Manager)", NAMES, styles.KEY_FONT)
    styles.widths(ws, {1: 22, 2: TEXT_WIDTH})
    styles.page_setup(ws, landscape=False, one_page=True)


def _paragraph(ws, row: int, heading: str, lines: list[str]) -> int:
    styles.section_row(ws, row, heading, 3)
    for line in lines:
        row += 1
        ws.cell(row=row, column=2, value=line).alignment = styles.WRAP
        styles.wrap_height(ws, row, line, TEXT_WIDTH)
    return row + 2


def _glossary(ws, row: int, heading: str, items: list[tuple[str, str]], font) -> int:
    """A heading at ``row``, then one row per (term, text): the term in ``font`` in column A, the
    text wrapped in column B; returns the last row written."""
    styles.section_row(ws, row, heading, 3)
    for term, text in items:
        row += 1
        ws.cell(row=row, column=1, value=term).font = font
        ws.cell(row=row, column=1).alignment = styles.WRAP
        ws.cell(row=row, column=2, value=text).alignment = styles.WRAP
        styles.wrap_height(ws, row, text, TEXT_WIDTH)
    return row
