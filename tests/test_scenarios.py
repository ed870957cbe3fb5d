"""Scenario workbooks (`gputco scenarios`): every row equals udfs.scenario.evaluate, the Summary,
Sensitivity and Monte Carlo sheets equal what the model and numpy give, and the CLI works.

Numbers are read back from the written files (the cached values our headless recalculation
stored); tests/test_scenarios_lo.py has LibreOffice recalculate the same files.
"""

from __future__ import annotations

import math
import re
import tomllib

import numpy as np
import openpyxl
import pytest
from scenario_book import (
    BUYERS,
    MODELS_GRID,
    UDF_KEYS,
    block,
    close,
    column,
    expected_outputs,
    load,
    named,
    output,
    row_shape,
)

from gputco.addin.cli import main
from gputco.udfs import UDFS, scenario
from gputco.workbook.recalc import recalc_file, supported_functions
from gputco.workbook.scenarios import montecarlo
from gputco.workbook.scenarios.build import SHEET_ORDER, write_scenarios
from gputco.workbook.scenarios.example import EXAMPLE
from gputco.workbook.scenarios.spec import parse_spec
from gputco.workbook.soffice.fallback import libreoffice_values

#: SPECs that put different quantities in columns or in named cells
SPECS = {
    "example": tomllib.loads(EXAMPLE),
    "models": {
        "grid": {**MODELS_GRID, "seq_len": [2048, 8192]},
        "fixed": {
            "system": "GB200_NVL72",
            "mfu": 0.41,
            "pue": 1.2,
            "capex_per_gpu": 60000,
            "tokens": 1e12,
            "gpus": 1024,
            "kwh_per_household_year": 10000,
        },
    },
    "buyers": BUYERS,
}


@pytest.fixture(scope="module", params=list(SPECS))
def written(request, tmp_path_factory):
    spec = parse_spec(SPECS[request.param])
    if request.param == "example":  # the --example SPEC: conftest's workbook, written once per process
        result = request.getfixturevalue("example_scenarios_written")
        return spec, result.path, result
    path = tmp_path_factory.mktemp(request.param) / "scenarios.xlsx"
    result = write_scenarios(spec, path)
    return spec, path, result


@pytest.fixture(scope="module")
def read():
    """load(path, data_only), each file read once per module, for the tests that only read it
    (reading the example takes seconds; no test changes what it returns)."""
    cache = {}

    def read(path, data_only: bool = True):
        key = (str(path), data_only)
        if key not in cache:
            cache[key] = load(path, data_only=data_only)
        return cache[key]

    return read


@pytest.fixture(scope="module")
def books(written, read):
    """The written workbook with its cached values (True) and with its formulas (False)."""
    _spec, path, _ = written
    return {True: read(path), False: read(path, data_only=False)}


def test_the_workbook_knows_every_scenario_input():
    from gputco.workbook.scenarios.layout import INPUTS, PRESET_BACKED, USED

    assert tuple(INPUTS) == scenario.INPUT_NAMES
    from gputco.udfs import chain

    # the inputs whose blank means a preset, or another input (depreciation years: the life)
    assert PRESET_BACKED == {i.name for i in scenario.INPUTS if i.default == "preset"} | {
        i.key for i in chain.INPUTS if isinstance(i.default, chain.Like)
    }

    arch = [i.key for i in chain.INPUTS if i.scope in ("system_preset", "model")]
    flops = ["flops_palm", "flops_6n", "flops_megatron", "flops_per_token"]
    assert [q.key for q in USED if q.key not in INPUTS] == arch + flops


def test_every_row_equals_udfs_scenario_evaluate(written, books):
    spec, _path, _ = written
    wb = books[True]
    keys, data, _first = block(wb["Scenarios"], "scenario")
    assert len(data) == spec.n_scenarios
    assert column(keys, data, "scenario").tolist() == list(range(1, spec.n_scenarios + 1))
    expected = expected_outputs(spec)
    from gputco.udfs import chain

    for key in scenario.OUTPUTS:
        step = chain.step_of(key)  # project_irr: the chain's irr step, from the project's flows
        if chain.optional_inputs_of(step) and np.isnan(expected[key]).all():
            needs = "needs " + " and ".join(chain.optional_inputs_of(step))
            assert key not in keys or all(r[keys.index(key)].startswith(needs) for r in data), key
            continue
        if chain.reads_year_table(step):  # NaN = no IRR or no payback: the cell says why
            j = keys.index(key)
            texts = [isinstance(r[j], str) for r in data]
            assert texts == np.isnan(expected[key]).tolist(), key
            got = np.array([np.nan if t else r[j] for t, r in zip(texts, data, strict=True)], dtype=float)
            ok = np.isnan(expected[key]) | (
                np.abs(got - expected[key])
                <= (1e-7 if key == "project_irr" else 1e-9) * np.abs(expected[key]) + 1e-12
            )
            assert ok.all(), (key, got[:3], expected[key][:3])
            continue
        got = output(wb, keys, data, key)
        assert close(got, expected[key]), (key, got[:3], expected[key][:3])
    grid = spec.grid_columns()
    for key, values in grid.items():
        j = keys.index(key)
        if isinstance(values, scenario.Coded):
            assert [r[j] for r in data] == [values.categories[c] for c in values.codes]
        else:
            assert column(keys, data, key).tolist() == values.tolist()


