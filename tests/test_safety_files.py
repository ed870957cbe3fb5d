"""No command loses a user's work: existing files are replaced only when asked, every write goes to
a hidden temporary file beside the destination and is renamed into place only when complete.

The failures are real where the machine allows it (read-only /sys and /proc, a path through a
regular file, a tiny tmpfs or a file-size limit for a full disk, SIGKILL of a real process) and
injected otherwise: the "fails halfway" tests monkeypatch the lowest writer a command uses
(zipfile's ``writestr``, ``Path.write_text``, the batch chunk writer) so that it writes part of the
temporary file and then raises ENOSPC. Nothing under test is replaced.
"""

from __future__ import annotations

import errno
import json
import os
import pathlib
import resource
import shutil
import signal
import stat
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from gputco.addin.cli import main
from gputco.workbook.batch import run as batch

ROOT = Path(__file__).resolve().parents[1]
ORIGINAL = b"the user's precious work\n"
CSV = "id,system,mfu\na,H100_HGX,0.4\nb,GB200_NVL72,0.5\nc,H100_HGX,0.3\n"


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.glob(".~*"))


def _fail_writestr_after(monkeypatch, calls: int) -> dict:
    """zipfile.ZipFile.writestr writes ``calls`` parts, then half of the next one, then ENOSPC."""
    state = {"calls": 0, "tmp_size": None}
    original = zipfile.ZipFile.writestr

    def writestr(self, info, data, *args, **kwargs):
        state["calls"] += 1
        if state["calls"] > calls:
            original(self, info, data[: len(data) // 2], *args, **kwargs)
            self.fp.flush()
            state["tmp_size"] = os.path.getsize(self.filename)
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), self.filename)
        return original(self, info, data, *args, **kwargs)

    monkeypatch.setattr(zipfile.ZipFile, "writestr", writestr)
    return state


def _fail_write_text_halfway(monkeypatch) -> dict:
    state = {"tmp_size": None}

    def write_text(self, data, encoding=None, errors=None, newline=None):
        with open(self, "w", encoding=encoding, errors=errors, newline=newline) as fh:
            fh.write(data[: len(data) // 2])
        state["tmp_size"] = os.path.getsize(self)
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(self))

    monkeypatch.setattr(pathlib.Path, "write_text", write_text)
    return state


def _fail_second_chunk(monkeypatch) -> dict:
    """The batch writer writes the first chunk, then the disk fills up on the second."""
    state = {"tmp_size": None}
    original = batch._Writer.write

    def write(self, table):
        if self.rows:
            self.close()  # flush what was written, as a disk filling up mid-run would leave it
            state["tmp_size"] = os.path.getsize(self.path)
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(self.path))
        return original(self, table)

    monkeypatch.setattr(batch._Writer, "write", write)
    return state


def _setup(tmp_path: Path, name: str) -> tuple[Path, Path]:
    src = tmp_path / "in.csv"
    src.write_text(CSV)
    import pyarrow.csv as pcsv

    pq.write_table(pcsv.read_csv(src), tmp_path / "in.parquet")  # read in chunks of --chunk-rows
    dst = tmp_path / name
    dst.write_bytes(ORIGINAL)
    return src, dst


def _recalc_input(tmp_path: Path) -> Path:
    from hostile import cell, package, sheet

    return package(tmp_path / "book.xlsx", sheet(cell("A1", 2), cell("A2", f="A1*2"), cell("A3", f="A2+1")))


WRITERS = {
    "template": (lambda src, dst: ["template", "-o", str(dst), "--force"], "zip", "out.xlsx"),
    "recalc -o": (lambda src, dst: ["recalc", str(src), "-o", str(dst), "--force"], "zip", "out.xlsx"),
    "batch csv": (
        lambda src, dst: ["batch", str(src), "-o", str(dst), "--force", "--chunk-rows", "1"],
        "chunk",
        "out.csv",
    ),
    "batch parquet": (
        lambda src, dst: ["batch", str(src), "-o", str(dst), "--force", "--chunk-rows", "1"],
        "chunk",
        "out.parquet",
    ),
    "batch xlsx": (
        lambda src, dst: ["batch", str(src), "-o", str(dst), "--force", "--chunk-rows", "1"],
        "chunk",
        "out.xlsx",
    ),
    "docs": (lambda src, dst: ["docs", "-o", str(dst), "--force"], "text", "udfs.md"),
    "addin vba": (lambda src, dst: ["addin", "vba", "-o", str(dst), "--force"], "text", "xlwings_udfs.bas"),
}


