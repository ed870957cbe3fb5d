"""Running LibreOffice headless: conversions with a private profile that forces recalculation.

LibreOffice trusts the cached values in an .xlsx by default; the profile written here sets
``OOXMLRecalcMode`` (and ``ODFRecalcMode``) to 0, "always recalculate", so every formula is
recalculated on load. Each call uses its own throw-away profile, so runs never share state and
can run side by side.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from udfs.errors import GputcoError

INSTALL_HINT = "apt-get install libreoffice-calc-nogui"

_PROFILE = """<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry"
           xmlns:xs="http://www.w3.org/2001/XMLSchema"
           xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Calc/Formula/Load">
 <prop oor:name="OOXMLRecalcMode" oor:op="fuse"><value>0</value></prop></item>
<item oor:path="/org.openoffice.Office.Calc/Formula/Load">
 <prop oor:name="ODFRecalcMode" oor:op="fuse"><value>0</value></prop></item>
</oor:items>
"""


class LibreOfficeError(GputcoError, RuntimeError):
    """soffice is missing, failed, or wrote nothing."""


def soffice() -> str | None:
    """Path of the soffice executable, or None when LibreOffice is not installed."""
    return shutil.which("soffice") or shutil.which("libreoffice")


def convert(src: str | os.PathLike, out_dir: str | os.PathLike, to: str, *,
            timeout: float = 180) -> Path:
    """Convert ``src`` with LibreOffice (forced full recalculation) into ``out_dir``.

    ``to`` is a LibreOffice filter spec, e.g. ``"xlsx"`` or ``"pdf"``. Returns the written file.
    """
    exe = soffice()
    if exe is None:
        raise LibreOfficeError(f"LibreOffice (soffice) is not installed: {INSTALL_HINT}")
    src, out_dir = Path(src).resolve(), Path(out_dir).resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="gputco-lo-") as profile:
        user = Path(profile) / "user"
        user.mkdir()
        (user / "registrymodifications.xcu").write_text(_PROFILE, encoding="utf-8")
        cmd = [exe, f"-env:UserInstallation={Path(profile).as_uri()}", "--headless",
               "--norestore", "--nologo", "--convert-to", to, "--outdir", str(out_dir), str(src)]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                                  check=False, env={**os.environ, "SAL_USE_VCLPLUGIN": "svp"})
        except subprocess.TimeoutExpired:
            raise LibreOfficeError(f"soffice did not finish converting {src} in {timeout} s") \
                from None
    out = out_dir / f"{src.stem}.{to.split(':')[0]}"
    if proc.returncode != 0 or not out.exists():
        raise LibreOfficeError(f"soffice failed to convert {src} to {to} (exit "
                               f"{proc.returncode}): {(proc.stderr or proc.stdout).strip()[:300]}")
    return out
