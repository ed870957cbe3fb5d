"""`gputco template` writes numbers everywhere, and they are udfs's numbers.

For every buyer type, a workbook with all four systems is generated the way users get it (build,
headless recalculation, atomic write); then every keyed row of Model and Compare, every system
column, and every run on Benchmarks is compared with the udfs Python result within 1e-9
relative (tests/template_expect.py maps each row key to its udfs computation). The Checks sheet's
UDF cells must equal their native twins and chk_ok must be TRUE.
"""

from __future__ import annotations

import math

import openpyxl
import pandas as pd
import pytest
from template_expect import Scenario, check_benchmarks, check_compare, check_facts, check_model

from gputco.addin.cli import main
from gputco.udfs import presets
from gputco.workbook.finance import compare as sheet_compare
from gputco.workbook.finance import model as sheet_model
from gputco.workbook.finance.build import write_template

ALL_SYSTEMS = list(presets.catalog("system"))
BUYERS = list(presets.catalog("buyer"))


@pytest.fixture(scope="module", params=BUYERS)
def generated(request, tmp_path_factory):
    """(scenario, path, cached values workbook) for one buyer type and all four systems."""
    buyer = request.param
    path = tmp_path_factory.mktemp(f"tpl-{buyer}") / "gpu-tco.xlsx"
    write_template(path, ALL_SYSTEMS, buyer)
    return Scenario(ALL_SYSTEMS, buyer), path, openpyxl.load_workbook(path, data_only=True)


def test_model_sheet_equals_udfs_everywhere(generated):
    sc, _path, values = generated
    bad, n = check_model(values["Model"], sc)
    assert not bad, "\n".join(bad[:30])
    assert n == len([k for k, *_ in sheet_model.rows() if k]) * len(sc.systems)  # every row


def test_compare_sheet_equals_udfs_everywhere(generated):
    sc, _path, values = generated
    bad, n = check_compare(values["Compare"], sc)
    assert not bad, "\n".join(bad[:30])
    rows = len([k for k, *_ in sheet_compare.ROWS if k]) + sheet_compare.SWEEP_ROWS
    assert n == rows * len(sc.systems) + sheet_compare.SWEEP_ROWS  # + the sweep's MFU cells


def test_benchmarks_sheet_equals_udfs(generated):
    sc, _path, values = generated
    bad, n = check_benchmarks(values["Benchmarks"], sc.buyer)
    assert not bad, "\n".join(bad[:30])
    assert n == len(presets.catalog("run")) * 27


def test_benchmarks_moe_training_facts_equal_udfs(generated):
    """The block of published MoE training runs (native formulas, gputco's engine) equals udfs, and
    reproduces the published figures: DeepSeek-V3's $5.576M (2.788M H800 GPU-hours at $2) and
    $5.328M (pre-training), 1,543 tokens/s per H800 and 17.3% / 34.6% of the FP8 / BF16 peaks
    with 6N (Llama 4 model card, Meta, 2025-04-05)."""
    from gputco.udfs.published import FACT_HEADER, training_facts

    sc, _path, values = generated
    ws = values["Benchmarks"]
    bad, n = check_facts(ws, sc.buyer)
    assert not bad, "\n".join(bad[:30])
    from gputco.workbook.finance.bench_facts import COLUMNS

    assert n == len(presets.catalog("training_fact")) * len(COLUMNS)
    rows = {ws.cell(row=r, column=1).value: [c.value for c in ws[r]] for r in range(1, ws.max_row + 1)}

    col = {key: i for i, (key, *_rest) in enumerate(COLUMNS)}
    total, pre = rows["deepseek_v3_total"], rows["deepseek_v3_pretraining"]
    assert total[col["usd_at_published_rate"]] == pytest.approx(5.576e6, rel=1e-12)
    assert total[col["diff_published_usd"]] == pytest.approx(0.0, abs=1e-12)
    assert pre[col["usd_at_published_rate"]] == pytest.approx(5.328e6, rel=1e-12)
    assert pre[col["tokens_per_gpu_second"]] == pytest.approx(1543.2, abs=0.1)
    assert pre[col["mfu_fp8_6n"]] == pytest.approx(0.173, abs=5e-4)
    assert pre[col["mfu_bf16_6n"]] == pytest.approx(0.346, abs=5e-4)
    for fact in training_facts(buyer=sc.buyer)[1:]:  # the Python twin, column by column
        d = dict(zip(FACT_HEADER, fact, strict=True))
        # the implied throughput and MFUs and the cost at the published rate (the columns from
        # tokens_per_gpu_second to published_usd), and the cost at the TCO
        implied = FACT_HEADER[FACT_HEADER.index("tokens_per_gpu_second") : FACT_HEADER.index("published_usd")]
        for key in (*implied, "usd_at_tco"):
            got = rows[d["fact"]][col[key]]
            assert (got is None) if d[key] is None else math.isclose(got, d[key], rel_tol=1e-9), (
                d["fact"],
                key,
                got,
                d[key],
            )


