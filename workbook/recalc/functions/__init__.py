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

#: functions that reach outside the workbook or depend on state we do not model; never executed
#: (CELL runs only with the info types that depend on the workbook alone: see lookup.py)
NEVER = frozenset(
    {
        "WEBSERVICE",
        "CALL",
        "REGISTER.ID",
        "HYPERLINK",
        "RTD",
        "DDE",
        "FILTERXML",
        "INFO",
        "RAND",
        "RANDBETWEEN",
        "NOW",
        "TODAY",
    }
)
