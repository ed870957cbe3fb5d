"""Read a worksheet part at C speed: compiled regular expressions over the bytes, not expat.

:func:`scan` gives the same :class:`~.sheetxml.SheetPart` as the expat reader for parts written
in the plain grammar every spreadsheet program uses inside ``<sheetData>``: rows of cells, each
with an optional ``<f>``, ``<v>`` and a plain inline string, character data with the five
predefined entities only, UTF-8. One ``findall`` cuts ``<sheetData>`` into tokens (a row's
start or end, a whole cell), each a match of that grammar, and the part is read only when the
tokens tile it and nest as rows of cells; the values are then taken column by column (every
token's group ``i`` at once) with numpy and C-level maps, not cell by cell. The rest of the part
(everything before and after ``<sheetData>``, where a DTD would be) goes through
:mod:`.xmlsafe`'s expat with DTDs refused, as before. Anything else (comments, CDATA, character
references, rich or phonetic inline text, namespace declarations inside the data, other
encodings, cell metadata or multi-cell array formulas, any bad reference) makes :func:`scan`
return None, and the part goes through expat as before, which also words every error.
"""

from __future__ import annotations

import gc
import operator
import re

import numpy as np

from . import xmlsafe
from .errors import WorkbookFormatError
from .refs import MAX_COL, MAX_ROW, col_index

_WS = rb"[ \t\r\n]"
_ATTR = rb"""[ \t\r\n]+(?!xmlns)[A-Za-z_][\w.\-]*(?::[A-Za-z_][\w.\-]*)?[ \t\r\n]*=[ \t\r\n]*""" \
    rb"""(?:"[^"<&>]*"|'[^'<&>]*')"""
_CHARS = rb"[^<&\x00-\x08\x0b\x0c\x0e-\x1f]"
_TEXT = _CHARS + rb"*+(?:&(?:amp|lt|gt|quot|apos);" + _CHARS + rb"*+)*+"


def _grammar(p: bytes) -> re.Pattern:
    """One token of the content of <sheetData> for element prefix ``p``: a row's start or end,
    or a whole cell, leading whitespace included, so the tokens of a good part tile it. The
    groups tile each cell, so the byte offsets of its parts follow from their lengths."""
    ws, attrs = _WS + b"*+", b"(?:" + _ATTR + b")*+"

    def end(name: bytes) -> bytes:
        return b"</" + p + name + ws + b">"

    def element(tag: bytes, text: bytes, attributes: bytes = b"") -> bytes:
        return (b"<" + p + tag + attributes + ws + b"(?:/>|>(?P<" + text + b">" + _TEXT + b")"
                + end(tag) + b")")

    f = b"(?P<FW>(?P<FE>" + element(b"f", b"FT", b"(?P<FA>" + attrs + b")") + b")" + ws + b")"
    v = b"(?P<VE>" + element(b"v", b"VT") + b")" + ws
    inline = b"<" + p + b"is" + ws + b"(?:/>|>" + ws + b"(?:" + element(b"t", b"IT", attrs) \
        + ws + b")?" + end(b"is") + b")" + ws
    plain = (b' r="(?P<CL>[A-Z]{1,3})(?P<RN>[0-9]{1,7})"(?: s="[0-9]{1,9}")?'
             b'(?: t="(?P<CT>[A-Za-z]{1,9})")?(?=' + ws + b"/?>)")
    cell = (b"(?P<CH><" + p + b"c(?:" + plain + b"|(?P<A>" + attrs + b"))" + ws + b"(?:/>|>"
            + ws + b"))(?:(?<=/>)|(?:" + f + b")?(?:" + v + b")?(?:" + inline + b")?" + end(b"c")
            + b")")
    row = b"<" + p + b"row(?P<RA>" + attrs + b")" + ws + b"(?P<RE>/?>)"
    return re.compile(b"(?P<W>(?P<LEAD>" + ws + b")(?:" + row + b"|(?P<XR>" + end(b"row")
                      + b")|" + cell + b"))")


_GRAMMARS: dict[bytes, tuple[re.Pattern, dict[str, int]]] = {}
_SHEETDATA = re.compile(rb"<((?:[A-Za-z_][\w.\-]*:)?)sheetData(?:" + _ATTR + rb")*" + _WS
                        + rb"*(/?)>")
_ATTRS = re.compile(rb"""([\w.:\-]+)[ \t\r\n]*=[ \t\r\n]*(?:"([^"]*)"|'([^']*)')""")
_NS = ("http://schemas.openxmlformats.org/spreadsheetml/2006/main sheetData",
       "http://purl.oclc.org/ooxml/spreadsheetml/main sheetData")


class _Bail(Exception):
    """Raised inside the scan: the part needs the expat reader."""


