"""The Inputs sheet: what the user chooses and types, and the preset values those choices look up.

Every cell another sheet uses has a defined name; column A shows it. The scheme:

- ``inp_<field>``: a scenario-wide input cell (blue on yellow), e.g. ``inp_buyer``, ``inp_tokens``;
  buyer-type values (``inp_usd_per_kwh``...) are overrides: blank means "use the preset".
- ``inp_<field>_<n>``: the input of system column n (1-based), e.g. ``inp_system_1``, ``inp_mfu_2``;
  ``inp_capex_per_gpu_<n>``, ``inp_it_kw_per_gpu_<n>``, ``inp_peak_tflops_<n>`` are overrides.
- ``pre_<field>[_<n>]``: the preset value looked up from Presets (a formula, grey fill).
- ``use_<field>``: the buyer-type value the model uses: your value, else the preset.
- ``k_<what>``: a unit constant (hours per year, J per kWh...).
"""

from __future__ import annotations

from openpyxl.styles import Alignment
from openpyxl.utils import get_column_letter

from gputco import udfs
from gputco.udfs import chain, presets, ranges
from gputco.workbook.finance import projectflows
from gputco.workbook.xlsx import styles
from gputco.workbook.xlsx.book import BookBuilder
from gputco.workbook.xlsx.cells import as_text
from gputco.workbook.xlsx.presets_sheet import lookup
from gputco.workbook.xlsx.styles import label_row, note_cell
from gputco.workbook.xlsx.validation import preset_list, validate_range

SHEET = "Inputs"
RIGHT = Alignment(horizontal="right")

#: scenario inputs: name, label, unit, default (None: blank), drop-down list or None, note
SCENARIO = [
    (
        "inp_buyer",
        "Buyer type",
        "key",
        None,
        "list_buyers",
        "Sets cost of capital, life, PUE, tariff, rent and price level (see below).",
    ),
    (
        "inp_model",
        "Model trained",
        "key",
        "gpt3_175b",
        "list_models",
        "Architecture from Presets; FLOPs per token follow from it.",
    ),
    (
        "inp_precision",
        "Precision",
        "key",
        "bf16",
        "list_precisions",
        "Selects each system's dense peak TFLOPS.",
    ),
    (
        "inp_convention",
        "FLOPs-per-token convention",
        "key",
        "palm",
        "list_conventions",
        "palm = 6N + 12*L*d_model*seq_len (reproduces the published figures); 6n; megatron.",
    ),
    (
        "inp_seq_len",
        "Sequence length (blank = model preset)",
        "tokens",
        None,
        None,
        "Only the palm and megatron conventions use it.",
    ),
    ("inp_tokens", "Tokens to train", "tokens", 300e9, None, "GPT-3 was trained on 300B tokens."),
    (
        "inp_kwh_per_household_year",
        "Electricity of a US household-year",
        "kWh",
        udfs.KWH_PER_HOUSEHOLD_YEAR,
        None,
        "EIA 2022 US average, quoted by SemiAnalysis 2025-08-20.",
    ),
    (
        "inp_grid_region",
        "Grid region (a sourced factor, shown below)",
        "key",
        presets.DEFAULT_GRID,
        "list_grids",
        "US average (EIA), US coal and gas plants, eGRID2022 subregions (SRVC = Virginia/Carolina, "
        "ERCT = Texas, NWPP = Northwest...): Presets, Grid CO2 emission factors.",
    ),
    (
        "inp_kg_co2_per_kwh",
        "Grid emission factor used (CO2 step)",
        "kg CO2/kWh",
        udfs.KG_CO2_PER_KWH_US,
        None,
        "Default: US average 2022 (EIA: 1,650 Mt CO2 / 4.23 trillion kWh). Type the region's factor "
        "above to use it; the cell right of the factor says whether they differ.",
    ),
    (
        "inp_serve_benchmark",
        "Published serving benchmark shown per system",
        "key",
        presets.DEFAULT_SERVING,
        "list_serving",
        "SemiAnalysis InferenceX, 8k in / 1k out, highest-throughput point: dsr1_8k1k = "
        "DeepSeek-R1-0528, gptoss_8k1k = gpt-oss-120b (Presets, Published serving throughputs).",
    ),
    (
        "inp_tax_rate",
        "Tax rate on profit (cash flows)",
        "fraction",
        0.0,
        None,
        "0 = no tax (the default); a loss is a credit against other profits.",
    ),
    (
        "inp_depreciation_years",
        "Depreciation period (blank = the life)",
        "years",
        None,
        None,
        "Straight line to zero, whole years up to the life.",
    ),
    (
        "inp_rent_decline_per_year",
        "Rent decline per year (cash flows)",
        "1/year",
        0.0,
        None,
        "How much the rent you charge falls each year (0 = flat).",
    ),
    (
        "inp_opex_escalation_per_year",
        "Opex escalation per year (cash flows)",
        "1/year",
        0.0,
        None,
        "How much power, facility and other costs rise each year (0 = flat).",
    ),
    (
        "inp_sweep_mfu_start",
        "MFU sweep on Compare: first MFU",
        "fraction",
        0.20,
        None,
        "The cost-per-token-against-MFU table and chart.",
    ),
    ("inp_sweep_mfu_step", "MFU sweep on Compare: step", "fraction", 0.05, None, ""),
    (
        "inp_article_usd_per_gpu_hour",
        "Benchmarks: the article's H100 cost",
        "USD/GPU-h",
        1.42,
        None,
        "SemiAnalysis 2025-08-20 prices every cost per token at $1.42 per H100-hour.",
    ),
    (
        "inp_bench_tokens",
        "Benchmarks: tokens for household-years",
        "tokens",
        300e9,
        None,
        "SemiAnalysis quotes household-years for 300B GPT-3 tokens.",
    ),
]

