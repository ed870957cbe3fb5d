"""The differential fuzzer: random formulas over the engine's whole function table, the engine
against LibreOffice, every disagreement classified (issue 23).

Formulas are generated from a seed (:func:`generate`): one built-in of :data:`FUNCTIONS` (every
entry of the engine's table but the volatile and outside-reaching ones), called with an argument
count it accepts, each argument drawn from typed mixes (:data:`ARGS`): numbers, number-texts,
texts padded with spaces, locale texts ("3,5"), dates and times as text, booleans, blanks,
errors, omitted arguments, array constants, cells of each type and ranges of mixed types on the
sheet ``In`` (:data:`INPUTS`). Sometimes an argument is itself a call (depth 2).

One batch is one workbook (``F!A1:A{n}``, many formulas), evaluated by the engine in-process and
by ONE LibreOffice run (never one process per formula). LibreOffice's answers are recorded in
``tests/data/fuzz_lo.json`` so that the comparison runs, and can fail, where LibreOffice is
absent (tests/recalc/test_fuzz_differential.py); ``benchmarks/fuzz.py --differential`` runs 100,000+.

Every disagreement gets a class from :data:`RULES` (first match wins): a documented
Excel-vs-LibreOffice difference (the engine follows Excel; the rule cites Microsoft's page), one
decided by an Excel-saved file of tests/data/excel_corpus, a function LibreOffice 7.4 lacks, or
``undecided`` (no documentation, no Excel-saved file: both answers are listed). A disagreement no
rule explains is an ``engine bug``.
"""

from __future__ import annotations

import math
import random
import re
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import openpyxl
from lo_record import Err, norm
from openpyxl.utils.formulas import FORMULAE
from openpyxl.worksheet.formula import ArrayFormula

from gputco.workbook.recalc import BUILTINS, FormulaSyntaxError, RecalcError, evaluate_workbook, parse
from gputco.workbook.recalc.functions import ANALYSIS_TOOLPAK, NEVER, excel_functions

#: functions left out: volatile or reaching outside (NEVER), the application's state (CELL,
#: INFO), spill helpers that only Excel 365 writes (ANCHORARRAY, SINGLE)
LEFT_OUT = NEVER | {"CELL", "INFO", "ANCHORARRAY", "SINGLE", "FORMULATEXT", "LET"}
#: functions added after tests/data/fuzz_lo.json was recorded: left out until the recording is
#: refreshed with LibreOffice (REFRESH_COMMAND), which changes the seeded formulas (emptied by the
#: refreshes of 2026-12-02 and 2026-12-04, the latter taking in the 85 functions of that day)
NOT_YET_RECORDED: set[str] = set()
LEFT_OUT |= NOT_YET_RECORDED
FUNCTIONS = tuple(sorted(set(BUILTINS) - LEFT_OUT))

#: Excel 365's dynamic-array functions: Excel writes them with ``_xlfn._xlws.``
_XLWS = {"SORT", "SORTBY", "FILTER", "UNIQUE"}

#: the input sheet ``In``: (cell, value); a value "#..." is an error cell, None is left blank
INPUTS: tuple[tuple[str, object], ...] = (
    ("A1", 2.5),
    ("A2", "3"),
    ("A3", " 3 "),
    ("A4", True),
    ("A5", None),
    ("A6", "#N/A"),
    ("A7", "abc"),
    ("A8", "2024-01-31"),
    ("A9", 45322),
    ("A10", -1),
    *((f"B{r}", float(r)) for r in range(1, 7)),
    ("C1", 1),
    ("C2", "2"),
    ("C3", False),
    ("C4", None),
    ("C5", "x"),
    ("C6", 3),
    ("D1", "a"),
    ("D2", "b*"),
    ("D3", "apple"),
    ("D4", "Apple"),
    ("D5", ""),
    ("D6", "1/31/2024"),
)

#: argument snippets by kind
ARGS: dict[str, tuple[str, ...]] = {
    "number": ("0", "1", "-1", "2.5", "0.5", "3", "10", "1E-9", "1E+10", "45322", "-2.5", "100", "7"),
    "number text": ('"3"', '"2.5"', '"-1"', '"1E1"', '"1,000"', '"$5"', '"10%"', '"0"'),
    "padded text": ('" 3 "', '"3 "', '" 3"', '" 2.5"'),
    "locale text": ('"3,5"', '"1.234,5"', '"1 000"'),
    "date text": (
        '"2024-01-31"',
        '"1/31/2024"',
        '"31-Jan-2024"',
        '"12:00"',
        '"2024-01-31 06:00"',
        '"Jan 31, 2024"',
    ),
    "text": (
        '"abc"',
        '""',
        '"a*"',
        '"?pple"',
        '"ABC"',
        '">2"',
        '"<>"',
        '"="',
        '"<=3"',
        '"<>3"',
        '"=3"',
        '"Y"',
        '"D"',
    ),
    "boolean": ("TRUE", "FALSE"),
    "error": ("#N/A", "#DIV/0!", "#VALUE!", "#NUM!"),
    "omitted": ("",),
    "array": ("{1,2;3,4}", "{1,2,3}", '{1,"a";TRUE,2}', "{0.5}", '{"3";"x"}'),
    "cell": tuple(f"In!{c}" for c, _ in INPUTS if c[0] in "AD"),
    "range": ("In!A1:A10", "In!B1:B6", "In!B1:C6", "In!C1:C6", "In!D1:D6", "In!B:B", "In!A1:D6"),
}
WEIGHTS = {
    "number": 30,
    "number text": 8,
    "padded text": 3,
    "locale text": 2,
    "date text": 4,
    "text": 8,
    "boolean": 4,
    "error": 3,
    "omitted": 3,
    "array": 5,
    "cell": 12,
    "range": 12,
    "call": 6,
}


def _prefixed(name: str) -> str:
    """The name as Excel writes it in a file (``_xlfn.`` for functions newer than Excel 2007)."""
    if name in _XLWS:
        return f"_xlfn._xlws.{name}"
    return name if name in FORMULAE else f"_xlfn.{name}"


def _arg(rng: random.Random, depth: int) -> str:
    kinds = list(WEIGHTS)
    kind = rng.choices(kinds, weights=[WEIGHTS[k] for k in kinds])[0]
    if kind == "call":
        return _call(rng, depth + 1) if depth < 1 else rng.choice(ARGS["number"])
    return rng.choice(ARGS[kind])


#: arguments Excel takes only as references (it refuses to enter ``=COUNTIF(3,">1")``: "There's
#: a problem with this formula"): position -> True, by function
REFERENCE_ARGS: dict[str, Callable[[int], bool]] = {
    "COUNTIF": lambda i: i == 0,
    "SUMIF": lambda i: i in (0, 2),
    "AVERAGEIF": lambda i: i in (0, 2),
    "COUNTIFS": lambda i: i % 2 == 0,
    "SUMIFS": lambda i: i % 2 == 1 or i == 0,
    "AVERAGEIFS": lambda i: i % 2 == 1 or i == 0,
    "MAXIFS": lambda i: i % 2 == 1 or i == 0,
    "MINIFS": lambda i: i % 2 == 1 or i == 0,
    "COUNTBLANK": lambda i: True,
    "SUBTOTAL": lambda i: i > 0,
    "OFFSET": lambda i: i == 0,
    "ROW": lambda i: True,
    "COLUMN": lambda i: True,
    "RANK": lambda i: i == 1,
    "RANK.EQ": lambda i: i == 1,
    "RANK.AVG": lambda i: i == 1,
}


#: size arguments of the functions that build arrays get small values: the fuzzer checks what
#: the answers are; the budgets on array sizes are checked elsewhere (EXPAND(A1:A6,45322,45322)
#: would build two billion cells)
SIZE_ARGS: dict[str, Callable[[int], bool]] = {"SEQUENCE": lambda i: True, "EXPAND": lambda i: i > 0}
SMALL = ("0", "1", "2", "3", "-1", "2.5", "TRUE", '"2"', "", "#N/A")

#: functions that fold every cell of a range argument and that a whole column stalls in
#: LibreOffice 7.4 (``IMSUM(In!B1:C6,In!D1:D6,In!B:B,{1,2;3,4})`` alone ran past 90 s; the engine
#: answers at once): a whole column drawn for them is replaced by the part of it that holds
#: values (``In!B:B`` -> ``In!B1:B6``, the same numbers). The replacement draws no random number,
#: so every other formula of a seed stays the same.
WHOLE_COLUMN_STALLS = {"IMSUM", "IMPRODUCT"}
WHOLE_COLUMNS = {"In!B:B": "In!B1:B6"}


def _call(rng: random.Random, depth: int = 0, names: tuple[str, ...] = ()) -> str:
    name = rng.choice(names or FUNCTIONS)
    spec = BUILTINS[name]
    top = spec.max_args if spec.max_args is not None else spec.min_args + 3
    n = rng.randint(spec.min_args, min(top, spec.min_args + 3))
    by_ref = REFERENCE_ARGS.get(name)
    size = SIZE_ARGS.get(name)
    args = [
        rng.choice(ARGS[rng.choice(("cell", "range"))])
        if by_ref and by_ref(i)
        else rng.choice(SMALL)
        if size and size(i)
        else _arg(rng, depth)
        for i in range(n)
    ]
    if args and all(a == "" for a in args):
        args[0] = rng.choice(ARGS["number"])
    if name in WHOLE_COLUMN_STALLS:
        args = [WHOLE_COLUMNS.get(a, a) for a in args]
    return f"{_prefixed(name)}({','.join(args)})"


def generate(seed: int, n: int, outer: tuple[str, ...] = ()) -> list[str]:
    """``n`` formulas (without "="), the same for the same seed; ``outer``: the functions the
    outer call is drawn from (default every function of the table; inner calls always are)."""
    rng = random.Random(seed)
    return [_call(rng, 0, outer) for _ in range(n)]


#: the functions in the table that the seeded recording does not cover yet, for
#: ``benchmarks/fuzz.py --differential N --not-yet-recorded``
def not_yet_recorded() -> tuple[str, ...]:
    return tuple(sorted(NOT_YET_RECORDED & set(BUILTINS)))


def write_batch(path: Path, formulas: list[str]) -> Path:
    """The batch workbook: the inputs on ``In``, formula k in ``F!A{k+1}``."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "F"
    inp = wb.create_sheet("In")
    for ref, v in INPUTS:
        if v is not None:
            inp[ref] = v
    for k, f in enumerate(formulas, start=1):
        ws.cell(k, 1).value = "=" + f
    wb.save(path)
    return path


def _row(key: str) -> int:
    return int(re.sub(r"\D", "", key))


def engine_values(path: Path, n: int) -> list[object]:
    """The engine's value of every formula (None where it keeps a stored value: unsupported).

    A formula the engine's parser refuses gets the text ``"<refused: FormulaSyntaxError>"``;
    the others are evaluated in one workbook. A batch the engine still refuses whole (another
    RecalcError) is split in halves until the formulas it refuses are found: those get the text
    ``"<refused: ErrorName>"``, the others their values.
    Any other exception is a crash and propagates.
    """
    sheet = openpyxl.load_workbook(path)["F"]  # read once: not once per formula
    formulas = [sheet.cell(k, 1).value[1:] for k in range(1, n + 1)]
    unparsed = [k for k, f in enumerate(formulas) if not _parses(f)]
    if unparsed:  # the parser refuses them one by one; the others in one evaluation, each at its
        # own row (an empty text holds the row of a refused one), not a halving per refusal
        held = set(unparsed)
        rest = ['""' if k in held else f for k, f in enumerate(formulas)]
        out = engine_values(write_batch(path.with_name(f"{path.stem}-parsed.xlsx"), rest), n)
        for k in unparsed:
            out[k] = f"<refused: {FormulaSyntaxError.__name__}>"
        return out
    try:
        got = evaluate_workbook(path, functions={}, unsupported="stored", timeout_s=600)
    except RecalcError as err:
        if n == 1:
            return [f"<refused: {type(err).__name__}>"]
        half = n // 2
        out = []
        for part in (formulas[:half], formulas[half:]):
            sub = write_batch(path.with_name(f"{path.stem}-{len(out)}.xlsx"), part)
            out.extend(engine_values(sub, len(part)))
        return out
    out: list[object] = [None] * n
    for (sheet, cell), v in got.items():
        if sheet == "F":
            out[_row(cell) - 1] = norm(v)
    return out


def _parses(formula: str) -> bool:
    """True where the engine's own parser takes the formula."""
    try:
        parse("=" + formula)
    except RecalcError:
        return False
    return True


#: LibreOffice's time limit for one batch of thousands of formulas (seconds; a batch takes about
#: a minute on an idle core, several on a loaded machine)
LO_TIMEOUT_S = 1200


def libreoffice_values(path: Path, n: int) -> list[object]:
    """LibreOffice's value of every formula: one headless run for the whole batch."""
    from lo import recalculate

    with tempfile.TemporaryDirectory(prefix="gputco-fuzz-") as out:
        wb = openpyxl.load_workbook(recalculate(path, out, timeout=LO_TIMEOUT_S), data_only=True)
        ws = wb["F"]
        return [norm(_unescape(ws.cell(k, 1).value)) for k in range(1, n + 1)]


def _unescape(v: object) -> object:
    """A text as written: OOXML escapes control characters as ``_xHHHH_`` (openpyxl keeps it)."""
    if isinstance(v, str) and "_x" in v:
        return re.sub(r"_x([0-9A-Fa-f]{4})_", lambda m: chr(int(m[1], 16)), v)
    return v


# --- comparison and classification -------------------------------------------------------------


def agree(a: object, b: object) -> bool:
    """Same answer: numbers to 1e-9 relative (1e-12 absolute), errors by code, texts exactly."""
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    if isinstance(a, Err) and isinstance(b, Err):
        return str(a) == str(b)
    return type(a) is type(b) and a == b


MS = "https://support.microsoft.com/en-us/office/"
LO_ERRORS = "https://help.libreoffice.org/latest/en-US/text/scalc/05/02140000.html"


@dataclass(frozen=True)
class Rule:
    """A class of disagreements: ``test(formula, engine, libreoffice)`` says whether it applies."""

    cls: str  # "excel vs libreoffice", "libreoffice lacks", "undecided"
    what: str
    source: str
    test: Callable[..., bool]  # (formula, engine, libreoffice[, row])
    #: the test takes the formula's row on sheet F as a fourth argument (None where unknown)
    by_row: bool = False


def _names(formula: str) -> list[str]:
    """The functions a formula calls, upper case, without Excel's ``_xlfn.`` prefixes."""
    return [
        re.sub(r"^(_XLFN\._XLWS\.|_XLFN\.)", "", m.upper())
        for m in re.findall(r"([A-Za-z_][A-Za-z0-9_.]*)\(", formula)
    ]


def _outer(formula: str) -> str:
    return _names(formula)[0]


def _is_err(v: object, *codes: str) -> bool:
    return isinstance(v, Err) and (not codes or str(v) in codes)


def _num(v: object) -> bool:
    return isinstance(v, float)


@cache
def array_formula_value(formula: str) -> object:
    """The engine's value of ``formula`` entered as a one-cell array formula (Ctrl+Shift+Enter),
    on the batch's input sheet: its top-left element, where references are read whole instead
    of intersected with the formula's cell."""
    with tempfile.TemporaryDirectory(prefix="gputco-fuzz-array-") as folder:
        path = Path(folder) / "array.xlsx"
        write_batch(path, [formula])
        wb = openpyxl.load_workbook(path)
        wb["F"]["A1"] = ArrayFormula("A1", "=" + formula)
        wb.save(path)
        try:
            got = evaluate_workbook(path, functions={}, unsupported="stored", timeout_s=60)
        except RecalcError:
            return None
    return norm(got.get(("F", "A1")))


#: literals of the kinds LibreOffice does not read as numbers where Excel does
_EXCEL_TEXT_NUMBERS = set(ARGS["number text"]) | set(ARGS["date text"])
_PADDED = set(ARGS["padded text"]) | {"In!A3"}
_LOCALE = set(ARGS["locale text"])
#: cells/ranges holding booleans, texts, number-texts or blanks among numbers
_MIXED_REFS = {
    "In!A1:A10",
    "In!A1:D6",
    "In!C1:C6",
    "In!B1:C6",
    "In!D1:D6",
    "In!A2",
    "In!A4",
    "In!A8",
    "In!D6",
}


#: logical values as the fuzzer writes them, and the inputs holding one (In!A4 TRUE, In!C3 FALSE)
_LOGICAL = {"TRUE", "FALSE", "In!A4", "In!C3"}
_LOGICAL_REFS = {"In!A1:A10", "In!A1:D6", "In!B1:C6", "In!C1:C6"}

#: the Excel-saved workbook of vinci1it2000/formulas (EUPL; not copied here): cells it decides
FORMULAS_TEST_XLSX = (
    "https://github.com/vinci1it2000/formulas/blob/master/test/test_files/test.xlsx "
    "(saved by Microsoft Macintosh Excel)"
)


#: an argument that is a call giving a logical value (NOT(-2.5) is FALSE): a text function reads
#: it as the text TRUE or FALSE in Excel, 1 or 0 in LibreOffice, as a literal TRUE or FALSE
_LOGICAL_CALL = re.compile(r"(?:_xlfn\.)?(?:NOT|AND|OR|XOR|TRUE|FALSE|IS[A-Z.]+)\(")


