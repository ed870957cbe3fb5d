"""One parse for a line of formulas that differ only in their numbers and absolute columns.

gputco's monthly scenario rows write each period of a line in a column of its own; period 7 of
a line reads ``=IF(AND((7-$BV6)>=1,(7-$BV6)<=$BW6),1,0)`` and period 8 the same with 8, and a
line that reads another line's period reads it with an absolute column (``$DS6`` beside
``$DR6``). Their R1C1 keys (:func:`.refs.shape_key`) all differ, so each period was tokenized and
parsed: 7,000 parses for a five-system SPEC by month.

A *line key* is the R1C1 key with every number written in the formula and every absolute column
of a one-cell reference (or of either end of a cell range) left as a hole. Formulas with the same
line key have the same tokens in the same order, only the numbers and the column letters differ.
The first one is parsed once with *sentinels* in the holes (numbers and columns no formula holds
twice: :data:`NUMBER_SENTINEL`, :data:`COLUMN_SENTINEL`), and each sentinel is found in the tree
at as many nodes as the text writes it; every later formula of the line is that tree with its own
values put at those nodes (the nodes above them made anew, everything else shared).

Where anything is not as expected (a sentinel found more or fewer times, a syntax error, an array
constant, a cell outside the sheet) there is no template and the formula is parsed as written, so
the result is always the tree the parser gives for the text itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gputco.workbook.recalc.base.refs import KEY_RE, MAX_COL, MAX_ROW, Ref, col_index, col_letters, r1c1
from gputco.workbook.recalc.formula.parse import Binary, Call, Const, Node, RefNode, Unary, children

#: the key's pattern with numbers as a fifth kind: digits, with a decimal part or not (not inside
#: names, function names such as LOG10, cell references or #DIV/0!). Only that form: the
#: tokenizer reads it as one number whatever its digits, while where an E follows (``1E-2``,
#: ``10E-2``) it splits by the digits (openpyxl takes one digit before the E only)
_LINE_RE = re.compile(
    KEY_RE.pattern
    + r"""
    |(?<![A-Za-z0-9_.$\\])(?<!\#DIV/)(?P<n>[0-9]+(?:\.[0-9]+)?)(?![A-Za-z0-9_.(!:\[])
    """,
    re.X,
)

#: the first sentinel number (then +1, +2, ...): an integer that float() reads exactly
NUMBER_SENTINEL = 987_654_321_987
#: the first sentinel column (then -1, -2, ...): the sheet's last column, XFD
COLUMN_SENTINEL = MAX_COL
#: holes in one formula at most (its sentinel columns stay clear of the columns it reads)
MAX_HOLES = 512


@dataclass(frozen=True, slots=True)
class Holes:
    """A formula's line key, the value of each hole (numbers as floats, columns as numbers) and
    the spans of text that hold them: ``(start, end, hole)``. One hole per distinct text, so
    that a number or column written twice is one hole (the key says which places are equal)."""

    key: str
    values: tuple[float | int, ...]
    spans: tuple[tuple[int, int, int], ...]

    def sentinel_text(self, text: str) -> str:
        """``text`` with each hole's value replaced by its sentinel."""
        out, pos = [], 0
        for start, end, hole in self.spans:
            out.append(text[pos:start])
            if isinstance(self.values[hole], float):
                out.append(str(NUMBER_SENTINEL + hole))
            else:
                out.append(col_letters(COLUMN_SENTINEL - hole))
            pos = end
        out.append(text[pos:])
        return "".join(out)


def line_key(formula: str, row: int, col: int) -> Holes | None:
    """The line key of a formula at (row, col), or None where it has no holes or cannot have a
    template (an array constant, more than :data:`MAX_HOLES` holes, a cell past the sheet's edge).

    >>> a = line_key("=IF($DT6=1,ROUNDUP((2-$BV6)/$BS6,0)-1,0)", 6, 214)
    >>> b = line_key("=IF($DU6=1,ROUNDUP((3-$BV6)/$BS6,0)-1,0)", 6, 215)
    >>> a.key == b.key, a.key
    (True, '=IF(R[0]C#0=#1,ROUNDUP((#2-R[0]C#3)/R[0]C#4,#5)-#1,#5)')
    >>> b.values
    (125, 1.0, 3.0, 74, 71, 0.0)
    >>> line_key("=IF($DS6=1,ROUNDUP((1-$BV6)/$BS6,0)-1,0)", 6, 213).key == b.key  # 1 is written 3 times
    False
    """
    if "{" in formula:
        return None
    holes: dict[tuple[str, str], int] = {}
    values: list[float | int] = []
    spans: list[tuple[int, int, int]] = []
    pieces: list[str] = []
    pos = 0
    for m in _LINE_RE.finditer(formula):
        kind = m.lastgroup
        if kind == "lit":
            continue
        pieces.append(formula[pos : m.start()])
        pos = m.end()
        if kind == "n":
            hole = holes.setdefault(("n", m["n"]), len(holes))
            if hole == len(values):
                values.append(float(m["n"]))
            spans.append((*m.span("n"), hole))
            pieces.append(f"#{hole}")
        elif kind == "r" and not (1 <= int(m["r"]) <= MAX_ROW and col_index(m["c"]) <= MAX_COL):
            return None  # outside the sheet: the parser's error, which a template would not give
        elif kind == "r" and m["cd"]:
            c = col_index(m["c"])
            hole = holes.setdefault(("c", m["c"].upper()), len(holes))
            if hole == len(values):
                values.append(c)
            spans.append((*m.span("c"), hole))
            r = int(m["r"])
            pieces.append((f"R{r}" if m["rd"] else f"R[{r - row}]") + f"C#{hole}")
        else:  # a relative column, whole columns or rows: as the R1C1 key writes them
            pieces.append(r1c1(m, row, col))
    if not values or len(values) > MAX_HOLES:
        return None
    pieces.append(formula[pos:])
    return Holes("".join(pieces), tuple(values), tuple(spans))


class Template:
    """A tree parsed from a formula's sentinel text, and the plan to make it with other values in
    its holes: the nodes that hold a hole or sit above one, children first, each made from the
    values and the nodes made before it; every other node is the template's own."""

    __slots__ = ("_plan", "root")

    def __init__(self, root: Node, plan: list[tuple]) -> None:
        self.root = root
        self._plan = plan

    @classmethod
    def of(cls, root: Node, holes: Holes, fixed: set[int]) -> Template | None:
        """The template of a tree parsed from ``holes.sentinel_text(...)``; None unless each
        sentinel is found at as many nodes as the text holds it (a one-cell reference once, a
        range's ends each). ``fixed``: ids of nodes not to look into (the trees of defined
        names, shared by every formula that uses them)."""
        numbers = {float(NUMBER_SENTINEL + i): i for i, v in enumerate(holes.values) if isinstance(v, float)}
        columns = {COLUMN_SENTINEL - i: i for i, v in enumerate(holes.values) if not isinstance(v, float)}
        expected = [0] * len(holes.values)
        for _, _, hole in holes.spans:
            expected[hole] += 1
        found = [0] * len(holes.values)
        at: dict[int, tuple] = {}  # id(node) -> its hole (a number) or (hole of c1, hole of c2)
        parents: dict[int, list[int]] = {id(root): []}
        stack = [root]
        while stack:
            n = stack.pop()
            if id(n) in fixed:
                continue
            t = type(n)
            if t is Const:
                if type(n.value) is float and n.value in numbers:
                    i = numbers[n.value]
                    found[i] += 1
                    at[id(n)] = (i,)
            elif t is RefNode:
                ref = n.ref
                c1 = columns.get(ref.c1) if ref.ac1 else None
                c2 = columns.get(ref.c2) if ref.ac2 else None
                if c1 is not None or c2 is not None:
                    one_cell = (
                        ref.r1 == ref.r2 and ref.c1 == ref.c2 and ref.ar1 == ref.ar2 and ref.ac1 == ref.ac2
                    )
                    for i in {c1} if one_cell else (c1, c2):
                        if i is not None:
                            found[i] += 1
                    at[id(n)] = (c1, c2)
            for k in children(n):
                if id(k) in parents:  # a shared subtree (a LET name's value): looked into once
                    parents[id(k)].append(id(n))
                else:
                    parents[id(k)] = [id(n)]
                    stack.append(k)
        if found != expected:
            return None
        live: set[int] = set()
        up = list(at)
        while up:
            i = up.pop()
            if i not in live:
                live.add(i)
                up.extend(parents[i])
        return cls(root, _plan(root, live, at))

    def instance(self, values: tuple[float | int, ...]) -> tuple[Node, dict[int, Node], dict[Ref, Ref]]:
        """The tree with ``values`` in the holes. Also the new nodes by the id of the template's
        node each replaces, and the new references by the template's."""
        out: list[Node] = []
        made: dict[int, Node] = {}
        refs: dict[Ref, Ref] = {}
        add = out.append
        for step in self._plan:
            kind = step[0]
            if kind is _CALL:
                node = Call(step[2], [a if type(a) is not int else out[a] for a in step[3]])
            elif kind is _BINARY:
                a, b = step[3], step[4]
                node = Binary(
                    step[2], a if type(a) is not int else out[a], b if type(b) is not int else out[b]
                )
            elif kind is _UNARY:
                a = step[3]
                node = Unary(step[2], a if type(a) is not int else out[a])
            elif kind is _CONST:
                node = Const(values[step[2]])
            else:
                ref, c1, c2 = step[2], step[3], step[4]
                new = Ref(
                    ref.sheet,
                    ref.r1,
                    ref.c1 if c1 is None else values[c1],
                    ref.r2,
                    ref.c2 if c2 is None else values[c2],
                    ref.ar1,
                    ref.ac1,
                    ref.ar2,
                    ref.ac2,
                )
                refs[ref] = new
                node = RefNode(new)
            made[step[1]] = node
            add(node)
        return out[-1], made, refs


_CALL, _BINARY, _UNARY, _CONST, _REF = "call", "binary", "unary", "const", "ref"


def _plan(root: Node, live: set[int], at: dict[int, tuple]) -> list[tuple]:
    """The steps that make the live nodes, children first (a shared one once), the root last:
    ``(kind, id of the template's node, ...)``; a child is the number of the step that makes it,
    or the template's own node."""
    slot: dict[int, int] = {}
    plan: list[tuple] = []

    def arg(k: Node) -> Node | int:
        return slot[id(k)] if id(k) in live else k

    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        n, ready = stack.pop()
        key = id(n)
        if key in slot:
            continue
        if not ready:
            stack.append((n, True))
            stack.extend((k, False) for k in reversed(children(n)) if id(k) in live and id(k) not in slot)
            continue
        t = type(n)
        if key in at:
            hole = at[key]
            step = (_CONST, key, hole[0]) if t is Const else (_REF, key, n.ref, hole[0], hole[1])
        elif t is Call:
            step = (_CALL, key, n.name, [arg(a) for a in n.args])
        elif t is Binary:
            step = (_BINARY, key, n.op, arg(n.left), arg(n.right))
        else:
            step = (_UNARY, key, n.op, arg(n.arg))
        slot[key] = len(plan)
        plan.append(step)
    return plan
