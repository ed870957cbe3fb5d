r"""Excel's Text functions.

Text: CONCATENATE, CONCAT, UPPER, LOWER, LEN, TRIM, EXACT, LEFT, RIGHT, MID, REPT, VALUE.

Text editing: SUBSTITUTE, REPLACE, CHAR, CODE, CLEAN, T, PROPER (Microsoft's function reference).

- SUBSTITUTE(text, old, new, [instance]) replaces every occurrence of ``old`` (case-sensitive,
  left to right, not overlapping), or only the instance-th; an empty ``old`` changes nothing; an
  instance below 1 is #VALUE!.
- REPLACE(text, start, count, new) replaces ``count`` characters from position ``start``
  (1-based); start < 1 or count < 0 is #VALUE!.
- CHAR(n) is the character of code n in the character set of the operating environment
  (Microsoft's CHAR and CODE pages): Windows-1252 on Windows, the Macintosh character set in a
  workbook Excel for the Mac saved (:data:`..values.CHARSET`, from docProps/app.xml); 1..255, else
  #VALUE!. CODE(text) is the code of the first character (#VALUE! for empty text; 63, "?", for
  a character the set lacks).
- CLEAN removes the non-printing characters 0-31; T(value) is the value if it is text, else ""
  (of a range, its first cell);
  PROPER capitalises each letter that follows a non-letter and lowers the others.

Numbers used as text are written as Excel writes them (``to_text``); errors pass through.

Text search: FIND (case-sensitive, no wildcards) and SEARCH (case-insensitive, with ``*`` ``?``
and ``~`` escapes), Excel's semantics.

FIND/SEARCH(find_text, within_text, [start_num=1]) give the 1-based position of the first match
at or after ``start_num``; no match, or ``start_num`` below 1 or greater than the length of
``within_text``, is #VALUE!. An empty ``find_text`` matches at ``start_num`` (Microsoft's FIND page).

DOLLAR(number, [decimals=2]): the number rounded (left of the point for negative decimals) in the
currency format of Microsoft's page, $#,##0.00 and ($#,##0.00) for negatives.

TEXT(value, format_text): Excel number formats (en-US) as finance sheets use them.

Supported: up to four sections (``positive;negative;zero;text``); digit placeholders ``0 # ?``
(``?`` a space where no digit shows, and a separator between two such spaces a space too), the
decimal point, thousands separators (``#,##0``; a comma before every placeholder is literal text,
``,#`` shows ",1234567") and trailing-comma scaling (``0,`` thousands),
percent (``0.0%``), scientific (``0.00E+00``, ``##0.0E+0``, ``e-``) and fractions (``# ?/?``,
``?/?``, ``# ?/8``; both in ._numformat), literal text (``"USD "``, ``\x``, ``$ - + ( ) : /``
and spaces; ``_x`` is a space, ``*x`` fills nothing), ``General``, and dates and times (``yyyy yy
mmmm mmm mm m dddd ddd dd d hh h mm ss s AM/PM A/P [h] [m] [s]``, ``.0`` fractions of seconds;
``mmmmm`` the month's initial, ``mmmmmm`` and longer its name, ``ddddd`` and longer the day's
name, ``hhh`` and ``sss`` and longer as ``hh`` and ``ss``: the formulas project's Excel-saved
test.xlsx EXTRA!A37, A40:A42). A letter that is no code
(unquoted, unescaped: ``TEXT(1, "0 x")``) shows as written, as Excel showed it in an Excel-saved
file; a quote left open is #VALUE!; b, g and e (Buddhist and era years) are not modelled.
Colours (``[Red]``) are dropped, conditions (``[>100]``) choose the section, ``[$€-407]`` shows
its currency symbol. Forms whose Excel output is neither documented nor shown by an Excel-saved
file (see ._numformat) leave the cell unsupported (its stored value is kept, see
:class:`..errors.UnsupportedValue`) rather than guessed. Rounding is half away from zero on the
value's 15 significant digits (so 2.675 shows as 2.68, as in Excel). A text value (and TRUE/FALSE)
is returned as it is, or through the fourth section (``"..."``, ``\x`` and ``@``); numeric text is
formatted as its number. Checked against Excel's own cached values in tests/data/excel_corpus
(POI's *FormatTests.xlsx files).

Excel 2013-2024 text functions (each one's docstring gives its rules, from its Microsoft page):
TEXTJOIN, TEXTBEFORE, TEXTAFTER, TEXTSPLIT (an array result), UNICHAR, UNICODE, NUMBERVALUE (en-US
separators by default), FIXED, VALUETOTEXT and ARRAYTOTEXT. The byte versions LENB, LEFTB,
RIGHTB, MIDB, FINDB, SEARCHB and REPLACEB count a byte a character, as Microsoft documents them
when the default language has no double-byte character set (the engine assumes en-US): they are
LEN, LEFT, RIGHT, MID, FIND, SEARCH and REPLACE.
"""

from __future__ import annotations

import calendar as _cal
import math
import re
from decimal import ROUND_HALF_UP, Decimal, localcontext

import numpy as np

from gputco.workbook.recalc.base import vec
from gputco.workbook.recalc.base.errors import UnsupportedValue
from gputco.workbook.recalc.base.rangeval import materialize
from gputco.workbook.recalc.base.values import (
    CHARSET,
    DATE1904,
    MAX_TEXT,
    NA,
    VALUE,
    XlError,
    number_text,
    parse_number,
    to_bool,
    to_number,
    to_text,
)

from ._args import Spec, is_rangelike, row_errors, scalar_nums, wildcard_regex
from ._numformat import FormatUnsupported, format_fraction, format_scientific, is_fraction
from .datetime import max_serial, parts

# --- text ------------------------------------------------------------------------------------------------


def _text_map(func):
    """A function of one text, applied element-wise; errors pass through."""

    def impl(x):
        t, e = vec.texts(x)
        out = vec.from_list([func(s) for s in t.ravel().tolist()], t.shape)
        return vec.with_errors(out, e)

    return impl


def _concatenate(*args):
    out, errs = vec.const(""), []
    for a in args:
        if a is None:
            continue
        t, e = vec.texts(a)
        out = out + t
        errs.append(e)
    return vec.with_errors(vec.cap_text(out), vec.merge(*errs))


def _concat(*args):
    """CONCAT joins every cell of ranges too (row by row); a row whose cells hold an error is
    that error, the other rows of the group are joined as usual."""
    pieces, arrays = [], []
    for a in args:
        if a is None:
            continue
        arr = materialize(a)
        arrays.append(arr)
        t, _ = vec.texts(arr)
        m = t.shape[0]
        pieces.append(
            np.array(
                ["".join(x if isinstance(x, str) else "" for x in r) for r in t.reshape(m, -1).tolist()],
                dtype=object,
            )
        )
    if not pieces:
        return vec.const("")
    out = pieces[0].reshape(-1, 1, 1)
    for p in pieces[1:]:
        out = out + p.reshape(-1, 1, 1)
    out = vec.cap_text(out)
    errs = row_errors(arrays)
    if errs is None:
        return out
    out = np.broadcast_to(out, (len(errs), 1, 1)).copy()
    for i, e in enumerate(errs):
        if e is not None:
            out[i, 0, 0] = e
    return out


