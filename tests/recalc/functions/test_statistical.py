"""Correlation and the regression line (CORREL, PEARSON, RSQ, SLOPE, INTERCEPT, STEYX, FORECAST,
FORECAST.LINEAR), means and shape (GEOMEAN, HARMEAN, KURT, SKEW, SKEW.P, TRIMMEAN), PERMUT,
PERMUTATIONA, PROB and FREQUENCY (functions/statistical.py) against Microsoft and LibreOffice.

Each Microsoft example is the formula of the function's page with its data typed in and the result
as the page shows it. Where the search excerpt of today's page stopped before its example, the
example is read from an earlier edition of the same Microsoft page (Excel 97 to 2010 help, or
its SharePoint list edition: the same data and result): PEARSON, RSQ, INTERCEPT, FORECAST (whose
page FORECAST.LINEAR shares), HARMEAN, KURT, SKEW, PROB and FREQUENCY. No example of SKEW.P's or
PERMUTATIONA's page was found: they are probes only. The further probes are the remarks'
documented errors and how values in ranges are read, compared with LibreOffice's recorded answers
(see tests/family_probes.py).
"""

from __future__ import annotations

import math
from typing import ClassVar

import numpy as np
import pytest
from family_probes import FamilyProbes
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from recalc_book import ms

from gputco.workbook.recalc.base.values import XlError
from gputco.workbook.recalc.functions import statistical as s

RSQ_Y, RSQ_X = "{2,3,9,1,8,7,5}", "{6,5,11,7,5,4,4}"  # RSQ's, SLOPE's and STEYX's example
SCORES = "{79,85,78,85,83,81,95,88,97}"  # FREQUENCY's (Excel 97's page)
KURT_DATA = "3,4,5,2,3,4,5,6,4,7"  # KURT's and SKEW's
PROB_X, PROB_P = "{0,1,2,3}", "{0.2,0.3,0.1,0.4}"

MICROSOFT = [
    # CORREL's page: =CORREL(A2:A6,B2:B6) of 3,2,4,5,6 and 9,7,12,15,17
    ("=CORREL({3,2,4,5,6},{9,7,12,15,17})", "0.997054486", ms("correl")),
    ("=PEARSON({9,7,5,3,1},{10,6,1,5,3})", "0.699379", ms("pearson")),
    (f"=RSQ({RSQ_Y},{RSQ_X})", "0.05795", ms("rsq")),
    (f"=SLOPE({RSQ_Y},{RSQ_X})", "0.305556", ms("slope")),
    ("=INTERCEPT({2,3,9,1,8},{6,5,11,7,5})", "0.0483871", ms("intercept")),
    (f"=STEYX({RSQ_Y},{RSQ_X})", "3.305719", ms("steyx")),
    ("=FORECAST(30,{6,7,9,15,21},{20,28,31,38,40})", "10.60725", ms("forecast")),
    ("=_xlfn.FORECAST.LINEAR(30,{6,7,9,15,21},{20,28,31,38,40})", "10.60725", ms("forecast")),
    ("=GEOMEAN(4,5,8,7,11,4,3)", "5.476987", ms("geomean")),
    ("=HARMEAN(4,5,8,7,11,4,3)", "5.028376", ms("harmean")),
    (f"=KURT({KURT_DATA})", "-0.1518", ms("kurt")),
    (f"=SKEW({KURT_DATA})", "0.359543", ms("skew")),
    ("=TRIMMEAN({4,5,6,7,2,3,4,5,1,2,3},0.2)", "3.778", ms("trimmean")),
    ("=PERMUT(100,3)", "970200", ms("permut")),
    ("=PERMUT(3,2)", "6", ms("permut")),
    (f"=PROB({PROB_X},{PROB_P},2)", "0.1", ms("prob")),
    (f"=PROB({PROB_X},{PROB_P},1,3)", "0.8", ms("prob")),
    # Excel 97's FREQUENCY page: FREQUENCY(A1:A9,C4:C6) equals {0;2;5;2}
    *(
        (f"=INDEX(FREQUENCY({SCORES},{{70,79,89}}),{i})", want, ms("frequency"))
        for i, want in enumerate(["0", "2", "5", "2"], start=1)
    ),
]

