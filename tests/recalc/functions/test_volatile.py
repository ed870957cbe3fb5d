"""The volatile functions, reproducibly: RAND, RANDBETWEEN and RANDARRAY at a pinned seed
(numpy's default_rng, ``gputco recalc --seed``), NOW and TODAY at a pinned clock (``--now``),
INFO and CELL("filename") where the workbook defines the answer; ``--check`` recomputes volatile
cells and those depending on them without comparing them with the stored values.

Sources: Microsoft's RAND, RANDBETWEEN, RANDARRAY, TODAY, INFO and CELL pages (their examples),
identities (same seed, same values; RAND in [0, 1)), numpy's generator itself, and LibreOffice
live for the clock (TODAY() and the values derived from it, at the current time).
"""

from __future__ import annotations

import datetime

import numpy as np
import openpyxl
import pytest
from lo import recalculate, requires_soffice, values
from recalc_book import ms, s_sheet

from gputco.addin import cli
from gputco.workbook.recalc import UnsupportedFunctionError, evaluate_workbook, recalc_file

NOW = datetime.datetime(2026, 1, 31, 9, 30)
EPOCH = datetime.date(1899, 12, 30)  # serial 0 of the 1900 date system, after 1900-03-01


def _book(tmp_path, rows=(), cells=None, name="v.xlsx"):
    wb, _ = s_sheet(rows, cells)
    path = tmp_path / name
    wb.save(path)
    return path


def _column(got, col: str, n: int) -> list:
    return [got[("S", f"{col}{r}")] for r in range(1, n + 1)]


def test_without_a_seed_random_functions_are_unsupported(tmp_path):
    path = _book(tmp_path, [["=RAND()", "=RANDBETWEEN(1,6)", "=RANDARRAY(2)"]])
    with pytest.raises(UnsupportedFunctionError) as err:
        evaluate_workbook(path, functions={}, now=NOW)
    assert set(err.value.functions) == {"RAND", "RANDBETWEEN", "RANDARRAY"}


def test_rand_is_in_0_1_one_draw_per_cell_and_the_seed_decides(tmp_path):
    """Microsoft (RAND): "an evenly distributed random real number greater than or equal to 0
    and less than 1", a new one in every cell; the same seed gives the same values."""
    path = _book(tmp_path, [["=RAND()"]] * 500)
    a = _column(evaluate_workbook(path, functions={}, seed=7), "A", 500)
    b = _column(evaluate_workbook(path, functions={}, seed=7), "A", 500)
    c = _column(evaluate_workbook(path, functions={}, seed=8), "A", 500)
    assert a == b and a != c
    assert all(0.0 <= x < 1.0 for x in a + c)
    assert len(set(a)) == 500  # one draw per cell, not one per formula group
    assert 0.45 < float(np.mean(a)) < 0.55  # evenly distributed: mean 1/2 (sd of the mean 0.013)
    assert a == np.random.default_rng(7).random(500).tolist()  # the documented generator


def test_randbetween_microsoft_examples(tmp_path):
    """Microsoft's RANDBETWEEN examples: =RANDBETWEEN(1,100) and =RANDBETWEEN(-1,1), whole
    numbers between the bounds, both included."""
    path = _book(tmp_path, [["=RANDBETWEEN(1,100)", "=RANDBETWEEN(-1,1)"]] * 400)
    got = evaluate_workbook(path, functions={}, seed=1)
    hundred, three = _column(got, "A", 400), _column(got, "B", 400)
    assert all(x == int(x) and 1 <= x <= 100 for x in hundred)
    assert set(three) == {-1.0, 0.0, 1.0}
    assert min(hundred) <= 5 and max(hundred) >= 96  # the whole range is drawn from
    assert ms("randbetween")


def test_randbetween_bounds_as_libreoffice_reads_them(tmp_path):
    """Microsoft is silent on fractional bounds and on bottom > top: LibreOffice 7.4 (measured
    2026-12-02) rounds both bounds half away from zero and gives #VALUE! for bottom > top."""
    rows = [["=RANDBETWEEN(1.5,2.5)", "=RANDBETWEEN(-2.5,-1.5)", "=RANDBETWEEN(1.2,1.4)"]] * 200
    path = _book(
        tmp_path, rows, {"D1": "=RANDBETWEEN(2,1)", "E1": '=RANDBETWEEN("a",2)', "F1": "=RANDBETWEEN(TRUE,1)"}
    )
    got = evaluate_workbook(path, functions={}, seed=3)
    assert set(_column(got, "A", 200)) == {2.0, 3.0}
    assert set(_column(got, "B", 200)) == {-3.0, -2.0}
    assert set(_column(got, "C", 200)) == {1.0}
    assert [str(got[("S", c)]) for c in ("D1", "E1")] == ["#VALUE!", "#VALUE!"]
    assert got[("S", "F1")] == 1.0


