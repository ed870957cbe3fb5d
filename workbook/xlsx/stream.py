"""A streaming .xlsx writer: rows of numbers, text and formulas written straight into the zip.

openpyxl builds a cell object per value; for a million rows that is most of the time. Here each
block of rows becomes sheet XML a column at a time (:func:`gputco.workbook.xlsx.sheetrows.rows_xml`, the
cell rules shared with :mod:`gputco.workbook.xlsx.rowfill`) and goes straight into the zip member, so
memory holds one block and the shared-string table. Text is always stored as text (a shared
string, or an inline string with ``shared_strings=False``), never as a formula, even when it
starts with ``=``. A formula cell carries its cached value, so readers that do not calculate see
it. This module keeps what is particular to a new package: its parts, the sheets' heads (frozen
header, column widths) and the shared-string table.

    with atomic_output("out.xlsx") as tmp, XlsxStream(tmp) as book:
        sheet = book.sheet("results", header=["system", "mfu"])
        sheet.write_columns([["H100_HGX", "GB200_NVL72"], np.array([0.54, 0.4])])
        sheet.write_row([Formula("B2*2", 1.08), None, "=text, not a formula"])

Columns of a block: a float/int/bool numpy array (NaN is an empty cell), a pyarrow array, a list
of str/float/bool/None, or a :class:`FormulaColumn` (a formula template where ``{r}`` is the row
number, with one cached value per row). One sheet is written at a time, in order.
"""

from __future__ import annotations

import zipfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from xml.sax.saxutils import escape

from gputco.workbook.xlsx.calc import CALC_ID
from gputco.workbook.xlsx.sheetrows import (
    MAIN_NS,
    Formula,
    FormulaColumn,
    InlineStrings,
    SharedStrings,
    clean_text,
    column_letter,
    rows_xml,
)

__all__ = ["Formula", "FormulaColumn", "SheetStream", "XlsxStream", "clean_text", "column_letter"]

_NS = MAIN_NS
_R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_PKG = "http://schemas.openxmlformats.org/package/2006/relationships"
_DOC = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_CT = "application/vnd.openxmlformats-officedocument.spreadsheetml"


