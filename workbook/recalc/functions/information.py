"""Information: ISNUMBER, ISTEXT, ISBLANK, ISERROR, ISERR, ISNA, ISLOGICAL, ISNONTEXT, NA, ISREF,
ISODD, ISEVEN, ERROR.TYPE, INFO, ISFORMULA, N, TYPE, SHEET, SHEETS.

- ISREF(value) is TRUE for a reference (a cell, a range, or a function's reference result),
  FALSE for any other value, even a text spelling a reference ("A17").
- ISODD/ISEVEN(number): the number truncated; a blank is 0 (even); TRUE/FALSE and text that is
  not a number are #VALUE! (Microsoft: "If number is nonnumeric, ISEVEN returns the #VALUE!").
- ERROR.TYPE(error_val): 1 #NULL!, 2 #DIV/0!, 3 #VALUE!, 4 #REF!, 5 #NAME?, 6 #NUM!, 7 #N/A,
  8 #GETTING_DATA; any value that is not an error is #N/A (Microsoft's ERROR.TYPE page).
- ISFORMULA(reference) (Excel 2013): TRUE where the reference's top-left cell holds a formula;
  a value that is no reference is #VALUE! (Microsoft's ISFORMULA page).
- INFO(type_text): only the types whose answer the workbook defines, under labelled assumptions
  (Microsoft's INFO page): "numfile", the number of worksheets (assumption: this workbook is
  the only one open); "recalc", "Automatic" or "Manual" as the file's calculation mode says
  (workbook.xml ``calcPr calcMode``); "system", "pcdos" (assumption: Excel for Windows; Excel
  for the Mac says "mac"). A type_text that is no type is #VALUE!. "directory", "origin",
  "osversion", "release", "memavail", "memused", "totmem" depend on the application: formulas
  using them are unsupported (:func:`info_supported`). INFO is volatile in Excel, so
  ``--check`` reports its cells as recomputed rather than compared.
"""

from __future__ import annotations

import numpy as np

from gputco.workbook.recalc.base import vec
from gputco.workbook.recalc.base.rangeval import RangeVal, materialize
from gputco.workbook.recalc.base.values import ERRORS, NA, REF, VALUE, XlError, to_number
from gputco.workbook.recalc.formula.parse import Call, Const, Missing

from ._args import Spec, is_rangelike

#: INFO's type_text values (Microsoft's INFO page), and those the engine answers
INFO_TYPES = frozenset(
    {
        "DIRECTORY",
        "NUMFILE",
        "ORIGIN",
        "OSVERSION",
        "RECALC",
        "RELEASE",
        "SYSTEM",
        "MEMAVAIL",
        "MEMUSED",
        "TOTMEM",
    }
)
INFO_KNOWN = frozenset({"NUMFILE", "RECALC", "SYSTEM"})


def info_supported(node: Call) -> bool:
    """INFO with a type_text written as text that the engine answers, or that is no type at all
    (#VALUE!)."""
    if len(node.args) != 1 or type(node.args[0]) is not Const or not isinstance(node.args[0].value, str):
        return False
    kind = node.args[0].value.upper()
    return kind in INFO_KNOWN or kind not in INFO_TYPES


def _isformula(ctx, ref):
    texts = getattr(ctx.book, "formulas", None)
    if not isinstance(ref, RangeVal) or ref.store is None or texts is None:
        return vec.const(VALUE)
    if ctx.array and ctx.n == 1 and not ref.moving and ref.h * ref.w > 1:
        # an array formula: a value per cell of the reference (formulas' test.xlsx, INFORMATION!
        # AH10:AW10 {=ISFORMULA(C10:J10)} is TRUE at F10 "=10", EXTRA!BG76:BH94 alike)
        name = ref.store.name
        cells = [
            [texts.get(name, ref.r0 + i, ref.c0 + j) is not None for j in range(ref.w)] for i in range(ref.h)
        ]
        return np.array(cells, dtype=vec.BOOL).reshape(1, ref.h, ref.w)
    rows = np.atleast_1d(np.asarray(ref.r0)).tolist()
    return np.array([texts.get(ref.store.name, r, ref.c0) is not None for r in rows]).reshape(-1, 1, 1)


def _info(ctx, type_text):
    kinds = vec.texts(type_text)[0].ravel().tolist()
    kind = str(kinds[0]).upper() if len(set(kinds)) == 1 else None
    package = getattr(ctx.book, "package", None)
    if kind == "SYSTEM":
        return vec.const("pcdos")
    if kind == "NUMFILE" and package is not None:
        return vec.const(float(package.numfile))
    if kind == "RECALC" and package is not None:
        return vec.const(package.calc_mode)
    return vec.const(VALUE)


def _is(test, fast_float: bool, fast_bool: bool):
    def impl(x):
        if x.dtype == vec.FLOAT:
            return np.full(x.shape, fast_float)
        if x.dtype == vec.BOOL:
            return np.full(x.shape, fast_bool)
        return np.array([test(v) for v in x.ravel().tolist()], dtype=bool).reshape(x.shape)

    return impl


def _number(v):
    return isinstance(v, float) and not isinstance(v, bool)


def _isref(ctx, x):
    return np.full((ctx.n, 1, 1), isinstance(x, RangeVal))


def _parity(odd: bool):
    def one(v):
        if isinstance(v, XlError):
            return v
        f = VALUE if isinstance(v, bool) else to_number(v)
        return f if isinstance(f, XlError) else (int(f) % 2 == 1) == odd

    return lambda x: vec.elementwise(one, x)


