"""The Math/trig and Engineering functions added late (functions/math.py, "more math", and
functions/engineering.py): reciprocal trig, ROMAN/ARABIC, BASE/DECIMAL, COMBINA, FACTDOUBLE,
GCD/LCM/MULTINOMIAL, MUNIT, QUOTIENT, SERIESSUM, SQRTPI, the BIT functions and GESTEP.

Checked three ways: Microsoft's examples and LibreOffice's recorded answers (tests/family_probes.py),
the values Excel cached in an Excel-saved workbook the engine had not seen (vinci1it2000/formulas
``test/test_files/test.xlsx``, rebuilt cell by cell as tests/recalc/test_excel_saved_rules.py
does), and identities (GCD x LCM, ROMAN then ARABIC, BASE then DECIMAL, COT = 1/TAN).
"""

from __future__ import annotations

import math
import re

import openpyxl
import pytest
from family_probes import FamilyProbes
from hypothesis import given, settings
from hypothesis import strategies as st
from recalc_book import ms

from gputco.workbook.recalc import XlError, evaluate_workbook
from gputco.workbook.recalc.functions import math as mm

MICROSOFT = [
    ("=_xlfn.ACOT(2)", "0.4636", ms("acot")),
    ("=_xlfn.ACOTH(6)", "0.168", ms("acoth")),
    ("=_xlfn.COT(30)", "-0.156", ms("cot")),
    ("=_xlfn.COT(45)", "0.617", ms("cot")),
    ("=_xlfn.COTH(2)", "1.037", ms("coth")),
    ("=_xlfn.CSC(15)", "1.538", ms("csc")),
    ("=_xlfn.CSCH(1.5)", "0.4696", ms("csch")),
    ("=_xlfn.SEC(45)", "1.90359", ms("sec")),
    ("=_xlfn.SEC(30)", "6.48292", ms("sec")),
    ("=_xlfn.SECH(45)", "5.73E-20", ms("sech")),
    ("=_xlfn.SECH(30)", "1.87E-13", ms("sech")),
    ('=_xlfn.ARABIC("LVII")', "57", ms("arabic")),
    ('=_xlfn.ARABIC("mcmxii")', "1912", ms("arabic")),
    ('=_xlfn.ARABIC("mxmvii")', "1997", ms("arabic")),
    ("=ROMAN(499,0)", "CDXCIX", ms("roman")),
    ("=ROMAN(499,1)", "LDVLIV", ms("roman")),
    ("=ROMAN(499,2)", "XDIX", ms("roman")),
    ("=ROMAN(499,3)", "VDIV", ms("roman")),
    ("=ROMAN(499,4)", "ID", ms("roman")),
    ("=_xlfn.BASE(7,2)", "111", ms("base")),
    ("=_xlfn.BASE(100,16)", "64", ms("base")),
    ("=_xlfn.BASE(15,2,10)", "0000001111", ms("base")),
    ("=_xlfn.BASE(16,2)", "10000", ms("base")),
    ("=_xlfn.BASE(16,2,8)", "00010000", ms("base")),
    ('=_xlfn.DECIMAL("FF",16)', "255", ms("decimal")),
    ("=_xlfn.DECIMAL(111,2)", "7", ms("decimal")),
    ('=_xlfn.DECIMAL("zap",36)', "45745", ms("decimal")),
    ("=_xlfn.COMBINA(4,3)", "20", ms("combina")),
    ("=_xlfn.COMBINA(10,3)", "220", ms("combina")),
    ("=FACTDOUBLE(6)", "48", ms("factdouble")),
    ("=FACTDOUBLE(7)", "105", ms("factdouble")),
    ("=GCD(5, 2)", "1", ms("gcd")),
    ("=GCD(24, 36)", "12", ms("gcd")),
    ("=GCD(7, 1)", "1", ms("gcd")),
    ("=GCD(5, 0)", "5", ms("gcd")),
    ("=LCM(5, 2)", "10", ms("lcm")),
    ("=LCM(24, 36)", "72", ms("lcm")),
    ("=MULTINOMIAL(2, 3, 4)", "1260", ms("multinomial")),
    ("=QUOTIENT(5, 2)", "2", ms("quotient")),
    ("=QUOTIENT(4.5, 3.1)", "1", ms("quotient")),
    ("=QUOTIENT(-10, 3)", "-3", ms("quotient")),
    # the page's coefficients "as numbers" (A4:A7), x = PI()/4 (A3)
    ("=SERIESSUM(PI()/4,0,2,{1,-0.5,0.041666667,-0.001388889})", "0.707103", ms("seriessum")),
    ("=SQRTPI(1)", "1.772454", ms("sqrtpi")),
    ("=SQRTPI(2)", "2.506628", ms("sqrtpi")),
    ("=_xlfn.BITAND(1,5)", "1", ms("bitand")),
    ("=_xlfn.BITAND(13,25)", "9", ms("bitand")),
    ("=_xlfn.BITOR(23,10)", "31", ms("bitor")),
    ("=_xlfn.BITXOR(5,3)", "6", ms("bitxor")),
    ("=_xlfn.BITLSHIFT(4,2)", "16", ms("bitlshift")),
    ("=_xlfn.BITRSHIFT(13,2)", "3", ms("bitrshift")),
    ("=GESTEP(5, 4)", "1", ms("gestep")),
    ("=GESTEP(5, 5)", "1", ms("gestep")),
    ("=GESTEP(-4, -5)", "1", ms("gestep")),
    ("=GESTEP(-1)", "0", ms("gestep")),
]
PROBES = [
    # reciprocal trig: poles, signs, the hyperbolic ones far out, the 2^27 bound
    "=_xlfn.COT(0)",
    "=_xlfn.CSC(0)",
    "=_xlfn.COTH(0)",
    "=_xlfn.CSCH(0)",
    "=_xlfn.SEC(0)",
    "=_xlfn.SECH(0)",
    "=_xlfn.COT(-2.5)",
    "=_xlfn.COTH(-0.5)",
    "=_xlfn.CSCH(-3)",
    "=_xlfn.SECH(800)",
    "=_xlfn.COTH(800)",
    "=_xlfn.CSC(2^27-1)",
    "=_xlfn.COT(2^27)",
    "=_xlfn.SEC(-2^27)",
    "=_xlfn.CSCH(2^27)",
    '=_xlfn.CSC("x")',
    "=_xlfn.COT(TRUE)",
    "=_xlfn.ACOT(-3)",
    "=_xlfn.ACOT(0)",
    "=_xlfn.ACOT(TRUE)",
    "=_xlfn.ACOTH(-1.5)",
    "=_xlfn.ACOTH(1)",
    "=_xlfn.ACOTH(0.5)",
    # ROMAN and ARABIC
    "=ROMAN(0)",
    "=ROMAN(3999)",
    "=ROMAN(4000)",
    "=ROMAN(-1)",
    "=ROMAN(1999.9,4)",
    "=ROMAN(1999,TRUE)",
    "=ROMAN(1999,FALSE)",
    "=ROMAN(1999,5)",
    "=ROMAN(1999,-1)",
    "=ROMAN(1999,1.5)",
    "=ROMAN(45,1)",
    "=ROMAN(95,1)",
    "=ROMAN(3999,2)",
    '=ROMAN("12")',
    '=ROMAN("x")',
    '=_xlfn.ARABIC("")',
    '=_xlfn.ARABIC(" -MMXI ")',
    '=_xlfn.ARABIC("IL")',
    '=_xlfn.ARABIC("IIIIIIV")',
    '=_xlfn.ARABIC("IILmIIC")',
    '=_xlfn.ARABIC("Vh")',
    "=_xlfn.ARABIC(5)",
    "=_xlfn.ARABIC(TRUE)",
    "=_xlfn.ARABIC(Data!B3)",
    "=_xlfn.ARABIC(ROMAN(3888))",
    # BASE and DECIMAL
    "=_xlfn.BASE(255,16)",
    "=_xlfn.BASE(0,2)",
    "=_xlfn.BASE(35,36)",
    "=_xlfn.BASE(-1,2)",
    "=_xlfn.BASE(10,1)",
    "=_xlfn.BASE(10,37)",
    "=_xlfn.BASE(10.9,2.9)",
    "=_xlfn.BASE(2^53,2)",
    "=_xlfn.BASE(2^53-1,36)",
    "=_xlfn.BASE(5,2,255)",
    "=_xlfn.BASE(5,2,256)",
    "=_xlfn.BASE(16,2,3)",
    '=_xlfn.BASE("x",2)',
    '=_xlfn.BASE("12",10)',
    '=_xlfn.DECIMAL("ff",16)',
    '=_xlfn.DECIMAL("",2)',
    '=_xlfn.DECIMAL("12",2)',
    '=_xlfn.DECIMAL("FF",16.6)',
    '=_xlfn.DECIMAL("FF",37)',
    '=_xlfn.DECIMAL("FF",1)',
    '=_xlfn.DECIMAL("1.5",10)',
    "=_xlfn.DECIMAL(111,2.5)",
    '=_xlfn.DECIMAL("FF","x")',
    '=_xlfn.DECIMAL("ZZZZZZZZZZ",36)',
    # COMBINA, FACTDOUBLE, MULTINOMIAL, QUOTIENT, SQRTPI
    "=_xlfn.COMBINA(0,0)",
    "=_xlfn.COMBINA(5.9,2.9)",
    "=_xlfn.COMBINA(-1,2)",
    "=_xlfn.COMBINA(1,0)",
    "=_xlfn.COMBINA(100,50)",
    "=_xlfn.COMBINA(1000,500)",
    "=FACTDOUBLE(0)",
    "=FACTDOUBLE(1)",
    "=FACTDOUBLE(5.9)",
    "=FACTDOUBLE(300)",
    '=FACTDOUBLE("2.3")',
    "=FACTDOUBLE(-1.1)",
    "=MULTINOMIAL(0)",
    "=MULTINOMIAL(5)",
    "=MULTINOMIAL(2.9,3.9)",
    "=MULTINOMIAL(-1,2)",
    "=MULTINOMIAL(Data!C1:C2)",
    "=MULTINOMIAL(100,100)",
    "=MULTINOMIAL(170,1)",
    "=MULTINOMIAL({1,2;3,4})",
    "=QUOTIENT(5,0)",
    "=QUOTIENT(-7.5,2)",
    "=QUOTIENT(1E+20,3)",
    '=QUOTIENT("9",2)',
    "=QUOTIENT(0,-3)",
    "=SQRTPI(0)",
    "=SQRTPI(-1)",
    "=SQRTPI(2.3)",
    # GCD and LCM: lists of numbers, references included
    "=GCD(0)",
    "=GCD(5.7)",
    "=GCD(15.7,63)",
    "=GCD(-0.4)",
    "=GCD(Data!A1:A3)",
    "=GCD(Data!C1:C5)",
    "=GCD(Data!C1:C5,15)",
    "=GCD({12,18},8)",
    "=GCD(2^53,2)",
    '=GCD("6",4)',
    "=GCD(Data!B1)",
    "=GCD(Data!B6,4)",
    "=GCD(5,)",
    "=GCD(Data!B3)",
    "=GCD(TRUE,4)",
    "=LCM(Data!B3,2)",
    "=FACTDOUBLE(-1)",
    "=FACTDOUBLE(TRUE)",
    "=SQRTPI(TRUE)",
    "=GESTEP(TRUE)",
    "=_xlfn.MUNIT(TRUE)",
    "=LCM(0,5)",
    "=LCM(Data!C1:C5)",
    "=LCM(2^26,2^27+1)",
    "=LCM(3.9,4.9)",
    "=LCM(-1,2)",
    "=LCM(1,2,3,4,5,6,7,8,9,10)",
    # SERIESSUM
    "=SERIESSUM(2,1,1,{1,2,3})",
    "=SERIESSUM(2,0,1,Data!C1:C3)",
    '=SERIESSUM("x",1,1,{1})',
    "=SERIESSUM(0.5,2,-1,{1,1,1})",
    # MUNIT
    "=SUM(_xlfn.MUNIT(3))",
    "=INDEX(_xlfn.MUNIT(3),2,2)",
    "=INDEX(_xlfn.MUNIT(3),1,2)",
    "=ROWS(_xlfn.MUNIT(4))",
    "=_xlfn.MUNIT(0)",
    "=_xlfn.MUNIT(2.9)",
    "=_xlfn.MUNIT(-1)",
    "=SUM(_xlfn.MUNIT({1,2;3,4}))",
    # the BIT functions
    "=_xlfn.BITAND(2^48,1)",
    "=_xlfn.BITAND(2^48-1,2^47)",
    "=_xlfn.BITAND(1.5,1)",
    "=_xlfn.BITAND(-1,1)",
    '=_xlfn.BITAND("12",10)',
    "=_xlfn.BITOR(0,0)",
    "=_xlfn.BITXOR(2^48-1,1)",
    "=_xlfn.BITLSHIFT(1,47)",
    "=_xlfn.BITLSHIFT(1,54)",
    "=_xlfn.BITLSHIFT(99,-1)",
    "=_xlfn.BITLSHIFT(25,2.3)",
    "=_xlfn.BITRSHIFT(25,2.3)",
    "=_xlfn.BITRSHIFT(1,-3)",
    "=_xlfn.BITRSHIFT(13,-54)",
    "=_xlfn.BITRSHIFT(2^48,1)",
    "=_xlfn.BITRSHIFT(2^48-1,53)",
    # GESTEP
    '=GESTEP(25,"30.2")',
    '=GESTEP(2.3,"a")',
    "=GESTEP(Data!B3)",
    "=GESTEP(0)",
]
SAVED = "Excel-saved test.xlsx (vinci1it2000/formulas test/test_files/test.xlsx)"
NUM_BOUND = "Microsoft's {} page: outside the constraints is #NUM!"
EXCEL_NOT_LO: dict[str, tuple[object, str]] = {
    **{
        f"=_xlfn.{f}(0)": ("#DIV/0!", f"Microsoft's COT page: COT(0) is #DIV/0!; {SAVED} MATH & TRIG!{cell}")
        for f, cell in (("COT", "R22"), ("COTH", "R23"), ("CSC", "R24"), ("CSCH", "R25"))
    },  # LibreOffice #NUM!
    **{
        f: ("#NUM!", f"Microsoft's {f[7:10]} page: the absolute value of Number must be less than 2^27")
        for f in ("=_xlfn.COT(2^27)", "=_xlfn.SEC(-2^27)", "=_xlfn.CSCH(2^27)")
    },  # LibreOffice computes them
    "=_xlfn.ACOTH(1)": ("#NUM!", f"{SAVED} MATH & TRIG!S7, ACOTH of 1 (LibreOffice #VALUE!)"),
    "=_xlfn.ACOTH(0.5)": (
        "#NUM!",
        "Microsoft's ACOTH page: Number less than 1 is #NUM! (LibreOffice #VALUE!)",
    ),
    "=ROMAN(1999,TRUE)": ("MCMXCIX", f"Microsoft's ROMAN page: TRUE is Classic; {SAVED} MATH & TRIG!Y58"),
    "=ROMAN(1999,FALSE)": ("MIM", "Microsoft's ROMAN page: FALSE is Simplified (LibreOffice: classic)"),
    '=_xlfn.ARABIC(" -MMXI ")': (
        -2011.0,
        "Microsoft's ARABIC page: leading and trailing spaces are ignored, a negative numeral is "
        "supported (LibreOffice #VALUE!)",
    ),
    '=_xlfn.ARABIC("IIIIIIV")': (-1.0, f"{SAVED} MATH & TRIG!T9 (LibreOffice #VALUE!)"),
    '=_xlfn.ARABIC("IILmIIC")': (1046.0, f"{SAVED} MATH & TRIG!V9 (LibreOffice #VALUE!)"),
    **{
        f: ("#NUM!", NUM_BOUND.format("BASE") + " (number >= 0 and < 2^53, radix 2..36, min_length <= 255)")
        for f in ("=_xlfn.BASE(-1,2)", "=_xlfn.BASE(10,1)", "=_xlfn.BASE(10,37)", "=_xlfn.BASE(2^53,2)")
    },  # LibreOffice #VALUE!, or the digits of 2^53
    "=_xlfn.BASE(5,2,256)": ("#NUM!", "Microsoft's BASE page: the maximum Min_length is 255"),
    '=_xlfn.DECIMAL("12",2)': ("#NUM!", f"{SAVED} MATH & TRIG!V26: DECIMAL(113,2) is #NUM!"),
    '=_xlfn.DECIMAL("1.5",10)': ("#NUM!", f"{SAVED} MATH & TRIG!V26: a character not a digit is #NUM!"),
    '=_xlfn.DECIMAL("FF",37)': ("#NUM!", f'{SAVED} MATH & TRIG!U26: DECIMAL("FF",100) is #NUM!'),
    '=_xlfn.DECIMAL("FF",1)': ("#NUM!", f"{SAVED} MATH & TRIG!Y26: a radix of TRUE (1) is #NUM!"),
    "=_xlfn.COMBINA(-1,2)": ("#NUM!", NUM_BOUND.format("COMBINA") + " (LibreOffice #VALUE!)"),
    "=FACTDOUBLE(-1.1)": ("#NUM!", f"{SAVED} MATH & TRIG!T31 (LibreOffice #VALUE!)"),
    "=MULTINOMIAL(-1,2)": ("#NUM!", "Microsoft's MULTINOMIAL page: an argument below 0 is #NUM!"),
    "=QUOTIENT(5,0)": (
        "#DIV/0!",
        "not on Microsoft's QUOTIENT page: exceltip.com's #DIV/0! article shows Excel's QUOTIENT of a "
        "blank denominator as #DIV/0! (LibreOffice #VALUE!)",
    ),
    "=SQRTPI(-1)": ("#NUM!", f"Microsoft's SQRTPI page: number < 0 is #NUM!; {SAVED} MATH & TRIG!V70"),
    "=GCD(-0.4)": (
        "#NUM!",
        f"Microsoft's GCD page: an argument below zero is #NUM!; {SAVED} MATH & TRIG!U34",
    ),
    "=GCD(Data!A1:A3)": ("#NUM!", "Microsoft's GCD page: an argument below zero is #NUM! (Data!A2 is -2)"),
    "=GCD(2^53,2)": ("#NUM!", "Microsoft's GCD page: a parameter >= 2^53 is #NUM!"),
    "=LCM(2^26,2^27+1)": ("#NUM!", "Microsoft's LCM page: LCM(a,b) >= 2^53 is #NUM!"),
    "=LCM(-1,2)": ("#NUM!", "Microsoft's LCM page: an argument below zero is #NUM!"),
    "=SUM(_xlfn.MUNIT({1,2;3,4}))": (
        4.0,
        f"{SAVED} CORE!P31: SUM(MUNIT({{1,2;3,4;7,8}})) is 6, the top-left 1 of each matrix (LibreOffice 2)",
    ),
    "=GCD(Data!B3)": ("#VALUE!", f"{SAVED} MATH & TRIG!W34: GCD of a blank cell (LibreOffice 0)"),
    "=LCM(Data!B3,2)": ("#VALUE!", f"{SAVED} MATH & TRIG!W37: LCM of a blank cell (LibreOffice 0)"),
    "=FACTDOUBLE(-1)": (1.0, f"{SAVED} MATH & TRIG!V31 (LibreOffice #VALUE!)"),
    **{
        f: ("#VALUE!", f"{SAVED} {cell}: the Analysis ToolPak refuses a logical value (LibreOffice: 1)")
        for f, cell in (
            ("=GCD(TRUE,4)", "MATH & TRIG!Y34"),
            ("=FACTDOUBLE(TRUE)", "MATH & TRIG!Y31"),
            ("=SQRTPI(TRUE)", "MATH & TRIG!Y70"),
            ("=GESTEP(TRUE)", "ENGINEERING!Y25"),
        )
    },
    "=_xlfn.BITAND(2^48,1)": (
        "#NUM!",
        f"Microsoft's BITAND page: greater than (2^48)-1 is #NUM!; {SAVED} ENGINEERING!R10",
    ),
    "=_xlfn.BITAND(1.5,1)": (
        "#NUM!",
        f"Microsoft's BITAND page: a non-integer is #NUM!; {SAVED} ENGINEERING!S10",
    ),
    "=_xlfn.BITAND(-1,1)": ("#NUM!", "Microsoft's BITAND page: less than 0 is #NUM! (LibreOffice #VALUE!)"),
    "=_xlfn.BITLSHIFT(1,54)": (
        "#NUM!",
        "Microsoft's BITLSHIFT page: |Shift_amount| greater than 53 is #NUM!",
    ),
    "=_xlfn.BITRSHIFT(13,-54)": (
        "#NUM!",
        "Microsoft's BITRSHIFT page: |Shift_amount| greater than 53 is #NUM!",
    ),
    "=_xlfn.BITRSHIFT(2^48,1)": (
        "#NUM!",
        "Microsoft's BITRSHIFT page: Number greater than (2^48)-1 is #NUM!",
    ),
}


