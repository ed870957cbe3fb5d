"""CSV dialects: the separator and decimal mark of a batch CSV, detected or given, and reading it.

A spreadsheet saved as CSV in much of Europe uses ``;`` between fields and a decimal comma
(``0,54``). The separator is the candidate the header line holds most of; the decimal mark is a
comma when the separator is not one and the first lines hold numbers like ``0,54``. Every column
is read as text, so a cell that is not a number is reported with its row (never a whole column
refused), and the pre-pass (:mod:`.validate`) turns text into numbers.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from gputco.workbook.batch.table import Table, arrow, from_arrow, text_column

SEPARATORS = {",": "comma", ";": "semicolon", "\t": "tab", "|": "bar"}
_SAMPLE = 1 << 16


@dataclass(frozen=True)
class Dialect:
    sep: str
    decimal: str
    header: tuple[str, ...]
    detected: bool

    def describe(self) -> str:
        """How the file was read, for error messages."""
        how = "detected" if self.detected else "given"
        cols = ", ".join(repr(h) for h in self.header[:8]) + (", ..." if len(self.header) > 8 else "")
        return (
            f"The file was read as CSV with separator {self.sep!r} and decimal mark "
            f"{self.decimal!r} ({how}; --sep and --decimal set them), giving "
            f"{len(self.header)} column{'s' if len(self.header) != 1 else ''}: {cols}."
        )


def sniff(path, sep: str | None = None, decimal: str | None = None) -> Dialect:
    """The dialect of a CSV file from its first 64 KiB, with ``sep``/``decimal`` if given.

    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "eu.csv"
    >>> _ = f.write_text("system;mfu;usd_per_kwh\\nH100_HGX;0,54;0,12\\n")
    >>> d = sniff(f)
    >>> d.sep, d.decimal, d.header
    (';', ',', ('system', 'mfu', 'usd_per_kwh'))
    """
    with open(path, "rb") as fh:
        raw = fh.read(_SAMPLE)
    text = raw.decode("utf-8-sig", errors="replace")
    lines = text.splitlines()
    first = lines[0] if lines else ""
    detected = sep is None or decimal is None
    if sep is None:
        counts = {s: first.count(s) for s in SEPARATORS}
        sep = max(counts, key=counts.get) if max(counts.values()) else ","
    if decimal is None:
        decimal = "."
        if sep != ",":
            num = re.compile(rf"(?:^|{re.escape(sep)})\s*-?\d+,\d+\s*(?={re.escape(sep)}|$)")
            if any(num.search(line) for line in lines[1:200]):
                decimal = ","
    if sep == decimal:
        raise ValueError(f"the separator and the decimal mark are both {sep!r}")
    header = tuple(next(csv.reader(io.StringIO(first), delimiter=sep), []))
    return Dialect(sep, decimal, header, detected)


def read_csv(
    path, chunk_rows: int, d: Dialect, make: Callable[[Table, np.ndarray], object]
) -> Iterator[object]:
    """Yield ``make(table, spreadsheet rows)`` for chunks of at most ``chunk_rows`` rows; every
    column is text (None where empty). pyarrow's reader where installed (faster), else the
    standard library's; both give the same columns."""
    if arrow() is None:
        yield from _read_csv_stdlib(path, chunk_rows, d, make)
        return
    import pyarrow as pa
    import pyarrow.csv as pcsv

    reader = pcsv.open_csv(
        path,
        read_options=pcsv.ReadOptions(block_size=1 << 24),
        parse_options=pcsv.ParseOptions(delimiter=d.sep, ignore_empty_lines=False),
        convert_options=pcsv.ConvertOptions(
            column_types={n: pa.string() for n in d.header},
            strings_can_be_null=True,
            null_values=[""],
            quoted_strings_can_be_null=True,
        ),
    )
    pending: list = []
    rows = done = 0
    for batch in reader:
        pending.append(batch)
        rows += batch.num_rows
        while rows >= chunk_rows:
            table = pa.Table.from_batches(pending)
            head, rest = table.slice(0, chunk_rows), table.slice(chunk_rows)
            yield make(from_arrow(head), np.arange(done + 2, done + 2 + chunk_rows))
            done += chunk_rows
            pending, rows = rest.to_batches(), rest.num_rows
    if rows:
        table = pa.Table.from_batches(pending)
        yield make(from_arrow(table), np.arange(done + 2, done + 2 + rows))


def _read_csv_stdlib(path, chunk_rows: int, d: Dialect, make) -> Iterator[object]:
    """The same chunks through :mod:`csv` (the core install, without pyarrow)."""
    with open(path, encoding="utf-8-sig", newline="") as fh:
        reader = csv.reader(fh, delimiter=d.sep, strict=True)
        header = next(reader, None)
        if header is None:
            return
        width = len(header)
        buf: list[list[str]] = []
        done = 0
        for record in reader:
            if len(record) != width:
                if record:  # a blank line is a row of empty cells (skipped later, numbered)
                    raise ValueError(
                        f"row {done + len(buf) + 2}: expected {width} columns, got {len(record)}"
                    )
                record = [""] * width
            buf.append(record)
            if len(buf) >= chunk_rows:
                yield make(_columns(header, buf), np.arange(done + 2, done + 2 + len(buf)))
                done += len(buf)
                buf = []
        if buf:
            yield make(_columns(header, buf), np.arange(done + 2, done + 2 + len(buf)))


def _columns(header: list[str], records: list[list[str]]) -> Table:
    cols = []
    for values in zip(*records, strict=True):
        col = text_column(values)
        col[col == ""] = None  # an empty field is an empty cell, as pyarrow reads it
        cols.append(col)
    return Table(list(header), cols)
