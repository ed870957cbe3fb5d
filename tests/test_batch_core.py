"""`gputco batch` without pyarrow (the core install, without the parquet extra): CSV and .xlsx in and out
give the results pyarrow's readers and writers give, the same bad cells the same way, and
Parquet one clear line naming the file and the extra.

pyarrow is hidden by ``None`` in ``sys.modules`` (an import then raises ImportError, as where it
is not installed); tests/test_wheel.py runs the same in a venv that has no pyarrow at all.
"""

from __future__ import annotations

import csv
import sys

import numpy as np
import openpyxl
import pytest
from batch_case import THREE

from gputco.udfs import scenario
from gputco.workbook.batch.run import RESULTS, BatchError, run_batch
from gputco.workbook.xlsx.rowfill import BlockColumn
from gputco.workbook.xlsx.sheetrows import (
    Formula,
    FormulaColumn,
    InlineStrings,
    SharedStrings,
    TextCodes,
    rows_xml,
    rows_xml_python,
)

CSV = (
    "\ufeffid,system,buyer,precision,mfu,usd_per_kwh,tokens,rent_usd_per_gpu_hour\r\n"
    "a,H100_HGX,,bf16,0.54,,300e9,2\r\n"
    "\r\n"
    '"=b, quoted",GB200_NVL72, neocloud_giant ,fp8,.4,0.12,1e12,\r\n'
    "c,h100 hgx,emerging_neocloud,,3E-1,0.05,,4.5\r\n"
)
EU = "system;mfu;usd_per_kwh\nH100_HGX;0,54;0,12\nGB200_NVL72;0,4;\n"
BAD = "system,mfu,pue\nH100_HGX,0.5,x\nH100_HGX,1_000,1.2\nnope,nan,1.3\n,,\nH100_HGX,,0.9\n"


@pytest.fixture
def no_pyarrow(monkeypatch):
    for name in [m for m in sys.modules if m == "pyarrow" or m.startswith("pyarrow.")] or ["pyarrow"]:
        monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(ImportError):
        import pyarrow  # noqa: F401


def _read(path) -> list[list[object]]:
    """Every cell of a results file as a value: numbers as floats, empty as None."""
    if path.suffix == ".xlsx":
        ws = openpyxl.load_workbook(path, read_only=True).worksheets[0]
        rows = [list(r) for r in ws.iter_rows(values_only=True)]
    else:
        with open(path, newline="", encoding="utf-8") as fh:
            rows = [[v if v != "" else None for v in r] for r in csv.reader(fh)]
    out = []
    for r in rows:
        cells = []
        for v in r:
            try:
                cells.append(float(v) if v is not None and not isinstance(v, bool) else v)
            except ValueError:
                cells.append(v)
        out.append(cells)
    return out


def _run(src, dst, **kw):
    try:
        run_batch(src, dst, **kw)
    except BatchError as err:
        return str(err).replace(str(dst.parent), "DIR")
    return _read(dst)


@pytest.mark.parametrize("out", ["csv", "xlsx"])
@pytest.mark.parametrize("text", [CSV, EU, BAD], ids=["csv", "european", "bad"])
def test_without_pyarrow_the_results_and_errors_are_pyarrows(tmp_path, monkeypatch, text, out):
    src = tmp_path / "in.csv"
    src.write_text(text, encoding="utf-8", newline="")
    with_arrow = _run(src, tmp_path / f"a.{out}", chunk_rows=2)
    with monkeypatch.context() as m:
        for name in [n for n in sys.modules if n == "pyarrow" or n.startswith("pyarrow.")]:
            m.setitem(sys.modules, name, None)
        without = _run(src, tmp_path / f"b.{out}", chunk_rows=2)
    if isinstance(with_arrow, str):
        assert without == with_arrow.replace("a." + out, "b." + out)
        assert (
            without.splitlines()[1:4]
            == [  # the reports are real ones
                "row 2, column C (pue): 'x' is not a number",
                "row 3, column B (mfu): '1_000' is not a number",  # float() reads it; a number text does not
                "row 4, column A (system): unknown system 'nope'" + without.splitlines()[3][47:],
            ]
        )
        return
    assert without == with_arrow
    assert without[0][-len(RESULTS) :] == list(RESULTS)
    assert len(without) == 1 + (3 if text == CSV else 2)


