"""Fuzzing the headless recalculation with mutated workbooks (Hypothesis).

A small workbook (numbers, shared strings, booleans, errors, ordinary, shared and cross-sheet
formulas, defined names, a TCO_ function) is mutated four ways: random edits of the bytes of one
XML part, random values of one XML attribute, random formulas from a grammar of Excel (every
built-in, the TCO_ functions, functions that reach outside, unknown names, references of every
form), and damage to the zip itself. Each case runs ``gputco recalc --check`` and
``recalc_file(..., dst)`` under a hard time limit: nothing may raise past gputco's documented
errors (``GputcoError`` subclasses; exit 0, 1 or 2 from the CLI), and nothing may hang.
"""

from __future__ import annotations

import contextlib
import io
import random
import re
import warnings
import zipfile
from pathlib import Path

from fuzzing import CASES, fuzz_settings, hard_timeout
from hostile import cell, package, shared_strings, sheet
from hypothesis import given
from hypothesis import strategies as st
from lo import requires_soffice

from gputco import udfs
from gputco.addin.cli import main
from gputco.udfs.errors import GputcoError as _GputcoError
from gputco.workbook.recalc import BUILTINS, RecalcError, recalc_file
from gputco.workbook.recalc.functions import NEVER
from gputco.workbook.soffice.fallback import libreoffice_values

#: the errors raised on purpose: gputco's, and the engine's (a base of its own)
GputcoError = (_GputcoError, RecalcError)


TEXTS = ("alpha", "H100_HGX", "hyperscaler", "=1+1")
BASE_CELLS = [
    cell("A1", 2),
    cell("A2", 3.5),
    cell("A3", 0, t="s"),
    cell("A4", 1, t="b"),
    cell("A5", "#N/A", t="e"),
    cell("A6", 1, t="s"),
    cell("A7", -1e-3),
    cell("A8", 3, t="s"),
    cell("B1", 7, f="A1*A2"),
    cell("B2", 6, f="SUM(A1:A2)+rate"),
    cell("B3", 1, f="B1/B2"),
    cell("B4", "alpha!", f='A3&"!"', t="str"),
    cell("B5", 1, f='IF(A4,MAX(A1:A8),"no")'),
    cell("B6", 1.42, f='TCO_GPU_HOUR(A6,"hyperscaler")'),
    cell("B7", 0, f="IFERROR(A5,0)"),
    cell("B8", 0, f='COUNTIF(A1:A8,">1")'),
]
SHARED = (
    '<c r="C1"><f t="shared" ref="C1:C4" si="0">A1*2</f><v>4</v></c>',
    '<c r="C2"><f t="shared" si="0"/><v>7</v></c>',
    '<c r="C3"><f t="shared" si="0"/><v>0</v></c>',
    '<c r="C4"><f t="shared" si="0"/><v>2</v></c>',
)


def _base_parts() -> dict[str, bytes]:
    rows: dict[int, list[str]] = {}
    for c in BASE_CELLS:
        r = int(re.search(r'r="[A-Z]+(\d+)"', c).group(1))
        rows.setdefault(r, []).append(c)
    for i, c in enumerate(SHARED, start=1):
        rows[i].append(c)
    folder = Path(__import__("tempfile").mkdtemp())
    path = package(
        folder / "base.xlsx",
        sheet(rows=rows),
        strings=shared_strings(*TEXTS),
        names={"rate": "0.1", "nums": "S!$A$1:$A$8", "loop": "loop+1"},
    )
    with zipfile.ZipFile(path) as z:
        return {name: z.read(name) for name in z.namelist()}


BASE = _base_parts()
SHEET = "xl/worksheets/sheet1.xml"


def _zip(parts: dict[str, bytes], path: Path, compression=zipfile.ZIP_DEFLATED) -> Path:
    with zipfile.ZipFile(path, "w", compression) as z:
        for name, data in parts.items():
            z.writestr(name, data)
    return path


def _run(path: Path, out: Path) -> None:
    """Check and write ``path``: only gputco's own errors may come out, nothing may hang, and no
    warning may leak (the CLI would print it under its one line). The engine alone: a mutated
    formula naming a function it lacks would otherwise start LibreOffice (engine="auto")."""
    stdout, stderr = io.StringIO(), io.StringIO()
    with hard_timeout(30), warnings.catch_warnings():
        warnings.simplefilter("error")
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            code = main(["recalc", str(path), "--check", "--timeout", "10", "--engine", "gputco"])
        assert code in (0, 1, 2), stderr.getvalue()
        assert "Traceback" not in stderr.getvalue()
        try:  # everything it can evaluate, keeping stored values for unsupported functions
            recalc_file(path, out, timeout_s=10, unsupported="stored", engine="gputco")
        except GputcoError:
            return
        CASES["workbook cases evaluated and written"] += 1
        # what was written reads back, and its stored values are what its formulas give: a second
        # recalculation of our own output finds no difference (a fixed point, whatever the values)
        report = recalc_file(out, check=True, timeout_s=10, unsupported="stored", engine="gputco")
        assert not report.mismatches, report.mismatches[:5]


