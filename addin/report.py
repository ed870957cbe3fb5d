"""Plain-text reports for the terminal. Numbers come from udfs; this module only lays them out."""

from __future__ import annotations

from gputco import udfs
from gputco.udfs import chain, presets
from gputco.udfs._check import parameters


def _split(names: str | list[str]) -> list[str]:
    items = names.split(",") if isinstance(names, str) else list(names)
    keys = [presets.system(n.strip()).key for n in items if n.strip()]
    if not keys:
        raise udfs.MissingValueError("systems", "name at least one system preset")
    return keys


def per_system(option: str, arg: str, given, n: int, what: str = "value") -> list[float] | None:
    """One value per system from a CLI option: a single value (every system) or one per system
    separated by commas ("0.54,0.40"), each checked against the range of ``arg``; None if not given."""
    from gputco.udfs import _check as chk

    if given is None:
        return None
    if isinstance(given, str):
        try:
            items = [float(x) for x in given.split(",")]
        except ValueError:
            raise udfs.InputTypeError(
                option, given, "one number, or one per system separated by commas (0.54,0.40)"
            ) from None
    else:
        items = list(given) if isinstance(given, list | tuple) else [float(given)]
    if len(items) not in (1, n):
        raise udfs.InputRangeError(
            option, ",".join(map(str, items)), f"a list of one {what} or {n} (one per system)"
        )
    try:
        values = [float(chk.checked(arg, x)) for x in items]
    except udfs.InputRangeError as err:
        raise udfs.InputRangeError(option, err.value, err.valid) from None
    return values * n if len(values) == 1 else values


def mfu_list(mfu, n: int) -> list[float]:
    """One MFU per system: a single value (every system) or one per system ("0.54,0.40")."""
    return per_system("--mfu", "mfu", mfu, n, "MFU")


def default_mfus(keys: list[str], precision: str) -> tuple[list[float], list[str]]:
    """Each system's default MFU at the precision and where it comes from (``measured: <run>``
    or ``assumed``: the H100 figure), :func:`gputco.udfs.presets.default_mfu`."""
    entries = [presets.default_mfu(k, precision) for k in keys]
    return [e.value for e in entries], [presets.mfu_source(e) for e in entries]


#: the per-system options of ``gputco compare``: option, scenario input
PER_SYSTEM = (
    ("--rent", "rent_usd_per_gpu_hour"),
    ("--availability", "availability"),
    ("--utilisation", "utilisation"),
    ("--goodput", "goodput"),
    ("--gpus", "gpus"),
    ("--debt-fraction", "debt_fraction"),
    ("--debt-rate", "debt_rate"),
    ("--debt-years", "debt_years"),
    ("--covenant-dscr", "covenant_dscr"),
)


def _given(option: str) -> str:
    """The keyword of a per-system option: ``--debt-fraction`` -> ``debt_fraction``."""
    return option[2:].replace("-", "_")


