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
import sys
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


def soffice_env() -> dict[str, str]:
    """The environment for soffice: ours, less this Python's own folders and variables.

    LibreOffice embeds the system's Python for macros; when the PATH starts with another Python's
    bin folder (a pyenv or virtualenv interpreter running gputco), the embedded one picks up that
    Python's standard library and fails ("can't import __main__ module"). So those folders and the
    PYTHONHOME/PYTHONPATH variables are left out.
    """
    own = {str(Path(p).resolve() / "bin") for p in {sys.prefix, sys.base_prefix, sys.exec_prefix}}
    if os.environ.get("VIRTUAL_ENV"):
        own.add(str(Path(os.environ["VIRTUAL_ENV"]).resolve() / "bin"))
    path = [d for d in os.environ.get("PATH", "").split(os.pathsep)
            if d and str(Path(d).resolve()) not in own]
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONHOME", "PYTHONPATH")}
    env["PATH"] = os.pathsep.join(path)
    env["SAL_USE_VCLPLUGIN"] = "svp"
    return env


def force_recalc(profile: str | os.PathLike) -> None:
    """Make a (private) profile recalculate every formula on load (OOXML and ODF)."""
    xcu = Path(profile) / "user" / "registrymodifications.xcu"
    xcu.parent.mkdir(parents=True, exist_ok=True)
    if not xcu.exists():
        xcu.write_text(_PROFILE, encoding="utf-8")
        return
    text = xcu.read_text(encoding="utf-8")
    if "OOXMLRecalcMode" in text and "ODFRecalcMode" in text:
        return
    items = _PROFILE[_PROFILE.index("<item"):_PROFILE.index("</oor:items>")]
    xcu.write_text(text.replace("</oor:items>", items + "</oor:items>"), encoding="utf-8")


def convert(src: str | os.PathLike, out_dir: str | os.PathLike, to: str, *,
            timeout: float = 180, profile: str | os.PathLike | None = None) -> Path:
    """Convert ``src`` with LibreOffice (forced full recalculation) into ``out_dir``.

    ``to`` is a LibreOffice filter spec, e.g. ``"xlsx"`` or ``"pdf"``. ``profile`` is a private
    profile folder to use (e.g. one with the gputco add-in); it is set to force recalculation.
    By default each call gets a throw-away profile. Returns the written file.
    """
    exe = soffice()
    if exe is None:
        raise LibreOfficeError(f"LibreOffice (soffice) is not installed: {INSTALL_HINT}")
    src, out_dir = Path(src).resolve(), Path(out_dir).resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="gputco-lo-") as throwaway:
        where = Path(profile).resolve() if profile else Path(throwaway)
        force_recalc(where)
        cmd = [exe, f"-env:UserInstallation={where.as_uri()}", "--headless",
               "--norestore", "--nologo", "--convert-to", to, "--outdir", str(out_dir), str(src)]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                                  check=False, env=soffice_env())
        except subprocess.TimeoutExpired:
            raise LibreOfficeError(f"soffice did not finish converting {src} in {timeout} s") \
                from None
    out = out_dir / f"{src.stem}.{to.split(':')[0]}"
    if proc.returncode != 0 or not out.exists():
        raise LibreOfficeError(f"soffice failed to convert {src} to {to} (exit "
                               f"{proc.returncode}): {(proc.stderr or proc.stdout).strip()[:300]}")
    return out