_ERROR_TYPES = {
    ERRORS[c]: float(k)
    for k, c in enumerate(
        ("#NULL!", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#N/A", "#GETTING_DATA"), 1
    )
}


def _error_type(x):
    return vec.elementwise(lambda v: _ERROR_TYPES.get(v, NA) if isinstance(v, XlError) else NA, x)


def _first_cell(value):
    """A range's (an array's) first value, as T and N take it."""
    return materialize(value)[:, :1, :1] if is_rangelike(value) else value


def _n(value):
    """N(value): a number as it is (a date is its serial), TRUE 1, an error that error, anything
    else (text, FALSE, a blank) 0; of a range its first cell, as T (Microsoft's N page)."""

    def one(v):
        if isinstance(v, bool):
            return 1.0 if v else 0.0
        return v if isinstance(v, float | XlError) else 0.0

    return vec.elementwise(one, _first_cell(value))


def _type_code(v) -> float:
    if isinstance(v, bool):
        return 4.0
    if isinstance(v, str):
        return 2.0
    if isinstance(v, XlError):
        return 16.0
    return 1.0  # a number, or a blank cell (read as the number 0)


def _type(arg):
    """TYPE(value): 1 number (a blank cell too), 2 text, 4 logical value, 16 error value, 64 an
    array (a reference to several cells, or an array of several values), 128 compound data: a
    LAMBDA (formulas' Excel-saved test.xlsx INFORMATION!S24 TYPE(_xleta.SUM), the function SUM
    as a LAMBDA, is 128); errors do not propagate (Microsoft's TYPE page). The argument comes
    unevaluated (a LAMBDA's value would be #CALC!); anything else is read as a reference."""
    node = arg.node
    if type(node) is Call and node.name == "LAMBDA":
        return vec.const(128.0)
    value = vec.const(None) if type(node) is Missing else arg.evaluator.raw(node, arg.ctx)
    h, w = (value.h, value.w) if isinstance(value, RangeVal) else value.shape[1:]
    if h * w > 1:
        return vec.const(64.0)
    return vec.elementwise(_type_code, materialize(value)[:, :1, :1])


def _sheet_names(ctx) -> list[str]:
    package = getattr(ctx.book, "package", None)
    names = list(getattr(package, "sheet_names", None) or ())
    if not names and ctx.book is not None:
        names = [s.name for s in ctx.book.stores.values()]
    return names


def _sheet_index(names: list[str], name: str):
    upper = [n.upper() for n in names]
    return float(upper.index(name.upper()) + 1) if name.upper() in upper else NA


def _sheet(ctx, value=None):
    """SHEET([value]) (Excel 2013): the number of a sheet in the workbook's order, chart and
    dialog sheets counted (Microsoft's SHEET page): of the formula's own sheet when left out, of
    a reference's sheet, or of the sheet a text names; a text that names no sheet (or any other
    value) is #N/A."""
    names = _sheet_names(ctx)
    if value is None:
        return vec.const(_sheet_index(names, ctx.sheet))
    if isinstance(value, RangeVal):
        return vec.const(REF if value.store is None else _sheet_index(names, value.store.name))

    def one(v):
        if isinstance(v, XlError):
            return v
        return _sheet_index(names, v) if isinstance(v, str) else NA

    return vec.elementwise(one, value)


def _sheets(ctx, *refs):
    """SHEETS([reference]) (Excel 2013): the number of sheets in the workbook (chart and dialog
    sheets too) when left out, else of the reference: 1, or the sheets a 3-D reference spans
    (``Sheet1:Sheet3!A1``: the parser gives one reference a sheet); a value that is no reference
    is #REF! (Microsoft: "If reference is not a valid value, SHEETS returns the #REF! error
    value"; an error value gives that error)."""
    if not refs:
        return vec.const(float(len(_sheet_names(ctx))))
    for r in refs:
        if not isinstance(r, RangeVal):
            first = materialize(r).ravel()[0] if r is not None else None
            return vec.const(first if isinstance(first, XlError) else REF)
        if r.store is None:
            return vec.const(REF)
    return vec.const(float(len(refs)))


FUNCTIONS = {
    "N": Spec(_n, 1, 1, "r"),
    "TYPE": Spec(_type, 1, 1, "l"),
    "SHEET": Spec(_sheet, 0, 1, "r", needs_ctx=True),
    "SHEETS": Spec(_sheets, 0, 255, "r", needs_ctx=True),
    "ISREF": Spec(_isref, 1, 1, "r", needs_ctx=True),
    "ISODD": Spec(_parity(True), 1, 1),
    "ISEVEN": Spec(_parity(False), 1, 1),
    "ERROR.TYPE": Spec(_error_type, 1, 1),
    "ISNUMBER": Spec(_is(_number, True, False), 1, 1),
    "ISTEXT": Spec(_is(lambda v: isinstance(v, str), False, False), 1, 1),
    "ISNONTEXT": Spec(_is(lambda v: not isinstance(v, str), True, True), 1, 1),
    "ISBLANK": Spec(_is(lambda v: v is None, False, False), 1, 1),
    "ISLOGICAL": Spec(_is(lambda v: isinstance(v, bool), False, True), 1, 1),
    "ISERROR": Spec(_is(lambda v: isinstance(v, XlError), False, False), 1, 1),
    "ISERR": Spec(_is(lambda v: isinstance(v, XlError) and v is not NA, False, False), 1, 1),
    "ISNA": Spec(_is(lambda v: v is NA, False, False), 1, 1),
    "NA": Spec(lambda: vec.const(NA), 0, 0),
    "INFO": Spec(_info, 1, 1, needs_ctx=True),
    "ISFORMULA": Spec(_isformula, 1, 1, "r", needs_ctx=True),
}
