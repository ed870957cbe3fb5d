"""One cell's formula as plain Python: the fast path for cells that are groups of one.

A workbook laid out with periods across columns (a monthly project sheet) makes every formula
cell a group of its own: the array path of :mod:`.evaluate` then pays numpy's cost per node for
one value. :func:`compile_scalar` turns a tree made only of the commonest parts (constants,
one-cell references, ``+ - * / ^``, comparisons, unary ``-`` and ``%``, IF, MIN, MAX, AND, OR,
ISNUMBER, LN) into nested closures over Python values, and gives up (None) on any other tree.

The closures compute what the array path computes, bit for bit, on the values they accept; on
anything else they raise :class:`Bail` and the caller evaluates that cell on the array path,
which stays the reference: an error value made or met by an operator or a function (one read
and handed on as it is stays a value), a text where a number is needed, a blank as a condition,
a result that is not finite, a tie of 0 and -0 in MIN or MAX (which numpy breaks its own way). Sums snap to zero as :func:`..operators.arith` does, comparisons take
numbers equal to 15 digits as equal, and ``^`` and LN go through the same numpy loops on
one-element arrays (numpy's vectorised power and log may round otherwise than the C library's).
tests/recalc/run/test_scalar.py holds the two paths to the same bits on random formulas.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

import numpy as np

from gputco.workbook.recalc.base.operators import ORDER_TESTS
from gputco.workbook.recalc.base.values import EPS48, approx_equal, compare
from gputco.workbook.recalc.formula.parse import Binary, Call, Const, RefNode, Unary
from gputco.workbook.recalc.functions import BUILTINS
from gputco.workbook.recalc.run.store import BookStore, SheetStore

#: a compiled tree: its value at (row, col) of the formula's sheet
Scalar = Callable[[SheetStore, int, int], object]

#: the most cells a range argument of MIN, MAX, AND or OR may span on this path
MAX_RANGE = 64
#: the deepest tree this path compiles (its closures nest as deep: Python's stack bounds them)
MAX_DEPTH = 64


class Bail(Exception):
    """This cell's value is not one the scalar path computes: evaluate it on the array path."""


class _Unsupported(Exception):
    """A tree (part) the scalar path does not compile."""


def compile_scalar(node, book: BookStore, functions: Mapping[str, object]) -> Scalar | None:
    """The tree as a function of (sheet store, row, col), or None where the tree holds a part
    this path does not compile (or a function that ``functions`` does not map to the built-in
    of that name: a custom function of the same name wins)."""
    if _deeper_than(node, MAX_DEPTH):
        return None  # (a chain of thousands of operators: tests/test_hostile.py's long chain)
    try:
        return _Compiler(book, functions).node(node)
    except _Unsupported:
        return None


def _deeper_than(root, limit: int) -> bool:
    """Whether the tree nests more than ``limit`` nodes deep (every node counts: the closures
    call each other as deep as the tree is)."""
    stack = [(root, 1)]
    while stack:
        node, level = stack.pop()
        if level > limit:
            return True
        t = type(node)
        if t is Binary:
            stack.append((node.left, level + 1))
            stack.append((node.right, level + 1))
        elif t is Unary:
            stack.append((node.arg, level + 1))
        elif t is Call:
            stack.extend((a, level + 1) for a in node.args)
    return False


def _number(v) -> float:
    """A value as a number for arithmetic: blank 0, TRUE 1; text and errors are not this path's."""
    t = type(v)
    if t is float:
        return v
    if v is None:
        return 0.0
    if t is bool:
        return 1.0 if v else 0.0
    raise Bail


def _finite(r: float) -> float:
    if not math.isfinite(r):  # #NUM! or #DIV/0! on the array path
        raise Bail
    return r


def _power(a: float, b: float) -> float:
    if a == 0.0 and b <= 0.0:
        raise Bail  # 0^0 #NUM!, 0^-1 #DIV/0!
    one = np.power(np.array([a]), np.array([b]))
    return _finite(float(one[0]))


def _ln(x: float) -> float:
    return _finite(float(np.log(np.array([x]))[0]))


