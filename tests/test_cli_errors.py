"""Every user error of every command, through the real console entry (``python -m gputco.addin.cli``):
the documented exit code, exactly one line on stderr, never a traceback; ``--debug`` shows one.

Exit codes (README, "Command line"): 0 success, 1 a check found differences, 2 bad usage or
input, 3 a file could not be written, 4 an internal error (a bug).
"""

from __future__ import annotations

import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import gputco.addin.report
from gputco.addin.cli import main

ROOT = Path(__file__).resolve().parents[1]

REAL = True  # also run through the real console entry (one of each kind per command)

#: (arguments, exit code, a fragment of the one line on stderr[, REAL]); {d}: a folder of test files
BAD = [
    ([], 2, "gputco: error: name a command", REAL),
    (["bogus"], 2, "invalid choice: 'bogus'", REAL),
    (["compare", "--systems", "H100_NVL"], 2, "unknown system 'H100_NVL'", REAL),
    (["compare", "--systems", ",,"], 2, "systems is required"),
    (["compare", "--buyer", "hyperscalar"], 2, "Did you mean hyperscaler?"),
    (["compare", "--model", "gpt5"], 2, "unknown model 'gpt5'"),
    (["compare", "--precision", "fp3"], 2, "unknown precision 'fp3'"),
    (["compare", "--mfu", "abc"], 2, "--mfu must be one number, or one per system", REAL),
    (["compare", "--mfu", "0.5,0.4,0.3"], 2, "--mfu must be a list of one MFU or 2"),
    (["compare", "--mfu", "1.5"], 2, "must be in (0, 1], got 1.5"),
    (["compare", "--mfu", "54"], 2, "--mfu must be in (0, 1], got 54"),
    (["compare", "--mfu", "nan"], 2, "got nan"),
    (["compare", "--bogus"], 2, "unrecognized arguments: --bogus"),
    (["presets", "gpu"], 2, "invalid choice: 'gpu'", REAL),
    (["template", "--systems", "H100,GB200", "-o", "{d}/t.xlsx"], 2, "unknown system 'H100'"),
    (["template", "--buyer", "me", "-o", "{d}/t.xlsx"], 2, "unknown buyer 'me'"),
    (["template", "-o", "{d}/existing.xlsx"], 2, "exists; refusing to overwrite it"),
    (["template", "-o", "{d}/no-folder/t.xlsx"], 3, "the folder does not exist", REAL),
    (["template", "-o", "{d}/a-folder", "--force"], 3, "it is a folder"),
    (["recalc", "{d}/missing.xlsx", "--check"], 2, "missing.xlsx: no such file", REAL),
    (["recalc", "{d}/a-folder", "--check"], 2, "it is a folder, not a file"),
    (["recalc", "{d}/text.xlsx", "--check"], 2, "is not an .xlsx file (not a zip package)", REAL),
    (["recalc", "/proc/self/mem", "--check"], 2, "cannot read /proc/self/mem", REAL),
    (["recalc", "{d}/book.xlsx"], 2, "say where to write"),
    (["recalc", "{d}/book.xlsx", "-o", "{d}/existing.xlsx"], 2, "exists; refusing"),
    (["recalc", "{d}/book.xlsx", "--check", "--in-place"], 2, "not allowed with argument"),
    (["recalc", "{d}/book.xlsx", "--check", "--timeout", "-1"], 2, "--timeout must be in"),
    (["recalc", "{d}/book.xlsx", "--check", "--timeout", "soon"], 2, "invalid float value"),
    (["recalc", "{d}/book.xlsx", "-o", "/sys/out.xlsx"], 3, "cannot write /sys/out.xlsx: ", REAL),
    (["batch", "{d}/missing.csv", "-o", "{d}/o.csv"], 2, "missing.csv: no such file"),
    (["batch", "{d}/a-folder", "-o", "{d}/o.csv"], 2, "it is a folder, not a file"),
    (["batch", "{d}/text.xlsx", "-o", "{d}/o.csv"], 2, "is not an .xlsx file (not a zip package)"),
    (["batch", "{d}/binary.csv", "-o", "{d}/o.csv"], 2, "cannot read it as CSV", REAL),
    (["batch", "{d}/text.xlsx", "-o", "{d}/o.csv", "--in-format", "parquet"], 2, "cannot read it as PARQUET"),
    (["batch", "{d}/bad-number.csv", "-o", "{d}/o.csv"], 2, "row 2, column B (mfu): 'forty' is not a number"),
    (["batch", "{d}/bad-mfu.csv", "-o", "{d}/o.csv"], 2, "row 3, column B (mfu): mfu must be in (0, 1]"),
    (["batch", "{d}/ok.csv", "-o", "{d}/o.csv", "-o", "{d}/o.xlsx"], 2, "argument -o/--output: given twice"),
    (["batch", "{d}/ok.csv", "-o", "{d}/o.csv", "--sep", ";"], 2, "read as CSV with separator ';'"),
    (["batch", "{d}/bad-system.csv", "-o", "{d}/o.csv"], 2, "unknown system 'H100'", REAL),
    (["batch", "{d}/ok.csv", "-o", "{d}/o.txt"], 2, "unknown batch file format 'txt'"),
    (["batch", "{d}/ok.csv", "-o", "{d}/o.csv", "--chunk-rows", "0"], 2, "--chunk-rows must be"),
    (["batch", "{d}/ok.csv", "-o", "{d}/o.csv", "--chunk-rows", "many"], 2, "invalid int value"),
    (["batch", "{d}/ok.csv"], 2, "the following arguments are required: -o/--output"),
    (["docs", "-o", "{d}/existing.xlsx"], 2, "exists; refusing"),
    (["docs", "-o", "/proc/udfs.md"], 3, "files cannot be created in /proc", REAL),
    (["addin"], 2, "the following arguments are required: ACTION"),
    (["addin", "vba", "-o", "{d}/ok.csv/x.bas"], 3, "a part of the path is a file", REAL),
]


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> Path:
    from hostile import cell, package, sheet

    d = tmp_path_factory.mktemp("cli")
    (d / "a-folder").mkdir()
    (d / "existing.xlsx").write_bytes(b"precious")
    (d / "text.xlsx").write_text("not a workbook\n")
    (d / "binary.csv").write_bytes(bytes(range(256)) * 8)
    (d / "ok.csv").write_text("system,mfu\nH100_HGX,0.4\n")
    (d / "bad-number.csv").write_text("system,mfu\nH100_HGX,forty\n")
    (d / "bad-mfu.csv").write_text("system,mfu\nH100_HGX,0.4\nH100_HGX,40\n")
    (d / "bad-system.csv").write_text("system,mfu\nH100,0.4\n")
    package(d / "book.xlsx", sheet(cell("A1", 2), cell("A2", f="A1*2")))
    return d


