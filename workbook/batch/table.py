"""Batch rows as plain numpy columns: the one form every reader gives and every writer takes.

A column is a numpy array: float (NaN is an empty cell), int or bool (from Parquet, no empty
cell), or object (text, or any other value a Parquet file holds; None is an empty cell). So the
batch pipeline (check, evaluate, CSV and .xlsx out) needs numpy only; pyarrow, the ``parquet``
extra, is imported where a Parquet file is read or written, and where installed it reads and
writes CSV faster (:mod:`.dialect`, :mod:`.csv_out`). Text that pyarrow read stays a pyarrow
string array (null: empty), which the checks read with Arrow's kernels (:func:`is_arrow`): no
Python object per cell where pyarrow is installed.

>>> t = Table(["system", "mfu"], [text_column(["H100_HGX", None]), np.array([0.5, np.nan])])
>>> t.num_rows, t.column("mfu").tolist(), t.filter(np.array([True, False])).column("system").tolist()
(2, [0.5, nan], ['H100_HGX'])
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field as dc_field

import numpy as np

from gputco.workbook.batch.errors import BatchError

PARQUET_EXTRA = "pip install 'gputco[parquet]'"


@dataclass
class Table:
    """Named columns of equal length, in file order."""

    names: list[str]
    columns: list[np.ndarray]
    #: name -> position of its first column, built on the first look-up (a 100,000-column file:
    #: one dictionary, not a scan of the names per column)
    _pos: dict[str, int] | None = dc_field(default=None, init=False, repr=False, compare=False)

    @property
    def column_names(self) -> list[str]:
        return list(self.names)

    @property
    def num_columns(self) -> int:
        return len(self.names)

    @property
    def num_rows(self) -> int:
        return len(self.columns[0]) if self.columns else 0

    def column(self, name: str) -> np.ndarray:
        return self.columns[self.position(name)]

    def position(self, name: str) -> int:
        """Where the first column called ``name`` is (KeyError when there is none)."""
        if self._pos is None:
            pos: dict[str, int] = {}
            for i, n in enumerate(self.names):
                pos.setdefault(n, i)
            self._pos = pos
        return self._pos[name]

    def filter(self, keep: np.ndarray) -> Table:
        if any(is_arrow(c) for c in self.columns):
            import pyarrow as pa

            mask = pa.array(keep)
            return Table(self.names, [c.filter(mask) if is_arrow(c) else c[keep] for c in self.columns])
        return Table(self.names, [c[keep] for c in self.columns])

    def slice(self, start: int, stop: int | None = None) -> Table:
        stop = self.num_rows if stop is None else min(stop, self.num_rows)
        return Table(
            self.names, [c.slice(start, stop - start) if is_arrow(c) else c[start:stop] for c in self.columns]
        )


def text_column(values: Sequence) -> np.ndarray:
    """An object array of the values as given (str, or None for an empty cell)."""
    out = np.empty(len(values), dtype=object)
    out[:] = list(values) if not isinstance(values, list) else values
    return out


def coded_text(codes: np.ndarray, texts: list):
    """The column ``texts[codes[i]]`` (a text or None per row): a pyarrow string array where
    pyarrow is installed (no Python object per row), else an object array."""
    pa = arrow()
    if pa is None:
        return text_column(texts)[codes]
    return pa.array(texts, pa.string()).take(pa.array(np.asarray(codes, dtype=np.int64)))


def is_arrow(col) -> bool:
    """A pyarrow string array (text pyarrow read), not a numpy array."""
    return not isinstance(col, np.ndarray)


def is_text(col) -> bool:
    return is_arrow(col) or col.dtype == object


def blank(col, rows: np.ndarray | None = None) -> np.ndarray:
    """True where a cell is empty: NaN, None, or text of white space only (at ``rows`` only,
    when given: the others are False)."""
    if is_arrow(col):
        import pyarrow.compute as pc

        empty = pc.fill_null(pc.equal(pc.utf8_trim_whitespace(col), ""), True)
        return empty.to_numpy(zero_copy_only=False)
    if col.dtype.kind == "f":
        return np.isnan(col)
    if not is_text(col):
        return np.zeros(len(col), bool)
    out = np.zeros(len(col), bool)
    where = np.arange(len(col)) if rows is None else rows
    out[where] = [v is None or (isinstance(v, str) and not v.strip()) for v in col[where].tolist()]
    return out


# -- pyarrow, where installed ----------------------------------------------------------------------


def arrow():
    """The pyarrow module, or None where it is not installed (the core install)."""
    try:
        import pyarrow
    except ImportError:
        return None
    return pyarrow


def need_arrow(path, doing: str):
    """pyarrow for a Parquet file, or one clear line naming the file and the extra to install."""
    pa = arrow()
    if pa is None:
        raise BatchError(
            f"{path}: {doing} Parquet needs pyarrow, which is not installed; install it with {PARQUET_EXTRA}"
        )
    return pa


def from_arrow(table, first_row: int = 2) -> Table:
    """A pyarrow table as numpy columns: numbers as float (null: NaN; int and bool without nulls
    as they are), text of any Arrow encoding as a pyarrow string array (bytes that are not UTF-8
    are refused), a list, struct or map as JSON text per cell, any other type as its Python
    values. ``first_row``: the row (as a spreadsheet numbers it, the header row 1) of the first
    row, for messages."""
    import pyarrow as pa

    names, cols = [], []
    for field, col in zip(table.schema, table.columns, strict=True):
        t = field.type
        if pa.types.is_dictionary(t):
            col, t = col.cast(t.value_type), t.value_type
        if pa.types.is_floating(t) or pa.types.is_decimal(t) or (pa.types.is_integer(t) and col.null_count):
            out = col.cast(pa.float64()).to_numpy(zero_copy_only=False).astype(float)
        elif (pa.types.is_integer(t) or pa.types.is_boolean(t)) and not col.null_count:
            out = col.to_numpy(zero_copy_only=False)
        elif _textual(pa, t):
            if not pa.types.is_string(t):
                try:
                    col = col.cast(pa.string())
                except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as err:
                    raise BatchError(
                        f"column {field.name!r} holds bytes that are not UTF-8 text ({err})"
                    ) from None
            out = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
        elif pa.types.is_nested(t):  # list, struct, map, union: one JSON text per cell
            out = text_column(_json_cells(field.name, str(t), col.to_pylist(), first_row))
        else:
            out = text_column(col.to_pylist())
        names.append(field.name)
        cols.append(out)
    return Table(names, cols)


def _json_cells(name: str, type_name: str, values: list, first_row: int) -> list:
    """Nested Parquet values (list, struct, map) as JSON text (None stays an empty cell): a map is
    its [key, value] pairs, a value JSON has no form for (a date, bytes, a decimal) its text; a
    NaN or infinity inside one has no JSON form and is refused, naming the column and row."""
    out = []
    for i, v in enumerate(values):
        try:
            out.append(None if v is None else json.dumps(v, default=str, ensure_ascii=False, allow_nan=False))
        except ValueError:
            raise BatchError(
                f"column {name!r} ({type_name}), row {first_row + i}: holds NaN or an infinity inside a"
                " nested value, which has no JSON text to write it as"
            ) from None
    return out


def _textual(pa, t) -> bool:
    return (
        pa.types.is_string(t)
        or pa.types.is_large_string(t)
        or pa.types.is_binary(t)
        or pa.types.is_large_binary(t)
        or pa.types.is_fixed_size_binary(t)
        or str(t) in ("string_view", "binary_view")
    )


def to_arrow(table: Table):
    """The table as a pyarrow table: NaN and None as nulls, text as UTF-8 strings."""
    import pyarrow as pa

    cols = []
    for col in table.columns:
        if is_arrow(col):
            cols.append(col)
        elif col.dtype.kind == "f":
            cols.append(pa.array(col, mask=np.isnan(col)))
        elif is_text(col):
            try:  # text (str or None): as strings
                cols.append(pa.array(col, pa.string()))
            except (pa.ArrowInvalid, pa.ArrowTypeError):  # other values a Parquet file held
                cols.append(pa.array(col.tolist()))
        else:
            cols.append(pa.array(col))
    return pa.table(cols, names=table.names)
