"""A streaming .xlsx writer: rows of numbers, text and formulas written straight into the zip.

openpyxl builds a cell object per value; for a million rows that is most of the time. Here each
block of rows becomes sheet XML in a few list passes per column and goes straight into the zip
member, so memory holds one block and the shared-string table. Text is always stored as text
(a shared string, or an inline string with ``shared_strings=False``), never as a formula, even
when it starts with ``=``; characters XML cannot hold are written with Excel's own escape
``_xHHHH_``. A formula cell carries its cached value, so readers that do not calculate see it.

    with atomic_output("out.xlsx") as tmp, XlsxStream(tmp) as book:
        sheet = book.sheet("results", header=["system", "mfu"])
        sheet.write_columns([["H100_HGX", "GB200_NVL72"], np.array([0.54, 0.4])])
        sheet.write_row([Formula("B2*2", 1.08), None, "=text, not a formula"])

Columns of a block: a float/int numpy array (NaN is an empty cell), a pyarrow array, a list of
str/float/bool/None, or a :class:`FormulaColumn` (a formula template where ``{r}`` is the row
number, with one cached value per row). One sheet is written at a time, in order.
"""

from __future__ import annotations

import math
import re
import zipfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
_NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
_R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_PKG = "http://schemas.openxmlformats.org/package/2006/relationships"
_DOC = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_CT = "application/vnd.openxmlformats-officedocument.spreadsheetml"


@dataclass(frozen=True)
class Formula:
    """One formula cell (without the leading ``=``) and the value it holds until recalculated."""

    text: str
    cached: float | str | bool | None = None


@dataclass(frozen=True)
class FormulaColumn:
    """A column of formulas of one shape: ``template`` with ``{r}`` for the row number."""

    template: str
    cached: Sequence


def column_letter(j: int) -> str:
    """Letters of 1-based column ``j``: 1 -> A, 28 -> AB."""
    s = ""
    while j:
        j, rem = divmod(j - 1, 26)
        s = chr(65 + rem) + s
    return s


def clean_text(text: str) -> str:
    """Text as XML can hold it: control characters as ``_xHHHH_``, then escaped."""
    if _ILLEGAL.search(text):
        text = _ILLEGAL.sub(lambda m: f"_x{ord(m.group()):04X}_", text)
    return escape(text)


def _num(v: float) -> str:
    """A number as XML: the shortest text that reads back the same float (as Arrow writes it)."""
    r = repr(v)
    return r[:-2] if r.endswith(".0") else r


