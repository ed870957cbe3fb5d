"""How the cash-flow kernels run (udfs/_jit.py): interpreted for small calls, compiled by numba for
batch-sized ones, from one definition each. The interactive path (every TCO_ function, the
finance workbook, the scenario workbook, recalc) imports no numba and compiles nothing; the two
paths give the same results to the last bit on the recorded scenarios, drawn projects and rows
of flows with several sign changes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from project_draws import drawn

from gputco.udfs import _flowkernels, _jit, flows, project, scenario

RECORDED = Path(__file__).parent / "data" / "decisions_recorded.json"

#: in a fresh process with an empty numba cache: every TCO_ function's first call (its registry
#: example), the finance workbook (built and recalculated), the scenario workbook of
#: ``gputco scenarios --example`` and a recalc of the finance workbook; then what was imported
_INTERACTIVE = r"""
import json, os, sys, time
from pathlib import Path
from gputco.udfs import registry
from gputco.addin import cli
slowest = 0.0
for name, spec in registry.SPECS.items():
    start = time.perf_counter()
    registry.UDFS[name](*spec.example)
    slowest = max(slowest, time.perf_counter() - start)
out = Path(sys.argv[1])
codes = [cli.main(["template", "-o", str(out / "a.xlsx")])]
from gputco.workbook.scenarios.example import EXAMPLE
(out / "spec.toml").write_text(EXAMPLE)
codes.append(cli.main(["scenarios", str(out / "spec.toml"), "-o", str(out / "s.xlsx")]))
codes.append(cli.main(["recalc", str(out / "a.xlsx"), "-o", str(out / "b.xlsx")]))
print(json.dumps({"codes": codes, "numba": sorted(m for m in sys.modules if m.split(".")[0] in ("numba", "llvmlite")),
                  "udfs": len(registry.SPECS), "slowest": slowest}))
