"""The parts of a formula tree that it holds more than once, so the evaluator computes each once.

gputco's scenario rows write a period's balance, its debt sizing and its service inline, and a
cell repeats such a part up to ten times (``IF(AND(inp_debt_sizing="dscr",$CE6>0,
SUM($AWQ6:$BAB6)>0),MIN(1,...),1)``); a LET name's tree stands at each place it is used. Two
parts are the same when they are written the same (the same functions, operators, constants
and references relative to the cell): in one cell they have the same value, unless a part
draws a random number or reads a LAMBDA's parameter (never shared: see ``pure``).
"""

from __future__ import annotations

from collections.abc import Callable

from gputco.workbook.recalc.formula.parse import Binary, Call, Const, Missing, Node, RefNode, Unary, children


def shared_parts(root: Node, pure: Callable[[str], bool]) -> dict[int, int]:
    """``{id(node): number}`` for the nodes of ``root`` whose part (the node and all below it)
    occurs at least twice, equal parts under one number; a part is left out when it holds a call
    that ``pure`` refuses (by function name), a node of another kind (a LAMBDA's parameter, an
    array constant) or is a bare constant (nothing to save).

    >>> from gputco.workbook.recalc.formula.parse import parse
    >>> tree = parse("=SUM(A1:A3)*B1+SUM(A1:A3)*2+RAND()+RAND()+B1", 1, 1)
    >>> parts = shared_parts(tree, lambda f: f != "RAND")
    >>> sorted((type(n).__name__, getattr(n, "name", "")) for n in walk_ids(tree, parts))
    [('Call', 'SUM'), ('Call', 'SUM'), ('RefNode', ''), ('RefNode', ''), ('RefNode', ''), ('RefNode', '')]

    (the two SUMs, their two A1:A3 and the two B1s; the RAND calls are refused)
    """
    numbers: dict[tuple, int] = {}  # a part's form (its children as numbers) -> its number
    count: dict[int, int] = {}  # how often a number occurs at a place in the tree
    of: dict[int, int] = {}  # id(node) -> the number of its part; -1: never shared
    trivial: set[int] = set()  # the numbers of constants and omitted arguments

    def form(node: Node) -> tuple | None:
        """The part's form from its children's numbers (all numbered already), None: never shared."""
        t = type(node)
        if t is RefNode:
            return ("R", node.ref)
        if t is Binary:
            left, right = of[id(node.left)], of[id(node.right)]
            return ("B", node.op, left, right) if left >= 0 and right >= 0 else None
        if t is Call:
            args = [of[id(a)] for a in node.args]
            return ("F", node.name, *args) if pure(node.name) and -1 not in args else None
        if t is Unary:
            arg = of[id(node.arg)]
            return ("U", node.op, arg) if arg >= 0 else None
        if t is Const:
            return ("C", type(node.value).__name__, repr(node.value))
        if t is Missing:
            return ("M",)
        return None

    # post-order without recursion (a formula may nest thousands of operators deep:
    # tests/test_hostile.py's long chain); a node seen before (a LET name's tree, one object)
    # is numbered once and counted at each of its places
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        i = id(node)
        if not children_done:
            if i in of:
                n = of[i]
                if n >= 0:
                    count[n] = count.get(n, 0) + 1
                continue
            stack.append((node, True))
            stack.extend((c, False) for c in reversed(children(node)))
            continue
        if i in of:  # numbered meanwhile through another place below this one
            n = of[i]
        else:
            key = form(node)
            if key is None:
                n = -1
            else:
                n = numbers.setdefault(key, len(numbers))
                if type(node) is Const or type(node) is Missing:
                    trivial.add(n)
            of[i] = n
        if n >= 0:
            count[n] = count.get(n, 0) + 1

    return {i: n for i, n in of.items() if n >= 0 and count[n] > 1 and n not in trivial}


def walk_ids(root: Node, parts: dict[int, int]) -> list[Node]:
    """The distinct nodes of ``root`` that ``parts`` names (for the doctest and tests)."""
    out, seen, stack = [], set(), [root]
    while stack:
        node = stack.pop()
        if id(node) in parts and id(node) not in seen:
            seen.add(id(node))
            out.append(node)
        stack.extend(children(node))
    return out