def _gputco(argv: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "gputco.addin.cli", *argv],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _check(results, cases, files) -> None:
    problems = []
    for (argv, code, fragment, *_real), (returncode, out, err) in zip(cases, results, strict=True):
        lines = [line for line in err.splitlines() if not line.startswith("  row ")]
        if returncode != code or len(lines) != 1 or fragment not in err or "Traceback" in err + out:
            problems.append(f"gputco {' '.join(argv)}: exit {returncode}, stderr {err!r}")
    assert not problems, "\n".join(problems)
    assert (files / "existing.xlsx").read_bytes() == b"precious"
    assert not list(files.glob(".~*")) and not (files / "o.csv").exists()


def test_bad_invocations_through_the_console_entry(files):
    """One invocation of each kind per command (REAL), as a user runs them; the whole table
    runs in-process in the next test, faster, through the same main()."""
    cases = [case for case in BAD if case[3:] == (REAL,)]
    runs = [[a.format(d=files) for a in case[0]] for case in cases]
    with ThreadPoolExecutor(max_workers=4) as pool:
        procs = list(pool.map(_gputco, runs))
    _check([(p.returncode, p.stdout, p.stderr) for p in procs], cases, files)


def test_every_bad_invocation_gives_one_line_and_its_exit_code(files, capsys):
    results = []
    for argv, *_rest in BAD:
        try:
            code = main([a.format(d=files) for a in argv])
        except SystemExit as exit_:  # argparse's own errors leave through SystemExit
            code = exit_.code
        out, err = capsys.readouterr()
        results.append((code, out, err))
    _check(results, BAD, files)


