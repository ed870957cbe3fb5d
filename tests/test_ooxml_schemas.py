"""Every XML part of every workbook gputco writes is valid against the ECMA-376 schemas (5th
edition, Transitional, and the OPC schemas of Part 2; tests/data/ooxml-schemas with their source and
licence), and writes each feature as Excel itself writes it (the 384 Excel-saved workbooks of
tests/data/excel_corpus):

- a conditional format's solid fill (a dxf) carries ``bgColor``: Excel colours a cell from a dxf's
  ``bgColor`` (its own dxfs: ``<patternFill><bgColor rgb="FFFFC7CE"/></patternFill>``, or solid with
  both colours; 225 of the corpus's 230 solid or unpatterned dxf fills have one, the rest are
  ``none`` or patterns);
- a chart category over text cells is a ``strRef`` with a ``strCache``, over numbers a ``numRef``
  with a ``numCache`` (the corpus: 19 strRef + strCache, 5 numRef + numCache, never a bare
  reference); values carry a ``numCache``;
- no text cell is ``t="inlineStr"`` without its ``<is>`` (Excel writes none; an empty text is a
  formula's ``t="str"`` with an empty ``<v>``).

The workbooks: the finance workbook at its defaults and with every system by month with debt, the
scenario workbooks of ``--example`` and of a project SPEC (by month, a build, debt), the output of
``gputco recalc`` and of ``gputco batch`` to .xlsx.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

import openpyxl
import pytest
from ooxml import package_errors, part_errors

from gputco.addin.cli import main
from gputco.udfs import UDFS, presets
from gputco.workbook.finance.build import write_template
from gputco.workbook.recalc import recalc_file
from gputco.workbook.scenarios.example import EXAMPLE

S = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
C = "{http://schemas.openxmlformats.org/drawingml/2006/chart}"

PROJECT_SPEC = """
[grid]
system = ["H100_HGX", "GB200_NVL72"]
rent_usd_per_gpu_hour = [2.00, 4.00]
zip = [["system", "rent_usd_per_gpu_hour"]]
mfu = [0.4, 0.5]

[fixed]
buyer = "neocloud_giant"
periods = "month"
build_months = 12
ramp_months = 3
debt_fraction = 0.6
debt_rate = 0.09
debt_years = 4
tax_rate = 0.21
depreciation_method = "macrs_5"

[sensitivity]
inputs = ["mfu", "debt_rate"]

[monte_carlo]
draws = 50
seed = 7
mfu = { dist = "uniform", low = 0.35, high = 0.55 }
"""

BATCH_CSV = "system,buyer,mfu,rent_usd_per_gpu_hour\nH100_HGX,,0.5,2\nGB200_NVL72,neocloud_giant,0.45,\n"


@pytest.fixture(scope="module")
def books(tmp_path_factory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("ooxml")
    out = {"finance": d / "finance.xlsx"}
    write_template(out["finance"])
    systems = sorted(presets.catalog("system"))
    out["finance_month_debt"] = d / "finance_month_debt.xlsx"
    write_template(
        out["finance_month_debt"],
        systems,
        "neocloud_giant",
        inputs={
            "inp_periods": "month",
            "inp_debt_fraction": 0.6,
            "inp_debt_rate": 0.09,
            "inp_debt_years": 4,
            "inp_depreciation_method": "macrs_5",
            **{f"inp_build_months_{k}": 12 for k in range(1, len(systems) + 1)},
        },
    )
    for name, text in (("scenarios_example", EXAMPLE), ("scenarios_project", PROJECT_SPEC)):
        spec = d / f"{name}.toml"
        spec.write_text(text)
        out[name] = d / f"{name}.xlsx"
        assert main(["scenarios", str(spec), "-o", str(out[name])]) == 0
    out["recalc"] = d / "recalc.xlsx"
    recalc_file(out["finance"], out["recalc"], engine="gputco", functions=UDFS)
    csv = d / "batch.csv"
    csv.write_text(BATCH_CSV)
    out["batch"] = d / "batch.xlsx"
    assert main(["batch", str(csv), "-o", str(out["batch"])]) == 0
    return out


NAMES = ("finance", "finance_month_debt", "scenarios_example", "scenarios_project", "recalc", "batch")


@pytest.mark.parametrize("name", NAMES)
def test_every_part_is_schema_valid(books, name):
    n, errors = package_errors(books[name])
    assert n >= 7, f"{name}: only {n} XML parts"
    assert errors == [], "\n".join(errors[:20])


def test_the_validator_finds_errors():
    """The check can fail: a sheet whose children are out of the schema's order, an unknown
    attribute and a bad enumeration value are reported, Excel's own ``xml:space`` on ``<t>`` is not."""
    ns = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"'
    good = f'<worksheet {ns}><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t xml:space="preserve"> a</t></is></c></row></sheetData></worksheet>'
    assert part_errors("good", good.encode()) == []
    for bad in (
        f"<worksheet {ns}><sheetData/><sheetPr/></worksheet>",
        f'<worksheet {ns}><sheetData><row r="1"><c r="A1" t="text"/></row></sheetData></worksheet>',
        f'<worksheet {ns}><sheetData><row r="1" height="3"/></sheetData></worksheet>',
    ):
        assert part_errors("bad", bad.encode()), bad