def _trim(s: str) -> str:
    return " ".join(p for p in s.split(" ") if p)


def _exact(a, b):
    ta, ea = vec.texts(a)
    tb, eb = vec.texts(b)
    return vec.with_errors(np.asarray(ta == tb, dtype=bool), vec.merge(ea, eb))


def _slicer(kind: str):
    def impl(text, a=None, b=None):
        t, et = vec.texts(text)
        if kind == "mid":
            (start, count), en = scalar_nums(a, b)
        else:
            (count,), en = scalar_nums(a if a is not None else vec.const(1.0))
            start = None
        shape = np.broadcast_shapes(t.shape, count.shape, *(() if start is None else (start.shape,)))
        ts = np.broadcast_to(t, shape).ravel().tolist()
        ns = np.broadcast_to(np.trunc(count), shape).ravel().tolist()
        ss = (
            np.broadcast_to(np.trunc(start), shape).ravel().tolist() if start is not None else [1.0] * len(ts)
        )
        out = []
        for s, n, st in zip(ts, ns, ss, strict=True):
            if n < 0 or st < 1 or n != n or st != st:  # (NaN where an argument is an error)
                out.append(VALUE)
            elif kind == "left":
                out.append(s[: int(n)])
            elif kind == "right":
                out.append(s[max(0, len(s) - int(n)) :] if n else "")
            else:
                out.append(s[int(st) - 1 : int(st) - 1 + int(n)])
        return vec.with_errors(vec.from_list(out, shape), vec.merge(et, en))

    return impl


def _rept(text, times):
    t, et = vec.texts(text)
    (n,), en = scalar_nums(times)
    shape = np.broadcast_shapes(t.shape, n.shape)
    out = [
        _rept_one(s, k)
        for s, k in zip(
            np.broadcast_to(t, shape).ravel().tolist(),
            np.broadcast_to(n, shape).ravel().tolist(),
            strict=True,
        )
    ]
    return vec.with_errors(vec.from_list(out, shape), vec.merge(et, en))


def _rept_one(s: str, k: float):
    """``s`` repeated ``k`` times; #VALUE! for a negative count or a text too long for a cell."""
    if not 0 <= k < math.inf:
        return VALUE
    k = int(k)
    return VALUE if len(s) * k > MAX_TEXT else s * k


def _value(x):
    if x.dtype == vec.FLOAT:
        return x

    def conv(v):
        if isinstance(v, str):
            n = parse_number(v)
            return VALUE if n is None else n
        if isinstance(v, XlError):
            return v  # VALUE(#N/A) is #N/A
        return v if isinstance(v, float) else 0.0 if v is None else VALUE

    return vec.elementwise(conv, x)


_TEXT_FUNCTIONS = {
    "CONCATENATE": Spec(_concatenate, 1, 255),
    "CONCAT": Spec(_concat, 1, 255, "r"),
    "UPPER": Spec(_text_map(str.upper), 1, 1),
    "LOWER": Spec(_text_map(str.lower), 1, 1),
    "LEN": Spec(_text_map(lambda s: float(len(s))), 1, 1),
    "TRIM": Spec(_text_map(_trim), 1, 1),
    "EXACT": Spec(_exact, 2, 2),
    "LEFT": Spec(_slicer("left"), 1, 2),
    "RIGHT": Spec(_slicer("right"), 1, 2),
    "MID": Spec(_slicer("mid"), 3, 3),
    "REPT": Spec(_rept, 2, 2),
    "VALUE": Spec(_value, 1, 1),
}


# --- textedit --------------------------------------------------------------------------------------------


def _each(func, kinds: str):
    """Element-wise over broadcast arguments converted by kind: t text, n number (truncated)."""

    def one(*vals):
        args = []
        for kind, v in zip(kinds, vals, strict=False):
            x = to_text(v) if kind == "t" else to_number(v)
            if isinstance(x, XlError):
                return x
            args.append(x if kind == "t" else math.trunc(x) if math.isfinite(x) else x)
        return func(*args)

    def impl(*xs):
        xs = list(xs)
        while xs and xs[-1] is None:  # omitted trailing arguments
            xs.pop()
        return vec.cap_text(vec.elementwise(one, *(vec.const(None) if x is None else x for x in xs)))

    return impl


def _substitute(text: str, old: str, new: str, instance=None):
    if instance is not None and instance < 1:
        return VALUE
    if not old:
        return text
    if instance is None:
        return text.replace(old, new)
    at, pos = -1, 0
    for _ in range(int(instance)):
        at = text.find(old, pos)
        if at < 0:
            return text
        pos = at + len(old)
    return text[:at] + new + text[at + len(old) :]


def _replace(text: str, start, count, new: str):
    if start < 1 or count < 0:
        return VALUE
    return text[: start - 1] + new + text[start - 1 + count :]


def _char(n):
    if not 1 <= n <= 255:
        return VALUE
    try:
        return bytes([n]).decode(CHARSET.get())
    except UnicodeDecodeError:  # the five codes Windows-1252 leaves undefined
        return chr(n)


def _code(text: str):
    if not text:
        return VALUE
    try:
        return float(text[0].encode(CHARSET.get())[0])
    except UnicodeEncodeError:
        return 63.0  # Excel shows characters outside its code page as "?"


def _clean(text: str) -> str:
    return "".join(ch for ch in text if ord(ch) >= 32)


def _proper(text: str) -> str:
    out, prev_letter = [], False
    for ch in text:
        out.append((ch.lower() if prev_letter else ch.upper()) if ch.isalpha() else ch)
        prev_letter = ch.isalpha()
    return "".join(out)


def _t(value):
    """T: a range gives its first cell (Excel's cached values in POI's
    FormulaEvalTestData_Copy.xlsx, EverythingTests row 1352)."""
    if is_rangelike(value):
        value = materialize(value)[:, :1, :1]

    def one(v):
        return v if isinstance(v, (str, XlError)) else ""

    return vec.elementwise(one, value)


_TEXTEDIT_FUNCTIONS = {
    "SUBSTITUTE": Spec(_each(_substitute, "tttn"), 3, 4),
    "REPLACE": Spec(_each(_replace, "tnnt"), 4, 4),
    "CHAR": Spec(_each(_char, "n"), 1, 1),
    "CODE": Spec(_each(_code, "t"), 1, 1),
    "CLEAN": Spec(_each(_clean, "t"), 1, 1),
    "PROPER": Spec(_each(_proper, "t"), 1, 1),
    "T": Spec(_t, 1, 1, "r"),
}


