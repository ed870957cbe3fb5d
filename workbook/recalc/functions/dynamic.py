"""OFFSET and INDIRECT: references computed while the workbook is evaluated (same workbook only);
ADDRESS, the text of a reference.

- OFFSET(reference, rows, cols, [height], [width]): the range ``rows`` down and ``cols`` right of
  ``reference``'s top-left cell, of ``height`` x ``width`` (default: the reference's size); a
  range off the sheet, or a height/width below 1, is #REF!.
- INDIRECT(ref_text, [a1=TRUE]): the reference a text spells (``B3``, ``'My Sheet'!A1:B2``;
  ``R3C2`` / ``R[-1]C`` with a1 FALSE), or a defined name of a range. References to other
  workbooks, and texts that are not a reference, are #REF!: nothing outside the workbook is read.

Which cells these reach is known only when they run, so the engine evaluates a workbook that uses
them until its values settle (see :func:`..engine.evaluate_package`): a formula read before it was
computed is simply computed again on the next pass.
"""

from __future__ import annotations

import re

import numpy as np

from gputco.workbook.recalc.formula.refs import MAX_COL, MAX_ROW, col_letters, parse_ref
from gputco.workbook.recalc.run import vec
from gputco.workbook.recalc.run.rangeval import RangeVal
from gputco.workbook.recalc.run.values import REF, VALUE, XlError

from ._args import Spec, scalar_nums

DYNAMIC = frozenset({"OFFSET", "INDIRECT"})


def _uniform(a: np.ndarray) -> float | None:
    flat = np.unique(a.ravel())
    return float(flat[0]) if len(flat) == 1 else None


def _offset(ref, rows, cols, height=None, width=None):
    if not isinstance(ref, RangeVal):
        return vec.const(VALUE)
    (dr, dc, h, w), e = scalar_nums(rows, cols, height, width)
    if e is not None:
        errs = e[1][e[0]]
        return vec.const(errs.ravel()[0])
    dr, dc = np.trunc(dr), np.trunc(dc)
    h = np.full(1, float(ref.h)) if h is None else np.trunc(h)
    w = np.full(1, float(ref.w)) if w is None else np.trunc(w)
    uc, uh, uw = _uniform(dc), _uniform(h), _uniform(w)
    if uc is None or uh is None or uw is None:
        raise ValueError("OFFSET with a width, height or column offset varying by row")
    if uh < 1 or uw < 1:
        return vec.const(REF)
    c0 = ref.c0 + int(uc)
    r0 = np.asarray(ref.r0) + dr.reshape(-1).astype(np.int64)
    if c0 < 1 or c0 + int(uw) - 1 > MAX_COL or (r0 < 1).any() or (r0 + int(uh) - 1 > MAX_ROW).any():
        if r0.size == 1:
            return vec.const(REF)
        raise ValueError("OFFSET off the sheet for some rows")
    top = int(r0[0]) if r0.size == 1 else r0
    return RangeVal(ref.store, top, int(uh), c0, int(uw))


_R1C1 = re.compile(r"^R(\[-?\d+\]|\d*)C(\[-?\d+\]|\d*)$", re.I)


def _r1c1(text: str, row: int, col: int):
    """(top, left, bottom, right) of an R1C1 reference (one cell or a range), or None."""
    parts = text.split(":")
    if len(parts) > 2:
        return None
    cells = []
    for p in parts:
        m = _R1C1.match(p)
        if not m:
            return None
        cells.append((_axis(m[1], row), _axis(m[2], col)))
    (r1, c1), (r2, c2) = cells[0], cells[-1]
    return min(r1, r2), min(c1, c2), max(r1, r2), max(c1, c2)


def _axis(part: str, here: int) -> int:
    if part == "":
        return here
    if part.startswith("["):
        return here + int(part[1:-1])
    return int(part)


def _indirect(ctx, text, a1=None):
    book = ctx.book
    texts = text.reshape(-1).tolist()
    if a1 is None:
        styles = [True]
    else:
        b, e = vec.bools(a1)
        if e is not None:
            return vec.const(VALUE)
        styles = b.reshape(-1).tolist()
    rows = ctx.rows.tolist()
    n = max(len(texts), len(styles))
    if n > 1 and len(rows) == 1:  # INDIRECT({"A1","B2"}) in one cell: its top-left result
        texts, styles, n = texts[:1], styles[:1], 1
    if n > 1 and n != len(rows):
        raise ValueError("INDIRECT over an array")
    found = []
    for i in range(n):
        t = texts[min(i, len(texts) - 1)]
        if isinstance(t, XlError):
            found.append(t)
            continue
        found.append(
            _resolve(
                book, ctx.sheet, t, styles[min(i, len(styles) - 1)], rows[min(i, len(rows) - 1)], ctx.col
            )
        )
    if all(f == found[0] for f in found):
        return _as_range(book, found[0])
    tops = {(f[0], f[2], f[3], f[4]) if not isinstance(f, XlError) else None for f in found}
    if len(tops) != 1 or None in tops:
        raise ValueError("INDIRECT with references of different shapes by row")
    sheet, _, left, h, w = found[0]
    store = book.sheet(sheet)
    return RangeVal(store, np.array([f[1] for f in found], dtype=np.int64), h, left, w)


