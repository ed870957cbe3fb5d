"""What the sheet readers give: a worksheet part's cells (:class:`SheetPart`, :class:`FormulaCell`),
and the one decoder of a cell's stored value (:func:`decode`).

Both readers fill these: the regex fast path (:mod:`.sheetscan`) and expat (:mod:`.sheetxml`),
which :func:`.sheetxml.read_sheet` tries in that order; batch input streams rows with the same
decoder (:mod:`.stream`).
"""

from __future__ import annotations

import datetime as _dt
import math
import re
from bisect import bisect_right
from dataclasses import dataclass, field

from gputco.workbook.recalc.base.errors import WorkbookFormatError
from gputco.workbook.recalc.base.refs import MAX_COL, MAX_ROW, cell_name, col_index
from gputco.workbook.recalc.base.values import error

_NAMESPACES = (
    "http://schemas.openxmlformats.org/spreadsheetml/2006/main",
    "http://purl.oclc.org/ooxml/spreadsheetml/main",
)


_EPOCH = _dt.datetime(1899, 12, 30)

#: ECMA-376's escape of a character in a string (ST_Xstring, Part 1, 22.9.2.19): ``_xHHHH_`` is
#: the character of code HHHH (Excel writes control characters so: CHAR(1) is ``_x0001_``, and
#: a literal "_x0001_" as ``_x005F_x0001_``)
_XSTRING_ESCAPE = re.compile(r"_x([0-9A-Fa-f]{4})_")


def xstring(text: str) -> str:
    """A string as the file stores it, its ``_xHHHH_`` escapes decoded.

    >>> xstring("_x0001_"), xstring("_x005F_x0001_"), xstring("a_b")
    ('\\x01', '_x0001_', 'a_b')
    """
    if "_x" not in text:
        return text
    return _XSTRING_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), text)


@dataclass(slots=True)
class FormulaCell:
    """A cell with a formula, as found in the sheet part."""

    row: int
    col: int
    text: str | None  # None for the children of a shared formula
    kind: str  # "normal", "shared", "array", "dataTable"
    si: str | None  # shared formula index
    ref: str | None  # range of a shared or array formula master
    cached: object  # the value stored in the file (None when absent)
    c_start: int  # byte offset of "<c"
    f_start: int
    f_end_event: int  # expat's offset at the end of <f> (see write/cellxml.element_end)
    v_start: int = -1
    v_end_event: int = -1
    dynamic: bool = False  # a dynamic-array formula (Excel 365: the <c> has a cm attribute)


@dataclass
class SheetPart:
    """Everything read from one worksheet part."""

    name: str
    path: str
    data: bytes
    max_row: int = 0
    max_col: int = 0
    exact_ends: bool = False  # f_end_event/v_end_event are just past the elements (sheetscan)
    num_rows: list[int] = field(default_factory=list)
    num_cols: list[int] = field(default_factory=list)
    num_vals: list[float] = field(default_factory=list)
    obj_rows: list[int] = field(default_factory=list)
    obj_cols: list[int] = field(default_factory=list)
    obj_vals: list[object] = field(default_factory=list)
    formulas: list[FormulaCell] = field(default_factory=list)
    hidden_rows: list[int] = field(default_factory=list)  # <row hidden="1">: SUBTOTAL(10x, ...)
    #: multi-cell array formulas: (top, left, bottom, right) of each ref, in master order; the
    #: other cells of a ref are listed in ``formulas`` as kind "spill" (ref: the master's A1)
    array_areas: list[tuple[int, int, int, int]] = field(default_factory=list)


def _add_formula(
    part: SheetPart,
    row: int,
    col: int,
    c_start: int,
    f: list,
    value: object,
    v_start: int,
    v_end: int,
    cm: str | None = None,
    areas: list | None = None,
) -> None:
    attrs, f_start, f_end, text = f
    kind = attrs.get("t", "normal")
    if (
        areas
        and not text
        and kind == "normal"
        and _add_spill(part, row, col, c_start, value, v_start, v_end, areas)
    ):
        return  # an empty <f/> inside an array formula's block (Excel writes them for CELL)
    si = attrs.get("si")
    ref = attrs.get("ref")
    if kind == "shared" and not ref and si is not None:
        text = None
    part.formulas.append(
        FormulaCell(
            row, col, text, kind, si, ref, value, c_start, f_start, f_end, v_start, v_end, cm is not None
        )
    )
    if kind == "array" and ref and ":" in ref and areas is not None:
        area = area_of(ref)
        if area is not None and area[:2] == (row, col) and area[2:] != (row, col):
            part.array_areas.append(area)
            areas.add(area, cell_name(row, col))


def _add_spill(
    part: SheetPart,
    row: int,
    col: int,
    c_start: int,
    value: object,
    v_start: int,
    v_end: int,
    areas: _OpenAreas,
) -> bool:
    """A cell inside a multi-cell array formula's ref (no formula of its own): listed so that the
    writer can patch its value. False if the cell is in no such ref."""
    master = areas.find(row, col)
    if master is None:
        return False
    part.formulas.append(
        FormulaCell(row, col, None, "spill", None, master, value, c_start, -1, -1, v_start, v_end)
    )
    return True