def test_a_core_install_run_equals_the_model(tmp_path, no_pyarrow):
    src, dst = tmp_path / "in.csv", tmp_path / "out.csv"
    src.write_text(CSV, encoding="utf-8", newline="")
    run_batch(src, dst)
    rows = _read(dst)
    head, body = rows[0], rows[1:]
    expected = scenario.evaluate({**THREE, "rent_usd_per_gpu_hour": [2.0, np.nan, 4.5]})
    for name in ("tco_usd_per_gpu_hour", "usd_per_mtok", "project_npv_usd_per_gpu"):
        got = np.array([np.nan if r[head.index(name)] is None else r[head.index(name)] for r in body])
        np.testing.assert_allclose(got, expected[name], rtol=1e-15)
    assert body[1][0] == "'=b, quoted"  # formula-like text neutralised, its comma quoted


@pytest.mark.parametrize("where", ["in", "out"])
def test_parquet_without_pyarrow_is_one_clear_line(tmp_path, no_pyarrow, where):
    csv_file, pq_file = tmp_path / "in.csv", tmp_path / "x.parquet"
    csv_file.write_text(CSV)
    pq_file.write_bytes(b"PAR1")
    src, dst = (
        (pq_file, tmp_path / "out.csv") if where == "in" else (csv_file, pq_file.with_name("o.parquet"))
    )
    with pytest.raises(BatchError) as err:
        run_batch(src, dst)
    named = src if where == "in" else dst
    assert str(err.value) == (
        f"{named}: {'reading' if where == 'in' else 'writing'} Parquet needs pyarrow, which is not "
        "installed; install it with pip install 'gputco[parquet]'"
    )
    assert not dst.exists()


def _block():
    """A block of every kind of cell rows_xml takes."""
    n = 5
    return n, [
        (1, np.array([2.0, -0.0, 1e10, 1.5e-5, np.nan]), 0),
        (2, np.array([1, 2, 3, 4, 5]), 3),
        (3, np.array([True, False, True, True, False]), 0),
        (4, ["a&b", None, " pad ", "=not a formula", 7.5], 2),
        (5, TextCodes(np.array([1, 0, 1, 1, 0]), ["x<y", "z"]), 0),
        (6, FormulaColumn("A{r}*2", cached=np.array([4.0, 0.0, np.inf, 3e-5, 1.0])), 0),
        (7, FormulaColumn('B{r}&"{r}"', cached=["t", None, True, 2.5, "<"]), 1),
        (8, FormulaColumn("C{r}"), 0),
        (9, FormulaColumn("D{r}", xml=([None, b"str", None, b"b", None], [b"1", b"s", b"2", b"1", b"3"])), 0),
        (10, [Formula("=E1", 1.0), None, Formula("F1"), 2, "txt"], 0),
        (11, np.array(["u", None, "v", "u", None], dtype=object), 0),
    ]


@pytest.mark.parametrize("strings", [InlineStrings, SharedStrings])
def test_rows_without_pyarrow_are_the_same_bytes(strings):
    n, columns = _block()
    a, b = strings(), strings()
    assert rows_xml_python(7, n, columns, b) == rows_xml(7, n, columns, a)
    if strings is SharedStrings:
        assert a.index == b.index  # the same texts, in the same order


def test_block_columns_are_numpy_or_codes():
    """rowfill hands rows_xml numpy numbers and text codes, which need no pyarrow."""
    from gputco.workbook.xlsx.rowfill import _column

    assert isinstance(_column(BlockColumn("A", numbers=[1.0, 2.0]), None), np.ndarray)
    assert isinstance(_column(BlockColumn("B", texts=([0, 1], ["p", "q"])), None), TextCodes)


def test_the_standard_library_writer_in_blocks_writes_what_it_writes_at_once(tmp_path, monkeypatch):
    from gputco.workbook.batch import csv_out
    from gputco.workbook.batch.table import Table, text_column

    t = Table(
        ["n", "x"], [text_column(["a", None, "=c", "d,e", 'f"g']), np.array([1.5, np.nan, 3.0, 1e20, -0.0])]
    )
    texts = []
    for block in (2, 100):
        monkeypatch.setattr(csv_out, "BLOCK_ROWS", block)
        path = tmp_path / f"{block}.csv"
        w = csv_out.CsvWriter(path, t.names, use_arrow=False)
        w.write(t)
        w.close()
        texts.append(path.read_text())
    assert texts[0] == texts[1] == '"n","x"\n"a",1.5\n,\n"\'=c",3.0\n"d,e",1e+20\n"f""g",-0.0\n'
