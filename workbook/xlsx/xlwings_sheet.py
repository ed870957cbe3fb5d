"""The ``xlwings.conf`` sheet that points Excel's xlwings add-in at gputco's UDFs (both workbooks)."""

from __future__ import annotations

from gputco.workbook.xlsx import styles
from gputco.workbook.xlsx.book import BookBuilder
from gputco.workbook.xlsx.cells import put

#: sheet name xlwings reads its workbook settings from (key in column A, value in column B)
XLWINGS_SHEET = "xlwings.conf"

#: used when the caller passes no rows (addin.xlwings_conf owns the canonical ones)
FALLBACK_XLWINGS_ROWS = [("UDF Modules", "gputco.addin.xlwings_udfs")]


def build_xlwings_conf(book: BookBuilder, rows: list[tuple[str, str]] | None = None) -> None:
    """The xlwings.conf sheet: ``rows`` (from addin.xlwings_conf, passed in by the CLI so that
    workbook/ never imports addin/), else :data:`FALLBACK_XLWINGS_ROWS`."""
    ws = book.wb.create_sheet(XLWINGS_SHEET)
    for i, (key, value) in enumerate(rows or FALLBACK_XLWINGS_ROWS, start=1):
        put(ws, i, 1, key)
        put(ws, i, 2, value)
    styles.widths(ws, {1: 28, 2: 60})
    styles.page_setup(ws, landscape=False, one_page=True)
