"""Mixture-of-experts models: FLOPs per token from active parameters, and the published training facts.

FLOPs are hand-computed here from the published architectures (udfs/data/models.toml names each
source): DeepSeek-V3 (arXiv:2412.19437 and config.json), Qwen3-235B-A22B (arXiv:2505.09388 and
config.json), Llama 4 Maverick (model card, config.json), gpt-oss-120b (arXiv:2508.10925).
Training facts: DeepSeek-V3 report Table 1, Llama 4 model card, gpt-oss model card.
"""

from __future__ import annotations

import numpy as np
import pytest

from gputco import udfs
from gputco.udfs import presets
from gputco.udfs.compute import flops_per_token_arch
from gputco.udfs.published import FACT_HEADER, training_facts

# model: (active params, layers, heads x head_dim, seq, vocab x d_model, windowed layers, window)
ARCH = {
    "deepseek_v3": (37e9, 61, 128 * 160, 4096, 129280 * 7168, 0, 0),
    "qwen3_235b_a22b": (22e9, 94, 64 * 128, 4096, 151936 * 4096, 0, 0),
    "llama4_maverick": (17e9, 48, 40 * 128, 8192, 202048 * 5120, 0, 0),
    "gpt_oss_120b": (5.13e9, 36, 64 * 64, 4096, 201088 * 2880, 18, 128),
}


@pytest.mark.parametrize("model", list(ARCH))
def test_moe_flops_count_active_parameters_in_every_convention(model):
    a, layers, width, s, embed, lw, w = ARCH[model]
    attention = 12 * width * ((layers - lw) * s + lw * min(s, w))
    assert udfs.tco_flops_per_token(model, convention="6n") == pytest.approx(6 * a, rel=1e-12)
    assert udfs.tco_flops_per_token(model) == pytest.approx(6 * a + attention, rel=1e-12)
    assert udfs.tco_flops_per_token(model, convention="megatron") == pytest.approx(
        6 * (a - embed) + attention, rel=1e-12
    )
    # the total parameter count would overstate the work many times over
    assert udfs.tco_flops_per_token(model) < 6 * presets.model(model).value("params") / 3


def test_deepseek_v3_hand_count():
    # 6 x 37e9 + 12 x 61 layers x 128 heads x 160 (MLA: (192 + 128) / 2) x 4096 tokens
    assert udfs.tco_flops_per_token("deepseek_v3") == 222e9 + 61_404_610_560
    # NVIDIA Megatron-Bridge (25.09, H100): 338 model TFLOP/s at 1,297 tokens/s = 260.6 GFLOP/token,
    # between plain 6N and the PaLM count (which adds attention without causal halving).
    nvidia = 338e12 / 1297
    assert udfs.tco_flops_per_token("deepseek_v3", convention="6n") < nvidia
    assert nvidia < udfs.tco_flops_per_token("deepseek_v3", convention="megatron")
    assert udfs.tco_flops_per_token("deepseek_v3", convention="megatron") == pytest.approx(nvidia, rel=0.07)


def test_dense_models_are_unchanged():
    # The dense presets give exactly the original equations (PaLM 6N + 12 L d s; Megatron's count).
    for model in ("gpt3_175b", "llama3_8b", "llama3_70b", "llama3_405b"):
        m = presets.model(model)
        v = {
            f: m.value(f)
            for f in (
                "params",
                "layers",
                "d_model",
                "heads",
                "kv_heads",
                "ffn",
                "vocab",
                "seq_len",
                "mlp_matrices",
            )
        }
        assert udfs.tco_flops_per_token(model) == udfs.flops_per_token_palm(
            v["params"], v["layers"], v["d_model"], v["seq_len"]
        )
        assert udfs.tco_flops_per_token(model, convention="megatron") == udfs.flops_per_token_megatron(
            v["layers"],
            v["d_model"],
            v["heads"],
            v["kv_heads"],
            v["ffn"],
            v["vocab"],
            v["seq_len"],
            v["mlp_matrices"],
        )
        assert udfs.tco_flops_per_token(model, convention="6n") == 6 * v["params"]
    # the published GPT-3 figure of the seed tests (facts.md: 1.07899e12 per token at seq 2048)
    assert udfs.tco_flops_per_token("gpt3_175b") == pytest.approx(1.07899e12, rel=1e-5)


