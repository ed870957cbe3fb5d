"""Excel values and the conversions between them, one element at a time.

A cell value is a ``float``, ``str``, ``bool``, ``None`` (blank) or an :class:`XlError`. The
vectorised layer (:mod:`.vec`) uses these element rules only on the slow path (text, booleans,
errors, blanks mixed in); numbers go straight through numpy.

Where LibreOffice and Excel disagree, these rules follow Excel (the product's target) and the
oracle tests list the difference: LibreOffice stores booleans as numbers, so it counts TRUE in
ranges (SUM, MAX, COUNT) and writes ``""&TRUE`` as "1"; Excel ignores booleans in ranges and
writes "TRUE".
"""

from __future__ import annotations

import calendar as _cal
import datetime as _dt
import re
from contextvars import ContextVar


class XlError:
    """An Excel error value such as ``#DIV/0!``; one instance per code, compare with ``is``.

    >>> ERRORS["#N/A"] is NA, str(DIV0)
    (True, '#DIV/0!')
    """

    __slots__ = ("code",)

    def __init__(self, code: str) -> None:
        self.code = code

    def __repr__(self) -> str:
        return self.code

    __str__ = __repr__

    def __reduce__(self):  # keep one instance per code through pickling and copying
        return (error, (self.code,))


ERRORS: dict[str, XlError] = {
    c: XlError(c)
    for c in (
        "#NULL!",
        "#DIV/0!",
        "#VALUE!",
        "#REF!",
        "#NAME?",
        "#NUM!",
        "#N/A",
        "#GETTING_DATA",
        "#SPILL!",
        "#CALC!",
    )
}
NULL, DIV0, VALUE, REF, NAME, NUM, NA = (
    ERRORS[c] for c in ("#NULL!", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#N/A")
)
#: Excel 365's dynamic-array errors: a spill that is blocked, an empty array (FILTER)
SPILL, CALC = ERRORS["#SPILL!"], ERRORS["#CALC!"]

#: the longest text a cell holds (Excel's limit); longer results of ``&``, CONCAT, REPT are #VALUE!
MAX_TEXT = 32_767


def error(text: str) -> XlError:
    """The error value for an error text, which may carry a message after the code.

    Unknown ``#...`` codes become #VALUE!.

    >>> error("#N/A"), error("#N/A unknown system 'H100'"), error("#BOGUS")
    (#N/A, #N/A, #VALUE!)
    """
    parts = text.strip().split(None, 1)
    return ERRORS.get(parts[0].upper() if parts else "", VALUE)


_NUM_RE = re.compile(
    r"""^\s*(?P<neg>-)?\s*\$?\s*(?P<num>(?:\d{1,3}(?:,\d{3})+|\d*)(?:\.\d*)?
                         (?:[eE][-+]?\d+)?)\s*(?P<pct>%)?\s*$""",
    re.X,
)
_EPOCH = _dt.date(1899, 12, 30)
_EPOCH_1904 = _dt.date(1904, 1, 1)

#: True while a workbook saved with the 1904 date system (``<workbookPr date1904="1"/>``) is
#: evaluated: serial 0 is 1904-01-01 (no fictitious 1900-02-29); set by the engine per workbook
DATE1904: ContextVar[bool] = ContextVar("gputco_date1904", default=False)

#: the character set of CHAR and CODE while a workbook is evaluated: Microsoft's CHAR page says it
#: is the operating environment's, ANSI (Windows-1252, "cp1252") on Windows and the Macintosh
#: character set ("mac_roman") on a Mac; set by the engine from the application that saved the
#: workbook (docProps/app.xml, :attr:`..read.package.Package.charset`)
CHARSET: ContextVar[str] = ContextVar("gputco_charset", default="cp1252")


#: the order of day and month in a date text of two numbers and a year ("3/4/2024"), as the
#: operating system's regional settings give it to Excel (Microsoft's DATEVALUE page: "the date
#: format used by your computer's date and time settings"): "mdy" (en-US, default) or "dmy"
#: (most of Europe: an Italian Excel reads "29/02/1900" as serial 60). A workbook does not record
#: it; the caller says it (``recalc_file(date_order=...)``, ``gputco recalc --date-order``)
DATE_ORDER: ContextVar[str] = ContextVar("gputco_date_order", default="mdy")
DATE_ORDERS = ("mdy", "dmy")

_MONTHS = {m.lower(): i for i, m in enumerate(_cal.month_name) if m}
_MONTHS.update({m.lower(): i for i, m in enumerate(_cal.month_abbr) if m})
_TIME = r"(?:\s+(?P<time>\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?\s*(?:[AaPp][Mm])?))?\s*$"
_DATE_FORMS = [
    re.compile(r"^\s*(?P<y>\d{4})[-/](?P<m>\d{1,2})[-/](?P<d>\d{1,2})" + _TIME),
    re.compile(r"^\s*(?P<m>\d{1,2})/(?P<d>\d{1,2})/(?P<y>\d{2}|\d{4})" + _TIME),  # DATE_ORDER
    re.compile(r"^\s*(?P<d>\d{1,2})[- ](?P<mon>[A-Za-z]{3,9})[- ,]+(?P<y>\d{2}|\d{4})" + _TIME),
    re.compile(r"^\s*(?P<mon>[A-Za-z]{3,9})\.?\s+(?P<d>\d{1,2}),?\s+(?P<y>\d{2}|\d{4})" + _TIME),
]
_TIME_ONLY = re.compile(
    r"^\s*(?P<h>\d{1,2}):(?P<mi>\d{2})(?::(?P<s>\d{2}(?:\.\d+)?))?"
    r"\s*(?P<ap>[AaPp][Mm])?\s*$"
)


def parse_date(text: str):
    """(year, month, day, time fraction or None) of a date text, or None.

    Two numbers and a year separated by slashes are month/day/year, or day/month/year while
    :data:`DATE_ORDER` is "dmy":

    >>> parse_date("2/3/2024")[:3]
    (2024, 2, 3)
    >>> token = DATE_ORDER.set("dmy"); parse_date("2/3/2024")[:3], parse_date("29/02/1900")[:3]
    ((2024, 3, 2), (1900, 2, 29))
    >>> DATE_ORDER.reset(token)
    """
    for i, rx in enumerate(_DATE_FORMS):
        m = rx.match(text)
        if not m:
            continue
        g = m.groupdict()
        if i == 1 and DATE_ORDER.get() == "dmy":
            g["m"], g["d"] = g["d"], g["m"]
        month = _MONTHS.get(g["mon"].lower()) if g.get("mon") else int(g["m"])
        if month is None:
            return None
        y = int(g["y"])
        if len(g["y"]) == 2:
            y += 2000 if y < 30 else 1900  # Excel's two-digit year window
        t = parse_time(g["time"]) if g.get("time") else None
        if g.get("time") and t is None:
            return None
        return y, month, int(g["d"]), t
    return None


def parse_time(text: str) -> float | None:
    """The day fraction of a time text (18:45, 6:45 PM, 18:45:30), or None."""
    m = _TIME_ONLY.match(text)
    if not m:
        return None
    h, mi = int(m["h"]), int(m["mi"])
    s = float(m["s"]) if m["s"] else 0.0
    if m["ap"]:
        if not 1 <= h <= 12:
            return None
        h = h % 12 + (12 if m["ap"].lower() == "pm" else 0)
    if mi > 59 or s >= 60:
        return None
    return (h * 3600 + mi * 60 + s) / 86400.0  # "25:00" is 1.0417 (TIMEVALUE wraps it)


def parse_number(text: str) -> float | None:
    """The number a text stands for where Excel converts text to a number, or None.

    The one conversion of text to number of the engine: arithmetic (``"3"+1``), function
    arguments that take numbers, criteria (``COUNTIF(A:A,"1/31/2024")``), VALUE. As Excel (en-US)
    reads "any of the constant number, date, or time formats" (Microsoft's VALUE page,
    https://support.microsoft.com/en-us/office/value-function-257d0108-07dc-437d-ae1c-bc2d3953d8c2):
    plain and scientific numbers, a leading minus, ``$``, thousands separators, a trailing ``%``;
    dates as :func:`parse_date` reads them (as serial numbers, with a time of day as the
    fraction) and times as :func:`parse_time` reads them (as a fraction of a day).

    >>> parse_number(" 3 "), parse_number("1,000"), parse_number("10%"), parse_number("$5")
    (3.0, 1000.0, 0.1, 5.0)
    >>> parse_number("2024-01-01"), parse_number("abc"), parse_number(""), parse_number("1,00")
    (45292.0, None, None, None)
    >>> parse_number("1/31/2024"), parse_number("12:00"), parse_number("31-Jan-2024 6:00")
    (45322.0, 0.5, 45322.25)
    """
    m = _NUM_RE.match(text)
    if m and any(ch.isdigit() for ch in m["num"]):
        try:
            x = float(m["num"].replace(",", ""))
        except ValueError:
            return None
        x = -x if m["neg"] else x
        return x / 100.0 if m["pct"] else x
    t = parse_time(text)
    if t is not None:
        return t
    d = parse_date(text)
    if d is None:
        return None
    serial = date_serial(*d[:3])
    return None if serial is None else serial + (d[3] or 0.0)


def date_serial(y: int, m: int, d: int) -> float | None:
    """The serial number of a calendar date in the workbook's date system, or None.

    The 1900 system counts Excel's fictitious 1900-02-29 (serial 60), so dates before March 1900
    are one day lower than a count of days from 1899-12-30 (Microsoft: "Excel incorrectly assumes
    that the year 1900 is a leap year"); the 1904 system starts at 1904-01-01 (serial 0).

    >>> date_serial(1900, 1, 1), date_serial(1900, 2, 29), date_serial(1900, 3, 1), date_serial(2024, 2, 30)
    (1.0, 60.0, 61.0, None)
    """
    if DATE1904.get():
        try:
            day = _dt.date(y, m, d)
        except ValueError:
            return None
        return float((day - _EPOCH_1904).days) if day >= _EPOCH_1904 else None
    if (y, m, d) == (1900, 2, 29):
        return 60.0
    try:
        day = _dt.date(y, m, d)
    except ValueError:
        return None
    if day < _dt.date(1900, 1, 1):
        return None
    return float((day - _EPOCH).days) if day >= _dt.date(1900, 3, 1) else float((day - _EPOCH).days - 1)


def to_number(v: object) -> float | XlError:
    """Excel's conversion of one value for arithmetic: blank 0, TRUE 1, numeric text, else #VALUE!.

    >>> to_number(None), to_number(True), to_number("2.5"), to_number("x")
    (0.0, 1.0, 2.5, #VALUE!)
    """
    if isinstance(v, float):
        return v
    if v is None:
        return 0.0
    if isinstance(v, bool):
        return 1.0 if v else 0.0
    if isinstance(v, str):
        x = parse_number(v)
        return VALUE if x is None else x
    if isinstance(v, XlError):
        return v
    return float(v)  # int or numpy number


def to_bool(v: object) -> bool | XlError:
    """Excel's conversion for a condition: numbers non-zero, "TRUE"/"FALSE" texts, blank FALSE.

    >>> to_bool(2.0), to_bool(None), to_bool("true"), to_bool("yes")
    (True, False, True, #VALUE!)
    """
    if isinstance(v, bool):
        return v
    if isinstance(v, float):
        return v != 0.0
    if v is None:
        return False
    if isinstance(v, str):
        u = v.strip().upper()
        return True if u == "TRUE" else False if u == "FALSE" else VALUE
    if isinstance(v, XlError):
        return v
    return bool(v)


def to_text(v: object) -> str | XlError:
    """Excel's conversion to text (for ``&``, CONCATENATE, LEN...).

    >>> to_text(1 / 3), to_text(2.0), to_text(True), to_text(None), to_text(1e20)
    ('0.333333333333333', '2', 'TRUE', '', '1E+20')
    """
    if isinstance(v, str):
        return v
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, float):
        return number_text(v)
    if v is None:
        return ""
    if isinstance(v, XlError):
        return v
    return number_text(float(v))


