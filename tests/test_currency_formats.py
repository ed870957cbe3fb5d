"""No cell that a TCO_ formula reads carries a currency number format, in every workbook gputco writes.

Why: xlwings reads a UDF's arguments with Excel's ``Range.Value``, which returns a cell formatted
as currency as the Currency data type, "rounded to 4 decimal places" (Microsoft, Range.Value
property: https://learn.microsoft.com/en-us/office/vba/api/excel.range.value; xlwings issue 640:
https://github.com/xlwings/xlwings/issues/640). A TCO_ function reading such a cell would compute
on 1.4199 where the native formula beside it reads 1.41993964599 (docs/excel-currency.md). The
money unit stands in the unit column instead. The workbooks: the finance workbook (default and all
ten systems) and the example scenario workbook (grid, Sensitivity, Monte Carlo).
"""

from __future__ import annotations

import re

import openpyxl
import pytest
from openpyxl.formula import Tokenizer
from openpyxl.utils.cell import range_boundaries

from gputco.udfs import presets
from gputco.workbook.finance.build import write_template

#: Excel's built-in currency and accounting formats (ECMA-376 Part 1, 18.8.30 numFmt: ids 5-8 are
#: currency, 41-44 accounting) as openpyxl names them
BUILTIN_CURRENCY = {openpyxl.styles.numbers.BUILTIN_FORMATS[i] for i in (5, 6, 7, 8, 41, 42, 43, 44)}
#: a locale-only token such as [$-409] (a language for dates, no currency symbol)
_LOCALE = re.compile(r"\[\$-[0-9A-Fa-f]+\]")


def is_currency(fmt: str) -> bool:
    """A number format Excel may treat as Currency: a built-in currency/accounting format, or a
    currency symbol anywhere in it (quoted, escaped, bare or in a locale token ``[$€-407]``)."""
    return fmt in BUILTIN_CURRENCY or any(s in _LOCALE.sub("", fmt) for s in "$€£¥₹")


def test_the_detector_knows_currency_formats():
    for fmt in ('"$"#,##0.0000', '"$"#,##0', "$#,##0.00", "\\$0.00", "[$€-407] #,##0.00", "#,##0 €"):
        assert is_currency(fmt), fmt
    assert is_currency(openpyxl.styles.numbers.BUILTIN_FORMATS[7])
    plain = ("#,##0.0000", "0.00%", "General", "[$-409]d-mmm-yy", "0.0000E+00", '#,##0.0,,,," T"')
    for fmt in (*plain, "+0.00%;-0.00%;0.00%"):
        assert not is_currency(fmt), fmt


def cells_read_by_tco_formulas(path) -> dict[tuple[str, str], str]:
    """{(sheet, cell): number format} of every cell a formula with a TCO_ function refers to,
    directly or through a defined name."""
    wb = openpyxl.load_workbook(path)
    out = {}

    def add(sheet: str, ref: str) -> None:
        min_col, min_row, max_col, max_row = range_boundaries(ref.replace("$", ""))
        ws = wb[sheet]
        for row in ws.iter_rows(min_row=min_row, max_row=max_row, min_col=min_col, max_col=max_col):
            for c in row:
                out[(sheet, c.coordinate)] = c.number_format

    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for c in row:
                if not (isinstance(c.value, str) and c.value.startswith("=") and "TCO_" in c.value.upper()):
                    continue
                for tok in Tokenizer(c.value).items:
                    if tok.type != "OPERAND" or tok.subtype != "RANGE":
                        continue
                    ref = tok.value
                    if ref in wb.defined_names:
                        for sheet, dest in wb.defined_names[ref].destinations:
                            add(sheet, dest)
                    elif "!" in ref:
                        sheet, dest = ref.rsplit("!", 1)
                        add(sheet.strip("'"), dest)
                    elif "[" in ref:
                        pytest.fail(f"{ws.title}!{c.coordinate}: structured reference {ref} in a TCO_ call")
                    else:
                        add(ws.title, ref)
    return out


@pytest.fixture(scope="module")
def workbooks(tmp_path_factory, default_template, example_scenarios):
    ten = write_template(
        tmp_path_factory.mktemp("currency") / "ten.xlsx", list(presets.catalog("system"))
    ).path
    return {"finance": default_template, "ten": ten, "scenarios": example_scenarios}


@pytest.mark.parametrize("name", ["finance", "ten", "scenarios"])
def test_no_cell_a_tco_formula_reads_is_formatted_as_currency(workbooks, name):
    read = cells_read_by_tco_formulas(workbooks[name])
    formats = set(read.values())
    currency = {where: fmt for where, fmt in read.items() if is_currency(fmt)}
    assert not currency, f"{name}: {len(currency)} currency cells read by TCO_ formulas: {currency}"
    assert len(read) > 20 and "#,##0.0000" in formats, (name, len(read), formats)  # the USD cells