def scan(name: str, path: str, data: bytes, strings: list[str]):
    """The sheet part read by regular expressions, or None when expat must read it."""
    from .sheetxml import SheetPart

    if b"<!--" in data or b"<![CDATA[" in data or not _utf8(data):
        return None
    m = _SHEETDATA.search(data)
    if m is None:
        return None
    prefix, lo = m.group(1), m.end()
    hi = lo if m.group(2) else data.find(b"</" + prefix + b"sheetData", lo)
    if hi < 0:
        return None
    if prefix not in _GRAMMARS:
        pattern = _grammar(prefix)
        _GRAMMARS[prefix] = pattern, {k: i - 1 for k, i in pattern.groupindex.items()}
    if not _outside_ok(data, lo, hi, path):
        return None
    pattern, gi = _GRAMMARS[prefix]
    part = SheetPart(name, path, data, exact_ends=True)
    collecting = gc.isenabled()
    gc.disable()  # millions of short-lived tuples, no cycles: collections would only scan them
    try:
        tokens = pattern.findall(data, lo, hi)
        if tokens:
            _read(part, list(zip(*tokens, strict=True)), gi, lo, hi, strings)
    except (_Bail, ValueError, IndexError, UnicodeDecodeError, WorkbookFormatError):
        return None  # the expat reader words the error (or reads what the grammar leaves out)
    finally:
        if collecting:
            gc.enable()
    return part


def _outside_ok(data: bytes, lo: int, hi: int, path: str) -> bool:
    """Parse everything but the content of <sheetData> with expat (DTDs refused; raises as the
    expat reader would); True when <sheetData> is the spreadsheet namespace's."""
    found = []
    p = xmlsafe.make_parser()
    p.StartElementHandler = lambda tag, _attrs: tag.endswith(" sheetData") and found.append(tag)
    xmlsafe.run(p, data[:lo] + data[hi:], path)
    return len(found) == 1 and found[0] in _NS


def _lengths(column) -> np.ndarray:
    return np.fromiter(map(len, column), np.int64, len(column))


def _read(part, g: list[tuple], gi: dict[str, int], lo: int, hi: int,
          strings: list[str]) -> None:
    """Fill ``part`` from the tokens' groups, column by column (``g[i]``: group i of every
    token)."""
    lens = _lengths(g[gi["W"]])
    if data_end := part.data[lo + int(lens.sum()):hi].strip(b" \t\r\n"):
        raise _Bail(data_end[:20])  # the tokens do not tile <sheetData>
    starts = lo + np.cumsum(lens) - lens
    row_end = _lengths(g[gi["RE"]])
    is_row, is_end = row_end > 0, _lengths(g[gi["XR"]]) > 0
    is_cell = ~(is_row | is_end)
    empty_row = row_end == 2
    depth = np.cumsum(is_row.astype(np.int64) - empty_row - is_end)
    if len(depth) and (depth.min() < 0 or depth.max() > 1 or depth[-1] != 0
                       or (depth[is_cell] != 1).any() or (depth[empty_row] != 0).any()):
        raise _Bail  # cells outside rows, rows in rows, a row not closed
    _rows(part, g, gi, np.flatnonzero(is_row))
    cells = np.flatnonzero(is_cell)
    _cells(part, g, gi, cells, starts[cells] + _lengths(g[gi["LEAD"]])[cells], strings)


def _rows(part, g, gi, index: np.ndarray) -> None:
    """Check the rows' numbers; note the hidden ones."""
    row = 0
    attrs = g[gi["RA"]]
    for i in index.tolist():
        raw = attrs[i]
        ra = _attrs(raw) if raw else {}
        r = ra.get("r")
        row = _number(r.encode(), MAX_ROW) if r else row + 1
        if row > MAX_ROW:
            raise _Bail
        if ra.get("hidden") in ("1", "true"):
            part.hidden_rows.append(row)


def _cells(part, g, gi, index: np.ndarray, c_start: np.ndarray, strings: list[str]) -> None:
    from .sheetxml import decode

    n = len(index)
    if not n:
        return
    take = _taker(index)

    def column(key: str) -> tuple:
        return take(g[gi[key]])

    letters = column("CL")
    if not all(letters):
        raise _Bail  # a cell without the plain r="A1" s="n" t="x" attributes
    cols = {k: _column(k) for k in set(letters)}
    col = np.array(list(map(cols.__getitem__, letters)), dtype=np.int64)
    row = np.array(list(map(int, column("RN"))), dtype=np.int64)
    if not 0 < row.min() <= row.max() <= MAX_ROW:
        raise _Bail
    types, vt = column("CT"), column("VT")
    has_f = _lengths(column("FW")) > 0
    plain = (_lengths(types) == 0) | np.fromiter(map(b"n".__eq__, types), bool, n)
    filled = plain & (_lengths(vt) > 0)
    values = np.full(n, None, dtype=object)
    num = np.flatnonzero(filled)
    if len(num):  # numbers: float() of the text, as the expat reader (ValueError: its message)
        values[num] = list(map(float, _taker(num)(vt)))
    other = np.flatnonzero(~plain).tolist()
    if other:
        v_el, inline_t = column("VE"), column("IT")
        for k in other:
            inline = [_text(inline_t[k])]  # (read only for t="inlineStr")
            values[k] = decode(types[k].decode(), _text(vt[k]) if v_el[k] else None, inline,
                               strings, bool(has_f[k]))
    part.max_row, part.max_col = int(row.max()), int(col.max())
    fk = np.flatnonzero(has_f)
    if len(fk):
        _formulas(part, g, gi, index, c_start, fk, row, col, values)
    is_float = filled.copy()
    if other:
        is_float[other] = [type(values[k]) is float for k in other]
    part.num_rows, part.num_cols = row[is_float].tolist(), col[is_float].tolist()
    part.num_vals = values[is_float].tolist()
    objs = np.flatnonzero(~is_float)
    objs = objs[[values[k] is not None for k in objs.tolist()]] if len(objs) else objs
    part.obj_rows, part.obj_cols = row[objs].tolist(), col[objs].tolist()
    part.obj_vals = values[objs].tolist()


