"""Read one worksheet part: cell values, formulas, and where each formula cell sits in the bytes.

One expat pass collects every cell's cached value (numbers apart from the rest, so they load into
numpy in bulk) and, for formula cells, the formula text (shared formulas as master + children),
the cached value, and the byte offsets of the ``<c>``, ``<f>`` and ``<v>`` elements so that
:mod:`.writer` can patch values into the original bytes without re-serialising anything.
"""

from __future__ import annotations

import datetime as _dt
from bisect import bisect_right
from dataclasses import dataclass, field

from gputco.workbook.recalc.formula.refs import MAX_COL, MAX_ROW, cell_name, col_index
from gputco.workbook.recalc.read import xmlsafe
from gputco.workbook.recalc.run.errors import WorkbookFormatError
from gputco.workbook.recalc.run.values import error

_NAMESPACES = (
    "http://schemas.openxmlformats.org/spreadsheetml/2006/main",
    "http://purl.oclc.org/ooxml/spreadsheetml/main",
)
SHEETDATA, ROW, C, F, V, IS, T, RPH = range(8)
_TAGS = {
    f"{ns} {local}": code
    for ns in _NAMESPACES
    for local, code in (
        ("sheetData", SHEETDATA),
        ("row", ROW),
        ("c", C),
        ("f", F),
        ("v", V),
        ("is", IS),
        ("t", T),
        ("rPh", RPH),
    )
}
_EPOCH = _dt.datetime(1899, 12, 30)


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
    f_end_event: int  # expat's offset at the end of <f> (see writer.element_end)
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


def read_sheet(name: str, path: str, data: bytes, strings: list[str]) -> SheetPart:
    """Parse a worksheet part.

    >>> xml = (b'<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
    ...        b'<sheetData><row r="1"><c r="A1"><v>2</v></c><c r="B1" t="s"><v>0</v></c>'
    ...        b'<c r="C1"><f>A1*2</f><v>4</v></c></row></sheetData></worksheet>')
    >>> part = read_sheet("S", "xl/worksheets/sheet1.xml", xml, ["hello"])
    >>> part.num_vals, part.obj_vals, [(f.row, f.col, f.text, f.cached) for f in part.formulas]
    ([2.0, 4.0], ['hello'], [(1, 3, 'A1*2', 4.0)])
    """
    from gputco.workbook.recalc.read.sheetscan import (
        scan,  # the same reading at C speed, for the plain grammar
    )

    fast = scan(name, path, data, strings)
    if fast is not None:
        return fast
    part = SheetPart(name, path, data)
    p = xmlsafe.make_parser()
    tags = _TAGS
    cols: dict[str, int] = {}
    num_rows, num_cols, num_vals = part.num_rows, part.num_cols, part.num_vals
    obj_rows, obj_cols, obj_vals = part.obj_rows, part.obj_cols, part.obj_vals
    in_data = rph = False
    row = col = c_start = v_start = v_end = max_row = max_col = 0
    t = "n"
    cm = None  # the cell's cm attribute (cell metadata: dynamic arrays)
    areas = _OpenAreas(name)  # multi-cell array formula refs that reach the current row
    v = buf = inline = f = None  # f: [attrs, f_start, f_end_event, text] of the current cell

    def start(tag, attrs):
        nonlocal in_data, rph, row, col, c_start, v_start, v_end, t, v, buf, inline, f, cm
        code = tags.get(tag)
        if code is None or not (in_data or code == SHEETDATA):
            return
        if code == C:
            r = attrs.get("r")
            if r is not None:
                letters = r.rstrip("0123456789")
                digits = r[len(letters) :]
                col = cols.get(letters) or cols.setdefault(letters, _column(letters, r, name))
                row = int(digits) if digits.isdigit() and digits.isascii() else 0
                if not 0 < row <= MAX_ROW:
                    raise WorkbookFormatError(
                        f"sheet {name!r} has a cell with a bad reference {r!r} (rows are 1 to {MAX_ROW})"
                    )
            else:
                col += 1
                if col > MAX_COL:
                    raise WorkbookFormatError(f"sheet {name!r} row {row} has more than {MAX_COL} cells")
            c_start = p.CurrentByteIndex
            t = attrs.get("t", "n")
            cm = attrs.get("cm")
            v = inline = f = None
            v_start = v_end = -1
        elif code == V:
            v_start = p.CurrentByteIndex
            buf = []
        elif code == F:
            f = [attrs, p.CurrentByteIndex, -1, None]
            buf = []
        elif code == ROW:
            r = attrs.get("r")
            if r:
                if not (r.isascii() and r.isdigit() and 0 < int(r) <= MAX_ROW):
                    raise WorkbookFormatError(
                        f"sheet {name!r} has a row with a bad number {r!r} (rows are 1 to {MAX_ROW})"
                    )
                row = int(r)
            else:
                row += 1
                if row > MAX_ROW:
                    raise WorkbookFormatError(f"sheet {name!r} has more than {MAX_ROW} rows")
            col = 0
            if attrs.get("hidden") in ("1", "true"):
                part.hidden_rows.append(row)
        elif code == IS:
            inline = []
        elif code == T and inline is not None and not rph:
            buf = []
        elif code == RPH:
            rph = True
        elif code == SHEETDATA:
            in_data = True

    def chars(text):
        if buf is not None:
            buf.append(text)

    def end(tag):
        nonlocal in_data, rph, v_end, v, buf, max_row, max_col
        code = tags.get(tag)
        if code is None or not in_data:
            return
        if code == C:
            try:
                value = decode(t, v, inline, strings, f is not None)
            except (ValueError, IndexError) as err:
                raise WorkbookFormatError(f"{name}!{cell_name(row, col)}: {err}") from None
            if row > max_row:
                max_row = row
            if col > max_col:
                max_col = col
            if f is not None:
                _add_formula(part, row, col, c_start, f, value, v_start, v_end, cm, areas)
            elif areas:
                _add_spill(part, row, col, c_start, value, v_start, v_end, areas)
            if value is None:
                return
            if type(value) is float:
                num_rows.append(row)
                num_cols.append(col)
                num_vals.append(value)
            else:
                obj_rows.append(row)
                obj_cols.append(col)
                obj_vals.append(value)
        elif code == V:
            v_end = p.CurrentByteIndex
            v = "".join(buf)
            buf = None
        elif code == F:
            f[2] = p.CurrentByteIndex
            f[3] = "".join(buf)
            buf = None
        elif code == T and inline is not None and buf is not None:
            inline.append("".join(buf))
            buf = None
        elif code == RPH:
            rph = False
        elif code == SHEETDATA:
            in_data = False

    p.StartElementHandler, p.EndElementHandler, p.CharacterDataHandler = start, end, chars
    xmlsafe.run(p, data, path)
    part.max_row, part.max_col = max_row, max_col
    return part


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
        return "".join(inline or [])
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
        return v
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


