"""Excel's built-in functions, vectorised, grouped by Excel's own categories.

Each function is registered with a :class:`Spec`: how many arguments it takes, whether each one is
read as a value (``"v"``: references are read, with implicit intersection outside array formulas)
or passed raw (``"r"``: references stay references, for SUM, INDEX, MATCH...), or is an array
parameter (``"a"``: raw, and an expression in it is evaluated as an array even outside array
formulas, and so are the functions nested in it: MATCH's lookup_array, LOOKUP's vectors, so that
``MATCH(TRUE, INDEX(A1:A9>0, 0), 0)`` works without Ctrl+Shift+Enter), or is left
unevaluated (``"l"``: LAMBDA's parameters and calculation, the LAMBDA helpers' functions,
ISOMITTED's argument: the function gets an ``evaluate.Unevaluated``), and whether its
arguments are evaluated as arrays (``array=True``: SUMPRODUCT). ``BUILTINS`` is the full table.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib.resources import files

from . import (
    arrays,
    database,
    datetime,
    engineering,
    financial,
    information,
    logical,
    lookup,
    math,
    statistical,
    text,
)
from ._args import Spec

#: one module per Excel category (Microsoft's "Excel functions (by category)")
CATEGORY_MODULES = (
    math,
    statistical,
    database,
    logical,
    information,
    text,
    lookup,
    datetime,
    financial,
    engineering,
    arrays,
)


def _table() -> dict[str, Spec]:
    table: dict[str, Spec] = {}
    for module in CATEGORY_MODULES:
        for name, spec in module.FUNCTIONS.items():
            if name in table:
                raise RuntimeError(
                    f"{name} is defined twice: in {table[name].impl.__module__} and {module.__name__}"
                )
            table[name] = spec
    return table


BUILTINS: dict[str, Spec] = _table()

#: functions that reach outside the workbook, or volatile ones: never executed, except NOW and
#: TODAY at a pinned time and RAND, RANDBETWEEN, RANDARRAY with a pinned seed (math.py); CELL
#: and INFO run only with the info types the engine can know (lookup.py, information.py)
NEVER = frozenset(
    {
        "WEBSERVICE",
        "CALL",
        "REGISTER.ID",
        "HYPERLINK",
        "RTD",
        "DDE",
        "FILTERXML",
        "RAND",
        "RANDBETWEEN",
        "RANDARRAY",
        "NOW",
        "TODAY",
    }
)


# The function table: Microsoft's category, version and page of each Excel function (docs/functions.md)


@dataclass(frozen=True)
class Entry:
    """One Excel function as Microsoft documents it."""

    name: str
    category: str  # Microsoft's category ("Math and trigonometry", "Compatibility", ...)
    version: str  # "before 2010" (no version marker on Microsoft's page), "2010" ... "2024", "365"
    url: str  # the function's page on support.microsoft.com

    @property
    def excel(self) -> str:
        """The version as a person reads it: "Excel 2021", "Microsoft 365", "Excel 2007 or earlier"."""
        if self.version == "before 2010":
            return "Excel 2007 or earlier"
        return "Microsoft 365" if self.version == "365" else f"Excel {self.version}"


@cache
def excel_functions() -> dict[str, Entry]:
    """Every function of the table, by upper-case name."""
    text = files("gputco.workbook.recalc.functions").joinpath("excel_functions.tsv").read_text("utf-8")
    rows = [line.split("\t") for line in text.splitlines() if line and not line.startswith("#")]
    header, body = rows[0], rows[1:]
    if header != ["name", "category", "version", "url"]:
        raise ValueError(f"excel_functions.tsv: unexpected header {header}")
    return {row[0]: Entry(*row) for row in body}


def about(name: str) -> str:
    """``name`` with its category, version and Microsoft page, or ``name`` alone when Excel has no such function.

    >>> about("XLOOKUP")
    'XLOOKUP (Lookup and reference, Excel 2021: https://support.microsoft.com/en-us/office/xlookup-function-b7fd680e-6d10-43e6-84f9-88eae8bf5929)'
    """
    entry = excel_functions().get(name.upper())
    if entry is None:
        return name
    return f"{entry.name} ({entry.category}, {entry.excel}: {entry.url})"
