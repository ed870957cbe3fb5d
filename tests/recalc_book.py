"""Workbooks for the recalculation tests, written with openpyxl (no cached values).

- :func:`probe_book`: a Data sheet of numbers, text, blanks, errors and lookup tables, a sheet with
  a space in its name, workbook- and sheet-scoped defined names, a Probes sheet with one formula
  per row (column B; column A holds its text), and a Shared sheet whose formulas are shared
  formulas (``<f t="shared">``), as Excel writes them, and a Sub sheet with nested SUBTOTAL and
  AGGREGATE cells, a hidden row (row 5) and an error.
- :func:`tco_book`: a scenario sheet of N rows of TCO-like formulas (PMT, arithmetic, INDEX/MATCH
  into a small table, cross-sheet inputs through absolute references).
- :func:`make_shared`: rewrite a column of formulas into one shared formula.
- :func:`mark_dynamic`: mark formula cells as dynamic arrays (cm="1"), as Excel 365 saves spills.
- :func:`s_sheet`: a workbook of one sheet "S" holding given rows and cells.
- :func:`ms`: the address of a function's page on Microsoft's support site, the source of the
  examples the function tests reproduce.
"""

from __future__ import annotations

import re
import shutil
import zipfile
from pathlib import Path

import openpyxl
from openpyxl.workbook.defined_name import DefinedName
from openpyxl.worksheet.formula import ArrayFormula

DATA_A = [3, -2, 0, 5.5, 10, 1e-3, 7, 2, 8, 4]
SORTED_UP = [10, 20, 30, 40, 50]
NAMES = ["alpha", "beta", "Gamma", "delta", "epsilon"]
SORTED_DOWN = [50, 40, 30, 20, 10]
SYSTEMS = [
    ("H100", 31250, 0.7, 989),
    ("B200", 45000, 1.2, 2250),
    ("GB200", 54167, 1.6, 2500),
    ("A100", 15000, 0.5, 312),
]


def with_inputs(src, dst, **values):
    """The workbook ``src`` with named inputs set by openpyxl (no data validation runs), saved as
    ``dst``."""
    wb = openpyxl.load_workbook(src)
    for name, value in values.items():
        ((sheet, ref),) = wb.defined_names[name].destinations
        wb[sheet][ref.replace("$", "")] = value
    wb.save(dst)
    return dst


def ms(slug: str) -> str:
    """Microsoft's support page of an Excel function (``"rate"`` -> the RATE function's page)."""
    return f"https://support.microsoft.com/en-us/excel/functions/{slug}-function"


