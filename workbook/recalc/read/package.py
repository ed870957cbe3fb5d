"""Open an .xlsx package: sheets, defined names, shared strings, and the raw parts.

Only what recalculation needs is parsed (workbook.xml, its relationships, sharedStrings, the
worksheets, and the application that saved the file from docProps/app.xml); every other part is
kept as raw bytes for the writer to copy unchanged. All reads go
through :mod:`.limits` and all XML through :mod:`.xmlsafe`.
"""

from __future__ import annotations

import posixpath
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from gputco.workbook.recalc.base.errors import WorkbookFormatError
from gputco.workbook.recalc.base.refs import split_cell
from gputco.workbook.recalc.base.structured import Table
from gputco.workbook.recalc.read import limits as lim
from gputco.workbook.recalc.read import xmlsafe
from gputco.workbook.recalc.read.cells import SheetPart
from gputco.workbook.recalc.read.sheetxml import read_shared_strings, read_sheet

_REL_NS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_PKG_REL_NS = "http://schemas.openxmlformats.org/package/2006/relationships"
_MAIN_NS = (
    "http://schemas.openxmlformats.org/spreadsheetml/2006/main",
    "http://purl.oclc.org/ooxml/spreadsheetml/main",
)
_OFFICE_DOC = "/officeDocument"
_APP_PROPS = "/extended-properties"  # docProps/app.xml
_APP_NS = "http://schemas.openxmlformats.org/officeDocument/2006/extended-properties"
#: docProps/app.xml is a few kilobytes; a larger one is not read (its Application taken as absent)
_MAX_APP_BYTES = 1 << 20
#: what docProps/app.xml's <Application> says of Excel for the Mac, whose CHAR and CODE use the
#: Macintosh character set (Microsoft's CHAR page)
MAC_EXCEL = "Microsoft Macintosh Excel"
#: the first bytes of an OLE compound file: what Excel writes for an encrypted workbook (and .xls)
OLE_MAGIC = bytes.fromhex("D0CF11E0A1B11AE1")


@dataclass(frozen=True)
class DefinedName:
    """A defined name; ``sheet`` is the sheet it is local to, or None for workbook scope."""

    name: str
    formula: str
    sheet: str | None = None


@dataclass
class Package:
    """An opened .xlsx package."""

    path: Path
    infos: list[zipfile.ZipInfo]
    sheets: list[SheetPart]
    names: list[DefinedName] = field(default_factory=list)
    date1904: bool = False
    limits: lim.Limits = lim.DEFAULT_LIMITS
    tables: dict[str, Table] = field(default_factory=dict)  # by upper-case name
    #: what INFO and CELL("filename") read: the worksheets' count, the calculation mode the file
    #: asks for ("Automatic" or "Manual", workbook.xml calcPr), the sheet active when it was saved
    numfile: int = 0
    calc_mode: str = "Automatic"
    active_sheet: str | None = None
    #: every sheet's name in the workbook's order, chart and dialog sheets too (SHEET, SHEETS)
    sheet_names: list[str] = field(default_factory=list)
    #: docProps/app.xml's <Application>, the program that saved the file ("" when absent)
    application: str = ""
    #: Excel's iterative calculation (workbook.xml calcPr: iterate, iterateCount, iterateDelta;
    #: ECMA-376 Part 1, 18.2.2 calcPr, defaults 100 passes and a change of 0.001): whether a
    #: circular reference is computed by repeated passes, at most how many, until no value
    #: changes by more than how much
    iterate: bool = False
    iterate_count: int = 100
    iterate_delta: float = 0.001

    @property
    def charset(self) -> str:
        """The character set of CHAR and CODE: the Macintosh one ("mac_roman") in a workbook
        Excel for the Mac saved, Windows-1252 ("cp1252") otherwise (Microsoft's CHAR page: the
        operating environment's character set).

        >>> Package(Path("a.xlsx"), [], [], application=MAC_EXCEL).charset
        'mac_roman'
        >>> Package(Path("a.xlsx"), [], [], application="Microsoft Excel").charset
        'cp1252'
        """
        return "mac_roman" if self.application.strip() == MAC_EXCEL else "cp1252"

    def sheet(self, name: str) -> SheetPart:
        """The sheet with this name (case-insensitive, as in Excel)."""
        for s in self.sheets:
            if s.name.upper() == name.upper():
                return s
        raise KeyError(name)


