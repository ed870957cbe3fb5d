"""Statistical functions (functions/statistical.py) against Microsoft and LibreOffice, in one
probe table: correlation and the regression line (CORREL, PEARSON, RSQ, SLOPE, INTERCEPT, STEYX,
FORECAST, FORECAST.LINEAR), means and shape (GEOMEAN, HARMEAN, KURT, SKEW, SKEW.P, TRIMMEAN), PERMUT,
PERMUTATIONA, PROB and FREQUENCY; the distributions (NORM, LOGNORM, T, CHISQ, F, GAMMA, BETA, BINOM,
NEGBINOM, HYPGEOM, POISSON, EXPON, WEIBULL, CONFIDENCE, FISHER, ...); the hypothesis tests (Z.TEST,
T.TEST, F.TEST, CHISQ.TEST), PERCENTRANK, MODE.MULT, and ISFORMULA.

Each Microsoft example is the formula of the function's page with its data typed in (on the St and
Tt sheets, or as arrays) and the result as the page shows it. Where the search excerpt of today's
page stopped before its example, the example is read from an earlier edition of the same Microsoft
page (Excel 97 to 2010 help, or its SharePoint list edition: the same data and result): PEARSON,
RSQ, INTERCEPT, FORECAST (whose page FORECAST.LINEAR shares), HARMEAN, KURT, SKEW, PROB and
FREQUENCY. No example of SKEW.P's or PERMUTATIONA's page was found: they are probes only. The
further probes are the remarks' documented errors (#NUM! for an argument out of range, #VALUE! for
text), how values in ranges are read, legacy names, far tails and inverses, compared with
LibreOffice's recorded answers (see tests/family_probes.py). Below the table, identities
(numpy's least squares, the means' order, the incomplete beta and gamma functions).
"""

from __future__ import annotations

import math
from fractions import Fraction
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

T1, T2 = [3, 4, 5, 8, 9, 1, 2, 4, 5], [6, 19, 3, 2, 14, 4, 5, 17, 1]  # T.TEST's example
F1, F2 = [6, 7, 9, 15, 21], [20, 28, 31, 38, 40]  # F.TEST's
ACTUAL, EXPECTED = (
    [[58, 35], [11, 25], [10, 23]],
    [[45.35, 47.65], [17.56, 18.44], [16.09, 16.91]],
)  # CHISQ.TEST's
Z = [3, 6, 7, 8, 6, 5, 4, 2, 1, 9]  # Z.TEST's
P = [13, 12, 11, 8, 4, 3, 2, 1, 1, 1]  # PERCENTRANK.INC's
PX = [1, 2, 3, 6, 6, 6, 7, 8, 9]  # PERCENTRANK.EXC's
MODES = [1, 2, 3, 4, 3, 2, 1, 2, 3, 5, 6, 1]  # MODE.MULT's


