"""Timing helpers of the benchmarks that run gputco and LibreOffice headless on the same file."""

from __future__ import annotations

import statistics
import time
from pathlib import Path

from gputco.workbook.recalc import recalc_file
from gputco.workbook.soffice.process import convert, soffice


def times_text(times: list[float]) -> str:
    """The median of some run times and the runs, in seconds."""
    return (
        f"{statistics.median(times):6.2f} s  (median of {len(times)}: {', '.join(f'{t:.2f}' for t in times)})"
    )


def gputco_runs(src: Path, tmp: Path, repeat: int, **options) -> tuple[list[float], object]:
    """gputco's engine recalculating ``src`` ``repeat`` times (into tmp/ours-<i>.xlsx, with
    ``options`` of recalc_file): the times and the last run's report."""
    times, report = [], None
    for i in range(repeat):
        t0 = time.perf_counter()
        report = recalc_file(src, tmp / f"ours-{i}.xlsx", engine="gputco", **options)
        times.append(time.perf_counter() - t0)
    return times, report


def libreoffice_runs(src: Path, tmp: Path, repeat: int) -> tuple[list[float], Path]:
    """LibreOffice headless recalculating ``src`` into .xlsx ``repeat`` times (in tmp/lo-<i>):
    the times and the last file it wrote."""
    times, out = [], None
    for i in range(repeat):
        t0 = time.perf_counter()
        out = convert(src, tmp / f"lo-{i}", "xlsx")
        times.append(time.perf_counter() - t0)
    return times, out


def print_ratio(ours: list[float], lo: list[float], target: float = 0.5) -> None:
    """The ratio of the median times, gputco / LibreOffice, against its target."""
    ratio = statistics.median(ours) / statistics.median(lo)
    print(
        f"ratio gputco / LibreOffice: {ratio:.2f} (target <= {target}: {'ok' if ratio <= target else 'MISSED'})"
    )


def against_libreoffice(
    src: Path, tmp: Path, ours: list[float], repeat: int, skip: bool, labels: tuple[str, str, str]
) -> Path | None:
    """Print gputco's times (``ours``), then, unless ``skip`` or without soffice, LibreOffice's on
    the same file and the ratio. ``labels``: gputco's line, LibreOffice's line, the name of what
    is skipped. Returns the file LibreOffice wrote (None where skipped)."""
    ours_label, lo_label, skipped = labels
    print(f"{ours_label}{times_text(ours)}")
    if skip or soffice() is None:
        print(f"{skipped}: skipped" + ("" if soffice() else " (soffice not installed)"))
        return None
    lo, lo_file = libreoffice_runs(src, tmp, repeat)
    print(f"{lo_label}{times_text(lo)}")
    print_ratio(ours, lo)
    return lo_file
