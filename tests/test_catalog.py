"""The shipped preset data: schema, units, sources, dates, labelled assumptions.

This is the one test that reads the real data files (udfs/data/*.toml); the maths tests use their own
inputs.
"""

from __future__ import annotations

import datetime as dt
import math

import pytest

from udfs import presets

KINDS = list(presets.KINDS)


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
    # Issue 2: the presets the product promises by name.
    assert {"H100_HGX", "GB200_NVL72"} <= set(presets.catalog("system"))
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
    for key, run in presets.catalog("run").items():
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
