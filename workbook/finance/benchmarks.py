"""The Benchmarks sheet: the published training runs of udfs/data/runs.toml, recomputed.

For every run: tokens/s per GPU, cost per million tokens at the workbook's TCO for the run's system
and at the article's $1.42 per H100-hour, J/token and household-years for 300B tokens. Where the
source published a figure it stands beside ours with the relative difference, so a reader sees
which published numbers the model reproduces. FLOPs per token use the PaLM convention at the
model's preset sequence length, as the published figures do.
"""

from __future__ import annotations

from openpyxl.styles import Alignment
from openpyxl.utils import get_column_letter

from gputco.udfs import chain, presets
from gputco.udfs.calibration import calibration_table
from gputco.udfs.published import speedup_table
from gputco.workbook.finance import bench_facts
from gputco.workbook.xlsx import styles
from gputco.workbook.xlsx.book import BookBuilder
from gputco.workbook.xlsx.cells import as_text
from gputco.workbook.xlsx.presets_sheet import lookup

SHEET = "Benchmarks"

#: what the TCO block at the top computes per benchmarked system (the chain's steps up to them)
TCO_KEYS = ("tco_usd_per_gpu_hour", "utility_watts_per_gpu")


def tco_rows() -> list[tuple[str, str, str, str | None]]:
    """The TCO block: (key, label, unit, kind) with kind None (the system), "input" or "step"."""
    inputs = [k for k in chain.inputs_of(TCO_KEYS) if chain.get_input(k).scope == "system"]
    return [
        ("bench_system", "System", "key", None),
        *(
            (f"bench_{k}", chain.get_input(k).label + " (preset)", chain.get_input(k).unit, "input")
            for k in inputs
        ),
        *((f"bench_{s.key}", s.label, s.unit, "step") for s in chain.closure(TCO_KEYS)),
    ]


def _tco_formula(key: str, kind: str, letter: str, rows: dict[str, int]) -> str:
    """A cell of the TCO block: presets of the column's system at the workbook's buyer values."""
    name = key.removeprefix("bench_")
    if kind == "input":
        system = {"system": f"{letter}${rows['bench_system']}"}
        return "=" + "*".join(
            lookup(p, system) if p.table == "system" else f"use_{p.field}"
            for p in chain.get_input(name).presets
        )

    def ref(q: str) -> str | None:
        if f"bench_{q}" in rows:
            return f"{letter}{rows[f'bench_{q}']}"
        return f"use_{q}" if not chain.is_step(q) else None

    return chain.formula(name, ref)


def _run_ref(q: str, **named: str) -> str | None:
    """A quantity of the run table: a column (<key>), a named cell, or 1 for availability,
    utilisation and goodput (published runs are priced as the article does: every hour up, used
    and kept); the delivered cost has no column, so the chain inlines it (TCO / (1 x 1))."""
    if q in named:
        return named[q]
    if q in ("availability", "utilisation", "goodput"):
        return "1"
    return None if q == "delivered_usd_per_gpu_hour" else f"<{q}>"


def _lookup(field: str) -> str:
    return f'=INDEX(run_value,MATCH(<run>&".{field}",run_id,0))'


def _model(field: str) -> str:
    return lookup(chain.Preset("model", field), {"model": "<model>"})


def _published(key: str, unit: str, diff: str = "ours / published - 1") -> list[tuple[str, str, str, str]]:
    """The two columns beside one of ours: the published figure and the relative difference."""
    return [(f"published_{key}", "published", unit, "published"), (f"diff_{key}", diff, "rel. diff", "diff")]


