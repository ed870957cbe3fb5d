"""Cell references: A1 notation, relative/absolute parts, and the shape key of a formula.

A :class:`Ref` stores each coordinate either absolute (``$A$1``: the row or column number) or
relative (``A1``: the offset from the cell holding the formula), like Excel's R1C1 notation. Two
cells whose formulas have the same R1C1 form compute the same thing relative to where they sit,
which is what lets a whole column of them be evaluated at once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

MAX_ROW, MAX_COL = 1_048_576, 16_384


@lru_cache(maxsize=4096)
def col_index(letters: str) -> int:
    """Column number of column letters.

    >>> col_index("A"), col_index("z"), col_index("AA"), col_index("XFD")
    (1, 26, 27, 16384)
    """
    n = 0
    for ch in letters.upper():
        n = n * 26 + ord(ch) - 64
    return n


@lru_cache(maxsize=4096)
def col_letters(col: int) -> str:
    """Column letters of a column number.

    >>> col_letters(1), col_letters(28), col_letters(16384)
    ('A', 'AB', 'XFD')
    """
    s = ""
    while col:
        col, rem = divmod(col - 1, 26)
        s = chr(65 + rem) + s
    return s


def cell_name(row: int, col: int) -> str:
    """``A1`` name of a cell.

    >>> cell_name(3, 2)
    'B3'
    """
    return f"{col_letters(col)}{row}"


_CELL_RE = re.compile(r"^\$?([A-Za-z]{1,3})\$?([0-9]+)$")


def split_cell(name: str) -> tuple[int, int]:
    """(row, col) of an ``A1`` or ``$A$1`` cell name.

    >>> split_cell("$B$3")
    (3, 2)
    """
    m = _CELL_RE.match(name)
    if not m:
        raise ValueError(f"not a cell reference: {name!r}")
    return int(m[2]), col_index(m[1])


@dataclass(frozen=True, slots=True)
class Ref:
    """A rectangular reference; each coordinate absolute (a number) or relative (an offset)."""

    sheet: str | None  # None: the sheet of the formula
    r1: int
    c1: int
    r2: int
    c2: int
    ar1: bool = True
    ac1: bool = True
    ar2: bool = True
    ac2: bool = True

    def rect(self, row: int, col: int) -> tuple[int, int, int, int]:
        """(top, left, bottom, right) for a formula sitting at (row, col).

        >>> Ref(None, -1, 0, 1, 0, False, False, False, False).rect(5, 3)
        (4, 3, 6, 3)
        """
        top = self.r1 if self.ar1 else row + self.r1
        left = self.c1 if self.ac1 else col + self.c1
        bottom = self.r2 if self.ar2 else row + self.r2
        right = self.c2 if self.ac2 else col + self.c2
        return min(top, bottom), min(left, right), max(top, bottom), max(left, right)

    @property
    def fixed_rows(self) -> bool:
        """True when the rows do not move with the formula's row."""
        return self.ar1 and self.ar2

    @property
    def same_height(self) -> bool:
        """True when every row of a column group sees a range of the same height."""
        return self.ar1 == self.ar2


_PART_RE = re.compile(
    r"""^(?:(?P<cell>(?P<c1d>\$?)(?P<c1>[A-Za-z]{1,3})(?P<r1d>\$?)(?P<r1>[0-9]+))
    (?::(?P<c2d>\$?)(?P<c2>[A-Za-z]{1,3})(?P<r2d>\$?)(?P<r2>[0-9]+))?
    |(?P<cc1d>\$?)(?P<cc1>[A-Za-z]{1,3}):(?P<cc2d>\$?)(?P<cc2>[A-Za-z]{1,3})
    |(?P<rr1d>\$?)(?P<rr1>[0-9]+):(?P<rr2d>\$?)(?P<rr2>[0-9]+))$""",
    re.X,
)