def open_package(path: str | Path, limits: lim.Limits = lim.DEFAULT_LIMITS) -> Package:
    """Read an .xlsx/.xlsm file's workbook structure and worksheets."""
    path = Path(path)
    with open_zip(path, limits) as zf:
        book = list_sheets(zf, limits)
        wb_root = book.root
        held = [e.part for e in book.sheets if e.kind == "worksheet" and e.part]
        lim.check_declared(zf, [book.shared_strings, *held] if book.shared_strings else held, limits)
        strings: list[str] = []
        if book.shared_strings:
            data = lim.read_member(zf, book.shared_strings, limits)
            lim.check_strings(data, book.shared_strings, limits)
            strings = read_shared_strings(data, book.shared_strings)
            del data
        sheets: list[SheetPart] = []
        tables: dict[str, Table] = {}
        members = set(zf.namelist())
        sheet_names = [entry.name for entry in book.sheets]
        cells = 0
        for entry in book.sheets:
            if entry.kind != "worksheet":
                continue  # chartsheets and dialog sheets hold no cells
            if entry.part is None:
                raise WorkbookFormatError(f"sheet {entry.name!r} points to a missing part")
            data = lim.read_member(zf, entry.part, limits)
            cells = lim.check_cells(data, entry.part, cells, limits)
            sheets.append(read_sheet(entry.name, entry.part, data, strings))
            del data  # before the next part is read
            for t in _tables(zf, members, entry.part, entry.name, limits):
                tables[t.name.upper()] = t
        names = []
        for el in _children(wb_root, "definedNames", "definedName"):
            local = el.get("localSheetId")
            scope = None
            if local is not None and local.isdigit() and int(local) < len(sheet_names):
                scope = sheet_names[int(local)]
            names.append(DefinedName(el.get("name", ""), (el.text or "").strip(), scope))
        pr = next(iter(_children(wb_root, None, "workbookPr")), None)
        date1904 = pr is not None and pr.get("date1904", "0") in ("1", "true")
        calc = next(iter(_children(wb_root, None, "calcPr")), None)
        manual = calc is not None and calc.get("calcMode", "auto") == "manual"
        iterate = calc is not None and calc.get("iterate", "0") in ("1", "true")
        count, delta = _iteration(calc) if iterate else (100, 0.001)
        view = next(iter(_children(wb_root, "bookViews", "workbookView")), None)
        tab = view.get("activeTab", "0") if view is not None else "0"
        active = sheet_names[int(tab)] if tab.isdigit() and int(tab) < len(sheet_names) else None
        return Package(
            path, zf.infolist(), sheets, names, date1904, limits, tables,
            numfile=len(sheets), calc_mode="Manual" if manual else "Automatic", active_sheet=active,
            sheet_names=sheet_names, application=_application(zf, members, limits),
            iterate=iterate, iterate_count=count, iterate_delta=delta,
        )  # fmt: skip


def _iteration(calc) -> tuple[int, float]:
    """calcPr's iterateCount and iterateDelta, their defaults where absent; a value that is no
    number (or out of range: a count below 1, a negative change) is refused, naming it."""
    count_text = "100" if calc is None else calc.get("iterateCount", "100")
    delta_text = "0.001" if calc is None else calc.get("iterateDelta", "0.001")
    try:
        count, delta = int(count_text), float(delta_text)
    except ValueError:
        raise WorkbookFormatError(
            f"workbook.xml calcPr: iterateCount {count_text!r} or iterateDelta {delta_text!r} is no number"
        ) from None
    if count < 1 or not delta >= 0:
        raise WorkbookFormatError(
            f"workbook.xml calcPr: iterateCount {count} (>= 1) or iterateDelta {delta} (>= 0) out of range"
        )
    return count, delta


def _application(zf: zipfile.ZipFile, members: set[str], limits: lim.Limits) -> str:
    """docProps/app.xml's <Application> (found through the package relationships), or "" when
    the part is absent, over :data:`_MAX_APP_BYTES` by its zip header, or no well-formed XML
    (it holds no cell: a damaged one does not stop recalculation; a DTD is refused unexpanded)."""
    part = _package_target(zf, members, limits, _APP_PROPS)
    if part not in members or zf.getinfo(part).file_size > _MAX_APP_BYTES:
        return ""
    try:
        root = xmlsafe.parse_tree(lim.read_member(zf, part, limits), part)
    except WorkbookFormatError:
        return ""
    el = root.find(f"{{{_APP_NS}}}Application")
    return (el.text or "").strip() if el is not None else ""


def _tables(zf, members, sheet_part: str, sheet: str, limits) -> list[Table]:
    """The Excel tables (ListObjects) of a worksheet, for structured references."""
    folder, base = posixpath.split(sheet_part)
    if posixpath.join(folder, "_rels", base + ".rels") not in members:
        return []
    out = []
    for target, rtype in _relationships(zf, members, sheet_part, limits).values():
        if not rtype.endswith("/table") or target not in members:
            continue
        root = xmlsafe.parse_tree(lim.read_member(zf, target, limits), target)
        ref = root.get("ref", "")
        if ":" not in ref:
            continue
        (top, left), (bottom, right) = (split_cell(x) for x in ref.split(":", 1))
        cols = tuple(c.get("name", "") for c in _children(root, "tableColumns", "tableColumn"))
        name = root.get("displayName") or root.get("name") or ""
        out.append(
            Table(
                name,
                sheet,
                top,
                left,
                bottom,
                right,
                int(root.get("headerRowCount", "1") or 1),
                int(root.get("totalsRowCount", "0") or 0),
                cols,
            )
        )
    return out


