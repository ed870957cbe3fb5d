"""Batch runs: scenarios from CSV, XLSX or Parquet in, results out, in bounded-memory chunks.

One row per scenario, columns named like the scenario inputs (:data:`udfs.scenario.INPUT_NAMES`);
the output has the input columns followed by the result columns (:data:`udfs.scenario.OUTPUTS`);
a column that is both (``capex_per_gpu``, ``other_usd_per_gpu_hour``) holds the value used, and a
results file can be run again as input (its result columns are recomputed).
Text columns are dictionary-encoded per chunk, so millions of rows cost a few numpy passes.
Unknown columns are an error (a misspelt input must not be silently ignored), except columns that
start with an underscore or are named ``id``/``scenario``/``name``/``label``, which are carried
through untouched as labels.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import time
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from xml.etree.ElementTree import ParseError

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from udfs import scenario
from udfs.errors import GputcoError, InputRangeError, UnknownNameError
from workbook.xlsx.cells import looks_like_formula
from workbook.xlsx.files import atomic_output, check_input

FORMATS = ("csv", "parquet", "xlsx")
DEFAULT_CHUNK_ROWS = 500_000
LABEL_COLUMNS = ("id", "scenario", "name", "label")
XLSX_MAX_ROWS = 1_048_575  # Excel's sheet limit less the header row


class BatchError(GputcoError, ValueError):
    """A batch input that cannot be run (bad format, bad column, bad row)."""


@dataclass
class BatchReport:
    rows: int
    seconds: float
    chunks: int

    @property
    def rows_per_second(self) -> float:
        return self.rows / self.seconds if self.seconds else float("inf")


def file_format(path: str | os.PathLike, given: str | None = None) -> str:
    """The format of a batch file: ``given``, or from the extension (.csv, .parquet/.pq, .xlsx)."""
    if given:
        fmt = given.lower()
    else:
        ext = Path(path).suffix.lower().lstrip(".")
        fmt = {"pq": "parquet", "xlsm": "xlsx"}.get(ext, ext)
    if fmt not in FORMATS:
        raise UnknownNameError("batch file format", fmt or str(path), FORMATS)
    return fmt


# -- reading -------------------------------------------------------------------------------------

def read_chunks(path: str | os.PathLike, fmt: str, chunk_rows: int) -> Iterator[pa.Table]:
    """Yield the input as Arrow tables of at most ``chunk_rows`` rows."""
    if fmt == "parquet":
        import pyarrow.parquet as pq

        with pq.ParquetFile(path) as f:
            for batch in f.iter_batches(batch_size=chunk_rows):
                yield pa.Table.from_batches([batch])
    elif fmt == "csv":
        import pyarrow.csv as pcsv

        reader = pcsv.open_csv(
            path,
            read_options=pcsv.ReadOptions(block_size=1 << 24),
            convert_options=pcsv.ConvertOptions(
                column_types={n: pa.string() for n in scenario.TEXT_INPUTS},
                strings_can_be_null=False,
            ),
        )
        pending: list[pa.RecordBatch] = []
        rows = 0
        for batch in reader:
            pending.append(batch)
            rows += batch.num_rows
            if rows >= chunk_rows:
                yield pa.Table.from_batches(pending)
                pending, rows = [], 0
        if pending:
            yield pa.Table.from_batches(pending)
    else:
        yield from _read_xlsx(path, chunk_rows)


def _read_xlsx(path, chunk_rows):
    from openpyxl import load_workbook

    from workbook.recalc.errors import WorkbookFormatError
    from workbook.recalc.package import open_zip

    try:  # the checks `gputco recalc` makes: zip bombs, part counts, encryption...
        open_zip(path).close()
    except WorkbookFormatError as err:
        raise BatchError(f"{path}: {err}" if str(path) not in str(err) else str(err)) from None
    wb = load_workbook(path, read_only=True, data_only=True)
    try:
        ws = wb.worksheets[0]
        rows = ws.iter_rows(values_only=True)
        header = next(rows, None)
        if not header:
            raise BatchError(f"{path}: the first sheet has no header row")
        names = [str(h).strip() if h is not None else "" for h in header]
        buf: list[tuple] = []
        for row in rows:
            if row is None or all(v is None for v in row):
                continue
            buf.append(row)
            if len(buf) >= chunk_rows:
                yield _rows_to_table(names, buf)
                buf = []
        if buf:
            yield _rows_to_table(names, buf)
    finally:
        wb.close()


def _rows_to_table(names, rows):
    cols = {}
    for j, name in enumerate(names):
        if not name:
            continue
        values = [r[j] if j < len(r) else None for r in rows]
        if name in scenario.TEXT_INPUTS or name in LABEL_COLUMNS or name.startswith("_"):
            cols[name] = pa.array([None if v is None else str(v) for v in values], pa.string())
        else:
            cols[name] = pa.array([_to_float(name, v, i) for i, v in enumerate(values)],
                                  pa.float64())
    return pa.table(cols)


def _to_float(name, value, row):
    if value is None or value == "":
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        try:
            return float(value)
        except (TypeError, ValueError):
            raise BatchError(f"row {row + 2}, column {name}: {value!r} is not a number") from None
    return float(value)


#: what a damaged or foreign input file raises while it is read (turned into one BatchError)
_READ_ERRORS = (pa.ArrowException, zipfile.BadZipFile, ParseError, KeyError, IndexError,
                ValueError, UnicodeDecodeError, OSError, EOFError)


def _guarded(chunks: Iterator[pa.Table], path, fmt: str) -> Iterator[pa.Table]:
    """The chunks of a reader, with any failure to read the file as one clear BatchError."""
    while True:
        try:
            table = next(chunks)
        except StopIteration:
            return
        except GputcoError:
            raise
        except _READ_ERRORS as err:
            reason = (str(err).strip().splitlines() or [type(err).__name__])[0][:200]
            reason = "".join(c if c.isprintable() else "?" for c in reason)
            raise BatchError(f"{path}: cannot read it as {fmt.upper()}: {reason}") from None
        yield table


# -- evaluating ----------------------------------------------------------------------------------

def _inputs(table: pa.Table, offset: int) -> dict[str, object]:
    inputs: dict[str, object] = {}
    for name in table.column_names:
        if name.startswith("_") or name in LABEL_COLUMNS:
            continue
        if name in scenario.OUTPUTS and name not in scenario.INPUT_NAMES:
            continue  # a result column of an earlier run: recomputed below
        if name not in scenario.INPUT_NAMES:
            raise UnknownNameError("batch column", name, scenario.INPUT_NAMES)
        col = table.column(name)
        if name in scenario.TEXT_INPUTS:
            col = pc.if_else(pc.equal(pc.utf8_trim_whitespace(col.cast(pa.string())), ""),
                             None, col.cast(pa.string()))
            if col.null_count == len(col):
                continue  # an empty text column means the default
            if col.null_count:
                default = next(i.default for i in scenario.INPUTS if i.name == name)
                col = pc.fill_null(col, default)
            enc = col.combine_chunks().dictionary_encode()
            inputs[name] = scenario.Coded(enc.indices.to_numpy(zero_copy_only=False).astype(np.intp),
                                          enc.dictionary.to_pylist())
        else:
            try:
                arr = col.cast(pa.float64())
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                raise BatchError(f"column {name}: values are not numbers "
                                 f"(rows {offset + 2}-{offset + len(col) + 1})") from None
            inputs[name] = arr.to_numpy(zero_copy_only=False)  # nulls -> NaN = use preset
    return inputs


def evaluate_table(table: pa.Table, offset: int = 0) -> pa.Table:
    """Inputs and results of one chunk as an Arrow table."""
    try:
        results = scenario.evaluate(_inputs(table, offset))
    except InputRangeError as err:
        if err.index is None:
            raise
        row = offset + err.index[0] + 2  # 1-based, after the header row
        raise BatchError(f"row {row}: {err.arg} must be in {err.valid}, got {err.value:.15g}") \
            from None
    out = table
    for name, values in results.items():
        field, column = pa.field(name, pa.float64()), pa.array(values)
        i = out.schema.get_field_index(name)
        # A result that is also an input (capex_per_gpu, other_usd_per_gpu_hour) or a result of an
        # earlier run is replaced by the value used.
        out = out.set_column(i, field, column) if i >= 0 else out.append_column(field, column)
    return out


# -- writing -------------------------------------------------------------------------------------

class _Writer:
    def __init__(self, path: Path, fmt: str):
        self.path, self.fmt, self.rows = path, fmt, 0
        self._w = None
        self._wb = None

    def write(self, table: pa.Table) -> None:
        if self.fmt == "parquet":
            import pyarrow.parquet as pq

            if self._w is None:
                self._w = pq.ParquetWriter(self.path, table.schema, compression="snappy")
            self._w.write_table(table)
        elif self.fmt == "csv":
            import pyarrow.csv as pcsv

            table = _neutralise_text(table)
            if self._w is None:
                self._w = pcsv.CSVWriter(self.path, table.schema)
            self._w.write_table(table)
        else:
            self._write_xlsx(table)
        self.rows += table.num_rows

    def _write_xlsx(self, table):
        from openpyxl import Workbook

        if self.rows + table.num_rows > XLSX_MAX_ROWS:
            raise BatchError(f"an .xlsx sheet holds at most {XLSX_MAX_ROWS:,} scenarios; "
                             "write Parquet or CSV instead")
        if self._wb is None:
            self._wb = Workbook(write_only=True)
            self._ws = self._wb.create_sheet("results")
            self._ws.append(table.column_names)
        from openpyxl.cell import WriteOnlyCell

        cols = [c.to_pylist() for c in table.columns]
        for row in zip(*cols, strict=True):
            self._ws.append([_text_cell(self._ws, v, WriteOnlyCell) for v in row])

    def close(self) -> None:
        if self._w is not None:
            self._w.close()
        if self._wb is not None:
            self._wb.save(self.path)

    def abort(self) -> None:
        """Close after a failure, quietly: a second error must not hide the first one."""
        with contextlib.suppress(Exception):
            self.close()


def _text_cell(ws, value, cell_type):
    """Text is stored as text even when it starts with '=' (never as a formula); characters XML
    cannot hold are written with Excel's own escape ``_xHHHH_``."""
    if not isinstance(value, str):
        return value
    if _XML_ILLEGAL.search(value):
        value = _XML_ILLEGAL.sub(lambda m: f"_x{ord(m.group()):04X}_", value)
    if looks_like_formula(value):
        cell = cell_type(ws, value=value)
        cell.data_type = "s"
        return cell
    return value


