"""Pictures of workbook sheets for people: LibreOffice prints to PDF, pdftoppm makes PNGs.

A copy of the package is printed, never the user's file: in the copy, the sheets not asked for are
hidden (hidden sheets are not printed) and each sheet asked for prints its head, its first ``rows``
rows (:data:`HEAD_ROWS`; all of a shorter sheet), fitted to one A3 landscape page, so page i of the
PDF is sheet i and 10-point text stays legible at 100 dpi. A cut sheet says so in the page footer
("rows 1-60 of 10,007", and the columns that fit at 80 % when the sheet is wider) and
:func:`render_workbook` reports it. One LibreOffice run renders every
sheet; if the page count does not match (an empty sheet prints no page), each sheet is rendered on
its own.

LibreOffice recalculates the copy with the gputco add-in in a private profile
(:mod:`gputco.workbook.soffice.session`), so ``=TCO_...`` cells show the values they have in Excel with
xlwings or in LibreOffice with the add-in, never a false #NAME? or a failing check.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import zipfile
from collections.abc import Sequence
from pathlib import Path
from xml.sax.saxutils import unescape

from openpyxl.utils import column_index_from_string, get_column_letter

from gputco.workbook.recalc import (
    DEFAULT_LIMITS,
    Limits,
    cell_name,
    list_sheets,
    open_package,
    open_zip,
    read_member,
    refuse_dtd,
    refuse_outside,
    takes,
)
from gputco.workbook.soffice import sandbox, session
from gputco.workbook.soffice.process import LibreOfficeError
from gputco.workbook.timebudget import time_budget, time_left
from gputco.workbook.xlsx.files import atomic_output

_SHEET_TAG = re.compile(r"<(?:\w+:)?sheet\b[^>]*/>")
_ATTR = r'{}="([^"]*)"'
_XML_PARTS = (".xml", ".rels", ".vml")
A3 = 8  # OOXML paper size code: A3 gives a fitted wide sheet twice the area of A4
DEFAULT_DPI = 100
#: rows of a long sheet printed: 60 15-point rows fill an A3 landscape page at about 85 %
HEAD_ROWS = 60
#: printable width of an A3 landscape page (16.5 in less 0.4 in margins) at the smallest scale
#: that keeps 10-point text legible at 100 dpi (80 %): columns beyond it are left out
WIDTH_INCHES = 15.7 / 0.8
_COL = re.compile(r"<(?:\w+:)?col\b[^>]*>")
_DIMENSION = re.compile(r'<(?:\w+:)?dimension\b[^>]*\bref="(?:[A-Z]+\d+:)?([A-Z]+)(\d+)"')


def sheet_names(xlsx: str | os.PathLike, limits: Limits = DEFAULT_LIMITS) -> list[tuple[str, str, bool]]:
    """(name, part path, visible) of every sheet, in workbook order, read through the one safe
    door (gputco.workbook.recalc.open_zip: package limits, DTDs refused)."""
    with open_zip(xlsx, limits) as z:
        sheets = list_sheets(z, limits).sheets
    return [(s.name, s.part or "", s.state == "visible") for s in sheets]


#: the two named entities beside &lt; &gt; &amp; (which xml.sax.saxutils.unescape knows)
_QUOTES = {"&quot;": '"', "&apos;": "'"}


def _unescape(text: str) -> str:
    """XML's five named entities in an attribute or text, ``&amp;`` last (so ``&amp;lt;`` is ``&lt;``)."""
    return unescape(text, _QUOTES)


def extent(xml: str) -> tuple[str, int]:
    """(last column letter, last row) of a sheet's used range, from its ``<dimension>``."""
    m = _DIMENSION.search(xml)
    if m:
        return m.group(1), int(m.group(2))
    rows = [int(r) for r in re.findall(r'<(?:\w+:)?row\b[^>]*\br="(\d+)"', xml)]
    return "A", max(rows, default=1)


