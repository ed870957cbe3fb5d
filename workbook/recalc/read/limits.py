"""The one place where the safety limits (budgets) on .xlsx packages live.

An .xlsx file is a zip of XML parts; a hostile file can be a zip bomb (tiny compressed, huge
uncompressed) or carry a DTD with entity expansion. Every part is read through
:func:`read_member` / :func:`stream_member`, which enforce the byte budgets (per part, and in
total for one opened package, whatever the headers claim), and parsed with DTDs refused (see
xmlsafe.py). The other budgets bound what one workbook may cost: the cells and shared strings it
holds, the cells the engine's grid holds (a single cell in XFD1048576 must not allocate a
billion), the cells one reference reads at once and any intermediate array holds, the length and
nesting of one formula (so no formula can exhaust the stack), and how deep and large defined
names expand.

Each refusal is one line naming the budget and how to raise it: ``--budget NAME=N`` on the
command line or the environment variable ``GPUTCO_NAME`` (upper case), e.g.
``GPUTCO_MAX_CELLS=40000000``; in Python, ``Limits(max_cells=...)``. docs/safety.md lists the
defaults and the largest legitimate file each was measured against. Every door that reads a
package (recalc, render, open, batch, scenarios) takes both.

Time is the one budget that is not a size: :func:`deadline` sets it (gputco's commands through
:mod:`gputco.workbook.timebudget`, for everything one command does: ``--timeout SECONDS`` or
``GPUTCO_TIMEOUT``), and every phase checks it: the screen and the readers at each piece of a part
(:func:`check_time`), the engine between formula groups, and LibreOffice is given what is left
(:func:`time_left`).
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import os
import struct
import time
import weakref
import zipfile
import zlib
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from gputco.workbook.recalc.base.errors import LimitExceededError, RecalcTimeoutError, WorkbookFormatError


@dataclass(frozen=True)
class Limits:
    """Upper bounds for one package; the defaults fit workbooks of a few million cells."""

    max_members: int = 10_000
    max_member_bytes: int = 1 << 30  # 1 GiB uncompressed for one part held in memory
    max_total_bytes: int = 1 << 30  # 1 GiB uncompressed for all parts held, per opened package
    max_stream_bytes: int = 8 << 30  # 8 GiB for one part read in pieces (batch's .xlsx input)
    max_ratio: float = 1000.0  # uncompressed / compressed, per part larger than 1 MiB
    max_formula_chars: int = 8192  # Excel's own limit on formula length
    max_formula_depth: int = 100  # nesting of one formula (Excel allows 64 nested functions)
    max_grid_cells: int = 100_000_000  # rows x used columns held in memory, all sheets (~1 GB)
    max_range_cells: int = 50_000_000  # cells one reference reads at once
    max_cells: int = 25_000_000  # cells the sheets hold (values and formulas), all sheets
    max_strings: int = 25_000_000  # items of the shared-string table
    max_array_cells: int = 50_000_000  # cells of any intermediate array (a product of two ranges)
    max_name_depth: int = 64  # defined names through defined names
    max_name_size: int = 100_000  # nodes of a defined name's formula with its names expanded
    max_spec_depth: int = 32  # nesting of tables and arrays in a scenario SPEC (TOML)
    max_spec_bytes: int = 1 << 20  # size of a scenario SPEC file (TOML), checked before it is read
    max_styles: int = 65_490  # cell formats of the styles part (Excel's own limit), screened
    libreoffice_memory_mb: int = 4096  # resident memory of LibreOffice's whole process tree


DEFAULT_LIMITS = Limits()
#: the budgets of the evaluation running in this context (set by the engine's evaluator), for
#: functions that size an array before they make it (SEQUENCE)
EVALUATING: contextvars.ContextVar[Limits] = contextvars.ContextVar(
    "gputco_evaluating", default=DEFAULT_LIMITS
)


def check_array_cells(what: str, cells: int) -> None:
    """Refuse, before it is made, an array past ``max_array_cells`` of the running evaluation:
    one line and exit 2, never a silent error value in the cell."""
    limits = EVALUATING.get()
    if cells > limits.max_array_cells:
        raise over("max_array_cells", f"{what} would hold {cells:,} cells", limits)


ENV_PREFIX = "GPUTCO_"


def hint(name: str) -> str:
    """How to raise the budget ``name``: the flag and the environment variable."""
    return f"raise it with --budget {name}=N or {ENV_PREFIX}{name.upper()}=N"


def over(name: str, what: str, limits: Limits) -> LimitExceededError:
    """The one-line refusal for a budget: what went past it, the budget, and how to raise it."""
    return LimitExceededError(f"{what} (budget {name} = {getattr(limits, name):,}; {hint(name)})")


def budgets(
    flags: Sequence[str] = (), environ: Mapping[str, str] | None = None, base: Limits = DEFAULT_LIMITS
) -> Limits:
    """``base`` with the budgets set by ``GPUTCO_<NAME>`` variables, then by ``NAME=N`` flags.

    >>> b = budgets(["max_cells=10"], {"GPUTCO_MAX_STRINGS": "5", "GPUTCO_MAX_CELLS": "7"})
    >>> b.max_cells, b.max_strings
    (10, 5)
    >>> budgets(["max_cels=10"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gputco.workbook.recalc.base.errors.WorkbookFormatError: --budget max_cels=10: no budget max_cels; ...
    """
    environ = os.environ if environ is None else environ
    fields = {f.name: f.type for f in dataclasses.fields(Limits)}
    changes: dict[str, float] = {}
    given = [
        (f"{ENV_PREFIX}{n.upper()}", n, environ[f"{ENV_PREFIX}{n.upper()}"])
        for n in fields
        if f"{ENV_PREFIX}{n.upper()}" in environ
    ]
    for flag in flags:
        name, _, value = flag.partition("=")
        given.append((f"--budget {flag}", name.strip(), value))
    for source, name, value in given:
        if name not in fields:
            raise WorkbookFormatError(f"{source}: no budget {name}; budgets: {', '.join(fields)}")
        try:
            number = float(value) if fields[name] in (float, "float") else int(value.replace("_", ""))
        except ValueError:
            number = -1
        if not number > 0:
            raise WorkbookFormatError(f"{source}: {value!r} is not a positive number")
        changes[name] = number
    return dataclasses.replace(base, **changes)


#: what the screen and the readers never take for a damaged part: a budget ran out
BUDGET_ERRORS = (LimitExceededError, RecalcTimeoutError)
#: (seconds, deadline on time.perf_counter) of the command running in this context, or None
_DEADLINE: contextvars.ContextVar[tuple[float, float] | None] = contextvars.ContextVar(
    "gputco_deadline", default=None
)


@contextlib.contextmanager
def deadline(seconds: float | None) -> Iterator[tuple[float, float] | None]:
    """Everything inside has ``seconds`` (None: no limit) of wall-clock time: the readers, the
    screen and the engine check it (:func:`check_time`). Yields (seconds, the deadline on
    ``time.perf_counter``), or None. gputco's commands set it for every phase, with an alarm that
    also interrupts code that does not check (:mod:`gputco.workbook.timebudget`).

    >>> with deadline(1e-9):
    ...     time.sleep(0.001)
    ...     check_time("screening the package")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gputco.workbook.recalc.base.errors.RecalcTimeoutError: stopped after the time limit of 1e-09 s (screening the package); raise it with --timeout SECONDS or GPUTCO_TIMEOUT=SECONDS...
    """
    if seconds is None:
        yield None
        return
    budget = (seconds, time.perf_counter() + seconds)
    token = _DEADLINE.set(budget)
    try:
        yield budget
    finally:
        _DEADLINE.reset(token)


def check_time(stage: str) -> None:
    """Raise :class:`RecalcTimeoutError` naming ``stage`` when the command's time is up."""
    budget = _DEADLINE.get()
    if budget is not None and time.perf_counter() > budget[1]:
        raise RecalcTimeoutError(budget[0], 0, 0, stage=stage)


def time_limit() -> float | None:
    """The seconds :func:`deadline` gave the command running here (None: no limit)."""
    budget = _DEADLINE.get()
    return None if budget is None else budget[0]


def time_left(default: float | None, stage: str = "before starting LibreOffice") -> float | None:
    """Seconds the command has left (``default`` when it has no time budget), for a child process."""
    budget = _DEADLINE.get()
    if budget is None:
        return default
    check_time(stage)
    return budget[1] - time.perf_counter()


_EOCD = struct.Struct("<4s4H2LH")  # the classic end of central directory record
_EOCD64 = struct.Struct("<4sQ2H2L4Q")  # the ZIP64 end record
_LOCATOR64 = struct.Struct("<4sLQL")  # the ZIP64 end record's locator
_LOCAL = struct.Struct("<4s5H3L2H")  # a local file header


def check_one_view(zf: zipfile.ZipFile) -> None:
    """Refuse a package whose directories disagree, so that every reader (the screen, the
    engine, LibreOffice) sees the same parts: a classic end record and a ZIP64 end record that
    list different central directories (Python's zipfile takes the ZIP64 one, LibreOffice the
    classic one), a classic record whose part count is not the directory's, and a part whose
    local header names another part or another compression than the central directory.
    The records are read from the file itself, as Python's zipfile finds them."""
    fp = zf.fp
    if fp is None or not hasattr(fp, "seek"):
        return
    where = fp.tell()
    try:
        _check_one_view(zf, fp)
    finally:
        fp.seek(where)


def _check_one_view(zf: zipfile.ZipFile, fp) -> None:
    def refuse(what: str) -> WorkbookFormatError:
        return WorkbookFormatError(
            f"the package's directories disagree ({what}): readers would see different parts; "
            "damaged or tampered with"
        )

    fp.seek(0, os.SEEK_END)
    size = fp.tell()
    take = min(size, _EOCD.size + 0xFFFF)
    fp.seek(size - take)
    tail = fp.read(take)
    at = tail.rfind(b"PK\x05\x06")
    if at < 0 or at + _EOCD.size > len(tail):
        return  # zipfile opened it without one: nothing to compare
    _sig, _d, _dcd, _n_disk, n_total, cd_size, cd_offset, _c = _EOCD.unpack_from(tail, at)
    infos = zf.infolist()
    eocd = size - take + at
    if eocd >= _LOCATOR64.size:
        fp.seek(eocd - _LOCATOR64.size)
        loc = fp.read(_LOCATOR64.size)
        if loc[:4] == b"PK\x06\x07" and eocd >= _LOCATOR64.size + _EOCD64.size:
            fp.seek(eocd - _LOCATOR64.size - _EOCD64.size)
            rec = fp.read(_EOCD64.size)
            if rec[:4] == b"PK\x06\x06":
                fields = _EOCD64.unpack(rec)
                n64, size64, offset64 = fields[7], fields[8], fields[9]
                for classic, sentinel, z64, what in (
                    (n_total, 0xFFFF, n64, "part counts"),
                    (cd_size, 0xFFFFFFFF, size64, "central directory sizes"),
                    (cd_offset, 0xFFFFFFFF, offset64, "central directory offsets"),
                ):
                    if classic != sentinel and classic != z64:
                        raise refuse(f"the classic and ZIP64 end records give different {what}")
                n_total = n64
    if n_total != 0xFFFF and n_total != len(infos):
        raise refuse(f"the end record counts {n_total} parts, the central directory lists {len(infos)}")
    for info in infos:
        fp.seek(info.header_offset)
        head = fp.read(_LOCAL.size)
        if len(head) < _LOCAL.size or head[:4] != b"PK\x03\x04":
            raise refuse(f"part {info.filename} has no local header where the directory says")
        fields = _LOCAL.unpack(head)
        method, name_len = fields[3], fields[9]
        name = fp.read(name_len)
        utf8 = fields[2] & 0x800
        text = name.decode("utf-8" if utf8 else "cp437", "replace")
        if text != info.orig_filename or method != info.compress_type:
            raise refuse(f"part {info.filename}: its local header says {text!r}, compression {method}")


def check_archive(zf: zipfile.ZipFile, limits: Limits = DEFAULT_LIMITS) -> None:
    """Refuse archives with too many members or declared sizes beyond the limits."""
    infos = zf.infolist()
    if len(infos) > limits.max_members:
        raise over("max_members", f"the package has {len(infos)} parts (limit {limits.max_members})", limits)
    names = zf.namelist()
    folded = Counter(n.lower() for n in names)  # OPC part names are case-insensitive
    if len(folded) != len(names):
        twice = sorted(n for n in names if folded[n.lower()] > 1)
        raise WorkbookFormatError(
            f"the package has two parts named {' and '.join(dict.fromkeys(twice[:2]))} "
            "(part names are case-insensitive; damaged or tampered with)"
        )
    check_one_view(zf)
    total = 0
    for info in infos:
        if info.flag_bits & 0x1:
            raise WorkbookFormatError(
                f"part {info.filename} is encrypted (a password-protected "
                "zip); gputco reads only unencrypted packages"
            )
        if info.file_size > limits.max_stream_bytes:  # what the headers claim: the reads check
            raise over(
                "max_stream_bytes", f"part {info.filename} unpacks to {info.file_size:,} bytes", limits
            )
        if info.file_size > (1 << 20) and info.file_size > limits.max_ratio * max(info.compress_size, 1):
            _check_sizes(info, info.file_size, limits, limits.max_stream_bytes, "max_stream_bytes")
        total += info.file_size
    if total > limits.max_stream_bytes:
        raise over("max_stream_bytes", f"the package unpacks to {total:,} bytes", limits)


#: bytes read so far from each opened package (for max_total_bytes)
_READ: weakref.WeakKeyDictionary[zipfile.ZipFile, int] = weakref.WeakKeyDictionary()


#: what unpacking a damaged or oddly compressed part raises (zipfile, zlib and the streams below)
_UNPACK_ERRORS = (
    zipfile.BadZipFile,
    zlib.error,
    EOFError,
    NotImplementedError,
    RuntimeError,
    ValueError,
    OSError,
)


def _plain_part(zf: zipfile.ZipFile, name: str) -> zipfile.ZipInfo:
    """The entry of part ``name``; an encrypted part is refused."""
    info = zf.getinfo(name)
    if info.flag_bits & 0x1:
        raise WorkbookFormatError(
            f"part {name} is encrypted (a password-protected zip); gputco reads only unencrypted packages"
        )
    return info


def read_member(zf: zipfile.ZipFile, name: str, limits: Limits = DEFAULT_LIMITS) -> bytes:
    """Read one part, stopping as soon as it grows past the limits whatever its header claims."""
    info = _plain_part(zf, name)
    check_time(f"reading {name}")
    try:
        with zf.open(info) as fh:
            room = limits.max_total_bytes - _READ.get(zf, 0)
            data = fh.read(max(0, min(limits.max_member_bytes, room)) + 1)
    except RecalcTimeoutError:  # the alarm, mid-read: the time limit, not a damaged part
        raise
    except _UNPACK_ERRORS as err:
        raise WorkbookFormatError(
            f"part {name} cannot be unpacked (damaged or unsupported compression): {err}"
        ) from None
    _check_sizes(info, len(data), limits)
    _count(zf, len(data), limits)
    return data


def stream_member(
    zf: zipfile.ZipFile, name: str, limits: Limits = DEFAULT_LIMITS, piece: int = 1 << 20
) -> Iterator[bytes]:
    """Read one part in pieces (for parts too big to hold at once), its size and compression
    ratio checked as it grows: at most ``max_stream_bytes`` (memory holds one piece)."""
    info = _plain_part(zf, name)
    size = 0
    try:
        with zf.open(info) as fh:
            while data := fh.read(piece):
                size += len(data)
                _check_sizes(info, size, limits, limits.max_stream_bytes, "max_stream_bytes")
                check_time(f"reading {name}")
                yield data
    except (WorkbookFormatError, RecalcTimeoutError):
        raise
    except _UNPACK_ERRORS as err:
        raise WorkbookFormatError(
            f"part {name} cannot be unpacked (damaged or unsupported compression): {err}"
        ) from None


def check_declared(
    zf: zipfile.ZipFile, parts: Sequence[str], limits: Limits, what: str = "the package's sheets and strings"
) -> None:
    """Refuse before reading when the parts to be held claim more than ``max_total_bytes`` in
    all. The claim is an upper bound: zipfile never yields more than a member's header says."""
    have = set(zf.namelist())
    claimed = sum(zf.getinfo(p).file_size for p in dict.fromkeys(parts) if p in have)
    if claimed + _READ.get(zf, 0) > limits.max_total_bytes:
        raise over(
            "max_total_bytes",
            f"{what} unpack to {claimed:,} bytes (their zip headers)",
            limits,
        )


def _count(zf: zipfile.ZipFile, size: int, limits: Limits) -> None:
    total = _READ.get(zf, 0) + size
    _READ[zf] = total
    if total > limits.max_total_bytes:
        raise over(
            "max_total_bytes", f"the package unpacks to more than {limits.max_total_bytes:,} bytes", limits
        )


def _check_sizes(
    info: zipfile.ZipInfo,
    size: int,
    limits: Limits,
    most: int | None = None,
    budget: str = "max_member_bytes",
) -> None:
    most = limits.max_member_bytes if most is None else most
    if size > most:
        raise over(budget, f"part {info.filename} unpacks to more than {most} bytes", limits)
    if size > (1 << 20) and size > limits.max_ratio * max(info.compress_size, 1):
        raise over(
            "max_ratio",
            f"part {info.filename} has a compression ratio above {limits.max_ratio:g} (zip bomb?)",
            limits,
        )


def check_cells(data: bytes, part: str, before: int, limits: Limits) -> int:
    """Cells held so far with those of the worksheet ``data`` (counted from its cell tags, an
    upper bound read at C speed before anything is parsed); refused past ``max_cells``."""
    lo, hi = data.find(b"sheetData"), data.rfind(b"sheetData")
    n = (
        sum(data.count(tag, lo, hi) for tag in (b"<c ", b"<c>", b"<c/", b":c ", b":c>", b":c/"))
        if lo >= 0
        else 0
    )
    if before + n > limits.max_cells:
        raise over("max_cells", f"the workbook holds more than {limits.max_cells:,} cells ({part})", limits)
    return before + n


def check_strings(data: bytes, part: str, limits: Limits) -> None:
    """Refuse a shared-string table of more than ``max_strings`` items (counted before parsing)."""
    n = data.count(b"<si") + data.count(b":si")
    if n > limits.max_strings:
        raise over("max_strings", f"{part} holds more than {limits.max_strings:,} shared strings", limits)