def test_udf_columns_agree_with_the_native_formulas(written, books):
    spec, _path, _ = written
    wb = books[True]
    keys, data, _ = block(wb["Scenarios"], "scenario")
    expected = expected_outputs(spec)
    assert close(column(keys, data, "tco_udf"), expected["tco_usd_per_gpu_hour"])
    assert close(column(keys, data, "usd_per_mtok_udf"), expected["usd_per_mtok"])
    for key in ("tco_udf_diff", "usd_per_mtok_udf_diff"):
        assert np.abs(column(keys, data, key)).max() < 1e-12
    assert named(wb, "chk_ok") is True
    assert named(wb, "chk_max_difference") < 1e-12


def test_row_formulas_have_the_same_shape_on_every_row(written, books):
    _spec, _path, _ = written
    ws = books[False]["Scenarios"]
    keys, data, first = block(ws, "scenario")
    formula_cols = [j for j, v in enumerate(data[0]) if isinstance(v, str) and v.startswith("=")]
    assert len(formula_cols) >= 14
    for j in formula_cols:
        shape = row_shape(data[0][j], first)
        for i, row in enumerate(data):
            assert row_shape(row[j], first + i) == shape, (keys[j], first + i, row[j])


def test_every_row_carries_the_template_rows_styles(written, books):
    _spec, _path, _ = written
    ws = books[False]["Scenarios"]
    keys, data, first = block(ws, "scenario")
    last = first + len(data) - 1
    for col in range(1, len(keys) + 1):
        a, b = ws.cell(first, col), ws.cell(last, col)
        assert a.has_style and (a.style_id, a.number_format) == (b.style_id, b.number_format), keys[col - 1]
    tco = ws.cell(last, keys.index("tco_usd_per_gpu_hour") + 1)
    assert tco.number_format == "#,##0.0000" and tco.font.b  # no currency: docs/excel-currency.md


def test_the_engine_evaluated_every_formula_it_wrote(written):
    # the cached values themselves are checked against LibreOffice's recalculation of the same
    # specs (tests/test_scenarios_lo.py), not against this engine's second pass over its own file
    _spec, _path, result = written
    assert not result.recalc_report.problems


def test_summary_per_system_by_formulas(written, books):
    spec, _path, _ = written
    wb = books[True]
    ws = wb["Summary"]
    expected = expected_outputs(spec)
    tco, mtok = expected["tco_usd_per_gpu_hour"], expected["usd_per_mtok"]
    if "system" in spec.grid:
        codes = spec.grid_columns()["system"].codes
        groups = [(s, codes == i) for i, s in enumerate(spec.grid["system"])]
        groups.append(("all scenarios", np.ones(len(tco), dtype=bool)))
    else:
        groups = [(spec.base["system"], np.ones(len(tco), dtype=bool))]
    rows = {r[0]: r for r in ws.iter_rows(min_row=7, max_row=6 + len(groups), values_only=True)}
    assert list(rows) == [name for name, _ in groups]
    for name, mask in groups:
        r = rows[name]
        t, m = tco[mask], mtok[mask]
        assert r[1] == mask.sum()
        assert close(r[2:8], [t.min(), np.median(t), t.max(), m.min(), np.median(m), m.max()])
        assert r[8] == int(np.flatnonzero(mask)[np.argmin(m)]) + 1


def _default(name):
    return next(i.default for i in scenario.INPUTS if i.name == name)


