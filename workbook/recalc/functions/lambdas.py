"""LAMBDA and its helpers: MAP, REDUCE, SCAN, BYROW, BYCOL, MAKEARRAY, ISOMITTED (Excel 365).

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
(tests/test_recalc_lambdas.py).
"""

from __future__ import annotations

import numpy as np

from gputco.workbook.recalc.formula.parse import Call, Const, Missing, Param, substitute
from gputco.workbook.recalc.run import vec
from gputco.workbook.recalc.run.errors import UnsupportedValue
from gputco.workbook.recalc.run.values import CALC, VALUE, XlError

from ._args import Spec


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


def _size(arg) -> int | XlError:
    v = arg.value()
    f, e = vec.nums(v)
    if e is not None:
        return e[1][e[0]].ravel()[0]
    sizes = set(np.trunc(f).ravel().tolist())
    if len(sizes) != 1:
        raise UnsupportedValue("MAKEARRAY (sizes that differ between the cells of a filled-down formula)")
    return int(sizes.pop())


def _makearray(rows, cols, function):
    fn = _Function(function, 2)
    h, w = _size(rows), _size(cols)
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


FUNCTIONS = {
    "LAMBDA": Spec(_lambda, 0, 254, "l"),
    "ISOMITTED": Spec(_isomitted, 1, 1, "l"),
    "MAP": Spec(_helper(_map), 2, 254, "l"),
    "REDUCE": Spec(_helper(_reduce), 3, 3, "l"),
    "SCAN": Spec(_helper(_scan), 3, 3, "l"),
    "BYROW": Spec(_helper(_byrow), 2, 2, "l"),
    "BYCOL": Spec(_helper(_bycol), 2, 2, "l"),
    "MAKEARRAY": Spec(_helper(_makearray), 3, 3, "l"),
}
