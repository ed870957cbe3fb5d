"""Cell values of a workbook, column by column, as numpy arrays.

Each used column keeps a kind code per row (blank, number, text, boolean, error), a float64 array
of numbers and, only when the column holds anything else, an object array of those values. Reading
a block returns a float64 array when every cell in it is a number (the fast path) and an object
array of Excel values otherwise.
"""

from __future__ import annotations

import numpy as np

from gputco.workbook.recalc.base.errors import LimitExceededError
from gputco.workbook.recalc.base.values import XlError
from gputco.workbook.recalc.read.cells import SheetPart

BLANK, NUMBER, TEXT, BOOL, ERROR = 0, 1, 2, 3, 4


def kind_of(v: object) -> int:
    if v is None:
        return BLANK
    if isinstance(v, bool):
        return BOOL
    if isinstance(v, float):
        return NUMBER
    if isinstance(v, str):
        return TEXT
    if isinstance(v, XlError):
        return ERROR
    return NUMBER


#: the kinds of the exact types values have (others: kind_of, one by one)
_KIND_OF_TYPE = {
    float: NUMBER,
    int: NUMBER,
    np.float64: NUMBER,
    str: TEXT,
    bool: BOOL,
    XlError: ERROR,
    type(None): BLANK,
}


def _objects(items: list) -> np.ndarray:
    out = np.empty(len(items), dtype=object)
    out[:] = items
    return out


class ValueColumn:
    __slots__ = ("kind", "num", "obj")

    def __init__(self, length: int) -> None:
        self.kind = np.zeros(length, dtype=np.int8)
        self.num = np.zeros(length, dtype=np.float64)
        self.obj: np.ndarray | None = None

    def objects(self) -> np.ndarray:
        if self.obj is None:
            self.obj = np.empty(len(self.kind), dtype=object)
        return self.obj


