"""The screen: what in a workbook would reach outside it if LibreOffice opened it.

gputco's engine never runs such things (they are unsupported, see ``functions.NEVER``), but
LibreOffice would: it fetches a ``WEBSERVICE`` URL, refreshes external links and data
connections, asks DDE servers and loads linked objects. So before any workbook is handed to
LibreOffice (``recalc_file(engine="auto"|"libreoffice")``) it is screened here, and a workbook with
any finding is never handed over. What is screened:

- functions in cell formulas (found by the engine's own parser): WEBSERVICE, FILTERXML, CALL,
  REGISTER.ID, RTD, DDE, and references into other workbooks (``[1]Sheet1!A1``);
- the same function names in defined names, conditional formats, data validations and charts;
- parts: external links (``xl/externalLinks/``, including DDE and OLE links), data connections
  (``xl/connections.xml``, query tables), macros (``vbaProject.bin``), ActiveX controls;
- relationships to anything outside the package (``TargetMode="External"``) other than
  hyperlinks (a hyperlink is only followed when someone clicks it);
- a document type declaration in any XML part (entities can name outside files; the engine's
  own reader refuses them in the parts it reads, LibreOffice would read all the others).

HYPERLINK is harmless (it returns its text; nothing is opened) and is not screened.
"""

from __future__ import annotations

import re
import zipfile
from dataclasses import dataclass

from gputco.workbook.recalc.formula.refs import cell_name
from gputco.workbook.recalc.read import limits as lim
from gputco.workbook.recalc.read import xmlsafe
from gputco.workbook.recalc.run.errors import RecalcError

#: functions that make a spreadsheet application reach outside the workbook
OUTSIDE = frozenset({"WEBSERVICE", "FILTERXML", "CALL", "REGISTER.ID", "RTD", "DDE"})
EXTERNAL_REF = "[external workbook reference]"  # the parser's name for [1]Sheet1!A1

_CALL = re.compile(
    rb"(?<![A-Za-z0-9_.])(?:_xlfn\.|_xlws\.)?(WEBSERVICE|FILTERXML|CALL|"
    rb"REGISTER\.ID|RTD|DDE)\s*\(",
    re.IGNORECASE,
)
_STRING = re.compile(r'"(?:[^"]|"")*"')
_PKG_REL = "http://schemas.openxmlformats.org/package/2006/relationships"
_PARTS = (  # (member-name pattern, what it is)
    (re.compile(r"(^|/)externalLinks/[^/]+\.xml$", re.I), "external link"),
    (re.compile(r"(^|/)connections\.xml$", re.I), "data connection"),
    (re.compile(r"(^|/)queryTables/[^/]+\.xml$", re.I), "query table (external data)"),
    (re.compile(r"(^|/)vbaProject\.bin$", re.I), "macros (VBA project)"),
    (re.compile(r"(^|/)activeX/[^/]+$", re.I), "ActiveX control"),
)
_FORMULA_PARTS = re.compile(r"(^|/)(charts/[^/]+\.xml|pivotCache/pivotCacheDefinition[^/]*\.xml)$", re.I)


@dataclass(frozen=True)
class Finding:
    """One thing that reaches outside: what it is and where (a cell, a name or a part)."""

    what: str
    where: str

    def __str__(self) -> str:
        return f"{self.what} ({self.where})"


class OutsideReachError(RecalcError, ValueError):
    """A workbook reaches outside itself, so it is not handed to LibreOffice."""

    def __init__(self, findings: list[Finding]) -> None:
        self.findings = findings
        super().__init__(
            f"not handed to LibreOffice: {describe(findings)}; LibreOffice would run "
            "them (fetch URLs, update links, start programs)"
        )


def describe(findings: list[Finding], limit: int = 6) -> str:
    """The findings as one line, the first ``limit`` named and the rest counted."""
    shown = "; ".join(map(str, findings[:limit]))
    more = len(findings) - limit
    return shown + (f"; and {more} more" if more > 0 else "")


def screen(package, groups=()) -> list[Finding]:
    """Everything in an opened package (and its compiled formula ``groups``) that reaches out."""
    found = list(screen_formulas(groups))
    for n in package.names:
        found += [Finding(name, f"defined name {n.name}") for name in called(n.formula)]
    for part in package.sheets:  # conditional formats, data validations (cells: above)
        found += [Finding(func, part.path) for func in _calls_outside_cells(part.data)]
    with zipfile.ZipFile(package.path) as zf:
        found += screen_parts(zf, package.limits)
    return found


#: ``[1]Sheet1!A1``: a reference through an external link (not ``Table1[2019]``)
_EXTERNAL = re.compile(r"(?<![\w\]])\[\d+\]")


