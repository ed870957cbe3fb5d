"""How Excel and LibreOffice calculate a generated workbook when they open it (docs/workbook.md,
"Opening a workbook: its cached values").

Every formula of a generated workbook is written with its value (gputco's engine, which follows
Excel), so the files open showing those values and do not ask for a full recalculation:

- no ``fullCalcOnLoad`` (ECMA-376 Part 1 §18.2.2 ``calcPr``: "the application shall perform a full
  calculation when the workbook is opened"; openpyxl sets it by default). With it, Excel without the
  gputco add-in turned every TCO_ cell into #NAME? on open although the file carried their right
  values, and every open asked to save on close;
- ``calcId`` 191029, the calculation engine of Excel 2019 and Microsoft 365 (the most common value in
  the Excel-saved corpus, tests/data/excel_corpus: 119 of 352 files), not openpyxl's 124519 (Excel
  2007): Excel recalculates fully a workbook last calculated by an older engine than its own.

LibreOffice never recalculates an .xlsx on load by default (Tools > Options > Calc > Formula,
"Recalculation on file load", Excel 2007 and newer: "Never recalculate", ``OOXMLRecalcMode`` = 1),
with or without ``fullCalcOnLoad``: checked with LibreOffice 7.4 on a file whose cached value is not
its formula's result. Either way a cell recalculates when something it depends on changes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from openpyxl import Workbook

#: Excel's calculation engine id for Excel 2019 and Microsoft 365
CALC_ID = 191029


def show_cached_values(wb: Workbook) -> None:
    """Open showing the cached values: no full calculation on load, the current engine's id."""
    wb.calculation.fullCalcOnLoad = False
    wb.calculation.calcId = CALC_ID