#: the default of each scenario input, by defined name
SCENARIO_DEFAULTS = {name: default for name, _label, _unit, default, _dv, _note in SCENARIO}


def default_mfu(system: str) -> float:
    """The MFU typed into a system's column: the system's published MFU at the default precision,
    else the H100's (labelled "assumed" on Compare; :func:`gputco.udfs.presets.default_mfu`)."""
    return presets.default_mfu(system, SCENARIO_DEFAULTS["inp_precision"]).value


#: buyer-type fields: field, label, unit
BUYER_FIELDS = [
    ("cost_of_capital", "Cost of capital", "1/year"),
    ("life_years", "Economic life", "years"),
    ("residual_fraction", "Residual value at end of life", "fraction"),
    ("pue", "PUE (facility power / IT power)", "ratio"),
    ("usd_per_kwh", "Electricity tariff", "USD/kWh"),
    ("colo_usd_per_kw_month", "Colocation rent per kW of IT load", "USD/kW-month"),
    ("capex_multiplier", "Price level vs hyperscaler", "x"),
    ("other_usd_per_gpu_hour", "Other cost (maintenance, support...)", "USD/GPU-h"),
]

#: model-architecture fields shown on Inputs: field, label, unit (the chain's model inputs)
MODEL_FIELDS = [(i.key, i.label, i.unit) for i in chain.INPUTS if i.scope == "model"] + [
    ("seq_len", "Sequence length (preset)", "tokens")
]

#: unit constants: name, label, unit, value, note
CONSTANTS = chain.CONSTANTS

#: per-system preset rows looked up on Inputs: key, label, unit, Presets field
SYSTEM_LOOKUPS = [
    ("label", "Description", "text", "label"),
    ("gpus_per_unit", "GPUs per server/rack", "GPU", "gpus_per_unit"),
    ("unit_price_usd", "Server/rack price alone", "USD", "unit_price_usd"),
    ("unit_all_in_usd", "Server/rack all-in (networking, storage, other)", "USD", "unit_all_in_usd"),
    ("chip_watts", "GPU chip power", "W", "chip_watts"),
]


