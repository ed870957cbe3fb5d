"""Formula text to a small syntax tree, with Excel's operator precedence.

Tokens come from openpyxl's maintained tokenizer; a Pratt parser builds the tree. References are
stored relative to the cell the formula sits in (see :class:`.refs.Ref`), so one tree serves
every cell of a column that holds the "same" formula.

Precedence, highest first (Excel's): ``:`` range, `` `` intersection, ``,`` union, unary ``-``,
``%``, ``^``, ``*`` ``/``, ``+`` ``-``, ``&``, comparisons. ``-2^2`` is 4, ``2^3^2`` is 64.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from openpyxl.formula.tokenizer import Token, Tokenizer, TokenizerError

from gputco.workbook.recalc.base import vec
from gputco.workbook.recalc.base.errors import FormulaSyntaxError
from gputco.workbook.recalc.base.refs import Ref, parse_ref
from gputco.workbook.recalc.base.values import NAME, error


class Node:
    __slots__ = ()


class Const(Node):
    """A literal: number, text, boolean or error."""

    __slots__ = ("arr", "value")

    def __init__(self, value: object) -> None:
        self.value, self.arr = value, vec.const(value)

    def __repr__(self) -> str:
        return repr(self.value)


class Missing(Node):
    """An omitted function argument, as in ``IF(A1,,2)``."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<missing>"


class ArrayConst(Node):
    """An array literal ``{1,2;3,4}`` as a (1, h, w) array."""

    __slots__ = ("arr",)

    def __init__(self, rows: list[list[object]]) -> None:
        h, w = len(rows), max(len(r) for r in rows)
        if any(len(r) != w for r in rows):
            raise ValueError("array constant rows of different lengths")
        self.arr = vec.from_list([v for r in rows for v in r], (1, h, w))

    def __repr__(self) -> str:
        return f"{{{self.arr.tolist()}}}"


class RefNode(Node):
    __slots__ = ("ref",)

    def __init__(self, ref: Ref) -> None:
        self.ref = ref

    def __repr__(self) -> str:
        return f"Ref({self.ref})"


class Unary(Node):
    """Prefix ``-`` (``op='-'``) or postfix percent (``op='%'``)."""

    __slots__ = ("arg", "op")

    def __init__(self, op: str, arg: Node) -> None:
        self.op, self.arg = op, arg

    def __repr__(self) -> str:
        return f"({self.op} {self.arg!r})"


class Binary(Node):
    """An infix operator: arithmetic, ``&``, comparison, ``:``, `` `` (intersection), ``,`` (union)."""

    __slots__ = ("left", "op", "right")

    def __init__(self, op: str, left: Node, right: Node) -> None:
        self.op, self.left, self.right = op, left, right

    def __repr__(self) -> str:
        return f"({self.left!r} {self.op} {self.right!r})"


