"""Excel rules decided by an Excel-saved workbook the engine had not seen, each cell quoted.

The workbook: vinci1it2000/formulas (https://github.com/vinci1it2000/formulas), file
``test/test_files/test.xlsx``, saved by Microsoft Macintosh Excel (``docProps/app.xml``), its
cached values Excel's answers. It is not copied here (its licence is the EUPL); each test below
rebuilds the few cells it needs and asserts the value Excel cached there, naming the sheet and
cell. Measured on the whole file (``gputco recalc test.xlsx --check --keep-unsupported --engine
gputco``): 2,209 of the 16,886 cells the engine computed differed from Excel's before these
rules, 1,083 after the first of them, 465 after all (docs/recalc-excel-rules.md).
"""

from __future__ import annotations

import re
import zipfile

import openpyxl
import pytest
from openpyxl.worksheet.formula import ArrayFormula
from recalc_book import s_sheet

from gputco.workbook.recalc import evaluate_workbook, recalc_file

SOURCE = "vinci1it2000/formulas test/test_files/test.xlsx"


def _book(tmp_path, cells: dict[str, object], arrays: dict[str, str] | None = None):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    for ref, v in cells.items():
        ws[ref] = v
    for ref, formula in (arrays or {}).items():
        first = ref.split(":")[0]
        ws[first] = ArrayFormula(ref, formula)
    path = tmp_path / "r.xlsx"
    wb.save(path)
    out = tmp_path / "out.xlsx"
    recalc_file(path, out, engine="gputco")
    got = openpyxl.load_workbook(out, data_only=True)["S"]
    refs = [*cells, *(r.split(":")[0] for r in (arrays or {}))]
    return {ref: got[ref].value for ref in refs}


def _block(tmp_path, cells: dict[str, object], ref: str, formula: str) -> list[list[object]]:
    """Every cell of the array formula ``formula`` over ``ref``, row by row (the block's other
    cells are written as placeholders, so that the recalculated file holds them)."""
    from openpyxl.utils import get_column_letter, range_boundaries

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    for r, v in cells.items():
        ws[r] = v
    c1, r1, c2, r2 = range_boundaries(ref)
    for row in range(r1, r2 + 1):
        for col in range(c1, c2 + 1):
            ws.cell(row, col).value = 0
    ws[ref.split(":")[0]] = ArrayFormula(ref, formula)
    path = tmp_path / "b.xlsx"
    wb.save(path)
    out = tmp_path / "b-out.xlsx"
    recalc_file(path, out, engine="gputco")
    got = openpyxl.load_workbook(out, data_only=True)["S"]
    return [[got[f"{get_column_letter(c)}{r}"].value for c in range(c1, c2 + 1)] for r in range(r1, r2 + 1)]


# --- the Analysis ToolPak functions ---------------------------------------------------------


def test_an_analysis_toolpak_function_refuses_a_reference_to_several_cells(tmp_path):
    """ENGINEERING!AH30:AW30 {=IMAGINARY(C30:E30)}, AH21:AW21 {=ERF(C21:I21)}, DATE & TIME
    AH9:AW9 {=EDATE(E9:I9,C9:G9)}, MATH & TRIG AH45 {=MROUND(C45:G45,2)}, INFORMATION AH9
    {=ISEVEN(C9:J9)}: every cell #VALUE!, though each function of one cell of the range has a
    value; AG21 =ERF(C21:I21) outside an array formula is #VALUE! too."""
    cells = {"A1": 0.5, "A2": 1.5, "A3": 2.5, "B1": "3+4i", "B2": "1+i"}
    got = _book(
        tmp_path,
        {**cells, "F1": "=ERF(A1:A3)", "F2": "=IMAGINARY(B1:B2)", "F3": "=ERF(A1)"},
        arrays={
            "C1:C3": "=ERF(A1:A3)",
            "D1:D2": "=IMAGINARY(B1:B2)",
            "E1:E3": "=MROUND(A1:A3,2)",
            "G1:G3": "=ISEVEN(A1:A3)",
        },
    )
    for ref in ("C1", "D1", "E1", "G1", "F1", "F2"):  # (the blocks' first cells: openpyxl
        assert str(got[ref]) == "#VALUE!", ref  # writes no other cell of a block)
    assert got["F3"] == pytest.approx(0.5204998778130465)  # one cell: the function's value


def test_an_analysis_toolpak_function_refuses_a_logical_value(tmp_path):
    """ENGINEERING!Y22 =ERF.PRECISE(J22), Y3 =BESSELI(J3,1), FINANCIAL!Y13 =CUMIPMT(J13,...)
    with J22, J3, J13 TRUE: #VALUE!; FINANCIAL!Y54 =XIRR(C55:G55,C54:G54,TRUE): #VALUE!."""
    got = _book(
        tmp_path,
        {
            "A1": True,
            "B1": "=_xlfn.ERF.PRECISE(A1)",
            "B2": "=BESSELI(A1,1)",
            "B3": "=CUMIPMT(A1,5.5,125000,3,5,1)",
            "B4": "=ERF(TRUE)",
        },
    )
    assert [str(got[r]) for r in ("B1", "B2", "B3", "B4")] == ["#VALUE!"] * 4


def test_imsum_and_improduct_take_ranges(tmp_path):
    """ENGINEERING!AG44 =IMPRODUCT( C44:E44) and R52 =IMSUM(C52:D52,E52) have values: their
    lists take ranges (the one-value arguments of the others do not)."""
    got = _book(tmp_path, {"A1": "1+i", "A2": "2", "B1": "=IMSUM(A1:A2,3)", "B2": "=IMPRODUCT(A1:A2)"})
    assert (got["B1"], got["B2"]) == ("6+i", "2+2i")


# --- ADDRESS -------------------------------------------------------------------------------


def test_address_with_a_blank_sheet_text_starts_with_the_sheet_separator(tmp_path):
    """LOOKUP!AH3:AW3 {=ADDRESS(D3:Q3,E3,F3,G3,H3)} with H3 blank: "!C1", "!C3", ... (the
    sheet text left out: no "!")."""
    got = _book(
        tmp_path,
        {"B1": "=ADDRESS(1,3,4,TRUE,A1)", "B2": "=ADDRESS(3,3,4,TRUE)", "B3": '=ADDRESS(1,1,1,TRUE,"S")'},
    )
    assert (got["B1"], got["B2"], got["B3"]) == ("!C1", "C3", "S!$A$1")


# --- CONVERT -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("formula", "excel", "cell"),
    [
        ('=CONVERT(1,"eg","g")', 10.0, "EXTRA!AH2: e is deka, as da"),
        ('=CONVERT(1,"u","g")', 1.660538782e-24, "EXTRA!U5"),
        ('=CONVERT(1,"mmHg","Pa")', 133.322, "EXTRA!U48"),
        ('=CONVERT(1,"kmmHg","Pa")', 133322.0, "EXTRA!AE48"),
        ('=CONVERT(1,"kTorr","Pa")', "#N/A", "EXTRA!AE50: Torr takes no prefix"),
        ('=CONVERT(1,"mK","K")', 0.001, "EXTRA!AK84"),
        ('=CONVERT(1,"kuk_pt","l")', 568.26125, "EXTRA!AE96"),
        ('=CONVERT(1,"kl","l")', 1000.0, "EXTRA!AE101: a litre's prefix is not cubed"),
        ('=CONVERT(1,"kar","m2")', 100000.0, "EXTRA!AE133: nor an are's squared"),
        ('=CONVERT(1,"kmph","m/h")', 1609344.0, "EXTRA!AE164"),
        ('=CONVERT(1,"m^2","m2")', 1.0, "EXTRA!U142"),
        ('=CONVERT(1,"km^2","m2")', 1000000.0, "EXTRA!AE142"),
        ('=CONVERT(1,"ft^3","l")', 28.316846592, "EXTRA!U109"),
    ],
)
def test_convert_prefixes_and_factors_as_excel_cached_them(tmp_path, formula, excel, cell):
    got = _book(tmp_path, {"A1": formula})["A1"]
    if isinstance(excel, str):
        assert str(got) == excel, cell
    else:
        assert got == pytest.approx(excel, rel=1e-12), cell


# --- strings as the file stores them --------------------------------------------------------


def test_escaped_characters_of_stored_strings_are_read_and_written_back(tmp_path):
    """CORE!B32 =CHAR(A32) with A32 = 1 is cached as "_x0001_" (ECMA-376's escape of a
    character XML cannot hold; Part 1, 22.9.2.19 ST_Xstring), and CORE!C28 =CODE(B28) of such a
    cell is 1: the reader decodes the escape (a literal "_x0001_" is stored "_x005F_x0001_"), and
    the writer writes both back so."""
    path = tmp_path / "esc.xlsx"
    codes = {"B1": "=CODE(A1)", "B2": "=LEN(A2)", "B3": "=CHAR(1)", "B4": '="_x0001_"'}
    wb, _ = s_sheet([["placeholder-1"], ["placeholder-2"]], codes)
    wb.save(path)
    with zipfile.ZipFile(path) as z:
        parts = {n: z.read(n) for n in z.namelist()}
    sheet = "xl/worksheets/sheet1.xml"  # (openpyxl writes the texts inline)
    parts[sheet] = (
        parts[sheet].replace(b"placeholder-1", b"_x0001_").replace(b"placeholder-2", b"_x005F_x0001_")
    )
    with zipfile.ZipFile(path, "w") as z:
        for n, data in parts.items():
            z.writestr(n, data)
    got = {ref: v for (_s, ref), v in evaluate_workbook(path).items()}
    assert (got["B1"], got["B2"], got["B3"], got["B4"]) == (1.0, 7.0, "\x01", "_x0001_")
    out = tmp_path / "out.xlsx"
    recalc_file(path, out, engine="gputco")
    with zipfile.ZipFile(out) as z:
        written = z.read(sheet)
    assert b"<v>_x0001_</v>" in written and b"<v>_x005F_x0001_</v>" in written
    report = recalc_file(out, check=True, engine="gputco")  # read back: the values it wrote
    assert report.mismatches == []


