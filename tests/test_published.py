"""Published runs beyond H100 (NVIDIA Megatron-Bridge tables) against the break-even speed-up.

Throughputs typed in by hand from github NVIDIA-NeMo/Megatron-Bridge docs/performance-summary-archive.md
(commit 4ab94dfa, 2026-08-11), so the extract in runs.toml / moe_runs.toml is checked against the
source tables, not against itself.
"""

from __future__ import annotations

import pytest

from gputco import udfs
from gputco.udfs import presets
from gputco.udfs.published import CHEAPER, DEARER, SPEEDUP_HEADER, speedup_table

# (model, system): (tokens/s per GPU, model TFLOP/s per GPU) as published
NVIDIA = {
    ("llama3_405b", "H100_HGX"): (311, 784),
    ("llama3_405b", "B200_HGX"): (661, 1667),
    ("llama3_405b", "GB200_NVL72"): (793, 2004),
    ("llama3_405b", "GB300_NVL72"): (988, 2495),
    ("llama3_70b", "H100_HGX"): (1621, 728),
    ("llama3_70b", "GB200_NVL72"): (4040, 1815),
    ("llama3_70b", "GB300_NVL72"): (5003, 2248),
    ("deepseek_v3", "H100_HGX"): (1297, 338),
    ("deepseek_v3", "B200_HGX"): (2689, 699),
    ("deepseek_v3", "B300_HGX"): (2983, 776),
    ("deepseek_v3", "GB200_NVL72"): (3955, 1028),
    ("deepseek_v3", "GB300_NVL72"): (4612, 1199),
    ("qwen3_235b_a22b", "H100_HGX"): (1633, 242),
    ("qwen3_235b_a22b", "B200_HGX"): (3805, 563),
    ("qwen3_235b_a22b", "B300_HGX"): (2691, 399),
    ("qwen3_235b_a22b", "GB200_NVL72"): (5448, 806),
    ("qwen3_235b_a22b", "GB300_NVL72"): (6583, 974),
    ("gpt_oss_120b", "H100_HGX"): (5993, 163),
    ("gpt_oss_120b", "B200_HGX"): (8047, 219),
    ("gpt_oss_120b", "B300_HGX"): (8359, 228),
    ("gpt_oss_120b", "GB200_NVL72"): (15784, 428),
    ("gpt_oss_120b", "GB300_NVL72"): (19412, 527),
}
TABLE = speedup_table()
ROWS = [dict(zip(SPEEDUP_HEADER, r, strict=True)) for r in TABLE[1:]]
NV_RUNS = {
    k: r for k, r in {**presets.catalog("run"), **presets.catalog("moe_run")}.items() if k.startswith("nv_")
}


def test_the_extract_matches_the_published_tables():
    got = {
        (r.texts["model"], r.texts["system"]): (
            r.value("published_tokens_per_gpu_second"),
            r.value("reported_model_tflops"),
        )
        for r in NV_RUNS.values()
    }
    assert got == NVIDIA
    for key, run in NV_RUNS.items():
        assert "4ab94dfa" in run.entry("published_tokens_per_gpu_second").source, key
        assert run.entry("mfu").source.startswith("derived"), key


def test_derived_mfu_reproduces_the_published_throughput():
    for key, run in NV_RUNS.items():
        tps = udfs.tco_tokens_per_gpu_second(
            udfs.tco_flops_per_token(run.texts["model"]),
            presets.peak_tflops(run.texts["system"], run.texts["precision"]),
            run.value("mfu"),
        )
        assert tps == pytest.approx(run.value("published_tokens_per_gpu_second"), rel=5e-4), key


def test_the_seventeen_h100_runs_are_kept():
    old = [k for k in presets.catalog("run") if not k.startswith("nv_")]
    assert len(old) == 17
    assert presets.run("dgxc_gpt3_175b_fp8_128").value("published_tokens_per_gpu_second") == 728.0
    assert presets.run("sa_gpt3_175b_fp8_dec2024").value("published_usd_per_mtok") == 0.542
    assert all(presets.run(k).texts["system"] == "H100_HGX" for k in old)


def test_every_non_h100_run_has_a_row_against_its_h100_baseline():
    assert len(ROWS) == sum(1 for (_m, s) in NVIDIA if s != "H100_HGX")
    for row in ROWS:
        tps, _ = NVIDIA[(row["model"], row["system"])]
        base, _ = NVIDIA[(row["model"], "H100_HGX")]
        assert row["tokens_per_gpu_second"] == tps
        assert row["h100_tokens_per_gpu_second"] == base
        assert row["speedup"] == pytest.approx(tps / base)
        assert row["breakeven_speedup"] == pytest.approx(udfs.tco_ratio("H100_HGX", row["system"]))
        assert row["verdict"] == (CHEAPER if tps / base > row["breakeven_speedup"] else DEARER)
        # cheaper per token <=> lower cost per Mtok at the two systems' TCO
        assert (row["usd_per_mtok"] < row["h100_usd_per_mtok"]) == (row["verdict"] == CHEAPER)


def test_the_seed_articles_question_answered():
    # SA-2025-08 asks whether GB200 NVL72 is at least ~1.6x faster per GPU than H100 (its TCO ratio).
    # NVIDIA's published Llama 3.1 405B FP8 runs: 793 / 311 = 2.55x > 1.58x.
    row = next(r for r in ROWS if r["model"] == "llama3_405b" and r["system"] == "GB200_NVL72")
    assert row["speedup"] == pytest.approx(2.55, abs=0.01)
    assert row["breakeven_speedup"] == pytest.approx(1.584, abs=0.001)
    assert row["verdict"] == CHEAPER
    # ...but not everywhere: B300 on Qwen3-235B (2691 vs 1633 = 1.65x < 1.93x) is not cheaper.
    row = next(r for r in ROWS if r["model"] == "qwen3_235b_a22b" and r["system"] == "B300_HGX")
    assert row["verdict"] == DEARER
