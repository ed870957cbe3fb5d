"""Formula text to compiled shapes, parsing each distinct R1C1 shape only once.

A 10,000-row column written by openpyxl holds 10,000 formula texts that differ only in their row
numbers. :func:`.refs.shape_key` rewrites a text to its R1C1 form with one regular-expression pass;
the first cell with a new key is tokenized and parsed, the others reuse that tree (on every sheet
without defined names of its own: the scenario sheets repeat their columns). The parser
counts the references it saw; if that count differs from the number the key rewrote, the key is
not trusted and the formula gets a key of its own (correct, just not shared).

Formulas whose keys differ only in their numbers and absolute columns (a monthly scenario row's
periods) share one parse too: a line's template (:mod:`.lines`), whose tree, references and
shared parts each such formula takes with its own values (:meth:`Compiler._from_line`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from gputco.workbook.recalc.base.errors import FormulaSyntaxError
from gputco.workbook.recalc.base.refs import (
    MAX_COL,
    MAX_ROW,
    Ref,
    RowTemplate,
    own_row_relative,
    shape_key,
)
from gputco.workbook.recalc.base.structured import Table, expand
from gputco.workbook.recalc.base.values import NAME
from gputco.workbook.recalc.formula.lines import Holes, Template, line_key
from gputco.workbook.recalc.formula.parse import (
    Binary,
    Call,
    Const,
    Node,
    RefNode,
    Unary,
    depth,
    functions,
    parse,  # noqa: F401 (the docstring examples use it)
    parse_counted,
    references,
    walk,
)
from gputco.workbook.recalc.formula.shared import shared_parts
from gputco.workbook.recalc.functions import NEVER
from gputco.workbook.recalc.functions.information import info_supported
from gputco.workbook.recalc.functions.lookup import cell_supported
from gputco.workbook.recalc.functions.math import CLOCK, SEEDED
from gputco.workbook.recalc.read.limits import DEFAULT_LIMITS, Limits, over
from gputco.workbook.recalc.read.package import DefinedName

#: functions evaluated only for some info types: the check, and the name a cell is unsupported by
_INFO_TYPES = {
    "CELL": (cell_supported, "CELL (info types that depend on the application or file)"),
    "INFO": (info_supported, "INFO (type_text values that depend on the application)"),
}


#: a random draw the tree holds at two places (a LET name used twice): Excel draws it once, the
#: evaluator would draw at each place, so the cell is unsupported rather than given other values
_SHARED_DRAW = "RAND/RANDBETWEEN/RANDARRAY in a LET name used more than once"


def _shared_draw(node: Node) -> bool:
    """True when one RAND/RANDBETWEEN/RANDARRAY call node stands at two places of the tree."""
    seen: set[int] = set()
    for n in walk(node):
        if isinstance(n, Call) and n.name in SEEDED:
            if id(n) in seen:
                return True
            seen.add(id(n))
    return False


#: a union of references, ``(A1:B2,C3)``: evaluated only as AREAS's argument
_UNION = "[union of ranges]"


def _unions_in_areas_only(node: Node) -> bool:
    """True when every union of references in the tree is (within) the argument of AREAS."""
    allowed: set[int] = set()
    for n in walk(node):
        if isinstance(n, Call) and n.name == "AREAS":
            stack = list(n.args)
            while stack:
                a = stack.pop()
                if isinstance(a, Call) and a.name == _UNION:
                    allowed.add(id(a))
                    stack.extend(a.args)
    return all(id(n) in allowed for n in walk(node) if isinstance(n, Call) and n.name == _UNION)


@dataclass
class Compiled:
    """One formula shape: its tree and what the planner needs to know about it."""

    node: Node
    refs: list[Ref]
    unsupported: set[str] = field(default_factory=set)
    per_cell: bool = False  # has a range with one fixed and one moving end (SUM($A$1:A5))
    array: bool = False  # an array (CSE) formula
    #: a multi-cell array formula's master: (top, left, bottom, right) of its ref, and whether
    #: it is a dynamic array (Excel 365, re-spills) or a fixed CSE range (see .spill)
    area: tuple[int, int, int, int] | None = None
    dynamic: bool = False
    spill_of: tuple[int, int] | None = None  # another cell of such a ref: (row, col) of its master
    #: the references whose values the formula can read, for the planner (None: all of ``refs``);
    #: leaves out what Excel does not evaluate, so that it is no cycle: see :func:`read_refs`
    deps: list[Ref] | None = None
    #: formula.shared's parts of ``node`` where known when compiled (a line's template), else None
    parts: dict[int, int] | None = None

    @property
    def planned(self) -> list[Ref]:
        return self.refs if self.deps is None else self.deps


class Compiler:
    """Compiles formulas of one workbook, with its defined names and the known functions."""

    def __init__(
        self, names: list[DefinedName], known: Mapping[str, object], limits: Limits = DEFAULT_LIMITS
    ) -> None:
        self.known = known
        self.limits = limits
        self.never = NEVER - frozenset(n for n in CLOCK | SEEDED if n in known)
        self.tables: dict[str, Table] = {}  # Excel tables, for structured references
        self.sheet_order: tuple[str, ...] = ()  # the workbook's sheets in order (3-D references)
        self._names: dict[tuple[str | None, str], DefinedName] = {
            ((n.sheet or "").upper() or None, n.name.upper()): n for n in names
        }
        #: the sheets with names of their own: their formulas' trees are theirs (a name may mean
        #: something else there); on the other sheets one text at one place relative to its cell
        #: has one tree (references without a sheet read the cell's own sheet when evaluated)
        self._scoped = {scope for scope, _ in self._names if scope}
        self._name_trees: dict[tuple[str | None, str], Node] = {}
        self._resolving: set[tuple[str | None, str]] = set()
        self._sizes: dict[int, int] = {}  # expanded size of name trees' nodes, by identity
        self.cache: dict[tuple, Compiled] = {}
        #: per (scope, line key): the template of a line of formulas (:mod:`.lines`; not array ones);
        #: None: that line is parsed formula by formula. ``lines = None`` turns it off.
        self.lines: dict[tuple, tuple[Template, Compiled | None, dict[int, int] | None] | None] | None = {}
        #: the evaluator's test of a function whose calls one cell may share (formula.shared), to
        #: find a line's shared parts once; None: the evaluator finds each formula's
        self.pure: Callable[[str], bool] | None = None
        #: per (sheet, column, array): the last compiled formula as a row template (in the reading
        #: it was compiled in), key, shape, its text as written and its row
        self.last: dict[tuple[str, int, bool], tuple[RowTemplate, tuple, Compiled, str, int]] = {}

    def compile(
        self, sheet: str, row: int, col: int, text: str, array: bool = False, own_row: bool | None = None
    ) -> tuple[tuple, Compiled]:
        """(key, compiled) for a formula text at (row, col) of ``sheet``.

        ``own_row``: read an absolute reference to the cell's own row as row-relative
        (:func:`.refs.own_row_relative`: ``$X$6`` in row 6 as ``$X6``, the same cell), so that a
        column written so shares one shape. None: where the text is the column's formula one row
        above, filled down in that reading (the scenario rows are written so: issue 40); else as
        written, so a column filled down from a row holding its own constant (``=A2*$B$2``)
        keeps its one shape.
        """
        if self.tables:
            text = expand(text, self.tables, sheet, row, col)
        last = self.last.get((sheet, col, array))
        if last is not None and last[0].render(row) == text:  # the cell above, one row down
            return last[1], last[2]
        if own_row is None:
            own_row = (
                last is not None
                and last[4] == row - 1
                and RowTemplate.of(last[3], last[4], own=True).render(row) == text
            )
        written = text
        if own_row:
            text = own_row_relative(text, row)
        key_text, count = shape_key(text, row, col)
        scope = sheet.upper()
        key = (scope if scope in self._scoped else "", key_text, array)
        hit = self.cache.get(key)
        if hit is not None:
            return key, hit
        compiled = self._from_line(key, text, row, col, sheet, count) if self.lines is not None else None
        if compiled is not None:
            parsed = count
        else:
            try:
                node, parsed = self._parse(text, row, col, sheet)
            except FormulaSyntaxError as err:
                formula = written if err.formula == text else err.formula
                raise FormulaSyntaxError(formula, err.reason, f"{sheet}!{_a1(row, col)}") from None
            compiled = self._compiled(node, array)
        if parsed != count:  # the quick key missed or invented a reference: do not share it
            key = (scope, key_text, array, row, col)
        else:
            template = RowTemplate.of(written, row, own=text != written)
            self.last[(sheet, col, array)] = (template, key, compiled, written, row)
        self.cache[key] = compiled
        return key, compiled

    def _from_line(
        self, key: tuple, text: str, row: int, col: int, sheet: str, count: int
    ) -> Compiled | None:
        """The compiled formula from its line's template (:mod:`.lines`), or None: parse it.

        The template's references, functions and shared parts (found once, with the
        sentinels) are the formula's with its own values in the holes. Where what is compiled
        depends on the values of constants (CHOOSE's index, CELL's and INFO's info type, the
        sum_range SUMIF sizes) the formula's own tree is compiled instead."""
        if key[2] or len(text) > self.limits.max_formula_chars:
            return None
        holes = line_key(text, row, col)
        if holes is None:
            return None
        line = (key[0], holes.key)
        if line in self.lines:
            entry = self.lines[line]
        else:
            entry = self.lines[line] = self._line(holes, text, row, col, sheet, count)
        if entry is None:
            return None
        template, skeleton, parts = entry
        node, made, refs = template.instance(holes.values)
        if skeleton is None:
            return self._compiled(sized_sum_ranges(node), False)
        return Compiled(
            node,
            [refs.get(r, r) for r in skeleton.refs],
            set(skeleton.unsupported),
            skeleton.per_cell,
            False,
            deps=None if skeleton.deps is None else [refs.get(r, r) for r in skeleton.deps],
            parts=None if parts is None else {id(made[i]) if i in made else i: k for i, k in parts.items()},
        )

    def _line(
        self, holes: Holes, text: str, row: int, col: int, sheet: str, count: int
    ) -> tuple[Template, Compiled | None, dict[int, int] | None] | None:
        """A line's template, parsed from ``text`` with sentinels in its holes, what it compiles
        to (None where that depends on the values in the holes) and its shared parts (None
        without :attr:`pure`); None where the parse fails, is too deep, reads another count of
        references or misplaces a sentinel: then each formula of the line is parsed."""
        deepest = self.limits.max_formula_depth
        try:
            node, parsed = parse_counted(
                holes.sentinel_text(text), row, col, self._resolver(sheet), deepest, self.sheet_order
            )
        except Exception:  # the text is parsed as written, which raises what it raises
            return None
        if parsed != count or depth(node) > deepest:
            return None
        fixed = {id(n) for tree in self._name_trees.values() for n in walk(tree)}
        template = Template.of(node, holes, fixed)
        if template is None:
            return None
        called = functions(node)
        if called & _BY_VALUE:
            return template, None, None
        parts = None if self.pure is None else shared_parts(node, self.pure)
        return template, self._compiled(node, False), parts

    def _parse(self, text: str, row: int, col: int, sheet: str) -> tuple[Node, int]:
        """Parse within the limits on length and nesting (so nothing can exhaust the stack)."""
        limit = self.limits.max_formula_chars
        if len(text) > limit:
            raise FormulaSyntaxError(
                text, f"it is {len(text):,} characters long (limit {limit:,}, Excel's own)"
            )
        deepest = self.limits.max_formula_depth
        node, parsed = parse_counted(text, row, col, self._resolver(sheet), deepest, self.sheet_order)
        if depth(node) > deepest:  # deeper through the defined names it uses
            raise FormulaSyntaxError(
                text,
                f"nested more than {deepest} levels deep (functions, "
                "operators and the defined names it uses)",
            )
        return sized_sum_ranges(node), parsed

    def _compiled(self, node: Node, array: bool) -> Compiled:
        refs = references(node)
        called = functions(node)
        unsupported = {f for f in called if f.startswith("[") or f in self.never or f not in self.known}
        if _UNION in unsupported and _unions_in_areas_only(node):
            unsupported.discard(_UNION)
        for name, (supported, label) in _INFO_TYPES.items():  # CELL and INFO: some info types only
            if (
                name in called
                and name not in unsupported
                and not all(supported(n) for n in walk(node) if isinstance(n, Call) and n.name == name)
            ):
                unsupported.add(label)
        if SEEDED & called and _shared_draw(node):
            unsupported.add(_SHARED_DRAW)
        per_cell = any(r.ar1 != r.ar2 for r in refs)
        deps = read_refs(node)
        return Compiled(
            node, refs, unsupported, per_cell, array, deps=None if len(deps) == len(refs) else deps
        )

    def _resolver(self, sheet: str):
        scope = sheet.upper()

        def resolve(name: str) -> Node | None:
            for key in ((scope, name), (None, name)):
                if key in self._names:
                    return self._name_tree(key)
            return None

        return resolve

    def _name_tree(self, key) -> Node:
        tree = self._name_trees.get(key)
        if tree is not None:
            return tree
        if key in self._resolving:
            return Const(NAME)  # a name defined through itself
        if len(self._resolving) >= self.limits.max_name_depth:
            raise over(
                "max_name_depth",
                f"defined name {self._names[key].name} is reached through more than "
                f"{self.limits.max_name_depth} other defined names",
                self.limits,
            )
        self._resolving.add(key)
        try:
            dn = self._names[key]
            text = (
                expand(dn.formula, self.tables, dn.sheet or "", 1, 1) if self.tables else dn.formula
            )  # a name may stand for a table's column: SUM(Table1[c])
            # (with the workbook's sheets: a name may stand for a 3-D reference, Sheet2:Sheet3!A1)
            tree = parse_counted(text, 1, 1, self._resolver(dn.sheet or ""), sheets=self.sheet_order)[0]
        except FormulaSyntaxError:
            tree = Const(NAME)
        finally:
            self._resolving.discard(key)
        size = expanded_size(tree, self._sizes)
        if size > self.limits.max_name_size:
            raise over(
                "max_name_size",
                f"defined name {dn.name} expands to {size:,} parts (its defined names written out)",
                self.limits,
            )
        self._name_trees[key] = tree
        return tree


