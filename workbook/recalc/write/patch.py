"""Patch computed values into a worksheet part's bytes in one pass, the values formatted in bulk.

The same edit as :func:`.cellxml.patch_sheet` (only the ``t`` attribute of each formula cell's
``<c>`` and its ``<v>`` change; every other byte is copied), made faster: the values of every
formula cell are read from the column stores a column at a time and numbers are formatted in
bulk, and the output is one ``bytes.join`` of slices of the original and the new pieces.
:func:`patch_values` returns None for parts it leaves to :func:`.cellxml.patch_sheet` (cells of
kinds other than plain, shared and array formulas, such as the other cells of a spilled array);
:func:`patch_part` is the one entry, the bulk path first.
"""

from __future__ import annotations

import re

import numpy as np

from gputco.workbook.recalc.read import forked
from gputco.workbook.recalc.read.formulacols import columns
from gputco.workbook.recalc.run.store import NUMBER, TEXT, SheetStore
from gputco.workbook.recalc.write.cellxml import _QNAME, _T_ATTR, _start_tag, _utf8, patch_sheet, value_xml

_KINDS = frozenset({"normal", "shared", "array"})


def patch_part(part, evaluation) -> bytes:
    """The part's bytes with every formula cell's computed value written in."""
    return patch_values(part, evaluation) or patch_sheet(part, evaluation)


