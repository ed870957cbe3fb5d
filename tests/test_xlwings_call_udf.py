"""Every registry function through xlwings's own Windows call path (``xlwings.udfs.call_udf``).

Arguments arrive as Excel hands them to xlwings's COM server: literals from the formula, COM
``Range`` objects for cell references (scalars, 1xN, Nx1, NxM), the "missing" marker for omitted
optional arguments, empty cells, each Excel error code, Currency cells (``decimal.Decimal``),
booleans, dates (``pywintypes.TimeType``) and text in number arguments. Only pywin32 and the COM
objects are stand-ins (see ``xlwings_com.py``); the expected values are the plain numpy functions'.

``python tests/test_xlwings_call_udf.py`` prints the table of cases (docs/xlwings-cases.md).
"""

from __future__ import annotations

import decimal
import math
import sys
from pathlib import Path

import pytest

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parents[1])]
from xlwings_com import MISSING, ComRange, TimeType, excel_call_udf  # noqa: E402

from gputco import udfs  # noqa: E402
from gputco.udfs.excel import CELL_ERRORS, COM_ERROR_BASE, NUMBER  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TABLE = ROOT / "docs" / "xlwings-cases.md"
NAMES = list(udfs.UDFS)
SHAPES = {"1x3": (1, 3), "3x1": (3, 1), "2x3": (2, 3)}
#: the errors xlwings 0.37 turns into texts itself (xlwings/_xlwindows.py, cell_errors)
XLWINGS_MAPS = {2000, 2007, 2015, 2023, 2029, 2036, 2042}
#: #BUSY! has no published XlCVError number: an unlisted number of the error range stands for it
UNLISTED = 2051


def spec(name):
    return udfs.UDFS[name].udf_spec


def full_args(name):
    s = spec(name)
    return list(s.example) + [a.default for a in s.args[len(s.example) :]]


def expected(name, args=None):
    """The plain function's value on ``args`` (default: the example), as xlwings returns it."""
    s = spec(name)
    value = s.plain(*(full_args(name) if args is None else args))
    if s.table:
        return [["" if x is None else x for x in row] for row in value]
    return [[float(value)]]


def block(shape, value):
    return tuple(tuple(value for _ in range(shape[1])) for _ in range(shape[0]))


def first_number(name):
    return next((i for i, a in enumerate(spec(name).args) if a.kind == NUMBER), None)


def same(got, want):
    if isinstance(want, float):
        return isinstance(got, float) and math.isclose(got, want, rel_tol=1e-15)
    if isinstance(want, list):
        return (
            isinstance(got, list)
            and len(got) == len(want)
            and all(same(g, w) for g, w in zip(got, want, strict=True))
        )
    return got == want


def one_line(text: str) -> str:
    return text if len(text) <= 58 else text[:55] + "..."