def test_arch_function_is_vectorised_and_checks_its_arguments():
    out = flops_per_token_arch("palm", [2048, 4096], 671e9, 37e9, 61, 7168, 128, 128, 160, 2048, 129280)
    assert np.shape(out) == (2,) and out[1] > out[0]
    with pytest.raises(udfs.InputRangeError, match=r"active_params must be in \(0, params = 1e\+09\]"):
        flops_per_token_arch("palm", 4096, 1e9, 2e9, 1, 1, 1, 1, 1, 1, 1)
    with pytest.raises(udfs.InputRangeError, match="window_layers"):
        flops_per_token_arch("palm", 4096, 1e9, 1e9, 4, 8, 1, 1, 8, 1, 1, 3, 5, 128)
    with pytest.raises(udfs.UnknownNameError, match="convention"):
        flops_per_token_arch("7n", 4096, 1e9, 1e9, 4, 8, 1, 1, 8, 1, 1)


FACTS = {row[0]: dict(zip(FACT_HEADER, row, strict=True)) for row in training_facts()[1:]}


def test_deepseek_v3_published_cost_reproduces():
    # DeepSeek-V3 report Table 1: 2.788M H800 GPU-hours at $2 per GPU-hour = $5.576M; pre-training
    # 2.664M GPU-hours = $5.328M.
    total, pre = FACTS["deepseek_v3_total"], FACTS["deepseek_v3_pretraining"]
    assert total["usd_at_published_rate"] == pytest.approx(5.576e6, rel=1e-12)
    assert total["usd_at_published_rate"] == total["published_usd"]
    assert pre["usd_at_published_rate"] == pytest.approx(pre["published_usd"], rel=1e-12)


def test_deepseek_v3_implied_throughput_and_mfu():
    # 14.8T tokens / (2.664M GPU-hours x 3600) = 1,543 tokens/s per H800; with 6 x 37B FLOPs per
    # token: 343 TFLOP/s = 17.3% of the FP8 dense peak, 34.6% of BF16 (DeepSeek-V3 technical report, arXiv:2412.19437; the
    # H800's tensor peak taken as the H100 SXM's, an assumption named in systems.toml).
    pre = FACTS["deepseek_v3_pretraining"]
    assert pre["tokens_per_gpu_second"] == pytest.approx(1543.2, abs=0.1)
    assert pre["mfu_fp8_6n"] == pytest.approx(0.173, abs=0.0005)
    assert pre["mfu_bf16_6n"] == pytest.approx(0.346, abs=0.0005)
    # the PaLM count adds attention: 283.4 GFLOP/token -> 22.1% FP8
    assert pre["mfu_fp8"] == pytest.approx(1543.21 * 283.40461e9 / 1978.9e12, rel=1e-4)
    # at gputco's H800 TCO (= H100's, hyperscaler $1.42) the 2.664M GPU-hours cost $3.78M
    assert pre["usd_at_tco"] == pytest.approx(2.664e6 * udfs.tco_gpu_hour("H800_HGX"), rel=1e-12)


def test_llama4_and_gpt_oss_published_gpu_hours():
    # Llama 4 model card: Maverick ~22T tokens in 2.38M H100 GPU-hours -> 2,568 tokens/s per GPU,
    # 13.2% of FP8 dense with 6 x 17B (Llama 4 model card, Meta, 2025-04-05). gpt-oss: 2.1M H100-hours, tokens not
    # published, so no throughput or MFU.
    mav = FACTS["llama4_maverick_training"]
    assert mav["tokens_per_gpu_second"] == pytest.approx(2567.7, abs=0.1)
    assert mav["mfu_fp8_6n"] == pytest.approx(0.132, abs=0.0005)
    oss = FACTS["gpt_oss_120b_training"]
    assert oss["gpu_hours"] == 2.1e6 and oss["tokens"] is None and oss["mfu_fp8"] is None
    at_2 = {row[0]: row[-1] for row in training_facts(2.0)[1:]}
    assert at_2["gpt_oss_120b_training"] == pytest.approx(4.2e6)


def test_llama4_scout_published_gpu_hours():
    # Llama 4 model card: Scout ~40T tokens in 5.0M H100 GPU-hours -> 2,222 tokens/s per GPU; with
    # 6 x 17B active parameters 227 TFLOP/s = 11.5% of FP8 dense, 22.9% of BF16 (Llama 4 model card, Meta, 2025-04-05).
    scout = FACTS["llama4_scout_training"]
    assert scout["tokens_per_gpu_second"] == pytest.approx(2222.2, abs=0.1)
    assert scout["mfu_fp8_6n"] == pytest.approx(0.115, abs=0.0005)
    assert scout["mfu_bf16_6n"] == pytest.approx(0.229, abs=0.0005)
    assert scout["usd_at_published_rate"] is None  # Meta published no price
