"""The shipped preset data: schema, units, sources, dates, labelled assumptions.

This is the one test that reads the real data files (udfs/data/*.toml); the maths tests use their own
inputs.
"""

from __future__ import annotations

import datetime as dt
import math
import re
import tomllib

import pytest

from gputco.udfs import presets

KINDS = [*presets.KINDS, *presets.TABLES]
#: the system presets by vendor
NVIDIA = {"H100_HGX", "H200_HGX", "B200_HGX", "B300_HGX", "GB200_NVL72", "GB300_NVL72", "H800_HGX"}
AMD = {"MI300X", "MI325X", "MI355X"}
SYSTEMS = NVIDIA | AMD
MOE = {"deepseek_v3", "qwen3_235b_a22b", "llama4_scout", "llama4_maverick", "gpt_oss_120b"}


@pytest.mark.parametrize("kind", KINDS)
def test_every_entry_has_unit_source_and_date(kind):
    today = dt.date.today()
    for key, preset in presets.catalog(kind).items():
        for field in presets.REQUIRED_FIELDS[kind]:
            assert field in preset.entries, f"{kind} {key} lacks {field}"
        for field in presets.TEXT_FIELDS[kind]:
            assert preset.texts.get(field), f"{kind} {key} lacks text {field}"
        for name, entry in preset.entries.items():
            assert entry.unit.strip(), f"{kind} {key}.{name}: no unit"
            assert len(entry.source.strip()) >= 10, f"{kind} {key}.{name}: no source"
            assert isinstance(entry.as_of, dt.date), f"{kind} {key}.{name}: as_of is not a date"
            assert dt.date(2019, 1, 1) <= entry.as_of <= today, f"{kind} {key}.{name}: date"
            if entry.value is not None:
                assert math.isfinite(entry.value) and entry.value >= 0, f"{kind} {key}.{name}"


def test_required_presets_exist():
    # The presets the product promises by name: ten systems and four
    # mixture-of-experts models.
    assert set(presets.catalog("system")) == SYSTEMS
    assert MOE <= set(presets.catalog("model"))
    assert set(presets.catalog("buyer")) == {"hyperscaler", "neocloud_giant", "emerging_neocloud"}
    assert {"gpt3_175b", "llama3_8b", "llama3_70b", "llama3_405b"} <= set(presets.catalog("model"))


def test_buyer_values_are_labelled_assumptions():
    # SemiAnalysis's buyer-type inputs are paywalled: every buyer number except the reference
    # multiplier must say so.
    for key, buyer in presets.catalog("buyer").items():
        for name, entry in buyer.entries.items():
            if name == "capex_multiplier" and key == "hyperscaler":
                continue
            assert entry.is_assumption, f"buyer {key}.{name} is not labelled an assumption"


def test_runs_point_at_existing_presets():
    for key, run in {**presets.catalog("run"), **presets.catalog("moe_run")}.items():
        presets.system(run.texts["system"])
        presets.model(run.texts["model"])
        assert presets.peak_tflops(run.texts["system"], run.texts["precision"]) > 0, key
        assert 0 < run.value("mfu") <= 1, key


def test_peaks_are_dense_not_sparse():
    # docs/facts.md section 4: many tools wrongly store the sparse H100 figure (1979 BF16).
    assert presets.system("H100_HGX").value("peak_tflops_bf16") == 989.4
    for key, system in presets.catalog("system").items():
        bf16, fp8 = system.value("peak_tflops_bf16"), system.value("peak_tflops_fp8")
        assert fp8 == pytest.approx(2 * bf16, rel=0.01), key


def test_missing_peaks_say_the_chip_has_no_such_precision():
    # A precision the chip lacks is an empty value whose source says "no FP4".
    for key, system in presets.catalog("system").items():
        for precision in presets.PRECISIONS:
            entry = system.entry(f"peak_tflops_{precision}")
            if entry.value is None:
                assert f"no {precision}" in entry.source.lower(), key
    assert presets.system("MI300X").entry("peak_tflops_fp4").value is None
    assert presets.system("MI355X").value("peak_tflops_fp4") > 0


