"""Batch runs: scenarios from CSV, XLSX or Parquet in, results out, in bounded-memory chunks.

One row per scenario, columns named like the scenario inputs (:data:`gputco.udfs.scenario.INPUT_NAMES`,
matched case-insensitively); the output echoes the input columns as given (an empty cell stays
empty) followed by the results: the values used for every input (``use_<input>``: the presets
where a cell was empty) and the model's results (:data:`gputco.udfs.scenario.OUTPUTS`). A results file
runs again as input (its result columns are recomputed). Every chunk is checked first by
:mod:`.validate`, which reports every bad cell of the whole file in one run; nothing is written
when any is bad. Unknown columns are an error (a misspelt input must not be silently ignored),
except columns that start with an underscore or are named ``id``/``scenario``/``name``/``label``,
which are carried through untouched as labels.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from xml.etree.ElementTree import ParseError

import numpy as np

from gputco.udfs import chain, project, scenario
from gputco.udfs.decision_steps import NO_MARKET_RENT
from gputco.udfs.errors import GputcoError, InputRangeError, UnknownNameError
from gputco.workbook.batch import dialect
from gputco.workbook.batch.csv_out import CsvWriter
from gputco.workbook.batch.errors import BatchError
from gputco.workbook.batch.table import Table, arrow, blank, coded_text, from_arrow, need_arrow, to_arrow
from gputco.workbook.batch.validate import Checked, Problems, cell, check_chunk
from gputco.workbook.batch.xlsx_in import read_xlsx
from gputco.workbook.recalc import DEFAULT_LIMITS, Limits, RecalcError
from gputco.workbook.timebudget import check_time
from gputco.workbook.xlsx.files import atomic_output, check_input

FORMATS = ("csv", "parquet", "xlsx")
DEFAULT_CHUNK_ROWS = 500_000
LABEL_COLUMNS = ("id", "scenario", "name", "label")
XLSX_MAX_ROWS = 1_048_575  # Excel's sheet limit less the header row
#: the column that says why the project's break-even rent is empty
BREAKEVEN_WHY = "project_breakeven_rent_why"
#: result columns: the value used for each input with a default, then the model's results (those
#: from the cash flows under the project's names: project_npv_usd_per_gpu...) and the project's
#: (equity IRR, DSCR, cluster NPV...: docs/project.md, "Which NPV is which")
RESULTS = (
    tuple(f"use_{i.name}" for i in scenario.INPUTS if i.default is not None)
    + tuple(o for o in scenario.OUTPUTS if o not in scenario.INPUT_NAMES)
    + tuple(scenario.PROJECT_OUTPUTS)
    + (BREAKEVEN_WHY,)
)
#: batch's own old column names -> the new ones (besides the chain's: chain.renamed)
RENAMED = {"breakeven_rent_why": BREAKEVEN_WHY}
#: why a scenario's break-even rent is empty (the text, empty where there is one)
NO_RENT = "no rent_usd_per_gpu_hour given"
#: the result columns of ``--dscr-breakeven`` (opt-in: its search evaluates min_dscr about 40
#: times): the DSCR break-even rent and why it is empty (:func:`dscr_breakeven_why`)
DSCR_BREAKEVEN = (scenario.EXTRA_OUTPUTS[0], "dscr_breakeven_rent_why")


def dscr_breakeven_why(why: np.ndarray) -> tuple[np.ndarray, list]:
    """(code of each row, texts) of the column ``dscr_breakeven_rent_why`` from the reason codes
    :func:`gputco.udfs.scenario.evaluate` gives (NaN where no rent was given): nothing where the
    DSCR break-even rent is a number, else :data:`gputco.udfs.project.DSCR_BREAKEVEN_REASONS`'
    text, or :data:`NO_RENT`.

    >>> codes, texts = dscr_breakeven_why(np.array([0.0, 1.0, np.nan]))
    >>> [texts[c] for c in codes][1:] == [project.DSCR_BREAKEVEN_REASONS[1], NO_RENT]
    True
    """
    reasons = project.DSCR_BREAKEVEN_REASONS
    codes = np.where(np.isnan(why), len(reasons), np.nan_to_num(why)).astype(np.intp)
    return codes, [None, *reasons[1:], NO_RENT]


def breakeven_rent_why(rent: np.ndarray, breakeven: np.ndarray) -> tuple[np.ndarray, list]:
    """(code of each row, texts) of the column ``project_breakeven_rent_why``: nothing where the
    break-even rent is a number, :data:`NO_RENT` where no rent was given (every rent-or-buy result
    is empty then), else :data:`gputco.udfs.decision_steps.NO_MARKET_RENT` (the only other empty
    break-even: no GPU-hour sold at the market rent, docs/project.md).

    >>> breakeven_rent_why(np.array([2.0, np.nan, 2.0]), np.array([1.4, np.nan, np.nan]))[0].tolist()
    [0, 1, 2]
    """
    codes = np.where(np.isnan(breakeven), np.where(np.isnan(rent), 1, 2), 0)
    return codes, [None, NO_RENT, NO_MARKET_RENT]


@dataclass
class BatchReport:
    rows: int
    seconds: float
    chunks: int

    @property
    def rows_per_second(self) -> float:
        return self.rows / self.seconds if self.seconds else float("inf")


@dataclass
class Chunk:
    """Rows of the input as read, with the row number a spreadsheet shows for each."""

    table: Table
    rows: np.ndarray


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


def read_chunks(
    path: str | os.PathLike,
    fmt: str,
    chunk_rows: int,
    csv_dialect: dialect.Dialect | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> Iterator[Chunk]:
    """Yield the input as chunks of at most ``chunk_rows`` rows (rows entirely empty skipped)."""
    if fmt == "parquet":
        need_arrow(path, "reading")
        import pyarrow.parquet as pq

        done = 0
        with pq.ParquetFile(path) as f:
            for batch in f.iter_batches(batch_size=chunk_rows):
                table = from_arrow(batch, done + 2)
                yield _drop_empty(table, np.arange(done + 2, done + 2 + table.num_rows))
                done += table.num_rows
    elif fmt == "csv":
        yield from dialect.read_csv(path, chunk_rows, csv_dialect or dialect.sniff(path), _drop_empty)
    else:
        for table, rows in read_xlsx(path, chunk_rows, limits):
            yield Chunk(table, rows)


def _drop_empty(table: Table, rows: np.ndarray) -> Chunk:
    """Rows whose every cell is empty (a blank line) are skipped, keeping the others' numbers."""
    if not table.num_columns:
        return Chunk(table, rows)
    candidates = np.arange(table.num_rows)  # rows empty in every column so far
    for col in table.columns:
        candidates = candidates[blank(col, candidates)[candidates]]
        if not len(candidates):
            return Chunk(table, rows)
    keep = np.ones(table.num_rows, bool)
    keep[candidates] = False
    return Chunk(table.filter(keep), rows[keep])


