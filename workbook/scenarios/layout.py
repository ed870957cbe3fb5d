"""One scenario per row: the columns of a row and their formulas, the same shape on every row.

A block of rows (the Scenarios sheet, the Monte Carlo draws, the Sensitivity cases) runs the whole
model chain per row in native formulas. :class:`Layout` decides where each quantity lives:

- an input that varies in the block: a column of values (blue: inputs);
- a *used* value (what the presets give unless the input is typed; FLOPs per token; utility
  power) that depends on a varying quantity: a column of formulas (grey: preset lookups);
- every result and cross-check: a column of formulas (black);
- anything else is the same for all rows: one cell on Inputs with a defined name,
  ``<inp><input>`` for an input (``inp_pue``) and ``<use><key>`` for a used value (``use_pue``).

Formula templates: ``[key]`` is the quantity's reference for the row (``$F6`` or a name),
``<key>`` the input cell of that input (blank = use the preset), ``{r}`` the row. Preset values
come from the Presets sheet's long tables (``INDEX(sys_value, MATCH(system & ".field", sys_id,
0))``, as on the finance workbook) and FLOPs per token from the FLOPs table on Inputs
(``flops_fixed + flops_per_seq x sequence length`` per model and convention). The unit constants
``k_*`` are the finance workbook's.

>>> lay = Layout(["system", "mfu"], "inp_", "use_", first_col=2)
>>> lay.ref("mfu"), lay.ref("pue"), lay.ref("tokens")
('$C{r}', 'use_pue', 'inp_tokens')
>>> lay.formula("tokens_per_gpu_second")
'=$C{r}*$F{r}*k_flops_per_tflop/use_flops_per_token'
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from openpyxl.utils import get_column_letter


@dataclass(frozen=True)
class Quantity:
    """One quantity of the chain: key, heading, unit (a key of styles.FORMATS) and formula."""

    key: str
    label: str
    unit: str
    kind: str  # "input", "used", "result" or "check"
    formula: str = ""


def _buyer(field: str, label: str, unit: str) -> Quantity:
    return Quantity(field, label, unit, "used",
                    f'=IF(<{field}>="",INDEX(buyer_value,MATCH([buyer]&".{field}",buyer_id,0)),'
                    f"<{field}>)")


INPUTS = {q.key: q for q in (
    Quantity("system", "System", "key", "input"),
    Quantity("buyer", "Buyer type", "key", "input"),
    Quantity("model", "Model", "key", "input"),
    Quantity("precision", "Precision", "key", "input"),
    Quantity("convention", "FLOPs convention", "key", "input"),
    Quantity("mfu", "MFU", "fraction", "input"),
    Quantity("tokens", "Tokens trained", "tokens", "input"),
    Quantity("gpus", "GPUs", "GPU", "input"),
    Quantity("seq_len", "Sequence length", "tokens", "input"),
    Quantity("capex_per_gpu", "All-in capex per GPU", "USD", "input"),
    Quantity("cost_of_capital", "Cost of capital", "1/year", "input"),
    Quantity("life_years", "Economic life", "years", "input"),
    Quantity("residual_fraction", "Residual value", "fraction", "input"),
    Quantity("it_kw_per_gpu", "IT load per GPU", "kW", "input"),
    Quantity("pue", "PUE", "ratio", "input"),
    Quantity("usd_per_kwh", "Electricity tariff", "USD/kWh", "input"),
    Quantity("colo_usd_per_kw_month", "Colocation rent", "USD/kW-month", "input"),
    Quantity("other_usd_per_gpu_hour", "Other cost", "USD/GPU-h", "input"),
    Quantity("peak_tflops", "Dense peak TFLOPS", "TFLOPS", "input"),
    Quantity("kwh_per_household_year", "US household-year", "kWh", "input"),
)}

_SYS = 'INDEX(sys_value,MATCH([system]&".{f}",sys_id,0))'
_FLOPS = ("INDEX(flops_{part},MATCH([model],flops_model,0),"
          "MATCH([convention],flops_convention,0))")

#: used values in dependency order; the preset-backed ones share their input's key
USED = (
    Quantity("capex_per_gpu", "All-in capex per GPU", "USD", "used",
             '=IF(<capex_per_gpu>="",' + _SYS.format(f="unit_all_in_usd") + "/"
             + _SYS.format(f="gpus_per_unit")
             + '*INDEX(buyer_value,MATCH([buyer]&".capex_multiplier",buyer_id,0)),<capex_per_gpu>)'),
    Quantity("it_kw_per_gpu", "IT load per GPU", "kW", "used",
             '=IF(<it_kw_per_gpu>="",' + _SYS.format(f="it_kw_per_gpu") + ",<it_kw_per_gpu>)"),
    Quantity("peak_tflops", "Dense peak TFLOPS", "TFLOPS", "used",
             '=IF(<peak_tflops>="",INDEX(sys_value,MATCH([system]&".peak_tflops_"&[precision],'
             'sys_id,0)),<peak_tflops>)'),
    _buyer("cost_of_capital", "Cost of capital", "1/year"),
    _buyer("life_years", "Economic life", "years"),
    _buyer("residual_fraction", "Residual value", "fraction"),
    _buyer("pue", "PUE", "ratio"),
    _buyer("usd_per_kwh", "Electricity tariff", "USD/kWh"),
    _buyer("colo_usd_per_kw_month", "Colocation rent", "USD/kW-month"),
    _buyer("other_usd_per_gpu_hour", "Other cost", "USD/GPU-h"),
    Quantity("seq_len", "Sequence length", "tokens", "used",
             '=IF(<seq_len>="",INDEX(model_value,MATCH([model]&".seq_len",model_id,0)),'
             "<seq_len>)"),
    Quantity("flops_per_token", "FLOPs per token", "FLOPs/token", "used",
             "=" + _FLOPS.format(part="fixed") + "+" + _FLOPS.format(part="per_seq")
             + "*[seq_len]"),
    Quantity("utility_watts_per_gpu", "Utility power per GPU", "W", "used",
             "=[it_kw_per_gpu]*[pue]*k_watts_per_kw"),
)
PRESET_BACKED = frozenset(q.key for q in USED if q.key in INPUTS)

RESULTS = (
    Quantity("capital_usd_per_gpu_hour", "Capital per GPU-hour", "USD/GPU-h", "result",
             "=-PMT([cost_of_capital],[life_years],[capex_per_gpu],"
             "-[residual_fraction]*[capex_per_gpu])/k_hours_per_year"),
    Quantity("power_usd_per_gpu_hour", "Power per GPU-hour", "USD/GPU-h", "result",
             "=[it_kw_per_gpu]*[pue]*[usd_per_kwh]"),
    Quantity("facility_usd_per_gpu_hour", "Facility per GPU-hour", "USD/GPU-h", "result",
             "=[it_kw_per_gpu]*[colo_usd_per_kw_month]*k_months_per_year/k_hours_per_year"),
    Quantity("tco_usd_per_gpu_hour", "TCO per GPU-hour", "USD/GPU-h", "result",
             "=[capital_usd_per_gpu_hour]+[power_usd_per_gpu_hour]+[facility_usd_per_gpu_hour]"
             "+[other_usd_per_gpu_hour]"),
    Quantity("tokens_per_gpu_second", "Tokens per second per GPU", "tokens/s/GPU", "result",
             "=[mfu]*[peak_tflops]*k_flops_per_tflop/[flops_per_token]"),
    Quantity("usd_per_mtok", "Cost per million tokens", "USD/Mtok", "result",
             "=[tco_usd_per_gpu_hour]/(k_seconds_per_hour*[tokens_per_gpu_second])"
             "*k_tokens_per_mtok"),
    Quantity("training_cost_usd", "Training cost", "USD run", "result",
             "=[usd_per_mtok]*[tokens]/k_tokens_per_mtok"),
    Quantity("training_days", "Training days", "days", "result",
             "=[tokens]/([gpus]*[tokens_per_gpu_second])/k_seconds_per_day"),
    Quantity("joules_per_token", "Energy per token", "J/token", "result",
             "=[utility_watts_per_gpu]/[tokens_per_gpu_second]"),
    Quantity("household_years", "Training energy", "household-years", "result",
             "=[tokens]*[joules_per_token]/([kwh_per_household_year]*k_joules_per_kwh)"),
)

#: the TCO_ functions beside the native formulas, and their relative differences
CHECKS = (
    Quantity("tco_udf", "TCO per GPU-hour by =TCO_TOTAL_PER_GPU_HOUR", "USD/GPU-h", "check",
             "=TCO_TOTAL_PER_GPU_HOUR([capex_per_gpu],[cost_of_capital],[life_years],"
             "[it_kw_per_gpu],[pue],[usd_per_kwh],[colo_usd_per_kw_month],[residual_fraction],"
             "[other_usd_per_gpu_hour])"),
    Quantity("tco_udf_diff", "relative difference", "rel. diff", "check",
             "=[tco_udf]/[tco_usd_per_gpu_hour]-1"),
    Quantity("usd_per_mtok_udf", "Cost per Mtok by =TCO_COST_PER_MTOK", "USD/Mtok", "check",
             "=TCO_COST_PER_MTOK([tco_usd_per_gpu_hour],[flops_per_token],[peak_tflops],[mfu])"),
    Quantity("usd_per_mtok_udf_diff", "relative difference", "rel. diff", "check",
             "=[usd_per_mtok_udf]/[usd_per_mtok]-1"),
)

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
            + list(RESULTS) + (list(CHECKS) if checks else [])
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
        q = next(q for q in (*USED, *RESULTS, *CHECKS) if q.key == key)
        return self.expand(q.formula)
