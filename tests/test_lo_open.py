"""LibreOffice from any shell: ``gputco open``, the add-in's one-line failure, one error behaviour.

A shell whose PATH begins with a virtualenv's bin (the usual way a Python user works) breaks the
Python that LibreOffice embeds. ``gputco open`` starts LibreOffice with an environment in which it
starts; a plain ``soffice`` from that shell shows one line naming the cause in each TCO_ cell. A
failing TCO_ function is a TEXT in every host (the engine, LibreOffice with the add-in, Excel with
xlwings): ISERROR FALSE, ISTEXT TRUE. LibreOffice's answer is also recorded in
tests/data/lo_udf_error_text.json so the comparison runs where LibreOffice is absent.
"""

from __future__ import annotations

import json
import os
import site
import subprocess
import sys
import time
from pathlib import Path

import openpyxl
import pytest
from lo import requires_soffice, same

from gputco.addin.cli import main
from gputco.udfs import UDFS
from gputco.workbook.recalc import evaluate_workbook
from gputco.workbook.soffice import lo_addin, session
from gputco.workbook.soffice.process import soffice, soffice_env

ROOT = Path(__file__).resolve().parents[1]
RECORDED = ROOT / "tests" / "data" / "lo_udf_error_text.json"
PLAIN_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
#: a failing TCO_ function (a misspelt preset) and what is asked about it
PROBES = {
    "A1": '=TCO_GPU_HOUR("H100_HXG")',
    "A2": "=ISERROR(A1)",
    "A3": "=ISTEXT(A1)",
    "A4": "=ISNUMBER(A1)",
    "A5": "=ISERR(A1)",
    "A6": "=LEFT(A1,4)",
    "A7": '=IFERROR(A1,"caught")',
}


@pytest.fixture(scope="module")
def venv(tmp_path_factory) -> Path:
    """A virtualenv (python -m venv) that sees this Python's packages, as a user's would.

    When this Python is itself a venv, ``--system-site-packages`` would show the *base*
    interpreter's packages only; a ``.pth`` line adds this Python's site directories (and their
    own .pth files, such as an editable install's) to the new one."""
    where = tmp_path_factory.mktemp("venv") / "venv"
    subprocess.run(
        [sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(where)],
        check=True,
        timeout=120,
    )
    (new_site,) = (where / "lib").glob("python3*/site-packages")
    ours = [p for p in site.getsitepackages() if Path(p).is_dir()]
    (new_site / "_parent_site.pth").write_text(
        "import site; " + "; ".join(f"site.addsitedir({p!r})" for p in ours) + "\n", encoding="utf-8"
    )
    return where


def _venv_shell(venv: Path) -> dict[str, str]:
    """The environment of a shell in which ``source venv/bin/activate`` was run."""
    env = dict(os.environ)
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', PLAIN_PATH)}"
    env["VIRTUAL_ENV"] = str(venv)
    env.pop("PYTHONHOME", None)
    return env


def _udf_cells(path: Path) -> list[tuple[str, str]]:
    wb = openpyxl.load_workbook(path)
    return [
        (ws.title, c.coordinate)
        for ws in wb.worksheets
        for row in ws.iter_rows()
        for c in row
        if isinstance(c.value, str) and c.value.startswith("=") and "TCO_" in c.value.upper()
    ]


def _chk_ok(path: Path) -> object:
    wb = openpyxl.load_workbook(path, data_only=True)
    sheet, ref = next(iter(wb.defined_names["chk_ok"].destinations))
    return wb[sheet][ref.replace("$", "")].value


@pytest.fixture(scope="module")
def template(default_template) -> tuple[Path, dict]:
    return default_template, evaluate_workbook(default_template, functions=UDFS)


def _assert_computed_like_the_engine(out: Path, template) -> None:
    book, ours = template
    got = openpyxl.load_workbook(out, data_only=True)
    cells = _udf_cells(book)
    assert len(cells) > 50
    bad = [
        f"{s}!{c}: LibreOffice {got[s][c].value!r} vs engine {ours[(s, c)]!r}"
        for s, c in cells
        if not same(got[s][c].value, ours[(s, c)], 1e-9)
    ]
    assert not bad, "\n".join(bad[:10])
    assert _chk_ok(out) is True


