"""Structured references to Excel tables (``Table1[Amount]``), rewritten into plain references.

A table part (``xl/tables/tableN.xml``) gives the table's name, its range, how many header and
totals rows it has, and its column names. Before a formula is parsed, every structured reference
in it becomes the A1 range it stands for, on the table's sheet:

- ``T[Col]`` / ``T[[Col1]:[Col2]]``: the data rows of those columns; ``T[]`` or ``T[#Data]`` all
  data rows; ``T[#All]``, ``T[#Headers]``, ``T[#Totals]`` and combinations such as
  ``T[[#Headers],[#Data],[Col]]``;
- ``T[[#This Row],[Col]]`` or ``T[@Col]`` (and ``[@Col]`` inside the table): the cell of the
  formula's own row (#VALUE! on a row outside the table's data, as in Excel);
- a bare table name (``VLOOKUP(x, Table1, 2, FALSE)``) is its data rows;
- column names escape ``[ ] # '`` with a leading ``'``; names match case-insensitively.

A reference to an unknown table or column becomes #REF!.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gputco.workbook.recalc.base.refs import col_letters


@dataclass(frozen=True)
class Table:
    name: str
    sheet: str
    top: int
    left: int
    bottom: int
    right: int
    header_rows: int
    totals_rows: int
    columns: tuple[str, ...]

    @property
    def data(self) -> tuple[int, int]:
        return self.top + self.header_rows, self.bottom - self.totals_rows


_NAME = re.compile(r"[A-Za-z_\\][A-Za-z0-9_.\\]*$")


def expand(text: str, tables: dict[str, Table], sheet: str, row: int, col: int) -> str:
    """``text`` with its structured references replaced by A1 references (or #REF!/#VALUE!)."""
    if not tables or ("[" not in text and not any(n in text.upper() for n in tables)):
        return text
    out, i, n = [], 0, len(text)
    while i < n:
        ch = text[i]
        if ch == '"':  # string literal: copied as is
            j = i + 1
            while j < n:
                if text[j] == '"':
                    if j + 1 < n and text[j + 1] == '"':
                        j += 2
                        continue
                    break
                j += 1
            out.append(text[i : j + 1])
            i = j + 1
            continue
        if ch == "[":
            end = _closing(text, i)
            if end is None or (end + 1 < n and (text[end + 1].isalnum() or text[end + 1] in "'!")):
                out.append(ch)  # not structured (an external workbook reference [1]Sheet1!A1)
                i += 1
                continue
            prefix = "".join(out)
            m = _NAME.search(prefix)
            name = m.group(0) if m and not (m.start() > 0 and prefix[m.start() - 1] in "'!") else ""
            table = tables.get(name.upper()) if name else _containing(tables, sheet, row, col)
            if name and table is None:
                out.append(ch)  # an ordinary name followed by "[": leave it to the parser
                i += 1
                continue
            if name:
                out = [prefix[: m.start()]]
            out.append(_resolve(table, text[i + 1 : end], row))
            i = end + 1
            continue
        if (ch.isalpha() or ch == "_") and (
            i == 0 or not (text[i - 1].isalnum() or text[i - 1] in "_.'!$\\")
        ):
            m = _WORD.match(text, i)
            word = m.group(0)
            after = text[m.end() : m.end() + 1]
            table = tables.get(word.upper())
            if table is not None and after not in ("[", "(", "!"):
                out.append(_resolve(table, "", row))  # a bare table name: its data rows
            else:
                out.append(word)
            i = m.end()
            continue
        out.append(ch)
        i += 1
    return "".join(out)


_WORD = re.compile(r"[A-Za-z_\\][A-Za-z0-9_.\\]*")


def _closing(text: str, i: int) -> int | None:
    depth, j = 0, i
    while j < len(text):
        ch = text[j]
        if ch == "'" and j + 1 < len(text):
            j += 2  # an escaped character in a column name
            continue
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
            if depth == 0:
                return j
        j += 1
    return None


def _containing(tables, sheet: str, row: int, col: int) -> Table | None:
    for t in tables.values():
        if t.sheet.upper() == sheet.upper() and t.top <= row <= t.bottom and t.left <= col <= t.right:
            return t
    return None


def _items(spec: str) -> list[str]:
    """The bracketed items of ``[[#Headers],[Col]]`` (or the single item of ``[Col]``)."""
    spec = spec.strip()
    if not spec.startswith("["):
        return [spec] if spec else []
    items, i = [], 0
    while i < len(spec):
        if spec[i] == "[":
            end = _closing(spec, i)
            if end is None:
                return []
            items.append(spec[i + 1 : end])
            i = end + 1
        elif spec[i] == ":":
            items.append(":")
            i += 1
        else:
            i += 1
    return items


def _unescape(name: str) -> str:
    return _key(re.sub(r"'(.)", r"\1", name, flags=re.S))


def _key(name: str) -> str:
    """A column name as matched: OOXML ``_x000a_`` escapes decoded, runs of white space (line
    breaks in headers, trailing spaces) as one space, case ignored.

    >>> _key("Purchase_x000a_ price"), _key("Field 4 ")
    ('PURCHASE PRICE', 'FIELD 4')
    """
    name = re.sub(r"_x([0-9A-Fa-f]{4})_", lambda m: chr(int(m.group(1), 16)), name)
    return " ".join(name.split()).upper()


def _resolve(table: Table | None, spec: str, row: int) -> str:
    if table is None:
        return "#REF!"
    this_row = spec.startswith("@")
    if this_row:
        spec = spec[1:]
        spec = spec if spec.startswith("[") or not spec else f"[{spec}]"
    items = _items(spec)
    specials = {x.upper() for x in items if x.startswith("#")}
    if "#THIS ROW" in specials:
        this_row = True
    cols = [x for x in items if not x.startswith("#")]
    names = [_key(c) for c in table.columns]
    if ":" in cols:
        k = cols.index(":")
        ends = [_unescape(cols[k - 1]), _unescape(cols[k + 1])]
        if any(e not in names for e in ends):
            return "#REF!"
        a, b = sorted(names.index(e) for e in ends)
    elif cols:
        c = _unescape(cols[0])
        if c not in names:
            return "#REF!"
        a = b = names.index(c)
    else:
        a, b = 0, len(names) - 1
    first, last = table.data
    if this_row:
        if not first <= row <= last:
            return "#VALUE!"
        top = bottom = row
    else:
        parts = specials - {"#THIS ROW"} or {"#DATA"}
        if "#ALL" in parts:
            top, bottom = table.top, table.bottom
        else:
            rows = []
            if "#HEADERS" in parts and table.header_rows:
                rows += [table.top, table.top + table.header_rows - 1]
            if "#DATA" in parts:
                rows += [first, last]
            if "#TOTALS" in parts and table.totals_rows:
                rows += [table.bottom - table.totals_rows + 1, table.bottom]
            if not rows:
                return "#REF!"
            top, bottom = min(rows), max(rows)
    quoted = "'" + table.sheet.replace("'", "''") + "'"
    c1, c2 = col_letters(table.left + a), col_letters(table.left + b)
    row_part = (f"{c1}{top}", f"{c2}{bottom}") if this_row else (f"${c1}${top}", f"${c2}${bottom}")
    if row_part[0] == row_part[1]:
        return f"{quoted}!{row_part[0]}"
    return f"{quoted}!{row_part[0]}:{row_part[1]}"
