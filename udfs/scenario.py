"""Scenarios: the whole model chain for many scenarios at once, from named inputs.

A scenario is a set of named inputs (the names below; the finance workbook's Inputs and the batch
files use the same ones). Text inputs pick presets; numeric inputs override what the presets give.
A missing input, or NaN in a numeric one (an empty cell in a CSV), means "use the preset".

>>> out = evaluate({"system": ["H100_HGX", "GB200_NVL72"], "mfu": [0.54, 0.54]})
>>> [round(float(x), 4) for x in out["tco_usd_per_gpu_hour"]]
[1.4199, 2.2494]
>>> round(float(out["usd_per_mtok"][0]), 4)
0.7966
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from . import _check as chk
from . import presets
from .compute import (
    ARCH_FIELDS,
    CONVENTIONS,
    flops_per_token_arch,
    tco_cost_per_mtok,
    tco_tokens_per_gpu_second,
    tco_training_cost,
    tco_training_days,
)
from .energy import (
    KWH_PER_HOUSEHOLD_YEAR,
    tco_household_years,
    tco_joules_per_token,
    tco_utility_watts_per_gpu,
)
from .errors import InputRangeError, MissingValueError, UnknownNameError
from .finance import tco_capital_per_gpu_hour, tco_colo_per_gpu_hour, tco_power_per_gpu_hour


@dataclass(frozen=True)
class Input:
    """One scenario input: name, kind ("text" or "number"), unit, default (None = from presets)."""

    name: str
    kind: str
    unit: str
    default: object
    doc: str


#: Every scenario input, in column order. Defaults marked "preset" come from the chosen presets.
INPUTS: tuple[Input, ...] = (
    Input("system", "text", "preset key", "H100_HGX", "system preset (TCO_SYSTEMS)"),
    Input("buyer", "text", "preset key", presets.DEFAULT_BUYER, "buyer type (TCO_BUYERS)"),
    Input("model", "text", "preset key", "gpt3_175b", "model preset (TCO_MODELS)"),
    Input("precision", "text", "bf16/fp8/fp4", "bf16", "precision of the run"),
    Input("convention", "text", "palm/6n/megatron", "palm", "FLOPs-per-token convention"),
    Input("mfu", "number", "fraction", None, "model FLOPs utilisation, (0, 1]; required"),
    Input("tokens", "number", "tokens", 300e9,
          "tokens trained (default 300B: GPT-3's run, SemiAnalysis 2025-08 energy example)"),
    Input("gpus", "number", "GPU", 128, "GPUs in the run (default 128: the article's GPT-3 runs)"),
    Input("seq_len", "number", "tokens", "preset", "sequence length (model preset)"),
    Input("capex_per_gpu", "number", "USD", "preset", "all-in capex per GPU (system x buyer)"),
    Input("cost_of_capital", "number", "1/year", "preset", "cost of capital (buyer)"),
    Input("life_years", "number", "year", "preset", "economic life (buyer)"),
    Input("residual_fraction", "number", "fraction of capex", "preset", "resale value (buyer)"),
    Input("it_kw_per_gpu", "number", "kW", "preset", "IT load per GPU (system)"),
    Input("pue", "number", "ratio", "preset", "power usage effectiveness (buyer)"),
    Input("usd_per_kwh", "number", "USD/kWh", "preset", "electricity price (buyer)"),
    Input("colo_usd_per_kw_month", "number", "USD/(kW x month)", "preset", "colocation (buyer)"),
    Input("other_usd_per_gpu_hour", "number", "USD/GPU-hour", "preset", "other opex (buyer)"),
    Input("peak_tflops", "number", "TFLOPS (dense)", "preset", "peak per GPU (system x precision)"),
    Input("kwh_per_household_year", "number", "kWh", KWH_PER_HOUSEHOLD_YEAR,
          "US household electricity per year (EIA 2022)"),
)
INPUT_NAMES = tuple(i.name for i in INPUTS)
TEXT_INPUTS = tuple(i.name for i in INPUTS if i.kind == "text")

#: Every result column, with its unit.
OUTPUTS: dict[str, str] = {
    "capex_per_gpu": "USD",
    "capital_usd_per_gpu_hour": "USD/GPU-hour",
    "power_usd_per_gpu_hour": "USD/GPU-hour",
    "facility_usd_per_gpu_hour": "USD/GPU-hour",
    "other_usd_per_gpu_hour": "USD/GPU-hour",
    "tco_usd_per_gpu_hour": "USD/GPU-hour",
    "flops_per_token": "FLOP/token",
    "tokens_per_gpu_second": "tokens/s per GPU",
    "usd_per_mtok": "USD per million tokens",
    "training_cost_usd": "USD",
    "training_days": "days",
    "utility_watts_per_gpu": "W",
    "joules_per_token": "J/token",
    "household_years": "US household-years",
}


@dataclass(frozen=True)
class Coded:
    """A text column as integer codes into a list of categories (dictionary encoding)."""

    codes: np.ndarray
    categories: Sequence[str]


def _coded(name: str, value: object, n: int) -> Coded:
    if isinstance(value, Coded):
        return value
    if value is None or isinstance(value, str):
        default = next(i.default for i in INPUTS if i.name == name)
        return Coded(np.zeros(n, dtype=np.intp), [default if value is None else value])
    arr = np.asarray(value, dtype=object)
    cats, codes = np.unique(arr.astype(str), return_inverse=True)
    return Coded(codes.reshape(-1), list(cats))


def _resolve(kind: str, col: str, coded: Coded) -> list:
    try:
        return [presets.lookup(kind, c) for c in coded.categories]
    except UnknownNameError as err:
        raise UnknownNameError(col, err.value, err.valid) from None


def _length(inputs: Mapping[str, object]) -> int:
    lengths = {len(v.codes) if isinstance(v, Coded) else np.shape(v)[0]
               for v in inputs.values()
               if isinstance(v, Coded) or not (v is None or isinstance(v, str) or np.ndim(v) == 0)}
    if len(lengths) > 1:
        raise InputRangeError("scenario columns", sorted(lengths), "columns of one length")
    return lengths.pop() if lengths else 1


def _override(inputs, name, preset_values, n):
    """The preset values (scalar or per scenario), replaced by the user's where given and not NaN."""
    if inputs.get(name) is None:
        return preset_values
    user = chk.as_float(name, inputs[name])
    if user.ndim == 0:
        return preset_values if np.isnan(user) else float(user)
    nan = np.isnan(user)
    return np.where(nan, preset_values, user) if nan.any() else user


