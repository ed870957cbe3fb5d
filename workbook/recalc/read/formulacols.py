"""A sheet part's formula cells as columns: arrays of rows, columns and byte offsets.

The regex reader (:mod:`.sheetscan`) gives a sheet's formula cells this way, without a Python
object per cell: a 10,000-scenario sheet has 410,000 of them, and building, reading and
dropping one :class:`.cells.FormulaCell` each was a large part of reading it. The engine
(:mod:`.engine`) and the bulk writer (:mod:`.patch`) read the arrays; everything else sees a
sequence of :class:`~.cells.FormulaCell` (made when first iterated, then kept), so code that
visits a few cells (reports, LibreOffice's values, FORMULATEXT) is unchanged. The expat reader
still gives a list; :func:`columns` turns either into columns.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from gputco.workbook.recalc.base.refs import RowTemplate
from gputco.workbook.recalc.read.cells import FormulaCell


class FormulaColumns(Sequence):
    """Formula cells in sheet order: ``row``, ``col`` and the byte offsets as int64 arrays
    (offsets as in :class:`~.cells.FormulaCell`; -1 where absent), ``text`` and ``cached``
    as lists, and ``special``: the cells other than plain formulas (shared, array, data table,
    spill), by position, as FormulaCell. ``starts``: :func:`shape_starts` when the reader has
    found them (None: found when needed). ``t_attr``: each cell's ``t`` attribute in the file,
    b"" when it has none (an object array; None when not known: the writer then looks)."""

    __slots__ = (
        "_cells",
        "c_start",
        "cached",
        "col",
        "f_end",
        "f_start",
        "row",
        "special",
        "starts",
        "t_attr",
        "text",
        "v_end",
        "v_start",
    )

    def __init__(
        self,
        row,
        col,
        text: list,
        cached: list,
        c_start,
        f_start,
        f_end,
        v_start,
        v_end,
        special: dict[int, FormulaCell] | None = None,
        t_attr=None,
    ) -> None:
        self.row, self.col = np.asarray(row, np.int64), np.asarray(col, np.int64)
        self.c_start, self.f_start = np.asarray(c_start, np.int64), np.asarray(f_start, np.int64)
        self.f_end = np.asarray(f_end, np.int64)
        self.v_start, self.v_end = np.asarray(v_start, np.int64), np.asarray(v_end, np.int64)
        self.text, self.cached = text, cached
        self.special = special or {}
        self.t_attr = t_attr
        self.starts: np.ndarray | None = None
        self._cells: list[FormulaCell] | None = None

    @classmethod
    def from_cells(cls, cells: Sequence[FormulaCell]) -> FormulaColumns:
        if isinstance(cells, FormulaColumns):
            return cells
        fields = [
            [getattr(fc, k) for fc in cells]
            for k in (
                "row",
                "col",
                "text",
                "cached",
                "c_start",
                "f_start",
                "f_end_event",
                "v_start",
                "v_end_event",
            )
        ]
        special = {k: fc for k, fc in enumerate(cells) if fc.kind != "normal" or fc.dynamic}
        return cls(*fields, special=special)

    def kinds(self) -> set[str]:
        return {fc.kind for fc in self.special.values()} | (
            {"normal"} if len(self.special) < len(self) else set()
        )

    def __len__(self) -> int:
        return len(self.text)

    def __getitem__(self, i):
        return self.cells()[i]

    def __iter__(self):
        return iter(self.cells())

    def cells(self) -> list[FormulaCell]:
        """Every cell as a FormulaCell (made once)."""
        if self._cells is None:
            n = len(self)
            out = list(
                map(
                    FormulaCell,
                    self.row.tolist(),
                    self.col.tolist(),
                    self.text,
                    ["normal"] * n,
                    [None] * n,
                    [None] * n,
                    self.cached,
                    self.c_start.tolist(),
                    self.f_start.tolist(),
                    self.f_end.tolist(),
                    self.v_start.tolist(),
                    self.v_end.tolist(),
                )
            )
            for k, fc in self.special.items():
                out[k] = fc
            self._cells = out
        return self._cells

    def take(self, keep: np.ndarray) -> FormulaColumns:
        """The cells at positions ``keep`` (sorted), as columns."""
        keep = np.asarray(keep, np.int64)
        picked = keep.tolist()
        return FormulaColumns(
            self.row[keep],
            self.col[keep],
            [self.text[k] for k in picked],
            [self.cached[k] for k in picked],
            self.c_start[keep],
            self.f_start[keep],
            self.f_end[keep],
            self.v_start[keep],
            self.v_end[keep],
            {i: self.special[k] for i, k in enumerate(picked) if k in self.special},
            None if self.t_attr is None else self.t_attr[keep],
        )


def columns(formulas: Sequence[FormulaCell]) -> FormulaColumns:
    """``part.formulas`` as columns (the regex reader's already are)."""
    return FormulaColumns.from_cells(formulas)


def joined(a: FormulaColumns, b: FormulaColumns) -> FormulaColumns:
    """The cells of ``a`` then those of ``b`` (the rows of ``b`` below those of ``a``)."""
    n = len(a)
    t_attr = None if a.t_attr is None or b.t_attr is None else np.concatenate([a.t_attr, b.t_attr])
    out = FormulaColumns(
        *(np.concatenate([getattr(a, k), getattr(b, k)]) for k in ("row", "col")),
        a.text + b.text,
        a.cached + b.cached,
        *(
            np.concatenate([getattr(a, k), getattr(b, k)])
            for k in ("c_start", "f_start", "f_end", "v_start", "v_end")
        ),
        special={**a.special, **{n + k: fc for k, fc in b.special.items()}},
        t_attr=t_attr,
    )
    if a.starts is not None and b.starts is not None:  # (b's first cells start runs anyway)
        out.starts = np.concatenate([a.starts, b.starts])
    return out


#: a column's formulas are checked against the run's first text this many at a time at first
_FIRST_CHUNK = 16


def shape_starts(rows: np.ndarray, cols: np.ndarray, texts: list) -> np.ndarray:
    """For formula cells in sheet order: True where a cell starts a run of its column, False
    where it continues one: its text is the run's first text with the relative row numbers
    moved to its row (:meth:`.refs.RowTemplate.render`), the same formula filled down; where the
    next cell is not, with the absolute references to the first cell's own row moved too
    (``$X$6`` in row 6, ``$X$7`` in row 7: the scenario rows, issue 40). The engine compiles
    only the cells that start runs. Checked in bulk, a column at a time."""
    starts = np.ones(len(texts), dtype=bool)
    by_col = np.lexsort((rows, cols))
    for seg in np.split(by_col, np.flatnonzero(np.diff(cols[by_col])) + 1):
        idx, rws = seg.tolist(), rows[seg].tolist()
        i = 0
        while i < len(idx):
            text = texts[idx[i]]
            i += 1
            if not text or not text.strip():
                continue
            template = RowTemplate.of(text, rws[i - 1])
            if i < len(idx) and template.render(rws[i]) != texts[idx[i]]:
                template = RowTemplate.of(text, rws[i - 1], own=True)  # $X$6 in 6, $X$7 in 7?
            chunk = _FIRST_CHUNK
            while i < len(idx):
                stop = min(i + chunk, len(idx))
                same = list(
                    map(str.__eq__, map(template.render, rws[i:stop]), [texts[j] for j in idx[i:stop]])
                )
                run = same.index(False) if False in same else len(same)
                starts[idx[i : i + run]] = False
                i += run
                if run < len(same):
                    break
                chunk *= 2
    return starts
