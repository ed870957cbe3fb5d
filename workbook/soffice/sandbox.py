"""The one runner for LibreOffice (and the tools reading its output): a sandbox around the tree.

Screening a workbook (:mod:`gputco.workbook.recalc.formula.screen`) is the first line; this is the
second, so that a screen miss cannot reach anything (the rule of Excel's Protected View and of
browser sandboxes). Every LibreOffice process gputco starts goes through :func:`run` (a
conversion: waits) or :func:`spawn` (``gputco open``: returns at once), which

- start it in a network namespace of its own (``unshare --net``, as root or with a user
  namespace, or bubblewrap's ``--unshare-net``): no interface but a loopback that is down, so
  no URL, link, data connection or DDE server is reachable, 127.0.0.1 included;
- refuse to start it on an untrusted file where no namespace can be made, unless the user says
  otherwise (``--unsandboxed-libreoffice`` or ``GPUTCO_LIBREOFFICE_UNSANDBOXED=1``), and say so;
- with bubblewrap, give the tree a file-system view of its own (:func:`view`): the system's
  programs, libraries, fonts and LibreOffice's configuration read-only, a minimal /dev and /proc,
  gputco's own Python and code read-only (the add-in's bridge imports it), the files it reads
  (``reads``) read-only and the folders it writes (``writes``: the output folder, the profile)
  writable; nothing else of $HOME, /root, /tmp or the user's folders is there (with ``unshare``,
  where bubblewrap cannot run, the network is taken away but the file system stays in view);
- give the tree a private TMPDIR (LibreOffice's ``lu*.tmp`` folders go there), removed afterwards;
- bound the whole process tree (its session) by wall-clock time and by the sum of its resident
  memory, killing the session when either is passed (the budget ``libreoffice_memory_mb``:
  ``--budget libreoffice_memory_mb=N`` or ``GPUTCO_LIBREOFFICE_MEMORY_MB``; time: ``--timeout``).

The profile each run uses (:func:`process.harden`) turns link updates, macros and Basic/Python
scripts off. tests/test_sandbox.py proves the namespace with a positive control and asserts no
other module starts a process.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import signal
import site
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from gputco.udfs.errors import GputcoError

ALLOW_ENV = "GPUTCO_LIBREOFFICE_UNSANDBOXED"
ALLOW_FLAG = "--unsandboxed-libreoffice"
#: the whole tree's resident memory budget is the budget libreoffice_memory_mb (4096 MiB by
#: default: a two-system scenario workbook with a reserve and a sweep, whose rows form no formula
#: groups, takes 2.0-2.3 GiB; benchmarks and the Excel corpus peak near 600 MiB), set like every
#: budget (gputco.workbook.recalc.read.limits)
MEMORY_BUDGET = "libreoffice_memory_mb"
MEMORY_ENV = "GPUTCO_LIBREOFFICE_MEMORY_MB"
_POLL_S = 0.1

#: ways to get a network namespace, tried in order (the first that runs ``true`` is used)
#: (a process namespace of its own too, whose first process takes every other with it when it
#: dies: ``--kill-child``, bubblewrap's ``--die-with-parent``)
_PREFIXES = (
    ("unshare", "--net", "--pid", "--fork", "--kill-child", "--"),
    ("unshare", "--user", "--map-root-user", "--net", "--pid", "--fork", "--kill-child", "--"),
    ("bwrap", "--dev-bind", "/", "/", "--unshare-net", "--unshare-pid", "--die-with-parent", "--"),
)
#: bubblewrap's namespaces for the file-system view (network, processes; dies with its parent)
_BWRAP_FLAGS = ("--unshare-net", "--unshare-pid", "--unshare-ipc", "--die-with-parent")
#: the system's folders in the view, read-only (a link among them, e.g. /lib -> usr/lib, stays a link)
_SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt/libreoffice")
#: the pieces of /etc LibreOffice, fontconfig, the loader and Python read (no shadow, no keys)
_ETC = (
    "alternatives",
    "fonts",
    "libreoffice",
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "passwd",
    "group",
    "nsswitch.conf",
    "localtime",
    "timezone",
    "locale.alias",
    "mime.types",
    "xdg",
    "python3",
    "python3.11",
    "python3.12",
    "python3.13",
    "machine-id",
)
#: caches the view holds read-only: fontconfig's (else every run rebuilds it)
_CACHES = ("/var/cache/fontconfig",)

#: the parent-death signal for the sandbox's first process (util-linux's setpriv, where present;
#: else prctl(PR_SET_PDEATHSIG) in the child before exec): gputco killed, even by SIGKILL, takes
#: LibreOffice's whole tree with it
_PDEATHSIG = ("setpriv", "--pdeathsig", "KILL", "--")
_PR_SET_PDEATHSIG = 1


class SandboxError(GputcoError, RuntimeError):
    """The sandbox cannot be made, or the tree went past its time or memory budget."""


@dataclass
class Ran:
    """What a sandboxed run did: exit code, its output, and the tree's peak resident memory."""

    returncode: int
    stdout: str
    stderr: str
    peak_rss: int  # bytes, summed over the session's processes at the worst sample


