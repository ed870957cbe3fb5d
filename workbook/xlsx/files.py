"""Writing files without ever losing a user's work, and reading the files users give.

Every command that writes goes through :func:`atomic_output`: it refuses to replace an existing
file unless asked, writes to a hidden temporary file ``.~NAME.XXXX.tmp`` in the destination folder,
and renames it into place only when the write completed: the temporary file is fsync'ed before the
rename and the folder after it, so after a power cut the destination holds the old file or the
whole new one, never a mixture or an empty file. An error mid-write leaves the original
byte-for-byte intact and removes the temporary file; a kill (SIGKILL, power cut) leaves the
original intact too, and the hidden temporary file ``.~NAME.PID.XXXX.tmp`` behind, which the next
write of that destination removes (:func:`remove_stale`: its process is gone). A symbolic link
(dangling or not) is written through only with ``--force`` (the link stays a link); devices, pipes
and other special files are never replaced.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Iterator, Sequence
from pathlib import Path

from gputco.udfs.errors import GputcoError


class FileExistsRefusal(GputcoError, FileExistsError):
    """The destination exists and overwriting was not asked for."""

    def __init__(self, path: Path, flag: str = "--force") -> None:
        self.path = path
        super().__init__(f"{path} exists; refusing to overwrite it (use {flag} to replace it)")


class InputRefusal(GputcoError, FileExistsError):
    """The destination is the command's own input (under any name): never replaced."""

    def __init__(self, path: Path, src: str | os.PathLike) -> None:
        self.path = path
        super().__init__(f"{path} is the input {src}; refusing to write over it (name another output)")


class SymlinkRefusal(GputcoError, FileExistsError):
    """The destination is a symbolic link and writing through it was not asked for."""

    def __init__(self, path: Path, target: str, exists: bool, flag: str = "--force") -> None:
        self.path = path
        gone = "" if exists else ", which does not exist"
        super().__init__(
            f"{path} is a symbolic link (to {target}{gone}); refusing to write through it "
            f"(use {flag} to write to where it points)"
        )


class WriteError(GputcoError, OSError):
    """The destination could not be written (read-only folder, full disk, file locked)."""

    def __init__(self, path: Path, reason: str) -> None:
        self.path = path
        super().__init__(f"cannot write {path}: {reason}")


class InputFileError(GputcoError, ValueError):
    """An input file that cannot be read: missing, a folder, a special file, or unreadable."""

    def __init__(self, path: Path, reason: str) -> None:
        self.path = path
        super().__init__(f"cannot read {path}: {reason}")


def _reason(err: OSError, folder: Path | None = None) -> str:
    """A short, plain reason for an OS error (one line, no errno numbers)."""
    if err.errno in (errno.ENOSPC, errno.EDQUOT):
        return "the disk is full"
    if err.errno == errno.EFBIG:
        return "the file is larger than the file system or a size limit allows"
    if err.errno == errno.EROFS:
        return "the file system is read-only"
    if err.errno in (errno.EACCES, errno.EPERM):
        return "permission denied (a read-only folder or file, or the file is open in another program)"
    if err.errno == errno.ENOTDIR:
        return "a part of the path is a file, not a folder"
    if err.errno == errno.ENOENT:
        if folder is not None and folder.is_dir():
            return f"files cannot be created in {folder}"
        return "the folder does not exist"
    if err.errno == errno.EISDIR:
        return "it is a folder"
    text = err.strerror or str(err) or type(err).__name__
    return text.splitlines()[0]


def check_input(path: str | os.PathLike) -> Path:
    """The path of an input file, after checking it is an existing, readable regular file.

    >>> check_input("/")
    Traceback (most recent call last):
    ...
    gputco.workbook.xlsx.files.InputFileError: cannot read /: it is a folder, not a file
    """
    path = Path(path)
    try:
        st = path.stat()
    except OSError as err:
        if err.errno in (errno.ENOENT, errno.ENOTDIR):
            raise InputFileError(path, "no such file") from None
        raise InputFileError(path, _reason(err)) from None
    if stat.S_ISDIR(st.st_mode):
        raise InputFileError(path, "it is a folder, not a file")
    if not stat.S_ISREG(st.st_mode):
        raise InputFileError(path, "not a regular file (a device, pipe or socket)")
    try:
        with open(path, "rb") as fh:
            fh.read(1)
    except OSError as err:
        raise InputFileError(path, _reason(err)) from None
    return path


