"""Market curves in the financed project (udfs/curves.py, udfs/periodlines.py, udfs/project.py):
identities that hold whatever the implementation, on drawn projects.

- a rent curve equal to (1 - d)^t is the constant decline d (NPV, IRRs, DSCR to 1e-12), a flat
  curve "1" is no decline, through the compiled flows (the results of every route) and through
  the period lines (the workbooks' table in Python);
- a curve changes exactly the revenue of the years it names.
"""

from __future__ import annotations

import numpy as np
import project_cases
import pytest
from lo import requires_soffice

from gputco.udfs import curves, project

RESULTS = (
    "project_npv_usd_per_gpu",
    "project_irr",
    "equity_irr",
    "equity_npv_usd_per_gpu",
    "min_dscr",
    "project_payback_years",
)


def _drawn(n: int, seed: int) -> dict:
    """``n`` drawn projects by year and by month, with build, ramp, contract, debt and tax."""
    rng = np.random.default_rng(seed)
    month = rng.random(n) < 0.5
    life = rng.integers(2, 8, n).astype(float)
    return {
        "capex_per_gpu": rng.uniform(20_000, 60_000, n),
        "rent_usd_per_gpu_hour": rng.uniform(1.5, 4.0, n),
        "opex_usd_per_gpu_hour": rng.uniform(0.2, 0.6, n),
        "life_years": life,
        "cost_of_capital": rng.uniform(0.05, 0.15, n),
        "residual_fraction": rng.uniform(0.0, 0.3, n),
        "availability": rng.uniform(0.85, 1.0, n),
        "utilisation": rng.uniform(0.6, 1.0, n),
        "tax_rate": rng.uniform(0.0, 0.3, n),
        "rent_decline_per_year": rng.uniform(0.0, 0.4, n),
        "build_months": np.where(month, rng.integers(0, 13, n), 12 * rng.integers(0, 2, n)).astype(float),
        "ramp_months": rng.integers(0, 7, n).astype(float),
        "contracted_fraction": rng.uniform(0.0, 1.0, n),
        "contract_years": np.minimum(life, rng.integers(1, 5, n)).astype(float),
        "debt_fraction": rng.uniform(0.0, 0.8, n),
        "debt_rate": rng.uniform(0.03, 0.12, n),
        "debt_years": np.maximum(1.0, np.floor(life * rng.uniform(0.3, 1.0, n))),
        "periods": np.where(month, "month", "year").astype(object),
    }


def _close(a: np.ndarray, b: np.ndarray, rel: float = 1e-12) -> None:
    a, b = np.asarray(a, float), np.asarray(b, float)
    assert np.array_equal(np.isnan(a), np.isnan(b))
    ok = ~np.isnan(a)
    assert np.allclose(a[ok], b[ok], rtol=rel, atol=1e-9), np.max(np.abs(a[ok] - b[ok]) / np.abs(b[ok]))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_curve_of_powers_is_the_constant_decline(seed):
    v = _drawn(60, seed)
    d = v["rent_decline_per_year"]
    texts = np.array([curves.text(curves.decline(float(x), 16)) for x in d], dtype=object)
    want = project.results(v, RESULTS)
    got = project.results({**v, "rent_curve": texts}, RESULTS)
    for k in RESULTS:
        _close(got[k], want[k])
    # through the period lines, period by period
    lines = project.period_lines({**v, "rent_curve": texts})
    base = project.period_lines(v)
    for k in ("revenue", "net", "equity", "cfads", "dscr"):
        _close(lines[k], base[k])


@pytest.mark.parametrize("seed", [4, 5])
def test_a_flat_curve_is_no_decline(seed):
    v = _drawn(40, seed)
    want = project.results({**v, "rent_decline_per_year": 0.0}, RESULTS)
    for flat in ("1", 1.0, "1, 1, 1"):
        got = project.results({**v, "rent_curve": flat}, RESULTS)
        for k in RESULTS:
            _close(got[k], want[k])