def screen_file(path, limits: lim.Limits = lim.DEFAULT_LIMITS) -> list[Finding]:
    """:func:`screen` for a file on disk, formulas read as text (no compiling): for the commands
    that hand a user's workbook to LibreOffice whole (``gputco render``, ``gputco open
    --convert-to``)."""
    from gputco.workbook.recalc.read.package import open_package

    package = open_package(path, limits)
    found = []
    for part in package.sheets:
        for fc in part.formulas:
            if fc.text:
                where = f"{part.name}!{cell_name(fc.row, fc.col)}"
                found += [Finding(name, where) for name in called(fc.text)]
                if _EXTERNAL.search(_STRING.sub('""', fc.text)):
                    found.append(Finding("reference to another workbook", where))
    return found + screen(package)


def refuse_outside(path, limits: lim.Limits = lim.DEFAULT_LIMITS) -> None:
    """Raise :class:`OutsideReachError` if the workbook at ``path`` reaches outside itself."""
    found = screen_file(path, limits)
    if found:
        raise OutsideReachError(found)


def screen_formulas(groups) -> list[Finding]:
    """Cells whose formulas call an outside-reaching function or another workbook."""
    out = []
    for g in groups:
        bad = sorted(f for f in g.compiled.unsupported if f in OUTSIDE or f == EXTERNAL_REF)
        for name in bad:
            what = "reference to another workbook" if name == EXTERNAL_REF else name
            cells = g.cells()
            where = (
                cells[0]
                if len(cells) == 1
                else f"{g.sheet}!{cell_name(g.r0, g.col)}:{cell_name(g.r1, g.col)}"
            )
            out.append(Finding(what, where))
    return out


def called(formula: str) -> list[str]:
    """Outside-reaching functions a formula text calls (string literals ignored).

    >>> called('WEBSERVICE("http://x")&"CALL(1)"'), called("_xlfn.FILTERXML(A1,B1)"), called("RECALL(1)")
    (['WEBSERVICE'], ['FILTERXML'], [])
    """
    text = _STRING.sub('""', formula).encode("utf-8", "replace")
    return sorted({m.group(1).decode().upper() for m in _CALL.finditer(text)})


def screen_parts(zf: zipfile.ZipFile, limits: lim.Limits = lim.DEFAULT_LIMITS) -> list[Finding]:
    """Parts and relationships that reach outside, and outside-reaching functions in charts'
    and pivot caches' formulas."""
    out = []
    for name in zf.namelist():
        try:
            out += _screen_part(zf, name, limits)
        except (RecalcError, zipfile.BadZipFile, OSError, EOFError) as err:  # damaged: not handed
            out.append(Finding(f"part that cannot be read ({err})", name))
    return out


def _screen_part(zf: zipfile.ZipFile, name: str, limits: lim.Limits) -> list[Finding]:
    out = []
    if name.lower().endswith((".xml", ".rels", ".vml")) and _doctype(zf, name):
        out.append(Finding("document type declaration (DTD: entities, external files)", name))
    for pattern, what in _PARTS:
        if pattern.search(name):
            out.append(Finding(what + _link_kind(zf, name, limits), name))
    if name.endswith(".rels"):
        out += _external_targets(zf, name, limits)
    elif _FORMULA_PARTS.search(name):
        out += [Finding(func, name) for func in _calls_outside_cells(lim.read_member(zf, name, limits))]
    return out


def _doctype(zf: zipfile.ZipFile, name: str) -> bool:
    """Whether a part declares a document type (which must come before its root element)."""
    with zf.open(name) as fh:
        return b"<!DOCTYPE" in fh.read(4096).upper()


def _link_kind(zf, name: str, limits) -> str:
    """For an external link part: whether it links a workbook, a DDE server or an OLE object."""
    if "externallinks/" not in name.lower():
        return ""
    head = lim.read_member(zf, name, limits)[:4096]
    for tag, kind in ((b"ddeLink", " (DDE)"), (b"oleLink", " (OLE)"), (b"externalBook", "")):
        if tag in head:
            return kind
    return ""


def _external_targets(zf, rels: str, limits) -> list[Finding]:
    root = xmlsafe.parse_tree(lim.read_member(zf, rels, limits), rels)
    out = []
    for rel in root.iter(f"{{{_PKG_REL}}}Relationship"):
        kind = rel.get("Type", "").rpartition("/")[2]
        if rel.get("TargetMode") == "External" and kind != "hyperlink":
            out.append(Finding(f"link ({kind}) to {rel.get('Target', '')!r}", rels))
    return out


def _calls_outside_cells(data: bytes) -> list[str]:
    """Outside-reaching calls in a part, leaving out a worksheet's cells (screened compiled)."""
    start = data.find(b"sheetData")
    if start >= 0:
        end = data.rfind(b"sheetData>")
        if end > start:
            data = data[:start] + data[end:]
    return sorted({m.group(1).decode().upper() for m in _CALL.finditer(data)})
