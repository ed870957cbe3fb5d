"""The Benchmarks sheet: the published training runs of udfs/data/runs.toml, recomputed.

For every run: tokens/s per GPU, cost per million tokens at the workbook's TCO for the run's system
and at the article's $1.42 per H100-hour, J/token and household-years for 300B tokens. Where the
source published a figure it stands beside ours with the relative difference, so a reader sees
which published numbers the model reproduces. FLOPs per token use the PaLM convention at the
model's preset sequence length, as the published figures do.
"""

from __future__ import annotations

from openpyxl.utils import get_column_letter

from udfs import presets
from workbook.xlsx import styles
from workbook.xlsx.book import BookBuilder
from workbook.xlsx.cells import as_text

SHEET = "Benchmarks"

# the TCO block at the top: key, label, unit, formula template ({c} = this column's letter)
TCO_ROWS = [
    ("bench_system", "System", "key", None),
    ("bench_capex_per_gpu", "All-in capex per GPU (preset x price level)", "USD",
     '=INDEX(sys_value,MATCH({c}{system}&".unit_all_in_usd",sys_id,0))'
     '/INDEX(sys_value,MATCH({c}{system}&".gpus_per_unit",sys_id,0))*use_capex_multiplier'),
    ("bench_capital_per_gpu_hour", "Capital per GPU-hour", "USD/GPU-h",
     "=-PMT(use_cost_of_capital,use_life_years,{c}{bench_capex_per_gpu},"
     "-use_residual_fraction*{c}{bench_capex_per_gpu})/k_hours_per_year"),
    ("bench_it_kw_per_gpu", "IT load per GPU", "kW",
     '=INDEX(sys_value,MATCH({c}{system}&".it_kw_per_gpu",sys_id,0))'),
    ("bench_opex_per_gpu_hour", "Opex per GPU-hour (power + facility + other)", "USD/GPU-h",
     "={c}{bench_it_kw_per_gpu}*use_pue*use_usd_per_kwh+{c}{bench_it_kw_per_gpu}"
     "*use_colo_usd_per_kw_month*k_months_per_year/k_hours_per_year+use_other_usd_per_gpu_hour"),
    ("bench_tco_per_gpu_hour", "TCO per GPU-hour", "USD/GPU-h",
     "={c}{bench_capital_per_gpu_hour}+{c}{bench_opex_per_gpu_hour}"),
    ("bench_utility_watts_per_gpu", "Utility power per GPU", "W",
     "={c}{bench_it_kw_per_gpu}*use_pue*k_watts_per_kw"),
]


def _lookup(field: str) -> str:
    return f'=INDEX(run_value,MATCH(<run>&".{field}",run_id,0))'


def _model(field: str) -> str:
    return f'INDEX(model_value,MATCH(<model>&".{field}",model_id,0))'


#: the run table's columns: key, heading, unit, formula template (<key> = that column, same row)
COLUMNS = [
    ("run", "Run (runs.toml key)", "key", None),
    ("label", "Run", "text", _lookup("label")),
    ("system", "System", "key", _lookup("system")),
    ("model", "Model", "key", _lookup("model")),
    ("precision", "Precision", "key", _lookup("precision")),
    ("gpus", "GPUs", "GPU", _lookup("gpus")),
    ("mfu", "MFU (published)", "fraction", _lookup("mfu")),
    ("peak_tflops", "Dense peak TFLOPS", "TFLOPS",
     '=INDEX(sys_value,MATCH(<system>&".peak_tflops_"&<precision>,sys_id,0))'),
    ("flops_per_token", "FLOPs per token (PaLM)", "FLOPs/token",
     f"=6*{_model('params')}+12*{_model('layers')}*{_model('d_model')}*{_model('seq_len')}"),
    ("tokens_per_gpu_second", "Tokens/s per GPU", "tokens/s/GPU",
     "=<mfu>*<peak_tflops>*k_flops_per_tflop/<flops_per_token>"),
    ("published_tokens_per_gpu_second", "published", "tokens/s/GPU", "published"),
    ("diff_tokens_per_gpu_second", "ours / published - 1", "rel. diff", "diff"),
    ("tco_per_gpu_hour", "Workbook TCO per GPU-hour", "USD/GPU-h",
     "=INDEX(bench_tco,MATCH(<system>,bench_systems,0))"),
    ("cost_per_mtok", "Cost per Mtok at workbook TCO", "USD/Mtok",
     "=<tco_per_gpu_hour>/(k_seconds_per_hour*<tokens_per_gpu_second>)*k_tokens_per_mtok"),
    ("cost_per_mtok_article", "Cost per Mtok at the article's $/GPU-h", "USD/Mtok",
     "=inp_article_usd_per_gpu_hour/(k_seconds_per_hour*<tokens_per_gpu_second>)"
     "*k_tokens_per_mtok"),
    ("published_usd_per_mtok", "published", "USD/Mtok", "published"),
    ("diff_usd_per_mtok", "ours at $/GPU-h / published - 1", "rel. diff", "diff"),
    ("utility_watts_per_gpu", "Utility W per GPU", "W",
     "=INDEX(bench_watts,MATCH(<system>,bench_systems,0))"),
    ("joules_per_token", "J per token", "J/token", "=<utility_watts_per_gpu>/<tokens_per_gpu_second>"),
    ("published_joules_per_token", "published", "J/token", "published"),
    ("diff_joules_per_token", "ours / published - 1", "rel. diff", "diff"),
    ("household_years", "Household-years for the benchmark tokens", "household-years",
     "=inp_bench_tokens*<joules_per_token>/(inp_kwh_per_household_year*k_joules_per_kwh)"),
    ("published_household_years", "published", "household-years", "published"),
    ("diff_household_years", "ours / published - 1", "rel. diff", "diff"),
    ("tokens_per_household_year", "Tokens per household-year", "tokens",
     "=inp_kwh_per_household_year*k_joules_per_kwh/<joules_per_token>"),
    ("published_tokens_per_household_year", "published", "tokens", "published"),
    ("diff_tokens_per_household_year", "ours / published - 1", "rel. diff", "diff"),
]
#: the value each published column is set against
COMPARED = {"tokens_per_gpu_second": "tokens_per_gpu_second", "usd_per_mtok": "cost_per_mtok_article",
            "joules_per_token": "joules_per_token", "household_years": "household_years",
            "tokens_per_household_year": "tokens_per_household_year"}