class XlsxStream:
    """An .xlsx package written as it goes; call :meth:`close` (or use ``with``) to finish."""

    def __init__(self, path: str | Path, *, shared_strings: bool = True,
                 compresslevel: int = 1, styles_xml: str | None = None) -> None:
        """``styles_xml``: a whole ``xl/styles.xml`` to use instead of the default (normal, and
        bold as style 1), for books whose cells refer to more styles (``style=`` below)."""
        self.path = Path(path)
        self._zip = zipfile.ZipFile(self.path, "w", zipfile.ZIP_DEFLATED,
                                    compresslevel=compresslevel)
        self._names: list[str] = []
        self._open: SheetStream | None = None
        self.shared = shared_strings
        self._strings: dict[str, int] = {}
        self.styles_xml = styles_xml

    def __enter__(self) -> XlsxStream:
        return self

    def __exit__(self, kind, *_exc) -> None:
        if kind is None:
            self.close()
        else:
            self.abort()

    def string_index(self, text: str) -> int:
        index = self._strings.get(text)
        if index is None:
            index = self._strings[text] = len(self._strings)
        return index

    def sheet(self, name: str, header: Sequence[str] | None = None, *,
              freeze_header: bool = True, widths: Sequence[float] | None = None) -> SheetStream:
        """Start the next sheet (the previous one is finished); ``header`` is row 1, bold;
        ``widths`` are column widths in characters (default: fitted to the header)."""
        if self._open is not None:
            self._open.finish()
        self._names.append(name)
        member = self._zip.open(f"xl/worksheets/sheet{len(self._names)}.xml", "w",
                                force_zip64=True)
        if widths is None and header is not None:
            widths = [max(9.0, len(str(h)) * 1.1 + 2) for h in header]
        self._open = SheetStream(self, member, header, freeze_header and header is not None,
                                 widths or ())
        return self._open

    def close(self) -> None:
        if self._open is not None:
            self._open.finish()
            self._open = None
        if not self._names:
            self.sheet("Sheet1").finish()
            self._open = None
        z = self._zip
        n = len(self._names)
        sheets = "".join(f'<sheet name="{escape(nm, {chr(34): "&quot;"})}" sheetId="{i}" '
                         f'r:id="rId{i}"/>' for i, nm in enumerate(self._names, 1))
        z.writestr("[Content_Types].xml", (
            '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
            '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
            '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
            'relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>'
            f'<Override PartName="/xl/workbook.xml" ContentType="{_CT}.sheet.main+xml"/>'
            f'<Override PartName="/xl/styles.xml" ContentType="{_CT}.styles+xml"/>'
            f'<Override PartName="/xl/sharedStrings.xml" ContentType="{_CT}.sharedStrings+xml"/>'
            + "".join(f'<Override PartName="/xl/worksheets/sheet{i}.xml" '
                      f'ContentType="{_CT}.worksheet+xml"/>' for i in range(1, n + 1))
            + "</Types>"))
        z.writestr("_rels/.rels", (
            f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="{_PKG}">'
            f'<Relationship Id="rId1" Type="{_DOC}/officeDocument" Target="xl/workbook.xml"/>'
            "</Relationships>"))
        z.writestr("xl/workbook.xml", (
            f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<workbook xmlns="{_NS}" '
            f'xmlns:r="{_R}"><bookViews><workbookView/></bookViews><sheets>{sheets}</sheets>'
            '<calcPr calcId="191029" fullCalcOnLoad="1"/></workbook>'))
        z.writestr("xl/_rels/workbook.xml.rels", (
            f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="{_PKG}">'
            + "".join(f'<Relationship Id="rId{i}" Type="{_DOC}/worksheet" '
                      f'Target="worksheets/sheet{i}.xml"/>' for i in range(1, n + 1))
            + f'<Relationship Id="rId{n + 1}" Type="{_DOC}/styles" Target="styles.xml"/>'
            f'<Relationship Id="rId{n + 2}" Type="{_DOC}/sharedStrings" '
            'Target="sharedStrings.xml"/></Relationships>'))
        z.writestr("xl/styles.xml", self.styles_xml or (
            f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<styleSheet xmlns="{_NS}">'
            '<fonts count="2"><font><sz val="11"/><name val="Calibri"/></font>'
            '<font><b/><sz val="11"/><name val="Calibri"/></font></fonts>'
            '<fills count="2"><fill><patternFill patternType="none"/></fill>'
            '<fill><patternFill patternType="gray125"/></fill></fills>'
            '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border>'
            '</borders><cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" '
            'borderId="0"/></cellStyleXfs><cellXfs count="2"><xf numFmtId="0" fontId="0" '
            'fillId="0" borderId="0" xfId="0"/><xf numFmtId="0" fontId="1" fillId="0" '
            'borderId="0" xfId="0" applyFont="1"/></cellXfs><cellStyles count="1"><cellStyle '
            'name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>'))
        with z.open("xl/sharedStrings.xml", "w", force_zip64=True) as fh:
            k = len(self._strings)
            fh.write(f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<sst xmlns="{_NS}"'
                     f' count="{k}" uniqueCount="{k}">'.encode())
            items = [f'<si><t xml:space="preserve">{clean_text(s)}</t></si>' for s in self._strings]
            for i in range(0, k, 10_000):
                fh.write("".join(items[i:i + 10_000]).encode("utf-8"))
            fh.write(b"</sst>")
        z.close()

    def abort(self) -> None:
        """Close after a failure without finishing the package (the caller discards the file)."""
        try:
            if self._open is not None:
                self._open.member.close()
        finally:
            self._zip.close()


