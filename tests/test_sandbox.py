"""LibreOffice's sandbox (workbook/soffice/sandbox.py): no network for the tree, private TMPDIR
removed afterwards, time and memory budgets on the whole session, and the one runner.

The network test is a positive control: the same probe connects to a listener this test opens on
127.0.0.1 when started directly, and cannot when started through the runner that starts
LibreOffice. No mock: real processes, a real socket, real LibreOffice.
"""

from __future__ import annotations

import ast
import json
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import openpyxl
import pytest
from lo import requires_soffice

from gputco.workbook.soffice import process, sandbox

ROOT = Path(__file__).resolve().parents[1]

PROBE = """
import json, socket, sys
try:
    s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=3)
    s.close()
    print(json.dumps("connected"))
except OSError as err:
    print(json.dumps(type(err).__name__))
"""


def test_a_probe_through_the_runner_cannot_reach_a_local_listener():
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(4)
        port = str(listener.getsockname()[1])
        cmd = [sys.executable, "-c", PROBE, port]
        direct = subprocess.run(cmd, capture_output=True, text=True, timeout=30, check=True)
        assert json.loads(direct.stdout) == "connected"  # the control: the listener is reachable
        boxed = sandbox.run(cmd, timeout=30, env={"PATH": "/usr/bin:/bin"})
    assert boxed.returncode == 0, boxed.stderr
    assert json.loads(boxed.stdout) != "connected", "the sandbox let the probe reach 127.0.0.1"


def test_no_namespace_means_no_untrusted_run_unless_allowed(monkeypatch):
    monkeypatch.setattr(sandbox, "namespace_prefix", lambda: None)
    monkeypatch.setattr(sandbox, "_bwrap", lambda: None)
    monkeypatch.delenv(sandbox.ALLOW_ENV, raising=False)
    with pytest.raises(
        sandbox.SandboxError, match="--unsandboxed-libreoffice or GPUTCO_LIBREOFFICE_UNSANDBOXED"
    ):
        sandbox.run(["true"], timeout=10, env={"PATH": "/usr/bin:/bin"})
    assert sandbox.run(["true"], timeout=10, env={"PATH": "/usr/bin:/bin"}, untrusted=False).returncode == 0
    monkeypatch.setenv(sandbox.ALLOW_ENV, "1")
    assert sandbox.run(["true"], timeout=10, env={"PATH": "/usr/bin:/bin"}).returncode == 0


def test_the_whole_tree_is_killed_at_its_time_budget():
    # a grandchild that would outlive its parent: the session is killed, not only the child
    cmd = ["sh", "-c", "sleep 29.75 & sleep 29.75"]  # a duration no other test sleeps
    with pytest.raises(
        sandbox.SandboxError,
        match=r"time limit of 0.5 s \(raise it with --timeout SECONDS or GPUTCO_TIMEOUT=SECONDS\)",
    ):
        sandbox.run(cmd, timeout=0.5, env={"PATH": "/usr/bin:/bin"}, what="sleep")
    for _ in range(50):  # SIGKILL is sent; on a busy machine the kernel may take a moment
        left = subprocess.run(["pgrep", "-f", "^sleep 29.75$"], capture_output=True, text=True, check=False)
        if left.stdout == "":
            break
        time.sleep(0.1)
    assert left.stdout == ""


def test_the_whole_tree_is_killed_at_its_memory_budget():
    grow = "b = []\nwhile True:\n    b.append(bytearray(16 << 20))\n"
    with pytest.raises(
        sandbox.SandboxError,
        match=r"more than 200 MiB of memory \(budget libreoffice_memory_mb .*--budget "
        r"libreoffice_memory_mb=N or GPUTCO_LIBREOFFICE_MEMORY_MB=N\)",
    ):
        sandbox.run([sys.executable, "-c", grow], timeout=60, env={"PATH": "/usr/bin:/bin"}, memory=200 << 20)