# --- textfind --------------------------------------------------------------------------------------------


def _search_regex(pattern: str):
    """SEARCH's wildcards as a regex: * any run (the shortest), ? one character, ~x a literal x
    for x one of * ? ~."""
    return wildcard_regex(pattern, ".*?", "*?~")


def _finder(case_sensitive: bool):
    def one(needle: str, hay: str, start: float):
        if not start >= 1 or start > max(len(hay), 1):
            return VALUE
        s = int(start) - 1
        if case_sensitive:
            pos = hay.find(needle, s)
        else:
            m = _search_regex(needle).search(hay, s)
            pos = -1 if m is None else m.start()
        return VALUE if pos < 0 else float(pos + 1)

    def impl(find_text, within, start=None):
        tf, ef = vec.texts(find_text)
        tw, ew = vec.texts(within)
        (st,), es = scalar_nums(start if start is not None else vec.const(1.0))
        st = np.trunc(st)
        shape = np.broadcast_shapes(tf.shape, tw.shape, st.shape)
        out = [
            one(a, b, c)
            for a, b, c in zip(
                np.broadcast_to(tf, shape).ravel().tolist(),
                np.broadcast_to(tw, shape).ravel().tolist(),
                np.broadcast_to(st, shape).ravel().tolist(),
                strict=True,
            )
        ]
        return vec.with_errors(vec.from_list(out, shape), vec.merge(ef, ew, es))

    return impl


_TEXTFIND_FUNCTIONS = {
    "FIND": Spec(_finder(True), 2, 3),
    "SEARCH": Spec(_finder(False), 2, 3),
}


# --- textformat ------------------------------------------------------------------------------------------

_DATE_CODE = re.compile(
    r"(\[h+\]|\[m+\]|\[s+\]|y+|m{5,}|mmmm|mmm|mm|m|d{4,}|ddd|dd|d|h{2,}|h|"
    r"s{2,}|s|am/pm|a/p|\.0+)",
    re.I,
)


_COLOUR = re.compile(r"\[(black|blue|cyan|green|magenta|red|white|yellow|color\s*\d+)\]", re.I)
_CONDITION = re.compile(r"\[\s*(<=|>=|<>|<|>|=)\s*(-?[\d.]+(?:[eE][+-]?\d+)?)\s*\]")


def _condition(sec: str):
    m = _CONDITION.search(sec)
    return None if m is None else (m.group(1), float(m.group(2)))


def _holds(cond, x: float) -> bool:
    op, v = cond
    return {"<": x < v, ">": x > v, "=": x == v, "<=": x <= v, ">=": x >= v, "<>": x != v}[op]


def _pick(secs: list[str], x: float) -> tuple[str, float, bool]:
    """The section that formats ``x``, the value it shows and whether it shows a minus sign."""
    conds = [_condition(sec) for sec in secs[:3]]
    if any(conds):
        numeric = secs[:3] if len(secs) > 3 else secs
        if conds[0] is not None and _holds(conds[0], x):
            return secs[0], x, True
        if len(numeric) > 1 and conds[1] is not None and _holds(conds[1], x):
            return secs[1], x, True
        if len(numeric) > 2:
            return secs[2], x, True
        if len(numeric) == 2 and conds[1] is None:
            return secs[1], x, True
        return "General", x, True  # no section applies: Excel shows the number plainly
    if x < 0 and len(secs) >= 2:
        return secs[1], -x, False
    if x == 0 and len(secs) >= 3:
        return secs[2], x, False
    return secs[0], x, True


def general(x: float) -> str:
    """Excel's General format in TEXT: at most 11 characters besides the sign, then scientific.

    >>> general(1.2345678912), general(1e10), general(1.1e11), general(1e-9), general(1.123459e-10)
    ('1.234567891', '10000000000', '1.1E+11', '0.000000001', '1.12346E-10')
    """
    a = abs(x)
    sign = "-" if x < 0 else ""
    if a == 0:
        return "0"
    if a >= 1e11 or a < 1e-9:
        mant, _, exp = f"{_round_sig(a, 6):.5E}".partition("E")
        mant = mant.rstrip("0").rstrip(".")
        return f"{sign}{mant}E{exp[0]}{int(exp[1:]):02d}"
    places = 9 if a < 1 else max(0, 10 - len(str(int(a))))
    text = f"{_round(a, places):f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return sign + text


def _round_sig(a: float, sig: int) -> float:
    e = Decimal(format(a, ".15g")).adjusted()
    return float(_round(a / 10.0**e, sig - 1)) * 10.0**e


def _sections(fmt: str) -> list[str]:
    out, cur, i, quoted = [], [], 0, False
    while i < len(fmt):
        ch = fmt[i]
        if ch == '"':
            quoted = not quoted
        elif ch == "\\" and not quoted and i + 1 < len(fmt):
            cur.append(fmt[i : i + 2])
            i += 2
            continue
        elif ch == ";" and not quoted:
            out.append("".join(cur))
            cur = []
            i += 1
            continue
        cur.append(ch)
        i += 1
    out.append("".join(cur))
    return out


def _tokens(sec: str):
    """(kind, text): kind "lit" for literal text, "code" for format characters."""
    out, i = [], 0
    while i < len(sec):
        ch = sec[i]
        if ch == '"':
            j = sec.find('"', i + 1)
            j = len(sec) if j < 0 else j
            out.append(("lit", sec[i + 1 : j]))
            i = j + 1
        elif ch == "\\" and i + 1 < len(sec):
            out.append(("lit", sec[i + 1]))
            i += 2
        elif ch == "_" and i + 1 < len(sec):
            out.append(("lit", " "))
            i += 2
        elif ch == "*" and i + 1 < len(sec):
            i += 2
        elif ch == "[":
            j = sec.find("]", i)
            tag = sec[i : j + 1] if j > 0 else sec[i:]
            cur = re.fullmatch(r"\[\$([^-\]]*)(-[0-9A-Fa-f]+)?\]", tag)
            if cur:
                out.append(("lit", cur.group(1)))  # [$€-407]: the symbol; [$-409]: nothing
            elif _COLOUR.fullmatch(tag) or _CONDITION.fullmatch(tag):
                pass  # colours do not show in text; conditions were used to pick the section
            elif re.fullmatch(r"\[(h+|m+|s+)\]", tag, re.I):
                out.append(("code", tag))
            else:
                raise FormatUnsupported("format code " + tag)
            i += len(tag)
        elif ch in "$-+()/: ,.0#?%Ee" or ch.isalpha():
            out.append(("code", ch))
            i += 1
        else:
            out.append(("lit", ch))
            i += 1
    return out


def _is_date(tokens) -> bool:
    text = "".join(t for k, t in tokens if k == "code").lower()
    return bool(re.search(r"[ymdhs]|am/pm|a/p|\[", text))


class DateOutOfRange(ValueError):
    """A date format given a serial past the last date the workbook's system has (9999-12-31)."""