def test_summary_shows_each_systems_mfu_beside_its_published_source(written, books):
    """The Summary shows where the MFU comes from, as Inputs does for every input:
    the scenarios' MFU (min, max) beside the system's published default with its unit, run,
    date and source, as the presets state them (udfs/data/*.toml)."""
    from gputco.udfs import presets

    spec, _path, _ = written
    ws = books[True]["Summary"]
    head = next(c.row for c in ws["B"] if c.value == "MFU in the scenarios, min")
    got = {}
    for r in ws.iter_rows(min_row=head + 1, values_only=True):
        if r[0] is None:
            break
        got[r[0]] = r[1:7]
    systems = spec.grid.get("system") or [spec.base["system"]]
    assert sorted(got) == sorted(presets.lookup("system", s).key for s in systems)
    mfu = spec.grid.get("mfu") or [spec.fixed["mfu"]]
    for system, (lo, hi, published, unit, as_of, source) in got.items():
        e = presets.default_mfu(system, spec.base.get("precision", _default("precision")))
        assert (lo, hi) == (min(mfu), max(mfu))
        assert (published, unit, source) == (e.value, "fraction", e.source)
        run = presets.mfu_source(e)  # what Compare and `gputco compare` say: the source says it too
        assert source.startswith(run if run != "assumed" else "assumption: ") and as_of.date() == e.as_of
    assert ws.cell(row=head + 1, column=4).number_format == "0.00%"  # a fraction shown as one


def test_tornado_bars_equal_the_model_with_one_input_moved(written, books):
    spec, _path, _result = written
    ws = books[True]["Sensitivity"]
    base_used = scenario.used_inputs(spec.base)
    base_cost = scenario.evaluate(spec.base)["usd_per_mtok"][0]
    table = [r for r in ws.iter_rows(min_row=6, max_row=5 + len(spec.drivers), values_only=True)]
    assert sorted(r[0] for r in table) == sorted(spec.drivers)
    ranges = []
    for r in table:
        d, base, swing, lo, hi, c_lo, c_hi, ch_lo, ch_hi = (
            r[0],
            r[3],
            r[4],
            r[6],
            r[7],
            r[8],
            r[9],
            r[10],
            r[11],
        )
        floor = 1.0 if d == "pue" else 0.0
        b = float(base_used[d][0])
        assert close(base, b) and swing == spec.swing(d)
        want = [floor + (b - floor) * (1 - swing), floor + (b - floor) * (1 + swing)]
        if d in ("life_years", "depreciation_years"):  # whole years (README), half up, >= 1
            want = [max(1.0, math.floor(w + 0.5)) for w in want]
        assert close([lo, hi], want), d
        out = scenario.evaluate({**spec.base, d: np.array([lo, hi])})
        moved = out["usd_per_mtok"]
        assert close([c_lo, c_hi], moved), d
        assert close([ch_lo, ch_hi], moved - base_cost), d
        for key, cells in (("project_npv_usd_per_gpu", r[12:14]), ("project_irr", r[14:16])):
            if np.isnan(out[key]).all():  # no rent in this SPEC
                assert all(c.startswith("needs rent_usd_per_gpu_hour") for c in cells), (d, key)
            else:
                assert np.allclose(cells, out[key], rtol=1e-7, atol=1e-9), (d, key, cells)
        # the tornado ranks by the NPV where the base gives a rent (a decision), else by $/Mtok
        npv = out["project_npv_usd_per_gpu"]
        ranges.append(abs(c_hi - c_lo) if np.isnan(npv).all() else abs(npv[1] - npv[0]))
    assert ranges == sorted(ranges, reverse=True)  # the largest bar on top
    assert ws._charts and ws._charts[0].type == "bar"
    assert close(named(books[True], "sens_base_usd_per_mtok"), base_cost)


