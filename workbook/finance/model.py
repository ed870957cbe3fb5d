"""The Model sheet: the chain of :mod:`gputco.udfs.chain` in native Excel formulas, one row per quantity,
one column per system.

The rows are generated: each section of the chain lists the inputs its steps read first (where
they come from: an input cell, the buyer type's value, a preset looked up on Inputs) and then its
steps, each with the chain's formula, unit and "how". Column A holds the quantity's key (the
chain's name, which is also the batch output column); every result has a defined name
``out_<key>_<n>`` for system column n, so scripts read results as they write ``inp_`` inputs.
Formulas hold no numbers: unit constants are named cells on Inputs (``k_*``); only the integer
coefficients of the published FLOPs formulas (6, 12, 2) appear literally.
"""

from __future__ import annotations

from gputco.udfs import chain
from gputco.workbook.finance import projectflows
from gputco.workbook.xlsx import styles
from gputco.workbook.xlsx.book import BookBuilder

SHEET = "Model"
#: the model preset's architecture (chain inputs of scope "model")
_ARCH = {i.key for i in chain.INPUTS if i.scope == "model"}

#: text inputs shown at the top of a section (they select presets rather than feed a step)
_LEADING_TEXT = {"Capital": ("system", "buyer"), "Throughput and cost per token": ("model", "precision")}


def preset_ref(p: chain.Preset) -> str:
    """The finance workbook's cell of a preset value (looked up on Inputs for column {k})."""
    if p.table == "system":
        field = p.field.replace("_{precision}", "")  # Inputs looks it up at inp_precision
        return f"pre_{field}_{{k}}"
    if p.table == "buyer":
        return f"use_{p.field}"
    return f"pre_{p.field}"


def input_formula(i: chain.Input) -> tuple[str, str]:
    """(formula template, how) of an input's row: where the finance workbook takes it from."""
    if i.scope == "buyer":
        return f"=use_{i.key}", "Inputs: buyer type (your value, else the preset)"
    if i.scope == "model":
        return f"=pre_{i.key}", "Presets: model architecture"
    if i.scope == "system_preset":
        return f"=pre_{i.key}_{{k}}", "Presets: system"
    cell = f"inp_{i.key}_{{k}}" if i.scope == "system" else f"inp_{i.key}"
    if i.default == chain.OPTIONAL:
        return f'=IF({cell}="","",{cell})', "Inputs (blank: the results that need it stay empty)"
    if isinstance(i.default, chain.Like):
        return (f'=IF({cell}="",[{i.default.key}],{cell})', f"your value on Inputs, else the {i.default.key}")
    if i.default != chain.PRESET:
        return f"={cell}", "Inputs"
    preset = "*".join(preset_ref(p) for p in i.presets)
    return f'=IF({cell}="",{preset},{cell})', "your value on Inputs, else the preset: " + " x ".join(
        f"{p.table} {p.field}".replace("_{precision}", " at the precision") for p in i.presets
    )


def rows() -> list[tuple[str | None, str, str, str, str]]:
    """(key, label, unit, formula template, how) per row; key None is a section heading."""
    out: list[tuple[str | None, str, str, str, str]] = []
    shown: set[str] = set()
    sections = list(dict.fromkeys(s.section for s in chain.STEPS))
    for section in sections:
        out.append((None, section, "", "", ""))
        steps = [s for s in chain.STEPS if s.section == section]
        needed = list(_LEADING_TEXT.get(section, ()))
        needed += [a for s in steps for a in s.args if chain.is_input(a)]
        if any(chain.reads_year_table(s.key) for s in steps):  # the Cash flow sheets' inputs
            needed += [a for y in chain.YEAR_STEPS for a in y.args if chain.is_input(a)]
        for key in dict.fromkeys(needed):
            if key in shown:
                continue
            i = chain.get_input(key)
            template, how = input_formula(i)
            out.append((key, i.label, i.unit, template, how))
            shown.add(key)
        for s in steps:
            template = guarded(
                s.key, chain.formula(s.key, lambda name: f"[{name}]", year=_cash_flow_ref), lambda n: f"[{n}]"
            )
            how = s.how + (PAID_IN_CASH if s.key in chain.PROJECT_NAMED and s.output else "")
            out.append((s.key, s.label, s.unit, template, how))
            shown.add(s.key)
    return out + projectflows.model_rows()


#: what the "how" of a paid-in-cash result adds: which number it is (docs/project.md, "Which NPV
#: is which"; batch and the scenario workbooks give the project's as project_<key>)
PAID_IN_CASH = (
    "; paid in cash, in service at once (the Cash flow sheet's yearly table); the project's (build, "
    "ramp, contracts, MACRS...) is project_<key>: docs/project.md, Which NPV is which"
)


def _cash_flow_ref(column: str, spec: str) -> str:
    """A per-year reference on the column's Cash flow sheet (``{k}`` = the system column)."""
    from gputco.workbook.finance.cashflow import sheet_name, year_ref

    return year_ref(column, spec, sheet=sheet_name("{k}"))


def guarded(key: str, formula: str, ref) -> str:
    """``formula``, empty with the reason where an optional input it needs (the rent) is blank."""
    needs = chain.optional_inputs_of(key)
    if not needs:
        return formula
    test = ",".join(f"ISNUMBER({ref(n)})" for n in needs)
    return f'=IF(AND({test}),{formula[1:]},"needs {" and ".join(needs)}")'


def build(book: BookBuilder) -> None:
    ws = book.wb.create_sheet(SHEET)
    how_col = book.system_col(book.n) + 1
    styles.title(
        ws,
        "Model: every step in native formulas, one column per system",
        "Change the blue cells on Inputs; nothing here is typed by hand. Column A is the "
        "row's key; results have the defined names out_<key>_<n> (n = system column).",
    )
    header = 4
    styles.header_row(
        ws, header, ["key", "step", "unit", *(f"System {k}" for k in range(1, book.n + 1)), "how"]
    )
    layout = rows()
    row = header
    for key, label, *_rest in layout:
        row += 1
        if key is None:
            styles.section_row(ws, row, label, how_col)
            continue
        book.put_row(SHEET, key, row)
    outputs = set(chain.outputs())
    for key, label, unit, template, how in layout:
        if key is None:
            continue
        row = book.row(SHEET, key)
        ws.cell(row=row, column=1, value=key).font = styles.KEY_FONT
        ws.cell(row=row, column=2, value=label)
        ws.cell(row=row, column=3, value=unit).font = styles.KEY_FONT
        for col in book.system_cols():
            cell = ws.cell(row=row, column=col, value=book.formula(template, SHEET, col))
            styles.style_formula(cell, unit)
            if key in _ARCH and not unit:  # 12,288, not 12288
                cell.number_format = styles.ARCHITECTURE
            if key == "tco_usd_per_gpu_hour":
                cell.font = styles.BOLD
            if key in outputs or key in projectflows.RESULTS or key in projectflows.LTV_RESULTS:
                book.define_cell(f"out_{key}_{col - book.system_col(1) + 1}", ws, row, col)
        ws.cell(row=row, column=how_col, value=how).font = styles.NOTE_FONT
    styles.widths(ws, {1: 26, 2: 40, 3: 14, **{c: 16 for c in book.system_cols()}, how_col: 62})
    ws.freeze_panes = ws.cell(row=header + 1, column=book.system_col(1))
    styles.page_setup(ws, landscape=False, one_page=True)
