"""Out-of-range inputs shown in the finance workbook itself: a flag beside each input row, a banner.

Data validation stops a bad value only when it is typed in Excel's dialog; a value written with
openpyxl or pasted gets in anyway (a cost of capital of 13 for 13%). So every input row of Inputs
that holds a named input with a range in :data:`gputco.udfs.ranges.RANGES` gets a native formula in
the "range check" cell right of the row's inputs, empty while every cell of the row is blank or valid, else
"outside [0, 1]" (the range as the Python checks print it). ``chk_inputs_out_of_range`` counts the
flagged rows, and the Model and Compare sheets show a banner in A3 when it is not zero. The same
table feeds ``gputco recalc``'s warnings (:mod:`gputco.workbook.xlsx.inputcheck`).
"""

from __future__ import annotations

from openpyxl.formatting.rule import FormulaRule
from openpyxl.styles import Alignment, Font
from openpyxl.utils import column_index_from_string

from gputco.workbook.xlsx import inputcheck, styles
from gputco.workbook.xlsx.book import BookBuilder

COUNT = "chk_inputs_out_of_range"
BAD_FONT = Font(bold=True, color="C00000")
COUNT_ROW = 4  # the Scenario section's row


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
    """A "range check" cell right of each input row's last input (the Inputs sheet leaves that
    column free for it, headed "range check"), and the count ``chk_inputs_out_of_range`` in the
    Scenario section's row, right of its input column."""
    ws = book.wb[sheet]
    rows = _rows(book, sheet)
    flags = []
    for row, cells in sorted(rows.items()):
        texts = {str(r) for _, r in cells}
        ok = ",".join(f'OR({cell}="",{r.excel(cell)})' for cell, r in cells)
        col = max(column_index_from_string("".join(ch for ch in c if ch.isalpha())) for c, _ in cells) + 1
        cell = ws.cell(row=row, column=col, value=f'=IF(AND({ok}),"","outside {" or ".join(sorted(texts))}")')
        cell.font = BAD_FONT
        flags.append(cell.coordinate)
    first = book.system_col(1)
    label = ws.cell(row=COUNT_ROW, column=first + 1, value="inputs out of range")
    label.font, label.alignment = styles.KEY_FONT, Alignment(horizontal="right")
    flagged = "+".join(f'({ref}<>"")' for ref in flags)  # TRUE counts 1
    count = ws.cell(row=COUNT_ROW, column=first + 2, value=f"={flagged}")
    count.font, count.alignment = BAD_FONT, Alignment(horizontal="left")
    book.define_cell(COUNT, ws, COUNT_ROW, first + 2)


def build_banners(book: BookBuilder, sheets: tuple[str, ...] = ("Model", "Compare")) -> None:
    """A3 of each sheet: a red banner while any input is out of range, else empty and unfilled."""
    for sheet in sheets:
        ws = book.wb[sheet]
        cell = ws["A3"]
        if cell.value is not None:
            raise ValueError(f"{sheet}!A3 is taken: the input-range banner needs it")
        cell.value = (
            f'=IF({COUNT},"Inputs out of range: "&{COUNT}&" rows flagged in the range check column '
            'on Inputs. These results are not valid.","")'
        )
        cell.font = styles.BOLD  # formulas stay black
        # the fill only while the banner shows: an empty banner is no pink bar
        ws.conditional_formatting.add("A3", FormulaRule(formula=[f"{COUNT}>0"], fill=styles.BAD_DXF_FILL))