# --- CHAR and CODE: the character set of the application that saved the workbook -----------


def _saved_by(tmp_path, application: str | None, cells: dict[str, object]):
    """A workbook of ``cells`` whose docProps/app.xml names ``application`` (None: no such part)."""
    path = tmp_path / "app.xlsx"
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    for ref, v in cells.items():
        ws[ref] = v
    wb.save(path)
    with zipfile.ZipFile(path) as z:
        parts = {n: z.read(n) for n in z.namelist()}
    app = (
        b'<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties">'
        b"<Application>%s</Application></Properties>"
    )
    if application is None:
        del parts["docProps/app.xml"]
        parts["_rels/.rels"] = re.sub(
            rb"<Relationship [^>]*extended-properties[^>]*/>", b"", parts["_rels/.rels"]
        )
    else:
        parts["docProps/app.xml"] = app % application.encode()
    with zipfile.ZipFile(path, "w") as z:
        for n, data in parts.items():
            z.writestr(n, data)
    return {ref: v for (_s, ref), v in evaluate_workbook(path).items()}


_CHARS = {
    "A1": "=CHAR(157)",
    "A2": "=CHAR(128)",
    "A3": "=CODE(CHAR(129))",
    "A4": "=_xlfn.UNICODE(CHAR(170))",
    "A5": '=CODE("€")',
    "A6": "=CHAR(65)",
}


def test_char_and_code_use_the_macintosh_character_set_in_a_workbook_mac_excel_saved(tmp_path):
    """Microsoft's CHAR page: the character set is the operating environment's, the Macintosh
    character set on a Mac and ANSI on Windows. docProps/app.xml of the source says "Microsoft
    Macintosh Excel", and it caches TEXT!S7 =CHAR(D7) with D7 = 157 as "ù", CORE!B159
    =CHAR(A159) with A159 = 128 as "Ä", CORE!C160 =CODE(B160) of CHAR(129) as 129 and CORE!E201
    =UNICODE(B201) of CHAR(170) as 8482 ("™"), CORE!B250 =CHAR(219) as "€" and C250, its CODE,
    as 219."""
    got = _saved_by(tmp_path, "Microsoft Macintosh Excel", _CHARS)
    assert [got[r] for r in _CHARS] == ["ù", "Ä", 129.0, 8482.0, 219.0, "A"]


@pytest.mark.parametrize("application", ["Microsoft Excel", "LibreOffice/7.6", None])
def test_char_and_code_use_windows_1252_otherwise(tmp_path, application):
    """Saved by Excel for Windows (Microsoft's CHAR page: ANSI), another program, or with no
    docProps/app.xml: Windows-1252, CHAR(128) "€", CHAR(157) one of its five undefined codes."""
    got = _saved_by(tmp_path, application, _CHARS)
    assert [got[r] for r in _CHARS] == ["\x9d", "€", 63.0, 170.0, 128.0, "A"]


# --- FIXED, NUMBERVALUE, ARRAYTOTEXT, TYPE ---------------------------------------------------

_BIG = '"123456789076754345682.2121234567832131341"'


@pytest.mark.parametrize(
    ("formula", "excel", "cell"),
    [
        (f'=FIXED({_BIG},A1,"1")', "#VALUE!", "TEXT!Y18, J18 TRUE (R18 the same text, C18 0: a value)"),
        (f'=FIXED({_BIG},"3","1")', "#VALUE!", "EXTRA!Q3"),
        (f'=FIXED({_BIG},"3","0")', "#VALUE!", "EXTRA!O4"),
        (f'=FIXED({_BIG},"3","d")', "#VALUE!", "EXTRA!R3"),
        (f'=FIXED({_BIG},"3","TRuE")', "123456789076754000000.000", "EXTRA!Q4"),
        (f'=FIXED({_BIG},"3","FALSE")', "123,456,789,076,754,000,000.000", "EXTRA!R4"),
        (f'=FIXED({_BIG},"3",0)', "123,456,789,076,754,000,000.000", "EXTRA!N4"),
        (f'=FIXED({_BIG},"3",2)', "123456789076754000000.000", "EXTRA!P4"),
        ('=FIXED(10001,"36","FALSe")', "10,001." + "0" * 36, "EXTRA!Q5"),
    ],
)
def test_fixed_reads_no_commas_as_a_logical_value(tmp_path, formula, excel, cell):
    """FIXED's no_commas is a logical value: a number, or a text reading TRUE or FALSE (any
    case); a text that is a number ("1", "0") is #VALUE!, as another text."""
    got = _book(tmp_path, {"A1": True, "B1": formula})["B1"]
    assert str(got) == excel, cell


@pytest.mark.parametrize(
    ("formula", "excel", "cell"),
    [
        ('=_xlfn.NUMBERVALUE("(2.500,27)",",",".")', -2500.27, "TEXT!R27"),
        (
            '=_xlfn.NUMBERVALUE("(2,500.27)",",",".")',
            "#VALUE!",
            "TEXT!S27: a group separator after the decimal one",
        ),
        (
            '=_xlfn.NUMBERVALUE("(2500.27)",".",".,")',
            "#VALUE!",
            "TEXT!T27: the group separator is the decimal one",
        ),
        ('=_xlfn.NUMBERVALUE("(2,500.27%)%",".",",.,")', -0.250027, "TEXT!U27"),
        ('=_xlfn.NUMBERVALUE("(,25,,0,0.27E + 6%)%",".",",.,")', -250027.0, "TEXT!V27"),
        (
            '=_xlfn.NUMBERVALUE("(2500,27E+6%)%",",")',
            -250027.0,
            "TEXT!W28: the default group beside a decimal ','",
        ),
        (
            '=_xlfn.NUMBERVALUE("(-2500.27E+2%)%",".",",.,")',
            "#VALUE!",
            "TEXT!R28: a sign inside the parentheses",
        ),
        ('=_xlfn.NUMBERVALUE("- 2500.27%E+2%%",".",",.,")', "#VALUE!", "TEXT!S28"),
        ('=_xlfn.NUMBERVALUE("250)027",")")', 250.027, "TEXT!U28"),
        ('=_xlfn.NUMBERVALUE("1",A1)', "#VALUE!", "TEXT!AB28, H27 blank: an empty decimal separator"),
        ('=_xlfn.NUMBERVALUE("1","2",A1)', "#VALUE!", "TEXT!AC28: an empty group separator"),
        ('=_xlfn.NUMBERVALUE(A1,".",",.,")', 0.0, "TEXT!W27: a blank text is 0"),
    ],
)
def test_numbervalue_of_a_number_in_parentheses_and_of_blank_separators(tmp_path, formula, excel, cell):
    """A number in parentheses is negative, its % signs inside and after them each dividing by
    100; a separator given as a blank cell is empty (#VALUE!), not the default."""
    got = _book(tmp_path, {"B1": formula})["B1"]
    if isinstance(excel, str):
        assert str(got) == excel, cell
    else:
        assert got == pytest.approx(excel, rel=1e-12), cell


def test_arraytotext_of_one_blank_cell_and_of_an_array_of_formats(tmp_path):
    """TEXT!V4 =ARRAYTOTEXT(H4,1) with H4 blank: #VALUE! (W4 of I4 = "": {""}; V3
    ARRAYTOTEXT(H3:H4,0) of two blanks ", "; AH4 a blank among other cells written as nothing).
    TEXT!AH3:AW3 {=ARRAYTOTEXT(C3:J3,C3:Q3)}: the whole array once per format, concise for 0,
    strict for 1.9 and TRUE, #VALUE! for 2.3, an error format its error."""
    cells = {"A1": 0, "B1": 1.9, "C1": True, "D1": 2.3, "E1": "=NA()", "G1": ""}
    got = _book(
        tmp_path,
        {
            **cells,
            "A3": "=_xlfn.ARRAYTOTEXT(F1,1)",
            "A4": "=_xlfn.ARRAYTOTEXT(G1,1)",
            "A5": "=_xlfn.ARRAYTOTEXT(F1:F2,0)",
            "A6": "=_xlfn.ARRAYTOTEXT(A1:C1,1)",
            "A7": "=_xlfn.ARRAYTOTEXT(E1:G1,1)",
        },
        arrays={
            f"{c}2:{c}2": f"=INDEX(_xlfn.ARRAYTOTEXT(A1:B1,A1:F1),1,{i})" for i, c in enumerate("HIJKLM", 1)
        },
    )
    assert str(got["A3"]) == "#VALUE!"
    assert (got["A4"], got["A5"], got["A6"], got["A7"]) == ('{""}', ", ", "{0,1.9,TRUE}", '{#N/A,,""}')
    shown = [str(got[f"{c}2"]) for c in "HIJKLM"]
    assert shown == ["0, 1.9", "{0,1.9}", "{0,1.9}", "#VALUE!", "#N/A", "0, 1.9"]