class Param(Node):
    """A LAMBDA parameter in the lambda's body; replaced by its argument before evaluation."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"<{self.name}>"


class Call(Node):
    __slots__ = ("args", "name")

    def __init__(self, name: str, args: list[Node]) -> None:
        self.name, self.args = name, args

    def __repr__(self) -> str:
        return f"{self.name}({', '.join(map(repr, self.args))})"


#: infix binding powers (left, right); higher binds tighter
_INFIX = {
    "=": (10, 11),
    "<>": (10, 11),
    "<": (10, 11),
    ">": (10, 11),
    "<=": (10, 11),
    ">=": (10, 11),
    "&": (20, 21),
    "+": (30, 31),
    "-": (30, 31),
    "*": (40, 41),
    "/": (40, 41),
    "^": (50, 51),
    " ": (80, 81),
    ":": (90, 91),
    ",": (5, 6),
}
_PREFIX_BP, _POSTFIX_BP = 60, 70
_PREFIXES = ("_xlfn._xlws.", "_xlfn.", "_xlws.", "_xludf.")

#: a range of more than two cells' corners, as Excel writes C14:E14:G13:I14 (same sheet)
_CHAINED_RANGE = re.compile(r"^\$?[A-Za-z]{1,3}\$?[0-9]+(?::\$?[A-Za-z]{1,3}\$?[0-9]+){2,}$")
_LET_NAME = re.compile(r"^(?:_xlpm\.)?[A-Za-z_\\][A-Za-z0-9_.]*$")


def _let_key(text: str) -> str:
    """A LET name as written in the file (``_xlpm.rate``) or typed (``rate``), upper case."""
    up = text.upper()
    return up[6:] if up.startswith("_XLPM.") else up


#: resolves a defined name (upper case) to its tree, or None when the name is not defined
NameResolver = Callable[[str], Node | None]


def function_name(token_value: str) -> str:
    """Canonical upper-case function name from a ``NAME(`` token, without Excel's prefixes.

    >>> function_name("_xlfn.STDEV.S("), function_name("tco_gpu_hour(")
    ('STDEV.S', 'TCO_GPU_HOUR')
    """
    name = token_value[:-1].upper()
    for prefix in _PREFIXES:
        if name.startswith(prefix.upper()):
            return name[len(prefix) :]
    return name


def parse(formula: str, row: int = 1, col: int = 1, names: NameResolver | None = None) -> Node:
    """Parse a formula (with or without the leading ``=``) for a cell at (row, col).

    >>> parse("=-2^2+3%*4")
    (((- 2.0) ^ 2.0) + ((% 3.0) * 4.0))
    >>> parse('=IF(B1,,"x""y")', 1, 1).args[0].ref.rect(1, 1)
    (1, 2, 1, 2)
    """
    return parse_counted(formula, row, col, names)[0]


#: deepest nesting the parser accepts by default (parentheses, function calls, prefix signs, ``^``
#: chains), so that no formula can exhaust Python's stack; see limits.Limits.max_formula_depth
MAX_NESTING = 100


def parse_counted(
    formula: str,
    row: int = 1,
    col: int = 1,
    names: NameResolver | None = None,
    max_nesting: int = MAX_NESTING,
    sheets: tuple[str, ...] = (),
) -> tuple[Node, int]:
    """Parse a formula; also return how many references its text holds (see refs.shape_key).
    ``sheets``: the workbook's sheet names in order, for 3-D references."""
    parser = _Parser(_significant(tokenize(formula)), formula, row, col, names, sheets)
    parser.max_nesting = min(max_nesting, 2 * MAX_NESTING)  # the stack bounds any setting
    node = parser.expr(0)
    if parser.pos != len(parser.tokens):
        raise FormulaSyntaxError(formula, f"unexpected {parser.tokens[parser.pos].value!r}")
    return node, parser.nrefs


def tokenize(formula: str) -> list[Token]:
    """The tokens of a formula (with or without the leading ``=``) as the parser reads them; the
    screen (formula/screen.py) reads formulas through this too.

    >>> [t.value for t in tokenize("SUM(A1,'x y'!B2)")]
    ['SUM(', 'A1', ',', "'x y'!B2", ')']
    """
    text = formula if formula.startswith("=") else "=" + formula
    if "#REF!:" in text.upper():
        text = _collapse_ref_ranges(text)
    try:
        return Tokenizer(text).items
    except TokenizerError as err:
        raise FormulaSyntaxError(formula, str(err)) from None
    except (IndexError, ValueError) as err:  # the tokenizer's own failures on odd input
        raise FormulaSyntaxError(formula, f"cannot split it into tokens ({err})") from None


_REF_RANGE = re.compile(r"#REF!(?::#REF!)+", re.I)


def _collapse_ref_ranges(text: str) -> str:
    """``#REF!:#REF!`` (a range whose cells were deleted) is one #REF! (outside quoted text).

    >>> _collapse_ref_ranges('=SUM(#REF!:#REF!)&"#REF!:#REF!"')
    '=SUM(#REF!)&"#REF!:#REF!"'
    """
    parts = text.split('"')
    parts[::2] = [_REF_RANGE.sub("#REF!", p) for p in parts[::2]]
    return '"'.join(parts)


def depth(node: Node) -> int:
    """How deep the evaluator recurses into a tree (a chain ``a+b+c+...`` counts once).

    >>> depth(parse("=1+2+3+4")), depth(parse("=ABS(ABS(1))")), depth(parse("=((1))"))
    (2, 3, 1)
    """
    deepest = 0
    stack = [(node, 1)]
    while stack:
        n, level = stack.pop()
        deepest = max(deepest, level)
        if isinstance(n, Call):
            stack.extend((a, level + 1) for a in n.args)
        elif isinstance(n, Unary):
            stack.append((n.arg, level + 1))
        elif isinstance(n, Binary):
            chain = n.op not in (":", " ") and isinstance(n.left, Binary) and n.left.op not in (":", " ")
            stack.append((n.left, level if chain else level + 1))
            stack.append((n.right, level + 1))
    return deepest


def _significant(tokens: list[Token]) -> list[Token]:
    """Drop white space, except between two operands where it is the intersection operator."""
    out: list[Token] = []
    for i, tok in enumerate(tokens):
        if tok.type != Token.WSPACE:
            out.append(tok)
            continue
        prev = out[-1] if out else None
        nxt = next((t for t in tokens[i + 1 :] if t.type != Token.WSPACE), None)
        if (
            prev is not None
            and nxt is not None
            and (prev.type == Token.OPERAND or prev.subtype == Token.CLOSE)
            and (nxt.type in (Token.OPERAND, Token.FUNC, Token.PAREN))
            and nxt.subtype in (Token.RANGE, Token.OPEN)
        ):
            out.append(Token(" ", Token.OP_IN))
    return out


#: the name of a 3-D reference's node (``Sheet1:Sheet3!A1``), and the functions that take one:
#: Microsoft's "Create a 3-D reference to the same cell range on multiple worksheets" lists them
THREE_D = "[3-D reference across sheets]"
THREE_D_FUNCTIONS = frozenset(
    "SUM AVERAGE AVERAGEA COUNT COUNTA MAX MAXA MIN MINA PRODUCT STDEV.P STDEV.S STDEVA STDEVPA "
    "VAR.P VAR.S VARA VARPA STDEV STDEVP VAR VARP".split()
)  # and SHEETS, which counts the sheets of its reference (Microsoft's SHEETS page)


def _is_3d(node: Node) -> bool:
    return type(node) is Call and node.name == THREE_D


class _Parser:
    def __init__(self, tokens, formula, row, col, names, sheets=()):
        self.tokens, self.formula, self.row, self.col = tokens, formula, row, col
        self.names = names
        self.sheets = tuple(sheets)  # the workbook's sheets in order (3-D references)
        self.pos = 0
        self.nrefs = 0  # references written in the text, counted as refs.shape_key counts them
        self.nesting = 0
        self.max_nesting = MAX_NESTING
        self.scopes: list[dict[str, Node]] = []  # LET names in force, innermost last

    def fail(self, reason: str):
        raise FormulaSyntaxError(self.formula, reason)

    def peek(self) -> Token | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self) -> Token:
        tok = self.peek()
        if tok is None:
            self.fail("unexpected end of formula")
        self.pos += 1
        return tok

    def expr(self, min_bp: int) -> Node:
        self.nesting += 1
        if self.nesting > self.max_nesting:
            self.fail(
                f"nested more than {self.max_nesting} levels deep (functions, operators and parentheses)"
            )
        try:
            left = self.prefix(self.take())
            while (tok := self.peek()) is not None:
                if tok.type == Token.OP_POST:
                    if _POSTFIX_BP < min_bp:
                        break
                    self.pos += 1
                    left = Unary("%", left)
                elif tok.type == Token.OP_IN:
                    lbp, rbp = _INFIX.get(tok.value, (None, None))
                    if lbp is None:
                        self.fail(f"unknown operator {tok.value!r}")
                    if lbp < min_bp:
                        break
                    self.pos += 1
                    right = self.expr(rbp)
                    if tok.value == ",":  # (A1,B2): a union of ranges
                        left = Call("[union of ranges]", [left, right])
                    else:
                        left = Binary(tok.value, left, right)
                elif tok.value.startswith(":") and (
                    (tok.type == Token.FUNC and tok.subtype == Token.OPEN) or tok.type == Token.OPERAND
                ):  # INDEX(...):INDEX(...), OFFSET(...):A9: the tokenizer glues ':' to what follows
                    if _INFIX[":"][0] < min_bp:
                        break
                    self.pos += 1
                    rest = Token(tok.value[1:], tok.type, tok.subtype)
                    right = self.call(rest) if tok.type == Token.FUNC else self.operand(rest)
                    left = Binary(":", left, right)
                else:
                    break
            return left
        finally:
            self.nesting -= 1

    def prefix(self, tok: Token) -> Node:
        if tok.type == Token.OPERAND:
            return self.operand(tok)
        if tok.type == Token.OP_PRE:
            arg = self.expr(_PREFIX_BP)
            return Unary("-", arg) if tok.value == "-" else arg
        if tok.type == Token.FUNC and tok.subtype == Token.OPEN:
            return self.call(tok)
        if tok.type == Token.PAREN and tok.subtype == Token.OPEN:
            node = self.expr(0)
            close = self.take()
            if close.type != Token.PAREN or close.subtype != Token.CLOSE:
                self.fail("missing ')'")
            return node
        if tok.type == Token.ARRAY and tok.subtype == Token.OPEN:
            return self.array()
        self.fail(f"unexpected {tok.value!r}")

    def call(self, tok: Token) -> Node:
        name = function_name(tok.value)
        if name == "LET":
            return self.let()
        if name == "LAMBDA":
            node = self.lambda_()
            t = self.peek()
            if t is not None and t.type == Token.PAREN and t.subtype == Token.OPEN:
                self.pos += 1
                return self.apply(node, self.arguments(Token.PAREN))  # LAMBDA(x, x+1)(2)
            return node
        bound = self.lambda_named(tok.value[:-1])
        if bound is not None:  # a LET name or a defined name that stands for a LAMBDA
            return self.apply(bound, self.arguments(Token.FUNC))
        if ":" in name:  # A1:INDEX(...): a range from a reference to a function's result
            start, _, func = tok.value.rpartition(":")
            if start and not start.endswith(":"):
                left = self.operand(Token(start, Token.OPERAND, Token.RANGE))
                return Binary(":", left, self.call(Token(func, Token.FUNC, Token.OPEN)))
        if ":" in name or "!" in name:
            name = f"[reference ending in {name.rpartition(':')[2]}]"
        args: list[Node] = []
        if (t := self.peek()) is not None and t.type == Token.FUNC and t.subtype == Token.CLOSE:
            self.pos += 1
            return Call(name, args)
        while True:
            t = self.peek()
            if t is not None and (t.type == Token.SEP or (t.type == Token.FUNC and t.subtype == Token.CLOSE)):
                args.append(Missing())
            else:
                args.append(self.expr(0))
            t = self.take()
            if t.type == Token.FUNC and t.subtype == Token.CLOSE:
                if name in THREE_D_FUNCTIONS or name == "SHEETS":  # Sheet1:Sheet3!A1: one reference a sheet
                    args = [x for a in args for x in (a.args if _is_3d(a) and a.args else [a])]
                return Call(name, args)
            if t.type != Token.SEP or t.subtype != Token.ARG:
                self.fail(f"unexpected {t.value!r} in the arguments of {name}")

    def three_d(self, text: str) -> Node:
        """``Sheet1:Sheet3!A1:B2``: a node holding one reference a sheet, from the first sheet to
        the last in the workbook's order; only the functions of :data:`THREE_D_FUNCTIONS` take
        it (their arguments), elsewhere it stays unsupported. Sheets the workbook lacks: no
        references (unsupported too)."""
        span, _, part = text.rpartition("!")
        if span.startswith("'") and span.endswith("'"):
            span = span[1:-1].replace("''", "'")
        first, _, last = span.partition(":")
        order = [s.upper() for s in self.sheets]
        if first.upper() not in order or last.upper() not in order:
            return Call(THREE_D, [])
        i, j = sorted((order.index(first.upper()), order.index(last.upper())))
        quoted = ("'" + s.replace("'", "''") + "'!" + part for s in self.sheets[i : j + 1])
        refs = [RefNode(parse_ref(q, self.row, self.col)) for q in quoted]
        two = ":" in part and any(c.isdigit() for c in part) and any(c.isalpha() for c in part)
        self.nrefs += 2 if two else 1
        return Call(THREE_D, refs)

    def lambda_(self) -> Node:
        """LAMBDA(param1, ..., calculation) as ``Call("LAMBDA", [Param..., calculation])``;
        Excel saves the parameters as ``_xlpm.name``. The parameters stand for :class:`Param`
        nodes in the calculation, replaced by the arguments when the LAMBDA is applied."""
        params: list[Node] = []
        scope: dict[str, Node] = {}
        self.scopes.append(scope)
        try:
            while True:
                t = self.peek()
                after = self.tokens[self.pos + 1] if self.pos + 1 < len(self.tokens) else None
                if (
                    t is not None
                    and t.type == Token.OPERAND
                    and t.subtype == Token.RANGE
                    and _LET_NAME.match(t.value)
                    and after is not None
                    and after.type == Token.SEP
                    and after.subtype == Token.ARG
                ):
                    self.pos += 2
                    param = Param(_let_key(t.value))
                    params.append(param)
                    scope[param.name] = param
                    continue
                if t is not None and t.type == Token.FUNC and t.subtype == Token.CLOSE:
                    self.pos += 1
                    return Call("LAMBDA", params)  # no calculation: #VALUE! when applied
                body = self.expr(0)
                close = self.take()
                if close.type != Token.FUNC or close.subtype != Token.CLOSE:
                    self.fail("LAMBDA takes parameter names and then one calculation")
                return Call("LAMBDA", [*params, body])
        finally:
            self.scopes.pop()

    def arguments(self, kind: str) -> list[Node]:
        """The arguments of a call up to its closing parenthesis (a function's, or the ``(...)``
        after a LAMBDA); an empty argument is :class:`Missing`."""
        args: list[Node] = []
        t = self.peek()
        if t is not None and t.type == kind and t.subtype == Token.CLOSE:
            self.pos += 1
            return args
        while True:
            t = self.peek()
            if t is not None and (
                t.type == Token.SEP or (t.type == kind and t.subtype == Token.CLOSE) or t.value == ","
            ):
                args.append(Missing())
            else:
                args.append(self.expr(_INFIX[","][0] + 1))  # a comma here separates arguments
            t = self.take()
            if t.type == kind and t.subtype == Token.CLOSE:
                return args
            if not (t.type == Token.SEP and t.subtype == Token.ARG) and t.value != ",":
                self.fail(f"unexpected {t.value!r} in the arguments of a LAMBDA")

    def lambda_named(self, text: str) -> Node | None:
        """The LAMBDA a called name stands for (a LET name, then a defined name), or None."""
        key = _let_key(text)
        for scope in reversed(self.scopes):
            if (bound := scope.get(key)) is not None:
                return bound if type(bound) is Call and bound.name == "LAMBDA" else None
        if self.names is None or text.upper().startswith(("_XLFN.", "_XLWS.", "_XLUDF.")):
            return None
        node = self.names(text.upper())
        return node if type(node) is Call and node.name == "LAMBDA" else None

    @staticmethod
    def apply(fn: Node, args: list[Node]) -> Node:
        """A LAMBDA applied to argument trees: its calculation with the parameters replaced
        (#VALUE! for a wrong number of arguments, as in Excel); ``fn`` may be a LAMBDA call or
        any other tree (then #VALUE!: only LAMBDAs can be called)."""
        if type(fn) is not Call or fn.name != "LAMBDA" or not fn.args:
            return Const(error("#VALUE!"))
        params = fn.args[:-1]
        if len(args) != len(params):
            return Const(error("#VALUE!"))
        return substitute(fn.args[-1], {p.name: a for p, a in zip(params, args, strict=True)})

    def let(self) -> Node:
        """LET(name1, value1, [name2, value2, ...], calculation): each name stands for its
        value's tree in what follows (shared, not copied), so the result is the calculation's
        tree; Excel saves the names as ``_xlpm.name``."""
        scope: dict[str, Node] = {}
        self.scopes.append(scope)
        try:
            while True:
                t = self.peek()
                node = (
                    self.expr(0)
                    if t is None
                    or t.type != Token.OPERAND
                    or t.subtype != Token.RANGE
                    or not _LET_NAME.match(t.value)
                    else None
                )
                if node is None:  # a name, unless it is the last argument (the calculation)
                    after = self.tokens[self.pos + 1] if self.pos + 1 < len(self.tokens) else None
                    if after is not None and after.type == Token.SEP and after.subtype == Token.ARG:
                        self.pos += 2
                        scope[_let_key(t.value)] = self.expr(0)
                        sep = self.take()
                        if sep.type == Token.FUNC and sep.subtype == Token.CLOSE:
                            return Call("LET", [])  # no calculation: #VALUE!
                        if sep.type != Token.SEP or sep.subtype != Token.ARG:
                            self.fail(f"unexpected {sep.value!r} in the arguments of LET")
                        continue
                    node = self.expr(0)
                close = self.take()
                if close.type != Token.FUNC or close.subtype != Token.CLOSE:
                    self.fail("LET takes name, value pairs and then one calculation")
                return Call("LET", [node])
        finally:
            self.scopes.pop()

    def array(self) -> Node:
        rows: list[list[object]] = [[]]
        sign = 1.0
        while True:
            t = self.take()
            if t.type == Token.ARRAY and t.subtype == Token.CLOSE:
                return ArrayConst(rows)
            if t.type == Token.SEP:
                if t.subtype == Token.ROW:
                    rows.append([])
                continue
            if t.type == Token.OP_PRE:
                sign = -sign if t.value == "-" else sign
                continue
            if t.type != Token.OPERAND or t.subtype == Token.RANGE:
                self.fail("array constants hold only numbers, text, booleans and errors")
            v = self.operand(t).value
            rows[-1].append(v * sign if isinstance(v, float) else v)
            sign = 1.0

    def operand(self, tok: Token) -> Node:
        st, v = tok.subtype, tok.value
        if st == Token.NUMBER:
            return Const(float(v))
        if st == Token.TEXT:
            return Const(v[1:-1].replace('""', '"'))
        if st == Token.LOGICAL:
            return Const(v.upper() == "TRUE")
        if st == Token.ERROR:
            return Const(error(v))
        if v.upper().endswith("#REF!"):
            return Const(error("#REF!"))
        if v.startswith("[") or "[" in v.split("!")[0]:
            if "!" in v:
                return Call("[external workbook reference]", [])
            return Call("[structured reference]", [])
        if _CHAINED_RANGE.match(v):  # C14:E14:G13:I14: the range around all its cells
            cells = [RefNode(parse_ref(c, self.row, self.col)) for c in v.split(":")]
            self.nrefs += len(cells)
            node: Node = cells[0]
            for c in cells[1:]:
                node = Binary(":", node, c)
            return node
        try:
            ref = parse_ref(v, self.row, self.col)
        except ValueError as err:
            if str(err) == THREE_D[1:-1]:
                return self.three_d(v)
            return Call(f"[{err}]", [])
        if ref is not None:
            part = v.rpartition("!")[2]
            two = ":" in part and any(c.isdigit() for c in part) and any(c.isalpha() for c in part)
            self.nrefs += 2 if two else 1
            return RefNode(ref)
        if v.upper().startswith("_XLETA."):  # an eta-reduced LAMBDA: _xleta.SUM is the function
            # SUM as a LAMBDA of one value (BYROW(C4:E5,_xleta.SUM): formulas' test.xlsx LOGICAL!S5)
            x = Param("_XLETA.X")
            return Call("LAMBDA", [x, Call(function_name(v[len("_xleta.") :] + "("), [x])])
        for scope in reversed(self.scopes):  # names of the LETs around
            if (bound := scope.get(_let_key(v))) is not None:
                return bound
        node = self.names(v.upper()) if self.names else None
        return node if node is not None else Const(NAME)