#: the St sheet: y's and x's (RSQ's example), a column of values ranges ignore (text, a blank),
#: one with an error, one of equal values, FREQUENCY's scores and bins, PROB's example, J:K left
#: blank, and L with logical values (LibreOffice reads them as 1 and 0: see EXCEL_NOT_LO)
COLUMNS = {
    "A": [2, 3, 9, 1, 8, 7, 5],
    "B": [6, 5, 11, 7, 5, 4, 4],
    "C": [1, "2", "x", None, 4, 5, 6],
    "D": [1, 2, '="a"+1', 4, 5, 6, 7],
    "E": [0.1] * 7,
    "F": [79, 85, 78, 85, 83, 81, 95, 88, 97],
    "G": [70, 79, 89],
    "H": [0, 1, 2, 3],
    "I": [0.2, 0.3, 0.1, 0.4],
    "L": [1, True, 3, False, 5, 6, 7],
}
L_NUMBERS = [1.0, 3.0, 5.0, 6.0, 7.0]  # what Excel reads of St!L1:L7 (logical values ignored)
L_PAIRS = [(1.0, 6.0), (3.0, 11.0), (5.0, 5.0), (6.0, 4.0), (7.0, 4.0)]  # (L, B) kept


def _rows(columns: dict[str, list]) -> list[list]:
    height = max(len(v) for v in columns.values())
    width = max(ord(c) - ord("A") + 1 for c in columns)
    rows = [[None] * width for _ in range(height)]
    for c, vals in columns.items():
        for r, v in enumerate(vals):
            rows[r][ord(c) - ord("A")] = v
    return rows