def test_type_of_a_lambda_is_128(tmp_path):
    """INFORMATION!S24 =TYPE(_xleta.SUM): 128, Microsoft's TYPE page's "compound data" (Excel
    saves the function SUM passed as a value as _xleta.SUM: a LAMBDA of one value, written out
    here); other values keep their codes."""
    got = _book(
        tmp_path,
        {
            "A1": True,
            "B1": "=TYPE(_xlfn.LAMBDA(_xlpm.x,SUM(_xlpm.x)))",
            "B2": "=_xlfn.LET(_xlpm.f,_xlfn.LAMBDA(_xlpm.x,_xlpm.x+1),TYPE(_xlpm.f))",
            "B3": "=TYPE(A1)",
            "B4": "=TYPE(A1:A2)",
            "B5": "=TYPE(A2)",
        },
    )
    assert [got[f"B{i}"] for i in range(1, 6)] == [128, 128, 4, 64, 1]


# --- scalar arguments: how a value given for a logical argument is read --------------------


def test_a_logical_argument_takes_the_texts_true_and_false_and_no_number_text(tmp_path):
    """A logical argument (a distribution's cumulative) reads a value as a condition does, not as
    a number: the texts "TRUE" and "FALSE" are logical values, a number's text is #VALUE!.
    STATISTICAL!U74 =NORM.S.DIST(F74,"TRUE") (F74 3) is 0.9986501019683699, COMPATIBILITY!U26
    =NORMDIST(F26,-1,2,"TRUE") 0.9772498680518208, STATISTICAL!T74 =NORM.S.DIST(E74,"1") #VALUE!,
    though "1" given for a number is 1 (T73 =NORM.DIST(E73,"1","3",5) 0.460172162722971); with
    "TRUE" read, the domain error shows: U102 =T.DIST(F102,-1,"TRUE") and U8, U10, U13, U29, U30,
    U45, U54, U72, U85, U120 (BETA.DIST ... WEIBULL.DIST with -1) are #NUM!. A logical value
    given in a cell, or a number, is read as usual (X74 =NORM.S.DIST(I74,1))."""
    got = _book(
        tmp_path,
        {
            "A1": 3,
            "A2": 0.7,
            "A3": "TRUE",
            "A4": True,
            "B1": '=_xlfn.NORM.S.DIST(A1,"TRUE")',
            "B2": '=NORMDIST(A1,-1,2,"TRUE")',
            "B3": '=_xlfn.NORM.S.DIST(A2,"1")',
            "B4": '=_xlfn.NORM.DIST(A2,"1","3",5)',
            "B5": '=_xlfn.T.DIST(A1,-1,"TRUE")',
            "B6": '=_xlfn.BETA.DIST(A1,-1,2,"TRUE")',
            "B7": "=_xlfn.NORM.S.DIST(A1,A3)",
            "B8": "=_xlfn.NORM.S.DIST(A1,A4)",
            "B9": '=_xlfn.NORM.S.DIST(A1,"false")',
            "B10": '=_xlfn.NORM.S.DIST(A1,"yes")',
        },
    )
    assert got["B1"] == pytest.approx(0.9986501019683699, rel=1e-12)
    assert got["B2"] == pytest.approx(0.9772498680518208, rel=1e-12)
    assert str(got["B3"]) == "#VALUE!"
    assert got["B4"] == pytest.approx(0.460172162722971, rel=1e-12)
    assert (str(got["B5"]), str(got["B6"])) == ("#NUM!", "#NUM!")
    assert got["B7"] == got["B8"] == got["B1"]
    assert got["B9"] == pytest.approx(0.00443184841193801, rel=1e-12)  # the density at 3
    assert str(got["B10"]) == "#VALUE!"


# --- the distributions' domains where Excel's cells differ from Microsoft's remarks -----------


def test_hypgeom_dist_cumulative_outside_the_range_and_a_population_of_0(tmp_path):
    """STATISTICAL!R54 =HYPGEOM.DIST(C54,,,,) (C54 0: the empty arguments 0 and FALSE) is 1: a
    number_pop of 0 is no error; AG54 =HYPGEOM.DIST(C54:Q54,2,3,3,1) (its first value, 0, below
    n - N + K = 2) is 0 and AI54 of {=HYPGEOM.DIST(C54:Q54,3,2,30,1)} (D54 5, above min(n, K))
    is 1, as are AK54 and AL54 (3 and 4): the cumulative distribution is 0 below the values X can
    take and 1 above them, where Microsoft's remarks say #NUM!; T54
    =HYPGEOM.DIST(E54,"1",5,8,3) is 0.375."""
    got = _book(
        tmp_path,
        {
            "A1": 0,
            "B1": "=_xlfn.HYPGEOM.DIST(A1,,,,)",
            "B2": "=_xlfn.HYPGEOM.DIST(0,2,3,3,1)",
            "B3": "=_xlfn.HYPGEOM.DIST(5,3,2,30,1)",
            "B4": "=_xlfn.HYPGEOM.DIST(4,3,2,30,1)",
            "B5": '=_xlfn.HYPGEOM.DIST(0.7,"1",5,8,3)',
            "B6": "=_xlfn.HYPGEOM.DIST(4,3,7,4,1)",
        },
    )
    assert (got["B1"], got["B2"], got["B3"], got["B4"]) == (1.0, 0.0, 1.0, 1.0)
    assert got["B5"] == pytest.approx(0.375, rel=1e-12)
    assert str(got["B6"]) == "#NUM!"  # V54: population_s 7 > number_pop 4


def test_t_dist_density_at_0_degrees_of_freedom_is_div0(tmp_path):
    """STATISTICAL!R102 =T.DIST(C102,,) (C102 0: T.DIST(0,0,FALSE)) is #DIV/0!, where W102
    =T.DIST(H102,H102,1) (blank cells: the cumulative at 0 degrees of freedom) is #NUM!, as U102
    =T.DIST(F102,-1,"TRUE") is."""
    got = _book(
        tmp_path,
        {
            "A1": 0,
            "B1": "=_xlfn.T.DIST(A1,,)",
            "B2": "=_xlfn.T.DIST(A2,A2,1)",
            "B3": "=_xlfn.T.DIST(3,-1,TRUE)",
        },
    )
    assert [str(got[r]) for r in ("B1", "B2", "B3")] == ["#DIV/0!", "#NUM!", "#NUM!"]


def test_beta_inv_at_probability_1_is_num(tmp_path):
    """STATISTICAL!AO9 of {=BETA.INV(C9:Q9,3,2)} is #NUM! at J9 TRUE, which the same array
    formulas read as 1 (AO74 of {=NORM.S.DIST(C74:Q74,1)} is 0.841344746068543, NORM.S.DIST(1,
    TRUE)); Y9 =BETA.INV(0.3,J9,2) with J9 TRUE is 0.16333997346592444 (alpha 1). Microsoft's
    remarks allow a probability of 1."""
    got = _book(
        tmp_path,
        {"A1": True, "B1": "=_xlfn.BETA.INV(A1,3,2)", "B2": "=_xlfn.BETA.INV(0.3,A1,2)"},
        arrays={"C1:C1": "=_xlfn.BETA.INV(A1:A1,3,2)", "D1:D1": "=_xlfn.NORM.S.DIST(A1:A1,1)"},
    )
    assert (str(got["B1"]), str(got["C1"])) == ("#NUM!", "#NUM!")
    assert got["B2"] == pytest.approx(0.16333997346592444, rel=1e-9)
    assert got["D1"] == pytest.approx(0.841344746068543, rel=1e-12)


# --- MODE.SNGL and MODE.MULT: a single cell is a reference ----------------------------------


def test_mode_sngl_and_mode_mult_ignore_a_cell_s_non_number_and_a_typed_empty_text(tmp_path):
    """STATISTICAL!Y69 =MODE.MULT(J69,G69) and Y71 =MODE.SNGL(J71,G71) (J TRUE, G -0.1) are
    #N/A, X69 and X71 (I a text) too: a single cell's text or logical value is ignored, as a
    reference's ("If an array or reference argument contains text, logical values, or empty
    cells, those values are ignored", Microsoft's MODE.SNGL page), not #VALUE!; S69
    =MODE.MULT(D69:E69,E69:F69,F69:G69,"") is 0.1 and S71 =MODE.SNGL(D71:E71,E71:F71,F71:G71,"")
    0.2: an empty text typed is ignored too. (MODE keeps POI's Excel-saved #VALUE! for a blank
    cell, EverythingTests!M936; a typed text that is no number stays #VALUE! as documented.)"""
    got = _book(
        tmp_path,
        {
            "A1": True,
            "A2": -0.1,
            "A3": "abc",
            "A4": 0.1,
            "A5": 0.2,
            "A6": 0.3,
            "B1": "=_xlfn.MODE.MULT(A1,A2)",
            "B2": "=_xlfn.MODE.SNGL(A1,A2)",
            "B3": "=_xlfn.MODE.SNGL(A3,A2)",
            "B4": '=_xlfn.MODE.MULT(A4:A4,A4:A5,A5:A6,"")',
            "B5": '=_xlfn.MODE.SNGL(A4:A5,A5:A6,A6:A6,"")',
            "B6": '=_xlfn.MODE.SNGL(1,1,"a*")',
        },
    )
    assert [str(got[r]) for r in ("B1", "B2", "B3")] == ["#N/A"] * 3
    assert (got["B4"], got["B5"]) == (0.1, 0.2)
    assert str(got["B6"]) == "#VALUE!"


# --- array formulas: a scalar argument given an array is lifted -------------------------------


