"""Evaluate a formula tree for a whole group of cells at once.

A group is a run of cells in one column whose formulas have the same R1C1 shape. Every tree node
is evaluated once for the group, as numpy arrays of shape (m, h, w) (see :mod:`.vec`); a relative
reference becomes a block of rows that moves with the row. A single cell is a group of one.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from gputco.workbook.recalc.base import operators, vec
from gputco.workbook.recalc.base.errors import CellFailure, RecalcError, UnsupportedValue
from gputco.workbook.recalc.base.rangeval import RangeVal
from gputco.workbook.recalc.base.refs import Ref
from gputco.workbook.recalc.base.values import NA, NULL, REF, VALUE
from gputco.workbook.recalc.formula.parse import (
    ArrayConst,
    Binary,
    Call,
    Const,
    Missing,
    Node,
    RefNode,
    Unary,
)
from gputco.workbook.recalc.formula.shared import shared_parts
from gputco.workbook.recalc.functions import ANALYSIS_TOOLPAK, BUILTINS, NEVER, Spec, logical_positions
from gputco.workbook.recalc.functions.math import CLOCK, SEEDED
from gputco.workbook.recalc.read.limits import DEFAULT_LIMITS, EVALUATING, Limits, over
from gputco.workbook.recalc.run.scalar import Scalar, compile_scalar
from gputco.workbook.recalc.run.store import BookStore
from gputco.workbook.recalc.run.udf import TableResult


@dataclass(slots=True)
class Ctx:
    """Where a tree is evaluated: the sheet, the group's rows (n,), its column, array mode."""

    sheet: str
    rows: np.ndarray
    col: int
    array: bool = False
    book: BookStore | None = None  # for references made while evaluating (INDIRECT)
    #: the tree's parts that it holds more than once (formula.shared), and their values so far
    #: in this context: each such part is computed once (see Evaluator.run)
    parts: dict[int, int] | None = None
    memo: dict[int, object] | None = None

    @property
    def n(self) -> int:
        return len(self.rows)

    def arrayed(self) -> Ctx:
        if self.array:
            return self
        return Ctx(
            self.sheet, self.rows, self.col, True, self.book, self.parts, None if self.parts is None else {}
        )


@dataclass(slots=True, frozen=True)
class Unevaluated:
    """An argument handed over as its tree (Spec mode ``"l"``), with what evaluates it later."""

    evaluator: Evaluator
    node: Node
    ctx: Ctx

    def value(self, node: Node | None = None, ctx: Ctx | None = None) -> np.ndarray:
        """``node`` (default: the argument's own tree) evaluated as a value in ``ctx``."""
        return self.evaluator.value(self.node if node is None else node, ctx or self.ctx)


#: functions whose optional arguments left empty (``XLOOKUP(x, a, b, , 2)``) take their
#: documented defaults, as when they are left out
DEFAULTED = frozenset(
    {
        "XLOOKUP", "XMATCH", "OFFSET", "SORT", "SORTBY", "FILTER", "UNIQUE", "SEQUENCE", "TAKE",
        "DROP", "EXPAND", "WRAPROWS", "WRAPCOLS", "TOCOL", "TOROW", "CHOOSECOLS", "CHOOSEROWS",
        "HSTACK", "VSTACK", "INDEX", "SUMIF", "AVERAGEIF", "CELL", "ADDRESS", "TEXT", "TREND",
        "GROWTH", "LINEST", "LOGEST", "TEXTBEFORE", "TEXTAFTER", "TEXTSPLIT",
    }
)  # fmt: skip


#: lists of texts: an argument left empty there is "" (``CONCAT(,"D")`` is "D", as
#: ``CONCATENATE("a",,"b")`` is "ab"), not the number 0 of SUM's list
TEXT_LISTS = frozenset({"CONCAT", "TEXTJOIN"})


def _toolpak_value(r, logical_ok: bool = False) -> np.ndarray:
    """A one-value argument of an Analysis ToolPak function (:data:`ANALYSIS_TOOLPAK`): a
    reference to several cells is #VALUE! (neither read as an array nor intersected), a logical
    value is #VALUE! unless the parameter is a logical one (``logical_ok``:
    :func:`..functions.logical_positions`); other values as they are (an array of values is
    taken element by element)."""
    if isinstance(r, RangeVal):
        if r.h * r.w > 1:
            return vec.const(VALUE)
        r = r.values()
    arr = np.asarray(r)
    if logical_ok:
        return arr
    if arr.dtype == bool:
        return np.full(arr.shape, VALUE, dtype=object)
    if arr.dtype == object:
        logical = np.frompyfunc(lambda v: isinstance(v, bool | np.bool_), 1, 1)(arr).astype(bool)
        if logical.any():
            arr = arr.copy()
            arr[logical] = VALUE
    return arr


