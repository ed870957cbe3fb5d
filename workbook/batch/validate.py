"""The batch pre-pass: every bad cell of a chunk found at once, vectorised, before the model runs.

Each check is a few numpy passes over a column (Python work per distinct text, or per cell only
for a column of text numbers that are not all clean); a bad cell is recorded with the row as a
spreadsheet shows it (the header is row 1), the column as the file names it and the value. The
model (:mod:`gputco.udfs.scenario`) then runs only on chunks without bad cells, so its own one-error-
at-a-time checks are a backstop, not the report. The valid ranges come from the model itself
(:func:`input_ranges`), never restated here.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

import numpy as np

from gputco.udfs import presets, ranges, scenario
from gputco.udfs.errors import InputRangeError, InputTypeError, MissingValueError, UnknownNameError
from gputco.workbook.batch.table import Table, coded_text, is_arrow, is_text
from gputco.workbook.xlsx.sheetrows import column_letter

#: how many bad cells a failed run lists (the rest are counted)
SHOWN = 20
_NUMBER = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?")
#: characters a clean number text may hold (``float`` reads more: nan, inf, 1_000, other digits)
_ODD = re.compile(r"[^0-9eE+\-. \t\r\n]")


@dataclass(frozen=True)
class ColumnRange:
    """A closed, open or half-open interval, as the model states it, e.g. ``(0, 1]``."""

    text: str
    lo: float
    hi: float
    lo_open: bool
    hi_open: bool
    #: what a bad value must be, as the model says it: "in (0, 1]", or the range's rule
    must: str = ""

    def bad(self, x: np.ndarray) -> np.ndarray:
        """True where a value (not NaN) lies outside the interval or is not finite."""
        with np.errstate(invalid="ignore"):
            ok = (x > self.lo) if self.lo_open else (x >= self.lo)
            ok &= (x < self.hi) if self.hi_open else (x <= self.hi)
            ok &= np.isfinite(x)
        return ~ok & ~np.isnan(x)


@functools.cache
def input_ranges() -> dict[str, ColumnRange]:
    """The valid range of every numeric scenario input, from the one table (:mod:`gputco.udfs.ranges`).

    >>> str(input_ranges()["mfu"].text), input_ranges()["pue"].hi
    ('(0, 1]', 5.0)
    """
    out = {}
    for inp in scenario.INPUTS:
        if inp.kind == "number" and inp.name in ranges.RANGES:
            r = ranges.of(inp.name)
            must = r.rule or f"in {r.interval}"
            out[inp.name] = ColumnRange(
                r.interval, r.lo, r.hi, r.lo_open, r.hi_open or r.hi == ranges.INF, must
            )
    return out


@dataclass
class Problems:
    """The bad cells found so far, in row order: the first :data:`SHOWN` as lines, and a count."""

    lines: list[str] = field(default_factory=list)
    cells: int = 0
    _pending: list = field(default_factory=list)

    def add(self, rows: np.ndarray, colpos: int, column: str, values, say) -> None:
        """Bad cells of one check: spreadsheet rows, their values, ``say(value)`` the message."""
        if len(rows):
            self._pending.append((np.asarray(rows), colpos, column, values, say))

    def flush(self) -> None:
        """Order the chunk's bad cells by row, then column, and keep the first lines."""
        if not self._pending:
            return
        rows = np.concatenate([p[0] for p in self._pending])
        check = np.concatenate([np.full(len(p[0]), i) for i, p in enumerate(self._pending)])
        index = np.concatenate([np.arange(len(p[0])) for p in self._pending])
        pos = np.array([p[1] for p in self._pending])[check]
        order = np.lexsort((pos, rows))
        self.cells += len(rows)
        for k in order[: max(SHOWN - len(self.lines), 0)]:
            _, _, column, values, say = self._pending[check[k]]
            self.lines.append(f"{cell(rows[k], pos[k], column)}: {say(values[index[k]])}")
        self._pending.clear()

    def message(self, where: str) -> str:
        more = self.cells - len(self.lines)
        tail = f"\n... and {more:,} more bad cells" if more else ""
        return (
            f"{where}: {self.cells:,} bad cell{'s' if self.cells > 1 else ''}; nothing was "
            "written\n" + "\n".join(self.lines) + tail
        )