class SheetStream:
    """One worksheet being written; rows go in order, starting after the header."""

    def __init__(self, book: XlsxStream, member, header, freeze: bool,
                 widths: Sequence[float] = ()) -> None:
        self.book, self.member, self.row = book, member, 0
        view = ('<sheetViews><sheetView workbookViewId="0"><pane ySplit="1" topLeftCell="A2" '
                'activePane="bottomLeft" state="frozen"/></sheetView></sheetViews>') if freeze \
            else ""
        cols = "".join(f'<col min="{j}" max="{j}" width="{w:.1f}" customWidth="1"/>'
                       for j, w in enumerate(widths, 1))
        cols = f"<cols>{cols}</cols>" if cols else ""
        member.write(f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet '
                     f'xmlns="{_NS}" xmlns:r="{_R}">{view}{cols}<sheetData>'.encode())
        self._letters: list[str] = []
        if header is not None:
            self.write_row(list(header), style=1)

    def _letter(self, j: int) -> str:
        while len(self._letters) <= j:
            self._letters.append(column_letter(len(self._letters) + 1))
        return self._letters[j]

    def write_row(self, values: Iterable, style: int = 0) -> None:
        """One row of numbers, text, booleans, :class:`Formula` cells and None (empty)."""
        self.write_columns([[v] for v in values], style=style)

    def write_columns(self, columns: Sequence, style: int | Sequence[int] = 0) -> None:
        """A block of rows given column by column (every column of the same length); ``style``
        is the cell style index of every cell, or one per column.

        The XML is assembled by Arrow's string kernels (numbers in their shortest round-trip
        form), so a block of numbers and repeated texts costs no Python work per cell."""
        if not columns:
            self.row += 1
            self.member.write(f'<row r="{self.row}"/>'.encode())
            return
        n = len(columns[0])
        start = self.row + 1
        rows = pa.array(np.arange(start, start + n, dtype=np.int64)).cast(pa.string())
        styles = [style] * len(columns) if isinstance(style, int) else list(style)
        cells = [self._cells(self._letter(j), col, rows, f' s="{st}"' if st else "")
                 for j, (col, st) in enumerate(zip(columns, styles, strict=True))]
        xml = pc.binary_join_element_wise('<row r="', rows, '">', *cells, "</row>", "")
        self.row += n
        self.member.write(_string_bytes(xml))

    def _cells(self, letter: str, col, rows: pa.Array, s: str) -> pa.Array:
        """The ``<c>`` elements of one column ("" for an empty cell) as an Arrow string array."""
        ref = ('<c r="', letter, rows, f'"{s}')
        if isinstance(col, FormulaColumn):
            return pa.array([_formula_cell(f"{letter}{r}", col.template.format(r=r), v, s)
                             for r, v in zip(rows.to_pylist(), col.cached, strict=True)],
                            pa.string())
        if isinstance(col, pa.ChunkedArray):
            col = col.combine_chunks()
        if isinstance(col, np.ndarray) and col.dtype.kind in "fiu":
            col = pa.array(col.astype(float))
        if isinstance(col, pa.Array) and (pa.types.is_floating(col.type)
                                          or pa.types.is_integer(col.type)):
            num = pc.cast(col, pa.float64())
            ok = pc.fill_null(pc.is_finite(num), False)
            xml = pc.binary_join_element_wise(*ref, "><v>", pc.cast(num, pa.string()), "</v></c>",
                                              "")
            return pc.if_else(ok, xml, "")
        if isinstance(col, pa.Array) and (pa.types.is_string(col.type)
                                          or pa.types.is_large_string(col.type)):
            enc = col.cast(pa.string()).dictionary_encode()
            body = pa.array([self._text_xml(t) for t in enc.dictionary.to_pylist()], pa.string())
            xml = pc.binary_join_element_wise(*ref, body.take(enc.indices), "</c>", "")
            return pc.fill_null(xml, "")
        if isinstance(col, pa.Array):
            col = col.to_pylist()
        return pa.array([self._cell(f"{letter}{r}", v, s)
                         for r, v in zip(rows.to_pylist(), col, strict=True)], pa.string())

    def _text_xml(self, text: str) -> str:
        """The attributes and body of a text cell after ``<c r="..."``."""
        if self.book.shared:
            return f' t="s"><v>{self.book.string_index(text)}</v>'
        return f' t="inlineStr"><is><t xml:space="preserve">{clean_text(text)}</t></is>'

    def _cell(self, ref: str, v, s: str) -> str:
        if v is None:
            return ""
        if isinstance(v, Formula):
            return _formula_cell(ref, v.text, v.cached, s)
        if isinstance(v, bool | np.bool_):
            return f'<c r="{ref}"{s} t="b"><v>{int(v)}</v></c>'
        if isinstance(v, int | float | np.integer | np.floating):
            v = float(v)
            return f'<c r="{ref}"{s}><v>{_num(v)}</v></c>' if math.isfinite(v) else ""
        return f'<c r="{ref}"{s}{self._text_xml(str(v))}</c>'

    def finish(self) -> None:
        self.member.write(b"</sheetData></worksheet>")
        self.member.close()


def _string_bytes(arr: pa.Array) -> bytes:
    """The UTF-8 bytes of every value of a string array without nulls, one after the other."""
    offsets = np.frombuffer(arr.buffers()[1], dtype=np.int32, count=len(arr) + 1,
                            offset=arr.offset * 4)
    return arr.buffers()[2].to_pybytes()[offsets[0]:offsets[-1]]


def _formula_cell(ref: str, text: str, cached, s: str) -> str:
    f = clean_text(text[1:] if text.startswith("=") else text)
    if cached is None:
        return f'<c r="{ref}"{s}><f>{f}</f></c>'
    if isinstance(cached, bool | np.bool_):
        return f'<c r="{ref}"{s} t="b"><f>{f}</f><v>{int(cached)}</v></c>'
    if isinstance(cached, int | float | np.integer | np.floating):
        v = float(cached)
        if not math.isfinite(v):
            return f'<c r="{ref}"{s} t="e"><f>{f}</f><v>#NUM!</v></c>'
        return f'<c r="{ref}"{s}><f>{f}</f><v>{_num(v)}</v></c>'
    return f'<c r="{ref}"{s} t="str"><f>{f}</f><v>{clean_text(str(cached))}</v></c>'