def _as_range(book, f):
    if isinstance(f, XlError):
        return vec.const(f)
    sheet, top, left, h, w = f
    store = book.sheet(sheet)
    return vec.const(REF) if store is None else RangeVal(store, top, h, left, w)


_PLAIN_SHEET = re.compile(r"^[A-Za-z_][A-Za-z0-9_.]*$")


def _resolve(book, here: str, text, a1: bool, row: int, col: int, depth: int = 0):
    """(sheet, top, left, height, width) of a reference text, or #REF!."""
    if not isinstance(text, str) or not text.strip():
        return REF
    text = text.strip()
    if a1 and "!" not in text:  # a defined name (sheet scope first) that names a range
        name = text.upper()
        target = book.names.get((here.upper(), name)) or book.names.get((None, name))
        if target is not None:
            if depth > 8 or "!" not in target:
                return REF
            return _resolve(book, here, target.lstrip("="), True, row, col, depth + 1)
    sheet, body = here, text
    if "!" in text:
        sheet, _, body = text.rpartition("!")
        if sheet.startswith("[") or "]" in sheet:
            return REF  # another workbook: never read
        if sheet.startswith("'") and sheet.endswith("'"):
            sheet = sheet[1:-1].replace("''", "'")
        elif not _PLAIN_SHEET.match(sheet):
            return REF  # a sheet name with spaces or signs must be quoted
    if book.sheet(sheet) is None:
        return REF
    if a1:
        try:
            ref = parse_ref(body, row, col)
        except ValueError:
            return REF
        if ref is None:
            return REF  # not a reference
        top, left, bottom, right = ref.rect(row, col)
    else:
        rect = _r1c1(body, row, col)
        if rect is None:
            return REF
        top, left, bottom, right = rect
    if top < 1 or left < 1 or bottom > MAX_ROW or right > MAX_COL:
        return REF
    return (book.sheet(sheet).name, top, left, bottom - top + 1, right - left + 1)


def _address_one(r, c, kind, a1, sheet):
    if any(isinstance(x, XlError) for x in (r, c, kind, a1, sheet)):
        return next(x for x in (r, c, kind, a1, sheet) if isinstance(x, XlError))
    try:
        r, c, kind = int(r), int(c), int(kind)
    except (TypeError, ValueError):
        return VALUE
    if not (1 <= r <= MAX_ROW and 1 <= c <= MAX_COL and 1 <= kind <= 4):
        return VALUE
    abs_row, abs_col = kind in (1, 2), kind in (1, 3)
    if a1:
        ref = f"{'$' if abs_col else ''}{col_letters(c)}{'$' if abs_row else ''}{r}"
    else:
        ref = (f"R{r}" if abs_row else f"R[{r}]") + (f"C{c}" if abs_col else f"C[{c}]")
    if sheet is None or sheet == "":
        return ref
    name = str(sheet)
    if not _PLAIN_SHEET.match(name):
        name = "'" + name.replace("'", "''") + "'"
    return f"{name}!{ref}"


def _address(row, col, kind=None, a1=None, sheet=None):
    """ADDRESS(row, column, [abs_num=1], [a1=TRUE], [sheet_text]): a reference as text."""
    (r, c, k), e = scalar_nums(row, col, kind if kind is not None else vec.const(1.0))
    b, eb = vec.bools(a1 if a1 is not None else vec.const(True))
    sh = sheet if sheet is not None else vec.const(None)
    r, c, k = np.trunc(r), np.trunc(c), np.trunc(k)
    out = vec.elementwise(lambda *xs: _address_one(*xs), r, c, k, b, sh)
    return vec.with_errors(out, vec.merge(e, eb))


FUNCTIONS = {
    "ADDRESS": Spec(_address, 2, 5),
    "OFFSET": Spec(_offset, 3, 5, "rv"),
    "INDIRECT": Spec(_indirect, 1, 2, needs_ctx=True),
}