Y, X = "St!A1:A7", "St!B1:B7"
BLANK = "St!J1:J3"
PROBES = [
    # the regression line through cells, and what ranges leave out
    *(f"={f}({Y},{X})" for f in ("CORREL", "PEARSON", "RSQ", "SLOPE", "INTERCEPT", "STEYX")),
    f"=FORECAST(8,{Y},{X})",
    f"=SLOPE({Y}*1,{X})",
    *(f"={f}(St!C1:C7,{X})" for f in ("CORREL", "RSQ", "SLOPE", "INTERCEPT", "STEYX")),
    "=CORREL({1,2;3,4},{2,4;5,9})",
    # different counts: #N/A; an error in a range: that error
    f"=SLOPE({Y},St!B1:B6)",
    f"=CORREL({Y},St!B1:B6)",
    f"=FORECAST(1,{Y},St!B1:B6)",
    f"=SLOPE(St!D1:D7,{X})",
    f"=PEARSON({X},St!D1:D7)",
    # x's (or y's) all equal, one pair, none: #DIV/0!; STEYX wants three pairs
    f"=SLOPE({Y},St!E1:E7)",
    f"=INTERCEPT({Y},St!E1:E7)",
    f"=CORREL(St!E1:E7,{Y})",
    f"=RSQ(St!E1:E7,{Y})",
    f"=FORECAST(1,{Y},St!E1:E7)",
    f"=SLOPE(St!E1:E7,{Y})",
    "=RSQ({1},{2})",
    "=SLOPE({1},{2})",
    "=STEYX({1,2},{3,5})",
    "=STEYX({1,2,3},{3,5,5})",
    "=STEYX({1,2,3},{2,4,6})",
    "=STEYX({1,2,4},{2,4,6})",
    f"=CORREL({BLANK},St!K1:K3)",
    f"=SLOPE({BLANK},St!K1:K3)",
    # x typed: converted as arithmetic does
    f'=FORECAST("x",{Y},{X})',
    f'=FORECAST("2",{Y},{X})',
    f"=FORECAST(TRUE,{Y},{X})",
    # GEOMEAN and HARMEAN: typed values count, ranges give their numbers; <= 0 is #NUM!
    "=GEOMEAN(St!C1:C7)",
    "=HARMEAN(St!C1:C7)",
    '=GEOMEAN(1,"4",TRUE)',
    '=HARMEAN(2,"4")',
    "=GEOMEAN(2,0)",
    "=HARMEAN(2,-1)",
    "=GEOMEAN(Data!A1:A10)",
    '=GEOMEAN("x",1)',
    "=HARMEAN(St!D1:D7)",
    "=GEOMEAN(1E300,1E300,1E300)",
    # KURT, SKEW, SKEW.P
    f"=_xlfn.SKEW.P({KURT_DATA})",
    "=SKEW(Data!A1:A10)",
    "=KURT(Data!A1:A10)",
    "=_xlfn.SKEW.P(Data!A1:A10)",
    "=SKEW(St!C1:C7)",
    "=KURT(St!C1:C7,2)",
    '=SKEW(1,"2",TRUE,7)',
    "=SKEW(1,2)",
    "=_xlfn.SKEW.P(1,2)",
    "=_xlfn.SKEW.P(1,2,4)",
    "=KURT(1,2,3)",
    "=SKEW(St!E1:E7)",
    "=KURT(St!E1:E7)",
    "=_xlfn.SKEW.P(St!E1:E7)",
    "=SKEW(St!D1:D7)",
    # TRIMMEAN: 2 * INT(n * percent / 2) values left out
    "=TRIMMEAN(Data!A1:A10,0.2)",
    "=TRIMMEAN(Data!A1:A10,0)",
    "=TRIMMEAN(Data!A1:A10,0.39)",
    "=TRIMMEAN(Data!A1:A10,0.99)",
    "=TRIMMEAN(St!C1:C7,0.5)",
    "=TRIMMEAN({4,6,2,5,7,8,9},0.2)",  # ECMA-376 Part 1, 18.17.7 TRIMMEAN's example
    "=TRIMMEAN(Data!A1:A10,-0.1)",
    "=TRIMMEAN(Data!A1:A10,1.5)",
    "=TRIMMEAN(St!D1:D7,0.2)",
    # PERMUT and PERMUTATIONA: arguments truncated
    "=PERMUT(5,0)",
    "=PERMUT(0,0)",
    "=PERMUT(10.9,2.9)",
    "=PERMUT(3,4)",
    "=PERMUT(-1,0)",
    "=PERMUT(3,-1)",
    "=PERMUT(170,170)",
    "=PERMUT(200,150)",
    "=PERMUT(1E6,3)",
    '=PERMUT("x",2)',
    "=_xlfn.PERMUTATIONA(3,2)",
    "=_xlfn.PERMUTATIONA(2,2)",
    "=_xlfn.PERMUTATIONA(3.7,2.9)",
    "=_xlfn.PERMUTATIONA(5,0)",
    "=_xlfn.PERMUTATIONA(0,0)",
    "=_xlfn.PERMUTATIONA(0,2)",
    "=_xlfn.PERMUTATIONA(-1,2)",
    "=_xlfn.PERMUTATIONA(3,-1)",
    "=_xlfn.PERMUTATIONA(10,400)",
    # PROB
    "=PROB(St!H1:H4,St!I1:I4,2)",
    "=PROB(St!H1:H4,St!I1:I4,1,3)",
    "=PROB(St!H1:H4,St!I1:I4,0.5,2.5)",
    "=PROB(St!H1:H4,St!I1:I4,5)",
    "=PROB(St!H1:H4,St!I1:I4,3,1)",
    "=PROB({0,1},{0.5,0.4},0)",
    "=PROB({0,1,2},{0.5,0.5},0)",
    "=PROB({1,2,3},{0.5,0.5,0},1)",
    "=PROB({1,2,3},{0.5,0.6,-0.1},1,2)",
    # FREQUENCY: len(bins) + 1 counts, in the bins' order
    *(f"=INDEX(FREQUENCY(St!F1:F9,St!G1:G3),{i})" for i in (1, 2, 3, 4)),
    "=ROWS(FREQUENCY(St!F1:F9,St!G1:G3))",
    *(f"=INDEX(FREQUENCY(St!F1:F9,{{89,70,79}}),{i})" for i in (1, 2, 3, 4)),
    *(f"=INDEX(FREQUENCY(St!F1:F9,{{79,79}}),{i})" for i in (1, 2, 3)),
    "=ROWS(FREQUENCY(St!F1:F9,St!C1:C7))",
    "=INDEX(FREQUENCY(St!C1:C7,{2,5}),1)",
    "=INDEX(FREQUENCY(St!C1:C7,{2,5}),2)",
    f"=INDEX(FREQUENCY(St!F1:F9,{BLANK}),1)",
    f"=ROWS(FREQUENCY(St!F1:F9,{BLANK}))",
    "=SUM(FREQUENCY(Data!A1:A10,{0,5}))",
    "=INDEX(FREQUENCY(Data!A1:A10,{0,5}),2)",
    "=INDEX(FREQUENCY(St!D1:D7,{2,5}),1)",
]