def cell(row: int, colpos: int | None, column: str) -> str:
    """A cell as a spreadsheet shows it: the row (the header is row 1), the column's letter and
    its name in the file (``colpos`` 0-based; None: an input the file has no column for).

    >>> cell(7, 3, "debt_years"), cell(2, None, "life_years")
    ('row 7, column D (debt_years)', 'row 2 (life_years, not a column of the file: its default)')
    """
    if colpos is None:
        return f"row {row} ({column}, not a column of the file: its default)"
    return f"row {row}, column {column_letter(colpos + 1)} ({column})"


def _show(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.15g}"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


# -- numbers -------------------------------------------------------------------------------------


def parse_numbers(col: np.ndarray, decimal: str = ".") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(float values with NaN where empty or bad, empty mask, not-a-number mask) of a column.

    Text is trimmed; an empty text or None is empty; ``decimal`` is the decimal mark of text.

    >>> v, empty, bad = parse_numbers(np.array(["0.5", "", None, "twelve cents", " 1e3 "], object))
    >>> v.tolist()[0], v.tolist()[4], empty.tolist(), bad.tolist()
    (0.5, 1000.0, [False, True, True, False, False], [False, False, False, True, False])
    """
    n = len(col)
    if is_arrow(col):
        return _parse_arrow(col, decimal)
    if col.dtype.kind in "fiu":
        values = col.astype(float)
        empty = np.isnan(values)  # an empty cell, or NaN (an empty cell once it went through pandas)
        return values, empty, np.zeros(n, bool)
    if col.dtype.kind == "b":  # TRUE/FALSE is no number
        return np.full(n, np.nan), np.zeros(n, bool), np.ones(n, bool)
    if decimal == ".":  # the usual case, clean numbers: numpy reads them all at once
        try:
            if not _ODD.search("".join(col.tolist())):
                values = np.array(col, dtype=float)
                return values, np.zeros(n, bool), np.zeros(n, bool)
        except (TypeError, ValueError):  # an empty cell, a value that is not text, a bad number
            pass
    texts = ["" if v is None else str(v).strip() for v in col.tolist()]
    if decimal != ".":
        texts = [t.replace(decimal, ".") for t in texts]
    empty = np.fromiter((not t for t in texts), bool, n)
    good = np.fromiter((_NUMBER.fullmatch(t) is not None for t in texts), bool, n)
    values = np.full(n, np.nan)
    if good.any():
        values[good] = np.array([t for t, g in zip(texts, good.tolist(), strict=True) if g], dtype=float)
    return values, empty, ~empty & ~good


def _parse_arrow(col, decimal: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`parse_numbers` of a pyarrow string array, in Arrow's kernels (the same rules)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    text = pc.utf8_trim_whitespace(col)
    empty = pc.fill_null(pc.equal(text, ""), True)
    text = pc.if_else(empty, None, text)
    if decimal != ".":
        text = pc.replace_substring(text, decimal, ".")
    good = pc.fill_null(pc.match_substring_regex(text, f"^{_NUMBER.pattern}$"), False)
    values = pc.cast(pc.if_else(good, text, None), pa.float64()).to_numpy(zero_copy_only=False)
    empty_np = empty.to_numpy(zero_copy_only=False)
    bad = ~empty_np & ~good.to_numpy(zero_copy_only=False)
    return np.asarray(values, float), empty_np, bad


# -- one chunk -----------------------------------------------------------------------------------


@dataclass
class Checked:
    """A chunk's inputs as the model takes them, and its given text values (for the output)."""

    inputs: dict[str, object]
    empty: dict[str, np.ndarray]  # numeric input -> True where the cell was empty
    used_text: dict[str, tuple[np.ndarray, list[str]]]  # text input -> (codes, preset keys)
    #: text input -> the cells as given (None where blank), for the output's echo
    given_text: dict[str, object] = field(default_factory=dict)


