"""Structured references to Excel tables (``Systems[Capex]``), read from the table parts.

Expected values are worked out by hand from the table below (not by the engine). LibreOffice
7.4 agrees on the plain forms (``T[Col]``, ``T[[#This Row],[Col]]``, ``T[[A]:[B]]``, a bare table
name) but not on ``#All``/``#Data``/``#Headers``/``#Totals`` written this way (it shows #NAME? or
miscounts), so it is not the oracle here.
"""

from __future__ import annotations

import openpyxl
import pytest
from openpyxl.worksheet.table import Table

from gputco.workbook.recalc import evaluate_workbook

ROWS = [("H100", 31250, 0.7), ("B200", 45000, 1.2), ("GB200", 54167, 1.6), ("A100", 15000, 0.5)]
CAPEX, KW = sum(r[1] for r in ROWS), sum(r[2] for r in ROWS)

CASES = [
    ("=SUM(Systems[Capex])", CAPEX),
    ("=COUNTA(Systems[#All])", 23.0),  # 6 rows x 4 columns, one blank (the Cost total)
    ("=ROWS(Systems[#Data])", 4.0),
    ("=INDEX(Systems[#Headers],1,3)", "kW"),
    ("=SUM(Systems[[Capex]:[kW]])", CAPEX + KW),
    ("=MAX(Systems[Cost])", 31250 / 0.7),
    ("=ROWS(Systems[])", 4.0),
    ("=SUM(Systems[#Totals])", CAPEX + KW / 4),  # SUBTOTAL(109, Capex) and (101, kW)
    ('=VLOOKUP("B200",Systems,2,FALSE)', 45000.0),
    ("=ROWS(Systems[[#Headers],[#Data],[kW]])", 5.0),
    ("=SUM(Systems[kw])", KW),
    ('=INDEX(Systems[Capex],MATCH("GB200",Systems[System],0))', 54167.0),
    ('=COUNTIF(Systems[kW],">1")', 2.0),
    ("=Systems[[#This Row],[Capex]]", "#VALUE!"),  # row 14 of another sheet: no such row
    ("=SUM(Systems[Nope])", "#REF!"),
    ("=SUM(Systems[Capex],[1]Other!A1)", "external"),
]


@pytest.fixture(scope="module")
def values(tmp_path_factory):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Data Sheet"
    ws.append(["System", "Capex", "kW", "Cost"])
    for i, (a, b, c) in enumerate(ROWS, start=2):
        # the form Excel writes, and the short @ form some writers use
        cost = "=Systems[[#This Row],[Capex]]/Systems[[#This Row],[kW]]" if i % 2 else "=[@Capex]/[@kW]"
        ws.append([a, b, c, cost])
    ws.append(["Total", "=SUBTOTAL(109,Systems[Capex])", "=SUBTOTAL(101,Systems[kW])", None])
    t = Table(displayName="Systems", ref="A1:D6", totalsRowCount=1)
    t._initialise_columns()
    for col, name in zip(t.tableColumns, ["System", "Capex", "kW", "Cost"], strict=True):
        col.name = name
    ws.add_table(t)
    calc = wb.create_sheet("Calc")
    for i, (f, _) in enumerate(CASES, start=1):
        if f and "[1]" not in f:
            calc.cell(i, 1, f)
    path = tmp_path_factory.mktemp("tables") / "t.xlsx"
    wb.save(path)
    return evaluate_workbook(path, functions={})


def test_this_row_in_both_spellings(values):
    for i, (_, capex, kw) in enumerate(ROWS, start=2):
        assert values[("Data Sheet", f"D{i}")] == pytest.approx(capex / kw, rel=1e-12)


@pytest.mark.parametrize(
    "row",
    [i for i, c in enumerate(CASES, start=1) if "[1]" not in c[0]],
    ids=[c[0] for c in CASES if "[1]" not in c[0]],
)
def test_structured_references(values, row):
    formula, want = CASES[row - 1]
    got = values[("Calc", f"A{row}")]
    if isinstance(want, str) and want.startswith("#"):
        assert str(got) == want, (formula, got)
    elif isinstance(want, str):
        assert got == want, (formula, got)
    else:
        assert got == pytest.approx(want, rel=1e-12), (formula, got)


def test_an_unknown_table_is_named_not_guessed(tmp_path):
    from gputco.workbook.recalc import UnsupportedFunctionError

    wb = openpyxl.Workbook()
    wb.active["A1"] = "=SUM(Nope[Capex])"
    wb.save(tmp_path / "n.xlsx")
    with pytest.raises(UnsupportedFunctionError, match="structured reference"):
        evaluate_workbook(tmp_path / "n.xlsx", functions={})


def test_external_references_are_left_alone():
    from gputco.workbook.recalc.base.structured import Table as T
    from gputco.workbook.recalc.base.structured import expand

    tables = {"SYSTEMS": T("Systems", "S", 1, 1, 6, 4, 1, 1, ("System", "Capex", "kW", "Cost"))}
    assert expand("SUM(Systems[Capex],[1]Other!A1)", tables, "X", 1, 1) == "SUM('S'!$B$2:$B$5,[1]Other!A1)"
    assert expand('"Systems[Capex]"&Systems_2', tables, "X", 1, 1) == '"Systems[Capex]"&Systems_2'