class SheetStore:
    """The values of one sheet. Rows are 1-based; reads past the last row give blanks."""

    def __init__(self, name: str, max_row: int, max_block_cells: int | None = None) -> None:
        self.name = name
        self.max_row = max_row
        self.length = max_row + 2  # row 0 unused, last row a blank sentinel
        self.cols: dict[int, ValueColumn] = {}
        self.max_block_cells = max_block_cells  # see limits.Limits.max_range_cells
        self.hidden_rows: frozenset[int] = frozenset()  # rows hidden in the file
        #: cells whose formulas call SUBTOTAL or AGGREGATE (those skip each other's results)
        self.subtotal_cells: set[tuple[int, int]] = set()

    @classmethod
    def from_part(cls, part: SheetPart, max_block_cells: int | None = None) -> SheetStore:
        store = cls(part.name, part.max_row, max_block_cells)
        store.hidden_rows = frozenset(part.hidden_rows)
        if part.num_rows:
            rows = np.asarray(part.num_rows, dtype=np.int64)
            cols = np.asarray(part.num_cols, dtype=np.int64)
            vals = np.asarray(part.num_vals, dtype=np.float64)
            for c in np.unique(cols).tolist():
                sel = cols == c
                col = store.column(c)
                col.kind[rows[sel]] = NUMBER
                col.num[rows[sel]] = vals[sel]
        if part.obj_rows:
            rows = np.asarray(part.obj_rows, dtype=np.int64)
            cols = np.asarray(part.obj_cols, dtype=np.int64)
            vals = _objects(part.obj_vals)
            for c in np.unique(cols).tolist():
                sel = np.flatnonzero(cols == c)
                store.set_many(c, rows[sel], vals[sel].tolist())
        return store

    def column(self, c: int) -> ValueColumn:
        col = self.cols.get(c)
        if col is None:
            col = self.cols[c] = ValueColumn(self.length)
        return col

    def set(self, row: int, col: int, v: object) -> None:
        """Set one cell (loading and per-cell evaluation)."""
        column = self.column(col)
        k = kind_of(v)
        column.kind[row] = k
        if k == NUMBER:
            column.num[row] = float(v)
        elif k != BLANK:
            column.objects()[row] = v

    def get(self, row: int, col: int) -> object:
        """One cell's value (None when blank)."""
        column = self.cols.get(col)
        if column is None or row >= self.length:
            return None
        k = column.kind[row]
        if k == NUMBER:
            return float(column.num[row])
        if k == BLANK:
            return None
        return column.obj[row]

    def write(self, col: int, rows: np.ndarray, values: np.ndarray) -> None:
        """Store a formula group's results (values of shape (n,), any dtype)."""
        column = self.column(col)
        if values.dtype == np.float64:
            column.kind[rows] = NUMBER
            column.num[rows] = values
            return
        if values.dtype == np.bool_:
            column.kind[rows] = BOOL
            column.objects()[rows] = values.astype(object)
            return
        self.set_many(col, rows, values.tolist(), none=0.0)

    def set_many(self, col: int, rows: np.ndarray, values: list, none=None) -> None:
        """Set cells ``rows`` of column ``col``, as :meth:`set` one by one would (``none``
        stands for None)."""
        kinds = list(map(_KIND_OF_TYPE.get, map(type, values)))
        if None in kinds or (none is not None and BLANK in kinds):
            for r, v in zip(np.asarray(rows).tolist(), values, strict=True):
                self.set(r, col, none if v is None else v)
            return
        column = self.column(col)
        k = np.array(kinds, dtype=np.int8)
        rows = np.asarray(rows, dtype=np.int64)
        column.kind[rows] = k
        vals = _objects(values)
        num = k == NUMBER
        if num.any():
            column.num[rows[num]] = vals[num].astype(np.float64)
        other = ~num & (k != BLANK)
        if other.any():
            column.objects()[rows[other]] = vals[other]

    def block(self, r0, h: int, c0: int, w: int) -> np.ndarray:
        """Values of rows r0..r0+h-1 x columns c0..c0+w-1 as an (m, h, w) array.

        ``r0`` is an int (m = 1) or an int array of shape (m,) for ranges that move with the
        formula's row. Rows past the sheet's last used row are blank and are not materialised
        beyond it: ``h`` is clipped, so callers that need the true height keep it themselves.
        """
        if isinstance(r0, np.ndarray):
            m = len(r0)
        else:
            m = 1
            # rows past the last used one are blank: keep one of them (the blank sentinel row),
            # so a single cell below the used area reads as blank, not as nothing
            h = max(min(h, 1), min(h, self.length - max(r0, 0)))
        if self.max_block_cells is not None and m * h * w > self.max_block_cells:
            raise LimitExceededError(
                f"a formula reads {m * h * w:,} cells of sheet {self.name!r} at once "
                f"({h:,} rows x {w:,} columns{f' x {m:,} formula rows' if m > 1 else ''}; "
                f"limit {self.max_block_cells:,} cells)"
            )
        if h == 1 and w == 1:
            return self._one(r0, m, c0)
        if isinstance(r0, np.ndarray):
            idx = r0[:, None] + np.arange(h)[None, :]
        else:
            idx = np.arange(r0, r0 + h)[None, :]
        idx = np.clip(idx, 0, self.length - 1)
        cols = [self.cols.get(c) for c in range(c0, c0 + w)]
        kinds = np.zeros((m, h, w), dtype=np.int8)
        for j, col in enumerate(cols):
            if col is not None:
                kinds[:, :, j] = col.kind[idx]
        if (kinds == NUMBER).all():  # (also when the block is empty: nothing to read)
            out = np.empty((m, h, w), dtype=np.float64)
            for j, col in enumerate(cols):
                if col is not None:
                    out[:, :, j] = col.num[idx]
            return out
        out = np.empty((m, h, w), dtype=object)
        for j, col in enumerate(cols):
            if col is None:
                continue
            k = kinds[:, :, j]
            sub = out[:, :, j]
            num = k == NUMBER
            if num.any():
                sub[num] = col.num[idx][num]
            other = (k != NUMBER) & (k != BLANK)
            if other.any():
                sub[other] = col.obj[idx][other]
        return out

    def _one(self, r0, m: int, c: int) -> np.ndarray:
        """:meth:`block` of one cell a row (most reads: ``$CE6``, ``A5``): the same values and
        types without the general case's index grid (a quarter of a monthly finance workbook's
        recalculation went to that grid)."""
        col = self.cols.get(c)
        last = self.length - 1
        if not isinstance(r0, np.ndarray):
            one = np.empty((1, 1, 1), dtype=object)
            if col is None:
                return one
            i = min(max(r0, 0), last)
            k = col.kind[i]
            if k == NUMBER:
                one = np.empty((1, 1, 1), dtype=np.float64)
                one[0, 0, 0] = col.num[i]
            elif k != BLANK and col.obj is not None:
                one[0, 0, 0] = col.obj[i]
            return one
        if m == 0:
            return np.empty((0, 1, 1), dtype=np.float64)
        if col is None:
            return np.empty((m, 1, 1), dtype=object)
        idx = np.minimum(np.maximum(r0, 0), last)
        kinds = col.kind[idx]
        num = kinds == NUMBER
        if num.all():
            return col.num[idx].reshape(m, 1, 1)
        out = np.empty((m, 1, 1), dtype=object)
        flat = out.reshape(m)
        if num.any():
            flat[num] = col.num[idx[num]]
        other = ~num & (kinds != BLANK)
        if other.any():
            flat[other] = col.obj[idx[other]]
        return out


class BookStore:
    """All sheets' stores, found by name case-insensitively."""

    def __init__(self, stores: list[SheetStore]) -> None:
        self.stores = {s.name.upper(): s for s in stores}
        self.names: dict[tuple[str | None, str], str] = {}  # defined names, for INDIRECT

    def sheet(self, name: str) -> SheetStore | None:
        return self.stores.get(name.upper())