def _has(formula: str, literals: set[str]) -> bool:
    """Whether one of ``literals`` is an argument of the formula (not part of a longer one)."""
    return any(re.search(r"(?<![\w!\"])" + re.escape(x) + r"(?![\w:\"])", formula) for x in literals)


#: Excel 365 functions LibreOffice 7.4 does not have (it answers #NAME?); compared nowhere
LO_LACKS = {
    "XLOOKUP", "XMATCH", "SORT", "SORTBY", "FILTER", "UNIQUE", "SEQUENCE", "LET", "CHOOSECOLS",
    "CHOOSEROWS", "DROP", "TAKE", "EXPAND", "HSTACK", "VSTACK", "TOCOL", "TOROW", "WRAPCOLS",
    "WRAPROWS",
}  # fmt: skip
#: functions LibreOffice 7.4.7.2 answers #NAME? to as they are written in .xlsx (``_xlfn.``) in
#: the 100,000-formula run of 2026-12-02 (ISOMITTED 238 of 245 formulas, LAMBDA 237 of 258,
#: IMSEC 252 of 267, ...; the others pass an error argument through before the name is looked up)
LO_LACKS |= {
    "LAMBDA", "ISOMITTED", "MAP", "REDUCE", "SCAN", "BYROW", "BYCOL", "MAKEARRAY",
    "BINOM.DIST.RANGE", "IMSEC", "IMSECH", "IMCSC", "IMCSCH", "IMCOT", "IMTAN", "IMSINH", "IMCOSH",
}  # fmt: skip
DATE_FUNCTIONS = {
    "DAY", "MONTH", "YEAR", "WEEKDAY", "EDATE", "EOMONTH", "DATEDIF", "NETWORKDAYS",
    "NETWORKDAYS.INTL", "WORKDAY", "WORKDAY.INTL", "DAYS", "YEARFRAC", "DATE", "HOUR", "MINUTE",
    "SECOND", "TEXT", "DATEVALUE", "DAYS360", "WEEKNUM", "ISOWEEKNUM",
}  # fmt: skip
ENGINEERING = {
    "BIN2DEC", "BIN2HEX", "BIN2OCT", "DEC2BIN", "DEC2HEX", "DEC2OCT", "HEX2BIN", "HEX2DEC",
    "HEX2OCT", "OCT2BIN", "OCT2DEC", "OCT2HEX",
}  # fmt: skip
#: functions whose number arguments typed directly may be number-texts (Microsoft's MAX, MIN,
#: SUM, AVERAGE, MEDIAN, COUNT, STDEV..., VAR..., PRODUCT pages: "text representations of
#: numbers that you type directly into the list of arguments are counted")
TEXT_FUNCTIONS = {
    "FIND", "SEARCH", "LEFT", "RIGHT", "MID", "LEN", "SUBSTITUTE", "REPLACE", "UPPER", "LOWER",
    "CLEAN", "TRIM", "EXACT", "REPT", "CONCATENATE", "CONCAT", "T", "PROPER", "CODE", "TEXT",
}  # fmt: skip
AGGREGATES = {
    "SUM", "MIN", "MAX", "AVERAGE", "MEDIAN", "COUNT", "PRODUCT", "STDEV", "STDEV.S", "STDEV.P",
    "STDEVP", "VAR", "VAR.S", "VAR.P", "VARP", "MODE", "MODE.SNGL", "NPV", "LARGE", "SMALL",
    "PERCENTILE", "PERCENTILE.INC", "PERCENTILE.EXC", "QUARTILE", "QUARTILE.INC", "QUARTILE.EXC",
    "RANK", "RANK.EQ", "RANK.AVG", "SUMSQ", "AVERAGEA", "MAXA", "MINA", "STDEVA", "STDEVPA",
    "VARA", "VARPA", "COUNTA", "SUBTOTAL", "AGGREGATE", "IRR", "DEVSQ", "AVEDEV", "F.TEST", "FTEST",
    "COVAR",
}  # fmt: skip


#: errors Microsoft's page of the function names for arguments outside its domain, where
#: LibreOffice 7.4 gives a value or another error (its Err:502 is saved as #VALUE!): function ->
#: (the errors, what the page says)
DOCUMENTED_ERRORS = {
    "EXPON.DIST": ("#NUM!", '"If x < 0, EXPON.DIST returns the #NUM! error value"'),
    "EXPONDIST": ("#NUM!", '"If x < 0, EXPONDIST returns the #NUM! error value"'),
    "ISEVEN": ("#VALUE!", '"If number is nonnumeric, ISEVEN returns the #VALUE! error value"'),
    "ISODD": ("#VALUE!", '"If number is nonnumeric, ISODD returns the #VALUE! error value"'),
    "CHAR": ("#VALUE!", "number: a number between 1 and 255"),
    "T.TEST": (
        "#NUM! #N/A",
        "tails or type other than 1/2, 1/2/3 #NUM!; paired arrays of different counts #N/A",
    ),
    "TTEST": ("#NUM! #N/A", "as T.TEST"),
    "F.TEST": ("#DIV/0!", "fewer than 2 data points or a variance of zero: #DIV/0!"),
    "FTEST": ("#DIV/0!", "as F.TEST"),
    "CHISQ.TEST": ("#N/A", "ranges with different numbers of data points: #N/A"),
    "CHITEST": ("#N/A", "as CHISQ.TEST"),
    "PERCENTRANK.INC": ("#NUM!", "significance < 1: #NUM!"),
    "PERCENTRANK.EXC": ("#NUM!", "significance < 1: #NUM!"),
    "PERCENTRANK": ("#NUM!", "significance < 1: #NUM!"),
    "MODE.MULT": ("#N/A", "no duplicate data points: #N/A"),
    "ISFORMULA": (
        "#VALUE!",
        '"If reference is not a valid data type, such as a defined name that is not a reference, '
        'ISFORMULA returns the #VALUE! error value"',
    ),
    "EFFECT": ("#NUM!", '"If nominal_rate <= 0 or if npery < 1, EFFECT returns the #NUM! error value"'),
    "CHIDIST": ("#NUM!", '"If x is negative, CHIDIST returns the #NUM! error value"'),
    "LOGNORMDIST": (
        "#NUM!",
        '"If x <= 0 or if standard_dev <= 0, LOGNORMDIST returns the #NUM! error value"',
    ),
    "BETADIST": ("#NUM!", '"If x < A, x > B, or A = B, BETADIST returns the #NUM! error value"'),
    "LOGNORM.DIST": (
        "#NUM!",
        '"If x <= 0 or if standard_dev <= 0, LOGNORM.DIST returns the #NUM! error value"',
    ),
    "BETA.INV": ("#NUM!", '"If probability <= 0 or probability > 1, BETA.INV returns the #NUM! error value"'),
    "BETAINV": ("#NUM!", '"If probability <= 0 or probability > 1, BETAINV returns the #NUM! error value"'),
    "NEGBINOM.DIST": (
        "#NUM!",
        '"If number_f < 0 or number_s < 1, NEGBINOM.DIST returns the #NUM! error value" (both truncated)',
    ),
    "NEGBINOMDIST": (
        "#NUM!",
        '"If number_f < 0 or number_s < 1, NEGBINOMDIST returns the #NUM! error value" (both truncated)',
    ),
    "HYPGEOM.DIST": (
        "#NUM!",
        "sample_s below the larger of 0 and number_sample - number_pop + population_s, or above the "
        "lesser of number_sample and population_s: #NUM!",
    ),
    "HYPGEOMDIST": ("#NUM!", "as HYPGEOM.DIST"),
    "ATAN2": ("#DIV/0!", '"If both x_num and y_num are 0, ATAN2 returns the #DIV/0! error value"'),
    "DELTA": (
        "#VALUE!",
        '"If number1 is nonnumeric, DELTA returns the #VALUE! error value. If number2 is '
        'nonnumeric, DELTA returns the #VALUE! error value" (an empty text is nonnumeric)',
    ),
    **{
        name: (
            "#VALUE! #NUM!",
            f'"If settlement or maturity is not a valid date, {name} returns the #VALUE! error '
            f'value"; "If frequency is any number other than 1, 2, or 4" or "If settlement >= '
            f'maturity", #NUM!',
        )
        for name in ("COUPDAYBS", "COUPDAYS", "COUPDAYSNC", "COUPNCD", "COUPNUM", "COUPPCD")
    },
    "YIELD": (
        "#NUM! #VALUE!",
        '"If frequency is any number other than 1, 2, or 4, YIELD returns the #NUM! error value"; '
        '"If settlement >= maturity", "If rate < 0", "If pr <= 0 or if redemption <= 0", "If basis '
        '< 0 or if basis > 4": #NUM!; dates that are not valid: #VALUE!',
    ),
    "GAMMA.DIST": ("#NUM!", '"If x < 0, GAMMA.DIST returns the #NUM! error value"'),
    "GAMMADIST": ("#NUM!", '"If x < 0, GAMMADIST returns the #NUM! error value"'),
    **{
        name: (
            "#NUM!",
            f"{arg} <= 0, settlement after maturity (TBILLPRICE, TBILLYIELD: on or after), or "
            "maturity more than one year after settlement: #NUM!",
        )
        for name, arg in (("TBILLPRICE", "discount"), ("TBILLYIELD", "pr"), ("TBILLEQ", "discount"))
    },
    **{
        name: (
            "#NUM! #VALUE!",
            f'"If inumber is a value that is not in the x+yi or x+yj text format, {name} returns the '
            f'#NUM! error value. If inumber is a logical value, {name} returns the #VALUE! error value"',
        )
        for name in ("IMSINH", "IMCOSH", "IMTAN", "IMCOT", "IMSEC", "IMSECH", "IMCSC", "IMCSCH")
    },
}


def _documented_error(f: str, e: object) -> bool:
    entry = DOCUMENTED_ERRORS.get(_outer(f))
    return entry is not None and _is_err(e, *entry[0].split())


