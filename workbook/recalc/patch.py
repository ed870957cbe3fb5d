"""Patch computed values into a worksheet part's bytes in one pass, the values formatted in bulk.

The same edit as :func:`.writer.patch_sheet` (only the ``t`` attribute of each formula cell's
``<c>`` and its ``<v>`` change; every other byte is copied), made faster: the values of every
formula cell are read from the column stores a column at a time and numbers are formatted in
bulk, and the output is one ``bytes.join`` of slices of the original and the new pieces.
:func:`patch_values` returns None for parts it leaves to :func:`.writer.patch_sheet` (cells of
kinds other than plain, shared and array formulas, such as the other cells of a spilled array).
"""

from __future__ import annotations

import numpy as np

from .store import NUMBER, SheetStore

_KINDS = frozenset({"normal", "shared", "array"})


def patch_values(part, evaluation) -> bytes | None:
    """The part's bytes with every evaluated formula cell's value and type replaced, or None."""
    from .writer import _QNAME, _T_ATTR, _start_tag, _utf8, value_xml

    data = part.data
    formulas = part.formulas
    if not formulas or not _utf8(data) or not {fc.kind for fc in formulas} <= _KINDS:
        return None
    skipped = evaluation.skipped
    if skipped:
        key = part.name.upper()
        formulas = [fc for fc in formulas if (key, fc.row, fc.col) not in skipped]
        if not formulas:
            return data
    store = evaluation.book.sheet(part.name)
    types, texts = _formatted(store, formulas, value_xml)
    prefix = _QNAME.match(data, formulas[0].c_start).group(1)[:-1]  # b"" or b"x:"
    open_c, close_v, close_f = b"<" + prefix + b"c", b"</" + prefix + b"v", b"</" + prefix + b"f"
    c_start = [fc.c_start for fc in formulas]
    v_start = [fc.v_start for fc in formulas]
    # where the old <v> starts (or the new one goes, after </f>) and where the copy resumes;
    # an expat event offset points at the end tag, the regex reader's just past it
    cut = [v if v >= 0 else fc.f_end_event for v, fc in zip(v_start, formulas, strict=True)]
    resume = [fc.v_end_event if v >= 0 else c for v, c, fc in zip(v_start, cut, formulas,
                                                                     strict=True)]
    if not part.exact_ends:
        for k, (v, r) in enumerate(zip(v_start, resume, strict=True)):
            if data.startswith(close_v if v >= 0 else close_f, r):
                resume[k] = data.index(b">", r) + 1
                if v < 0:
                    cut[k] = resume[k]
        if any(not data.startswith(open_c, c) for c in c_start):
            return None  # another prefix in this part: the general writer
    # the start tags change only where a t attribute is, or is to be, written
    heads = list(map(data.__getitem__, map(slice, c_start, [fc.f_start for fc in formulas])))
    gaps = list(map(data.__getitem__, map(slice, [0, *resume[:-1]], cut)))
    skip = len(open_c)
    changed = sorted({k for k, head in enumerate(heads) if head.find(b"t", skip) >= 0}
                     | {k for k, t in enumerate(types) if t is not None})
    for k in changed:
        t = types[k]
        start = c_start[k]
        tag = _start_tag(data, start)
        new_tag = _T_ATTR.sub(b"", tag) if b"t" in tag[len(open_c):] else tag
        if t is not None:
            new_tag = new_tag[:-1] + b' t="' + t + b'">'
        prev = resume[k - 1] if k else 0
        gaps[k] = data[prev:start] + new_tag + data[start + len(tag):cut[k]]
    v_open, v_close = b"<" + prefix + b"v>", b"</" + prefix + b"v>"
    pieces: list = [None] * (2 * len(gaps))
    pieces[0::2] = gaps
    pieces[1::2] = [v_open + text + v_close for text in texts]
    pieces.append(data[resume[-1]:])
    return b"".join(pieces)


def _formatted(store: SheetStore, formulas: list, value_xml) -> tuple[list, list]:
    """(t attribute or None, text of <v>) of every formula cell, as :func:`column_xml` gives."""
    n = len(formulas)
    rows = np.array([fc.row for fc in formulas], dtype=np.int64)
    cols = np.array([fc.col for fc in formulas], dtype=np.int64)
    texts: list = [None] * n
    types: list = [None] * n
    for c in np.unique(cols).tolist():
        sel = np.flatnonzero(cols == c).tolist()
        t, x = column_xml(store, c, rows[sel], value_xml)
        for k, tk, xk in zip(sel, t, x, strict=True):
            types[k], texts[k] = tk, xk
    return types, texts


def column_xml(store: SheetStore, col: int, rows: np.ndarray, value_xml) -> tuple[list, list]:
    """(t attribute or None, text of <v>) of the cells ``rows`` of column ``col``, numbers
    formatted in bulk exactly as :func:`.writer.value_xml` formats one."""
    n = len(rows)
    kinds = np.zeros(n, dtype=np.int8)
    nums = np.zeros(n, dtype=np.float64)
    column = store.cols.get(col)
    if column is not None:
        r = np.clip(rows, 0, len(column.kind) - 1)
        kinds = np.where(rows < len(column.kind), column.kind[r], 0)
        nums = column.num[r]
    texts: list = [None] * n
    types: list = [None] * n
    number = kinds == NUMBER
    whole = number & (np.abs(nums) < 1e16) & (nums == np.floor(nums))
    for k, x in zip(np.flatnonzero(whole).tolist(), nums[whole].astype(np.int64).tolist(),
                    strict=True):
        texts[k] = b"%d" % x
    rest = number & ~whole
    for k, x in zip(np.flatnonzero(rest).tolist(), nums[rest].tolist(), strict=True):
        texts[k] = repr(x).encode()
    for k in np.flatnonzero(~number).tolist():
        types[k], texts[k] = value_xml(store.get(int(rows[k]), col))
    return types, texts
