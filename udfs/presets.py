"""The preset catalog: systems, buyer types, model architectures and published benchmark runs.

The data lives in TOML files beside this module (``udfs/data/*.toml``); every numeric entry carries
``value``, ``unit``, ``source`` and ``as_of``. This module only reads and looks up; the maths lives in
the domain modules.

Names are matched case-insensitively, with spaces and hyphens read as underscores, so
``"H100 HGX"``, ``"h100-hgx"`` and ``"H100_HGX"`` are the same preset:

>>> system("h100 hgx").key
'H100_HGX'
>>> field("system", "GB200 NVL72", "capex_per_gpu")
54166.666666666664
>>> try:
...     system("H100_HXG")
... except KeyError as err:
...     print(err)
unknown system 'H100_HXG'; valid: B200_HGX, B300_HGX, GB200_NVL72, GB300_NVL72, H100_HGX,
H200_HGX, H800_HGX, MI300X, MI325X, MI355X.
Did you mean H100_HGX?
"""

from __future__ import annotations

import datetime as dt
import functools
import tomllib
from dataclasses import dataclass
from dataclasses import field as dc_field
from importlib import resources
from typing import Any, cast

from ._check import text
from .errors import MissingValueError, UnknownNameError

#: the catalogs and their data files
KINDS = {"system": "systems.toml", "buyer": "buyers.toml", "model": "models.toml", "run": "runs.toml"}

#: further sourced tables, read the same way but not preset kinds of the workbook or the CLI:
#: rental prices, SemiAnalysis's published TCO (the calibration target), published training facts
#: grid CO2 factors and published serving throughputs
TABLES = {
    "rent": "rents.toml",
    "inferencex": "inferencex_tco.toml",
    "moe_run": "moe_runs.toml",
    "training_fact": "training_facts.toml",
    "grid": "grid_factors.toml",
    "serving": "serving.toml",
    "finance": "finance.toml",
}

#: numeric fields each kind must define (the schema checked by tests/test_catalog.py)
REQUIRED_FIELDS = {
    "system": (
        "gpus_per_unit",
        "unit_price_usd",
        "unit_all_in_usd",
        "chip_watts",
        "it_kw_per_gpu",
        "peak_tflops_bf16",
        "peak_tflops_fp8",
        "peak_tflops_fp4",
        "scale_up_gpus",
        "all_in_kw_per_gpu",
        "availability",
    ),
    "buyer": (
        "cost_of_capital",
        "life_years",
        "residual_fraction",
        "pue",
        "usd_per_kwh",
        "colo_usd_per_kw_month",
        "capex_multiplier",
        "other_usd_per_gpu_hour",
    ),
    "model": (
        "params",
        "active_params",
        "layers",
        "d_model",
        "heads",
        "kv_heads",
        "head_dim",
        "ffn",
        "vocab",
        "seq_len",
        "mlp_matrices",
    ),
    "run": ("gpus", "mfu"),
    "moe_run": ("gpus", "mfu"),
    "rent": ("usd_per_gpu_hour",),
    "inferencex": ("tco_hyperscaler", "tco_neocloud_giant", "rent_3yr", "all_in_kw_per_gpu"),
    "training_fact": ("gpu_hours",),
    "grid": ("kg_co2_per_kwh",),
    "serving": ("tokens_per_gpu_second", "concurrency", "median_tpot_ms", "input_tokens", "output_tokens"),
    "finance": (),  # a figure (value, or low and high) or a curve (t0, t1, ...): checked on reading
}

#: text fields each kind must define
TEXT_FIELDS = {
    "system": ("label",),
    "buyer": ("label",),
    "model": ("label",),
    "run": ("label", "system", "model", "precision"),
    "moe_run": ("label", "system", "model", "precision"),
    "rent": ("label", "system", "provider", "term"),
    "inferencex": ("label",),
    "training_fact": ("label", "model", "system"),
    "grid": ("label",),
    "serving": ("label", "benchmark", "system", "model", "precision", "framework"),
    "finance": ("label", "group", "basis"),
}