def _drawing_extent(
    zin: zipfile.ZipFile, part: str, xml_sheet: str, limits: Limits = DEFAULT_LIMITS
) -> tuple[int, int]:
    """(last column index, last row) the sheet's charts and pictures reach (0, 0 without any).

    A two-cell anchor names its last cell; a one-cell anchor (openpyxl's) gives its size, turned
    into the sheet's column widths and default 15-point rows.
    """
    widths = _column_inches(xml_sheet)
    folder, name = part.rsplit("/", 1)
    try:
        rels = read_member(zin, f"{folder}/_rels/{name}.rels", limits).decode("utf-8")
    except KeyError:
        return 0, 0
    last_col = last_row = 0
    for rel in re.findall(r"<Relationship\b[^>]*>", rels):
        if 'relationships/drawing"' not in rel:
            continue
        target = re.search(_ATTR.format("Target"), rel).group(1)
        path = target.lstrip("/") if target.startswith("/") else str(Path(folder, target)).replace("\\", "/")
        path = os.path.normpath(path).replace("\\", "/")
        try:
            xml = read_member(zin, path, limits).decode("utf-8")
        except KeyError:
            continue
        for anchor in re.findall(
            r"<(?:\w+:)?(?:oneCellAnchor|twoCellAnchor|absoluteAnchor)\b.*?"
            r"</(?:\w+:)?(?:oneCellAnchor|twoCellAnchor|absoluteAnchor)>",
            xml,
            flags=re.S,
        ):
            cells = [
                (int(c), int(r))
                for c, r in re.findall(
                    r"<(?:\w+:)?col>(\d+)</(?:\w+:)?col>.*?<(?:\w+:)?row>(\d+)</(?:\w+:)?row>",
                    anchor,
                    flags=re.S,
                )
            ]
            if not cells:
                continue
            col, row = cells[-1]
            ext = re.search(r'<(?:\w+:)?ext\b[^>]*\bcx="(\d+)"[^>]*\bcy="(\d+)"', anchor)
            if len(cells) == 1 and ext:  # one-cell anchor: from + size (EMU)
                inches = int(ext.group(1)) / 914400
                while inches > 0:
                    col += 1
                    inches -= widths(col)
                col -= 1
                row += -(-int(ext.group(2)) // 190500)  # 15 pt = 190500 EMU
            last_col, last_row = max(last_col, col + 1), max(last_row, row + 1)
    return last_col, last_row


def _column_inches(xml: str):
    """Width in inches of column i (1-based) of a sheet, from its ``<cols>``."""
    widths: dict[int, float] = {}
    for tag in _COL.findall(xml):
        lo, hi = (int(re.search(_ATTR.format(a), tag).group(1)) for a in ("min", "max"))
        width = re.search(_ATTR.format("width"), tag)
        hidden = re.search(_ATTR.format("hidden"), tag)
        for c in range(lo, min(hi, lo + 16384) + 1):
            widths[c] = (
                -5 / 7
                if hidden and hidden.group(1) in ("1", "true")
                else float(width.group(1))
                if width
                else 8.43
            )
    return lambda c: (widths.get(c, 8.43) * 7 + 5) / 96  # Excel's character width, 96 dpi


def columns_that_fit(xml: str, last: int, inches: float = WIDTH_INCHES, first: int = 1) -> int:
    """The last of the columns ``first`` to ``last`` that fit in ``inches`` (at least ``first``)."""
    width = _column_inches(xml)
    used = 0.0
    for c in range(first, last + 1):
        used += width(c)
        if used > inches:
            return max(first, c - 1)
    return last


def parse_columns(text: str) -> tuple[int, int]:
    """(first, last) column numbers of a range of columns such as ``S:AH`` (or one column, ``S``).

    >>> parse_columns("S:AH"), parse_columns("b")
    ((19, 34), (2, 2))
    """
    m = re.fullmatch(r"\s*([A-Za-z]{1,3})\s*(?::\s*([A-Za-z]{1,3})\s*)?", text or "")
    first = last = 0
    if m:
        first = column_index_from_string(m.group(1).upper())
        last = column_index_from_string((m.group(2) or m.group(1)).upper())
    if not m or not 1 <= first <= last <= 16384:
        raise LibreOfficeError(
            f"--columns {text!r} is not a range of columns: give FIRST:LAST letters, the first not "
            "after the last, within A:XFD (e.g. S:AH)"
        )
    return first, last


def _fit_one_page(xml: str, footer: str = "") -> str:
    """Sheet XML set to print on one A3 landscape page, with ``footer`` (left) if given."""
    if re.search(r"<pageSetUpPr\b", xml):
        xml = re.sub(r'(<pageSetUpPr\b[^>]*?)\s*fitToPage="[^"]*"', r"\1", xml)
        xml = re.sub(r"<pageSetUpPr\b", '<pageSetUpPr fitToPage="1"', xml, count=1)
    elif re.search(r"<sheetPr\b[^>]*/>", xml):
        xml = re.sub(
            r"<sheetPr\b([^>]*)/>", r'<sheetPr\1><pageSetUpPr fitToPage="1"/></sheetPr>', xml, count=1
        )
    elif re.search(r"<sheetPr\b", xml):
        xml = re.sub(r"(<sheetPr\b[^>]*>)", r'\1<pageSetUpPr fitToPage="1"/>', xml, count=1)
    else:
        xml = re.sub(
            r"(<worksheet\b[^>]*>)", r'\1<sheetPr><pageSetUpPr fitToPage="1"/></sheetPr>', xml, count=1
        )
    xml = re.sub(r"<headerFooter\b.*?(</headerFooter>|/>)", "", xml, flags=re.S)
    setup = f'<pageSetup paperSize="{A3}" orientation="landscape" fitToWidth="1" fitToHeight="1"/>'
    if footer:
        text = _escape("&L&10" + footer.replace("&", "&&") + "&R&10&A")
        setup += f"<headerFooter><oddFooter>{text}</oddFooter></headerFooter>"
    if re.search(r"<pageSetup\b", xml):
        xml = re.sub(r"<pageSetup\b[^>]*?(/>|>.*?</pageSetup>)", lambda m: setup, xml, count=1, flags=re.S)
    elif re.search(r"<pageMargins\b[^>]*/>", xml):
        xml = re.sub(r"(<pageMargins\b[^>]*/>)", lambda m: m.group(1) + setup, xml, count=1)
    return xml


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _print_area(wb: str, index: int, name: str, last: tuple[str, int], first: str = "A") -> str:
    """workbook.xml with the print area of sheet ``index`` set to <first>1:<last>."""
    wb = re.sub(
        rf'<definedName\b[^>]*name="_xlnm.Print_Area"[^>]*localSheetId="{index}"[^>]*>'
        r".*?</definedName>",
        "",
        wb,
        flags=re.S,
    )
    wb = re.sub(
        rf'<definedName\b[^>]*localSheetId="{index}"[^>]*name="_xlnm.Print_Area"[^>]*>'
        r".*?</definedName>",
        "",
        wb,
        flags=re.S,
    )
    quoted = "'" + name.replace("'", "''") + "'"
    tag = (
        f'<definedName name="_xlnm.Print_Area" localSheetId="{index}">'
        f"{_escape(quoted)}!${first}$1:${last[0]}${last[1]}</definedName>"
    )
    if "<definedNames>" in wb or re.search(r"<definedNames\b", wb):
        return re.sub(r"(<definedNames\b[^>]*>)", lambda m: m.group(1) + tag, wb, count=1)
    if re.search(r"<definedNames\s*/>", wb):
        return re.sub(r"<definedNames\s*/>", f"<definedNames>{tag}</definedNames>", wb, count=1)
    return re.sub(r"(</sheets>)", rf"\1<definedNames>{tag}</definedNames>", wb, count=1)


def libreoffice_errors(src: Path, tmp: Path, limits: Limits = DEFAULT_LIMITS) -> dict[str, list[str]]:
    """Sheet -> cells ("A1") where LibreOffice's recalculation gives an error and the file holds a
    value that is not one: the shared rule (:func:`gputco.workbook.recalc.takes`) keeps the
    stored value, so the picture shows it, not LibreOffice's error."""
    from gputco.workbook.soffice.fallback import read_values

    package = open_package(src, limits)
    cells = {(p.name.upper(), fc.row, fc.col): fc for p in package.sheets for fc in p.formulas}
    if not cells:
        return {}
    tmp.mkdir(parents=True, exist_ok=True)
    made = session.convert(src, tmp, "xlsx", limits=limits)  # recalculated with the add-in, as printing does
    values = read_values(made, set(cells), package.limits)
    names = {p.name.upper(): p.name for p in package.sheets}
    out: dict[str, list[str]] = {}
    for (sheet, row, col), fc in cells.items():
        if (sheet, row, col) in values and not takes(values[(sheet, row, col)], fc.cached):
            out.setdefault(names[sheet], []).append(cell_name(row, col))
    return out


def _keep_stored(xml: str, refs: list[str]) -> str:
    """The sheet with the formulas of ``refs`` taken out, so their stored values print."""
    for ref in refs:
        xml = re.sub(
            rf'(<(?:\w+:)?c\b[^>]*?\br="{ref}"[^>]*>)\s*<(?:\w+:)?f\b[^>]*?(?:/>|>.*?</(?:\w+:)?f>)',
            r"\1",
            xml,
            count=1,
            flags=re.S,
        )
    return xml


def _copy_for_print(
    src: Path,
    dst: Path,
    chosen: set[str],
    sheets,
    rows: int = HEAD_ROWS,
    kept: dict | None = None,
    limits: Limits = DEFAULT_LIMITS,
    columns: tuple[int, int] | None = None,
) -> dict[str, str]:
    """Write the print copy; returns what is left out of each chosen sheet ("" for nothing).
    The cells of ``kept`` (sheet -> cells) print their stored values (see :func:`libreoffice_errors`);
    ``columns`` (first, last): print those columns (as many as fit), not the sheet's from A."""
    parts = {part: name for name, part, _ in sheets if name in chosen}
    shown: dict[str, str] = {}
    with open_zip(src, limits) as zin:
        wb = read_member(zin, "xl/workbook.xml", limits).decode("utf-8")
        first = None
        for i, tag in enumerate(_SHEET_TAG.findall(wb)):
            name = _unescape(re.search(_ATTR.format("name"), tag).group(1))
            new = re.sub(r'\s+state="\w+"', "", tag)
            if name not in chosen:
                new = new.replace("<sheet ", '<sheet state="hidden" ', 1) if "<sheet " in new else new
            elif first is None:
                first = i
            wb = wb.replace(tag, new, 1)
        wb = re.sub(r'activeTab="\d+"', f'activeTab="{first or 0}"', wb)
        wb = re.sub(r'firstSheet="\d+"', f'firstSheet="{first or 0}"', wb)
        index = {name: i for i, (name, _, _) in enumerate(sheets)}
        sheet_xml = {}
        for part, name in parts.items():
            xml = read_member(zin, part, limits).decode("utf-8")
            col, used = extent(xml)
            draw_col, draw_row = _drawing_extent(zin, part, xml, limits)
            used = max(used, draw_row)
            width = max(column_index_from_string(col), draw_col)
            col = get_column_letter(width)
            last = min(used, rows)
            start = 1
            if columns is not None:
                start, width = columns
            fit = columns_that_fit(xml, width, first=start)
            cut = [f"rows 1-{last} of {used:,}"] if last < used else []
            if columns is not None:
                cut.append(f"columns {get_column_letter(start)}-{get_column_letter(fit)} of A-{col}")
            elif fit < width:
                cut.append(f"columns A-{get_column_letter(fit)} of A-{col}")
            shown[name] = ", ".join(cut)
            footer = f"gputco render: {shown[name]}" if cut else ""
            sheet_xml[part] = _fit_one_page(_keep_stored(xml, (kept or {}).get(name, [])), footer).encode(
                "utf-8"
            )
            wb = _print_area(wb, index[name], name, (get_column_letter(fit), last), get_column_letter(start))
        with zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
            for item in zin.infolist():
                data = read_member(zin, item.filename, limits)
                if item.filename.endswith(_XML_PARTS):
                    refuse_dtd(data, item.filename)  # LibreOffice would expand its entities
                if item.filename == "xl/workbook.xml":
                    data = wb.encode("utf-8")
                elif item.filename in sheet_xml:
                    data = sheet_xml[item.filename]
                zout.writestr(item, data)
    return shown


def _pdf_to_pngs(pdf: Path, stem: Path, dpi: int) -> list[Path]:
    pdftoppm = shutil.which("pdftoppm")
    if pdftoppm is None:
        raise LibreOfficeError("pdftoppm is not installed: apt-get install poppler-utils")
    proc = sandbox.run(  # LibreOffice's PDF of an untrusted workbook: the same sandbox
        [pdftoppm, "-png", "-r", str(dpi), str(pdf), str(stem)],
        timeout=time_left(session.DEFAULT_TIMEOUT_S, "before pdftoppm"),
        env=dict(os.environ),
        what="pdftoppm",
        reads=[pdf],
        writes=[stem.parent],
    )
    if proc.returncode != 0:
        raise LibreOfficeError(f"pdftoppm failed: {proc.stderr.strip()[:300]}")
    return sorted(stem.parent.glob(f"{stem.name}-*.png"), key=lambda p: int(p.stem.split("-")[-1]))


def _print(
    src: Path,
    chosen: list[str],
    sheets,
    tmp: Path,
    tag: str,
    dpi: int,
    rows: int,
    shown: dict,
    kept=None,
    limits: Limits = DEFAULT_LIMITS,
    columns: tuple[int, int] | None = None,
) -> list[Path]:
    copy = tmp / tag / f"{src.stem}.xlsx"
    copy.parent.mkdir()
    shown.update(_copy_for_print(src, copy, set(chosen), sheets, rows, kept or {}, limits, columns))
    pdf = session.convert(copy, tmp / tag / "pdf", "pdf", limits=limits)  # recalculated with the add-in
    return _pdf_to_pngs(pdf, tmp / tag / "page", dpi)


def png_name(stem: str, sheet: str) -> str:
    """File name of a sheet's picture: ``<workbook stem>-<sheet>.png`` with a safe sheet name.

    >>> png_name("gpu-tco", "xlwings.conf")
    'gpu-tco-xlwings.conf.png'
    >>> png_name("book", "My Sheet/2")
    'book-My_Sheet_2.png'
    """
    return f"{stem}-{re.sub(r'[^A-Za-z0-9._-]+', '_', sheet)}.png"


def render_workbook(
    xlsx: str | os.PathLike,
    out_dir: str | os.PathLike,
    sheets: Sequence[str] | None = None,
    *,
    dpi: int = DEFAULT_DPI,
    force: bool = False,
    rows: int = HEAD_ROWS,
    shown: dict | None = None,
    stored: dict | None = None,
    limits: Limits = DEFAULT_LIMITS,
    timeout: float | None = None,
    columns: str | None = None,
) -> list[Path]:
    """Render sheets of ``xlsx`` (default: every visible sheet) to one PNG each in ``out_dir``.

    Each picture shows the sheet's first ``rows`` rows and the columns that fit (from A, or from
    the first of ``columns``, a range such as ``"S:AH"``, as many of them as fit); ``shown`` (a
    dict, if given) receives sheet name -> what is shown of a cut sheet ("rows 1-60 of 2,049"),
    "" for a whole sheet. ``stored`` (a dict, if given) receives sheet name -> the cells whose
    stored values are shown because LibreOffice gave an error for them (:func:`libreoffice_errors`).
    ``limits``: the budgets (docs/safety.md); ``timeout``: seconds for all of it, the screen,
    the reading and every LibreOffice and pdftoppm run (None: each run has 300 s).
    """
    cols = None if columns is None else parse_columns(columns)
    with time_budget(timeout):
        return _render_workbook(xlsx, out_dir, sheets, dpi, force, rows, shown, stored, limits, cols)


def _render_workbook(xlsx, out_dir, sheets, dpi, force, rows, shown, stored, limits, columns) -> list[Path]:
    if rows < 1:
        raise LibreOfficeError(f"rows must be at least 1, got {rows}")
    shown = {} if shown is None else shown
    xlsx = Path(xlsx)
    if not xlsx.is_file():
        raise LibreOfficeError(f"no such workbook: {xlsx}")
    refuse_outside(xlsx, limits)  # LibreOffice would run WEBSERVICE, links, DDE... while printing
    try:
        all_sheets = sheet_names(xlsx, limits)
    except (zipfile.BadZipFile, KeyError, AttributeError) as err:
        raise LibreOfficeError(f"{xlsx} is not a readable .xlsx workbook ({err})") from None
    if any(not part for _, part, _ in all_sheets):
        raise LibreOfficeError(f"{xlsx} lists a sheet whose part is missing (damaged)")
    names = [n for n, _, _ in all_sheets]
    if sheets:
        unknown = [s for s in sheets if s not in names]
        if unknown:
            raise LibreOfficeError(f"no sheet {unknown[0]!r} in {xlsx}; sheets: {', '.join(names)}")
        chosen = [n for n in names if n in sheets]
    else:
        chosen = [n for n, _, visible in all_sheets if visible]
    out_dir = Path(out_dir)
    targets = [out_dir / png_name(xlsx.stem, s) for s in chosen]
    existing = [t for t in targets if t.exists() or t.is_symlink()]  # a dangling link too
    if existing and not force:
        raise LibreOfficeError(f"{existing[0]} exists; refusing to overwrite it (use --force)")
    made = not out_dir.exists()  # a folder this call makes goes again if it fails
    out_dir.mkdir(parents=True, exist_ok=True)
    try:
        return _render(xlsx, out_dir, chosen, all_sheets, targets, dpi, rows, shown, stored, limits, columns)
    except BaseException:
        if made:
            shutil.rmtree(out_dir, ignore_errors=True)
        raise


def _render(
    xlsx, out_dir, chosen, all_sheets, targets, dpi, rows, shown, stored, limits, columns
) -> list[Path]:
    with tempfile.TemporaryDirectory(prefix="gputco-render-") as tmp:
        kept = libreoffice_errors(xlsx, Path(tmp) / "values", limits)
        if stored is not None:
            stored.update(kept)
        pages = _print(xlsx, chosen, all_sheets, Path(tmp), "all", dpi, rows, shown, kept, limits, columns)
        if len(pages) != len(chosen):  # an empty sheet prints no page: one run per sheet
            pages = []
            for i, sheet in enumerate(chosen):
                one = _print(
                    xlsx, [sheet], all_sheets, Path(tmp), f"s{i}", dpi, rows, shown, kept, limits, columns
                )
                if not one:
                    raise LibreOfficeError(f"sheet {sheet!r} printed no page (is it empty?)")
                pages.append(one[0])
        for page, target in zip(pages, targets, strict=True):
            with atomic_output(target, force=True) as out:
                shutil.copyfile(page, out)
    return targets


def render_sheet(
    xlsx: str | os.PathLike, png: str | os.PathLike, sheet: str = "Compare", *, dpi: int = DEFAULT_DPI
) -> Path:
    """Render one sheet of ``xlsx`` to the file ``png`` (replacing it) and return its path."""
    png = Path(png)
    with tempfile.TemporaryDirectory(prefix="gputco-render-one-") as tmp:
        (made,) = render_workbook(xlsx, tmp, [sheet], dpi=dpi)
        png.parent.mkdir(parents=True, exist_ok=True)
        with atomic_output(png, force=True) as out:
            shutil.copyfile(made, out)
    return png