#: rows of the comparison: (key, label), the key one of the chain's outputs, inputs or comparisons
#: and the unit the chain's; (key, label, unit) for the rest
_COST_ROWS = (
    ("capex_per_gpu", "All-in capex per GPU"),
    ("price_source", "Price source", "text"),
    ("capital_usd_per_gpu_hour", "Capital"),
    ("power_usd_per_gpu_hour", "Power"),
    ("facility_usd_per_gpu_hour", "Facility (colocation)"),
    ("other_usd_per_gpu_hour", "Other"),
    ("tco_usd_per_gpu_hour", "TCO"),
    ("opex_usd_per_gpu_hour", "Opex (power+facility+other)"),
    ("tco_ratio", "TCO ratio vs {ref}"),
    ("capex_ratio", "Capex ratio vs {ref}", "x"),
    ("mfu", "MFU"),
    ("mfu_source", "MFU source", "text"),
    ("availability", "Availability"),
    ("utilisation", "Utilisation"),
    ("goodput", "Goodput"),
    ("delivered_usd_per_gpu_hour", "Delivered cost per GPU-hour"),
    ("breakeven_speedup", "Break-even speed-up vs {ref} (kept tokens/s)"),
    ("speedup", "Speed-up vs {ref} at these MFUs (kept tokens/s)"),
    ("breakeven_mfu", "Break-even MFU ({precision}, vs {ref} at its MFU)"),
    ("usd_per_mtok", "Cost per Mtok at these MFUs ({model})"),
    ("cost_per_mtok_at_breakeven", "Cost per Mtok at break-even MFU ({model})", "USD/Mtok"),
    ("cost_per_mtok_ratio", "Cost per token vs {ref}"),
    ("verdict", "Verdict"),
)
_RENT_ROWS = (
    ("rent_usd_per_gpu_hour", "Rent per GPU-hour"),
    ("rent_parity", "Rent parity vs {ref}'s rent"),
    ("usd_per_mtok_rented", "Cost per Mtok rented ({model})", "USD/Mtok"),
    ("project_npv_usd_per_gpu", "NPV of owning and renting out", "USD/GPU"),
    ("project_irr", "IRR"),
    ("project_payback_years", "Payback"),
    ("project_breakeven_rent_usd_per_gpu_hour", "Break-even rent (NPV = 0)"),
    ("project_breakeven_utilisation", "Break-even utilisation (NPV = 0)"),
    ("cash_breakeven_utilisation", "Cash break-even utilisation (undiscounted)"),
)
#: the lender's rows, where a debt is given (with a rent): the financed project's results
#: (docs/project.md), units from :data:`gputco.udfs.chain.PROJECT_OUTPUTS`
_LENDER_ROWS = (
    ("debt_fraction", "Debt share of capex"),
    ("debt_usd_per_gpu", "Debt per GPU (drawn)"),
    ("min_dscr", "Lowest DSCR"),
    ("avg_dscr", "Mean DSCR"),
    ("llcr", "LLCR (loan-life cover)"),
    ("plcr", "PLCR (project-life cover)"),
    ("covenant_dscr", "DSCR covenant"),
    ("dscr_breach_periods", "Periods with DSCR below the covenant"),
    ("max_ltv", "Highest loan to value"),
    ("equity_irr", "Equity IRR"),
)
_CLUSTER_ROWS = (
    ("gpus", "GPUs typed"),
    ("cluster_units", "Servers or racks"),
    ("cluster_gpus_installed", "GPUs installed"),
    ("cluster_capex_usd", "Cluster capex (GPUs installed)"),
    ("cluster_facility_mw", "Cluster facility power"),
    ("cluster_tco_usd_per_year", "Cluster TCO per year (GPUs installed)"),
)


def _chain_unit(key: str) -> str:
    """The unit of the chain's quantity or comparison ``key``."""
    if key in chain.PROJECT_OUTPUTS:
        return chain.PROJECT_OUTPUTS[key][1]
    if chain.is_step(chain.step_of(key)):
        return chain.step(chain.step_of(key)).unit
    if chain.is_input(key):
        return chain.get_input(key).unit
    return chain.comparison(key).unit


def _system_columns(keys, buyer_key, model, precision, mfus, options) -> list[dict[str, object]]:
    """Every chain quantity of each system (one scenario each, :func:`gputco.udfs.scenario.evaluate`)
    with the inputs the comparisons read."""
    from gputco.udfs import scenario

    cols = []
    for i, k in enumerate(keys):
        inputs = {"system": k, "buyer": buyer_key, "model": model, "precision": precision, "mfu": [mfus[i]]}
        inputs.update({name: [values[i]] for name, values in options.items() if values is not None})
        out = scenario.evaluate(inputs)
        used = scenario.used_inputs(inputs)
        col = {name: float(v[0]) for name, v in used.items()}
        col.update({name: float(v[0]) for name, v in out.items()})
        if "rent_usd_per_gpu_hour" not in inputs:
            col["rent_usd_per_gpu_hour"] = None
        cols.append(col)
    return cols


