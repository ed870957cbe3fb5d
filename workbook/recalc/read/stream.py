"""The streaming worksheet reader: rows of one worksheet part, in bounded memory.

:mod:`.sheetxml` (and its fast path :mod:`.sheetscan`) read a whole part for the engine; batch input
(``gputco batch model.xlsx``) may be a million rows, so it reads the part piece by piece through
expat (DTDs refused, :mod:`.xmlsafe`), the values decoded by the engine's one decoder
(:func:`.cells.decode`).
"""

from __future__ import annotations

import zipfile
from collections.abc import Callable, Iterator

from gputco.workbook.recalc.base.errors import WorkbookFormatError
from gputco.workbook.recalc.base.refs import MAX_COL, cell_name, col_index
from gputco.workbook.recalc.read.cells import _NAMESPACES, decode
from gputco.workbook.recalc.read.limits import (
    DEFAULT_LIMITS,
    Limits,
    check_strings,
    read_member,
    stream_member,
)
from gputco.workbook.recalc.read.sheetxml import read_shared_strings
from gputco.workbook.recalc.read.xmlsafe import make_parser, run_piece

_TAGS = {
    f"{ns} {local}": local
    for ns in _NAMESPACES
    for local in ("sheetData", "row", "c", "f", "v", "is", "t", "rPh")
}


def shared_strings(zf: zipfile.ZipFile, member: str | None, limits: Limits = DEFAULT_LIMITS) -> list[str]:
    """The shared strings of a package (``member``: its sharedStrings part, or None)."""
    if not member:
        return []
    data = read_member(zf, member, limits)
    check_strings(data, member, limits)
    return read_shared_strings(data, member)


def stream_rows(
    zf: zipfile.ZipFile,
    part: str,
    strings: list[str],
    formula_value: Callable[[int, int], object],
    limits: Limits = DEFAULT_LIMITS,
) -> Iterator[tuple[int, dict[int, object]]]:
    """(row number, {column: value}) of every row of the worksheet ``part``, parsed piece by piece
    (memory holds one piece and the rows it completes), with DTDs refused. A formula cell's value
    is ``formula_value(row, col)``, never the value stored in the file."""
    pieces = stream_member(zf, part, limits)
    done: list[tuple[int, dict[int, object]]] = []
    st = {
        "row": 0,
        "col": 0,
        "t": "n",
        "v": None,
        "buf": None,
        "inline": None,
        "f": False,
        "rph": False,
        "cells": None,
        "data": False,
    }
    cols: dict[str, int] = {}

    def start(tag, attrs):
        name = _TAGS.get(tag)
        if name is None:
            return
        if name == "sheetData":
            st["data"] = True
        elif not st["data"]:
            return
        elif name == "row":
            r = attrs.get("r")
            st["row"] = int(r) if r and r.isdigit() else st["row"] + 1
            st["col"], st["cells"] = 0, {}
        elif name == "c":
            r = attrs.get("r")
            if r:
                letters = r.rstrip("0123456789")
                col = cols.get(letters) or cols.setdefault(letters, col_index(letters))
                st["col"] = col
            else:
                st["col"] += 1
            if not 0 < st["col"] <= MAX_COL:
                raise WorkbookFormatError(f"{part} has a cell with a bad reference {r!r}")
            st["t"], st["v"], st["inline"], st["f"] = attrs.get("t", "n"), None, None, False
        elif name == "v":
            st["buf"] = []
        elif name == "f":
            st["f"] = True
        elif name == "is":
            st["inline"] = []
        elif name == "t" and st["inline"] is not None and not st["rph"]:
            st["buf"] = []
        elif name == "rPh":
            st["rph"] = True

    def end(tag):
        name = _TAGS.get(tag)
        if name is None or not st["data"]:
            return
        if name == "c":
            if st["f"]:
                value = formula_value(st["row"], st["col"])
            else:
                try:
                    value = decode(st["t"], st["v"], st["inline"], strings, False)
                except (ValueError, IndexError) as err:
                    raise WorkbookFormatError(f"{cell_name(st['row'], st['col'])}: {err}") from None
            if value is not None:
                st["cells"][st["col"]] = value
        elif name == "v":
            st["v"], st["buf"] = "".join(st["buf"]), None
        elif name == "t" and st["inline"] is not None and st["buf"] is not None:
            st["inline"].append("".join(st["buf"]))
            st["buf"] = None
        elif name == "rPh":
            st["rph"] = False
        elif name == "row":
            done.append((st["row"], st["cells"]))
        elif name == "sheetData":
            st["data"] = False

    def chars(text):
        if st["buf"] is not None:
            st["buf"].append(text)

    p = make_parser()
    p.StartElementHandler, p.EndElementHandler, p.CharacterDataHandler = start, end, chars
    for piece in pieces:
        run_piece(p, piece, part, final=False)
        yield from done
        done.clear()
    run_piece(p, b"", part, final=True)
    yield from done
