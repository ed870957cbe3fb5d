"""The Benchmarks sheet's block of published mixture-of-experts training runs, recomputed in native
formulas (udfs/data/training_facts.toml; Python: :func:`gputco.udfs.published.training_facts`).

Per published run (DeepSeek-V3 on H800, Llama 4 Scout and Maverick and gpt-oss-120b on H100): the
published tokens, GPU-hours, rental rate and cost stand in blue cells; everything else is a formula
that references them, the presets and the workbook's inputs:

- implied tokens/s per GPU = tokens / (GPU-hours x 3600);
- MFU at the system's FP8 and BF16 dense peaks, with the PaLM count (the workbook's convention for
  published figures) and with plain 6 x active parameters;
- the cost at the published $/GPU-hour (DeepSeek: 2.788M x $2 = $5.576M) beside the published cost;
- the cost at the workbook's TCO per GPU-hour of the run's system (the TCO block at the top);
- energy from the GPU-hours at the system's utility watts per GPU (IT load x PUE): J per GPU-hour,
  J per token, household-years and CO2 at the grid factor used on Inputs.

Every formula comes from :mod:`gputco.udfs.chain`: the implied throughput is the chain's GPU-hours at one
token per second over the published GPU-hours, the MFU the implied throughput over the chain's
throughput at MFU 1, the energy the chain's J/token, household-years and CO2 steps read per
GPU-hour.

A quantity the developer did not publish (gpt-oss's tokens, Meta's price) leaves the cells that
need it empty.
"""

from __future__ import annotations

from openpyxl.utils import get_column_letter

from gputco.udfs import chain, presets
from gputco.workbook.xlsx import styles
from gputco.workbook.xlsx.cells import as_text
from gputco.workbook.xlsx.presets_sheet import lookup

#: published quantities written as (blue) values: key, heading, unit, training_facts.toml field
PUBLISHED = [
    ("tokens", "Tokens (published)", "tokens", "tokens"),
    ("gpu_hours", "GPU-hours (published)", "GPU-hours", "gpu_hours"),
    ("usd_per_gpu_hour", "Rental rate (published)", "USD/GPU-h", "usd_per_gpu_hour"),
    ("published_usd", "Cost (published)", "USD", "published_usd"),
]


def _model(field: str) -> str:
    return lookup(chain.Preset("model", field), {"model": "<model>"})


def _peak(precision: str) -> str:
    return f'=INDEX(sys_value,MATCH(<system>&".peak_tflops_{precision}",sys_id,0))'


def _gpu_hours(tokens: str, tokens_per_gpu_second: str) -> str:
    """The chain's GPU-hours of ``tokens`` at a throughput (goodput 1), without the "="."""
    return chain.formula(
        "training_gpu_hours",
        {"tokens": tokens, "goodput": "1", "tokens_per_gpu_second": tokens_per_gpu_second}.get,
    )[1:]


def _mfu(flops: str, peak: str) -> str:
    """Implied MFU = implied throughput / the chain's throughput at MFU 1 (the dense peak)."""
    at_peak = chain.formula(
        "tokens_per_gpu_second", {"mfu": "1", "peak_tflops": f"<{peak}>", "flops_per_token": f"<{flops}>"}.get
    )[1:]
    return f"=<tokens_per_gpu_second>/({at_peak})"


def _energy(step: str, per_unit: str) -> str:
    """A chain energy step (household-years, CO2) of the GPU-hours at J per GPU-hour."""
    return chain.formula(
        step,
        {
            "tokens": "<gpu_hours>",
            "joules_per_token": "<joules_per_gpu_hour>",
            "kwh_per_household_year": per_unit,
            "kg_co2_per_kwh": per_unit,
        }.get,
    )