#: functions whose compiled form depends on the values of constants in the formula (CHOOSE's
#: index, CELL's and INFO's info type, the sum_range SUMIF and AVERAGEIF size)
_BY_VALUE = frozenset({"CHOOSE", "CELL", "INFO", "SUMIF", "AVERAGEIF"})

#: functions whose last argument (sum_range, average_range) is read in the size and shape of
#: their first (range): Microsoft's SUMIF page, "The actual cells that are added are determined
#: by using the upper leftmost cell in the sum_range argument as the beginning cell, and then
#: including cells that correspond in size and shape to the range argument" (AVERAGEIF's page:
#: "... the upper left cell in average_range as the beginning cell")
SIZED_BY_RANGE = frozenset({"SUMIF", "AVERAGEIF"})


def sized_sum_ranges(node: Node) -> Node:
    """``node`` with the sum_range of SUMIF/AVERAGEIF given as a reference widened (or cut) to
    its range's size from its top-left cell, where both are references whose size does not
    move with the formula's cell: the evaluation order then sees every cell read.

    >>> sized_sum_ranges(parse('=SUMIF(A1:A5,">2",B1)', 1, 1)).args[2].ref.rect(1, 1)
    (1, 2, 5, 2)
    """
    for n in walk(node):
        if type(n) is Call and n.name in SIZED_BY_RANGE and len(n.args) == 3:
            rng, vals = n.args[0], n.args[2]
            if type(rng) is RefNode and type(vals) is RefNode:
                sized = _sized_like(vals.ref, rng.ref)
                if sized is not None:
                    n.args[2] = RefNode(sized)
    return node