def binomial(n: int, p: float, k1: int, k2: int) -> float:
    """P(k1 <= X <= k2) for X ~ B(n, p), in exact rational arithmetic."""
    q = Fraction(p)
    return float(sum(math.comb(n, k) * q**k * (1 - q) ** (n - k) for k in range(k1, k2 + 1)))


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
    # the distributions
    ("=_xlfn.NORM.DIST(42,40,1.5,TRUE)", "0.9087888", ms("norm-dist")),
    ("=_xlfn.NORM.DIST(42,40,1.5,FALSE)", "0.10934", ms("norm-dist")),
    ("=_xlfn.NORM.S.DIST(1.333333,TRUE)", "0.908788726", ms("norm-s-dist")),
    ("=_xlfn.NORM.S.DIST(1.333333,FALSE)", "0.164010148", ms("norm-s-dist")),
    ("=_xlfn.NORM.INV(0.908789,40,1.5)", "42.000002", ms("norm-inv")),
    ("=_xlfn.NORM.S.INV(0.908789)", "1.3333347", ms("norm-s-inv")),
    ("=NORMDIST(42,40,1.5,TRUE)", "0.9087888", ms("normdist")),
    ("=NORMSDIST(1.333333)", "0.908788726", ms("normsdist")),
    ("=NORMINV(0.908789,40,1.5)", "42.000002", ms("norminv")),
    ("=NORMSINV(0.908789)", "1.3333347", ms("normsinv")),
    ("=_xlfn.T.DIST(60,1,TRUE)", "0.99469533", ms("t-dist")),
    ("=_xlfn.T.DIST(8,3,FALSE)", "0.00073691", ms("t-dist")),
    ("=_xlfn.T.DIST.2T(1.959999998,60)", "0.054645", ms("t-dist-2t")),
    ("=_xlfn.T.DIST.RT(1.959999998,60)", "0.027322", ms("t-dist-rt")),
    ("=TDIST(1.959999998,60,2)", "0.054644930", ms("tdist")),
    ("=TDIST(1.959999998,60,1)", "0.027322465", ms("tdist")),
    ("=_xlfn.T.INV(0.75,2)", "0.8164966", ms("t-inv")),
    ("=_xlfn.T.INV.2T(0.546449,60)", "0.606533", ms("t-inv-2t")),
    # the page's remarks also quote T.INV.2T(0.05,10) as 2.28139 and T.INV.2T(2*0.05,10) as
    # 1.812462: misprints of 2.228139 and 1.812461 (any t table); they are LibreOffice probes
    ("=TINV(0.054644927,60)", "1.96", ms("tinv")),
    ("=_xlfn.BINOM.DIST(6,10,0.5,FALSE)", "0.2050781", ms("binom-dist")),
    ("=BINOMDIST(6,10,0.5,FALSE)", "0.2050781", ms("binomdist")),
    ("=_xlfn.BINOM.INV(6,0.5,0.75)", "4", ms("binom-inv")),
    ("=CRITBINOM(6,0.5,0.75)", "4", ms("critbinom")),
    ("=_xlfn.BINOM.DIST.RANGE(60,0.75,48)", "0.084", ms("binom-dist-range")),
    ("=_xlfn.BINOM.DIST.RANGE(60,0.75,45,50)", "0.524", ms("binom-dist-range")),
    ("=_xlfn.CHISQ.DIST(0.5,1,TRUE)", "0.52049988", ms("chisq-dist")),
    ("=_xlfn.CHISQ.DIST(2,3,FALSE)", "0.20755375", ms("chisq-dist")),
    ("=_xlfn.CHISQ.DIST.RT(18.307,10)", "0.0500006", ms("chisq-dist-rt")),
    ("=CHIDIST(18.307,10)", "0.0500006", ms("chidist")),
    ("=_xlfn.CHISQ.INV(0.93,1)", "3.283020286", ms("chisq-inv")),
    ("=_xlfn.CHISQ.INV(0.6,2)", "1.832581464", ms("chisq-inv")),
    ("=_xlfn.CHISQ.INV.RT(0.050001,10)", "18.306973", ms("chisq-inv-rt")),
    ("=CHIINV(0.050001,10)", "18.306973", ms("chiinv")),
    ("=_xlfn.GAMMA(2.5)", "1.329", ms("gamma")),
    ("=_xlfn.GAMMA(-3.75)", "0.268", ms("gamma")),
    ("=_xlfn.GAMMA(0)", "#NUM!", ms("gamma")),
    ("=_xlfn.GAMMA(-2)", "#NUM!", ms("gamma")),
    ("=_xlfn.GAMMA.DIST(10.00001131,9,2,FALSE)", "0.032639", ms("gamma-dist")),
    ("=_xlfn.GAMMA.DIST(10.00001131,9,2,TRUE)", "0.068094", ms("gamma-dist")),
    ("=GAMMADIST(10.00001131,9,2,TRUE)", "0.068094", ms("gammadist")),
    ("=_xlfn.GAMMA.INV(0.068094,9,2)", "10.0000112", ms("gamma-inv")),
    ("=GAMMAINV(0.068094,9,2)", "10.0000112", ms("gammainv")),
    ("=GAMMALN(4)", "1.7917595", ms("gammaln")),
    ("=_xlfn.GAMMALN.PRECISE(4)", "1.7917595", ms("gammaln-precise")),
    ("=_xlfn.BETA.DIST(2,8,10,TRUE,1,3)", "0.6854706", ms("beta-dist")),
    ("=_xlfn.BETA.DIST(2,8,10,FALSE,1,3)", "1.4837646", ms("beta-dist")),
    ("=BETADIST(2,8,10,1,3)", "0.6854706", ms("betadist")),
    ("=_xlfn.BETA.INV(0.685470581,8,10,1,3)", "2", ms("beta-inv")),
    ("=BETAINV(0.685470581,8,10,1,3)", "2", ms("betainv")),
    ("=_xlfn.LOGNORM.DIST(4,3.5,1.2,TRUE)", "0.0390836", ms("lognorm-dist")),
    ("=_xlfn.LOGNORM.DIST(4,3.5,1.2,FALSE)", "0.0176176", ms("lognorm-dist")),
    ("=LOGNORMDIST(4,3.5,1.2)", "0.0390836", ms("lognormdist")),
    ("=_xlfn.LOGNORM.INV(0.039084,3.5,1.2)", "4.0000252", ms("lognorm-inv")),
    ("=LOGINV(0.039084,3.5,1.2)", "4.0000252", ms("loginv")),
    ("=_xlfn.POISSON.DIST(2,5,TRUE)", "0.124652", ms("poisson-dist")),
    ("=_xlfn.POISSON.DIST(2,5,FALSE)", "0.084224", ms("poisson-dist")),
    ("=POISSON(2,5,TRUE)", "0.124652", ms("poisson")),
    ("=_xlfn.EXPON.DIST(0.2,10,TRUE)", "0.86466472", ms("expon-dist")),
    ("=_xlfn.EXPON.DIST(0.2,10,FALSE)", "1.35335283", ms("expon-dist")),
    ("=EXPONDIST(0.2,10,TRUE)", "0.86466472", ms("expondist")),
    ("=_xlfn.F.DIST(15.2069,6,4,TRUE)", "0.99", ms("f-dist")),
    ("=_xlfn.F.DIST(15.2069,6,4,FALSE)", "0.0012238", ms("f-dist")),
    ("=_xlfn.F.DIST.RT(15.2068649,6,4)", "0.01", ms("f-dist-rt")),
    ("=FDIST(15.2068649,6,4)", "0.01", ms("fdist")),
    ("=_xlfn.F.INV(0.01,6,4)", "0.109309914", ms("f-inv")),
    ("=_xlfn.F.INV.RT(0.01,6,4)", "15.206865", ms("f-inv-rt")),
    ("=FINV(0.01,6,4)", "15.206865", ms("finv")),
    ("=_xlfn.WEIBULL.DIST(105,20,100,TRUE)", "0.929581", ms("weibull-dist")),
    ("=_xlfn.WEIBULL.DIST(105,20,100,FALSE)", "0.035589", ms("weibull-dist")),
    ("=WEIBULL(105,20,100,TRUE)", "0.929581", ms("weibull")),
    ("=_xlfn.CONFIDENCE.NORM(0.05,2.5,50)", "0.692952", ms("confidence-norm")),
    ("=CONFIDENCE(0.05,2.5,50)", "0.692952", ms("confidence")),
    ("=_xlfn.CONFIDENCE.T(0.05,1,50)", "0.284196855", ms("confidence-t")),
    ("=_xlfn.NEGBINOM.DIST(10,5,0.25,TRUE)", "0.3135141", ms("negbinom-dist")),
    ("=_xlfn.NEGBINOM.DIST(10,5,0.25,FALSE)", "0.0550487", ms("negbinom-dist")),
    ("=NEGBINOMDIST(10,5,0.25)", "0.05504866", ms("negbinomdist")),
    ("=_xlfn.HYPGEOM.DIST(1,4,8,20,TRUE)", "0.4654", ms("hypgeom-dist")),
    ("=_xlfn.HYPGEOM.DIST(1,4,8,20,FALSE)", "0.3633", ms("hypgeom-dist")),
    ("=HYPGEOMDIST(1,4,8,20)", "0.363261", ms("hypgeomdist")),
    ("=FISHER(0.75)", "0.9729551", ms("fisher")),
    ("=FISHERINV(0.972955)", "0.75", ms("fisherinv")),
    ("=STANDARDIZE(42,40,1.5)", "1.33333333", ms("standardize")),
    ("=_xlfn.PHI(0.75)", "0.301137432", ms("phi")),
    ("=_xlfn.GAUSS(2)", "0.47725", ms("gauss")),
    # the hypothesis tests, PERCENTRANK and MODE.MULT, their data on the Tt sheet
    ("=_xlfn.T.TEST(Tt!A2:A10,Tt!B2:B10,2,1)", "0.196016", ms("t-test")),
    ("=_xlfn.F.TEST(Tt!C2:C6,Tt!D2:D6)", "0.64831785", ms("f-test")),
    ("=_xlfn.CHISQ.TEST(Tt!E2:F4,Tt!G2:H4)", "0.0003082", ms("chisq-test")),
    ("=_xlfn.Z.TEST(Tt!I2:I11,4)", "0.090574", ms("z-test")),
    ("=_xlfn.Z.TEST(Tt!I2:I11,6)", "0.863043", ms("z-test")),
    ("=_xlfn.PERCENTRANK.INC(Tt!J2:J11,2)", "0.333", ms("percentrank-inc")),
    ("=_xlfn.PERCENTRANK.INC(Tt!J2:J11,4)", "0.555", ms("percentrank-inc")),
    ("=_xlfn.PERCENTRANK.INC(Tt!J2:J11,8)", "0.666", ms("percentrank-inc")),
    ("=_xlfn.PERCENTRANK.INC(Tt!J2:J11,5)", "0.583", ms("percentrank-inc")),
    ("=_xlfn.PERCENTRANK.EXC(Tt!K2:K10,7)", "0.7", ms("percentrank-exc")),
    ("=_xlfn.PERCENTRANK.EXC(Tt!K2:K10,5.43)", "0.381", ms("percentrank-exc")),
    ("=_xlfn.PERCENTRANK.EXC(Tt!K2:K10,5.43,1)", "0.3", ms("percentrank-exc")),
    ("=INDEX(_xlfn.MODE.MULT(Tt!L2:L13),1)", "1", ms("mode-mult")),
    ("=INDEX(_xlfn.MODE.MULT(Tt!L2:L13),2)", "2", ms("mode-mult")),
    ("=INDEX(_xlfn.MODE.MULT(Tt!L2:L13),3)", "3", ms("mode-mult")),
    ("=ROWS(_xlfn.MODE.MULT(Tt!L2:L13))", "3", ms("mode-mult")),
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