def number_text(x: float) -> str:
    """A number as Excel's General format writes it in text: at most 15 significant digits.

    >>> number_text(0.1 + 0.2), number_text(-1.5e-7), number_text(123456789012345678.0)
    ('0.3', '-0.00000015', '1.23456789012346E+17')
    >>> number_text(1234567.891), number_text(-0.0), number_text(1e-20)
    ('1234567.891', '0', '1E-20')
    """
    if x == 0:
        return "0"
    mant, _, exp = f"{x:.14e}".partition("e")
    e = int(exp)
    if e >= 15 or e < -19:  # scientific, Excel style: 1.5E+20, 1E-20
        m = mant.rstrip("0").rstrip(".")
        return f"{m}E{'+' if e >= 0 else '-'}{abs(e):02d}"
    digits = max(0, 14 - e)
    s = f"{round(x, digits):.{digits}f}"
    if "." in s:
        s = s.rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


#: Excel's order of the characters in text (Microsoft, "Default sort orders", Excel help: digits,
#: then the space and the punctuation in this order, then the letters without case; apostrophes and
#: hyphens are ignored unless two texts differ by them alone, when the one with the hyphen sorts
#: last). Control characters, which the page does not list, come first; characters beyond ASCII
#: keep their code points' order, after all of these.
EXCEL_TEXT_ORDER = (
    "".join(map(chr, range(32)))
    + "\x7f"
    + "0123456789"
    + ' !"#$%&()*,./:;?@[\\]^_`{|}~+<=>'
    + "abcdefghijklmnopqrstuvwxyz"
)
_PRIMARY = {ord(c): chr(1 + i) for i, c in enumerate(EXCEL_TEXT_ORDER)} | {ord("'"): None, ord("-"): None}
_SECONDARY = _PRIMARY | {ord("'"): chr(len(EXCEL_TEXT_ORDER) + 1), ord("-"): chr(len(EXCEL_TEXT_ORDER) + 2)}