PROBES = [p for p in PROBES if p not in EXCEL_NOT_LO]  # each formula once in the workbook


class TestMathMore(FamilyProbes):
    SET = "math_more"
    MICROSOFT = MICROSOFT
    PROBES = PROBES
    EXCEL_NOT_LO = EXCEL_NOT_LO


# --- what Excel cached in an Excel-saved workbook ----------------------------------------------

SOURCE = "vinci1it2000/formulas test/test_files/test.xlsx"
#: the input row of the sheets (C:J): a number, another, a fraction, ..., a blank, a text, TRUE
ROW = {"C": 0, "D": 1, "E": 2.3, "F": 10, "G": -1, "H": None, "I": "ciao", "J": True}

EXCEL_SAVED = [
    # (inputs overriding ROW, formula, Excel's cached value, where in test.xlsx)
    ({}, "=_xlfn.ACOT(G1)", 2.356194490192345, "MATH & TRIG!V6"),
    ({}, "=_xlfn.ACOT(H1)", 1.5707963267948966, "MATH & TRIG!W6"),
    ({}, "=_xlfn.ACOT(J1)", 0.7853981633974483, "MATH & TRIG!Y6"),
    ({}, "=_xlfn.ACOTH(D1)", "#NUM!", "MATH & TRIG!S7"),
    ({}, "=_xlfn.ACOTH(E1)", 0.4657791020024718, "MATH & TRIG!T7"),
    ({"D": "IL"}, "=_xlfn.ARABIC(D1)", 49.0, "MATH & TRIG!S9"),
    ({"E": "IIIIIIV"}, "=_xlfn.ARABIC(E1)", -1.0, "MATH & TRIG!T9"),
    ({"F": "Vh"}, "=_xlfn.ARABIC(F1)", "#VALUE!", "MATH & TRIG!U9"),
    ({"G": "IILmIIC"}, "=_xlfn.ARABIC(G1)", 1046.0, "MATH & TRIG!V9"),
    ({}, "=_xlfn.ARABIC(H1)", 0.0, "MATH & TRIG!W9"),
    ({}, "=_xlfn.ARABIC(C1)", "#VALUE!", "MATH & TRIG!R9"),
    ({}, "=_xlfn.ARABIC(J1)", "#VALUE!", "MATH & TRIG!Y9"),
    ({}, "=_xlfn.COT(H1)", "#DIV/0!", "MATH & TRIG!W22"),
    ({}, "=_xlfn.COT(E1)", -0.8934844632974446, "MATH & TRIG!T22"),
    ({}, "=_xlfn.COTH(F1)", 1.0000000041223074, "MATH & TRIG!U23"),
    ({}, "=_xlfn.CSC(F1)", -1.8381639608896658, "MATH & TRIG!U24"),
    ({}, "=_xlfn.CSCH(F1)", 9.079985971212217e-05, "MATH & TRIG!U25"),
    ({}, "=_xlfn.SEC(E1)", -1.500879467460255, "MATH & TRIG!T62"),
    ({}, "=_xlfn.SECH(F1)", 9.079985933781724e-05, "MATH & TRIG!U63"),
    ({"C": 16.6}, '=_xlfn.DECIMAL("FF",C1)', 255.0, "MATH & TRIG!R26"),
    ({"E": 2.5}, "=_xlfn.DECIMAL(111,E1)", 7.0, "MATH & TRIG!T26"),
    ({"G": 2}, "=_xlfn.DECIMAL(113,G1)", "#NUM!", "MATH & TRIG!V26"),
    ({}, '=_xlfn.DECIMAL("FF",H1)', "#NUM!", "MATH & TRIG!W26"),
    ({}, '=_xlfn.DECIMAL("FF",I1)', "#VALUE!", "MATH & TRIG!X26"),
    ({}, '=_xlfn.DECIMAL("FF",J1)', "#NUM!", "MATH & TRIG!Y26"),
    ({}, '=FACTDOUBLE("2.3")', 2.0, "MATH & TRIG!S31"),
    ({"E": -1.1}, "=FACTDOUBLE(E1)", "#NUM!", "MATH & TRIG!T31"),
    ({}, "=FACTDOUBLE(G1)", 1.0, "MATH & TRIG!V31"),
    ({}, "=FACTDOUBLE(H1)", 1.0, "MATH & TRIG!W31"),
    ({}, "=FACTDOUBLE(J1)", "#VALUE!", "MATH & TRIG!Y31"),
    ({"D": 5.7}, "=GCD(D1)", 5.0, "MATH & TRIG!S34"),
    ({"E": 15.7, "F": 63}, "=GCD(E1,F1)", 3.0, "MATH & TRIG!T34"),
    ({"G": -0.4}, "=GCD(G1)", "#NUM!", "MATH & TRIG!U34"),
    ({}, "=GCD(H1)", "#VALUE!", "MATH & TRIG!W34"),
    ({}, "=GCD(I1)", "#VALUE!", "MATH & TRIG!X34"),
    ({"G": -0.4}, "=GCD(G1,J1)", "#VALUE!", "MATH & TRIG!Y34"),
    ({"D": 5.7, "E": 15.7, "F": 63}, "=GCD(C1:F1)", 1.0, "MATH & TRIG!AH34"),
    ({"D": 5.7, "F": 63, "G": -0.4}, "=GCD(C1:D1,F1:G1)", "#NUM!", "MATH & TRIG!AP34"),
    ({"G": -0.4}, "=GCD(G1:J1)", "#VALUE!", "MATH & TRIG!AR34"),
    ({"E": 15.7, "F": 63}, "=LCM(E1,F1)", 315.0, "MATH & TRIG!T37"),
    ({"E": 15.7, "F": 63}, "=LCM(C1,F1,E1)", 0.0, "MATH & TRIG!V37"),
    ({}, "=LCM(H1)", "#VALUE!", "MATH & TRIG!W37"),
    ({}, "=_xlfn.MUNIT(C1)", "#VALUE!", "MATH & TRIG!R47"),
    ({"F": -0.2}, "=_xlfn.MUNIT(F1)", "#VALUE!", "MATH & TRIG!U47"),
    ({}, "=_xlfn.MUNIT(H1)", "#VALUE!", "MATH & TRIG!W47"),
    ({}, "=_xlfn.MUNIT(J1)", 1.0, "MATH & TRIG!Y47"),
    ({"O": "1"}, "=_xlfn.MUNIT(O1)", 1.0, "CORE!P32"),
    ({}, "=SUM(_xlfn.MUNIT({1,2;3,4;7,8}))", 6.0, "CORE!P31"),
    ({}, "=ROMAN(999.9)", "CMXCIX", "MATH & TRIG!R58"),
    ({"D": 1.9}, "=ROMAN(999.9,D1)", "LMVLIV", "MATH & TRIG!S58"),
    ({"E": 2.9}, "=ROMAN(999.9,E1)", "XMIX", "MATH & TRIG!T58"),
    ({"F": 3.9}, "=ROMAN(999.9,F1)", "VMIV", "MATH & TRIG!U58"),
    ({"G": 4.9}, "=ROMAN(999.9,G1)", "IM", "MATH & TRIG!V58"),
    ({}, "=ROMAN(999.9,H1)", "CMXCIX", "MATH & TRIG!W58"),
    ({}, "=ROMAN(999.9,I1)", "#VALUE!", "MATH & TRIG!X58"),
    ({}, "=ROMAN(999.9,J1)", "CMXCIX", "MATH & TRIG!Y58"),
    ({}, "=SQRTPI(E1)", 2.688059356349209, "MATH & TRIG!T70"),
    ({}, "=SQRTPI(G1)", "#NUM!", "MATH & TRIG!V70"),
    ({}, "=SQRTPI(H1)", 0.0, "MATH & TRIG!W70"),
    ({}, "=SQRTPI(J1)", "#VALUE!", "MATH & TRIG!Y70"),
    ({}, "=SQRTPI(C1:J1)", "#VALUE!", "MATH & TRIG!AH70 (array formula there)"),
    # ENGINEERING: C=13, D=25, E=2.3, F=99, G=-1, H blank, I a number-text, J TRUE
    ({"C": 2**48, "D": 25}, "=_xlfn.BITAND(C1,D1)", "#NUM!", "ENGINEERING!R10"),
    ({"D": 25}, "=_xlfn.BITAND(D1,E1)", "#NUM!", "ENGINEERING!S10"),
    ({"I": "3.2"}, "=_xlfn.BITAND(H1,I1)", "#NUM!", "ENGINEERING!W10"),
    ({"C": 13, "D": 25}, "=_xlfn.BITLSHIFT(C1,D1)", 436207616.0, "ENGINEERING!R11"),
    ({"D": 25}, "=_xlfn.BITLSHIFT(D1,E1)", 100.0, "ENGINEERING!S11"),
    ({"F": 99}, "=_xlfn.BITLSHIFT(F1,G1)", 49.0, "ENGINEERING!U11"),
    ({"I": "3.3"}, "=_xlfn.BITLSHIFT(H1,I1)", 0.0, "ENGINEERING!W11"),
    ({"C": 436207616, "D": 100}, "=_xlfn.BITLSHIFT(C1,D1)", "#NUM!", "ENGINEERING!AG11"),
    ({"C": 13, "D": 25}, "=_xlfn.BITOR(C1,D1)", 29.0, "ENGINEERING!R12"),
    ({"D": 25}, "=_xlfn.BITRSHIFT(D1,E1)", 6.0, "ENGINEERING!S13"),
    ({"F": 99}, "=_xlfn.BITRSHIFT(F1,G1)", 198.0, "ENGINEERING!U13"),
    ({"C": 13, "D": 25}, "=_xlfn.BITXOR(C1,D1)", 20.0, "ENGINEERING!R14"),
    ({"C": 13}, "=GESTEP(C1)", 1.0, "ENGINEERING!R25"),
    ({"D": 25}, '=GESTEP(D1,"30.2")', 0.0, "ENGINEERING!S25"),
    ({}, '=GESTEP(E1,"a")', "#VALUE!", "ENGINEERING!T25"),
    ({}, "=GESTEP(H1)", 1.0, "ENGINEERING!W25"),
    ({"I": "3.6"}, "=GESTEP(I1)", 1.0, "ENGINEERING!X25"),
    ({}, "=GESTEP(J1)", "#VALUE!", "ENGINEERING!Y25"),
    ({}, "=GESTEP(C1:I1)", "#VALUE!", "ENGINEERING!AG25"),
]