#: what each finance preset (udfs/data/finance.toml) is; the curve groups hold factors by year t
FINANCE_GROUPS = (
    "rent_index",
    "rent_curve",
    "resale",
    "value_curve",
    "base_rate_curve",
    "spread",
    "loan_rate",
    "advance_rate",
    "pue_cap",
    "colocation",
    "power_price",
)
CURVE_GROUPS = ("rent_curve", "value_curve", "base_rate_curve")
#: how a finance figure is known: stated by its public source, computed from stated figures (the
#: source says "derived:" and how), or a labelled default (the source says "assumption")
FINANCE_BASES = ("measured", "derived", "assumption")
#: the value-curve bands every system has (udfs/data/finance.toml ``value_<band>``)
VALUE_BANDS = ("low", "base", "high")

#: precisions with a peak_tflops_<precision> field on every system
PRECISIONS = ("bf16", "fp8", "fp4")

DEFAULT_BUYER = "hyperscaler"
#: the published serving benchmark shown by default (udfs/data/serving.toml): DeepSeek-R1-0528,
#: 8k in / 1k out, the only one with a figure for nine of the ten systems
DEFAULT_SERVING = "dsr1_8k1k"
#: the grid factor every CO2 figure uses unless the user chooses another (udfs/data/grid_factors.toml)
DEFAULT_GRID = "us_average"


@dataclass(frozen=True)
class Entry:
    """One preset value with its provenance. ``value`` is None where the quantity does not exist."""

    value: float | None
    unit: str
    source: str
    as_of: dt.date

    @property
    def is_assumption(self) -> bool:
        return "assumption" in self.source.lower()


@dataclass(frozen=True)
class Preset:
    """A named preset: its text fields and its numeric entries."""

    kind: str
    key: str
    texts: dict[str, str]
    entries: dict[str, Entry] = dc_field(default_factory=dict)

    @property
    def label(self) -> str:
        return self.texts.get("label", self.key)

    def value(self, name: str) -> float:
        """The numeric value of field ``name``; raises if the field is unknown or empty."""
        entry = self.entry(name)
        if entry.value is None:
            raise MissingValueError(
                f"{self.kind} {self.key} field {name}", f"this {self.kind} has none ({entry.source})"
            )
        return entry.value

    def entry(self, name: str) -> Entry:
        key = normalize(text("field", name))
        if key not in self.entries:
            raise UnknownNameError(f"{self.kind} field", name, self.entries)
        return self.entries[key]

    def get(self, name: object) -> float | str | None:
        """A field's value, text or number (None where empty): the TCO_SYSTEM/TCO_MODEL lookup."""
        key = normalize(text("field", name))
        if key in self.texts:
            return self.texts[key]
        return self.entry(key).value


def normalize(name: str) -> str:
    """Lower-case a name and read spaces and hyphens as underscores.

    >>> normalize(" GB200 NVL72 ")
    'gb200_nvl72'
    """
    return "_".join(name.strip().lower().replace("-", " ").split())


@functools.cache
def catalog(kind: str) -> dict[str, Preset]:
    """All presets of one kind ("system", "buyer", "model", "run", or a table of :data:`TABLES`:
    "rent", "inferencex", "training_fact", "grid"), keyed by their TOML key."""
    files = {**KINDS, **TABLES}
    if kind not in files:
        raise UnknownNameError("preset kind", kind, files)
    text_ = resources.files(__package__).joinpath("data", files[kind]).read_text("utf-8")
    return parse(kind, files[kind], text_)


def parse(kind: str, filename: str, text_: str) -> dict[str, Preset]:
    """Read one data file: every inline table must carry unit, source and as_of (a date).

    >>> parse("rent", "x.toml", "[a]\\nlabel = 'A'\\nusd = { value = 2, unit = 'USD' }\\n")
    Traceback (most recent call last):
    ...
    gputco.udfs.errors.MissingValueError: x.toml [a] usd: source is required: every value needs value, unit, \
source and as_of
    """
    presets = {}
    for key, table in tomllib.loads(text_).items():
        texts = {k: v for k, v in table.items() if isinstance(v, str)}
        entries = {k: _entry(filename, key, k, v) for k, v in table.items() if isinstance(v, dict)}
        if kind == "system":
            _derive_system(key, entries)
            texts["price_source"] = price_source(entries["unit_all_in_usd"])
        if kind == "model":
            _derive_model(key, entries)
        if kind == "finance":
            _check_finance(filename, key, texts, entries)
        presets[key] = Preset(kind, key, texts, entries)
    if kind == "system" and REFERENCE_SYSTEM in presets:
        _derive_default_mfu(presets)
    return presets


