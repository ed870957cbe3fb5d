"""The one place where the safety limits on .xlsx packages live.

An .xlsx file is a zip of XML parts; a hostile file can be a zip bomb (tiny compressed, huge
uncompressed) or carry a DTD with entity expansion. Every part is read through
:func:`read_member`, which enforces these limits, and parsed with DTDs refused (see xmlsafe.py).
The other limits bound what one workbook may cost to evaluate: the cells the engine holds (a
single cell in XFD1048576 must not allocate a billion), the cells one reference reads at once,
and the length and nesting of one formula (so no formula can exhaust the stack).
"""

from __future__ import annotations

import zipfile
import zlib
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

from gputco.workbook.recalc.run.errors import LimitExceededError, WorkbookFormatError


@dataclass(frozen=True)
class Limits:
    """Upper bounds for one package; the defaults fit workbooks of a few million cells."""

    max_members: int = 10_000
    max_member_bytes: int = 1 << 30  # 1 GiB uncompressed for one part
    max_total_bytes: int = 4 << 30  # 4 GiB uncompressed for all parts read
    max_ratio: float = 1000.0  # uncompressed / compressed, per part larger than 1 MiB
    max_formula_chars: int = 8192  # Excel's own limit on formula length
    max_formula_depth: int = 100  # nesting of one formula (Excel allows 64 nested functions)
    max_grid_cells: int = 100_000_000  # rows x used columns held in memory, all sheets (~1 GB)
    max_range_cells: int = 50_000_000  # cells one reference reads at once


DEFAULT_LIMITS = Limits()


def check_archive(zf: zipfile.ZipFile, limits: Limits = DEFAULT_LIMITS) -> None:
    """Refuse archives with too many members or declared sizes beyond the limits."""
    infos = zf.infolist()
    if len(infos) > limits.max_members:
        raise LimitExceededError(f"the package has {len(infos)} parts (limit {limits.max_members})")
    names = zf.namelist()
    folded = Counter(n.lower() for n in names)  # OPC part names are case-insensitive
    if len(folded) != len(names):
        twice = sorted(n for n in names if folded[n.lower()] > 1)
        raise WorkbookFormatError(
            f"the package has two parts named {' and '.join(dict.fromkeys(twice[:2]))} "
            "(part names are case-insensitive; damaged or tampered with)"
        )
    total = 0
    for info in infos:
        if info.flag_bits & 0x1:
            raise WorkbookFormatError(
                f"part {info.filename} is encrypted (a password-protected "
                "zip); gputco reads only unencrypted packages"
            )
        _check_sizes(info, info.file_size, limits)
        total += info.file_size
    if total > limits.max_total_bytes:
        raise LimitExceededError(f"the package unpacks to {total} bytes (limit {limits.max_total_bytes})")


def read_member(zf: zipfile.ZipFile, name: str, limits: Limits = DEFAULT_LIMITS) -> bytes:
    """Read one part, stopping as soon as it grows past the limits whatever its header claims."""
    info = zf.getinfo(name)
    if info.flag_bits & 0x1:
        raise WorkbookFormatError(
            f"part {name} is encrypted (a password-protected zip); gputco reads only unencrypted packages"
        )
    try:
        with zf.open(info) as fh:
            data = fh.read(limits.max_member_bytes + 1)
    except (
        zipfile.BadZipFile,
        zlib.error,
        EOFError,
        NotImplementedError,
        RuntimeError,
        ValueError,
        OSError,
    ) as err:
        raise WorkbookFormatError(
            f"part {name} cannot be unpacked (damaged or unsupported compression): {err}"
        ) from None
    _check_sizes(info, len(data), limits)
    return data


def stream_member(
    zf: zipfile.ZipFile, name: str, limits: Limits = DEFAULT_LIMITS, piece: int = 1 << 20
) -> Iterator[bytes]:
    """Read one part in pieces (for parts too big to hold at once), with the limits of
    :func:`read_member` checked as it grows."""
    info = zf.getinfo(name)
    if info.flag_bits & 0x1:
        raise WorkbookFormatError(
            f"part {name} is encrypted (a password-protected zip); gputco reads only unencrypted packages"
        )
    size = 0
    try:
        with zf.open(info) as fh:
            while data := fh.read(piece):
                size += len(data)
                _check_sizes(info, size, limits)
                yield data
    except WorkbookFormatError:
        raise
    except (
        zipfile.BadZipFile,
        zlib.error,
        EOFError,
        NotImplementedError,
        RuntimeError,
        ValueError,
        OSError,
    ) as err:
        raise WorkbookFormatError(
            f"part {name} cannot be unpacked (damaged or unsupported compression): {err}"
        ) from None


def _check_sizes(info: zipfile.ZipInfo, size: int, limits: Limits) -> None:
    if size > limits.max_member_bytes:
        raise LimitExceededError(f"part {info.filename} unpacks to more than {limits.max_member_bytes} bytes")
    if size > (1 << 20) and size > limits.max_ratio * max(info.compress_size, 1):
        raise LimitExceededError(
            f"part {info.filename} has a compression ratio above {limits.max_ratio:g} (zip bomb?)"
        )
