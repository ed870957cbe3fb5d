"""One scenario per row: the columns of a row and their formulas, the same shape on every row.

A block of rows (the Scenarios sheet, the Monte Carlo draws, the Sensitivity cases) runs the whole
model chain per row in native formulas. :class:`Layout` decides where each quantity lives:

- an input that varies in the block: a column of values (blue: inputs);
- a *used* value (what the presets give unless the input is typed; FLOPs per token) that
  depends on a varying quantity: a column of formulas (grey: preset lookups);
- every result and cross-check: a column of formulas (black);
- anything else is the same for all rows: one cell on Inputs with a defined name,
  ``<inp><input>`` for an input (``inp_pue``) and ``<use><key>`` for a used value (``use_pue``).

Formula templates: ``[key]`` is the quantity's reference for the row (``$F6`` or a name),
``<key>`` the input cell of that input (blank = use the preset), ``{r}`` the row (expanded by
the chain's one expander, :func:`gputco.udfs.chain.expand`). Preset values
come from the Presets sheet's long tables (``INDEX(sys_value, MATCH(system & ".field", sys_id,
0))``, as on the finance workbook); FLOPs per token is the chain's own steps on the model's
architecture, a column only where the model, the convention or the sequence length varies. The
unit constants
``k_*`` are the chain's. Every column and its formula come from :mod:`gputco.udfs.chain`.

>>> lay = Layout(["system", "mfu"], "inp_", "use_", first_col=2)
>>> lay.ref("mfu"), lay.ref("pue"), lay.ref("tokens")
('$C{r}', 'use_pue', 'inp_tokens')
>>> lay.formula("power_usd_per_gpu_hour")
'=$E{r}*use_pue*use_usd_per_kwh'
>>> Layout(["system", "mfu"], "inp_", "use_", first_col=2, absolute_rows=True).ref("mfu")
'$C${r}'
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from openpyxl.utils import get_column_letter

from gputco.udfs import chain, decisions, project, registry
from gputco.workbook.scenarios import projectcells
from gputco.workbook.xlsx.presets_sheet import lookup


@dataclass(frozen=True)
class Quantity:
    """One quantity of the chain: key, heading, unit (a key of styles.FORMATS) and formula."""

    key: str
    label: str
    unit: str
    kind: str  # "input", "used", "result" or "check"
    formula: str = ""


#: the scenario inputs of the chain, in column order
INPUTS = {i.key: Quantity(i.key, i.label, i.unit, "input") for i in chain.SCENARIO_INPUTS}

_KEYS = {"system": "[system]", "buyer": "[buyer]", "model": "[model]", "precision": "[precision]"}


def _used_input(i: chain.Input) -> Quantity:
    """The value used for a preset-backed input: the typed one, else its presets."""
    preset = "*".join(lookup(p, _KEYS) for p in i.presets)
    return Quantity(i.key, i.label, i.unit, "used", f'=IF(<{i.key}>="",{preset},<{i.key}>)')


def _arch(i: chain.Input) -> Quantity:
    """A preset-only value: the row's model architecture, or a system field (GPUs per unit)."""
    return Quantity(i.key, i.label, i.unit, "used", "=" + lookup(i.presets[0], _KEYS))


#: used values in dependency order: the preset-backed inputs (sharing their input's key), those
#: that default to another input (depreciation years: the life), the model's architecture, and
#: the chain's model-level steps (FLOPs per token)
USED = (
    *(_used_input(i) for i in chain.SCENARIO_INPUTS if i.default == chain.PRESET),
    *(
        Quantity(i.key, i.label, i.unit, "used", f'=IF(<{i.key}>="",[{i.default.key}],<{i.key}>)')
        for i in chain.SCENARIO_INPUTS
        if isinstance(i.default, chain.Like)
    ),
    *(_arch(i) for i in chain.INPUTS if i.scope in ("model", "system_preset")),
    *(
        Quantity(s.key, s.label, s.unit, "used", chain.formula(s.key, lambda n: f"[{n}]"))
        for s in chain.STEPS
        if s.level == "model"
    ),
)
PRESET_BACKED = frozenset(q.key for q in USED if q.key in INPUTS)


def _result_steps() -> list[chain.Step]:
    """The chain's scenario-level steps that its outputs need, one column each (those reading
    the per-year cash-flow table included: :class:`Layout` gives them their year cells)."""
    return [s for s in chain.closure(list(chain.outputs())) if s.level == "scenario"]