def _mean(xs):
    return math.fsum(xs) / len(xs)


def _corr(pairs):
    """Pearson's r of (x, y) pairs, by the formula of CORREL's page."""
    xs, ys = [p[0] for p in pairs], [p[1] for p in pairs]
    mx, my = _mean(xs), _mean(ys)
    sxy = math.fsum((x - mx) * (y - my) for x, y in pairs)
    return sxy / math.sqrt(math.fsum((x - mx) ** 2 for x in xs) * math.fsum((y - my) ** 2 for y in ys))


def _skew(xs):
    """SKEW by the formula of its page."""
    n, m = len(xs), _mean(xs)
    sd = math.sqrt(math.fsum((x - m) ** 2 for x in xs) / (n - 1))
    return n / ((n - 1) * (n - 2)) * math.fsum(((x - m) / sd) ** 3 for x in xs)


IGNORED = "logical values in a range are ignored; LibreOffice reads a TRUE/FALSE cell as 1/0"
TYPED = "logical values and number texts typed as arguments are counted; LibreOffice: #VALUE!"
NA_SIZES = "different numbers of data points are #N/A; LibreOffice: #VALUE!"
NUM_PAGE = "is #NUM!; LibreOffice: #VALUE!"
#: formula -> (Excel's answer, why: the Microsoft page that says so)
EXCEL_NOT_LO: dict[str, tuple[object, str]] = {
    f"=CORREL(St!L1:L7,{X})": (_corr(L_PAIRS), f"Microsoft's CORREL page: {IGNORED}"),
    f"=RSQ({X},St!L1:L7)": (_corr(L_PAIRS) ** 2, f"Microsoft's RSQ page: {IGNORED}"),
    "=GEOMEAN(St!L1:L7)": (
        math.exp(_mean([math.log(v) for v in L_NUMBERS])),
        f"Microsoft's GEOMEAN page: {IGNORED}",
    ),
    "=SKEW(St!L1:L7)": (_skew(L_NUMBERS), f"Microsoft's SKEW page: {IGNORED}"),
    "=TRIMMEAN(St!L1:L7,0.4)": (14 / 3, f"Microsoft's TRIMMEAN page (1, 3, 5, 6, 7 less 1 and 7): {IGNORED}"),
    "=ROWS(FREQUENCY(St!F1:F9,St!L1:L7))": (6.0, f"Microsoft's FREQUENCY page: 5 numeric bins; {IGNORED}"),
    '=GEOMEAN(1,"4",TRUE)': (4.0 ** (1 / 3), f"Microsoft's GEOMEAN page: {TYPED}"),
    '=HARMEAN(2,"4")': (2 / (1 / 2 + 1 / 4), f"Microsoft's HARMEAN page: {TYPED}"),
    '=SKEW(1,"2",TRUE,7)': (_skew([1.0, 2.0, 1.0, 7.0]), f"Microsoft's SKEW page: {TYPED}"),
    f"=SLOPE({Y},St!B1:B6)": ("#N/A", f"Microsoft's SLOPE page: {NA_SIZES}"),
    f"=CORREL({Y},St!B1:B6)": ("#N/A", f"Microsoft's CORREL page: {NA_SIZES}"),
    f"=FORECAST(1,{Y},St!B1:B6)": ("#N/A", f"Microsoft's FORECAST page: {NA_SIZES}"),
    "=STEYX({1,2},{3,5})": ("#DIV/0!", "Microsoft's STEYX page: fewer than three data points are #DIV/0!"),
    f"=CORREL({BLANK},St!K1:K3)": ("#DIV/0!", "Microsoft's CORREL page: an empty array is #DIV/0!"),
    f"=SLOPE({BLANK},St!K1:K3)": (
        "#DIV/0!",
        "no pair of numbers: #DIV/0!, as Microsoft's CORREL and STEYX pages say of empty arrays (SLOPE's "
        "page says #N/A: see statistical.py); LibreOffice: #VALUE!",
    ),
    "=GEOMEAN(2,0)": ("#NUM!", "Microsoft's GEOMEAN page: a data point <= 0 is #NUM!; LibreOffice: 0"),
    "=HARMEAN(2,-1)": ("#NUM!", f"Microsoft's HARMEAN page: a data point <= 0 {NUM_PAGE}"),
    "=GEOMEAN(Data!A1:A10)": ("#NUM!", f"Microsoft's GEOMEAN page: a data point <= 0 {NUM_PAGE}"),
    "=SKEW(St!E1:E7)": (
        "#DIV/0!",
        "Microsoft's SKEW page: a zero standard deviation is #DIV/0!; LibreOffice: #VALUE!",
    ),
    "=_xlfn.SKEW.P(St!E1:E7)": (
        "#DIV/0!",
        "Microsoft's SKEW.P page: a zero standard deviation is #DIV/0!; LibreOffice: #VALUE!",
    ),
    "=TRIMMEAN(Data!A1:A10,-0.1)": ("#NUM!", f"Microsoft's TRIMMEAN page: percent < 0 {NUM_PAGE}"),
    "=TRIMMEAN(Data!A1:A10,1.5)": ("#NUM!", f"Microsoft's TRIMMEAN page: percent > 1 {NUM_PAGE}"),
    "=PERMUT(3,4)": ("#NUM!", f"Microsoft's PERMUT page: number < number_chosen {NUM_PAGE}"),
    "=PERMUT(-1,0)": ("#NUM!", f"Microsoft's PERMUT page: number <= 0 {NUM_PAGE}"),
    "=PERMUT(3,-1)": ("#NUM!", f"Microsoft's PERMUT page: number_chosen < 0 {NUM_PAGE}"),
    "=PERMUT(0,0)": ("#NUM!", "Microsoft's PERMUT page: number <= 0 is #NUM!; LibreOffice: 1"),
    **{
        f: (
            "#NUM!",
            "a negative argument: #NUM!, as descriptions of Excel's PERMUTATIONA give it (tutorialspoint, "
            "mytour; the search did not reach the remarks of Microsoft's page); LibreOffice: #VALUE!, its "
            "error for any invalid argument",
        )
        for f in ("=_xlfn.PERMUTATIONA(-1,2)", "=_xlfn.PERMUTATIONA(3,-1)")
    },
    "=PROB({0,1},{0.5,0.4},0)": (
        "#NUM!",
        f"Microsoft's PROB page: probabilities not adding up to 1 {NUM_PAGE}",
    ),
    "=PROB({1,2,3},{0.5,0.6,-0.1},1,2)": (
        1.1,
        "[MS-OI29500] 2.1.1023 PROB: 'In Office, values in argument probability-range may be <= 0 or > 1' "
        "(only their sum must be 1); LibreOffice: #VALUE!",
    ),
    "=PROB(St!H1:H4,St!I1:I4,3,1)": (
        0.0,
        "an upper_limit below lower_limit is 0 (Mac Excel cached 0 for PROB({1,2,3,4,5},{0.1,0.2,0.3,"
        "0.3,0.1},1,H86), H86 blank, in vinci1it2000/formulas test/test_files/test.xlsx STATISTICAL!Z86; "
        "Microsoft's page is silent); LibreOffice swaps the limits",
    ),
    **{
        f: (
            excel,
            "blank bins are one bin of 0 (Mac Excel cached {0;3} for {=FREQUENCY(I41:I44,J41:J44)} with "
            "J41:J44 blank, and 2 for FREQUENCY(C43:G43,H43) of 1,2,3,0,-1 with H43 blank, in "
            "vinci1it2000/formulas test/test_files/test.xlsx EXTRA!J50:J51, STATISTICAL!W43; Microsoft's "
            "page: no values give the count of data_array); LibreOffice: #VALUE!",
        )
        for f, excel in (
            (f"=INDEX(FREQUENCY(St!F1:F9,{BLANK}),1)", 0.0),
            (f"=ROWS(FREQUENCY(St!F1:F9,{BLANK}))", 2.0),
        )
    },
}
PROBES = [p for p in PROBES if p not in EXCEL_NOT_LO]  # a probe listed there too: one probe cell


