"""The finance presets (udfs/data/finance.toml): every row dated and sourced, each marked measured,
derived or assumption, the sourced figures equal to the public figures, the derived curves equal to
the formulas their sources state.

The public figures are read from tests/data/facts_finance_2026.md, a copy of the gathered notes in
which every row names its public address and date.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from pathlib import Path

import pytest

from gputco.udfs import presets

REFERENCE = (Path(__file__).parent / "data" / "facts_finance_2026.md").read_text("utf-8")
#: a public web address in a source: a host name with a dot and a known top-level domain
ADDRESS = re.compile(r"\b[\w-]+\.(com|io|co|org|gov|media|ai|dev|net|news|cc)\b")
ROWS = [(key, name, e) for key, p in presets.catalog("finance").items() for name, e in p.entries.items()]


def test_every_finance_row_has_a_unit_a_source_and_an_as_of_date():
    assert len(ROWS) >= 40
    for key, name, e in ROWS:
        assert e.unit.strip(), (key, name)
        assert len(e.source) >= 20, (key, name)
        assert isinstance(e.as_of, dt.date) and dt.date(2023, 1, 1) <= e.as_of <= dt.date(2026, 12, 6)
        assert e.value is not None and math.isfinite(e.value) and e.value >= 0, (key, name)


def test_every_group_the_brief_names_has_rows():
    groups = {p.texts["group"] for p in presets.catalog("finance").values()}
    assert groups == set(presets.FINANCE_GROUPS)


def test_the_basis_says_what_the_sources_say():
    # measured: stated by the source (its address in the text, no "derived"/"assumption" label);
    # derived: every figure says how it is computed; assumption: labelled in the source.
    for key, p in presets.catalog("finance").items():
        sources = [e.source.lower() for e in p.entries.values()]
        basis = p.texts["basis"]
        if basis == "measured":
            assert not any(s.startswith(("derived", "assumption")) for s in sources), key
            assert all(ADDRESS.search(s) for s in sources), key
        elif basis == "derived":
            assert all(s.startswith(("derived:", "assumption")) for s in sources), key
        else:
            assert any("assumption" in s for s in sources), key


def test_a_row_without_a_basis_or_with_a_gap_in_its_curve_is_refused():
    head = "[c]\nlabel = 'C'\ngroup = 'value_curve'\n"
    row = "{ value = 1, unit = 'x', source = 'derived: s', as_of = 2026-01-01 }"
    with pytest.raises(presets.UnknownNameError, match=r"f.toml \[c\] basis"):
        presets.parse("finance", "f.toml", head + f"t0 = {row}\n")
    with pytest.raises(presets.MissingValueError, match=r"f.toml \[c\] t1 is required"):
        presets.parse("finance", "f.toml", head + f"basis = 'derived'\nt0 = {row}\nt2 = {row}\n")
    figure = "[s]\nlabel = 'S'\ngroup = 'spread'\nbasis = 'measured'\n"
    with pytest.raises(presets.MissingValueError, match=r"\[s\] value"):
        presets.parse("finance", "f.toml", figure + f"low = {row}\n")


#: (preset, field, value, the public address in the preset's source, the figure as the reference
#: row at that address writes it)
PUBLISHED = [
    (
        "spread_ig_2025",
        "low",
        0.06,
        "www.pubt.io/view/B0F05C44256F2603B18631E4C65B13F1CD9F5C95",
        "6.00–6.50 %",
    ),
    (
        "spread_ig_2025",
        "high",
        0.065,
        "www.pubt.io/view/B0F05C44256F2603B18631E4C65B13F1CD9F5C95",
        "6.00–6.50 %",
    ),
    (
        "spread_sub_ig_2025",
        "value",
        0.13,
        "www.pubt.io/view/B0F05C44256F2603B18631E4C65B13F1CD9F5C95",
        "13.00 %",
    ),
    ("spread_a3_2026", "value", 0.0225, "davefriedman.substack.com", "SOFR + 2.25 %"),
    ("spread_ba2_2026", "value", 0.045, "davefriedman.substack.com", "SOFR + 4.50 %"),
    (
        "spread_aaa_dc_abs_2026",
        "value",
        0.012,
        "www.airealist.ai/p/two-markets-one-asset-the-gpu-debt",
        "SOFR + 120 bps",
    ),
    ("coreweave_ddtl1_effective_2025", "value", 0.15, "000114036125032095/R41.htm", "DDTL 1.0 **15 %**"),
    ("coreweave_ddtl2_effective_2025", "value", 0.11, "000114036125032095/R41.htm", "DDTL 2.0 **11 %**"),
    ("coreweave_ddtl4_fixed_2026", "value", 0.059, "davefriedman.substack.com", "≈ 5.9 %"),
    ("terawulf_notes_2030", "value", 0.08, "blockspace.media", "**8.0 %**"),
    ("hyperion_bonds_2049", "value", 0.0658, "www.ifre.com", "**6.58 %**"),
    (
        "h100_resale_2026_q1",
        "low",
        22000,
        "runlocalai.co/pulse/nvidia-b200-production-ramp-pricing",
        "$22–25k",
    ),
    (
        "h100_resale_2026_q1",
        "high",
        25000,
        "runlocalai.co/pulse/nvidia-b200-production-ramp-pricing",
        "$22–25k",
    ),
    ("h200_resale_2026_q1", "low", 28000, "runlocalai.co", "H200 SXM $28–31k"),
    ("b200_resale_2026_q1", "high", 43000, "runlocalai.co", "B200 $40–43k"),
    ("h100_rent_fall_2024_25", "low", 0.60, "ccir.io/services.html", "**60–70 %**"),
    ("h100_rent_2025_ytd", "value", 0.22, "pcnewstoday.com", "H100 −22 %"),
    ("h200_rent_2025_ytd", "value", 0.29, "pcnewstoday.com", "H200 −29 %"),
    ("pue_cap_de_new", "value", 1.2, "www.deerns.com", "PUE ≤ 1.2"),
    ("pue_global_average_2025", "value", 1.54, "intelligence.uptimeinstitute.com", "**1.54**"),
    (
        "colo_gpu_range_2026",
        "low",
        130,
        "encoradvisors.com/data-center-colocation-pricing/",
        "$130–250 per kW-month",
    ),
    (
        "power_ercot",
        "high",
        0.065,
        "www.datacentres.com/guides/data-centre-power-procurement",
        "ERCOT $0.045–0.065",
    ),
    ("power_ppa_solar_2025_q3", "value", 0.05977, "www.pv-magazine.com", "solar **$59.77/MWh**"),
    (
        "pjm_capacity_2027_28",
        "value",
        333.44,
        "www.realclear.ai/blog/the-power-bill-is-the-pro-forma",
        "**$333.44**/MW-day",
    ),
    ("advance_gpu_specialty", "high", 0.80, "v2-pseo-ai.pages.dev/financing/gpu-ltv-calculator", "70–80 %"),
]


@pytest.mark.parametrize(("key", "field", "value", "address", "figure"), PUBLISHED)
def test_sourced_rows_equal_the_published_figures(key, field, value, address, figure):
    e = presets.finance(key).entry(field)
    assert e.value == value
    assert address in e.source
    lines = [line for line in REFERENCE.splitlines() if address in line]
    assert lines, f"{address} is not in the reference notes"
    assert any(figure in line for line in lines), f"{figure!r} not in the reference row of {address}"


@pytest.mark.parametrize(
    ("key", "factor"),
    [
        # Epoch AI's economic decay: value after t years = price x 10^(-0.14 t)
        ("value_base", lambda t: 10 ** (-0.14 * t)),
        # geometric through $23.5k / $40k after 3 years
        ("value_high", lambda t: (23.5 / 40) ** (t / 3)),
        ("rent_h100_2025", lambda t: 0.78**t),
        ("rent_forward_aws_p5", lambda t: 0.72**t),
        ("rent_silicon_default", lambda t: 0.8**t),
    ],
)
def test_derived_curves_follow_the_formula_their_source_states(key, factor):
    curve = presets.finance_curve(presets.finance(key).texts["group"], key)
    assert len(curve) >= 4
    for t, f in enumerate(curve):
        assert f == pytest.approx(factor(t), abs=5e-5), (key, t)


def test_the_2024_25_h100_path_falls_by_the_published_midpoint_then_rises():
    fall = presets.finance("h100_rent_fall_2024_25")
    mid = (fall.value("low") + fall.value("high")) / 2
    rise = presets.finance("h100_rent_rise_2025_26")
    up = (rise.value("low") + rise.value("high")) / 2
    path = presets.finance_curve("rent_curve", "rent_h100_2024_25")
    assert path[0] == 1 and path[2] == pytest.approx(1 - mid)
    assert path[1] == pytest.approx(math.sqrt(1 - mid), abs=5e-5)
    assert path[3] == pytest.approx((1 - mid) * (1 + up), abs=5e-5)


def test_every_curve_starts_at_one_and_every_system_has_three_value_bands():
    for group in ("rent_curve", "value_curve"):
        for key in presets.curve_keys(group):
            assert presets.finance_curve(group, key)[0] == 1.0, key
    for system in presets.catalog("system"):
        low, base, high = (
            presets.finance_curve("value_curve", presets.value_curve_key(system, b))
            for b in presets.VALUE_BANDS
        )
        for t in range(1, 6):
            assert low[t] < base[t] < high[t], (system, t)


def test_the_sofr_path_is_the_fixed_tranche_less_the_floating_margin():
    fixed = presets.finance("coreweave_ddtl4_fixed_2026").value("value")
    margin = presets.finance("spread_a3_2026").value("value")
    assert presets.finance_curve("base_rate_curve", "sofr_2026") == (pytest.approx(fixed - margin),)


def test_gputco_presets_lists_every_finance_row_with_its_basis():
    from gputco.addin.report import presets_listing

    text = presets_listing("finance")
    for key, p in presets.catalog("finance").items():
        assert f"[finance {key}] {p.label} ({p.texts['group']}, {p.texts['basis']})" in text
    assert text.count("; as of ") == len(ROWS)
    assert "[finance spread_a3_2026]" in presets_listing()
