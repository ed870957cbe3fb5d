"""Worksheet rows as XML, a column at a time: how every kind of cell is written, in one place.

Both writers of many rows call :func:`rows_xml`: :class:`gputco.workbook.xlsx.stream.XlsxStream` (a new
package; ``gputco batch``) and :func:`gputco.workbook.xlsx.rowfill.fill_rows` (rows spliced into a
package openpyxl saved; ``gputco scenarios``). The rules are those of the recalculation engine's
writer (:func:`gputco.workbook.recalc.write.cellxml.value_xml`), so a cached value written here is the one a
recalculation writes, byte for byte:

- number: ``<c r="B7"><v>2</v></c>`` (no ``t``); a whole number below 1e16 as an integer, any
  other the shortest text that reads back the same double (Python's ``repr``); NaN and
  infinities are no cell (a spreadsheet has no such number);
- text: ``t="s"`` and its index in the shared-string table, or ``t="inlineStr"`` with the text
  in the cell, as the package chooses (:class:`SharedStrings`, :class:`InlineStrings`); text is
  never a formula, even when it starts with ``=``;
- boolean: ``t="b"``, 1 or 0; error (:class:`gputco.workbook.recalc.base.values.XlError`): ``t="e"``, its code;
- empty (None, a null): no ``<c>`` at all;
- formula: ``<f>`` without the ``=``, then its cached value written as that value alone would be
  (number without ``t``, text ``t="str"``, boolean ``t="b"``, error ``t="e"``; a NaN or infinity
  is ``#NUM!``); an unknown value (None) writes no ``<v>``, for a recalculation to fill in;
- one escape for every text (cell text, formula, cached text): ``&``, ``<``, ``>`` as entities
  and the characters XML 1.0 cannot hold as Excel's ``_xHHHH_``; a ``<t>`` whose text starts
  or ends with white space says ``xml:space="preserve"`` (as Excel and openpyxl write it).

Columns are formatted in bulk with Arrow's string kernels where pyarrow is installed: a block of
numbers, repeated texts or formulas of one shape costs no Python work per cell. Without pyarrow
(the core install) the same cells come from the same rules one cell at a time
(:func:`rows_xml_python`, byte for byte the same XML: tests/test_xlsx_sheetrows.py), slower.

>>> rows_xml(2, 2, [(1, np.array([1.5, 2.0]), 0), (2, ["a&b", None], 3),
...                 (3, FormulaColumn("A{r}*2", [3.0, "x"]), 0)], InlineStrings()).decode()
... # doctest: +NORMALIZE_WHITESPACE
'<row r="2"><c r="A2"><v>1.5</v></c><c r="B2" s="3" t="inlineStr"><is><t>a&amp;b</t></is></c>\
<c r="C2"><f>A2*2</f><v>3</v></c></row><row r="3"><c r="A3"><v>2</v></c>\
<c r="C3" t="str"><f>A3*2</f><v>x</v></c></row>'
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


@dataclass(frozen=True)
class Formula:
    """One formula cell (the leading ``=`` optional) and the value it holds until recalculated."""

    text: str
    cached: object = None


@dataclass(frozen=True)
class TextCodes:
    """A column of texts as codes into its distinct texts (``texts[codes[i]]`` is row i's)."""

    codes: np.ndarray
    texts: list[str]

    def __getitem__(self, rows: slice) -> TextCodes:
        return TextCodes(self.codes[rows], self.texts)


@dataclass(frozen=True)
class FormulaColumn:
    """A column of formulas of one shape: ``template`` with ``{r}`` for the row number (other
    braces are the formula's own), and the cached values: ``cached``, one value per row, or
    ``xml``, already written as ``(t attribute or None, text of <v>)`` lists of bytes
    (:func:`gputco.workbook.recalc.write.patch.column_xml`); neither: no cached values."""

    template: str
    cached: Sequence | None = None
    xml: tuple[Sequence, Sequence] | None = None


def column_letter(j: int) -> str:
    """Letters of 1-based column ``j``: 1 -> A, 28 -> AB."""
    s = ""
    while j:
        j, rem = divmod(j - 1, 26)
        s = chr(65 + rem) + s
    return s


def clean_text(text: str) -> str:
    """Text as XML character data: ``&<>`` as entities, control characters as ``_xHHHH_``.

    >>> clean_text("a<b & bell\\x07")
    'a&lt;b &amp; bell_x0007_'
    """
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    if _ILLEGAL.search(text):
        text = _ILLEGAL.sub(lambda m: f"_x{ord(m.group()):04X}_", text)
    return text


def t_element(text: str) -> str:
    """A ``<t>`` element holding ``text`` (a shared string's or an inline string's)."""
    if text[:1] in (" ", "\t", "\n", "\r") or text[-1:] in (" ", "\t", "\n", "\r"):
        return f'<t xml:space="preserve">{clean_text(text)}</t>'
    return f"<t>{clean_text(text)}</t>"


def number_text(v: float) -> str:
    """A finite number as the text of ``<v>``: whole numbers below 1e16 as integers, others
    the shortest text that reads back the same double.

    >>> number_text(2.0), number_text(-0.0), number_text(0.1), number_text(1e16)
    ('2', '0', '0.1', '1e+16')
    """
    if v.is_integer() and abs(v) < 1e16:
        return str(int(v))
    return repr(v)


def number_texts(values):
    """:func:`number_text` of every value of a numeric array, in bulk (a pyarrow string array);
    null where the value is NaN, infinite or null."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    x = pc.cast(values if isinstance(values, pa.Array) else pa.array(values), pa.float64()).to_numpy(
        zero_copy_only=False
    )  # nulls are NaN
    finite = np.isfinite(x)
    safe = np.where(finite, x, 0.0)
    out = pc.cast(pa.array(safe), pa.string())  # Arrow's shortest round-trip digits
    # where Arrow's text differs: it writes 1e+10 for 10000000000 and -0 for 0 (whole numbers
    # below 1e16 are integers here), 1.5e+10 for 15000000000.5 and 0.000015 for 1.5e-05 (the
    # others as repr); these few are rewritten
    size = np.abs(safe)
    whole = safe == np.floor(safe)
    ints = whole & (size < 1e16) & ((size >= 1e10) | (safe == 0) & np.signbit(safe))
    if ints.any():
        out = pc.replace_with_mask(
            out, pa.array(ints), pc.cast(pa.array(safe[ints].astype(np.int64)), pa.string())
        )
    odd = ~whole & ((size < 1e-4) | (size >= 1e10))
    if odd.any():
        out = pc.replace_with_mask(
            out, pa.array(odd), pa.array([repr(v) for v in safe[odd].tolist()], pa.string())
        )
    return out if finite.all() else pc.if_else(pa.array(finite), out, None)


def _error_code(v: object) -> str | None:
    """The code of an Excel error value (no error can exist before its module is loaded)."""
    values = sys.modules.get("gputco.workbook.recalc.base.values")
    return v.code if values is not None and isinstance(v, values.XlError) else None


def value_xml(v: object) -> tuple[str, str] | None:
    """(`` t="..."`` or "", text of ``<v>``) of a value, None for an empty cell (or an unknown
    cached value); a NaN or infinity is ``#NUM!``, the error a formula gives for one."""
    if v is None:
        return None
    if isinstance(v, bool | np.bool_):
        return ' t="b"', "1" if v else "0"
    if isinstance(v, int | float | np.integer | np.floating):
        v = float(v)
        return ("", number_text(v)) if np.isfinite(v) else (' t="e"', "#NUM!")
    code = _error_code(v)
    if code is not None:
        return ' t="e"', code
    return ' t="str"', clean_text(str(v))


class SharedStrings:
    """Text cells as indices into the package's shared-string table, kept here."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}

    def bodies(self, texts: list[str]) -> list[str]:
        """What follows ``<c r=".." s=".."`` in each text's cell (before ``</c>``)."""
        out = []
        for text in texts:
            k = self.index.get(text)
            if k is None:
                k = self.index[text] = len(self.index)
            out.append(f' t="s"><v>{k}</v>')
        return out

    def part(self) -> Iterator[bytes]:
        """``xl/sharedStrings.xml``, in pieces."""
        k = len(self.index)
        yield (
            f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<sst xmlns="{MAIN_NS}"'
            f' count="{k}" uniqueCount="{k}">'
        ).encode()
        items = [f"<si>{t_element(s)}</si>" for s in self.index]
        for i in range(0, k, 10_000):
            yield "".join(items[i : i + 10_000]).encode("utf-8")
        yield b"</sst>"


class InlineStrings:
    """Text cells holding their text (``t="inlineStr"``): no table to keep."""

    def bodies(self, texts: list[str]) -> list[str]:
        return [f' t="inlineStr"><is>{t_element(text)}</is>' for text in texts]


MAIN_NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
Strings = SharedStrings | InlineStrings


def rows_xml(first: int, n: int, columns: Sequence[tuple[int, object, int]], strings: Strings) -> bytes:
    """Rows ``first`` .. ``first + n - 1`` as ``<row>`` elements, UTF-8.

    ``columns``: (1-based column, its cells, style index or 0) in column order. The cells: a
    numeric numpy or Arrow array, an Arrow string or dictionary array, a boolean array, a
    :class:`FormulaColumn`, or a list of numbers, texts, booleans, errors, :class:`Formula`
    cells and None (empty).
    """
    try:
        import pyarrow as pa
        import pyarrow.compute as pc
    except ImportError:
        return rows_xml_python(first, n, columns, strings)
    rows = pc.cast(pa.array(np.arange(first, first + n, dtype=np.int64)), pa.string())
    cells = [
        _cells(column_letter(j), col, rows, f' s="{st}"' if st else "", strings) for j, col, st in columns
    ]
    return _string_bytes(pc.binary_join_element_wise('<row r="', rows, '">', *cells, "</row>", ""))


def _cells(letter: str, col, rows, s: str, strings: Strings):
    """The ``<c>`` elements of one column ("" for an empty cell) as an Arrow string array."""
    import pyarrow as pa
    import pyarrow.compute as pc

    ref = ('<c r="', letter, rows, f'"{s}')
    if isinstance(col, FormulaColumn):
        return _formula_cells(letter, s, col, rows)
    if isinstance(col, TextCodes):
        col = pa.DictionaryArray.from_arrays(
            pa.array(np.asarray(col.codes, dtype=np.int32)), pa.array(col.texts, pa.string())
        )
    if isinstance(col, pa.ChunkedArray):
        col = col.combine_chunks()
    if isinstance(col, np.ndarray) and col.dtype.kind in "fiub":
        col = pa.array(col)
    elif isinstance(col, np.ndarray):  # texts and None: as a string array, else cell by cell
        try:
            col = pa.array(col, pa.string())
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            col = col.tolist()
    if isinstance(col, pa.Array):
        if pa.types.is_floating(col.type) or pa.types.is_integer(col.type):
            xml = pc.binary_join_element_wise(*ref, "><v>", number_texts(col), "</v></c>", "")
            return pc.fill_null(xml, "")
        if pa.types.is_boolean(col.type):
            xml = pc.binary_join_element_wise(*ref, ' t="b"><v>', pc.if_else(col, "1", "0"), "</v></c>", "")
            return pc.fill_null(xml, "")
        if (
            pa.types.is_string(col.type)
            or pa.types.is_large_string(col.type)
            or pa.types.is_dictionary(col.type)
        ):
            enc = col if pa.types.is_dictionary(col.type) else col.cast(pa.string()).dictionary_encode()
            body = pa.array(strings.bodies([str(t) for t in enc.dictionary.to_pylist()]), pa.string())
            xml = pc.binary_join_element_wise(*ref, body.take(enc.indices), "</c>", "")
            return pc.fill_null(xml, "")
        col = col.to_pylist()
    return pa.array(
        [_cell(f"{letter}{r}", v, s, strings) for r, v in zip(rows.to_pylist(), col, strict=True)],
        pa.string(),
    )


def rows_xml_python(
    first: int, n: int, columns: Sequence[tuple[int, object, int]], strings: Strings
) -> bytes:
    """:func:`rows_xml` without pyarrow: every cell by :func:`_cell`'s rules, one at a time."""
    rows = list(range(first, first + n))
    cells = [
        _cells_python(column_letter(j), col, rows, f' s="{st}"' if st else "", strings)
        for j, col, st in columns
    ]
    out = [
        f'<row r="{r}">' + "".join(c) + "</row>" for r, c in zip(rows, zip(*cells, strict=True), strict=True)
    ]
    return "".join(out).encode("utf-8")


def _cells_python(letter: str, col, rows: list[int], s: str, strings: Strings) -> list[str]:
    if isinstance(col, FormulaColumn):
        return _formula_cells_python(letter, s, col, rows)
    if isinstance(col, TextCodes):
        bodies = strings.bodies(list(col.texts))
        return [
            f'<c r="{letter}{r}"{s}{bodies[k]}</c>' for r, k in zip(rows, col.codes.tolist(), strict=True)
        ]
    if isinstance(col, np.ndarray) and col.dtype.kind in "fiu":
        x = col.astype(float)
        ok = np.isfinite(x).tolist()
        return [
            f'<c r="{letter}{r}"{s}><v>{number_text(v)}</v></c>' if good else ""
            for r, v, good in zip(rows, x.tolist(), ok, strict=True)
        ]
    values = col.tolist() if isinstance(col, np.ndarray) else list(col)
    return [_cell(f"{letter}{r}", v, s, strings) for r, v in zip(rows, values, strict=True)]


def _formula_cells_python(letter: str, s: str, col: FormulaColumn, rows: list[int]) -> list[str]:
    pieces = _formula_text(col.template).split("{r}")
    if col.xml is not None:
        types, texts = col.xml
        if len(texts) != len(rows):
            raise ValueError(
                f"formula column {col.template!r}: {len(texts)} cached values for {len(rows)} rows"
            )
        out = []
        for r, t, v in zip(rows, types, texts, strict=True):
            t = "" if t is None else ' t="' + bytes(t).decode() + '"'
            out.append(f'<c r="{letter}{r}"{s}{t}><f>{str(r).join(pieces)}</f><v>{bytes(v).decode()}</v></c>')
        return out
    cached = [None] * len(rows) if col.cached is None else list(col.cached)
    if len(cached) != len(rows):
        raise ValueError(f"formula column {col.template!r}: {len(cached)} cached values for {len(rows)} rows")
    return [
        _formula_cell(f"{letter}{r}", s, col.template.replace("{r}", str(r)), c)
        for r, c in zip(rows, cached, strict=True)
    ]


def _cell(ref: str, v, s: str, strings: Strings) -> str:
    """One cell of a mixed column, by the same rules as the bulk paths."""
    if v is None:
        return ""
    if isinstance(v, Formula):
        return _formula_cell(ref, s, v.text, v.cached)
    if isinstance(v, bool | int | float | np.bool_ | np.integer | np.floating) or _error_code(v) is not None:
        if isinstance(v, float | np.floating) and not np.isfinite(v):
            return ""  # a spreadsheet has no such number
        t, x = value_xml(v)
        return f'<c r="{ref}"{s}{t}><v>{x}</v></c>'
    return f'<c r="{ref}"{s}{strings.bodies([str(v)])[0]}</c>'


def _formula_text(text: str) -> str:
    return clean_text(text[1:] if text.startswith("=") else text)


def _formula_cell(ref: str, s: str, text: str, cached) -> str:
    x = value_xml(cached)
    f = _formula_text(text)
    if x is None:
        return f'<c r="{ref}"{s}><f>{f}</f></c>'
    return f'<c r="{ref}"{s}{x[0]}><f>{f}</f><v>{x[1]}</v></c>'


def _formula_cells(letter: str, s: str, col: FormulaColumn, rows):
    """A formula column: the formula texts joined in bulk around the row numbers."""
    import pyarrow as pa
    import pyarrow.compute as pc

    n = len(rows)
    pieces = _formula_text(col.template).split("{r}")
    f = [pieces[0]]
    for piece in pieces[1:]:
        f += [rows, piece]
    head = ('<c r="', letter, rows, f'"{s}')
    if col.xml is not None:
        types, texts = col.xml
        t = pc.fill_null(
            pc.binary_join_element_wise(' t="', pa.array(types, pa.binary()).cast(pa.string()), '"', ""), ""
        )
        v = pa.array(texts, pa.binary()).cast(pa.string())
    elif isinstance(col.cached, np.ndarray) and col.cached.dtype.kind in "fiu":
        v = number_texts(pa.array(col.cached))
        t = pc.if_else(pc.is_null(v), ' t="e"', "")
        v = pc.fill_null(v, "#NUM!")
    elif col.cached is not None:
        xs = [value_xml(c) for c in col.cached]
        if len(xs) == n and None in xs:  # some values unknown: those cells without <v>
            return pa.array(
                [
                    _formula_cell(f"{letter}{r}", s, col.template.replace("{r}", r), c)
                    for r, c in zip(rows.to_pylist(), col.cached, strict=True)
                ],
                pa.string(),
            )
        t = pa.array([x[0] for x in xs], pa.string())
        v = pa.array([x[1] for x in xs], pa.string())
    else:
        return pc.binary_join_element_wise(*head, "><f>", *f, "</f></c>", "")
    if len(v) != n:
        raise ValueError(f"formula column {col.template!r}: {len(v)} cached values for {n} rows")
    return pc.binary_join_element_wise(*head, t, "><f>", *f, "</f><v>", v, "</v></c>", "")


def _string_bytes(arr) -> bytes:
    """The UTF-8 bytes of every value of a string array without nulls, one after the other."""
    offsets = np.frombuffer(arr.buffers()[1], dtype=np.int32, count=len(arr) + 1, offset=arr.offset * 4)
    return arr.buffers()[2].to_pybytes()[offsets[0] : offsets[-1]]