def test_a_curve_changes_the_revenue_of_the_years_it_names_only():
    v = {k: x[:1] for k, x in _drawn(1, 7).items()}
    v.update(
        periods=np.array(["year"], dtype=object), build_months=np.array([0.0]), ramp_months=np.array([0.0])
    )
    v.update(
        contracted_fraction=np.array([0.0]), life_years=np.array([5.0]), rent_decline_per_year=np.array([0.0])
    )
    base = project.period_lines(v)["revenue"][:, 0]
    got = project.period_lines({**v, "rent_curve": "1, 0.5, 0.25"})["revenue"][:, 0]
    assert got[0] == base[0] == 0.0
    assert got[1:].tolist() == pytest.approx(
        [base[1], base[2] * 0.5, base[3] * 0.25, base[4] * 0.25, base[5] * 0.25]
    )
    path = project.period_lines({**v, "rent_curve": "rent_h100_2024_25"})["revenue"][:, 0]
    assert path[1:] / base[1:] == pytest.approx([1.0, 0.5916, 0.35, 0.4865, 0.4865])


# --- the loan to value: Python and both workbooks ------------------------------------------------

#: 20 drawn cases: 4 finance workbooks of 5 system columns, each column with its own value curve
SYSTEMS = ("H100_HGX", "GB200_NVL72", "B200_HGX", "H200_HGX", "MI300X")
LTV_LINES = ("closing", "value_fraction", "collateral", "ltv", "recovery", "ltv_breach")


def _ltv_book(seed: int) -> dict[str, object]:
    """The Inputs of one drawn workbook: debt (share, rate, tenor, by year or month, a build) and
    per system a value curve (text of drawn factors, a finance preset key, or blank: value_base)."""
    month = seed % 2 == 0

    def per_system(rng: np.random.Generator, k: int) -> dict[str, object]:
        out: dict[str, object] = {
            f"inp_build_months_{k}": int(rng.integers(0, 13)) if month else 12 * int(rng.integers(0, 2))
        }
        kind = (seed + k) % 4
        if kind == 0:
            factors = np.cumprod(rng.uniform(0.55, 0.95, int(rng.integers(2, 8))))
            out[f"inp_value_curve_{k}"] = ", ".join(f"{x:.6g}" for x in (1.0, *factors))
        elif kind == 1:
            out[f"inp_value_curve_{k}"] = str(rng.choice(["value_low", "VALUE_HIGH", "value_base"]))
        elif kind == 2:
            out[f"inp_value_curve_{k}"] = "1; 0.8; 0.65"
        return out

    return project_cases.drawn_finance_book(
        seed, per_system, month=month, years=(2, 6), shared=("inp_max_ltv_covenant", 0.5, 0.9)
    )


LTV_BOOKS = {f"ltv_{seed}": _ltv_book(seed) for seed in (41, 42, 43, 44)}


def _write_ltv(path, name):
    return project_cases.write_finance_book(path, SYSTEMS, LTV_BOOKS[name])


def _read_ltv(path) -> dict:
    """Per system column: the Model rows of the project's terms and the period table's LTV lines."""
    from gputco.workbook.finance import projectflows

    out = {}
    for k, (cell, lines) in enumerate(
        project_cases.read_finance_book(path, len(SYSTEMS), LTV_LINES), start=1
    ):
        terms = {key: cell[key] for key in (*project.OPTIONAL_ARGS, *project._REQUIRED)}
        terms.update({f"out_{key}": cell[key] for key in projectflows.LTV_RESULTS})
        out[k] = (terms, lines)
    return out