def _sized_like(ref: Ref, like: Ref) -> Ref | None:
    """``ref`` from its top-left cell in the size of ``like``; None where it already has that
    size, or either size moves with the formula's cell, or the result would pass the sheet's
    edge (left as written: a whole column as range with a sum_range that moves with the formula's
    row, whose bottom depends on the row)."""
    if not (like.ar1 == like.ar2 and like.ac1 == like.ac2 and ref.ar1 == ref.ar2 and ref.ac1 == ref.ac2):
        return None
    h, w = abs(like.r2 - like.r1), abs(like.c2 - like.c1)
    if (abs(ref.r2 - ref.r1), abs(ref.c2 - ref.c1)) == (h, w):
        return None
    top, left = min(ref.r1, ref.r2), min(ref.c1, ref.c2)
    if (ref.ar1 and top + h > MAX_ROW) or (ref.ac1 and left + w > MAX_COL):
        return None
    if (not ref.ar1 and h >= MAX_ROW - 1) or (not ref.ac1 and w >= MAX_COL - 1):
        return None
    return Ref(ref.sheet, top, left, top + h, left + w, ref.ar1, ref.ac1, ref.ar1, ref.ac1)


def expanded_size(node: Node, sizes: dict[int, int]) -> int:
    """How many nodes a tree has when every shared subtree (a defined name used twice) is written
    out, counted in time linear in the distinct nodes (``sizes`` memoises by identity).

    >>> n = parse("1+2")
    >>> expanded_size(Binary("+", n, n), {})
    7
    """
    stack = [(node, False)]
    while stack:
        n, done = stack.pop()
        if id(n) in sizes:
            continue
        kids = (
            n.args
            if isinstance(n, Call)
            else (n.left, n.right)
            if isinstance(n, Binary)
            else ((n.arg,) if isinstance(n, Unary) else ())
        )
        if done or not kids:
            sizes[id(n)] = 1 + sum(sizes[id(k)] for k in kids)
        else:
            stack.append((n, True))
            stack.extend((k, False) for k in kids if id(k) not in sizes)
    return sizes[id(node)]


