"""The ``xlwings.conf`` sheet of a gputco workbook, as data: (key, value) rows.

xlwings (the add-in's ``GetConfigFromSheet``) reads a sheet named ``xlwings.conf`` of the active
workbook: keys in column A from A1 downwards, values in column B, no header row, and it stops at
the first empty cell of column A. Keys are case-insensitive. A key that is present overrides the
ribbon setting even when its value is empty, so only the settings gputco needs are listed; the
Python interpreter stays the user's ribbon choice. A sheet named ``_xlwings.conf`` is ignored.

>>> xlwings_conf_rows()
[('UDF Modules', 'gputco.addin.xlwings_udfs')]
"""

from __future__ import annotations

#: the name of the sheet xlwings reads (exactly; "_xlwings.conf" would be inactive)
SHEET_NAME = "xlwings.conf"

#: the module xlwings imports the UDFs from (see addin/xlwings_udfs.py)
UDF_MODULE = "gputco.addin.xlwings_udfs"


def xlwings_conf_rows() -> list[tuple[str, str]]:
    """The rows of the ``xlwings.conf`` sheet, in order: write row i to cells A{i+1}:B{i+1}."""
    return [("UDF Modules", UDF_MODULE)]
