"""The regex reader (workbook/recalc/read/sheetscan.py) and the bulk writer (patch.py) on hand-written
worksheet parts: what the plain grammar reads, what it leaves to expat (which must then give the
same cells), and that XML's rules hold either way (entities, line ends, DTDs refused, malformed
parts named)."""

from __future__ import annotations

import zipfile

import pytest

from gputco.workbook.recalc import recalc_file
from gputco.workbook.recalc.base.errors import WorkbookFormatError
from gputco.workbook.recalc.read.sheetscan import scan
from gputco.workbook.recalc.read.sheetxml import read_sheet
from gputco.workbook.soffice.fallback import libreoffice_values

NS = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"'
STRINGS = ["shared"]


def sheet(rows: str, ns: str = NS, head: str = "") -> bytes:
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>{head}<worksheet {ns}><sheetData>{rows}'
        "</sheetData></worksheet>"
    ).encode()


PLAIN = sheet(
    '<row r="1"><c r="A1" s="1" t="n"><v>2.5</v></c><c r="B1" t="s"><v>0</v></c>'
    '<c r="C1" t="inlineStr"><is><t xml:space="preserve">a &amp; b</t></is></c>'
    '<c r="D1" t="b"><v>1</v></c><c r="E1" t="e"><v>#N/A</v></c><c r="F1" s="2"/></row>\n'
    '<row r="3" hidden="1"><c r="A3"><f>A1*2</f><v>5</v></c>'
    '<c r="B3" t="str"><f>"x&lt;"&amp;B1</f><v>x&lt;shared</v></c>'
    '<c r="C3"><f>SUM(\r\n1,2)</f><v /></c><c r="D3"><f>A1</f></c></row>'
)


def cells(part) -> dict:
    out = dict(zip(zip(part.num_rows, part.num_cols, strict=True), part.num_vals, strict=True))
    out.update(zip(zip(part.obj_rows, part.obj_cols, strict=True), part.obj_vals, strict=True))
    return {k: (str(v) if type(v).__name__ == "XlError" else v) for k, v in out.items()}


def formulas(part) -> list:
    return [(f.row, f.col, f.text, f.cached) for f in part.formulas]


def test_the_plain_grammar_is_read_by_regular_expressions():
    part = scan("S", "sheet1.xml", PLAIN, STRINGS)
    assert part is not None
    assert cells(part) == {
        (1, 1): 2.5,
        (1, 2): "shared",
        (1, 3): "a & b",
        (1, 4): True,
        (1, 5): "#N/A",
        (3, 1): 5.0,
        (3, 2): "x<shared",
    }
    # XML's line-end rule: a CR LF inside a formula is read as LF, as expat reads it
    assert formulas(part) == [
        (3, 1, "A1*2", 5.0),
        (3, 2, '"x<"&B1', "x<shared"),
        (3, 3, "SUM(\n1,2)", None),
        (3, 4, "A1", None),
    ]
    assert (part.max_row, part.max_col, part.hidden_rows) == (3, 6, [3])


@pytest.mark.parametrize(
    "xml",
    [
        sheet('<row r="1"><c r="A1"><v>1</v></c><!-- a comment --></row>'),
        sheet('<row r="1"><c r="A1" t="str"><f>"a"</f><v><![CDATA[a]]></v></c></row>'),
        sheet('<row r="1"><c r="A1" t="inlineStr"><is><t>line&#10;two</t></is></c></row>'),
        sheet('<row><c><v>1</v></c><c t="s"><v>0</v></c></row>'),  # no r attributes
        sheet('<row r="1"><c r="A1" t="inlineStr"><is><r><t>ri</t></r><r><t>ch</t></r></is></c></row>'),
    ],
)
def test_other_parts_go_through_expat_with_the_same_rules(xml):
    assert scan("S", "sheet1.xml", xml, STRINGS) is None
    part = read_sheet("S", "sheet1.xml", xml, STRINGS)
    assert cells(part)[(1, 1)] in (1.0, "a", "line\ntwo", "rich")


