"""Excel's Logical functions, LAMBDA and its helpers, and names defined by LAMBDA.

Logical: IF, IFERROR, IFNA, AND, OR, XOR, NOT, TRUE, FALSE, IFS, SWITCH.

IF evaluates both branches for the whole group and picks per row; an error in the branch not
taken never shows, as in Excel.

LAMBDA and its helpers: MAP, REDUCE, SCAN, BYROW, BYCOL, MAKEARRAY, ISOMITTED (Excel 365).

The parser turns ``LAMBDA(x, y, calculation)`` into ``Call("LAMBDA", [Param x, Param y,
calculation])`` and applies a LAMBDA that is called where it is written (``LAMBDA(x, x+1)(2)``,
``LET(f, LAMBDA(x, x+1), f(2))``, a defined name whose formula is a LAMBDA called as ``NAME(2)``)
by putting the argument trees in place of the parameters (:func:`..parse.substitute`). An omitted
argument (``f(1,)``) becomes a missing argument: ISOMITTED is TRUE for it, and it reads as a
blank. A LAMBDA that ends up as a cell's value is #CALC!, as in Excel; one called with the wrong
number of arguments is #VALUE!.

The helpers get their LAMBDA unevaluated and apply it to values here: the parameters are bound
to constant nodes holding the values, and the calculation is evaluated once per array element
for every cell of a filled-down group at once (values of shape (m, 1, 1)). Microsoft's pages:

- MAP(array1, [array2, ...], lambda): the LAMBDA of each element (of the arrays' same-position
  elements), an array of the same size; arrays of different sizes are #VALUE!;
- REDUCE([initial_value], array, lambda(accumulator, value)): the accumulator after the last
  element (row by row); SCAN: the array of the accumulator after each element;
- BYROW(array, lambda(row)) / BYCOL(array, lambda(column)): one value per row (a column) or per
  column (a row);
- MAKEARRAY(rows, cols, lambda(row, col)): rows x cols values of the LAMBDA of each 1-based
  position; rows or cols below 1 are #VALUE!;

and a LAMBDA that returns an array where one value is expected is #CALC! (Excel's nested-array
error); a function argument that is not a LAMBDA, or that takes another number of parameters,
is #VALUE!. LibreOffice 7.4 has none of these: the oracle is Microsoft's documentation
(tests/recalc/functions/test_logical.py).

LET: names for intermediate results inside one formula (Excel 365).

``LET(name1, value1, [name2, value2, ...], calculation)`` is resolved by the parser
(:meth:`..parse._Parser.let`): each name in the later arguments stands for its value's tree, so
what reaches the evaluator is ``LET(calculation)``, and this function hands the calculation's
result on unchanged (references stay references: ``LET(r, A1:A3, SUM(r))``). A LET without a
calculation is #VALUE!. LibreOffice 7.4 has no LET; the oracle is Microsoft's LET page (cited in
tests/recalc/run/test_spill.py).
"""

from __future__ import annotations

import numpy as np

from gputco.workbook.recalc.base import vec
from gputco.workbook.recalc.base.errors import UnsupportedValue
from gputco.workbook.recalc.base.rangeval import RangeVal
from gputco.workbook.recalc.base.values import CALC, NA, VALUE, XlError, approx_equal, to_bool
from gputco.workbook.recalc.formula.parse import Call, Const, Missing, Param, substitute

from ._args import Spec, as_value, given_rows, is_rangelike

# --- logic -----------------------------------------------------------------------------------------------


def _if(cond, *rest):
    """IF(c, yes[, no]): an omitted ``no`` is FALSE, an empty one (``IF(c, x, )``) is 0."""
    c, e = vec.bools(cond)
    yes = vec.const(0.0) if not rest or rest[0] is None else rest[0]
    no = vec.const(False) if len(rest) < 2 else vec.const(0.0) if rest[1] is None else rest[1]
    out = vec.select(c, yes, no)
    return vec.with_errors(out, e)


def _iferror(value, alt=None):
    alt = vec.const(0.0) if alt is None else alt
    return vec.select(vec.is_error_array(value), alt, value)


def _ifna(value, alt=None):
    alt = vec.const(0.0) if alt is None else alt
    if value.dtype != vec.OBJ:
        return value
    mask = np.array([v is NA for v in value.ravel().tolist()], dtype=bool).reshape(value.shape)
    return vec.select(mask, alt, value)


#: a text argument that is no logical value (its #VALUE! comes after any error value)
_TEXT_VALUE = object()