def _arith(op: str, left: Scalar, right: Scalar) -> Scalar:
    if op == "+":

        def f(s, r, c):
            a = _number(left(s, r, c))
            x = a + _number(right(s, r, c))
            if abs(x) < abs(a) * EPS48:  # cancels to within 15 digits: 0 (operators._snap)
                return 0.0
            return _finite(x)

    elif op == "-":

        def f(s, r, c):
            a = _number(left(s, r, c))
            x = a - _number(right(s, r, c))
            if abs(x) < abs(a) * EPS48:
                return 0.0
            return _finite(x)

    elif op == "*":

        def f(s, r, c):
            return _finite(_number(left(s, r, c)) * _number(right(s, r, c)))

    elif op == "/":

        def f(s, r, c):
            a = _number(left(s, r, c))
            b = _number(right(s, r, c))
            if b == 0.0:
                raise Bail
            return _finite(a / b)

    else:

        def f(s, r, c):
            return _power(_number(left(s, r, c)), _number(right(s, r, c)))

    return f


def _comparison(op: str, left: Scalar, right: Scalar) -> Scalar:
    """Two numbers as operators.comparison compares float arrays (equal to 15 digits, else by
    order); anything else (text, blanks, logical values) by values.compare, as it compares other
    arrays element by element."""
    order = ORDER_TESTS[op]

    def f(s, r, c):
        a, b = left(s, r, c), right(s, r, c)
        if type(a) is float and type(b) is float:
            return order(0 if approx_equal(a, b) else -1 if a < b else 1)
        k = compare(a, b)
        if type(k) is not int:
            raise Bail  # an error value
        return order(k)

    return f