class TestStatsMore(FamilyProbes):
    SET = "stats_more"
    MICROSOFT = MICROSOFT
    PROBES = PROBES
    EXCEL_NOT_LO = EXCEL_NOT_LO
    SHEETS: ClassVar[dict[str, list[list[object]]]] = {"St": _rows(COLUMNS)}


# --- identities -------------------------------------------------------------------------------


def _array(values) -> np.ndarray:
    return np.asarray(values, dtype=float).reshape(1, 1, -1)


def _value(out):
    v = np.asarray(out, dtype=object).reshape(-1)[0]
    return v if isinstance(v, XlError) else float(v)


CORREL = s.FUNCTIONS["CORREL"].impl
RSQ = s.FUNCTIONS["RSQ"].impl
SLOPE = s.FUNCTIONS["SLOPE"].impl
INTERCEPT = s.FUNCTIONS["INTERCEPT"].impl
FORECAST = s.FUNCTIONS["FORECAST"].impl
STEYX = s.FUNCTIONS["STEYX"].impl

samples = st.lists(
    st.tuples(st.floats(-1e3, 1e3, allow_nan=False), st.floats(-1e3, 1e3, allow_nan=False)),
    min_size=3,
    max_size=30,
)


@settings(max_examples=50, deadline=None)
@given(points=samples)
def test_correlation_and_line_agree_with_numpy(points):
    """CORREL is numpy's corrcoef, RSQ its square, SLOPE and INTERCEPT numpy's least-squares line
    (polyfit of degree 1), FORECAST the line's value and STEYX the residuals' standard error."""
    x = np.array([p[0] for p in points])
    y = np.array([p[1] for p in points])
    assume(np.ptp(x) > 1e-3 and np.ptp(y) > 1e-3)
    ys, xs = _array(y), _array(x)
    r = float(np.corrcoef(x, y)[0, 1])
    assert math.isclose(_value(CORREL(xs, ys)), r, rel_tol=1e-9, abs_tol=1e-12)
    assert math.isclose(_value(RSQ(ys, xs)), _value(CORREL(xs, ys)) ** 2, rel_tol=1e-12, abs_tol=1e-15)
    slope, intercept = np.polyfit(x, y, 1)
    b, a = _value(SLOPE(ys, xs)), _value(INTERCEPT(ys, xs))
    scale = float(np.abs(y).max()) + 1.0
    assert math.isclose(b * np.ptp(x), slope * np.ptp(x), rel_tol=1e-7, abs_tol=1e-9 * scale)
    assert math.isclose(a, intercept, rel_tol=1e-7, abs_tol=1e-9 * scale * (1 + np.abs(x).max()))
    at = np.array([[[float(x.min()), float(x.mean()), 7.5]]])
    got = np.asarray(FORECAST(at, ys, xs), dtype=float).reshape(-1)
    assert np.allclose(got, a + b * at.reshape(-1), rtol=1e-12, atol=1e-9 * scale)
    assert math.isclose(got[1], float(y.mean()), rel_tol=1e-9, abs_tol=1e-9 * scale)  # through the means
    resid = y - (a + b * x)
    steyx = math.sqrt(float(np.sum(resid**2)) / (len(x) - 2))
    assert math.isclose(_value(STEYX(ys, xs)), steyx, rel_tol=1e-6, abs_tol=1e-7 * scale)


