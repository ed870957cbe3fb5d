"""Out-of-range inputs shown in the finance workbook itself: a flag beside each input row, a banner.

Data validation stops a bad value only when it is typed in Excel's dialog; a value written with
openpyxl or pasted gets in anyway (a cost of capital of 13 for 13%). So every input row of Inputs
that holds a named input with a range in :data:`gputco.udfs.ranges.RANGES` gets a native formula in
the "range check" column, empty while every cell of the row is blank or valid, else
"outside [0, 1]" (the range as the Python checks print it). ``chk_inputs_out_of_range`` counts the
flagged rows, and the Model and Compare sheets show a banner in A3 when it is not zero. The same
table feeds ``gputco recalc``'s warnings (:mod:`gputco.workbook.xlsx.inputcheck`).
"""

from __future__ import annotations

from openpyxl.styles import Font
from openpyxl.utils import get_column_letter

from gputco.workbook.xlsx import inputcheck, styles
from gputco.workbook.xlsx.book import BookBuilder

COUNT = "chk_inputs_out_of_range"
BAD_FONT = Font(bold=True, color="C00000")


def _rows(book: BookBuilder, sheet: str) -> dict[int, list[tuple[str, str]]]:
    """{row: [(cell "E53", range text)]} of the single-cell inputs with a range on ``sheet``."""
    out: dict[int, list[tuple[str, str]]] = {}
    for name, text in book.names.items():
        r = inputcheck.range_of(name)
        where, _, ref = text.rpartition("!")
        if r is None or where.strip("'") != sheet or ":" in ref:
            continue
        cell = ref.replace("$", "")
        row = int("".join(ch for ch in cell if ch.isdigit()))
        out.setdefault(row, []).append((cell, r))
    return out


def build_flags(book: BookBuilder, sheet: str = "Inputs") -> None:
    """The "range check" column of ``sheet`` and the count ``chk_inputs_out_of_range``."""
    ws = book.wb[sheet]
    col = ws.max_column + 1
    letter = get_column_letter(col)
    rows = _rows(book, sheet)
    ws.cell(row=3, column=col, value="range check").font = styles.SECTION_FONT
    for row, cells in sorted(rows.items()):
        texts = {str(r) for _, r in cells}
        ok = ",".join(f'OR({cell}="",{r.excel(cell)})' for cell, r in cells)
        cell = ws.cell(row=row, column=col, value=f'=IF(AND({ok}),"","outside {" or ".join(sorted(texts))}")')
        cell.font = BAD_FONT
    ws.cell(row=2, column=col, value="inputs out of range").font = styles.KEY_FONT
    flagged = "+".join(f'({letter}{row}<>"")' for row in sorted(rows))  # TRUE counts 1
    count = ws.cell(row=2, column=col + 1, value=f"={flagged}")
    count.font = BAD_FONT
    book.define_cell(COUNT, ws, 2, col + 1)
    ws.column_dimensions[letter].width = 18


def build_banners(book: BookBuilder, sheets: tuple[str, ...] = ("Model", "Compare")) -> None:
    """A3 of each sheet: a red banner while any input is out of range, else empty."""
    for sheet in sheets:
        cell = book.wb[sheet]["A3"]
        if cell.value is not None:
            raise ValueError(f"{sheet}!A3 is taken: the input-range banner needs it")
        cell.value = (
            f'=IF({COUNT},"Inputs out of range: "&{COUNT}&" rows flagged in the range check column '
            'on Inputs. These results are not valid.","")'
        )
        cell.font, cell.fill = styles.BOLD, styles.BAD_FILL  # formulas stay black
