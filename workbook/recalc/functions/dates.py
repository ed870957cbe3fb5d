"""Date: DATE, YEAR, MONTH, DAY, EDATE, EOMONTH, on Excel's serial numbers (1900 date system).

A date is the number of days since 1899-12-30, except that Excel counts a 29 February 1900 that
never was (serial 60), so serials 1..59 (1900-01-01 .. 1900-02-28) are one less than the true
day count; this module reproduces that. TODAY and NOW are volatile and never evaluated.
"""

from __future__ import annotations

import numpy as np

from .. import vec
from ..values import NUM
from . import Spec
from ._args import scalar_nums

_BASE = np.datetime64("1899-12-30", "D")


def _to_serial(dt: np.ndarray) -> np.ndarray:
    serial = (dt - _BASE).astype(np.int64).astype(float)
    return np.where(serial < 61, serial - 1, serial)  # the fictitious 1900-02-29


def _parts(serial: np.ndarray):
    """(year, month, day) arrays of serials, Excel's 1900-02-29 and "1900-01-00" included."""
    s = np.trunc(serial)
    true = np.where(s < 61, s + 1, s).astype(np.int64)
    dt = _BASE + true.astype("timedelta64[D]")
    months = dt.astype("datetime64[M]")
    year = months.astype("datetime64[Y]").astype(np.int64) + 1970
    month = (months.astype(np.int64) % 12) + 1
    day = (dt - months.astype("datetime64[D]")).astype(np.int64) + 1
    fake = s == 60
    zero = s == 0
    year = np.where(fake | zero, 1900, year)
    month = np.where(fake, 2, np.where(zero, 1, month))
    day = np.where(fake, 29, np.where(zero, 0, day))
    return year, month, day


def _from_ymd(y, m, d) -> np.ndarray:
    months = (y - 1970) * 12 + (m - 1)
    first = months.astype(np.int64).astype("datetime64[M]").astype("datetime64[D]")
    return _to_serial(first + (d - 1).astype(np.int64).astype("timedelta64[D]"))


def _date(year, month, day):
    (y, m, d), e = scalar_nums(year, month, day)
    y, m, d = np.trunc(y), np.trunc(m), np.trunc(d)
    y = np.where(y < 1900, y + 1900, y)
    bad = (y < 1900) | (y > 9999)
    with np.errstate(all="ignore"):
        out = _from_ymd(np.where(bad, 2000, y), m, d)
    bad = bad | (out < 0) | (out > 2958465)
    return vec.finish(out, vec.add_error(e, np.broadcast_to(bad, out.shape), NUM))


def _part(which: int):
    def impl(serial):
        (s,), e = scalar_nums(serial)
        bad = ~((s >= 0) & (s <= 2958465.99999))  # NaN too
        parts = _parts(np.where(bad, 1.0, s))
        out = parts[which].astype(float)
        return vec.finish(out, vec.add_error(e, np.broadcast_to(bad, out.shape), NUM))
    return impl


def _shift(end_of_month: bool):
    def impl(start, months):
        (s, k), e = scalar_nums(start, months)
        k = np.trunc(k)
        # NaN too; and a shift of more than 10,000 years is out of Excel's range (#NUM!)
        bad = ~((s >= 0) & (s <= 2958465.99999) & (np.abs(k) <= 120_000))
        y, m, d = _parts(np.where(bad, 1.0, s))
        total = y * 12 + (m - 1) + np.where(bad, 0, k).astype(np.int64)
        ny, nm = total // 12, total % 12 + 1
        last = _from_ymd(ny + (nm == 12), nm % 12 + 1, np.ones_like(nm)) - _from_ymd(
            ny, nm, np.ones_like(nm))  # days in the target month
        day = last if end_of_month else np.minimum(d, last)
        out = _from_ymd(ny, nm, day)
        bad = bad | (out < 0) | (ny > 9999)
        return vec.finish(out, vec.add_error(e, np.broadcast_to(bad, out.shape), NUM))
    return impl


FUNCTIONS = {
    "DATE": Spec(_date, 3, 3),
    "YEAR": Spec(_part(0), 1, 1),
    "MONTH": Spec(_part(1), 1, 1),
    "DAY": Spec(_part(2), 1, 1),
    "EDATE": Spec(_shift(False), 2, 2),
    "EOMONTH": Spec(_shift(True), 2, 2),
}
