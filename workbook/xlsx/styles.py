"""Cell styles, number formats and page setup shared by the generated workbooks.

The colour code is the usual one of finance models, and the Cover sheet's legend shows it:
inputs are blue on light yellow, formulas are black, preset values looked up from the Presets
sheet are black on light grey, headings are white on dark blue, checks are green when they pass.
"""

from __future__ import annotations

import textwrap
from copy import copy

from openpyxl.styles import Alignment, Border, Font, PatternFill, Side
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.worksheet import Worksheet

BLUE = "0000FF"
BLACK = "000000"
GREY_TEXT = "595959"
DARK_BLUE = "1F3864"
INPUT_FILL = PatternFill("solid", fgColor="FFF2CC")  # light yellow
LOOKUP_FILL = PatternFill("solid", fgColor="F2F2F2")  # light grey: looked up from Presets
SECTION_FILL = PatternFill("solid", fgColor="D9E1F2")
HEADER_FILL = PatternFill("solid", fgColor=DARK_BLUE)
OK_FILL = PatternFill("solid", fgColor="C6EFCE")
BAD_FILL = PatternFill("solid", fgColor="FFC7CE")


def dxf_fill(rgb: str) -> PatternFill:
    """A solid fill for a conditional format (a dxf). Excel's conditional formats colour the cell
    with the dxf's ``bgColor`` (its own files: ``<patternFill><bgColor rgb=.../></patternFill>``, or
    solid with both colours); a cell's own solid fill uses ``fgColor``. Both are set, so every reader
    shows the one colour."""
    return PatternFill("solid", fgColor=rgb, bgColor=rgb)


OK_DXF_FILL = dxf_fill(OK_FILL.fgColor.rgb)
BAD_DXF_FILL = dxf_fill(BAD_FILL.fgColor.rgb)

INPUT_FONT = Font(color=BLUE)
FORMULA_FONT = Font(color=BLACK)
NOTE_FONT = Font(color=GREY_TEXT, italic=True, size=9)
KEY_FONT = Font(color=GREY_TEXT, size=9)
TITLE_FONT = Font(bold=True, size=14, color=DARK_BLUE)
HEADER_FONT = Font(bold=True, color="FFFFFF")
SECTION_FONT = Font(bold=True, color=DARK_BLUE)
BOLD = Font(bold=True)

_THIN = Side(style="thin", color="BFBFBF")
INPUT_BORDER = Border(left=_THIN, right=_THIN, top=_THIN, bottom=_THIN)
WRAP = Alignment(wrap_text=True, vertical="top")

#: number formats by unit. No currency format (no "$"): Excel's Range.Value, which xlwings reads
#: UDF arguments with, hands a Currency cell over rounded to 4 decimals (docs/excel-currency.md);
#: the unit of money stands in the label/unit column instead.
FORMATS = {
    "USD": "#,##0",
    "USD/GPU-year": "#,##0",
    "USD/GPU-h": "#,##0.0000",
    "USD/Mtok": "#,##0.0000",
    "USD/kW-month": "#,##0.00",
    "USD/kWh": "#,##0.0000",
    "USD run": "#,##0",
    "fraction": "0.00%",
    "1/year": "0.00%",
    "x": "0.000",
    "ratio": "0.000",
    "FLOPs/token": "0.0000E+00",
    "tokens": "#,##0",
    "requests": "#,##0",
    "GPU-hours": "#,##0",
    "tokens/s/GPU": "#,##0.0",
    "J/token": "0.000",
    "W": "#,##0.0",
    "kW": "0.000",
    "kWh": "#,##0",
    "TFLOPS": "#,##0.0",
    "household-years": "#,##0.00",
    "days": "#,##0.00",
    "GPU-h": "#,##0",
    "years": "0.00",
    "t CO2": "#,##0.0",
    "kg CO2/kWh": "0.000",
    "units": "#,##0",
    "params": "#,##0",
    "layers": "#,##0",
    "MW": "#,##0.000",
    "MWh": "#,##0",
    "GPU": "#,##0",
    "rel. diff": "+0.00%;-0.00%;0.00%",
}


def number_format(unit: str) -> str:
    """The number format for a unit (General when the unit has none)."""
    return FORMATS.get(unit, "General")


def constant_format(value: float) -> str:
    """A unit constant's format: 86,400 and 1,000,000,000,000 with separators, 1e-6 as it is."""
    return "#,##0" if float(value).is_integer() and abs(value) >= 1000 else "General"


#: a model's architecture counts (heads, d_model, FFN size: no unit), whole numbers
ARCHITECTURE = "#,##0"