#: a reference to the input row (C1 ... O1), moved to the case's row
_CELL = re.compile(r"(?<![A-Za-z_.])([C-O])1\b")


@pytest.fixture(scope="module")
def excel_saved(tmp_path_factory):
    """Each case on its own row: its inputs in C:O, its formula in B."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    for r, (inputs, formula, _, _) in enumerate(EXCEL_SAVED, start=1):
        for col, v in {**ROW, **inputs}.items():
            if v is not None:
                ws[f"{col}{r}"] = v
        ws[f"B{r}"] = _CELL.sub(lambda m, r=r: f"{m[1]}{r}", formula)
    path = tmp_path_factory.mktemp("excel_saved") / "saved.xlsx"
    wb.save(path)
    cells = evaluate_workbook(path, functions={})
    return {cell: cells.get(("S", f"B{r}")) for r, (_, _, _, cell) in enumerate(EXCEL_SAVED, start=1)}


@pytest.mark.parametrize(
    ("formula", "excel", "cell"), [c[1:] for c in EXCEL_SAVED], ids=[c[3] for c in EXCEL_SAVED]
)
def test_value_excel_cached(excel_saved, formula, excel, cell):
    got = excel_saved[cell]
    if isinstance(excel, str) and excel.startswith("#"):
        assert isinstance(got, XlError) and str(got) == excel, (
            f"{SOURCE} {cell}: Excel {excel}, engine {got!r}"
        )
    elif isinstance(excel, str):
        assert got == excel, f"{SOURCE} {cell}: Excel {excel!r}, engine {got!r}"
    else:
        assert got == pytest.approx(excel, rel=1e-12), f"{SOURCE} {cell}: Excel {excel}, engine {got!r}"


# --- identities -----------------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(a=st.integers(1, 10**7), b=st.integers(1, 10**7))
def test_gcd_times_lcm_is_the_product(a, b):
    assert mm._gcd([float(a)]) == a and mm._gcd([float(a), float(b)]) * mm._lcm([float(a), float(b)]) == a * b


def test_arabic_reads_back_every_roman_numeral_of_every_form():
    """ARABIC(ROMAN(n, form)) = n for n = 1..3999 and the five forms (the concise forms put a
    smaller symbol before a larger one more freely, and ARABIC's reading subtracts it)."""
    for form in range(5):
        for n in range(1, 4000):
            assert mm._arabic(mm._roman(float(n), float(form))) == n, (n, form)


def test_roman_forms_shorten_the_numeral():
    """Each form is at most as long as the one before (Microsoft: "becoming more concise as the
    value of form increases")."""
    for n in range(1, 4000):
        lengths = [len(mm._roman(float(n), float(f))) for f in range(5)]
        assert lengths == sorted(lengths, reverse=True), (n, lengths)


@settings(max_examples=300, deadline=None)
@given(n=st.integers(0, 2**53 - 1), radix=st.integers(2, 36))
def test_decimal_reads_back_base(n, radix):
    text = mm._base(float(n), float(radix))
    assert mm._decimal(text, float(radix)) == float(n)
    assert int(text, radix) == n  # Python's own reading of the digits agrees


@settings(max_examples=300, deadline=None)
@given(x=st.floats(-1e6, 1e6).filter(lambda v: abs(v) > 1e-9))
def test_reciprocal_trig_identities(x):
    cot, csc, sec = (
        mm._reciprocal(f, z)(x) for f, z in ((math.tan, True), (math.sin, True), (math.cos, False))
    )
    assert math.isclose(cot, 1 / math.tan(x), rel_tol=1e-15)
    assert math.isclose(csc * math.sin(x), 1.0, rel_tol=1e-14)
    assert math.isclose(sec * math.cos(x), 1.0, rel_tol=1e-14)
    assert math.isclose(mm._acot(1 / math.tan(math.pi / 2 - 1e-3)), math.pi / 2 - 1e-3, rel_tol=1e-12)