def _entry(filename: str, key: str, name: str, raw: dict) -> Entry:
    where = f"{filename} [{key}] {name}"
    for part in ("unit", "source", "as_of"):
        if part not in raw:
            raise MissingValueError(f"{where}: {part}", "every value needs value, unit, source and as_of")
    if not isinstance(raw["as_of"], dt.date):
        raise MissingValueError(f"{where}: as_of", f"a date (YYYY-MM-DD), got {raw['as_of']!r}")
    return Entry(_float_or_none(raw.get("value")), raw["unit"], raw["source"], raw["as_of"])


def _check_finance(filename: str, key: str, texts: dict[str, str], entries: dict[str, Entry]) -> None:
    """A finance preset names its group and basis; a curve holds t0, t1, ... without a gap, any
    other preset a ``value`` or a ``low`` and a ``high``.

    >>> parse("finance", "f.toml", "[c]\\nlabel = 'C'\\ngroup = 'value_curve'\\nbasis = 'derived'\\n"
    ...       "t1 = { value = 1, unit = 'x', source = 'derived: s', as_of = 2026-01-01 }\\n")
    Traceback (most recent call last):
    ...
    gputco.udfs.errors.MissingValueError: f.toml [c] t0 is required: a curve holds t0, t1, ... in order
    """
    where = f"{filename} [{key}]"
    group, basis = texts.get("group"), texts.get("basis")
    if group not in FINANCE_GROUPS:
        raise UnknownNameError(f"{where} group", group, FINANCE_GROUPS)
    if basis not in FINANCE_BASES:
        raise UnknownNameError(f"{where} basis", basis, FINANCE_BASES)
    names = list(entries)
    if group in CURVE_GROUPS:
        for i, name in enumerate(names):
            if name != f"t{i}":
                raise MissingValueError(f"{where} t{i}", "a curve holds t0, t1, ... in order")
    elif names not in (["value"], ["low", "high"]):
        raise MissingValueError(f"{where} value", f"a figure is value, or low and high; got {names}")


def _float_or_none(value: object) -> float | None:
    return None if value is None else float(cast(Any, value))  # a TOML number (float() names a bad one)


def _derive_model(key: str, entries: dict[str, Entry]) -> None:
    """Defaults: ``active_params`` = ``params``, ``head_dim`` = ``d_model / heads``, no windowed layers.

    Mixture-of-experts models state both (udfs/data/models.toml); for a dense model every parameter
    is active and the attention width heads x head_dim is the hidden size, so the defaults change
    no dense FLOPs count.
    """
    params, d, heads = entries["params"], entries["d_model"], entries["heads"]
    if "active_params" not in entries:
        entries["active_params"] = Entry(
            params.value,
            params.unit,
            f"derived: dense model, active_params = params ({params.source})",
            params.as_of,
        )
    if "head_dim" not in entries:
        entries["head_dim"] = Entry(
            cast(float, d.value) / cast(float, heads.value),
            "head dimension",
            f"derived: d_model / heads ({d.source})",
            d.as_of,
        )
    for name, unit in (("window_layers", "layers"), ("window", "tokens")):
        if name not in entries:
            entries[name] = Entry(
                0.0,
                unit,
                "derived: no windowed attention; every layer attends to "
                "the whole sequence (none stated in the model's sources)",
                d.as_of,
            )


def price_source(entry: Entry) -> str:
    """How a system's all-in price is known: "published", "fitted (InferenceX TCO ratio)" or
    "assumed".

    >>> price_source(system("B200_HGX").entry("unit_all_in_usd"))
    'fitted (InferenceX TCO ratio)'
    """
    if entry.source.lower().startswith("fitted"):
        return "fitted (InferenceX TCO ratio)"
    return "assumed" if entry.is_assumption else "published"


def _derive_system(key: str, entries: dict[str, Entry]) -> None:
    """Fields computed from published ones (capex per GPU), with their provenance."""
    all_in, gpus = entries["unit_all_in_usd"], entries["gpus_per_unit"]
    entries["capex_per_gpu"] = Entry(
        cast(float, all_in.value) / cast(float, gpus.value),
        "USD/GPU",
        f"derived: unit_all_in_usd / gpus_per_unit ({all_in.source})",
        all_in.as_of,
    )


