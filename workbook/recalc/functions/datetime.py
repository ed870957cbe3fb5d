"""Excel's Date and time functions.

Date: DATE, YEAR, MONTH, DAY, EDATE, EOMONTH, on Excel's serial numbers.

In the 1900 date system (the default) a date is the number of days since 1899-12-30, except that
Excel counts a 29 February 1900 that never was (serial 60), so serials 1..59 (1900-01-01 ..
1900-02-28) are one less than the true day count and February 1900 has 29 days (DATE(1900,2,29)
is 60, EOMONTH of any day of it is 60); serial 0 is "1900-01-00" (DAY 0, MONTH 1). This module
reproduces that; LibreOffice does not (its serial 60 is 1900-02-28), so those probes follow
Microsoft's documentation. In a workbook saved with the 1904 date system (``date1904``, see
:data:`..values.DATE1904`) serial 0 is 1904-01-01 and there is no fictitious day. TODAY and NOW
are volatile and never evaluated.

Date and time, the calendar side: TIME, WEEKDAY, DATEVALUE, TIMEVALUE, YEARFRAC, NETWORKDAYS,
WORKDAY (on the workbook's serials, see DATE above).

- TIME(h, m, s): the fraction of a day of h*3600 + m*60 + s seconds (each truncated), modulo one
  day; negative totals and arguments over 32,767 are #NUM!.
- WEEKDAY(serial, [type=1]): types 1 (Sunday 1), 2 (Monday 1), 3 (Monday 0), 11..17 (1 on Monday
  .. Sunday). In the 1900 system Excel's serial 1 is a Sunday (it counts 1900-02-29), so the day
  of the week is simply the serial modulo 7, as Excel computes it.
- DATEVALUE(text) / TIMEVALUE(text): dates as ISO (2024-01-31), US (1/31/2024), 31-Jan-2024,
  January 31, 2024 or 31 January 2024, optionally followed by a time; times as 18:45, 18:45:30,
  6:45 PM (hours past 23 wrap into the next day: TIMEVALUE gives the time of day). A text
  without a year is #VALUE! here (Excel would take the current year: a volatile answer this
  engine does not give). A number argument is #VALUE!, as in Excel.
- YEARFRAC(start, end, [basis=0]): a basis outside 0..4 is #NUM! before any error of the
  dates (Excel checks the basis first); 0 US 30/360 (Excel's day-31 and end-of-February rules, in
  the order D. A. Wheeler's "YEARFRAC" analysis and LibreOffice apply them), 1 actual/actual
  (Excel's: one year's length when the dates are at most a year apart, else the average length of
  the years spanned), 2 actual/360, 3 actual/365, 4 European 30/360.
- NETWORKDAYS(start, end, [holidays]) and WORKDAY(start, days, [holidays]): Monday to Friday,
  less the holiday serials (or date texts); WORKDAY from a weekend counts from the day before.
  NETWORKDAYS.INTL and WORKDAY.INTL take a weekend between them: a number (1 Saturday and
  Sunday ... 7 Friday and Saturday, 11 Sunday only ... 17 Saturday only; others #NUM!) or seven
  0/1 characters from Monday, 1 a day off (others #VALUE!); "1111111" counts 0 workdays, and is
  #VALUE! for WORKDAY.INTL (Microsoft's NETWORKDAYS.INTL and WORKDAY.INTL pages).
- HOUR, MINUTE, SECOND of the time of day (hours and minutes cut, seconds rounded, as
  LibreOffice does); DAYS(end, start);
  DATEDIF(start, end, "Y" | "M" | "D" | "MD" | "YM" | "YD"), #NUM! when start is after end.
- DAYS360(start, end, [method]): 30-day months; US (method FALSE or omitted) moves a start on a
  month's last day to the 30th, and an end on the 31st to the 1st of the next month when the
  start is before the 30th (else to the 30th); European (TRUE) moves every 31st to the 30th
  (Microsoft's DAYS360 page).
- WEEKNUM(serial, [return_type=1]): the week holding 1 January is week 1, weeks beginning on
  the day return_type names (1 or 17 Sunday, 2 or 11 Monday, 12 Tuesday ... 16 Saturday); 21
  ISO 8601's weeks, as ISOWEEKNUM(date) (Monday weeks, week 1 holding the year's first
  Thursday). Both count on Excel's serials and days of the week (its fictitious 1900-02-29
  included); a serial out of range or another return_type is #NUM!.
- NOW and TODAY only when the caller fixes the time (:func:`clock_functions`, ``--now``).
"""