#: the per-year cash-flow columns a row needs cells for (the others are inlined)
YEAR_COLUMNS = tuple(chain.year_cells_needed([s.key for s in _result_steps()]))
#: years 0..LAST_YEAR: the longest cash-flow table (whole years of life)
LAST_YEAR = decisions.MAX_LIFE
#: what NPV, IRR, payback and break-even rent say in a block written without a cash-flow table
NO_TABLE = "needs rent_usd_per_gpu_hour (give one in the SPEC: the cash-flow columns come with it)"


def cash_flow_years(inputs) -> int:
    """The last year a block's cash-flow table needs: the longest life or depreciation of its
    rows (``inputs`` as for :func:`gputco.udfs.scenario.evaluate`), rounded up into [1, LAST_YEAR]; 0
    (no table) where no row gives a rent.

    >>> cash_flow_years({"system": "H100_HGX", "mfu": 0.4, "rent_usd_per_gpu_hour": 2.0,
    ...                  "life_years": [4, 6.5]})
    7
    >>> cash_flow_years({"system": "H100_HGX", "mfu": 0.4})
    0
    """
    from gputco.udfs import scenario

    used = scenario.used_inputs(inputs)
    if np.isnan(np.asarray(used["rent_usd_per_gpu_hour"], dtype=float)).all():
        return 0
    longest = max(float(np.max(used[k])) for k in ("life_years", "depreciation_years"))
    return int(min(LAST_YEAR, max(1, math.ceil(longest))))


def year_key(column: str, year: int) -> str:
    """The column key of one year's cell of a per-year quantity: ``net_y3``."""
    return f"{column}_y{year}"


def _year_ref(last: int, year: int | None = None):
    """The chain's per-year references for a row whose years 0..``last`` have cells."""

    def ref(column: str, spec: str) -> str | None:
        if column == "year":
            return str(year)
        if column not in YEAR_COLUMNS:
            return None  # inlined
        if spec == "":
            return f"[{year_key(column, year)}]"
        if spec == "prev":
            return "0" if year == 0 else f"[{year_key(column, year - 1)}]"
        lo, _, hi = spec.partition(":")
        hi = str(last) if hi == "last" else hi
        cells = f"[{year_key(column, int(lo))}]"
        return cells if not hi else f"{cells}:[{year_key(column, int(hi))}]"

    return ref


def _at_defaults() -> Quantity:
    """TRUE where every project input is at its default (blank: another input's value): a block
    without the project's cells reads the yearly table, which is right only then."""
    tests = []
    for name in project.PROJECT_INPUTS:
        default = {**project.CHOICES, **project.CURVE_TERMS}.get(name, project.TERMS.get(name))
        if name in project.CHOICES or name in project.CURVE_TERMS:
            tests.append(f'<{name}>="{default}"')
        elif isinstance(default, str):  # another input's value: blank
            tests.append(f'<{name}>=""')
        else:
            tests.append(f"<{name}>={default:g}")
    return Quantity(AT_DEFAULTS, "Project inputs at their defaults", "", "used", f"=AND({','.join(tests)})")


#: the named cell that says whether a block without the project's cells may read the yearly table
AT_DEFAULTS = "project_at_defaults"
#: what the rent-or-buy results say there where a project input was set on Inputs
NEEDS_PROJECT = (
    "project inputs set on Inputs: this workbook has no project cells; set them in the SPEC "
    "(docs/scenarios.md)"
)


def _guarded(key: str, last: int = LAST_YEAR) -> str:
    """The step's formula, empty with the reason in rows where an optional input (the rent) is
    blank; a step that reads the cash-flow table also says so where the life or depreciation is
    not whole years 1..``last`` (the years the row has cells for)."""
    if chain.reads_year_table(key) and last == 0:  # no rent in the SPEC: no cash-flow table
        return f'="{NO_TABLE}"'
    text = chain.formula(key, lambda n: f"[{n}]", year=_year_ref(last))
    if chain.reads_year_table(key):
        whole = ",".join(
            f"[{n}]<>INT([{n}]),[{n}]<1,[{n}]>{last}" for n in ("life_years", "depreciation_years")
        )
        text = f'=IF(OR({whole}),"cash flows need whole life and depreciation years 1..{last}",{text[1:]})'
        text = f'=IF(NOT([{AT_DEFAULTS}]),"{NEEDS_PROJECT}",{text[1:]})'
    needs = chain.optional_inputs_of(key)
    if not needs:
        return text
    test = ",".join(f"ISNUMBER([{n}])" for n in needs)
    return f'=IF(AND({test}),{text[1:]},"needs {" and ".join(needs)}")'