def _check_ltv(got: dict) -> None:
    for k, (terms, lines) in got.items():
        given = {
            key: v for key, v in terms.items() if v is not None and v != "" and not key.startswith("out_")
        }
        given["value_curve"] = terms["value_curve"] or None
        given["rent_curve"] = terms["rent_curve"] or None
        py = project.period_lines(given)
        n = py["ltv"].shape[0]
        for key in LTV_LINES:
            assert lines[key][:n] == pytest.approx(py[key][:, 0].tolist(), rel=1e-9, abs=1e-9), (k, key)
        # the identity: LTV = balance / (value fraction x capex) where there is a balance
        closing, value = np.array(lines["closing"][:n], float), np.array(lines["value_fraction"][:n], float)
        want = np.where(closing > 1e-6, closing / (value * float(terms["capex_per_gpu"])), 0.0)
        assert np.allclose(np.array(lines["ltv"][:n], float), want, rtol=1e-9, atol=1e-9), k
        # at maturity the debt is repaid: LTV 0
        ppy = 12 if terms["periods"] == "month" else 1
        maturity = round(float(terms["build_months"]) * ppy / 12) + int(terms["debt_years"]) * ppy
        assert abs(lines["ltv"][maturity]) < 1e-9
        res = project.results(given, ("max_ltv", "ltv_at_maturity", "ltv_breach_periods"))
        assert res["max_ltv"][0] == pytest.approx(max(lines["ltv"][:n]), rel=1e-9)
        assert abs(res["ltv_at_maturity"][0]) < 1e-9
        assert res["ltv_breach_periods"][0] == sum(lines["ltv_breach"][:n])
        # the Model's results (out_max_ltv_<n>, ...) are Python's
        assert terms["out_max_ltv"] == pytest.approx(res["max_ltv"][0], rel=1e-9)
        assert abs(terms["out_ltv_at_maturity"]) < 1e-9
        assert terms["out_ltv_breach_periods"] == res["ltv_breach_periods"][0]


@pytest.mark.parametrize("name", list(LTV_BOOKS))
def test_ltv_per_period_in_the_engine_equals_python(tmp_path, name):
    from gputco.workbook.finance.build import fill_cached_values

    path = _write_ltv(tmp_path / f"{name}.xlsx", name)
    fill_cached_values(path)
    _check_ltv(_read_ltv(path))


@requires_soffice
@pytest.mark.parametrize("name", list(LTV_BOOKS))
def test_ltv_per_period_in_libreoffice_equals_python(tmp_path, name):
    import lo

    path = lo.recalculate(_write_ltv(tmp_path / f"{name}.xlsx", name), tmp_path / "lo")
    _check_ltv(_read_ltv(path))


def test_the_scenario_evaluator_gives_the_ltv_results_of_the_project():
    from gputco.udfs import scenario

    book = LTV_BOOKS["ltv_42"]
    for k, system in enumerate(SYSTEMS, start=1):
        given = {
            key[4:-2] if key.endswith(f"_{k}") else key[4:]: [v] if not isinstance(v, str) else v
            for key, v in book.items()
            if key.endswith(f"_{k}") or not key[-1].isdigit()
        }
        out = scenario.evaluate({"system": system, **given})
        used = scenario.used_inputs({"system": system, **given})
        src = {**used, **out}
        terms = {key: src[key][0] for key in project.TERMS if key in src}
        terms.update(periods=given["periods"], value_curve=given.get("value_curve"))
        want = project.results(terms, ("max_ltv", "ltv_at_maturity", "ltv_breach_periods"))
        for key in ("max_ltv", "ltv_breach_periods"):
            assert out[key][0] == pytest.approx(want[key][0], rel=1e-12), (system, key)


def test_max_ltv_scales_with_the_debt_and_inversely_with_the_value_curve():
    v = {k: x[:1] for k, x in _drawn(1, 8).items()}
    v.update(debt_fraction=np.array([0.4]), value_curve="1, 0.7, 0.5, 0.4")
    base = project.results(v, ("max_ltv",))["max_ltv"][0]
    double = project.results({**v, "debt_fraction": np.array([0.8])}, ("max_ltv",))["max_ltv"][0]
    half = project.results({**v, "value_curve": "0.5, 0.35, 0.25, 0.2"}, ("max_ltv",))["max_ltv"][0]
    assert double == pytest.approx(2 * base, rel=1e-12)
    assert half == pytest.approx(2 * base, rel=1e-12)
    keys = ("max_ltv", "ltv_at_maturity", "ltv_breach_periods")
    none = project.results({**v, "debt_fraction": np.array([0.0]), "max_ltv_covenant": 0.01}, keys)
    assert np.isnan(none["max_ltv"][0]) and np.isnan(none["ltv_at_maturity"][0])
    assert none["ltv_breach_periods"][0] == 0  # no debt, no breach of even a tight covenant
    tight = project.results({**v, "max_ltv_covenant": 0.01}, keys)
    assert tight["ltv_breach_periods"][0] > 0  # the control: with the debt, the covenant is breached