def format_value(x: float, fmt: str) -> str:
    sec, x, signed = _pick(_sections(fmt), x)
    if sec.strip().lower() == "general" or sec == "":
        return (general(x) if signed else general(abs(x))) if sec else ""
    tokens = _tokens(sec)
    if _is_date(tokens):
        elapsed = any(k == "code" and t.startswith("[") for k, t in tokens)
        if x < 0 and elapsed:  # [h]:mm on a negative duration: Excel prefixes the minus sign
            return ("-" if signed else "") + _format_date(-x, tokens)
        if x < 0:
            raise FormatUnsupported("negative date")
        if not elapsed and x >= max_serial() + 1:  # past 9999-12-31: no date (Excel: #VALUE!)
            raise DateOutOfRange(x)
        return _format_date(x, tokens)
    if is_fraction(tokens):
        return format_fraction(x, tokens, signed)
    if any(
        k == "code" and t in "Ee" and tokens[i + 1 : i + 2] in ([("code", "+")], [("code", "-")])
        for i, (k, t) in enumerate(tokens)
    ):
        return format_scientific(x, tokens, signed)
    return _format_number(x, tokens, signed)


def _round(x: float, places: int) -> Decimal:
    d = Decimal(format(x, ".15g"))
    return d.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)


_PLACEHOLDERS = {("code", "0"), ("code", "#"), ("code", "?")}


def _group_in_place(out: list[str], int_ph: list[int]) -> None:
    """Thousands separators among the whole-number placeholders' texts in ``out``, in place.
    Positions count from the right, one a placeholder (an empty ``#`` too) and one each further
    digit of the leftmost; a separator stands left of every third and shows where a character
    shows to its left and at its right: "," after a digit, a blank after only blanks (``?``), at
    the right end of the placeholder to its left. Literal text keeps its place between
    placeholders (A23 TEXT(1234578.555,"#,##00000,  ,00 , 0########") "0,000,0  ,00, , 01,234,578"). As Mac Excel cached them in the formulas project's
    test.xlsx: EXTRA!A13 TEXT(1234567890,"0,## ##, ##") "1,234,56 7,8 90", A17
    TEXT(1234567.555,"#,##000######## ...") "00,01,234,567 ..." (an empty # keeps its position),
    A18 TEXT(1000000.555,"##00,############# ...") "001,000,000 ..." (none left of an empty #)."""
    slots: list[tuple[int, str]] = []  # (placeholder, character or "") from the right
    for i in reversed(int_ph):
        text = out[i]
        if not text:
            slots.append((i, ""))
        for ch in reversed(text):
            slots.append((i, ch))
    shown = [False] * (len(slots) + 1)  # shown[p]: a non-blank character at position >= p
    blank = [False] * (len(slots) + 1)
    for p in range(len(slots) - 1, -1, -1):
        shown[p] = shown[p + 1] or slots[p][1] not in ("", " ")
        blank[p] = blank[p + 1] or slots[p][1] == " "
    chunks = {i: "" for i in int_ph}
    for p, (i, ch) in enumerate(slots):
        chunks[i] = ch + chunks[i]
        if p % 3 == 2 and p + 1 < len(slots) and ch:  # a separator left of a shown position,
            left = slots[p + 1][0]  # at the right end of the placeholder to its left
            chunks[left] = ("," if shown[p + 1] else " " if blank[p + 1] else "") + chunks[left]
    for i, c in chunks.items():
        out[i] = c


def _format_number(x: float, tokens, signed: bool) -> str:
    codes = "".join(t if k == "code" else "\x00" for k, t in tokens)
    pct = codes.count("%")
    x = x * 100**pct
    digits = [i for i, (k, t) in enumerate(tokens) if k == "code" and t in "0#?"]
    if not digits:
        lits = "".join(t for _, t in tokens)
        return ("-" if x < 0 and signed else "") + lits
    last = digits[-1]
    # trailing commas right after the last placeholder scale by 1,000 each
    j = last + 1
    while j < len(tokens) and tokens[j] == ("code", ","):
        x /= 1000.0
        tokens = [*tokens[:j], ("lit", ""), *tokens[j + 1 :]]
        j += 1
    dot = next((i for i, (k, t) in enumerate(tokens) if k == "code" and t == "."), None)
    j = (dot or 0) - 1
    while dot is not None and j >= 0 and tokens[j] == ("code", ",") and j - 1 in digits:
        x /= 1000.0  # #,.# : a comma just before the point scales too
        tokens = [*tokens[:j], ("lit", ""), *tokens[j + 1 :]]
        j -= 1
    int_ph = [i for i in digits if dot is None or i < dot]
    frac_ph = [i for i in digits if dot is not None and i > dot]
    lead = next((i for i, (k, t) in enumerate(tokens) if k == "code" and t in "0#?."), len(tokens))
    tokens = [("lit", t) if i < lead and t == "," else (k, t) for i, (k, t) in enumerate(tokens)]
    # a comma after literal text, and a comma or a second point after the decimal point, show as
    # themselves (Excel-saved test.xlsx of the formulas project: EXTRA!A15 TEXT(1234567890,
    # "0,## ## ,##") "1,234,56 7,8 ,90", A16 TEXT(1000000.555,"0 .  # ,0.00.0,00") "1000000 .  5
    # ,5.50.000")
    tokens = [
        ("lit", t)
        if k == "code"
        and (
            (t == "," and i > 0 and tokens[i - 1] not in _PLACEHOLDERS and tokens[i - 1] != ("lit", ""))
            or (t == "." and dot is not None and i > dot)
        )
        else (k, t)
        for i, (k, t) in enumerate(tokens)
    ]
    frac_ph = [i for i in frac_ph if tokens[i][0] == "code"]
    grouping = any(
        k == "code" and t == "," and int_ph and int_ph[0] < i < int_ph[-1] for i, (k, t) in enumerate(tokens)
    )
    d = _round(abs(x), len(frac_ph))
    neg = x < 0 and d != 0 and signed
    int_str, _, frac_str = f"{d:f}".partition(".")
    int_str = int_str.lstrip("0")
    frac_str = frac_str.ljust(len(frac_ph), "0")
    out = [t if k == "lit" else (t if t not in "0#?.," else "") for k, t in tokens]
    # integer digits, right to left into the placeholders; extra digits go to the leftmost
    need = [tokens[i][1] for i in int_ph]
    ds = list(int_str)
    for n, i in enumerate(reversed(int_ph)):
        ph = need[len(int_ph) - 1 - n]
        if ds:
            out[i] = ds.pop()
        else:
            out[i] = "0" if ph == "0" else " " if ph == "?" else ""
    if int_ph and ds:
        out[int_ph[0]] = "".join(ds) + out[int_ph[0]]
    if grouping and int_ph:
        _group_in_place(out, int_ph)
    # fraction digits, left to right; an optional placeholder (# ?) shows its digit only where a
    # digit other than 0 follows or stands there, even before a 0 placeholder (Excel-saved
    # test.xlsx of the formulas project: EXTRA!A2 TEXT(1.000000001,"00###.##.0000.00")
    # "001..0000.00")
    for n, i in enumerate(frac_ph):
        ph = tokens[i][1]
        significant = frac_str[n:].strip("0") != ""
        out[i] = frac_str[n] if ph == "0" or significant else (" " if ph == "?" else "")
    if dot is not None:
        out[dot] = "."
    return ("-" if neg else "") + "".join(out)


_DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]


def _format_date(x: float, tokens) -> str:
    text = "".join(t if k == "code" else "\x00" + t + "\x00" for k, t in tokens)
    frac_digits = max((len(m) - 1 for m in re.findall(r"\.0+", text)), default=0)
    secs = round((x - int(x)) * 86400, frac_digits)
    day = int(x)
    if secs >= 86400:
        day, secs = day + 1, secs - 86400
    y, mo, d = (int(v[0]) for v in parts(np.array([float(day)])))
    hh, rem = divmod(secs, 3600)
    mi, ss = divmod(rem, 60)
    ampm = bool(re.search(r"am/pm|a/p", text, re.I))
    pieces = re.split(r"(\x00[^\x00]*\x00)", text)
    out, last_was_h = [], False
    for piece in pieces:
        if piece.startswith("\x00"):
            out.append(piece.strip("\x00"))
            continue
        codes = _DATE_CODE.split(piece)
        for n, c in enumerate(codes):
            if not c:
                continue
            low = c.lower()
            if n % 2 == 0:
                out.append(c)
                continue
            if low[:1] in ("h", "s") and len(low) > 2:  # hhh, sss and longer are hh, ss
                low = low[:2]
            if low in ("m", "mm"):
                rest = "".join(codes[n + 1 :]).lower() + "".join(pieces[pieces.index(piece) + 1 :])
                minute = last_was_h or re.match(r"[^a-z]*s", rest) is not None
                v = int(mi) if minute else mo
                out.append(f"{v:02d}" if low == "mm" else str(v))
            elif low.startswith("[h"):
                out.append(str(int(x * 24 + 1e-9)).zfill(len(low) - 2))
            elif low.startswith("[m"):
                out.append(str(int(x * 1440 + 1e-9)).zfill(len(low) - 2))
            elif low.startswith("[s"):
                out.append(str(round(x * 86400)).zfill(len(low) - 2))
            elif low.startswith("y"):  # y and yy: two digits; yyy and more: four
                out.append(f"{y:04d}" if len(low) > 2 else f"{y % 100:02d}")
            elif low.startswith("mmm"):  # mmmmm: the month's initial; longer: its name
                name = _cal.month_name[mo]
                out.append(name[:3] if low == "mmm" else name[0] if low == "mmmmm" else name)
            elif low in ("d", "dd"):
                out.append(f"{d:02d}" if low == "dd" else str(d))
            elif low.startswith("ddd"):  # dddd and longer: the day's name
                serial = day + (1462 if DATE1904.get() else 0)
                name = _DAYS[int(serial - 1) % 7] if serial >= 1 else "Saturday"
                out.append(name[:3] if low == "ddd" else name)
            elif low in ("h", "hh") and "[h" in text.lower():  # h after [h]: the elapsed hours too
                out.append(str(int(x * 24 + 1e-9)).zfill(len(low)))
            elif low in ("s", "ss") and "[s" in text.lower():
                out.append(str(round(x * 86400)).zfill(len(low)))
            elif low in ("h", "hh"):
                h = int(hh) % 12 or 12 if ampm else int(hh)
                out.append(f"{h:02d}" if low == "hh" else str(h))
            elif low in ("s", "ss"):
                out.append(f"{int(ss):02d}" if low == "ss" else str(int(ss)))
            elif low.startswith("."):
                out.append(f"{ss - int(ss):.{len(low) - 1}f}"[1:])
            elif low == "am/pm":
                out.append("AM" if hh < 12 else "PM")
            elif low == "a/p":  # keeps the case written: a/p shows a or p
                out.append(c[0] if hh < 12 else c[2])
            last_was_h = low in ("h", "hh", "s", "ss") or low.startswith(("[h", "[s"))
    return "".join(out)


def _text_one(v, fmt):
    if isinstance(v, XlError):
        return v
    if isinstance(fmt, XlError):
        return fmt
    if isinstance(fmt, bool):
        fmt = "TRUE" if fmt else "FALSE"
    elif isinstance(fmt, float):
        fmt = number_text(fmt)
    fmt = "" if fmt is None else fmt
    if isinstance(v, bool):
        return _text_section(fmt, "TRUE" if v else "FALSE")
    if v is None:
        v = 0.0
    if fmt.count('"') % 2:  # a quote left open: Excel refuses the format
        return VALUE
    if _era(fmt):
        raise UnsupportedValue("TEXT (an era or Buddhist-year code: b, g, e)")
    if isinstance(v, str):
        n = parse_number(v)
        if n is None:
            return _text_section(fmt, v)
        v = n
    try:
        return format_value(v, fmt)
    except DateOutOfRange:
        return VALUE
    except FormatUnsupported as err:
        raise UnsupportedValue(f"TEXT ({err.args[0]})") from None
    except (ValueError, IndexError, KeyError, StopIteration):
        raise UnsupportedValue("TEXT (format not modelled)") from None


_LITERALS = re.compile(r'"[^"]*"?|\\.|_.|\*.|\[[^\]]*\]', re.S)
_WORDS = re.compile(r"general|am/pm|a/p|e[+-]", re.I)


def _era(fmt: str) -> bool:
    """Whether a format has, unquoted, one of the calendar codes the engine does not model: b
    (Buddhist year), g (era), e (era year; not E+/E- of scientific). Other letters that are no
    code are shown as written: Microsoft's guidelines ask for them quoted ("Review guidelines for
    customizing a number format"), but Mac Excel showed them bare in the formulas project's
    test.xlsx: EXTRA!A34 =TEXT(1,"[<=1]x;[<=2]a;b") "x", A36 "xxx", A3 10.93 in the format
    ``#".505#"°F"#"`` "11.505#°F#"; a quote left open is #VALUE! (A4)."""
    bare = _WORDS.sub("", _LITERALS.sub("", fmt))
    return any(ch in "bgeBG" for ch in bare)


def _text_section(fmt: str, text: str) -> str:
    """Text (and TRUE/FALSE) through the fourth section, ``"..."`` and ``\\x`` literals, ``@``."""
    secs = _sections(fmt)
    if len(secs) < 4:
        return text
    out, sec, i = [], secs[3], 0
    while i < len(sec):
        ch = sec[i]
        if ch == '"':
            j = sec.find('"', i + 1)
            j = len(sec) if j < 0 else j
            out.append(sec[i + 1 : j])
            i = j + 1
            continue
        if ch == "\\" and i + 1 < len(sec):
            out.append(sec[i + 1])
            i += 2
            continue
        out.append(text if ch == "@" else ch)
        i += 1
    return "".join(out)


