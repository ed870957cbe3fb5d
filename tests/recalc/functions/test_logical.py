"""LAMBDA and its helpers (functions/logical.py), which LibreOffice 7.4 lacks: the oracle is
Microsoft's documentation, each case with its page.

The examples are the pages' own, on their data (A1:C2 holds 1..6, E1:G2 the letters a..f); an
array result is checked element by element through INDEX, and its size through ROWS/COLUMNS.
Defined names are LAMBDAs as Excel saves them (``_xlfn.LAMBDA(_xlpm.temp, ...)``).
"""

from __future__ import annotations

import pytest
from openpyxl.workbook.defined_name import DefinedName
from recalc_book import ms, s_sheet

from gputco.workbook.recalc import evaluate_workbook
from gputco.workbook.recalc.formula.parse import parse

L = "_xlfn.LAMBDA"
MAP_IF = f"_xlfn.MAP(A1:C2,{L}(_xlpm.a,IF(_xlpm.a>4,_xlpm.a*_xlpm.a,_xlpm.a)))"
SCAN_TEXT = f'_xlfn.SCAN("",E1:G2,{L}(_xlpm.a,_xlpm.b,_xlpm.a&_xlpm.b))'
FACTORIALS = f"_xlfn.SCAN(1,I1:I10,{L}(_xlpm.a,_xlpm.b,_xlpm.a*_xlpm.b))"
MAKE = f"_xlfn.MAKEARRAY(3,3,{L}(_xlpm.r,_xlpm.c,_xlpm.r*_xlpm.c))"
BYROW_MAX = f"_xlfn.BYROW(A1:C2,{L}(_xlpm.array,MAX(_xlpm.array)))"
BYCOL_MAX = f"_xlfn.BYCOL(A1:C2,{L}(_xlpm.array,MAX(_xlpm.array)))"
OMITTED = (
    f'{L}(_xlpm.a,_xlpm.b,IF(_xlfn.ISOMITTED(_xlpm.b),"Parameter b is missing","Parameter b is present"))'
)

CASES = [
    # LAMBDA: "=LAMBDA(number, number + 1)(1)" and the page's named functions
    (f"={L}(_xlpm.number,_xlpm.number+1)(1)", 2.0, "lambda"),
    ("=ToCelsius(104)", 40.0, "lambda"),
    ("=Hypotenuse(3,4)", 5.0, "lambda"),
    ('=CountWords("  Hello   big world ")', 3.0, "lambda"),
    (f"={L}(_xlpm.x,_xlpm.x)", "#CALC!", "lambda"),  # a LAMBDA not called
    (f"={L}(_xlpm.x,_xlpm.x)(1,2)", "#VALUE!", "lambda"),  # "wrong number of parameters"
    ("=Hypotenuse(3)", "#VALUE!", "lambda"),
    # LET page: names for calculations, here a LAMBDA called by its LET name
    (f"=_xlfn.LET(_xlpm.f,{L}(_xlpm.x,_xlpm.x*10),_xlpm.f(4))", 40.0, "let"),
    # MAP: squares the values above 4 of {1,2,3;4,5,6}
    (f"=INDEX({MAP_IF},1,1)", 1.0, "map"),
    (f"=INDEX({MAP_IF},2,2)", 25.0, "map"),
    (f"=INDEX({MAP_IF},2,3)", 36.0, "map"),
    (f"=ROWS({MAP_IF})*10+COLUMNS({MAP_IF})", 23.0, "map"),
    # by the page's definition: several arrays give the LAMBDA their same-position elements
    (f"=INDEX(_xlfn.MAP(A1:C1,A2:C2,{L}(_xlpm.a,_xlpm.b,_xlpm.a*_xlpm.b)),1,3)", 18.0, "map"),
    (f"=_xlfn.MAP(A1:C2,A1:B2,{L}(_xlpm.a,_xlpm.b,_xlpm.a))", "#VALUE!", "map"),  # sizes differ
    ("=_xlfn.MAP(A1:C2,5)", "#VALUE!", "map"),  # not a LAMBDA
    # REDUCE: the sum of the squares of 1..6
    (f"=_xlfn.REDUCE(,A1:C2,{L}(_xlpm.a,_xlpm.b,_xlpm.a+_xlpm.b^2))", 91.0, "reduce"),
    # the page's "count values" pattern, counting those above 3
    (f"=_xlfn.REDUCE(0,A1:C2,{L}(_xlpm.a,_xlpm.b,IF(_xlpm.b>3,_xlpm.a+1,_xlpm.a)))", 3.0, "reduce"),
    # SCAN: running concatenation and factorials
    (f"=INDEX({SCAN_TEXT},1,3)", "abc", "scan"),
    (f"=INDEX({SCAN_TEXT},2,3)", "abcdef", "scan"),
    (f"=INDEX({FACTORIALS},10,1)", 3628800.0, "scan"),
    # BYROW / BYCOL: the largest value of each row / column
    (f"=INDEX({BYROW_MAX},1,1)", 3.0, "byrow"),
    (f"=INDEX({BYROW_MAX},2,1)", 6.0, "byrow"),
    (f"=ROWS({BYROW_MAX})*10+COLUMNS({BYROW_MAX})", 21.0, "byrow"),
    (f"=_xlfn.BYROW(A1:C2,{L}(_xlpm.r,_xlpm.r*2))", "#CALC!", "byrow"),  # an array per row
    (f"=INDEX({BYCOL_MAX},1,1)", 4.0, "bycol"),
    (f"=INDEX({BYCOL_MAX},1,3)", 6.0, "bycol"),
    (f"=ROWS({BYCOL_MAX})*10+COLUMNS({BYCOL_MAX})", 13.0, "bycol"),
    # MAKEARRAY: a multiplication table
    (f"=INDEX({MAKE},2,3)", 6.0, "makearray"),
    (f"=SUM({MAKE})", 36.0, "makearray"),
    (f"=_xlfn.MAKEARRAY(0,2,{L}(_xlpm.r,_xlpm.c,1))", "#VALUE!", "makearray"),
    # ISOMITTED: the page's example, and with both arguments given
    (f"={OMITTED}(1,)", "Parameter b is missing", "isomitted"),
    (f"={OMITTED}(1,2)", "Parameter b is present", "isomitted"),
]