@parameters(
    ("systems",),
    {"buyer": "hyperscaler", "model": "gpt3_175b", "precision": "bf16", "mfu": None},
    {_given(option): None for option, _name in PER_SYSTEM},  # rent, ..., gpus, debt_fraction...: by name
)
def comparison_rows(systems, buyer, model, precision, mfu, **given):
    """The comparison as (label, unit, [value per system]) rows; the first system is the reference.

    ``mfu`` is one MFU for every system or one per system; None: each system's default at the
    precision (:func:`default_mfus`, its source in the row "MFU source"). ``rent``,
    ``availability``, ``utilisation``, ``goodput`` and ``gpus`` likewise (one value or one per
    system); with a rent the rent-or-buy rows follow, with a rent and a debt (``debt_fraction``
    > 0; ``debt_rate``, ``debt_years``, ``covenant_dscr`` as in docs/project.md) the lender's
    rows, with GPUs the cluster totals. The
    comparisons are the chain's (:data:`gputco.udfs.chain.COMPARISONS`).
    """
    keys = _split(systems)
    n = len(keys)
    model_key = presets.model(model).key
    prec = presets.precision_key(precision)
    defaults, sources = default_mfus(keys, prec)
    mfus = mfu_list(mfu, n) if mfu is not None else defaults
    if mfu is not None:
        sources = ["entered" if m != d else s for m, d, s in zip(mfus, defaults, sources, strict=True)]
    buyer_key = presets.buyer(buyer).key
    options = {name: per_system(option, name, given[_given(option)], n) for option, name in PER_SYSTEM}
    lender = options["debt_fraction"] is not None and any(f > 0 for f in options["debt_fraction"])
    if lender and options["rent_usd_per_gpu_hour"] is None:
        raise udfs.MissingValueError("--rent", "the lender rows (--debt-fraction) need a rent per GPU-hour")
    cols = _system_columns(keys, buyer_key, model_key, prec, mfus, options)
    ref = cols[0]
    for key, col, source in zip(keys, cols, sources, strict=True):
        col.update(chain.compare(col, ref))
        col["mfu_source"] = source
        col["price_source"] = presets.system(key).texts["price_source"]
        col["capex_ratio"] = col["capex_per_gpu"] / ref["capex_per_gpu"]
        col["cost_per_mtok_at_breakeven"] = col["usd_per_mtok"] * col["mfu"] / col["breakeven_mfu"]
        if col["rent_usd_per_gpu_hour"] is not None:
            col["usd_per_mtok_rented"] = (
                col["usd_per_mtok"] * col["rent_usd_per_gpu_hour"] / col["delivered_usd_per_gpu_hour"]
            )
    cols[0]["verdict"] = "reference"
    layout = list(_COST_ROWS)
    if options["rent_usd_per_gpu_hour"] is not None:
        layout += _RENT_ROWS
        if lender:
            layout += _LENDER_ROWS
    if options["gpus"] is not None:
        layout += _CLUSTER_ROWS
    fill = {"ref": keys[0], "precision": prec, "model": model_key}
    rows = [
        (label.format(**fill), unit[0] if unit else _chain_unit(key), [c.get(key) for c in cols])
        for key, label, *unit in layout
    ]
    return keys, buyer_key, rows


def published_verdicts(keys: list[str], model: str) -> list[str]:
    """Lines saying, from published runs of ``model``, whether each system is cheaper per token
    than the H100 (measured kept-tokens speed-up against the break-even speed-up)."""
    from gputco.udfs.published import speedup_table

    table = speedup_table()
    head = table[0]
    lines = []
    for row in table[1:]:
        r = dict(zip(head, row, strict=True))
        if r["model"] == model and r["system"] in keys:
            lines.append(
                f"Published ({r['run']} vs {r['h100_run']}): {r['system']} is "
                f"{r['speedup']:.2f}x an H100 per GPU against a break-even of "
                f"{r['breakeven_speedup']:.2f}x: {r['verdict']}."
            )
    return lines