def parse_ref(text: str, row: int, col: int) -> Ref | None:
    """The reference in an operand such as ``'My Sheet'!$A$1:B2`` for a formula at (row, col).

    Returns None when the text is not a reference (then it is a defined name). External and 3-D
    references raise ValueError.

    >>> parse_ref("Inputs!$B$2", 10, 3)
    Ref(sheet='Inputs', r1=2, c1=2, r2=2, c2=2, ar1=True, ac1=True, ar2=True, ac2=True)
    >>> parse_ref("A:B", 10, 3).rect(10, 3)
    (1, 1, 1048576, 2)
    >>> parse_ref("rate", 1, 1) is None
    True
    """
    sheet = None
    if "!" in text:
        sheet, _, text = text.rpartition("!")
        if sheet.startswith("["):
            raise ValueError("external workbook reference")
        if sheet.startswith("'") and sheet.endswith("'"):
            sheet = sheet[1:-1].replace("''", "'")
        if ":" in sheet:  # no sheet name holds ":": 'Jan:Q 2'!A1 spans sheets too
            raise ValueError("3-D reference across sheets")
        if sheet.startswith("[") or "]" in sheet:
            raise ValueError("external workbook reference")
    m = _PART_RE.match(text)
    if not m:
        if sheet is not None:
            raise ValueError(f"not a reference: {text!r}")
        return None
    if m["cell"]:
        a = _coord(m["r1d"], m["r1"], m["c1d"], m["c1"], row, col)
        b = _coord(m["r2d"], m["r2"], m["c2d"], m["c2"], row, col) if m["c2"] else a
        return Ref(sheet, a[0], a[2], b[0], b[2], a[1], a[3], b[1], b[3])
    if m["cc1"]:
        c1, c2 = col_index(m["cc1"]), col_index(m["cc2"])
        ac1, ac2 = bool(m["cc1d"]), bool(m["cc2d"])
        return Ref(sheet, 1, c1 if ac1 else c1 - col, MAX_ROW, c2 if ac2 else c2 - col, True, ac1, True, ac2)
    r1, r2 = int(m["rr1"]), int(m["rr2"])
    ar1, ar2 = bool(m["rr1d"]), bool(m["rr2d"])
    return Ref(sheet, r1 if ar1 else r1 - row, 1, r2 if ar2 else r2 - row, MAX_COL, ar1, True, ar2, True)


def _coord(rd: str, r: str, cd: str, c: str, row: int, col: int):
    rn, cn = int(r), col_index(c)
    if rn < 1 or rn > MAX_ROW or cn > MAX_COL:
        raise ValueError(f"cell outside the sheet: {c}{r}")
    return (rn if rd else rn - row), bool(rd), (cn if cd else cn - col), bool(cd)


#: a formula's references (a cell, whole columns, whole rows) and the texts kept verbatim ("lit":
#: strings, quoted sheet names, brackets), as shape_key reads them
KEY_RE = re.compile(
    r"""
     (?P<lit>"(?:[^"]|"")*"|'(?:[^']|'')*'|\[[^\]]*\])
    |(?<![A-Za-z0-9_.$\\])(?P<cd>\$?)(?P<c>[A-Za-z]{1,3})(?P<rd>\$?)(?P<r>[0-9]+)
     (?![A-Za-z0-9_.(!\[])
    |(?<![A-Za-z0-9_.$\\])(?P<k1d>\$?)(?P<k1>[A-Za-z]{1,3}):(?P<k2d>\$?)(?P<k2>[A-Za-z]{1,3})
     (?![A-Za-z0-9_.(!\[])
    |(?<![A-Za-z0-9_.$\\])(?P<w1d>\$?)(?P<w1>[0-9]+):(?P<w2d>\$?)(?P<w2>[0-9]+)(?![A-Za-z0-9_.(!])
    """,
    re.X,
)


def shape_key(formula: str, row: int, col: int) -> tuple[str, int]:
    """The formula in R1C1 form for a cell at (row, col), and how many references it rewrote.

    Cells with equal keys hold the same formula relative to their position. Strings, quoted
    sheet names and brackets are kept verbatim. The count lets the caller check the key against
    the parser's own count of references (see :mod:`.compile`).

    >>> shape_key('=A2*$B$1+SUM(C1:C2)+"A1"', 2, 4)
    ('=R[0]C[-3]*R1C2+SUM(R[-1]C[-1]:R[0]C[-1])+"A1"', 4)
    >>> shape_key('=A3*$B$1+SUM(C2:C3)+"A1"', 3, 4)[0] == shape_key('=A2*$B$1+SUM(C1:C2)+"A1"', 2, 4)[0]
    True
    >>> shape_key("=LOG10(x1y)+'Q1'!A:A", 1, 1)
    ("=LOG10(x1y)+'Q1'!C[0]:C[0]", 1)
    """
    count = 0

    def sub(m: re.Match) -> str:
        nonlocal count
        if m.lastgroup == "lit":
            return m.group()
        count += 1
        return r1c1(m, row, col)

    return KEY_RE.sub(sub, formula), count


def r1c1(m: re.Match, row: int, col: int) -> str:
    """The R1C1 form, for a cell at (row, col), of a reference :data:`KEY_RE` matched (a cell,
    whole columns or whole rows).

    >>> r1c1(KEY_RE.search("=$B3"), 2, 4), r1c1(KEY_RE.search("=C:$D"), 2, 4)
    ('R[1]C2', 'C[-1]:C4')
    """
    kind = m.lastgroup
    if kind == "r":
        r, c = int(m["r"]), col_index(m["c"])
        rs = f"R{r}" if m["rd"] else f"R[{r - row}]"
        return rs + (f"C{c}" if m["cd"] else f"C[{c - col}]")
    if kind == "k2":
        a, b = col_index(m["k1"]), col_index(m["k2"])
        return (f"C{a}" if m["k1d"] else f"C[{a - col}]") + ":" + (f"C{b}" if m["k2d"] else f"C[{b - col}]")
    a, b = int(m["w1"]), int(m["w2"])
    return (f"R{a}" if m["w1d"] else f"R[{a - row}]") + ":" + (f"R{b}" if m["w2d"] else f"R[{b - row}]")