class _Compiler:
    def __init__(self, book: BookStore, functions: Mapping[str, object]) -> None:
        self.book, self.functions = book, functions

    def node(self, node) -> Scalar:
        t = type(node)
        if t is Const:
            return self.const(node.value)
        if t is RefNode:
            return self.cell(node.ref)
        if t is Binary:
            left, right = self.node(node.left), self.node(node.right)
            if node.op in "+-*/^" and len(node.op) == 1:
                return _arith(node.op, left, right)
            if node.op in ORDER_TESTS:
                return _comparison(node.op, left, right)
            raise _Unsupported
        if t is Unary:
            arg = self.node(node.arg)
            if node.op == "-":
                return lambda s, r, c: -_number(arg(s, r, c))
            return lambda s, r, c: _number(arg(s, r, c)) / 100.0
        if t is Call:
            if node.name not in _CALLS or self.functions.get(node.name) is not BUILTINS.get(node.name):
                raise _Unsupported
            return _CALLS[node.name](self, node.args)
        raise _Unsupported  # array constants, omitted arguments, anything else

    def const(self, v) -> Scalar:
        if type(v) is int:
            v = float(v)
        if type(v) not in (float, bool, str):
            raise _Unsupported  # an error constant
        return lambda s, r, c: v

    def _store(self, ref) -> SheetStore | None:
        """The store of a reference's own sheet (None: the formula's sheet, given at run time)."""
        if ref.sheet is None:
            return None
        store = self.book.sheet(ref.sheet)
        if store is None:
            raise _Unsupported  # #REF!
        return store

    def cell(self, ref) -> Scalar:
        """A reference to one cell wherever the formula sits."""
        if (ref.r1, ref.ar1, ref.c1, ref.ac1) != (ref.r2, ref.ar2, ref.c2, ref.ac2):
            raise _Unsupported  # a range: read as a value, it is an implicit intersection
        own = self._store(ref)
        dr, dc = ref.r1, ref.c1
        fixed_r, fixed_c = ref.ar1, ref.ac1

        def f(s, r, c):
            row = dr if fixed_r else r + dr
            col = dc if fixed_c else c + dc
            if row < 1 or col < 1:
                raise Bail
            return (own or s).get(row, col)

        return f

    def cells(self, node) -> Callable[[SheetStore, int, int], list] | None:
        """A reference argument of at most :data:`MAX_RANGE` cells as a function giving its
        values (None for an argument that is not a reference)."""
        if type(node) is not RefNode:
            return None
        ref = node.ref
        own = self._store(ref)
        if ref.ar1 != ref.ar2 or ref.ac1 != ref.ac2:
            raise _Unsupported  # one end fixed, one moving
        h, w = abs(ref.r2 - ref.r1) + 1, abs(ref.c2 - ref.c1) + 1
        if h * w > MAX_RANGE:
            raise _Unsupported

        def f(s, r, c):
            top, left, bottom, right = ref.rect(r, c)
            if top < 1 or left < 1:
                raise Bail
            store = own or s
            get = store.get
            return [get(i, j) for i in range(top, bottom + 1) for j in range(left, right + 1)]

        return f

    # --- functions ---------------------------------------------------------------------------

    def if_(self, args) -> Scalar:
        if not 2 <= len(args) <= 3:
            raise _Unsupported
        cond, yes = self.node(args[0]), self.node(args[1])
        no = self.node(args[2]) if len(args) == 3 else (lambda s, r, c: False)

        def f(s, r, c):
            v = cond(s, r, c)
            t = type(v)
            if t is bool:
                pass
            elif t is float:
                v = v != 0.0
            else:
                raise Bail  # a blank, a text (TRUE/FALSE or #VALUE!), an error
            return yes(s, r, c) if v else no(s, r, c)

        return f

    def arguments(self, args) -> list[tuple]:
        """The arguments of a list function (MIN, AND, ...): (cells, None) for a reference,
        (None, value) for any other argument."""
        if not args:
            raise _Unsupported
        return [(self.cells(a), None if type(a) is RefNode else self.node(a)) for a in args]

    def extreme(self, largest: bool, args) -> Scalar:
        """MIN/MAX: the numbers of references (blanks, text and logical values skipped) and of
        values that are numbers; 0 when there are none."""
        parts = self.arguments(args)

        def f(s, r, c):
            found = []
            for ref, value in parts:
                if ref is None:
                    v = value(s, r, c)
                    if type(v) is not float:
                        raise Bail
                    found.append(v)
                    continue
                for v in ref(s, r, c):
                    t = type(v)
                    if t is float:
                        found.append(v)
                    elif v is not None and t is not str and t is not bool:
                        raise Bail  # an error value
            if not found:
                return 0.0
            best = max(found) if largest else min(found)
            if best == 0.0 and len({np.copysign(1.0, v) for v in found if v == 0.0}) > 1:
                raise Bail  # 0 and -0: numpy picks one its own way
            return best

        return f

    def logical(self, every: bool, args) -> Scalar:
        """AND/OR: numbers (non-zero TRUE) and logical values; references skip blanks and text;
        none at all is #VALUE! (left to the array path)."""
        parts = self.arguments(args)

        def f(s, r, c):
            found = []
            for ref, value in parts:
                vals = [value(s, r, c)] if ref is None else ref(s, r, c)
                for v in vals:
                    t = type(v)
                    if t is bool:
                        found.append(v)
                    elif t is float:
                        found.append(v != 0.0)
                    elif ref is None or (v is not None and t is not str):
                        raise Bail  # an error, or a value that is no logical one
            if not found:
                raise Bail
            return all(found) if every else any(found)

        return f

    def one_arg(self, args) -> Scalar:
        """A function's one argument (a reference to several cells is not compiled: cell)."""
        if len(args) != 1:
            raise _Unsupported
        return self.node(args[0])


def _isnumber(comp: _Compiler, args) -> Scalar:
    arg = comp.one_arg(args)
    return lambda s, r, c: type(arg(s, r, c)) is float


def _ln_call(comp: _Compiler, args) -> Scalar:
    arg = comp.one_arg(args)

    def f(s, r, c):
        v = arg(s, r, c)
        if type(v) is not float or v <= 0.0:
            raise Bail
        return _ln(v)

    return f


_CALLS: dict[str, Callable[[_Compiler, list], Scalar]] = {
    "IF": _Compiler.if_,
    "MIN": lambda comp, args: comp.extreme(False, args),
    "MAX": lambda comp, args: comp.extreme(True, args),
    "AND": lambda comp, args: comp.logical(True, args),
    "OR": lambda comp, args: comp.logical(False, args),
    "ISNUMBER": _isnumber,
    "LN": _ln_call,
}
