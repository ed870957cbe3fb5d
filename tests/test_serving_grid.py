"""Published serving throughputs and regional grid factors: the extracts match what their sources
say, and the finance workbook's Inputs shows them beside the inputs they inform, without replacing
those inputs (gputco's engine and LibreOffice alike).

Sources: SemiAnalysis InferenceX-app blog posts "Best GPU for DeepSeek-R1-0528 Inference" and
"Best GPU for gpt-oss-120b Inference" (2026-04-06; udfs/data/serving.toml), US EPA eGRID2022
Summary Tables and US EIA FAQ 74 (udfs/data/grid_factors.toml).
"""

from __future__ import annotations

import re

import openpyxl
import pytest
from lo import check_soffice, recalculate

from gputco import udfs
from gputco.udfs import presets
from gputco.workbook.finance.build import build_workbook, fill_cached_values

ALL_SYSTEMS = list(presets.catalog("system"))


def _tps(system: str, benchmark: str = "dsr1_8k1k") -> float:
    return presets.serving(system, benchmark).value("tokens_per_gpu_second")


def test_serving_extract_reproduces_the_articles_own_statements():
    # "GB300 leads ... 18,131.6 vs 15,868.1 tok/s/GPU, a 14% gap"; "B300 gets you 88% of the
    # throughput"; "B200 on FP4 still delivers 13,429.7"; H100 "leaving 95% of the GB300's
    # throughput on the table" (DeepSeek-R1-0528 at 8k/1k).
    assert _tps("GB300_NVL72") / _tps("B300_HGX") == pytest.approx(1.14, abs=0.005)
    assert _tps("B300_HGX") / _tps("GB300_NVL72") == pytest.approx(0.88, abs=0.005)
    assert 1 - _tps("H100_HGX") / _tps("GB300_NVL72") == pytest.approx(0.95, abs=0.005)
    # gpt-oss-120b: "B200 wins on throughput (61,612.7 vs 44,999.3 tok/s/GPU), a 37% gap";
    # "MI355X ... 73% of the B200"; GB200 "12.4% behind the B200".
    oss = {s: _tps(s, "gptoss_8k1k") for s in ("B200_HGX", "MI355X", "GB200_NVL72")}
    assert oss["B200_HGX"] / oss["MI355X"] == pytest.approx(1.37, abs=0.005)
    assert oss["MI355X"] / oss["B200_HGX"] == pytest.approx(0.73, abs=0.005)
    assert 1 - oss["GB200_NVL72"] / oss["B200_HGX"] == pytest.approx(0.124, abs=0.0005)


def test_every_serving_preset_names_its_operating_point_and_source():
    for key, p in presets.catalog("serving").items():
        presets.system(p.texts["system"])  # an existing system preset
        assert key == f"{p.texts['benchmark']}_{p.texts['system']}"
        assert p.texts["precision"] in presets.PRECISIONS, key
        tps = p.entry("tokens_per_gpu_second")
        assert tps.unit == "tokens/s/GPU (input + output)", key
        assert "InferenceX-app" in tps.source and re.search(r"@[0-9a-f]{12}", tps.source), key
        assert f"{tps.value:,}" in tps.source, key  # the figure as the table prints it
        assert "highest-throughput" in p.label, key
        assert (p.value("input_tokens"), p.value("output_tokens")) == (8192, 1024), key
        assert p.value("median_tpot_ms") > 0 and p.value("concurrency") >= 1, key
    # every system but the H800 has a published DeepSeek-R1 figure; the H800 none
    assert {s for s in ALL_SYSTEMS if presets.serving(s) is None} == {"H800_HGX"}
    assert presets.serving("B300_HGX", "gptoss_8k1k") is None
    with pytest.raises(udfs.UnknownNameError, match="serving benchmark"):
        presets.serving("H100_HGX", "dsr1_1k1k")