from __future__ import annotations

import calendar as _cal
import datetime as _dt
import math

import numpy as np

from gputco.workbook.recalc.base import vec
from gputco.workbook.recalc.base.rangeval import materialize
from gputco.workbook.recalc.base.values import DATE1904, NUM, VALUE, XlError, parse_date, parse_time

from ._args import Spec, scalar_function, scalar_nums

# --- dates -----------------------------------------------------------------------------------------------

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


_DATES_FUNCTIONS = {
    "DATE": Spec(_date, 3, 3),
    "YEAR": Spec(_part(0), 1, 1),
    "MONTH": Spec(_part(1), 1, 1),
    "DAY": Spec(_part(2), 1, 1),
    "EDATE": Spec(_shift(False), 2, 2),
    "EOMONTH": Spec(_shift(True), 2, 2),
}


# --- calendar --------------------------------------------------------------------------------------------

_DAY = 86400.0


def _time(h, m, s):
    (h, m, s), e = scalar_nums(h, m, s)
    h, m, s = np.trunc(h), np.trunc(m), np.trunc(s)
    total = h * 3600 + m * 60 + s
    bad = (total < 0) | (h > 32767) | (m > 32767) | (s > 32767) | ~np.isfinite(total)
    out = np.mod(np.where(bad, 0.0, total), _DAY) / _DAY
    return vec.finish(out, vec.add_error(e, np.broadcast_to(bad, out.shape), NUM))


_WEEK_START = {1: 0, 2: 1, 3: 1, 11: 1, 12: 2, 13: 3, 14: 4, 15: 5, 16: 6, 17: 0}


def _weekday(serial, kind=None):
    (s, k), e = scalar_nums(serial, kind if kind is not None else vec.const(1.0))
    s, k = np.trunc(s), np.trunc(k)
    dow = np.mod(s + (5 if DATE1904.get() else -1), 7)  # 0 = Sunday
    start = np.vectorize(lambda x: _WEEK_START.get(int(x), -1) if np.isfinite(x) else -1, otypes=[float])(k)
    out = np.mod(dow - start, 7) + np.where(k == 3, 0, 1)
    bad = (start < 0) | ~(s >= 0) | (s > max_serial())
    return vec.finish(np.where(bad, 0.0, out), vec.add_error(e, np.broadcast_to(bad, out.shape), NUM))


def _date_serial(y: int, m: int, d: int) -> float | XlError:
    try:
        _dt.date(y, m, d)
    except ValueError:
        if not (y == 1900 and m == 2 and d == 29 and not DATE1904.get()):
            return VALUE
    s = float(from_ymd(np.array([y]), np.array([m]), np.array([d]))[0])
    return s if 0 <= s <= max_serial() else VALUE


def _text_only(one):
    """One element of a text argument: an error passes through, anything but text is #VALUE!."""

    def element(v):
        if isinstance(v, XlError):
            return v
        if not isinstance(v, str):
            return VALUE
        return one(v)

    return element


@_text_only
def _datevalue_one(v):
    p = parse_date(v)
    if p is None:
        return VALUE
    return _date_serial(p[0], p[1], p[2])


@_text_only
def _timevalue_one(v):
    t = parse_time(v)
    if t is not None:
        return t % 1.0  # "25:00" is 1:00 on the next day: TIMEVALUE gives the time of day
    p = parse_date(v)
    return VALUE if p is None else (p[3] or 0.0)


def _datevalue(x):
    return vec.elementwise(_datevalue_one, x)


def _timevalue(x):
    return vec.elementwise(_timevalue_one, x)