def style_input(cell, unit: str = "") -> None:
    """Blue font on light yellow with a thin border: a cell the user types into."""
    cell.font = INPUT_FONT
    cell.fill = INPUT_FILL
    cell.border = INPUT_BORDER
    if unit:
        cell.number_format = number_format(unit)


def style_lookup(cell, unit: str = "") -> None:
    """Black on light grey: a preset value looked up from the Presets sheet."""
    cell.font = FORMULA_FONT
    cell.fill = LOOKUP_FILL
    if unit:
        cell.number_format = number_format(unit)


def style_formula(cell, unit: str = "") -> None:
    """Black: a formula."""
    cell.font = FORMULA_FONT
    if unit:
        cell.number_format = number_format(unit)


def formula_styler():
    """:func:`style_formula` for the many cells of one workbook's tables: the first cell of each
    unit is styled, the others take its style as it is stored (openpyxl hashes a font and a
    number format at every assignment, most of a large table's build time)."""
    styled: dict[str, object] = {}

    def style(cell, unit: str = "") -> None:
        if unit in styled:
            cell._style = copy(styled[unit])
        else:
            style_formula(cell, unit)
            styled[unit] = cell._style

    return style


def title(ws: Worksheet, text: str, subtitle: str = "") -> None:
    """Sheet title in A1 and a one-line explanation in A2."""
    ws["A1"] = text
    ws["A1"].font = TITLE_FONT
    if subtitle:
        ws["A2"] = subtitle
        ws["A2"].font = NOTE_FONT


def header_row(ws: Worksheet, row: int, values: list[str], first_col: int = 1) -> None:
    """White-on-dark-blue column headings."""
    for i, v in enumerate(values):
        c = ws.cell(row=row, column=first_col + i, value=v)
        c.font = HEADER_FONT
        c.fill = HEADER_FILL
        c.alignment = Alignment(wrap_text=True, vertical="center")


def section_row(ws: Worksheet, row: int, text: str, width: int) -> None:
    """A section heading spanning ``width`` columns (light blue band)."""
    for col in range(1, width + 1):
        ws.cell(row=row, column=col).fill = SECTION_FILL
    c = ws.cell(row=row, column=1, value=text)
    c.font = SECTION_FONT


def widths(ws: Worksheet, cols: dict[int, float]) -> None:
    """Set column widths by 1-based column index."""
    for col, w in cols.items():
        ws.column_dimensions[get_column_letter(col)].width = w


def page_setup(ws: Worksheet, *, landscape: bool = True, one_page: bool = True) -> None:
    """Fit the sheet to one page wide (and one page tall when ``one_page``) for printing/PDF."""
    ws.page_setup.orientation = "landscape" if landscape else "portrait"
    ws.page_setup.paperSize = ws.PAPERSIZE_A4
    ws.sheet_properties.pageSetUpPr.fitToPage = True
    ws.page_setup.fitToWidth = 1
    ws.page_setup.fitToHeight = 1 if one_page else 0
    ws.print_options.gridLines = False
    ws.page_margins.left = ws.page_margins.right = 0.4
    ws.page_margins.top = ws.page_margins.bottom = 0.5


def wrap_height(ws: Worksheet, row: int, text: str, width_chars: float) -> None:
    """Wrap ``text`` and give its row the height of the lines it needs (neither Excel nor
    LibreOffice grows a row for wrapped text in a file they did not lay out themselves)."""
    lines = max(1, -(-len(text) // int(width_chars * 1.05)))
    if lines > 1:
        ws.row_dimensions[row].height = 15 * lines


def heading_height(ws: Worksheet, row: int, headings: list[str], width_chars: float) -> None:
    """Give a heading row the height of its longest heading wrapped by words in columns of
    ``width_chars`` (bold text: about 0.85 of the width's characters a line), never lowering it."""
    per_line = max(1, int(width_chars * 0.85))
    lines = max((len(textwrap.wrap(h, per_line)) for h in headings if h), default=1)
    ws.row_dimensions[row].height = max(ws.row_dimensions[row].height or 15, 15 * lines)


def label_row(ws, row: int, name: str, label: str, unit: str) -> None:
    """An input row's name (column A), label (B) and unit (C), as the Inputs sheet writes them."""
    ws.cell(row=row, column=1, value=name).font = KEY_FONT
    ws.cell(row=row, column=2, value=label)
    ws.cell(row=row, column=3, value=unit).font = KEY_FONT


def note_cell(ws, row: int, col: int, text: str) -> None:
    """A note in small italics, where there is one."""
    if text:
        ws.cell(row=row, column=col, value=text).font = NOTE_FONT