#: the run table's columns: key, heading, unit, formula template (<key> = that column, same row)
COLUMNS = [
    ("run", "Run (runs.toml key)", "key", None),
    ("label", "Run", "text", _lookup("label")),
    ("system", "System", "key", _lookup("system")),
    ("model", "Model", "key", _lookup("model")),
    ("precision", "Precision", "key", _lookup("precision")),
    ("gpus", "GPUs", "GPU", _lookup("gpus")),
    ("mfu", "MFU (published)", "fraction", _lookup("mfu")),
    (
        "peak_tflops",
        "Dense peak TFLOPS",
        "TFLOPS",
        '=INDEX(sys_value,MATCH(<system>&".peak_tflops_"&<precision>,sys_id,0))',
    ),
    (
        "flops_per_token",
        "FLOPs per token (PaLM)",
        "FLOPs/token",
        chain.formula("flops_palm", lambda q: _model(q)),
    ),
    (
        "tokens_per_gpu_second",
        "Tokens/s per GPU",
        "tokens/s/GPU",
        chain.formula("tokens_per_gpu_second", lambda q: f"<{q}>"),
    ),
    *_published("tokens_per_gpu_second", "tokens/s/GPU"),
    (
        "tco_usd_per_gpu_hour",
        "Workbook TCO per GPU-hour",
        "USD/GPU-h",
        "=INDEX(bench_tco,MATCH(<system>,bench_systems,0))",
    ),
    ("cost_per_mtok", "Cost per Mtok at workbook TCO", "USD/Mtok", chain.formula("usd_per_mtok", _run_ref)),
    (
        "cost_per_mtok_article",
        "Cost per Mtok at the article's $/GPU-h",
        "USD/Mtok",
        chain.formula(
            "usd_per_mtok", lambda q: _run_ref(q, tco_usd_per_gpu_hour="inp_article_usd_per_gpu_hour")
        ),
    ),
    *_published("usd_per_mtok", "USD/Mtok", "ours at $/GPU-h / published - 1"),
    (
        "utility_watts_per_gpu",
        "Utility W per GPU",
        "W",
        "=INDEX(bench_watts,MATCH(<system>,bench_systems,0))",
    ),
    ("joules_per_token", "J per token", "J/token", chain.formula("joules_per_token", _run_ref)),
    *_published("joules_per_token", "J/token"),
    (
        "household_years",
        "Household-years for the benchmark tokens",
        "household-years",
        chain.formula(
            "household_years",
            lambda q: (
                {"tokens": "inp_bench_tokens"}.get(q, f"inp_{q}")
                if q != "joules_per_token"
                else "<joules_per_token>"
            ),
        ),
    ),
    *_published("household_years", "household-years"),
    (
        "tokens_per_household_year",
        "Tokens per household-year",
        "tokens",
        chain.formula(
            "tokens_per_household_year", lambda q: f"inp_{q}" if q == "kwh_per_household_year" else f"<{q}>"
        ),
    ),
    *_published("tokens_per_household_year", "tokens"),
]
#: the value each published column is set against
COMPARED = {
    "tokens_per_gpu_second": "tokens_per_gpu_second",
    "usd_per_mtok": "cost_per_mtok_article",
    "joules_per_token": "joules_per_token",
    "household_years": "household_years",
    "tokens_per_household_year": "tokens_per_household_year",
}


def published(run_key: str) -> dict[str, tuple[float, str]]:
    """Published figures of one run (the published_* entries of runs.toml): field -> (value, source)."""
    return {
        name.removeprefix("published_"): (e.value, e.source)
        for name, e in presets.catalog("run")[run_key].entries.items()
        if name.startswith("published_") and e.value is not None
    }


def build(book: BookBuilder) -> None:
    ws = book.wb.create_sheet(SHEET)
    styles.title(
        ws,
        "Benchmarks: published training runs recomputed by the model",
        "Each published figure stands beside ours; the relative difference shows what the "
        "model reproduces. FLOPs per token: PaLM at the model's preset sequence length.",
    )
    runs = presets.catalog("run")
    calibration = calibration_table()
    systems = list(
        dict.fromkeys(
            [
                *(p.texts["system"] for p in runs.values()),
                *(row[0] for row in calibration[1:]),
                *bench_facts.systems(),
            ]
        )
    )
    width = len(COLUMNS)

    row = 4
    styles.section_row(
        ws,
        row,
        "TCO of each benchmarked system at the workbook's buyer type "
        "(Inputs; system presets, without the per-column overrides)",
        width,
    )
    block = tco_rows()
    rows: dict[str, int] = {}
    for i, (key, *_rest) in enumerate(block):
        rows[key] = row + 1 + i
        book.put_row(SHEET, key, row + 1 + i)
    for key, label, unit, kind in block:
        r = rows[key]
        ws.cell(row=r, column=1, value=key).font = styles.KEY_FONT
        ws.cell(row=r, column=2, value=label)
        for j, system in enumerate(systems):
            col = 3 + j
            letter = get_column_letter(col)
            value = system if kind is None else _tco_formula(key, kind, letter, rows)
            cell = ws.cell(row=r, column=col, value=value)
            styles.style_formula(as_text(cell) if kind is None else cell, unit)
            if kind is None:  # keys as long as the column is wide (GB300_NVL72): keep them apart
                cell.alignment = Alignment(horizontal="right", shrink_to_fit=True)
    last = get_column_letter(2 + len(systems))
    book.define("bench_systems", ws, f"$C${rows['bench_system']}:${last}${rows['bench_system']}")
    for name, key in (
        ("bench_tco", "bench_tco_usd_per_gpu_hour"),
        ("bench_watts", "bench_utility_watts_per_gpu"),
    ):
        book.define(name, ws, f"$C${rows[key]}:${last}${rows[key]}")
    row = rows[block[-1][0]] + 2

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
    row = _calibration_block(ws, r + 3, calibration)
    row = _speedup_block(ws, row + 2)
    bench_facts.build(ws, row + 3)

    styles.widths(ws, {1: 27, 2: 56, **{c: 12 for c in range(3, width + 1)}, 3: 14})  # C: GB200_NVL72
    styles.widths(
        ws,
        {
            col_of[k]: 16
            for k in ("flops_per_token", "tokens_per_household_year", "published_tokens_per_household_year")
        },
    )
    ws.freeze_panes = ws.cell(row=header + 1, column=3)
    styles.page_setup(ws, landscape=True, one_page=True)