def test_t_test_of_arrays_of_tails_and_types_fills_its_block(tmp_path):
    """STATISTICAL!R107:R112 {=T.TEST(C106:D107,E104:E107,{1;2;1;2;1;2},{1;2;3;1;2;3})} with
    C106:D107 = 10, 0.1; 10, 3.2 and E104:E107 = 0.7 four times: a value per tails and
    type (0.0660, 0.0855, 0.0660, 0.1319, 0.0427, 0.1319), not the first one alone; Z.TEST's x
    alike (AH121:AW121 {=Z.TEST(C119:E121, C121:J121)})."""
    cells = {"A1": 10, "B1": 0.1, "A2": 10, "B2": 3.2, "C1": 0.7, "C2": 0.7, "C3": 0.7, "C4": 0.7}
    got = _block(tmp_path, cells, "E1:E6", "=_xlfn.T.TEST(A1:B2,C1:C4,{1;2;1;2;1;2},{1;2;3;1;2;3})")
    excel = [0.06596981193605113, 0.08547090523883295, 0.06596981193605113, 0.13193962387210226]
    assert [r[0] for r in got[:4]] == pytest.approx(excel, rel=1e-9)
    assert [r[0] for r in got[4:]] == pytest.approx([0.04273545261941648, 0.13193962387210226], rel=1e-9)


# --- XLOOKUP, XMATCH, MATCH, VLOOKUP and HLOOKUP --------------------------------------------


@pytest.mark.parametrize(
    ("formula", "excel", "cell"),
    [
        # an approximate match orders every type: numbers < texts < FALSE < TRUE < a blank value
        ("=_xlfn.XMATCH(A1,{-1.1,2.1,3.1,4.1},-1)", 4.0, "LOOKUP!W189 (A1 blank)"),
        ("=_xlfn.XMATCH(A1,{-1.1,2.1,3.1,4.1},1)", "#N/A", "LOOKUP!W171"),
        ('=_xlfn.XMATCH(A1,{"a",2.1,"c bau c",4.1},-1)', 3.0, "LOOKUP!W190"),
        ("=_xlfn.XMATCH(A1,{FALSE,2.1,TRUE,4.1},-1)", 3.0, "LOOKUP!W191"),
        ('=_xlfn.XMATCH(TRUE,{"a",2.1,"c bau c",4.1},-1)', 3.0, "LOOKUP!Y190"),
        ('=_xlfn.XMATCH("*b?u*",{-1.1,2.1,3.1,4.1},-1)', 4.0, "LOOKUP!X189"),
        ('=_xlfn.XMATCH("*b?u*",{"",4.1,"a",1.1},-1)', 1.0, "LOOKUP!X194"),
        ('=_xlfn.XMATCH("*b?u*",{"a",2.1,"c bau c",4.1},1)', 1.0, "LOOKUP!X172"),
        ('=_xlfn.XMATCH(-2,{"a",TRUE,2.1,"c bau c",4.1},1)', 3.0, "LOOKUP!R172"),
        # binary search (search mode 2, -2): where Excel's halving ends on unsorted data
        ('=_xlfn.XMATCH(1.1,{"c bau c",4.1,"a",1.1},0,2)', "#N/A", "LOOKUP!S175"),
        ('=_xlfn.XMATCH(-2,{"",4.1,"a",1.1},1,2)', 1.0, "LOOKUP!R176"),
        ('=_xlfn.XMATCH("*b?u*",{"",4.1,"a",1.1},1,2)', 3.0, "LOOKUP!X176"),
        ("=_xlfn.XMATCH(1.1,{TRUE,4.1,FALSE,1.1},-1,2)", "#N/A", "LOOKUP!S177"),
        ('=_xlfn.XMATCH("*b?u*",{TRUE,4.1,FALSE,1.1},-1,2)', 2.0, "LOOKUP!X177"),
        ("=_xlfn.XMATCH(TRUE,{TRUE,4.1,FALSE,1.1},-1,2)", 4.0, "LOOKUP!Y177"),
        ('=_xlfn.XMATCH(A1,{TRUE,4.1,FALSE,"c bau c"},-1,-2)', 1.0, "LOOKUP!W178"),
        ('=_xlfn.XMATCH("*b?u*",{TRUE,4.1,FALSE,"c bau c"},-1,-2)', 2.0, "LOOKUP!X178"),
        # a wildcard match by binary search is refused
        ("=_xlfn.XMATCH(4.1,{4.1,3.1,2.1,1.1},2,2)", "#VALUE!", "LOOKUP!V183"),
        ('=_xlfn.XMATCH("a",{"c bau c",4.1,"a",1.1},2,-2)', "#VALUE!", "LOOKUP!R184:Y184"),
        # the lookup value's error, not if_not_found nor #VALUE! for an invalid mode
        ('=_xlfn.XLOOKUP(#N/A,{"a",2.1,"b",4.1},{"L","ML","MR","R"},1)', "#N/A", "LOOKUP!AA163"),
        ('=_xlfn.XLOOKUP(#NULL!,{-1.1,2.1,3.1,4.1},{"L","ML","MR","R"},1,3)', "#NULL!", "LOOKUP!AT162"),
        # a search mode is taken as INT: -1.1 is -2, binary descending
        ('=_xlfn.XLOOKUP(-1.1,{-1.1,2.1,3.1,4.1},{"L","ML","MR","R"},1,1,-1.1)', "R", "LOOKUP!AH162"),
        ('=_xlfn.XLOOKUP(4,{-1.1,2.1,3.1,4.1},{"L","ML","MR","R"},1,2,-1.1)', "#VALUE!", "LOOKUP!AK162"),
        # MATCH: a blank value is 0 to an approximate match; type -1 scans (see _descending_scan)
        ("=MATCH(A1,{-1.1,2.1,3.1,4.1})", 1.0, "LOOKUP!W65"),
        ("=MATCH(A1,{4.1,3.1,2.1,1.1},-1)", 4.0, "LOOKUP!W86"),
        ("=MATCH(A1,{-1.1,2.1,3.1,4.1},-1)", "#N/A", "LOOKUP!W83"),
        ("=MATCH(1.1,{-1.1,2.1,3.1,4.1},-1)", "#N/A", "LOOKUP!S83"),
        ("=MATCH(-2,{-1.1,2.1,3.1,4.1},-1)", 4.0, "LOOKUP!R83"),
        ('=MATCH(A1,{TRUE,4.1,FALSE,"c bau c"},-1)', 2.0, "LOOKUP!W90"),
        ('=MATCH(3,{"c bau c",4.1,"a",1.1},-1)', 2.0, "LOOKUP!T87"),
        ('=MATCH("*b?u*",{"c bau c",4.1,"a",1.1},-1)', 3.0, "LOOKUP!X87"),
        ("=VLOOKUP(A1,{-1.1,5;2.1,6;3.1,7;4.1,8},2,-2)", 5.0, "LOOKUP!W144"),
        ("=HLOOKUP(A1,{-1.1,2.1,3.1,4.1;5,6,7,8},2,-2)", 5.0, "LOOKUP!W45"),
    ],
)
def test_lookups_as_excel_cached_them(tmp_path, formula, excel, cell):
    got = _book(tmp_path, {"B1": formula})["B1"]
    assert (str(got) if isinstance(excel, str) and excel.startswith("#") else got) == excel, cell


def test_xlookup_lifts_over_arrays_of_lookup_values_and_modes(tmp_path):
    """LOOKUP!AH162:AW170 {=XLOOKUP(C162:Q162, {-1.1,2.1,3.1,4.1}, {"L","ML","MR","R"}, 1,
    C163:Q163, C162:C169)}: a value per lookup value, match mode (across) and search mode (down),
    not #VALUE! for arrays of modes; here the rows of search modes 1 and -2 (AH163:AK163 "L",
    "ML", 1, 1 and AH166:AK166 "R", "ML", 1, #VALUE! with match modes 1, -1, 0, 2 and values
    -1.1, 2.1, 3, 4)."""
    cells = {"A1": -1.1, "B1": 2.1, "C1": 3, "D1": 4, "A2": 1, "B2": -1, "C2": 0, "D2": 2}
    formula = '=_xlfn.XLOOKUP(A1:D1,{-1.1,2.1,3.1,4.1},{"L","ML","MR","R"},1,A2:D2,{1;-2})'
    got = _block(tmp_path, cells, "F1:I2", formula)
    assert got[0] == ["L", "ML", 1, 1]
    assert got[1] == ["R", "ML", 1, "#VALUE!"]


def test_hlookup_of_an_array_of_values_takes_the_first_of_an_array_of_indexes(tmp_path):
    """LOOKUP!AH44:AW44 {=HLOOKUP(C44:Q44, {-1.1,2.1,3.1,4.1;5,6,7,8}, {2,1}, 0)} with C44:G44 =
    -1.1, 2.1, 3, 4, 4.1: 5, 6, #N/A, #N/A, 8 (row 2 for each value, not the indexes paired)."""
    cells = {"A1": -1.1, "B1": 2.1, "C1": 3, "D1": 4, "E1": 4.1}
    got = _block(tmp_path, cells, "A3:E3", "=HLOOKUP(A1:E1,{-1.1,2.1,3.1,4.1;5,6,7,8},{2,1},0)")
    assert [str(v) if isinstance(v, str) else v for v in got[0]] == [5, 6, "#N/A", "#N/A", 8]


# --- IS functions over a reference in an array formula ---------------------------------------


