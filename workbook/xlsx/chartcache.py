"""Charts in Excel's own form: every data reference carries the values it points at.

openpyxl writes a chart's categories, values and series names as bare references
(``<cat><numRef><f>'Model'!$D$6:$E$6</f></numRef></cat>``), categories always as ``numRef`` even
over text cells. Excel writes a text category as ``strRef`` with a ``strCache``, a numeric one as
``numRef`` with a ``numCache``, values with a ``numCache`` and a series name with a ``strCache``
(ECMA-376 Part 1 §21.2.2: ``cat``, ``strRef``, ``strCache``, ``numCache``), and readers that draw from
the caches (viewers, Excel before it recalculates) show labels 1, 2, 3 or empty charts without them.

:func:`add_caches` runs on a written package whose formulas hold their cached values (after the
recalculation): it reads the referenced cells' values and rewrites the chart parts, nothing else.
A category range is text when any of its cells holds text; empty and error cells get no point
(as Excel writes them).
"""

from __future__ import annotations

import os
import re
import zipfile
from pathlib import Path
from xml.sax.saxutils import unescape

from openpyxl import load_workbook
from openpyxl.utils.cell import range_boundaries

from gputco.workbook.xlsx.sheetrows import clean_text, number_text

#: a reference in a chart part: its role (the element around it), its kind and its formula
_REF = re.compile(
    r"<(?P<p>(?:\w+:)?)(?P<role>cat|val|tx|xVal|yVal)>"
    r"<(?P=p)(?P<kind>numRef|strRef)><(?P=p)f>(?P<f>[^<]*)</(?P=p)f></(?P=p)(?P=kind)>"
)
_CHART = re.compile(r"xl/charts/chart\d+\.xml$")
#: parts larger than this are compressed fast (level 1) when the package is written again
FAST_ZIP_BYTES = 1 << 20

#: the two named entities beside &lt; &gt; &amp; (which xml.sax.saxutils.unescape knows)
_QUOTES = {"&quot;": '"', "&apos;": "'"}


def _unescape(text: str) -> str:
    """XML's five named entities in an attribute or text, ``&amp;`` last (so ``&amp;lt;`` is ``&lt;``)."""
    return unescape(text, _QUOTES)


def _split(ref: str) -> tuple[str, str]:
    """('Sheet name', 'A1:B2') of ``'Sheet name'!$A$1:$B$2``."""
    sheet, _, cells = ref.rpartition("!")
    if sheet.startswith("'") and sheet.endswith("'"):
        sheet = sheet[1:-1].replace("''", "'")
    return sheet, cells.replace("$", "")


def _read(path: Path, refs: set[str]) -> dict[str, list[tuple[str, object]]]:
    """Each reference's cells in order, as (data type, cached value)."""
    out: dict[str, list[tuple[str, object]]] = {}
    with open(path, "rb") as fh:  # a file object: openpyxl refuses names without .xlsx
        wb = load_workbook(fh, read_only=True, data_only=True)
        _read_into(wb, refs, out)
    return out


def _read_into(wb, refs: set[str], out: dict[str, list[tuple[str, object]]]) -> None:
    """Each sheet is read once, over the rows and columns all its references span."""
    try:
        by_sheet: dict[str, list[tuple[str, tuple[int, int, int, int]]]] = {}
        for ref in refs:
            sheet, cells = _split(ref)
            if sheet not in wb.sheetnames:
                raise ValueError(f"a chart refers to {ref}: no sheet {sheet!r}")
            by_sheet.setdefault(sheet, []).append((ref, range_boundaries(cells)))
        for sheet, wanted in by_sheet.items():
            lo_col = min(b[0] for _, b in wanted)
            lo_row = min(b[1] for _, b in wanted)
            hi_col = max(b[2] for _, b in wanted)
            hi_row = max(b[3] for _, b in wanted)
            grid: dict[tuple[int, int], tuple[str, object]] = {}
            rows = wb[sheet].iter_rows(min_row=lo_row, max_row=hi_row, min_col=lo_col, max_col=hi_col)
            for r, row in enumerate(rows, start=lo_row):
                for c, cell in enumerate(row, start=lo_col):
                    if cell.value is not None:
                        grid[r, c] = (getattr(cell, "data_type", "n"), cell.value)
            for ref, (min_col, min_row, max_col, max_row) in wanted:
                out[ref] = [
                    grid.get((r, c), ("n", None))  # empty cells, and rows past the sheet's end
                    for r in range(min_row, max_row + 1)
                    for c in range(min_col, max_col + 1)
                ]
    finally:
        wb.close()


def _is_number(kind: str, value: object) -> bool:
    return kind in ("n", "b") and isinstance(value, int | float) and value is not None


def _points(cells: list[tuple[str, object]], text: bool) -> list[str]:
    pts = []
    for i, (kind, value) in enumerate(cells):
        if value is None or value == "" or kind == "e":
            continue
        if text:
            shown = value if isinstance(value, str) else number_text(float(value))
            pts.append(f'<c:pt idx="{i}"><c:v>{clean_text(str(shown))}</c:v></c:pt>')
        elif _is_number(kind, value):
            pts.append(f'<c:pt idx="{i}"><c:v>{number_text(float(value))}</c:v></c:pt>')
    return pts


def _cached(match: re.Match, values: dict[str, list[tuple[str, object]]]) -> str:
    p, role, ref = match["p"], match["role"], match["f"]
    cells = values[_unescape(ref)]
    if role == "tx":
        text = True
    elif role in ("cat", "xVal"):
        text = any(
            kind in ("s", "str", "inlineStr") or isinstance(v, str) for kind, v in cells if kind != "e"
        )
    else:
        text = False
    pts = "".join(_points(cells, text)).replace("<c:", f"<{p}").replace("</c:", f"</{p}")
    n = len(cells)
    if text:
        cache = f'<{p}strCache><{p}ptCount val="{n}"/>{pts}</{p}strCache>'
        ref_xml = f"<{p}strRef><{p}f>{ref}</{p}f>{cache}</{p}strRef>"
    else:
        cache = (
            f'<{p}numCache><{p}formatCode>General</{p}formatCode><{p}ptCount val="{n}"/>{pts}</{p}numCache>'
        )
        ref_xml = f"<{p}numRef><{p}f>{ref}</{p}f>{cache}</{p}numRef>"
    return f"<{p}{role}>{ref_xml}"


def add_caches(path: str | os.PathLike) -> int:
    """Give every chart reference of the package at ``path`` its cached values, in place (text
    categories become ``strRef``); returns the number of references rewritten."""
    path = Path(path)
    with zipfile.ZipFile(path) as z:
        charts = {n: z.read(n).decode("utf-8") for n in z.namelist() if _CHART.match(n)}
    refs = {_unescape(m["f"]) for xml in charts.values() for m in _REF.finditer(xml)}
    if not refs:
        return 0
    values = _read(path, refs)
    rewritten = {name: _REF.sub(lambda m: _cached(m, values), xml) for name, xml in charts.items()}
    tmp = path.with_name(path.name + ".charts")
    try:
        with zipfile.ZipFile(path) as zin, zipfile.ZipFile(tmp, "w") as zout:
            for info in zin.infolist():
                data = (
                    rewritten[info.filename].encode("utf-8") if info.filename in rewritten else zin.read(info)
                )
                # big parts: fast compression, as the recalculation writes them (about 3x faster)
                zout.writestr(info, data, compresslevel=1 if len(data) > FAST_ZIP_BYTES else None)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return sum(len(_REF.findall(xml)) for xml in charts.values())
