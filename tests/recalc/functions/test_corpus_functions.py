"""Functions added for the Excel-saved corpus (issue 23): Microsoft's examples and LibreOffice.

The Excel-saved corpus (tests/data/excel_corpus, tests/recalc/test_excel_corpus.py) had cells the engine
left as stored because it lacked these functions: ACOSH, ASINH, ATANH, FACT, COMBIN, SUMSQ,
SUMX2MY2, SUMX2PY2, SUMXMY2 (Math and trigonometry), DEVSQ, AVEDEV, COVARIANCE.P, COVARIANCE.S,
COVAR (Statistical), DAYS360 (Date
and time), DELTA (Engineering), ISODD, ISEVEN, ISREF, ERROR.TYPE (Information) and DOLLAR (Text).
Each is checked here against the examples of its Microsoft page (the URL from the function table,
workbook/recalc/functions/excel_functions.tsv) and, with further edge cases, against LibreOffice's
recorded answers (tests/family_probes.py); the corpus test checks each against Excel's own cached
values in the corpus files.
"""

from __future__ import annotations

from family_probes import FamilyProbes

from gputco.workbook.recalc.functions import excel_functions

_TABLE = excel_functions()


def ms(name: str) -> str:
    return _TABLE[name].url


#: the examples of Microsoft's pages, as the pages show the results
MICROSOFT = [
    ("=ACOSH(1)", "0", ms("ACOSH")),
    ("=ACOSH(10)", "2.9932228", ms("ACOSH")),
    ("=ASINH(-2.5)", "-1.647231146", ms("ASINH")),
    ("=ASINH(10)", "2.99822295", ms("ASINH")),
    ("=ATANH(0.76159416)", "1.00000001", ms("ATANH")),
    ("=ATANH(-0.1)", "-0.100335348", ms("ATANH")),
    ("=FACT(5)", "120", ms("FACT")),
    ("=FACT(1.9)", "1", ms("FACT")),
    ("=FACT(0)", "1", ms("FACT")),
    ("=FACT(-1)", "#NUM!", ms("FACT")),
    ("=FACT(1)", "1", ms("FACT")),
    ("=COMBIN(8,2)", "28", ms("COMBIN")),
    ("=SUMSQ(3,4)", "25", ms("SUMSQ")),
    ("=SUMX2MY2({2,3,9,1,8,7,5},{6,5,11,7,5,4,4})", "-55", ms("SUMX2MY2")),
    ("=SUMX2PY2({2,3,9,1,8,7,5},{6,5,11,7,5,4,4})", "521", ms("SUMX2PY2")),
    ("=SUMXMY2({2,3,9,1,8,7,5},{6,5,11,7,5,4,4})", "79", ms("SUMXMY2")),
    ("=DEVSQ({4,5,8,7,11,4,3})", "48", ms("DEVSQ")),
    ("=AVEDEV({4,5,6,7,5,4,3})", "1.020408163", ms("AVEDEV")),
    # the page's dates: 1-Jan-11, 30-Jan-11, 1-Feb-11, 31-Dec-11
    ("=DAYS360(DATE(2011,1,30),DATE(2011,2,1))", "1", ms("DAYS360")),
    ("=DAYS360(DATE(2011,1,1),DATE(2011,12,31))", "360", ms("DAYS360")),
    ("=DAYS360(DATE(2011,1,1),DATE(2011,2,1))", "30", ms("DAYS360")),
    ("=DELTA(5,4)", "0", ms("DELTA")),
    ("=DELTA(5,5)", "1", ms("DELTA")),
    ("=DELTA(0.5,0)", "0", ms("DELTA")),
    ("=ISEVEN(-1)", False, ms("ISEVEN")),
    ("=ISEVEN(2.5)", True, ms("ISEVEN")),
    ("=ISEVEN(5)", False, ms("ISEVEN")),
    ("=ISODD(-1)", True, ms("ISODD")),
    ("=ISODD(2.5)", False, ms("ISODD")),
    ("=ISODD(5)", True, ms("ISODD")),
    # the page's table of error values and their numbers
    ("=ERROR.TYPE(#NULL!)", "1", ms("ERROR.TYPE")),
    ("=ERROR.TYPE(1/0)", "2", ms("ERROR.TYPE")),
    ('=ERROR.TYPE(1+"a")', "3", ms("ERROR.TYPE")),
    ("=ERROR.TYPE(#REF!)", "4", ms("ERROR.TYPE")),
    ("=ERROR.TYPE(#NUM!)", "6", ms("ERROR.TYPE")),
    ("=ERROR.TYPE(NA())", "7", ms("ERROR.TYPE")),
    ("=ERROR.TYPE(1)", "#N/A", ms("ERROR.TYPE")),
    ("=_xlfn.COVARIANCE.P({3,2,4,5,6},{9,7,12,15,17})", "5.2", ms("COVARIANCE.P")),
    ("=COVAR({3,2,4,5,6},{9,7,12,15,17})", "5.2", ms("COVAR")),
    ("=_xlfn.COVARIANCE.S({2,4,8},{5,11,12})", "9.666666667", ms("COVARIANCE.S")),
    ("=DOLLAR(1234.567,2)", "$1,234.57", ms("DOLLAR")),
    ("=DOLLAR(1234.567,-2)", "$1,200", ms("DOLLAR")),
    ("=DOLLAR(-1234.567,-2)", "($1,200)", ms("DOLLAR")),
    ("=DOLLAR(-0.123,4)", "($0.1230)", ms("DOLLAR")),
    ("=DOLLAR(99.888)", "$99.89", ms("DOLLAR")),
]

