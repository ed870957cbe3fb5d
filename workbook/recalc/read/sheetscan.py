"""Read a worksheet part at C speed: compiled regular expressions over the bytes, not expat.

:func:`scan` gives the same :class:`~.cells.SheetPart` as the expat reader for parts written
in the plain grammar every spreadsheet program uses inside ``<sheetData>``: rows of cells, each
with an optional ``<f>``, ``<v>`` and a plain inline string, character data with the five
predefined entities only, UTF-8. One ``findall`` cuts ``<sheetData>`` into tokens (a row's
start or end, a whole cell), each a match of that grammar, and the part is read only when the
tokens tile it and nest as rows of cells; the values are then taken column by column (every
token's group ``i`` at once) with numpy and C-level maps, not cell by cell, each element's byte
offsets from where the ``<`` and ``>`` are, and the formula cells kept as columns
(:mod:`.formulacols`). A part over :data:`SPLIT_BYTES` is read in two halves at once, the second
by a forked child (:mod:`.forked`) where that is safe. The rest of the part
(everything before and after ``<sheetData>``, where a DTD would be) goes through
:mod:`.xmlsafe`'s expat with DTDs refused, as before. Anything else (comments, CDATA, character
references, rich or phonetic inline text, namespace declarations inside the data, other
encodings, cell metadata or multi-cell array formulas, any bad reference) makes :func:`scan`
return None, and the part goes through expat as before, which also words every error.
"""

from __future__ import annotations

import gc
import itertools
import operator
import re

import numpy as np

from gputco.workbook.recalc.base.errors import WorkbookFormatError
from gputco.workbook.recalc.base.refs import MAX_COL, MAX_ROW, col_index
from gputco.workbook.recalc.read import forked, xmlsafe
from gputco.workbook.recalc.read.cells import SheetPart, _add_formula, decode, numbers, xstring
from gputco.workbook.recalc.read.formulacols import FormulaColumns, joined, shape_starts

_WS = rb"[ \t\r\n]"
_ATTR = (
    rb"""[ \t\r\n]+(?!xmlns)[A-Za-z_][\w.\-]*(?::[A-Za-z_][\w.\-]*)?[ \t\r\n]*=[ \t\r\n]*"""
    rb"""(?:"[^"<&>]*"|'[^'<&>]*')"""
)
_CHARS = rb"[^<&\x00-\x08\x0b\x0c\x0e-\x1f]"
_TEXT = _CHARS + rb"*+(?:&(?:amp|lt|gt|quot|apos);" + _CHARS + rb"*+)*+"


def _grammar(p: bytes) -> re.Pattern:
    """One token of the content of <sheetData> for element prefix ``p``: a row's start or end,
    or a whole cell, leading whitespace included, so the tokens of a good part tile it. Only
    the groups the reader uses capture (the byte offsets come from :class:`_Tags`)."""
    ws, attrs = _WS + b"*+", b"(?:" + _ATTR + b")*+"

    def end(name: bytes) -> bytes:
        return b"</" + p + name + ws + b">"

    def element(tag: bytes, text: bytes, attributes: bytes = b"") -> bytes:
        return (
            b"<" + p + tag + attributes + ws + b"(?:/>|>(?P<" + text + b">" + _TEXT + b")" + end(tag) + b")"
        )

    f = b"(?P<FW>(?P<FE>" + element(b"f", b"FT", b"(?P<FA>" + attrs + b")") + b")" + ws + b")"
    v = b"(?P<VE>" + element(b"v", b"VT") + b")" + ws
    inline = (
        b"<"
        + p
        + b"is"
        + ws
        + b"(?:/>|>"
        + ws
        + b"(?:"
        + element(b"t", b"IT", attrs)
        + ws
        + b")?"
        + end(b"is")
        + b")"
        + ws
    )
    plain = (
        b' r="(?P<CL>[A-Z]{1,3})(?P<RN>[0-9]{1,7})"(?: s="[0-9]{1,9}")?'
        b'(?: t="(?P<CT>[A-Za-z]{1,9})")?(?=' + ws + b"/?>)"
    )
    cell = (
        b"(?P<CH><"
        + p
        + b"c(?:"
        + plain
        + b"|(?P<A>"
        + attrs
        + b"))"
        + ws
        + b"(?:/>|>"
        + ws
        + b"))(?:(?<=/>)|(?:"
        + f
        + b")?(?:"
        + v
        + b")?(?:"
        + inline
        + b")?"
        + end(b"c")
        + b")"
    )
    row = b"<" + p + b"row(?P<RA>" + attrs + b")" + ws + b"(?P<RE>/?>)"
    whole = b"(?P<W>(?P<LEAD>" + ws + b")(?:" + row + b"|(?P<XR>" + end(b"row") + b")|" + cell + b"))"
    # only these groups are read (each costs a bytes object per token); the rest just match
    for unused in (b"LEAD", b"CH", b"A", b"FW", b"FE", b"FT", b"VE", b"VT"):
        whole = whole.replace(b"(?P<" + unused + b">", b"(?:")
    return re.compile(whole)