def _omitted(name: str, spec: Spec, i: int):
    """The value of an argument left empty between commas.

    Excel reads it as an empty value, not as the argument's default: 0 in arithmetic, "" in
    text, FALSE as a condition (``MROUND(5,)`` is 0, ``VLOOKUP(x, t, 2,)`` matches exactly,
    ``LEFT("abc",)`` is "", ``IF(FALSE, 1,)`` is 0); in the lists of SUM, MIN, COUNT, AND...
    it counts as the number 0 typed there (``MIN(5,)`` is 0). The functions of
    :data:`DEFAULTED` take their defaults instead (Python None), as for an argument left out.
    """
    if name in DEFAULTED and i >= spec.min_args:
        return None
    if (
        spec.modes[min(i, len(spec.modes) - 1)] in "ra"
        and (spec.max_args or 0) > 10
        and name not in TEXT_LISTS
    ):
        return vec.const(0.0)
    return vec.const(None)


#: no value computed yet (None is a value: a function may return it)
_NOTHING = object()


class Evaluator:
    """Evaluates trees against a :class:`.store.BookStore` with a table of function specs."""

    def __init__(
        self, book: BookStore, functions: Mapping[str, Spec], limits: Limits = DEFAULT_LIMITS
    ) -> None:
        self.book = book
        self.functions = functions
        self.limits = limits
        self._parts: dict[int, tuple[Node, dict[int, int]]] = {}  # by id(root), root kept alive
        self._pure: dict[str, bool] = {}
        self._scalar: dict[int, tuple[Node, Scalar | None]] = {}  # by id(root), root kept alive
        EVALUATING.set(limits)  # what functions that size an array first (SEQUENCE) check

    def _sized(self, what: str, cells: int) -> None:
        """The array-size budget on every intermediate result (limits.max_array_cells)."""
        if cells > self.limits.max_array_cells:
            raise over("max_array_cells", f"{what} would hold {cells:,} cells", self.limits)

    def pure(self, name: str) -> bool:
        """True for a built-in function whose calls with the same arguments in one cell give the
        same value: not a custom one, a volatile one (RAND, NOW) nor one that takes a LAMBDA."""
        known = self._pure.get(name)
        if known is None:
            spec = self.functions.get(name)
            known = self._pure[name] = (
                spec is not None
                and spec is BUILTINS.get(name)
                and "l" not in spec.modes
                and name not in NEVER
                and name not in CLOCK
                and name not in SEEDED
            )
        return known

    def parts(self, root: Node) -> dict[int, int]:
        """formula.shared's parts of a tree, found once per tree."""
        hit = self._parts.get(id(root))
        if hit is None or hit[0] is not root:
            hit = self._parts[id(root)] = (root, shared_parts(root, self.pure))
        return hit[1]

    def known_parts(self, root: Node, parts: dict[int, int]) -> None:
        """The parts of a tree found when it was compiled (a line's template: run.compile)."""
        self._parts[id(root)] = (root, parts)

    def scalar(self, root: Node) -> Scalar | None:
        """The tree compiled for one cell at a time (:mod:`.scalar`), once per tree; None where
        it holds parts that path does not compile."""
        hit = self._scalar.get(id(root))
        if hit is None or hit[0] is not root:
            hit = self._scalar[id(root)] = (root, compile_scalar(root, self.book, self.functions))
        return hit[1]

    def run(self, node: Node, ctx: Ctx) -> np.ndarray:
        """The group's results, shape (n,): top-left of any array, blanks as they are.

        A part that the tree holds more than once (formula.shared) is computed once; each place
        gets its own copy of the value, as if it had been computed there."""
        if ctx.book is None:
            ctx.book = self.book
        if ctx.parts is None:
            parts = self.parts(node)
            if parts:
                ctx.parts, ctx.memo = parts, {}
        result = self.raw(node, ctx)
        if isinstance(result, RangeVal):
            result = result.array_values() if ctx.array else result.intersect(ctx.rows, ctx.col)
        if result.size == 0:
            result = vec.const(VALUE)
        return vec.rows_of(result, ctx.n)

    def value(self, node: Node, ctx: Ctx) -> np.ndarray:
        """A node's value; references are read (intersected outside array formulas)."""
        memo = ctx.memo
        if memo is not None:
            k = ctx.parts.get(id(node))  # type: ignore[union-attr]
            if k is not None:
                k = ~k  # the value's key beside the raw result's (k)
                hit = memo.get(k, _NOTHING)
                if hit is _NOTHING:
                    hit = memo[k] = self._value(node, ctx)
                return hit.copy() if type(hit) is np.ndarray else hit
        return self._value(node, ctx)

    def _value(self, node: Node, ctx: Ctx) -> np.ndarray:
        r = self.raw(node, ctx)
        if isinstance(r, RangeVal):
            return r.array_values() if ctx.array else r.intersect(ctx.rows, ctx.col)
        return r

    def raw(self, node: Node, ctx: Ctx):
        """A node's result: an array, or a :class:`RangeVal` for references."""
        memo = ctx.memo
        if memo is not None:
            k = ctx.parts.get(id(node))  # type: ignore[union-attr]
            if k is not None:
                hit = memo.get(k, _NOTHING)
                if hit is _NOTHING:
                    hit = memo[k] = self._raw(node, ctx)
                return hit.copy() if type(hit) is np.ndarray else hit
        return self._raw(node, ctx)

    def _raw(self, node: Node, ctx: Ctx):
        t = type(node)
        if t is Const or t is ArrayConst:
            return node.arr
        if t is RefNode:
            return self.resolve(node.ref, ctx)
        if t is Binary:
            if node.op in (":", " "):
                return self._range_op(node.op, node, ctx)
            # a chain a+b+c+... is a left-leaning tree: walk down it in a loop, not by recursion
            spine = [node]
            left = node.left
            while type(left) is Binary and left.op not in (":", " "):
                spine.append(left)
                left = left.left
            acc = self.value(left, ctx)
            for b in reversed(spine):
                right = self.value(b.right, ctx)
                self._sized(f"the result of {b.op!r}", _cells(np.shape(acc), np.shape(right)))
                acc = operators.binary(b.op, acc, right)
            return acc
        if t is Call:
            return self.call(node, ctx)
        if t is Unary:
            v = self.value(node.arg, ctx)
            return operators.negate(v) if node.op == "-" else operators.percent(v)
        if t is Missing:
            return vec.const(None)
        raise TypeError(f"unknown node {node!r}")

    def resolve(self, ref: Ref, ctx: Ctx) -> RangeVal:
        store = self.book.sheet(ref.sheet or ctx.sheet)
        if ctx.n == 1 or ref.fixed_rows:
            top, left, bottom, right = ref.rect(int(ctx.rows[0]), ctx.col)
            return RangeVal(store, top, bottom - top + 1, left, right - left + 1)
        if not ref.same_height:
            raise ValueError("a range with one fixed and one moving end needs per-cell evaluation")
        _, left, _, right = ref.rect(0, ctx.col)
        lo, hi = min(ref.r1, ref.r2), max(ref.r1, ref.r2)
        return RangeVal(store, ctx.rows + lo, hi - lo + 1, left, right - left + 1)

    def call(self, node: Call, ctx: Ctx):
        spec = self.functions.get(node.name)
        if spec is None:
            raise KeyError(node.name)  # the planner reports unsupported names before this
        args = node.args
        if len(args) < spec.min_args or (spec.max_args is not None and len(args) > spec.max_args):
            return vec.const(VALUE)
        sub = ctx.arrayed() if spec.array else ctx
        vals = []
        modes = spec.modes
        for i, a in enumerate(args):
            mode = modes[min(i, len(modes) - 1)]
            if mode == "l":  # LAMBDA's parts, the LAMBDA helpers' functions: left unevaluated
                vals.append(Unevaluated(self, a, sub))  # (an empty one too: REDUCE(, A1:C2, ...))
            elif type(a) is Missing:  # an argument left empty between commas: see _omitted
                vals.append(_omitted(node.name, spec, i))
            elif mode == "r":
                vals.append(self.raw(a, sub))
            elif mode == "a":  # an array parameter: expressions are evaluated as arrays
                vals.append(self.raw(a, sub.arrayed()))
            elif node.name in ANALYSIS_TOOLPAK:
                vals.append(_toolpak_value(self.raw(a, sub), i in logical_positions(node.name)))
            else:
                vals.append(self.value(a, sub))
        try:
            out = spec.impl(ctx, *vals) if spec.needs_ctx else spec.impl(*vals)
            if isinstance(out, np.ndarray):
                self._sized(f"the result of {node.name}", out.size)
            if ctx.n == 1 and isinstance(out, np.ndarray) and out.ndim == 3 and out.shape[0] > 1:
                # one cell, yet a row per element of an array argument: lift the function instead
                lifted = self._lifted(spec, ctx, vals, modes)
                return out if lifted is None else lifted
            return out
        except ValueError:
            lifted = self._lifted(spec, ctx, vals, modes) if ctx.n == 1 else None
            if lifted is None:
                raise  # shapes retried cell by cell (see engine.py)
            return lifted
        except (RecalcError, UnsupportedValue, TableResult, IndexError, MemoryError):
            raise  # the engine's own signals, and shapes retried cell by cell (see engine.py)
        except Exception as err:  # a defect in the function: this cell's, never the file's
            raise CellFailure(node.name, err) from err

    def _lifted(self, spec: Spec, ctx: Ctx, vals: list, modes: str):
        """The function over each element of its value arguments that are arrays, for one cell
        (Excel lifts a function whose scalar argument gets an array: ``QUARTILE(A1:A9, {1,3})``
        is the array of both quartiles; a cell shows its top-left), or None where there is
        nothing to lift."""
        at = [
            i
            for i, v in enumerate(vals)
            if modes[min(i, len(modes) - 1)] == "v" and isinstance(v, np.ndarray) and v.ndim == 3 and v.shape[0] == 1
            and v.shape[1] * v.shape[2] > 1
        ]  # fmt: skip
        if not at:
            return None
        h = max(vals[i].shape[1] for i in at)
        w = max(vals[i].shape[2] for i in at)
        out = np.empty((1, h, w), dtype=object)
        for r in range(h):
            for c in range(w):
                # an array of one row (column) serves every row (column); a larger one that ends
                # before (r, c) gives #N/A there, as Excel pads arrays of different sizes
                ends = [
                    (vals[i].shape[1] == 1 or r < vals[i].shape[1])
                    and (vals[i].shape[2] == 1 or c < vals[i].shape[2])
                    for i in at
                ]
                if not all(ends):
                    out[0, r, c] = NA
                    continue
                one = list(vals)
                for i in at:
                    v = vals[i]
                    one[i] = v[
                        :, min(r, v.shape[1] - 1) : min(r, v.shape[1] - 1) + 1, min(c, v.shape[2] - 1) :
                    ][:, :, :1]
                res = spec.impl(ctx, *one) if spec.needs_ctx else spec.impl(*one)
                if isinstance(res, RangeVal):
                    res = res.intersect(ctx.rows, ctx.col)
                out[0, r, c] = np.asarray(res, dtype=object).reshape(-1)[0]
        return out

    def _range_op(self, op: str, node: Binary, ctx: Ctx):
        a, b = self.raw(node.left, ctx), self.raw(node.right, ctx)
        if isinstance(a, RangeVal) and isinstance(b, RangeVal) and (a.moving or b.moving):
            # ends that move with the row (INDEX(A1:A9,ROW()):B9 filled down): cell by cell
            raise ValueError("a range between references that move with the row needs per-cell evaluation")
        if not (isinstance(a, RangeVal) and isinstance(b, RangeVal)) or a.store is not b.store:
            return vec.const(VALUE if op != " " else NULL)
        if a.store is None:
            return vec.const(REF)
        top, bottom = (min, max) if op == ":" else (max, min)
        r1, c1 = top(a.r0, b.r0), top(a.c0, b.c0)
        r2, c2 = bottom(a.r0 + a.h, b.r0 + b.h), bottom(a.c0 + a.w, b.c0 + b.w)
        if r2 <= r1 or c2 <= c1:
            return vec.const(NULL)
        return RangeVal(a.store, r1, r2 - r1, c1, c2 - c1)


def _cells(a: tuple[int, ...], b: tuple[int, ...]) -> int:
    """Cells of an operator's result from its operands' shapes, before it is made: the larger of
    each dimension (broadcast, or padded with #N/A as Excel does when they do not match)."""
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)
    return math.prod(max(x, y) for x, y in zip(a, b, strict=True))