def test_randarray_microsoft_examples(tmp_path):
    """Microsoft's RANDARRAY examples: RANDARRAY(5,3) in [0, 1), RANDARRAY(5,3,1,100) decimals
    between 1 and 100, RANDARRAY(5,3,1,100,TRUE) whole numbers; 5 rows by 3 columns; min above
    max is #VALUE!."""
    cells = {
        "A1": "=ROWS(RANDARRAY(5,3))",
        "A2": "=COLUMNS(RANDARRAY(5,3))",
        "A3": "=AND(MIN(RANDARRAY(5,3))>=0,MAX(RANDARRAY(5,3))<1)",
        "A4": "=AND(MIN(RANDARRAY(50,3,1,100))>=1,MAX(RANDARRAY(50,3,1,100))<=100)",
        "A5": "=SUMPRODUCT(--(MOD(RANDARRAY(50,3,1,100),1)>0))>0",
        "A6": "=SUMPRODUCT(MOD(RANDARRAY(50,3,1,100,TRUE),1))",
        "A7": "=RANDARRAY(2,2,5,1)",
        "A8": "=ROWS(RANDARRAY())",
        "A9": "=AND(MIN(RANDARRAY(200,1,1,3,TRUE))=1,MAX(RANDARRAY(200,1,1,3,TRUE))=3)",
    }
    got = evaluate_workbook(_book(tmp_path, cells=cells), functions={}, seed=5)
    assert [got[("S", f"A{r}")] for r in (1, 2, 3, 4, 5, 6, 8, 9)] == [
        5.0,
        3.0,
        True,
        True,
        True,
        0.0,
        1.0,
        True,
    ]
    assert str(got[("S", "A7")]) == "#VALUE!"


def test_today_arithmetic_at_a_pinned_clock(tmp_path):
    """Microsoft's TODAY examples at 2026-01-31 09:30: =TODAY() the date, =TODAY()+5 five days
    later, =DATEVALUE("1/1/2030")-TODAY() the days to 1 January 2030, =DAY(TODAY()) and
    =MONTH(TODAY()); and NOW() - TODAY() the time of day."""
    cells = {
        "A1": "=TODAY()",
        "A2": "=TODAY()+5",
        "A3": '=DATEVALUE("1/1/2030")-TODAY()',
        "A4": "=DAY(TODAY())",
        "A5": "=MONTH(TODAY())",
        "A6": "=YEAR(TODAY())",
        "A7": "=NOW()-TODAY()",
    }
    got = evaluate_workbook(_book(tmp_path, cells=cells), functions={}, now=NOW)
    today = float((NOW.date() - EPOCH).days)
    assert got[("S", "A1")] == today
    assert got[("S", "A2")] == today + 5
    assert got[("S", "A3")] == float((datetime.date(2030, 1, 1) - NOW.date()).days) == 1431.0
    assert [got[("S", c)] for c in ("A4", "A5", "A6")] == [31.0, 1.0, 2026.0]
    assert got[("S", "A7")] == pytest.approx(9.5 / 24, abs=1e-9)


def test_info_where_the_workbook_defines_the_answer(tmp_path):
    """Microsoft's INFO page: "numfile" the number of active worksheets (this workbook the only
    one open: its worksheets), "recalc" the calculation mode, "system" "pcdos" for Windows;
    a type_text that is no type is #VALUE!; "directory" and the others depend on the
    application and stay unsupported."""
    wb, _ = s_sheet(
        cells={
            "A1": '=INFO("numfile")',
            "A2": '=INFO("recalc")',
            "A3": '=INFO("SYSTEM")',
            "A4": '=INFO("bogus")',
        }
    )
    wb.create_sheet("T")
    wb.create_sheet("U")
    wb.calculation.calcMode = "manual"
    path = tmp_path / "info.xlsx"
    wb.save(path)
    got = evaluate_workbook(path, functions={})
    assert [got[("S", f"A{r}")] for r in (1, 2, 3)] == [3.0, "Manual", "pcdos"]
    assert str(got[("S", "A4")]) == "#VALUE!"
    with pytest.raises(UnsupportedFunctionError) as err:
        evaluate_workbook(_book(tmp_path, cells={"A1": '=INFO("directory")'}, name="d.xlsx"), functions={})
    assert "INFO (type_text values that depend on the application)" in err.value.functions


def test_cell_filename_and_the_sheet_name_idiom(tmp_path):
    """CELL("filename", A1) is "folder/[file]sheet" of the saved file (Microsoft's CELL page);
    the sheet name idiom MID(CELL("filename"),FIND("]",CELL("filename"))+1,255) gives the
    sheet (without a reference: the sheet active when the file was saved)."""
    wb, _ = s_sheet(
        cells={"A1": '=CELL("filename",A1)', "A2": '=MID(CELL("filename"),FIND("]",CELL("filename"))+1,255)'}
    )
    other = wb.create_sheet("Other sheet")
    other["A1"] = '=CELL("filename",S!B1)'
    other["A2"] = '=CELL("filename")'
    path = tmp_path / "named.xlsx"
    wb.save(path)
    got = evaluate_workbook(path, functions={})
    folder = str(path.resolve().parent)
    assert got[("S", "A1")] == f"{folder}/[named.xlsx]S"
    assert got[("S", "A2")] == "S"
    assert got[("Other sheet", "A1")] == f"{folder}/[named.xlsx]S"
    assert got[("Other sheet", "A2")] == f"{folder}/[named.xlsx]S"  # S was active when saved


