"""A real spreadsheet application agrees with the scenario workbooks.

LibreOffice headless, with a profile that forces a full recalculation on load (tests/lo.py),
recalculates the written file; every formula cell must equal the value our engine stored within
1e-9 relative. A plain LibreOffice has no TCO_ functions (#NAME?): there the TCO_ cells on
Scenarios, the relative differences computed from them and Summary's check cells
(chk_max_difference, chk_ok) are left out of the comparison, and only of that one; the test
asserts that exactly these cells are the ones left out. With gputco's LibreOffice add-in
installed in the profile (`gputco addin libreoffice`), LibreOffice computes those cells too and
every cell is compared, and chk_ok is TRUE inside LibreOffice.

Independently of our engine, LibreOffice alone, given a file without any cached value, computes
on every row what udfs.scenario.evaluate predicts.
"""

from __future__ import annotations

import tomllib

import pytest
from lo import formula_cells, mismatches, recalculate, requires_soffice, values
from openpyxl.utils import get_column_letter
from scenario_book import (
    BUYERS,
    MODELS_GRID,
    UDF_KEYS,
    block,
    close,
    expected_outputs,
    load,
    output,
    unrecalculated,
)

from gputco.udfs import chain, scenario
from gputco.workbook.scenarios.build import write_scenarios
from gputco.workbook.scenarios.example import EXAMPLE
from gputco.workbook.scenarios.spec import parse_spec
from gputco.workbook.soffice import lo_addin
from gputco.workbook.soffice.process import convert

pytestmark = requires_soffice

SPECS = {
    "example": tomllib.loads(EXAMPLE),
    "models": {
        "grid": {**MODELS_GRID},
        "fixed": {"system": "GB200_NVL72", "mfu": 0.41, "pue": 1.2, "seq_len": 4096},
        "monte_carlo": {
            "draws": 50,
            "seed": 3,
            "capex_per_gpu": {"dist": "lognormal", "median": 50000, "sigma": 0.2, "max": 80000},
        },
    },
    "buyers": BUYERS,
}


def _udf_cells(wb) -> set[tuple[str, str]]:
    """Scenarios cells of the TCO_ columns and Summary's check cells (of the workbook read with
    its formulas)."""
    ws = wb["Scenarios"]
    keys, data, first = block(ws, "scenario")
    out = {
        ("Scenarios", f"{get_column_letter(keys.index(k) + 1)}{first + i}")
        for k in UDF_KEYS
        for i in range(len(data))
    }
    for name in ("chk_max_difference", "chk_ok"):
        ((sheet, ref),) = wb.defined_names[name].destinations
        out.add((sheet, ref.replace("$", "")))
    return out


@pytest.mark.parametrize("name", list(SPECS))
def test_libreoffice_recalculates_our_cached_values(request, tmp_path, name):
    spec = parse_spec(SPECS[name])
    if name == "example":  # conftest's --example workbook, written once per test process
        path = request.getfixturevalue("example_scenarios")
    else:
        path = tmp_path / "scenarios.xlsx"
        write_scenarios(spec, path)
    lo = recalculate(path, tmp_path / "lo")
    read = load(path, data_only=False)
    formulas = formula_cells(read)
    udf = _udf_cells(read)
    assert udf <= set(formulas)
    lo_values = values(lo)
    assert {lo_values.get(c) for c in udf} == {"#NAME?"}  # no TCO_ functions in LibreOffice yet
    cells = sorted(set(formulas) - udf)
    assert len(cells) > 20 * spec.n_scenarios
    bad = mismatches(values(path), lo_values, cells)
    assert not bad, f"{len(bad)} of {len(cells)} cells differ:\n" + "\n".join(bad[:30])


def test_libreoffice_alone_gives_the_models_numbers(tmp_path):
    spec = parse_spec(SPECS["example"])
    src = unrecalculated(spec, tmp_path / "plain.xlsx")
    wb = load(recalculate(src, tmp_path / "lo"))
    keys, data, _ = block(wb["Scenarios"], "scenario")
    expected = expected_outputs(spec)
    for key in scenario.OUTPUTS:
        if chain.reads_year_table(chain.step_of(key)) or chain.optional_inputs_of(chain.step_of(key)):
            continue  # the rent-based results: no rent in this SPEC (test_scenarios.py checks)
        assert close(output(wb, keys, data, key), expected[key]), key
    keys, data, _ = block(wb["MonteCarlo"], "draw")
    draws = spec.monte_carlo.sample()
    mc = scenario.evaluate({**spec.base, **draws})
    for key in ("tco_usd_per_gpu_hour", "usd_per_mtok", "joules_per_token"):
        assert close(output(wb, keys, data, key, use="base_use_"), mc[key]), key


def test_with_the_addin_libreoffice_computes_the_tco_cells_too(tmp_path):
    spec = parse_spec(
        {
            "grid": {
                "system": ["H100_HGX", "GB200_NVL72"],
                "mfu": [0.4, 0.5],
                "buyer": ["hyperscaler", "emerging_neocloud"],
            }
        }
    )
    path = tmp_path / "scenarios.xlsx"
    write_scenarios(spec, path)
    profile = tmp_path / "profile"
    lo_addin.install(profile)
    lo = convert(path, tmp_path / "lo", "xlsx", profile=profile)
    read = load(path, data_only=False)
    formulas = formula_cells(read)
    udf = _udf_cells(read)
    lo_values = values(lo)
    assert all(isinstance(lo_values.get(c), int | float | bool) for c in udf), sorted(
        (c, lo_values.get(c)) for c in udf
    )[:5]
    bad = mismatches(values(path), lo_values, sorted(formulas))
    assert not bad, f"{len(bad)} of {len(formulas)} cells differ:\n" + "\n".join(bad[:30])
    wb = load(lo)
    ((sheet, ref),) = wb.defined_names["chk_ok"].destinations
    assert wb[sheet][ref.replace("$", "")].value is True