def check_chunk(
    table: Table, rows: np.ndarray, columns: dict[str, str], problems: Problems, decimal: str = "."
) -> Checked:
    """Check every input cell of one chunk, recording bad cells in ``problems``.

    ``columns`` maps each input present to its column name in the file; ``rows`` holds the
    spreadsheet row of each table row.
    """
    pos = {name: table.position(col) for name, col in columns.items()}
    ranges = input_ranges()
    inputs: dict[str, object] = {}
    empties: dict[str, np.ndarray] = {}
    refused = np.zeros(table.num_rows, bool)  # rows with an unknown preset name
    used_text: dict[str, tuple[np.ndarray, list[str]]] = {}
    given: dict[str, np.ndarray] = {}
    for inp in scenario.INPUTS:
        name = inp.name
        if name not in columns:
            continue
        col, label = table.column(columns[name]), columns[name]
        if inp.kind == "text":
            codes, raw = _encode(col)
            texts = ["" if v is None else str(v).strip() for v in raw]
            given[name] = coded_text(
                codes, [None if not t else str(v) for v, t in zip(raw, texts, strict=True)]
            )
            keys = []
            for code, value in enumerate(t or str(inp.default) for t in texts):
                try:
                    keys.append(scenario.text_key(name, value))
                except (UnknownNameError, InputRangeError, InputTypeError, MissingValueError) as err:
                    keys.append(str(inp.default))  # a curve's bad factor too (udfs/curves.py)
                    hit = codes == code
                    refused |= hit
                    problems.add(rows[hit], pos[name], label, [str(err)] * int(hit.sum()), lambda msg: msg)
            used_text[name] = (codes, keys)
            inputs[name] = scenario.Coded(codes, keys)
            continue
        values, empty, bad = parse_numbers(col, decimal)
        hint = "" if decimal != "." else " (a decimal comma? give --decimal ,)"
        raw = _take(col, bad)
        problems.add(
            rows[bad],
            pos[name],
            label,
            raw,
            lambda v, h=hint: (
                f"{_show(v)} is not a number"
                + (h if isinstance(v, str) and re.fullmatch(r"\s*-?\d+,\d+\s*", v) else "")
            ),
        )
        rng = ranges.get(name)
        if inp.default is None:
            need = f"{name} is empty; every scenario needs one" + (f" in {rng.text}" if rng else "")
            problems.add(rows[empty], pos[name], label, values[empty], lambda _v, m=need: m)
        if rng is not None:
            out = rng.bad(values)
            problems.add(
                rows[out],
                pos[name],
                label,
                values[out],
                lambda v, nm=name, r=rng: f"{nm} must be {r.must}, got {_show(v)}",
            )
        inputs[name] = values
        empties[name] = empty
    _check_peaks(rows, columns, pos, inputs, empties, used_text, problems, refused)
    return Checked(inputs, empties, used_text, given)


def _take(col, mask: np.ndarray) -> list:
    if is_arrow(col):
        import pyarrow as pa

        return col.filter(pa.array(mask)).to_pylist() if mask.any() else []
    return col[mask].tolist()


def _encode(col) -> tuple[np.ndarray, list]:
    """(code of each cell, the distinct values in order of first appearance) of a column."""
    if is_arrow(col):
        import pyarrow.compute as pc

        enc = pc.fill_null(col, "").dictionary_encode()
        return enc.indices.to_numpy(zero_copy_only=False).astype(np.intp), enc.dictionary.to_pylist()
    if not is_text(col):
        col = col.astype(object)
    index: dict = {}
    codes = np.fromiter((index.setdefault(v, len(index)) for v in col.tolist()), np.intp, len(col))
    return codes, list(index)


def _check_peaks(rows, columns, pos, inputs, empties, used_text, problems, refused) -> None:
    """Rows whose system has no peak at their precision (FP4 on an H100) and no peak_tflops."""
    n = len(rows)
    default = {i.name: str(i.default) for i in scenario.INPUTS}
    s_codes, s_keys = used_text.get("system", (np.zeros(n, np.intp), [default["system"]]))
    p_codes, p_keys = used_text.get("precision", (np.zeros(n, np.intp), [default["precision"]]))
    table_ = np.array(
        [
            [np.nan if presets.system(s).get(f"peak_tflops_{p}") is None else 0.0 for p in p_keys]
            for s in s_keys
        ]
    )
    missing = np.isnan(table_[s_codes, p_codes]) & ~refused
    if "peak_tflops" in inputs:
        missing &= empties["peak_tflops"]
    if not missing.any():
        return
    where = "precision" if "precision" in columns else "system"
    label = columns.get(where, where)
    shown = [
        f"system {s_keys[s]} has no {p_keys[p]} peak; give peak_tflops or another precision"
        for s, p in zip(s_codes[missing], p_codes[missing], strict=True)
    ]
    problems.add(rows[missing], pos.get(where, 0), label, shown, lambda msg: msg)