def _yearfrac(start, end, basis=None):
    (a, b, k), e = scalar_nums(start, end, basis if basis is not None else vec.const(0.0))
    a, b, k = np.trunc(a), np.trunc(b), np.trunc(k)
    shape = np.broadcast_shapes(a.shape, b.shape, k.shape)
    a, b, k = (np.broadcast_to(x, shape) for x in (a, b, k))
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    bad = ~((lo >= 0) & (hi <= max_serial()) & (k >= 0) & (k <= 4))
    lo, hi = np.where(bad, 1.0, lo), np.where(bad, 1.0, hi)
    out = np.array(
        [
            _yearfrac_one(x, y, int(z) if z == z else 0)
            for x, y, z in zip(
                lo.ravel().tolist(), hi.ravel().tolist(), np.where(bad, 0, k).ravel().tolist(), strict=True
            )
        ],
        dtype=float,
    ).reshape(shape)
    # the basis is checked before the dates: YEARFRAC("x", "y", 7) is #NUM! (Excel), an error
    # in the basis itself comes first too
    (kk,), ek = scalar_nums(basis if basis is not None else vec.const(0.0))
    kk = np.broadcast_to(np.trunc(kk), shape)
    first = vec.add_error(ek, np.broadcast_to((kk < 0) | (kk > 4), shape), NUM)
    return vec.finish(out, vec.merge(first, vec.add_error(e, bad, NUM)))


def _ymd(s: float) -> tuple[int, int, int]:
    y, m, d = parts(np.array([s]))
    return int(y[0]), int(m[0]), int(d[0])


def _yearfrac_one(s1: float, s2: float, basis: int) -> float:
    y1, m1, d1 = _ymd(s1)
    y2, m2, d2 = _ymd(s2)
    if basis in (0, 4):
        if basis == 0:  # Excel's US (NASD) rules, in Excel's order: the first that applies
            feb_end1 = m1 == 2 and d1 >= _days_in_feb(y1)
            feb_end2 = m2 == 2 and d2 >= _days_in_feb(y2)
            if d1 == 31 and d2 == 31:
                d1 = d2 = 30
            elif d1 == 31:
                d1 = 30
            elif d1 == 30 and d2 == 31:
                d2 = 30
            elif feb_end1 and feb_end2:
                d1 = d2 = 30
            elif feb_end1:
                d1 = 30
        else:
            d1, d2 = min(d1, 30), min(d2, 30)
        return ((y2 - y1) * 360 + (m2 - m1) * 30 + (d2 - d1)) / 360.0
    days = s2 - s1
    if basis == 2:
        return days / 360.0
    if basis == 3:
        return days / 365.0
    # basis 1, actual/actual
    if y1 == y2 or (y2 == y1 + 1 and (m1 > m2 or (m1 == m2 and d1 >= d2))):
        if y1 == y2 and _cal.isleap(y1):
            length = 366.0
        elif _feb29_between((y1, m1, d1), (y2, m2, d2)) or (m2 == 2 and d2 == 29):
            length = 366.0
        else:
            length = 365.0
        return days / length
    years = range(y1, y2 + 1)
    return days / (sum(366 if _cal.isleap(y) else 365 for y in years) / len(years))


def _feb29_between(a: tuple, b: tuple) -> bool:
    """A 29 February falls between two dates at most a year apart (the 1 March after it is
    reached by the later date while the earlier is before it)."""
    for y in {a[0], b[0]}:
        if _cal.isleap(y) and a < (y, 3, 1) <= b:
            return True
    return False


def _days_in_feb(y: int) -> int:
    return 29 if _cal.isleap(y) or (y == 1900 and not DATE1904.get()) else 28


def _holidays(h) -> tuple[np.ndarray, XlError | None]:
    """Holiday serials (true days) from a reference, array or number; blanks skipped; a date text
    (Microsoft's NETWORKDAYS.INTL example: ``{"2006/1/2","2006/1/16"}``) read as DATEVALUE reads
    it."""
    if h is None:
        return np.array([], dtype="datetime64[D]"), None
    vals = materialize(h).ravel().tolist()
    out = []
    for v in vals:
        if isinstance(v, str):
            v = _datevalue_one(v)
        if isinstance(v, XlError):
            return np.array([], dtype="datetime64[D]"), v
        if v is None:
            continue
        if isinstance(v, bool) or not isinstance(v, float):
            return np.array([], dtype="datetime64[D]"), VALUE
        if not 0 <= v <= max_serial():
            return np.array([], dtype="datetime64[D]"), NUM
        out.append(v)
    return to_days(np.array(out, dtype=float)), None


#: Excel's weekend numbers (NETWORKDAYS.INTL, WORKDAY.INTL) as numpy weekmasks: Monday first,
#: 1 = a workday (Excel's weekend strings are the reverse: Monday first, 1 = a weekend day)
_WEEKENDS = {
    1: "1111100",
    2: "0111110",
    3: "0011111",
    4: "1001111",
    5: "1100111",
    6: "1110011",
    7: "1111001",
    11: "1111110",
    12: "0111111",
    13: "1011111",
    14: "1101111",
    15: "1110111",
    16: "1111011",
    17: "1111101",
}
WORKWEEK = _WEEKENDS[1]  # NETWORKDAYS and WORKDAY: Saturday and Sunday off