@pytest.mark.parametrize("command", sorted(WRITERS))
def test_a_write_failing_halfway_leaves_the_original_intact(command, tmp_path, monkeypatch, capsys):
    argv_of, how, name = WRITERS[command]
    src, dst = _setup(tmp_path, name)
    if command == "recalc -o":
        src = _recalc_input(tmp_path)
    elif how == "chunk":
        src = tmp_path / "in.parquet"
    state = {
        "zip": lambda: _fail_writestr_after(monkeypatch, 2),
        "chunk": lambda: _fail_second_chunk(monkeypatch),
        "text": lambda: _fail_write_text_halfway(monkeypatch),
    }[how]()
    code = main(argv_of(src, dst))
    err = capsys.readouterr().err
    assert code == 3, err
    assert err.count("\n") == 1 and f"cannot write {dst}: the disk is full" in err, err
    assert state["tmp_size"], "the temporary file was partly written when the write failed"
    assert dst.read_bytes() == ORIGINAL
    assert _leftovers(tmp_path) == []


def test_recalc_in_place_failing_halfway_leaves_the_original_intact(tmp_path, monkeypatch, capsys):
    src = _recalc_input(tmp_path)
    before = src.read_bytes()
    state = _fail_writestr_after(monkeypatch, 1)
    assert main(["recalc", str(src), "--in-place"]) == 3
    assert "the disk is full" in capsys.readouterr().err
    assert state["tmp_size"] and src.read_bytes() == before
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize(
    "argv",
    [
        ["template", "-o", "{dst}"],
        ["recalc", "{book}", "-o", "{dst}"],
        ["batch", "{csv}", "-o", "{dst}"],
        ["docs", "-o", "{dst}"],
        ["addin", "vba", "-o", "{dst}"],
    ],
)
def test_no_command_overwrites_without_being_asked(argv, tmp_path, capsys):
    _src, dst = _setup(tmp_path, "existing.xlsx" if argv[0] != "batch" else "existing.csv")
    fill = {"dst": str(dst), "book": str(_recalc_input(tmp_path)), "csv": str(tmp_path / "in.csv")}
    assert main([a.format(**fill) for a in argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "exists; refusing to overwrite it (use --force" in err
    assert dst.read_bytes() == ORIGINAL and _leftovers(tmp_path) == []


# --- real write failures (tests run as root: only situations that bind root too) -------------


@pytest.mark.parametrize(
    ("target", "reason"),
    [
        (
            "/sys/gputco-test.xlsx",
            (
                "permission denied (a read-only folder or file, or the file is open in another program)",
                "the file system is read-only",
            ),
        ),
        ("/proc/gputco-test.xlsx", "files cannot be created in /proc"),
        ("{tmp}/a-file/out.xlsx", "a part of the path is a file, not a folder"),
        ("{tmp}/no-such-folder/out.xlsx", "the folder does not exist"),
        ("{tmp}", "it is a folder"),
        ("/dev/full", "not a regular file (a device, pipe or socket); never replaced"),
    ],
)
def test_unwritable_destinations_give_one_line_and_exit_3(target, reason, tmp_path, capsys):
    (tmp_path / "a-file").write_text("x")
    dst = target.format(tmp=tmp_path)
    for argv in (
        ["template", "-o", dst, "--force"],
        ["docs", "-o", dst, "--force"],
        ["recalc", str(_recalc_input(tmp_path)), "-o", dst, "--force"],
    ):
        assert main(argv) == 3, argv
        err = capsys.readouterr().err
        reasons = reason if isinstance(reason, tuple) else (reason,)  # /sys: rw or ro mount
        assert err in [f"gputco {argv[0]}: error: cannot write {dst}: {r}\n" for r in reasons]
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode), "the device is never replaced"
    assert (tmp_path / "a-file").read_text() == "x" and _leftovers(tmp_path) == []


def test_symlinks_are_written_through(tmp_path, capsys):
    target = tmp_path / "real.md"
    target.write_bytes(ORIGINAL)
    link = tmp_path / "link.md"
    link.symlink_to(target)
    assert main(["docs", "-o", str(link), "--force"]) == 0
    assert link.is_symlink() and target.read_text().startswith("# ")


_FULL_DISK = """
import json, os, subprocess, sys
folder = sys.argv[1]
subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", folder], check=True)
dst = os.path.join(folder, "out.xlsx")
with open(dst, "wb") as fh:
    fh.write(b"the user's precious work\\n")
proc = subprocess.run([sys.executable, "-m", "gputco.addin.cli", "template", "-o", dst, "--force"],
                      capture_output=True, text=True)
print(json.dumps({"code": proc.returncode, "err": proc.stderr, "files": sorted(os.listdir(folder)),
                  "original": open(dst, "rb").read().decode()}))
"""


def _full_disk_run(tmp_path: Path, tmpfs: bool) -> tuple[dict, str]:
    """`gputco template` onto a full disk: a 64 KiB tmpfs in a private mount namespace when the
    machine allows it (root with CAP_SYS_ADMIN), else a 64 KiB file-size limit (RLIMIT_FSIZE,
    which binds root too; the kernel then answers EFBIG instead of ENOSPC)."""
    folder = tmp_path / "tiny"
    folder.mkdir()
    unshare = shutil.which("unshare")
    if (
        tmpfs
        and unshare
        and subprocess.run(
            [unshare, "--mount", "--propagation", "private", "true"], capture_output=True, check=False
        ).returncode
        == 0
    ):
        proc = subprocess.run(
            [unshare, "--mount", "--propagation", "private", sys.executable, "-c", _FULL_DISK, str(folder)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        return json.loads(proc.stdout.strip().splitlines()[-1]), "the disk is full"
    dst = folder / "out.xlsx"
    dst.write_bytes(ORIGINAL)

    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (64 << 10, 64 << 10))

    proc = subprocess.run(
        [sys.executable, "-m", "gputco.addin.cli", "template", "-o", str(dst), "--force"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=limit,
        check=False,
    )
    return (
        {
            "code": proc.returncode,
            "err": proc.stderr,
            "files": sorted(os.listdir(folder)),
            "original": dst.read_text(),
        },
        "the file is larger than the file system or a size limit allows",
    )


@pytest.mark.parametrize("tmpfs", [True, False], ids=["tmpfs-if-allowed", "file-size-limit"])
def test_a_full_disk_gives_one_line_exit_3_and_keeps_the_original(tmp_path, tmpfs):
    result, reason = _full_disk_run(tmp_path, tmpfs)
    assert result["code"] == 3, result
    assert result["err"].count("\n") == 1 and reason in result["err"], result
    assert result["original"] == ORIGINAL.decode()
    assert result["files"] == ["out.xlsx"], "no temporary file is left behind"


def test_sigkill_mid_write_leaves_the_original_and_a_hidden_temporary_file(tmp_path):
    """A kill cannot be cleaned up after: the original stays intact and the hidden
    ``.~NAME.XXXX.tmp`` stays behind (documented in README, Safety)."""
    # 200,000 rows: results of about 680 bytes a row (136 MB) in chunks of 500 rows, killed past
    # their first MiB (1,000,000 rows cost this test 14.2 CPU s, 200,000 6.6 s; 2026-12-06)
    n = 200_000
    src = tmp_path / "scenarios.parquet"
    pq.write_table(
        pa.table(
            {
                "system": pa.array(np.where(np.arange(n) % 2 == 0, "H100_HGX", "GB200_NVL72")),
                "mfu": np.linspace(0.3, 0.6, n),
            }
        ),
        src,
    )
    dst = tmp_path / "results.csv"
    dst.write_bytes(ORIGINAL)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gputco.addin.cli",
            "batch",
            str(src),
            "-o",
            str(dst),
            "--force",
            "--chunk-rows",
            "500",
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline:
            tmp = list(tmp_path.glob(".~results.csv.*.tmp"))
            if tmp and tmp[0].stat().st_size > (1 << 20):
                break
            assert proc.poll() is None, "the batch finished before it could be killed"
            time.sleep(0.01)
        else:
            pytest.fail("the temporary file never grew")
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    assert dst.read_bytes() == ORIGINAL
    left = _leftovers(tmp_path)
    assert len(left) == 1 and left[0].startswith(".~results.csv.") and left[0].endswith(".tmp")
    # the next run of that destination removes what the killed one left (its process is gone);
    # a live writer's temporary file beside it is never touched
    live = tmp_path / f".~results.csv.{os.getpid()}.live.tmp"
    live.write_bytes(b"in use")
    again = subprocess.run(
        [sys.executable, "-m", "gputco.addin.cli", "batch", str(src), "-o", str(dst), "--force"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert again.returncode == 0, again.stderr
    assert _leftovers(tmp_path) == [live.name]
    assert dst.read_bytes() != ORIGINAL


def test_an_output_that_is_a_symlink_is_refused_without_force(tmp_path, capsys):
    """-o link: a link (dangling or not) is never written through unasked: a dangling one would
    create a file at its target, elsewhere."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    dangling = tmp_path / "link.xlsx"
    dangling.symlink_to(elsewhere / "made.xlsx")
    assert main(["template", "-o", str(dangling)]) == 2
    err = capsys.readouterr().err
    assert "is a symbolic link" in err and "which does not exist" in err and "--force" in err
    assert not (elsewhere / "made.xlsx").exists() and _leftovers(tmp_path) == []
    real = tmp_path / "real.md"
    real.write_bytes(ORIGINAL)
    link = tmp_path / "link.md"
    link.symlink_to(real)
    assert main(["docs", "-o", str(link)]) == 2
    assert real.read_bytes() == ORIGINAL


def test_a_write_is_fsynced_before_the_rename_and_the_folder_after_it(tmp_path, monkeypatch):
    """Durability (README "Never half a file"): POSIX does not order a file's data before its
    rename, so the data is flushed first and the folder entry after, on a real file write."""
    from gputco.workbook.xlsx.files import atomic_output

    events: list[tuple[str, str]] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd):
        target = os.readlink(f"/proc/self/fd/{fd}")
        kind = "folder" if os.path.isdir(target) else "file"
        events.append(("fsync " + kind, Path(target).name))
        return real_fsync(fd)

    def replace(src, dst):
        events.append(("rename", Path(src).name))
        return real_replace(src, dst)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    (tmp_path / "out.txt").write_text("old")
    with atomic_output(tmp_path / "out.txt", force=True) as tmp:
        tmp.write_text("new contents")
    assert [e[0] for e in events] == ["fsync file", "rename", "fsync folder"]
    assert events[0][1] == events[1][1] == tmp.name and events[2][1] == tmp_path.name
    assert (tmp_path / "out.txt").read_text() == "new contents"


def test_a_stop_signal_as_the_temporary_file_is_made_leaves_no_file(tmp_path, monkeypatch):
    """A stop signal that arrives right after the hidden temporary file is made, before the
    making returns, still has the file removed (with ``mkstemp`` it was left behind:
    tests/test_hostile3.py's SIGTERM case, once, under load). The signal is sent from inside a
    wrapped ``_create`` so the moment is exact, not a race; the handler raises in the main
    thread, wherever the process's other threads are (pytest-xdist's workers have some)."""
    from gputco.workbook.xlsx import files

    class Stopped(Exception):
        pass

    def stop(signum, frame):
        raise Stopped(signum)

    made = files._create

    def create_then_signal(path):
        made(path)
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(0.5)  # the handler runs here at the latest, whichever thread took the signal

    monkeypatch.setattr(files, "_create", create_then_signal)
    before = signal.signal(signal.SIGTERM, stop)
    try:
        with pytest.raises(Stopped), files.atomic_output(tmp_path / "out.csv") as tmp:
            tmp.write_text("never reached")
    finally:
        signal.signal(signal.SIGTERM, before)
    assert list(tmp_path.iterdir()) == []


def test_the_next_write_removes_a_killed_runs_chart_cache_part_too(tmp_path):
    """A run killed while it cached the charts (workbook/xlsx/chartcache.py writes
    ``.~NAME.PID.XXXX.tmp.charts`` beside its hidden file) leaves that part behind; the next
    write of the destination removes it with the hidden file, as it does ``.tmp`` files, and
    leaves a live writer's files and a name that only looks alike."""
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    out = tmp_path / "out.xlsx"
    killed = [
        tmp_path / f".~out.xlsx.{dead.pid}.a1b2.tmp",
        tmp_path / f".~out.xlsx.{dead.pid}.a1b2.tmp.charts",
    ]
    kept = [
        tmp_path / f".~out.xlsx.{os.getpid()}.c3d4.tmp.charts",
        tmp_path / f".~out.xlsx.{dead.pid}.a1b2.tmpx",
    ]
    for path in (*killed, *kept):
        path.write_bytes(b"left")
    assert main(["template", "-o", str(out), "--force"]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["out.xlsx", *(p.name for p in kept)])
