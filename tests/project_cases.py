"""The drawn projects' structures shared by the finance-workbook and scenario-workbook tests
(tests/test_project_workbook.py, tests/test_scenarios_project.py): the systems drawn and, per
case, the inputs set once (scenario input names), each case exercising other project terms."""

from __future__ import annotations

import math

import numpy as np

#: the systems whose columns (or zipped rows) are drawn
SYSTEMS = ("H100_HGX", "GB200_NVL72", "B200_HGX", "H200_HGX", "MI300X")
#: the relative tolerance of every comparison with Python
REL = 1e-9
#: the memo case of docs/project.md, with debt
MEMO = {
    "capex_per_gpu": 31250.0,
    "rent_usd_per_gpu_hour": 2.0,
    "opex_usd_per_gpu_hour": 0.4045,
    "life_years": 5.0,
    "cost_of_capital": 0.1,
    "build_months": 12.0,
    "ramp_months": 3.0,
    "debt_fraction": 0.6,
    "debt_rate": 0.09,
    "debt_years": 4.0,
    "tax_rate": 0.21,
    "depreciation_method": "macrs_5",
}

#: the memo case's inputs set once (docs/project.md: System 1 GB200 NVL72 racks, System 2 H100
#: servers), as a workbook's Inputs or a SPEC's [fixed] take them
MEMO_BOOK = {
    "buyer": "neocloud_giant",
    "periods": "month",
    "depreciation_method": "macrs_5",
    "debt_fraction": 0.6,
    "debt_rate": 0.09,
    "debt_years": 4,
    "tax_rate": 0.21,
}

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
    "month_lender_waterfall": {
        **MEMO_BOOK,
        "debt_repayment": "sculpted",
        "debt_grace_months": 3,
        "dsra_months": 6,
        "sweep_fraction": 0.5,
        "lockup_dscr": 1.3,
        "debt_upfront_fee_fraction": 0.01,
        "tax_losses": "carry_forward",
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


def drawn_finance_book(
    seed: int,
    per_system,
    *,
    month: bool | None = None,
    years: tuple[int, int] = (2, 5),
    shared: tuple[str, float, float] = ("inp_rent_decline_per_year", 0.0, 0.3),
) -> dict[str, object]:
    """A drawn finance workbook's ``inp_`` cells: debt (share, rate, tenor drawn in ``years``), by
    month (default: odd ``seed``) or year, the ``shared`` input (name, low, high: default a rent
    decline), 21% tax, and per system of :data:`SYSTEMS` a rent, an MFU of 0.5 and what
    ``per_system(rng, k)`` draws (cells left as None are not written)."""
    rng = np.random.default_rng(seed)
    month = bool(seed % 2) if month is None else month
    name, low, high = shared
    out: dict[str, object] = {
        "inp_periods": "month" if month else "year",
        "inp_debt_fraction": round(float(rng.uniform(0.3, 0.8)), 4),
        "inp_debt_rate": round(float(rng.uniform(0.04, 0.12)), 4),
        "inp_debt_years": int(rng.integers(*years)),
        name: round(float(rng.uniform(low, high)), 4),
        "inp_tax_rate": 0.21,
    }
    for k in range(1, len(SYSTEMS) + 1):
        out[f"inp_rent_usd_per_gpu_hour_{k}"] = round(float(rng.uniform(2.0, 4.0)), 4)
        out[f"inp_mfu_{k}"] = 0.5
        out.update(per_system(rng, k))
    return {key: v for key, v in out.items() if v is not None}


def write_finance_book(path, systems, inputs: dict[str, object]):
    """A finance workbook of ``systems`` (hyperscaler buyer) with ``inputs`` (defined name ->
    value, the ``inp_`` cells) written, saved at ``path``."""
    from gputco.workbook.finance.build import build_workbook

    wb = build_workbook(list(systems), "hyperscaler")
    for key, value in inputs.items():
        ((sheet, ref),) = wb.defined_names[key].destinations
        wb[sheet][ref.replace("$", "")] = value
    wb.save(path)
    return path


def read_finance_book(path, n: int, lines) -> list[tuple[dict[str, object], dict[str, list]]]:
    """Per system column 1..``n`` of a recalculated finance workbook: the Model sheet's rows by key
    (column A) and the period table's ``lines`` (each a list over the table's rows)."""
    import openpyxl

    from gputco.workbook.finance import projectflows
    from gputco.workbook.finance.cashflow import sheet_name

    wb = openpyxl.load_workbook(path, data_only=True)
    model = wb["Model"]
    rows = {model.cell(row=r, column=1).value: r for r in range(1, model.max_row + 1)}
    out = []
    for k in range(1, n + 1):
        ws = wb[sheet_name(k)]
        table = {
            key: [
                ws[f"{projectflows.col(key)}{r}"].value
                for r in range(projectflows.FIRST_ROW, projectflows.LAST_ROW + 1)
            ]
            for key in lines
        }
        out.append(({key: model.cell(row=r, column=3 + k).value for key, r in rows.items() if key}, table))
    return out


def batch_rows(tmp_path, csv_path) -> list[dict[str, str]]:
    """``gputco batch`` of the CSV at ``csv_path`` (it must succeed): its output rows by column."""
    import csv
    import subprocess
    import sys

    out = tmp_path / "batch_out.csv"
    subprocess.run(
        [sys.executable, "-m", "gputco.addin.cli", "batch", str(csv_path), "-o", str(out)],
        check=True,
        capture_output=True,
    )
    with open(out, newline="") as f:
        return list(csv.DictReader(f))


def batch_refusal(tmp_path, csv_text: str) -> str:
    """``gputco batch`` of a CSV of ``csv_text`` that must be refused: no output written, exit
    not 0; its stderr."""
    import subprocess
    import sys

    bad, out = tmp_path / "bad.csv", tmp_path / "bad_out.csv"
    bad.write_text(csv_text)
    proc = subprocess.run(
        [sys.executable, "-m", "gputco.addin.cli", "batch", str(bad), "-o", str(out)],
        capture_output=True,
        text=True,
    )
    assert proc.returncode != 0 and not out.exists()
    return proc.stderr


def assert_cells_are_results(cells: dict, case: dict, keys: tuple[str, ...], label: object) -> None:
    """A workbook's result cells (``cells[key]``) equal ``udfs.project.results`` of ``case`` (REL)."""
    from gputco.udfs import project

    want = project.results(case, keys)
    for key in keys:
        assert math.isclose(cells[key], float(want[key][0]), rel_tol=REL, abs_tol=1e-12), (
            label,
            key,
            cells[key],
            want[key][0],
        )