def _logicals(args):
    """Per row: list of boolean arrays (m, k) and the first error, Excel's AND/OR argument rules."""
    given, m = given_rows(args)
    parts, errs = [], []
    for a, flat in given:
        if flat.dtype == vec.FLOAT:
            parts.append((flat != 0.0).astype(np.int8))
            continue
        if flat.dtype == vec.BOOL:
            parts.append(flat.astype(np.int8))
            continue
        rangelike = is_rangelike(a)
        codes = []
        for v in flat.ravel().tolist():
            if isinstance(v, XlError):
                codes.append(v)
            elif isinstance(v, bool | float):
                codes.append(int(bool(v)))
            elif rangelike or v is None:
                codes.append(-1)  # text and blanks in ranges are skipped
            else:
                b = to_bool(v)
                codes.append(_TEXT_VALUE if isinstance(b, XlError) else int(b))
        err = np.array(
            [c if isinstance(c, XlError) or c is _TEXT_VALUE else None for c in codes], dtype=object
        )
        ints = np.array([c if isinstance(c, int) else -1 for c in codes], dtype=np.int8)
        parts.append(ints.reshape(flat.shape))
        errs.append(err.reshape(flat.shape))
    return parts, errs, m


def _combine(args, reduce):
    parts, errs, m = _logicals(args)
    if not parts:
        return vec.const(VALUE)
    allv = np.concatenate([np.broadcast_to(p, (m, p.shape[1])) for p in parts], axis=1)
    used = allv >= 0
    any_used = used.any(axis=1)
    r = reduce(allv, used)
    out = np.where(any_used, r, False).reshape(-1, 1, 1)
    if any_used.all() and not errs:
        return out
    res = out.astype(object)
    res[~any_used] = VALUE
    rows = [np.broadcast_to(e, (m, e.shape[1])) for e in errs]
    for i in range(m):
        found = [x for e in rows for x in e[i] if x is not None]
        # an error value wins over a text that is no logical, wherever it stands (formulas'
        # test.xlsx, LOGICAL!AP3 =AND(TRUE,"0",#REF!) and AP21 =OR(TRUE,"0",#REF!) are #REF!)
        hit = next((x for x in found if x is not _TEXT_VALUE), VALUE if found else None)
        if hit is not None:
            res[i, 0, 0] = hit
    return res


def _and(*args):
    return _combine(args, lambda v, used: np.all((v == 1) | ~used, axis=1))


def _or(*args):
    return _combine(args, lambda v, used: np.any(v == 1, axis=1))


def _xor(*args):
    return _combine(args, lambda v, used: (v == 1).sum(axis=1) % 2 == 1)


def _not(x):
    b, e = vec.bools(x)
    return vec.with_errors(~b, e)


def _uniform(x) -> object:
    """The single value of a condition or case that is the same for the whole group, or a
    sentinel when it varies by row (then the vector path runs)."""
    if isinstance(x, RangeVal) or x.shape != (1, 1, 1):
        return _VARIES
    return x.reshape(-1).tolist()[0]


_VARIES = object()


def _ifs(ctx, *args):
    """IFS(c1, v1, c2, v2, ...): the value of the first true condition, #N/A if none. With the
    conditions the same for the whole group, the chosen value is passed on as it is (a reference
    stays a reference: SUM(IFS(TRUE, A1:A3)) sums the range)."""
    if len(args) % 2:
        return vec.const(VALUE)
    pairs = list(zip(args[0::2], args[1::2], strict=True))
    fixed = [_uniform(c) for c, _ in pairs]
    if all(f is not _VARIES for f in fixed):
        for f, (_, value) in zip(fixed, pairs, strict=True):
            b = f if isinstance(f, XlError) else to_bool(f)
            if isinstance(b, XlError):
                return vec.const(b)
            if b:
                return vec.const(0.0) if value is None else value
        return vec.const(NA)
    out = vec.const(NA)
    for cond, value in reversed(pairs):
        c, e = vec.bools(cond)
        value = vec.const(0.0) if value is None else as_value(ctx, value)
        out = vec.with_errors(vec.select(c, value, out), e)
    return out


def _same(a, b) -> bool:
    """SWITCH's equality: same type (numbers within Excel's precision, text case-insensitively,
    booleans), a blank equal to a blank or to "" only; an error case never matches."""
    if a is None:
        return b is None or b == ""
    if b is None:
        return a == ""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, float) and isinstance(b, float):
        return approx_equal(a, b)
    if isinstance(a, str) and isinstance(b, str):
        return a.lower() == b.lower()
    return False


