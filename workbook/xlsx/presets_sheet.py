"""The Presets sheet: every preset value of udfs/data/*.toml as an Excel table, one row per value
with its unit, source and as-of date, plus the lists the drop-downs on Inputs use.

The tables are "long": one row per (preset, field), keyed by an ``id`` column ``<preset>.<field>``
(e.g. ``H100_HGX.it_kw_per_gpu``), so one INDEX/MATCH finds any value:
``=INDEX(sys_value, MATCH(inp_system_1 & ".it_kw_per_gpu", sys_id, 0))``.
Derived fields (``capex_per_gpu``) are not listed: the Inputs sheet computes them by formula.
"""

from __future__ import annotations

from collections.abc import Mapping

from openpyxl.utils import get_column_letter
from openpyxl.worksheet.table import Table, TableStyleInfo

from gputco.udfs import chain, curves, presets
from gputco.udfs.compute import CONVENTIONS
from gputco.workbook.xlsx import styles
from gputco.workbook.xlsx.book import BookBuilder
from gputco.workbook.xlsx.cells import put

#: name prefix of each table's lookup columns, its table name and its heading
TABLES = {
    "system": ("sys", "tbl_systems", "Systems (udfs/data/systems.toml)"),
    "buyer": ("buyer", "tbl_buyers", "Buyer types (udfs/data/buyers.toml)"),
    "model": ("model", "tbl_models", "Models (udfs/data/models.toml)"),
    "run": ("run", "tbl_runs", "Published benchmark runs (udfs/data/runs.toml)"),
    "serving": (
        "serve",
        "tbl_serving",
        "Published serving throughputs per GPU (udfs/data/"
        "serving.toml): SemiAnalysis InferenceX, highest-throughput point, 8k in / 1k out",
    ),
    "grid": ("grid", "tbl_grid", "Grid CO2 emission factors (udfs/data/grid_factors.toml)"),
    "finance": (
        "fin",
        "tbl_finance",
        "Finance presets (udfs/data/finance.toml; docs/finance-presets.md): rent index points and "
        "paths, resale prices, value curves (t0, t1, ...: factors by year), the SOFR path, spreads by "
        "credit grade, loan and advance rates, PUE caps, colocation, power prices; basis = measured, "
        "derived or assumption",
    ),
}
COLUMNS = ("id", "preset", "field", "value", "unit", "source", "as_of")
#: the data file of each table
FILES = {**presets.KINDS, **presets.TABLES}
#: fields computed from others, left to formulas
DERIVED = {"system": {"capex_per_gpu"}}


def lookup(p: chain.Preset, key: Mapping[str, str], column: str = "value") -> str:
    """The formula text that looks up preset value ``p`` on this sheet's tables (or another
    ``column`` of its row: its unit, source or as-of date).

    ``key`` gives the reference of each text input it needs ("system", "buyer", "model",
    "precision"): a cell, a column reference or a name. A derived field is computed from the
    fields it comes from (capex per GPU = all-in unit price / GPUs per unit).

    >>> lookup(chain.Preset("buyer", "pue"), {"buyer": "$B6"})
    'INDEX(buyer_value,MATCH($B6&".pue",buyer_id,0))'
    >>> lookup(chain.Preset("system", "peak_tflops_{precision}"), {"system": "C5", "precision": "P"})
    'INDEX(sys_value,MATCH(C5&".peak_tflops_"&P,sys_id,0))'
    """
    if column not in COLUMNS:
        raise ValueError(f"column must be one of {', '.join(COLUMNS)}, not {column!r}")
    prefix = TABLES[p.table][0]
    if p.table == "system" and p.field == "capex_per_gpu":
        return (
            f"{lookup(chain.Preset('system', 'unit_all_in_usd'), key)}"
            f"/{lookup(chain.Preset('system', 'gpus_per_unit'), key)}"
        )
    if "{precision}" in p.field:
        head = p.field.split("{precision}")[0]
        what = f'{key[p.table]}&".{head}"&{key["precision"]}'
    else:
        what = f'{key[p.table]}&".{p.field}"'
    return f"INDEX({prefix}_{column},MATCH({what},{prefix}_id,0))"


