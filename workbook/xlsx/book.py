"""The state shared while the finance workbook is built: the workbook, the systems, defined names
and where each keyed row landed, so that one sheet's formulas can point at another's cells.

Formulas are written from small templates so that they stay readable in the Python source:

- ``[key]`` is the cell of row ``key`` in the same column of the same sheet,
- ``[Sheet:key]`` the cell of row ``key`` on ``Sheet`` in the same column,
- ``[Sheet:key@1]`` that row's cell in the first system's column (absolute),
- ``{k}`` the 1-based system number of the column (for names such as ``inp_mfu_{k}``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from openpyxl import Workbook
from openpyxl.utils import get_column_letter, quote_sheetname
from openpyxl.workbook.defined_name import DefinedName
from openpyxl.worksheet.worksheet import Worksheet

#: first system column on the Inputs, Model and Compare sheets (D); A key/name, B label, C unit
FIRST_SYSTEM_COL = 4

_REF = re.compile(r"\[(?:(?P<sheet>[A-Za-z][\w.]*):)?(?P<key>[a-z0-9_]+)(?:@(?P<k>\d+))?\]")


@dataclass
class BookBuilder:
    """A workbook under construction."""

    wb: Workbook
    systems: list[str]
    buyer: str
    names: dict[str, str] = field(default_factory=dict)
    rows: dict[str, dict[str, int]] = field(default_factory=dict)

    @property
    def n(self) -> int:
        return len(self.systems)

    def system_col(self, k: int) -> int:
        """Column index of system ``k`` (1-based) on Inputs, Model and Compare."""
        return FIRST_SYSTEM_COL + k - 1

    def system_cols(self) -> range:
        return range(FIRST_SYSTEM_COL, FIRST_SYSTEM_COL + self.n)

    def define(self, name: str, ws: Worksheet, ref: str) -> None:
        """Define a workbook-scoped name for ``ref`` (e.g. "$D$5" or "$A$6:$A$9") on ``ws``."""
        if name in self.names:
            raise ValueError(f"defined name {name} used twice")
        text = f"{quote_sheetname(ws.title)}!{ref}"
        self.names[name] = text
        self.wb.defined_names[name] = DefinedName(name, attr_text=text)

    def define_cell(self, name: str, ws: Worksheet, row: int, col: int) -> None:
        self.define(name, ws, f"${get_column_letter(col)}${row}")

    def put_row(self, sheet: str, key: str, row: int) -> None:
        keys = self.rows.setdefault(sheet, {})
        if key in keys:
            raise ValueError(f"row key {key} used twice on {sheet}")
        keys[key] = row

    def row(self, sheet: str, key: str) -> int:
        return self.rows[sheet][key]

    def formula(self, template: str, sheet: str, col: int) -> str:
        """Expand a formula template (see the module docstring) for column ``col`` of ``sheet``."""
        k = col - FIRST_SYSTEM_COL + 1

        def ref(m: re.Match) -> str:
            target = m.group("sheet") or sheet
            row = self.rows[target][m.group("key")]
            if m.group("k"):
                cell = f"${get_column_letter(self.system_col(int(m.group('k'))))}${row}"
            else:
                cell = f"{get_column_letter(col)}{row}"
            return cell if target == sheet else f"{quote_sheetname(target)}!{cell}"

        return _REF.sub(ref, template).replace("{k}", str(k))