def _taker(index: np.ndarray):
    """A function picking the items at ``index`` of a sequence, as a tuple (in C)."""
    if len(index) == 1:
        i = int(index[0])
        return lambda seq: (seq[i],)
    return operator.itemgetter(*index.tolist())


def _formulas(part, g, gi, index, c_start, fk, row, col, values) -> None:
    from .sheetxml import FormulaCell, _add_formula

    at = index[fk]
    take = _taker(at)
    fa = take(g[gi["FA"]])
    lens = {k: _lengths(take(g[gi[k]])) for k in ("CH", "FW", "FE", "VE")}
    start = c_start[fk]
    f_start = start + lens["CH"]
    f_end = f_start + lens["FE"]  # (just past the element; writer.element_end keeps it)
    v_start = f_start + lens["FW"]
    v_end = v_start + lens["VE"]
    has_v = lens["VE"] > 0
    v_start, v_end = np.where(has_v, v_start, -1), np.where(has_v, v_end, -1)
    texts = _texts(take(g[gi["FT"]]))
    n = len(fk)
    out = list(map(FormulaCell, row[fk].tolist(), col[fk].tolist(), texts, ["normal"] * n,
                   [None] * n, [None] * n, values[fk].tolist(), start.tolist(), f_start.tolist(),
                   f_end.tolist(), v_start.tolist(), v_end.tolist()))
    for k in (k for k, a in enumerate(fa) if a):  # shared and array formulas
        attrs = _attrs(fa[k])
        ref = attrs.get("ref")
        if attrs.get("t") == "array" and ref and ":" in ref:
            raise _Bail  # multi-cell array formulas: the expat reader's business
        fc = out[k]
        _add_formula(part, fc.row, fc.col, fc.c_start, [attrs, fc.f_start, fc.f_end_event,
                                                        fc.text], fc.cached, fc.v_start,
                     fc.v_end_event)
        out[k] = part.formulas.pop()
    part.formulas = out


def _texts(raw: list[bytes]) -> list[str]:
    """Character data of many elements at once (see :func:`_text`)."""
    if not raw:
        return []
    return _text(b"\x00".join(raw)).split("\x00")


def _attrs(raw: bytes) -> dict[str, str]:
    """Attributes, their values normalised as XML says (line ends and tabs become spaces)."""
    out = {k.decode(): _text(d or s) for k, d, s in _ATTRS.findall(raw)}
    if b"\n" in raw or b"\r" in raw or b"\t" in raw:
        out = {k: v.replace("\n", " ").replace("\t", " ") for k, v in out.items()}
    return out


def _text(raw: bytes) -> str:
    """Character data: UTF-8 with the five predefined entities (the grammar allows no other),
    line ends normalised to ``\\n`` as XML says."""
    text = raw.decode("utf-8")
    if "&" in text:
        text = (text.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"')
                .replace("&apos;", "'").replace("&amp;", "&"))
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def _number(digits, top: int) -> int:
    if isinstance(digits, str):
        digits = digits.encode()
    if not (digits.isdigit() and 0 < int(digits) <= top):
        raise _Bail
    return int(digits)


def _column(letters: bytes) -> int:
    col = col_index(letters.decode()) if letters.isalpha() and len(letters) <= 3 else 0
    if not 0 < col <= MAX_COL:
        raise _Bail
    return col


def _utf8(data: bytes) -> bool:
    """No byte-order mark but UTF-8's and no declared encoding but UTF-8."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    if not data.startswith(b"<?xml"):
        return data.startswith(b"<")
    decl = data[:data.find(b"?>")].lower()
    m = re.search(rb"encoding\s*=\s*[\"']([^\"']+)", decl)
    return m is None or m.group(1) in (b"utf-8", b"utf8")