_XML_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f]")


def _neutralise_text(table: pa.Table) -> pa.Table:
    """CSV: text a spreadsheet would read as a formula (=, +, -, @) gets a leading apostrophe."""
    for i, field in enumerate(table.schema):
        if pa.types.is_string(field.type) or pa.types.is_large_string(field.type):
            col = table.column(i)
            risky = pc.match_substring_regex(col, r"^[=+\-@\t\r]")
            if pc.any(risky).as_py():
                col = pc.if_else(risky, pc.binary_join_element_wise("'", col, ""), col)
                table = table.set_column(i, field, col)
    return table


# -- the job -------------------------------------------------------------------------------------

def run_batch(src, dst, *, in_format=None, out_format=None, chunk_rows=DEFAULT_CHUNK_ROWS,
              force=False, progress=None) -> BatchReport:
    """Run every scenario of ``src`` and write inputs + results to ``dst`` (atomically).

    ``progress`` is called with the rows done so far after each chunk (None: no progress).
    """
    src, dst = check_input(src), Path(dst)
    fin, fout = file_format(src, in_format), file_format(dst, out_format)
    t0 = time.perf_counter()
    chunks = 0
    with atomic_output(dst, force=force) as tmp:
        writer = _Writer(tmp, fout)
        try:
            for table in _guarded(read_chunks(src, fin, chunk_rows), src, fin):
                writer.write(evaluate_table(table, writer.rows))
                chunks += 1
                if progress:
                    progress(writer.rows)
        except BaseException:
            writer.abort()  # the first error is the one to report; the temporary file goes
            raise
        writer.close()
        if writer.rows == 0:
            raise BatchError(f"{src}: no scenarios (no data rows)")
    return BatchReport(writer.rows, time.perf_counter() - t0, chunks)


class Progress:
    """A one-line progress report on stderr, at most twice a second (only on a terminal)."""

    def __init__(self, total: int | None = None, stream=sys.stderr, force: bool = False):
        self.total, self.stream = total, stream
        self.enabled = force or stream.isatty()
        self.t0 = self.last = time.perf_counter()

    def __call__(self, rows: int) -> None:
        now = time.perf_counter()
        if not self.enabled or now - self.last < 0.5:
            return
        self.last = now
        rate = rows / max(now - self.t0, 1e-9)
        of = f"/{self.total:,}" if self.total else ""
        self.stream.write(f"\r{rows:,}{of} scenarios, {rate:,.0f}/s")
        self.stream.flush()

    def done(self) -> None:
        if self.enabled:
            self.stream.write("\n")