def _float(v: str) -> float:
    try:
        return float(v)
    except ValueError:
        raise ValueError(f"the stored value {v[:40]!r} is not a number") from None


def _column(letters: str, ref: str, sheet: str) -> int:
    """The column of a cell reference's letters, or WorkbookFormatError for a bad reference."""
    col = col_index(letters) if letters.isascii() and letters.isalpha() and len(letters) <= 3 else 0
    if not 0 < col <= MAX_COL:
        raise WorkbookFormatError(
            f"sheet {sheet!r} has a cell with a bad reference {ref!r} (columns are A to XFD)"
        )
    return col


def read_shared_strings(data: bytes, path: str) -> list[str]:
    """The shared string table: plain and rich text items, phonetic runs left out.

    >>> ns = b'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"'
    >>> read_shared_strings(b'<sst ' + ns + b'><si><t>a</t></si><si><r><t>b</t></r><r><t>c</t>'
    ...                     b'</r><rPh><t>x</t></rPh></si></sst>', "sst")
    ['a', 'bc']
    """
    out: list[str] = []
    cur: list[str] = []
    st = {"buf": None, "rph": False}
    si_tags = {f"{ns} si" for ns in _NAMESPACES}
    t_tags = {f"{ns} t" for ns in _NAMESPACES}
    rph_tags = {f"{ns} rPh" for ns in _NAMESPACES}

    def start(tag, _attrs):
        if tag in t_tags and not st["rph"]:
            st["buf"] = []
        elif tag in si_tags:
            cur.clear()
        elif tag in rph_tags:
            st["rph"] = True

    def end(tag):
        if tag in t_tags and st["buf"] is not None:
            cur.append("".join(st["buf"]))
            st["buf"] = None
        elif tag in si_tags:
            out.append("".join(cur))
        elif tag in rph_tags:
            st["rph"] = False

    def chars(text):
        if st["buf"] is not None:
            st["buf"].append(text)

    p = xmlsafe.make_parser()
    p.StartElementHandler, p.EndElementHandler, p.CharacterDataHandler = start, end, chars
    xmlsafe.run(p, data, path)
    return out
