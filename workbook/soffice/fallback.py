"""LibreOffice as the recalculation engine's fallback (``gputco recalc --engine auto|libreoffice``).

The engine (:mod:`gputco.workbook.recalc`) knows nothing of LibreOffice: the caller hands it
:func:`libreoffice_values` as ``fallback=``. It opens a copy of the workbook in a temporary folder
with LibreOffice (the gputco add-in in a private profile, so ``TCO_`` cells compute; every formula
recalculated on load), saves it as .xlsx and reads back the values of the cells asked for.
"""

from __future__ import annotations

import shutil
import tempfile
from collections import defaultdict
from pathlib import Path

from gputco.udfs.errors import GputcoError
from gputco.workbook.recalc import FallbackUnavailable, open_package
from gputco.workbook.soffice import process, session

#: a cell as the engine names it: (SHEET NAME IN UPPER CASE, row, column)
Cell = tuple[str, int, int]


class LibreOfficeMissing(FallbackUnavailable, process.LibreOfficeError):
    """soffice is not on the PATH."""


def libreoffice_values(src: Path, cells: set[Cell], limits, timeout: float) -> dict[Cell, object]:
    """LibreOffice's values of ``cells`` after a full recalculation of a copy of ``src``."""
    if process.soffice() is None:
        raise LibreOfficeMissing(
            f"LibreOffice (soffice) is not installed: {process.INSTALL_HINT}",
            f"LibreOffice is not installed ({process.INSTALL_HINT})",
        )
    with tempfile.TemporaryDirectory(prefix="gputco-recalc-lo-") as tmp:
        suffix = Path(src).suffix.lower()  # a plain name: LibreOffice names its output after it
        copy = Path(tmp) / "in" / ("book" + (suffix if suffix in (".xlsx", ".xlsm") else ".xlsx"))
        copy.parent.mkdir()
        shutil.copyfile(src, copy)  # LibreOffice never sees (or locks) the original
        made = session.convert(copy, Path(tmp) / "out", "xlsx", timeout=timeout, limits=limits)
        return read_values(made, cells, limits)


#: what the engine takes for LibreOffice failing (a note with ``--engine auto``), not for a bug
libreoffice_values.errors = (GputcoError,)  # type: ignore[attr-defined]


def read_values(path: Path, cells: set[Cell], limits) -> dict[Cell, object]:
    """The stored values of ``cells`` in the .xlsx ``path`` (missing cells left out)."""
    wanted: dict[str, set[tuple[int, int]]] = defaultdict(set)
    for sheet, r, c in cells:
        wanted[sheet].add((r, c))
    out: dict[Cell, object] = {}
    for part in open_package(path, limits).sheets:
        key = part.name.upper()
        want = wanted.get(key)
        if not want:
            continue
        for fc in part.formulas:
            if (fc.row, fc.col) in want and fc.cached is not None:
                out[(key, fc.row, fc.col)] = fc.cached
        # cells of multi-cell array formulas are plain values in LibreOffice's file
        for rows, cols, vals in (
            (part.num_rows, part.num_cols, part.num_vals),
            (part.obj_rows, part.obj_cols, part.obj_vals),
        ):
            for r, c, v in zip(rows, cols, vals, strict=True):
                if (r, c) in want and (key, r, c) not in out:
                    out[(key, r, c)] = v
    return out
