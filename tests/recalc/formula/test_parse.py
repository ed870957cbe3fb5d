"""The formula parser and the shape key: precedence, references, names, and grouping safety."""

from __future__ import annotations

import pytest

from gputco.workbook.recalc.base.errors import FormulaSyntaxError
from gputco.workbook.recalc.base.refs import MAX_ROW, Ref, RowTemplate, parse_ref, shape_key
from gputco.workbook.recalc.formula.parse import Binary, Call, Const, RefNode, Unary, parse
from gputco.workbook.recalc.read.package import DefinedName
from gputco.workbook.recalc.run.compile import Compiler


@pytest.mark.parametrize(
    ("formula", "shape"),
    [
        ("=1+2*3", "(1.0 + (2.0 * 3.0))"),
        ("=-2^2", "((- 2.0) ^ 2.0)"),
        ("=2^3^2", "((2.0 ^ 3.0) ^ 2.0)"),
        ("=1-2-3", "((1.0 - 2.0) - 3.0)"),
        ('=1+2&"x"', "((1.0 + 2.0) & 'x')"),
        ("=1<2=TRUE", "((1.0 < 2.0) = True)"),
        ("=50%%", "(% (% 50.0))"),
        ("=-1%", "(- (% 1.0))"),
        ("=(1+2)*3", "((1.0 + 2.0) * 3.0)"),
        ('=IF(1,,"a""b")', "IF(1.0, <missing>, 'a\"b')"),
        ("=#N/A", "#N/A"),
    ],
)
def test_precedence(formula, shape):
    assert repr(parse(formula)) == shape


def test_references():
    node = parse("='My Sheet'!$A$1:B$2", 5, 3)
    assert isinstance(node, RefNode)
    assert node.ref == Ref("My Sheet", 1, 1, 2, -1, True, True, True, False)
    assert node.ref.rect(5, 3) == (1, 1, 2, 2)
    assert parse_ref("$B:$B", 1, 1).rect(7, 7) == (1, 2, MAX_ROW, 2)
    assert parse_ref("2:3", 1, 1).rect(1, 1)[0::2] == (2, 3)
    assert parse_ref("it''s", 1, 1) is None
    intersect = parse("=A1:B2 B1:C3")
    assert isinstance(intersect, Binary) and intersect.op == " "


def test_unsupported_syntax_is_named():
    assert parse("=[1]Book!A1").name == "[external workbook reference]"
    assert parse("=Table1[Col]").name == "[structured reference]"
    assert parse("=Sheet1:Sheet3!A1").name == "[3-D reference across sheets]"
    assert parse("=SUM((A1,B1))").args[0].name == "[union of ranges]"
    # issue 23: a range to a function's result is Excel's range operator, no longer refused
    node = parse("=A1:INDEX(B:B,2)")
    assert node.op == ":" and isinstance(node.left, RefNode) and node.right.name == "INDEX"
    node = parse("=INDEX(A:A,1):INDEX(B:B,2)")
    assert node.op == ":" and (node.left.name, node.right.name) == ("INDEX", "INDEX")
    with pytest.raises(FormulaSyntaxError):
        parse("=SUM(1,")
    with pytest.raises(FormulaSyntaxError):
        parse("=1+")


def test_defined_names_resolve_by_scope():
    names = [
        DefinedName("rate", "Inputs!$B$2"),
        DefinedName("rate", "0.5", sheet="Local"),
        DefinedName("loop", "loop+1"),
    ]
    compiler = Compiler(names, {})
    _, here = compiler.compile("Model", 1, 1, "=rate*2")
    assert isinstance(here.node.left, RefNode) and here.node.left.ref.sheet == "Inputs"
    _, local = compiler.compile("Local", 1, 1, "=rate*2")
    assert isinstance(local.node.left, Const) and local.node.left.value == 0.5
    _, looped = compiler.compile("Model", 1, 1, "=loop")
    assert str(looped.node) == "(#NAME? + 1.0)"
    _, unknown = compiler.compile("Model", 1, 1, "=nothing")
    assert str(unknown.node) == "#NAME?"


def test_shape_key_groups_only_identical_relative_formulas():
    k = [shape_key(f"=A{r}*$B$1+SUM(C{r - 1}:C{r})", r, 4)[0] for r in (2, 3, 50)]
    assert k[0] == k[1] == k[2]
    assert shape_key("=A2*2", 2, 4)[0] != shape_key("=A2*2", 3, 4)[0]
    assert shape_key('="A2"&A2', 2, 1)[0] != shape_key('="A3"&A3', 3, 1)[0]
    assert shape_key("=SUM($A$1:A2)", 2, 2)[0] == shape_key("=SUM($A$1:A3)", 3, 2)[0]


def test_a_key_that_miscounts_references_is_not_shared():
    """If the quick key and the parser disagree on the references, the cell gets its own key."""
    compiler = Compiler([], {"LOG10": object()})
    key1, _ = compiler.compile("S", 1, 1, "=LOG10(A1)")
    key2, _ = compiler.compile("S", 2, 1, "=LOG10(A2)")
    assert key1 == key2
    k3, _ = compiler.compile("S", 5, 1, "='A1'!B5")  # a sheet named like a cell
    k4, _ = compiler.compile("S", 6, 1, "='A1'!B6")
    assert k3 == k4
    # the key rewrites A5 in "[1]S!A5", the parser sees an external reference: not shared
    k5, _ = compiler.compile("S", 5, 1, "=[1]S!A5")
    k6, _ = compiler.compile("S", 6, 1, "=[1]S!A6")
    assert k5 != k6 and k5[:2] == k6[:2]


def test_row_template_recognises_the_next_row():
    t = RowTemplate.of("=A2+A$1+SUM(3:4)+'S 2'!B2", 2)
    assert t.render(3) == "=A3+A$1+SUM(4:5)+'S 2'!B3"


def test_functions_and_prefixes():
    node = parse('=_xlfn.STDEV.S(A1:A3)+_xludf.TCO_GPU_HOUR("H100_HGX")')
    assert isinstance(node.left, Call) and node.left.name == "STDEV.S"
    assert node.right.name == "TCO_GPU_HOUR"
    assert isinstance(parse("=-A1"), Unary)
