"""Writing files without ever losing a user's work.

Every command that writes goes through :func:`atomic_output`: it refuses to replace an existing
file unless asked, writes to a temporary file in the destination folder, and renames it into place
only when the write completed. An error or a kill mid-write leaves the original byte-for-byte intact.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

from udfs.errors import GputcoError


class FileExistsRefusal(GputcoError, FileExistsError):
    """The destination exists and overwriting was not asked for."""

    def __init__(self, path: Path, flag: str = "--force") -> None:
        self.path = path
        super().__init__(f"{path} exists; refusing to overwrite it (use {flag} to replace it)")


class WriteError(GputcoError, OSError):
    """The destination could not be written (read-only folder, full disk, file locked)."""

    def __init__(self, path: Path, reason: str) -> None:
        self.path = path
        super().__init__(f"cannot write {path}: {reason}")


def _reason(err: OSError) -> str:
    if err.errno == errno.ENOSPC:
        return "the disk is full"
    if err.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return "permission denied (read-only folder or file, or the file is open elsewhere)"
    if err.errno == errno.ENOENT:
        return "the folder does not exist"
    return err.strerror or str(err)


@contextlib.contextmanager
def atomic_output(dst: str | os.PathLike, *, force: bool = False,
                  flag: str = "--force") -> Iterator[Path]:
    """Yield a temporary path beside ``dst``; rename it onto ``dst`` when the block succeeds.

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
    workbook.files.FileExistsRefusal: ... exists; refusing to overwrite it (use --force to replace it)
    """
    dst = Path(dst)
    if dst.exists() and not force:
        raise FileExistsRefusal(dst, flag)
    if dst.is_dir():
        raise WriteError(dst, "it is a folder")
    folder = dst.parent if str(dst.parent) else Path(".")
    try:
        fd, name = tempfile.mkstemp(prefix=f".~{dst.name}.", suffix=".tmp", dir=folder)
    except OSError as err:
        raise WriteError(dst, _reason(err)) from None
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        if dst.exists():
            with contextlib.suppress(OSError):
                os.chmod(tmp, stat.S_IMODE(dst.stat().st_mode))
        else:
            os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, dst)
    except OSError as err:
        tmp.unlink(missing_ok=True)
        if isinstance(err, GputcoError):
            raise
        raise WriteError(dst, _reason(err)) from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
