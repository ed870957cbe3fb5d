"""The Model sheet: the whole chain in native Excel formulas, one row per step, one column per system.

capex per GPU -> capital per GPU-hour (PMT) -> power -> facility -> other -> TCO -> FLOPs per token
-> tokens/s per GPU -> cost per million tokens -> training cost and days -> utility W per GPU
-> J/token -> household-years.

Column A holds a stable key per row (tests and the Checks sheet find rows by it), B the step, C the
unit, then one column per system, then how the step is computed. Formulas hold no numbers: unit
constants are named cells on Inputs (``k_*``); only the integer coefficients of the published
FLOPs formulas (6, 12, 2) appear literally.
"""

from __future__ import annotations

from workbook.xlsx import styles
from workbook.xlsx.book import BookBuilder

SHEET = "Model"

#: (key, label, unit, formula template, how). A row with key None is a section heading.
ROWS: list[tuple] = [
    (None, "Capital", "", "", ""),
    ("system", "System", "key", "=inp_system_{k}", "Inputs: system drop-down"),
    ("buyer", "Buyer type", "key", "=inp_buyer", "Inputs: buyer drop-down"),
    ("list_capex_per_gpu", "All-in capex per GPU at hyperscaler prices", "USD",
     "=pre_capex_per_gpu_{k}", "preset: all-in unit price / GPUs per unit"),
    ("capex_multiplier", "Buyer's price level", "x", "=use_capex_multiplier", "Inputs: buyer type"),
    ("capex_per_gpu", "All-in capex per GPU", "USD",
     '=IF(inp_capex_per_gpu_{k}="",[list_capex_per_gpu]*[capex_multiplier],inp_capex_per_gpu_{k})',
     "your value on Inputs, else hyperscaler price x buyer's price level"),
    ("cost_of_capital", "Cost of capital", "1/year", "=use_cost_of_capital", "Inputs: buyer type"),
    ("life_years", "Economic life", "years", "=use_life_years", "Inputs: buyer type"),
    ("residual_fraction", "Residual value", "fraction", "=use_residual_fraction",
     "Inputs: buyer type; fraction of capex at end of life"),
    ("capital_per_gpu_year", "Capital cost per GPU-year (level annuity)", "USD/GPU-year",
     "=-PMT([cost_of_capital],[life_years],[capex_per_gpu],-[residual_fraction]*[capex_per_gpu])",
     "-PMT(rate, life, capex, -residual x capex): end-of-year payments repaying the capex"),
    ("capital_per_gpu_hour", "Capital per GPU-hour", "USD/GPU-h",
     "=[capital_per_gpu_year]/k_hours_per_year", "per GPU-year / 8760 hours"),
    (None, "Operating cost", "", "", ""),
    ("it_kw_per_gpu", "IT load per GPU", "kW",
     '=IF(inp_it_kw_per_gpu_{k}="",pre_it_kw_per_gpu_{k},inp_it_kw_per_gpu_{k})',
     "your value on Inputs, else the preset (GPU, host, network, storage)"),
    ("pue", "PUE", "ratio", "=use_pue", "Inputs: buyer type"),
    ("usd_per_kwh", "Electricity tariff", "USD/kWh", "=use_usd_per_kwh", "Inputs: buyer type"),
    ("power_per_gpu_hour", "Power per GPU-hour", "USD/GPU-h",
     "=[it_kw_per_gpu]*[pue]*[usd_per_kwh]", "IT kW x PUE x USD/kWh (one hour)"),
    ("colo_usd_per_kw_month", "Colocation rent", "USD/kW-month", "=use_colo_usd_per_kw_month",
     "Inputs: buyer type; per kW of IT load"),
    ("facility_per_gpu_hour", "Facility (colocation) per GPU-hour", "USD/GPU-h",
     "=[it_kw_per_gpu]*[colo_usd_per_kw_month]*k_months_per_year/k_hours_per_year",
     "IT kW x rent per kW-month x 12 / 8760"),
    ("other_per_gpu_hour", "Other per GPU-hour", "USD/GPU-h", "=use_other_usd_per_gpu_hour",
     "Inputs: buyer type"),
    ("opex_per_gpu_hour", "Opex per GPU-hour", "USD/GPU-h",
     "=[power_per_gpu_hour]+[facility_per_gpu_hour]+[other_per_gpu_hour]",
     "power + facility + other"),
    ("tco_per_gpu_hour", "TCO per GPU-hour", "USD/GPU-h",
     "=[capital_per_gpu_hour]+[opex_per_gpu_hour]", "capital + opex"),
    (None, "Throughput and cost per token", "", "", ""),
    ("model", "Model", "key", "=inp_model", "Inputs: model drop-down"),
    ("precision", "Precision", "key", "=inp_precision", "Inputs: precision drop-down"),
    ("peak_tflops", "Dense peak TFLOPS per GPU", "TFLOPS",
     '=IF(inp_peak_tflops_{k}="",pre_peak_tflops_{k},inp_peak_tflops_{k})',
     "your value on Inputs, else the preset at this precision"),
    ("seq_len", "Sequence length", "tokens", '=IF(inp_seq_len="",pre_seq_len,inp_seq_len)',
     "your value on Inputs, else the model preset"),
    ("params", "Parameters N", "params", "=pre_params", "model preset"),
    ("layers", "Layers L", "", "=pre_layers", "model preset"),
    ("d_model", "Hidden size d_model", "", "=pre_d_model", "model preset"),
    ("heads", "Attention heads A", "", "=pre_heads", "model preset"),
    ("kv_heads", "KV heads G", "", "=pre_kv_heads", "model preset"),
    ("ffn", "FFN size F", "", "=pre_ffn", "model preset"),
    ("vocab", "Vocabulary V", "tokens", "=pre_vocab", "model preset"),
    ("mlp_matrices", "MLP matrices m", "", "=pre_mlp_matrices", "model preset"),
    ("flops_palm", "FLOPs per token, PaLM", "FLOPs/token",
     "=6*[params]+12*[layers]*[d_model]*[seq_len]", "6N + 12 L d s (PaLM appendix B)"),
    ("flops_6n", "FLOPs per token, 6N", "FLOPs/token", "=6*[params]", "6N"),
    ("flops_megatron", "FLOPs per token, Megatron", "FLOPs/token",
     "=[layers]*[d_model]^2*(12+12*[kv_heads]/[heads]+6*[mlp_matrices]*[ffn]/[d_model]"
     "+12*[seq_len]/[d_model])+6*[vocab]*[d_model]",
     "L h^2 (12 + 12G/A + 6mF/h + 12s/h) + 6Vh (NeMo/Megatron)"),
    ("flops_per_token", "FLOPs per token used", "FLOPs/token",
     '=IF(inp_convention="palm",[flops_palm],IF(inp_convention="6n",[flops_6n],'
     'IF(inp_convention="megatron",[flops_megatron],NA())))',
     "the convention chosen on Inputs"),
    ("mfu", "MFU", "fraction", "=inp_mfu_{k}", "Inputs"),
    ("tokens_per_gpu_second", "Tokens per second per GPU", "tokens/s/GPU",
     "=[mfu]*[peak_tflops]*k_flops_per_tflop/[flops_per_token]",
     "MFU x peak FLOP/s / FLOPs per token"),
    ("cost_per_mtok", "Cost per million tokens", "USD/Mtok",
     "=[tco_per_gpu_hour]/(k_seconds_per_hour*[tokens_per_gpu_second])*k_tokens_per_mtok",
     "TCO per GPU-hour / tokens per GPU-hour x 1e6"),
    (None, "Training run", "", "", ""),
    ("tokens", "Tokens trained", "tokens", "=inp_tokens", "Inputs"),
    ("gpus", "GPUs", "GPU", "=inp_gpus", "Inputs"),
    ("training_cost", "Training cost", "USD run", "=[tokens]*[cost_per_mtok]/k_tokens_per_mtok",
     "tokens x cost per token"),
    ("training_gpu_hours", "GPU-hours", "GPU-h",
     "=[tokens]/([tokens_per_gpu_second]*k_seconds_per_hour)", "tokens / tokens per GPU-hour"),
    ("training_days", "Wall-clock days", "days",
     "=[tokens]/([gpus]*[tokens_per_gpu_second])/k_seconds_per_day",
     "tokens / (GPUs x tokens/s per GPU) / 86400"),
    (None, "Energy", "", "", ""),
    ("utility_watts_per_gpu", "Utility power per GPU", "W", "=[it_kw_per_gpu]*[pue]*k_watts_per_kw",
     "IT kW x PUE x 1000"),
    ("joules_per_token", "Energy per token", "J/token",
     "=[utility_watts_per_gpu]/[tokens_per_gpu_second]", "utility W / tokens per second"),
    ("training_energy_kwh", "Training energy", "kWh",
     "=[tokens]*[joules_per_token]/k_joules_per_kwh", "tokens x J/token / 3.6e6"),
    ("kwh_per_household_year", "US household-year", "kWh", "=inp_kwh_per_household_year",
     "Inputs (EIA 2022: 10,791 kWh)"),
    ("household_years", "Training energy in household-years", "household-years",
     "=[tokens]*[joules_per_token]/([kwh_per_household_year]*k_joules_per_kwh)",
     "J / (kWh per household-year x 3.6e6 J/kWh)"),
    ("tokens_per_household_year", "Tokens per household-year of energy", "tokens",
     "=[kwh_per_household_year]*k_joules_per_kwh/[joules_per_token]",
     "the article's 15.8B FP8 GPT-3 tokens"),
]

