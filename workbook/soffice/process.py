"""Running LibreOffice headless: conversions with a private profile that forces recalculation.

LibreOffice trusts the cached values in an .xlsx by default; the profile written here sets
``OOXMLRecalcMode`` (and ``ODFRecalcMode``) to 0, "always recalculate", so every formula is
recalculated on load, and turns link updates and macros off (:data:`SETTINGS`). Each call uses
its own throw-away profile, so runs never share state and can run side by side, and runs in the
sandbox of :mod:`.sandbox` (no network, private TMPDIR, time and memory budgets).
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

from gputco.udfs.errors import GputcoError
from gputco.workbook.soffice import sandbox

INSTALL_HINT = "apt-get install libreoffice-calc-nogui"

#: (configuration path, property, type, value) set in every profile gputco runs LibreOffice with:
#: recalculate every formula on load (OOXML and ODF: 0 = always), never update links (Calc's
#: Content/Update/Link: 1 = never), run no macros (security level 3 = very high, and execution
#: disabled outright) and follow no links to untrusted referers
SETTINGS = (
    ("/org.openoffice.Office.Calc/Formula/Load", "OOXMLRecalcMode", "int", "0"),
    ("/org.openoffice.Office.Calc/Formula/Load", "ODFRecalcMode", "int", "0"),
    ("/org.openoffice.Office.Calc/Content/Update", "Link", "int", "1"),
    ("/org.openoffice.Office.Common/Security/Scripting", "MacroSecurityLevel", "int", "3"),
    ("/org.openoffice.Office.Common/Security/Scripting", "DisableMacrosExecution", "boolean", "true"),
    ("/org.openoffice.Office.Common/Security/Scripting", "BlockUntrustedRefererLinks", "boolean", "true"),
)
_HEAD = (
    '<?xml version="1.0" encoding="UTF-8"?>\n<oor:items xmlns:oor="http://openoffice.org/2001/registry" '
    'xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n'
)


def _item(path: str, name: str, kind: str, value: str) -> str:
    return (
        f'<item oor:path="{path}"><prop oor:name="{name}" oor:op="fuse" oor:type="xs:{kind}">'
        f"<value>{value}</value></prop></item>\n"
    )


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
    """Make a (private) profile safe and exact: every setting of :data:`SETTINGS` (recalculate on
    load, no link updates, no macros) is written into its registrymodifications.xcu, replacing
    what the profile said."""
    xcu = Path(profile) / "user" / "registrymodifications.xcu"
    xcu.parent.mkdir(parents=True, exist_ok=True)
    text = xcu.read_text(encoding="utf-8") if xcu.exists() else _HEAD + "</oor:items>\n"
    lines = [
        line
        for line in text.splitlines(keepends=True)
        if not any(
            f'oor:path="{path}"' in line and f'oor:name="{name}"' in line for path, name, _, _ in SETTINGS
        )
    ]
    text = "".join(lines)
    items = "".join(_item(*s) for s in SETTINGS)
    xcu.write_text(text.replace("</oor:items>", items + "</oor:items>"), encoding="utf-8")


def addin_code(profile: str | os.PathLike) -> list[str]:
    """The import folders the gputco add-in's bridge in ``profile`` names (gputco's environment,
    ``--path`` folders: code); [] without a bridge. The sandbox shows them read-only."""
    import ast

    bridge = Path(profile) / "user" / "Scripts" / "python" / "gputco_bridge.py"  # lo_addin.BRIDGE
    try:
        tree = ast.parse(bridge.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return []
    for node in tree.body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["PATHS"]:
            try:
                found = ast.literal_eval(node.value)
            except ValueError:
                return []
            return [p for p in found if isinstance(p, str) and os.path.isdir(p)]
    return []


def convert(
    src: str | os.PathLike,
    out_dir: str | os.PathLike,
    to: str,
    *,
    timeout: float = 180,
    profile: str | os.PathLike | None = None,
    memory: int | None = None,
) -> Path:
    """Convert ``src`` with LibreOffice (forced full recalculation) into ``out_dir``, its whole
    process tree within ``timeout`` seconds and ``memory`` bytes (:func:`sandbox.run`).

    ``to`` is a LibreOffice filter spec, e.g. ``"xlsx"`` or ``"pdf"``. ``profile`` is a private
    profile folder to use (e.g. one with the gputco add-in); it is set to force recalculation.
    By default each call gets a throw-away profile. Of the user's files the sandbox shows
    LibreOffice only ``src`` (read-only), ``out_dir`` and the profile, and the folders the
    profile's add-in imports from (:func:`addin_code`, read-only). Returns the written file.
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
        proc = sandbox.run(  # of the user's files it sees only its input, its output folder, the profile
            cmd,
            timeout=timeout,
            env=soffice_env(),
            what=f"soffice converting {src.name}",
            memory=memory,
            reads=[src, *addin_code(where)],
            writes=[out_dir, where],
        )
    out = out_dir / f"{src.stem}.{to.split(':')[0]}"
    if proc.returncode != 0 or not out.exists():
        raise LibreOfficeError(
            f"soffice failed to convert {src} to {to} (exit "
            f"{proc.returncode}): {(proc.stderr or proc.stdout).strip()[:300]}"
        )
    return out
