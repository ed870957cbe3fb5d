"""The screen: what in a workbook would reach outside it if LibreOffice opened it.

gputco's engine never runs such things (they are unsupported, see ``functions.NEVER``), but
LibreOffice would: it fetches a ``WEBSERVICE`` URL, refreshes external links and data
connections, asks DDE servers and loads linked objects. So before any workbook is handed to
LibreOffice (``recalc_file(engine="auto"|"libreoffice")``, ``gputco render``, ``gputco open
--convert-to``) it is screened here, and a workbook with any finding is never handed over. The
screen parses, it does not match text:

- every part of the package that is XML (by its content type, its name, or its first bytes) is
  parsed by expat whatever encoding it declares (UTF-8, UTF-16, ...), so character references
  (``&#40;``) and comments hide nothing, and a document type declaration anywhere in any part
  is a finding (entities can name outside files);
- the formulas of every part (cells, defined names, conditional formats, data validations,
  charts, pivot caches: the text of ``f``, ``formula``, ``formula1``, ``formula2`` and
  ``definedName`` elements and ``formula`` attributes) are tokenised by the engine's own parser
  (:func:`.formula.parse.parse`): WEBSERVICE, FILTERXML, IMAGE, STOCKHISTORY, CALL, REGISTER,
  REGISTER.ID, RTD, DDE, DDE links (``cmd|'/c calc'!A0``) and references into other workbooks
  (``[1]Sheet1!A1``) are findings;
- parts are known by the relationships that point to them and by their content types, as
  Excel and LibreOffice find them (not only by their names): external links (DDE and OLE links
  included), data connections, query tables, macros (VBA projects) and ActiveX controls;
- relationships to anything outside the package (``TargetMode="External"``) other than
  hyperlinks (a hyperlink is only followed when someone clicks it).

Two part names that differ only in case are refused before this (OPC names are
case-insensitive: :func:`.limits.check_archive`). HYPERLINK is harmless (it returns its text) and
is not screened. The screen is the first line; LibreOffice also runs in a sandbox without network
(:mod:`gputco.workbook.soffice.sandbox`).
"""

from __future__ import annotations

import functools
import posixpath
import re
import zipfile
from dataclasses import dataclass

from openpyxl.formula.tokenizer import Token

from gputco.workbook.recalc.base.errors import RecalcError
from gputco.workbook.recalc.base.refs import cell_name
from gputco.workbook.recalc.formula.parse import function_name, tokenize
from gputco.workbook.recalc.read import limits as lim
from gputco.workbook.recalc.read import xmlsafe
from gputco.workbook.recalc.read.package import list_sheets, open_zip

#: functions that make a spreadsheet application reach outside the workbook
OUTSIDE = frozenset(
    {"WEBSERVICE", "FILTERXML", "IMAGE", "STOCKHISTORY", "CALL", "REGISTER", "REGISTER.ID", "RTD", "DDE"}
)
EXTERNAL_REF = "[external workbook reference]"  # the parser's name for [1]Sheet1!A1
_WORKBOOK_REF = "reference to another workbook"
_DTD = "document type declaration (DTD: entities, external files)"