RULES: tuple[Rule, ...] = (
    Rule(
        "libreoffice lacks",
        "a function LibreOffice 7.4 does not have (it answers #NAME?): not comparable",
        "LibreOffice 7.4 (functions added in 24.8: XLOOKUP, SORT, FILTER, ...)",
        lambda f, e, lo: (
            bool(LO_LACKS & set(_names(f))) or (_is_err(lo, "#NAME?") and not _is_err(e, "#NAME?"))
        ),
    ),
    Rule(
        "excel vs libreoffice",
        "an argument out of its domain: Excel's #NUM!; LibreOffice's Err:502 (invalid argument) is "
        "saved in .xlsx as #VALUE!",
        MS + "how-to-correct-a-num-error-f5193bfc-4400-43f4-88c4-8e1dcca0428b; " + LO_ERRORS,
        lambda f, e, lo: _is_err(e, "#NUM!") and _is_err(lo, "#VALUE!"),
    ),
    Rule(
        "excel vs libreoffice",
        "serials before 1900-03-01 or negative: Excel's 1900 date system counts 1900-02-29 and "
        "has no dates before 1900-01-00 (#NUM!); DATE adds 1900 to a year 0..1899; LibreOffice "
        "counts from 1899-12-30 and reads years 0..99 as 19xx/20xx",
        "https://learn.microsoft.com/en-US/office/troubleshoot/excel/wrongly-assumes-1900-is-leap-year; "
        + MS
        + "date-function-e36c0c8c-4104-49da-ab83-82328b832349",
        lambda f, e, lo: bool(DATE_FUNCTIONS & set(_names(f))) and (_num(lo) or _num(e)),
    ),
    Rule(
        "undecided",
        'a number-text padded with spaces (" 3 "): Microsoft\'s documentation does not say whether '
        "Excel reads it as a number; no Excel-saved file decides (the engine reads it, as Apache "
        "POI's Excel-checked VALUE does)",
        "none (Microsoft's VALUE page is silent)",
        lambda f, e, lo: _has(f, _PADDED),
    ),
    Rule(
        "undecided",
        'a locale number text ("3,5", "1.234,5", "1 000"): en-US Excel\'s reading is not documented',
        "none",
        lambda f, e, lo: _has(f, _LOCALE),
    ),
    Rule(
        "excel vs libreoffice",
        'a number-text or date-text typed directly as an argument: Excel converts it ("text '
        "representations of numbers that you type directly into the list of arguments are "
        'counted"; VALUE: "any of the constant number, date, or time formats"); LibreOffice 7.4 '
        "gives #VALUE! or treats it as text",
        MS
        + "max-function-e0012414-9ac8-4b34-9a47-73e662c08098; "
        + MS
        + "value-function-257d0108-07dc-437d-ae1c-bc2d3953d8c2",
        lambda f, e, lo: _has(f, _EXCEL_TEXT_NUMBERS) and (_is_err(lo, "#VALUE!") or _num(e)),
    ),
    Rule(
        "excel vs libreoffice",
        "booleans, texts and number-texts in a reference: Excel counts only the numbers of an array "
        "or reference (COUNT, MEDIAN, MIN, ...; the *A functions read TRUE 1 and text 0); "
        "LibreOffice counts booleans as numbers",
        MS + "count-function-a59cd7fc-b623-4d93-87a4-d23bf411294c",
        lambda f, e, lo: bool(AGGREGATES & set(_names(f))) and _has(f, _MIXED_REFS | {"TRUE", "FALSE"}),
    ),
    Rule(
        "excel vs libreoffice",
        "engineering conversions: an argument that is not a valid number of the base (or a "
        "boolean) is #NUM!/#VALUE! in Excel; LibreOffice converts booleans and gives #VALUE!",
        MS + "bin2dec-function-63905b57-b3a0-453d-99f4-647bb519cd6c",
        lambda f, e, lo: _outer(f) in ENGINEERING and (_is_err(e) or _is_err(lo)),
    ),
    Rule(
        "excel vs libreoffice",
        'text typed directly into MINA/MAXA/AVERAGEA/STDEVA/VARA...: Excel "text that cannot be '
        'translated into numbers cause errors" (#VALUE!); LibreOffice counts it as 0',
        MS + "mina-function-245a6f46-7ca5-4dc7-ab49-805341bc31d3",
        lambda f, e, lo: (
            _outer(f) in {"MINA", "MAXA", "AVERAGEA", "STDEVA", "STDEVPA", "VARA", "VARPA"}
            and _is_err(e, "#VALUE!")
        ),
    ),
    Rule(
        "excel-saved file",
        'booleans as text: Excel writes TRUE/FALSE (LEFT(TRUE,2) is "TR"), LibreOffice 1/0',
        "tests/data/excel_corpus/poi/test-data/spreadsheet/FormulaEvalTestData_Copy.xlsx "
        "EverythingTests!I824 =LEFT(TRUE,2) cached 'TR' (and I1168 =RIGHT(TRUE,2) 'UE')",
        lambda f, e, lo: (
            (isinstance(e, str) and e.replace("TRUE", "1").replace("FALSE", "0") == lo)
            or (
                _outer(f) in TEXT_FUNCTIONS
                and (_has(f, _LOGICAL) or any(_LOGICAL_CALL.match(a.strip()) for a in _args(f)))
            )
        ),
    ),
    Rule(
        "excel vs libreoffice",
        "the error the function's Microsoft page names for an argument outside its domain "
        "(EXPON.DIST x < 0, ISEVEN of a non-number, CHAR outside 1..255, T.TEST's tails and "
        "type, ...); LibreOffice gives a value or #VALUE!",
        "; ".join(f"{k}: {excel_functions()[k].url} ({v[1]})" for k, v in DOCUMENTED_ERRORS.items()),
        lambda f, e, lo: _documented_error(f, e),
    ),
    Rule(
        "excel vs libreoffice",
        "PERCENTRANK truncates to its significance digits (Microsoft's examples: 0.555, 0.666, "
        "0.3 where the ranks are 0.5556, 0.6667, 0.381); LibreOffice rounds",
        excel_functions()["PERCENTRANK.INC"].url + "; " + excel_functions()["PERCENTRANK.EXC"].url,
        lambda f, e, lo: (
            _outer(f) in ("PERCENTRANK", "PERCENTRANK.INC", "PERCENTRANK.EXC")
            and _num(e)
            and _num(lo)
            and abs(e - lo) <= 1.000001 * 10.0 ** -min(15, max(1, _significance(f)))
        ),
    ),
    Rule(
        "excel vs libreoffice",
        "DOLLAR of a negative number: Microsoft's page gives the format $#,##0.00_);($#,##0.00) "
        "(parentheses); LibreOffice writes its locale's minus sign",
        excel_functions()["DOLLAR"].url,
        lambda f, e, lo: (
            _outer(f) == "DOLLAR"
            and isinstance(e, str)
            and e.startswith("(")
            and isinstance(lo, str)
            and lo.startswith("-")
        ),
    ),
    Rule(
        "excel vs libreoffice",
        "MROUND of a number and a multiple of different signs: Excel #NUM!, LibreOffice rounds",
        MS + "mround-function-c299c3b0-15a5-426d-aa4b-d2d5b3baf427",
        lambda f, e, lo: _outer(f) == "MROUND" and _is_err(e, "#NUM!"),
    ),
    Rule(
        "excel vs libreoffice",
        'MODE of data without duplicates: Excel #N/A ("If the data set contains no duplicate data '
        'points, MODE returns the #N/A error value"), LibreOffice #VALUE!',
        MS + "mode-function-e45192ce-9122-4980-82ed-4bdc34973120",
        lambda f, e, lo: _outer(f) in ("MODE", "MODE.SNGL") and _is_err(e, "#N/A"),
    ),
    Rule(
        "excel-saved file",
        "MODE with a single cell that holds a text (a number-text too) or is blank among the "
        "arguments: Excel #VALUE! (a range's non-numbers are ignored, a single cell's are not; "
        "MODE.SNGL and MODE.MULT ignore them, formulas' test.xlsx STATISTICAL!Y69, Y71); "
        "LibreOffice skips it",
        "tests/data/excel_corpus/poi/test-data/spreadsheet/FormulaEvalTestData_Copy.xlsx "
        'EverythingTests!M936 =MODE(B9,2,D7) cached #VALUE! (D7 blank), G936 =MODE(C9,E16,"1",B8) '
        "#VALUE! (E16 the text '1.1'), D936 =MODE(B7:B15) #N/A",
        lambda f, e, lo: (
            _outer(f) == "MODE"
            and _is_err(e, "#VALUE!")
            and any(
                _INPUT.get(a.strip()[3:]) is None or isinstance(_INPUT.get(a.strip()[3:]), str)
                for a in _args(f)
                if _SINGLE_CELL.fullmatch(a.strip())
            )
        ),
    ),
    Rule(
        "excel vs libreoffice",
        'FIND/SEARCH of empty text: Excel "matches the first character in the search string", '
        "LibreOffice #VALUE!",
        MS + "find-findb-functions-c7912941-af2a-4bdf-a553-d0d89b0a0628",
        lambda f, e, lo: _outer(f) in ("FIND", "SEARCH") and _num(e) and _is_err(lo, "#VALUE!"),
    ),
    Rule(
        "excel vs libreoffice",
        "OFFSET over the edge of the worksheet: Excel #REF!, LibreOffice #VALUE!",
        MS + "offset-function-c8de19ae-dd79-4b9b-a14e-b4d906d11b66",
        lambda f, e, lo: _outer(f) == "OFFSET" and _is_err(e, "#REF!"),
    ),
    Rule(
        "undecided",
        'a cell holding empty text (""): the engine reads it as text (#VALUE! in arithmetic, as '
        '=""+0 is), LibreOffice as a blank; no Excel-saved file decides',
        "none",
        lambda f, e, lo: _has(f, {"In!D5"}),
    ),
    Rule(
        "undecided",
        "both answers are errors of different kinds (which argument's error comes first): "
        "Microsoft's pages are silent; the engine gives the leftmost argument's",
        "none",
        lambda f, e, lo: _is_err(e) and _is_err(lo),
    ),
    Rule(
        "excel-saved file",
        "T of a range of several cells: Excel gives the text of its first cell, or empty text "
        "when that cell holds no text (the engine too); LibreOffice intersects the range with the "
        "formula's row (#VALUE! outside it)",
        "tests/data/excel_corpus/poi/test-data/spreadsheet/FormulaEvalTestData_Copy.xlsx "
        "EverythingTests!O1352 =T(J1351:J1353) cached '' (J1351 blank, J1352 'non-numeric'), "
        "M1352 =T(H12:J12) cached '' (H12 the number 545)",
        lambda f, e, lo: (
            _outer(f) == "T"
            and _is_err(lo, "#VALUE!")
            and len(_args(f)) == 1
            and _args(f)[0] in ARGS["range"]
            and (e or "") == _first_text(_args(f)[0])
        ),
    ),
    Rule(
        "excel-saved file",
        "a text given for a logical argument (a distribution's cumulative, DAYS360's method, "
        'VDB\'s no_switch): Excel reads "TRUE" and "FALSE" as logical values and any other text '
        "as #VALUE!, a number's or a date's text too; LibreOffice reads a number's text as its "
        "number",
        FORMULAS_TEST_XLSX + ' STATISTICAL!T74 =NORM.S.DIST(E74,"1") cached #VALUE!, U74 '
        '=NORM.S.DIST(F74,"TRUE") 0.9986501019683699',
        lambda f, e, lo: _logical_arg_text(f, e),
    ),
    Rule(
        "undecided",
        "a value that is no reference or array given as the array of ROWS, COLUMNS, INDEX, "
        'MATCH, SMALL or LARGE (ROWS(45322), COLUMNS("abc"), INDEX(2.5,1), MATCH(45322,0), '
        "SMALL(-2.5,1E-9)): the engine reads it as a 1x1 array (ROWS 1, INDEX/SMALL the value, "
        "MATCH position 1), LibreOffice gives #VALUE! (or the argument's error); Microsoft's "
        'pages ask for "an array, an array formula, or a reference" (a range, an array) and say '
        "nothing of a single value; no Excel-saved file decides",
        "none (Microsoft's ROWS, COLUMNS, INDEX, MATCH, SMALL and LARGE pages are silent)",
        lambda f, e, lo: _is_err(lo) and _scalar_as_array(f, e),
    ),
    Rule(
        "undecided",
        "a logical value (TRUE, FALSE, a cell holding one) as a complex number of IMABS, IMREAL, "
        "IMSQRT, IMSUB... (the functions older than Excel 2013): the engine gives #VALUE!, as "
        "Microsoft's pages of the Excel 2013 IM* functions (IMSINH, IMTAN, ...) say for a logical "
        "value; LibreOffice reads TRUE as 1 and FALSE as 0; the older functions' pages are silent",
        "none for these functions (the Excel 2013 IM* pages, e.g. "
        + excel_functions()["IMSINH"].url
        + ", name #VALUE! for a logical value)",
        lambda f, e, lo: (
            _is_complex_function(f)
            and _is_err(e, "#VALUE!")
            and not _is_err(lo)
            and _has(f, {"TRUE", "FALSE", "In!A4", "In!C3"})
        ),
    ),
    Rule(
        "undecided",
        'an empty text, a blank cell or an omitted argument as a complex number (IMSIN(""), '
        "IMABS(In!A5), IMSUB(,100), a whole column met at a blank row): the engine reads it as "
        "the complex number 0, LibreOffice gives #VALUE!; Microsoft's IM* pages are silent",
        "none",
        lambda f, e, lo: (
            _is_complex_function(f)
            and _is_err(lo, "#VALUE!")
            and not _is_err(e)
            and (_has(f, {'""', "In!A5", "In!C4", "In!B:B"}) or "" in _args(f))
        ),
    ),
    Rule(
        "undecided",
        'a number-text with a thousands separator as a complex number (IMREAL("1,000")): the '
        'engine gives #NUM! (it is not in the x+yi text format), LibreOffice reads "1,000" as '
        "1; the IM* pages of Excel 2013 name #NUM! for a text not in that format, the older "
        "functions' pages are silent",
        "none for the older functions",
        lambda f, e, lo: (
            _is_complex_function(f) and _is_err(e, "#NUM!") and not _is_err(lo) and _has(f, {'"1,000"'})
        ),
    ),
    Rule(
        "undecided",
        'the same complex number written differently (IMPOWER(1E-9,7): the engine "1E-63", '
        'LibreOffice "1e-63"; IMSQRT(-1): the engine "6.12323399573677E-17+i", LibreOffice "i"): '
        "the numbers agree to 1e-9; Excel writes a part below 1E-5 in scientific notation (the "
        "Excel-saved cells below), but whether it drops a part that tiny is not shown",
        "none for the dropped part (Microsoft's IM* pages show no result of this kind); "
        + FORMULAS_TEST_XLSX
        + ' ENGINEERING!S37 =IMCSCH(D37) cached "1.28233995888454E-06+4.33496947416312E-06j"',
        lambda f, e, lo: _same_complex(e, lo),
    ),
    Rule(
        "undecided",
        "SUMX2MY2, SUMX2PY2 or SUMXMY2 of values that hold no pair of numbers "
        '(SUMX2MY2(2.5,"<=3")): the engine gives #DIV/0!, as Excel does for ranges without a pair '
        "of numbers, LibreOffice 0; for values typed directly no Excel-saved file decides",
        "tests/data/excel_corpus/poi/test-data/spreadsheet/FormulaEvalTestData_Copy.xlsx "
        "EverythingTests!E1336 =SUMX2MY2(D8:E11,C8:D11), F1340 =SUMX2PY2(B16:D16,B16:B18), "
        "G1344 =SUMXMY2(D7:D11,C8:C12) cached #DIV/0! (ranges only)",
        lambda f, e, lo: (
            _outer(f) in ("SUMX2MY2", "SUMX2PY2", "SUMXMY2") and _is_err(e, "#DIV/0!") and lo == 0.0
        ),
    ),
    Rule(
        "undecided",
        "a criterion of COUNTIF, SUMIF, COUNTIFS, ... that is a range outside an array formula, an "
        "error or a call (COUNTIF(In!A1:D6,In!D1:D6) in a row the range does not cross): the "
        "engine intersects the range with the formula's row and counts the cells equal to the "
        "result (#VALUE! there, so 0), LibreOffice gives #VALUE! or the error; Microsoft's COUNTIF "
        "page does not say what a criterion that is an error or a range gives",
        "none (" + MS + "countif-function-e0de10c6-f885-4e71-abb4-1f464816df34 is silent)",
        lambda f, e, lo: e == 0.0 and _is_err(lo) and _odd_criterion(f),
    ),
    Rule(
        "undecided",
        'a text as the condition of IF, IFS or NOT (NOT("1E1"), IF("3",...), IFS("2024-01-31",1), '
        "an array holding a text): the engine gives #VALUE! (a text is no logical value), "
        "LibreOffice reads a number-text or a date-text as its number; and IFS with an odd count "
        "of arguments: the engine #VALUE!, LibreOffice evaluates the pairs; Microsoft's IF, IFS "
        "and NOT pages speak only of conditions that evaluate to TRUE or FALSE",
        "none (Microsoft's IF, IFS and NOT pages are silent on texts)",
        lambda f, e, lo: _is_err(e, "#VALUE!") and not _is_err(lo) and _text_condition(f),
    ),
    Rule(
        "undecided",
        "TIME with fractional arguments (TIME(0.5,-2.5,1E-9)): the engine truncates each to a "
        "whole number (TIME(0,-2,0), negative: #NUM!), LibreOffice computes with the fractions; "
        'Microsoft\'s TIME page gives each as "a number from 0 (zero) to 32767" and is silent '
        "on fractions",
        excel_functions()["TIME"].url + " (silent on fractions)",
        lambda f, e, lo: (
            _outer(f) == "TIME"
            and _num(lo)
            and (_num(e) or _is_err(e, "#NUM!"))
            and any(not re.fullmatch(r"-?\d+|In!A(9|10)|In!B\d", a) for a in _args(f))
        ),
    ),
    Rule(
        "undecided",
        "VALUE of a logical value (VALUE(FALSE), VALUE(In!A4)): the engine gives #VALUE! (a "
        'logical value is no text in "the constant number, date, or time formats"), LibreOffice '
        "FALSE or 1; Microsoft's VALUE page speaks only of text",
        excel_functions()["VALUE"].url + " (silent on logical values)",
        lambda f, e, lo: (
            _outer(f) == "VALUE"
            and _is_err(e, "#VALUE!")
            and not _is_err(lo)
            and _args(f)[0] in ("TRUE", "FALSE", "In!A4", "In!C3")
        ),
    ),
    Rule(
        "excel vs libreoffice",
        'MID with start_num past the end of the text: Excel "" ("If start_num is greater than the '
        'length of text, MID returns "" (empty text)"), LibreOffice #VALUE! for a start_num as '
        "large as 1E+10",
        excel_functions()["MID"].url,
        lambda f, e, lo: (
            _outer(f) == "MID"
            and e in (None, "")
            and _is_err(lo, "#VALUE!")
            and len(_args(f)) > 1
            and re.fullmatch(r"[\d.]+(E\+\d+)?", _args(f)[1]) is not None
            and float(_args(f)[1]) >= 1
        ),
    ),
    Rule(
        "excel vs libreoffice",
        'ISNUMBER of a logical value: Excel FALSE (ISNUMBER: "Value refers to a number", '
        'ISLOGICAL: "Value refers to a logical value"; the IS functions\' values are not '
        "converted), LibreOffice TRUE (its logical values are numbers)",
        excel_functions()["ISNUMBER"].url,
        lambda f, e, lo: (
            _outer(f) == "ISNUMBER"
            and e is False
            and lo is True
            and _args(f)[0] in ("TRUE", "FALSE", "In!A4", "In!C3")
        ),
    ),
    Rule(
        "undecided",
        "a logical value as a matrix of MMULT, MDETERM, MINVERSE or TRANSPOSE (MMULT(FALSE,1), "
        "MDETERM(In!A4), TRANSPOSE(TRUE), MMULT(45322,ISLOGICAL(In!A1))): the engine gives #VALUE! "
        "(TRANSPOSE the logical value "
        "itself), LibreOffice reads TRUE as 1 and FALSE as 0; Microsoft's MMULT page names "
        "#VALUE! for empty cells and text, not for logical values",
        excel_functions()["MMULT"].url + " (silent on logical values)",
        lambda f, e, lo, row: (
            _outer(f) in ("MMULT", "MDETERM", "MINVERSE", "TRANSPOSE")
            and _num(lo)
            and (_is_err(e) or isinstance(e, bool))
            and (
                _has(f, {"TRUE", "FALSE", "In!A4", "In!C3"})
                or any(isinstance(v, bool) for v in _call_values(f, row))
            )
        ),
        by_row=True,
    ),
    Rule(
        "undecided",
        "an argument left empty between commas that the engine reads as Excel's empty value, 0 "
        "(BESSELI(,1), MROUND(,7), IFERROR(,1), MMULT(10,)), where LibreOffice gives an error "
        "(#VALUE!, #N/A): Microsoft's pages of these functions do not say what an empty "
        "argument is",
        "none",
        lambda f, e, lo: _is_err(lo) and "" in _args(f),
    ),
    Rule(
        "undecided",
        "ISODD/ISEVEN of a blank cell (a whole column met at a blank row) or of a cell holding a "
        "date or number text: the engine reads the blank as 0 and the text as its number, "
        'LibreOffice gives #VALUE!; Microsoft\'s pages name #VALUE! for a "nonnumeric" number '
        "without saying whether a blank or such a text is one",
        excel_functions()["ISODD"].url + "; " + excel_functions()["ISEVEN"].url,
        lambda f, e, lo: (
            _outer(f) in ("ISODD", "ISEVEN")
            and isinstance(e, bool)
            and _is_err(lo, "#VALUE!")
            and not _args(f)[0].startswith('"')
        ),
    ),
    Rule(
        "excel vs libreoffice",
        "GAUSS of a large z: Excel's GAUSS is \"the probability that a member of a standard "
        'normal population will fall between the mean and z standard deviations from the mean" '
        "(NORM.S.DIST(z,TRUE) - 0.5, within -0.5..0.5: the engine 0.5 for GAUSS(1E+10)); "
        "LibreOffice 7.4 answers a number far outside (-2.1218e+217)",
        excel_functions()["GAUSS"].url,
        lambda f, e, lo: (
            _outer(f) == "GAUSS" and _num(e) and -0.5 <= e <= 0.5 and _num(lo) and not -0.5 <= lo <= 0.5
        ),
    ),
    Rule(
        "undecided",
        "TEXT with a format that is a number, a number or date text or plain letters, as the "
        'fuzzer writes (TEXT(7,"Y"), TEXT(45322,10), TEXT("-1",0.5), TEXT(10,"abc"), or one a '
        'call or an array gives, TEXT(0.5,CONCAT("2.5","12:00"))): the engine reads each '
        "character by Excel's format codes (0 and # placeholders, other digits "
        "literal, y/d/m dates, a letter that is no code #VALUE!), LibreOffice reads such formats "
        'otherwise ("Y" literal, 10 as 0 places, 100 of 0 as empty); Microsoft\'s number format '
        "codes page lists the codes, not what a format that is no format gives",
        MS + "number-format-codes-5026bbd6-04bc-48cd-bf33-80f18b4eae68",
        lambda f, e, lo: (
            _outer(f) == "TEXT"
            and len(_args(f)) == 2
            and (isinstance(e, str) or _is_err(e, "#VALUE!"))
            and (isinstance(lo, str) or lo is None)
            and _odd_format(_args(f)[1])
        ),
    ),
    Rule(
        "excel vs libreoffice",
        "Treasury bills: Microsoft's formulas count DSM, the days from settlement to maturity "
        "(TBILLPRICE = 100 x (1 - discount x DSM / 360), TBILLEQ = 365 x rate / (360 - rate x "
        "DSM)); LibreOffice counts them 30/360 to the day after maturity (62 days for Microsoft's "
        "example 2008-03-31 to 2008-06-01, where both agree; 100 for serials 1 to 100, not 99)",
        excel_functions()["TBILLPRICE"].url + "; " + excel_functions()["TBILLEQ"].url,
        lambda f, e, lo: _outer(f) in ("TBILLPRICE", "TBILLYIELD", "TBILLEQ") and _num(e) and _num(lo),
    ),
    Rule(
        "excel vs libreoffice",
        "SYD with per < 1 or per > life, or life < 1: an error in Microsoft's SYD of DAX (\"An "
        'error is returned if: life < 1; per < 1 or per > life") and of Visual Basic (an '
        "exception for Period > Life or Period <= 0), Excel's page being silent: the engine "
        "#NUM! (per <= 0, per > life, life <= 0); LibreOffice evaluates the formula",
        "https://learn.microsoft.com/en-us/dax/syd-function-dax; "
        "https://learn.microsoft.com/en-us/dotnet/api/microsoft.visualbasic.financial.syd",
        lambda f, e, lo: _outer(f) == "SYD" and _is_err(e, "#NUM!") and _num(lo),
    ),
    Rule(
        "excel vs libreoffice",
        'REPT longer than a cell holds: Excel "If the result of the REPT function is longer than '
        '32,767 characters, REPT returns the #VALUE! error"; LibreOffice builds the longer text',
        excel_functions()["REPT"].url,
        lambda f, e, lo: (
            _outer(f) == "REPT" and _is_err(e, "#VALUE!") and isinstance(lo, str) and len(lo) > 32767
        ),
    ),
    Rule(
        "undecided",
        "XNPV of one value and one date (XNPV(3,100,0.5)): the engine gives that value, "
        "discounted over no time; LibreOffice #VALUE!; Microsoft's page says the values \"must "
        'contain at least one positive and one negative value" without naming the error',
        excel_functions()["XNPV"].url,
        lambda f, e, lo: (
            _outer(f) == "XNPV"
            and _num(e)
            and _is_err(lo, "#VALUE!")
            and len(_args(f)) == 3
            and all(not a.startswith("{") and a not in ARGS["range"] for a in _args(f)[1:])
        ),
    ),
    Rule(
        "undecided",
        "PV where (1 + rate)^nper is beyond the largest number or 0 (PV(10,45322,10), "
        "PV(-1,-2.5,2.5)): the engine evaluates the equation of Microsoft's PV page as written "
        "(#NUM! for infinity over infinity, #DIV/0! for a division by 0), LibreOffice its limit "
        "(-1, 2.5); no Excel-saved file decides",
        excel_functions()["PV"].url,
        lambda f, e, lo: _outer(f) == "PV" and _is_err(e, "#NUM!", "#DIV/0!") and _num(lo),
    ),
    Rule(
        "excel vs libreoffice",
        "a logical value met by LOOKUP, VLOOKUP, HLOOKUP or MATCH (the lookup value, or cells "
        'of the vector): Excel orders logical values after numbers and texts ("..., -2, -1, 0, '
        "1, 2, ..., A-Z, FALSE, TRUE\"), so TRUE is no 1 and FALSE no 0; LibreOffice's logical "
        "values are the numbers 1 and 0",
        excel_functions()["LOOKUP"].url,
        lambda f, e, lo: (
            _outer(f) in ("LOOKUP", "VLOOKUP", "HLOOKUP", "MATCH") and _has(f, _LOGICAL | _LOGICAL_REFS)
        ),
    ),
    Rule(
        "undecided",
        "a logical value met by a criterion of COUNTIF, SUMIF, AVERAGEIF, COUNTIFS, ... (the "
        'criterion TRUE over cells holding 1, the criterion 1 or "<=3" over a cell holding TRUE '
        "or FALSE): the engine keeps logical values apart from numbers, as Excel's lookups order "
        "them (LOOKUP's page: numbers, then texts, then FALSE, TRUE), LibreOffice's logical "
        "values are 1 and 0; Microsoft's COUNTIF page does not say",
        "none (" + MS + "countif-function-e0de10c6-f885-4e71-abb4-1f464816df34 is silent)",
        lambda f, e, lo: _outer(f) in _CRITERIA and _has(f, _LOGICAL | _LOGICAL_REFS),
    ),
    Rule(
        "excel vs libreoffice",
        "a range of several columns, or of one column not crossing the formula's row, in an "
        "argument that takes one value, outside an array formula: Excel's implicit intersection "
        "finds no cell (#VALUE!; Excel 365 shows the formula with @ before the range), the engine "
        "too; LibreOffice reads a cell of the range",
        MS + "implicit-intersection-operator-ce3be07b-0101-4450-a24e-c1c999be2b34",
        lambda f, e, lo, row: _is_err(e, "#VALUE!") and not _is_err(lo) and _no_intersection(f, row),
        by_row=True,
    ),
    Rule(
        "excel vs libreoffice",
        "a range or an array in an argument that takes one value, in a formula that is not an "
        "array formula: Excel reads the cell of the range on the formula's row or column "
        "(implicit intersection, #VALUE! where there is none: the @ Excel 365 shows in such a "
        "formula) and an array's top-left value; LibreOffice evaluates a formula holding an array "
        "constant as an array formula: its answer is the engine's for the formula entered as a "
        "one-cell array formula",
        MS + "implicit-intersection-operator-ce3be07b-0101-4450-a24e-c1c999be2b34",
        lambda f, e, lo: "{" in f and agree(array_formula_value(f), lo),
    ),
    Rule(
        "undecided",
        "0 to the power 0 (POWER(0,FALSE), POWER(In!A5,In!B:B), an empty argument as 0): the "
        "engine #NUM!, as Excel's users report and Gnumeric's Excel-compatible POWER documents; "
        "LibreOffice 1; Microsoft's POWER page does not say",
        excel_functions()["POWER"].url + " (silent); "
        "http://projects.gnome.org/gnumeric/doc/gnumeric-function-POWER.shtml",
        lambda f, e, lo: _outer(f) == "POWER" and _is_err(e, "#NUM!") and lo == 1.0,
    ),
    Rule(
        "undecided",
        "NOMINAL or EFFECT with a huge npery (1E+10): the engine evaluates Microsoft's formula "
        "through log1p/expm1 (close to the limit ln(1 + effect_rate), e^nominal_rate - 1), "
        "LibreOffice by powers, which loses about 6 digits there; which rounding Excel's gives is "
        "not documented",
        excel_functions()["NOMINAL"].url + "; " + excel_functions()["EFFECT"].url,
        lambda f, e, lo: (
            _outer(f) in ("NOMINAL", "EFFECT") and _num(e) and _num(lo) and math.isclose(e, lo, rel_tol=1e-5)
        ),
    ),
    Rule(
        "excel vs libreoffice",
        'AND, OR, XOR over an array or a range holding text: Excel "If an array or reference '
        'argument contains text or empty cells, those values are ignored"; LibreOffice #VALUE!',
        excel_functions()["AND"].url
        + "; "
        + excel_functions()["OR"].url
        + "; "
        + excel_functions()["XOR"].url,
        lambda f, e, lo: (
            _outer(f) in ("AND", "OR", "XOR")
            and isinstance(e, bool)
            and _is_err(lo, "#VALUE!")
            and any((a.startswith("{") and '"' in a) or a in ARGS["range"] for a in _args(f))
        ),
    ),
    Rule(
        "excel vs libreoffice",
        'SUMPRODUCT of logical values: Excel "treats non-numeric array entries as if they were '
        'zeros" (TRUE too); LibreOffice counts TRUE as 1',
        excel_functions()["SUMPRODUCT"].url,
        lambda f, e, lo: _outer(f) == "SUMPRODUCT" and _num(e) and _num(lo) and "TRUE" in f,
    ),
    Rule(
        "undecided",
        "POWER whose result is below the smallest number (POWER(1E-9,45322), POWER(0.5,45322)): "
        "the engine 0, LibreOffice #NUM!; Microsoft's POWER page is silent, and its #NUM! page "
        'speaks of "a number that\'s too large or too small to be shown in Excel"',
        excel_functions()["POWER"].url
        + "; "
        + MS
        + "how-to-correct-a-num-error-f5193bfc-4400-43f4-88c4-8e1dcca0428b",
        lambda f, e, lo: _outer(f) == "POWER" and e == 0.0 and _is_err(lo, "#NUM!"),
    ),
    Rule(
        "engine does not compute",
        "a cell the engine keeps uncomputed (unsupported: its stored value kept, the cell named in "
        "the report, never a value of its own): BESSELJ/BESSELY where neither the integrals nor "
        "Hankel's expansion serve, DOLLAR with more than 15 significant digits shown, a database "
        "field given by an empty cell; not a disagreement of values",
        "docs/recalc.md (unsupported cells)",
        lambda f, e, lo: e is None,
    ),
    Rule(
        "excel vs libreoffice",
        "logical values in a range or an array of Z.TEST, ZTEST, PERCENTRANK, RANK, MODE: Excel "
        'ignores them as AVERAGE does ("If an array or reference argument contains text, logical '
        'values, or empty cells, those values are ignored"; Z.TEST is defined on AVERAGE and '
        "STDEV of the array), LibreOffice counts FALSE as 0 and TRUE as 1 (Z.TEST(In!C1:C6,3,3): "
        "0.681 of {1,3}, LibreOffice 0.832 of {1,0,3})",
        excel_functions()["AVERAGE"].url + "; " + excel_functions()["Z.TEST"].url,
        lambda f, e, lo: (
            _outer(f) in STATS_IGNORING_LOGICALS
            and any(
                a.strip() in _LOGICAL_REFS or (a.strip().startswith("{") and "TRUE" in a) for a in _args(f)
            )
        ),
    ),
    Rule(
        "excel vs libreoffice",
        "Z.TEST or ZTEST of one number with sigma given: Microsoft's formula 1 - NORM.S.DIST((x̄ - x) "
        "/ (sigma / SQRT(n)), TRUE) needs no second number where sigma is given; LibreOffice "
        "#DIV/0!",
        excel_functions()["Z.TEST"].url,
        lambda f, e, lo: (
            _outer(f) in ("Z.TEST", "ZTEST")
            and _num(e)
            and _is_err(lo, "#DIV/0!")
            and len(_args(f)) == 3
            and _args(f)[2].strip() != ""
        ),
    ),
    Rule(
        "undecided",
        "Z.TEST or ZTEST with a negative sigma: the engine evaluates Microsoft's formula as written, "
        "LibreOffice #VALUE!; the page names no error for sigma <= 0",
        excel_functions()["Z.TEST"].url + " (silent)",
        lambda f, e, lo: (
            _outer(f) in ("Z.TEST", "ZTEST")
            and _num(e)
            and _is_err(lo, "#VALUE!")
            and len(_args(f)) == 3
            and _args(f)[2].strip().startswith("-")
        ),
    ),
    Rule(
        "excel vs libreoffice",
        "SUMX2MY2, SUMX2PY2, SUMXMY2 with texts, logical values or errors among the values: Excel "
        'uses only pairs of two numbers ("If an array or reference argument contains text, logical '
        "values, or empty cells, those values are ignored\"), is #DIV/0! without one (POI's "
        "FormulaEvalTestData_Copy.xlsx, saved by Excel) and returns an error argument; LibreOffice "
        "reads logical values and texts as numbers and skips an error typed as an argument, or "
        "gives #VALUE! for ranges holding texts",
        excel_functions()["SUMXMY2"].url
        + "; https://github.com/apache/poi/blob/trunk/test-data/spreadsheet/FormulaEvalTestData_Copy.xlsx",
        lambda f, e, lo: (
            _outer(f) in ("SUMXMY2", "SUMX2MY2", "SUMX2PY2")
            and (
                (_is_err(e) and _num(lo))
                or (
                    _num(e)
                    and _is_err(lo, "#VALUE!")
                    and all(a.strip() in ARGS["range"] for a in _args(f))
                    and any(a.strip() not in ("In!B1:B6", "In!B:B") for a in _args(f))
                )
            )
        ),
    ),
    Rule(
        "excel vs libreoffice",
        'POISSON or POISSON.DIST with mean 0: Excel "If mean < 0, POISSON.DIST returns the #NUM! '
        'error value", so a mean of 0 is one (P(X = 0) = 1); LibreOffice #VALUE!',
        excel_functions()["POISSON.DIST"].url,
        lambda f, e, lo, row: (
            _outer(f) in ("POISSON", "POISSON.DIST")
            and _num(e)
            and _is_err(lo, "#VALUE!")
            and len(_args(f)) > 1
            and _blank_or_zero(_args(f)[1], row)
        ),
        by_row=True,
    ),
    Rule(
        "undecided",
        "ROWS or COLUMNS of a number or a logical value (ROWS(-1), ROWS(3)): the engine 1 (a value is "
        "an array of one element), LibreOffice #VALUE!; Microsoft's pages take an array, an array "
        "formula or a reference",
        excel_functions()["ROWS"].url,
        lambda f, e, lo: (
            _is_err(lo, "#VALUE!") and re.search(r"\b(ROWS|COLUMNS)\((-?[\d.]+(E[+-]\d+)?|TRUE|FALSE)\)", f)
        ),
    ),
    Rule(
        "excel-saved file",
        "XNPV of a rate of 0 or below (XNPV(0,In!B1:B3,...)): Excel #NUM!, LibreOffice computes",
        FORMULAS_TEST_XLSX
        + " FINANCIAL!S56, U56, X56 =XNPV(C56|E56|H56,...) with -0.1, 0 and a blank cached #NUM!",
        lambda f, e, lo: _outer(f) == "XNPV" and _is_err(e, "#NUM!") and not _is_err(lo),
    ),
    Rule(
        "excel-saved file",
        "BESSELI (and BESSELK below x = 2) as Excel computes it: Abramowitz & Stegun's polynomials "
        "for I0 and I1 (9.8.1-9.8.4) and Miller's downward recurrence from order "
        "2 (n + INT(SQRT(40 n))), good to about 1e-7 (worse where x is large against n); "
        "LibreOffice sums the series",
        FORMULAS_TEST_XLSX
        + " ENGINEERING!T3 =BESSELI(2.3,2) cached 1.0054316669125958 and V3 =BESSELI(-1,0) "
        "1.2660658480342601, the engine's values to the last bit (true: 1.005431663655915, "
        "1.2660658777520082)",
        lambda f, e, lo: (
            _outer(f) in ("BESSELI", "BESSELK") and _num(e) and _num(lo) and math.isclose(e, lo, rel_tol=1e-2)
        ),
    ),
    Rule(
        "undecided",
        "a Bessel function of the order 1E+10: the engine evaluates it (BESSELI and BESSELJ below the "
        "smallest number: 0; BESSELK and BESSELY past the largest: #NUM!), LibreOffice #VALUE!; "
        "Microsoft's pages name only n < 0 (#NUM!)",
        excel_functions()["BESSELI"].url,
        lambda f, e, lo: (
            _outer(f) in ("BESSELI", "BESSELJ", "BESSELK", "BESSELY")
            and _is_err(lo, "#VALUE!")
            and _args(f)[-1].strip() == "1E+10"
        ),
    ),
    Rule(
        "undecided",
        "DEC2BIN, DEC2OCT, DEC2HEX of a negative number that is not an integer (DEC2HEX(-2.5)): the "
        "engine truncates it (-2: FFFFFFFFFE, as places is truncated), LibreOffice rounds it down "
        "(-3: FFFFFFFFFD); Microsoft's pages say nothing of a number that is not an integer",
        excel_functions()["DEC2HEX"].url + " (silent)",
        lambda f, e, lo: (
            _outer(f) in ("DEC2BIN", "DEC2OCT", "DEC2HEX") and re.fullmatch(r"-\d*\.\d+", _args(f)[0].strip())
        ),
    ),
    Rule(
        "excel vs libreoffice",
        'MMULT with an argument left empty: Excel "If any cells are empty or contain text ... MMULT '
        'returns the #VALUE! error value"; LibreOffice reads it as 0',
        excel_functions()["MMULT"].url,
        lambda f, e, lo: (
            _outer(f) == "MMULT" and _is_err(e, "#VALUE!") and any(not a.strip() for a in _args(f))
        ),
    ),
    Rule(
        "excel vs libreoffice",
        "ISFORMULA of a cell holding a logical value or an error (In!A4 TRUE, In!A6 #N/A): the file "
        "holds values, so Excel's ISFORMULA is FALSE; LibreOffice imports such cells as the formulas "
        "=TRUE() and =NA() and answers TRUE",
        excel_functions()["ISFORMULA"].url,
        lambda f, e, lo: (
            _outer(f) == "ISFORMULA"
            and e is False
            and lo is True
            and _args(f)[0].strip() in ("In!A4", "In!A6")
        ),
    ),
    Rule(
        "undecided",
        "CODE of a blank cell (In!A5, or a whole column met at a blank row): the engine #VALUE!, as "
        'CODE("") is, LibreOffice 0; Microsoft\'s CODE page does not say',
        excel_functions()["CODE"].url + " (silent)",
        lambda f, e, lo, row: (
            _outer(f) == "CODE" and _is_err(e, "#VALUE!") and lo == 0.0 and _blank_or_zero(_args(f)[0], row)
        ),
        by_row=True,
    ),
    Rule(
        "undecided",
        "a density infinite at x = 0 (CHISQ.DIST(0,1,FALSE), F.DIST(0,1,1,FALSE), GAMMA.DIST with "
        "alpha < 1): the engine #NUM! (the density is no number there), LibreOffice 0; Microsoft's "
        "pages name #NUM! only for x < 0",
        excel_functions()["CHISQ.DIST"].url + "; " + excel_functions()["F.DIST"].url,
        lambda f, e, lo, row: (
            _outer(f) in ("CHISQ.DIST", "F.DIST", "GAMMA.DIST", "GAMMADIST")
            and _is_err(e, "#NUM!")
            and lo == 0.0
            and (_blank_or_zero(_args(f)[0], row) or _args(f)[0].strip() in ('"0"', "DEGREES(FALSE)"))
        ),
        by_row=True,
    ),
    Rule(
        "undecided",
        "F.INV at probability 1 (F.INV(1,45322,10), the top-left of F.INV({1,2;3,4},10,45322), "
        "F.INV(In!A4,...) with In!A4 TRUE): the "
        "quantile is +infinity: the engine #NUM!, LibreOffice a finite number (1.5E+65, 160); "
        "Microsoft's page names #NUM! for a probability outside 0..1 only",
        excel_functions()["F.INV"].url,
        lambda f, e, lo: (
            _outer(f) in ("F.INV", "FINV")
            and _is_err(e, "#NUM!")
            and _num(lo)
            and re.split(r"[,;]", _args(f)[0].strip().lstrip("{"))[0] in ("1", "TRUE", "In!A4")
        ),
    ),
    Rule(
        "undecided",
        "T.DIST, T.DIST.2T, T.DIST.RT, TDIST, CHISQ.DIST with 1E+10 degrees of freedom: the engine "
        "#NUM! from 10^10 on, where Microsoft's CHISQ.DIST page says above 10^10 (the T pages name "
        "only deg_freedom < 1): the engine's series lose digits there (T.DIST.RT(0.5,1E+10) off by "
        "1e-5), so it gives no number rather than a wrong one; LibreOffice a value",
        excel_functions()["T.DIST.2T"].url + "; " + excel_functions()["CHISQ.DIST"].url,
        lambda f, e, lo: (
            _outer(f) in DF_FUNCTIONS
            and _is_err(e, "#NUM!")
            and _num(lo)
            and any(a.strip() == "1E+10" for a in _args(f)[1:])
        ),
    ),
    Rule(
        "undecided",
        "ROUND, ROUNDUP, ROUNDDOWN, TRUNC with num_digits of 32,768 or more (45322, 1E+10, a date): "
        "the engine keeps the number (more decimals than it has), LibreOffice #VALUE! (it takes up "
        "to 32,767, and keeps the number at 1,000); Microsoft's pages set no limit",
        excel_functions()["ROUND"].url + " (silent)",
        lambda f, e, lo: (
            _outer(f) in ("ROUND", "ROUNDUP", "ROUNDDOWN", "TRUNC")
            and _num(e)
            and _is_err(lo, "#VALUE!")
            and len(_args(f)) == 2
            and _args(f)[1].strip() in ("45322", "1E+10", "In!A9", "In!D6", "In!A8", '"1/31/2024"')
        ),
    ),
    Rule(
        "undecided",
        "an argument left empty where LibreOffice takes the argument's default (ERF(-1,) as "
        "ERF(-1), CEILING.PRECISE(-2.5,) with significance 1): the engine reads Excel's empty "
        "value, 0, as for every function but those that document a default for it (ERF(-1,0) is "
        "0.843, CEILING.PRECISE with significance 0 is 0); Microsoft's pages do not say",
        "none",
        lambda f, e, lo: _num(e) and _num(lo) and any(not a.strip() for a in _args(f)),
    ),
    Rule(
        "excel vs libreoffice",
        'TIMEVALUE of a date without a time ("1/31/2024"): Excel "Date information in time_text is '
        'ignored" (0); LibreOffice #VALUE!',
        excel_functions()["TIMEVALUE"].url,
        lambda f, e, lo: _outer(f) == "TIMEVALUE" and e == 0.0 and _is_err(lo, "#VALUE!"),
    ),
    Rule(
        "excel vs libreoffice",
        "TREND, GROWTH, LINEST, LOGEST of known_y's alone in more than one row and column: Excel "
        "(each page) \"If known_x's is omitted, "
        "it is assumed to be the array {1,2,3,...} that is the same size as known_y's\", paired "
        "in reading order; LibreOffice numbers the rows",
        excel_functions()["TREND"].url + "; " + excel_functions()["LINEST"].url,
        lambda f, e, lo: (
            _outer(f) in ("TREND", "GROWTH", "LINEST", "LOGEST")
            and len(_args(f)) == 1
            and _num(e)
            and _num(lo)
        ),
    ),
    Rule(
        "excel vs libreoffice",
        "LEFT, RIGHT, LEFTB or RIGHTB of more characters than the text has (LEFT(7,1E+10), "
        'LEFTB(-1,1E+10)): Excel "If num_chars is greater than the length of text, LEFT returns '
        'all of text" (the LEFT, LEFTB page); LibreOffice #VALUE! for counts above its limit',
        excel_functions()["LEFT"].url + "; " + excel_functions()["RIGHT"].url,
        lambda f, e, lo: (
            _outer(f) in ("LEFT", "RIGHT", "LEFTB", "RIGHTB")
            and isinstance(e, str)
            and _is_err(lo, "#VALUE!")
        ),
    ),
    Rule(
        "undecided",
        "REPLACE or REPLACEB with start_num past the end of the text (REPLACE(In!A2,1E+10,10,10)): "
        "the engine appends new_text, LibreOffice #VALUE!; Microsoft's REPLACE, REPLACEB page "
        "does not say",
        excel_functions()["REPLACE"].url + " (silent)",
        lambda f, e, lo: (
            _outer(f) in ("REPLACE", "REPLACEB") and isinstance(e, str) and _is_err(lo, "#VALUE!")
        ),
    ),
    Rule(
        "excel vs libreoffice",
        "a logical result of a formula LibreOffice evaluates as an array (CHOOSE({1,2;3,4},In!A4, "
        "...), TRANSPOSE(EXACT(100,-2.5))): Excel's cell holds the logical value the function "
        "returns (EXACT, the IS functions: TRUE or FALSE); LibreOffice's array result holds it as "
        "the number 1 or 0",
        excel_functions()["EXACT"].url,
        lambda f, e, lo: (
            isinstance(e, bool) and _num(lo) and lo == float(e) and ("{" in f or _outer(f) == "TRANSPOSE")
        ),
    ),
    Rule(
        "excel vs libreoffice",
        "F.INV at probability 0 (a logical FALSE typed there too): Microsoft's page names #NUM! "
        "only for a probability below 0 or above 1, and F(0) = 0; LibreOffice #VALUE!",
        excel_functions()["F.INV"].url,
        lambda f, e, lo: _outer(f) in ("F.INV", "FINV") and e == 0.0 and _is_err(lo, "#VALUE!"),
    ),
    Rule(
        "excel vs libreoffice",
        "an error cell (In!A6, #N/A) in the values of MIRR, IRR, NPV: Excel ignores text, logical "
        "values and empty cells of a reference, not errors, which it returns; LibreOffice skips it",
        excel_functions()["MIRR"].url + "; " + excel_functions()["IRR"].url,
        lambda f, e, lo: (
            _outer(f) in ("MIRR", "IRR", "NPV")
            and _is_err(e, "#N/A")
            and _num(lo)
            and any(a.strip() in ("In!A1:A10", "In!A1:D6") for a in _args(f))
        ),
    ),
    Rule(
        "excel-saved file",
        "SMALL or LARGE with a k that is not a whole number (SMALL(In!B:B,2.5)): Excel truncates k "
        "(0.5 is #NUM!, 2.5 the 2nd), LibreOffice #VALUE!",
        FORMULAS_TEST_XLSX + " STATISTICAL!AG57 {=LARGE(C57:J57,E57:F57)} with E57 0.9 cached #NUM!, AK95"
        " {=SMALL(C95:J95,C95:Q95)} with k 2.2 the second smallest",
        lambda f, e, lo: (
            _outer(f) in ("SMALL", "LARGE")
            and (_num(e) or _is_err(e, "#NUM!"))
            and _is_err(lo, "#VALUE!")
            and re.fullmatch(r"\d*\.\d+", _args(f)[-1].strip())
        ),
    ),
    Rule(
        "undecided",
        "RATE where the equation has no root Newton's method reaches (RATE(3,,0.5): only r = -1; "
        'RATE(0.5,"$5",0): none short of infinity) or nper < 0: the engine #NUM! (a root only '
        "where the residual is small against the equation's terms) or the root it finds, "
        "LibreOffice the last iterate or #VALUE!; Microsoft's page says only that RATE is "
        '"calculated by iteration" and #NUM! where it does not converge',
        excel_functions()["RATE"].url,
        lambda f, e, lo: _outer(f) == "RATE" and (_num(e) or _is_err(e, "#NUM!")) and not agree(e, lo),
    ),
    Rule(
        "undecided",
        'a lookup value that starts with a comparison sign (MATCH("=",In!A8), LOOKUP("=3",In!A2, '
        '">2")): the engine compares it as text, as Excel\'s lookups do; LibreOffice #N/A (it may '
        "read it as a search criterion); Microsoft's pages do not say",
        excel_functions()["MATCH"].url + " (silent)",
        lambda f, e, lo: (
            _outer(f) in ("MATCH", "LOOKUP", "VLOOKUP", "HLOOKUP")
            and _is_err(lo, "#N/A")
            and re.match(r'"[=<>]', _args(f)[0].strip())
        ),
    ),
    Rule(
        "undecided",
        'RRI where fv / pv is negative (RRI(1,"12:00",-1), RRI(0.5,3,-1)): the engine #NUM! ("If '
        'argument values are not valid, RRI returns the #NUM! error value"), LibreOffice evaluates '
        "(fv / pv)^(1/n) - 1 where 1/n is a whole number (-0.889 for (-1/3)^2 - 1); the page does "
        "not say which values are valid",
        excel_functions()["RRI"].url,
        lambda f, e, lo: _outer(f) == "RRI" and _is_err(e, "#NUM!") and _num(lo),
    ),
    Rule(
        "excel vs libreoffice",
        "COVARIANCE.P, COVARIANCE.S, COVAR, PEARSON, CORREL with logical values or texts among the "
        'values (COVARIANCE.P(-2.5,In!A4)): Excel "If an array or reference argument contains text, '
        'logical values, or empty cells, those values are ignored" and "If either array1 or array2 '
        'is empty, COVARIANCE.P returns the #DIV/0! error value"; LibreOffice reads them as numbers '
        '(counts TRUE in an array constant: COVARIANCE.P(...,{1,"a";TRUE,2}))',
        excel_functions()["COVARIANCE.P"].url,
        lambda f, e, lo: (
            _outer(f) in ("COVARIANCE.P", "COVARIANCE.S", "COVAR", "PEARSON", "CORREL")
            and _num(lo)
            and (
                (_is_err(e, "#DIV/0!") and _has(f, _LOGICAL | _MIXED_REFS))
                or (
                    _num(e) and any(a.strip().startswith("{") and ("TRUE" in a or '"' in a) for a in _args(f))
                )
            )
        ),
    ),
    Rule(
        "undecided",
        "SWITCH over arrays or ranges of several cells, a blank cell against a value left empty, "
        'or values of other types (SWITCH(FALSE,"0",0,...), SWITCH(In!A5,,"?pple",...)): the engine '
        "compares one value with each value of the same type (#VALUE! for an array expression, a "
        'blank equal to a blank or "" only); LibreOffice evaluates the formula as an array formula '
        "and compares across types; Microsoft's page speaks of one value compared with value1 ...",
        excel_functions()["SWITCH"].url + " (silent)",
        lambda f, e, lo: _outer(f) == "SWITCH",
    ),
    Rule(
        "undecided",
        'IMPRODUCT or IMSUM with a blank cell or "" among its numbers (IMPRODUCT(In!A5,7,2.5)): the '
        "engine reads them as 0, LibreOffice skips them; Microsoft's IM pages name #NUM! for a text "
        "that is not a complex number and say nothing of blanks",
        excel_functions()["IMPRODUCT"].url + " (silent)",
        lambda f, e, lo: (
            _outer(f) in ("IMPRODUCT", "IMSUM")
            and isinstance(e, str)
            and isinstance(lo, str)
            and any(a.strip() in ("In!A5", '""', "In!C4", "In!D5") for a in _args(f))
        ),
    ),
    Rule(
        "excel vs libreoffice",
        'TIME with an hour, minute or second above 32,767 (TIME(45322,3,7)): Excel takes each as "A '
        'number from 0 (zero) to 32767" (#NUM! beyond); LibreOffice computes with it',
        excel_functions()["TIME"].url,
        lambda f, e, lo: (
            _outer(f) == "TIME"
            and _is_err(e, "#NUM!")
            and any(a.strip() in ("45322", "1E+10", "In!A9") for a in _args(f))
        ),
    ),
    Rule(
        "excel vs libreoffice",
        "PERCENTRANK.EXC of one number, or at the highest or lowest: Excel's rank is exclusive, "
        '"greater than 0 and less than 1" (rank / (n + 1): 0.5 of one number); LibreOffice 1 or 0',
        excel_functions()["PERCENTRANK.EXC"].url,
        lambda f, e, lo: _outer(f) == "PERCENTRANK.EXC" and _num(e) and 0.0 < e < 1.0 and lo in (0.0, 1.0),
    ),
    Rule(
        "undecided",
        "coupon dates before 1900-01-01 (COUPDAYBS(In!A4,7,TRUE): settlement serial 1, so the "
        "previous coupon is in 1899): the engine counts on the proleptic calendar (354), "
        "LibreOffice one day more (355); Excel's dates start at 1900-01-01 and its pages do not say",
        excel_functions()["COUPDAYBS"].url + " (silent)",
        lambda f, e, lo: (
            _outer(f) in ("COUPDAYBS", "COUPDAYSNC", "COUPDAYS", "COUPPCD", "COUPNCD")
            and _num(e)
            and _num(lo)
            and abs(e - lo) <= 1.0
            and _args(f)[0].strip() in ("In!A4", "0.5", "1", "TRUE", "0", "1E-9")
        ),
    ),
    Rule(
        "excel vs libreoffice",
        "a function over an array argument that LibreOffice does not evaluate element by element "
        "(ERF(0.5,{1,2,3}), DELTA(1E-9,{1,2;3,4}), GAMMAINV(In!B:B,100,{0.5}), COUPDAYBS with an "
        "array): LibreOffice #VALUE!; Excel evaluates the function for each element (array "
        "formulas), the cell showing the top-left: the engine's answer is that of the formula "
        "with each array replaced by its first element",
        MS + "guidelines-and-examples-of-array-formulas-7d94a64e-3ff3-4686-9372-ecfd5caa57c7",
        lambda f, e, lo, row: (
            _is_err(lo, "#VALUE!")
            and not _is_err(e)
            and e is not None
            and any(a.strip().startswith("{") for a in _args(f))
            and agree(_engine_value(_first_elements(f), row), e)
        ),
        by_row=True,
    ),
    Rule(
        "excel vs libreoffice",
        "a logical value, typed or in a cell, as an argument of an Analysis ToolPak function "
        "(ERF(FALSE), EFFECT(7,TRUE), TBILLPRICE(0.5,In!A4,100) with In!A4 TRUE): Excel "
        "#VALUE!; LibreOffice reads it as 1 or 0",
        "an Excel-saved workbook, vinci1it2000/formulas test/test_files/test.xlsx: ENGINEERING!Y22 "
        "=ERF.PRECISE(J22), Y3 =BESSELI(J3,1), FINANCIAL!Y13 =CUMIPMT(J13,...) with J22, J3, J13 "
        "TRUE and FINANCIAL!Y54 =XIRR(C55:G55,C54:G54,TRUE) are cached #VALUE! "
        "(tests/recalc/test_excel_saved_rules.py)",
        lambda f, e, lo: (
            _outer(f) in ANALYSIS_TOOLPAK
            and _is_err(e, "#VALUE!")
            and not _is_err(lo)
            and any(_logical_arg(a) for a in _args(f))
        ),
    ),
    Rule(
        "undecided",
        "a range of several cells crossing the formula's row in an argument of an Analysis "
        "ToolPak function that takes one value, outside an array formula (BESSELI(-1,In!B:B)): "
        "the engine #VALUE!, as Excel gives for such a range in an array formula; LibreOffice "
        "intersects it with the row for some of these functions",
        "the array-formula cells of the Excel-saved vinci1it2000/formulas test/test_files/test.xlsx "
        "({=ERF(C21:I21)}, {=IMAGINARY(C30:E30)}: #VALUE! in every cell); no Excel-saved cell "
        "shows such a function intersecting a range outside an array formula",
        lambda f, e, lo: (
            _outer(f) in ANALYSIS_TOOLPAK
            and _is_err(e, "#VALUE!")
            and not _is_err(lo)
            and any(_several_cells(a) for a in _args(f))
        ),
    ),
    Rule(
        "undecided",
        "a logical value a call gives (ISNUMBER(45322), OR(1E+10), XOR(...)) as a complex number: "
        "the engine #VALUE!, as for a typed TRUE (Microsoft's Excel 2013 IM* pages: a logical "
        "value is #VALUE!); LibreOffice reads TRUE as 1; the older IM* pages are silent",
        "none for these functions (the Excel 2013 IM* pages, e.g. "
        + excel_functions()["IMSINH"].url
        + ", name #VALUE! for a logical value)",
        lambda f, e, lo, row: (
            _is_complex_function(f)
            and _is_err(e, "#VALUE!")
            and not _is_err(lo)
            and any(isinstance(v, bool) for v in _call_values(f, row))
        ),
        by_row=True,
    ),
    Rule(
        "undecided",
        "a number-text a call gives (CONCAT(1), RIGHT(2.5), IMCONJUGATE(10)) among the values of "
        "VAR, VARP, DEVSQ, PRODUCT, ...: the engine counts it as a number typed into the list of "
        'arguments (Microsoft: "text representations of numbers that you type directly into the '
        "list of arguments are counted\"), LibreOffice #VALUE!; whether a call's text counts as "
        "typed is not documented",
        excel_functions()["VAR"].url + " (silent on texts calls give)",
        lambda f, e, lo, row: (
            _outer(f) in AGGREGATES
            and _is_err(lo, "#VALUE!")
            and not _is_err(e)
            and any(_number_text(v) for v in _call_values(f, row))
        ),
        by_row=True,
    ),
    Rule(
        "undecided",
        "OFFSET with an array constant as rows, cols, height or width, in a cell that is no array "
        "formula (OFFSET(In!A1,{1,2;3,4},{0.5})): the engine #VALUE! (the offsets make several "
        "references, which one cell cannot show), LibreOffice the reference of the arrays' first "
        "elements; Microsoft's OFFSET page does not say",
        excel_functions()["OFFSET"].url + " (silent)",
        lambda f, e, lo: (
            _outer(f) == "OFFSET"
            and _is_err(e, "#VALUE!")
            and any(a.strip().startswith("{") for a in _args(f)[1:])
        ),
    ),
    Rule(
        "undecided",
        "NPER where no finite count exists (rate -1, or payment, present and future value all 0: "
        "NPER(-1,10,0.5), NPER(3,,In!B:B)): the engine #NUM! (the annuity equation has no "
        "solution), LibreOffice 0; Microsoft's NPER page does not say",
        excel_functions()["NPER"].url + " (silent)",
        lambda f, e, lo: _outer(f) == "NPER" and _is_err(e, "#NUM!") and lo == 0.0,
    ),
    Rule(
        "undecided",
        "a database function over a database of one row (labels, no records: DCOUNT(In!A7,1,"
        "In!A7)) or an array constant (DCOUNT({1,2,3},...)): the engine 0 (no record matches), "
        "LibreOffice #VALUE!; Microsoft's pages describe the database as a range with labels in "
        "its first row, and say nothing of these",
        excel_functions()["DCOUNT"].url + " (silent)",
        lambda f, e, lo: (
            _outer(f) in D_FUNCTIONS
            and e == 0.0
            and _is_err(lo, "#VALUE!")
            and (
                _args(f)[0].strip().startswith("{") or _SINGLE_CELL.fullmatch(_args(f)[0].strip()) is not None
            )
        ),
    ),
    Rule(
        "undecided",
        "RANK, RANK.EQ or RANK.AVG of a number that ref does not hold (RANK(2.5,In!B:B)): the "
        "engine #N/A, LibreOffice the rank it would have (5); Microsoft's pages say \"if you "
        'were to sort the list, the rank of the number would be its position" and nothing of a '
        "number not in the list",
        excel_functions()["RANK.EQ"].url + " (silent)",
        lambda f, e, lo, row: (
            _outer(f) in ("RANK", "RANK.EQ", "RANK.AVG")
            and _is_err(e, "#N/A")
            and _num(lo)
            and _engine_value(f"COUNTIF({_args(f)[1]},{_args(f)[0]})", row) == 0.0
        ),
        by_row=True,
    ),
    Rule(
        "undecided",
        "MODE, MODE.SNGL or MODE.MULT with a logical value typed or given by a call "
        "(MODE.MULT(7,0,TRUE,FALSE), MODE.SNGL(...,ISEVEN(1E+10))): the engine #VALUE!, "
        "LibreOffice counts TRUE as 1 and FALSE as 0; Microsoft's pages say that logical values "
        "in an array or reference are ignored and nothing of typed ones",
        excel_functions()["MODE.MULT"].url + " (silent on typed logical values)",
        lambda f, e, lo, row: (
            _outer(f) in ("MODE", "MODE.SNGL", "MODE.MULT")
            and _is_err(e, "#VALUE!")
            and _num(lo)
            and (
                any(a.strip() in ("TRUE", "FALSE") for a in _args(f))
                or any(isinstance(v, bool) for v in _call_values(f, row))
            )
        ),
        by_row=True,
    ),
    Rule(
        "undecided",
        "an approximate lookup of a text, or of a date or number text among numbers "
        '(HLOOKUP(In!D4,In!D1:D6,3): "Apple" after "a"; HLOOKUP("2024-01-31 06:00",{1,2;3,4},2)), '
        "or of an omitted lookup value (LOOKUP(,-2.5)): the engine compares texts with texts only "
        "(a text never matches a number) and reads an omitted value as a blank, which matches "
        "nothing (#N/A); LibreOffice #N/A for the first, and converts the date text and reads the "
        "omitted value as 0 for the others; Microsoft's pages do not decide these",
        excel_functions()["HLOOKUP"].url + " (silent)",
        lambda f, e, lo: (
            _outer(f) in ("LOOKUP", "VLOOKUP", "HLOOKUP", "MATCH")
            and (_is_err(e, "#N/A") != _is_err(lo, "#N/A"))
            and (
                _args(f)[0].strip() in ("", "In!D4", "In!D3", "In!A7")
                or (_args(f)[0].strip() in ARGS["date text"] + ARGS["number text"] and _is_err(e, "#N/A"))
            )
        ),
    ),
    Rule(
        "undecided",
        "SUMPRODUCT, MMULT or TRANSPOSE with an error (a constant, or the error cell In!A6) "
        'among texts or blanks (SUMPRODUCT(In!D3,#DIV/0!,"-1"), MMULT(In!A6,3), '
        "TRANSPOSE(In!A6)): the engine gives the error, LibreOffice 0; Microsoft's pages say "
        "non-numeric entries are zeros (SUMPRODUCT) and nothing of errors",
        excel_functions()["SUMPRODUCT"].url + " (silent on errors)",
        lambda f, e, lo: (
            _outer(f) in ("SUMPRODUCT", "MMULT", "TRANSPOSE")
            and _is_err(e)
            and lo == 0.0
            and (_has(f, {"In!A6"}) or any(a.strip() in ARGS["error"] for a in _args(f)))
        ),
    ),
    Rule(
        "undecided",
        "DB outside what Microsoft's page describes (cost equal to salvage: DB(1E-9,1E-9,45322,"
        "2.5), the engine 0 by the page's formula, LibreOffice #VALUE!; a period below 1 or "
        "beyond the life: the engine #NUM!, LibreOffice 0)",
        excel_functions()["DB"].url + " (silent)",
        lambda f, e, lo: (
            _outer(f) == "DB"
            and ((_is_err(e, "#NUM!") and lo == 0.0) or (e == 0.0 and _is_err(lo, "#VALUE!")))
        ),
    ),
    Rule(
        "undecided",
        "CHISQ.TEST or CHITEST of ranges or arrays holding texts or logical values "
        '(CHISQ.TEST(In!C1:C6,In!C1:C6), CHITEST({1,"a";TRUE,2},{1,2;3,4})): the engine uses the '
        "pairs of numbers, LibreOffice #VALUE!; Microsoft's pages do not say",
        excel_functions()["CHISQ.TEST"].url + " (silent)",
        lambda f, e, lo: _outer(f) in ("CHISQ.TEST", "CHITEST") and _num(e) and _is_err(lo, "#VALUE!"),
    ),
    Rule(
        "undecided",
        "a normal tail far out (CONFIDENCE(1E-9,7,1), Z.TEST({1,2,3},-1)): the engine computes the "
        "tail itself (-NORM.S.INV(alpha/2): 42.76587143408578, as Python's statistics gives), "
        "LibreOffice from 1 - alpha/2 in doubles (42.765871341643, 2e-9 away; Z.TEST 5e-5); "
        "Microsoft's pages give the formula, not its rounding",
        excel_functions()["CONFIDENCE.NORM"].url + "; " + excel_functions()["Z.TEST"].url,
        lambda f, e, lo: (
            _outer(f) in ("CONFIDENCE", "CONFIDENCE.NORM", "Z.TEST", "ZTEST")
            and _num(e)
            and _num(lo)
            and math.isclose(e, lo, rel_tol=1e-3)
        ),
    ),
    Rule(
        "undecided",
        "a WEIBULL density too small for a double (WEIBULL(3,45322,1,FALSE): about "
        "e^(-3^45322)): the engine 0 (the nearest double), LibreOffice #NUM!; Microsoft's page "
        "does not say",
        excel_functions()["WEIBULL.DIST"].url + " (silent)",
        lambda f, e, lo: _outer(f) in ("WEIBULL", "WEIBULL.DIST") and e == 0.0 and _is_err(lo, "#NUM!"),
    ),
    Rule(
        "undecided",
        "a bond whose settlement is serial 0 (MDURATION(1E-9,TRUE,...): 1900-01-00, one day to "
        "maturity): the engine counts the day (0.00185), LibreOffice 0; Excel's dates start at "
        "1900-01-01 and its pages do not say",
        excel_functions()["MDURATION"].url + " (silent)",
        lambda f, e, lo: (
            _outer(f) in ("DURATION", "MDURATION", "PRICE", "YIELD")
            and _num(e)
            and _num(lo)
            and _args(f)[0].strip() in ("0", "1E-9", "0.5", "In!C3")
        ),
    ),
    Rule(
        "undecided",
        "ROWS or COLUMNS of an IF whose condition is a range the formula's row does not cross "
        '(ROWS(IF(In!C1:C6,{1,"a";TRUE,2},)) on row 4,525): the engine the size of IF\'s array '
        "(2), LibreOffice intersects the condition (#VALUE!); Microsoft's pages do not say how "
        "ROWS evaluates its argument",
        excel_functions()["ROWS"].url + " (silent)",
        lambda f, e, lo: (
            _outer(f) in ("ROWS", "COLUMNS")
            and _num(e)
            and _is_err(lo, "#VALUE!")
            and _args(f)[0].strip().startswith("IF(")
        ),
    ),
    Rule(
        "undecided",
        'ADDRESS with an abs_num that is a currency text ("$5", 5 as a number): the engine '
        "#VALUE! (abs_num 1 to 4), LibreOffice an R1C1 address; Microsoft's page lists 1 to 4 and "
        "does not say what another value gives",
        excel_functions()["ADDRESS"].url + " (silent)",
        lambda f, e, lo: _outer(f) == "ADDRESS" and _is_err(e, "#VALUE!") and isinstance(lo, str),
    ),
    Rule(
        "undecided",
        "DOLLAR with 100 decimals: the engine writes them (FIXED's page: decimals can be as large "
        "as 127), LibreOffice #VALUE!; DOLLAR's own page does not say",
        excel_functions()["FIXED"].url + "; " + excel_functions()["DOLLAR"].url + " (silent)",
        lambda f, e, lo: _outer(f) == "DOLLAR" and isinstance(e, str) and _is_err(lo, "#VALUE!"),
    ),
    Rule(
        "excel vs libreoffice",
        'a text that is no number ("abc", "?pple") in a number argument of a formula holding '
        'an array constant (POWER({1,2;3,4},"abc")): Excel #VALUE! for each element, as for '
        'POWER(1,"abc") (a text that cannot be read as a number); LibreOffice, which evaluates '
        "such a formula as an array formula, reads the text as 0 there (1, not its #VALUE! for "
        'POWER(1,"abc"))',
        MS + "how-to-correct-a-value-error-15e1b616-fbf2-4147-9c0b-0a11a20e409e",
        lambda f, e, lo, row: (
            _is_err(e, "#VALUE!")
            and _num(lo)
            and "{" in f
            and any(a.strip() in ARGS["text"] and a.strip() != '""' for a in _args(f))
            and _is_err(_engine_value(_first_elements(f), row), "#VALUE!")
        ),
        by_row=True,
    ),
    Rule(
        "excel vs libreoffice",
        "SUMX2MY2, SUMX2PY2, SUMXMY2 over a range holding logical values (SUMX2MY2(In!B1:B6,"
        'In!C1:C6), In!C3 FALSE): Excel "If an array or reference argument contains text, logical '
        'values, or empty cells, those values are ignored" (the pair with FALSE is left out); '
        "LibreOffice reads FALSE as 0 and counts the pair",
        excel_functions()["SUMXMY2"].url + "; " + excel_functions()["SUMX2MY2"].url,
        lambda f, e, lo: (
            _outer(f) in ("SUMXMY2", "SUMX2MY2", "SUMX2PY2")
            and _num(e)
            and _num(lo)
            and any(a.strip() in _LOGICAL_REFS for a in _args(f))
        ),
    ),
    Rule(
        "excel vs libreoffice",
        "PERMUT of a number that truncates to 0 or less, a number_chosen below 0 or above the "
        'number (PERMUT("10%",1E-9), PERMUT(0,0)): Excel "If number <= 0 or if number_chosen < 0, '
        'PERMUT returns the #NUM! error value" (both truncated); LibreOffice 1',
        excel_functions()["PERMUT"].url + " (tests/recalc/functions/test_statistical.py)",
        lambda f, e, lo, row: (
            _outer(f) == "PERMUT" and _is_err(e, "#NUM!") and _num(lo) and _permut_domain(f, row)
        ),
        by_row=True,
    ),
    Rule(
        "undecided",
        "MULTINOMIAL of a number whose factorial is past the largest number (MULTINOMIAL(1E+10)): "
        "the engine 1, the quotient (n!)/(n!) as a product of binomial coefficients; LibreOffice "
        "#VALUE! (it computes the factorials); Microsoft's page names #NUM! for an argument below "
        "0 and says nothing of factorials past the largest number",
        excel_functions()["MULTINOMIAL"].url + " (silent)",
        lambda f, e, lo: _outer(f) == "MULTINOMIAL" and _num(e) and _is_err(lo) and "1E+10" in _args(f),
    ),
    # --- the 85 functions added on 2026-12-04 (each rule the source its family test cites) ------
    Rule(
        "excel vs libreoffice",
        "BITAND, BITOR, BITXOR, BITLSHIFT, BITRSHIFT of a number that is not an integer, is below 0 "
        "or above (2^48)-1 (a date text's fraction, 0.5, 1E+10's shift too), or a shift_amount "
        "whose absolute value is above 53: Excel #NUM!; LibreOffice truncates or shifts",
        excel_functions()["BITAND"].url
        + "; "
        + excel_functions()["BITLSHIFT"].url
        + "; "
        + FORMULAS_TEST_XLSX
        + " ENGINEERING!R10 =BITAND(2^48,...), S10 =BITAND(1.5,...) cached #NUM! "
        "(tests/recalc/functions/test_math.py)",
        lambda f, e, lo, row: (
            _outer(f) in BIT_FUNCTIONS and _is_err(e, "#NUM!") and not _is_err(lo) and _bit_domain(f, row)
        ),
        by_row=True,
    ),
    Rule(
        "excel vs libreoffice",
        'COT, CSC, SEC, COTH, CSCH, SECH of a number whose absolute value is 2^27 or more: "The '
        'absolute value of Number must be less than 2^27" (#NUM!); LibreOffice computes them',
        excel_functions()["COT"].url
        + "; "
        + excel_functions()["SEC"].url
        + "; "
        + excel_functions()["CSCH"].url,
        lambda f, e, lo, row: (
            _outer(f) in RECIPROCAL_TRIG
            and _is_err(e, "#NUM!")
            and not _is_err(lo)
            and _num(v := _arg_number(_args(f)[0], row))
            and abs(v) >= 2.0**27
        ),
        by_row=True,
    ),
    Rule(
        "excel vs libreoffice",
        'GEOMEAN or HARMEAN with a data point <= 0 typed as an argument (0, -1, "-1", FALSE, an '
        'empty argument): Excel "If any data point <= 0, GEOMEAN returns the #NUM! error value" '
        "(HARMEAN's page the same of HARMEAN); LibreOffice 0 or #VALUE!",
        excel_functions()["GEOMEAN"].url + "; " + excel_functions()["HARMEAN"].url,
        lambda f, e, lo, row: (
            _outer(f) in ("GEOMEAN", "HARMEAN")
            and _is_err(e, "#NUM!")
            and not agree(e, lo)
            and any(_scalar_arg(a) and _num(v := _arg_number(a, row)) and v <= 0 for a in _args(f))
        ),
        by_row=True,
    ),
    Rule(
        "excel vs libreoffice",
        "logical values (and texts) in a reference given to GEOMEAN, HARMEAN, SKEW, SKEW.P, KURT "
        '(In!A4 TRUE, In!C1:C6): Excel "If an array or reference argument contains text, logical '
        'values, or empty cells, those values are ignored"; LibreOffice counts TRUE as 1 and '
        "FALSE as 0",
        excel_functions()["GEOMEAN"].url + "; " + excel_functions()["SKEW"].url,
        lambda f, e, lo: (
            _outer(f) in ("GEOMEAN", "HARMEAN", "SKEW", "SKEW.P", "KURT")
            and _num(e)
            and _has(f, {"In!A4", "In!C3"} | _LOGICAL_REFS)
        ),
    ),
    Rule(
        "excel vs libreoffice",
        'UNICHAR of a number that truncates to 0 (0, 0.5, FALSE, "10%", a blank): Excel "If '
        'number is zero (0), UNICHAR returns the #VALUE! error value"; LibreOffice the character 0',
        excel_functions()["UNICHAR"].url,
        lambda f, e, lo: _outer(f) == "UNICHAR" and _is_err(e, "#VALUE!") and lo == "\x00",
    ),
    Rule(
        "excel vs libreoffice",
        'FREQUENCY over texts, blanks or logical values: Excel "FREQUENCY ignores blank cells and '
        'text" (a logical value in a reference too), and without a numeric bin gives one count, '
        "of every number of data_array (bins of blank cells alone: one bin of 0, as the "
        "Excel-saved cells show); LibreOffice #VALUE!, or counts FALSE as 0",
        excel_functions()["FREQUENCY"].url
        + " (tests/recalc/functions/test_statistical.py); "
        + FORMULAS_TEST_XLSX
        + " EXTRA!J50:J51 {=FREQUENCY(I41:I44,J41:J44)} with J41:J44 blank cached {0;3}",
        lambda f, e, lo: (
            _outer(f) == "FREQUENCY"
            and _num(e)
            and not any(a.strip() in ARGS["error"] or a.strip() == "In!A6" for a in _args(f))
            and any(_holds_texts(a) for a in _args(f))
        ),
    ),
    Rule(
        "excel vs libreoffice",
        "FVSCHEDULE with a text (a number's or a date's text too) or a logical value in the "
        'schedule: Excel "The values in schedule can be numbers or blank cells; any other value '
        'produces the error value #VALUE! for FVSCHEDULE"; LibreOffice reads the text as its number',
        excel_functions()["FVSCHEDULE"].url,
        lambda f, e, lo: (
            _outer(f) == "FVSCHEDULE"
            and _is_err(e, "#VALUE!")
            and not _is_err(lo)
            and len(_args(f)) == 2
            and _holds_texts(_args(f)[1])
        ),
    ),
    Rule(
        "excel-saved file",
        "NUMBERVALUE of a logical value (NUMBERVALUE(In!A4,7), In!A4 TRUE): Excel reads it as the "
        'text "TRUE", as LEFT(TRUE,2) is "TR", which is no number: #VALUE! (its page: text "not '
        'in a valid format"); LibreOffice reads TRUE as 1',
        "tests/data/excel_corpus/poi/test-data/spreadsheet/FormulaEvalTestData_Copy.xlsx "
        "EverythingTests!I824 =LEFT(TRUE,2) cached 'TR'; " + excel_functions()["NUMBERVALUE"].url,
        lambda f, e, lo: (
            _outer(f) == "NUMBERVALUE"
            and _is_err(e, "#VALUE!")
            and _num(lo)
            and (_args(f)[0].strip() in _LOGICAL or bool(_LOGICAL_CALL.match(_args(f)[0].strip())))
        ),
    ),
    Rule(
        "undecided",
        'IMSUM or IMPRODUCT with an omitted argument (IMPRODUCT(10,,"3",-1)): the engine reads it '
        "as 0 (the product 0), LibreOffice skips it; Microsoft's pages say nothing of an empty "
        "inumber",
        excel_functions()["IMPRODUCT"].url + " (silent)",
        lambda f, e, lo: _outer(f) in ("IMSUM", "IMPRODUCT") and any(not a.strip() for a in _args(f)[1:]),
    ),
    Rule(
        "undecided",
        "SUMX2MY2, SUMX2PY2 or SUMXMY2 of a number text that a call gives (SUMX2MY2(7,"
        "IMCONJUGATE(1E+10))): the engine reads it as the number, LibreOffice leaves the pair out "
        "as text; Microsoft's pages ignore text in an array or reference, not a call's result",
        excel_functions()["SUMX2MY2"].url + " (silent)",
        lambda f, e, lo: (
            _outer(f) in ("SUMX2MY2", "SUMX2PY2", "SUMXMY2")
            and any(re.match(r"(?:_xlfn\.)?IM[A-Z0-9]*\(", a.strip()) for a in _args(f))
        ),
    ),
    Rule(
        "excel-saved file",
        'booleans as text in the byte functions and UNICODE (LEFTB(TRUE) "T", LENB(FALSE) 5, '
        'UNICODE(TRUE) 84): as LEFT(TRUE,2) is "TR"; the *B functions count one byte a '
        "character where the default language has no double-byte character set (Microsoft's "
        "LEFT, LEFTB page); LibreOffice reads TRUE as 1",
        "tests/data/excel_corpus/poi/test-data/spreadsheet/FormulaEvalTestData_Copy.xlsx "
        "EverythingTests!I824 =LEFT(TRUE,2) cached 'TR'; " + excel_functions()["LEFTB"].url,
        lambda f, e, lo, row: (
            _outer(f) in BYTE_TEXT_FUNCTIONS
            and (
                _has(f, _LOGICAL)
                or any(_LOGICAL_CALL.match(a.strip()) for a in _args(f))
                or any(isinstance(v, bool) for v in _call_values(f, row))
            )
        ),
        by_row=True,
    ),
    Rule(
        "excel vs libreoffice",
        'FINDB or SEARCHB of an empty text or a blank cell: Excel "If find_text is "" (empty '
        'text), FIND matches the first character in the search string"; LibreOffice #VALUE!',
        excel_functions()["FINDB"].url,
        lambda f, e, lo, row: (
            _outer(f) in ("FINDB", "SEARCHB")
            and _num(e)
            and _is_err(lo, "#VALUE!")
            and (_args(f)[0].strip() in ('""', "In!D5") or _blank_or_zero(_args(f)[0], row))
        ),
        by_row=True,
    ),
    Rule(
        "excel vs libreoffice",
        'TYPE of a logical value: Excel 4 ("Logical value: 4"); LibreOffice 1 (its logical '
        "values are numbers)",
        excel_functions()["TYPE"].url,
        lambda f, e, lo: _outer(f) == "TYPE" and e == 4.0 and lo == 1.0,
    ),
    Rule(
        "undecided",
        "TYPE of a reference to several cells (TYPE(In!D1:D6)): the engine 64, as for an array; "
        "LibreOffice intersects it with the formula's row (#VALUE!, or the type of that cell); "
        "Microsoft's TYPE page gives 64 for an array and does not say what a reference to "
        "several cells is",
        excel_functions()["TYPE"].url + " (silent on references)",
        lambda f, e, lo: _outer(f) == "TYPE" and e == 64.0 and _several_cells(_args(f)[0]),
    ),
    Rule(
        "undecided",
        "N of a reference to several cells (N(In!A1:A10)): the engine reads its first cell, as "
        "Excel's T does (POI's Excel-saved EverythingTests!O1352); LibreOffice intersects it with "
        "the formula's row (#VALUE!, or that cell); Microsoft's N page does not say",
        excel_functions()["N"].url + " (silent on references)",
        lambda f, e, lo: _outer(f) == "N" and _num(e) and _several_cells(_args(f)[0]),
    ),
    Rule(
        "excel vs libreoffice",
        "NUMBERVALUE with a separator of several characters (NUMBERVALUE(100,45322), "
        'NUMBERVALUE("",10)): Excel "If multiple characters are used in the Decimal_separator or '
        'Group_separator arguments, only the first character is used" (and "" is 0); '
        "LibreOffice #VALUE!",
        excel_functions()["NUMBERVALUE"].url + " (tests/recalc/functions/test_text.py)",
        lambda f, e, lo, row: (
            _outer(f) == "NUMBERVALUE"
            and _num(e)
            and _is_err(lo, "#VALUE!")
            and any(len(_arg_text(a, row)) > 1 for a in _args(f)[1:])
            and not _stray_point(f, row)
        ),
        by_row=True,
    ),
    Rule(
        "undecided",
        "NUMBERVALUE of a text holding a period where another decimal separator is given "
        '(NUMBERVALUE(-2.5,"?pple")): the engine reads the period as a decimal point still '
        "(-2.5), LibreOffice #VALUE!; Microsoft's page does not say what a character that is no "
        "separator gives",
        excel_functions()["NUMBERVALUE"].url + " (silent)",
        lambda f, e, lo, row: (
            _outer(f) == "NUMBERVALUE" and _num(e) and _is_err(lo, "#VALUE!") and _stray_point(f, row)
        ),
        by_row=True,
    ),
    Rule(
        "excel-saved file",
        "GCD or LCM of a blank cell: Excel #VALUE!; LibreOffice reads it as 0",
        FORMULAS_TEST_XLSX + " MATH & TRIG!W34 =GCD(...) and W37 =LCM(...) of a blank cell cached "
        "#VALUE! (tests/recalc/functions/test_math.py)",
        lambda f, e, lo, row: (
            _outer(f) in ("GCD", "LCM")
            and _is_err(e, "#VALUE!")
            and not _is_err(lo)
            and any(
                a.strip() in ("In!A5", "In!C4") or (a.strip() == "In!B:B" and _blank_or_zero(a, row))
                for a in _args(f)
            )
        ),
        by_row=True,
    ),
    Rule(
        "excel vs libreoffice",
        "a negative date serial as a settlement, maturity or issue date of the securities "
        'functions (YIELDDISC(-2.5,...)): Excel "If settlement or maturity is not a valid date, '
        '... returns the #VALUE! error value"; LibreOffice computes with it',
        "; ".join(excel_functions()[n].url for n in ("YIELDDISC", "PRICEDISC", "ACCRINTM")),
        lambda f, e, lo, row: (
            _outer(f) in SECURITY_DATES
            and _is_err(e, "#VALUE!")
            and _num(lo)
            and any(_num(v := _arg_number(_args(f)[i], row)) and v < 0 for i in _date_positions(f))
        ),
        by_row=True,
    ),
    Rule(
        "excel vs libreoffice",
        "a date serial before 1900-03-01 given to a securities function (ACCRINTM(10,...)): "
        "Excel's serial 10 is 1900-01-10 (its 1900 date system counts 1900-02-29), "
        "LibreOffice's 1900-01-09 (it counts from 1899-12-30), so the day counts differ by one",
        "https://learn.microsoft.com/en-US/office/troubleshoot/excel/wrongly-assumes-1900-is-leap-year",
        lambda f, e, lo, row: (
            _outer(f) in SECURITY_DATES
            and _num(e)
            and _num(lo)
            and any(_num(v := _arg_number(_args(f)[i], row)) and 0 <= v < 61 for i in _date_positions(f))
        ),
        by_row=True,
    ),
    Rule(
        "undecided",
        "a logical value a call gives (OR(1,TRUE,2.5)) as an argument of an Analysis ToolPak "
        "function (SERIESSUM): the engine #VALUE!, as Excel gives for a logical value typed or "
        "in a cell; LibreOffice reads TRUE as 1; no Excel-saved cell shows a call's",
        "the Excel-saved cells of the rule of a logical value given to an Analysis ToolPak "
        "function (a cell holding TRUE); none for a call",
        lambda f, e, lo, row: (
            _outer(f) in ANALYSIS_TOOLPAK
            and _is_err(e, "#VALUE!")
            and not _is_err(lo)
            and any(isinstance(v, bool) for v in _call_values(f, row))
        ),
        by_row=True,
    ),
    Rule(
        "excel-saved file",
        "FACTDOUBLE(-1): Excel 1 (the empty product); LibreOffice #VALUE!",
        FORMULAS_TEST_XLSX + " MATH & TRIG!V31 cached 1 (tests/recalc/functions/test_math.py)",
        lambda f, e, lo, row: (
            _outer(f) == "FACTDOUBLE" and e == 1.0 and _is_err(lo) and _arg_number(_args(f)[0], row) == -1.0
        ),
        by_row=True,
    ),
    Rule(
        "excel-saved file",
        'FIXED with a text no_commas other than "TRUE" or "FALSE" (a number\'s text too, "0"): '
        "Excel #VALUE! (no_commas is a logical value); LibreOffice reads it as a number",
        FORMULAS_TEST_XLSX + ' EXTRA!O4 =FIXED(...,"3","0"), Q3 =FIXED(...,"3","1"), R3 '
        '=FIXED(...,"3","d") cached #VALUE! (tests/recalc/test_excel_saved_rules.py)',
        lambda f, e, lo: (
            _outer(f) == "FIXED"
            and _is_err(e, "#VALUE!")
            and not _is_err(lo)
            and len(_args(f)) == 3
            and re.fullmatch(r'"[^"]*"', a := _args(f)[2].strip()) is not None
            and a[1:-1].strip().upper() not in ("TRUE", "FALSE")
        ),
    ),
)