@functools.cache
def namespace_prefix() -> tuple[str, ...] | None:
    """The command prefix that runs a program without network here, or None when none works."""
    for prefix in _PREFIXES:
        exe = shutil.which(prefix[0])
        if exe is None:
            continue
        try:
            proc = subprocess.run([exe, *prefix[1:], "true"], capture_output=True, timeout=10, check=False)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if proc.returncode == 0:
            return (exe, *prefix[1:])
    return None


def _code_paths() -> list[str]:
    """gputco's own Python and code (read-only in the view): the add-in's bridge in LibreOffice's
    Python imports gputco from there, and a probe may run this Python."""
    package = Path(__file__).resolve().parents[2]  # the gputco package folder
    paths = [str(package), sys.prefix, sys.base_prefix, sys.exec_prefix, *site.getsitepackages()]
    if site.ENABLE_USER_SITE and os.path.isdir(site.getusersitepackages()):
        paths.append(site.getusersitepackages())
    # the import path as .pth files made it (a virtualenv seeing another's packages), less its first
    # entry: the script's folder or, with -m, the working folder (the user's, not code)
    paths += [p for p in sys.path[1:] if p]
    real = dict.fromkeys(os.path.realpath(p) for p in paths)
    return [p for p in real if os.path.isdir(p) and p != "/"]


