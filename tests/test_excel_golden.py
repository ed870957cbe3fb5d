"""The public golden cases through the Excel layer: the UDFs give the plain functions' values.

tests/data/cases-public.json is a copy of the project's shared reference file
(tests/data/cases-public.json; the published figures, each with its source: SemiAnalysis
2025-08-20 and NVIDIA dgxc-benchmarking README_175b). Each case is computed twice, through
``gputco.udfs.UDFS`` with Excel-shaped arguments (single cells and columns, as a worksheet would chain the
formulas) and with the plain numpy functions; the two must agree exactly and match the published
figure within the case's tolerance.
"""

from __future__ import annotations

import pytest
from golden_cases import CASES, DATA, TESTED

from gputco import udfs

XL = udfs.UDFS


def peak(precision):
    # the sheet reads the dense H100 peak from the preset, as the file's conventions state
    got = XL["TCO_SYSTEM"]("H100_HGX", f"peak_tflops_{precision}")
    assert got == DATA["conventions"]["peak_tflops"][f"H100_{precision}"]
    return got


def fpt(model):
    got = XL["TCO_FLOPS_PER_TOKEN"](model)
    assert got == udfs.tco_flops_per_token(model)
    return got


def case(case_id):
    return CASES[case_id], CASES[case_id]["inputs"]


def test_cost_per_mtok():
    # SemiAnalysis 2025-08-20: 54.2 cents per million tokens, FP8, Dec 2024 software, $1.42/h.
    c, i = case("gpt3_175b_fp8_dec2024_cost_per_mtok")
    got = XL["TCO_COST_PER_MTOK"](i["gpu_hour_usd"], fpt(i["model"]), peak(i["precision"]), i["mfu"])
    assert got == udfs.tco_cost_per_mtok(i["gpu_hour_usd"], fpt(i["model"]), peak(i["precision"]), i["mfu"])
    assert got == pytest.approx(c["expected"]["usd_per_million_tokens"], rel=c["tolerance"])


def test_tokens_per_gpu_second_as_a_column():
    # NVIDIA dgxc-benchmarking README_175b: 93,190 tok/s (FP8, 39.52% MFU) and 63,099 tok/s
    # (BF16, 53.54% MFU) on 128 H100: one formula over a column of runs.
    ids = ["gpt3_175b_fp8_dec2024_tokens_per_gpu_second", "gpt3_175b_bf16_dec2024_tokens_per_gpu_second"]
    runs = [case(i) for i in ids]
    peaks = [[peak(i["precision"])] for _, i in runs]
    mfus = [[i["mfu"]] for _, i in runs]
    got = XL["TCO_TOKENS_PER_GPU_SECOND"](fpt("gpt3_175b"), peaks, mfus)
    for row, (c, i), p, m in zip(got, runs, peaks, mfus, strict=True):
        assert row == [udfs.tco_tokens_per_gpu_second(fpt(i["model"]), p[0], m[0])]
        assert row[0] == pytest.approx(c["expected"]["tokens_per_gpu_second"], rel=c["tolerance"])


def test_joules_per_token_as_a_row():
    # SemiAnalysis 2025-08-20: 2.46 J/token (FP8) and 3.63 J/token (BF16) for GPT-3 175B on H100.
    runs = [case("gpt3_175b_fp8_joules_per_token"), case("gpt3_175b_bf16_joules_per_token")]
    watts = runs[0][1]["utility_watts_per_gpu"]
    got = XL["TCO_JOULES_PER_TOKEN"](
        watts, fpt("gpt3_175b"), [[peak(i["precision"]) for _, i in runs]], [[i["mfu"] for _, i in runs]]
    )
    for value, (c, i) in zip(got[0], runs, strict=True):
        assert value == udfs.tco_joules_per_token(watts, fpt(i["model"]), peak(i["precision"]), i["mfu"])
        assert value == pytest.approx(c["expected"]["joules_per_token"], rel=c["tolerance"])


def test_tokens_per_household_year():
    # SemiAnalysis 2025-08-20: one US household-year of energy trains 15.8B FP8 tokens.
    c, i = case("gpt3_175b_fp8_tokens_per_household_year")
    years = XL["TCO_HOUSEHOLD_YEARS"](i["joules_per_token"])
    assert years == udfs.tco_household_years(i["joules_per_token"])
    assert 1 / years == pytest.approx(c["expected"]["tokens"], rel=c["tolerance"])


def test_household_years_for_300b_tokens():
    # SemiAnalysis 2025-08-20: 19 (FP8) and 28 (BF16) US household-years for 300B GPT-3 tokens.
    c, i = case("gpt3_175b_300b_tokens_household_years")
    peaks = [[peak(p)] for p, _ in i["runs"]]
    mfus = [[m] for _, m in i["runs"]]
    jpt = XL["TCO_JOULES_PER_TOKEN"](i["utility_watts_per_gpu"], fpt(i["model"]), peaks, mfus)
    joules = [[i["tokens"] * j] for (j,) in jpt]
    got = XL["TCO_HOUSEHOLD_YEARS"](joules)
    for (value,), (p, m), expected in zip(got, i["runs"], c["expected"]["household_years"], strict=True):
        plain_jpt = udfs.tco_joules_per_token(i["utility_watts_per_gpu"], fpt(i["model"]), peak(p), m)
        assert value == udfs.tco_household_years(i["tokens"] * plain_jpt)
        assert value == pytest.approx(expected, rel=c["tolerance"])


def test_capex_per_gpu_as_a_column_of_systems():
    # SemiAnalysis 2025-08-20: $250k per H100 server and $3.9M per GB200 NVL72 rack, all-in.
    c, i = case("capex_per_gpu_all_in_hyperscaler")
    systems = list(i)
    got = XL["TCO_CAPEX_PER_GPU"]([[s] for s in systems], "hyperscaler")
    for (value,), system in zip(got, systems, strict=True):
        assert XL["TCO_SYSTEM"](system, "unit_all_in_usd") == i[system]["unit_all_in_usd"]
        assert value == udfs.tco_capex_per_gpu(system, "hyperscaler")
        assert value == pytest.approx(c["expected"][system], rel=c["tolerance"])


def test_every_public_case_goes_through_the_udfs():
    assert set(CASES) == TESTED