#: what a damaged or foreign input file raises while it is read (turned into one BatchError)
_READ_ERRORS = (
    zipfile.BadZipFile,
    ParseError,
    KeyError,
    IndexError,
    ValueError,
    UnicodeDecodeError,
    OSError,
    EOFError,
)


def _arrow_errors() -> tuple:
    pa = arrow()
    return (pa.ArrowException,) if pa is not None else ()


def _guarded(chunks: Iterator[Chunk], path, fmt: str, found: str = "") -> Iterator[Chunk]:
    """The chunks of a reader, with any failure to read the file as one clear BatchError."""
    while True:
        try:
            chunk = next(chunks)
        except StopIteration:
            return
        except (GputcoError, RecalcError):
            raise
        except _READ_ERRORS + _arrow_errors() as err:
            reason = (str(err).strip().splitlines() or [type(err).__name__])[0][:200]
            reason = "".join(c if c.isprintable() else "?" for c in reason)
            raise BatchError(
                f"{path}: cannot read it as {fmt.upper()}: {reason}" + (f". {found}" if found else "")
            ) from None
        yield chunk


# -- columns -------------------------------------------------------------------------------------


def plan_columns(names: list[str], found: str = "") -> tuple[dict[str, str], list[str]]:
    """(input name -> column as the file names it, columns echoed in the output).

    Names match case-insensitively and ignoring surrounding spaces. Columns of an earlier run's
    results are left out (recomputed), except a result under a name gputco no longer gives it
    (``npv_usd_per_gpu``: now ``project_npv_usd_per_gpu``), an error that names the new one;
    labels are echoed; any other column is an error that names what was found (``found``: how
    the file was read, e.g. its CSV separator).
    """
    inputs: dict[str, str] = {}
    echoed: list[str] = []
    seen: dict[str, str] = {}
    results = {r.lower() for r in (*RESULTS, *scenario.OUTPUTS, *scenario.PROJECT_OUTPUTS, *DSCR_BREAKEVEN)}
    for given in names:
        key = given.strip().lower()
        if key in seen:
            raise BatchError(
                f"columns {seen[key]!r} and {given!r} are the same column (names match case-insensitively)"
            )
        seen[key] = given
        if key in scenario.INPUT_NAMES:
            inputs[key] = given
            echoed.append(given)
        elif key.startswith("_") or key in LABEL_COLUMNS:
            echoed.append(given)
        elif key in results:
            continue
        elif (new := RENAMED.get(key) or chain.renamed(key)) is not None:
            raise chain.renamed_error(given, new, "batch column")
        else:
            err = UnknownNameError("batch column", given, scenario.INPUT_NAMES)
            err.message += (
                f" Column names match case-insensitively. {found}"
                if found
                else " Column names match case-insensitively."
            )
            raise err
    if "mfu" not in inputs:
        from gputco.udfs.errors import MissingValueError

        raise MissingValueError(
            "mfu",
            "the file has no mfu column; every scenario needs an MFU "
            f"in (0, 1]{'. ' + found if found else ''}",
        )
    return inputs, echoed


