"""The drawn projects' structures shared by the finance-workbook and scenario-workbook tests
(tests/test_project_workbook.py, tests/test_scenarios_project.py): the systems drawn and, per
case, the inputs set once (scenario input names), each case exercising other project terms."""

from __future__ import annotations

import numpy as np

#: the systems whose columns (or zipped rows) are drawn
SYSTEMS = ("H100_HGX", "GB200_NVL72", "B200_HGX", "H200_HGX", "MI300X")
#: the relative tolerance of every comparison with Python
REL = 1e-9

#: the structure of each drawn case: the inputs set once (a SPEC's [fixed], a workbook's Inputs)
BOOKS = {
    "year_debt_macrs5_bonus": {
        "buyer": "neocloud_giant",
        "periods": "year",
        "depreciation_method": "macrs_5",
        "bonus_depreciation_fraction": 0.3,
        "debt_fraction": 0.5,
        "debt_rate": 0.08,
        "debt_years": 3,
        "tax_rate": 0.21,
    },
    "month_debt_macrs7": {
        "buyer": "hyperscaler",
        "periods": "month",
        "depreciation_method": "macrs_7",
        "life_years": 6,
        "debt_fraction": 0.6,
        "debt_rate": 0.09,
        "debt_years": 4,
        "cost_of_equity": 0.2,
        "tax_rate": 0.25,
    },
    "month_equity_bonus": {
        "buyer": "emerging_neocloud",
        "periods": "month",
        "depreciation_method": "straight_line",
        "bonus_depreciation_fraction": 0.5,
        "depreciation_years": 4,
        "tax_rate": 0.21,
    },
    "year_debt_straight_line": {
        "buyer": "hyperscaler",
        "periods": "year",
        "depreciation_method": "straight_line",
        "life_years": 7,
        "debt_fraction": 0.7,
        "debt_rate": 0.06,
        "tax_rate": 0.0,
    },
}


def system_terms(rng: np.random.Generator, rent: float, year: bool, life: int, blanks: bool = False) -> dict:
    """One system's drawn project terms at ``rent`` (USD per GPU-hour): GPUs, rent, availability,
    utilisation, build and ramp (a build of whole years by ``year``), idle power, the opex lines
    and a contract; with ``blanks`` the contract's rent and term are left blank (their defaults)
    three times in ten."""
    values = {
        "gpus": int(rng.integers(64, 5000)),
        "rent_usd_per_gpu_hour": round(rent, 4),
        "availability": round(float(rng.uniform(0.85, 1.0)), 4),
        "utilisation": round(float(rng.uniform(0.6, 1.0)), 4),
        "build_months": int(12 * rng.integers(0, 3)) if year else int(rng.integers(0, 25)),
        "ramp_months": int(rng.integers(0, 13)),
        "idle_power_fraction": round(float(rng.uniform(0.2, 1.0)), 4),
        "maintenance_fraction_per_year": round(float(rng.uniform(0.0, 0.03)), 4),
        "staff_usd_per_gpu_year": round(float(rng.uniform(0.0, 400.0)), 2),
        "insurance_fraction_per_year": round(float(rng.uniform(0.0, 0.01)), 4),
        "software_usd_per_gpu_hour": round(float(rng.uniform(0.0, 0.08)), 4),
        "contracted_fraction": round(float(rng.uniform(0.0, 1.0)), 4),
    }
    given = (not blanks) or rng.random() < 0.7
    values["contract_rent_usd_per_gpu_hour"] = (
        round(rent * float(rng.uniform(0.7, 1.0)), 4) if given else None
    )
    given = (not blanks) or rng.random() < 0.7
    values["contract_years"] = int(rng.integers(1, life + 1)) if given else None
    return values
