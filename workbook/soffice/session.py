"""LibreOffice with the gputco add-in in a private profile: built once, used by every run.

``gputco open``, ``gputco render`` and the recalculation engine's LibreOffice fallback need the
same thing: LibreOffice whose ``=TCO_...`` cells compute through the add-in, started with an
environment in which LibreOffice's embedded Python starts (:func:`process.soffice_env`), whatever
the launching shell's PATH, VIRTUAL_ENV or PYTHONHOME. :func:`addin_profile` builds such a profile
once (LibreOffice creates it, :func:`lo_addin.install` writes the add-in into it, and it is set to
recalculate every formula on load); :func:`convert` and :func:`recalculate` run LibreOffice
headless with it.

By default the profile is a temporary folder for this process (removed at exit); ``gputco open``
keeps one in the user's cache folder (:func:`cached_profile_dir`) because LibreOffice outlives it.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
import threading
from pathlib import Path

from . import lo_addin, process, sandbox

#: seconds one LibreOffice run of ``render`` or ``open --convert-to`` may take unless --timeout says
DEFAULT_TIMEOUT_S = 300.0
_lock = threading.Lock()  # one LibreOffice per profile at a time: a second would join the first
_profiles: dict[str, Path] = {}


def cached_profile_dir() -> Path:
    """gputco's own LibreOffice profile for ``gputco open`` (``$XDG_CACHE_HOME/gputco/...``)."""
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "gputco" / "libreoffice-profile"


def addin_profile(where: str | os.PathLike | None = None) -> Path:
    """A profile with the gputco add-in that recalculates on load; built once per folder.

    ``where`` None: a temporary folder for this process. The add-in is (re)written on the first
    call for each folder in this process, so it matches the gputco that runs.
    """
    key = str(Path(where).resolve()) if where else ""
    with _lock:
        if key in _profiles:
            return _profiles[key]
        if where is None:
            path = Path(tempfile.mkdtemp(prefix="gputco-lo-addin-"))
            atexit.register(shutil.rmtree, path, True)
        else:
            path = Path(where).resolve()
        lo_addin.install(path)
        process.force_recalc(path)
        _profiles[key] = path
        return path


def convert(
    src: str | os.PathLike,
    out_dir: str | os.PathLike,
    fmt: str,
    *,
    profile: str | os.PathLike | None = None,
    timeout: float | None = None,
    limits=None,
) -> Path:
    """LibreOffice headless with the add-in: ``src`` recalculated and converted to ``fmt``.

    ``fmt`` is a LibreOffice filter spec (``"xlsx"``, ``"pdf"``, ``"ods"``). Returns the file.
    ``timeout``: seconds for the whole run (default: what the command's ``--timeout`` leaves,
    :func:`~gputco.workbook.recalc.time_left`, else :data:`DEFAULT_TIMEOUT_S`); ``limits``: the
    budgets (its ``libreoffice_memory_mb`` bounds the process tree).
    """
    from gputco.workbook.timebudget import time_left

    timeout = time_left(DEFAULT_TIMEOUT_S) if timeout is None else timeout
    exe = process.soffice()
    if exe is not None:
        process.check_python(exe)  # else every TCO_ cell would hold the version message
    where = addin_profile(profile)
    memory = sandbox.memory_budget(limits)
    with _lock:
        return process.convert(src, out_dir, fmt, profile=where, timeout=timeout, memory=memory)


def recalculate(
    src: str | os.PathLike,
    dst: str | os.PathLike,
    *,
    profile: str | os.PathLike | None = None,
    timeout: float | None = None,
) -> Path:
    """``src`` recalculated by LibreOffice with the add-in, saved as the .xlsx ``dst``."""
    from gputco.workbook.xlsx.files import atomic_output

    dst = Path(dst)
    with tempfile.TemporaryDirectory(prefix="gputco-lo-recalc-") as tmp:
        made = convert(src, tmp, "xlsx", profile=profile, timeout=timeout)
        with atomic_output(dst, force=True) as out:
            shutil.copyfile(made, out)
    return dst


def start_calc(
    file: str | os.PathLike, *, profile: str | os.PathLike | None = None, own_profile: bool = False
) -> tuple[int, Path | None]:
    """Start LibreOffice Calc on ``file`` (a window; returns at once) with the add-in's profile.

    ``profile``: that folder, with the add-in (re)installed; ``own_profile``: the user's own
    profile as it is (it must have the add-in). The environment is :func:`process.soffice_env`'s,
    so LibreOffice's Python starts whatever the launching shell's PATH. Returns (pid, profile).
    """
    exe = process.soffice()
    if exe is None:
        raise process.LibreOfficeError(f"LibreOffice (soffice) is not installed: {process.INSTALL_HINT}")
    src = Path(file).resolve()
    if not src.is_file():
        raise process.LibreOfficeError(f"no such file: {src}")
    cmd = [exe]
    where = None
    if not own_profile:
        where = addin_profile(profile if profile is not None else cached_profile_dir())
        cmd.append(f"-env:UserInstallation={where.as_uri()}")
    cmd += ["--calc", str(src)]
    proc = sandbox.spawn(cmd, env=process.soffice_env(headless=False))
    return proc.pid, where