def test_an_is_function_of_a_reference_pads_a_larger_block_with_its_value_of_na(tmp_path):
    """INFORMATION!AI6:AW6 {=ISBLANK(D6:Q6)}, AH8:AW8 {=ISERROR(C8:Q8)}, AH12:AW12 {=ISNA(C12:
    Q12)}, AO13:AW13 {=ISNONTEXT(M13:Q13)}: past the end of the range (AW6, AW8, AW12, AT13:AW13)
    FALSE, TRUE, TRUE, TRUE: the function of #N/A, the reference padded, not #N/A itself."""
    cells = {"A1": 1, "A2": "x"}
    assert _block(tmp_path, cells, "C1:C3", "=ISBLANK(A1:A2)") == [[False], [False], [False]]
    assert _block(tmp_path, cells, "C1:C3", "=ISNA(A1:A2)") == [[False], [False], [True]]
    assert _block(tmp_path, cells, "C1:C3", "=ISNONTEXT(A1:A2)") == [[True], [False], [True]]
    got = _block(tmp_path, cells, "C1:C3", "=ISERR(A1:A2)")
    assert got == [[False], [False], [False]]  # (ISERR of #N/A is FALSE: AW7)


def test_isformula_of_a_range_in_an_array_formula_tests_each_cell(tmp_path):
    """INFORMATION!AH10:AW10 {=ISFORMULA(C10:J10)} with F10 "=10": TRUE at AK10, FALSE at the
    other cells of the range, #N/A past it (AP10:AW10); EXTRA!BG76:BH94 alike."""
    got = _block(tmp_path, {"A1": 1, "A2": "=10", "A3": 3}, "C1:C4", "=_xlfn.ISFORMULA(A1:A3)")
    assert [r[0] for r in got[:3]] == [False, True, False] and str(got[3][0]) == "#N/A"


# --- error precedence ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("formula", "excel", "cell"),
    [
        ('=AND(TRUE,"0",#REF!)', "#REF!", "LOGICAL!AP3"),
        ('=AND(TRUE,"ciao",#REF!,"0")', "#REF!", "LOGICAL!AS3"),
        ('=OR(TRUE,"0",#REF!)', "#REF!", "LOGICAL!AP21"),
        ('=AND(TRUE,#REF!,"0")', "#REF!", "LOGICAL!AQ3"),
    ],
)
def test_and_or_an_error_value_wins_over_a_text_that_is_no_logical(tmp_path, formula, excel, cell):
    assert str(_book(tmp_path, {"A1": formula})["A1"]) == excel, cell


# --- LAMBDA helpers --------------------------------------------------------------------------


def test_an_eta_lambda_is_its_function_of_one_value(tmp_path):
    """LOGICAL!S5:S6 {=BYROW(C4:E5,_xleta.SUM)} with C4:E5 = 0, 1, 2.3; 0, 1, 2.3: 3.3 and 3.3
    (Excel saves SUM passed as a function, "=BYROW(C4:E5,SUM)", as _xleta.SUM)."""
    cells = {"A1": 0, "B1": 1, "C1": 2.3, "A2": 1, "B2": 1, "C2": 2.3}
    got = _block(tmp_path, cells, "E1:E2", "=_xlfn.BYROW(A1:C2,_xleta.SUM)")
    assert [r[0] for r in got] == pytest.approx([3.3, 4.3])


def test_makearray_refuses_a_fractional_size_and_lifts_over_an_array_of_sizes(tmp_path):
    """LOGICAL!R14:AF14 {=MAKEARRAY(C14:Q14,1,LAMBDA(x,y,x+1+y))} with C14:J14 = 0, 2, 2.3, 3,
    -1, blank, "0", TRUE: #VALUE!, 3, #VALUE!, 3, #VALUE!, #VALUE!, #VALUE!, 3 (each size's
    array by its top-left value; 2.3 is no size); T15 =MAKEARRAY(E14,"1",...) #VALUE!."""
    cells = {"A1": 0, "B1": 2, "C1": 2.3, "D1": 3, "E1": -1, "G1": "0", "H1": True}
    lam = "_xlfn.LAMBDA(_xlpm.x,_xlpm.y,_xlpm.x+1+_xlpm.y)"
    got = _block(tmp_path, cells, "A3:H3", f"=_xlfn.MAKEARRAY(A1:H1,1,{lam})")
    assert [str(v) if isinstance(v, str) else v for v in got[0]] == [
        "#VALUE!", 3, "#VALUE!", 3, "#VALUE!", "#VALUE!", "#VALUE!", 3
    ]  # fmt: skip
    assert str(_book(tmp_path, {**cells, "A5": f'=_xlfn.MAKEARRAY(C1,"1",{lam})'})["A5"]) == "#VALUE!"


# --- ROW, COLUMN, ROWS, COLUMNS of range expressions ------------------------------------------


@pytest.mark.parametrize(
    ("formula", "excel", "cell"),
    [
        ("=COLUMN(C14:E14:G13:I14 E13:F13)", 5.0, "LOOKUP!AG12: C14:E14:G13:I14 is C13:I14"),
        ("=ROW(C114:E114:G113:I114 E113:F113)", 113.0, "LOOKUP!AG112"),
        ("=COLUMN(C12:E13 F12:H13)", "#NULL!", "LOOKUP!AG13: no intersection"),
        ("=ROW(C112:E113 F112:H113)", "#NULL!", "LOOKUP!AG113"),
        ("=COLUMNS((E15:H15 J15:K15 L15:O15))", "#NULL!", "LOOKUP!T15"),
        ("=ROWS((E115:H115 J115:K115 L115:O115))", "#NULL!", "LOOKUP!T115"),
    ],
)
def test_row_and_column_of_range_expressions(tmp_path, formula, excel, cell):
    got = _book(tmp_path, {"A1": formula})["A1"]
    assert (str(got) if isinstance(excel, str) else got) == excel, cell


def test_column_of_a_chained_range_and_an_intersection_in_an_array_formula(tmp_path):
    """LOOKUP!AT12:AW14 {=COLUMN(Z12:AA13:AF12:AF13 AB13:AD14)}: 28, 29, 30, #N/A in each row."""
    got = _block(tmp_path, {}, "A1:D2", "=COLUMN(Z12:AA13:AF12:AF13 AB13:AD14)")
    assert [[str(v) if isinstance(v, str) else v for v in r] for r in got] == [[28, 29, 30, "#N/A"]] * 2


def test_sumproduct_of_arrays_of_different_sizes_gives_their_error_first(tmp_path):
    """MATH & TRIG!AE75 =SUMPRODUCT(P75:Q75,H75:I75,I75:K75) with P75 #NUM!: #NUM!, AF75 with
    Q75 #REF! first: #REF! (not the #VALUE! of the sizes); without errors #VALUE!."""
    cells = {"A1": "=SQRT(-1)", "B1": 1, "C1": 2, "D1": 3, "E1": 4}
    cells |= {"F1": "=SUMPRODUCT(A1:B1,C1:E1)", "F2": "=SUMPRODUCT(B1:C1,C1:E1)"}
    got = _book(tmp_path, cells)
    assert (str(got["F1"]), str(got["F2"])) == ("#NUM!", "#VALUE!")


def test_index_of_a_two_dimensional_reference_with_one_number(tmp_path):
    """LOOKUP!R53 =INDEX(C52:E53,2): #REF! (a reference of several rows and columns wants a row
    and a column); R54 =INDEX(C52:E53,-1) stays #VALUE!."""
    got = _book(tmp_path, {"A1": 1, "B2": 2, "D1": "=INDEX(A1:B2,2)", "D2": "=INDEX(A1:B2,-1)"})
    assert (str(got["D1"]), str(got["D2"])) == ("#REF!", "#VALUE!")


# --- IRR -------------------------------------------------------------------------------------


def test_irr_answers_from_a_guess_newton_does_not_converge_from(tmp_path):
    """FINANCIAL!T26 =IRR({-7,2,1,4,-3;-7,2,-1,4,4},E26) with E26 = 7: -0.021126011550541612
    (a 2-D array's values in row order; the rate of the default guess), U26 with guess 4
    0.18158629375365587, AH26:AL26 {=IRR({-7,2,-1,4,-3;7,2,-1,4,4},C26:G26)} 0.1908646418838569
    for each guess 3, 6, 7, 4, 9; V26 =IRR(C27:E27,G26) keeps the far root (19) its guess finds."""
    got = _book(
        tmp_path,
        {
            "A1": 7,
            "B1": "=IRR({-7,2,1,4,-3;-7,2,-1,4,4},A1)",
            "B2": "=IRR({-7,2,-1,4,-3,7,2,1,4},4)",
            "B3": "=IRR({-7,2,-1,4,-3;7,2,-1,4,4},9)",
        },
    )
    assert got["B1"] == pytest.approx(-0.021126011550541612, rel=1e-9)
    assert got["B2"] == pytest.approx(0.18158629375365587, rel=1e-9)
    assert got["B3"] == pytest.approx(0.19086464188385688, rel=1e-9)


def test_irr_of_an_array_holding_an_error_is_value(tmp_path):
    """FINANCIAL!Z26 =IRR({-7,2,-1,4,-3;7,2,-1,4,#N/A}) and AB26:AF26 alike: #VALUE!, not the
    error (a reference's error stays its own)."""
    got = _book(
        tmp_path,
        {"A1": -5, "A2": "=1/0", "A3": 6, "B1": "=IRR({-7,2,-1,4,-3;7,2,-1,4,#N/A})", "B2": "=IRR(A1:A3)"},
    )
    assert (str(got["B1"]), str(got["B2"])) == ("#VALUE!", "#DIV/0!")


