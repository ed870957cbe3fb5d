"""Published training evidence recomputed: measured speed-ups against break-even, and MoE training facts.

Cost per token is TCO per GPU-hour / tokens per GPU-hour, so a system is cheaper per token than H100
exactly when its measured per-GPU speed-up exceeds its TCO ratio to H100 (the break-even speed-up of
:func:`gputco.udfs.tco.tco_ratio`). :func:`speedup_table` sets the two side by side for every published run
on another system (runs.toml and moe_runs.toml: NVIDIA Megatron-Bridge tables).
:func:`training_facts` recomputes the published mixture-of-experts training runs
(training_facts.toml): implied throughput and MFU, and cost at a TCO per GPU-hour.
"""

from __future__ import annotations

from . import chain, presets
from .compute import SECONDS_PER_HOUR, tco_cost_per_mtok_at_rate, tco_flops_per_token
from .decisions import CHEAPER
from .decisions import NOT_CHEAPER as DEARER
from .tco import tco_gpu_hour

REFERENCE = presets.REFERENCE_SYSTEM
__all__ = [
    "CHEAPER",
    "DEARER",
    "FACT_HEADER",
    "REFERENCE",
    "SPEEDUP_HEADER",
    "speedup_table",
    "training_facts",
]
SPEEDUP_HEADER = [
    "model",
    "system",
    "run",
    "precision",
    "tokens_per_gpu_second",
    "h100_run",
    "h100_tokens_per_gpu_second",
    "speedup",
    "breakeven_speedup",
    "verdict",
    "mfu",
    "tco_usd_per_gpu_hour",
    "usd_per_mtok",
    "h100_usd_per_mtok",
]
FACT_HEADER = [
    "fact",
    "model",
    "system",
    "tokens",
    "gpu_hours",
    "tokens_per_gpu_second",
    "mfu_fp8",
    "mfu_bf16",
    "mfu_fp8_6n",
    "mfu_bf16_6n",
    "usd_at_published_rate",
    "published_usd",
    "usd_per_gpu_hour",
    "usd_at_tco",
]


def measured_runs() -> dict[str, presets.Preset]:
    """Every published run with a measured throughput (runs.toml and moe_runs.toml)."""
    runs = {**presets.catalog("run"), **presets.catalog("moe_run")}
    return {k: r for k, r in runs.items() if "published_tokens_per_gpu_second" in r.entries}


def _at_measured_rate(tco: float, tokens_per_gpu_second: float) -> dict[str, float]:
    """The chain quantities a comparison reads, for a system at its TCO (every hour delivered,
    goodput 1) and a published throughput."""
    return {
        "tco_usd_per_gpu_hour": tco,
        "delivered_usd_per_gpu_hour": tco,
        "goodput": 1.0,
        "tokens_per_gpu_second": tokens_per_gpu_second,
        "usd_per_mtok": tco_cost_per_mtok_at_rate(tco, tokens_per_gpu_second),
    }


def speedup_table(buyer: str = presets.DEFAULT_BUYER) -> list[list]:
    """Per model and system: the measured per-GPU speed-up over H100 beside the break-even speed-up.

    The H100 baseline of a run is the newest published H100 run of the same model at the same
    precision (any precision if there is none), the one with the most GPUs among equals. Runs
    without an H100 run of their model are left out. Throughputs are the published ones ("fp8"
    covers NVIDIA's FP8 on H100 and MXFP8 on Blackwell).

    Parameters
    ----------
    buyer : str, optional
        Buyer type for the TCO; default "hyperscaler".

    Returns
    -------
    list of lists
        Header :data:`SPEEDUP_HEADER`, then one row per non-H100 run: model, system, run key,
        precision, published tokens/s per GPU, H100 run key and tokens/s, speed-up (ratio of the
        two), break-even speed-up and verdict (the chain's comparisons,
        :data:`gputco.udfs.chain.COMPARISONS`: "cheaper per token" when the cost per token is below
        H100's), the run's MFU in gputco's FLOPs count, the system's TCO
        per GPU-hour and cost per million tokens of the system and of H100 at their TCO.

    Examples
    --------
    Llama 3.1 405B, FP8, NVIDIA Megatron-Bridge 26.02: GB200 NVL72 runs 793 tokens/s per GPU
    against H100's 311, 2.55x, beyond its 1.58x break-even:

    >>> rows = {r[2]: dict(zip(speedup_table()[0], r)) for r in speedup_table()[1:]}
    >>> row = rows["nv_llama3_405b_fp8_gb200_256"]
    >>> round(row["speedup"], 2), round(row["breakeven_speedup"], 2), row["verdict"]
    (2.55, 1.58, 'cheaper per token')
    """
    runs = measured_runs()
    h100_tco = tco_gpu_hour(REFERENCE, buyer)
    rows: list[list] = [list(SPEEDUP_HEADER)]
    for key, run in runs.items():
        model, system = run.texts["model"], run.texts["system"]
        base = None if system == REFERENCE else _baseline(runs, model, run.texts["precision"])
        if base is None:
            continue
        ref = runs[base]
        tps = run.value("published_tokens_per_gpu_second")
        ref_tps = ref.value("published_tokens_per_gpu_second")
        this = _at_measured_rate(tco_gpu_hour(system, buyer), tps)
        base_side = _at_measured_rate(h100_tco, ref_tps)
        c = chain.compare(this, base_side)
        rows.append(
            [
                model,
                system,
                key,
                run.texts["precision"],
                tps,
                base,
                ref_tps,
                c["speedup"],
                c["breakeven_speedup"],
                c["verdict"],
                run.value("mfu"),
                this["tco_usd_per_gpu_hour"],
                this["usd_per_mtok"],
                base_side["usd_per_mtok"],
            ]
        )
    return rows