def test_tmpdir_is_private_and_removed(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    ran = sandbox.run(
        [
            sys.executable,
            "-c",
            "import os, tempfile; print(tempfile.mkdtemp(prefix='lu')); print(os.environ['TMPDIR'])",
        ],
        timeout=30,
        env={"PATH": "/usr/bin:/bin"},
    )
    made, private = ran.stdout.split()
    assert Path(made).parent == Path(private) and Path(private).parent == tmp_path
    assert list(tmp_path.iterdir()) == []


@requires_soffice
def test_libreoffice_leaves_no_lu_tmp_and_measures_its_memory(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    wb = openpyxl.Workbook()
    wb.active["A1"], wb.active["A2"] = 2, "=A1*21"
    wb.save(tmp_path / "t.xlsx")
    out = process.convert(tmp_path / "t.xlsx", tmp_path / "out", "xlsx")
    assert openpyxl.load_workbook(out, data_only=True).active["A2"].value == 42
    assert list((tmp_path / "tmp").iterdir()) == [], "no lu*.tmp (or anything) left in TMPDIR"


def test_the_profile_turns_links_and_macros_off(tmp_path):
    process.force_recalc(tmp_path)
    process.force_recalc(tmp_path)  # idempotent: each setting once
    xcu = (tmp_path / "user" / "registrymodifications.xcu").read_text()
    for path, name, _kind, _value in process.SETTINGS:
        assert xcu.count(f'oor:path="{path}"><prop oor:name="{name}"') == 1
    assert '"Link" oor:op="fuse" oor:type="xs:int"><value>1<' in xcu  # Calc: never update links
    assert '"DisableMacrosExecution" oor:op="fuse" oor:type="xs:boolean"><value>true<' in xcu


#: calls that start a process; only sandbox.py may make them
_STARTERS = {
    ("subprocess", name) for name in ("run", "Popen", "call", "check_call", "check_output", "getoutput")
} | {
    ("os", name)
    for name in (
        "system",
        "popen",
        "execv",
        "execvp",
        "execve",
        "execl",
        "execlp",
        "spawnv",
        "spawnvp",
        "spawnl",
        "posix_spawn",
        "posix_spawnp",
        "startfile",
    )
}


def test_only_the_sandbox_starts_processes():
    """LibreOffice is started only through the sandbox: no other product module starts any process."""
    found = []
    for folder in ("workbook", "addin", "udfs"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom) and node.module == "subprocess":
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} from subprocess import")
                f = node.func if isinstance(node, ast.Call) else None
                if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name):
                    if (f.value.id, f.attr) in _STARTERS:
                        found.append(f"{path.relative_to(ROOT)}:{node.lineno} {f.value.id}.{f.attr}")
    others = [f for f in found if not f.startswith("workbook/soffice/sandbox.py:")]
    assert others == [], others
    assert any(f.startswith("workbook/soffice/sandbox.py:") for f in found)  # the scan sees calls


def test_docs_list_every_budget_with_its_default():
    """docs/safety.md states each budget of limits.Limits with the default the code has."""
    import dataclasses
    import re

    from gputco.workbook.recalc import DEFAULT_LIMITS, Limits

    page = (ROOT / "docs" / "safety.md").read_text(encoding="utf-8")
    for f in dataclasses.fields(Limits):
        row = re.search(rf"^\| `{f.name}` \| ([^|]+) \|", page, re.M)
        assert row, f"docs/safety.md has no row for {f.name}"
        value = getattr(DEFAULT_LIMITS, f.name)
        text = row.group(1).strip()
        shown = float(text[:-4]) * (1 << 30) if text.endswith(" GiB") else float(text.replace(",", ""))
        assert shown == value, (f.name, text, value)
    assert sandbox.MEMORY_ENV in page and sandbox.ALLOW_ENV in page


