"""Pictures of workbook sheets for people: LibreOffice prints to PDF, pdftoppm makes PNGs.

A copy of the package is printed, never the user's file: in the copy, the sheets not asked for are
hidden (hidden sheets are not printed) and each sheet asked for is set to fit one page, so page i of
the PDF is sheet i. Formulas, charts and cached values stay as they are. One LibreOffice run renders
every sheet; if the page count does not match (an empty sheet prints no page), each sheet is
rendered on its own.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import zipfile
from collections.abc import Sequence
from pathlib import Path

from workbook.recalc.limits import read_member
from workbook.recalc.package import list_sheets, open_zip
from workbook.recalc.xmlsafe import refuse_dtd
from workbook.soffice.process import LibreOfficeError, convert
from workbook.xlsx.files import atomic_output

_SHEET_TAG = re.compile(r"<(?:\w+:)?sheet\b[^>]*/>")
_ATTR = r'{}="([^"]*)"'
_XML_PARTS = (".xml", ".rels", ".vml")
A3 = 8  # OOXML paper size code: A3 gives a fitted wide sheet twice the area of A4
DEFAULT_DPI = 100


def sheet_names(xlsx: str | os.PathLike) -> list[tuple[str, str, bool]]:
    """(name, part path, visible) of every sheet, in workbook order, read through the one safe
    door (workbook.recalc.package.open_zip: package limits, DTDs refused)."""
    with open_zip(xlsx) as z:
        sheets = list_sheets(z).sheets
    return [(s.name, s.part or "", s.state == "visible") for s in sheets]


def _unescape(text: str) -> str:
    return (text.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"')
            .replace("&apos;", "'").replace("&amp;", "&"))


def _fit_one_page(xml: str) -> str:
    """Sheet XML set to print on one page (fitToPage, fitToWidth = fitToHeight = 1)."""
    if re.search(r"<pageSetUpPr\b", xml):
        xml = re.sub(r'(<pageSetUpPr\b[^>]*?)\s*fitToPage="[^"]*"', r"\1", xml)
        xml = re.sub(r"<pageSetUpPr\b", '<pageSetUpPr fitToPage="1"', xml, count=1)
    elif re.search(r"<sheetPr\b[^>]*/>", xml):
        xml = re.sub(r"<sheetPr\b([^>]*)/>", r'<sheetPr\1><pageSetUpPr fitToPage="1"/></sheetPr>',
                     xml, count=1)
    elif re.search(r"<sheetPr\b", xml):
        xml = re.sub(r"(<sheetPr\b[^>]*>)", r'\1<pageSetUpPr fitToPage="1"/>', xml, count=1)
    else:
        xml = re.sub(r"(<worksheet\b[^>]*>)", r'\1<sheetPr><pageSetUpPr fitToPage="1"/></sheetPr>',
                     xml, count=1)
    if re.search(r"<pageSetup\b", xml):
        for attr in ("fitToWidth", "fitToHeight", "paperSize"):
            xml = re.sub(rf'(<pageSetup\b[^>]*?)\s*{attr}="[^"]*"', r"\1", xml)
        xml = re.sub(r"<pageSetup\b", f'<pageSetup paperSize="{A3}" fitToWidth="1" fitToHeight="1"',
                     xml, count=1)
    elif re.search(r"<pageMargins\b[^>]*/>", xml):
        xml = re.sub(r"(<pageMargins\b[^>]*/>)",
                     rf'\1<pageSetup paperSize="{A3}" orientation="landscape" fitToWidth="1" '
                     'fitToHeight="1"/>', xml, count=1)
    return xml


def _copy_for_print(src: Path, dst: Path, chosen: set[str], sheets) -> None:
    parts = {part for name, part, _ in sheets if name in chosen}
    with open_zip(src) as zin:
        wb = read_member(zin, "xl/workbook.xml").decode("utf-8")
        first = None
        for i, tag in enumerate(_SHEET_TAG.findall(wb)):
            name = _unescape(re.search(_ATTR.format("name"), tag).group(1))
            new = re.sub(r'\s+state="\w+"', "", tag)
            if name not in chosen:
                new = new.replace("<sheet ", '<sheet state="hidden" ', 1) \
                    if "<sheet " in new else new
            elif first is None:
                first = i
            wb = wb.replace(tag, new, 1)
        wb = re.sub(r'activeTab="\d+"', f'activeTab="{first or 0}"', wb)
        wb = re.sub(r'firstSheet="\d+"', f'firstSheet="{first or 0}"', wb)
        with zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
            for item in zin.infolist():
                data = read_member(zin, item.filename)
                if item.filename.endswith(_XML_PARTS):
                    refuse_dtd(data, item.filename)  # LibreOffice would expand its entities
                if item.filename == "xl/workbook.xml":
                    data = wb.encode("utf-8")
                elif item.filename in parts:
                    data = _fit_one_page(data.decode("utf-8")).encode("utf-8")
                zout.writestr(item, data)


def _pdf_to_pngs(pdf: Path, stem: Path, dpi: int) -> list[Path]:
    pdftoppm = shutil.which("pdftoppm")
    if pdftoppm is None:
        raise LibreOfficeError("pdftoppm is not installed: apt-get install poppler-utils")
    proc = subprocess.run([pdftoppm, "-png", "-r", str(dpi), str(pdf), str(stem)],
                          capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise LibreOfficeError(f"pdftoppm failed: {proc.stderr.strip()[:300]}")
    return sorted(stem.parent.glob(f"{stem.name}-*.png"), key=lambda p: int(p.stem.split("-")[-1]))


def _print(src: Path, chosen: list[str], sheets, tmp: Path, tag: str, dpi: int) -> list[Path]:
    copy = tmp / tag / f"{src.stem}.xlsx"
    copy.parent.mkdir()
    _copy_for_print(src, copy, set(chosen), sheets)
    pdf = convert(copy, tmp / tag / "pdf", "pdf")
    return _pdf_to_pngs(pdf, tmp / tag / "page", dpi)


def png_name(stem: str, sheet: str) -> str:
    """File name of a sheet's picture: ``<workbook stem>-<sheet>.png`` with a safe sheet name.

    >>> png_name("gpu-tco", "xlwings.conf")
    'gpu-tco-xlwings.conf.png'
    >>> png_name("book", "My Sheet/2")
    'book-My_Sheet_2.png'
    """
    return f"{stem}-{re.sub(r'[^A-Za-z0-9._-]+', '_', sheet)}.png"


def render_workbook(xlsx: str | os.PathLike, out_dir: str | os.PathLike,
                    sheets: Sequence[str] | None = None, *, dpi: int = DEFAULT_DPI,
                    force: bool = False) -> list[Path]:
    """Render sheets of ``xlsx`` (default: every visible sheet) to one PNG each in ``out_dir``."""
    xlsx = Path(xlsx)
    if not xlsx.is_file():
        raise LibreOfficeError(f"no such workbook: {xlsx}")
    try:
        all_sheets = sheet_names(xlsx)
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
    existing = [t for t in targets if t.exists()]
    if existing and not force:
        raise LibreOfficeError(f"{existing[0]} exists; refusing to overwrite it (use --force)")
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="gputco-render-") as tmp:
        pages = _print(xlsx, chosen, all_sheets, Path(tmp), "all", dpi)
        if len(pages) != len(chosen):  # an empty sheet prints no page: one run per sheet
            pages = []
            for i, sheet in enumerate(chosen):
                one = _print(xlsx, [sheet], all_sheets, Path(tmp), f"s{i}", dpi)
                if not one:
                    raise LibreOfficeError(f"sheet {sheet!r} printed no page (is it empty?)")
                pages.append(one[0])
        for page, target in zip(pages, targets, strict=True):
            with atomic_output(target, force=True) as out:
                shutil.copyfile(page, out)
    return targets


def render_sheet(xlsx: str | os.PathLike, png: str | os.PathLike, sheet: str = "Compare", *,
                 dpi: int = DEFAULT_DPI) -> Path:
    """Render one sheet of ``xlsx`` to the file ``png`` (replacing it) and return its path."""
    png = Path(png)
    with tempfile.TemporaryDirectory(prefix="gputco-render-one-") as tmp:
        (made,) = render_workbook(xlsx, tmp, [sheet], dpi=dpi)
        png.parent.mkdir(parents=True, exist_ok=True)
        with atomic_output(png, force=True) as out:
            shutil.copyfile(made, out)
    return png