def _first_elements(formula: str) -> str:
    """The formula with each array constant among the outer call's arguments replaced by its
    first element (``ERF(0.5,{1,2,3})`` -> ``ERF(0.5,1)``)."""
    args = [re.split(r"[,;]", a.strip()[1:-1])[0] if a.strip().startswith("{") else a for a in _args(formula)]
    return formula[: formula.index("(")] + "(" + ",".join(args) + ")"


def _engine_value(formula: str, row: int | None) -> object:
    """The engine's value of one formula written at ``F!A{row}`` of a batch (row 1 where unknown)."""
    row = row or 1
    with tempfile.TemporaryDirectory(prefix="gputco-fuzz-one-") as folder:
        return engine_values(write_batch(Path(folder) / "one.xlsx", ['""'] * (row - 1) + [formula]), row)[-1]


#: functions with degrees of freedom (the engine's #NUM! from 10^10 on)
DF_FUNCTIONS = {
    "T.DIST", "T.DIST.2T", "T.DIST.RT", "TDIST", "T.INV", "T.INV.2T", "TINV", "CHISQ.DIST",
    "CHISQ.DIST.RT", "CHIDIST", "CHISQ.INV", "CHISQ.INV.RT", "CHIINV",
}  # fmt: skip
#: functions over the numbers of their arrays that ignore a range's or an array's logical values
STATS_IGNORING_LOGICALS = {
    "Z.TEST", "ZTEST", "PERCENTRANK", "PERCENTRANK.INC", "PERCENTRANK.EXC", "RANK", "RANK.EQ",
    "RANK.AVG", "MODE", "MODE.SNGL", "MODE.MULT",
}  # fmt: skip


