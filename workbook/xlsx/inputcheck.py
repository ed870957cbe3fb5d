"""Inputs checked wherever they come from: the marker of gputco's workbooks and their named inputs.

Data validation guards an input only while it is typed in Excel's own dialog; a value written with
openpyxl, pasted or filled in bypasses it (a cost of capital of 13 for 13%). So every workbook
gputco writes carries a marker, the custom document property ``gputco`` (File > Properties >
Custom in Excel and LibreOffice; ``docProps/custom.xml``) whose value names the kind of workbook
and the version (``"finance workbook, gputco 0.1.0"``), and ``gputco recalc`` reads every
single-cell defined name ``inp_<input>`` or ``inp_<input>_<n>`` of a marked workbook and warns
about each value outside its range in :data:`gputco.udfs.ranges.RANGES` (blank cells mean "use the
preset" and are fine; text names such as ``inp_system_1`` have no range).

>>> OutOfRange("inp_cost_of_capital", 13, "[0, 1]", "Inputs!E53").line()
'inp_cost_of_capital = 13 is outside its valid range [0, 1] (Inputs!E53)'
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import openpyxl
from openpyxl.packaging.custom import StringProperty
from openpyxl.utils.cell import coordinate_from_string, range_boundaries

from gputco.udfs import __version__, curves, ranges
from gputco.udfs.errors import GputcoError

#: the custom document property that marks a workbook gputco wrote
MARKER = "gputco"
_SUFFIX = re.compile(r"_\d+$")
_AND_RANGE = re.compile(r"^=AND\(\$?([A-Z]+)\$?(\d+):\$?([A-Z]+)\$?(\d+)\)$")


def mark(wb: openpyxl.Workbook, kind: str) -> None:
    """Mark ``wb`` as a ``kind`` workbook ("finance", "scenarios") written by this gputco."""
    wb.custom_doc_props.append(StringProperty(name=MARKER, value=f"{kind} workbook, gputco {__version__}"))


def marker(wb: openpyxl.Workbook) -> str | None:
    """The marker's value, or None for a workbook gputco did not write."""
    for prop in wb.custom_doc_props:
        if prop.name == MARKER:
            return str(prop.value)
    return None


@dataclass(frozen=True)
class OutOfRange:
    """A named input whose value is outside its valid range."""

    name: str  # the defined name, inp_cost_of_capital
    value: object
    valid: str  # the range as ranges.Range prints it, [0, 1]
    where: str  # the cell, Inputs!E53

    def line(self) -> str:
        shown = f"{self.value!r}" if isinstance(self.value, str) else f"{self.value:g}"
        if isinstance(self.value, bool) or not isinstance(self.value, int | float):
            shown = f"{self.value!r} (not a number)"
        return f"{self.name} = {shown} is outside its valid range {self.valid} ({self.where})"


def range_of(name: str) -> ranges.Range | None:
    """The valid range of the input a defined name holds, or None (not an input with a range; a
    curve's cell holds text, checked by :func:`curve_problem`, its range is each factor's)."""
    if not name.startswith("inp_") or curve_of(name) is not None:
        return None
    key = name[4:]
    if key not in ranges.RANGES:
        key = _SUFFIX.sub("", key)
    return ranges.RANGES.get(key)


def curve_of(name: str) -> str | None:
    """The curve input (:data:`gputco.udfs.curves.CURVES`) a defined name holds, or None."""
    if not name.startswith("inp_"):
        return None
    key = name[4:] if name[4:] in curves.CURVES else _SUFFIX.sub("", name[4:])
    return key if key in curves.CURVES else None


def curve_form(name: str) -> str:
    """What the curve input ``name`` takes, with each factor's range."""
    key = curve_of(name)
    return f"a curve: factors by year as text ('1, 0.85'), each in {ranges.of(key).interval}, or a {key} finance preset key"


def curve_problem(name: str, value: object) -> str | None:
    """What is wrong with ``value`` in the curve input ``name``'s cell (the curve's own reading,
    :func:`gputco.udfs.curves.parse`, says it), or None where it reads."""
    try:
        curves.parse(curve_of(name), value)
    except GputcoError as e:
        return str(e)
    return None


def single_cells(wb: openpyxl.Workbook, names: Iterable[str]) -> dict[str, tuple[str, str]]:
    """{defined name: (sheet, "E53")} of the names that point at one cell."""
    out = {}
    for name in names:
        dests = list(wb.defined_names[name].destinations)
        if len(dests) == 1 and ":" not in dests[0][1]:
            out[name] = (dests[0][0], dests[0][1].replace("$", ""))
    return out