def own_row_relative(formula: str, row: int) -> str:
    """The formula of a cell in ``row`` with every reference whose row is absolute and is that
    row (``$X$6``, ``X$6``, ``$6:$6`` in row 6) written row-relative (``$X6``, ``X6``, ``6:6``).

    For that cell it means the same; written so, a column of such cells has one shape key in
    every row (:func:`shape_key`), as with relative references. A range is rewritten only when
    each of its ends is on the own row (``$A$1:$A$6`` in row 6 keeps its fixed shape). Strings
    (INDIRECT's text), quoted sheet names and brackets are kept verbatim.

    >>> own_row_relative('=$C$6*D$6+SUM($E$6:$F$6)+$A$5+SUM($B$1:$B$6)+"$A$6"+$6:$6', 6)
    '=$C6*D6+SUM($E6:$F6)+$A$5+SUM($B$1:$B$6)+"$A$6"+6:6'
    >>> own_row_relative("=$C$6*2", 7)
    '=$C$6*2'
    """
    drop = _own_row_dollars(formula, row)
    if not drop:
        return formula
    out, pos = [], 0
    for at in drop:
        out.append(formula[pos:at])
        pos = at + 1
    out.append(formula[pos:])
    return "".join(out)


def _own_row_dollars(formula: str, row: int) -> list[int]:
    """Where the "$" of each absolute own-row reference stands (:func:`own_row_relative`), in
    order: of a cell, of a range whose ends are all on ``row``, of a row range ``$6:$6``."""
    if f"${row}" not in formula:  # the quick test: no absolute row written as this row
        return []
    drop: list[int] = []
    cells: list[re.Match] = []  # one cell or the ends of one range (A1:B2, joined by ":")

    def flush() -> None:
        if cells and all(int(m["r"]) == row for m in cells):
            drop.extend(m.start("rd") for m in cells if m["rd"])

    for m in KEY_RE.finditer(formula):
        kind = m.lastgroup
        if kind == "r":
            if cells and cells[-1].end() + 1 == m.start() and formula[cells[-1].end()] == ":":
                cells.append(m)
                continue
            flush()
            cells = [m]
        elif kind == "w2" and int(m["w1"]) == int(m["w2"]) == row:
            drop.extend(m.start(d) for d in ("w1d", "w2d") if m[d])
    flush()
    return sorted(drop)


class RowTemplate:
    """A formula text with its relative row numbers as slots, to recognise the same formula one
    row further down without running :func:`shape_key` again (openpyxl writes every row out).

    With ``own``, an absolute row that is the text's own row (``$A$2`` in row 2, which
    :func:`own_row_relative` reads as ``$A2``) is a slot too: a column written so is one formula
    filled down in that reading.

    >>> t = RowTemplate.of("=A2*$B$1+SUM(C1:C2)+2", 2)
    >>> t.render(3), t.render(10)
    ('=A3*$B$1+SUM(C2:C3)+2', '=A10*$B$1+SUM(C9:C10)+2')
    >>> RowTemplate.of("=$A$2*$B$3", 2).render(4), RowTemplate.of("=$A$2*$B$3", 2, own=True).render(4)
    ('=$A$2*$B$3', '=$A$4*$B$3')
    """

    __slots__ = ("count", "fmt", "offsets", "same")

    def __init__(self, segments: list[str], offsets: list[int]) -> None:
        self.offsets, self.count = offsets, len(offsets)
        self.fmt = "%d".join(seg.replace("%", "%%") for seg in segments)
        self.same = offsets[0] if offsets and len(set(offsets)) == 1 else None

    @classmethod
    def of(cls, text: str, row: int, own: bool = False) -> RowTemplate:
        mine = set(_own_row_dollars(text, row)) if own else set()
        spans = []
        for m in KEY_RE.finditer(text):
            kind = m.lastgroup
            if kind == "r" and (not m["rd"] or m.start("rd") in mine):
                spans.append(m.span("r"))
            elif kind == "w2":
                spans.extend(
                    m.span(g) for g, d in (("w1", "w1d"), ("w2", "w2d")) if not m[d] or m.start(d) in mine
                )
        segments, offsets, pos = [], [], 0
        for a, b in spans:
            segments.append(text[pos:a])
            offsets.append(int(text[a:b]) - row)
            pos = b
        segments.append(text[pos:])
        return cls(segments, offsets)

    def render(self, row: int) -> str:
        if self.same is not None:
            return self.fmt % ((row + self.same,) * self.count)
        return self.fmt % tuple([row + off for off in self.offsets])