#: the database functions (DSUM, DCOUNT, ...)
D_FUNCTIONS = {
    "DAVERAGE", "DCOUNT", "DCOUNTA", "DGET", "DMAX", "DMIN", "DPRODUCT", "DSTDEV", "DSTDEVP",
    "DSUM", "DVAR", "DVARP",
}  # fmt: skip
_CALL = re.compile(r"(_xlfn\.)*[A-Z][A-Z0-9.]*\(")


def _logical_arg(a: str) -> bool:
    """Whether an argument is a typed logical value or a cell of the In sheet holding one."""
    a = a.strip()
    return a in ("TRUE", "FALSE") or isinstance(_INPUT.get(a.removeprefix("In!")), bool)


def _several_cells(a: str) -> bool:
    """Whether an argument is a reference to several cells of the In sheet (In!B:B, In!A1:A10)."""
    a = a.strip()
    return a.startswith("In!") and ":" in a and not re.fullmatch(r"In!([A-Z]+)(\d+):\1\2", a)


def _call_values(formula: str, row: int | None) -> list[object]:
    """The engine's values of the outer call's arguments that are calls, each evaluated alone
    at the formula's row."""
    return [_engine_value(a.strip(), row) for a in _args(formula) if _CALL.match(a.strip())]


def _number_text(v: object) -> bool:
    if not isinstance(v, str):
        return False
    try:
        float(v)
    except ValueError:
        return False
    return True


