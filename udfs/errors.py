"""One hierarchy of errors for gputco.

Every error raised on purpose by gputco derives from :class:`GputcoError` and also from the
built-in that fits (``ValueError``, ``TypeError`` or ``KeyError``), in the style of pint's errors:
callers can catch either. Each carries structured fields (``arg``, ``value``, ``valid``) and a
message that names the argument, the value and what would be accepted.

>>> try:
...     raise InputRangeError("mfu", 1.5, "(0, 1]")
... except ValueError as err:
...     print(err)
mfu must be in (0, 1], got 1.5
"""

from __future__ import annotations

import difflib
import reprlib
from collections.abc import Iterable


class GputcoError(Exception):
    """Base class of every error gputco raises on purpose."""

    #: the Excel error code the UDF layer shows for this kind of error
    excel_code = "#VALUE!"


class InputRangeError(GputcoError, ValueError):
    """A number is outside its valid range, or not finite."""

    #: how many other bad elements a message names (with their positions)
    SHOWN = 5

    def __init__(
        self, arg: str, value: object, valid: str, index: tuple[int, ...] | None = None, bad=None
    ) -> None:
        self.arg, self.value, self.valid, self.index = arg, value, valid, index
        self.bad = bad  #: positions of every bad element (a (k, ndim) integer array), if known
        where = f" (element [{', '.join(map(str, index))}])" if index is not None else ""
        must = valid if valid.startswith("a ") else f"in {valid}"
        more = ""
        if bad is not None and len(bad) > 1:
            first = ", ".join(f"[{', '.join(map(str, b))}]" for b in bad[1 : 1 + self.SHOWN].tolist())
            more = f"; {len(bad):,} elements are outside it, the next at {first}"
            more += ", ..." if len(bad) > 1 + self.SHOWN else ""
        super().__init__(f"{arg} must be {must}, got {_show(value)}{where}{more}")


class InputTypeError(GputcoError, TypeError):
    """An argument has the wrong type (text where a number is expected, and so on)."""

    def __init__(self, arg: str, value: object, expected: str) -> None:
        self.arg, self.value, self.expected = arg, value, expected
        super().__init__(f"{arg} must be {expected}, got {_show(value)} ({type(value).__name__})")


class MissingValueError(GputcoError, ValueError):
    """A required value is empty (an empty Excel cell, or a preset field the system lacks)."""

    def __init__(self, arg: str, hint: str = "") -> None:
        self.arg = arg
        super().__init__(f"{arg} is required{': ' + hint if hint else ''}")


class MissingExtraError(GputcoError, ImportError):
    """An optional dependency is not installed; the message names the pip extra that brings it.

    >>> print(MissingExtraError("xlwings", "excel", "gputco addin vba"))
    gputco addin vba needs xlwings, which is not installed: pip install 'gputco[excel]'
    """

    def __init__(self, package: str, extra: str, needed_by: str) -> None:
        self.package, self.extra = package, extra
        super().__init__(
            f"{needed_by} needs {package}, which is not installed: pip install 'gputco[{extra}]'"
        )


class InputShapeError(GputcoError, ValueError):
    """Ranges whose sizes do not fit together, or a range where a single cell is needed."""


class UnknownNameError(GputcoError, KeyError):
    """A preset, field or option name that does not exist; the message lists the valid names."""

    excel_code = "#N/A"

    def __init__(self, arg: str, value: object, valid: Iterable[str]) -> None:
        self.arg, self.value = arg, value
        self.valid = sorted(valid)
        close = difflib.get_close_matches(str(value).lower(), [v.lower() for v in self.valid], n=1)
        hint = ""
        if close:
            hint = " Did you mean " + next(v for v in self.valid if v.lower() == close[0]) + "?"
        self.message = f"unknown {arg} {value!r}; valid: {', '.join(self.valid)}.{hint}"
        super().__init__(self.message)

    def __str__(self) -> str:  # KeyError would quote the message
        return self.message


class RenamedError(UnknownNameError):
    """A name that gputco once gave to another number (a result that now carries a prefix): the
    message names the new name and what the old one means now."""

    def __init__(self, message: str, old: str = "", new: str = "") -> None:
        self.arg, self.value, self.valid = "name", old, [new] if new else []
        self.new = new
        self.message = message
        KeyError.__init__(self, message)


def _show(value: object) -> str:
    """A short readable rendering of a bad value for an error message."""
    if isinstance(value, str):
        text = repr(value[:61])
    elif isinstance(value, float):
        text = f"{value:.15g}"
    elif isinstance(value, int) and abs(value) > 10**60:  # 10**400: its first digits, no 4,300-digit limit
        text = (
            f"{str(value)[:40]}... ({len(str(abs(value))) if abs(value) < 10**4000 else 'over 4,000'} digits)"
        )
    elif isinstance(value, list | tuple | dict | set | frozenset):
        text = _BRIEF.repr(value)  # nested 3,000 deep: a few levels shown, no recursion
    else:
        text = str(value)
    return text if len(text) <= 60 else text[:57] + "..."


_BRIEF = reprlib.Repr()
_BRIEF.maxlevel, _BRIEF.maxlist, _BRIEF.maxtuple = 3, 4, 4


class NoSolutionError(GputcoError, ValueError):
    """An IRR or a payback that does not exist for these cash flows; the cell shows why. It
    depends on each element's data, so a range of cells shows it only where it holds."""

    excel_code = "#NUM!"