def test_check_reports_volatile_cells_apart(tmp_path):
    """With --check, a volatile cell and every cell depending on it are recomputed and listed in
    report.volatile, never counted as differences; other cells are still compared."""
    path = _book(
        tmp_path,
        cells={
            "A1": "=RAND()",
            "A2": "=A1*2",
            "A3": "=A2+1",
            "B1": "=1+1",
            "B2": "=TODAY()",
            "C1": '=INFO("system")',
        },
    )
    report = recalc_file(path, check=True, functions={}, seed=0, now=NOW, engine="gputco")
    assert report.volatile == {("S", 1, 1), ("S", 2, 1), ("S", 3, 1), ("S", 2, 2), ("S", 1, 3)}
    assert [(m.cell, m.computed) for m in report.mismatches] == [("B1", 2.0)]  # openpyxl stores none
    assert "volatile: 5 cells recomputed, not compared" in report.summary()


def test_cli_seed_option(tmp_path, capsys):
    src, out = _book(tmp_path, [["=RANDBETWEEN(1,6)"]] * 20), tmp_path / "out.xlsx"
    assert cli.main(["recalc", str(src), "-o", str(out), "--seed", "42"]) == 0
    first = [r[0] for r in openpyxl.load_workbook(out, data_only=True)["S"].iter_rows(values_only=True)]
    assert cli.main(["recalc", str(src), "-o", str(out), "--seed", "42", "--force"]) == 0
    again = [r[0] for r in openpyxl.load_workbook(out, data_only=True)["S"].iter_rows(values_only=True)]
    assert first == again and set(first) <= {1, 2, 3, 4, 5, 6} and len(set(first)) > 1
    capsys.readouterr()
    assert cli.main(["recalc", str(src), "--check", "--seed", "42"]) == 0
    assert "volatile: 20 cells recomputed" in capsys.readouterr().out
    for bad in ("-1", "one"):
        assert cli.main(["recalc", str(src), "--check", "--seed", bad]) == cli.EXIT_USAGE
        err = capsys.readouterr().err
        assert "--seed" in err and bad in err


@requires_soffice
def test_the_clock_agrees_with_libreoffice(tmp_path):
    """TODAY() and the values derived from it, computed by LibreOffice live and by the engine at
    the current time (--now clock), and INFO("recalc"): equal (the engine at the time before and after LibreOffice
    ran, in case the date changed meanwhile)."""
    cells = {
        "A1": "=TODAY()",
        "A2": "=YEAR(TODAY())",
        "A3": "=MONTH(TODAY())",
        "A4": "=DAY(TODAY())",
        "A5": '=DATEVALUE("2030-01-01")-TODAY()',
        "A6": "=INT(NOW())=TODAY()",
        "A7": "=WEEKDAY(TODAY())",
        "A8": "=EOMONTH(TODAY(),0)",
        "A9": '=INFO("recalc")',
    }
    path = _book(tmp_path, cells=cells)
    before = evaluate_workbook(path, functions={}, now=datetime.datetime.now())
    lo = values(recalculate(path, tmp_path / "lo"))
    after = evaluate_workbook(path, functions={}, now=datetime.datetime.now())
    got = {c: lo[("S", c)] for c in cells}
    lo_serial = {
        c: (float((v.date() - EPOCH).days) if isinstance(v, datetime.datetime) else v) for c, v in got.items()
    }
    assert any(all(lo_serial[c] == e[("S", c)] for c in cells) for e in (before, after)), (lo_serial, before)


def test_a_let_name_drawn_once_is_not_drawn_twice(tmp_path):
    """Microsoft (LET): a name's value is calculated once, so LET(x,RAND(),x-x) is 0 in Excel. The
    engine would draw at each use of the name: such a cell is unsupported (kept as stored, never
    another value); a name used once, and two RAND calls, are computed."""
    cells = {"A1": "=LET(x,RAND(),x-x)", "A2": "=LET(x,RAND(),x*2)", "A3": "=RAND()-RAND()"}
    report = recalc_file(
        _book(tmp_path, cells=cells), check=True, functions={}, seed=1, unsupported="stored", engine="gputco"
    )
    assert report.unsupported == {"RAND/RANDBETWEEN/RANDARRAY in a LET name used more than once": ["S!A1"]}
    assert report.volatile == {("S", 2, 1), ("S", 3, 1)}
