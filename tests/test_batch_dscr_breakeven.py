"""``gputco batch --dscr-breakeven`` (issue 40, step 4): the DSCR break-even rent and its reason in
batch, opt-in. On drawn scenarios (systems, rents, months and years, level, straight and sculpted
repayment, covenants, contracts, some without debt or without a rent) each row's
``dscr_breakeven_rent_usd_per_gpu_hour`` is the one the Python function gives
(``udfs.project.results(..., need=(DSCR_BREAKEVEN,))`` on the scenario's project terms) to 1e-9,
and ``dscr_breakeven_rent_why`` is the text of its reason code (DSCR_BREAKEVEN_REASONS) or says
no rent was given; without the flag the columns are not there; a results file runs again."""

from __future__ import annotations

import csv
import math

import numpy as np
import pytest

from gputco.addin.cli import main
from gputco.udfs import project, scenario, yearflows
from gputco.workbook.batch.run import NO_RENT

KEY = project.DSCR_BREAKEVEN
SYSTEMS = ("H100_HGX", "B200_HGX", "GB200_NVL72")
TEXT = ("system", "periods", "debt_repayment")
NUMBERS = ("mfu", "rent_usd_per_gpu_hour", "debt_fraction", "debt_years", "covenant_dscr", "life_years",
           "contracted_fraction", "contract_rent_usd_per_gpu_hour", "ramp_months", "tax_rate")  # fmt: skip


def _draws(n: int, seed: int) -> list[dict]:
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        life = int(rng.integers(3, 7))
        month = bool(rng.random() < 0.5)
        rent = round(float(rng.uniform(1.0, 5.0)), 4)
        rows.append(
            {
                "system": str(rng.choice(SYSTEMS)),
                "periods": "month" if month else "year",
                "debt_repayment": str(rng.choice(["level", "straight", "level", "sculpted"])),
                "mfu": 0.5,
                "rent_usd_per_gpu_hour": "" if i % 11 == 5 else rent,
                "debt_fraction": 0.0 if i % 9 == 4 else round(float(rng.uniform(0.1, 0.8)), 4),
                "debt_years": int(rng.integers(1, life + 1)),
                "covenant_dscr": round(float(rng.uniform(0.5, 2.5)), 3),
                "life_years": life,
                "contracted_fraction": round(float(rng.uniform(0.0, 1.0)), 4),
                "contract_rent_usd_per_gpu_hour": round(rent * float(rng.uniform(0.3, 1.0)), 4),
                "ramp_months": int(rng.integers(0, 7)) if month else 0,
                "tax_rate": round(float(rng.uniform(0.0, 0.3)), 3),
            }
        )
    # every GPU under contract for the whole life at a rent far below the service: no market rent
    rows[0].update(contracted_fraction=1.0, contract_rent_usd_per_gpu_hour=0.05, debt_repayment="level",
                   debt_fraction=0.7, ramp_months=0, rent_usd_per_gpu_hour=2.0)  # fmt: skip
    return rows


def _write(path, rows: list[dict]) -> None:
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, [*TEXT, *NUMBERS])
        w.writeheader()
        w.writerows(rows)


def _python(rows: list[dict]) -> tuple[np.ndarray, np.ndarray]:
    """The Python function on each scenario's project terms (the values the scenario uses)."""
    given = [r for r in rows if r["rent_usd_per_gpu_hour"] != ""]
    inputs = {k: [r[k] for r in given] for k in (*TEXT, *NUMBERS)}
    used, out = scenario.used_inputs(inputs), scenario.evaluate(inputs)
    terms = {a: used[a] if a in used and used[a] is not None else out.get(a) for a in yearflows.INPUTS}
    terms = {k: v for k, v in terms.items() if v is not None and k in {*project.TERMS}}
    terms.update({k: inputs[k] for k in ("periods", "debt_repayment")})
    got = project.results(terms, (KEY,))
    rent, why = np.full(len(rows), np.nan), np.full(len(rows), np.nan)
    at = [i for i, r in enumerate(rows) if r["rent_usd_per_gpu_hour"] != ""]
    rent[at], why[at] = got[KEY], got[f"{KEY}_why"]
    return rent, why


def _run(tmp_path, rows, *flags) -> list[dict]:
    src, out = tmp_path / "in.csv", tmp_path / "out.csv"
    _write(src, rows)
    assert main(["batch", str(src), "-o", str(out), "--force", *flags]) == 0
    with open(out, newline="") as f:
        return list(csv.DictReader(f))


def test_the_dscr_breakeven_rent_of_batch_is_the_python_functions(tmp_path):
    rows = _draws(40, 4040)
    got = _run(tmp_path, rows, "--dscr-breakeven")
    want, why = _python(rows)
    reasons = project.DSCR_BREAKEVEN_REASONS
    seen = set()
    for r, w, c in zip(got, want, why, strict=True):
        value, text = r[KEY], r["dscr_breakeven_rent_why"]
        if math.isnan(c):
            assert (value, text) == ("", NO_RENT)
            seen.add("no rent")
            continue
        seen.add(int(c))
        if c == 0:
            assert text == ""
            assert float(value) == pytest.approx(w, rel=1e-9, abs=1e-12)
        else:
            assert value == "" and text == reasons[int(c)]
    assert {0, 1, 2, 3, "no rent"} <= seen  # found, no debt, sculpted, no market rent, no rent
    # a bad case's reason, as the text says it
    assert got[0]["dscr_breakeven_rent_why"].startswith(
        "min_dscr stays below covenant_dscr at every market rent"
    )


def test_without_the_flag_there_are_no_such_columns_and_a_results_file_runs_again(tmp_path):
    rows = _draws(6, 4041)
    plain = _run(tmp_path, rows)
    assert KEY not in plain[0] and "dscr_breakeven_rent_why" not in plain[0]
    first = _run(tmp_path, rows, "--dscr-breakeven")
    again = tmp_path / "again.csv"
    assert main(["batch", str(tmp_path / "out.csv"), "-o", str(again), "--dscr-breakeven"]) == 0
    with open(again, newline="") as f:
        second = list(csv.DictReader(f))
    assert [r[KEY] for r in second] == [r[KEY] for r in first]
    assert [r["min_dscr"] for r in plain] == [r["min_dscr"] for r in first]


def test_scenario_evaluate_takes_only_the_extra_outputs_it_knows():
    with pytest.raises(Exception, match="extra output"):
        scenario.evaluate({"system": "H100_HGX", "mfu": 0.5}, extra=("llcr_breakeven",))