def test_example_monte_carlo_percentiles_equal_numpy(example_scenarios, read):
    spec = parse_spec(SPECS["example"])  # the --example SPEC, as example_scenarios was written
    wb = read(example_scenarios)
    ws = wb["MonteCarlo"]
    keys, data, _ = block(ws, "draw")
    assert len(data) == spec.monte_carlo.draws == 2000
    draws = {name: column(keys, data, name) for name in spec.monte_carlo.dists}
    for name, values in spec.monte_carlo.sample().items():
        assert draws[name].tolist() == values.tolist()
    results = scenario.evaluate({**spec.base, **draws})
    rows = {r[0]: r for r in ws.iter_rows(min_row=1, max_row=40, values_only=True) if r[0]}
    for key in (
        "tco_usd_per_gpu_hour",
        "usd_per_mtok",
        "training_cost_usd",
        "joules_per_token",
        "project_npv_usd_per_gpu",
        "project_irr",
    ):
        p10, p50, p90, mean = rows[key][3:7]
        assert p10 <= p50 <= p90
        rel = 1e-7 if key == "project_irr" else 1e-9  # IRR is solved to 1e-7
        assert close([p10, p50, p90], np.percentile(results[key], [10, 50, 90]), rel), key
        assert close(mean, results[key].mean(), rel)
        assert close(column(keys, data, key), results[key], rel)
    head = next(i for i, r in enumerate(ws.iter_rows(values_only=True), start=1) if r[0] == "bin")
    counts = [r[5] for r in ws.iter_rows(min_row=head + 1, max_row=head + 20, values_only=True)]
    assert len(counts) == 20 and sum(counts) == 2000
    mtok = results["usd_per_mtok"]
    width = (mtok.max() - mtok.min()) / 20
    bins = np.minimum(20, np.floor((mtok - mtok.min()) / width) + 1)
    assert counts == [int((bins == k).sum()) for k in range(1, 21)]
    assert ws._charts


def test_life_moves_in_whole_years_and_a_longer_life_than_the_cash_flow_block_says_so(tmp_path):
    """Monte Carlo draws of the life are whole years; the rows' cash-flow block has the years of
    the longest life drawn, and a life beyond it (typed after the file was written) gives a
    message in NPV, IRR and payback instead of a wrong number (README, Scenario workbooks)."""
    spec = parse_spec(
        {
            "grid": {"system": ["H100_HGX"], "life_years": [3, 4]},
            "fixed": {"mfu": 0.4, "rent_usd_per_gpu_hour": 2.2},
            "monte_carlo": {"draws": 50, "seed": 5, "life_years": {"dist": "uniform", "low": 2, "high": 6}},
        }
    )
    lives = spec.monte_carlo.sample()["life_years"]
    assert set(lives) <= {2.0, 3.0, 4.0, 5.0, 6.0} and len(set(lives)) > 2
    path = tmp_path / "s.xlsx"
    write_scenarios(spec, path)
    wb = openpyxl.load_workbook(path)
    keys = [c.value for c in wb["Scenarios"][5]]
    assert "net_y4" in keys and "net_y5" not in keys  # years 0..4: the longest grid life
    mc_keys = [
        c.value
        for c in wb["MonteCarlo"][
            next(r[0].row for r in wb["MonteCarlo"].iter_rows() if r[0].value == "draw") + 1
        ]
    ]
    assert f"net_y{int(lives.max())}" in mc_keys
    ws = wb["Scenarios"]
    for r in (6, 7):
        ws.cell(row=r, column=keys.index("life_years") + 1).value = 7 if r == 6 else 4
    wb.save(path)
    recalc_file(path, in_place=True, functions=UDFS, fallback=libreoffice_values)
    values = load(path)["Scenarios"]
    row6 = [
        values.cell(row=6, column=keys.index(k) + 1).value
        for k in ("project_npv_usd_per_gpu", "project_irr", "project_payback_years")
    ]
    assert row6 == ["cash flows need whole life and depreciation years 1..4"] * 3
    want = scenario.evaluate(
        {"system": "H100_HGX", "mfu": 0.4, "rent_usd_per_gpu_hour": 2.2, "life_years": [4.0]}
    )["project_npv_usd_per_gpu"][0]
    assert close(values.cell(row=7, column=keys.index("project_npv_usd_per_gpu") + 1).value, want)


def test_monte_carlo_is_reproducible_for_a_seed(tmp_path, example_scenarios, read):
    spec = parse_spec(SPECS["example"])
    a, b = example_scenarios, tmp_path / "b.xlsx"  # written earlier in this process, and again now
    write_scenarios(parse_spec(SPECS["example"]), b)
    va = [r for r in read(a)["MonteCarlo"].iter_rows(values_only=True)]
    vb = [r for r in load(b)["MonteCarlo"].iter_rows(values_only=True)]
    assert va == vb
    other = dict(SPECS["example"], monte_carlo={**SPECS["example"]["monte_carlo"], "seed": 1})
    assert parse_spec(other).monte_carlo.sample()["mfu"].tolist() != spec.monte_carlo.sample()["mfu"].tolist()