def _tt_rows() -> list[list]:
    """The Tt sheet: row 1 blank, from row 2 T.TEST's two samples (A:B), F.TEST's (C:D),
    CHISQ.TEST's actual and expected (E:F, G:H), Z.TEST's data (I), PERCENTRANK.INC's (J) and
    .EXC's (K), MODE.MULT's (L) and one pair of 1s (M)."""
    columns = [T1, T2, F1, F2, *zip(*ACTUAL, strict=True), *zip(*EXPECTED, strict=True), Z, P, PX, MODES, [1]]
    rows = [[None] * len(columns) for _ in range(max(map(len, columns)) + 1)]
    for c, vals in enumerate(columns):
        for r, v in enumerate(vals, start=1):
            rows[r][c] = v
    return rows


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
    # the distributions
    "=_xlfn.T.INV.2T(0.05,10)",
    "=_xlfn.T.INV.2T(2*0.05,10)",
    # documented domain errors (Microsoft's remarks), and where the domain starts
    "=_xlfn.NORM.DIST(1,0,0,TRUE)",
    "=_xlfn.NORM.DIST(1,0,-1,FALSE)",
    "=_xlfn.NORM.INV(0,0,1)",
    "=_xlfn.NORM.INV(1,0,1)",
    "=_xlfn.NORM.INV(0.5,0,0)",
    "=_xlfn.NORM.S.INV(1.5)",
    "=_xlfn.NORM.S.INV(1E-300)",
    "=_xlfn.NORM.S.INV(0.999999999)",
    "=_xlfn.NORM.S.DIST(-40,TRUE)",
    "=_xlfn.NORM.S.DIST(9,TRUE)",
    "=_xlfn.NORM.DIST(Data!B6,0,1,TRUE)",
    '=_xlfn.NORM.DIST("abc",0,1,TRUE)',
    '=_xlfn.NORM.DIST("2",0,1,TRUE)',
    "=_xlfn.NORM.DIST(1,0,1,1)",
    "=_xlfn.NORM.DIST(1,0,1,0)",
    "=_xlfn.T.DIST(-1.5,4,TRUE)",
    "=_xlfn.T.DIST(1.5,0,TRUE)",
    "=_xlfn.T.DIST(1.5,4.9,TRUE)",
    "=_xlfn.T.DIST(0,1,FALSE)",
    "=_xlfn.T.DIST.2T(-1,10)",
    "=_xlfn.T.DIST.RT(-1,10)",
    "=_xlfn.T.DIST.RT(40,3)",
    "=TDIST(1,10,3)",
    "=TDIST(-1,10,1)",
    "=_xlfn.T.INV(0,10)",
    "=_xlfn.T.INV(0.999999,3)",
    "=_xlfn.T.INV(0.01,1)",
    "=_xlfn.T.INV.2T(1,10)",
    "=_xlfn.T.INV.2T(1.5,10)",
    "=_xlfn.T.INV.2T(1E-10,2)",
    "=_xlfn.BINOM.DIST(11,10,0.5,TRUE)",
    "=_xlfn.BINOM.DIST(3,10,1.5,TRUE)",
    "=_xlfn.BINOM.DIST(3.9,10.7,0.3,TRUE)",
    "=_xlfn.BINOM.DIST(0,10,0,FALSE)",
    "=_xlfn.BINOM.DIST(500,1000,0.5,TRUE)",
    "=_xlfn.BINOM.INV(10,0.3,0)",
    "=_xlfn.BINOM.INV(10,0.3,1)",
    "=_xlfn.BINOM.INV(-1,0.3,0.5)",
    "=_xlfn.BINOM.INV(1000,0.01,0.999)",
    "=_xlfn.CHISQ.DIST(-1,3,TRUE)",
    "=_xlfn.CHISQ.DIST(3,0,TRUE)",
    "=_xlfn.CHISQ.DIST(0,1,TRUE)",
    "=_xlfn.CHISQ.DIST.RT(200,10)",
    "=_xlfn.CHISQ.INV(0,3)",
    "=_xlfn.CHISQ.INV(1,3)",
    "=_xlfn.CHISQ.INV.RT(1,3)",
    "=_xlfn.CHISQ.INV.RT(0,3)",
    "=_xlfn.CHISQ.INV.RT(1E-12,50)",
    "=_xlfn.GAMMA(171.5)",
    "=_xlfn.GAMMA(172)",
    "=_xlfn.GAMMA(-0.5)",
    "=GAMMALN(0)",
    "=GAMMALN(1000)",
    "=_xlfn.GAMMA.DIST(-1,9,2,TRUE)",
    "=_xlfn.GAMMA.DIST(5,0,2,TRUE)",
    "=_xlfn.GAMMA.DIST(0,1,2,FALSE)",
    "=_xlfn.GAMMA.DIST(50,0.5,1,TRUE)",
    "=_xlfn.GAMMA.INV(0,9,2)",
    "=_xlfn.GAMMA.INV(1,9,2)",
    "=_xlfn.GAMMA.INV(0.999,0.1,3)",
    "=_xlfn.BETA.DIST(0.5,0,2,TRUE)",
    "=_xlfn.BETA.DIST(4,8,10,TRUE,1,3)",
    "=_xlfn.BETA.DIST(0.3,2,5,TRUE)",
    "=_xlfn.BETA.DIST(0.3,0.5,0.5,FALSE)",
    "=_xlfn.BETA.DIST(2,8,10,TRUE,3,3)",
    "=_xlfn.BETA.INV(0,8,10)",
    "=_xlfn.BETA.INV(1,8,10,1,3)",
    "=_xlfn.BETA.INV(0.2,0.5,0.5)",
    "=_xlfn.BETA.INV(0.5,2,3,3,1)",
    "=_xlfn.LOGNORM.DIST(0,3.5,1.2,TRUE)",
    "=_xlfn.LOGNORM.DIST(4,3.5,0,TRUE)",
    "=_xlfn.LOGNORM.INV(1,3.5,1.2)",
    "=_xlfn.POISSON.DIST(-1,5,TRUE)",
    "=_xlfn.POISSON.DIST(2,-5,TRUE)",
    "=_xlfn.POISSON.DIST(2.9,5,FALSE)",
    "=_xlfn.POISSON.DIST(0,0,FALSE)",
    "=_xlfn.POISSON.DIST(150,100,TRUE)",
    "=_xlfn.EXPON.DIST(-1,10,TRUE)",
    "=_xlfn.EXPON.DIST(1,0,TRUE)",
    "=_xlfn.F.DIST(-1,6,4,TRUE)",
    "=_xlfn.F.DIST(1,0,4,TRUE)",
    "=_xlfn.F.DIST(2.5,6.8,4.2,TRUE)",
    "=_xlfn.F.DIST.RT(1000,3,30)",
    "=_xlfn.F.INV(0,6,4)",
    "=_xlfn.F.INV(1,6,4)",
    "=_xlfn.F.INV.RT(1,6,4)",
    "=_xlfn.F.INV.RT(1E-9,2,50)",
    "=_xlfn.WEIBULL.DIST(-1,20,100,TRUE)",
    "=_xlfn.WEIBULL.DIST(1,0,100,TRUE)",
    "=_xlfn.WEIBULL.DIST(0,1,2,FALSE)",
    "=WEIBULL(2.5,1E+10,1E-9,TRUE)",
    "=_xlfn.WEIBULL.DIST(0,45322,3,FALSE)",
    "=_xlfn.WEIBULL.DIST(0,0.5,2,FALSE)",
    "=_xlfn.CONFIDENCE.NORM(0,2.5,50)",
    "=_xlfn.CONFIDENCE.NORM(0.05,2.5,0.5)",
    "=_xlfn.CONFIDENCE.T(0.05,1,1)",
    "=_xlfn.CONFIDENCE.T(0.05,1,50.9)",
    "=_xlfn.NEGBINOM.DIST(10,0,0.25,TRUE)",
    "=_xlfn.NEGBINOM.DIST(10,5,1.25,TRUE)",
    "=_xlfn.NEGBINOM.DIST(0,5,0,FALSE)",
    "=_xlfn.NEGBINOM.DIST(3,5,0,TRUE)",
    "=_xlfn.NEGBINOM.DIST(0,5,1,FALSE)",
    "=_xlfn.NEGBINOM.DIST(3,5,1,FALSE)",
    "=NEGBINOMDIST(3,5,1)",
    "=_xlfn.HYPGEOM.DIST(5,4,8,20,TRUE)",
    "=_xlfn.HYPGEOM.DIST(1,30,8,20,TRUE)",
    "=FISHER(1)",
    "=STANDARDIZE(42,40,0)",
    "=_xlfn.GAUSS(-1.5)",
    "=SUM(_xlfn.NORM.S.DIST({-1,0,1},TRUE))",
    "=SUMPRODUCT(_xlfn.POISSON.DIST(Data!A1:A10,3,FALSE))",
    # the hypothesis tests: tails and types, legacy names; ISFORMULA of a formula and of a value
    *(f"=_xlfn.T.TEST(Tt!A2:A10,Tt!B2:B10,{t},{k})" for t in (1, 2) for k in (1, 2, 3)),
    "=TTEST(Tt!A2:A10,Tt!B2:B10,2,3)",
    "=FTEST(Tt!A2:A10,Tt!B2:B10)",
    "=CHITEST(Tt!E2:F4,Tt!G2:H4)",
    "=_xlfn.CHISQ.TEST(Tt!E2:E4,Tt!G2:G4)",
    "=_xlfn.Z.TEST(Tt!I2:I11,4,2)",
    "=ZTEST(Tt!I2:I11,5.5)",
    "=PERCENTRANK(Tt!J2:J11,3.5)",
    "=_xlfn.ISFORMULA(Probes!B1)",
    "=_xlfn.ISFORMULA(Tt!A2)",
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
#: Microsoft's remarks make these #NUM!; LibreOffice returns #VALUE! (its Err:502, "invalid
#: argument") for every argument out of range
NUM_NOT_VALUE = {
    "=_xlfn.GAMMA(0)": "GAMMA: number 0 is #NUM!",
    "=_xlfn.GAMMA(-2)": "GAMMA: a negative integer is #NUM!",
    "=_xlfn.NORM.DIST(1,0,0,TRUE)": "NORM.DIST: standard_dev <= 0 is #NUM!",
    "=_xlfn.NORM.DIST(1,0,-1,FALSE)": "NORM.DIST: standard_dev <= 0 is #NUM!",
    "=_xlfn.NORM.INV(0,0,1)": "NORM.INV: probability <= 0 is #NUM!",
    "=_xlfn.NORM.INV(1,0,1)": "NORM.INV: probability >= 1 is #NUM!",
    "=_xlfn.NORM.INV(0.5,0,0)": "NORM.INV: standard_dev <= 0 is #NUM!",
    "=_xlfn.NORM.S.INV(1.5)": "NORM.S.INV: probability >= 1 is #NUM!",
    "=_xlfn.T.DIST(1.5,0,TRUE)": "T.DIST: deg_freedom < 1 is an error",
    "=_xlfn.T.DIST.2T(-1,10)": "T.DIST.2T: x < 0 is #NUM!",
    "=TDIST(1,10,3)": "TDIST: tails other than 1 or 2 is #NUM!",
    "=TDIST(-1,10,1)": "TDIST: x < 0 is #NUM!",
    "=_xlfn.T.INV(0,10)": "T.INV: probability <= 0 is #NUM!",
    "=_xlfn.T.INV.2T(1.5,10)": "T.INV.2T: probability > 1 is #NUM!",
    "=_xlfn.BINOM.DIST(11,10,0.5,TRUE)": "BINOM.DIST: number_s > trials is #NUM!",
    "=_xlfn.BINOM.DIST(3,10,1.5,TRUE)": "BINOM.DIST: probability_s > 1 is #NUM!",
    "=_xlfn.BINOM.INV(-1,0.3,0.5)": "BINOM.INV: trials < 0 is #NUM!",
    "=_xlfn.CHISQ.DIST(-1,3,TRUE)": "CHISQ.DIST: x < 0 is #NUM!",
    "=_xlfn.CHISQ.DIST(3,0,TRUE)": "CHISQ.DIST: deg_freedom < 1 is #NUM!",
    "=_xlfn.CHISQ.INV(1,3)": "CHISQ.INV: probability >= 1 is #NUM! (the quantile is infinite)",
    "=_xlfn.CHISQ.INV.RT(0,3)": "CHISQ.INV.RT: probability <= 0 is #NUM! (infinite)",
    "=GAMMALN(0)": "GAMMALN: x <= 0 is #NUM!",
    "=_xlfn.GAMMA.DIST(-1,9,2,TRUE)": "GAMMA.DIST: x < 0 is #NUM!",
    "=_xlfn.GAMMA.DIST(5,0,2,TRUE)": "GAMMA.DIST: alpha <= 0 is #NUM!",
    "=_xlfn.GAMMA.INV(1,9,2)": "GAMMA.INV: the quantile of 1 is infinite",
    "=_xlfn.BETA.DIST(0.5,0,2,TRUE)": "BETA.DIST: alpha <= 0 is #NUM!",
    "=_xlfn.BETA.DIST(4,8,10,TRUE,1,3)": "BETA.DIST: x > B is #NUM!",
    "=_xlfn.BETA.DIST(2,8,10,TRUE,3,3)": "BETA.DIST: A = B is #NUM!",
    "=_xlfn.BETA.INV(0.5,2,3,3,1)": "BETA.INV: A >= B is #NUM!",
    "=_xlfn.LOGNORM.DIST(4,3.5,0,TRUE)": "LOGNORM.DIST: standard_dev <= 0 is #NUM!",
    "=_xlfn.LOGNORM.INV(1,3.5,1.2)": "LOGNORM.INV: probability >= 1 is #NUM!",
    "=_xlfn.POISSON.DIST(-1,5,TRUE)": "POISSON.DIST: x < 0 is #NUM!",
    "=_xlfn.POISSON.DIST(2,-5,TRUE)": "POISSON.DIST: mean < 0 is #NUM!",
    "=_xlfn.EXPON.DIST(1,0,TRUE)": "EXPON.DIST: lambda <= 0 is #NUM!",
    "=_xlfn.F.DIST(-1,6,4,TRUE)": "F.DIST: x < 0 is #NUM!",
    "=_xlfn.F.DIST(1,0,4,TRUE)": "F.DIST: deg_freedom1 < 1 is #NUM!",
    "=_xlfn.WEIBULL.DIST(-1,20,100,TRUE)": "WEIBULL.DIST: x < 0 is #NUM!",
    "=_xlfn.WEIBULL.DIST(1,0,100,TRUE)": "WEIBULL.DIST: alpha <= 0 is #NUM!",
    "=_xlfn.CONFIDENCE.NORM(0,2.5,50)": "CONFIDENCE.NORM: alpha <= 0 is #NUM!",
    "=_xlfn.CONFIDENCE.NORM(0.05,2.5,0.5)": "CONFIDENCE.NORM: size < 1 is #NUM!",
    "=_xlfn.NEGBINOM.DIST(10,0,0.25,TRUE)": "NEGBINOM.DIST: number_s < 1 is #NUM!",
    "=_xlfn.NEGBINOM.DIST(10,5,1.25,TRUE)": "NEGBINOM.DIST: probability_s > 1 is #NUM!",
    "=_xlfn.HYPGEOM.DIST(1,30,8,20,TRUE)": "HYPGEOM.DIST: number_sample > number_pop is #NUM!",
    "=FISHER(1)": "FISHER: x >= 1 is #NUM!",
    "=SUMPRODUCT(_xlfn.POISSON.DIST(Data!A1:A10,3,FALSE))": "POISSON.DIST: x < 0 (-2) is #NUM!",
}

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
    # the distributions
    # LibreOffice 7.4 has no BINOM.DIST.RANGE (#NAME?): the exact sums of binomial terms
    "=_xlfn.BINOM.DIST.RANGE(60,0.75,48)": (binomial(60, 0.75, 48, 48), "exact C(60,48) p^48 q^12"),
    "=_xlfn.BINOM.DIST.RANGE(60,0.75,45,50)": (binomial(60, 0.75, 45, 50), "exact sum, 45..50"),
    **{f: ("#NUM!", f"Microsoft's remarks: {why}; LibreOffice: #VALUE!") for f, why in NUM_NOT_VALUE.items()},
    "=_xlfn.BETA.INV(0,8,10)": ("#NUM!", "Microsoft: probability <= 0 is #NUM! (LibreOffice: 0)"),
    "=_xlfn.LOGNORM.DIST(0,3.5,1.2,TRUE)": ("#NUM!", "Microsoft: x <= 0 is #NUM! (LibreOffice: 0)"),
    "=_xlfn.EXPON.DIST(-1,10,TRUE)": ("#NUM!", "Microsoft: x < 0 is #NUM! (LibreOffice: 0)"),
    "=STANDARDIZE(42,40,0)": ("#NUM!", "Microsoft: standard_dev <= 0 is #NUM! (LibreOffice #DIV/0!)"),
    "=_xlfn.POISSON.DIST(0,0,FALSE)": (1.0, "Microsoft: only mean < 0 is #NUM!; P(X=0) is 1"),
    "=_xlfn.F.INV(0,6,4)": (0.0, "Microsoft: only probability < 0 or > 1 is #NUM!; F(0) is 0"),
    "=_xlfn.F.INV(1,6,4)": ("#NUM!", "the quantile of 1 is infinite (LibreOffice: 1.3e162)"),
    # Excel-saved, against Microsoft's remarks (formulas' test.xlsx; tests/recalc/test_excel_saved_rules.py)
    "=_xlfn.HYPGEOM.DIST(5,4,8,20,TRUE)": (
        1.0,
        "sample_s above min(number_sample, population_s): the cumulative is 1 (STATISTICAL!AI54 "
        "HYPGEOM.DIST(5,3,2,30,1) cached 1), the remarks' #NUM! is the density's; LibreOffice #VALUE!",
    ),
    **{
        f: (
            "#NUM!",
            "probability_s 0 (STATISTICAL!X72 NEGBINOM.DIST(I72,I72,,1), a blank probability_s, cached "
            "#NUM!); LibreOffice the limit of no success (ISO/IEC 29500 Part 4's NEGBINOMDIST)",
        )
        for f in ("=_xlfn.NEGBINOM.DIST(0,5,0,FALSE)", "=_xlfn.NEGBINOM.DIST(3,5,0,TRUE)")
    },
    "=_xlfn.BETA.INV(1,8,10,1,3)": (
        "#NUM!",
        "probability 1 (STATISTICAL!AO9, BETA.INV(TRUE,3,2) in an array formula, cached #NUM!); "
        "LibreOffice B",
    ),
    # the hypothesis tests and PERCENTRANK (LibreOffice 7.4's answers measured 2026-12-02).
    # PERCENTRANK truncates to significance digits (the pages' examples: 0.555, 0.666, 0.3);
    # LibreOffice rounds. The errors are those each page names ("If tails is any value other than
    # 1 or 2, T.TEST returns the #NUM! error value", ...); LibreOffice gives #VALUE! for all of them.
    **{
        f: (
            excel,
            f"Microsoft's {f[7:].split('(')[0]} page truncates to the significance digits; LibreOffice rounds: {lo}",
        )
        for f, excel, lo in (
            ("=_xlfn.PERCENTRANK.INC(Tt!J2:J11,4)", 0.555, 0.556),
            ("=_xlfn.PERCENTRANK.INC(Tt!J2:J11,8)", 0.666, 0.667),
            ("=_xlfn.PERCENTRANK.EXC(Tt!K2:K10,5.43,1)", 0.3, 0.4),
            ("=_xlfn.PERCENTRANK.INC(Tt!J2:J11,5,1)", 0.5, 0.6),
            ("=_xlfn.PERCENTRANK.EXC(Tt!J2:J11,1)", 0.09, 0.0909),
        )
    },
    **{
        f: (excel, f"Microsoft's {f[7:].split('(')[0]} page: {why}; LibreOffice: #VALUE!")
        for f, excel, why in (
            ("=_xlfn.T.TEST(Tt!A2:A10,Tt!B2:B10,3,1)", "#NUM!", "tails other than 1 or 2 is #NUM!"),
            ("=_xlfn.T.TEST(Tt!A2:A10,Tt!B2:B10,2,4)", "#NUM!", "type other than 1, 2 or 3 is #NUM!"),
            ("=_xlfn.T.TEST(Tt!A2:A10,Tt!B2:B9,2,1)", "#N/A", "paired arrays of different sizes are #N/A"),
            ("=_xlfn.F.TEST(Tt!A2:A10,Tt!M2:M2)", "#DIV/0!", "fewer than two points is #DIV/0!"),
            ("=_xlfn.CHISQ.TEST(Tt!E2:F4,Tt!G2:G4)", "#N/A", "ranges of different shapes are #N/A"),
            ("=_xlfn.PERCENTRANK.INC(Tt!J2:J11,5,0)", "#NUM!", "significance < 1 is #NUM!"),
            ("=_xlfn.MODE.MULT(1,2,3)", "#N/A", "no duplicate data points is #N/A"),
        )
    },
}
PROBES = [p for p in PROBES if p not in EXCEL_NOT_LO]  # a probe listed there too: one probe cell