#: edge cases, compared with LibreOffice (the shapes of the corpus's cells among them)
PROBES = [
    "=ACOSH(0.5)",
    "=ACOSH(Data!A1)",
    "=ATANH(1)",
    "=ATANH(-1)",
    '=ASINH("1")',
    '=ASINH("")',
    "=ASINH(Data!B1)",
    "=FACT(170)",
    "=FACT(171)",
    '=FACT("3")',
    "=COMBIN(10,0)",
    "=COMBIN(4,5)",
    "=COMBIN(-1,0)",
    "=COMBIN(10.9,2.9)",
    "=COMBIN(19,7)",
    "=SUMSQ(Data!A1:A10)",
    "=SUMSQ(Data!B1:B5)",
    '=SUMSQ("2",TRUE)',
    "=SUMSQ(Data!B6)",
    "=SUMXMY2({1,2},{1,2,3})",
    '=SUMX2MY2({"a",1},{2,3})',
    "=SUMXMY2({1;2},{3,4})",
    "=SUMXMY2(2,4)",
    "=SUMX2PY2(Data!A1:A4,Data!C1:C4)",
    "=SUMX2PY2(Data!B1:B3,Data!B1:B3)",
    "=SUMXMY2(Data!A1:A3,Data!B6:B8)",
    "=DEVSQ(Data!A1:A10)",
    '=DEVSQ("1","2",2)',
    "=DEVSQ(Data!B1)",
    "=AVEDEV(Data!A1:A10)",
    "=AVEDEV(TRUE,FALSE)",
    "=AVEDEV(Data!B1:B2)",
    "=DAYS360(DATE(2011,2,28),DATE(2011,3,31))",
    "=DAYS360(DATE(2011,1,31),DATE(2011,3,31),TRUE)",
    "=DAYS360(DATE(2011,3,31),DATE(2011,1,31))",
    "=DAYS360(DATE(2012,2,29),DATE(2012,3,1))",
    "=DAYS360(DATE(2011,1,30),DATE(2011,2,28))",
    '=DAYS360("2011-01-01","2011-06-15")',
    "=DELTA(1)",
    '=DELTA("2",2)',
    "=ISEVEN(0)",
    '=ISEVEN("x")',
    "=ISODD(Data!A1)",
    "=ISREF(Data!A1)",
    "=ISREF(Data!A1:B2)",
    '=ISREF("A1")',
    "=ISREF(1)",
    "=ISREF(INDEX(Data!A1:A3,2))",
    "=ERROR.TYPE(Data!B6)",
    "=ERROR.TYPE(Data!B7)",
    '=ERROR.TYPE("x")',
    "=_xlfn.COVARIANCE.P(Data!A1:A5,Data!C1:C5)",
    "=_xlfn.COVARIANCE.S(Data!A1:A5,Data!B1:B5)",
    "=_xlfn.COVARIANCE.S({1},{2})",
    "=_xlfn.COVARIANCE.P({1,2},{1,2,3})",
    "=_xlfn.COVARIANCE.P(Data!B1:B3,Data!B1:B3)",
    "=DOLLAR(0)",
    "=DOLLAR(1234567.891,1)",
    "=DOLLAR(5,0)",
    "=DOLLAR(-1)",
    '=DOLLAR("2.5")',
    "=DOLLAR(Data!B1)",
]