def _switch(ctx, expr, *args):
    """SWITCH(x, v1, r1, ..., [default]): the result for the first value equal to x."""
    n = len(args) // 2
    pairs = [(args[2 * k], args[2 * k + 1]) for k in range(n)]
    default = args[-1] if len(args) % 2 else None
    expr = as_value(ctx, expr)
    cases = [vec.const(0.0) if v is None else as_value(ctx, v) for v, _ in pairs]
    x = _uniform(expr)
    if x is not _VARIES and all(_uniform(c) is not _VARIES for c in cases):
        if isinstance(x, XlError):
            return vec.const(x)
        for c, (_, res) in zip(cases, pairs, strict=True):
            if _same(x, _uniform(c)):
                return vec.const(0.0) if res is None else res
        return vec.const(NA) if default is None else default
    out = vec.const(NA) if default is None else as_value(ctx, default)
    for c, (_, res) in reversed(list(zip(cases, pairs, strict=True))):
        hit = vec.elementwise(lambda a, b: a if isinstance(a, XlError) else _same(a, b), expr, c)
        h, e = vec.bools(hit)
        res = vec.const(0.0) if res is None else as_value(ctx, res)
        out = vec.with_errors(vec.select(h, res, out), e)
    return out


_LOGIC_FUNCTIONS = {
    "IFS": Spec(_ifs, 2, 254, "vr" * 127, needs_ctx=True),
    "SWITCH": Spec(_switch, 3, 254, "r", needs_ctx=True),
    "IF": Spec(_if, 2, 3),
    "IFERROR": Spec(_iferror, 2, 2),
    "IFNA": Spec(_ifna, 2, 2),
    "AND": Spec(_and, 1, 255, "r"),
    "OR": Spec(_or, 1, 255, "r"),
    "XOR": Spec(_xor, 1, 255, "r"),
    "NOT": Spec(_not, 1, 1),
    "TRUE": Spec(lambda: vec.const(True), 0, 0),
    "FALSE": Spec(lambda: vec.const(False), 0, 0),
}


# --- lambdas ---------------------------------------------------------------------------------------------


def _lambda(*parts):
    """A LAMBDA not called: its value in a cell is #CALC!."""
    return vec.const(CALC)


def _isomitted(arg):
    """ISOMITTED(argument): TRUE for a LAMBDA parameter whose argument was left empty."""
    return vec.const(arg is None or type(arg.node) is Missing)


def _holder(arr: np.ndarray) -> Const:
    """A constant node standing for a parameter's value."""
    node = Const.__new__(Const)
    node.value, node.arr = None, arr
    return node


class _Function:
    """A helper's LAMBDA argument with ``n`` parameters, applied to values."""

    def __init__(self, arg, n: int) -> None:
        node = arg.node
        ok = type(node) is Call and node.name == "LAMBDA" and node.args
        params = node.args[:-1] if ok else []
        if not ok or len(params) != n or any(type(p) is not Param for p in params):
            raise _NotAFunction
        self.arg, self.names, self.body = arg, [p.name for p in params], node.args[-1]

    def __call__(self, *values: np.ndarray) -> np.ndarray:
        tree = substitute(self.body, {k: _holder(v) for k, v in zip(self.names, values, strict=True)})
        return self.arg.value(tree)


class _NotAFunction(Exception):
    pass


def _array(arg) -> np.ndarray:
    """An array argument's values (references read whole), shape (m, h, w)."""
    return arg.value(ctx=arg.ctx.arrayed())


def _one(result: np.ndarray) -> np.ndarray:
    """A LAMBDA's result where one value is expected: (m, 1, 1), #CALC! for an array."""
    if result.shape[1] * result.shape[2] != 1:
        return vec.const(CALC)
    return result


def _assemble(cells: list[list[np.ndarray]]) -> np.ndarray:
    """(m, h, w) from h rows of w (m_i, 1, 1) results."""
    h, w = len(cells), len(cells[0])
    m = max(c.shape[0] for row in cells for c in row)
    out = np.empty((m, h, w), dtype=vec.OBJ)
    for i, row in enumerate(cells):
        for j, c in enumerate(row):
            out[:, i, j] = np.broadcast_to(c[:, 0, 0], (m,))
    return vec.from_list(out.ravel().tolist(), out.shape)


def _helper(impl):
    def run(*args):
        try:
            return impl(*args)
        except _NotAFunction:
            return vec.const(VALUE)

    return run


def _map(*args):
    if len(args) < 2:
        return vec.const(VALUE)
    arrays = [_array(a) for a in args[:-1]]
    fn = _Function(args[-1], len(arrays))
    shapes = {a.shape[1:] for a in arrays}
    if len(shapes) != 1:
        return vec.const(VALUE)
    h, w = shapes.pop()
    return _assemble(
        [[_one(fn(*(a[:, i : i + 1, j : j + 1] for a in arrays))) for j in range(w)] for i in range(h)]
    )