def cases(call, name):
    """(case, result shown in the table) for one function; asserts each case on the way."""
    s = spec(name)
    args = full_args(name)
    want = expected(name)
    out = []

    def check(case, got, ok, shown="="):
        assert ok, f"{name} {case}: {got!r}"
        out.append((case, shown))

    got = call(name, *args)
    check("literals", got, same(got, want), "= plain")
    got = call(name, *(ComRange(a) for a in args))
    check("cells", got, same(got, want), "= plain")
    if not s.args:
        return out
    for label, shape in SHAPES.items():
        got = call(name, ComRange(block(shape, args[0])), *args[1:])
        if s.table:
            check(
                label,
                got,
                isinstance(got, list)
                and got[0][0].startswith(f"#VALUE! {s.args[0].name} must be a single cell"),
                "#VALUE! single cell",
            )
        else:
            grid = [[want[0][0]] * shape[1] for _ in range(shape[0])]
            check(label, got, same(got, grid), f"{label} = plain")
    optional = [i for i, a in enumerate(s.args) if a.optional]
    if optional:  # omitted optionals take their defaults (the example may give other values)
        missing = [MISSING if i in optional else a for i, a in enumerate(args)]
        defaults = call(
            name,
            *[
                s.args[i].default if i in optional and s.args[i].default is not None else a
                for i, a in enumerate(args)
            ],
        )
        check("omitted", call(name, *missing), same(call(name, *missing), defaults), "= defaults")
    # an empty cell in each argument: the default, or an error naming the argument
    shown = []
    for i, a in enumerate(s.args):
        got = call(name, *args[:i], ComRange(None), *args[i + 1 :])
        if a.optional:
            default = a.default if a.default is not None else args[i]
            assert same(got, call(name, *args[:i], default, *args[i + 1 :])), (name, a.name, got)
        else:
            assert got == [[f"#VALUE! {a.name} is required: the cell is empty"]], (name, got)
            shown.append(a.name)
    out.append(("empty", f"#VALUE! {shown[0]} is required" if shown else "= defaults"))
    # every Excel error code in the first argument's cell, as COM hands it over
    codes = [*CELL_ERRORS, UNLISTED]
    for code in codes:
        got = call(name, ComRange(COM_ERROR_BASE + code), *args[1:])
        text = CELL_ERRORS.get(code, f"#N/A Excel cell error {code}")
        assert got == [[f"{text} in argument {s.args[0].name}"]], (name, code, got)
    out.append((f"{len(codes)} errors", f"#SPILL! in argument {s.args[0].name} ..."))
    numbers = [i for i, a in enumerate(s.args) if a.kind == NUMBER]
    if numbers:
        dec = [
            ComRange(decimal.Decimal(repr(a))) if i in numbers and a is not None else a
            for i, a in enumerate(args)
        ]
        got = call(name, *dec)
        check("Decimal", got, same(got, want), "= plain")
        i = first_number(name)
        arg = s.args[i].name
        for case, value, text in (
            ("TRUE", True, f"#VALUE! {arg} must be a number, not TRUE/FALSE, got True (bool)"),
            (
                "date",
                TimeType(2026, 1, 31),
                f"#VALUE! {arg} must be a number, got 2026-01-31 00:00:00 (datetime)",
            ),
            ("text", "abc", f"#VALUE! {arg} must be a number, got 'abc' (str)"),
        ):
            got = call(name, *args[:i], ComRange(value), *args[i + 1 :])
            check(case, got, got == [[text]], one_line(text))
    return out


@pytest.fixture
def call():
    with excel_call_udf() as call:
        yield call


@pytest.mark.parametrize("name", NAMES)
def test_every_case_through_call_udf(call, name):
    assert len(cases(call, name)) >= 2


def test_error_codes_as_xlwings_hands_them_over(call):
    # The classic seven arrive as texts (xlwings maps them), the others as the bare COM number;
    # both give the same cell text naming the error and the argument.
    xlwings_maps = sys.modules["xlwings._xlwindows"].cell_errors
    assert {c - COM_ERROR_BASE: t for c, t in xlwings_maps.items()} == {
        c: CELL_ERRORS[c] for c in XLWINGS_MAPS
    }
    for code, text in CELL_ERRORS.items():
        got = call("TCO_COST_PER_MTOK", 1.42, 1.07899e12, 1978.9, ComRange(COM_ERROR_BASE + code))
        assert got == [[f"{text} in argument mfu"]]
    assert call("TCO_COST_PER_MTOK", 1.42, 1.07899e12, 1978.9, ComRange(-2146826243)) == [
        ["#SPILL! in argument mfu"]
    ]


def test_currency_cells_are_numbers(call):
    got = call(
        "TCO_COST_PER_MTOK",
        ComRange(decimal.Decimal("1.4200")),
        1.07899e12,
        1978.9,
        ComRange(((decimal.Decimal("0.4"),), (0.5,))),
    )
    assert got == [
        [udfs.tco_cost_per_mtok(1.42, 1.07899e12, 1978.9, 0.4)],
        [udfs.tco_cost_per_mtok(1.42, 1.07899e12, 1978.9, 0.5)],
    ]


