"""The Checks sheet: the gputco UDFs (``=TCO_...``) computing the same results as the native formulas.

One row per (quantity, column): the native value, the UDF's value, their relative difference and
whether it is within ``chk_tolerance``. A row is OK only where both sides are numbers that agree, or
both say the same documented text (the native cell's text, e.g. "no payback within life", and the
function's error text for it, "#NUM! no payback within life: ..."); an Excel error on either side
(#NAME? without the add-in, #N/A, #NUM!...) makes the row FALSE, whether it applies or not, and so
``chk_ok``. A row that does not apply (its inputs are not given, the check is of a name-based function
while a preset is overridden) says so on both sides and is OK. ``chk_ok`` is TRUE when every row is.

An IRR's native side is the Model sheet's own IRR, Newton started from the sheet's guess (-0.5 for
flows summing below 0, else 0.1), not from the function's answer: an error in the TCO_ cell cannot
carry over into the native side. Only where both are numbers that differ (flows with several sign
changes have several IRRs) is it Excel's IRR started at the function's answer, equal to it exactly
when that answer is an IRR (:func:`gputco.workbook.finance.projectflows.irr_native`). Where Excel's IRR does not converge from the
sheet's guess (a deeply negative IRR), the native side says "no IRR from the sheet's guess" and the
row does not apply.
The name-based UDFs (``TCO_GPU_HOUR(system, buyer)``...) read the presets, so they only apply
while no preset is overridden on Inputs; their "applies" cell says so.

In Excel the UDF cells need the gputco add-in (xlwings); without it they show #NAME? and the check
fails. The values stored in the file come from gputco's headless recalculation, which evaluates
them with the same Python functions.
"""

from __future__ import annotations

import re

from openpyxl.formatting.rule import CellIsRule
from openpyxl.utils import get_column_letter

from gputco.udfs import chain, registry
from gputco.workbook.finance import benchmarks as sheet_benchmarks
from gputco.workbook.finance import cashflow as sheet_cashflow
from gputco.workbook.finance import projectflows
from gputco.workbook.xlsx import styles
from gputco.workbook.xlsx.book import BookBuilder

SHEET = "Checks"
HEADINGS = ["check", "where", "native", "UDF", "relative difference", "applies", "OK"]

#: per system column: the chain's steps that a TCO_ function computes (udfs.chain Step.check)
MODEL_CHECKS = [s.key for s in chain.STEPS if s.check is not None]

#: name-based checks: (sheet, key, UDF template, applies template); {k} is the column's system,
#: ``<name@1>`` and ``<name@k>`` the Model cells of row ``name`` of system 1 and of this system
NAMED_CHECKS = [
    (
        "Model",
        "capex_per_gpu",
        "=TCO_CAPEX_PER_GPU(inp_system_{k},inp_buyer)",
        '=AND(inp_capex_per_gpu_{k}="",inp_capex_multiplier="")',
    ),
    (
        "Model",
        "tco_usd_per_gpu_hour",
        "=TCO_GPU_HOUR(inp_system_{k},inp_buyer)",
        '=AND(inp_capex_per_gpu_{k}="",inp_it_kw_per_gpu_{k}="",COUNTA(inp_buyer_overrides)=0)',
    ),
    (
        "Compare",
        "tco_ratio",
        "=TCO_RATIO(inp_system_1,inp_system_{k},inp_buyer)",
        "=AND(COUNTA(inp_capex_per_gpu_all,inp_it_kw_per_gpu_all,inp_buyer_overrides)=0)",
    ),
    (
        "Compare",
        "breakeven_mfu",
        "=TCO_BREAKEVEN_MFU(inp_mfu_1,inp_system_1,inp_system_{k},inp_precision,inp_buyer,"
        "<availability@1>,<availability@k>,<utilisation@1>,<utilisation@k>,<goodput@1>,<goodput@k>)",
        "=AND(COUNTA(inp_capex_per_gpu_all,inp_it_kw_per_gpu_all,inp_peak_tflops_all,inp_buyer_overrides)=0)",
    ),
]

