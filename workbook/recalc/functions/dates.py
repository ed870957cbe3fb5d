"""Date: DATE, YEAR, MONTH, DAY, EDATE, EOMONTH, on Excel's serial numbers.

In the 1900 date system (the default) a date is the number of days since 1899-12-30, except that
Excel counts a 29 February 1900 that never was (serial 60), so serials 1..59 (1900-01-01 ..
1900-02-28) are one less than the true day count and February 1900 has 29 days (DATE(1900,2,29)
is 60, EOMONTH of any day of it is 60); serial 0 is "1900-01-00" (DAY 0, MONTH 1). This module
reproduces that; LibreOffice does not (its serial 60 is 1900-02-28), so those probes follow
Microsoft's documentation. In a workbook saved with the 1904 date system (``date1904``, see
:data:`..values.DATE1904`) serial 0 is 1904-01-01 and there is no fictitious day. TODAY and NOW
are volatile and never evaluated.
"""

from __future__ import annotations

import numpy as np

from gputco.workbook.recalc.run import vec
from gputco.workbook.recalc.run.values import DATE1904, NUM, VALUE

from ._args import Spec, scalar_nums

_BASE = np.datetime64("1899-12-30", "D")
_BASE_1904 = np.datetime64("1904-01-01", "D")
MAX_SERIAL = 2958465  # 9999-12-31 in the 1900 system
MAX_SERIAL_1904 = 2957003  # 9999-12-31 in the 1904 system


def max_serial() -> int:
    return MAX_SERIAL_1904 if DATE1904.get() else MAX_SERIAL


def min_year() -> int:
    return 1904 if DATE1904.get() else 1900


def to_serial(dt: np.ndarray) -> np.ndarray:
    """Serials of true calendar days (datetime64[D]) in the workbook's date system."""
    if DATE1904.get():
        return (dt - _BASE_1904).astype(np.int64).astype(float)
    serial = (dt - _BASE).astype(np.int64).astype(float)
    return np.where(serial < 61, serial - 1, serial)  # the fictitious 1900-02-29


def to_days(serial: np.ndarray) -> np.ndarray:
    """True calendar days (datetime64[D]) of whole serials (serial 60 of 1900 reads as 03-01)."""
    s = np.trunc(serial).astype(np.int64)
    if DATE1904.get():
        return _BASE_1904 + s.astype("timedelta64[D]")
    return _BASE + np.where(s < 61, s + 1, s).astype("timedelta64[D]")


def parts(serial: np.ndarray):
    """(year, month, day) arrays of serials, Excel's 1900-02-29 and "1900-01-00" included."""
    s = np.trunc(serial)
    dt = to_days(s)
    months = dt.astype("datetime64[M]")
    year = months.astype("datetime64[Y]").astype(np.int64) + 1970
    month = (months.astype(np.int64) % 12) + 1
    day = (dt - months.astype("datetime64[D]")).astype(np.int64) + 1
    if DATE1904.get():
        return year, month, day
    fake = s == 60
    zero = s == 0
    year = np.where(fake | zero, 1900, year)
    month = np.where(fake, 2, np.where(zero, 1, month))
    day = np.where(fake, 29, np.where(zero, 0, day))
    return year, month, day


def from_ymd(y, m, d) -> np.ndarray:
    """Serial of year y, month m (any integer, rolled over), day d (any integer, counted on from
    the first of the month) in Excel's calendar (February 1900 has 29 days in the 1900 system)."""
    months = (y - 1970) * 12 + (m - 1)
    first = months.astype(np.int64).astype("datetime64[M]").astype("datetime64[D]")
    return to_serial(first) + (d - 1)


def _has_bool(*xs) -> np.ndarray | bool:
    """Excel's EDATE/EOMONTH refuse TRUE/FALSE arguments (#VALUE!), typed or from cells."""
    hit = False
    for x in xs:
        if x is None:
            continue
        if x.dtype == vec.BOOL:
            hit = hit | np.ones(x.shape, dtype=bool)
        elif x.dtype == vec.OBJ:
            hit = hit | np.array([isinstance(v, bool) for v in x.ravel().tolist()], dtype=bool).reshape(
                x.shape
            )
    return hit


def _date(year, month, day):
    (y, m, d), e = scalar_nums(year, month, day)
    y, m, d = np.trunc(y), np.trunc(m), np.trunc(d)
    y = np.where(y < 1900, y + 1900, y)
    bad = (y < min_year()) | (y > 9999) | ~np.isfinite(m) | ~np.isfinite(d)
    with np.errstate(all="ignore"):
        out = from_ymd(np.where(bad, 2000, y), np.where(bad, 1, m), np.where(bad, 1, d))
    bad = bad | (out < 0) | (out > max_serial())
    return vec.finish(out, vec.add_error(e, np.broadcast_to(bad, out.shape), NUM))


def _part(which: int):
    def impl(serial):
        (s,), e = scalar_nums(serial)
        bad = ~((s >= 0) & (s < max_serial() + 1))  # NaN too
        out = parts(np.where(bad, 1.0, s))[which].astype(float)
        return vec.finish(out, vec.add_error(e, np.broadcast_to(bad, out.shape), NUM))

    return impl


def _shift(end_of_month: bool):
    def impl(start, months):
        (s, k), e = scalar_nums(start, months)
        k = np.trunc(k)
        # NaN too; and a shift of more than 10,000 years is out of Excel's range (#NUM!)
        bad = ~((s >= 0) & (s < max_serial() + 1) & (np.abs(k) <= 120_000))
        y, m, d = parts(np.where(bad, 1.0, s))
        total = y * 12 + (m - 1) + np.where(bad, 0, k).astype(np.int64)
        ny, nm = total // 12, total % 12 + 1
        last = from_ymd(ny, nm + 1, np.ones_like(nm)) - from_ymd(ny, nm, np.ones_like(nm))
        day = last if end_of_month else np.minimum(d, last)
        out = from_ymd(ny, nm, day)
        bad = bad | (out < 0) | (ny > 9999)
        e = vec.add_error(e, np.broadcast_to(_has_bool(start, months), out.shape), VALUE)
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
