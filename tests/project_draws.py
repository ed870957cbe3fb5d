"""Drawn projects shared by the project's tests and its benchmark: the core terms of many random
GPUs (udfs/project.py's terms) and the financed month case (benchmarks/bench_project.py's
``month+debt``, the threads test of tests/test_project.py)."""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

#: by month, 60% debt at 9% over 4 years, a 12-month build, a 3-month ramp, MACRS 5-year
MONTH_DEBT = {
    "periods": "month",
    "debt_fraction": 0.6,
    "debt_rate": 0.09,
    "debt_years": 4.0,
    "build_months": 12.0,
    "ramp_months": 3.0,
    "depreciation_method": "macrs_5",
}


def drawn(rng: np.random.Generator, n: int, rent=(2.0, 5.0), life=(4, 7), rate=(0.08, 0.15)) -> dict:
    """``n`` GPUs' core terms, drawn in this order (a seed gives the same projects): capex
    $25,000-60,000 per GPU, a rent in ``rent`` USD/GPU-h, opex $0.3-0.7 per GPU-hour, a whole
    life in [life[0], life[1]) years and a cost of capital in ``rate``."""
    return {
        "capex_per_gpu": rng.uniform(25_000, 60_000, n),
        "rent_usd_per_gpu_hour": rng.uniform(*rent, n),
        "opex_usd_per_gpu_hour": rng.uniform(0.3, 0.7, n),
        "life_years": rng.integers(*life, n).astype(float),
        "cost_of_capital": rng.uniform(*rate, n),
    }


class Clock(NamedTuple):
    """A case's periods as docs/project.md counts them (whole periods from its months and years)."""

    ppy: int  #: periods a year: 12 by month, 1 by year
    build: int  #: the build's periods (in-service is period build + 1)
    life: int  #: the operating life's periods
    tenor: int  #: the debt's periods from in-service (default: the life)
    grace: int  #: interest-only periods from in-service
    rate: float  #: the debt's rate a period (default: the cost of capital; nan without either)


def clock(case: dict) -> Clock:
    """The periods of ``case`` (a project's terms, ``periods`` "month" or "year")."""
    ppy = 12 if case.get("periods") == "month" else 1
    yearly = case.get("debt_rate", case.get("cost_of_capital", math.nan))
    return Clock(
        ppy,
        round(case.get("build_months", 0) * ppy / 12),
        round(case["life_years"] * ppy),
        round(case.get("debt_years", case["life_years"]) * ppy),
        round(case.get("debt_grace_months", 0) * ppy / 12),
        (1 + yearly) ** (1 / ppy) - 1,
    )
