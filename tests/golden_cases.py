"""The public golden cases (tests/data/cases-public.json) as the golden tests read them.

The file holds published figures, each with its source (SemiAnalysis 2025-08-20, NVIDIA
dgxc-benchmarking README_175b) and a relative tolerance; ``TESTED`` names every case a golden test
reproduces, so that a case added to the file without a test fails both golden test files.
"""

from __future__ import annotations

import json
from pathlib import Path

DATA = json.loads((Path(__file__).parent / "data" / "cases-public.json").read_text())
CONV = DATA["conventions"]
CASES = {case["id"]: case for case in DATA["cases"]}
#: the cases tests/test_golden.py and tests/test_excel_golden.py each reproduce
TESTED = frozenset(
    {
        "gpt3_175b_fp8_dec2024_cost_per_mtok",
        "gpt3_175b_fp8_dec2024_tokens_per_gpu_second",
        "gpt3_175b_bf16_dec2024_tokens_per_gpu_second",
        "gpt3_175b_fp8_joules_per_token",
        "gpt3_175b_bf16_joules_per_token",
        "gpt3_175b_fp8_tokens_per_household_year",
        "gpt3_175b_300b_tokens_household_years",
        "capex_per_gpu_all_in_hyperscaler",
    }
)