"""


def test_the_interactive_path_imports_no_numba_and_compiles_nothing(tmp_path):
    """Every TCO_ function's first call, ``gputco template``, ``gputco scenarios`` (the example
    SPEC: 90 scenarios, 2,000 Monte Carlo draws with a rent) and ``gputco recalc`` in one fresh
    process with an empty numba cache: all succeed, neither numba nor llvmlite is imported, and
    numba's cache folder stays empty (behaviour, not timing: the times are
    benchmarks/bench_first_call.py's)."""
    cache = tmp_path / "numba-cache"
    cache.mkdir()
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    env.pop("GPUTCO_KERNELS", None)
    done = subprocess.run(
        [sys.executable, "-c", _INTERACTIVE, str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=True,
        cwd=tmp_path,
    )
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got["codes"] == [0, 0, 0], done.stderr
    assert got["udfs"] >= 43
    assert got["numba"] == []
    assert list(cache.iterdir()) == []


def _recorded() -> dict:
    data = json.loads(RECORDED.read_text())
    return {k: np.asarray(v, dtype=object if k == "system" else float) for k, v in data["inputs"].items()}


def _both(monkeypatch, run):
    """``run()`` with the kernels interpreted, then compiled."""
    got = {}
    for how in ("python", "compiled"):
        monkeypatch.setenv("GPUTCO_KERNELS", how)
        got[how] = run()
    return got["python"], got["compiled"]


def _same(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for key, x in a.items():
        x, y = np.asarray(x), np.asarray(b[key])
        if x.dtype.kind == "f":
            assert np.array_equal(x, y, equal_nan=True), key
        else:
            assert np.array_equal(x, y), key


def test_the_recorded_scenarios_are_bit_for_bit_the_same_interpreted_and_compiled(monkeypatch):
    """The 3,000 recorded scenarios (tests/data/decisions_recorded.json, recorded at d036a86: NPV,
    IRR with several sign changes, payback, break-even rent) give every result column to the last
    bit whether the kernels run as Python or compiled; the results are the recorded ones (the
    recording's 1e-9, tests/test_flows.py)."""
    inputs = _recorded()
    interpreted, compiled = _both(monkeypatch, lambda: scenario.evaluate(inputs))
    _same(interpreted, compiled)
    results = json.loads(RECORDED.read_text())["results"]
    for key, values in results.items():
        want = np.array([np.nan if v is None else v for v in values])
        np.testing.assert_allclose(interpreted[key], want, rtol=1e-9, atol=1e-9, err_msg=key)


def test_drawn_projects_are_bit_for_bit_the_same_interpreted_and_compiled(monkeypatch):
    """Projects by month with a build, a ramp, debt, MACRS and a contract (the project kernel, the
    loan's geometric term in the equity flows) and by year: every result (IRRs, NPVs, DSCR, peak
    funding) and every line of the period table the same to the last bit on both paths."""
    rng = np.random.default_rng(42)
    n = 400
    monthly = {
        **drawn(rng, n, rent=(1.0, 5.0), life=(3, 8), rate=(0.05, 0.15)),
        "tax_rate": rng.uniform(0.0, 0.3, n),
        "rent_decline_per_year": rng.uniform(0.0, 0.2, n),
        "periods": "month",
        "debt_fraction": 0.6,
        "debt_rate": 0.09,
        "debt_years": 3.0,
        "build_months": 12.0,
        "ramp_months": 5.0,
        "contracted_fraction": 0.4,
        "contract_years": 2.0,
        "depreciation_method": "macrs_5",
    }
    yearly = {**monthly, "periods": "year", "build_months": 0.0, "ramp_months": 0.0}
    for values in (monthly, yearly):
        interpreted, compiled = _both(monkeypatch, lambda v=values: project.results(v))
        _same(interpreted, compiled)
        assert np.isfinite(interpreted["equity_irr"]).mean() > 0.5
    kw = dict(periods="month", build_months=12, ramp_months=3, debt_fraction=0.6, debt_rate=0.09)
    kw.update(debt_years=4, tax_rate=0.21, depreciation_method="macrs_5", contracted_fraction=0.5)
    table = _both(monkeypatch, lambda: project.tco_project_cashflows(31250, 2.0, 0.4045, 5, 0.1, **kw))
    assert table[0] == table[1]


def test_rows_of_flows_are_bit_for_bit_the_same_interpreted_and_compiled(monkeypatch):
    """Rows with one sign change and with several (the grid's brackets solved), yearly and
    monthly IRRs, NPV, payback, the lowest running sum, sign changes and the running sums' root
    bound, and flows held as runs with a loan's geometric term: the same to the last bit."""
    rng = np.random.default_rng(32)
    one = np.c_[-rng.uniform(50, 100, (200, 1)), rng.uniform(1, 30, (200, 15))]
    # NPV (x - x1)(x - x2) Q(x), Q > 0: two roots 0.1 to 0.5 points apart in one of the grid's
    # cells, found by the dips' search (udfs/_flowkernels.dip_roots)
    r1 = rng.uniform(-0.3, 0.6, 100)
    x1, x2 = 1 / (1 + r1), 1 / (1 + r1 + rng.uniform(0.001, 0.005, 100))
    close = np.array(
        [np.convolve([a * b, -(a + b), 1.0], rng.uniform(0.1, 1.0, 14)) for a, b in zip(x1, x2, strict=True)]
    )
    rows = np.concatenate([one, rng.normal(0.0, 1.0, (200, 16)), close])
    values = rng.normal(0.0, 100.0, (6, 50))
    values[0] = -rng.uniform(1000, 2000, 50)
    runs = flows.Periodic(
        values,
        np.array([1, 12, 12, 12, 12, 1]),
        (rng.uniform(0, 50, 50), np.full(50, 1), np.full(50, 36), np.full(50, 1.007)),
    )

    def run():
        out = {}
        for name, f in (("rows", rows), ("runs", runs)):
            by = name == "runs"
            out[f"{name} irr"], out[f"{name} why"] = flows.irr(f, by_period=by)
            out[f"{name} irr12"], _ = flows.irr(f, 12, by_period=by)
            out[f"{name} npv"] = flows.npv(f, 0.08, by_period=by)
            out[f"{name} payback"] = flows.payback(f, by_period=by)
            out[f"{name} lowest"] = flows.lowest_sum(f, by_period=by)
            out[f"{name} changes"] = flows.sign_changes(f, by_period=by)
        out.update(zip(("bound", "ends", "sides"), flows.root_bound(rows), strict=True))
        return out

    interpreted, compiled = _both(monkeypatch, run)
    _same(interpreted, compiled)
    assert (interpreted["rows changes"] > 1).sum() > 100  # the several-roots path is exercised
    assert np.isfinite(interpreted["runs irr"]).sum() > 10
    assert np.isfinite(interpreted["rows irr"][-100:]).all()  # the close roots found


def test_the_choice_is_by_work_and_the_switch_is_checked(monkeypatch):
    """Below COMPILE_FROM the module itself (interpreted) serves, at and above it the compiled
    twin, and then the twin serves every call; GPUTCO_KERNELS forces either; a bad value is an error naming the variable, the value
    and the valid ones; without numba (Pyodide) every call is interpreted."""
    monkeypatch.delenv("GPUTCO_KERNELS", raising=False)
    monkeypatch.setattr(_jit, "_TWINS", {})  # none loaded yet in this process
    assert _jit.kernels(_flowkernels, _jit.COMPILE_FROM - 1) is _flowkernels
    big = _jit.kernels(_flowkernels, _jit.COMPILE_FROM)
    assert big is not _flowkernels and type(big.npv_rows).__name__ == "CPUDispatcher"
    assert _jit.kernels(_flowkernels, 1) is big  # once loaded, the twin serves every call
    assert big.npv_rows.py_func.__code__ is _flowkernels.npv_rows.__code__  # one definition
    assert big.GRID == _flowkernels.GRID
    monkeypatch.setenv("GPUTCO_KERNELS", "python")
    assert _jit.kernels(_flowkernels, 10**9) is _flowkernels
    monkeypatch.setenv("GPUTCO_KERNELS", "compiled")
    assert _jit.kernels(_flowkernels, 1) is big
    monkeypatch.setenv("GPUTCO_KERNELS", "fast")
    with pytest.raises(ValueError, match=r"GPUTCO_KERNELS must be one of auto, python, compiled, got 'fast'"):
        _jit.kernels(_flowkernels, 1)
    monkeypatch.delenv("GPUTCO_KERNELS")
    monkeypatch.setattr(_jit, "_NUMBA", [None])
    monkeypatch.setattr(_jit, "_TWINS", {})
    assert _jit.kernels(_flowkernels, 10**9) is _flowkernels
    monkeypatch.setenv("GPUTCO_KERNELS", "compiled")
    with pytest.raises(RuntimeError, match="numba is not installed or cannot be imported"):
        _jit.kernels(_flowkernels, 1)