def used_inputs(inputs: Mapping[str, object]) -> dict[str, np.ndarray]:
    """The numeric values the chain uses for every scenario: the user's, else the presets'.

    Parameters
    ----------
    inputs : mapping of str to scalar, array_like or Coded
        As for :func:`evaluate`.

    Returns
    -------
    dict of str to ndarray
        Every numeric input of :data:`INPUT_NAMES` (``capex_per_gpu`` is the system's preset
        price x the buyer's ``capex_multiplier`` unless given) plus ``flops_per_token``, one value
        per scenario. The sensitivity sheet of a scenario workbook moves these values.

    Examples
    --------
    >>> used = used_inputs({"system": "GB200_NVL72", "mfu": 0.5})
    >>> round(float(used["pue"][0]), 3), round(float(used["capex_per_gpu"][0]))
    (1.3, 54167)
    """
    n, used = _used(inputs)
    return {k: np.broadcast_to(np.asarray(v, dtype=float), (n,)) for k, v in used.items()}


def _used(inputs: Mapping[str, object]) -> tuple[int, dict[str, object]]:
    """(number of scenarios, the numeric values the chain uses: scalars or per-scenario arrays)."""
    unknown = set(inputs) - set(INPUT_NAMES)
    if unknown:
        raise UnknownNameError("scenario input", sorted(unknown)[0], INPUT_NAMES)
    if inputs.get("mfu") is None:
        raise MissingValueError("mfu", "every scenario needs an MFU in (0, 1]")
    n = _length(inputs)
    text = {name: _coded(name, inputs.get(name), n) for name in TEXT_INPUTS}
    for name, coded in text.items():
        if len(coded.codes) == 1 and n > 1:
            text[name] = Coded(np.zeros(n, dtype=np.intp), coded.categories)

    systems = _resolve("system", "system", text["system"])
    buyers = _resolve("buyer", "buyer", text["buyer"])
    models = _resolve("model", "model", text["model"])
    precs = [presets.precision_key(p) for p in text["precision"].categories]
    convs = [presets.normalize(c) for c in text["convention"].categories]
    for c in convs:
        if c not in CONVENTIONS:
            raise UnknownNameError("convention", c, CONVENTIONS)
    s, b, m = text["system"].codes, text["buyer"].codes, text["model"].codes
    p, c = text["precision"].codes, text["convention"].codes

    def pick(rows, codes, field):
        """Preset values per scenario: a scalar when the column names one preset (no gather)."""
        values = np.array([r.value(field) for r in rows], dtype=float)
        return values[0] if len(values) == 1 else values[codes]

    capex = _override(inputs, "capex_per_gpu",
                      pick(systems, s, "capex_per_gpu") * pick(buyers, b, "capex_multiplier"), n)
    kw = _override(inputs, "it_kw_per_gpu", pick(systems, s, "it_kw_per_gpu"), n)
    buyer_cols = {}
    for name in ("cost_of_capital", "life_years", "residual_fraction", "pue", "usd_per_kwh",
                 "colo_usd_per_kw_month", "other_usd_per_gpu_hour"):
        buyer_cols[name] = _override(inputs, name, pick(buyers, b, name), n)
    peak_tab = np.array([[np.nan if sy.get(f"peak_tflops_{pr}") is None
                          else sy.get(f"peak_tflops_{pr}") for pr in precs] for sy in systems])
    peak = _override(inputs, "peak_tflops",
                     peak_tab[0, 0] if peak_tab.size == 1 else peak_tab[s, p], n)
    if np.isnan(peak).any():
        row = int(np.argmax(np.isnan(peak))) if np.ndim(peak) else 0
        raise MissingValueError(
            "peak_tflops", f"system {systems[s[row]].key} has no {precs[p[row]]} peak "
            f"(scenario {row}); give peak_tflops or another precision")

    seq = _override(inputs, "seq_len", pick(models, m, "seq_len"), n)
    fpt = np.empty(n) if len(convs) > 1 else None
    for code, conv in enumerate(convs):
        rows = slice(None) if len(convs) == 1 else (c == code)
        if len(convs) > 1 and not rows.any():
            continue

        def arch(field, rows=rows):
            v = pick(models, m, field)
            return v if np.ndim(v) == 0 else v[rows]

        seq_rows = seq if np.ndim(seq) == 0 else seq[rows]
        value = flops_per_token_arch(conv, seq_rows, **{f: arch(f) for f in ARCH_FIELDS})
        if fpt is None:
            fpt = value
        else:
            fpt[rows] = value

    def number(name):
        """A numeric input with a fixed default: missing or NaN elements take the default."""
        default = next(i.default for i in INPUTS if i.name == name)
        if default is None:
            return inputs.get(name)
        return _override(inputs, name, float(default), n)

    used = {"mfu": number("mfu"), "tokens": number("tokens"), "gpus": number("gpus"),
            "seq_len": seq, "capex_per_gpu": capex, "it_kw_per_gpu": kw, **buyer_cols,
            "peak_tflops": peak, "kwh_per_household_year": number("kwh_per_household_year"),
            "flops_per_token": fpt}
    return n, used