# --- regressions -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("formula", "cell"),
    [
        ("=LINEST(A1:C1,C1:E1,0,0)", "STATISTICAL!AB58 =LINEST(M58:O58,O58:Q58,0,0)"),
        ("=LOGEST(A1:C1,C1:E1,0,0)", "STATISTICAL!AB59"),
        ("=TREND({2;3;4;21;2},{2,1;2,2;5,3;2,4;4,1},A1:B2)", "STATISTICAL!AB113"),
        ("=GROWTH({2;3;4;21;2},{2,1;2,2;5,3;2,4;4,1},A1:B2)", "STATISTICAL!AB51"),
    ],
)
def test_a_regression_given_an_error_in_its_arrays_is_value(tmp_path, formula, cell):
    """Excel's #VALUE!, not the #DIV/0! of A1 (M58, M59, M113, M51 there)."""
    cells = {"A1": "=1/0", "B1": 2, "C1": 3, "D1": 4, "E1": 5, "A2": 1, "B2": 2, "G1": formula}
    assert str(_book(tmp_path, cells)["G1"]) == "#VALUE!", cell


# --- UNIQUE ----------------------------------------------------------------------------------


def test_unique_tells_a_blank_cell_from_0_and_shows_it_0(tmp_path):
    """LOOKUP!AN117:AQ119 {=UNIQUE(D117:G119,-1)} with D117:G119 = 3,2,2,1; 2,blank,0,blank;
    1,blank,0,blank: the four columns, 3,2,2,1; 2,0,0,0; 1,0,0,0 (the columns 2,blank,blank and
    2,0,0 are not the same; a blank cell comes out 0)."""
    cells = {"A1": 3, "B1": 2, "C1": 2, "D1": 1, "A2": 2, "C2": 0, "A3": 1, "C3": 0}
    got = _block(tmp_path, cells, "F1:I3", "=_xlfn.UNIQUE(A1:D3,-1)")
    assert got == [[3, 2, 2, 1], [2, 0, 0, 0], [1, 0, 0, 0]]