@dataclass(frozen=True)
class SheetEntry:
    """A sheet as workbook.xml lists it: name, its part (None for a missing one), its state."""

    name: str
    part: str | None
    kind: str  # "worksheet", "chartsheet", ...
    state: str  # "visible", "hidden", "veryHidden"


@dataclass
class BookParts:
    """Where a package keeps its workbook part, sheets and shared strings (nothing else read)."""

    workbook: str
    root: object  # the parsed workbook part (ElementTree element)
    sheets: list[SheetEntry]
    shared_strings: str | None


def list_sheets(zf: zipfile.ZipFile, limits: lim.Limits = lim.DEFAULT_LIMITS) -> BookParts:
    """The workbook part, its sheets in order and the shared-string part of a package opened with
    :func:`open_zip` (parts found through the relationships, as Excel does)."""
    members = set(zf.namelist())
    wb_part = _main_part(zf, members, limits)
    wb_root = xmlsafe.parse_tree(lim.read_member(zf, wb_part, limits), wb_part)
    rels = _relationships(zf, members, wb_part, limits)
    strings = next(
        (t for t, rtype in rels.values() if rtype.endswith("/sharedStrings") and t in members), None
    )
    sheets = []
    for el in _children(wb_root, "sheets", "sheet"):
        target, rtype = rels.get(el.get(f"{{{_REL_NS}}}id", ""), ("", ""))
        sheets.append(
            SheetEntry(
                el.get("name", ""),
                target if target in members else None,
                rtype.rpartition("/")[2],
                el.get("state", "visible"),
            )
        )
    return BookParts(wb_part, wb_root, sheets, strings)


def open_zip(path: str | Path, limits: lim.Limits = lim.DEFAULT_LIMITS) -> zipfile.ZipFile:
    """The package as an open zip, after the checks every untrusted file gets: the one door.

    It must be a zip (an OLE file is named as the password-protected workbook it usually is),
    within the limits on parts and sizes (limits.check_archive), with no duplicate or encrypted
    parts. Every reader of untrusted workbooks opens them here and reads their parts with
    :func:`limits.read_member` / :func:`limits.stream_member` and their XML with
    :mod:`.xmlsafe` (DTDs refused): recalculation, ``gputco render`` and .xlsx input to
    ``gputco batch``.
    """
    path = Path(path)
    head = b""
    try:
        with open(path, "rb") as fh:
            head = fh.read(8)
        zf = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as err:
        if head == OLE_MAGIC:
            raise WorkbookFormatError(
                f"{path} is a password-protected (encrypted) workbook or a legacy .xls file: an "
                "OLE compound file, not an .xlsx package; remove the password or save it as "
                ".xlsx in Excel, then try again"
            ) from None
        raise WorkbookFormatError(f"{path} is not an .xlsx file (not a zip package): {err}") from None
    try:
        lim.check_archive(zf, limits)
    except BaseException:
        zf.close()
        raise
    return zf


def _children(root, parent: str | None, child: str):
    for ns in _MAIN_NS:
        if parent is None:
            yield from root.iter(f"{{{ns}}}{child}")
        else:
            for p in root.iter(f"{{{ns}}}{parent}"):
                yield from p.iter(f"{{{ns}}}{child}")


def _package_target(zf: zipfile.ZipFile, members: set[str], limits: lim.Limits, kind: str) -> str | None:
    """The member the package relationships (_rels/.rels) name for the relationship type ending
    in ``kind``, the first one held in the package; None if there is none."""
    if "_rels/.rels" not in members:
        return None
    root = xmlsafe.parse_tree(lim.read_member(zf, "_rels/.rels", limits), "_rels/.rels")
    for rel in root.iter(f"{{{_PKG_REL_NS}}}Relationship"):
        if rel.get("Type", "").endswith(kind) and rel.get("TargetMode") != "External":
            target = rel.get("Target", "").lstrip("/")
            if target in members:
                return target
    return None


def _main_part(zf: zipfile.ZipFile, members: set[str], limits: lim.Limits) -> str:
    target = _package_target(zf, members, limits, _OFFICE_DOC)
    if target is not None:
        return target
    if "xl/workbook.xml" in members:
        return "xl/workbook.xml"
    raise WorkbookFormatError("the package has no workbook part (xl/workbook.xml)")


def _relationships(zf, members, part: str, limits) -> dict[str, tuple[str, str]]:
    """rId -> (member name, relationship type) for a part."""
    folder, base = posixpath.split(part)
    rels_name = posixpath.join(folder, "_rels", base + ".rels")
    if rels_name not in members:
        raise WorkbookFormatError(f"missing {rels_name}")
    root = xmlsafe.parse_tree(lim.read_member(zf, rels_name, limits), rels_name)
    out = {}
    for rel in root.iter(f"{{{_PKG_REL_NS}}}Relationship"):
        if rel.get("TargetMode") == "External":
            continue
        target = rel.get("Target", "")
        name = (
            target.lstrip("/")
            if target.startswith("/")
            else posixpath.normpath(posixpath.join(folder, target))
        )
        out[rel.get("Id", "")] = (name, rel.get("Type", ""))
    return out