def text_order(s: str) -> str:
    """The key that orders texts as Excel compares them (:data:`EXCEL_TEXT_ORDER`): equal keys
    for texts equal but for case, and ``<`` between keys as between the texts in Excel.

    >>> sorted(["b", "A", "!", "10", "1", "a-b", "ab", "<"], key=text_order)
    ['1', '10', '!', '<', 'A', 'ab', 'a-b', 'b']
    """
    low = s.lower()
    return low.translate(_PRIMARY) + "\x00" + low.translate(_SECONDARY)


def type_rank(v: object) -> int:
    """Order of types in Excel comparisons: numbers < text < booleans (errors handled before)."""
    return 0 if isinstance(v, float) else 2 if isinstance(v, bool) else 1


def compare(a: object, b: object) -> int | XlError:
    """Excel's three-way comparison of two values: -1, 0 or 1, or the first error.

    Text compares case-insensitively in Excel's order of characters (:func:`text_order`); a
    blank takes the type of the other side; numbers compare with Excel's 15-digit tolerance
    (``0.1+0.2 = 0.3`` is TRUE).

    >>> compare("a", "A"), compare(None, 0.0), compare(None, ""), compare(1.0, "a")
    (0, 0, 0, -1)
    """
    if isinstance(a, XlError):
        return a
    if isinstance(b, XlError):
        return b
    if a is None:
        a = "" if isinstance(b, str) else False if isinstance(b, bool) else 0.0
    if b is None:
        b = "" if isinstance(a, str) else False if isinstance(a, bool) else 0.0
    if isinstance(a, int) and not isinstance(a, bool):
        a = float(a)
    if isinstance(b, int) and not isinstance(b, bool):
        b = float(b)
    ra, rb = type_rank(a), type_rank(b)
    if ra != rb:
        return -1 if ra < rb else 1
    if ra == 1:
        a, b = text_order(a), text_order(b)
    elif ra == 0 and approx_equal(a, b):
        return 0
    return 0 if a == b else -1 if a < b else 1


EPS48 = 2.0**-48  # relative tolerance of Excel/LibreOffice "approximately equal" (15 digits)


def approx_equal(a: float, b: float) -> bool:
    """Equal to about 15 significant digits, as spreadsheet comparisons treat numbers."""
    return a == b or abs(a - b) < max(abs(a), abs(b)) * EPS48
