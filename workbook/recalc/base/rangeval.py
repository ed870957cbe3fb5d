"""References during evaluation: a rectangle of one sheet, possibly moving with the row.

A :class:`RangeVal` is what a reference evaluates to before anything reads it. Functions that take
ranges (SUM, INDEX, MATCH...) receive it as is; operators and scalar arguments get its values,
after Excel's implicit intersection when the formula is not an array formula.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from gputco.workbook.recalc.base import vec
from gputco.workbook.recalc.base.values import REF, VALUE


class Cells(Protocol):
    """Where a range reads its values (the run stage's :class:`SheetStore`): rows r0..r0+h-1
    (``r0`` an int or an (n,) array) by columns c0..c0+w-1."""

    def block(self, r0, h: int, c0: int, w: int) -> np.ndarray: ...


class RangeVal:
    """Rows r0..r0+h-1 x columns c0..c0+w-1 of a sheet; ``r0`` an int or an (n,) array."""

    __slots__ = ("c0", "h", "r0", "store", "w")

    def __init__(self, store: Cells | None, r0, h: int, c0: int, w: int) -> None:
        self.store, self.r0, self.h, self.c0, self.w = store, r0, h, c0, w

    @property
    def moving(self) -> bool:
        return isinstance(self.r0, np.ndarray)

    def values(self) -> np.ndarray:
        """All values as an (m, h', w) array (h' clipped to the sheet's used rows when fixed)."""
        if self.store is None:
            return vec.const(REF)
        return self.store.block(self.r0, self.h, self.c0, self.w)

    #: array formulas see a range past the sheet's last used row at its true size (blank cells)
    #: up to this many cells; larger ones (whole columns) stay cut at the last used row
    PAD_LIMIT = 1 << 16

    def array_values(self) -> np.ndarray:
        """Values for an array expression: like :meth:`values`, but with the blank rows past
        the sheet's last used row kept (``{=A1:A10*2}`` over 5 used rows gives 10 results)."""
        vals = self.values()
        if self.store is None or vals.shape[1] == self.h or self.h * self.w > self.PAD_LIMIT:
            return vals
        out = np.full((vals.shape[0], self.h, self.w), None, dtype=object)
        out[:, : vals.shape[1], :] = vals
        return out

    def intersect(self, rows: np.ndarray, col: int) -> np.ndarray:
        """Excel's implicit intersection with the formula cells at ``rows`` x ``col``.

        A single cell gives its value; a one-column range the cell on the formula's row; a
        one-row range the cell in the formula's column; anything else, or no overlap, #VALUE!.
        """
        if self.store is None:
            return vec.const(REF)
        if self.h == 1 and self.w == 1:
            return self.store.block(self.r0, 1, self.c0, 1)
        if self.w == 1:
            inside = (rows >= self.r0) & (rows < self.r0 + self.h)
            if not np.any(inside):
                return vec.const(VALUE)
            vals = self.store.block(rows, 1, self.c0, 1)
            if np.all(inside):
                return vals
            out = vals.astype(object)
            out[~np.broadcast_to(inside, rows.shape), 0, 0] = VALUE
            return out
        if self.h == 1 and self.c0 <= col < self.c0 + self.w:
            return self.store.block(self.r0, 1, col, 1)
        return vec.const(VALUE)


def materialize(x) -> np.ndarray:
    """Values of a RangeVal, or the array itself."""
    return x.values() if isinstance(x, RangeVal) else x


def dims(x) -> tuple[int, int]:
    """(rows, columns) of a reference or array argument (true size, not clipped)."""
    if isinstance(x, RangeVal):
        return x.h, x.w
    return x.shape[1], x.shape[2]