def _check(key: str, short: str, label: str) -> tuple[Quantity, Quantity]:
    """A TCO_ function beside the native column ``key`` (column ``<short>_udf``), and their
    relative difference (``<short>_udf_diff``)."""
    return (
        Quantity(
            f"{short}_udf",
            label,
            chain.step(key).unit,
            "check",
            registry.check_formula(key, lambda n: f"[{n}]"),
        ),
        Quantity(
            f"{short}_udf_diff", "relative difference", "rel. diff", "check", f"=[{short}_udf]/[{key}]-1"
        ),
    )


#: the TCO_ functions beside the native formulas, and their relative differences
CHECKS = (
    *_check("tco_usd_per_gpu_hour", "tco", "TCO per GPU-hour by =TCO_TOTAL_PER_GPU_HOUR"),
    *_check("usd_per_mtok", "usd_per_mtok", "Cost per Mtok by =TCO_COST_PER_MTOK"),
)

_REF = re.compile(r"\[([a-z0-9_]+)\]")


class Layout:
    """Where each quantity lives for one block of rows, and the formula of every column.

    Parameters
    ----------
    varying : sequence of str
        The inputs with a column of their own (values per row), in column order.
    inp, use : str
        Name prefixes of the cells that hold the other inputs (``"inp_"``) and the used values
        that are the same on every row (``"use_"``).
    first_col : int
        The 1-based column of the first varying input.
    checks : bool
        Add the TCO_ cross-check columns.
    last_year : int
        The cash-flow table has cells for years 0..``last_year`` (the longest whole life of the
        block's rows; years after a row's life are 0). A row whose life is longer, or not whole,
        says so in its NPV, IRR and payback cells instead of computing a wrong number. 0: no
        row gives a rent, no table (those cells say what they need).
    project : int or None
        None: no project terms (the yearly table above; the rent-or-buy results say so where a
        project input is typed on Inputs). A number: the block carries the cluster project's
        cells for periods 0..``project`` (:mod:`.projectcells`; 0: no row gives a rent) instead
        of the yearly table, and the project's results.
    """

    def __init__(
        self,
        varying: Sequence[str],
        inp: str,
        use: str,
        *,
        first_col: int,
        checks: bool = False,
        last_year: int = LAST_YEAR,
        project: int | None = None,
        absolute_rows: bool = False,
    ) -> None:
        unknown = [k for k in varying if k not in INPUTS]
        self.absolute_rows = absolute_rows  # a row reads its columns as $F$6, not $F6 (see ref)
        if unknown:
            raise ValueError(f"not scenario inputs: {unknown}")
        self.varying = list(varying)
        self.inp, self.use = inp, use
        self.checks, self.first_col = checks, first_col
        moving = set(self.varying)
        self.used_columns: list[Quantity] = []
        self.constants: list[Quantity] = []
        for q in USED:
            if q.key in moving:  # an input given per row: its column is the value used
                continue
            if any(d in moving for d in _REF.findall(q.formula)):
                moving.add(q.key)
                self.used_columns.append(q)
            else:
                self.constants.append(q)
        if project is None:
            self.constants.append(_at_defaults())
        if (project is None and not 0 <= last_year <= LAST_YEAR) or last_year != int(last_year):
            raise ValueError(f"last_year must be a whole number in [0, {LAST_YEAR}], got {last_year!r}")
        self.last_year = int(last_year)
        self.project = project
        if project is not None:
            self._project(project)
            return
        self.results = [
            Quantity(
                chain.project_name(st.key), st.label, st.unit, "result", _guarded(st.key, self.last_year)
            )
            for st in _result_steps()
        ]
        self.year_columns = [
            Quantity(
                year_key(c, y),
                f"{chain.year_step(c).label}, year {y}",
                "years" if c == "payback_point" else "USD",
                "year",
                chain.formula(c, lambda n: f"[{n}]", year=_year_ref(self.last_year, y)),
            )
            for c in YEAR_COLUMNS
            for y in range(self.last_year + 1)
            if self.last_year
        ]
        self.columns: list[Quantity] = (
            [INPUTS[k] for k in self.varying]
            + self.used_columns
            + self.results
            + (list(CHECKS) if checks else [])
            + self.year_columns
        )
        self.col = {q.key: first_col + i for i, q in enumerate(self.columns)}

    def _project(self, last: int) -> None:
        """The columns of a block with the project's terms (:mod:`.projectcells`): the chain's
        results with those that read the cash flows taken from the project's periods 0..``last``,
        the project's results, its terms as used, the tax years and the periods."""
        self.last_year = last
        own = projectcells.result_formulas(last)
        self.results = [
            Quantity(
                chain.project_name(st.key),
                st.label,
                st.unit,
                "result",
                own.get(st.key) or _guarded(st.key, LAST_YEAR),
            )
            for st in _result_steps()
        ] + [Quantity(k, v[0], v[1], "result", own[k]) for k, v in chain.PROJECT_OUTPUTS.items()]
        terms = [
            Quantity(k, *projectcells.scalar_label(k), "project", projectcells.scalar_formula(k))
            for k in projectcells.SCALARS
        ]
        tax = _cells(
            projectcells.TAX_CELLS,
            range(1, projectcells.TAX_YEARS + 1) if last else range(0),
            "tax year",
            lambda c: "fraction" if c == "macrs" else "USD",
            projectcells.tax_formula,
        )
        periods = _cells(
            projectcells.CELLS,
            range(last + 1) if last else range(0),
            "period",
            lambda c: "years" if c == "payback_point" else "USD",
            lambda c, p: projectcells.period_formula(c, p, last),
        )
        self.year_columns = terms + tax + periods
        self.columns = (
            [INPUTS[k] for k in self.varying]
            + self.used_columns
            + self.results
            + (list(CHECKS) if self.checks else [])
            + self.year_columns
        )
        self.col = {q.key: self.first_col + i for i, q in enumerate(self.columns)}

    def block(self, varying: Sequence[str], *, first_col: int, last_year: int, project: int | None) -> Layout:
        """A block's layout reading this one's named cells (the base scenario's, for the
        Sensitivity cases and the Monte Carlo draws), its rows written as this one's."""
        return Layout(
            varying,
            self.inp,
            self.use,
            first_col=first_col,
            last_year=last_year,
            project=project,
            absolute_rows=self.absolute_rows,
        )

    def letter(self, key: str) -> str:
        return get_column_letter(self.col[key])

    def ref(self, key: str) -> str:
        """The reference of a quantity for row ``{r}``: its column, else its named cell (a chain
        step's column under its project name: ``[irr]`` is the column ``project_irr``).

        With ``absolute_rows`` (a SPEC with a reserve, sweep or lock-up: Spec.waterfall) a column
        is read on the row absolutely (``$F$6`` in row 6): LibreOffice 7.4 then forms no formula
        groups of the block's rows, whose threaded calculation reads some of a row's waterfall
        cells as 0 (issue 40, docs/scenarios.md); gputco's engine reads ``$F$6`` in row 6 as
        ``$F6`` and keeps a column one group (workbook/recalc/base/refs.own_row_relative)."""
        key = chain.project_name(key)
        if key in self.col:
            return f"${self.letter(key)}{'$' if self.absolute_rows else ''}{{r}}"
        if key in INPUTS and key not in PRESET_BACKED:
            return f"{self.inp}{key}"
        if any(q.key == key for q in self.constants):
            return f"{self.use}{key}"
        raise KeyError(f"{key} has no column and no named cell in this layout")

    def expand(self, template: str) -> str:
        """A formula template with every ``[key]`` and ``<key>`` replaced."""
        return chain.expand(template, self.ref, lambda key, _at: f"{self.inp}{key}")

    def formula(self, key: str) -> str:
        """The formula of a quantity with a column or a named cell ({r} marks the row)."""
        key = chain.project_name(key)
        q = next(
            q for q in (*USED, *self.constants, *self.results, *CHECKS, *self.year_columns) if q.key == key
        )
        return self.expand(q.formula)


def _cells(terms, numbers, word: str, unit, formula) -> list[Quantity]:
    """One cell of each project term for each tax year or period ``numbers``: key, label
    ("interest, period 3"), unit and formula of the term at that number."""
    return [
        Quantity(projectcells.key(c, n), f"{c}, {word} {n}", unit(c), "period", formula(c, n))
        for c in terms
        for n in numbers
    ]