#: the system whose measured MFU is assumed where a system has no published run at a precision
REFERENCE_SYSTEM = "H100_HGX"


def _derive_default_mfu(systems: dict[str, Preset]) -> None:
    """``default_mfu_<precision>`` of every system: the MFU of the run its ``mfu_run_<precision>``
    names ("measured: <run key>"), else the H100's at that precision (FP4: at FP8, H100 has no FP4
    run), whose source says "assumption"; the text ``mfu_source_<precision>`` says which."""
    runs = catalog("run")

    def measured(system_key: str, precision: str) -> tuple[str, Entry] | None:
        key = systems[system_key].texts.get(f"mfu_run_{precision}")
        if key is None:
            return None
        run_ = runs[key]
        if run_.texts["system"] != system_key or run_.texts["precision"] != precision:
            raise UnknownNameError(
                f"{system_key} mfu_run_{precision}: run of that system and precision", key, runs
            )
        return key, run_.entry("mfu")

    for system_key, p in systems.items():
        for precision in PRECISIONS:
            found = measured(system_key, precision)
            if found is not None:
                key, e = found
                source = f"measured: {key}; {e.source}"
            else:
                ref_precision = precision if precision != "fp4" else "fp8"
                key, e = cast(tuple[str, Entry], measured(REFERENCE_SYSTEM, ref_precision))  # published
                source = (
                    f"assumption: the H100 {ref_precision.upper()} figure ({key}); no published "
                    f"{precision.upper()} training run of {system_key} in the presets"
                )
            p.entries[f"default_mfu_{precision}"] = entry = Entry(e.value, "fraction", source, e.as_of)
            p.texts[f"mfu_source_{precision}"] = mfu_source(entry)


def default_mfu(system_name: object, precision: object) -> Entry:
    """The default MFU of a system at a precision, with its source (see :func:`mfu_source`).

    >>> e = default_mfu("GB200 NVL72", "fp8")
    >>> e.value, mfu_source(e)
    (0.4184, 'measured: nv_llama3_405b_fp8_gb200_256')
    >>> e = default_mfu("MI355X", "bf16")
    >>> e.value, mfu_source(e)
    (0.54, 'assumed')
    """
    return system(system_name).entry(f"default_mfu_{precision_key(precision)}")


def mfu_source(entry: Entry) -> str:
    """``measured: <run key>`` or ``assumed``: where a default MFU comes from."""
    return "assumed" if entry.is_assumption else entry.source.split(";")[0]


def lookup(kind: str, name: object) -> Preset:
    """The preset of ``kind`` called ``name`` (case-insensitive; spaces/hyphens as underscores)."""
    name = text(kind, name)
    presets = catalog(kind)
    wanted = normalize(name)
    for key, preset in presets.items():
        if normalize(key) == wanted:
            return preset
    raise UnknownNameError(kind, name, presets)


def system(name: object) -> Preset:
    """A system preset, e.g. ``"H100_HGX"`` or ``"GB200 NVL72"``."""
    return lookup("system", name)


def buyer(name: object = DEFAULT_BUYER) -> Preset:
    """A buyer-type preset: ``"hyperscaler"``, ``"neocloud_giant"`` or ``"emerging_neocloud"``."""
    return lookup("buyer", DEFAULT_BUYER if name is None else name)


def model(name: object) -> Preset:
    """A model-architecture preset, e.g. ``"gpt3_175b"``."""
    return lookup("model", name)


def run(name: object) -> Preset:
    """A published benchmark run."""
    return lookup("run", name)


def field(kind: str, name: object, field_name: object) -> float | str | None:
    """One field of one preset: ``field("system", "H100_HGX", "chip_watts")`` -> 700."""
    return lookup(kind, name).get(field_name)


def precision_key(precision: object) -> str:
    """Validate a precision name ("bf16", "fp8", "fp4"; case-insensitive).

    >>> precision_key("FP8")
    'fp8'
    """
    key = normalize(text("precision", precision))
    if key not in PRECISIONS:
        raise UnknownNameError("precision", precision, PRECISIONS)
    return key


def peak_tflops(system_name: object, precision: object) -> float:
    """Dense peak TFLOPS per GPU of a system at a precision."""
    return system(system_name).value(f"peak_tflops_{precision_key(precision)}")