def test_grid_factors_convert_the_published_rates_and_keep_the_us_default():
    assert udfs.energy.KG_CO2_PER_KWH_US == 0.39  # EIA, the default everywhere
    regions = {k: p for k, p in presets.catalog("grid").items() if k.startswith("egrid_")}
    assert len(regions) == 27 + 1  # 27 eGRID subregions and eGRID's US average
    for key, p in regions.items():
        e = p.entry("kg_co2_per_kwh")
        lb = float(re.search(r"rate ([\d.]+) lb/MWh", e.source).group(1))
        assert e.value == pytest.approx(lb * 0.45359237 / 1000, abs=5e-5), key
        assert e.unit == "kg CO2e/kWh" and "eGRID2022" in e.source, key
    # eGRID2022's US CO2e rate is within 4% of EIA's CO2-only US average
    assert udfs.energy.grid_factor("egrid_us") / 0.39 == pytest.approx(0.962, abs=0.002)
    assert udfs.energy.grid_factor("egrid srvc") == pytest.approx(0.2839, abs=1e-4)


def _named(wb, name):
    ((sheet, ref),) = wb.defined_names[name].destinations
    return wb[sheet][ref.replace("$", "")]


def _row_values(wb, name_1, n):
    """The values of a per-system row, from the cell named ``name_1`` rightwards."""
    first = _named(wb, name_1)
    ws = first.parent
    return [ws.cell(row=first.row, column=first.column + i).value for i in range(n)]


def _recalculated(tmp_path, engine, changes):
    src = tmp_path / "ten.xlsx"
    build_workbook(ALL_SYSTEMS).save(src)
    if changes:
        wb = openpyxl.load_workbook(src)
        for name, value in changes.items():
            _named(wb, name).value = value
        wb.save(src)
    if engine == "libreoffice":
        return openpyxl.load_workbook(recalculate(src, tmp_path / "lo"), data_only=True)
    fill_cached_values(src)
    return openpyxl.load_workbook(src, data_only=True)


@pytest.mark.parametrize("engine", ["gputco", pytest.param("libreoffice", marks=pytest.mark.libreoffice)])
@pytest.mark.parametrize("serving,region", [("dsr1_8k1k", "us_average"), ("gptoss_8k1k", "egrid_srvc")])
def test_inputs_show_the_presets_beside_the_inputs_and_replace_nothing(tmp_path, engine, serving, region):
    if engine == "libreoffice":
        check_soffice()  # skipped without LibreOffice, failed in CI (tests/lo.py)
    changes = {} if region == "us_average" else {"inp_serve_benchmark": serving, "inp_grid_region": region}
    wb = _recalculated(tmp_path, engine, changes)
    n = len(ALL_SYSTEMS)
    shown = _row_values(wb, "pre_serve_tokens_per_gpu_second_1", n)
    first = _named(wb, "pre_serve_tokens_per_gpu_second_1")
    details = [first.parent.cell(row=first.row + 1, column=first.column + i).value for i in range(n)]
    for system, value, detail in zip(ALL_SYSTEMS, shown, details, strict=True):
        p = presets.serving(system, serving)
        if p is None:
            assert value == "none published" and detail in (None, ""), system
        else:
            assert value == p.value("tokens_per_gpu_second"), system
            assert detail == f"{p.texts['precision']} {p.texts['framework']}", system
    # the inputs themselves stay as they were: blank throughput, the US-average factor
    assert _row_values(wb, "inp_serve_tokens_per_gpu_second_1", n) == [None] * n
    assert _named(wb, "inp_kg_co2_per_kwh").value == 0.39
    factor = _named(wb, "pre_kg_co2_per_kwh")
    assert factor.value == pytest.approx(udfs.energy.grid_factor(region), rel=1e-12)
    assert (
        "EIA" in factor.parent.cell(row=factor.row, column=factor.column + 1).value
        or "eGRID2022" in factor.parent.cell(row=factor.row, column=factor.column + 1).value
    )
    used = _named(wb, "inp_kg_co2_per_kwh")
    # the note: the row's text right of the input (its range check sits between them)
    beside = [used.parent.cell(row=used.row, column=used.column + i).value for i in range(1, 5)]
    note = next(v for v in beside if isinstance(v, str) and v.startswith(("=", "not")))
    assert note.startswith("= the region") if region == "us_average" else note.startswith("not the region")
    co2 = _named(wb, "out_co2_tonnes_1").value  # the CO2 step still uses the factor typed
    assert co2 == pytest.approx(
        udfs.tco_co2_tonnes(300e9 * _named(wb, "out_joules_per_token_1").value, 0.39), rel=1e-9
    )