#: the logical argument's position (0-based) of the functions of one value taking one: the
#: distributions' cumulative, DAYS360's method, VDB's no_switch, ACCRINT's calc_method
LOGICAL_ARGUMENT = {
    "BETA.DIST": 3, "BINOM.DIST": 3, "BINOMDIST": 3, "CHISQ.DIST": 2, "EXPON.DIST": 2,
    "EXPONDIST": 2, "F.DIST": 3, "GAMMA.DIST": 3, "GAMMADIST": 3, "HYPGEOM.DIST": 4,
    "LOGNORM.DIST": 3, "NEGBINOM.DIST": 3, "NORM.DIST": 3, "NORM.S.DIST": 1, "NORMDIST": 3,
    "POISSON": 2, "POISSON.DIST": 2, "T.DIST": 2, "WEIBULL": 3, "WEIBULL.DIST": 3,
    "DAYS360": 2, "VDB": 6, "ACCRINT": 7,
}  # fmt: skip


def _logical_arg_text(formula: str, engine: object) -> bool:
    """Whether the logical argument (:data:`LOGICAL_ARGUMENT`) is a text, typed or in a cell of
    In, and the engine read it as Excel does: "TRUE"/"FALSE" as logical values, else #VALUE!."""
    i = LOGICAL_ARGUMENT.get(_outer(formula))
    args = _args(formula)
    if i is None or i >= len(args):
        return False
    a = args[i].strip()
    if a.startswith('"') and a.endswith('"') and len(a) >= 2:
        text = a[1:-1]
    elif (
        _SINGLE_CELL.fullmatch(a) and isinstance(_INPUT.get(a[3:]), str) and not _INPUT[a[3:]].startswith("#")
    ):
        text = _INPUT[a[3:]]
    else:
        return False
    return text.strip().upper() in ("TRUE", "FALSE") or _is_err(engine, "#VALUE!")