def test_batch_takes_the_curves_as_text_columns_and_names_a_bad_cell(tmp_path):
    import csv
    import subprocess
    import sys

    good = tmp_path / "in.csv"
    good.write_text(
        "system,mfu,rent_usd_per_gpu_hour,debt_fraction,rent_curve,value_curve\n"
        "H100_HGX,0.5,2.0,0.6,,\n"
        "H100_HGX,0.5,2.0,0.6,rent_h100_2024_25,value_low\n"
    )
    cli = [sys.executable, "-m", "gputco.addin.cli", "batch"]
    subprocess.run([*cli, str(good), "-o", str(tmp_path / "out.csv")], check=True, capture_output=True)
    rows = list(csv.DictReader(open(tmp_path / "out.csv")))
    assert [r["rent_curve"] for r in rows] == ["", "rent_h100_2024_25"]
    assert float(rows[1]["project_npv_usd_per_gpu"]) < float(rows[0]["project_npv_usd_per_gpu"])
    assert (
        float(rows[1]["max_ltv"]) > float(rows[0]["max_ltv"]) > 0 and float(rows[0]["ltv_at_maturity"]) == 0
    )
    said = project_cases.batch_refusal(
        tmp_path,
        'system,mfu,rent_usd_per_gpu_hour,rent_curve,value_curve\nH100_HGX,0.5,2,"1, -0.8",\nH100_HGX,0.5,2,,nope\n',
    )
    assert "row 2, column D (rent_curve): rent_curve factor t1 must be in [0, inf), got -0.8" in said
    assert "row 3, column E (value_curve): unknown value_curve 'nope'" in said


# --- the residual check: a residual given (> 0) against the value curve's end ------------------

#: per system column a value curve and its end-of-life value (past the last factor the last
#: holds): against a residual of 0.1 the first agrees (within half of 0.1), the second is 5x the
#: residual (|0.1 - 0.5| > 0.25) and the third a fifth of it (|0.1 - 0.02| > 0.01)
RESIDUAL_CURVES = ("1, 0.1", "1, 0.5", "1, 0.02")


def _residual_book(path, residual):
    from gputco.workbook.finance.build import build_workbook, fill_cached_values

    wb = build_workbook(list(SYSTEMS[: len(RESIDUAL_CURVES)]), "hyperscaler")
    values = {"inp_residual_fraction": residual, "inp_rent_usd_per_gpu_hour_1": 2.5}
    values.update({f"inp_value_curve_{k}": c for k, c in enumerate(RESIDUAL_CURVES, start=1)})
    for key, value in values.items():
        ((sheet, ref),) = wb.defined_names[key].destinations
        wb[sheet][ref.replace("$", "")] = value
    wb.save(path)
    fill_cached_values(path)
    import openpyxl

    model = openpyxl.load_workbook(path, data_only=True)["Model"]
    rows = {model.cell(row=r, column=1).value: r for r in range(1, model.max_row + 1)}
    return [
        (
            model.cell(row=rows["residual_check"], column=3 + k).value or "",
            model.cell(row=rows["end_value_fraction"], column=3 + k).value,
        )
        for k in range(1, len(RESIDUAL_CURVES) + 1)
    ]


@pytest.mark.parametrize(
    "residual, warned",
    [(0.1, [False, True, True]), (0.0, [False, False, False])],  # 0: not modelled, no warning
)
def test_the_residual_check_warns_only_for_a_residual_given_and_far_from_the_curve(
    tmp_path, residual, warned
):
    from gputco.udfs.periodlines import RESIDUAL_WARNING

    v = {k: x[:1] for k, x in _drawn(1, 5).items()}
    v.update(residual_fraction=np.array([residual]), build_months=np.array([0.0]))
    py = [str(project.period_lines({**v, "value_curve": c})["residual_check"][0]) for c in RESIDUAL_CURVES]
    assert py == [RESIDUAL_WARNING if w else "" for w in warned]
    # the finance workbook's Model row, recalculated by the engine, says the same
    got = _residual_book(tmp_path / "residual.xlsx", residual)
    assert [text for text, _end in got] == py
    assert [end for _text, end in got] == pytest.approx([0.1, 0.5, 0.02], rel=1e-12)