class TestStatistical(FamilyProbes):
    SET = "statistical"
    MICROSOFT = MICROSOFT
    PROBES = PROBES
    EXCEL_NOT_LO = EXCEL_NOT_LO
    #: Microsoft's page is silent: the engine's answer and LibreOffice's, both pinned (listed
    #: undecided in docs/recalc-excel-rules.md)
    UNDECIDED: ClassVar[dict[str, tuple[object, object]]] = {
        "=_xlfn.PERCENTRANK.INC(Tt!J2:J11,14)": ("#N/A", "#VALUE!")
    }
    SHEETS: ClassVar[dict[str, list[list[object]]]] = {"St": _rows(COLUMNS), "Tt": _tt_rows()}


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


def test_normal_tails_are_symmetric_and_inverse():
    for z in (-37.0, -8.5, -1.2, 0.0, 0.3, 6.0):
        assert math.isclose(s.norm_cdf(z) + s.norm_cdf(-z), 1.0, rel_tol=1e-15)
        p = s.norm_cdf(-abs(z))  # the lower tail: p carries all of z's digits there
        assert math.isclose(s.norm_inv(p), -abs(z), rel_tol=1e-12, abs_tol=1e-12)


@settings(max_examples=200, deadline=None)
@given(
    a=st.floats(0.05, 200.0),
    b=st.floats(0.05, 200.0),
    x=st.floats(1e-6, 1 - 1e-6),
)
def test_incomplete_beta_identities(a, b, x):
    """I_x(a, b) + I_{1-x}(b, a) = 1, whatever the side the continued fraction is taken on."""
    i, j = s.beta_i(a, b, x)
    k, _ = s.beta_i(b, a, 1.0 - x)
    assert math.isclose(i + j, 1.0, rel_tol=1e-12)
    assert math.isclose(i + k, 1.0, rel_tol=1e-9, abs_tol=1e-12)


@settings(max_examples=200, deadline=None)
@given(a=st.floats(0.05, 500.0), x=st.floats(1e-6, 1000.0))
def test_incomplete_gamma_identities(a, x):
    """P(a, x) + Q(a, x) = 1 and P(a + 1, x) = P(a, x) - x^a e^-x / Gamma(a + 1) (DLMF 8.8.5)."""
    p, q = s.gamma_pq(a, x)
    assert math.isclose(p + q, 1.0, rel_tol=1e-12)
    p1, _ = s.gamma_pq(a + 1.0, x)
    term = math.exp(a * math.log(x) - x - math.lgamma(a + 1.0))
    assert math.isclose(p1, p - term, rel_tol=1e-8, abs_tol=1e-13)