@settings(max_examples=200, deadline=None)
@given(values=st.lists(st.floats(1e-3, 1e6), min_size=1, max_size=40))
def test_harmonic_geometric_arithmetic(values):
    """HARMEAN <= GEOMEAN <= AVERAGE (Microsoft's HARMEAN page: "The harmonic mean is always less
    than the geometric mean, which is always less than the arithmetic mean"), equal for equal
    numbers."""
    arr = _array(values)
    h = _value(s.FUNCTIONS["HARMEAN"].impl(arr))
    g = _value(s.FUNCTIONS["GEOMEAN"].impl(arr))
    mean = math.fsum(values) / len(values)
    assert h <= g * (1 + 1e-12) and g <= mean * (1 + 1e-12)
    assert math.isclose(g, math.exp(math.fsum(math.log(v) for v in values) / len(values)), rel_tol=1e-12)


@settings(max_examples=200, deadline=None)
@given(values=st.lists(st.floats(-1e4, 1e4, allow_nan=False), min_size=4, max_size=40))
def test_sample_and_population_skewness(values):
    """SKEW = SKEW.P * sqrt(n (n - 1)) / (n - 2): the two pages' formulas, s = sigma * sqrt(n / (n-1))."""
    assume(max(values) - min(values) > 1e-2)
    arr, n = _array(values), len(values)
    skew, skew_p = _value(s.FUNCTIONS["SKEW"].impl(arr)), _value(s.FUNCTIONS["SKEW.P"].impl(arr))
    assert math.isclose(skew, skew_p * math.sqrt(n * (n - 1)) / (n - 2), rel_tol=1e-9, abs_tol=1e-9)
    assert isinstance(_value(s.FUNCTIONS["KURT"].impl(arr)), float)