#: what a part is, by the last word of a relationship type pointing to it
_BY_REL = {
    "externallink": "external link",
    "connections": "data connection",
    "querytable": "query table (external data)",
    "vbaproject": "macros (VBA project)",
    "vbaprojectsignature": "macros (VBA project)",
    "control": "ActiveX control",
    "activexcontrolbinary": "ActiveX control",
}
#: ... by the end of its content type
_BY_TYPE = {
    "spreadsheetml.externallink+xml": "external link",
    "spreadsheetml.connections+xml": "data connection",
    "spreadsheetml.querytable+xml": "query table (external data)",
    "ms-office.vbaproject": "macros (VBA project)",
    "ms-office.vbaprojectsignature": "macros (VBA project)",
    "ms-office.activex+xml": "ActiveX control",
    "ms-office.activex": "ActiveX control",
}
#: ... and by its name (a part nothing points to is still screened)
_BY_NAME = (
    (re.compile(r"(^|/)externalLinks/[^/]+\.xml$", re.I), "external link"),
    (re.compile(r"(^|/)connections\.xml$", re.I), "data connection"),
    (re.compile(r"(^|/)queryTables/[^/]+\.xml$", re.I), "query table (external data)"),
    (re.compile(r"(^|/)vbaProject\.bin$", re.I), "macros (VBA project)"),
    (re.compile(r"(^|/)activeX/[^/]+$", re.I), "ActiveX control"),
    (re.compile(r"^(Basic|Scripts)/.+", re.I), "macros (OpenDocument Basic or scripts)"),
)
_FORMULA_TAGS = frozenset({"f", "formula", "formula1", "formula2", "definedName"})
#: first bytes of an XML part in any encoding expat reads (UTF-8/16 with or without BOM)
_XML_START = (b"<", b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff", b"\x00<")
_XML_NAMES = (".xml", ".rels", ".vml")
_ODF_FORMULA = ("of:", "msoxl:", "oooc:")  # OpenDocument's formula attributes: of:=SUM([.A1])
#: namespaces OpenDocument puts before function names (OpenFormula, ODF 1.2 part 2, 6.1.5)
_ODF_PREFIXES = ("COM.MICROSOFT.", "ORG.OPENOFFICE.", "ORG.LIBREOFFICE.", "COM.SUN.STAR.SHEET.ADDIN.")
#: an OpenDocument reference into another file: ['file:///x.ods'#$Sheet1.A1], 'x.ods'#$Sheet1.A1
_ODF_OTHER_FILE = re.compile(r"'[^']*'\s*#|\]\s*#|#\s*\$")
#: OpenDocument elements that load from outside the package or run code (by local name)
_ODF_OUTSIDE = {
    "table-source": "linked sheet (table:table-source)",
    "cell-range-source": "web query or linked range (table:cell-range-source)",
    "dde-source": "DDE link",
    "dde-connection-decl": "DDE link",
    "dde-connection": "DDE link",
    "section-source": "linked section",
    "event-listener": "macro bound to an event",
    "script": "macros (office:script)",
    "module": "macros (Basic module)",
    "libraries": "macros (Basic library)",
    "library-linked": "macros (linked Basic library)",
    "library-embedded": "macros (Basic library)",
}
#: elements whose xlink:href is a hyperlink, followed only when someone clicks it
_HYPERLINKS = frozenset({"a"})
#: a link to a file or URL (a scheme, or a path leaving the package); "./Object 1" and
#: "Pictures/x.png" are the package's own parts
_OUTSIDE_HREF = re.compile(r"^\s*([a-z][a-z0-9+.-]*:|/|\\|\.\./)", re.I)


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
        dtd = next((f for f in findings if f.what == _DTD), None)
        if dtd is not None:  # the same refusal as the engine's reader gives
            super().__init__(f"{dtd.where} {xmlsafe.DTD_REFUSED}; not handed to LibreOffice")
            return
        super().__init__(
            f"not handed to LibreOffice: {describe(findings)}; LibreOffice would run "
            "them (fetch URLs, update links, start programs)"
        )


def is_dtd(finding: Finding) -> bool:
    """Whether a finding is a document type declaration (refused wherever it is)."""
    return finding.what == _DTD


def describe(findings: list[Finding], limit: int = 6) -> str:
    """The findings as one line, the first ``limit`` named and the rest counted."""
    shown = "; ".join(map(str, findings[:limit]))
    more = len(findings) - limit
    return shown + (f"; and {more} more" if more > 0 else "")


def screen(package, groups=(), *, worksheets: bool = True) -> list[Finding]:
    """Everything in an opened package (and its compiled formula ``groups``) that reaches out;
    the cells' formulas are the compiled ``groups``'. Without ``worksheets`` (for a report only,
    where LibreOffice will not open the file), a worksheet part is parsed again only where its
    bytes may hold a formula outside its cells (:func:`_may_hold_rules`: a conditional format, a
    validation) and then for those only."""
    with open_zip(package.path, package.limits) as zf:
        return list(screen_formulas(groups)) + screen_parts(
            zf, package.limits, cells=False, worksheets=worksheets
        )


def screen_file(path, limits: lim.Limits = lim.DEFAULT_LIMITS) -> list[Finding]:
    """Everything in the package at ``path`` that reaches outside, cells' formulas included
    (parsed here, not compiled): for the commands that hand a user's workbook to LibreOffice
    whole (``gputco render``, ``gputco open --convert-to``). Whatever the file's name: a zip is
    screened as a package (an OpenDocument one too: its ``of:=`` formulas), a single XML
    document (SpreadsheetML 2003, flat OpenDocument) as one part; anything else (CSV, a legacy
    binary file) holds nothing the screen can read and goes to the sandbox alone."""
    with open(path, "rb") as fh:
        head = fh.read(256)
    if not head.startswith(b"PK") and head.lstrip(b" \t\r\n").startswith(_XML_START):
        found = _Part()  # not a package but one XML document: LibreOffice would read it too
        try:
            _parse_part(None, str(path), limits, None, True, found)
        except lim.BUDGET_ERRORS:
            raise
        except RecalcError as err:
            found.findings.append(_unreadable(err, str(path)))
        return found.findings
    with open_zip(path, limits) as zf:
        lim.check_declared(zf, zf.namelist(), limits, "the package's parts")  # LibreOffice holds all
        return screen_parts(zf, limits, cells=True)


def refuse_outside(path, limits: lim.Limits = lim.DEFAULT_LIMITS) -> None:
    """Raise :class:`OutsideReachError` if the workbook at ``path`` reaches outside itself."""
    found = screen_file(path, limits)
    if found:
        raise OutsideReachError(found)


def screen_formulas(groups) -> list[Finding]:
    """Cells whose compiled formulas call an outside-reaching function or another workbook."""
    out = []
    for g in groups:
        bad = sorted(f for f in g.compiled.unsupported if f in OUTSIDE or f == EXTERNAL_REF)
        for name in bad:
            what = _WORKBOOK_REF if name == EXTERNAL_REF else name
            cells = g.cells()
            where = (
                cells[0]
                if len(cells) == 1
                else f"{g.sheet}!{cell_name(g.r0, g.col)}:{cell_name(g.r1, g.col)}"
            )
            out.append(Finding(what, where))
    return out


def called(formula: str) -> list[str]:
    """What a formula reaches outside with, as tokenised by the engine's parser (string literals
    are literals): outside-reaching functions, "DDE link", "reference to another workbook", and
    "formula that cannot be read" for one the tokenizer refuses (a DDE call such as
    ``cmd|' /C calc'!A0`` among them).

    >>> called('WEBSERVICE("http://x")&"CALL(1)"'), called("_xlfn.FILTERXML(A1,B1)"), called("RECALL(1)")
    (['WEBSERVICE'], ['FILTERXML'], [])
    >>> called("='a''b'!A2&WEBSERVICE(B1)"), called("cmd|' /C calc'!A0"), called("[1]Sheet1!A1")
    (['WEBSERVICE'], ['formula that cannot be read'], ['reference to another workbook'])
    >>> called("cmd|calc!A0")
    ['DDE link']
    """
    return list(_called(formula.strip()))


@functools.lru_cache(maxsize=4096)
def _called(formula: str) -> tuple[str, ...]:
    if not formula:
        return ()
    try:
        tokens = tokenize(formula)
    except RecalcError:  # not even tokens: never handed over
        return ("formula that cannot be read",)
    found: set[str] = set()
    for tok in tokens:
        v = tok.value
        if tok.type == Token.FUNC and tok.subtype == Token.OPEN:
            name = _odf_name(function_name(v))
        elif tok.type == Token.OPERAND and tok.subtype == Token.RANGE:
            book = v.split("!")[0] if "!" in v else ""
            if "|" in book:
                found.add("DDE link")
            elif "[" in book:
                found.add(_WORKBOOK_REF)
            if _ODF_OTHER_FILE.search(v):
                found.add(_WORKBOOK_REF)
            name = _odf_name(function_name(v + "("))  # "DDE (1)": a name, a space, then "("
        else:
            continue
        if name in OUTSIDE:
            found.add(name)
    return tuple(sorted(found))


def _odf_name(name: str) -> str:
    """A function name without OpenDocument's namespaces (``COM.MICROSOFT.WEBSERVICE``: the name
    LibreOffice writes for Excel's WEBSERVICE in an .ods, and reads back as it)."""
    for prefix in _ODF_PREFIXES:
        if name.startswith(prefix):
            return name[len(prefix) :]
    return name


def screen_parts(
    zf: zipfile.ZipFile,
    limits: lim.Limits = lim.DEFAULT_LIMITS,
    *,
    cells: bool = True,
    worksheets: bool = True,
) -> list[Finding]:
    """Parts and relationships that reach outside, and what the formulas of every XML part call
    (a worksheet's cells too when ``cells``; else only its conditional formats and validations)."""
    names = zf.namelist()
    by_lower = {n.lower(): n for n in names}
    kinds: dict[str, set[str]] = {n: set() for n in names}
    out: list[Finding] = []
    types = _content_types(zf, by_lower, limits, out)
    for n in names:
        ctype = types.get(n, "")
        for end, what in _BY_TYPE.items():
            if ctype.endswith(end):
                kinds[n].add(what)
        for pattern, what in _BY_NAME:
            if pattern.search(n):
                kinds[n].add(what)
    external: dict[str, list[Finding]] = {}
    for n in names:  # relationships first: what each part is, and links out of the package
        if not n.lower().endswith(".rels"):
            continue
        try:
            root = xmlsafe.parse_tree(lim.read_member(zf, n, limits), n)
        except lim.BUDGET_ERRORS:
            raise
        except RecalcError as err:
            external[n] = [_unreadable(err, n)]
            continue
        external[n] = []
        folder = posixpath.dirname(posixpath.dirname(n))
        for rel in root.iter():
            if rel.tag.rpartition("}")[2] != "Relationship":
                continue
            kind = rel.get("Type", "").rpartition("/")[2]
            target = rel.get("Target", "")
            if rel.get("TargetMode", "").lower() == "external":
                if kind.lower() != "hyperlink":
                    external[n].append(Finding(f"link ({kind}) to {target!r}", n))
                continue
            part = target.lstrip("/") if target.startswith("/") else posixpath.join(folder, target)
            member = by_lower.get(posixpath.normpath(part).lower())
            if member is None:
                continue
            if kind.lower() in _BY_REL:
                kinds[member].add(_BY_REL[kind.lower()])
    sheet_names = _sheet_names(zf, by_lower, limits)
    for n in names:
        sheet = sheet_names.get(n)
        part = (
            _Part()
            if sheet is not None and not worksheets and not _may_hold_rules(zf, n, limits)
            else _scan(zf, n, types.get(n, ""), limits, sheet, cells)
        )
        for what in sorted(kinds[n]):
            if what == "external link":
                what += " (DDE)" if "ddeLink" in part.tags else " (OLE)" if "oleLink" in part.tags else ""
            out.append(Finding(what, n))
        out += part.findings
        out += external.get(n, [])
    return out


class _Part:
    """What scanning one part found: findings, and the element names seen (for link kinds)."""

    def __init__(self) -> None:
        self.findings: list[Finding] = []
        self.tags: set[str] = set()


def _unreadable(err: Exception, name: str) -> Finding:
    text = str(err)
    if "declares a DTD" in text:
        return Finding(_DTD, name)
    return Finding(f"part that cannot be read ({text})", name)


def _content_types(zf, by_lower, limits, out) -> dict[str, str]:
    """Member name -> content type ([Content_Types].xml: overrides, then defaults by extension)."""
    name = by_lower.get("[content_types].xml")
    if name is None:
        return {}
    try:
        root = xmlsafe.parse_tree(lim.read_member(zf, name, limits), name)
    except lim.BUDGET_ERRORS:
        raise
    except RecalcError as err:
        out.append(_unreadable(err, name))
        return {}
    defaults, overrides = {}, {}
    for el in root.iter():
        tag = el.tag.rpartition("}")[2]
        if tag == "Default":
            defaults[el.get("Extension", "").lower()] = el.get("ContentType", "").lower()
        elif tag == "Override":
            overrides[el.get("PartName", "").lstrip("/").lower()] = el.get("ContentType", "").lower()
    types = {}
    for low, member in by_lower.items():
        ctype = overrides.get(low) or defaults.get(low.rpartition(".")[2] if "." in low else "", "")
        types[member] = ctype
    return types


def _sheet_names(zf, by_lower, limits) -> dict[str, str]:
    """Worksheet part -> sheet name (for naming cells), read through the package's one door."""
    try:
        book = list_sheets(zf, limits)
    except RecalcError:
        return {}
    return {by_lower.get(s.part.lower(), s.part): s.name for s in book.sheets if s.part}


def _is_xml(zf, name: str, ctype: str, limits: lim.Limits = lim.DEFAULT_LIMITS) -> bool:
    """Whether a part is XML by its content type, its name, or its first bytes after any
    blanks (400 leading blanks hide nothing: the blanks are read through, within the budgets)."""
    if "xml" in ctype or name.lower().endswith(_XML_NAMES):
        return True
    for piece in lim.stream_member(zf, name, limits):
        head = piece.lstrip(_BLANKS)
        if head:
            return head.startswith(_XML_START) or head[:1] in (b"\xef", b"\xff", b"\xfe")
    return False


_BLANKS = b" \t\r\n\x00"  # UTF-16's blanks include NUL bytes


#: what a worksheet's bytes hold where it has a formula outside its cells (a conditional format,
#: a validation, x14's extensions of both, a formula attribute) or a link: element and attribute
#: names, which neither a character reference nor a comment can split
_RULES = re.compile(rb"ormula|onditionalformatting|atavalidation|href", re.I)


def _may_hold_rules(zf, name: str, limits) -> bool:
    """Whether a worksheet part may hold formulas outside its cells: :data:`_RULES` found in its
    bytes, or bytes that are not UTF-8 (a UTF-16 part: parsed whole), read in pieces with an
    overlap. The report's screen parses only such worksheets again: the engine has compiled the
    cells' formulas, and most worksheets hold nothing else."""
    tail = b""
    first = True
    for piece in lim.stream_member(zf, name, limits):
        if first and (piece[:2] in (b"\xff\xfe", b"\xfe\xff") or b"\x00" in piece[:64]):
            return True
        first = False
        if _RULES.search(tail + piece):
            return True
        tail = piece[-32:]
    return False


def _scan(zf, name: str, ctype: str, limits, sheet: str | None, cells: bool) -> _Part:
    """Parse one part (if XML) and screen the formulas it holds."""
    found = _Part()
    try:
        if not _is_xml(zf, name, ctype, limits):
            return found
        if name.lower().endswith(".rels") or name.lower() == "[content_types].xml":
            return found  # parsed above
        _parse_part(zf, name, limits, sheet, cells, found)
    except lim.BUDGET_ERRORS:
        raise  # a budget: refused in its own words
    except (RecalcError, zipfile.BadZipFile, OSError, EOFError, RuntimeError) as err:
        found.findings.append(_unreadable(err, name))
    return found


def _parse_part(zf, name, limits, sheet, cells, found: _Part) -> None:
    p = xmlsafe.make_parser(namespaces=False)
    stack: list[str] = []
    text: list[str] | None = None
    where = name
    ref = ""

    def formula(value: str, at: str) -> None:
        found.findings.extend(Finding(what, at) for what in _called(value.strip()))

    styles = 0

    def start(tag: str, attrs: dict) -> None:
        nonlocal text, where, ref, styles
        local = tag.rpartition(":")[2]
        found.tags.add(local)
        if local == "xf":  # a cell format: LibreOffice lays out every one
            styles += 1
            if styles > limits.max_styles:
                raise lim.over(
                    "max_styles", f"{name} holds more than {limits.max_styles:,} cell formats", limits
                )
        if local == "c" and sheet is not None:
            ref = attrs.get("r", "")
        if local in _ODF_OUTSIDE:
            found.findings.append(Finding(_ODF_OUTSIDE[local], name))
        for key, value in attrs.items():  # a pivot cache's calculated field; OpenDocument cells
            attr = key.rpartition(":")[2].lower()  # SpreadsheetML 2003: ss:Formula
            if attr == "formula" or value.startswith(_ODF_FORMULA):
                formula(value.partition(":")[2] if value.startswith(_ODF_FORMULA) else value, name)
            elif attr == "href" and local not in _HYPERLINKS and _OUTSIDE_HREF.match(value):
                found.findings.append(
                    Finding(f"link to a file or URL outside the package ({value[:80]!r})", name)
                )
        stack.append(local)
        if local in _FORMULA_TAGS:
            in_cell = local == "f" and len(stack) > 1 and stack[-2] == "c" and sheet is not None
            if in_cell and not cells:
                return
            text = []
            if in_cell:
                where = f"{sheet}!{ref}" if sheet else name
            elif local == "definedName":
                where = f"defined name {attrs.get('name', '')}"
            else:
                where = name

    def end(tag: str) -> None:
        nonlocal text
        local = stack.pop() if stack else ""
        if text is not None and local in _FORMULA_TAGS:
            formula("".join(text), where)
            text = None

    def data(chunk: str) -> None:
        if text is not None:
            text.append(chunk)

    p.StartElementHandler = start
    p.EndElementHandler = end
    p.CharacterDataHandler = data
    for piece in lim.stream_member(zf, name, limits) if zf is not None else _pieces(name, limits):
        xmlsafe.run_piece(p, piece, name, final=False)
    xmlsafe.run_piece(p, b"", name, final=True)


def _pieces(path: str, limits: lim.Limits, piece: int = 1 << 20):
    """A file that is one XML document (SpreadsheetML 2003, flat OpenDocument), in pieces."""
    size = 0
    with open(path, "rb") as fh:
        while data := fh.read(piece):
            size += len(data)
            if size > limits.max_member_bytes:
                raise lim.over(
                    "max_member_bytes", f"{path} is larger than {limits.max_member_bytes:,} bytes", limits
                )
            yield data