def build(book: BookBuilder) -> None:
    ws = book.wb.create_sheet(SHEET)
    last_col = book.system_col(book.n) + 1
    styles.title(
        ws,
        "Inputs",
        "Blue on yellow: inputs, type over them (blank override = use the preset). Grey: "
        "preset values looked up from Presets. Black: formulas. Column A: the defined name.",
    )
    dvs = {
        name: preset_list(ws, name)
        for name in (
            "list_buyers",
            "list_models",
            "list_precisions",
            "list_conventions",
            "list_systems",
            "list_grids",
            "list_serving",
        )
    }
    col = book.system_col(1)

    row = 4
    styles.section_row(ws, row, "Scenario", last_col)
    for name, label, unit, default, dv, note in SCENARIO:
        row += 1
        value = book.buyer if name == "inp_buyer" else default
        label_row(ws, row, name, label, unit)
        cell = as_text(ws.cell(row=row, column=col, value=value))  # inputs are never formulas
        styles.style_input(cell, unit)
        if dv:
            dvs[dv].add(cell)
        elif name[4:] in ranges.RANGES:
            validate_range(ws, name[4:], row, col)
        note_cell(ws, row, col + 2, note)  # col + 1: the range check (finance/flags.py)
        book.define_cell(name, ws, row, col)
        if name == "inp_grid_region":
            row = _grid_preset_row(book, ws, row + 1, col)
        if name == "inp_kg_co2_per_kwh":  # says when the factor used is not the region's
            ws.cell(
                row=row,
                column=col + 2,
                value=(
                    '=IF(inp_kg_co2_per_kwh=pre_kg_co2_per_kwh,"= the region\'s factor",'
                    '"not the region\'s factor (above): the default is the US average 2022, EIA")'
                ),
            ).font = styles.NOTE_FONT

    row += 2
    styles.section_row(ws, row, "Systems: one column each; the first is the reference on Compare", last_col)
    row += 1
    styles.header_row(
        ws, row, ["name", "", "unit", *(f"System {k}" for k in range(1, book.n + 1)), "range check", "notes"]
    )
    row = _system_rows(book, ws, row, dvs["list_systems"])

    row += 2
    styles.section_row(ws, row, "Buyer type: preset values (grey), your value, the value used", last_col)
    row += 1
    styles.header_row(ws, row, ["name", "", "unit", "Preset", "Your value", "range check", "Used", "Source"])
    for field, label, unit in BUYER_FIELDS:
        row += 1
        label_row(ws, row, f"inp_{field}", label, unit)
        _preset_cells(ws, row, col, col + 4, chain.Preset("buyer", field), "inp_buyer", unit)
        styles.style_input(ws.cell(row=row, column=col + 1), unit)
        validate_range(ws, field, row, col + 1)
        used = ws.cell(row=row, column=col + 3, value=f'=IF(inp_{field}="",pre_{field},inp_{field})')
        styles.style_formula(used, unit)
        book.define_cell(f"pre_{field}", ws, row, col)
        book.define_cell(f"inp_{field}", ws, row, col + 1)
        book.define_cell(f"use_{field}", ws, row, col + 3)
    overrides = f"$E${row - len(BUYER_FIELDS) + 1}:$E${row}"
    book.define("inp_buyer_overrides", ws, overrides)

    row += 2
    styles.section_row(ws, row, "Model architecture of inp_model (from Presets)", last_col)
    for field, label, unit in MODEL_FIELDS:
        row += 1
        label_row(ws, row, f"pre_{field}", label, unit)
        cell = _preset_cells(ws, row, col, col + 1, chain.Preset("model", field), "inp_model", unit)
        cell.number_format = "#,##0"
        book.define_cell(f"pre_{field}", ws, row, col)

    row += 2
    styles.section_row(ws, row, "Unit constants (not assumptions)", last_col)
    for name, label, unit, value, note in CONSTANTS:
        row += 1
        label_row(ws, row, name, label, unit)
        ws.cell(row=row, column=col, value=value).number_format = styles.constant_format(value)
        note_cell(ws, row, col + 1, note)
        book.define_cell(name, ws, row, col)

    projectflows.build_inputs(book, ws, row)

    # 20: a 15-trillion-token run (15,000,000,000,000) fits without ###
    # the range check column right of each block's inputs (finance/flags.py), then the notes
    styles.widths(
        ws, {1: 30, 2: 44, 3: 12, **{c: 20 for c in book.system_cols()}, last_col: 16, last_col + 1: 60}
    )
    if book.n < 3:  # the buyer block's Used and Source columns sit right of the systems
        styles.widths(ws, {col + 2: 16, col + 3: 16, col + 4: 60})
    ws.freeze_panes = "D4"
    styles.page_setup(ws, one_page=True)


