"""Record the project's results and period tables of today's code on many drawn cases, into
tests/data/project_pinned.json (tests/test_project_pinned.py holds every later version to them:
year mode bit for bit, month mode within 1e-12).

Run from the repository: ``python tests/project_pin_record.py`` (only when a change of the
results is meant, and say so in the commit).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from gputco.udfs import project

OUT = Path(__file__).parent / "data" / "project_pinned.json"
SEED = 20261206
N_RESULTS = 400  # cases whose results are pinned (half by year, half by month)
N_TABLES = 24  # cases whose TCO_PROJECT_CASHFLOWS table is pinned


def draw(rng: np.random.Generator, month: bool) -> dict:
    """One project drawn over every term (the defaults left out now and then)."""
    life = int(rng.integers(1, 9))
    v: dict = {
        "periods": "month" if month else "year",
        "capex_per_gpu": round(float(rng.uniform(15000, 70000)), 2),
        "rent_usd_per_gpu_hour": round(float(rng.uniform(0.8, 6.0)), 4),
        "opex_usd_per_gpu_hour": round(float(rng.uniform(0.1, 0.9)), 4),
        "life_years": life,
        "cost_of_capital": round(float(rng.uniform(0.0, 0.2)), 4),
    }

    def maybe(key, value, p=0.6):
        if rng.random() < p:
            v[key] = value

    maybe("residual_fraction", round(float(rng.uniform(0, 0.3)), 4))
    maybe("availability", round(float(rng.uniform(0.85, 1.0)), 4))
    maybe("utilisation", round(float(rng.uniform(0.5, 1.0)), 4))
    maybe("tax_rate", round(float(rng.uniform(0, 0.35)), 4))
    maybe("depreciation_years", int(rng.integers(1, life + 1)))
    maybe("rent_decline_per_year", round(float(rng.uniform(0, 0.25)), 4))
    maybe("opex_escalation_per_year", round(float(rng.uniform(-0.05, 0.08)), 4))
    maybe("power_usd_per_gpu_hour", round(float(rng.uniform(0, 0.2)), 4))
    maybe("idle_power_fraction", round(float(rng.uniform(0.2, 1.0)), 4))
    maybe("build_months", int(12 * rng.integers(0, 3)) if not month else int(rng.integers(0, 25)))
    maybe("ramp_months", int(rng.integers(0, 13)))
    maybe("maintenance_fraction_per_year", round(float(rng.uniform(0, 0.03)), 4))
    maybe("staff_usd_per_gpu_year", round(float(rng.uniform(0, 400)), 2))
    maybe("insurance_fraction_per_year", round(float(rng.uniform(0, 0.01)), 4))
    maybe("software_usd_per_gpu_hour", round(float(rng.uniform(0, 0.08)), 4))
    maybe("contracted_fraction", round(float(rng.uniform(0, 1)), 4))
    maybe("contract_rent_usd_per_gpu_hour", round(float(rng.uniform(0.8, 6.0)), 4), 0.4)
    maybe("contract_years", int(rng.integers(0, life + 1)), 0.4)
    maybe("debt_fraction", round(float(rng.uniform(0, 0.8)), 4), 0.7)
    maybe("debt_rate", round(float(rng.uniform(0, 0.15)), 4))
    maybe("debt_years", int(rng.integers(1, life + 1)))
    maybe("cost_of_equity", round(float(rng.uniform(0.05, 0.3)), 4))
    maybe("bonus_depreciation_fraction", round(float(rng.uniform(0, 1)), 4), 0.3)
    maybe("depreciation_method", str(rng.choice(project.DEPRECIATION_METHODS)))
    return v


def cases() -> list[dict]:
    rng = np.random.default_rng(SEED)
    return [draw(rng, month=i % 2 == 1) for i in range(N_RESULTS)]


def _num(x: float):
    x = float(x)
    return None if math.isnan(x) else x if math.isfinite(x) else ("inf" if x > 0 else "-inf")


def batch_values(cases: list[dict]) -> dict:
    """The cases as one batch: a column per term, a missing term its default (a term defaulting to
    another term takes that term's value)."""
    keys = sorted({k for c in cases for k in c})
    values: dict = {}
    for k in keys:
        if k in project.CHOICES:
            values[k] = [c.get(k, project.CHOICES[k]) for c in cases]
            continue
        default = project.TERMS[k]
        col = []
        for c in cases:
            x = c.get(k)
            if x is None and isinstance(default, str):
                x = c.get(default, project.TERMS[default])
            col.append(default if x is None else x)
        values[k] = col
    return values


def record() -> dict:
    out: dict = {"seed": SEED, "results": [], "tables": [], "batch": {}}
    every = cases()
    for periods in ("year", "month"):
        chosen = [c for c in every if c["periods"] == periods]
        got = project.results(batch_values(chosen))
        out["batch"][periods] = {
            k: [int(x) for x in v] if k.endswith("_why") else [_num(x) for x in v] for k, v in got.items()
        }
    for i, case in enumerate(every):
        got = project.results(case)
        row = {k: _num(v[0]) for k, v in got.items() if not k.endswith("_why")}
        row.update({k: int(v[0]) for k, v in got.items() if k.endswith("_why")})
        out["results"].append({"case": case, "results": row})
        if i < N_TABLES:
            args = {k: v for k, v in case.items()}
            rows = project.tco_project_cashflows(**args)
            out["tables"].append({"case": case, "rows": rows})
    return out


if __name__ == "__main__":
    OUT.write_text(json.dumps(record(), indent=0) + "\n")
    print(OUT, OUT.stat().st_size)


def seeded(seed: int, month: bool, debt_chance: float = 1.0, covenant: bool = False) -> dict:
    """One drawn case (:func:`draw`) from ``seed``, then a debt of 10-80% of the capex in
    ``debt_chance`` of the draws (every one at 1) and, with ``covenant``, a DSCR covenant of
    0.5-2.5x: the lender's and the tax-loss tests' cases."""
    rng = np.random.default_rng(seed)
    case = draw(rng, month)
    if debt_chance >= 1 or rng.random() < debt_chance:
        case["debt_fraction"] = round(float(rng.uniform(0.1, 0.8)), 4)
    if covenant:
        case["covenant_dscr"] = round(float(rng.uniform(0.5, 2.5)), 3)
    return case