def aligned(rows: list[list[str]], left: int = 1) -> list[str]:
    """Rows of texts as lines of a table: each column as wide as its widest text, two spaces
    apart, the first ``left`` columns aligned left, the others right, so no two texts run together.

    >>> for line in aligned([["", "H100_HGX"], ["dscr", "needs rent_usd_per_gpu_hour"], ["irr", "45.02%"]]):
    ...     print(line)
                             H100_HGX
    dscr  needs rent_usd_per_gpu_hour
    irr                        45.02%
    """
    widths = [max(len(r[j]) for r in rows) for j in range(len(rows[0]))]
    return [
        "  ".join(
            f"{t:<{w}}" if j < left else f"{t:>{w}}" for j, (t, w) in enumerate(zip(r, widths, strict=True))
        ).rstrip()
        for r in rows
    ]


def _cell(value, unit: str, width: int) -> str:
    if value is None or (isinstance(value, float) and value != value):
        text = "-"
    elif isinstance(value, str):
        text = value
    else:
        text = f"{value:,.0f}" if unit in ("USD", "USD/GPU", "GPU", "units", "periods") else f"{value:.4f}"
    return f"{text:>{width}}"


def comparison_table(
    systems, buyer="hyperscaler", model="gpt3_175b", precision="bf16", mfu=None, **per_system_
):
    """The comparison as an aligned text table with a short reading of the result."""
    keys, buyer_key, rows = comparison_rows(systems, buyer, model, precision, mfu, **per_system_)
    label_w = max(len(r[0]) for r in rows)
    col_w = max(12, *(len(k) for k in keys), *(len(str(v)) for _l, u, vs in rows if u == "text" for v in vs))
    lines = [
        f"gputco {udfs.__version__}: TCO per GPU, buyer type {buyer_key}",
        f"{'':{label_w}}  {'unit':<10}" + "".join(f"{k:>{col_w + 2}}" for k in keys),
    ]
    for label, unit, values in rows:
        lines.append(f"{label:<{label_w}}  {unit:<10}" + "".join(_cell(v, unit, col_w + 2) for v in values))
    get = {label.split(" vs ")[0].split(" (")[0]: values for label, _u, values in rows}
    ref = keys[0]
    for i, k in enumerate(keys[1:], start=1):
        lines.append(
            f"{k} must deliver {get['Break-even speed-up'][i]:.2f}x the kept tokens per second of {ref} "
            f"to cost the same per token; at these MFUs it delivers {get['Speed-up'][i]:.2f}x: "
            f"{get['Verdict'][i]}."
        )
    if any(s == "assumed" for s in get["MFU source"]):
        lines.append(
            "MFU 'assumed': no published training run of that system and precision in the presets; "
            "the H100 figure is used. Give --mfu to use your own."
        )
    lines += published_verdicts(keys, presets.model(model).key)
    lines.append("Sources and assumptions: `gputco presets` lists every input with unit, source and date.")
    return "\n".join(lines)


def presets_listing(kind: str | None = None) -> str:
    """Every preset value with unit, source and date, one line each (``gputco presets``): the preset
    kinds, the published serving throughputs, the grid factors and the finance presets (each with
    its group and basis: measured, derived or assumption); ``kind`` also names one of the further
    tables (rent, inferencex, moe_run, training_fact)."""
    kinds = [kind] if kind else [*presets.KINDS, "serving", "grid", "finance"]
    lines = []
    for k in kinds:
        for key, p in presets.catalog(presets.normalize(k).rstrip("s")).items():
            basis = f" ({p.texts['group']}, {p.texts['basis']})" if "basis" in p.texts else ""
            lines.append(f"[{k} {key}] {p.label}{basis}")
            for name, e in p.entries.items():
                value = "(none)" if e.value is None else f"{e.value:g}"
                lines.append(f"  {name} = {value} {e.unit}; {e.source}; as of {e.as_of}")
    return "\n".join(lines)