def rents(system_name: object = None) -> list[Preset]:
    """Rental price presets (udfs/data/rents.toml), all or those of one system, cheapest first.

    >>> [(r.texts["term"], r.value("usd_per_gpu_hour")) for r in rents("GB200 NVL72")]
    [('3-year commitment', 4.0), ('on-demand', 4.54)]
    """
    rows = list(catalog("rent").values())
    if system_name is not None:
        key = system(system_name).key
        rows = [r for r in rows if r.texts["system"] == key]
    return sorted(rows, key=lambda r: r.value("usd_per_gpu_hour"))


def inferencex(system_name: object) -> Preset:
    """SemiAnalysis's published TCO per GPU-hour and all-in kW of a system (udfs/data/inferencex_tco.toml).

    >>> inferencex("GB200_NVL72").value("tco_hyperscaler")
    1.86
    """
    key = system(system_name).key
    table = catalog("inferencex")
    if key not in table:
        raise UnknownNameError("system with a published SemiAnalysis TCO", system_name, table)
    return table[key]


def serving_benchmarks() -> list[str]:
    """The published serving benchmarks of udfs/data/serving.toml, the default first.

    >>> serving_benchmarks()
    ['dsr1_8k1k', 'gptoss_8k1k']
    """
    found = dict.fromkeys(p.texts["benchmark"] for p in catalog("serving").values())
    return sorted(found, key=lambda b: (b != DEFAULT_SERVING, b))


def serving(system_name: object, benchmark: object = DEFAULT_SERVING) -> Preset | None:
    """The published serving throughput of a system in one benchmark (udfs/data/serving.toml),
    None where none is published (H800, or B300/GB300 for gpt-oss-120b).

    >>> serving("GB200 NVL72").value("tokens_per_gpu_second")
    14952.0
    >>> serving("H800_HGX") is None
    True
    """
    key = system(system_name).key
    wanted = normalize(text("benchmark", benchmark))
    if wanted not in {normalize(b) for b in serving_benchmarks()}:
        raise UnknownNameError("serving benchmark", benchmark, serving_benchmarks())
    for p in catalog("serving").values():
        if normalize(p.texts["benchmark"]) == wanted and p.texts["system"] == key:
            return p
    return None


def finance(name: object) -> Preset:
    """A finance preset of udfs/data/finance.toml (a figure with its source, or a curve).

    >>> finance("spread_a3_2026").value("value")
    0.0225
    """
    return lookup("finance", name)


def curve_keys(group: str) -> list[str]:
    """The keys of the finance curves of one group ("rent_curve", "value_curve", "base_rate_curve").

    >>> curve_keys("value_curve")
    ['value_base', 'value_low', 'value_high']
    """
    if group not in CURVE_GROUPS:
        raise UnknownNameError("curve group", group, CURVE_GROUPS)
    return [k for k, p in catalog("finance").items() if p.texts["group"] == group]


def finance_curve(group: str, name: object) -> tuple[float, ...]:
    """The factors t0, t1, ... of a finance curve of ``group``, by key (case-insensitive).

    >>> finance_curve("rent_curve", "rent_h100_2024_25")
    (1.0, 0.5916, 0.35, 0.4865)
    >>> finance_curve("value_curve", "rent_h100_2024_25")
    Traceback (most recent call last):
    ...
    gputco.udfs.errors.UnknownNameError: unknown value_curve 'rent_h100_2024_25'; valid: value_base, value_high, value_low.
    """
    keys = curve_keys(group)
    wanted = normalize(text(group, name))
    for key in keys:
        if normalize(key) == wanted:
            p = catalog("finance")[key]
            return tuple(cast(float, e.value) for e in p.entries.values())
    raise UnknownNameError(group, name, keys)


def value_curve_key(system_name: object, band: object = "base") -> str:
    """The value-curve preset of a system in a band ("low", "base", "high"): the system's own
    (``value_<system>_<band>``) where finance.toml has one, else the band every system shares.

    >>> value_curve_key("GB200 NVL72")
    'value_base'
    """
    key = system(system_name).key
    b = normalize(text("value curve band", band))
    if b not in VALUE_BANDS:
        raise UnknownNameError("value curve band", band, VALUE_BANDS)
    own = f"value_{key.lower()}_{b}"
    return own if own in catalog("finance") else f"value_{b}"