class XlsxStream:
    """An .xlsx package written as it goes; call :meth:`close` (or use ``with``) to finish."""

    def __init__(
        self,
        path: str | Path,
        *,
        shared_strings: bool = True,
        compresslevel: int = 1,
        styles_xml: str | None = None,
    ) -> None:
        """``styles_xml``: a whole ``xl/styles.xml`` to use instead of the default (normal, and
        bold as style 1), for books whose cells refer to more styles (``style=`` below)."""
        self.path = Path(path)
        self._zip = zipfile.ZipFile(self.path, "w", zipfile.ZIP_DEFLATED, compresslevel=compresslevel)
        self._names: list[str] = []
        self._open: SheetStream | None = None
        self.shared = shared_strings
        self.strings = SharedStrings() if shared_strings else InlineStrings()
        self.styles_xml = styles_xml

    def __enter__(self) -> XlsxStream:
        return self

    def __exit__(self, kind, *_exc) -> None:
        if kind is None:
            self.close()
        else:
            self.abort()

    def sheet(
        self,
        name: str,
        header: Sequence[str] | None = None,
        *,
        freeze_header: bool = True,
        widths: Sequence[float] | None = None,
    ) -> SheetStream:
        """Start the next sheet (the previous one is finished); ``header`` is row 1, bold;
        ``widths`` are column widths in characters (default: fitted to the header)."""
        if self._open is not None:
            self._open.finish()
        self._names.append(name)
        member = self._zip.open(f"xl/worksheets/sheet{len(self._names)}.xml", "w", force_zip64=True)
        if widths is None and header is not None:
            widths = [max(9.0, len(str(h)) * 1.1 + 2) for h in header]
        self._open = SheetStream(self, member, header, freeze_header and header is not None, widths or ())
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
        sheets = "".join(
            f'<sheet name="{escape(nm, {chr(34): "&quot;"})}" sheetId="{i}" r:id="rId{i}"/>'
            for i, nm in enumerate(self._names, 1)
        )
        z.writestr(
            "[Content_Types].xml",
            (
                '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
                '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
                '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
                'relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>'
                f'<Override PartName="/xl/workbook.xml" ContentType="{_CT}.sheet.main+xml"/>'
                f'<Override PartName="/xl/styles.xml" ContentType="{_CT}.styles+xml"/>'
                f'<Override PartName="/xl/sharedStrings.xml" ContentType="{_CT}.sharedStrings+xml"/>'
                + "".join(
                    f'<Override PartName="/xl/worksheets/sheet{i}.xml" ContentType="{_CT}.worksheet+xml"/>'
                    for i in range(1, n + 1)
                )
                + "</Types>"
            ),
        )
        z.writestr(
            "_rels/.rels",
            (
                f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="{_PKG}">'
                f'<Relationship Id="rId1" Type="{_DOC}/officeDocument" Target="xl/workbook.xml"/>'
                "</Relationships>"
            ),
        )
        z.writestr(
            "xl/workbook.xml",
            (
                f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<workbook xmlns="{_NS}" '
                f'xmlns:r="{_R}"><bookViews><workbookView/></bookViews><sheets>{sheets}</sheets>'
                f'<calcPr calcId="{CALC_ID}"/></workbook>'
            ),
        )
        z.writestr(
            "xl/_rels/workbook.xml.rels",
            (
                f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="{_PKG}">'
                + "".join(
                    f'<Relationship Id="rId{i}" Type="{_DOC}/worksheet" Target="worksheets/sheet{i}.xml"/>'
                    for i in range(1, n + 1)
                )
                + f'<Relationship Id="rId{n + 1}" Type="{_DOC}/styles" Target="styles.xml"/>'
                f'<Relationship Id="rId{n + 2}" Type="{_DOC}/sharedStrings" '
                'Target="sharedStrings.xml"/></Relationships>'
            ),
        )
        z.writestr(
            "xl/styles.xml",
            self.styles_xml
            or (
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
                'name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>'
            ),
        )
        with z.open("xl/sharedStrings.xml", "w", force_zip64=True) as fh:
            for piece in (self.strings if self.shared else SharedStrings()).part():
                fh.write(piece)
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

    def __init__(self, book: XlsxStream, member, header, freeze: bool, widths: Sequence[float] = ()) -> None:
        self.book, self.member, self.row = book, member, 0
        view = (
            (
                '<sheetViews><sheetView workbookViewId="0"><pane ySplit="1" topLeftCell="A2" '
                'activePane="bottomLeft" state="frozen"/></sheetView></sheetViews>'
            )
            if freeze
            else ""
        )
        cols = "".join(
            f'<col min="{j}" max="{j}" width="{w:.1f}" customWidth="1"/>' for j, w in enumerate(widths, 1)
        )
        cols = f"<cols>{cols}</cols>" if cols else ""
        member.write(
            f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet '
            f'xmlns="{_NS}" xmlns:r="{_R}">{view}{cols}<sheetData>'.encode()
        )
        if header is not None:
            self.write_row(list(header), style=1)

    def write_row(self, values: Iterable, style: int = 0) -> None:
        """One row of numbers, text, booleans, :class:`Formula` cells and None (empty)."""
        self.write_columns([[v] for v in values], style=style)

    def write_columns(self, columns: Sequence, style: int | Sequence[int] = 0) -> None:
        """A block of rows given column by column (every column of the same length); ``style``
        is the cell style index of every cell, or one per column."""
        if not columns:
            self.row += 1
            self.member.write(f'<row r="{self.row}"/>'.encode())
            return
        first = columns[0]
        n = len(first.cached if isinstance(first, FormulaColumn) else first)
        styles = [style] * len(columns) if isinstance(style, int) else list(style)
        if len(styles) != len(columns):
            raise ValueError(f"style: {len(styles)} styles for {len(columns)} columns")
        self.member.write(
            rows_xml(
                self.row + 1,
                n,
                [(j, col, st) for j, (col, st) in enumerate(zip(columns, styles, strict=True), 1)],
                self.book.strings,
            )
        )
        self.row += n

    def finish(self) -> None:
        self.member.write(b"</sheetData></worksheet>")
        self.member.close()