#: computed columns: key, heading, unit, formula template (<key> = that column, same row), the
#: published inputs it needs (empty cell without them)
COMPUTED = [  # the headline results first: they fit on a printed page
    (
        "tokens_per_gpu_second",
        "Implied tokens/s per GPU",
        "tokens/s/GPU",
        f"=({_gpu_hours('<tokens>', '1')})/<gpu_hours>",
        ("tokens",),
    ),  # GPU-hours at 1 token/s
    ("mfu_fp8_6n", "MFU at FP8 peak (6N)", "fraction", _mfu("flops_6n", "peak_fp8"), ("tokens",)),
    ("mfu_bf16_6n", "MFU at BF16 peak (6N)", "fraction", _mfu("flops_6n", "peak_bf16"), ("tokens",)),
    (
        "usd_at_published_rate",
        "Cost at the published rate",
        "USD",
        "=<gpu_hours>*<usd_per_gpu_hour>",
        ("usd_per_gpu_hour",),
    ),
    (
        "diff_published_usd",
        "ours / published - 1",
        "rel. diff",
        "=<usd_at_published_rate>/<published_usd>-1",
        ("usd_per_gpu_hour", "published_usd"),
    ),
    ("usd_at_tco", "Cost at the workbook TCO", "USD", "=<gpu_hours>*<tco_usd_per_gpu_hour>", ()),
    (
        "joules_per_token",
        "J per token",
        "J/token",
        chain.formula(
            "joules_per_token",
            {
                "utility_watts_per_gpu": "<utility_watts_per_gpu>",
                "tokens_per_gpu_second": "<tokens_per_gpu_second>",
                "goodput": "1",
            }.get,
        ),
        ("tokens",),
    ),
    (
        "household_years",
        "Household-years (GPU-hours x W)",
        "household-years",
        _energy("household_years", "inp_kwh_per_household_year"),
        (),
    ),
    ("co2_tonnes", "t CO2 (grid factor used)", "t CO2", _energy("co2_tonnes", "inp_kg_co2_per_kwh"), ()),
    (
        "tco_usd_per_gpu_hour",
        "Workbook TCO per GPU-hour",
        "USD/GPU-h",
        "=INDEX(bench_tco,MATCH(<system>,bench_systems,0))",
        (),
    ),
    (
        "utility_watts_per_gpu",
        "Utility W per GPU",
        "W",
        "=INDEX(bench_watts,MATCH(<system>,bench_systems,0))",
        (),
    ),
    (
        "joules_per_gpu_hour",
        "J per GPU-hour",
        "J",  # the chain's J/token at 1 token per GPU-hour
        chain.formula(
            "joules_per_token",
            {
                "utility_watts_per_gpu": "<utility_watts_per_gpu>",
                "tokens_per_gpu_second": f"({_gpu_hours('1', '1')})",
                "goodput": "1",
            }.get,
        ),
        (),
    ),
    ("mfu_fp8", "MFU at FP8 peak (PaLM)", "fraction", _mfu("flops_palm", "peak_fp8"), ("tokens",)),
    ("mfu_bf16", "MFU at BF16 peak (PaLM)", "fraction", _mfu("flops_palm", "peak_bf16"), ("tokens",)),
    ("flops_palm", "FLOPs per token (PaLM)", "FLOPs/token", chain.formula("flops_palm", _model), ()),
    ("flops_6n", "FLOPs per token (6N)", "FLOPs/token", chain.formula("flops_6n", _model), ()),
    ("peak_fp8", "FP8 dense peak", "TFLOPS", _peak("fp8"), ()),
    ("peak_bf16", "BF16 dense peak", "TFLOPS", _peak("bf16"), ()),
]

#: every column of the block, in order: key, heading, unit
COLUMNS = [
    ("fact", "Published run (training_facts.toml key)", "key"),
    ("label", "Run", "text"),
    ("system", "System", "key"),
    ("model", "Model", "key"),
    *((k, h, u) for k, h, u, _f in PUBLISHED),
    *((k, h, u) for k, h, u, _t, _n in COMPUTED),
]


def systems() -> list[str]:
    """The systems the facts ran on (they need a column in the TCO block)."""
    return list(dict.fromkeys(f.texts["system"] for f in presets.catalog("training_fact").values()))


def build(ws, row: int) -> int:
    """Write the block from ``row`` (its section heading); returns its last row."""
    styles.section_row(
        ws,
        row,
        "Published mixture-of-experts training runs recomputed (udfs/data/"
        "training_facts.toml): implied throughput and MFU, the published cost, the "
        "cost at the workbook's TCO, energy at the system's utility watts",
        12,
    )
    header = row + 1
    styles.header_row(ws, header, [h for _k, h, _u in COLUMNS])
    ws.row_dimensions[header].height = 60
    col_of = {key: i for i, (key, *_rest) in enumerate(COLUMNS, start=1)}
    r = header
    for key, fact in presets.catalog("training_fact").items():
        r += 1
        as_text(ws.cell(row=r, column=col_of["fact"], value=key)).font = styles.KEY_FONT
        for name in ("label", "system", "model"):
            as_text(ws.cell(row=r, column=col_of[name], value=fact.texts[name]))
        given = set()
        for k, _h, unit, field in PUBLISHED:
            entry = fact.entries.get(field)
            if entry is not None and entry.value is not None:
                cell = ws.cell(row=r, column=col_of[k], value=entry.value)
                styles.style_input(cell, unit)
                if k == "tokens":  # 14.8e12 in a 12-wide column: trillions
                    cell.number_format = '#,##0.0,,,," T"'
                given.add(k)
        for k, _h, unit, template, needs in COMPUTED:
            if not set(needs) <= given:
                continue
            cell = ws.cell(row=r, column=col_of[k], value=_expand(template, col_of, r))
            styles.style_formula(cell, unit)
    return r


def _expand(template: str, col_of: dict[str, int], row: int) -> str:
    """A fact column's template for ``row``: ``<key>`` the row's cell of column ``key``, through
    the chain's one expander."""
    return chain.expand(
        template, lambda n: f"[{n}]", lambda key, _at: f"{get_column_letter(col_of[key])}{row}"
    )