#: rows whose values are text
TEXT_KEYS = {"system", "buyer", "model", "precision"}


def build(book: BookBuilder) -> None:
    ws = book.wb.create_sheet(SHEET)
    how_col = book.system_col(book.n) + 1
    styles.title(ws, "Model: every step in native formulas, one column per system",
                 "Change the blue cells on Inputs; nothing here is typed by hand. Column A is the "
                 "row's key, used by the Checks sheet and the tests.")
    header = 4
    styles.header_row(ws, header, ["key", "step", "unit",
                                   *(f"System {k}" for k in range(1, book.n + 1)), "how"])
    row = header
    for key, label, *_rest in ROWS:
        row += 1
        if key is None:
            styles.section_row(ws, row, label, how_col)
            continue
        book.put_row(SHEET, key, row)
    # second pass: formulas may point at rows further down
    for key, label, unit, template, how in ROWS:
        if key is None:
            continue
        row = book.row(SHEET, key)
        ws.cell(row=row, column=1, value=key).font = styles.KEY_FONT
        ws.cell(row=row, column=2, value=label)
        ws.cell(row=row, column=3, value=unit).font = styles.KEY_FONT
        for col in book.system_cols():
            cell = ws.cell(row=row, column=col, value=book.formula(template, SHEET, col))
            styles.style_formula(cell, unit)
            if key == "tco_per_gpu_hour":
                cell.font = styles.BOLD
        ws.cell(row=row, column=how_col, value=how).font = styles.NOTE_FONT
    styles.widths(ws, {1: 24, 2: 40, 3: 14, **{c: 16 for c in book.system_cols()}, how_col: 62})
    ws.freeze_panes = ws.cell(row=header + 1, column=book.system_col(1))
    styles.page_setup(ws, landscape=False, one_page=True)
