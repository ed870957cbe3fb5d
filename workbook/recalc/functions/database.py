"""Excel's conditional aggregates (COUNTIF, SUMIFS...) and Database functions (DSUM...), which share one criteria matcher.

Conditional aggregates: COUNTIF(S), SUMIF(S), AVERAGEIF(S), MAXIFS, MINIFS, with criteria.

A criterion is a number (cells equal to it), a text with an optional leading operator (``">5"``,
``"<>done"``, ``"=abc"``), wildcards ``*`` ``?`` (``~`` escapes) for text equality (``"*"``
matches text cells only, as Microsoft documents), ``""`` for blank cells, a boolean (``TRUE`` or the
text ``"TRUE"``), or an error (an error cell, or the text ``"#N/A"``: cells holding that error; with
``"<>"`` every other cell). A text criterion that reads as a number (``"3"``, ``"=3"``) matches the
number and the text "3". Texts compare case-insensitively. Ranges are usually fixed while the
criteria vary per row (``SUMIF($A:$A, A2, $B:$B)``): each distinct criterion is matched against
the range once and the rows share the result.

Database functions: DSUM, DCOUNT, DCOUNTA, DAVERAGE, DMAX, DMIN, DPRODUCT, DGET, DSTDEV,
DSTDEVP, DVAR, DVARP (Microsoft's function reference).

``Dfunction(database, field, criteria)``: ``database`` is a range whose first row holds the
column labels and whose other rows are the records; ``field`` names the column, by its label
(case-insensitive) or by its position (1 is the first column); ``criteria`` is a range whose first
row holds labels of the database and whose rows below hold conditions. A record is selected when
it meets every condition of one criteria row (conditions in one row are ANDed, rows are ORed; a
blank condition cell sets no condition, so an empty row selects every record). A condition is a
COUNTIF criterion (above: ``">10"``, ``"<>x"``, wildcards, numbers), except that a
text without an operator selects the texts beginning with it ("Sm" selects "Smith"; ``="=Sm"``
selects "Sm" alone), as Microsoft documents for criteria ranges.

The function then takes the field's values of the selected records: DSUM, DAVERAGE, DMAX, DMIN,
DPRODUCT, DSTDEV(P), DVAR(P) and DCOUNT their numbers (DCOUNT without a field counts the
records), DCOUNTA the non-blank values (every selected record without a field); DGET the one
selected value (#VALUE! when no record is selected, #NUM! when several are). DAVERAGE of no number
is #DIV/0!, and so are DSTDEV/DVAR of fewer than two and DSTDEVP/DVARP of none; DMAX, DMIN and
DPRODUCT of none are 0. A field that names no column, or a position outside the database, is
#VALUE!; an error value among the numbers taken is the result. A database or criteria that is a
single value, not a range (``DCOUNT("Y",1,1)``), is #VALUE!. A criteria label that is not a
database label (Excel's computed criteria, a formula evaluated for every record) is not modelled:
the cell is reported as unsupported, never guessed.
"""

from __future__ import annotations

import math

import numpy as np

from gputco.workbook.recalc.base import vec
from gputco.workbook.recalc.base.errors import UnsupportedValue
from gputco.workbook.recalc.base.rangeval import dims, materialize
from gputco.workbook.recalc.base.values import (
    DIV0,
    ERRORS,
    NUM,
    VALUE,
    XlError,
    approx_equal,
    parse_number,
    text_order,
)

from ._args import Spec, is_rangelike, wildcard

# --- conditional -----------------------------------------------------------------------------------------

_OPS = ("<=", ">=", "<>", "<", ">", "=")


def _criterion(c):
    """(operator, operand, text) of a criterion value.

    ``text`` is the operand as typed when a text criterion reads as a number or a boolean
    (``"3"``, ``"=TRUE"``): with ``=`` and ``<>`` it also matches text cells spelling it.
    """
    if isinstance(c, str):
        op = next((o for o in _OPS if c.startswith(o)), "")
        rest = c[len(op) :]
        op = op or "="
        if rest.upper() in ERRORS:
            return (op, ERRORS[rest.upper()], None)  # "#N/A": matches error cells of that code
        if rest.upper() in ("TRUE", "FALSE"):  # "<=TRUE": logical cells only, FALSE < TRUE
            return (op, rest.upper() == "TRUE", rest.lower() if op in ("=", "<>") else None)
        num = parse_number(rest) if rest.strip() else None
        return (op, rest, None) if num is None else (op, num, rest.lower())
    if c is None:
        return ("=", 0.0, None)  # an empty criterion cell means 0 (Excel)
    return ("=", c, None)  # a number, boolean or error value: cells equal to it