def test_sort_orders_errors_by_their_codes(tmp_path):
    """LOOKUP!U119:AH119 {=SORT({#VALUE!,1,3,2,2,"b",#DIV/0!,#N/A,#NAME?,#REF!,#NULL!,TRUE,FALSE,
    #NUM!},1,1,1)}: 1, 2, 2, 3, "b", FALSE, TRUE, #NULL!, #DIV/0!, #VALUE!, #REF!, #NAME?, #NUM!,
    #N/A."""
    formula = (
        '=_xlfn._xlws.SORT({#VALUE!,1,3,2,2,"b",#DIV/0!,#N/A,#NAME?,#REF!,#NULL!,TRUE,FALSE,#NUM!},1,1,1)'
    )
    got = [str(v) if isinstance(v, str) else v for v in _block(tmp_path, {}, "A1:N1", formula)[0]]
    assert got[:7] == [1, 2, 2, 3, "b", False, True]
    assert got[7:] == ["#NULL!", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#N/A"]


def test_choosecols_and_chooserows_refuse_numbers_in_several_rows_and_columns(tmp_path):
    """LOOKUP!AH6 {=CHOOSECOLS({1,2,3;4,5,6;7,8,9},D6:E7)} with D6:E7 = 1.1, 2.9; 2, 1: #VALUE!;
    AS6 (D6:E7, D6:E6), AH9 and AO9 {=CHOOSEROWS(...,D9:E10)} alike."""
    cells = {"A1": 1.1, "B1": 2.9, "A2": 2, "B2": 1}
    got = _book(
        tmp_path,
        cells,
        arrays={
            "D1": "=_xlfn.CHOOSECOLS({1,2,3;4,5,6;7,8,9},A1:B2)",
            "E1": "=_xlfn.CHOOSEROWS({1,2,3;4,5,6;7,8,9},A1:B2)",
        },
    )
    assert (str(got["D1"]), str(got["E1"])) == ("#VALUE!", "#VALUE!")


def test_sort_by_a_blank_cell_is_value_error(tmp_path):
    """LOOKUP!AT117 =SORT(D117:G119,H117) with H117 blank is cached #VALUE! (a blank sort_index
    is 0, outside 1..columns); the engine raised a TypeError on it, kept the stored value and
    reported an internal error."""
    got = _book(
        tmp_path,
        {
            "A1": 3,
            "A2": 1,
            "A3": 2,
            "B1": "=_xlfn._xlws.SORT(A1:A3,C1)",
            "B2": "=_xlfn._xlws.SORT(A1:A3,1,C1)",
        },
    )
    assert (str(got["B1"]), str(got["B2"])) == ("#VALUE!", "#VALUE!")


# --- the text of a complex number -----------------------------------------------------------


@pytest.mark.parametrize(
    "formula, excel, cell",
    [
        ('=_xlfn.IMCSCH("13+5j")', "1.28233995888454E-06+4.33496947416312E-06j", "ENGINEERING!S37"),
        ('=_xlfn.IMCSC("7+25j")', "1.82483860060804E-11-2.09403043759793E-11j", "ENGINEERING!R36"),
        ('=IMEXP("-13+25j")', "2.24044486393732E-06-2.99158552811404E-07j", "ENGINEERING!V39"),
        ('=_xlfn.IMCSCH("7+25j")', "0.00180772133453839+0.000241378936123788j", "ENGINEERING!R37"),
        ('=_xlfn.IMCOT("13+5j")', "0.0000692442674613868-1.00005873951153j", "ENGINEERING!S35"),
    ],
)
def test_a_complex_number_writes_parts_below_1e_5_in_scientific_notation(tmp_path, formula, excel, cell):
    """The IM functions write a part below 1E-5 in absolute value as 1.28233995888454E-06 (15
    significant digits), a part of 0.0000692... (S35) or 0.000241... (R37) as a decimal: the
    values Excel cached in the cells named (the engine wrote 0.00000128233995888454)."""
    got = _book(tmp_path, {"A1": formula})["A1"]
    assert got == excel, cell


# --- the order of day and month in a date text ----------------------------------------------


def _dated(tmp_path, cells: dict[str, object], date_order: str | None):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    for ref, v in cells.items():
        ws[ref] = v
    path = tmp_path / "d.xlsx"
    wb.save(path)
    kw = {} if date_order is None else {"date_order": date_order}
    return {ref: v for (_s, ref), v in evaluate_workbook(path, **kw).items()}


_ITALIAN = {
    "I1": "29/02/1900",
    "J1": True,
    "E1": 0.7,
    "A1": "=_xlfn.NORM.DIST(I1,,I1,1)",
    "A2": "=_xlfn.NORM.DIST(J1,I1,E1,1)",
    "A3": "=_xlfn.POISSON.DIST(I1,I1,1)",
    "A4": "=NORMDIST(I1,,I1,1)",
    "A5": '=DATEVALUE("3/4/2024")=DATE(2024,4,3)',
    "A6": '=DATEVALUE("2024-04-03")=DATE(2024,4,3)',
}


def test_a_day_month_year_text_reads_as_the_saving_excel_read_it_with_date_order_dmy(tmp_path):
    """The source was computed by an Excel whose regional settings put the day first (Microsoft's
    DATEVALUE page: dates as "your computer's date and time settings" give them): a cell holding
    the text "29/02/1900" is serial 60 in STATISTICAL!X73 =NORM.DIST(I73,,I73,1) cached
    0.841344746068543, Y73 =NORM.DIST(J73,I73,E73,1) with J73 TRUE and E73 0.7 cached 0,
    X85 =POISSON.DIST(I85,I85,1) cached 0.5342624723609587 and COMPATIBILITY!X26 =NORMDIST(I26,,
    I26,1) cached 0.841344746068543. A workbook does not record the order: the caller gives it
    (``date_order="dmy"``, ``gputco recalc --date-order dmy``); ISO dates read either way."""
    got = _dated(tmp_path, _ITALIAN, "dmy")
    assert got["A1"] == pytest.approx(0.841344746068543, rel=1e-12)
    assert got["A2"] == 0.0
    assert got["A3"] == pytest.approx(0.5342624723609587, rel=1e-12)
    assert got["A4"] == pytest.approx(0.841344746068543, rel=1e-12)
    assert (got["A5"], got["A6"]) == (True, True)


def test_without_date_order_a_day_month_year_text_is_no_date(tmp_path):
    """The default is Excel in the United States (month first): "29/02/1900" has no month 29,
    so it is no number and NORM.DIST of it is #VALUE!; "3/4/2024" is March 4."""
    got = _dated(tmp_path, {**_ITALIAN, "A5": '=DATEVALUE("3/4/2024")=DATE(2024,3,4)'}, None)
    assert [str(got[r]) for r in ("A1", "A2", "A3", "A4")] == ["#VALUE!"] * 4
    assert (got["A5"], got["A6"]) == (True, True)


def test_an_unknown_date_order_is_refused_by_name(tmp_path):
    with pytest.raises(ValueError, match=r"date_order must be one of mdy, dmy, not 'ymd'"):
        _dated(tmp_path, {"A1": "=1"}, "ymd")


# --- criteria that compare with a logical value -----------------------------------------------


@pytest.mark.parametrize(
    "formula, cell",
    [
        ('=SUMIF(I1:J1,"<=TRUE",F1:G1)', "MATH & TRIG!Y73"),
        ('=SUMIFS(F1:G1,I1:J1,"<=TRUE")', "MATH & TRIG!Y74"),
        ('=AVERAGEIF(I1:J1,"<=TRUE",F1:G1)', "STATISTICAL!Y6"),
        ('=AVERAGEIFS(F1:G1,I1:J1,"<=TRUE")', "STATISTICAL!Y7"),
        ('=_xlfn.MAXIFS(F1:G1,I1:J1,"<=TRUE")', "STATISTICAL!Y64"),
        ('=_xlfn.MINIFS(F1:G1,I1:J1,"<=TRUE")', "STATISTICAL!Y68"),
    ],
)
def test_a_criterion_ordered_against_a_logical_value_takes_logical_cells_alone(tmp_path, formula, cell):
    """Over I:J = "ciao", TRUE with F:G = 10, -1, Excel cached -1 in each cell named: the text
    is not "<=TRUE" (the engine compared it as the text "TRUE" and took 10 too)."""
    cells = {"I1": "ciao", "J1": True, "F1": 10, "G1": -1, "A1": formula}
    assert _book(tmp_path, cells)["A1"] == -1.0, cell


def test_count_of_cells_ordered_against_a_logical_value(tmp_path):
    """The rule above with the order both ways: FALSE < TRUE among logical cells, texts and
    numbers never match (COUNTIF counts what the SUMIF cells above sum)."""
    cells = {
        "A1": True,
        "A2": False,
        "A3": "TRUE",
        "A4": 1,
        "B1": '=COUNTIF(A1:A4,"<=TRUE")',
        "B2": '=COUNTIF(A1:A4,"<TRUE")',
        "B3": '=COUNTIF(A1:A4,">FALSE")',
        "B4": '=COUNTIF(A1:A4,"=TRUE")',
    }
    got = _book(tmp_path, cells)
    assert [got[r] for r in ("B1", "B2", "B3", "B4")] == [2.0, 1.0, 1.0, 2.0]


# --- the error of two paired arrays with errors ----------------------------------------------


def _error_columns(row: int) -> dict[str, object]:
    """The source's error columns on one row, made by formulas: K #VALUE!, L #N/A, M #DIV/0!,
    N #NAME?, O #NULL!, P #NUM!, Q #REF! (the file holds them typed), J TRUE before them."""
    made = ("=#VALUE!", "=NA()", "=1/0", "=#NAME?", "=#NULL!", "=SQRT(-1)", "=#REF!")
    return {f"J{row}": True, **{f"{c}{row}": v for c, v in zip("KLMNOPQ", made, strict=True)}}


_ERRS = {**_error_columns(1), "R1": -0.01, "S1": -0.01, "I1": "29/02/1900", "R2": 0.075, "S2": 0.175}


@pytest.mark.parametrize(
    "formula, excel, cell",
    [
        ("=CORREL(J1:L1,L1:N1)", "#N/A", "STATISTICAL!Y20"),
        ("=CORREL(M1:O1,O1:Q1)", "#DIV/0!", "STATISTICAL!AB20"),
        ("=_xlfn.T.TEST(J1:K1,L1:M1,1,1)", "#N/A", "STATISTICAL!Y107"),
        ("=_xlfn.T.TEST(O1:P1,Q1:R1,2,2)", "#NUM!", "STATISTICAL!AD107"),
        ("=_xlfn.F.TEST(O1:P1,Q1:R1)", "#NUM!", "STATISTICAL!AD34 (with #DIV/0! in R34: the same)"),
        ("=_xlfn.COVARIANCE.P(J1:L1,L1:N1)", "#N/A", "STATISTICAL!Y26"),
        ("=_xlfn.COVARIANCE.P(O1:Q1,Q1:S1)", "#NUM!", "STATISTICAL!AD26"),
        ("=_xlfn.COVARIANCE.S(O1:Q1,Q1:S1)", "#NUM!", "STATISTICAL!AD27"),
        ("=PEARSON(J1:K1,L1:M1)", "#N/A", "STATISTICAL!Y77"),
        ("=PEARSON(O1:P1,Q1:R1)", "#NUM!", "STATISTICAL!AD77"),
        ("=RSQ(O1:P1,Q1:R1)", "#NUM!", "STATISTICAL!AD91"),
        ("=SLOPE(O1:Q1,Q1:S1)", "#NUM!", "STATISTICAL!AD94"),
        ("=STEYX(O1:P1,Q1:R1)", "#NUM!", "STATISTICAL!AD101"),
        ("=INTERCEPT(CHOOSE({1,2,3,4,5},O1,P1,Q1,R2,S2),K1:O1)", "#NUM!", "STATISTICAL!AD55"),
        ("=FORECAST(0.025,CHOOSE({1,2,3},I1,J1,K1),CHOOSE({1,2,3},N1,O1,P1))", "#NAME?", "STATISTICAL!AD37"),
    ],
)
def test_paired_arrays_give_their_first_error_passing_over_pairs_that_start_with_null(
    tmp_path, formula, excel, cell
):
    """The cells of the source's row hold J TRUE, K #VALUE!, L #N/A, M #DIV/0!, N #NAME?, O #NULL!,
    P #NUM!, Q #REF! (typed error values; here made by formulas); Excel cached the value given
    in the cell named. The engine gave the first array's first error (#VALUE!, #NULL!)."""
    got = _book(tmp_path, {**_ERRS, "A1": formula})["A1"]
    assert str(got) == excel, cell


# --- statistical functions' edges ------------------------------------------------------------

_ROW = {"C1": 0, "D1": -10, "E1": 0.9, "F1": 2.2, "G1": -0.1, "I1": "1/01/1900", "J1": True}


@pytest.mark.parametrize(
    "formula, excel, cell",
    [
        ("=LARGE(C1:J1,E1)", "#NUM!", "STATISTICAL!AG57 (k 0.9: truncated to 0)"),
        ("=SMALL(C1:J1,E1)", "#NUM!", "STATISTICAL!AG95 (k 0.9)"),
        ("=SMALL(C1:J1,F1)", -0.1, "STATISTICAL!AK95 (k 2.2: the second smallest)"),
        ("=QUARTILE(F1:G1,G1)", "#NUM!", "COMPATIBILITY!U32 (quart -0.1 < 0, before truncating)"),
        ("=_xlfn.QUARTILE.INC(C1:J1,G1)", "#NUM!", "STATISTICAL!AL88"),
        ("=TRIMMEAN(C1:J1,1)", "#NUM!", "STATISTICAL!S115 (percent 1)"),
        ("=TRIMMEAN(C1:J1,J1)", "#NUM!", "STATISTICAL!Y115 (percent TRUE)"),
        ('=_xlfn.MODE.SNGL(E1:F1,F1:G1,G1:G1,"3")', 2.2, "STATISTICAL!T71 (a number text typed counts)"),
        ('=INDEX(_xlfn.MODE.MULT(E1:F1,F1:G1,G1:G1,"3"),1)', 2.2, "STATISTICAL!T69 (MODE.MULT too)"),
        ("=_xlfn.NEGBINOM.DIST(60,60,H1,1)", "#NUM!", "STATISTICAL!X72 (probability_s 0)"),
        ("=PROB({1,2,3,4,5},{0.1,0.2,0.3,0.3,0.1},1,H1)", 0.0, "STATISTICAL!Z86 (upper_limit 0 < 1)"),
    ],
)
def test_statistical_edges_as_excel_cached_them(tmp_path, formula, excel, cell):
    """Each value as the cell named cached it, its arguments rebuilt (the source's row holds 0,
    -10, 0.9, 2.2, -0.1 in C:G, H blank, a date text in I, TRUE in J; the engine rounded k up,
    truncated -0.1 to 0, kept percent 1, took a typed number text for #VALUE!, read
    probability_s 0 as no success and swapped PROB's limits)."""
    got = _book(tmp_path, {**_ROW, "A1": formula})["A1"]
    assert (float(got) if type(got) in (int, float) else str(got)) == excel, cell


_Z = {"D1": 3.2, "E1": 0.7, "F1": 2, "G1": 4, "I1": "a text", **_error_columns(1)}


@pytest.mark.parametrize(
    "formula, excel, cell",
    [
        ("=_xlfn.Z.TEST(D1:E1,F1,0)", "#NUM!", "U121 (sigma 0)"),
        ("=_xlfn.Z.TEST(G1:I1,H1,2)", "#DIV/0!", "V121 (one number, sigma given)"),
        ("=_xlfn.Z.TEST(J1:K1,L1)", "#N/A", "Y121 (x's error before the array's)"),
        ("=_xlfn.Z.TEST(K1:L1,M1)", "#DIV/0!", "Z121"),
        ("=_xlfn.Z.TEST(L1:M1,O1,N1)", "#NULL!", "AA121 (x's error before sigma's)"),
        ("=_xlfn.Z.TEST(M1:N1,3,N1)", "#NAME?", "AB121 (sigma's error before the array's)"),
        ("=_xlfn.Z.TEST(O1:P1,Q1)", "#REF!", "AD121"),
    ],
)
def test_z_test_takes_its_scalars_errors_first_and_needs_two_numbers(tmp_path, formula, excel, cell):
    """STATISTICAL row 121 of the source (D:G 3.2, 0.7, 2, 4; H blank; I a date text; J TRUE;
    K:Q the seven errors): each cell named cached the value given."""
    got = _book(tmp_path, {**_Z, "A1": formula})["A1"]
    assert str(got) == excel, cell


@pytest.mark.parametrize(
    "formula, excel, cell",
    [
        ('=IMDIV("3.1+2j","-3+2i")', "#NUM!", "ENGINEERING!T38"),
        ('=IMDIV("-3+2i","-13+25j")', "#NUM!", "ENGINEERING!U38"),
        ('=IMSUB("3.1+2j","-3+2i")', "#NUM!", "ENGINEERING!T51"),
        ('=IMPRODUCT("-3+2i","3.1+2j")', "#VALUE!", "ENGINEERING!T44"),
    ],
)
def test_mixed_suffixes_are_num_in_imsub_and_imdiv_value_in_improduct(tmp_path, formula, excel, cell):
    """Two complex numbers written with "i" and "j": Excel cached the value given in the cell
    named (the engine gave #VALUE! to all, as Microsoft's COMPLEX page says of suffixes)."""
    assert str(_book(tmp_path, {"A1": formula})["A1"]) == excel, cell


@pytest.mark.parametrize(
    "rate, excel, cell",
    [(-0.1, "#NUM!", "FINANCIAL!S56"), (0, "#NUM!", "FINANCIAL!U56"), (None, "#NUM!", "FINANCIAL!X56")],
)
def test_xnpv_of_a_rate_of_0_or_below_is_num(tmp_path, rate, excel, cell):
    """XNPV(rate, C55:G55, C54:G54) with values -10, 1, 5, 0.0001, 4.5 on dates 1, 99, 55, 4, 9:
    Excel cached #NUM! for the rates given (a blank cell as the third), and -0.6124748432976563
    for a rate of 2 (T56), which the engine gives too."""
    cells = {"A1": -10, "B1": 1, "C1": 5, "D1": 0.0001, "E1": 4.5, "A2": 1, "B2": 99, "C2": 55, "D2": 4}
    cells |= {"E2": 9, "F1": "=XNPV(H1,A1:E1,A2:E2)", "F2": "=XNPV(2,A1:E1,A2:E2)"}
    if rate is not None:
        cells["H1"] = rate
    got = _book(tmp_path, cells)
    assert str(got["F1"]) == excel, cell
    assert got["F2"] == pytest.approx(-0.6124748432976563, rel=1e-12)


@pytest.mark.parametrize(
    "formula, excel, cell",
    [
        ('=TEXT(1,"[<=1]x;[<=2]a;xx")', "x", "EXTRA!A34 (its third section b, an era code here)"),
        ('=TEXT(2,"[<=1]a;[=2]xx;xcx")', "xx", "EXTRA!A35"),
        ('=TEXT(3,"[<=1]a;[=2]aa;xxx")', "xxx", "EXTRA!A36"),
        ('=TEXT(10.93,"#"".505#""°F""#""")', "11.505#°F#", "EXTRA!A3"),
        ('=TEXT(1.23,"#""°F""""")', "#VALUE!", "EXTRA!A4 (a quote left open)"),
        ('=TEXT(130,"m mm mmm mmmm mmmmm mmmmmm mmmmmmm")', "5 05 May May M May May", "EXTRA!A37"),
        ('=TEXT(130.31322,"s ss sss ssss")', "2 02 02 02", "EXTRA!A40"),
        ('=TEXT(130.63332,"h hh hhh hhhh")', "15 15 15 15", "EXTRA!A41"),
        ('=TEXT(130.33332,"h hh hhh hhhh")', "7 07 07 07", "EXTRA!A42"),
    ],
)
def test_text_formats_as_excel_cached_them(tmp_path, formula, excel, cell):
    """Letters that are no code show as written (Microsoft's guidelines ask for them quoted; the
    engine gave #VALUE!), a quote left open is #VALUE!, mmmmmm and longer the month's name,
    hhh and sss as hh and ss: the values Excel cached in the cells named."""
    assert str(_book(tmp_path, {"A1": formula})["A1"]) == excel, cell


def test_check_says_when_differences_may_be_the_saving_excel_s_date_order(tmp_path):
    """A --check that finds differences in a workbook holding a date text that is a date only
    day first ("29/02/1900", as the source's cells hold) says so, and names --date-order dmy;
    with dmy given, or with no such text, it says nothing of it."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    ws["I1"], ws["A1"] = "29/02/1900", "=_xlfn.NORM.DIST(I1,,I1,1)"
    path = tmp_path / "it.xlsx"
    wb.save(path)  # no cached values: A1 differs from its stored blank either way
    notes = recalc_file(path, check=True, engine="gputco").notes
    assert any("S!I1 '29/02/1900'" in n and "--date-order dmy" in n for n in notes), notes
    assert not any(
        "day first" in n for n in recalc_file(path, check=True, engine="gputco", date_order="dmy").notes
    )
    ws["I1"] = "2/9/1900"
    wb.save(path)
    assert not any("day first" in n for n in recalc_file(path, check=True, engine="gputco").notes)


_GROUPED = [
    ('=TEXT(1234567890,"0,## ##, ##")', "1,234,56 7,8 90", "EXTRA!A13"),
    ('=TEXT(1234567890,"+0,## ## ##")', "+1,234,56 7,8 90", "EXTRA!A14"),
    ('=TEXT(1234567890,"0,## ## ,##")', "1,234,56 7,8 ,90", "EXTRA!A15 (a comma after a blank is text)"),
    (
        '=TEXT(1000000.555,"0 .  # ,0.00.0,00")',
        "1000000 .  5 ,5.50.000",
        "EXTRA!A16 (a second point is text)",
    ),
    ('=TEXT(1234567.555,"#,##000######## .  # ,0.00.0,00")', "00,01,234,567 .  5 ,5.50.000", "EXTRA!A17"),
    ('=TEXT(1000000.555,"##00,############# .  # ,0.00.0,00")', "001,000,000 .  5 ,5.50.000", "EXTRA!A18"),
    ('=TEXT(12345678.555,"#,##000######## .  # ,0.00.0,00")', "00,012,345,678 .  5 ,5.50.000", "EXTRA!A19"),
    (
        '=TEXT(1234578.555,"#,##00000000####0### .  # ,0.00.0,00")',
        "0,000,000,01,234,578 .  5 ,5.50.000",
        "A20",
    ),
    ('=TEXT(1234578.555,"#,##000000070###### .  # ,0.00.0,00")', "00,000,0071,234,578 .  5 ,5.50.000", "A22"),
    ('=TEXT(1234578.555,"0cc###,00")', "1,2cc34,579", "EXTRA!A24"),
    (
        '=TEXT(1.000000001,"00###.##.0000.00")',
        "001..0000.00",
        "EXTRA!A2 (an optional # of a 0 shows nothing)",
    ),
    (
        '=TEXT(1234578.555,"#,##00000,  ,00 , 0########    .  # ,0.00.0,00")',
        "0,000,0  ,00, , 01,234,578    .  5 ,5.50.000",
        "EXTRA!A23 (a separator at the right end of the placeholder to its left)",
    ),
]


@pytest.mark.parametrize("formula, excel, cell", _GROUPED)
def test_thousands_separators_fall_among_placeholders_around_literal_text(tmp_path, formula, excel, cell):
    """A grouped number keeps the literal text of its format between the placeholders it sits
    between, the separators counted over the placeholders' positions from the right (an empty
    # too, a separator showing only left of a shown character); a comma after literal text and a
    second decimal point are text (the engine put every digit first and the text after)."""
    assert _book(tmp_path, {"A1": formula})["A1"] == excel, cell


def test_frequency_of_blank_bins_is_one_bin_of_0(tmp_path):
    """EXTRA!J50:J51 {=FREQUENCY(I41:I44,J41:J44)} of 2, 3, 4 with J41:J44 blank: Excel cached
    0 and 3; STATISTICAL!W43 FREQUENCY(C43:G43,H43) of 1, 2, 3, 0, -1 with H43 blank: 2 (the
    engine gave the count of data_array, as Microsoft's page says of bins with no values)."""
    got = _block(tmp_path, {"I1": 2, "I2": 3, "I3": 4}, "A1:A2", "=FREQUENCY(I1:I4,J1:J4)")
    assert got == [[0], [3]]
    one = _book(
        tmp_path, {"C1": 1, "D1": 2, "E1": 3, "F1": 0, "G1": -1, "A3": "=INDEX(FREQUENCY(C1:G1,H1),1)"}
    )
    assert one["A3"] == 2


def test_datedif_yd_counts_in_the_start_s_year_on_excel_s_serials(tmp_path):
    """DATE & TIME!R4 =DATEDIF(D4,C4,"YD") with D4 8 (1900-01-08) and C4 1987 (1905-06-09):
    Excel cached 153, the days to 1900-06-09 with Excel's fictitious 1900-02-29 (from 1905-01-08
    they are 152, the engine's answer before); Microsoft's example DATEDIF(1/1/2001,6/1/2003,
    "YD") 151 holds either way."""
    got = _book(
        tmp_path, {"A1": '=DATEDIF(8,1987,"YD")', "A2": '=DATEDIF(DATE(2001,1,1),DATE(2003,6,1),"YD")'}
    )
    assert (got["A1"], got["A2"]) == (153, 151)


_CHI = {"C1": 10, "D1": 0.1, "C2": 10, "D2": 3.2, "E1": 0.7, "E2": 0.7, "E3": 0.7, "E4": 0.7}
_CHI |= {"G9": 4, "I9": "13/01/1900", **_error_columns(9), "R9": 9.66e-58}


@pytest.mark.parametrize(
    "formula, excel, cell",
    [
        ("=_xlfn.CHISQ.TEST(C1:D2,E1:E4)", 9.66041305483331e-58, "STATISTICAL!R17 (2x2 against 4x1; df 1)"),
        ("=_xlfn.CHISQ.TEST(G9:I9,H9:J9)", "#DIV/0!", "STATISTICAL!V17 (no pair of numbers)"),
        ("=_xlfn.CHISQ.TEST(J9:K9,L9:M9)", "#VALUE!", "STATISTICAL!Y17 (actual_range's error first)"),
        ("=_xlfn.CHISQ.TEST(O9:P9,Q9:R9)", "#NUM!", "STATISTICAL!AD17 (#NULL! passed over)"),
    ],
)
def test_chisq_test_pairs_ranges_of_as_many_cells(tmp_path, formula, excel, cell):
    got = _book(tmp_path, {**_CHI, "A1": formula})["A1"]
    if isinstance(excel, float):
        assert got == pytest.approx(excel, rel=1e-12), cell
    else:
        assert str(got) == excel, cell