@pytest.fixture(scope="module")
def values(tmp_path_factory):
    wb, ws = s_sheet([[1, 2, 3], [4, 5, 6]])
    for r, row in enumerate([["a", "b", "c"], ["d", "e", "f"]], start=1):
        for c, v in enumerate(row, start=5):
            ws.cell(r, c, v)
    for r in range(1, 11):
        ws.cell(r, 9, r)
    names = {
        "ToCelsius": f"{L}(_xlpm.temp,(5/9)*(_xlpm.temp-32))",
        "Hypotenuse": f"{L}(_xlpm.a,_xlpm.b,SQRT((_xlpm.a^2+_xlpm.b^2)))",
        "CountWords": f'{L}(_xlpm.text,LEN(TRIM(_xlpm.text))-LEN(SUBSTITUTE(TRIM(_xlpm.text)," ",""))+1)',
    }
    for name, text in names.items():
        wb.defined_names[name] = DefinedName(name, attr_text=text)
    for i, (formula, _, _) in enumerate(CASES, start=1):
        ws.cell(20 + i, 1, formula)
    path = tmp_path_factory.mktemp("lambdas") / "lambdas.xlsx"
    wb.save(path)
    out = evaluate_workbook(path, functions={})
    return {f: out[("S", f"A{20 + i}")] for i, (f, _, _) in enumerate(CASES, start=1)}


@pytest.mark.parametrize(("formula", "expected", "page"), CASES, ids=[c[0] for c in CASES])
def test_microsoft_documented_result(values, formula, expected, page):
    got = values[formula]
    url = ms(page)
    if isinstance(expected, str) and expected.startswith("#"):
        assert str(got) == expected, f"{formula}: Microsoft ({url}) {expected}, engine {got!r}"
    else:
        assert got == expected, f"{formula}: Microsoft ({url}) {expected!r}, engine {got!r}"


def test_a_called_lambda_is_its_calculation_with_the_arguments_in_place():
    assert repr(parse(f"={L}(_xlpm.x,_xlpm.y,_xlpm.x*_xlpm.y)(3,A1)")) == "(3.0 * Ref(A1))".replace(
        "Ref(A1)", repr(parse("=A1"))
    )
    # an inner LAMBDA's parameter hides the outer one of the same name
    assert repr(parse(f"={L}(_xlpm.x,{L}(_xlpm.x,_xlpm.x*2)(_xlpm.x+1))(3)")) == "((3.0 + 1.0) * 2.0)"