def substitute(node: Node, bindings: dict[str, Node]) -> Node:
    """``node`` with the :class:`Param` nodes named in ``bindings`` replaced (a LAMBDA applied);
    subtrees without them are shared, not copied, and shared subtrees stay shared."""
    done: dict[int, Node] = {}

    def sub(n: Node) -> Node:
        key = id(n)
        if key in done:
            return done[key]
        t = type(n)
        if t is Param:
            out = bindings.get(n.name, n)
        elif t is Call:
            if n.name == "LAMBDA" and n.args:  # an inner LAMBDA's parameters hide the outer ones
                inner = {p.name for p in n.args[:-1] if type(p) is Param}
                body = substitute(n.args[-1], {k: v for k, v in bindings.items() if k not in inner})
                out = n if body is n.args[-1] else Call(n.name, [*n.args[:-1], body])
            else:
                args = [sub(a) for a in n.args]
                out = n if all(a is b for a, b in zip(args, n.args, strict=True)) else Call(n.name, args)
        elif t is Binary:
            left, right = sub(n.left), sub(n.right)
            out = n if left is n.left and right is n.right else Binary(n.op, left, right)
        elif t is Unary:
            arg = sub(n.arg)
            out = n if arg is n.arg else Unary(n.op, arg)
        else:
            out = n
        done[key] = out
        return out

    return sub(node)


def children(node: Node) -> tuple[Node, ...] | list[Node]:
    """A node's children in the formula's order: a call's arguments, an operator's operands."""
    t = type(node)
    if t is Call:
        return node.args
    if t is Binary:
        return (node.left, node.right)
    if t is Unary:
        return (node.arg,)
    return ()


def walk(node: Node):
    """Every node of a tree, parents first."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        if isinstance(n, Call):
            stack.extend(reversed(n.args))
        elif isinstance(n, Binary):
            stack.extend((n.right, n.left))
        elif isinstance(n, Unary):
            stack.append(n.arg)


def references(node: Node) -> list[Ref]:
    """The references a tree reads."""
    return [n.ref for n in walk(node) if isinstance(n, RefNode)]


def functions(node: Node) -> set[str]:
    """The function names a tree calls."""
    return {n.name for n in walk(node) if isinstance(n, Call)}
