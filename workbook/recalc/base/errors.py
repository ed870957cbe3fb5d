"""Typed errors of the recalculation engine, all under :class:`RecalcError` (the engine's own base:
it imports nothing of the rest of gputco, whose command line shows these errors as its own).

Each error also derives from the built-in that fits and carries structured fields, so callers can
catch ``ValueError`` or read ``err.cells`` / ``err.functions`` to show what went wrong and where.
"""

from __future__ import annotations

from collections.abc import Callable


class RecalcError(Exception):
    """Base class of every error the recalculation engine raises on purpose."""


class WorkbookFormatError(RecalcError, ValueError):
    """The file is not a readable .xlsx package (bad zip, missing part, malformed XML)."""


class LimitExceededError(WorkbookFormatError):
    """The package exceeds a safety limit (size, member count, compression ratio); see limits.py."""


class FormulaSyntaxError(RecalcError, ValueError):
    """A formula could not be parsed."""

    def __init__(self, formula: str, reason: str, cell: str = "") -> None:
        self.formula, self.reason, self.cell = formula, reason, cell
        where = f" in {cell}" if cell else ""
        shown = formula if len(formula) <= 80 else formula[:60] + "..."
        super().__init__(f"cannot parse formula{where} {shown!r}: {reason}")


class UnsupportedFunctionError(RecalcError, ValueError):
    """Formulas use functions or features the engine does not evaluate.

    ``functions`` maps each name (e.g. ``"OFFSET"``, ``"INDIRECT"``) to the cells that use it, as
    ``"Sheet!A1"`` texts. Pass ``unsupported="stored"`` to keep those cells' stored values instead.
    """

    def __init__(self, functions: dict[str, list[str]], about: Callable[[str], str] | None = None) -> None:
        self.functions = functions
        parts = []
        for name, cells in sorted(functions.items()):
            more = f" and {len(cells) - 3} more" if len(cells) > 3 else ""
            parts.append(f"{name} (in {', '.join(cells[:3])}{more})")
        # ``about`` (the function table's catalog.about) names an Excel function's category, version and page
        pages = [text for text in map(about, sorted(functions)) if about and text not in functions]
        super().__init__(
            "unsupported functions or features: "
            + "; ".join(parts)
            + ". They are never guessed; use unsupported='stored' (CLI --keep-unsupported) to keep "
            "the values stored in the file for those cells."
            + (" Microsoft's pages: " + "; ".join(pages) + "." if pages else "")
        )


class CircularReferenceError(RecalcError, ValueError):
    """Formulas refer to each other in a loop; ``cells`` lists the cells of the loop(s)."""

    def __init__(self, cells: list[str]) -> None:
        self.cells = cells
        shown = ", ".join(cells[:12]) + (f" and {len(cells) - 12} more" if len(cells) > 12 else "")
        super().__init__(f"circular reference between {len(cells)} cells: {shown}")


class RecalcTimeoutError(RecalcError, RuntimeError):
    """The command took longer than the ``timeout_s`` the caller allowed (any phase: screen,
    reading, defined names, evaluation; LibreOffice's own limit is the sandbox's)."""

    def __init__(self, timeout_s: float, done: int, total: int, stage: str | None = None) -> None:
        self.timeout_s, self.done, self.total = timeout_s, done, total
        if stage is None:
            stage = f"{done} of {total} formula groups evaluated" if total else "while reading the formulas"
        super().__init__(
            f"stopped after the time limit of {timeout_s:g} s ({stage}); raise it with "
            "--timeout SECONDS or GPUTCO_TIMEOUT=SECONDS (timeout_s in Python), or split the workbook"
        )


class UnsupportedValue(Exception):
    """A built-in met an argument it does not model exactly (e.g. a TEXT format with fractions).

    Raised while evaluating; the engine then keeps the cell's stored value and lists it under
    ``args[0]`` (e.g. ``"TEXT (fraction format)"``) as unsupported, exactly like an unsupported
    function, instead of guessing. Not a RecalcError: it never leaves the engine.
    """


class CellFailure(UnsupportedValue):
    """A built-in failed inside (a defect of the engine, not of the workbook) on one cell.

    Raised by the evaluator in place of any unexpected exception from a function, so that one
    cell's failure never takes the file down: the engine keeps that cell's stored value and lists
    it, under ``args[0]`` (``"XLOOKUP (internal error: TypeError: ...)"``), with the unsupported
    cells of the report. ``function`` is the function's name; the original exception is chained.
    """

    def __init__(self, function: str, err: BaseException) -> None:
        self.function = function
        text = " ".join(str(err).split())[:120]
        super().__init__(f"{function} (internal error: {type(err).__name__}{': ' + text if text else ''})")
