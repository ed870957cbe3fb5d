"""The three scenarios of the batch tests' CSV files (tests/test_batch.py, tests/test_batch_core.py),
as the column inputs of :func:`gputco.udfs.scenario.evaluate`: what each row means once its blanks
take the defaults and its names are normalised."""

from __future__ import annotations

import numpy as np

THREE = {
    "system": ["H100_HGX", "GB200_NVL72", "H100_HGX"],
    "buyer": ["hyperscaler", "neocloud_giant", "emerging_neocloud"],
    "precision": ["bf16", "fp8", "bf16"],
    "mfu": [0.54, 0.4, 0.3],
    "usd_per_kwh": [np.nan, 0.12, 0.05],
    "tokens": [300e9, 1e12, 300e9],
}
