"""TEXT(value, format_text): Excel number formats (en-US) as finance sheets use them.

Supported: up to four sections (``positive;negative;zero;text``); digit placeholders ``0 # ?``,
the decimal point, thousands separators (``#,##0``) and trailing-comma scaling (``0,`` thousands),
percent (``0.0%``), scientific (``0.00E+00``), literal text (``"USD "``, ``\\x``, ``$ - + ( ) : /``
and spaces; ``_x`` is a space, ``*x`` fills nothing), ``General``, and dates and times (``yyyy yy
mmmm mmm mm m dddd ddd dd d hh h mm ss s AM/PM A/P [h] [m] [s]``, ``.0`` fractions of seconds).
Colours and conditions (``[Red]``, ``[>100]``), fractions (``# ?/?``) and locale codes are
#VALUE! here rather than guessed. Rounding is half away from zero on the value's 15 significant
digits (so 2.675 shows as 2.68, as in Excel). A text value is returned as it is (or through the
fourth section's ``@``); numeric text is formatted as its number.
"""

from __future__ import annotations

import calendar as _cal
import re
from decimal import ROUND_HALF_UP, Decimal

import numpy as np

from .. import vec
from ..values import VALUE, XlError, number_text, parse_number
from . import Spec
from .dates import parts

_DATE_CODE = re.compile(r"(\[h+\]|\[m+\]|\[s+\]|yyyy|yy|mmmmm|mmmm|mmm|mm|m|dddd|ddd|dd|d|hh|h|"
                        r"ss|s|am/pm|a/p|\.0+)", re.I)


class _Unsupported(Exception):
    pass


def _sections(fmt: str) -> list[str]:
    out, cur, i, quoted = [], [], 0, False
    while i < len(fmt):
        ch = fmt[i]
        if ch == '"':
            quoted = not quoted
        elif ch == "\\" and not quoted and i + 1 < len(fmt):
            cur.append(fmt[i:i + 2])
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
            out.append(("lit", sec[i + 1:j]))
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
            tag = sec[i:j + 1] if j > 0 else sec[i:]
            if not re.fullmatch(r"\[(h+|m+|s+)\]", tag, re.I):
                raise _Unsupported(tag)  # colours, conditions, locales
            out.append(("code", tag))
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


def format_value(x: float, fmt: str) -> str:
    secs = _sections(fmt)
    if x < 0 and len(secs) >= 2:
        sec, x, signed = secs[1], -x, False
    elif x == 0 and len(secs) >= 3:
        sec, signed = secs[2], False
    else:
        sec, signed = secs[0], True
    if sec.strip().lower() == "general" or sec == "":
        return number_text(x) if sec else ""
    tokens = _tokens(sec)
    if _is_date(tokens):
        if x < 0:
            raise _Unsupported("negative date")
        return _format_date(x, tokens)
    return _format_number(x, tokens, signed)


def _round(x: float, places: int) -> Decimal:
    d = Decimal(format(x, ".15g"))
    return d.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)


def _format_number(x: float, tokens, signed: bool) -> str:
    codes = "".join(t if k == "code" else "\x00" for k, t in tokens)
    pct = codes.count("%")
    x = x * 100 ** pct
    sci = re.search(r"[Ee][+-]", codes)
    digits = [i for i, (k, t) in enumerate(tokens) if k == "code" and t in "0#?"]
    if not digits:
        lits = "".join(t for _, t in tokens)
        return ("-" if x < 0 and signed else "") + lits
    last = digits[-1]
    # trailing commas right after the last placeholder scale by 1,000 each
    j = last + 1
    while j < len(tokens) and tokens[j] == ("code", ","):
        x /= 1000.0
        tokens = [*tokens[:j], ("lit", ""), *tokens[j + 1:]]
        j += 1
    dot = next((i for i, (k, t) in enumerate(tokens) if k == "code" and t == "."), None)
    int_ph = [i for i in digits if dot is None or i < dot]
    frac_ph = [i for i in digits if dot is not None and i > dot]
    if sci:
        frac_ph = [i for i in frac_ph if i < sci.start()]
        int_ph = [i for i in int_ph if i < sci.start()]
        return _format_sci(x, tokens, int_ph, frac_ph, signed)
    grouping = any(k == "code" and t == "," and int_ph and int_ph[0] < i < int_ph[-1]
                   for i, (k, t) in enumerate(tokens))
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
        whole = "".join(out[i] for i in int_ph)
        grouped = f"{int(whole):,}" if whole.strip() else whole
        for i in int_ph:
            out[i] = ""
        out[int_ph[0]] = grouped
    # fraction digits, left to right; trailing optional zeros dropped
    keep = len(frac_str)
    for n in range(len(frac_ph) - 1, -1, -1):
        if tokens[frac_ph[n]][1] == "0" or frac_str[n] != "0":
            break
        keep = n
    for n, i in enumerate(frac_ph):
        ph = tokens[i][1]
        out[i] = frac_str[n] if n < keep else (" " if ph == "?" else "")
    if dot is not None:
        out[dot] = "."
    return ("-" if neg else "") + "".join(out)