# -- evaluating ----------------------------------------------------------------------------------


def evaluate_chunk(
    chunk: Chunk, inputs: dict[str, str], echoed: list[str], checked: Checked, dscr_breakeven: bool = False
) -> Table:
    """The output of one clean chunk: the echoed columns as given, then the results (with
    ``dscr_breakeven`` also :data:`DSCR_BREAKEVEN`'s)."""
    try:
        used = scenario.used_inputs(checked.inputs)
        results = scenario.evaluate(checked.inputs, scenario.EXTRA_OUTPUTS if dscr_breakeven else ())
    except InputRangeError as err:  # a check the pre-pass does not make (a backstop)
        raise BatchError(_bad_cell(err, chunk, inputs)) from None
    by_given = {given: name for name, given in inputs.items()}
    cols, names = [], []
    for given in echoed:
        col = chunk.table.column(given)
        name = by_given.get(given)
        if name in checked.empty:  # a number: the value given, empty where the cell was
            col = np.where(checked.empty[name], np.nan, checked.inputs[name])
        elif name is not None:  # a text input: as given, empty where the cell was
            col = checked.given_text[name]
        cols.append(col)
        names.append(given)
    n = chunk.table.num_rows
    for inp in scenario.INPUTS:
        if inp.default is None:
            continue
        if inp.kind == "text":
            codes, keys = checked.used_text.get(inp.name, (np.zeros(n, np.intp), [inp.default]))
            col = coded_text(codes, [str(k) for k in keys])
        else:
            col = np.asarray(used[inp.name], float)
            col = np.broadcast_to(col, (n,)) if col.ndim == 0 else col
        cols.append(col)
        names.append(f"use_{inp.name}")
    for name in RESULTS[len(names) - len(echoed) : -1]:
        values = np.asarray(results[name], float)  # NaN: no value (no rent, no payback): empty
        cols.append(np.broadcast_to(values, (n,)) if values.ndim == 0 else values)
        names.append(name)
    rent = np.broadcast_to(np.asarray(used["rent_usd_per_gpu_hour"], float), (n,))
    breakeven = cols[names.index(chain.project_name("breakeven_rent_usd_per_gpu_hour"))]
    cols.append(coded_text(*breakeven_rent_why(rent, breakeven)))
    names.append(BREAKEVEN_WHY)
    if dscr_breakeven:
        rent_key, why_key = scenario.EXTRA_OUTPUTS
        cols += [np.asarray(results[rent_key], float), coded_text(*dscr_breakeven_why(results[why_key]))]
        names += list(DSCR_BREAKEVEN)
    return Table(names, cols)


def _bad_cell(err: InputRangeError, chunk: Chunk, inputs: dict[str, str]) -> str:
    """The model's error on a chunk's scenario (a rule between inputs: a debt tenor within the
    life, a whole number of periods...) as the pre-pass says a bad cell: the row and column as a
    spreadsheet shows them, then the argument, the value and the valid range."""
    if err.index is not None:
        row = int(chunk.rows[err.index[0]])
    elif chunk.table.num_rows == 1:
        row = int(chunk.rows[0])
    else:  # one value every scenario shares: no row of its own
        raise BatchError(str(err)) from None
    arg = err.arg.split(" (element", 1)[0]
    given = inputs.get(arg)
    where = cell(row, None if given is None else chunk.table.position(given), given or arg)
    return f"{where}: {InputRangeError(arg, err.value, err.valid)}"


# -- writing -------------------------------------------------------------------------------------