def _speedup_refs(r: int) -> dict[str, str]:
    """The operands of the chain's comparisons for a published run in row ``r``: measured
    tokens/s (D) against H100's (E), every hour delivered and kept (goodput 1), the workbook's
    TCO per GPU-hour of the run's system (B) and of H100."""
    this = {
        "tokens_per_gpu_second": f"D{r}",
        "delivered_usd_per_gpu_hour": _ours(f"$B{r}"),
        "goodput": "1",
    }
    ref = {
        "tokens_per_gpu_second": f"E{r}",
        "delivered_usd_per_gpu_hour": _ours(f'"{presets.REFERENCE_SYSTEM}"'),
        "goodput": "1",
    }
    out = {**this, **{chain.REF_PREFIX + k: v for k, v in ref.items()}}
    cost = {
        side: "(" + chain.formula("usd_per_mtok", values.get)[1:] + ")"
        for side, values in (("", this), ("ref", ref))
    }
    out.update(speedup=f"F{r}", breakeven_speedup=f"G{r}", cost_per_mtok_ratio=f"{cost['']}/{cost['ref']}")
    return out


def _ours(system_cell: str) -> str:
    return f"INDEX(bench_tco,MATCH({system_cell},bench_systems,0))"


def _calibration_block(ws, row: int, table: list[list]) -> int:
    """Each chip's published TCO per GPU-hour (SemiAnalysis, hyperscaler, 2026-07) beside the
    workbook's (the TCO block above), as ratios to H100; returns the last row."""
    styles.section_row(
        ws,
        row,
        "Calibration: SemiAnalysis's published hyperscaler TCO per "
        "GPU-hour (InferenceX-app gpu-keys.ts, July 2026; udfs/data/"
        "inferencex_tco.toml) beside the workbook's, as ratios to H100 "
        "(fitted: the price was chosen to match; validation: an independent price)",
        9,
    )
    heads = [
        "system",
        "published USD/GPU-h",
        "published ratio",
        "workbook USD/GPU-h",
        "workbook ratio",
        "ratio difference",
        "price",
    ]
    styles.header_row(ws, row + 1, heads)
    ws.row_dimensions[row + 1].height = 30
    first = row + 2
    ref = next(i for i, r in enumerate(table[1:]) if r[0] == "H100_HGX") + first
    for i, (system, published, *_rest, kind) in enumerate(table[1:]):
        r = first + i
        as_text(ws.cell(row=r, column=1, value=system)).font = styles.KEY_FONT
        styles.style_input(ws.cell(row=r, column=2, value=published), "USD/GPU-h")
        cells = [f"=B{r}/$B${ref}", f"={_ours(f'$A{r}')}", f"=D{r}/$D${ref}", f"=E{r}/C{r}-1"]
        for j, (text, unit) in enumerate(zip(cells, ("x", "USD/GPU-h", "x", "rel. diff"), strict=True)):
            styles.style_formula(ws.cell(row=r, column=3 + j, value=text), unit)
        ws.cell(row=r, column=7, value=kind).font = styles.NOTE_FONT
    return first + len(table) - 2


def _speedup_block(ws, row: int) -> int:
    """Per model, each system's published per-GPU speed-up over H100 (NVIDIA's training tables)
    beside its break-even speed-up (the workbook's TCO ratio) and the verdict."""
    table = speedup_table()
    head = table[0]
    styles.section_row(
        ws,
        row,
        "Is it faster enough? Published per-GPU speed-up over H100 "
        "(NVIDIA Megatron-Bridge performance tables, udfs/data/runs.toml) beside "
        "the break-even speed-up (the workbook's TCO ratio)",
        9,
    )
    styles.header_row(
        ws,
        row + 1,
        [
            "model",
            "system",
            "run",
            "tokens/s per GPU",
            "H100 tokens/s per GPU",
            "speed-up",
            "break-even speed-up",
            "verdict",
        ],
    )
    ws.row_dimensions[row + 1].height = 45
    r = row + 1
    for values in table[1:]:
        d = dict(zip(head, values, strict=True))
        r += 1
        as_text(ws.cell(row=r, column=1, value=d["model"])).font = styles.KEY_FONT
        as_text(ws.cell(row=r, column=2, value=d["system"]))
        as_text(ws.cell(row=r, column=3, value=d["run"])).font = styles.NOTE_FONT
        styles.style_input(ws.cell(row=r, column=4, value=d["tokens_per_gpu_second"]), "tokens/s/GPU")
        styles.style_input(ws.cell(row=r, column=5, value=d["h100_tokens_per_gpu_second"]), "tokens/s/GPU")
        ref = _speedup_refs(r)
        for col, key in ((6, "speedup"), (7, "breakeven_speedup"), (8, "verdict")):
            cell = ws.cell(row=r, column=col, value=chain.comparison_formula(key, ref.get))
            if key != "verdict":
                styles.style_formula(cell, "x")
    return r


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
    """A run column's template for ``row``: ``<key>`` the run's cell of column ``key``, through
    the chain's one expander."""
    return chain.expand(
        template, lambda n: f"[{n}]", lambda key, _at: f"{get_column_letter(col_of[key])}{row}"
    )