@requires_soffice
def test_render_leaves_nothing_in_tmpdir(tmp_path):
    """`gputco render` as a user runs it, TMPDIR a folder of its own: when it exits, no lu*.tmp
    (LibreOffice's), no profile and no print copy are left there."""
    import os

    tmp = tmp_path / "tmp"
    tmp.mkdir()
    wb = openpyxl.Workbook()
    wb.active["A1"], wb.active["A2"] = 2, "=A1*21"
    wb.save(tmp_path / "t.xlsx")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "gputco.addin.cli",
            "render",
            str(tmp_path / "t.xlsx"),
            "--png",
            str(tmp_path / "png"),
        ],
        cwd=ROOT,
        env={**os.environ, "TMPDIR": str(tmp)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert [p.name for p in (tmp_path / "png").iterdir()] == ["t-Sheet.png"]
    assert list(tmp.iterdir()) == [], "nothing left in TMPDIR"


def test_libreoffice_memory_is_a_budget_like_every_other(monkeypatch):
    """--budget libreoffice_memory_mb=N and GPUTCO_LIBREOFFICE_MEMORY_MB=N set the tree's memory
    budget (the flag over the variable); below 64 MiB is refused naming both."""
    from gputco.workbook.recalc import budgets

    monkeypatch.delenv("GPUTCO_LIBREOFFICE_MEMORY_MB", raising=False)
    assert sandbox.memory_budget() == 4096 << 20
    monkeypatch.setenv("GPUTCO_LIBREOFFICE_MEMORY_MB", "3000")
    assert sandbox.memory_budget() == 3000 << 20
    assert sandbox.memory_budget(budgets(["libreoffice_memory_mb=100"])) == 100 << 20
    with pytest.raises(
        sandbox.SandboxError,
        match=r"at least 64 \(MiB\), not 10 \(--budget libreoffice_memory_mb=N or GPUTCO_LIBREOFFICE_MEMORY_MB=N\)",
    ):
        sandbox.memory_budget(budgets(["libreoffice_memory_mb=10"]))


READ = """
import json, sys
seen = {}
for path in sys.argv[1:]:
    try:
        with open(path, encoding="utf-8") as fh:
            seen[path] = fh.read()
    except OSError as err:
        seen[path] = type(err).__name__
print(json.dumps(seen))
"""


def test_the_tree_sees_only_its_input_and_output_of_the_users_files(tmp_path):
    """Issue 43, finding 5: a secret file beside the input, the user's home and the project's
    folder are out of the sandbox's view; the input is readable, the output folder writable. The
    positive control: the same reads started directly see the secret."""
    import os

    (tmp_path / "in.txt").write_text("input", encoding="utf-8")
    (tmp_path / "secret.txt").write_text("secret", encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()
    home = Path(os.path.expanduser("~"))
    probe = home / f".gputco-sandbox-probe-{os.getpid()}"
    probe.write_text("home", encoding="utf-8")
    try:
        paths = [str(tmp_path / "in.txt"), str(tmp_path / "secret.txt"), str(probe)]
        direct = subprocess.run(
            [sys.executable, "-c", READ, *paths], capture_output=True, text=True, timeout=30, check=True
        )
        seen = json.loads(direct.stdout)
        assert seen[paths[1]] == "secret" and seen[paths[2]] == "home"  # the control: readable outside
        write = f"open({str(out / 'made.txt')!r}, 'w').write('made')\n"
        boxed = sandbox.run(
            [sys.executable, "-c", write + READ, *paths],
            timeout=30,
            env={"PATH": "/usr/bin:/bin"},
            reads=[tmp_path / "in.txt"],
            writes=[out],
        )
    finally:
        probe.unlink()
    assert boxed.returncode == 0, boxed.stderr
    seen = json.loads(boxed.stdout)
    assert seen[paths[0]] == "input"
    assert seen[paths[1]] == "FileNotFoundError", "the sandbox let the tree read a file beside its input"
    assert seen[paths[2]] == "FileNotFoundError", "the sandbox let the tree read the user's home"
    assert (out / "made.txt").read_text(encoding="utf-8") == "made"
    assert not (tmp_path / "secret.txt").parent.joinpath("made.txt").exists()


def test_the_input_is_read_only_in_the_view(tmp_path):
    (tmp_path / "in.txt").write_text("input", encoding="utf-8")
    ran = sandbox.run(
        ["/bin/sh", "-c", f"echo changed > {tmp_path / 'in.txt'}"],
        timeout=30,
        env={"PATH": "/usr/bin:/bin"},
        reads=[tmp_path / "in.txt"],
    )
    assert ran.returncode != 0
    assert (tmp_path / "in.txt").read_text(encoding="utf-8") == "input"


@requires_soffice
@pytest.mark.parametrize("to", ["ods", "xlsx"])
def test_libreoffice_converts_through_the_view(tmp_path, to):
    """An ODS and an XLSX conversion still work in the file-system view (recalculated: 42)."""
    wb = openpyxl.Workbook()
    wb.active["A1"], wb.active["A2"] = 2, "=A1*21"
    wb.save(tmp_path / "t.xlsx")
    out = process.convert(tmp_path / "t.xlsx", tmp_path / "out", to)
    assert out.exists() and out.parent == (tmp_path / "out").resolve()
    back = process.convert(out, tmp_path / "back", "xlsx") if to == "ods" else out
    assert openpyxl.load_workbook(back, data_only=True).active["A2"].value == 42


def test_a_program_installed_outside_the_system_folders_starts_in_the_view(tmp_path):
    """LibreOffice installed anywhere (a folder of its own, found on PATH, <install>/program/soffice)
    starts in the file-system view: its installation is shown read-only, the folder beside it
    not. Before, bubblewrap said 'execvp ...: No such file or directory'."""
    install = tmp_path / "lo"
    (install / "program").mkdir(parents=True)
    (install / "share.txt").write_text("shipped\n", encoding="utf-8")
    (tmp_path / "secret.txt").write_text("secret", encoding="utf-8")
    script = install / "program" / "soffice"
    script.write_text(
        f"#!/bin/sh\ncat {install / 'share.txt'}\ncat {tmp_path / 'secret.txt'} 2>/dev/null || echo hidden\n"
    )
    script.chmod(0o755)
    ran = sandbox.run(["soffice"], timeout=30, env={"PATH": f"{install / 'program'}:/usr/bin:/bin"})
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.split() == ["shipped", "hidden"]
    assert sandbox.program_folder("soffice", f"{install / 'program'}:/usr/bin") == str(install)
