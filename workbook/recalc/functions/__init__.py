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

import inspect
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
from ._args import LOGICAL_PARAMS, Spec

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
#: the functions of Excel's Analysis ToolPak (an add-in before Excel 2007, built in since) and
#: their Excel 2010/2013 siblings (ERF.PRECISE, IMCOSH, ...): an argument that takes one value
#: does not accept a reference to several cells (#VALUE!, in an array formula too: Excel does
#: not read the range's values or intersect it) nor a logical value (#VALUE!, typed or in a cell);
#: an array of values (an array constant, ``+A1:A3``) is taken element by element. Source: an
#: Excel-saved workbook, vinci1it2000/formulas test/test_files/test.xlsx (Microsoft Macintosh
#: Excel), sheets ENGINEERING, DATE & TIME, FINANCIAL, MATH & TRIG, INFORMATION: every cell of
#: {=BESSELI(C3:D3,E3)}, {=IMAGINARY(C30:E30)}, {=EDATE(E9:I9,C9:G9)}, {=MROUND(C45:G45,2)},
#: {=ISEVEN(C9:J9)}, ... is #VALUE!, and so are ERF.PRECISE(J22), CUMIPMT(J13,...) with J22, J13
#: TRUE and XIRR(..., TRUE)
ANALYSIS_TOOLPAK = frozenset(
    {
        "ACCRINT", "ACCRINTM", "AMORDEGRC", "AMORLINC", "BESSELI", "BESSELJ", "BESSELK", "BESSELY",
        "BIN2DEC", "BIN2HEX", "BIN2OCT", "COMPLEX", "CONVERT", "COUPDAYBS", "COUPDAYS",
        "COUPDAYSNC", "COUPNCD", "COUPNUM", "COUPPCD", "CUMIPMT", "CUMPRINC", "DEC2BIN", "DEC2HEX",
        "DEC2OCT", "DELTA", "DISC", "DOLLARDE", "DOLLARFR", "DURATION", "EDATE", "EFFECT",
        "EOMONTH", "ERF", "ERFC", "ERF.PRECISE", "ERFC.PRECISE", "FACTDOUBLE", "FVSCHEDULE",
        "GCD", "GESTEP", "HEX2BIN", "HEX2DEC", "HEX2OCT", "IMABS", "IMAGINARY", "IMARGUMENT",
        "IMCONJUGATE", "IMCOS", "IMCOSH", "IMCOT", "IMCSC", "IMCSCH", "IMDIV", "IMEXP", "IMLN",
        "IMLOG10", "IMLOG2", "IMPOWER", "IMPRODUCT", "IMREAL", "IMSEC", "IMSECH", "IMSIN",
        "IMSINH", "IMSQRT", "IMSUB", "IMSUM", "IMTAN", "INTRATE", "ISEVEN", "ISODD", "LCM",
        "MDURATION", "MROUND", "MULTINOMIAL", "NETWORKDAYS", "NOMINAL", "OCT2BIN", "OCT2DEC",
        "OCT2HEX", "ODDFPRICE", "ODDFYIELD", "ODDLPRICE", "ODDLYIELD", "PRICE", "PRICEDISC",
        "PRICEMAT", "QUOTIENT", "RECEIVED", "SERIESSUM", "SQRTPI", "TBILLEQ", "TBILLPRICE",
        "TBILLYIELD", "WEEKNUM", "WORKDAY", "XIRR", "XNPV", "YEARFRAC", "YIELD", "YIELDDISC",
        "YIELDMAT",
    }
)  # fmt: skip


@cache
def logical_positions(name: str) -> frozenset[int]:
    """The positions (from 0) of the parameters of built-in ``name`` that Excel documents as
    logical values (:data:`._args.LOGICAL_PARAMS`: ACCRINT's calc_method, the distributions'
    cumulative, ...); an Analysis ToolPak function takes TRUE and FALSE there only.

    >>> sorted(logical_positions("ACCRINT")), sorted(logical_positions("ERF"))
    ([7], [])
    """
    params = inspect.signature(BUILTINS[name].impl).parameters
    return frozenset(i for i, p in enumerate(params) if p in LOGICAL_PARAMS)


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