def _system_rows(book: BookBuilder, ws, row: int, system_dv) -> int:
    """Per-system rows: selector, MFU, preset lookups with their overrides. Returns the last row."""
    notes_col = book.system_col(book.n) + 2  # + 1: the range check (finance/flags.py)

    def per_system(name, label, unit, value_of, kind, note="", align=None):
        nonlocal row
        row += 1
        label_row(ws, row, name.replace("{k}", "<n>"), label, unit)
        for k in range(1, book.n + 1):
            col = book.system_col(k)
            cell = ws.cell(row=row, column=col, value=value_of(k))
            if kind == "input":  # a preset key or a number typed by the user: never a formula
                as_text(cell)
            {"input": styles.style_input, "lookup": styles.style_lookup, "formula": styles.style_formula}[
                kind
            ](cell, unit)
            if name:
                book.define_cell(name.replace("{k}", str(k)), ws, row, col)
            if name == "inp_system_{k}":
                system_dv.add(cell)
            if align is not None:
                cell.alignment = align
        if kind == "input" and name != "inp_system_{k}":
            arg = name[len("inp_") : -len("_{k}")]
            validate_range(ws, arg, row, book.system_col(1), row, book.system_col(book.n))
        note_cell(ws, row, notes_col, note)

    per_system(
        "inp_system_{k}",
        "System (drop-down)",
        "key",
        lambda k: book.systems[k - 1],
        "input",
        "A system preset key; every grey value below follows it.",
    )
    per_system(
        "inp_mfu_{k}",
        "MFU reached",
        "fraction",
        lambda k: default_mfu(book.systems[k - 1]),
        "input",
        "Model FLOPs utilisation at the chosen precision. Default: the system's published run at "
        "the default precision, else the H100 figure (Compare, row MFU source: measured or assumed).",
    )
    for key, label, unit, field in SYSTEM_LOOKUPS:  # descriptions wrap in their column
        per_system(
            "" if key == "label" else f"pre_{key}_{{k}}",
            label,
            unit,
            lambda k, f=field: f"={_system(f, k)}",
            "lookup",
            align=styles.WRAP if key == "label" else None,
        )
        if key == "label":
            ws.row_dimensions[row].height = 66  # five lines: the longest label (H800)
    per_system(
        "pre_capex_per_gpu_{k}",
        "All-in capex per GPU at hyperscaler prices",
        "USD",
        lambda k: f"=pre_unit_all_in_usd_{k}/pre_gpus_per_unit_{k}",
        "formula",
        "all-in per server or rack / GPUs per unit",
    )
    per_system(
        "inp_capex_per_gpu_{k}",
        "  your all-in capex per GPU (blank = preset)",
        "USD",
        lambda k: None,
        "input",
        "what this buyer pays; blank = the preset x the buyer's price level",
    )
    per_system(
        "pre_it_kw_per_gpu_{k}",
        "IT load per GPU (GPU, host, network, storage)",
        "kW",
        lambda k: f"={_system('it_kw_per_gpu', k)}",
        "lookup",
    )
    per_system(
        "inp_it_kw_per_gpu_{k}", "  your IT load per GPU (blank = preset)", "kW", lambda k: None, "input"
    )
    per_system(
        "pre_peak_tflops_{k}",
        "Dense peak TFLOPS at inp_precision",
        "TFLOPS",
        lambda k: (
            f"=IF(ISNUMBER({_system('peak_tflops_{precision}', k)}),{_system('peak_tflops_{precision}', k)},NA())"
        ),
        "lookup",
        "#N/A where the chip has no such tensor cores (H100/H200 FP4).",
    )
    per_system(
        "inp_peak_tflops_{k}",
        "  your dense peak TFLOPS (blank = preset)",
        "TFLOPS",
        lambda k: None,
        "input",
        "e.g. 2450 for GB200 as in NVIDIA's DGXC tables",
    )
    per_system(
        "pre_availability_{k}",
        "Availability of the system (preset)",
        "fraction",
        lambda k: f"={_system('availability', k)}",
        "lookup",
        "sourced on Presets (GB200 NVL72: 64 of 72 GPUs); type it below to use it",
    )
    per_system(
        "inp_gpus_{k}",
        "GPUs (the run and the cluster)",
        "GPU",
        lambda k: 128,
        "input",
        "sets the run's wall-clock days and the cluster's capex, power and NPV (SemiAnalysis's GPT-3 runs used 128 H100)",
    )
    per_system(
        "inp_availability_{k}",
        "  availability used",
        "fraction",
        lambda k: 1.0,
        "input",
        "1 = every hour up (the article's convention, so published figures reproduce)",
    )
    per_system(
        "inp_utilisation_{k}",
        "Utilisation of available hours",
        "fraction",
        lambda k: 1.0,
        "input",
        "fraction of available hours used or sold",
    )
    per_system(
        "inp_goodput_{k}",
        "Goodput of a training run",
        "fraction",
        lambda k: 1.0,
        "input",
        "fraction of paid GPU time kept as progress (restarts, lost work)",
    )

    per_system(
        "pre_serve_tokens_per_gpu_second_{k}",
        "Published serving throughput (preset)",
        "tokens/s/GPU",
        lambda k: _or(_serving("tokens_per_gpu_second", k), '"none published"'),
        "lookup",
        "inp_serve_benchmark of the system, input + output tokens per second per GPU at "
        "the highest-throughput point (SemiAnalysis InferenceX); type it below to use it",
        align=RIGHT,
    )
    per_system(
        "",
        "  its precision and framework",
        "text",
        lambda k: _or(f'{_serving("precision", k)}&" "&{_serving("framework", k)}', '""'),
        "lookup",
        align=RIGHT,
    )
    per_system(
        "",
        "  at concurrency",
        "requests",
        lambda k: _or(_serving("concurrency", k), '""'),
        "lookup",
        "concurrent requests of that point; interactivity = 1000 / median TPOT (Presets)",
    )
    per_system(
        "inp_serve_tokens_per_gpu_second_{k}",
        "Inference: tokens served per second per GPU",
        "tokens/s/GPU",
        lambda k: None,
        "input",
        "the serving throughput used for the cost per million tokens served; blank = no inference cost",
    )
    per_system(
        "inp_rent_usd_per_gpu_hour_{k}",
        "Rent per GPU-hour (rent or buy, cash flows)",
        "USD/GPU-h",
        lambda k: default_rent(book.systems[k - 1]),
        "input",
        "default: SemiAnalysis AI Cloud TCO model July 2026, 3-year commitment "
        "(udfs/data/rents.toml); "
        "blank = no rent-based results",
    )
    first, last = book.system_col(1), book.system_col(book.n)
    for field in ("capex_per_gpu", "it_kw_per_gpu", "peak_tflops"):
        r = int(book.names[f"inp_{field}_1"].rsplit("$", 1)[1])
        book.define(f"inp_{field}_all", ws, f"${get_column_letter(first)}${r}:${get_column_letter(last)}${r}")
    return row


