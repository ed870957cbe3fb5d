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
``<key>`` the input cell of that input (blank = use the preset), ``{r}`` the row. Preset values
come from the Presets sheet's long tables (``INDEX(sys_value, MATCH(system & ".field", sys_id,
0))``, as on the finance workbook); FLOPs per token is the chain's own steps on the model's
architecture, a column only where the model, the convention or the sequence length varies. The
unit constants
``k_*`` are the chain's. Every column and its formula come from :mod:`udfs.chain`.

>>> lay = Layout(["system", "mfu"], "inp_", "use_", first_col=2)
>>> lay.ref("mfu"), lay.ref("pue"), lay.ref("tokens")
('$C{r}', 'use_pue', 'inp_tokens')
>>> lay.formula("power_usd_per_gpu_hour")
'=$E{r}*use_pue*use_usd_per_kwh'
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from openpyxl.utils import get_column_letter

from udfs import chain
from workbook.xlsx.presets_sheet import lookup


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


#: used values in dependency order: the preset-backed inputs (sharing their input's key), the
#: model's architecture, and the chain's model-level steps (FLOPs per token)
USED = (
    *(_used_input(i) for i in chain.SCENARIO_INPUTS if i.default == chain.PRESET),
    *(_arch(i) for i in chain.INPUTS if i.scope in ("model", "system_preset")),
    *(Quantity(s.key, s.label, s.unit, "used", chain.formula(s.key, lambda n: f"[{n}]"))
      for s in chain.STEPS if s.level == "model"),
)
PRESET_BACKED = frozenset(q.key for q in USED if q.key in INPUTS)

def results() -> tuple[Quantity, ...]:
    """The chain's scenario-level steps that its outputs need, one column each."""
    return tuple(Quantity(s.key, s.label, s.unit, "result", _guarded(s.key))
                 for s in chain.closure(list(chain.outputs()))
                 if s.level == "scenario" and not chain.reads_year_table(s.key))


def _guarded(key: str) -> str:
    """The step's formula, empty with the reason in rows where an optional input (the rent) is
    blank."""
    text = chain.formula(key, lambda n: f"[{n}]")
    needs = chain.optional_inputs_of(key)
    if not needs:
        return text
    test = ",".join(f"ISNUMBER([{n}])" for n in needs)
    return f'=IF(AND({test}),{text[1:]},"needs {" and ".join(needs)}")'


def _check(key: str, short: str, label: str) -> tuple[Quantity, Quantity]:
    """A TCO_ function beside the native column ``key`` (column ``<short>_udf``), and their
    relative difference (``<short>_udf_diff``)."""
    return (Quantity(f"{short}_udf", label, chain.step(key).unit, "check",
                     chain.check_formula(key, lambda n: f"[{n}]")),
            Quantity(f"{short}_udf_diff", "relative difference", "rel. diff", "check",
                     f"=[{short}_udf]/[{key}]-1"))


#: the TCO_ functions beside the native formulas, and their relative differences
CHECKS = (*_check("tco_usd_per_gpu_hour", "tco", "TCO per GPU-hour by =TCO_TOTAL_PER_GPU_HOUR"),
          *_check("usd_per_mtok", "usd_per_mtok", "Cost per Mtok by =TCO_COST_PER_MTOK"))

_REF = re.compile(r"\[([a-z0-9_]+)\]")
_INPUT_CELL = re.compile(r"<([a-z0-9_]+)>")


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
    """

    def __init__(self, varying: Sequence[str], inp: str, use: str, *, first_col: int,
                 checks: bool = False) -> None:
        unknown = [k for k in varying if k not in INPUTS]
        if unknown:
            raise ValueError(f"not scenario inputs: {unknown}")
        self.varying = list(varying)
        self.inp, self.use = inp, use
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
        self.columns: list[Quantity] = [INPUTS[k] for k in self.varying] + self.used_columns \
            + list(results()) + (list(CHECKS) if checks else [])
        self.col = {q.key: first_col + i for i, q in enumerate(self.columns)}

    def letter(self, key: str) -> str:
        return get_column_letter(self.col[key])

    def ref(self, key: str) -> str:
        """The reference of a quantity for row ``{r}``: its column, else its named cell."""
        if key in self.col:
            return f"${self.letter(key)}{{r}}"
        if key in INPUTS and key not in PRESET_BACKED:
            return f"{self.inp}{key}"
        if any(q.key == key for q in self.constants):
            return f"{self.use}{key}"
        raise KeyError(f"{key} has no column and no named cell in this layout")

    def expand(self, template: str) -> str:
        """A formula template with every ``[key]`` and ``<key>`` replaced."""
        text = _INPUT_CELL.sub(lambda m: f"{self.inp}{m.group(1)}", template)
        return _REF.sub(lambda m: self.ref(m.group(1)), text)

    def formula(self, key: str) -> str:
        """The formula of a quantity with a column or a named cell ({r} marks the row)."""
        q = next(q for q in (*USED, *results(), *CHECKS) if q.key == key)
        return self.expand(q.formula)