# --- mutations ----------------------------------------------------------------------------------

SPECIAL = [
    b"<",
    b">",
    b"&",
    b'"',
    b"'",
    b"/",
    b"=",
    b"\x00",
    b"\xff\xfe",
    b"]]>",
    b"<!--",
    b"<!DOCTYPE x>",
    b'<!ENTITY e "x">',
    b"&e;",
    b"</c>",
    b"<c>",
    b'<c r="A1">',
    b"<f>",
    b"</f>",
    b"<v>",
    b"</v>",
    b"</row>",
    b"<row>",
    b"</sheetData>",
    b'xmlns="u"',
    b"9" * 12,
    b"-",
    b"e",
    b"\xe9",
    b"\r\n",
]
EDITS = st.lists(
    st.tuples(
        st.floats(0, 1),
        st.sampled_from(["insert", "replace", "delete"]),
        st.one_of(st.sampled_from(SPECIAL), st.binary(max_size=8)),
    ),
    min_size=1,
    max_size=4,
)


def _edit(data: bytes, edits) -> bytes:
    for where, op, payload in edits:
        i = int(where * len(data))
        if op == "insert":
            data = data[:i] + payload + data[i:]
        elif op == "replace":
            data = data[:i] + payload + data[i + len(payload) :]
        else:
            data = data[:i] + data[i + 1 + len(payload) :]
    return data


@given(st.sampled_from(sorted(BASE)), EDITS)
def _bytes_case(tmp: Path, member: str, edits) -> None:
    CASES["workbook (bytes of a part)"] += 1
    parts = dict(BASE)
    parts[member] = _edit(parts[member], edits)
    _run(_zip(parts, tmp / "m.xlsx"), tmp / "out.xlsx")


ATTRIBUTE_VALUES = [
    "",
    "0",
    "-1",
    "1",
    "A0",
    "A1",
    "XFD1048576",
    "XFE1",
    "A1048577",
    "$A$1",
    "A1:XFD1048576",
    "s",
    "str",
    "e",
    "b",
    "n",
    "d",
    "inlineStr",
    "shared",
    "array",
    "dataTable",
    "normal",
    "99999999999999999999",
    "nan",
    "inf",
    "1e309",
    "é",
    "0x10",
    "1.5",
    "C1:C4",
    "A1:A1",
    "-5",
    "rId1",
    "rId9",
    "../../x.xml",
    "/xl/worksheets/sheet1.xml",
    "External",
    "2000-01-01T00:00:00",
]
_ATTR = re.compile(rb'(\w+)="([^"]*)"')


@given(
    st.sampled_from([SHEET, "xl/workbook.xml", "xl/_rels/workbook.xml.rels", "xl/sharedStrings.xml"]),
    st.floats(0, 1),
    st.one_of(st.sampled_from(ATTRIBUTE_VALUES), st.text(max_size=6)),
)
def _attribute_case(tmp: Path, member: str, which: float, value: str) -> None:
    CASES["workbook (XML attribute)"] += 1
    data = BASE[member]
    found = list(_ATTR.finditer(data))
    m = found[int(which * (len(found) - 1))]
    escaped = value.replace("&", "&amp;").replace("<", "&lt;").replace('"', "&quot;")
    parts = dict(BASE)
    parts[member] = data[: m.start(2)] + escaped.encode() + data[m.end(2) :]
    _run(_zip(parts, tmp / "a.xlsx"), tmp / "out.xlsx")


FUNCTIONS = sorted(BUILTINS) + sorted(udfs.UDFS) + sorted(NEVER) + ["NOPE", "_xlfn.XLOOKUP", "_xlfn.STDEV.S"]
LEAVES = st.one_of(
    st.sampled_from(
        [
            "0",
            "1",
            "-1",
            "0.5",
            "1E+308",
            "1E-320",
            "2",
            "100",
            "8760",
            "1048576",
            "TRUE",
            "FALSE",
            '""',
            '"abc"',
            '"H100_HGX"',
            '"hyperscaler"',
            '"bf16"',
            '"gpt3_175b"',
            '"=1+1"',
            '"1,5"',
            '"2024-01-01"',
            "#N/A",
            "#DIV/0!",
            "#REF!",
            "#VALUE!",
            "#NAME?",
            "#NUM!",
            "#NULL!",
            "A1",
            "A2",
            "A3",
            "A5",
            "B1",
            "B2",
            "C1",
            "$A$1",
            "A1:A8",
            "A1:C8",
            "$A$1:A3",
            "A:A",
            "1:1",
            "A:XFD",
            "S!A1",
            "'S'!A1:B2",
            "Nowhere!A1",
            "[1]S!A1",
            "rate",
            "nums",
            "loop",
            "nope",
            "{1,2;3,4}",
            '{1,"a",TRUE}',
            "XFD1048576",
            "B1:B8 A1:C3",
        ]
    ),
    st.integers(-(10**6), 10**6).map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(lambda x: repr(x).upper()),
)