def _preset_cells(ws, row: int, col: int, source_col: int, preset: chain.Preset, key: str, unit: str):
    """Row ``row``'s ``preset`` (of the preset named by ``key``) looked up on Presets: its value
    (grey, at ``col``) and its source (a note, at ``source_col``). The value's cell."""
    cell = ws.cell(row=row, column=col, value="=" + lookup(preset, {preset.table: key}))
    styles.style_lookup(cell, unit)
    source = ws.cell(row=row, column=source_col, value="=" + lookup(preset, {preset.table: key}, "source"))
    source.font = styles.NOTE_FONT
    return cell


def _system(field: str, k: int) -> str:
    """The Presets lookup of system column k's preset ``field`` (at inp_precision where the field
    has one)."""
    return lookup(chain.Preset("system", field), {"system": f"inp_system_{k}", "precision": "inp_precision"})


def _serving(field: str, k: int) -> str:
    """The Presets lookup of ``field`` of the published serving point of inp_serve_benchmark on
    system column k's system."""
    return lookup(chain.Preset("serving", field), {"serving": f'inp_serve_benchmark&"_"&inp_system_{k}'})


def _or(expr: str, fallback: str) -> str:
    """``=expr``, or ``fallback`` where it is an error (no such preset): IF(ISERROR()), which every
    spreadsheet and gputco's engine evaluate alike."""
    return f"=IF(ISERROR({expr}),{fallback},{expr})"


def _grid_preset_row(book: BookBuilder, ws, row: int, col: int) -> int:
    """The factor of the chosen grid region, looked up on Presets, with its source; returns the row."""
    label_row(ws, row, "pre_kg_co2_per_kwh", "  its emission factor (preset)", "kg CO2/kWh")
    match = 'MATCH(inp_grid_region&".kg_co2_per_kwh",grid_id,0)'
    styles.style_lookup(ws.cell(row=row, column=col, value=f"=INDEX(grid_value,{match})"), "kg CO2/kWh")
    ws.cell(row=row, column=col + 1, value=f"=INDEX(grid_source,{match})").font = styles.NOTE_FONT
    book.define_cell("pre_kg_co2_per_kwh", ws, row, col)
    return row


def default_rent(system: str) -> float | None:
    """The sourced default rent of a system: SemiAnalysis's 3-year-commitment market rental
    (udfs/data/rents.toml), None where there is none."""
    for r in presets.rents():
        if r.texts.get("system") == system and r.key.endswith("_sa_3yr_commit"):
            return r.value("usd_per_gpu_hour")
    return None