def _accumulate(initial, array, function, keep: bool):
    fn = _Function(function, 2)
    acc = vec.const(None) if initial is None or type(initial.node) is Missing else initial.value()
    arr = _array(array)
    h, w = arr.shape[1:]
    steps = []
    for i in range(h):
        row = []
        for j in range(w):
            acc = fn(acc, arr[:, i : i + 1, j : j + 1])
            if keep:
                row.append(_one(acc))
        steps.append(row)
    return _assemble(steps) if keep else acc


def _reduce(initial, array, function):
    return _accumulate(initial, array, function, keep=False)


def _scan(initial, array, function):
    return _accumulate(initial, array, function, keep=True)


def _byrow(array, function):
    fn, arr = _Function(function, 1), _array(array)
    return _assemble([[_one(fn(arr[:, i : i + 1, :]))] for i in range(arr.shape[1])])


def _bycol(array, function):
    fn, arr = _Function(function, 1), _array(array)
    return _assemble([[_one(fn(arr[:, :, j : j + 1])) for j in range(arr.shape[2])]])


def _size(v) -> int | XlError:
    f, e = vec.nums(v)
    if e is not None:
        return e[1][e[0]].ravel()[0]
    sizes = set(f.ravel().tolist())
    if len(sizes) != 1:
        raise UnsupportedValue("MAKEARRAY (sizes that differ between the cells of a filled-down formula)")
    size = sizes.pop()
    # a size that is no whole number is #VALUE! (formulas' test.xlsx LOGICAL!T15
    # =MAKEARRAY(2.3,"1",...), T14 of {=MAKEARRAY(C14:Q14,1,...)} with E14 2.3)
    return int(size) if size == int(size) else VALUE


def _makearray(rows, cols, function):
    fn = _Function(function, 2)
    rv, cv = rows.value(), cols.value()
    several = [v for v in (rv, cv) if v.ndim == 3 and v.shape[0] == 1 and v.shape[1] * v.shape[2] > 1]
    if not several:
        return _make(fn, rv, cv)
    # arrays of sizes: one array per pair, shown by its top-left value (Excel's LOGICAL!R14:AF14
    # {=MAKEARRAY(C14:Q14,1,LAMBDA(x,y,x+1+y))} is 3 for each size 1, 2, 3, TRUE)
    h, w = max(v.shape[1] for v in several), max(v.shape[2] for v in several)
    out = np.empty((1, h, w), dtype=object)
    for r in range(h):
        for c in range(w):
            parts = []
            for v in (rv, cv):
                if v.shape[1] * v.shape[2] == 1:
                    parts.append(v[:, :1, :1])
                elif (v.shape[1] == 1 or r < v.shape[1]) and (v.shape[2] == 1 or c < v.shape[2]):
                    i, j = min(r, v.shape[1] - 1), min(c, v.shape[2] - 1)
                    parts.append(v[:, i : i + 1, j : j + 1])
                else:
                    parts.append(None)
            one = NA if any(p is None for p in parts) else _make(fn, *parts)
            out[0, r, c] = one if isinstance(one, XlError) else np.asarray(one, dtype=object).reshape(-1)[0]
    return out


def _make(fn, rv, cv):
    h, w = _size(rv), _size(cv)
    if isinstance(h, XlError) or isinstance(w, XlError):
        return vec.const(h if isinstance(h, XlError) else w)
    if h < 1 or w < 1:
        return vec.const(VALUE)
    return _assemble(
        [
            [_one(fn(vec.const(float(i)), vec.const(float(j)))) for j in range(1, w + 1)]
            for i in range(1, h + 1)
        ]
    )


_LAMBDAS_FUNCTIONS = {
    "LAMBDA": Spec(_lambda, 0, 254, "l"),
    "ISOMITTED": Spec(_isomitted, 1, 1, "l"),
    "MAP": Spec(_helper(_map), 2, 254, "l"),
    "REDUCE": Spec(_helper(_reduce), 3, 3, "l"),
    "SCAN": Spec(_helper(_scan), 3, 3, "l"),
    "BYROW": Spec(_helper(_byrow), 2, 2, "l"),
    "BYCOL": Spec(_helper(_bycol), 2, 2, "l"),
    "MAKEARRAY": Spec(_helper(_makearray), 3, 3, "l"),
}


# --- names -----------------------------------------------------------------------------------------------


def _let(calculation):
    return calculation


_NAMES_FUNCTIONS = {
    "LET": Spec(_let, 1, 1, "r"),
}


FUNCTIONS = {**_LOGIC_FUNCTIONS, **_LAMBDAS_FUNCTIONS, **_NAMES_FUNCTIONS}