def test_debug_shows_the_traceback(files):
    proc = _gputco(["--debug", "compare", "--systems", "H100_NVL"])
    assert proc.returncode == 1 and "Traceback (most recent call last)" in proc.stderr
    assert "UnknownNameError: unknown system 'H100_NVL'" in proc.stderr


def test_an_unexpected_exception_is_a_bug_exit_4_one_line(monkeypatch, capsys):
    """A failure nobody foresaw (here injected into the comparison report) is reported as a bug."""

    def broken(*_args, **_kwargs):
        raise ZeroDivisionError("float division by zero")

    monkeypatch.setattr(gputco.addin.report, "comparison_table", broken)
    assert main(["compare"]) == 4
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(
        "gputco compare: internal error (ZeroDivisionError: float division by "
        "zero); this is a bug in gputco: please report it"
    )
    with pytest.raises(ZeroDivisionError):
        main(["--debug", "compare"])


def test_a_closed_stdout_is_not_an_error():
    """`gputco presets | head -1`: the reader has gone before gputco writes; no traceback."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "gputco.addin.cli", "presets"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    proc.stdout.close()  # long before the child has started writing its ~18 kB
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 0 and err == ""


def test_a_timeout_in_recalcs_input_check_leaves_no_output(tmp_path, monkeypatch, capsys):
    """Engineer h43's note on issue 43: the input check runs after the output is written; when
    --timeout fires there, the command fails (exit 2, the time limit named) and the output it
    wrote is removed. The control: the same run with a quick check writes the output."""
    import time

    import openpyxl

    from gputco.workbook.xlsx import inputcheck

    wb = openpyxl.Workbook()
    wb.active["A1"], wb.active["A2"] = 2, "=A1*21"
    wb.save(tmp_path / "book.xlsx")
    assert (
        main(["recalc", str(tmp_path / "book.xlsx"), "-o", str(tmp_path / "ok.xlsx"), "--timeout", "30"]) == 0
    )
    assert openpyxl.load_workbook(tmp_path / "ok.xlsx", data_only=True).active["A2"].value == 42
    capsys.readouterr()

    def slow(src):
        time.sleep(10)
        return None, []

    monkeypatch.setattr(inputcheck, "out_of_range", slow)
    code = main(["recalc", str(tmp_path / "book.xlsx"), "-o", str(tmp_path / "out.xlsx"), "--timeout", "2"])
    assert code == 2
    assert "time limit" in capsys.readouterr().err
    assert not (tmp_path / "out.xlsx").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["book.xlsx", "ok.xlsx"]


def test_a_timeout_in_recalcs_input_check_leaves_the_input_of_in_place_as_it_was(
    tmp_path, monkeypatch, capsys
):
    """--in-place writes beside the input and replaces it only once the input check is done: a
    time limit there (exit 2) leaves the input's bytes as they were and no staged file. The
    control: a quick check replaces the input with the recalculated workbook (A2 = 42 stored)."""
    import time

    import openpyxl

    from gputco.workbook.xlsx import inputcheck

    wb = openpyxl.Workbook()
    wb.active["A1"], wb.active["A2"] = 2, "=A1*21"
    book = tmp_path / "book.xlsx"
    wb.save(book)
    before = book.read_bytes()

    def slow(src):
        time.sleep(10)
        return None, []

    with monkeypatch.context() as m:
        m.setattr(inputcheck, "out_of_range", slow)
        assert main(["recalc", str(book), "--in-place", "--timeout", "2"]) == 2
    assert "time limit" in capsys.readouterr().err
    assert book.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["book.xlsx"]
    assert main(["recalc", str(book), "--in-place", "--timeout", "30"]) == 0
    assert f"wrote {book}" in capsys.readouterr().out
    assert openpyxl.load_workbook(book, data_only=True).active["A2"].value == 42
    assert [p.name for p in tmp_path.iterdir()] == ["book.xlsx"]
