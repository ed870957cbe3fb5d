"""The value store's blocks (what every reference reads) against its cells one by one
(``SheetStore.get``): numbers as float64 blocks, anything else (text, booleans, errors, blanks
as None) as object blocks, rows past the sheet's end blank, for one cell a row (the fast path
most references take) and for wider blocks.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from gputco.workbook.recalc.base.values import error
from gputco.workbook.recalc.run.store import SheetStore

VALUES = st.one_of(
    st.none(),
    st.floats(allow_nan=False, allow_infinity=False, width=64),
    st.text(max_size=3),
    st.booleans(),
    st.sampled_from([error("#N/A"), error("#DIV/0!")]),
)


def _store(cells: list[list[object]]) -> SheetStore:
    store = SheetStore("S", len(cells))
    for r, row in enumerate(cells, start=1):
        for c, v in enumerate(row, start=1):
            if v is not None:
                store.set(r, c, v)
    return store


def _want(store: SheetStore, rows: list[int], h: int, c0: int, w: int) -> list:
    return [
        [[store.get(r + i, c0 + j) if 0 <= r + i else None for j in range(w)] for i in range(h)] for r in rows
    ]


@given(
    cells=st.lists(st.lists(VALUES, min_size=3, max_size=3), min_size=1, max_size=6),
    rows=st.lists(st.integers(0, 9), min_size=1, max_size=5),
    c0=st.integers(1, 4),
    h=st.integers(1, 3),
    w=st.integers(1, 2),
    moving=st.booleans(),
)
def test_a_block_holds_the_cells_values(cells, rows, c0, h, w, moving):
    store = _store(cells)
    r0 = np.array(rows, dtype=np.int64) if moving else rows[0]
    got = store.block(r0, h, c0, w)
    used = rows if moving else rows[:1]
    if not moving:  # a fixed block stops at the sheet's end (its sentinel blank row kept)
        h = max(min(h, 1), min(h, store.length - max(rows[0], 0)))
    want = _want(store, used, h, c0, w)
    assert got.shape == (len(used), h, w)
    numbers = all(isinstance(v, float) for a in want for b in a for v in b)
    assert got.dtype == (np.float64 if numbers else object)
    assert [[[_plain(v) for v in b] for b in a] for a in got.tolist()] == want


def _plain(v: object) -> object:
    return float(v) if isinstance(v, np.floating) else v