def patch_values(part, evaluation) -> bytes | None:
    """The part's bytes with every evaluated formula cell's value and type replaced, or None."""
    data = part.data
    if not part.formulas or not _utf8(data):
        return None
    fcs = columns(part.formulas)
    if not fcs.kinds() <= _KINDS:
        return None
    skipped = evaluation.skipped
    if skipped:
        key = part.name.upper()
        here = [(r, c) for s, r, c in skipped if s == key]
        if here:
            cells = fcs.row * (1 << 15) + fcs.col
            gone = np.array([r * (1 << 15) + c for r, c in here], dtype=np.int64)
            keep = np.flatnonzero(~np.isin(cells, gone))
            if not len(keep):
                return data
            fcs = fcs.take(keep)
    c_start = fcs.c_start
    prefix = _QNAME.match(data, int(c_start[0])).group(1)[:-1]  # b"" or b"x:"
    open_c = b"<" + prefix + b"c"
    close_v, close_f = b"</" + prefix + b"v", b"</" + prefix + b"f"
    has_v = fcs.v_start >= 0
    # where the old <v> starts (or the new one goes, after </f>) and where the copy resumes;
    # an expat event offset points at the end tag, the regex reader's just past it
    cut = np.where(has_v, fcs.v_start, fcs.f_end)
    resume = np.where(has_v, fcs.v_end, cut)
    if not part.exact_ends:
        cut, resume = cut.tolist(), resume.tolist()
        for k, (v, r) in enumerate(zip(has_v.tolist(), resume, strict=True)):
            if data.startswith(close_v if v else close_f, r):
                resume[k] = data.index(b">", r) + 1
                if not v:
                    cut[k] = resume[k]
        if any(not data.startswith(open_c, c) for c in c_start.tolist()):
            return None  # another prefix in this part: the general writer
        cut, resume = np.array(cut, dtype=np.int64), np.array(resume, dtype=np.int64)
    plan = _Plan(part, evaluation.book.sheet(part.name), fcs, prefix, cut, resume)
    n = len(fcs)
    if n < SPLIT_CELLS or not forked.available():
        return plan.patch(0, n)
    head, tail = forked.both(plan.patch, (0, n // 2), (n // 2, n))  # on two cores
    return head + tail


#: formula cells from which a forked child patches half of a part (fewer: not worth a fork)
SPLIT_CELLS = 100_000


class _Plan:
    """Where each formula cell's value goes in a part's bytes; :meth:`patch` writes a run of
    cells (and the bytes around them)."""

    def __init__(
        self, part, store: SheetStore, fcs, prefix: bytes, cut: np.ndarray, resume: np.ndarray
    ) -> None:
        self.data, self.store, self.fcs, self.prefix = part.data, store, fcs, prefix
        self.cut, self.resume = cut, resume

    def patch(self, k0: int, k1: int) -> bytes:
        """The bytes from the end of cell k0 - 1 (or the start) to the end of cell k1 - 1 (or
        the end), with the values of cells k0..k1-1 written in."""
        data, prefix, fcs = self.data, self.prefix, self.fcs
        types, texts = _formatted(self.store, fcs.row[k0:k1], fcs.col[k0:k1], value_xml)
        open_c = b"<" + prefix + b"c"
        v_open, v_close = b"<" + prefix + b"v>", b"</" + prefix + b"v>"
        cut, resume = self.cut[k0:k1], self.resume[k0:k1]
        c_start, f_start = fcs.c_start[k0:k1], fcs.f_start[k0:k1]
        # a plain <v>old</v> keeps its tags: only the text between them is replaced
        a = np.frombuffer(data, np.uint8)
        inner = (fcs.v_start[k0:k1] >= 0) & (resume - cut > len(v_open) + len(v_close) - 1)
        for i, byte in enumerate(v_open):
            inner &= a[np.where(inner, cut + i, 0)] == byte
        for i, byte in enumerate(v_close):
            inner &= a[np.where(inner, resume - len(v_close) + i, 0)] == byte
        cut = np.where(inner, cut + len(v_open), cut)
        resume = np.where(inner, resume - len(v_close), resume)
        # the start tags change only where a t attribute is, or is to be, written, and differs
        # from the one there (a tag ending in the same ' t="x">' stays)
        if fcs.t_attr is not None:
            old = fcs.t_attr[k0:k1]
            same_end = (a[np.maximum(f_start - 1, 0)] == 62) & (a[np.maximum(f_start - 2, 0)] == 34)
            changed = np.flatnonzero(
                ((old != b"") | (types != None))  # noqa: E711 (elementwise)
                & ~(
                    (old == np.where(types == None, b"", types))  # noqa: E711
                    & same_end
                )
            )
        else:
            skip = len(open_c)
            heads = map(data.__getitem__, map(slice, c_start.tolist(), f_start.tolist()))
            had_t = np.fromiter((head.find(b"t", skip) >= 0 for head in heads), bool, k1 - k0)
            changed = np.flatnonzero(had_t | (types != None))  # noqa: E711 (elementwise)
        first = int(self.resume[k0 - 1]) if k0 else 0
        last = int(self.resume[k1 - 1]) if k1 < len(fcs) else len(data)
        c_start, cut, resume, f_start = (x.tolist() for x in (c_start, cut, resume, f_start))
        types = types.tolist()
        gaps: list = list(map(data.__getitem__, map(slice, [first, *resume[:-1]], cut)))
        for k in changed.tolist():
            t = types[k]
            start = c_start[k]
            if t is not None and data.endswith(b' t="' + t + b'">', start, f_start[k]):
                continue  # the tag ends with this very t attribute: it stays as it is
            tag = _start_tag(data, start)
            new_tag = _T_ATTR.sub(b"", tag) if b"t" in tag[len(open_c) :] else tag
            if t is not None:
                new_tag = new_tag[:-1] + b' t="' + t + b'">'
            prev = resume[k - 1] if k else first
            gaps[k] = data[prev:start] + new_tag + data[start + len(tag) : cut[k]]
        pieces: list = [None] * (2 * len(gaps))
        pieces[0::2] = gaps
        texts[~inner] = _objects([v_open + text + v_close for text in texts[~inner].tolist()])
        pieces[1::2] = texts.tolist()
        pieces.append(data[resume[-1] : last])
        return b"".join(pieces)


def _formatted(
    store: SheetStore, rows: np.ndarray, cols: np.ndarray, value_xml
) -> tuple[np.ndarray, np.ndarray]:
    """(t attribute or None, text of <v>) of every formula cell, as :func:`column_xml` gives."""
    n = len(rows)
    texts = np.empty(n, dtype=object)
    types = np.empty(n, dtype=object)
    for c in np.unique(cols).tolist():
        sel = np.flatnonzero(cols == c)
        t, x = column_xml(store, c, rows[sel], value_xml)
        texts[sel], types[sel] = _objects(x), _objects(t)
    return types, texts


def _objects(items: list) -> np.ndarray:
    """A list as a 1-d object array (numpy would otherwise unpack bytes or tuples)."""
    out = np.empty(len(items), dtype=object)
    out[:] = items
    return out


def column_xml(store: SheetStore, col: int, rows: np.ndarray, value_xml) -> tuple[list, list]:
    """(t attribute or None, text of <v>) of the cells ``rows`` of column ``col``, formatted in
    bulk exactly as :func:`.cellxml.value_xml` formats one: numbers through one ``repr`` of a
    list (Python's own shortest round-trip form, in C), texts escaped in one pass."""
    n = len(rows)
    kinds = np.zeros(n, dtype=np.int8)
    nums = np.zeros(n, dtype=np.float64)
    column = store.cols.get(col)
    if column is not None:
        r = np.clip(rows, 0, len(column.kind) - 1)
        kinds = np.where(rows < len(column.kind), column.kind[r], 0)
        nums = column.num[r]
    texts = np.empty(n, dtype=object)
    types = np.empty(n, dtype=object)
    number = (kinds == NUMBER) & np.isfinite(nums)  # inf: value_xml's #NUM!, below
    whole = number & (np.abs(nums) < 1e16) & (nums == np.floor(nums))
    rest = number & ~whole
    for sel, vals in ((whole, nums[whole].astype(np.int64)), (rest, nums[rest])):
        if len(vals):
            texts[sel] = _objects(repr(vals.tolist()).encode()[1:-1].split(b", "))
    text = np.flatnonzero(kinds == TEXT)
    if len(text):
        strs = column.obj[r[text]].tolist()
        xml = _escaped(strs)
        if xml is not None:
            texts[text] = _objects(xml)
            types[text] = b"str"
            number[text] = True  # done
    for k in np.flatnonzero(~number).tolist():
        types[k], texts[k] = value_xml(store.get(int(rows[k]), col))
    return types.tolist(), texts.tolist()


_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _escaped(strs: list) -> list[bytes] | None:
    """The texts as :func:`.cellxml.value_xml` writes them, all at once; None when one holds a
    character XML cannot (each is then escaped on its own) or is not a str."""
    if not all(map(str.__instancecheck__, strs)):
        return None
    joined = "\x00".join(strs)
    if _NOT_XML.search(joined.replace("\x00", "")) or joined.count("\x00") != len(strs) - 1:
        return None
    joined = joined.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return joined.encode("utf-8", "replace").split(b"\x00")