#: per published run on Benchmarks: (column key, UDF template with <col> = that column's cell)
BENCH_CHECKS = [
    ("flops_per_token", "=TCO_FLOPS_PER_TOKEN(<model>)"),
    ("tokens_per_gpu_second", "=TCO_TOKENS_PER_GPU_SECOND(<flops_per_token>,<peak_tflops>,<mfu>)"),
    (
        "cost_per_mtok_article",
        "=TCO_COST_PER_MTOK(inp_article_usd_per_gpu_hour,<flops_per_token>,<peak_tflops>,<mfu>)",
    ),
    (
        "joules_per_token",
        "=TCO_JOULES_PER_TOKEN(<utility_watts_per_gpu>,<flops_per_token>,<peak_tflops>,<mfu>)",
    ),
]


def udf_names() -> set[str]:
    """The UDFs this sheet calls (each must be in udfs.UDFS)."""
    templates = (
        [registry.check_formula(k, lambda n: n) for k in MODEL_CHECKS]
        + [t for *_, t, _ in NAMED_CHECKS]
        + [t for _, t in BENCH_CHECKS]
        + ["=TCO_GPU_HOUR("]
    )
    return {m for t in templates for m in re.findall(r"TCO_[A-Z_]+(?=\()", t)}


def difference(r: int) -> str:
    """Column E of row ``r``: 0 where both sides are the same number or the same documented text
    (the function's error text is ``#NUM! `` and the native text, then its reason), their relative
    difference where both are numbers, else 1 (an error, a number against a text, two texts)."""
    c, d = f"C{r}", f"D{r}"
    return (
        f"=IF(AND(ISNUMBER({c}),ISNUMBER({d})),IF({d}={c},0,ABS({d}-{c})/MAX(ABS({c}),ABS({d}))),"
        f'IF(AND(ISTEXT({c}),ISTEXT({d})),IF(OR(EXACT({d},{c}),EXACT(LEFT({d},LEN({c})+6),"#NUM! "&{c})),0,1),1))'
    )


def verdict(r: int) -> str:
    """Column G of row ``r``: FALSE where either side or the "applies" cell is an Excel error, else
    TRUE where the row does not apply or its difference is within the tolerance."""
    return f"=IF(OR(ISERROR(C{r}),ISERROR(D{r}),ISERROR(F{r})),FALSE,OR(NOT(F{r}),E{r}<=chk_tolerance))"