def _text(value, fmt):
    return vec.elementwise(_text_one, value, fmt)


def _dollar_one(v, decimals):
    """DOLLAR(number, [decimals=2]): the number rounded to ``decimals`` (left of the point when
    negative) in Microsoft's currency format $#,##0.00_);($#,##0.00), as Excel returns it (the
    _) padding not shown: DOLLAR(1) is "$1.00", POI's FormulaEvalTestData_Copy.xlsx); more than
    127 decimals is #VALUE!. Left out, decimals is 2; left empty or a blank cell, it is 0 (an
    empty value is 0 in arithmetic: ``DOLLAR(2.5,)`` is "$3", as LibreOffice gives it)."""
    x, d = to_number(v), to_number(0.0 if decimals is None else decimals)
    if isinstance(x, XlError) or isinstance(d, XlError):
        return x if isinstance(x, XlError) else d
    d = math.trunc(d)
    if d > 127:
        return VALUE
    if d < 0:
        x = float(_round(x, d))
    body = "#,##0" + ("." + "0" * d if d > 0 else "")
    return format_value(x, f"${body};(${body})")


def _dollar(number, decimals=None):
    if decimals is None:  # left out
        return vec.elementwise(lambda v: _dollar_one(v, 2.0), number)
    return vec.elementwise(_dollar_one, number, decimals)


_TEXTFORMAT_FUNCTIONS = {"TEXT": Spec(_text, 2, 2), "DOLLAR": Spec(_dollar, 1, 2)}


# --- textmore --------------------------------------------------------------------------------------------
#
# TEXTJOIN, TEXTBEFORE, TEXTAFTER, TEXTSPLIT, UNICHAR, UNICODE, NUMBERVALUE, FIXED, ARRAYTOTEXT,
# VALUETOTEXT and the byte versions LENB, LEFTB, RIGHTB, MIDB, FINDB, SEARCHB, REPLACEB (see the
# module's docstring).


def _row(a, i: int) -> list:
    """The values of row ``i`` of a group (of its only row when it has one), in reading order."""
    arr = materialize(a)
    return arr[min(i, arr.shape[0] - 1)].ravel().tolist()


def _rows(*args) -> int:
    return max((materialize(a).shape[0] for a in args if a is not None), default=1)


def _textjoin(delimiter, ignore_empty, *texts):
    """TEXTJOIN(delimiter, ignore_empty, text1, ...): every value of the texts (ranges and arrays
    row by row) as text, joined with the delimiter; a delimiter of several values (a range or an
    array) gives them in turn (Microsoft's third example: ``TEXTJOIN(A8:D8, TRUE, A2:D7)``).
    ignore_empty leaves out empty values (blank cells and ""). An error among the values or
    delimiters is that error; a result over 32,767 characters #VALUE! (Microsoft)."""
    n = _rows(delimiter, ignore_empty, *texts)
    out = []
    for i in range(n):
        out.append(_textjoin_row(i, delimiter, ignore_empty, texts))
    return vec.cap_text(vec.from_list(out, (n, 1, 1)))


def _textjoin_row(i: int, delimiter, ignore_empty, texts):
    flag = to_number(_row(ignore_empty, i)[0]) if ignore_empty is not None else 0.0
    if isinstance(flag, XlError):
        return flag
    delims = [to_text(v) for v in _row(delimiter, i)] if delimiter is not None else [""]
    bad = next((d for d in delims if isinstance(d, XlError)), None)
    if bad is not None:
        return bad
    items = []
    for a in texts:
        if a is None:
            items.append("")
            continue
        for v in _row(a, i):
            t = to_text(v)
            if isinstance(t, XlError):
                return t
            items.append(t)
    if flag:
        items = [t for t in items if t != ""]
    parts = []
    for k, t in enumerate(items):
        if k:
            parts.append(delims[(k - 1) % len(delims)])
        parts.append(t)
        if sum(map(len, parts)) > MAX_TEXT:
            return VALUE
    return "".join(parts)


def _delimiters(arg, i: int):
    """The delimiters of an argument (a text, or a range or array of texts), or an error."""
    if arg is None:
        return []
    out = []
    for v in _row(arg, i):
        t = to_text(v)
        if isinstance(t, XlError):
            return t
        out.append(t)
    return out


def _pattern(delims: list[str], ignore_case: bool):
    """One regex matching any of the delimiters, the longest first where two start at the same
    place (an assumption: Microsoft's pages do not say which of two delimiters wins there)."""
    alts = "|".join(re.escape(d) for d in sorted(delims, key=len, reverse=True))
    return re.compile(alts, (re.I if ignore_case else 0) | re.S)


def _matches(text: str, delims: list[str], ignore_case: bool, backward: bool) -> list[tuple[int, int]]:
    """(start, end) of the delimiters' occurrences, not overlapping, from the start (or the end)."""
    if not backward:
        return [m.span() for m in _pattern(delims, ignore_case).finditer(text)]
    rev = _pattern([d[::-1] for d in delims], ignore_case).finditer(text[::-1])
    return [(len(text) - m.end(), len(text) - m.start()) for m in rev]


def _flag_arg(v, default: int):
    """match_mode / match_end: 0 or 1 (TRUE/FALSE too), else #VALUE!."""
    if v is None:
        return default
    f = to_number(v)
    if isinstance(f, XlError):
        return f
    f = math.trunc(f) if math.isfinite(f) else f
    return int(f) if f in (0, 1) else VALUE