def s_sheet(rows=(), cells=None):
    """(workbook, sheet) of a new workbook whose one sheet is "S": ``rows`` (a list of values a
    row) written from A1, then ``cells`` (reference -> value)."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    for r, row in enumerate(rows, start=1):
        for c, v in enumerate(row, start=1):
            ws.cell(r, c, v)
    for ref, v in (cells or {}).items():
        ws[ref] = v
    return wb, ws


def formulas_in_a(path: Path, title: str, formulas, wb=None) -> Path:
    """Save ``wb`` (a new workbook if None) at ``path`` with ``formulas`` down column A of its
    first sheet, which is named ``title`` (row i + 1 holds formulas[i]); returns ``path``."""
    wb = openpyxl.Workbook() if wb is None else wb
    ws = wb.worksheets[0]
    ws.title = title
    for row, formula in enumerate(formulas, start=1):
        ws.cell(row, 1).value = formula
    wb.save(path)
    return path


def mark_dynamic(path: Path, cells, part: str) -> None:
    """Add cm="1" (Excel 365's dynamic-array marker) to the given cells of the sheet stored in
    ``part`` (``"xl/worksheets/sheet2.xml"``), as Excel 365 saves spilling formulas."""
    tmp = path.with_suffix(".tmp")
    with zipfile.ZipFile(path) as zin, zipfile.ZipFile(tmp, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename == part:
                for cell in cells:
                    data = re.sub(rb'<c r="' + cell.encode() + rb'"', rb'\g<0> cm="1"', data)
            zout.writestr(info, data)
    tmp.replace(path)


def probe_book(path: Path, probes: list[str]) -> Path:
    """Write the probe workbook; Probes!B{i+1} holds probes[i]."""
    wb = openpyxl.Workbook()
    data = wb.active
    data.title = "Data"
    for i, x in enumerate(DATA_A, start=1):
        data.cell(i, 1, x)
    for row, v in enumerate(["abc", "3", None, 5, "Hello World", "=NA()", "=1/0", "  two  words "], start=1):
        if v is not None:
            data.cell(row, 2, v)
    for i, (up, name, down) in enumerate(zip(SORTED_UP, NAMES, SORTED_DOWN, strict=True), start=1):
        data.cell(i, 3, up)
        data.cell(i, 4, name)
        data.cell(i, 5, down)
    data["F1"], data["F2"] = True, False
    for i, row in enumerate(SYSTEMS, start=1):
        for j, v in enumerate(row):
            data.cell(i, 8 + j, v)  # H:K lookup table
    other = wb.create_sheet("Other Sheet")
    other["A1"], other["A2"], other["A3"], other["A4"] = 42, 0.05, "x", "=A1*2"
    wb.defined_names["rate"] = DefinedName("rate", attr_text="'Other Sheet'!$A$2")
    wb.defined_names["growth"] = DefinedName("growth", attr_text="0.1")
    wb.defined_names["nums"] = DefinedName("nums", attr_text="Data!$A$1:$A$10")
    probes_ws = wb.create_sheet("Probes")
    probes_ws.defined_names["k_local"] = DefinedName("k_local", attr_text="Data!$A$1")
    for i, formula in enumerate(probes, start=1):
        probes_ws.cell(i, 1, formula[1:])
        probes_ws.cell(i, 2, formula)
    shared = wb.create_sheet("Shared")
    for r in range(1, 7):
        shared.cell(r, 1, r * 1.5)
        shared.cell(r, 2, f"=A{r}*2+$A$1+Data!C{r}")
        shared.cell(r, 3, f"=SUM($A$1:A{r})")
    arrays = wb.create_sheet("Arrays")
    for r in range(1, 5):
        arrays.cell(r, 1, r)
        arrays.cell(r, 2, r * 10)
    arrays["C1"] = ArrayFormula("C1", "=SUM(A1:A4*B1:B4)")
    arrays["C2"] = ArrayFormula("C2", "=MAX(IF(A1:A4>2,B1:B4))")
    arrays["C3"] = ArrayFormula("C3", "=SUM((A1:A4>1)*(B1:B4<40))")
    sub = wb.create_sheet("Sub")  # nested subtotals, a hidden row, an error (SUBTOTAL probes)
    for r, v in enumerate(
        [10, 20, 30, "=SUBTOTAL(9,A1:A3)", 40, 50, "=_xlfn.AGGREGATE(9,0,A5:A6)", "=1/0", 5], start=1
    ):
        sub.cell(r, 1, v)
    sub.row_dimensions[5].hidden = True
    wb.save(path)
    make_shared(path, "Shared", "B", 1, 6)
    return path


def make_shared(path: Path, sheet_title: str, col: str, first: int, last: int) -> None:
    """Turn col{first}..col{last} of a sheet into one shared formula (master + children)."""
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
        parts = {n: z.read(n) for n in names}
        wb_xml = parts["xl/workbook.xml"].decode()
    index = re.findall(r'<sheet [^>]*name="([^"]+)"', wb_xml).index(sheet_title) + 1
    part = f"xl/worksheets/sheet{index}.xml"
    xml = parts[part].decode()
    for r in range(first, last + 1):
        m = re.search(rf'<c r="{col}{r}"([^>]*)><f>([^<]*)</f>', xml)
        assert m, f"{col}{r} has no formula"
        if r == first:
            new = (
                f'<c r="{col}{r}"{m.group(1)}><f t="shared" ref="{col}{first}:{col}{last}" '
                f'si="0">{m.group(2)}</f>'
            )
        else:
            new = f'<c r="{col}{r}"{m.group(1)}><f t="shared" si="0"/>'
        xml = xml[: m.start()] + new + xml[m.end() :]
    parts[part] = xml.encode()
    tmp = path.with_suffix(".tmp")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
        for n in names:
            z.writestr(n, parts[n])
    shutil.move(tmp, path)


def tco_book(path: Path, rows: int, *, write_only: bool = False) -> Path:
    """A scenario sheet: one scenario per row, ~10 TCO-like formulas each.

    Inputs!B1..B4 hold hours per year, PUE, tariff and colocation price (absolute references);
    Inputs!A7:D10 a small system table (INDEX/MATCH); Scenarios holds per-row inputs in A:E and
    formulas in F:O.
    """
    wb = openpyxl.Workbook(write_only=write_only)
    inputs = wb.create_sheet("Inputs") if write_only else wb.active
    if not write_only:
        inputs.title = "Inputs"
    inp_rows = [
        ["hours", 8760],
        ["pue", 1.3],
        ["usd_per_kwh", 0.087],
        ["colo", 130],
        [],
        [],
        ["system", "capex", "kw", "tflops"],
    ]
    inp_rows += [list(s) for s in SYSTEMS]
    for r in inp_rows:
        inputs.append([r[0], r[1]] if len(r) == 2 else r)
    ws = wb.create_sheet("Scenarios")
    ws.append(
        [
            "system",
            "rate",
            "life",
            "mfu",
            "residual",
            "capex",
            "capital_h",
            "kw",
            "power_h",
            "colo_h",
            "tco_h",
            "tflops",
            "tok_s",
            "usd_mtok",
            "check",
        ]
    )
    for i in range(rows):
        r = i + 2
        system = SYSTEMS[i % len(SYSTEMS)][0]
        ws.append(
            [
                system,
                0.08 + (i % 17) * 0.005,
                3 + i % 5,
                0.3 + (i % 23) * 0.01,
                (i % 3) * 0.05,
                f"=INDEX(Inputs!$B$8:$B$11,MATCH(A{r},Inputs!$A$8:$A$11,0))*(1+0.1*E{r})",
                f"=-PMT(B{r},C{r},F{r},-E{r}*F{r})/Inputs!$B$1",
                f"=VLOOKUP(A{r},Inputs!$A$8:$D$11,3,FALSE)",
                f"=H{r}*Inputs!$B$2*Inputs!$B$3",
                f"=H{r}*Inputs!$B$4/(Inputs!$B$1/12)",
                f"=G{r}+I{r}+J{r}",
                f"=INDEX(Inputs!$D$8:$D$11,MATCH(A{r},Inputs!$A$8:$A$11,0))",
                f"=D{r}*L{r}*1E12/(6*175E9+12*96*12288*2048)",
                f"=IF(M{r}>0,K{r}/(M{r}*3600)*1E6,NA())",
                f"=ROUND(N{r},6)-ROUND(K{r}/(M{r}*3600)*1E6,6)+MAX(0,MIN(1,D{r}))"
                f"+SUMIF(Inputs!$A$8:$A$11,A{r},Inputs!$C$8:$C$11)-H{r}+COUNTIF(Inputs!$A$8:$A$11,A{r})",
            ]
        )
    wb.save(path)
    return path
