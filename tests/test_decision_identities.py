"""The decision numbers agree with each other: identities that hold whatever the inputs (Hypothesis),
in Python and in the finance workbook recalculated by gputco's engine and by LibreOffice.

- cost per Mtok at the break-even MFU = the reference's (1e-9);
- cost per Mtok rented at the rent parity = the reference's rented (1e-9);
- NPV at the break-even utilisation = 0 (1e-6 of capex), with tax, rent decline, opex escalation
  and residual; NPV rises with utilisation (the claim that makes the break-even unique);
- cluster capex / capex per GPU = the GPU count behind the TCO per year = the GPUs installed.

The workbook is the generated finance workbook with random Inputs (openpyxl writes the ``inp_``
cells); a recalculation gives the parity rent and a break-even utilisation, which are typed back
as the second system's rent and that system's utilisation for the next one (three passes).
LibreOffice's results for one fixed draw are recorded in tests/data/decision_identities_lo.json
(``python tests/test_decision_identities.py`` refreshes it), so the comparison with it also runs
where LibreOffice is absent.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import openpyxl
import pytest
from fuzzing import fuzz_settings
from hypothesis import Phase, given, settings
from hypothesis import strategies as st
from recalc_book import with_inputs

from gputco import udfs
from gputco.udfs import chain, decisions, scenario
from gputco.udfs.errors import NoSolutionError

RECORDING = Path(__file__).parent / "data" / "decision_identities_lo.json"
SYSTEMS = ["H100_HGX", "GB200_NVL72"]

fraction = st.floats(0.3, 1.0)
mfu = st.floats(0.1, 0.9)
money = st.floats(0.3, 20.0)
peak = st.floats(100.0, 20000.0)


# --- Python ------------------------------------------------------------------------------------


@given(money, money, fraction, fraction, fraction, fraction, fraction, fraction, mfu, peak, peak)
@fuzz_settings(share=0.5)
def test_cost_per_mtok_at_the_breakeven_mfu_is_the_references(
    tco, ref_tco, a, u, g, ra, ru, rg, ref_mfu, p, rp
):
    fpt = 1.07899e12
    this = {
        "tco_usd_per_gpu_hour": tco,
        "delivered_usd_per_gpu_hour": udfs.tco_delivered_gpu_hour(tco, a, u),
        "goodput": g,
        "peak_tflops": p,
        "flops_per_token": fpt,
    }
    ref = {
        "tco_usd_per_gpu_hour": ref_tco,
        "delivered_usd_per_gpu_hour": udfs.tco_delivered_gpu_hour(ref_tco, ra, ru),
        "goodput": rg,
        "peak_tflops": rp,
        "flops_per_token": fpt,
        "mfu": ref_mfu,
    }
    c = chain.compare(this, ref)
    if c["breakeven_mfu"] > 1:  # this system cannot break even: no MFU in (0, 1] to check
        return
    mine = udfs.tco_cost_per_mtok(this["delivered_usd_per_gpu_hour"], fpt, p, c["breakeven_mfu"], g)
    theirs = udfs.tco_cost_per_mtok(ref["delivered_usd_per_gpu_hour"], fpt, rp, ref_mfu, rg)
    assert mine == pytest.approx(theirs, rel=1e-9)
    # the break-even speed-up is the TCO ratio exactly when availability x utilisation x goodput agree
    if a * u * g == ra * ru * rg:
        assert c["breakeven_speedup"] == pytest.approx(c["tco_ratio"], rel=1e-12)


@given(
    st.sampled_from(["H100_HGX", "GB200_NVL72", "B200_HGX", "MI355X"]),
    st.sampled_from(["GB200_NVL72", "GB300_NVL72", "H200_HGX"]),
    fraction,
    fraction,
    fraction,
    fraction,
    mfu,
)
@fuzz_settings(share=0.3)
def test_tco_breakeven_mfu_gives_the_references_cost_per_token_from_presets(a_sys, b_sys, aa, ab, ga, gb, m):
    be = udfs.tco_breakeven_mfu(m, a_sys, b_sys, "fp8", "hyperscaler", aa, ab, 1.0, 1.0, ga, gb)
    if be > 1:
        return
    fpt = udfs.tco_flops_per_token("gpt3_175b")
    peak = {s: udfs.tco_system(s, "peak_tflops_fp8") for s in (a_sys, b_sys)}
    cost_a = udfs.tco_cost_per_mtok(udfs.tco_gpu_hour(a_sys) / aa, fpt, peak[a_sys], m, ga)
    cost_b = udfs.tco_cost_per_mtok(udfs.tco_gpu_hour(b_sys) / ab, fpt, peak[b_sys], be, gb)
    assert cost_b == pytest.approx(cost_a, rel=1e-9)
    speedup = udfs.tco_breakeven_speedup(a_sys, b_sys, "hyperscaler", aa, ab, 1.0, 1.0, ga, gb)
    assert be == pytest.approx(m * speedup * peak[a_sys] / peak[b_sys], rel=1e-12)


@given(money, mfu, mfu, peak, peak, fraction, fraction)
@fuzz_settings(share=0.5)
def test_renting_at_the_parity_rent_costs_the_references_per_token(rent, m, rm, p, rp, g, rg):
    fpt = 2.43e12
    parity = udfs.tco_rent_parity(rent, m, rm, p, rp, g, rg)
    mine = udfs.tco_cost_per_mtok(parity, fpt, p, m, g)
    theirs = udfs.tco_cost_per_mtok(rent, fpt, rp, rm, rg)
    assert mine == pytest.approx(theirs, rel=1e-9)
    # one GPU type (no peaks): the seed's ClusterMAX form rent x mfu / reference mfu
    assert udfs.tco_rent_parity(rent, m, rm) == pytest.approx(rent * m / rm, rel=1e-12)


cash_inputs = st.tuples(
    st.floats(5000.0, 80000.0),  # capex
    st.floats(0.5, 8.0),  # rent
    st.floats(0.0, 1.5),  # opex
    st.integers(2, 8),  # life
    st.floats(0.0, 0.3),  # cost of capital
    st.floats(0.0, 0.5),  # residual
    fraction,  # availability
    st.floats(0.0, 0.45),  # tax
    st.floats(0.0, 0.3),  # rent decline
    st.floats(-0.1, 0.2),  # opex escalation
)


@given(cash_inputs, st.floats(0.05, 1.0), st.floats(0.05, 1.0))
@fuzz_settings(share=0.5)
def test_npv_is_zero_at_the_breakeven_utilisation_and_rises_with_utilisation(cash, u1, u2):
    capex, rent, opex, life, rate, res, a, tax, decline, esc = cash
    kw = dict(residual_fraction=res, availability=a, tax_rate=tax)
    kw.update(rent_decline_per_year=decline, opex_escalation_per_year=esc)

    def npv(u):
        return udfs.tco_npv(capex, rent, opex, life, rate, utilisation=u, **kw)

    lo, hi = sorted((u1, u2))
    if hi > lo:  # the claim behind the exact solve: NPV rises with utilisation, with tax too
        assert npv(hi) > npv(lo)
    try:
        u = udfs.tco_breakeven_utilisation(capex, rent, opex, life, rate, **kw)
    except NoSolutionError as err:
        assert str(err) == decisions.NO_BREAKEVEN_UTILISATION
        assert npv(1.0) < 0 or npv(1e-9) > 0  # none in (0, 1]: a loss at full use or a gain at none
        return
    assert 0 < u <= 1
    assert abs(npv(u)) <= 1e-6 * capex
    # the chain's step (batch, workbooks) gives the same utilisation from any scenario's NPV
    out = scenario.evaluate(
        {
            "system": "H100_HGX",
            "mfu": [0.5],
            "capex_per_gpu": [capex],
            "rent_usd_per_gpu_hour": [rent],
            "cost_of_capital": [rate],
            "life_years": [float(life)],
            "residual_fraction": [res],
            "availability": [a],
            "utilisation": [u2],
            "tax_rate": [tax],
            "rent_decline_per_year": [decline],
            "opex_escalation_per_year": [esc],
        }
    )
    opex_chain = float(out["opex_usd_per_gpu_hour"][0])
    try:
        want = udfs.tco_breakeven_utilisation(capex, rent, opex_chain, life, rate, **kw)
    except NoSolutionError:
        want = math.nan  # batch and the Python API give NaN where none exists
    assert float(out["project_breakeven_utilisation"][0]) == pytest.approx(
        want, rel=1e-9, abs=1e-12, nan_ok=True
    )


@given(st.sampled_from([*SYSTEMS, "B200_HGX", "MI355X"]), st.integers(1, 5000))
@fuzz_settings(share=0.3)
def test_cluster_totals_count_the_gpus_installed(system, gpus):
    rows = dict(udfs.tco_cluster(system, gpus)[1:])
    per_unit = udfs.tco_system(system, "gpus_per_unit")
    installed = rows["cluster_gpus_installed"]
    assert installed == math.ceil(gpus / per_unit) * per_unit and gpus <= installed < gpus + per_unit
    capex_gpus = rows["cluster_capex_usd"] / udfs.tco_capex_per_gpu(system)
    tco_gpus = rows["cluster_tco_usd_per_year"] / (udfs.tco_gpu_hour(system) * udfs.HOURS_PER_YEAR)
    assert capex_gpus == pytest.approx(installed, rel=1e-12)
    assert tco_gpus == pytest.approx(installed, rel=1e-12)


# --- the finance workbook, recalculated ------------------------------------------------------

workbook_inputs = st.fixed_dictionaries(
    {
        "inp_precision": st.sampled_from(["bf16", "fp8"]),
        "inp_tax_rate": st.floats(0.0, 0.4),
        "inp_rent_decline_per_year": st.floats(0.0, 0.25),
        "inp_opex_escalation_per_year": st.floats(0.0, 0.1),
        **{f"inp_gpus_{k}": st.integers(1, 3000) for k in (1, 2)},
        **{f"inp_mfu_{k}": st.floats(0.15, 0.7) for k in (1, 2)},
        **{f"inp_availability_{k}": st.floats(0.6, 1.0) for k in (1, 2)},
        **{f"inp_utilisation_{k}": st.floats(0.4, 1.0) for k in (1, 2)},
        **{f"inp_goodput_{k}": st.floats(0.7, 1.0) for k in (1, 2)},
        **{f"inp_rent_usd_per_gpu_hour_{k}": st.floats(1.0, 8.0) for k in (1, 2)},
    }
)

#: one fixed draw for LibreOffice (recorded)
FIXED = {
    "inp_precision": "fp8",
    "inp_tax_rate": 0.21,
    "inp_rent_decline_per_year": 0.15,
    "inp_opex_escalation_per_year": 0.03,
    "inp_gpus_1": 2048,  # the memo case: 256 H100 servers against 16 GB200 NVL72 racks
    "inp_gpus_2": 1152,
    "inp_mfu_1": 0.4146,
    "inp_mfu_2": 0.4184,
    "inp_availability_1": 0.9,
    "inp_availability_2": 64 / 72,
    "inp_utilisation_1": 0.85,
    "inp_utilisation_2": 0.8,
    "inp_goodput_1": 0.95,
    "inp_goodput_2": 0.9,
    "inp_rent_usd_per_gpu_hour_1": 2.6,
    "inp_rent_usd_per_gpu_hour_2": 4.5,
}


def _read(path: Path) -> dict[str, list]:
    """Model outputs (out_<key>_<n>) and Compare rows by key, per system column."""
    wb = openpyxl.load_workbook(path, data_only=True)
    got: dict[str, list] = {}
    for name, dn in wb.defined_names.items():
        if name.startswith("out_"):
            ((sheet, ref),) = dn.destinations
            key, k = name[4:].rsplit("_", 1)
            got.setdefault(f"model:{key}", [None, None])[int(k) - 1] = wb[sheet][ref.replace("$", "")].value
    ws = wb["Compare"]
    for row in ws.iter_rows(min_row=1, max_row=ws.max_row):
        key = row[0].value
        if isinstance(key, str):
            got[f"compare:{key}"] = [row[3].value, row[4].value]
    return got


def _next_pass(previous: dict[str, list], names: dict, k: int) -> dict:
    """The inputs of the next recalculation: System 2 rented at its parity rent, and system ``k``
    at its break-even utilisation of the previous pass (where one exists)."""
    again = dict(names)
    again["inp_rent_usd_per_gpu_hour_2"] = previous["compare:rent_parity"][1]
    u = previous["model:breakeven_utilisation"][k - 1]
    if isinstance(u, float):
        again[f"inp_utilisation_{k}"] = u
    return again


def _identities(passes: list[dict[str, list]]) -> None:
    """Pass 0: the draw; pass 1: System 2 at the parity rent, System 1 at its break-even
    utilisation; pass 2: System 2 at its break-even utilisation too."""
    c1 = passes[0]
    # cost per Mtok at the break-even MFU = the reference's
    assert c1["compare:cost_per_mtok_at_breakeven"][1] == pytest.approx(c1["model:usd_per_mtok"][0], rel=1e-9)
    # renting System 2 at the parity rent costs System 1's rented cost per token
    rented = passes[1]["compare:usd_per_mtok_rented"]
    assert rented[1] == pytest.approx(rented[0], rel=1e-9)
    # NPV at the break-even utilisation = 0 (System k in pass k, solved in pass k - 1)
    for k in (1, 2):
        solved = passes[k - 1]["model:breakeven_utilisation"][k - 1]
        if isinstance(solved, float):
            capex = c1["compare:capex_per_gpu"][k - 1]
            assert abs(passes[k]["model:npv_usd_per_gpu"][k - 1]) <= 1e-6 * capex, (k, solved)
        else:
            assert solved == decisions.NO_BREAKEVEN_UTILISATION
    # cluster totals on one count
    for k in (0, 1):
        installed = c1["model:cluster_gpus_installed"][k]
        capex_gpus = c1["model:cluster_capex_usd"][k] / c1["compare:capex_per_gpu"][k]
        tco_gpus = c1["model:cluster_tco_usd_per_year"][k] / (c1["compare:tco_usd_per_gpu_hour"][k] * 8760)
        assert capex_gpus == pytest.approx(installed, rel=1e-12)
        assert tco_gpus == pytest.approx(installed, rel=1e-12)


def _passes(recalc, base: Path, d: Path, names: dict) -> list[dict[str, list]]:
    """The three recalculations of :func:`_identities` with ``recalc(path, out_dir) -> path``."""
    passes = [_read(recalc(with_inputs(base, d / "pass0.xlsx", **names), d / "out0"))]
    inputs = names
    for k in (1, 2):
        inputs = _next_pass(passes[-1], inputs, k)
        passes.append(_read(recalc(with_inputs(base, d / f"pass{k}.xlsx", **inputs), d / f"out{k}")))
    return passes


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> Path:
    from gputco.workbook.finance.build import build_workbook

    path = tmp_path_factory.mktemp("identities") / "base.xlsx"
    build_workbook(SYSTEMS).save(path)
    return path


def _engine(path: Path, _out: Path) -> Path:
    from gputco.workbook.finance.build import fill_cached_values

    fill_cached_values(path)
    return path


def _libreoffice(path: Path, out: Path) -> Path:
    from lo import recalculate

    return recalculate(path, out)


@given(workbook_inputs)
@settings(max_examples=4, deadline=None, derandomize=True, phases=[Phase.explicit, Phase.generate])
def test_the_workbook_recalculated_by_gputco_holds_the_identities(base, tmp_path_factory, names):
    _identities(_passes(_engine, base, tmp_path_factory.mktemp("engine"), names))


def _numbers(got: dict) -> dict:
    keys = (
        "compare:cost_per_mtok_at_breakeven",
        "compare:usd_per_mtok_rented",
        "compare:rent_parity",
        "compare:capex_per_gpu",
        "compare:tco_usd_per_gpu_hour",
        "model:usd_per_mtok",
        "model:breakeven_utilisation",
        "model:npv_usd_per_gpu",
        "model:cluster_gpus_installed",
        "model:cluster_capex_usd",
        "model:cluster_tco_usd_per_year",
    )
    return {k: got[k] for k in keys}


@pytest.mark.usefixtures("soffice_required")
def test_the_workbook_recalculated_by_libreoffice_holds_the_identities_and_its_recording(base, tmp_path):
    passes = _passes(_libreoffice, base, tmp_path, FIXED)
    _identities(passes)
    recorded = json.loads(RECORDING.read_text(encoding="utf-8"))
    assert recorded["inputs"] == FIXED
    for got, want in zip(passes, recorded["passes"], strict=True):
        for key, values in _numbers(got).items():
            assert values == pytest.approx(want[key], rel=1e-9, abs=1e-9), key


def test_gputco_agrees_with_the_recorded_libreoffice_results(base, tmp_path):
    """The recorded LibreOffice values (three passes) hold the identities and equal gputco's."""
    recorded = json.loads(RECORDING.read_text(encoding="utf-8"))
    assert recorded["inputs"] == FIXED
    _identities(recorded["passes"])
    for got, want in zip(_passes(_engine, base, tmp_path, FIXED), recorded["passes"], strict=True):
        for key, values in _numbers(got).items():
            assert values == pytest.approx(want[key], rel=1e-9, abs=1e-6), key


if __name__ == "__main__":  # refresh the recording: python tests/test_decision_identities.py
    import tempfile

    sys.path.insert(0, str(Path(__file__).parent))
    from gputco.workbook.finance.build import build_workbook

    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        build_workbook(SYSTEMS).save(d / "base.xlsx")
        passes = _passes(_libreoffice, d / "base.xlsx", d, FIXED)
        _identities(passes)
        RECORDING.write_text(
            json.dumps(
                {
                    "source": "LibreOffice headless (tests/lo.py recalculate), the finance workbook of "
                    "H100_HGX and GB200_NVL72 with the inputs below, three passes (tests/"
                    "test_decision_identities.py _passes)",
                    "inputs": FIXED,
                    "passes": [_numbers(p) for p in passes],
                },
                indent=1,
            )
            + "\n",
            encoding="utf-8",
        )
        print(f"wrote {RECORDING}")