def _mask(values: np.ndarray, crit) -> np.ndarray:
    """Which cells of a flat array meet one criterion."""
    op, x, text = _criterion(crit)
    if isinstance(x, float) and not isinstance(x, bool) and values.dtype == vec.FLOAT:
        with np.errstate(invalid="ignore"):
            eq = (values == x) | (np.abs(values - x) < np.maximum(abs(x), np.abs(values)) * 2**-48)
        return {
            "=": eq,
            "<>": ~eq,
            "<": (values < x) & ~eq,
            ">": (values > x) & ~eq,
            "<=": (values < x) | eq,
            ">=": (values > x) | eq,
        }[op]
    test = _element_test(op, x)
    if text is not None and op in ("=", "<>"):
        plain = test

        def test(v):  # "3" also matches the text "3" (a number stored as text)
            if isinstance(v, str):
                return (v.lower() == text) == (op == "=")
            return plain(v)

    return np.array([test(v) for v in values.tolist()], dtype=bool)


def _element_test(op, x):
    if isinstance(x, XlError):
        return {"=": lambda v: v is x, "<>": lambda v: v is not x}.get(op, lambda v: False)
    if isinstance(x, str):
        if x == "":
            blank = {"=": lambda v: v is None or v == "", "<>": lambda v: v is not None and v != ""}
            return blank.get(op, lambda v: False)
        rx = wildcard(x) if op in ("=", "<>") else None
        low, key = x.lower(), text_order(x)  # equality without case; order as Excel's

        def text_test(v):
            if not isinstance(v, str):
                return op == "<>"
            hit = rx.fullmatch(v) is not None if rx else v.lower() == low
            if op in ("=", "<>"):
                return hit if op == "=" else not hit
            s = text_order(v)
            return {"<": s < key, ">": s > key, "<=": s <= key, ">=": s >= key}[op]

        return text_test
    if isinstance(x, bool):
        if op in ("=", "<>"):
            return lambda v: (isinstance(v, bool) and v == x) == (op != "<>")
        # an order with a logical operand compares logical cells alone (Excel-saved: MATH & TRIG!Y73
        # =SUMIF(I73:J73,"<=TRUE",F73:G73) over "ciao", TRUE is -1, the TRUE cell's value alone)
        order = {"<": bool.__lt__, ">": bool.__gt__, "<=": bool.__le__, ">=": bool.__ge__}[op]
        return lambda v: isinstance(v, bool) and order(v, x)

    def num_test(v):
        if isinstance(v, bool) or not isinstance(v, float):
            return op == "<>"
        eq = approx_equal(v, x)
        return {
            "=": eq,
            "<>": not eq,
            "<": v < x and not eq,
            ">": v > x and not eq,
            "<=": v < x or eq,
            ">=": v > x or eq,
        }[op]

    return num_test


def _masks(pairs, m_rows: int):
    """Per formula row, the AND of the criteria masks over the (fixed or moving) ranges."""
    out = None
    for rng, crit in pairs:
        arr = materialize(rng)
        flat = arr.reshape(arr.shape[0], -1)
        crits = crit.reshape(-1).tolist()
        m = max(flat.shape[0], len(crits), m_rows)
        cache: dict = {}
        rows = []
        for i in range(m):
            c = crits[min(i, len(crits) - 1)]
            block = min(i, flat.shape[0] - 1)
            key = (block, type(c), c)
            if key not in cache:
                cache[key] = _mask(flat[block], c)
            rows.append(cache[key])
        out = (
            rows
            if out is None
            else [
                a if isinstance(a, XlError) else b if isinstance(b, XlError) else _and(a, b)
                for a, b in zip(_spread(out, m), _spread(rows, m), strict=True)
            ]
        )
    return out


def _and(a, b):
    if a.shape != b.shape:
        raise ValueError("criteria ranges of different sizes")
    return a & b


def _spread(rows, m):
    return rows if len(rows) == m else [rows[0]] * m


def _reduce(masks, values_rng, how: str):
    if values_rng is None:
        vals = None
    else:
        arr = materialize(values_rng)
        vals = arr.reshape(arr.shape[0], -1)
    out = []
    done: dict[tuple[int, int], object] = {}  # rows sharing a criterion share the answer
    for i, mask in enumerate(masks):
        if isinstance(mask, XlError):
            out.append(mask)
            continue
        block = 0 if vals is None else min(i, vals.shape[0] - 1)
        hit = done.get((id(mask), block))
        if hit is not None:
            out.append(hit)
            continue
        done[(id(mask), block)] = _one_reduce(mask, vals, block, how)
        out.append(done[(id(mask), block)])
    return vec.from_list(out, (len(out), 1, 1))