class _Writer:
    def __init__(self, path: Path, fmt: str):
        self.path, self.fmt, self.rows = path, fmt, 0
        self._w = None
        self._wb = None

    def write(self, table: Table) -> None:
        if self.fmt == "parquet":
            import pyarrow as pa
            import pyarrow.parquet as pq

            at = to_arrow(table)
            if self._w is None:
                text = [f.name for f in at.schema if pa.types.is_string(f.type)]
                self._w = pq.ParquetWriter(
                    self.path, at.schema, compression="snappy", use_dictionary=text
                )  # numbers: plain, faster
            self._w.write_table(at)
        elif self.fmt == "csv":
            if self._w is None:
                self._w = CsvWriter(self.path, table.names)
            self._w.write(table)
        else:
            self._write_xlsx(table)
        self.rows += table.num_rows

    def _write_xlsx(self, table: Table) -> None:
        from gputco.workbook.xlsx.stream import XlsxStream

        if self.rows + table.num_rows > XLSX_MAX_ROWS:
            raise BatchError(
                f"an .xlsx sheet holds at most {XLSX_MAX_ROWS:,} scenarios; write Parquet or CSV instead"
            )
        if self._wb is None:
            self._wb = XlsxStream(self.path)
            self._ws = self._wb.sheet("results", header=table.names)
        for start in range(0, table.num_rows, 50_000):
            part = table.slice(start, start + 50_000)
            self._ws.write_columns(part.columns)

    def close(self) -> None:
        if self._w is not None:
            self._w.close()
        if self._wb is not None:
            self._wb.close()

    def abort(self) -> None:
        """Close after a failure, quietly: a second error must not hide the first one."""
        with contextlib.suppress(Exception):
            if self._w is not None:
                self._w.close()
        with contextlib.suppress(Exception):
            if self._wb is not None:
                self._wb.abort()


# -- the job -------------------------------------------------------------------------------------


def run_batch(
    src,
    dst,
    *,
    in_format=None,
    out_format=None,
    chunk_rows=DEFAULT_CHUNK_ROWS,
    force=False,
    progress=None,
    sep=None,
    decimal=None,
    limits: Limits = DEFAULT_LIMITS,
    dscr_breakeven: bool = False,
) -> BatchReport:
    """Run every scenario of ``src`` and write inputs + results to ``dst`` (atomically), with
    ``dscr_breakeven`` also the DSCR break-even rent and its reason (:data:`DSCR_BREAKEVEN`).

    Every chunk is checked before it runs; when any cell of the file is bad, the whole file is
    still read (so every bad cell is reported, in row order) and nothing is written.
    ``sep``/``decimal`` fix the CSV separator and decimal mark (default: detected).
    ``progress`` is called with the rows done so far after each chunk (None: no progress).
    ``limits``: the budgets an .xlsx input is read within (docs/safety.md).
    """
    src, dst = check_input(src), Path(dst)
    fin, fout = file_format(src, in_format), file_format(dst, out_format)
    if fin == "parquet":
        need_arrow(src, "reading")
    if fout == "parquet":
        need_arrow(dst, "writing")
    t0 = time.perf_counter()
    chunks = 0
    csv_dialect = dialect.sniff(src, sep, decimal) if fin == "csv" else None
    dec = csv_dialect.decimal if csv_dialect else "."
    found = csv_dialect.describe() if csv_dialect else ""
    problems = Problems()
    plan = None
    done = 0
    with atomic_output(dst, force=force) as tmp:
        writer = _Writer(tmp, fout)
        try:
            for chunk in _guarded(read_chunks(src, fin, chunk_rows, csv_dialect, limits), src, fin, found):
                check_time(f"after {done:,} scenarios")  # --timeout, between chunks
                if plan is None:
                    plan = plan_columns(chunk.table.column_names, found)
                checked = check_chunk(chunk.table, chunk.rows, plan[0], problems, dec)
                problems.flush()
                done += chunk.table.num_rows
                chunks += 1
                if not problems.cells:
                    writer.write(evaluate_chunk(chunk, *plan, checked, dscr_breakeven))
                if progress:
                    progress(done)
            if problems.cells:
                raise BadRowsError(problems.message(str(src)), problems)
        except BaseException:
            writer.abort()  # the first error is the one to report; the temporary file goes
            raise
        writer.close()
        if writer.rows == 0:
            raise BatchError(f"{src}: no scenarios (no data rows)")
    return BatchReport(writer.rows, time.perf_counter() - t0, chunks)


class BadRowsError(BatchError):
    """Bad cells in the input: the message lists them, one line each (the first 20)."""

    listing = True  # the command line prints the lines as they are

    def __init__(self, message: str, problems: Problems) -> None:
        super().__init__(message)
        self.problems = problems


class Progress:
    """A one-line progress report on stderr, at most twice a second (only on a terminal)."""

    def __init__(self, total: int | None = None, stream=None, force: bool = False):
        self.total, self.stream = total, sys.stderr if stream is None else stream
        self.enabled = force or self.stream.isatty()
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
