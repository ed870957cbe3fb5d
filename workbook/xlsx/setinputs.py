"""Typing values into a workbook's named input cells, refused as the cells' own data validation
would refuse them in Excel.

``gputco template --set inp_debt_fraction=0.6`` (and :func:`set_inputs`) writes a value into the
cell an ``inp_`` name points at before the workbook is recalculated. A number is checked against
its input's range (the table its data validation was written from); a drop-down's value must be
one of its list (a literal list or a defined name's cells). Nothing is written unless every value passes.
"""

from __future__ import annotations

from collections.abc import Mapping

from openpyxl.utils import range_boundaries
from openpyxl.workbook.workbook import Workbook

from gputco.udfs import _check as chk
from gputco.udfs.errors import GputcoError, InputRangeError, UnknownNameError
from gputco.workbook.xlsx import inputcheck


def parse_assignment(text: str) -> tuple[str, object]:
    """``NAME=VALUE`` as given on the command line: a number where VALUE reads as one (``60%`` is
    0.6), an empty VALUE a blank cell, else the text."""
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise InputRangeError("--set", text, "NAME=VALUE, e.g. inp_debt_fraction=0.6")
    value = value.strip()
    if value == "":
        return name.strip(), None
    try:
        return name.strip(), float(value[:-1]) / 100 if value.endswith("%") else float(value)
    except ValueError:
        return name.strip(), value


def set_inputs(wb: Workbook, values: Mapping[str, object]) -> None:
    """Write each ``name: value`` into the input cell ``name`` of ``wb``, all or none."""
    cells = []
    for name, value in values.items():
        ws, coord = _input_cell(wb, name)
        _check(wb, ws, coord, name, value)
        cells.append((ws, coord, value))
    for ws, coord, value in cells:
        ws[coord].value = value


def _input_cell(wb: Workbook, name: str):
    inputs = sorted(n for n in wb.defined_names if n.startswith("inp_"))
    dn = wb.defined_names.get(name)
    if not name.startswith("inp_") or dn is None:
        raise UnknownNameError("input", name, inputs)
    sheet, ref = next(iter(dn.destinations))
    if ":" in ref:
        raise InputRangeError(name, ref, "one input cell (this name is a range of cells)")
    return wb[sheet], ref.replace("$", "")


def _check(wb: Workbook, ws, coord: str, name: str, value: object) -> None:
    """The cell's drop-down list, or the range of its input (the one ``gputco recalc`` warns with,
    and the one its data validation states: :func:`.inputcheck.range_of`)."""
    where = f"{ws.title}!{coord}"
    lists = [dv for dv in ws.data_validations.dataValidation if dv.type == "list" and coord in dv.sqref]
    for dv in lists:
        if value is None and not dv.allow_blank:
            raise InputRangeError(name, value, f"a value from its list ({where})")
        choices = _choices(wb, dv.formula1)
        if value is not None and str(value) not in choices:
            raise InputRangeError(name, value, f"a value of its list: {', '.join(choices)} ({where})")
    if inputcheck.curve_of(name) is not None:  # text: factors by year or a preset key
        problem = None if value is None else inputcheck.curve_problem(name, value)
        if problem is not None:
            raise InputRangeError(name, value, f"{inputcheck.curve_form(name)} ({where}): {problem}")
        return
    r = inputcheck.range_of(name)
    if r is None or value is None:  # a blank number means "use the preset"
        return
    try:
        chk.in_range(name, value, r)
    except GputcoError:  # out of range, or not a number: said with the cell
        raise InputRangeError(name, value, f"{r.valid} ({where})") from None


def _choices(wb: Workbook, formula: str) -> list[str]:
    if formula.startswith('"'):
        return formula.strip('"').split(",")
    sheet, ref = next(iter(wb.defined_names[formula].destinations))
    c0, r0, c1, r1 = range_boundaries(ref.replace("$", ""))
    ws = wb[sheet]
    return [
        str(ws.cell(row=r, column=c).value)
        for r in range(r0, r1 + 1)
        for c in range(c0, c1 + 1)
        if ws.cell(row=r, column=c).value is not None
    ]


__all__ = ["parse_assignment", "set_inputs"]