def test_every_formula_cell_carries_a_value(generated):
    _sc, path, values = generated
    formulas = openpyxl.load_workbook(path)
    # a formula may be empty by design only where it says so: IF(..., "") (no payback this
    # year, no rent given)
    empty = [
        f"{ws.title}!{c.coordinate}"
        for ws in formulas.worksheets
        for row in ws.iter_rows()
        for c in row
        if isinstance(c.value, str)
        and c.value.startswith("=")
        and values[ws.title][c.coordinate].value is None
        and '""' not in c.value
    ]
    assert not empty, empty[:20]


def test_checks_udfs_equal_their_native_twins(generated):
    _sc, _path, values = generated
    ws = values["Checks"]
    rows = 0
    for r in range(8, ws.max_row + 1):
        native, udf, applies, ok = (ws.cell(row=r, column=c).value for c in (3, 4, 6, 7))
        if native is None:
            continue
        assert ok is True, r
        if applies is not True:  # no rent (H800 has no sourced rent) or no serving throughput
            assert ws.cell(row=r, column=1).value in (
                "usd_per_mtok_served",
                "breakeven_utilisation",
                "cash_breakeven_utilisation",
                "npv_usd_per_gpu",
                "irr",
                "payback_years",
                "breakeven_rent_usd_per_gpu_hour",
            ), r
            continue
        if isinstance(native, str):  # the same documented text: no break-even utilisation
            assert udf.startswith(f"#NUM! {native}"), (r, native, udf)
            continue
        rows += 1
        assert isinstance(udf, int | float) and math.isclose(udf, native, rel_tol=1e-9, abs_tol=1e-12), (
            r,
            ws.cell(row=r, column=1).value,
            native,
            udf,
        )
        assert ok is True, r
    assert rows > 100
    assert ws["C4"].value is True  # chk_ok


def test_pandas_reads_numbers(generated):
    _sc, path, _values = generated
    model = pd.read_excel(path, sheet_name="Model", header=3, index_col=0)
    tco = model.loc["tco_usd_per_gpu_hour", "System 1"]
    assert isinstance(tco, float) and 1 < tco < 3


def test_cli_writes_the_default_workbook_and_prints_the_summary(tmp_path, capsys):
    path = tmp_path / "gpu-tco.xlsx"
    assert main(["template", "-o", str(path)]) == 0
    out = capsys.readouterr().out
    assert "H100_HGX" in out and "GB200_NVL72" in out and "1.584" in out
    ws = openpyxl.load_workbook(path, data_only=True)["Compare"]
    row = next(r for r in range(1, ws.max_row + 1) if ws.cell(row=r, column=1).value == "tco_ratio")
    assert ws.cell(row=row, column=5).value == pytest.approx(1.5841, abs=1e-4)
    assert main(["template", "-o", str(path), "--force", "--buyer", "emerging_neocloud"]) == 0
    assert openpyxl.load_workbook(path, data_only=True)["Inputs"]["D5"].value == "emerging_neocloud"


def test_benchmarks_calibration_and_speedups_equal_udfs(default_template):
    """The Calibration block's workbook ratios equal udfs.calibration (engine formulas vs numpy),
    all within 5% of SemiAnalysis's published ratios; the speed-up block's break-even speed-ups
    and verdicts equal udfs.published.speedup_table."""
    from gputco.udfs.calibration import calibration_table
    from gputco.udfs.published import speedup_table

    rows = list(
        openpyxl.load_workbook(default_template, data_only=True)["Benchmarks"].iter_rows(values_only=True)
    )
    start = next(i for i, r in enumerate(rows) if str(r[0]).startswith("Calibration"))
    got = {r[0]: r for r in rows[start + 2 : start + 2 + len(calibration_table()) - 1]}
    for system, _published, pub_ratio, _ours, ours_ratio, _diff, kind in calibration_table()[1:]:
        r = got[system]
        assert math.isclose(r[4], ours_ratio, rel_tol=1e-9), system
        assert math.isclose(r[2], pub_ratio, rel_tol=1e-12) and abs(r[5]) < 0.05, system
        assert r[6] == kind
    start = next(i for i, r in enumerate(rows) if str(r[0]).startswith("Is it faster"))
    table = speedup_table()
    for i, values in enumerate(table[1:]):
        d = dict(zip(table[0], values, strict=True))
        r = rows[start + 2 + i]
        assert (r[0], r[1]) == (d["model"], d["system"])
        assert math.isclose(r[5], d["speedup"], rel_tol=1e-12)
        assert math.isclose(r[6], d["breakeven_speedup"], rel_tol=1e-9)
        assert r[7] == d["verdict"]
