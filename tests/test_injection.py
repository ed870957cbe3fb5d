"""Formula injection: text that begins with =, +, - or @ (labels, sources, preset names, CSV cells)
is written as text, never as a formula, by the template builder, batch output and recalc.

The hostile texts are injected into the preset catalog for the duration of a test
(``monkeypatch.setitem`` on the loaded catalog, restored afterwards): the data is the input here,
the workbook writer is what is tested.
"""

from __future__ import annotations

import dataclasses
import re
import zipfile

import openpyxl
import pyarrow.parquet as pq
import pytest

from gputco.udfs import presets
from gputco.workbook.batch.run import run_batch
from gputco.workbook.finance.build import write_template

EVIL = {
    "system label": '=HYPERLINK("http://127.0.0.1:9/x","click")',
    "source": '=WEBSERVICE("http://127.0.0.1:9/steal")',
    "unit": "+cmd|' /C calc'!A0",
    "buyer label": "@SUM(1+1)*cmd|' /C calc'!A0",
    "run label": "-2+3+cmd|' /C calc'!A0",
}
EVIL_KEY = '=HYPERLINK("http://127.0.0.1:9/k","key")'


@pytest.fixture
def hostile_presets(monkeypatch):
    systems, buyers, runs = (presets.catalog(k) for k in ("system", "buyer", "run"))
    h100 = systems["H100_HGX"]
    monkeypatch.setitem(h100.texts, "label", EVIL["system label"])
    peak = h100.entries["peak_tflops_bf16"]
    monkeypatch.setitem(
        h100.entries, "peak_tflops_bf16", dataclasses.replace(peak, source=EVIL["source"], unit=EVIL["unit"])
    )
    monkeypatch.setitem(buyers["hyperscaler"].texts, "label", EVIL["buyer label"])
    first_run = next(iter(runs.values()))
    monkeypatch.setitem(first_run.texts, "label", EVIL["run label"])
    # a preset whose very name looks like a formula: a copy of the H100 under that key
    monkeypatch.setitem(systems, EVIL_KEY, dataclasses.replace(h100, key=EVIL_KEY))
    return [*EVIL.values(), EVIL_KEY]


def _formulas(path) -> list[str]:
    """Every formula text in every sheet of a package."""
    out = []
    with zipfile.ZipFile(path) as z:
        for name in z.namelist():
            if name.startswith("xl/worksheets/"):
                out += re.findall(r"<f[^>]*>(.*?)</f>", z.read(name).decode())
    return out


def test_template_writes_hostile_preset_texts_and_names_as_text(hostile_presets, tmp_path):
    path = tmp_path / "t.xlsx"
    write_template(path, ["H100_HGX", EVIL_KEY])
    wb = openpyxl.load_workbook(path)
    found = {text: 0 for text in hostile_presets}
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for c in row:
                if c.value in found:
                    found[c.value] += 1
                    assert c.data_type == "s", (ws.title, c.coordinate, c.value)
    assert all(found.values()), f"every hostile text is in the workbook as text: {found}"
    for formula in _formulas(path):
        assert "127.0.0.1" not in formula and "cmd|" not in formula, formula
    # the formulas that look the texts up show them as text values, and the maths still works
    values = openpyxl.load_workbook(path, data_only=True)
    inputs = values["Inputs"]
    shown = {c.value for row in inputs.iter_rows() for c in row if isinstance(c.value, str)}
    assert EVIL["system label"] in shown and EVIL_KEY in shown
    compare = values["Compare"]
    ratios = [r for r in compare.iter_rows(values_only=True) if r[0] == "tco_ratio"]
    assert ratios and ratios[0][3:5] == pytest.approx((1.0, 1.0))  # the copy costs the same


CSV = (
    "id,label,_note,system,mfu\n"
    '1,"=HYPERLINK(""http://127.0.0.1:9/"",""x"")",+1,H100_HGX,0.4\n'
    "2,@SUM(1),-1+2,H100_HGX,0.4\n"
    '3,"\tTAB","\r=1+1",GB200_NVL72,0.5\n'
    '4,"bell\x07 and =not a formula",plain,H100_HGX,0.5\n'
)
TEXTS = ['=HYPERLINK("http://127.0.0.1:9/","x")', "+1", "@SUM(1)", "-1+2", "\tTAB", "\r=1+1"]


def test_batch_xlsx_writes_formula_like_text_as_text(tmp_path):
    src = tmp_path / "in.csv"
    src.write_text(CSV, newline="")
    run_batch(src, tmp_path / "out.xlsx")
    ws = openpyxl.load_workbook(tmp_path / "out.xlsx").active
    cells = {c.value: c for row in ws.iter_rows(min_row=2, max_col=3) for c in row}
    assert all(c.data_type in ("s", "n") for c in cells.values())
    for text in TEXTS[:-1]:  # (XML reads a bare carriage return back as a line feed)
        assert cells[text].data_type == "s", text
    assert "bell_x0007_ and =not a formula" in cells  # Excel's escape for a control character
    assert not _formulas(tmp_path / "out.xlsx")


def test_batch_csv_neutralises_formula_like_text(tmp_path):
    src = tmp_path / "in.csv"
    src.write_text(CSV, newline="")
    run_batch(src, tmp_path / "out.csv")
    import pyarrow.csv as pcsv

    out = pcsv.read_csv(tmp_path / "out.csv").to_pydict()
    for text in TEXTS:
        assert "'" + text in out["label"] + out["_note"], text
    assert "bell\x07 and =not a formula" in out["label"]  # not at the start: unchanged


def test_batch_parquet_keeps_text_exactly(tmp_path):
    src = tmp_path / "in.csv"
    src.write_text(CSV, newline="")
    run_batch(src, tmp_path / "out.parquet")
    out = pq.read_table(tmp_path / "out.parquet").to_pydict()
    assert set(TEXTS) <= set(out["label"] + out["_note"])  # typed columns: nothing to neutralise


@pytest.mark.parametrize("encoding", ["dictionary", "binary", "large_string", "large_binary"])
def test_formula_like_text_is_safe_whatever_the_input_columns_encoding(tmp_path, encoding):
    """A regression: a pandas categorical (dictionary) or binary column of a Parquet input went into
    the CSV unescaped. Every writer now sees it as text: CSV neutralises it, xlsx writes string
    cells, Parquet keeps it exactly (as a plain string column)."""
    import pyarrow as pa

    texts = TEXTS[:3]
    label = pa.array(texts)
    label = {
        "dictionary": label.dictionary_encode(),
        "binary": label.cast(pa.binary()),
        "large_string": label.cast(pa.large_string()),
        "large_binary": label.cast(pa.large_binary()),
    }[encoding]
    src = tmp_path / "in.parquet"
    pq.write_table(pa.table({"label": label, "system": ["H100_HGX"] * 3, "mfu": [0.4] * 3}), src)
    run_batch(src, tmp_path / "out.csv")
    lines = (tmp_path / "out.csv").read_text().splitlines()[1:]
    assert [line.split(",")[0].strip('"')[:2] for line in lines] == ["'=", "'+", "'@"]
    run_batch(src, tmp_path / "out.xlsx")
    ws = openpyxl.load_workbook(tmp_path / "out.xlsx").active
    assert [(c.value, c.data_type) for c in ws["A"][1:]] == [(t, "s") for t in texts]
    assert not _formulas(tmp_path / "out.xlsx")
    run_batch(src, tmp_path / "out.parquet")
    back = pq.read_table(tmp_path / "out.parquet")
    assert back.schema.field("label").type == pa.string() and back.column("label").to_pylist() == texts
