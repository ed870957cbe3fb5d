"""The drawn projects' structures shared by the finance-workbook and scenario-workbook tests
(tests/test_project_workbook.py, tests/test_scenarios_project.py): the systems drawn and, per
case, the inputs set once (scenario input names), each case exercising other project terms.

And the checks the project-term tests (debt shapes, floating debt, escalation, curve moves, tax
losses, the waterfall) share: a finance workbook written, recalculated by gputco's engine or
LibreOffice and read column by column beside ``udfs.project``; a financed scenario spec
evaluated, and run through ``gputco batch``, beside it."""

from __future__ import annotations

import math
from typing import NamedTuple

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


def recalculated_finance_book(
    tmp_path, inputs: dict[str, object], by: str, name: str = "book", systems=SYSTEMS
):
    """A finance workbook of ``systems`` with ``inputs`` written (:func:`write_finance_book`, at
    ``tmp_path``/``name``.xlsx), recalculated ``by`` gputco's engine (``"engine"``: its cached
    values filled, as the build fills them) or LibreOffice (``"lo"``: headless, tests/lo.py); the
    path of the workbook holding the values."""
    path = write_finance_book(tmp_path / f"{name}.xlsx", systems, inputs)
    if by == "lo":
        import lo

        return lo.recalculate(path, tmp_path / "lo")
    if by != "engine":
        raise ValueError(f"by must be 'engine' or 'lo', not {by!r}")
    from gputco.workbook.finance.build import fill_cached_values

    fill_cached_values(path)
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


def finance_book_tests(books: dict[str, dict], check, in_libreoffice: list[str]):
    """The two tests of drawn finance workbooks (``books``: name -> inputs), as a test module
    binds them: ``test_the_finance_workbook_in_the_engine_equals_python`` (every book, gputco's
    engine) and ``test_the_finance_workbook_in_libreoffice_equals_python`` (the books named in
    ``in_libreoffice``, LibreOffice headless); each calls ``check(path, name)`` on the workbook
    holding the values."""
    import pytest
    from lo import requires_soffice

    @pytest.mark.parametrize("name", list(books))
    def in_the_engine(tmp_path, name):
        check(recalculated_finance_book(tmp_path, books[name], "engine", name), name)

    @requires_soffice
    @pytest.mark.parametrize("name", in_libreoffice)
    def in_libreoffice_(tmp_path, name):
        check(recalculated_finance_book(tmp_path, books[name], "lo", name), name)

    return in_the_engine, in_libreoffice_


class FinanceColumn(NamedTuple):
    """One system column k of a recalculated finance workbook, beside Python."""

    k: int
    #: its Model rows by key
    cell: dict
    #: its period table's lines asked for, each a list over the table's rows
    lines: dict
    #: the project's terms as its Model rows hold them (every argument of the project UDFs; a
    #: blank is None or "")
    terms: dict
    #: those terms without the blanks, as ``udfs.project`` takes them
    given: dict
    #: ``udfs.project.period_lines`` of ``given``
    py: dict


def finance_book_columns(path, lines, systems=SYSTEMS) -> list[FinanceColumn]:
    """:func:`read_finance_book` of the workbook at ``path`` (``systems`` columns), each column with
    the project terms its Model rows hold and Python's period lines of them."""
    from gputco.udfs import project

    out = []
    for k, (cell, table) in enumerate(read_finance_book(path, len(systems), lines), start=1):
        terms = {key: cell[key] for key in (*project._REQUIRED, *project.OPTIONAL_ARGS)}
        given = {key: v for key, v in terms.items() if v is not None and v != ""}
        out.append(FinanceColumn(k, cell, table, terms, given, project.period_lines(given)))
    return out


def assert_lines_are_python(column: FinanceColumn, keys) -> None:
    """The column's period table lines ``keys`` equal Python's over the project's periods (rel and
    abs 1e-9)."""
    import pytest

    n = column.py["net"].shape[0]
    for key in keys:
        want = column.py[key][:, 0].tolist()
        assert column.lines[key][:n] == pytest.approx(want, rel=1e-9, abs=1e-9), (column.k, key)


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


def financed_spec(n: int, **inputs) -> dict:
    """A scenario spec of ``n`` columns (scenario.evaluate's): one H100 HGX at MFU 0.5 rented at
    2.0 USD/GPU-hour, 60% of its capex borrowed, by month, with ``inputs`` (a list of ``n``
    values, or one value for every column) over these."""
    return {
        "system": "H100_HGX",
        "mfu": [0.5] * n,
        "rent_usd_per_gpu_hour": [2.0] * n,
        "debt_fraction": [0.6] * n,
        "periods": "month",
        **inputs,
    }


def scenario_equals_project(spec: dict, n: int, keys: tuple[str, ...]) -> tuple[dict, list[dict]]:
    """``scenario.evaluate`` of ``spec`` (``n`` columns): each column's ``keys`` equal
    ``udfs.project.results`` (rel 1e-12) of the terms it used, the numbers from
    ``scenario.used_inputs`` and its results, the texts (periods, debt shapes, curves) as the spec
    gives them (column j's of a list). Returns the evaluator's columns and each column's terms."""
    import pytest

    from gputco.udfs import project, scenario

    out = scenario.evaluate(spec)
    src = {**scenario.used_inputs(spec), **out}
    columns = []
    for j in range(n):
        terms = {key: src[key][j] for key in project.TERMS if key in src}
        for key, v in spec.items():
            text = v[j] if isinstance(v, list) else v
            if key in project.PROJECT_INPUTS and isinstance(text, str):
                terms[key] = text
        want = project.results(terms, keys)
        for key in keys:
            assert out[key][j] == pytest.approx(want[key][0], rel=1e-12), (j, key)
        columns.append(terms)
    return out, columns


def assert_batch_is_scenario(tmp_path, spec: dict, n: int, out: dict, keys: tuple[str, ...]) -> None:
    """``gputco batch`` of the CSV of a scenario ``spec``'s ``n`` columns (a CSV column per input,
    row j holding column j's value: a list's j-th, else the one value) gives, row j, the ``keys``
    of ``out``'s column j (the evaluator's; rel 1e-9)."""
    import csv

    import pytest

    path = tmp_path / "in.csv"
    with open(path, "w", newline="") as f:
        rows = csv.writer(f, lineterminator="\n")
        rows.writerow(list(spec))
        rows.writerows([v[j] if isinstance(v, list) else v for v in spec.values()] for j in range(n))
    for j, r in enumerate(batch_rows(tmp_path, path)):
        for key in keys:
            assert float(r[key]) == pytest.approx(out[key][j], rel=1e-9), (j, key)


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