def _gputco_open(python, args, env, *, timeout):
    """`gputco open ARGS` run by ``python`` in ``env`` from the checkout; it must exit 0."""
    proc = subprocess.run(
        [python, "-m", "gputco.addin.cli", "open", *args],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert proc.returncode == 0, proc.stderr
    return proc


def _open_headless(python, env, template, tmp_path):
    """`gputco open --convert-to xlsx` of the template run by ``python`` in ``env``: the file
    LibreOffice writes is computed like the engine's."""
    profile, out = str(tmp_path / "profile"), str(tmp_path / "out")
    args = [str(template[0]), "--profile", profile, "--convert-to", "xlsx", "--outdir", out]
    proc = _gputco_open(python, args, env, timeout=600)
    _assert_computed_like_the_engine(Path(proc.stdout.strip()), template)


@requires_soffice
def test_open_headless_from_a_virtualenv_shell(venv, template, tmp_path):
    # gputco run by the virtualenv's python, in a shell whose PATH begins with its bin
    _open_headless(str(venv / "bin" / "python"), _venv_shell(venv), template, tmp_path)


@requires_soffice
def test_open_headless_from_a_plain_shell(template, tmp_path):
    env = {**os.environ, "PATH": PLAIN_PATH}
    env.pop("VIRTUAL_ENV", None)
    _open_headless(sys.executable, env, template, tmp_path)


@requires_soffice
def test_a_plain_soffice_from_a_virtualenv_shell_says_what_to_do(venv, template, tmp_path):
    profile = session.addin_profile(tmp_path / "profile")
    env = _venv_shell(venv)
    env["SAL_USE_VCLPLUGIN"] = "svp"
    subprocess.run(
        [
            soffice(),
            f"-env:UserInstallation={profile.as_uri()}",
            "--headless",
            "--norestore",
            "--convert-to",
            "xlsx",
            "--outdir",
            str(tmp_path / "out"),
            str(template[0]),
        ],
        env=env,
        capture_output=True,
        timeout=300,
        check=False,
    )
    if Path(sys.base_prefix).resolve() == Path("/usr"):
        # the venv was made from the system's Python, the one LibreOffice embeds (Debian,
        # Ubuntu): its shell does not disturb LibreOffice, and the functions compute
        _assert_computed_like_the_engine(tmp_path / "out" / template[0].name, template)
        return
    got = openpyxl.load_workbook(tmp_path / "out" / template[0].name, data_only=True)
    formulas = openpyxl.load_workbook(template[0])
    shown = set()
    for s, c in _udf_cells(template[0]):
        value = got[s][c].value
        # a cell whose function is not called (an optional input not given, a check that does
        # not apply) shows the text its own IF carries for that case
        if isinstance(value, str) and f'"{value}"' in formulas[s][c].value:
            continue
        shown.add(value)
    assert shown == {lo_addin.BRIDGE_FAILED}, shown
    assert "\n" not in lo_addin.BRIDGE_FAILED and "gputco open" in lo_addin.BRIDGE_FAILED
    assert _chk_ok(tmp_path / "out" / template[0].name) is not True  # a text fails the checks


def test_a_venv_of_the_system_python_keeps_the_system_folders(monkeypatch):
    # python3 -m venv from /usr/bin/python3 (Debian's own Python): base_prefix is /usr, and
    # dropping "this Python's bin folder" took /usr/bin off soffice's PATH: it could not start
    monkeypatch.setattr(sys, "base_prefix", "/usr")
    monkeypatch.setattr(sys, "exec_prefix", "/usr")
    path = soffice_env(base={"PATH": "/tmp/v/bin:/usr/local/bin:/usr/bin:/bin"})["PATH"].split(os.pathsep)
    assert "/usr/bin" in path and "/bin" in path


def test_soffice_env_drops_other_pythons(venv):
    shell = _venv_shell(venv)
    shell["PYTHONHOME"] = "/opt/elsewhere"
    shell["PYTHONPATH"] = "/opt/elsewhere/lib"
    env = soffice_env(headless=False, base=shell)
    assert str(venv / "bin") not in env["PATH"].split(os.pathsep)
    assert not {"PYTHONHOME", "PYTHONPATH", "VIRTUAL_ENV"} & set(env)
    assert "/usr/bin" in env["PATH"].split(os.pathsep)
    assert env.get("SAL_USE_VCLPLUGIN") == os.environ.get("SAL_USE_VCLPLUGIN")
    # a virtualenv that is not named by VIRTUAL_ENV is recognised by its pyvenv.cfg
    del shell["VIRTUAL_ENV"]
    assert str(venv / "bin") not in soffice_env(base=shell)["PATH"].split(os.pathsep)
    assert soffice_env(base=shell)["SAL_USE_VCLPLUGIN"] == "svp"


# -- one error behaviour: a failing TCO_ function is a text ---------------------------------------


def _probe_book(path: Path) -> Path:
    wb = openpyxl.Workbook()
    for ref, formula in PROBES.items():
        wb.active[ref] = formula
    wb.save(path)
    return path


def _answers(values: dict) -> dict[str, object]:
    return {ref: values[ref] for ref in PROBES}


def test_the_engine_keeps_a_failing_function_as_text(tmp_path):
    values = evaluate_workbook(_probe_book(tmp_path / "probe.xlsx"), functions=UDFS)
    engine = _answers({ref: values[("Sheet", ref)] for ref in PROBES})
    recorded = json.loads(RECORDED.read_text(encoding="utf-8"))
    assert engine["A1"].startswith("#N/A unknown system 'H100_HXG'")
    assert (engine["A2"], engine["A3"], engine["A4"], engine["A5"]) == (False, True, False, False)
    assert engine == recorded["values"], "the engine differs from LibreOffice with the add-in"


@requires_soffice
def test_libreoffice_with_the_addin_agrees_live(tmp_path):
    out = session.recalculate(_probe_book(tmp_path / "probe.xlsx"), tmp_path / "lo.xlsx")
    ws = openpyxl.load_workbook(out, data_only=True).active
    live = _answers({ref: ws[ref].value for ref in PROBES})
    recorded = json.loads(RECORDED.read_text(encoding="utf-8"))
    assert live == recorded["values"], "LibreOffice's answer changed: re-record it"


# -- gputco render: the add-in's values, the head of long sheets ----------------------------------


def _printed_text(book: Path, sheets: list[str], tmp: Path, columns=None) -> tuple[str, dict]:
    """The text LibreOffice prints for ``sheets`` of ``book`` as gputco render prints them."""
    from gputco.workbook.soffice.render import _copy_for_print, parse_columns, sheet_names

    tmp.mkdir()
    copy = tmp / "copy.xlsx"
    cols = None if columns is None else parse_columns(columns)
    shown = _copy_for_print(book, copy, set(sheets), sheet_names(book), columns=cols)
    pdf = session.convert(copy, tmp / "pdf", "pdf")
    text = subprocess.run(
        ["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True
    ).stdout
    return text, shown


@requires_soffice
def test_render_shows_passing_checks_and_the_head_of_long_sheets(template, tmp_path):
    text, shown = _printed_text(template[0], ["Checks"], tmp_path / "tpl")
    verdict = next(line for line in text.splitlines() if "All checks pass" in line)
    assert verdict.split()[-1] == "TRUE", verdict
    # no row fails: OK is the last column (a row that does not apply shows applies FALSE, OK TRUE)
    rows = [line.split() for line in text.splitlines() if line.strip()]
    assert all(r[-1] != "FALSE" for r in rows), [r for r in rows if r[-1] == "FALSE"]
    assert text.count("#NAME?") == text.count("(else #NAME?)")
    assert shown["Checks"].startswith("rows 1-60 of ") and "gputco render: rows 1-60 of" in text

    spec = tmp_path / "spec.toml"
    spec.write_text(
        subprocess.run(
            [sys.executable, "-m", "gputco.addin.cli", "scenarios", "--example"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )
    book = tmp_path / "s.xlsx"
    subprocess.run(
        [sys.executable, "-m", "gputco.addin.cli", "scenarios", str(spec), "-o", str(book)],
        cwd=ROOT,
        capture_output=True,
        check=True,
    )
    text, shown = _printed_text(book, ["Summary", "MonteCarlo", "Scenarios"], tmp_path / "scn")
    verdict = next(line for line in text.splitlines() if "all agree" in line)
    assert verdict.split()[-1] == "TRUE", verdict
    assert "#NAME?" not in text and "#VALUE!" not in text
    assert shown["Summary"] == ""
    assert shown["MonteCarlo"].startswith(
        "rows 1-60 of 2,054"
    )  # 2,000 draws below the stats (and P(NPV < 0), P(IRR < cost of capital), P(no IRR))
    assert shown["Scenarios"].startswith("rows 1-60 of ") and ", columns A-" in shown["Scenarios"]


@requires_soffice
def test_render_columns_shows_the_period_tables_debt_columns(template, tmp_path):
    """`render --columns FIRST:LAST`: the period table's debt columns (found by their headings in
    the workbook, as a user reads them off the sheet), which the sheet's head from A never
    reaches."""
    import openpyxl
    from openpyxl.utils import get_column_letter

    ws = openpyxl.load_workbook(template[0], read_only=True)["Cash flow 1"]
    heads = {
        c.value: c.column
        for row in ws.iter_rows(min_row=1, max_row=12)
        for c in row
        if isinstance(c.value, str)
    }
    first, last = get_column_letter(heads["debt at start"]), get_column_letter(heads["DSCR"])
    text, shown = _printed_text(template[0], ["Cash flow 1"], tmp_path / "head")
    assert "debt at start" not in text and "payback point" in text
    text, shown = _printed_text(template[0], ["Cash flow 1"], tmp_path / "debt", columns=f"{first}:{last}")
    for heading in ("debt at start", "interest paid", "debt service", "DSCR"):
        assert heading in text, heading
    assert "payback point" not in text
    assert f"columns {first}-{last} of A-" in shown["Cash flow 1"]
    # the waterfall's columns to the equity, a second range
    first, last = get_column_letter(heads["reserve at end"]), get_column_letter(heads["equity net"])
    text, shown = _printed_text(template[0], ["Cash flow 1"], tmp_path / "water", columns=f"{first}:{last}")
    for heading in ("reserve", "swept", "trapped", "equity net"):  # a long heading wraps: its words
        assert heading in text, heading


def test_render_columns_must_be_a_range_of_columns(template, tmp_path, capsys):
    for bad in ("AP:AB", "S-AH", "A1:B2", "XFE"):
        assert main(["render", str(template[0]), "--png", str(tmp_path), "--columns", bad]) == 2
        err = capsys.readouterr().err
        assert f"--columns {bad!r} is not a range of columns" in err and "A:XFD" in err
    assert not list(tmp_path.glob("*.png"))


@requires_soffice
def test_open_starts_calc_with_the_addin_and_a_clean_environment(venv, tmp_path):
    # The window itself cannot be shown here: a stand-in soffice first on the PATH records how
    # gputco open starts LibreOffice (the profile is made by the real one beforehand).
    profile = session.addin_profile(tmp_path / "profile")
    fake = tmp_path / "fakebin"
    fake.mkdir()
    record = tmp_path / "record.json"
    (fake / "soffice").write_text(
        f"#!{sys.executable}\nimport json, os, sys\n"
        f"json.dump({{'argv': sys.argv[1:], 'env': dict(os.environ)}}, open({str(record)!r}, 'w'))\n"
    )
    (fake / "soffice").chmod(0o755)
    book = _probe_book(tmp_path / "probe.xlsx")
    env = _venv_shell(venv)
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{fake}{os.pathsep}{env['PATH']}"
    env.pop("SAL_USE_VCLPLUGIN", None)
    proc = _gputco_open(
        str(venv / "bin" / "python"), [str(book), "--profile", str(profile)], env, timeout=120
    )
    assert "started LibreOffice Calc" in proc.stdout and str(profile) in proc.stdout
    for _ in range(100):
        if record.exists() and record.stat().st_size:
            break
        time.sleep(0.1)
    seen = json.loads(record.read_text())
    assert seen["argv"] == [f"-env:UserInstallation={profile.as_uri()}", "--calc", str(book)]
    path = seen["env"]["PATH"].split(os.pathsep)
    assert str(venv / "bin") not in path and str(fake) in path
    assert "VIRTUAL_ENV" not in seen["env"] and "SAL_USE_VCLPLUGIN" not in seen["env"]