_GRAMMARS: dict[bytes, tuple[re.Pattern, dict[str, int]]] = {}
_SHEETDATA = re.compile(rb"<((?:[A-Za-z_][\w.\-]*:)?)sheetData(?:" + _ATTR + rb")*" + _WS + rb"*(/?)>")
_ATTRS = re.compile(rb"""([\w.:\-]+)[ \t\r\n]*=[ \t\r\n]*(?:"([^"]*)"|'([^']*)')""")
_NS = (
    "http://schemas.openxmlformats.org/spreadsheetml/2006/main sheetData",
    "http://purl.oclc.org/ooxml/spreadsheetml/main sheetData",
)


class _Bail(Exception):
    """Raised inside the scan: the part needs the expat reader."""


def scan(name: str, path: str, data: bytes, strings: list[str]):
    """The sheet part read by regular expressions, or None when expat must read it."""

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
    split = _split_at(data, lo, hi, prefix) if forked.available() else None
    collecting = gc.isenabled()
    gc.disable()  # millions of short-lived tuples, no cycles: collections would only scan them
    try:
        if split is None:
            return _piece(name, path, data, strings, prefix, lo, hi)
        first, second = forked.both(
            _piece,
            (name, path, data, strings, prefix, lo, split),
            (name, path, data, strings, prefix, split, hi),
        )
        return None if first is None or second is None else _joined(first, second)
    finally:
        if collecting:
            gc.enable()


#: <sheetData> content from which a second process reads half (smaller: not worth a fork)
SPLIT_BYTES = 16 << 20