def _a1(row: int, col: int) -> str:
    from gputco.workbook.recalc.base.refs import cell_name

    return cell_name(row, col)


#: functions that read a reference argument's address or formula, never its value
_ADDRESS_ONLY = frozenset(
    {"ROW", "COLUMN", "ROWS", "COLUMNS", "FORMULATEXT", "ISREF", "AREAS", "SHEET", "SHEETS"}
)
#: CELL info types that read the reference's address only (the others read the cell)
_CELL_ADDRESS = frozenset({"address", "row", "col", "filename", "sheet"})


def read_refs(node: Node) -> list[Ref]:
    """The references a tree can read the values of, as Excel evaluates it (issue 23).

    Left out, so that they make no cycle (Excel reports none): a reference given straight to
    ROW, COLUMN, ROWS, COLUMNS, FORMULATEXT, ISREF, AREAS, SHEET, SHEETS or to CELL with an info type that
    reads only its address (``CELL("address", A1)`` in A1), and the options CHOOSE does not pick
    when its index is a number written in the formula (``CHOOSE(1, A2, B1)`` never reads B1).
    """
    out: list[Ref] = []
    stack = [node]
    while stack:
        n = stack.pop()
        t = type(n)
        if t is RefNode:
            out.append(n.ref)
        elif t is Call:
            args = n.args
            if n.name in _ADDRESS_ONLY:
                while any(isinstance(a, Call) and a.name == _UNION for a in args):  # AREAS((A1,B2))
                    args = [
                        x for a in args for x in (a.args if isinstance(a, Call) and a.name == _UNION else [a])
                    ]
                stack.extend(a for a in args if type(a) is not RefNode)
            elif (
                n.name == "CELL"
                and args
                and type(args[0]) is Const
                and str(args[0].arr.reshape(-1)[0]).lower() in _CELL_ADDRESS
            ):
                stack.extend(a for a in args[2:])
            elif (
                n.name == "CHOOSE"
                and len(args) > 1
                and type(args[0]) is Const
                and args[0].arr.dtype.kind == "f"
            ):
                k = float(args[0].arr.reshape(-1)[0])
                if 1 <= k < len(args):
                    stack.append(args[int(k)])
            else:
                stack.extend(args)
        elif t is Binary:
            stack.extend((n.left, n.right))
        elif t is Unary:
            stack.append(n.arg)
    return out
