"""Record the rent-or-buy results of the scenario chain (NPV, IRR, payback, break-even rent) for
fixed random scenarios into tests/data/decisions_recorded.json.

First run at commit d036a86 (the IRR grid search and the (scenarios x 16) cash-flow tables) to pin
those results before the per-row kernels of udfs/flows.py replaced them; tests/test_flows.py checks
that today's chain gives the same numbers. Run again only when a result changes on purpose:

    python tests/decisions_record.py
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from gputco.udfs import scenario

OUT = Path(__file__).parent / "data" / "decisions_recorded.json"
KEYS = (
    "project_npv_usd_per_gpu",
    "project_irr",
    "project_payback_years",
    "project_breakeven_rent_usd_per_gpu_hour",
)
SYSTEMS = ("H100_HGX", "GB200_NVL72", "B200_HGX", "MI300X")


def recorded_inputs(n: int = 3000, seed: int = 20) -> dict[str, list]:
    """Scenarios over the whole input range, many with several sign changes (steep rent decline,
    escalation, a residual) and some with no IRR or no payback; one in eight without a rent."""
    rng = np.random.default_rng(seed)
    life = rng.integers(1, 16, n).astype(float)
    rent = rng.uniform(0.5, 12.0, n).round(4)
    rent[rng.random(n) < 0.125] = np.nan
    cols = {
        "system": [SYSTEMS[i] for i in rng.integers(0, len(SYSTEMS), n)],
        "mfu": rng.uniform(0.2, 0.6, n).tolist(),
        "rent_usd_per_gpu_hour": rent.tolist(),
        "life_years": life.tolist(),
        "depreciation_years": np.ceil(life * rng.uniform(0.01, 1.0, n)).tolist(),
        "cost_of_capital": rng.uniform(0.0, 0.4, n).tolist(),
        "residual_fraction": (rng.uniform(0.0, 0.6, n) * (rng.random(n) < 0.5)).tolist(),
        "availability": rng.uniform(0.5, 1.0, n).tolist(),
        "utilisation": rng.uniform(0.2, 1.0, n).tolist(),
        "tax_rate": (rng.uniform(0.0, 0.4, n) * (rng.random(n) < 0.6)).tolist(),
        "rent_decline_per_year": (rng.uniform(0.0, 0.6, n) * (rng.random(n) < 0.6)).tolist(),
        "opex_escalation_per_year": (rng.uniform(0.0, 0.5, n) * (rng.random(n) < 0.5)).tolist(),
    }
    return {k: v if k == "system" else np.round(v, 6).tolist() for k, v in cols.items()}


def main() -> None:
    inputs = recorded_inputs()
    out = scenario.evaluate({k: np.asarray(v) for k, v in inputs.items()})
    results = {k: [None if np.isnan(x) else float(x) for x in out[k]] for k in KEYS}
    text = json.dumps({"inputs": inputs, "results": results}, allow_nan=True)
    OUT.write_text(text.replace("NaN", "null") + "\n")
    print(f"{OUT}: {len(inputs['mfu'])} scenarios")


if __name__ == "__main__":
    main()