def view(reads: Sequence[str | os.PathLike] = (), writes: Sequence[str | os.PathLike] = ()) -> list[str]:
    """bubblewrap's arguments for the tree's file-system view: the system read-only (programs,
    libraries, fonts, LibreOffice, the /etc pieces they read), a minimal /dev, its own /proc, an
    empty /tmp, gputco's own Python and code read-only, ``reads`` read-only and ``writes``
    writable; nothing else (no $HOME, /root, /work, /tmp beyond these)."""
    args: list[str] = []
    for top in _SYSTEM:
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.exists(top):
            args += ["--ro-bind", top, top]
    for name in _ETC:
        if os.path.lexists(f"/etc/{name}"):
            args += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    for cache in _CACHES:
        args += ["--ro-bind-try", cache, cache]
    args += ["--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
    for path in _code_paths():
        args += ["--ro-bind", path, path]
    for path in reads:
        real = os.path.realpath(path)
        args += ["--ro-bind", real, real]
    for path in writes:
        real = os.path.realpath(path)
        args += ["--bind", real, real]
    return args


@functools.cache
def _bwrap() -> str | None:
    """bubblewrap, when it can make the view here (it runs ``true`` in an empty one), else None."""
    exe = shutil.which("bwrap")
    if exe is None:
        return None
    try:
        proc = subprocess.run(
            [exe, *view(), *_BWRAP_FLAGS, "--", "true"], capture_output=True, timeout=10, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return exe if proc.returncode == 0 else None


def allowed_unsandboxed() -> bool:
    """Whether the user allowed LibreOffice on untrusted files without a network namespace."""
    return os.environ.get(ALLOW_ENV, "").strip().lower() in ("1", "true", "yes")


def allow_unsandboxed() -> None:
    """What ``--unsandboxed-libreoffice`` does: allow it for this process (and its children)."""
    os.environ[ALLOW_ENV] = "1"


def memory_budget(limits=None) -> int:
    """The tree's memory budget in bytes: ``limits.libreoffice_memory_mb`` (default: the budgets
    the environment sets, ``GPUTCO_LIBREOFFICE_MEMORY_MB``, else 2048 MiB); at least 64 MiB."""
    from gputco.workbook.recalc import budgets

    mb = (limits or budgets()).libreoffice_memory_mb
    if mb < 64:
        raise SandboxError(
            f"the budget {MEMORY_BUDGET} must be at least 64 (MiB), not {mb} "
            f"(--budget {MEMORY_BUDGET}=N or {MEMORY_ENV}=N)"
        )
    return int(mb) << 20


def program_folder(program: str, path: str | None = None) -> str | None:
    """The folder the view must show read-only for ``program`` (a name looked up on ``path``, or
    a path) to start: its installation (``<install>/program/soffice`` shows ``<install>``), else
    its own folder; None where it is not found."""
    found = shutil.which(program, path=path)
    if found is None:
        return None
    real = Path(os.path.realpath(found)).parent
    return str(real.parent if real.name == "program" else real)


def _prefix(
    untrusted: bool, reads=(), writes=(), tmp: Path | None = None, program: str | None = None
) -> tuple[str, ...]:
    """The sandbox's command prefix: bubblewrap with the file-system view where it works (with
    ``program``'s folder read-only, wherever it is installed), else a network namespace only
    (``unshare``), else nothing (refused on an untrusted file)."""
    exe = _bwrap()
    if exe is not None:
        writable = [*writes, tmp] if tmp is not None else list(writes)
        home = [] if tmp is None else ["--setenv", "HOME", str(tmp), "--chdir", str(tmp)]
        shown = [*reads, program] if program is not None else list(reads)
        return (exe, *view(shown, writable), *_BWRAP_FLAGS, *home, "--")
    return _net_prefix(untrusted)


def _net_prefix(untrusted: bool) -> tuple[str, ...]:
    prefix = namespace_prefix()
    if prefix is not None:
        return prefix
    if untrusted and not allowed_unsandboxed():
        raise SandboxError(
            "LibreOffice is not started on an untrusted workbook without a network sandbox, and "
            "none can be made here (unshare --net and bubblewrap both fail); install bubblewrap "
            f"or allow it with {ALLOW_FLAG} or {ALLOW_ENV}=1"
        )
    return ()


def run(
    cmd: Sequence[str],
    *,
    timeout: float,
    env: dict[str, str],
    untrusted: bool = True,
    what: str = "LibreOffice",
    memory: int | None = None,
    reads: Sequence[str | os.PathLike] = (),
    writes: Sequence[str | os.PathLike] = (),
) -> Ran:
    """Run ``cmd`` in the sandbox and wait; kill its whole session past ``timeout`` seconds or
    ``memory`` bytes (default :func:`memory_budget`) of summed resident memory. With bubblewrap,
    the tree sees of the user's files only ``reads`` (read-only) and ``writes`` (writable)."""
    from gputco.workbook.timebudget import time_limit

    limit = memory_budget() if memory is None else memory
    shown = time_limit() or timeout  # the command's --timeout, of which this run had what was left
    tmp = Path(tempfile.mkdtemp(prefix="gputco-lo-tmp-"))
    try:
        prefix = _prefix(untrusted, reads, writes, tmp, program_folder(cmd[0], env.get("PATH")))
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    env = {**env, "TMPDIR": str(tmp), "TMP": str(tmp), "TEMP": str(tmp)}
    peak = 0
    try:
        tied, preexec = _tied_to_us()
        proc = subprocess.Popen(
            [*tied, *prefix, *cmd],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            preexec_fn=preexec,
        )
        end = time.monotonic() + timeout
        try:
            while True:
                try:
                    out, err = proc.communicate(timeout=_POLL_S)
                    break
                except subprocess.TimeoutExpired:
                    pass
                peak = max(peak, session_rss(proc.pid))
                if peak > limit:
                    _kill(proc)
                    raise SandboxError(
                        f"{what} used more than {limit >> 20} MiB of memory (budget "
                        f"{MEMORY_BUDGET} of its whole process tree; raise it with --budget "
                        f"{MEMORY_BUDGET}=N or {MEMORY_ENV}=N)"
                    )
                if time.monotonic() > end:
                    _kill(proc)
                    raise SandboxError(
                        f"{what} stopped after the time limit of {shown:g} s (raise it with "
                        "--timeout SECONDS or GPUTCO_TIMEOUT=SECONDS)"
                    )
        finally:
            _kill(proc)  # whatever the session left running
        text = [b.decode("utf-8", "replace") for b in (out, err)]
        return Ran(proc.returncode, text[0], text[1], peak)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _tied_to_us():
    """(a command prefix, a preexec function) that make the started process die with this
    thread of gputco (the parent-death signal; Linux only: elsewhere, nothing)."""
    if not sys.platform.startswith("linux"):
        return (), None
    exe = shutil.which(_PDEATHSIG[0])
    if exe is not None:
        return (exe, *_PDEATHSIG[1:]), None
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)

    def preexec() -> None:  # pragma: no cover - runs in the child
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)

    return (), preexec


def spawn(cmd: Sequence[str], *, env: dict[str, str], untrusted: bool = True) -> subprocess.Popen:
    """Start ``cmd`` in the sandbox and return at once (an interactive LibreOffice window: no
    network, but the file system in view, for the user's own Open and Save As dialogs)."""
    prefix = _net_prefix(untrusted)
    return subprocess.Popen(
        [*prefix, *cmd],
        env=env,
        start_new_session=True,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def _kill(proc: subprocess.Popen) -> None:
    with contextlib.suppress(OSError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(OSError, subprocess.TimeoutExpired):
        proc.communicate(timeout=5)


def session_rss(sid: int) -> int:
    """Summed resident memory (bytes) of the processes in session ``sid`` (Linux /proc; else 0)."""
    total = 0
    page = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
    try:
        pids = [p for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", "rb") as fh:
                fields = fh.read().rpartition(b")")[2].split()
            if int(fields[3]) != sid:  # after ")": state ppid pgrp session ...
                continue
            with open(f"/proc/{pid}/statm", "rb") as fh:
                total += int(fh.read().split()[1]) * page
        except (OSError, ValueError, IndexError):
            continue
    return total
