"""Every UDF of the registry with Excel-shaped arguments, as xlwings passes them.

xlwings (arguments declared ``ndim=2, err_to_str=True``) passes numbers as floats, empty cells as
None, every range as a list of row lists, input cell errors as "#N/A"-like texts, and text and
booleans as they are. Each UDF must return numbers of the broadcast shape or "#..." texts, and never
raise.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gputco import udfs
from gputco.udfs import presets
from gputco.udfs.excel import MAX_CELL_TEXT, NOT_FINITE, NUMBER, call

NAMES = list(udfs.UDFS)
TABLES = [n for n in NAMES if udfs.UDFS[n].udf_spec.table]
ELEMENTWISE = [n for n in NAMES if n not in TABLES]
LOOKUPS = {"TCO_SYSTEM", "TCO_BUYER", "TCO_MODEL"}  # may return a label (text) or "" (no value)
SHAPES = {"row": (1, 3), "column": (4, 1), "block": (2, 3)}


def spec(name):
    return udfs.UDFS[name].udf_spec


def full_args(name):
    """The documented example, completed with the defaults of the optional arguments."""
    s = spec(name)
    return list(s.example) + [a.default for a in s.args[len(s.example) :]]


def scalar_result(name):
    return udfs.UDFS[name](*full_args(name))


def fill(shape, value):
    return np.full(shape, value, dtype=object).tolist()


def is_error(x):
    return isinstance(x, str) and x.startswith("#") and len(x) <= MAX_CELL_TEXT


def assert_cell(name, x):
    """A valid cell value: a finite float or a "#..." text (lookups may also give a label or "")."""
    if isinstance(x, float):
        assert math.isfinite(x)
    else:
        assert isinstance(x, str), (name, x)
        assert is_error(x) or (name in LOOKUPS and not x.startswith("#")), (name, x)


def shape_of(x):
    return np.array(x, dtype=object).shape


# --- scalars --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ELEMENTWISE)
def test_scalars_give_a_number(name):
    result = scalar_result(name)
    assert isinstance(result, float) and math.isfinite(result), result


@pytest.mark.parametrize("name", ELEMENTWISE)
def test_results_equal_the_plain_function(name):
    s = spec(name)
    assert scalar_result(name) == pytest.approx(s.plain(*full_args(name)), rel=1e-15)


@pytest.mark.parametrize("name", TABLES)
def test_tables_have_a_header_row_and_no_none(name):
    s = spec(name)
    table = udfs.UDFS[name](*s.example)
    plain = s.plain(*s.example)
    assert table[0] == plain[0] and all(isinstance(h, str) for h in table[0])
    assert len({len(row) for row in table}) == 1 and len(table) == len(plain)
    for row, plain_row in zip(table, plain, strict=True):
        assert row == ["" if x is None else x for x in plain_row]
    assert all(x is not None for row in table for x in row)


def test_empty_preset_fields_are_empty_cells():
    assert udfs.UDFS["TCO_SYSTEM"]("H100_HGX", "peak_tflops_fp4") == ""
    assert "" in udfs.UDFS["TCO_SYSTEMS"]()[1]  # H100 has no FP4 peak
    assert udfs.UDFS["TCO_SYSTEM"]("H100_HGX", "label").startswith("NVIDIA HGX H100")


# --- shapes ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("shape", SHAPES.values(), ids=SHAPES.keys())
@pytest.mark.parametrize("name", ELEMENTWISE)
def test_a_range_in_any_argument_gives_the_same_shape(name, shape):
    expected = scalar_result(name)
    args = full_args(name)
    for i in range(len(args)):
        ranged = [*args[:i], fill(shape, args[i]), *args[i + 1 :]]
        assert udfs.UDFS[name](*ranged) == fill(shape, expected), spec(name).args[i].name
    # every argument a range of the same shape
    assert udfs.UDFS[name](*(fill(shape, a) for a in args)) == fill(shape, expected)


@pytest.mark.parametrize("name", ELEMENTWISE)
def test_a_row_and_a_column_broadcast_to_a_block(name):
    args = full_args(name)
    got = udfs.UDFS[name](fill((1, 3), args[0]), fill((4, 1), args[1]), *args[2:])
    assert got == fill((4, 3), scalar_result(name))


@pytest.mark.parametrize("name", ELEMENTWISE)
def test_ranges_of_different_sizes_give_one_error(name):
    args = full_args(name)
    got = udfs.UDFS[name](fill((3, 1), args[0]), fill((2, 1), args[1]), *args[2:])
    assert is_error(got) and "ranges of different sizes" in got


@pytest.mark.parametrize("name", TABLES)
def test_tables_take_single_cells(name):
    s = spec(name)
    if not s.args:
        return
    args = full_args(name)
    assert udfs.UDFS[name](fill((1, 1), args[0]), *args[1:]) == udfs.UDFS[name](*args)
    got = udfs.UDFS[name](fill((2, 1), args[0]), *args[1:])
    assert got.startswith(f"#VALUE! {s.args[0].name} must be a single cell")


def test_values_vary_along_the_range():
    mfu = [[0.2], [0.4], [0.8]]
    got = udfs.UDFS["TCO_COST_PER_MTOK"](1.42, 1.07899e12, 1978.9, mfu)
    assert got == [[udfs.tco_cost_per_mtok(1.42, 1.07899e12, 1978.9, m)] for (m,) in mfu]
    systems = [["H100_HGX", "GB200_NVL72", "B200_HGX"]]
    got = udfs.UDFS["TCO_GPU_HOUR"](systems, [["hyperscaler"], ["emerging_neocloud"]])
    assert got == [
        [udfs.tco_gpu_hour(s, b) for s in systems[0]] for b in ("hyperscaler", "emerging_neocloud")
    ]


def test_other_array_forms_keep_their_shape():
    # the recalc engine may pass numpy arrays, ints or 1-D lists
    got = udfs.UDFS["TCO_COLO_PER_GPU_HOUR"](np.array([[1.0], [2.0]]), 130)
    assert got == [[udfs.tco_colo_per_gpu_hour(1.0, 130)], [udfs.tco_colo_per_gpu_hour(2.0, 130)]]
    assert udfs.UDFS["TCO_COLO_PER_GPU_HOUR"]([1, 2], 130) == got[0] + got[1]
    assert udfs.UDFS["TCO_COLO_PER_GPU_HOUR"](np.float64(1.0), 130) == got[0][0]


# --- empty cells and defaults ---------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_an_empty_optional_argument_takes_its_default(name):
    s, args = spec(name), full_args(name)
    for i, arg in enumerate(s.args):
        if not arg.optional:
            continue
        empty = [*args[:i], None, *args[i + 1 :]]
        explicit = [*args[:i], arg.default, *args[i + 1 :]]
        if arg.default is not None:
            assert udfs.UDFS[name](*empty) == udfs.UDFS[name](*explicit), arg.name
        if all(a.optional for a in s.args[i:]):
            defaults = [*args[:i], *(a.default for a in s.args[i:])]
            assert udfs.UDFS[name](*args[:i]) == udfs.UDFS[name](*defaults), arg.name


def test_an_empty_cell_in_a_column_takes_the_default_there():
    got = udfs.UDFS["TCO_CAPITAL_PER_GPU_HOUR"](31250, 0.1305, 5, [[None], [0.2]])
    assert got == [
        [udfs.tco_capital_per_gpu_hour(31250, 0.1305, 5)],
        [udfs.tco_capital_per_gpu_hour(31250, 0.1305, 5, 0.2)],
    ]
    got = udfs.UDFS["TCO_FLOPS_PER_TOKEN"]("gpt3_175b", [[None, 4096]])
    assert got == [[udfs.tco_flops_per_token("gpt3_175b"), udfs.tco_flops_per_token("gpt3_175b", 4096)]]


@pytest.mark.parametrize("name", NAMES)
def test_an_empty_required_argument_is_a_clear_error(name):
    s, args = spec(name), full_args(name)
    for i, arg in enumerate(s.args):
        if arg.optional:
            continue
        got = udfs.UDFS[name](*args[:i], None, *args[i + 1 :])
        assert got == f"#VALUE! {arg.name} is required: the cell is empty"


# --- bad values -----------------------------------------------------------------------------------

BAD = {
    "text": "abc",
    "boolean": True,
    "nan": math.nan,
    "inf": math.inf,
    "negative": -1.0,
    "date": dt.datetime(2024, 1, 1),
}


@pytest.mark.parametrize("bad", BAD.values(), ids=BAD.keys())
@pytest.mark.parametrize("name", [n for n in NAMES if spec(n).args])
def test_a_bad_value_in_any_argument_is_a_cell_error(name, bad):
    s, args = spec(name), full_args(name)
    for i, arg in enumerate(s.args):
        got = udfs.UDFS[name](*args[:i], bad, *args[i + 1 :])
        assert is_error(got), (arg.name, got)
        if arg.kind == NUMBER:
            assert got.startswith("#VALUE! " + arg.name), got


@pytest.mark.parametrize("name", ELEMENTWISE)
def test_only_the_bad_cell_of_a_column_is_an_error(name):
    s, args = spec(name), full_args(name)
    expected = scalar_result(name)
    for i, arg in enumerate(s.args):
        got = udfs.UDFS[name](*args[:i], [[args[i]], ["abc"], [args[i]], [-1.0]], *args[i + 1 :])
        assert got[0] == got[2] == [expected], arg.name
        assert is_error(got[1][0]) and is_error(got[3][0]), (arg.name, got)


@pytest.mark.parametrize(
    ("name", "args", "expected"),
    [
        ("TCO_COST_PER_MTOK", (1.42, 1.07899e12, 1978.9, 1.5), "#VALUE! mfu must be in (0, 1], got 1.5"),
        ("TCO_CAPITAL_PER_GPU_HOUR", (31250, 2.0, 5), "#VALUE! cost_of_capital must be in [0, 1], got 2"),
        (
            "TCO_CAPITAL_PER_GPU_HOUR",
            (31250, 0.1, 5, 1.0),
            "#VALUE! residual_fraction must be in [0, 1), got 1",
        ),
        ("TCO_POWER_PER_GPU_HOUR", (1.389, 0.9, 0.087), "#VALUE! pue must be in [1, 5], got 0.9"),
        (
            "TCO_TOTAL_PER_GPU_HOUR",
            (31250, 0.1305, 5, 1.389, 1.3, 0.087, -5),
            "#VALUE! colo_usd_per_kw_month must be in [0, inf), got -5",
        ),
        (
            "TCO_BREAKEVEN_MFU",
            (0.54, "H100_HGX", "GB200_NVL72", "fp16"),
            "#N/A unknown precision 'fp16'; valid: bf16, fp4, fp8. Did you mean bf16?",
        ),
        (
            "TCO_GPU_HOUR",
            ("H100",),
            "#N/A unknown system 'H100'; valid: B200_HGX, B300_HGX, GB200_NVL72, "
            "GB300_NVL72, H100_HGX, H200_HGX, H800_HGX, MI300X, MI325X, MI355X. Did you mean H100_HGX?",
        ),
        (
            "TCO_FLOPS_PER_TOKEN",
            ("gpt3_175b", None, "7n"),
            "#N/A unknown convention '7n'; valid: 6n, megatron, palm.",
        ),
        (
            "TCO_COST_PER_MTOK",
            ("1.42", 1.07899e12, 1978.9, 0.4),
            "#VALUE! gpu_hour_usd must be a number, got '1.42' (str)",
        ),
        (
            "TCO_HOUSEHOLD_YEARS",
            (1.7e308, 1e-300),
            f"{NOT_FINITE}: joules = 1.7e+308, kwh_per_household_year = 1e-300 are too large or too "
            "small to compute with",
        ),
        (  # an intermediate quantity overflows: the argument is named, not power_usd_per_gpu_hour
            "TCO_TOTAL_PER_GPU_HOUR",
            (31250, 0.1305, 5, 1.389, 1.3, 1e308, 130),
            f"{NOT_FINITE}: usd_per_kwh = 1e+308 is too large or too small to compute with",
        ),
    ],
)
def test_error_texts(name, args, expected):
    assert udfs.UDFS[name](*args) == expected


def test_an_error_in_an_input_cell_is_named_with_its_argument():
    got = udfs.UDFS["TCO_COST_PER_MTOK"]("#DIV/0!", 1.07899e12, 1978.9, 0.4)
    assert got == "#DIV/0! in argument gpu_hour_usd"
    got = udfs.UDFS["TCO_GPU_HOUR"]([["#N/A"], ["H100_HGX"]])
    assert got == [["#N/A in argument system"], [udfs.tco_gpu_hour("H100_HGX")]]
    # another UDF's error text passes through as it is
    upstream = "#VALUE! mfu must be in (0, 1], got 1.5"
    assert udfs.UDFS["TCO_COST_PER_MTOK"](1.42, 1.07899e12, 1978.9, upstream) == upstream


def test_wrong_ranges_and_argument_counts_are_errors():
    f = udfs.UDFS["TCO_COLO_PER_GPU_HOUR"]
    assert f([[1.0, 2.0], [3.0]], 130).startswith("#VALUE! it_kw_per_gpu must be a rectangular")
    assert f([[[1.0]]], 130).startswith("#VALUE! it_kw_per_gpu must be a cell or a range")
    assert f([], 130).startswith("#VALUE! it_kw_per_gpu must be a cell or a range")
    assert f(1.0).startswith("#VALUE! missing a required argument: 'usd_per_kw_month'; usage:")
    assert f(1.0, 2.0, 3.0).startswith("#VALUE! too many positional arguments")
    assert f(usd_per_kw_month=130, it_kw_per_gpu=1.389) == f(1.389, 130)


def test_an_unexpected_exception_becomes_a_cell_text():
    def broken(x):
        raise ZeroDivisionError("division by zero")

    s = dataclasses.replace(
        spec("TCO_HOUSEHOLD_YEARS"), plain=broken, args=spec("TCO_HOUSEHOLD_YEARS").args[:1]
    )
    got = call(s, (1.0,))
    assert got.startswith("#VALUE! internal error (ZeroDivisionError: division by zero)")
    assert call(s, ([[1.0], [2.0]],)) == [[got], [got]]


# --- the recalc engine's columns ------------------------------------------------------------------


def counting(s):
    calls = []

    def plain(*args):
        calls.append(args)
        return s.plain(*args)

    return dataclasses.replace(s, plain=plain), calls


def test_a_valid_column_is_one_vectorised_call():
    s, calls = counting(spec("TCO_COST_PER_MTOK"))
    mfu = np.linspace(0.1, 1.0, 10_000).reshape(-1, 1).tolist()
    got = call(s, (1.42, 1.07899e12, 1978.9, mfu, 1.0))
    assert len(calls) == 1 and isinstance(calls[0][3], np.ndarray)
    expected = udfs.tco_cost_per_mtok(1.42, 1.07899e12, 1978.9, np.array(mfu))
    assert got == expected.tolist()


def test_bad_cells_of_a_long_column_cost_a_few_calls():
    s, calls = counting(spec("TCO_COST_PER_MTOK"))
    mfu = np.linspace(0.1, 1.0, 10_000).reshape(-1, 1).tolist()
    mfu[17] = [1.5]
    mfu[9000] = ["n/a"]
    got = call(s, (1.42, 1.07899e12, 1978.9, mfu, 1.0))
    assert got[17] == ["#VALUE! mfu must be in (0, 1], got 1.5"]
    assert got[9000] == ["#VALUE! mfu must be a number, got 'n/a' (str)"]
    assert got[18] == [udfs.tco_cost_per_mtok(1.42, 1.07899e12, 1978.9, mfu[18][0])]
    assert len(calls) <= 2 * 15  # bisection: about 2 log2(n) calls per bad cell


def test_a_million_bad_elements_cost_linear_time_not_a_bisection():
    """A regression: 1M invalid elements took 214 s (bisected down to single cells). The range check
    reports every bad element at once, so the bad cells are named and the rest computed in a
    few calls, each cell with its own value in its message."""
    s, calls = counting(spec("TCO_COST_PER_MTOK"))
    n = 1_000_000
    mfu = np.where(np.arange(n) % 2 == 0, 1.5, 0.4)
    mfu[3] = 2.5
    got = call(s, (1.42, 1.07899e12, 1978.9, mfu.reshape(-1, 1).tolist(), 1.0))
    assert len(calls) <= 3
    assert got[0] == ["#VALUE! mfu must be in (0, 1], got 1.5"]
    assert got[3] == ["#VALUE! mfu must be in (0, 1], got 2.5"]
    assert got[1] == [udfs.tco_cost_per_mtok(1.42, 1.07899e12, 1978.9, 0.4)]
    assert sum(row[0] == got[0][0] for row in got) == n // 2


def test_a_range_error_names_the_first_bad_elements_with_their_positions():
    with pytest.raises(udfs.InputRangeError) as info:
        udfs.tco_cost_per_mtok(1.42, 1.07899e12, 1978.9, np.array([0.4, 1.5, 0.3, 2.0, 3.0]))
    assert str(info.value) == (
        "mfu must be in (0, 1], got 1.5 (element [1]); 3 elements are outside it, the next at [3], [4]"
    )
    assert info.value.bad.tolist() == [[1], [3], [4]]


def test_a_bad_single_value_with_a_long_column_is_one_call():
    s, calls = counting(spec("TCO_COST_PER_MTOK"))
    mfu = np.linspace(0.1, 1.0, 10_000).reshape(-1, 1).tolist()
    got = call(s, (-1.0, 1.07899e12, 1978.9, mfu, 1.0))
    assert got == fill((10_000, 1), "#VALUE! gpu_hour_usd must be in (0, inf), got -1")
    assert len(calls) == 1


def test_a_column_of_names_is_one_call_per_name():
    s, calls = counting(spec("TCO_GPU_HOUR"))
    systems = [["H100_HGX"], ["GB200_NVL72"]] * 500
    got = call(s, (systems, "hyperscaler"))
    assert len(calls) == 2
    assert got[:2] == [[udfs.tco_gpu_hour("H100_HGX")], [udfs.tco_gpu_hour("GB200_NVL72")]]


# --- any Excel-shaped input (Hypothesis) ----------------------------------------------------------

TEXTS = sorted(
    {
        *presets.catalog("system"),
        *presets.catalog("buyer"),
        *presets.catalog("model"),
        *udfs.CONVENTIONS,
        *presets.PRECISIONS,
        *udfs.tco_systems()[0][1:],
        *udfs.tco_buyers()[0][1:],
        *udfs.tco_models()[0][1:],
    }
)
BAD_ELEMENTS = st.sampled_from(
    [
        None,
        "",
        "abc",
        True,
        False,
        math.nan,
        math.inf,
        -math.inf,
        -1.0,
        0.0,
        1e300,
        "#N/A",
        "#VALUE! upstream",
    ]
)


def elements(arg, example):
    if arg.kind == NUMBER:
        base = example if isinstance(example, float | int) else 2048.0
        good = st.floats(0.5, 1.5).map(lambda k: base * k)
    else:
        good = st.sampled_from(TEXTS)
    return st.one_of(st.just(example), good, BAD_ELEMENTS)


@st.composite
def excel_arguments(draw, name):
    """Arguments of ``name`` as xlwings passes them, each a value or a range that broadcasts."""
    rows, cols = draw(st.integers(1, 4)), draw(st.integers(1, 3))
    args = []
    for arg, example in zip(spec(name).args, full_args(name), strict=True):
        shape = draw(st.sampled_from([None, (1, 1), (1, cols), (rows, 1), (rows, cols)]))
        element = elements(arg, example)
        if shape is None:
            args.append(draw(element))
        else:
            args.append([[draw(element) for _ in range(shape[1])] for _ in range(shape[0])])
    return args


def cell_args(args, i, j):
    """The single-cell arguments of cell (i, j) of the broadcast result."""
    out = []
    for a in args:
        if isinstance(a, list):
            out.append(a[i if len(a) > 1 else 0][j if len(a[0]) > 1 else 0])
        else:
            out.append(a)
    return out


def same_cell(a, b):
    """Equal values; or two errors (a cell with several problems may name any one of them)."""
    if isinstance(a, float) and isinstance(b, float):
        return a == pytest.approx(b, rel=1e-12)
    if is_error(a) and is_error(b):
        return True
    return a == b


@pytest.mark.parametrize("name", ELEMENTWISE)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_excel_input_gives_cells_equal_to_single_cell_calls(name, data):
    args = data.draw(excel_arguments(name))
    got = udfs.UDFS[name](*args)
    shapes = [np.shape(a) for a in args if isinstance(a, list)]
    if not shapes:
        assert_cell(name, got)
        return
    shape = np.broadcast_shapes(*shapes)
    assert shape_of(got) == shape
    for i in range(shape[0]):
        for j in range(shape[1]):
            assert_cell(name, got[i][j])
            single = udfs.UDFS[name](*cell_args(args, i, j))
            assert same_cell(got[i][j], single), (i, j, got[i][j], single)


@pytest.mark.parametrize("name", TABLES)
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_tables_give_a_table_or_one_error_for_any_input(name, data):
    args = data.draw(excel_arguments(name))
    got = udfs.UDFS[name](*args)
    if isinstance(got, str):
        assert is_error(got)
        return
    assert got[0] == spec(name).plain(*full_args(name))[0]  # the header row
    assert len({len(row) for row in got}) == 1
    assert all(isinstance(x, str) or math.isfinite(x) for row in got for x in row)


@pytest.mark.parametrize("name", TABLES)
def test_tables_refuse_extra_arguments(name):
    got = udfs.UDFS[name](*full_args(name), "extra")
    assert got.startswith("#VALUE! too many positional arguments; usage: " + name)