def currency(x: float) -> decimal.Decimal:
    """What COM hands over for a cell formatted as currency: Excel's Range.Value returns the
    Currency type, rounded to 4 decimals (https://learn.microsoft.com/en-us/office/vba/api/excel.range.value;
    xlwings issue 640: https://github.com/xlwings/xlwings/issues/640); pywin32 gives a Decimal."""
    return decimal.Decimal(repr(x)).quantize(decimal.Decimal("0.0001"), rounding=decimal.ROUND_HALF_EVEN)


def test_a_users_currency_cell_arrives_rounded_to_4_decimals(call):
    # A user's own cell holding the H100 HGX TCO (1.41993964599...) formatted as currency: the
    # function computes on 1.4199, 2.8e-5 relative off the exact value (docs/excel-currency.md:
    # format such cells as numbers, "#,##0.0000", and put the unit beside them).
    tco = udfs.tco_gpu_hour("H100_HGX")
    assert currency(tco) == decimal.Decimal("1.4199")
    args = (1.07899e12, 1978.9, 0.54)
    got = call("TCO_COST_PER_MTOK", ComRange(currency(tco)), *args)
    assert got == [[udfs.tco_cost_per_mtok(1.4199, *args)]]
    exact = udfs.tco_cost_per_mtok(tco, *args)
    assert call("TCO_COST_PER_MTOK", ComRange(tco), *args) == [[exact]]
    assert abs(got[0][0] - exact) > 1e-9 * exact  # the finance workbook's Checks tolerance
    # an input typed with more decimals than 4 (an electricity price of 0.08765 USD/kWh) too
    assert call("TCO_POWER_PER_GPU_HOUR", 1.4, 1.2, ComRange(currency(0.08765))) == [
        [udfs.tco_power_per_gpu_hour(1.4, 1.2, 0.0876)]
    ]


def test_the_stand_ins_are_gone_afterwards():
    with excel_call_udf() as call:
        assert call("TCO_GPU_HOUR", "H100_HGX", MISSING) == [[udfs.tco_gpu_hour("H100_HGX")]]
    assert "pythoncom" not in sys.modules and "xlwings.udfs" not in sys.modules
    import gputco.addin.xlwings_udfs as real

    assert real.TCO_GPU_HOUR.udf_spec is udfs.UDFS["TCO_GPU_HOUR"].udf_spec


def table(call) -> str:
    """The markdown table of cases: one row per function, one column per case."""
    rows = {name: dict(cases(call, name)) for name in NAMES}
    columns = list(dict.fromkeys(c for r in rows.values() for c in r))
    lines = [
        "# The TCO_ functions through xlwings's own `call_udf`",
        "",
        "Generated by `python tests/test_xlwings_call_udf.py` (xlwings "
        f"{__import__('xlwings').__version__}; pywin32 and the COM Range are stand-ins, see "
        "tests/xlwings_com.py). Each case passes the arguments of the function's documented "
        'example as Excel hands them to xlwings; "= plain" means equal to the plain numpy '
        "function (1e-15). Shapes and bad values are in the first argument (the first number "
        'argument for TRUE, date and text); "errors" is every Excel error code in the first '
        "argument's cell: "
        + ", ".join(f"{t} ({COM_ERROR_BASE + c})" for c, t in CELL_ERRORS.items())
        + f", and the unlisted {COM_ERROR_BASE + UNLISTED} (#BUSY! has no published number).",
        "",
        "| function | " + " | ".join(columns) + " |",
        "|---" * (len(columns) + 1) + "|",
    ]
    for name, r in rows.items():
        lines.append(f"| {name} | " + " | ".join(r.get(c, "n/a") for c in columns) + " |")
    return "\n".join(lines) + "\n"


def test_the_table_in_docs_is_current(call):
    assert TABLE.read_text(encoding="utf-8") == table(call), (
        "run python tests/test_xlwings_call_udf.py > docs/xlwings-cases.md"
    )


if __name__ == "__main__":
    with excel_call_udf() as c:
        sys.stdout.write(table(c))
