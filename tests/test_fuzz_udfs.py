"""Fuzzing the model's two surfaces with Hypothesis.

- Every registry entry (``gputco.udfs.UDFS``) with random Excel-shaped arguments: floats including NaN,
  infinities, huge and negative values, None (empty cells), texts (error codes, preset names,
  anything), booleans, and ranges of any shape, ragged and nested too. A UDF never raises; it
  returns numbers or ``#...`` texts, shaped like its broadcast ranges.
- Every plain function of ``udfs`` with random Python arguments: it returns, or raises one of
  the documented errors (a ``gputco.udfs.errors.GputcoError`` subclass), nothing else.

Case counts are printed at the end of the run (tests/conftest.py); GPUTCO_FUZZ_EXAMPLES sets the
examples per test (tests/fuzzing.py).
"""

from __future__ import annotations

import inspect
import math

import numpy as np
import pytest
from fuzzing import CASES, fuzz_settings, hard_timeout
from hypothesis import given
from hypothesis import strategies as st

from gputco import udfs
from gputco.udfs.errors import GputcoError

NAMES = [
    "H100_HGX",
    "GB200_NVL72",
    "h100 hgx",
    "hyperscaler",
    "neocloud_giant",
    "gpt3_175b",
    "llama3_8b",
    "bf16",
    "fp8",
    "fp4",
    "palm",
    "6n",
    "megatron",
    "label",
    "capex_per_gpu",
    "pue",
    "params",
    "seq_len",
    "peak_tflops_fp4",
    "#N/A",
    "#DIV/0!",
    "#VALUE! bad",
    "",
    "  ",
    "=1+1",
    "H100",
]
FLOATS = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(-10.0, 10.0),
    st.floats(0.0, 1.0),
    st.sampled_from([0.0, -0.0, 1.0, 0.5, 1e308, -1e308, 5e-324, 1e-300, 8760.0, 2.0**63]),
)
SCALARS = st.one_of(
    FLOATS,
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.sampled_from(NAMES),
    st.text(max_size=12),
)


def _grid(elements):
    """A rectangular range: a list of rows of equal length (1 to 4 x 1 to 4)."""
    return st.integers(1, 4).flatmap(
        lambda cols: st.lists(st.lists(elements, min_size=cols, max_size=cols), min_size=1, max_size=4)
    )


RANGES = st.one_of(
    _grid(SCALARS),
    st.lists(SCALARS, min_size=1, max_size=5),  # a 1-D list
    st.lists(st.lists(SCALARS, max_size=4), max_size=4),  # ragged, or empty rows
    st.lists(st.lists(st.lists(SCALARS, max_size=2), max_size=2), max_size=2),  # 3-D
)
EXCEL_VALUES = st.one_of(SCALARS, SCALARS, RANGES)

#: functions whose cells may hold any text (preset labels), not only numbers and "#..." errors
TEXT_RESULTS = {"TCO_SYSTEM", "TCO_BUYER", "TCO_MODEL"}


def _shape(value) -> tuple[int, ...] | None:
    """The shape of a well-formed range (1-D or rectangular 2-D, not empty, scalars only);
    () for a scalar; None for anything malformed."""
    if not isinstance(value, list):
        return ()
    if not value:
        return None
    if all(not isinstance(x, list) for x in value):
        return (len(value),)
    if not all(isinstance(r, list) and r and all(not isinstance(x, list) for x in r) for r in value):
        return None
    widths = {len(r) for r in value}
    return (len(value), widths.pop()) if len(widths) == 1 else None


def _expected_shape(args) -> tuple[int, ...] | None:
    shapes = [_shape(a) for a in args]
    if any(s is None for s in shapes):
        return None
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError:
        return None


def _dims(result) -> tuple[int, ...]:
    if not isinstance(result, list):
        return ()
    if result and isinstance(result[0], list):
        return (len(result), len(result[0]))
    return (len(result),)


def _cells(result) -> list:
    if not isinstance(result, list):
        return [result]
    return [x for row in result for x in (row if isinstance(row, list) else [row])]


def _check_cell(name: str, x) -> None:
    if isinstance(x, str):
        assert name in TEXT_RESULTS or x.startswith("#"), (name, x)
    else:
        assert type(x) is float and math.isfinite(x), (name, x)


@pytest.mark.parametrize("name", sorted(udfs.UDFS))
def test_udfs_never_raise_and_keep_the_shape_of_their_ranges(name):
    udf = udfs.UDFS[name]
    spec = udf.udf_spec

    @fuzz_settings(1 / 8)  # per function: 25 of the default 200
    @given(st.tuples(*(EXCEL_VALUES for _ in spec.args)))
    def run(args):
        CASES["udf (Excel-shaped arguments)"] += 1
        with hard_timeout(20):
            result = udf(*args)
        if isinstance(result, str) and result.startswith("#"):
            return  # one error for the whole call: a bad range, or an error for every cell
        if spec.table:
            assert isinstance(result, list) and all(isinstance(r, list) for r in result)
            for row in result:
                for x in row:
                    assert isinstance(x, str | float) and not (isinstance(x, float) and not math.isfinite(x))
            return
        expected = _expected_shape(args)
        assert expected is not None, f"{name}{args!r} gave {result!r} for malformed ranges"
        assert _dims(result) == expected, (name, args, result)
        for x in _cells(result):
            _check_cell(name, x)

    run()


PLAIN = sorted(
    n
    for n in udfs.__all__
    if callable(getattr(udfs, n)) and not isinstance(getattr(udfs, n), type) and n.islower()
)
PLAIN_VALUES = st.one_of(
    SCALARS,
    st.lists(FLOATS, max_size=4),
    st.lists(st.lists(FLOATS, max_size=3), max_size=3),
    st.lists(st.one_of(FLOATS, st.none(), st.text(max_size=3)), max_size=3),
    st.builds(np.array, st.lists(FLOATS, min_size=1, max_size=4)),
    st.builds(lambda xs: np.array(xs, dtype=object), st.lists(SCALARS, min_size=1, max_size=3)),
    st.builds(np.float64, FLOATS),
    st.builds(np.int64, st.integers(-(2**62), 2**62)),
)


@pytest.mark.parametrize("name", PLAIN)
def test_plain_functions_raise_only_documented_errors(name):
    func = getattr(udfs, name)
    params = list(inspect.signature(func).parameters.values())

    @fuzz_settings(1 / 8)
    @given(
        st.integers(min_value=sum(p.default is p.empty for p in params), max_value=len(params)).flatmap(
            lambda n: st.tuples(*(PLAIN_VALUES for _ in range(n)))
        )
    )
    def run(args):
        CASES["plain udfs function"] += 1
        try:
            with hard_timeout(20), np.errstate(all="ignore"):
                func(*args)
        except GputcoError:
            pass

    run()