def evaluate(inputs: Mapping[str, object]) -> dict[str, np.ndarray]:
    """Run the full chain for every scenario.

    Parameters
    ----------
    inputs : mapping of str to scalar, array_like or Coded
        Columns named as in :data:`INPUT_NAMES` (unknown names are an error). Text columns may be
        :class:`Coded` (dictionary-encoded, fast for millions of rows).

    Returns
    -------
    dict of str to ndarray
        The columns of :data:`OUTPUTS`, one value per scenario.
    """
    n, u = _used(inputs)
    capex, kw, fpt, peak = u["capex_per_gpu"], u["it_kw_per_gpu"], u["flops_per_token"], \
        u["peak_tflops"]
    capital = tco_capital_per_gpu_hour(capex, u["cost_of_capital"], u["life_years"],
                                       u["residual_fraction"])
    power = tco_power_per_gpu_hour(kw, u["pue"], u["usd_per_kwh"])
    facility = tco_colo_per_gpu_hour(kw, u["colo_usd_per_kw_month"])
    other = chk.non_negative("other_usd_per_gpu_hour", u["other_usd_per_gpu_hour"])
    tco = capital + power + facility + other
    tps = tco_tokens_per_gpu_second(fpt, peak, u["mfu"])
    tokens = chk.positive("tokens", u["tokens"])
    watts = tco_utility_watts_per_gpu(kw, u["pue"])
    jpt = tco_joules_per_token(watts, fpt, peak, u["mfu"])
    out = {
        "capex_per_gpu": capex,
        "capital_usd_per_gpu_hour": capital,
        "power_usd_per_gpu_hour": power,
        "facility_usd_per_gpu_hour": facility,
        "other_usd_per_gpu_hour": other,
        "tco_usd_per_gpu_hour": tco,
        "flops_per_token": fpt,
        "tokens_per_gpu_second": tps,
        "usd_per_mtok": tco_cost_per_mtok(tco, fpt, peak, u["mfu"]),
        "training_cost_usd": tco_training_cost(tokens, tco, fpt, peak, u["mfu"]),
        "training_days": tco_training_days(tokens, u["gpus"], fpt, peak, u["mfu"]),
        "utility_watts_per_gpu": watts,
        "joules_per_token": jpt,
        "household_years": tco_household_years(jpt * tokens, u["kwh_per_household_year"]),
    }
    return {k: np.broadcast_to(np.asarray(v, dtype=float), (n,)) for k, v in out.items()}
