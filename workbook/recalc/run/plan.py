"""Group formula cells by shape, order the groups by their dependencies, find circularities.

Cells in the same sheet and column with the same R1C1 shape in consecutive rows form a group,
evaluated once as a vector. The dependency graph is built over groups: group G depends on group H
when a reference of G (over all of G's rows) overlaps H's cells. Strongly connected components
(Tarjan) give the evaluation order; a component that is more than one group, or a group that
reads its own rows (a running total, ``A3 = A2 + 1``), is split into single cells, ordered cell by
cell. A true cycle among cells raises :class:`.errors.CircularReferenceError` naming them, or
(``order(groups, cycles="iterate"|"stored")``) becomes a :class:`Cycle` step: its cells are
evaluated again and again as Excel's iterative calculation does, or kept as stored.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import defaultdict
from dataclasses import dataclass

from gputco.workbook.recalc.base.errors import CircularReferenceError
from gputco.workbook.recalc.base.refs import cell_name
from gputco.workbook.recalc.run.compile import Compiled


@dataclass(eq=False)
class Group:
    """Rows r0..r1 (inclusive) of one column whose formulas share one compiled shape."""

    sheet: str
    col: int
    r0: int
    r1: int
    compiled: Compiled
    index: int = -1

    def cells(self) -> list[str]:
        return [f"{self.sheet}!{cell_name(r, self.col)}" for r in range(self.r0, self.r1 + 1)]


@dataclass
class Unit:
    """One step of the evaluation: a whole group, or one row of a group."""

    group: Group
    row: int | None = None  # None: the whole group at once


@dataclass
class Cycle:
    """The cells of a circular reference and those computed from them inside it, in sheet order
    (row by row): one step that the engine evaluates again and again (Excel's iterative
    calculation) or keeps as stored. ``names`` are the cells of the cycle itself, "Sheet!A1"."""

    cells: list[Unit]
    names: list[str]


class GroupBuilder:
    """Builds groups as formula cells arrive (in sheet order: row by row).

    A cell joins the open group of its column when it has the same shape key and sits on the
    next row; otherwise it opens a new group. Cells out of row order just start new groups, so
    no sorting is needed and groups stay correct (if not always maximal).
    """

    def __init__(self) -> None:
        self.groups: list[Group] = []
        self._open: dict[tuple[str, int], tuple[Group, tuple]] = {}

    def add(self, sheet: str, row: int, col: int, key: tuple, compiled: Compiled) -> None:
        slot = (sheet, col)
        last = self._open.get(slot)
        if last is not None and last[1] == key and last[0].r1 == row - 1:
            last[0].r1 = row
            return
        g = Group(sheet, col, row, row, compiled, len(self.groups))
        self.groups.append(g)
        self._open[slot] = (g, key)


class _GroupIndex:
    """Groups by (sheet, column), sorted by first row, for overlap queries."""

    def __init__(self, groups: list[Group]) -> None:
        by: dict[tuple[str, int], list[Group]] = defaultdict(list)
        for g in groups:
            by[(g.sheet.upper(), g.col)].append(g)
        self.cols: dict[str, list[int]] = defaultdict(list)
        self.starts: dict[tuple[str, int], list[int]] = {}
        self.groups: dict[tuple[str, int], list[Group]] = {}
        for (sheet, col), gs in by.items():
            gs.sort(key=lambda g: g.r0)
            self.groups[(sheet, col)] = gs
            self.starts[(sheet, col)] = [g.r0 for g in gs]
            self.cols[sheet].append(col)
        for cols in self.cols.values():
            cols.sort()

    def overlapping(self, sheet: str, top: int, left: int, bottom: int, right: int):
        cols = self.cols.get(sheet)
        if not cols:
            return
        i = bisect_right(cols, left - 1)
        while i < len(cols) and cols[i] <= right:
            key = (sheet, cols[i])
            gs, starts = self.groups[key], self.starts[key]
            j = bisect_right(starts, bottom) - 1
            while j >= 0 and gs[j].r1 >= top:
                yield gs[j]
                j -= 1
            i += 1


def _group_rect(g: Group, ref) -> tuple[int, int, int, int]:
    a = ref.rect(g.r0, g.col)
    b = ref.rect(g.r1, g.col)
    return min(a[0], b[0]), a[1], max(a[2], b[2]), a[3]


def order(groups: list[Group], cycles: str = "raise") -> list[Unit | Cycle]:
    """The evaluation order, as units; a true cycle raises CircularReferenceError ("raise") or
    is a :class:`Cycle` step ("iterate", "stored")."""
    index = _GroupIndex(groups)
    deps: list[list[int]] = []
    for g in groups:
        found = set()
        for ref in g.compiled.planned:
            sheet = (ref.sheet or g.sheet).upper()
            for h in index.overlapping(sheet, *_group_rect(g, ref)):
                found.add(h.index)
        deps.append(sorted(found))
    units: list[Unit] = []
    for comp in _tarjan(len(groups), deps):
        if len(comp) == 1 and comp[0] not in deps[comp[0]]:
            units.append(Unit(groups[comp[0]]))
        else:
            units.extend(_cell_order([groups[i] for i in comp], cycles))
    return units


def _tarjan(n: int, deps: list[list[int]]) -> list[list[int]]:
    """Strongly connected components, dependencies first (iterative Tarjan)."""
    index, low, on_stack = [-1] * n, [0] * n, [False] * n
    stack: list[int] = []
    out: list[list[int]] = []
    counter = 0
    for root in range(n):
        if index[root] != -1:
            continue
        work = [(root, 0)]
        while work:
            v, i = work.pop()
            if i == 0:
                index[v] = low[v] = counter
                counter += 1
                stack.append(v)
                on_stack[v] = True
            recurse = False
            edges = deps[v]
            while i < len(edges):
                w = edges[i]
                i += 1
                if index[w] == -1:
                    work.append((v, i))
                    work.append((w, 0))
                    recurse = True
                    break
                if on_stack[w]:
                    low[v] = min(low[v], index[w])
            if recurse:
                continue
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack[w] = False
                    comp.append(w)
                    if w == v:
                        break
                out.append(comp)
            if work:
                u = work[-1][0]
                low[u] = min(low[u], low[v])
    return out


def _cell_order(groups: list[Group], cycles: str = "raise") -> list[Unit | Cycle]:
    """Order the cells of a cyclic set of groups one by one (Kahn); the cells left (a true cycle
    and what it feeds) raise or are one :class:`Cycle` step after the others."""
    index = _GroupIndex(groups)
    cells: list[tuple[Group, int]] = [(g, r) for g in groups for r in range(g.r0, g.r1 + 1)]
    ids = {(g.index, r): i for i, (g, r) in enumerate(cells)}
    deps: list[list[int]] = [[] for _ in cells]
    users: list[list[int]] = [[] for _ in cells]
    for i, (g, r) in enumerate(cells):
        for ref in g.compiled.planned:
            top, left, bottom, right = ref.rect(r, g.col)
            for h in index.overlapping((ref.sheet or g.sheet).upper(), top, left, bottom, right):
                for rr in range(max(top, h.r0), min(bottom, h.r1) + 1):
                    j = ids[(h.index, rr)]
                    deps[i].append(j)
                    users[j].append(i)
    pending = [len(d) for d in deps]
    ready = [i for i, p in enumerate(pending) if p == 0]
    done: list[int] = []
    while ready:
        i = ready.pop()
        done.append(i)
        for u in users[i]:
            pending[u] -= 1
            if pending[u] == 0:
                ready.append(u)
    if len(done) < len(cells):
        left = [i for i in range(len(cells)) if pending[i] > 0]
        sub = {i: k for k, i in enumerate(left)}
        sub_deps = [[sub[j] for j in deps[i] if j in sub] for i in left]
        cyclic = []
        for comp in _tarjan(len(left), sub_deps):
            if len(comp) > 1 or comp[0] in sub_deps[comp[0]]:
                cyclic.extend(left[k] for k in comp)
        names = sorted(f"{cells[i][0].sheet}!{cell_name(cells[i][1], cells[i][0].col)}" for i in cyclic)
        if cycles == "raise":
            raise CircularReferenceError(names)
        sheets = {g.sheet: k for k, g in reversed(list(enumerate(groups)))}  # in the groups' order
        rest = sorted(left, key=lambda i: (sheets[cells[i][0].sheet], cells[i][1], cells[i][0].col))
        ordered = [Unit(cells[i][0], cells[i][1]) for i in done]
        return [*ordered, Cycle([Unit(cells[i][0], cells[i][1]) for i in rest], names)]
    return [Unit(cells[i][0], cells[i][1]) for i in done]