@settings(max_examples=200, deadline=None)
@given(
    data=st.lists(st.integers(-50, 50), min_size=1, max_size=40),
    bins=st.lists(st.integers(-60, 60), min_size=1, max_size=8),
)
def test_frequency_counts_every_number_once(data, bins):
    """FREQUENCY's counts add up to the count of numbers, and each is the count above the next
    lower bin and at most its own (the first of equal bins), as counted one by one."""
    got = s.FUNCTIONS["FREQUENCY"].impl(_array(data), _array(bins)).reshape(-1)
    assert got.shape == (len(bins) + 1,) and got.sum() == len(data)
    for i, b in enumerate(bins):
        lower = max((c for c in bins if c < b), default=-math.inf)
        first = bins.index(b) == i
        assert got[i] == (sum(lower < d <= b for d in data) if first else 0)
    assert got[-1] == sum(d > max(bins, default=-math.inf) for d in data)


@pytest.mark.parametrize(
    ("number", "chosen"), [(5.0, 0.0), (10.9, 2.9), (52.0, 5.0), (170.0, 170.0), (1e6, 3.0)]
)
def test_permut_is_the_falling_factorial(number, chosen):
    """PERMUT is n (n - 1) ... (n - k + 1) and PERMUTATIONA n^k, exactly where they are doubles."""
    n, k = math.trunc(number), math.trunc(chosen)
    assert s._permut(number, chosen) == float(math.prod(range(n - k + 1, n + 1)))
    if k * math.log10(n) < 300:
        assert s._permutationa(number, chosen) == float(n**k)


@pytest.mark.parametrize(
    ("data", "bins", "error"),
    [
        (np.array([[[XlError("#VALUE!")]]], dtype=object), _array([1e-9]), "#VALUE!"),
        (np.array([[[True]]], dtype=object), np.array([[[XlError("#NUM!")]]], dtype=object), "#NUM!"),
        (_array([1.0, 2.0]), np.array([[[XlError("#N/A")]]], dtype=object), "#N/A"),
    ],
)
def test_frequency_returns_an_error_typed_or_given_by_a_call(data, bins, error):
    """Microsoft's FREQUENCY page: "FREQUENCY ignores blank cells and text", not errors: an error
    given as a value (FREQUENCY(#VALUE!,1E-9), FREQUENCY(TRUE,#NUM!), FREQUENCY({1,2},NA())) is
    the answer, as an error cell of a range is; the differential fuzzer found it ignored (0, 1, 2)."""
    assert str(_value(s.FUNCTIONS["FREQUENCY"].impl(data, bins))) == error
