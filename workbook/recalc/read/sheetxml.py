"""Read one worksheet part: cell values, formulas, and where each formula cell sits in the bytes.

One expat pass collects every cell's cached value (numbers apart from the rest, so they load into
numpy in bulk) and, for formula cells, the formula text (shared formulas as master + children),
the cached value, and the byte offsets of the ``<c>``, ``<f>`` and ``<v>`` elements so that
:mod:`.writer` can patch values into the original bytes without re-serialising anything.
"""

from __future__ import annotations

from gputco.workbook.recalc.base.errors import WorkbookFormatError
from gputco.workbook.recalc.base.refs import MAX_COL, MAX_ROW, cell_name, col_index
from gputco.workbook.recalc.read import xmlsafe
from gputco.workbook.recalc.read.cells import (
    _NAMESPACES,
    SheetPart,
    _add_formula,
    _add_spill,
    _OpenAreas,
    decode,
    xstring,
)
from gputco.workbook.recalc.read.sheetscan import scan

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


def read_sheet(name: str, path: str, data: bytes, strings: list[str]) -> SheetPart:
    """Parse a worksheet part.

    >>> xml = (b'<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
    ...        b'<sheetData><row r="1"><c r="A1"><v>2</v></c><c r="B1" t="s"><v>0</v></c>'
    ...        b'<c r="C1"><f>A1*2</f><v>4</v></c></row></sheetData></worksheet>')
    >>> part = read_sheet("S", "xl/worksheets/sheet1.xml", xml, ["hello"])
    >>> part.num_vals, part.obj_vals, [(f.row, f.col, f.text, f.cached) for f in part.formulas]
    ([2.0, 4.0], ['hello'], [(1, 3, 'A1*2', 4.0)])
    """
    fast = scan(name, path, data, strings)  # the same reading at C speed, for the plain grammar
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
            out.append(xstring("".join(cur)))
        elif tag in rph_tags:
            st["rph"] = False

    def chars(text):
        if st["buf"] is not None:
            st["buf"].append(text)

    p = xmlsafe.make_parser()
    p.StartElementHandler, p.EndElementHandler, p.CharacterDataHandler = start, end, chars
    xmlsafe.run(p, data, path)
    return out
