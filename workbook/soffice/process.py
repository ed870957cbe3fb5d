"""Running LibreOffice headless: conversions with a private profile that forces recalculation.

LibreOffice trusts the cached values in an .xlsx by default; the profile written here sets
``OOXMLRecalcMode`` (and ``ODFRecalcMode``) to 0, "always recalculate", so every formula is
recalculated on load. Each call uses its own throw-away profile, so runs never share state and
can run side by side.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from gputco.udfs.errors import GputcoError

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


_LIBPYTHON = re.compile(rb"libpython3\.(\d+)")
_CORE = re.compile(r"^python-core-3\.(\d+)")


def libreoffice_python(exe: str | os.PathLike) -> tuple[int, int] | None:
    """The (major, minor) version of the Python LibreOffice embeds, read from its program folder:
    the ``libpython3.X`` its pyuno module links (Linux distributions), a ``python-core-3.X.Y``
    folder (Windows) or ``LibreOfficePython.framework/Versions/3.X`` (macOS); None when the
    folder does not say.

    >>> libreoffice_python("/nowhere/soffice") is None
    True
    """
    program = Path(exe).resolve().parent
    for lib in (program / "libpyuno.so", program / "pyuno.so"):
        if lib.is_file():
            found = _LIBPYTHON.search(lib.read_bytes())
            if found:
                return 3, int(found.group(1))
    if program.is_dir():
        for entry in program.iterdir():
            found = _CORE.match(entry.name)
            if found:
                return 3, int(found.group(1))
    framework = program.parent / "Frameworks" / "LibreOfficePython.framework" / "Versions"
    if framework.is_dir():
        for entry in sorted(framework.iterdir()):
            found = re.match(r"^3\.(\d+)$", entry.name)
            if found:
                return 3, int(found.group(1))
    return None


def check_python(exe: str | os.PathLike) -> None:
    """Raise :class:`LibreOfficeError` when LibreOffice embeds another Python minor version than
    the one gputco runs in: the add-in's bridge could not import gputco's compiled packages, and
    every TCO_ cell would hold the version message instead of a number."""
    theirs, ours = libreoffice_python(exe), tuple(sys.version_info[:2])
    if theirs is not None and theirs != ours:
        lo, py = "{}.{}".format(*theirs), "{}.{}".format(*ours)
        raise LibreOfficeError(
            f"LibreOffice runs Python {lo} but gputco is installed for Python {py}: every TCO_ cell "
            f"would hold an error; install gputco with Python {lo} (python{lo} -m pip install gputco)"
        )


def soffice_env(*, headless: bool = True, base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment for soffice: ``base`` (default: ours) less other Pythons' folders and variables.

    LibreOffice embeds the system's Python for macros (and the gputco add-in's bridge); when the
    PATH starts with another Python's bin folder (a virtualenv, pyenv or conda interpreter), the
    embedded one picks up that Python's standard library and fails ("can't import __main__
    module"). So this Python's own bin folders, every virtualenv's bin folder on the PATH (one with
    ``pyvenv.cfg`` beside it), ``$VIRTUAL_ENV/bin`` and ``$CONDA_PREFIX/bin`` are left out of PATH,
    but never the system's /usr/bin, /bin, /usr/sbin and /sbin (a venv made from the system's
    Python has its base there; soffice's start script needs them); PYTHONHOME, PYTHONPATH,
    VIRTUAL_ENV and CONDA_PREFIX are unset. ``headless`` selects LibreOffice's window-less
    display (for conversions); an interactive start keeps the display.
    """
    env = dict(os.environ if base is None else base)
    own = {str(Path(p).resolve() / "bin") for p in {sys.prefix, sys.base_prefix, sys.exec_prefix}}
    own -= SYSTEM_BIN  # a venv made from the system's Python: /usr/bin stays (soffice needs it)
    for var in ("VIRTUAL_ENV", "CONDA_PREFIX"):
        if env.get(var):
            own.add(str(Path(env[var]).resolve() / "bin"))
    path = [
        d
        for d in env.get("PATH", "").split(os.pathsep)
        if d and str(Path(d).resolve()) not in own and not _venv_bin(d)
    ]
    for var in ("PYTHONHOME", "PYTHONPATH", "VIRTUAL_ENV", "CONDA_PREFIX"):
        env.pop(var, None)
    env["PATH"] = os.pathsep.join(path)
    if headless:
        env["SAL_USE_VCLPLUGIN"] = "svp"
    return env


#: the system's command folders, kept on soffice's PATH even when this Python's base lives there
SYSTEM_BIN = {"/usr/bin", "/bin", "/usr/sbin", "/sbin"}


def _venv_bin(folder: str) -> bool:
    """Whether ``folder`` is a virtualenv's bin (or Scripts) folder."""
    try:
        return (Path(folder).resolve().parent / "pyvenv.cfg").is_file()
    except OSError:
        return False


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
    items = _PROFILE[_PROFILE.index("<item") : _PROFILE.index("</oor:items>")]
    xcu.write_text(text.replace("</oor:items>", items + "</oor:items>"), encoding="utf-8")


def convert(
    src: str | os.PathLike,
    out_dir: str | os.PathLike,
    to: str,
    *,
    timeout: float = 180,
    profile: str | os.PathLike | None = None,
) -> Path:
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
        cmd = [
            exe,
            f"-env:UserInstallation={where.as_uri()}",
            "--headless",
            "--norestore",
            "--nologo",
            "--convert-to",
            to,
            "--outdir",
            str(out_dir),
            str(src),
        ]
        try:
            proc = subprocess.run(
                cmd, capture_output=True, text=True, timeout=timeout, check=False, env=soffice_env()
            )
        except subprocess.TimeoutExpired:
            raise LibreOfficeError(f"soffice did not finish converting {src} in {timeout} s") from None
    out = out_dir / f"{src.stem}.{to.split(':')[0]}"
    if proc.returncode != 0 or not out.exists():
        raise LibreOfficeError(
            f"soffice failed to convert {src} to {to} (exit "
            f"{proc.returncode}): {(proc.stderr or proc.stdout).strip()[:300]}"
        )
    return out
