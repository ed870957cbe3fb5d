"""Text editing: SUBSTITUTE, REPLACE, CHAR, CODE, CLEAN, T, PROPER (Microsoft's function reference).

- SUBSTITUTE(text, old, new, [instance]) replaces every occurrence of ``old`` (case-sensitive,
  left to right, not overlapping), or only the instance-th; an empty ``old`` changes nothing; an
  instance below 1 is #VALUE!.
- REPLACE(text, start, count, new) replaces ``count`` characters from position ``start``
  (1-based); start < 1 or count < 0 is #VALUE!.
- CHAR(n) is the character of code n in Windows-1252, Excel's character set on Windows (1..255,
  else #VALUE!); CODE(text) the code of the first character (#VALUE! for empty text).
- CLEAN removes the non-printing characters 0-31; T(value) is the value if it is text, else ""
  (of a range, its first cell);
  PROPER capitalises each letter that follows a non-letter and lowers the others.

Numbers used as text are written as Excel writes them (``to_text``); errors pass through.
"""

from __future__ import annotations

import math

from gputco.workbook.recalc.run import vec
from gputco.workbook.recalc.run.rangeval import materialize
from gputco.workbook.recalc.run.values import VALUE, XlError, to_number, to_text

from ._args import Spec, is_rangelike


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
        return bytes([n]).decode("cp1252")
    except UnicodeDecodeError:  # the five codes Windows-1252 leaves undefined
        return chr(n)


def _code(text: str):
    if not text:
        return VALUE
    try:
        return float(text[0].encode("cp1252")[0])
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


FUNCTIONS = {
    "SUBSTITUTE": Spec(_each(_substitute, "tttn"), 3, 4),
    "REPLACE": Spec(_each(_replace, "tnnt"), 4, 4),
    "CHAR": Spec(_each(_char, "n"), 1, 1),
    "CODE": Spec(_each(_code, "t"), 1, 1),
    "CLEAN": Spec(_each(_clean, "t"), 1, 1),
    "PROPER": Spec(_each(_proper, "t"), 1, 1),
    "T": Spec(_t, 1, 1, "r"),
}
