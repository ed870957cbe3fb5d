"""The XML of one cell's value, and the cell-by-cell patcher.

:func:`value_xml` is how the engine writes a value into ``<c>`` (the ``t`` attribute and the text of
``<v>``); the scenario rows (:mod:`gputco.workbook.xlsx.sheetrows`) use the same rules.
:func:`patch_sheet` patches a worksheet part cell by cell at the offsets the reader recorded: only
each formula cell's ``t`` and ``<v>`` change, every other byte stays. It takes what the bulk patcher
(:func:`.patch.patch_values`) leaves, such as the other cells of a spilled array; both are reached
through :func:`.patch.patch_part`.
"""

from __future__ import annotations

import math
import re

from gputco.workbook.recalc.base.errors import WorkbookFormatError
from gputco.workbook.recalc.base.values import XlError
from gputco.workbook.recalc.read.cells import SheetPart
from gputco.workbook.recalc.run.engine import Evaluation

_TAG = re.compile(rb"""<[^>"']*(?:(?:"[^"]*"|'[^']*')[^>"']*)*>""")


_T_ATTR = re.compile(rb"""\s+t\s*=\s*(?:"[^"]*"|'[^']*')""")


_QNAME = re.compile(rb"<([^\s/>]+)")


_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
#: the "_" that starts a literal "_xHHHH_" (ECMA-376 ST_Xstring: written as _x005F_xHHHH_)
_LITERAL_ESCAPE = re.compile("_(?=x[0-9A-Fa-f]{4}_)")


def value_xml(v: object) -> tuple[bytes | None, bytes]:
    """(t attribute value or None for numbers, text of <v>) for a computed value.

    >>> value_xml(2.0), value_xml(0.1), value_xml("a<b"), value_xml(True)
    ((None, b'2'), (None, b'0.1'), (b'str', b'a&lt;b'), (b'b', b'1'))
    >>> value_xml("bell\x07"), value_xml("_x0001_")
    ((b'str', b'bell_x0007_'), (b'str', b'_x005F_x0001_'))
    """
    if isinstance(v, bool):
        return b"b", b"1" if v else b"0"
    if isinstance(v, float):
        if not math.isfinite(v):  # inf is no number in the file format: #NUM!, as Excel shows
            return b"e", b"#NUM!"
        if v.is_integer() and abs(v) < 1e16:
            return None, str(int(v)).encode()
        return None, repr(v).encode()
    if isinstance(v, XlError):
        return b"e", v.code.encode()
    if v is None:
        return None, b"0"
    text = str(v).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    if "_x" in text:  # a text that reads as the escape itself: its "_" escaped (_x005F_)
        text = _LITERAL_ESCAPE.sub("_x005F_", text)
    if _XML_INVALID.search(text):  # Excel's escape for characters XML cannot hold
        text = _XML_INVALID.sub(lambda m: f"_x{ord(m.group()):04X}_", text)
    return b"str", text.encode("utf-8", "replace")


def element_end(data: bytes, start: int, end_event: int) -> int:
    """Offset just past an element, from its start and expat's end-event offset.

    For ``<v>..</v>`` expat reports the start of ``</v>``; for an empty ``<v/>`` it reports the
    offset just past it.
    """
    qname = _QNAME.match(data, start).group(1)
    close = b"</" + qname
    if data.startswith(close, end_event) and data[end_event + len(close) : end_event + len(close) + 1] in (
        b">",
        b" ",
        b"\t",
        b"\r",
        b"\n",
    ):
        return data.index(b">", end_event) + 1
    return end_event


def patch_sheet(part: SheetPart, evaluation: Evaluation) -> bytes:
    """The sheet part's bytes with every evaluated formula cell's value and type replaced."""
    data = part.data
    if part.formulas and not _utf8(data):
        raise WorkbookFormatError(f"{part.path} is not UTF-8 encoded; cannot write values")
    pieces: list[bytes] = []
    add = pieces.append
    pos = 0
    sheet_key = part.name.upper()
    skipped = evaluation.skipped
    get = evaluation.book.sheet(part.name).get
    prefix = None
    for fc in part.formulas:
        if skipped and (sheet_key, fc.row, fc.col) in skipped:
            continue
        value = get(fc.row, fc.col)
        t, text = value_xml(value)
        start = fc.c_start
        tag = _start_tag(data, start)
        if prefix is None or data[start + 1 : start + 2 + len(prefix)] != prefix + b"c":
            prefix = _QNAME.match(data, start).group(1)[:-1]  # b"" or b"x:"
        new_tag = _T_ATTR.sub(b"", tag) if b"t" in tag[2:] else tag
        if fc.kind == "spill":  # a cell of a multi-cell array formula: it has no <f>
            pos = _patch_spill(data, fc, tag, new_tag, None if value is None else (t, text), prefix, pos, add)
            continue
        if t is not None:
            new_tag = new_tag[:-1] + b' t="' + t + b'">'
        add(data[pos:start])
        add(new_tag)
        pos = start + len(tag)
        if fc.v_start >= 0:
            add(data[pos : fc.v_start])
            pos = element_end(data, fc.v_start, fc.v_end_event)
        else:
            f_end = element_end(data, fc.f_start, fc.f_end_event)
            add(data[pos:f_end])
            pos = f_end
        add(b"<" + prefix + b"v>" + text + b"</" + prefix + b"v>")
    add(data[pos:])
    return b"".join(pieces)


def _patch_spill(data: bytes, fc, tag: bytes, new_tag: bytes, value, prefix: bytes, pos: int, add) -> int:
    """Patch a cell inside an array formula's block: its value, or no value when the spill
    left it empty (``value`` None); the cell may be written ``<c .../>``. Returns the new pos."""
    start = fc.c_start
    empty = new_tag.endswith(b"/>")
    if value is not None and value[0] is not None:
        new_tag = (
            new_tag[: -2 if empty else -1].rstrip() + b' t="' + value[0] + b'"' + (b"/>" if empty else b">")
        )
    add(data[pos:start])
    if value is None:
        add(new_tag)
        pos = start + len(tag)
        if fc.v_start >= 0:
            add(data[pos : fc.v_start])
            pos = element_end(data, fc.v_start, fc.v_end_event)
        return pos
    v = b"<" + prefix + b"v>" + value[1] + b"</" + prefix + b"v>"
    if empty:
        add(new_tag[:-2].rstrip() + b">" + v + b"</" + prefix + b"c>")
        return start + len(tag)
    add(new_tag)
    pos = start + len(tag)
    if fc.v_start >= 0:
        add(data[pos : fc.v_start])
        add(v)
        return element_end(data, fc.v_start, fc.v_end_event)
    add(v)  # a <c> with children but no <v> (an inline string, say): the value goes first
    return pos


def _start_tag(data: bytes, start: int) -> bytes:
    """The start tag at ``start``, allowing for ``>`` inside quoted attribute values."""
    end = data.index(b">", start) + 1
    tag = data[start:end]
    if tag.count(b'"') % 2 == 0 and b"'" not in tag:
        return tag
    m = _TAG.match(data, start)
    if m is None:
        raise WorkbookFormatError(f"cannot find the cell tag at byte {start}")
    return m.group()


def _utf8(data: bytes) -> bool:
    head = data[:200].lower()
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return False
    m = re.search(rb"encoding\s*=\s*[\"']([^\"']+)", head.split(b"?>")[0])
    return m is None or m.group(1) in (b"utf-8", b"utf8")