def build(book: BookBuilder) -> None:
    ws = book.wb.create_sheet(SHEET)
    styles.title(
        ws,
        "Checks: gputco's Excel functions against the native formulas",
        "UDF cells need the gputco add-in in Excel (else #NAME?). A name-based UDF reads the "
        "presets, so it only applies while nothing is overridden on Inputs.",
    )
    ws["A4"], ws["A5"] = "All checks pass", "Tolerance (relative)"
    ws["A4"].font = styles.BOLD
    ws["C5"] = 1e-9
    styles.style_input(ws["C5"])
    ws["C5"].number_format = "0.0E+00"
    book.define_cell("chk_tolerance", ws, 5, 3)
    header = 7
    styles.header_row(ws, header, HEADINGS)
    rows: list[tuple[str, str, str, str, str]] = []  # key, where, native, udf, applies

    for col in book.system_cols():
        k = col - book.system_col(1) + 1
        letter = get_column_letter(col)
        for key in MODEL_CHECKS:
            native = f"=Model!{letter}{book.row('Model', key)}"
            udf = book.formula(registry.check_formula(key, lambda n: f"[Model:{n}]"), SHEET, col)
            needs = chain.optional_inputs_of(key)  # the rent: the check applies when it is given
            tests = [f"ISNUMBER(Model!{letter}{book.row('Model', n)})" for n in needs]
            if tests:  # the function is called only where its optional inputs are given
                udf = f'=IF(AND({",".join(tests)}),{udf[1:]},"needs {" and ".join(needs)}")'
            where = f"Model!{letter} (System {k})"
            if key == "irr":  # Excel's IRR may not reach a deeply negative IRR from the sheet's
                # guess (#NUM!): the row says so and does not apply
                tests.append(f"ISNUMBER({native[1:]})")
                flows = sheet_cashflow.year_ref("net", "0:last", sheet=sheet_cashflow.sheet_name(k))
                native = "=" + projectflows.irr_native(native[1:], "{udf}", f"IRR({flows},{{udf}})")
                where += ": Excel's IRR from the sheet's guess"
            applies = "=AND(" + ",".join(tests) + ")" if tests else "=TRUE()"
            rows.append((key, where, native, udf, applies))
        rows += projectflows.check_rows(book, col)
        for sheet, key, template, applies in NAMED_CHECKS:
            if sheet == "Compare" and k == 1:
                continue
            native = f"={sheet}!{letter}{book.row(sheet, key)}"
            rows.append(
                (
                    key,
                    f"{sheet}!{letter} (System {k}, by name)",
                    native,
                    re.sub(
                        r"<([a-z_]+)@([1k])>",
                        lambda m, col=col: (
                            f"Model!${get_column_letter(book.system_col(1) if m.group(2) == '1' else col)}"
                            f"${book.row('Model', m.group(1))}"
                        ),
                        template.replace("{k}", str(k)),
                    ),
                    applies.replace("{k}", str(k)),
                )
            )

    bench = book.wb[sheet_benchmarks.SHEET]
    for i, sys_cell in enumerate(bench[book.row(sheet_benchmarks.SHEET, "bench_system")][2:]):
        if sys_cell.value is None:
            break
        letter = get_column_letter(3 + i)
        native = f"=Benchmarks!{letter}{book.row(sheet_benchmarks.SHEET, 'bench_tco_usd_per_gpu_hour')}"
        rows.append(
            (
                "bench_tco_usd_per_gpu_hour",
                f"Benchmarks!{letter} ({sys_cell.value}, by name)",
                native,
                f"=TCO_GPU_HOUR(Benchmarks!{sys_cell.coordinate},inp_buyer)",
                "=COUNTA(inp_buyer_overrides)=0",
            )
        )
    col_of = {key: i for i, (key, *_r) in enumerate(sheet_benchmarks.COLUMNS, start=1)}
    first = book.row(sheet_benchmarks.SHEET, "_runs")
    r = first
    while bench.cell(row=r, column=1).value:
        run_key = bench.cell(row=r, column=1).value
        for key, template in BENCH_CHECKS:
            cell = f"Benchmarks!{get_column_letter(col_of[key])}{r}"
            udf = template
            for name, c in sorted(col_of.items(), key=lambda kv: -len(kv[0])):
                udf = udf.replace(f"<{name}>", f"Benchmarks!{get_column_letter(c)}{r}")
            rows.append((key, f"{cell} ({run_key})", f"={cell}", udf, "=TRUE()"))
        r += 1

    for i, (key, where, native, udf, applies) in enumerate(rows):
        r = header + 1 + i
        ws.cell(row=r, column=1, value=key).font = styles.KEY_FONT
        ws.cell(row=r, column=2, value=where).font = styles.KEY_FONT
        native = native.replace("{udf}", f"D{r}")
        ws.cell(row=r, column=3, value=native).number_format = "0.000000E+00"
        ws.cell(row=r, column=4, value=udf).number_format = "0.000000E+00"
        ws.cell(row=r, column=5, value=difference(r)).number_format = "0.0E+00"
        ws.cell(row=r, column=6, value=applies)
        ws.cell(row=r, column=7, value=verdict(r))
    last = header + len(rows)
    ws["C4"] = f"=AND(G{header + 1}:G{last})"
    ws["C4"].font = styles.BOLD
    book.define_cell("chk_ok", ws, 4, 3)
    for rng in (f"G{header + 1}:G{last}", "C4"):
        ws.conditional_formatting.add(
            rng, CellIsRule(operator="equal", formula=["TRUE"], fill=styles.OK_DXF_FILL)
        )
        ws.conditional_formatting.add(
            rng, CellIsRule(operator="equal", formula=["FALSE"], fill=styles.BAD_DXF_FILL)
        )
    styles.widths(ws, {1: 26, 2: 44, 3: 16, 4: 16, 5: 12, 6: 9, 7: 8})
    ws.freeze_panes = f"A{header + 1}"
    styles.page_setup(ws, landscape=False, one_page=False)