def _baseline(runs: dict[str, presets.Preset], model: str, precision: str) -> str | None:
    """Key of the H100 run a run of ``model`` at ``precision`` is compared with (see speedup_table)."""
    h100 = [k for k, r in runs.items() if r.texts["system"] == REFERENCE and r.texts["model"] == model]
    same = [k for k in h100 if runs[k].texts["precision"] == precision] or h100
    return max(
        same,
        key=lambda k: (runs[k].entry("published_tokens_per_gpu_second").as_of, runs[k].value("gpus")),
        default=None,
    )


def training_facts(usd_per_gpu_hour: float | None = None, buyer: str = presets.DEFAULT_BUYER) -> list[list]:
    """The published MoE training facts recomputed (udfs/data/training_facts.toml).

    Parameters
    ----------
    usd_per_gpu_hour : float, optional
        TCO per GPU-hour to cost the runs at; default each fact's system's gputco TCO for ``buyer``.
    buyer : str, optional
        Buyer type for the default TCO; default "hyperscaler".

    Returns
    -------
    list of lists
        Header :data:`FACT_HEADER`, then per fact: key, model, system, tokens, GPU-hours, implied
        tokens/s per GPU (``tokens / (GPU-hours x 3600)``), implied MFU at the system's FP8 and BF16
        dense peaks with gputco's PaLM count and with plain 6N (active parameters), cost at the
        published rental rate (GPU-hours x rate), the published cost, the TCO used and the cost at
        that TCO. Quantities the source does not state are None.

    References
    ----------
    DeepSeek-V3 Technical Report (arXiv:2412.19437) Table 1: 2.788M H800 GPU-hours at $2 = $5.576M;
    14.8T tokens in 2.664M pre-training GPU-hours.

    Examples
    --------
    >>> facts = {r[0]: dict(zip(FACT_HEADER, r)) for r in training_facts()[1:]}
    >>> ds = facts["deepseek_v3_pretraining"]
    >>> round(ds["tokens_per_gpu_second"]), round(ds["mfu_fp8_6n"], 3), round(ds["mfu_bf16_6n"], 3)
    (1543, 0.173, 0.346)
    >>> facts["deepseek_v3_total"]["usd_at_published_rate"]
    5576000.0
    """
    rows: list[list] = [list(FACT_HEADER)]
    for key, fact in presets.catalog("training_fact").items():
        model, system = fact.texts["model"], fact.texts["system"]
        hours = fact.value("gpu_hours")
        tokens = _maybe(fact, "tokens")
        tps = None if tokens is None else tokens / (hours * SECONDS_PER_HOUR)
        mfus = []
        for convention in ("palm", "6n"):
            fpt = tco_flops_per_token(model, convention=convention)
            for precision in ("fp8", "bf16"):
                peak = presets.peak_tflops(system, precision) * 1e12
                mfus.append(None if tps is None else tps * fpt / peak)
        rate = _maybe(fact, "usd_per_gpu_hour")
        tco = tco_gpu_hour(system, buyer) if usd_per_gpu_hour is None else float(usd_per_gpu_hour)
        rows.append(
            [
                key,
                model,
                system,
                tokens,
                hours,
                tps,
                *mfus,
                None if rate is None else hours * rate,
                _maybe(fact, "published_usd"),
                tco,
                hours * tco,
            ]
        )
    return rows


def _maybe(preset: presets.Preset, name: str) -> float | None:
    entry = preset.entries.get(name)
    return None if entry is None else entry.value