@contextlib.contextmanager
def atomic_output(
    dst: str | os.PathLike,
    *,
    force: bool = False,
    flag: str = "--force",
    inputs: Sequence[str | os.PathLike] = (),
) -> Iterator[Path]:
    """Yield a temporary path beside ``dst``; rename it onto ``dst`` when the block succeeds.
    ``inputs``: files the block reads, never replaced (with ``--force`` or not: the same file
    under another name or through a link included).

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> with atomic_output(d / "out.txt") as tmp:
    ...     _ = tmp.write_text("done")
    >>> (d / "out.txt").read_text()
    'done'
    >>> with atomic_output(d / "out.txt") as tmp:  # doctest: +ELLIPSIS
    ...     pass
    Traceback (most recent call last):
    ...
    gputco.workbook.xlsx.files.FileExistsRefusal: ... exists; refusing to overwrite it (use --force to replace it)
    """
    shown = dst = Path(dst)
    for src in inputs:
        if _same_file(src, dst):
            raise InputRefusal(shown, src)
    if dst.is_symlink():  # only when asked: through the link, so that it stays a link
        if not force:
            raise SymlinkRefusal(shown, os.readlink(dst), dst.exists(), flag)
        dst = Path(os.path.realpath(dst))
    if dst.exists() and not force:
        raise FileExistsRefusal(shown, flag)
    if dst.is_dir():
        raise WriteError(shown, "it is a folder")
    if dst.exists() and not dst.is_file():
        raise WriteError(shown, "not a regular file (a device, pipe or socket); never replaced")
    folder = dst.parent if str(dst.parent) else Path(".")
    remove_stale(folder, dst.name)
    tmp: Path | None = None
    try:
        for tmp in _hidden_names(folder, dst.name):  # named before it is made: see _hidden_names
            try:
                _create(tmp)
                break
            except FileExistsError:  # 64 random bits taken (not ours: never removed): draw again
                tmp = None
        else:
            raise FileExistsError(errno.EEXIST, "no free temporary name", str(folder))
        yield tmp
        if dst.exists():
            with contextlib.suppress(OSError):
                os.chmod(tmp, stat.S_IMODE(dst.stat().st_mode))
        else:
            os.chmod(tmp, 0o666 & ~_umask())
        _fsync_file(tmp)  # the data reaches the disk before the rename can
        os.replace(tmp, dst)
        _fsync_folder(folder)  # and the rename itself survives a power loss
    except OSError as err:
        _discard(tmp)
        if isinstance(err, GputcoError):
            raise
        raise WriteError(shown, _reason(err, folder)) from None
    except BaseException as err:
        _discard(tmp)
        io = _serialiser_io_error(err)
        if io is not None:
            raise WriteError(shown, _reason(io, folder)) from None
        raise


def _discard(tmp: Path | None) -> None:
    """Remove a temporary output, if it was made."""
    if tmp is not None:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)


def _hidden_names(folder: Path, name: str) -> Iterator[Path]:
    """Up to 100 names ``.~NAME.PID.RANDOM.tmp`` in ``folder`` for a hidden temporary file. The
    caller keeps a name before it makes the file, so that a stop signal (Ctrl-C, SIGTERM, SIGHUP:
    raised in the main thread at any instruction) never leaves a file whose name it does not hold:
    with ``mkstemp`` a signal between the file's making and its name's return left the file
    behind (tests/test_hostile3.py, once under load)."""
    for _ in range(100):
        yield folder / f".~{name}.{os.getpid()}.{secrets.token_hex(8)}.tmp"


def _create(path: Path) -> None:
    """Create ``path``, which must not exist (O_EXCL), readable and writable by its owner only."""
    os.close(os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o600))


def _serialiser_io_error(err: BaseException) -> OSError | None:
    """lxml's serialiser (openpyxl writes through it where lxml is installed) reports a failed
    write as ``SerialisationError("IO_EFBIG")``, not an OSError: the OS error it stands for, or
    None for any other error.

    >>> class SerialisationError(Exception): ...
    >>> _serialiser_io_error(SerialisationError("IO_ENOSPC")).errno == errno.ENOSPC
    True
    >>> _serialiser_io_error(ValueError("IO_ENOSPC")) is None
    True
    """
    if type(err).__name__ != "SerialisationError":
        return None
    name = str(err).removeprefix("IO_")
    code = getattr(errno, name, None) if name.startswith("E") else None
    return None if code is None else OSError(code, os.strerror(code))


def _same_file(a: str | os.PathLike, b: str | os.PathLike) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:  # either is missing: not the same file
        return False


def remove_stale(folder: Path, name: str) -> list[Path]:
    """Remove the temporary files ``.~NAME.PID.XXXX.tmp`` that killed runs left beside ``name``,
    and the parts written beside such a file (``.~NAME.PID.XXXX.tmp.charts``: chart caches):
    those whose process (the PID in the name) no longer runs on this machine. A live writer's
    file is never touched. Returns what was removed.
    """
    removed = []
    stem = f".~{glob_escape(name)}.*.tmp"
    try:
        candidates = [*folder.glob(stem), *folder.glob(f"{stem}.*")]
    except OSError:
        return removed
    for path in candidates:
        pid = path.name[len(f".~{name}.") :].split(".", 1)[0]
        if not pid.isdigit() or _alive(int(pid)):
            continue
        with contextlib.suppress(OSError):
            path.unlink()
            removed.append(path)
    return removed


def glob_escape(text: str) -> str:
    return "".join(f"[{c}]" if c in "*?[]" else c for c in text)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, another user's
        return True
    return True


def _fsync_file(path: Path) -> None:
    """Flush a written file's data and size to the disk (POSIX orders nothing without it)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_folder(folder: Path) -> None:
    """Flush a folder's entries (a rename) to the disk; Windows cannot open folders: skipped."""
    if os.name == "nt":
        return
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):  # some file systems refuse fsync on a folder
            os.fsync(fd)
    finally:
        os.close(fd)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