class _OpenAreas:
    """The blocks of multi-cell array formulas that reach the row being read, sorted by their
    left column (blocks do not overlap in a valid file: a cell is looked up in the nearest block
    starting at or left of its column)."""

    #: blocks reaching one row at once; more is not a spreadsheet anyone made
    LIMIT = 100_000

    def __init__(self, sheet: str) -> None:
        self.sheet = sheet
        self.lefts: list[int] = []
        self.blocks: list[tuple[int, int, int, str]] = []  # (left, right, bottom, master)
        self.row = 0

    def __bool__(self) -> bool:
        return bool(self.blocks)

    def add(self, area: tuple[int, int, int, int], master: str) -> None:
        top, left, bottom, right = area
        if len(self.blocks) >= self.LIMIT:
            raise WorkbookFormatError(
                f"sheet {self.sheet!r} has more than {self.LIMIT:,} array "
                f"formulas over several cells reaching row {top}"
            )
        i = bisect_right(self.lefts, left)
        self.lefts.insert(i, left)
        self.blocks.insert(i, (left, right, bottom, master))

    def find(self, row: int, col: int) -> str | None:
        if row != self.row:  # drop the blocks that ended above this row
            self.row = row
            if any(b[2] < row for b in self.blocks):
                self.blocks = [b for b in self.blocks if b[2] >= row]
                self.lefts = [b[0] for b in self.blocks]
        i = bisect_right(self.lefts, col) - 1
        if i < 0:
            return None
        _, right, _, master = self.blocks[i]
        return master if col <= right else None


def area_of(ref: str) -> tuple[int, int, int, int] | None:
    """(top, left, bottom, right) of an A1 range such as ``B2:D4`` (None when malformed).

    >>> area_of("B2:D4"), area_of("$A$1:A3"), area_of("A1:"), area_of("B2")
    ((2, 2, 4, 4), (1, 1, 3, 1), None, (2, 2, 2, 2))
    """
    ends = []
    for part in ref.replace("$", "").split(":"):
        letters = part.rstrip("0123456789")
        digits = part[len(letters) :]
        if not (
            letters.isascii()
            and letters.isalpha()
            and len(letters) <= 3
            and digits.isascii()
            and digits.isdigit()
        ):
            return None
        ends.append((int(digits), col_index(letters)))
    if len(ends) > 2 or not all(0 < r <= MAX_ROW and 0 < c <= MAX_COL for r, c in ends):
        return None
    (r1, c1), (r2, c2) = ends[0], ends[-1]
    return min(r1, r2), min(c1, c2), max(r1, r2), max(c1, c2)


def decode(t: str, v: str | None, inline: list[str] | None, strings: list[str], formula: bool) -> object:
    if t == "inlineStr":
        return xstring("".join(inline or []))
    if v is None:
        return "" if (t == "str" and formula) else None
    if t == "n":
        return _float(v) if v.strip() else None
    if t == "s":
        text = v.strip()
        i = int(text) if text.isdigit() and text.isascii() else -1
        if not 0 <= i < len(strings):
            raise IndexError(f"shared string {v.strip()} does not exist (the table has {len(strings)})")
        return strings[i]
    if t == "str":
        return xstring(v)
    if t == "b":
        return v.strip() in ("1", "true")
    if t == "e":
        return error(v)
    if t == "d":
        try:
            return (_dt.datetime.fromisoformat(v) - _EPOCH).total_seconds() / 86400.0
        except ValueError:
            return v
    return _float(v) if v.strip() else None


#: a stored number as the file format writes it: xsd:double's lexical form (ECMA-376 Part 1,
#: 18.3.1.96, the v element; XML Schema 2, 3.2.5) without INF and NaN, which Excel never writes;
#: Python's float() would also take "1_000", "nan", "-Infinity" and digits of other scripts
NUMBER = re.compile(r"\s*[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\s*")
_NUMBER_BYTES = re.compile(NUMBER.pattern.encode())


def _float(v: str) -> float:
    """A stored number, by the file format's grammar: anything else (``1_000``, ``nan``,
    ``-Infinity``) and a number no float holds (``1e309``) is refused, not read as Python reads
    it (LibreOffice reads ``1_000`` as 1: gputco says so instead)."""
    x = float(v) if NUMBER.fullmatch(v) else math.nan
    if not math.isfinite(x):
        raise ValueError(
            f"the stored value {v[:40]!r} is not a number as the file format writes one "
            "(xsd:double: digits, a point, an exponent; finite)"
        )
    return x


def numbers(texts) -> list[float]:
    """:func:`_float` of many stored numbers (bytes or str) at once: float() of each, then the
    grammar checked only where float() took something the grammar does not (an underscore,
    letters other than an exponent's e, a non-finite result)."""
    out = list(map(float, texts))
    if not all(map(math.isfinite, out)) or any(
        b"_" in t if isinstance(t, bytes) else "_" in t for t in texts
    ):
        for t in texts:
            _float(t.decode("utf-8", "replace") if isinstance(t, bytes) else t)
    return out