def _text_around(after: bool):
    """TEXTBEFORE / TEXTAFTER(text, delimiter, [instance_num=1], [match_mode=0], [match_end=0],
    [if_not_found=#N/A]) as Microsoft's pages define them: the text before (after) the
    instance_num-th delimiter, counted from the end when negative; delimiter may be an array of
    delimiters (any of them matches); match_mode 1 ignores case; match_end 1 takes the end of the
    text (the start, counting from the end) as a delimiter too. An empty delimiter matches at once:
    TEXTBEFORE gives "" from the start and the whole text from the end, TEXTAFTER the reverse.
    instance_num 0, or larger than the text's length, is #VALUE!; no such delimiter is
    if_not_found (#N/A left out). TEXTBEFORE of an empty text is empty (Microsoft: "If text is an
    empty string, Excel returns empty text")."""

    def one(text, delims, n, mode, end, not_found):
        if isinstance(text, XlError):
            return text
        if isinstance(delims, XlError):
            return delims
        for x in (n, mode, end):
            if isinstance(x, XlError):
                return x
        if n == 0:
            return VALUE
        if not after and text == "":
            return ""
        if abs(n) > len(text):
            return VALUE
        spans = _matches(text, delims, bool(mode), n < 0)
        if end:
            spans.append((0, 0) if n < 0 else (len(text), len(text)))
        k = abs(n)
        if k > len(spans):
            return not_found
        start, stop = spans[k - 1]
        return text[stop:] if after else text[:start]

    def impl(text, delimiter, instance=None, match_mode=None, match_end=None, if_not_found=None):
        if any(
            x is not None and x.shape[1] * x.shape[2] > 1 for x in (text, instance, match_mode, match_end)
        ):
            raise ValueError("an array of texts or options: taken one element at a time")
        n_rows = _rows(text, delimiter, instance, match_mode, match_end, if_not_found)
        out = []
        for i in range(n_rows):
            ds = _delimiters(delimiter, i)
            ts, ns, ms, es = (
                _row(text, i),
                _row(instance, i) if instance is not None else [1.0],
                _row(match_mode, i) if match_mode is not None else [None],
                _row(match_end, i) if match_end is not None else [None],
            )
            nf = _row(if_not_found, i) if if_not_found is not None else [NA]
            n = to_number(ns[0])
            n = math.trunc(n) if isinstance(n, float) and math.isfinite(n) else n
            t = to_text(ts[0])
            out.append(one(t, ds, n, _flag_arg(ms[0], 0), _flag_arg(es[0], 0), nf[0]))
        return vec.from_list(out, (n_rows, 1, 1))

    return impl


def _textsplit(text, col_delimiter, row_delimiter=None, ignore_empty=None, match_mode=None, pad_with=None):
    """TEXTSPLIT(text, col_delimiter, [row_delimiter], [ignore_empty=FALSE], [match_mode=0],
    [pad_with=#N/A]) (Microsoft's page): the text cut into rows at the row delimiters and each row
    into columns at the column delimiters (either may be an array of delimiters, any of them
    matching; an empty or left-out one does not cut); ignore_empty drops the empty pieces two
    delimiters in a row make; rows shorter than the longest are padded with pad_with. No
    delimiter at all is #VALUE!. The result is an array (spilling in Excel 365). Of a text that is
    an array each element gives its first piece (Excel returns no nested arrays)."""
    if _rows(text, col_delimiter, row_delimiter, ignore_empty, match_mode, pad_with) > 1:
        raise ValueError("TEXTSPLIT varying by row")
    cols, rows = _delimiters(col_delimiter, 0), _delimiters(row_delimiter, 0)
    for x in (cols, rows):
        if isinstance(x, XlError):
            return vec.const(x)
    cols, rows = [d for d in cols if d], [d for d in rows if d]
    drop = to_number(_row(ignore_empty, 0)[0]) if ignore_empty is not None else 0.0
    mode = _flag_arg(_row(match_mode, 0)[0], 0) if match_mode is not None else 0
    for x in (drop, mode):
        if isinstance(x, XlError):
            return vec.const(x)
    pad = _row(pad_with, 0)[0] if pad_with is not None else NA
    if not cols and not rows:
        return vec.const(VALUE)
    values = materialize(text)
    if values.shape[1] * values.shape[2] > 1:  # each element's first piece
        return vec.elementwise(lambda v: _split(v, cols, rows, bool(drop), bool(mode), pad)[0][0], values)
    table = _split(values.ravel().tolist()[0], cols, rows, bool(drop), bool(mode), pad)
    out = np.empty((1, len(table), len(table[0])), dtype=object)
    for r, line in enumerate(table):
        out[0, r, :] = line
    return out


def _split(value, cols, rows, drop: bool, ignore_case: bool, pad) -> list[list]:
    t = to_text(value)
    if isinstance(t, XlError):
        return [[t]]

    def cut(s: str, delims: list[str]) -> list[str]:
        if not delims:
            return [s]
        pieces = _pattern(delims, ignore_case).split(s)
        return [p for p in pieces if p] if drop else pieces

    lines = [cut(line, cols) for line in cut(t, rows)]
    lines = [line for line in lines if line] or [[""]]  # (everything dropped: one empty value)
    width = max(len(line) for line in lines)
    return [line + [pad] * (width - len(line)) for line in lines]


def _unichar(n):
    """UNICHAR(number): the character of that Unicode code point (truncated); 0 or beyond the
    last code point #VALUE!, a lone surrogate half #N/A (Microsoft's UNICHAR page)."""
    if not 1 <= n <= 0x10FFFF:
        return VALUE
    return NA if 0xD800 <= n <= 0xDFFF else chr(n)


def _unicode(text: str):
    """UNICODE(text): the code point of the first character; empty text #VALUE!."""
    return float(ord(text[0])) if text else VALUE


_PLAIN_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


_OMITTED = object()  # a separator argument left out (a blank cell is given, as empty text)


def _numbervalue_one(text, decimal=_OMITTED, group=_OMITTED):
    """NUMBERVALUE(text, [decimal_separator="."], [group_separator=","]) as Microsoft's page
    defines it (en-US separators by default): only the first character of a separator counts;
    "" is 0; spaces are ignored anywhere; a decimal separator used twice, or a group separator
    after it, is #VALUE! (one before it is ignored); trailing % signs divide by 100 each; an
    invalid argument (an empty separator or a blank cell, text that is no number) is #VALUE!.

    As Excel for the Mac computed them (formulas' test.xlsx, TEXT!R27:W28): a number in
    parentheses is negative, its % signs inside and after them adding up ("(2,500.27%)%" is
    -0.250027), a sign inside them #VALUE!; a group separator given equal to the decimal one is
    #VALUE! (left out, the default "," beside a decimal "," does not count)."""
    vals = [text, decimal, group]
    for v in vals:
        if isinstance(v, XlError):
            return v
    t = to_text(text)
    dec = "." if decimal is _OMITTED else to_text(decimal)
    grp = "," if group is _OMITTED else to_text(group)
    if not dec or not grp:
        return VALUE
    dec, grp = dec[0], grp[0]
    if dec == grp and group is not _OMITTED:
        return VALUE
    s = "".join(t.split())
    if s == "":
        return 0.0
    pct = len(s) - len(s.rstrip("%"))
    s = s[: len(s) - pct]
    negative = len(s) > 1 and s[0] == "(" and s[-1] == ")" and not {dec, grp} & {"(", ")"}
    if negative:
        s = s[1:-1]
        inner = len(s) - len(s.rstrip("%"))
        s, pct = s[: len(s) - inner], pct + inner
        if s[:1] in ("+", "-"):
            return VALUE
    if dec != grp:
        head, sep, tail = s.partition(dec)
        if dec in tail or grp in tail:
            return VALUE
        s = head.replace(grp, "") + ("." if sep else "") + tail
    elif s.count(dec) > 1:
        return VALUE
    else:
        s = s.replace(dec, ".")
    if not _PLAIN_NUMBER.fullmatch(s):
        return VALUE
    try:
        x = float(s)
    except ValueError:
        return VALUE
    x = 0.0 - x if negative else x
    return x / 100.0**pct if math.isfinite(x) else VALUE