def _xml(path: Path, part: str):
    from lxml import etree

    with zipfile.ZipFile(path) as z:
        return etree.fromstring(z.read(part))


@pytest.mark.parametrize("name", NAMES)
def test_every_dxf_solid_fill_has_bg_color(books, name):
    styles = _xml(books[name], "xl/styles.xml")
    fills = styles.findall(f"{S}dxfs/{S}dxf/{S}fill/{S}patternFill")
    if name.startswith(("finance", "scenarios", "recalc")):
        assert fills, f"{name}: no conditional-format fills"
    for fill in fills:
        if fill.get("patternType") in (None, "solid"):
            assert fill.find(f"{S}bgColor") is not None, f"{name}: dxf fill without bgColor"


def _cells(wb, ref: str) -> list:
    sheet, _, cells = ref.rpartition("!")
    ws = wb[sheet.strip("'").replace("''", "'")]
    got = ws[cells.replace("$", "")]
    rows = got if isinstance(got, tuple) else ((got,),)
    return [c for row in rows for c in (row if isinstance(row, tuple) else (row,))]


@pytest.mark.parametrize("name", ["finance", "finance_month_debt", "scenarios_example", "scenarios_project"])
def test_chart_references_carry_caches_in_excels_form(books, name):
    wb = openpyxl.load_workbook(books[name], data_only=True)
    with zipfile.ZipFile(books[name]) as z:
        charts = [n for n in z.namelist() if re.match(r"xl/charts/chart\d+\.xml$", n)]
    assert charts, f"{name}: no charts"
    text_cats = 0
    for part in charts:
        chart = _xml(books[name], part)
        for cat in chart.iter(f"{C}cat"):
            (ref,) = list(cat)
            cells = _cells(wb, ref.find(f"{C}f").text)
            texts = [c.value for c in cells if c.data_type == "s" and c.value not in (None, "")]
            numbers = [c.value for c in cells if c.data_type == "n" and c.value is not None]
            if texts:
                text_cats += 1
                assert ref.tag == f"{C}strRef", f"{part}: a category over text cells is {ref.tag}"
                cache = ref.find(f"{C}strCache")
                assert cache is not None, f"{part}: strRef without strCache"
                assert [p.findtext(f"{C}v") for p in cache.iter(f"{C}pt")] == [str(t) for t in texts]
            else:
                assert ref.tag == f"{C}numRef", f"{part}: a category over numbers is {ref.tag}"
                cache = ref.find(f"{C}numCache")
                assert cache is not None, f"{part}: numRef without numCache"
                got = [float(p.findtext(f"{C}v")) for p in cache.iter(f"{C}pt")]
                assert got == pytest.approx([float(v) for v in numbers], rel=1e-15)
            assert int(cache.find(f"{C}ptCount").get("val")) == len(cells)
        for val in chart.iter(f"{C}val"):
            cells = _cells(wb, val.find(f"{C}numRef/{C}f").text)
            got = [float(p.findtext(f"{C}v")) for p in val.iter(f"{C}pt")]
            numbers = [c.value for c in cells if c.data_type == "n" and c.value is not None]
            assert got == pytest.approx([float(v) for v in numbers], rel=1e-15)
    if name.startswith("finance"):
        assert text_cats >= 1  # the TCO breakdown's systems


@pytest.mark.parametrize("name", NAMES)
def test_no_inline_string_without_its_text(books, name):
    with zipfile.ZipFile(books[name]) as z:
        for part in z.namelist():
            if part.startswith("xl/worksheets/") and part.endswith(".xml"):
                xml = z.read(part).decode()
                bare = re.findall(
                    r'<c [^>]*t="inlineStr"[^>]*(?:/>|>(?!<is>)[^<]*(?:<f>[^<]*</f>)?</c>)', xml
                )
                assert not bare, f"{name} {part}: {bare[:3]}"