def _weekmask(weekend) -> str | XlError:
    """The workdays of a weekend argument (omitted: 1): a weekend number of the table, else
    #NUM!; a text of seven 0/1 characters (1 = weekend), else #VALUE!."""
    if weekend is None:
        return WORKWEEK
    vals = set(weekend.ravel().tolist())
    if len(vals) != 1:
        raise ValueError("a weekend argument varying by row")
    v = vals.pop()
    if isinstance(v, XlError):
        return v
    if v is None:  # an empty argument: the default
        return WORKWEEK
    if isinstance(v, str):
        if len(v) != 7 or set(v) - {"0", "1"}:
            return VALUE
        return "".join("1" if ch == "0" else "0" for ch in v)
    if v not in _WEEKENDS:  # TRUE is 1
        return NUM
    return _WEEKENDS[int(v)]


def _networkdays(start, end, holidays=None, weekmask: str = WORKWEEK):
    (a, b), e = scalar_nums(start, end)
    hol, he = _holidays(holidays)
    if he is not None:
        return vec.const(he)
    shape = np.broadcast_shapes(a.shape, b.shape)
    a, b = np.broadcast_to(np.trunc(a), shape), np.broadcast_to(np.trunc(b), shape)
    bad = ~((a >= 0) & (b >= 0) & (a <= max_serial()) & (b <= max_serial()))
    if "1" not in weekmask:  # Microsoft: a weekend of "1111111" always gives 0
        return vec.finish(np.zeros(shape), vec.add_error(e, bad, NUM))
    da, db = to_days(np.where(bad, 1.0, a)), to_days(np.where(bad, 1.0, b))
    one = np.timedelta64(1, "D")
    fwd = np.busday_count(da, db + one, weekmask=weekmask, holidays=hol)
    back = -np.busday_count(db, da + one, weekmask=weekmask, holidays=hol)
    out = np.where(da <= db, fwd, back).astype(float)
    return vec.finish(out, vec.add_error(e, bad, NUM))


def _workday(start, days, holidays=None, weekmask: str = WORKWEEK):
    (a, n), e = scalar_nums(start, days)
    hol, he = _holidays(holidays)
    if he is not None:
        return vec.const(he)
    if "1" not in weekmask:  # Microsoft: "1111111 is an invalid string"
        return vec.const(VALUE)
    shape = np.broadcast_shapes(a.shape, n.shape)
    a, n = np.broadcast_to(np.trunc(a), shape), np.broadcast_to(np.trunc(n), shape)
    bad = ~((a >= 0) & (a <= max_serial()) & (np.abs(n) < 3_000_000))
    da = to_days(np.where(bad, 1.0, a))
    nn = np.where(bad, 0, n).astype(np.int64)
    fwd = np.busday_offset(da, nn, roll="backward", weekmask=weekmask, holidays=hol)
    back = np.busday_offset(da, nn, roll="forward", weekmask=weekmask, holidays=hol)
    out = to_serial(np.where(nn > 0, fwd, np.where(nn < 0, back, da)))
    bad = bad | (out < 0) | (out > max_serial())
    return vec.finish(np.where(nn == 0, a, out), vec.add_error(e, bad, NUM))


def _intl(count: bool):
    """NETWORKDAYS.INTL(start, end, [weekend], [holidays]) / WORKDAY.INTL(start, days, ...):
    NETWORKDAYS / WORKDAY with the weekend of :func:`_weekmask`."""

    def impl(start, other, weekend=None, holidays=None):
        mask = _weekmask(weekend)
        if isinstance(mask, XlError):
            return vec.const(mask)
        return (_networkdays if count else _workday)(start, other, holidays, mask)

    return impl


def _clock_part(which: int):
    """HOUR, MINUTE, SECOND of a serial's time of day, rounded to the nearest second (Excel)."""

    def impl(serial):
        (x,), e = scalar_nums(serial)
        bad = ~((x >= 0) & (x < max_serial() + 1))
        frac = np.where(bad, 0.0, x) % 1.0
        with np.errstate(all="ignore"):
            hours = np.floor(_snap15(frac * 24)) % 24
            minutes = np.floor(_snap15(frac * 1440)) % 60
            seconds = np.floor(frac * _DAY + 0.5) % 60
        out = [hours, minutes, seconds][which]
        return vec.finish(out.astype(float), vec.add_error(e, bad, NUM))

    return impl