def _one_reduce(mask, vals, block: int, how: str):
    """COUNT/SUM/AVERAGE of the cells a mask selects (one criterion, one block of values)."""
    if how == "count":
        return float(mask.sum())
    row = vals[block]
    if row.shape != mask.shape:
        mask = _resize(mask, row.shape)
    picked = row[mask]
    if picked.dtype != vec.FLOAT:
        err = next((v for v in picked.tolist() if isinstance(v, XlError)), None)
        if err is not None:
            return err
        picked = np.array(
            [v for v in picked.tolist() if isinstance(v, float) and not isinstance(v, bool)], dtype=float
        )
    if how == "sum":
        return float(picked.sum())
    if how in ("max", "min"):
        return float(picked.max() if how == "max" else picked.min()) if picked.size else 0.0
    return float(picked.mean()) if picked.size else DIV0


def _resize(mask, shape):
    m = np.zeros(shape, dtype=bool)
    k = min(len(mask), len(m))
    m[:k] = mask[:k]
    return m


def _lifted(crits: list[np.ndarray], one):
    """``one(crits)`` with each criterion one value per formula row, or, where a criterion is
    an array (``COUNTIF(A:A, {"a","b"})``), the array of the answers for each of its elements
    (Excel lifts the function over the array: ``SUM(COUNTIF(A:A, {"a","b"}))`` adds them)."""
    h = max(c.shape[1] for c in crits)
    w = max(c.shape[2] for c in crits)
    if h == 1 and w == 1:
        return one(crits)
    cols = []
    for j in range(h):
        for k in range(w):
            cols.append(one([c[:, min(j, c.shape[1] - 1) : min(j, c.shape[1] - 1) + 1,
                               min(k, c.shape[2] - 1) : min(k, c.shape[2] - 1) + 1] for c in crits]))  # fmt: skip
    m = max(c.shape[0] for c in cols)
    out = np.empty((m, h, w), dtype=object)
    for i, c in enumerate(cols):
        out[:, i // w, i % w] = np.broadcast_to(c[:, 0, 0], (m,))
    return out


def _sumif(how):
    def impl(rng, crit, values=None):
        def one(crits):
            masks = _masks([(rng, crits[0])], crits[0].shape[0])
            return _reduce(masks, rng if values is None else values, how)

        return _lifted([crit], one)

    return impl


def _ifs(how):
    def impl(*args):
        first, rest = (None, args) if how == "count" else (args[0], args[1:])
        if len(rest) % 2 or not rest:
            return vec.const(VALUE)
        ranges, crits = list(rest[0::2]), list(rest[1::2])
        size = dims(ranges[0])
        if any(dims(r) != size for r in ranges) or (first is not None and dims(first) != size):
            return vec.const(VALUE)

        def one(cs):
            m = max(c.shape[0] for c in cs)
            return _reduce(_masks(list(zip(ranges, cs, strict=True)), m), first, how)

        return _lifted(crits, one)

    return impl


_CONDITIONAL_FUNCTIONS = {
    "COUNTIF": Spec(_sumif("count"), 2, 2, "rv"),
    "SUMIF": Spec(_sumif("sum"), 2, 3, "rvr"),
    "AVERAGEIF": Spec(_sumif("mean"), 2, 3, "rvr"),
    "COUNTIFS": Spec(_ifs("count"), 2, 254, "rv" * 127),
    "SUMIFS": Spec(_ifs("sum"), 3, 255, "r" + "rv" * 127),
    "AVERAGEIFS": Spec(_ifs("mean"), 3, 255, "r" + "rv" * 127),
    "MAXIFS": Spec(_ifs("max"), 3, 255, "r" + "rv" * 127),
    "MINIFS": Spec(_ifs("min"), 3, 255, "r" + "rv" * 127),
}


# --- database --------------------------------------------------------------------------------------------

criterion_mask = _mask


def _label(v) -> str | None:
    return v.strip().upper() if isinstance(v, str) else None if v is None else str(v).upper()


def _column(headers: list, field) -> int | XlError | None:
    """The field's column (0-based); None when the field is omitted."""
    if field is None:
        return None
    if isinstance(field, XlError):
        return field
    if isinstance(field, bool):
        return VALUE
    if isinstance(field, float):
        k = math.trunc(field)
        return k - 1 if 1 <= k <= len(headers) else VALUE
    want = _label(field)
    labels = [_label(h) for h in headers]
    return labels.index(want) if want in labels else VALUE


def _condition(crit):
    """A criteria cell as a COUNTIF criterion: a bare text selects what begins with it."""
    if isinstance(crit, str) and crit and not crit.startswith(("<", ">", "=")):
        return crit + "*"
    return crit


def _selected(db: np.ndarray, cr: np.ndarray) -> np.ndarray:
    """Which records (rows 2.. of ``db``) the criteria range selects."""
    headers = [_label(h) for h in db[0].tolist()]
    records = db[1:]
    chosen = np.zeros(records.shape[0], dtype=bool)
    labels = [_label(h) for h in cr[0].tolist()]
    rows = cr[1:]
    if rows.shape[0] == 0:
        return ~chosen  # only labels: no condition
    for row in rows:
        keep = np.ones(records.shape[0], dtype=bool)
        for label, crit in zip(labels, row.tolist(), strict=True):
            if crit is None or (isinstance(crit, str) and crit == ""):
                continue
            if label not in headers:
                raise UnsupportedValue("database functions (computed criteria)")
            col = records[:, headers.index(label)]
            keep &= criterion_mask(np.asarray(col.tolist(), dtype=object), _condition(crit))
        chosen |= keep
    return chosen


def _numbers(values: list) -> tuple[list[float], XlError | None]:
    nums = [v for v in values if isinstance(v, float) and not isinstance(v, bool)]
    err = next((v for v in values if isinstance(v, XlError)), None)
    return nums, err


def _stat(sample: bool, root: bool):
    def f(nums: list[float]):
        n = len(nums)
        if n < (2 if sample else 1):
            return DIV0
        mean = math.fsum(nums) / n
        var = math.fsum((x - mean) ** 2 for x in nums) / (n - 1 if sample else n)
        return math.sqrt(var) if root else var

    return f


_NUMERIC = {
    "DSUM": math.fsum,
    "DAVERAGE": lambda xs: math.fsum(xs) / len(xs) if xs else DIV0,
    "DMAX": lambda xs: max(xs) if xs else 0.0,
    "DMIN": lambda xs: min(xs) if xs else 0.0,
    "DPRODUCT": lambda xs: math.prod(xs) if xs else 0.0,
    "DSTDEV": _stat(True, True),
    "DSTDEVP": _stat(False, True),
    "DVAR": _stat(True, False),
    "DVARP": _stat(False, False),
}


def _one(name: str, db: np.ndarray, field, cr: np.ndarray):
    if db.shape[0] < 1 or cr.shape[0] < 1:
        return VALUE
    col = _column(db[0].tolist(), field)
    if isinstance(col, XlError):
        return col
    chosen = _selected(db, cr)
    records = db[1:][chosen]
    if col is None:
        if name in ("DCOUNT", "DCOUNTA"):
            return float(records.shape[0])
        return VALUE
    values = records[:, col].tolist()
    if name == "DCOUNT":
        return float(len(_numbers(values)[0]))
    if name == "DCOUNTA":
        return float(sum(v is not None for v in values))
    if name == "DGET":
        if not values:
            return VALUE
        return NUM if len(values) > 1 else (0.0 if values[0] is None else values[0])
    nums, err = _numbers(values)
    return err if err is not None else _NUMERIC[name](nums)


def _dfunction(name: str):
    def impl(database, field, criteria):
        if not (is_rangelike(database) and is_rangelike(criteria)):
            return vec.const(VALUE)  # a single value is no "range of cells" (LibreOffice: #VALUE! too)
        db, cr = materialize(database), materialize(criteria)
        f = None if field is None else field.reshape(field.shape[0], -1)[:, 0]
        m = max(db.shape[0], cr.shape[0], 1 if f is None else f.shape[0])
        out = [
            _one(
                name,
                db[min(i, db.shape[0] - 1)],
                None if f is None else f[min(i, f.shape[0] - 1)],
                cr[min(i, cr.shape[0] - 1)],
            )
            for i in range(m)
        ]
        return vec.from_list([float(v) if type(v) is int else v for v in out], (m, 1, 1))

    return impl


_NAMES = (
    "DSUM",
    "DCOUNT",
    "DCOUNTA",
    "DAVERAGE",
    "DMAX",
    "DMIN",
    "DPRODUCT",
    "DGET",
    "DSTDEV",
    "DSTDEVP",
    "DVAR",
    "DVARP",
)

_DATABASE_FUNCTIONS = {name: Spec(_dfunction(name), 3, 3, "rvr") for name in _NAMES}


FUNCTIONS = {**_CONDITIONAL_FUNCTIONS, **_DATABASE_FUNCTIONS}
