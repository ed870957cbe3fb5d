"""Calibration against SemiAnalysis's published TCO per GPU-hour (July 2026, InferenceX-app extract).

udfs/data/inferencex_tco.toml holds SemiAnalysis's published figures (github SemiAnalysisAI/InferenceX-app
packages/constants/src/gpu-keys.ts, PR #661, 2026-07-31). For each of the nine chips,
gputco's hyperscaler TCO ratio to H100 is within 5% of the published ratio; GB200 NVL72 (whose price is
the seed article's, not fitted) stays at the article's ~1.58.
"""

from __future__ import annotations

import pytest

from gputco import udfs
from gputco.udfs import calibration, presets

TABLE = calibration.calibration_table("hyperscaler")
ROWS = {row[0]: dict(zip(TABLE[0], row, strict=True)) for row in TABLE[1:]}
# SemiAnalysis July 2026 hyperscaler ("costh") $/GPU-hour as published in PR #661, typed in by hand
# from the pull request's table so the extract file is checked too.
PUBLISHED = {
    "H100_HGX": 1.17,
    "H200_HGX": 1.22,
    "B200_HGX": 1.73,
    "B300_HGX": 2.26,
    "GB200_NVL72": 1.86,
    "GB300_NVL72": 2.31,
    "MI300X": 0.95,
    "MI325X": 1.10,
    "MI355X": 1.50,
}


def test_the_table_covers_the_nine_chips_with_the_published_figures():
    assert list(ROWS) == list(PUBLISHED)
    for system, usd in PUBLISHED.items():
        assert ROWS[system]["published_usd_per_gpu_hour"] == usd, system
        assert ROWS[system]["published_ratio"] == pytest.approx(usd / 1.17), system


@pytest.mark.parametrize("system", list(PUBLISHED))
def test_hyperscaler_ratio_to_h100_within_5_percent_of_semianalysis(system):
    row = ROWS[system]
    ours = udfs.tco_ratio("H100_HGX", system, "hyperscaler")
    assert row["ours_ratio"] == pytest.approx(ours, rel=1e-12)
    assert ours == pytest.approx(PUBLISHED[system] / 1.17, rel=0.05), system
    assert row["rel_diff"] == pytest.approx(ours / (PUBLISHED[system] / 1.17) - 1, abs=1e-12)


def test_gb200_is_a_validation_at_the_articles_ratio():
    # SA-2025-08: GB200 NVL72 TCO about 1.6x H100 (gputco 1.584 from the article's $3.9M and
    # $250k all-in prices); SemiAnalysis's July 2026 table gives 1.86 / 1.17 = 1.590.
    row = ROWS["GB200_NVL72"]
    assert row["kind"] == "validation"
    assert row["ours_ratio"] == pytest.approx(1.584, abs=0.001)
    assert abs(row["rel_diff"]) < 0.01


def test_fitted_prices_say_so_and_name_the_extract():
    for system, row in ROWS.items():
        source = presets.system(system).entry("unit_all_in_usd").source
        if row["kind"] == "fitted":
            assert source.startswith("fitted to InferenceX udfs/data/inferencex_tco.toml"), system
            assert "InferenceX-app" in source, system
        else:
            assert "SA-2025-08" in source, system
    assert {r["kind"] for r in ROWS.values()} == {"reference", "validation", "fitted"}


def test_all_in_kw_matches_the_published_power():
    # The system presets' all_in_kw_per_gpu is SemiAnalysis's published "power" field.
    for system in PUBLISHED:
        assert presets.system(system).value("all_in_kw_per_gpu") == presets.inferencex(system).value(
            "all_in_kw_per_gpu"
        ), system


def test_neocloud_giant_comparison_exists_but_is_not_calibrated():
    # gputco's buyer types scale capex by one multiplier, so its neocloud ratios keep the hyperscaler
    # spread; SemiAnalysis's neocloud column is flatter (B300: 2.52/1.55 = 1.63 vs gputco 1.94).
    table = calibration.calibration_table("neocloud_giant")
    rows = {r[0]: r for r in table[1:]}
    assert rows["B300_HGX"][2] == pytest.approx(2.52 / 1.55)
    assert rows["B300_HGX"][4] > rows["B300_HGX"][2]


def test_unknown_buyer_for_calibration():
    with pytest.raises(udfs.UnknownNameError, match="emerging_neocloud"):
        calibration.calibration_table("emerging_neocloud")
