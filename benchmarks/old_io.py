"""The recalculation's reading and writing as they were before the regex reader (sheetscan.py)
and the bulk writer (patch.py), for the benchmarks to time both side by side in one run.

Inside ``with expat_io():`` every worksheet part is read by expat's per-element callbacks and
patched cell by cell (``writer.patch_sheet``), the paths the engine still takes for parts
outside the plain grammar.
"""

from __future__ import annotations

import contextlib
import zipfile
from pathlib import Path

from gputco.workbook.recalc.read import sheetscan
from gputco.workbook.recalc.write import writer


@contextlib.contextmanager
def expat_io():
    scan, patch = sheetscan.scan, writer.patch_values
    sheetscan.scan = lambda *_args: None
    writer.patch_values = lambda *_args: None
    try:
        yield
    finally:
        sheetscan.scan, writer.patch_values = scan, patch


def same_parts(a: Path, b: Path, ignore: tuple[str, ...] = ()) -> tuple[int, list[str]]:
    """(number of zip members, the names of those whose bytes differ) of two packages, leaving
    out the members named in ``ignore``."""
    with zipfile.ZipFile(a) as za, zipfile.ZipFile(b) as zb:
        names = za.namelist()
        differ = [
            n for n in names if n not in ignore and (n not in zb.namelist() or za.read(n) != zb.read(n))
        ]
        return len(names), differ + [n for n in zb.namelist() if n not in names]
