"""Calibration: gputco's TCO ratios to H100 beside SemiAnalysis's published ones.

SemiAnalysis publishes the output of its AI Cloud TCO Model (July 2026) per chip and buyer type in
the public InferenceX-app repository (extract: udfs/data/inferencex_tco.toml). Its inputs are
paywalled, so gputco is calibrated on the *ratio* to H100 for the hyperscaler buyer type: gputco's
absolute level stays the seed article's ($1.42 per H100 GPU-hour, SemiAnalysis 2025-08-20), which is
above SemiAnalysis's July 2026 $1.17 (prices and the cost of capital moved in between).

Each system is one of:

- ``"reference"``: H100 HGX, the denominator (ratio 1 by definition);
- ``"validation"``: its price is public independently of the TCO table (GB200 NVL72: SemiAnalysis
  2025-08-20's $3.9M all-in per rack), so the ratio is a test of the model;
- ``"fitted"``: its all-in price was solved so that the ratio matches (the price's source says so).
"""

from __future__ import annotations

from . import presets
from .tco import tco_gpu_hour

#: the systems of SemiAnalysis's table, in its order; H100 is the reference
SYSTEMS = (
    "H100_HGX",
    "H200_HGX",
    "B200_HGX",
    "B300_HGX",
    "GB200_NVL72",
    "GB300_NVL72",
    "MI300X",
    "MI325X",
    "MI355X",
)
REFERENCE = "H100_HGX"
#: the published column each gputco buyer type is compared with
PUBLISHED_FIELD = {"hyperscaler": "tco_hyperscaler", "neocloud_giant": "tco_neocloud_giant"}
HEADER = [
    "system",
    "published_usd_per_gpu_hour",
    "published_ratio",
    "ours_usd_per_gpu_hour",
    "ours_ratio",
    "rel_diff",
    "kind",
]


def kind(system: str) -> str:
    """ "reference", "fitted" (the price source says it was fitted) or "validation".

    >>> kind("GB200_NVL72"), kind("B300_HGX"), kind("H100_HGX")
    ('validation', 'fitted', 'reference')
    """
    key = presets.system(system).key
    if key == REFERENCE:
        return "reference"
    source = presets.system(key).entry("unit_all_in_usd").source.lower()
    return "fitted" if source.startswith("fitted") else "validation"


def calibration_table(buyer: str = presets.DEFAULT_BUYER) -> list[list]:
    """Published TCO per GPU-hour and ratio to H100 beside gputco's, one row per system.

    Parameters
    ----------
    buyer : {"hyperscaler", "neocloud_giant"}, optional
        gputco buyer type; compared with SemiAnalysis's "owning at hyperscaler volume" (costh) or
        "Neocloud Giant" (costn) column. Default "hyperscaler", the calibration target.

    Returns
    -------
    list of lists
        Header row :data:`HEADER`, then per system: key, published USD/GPU-hour, published ratio to
        H100, gputco's USD/GPU-hour, gputco's ratio, ``ours_ratio / published_ratio - 1`` and
        the kind (:func:`kind`).

    References
    ----------
    SemiAnalysis AI Cloud TCO Model, July 2026, published in github SemiAnalysisAI/InferenceX-app
    packages/constants/src/gpu-keys.ts (PR #661, 2026-07-31).

    Examples
    --------
    >>> table = calibration_table()
    >>> table[0][:3]
    ['system', 'published_usd_per_gpu_hour', 'published_ratio']
    >>> row = dict(zip(table[0], table[5]))
    >>> row["system"], round(row["published_ratio"], 3), round(row["ours_ratio"], 3), row["kind"]
    ('GB200_NVL72', 1.59, 1.584, 'validation')
    """
    key = presets.buyer(buyer).key
    if key not in PUBLISHED_FIELD:
        raise presets.UnknownNameError("buyer with a published SemiAnalysis TCO", buyer, PUBLISHED_FIELD)
    field = PUBLISHED_FIELD[key]
    pub_ref = presets.inferencex(REFERENCE).value(field)
    ours_ref = tco_gpu_hour(REFERENCE, key)
    rows: list[list] = [list(HEADER)]
    for system in SYSTEMS:
        pub = presets.inferencex(system).value(field)
        ours = tco_gpu_hour(system, key)
        pub_ratio, ours_ratio = pub / pub_ref, ours / ours_ref
        rows.append([system, pub, pub_ratio, ours, ours_ratio, ours_ratio / pub_ratio - 1, kind(system)])
    return rows