def _blank_or_zero(a: str, row: int | None) -> bool:
    """Whether an argument as written is 0: the number, an empty argument, a blank cell of In, or
    In!B:B met at a row below its numbers (implicit intersection)."""
    a = a.strip()
    return a in ("0", "", "FALSE", "In!A5", "In!C4") or (a == "In!B:B" and row is not None and row > 6)


def _odd_format(a: str) -> bool:
    """A format argument the fuzzer draws that is no format a user writes: a number, empty, a
    cell, one of its argument texts (none of them a format), or a call or an array constant of
    them (IFERROR("abc","ABC"), CONCAT("2.5","12:00"), {"3";"x"})."""
    return (
        a == ""
        or a.startswith("{")
        or re.match(r"(_xlfn\.)*[A-Z][A-Z0-9.]*\(", a) is not None
        or _number_literal(a)
        or a.startswith("In!")
        or a in ARGS["text"] + ARGS["number text"] + ARGS["date text"] + ARGS["locale text"]
    )


def _args(formula: str) -> list[str]:
    """The outer call's arguments as written (top level: not split inside calls, arrays, texts)."""
    body = formula[formula.index("(") + 1 : -1]
    out, depth, cur, quoted = [], 0, "", False
    for ch in body:
        if ch == '"':
            quoted = not quoted
        elif not quoted and ch in "({":
            depth += 1
        elif not quoted and ch in ")}":
            depth -= 1
        if not quoted and depth == 0 and ch == ",":
            out.append(cur)
            cur = ""
        else:
            cur += ch
    out.append(cur)
    return out