def published(run_key: str) -> dict[str, tuple[float, str]]:
    """Published figures of one run (the published_* entries of runs.toml): field -> (value, source)."""
    return {name.removeprefix("published_"): (e.value, e.source)
            for name, e in presets.catalog("run")[run_key].entries.items()
            if name.startswith("published_") and e.value is not None}


def build(book: BookBuilder) -> None:
    ws = book.wb.create_sheet(SHEET)
    styles.title(ws, "Benchmarks: published training runs recomputed by the model",
                 "Each published figure stands beside ours; the relative difference shows what the "
                 "model reproduces. FLOPs per token: PaLM at the model's preset sequence length.")
    runs = presets.catalog("run")
    systems = list(dict.fromkeys(p.texts["system"] for p in runs.values()))
    width = len(COLUMNS)

    row = 4
    styles.section_row(ws, row, "TCO of each benchmarked system at the workbook's buyer type "
                       "(Inputs; system presets, without the per-column overrides)", width)
    rows: dict[str, int] = {"system": row + 1}
    for i, (key, *_rest) in enumerate(TCO_ROWS):
        rows[key] = row + 1 + i
        book.put_row(SHEET, key, row + 1 + i)
    for key, label, unit, template in TCO_ROWS:
        r = rows[key]
        ws.cell(row=r, column=1, value=key).font = styles.KEY_FONT
        ws.cell(row=r, column=2, value=label)
        for j, system in enumerate(systems):
            col = 3 + j
            letter = get_column_letter(col)
            value = system if template is None else template.format(c=letter, **rows)
            cell = ws.cell(row=r, column=col, value=value)
            styles.style_formula(as_text(cell) if template is None else cell, unit)
    last = get_column_letter(2 + len(systems))
    book.define("bench_systems", ws, f"$C${rows['bench_system']}:${last}${rows['bench_system']}")
    for name, key in (("bench_tco", "bench_tco_per_gpu_hour"),
                      ("bench_watts", "bench_utility_watts_per_gpu")):
        book.define(name, ws, f"$C${rows[key]}:${last}${rows[key]}")
    row = rows[TCO_ROWS[-1][0]] + 2

    styles.section_row(ws, row, "Published runs", width)
    header = row + 1
    styles.header_row(ws, header, [heading for _, heading, _, _ in COLUMNS])
    ws.row_dimensions[header].height = 60
    col_of = {key: i for i, (key, *_rest) in enumerate(COLUMNS, start=1)}
    r = header
    for run_key in runs:
        r += 1
        pub = published(run_key)
        for key, _heading, unit, template in COLUMNS:
            col = col_of[key]
            value = _cell_value(key, template, run_key, pub, col_of, r)
            if value is None:
                continue
            cell = ws.cell(row=r, column=col, value=value)
            if template is None:  # the run's key: data, so text even if it starts with "="
                as_text(cell)
            styles.style_formula(cell, unit)
            if key == "run":
                cell.font = styles.KEY_FONT
            if key.startswith("published_"):
                cell.font = styles.BOLD
    book.rows[SHEET]["_runs"] = header + 1

    styles.widths(ws, {1: 27, 2: 56, **{c: 12 for c in range(3, width + 1)}})
    styles.widths(ws, {col_of[k]: 16 for k in ("flops_per_token", "tokens_per_household_year",
                                                 "published_tokens_per_household_year")})
    ws.freeze_panes = ws.cell(row=header + 1, column=3)
    styles.page_setup(ws, landscape=True, one_page=True)


def _cell_value(key, template, run_key, pub, col_of, row):
    """The formula (or literal) for one cell of the run table; None leaves it empty."""
    if template is None:
        return run_key
    if template == "published":
        field = key.removeprefix("published_")
        if field not in pub:
            return None
        return _expand(_lookup(key), col_of, row, run_key)
    if template == "diff":
        field = key.removeprefix("diff_")
        if field not in pub:
            return None
        ours = COMPARED[field]
        return _expand(f"=<{ours}>/<published_{field}>-1", col_of, row, run_key)
    return _expand(template, col_of, row, run_key)


def _expand(template: str, col_of: dict[str, int], row: int, run_key: str) -> str:
    out = template
    for key, col in sorted(col_of.items(), key=lambda kv: -len(kv[0])):
        out = out.replace(f"<{key}>", f"{get_column_letter(col)}{row}")
    return out