def _format_sci(x, tokens, int_ph, frac_ph, signed) -> str:
    places = len(frac_ph)
    mant, exp = f"{abs(x):.{places}E}".split("E")
    e = int(exp)
    epos = next(i for i, (k, t) in enumerate(tokens) if k == "code" and t in "Ee")
    exp_digits = sum(1 for k, t in tokens[epos + 2:] if k == "code" and t in "0#")
    sign = "-" if e < 0 else ("+" if tokens[epos + 1][1] == "+" else "")
    head = [t for k, t in tokens[:min(int_ph + frac_ph + [epos])] if k == "lit"]
    tail = [t for k, t in tokens[epos + 2 + exp_digits:] if k == "lit" or t in "$)"]
    body = mant if places else mant.split(".")[0]
    neg = "-" if x < 0 and signed else ""
    return (neg + "".join(head) + body + tokens[epos][1] + sign + str(abs(e)).zfill(exp_digits)
            + "".join(tail))


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
            if low in ("m", "mm"):
                rest = "".join(codes[n + 1:]).lower() + "".join(pieces[pieces.index(piece) + 1:])
                minute = last_was_h or re.match(r"[^a-z]*s", rest) is not None
                v = int(mi) if minute else mo
                out.append(f"{v:02d}" if low == "mm" else str(v))
            elif low.startswith("[h"):
                out.append(str(int(x * 24 + 1e-9)).zfill(len(low) - 2))
            elif low.startswith("[m"):
                out.append(str(int(x * 1440 + 1e-9)).zfill(len(low) - 2))
            elif low.startswith("[s"):
                out.append(str(round(x * 86400)).zfill(len(low) - 2))
            elif low in ("yyyy", "yy"):
                out.append(f"{y:04d}" if low == "yyyy" else f"{y % 100:02d}")
            elif low in ("mmm", "mmmm", "mmmmm"):
                name = _cal.month_name[mo]
                out.append(name[:3] if low == "mmm" else name[0] if low == "mmmmm" else name)
            elif low in ("d", "dd"):
                out.append(f"{d:02d}" if low == "dd" else str(d))
            elif low in ("ddd", "dddd"):
                name = _DAYS[int(day - 1) % 7] if day >= 1 else "Saturday"
                out.append(name[:3] if low == "ddd" else name)
            elif low in ("h", "hh"):
                h = int(hh) % 12 or 12 if ampm else int(hh)
                out.append(f"{h:02d}" if low == "hh" else str(h))
            elif low in ("s", "ss"):
                out.append(f"{int(ss):02d}" if low == "ss" else str(int(ss)))
            elif low.startswith("."):
                out.append(f"{ss - int(ss):.{len(low) - 1}f}"[1:])
            elif low == "am/pm":
                out.append("AM" if hh < 12 else "PM")
            elif low == "a/p":
                out.append("A" if hh < 12 else "P")
            last_was_h = low in ("h", "hh") or low.startswith("[h")
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
        return "TRUE" if v else "FALSE"
    if v is None:
        v = 0.0
    if isinstance(v, str):
        n = parse_number(v)
        if n is None:
            secs = _sections(fmt)
            return secs[3].replace("@", v).replace('"', "") if len(secs) >= 4 else v
        v = n
    try:
        return format_value(v, fmt)
    except (_Unsupported, ValueError, IndexError, KeyError, StopIteration):
        return VALUE


def _text(value, fmt):
    return vec.elementwise(_text_one, value, fmt)


FUNCTIONS = {"TEXT": Spec(_text, 2, 2)}
