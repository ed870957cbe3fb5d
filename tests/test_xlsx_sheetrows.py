"""workbook/xlsx/sheetrows.py: the one serialisation of cells that XlsxStream (`gputco batch`) and
fill_rows (`gputco scenarios`) share. Cached values and numbers must be written exactly as the
recalculation engine writes them (workbook/recalc/write/cellxml.value_xml: the scenario workbook is the
file a recalculation gives, byte for byte), and every cell kind must read back in openpyxl."""

from __future__ import annotations

import zipfile

import numpy as np
import openpyxl
import pyarrow as pa
import pytest

from gputco.workbook.recalc.base.values import DIV0, NA
from gputco.workbook.recalc.write.cellxml import value_xml as engine_value_xml
from gputco.workbook.xlsx.files import atomic_output
from gputco.workbook.xlsx.rowfill import BlockColumn, fill_rows
from gputco.workbook.xlsx.sheetrows import (
    Formula,
    FormulaColumn,
    InlineStrings,
    SharedStrings,
    number_texts,
    rows_xml,
    value_xml,
)
from gputco.workbook.xlsx.stream import XlsxStream

EDGES = [
    0.0,
    -0.0,
    2.0,
    -7.0,
    0.1,
    1 / 3,
    1e10,
    9999999999.0,
    15000000000.5,
    1.5e-5,
    1e-4,
    1.4199398e-7,
    1e16,
    2.0**53,
    9999999999999998.0,
    5e-324,
    1.7976931348623157e308,
    123456789.123,
]


def test_numbers_are_written_as_the_engine_writes_them():
    rng = np.random.default_rng(7)
    spread = rng.random(20_000) * 10.0 ** rng.integers(-12, 20, 20_000)
    x = np.concatenate([EDGES, np.negative(EDGES), spread, np.floor(spread)])
    got = number_texts(pa.array(x)).to_pylist()
    want = [engine_value_xml(v)[1].decode() for v in x.tolist()]
    assert got == want
    assert number_texts(pa.array([1.0, None, np.nan, np.inf, -np.inf])).to_pylist() == [
        "1",
        None,
        None,
        None,
        None,
    ]


@pytest.mark.parametrize("v", [*EDGES, True, False, "a<b&c>\"d'", "bell\x07", "", NA, DIV0])
def test_a_cached_value_is_written_as_the_engine_writes_it(v):
    t, text = engine_value_xml(v)
    assert value_xml(v) == ("" if t is None else f' t="{t.decode()}"', text.decode())


def test_a_formula_column_with_values_equals_one_with_the_engines_xml():
    """fill_rows passes the engine's (t, <v>) bytes; XlsxStream passes values: same cells."""
    cached = [2.5, "x<y", True, NA, 1e10, -0.0]
    xml = ([engine_value_xml(v)[0] for v in cached], [engine_value_xml(v)[1] for v in cached])
    numbers = np.array([0.1, 2.0, np.nan, 1e16, -3.0, 1.5e-5])
    a = rows_xml(6, 6, [(1, numbers, 4), (3, FormulaColumn("=A{r}&{1,2}", cached), 0)], InlineStrings())
    b = rows_xml(
        6, 6, [(1, [*numbers.tolist()], 4), (3, FormulaColumn("=A{r}&{1,2}", xml=xml), 0)], InlineStrings()
    )
    assert a == b
    assert b'<c r="C7" t="str"><f>A7&amp;{1,2}</f><v>x&lt;y</v></c>' in a
    assert b'<row r="8"><c r="C8" t="b">' in a  # NaN: no cell A8
    assert b'<c r="C9" t="e"><f>A9&amp;{1,2}</f><v>#N/A</v></c>' in a


def test_every_cell_kind_reads_back_in_openpyxl(tmp_path):
    path = tmp_path / "kinds.xlsx"
    with atomic_output(path) as tmp, XlsxStream(tmp) as book:
        sheet = book.sheet("kinds", header=["a", "b", "c"])
        sheet.write_columns([np.array([True, False]), [NA, None], pa.array([" lead", "x"])])
        sheet.write_row([Formula("1/0", DIV0), Formula("A2", None), Formula("A3", np.inf)])
    wb = openpyxl.load_workbook(path, data_only=True)
    ws = wb["kinds"]
    assert [ws["A2"].value, ws["A3"].value] == [True, False]
    assert ws["B2"].value == "#N/A" and ws["B2"].data_type == "e" and ws["B3"].value is None
    assert ws["C2"].value == " lead"  # leading space kept (xml:space="preserve")
    assert ws["A4"].value == "#DIV/0!" and ws["C4"].value == "#NUM!"
    with zipfile.ZipFile(path) as z:
        sheet_xml = z.read("xl/worksheets/sheet1.xml")
    assert b'<c r="B4"><f>A2</f></c>' in sheet_xml  # unknown value: no <v>


def test_fill_rows_and_the_stream_write_the_same_cells(tmp_path):
    """One writer: the rows fill_rows splices in are the rows XlsxStream writes (inline text)."""
    path = tmp_path / "rows.xlsx"
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Rows"
    ws.append(["x", "name", "double"])
    ws.append([0.0, "", "=A2*2"])
    wb.save(path)
    texts = (np.array([0, 1, 0]), ["a&b", "bell\x07"])
    fill_rows(
        path,
        "Rows",
        2,
        [
            BlockColumn(1, numbers=np.array([1.5, 1e10, -0.0])),
            BlockColumn(2, texts=texts),
            BlockColumn(3, formula="=A{r}*2"),
        ],
    )
    with zipfile.ZipFile(path) as z:
        filled = z.read("xl/worksheets/sheet1.xml")
    rows = filled[filled.index(b'<row r="2"') : filled.index(b"</sheetData>")]
    streamed = tmp_path / "s.xlsx"
    with XlsxStream(streamed, shared_strings=False) as book:
        book.sheet("Rows", header=["x", "name", "double"], freeze_header=False).write_columns(
            [np.array([1.5, 1e10, -0.0]), ["a&b", "bell\x07", "a&b"], FormulaColumn("A{r}*2")]
        )
    with zipfile.ZipFile(streamed) as z:
        data = z.read("xl/worksheets/sheet1.xml")
    assert data[data.index(b'<row r="2"') : data.index(b"</sheetData>")] == rows
    assert b"<v>10000000000</v>" in rows and b"bell_x0007_" in rows
    got = openpyxl.load_workbook(path)["Rows"]
    assert [[c.value for c in r] for r in got.iter_rows(min_row=2)] == [
        [1.5, "a&b", "=A2*2"],
        [10000000000, "bell_x0007_", "=A3*2"],
        [0, "a&b", "=A4*2"],
    ]


def test_shared_strings_index_each_text_once():
    strings = SharedStrings()
    xml = rows_xml(1, 3, [(2, pa.array(["b", "a", "b"]), 0), (3, ["a", None, "c"], 0)], strings)
    assert list(strings.index) == ["b", "a", "c"]
    assert xml.count(b't="s"><v>1</v>') == 2
    assert b"".join(strings.part()).endswith(b"<si><t>b</t></si><si><t>a</t></si><si><t>c</t></si></sst>")
