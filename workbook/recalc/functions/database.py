"""Database functions: DSUM, DCOUNT, DCOUNTA, DAVERAGE, DMAX, DMIN, DPRODUCT, DGET, DSTDEV,
DSTDEVP, DVAR, DVARP (Microsoft's function reference).

``Dfunction(database, field, criteria)``: ``database`` is a range whose first row holds the
column labels and whose other rows are the records; ``field`` names the column, by its label
(case-insensitive) or by its position (1 is the first column); ``criteria`` is a range whose first
row holds labels of the database and whose rows below hold conditions. A record is selected when
it meets every condition of one criteria row (conditions in one row are ANDed, rows are ORed; a
blank condition cell sets no condition, so an empty row selects every record). A condition is a
COUNTIF criterion (:mod:`.conditional`: ``">10"``, ``"<>x"``, wildcards, numbers), except that a
text without an operator selects the texts beginning with it ("Sm" selects "Smith"; ``="=Sm"``
selects "Sm" alone), as Microsoft documents for criteria ranges.

The function then takes the field's values of the selected records: DSUM, DAVERAGE, DMAX, DMIN,
DPRODUCT, DSTDEV(P), DVAR(P) and DCOUNT their numbers (DCOUNT without a field counts the
records), DCOUNTA the non-blank values (every selected record without a field); DGET the one
selected value (#VALUE! when no record is selected, #NUM! when several are). DAVERAGE of no number
is #DIV/0!, and so are DSTDEV/DVAR of fewer than two and DSTDEVP/DVARP of none; DMAX, DMIN and
DPRODUCT of none are 0. A field that names no column, or a position outside the database, is
#VALUE!; an error value among the numbers taken is the result. A criteria label that is not a
database label (Excel's computed criteria, a formula evaluated for every record) is not modelled:
the cell is reported as unsupported, never guessed.
"""

from __future__ import annotations

import math

import numpy as np

from gputco.workbook.recalc.run import vec
from gputco.workbook.recalc.run.errors import UnsupportedValue
from gputco.workbook.recalc.run.rangeval import materialize
from gputco.workbook.recalc.run.values import DIV0, NUM, VALUE, XlError

from ._args import Spec
from .conditional import _mask as criterion_mask


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

FUNCTIONS = {name: Spec(_dfunction(name), 3, 3, "rvr") for name in _NAMES}
