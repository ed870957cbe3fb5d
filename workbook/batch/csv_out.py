"""Batch results as CSV, a chunk at a time: pyarrow's writer where installed, else the standard
library's, with the same rules.

- A number is its shortest round-trip text (an empty cell where NaN); text a spreadsheet would
  read as a formula (:data:`RISKY`: ``=``, ``+``, ``-``, ``@``, tab, carriage return first) gets
  a leading apostrophe; text is quoted.
- Memory holds one chunk: each chunk is formatted and written, then dropped (the standard
  library's writer formats :data:`BLOCK_ROWS` rows at a time).

The standard library's writer formats each number with ``repr`` (Python work per cell), so
without pyarrow a CSV of results is slower to write than with it (``benchmarks/bench_batch.py``
prints both, side by side); where pyarrow is installed (``pip install 'gputco[parquet]'``) CSV
goes through its C++ writer, as before.

>>> import io, tempfile, pathlib, numpy as np
>>> from gputco.workbook.batch.table import Table, text_column
>>> t = Table(["name", "mfu"], [text_column(["=1+1", None]), np.array([0.5, np.nan])])
>>> p = pathlib.Path(tempfile.mkdtemp()) / "out.csv"
>>> w = CsvWriter(p, t.names, use_arrow=False); w.write(t); w.close()
>>> p.read_text()
'"name","mfu"\\n"\\'=1+1",0.5\\n,\\n'
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from gputco.workbook.batch.table import Table, arrow, is_arrow, text_column, to_arrow

#: rows formatted at once by the standard library's writer (its memory: one block's texts)
BLOCK_ROWS = 20_000
#: text a spreadsheet would read as a formula, which gets a leading apostrophe in CSV
RISKY = r"^[=+\-@\t\r]"
_RISKY = re.compile(RISKY)


class CsvWriter:
    """Header first, then each :meth:`write`'s rows; ``use_arrow``: None to use pyarrow where
    it is installed, False for the standard library's writer."""

    def __init__(self, path: str | Path, names: list[str], use_arrow: bool | None = None) -> None:
        self.path, self.names = Path(path), list(names)
        self._arrow = arrow() if use_arrow is not False else None
        self._w = None
        if self._arrow is None:
            self._fh = open(self.path, "w", encoding="utf-8", newline="")
            self._fh.write(",".join(_quote(n) for n in self.names) + "\n")

    def write(self, table: Table) -> None:
        if self._arrow is not None:
            import pyarrow.csv as pcsv

            at = _neutralise_arrow(to_arrow(table))
            if self._w is None:
                self._w = pcsv.CSVWriter(self.path, at.schema)
            self._w.write_table(at)
            return
        for start in range(0, table.num_rows, BLOCK_ROWS):  # a Python string per cell: in blocks
            part = table.slice(start, start + BLOCK_ROWS)
            cols = [_texts(c) for c in part.columns]
            self._fh.write("".join(",".join(row) + "\n" for row in zip(*cols, strict=True)))

    def close(self) -> None:
        if self._w is not None:
            self._w.close()
        elif self._arrow is None:
            self._fh.close()


def _quote(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def _texts(col: np.ndarray) -> list[str]:
    """The CSV field of every cell of a column."""
    if is_arrow(col):  # text pyarrow read, written here without it (the benchmark's comparison)
        col = text_column(col.to_pylist())
    if col.dtype.kind == "f":
        out = repr(col.tolist())[1:-1].split(", ") if len(col) else []
        nan = np.flatnonzero(~np.isfinite(col))
        for i in nan.tolist():
            out[i] = ""
        return out
    if col.dtype.kind == "b":
        return ["true" if v else "false" for v in col.tolist()]
    if col.dtype.kind in "iu":
        return [str(v) for v in col.tolist()]
    return [
        "" if v is None else _quote(("'" + v) if isinstance(v, str) and _RISKY.match(v) else str(v))
        for v in col.tolist()
    ]


def _neutralise_arrow(table):
    """:data:`RISKY` text gets its apostrophe, in Arrow's kernels."""
    import pyarrow as pa
    import pyarrow.compute as pc

    for i, field in enumerate(table.schema):
        if pa.types.is_string(field.type):
            col = table.column(i)
            risky = pc.match_substring_regex(col, RISKY)
            if pc.any(risky).as_py():
                table = table.set_column(
                    i, field, pc.if_else(risky, pc.binary_join_element_wise("'", col, ""), col)
                )
    return table