def _numbervalue(text, decimal=None, group=None):
    args = [text, decimal, group]
    while args and args[-1] is None:
        args.pop()
    return vec.elementwise(_numbervalue_one, *args)


def _fixed_one(v, decimals, no_commas):
    """FIXED(number, [decimals=2], [no_commas=FALSE]) (Microsoft's page): the number rounded
    half away from zero to ``decimals`` places (left of the point when negative) as text with a
    period and, unless no_commas, thousands commas; decimals over 127 is #VALUE!. An empty
    decimals argument is 0, as in DOLLAR. no_commas is a logical value: a number (non-zero
    TRUE), or the text "TRUE" or "FALSE" in any case; other text, "1" too, is #VALUE!."""
    x, d = to_number(v), to_number(0.0 if decimals is None else decimals)
    flat = to_bool(no_commas)  # a logical argument: text only "TRUE" or "FALSE", not "1"
    for a in (x, d, flat):
        if isinstance(a, XlError):
            return a
    d = math.trunc(d)
    if d > 127:
        return VALUE
    if d < 0:
        x = float(_round(x, d))
    body = ("0" if flat else "#,##0") + ("." + "0" * d if d > 0 else "")
    with localcontext() as ctx:  # up to 127 decimals of numbers up to 1E+308
        ctx.prec = 500
        return format_value(x, body)


def _fixed(number, decimals=None, no_commas=None):
    if decimals is None:  # left out: 2
        decimals = vec.const(2.0)
    elif decimals.dtype == object and decimals.size == 1 and decimals.ravel()[0] is None:
        decimals = vec.const(0.0)  # left empty, or a blank cell: 0
    return vec.elementwise(_fixed_one, number, decimals, vec.const(None) if no_commas is None else no_commas)


def _shown(v, strict: bool) -> str:
    """A value as VALUETOTEXT and ARRAYTOTEXT write it: numbers as General, TRUE/FALSE, errors by
    their code, blanks as nothing; text as it is, or in double quotes (doubled inside) when strict."""
    if isinstance(v, str):
        return '"' + v.replace('"', '""') + '"' if strict else v
    if isinstance(v, XlError):
        return str(v)
    return to_text(v)


def _format_code(fmt):
    f = to_number(fmt) if fmt is not None else 0.0
    if isinstance(f, XlError):
        return f
    f = math.trunc(f) if math.isfinite(f) else f  # (truncated, as Excel's whole-number arguments)
    return int(f) if f in (0, 1) else VALUE


def _valuetotext(value, fmt=None):
    """VALUETOTEXT(value, [format=0]) (Microsoft's page): the value as text, format 0 concise
    (text unchanged), 1 strict (text in quotes); an error value gives its code as text; a format
    other than 0 or 1 is #VALUE!."""

    def one(v, f):
        code = _format_code(f)
        return code if isinstance(code, XlError) else _shown(v, code == 1)

    return vec.elementwise(one, value, vec.const(None) if fmt is None else fmt)


def _arraytotext(array, fmt=None):
    """ARRAYTOTEXT(array, [format=0]) (Microsoft's page): every value of the array as
    VALUETOTEXT writes it; concise (0) joins them with ", " in reading order, strict (1) writes
    an array constant, ``{1,"a";TRUE,#N/A}``; a format other than 0 or 1 is #VALUE!.

    As Excel for the Mac computed them (formulas' test.xlsx): an array of formats gives an
    array, the whole array written once in each format (TEXT!AH3:AW3 {=ARRAYTOTEXT(C3:J3,
    C3:Q3)}); one blank cell written strict is #VALUE! (TEXT!V4 =ARRAYTOTEXT(H4,1); a blank
    among other cells is written as nothing, and concise a lone blank is left as nothing)."""
    arr = materialize(array)
    codes = vec.const(0.0) if fmt is None else materialize(fmt)
    n = max(arr.shape[0], codes.shape[0])
    out = np.empty((n, codes.shape[1], codes.shape[2]), dtype=object)
    for i in range(n):
        block = arr[min(i, arr.shape[0] - 1)]
        shown: dict[object, object] = {}
        row = codes[min(i, codes.shape[0] - 1)]
        for (r, c), f in np.ndenumerate(row):
            code = _format_code(f)
            if code not in shown:
                shown[code] = _written(block, code)
            out[i, r, c] = shown[code]
    return vec.cap_text(out)


def _written(block, code):
    """A 2-D block of values as ARRAYTOTEXT writes it in format ``code`` (an error passes)."""
    if isinstance(code, XlError):
        return code
    if code == 0:
        return ", ".join(_shown(v, False) for v in block.ravel().tolist())
    if block.size == 1 and block.ravel()[0] is None:
        return VALUE
    rows = (",".join(_shown(v, True) for v in line) for line in block.tolist())
    return "{" + ";".join(rows) + "}"


_TEXTMORE_FUNCTIONS = {
    "TEXTJOIN": Spec(_textjoin, 3, 254, "ava"),
    "TEXTBEFORE": Spec(_text_around(False), 2, 6, "vavvvv"),
    "TEXTAFTER": Spec(_text_around(True), 2, 6, "vavvvv"),
    "TEXTSPLIT": Spec(_textsplit, 2, 6, "vaavvv"),
    "UNICHAR": Spec(_each(_unichar, "n"), 1, 1),
    "UNICODE": Spec(_each(_unicode, "t"), 1, 1),
    "NUMBERVALUE": Spec(_numbervalue, 1, 3),
    "FIXED": Spec(_fixed, 1, 3),
    "VALUETOTEXT": Spec(_valuetotext, 1, 2),
    "ARRAYTOTEXT": Spec(_arraytotext, 1, 2, "av"),
    # Microsoft: the B versions count each character as one byte unless a language with a
    # double-byte character set (Japanese, Chinese, Korean) is the default; the engine assumes
    # one that is not (en-US), so they are LEN, LEFT, ... themselves
    "LENB": _TEXT_FUNCTIONS["LEN"],
    "LEFTB": _TEXT_FUNCTIONS["LEFT"],
    "RIGHTB": _TEXT_FUNCTIONS["RIGHT"],
    "MIDB": _TEXT_FUNCTIONS["MID"],
    "FINDB": _TEXTFIND_FUNCTIONS["FIND"],
    "SEARCHB": _TEXTFIND_FUNCTIONS["SEARCH"],
    "REPLACEB": _TEXTEDIT_FUNCTIONS["REPLACE"],
}


FUNCTIONS = {
    **_TEXT_FUNCTIONS,
    **_TEXTEDIT_FUNCTIONS,
    **_TEXTFIND_FUNCTIONS,
    **_TEXTFORMAT_FUNCTIONS,
    **_TEXTMORE_FUNCTIONS,
}