def values_of(wb: openpyxl.Workbook, cells: dict[str, tuple[str, str]]) -> dict[str, object]:
    """{key: value} of the cells {key: (sheet, "E53")}, one pass over each sheet's rows."""
    out = {}
    by_sheet: dict[str, dict[tuple[int, int], str]] = {}
    for key, (sheet, ref) in cells.items():
        letters, row = coordinate_from_string(ref)
        col = range_boundaries(f"{letters}1")[0]
        by_sheet.setdefault(sheet, {})[(row, col)] = key
    for sheet, wanted in by_sheet.items():
        if sheet not in wb.sheetnames:
            continue
        ws = wb[sheet]
        r0, r1 = min(r for r, _ in wanted), max(r for r, _ in wanted)
        c0, c1 = min(c for _, c in wanted), max(c for _, c in wanted)
        if (r1 - r0 + 1) * (c1 - c0 + 1) > _BLOCK_CELLS:  # far apart (an input at row 1,048,576
            for (r, col), key in wanted.items():  # and one at column XFD): each cell on its own
                ((out[key],),) = ws.iter_rows(
                    min_row=r, max_row=r, min_col=col, max_col=col, values_only=True
                )
            continue
        rows = ws.iter_rows(min_row=r0, max_row=r1, min_col=c0, max_col=c1, values_only=True)
        for r, row in enumerate(rows, r0):  # only the block the inputs span, never the whole sheet
            for col, value in enumerate(row, c0):
                key = wanted.get((r, col))
                if key is not None:
                    out[key] = value
    return out


#: cells of the block the named inputs span read in one pass; past it, each input alone (the
#: sheet's dimension and the other cells are never walked: a 2 KB file with an input at row
#: 1,048,576 and a 16,384-column dimension took 24 minutes when every row was walked whole)
_BLOCK_CELLS = 100_000


def _valid(value: object, r: ranges.Range) -> bool:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    ok_lo = value > r.lo if r.lo_open else value >= r.lo
    ok_hi = value < r.hi if r.hi_open else value <= r.hi
    return ok_lo and ok_hi and (not r.whole or float(value).is_integer())


def out_of_range(path: str | Path) -> tuple[str | None, list[OutOfRange]]:
    """(marker, the named inputs outside their range) of the workbook at ``path``; a workbook
    without the marker gives (None, [])."""
    with open(path, "rb") as fh:  # closed even when openpyxl cannot read the package
        wb = openpyxl.load_workbook(fh, read_only=True)
        kind = marker(wb)
        if kind is None:
            return None, []
        checked = [n for n in wb.defined_names if range_of(n) is not None or curve_of(n) is not None]
        cells = single_cells(wb, checked)
        values = values_of(wb, cells)
    bad = []
    for name, (sheet, ref) in cells.items():
        value = values.get(name)
        if value is None or value == "":  # blank: the preset is used
            continue
        if curve_of(name) is not None:
            problem = curve_problem(name, value)
            if problem is not None:
                bad.append(OutOfRange(name, value, f"{curve_form(name)} ({problem})", f"{sheet}!{ref}"))
            continue
        r = range_of(name)
        if not _valid(value, r):
            bad.append(OutOfRange(name, value, str(r), f"{sheet}!{ref}"))
    return kind, bad


def _shown(value: object) -> str:
    return ("TRUE" if value else "FALSE") if isinstance(value, bool) else repr(value)


def failed_checks(path: str | Path, computed: dict[tuple[str, str], object]) -> list[str] | None:
    """The rows of Checks whose OK cell is not TRUE, as "Checks row 8: capital_usd_per_gpu_hour
    (Model!D (System 1)) is FALSE", or None when the workbook has no ``chk_ok`` or it is TRUE.

    ``computed`` holds the recalculated values that differ from the stored ones ({(sheet, "G12"):
    value}, from ``--check``'s mismatches); every other cell's stored value is its computed one.
    """
    with open(path, "rb") as fh:
        wb = openpyxl.load_workbook(fh, read_only=True)
        if "chk_ok" not in wb.defined_names:
            return None
        ((sheet, ok_ref),) = single_cells(wb, ["chk_ok"]).values()
        ((formula,),) = wb[sheet].iter_rows(
            min_row=coordinate_from_string(ok_ref)[1],
            max_row=coordinate_from_string(ok_ref)[1],
            min_col=range_boundaries(ok_ref)[0],
            max_col=range_boundaries(ok_ref)[0],
            values_only=True,
        )
    with open(path, "rb") as fh:
        wb = openpyxl.load_workbook(fh, read_only=True, data_only=True)
        ok = computed.get((sheet, ok_ref), wb[sheet][ok_ref].value)
        if ok is True:
            return None
        m = _AND_RANGE.match(str(formula))
        if m is None:
            return [f"{sheet}!{ok_ref} (chk_ok) is {_shown(ok)}"]
        col, first, last = m.group(1), int(m.group(2)), int(m.group(4))
        ok_col = range_boundaries(f"{col}1")[0]
        out = []
        for r, cells in enumerate(wb[sheet].iter_rows(min_row=first, max_row=last, max_col=ok_col), first):
            value = computed.get((sheet, f"{col}{r}"), cells[ok_col - 1].value)
            if value is not True:
                out.append(f"{sheet} row {r}: {cells[0].value} ({cells[1].value}) is {_shown(value)}")
        return out or [f"{sheet}!{ok_ref} (chk_ok) is {_shown(ok)}"]