def test_example_end_to_end_from_the_command_line(tmp_path, capsys):
    assert main(["scenarios", "--example"]) == 0
    text = capsys.readouterr().out
    assert text == EXAMPLE and text.startswith("# gputco scenarios SPEC")
    spec_file = tmp_path / "example.toml"
    spec_file.write_text(text)
    out = tmp_path / "scenarios.xlsx"
    assert main(["scenarios", str(spec_file), "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert f"wrote {out}" in printed and "= 90 scenarios" in printed
    assert "system+rent_usd_per_gpu_hour 2 x buyer 3 x mfu 5" in printed  # zipped: one axis
    assert "GB200_NVL72" in printed and "Monte Carlo P10 / P50 / P90" in printed
    assert len(printed.splitlines()) <= 25  # one screen
    wb = load(out)
    # every sheet of the scenario workbooks, in their order (the example has all of them)
    assert wb.sheetnames == list(SHEET_ORDER) and SHEET_ORDER[-1] == "xlwings.conf"
    keys, data, _ = block(wb["Scenarios"], "scenario")
    # every cell has a value; a year's payback point is "" (empty) unless the payback falls in it
    assert len(data) == 90 and all(
        v is not None
        for row in data
        for k, v in zip(keys, row, strict=True)
        if not k.startswith("payback_point")
    )
    for key in UDF_KEYS:
        assert key in keys
    # the example gives rents: the printed decision is the NPV's, as the workbook's rows say
    npv = [row[keys.index("project_npv_usd_per_gpu")] for row in data]
    (every,) = [line.split() for line in printed.splitlines() if line.startswith("all scenarios")]
    assert int(every[-1]) == 1 + max(range(90), key=lambda i: npv[i])  # best NPV: its number
    assert float(every[-2].replace(",", "")) == pytest.approx(max(npv), abs=0.5)
    tornado = [line for line in printed.splitlines() if line.startswith("  ")]
    assert "sensitivity, ranked by NPV" in printed and all(" NPV " in line for line in tornado)
    swings = [
        abs(float(b.replace(",", "")) - float(a.replace(",", "")))
        for *_, a, _dots, b in map(str.split, tornado)
    ]
    assert swings == sorted(swings, reverse=True)  # largest NPV range first, as the sheet's chart
    draws = wb["MonteCarlo"]
    mc_keys, mc_rows, _ = block(draws, "draw")
    mc_npv = [r[mc_keys.index("project_npv_usd_per_gpu")] for r in mc_rows]
    assert f"P(NPV < 0) {sum(v < 0 for v in mc_npv) / len(mc_npv):.1%} of {len(mc_npv):,} draws" in printed
    # refuses to overwrite, keeps the file, one line on stderr; --force replaces it
    before = out.read_bytes()
    assert main(["scenarios", str(spec_file), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "refusing to overwrite" in err
    assert out.read_bytes() == before
    assert main(["scenarios", str(spec_file), "-o", str(out), "--force"]) == 0


def test_inputs_sheet_names_every_input_the_rows_read(written, books):
    spec, _path, _ = written
    wb = books[False]
    names = set(wb.defined_names)
    for key in scenario.INPUT_NAMES:
        assert (f"inp_{key}" in names) == (key not in spec.grid), key
        assert f"base_{key}" in names
    for key in spec.fixed:
        v = named(wb, f"inp_{key}")
        assert v == spec.fixed[key], key
    assert {
        "k_hours_per_year",
        "base_use_flops_per_token",
        "base_use_active_params",
        "sys_id",
        "scn_usd_per_mtok",
        "chk_ok",
    } <= names
    assert not wb.calculation.fullCalcOnLoad  # opens showing its values (docs/workbook.md)
    assert wb.calculation.calcId == 191029


#: functions Excel stores as ``_xlfn.NAME`` (Microsoft Support, "Issue: An _xlfn. prefix is
#: displayed in front of a formula": the functions added after Excel 2007), those gputco may write
NEEDS_XLFN = {
    "AGGREGATE",
    "MINIFS",
    "MAXIFS",
    "IFS",
    "SWITCH",
    "CONCAT",
    "TEXTJOIN",
    "IFNA",
    "XLOOKUP",
    "XMATCH",
    "PERCENTILE.INC",
    "STDEV.S",
    "FORMULATEXT",
    "DAYS",
}


def test_formulas_use_functions_excel_and_libreoffice_74_know(written, books):
    _spec, _path, _ = written
    wb = books[False]
    known = set(supported_functions()) | {"TCO_TOTAL_PER_GPU_HOUR", "TCO_COST_PER_MTOK"}
    for ws in wb.worksheets:
        for row in ws.iter_rows(max_row=120):
            for c in row:
                text = c.value.text if hasattr(c.value, "text") else c.value
                if isinstance(text, str) and text.startswith("="):
                    for f in re.findall(r"(?<![\w.])([A-Z][A-Z0-9_.]*)\(", text.replace("_xlfn.", "")):
                        assert f in known, (ws.title, c.coordinate, f)
                    # functions newer than Excel 2007 are stored with the _xlfn. prefix, else
                    # Excel and LibreOffice read an unknown name (#NAME?)
                    for f in re.findall(r"(?<![\w.])([A-Z][A-Z0-9_.]*)\(", text):
                        assert f not in NEEDS_XLFN, (ws.title, c.coordinate, f)
                    assert "XLOOKUP" not in text and "LET(" not in text


def test_irr_percentiles_count_every_draw_and_a_draw_without_irr_below(tmp_path):
    """A rent low enough that some draws never earn their opex back: their IRR does not exist.
    The percentiles of the IRR count every draw, those without one below every draw with one (at
    a percentile among them the sheet says so), P(no IRR) is their share and P(IRR < cost of
    capital) counts them: numpy's inclusive percentile of the draws' own IRR cells, -inf for
    a draw without one."""
    spec = parse_spec(
        {
            "grid": {"system": ["H100_HGX"]},
            "fixed": {"mfu": 0.4},
            "monte_carlo": {"draws": 300, "seed": 7, "rent_usd_per_gpu_hour": {"dist": "uniform", "low": 0.05, "high": 3.0}},
        }
    )  # fmt: skip
    path = tmp_path / "s.xlsx"
    write_scenarios(spec, path)
    ws = load(path)["MonteCarlo"]
    keys, data, _ = block(ws, "draw")
    cells = [r[keys.index("project_irr")] for r in data]
    irr = np.array(
        [c if isinstance(c, float | int) and not isinstance(c, bool) else -np.inf for c in cells], float
    )
    none = np.isinf(irr)
    assert 0.1 < none.mean() < 0.6  # the case has draws without an IRR, and most have one
    rows = {r[0]: r for r in ws.iter_rows(min_row=1, max_row=60, values_only=True) if r[0]}
    for got, q in zip(rows["project_irr"][3:6], (10, 50, 90), strict=True):
        h = (irr.size - 1) * q / 100
        if none[np.argsort(irr, kind="stable")[int(h)]]:
            assert got == montecarlo.NO_IRR, q
        else:
            assert close(got, np.percentile(irr, q), 1e-12), q
    assert close(rows["p_no_irr"][3], none.mean())
    coc = float(
        np.asarray(scenario.used_inputs({"system": "H100_HGX", "mfu": 0.4})["cost_of_capital"]).ravel()[0]
    )
    assert close(rows["p_irr_below_cost_of_capital"][3], np.mean(irr < coc))


@pytest.mark.parametrize("rent", [None, 2.6])
def test_summary_sensitivity_rows_show_the_tornados_ends_or_its_reason_once(tmp_path, rent):
    """The Summary's "NPV change at low / high" row: with a rent, the tornado's largest driver's
    two NPV changes, as the Sensitivity sheet holds them; without one, the Sensitivity sheet's
    reason ("needs rent_usd_per_gpu_hour") once, in the high cell, with nothing to its right, and
    the low cell empty: a text runs over empty cells only, and a formula's "" is not empty (it was
    written twice: the low one cut, the high one whole; seen on a LibreOffice render)."""
    fixed = {"mfu": 0.5, **({"rent_usd_per_gpu_hour": rent} if rent else {})}
    spec = parse_spec({"grid": {"system": ["H100_HGX", "GB200_NVL72"]}, "fixed": fixed})
    wb = openpyxl.load_workbook(write_scenarios(spec, tmp_path / "s.xlsx").path, data_only=True)
    ws, sens = wb["Summary"], wb["Sensitivity"]
    (row,) = [c.row for c in ws["A"] if c.value == "  NPV change at low / high"]
    formula = openpyxl.load_workbook(tmp_path / "s.xlsx")["Summary"].cell(row=row, column=4).value
    low_ref = formula.removeprefix("=Sensitivity!").replace("R", "Q")
    low, high = sens[low_ref].value, sens[low_ref.replace("Q", "R")].value
    got = (ws.cell(row=row, column=3).value, ws.cell(row=row, column=4).value)
    if rent:
        assert all(isinstance(v, float) for v in (low, high)) and got == (low, high)
    else:
        assert isinstance(high, str) and "rent_usd_per_gpu_hour" in high and got in (("", high), (None, high))
        assert ws.cell(row=row, column=5).value is None  # room for the text to run into