#: the Excel-saved file that decides where Microsoft's pages are silent (tests/data/excel_corpus)
POI = "POI's FormulaEvalTestData_Copy.xlsx (saved by Excel)"

#: where LibreOffice differs from Excel: Excel's result and its source
EXCEL_NOT_LO = {
    **{
        f: ("#NUM!", f"Microsoft's {name} page: {why} is #NUM!; LibreOffice: #VALUE!")
        for f, name, why in (
            ("=FACT(-1)", "FACT", "a negative number"),
            ("=COMBIN(4,5)", "COMBIN", "number < number_chosen"),
            ("=COMBIN(-1,0)", "COMBIN", "number < 0"),
        )
    },
    **{
        f: ("#NUM!", f"{POI}: {where}; LibreOffice: #VALUE!")
        for f, where in (
            ("=ACOSH(0.5)", "ACOSH below 1 is #NUM! (EverythingTests!E108)"),
            ("=ATANH(1)", "ATANH outside (-1, 1) is #NUM! (EverythingTests!F172)"),
            ("=ATANH(-1)", "ATANH outside (-1, 1) is #NUM! (EverythingTests!F172)"),
        )
    },
    **{
        f: (err, f"Microsoft's {page} page: {why} is {err}; LibreOffice: #VALUE!")
        for f, err, page, why in (
            ("=_xlfn.COVARIANCE.S(Data!A1:A5,Data!B1:B5)", "#DIV/0!", "COVARIANCE.S", "one data point"),
            ("=_xlfn.COVARIANCE.S({1},{2})", "#DIV/0!", "COVARIANCE.S", "one data point"),
            (
                "=_xlfn.COVARIANCE.P({1,2},{1,2,3})",
                "#N/A",
                "COVARIANCE.P",
                "a different number of data points",
            ),
            ("=_xlfn.COVARIANCE.P(Data!B1:B3,Data!B1:B3)", "#DIV/0!", "COVARIANCE.P", "an empty array"),
        )
    },
    "=FACT(171)": (
        "#NUM!",
        "171! is past Excel's largest number, 1.79769313486232E+308; LibreOffice #VALUE!",
    ),
    "=ERROR.TYPE(#NULL!)": ("1", "Microsoft's ERROR.TYPE page: #NULL! is 1; LibreOffice reads it as #N/A"),
    '=SUMSQ("2",TRUE)': (
        "5",
        "Microsoft's SUMSQ page: logical values and numbers as text typed into the arguments count",
    ),
    "=SUMXMY2({1,2},{1,2,3})": (
        "#N/A",
        "Microsoft's SUMXMY2 page: arrays with a different number of values are #N/A",
    ),
    "=SUMXMY2({1;2},{3,4})": ("8", f"{POI}: same count, any shape (EverythingTests!H1336)"),
    "=SUMX2PY2(Data!B1:B3,Data!B1:B3)": ("#DIV/0!", f"{POI}: no pair of numbers (EverythingTests!F1340)"),
    '=DEVSQ("1","2",2)': ("0.6666666667", f"{POI}: number texts typed in count (EverythingTests!I392)"),
    "=DEVSQ(Data!B1)": ("#NUM!", f"{POI}: no numbers (EverythingTests!H392); LibreOffice #DIV/0!"),
    **{
        f: (shown, "Microsoft's DOLLAR page: negatives in parentheses, ($#,##0.00); LibreOffice: -$")
        for f, shown in (
            ("=DOLLAR(-1234.567,-2)", "($1,200)"),
            ("=DOLLAR(-0.123,4)", "($0.1230)"),
            ("=DOLLAR(-1)", "($1.00)"),
        )
    },
}


class TestCorpusFunctions(FamilyProbes):
    SET = "corpus_functions"
    MICROSOFT = MICROSOFT
    PROBES = PROBES
    EXCEL_NOT_LO = EXCEL_NOT_LO