def test_a_prefixed_namespace_is_read_with_its_prefix():
    xml = sheet(
        '<x:row r="2"><x:c r="B2"><x:f>1+1</x:f><x:v>2</x:v></x:c></x:row>',
        ns='xmlns:x="http://schemas.openxmlformats.org/spreadsheetml/2006/main"',
    )
    xml = xml.replace(b"<worksheet", b"<x:worksheet").replace(b"</worksheet", b"</x:worksheet")
    xml = xml.replace(b"<sheetData>", b"<x:sheetData>").replace(b"</sheetData>", b"</x:sheetData>")
    part = scan("S", "sheet1.xml", xml, STRINGS)
    assert part is not None and formulas(part) == [(2, 2, "1+1", 2.0)]
    # and an element of the right name in another namespace is not taken for a cell
    other = xml.replace(
        b'xmlns:x="http://schemas.openxmlformats.org/spreadsheetml/2006/main"', b'xmlns:x="urn:other"'
    )
    assert scan("S", "sheet1.xml", other, STRINGS) is None


def test_malformed_data_and_dtds_are_refused_as_before():
    broken = sheet('<row r="1"><c r="A1"><v>1</v></row>')  # <c> never closed
    assert scan("S", "sheet1.xml", broken, STRINGS) is None
    with pytest.raises(WorkbookFormatError, match="not well-formed XML"):
        read_sheet("S", "sheet1.xml", broken, STRINGS)
    dtd = sheet('<row r="1"><c r="A1"><v>1</v></c></row>', head='<!DOCTYPE worksheet [<!ENTITY e "x">]>')
    with pytest.raises(WorkbookFormatError, match="declares a DTD"):
        read_sheet("S", "sheet1.xml", dtd, STRINGS)
    with pytest.raises(WorkbookFormatError, match="is not a number"):
        read_sheet("S", "sheet1.xml", sheet('<row r="1"><c r="A1"><v>1x</v></c></row>'), STRINGS)


def _package(path, sheet_xml: bytes) -> None:
    rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(
            "[Content_Types].xml",
            '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>',
        )
        z.writestr(
            "_rels/.rels",
            '<Relationships xmlns="http://schemas.openxmlformats.org/'
            f'package/2006/relationships"><Relationship Id="r1" Type="{rel}/'
            'officeDocument" Target="xl/workbook.xml"/></Relationships>',
        )
        z.writestr(
            "xl/workbook.xml",
            f'<workbook {NS} xmlns:r="{rel}"><sheets><sheet name="S" '
            'sheetId="1" r:id="rId1"/></sheets></workbook>',
        )
        z.writestr(
            "xl/_rels/workbook.xml.rels",
            '<Relationships xmlns="http://schemas.'
            f'openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" '
            f'Type="{rel}/worksheet" Target="worksheets/sheet1.xml"/></Relationships>',
        )
        z.writestr("xl/worksheets/sheet1.xml", sheet_xml)


def test_values_are_patched_in_and_nothing_else_changes(tmp_path):
    rows = (
        '<row r="1"><c r="A1"><v>3</v></c><c r="B1" s="4" t="str"><f>A1*2</f><v>old</v>'
        '</c><c r="C1"><f>A1&amp;"x"</f><v/></c><c r="D1"><f>A1/3</f></c>'
        '<c r="E1" t="n"><f>A1&gt;2</f><v>0</v></c></row>'
    )
    src, dst = tmp_path / "in.xlsx", tmp_path / "out.xlsx"
    _package(src, sheet(rows))
    recalc_file(src, dst, functions={}, fallback=libreoffice_values)
    out = zipfile.ZipFile(dst).read("xl/worksheets/sheet1.xml")
    assert out == sheet(
        '<row r="1"><c r="A1"><v>3</v></c><c r="B1" s="4"><f>A1*2</f><v>6</v></c>'
        '<c r="C1" t="str"><f>A1&amp;"x"</f><v>3x</v></c><c r="D1"><f>A1/3</f><v>1</v></c>'
        '<c r="E1" t="b"><f>A1&gt;2</f><v>1</v></c></row>'
    )
