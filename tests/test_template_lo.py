"""A real spreadsheet application agrees with the finance workbook.

LibreOffice headless, with a profile that forces a full recalculation on load (tests/lo.py),
recalculates the generated file; every native-formula cell must equal the value we stored within
1e-9 relative. LibreOffice cannot evaluate gputco's TCO_* functions (no add-in there: #NAME?), so
the UDF cells on Checks and the cells computed from them (the difference, OK and chk_ok cells)
are left out of that comparison, and only of that one.

Changing inputs with openpyxl (electricity price, a system, precision, model, convention, MFU,
overrides) and recalculating, with LibreOffice and with gputco's own engine, gives what udfs
predicts for the same inputs.
"""

from __future__ import annotations

import re

import openpyxl
import pytest
from lo import formula_cells, mismatches, recalculate, requires_soffice, values
from template_expect import Scenario, check_benchmarks, check_compare, check_facts, check_model

from gputco.udfs import presets
from gputco.workbook.finance.build import build_workbook, fill_cached_values, write_template

pytestmark = requires_soffice
ALL_SYSTEMS = list(presets.catalog("system"))


def _udf_dependent_cells(formulas: dict) -> set:
    """Checks cells that call a TCO_ function or are computed from one (a fixpoint on refs)."""
    out = {key for key, f in formulas.items() if key[0] == "Checks" and "TCO_" in f}
    changed = True
    while changed:
        changed = False
        for key, f in formulas.items():
            if key in out or key[0] != "Checks":
                continue
            refs = set()
            for a, r1, b, r2 in re.findall(r"\b([A-Z]{1,2})(\d+)(?::([A-Z]{1,2})(\d+))?", f):
                if b:  # a column range such as G8:G120
                    refs |= {("Checks", f"{a}{r}") for r in range(int(r1), int(r2) + 1)}
                else:
                    refs.add(("Checks", f"{a}{r1}"))
            if refs & out:
                out.add(key)
                changed = True
    return out


@pytest.mark.parametrize(
    "systems,buyer",
    [
        (["H100_HGX", "GB200_NVL72"], "hyperscaler"),
        (ALL_SYSTEMS, "emerging_neocloud"),
    ],
)
def test_libreoffice_recalculates_our_cached_values(tmp_path, systems, buyer):
    path = tmp_path / "gpu-tco.xlsx"
    write_template(path, systems, buyer)
    lo = recalculate(path, tmp_path / "lo")
    formulas = formula_cells(path)
    excluded = _udf_dependent_cells(formulas)
    assert len(excluded) > 3 * 100  # UDF, difference and OK cells of every check row
    assert ("Checks", "C4") in excluded
    cells = sorted(set(formulas) - excluded)
    assert len(cells) > 600
    bad = mismatches(values(path), values(lo), cells)
    assert not bad, f"{len(bad)} cells differ:\n" + "\n".join(bad[:30])


def test_libreoffice_alone_gives_the_udfs_numbers(tmp_path):
    """Independent of our engine: LibreOffice's own results equal udfs on every keyed row."""
    src = tmp_path / "plain.xlsx"
    build_workbook(ALL_SYSTEMS, "neocloud_giant").save(src)  # formulas only, no cached values
    lo = openpyxl.load_workbook(recalculate(src, tmp_path / "lo"), data_only=True)
    sc = Scenario(ALL_SYSTEMS, "neocloud_giant")
    for bad, _n in (
        check_model(lo["Model"], sc),
        check_compare(lo["Compare"], sc),
        check_benchmarks(lo["Benchmarks"], sc.buyer),
        check_facts(lo["Benchmarks"], sc.buyer),
    ):
        assert not bad, "\n".join(bad[:30])


CHANGES = {
    "inp_rent_usd_per_gpu_hour_2": 3.7,  # the rent follows the user, not the drop-down: B200's
    "inp_buyer": "neocloud_giant",
    "inp_usd_per_kwh": 0.12,
    "inp_pue": 1.45,
    "inp_system_2": "B200_HGX",
    "inp_precision": "fp8",
    "inp_model": "llama3_70b",
    "inp_convention": "megatron",
    "inp_seq_len": 4096,
    "inp_mfu_1": 0.4,
    "inp_mfu_2": 0.37,
    "inp_capex_per_gpu_1": 30000,
    "inp_peak_tflops_2": 4400,
    "inp_it_kw_per_gpu_2": 1.9,
    "inp_tokens": 1e12,
    "inp_gpus_1": 1024,
    "inp_gpus_2": 1024,
    "inp_kwh_per_household_year": 10000,
}
CHANGED = Scenario(
    ["H100_HGX", "B200_HGX"],
    "neocloud_giant",
    model="llama3_70b",
    precision="fp8",
    convention="megatron",
    mfu=[0.4, 0.37],
    tokens=1e12,
    gpus=1024,
    kwh=10000,
    overrides={
        "usd_per_kwh": 0.12,
        "pue": 1.45,
        "seq_len": 4096,
        "capex_per_gpu": [30000, None],
        "peak_tflops": [None, 4400],
        "it_kw_per_gpu": [None, 1.9],
    },
)


@pytest.fixture(scope="module")
def changed_workbook(tmp_path_factory) -> bytes:
    """The default workbook's formulas with CHANGES typed into its inputs (no cached values), made
    once per module; each test writes its own copy (the gputco engine fills it in place)."""
    where = tmp_path_factory.mktemp("changed")
    src = where / "default.xlsx"
    build_workbook(["H100_HGX", "GB200_NVL72"]).save(src)
    wb = openpyxl.load_workbook(src)
    for name, value in CHANGES.items():
        ((sheet, ref),) = wb.defined_names[name].destinations
        wb[sheet][ref.replace("$", "")] = value
    changed = where / "changed.xlsx"
    wb.save(changed)
    return changed.read_bytes()


@pytest.mark.parametrize("engine", ["libreoffice", "gputco"])
def test_changed_inputs_recalculate_to_what_udfs_predicts(tmp_path, engine, changed_workbook):
    changed = tmp_path / "changed.xlsx"
    changed.write_bytes(changed_workbook)
    if engine == "libreoffice":
        result = recalculate(changed, tmp_path / "lo")
    else:
        fill_cached_values(changed)
        result = changed
    wb = openpyxl.load_workbook(result, data_only=True)
    for bad, n in (check_model(wb["Model"], CHANGED), check_compare(wb["Compare"], CHANGED)):
        assert not bad, "\n".join(bad[:30])
        assert n > 40


def test_render_prints_only_the_chosen_sheet_to_png(tmp_path, default_template):
    from gputco.workbook.soffice.process import LibreOfficeError
    from gputco.workbook.soffice.render import render_sheet

    path = default_template
    png = render_sheet(path, tmp_path / "compare.png", "Compare")
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert width > height  # one landscape A4 page at 70 dpi
    with pytest.raises(LibreOfficeError, match="no sheet 'Nope'"):
        render_sheet(path, tmp_path / "x.png", "Nope")
