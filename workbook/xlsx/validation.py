"""Data validation of numeric input cells from the one table of valid ranges (:mod:`gputco.udfs.ranges`).

Each validated block gets a custom rule (``AND(ISNUMBER(D5),D5>=1,D5<=5)``, relative to its first
cell, so a whole column can share one rule), an input message that shows the range when the cell
is selected, and an error message that refuses anything else ("13" typed for 13% is refused).
Blank cells stay allowed: a blank override means "use the preset".
"""

from __future__ import annotations

from openpyxl.utils import get_column_letter
from openpyxl.worksheet.datavalidation import DataValidation
from openpyxl.worksheet.worksheet import Worksheet

from gputco.udfs import ranges


def validate_range(
    ws: Worksheet,
    arg: str,
    first_row: int,
    first_col: int,
    last_row: int | None = None,
    last_col: int | None = None,
    *,
    label: str = "",
) -> DataValidation:
    """Validate the block from (first_row, first_col) to (last_row, last_col) against ``arg``'s
    range; ``label`` names the input in the messages (default: ``arg``). Where the interval alone
    is not the rule (the debt tenor), the messages say the rule, as every other route does; the
    cell's own check stays the interval and the workbook's input checks test the rest."""
    r = ranges.of(arg)
    last_row = first_row if last_row is None else last_row
    last_col = first_col if last_col is None else last_col
    first = f"{get_column_letter(first_col)}{first_row}"
    name = label or arg
    text = f"{name} must be {r.rule if r.rule else ('in ' if str(r)[0] in '[(' else '') + str(r)}"
    dv = DataValidation(
        type="custom",
        formula1=r.excel(first),
        allow_blank=True,
        showErrorMessage=True,
        showInputMessage=True,
        errorTitle="Out of range",
        error=text + ".",
        promptTitle=name[:32],
        prompt=text[:255],
    )
    ws.add_data_validation(dv)
    dv.add(f"{first}:{get_column_letter(last_col)}{last_row}")
    return dv


def only_value(ws: Worksheet, ref: str, value: float, name: str, title: str, why: str) -> DataValidation:
    """Let the cell ``ref`` of ``ws`` take ``value`` only (a custom rule ``ref=value``, blank
    refused), saying ``why`` when another is typed and as the cell's prompt (``name`` its title)."""
    dv = DataValidation(
        type="custom",
        formula1=f"{ref}={value:g}",
        allow_blank=False,
        showErrorMessage=True,
        showInputMessage=True,
        errorTitle=title[:32],
        error=why[:255],
        promptTitle=name[:32],
        prompt=why[:255],
    )
    ws.add_data_validation(dv)
    dv.add(ref)
    return dv


def preset_list(ws: Worksheet, list_name: str) -> DataValidation:
    """A drop-down of the defined name ``list_name`` (a list on the Presets sheet), added to ``ws``:
    nothing else may be typed and a blank is refused. The caller adds the cells to it."""
    dv = DataValidation(
        type="list",
        formula1=list_name,
        allow_blank=False,
        showErrorMessage=True,
        errorTitle="Not a preset",
        error="Pick a value from the drop-down (the list is on Presets).",
    )
    ws.add_data_validation(dv)
    return dv
