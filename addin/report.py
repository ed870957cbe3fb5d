"""Plain-text reports for the terminal. Numbers come from udfs; this module only lays them out."""

from __future__ import annotations

from gputco import udfs
from gputco.udfs import presets


def _split(names: str | list[str]) -> list[str]:
    items = names.split(",") if isinstance(names, str) else list(names)
    keys = [presets.system(n.strip()).key for n in items if n.strip()]
    if not keys:
        raise udfs.MissingValueError("systems", "name at least one system preset")
    return keys


def mfu_list(mfu, n: int) -> list[float]:
    """One MFU per system: a single value (every system) or one per system ("0.54,0.40")."""
    from gputco.udfs import _check as chk

    if isinstance(mfu, str):
        try:
            items = [float(x) for x in mfu.split(",")]
        except ValueError:
            raise udfs.InputTypeError(
                "--mfu", mfu, "one number, or one per system separated by commas (0.54,0.40)"
            ) from None
    else:
        items = list(mfu) if isinstance(mfu, list | tuple) else [float(mfu)]
    if len(items) not in (1, n):
        raise udfs.InputRangeError(
            "--mfu", ",".join(map(str, items)), f"a list of one MFU or {n} (one per system)"
        )
    try:
        values = [float(chk.checked("mfu", x)) for x in items]
    except udfs.InputRangeError as err:
        raise udfs.InputRangeError("--mfu", err.value, err.valid) from None
    return values * n if len(values) == 1 else values


def comparison_rows(systems, buyer="hyperscaler", model="gpt3_175b", precision="bf16", mfu=0.54):
    """The comparison as (label, unit, [value per system]) rows; the first system is the reference.

    ``mfu`` is one MFU for every system or one per system; with one per system the rows add each
    system's cost per Mtok at its own MFU and the speed-up against the reference.
    """
    keys = _split(systems)
    mfus = mfu_list(mfu, len(keys))
    mfu = mfus[0]
    buyer_key = presets.buyer(buyer).key
    ref = keys[0]
    fpt = udfs.tco_flops_per_token(model)
    breakdowns = [dict(udfs.tco_breakdown(k, buyer_key)[1:]) for k in keys]
    rows = [
        ("All-in capex per GPU", "USD", [udfs.tco_capex_per_gpu(k, buyer_key) for k in keys]),
        ("Capital", "USD/GPU-h", [b["capital"] for b in breakdowns]),
        ("Power", "USD/GPU-h", [b["power"] for b in breakdowns]),
        ("Facility (colocation)", "USD/GPU-h", [b["facility"] for b in breakdowns]),
        ("Other", "USD/GPU-h", [b["other"] for b in breakdowns]),
        ("TCO", "USD/GPU-h", [b["total"] for b in breakdowns]),
        (
            "Opex (power+facility+other)",
            "USD/GPU-h",
            [b["power"] + b["facility"] + b["other"] for b in breakdowns],
        ),
        (f"TCO ratio vs {ref} (break-even speed-up)", "x", [udfs.tco_ratio(ref, k, buyer_key) for k in keys]),
        (
            f"Capex ratio vs {ref}",
            "x",
            [udfs.tco_capex_per_gpu(k, buyer_key) / udfs.tco_capex_per_gpu(ref, buyer_key) for k in keys],
        ),
        (
            f"Break-even MFU ({precision}, {ref} at {mfu:.1%})",
            "fraction",
            [udfs.tco_breakeven_mfu(mfu, ref, k, precision, buyer_key) for k in keys],
        ),
        (
            f"Cost per Mtok at break-even MFU ({model})",
            "USD/Mtok",
            [
                udfs.tco_cost_per_mtok(
                    b["total"],
                    fpt,
                    presets.peak_tflops(k, precision),
                    udfs.tco_breakeven_mfu(mfu, ref, k, precision, buyer_key),
                )
                for k, b in zip(keys, breakdowns, strict=True)
            ],
        ),
    ]
    if len(set(mfus)) > 1:
        tps = [
            udfs.tco_tokens_per_gpu_second(fpt, presets.peak_tflops(k, precision), m)
            for k, m in zip(keys, mfus, strict=True)
        ]
        rows += [
            ("MFU entered", "fraction", mfus),
            (f"Speed-up per GPU vs {ref} at these MFUs", "x", [t / tps[0] for t in tps]),
            (
                f"Cost per Mtok at these MFUs ({model})",
                "USD/Mtok",
                [
                    udfs.tco_cost_per_mtok(b["total"], fpt, presets.peak_tflops(k, precision), m)
                    for k, b, m in zip(keys, breakdowns, mfus, strict=True)
                ],
            ),
        ]
    return keys, buyer_key, rows


def published_verdicts(keys: list[str], model: str) -> list[str]:
    """Lines saying, from published runs of ``model``, whether each system is cheaper per token
    than the H100 (measured per-GPU speed-up against the break-even speed-up)."""
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


def comparison_table(systems, buyer="hyperscaler", model="gpt3_175b", precision="bf16", mfu=0.54):
    """The comparison as an aligned text table with a short reading of the result."""
    keys, buyer_key, rows = comparison_rows(systems, buyer, model, precision, mfu)
    label_w = max(len(r[0]) for r in rows)
    col_w = max(12, *(len(k) for k in keys))
    lines = [
        f"gputco {udfs.__version__}: TCO per GPU, buyer type {buyer_key}",
        f"{'':{label_w}}  {'unit':<10}" + "".join(f"{k:>{col_w + 2}}" for k in keys),
    ]
    for label, unit, values in rows:
        spec = ",.0f" if unit == "USD" else ".4f"
        lines.append(f"{label:<{label_w}}  {unit:<10}" + "".join(f"{v:>{col_w + 2}{spec}}" for v in values))
    ref = keys[0]
    for k in keys[1:]:
        ratio = udfs.tco_ratio(ref, k, buyer_key)
        lines.append(
            f"{k} must be at least {ratio:.2f}x faster per GPU than {ref} to win on performance per TCO."
        )
    if len(set(mfu_list(mfu, len(keys)))) > 1:
        speed = next(v for label, _u, v in rows if label.startswith("Speed-up per GPU"))
        for k, s, ratio in zip(keys[1:], speed[1:], rows[7][2][1:], strict=True):
            verdict = "cheaper" if s >= ratio else "dearer"
            lines.append(
                f"At these MFUs {k} is {s:.2f}x {ref} per GPU against a break-even of "
                f"{ratio:.2f}x: {verdict} per token."
            )
    lines += published_verdicts(keys, model)
    lines.append("Sources and assumptions: `gputco presets` lists every input with unit, source and date.")
    return "\n".join(lines)


def presets_listing(kind: str | None = None) -> str:
    """Every preset value with unit, source and date, one line each (``gputco presets``): the preset
    kinds, the published serving throughputs and the grid factors; ``kind`` also names one of the
    further tables (rent, inferencex, moe_run, training_fact)."""
    kinds = [kind] if kind else [*presets.KINDS, "serving", "grid"]
    lines = []
    for k in kinds:
        for key, p in presets.catalog(presets.normalize(k).rstrip("s")).items():
            lines.append(f"[{k} {key}] {p.label}")
            for name, e in p.entries.items():
                value = "(none)" if e.value is None else f"{e.value:g}"
                lines.append(f"  {name} = {value} {e.unit}; {e.source}; as of {e.as_of}")
    return "\n".join(lines)