#: drop-down lists: defined name -> (heading, values)
LISTS = {
    "list_systems": ("System", lambda: list(presets.catalog("system"))),
    "list_buyers": ("Buyer type", lambda: list(presets.catalog("buyer"))),
    "list_models": ("Model", lambda: list(presets.catalog("model"))),
    "list_precisions": ("Precision", lambda: list(presets.PRECISIONS)),
    "list_conventions": ("FLOPs convention", lambda: list(CONVENTIONS)),
    "list_serving": ("Serving benchmark", presets.serving_benchmarks),
    "list_grids": ("Grid region", lambda: list(presets.catalog("grid"))),
}


def build(book: BookBuilder) -> None:
    ws = book.wb.create_sheet("Presets")
    styles.title(
        ws,
        "Presets: every value with its unit, source and date",
        "From the TOML files in udfs/data/ of gputco. 'assumption' in a source marks a value "
        "that is not a published figure. Inputs looks values up here with INDEX/MATCH on id.",
    )
    row = 4
    styles.section_row(ws, row, "Lists for the drop-downs on Inputs", len(COLUMNS))
    row += 1
    lists = {name: values() for name, (_, values) in LISTS.items()}
    styles.header_row(ws, row, [heading for heading, _ in LISTS.values()])
    for col, (name, values) in enumerate(lists.items(), start=1):
        for i, v in enumerate(values):
            put(ws, row + 1 + i, col, v)  # preset keys: text even if one begins with "="
        letter = get_column_letter(col)
        book.define(name, ws, f"${letter}${row + 1}:${letter}${row + len(values)}")
    row += max(len(v) for v in lists.values()) + 2

    for kind, (prefix, table_name, heading) in TABLES.items():
        row = _table(book, ws, kind, prefix, table_name, heading, row) + 2

    styles.widths(ws, {1: 36, 2: 26, 3: 30, 4: 14, 5: 22, 6: 100, 7: 11})
    ws.freeze_panes = "A4"
    styles.page_setup(ws, one_page=False)


def _table(book: BookBuilder, ws, kind: str, prefix: str, table_name: str, heading: str, row: int) -> int:
    """Write one long table starting at ``row``; return its last row."""
    styles.section_row(ws, row, heading, len(COLUMNS))
    header = row + 1
    styles.header_row(ws, header, list(COLUMNS))
    r = header
    for key, p in presets.catalog(kind).items():
        for name, text in p.texts.items():
            r += 1
            _write(ws, r, [f"{key}.{name}", key, name, text, "text", f"udfs/data/{FILES[kind]}", None])
        if kind == "finance" and p.texts["group"] in presets.CURVE_GROUPS:
            r += 1  # the curve as the text a curve input takes (udfs/curves.py reads it)
            factors = curves.text(presets.finance_curve(p.texts["group"], key))
            _write(ws, r, [f"{key}.factors", key, "factors", factors, "text", "t0, t1, ... below", None])
        for name, e in p.entries.items():
            if name in DERIVED.get(kind, ()):
                continue
            r += 1
            _write(ws, r, [f"{key}.{name}", key, name, e.value, e.unit, e.source, e.as_of])
    ref = f"A{header}:{get_column_letter(len(COLUMNS))}{r}"
    table = Table(displayName=table_name, ref=ref)
    table.tableStyleInfo = TableStyleInfo(name="TableStyleLight9", showRowStripes=True)
    ws.add_table(table)
    for i, col in enumerate(COLUMNS, start=1):
        letter = get_column_letter(i)
        book.define(f"{prefix}_{col}", ws, f"${letter}${header + 1}:${letter}${r}")
    return r


def _write(ws, row: int, values: list) -> None:
    for col, v in enumerate(values, start=1):
        c = put(ws, row, col, v)  # labels, units and sources are data: text, never formulas
        if COLUMNS[col - 1] == "as_of" and v is not None:
            c.number_format = "yyyy-mm-dd"
        elif COLUMNS[col - 1] == "value" and isinstance(v, float):
            c.number_format = "General"