#: a single cell of the input sheet, as a formula writes it (In!D3), and the input cells' values
_SINGLE_CELL = re.compile(r"In![A-D][0-9]+")
_INPUT = dict(INPUTS)


def _first_text(ref: str) -> str:
    """The text of a range's first cell on ``In`` ("" where it holds no text): ``In!B:B`` -> B1."""
    first = ref.removeprefix("In!").split(":")[0]
    v = _INPUT.get(first if first[-1].isdigit() else first + "1")
    return v if isinstance(v, str) and not v.startswith("#") else ""


def _scalar_as_array(f: str, e: object) -> bool:
    """ROWS/COLUMNS of one value that is no reference or array literal, answered 1; INDEX of a
    number, text or logical literal, answered that value; MATCH in a number or text literal, 1."""
    args = _args(f)
    name = _outer(f)
    if name in ("ROWS", "COLUMNS"):
        return len(args) == 1 and e == 1.0 and not args[0].startswith(("In!", "{"))
    if name in ("INDEX", "SMALL", "LARGE"):
        if name == "INDEX" and args[0] in ("TRUE", "FALSE"):
            return e is (args[0] == "TRUE")
        if name == "INDEX" and re.fullmatch(r'"[^"]*"', args[0]):
            return e == args[0][1:-1]
        return _number_literal(args[0]) and e == float(args[0])
    if name == "MATCH":
        return len(args) > 1 and (_number_literal(args[1]) or re.fullmatch(r'"[^"]*"', args[1])) and e == 1.0
    return False


#: the input ranges the fuzzer draws: (first row, last row, columns); None: a whole column
_RANGE_ROWS = {"In!A1:A10": (1, 10, 1), "In!B1:B6": (1, 6, 1), "In!C1:C6": (1, 6, 1),
               "In!D1:D6": (1, 6, 1), "In!B1:C6": (1, 6, 2), "In!A1:D6": (1, 6, 4), "In!B:B": None}  # fmt: skip


def _no_intersection(formula: str, row: int | None) -> bool:
    """Whether an argument of the outer call that takes one value (mode "v") is a range that
    implicit intersection cannot reduce to one cell from ``F!A{row}``: several rows and
    several columns, or one column whose rows do not include ``row``."""
    spec = BUILTINS.get(_outer(formula))
    if spec is None:
        return False
    for i, a in enumerate(_args(formula)):
        shape = _RANGE_ROWS.get(a.strip(), False)
        if shape in (None, False) or spec.modes[min(i, len(spec.modes) - 1)] != "v":
            continue
        first, last, cols = shape
        if cols > 1 or (row is not None and not first <= row <= last):
            return True
    return False


def _number_literal(a: str) -> bool:
    return re.fullmatch(r"-?[\d.]+(E[+-]?\d+)?", a) is not None


def _is_complex_function(f: str) -> bool:
    name = _outer(f)
    return name.startswith("IM") or name == "COMPLEX"


def _complex(text: object) -> complex | None:
    """A complex number's text (x+yi, x+yj, 1e-09, 1E-09) as a number, or None."""
    if not isinstance(text, str) or not text:
        return None
    s = text.replace("i", "j")
    s = re.sub(r"(^|[+-])j$", r"\g<1>1j", s)
    try:
        return complex(s)
    except ValueError:
        return None


def _same_complex(e: object, lo: object) -> bool:
    a, b = _complex(e), _complex(lo)
    return a is not None and b is not None and abs(a - b) <= 1e-9 * max(abs(a), abs(b)) + 1e-12


#: the criterion positions of the criteria functions
_CRITERIA = {
    "COUNTIF": lambda i: i == 1,
    "SUMIF": lambda i: i == 1,
    "AVERAGEIF": lambda i: i == 1,
    "COUNTIFS": lambda i: i % 2 == 1,
    **{n: (lambda i: i > 0 and i % 2 == 0) for n in ("SUMIFS", "AVERAGEIFS", "MAXIFS", "MINIFS")},
}


def _odd_criterion(f: str) -> bool:
    """A criterion that is a range, an error (literal or cell) or a call."""
    at = _CRITERIA.get(_outer(f))
    return at is not None and any(
        at(i) and (a in ARGS["range"] or a in ARGS["error"] or a == "In!A6" or "(" in a)
        for i, a in enumerate(_args(f))
    )


#: cells of ``In`` holding texts
_TEXT_CELLS = {f"In!{c}" for c, v in INPUTS if isinstance(v, str) and not v.startswith("#")}


def _text_condition(f: str) -> bool:
    """IF/NOT with a text as condition, IFS with one as a condition or an odd argument count."""
    name, args = _outer(f), _args(f)

    def texty(a: str) -> bool:
        return a.startswith('"') or a in _TEXT_CELLS or (a.startswith("{") and '"' in a)

    if name in ("IF", "NOT"):
        return texty(args[0])
    if name == "IFS":
        return len(args) % 2 == 1 or any(texty(a) for a in args[::2])
    return False


def _significance(formula: str) -> int:
    """PERCENTRANK's significance when typed as a whole number, else 3 (the default)."""
    m = re.search(r",\s*(\d+)\)\s*$", formula)
    return int(m[1]) if m and formula.count(",") >= 2 else 3


# --- helpers of the rules of the functions added on 2026-12-04 -------------------------------

BIT_FUNCTIONS = {"BITAND", "BITOR", "BITXOR", "BITLSHIFT", "BITRSHIFT"}
RECIPROCAL_TRIG = {"COT", "CSC", "SEC", "COTH", "CSCH", "SECH"}
#: the byte versions of the text functions, and UNICODE, which read a logical value as its text
BYTE_TEXT_FUNCTIONS = {"LENB", "LEFTB", "RIGHTB", "MIDB", "FINDB", "SEARCHB", "REPLACEB", "UNICODE"}
#: the securities functions of 2026-12-04 and the positions (0-based) of their date arguments
SECURITY_DATES = {
    "ACCRINTM": (0, 1), "PRICEDISC": (0, 1), "YIELDDISC": (0, 1), "INTRATE": (0, 1), "RECEIVED": (0, 1),
    "PRICEMAT": (0, 1, 2), "YIELDMAT": (0, 1, 2), "ODDFPRICE": (0, 1, 2, 3), "ODDFYIELD": (0, 1, 2, 3),
    "ODDLPRICE": (0, 1, 2), "ODDLYIELD": (0, 1, 2),
}  # fmt: skip


def _date_positions(formula: str) -> list[int]:
    return [i for i in SECURITY_DATES.get(_outer(formula), ()) if i < len(_args(formula))]


def _arg_number(a: str, row: int | None) -> object:
    """An argument as the engine reads it as a number at the formula's row (``(a)+0``: a date
    text its serial, FALSE 0, an empty argument 0, a range its cell on the row, an array its
    top-left value); an error where it is no number."""
    a = a.strip()
    return 0.0 if a == "" else _engine_value(f"({a})+0", row)


def _arg_text(a: str, row: int | None) -> str:
    """An argument as the engine reads it as a text at the formula's row ("" for an error)."""
    a = a.strip()
    v = _engine_value(f'""&({a})', row) if a else ""
    return v if isinstance(v, str) else ""


def _scalar_arg(a: str) -> bool:
    """An argument that is one value: no range of In, no array constant."""
    a = a.strip()
    return not a.startswith("{") and not _several_cells(a)


def _holds_texts(a: str) -> bool:
    """An argument that is a text (typed or a cell of In holding one), a blank cell, a logical
    value in a cell, or a range or array holding texts, blanks or logical values."""
    a = a.strip()
    return (
        a.startswith('"')
        or a in _TEXT_CELLS
        or a in ("In!A4", "In!C3", "In!A5", "In!C4")
        or (a.startswith("{") and ('"' in a or "TRUE" in a or "FALSE" in a))
        or (_several_cells(a) and a not in ("In!B1:B6",))
    )


def _stray_point(formula: str, row: int | None) -> bool:
    """NUMBERVALUE whose text holds a period where the decimal separator given is another
    character (its first), and the group separator is no period either."""
    args = _args(formula)
    if len(args) < 2:
        return False
    text = _arg_text(args[0], row)
    dec = _arg_text(args[1], row)[:1]
    grp = _arg_text(args[2], row)[:1] if len(args) > 2 and args[2].strip() else ","
    return "." in text and dec not in ("", ".") and grp != "."


def _permut_domain(formula: str, row: int | None) -> bool:
    """PERMUT's #NUM! cases of its Microsoft page: number <= 0, number_chosen < 0, number <
    number_chosen, both truncated."""
    vals = [_arg_number(a, row) for a in _args(formula)]
    if len(vals) != 2 or not all(_num(v) for v in vals):
        return False
    n, k = (math.trunc(v) for v in vals)
    return n <= 0 or k < 0 or n < k


def _bit_domain(formula: str, row: int | None) -> bool:
    """The BIT* functions' #NUM! cases of their Microsoft pages: a number that is not an
    integer, below 0 or above (2^48)-1; BITLSHIFT/BITRSHIFT a shift_amount above 53 in absolute
    value (or a shifted number above (2^48)-1)."""
    vals = [_arg_number(a, row) for a in _args(formula)]
    if not all(_num(v) for v in vals):
        return False
    if any(v != math.trunc(v) for v in vals):
        return True
    if _outer(formula) in ("BITLSHIFT", "BITRSHIFT"):
        number, shift = vals[0], vals[1] if len(vals) > 1 else 0.0
        moved = number * 2.0**shift if _outer(formula) == "BITLSHIFT" else number
        return number < 0 or number > 2**48 - 1 or abs(shift) > 53 or moved > 2**48 - 1
    return any(v < 0 or v > 2**48 - 1 for v in vals)


def classify(formula: str, engine: object, lo: object, row: int | None = None) -> Rule | None:
    """The first rule that explains a disagreement, or None: an engine bug. ``row`` is the
    formula's row on sheet F (``F!A{row}``: the batch's formula ``row - 1``)."""
    for rule in RULES:
        if rule.test(formula, engine, lo, row) if rule.by_row else rule.test(formula, engine, lo):
            return rule
    return None


@dataclass
class Outcome:
    formulas: int = 0
    agree: int = 0
    classified: Counter = None  # (cls, what) -> count
    bugs: list = None  # (formula, engine, libreoffice)
    refused: int = 0
    rows: list = None  # each bug's row on sheet F

    def __post_init__(self):
        self.classified = Counter() if self.classified is None else self.classified
        self.bugs = [] if self.bugs is None else self.bugs
        self.rows = [] if self.rows is None else self.rows


def compare(
    formulas: list[str], engine: list[object], lo: list[object], out: Outcome | None = None
) -> Outcome:
    out = out or Outcome()
    for row, (f, e, v) in enumerate(zip(formulas, engine, lo, strict=True), start=1):
        out.formulas += 1
        if isinstance(e, str) and e.startswith("<refused"):
            out.refused += 1
        if agree(e, v):
            out.agree += 1
            continue
        rule = classify(f, e, v, row)
        if rule is None:
            out.bugs.append((f, e, v))
            out.rows.append(row)
        else:
            out.classified[(rule.cls, rule.what)] += 1
    return out


# --- disagreements of an inner call -----------------------------------------------------------


def inner_calls(formula: str) -> list[str]:
    """The outer call's arguments that are calls themselves."""
    return [a.strip() for a in _args(formula) if re.match(r"(_xlfn\.)*[A-Z][A-Z0-9.]*\(", a.strip())]


def _by_row(call: str) -> bool:
    """Whether a call's value may depend on its formula's row: a range, which implicit
    intersection reads at that row where one value is taken."""
    return re.search(r"![A-Z]+\d*:[A-Z]+\d*\b", call) is not None


def explain_nested(
    bugs: list, folder: Path, lo_values: Callable[[list[str]], list | None], rows: list | None = None
) -> list:
    """For each unexplained disagreement (formula, engine, LibreOffice), the rule that explains
    the disagreement of one of its inner calls evaluated alone (``ACOS(BETADIST(-1,TRUE,45322))``:
    BETADIST's documented #NUM! where LibreOffice gives 0, which ACOS then reads), or None where
    every inner call agrees or its disagreement is unexplained too. ``rows`` gives each formula's
    row on sheet F: an inner call with a range is evaluated at that row (as the
    formula read it); without ``rows`` such calls are left out. ``lo_values(formulas)`` gives
    LibreOffice's answers for a batch of inner calls (None where LibreOffice is absent)."""
    rows = rows if rows is not None else [None] * len(bugs)
    wanted = {
        (g, row if _by_row(g) else None)
        for (f, _, _), row in zip(bugs, rows, strict=True)
        for g in inner_calls(f)
        if row is not None or not _by_row(g)
    }
    batches: list[dict[int, str]] = [{}]  # row -> call; the calls read anywhere fill rows 1, 2, ...
    for i, (g, _) in enumerate(sorted(x for x in wanted if x[1] is None)):
        batches[0][i + 1] = g
    for g, row in sorted(x for x in wanted if x[1] is not None):
        free = next((b for b in batches[1:] if row not in b), None)
        if free is None:
            batches.append(free := {})
        free[row] = g
    rule_of = {}
    for k, batch in enumerate(b for b in batches if b):
        formulas = [batch.get(r, '""') for r in range(1, max(batch) + 1)]
        lo = lo_values(formulas)
        if lo is None:
            return [None] * len(bugs)
        engine = engine_values(write_batch(folder / f"inner-{k}.xlsx", formulas), len(formulas))
        for r, g in batch.items():
            e, v = engine[r - 1], lo[r - 1]
            if not agree(e, v):
                rule_of[(g, r if _by_row(g) else None)] = classify(g, e, v, r if _by_row(g) else None)
    return [
        next(
            (
                rule
                for g in inner_calls(f)
                if (rule := rule_of.get((g, row if _by_row(g) else None))) is not None
            ),
            None,
        )
        for (f, _, _), row in zip(bugs, rows, strict=True)
    ]


# --- the recording (tests/data/fuzz_lo.json) ---------------------------------------------------

RECORDING = Path(__file__).parent / "data" / "fuzz_lo.json"
#: the seeded subset the tests run: formulas of :func:`generate` (SEED, COUNT)
SEED, COUNT = 23, 3000
REFRESH_COMMAND = "GPUTCO_LO_REFRESH=1 python -m pytest -q tests/recalc/test_fuzz_differential.py -k live"
RELIST_COMMAND = "GPUTCO_FUZZ_RELIST=1 python -m pytest -q tests/recalc/test_fuzz_differential.py"


def _encode(v: object) -> object:
    return {"error": str(v)} if isinstance(v, Err) else v


def _decode(v: object) -> object:
    return Err(v["error"]) if isinstance(v, dict) else v


def load_recording() -> dict:
    import json

    data = json.loads(RECORDING.read_text(encoding="utf-8"))
    data["cases"] = [(f, _decode(v)) for f, v in data["cases"]]
    data["undecided"] = [(f, _decode(e), _decode(v)) for f, e, v in data.get("undecided", [])]
    return data


def save_recording(
    formulas: list[str], lo: list[object], version: str, undecided: list, recorded: str | None = None
) -> None:
    """Write the recording: one line per case (readable diffs); ``recorded`` is the date of
    LibreOffice's answers (today, unless they are kept as they were)."""
    import datetime
    import json

    head = {
        "about": "LibreOffice's answers to the differential fuzzer's seeded formulas (tests/difffuzz.py), "
        "and the disagreements no rule explains, with the engine's and LibreOffice's answers",
        "refresh": REFRESH_COMMAND,
        "relist": RELIST_COMMAND,
        "libreoffice": version,
        "recorded": recorded or datetime.date.today().isoformat(),
        "seed": SEED,
        "count": len(formulas),
    }
    cases = ",\n".join(
        "  " + json.dumps([f, _encode(v)], ensure_ascii=False) for f, v in zip(formulas, lo, strict=True)
    )
    und = ",\n".join(
        "  " + json.dumps([f, _encode(e), _encode(v)], ensure_ascii=False) for f, e, v in undecided
    )
    text = json.dumps(head, ensure_ascii=False, indent=1)[:-2]
    text += f',\n "cases": [\n{cases}\n ],\n "undecided": [\n{und}\n ]\n}}\n'
    RECORDING.write_text(text, encoding="utf-8")


def relist(undecided: list) -> None:
    """Rewrite only the recording's list of undecided disagreements (after an engine change)."""
    data = load_recording()
    formulas = [f for f, _ in data["cases"]]
    save_recording(formulas, [v for _, v in data["cases"]], data["libreoffice"], undecided, data["recorded"])


def run_batch(formulas: list[str], folder: Path, with_libreoffice: bool) -> tuple[list, list | None]:
    """The engine's (and LibreOffice's, if asked) answers to a batch, one workbook."""
    path = write_batch(folder / "batch.xlsx", formulas)
    engine = engine_values(path, len(formulas))
    lo = libreoffice_values(path, len(formulas)) if with_libreoffice else None
    return engine, lo