def _snap15(x: np.ndarray) -> np.ndarray:
    """Values within 15 significant digits of a whole number taken as that number."""
    r = np.round(x)
    return np.where(np.abs(x - r) <= np.abs(x) * 1e-15, r, x)


def _days(end, start):
    """Microsoft: "EndDate-StartDate" (numbers are not truncated); "if either argument is a
    number outside the range of valid dates, DAYS returns the #NUM! error value" (0 to
    9999-12-31's serial; DAYS(1E+300,0) is #NUM!)."""
    (b, a), e = scalar_nums(end, start)
    last = max_serial() + 1
    bad = (b < 0) | (b >= last) | (a < 0) | (a >= last)
    return vec.finish(np.where(bad, np.nan, b - a), e)  # NaN: #NUM! (an input's error first)


_DATEDIF_UNITS = ("Y", "M", "D", "MD", "YM", "YD")


def _datedif_one(a: float, b: float, unit) -> float | XlError:
    if isinstance(unit, XlError):
        return unit
    u = str(unit).upper() if isinstance(unit, str) else ""
    if u not in _DATEDIF_UNITS or not (0 <= a <= b <= max_serial()):
        return NUM
    y1, m1, d1 = _ymd(a)
    y2, m2, d2 = _ymd(b)
    months = (y2 - y1) * 12 + (m2 - m1) - (1 if d2 < d1 else 0)
    if u == "Y":
        return float(months // 12)
    if u == "M":
        return float(months)
    if u == "D":
        return float(int(b) - int(a))
    if u == "YM":
        return float(months % 12)
    if u == "MD":
        if d2 >= d1:
            return float(d2 - d1)
        py, pm = (y2, m2 - 1) if m2 > 1 else (y2 - 1, 12)
        return float(_cal.monthrange(py, pm)[1] - d1 + d2)  # Excel's rule (may be negative)
    # YD: the days from the start to the end's month and day moved into the start's year, on
    # Excel's serials, the fictitious 1900-02-29 counted (Mac Excel cached 153 for
    # DATEDIF(8,1987,"YD"), 1900-01-08 to 1905-06-09, in the formulas project's test.xlsx
    # DATE & TIME!R4, where the days from 1905-01-08 are 152); an end earlier in the year than
    # the start, which no Excel-saved cell shows: the days since the last anniversary of the
    # start, as LibreOffice counts them
    if (m2, d2) >= (m1, d1):
        return float(from_ymd(np.array([y1]), np.array([m2]), np.array([d2]))[0] - int(a))
    anniv_year = y2 - 1
    d = min(d1, _cal.monthrange(anniv_year, m1)[1])
    return float((_dt.date(y2, m2, d2) - _dt.date(anniv_year, m1, d)).days)


def _datedif(start, end, unit):
    (a, b), e = scalar_nums(start, end)
    a, b = np.trunc(a), np.trunc(b)
    out = vec.elementwise(_datedif_one, a, b, unit)
    return vec.with_errors(out, e)


def clock_functions(now: _dt.datetime) -> dict[str, Spec]:
    """NOW and TODAY fixed at ``now`` (``gputco recalc --now``), as serials of the workbook's
    date system."""
    day = np.array([np.datetime64(now.date(), "D")])
    frac = (now.hour * 3600 + now.minute * 60 + now.second + now.microsecond / 1e6) / _DAY

    def today():
        return vec.const(float(to_serial(day)[0]))

    def now_():
        return vec.const(float(to_serial(day)[0]) + frac)

    return {"NOW": Spec(now_, 0, 0), "TODAY": Spec(today, 0, 0)}


def _days360_one(s1: float, s2: float, method: float | None = None) -> float | XlError:
    """DAYS360(start, end, [method]) on Microsoft's rules. US (method FALSE or omitted): a start
    on the last day of a month becomes the 30th; an end on the 31st becomes the 1st of the next
    month when the start is before the 30th, else the 30th (an end on 28 or 29 February stays,
    as Excel computes it). European (TRUE): a 31st becomes the 30th."""
    if s1 < 0 or s2 < 0 or s1 > max_serial() or s2 > max_serial():
        return NUM
    y1, m1, d1 = _ymd(math.floor(s1))
    y2, m2, d2 = _ymd(math.floor(s2))
    if method:
        d1, d2 = min(d1, 30), min(d2, 30)
    else:
        if d1 == (_days_in_feb(y1) if m1 == 2 else _cal.monthrange(y1, m1)[1]):
            d1 = 30
        if d2 == 31:
            if d1 < 30:
                d2, m2 = 1, m2 + 1
            else:
                d2 = 30
    return float((y2 - y1) * 360 + (m2 - m1) * 30 + (d2 - d1))


#: WEEKNUM's return_type: the day its weeks begin on (0 Sunday .. 6 Saturday); 21 is ISO 8601
_WEEKNUM_START = {1: 0, 2: 1, 11: 1, 12: 2, 13: 3, 14: 4, 15: 5, 16: 6, 17: 0}


def _dow(s: float) -> int:
    """The day of the week of a serial, 0 Sunday, as Excel counts it (WEEKDAY above)."""
    return int((s + (5 if DATE1904.get() else -1)) % 7)


def _jan1(year: int) -> float:
    return float(from_ymd(np.array([year]), np.array([1]), np.array([1]))[0])


def _iso_week(s: float) -> float:
    """ISO 8601's week of a serial: weeks begin on Monday and week 1 holds the year's first
    Thursday. On Excel's serials and days of the week (so its fictitious 1900-02-29 counts)."""
    thursday = s - (_dow(s) + 6) % 7 + 3
    year = int(str(to_days(np.array([thursday]))[0])[:4])
    return float((thursday - _jan1(year)) // 7 + 1)


def _weeknum_one(s: float, kind: float | None = None) -> float | XlError:
    """WEEKNUM(serial_number, [return_type=1]) (Microsoft's page): system 1, the week holding 1
    January is week 1, weeks beginning on the day return_type names (1 or 17 Sunday, 2 or 11
    Monday, 12 Tuesday .. 16 Saturday); system 2, return_type 21, ISO 8601's weeks (ISOWEEKNUM).
    A serial out of the date range or another return_type is #NUM!."""
    k = 1 if kind is None else math.trunc(kind)
    s = math.floor(s)
    if (k != 21 and k not in _WEEKNUM_START) or not 0 <= s <= max_serial():
        return NUM
    if k == 21:
        return _iso_week(s)
    year = int(parts(np.array([float(s)]))[0][0])
    first = _jan1(year)
    shift = (_dow(first) - _WEEKNUM_START[k]) % 7
    return float((s - first + shift) // 7 + 1)


def _isoweeknum_one(s: float) -> float | XlError:
    """ISOWEEKNUM(date) (Excel 2013): ISO 8601's week number of the date; a serial out of the
    date range is #NUM! (Microsoft's page)."""
    s = math.floor(s)
    return _iso_week(s) if 0 <= s <= max_serial() else NUM


_CALENDAR_FUNCTIONS = {
    "WEEKNUM": Spec(scalar_function(_weeknum_one, 1), 1, 2),
    "ISOWEEKNUM": Spec(scalar_function(_isoweeknum_one, 1), 1, 1),
    "DAYS360": Spec(scalar_function(_days360_one, 2), 2, 3),
    "HOUR": Spec(_clock_part(0), 1, 1),
    "MINUTE": Spec(_clock_part(1), 1, 1),
    "SECOND": Spec(_clock_part(2), 1, 1),
    "DAYS": Spec(_days, 2, 2),
    "DATEDIF": Spec(_datedif, 3, 3),
    "TIME": Spec(_time, 3, 3),
    "WEEKDAY": Spec(_weekday, 1, 2),
    "DATEVALUE": Spec(_datevalue, 1, 1),
    "TIMEVALUE": Spec(_timevalue, 1, 1),
    "YEARFRAC": Spec(_yearfrac, 2, 3),
    "NETWORKDAYS": Spec(_networkdays, 2, 3, "vvr"),
    "WORKDAY": Spec(_workday, 2, 3, "vvr"),
    "NETWORKDAYS.INTL": Spec(_intl(True), 2, 4, "vvvr"),
    "WORKDAY.INTL": Spec(_intl(False), 2, 4, "vvvr"),
}


FUNCTIONS = {**_DATES_FUNCTIONS, **_CALENDAR_FUNCTIONS}