def test_availability_is_a_sourced_fraction():
    # Meta's Llama 3.1 405B run (466 interruptions in 54 days, >90% effective training time) for
    # H100; CoreWeave's 64-of-72 GPUs for GB200 NVL72; everything else labelled an assumption.
    for key, system in presets.catalog("system").items():
        entry = system.entry("availability")
        assert 0 < entry.value <= 1, key
        if key not in ("H100_HGX", "GB200_NVL72"):
            assert entry.is_assumption, key
    assert presets.system("H100_HGX").entry("availability").source.count("466 job interruptions") == 1
    assert presets.system("GB200_NVL72").value("availability") == pytest.approx(64 / 72, abs=1e-4)


def test_gb200_it_load_and_all_in_power_both_named():
    # docs/presets-2026.md: the article fit keeps 1.68 kW of IT load; SemiAnalysis's July 2026 model
    # publishes 1.87 kW all-in per GPU. Both values stay, each with its own source.
    gb200 = presets.system("GB200_NVL72")
    assert gb200.value("it_kw_per_gpu") == 1.68
    assert "2.1 kW" in gb200.entry("it_kw_per_gpu").source
    assert gb200.value("all_in_kw_per_gpu") == 1.87
    assert "InferenceX-app" in gb200.entry("all_in_kw_per_gpu").source


def test_models_state_active_parameters():
    for key, model in presets.catalog("model").items():
        active, total = model.value("active_params"), model.value("params")
        if key in MOE:
            assert 0 < active < total / 4, key
            assert not model.entry("active_params").source.startswith("derived"), key
        else:
            assert active == total and model.entry("active_params").source.startswith("derived"), key
            assert model.value("heads") * model.value("head_dim") == model.value("d_model"), key


def test_rents_point_at_systems_and_name_their_terms():
    rents = presets.catalog("rent")
    assert len(rents) >= 27  # the measured count (2026-12-06)
    for key, rent in rents.items():
        presets.system(rent.texts["system"])
        assert rent.texts["market"] in ("hyperscaler", "neocloud"), key
        assert 0.5 < rent.value("usd_per_gpu_hour") < 20, key
    covered = {r.texts["system"] for r in rents.values()}
    assert covered == SYSTEMS - {"H800_HGX"}  # no public H800 rental price
    for system in covered:  # SemiAnalysis's 3-year-commit rental is published for all nine
        assert any(r.texts["term"] == "3-year commitment" for r in presets.rents(system)), system


def test_a_value_without_a_source_is_rejected_with_its_place():
    text = "[x]\nlabel = 'X'\nchip_watts = { value = 1, unit = 'W', as_of = 2025-01-01 }\n"
    with pytest.raises(presets.MissingValueError, match=r"systems\.toml \[x\] chip_watts: source"):
        presets.parse("rent", "systems.toml", text)
    text = "[x]\nlabel = 'X'\nw = { value = 1, unit = 'W', source = 'a source', as_of = 'soon' }\n"
    with pytest.raises(presets.MissingValueError, match="as_of"):
        presets.parse("rent", "x.toml", text)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("part", ["unit", "source"])
def test_every_shipped_file_rejects_a_value_that_loses_its_unit_or_source(kind, part):
    # The real data files (serving throughputs and grid factors included): drop the
    # unit or the source of the first value of the file and reading it fails, naming the place.
    from importlib import resources

    name = {**presets.KINDS, **presets.TABLES}[kind]
    text = resources.files("gputco.udfs").joinpath("data", name).read_text("utf-8")
    key, table = next(iter(tomllib.loads(text).items()))
    field = next(k for k, v in table.items() if isinstance(v, dict))
    broken = re.sub(rf'(\n{re.escape(field)} = \{{[^\n]*?){part} = "[^"]*", ', r"\1", text, count=1)
    assert broken != text, (kind, field)
    with pytest.raises(
        presets.MissingValueError,
        match=rf"{re.escape(name)} \[{key}\] {field}: "
        rf"{part} is required",
    ):
        presets.parse(kind, name, broken)