def _split_at(data: bytes, lo: int, hi: int, prefix: bytes) -> int | None:
    """Where the second half of <sheetData> starts: a row's start tag near the middle that
    names its row (so the half's row numbers do not depend on the first), or None."""
    if hi - lo < SPLIT_BYTES:
        return None
    m = re.compile(rb"<" + re.escape(prefix) + rb"row[ \t\r\n]+r=").search(data, (lo + hi) // 2, hi)
    return None if m is None else m.start()


def _piece(name: str, path: str, data: bytes, strings: list[str], prefix: bytes, lo: int, hi: int):
    """The part as read from the rows between byte offsets lo and hi (None: expat's job)."""
    pattern, gi = _GRAMMARS[prefix]
    part = SheetPart(name, path, data, exact_ends=True)
    try:
        tokens = pattern.findall(data, lo, hi)
        if tokens:
            _read(part, list(zip(*tokens, strict=True)), gi, lo, hi, strings, len(prefix))
    except (_Bail, ValueError, IndexError, UnicodeDecodeError, WorkbookFormatError):
        return None  # the expat reader words the error (or reads what the grammar leaves out)
    if forked.in_child():  # to the parent, which has the bytes: the rest in few large objects
        part.data = b""
        part.num_rows, part.num_cols = np.array(part.num_rows), np.array(part.num_cols)
        part.num_vals = np.array(part.num_vals, dtype=np.float64)
        if part.formulas:
            part.formulas.text = "\x00".join(part.formulas.text)  # (XML has no NUL)
    return part


def _joined(first, second):
    """One part from the two halves read apart (the second's rows follow the first's)."""
    first.max_row = max(first.max_row, second.max_row)
    first.max_col = max(first.max_col, second.max_col)
    for field in ("hidden_rows", "num_rows", "num_cols", "num_vals", "obj_rows", "obj_cols", "obj_vals"):
        more = getattr(second, field)
        getattr(first, field).extend(more.tolist() if isinstance(more, np.ndarray) else more)
    a, b = first.formulas, second.formulas
    if b:
        if isinstance(b.text, str):
            b.text = b.text.split("\x00")
        first.formulas = joined(a, b) if isinstance(a, FormulaColumns) and a else b
    return first


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


def _read(
    part, g: list[tuple], gi: dict[str, int], lo: int, hi: int, strings: list[str], prefix: int
) -> None:
    """Fill ``part`` from the tokens' groups, column by column (``g[i]``: group i of every
    token), and the elements' byte offsets from where the part's ``<`` and ``>`` are."""
    if data_end := part.data[lo + sum(map(len, g[gi["W"]])) : hi].strip(b" \t\r\n"):
        raise _Bail(data_end[:20])  # the tokens do not tile <sheetData>
    row_end = _lengths(g[gi["RE"]])
    is_row, is_end = row_end > 0, _lengths(g[gi["XR"]]) > 0
    is_cell = ~(is_row | is_end)
    empty_row = row_end == 2
    depth = np.cumsum(is_row.astype(np.int64) - empty_row - is_end)
    if len(depth) and (
        depth.min() < 0
        or depth.max() > 1
        or depth[-1] != 0
        or (depth[is_cell] != 1).any()
        or (depth[empty_row] != 0).any()
    ):
        raise _Bail  # cells outside rows, rows in rows, a row not closed
    _rows(part, g, gi, np.flatnonzero(is_row))
    cells = np.flatnonzero(is_cell)
    if len(cells):
        _cells(part, g, gi, cells, _Tags(part.data, lo, hi, prefix), strings)


class _Tags:
    """Where each element of <sheetData> starts and ends, from the positions of ``<`` and
    ``>`` (the grammar has checked the part: every ``<`` there starts a tag, and no tag holds
    a ``>`` before its end)."""

    def __init__(self, data: bytes, lo: int, hi: int, prefix: int) -> None:
        a = np.frombuffer(data, np.uint8)
        seg = a[lo:hi]
        marks = np.flatnonzero((seg == 60) | (seg == 62)) + lo  # every "<" and ">", in order
        opens = np.flatnonzero(a[marks] == 60)
        lt = marks[opens]
        self.lt = lt
        # after a "<", the next mark is its tag's ">" (a tag holds neither; text may hold ">")
        self.end = marks[opens + 1] + 1  # just past each tag's ">"
        closing = a[lt + 1] == 47  # "</"
        name = np.where(closing, a[np.minimum(lt + 2 + prefix, len(a) - 1)], a[lt + 1 + prefix])
        self.closing, self.name = closing, name
        self.empty = ~closing & (a[self.end - 2] == 47)  # "<x/>"

    def starts(self, letter: bytes) -> np.ndarray:
        """Indexes (into ``lt``) of the start tags whose local name begins with ``letter``."""
        return np.flatnonzero(~self.closing & (self.name == letter[0]))

    def owned(self, index: np.ndarray, c_start: np.ndarray, n: int):
        """For elements at ``index`` inside cells: (has one, per cell), (its index, per cell)."""
        cell = np.searchsorted(c_start, self.lt[index], side="right") - 1
        has = np.zeros(n, dtype=bool)
        has[cell] = True
        at = np.full(n, -1, dtype=np.int64)
        at[cell] = index
        return has, at

    def inner(self, data: bytes, at: np.ndarray) -> list[bytes]:
        """The character data of the elements at ``at`` (b"" for an empty ``<x/>``)."""
        a = self.end[at]
        b = np.where(self.empty[at], a, self.lt[np.minimum(at + 1, len(self.lt) - 1)])
        return list(map(data.__getitem__, map(slice, a.tolist(), b.tolist())))

    def element_end(self, at: np.ndarray) -> np.ndarray:
        """Just past each element at ``at`` (past ``/>``, or past its end tag)."""
        return np.where(self.empty[at], self.end[at], self.end[np.minimum(at + 1, len(self.lt) - 1)])


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


def _cells(part, g, gi, index: np.ndarray, tags: _Tags, strings: list[str]) -> None:
    n = len(index)
    take = _taker(index)

    def column(key: str) -> tuple:
        return take(g[gi[key]])

    letters = column("CL")
    if not all(letters):
        raise _Bail  # a cell without the plain r="A1" s="n" t="x" attributes
    c_index = tags.starts(b"c")
    if len(c_index) != n:
        raise _Bail
    c_start = tags.lt[c_index]
    data = part.data
    cols = {k: _column(k) for k in set(letters)}
    col = np.array(list(map(cols.__getitem__, letters)), dtype=np.int64)
    row = np.array(column("RN")).astype(np.int64)  # (the grammar allows 1-7 digits only)
    if not 0 < row.min() <= row.max() <= MAX_ROW:
        raise _Bail
    has_f, f_at = tags.owned(tags.starts(b"f"), c_start, n)
    has_v, v_at = tags.owned(tags.starts(b"v"), c_start, n)
    types = column("CT")
    plain = (_lengths(types) == 0) | np.fromiter(map(b"n".__eq__, types), bool, n)
    values = np.full(n, None, dtype=object)
    vk = np.flatnonzero(has_v)
    vt_of: dict[int, bytes] = {}
    if len(vk):
        vt = tags.inner(data, v_at[vk])
        num = np.flatnonzero(plain[vk] & (_lengths(vt) > 0))
        if len(num):  # numbers: float() of the text, as the expat reader (ValueError: its message)
            values[vk[num]] = numbers(_taker(num)(vt))
        vt_of = dict(zip(vk[~plain[vk]].tolist(), _taker_list(np.flatnonzero(~plain[vk]), vt), strict=True))
    other = np.flatnonzero(~plain)
    if len(other):
        kinds = _taker(other)(types)
        strs = [k for k, t in zip(other.tolist(), kinds, strict=True) if t == b"str" and k in vt_of]
        if strs:  # formula text results, in bulk: the value is the text
            values[strs] = [xstring(t) for t in _texts([vt_of[k] for k in strs])]
        inline_t = column("IT")
        for k, t in zip(other.tolist(), kinds, strict=True):
            if t == b"str" and k in vt_of:
                continue
            raw = vt_of.get(k)
            values[k] = decode(
                t.decode(), None if raw is None else _text(raw), [_text(inline_t[k])], strings, bool(has_f[k])
            )
    part.max_row, part.max_col = int(row.max()), int(col.max())
    fk = np.flatnonzero(has_f)
    if len(fk):
        _formulas(part, g, gi, index, tags, c_start, f_at, v_at, fk, row, col, values, types)
    is_float = np.fromiter(map(float.__instancecheck__, values), bool, n)
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


def _taker_list(index: np.ndarray, seq) -> tuple:
    return _taker(index)(seq) if len(index) else ()


def _formulas(
    part, g, gi, index, tags: _Tags, c_start, f_at, v_at, fk, row, col, values, types: tuple[bytes, ...]
) -> None:
    fa = _taker(index[fk])(g[gi["FA"]])
    f_at = f_at[fk]
    v_at = v_at[fk]
    has_v = v_at >= 0
    v_start = np.where(has_v, tags.lt[v_at], -1)
    v_end = np.where(has_v, tags.element_end(np.where(has_v, v_at, 0)), -1)
    texts = _texts(tags.inner(part.data, f_at))
    cols = FormulaColumns(
        row[fk],
        col[fk],
        texts,
        values[fk].tolist(),
        c_start[fk],
        tags.lt[f_at],
        tags.element_end(f_at),
        v_start,
        v_end,
        t_attr=_object_array(_taker(fk)(types)),
    )
    for k in itertools.compress(range(len(fa)), fa):  # shared and array formulas
        attrs = _attrs(fa[k])
        ref = attrs.get("ref")
        if attrs.get("t") == "array" and ref and ":" in ref:
            raise _Bail  # multi-cell array formulas: the expat reader's business
        _add_formula(
            part,
            int(cols.row[k]),
            int(cols.col[k]),
            int(cols.c_start[k]),
            [attrs, int(cols.f_start[k]), int(cols.f_end[k]), texts[k]],
            cols.cached[k],
            int(cols.v_start[k]),
            int(cols.v_end[k]),
        )
        cols.special[k] = part.formulas.pop()
    if not cols.special:  # which cells start a run of one formula filled down (the engine
        cols.starts = shape_starts(cols.row, cols.col, texts)  # compiles only those)
    part.formulas = cols


def _object_array(items) -> np.ndarray:
    out = np.empty(len(items), dtype=object)
    out[:] = items
    return out


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


_ENTITIES = (("&lt;", "<"), ("&gt;", ">"), ("&quot;", '"'), ("&apos;", "'"), ("&amp;", "&"))


def _text(raw: bytes) -> str:
    """Character data: UTF-8 with the five predefined entities (the grammar allows no other),
    line ends normalised to ``\\n`` as XML says."""
    text = raw.decode("utf-8")
    if "&" in text:
        for entity, char in _ENTITIES:  # (&amp; last: "&amp;lt;" is the text "&lt;")
            if entity in text:
                text = text.replace(entity, char)
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
    decl = data[: data.find(b"?>")].lower()
    m = re.search(rb"encoding\s*=\s*[\"']([^\"']+)", decl)
    return m is None or m.group(1) in (b"utf-8", b"utf8")
