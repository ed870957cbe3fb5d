"""Reading scenario workbooks in tests: blocks of rows by column key, named cells, formulas.

A block (Scenarios, the Monte Carlo draws, the Sensitivity cases) has a row of column keys whose
first cell is the block's id key ("scenario", "draw", "case"); its data rows follow.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import openpyxl

from gputco.udfs import scenario
from gputco.workbook.scenarios.build import build
from gputco.workbook.xlsx.rowfill import fill_rows

#: a grid over models, FLOPs conventions and precisions (the SPECs of tests/test_scenarios.py and
#: tests/test_scenarios_lo.py)
MODELS_GRID = {
    "model": ["gpt3_175b", "llama3_8b", "llama3_405b"],
    "convention": ["palm", "6n", "megatron"],
    "precision": ["bf16", "fp8"],
}

#: a grid of buyers with a sensitivity sheet (a SPEC of tests/test_scenarios.py and
#: tests/test_scenarios_lo.py)
BUYERS = {
    "grid": {
        "buyer": ["hyperscaler", "emerging_neocloud"],
        "residual_fraction": [0.0, 0.15],
        "other_usd_per_gpu_hour": [0.0, 0.05],
        "colo_usd_per_kw_month": [100, 160],
    },
    "fixed": {"system": "B200_HGX", "mfu": 0.5, "model": "llama3_70b"},
    "sensitivity": {"inputs": ["it_kw_per_gpu", "peak_tflops", "tokens", "pue"], "swing": {"pue": 0.3}},
}

#: Scenarios columns with TCO_ functions or computed from them (LibreOffice: #NAME?)
UDF_KEYS = ("tco_udf", "tco_udf_diff", "usd_per_mtok_udf", "usd_per_mtok_udf_diff")


def block(ws, id_key: str) -> tuple[list[str], list[tuple], int]:
    """(column keys, data rows as tuples, first data row) of the block whose key row starts
    with ``id_key``."""
    rows = list(ws.iter_rows(values_only=True))
    for i, row in enumerate(rows):
        if row and row[0] == id_key and i + 1 < len(rows) and rows[i + 1][0] == 1:
            keys = list(row)
            data = []
            for r in rows[i + 1 :]:
                if not isinstance(r[0], int | float):
                    break
                data.append(r)
            return keys, data, i + 2
    raise KeyError(f"no block {id_key!r} on {ws.title}")


def column(keys: list[str], data: list[tuple], key: str) -> np.ndarray:
    j = keys.index(key)
    return np.array([r[j] for r in data], dtype=float)


def named(wb, name: str):
    """The value of a single-cell defined name."""
    ((sheet, ref),) = wb.defined_names[name].destinations
    return wb[sheet][ref.replace("$", "")].value


def output(wb, keys, data, key: str, use: str = "use_") -> np.ndarray:
    """An output per row: its column, else its named cell (a value that does not vary)."""
    if key in keys:
        return column(keys, data, key)
    return np.full(len(data), float(named(wb, use + key)))


def close(a, b, rel: float = 1e-9) -> bool:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and bool(np.all(np.abs(a - b) <= rel * np.abs(b) + 1e-12))


def unrecalculated(spec, path: Path) -> Path:
    """The workbook with its rows but without any cached value (for LibreOffice alone)."""
    built = build(spec)
    built.wb.save(path)
    for sheet, first, cols in built.fills:
        fill_rows(path, sheet, first, cols)
    return path


def row_shape(formula: str, row: int) -> str:
    """The formula with references to its own row replaced by {r} (same shape on every row)."""
    return re.sub(rf"(\$?[A-Z]{{1,3}}\$?){row}(?!\d)", r"\1{r}", formula)


def expected_outputs(spec) -> dict[str, np.ndarray]:
    return scenario.evaluate(spec.scenario_inputs())


def load(path: Path, data_only: bool = True):
    return openpyxl.load_workbook(path, data_only=data_only)
