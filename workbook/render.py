"""Pictures of workbook sheets for people: LibreOffice prints the sheet to PDF, pdftoppm makes a PNG.

Only the chosen sheet is printed: a copy of the package marks every other sheet hidden (hidden
sheets are not printed), so the formulas, charts and cached values stay as they are. Each sheet's
page setup (fit to width) decides how the page looks.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import zipfile
from pathlib import Path

from .libreoffice import LibreOfficeError, convert

_SHEET_TAG = re.compile(r"<(?:\w+:)?sheet\b[^>]*/>")


def render_sheet(xlsx: str | os.PathLike, png: str | os.PathLike, sheet: str = "Compare", *,
                 dpi: int = 70) -> Path:
    """Render one sheet of ``xlsx`` to ``png`` (first page only) and return the PNG's path."""
    pdftoppm = shutil.which("pdftoppm")
    if pdftoppm is None:
        raise LibreOfficeError("pdftoppm is not installed: apt-get install poppler-utils")
    png = Path(png)
    with tempfile.TemporaryDirectory(prefix="gputco-render-") as tmp:
        only = Path(tmp) / f"{Path(xlsx).stem}.xlsx"
        _only_sheet(Path(xlsx), only, sheet)
        pdf = convert(only, Path(tmp) / "pdf", "pdf")
        stem = Path(tmp) / "page"
        proc = subprocess.run([pdftoppm, "-png", "-r", str(dpi), "-f", "1", "-l", "1",
                               "-singlefile", str(pdf), str(stem)],
                              capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise LibreOfficeError(f"pdftoppm failed: {proc.stderr.strip()[:300]}")
        png.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(f"{stem}.png", png)
    return png


def _only_sheet(src: Path, dst: Path, sheet: str) -> None:
    """Copy the .xlsx package with every sheet but ``sheet`` hidden and ``sheet`` active."""
    with zipfile.ZipFile(src) as zin:
        xml = zin.read("xl/workbook.xml").decode("utf-8")
        tags = _SHEET_TAG.findall(xml)
        names = [re.search(r'name="([^"]*)"', t).group(1) for t in tags]
        if sheet not in names:
            raise LibreOfficeError(f"no sheet {sheet!r} in {src}; sheets: {', '.join(names)}")
        for tag, name in zip(tags, names, strict=True):
            new = re.sub(r'\s+state="\w+"', "", tag)
            if name != sheet:
                new = new.replace(f'name="{name}"', f'name="{name}" state="hidden"', 1)
            xml = xml.replace(tag, new, 1)
        xml = re.sub(r'activeTab="\d+"', f'activeTab="{names.index(sheet)}"', xml)
        with zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
            for item in zin.infolist():
                data = xml.encode("utf-8") if item.filename == "xl/workbook.xml" \
                    else zin.read(item.filename)
                zout.writestr(item, data)