def _call(args):
    return st.builds(lambda name, xs: f"{name}({','.join(xs)})", st.sampled_from(FUNCTIONS), args)


FORMULAS = st.recursive(
    LEAVES,
    lambda inner: st.one_of(
        _call(st.lists(inner, max_size=4)),
        st.builds(
            lambda a, op, b: f"{a}{op}{b}",
            inner,
            st.sampled_from(["+", "-", "*", "/", "^", "&", "=", "<>", "<", ">=", ":", " ", ","]),
            inner,
        ),
        st.builds(lambda a: f"-{a}", inner),
        st.builds(lambda a: f"{a}%", inner),
        st.builds(lambda a: f"({a})", inner),
    ),
    max_leaves=12,
)


@given(st.lists(FORMULAS, min_size=1, max_size=4), st.booleans())
def _formula_case(tmp: Path, formulas: list[str], column: bool) -> None:
    """New formulas in D1.., or down one column so that they form a group."""
    CASES["workbook (random formulas)"] += 1
    cells = [
        cell(f"D{i}", f=f if not column else formulas[0].replace("A1", f"A{i}"))
        for i, f in enumerate(formulas, start=1)
    ]
    xml = BASE[SHEET].decode()
    for i, c in enumerate(cells, start=1):
        xml = (
            xml.replace(f'<row r="{i}">', f'<row r="{i}">{c}', 1)
            if f'<row r="{i}">' in xml
            else xml.replace("</sheetData>", f'<row r="{i}">{c}</row></sheetData>')
        )
    parts = dict(BASE)
    parts[SHEET] = xml.encode()
    _run(_zip(parts, tmp / "f.xlsx"), tmp / "out.xlsx")


@given(
    st.sampled_from(["truncate", "flip", "drop", "duplicate", "junk", "stored", "bzip2", "lzma"]),
    st.floats(0, 1),
    st.integers(0, 255),
)
def _zip_case(tmp: Path, how: str, where: float, byte: int) -> None:
    CASES["workbook (zip damage)"] += 1
    parts = dict(BASE)
    names = sorted(parts)
    name = names[int(where * (len(names) - 1))]
    path = tmp / "z.xlsx"
    compression = {"stored": zipfile.ZIP_STORED, "bzip2": zipfile.ZIP_BZIP2, "lzma": zipfile.ZIP_LZMA}.get(
        how, zipfile.ZIP_DEFLATED
    )
    if how == "drop":
        del parts[name]
    elif how == "junk":
        parts[f"xl/{byte}.bin"] = random.Random(byte).randbytes(64)
    _zip(parts, path, compression)
    if how == "duplicate":
        with zipfile.ZipFile(path, "a") as z, warnings.catch_warnings():
            warnings.simplefilter("ignore")  # zipfile warns about the duplicate it is asked for
            z.writestr(name, b"<x/>")
    data = bytearray(path.read_bytes())
    if how == "truncate":
        data = data[: int(where * len(data))]
    elif how == "flip":
        data[int(where * (len(data) - 1))] ^= byte or 1
    path.write_bytes(bytes(data))
    _run(path, tmp / "out.xlsx")


# shares of GPUTCO_FUZZ_EXAMPLES (200 by default: 200 workbooks in all, about 10 s)


def test_mutated_bytes_of_a_part(tmp_path):
    fuzz_settings(1 / 4)(_bytes_case)(tmp_path)


def test_mutated_attributes(tmp_path):
    fuzz_settings(1 / 4)(_attribute_case)(tmp_path)


def test_random_formulas(tmp_path):
    fuzz_settings(3 / 8)(_formula_case)(tmp_path)


def test_damaged_zip(tmp_path):
    fuzz_settings(1 / 8)(_zip_case)(tmp_path)


@requires_soffice
def test_the_base_workbook_recalculates(tmp_path):
    """The unmutated workbook is valid: the fuzz cases start from a real workbook."""
    path = _zip(dict(BASE), tmp_path / "base.xlsx")
    report = recalc_file(path, tmp_path / "out.xlsx", fallback=libreoffice_values)
    assert report.cells == 12 and not report.problems
