"""The model chain, described once: its inputs, and every step with its numpy function and formula.

capex -> capital per GPU-hour (PMT) -> power -> facility -> opex -> TCO -> FLOPs per token ->
tokens/s per GPU -> cost per Mtok -> training cost, GPU-hours and days -> utility W -> J/token ->
energy -> household-years.

Everything that shows the chain is generated from this module: :func:`gputco.udfs.scenario.evaluate`
(batch runs and the Python API) runs :data:`STEPS` in order with their numpy functions; the finance
workbook's Model rows, the scenario workbooks' columns, the Benchmarks TCO block, the FLOPs table,
the Checks rows and ``docs/chain.md`` expand their Excel formulas. A step is added here once and
appears everywhere.

Formula templates use one dialect: ``[name]`` is the quantity ``name`` (an input or an earlier
step); ``k_<what>`` is a unit constant, a defined name in both workbooks (:data:`CONSTANTS`).
Each workbook says where a quantity lives (a cell, a column, a named cell) with a ``ref``
function; a step that has no place of its own is inlined (see :func:`formula`).

>>> step("capital_usd_per_gpu_hour").formula
'=-PMT([cost_of_capital],[life_years],[capex_per_gpu],-[residual_fraction]*[capex_per_gpu])/k_hours_per_year'
>>> formula("usd_per_mtok", {"delivered_usd_per_gpu_hour": "D20", "tokens_per_gpu_second": "D30",
...                         "goodput": "D40"}.get)
'=D20/(k_seconds_per_hour*D30)*k_tokens_per_mtok/D40'
>>> formula("tokens_per_gpu_second", {"mfu": "0.5", "peak_tflops": "P", "flops_per_token": "F"}.get)
'=0.5*P*k_flops_per_tflop/F'
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from . import compute, decision_steps, energy, finance
from .errors import RenamedError

#: a quantity's reference in a template
REF = re.compile(r"\[([a-z0-9_]+)\]")

#: unit constants: name, label, unit, value, note (defined names ``k_*`` in both workbooks)
CONSTANTS: tuple[tuple[str, str, str, float, str], ...] = (
    ("k_hours_per_year", "Hours per year", "h", finance.HOURS_PER_YEAR, "365 x 24"),
    ("k_months_per_year", "Months per year", "", 12, "colocation rent is per month"),
    ("k_seconds_per_hour", "Seconds per hour", "s", compute.SECONDS_PER_HOUR, ""),
    ("k_seconds_per_day", "Seconds per day", "s", compute.SECONDS_PER_DAY, ""),
    ("k_flops_per_tflop", "FLOP/s per TFLOPS", "", 1e12, ""),
    ("k_tokens_per_mtok", "Tokens per million tokens", "", 1e6, ""),
    ("k_watts_per_kw", "W per kW", "", 1000, ""),
    ("k_joules_per_kwh", "J per kWh", "J", energy.JOULES_PER_KWH, ""),
    ("k_kw_per_mw", "kW per MW", "", 1000, ""),
    ("k_kg_per_tonne", "kg per tonne", "", 1000, ""),
)


@dataclass(frozen=True)
class Preset:
    """Where an input's preset value comes from: ``field`` of the ``table`` ("system", "buyer",
    "model") of the scenario's preset; ``{precision}`` in a field is the scenario's precision.
    Several presets multiply (capex per GPU = system price x buyer's price level)."""

    table: str
    field: str


@dataclass(frozen=True)
class Input:
    """One input of the chain.

    ``scope`` says who sets it in the finance workbook: "scenario" (one cell for all systems),
    "system" (one cell per system column), "buyer" (the buyer type's value, overridable) or
    "model" (the model preset's architecture, not an input of its own). ``default`` is the value
    when nothing is given: a number or text, None (required), or :data:`PRESET` (the presets).
    """

    key: str
    label: str
    unit: str
    kind: str  # "text" or "number"
    scope: str
    default: object
    doc: str
    presets: tuple[Preset, ...] = ()

    @property
    def name(self) -> str:
        return self.key

    @property
    def scenario_input(self) -> bool:
        """Can a scenario (SPEC, batch row, Inputs cell) set it? Preset-only fields cannot."""
        return self.scope not in ("model", "system_preset")


PRESET = "preset"
#: default of an optional input: without it, the steps that read it are empty (NaN)
OPTIONAL = "optional"


@dataclass(frozen=True)
class Like:
    """Default of an input: the value of another input (depreciation years = life)."""

    key: str


def _buyer(key: str, label: str, unit: str, doc: str) -> Input:
    return Input(key, label, unit, "number", "buyer", PRESET, doc, (Preset("buyer", key),))


def _system(key: str, label: str, unit: str, doc: str) -> Input:
    return Input(key, label, unit, "number", "system", PRESET, doc, (Preset("system", key),))


def _arch(key: str, label: str, unit: str = "") -> Input:
    return Input(
        key, label, unit, "number", "model", PRESET, f"{label} (model preset)", (Preset("model", key),)
    )


#: every input, in the column order of scenario files
INPUTS: tuple[Input, ...] = (
    Input("system", "System", "key", "text", "system", "H100_HGX", "system preset (TCO_SYSTEMS)"),
    Input("buyer", "Buyer type", "key", "text", "scenario", "hyperscaler", "buyer type (TCO_BUYERS)"),
    Input("model", "Model", "key", "text", "scenario", "gpt3_175b", "model preset (TCO_MODELS)"),
    Input(
        "precision", "Precision", "key", "text", "scenario", "bf16", "precision of the run (bf16, fp8 or fp4)"
    ),
    Input(
        "convention",
        "FLOPs convention",
        "key",
        "text",
        "scenario",
        "palm",
        "FLOPs-per-token convention (palm, 6n or megatron)",
    ),
    Input("mfu", "MFU", "fraction", "number", "system", None, "model FLOPs utilisation, (0, 1]; required"),
    Input(
        "tokens",
        "Tokens trained",
        "tokens",
        "number",
        "scenario",
        300e9,
        "tokens trained (default 300B: GPT-3's run, SemiAnalysis 2025-08 energy example)",
    ),
    Input(
        "gpus",
        "GPUs",
        "GPU",
        "number",
        "system",
        128,
        "GPUs of the system: in the training run and in the cluster bought (default 128: the "
        "article's GPT-3 runs)",
    ),
    Input(
        "seq_len",
        "Sequence length",
        "tokens",
        "number",
        "scenario",
        PRESET,
        "sequence length (model preset)",
        (Preset("model", "seq_len"),),
    ),
    Input(
        "capex_per_gpu",
        "All-in capex per GPU",
        "USD",
        "number",
        "system",
        PRESET,
        "all-in capex per GPU (system price x buyer's price level)",
        (Preset("system", "capex_per_gpu"), Preset("buyer", "capex_multiplier")),
    ),
    _buyer("cost_of_capital", "Cost of capital", "1/year", "cost of capital (buyer)"),
    _buyer("life_years", "Economic life", "years", "economic life (buyer)"),
    _buyer("residual_fraction", "Residual value", "fraction", "resale value, fraction of capex (buyer)"),
    _system("it_kw_per_gpu", "IT load per GPU", "kW", "IT load per GPU (system)"),
    _buyer("pue", "PUE", "ratio", "power usage effectiveness (buyer)"),
    _buyer("usd_per_kwh", "Electricity tariff", "USD/kWh", "electricity price (buyer)"),
    _buyer(
        "colo_usd_per_kw_month",
        "Colocation rent",
        "USD/kW-month",
        "colocation rent per kW of IT load (buyer)",
    ),
    _buyer(
        "other_usd_per_gpu_hour",
        "Other cost",
        "USD/GPU-h",
        "other opex: maintenance, support, insurance (buyer)",
    ),
    Input(
        "peak_tflops",
        "Dense peak TFLOPS",
        "TFLOPS",
        "number",
        "system",
        PRESET,
        "dense peak per GPU (system x precision)",
        (Preset("system", "peak_tflops_{precision}"),),
    ),
    Input(
        "kwh_per_household_year",
        "US household-year",
        "kWh",
        "number",
        "scenario",
        energy.KWH_PER_HOUSEHOLD_YEAR,
        "US household electricity per year (EIA 2022)",
    ),
    Input(
        "kg_co2_per_kwh",
        "Grid emission factor",
        "kg CO2/kWh",
        "number",
        "scenario",
        energy.KG_CO2_PER_KWH_US,
        "kg CO2 per kWh of electricity (default: US average 2022, "
        "EIA; other factors in udfs/data/grid_factors.toml)",
    ),
    Input(
        "availability",
        "Availability",
        "fraction",
        "number",
        "system",
        1.0,
        "fraction of hours a GPU is up and allocatable (default 1: every hour; the system "
        "presets carry a sourced value to choose)",
    ),
    Input(
        "utilisation",
        "Utilisation",
        "fraction",
        "number",
        "system",
        1.0,
        "fraction of available hours used or sold (default 1)",
    ),
    Input(
        "goodput",
        "Goodput",
        "fraction",
        "number",
        "system",
        1.0,
        "fraction of paid GPU time that becomes kept training progress (default 1)",
    ),
    Input(
        "rent_usd_per_gpu_hour",
        "Rent per GPU-hour",
        "USD/GPU-h",
        "number",
        "system",
        OPTIONAL,
        "rental price of a GPU-hour (no default: without it the rent-based results are empty)",
    ),
    Input(
        "serve_tokens_per_gpu_second",
        "Inference throughput",
        "tokens/s/GPU",
        "number",
        "system",
        OPTIONAL,
        "measured tokens per second per GPU while serving (no default: "
        "without it the inference cost is empty)",
    ),
    Input(
        "tax_rate",
        "Tax rate",
        "fraction",
        "number",
        "scenario",
        0.0,
        "tax on profit (revenue - opex - depreciation); negative tax is a credit (default 0)",
    ),
    Input(
        "depreciation_years",
        "Depreciation period",
        "years",
        "number",
        "scenario",
        Like("life_years"),
        "straight-line depreciation to zero (default: the life)",
    ),
    Input(
        "rent_decline_per_year",
        "Rent decline",
        "1/year",
        "number",
        "scenario",
        0.0,
        "yearly fall of the rent (default 0)",
    ),
    Input(
        "rent_curve",
        "Rent curve",
        "factors by year",
        "text",
        "system",
        "",
        'the rent in year t of operation = the rent x factor t: factors as text ("1, 0.85, 0.7225"; '
        "past the last the last holds) or a finance preset key (rent_h100_2024_25: the 2024-25 H100 "
        "path; docs/finance-presets.md); empty: the constant rent decline (default)",
    ),
    Input(
        "value_curve",
        "Value curve",
        "factors by year",
        "text",
        "system",
        "",
        "the GPUs' market value t years after purchase = the all-in capex x factor t (joined linearly "
        'between whole years; past the last the last): factors as text ("1, 0.7, 0.5") or a finance '
        "preset key (value_low, value_base, value_high); empty: value_base (the collateral of the "
        "loan-to-value results; the cash flows keep residual_fraction)",
    ),
    Input(
        "opex_escalation_per_year",
        "Opex escalation",
        "1/year",
        "number",
        "scenario",
        0.0,
        "yearly rise of the opex (default 0)",
    ),
    *(
        Input(key, label, unit, kind, "scenario", default, doc)
        for key, label, unit, kind, default, doc in (
            (
                "periods",
                "Cash-flow periods",
                "key",
                "text",
                "year",
                "year (end-of-year flows, today's results) or month (discounted by (1 + r)^(-m/12); "
                "IRRs annual effective)",
            ),
            (
                "build_months",
                "Build time",
                "months",
                "number",
                0.0,
                "months from paying the capex to in-service: no revenue, no opex (default 0; a "
                'multiple of 12 with periods "year")',
            ),
            (
                "ramp_months",
                "Ramp to full utilisation",
                "months",
                "number",
                0.0,
                "months from in-service to full utilisation, linear (default 0)",
            ),
            (
                "idle_power_fraction",
                "Idle power",
                "fraction",
                "number",
                1.0,
                "power an idle GPU draws, fraction of full load (default 1: charged at full load)",
            ),
            (
                "maintenance_fraction_per_year",
                "Maintenance",
                "fraction/year",
                "number",
                0.0,
                "maintenance a year, fraction of capex (default 0)",
            ),
            (
                "staff_usd_per_gpu_year",
                "Staff",
                "USD/GPU-year",
                "number",
                0.0,
                "staff cost per GPU a year (default 0)",
            ),
            (
                "insurance_fraction_per_year",
                "Insurance",
                "fraction/year",
                "number",
                0.0,
                "insurance a year, fraction of capex (default 0)",
            ),
            (
                "software_usd_per_gpu_hour",
                "Software",
                "USD/GPU-h",
                "number",
                0.0,
                "software licence per installed GPU-hour (default 0)",
            ),
            (
                "contracted_fraction",
                "Contracted share",
                "fraction",
                "number",
                0.0,
                "share of the GPUs let take-or-pay (default 0: all sold at the market rent)",
            ),
            (
                "contract_rent_usd_per_gpu_hour",
                "Contract rent",
                "USD/GPU-h",
                "number",
                Like("rent_usd_per_gpu_hour"),
                "take-or-pay rent per available GPU-hour in the first year of operation, no decline; then x (1 + contract_escalation_per_year)^year (default: the rent)",
            ),
            (
                "contract_years",
                "Contract term",
                "years",
                "number",
                Like("life_years"),
                "years of the contract from in-service (default: the life)",
            ),
            (
                "contract_escalation_per_year",
                "Contract escalation",
                "1/year",
                "number",
                0.0,
                "the contract rent's escalation a year: year y of operation at the contract rent x "
                "(1 + escalation)^y (default 0), (-1, 1] (docs/project.md)",
            ),
            (
                "debt_fraction",
                "Debt share of capex",
                "fraction",
                "number",
                0.0,
                "share of the capex borrowed when it is paid (default 0: all equity)",
            ),
            (
                "debt_rate",
                "Debt rate",
                "1/year",
                "number",
                Like("cost_of_capital"),
                "annual effective interest rate of the debt (default: the cost of capital)",
            ),
            (
                "debt_years",
                "Debt tenor",
                "years",
                "number",
                Like("life_years"),
                "the tenor: years from in-service to the last repayment (default: the life)",
            ),
            (
                "cost_of_equity",
                "Cost of equity",
                "1/year",
                "number",
                Like("cost_of_capital"),
                "discount rate of the equity cash flows (default: the cost of capital)",
            ),
            (
                "depreciation_method",
                "Tax depreciation",
                "key",
                "text",
                "straight_line",
                "straight_line (over the depreciation period), macrs_5 or macrs_7 (IRS Pub 946, Table A-1)",
            ),
            (
                "max_ltv_covenant",
                "Loan-to-value covenant",
                "ratio",
                "number",
                0.0,
                "the highest debt / collateral value the loan allows; periods above it are counted "
                "(ltv_breach_periods); 0 = none (default)",
            ),
            (
                "bonus_depreciation_fraction",
                "Bonus depreciation",
                "fraction",
                "number",
                0.0,
                "share of the capex deducted in the in-service year before the method (default 0)",
            ),
            (
                "covenant_dscr",
                "DSCR covenant",
                "ratio",
                "number",
                1.0,
                "the cover the breach count tests each repayment period against (default 1.0, an "
                "assumption: a common minimum in GPU-backed loans; set your loan's)",
            ),
            (
                "debt_repayment",
                "Debt repayment",
                "key",
                "text",
                "level",
                "level (an annuity over the repayment periods, default), straight (equal principal, "
                "interest on the balance) or sculpted (service = CFADS / one cover that repays the debt "
                "at maturity; interest only where CFADS <= 0; docs/project.md)",
            ),
            (
                "debt_sizing",
                "Debt sizing",
                "key",
                "text",
                "fraction",
                "fraction (debt_fraction x capex, default) or dscr (the largest debt whose sculpted "
                "service keeps the DSCR at target_dscr, capped at debt_fraction x capex; needs "
                "debt_repayment sculpted; docs/project.md)",
            ),
            (
                "target_dscr",
                "Target DSCR",
                "ratio",
                "number",
                1.3,
                "the cover dscr sizing sizes the debt to (default 1.30, an assumption: no sourced "
                "default; set your lender's)",
            ),
            (
                "debt_grace_months",
                "Debt grace",
                "months",
                "number",
                0.0,
                "months of interest only from in-service (default 0); whole periods (a multiple of 12 "
                'with periods "year"), below the tenor; the repayment runs over the rest of the tenor',
            ),
            (
                "rent_curve_shift",
                "Rent path shift",
                "fraction",
                "number",
                0.0,
                "level shift of the rent path: its factor x (1 + shift) (default 0), (-1, 10] "
                "(docs/project.md)",
            ),
            (
                "rent_curve_slope",
                "Rent path tilt",
                "1/year",
                "number",
                0.0,
                "tilt of the rent path: its factor x (1 + slope)^t, t the year of operation (default 0), "
                "(-1, 1] (docs/project.md)",
            ),
            (
                "value_curve_shift",
                "Value curve shift",
                "fraction",
                "number",
                0.0,
                "level shift of the value curve: its factor x (1 + shift) (default 0), (-1, 10] "
                "(docs/project.md)",
            ),
            (
                "value_curve_slope",
                "Value curve tilt",
                "1/year",
                "number",
                0.0,
                "tilt of the value curve: its factor x (1 + slope)^t, t the years after purchase "
                "(default 0), (-1, 1] (docs/project.md)",
            ),
            (
                "tax_losses",
                "Tax losses",
                "key",
                "text",
                "refund",
                "refund (a period's loss is a tax credit, default) or carry_forward (a loss is carried "
                "to later periods, the tax paid is never negative; docs/project.md)",
            ),
            (
                "dsra_months",
                "Debt service reserve",
                "months",
                "number",
                0.0,
                "months of scheduled debt service held in a reserve: funded by the equity at "
                "in-service, topped up from cash after service, drawn on a shortfall, released at "
                "maturity (default 0: none); whole periods (docs/project.md)",
            ),
            (
                "sweep_fraction",
                "Cash sweep",
                "fraction",
                "number",
                0.0,
                "share of the cash left after service and the reserve that prepays the debt (default "
                "0), [0, 1] (docs/project.md)",
            ),
            (
                "lockup_dscr",
                "Lock-up DSCR",
                "ratio",
                "number",
                0.0,
                "while a period's DSCR is below it, its cash after service and the reserve is trapped "
                "and prepays the debt instead of going to the equity (default 0: none), >= 0",
            ),
            (
                "debt_upfront_fee_fraction",
                "Upfront fee",
                "fraction",
                "number",
                0.0,
                "fee on the debt drawn, paid by the equity at the draw (default 0), [0, 1); not "
                "deducted from tax (an assumption; docs/project.md)",
            ),
            (
                "debt_rate_basis",
                "Debt rate basis",
                "key",
                "text",
                "fixed",
                "fixed (debt_rate, default) or floating (each period's rate = base_rate_curve's rate of "
                "its year of operation + debt_spread; debt_rate then stays at its default; docs/project.md)",
            ),
            (
                "base_rate_curve",
                "Base-rate curve",
                "rates by year",
                "text",
                "",
                "floating debt: the base rate in year t of operation (t0 in the build), a finance preset "
                'key (sofr_2026, sofr_2026_falling) or rates as text ("0.043, 0.039"; past the last the '
                "last holds); empty with fixed debt (default)",
            ),
            (
                "debt_spread",
                "Debt spread",
                "1/year",
                "number",
                0.0,
                "floating debt: the spread over the base rate (default 0; 0 with fixed debt), [0, 1]; "
                "spreads by offtaker credit grade: `gputco presets finance` (group spread)",
            ),
        )
    ),
    Input(
        "gpus_per_unit",
        "GPUs per server or rack",
        "GPU",
        "number",
        "system_preset",
        PRESET,
        "GPUs per server or rack (system preset)",
        (Preset("system", "gpus_per_unit"),),
    ),
    _arch("params", "Parameters N (total)", "params"),
    _arch("active_params", "Active parameters A (per token)", "params"),
    _arch("layers", "Layers L"),
    _arch("d_model", "Hidden size d_model"),
    _arch("heads", "Attention heads H"),
    _arch("kv_heads", "KV heads G"),
    _arch("head_dim", "Head dimension"),
    _arch("ffn", "FFN size F"),
    _arch("vocab", "Vocabulary V", "tokens"),
    _arch("mlp_matrices", "MLP matrices m (2 GELU, 3 SwiGLU)"),
    _arch("window_layers", "Layers with windowed attention L_w", "layers"),
    _arch("window", "Attention window w", "tokens"),
)
#: the inputs whose value is the buyer type's preset unless given, in the column order
BUYER_INPUTS = tuple(i.key for i in INPUTS if i.scope == "buyer")


@dataclass(frozen=True)
class Check:
    """A TCO_ function that computes a step from the workbook's cells: its Excel name and the
    operand of each argument whose chain quantity has another name (``[name]`` templates);
    every other argument takes the quantity of its own name."""

    udf: str
    bind: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Step:
    """One step: ``key`` = ``func(*[value of a for a in args])``, in Excel ``formula``.

    ``output`` marks the results of :func:`gputco.udfs.scenario.evaluate`, batch output columns and the
    finance workbook's ``out_<key>_<n>`` names. ``level`` "model" marks steps that depend only on
    the model preset, the sequence length and the convention (FLOPs per token): the scenario
    workbooks compute them once per model in a table.
    """

    key: str
    label: str
    unit: str
    how: str
    formula: str
    func: Callable
    args: tuple[str, ...]
    section: str
    output: bool = True
    level: str = "scenario"
    check: Check | None = None


@dataclass(frozen=True)
class YearStep:
    """One column of the per-year cash-flow table (years 0..15; 0 after the life).

    ``formula`` is the Excel template of one year's cell: ``[name]`` a scalar quantity of the
    chain, ``<col>`` another column in the same year, ``<col@prev>`` the year before (0 in year
    0), ``<year>`` the year. ``func`` computes the column for every scenario and year at once.
    """

    key: str
    heading: str
    label: str
    how: str
    formula: str
    func: Callable
    args: tuple[str, ...]
    output: bool = True


#: the per-year table of owning one GPU and renting it out (udfs.decisions), in column order
YEAR_STEPS: tuple[YearStep, ...] = (
    YearStep(
        "capex_cf",
        "capex",
        "Capex",
        "year 0: -capex",
        "=IF(<year>=0,-[capex_per_gpu],0)",
        decision_steps.year_capex,
        ("year", "capex_per_gpu"),
    ),
    YearStep(
        "revenue",
        "revenue",
        "Revenue",
        "rent x 8760 x availability x utilisation x (1 - decline)^(year - 1), years 1..life",
        "=IF(AND(<year>>=1,<year><=[life_years]),[rent_usd_per_gpu_hour]*k_hours_per_year"
        "*[availability]*[utilisation]*(1-[rent_decline_per_year])^(<year>-1),0)",
        decision_steps.year_revenue,
        (
            "year",
            "life_years",
            "rent_usd_per_gpu_hour",
            "availability",
            "utilisation",
            "rent_decline_per_year",
        ),
    ),
    YearStep(
        "opex_cf",
        "opex",
        "Opex",
        "-opex per GPU-hour x 8760 x (1 + escalation)^(year - 1)",
        "=IF(AND(<year>>=1,<year><=[life_years]),-[opex_usd_per_gpu_hour]*k_hours_per_year"
        "*(1+[opex_escalation_per_year])^(<year>-1),0)",
        decision_steps.year_opex,
        ("year", "life_years", "opex_usd_per_gpu_hour", "opex_escalation_per_year"),
    ),
    YearStep(
        "depreciation",
        "depreciation",
        "Depreciation (memo)",
        "capex / depreciation years, straight line (not a cash flow)",
        "=IF(AND(<year>>=1,<year><=[depreciation_years]),[capex_per_gpu]/[depreciation_years],0)",
        decision_steps.year_depreciation,
        ("year", "capex_per_gpu", "depreciation_years"),
    ),
    YearStep(
        "residual_cf",
        "residual",
        "Residual value",
        "last year: residual x capex",
        "=IF(<year>=[life_years],[residual_fraction]*[capex_per_gpu],0)",
        decision_steps.year_residual,
        ("year", "life_years", "residual_fraction", "capex_per_gpu"),
    ),
    YearStep(
        "tax",
        "tax",
        "Tax",
        "-tax rate x (revenue + opex - depreciation + residual)",
        "=-[tax_rate]*(<revenue>+<opex_cf>-<depreciation>+<residual_cf>)",
        decision_steps.year_tax,
        ("tax_rate", "revenue", "opex_cf", "depreciation", "residual_cf"),
    ),
    YearStep(
        "net",
        "net",
        "Net cash flow",
        "capex + revenue + opex + tax + residual",
        "=<capex_cf>+<revenue>+<opex_cf>+<tax>+<residual_cf>",
        decision_steps.year_net,
        ("capex_cf", "revenue", "opex_cf", "tax", "residual_cf"),
    ),
    YearStep(
        "cumulative",
        "cumulative",
        "Cumulative net",
        "running sum of the net cash flow",
        "=<cumulative@prev>+<net>",
        decision_steps.year_cumulative,
        ("net",),
    ),
    YearStep(
        "payback_point",
        "payback point",
        "Payback within this year",
        "year - 1 + what was still owed / this year's net, where the cumulative turns >= 0",
        '=IF(AND(<cumulative@prev><0,<cumulative>>=0),<year>-1-<cumulative@prev>/<net>,"")',
        decision_steps.year_payback_point,
        ("year", "cumulative", "net"),
        output=False,
    ),
)
_YEAR_STEPS = {y.key: y for y in YEAR_STEPS}
#: what a year-table reference looks like in a template: <key>, <key@prev>, <key@0>, <key@1:last>
YEAR_REF = re.compile(r"<([a-z0-9_]+)(?:@([a-z0-9:]+))?>")


def year_step(key: str) -> YearStep:
    return _YEAR_STEPS[key]


#: the cash-flow functions' arguments beyond the chain's names
def operands(template: str) -> list[str]:
    """The quantities a template refers to (``[name]`` and per-year ``<column>``), in order of
    first appearance."""
    found = [(m.start(), m.group(1)) for m in REF.finditer(template)]
    found += [(m.start(), m.group(1)) for m in YEAR_REF.finditer(template)]
    return list(dict.fromkeys(name for _pos, name in sorted(found)))


def _step(key, label, unit, how, formula, func, section, *, args=None, **options) -> Step:
    """A step whose function takes the formula's operands (:func:`operands`) in their order, or
    ``args`` where it takes them in another."""
    return Step(key, label, unit, how, formula, func, args or tuple(operands(formula)), section, **options)


_CASH = {"opex_usd_per_gpu_hour": "[opex_usd_per_gpu_hour]"}

STEPS: tuple[Step, ...] = (
    _step(
        "capital_usd_per_gpu_hour",
        "Capital per GPU-hour",
        "USD/GPU-h",
        "-PMT(rate, life, capex, -residual x capex) / 8760: the level end-of-year payment that "
        "repays the capex, per hour",
        "=-PMT([cost_of_capital],[life_years],[capex_per_gpu],-[residual_fraction]*[capex_per_gpu])"
        "/k_hours_per_year",
        finance.tco_capital_per_gpu_hour,
        "Capital",
        args=("capex_per_gpu", "cost_of_capital", "life_years", "residual_fraction"),
        check=Check("TCO_CAPITAL_PER_GPU_HOUR"),
    ),
    _step(
        "power_usd_per_gpu_hour",
        "Power per GPU-hour",
        "USD/GPU-h",
        "IT kW x PUE x USD/kWh (one hour)",
        "=[it_kw_per_gpu]*[pue]*[usd_per_kwh]",
        finance.tco_power_per_gpu_hour,
        "Operating cost",
        check=Check("TCO_POWER_PER_GPU_HOUR"),
    ),
    _step(
        "facility_usd_per_gpu_hour",
        "Facility (colocation) per GPU-hour",
        "USD/GPU-h",
        "IT kW x rent per kW-month x 12 / 8760",
        "=[it_kw_per_gpu]*[colo_usd_per_kw_month]*k_months_per_year/k_hours_per_year",
        finance.tco_colo_per_gpu_hour,
        "Operating cost",
        check=Check("TCO_COLO_PER_GPU_HOUR", {"usd_per_kw_month": "[colo_usd_per_kw_month]"}),
    ),
    _step(
        "opex_usd_per_gpu_hour",
        "Opex per GPU-hour",
        "USD/GPU-h",
        "power + facility + other",
        "=[power_usd_per_gpu_hour]+[facility_usd_per_gpu_hour]+[other_usd_per_gpu_hour]",
        finance.tco_opex_per_gpu_hour,
        "Operating cost",
    ),
    _step(
        "tco_usd_per_gpu_hour",
        "TCO per GPU-hour",
        "USD/GPU-h",
        "capital + opex",
        "=[capital_usd_per_gpu_hour]+[opex_usd_per_gpu_hour]",
        finance.tco_per_gpu_hour,
        "Operating cost",
        check=Check("TCO_TOTAL_PER_GPU_HOUR"),
    ),
    _step(
        "flops_palm",
        "FLOPs per token, PaLM",
        "FLOPs/token",
        "6A + 12 W ((L - L_w) s + L_w min(s, w)), W = heads x head_dim (PaLM appendix B; A = "
        "active parameters)",
        "=6*[active_params]+12*[heads]*[head_dim]*(([layers]-[window_layers])*[seq_len]"
        "+[window_layers]*MIN([seq_len],[window]))",
        compute.flops_palm_step,
        "Throughput and cost per token",
        args=("active_params", "layers", "heads", "head_dim", "seq_len", "window_layers", "window"),
        output=False,
        level="model",
    ),
    _step(
        "flops_6n",
        "FLOPs per token, 6N",
        "FLOPs/token",
        "6A (A = active parameters)",
        "=6*[active_params]",
        compute.flops_per_token_6n,
        "Throughput and cost per token",
        output=False,
        level="model",
    ),
    _step(
        "flops_megatron",
        "FLOPs per token, Megatron",
        "FLOPs/token",
        "dense: L d^2 (12 + 12G/H + 6mF/d + 12s/d) + 6Vd (NeMo/Megatron); mixture of experts: "
        "6 (A - V d) + the attention term of PaLM",
        "=IF([active_params]<[params],6*([active_params]-[vocab]*[d_model])+12*[heads]*[head_dim]"
        "*(([layers]-[window_layers])*[seq_len]+[window_layers]*MIN([seq_len],[window])),"
        "[layers]*[d_model]^2*(12+12*[kv_heads]/[heads]+6*[mlp_matrices]*[ffn]/[d_model]"
        "+12*[seq_len]/[d_model])+6*[vocab]*[d_model])",
        compute.flops_megatron_step,
        "Throughput and cost per token",
        args=compute.MEGATRON_STEP_ARGS,
        output=False,
        level="model",
    ),
    _step(
        "flops_per_token",
        "FLOPs per token used",
        "FLOPs/token",
        "the convention chosen",
        '=IF([convention]="palm",[flops_palm],IF([convention]="6n",[flops_6n],'
        'IF([convention]="megatron",[flops_megatron],NA())))',
        compute.flops_per_token_by_convention,
        "Throughput and cost per token",
        level="model",
        check=Check("TCO_FLOPS_PER_TOKEN"),
    ),
    _step(
        "tokens_per_gpu_second",
        "Tokens per second per GPU",
        "tokens/s/GPU",
        "MFU x peak FLOP/s / FLOPs per token",
        "=[mfu]*[peak_tflops]*k_flops_per_tflop/[flops_per_token]",
        compute.tco_tokens_per_gpu_second,
        "Throughput and cost per token",
        args=("flops_per_token", "peak_tflops", "mfu"),
        check=Check("TCO_TOKENS_PER_GPU_SECOND"),
    ),
    _step(
        "delivered_usd_per_gpu_hour",
        "Delivered cost per GPU-hour",
        "USD/GPU-h",
        "TCO per GPU-hour / (availability x utilisation): the cost of an hour up and used",
        "=[tco_usd_per_gpu_hour]/([availability]*[utilisation])",
        decision_steps.tco_delivered_gpu_hour,
        "Throughput and cost per token",
        check=Check("TCO_DELIVERED_GPU_HOUR", {"gpu_hour_usd": "[tco_usd_per_gpu_hour]"}),
    ),
    _step(
        "usd_per_mtok",
        "Cost per million tokens",
        "USD/Mtok",
        "delivered cost per GPU-hour / tokens per GPU-hour x 1e6 / goodput",
        "=[delivered_usd_per_gpu_hour]/(k_seconds_per_hour*[tokens_per_gpu_second])"
        "*k_tokens_per_mtok/[goodput]",
        compute.cost_per_mtok_trained,
        "Throughput and cost per token",
        check=Check("TCO_COST_PER_MTOK", {"gpu_hour_usd": "[delivered_usd_per_gpu_hour]"}),
    ),
    _step(
        "training_cost_usd",
        "Training cost",
        "USD run",
        "tokens x cost per token",
        "=[tokens]*[usd_per_mtok]/k_tokens_per_mtok",
        compute.training_cost_at_rate,
        "Training run",
        check=Check("TCO_TRAINING_COST", {"gpu_hour_usd": "[delivered_usd_per_gpu_hour]"}),
    ),
    _step(
        "training_gpu_hours",
        "GPU-hours",
        "GPU-h",
        "tokens / tokens per GPU-hour / goodput",
        "=[tokens]/([tokens_per_gpu_second]*k_seconds_per_hour)/[goodput]",
        compute.training_gpu_hours,
        "Training run",
    ),
    _step(
        "training_days",
        "Wall-clock days",
        "days",
        "tokens / (GPUs x tokens/s per GPU) / 86400 / (availability x goodput)",
        "=[tokens]/([gpus]*[tokens_per_gpu_second])/k_seconds_per_day/([availability]*[goodput])",
        compute.training_days_at_rate,
        "Training run",
        check=Check("TCO_TRAINING_DAYS", {"goodput": "[availability]*[goodput]"}),
    ),
    _step(
        "utility_watts_per_gpu",
        "Utility power per GPU",
        "W",
        "IT kW x PUE x 1000",
        "=[it_kw_per_gpu]*[pue]*k_watts_per_kw",
        energy.tco_utility_watts_per_gpu,
        "Energy",
        check=Check("TCO_UTILITY_WATTS_PER_GPU"),
    ),
    _step(
        "joules_per_token",
        "Energy per token",
        "J/token",
        "utility W / tokens per second / goodput (lost work uses energy too)",
        "=[utility_watts_per_gpu]/[tokens_per_gpu_second]/[goodput]",
        energy.joules_per_token_at_rate,
        "Energy",
        check=Check("TCO_JOULES_PER_TOKEN"),
    ),
    _step(
        "training_energy_kwh",
        "Training energy",
        "kWh",
        "tokens x J/token / 3.6e6",
        "=[tokens]*[joules_per_token]/k_joules_per_kwh",
        energy.training_energy_kwh,
        "Energy",
        output=False,
    ),
    _step(
        "household_years",
        "Training energy in household-years",
        "household-years",
        "J / (kWh per household-year x 3.6e6 J/kWh)",
        "=[tokens]*[joules_per_token]/([kwh_per_household_year]*k_joules_per_kwh)",
        energy.household_years_of_run,
        "Energy",
        check=Check("TCO_HOUSEHOLD_YEARS", {"joules": "[tokens]*[joules_per_token]"}),
    ),
    _step(
        "co2_tonnes",
        "CO2 of the training energy",
        "t CO2",
        "tokens x J/token / 3.6e6 x kg CO2 per kWh / 1000",
        "=[tokens]*[joules_per_token]/k_joules_per_kwh*[kg_co2_per_kwh]/k_kg_per_tonne",
        energy.co2_tonnes_of_run,
        "Energy",
        check=Check("TCO_CO2_TONNES", {"joules": "[tokens]*[joules_per_token]"}),
    ),
    _step(
        "tokens_per_household_year",
        "Tokens per household-year of energy",
        "tokens",
        "kWh per household-year x 3.6e6 / J per token (the article's 15.8B FP8 GPT-3 tokens)",
        "=[kwh_per_household_year]*k_joules_per_kwh/[joules_per_token]",
        energy.tokens_per_household_year,
        "Energy",
        output=False,
    ),
    _step(
        "usd_per_mtok_served",
        "Cost per million tokens served (inference)",
        "USD/Mtok",
        "delivered cost per GPU-hour / (3600 x tokens served per second) x 1e6",
        "=[delivered_usd_per_gpu_hour]/(k_seconds_per_hour*[serve_tokens_per_gpu_second])*k_tokens_per_mtok",
        compute.tco_cost_per_mtok_at_rate,
        "Inference",
        check=Check(
            "TCO_COST_PER_MTOK_AT_RATE",
            {
                "gpu_hour_usd": "[tco_usd_per_gpu_hour]/[availability]",
                "tokens_per_gpu_second": "[serve_tokens_per_gpu_second]",
            },
        ),
    ),
    _step(
        "cash_breakeven_utilisation",
        "Cash break-even utilisation (undiscounted, untaxed)",
        "fraction",
        "TCO per GPU-hour / (availability x rent): the rent earned pays the TCO; ignores tax, "
        "rent decline, escalation and timing (the NPV break-even below has them)",
        "=[tco_usd_per_gpu_hour]/([availability]*[rent_usd_per_gpu_hour])",
        decision_steps.tco_cash_breakeven_utilisation,
        "Rent or buy",
        args=("tco_usd_per_gpu_hour", "rent_usd_per_gpu_hour", "availability"),
        check=Check("TCO_CASH_BREAKEVEN_UTILISATION", {"gpu_hour_usd": "[tco_usd_per_gpu_hour]"}),
    ),
    _step(
        "npv_usd_per_gpu",
        "NPV of owning and renting out",
        "USD",
        "year 0 + NPV(cost of capital, years 1..15) of the net cash flow",
        "=<net@0>+NPV([cost_of_capital],<net@1:last>)",
        decision_steps.npv_of_table,
        "Rent or buy",
        check=Check("TCO_NPV", _CASH),
    ),
    _step(
        "irr",
        "IRR",
        "1/year",
        "the rate at which NPV = 0 (Excel IRR; its Newton search starts at -50% when the "
        "undiscounted net is a loss, else at 10%)",
        "=IRR(<net@0:last>,IF(SUM(<net@0:last>)<0,-0.5,0.1))",
        decision_steps.irr_or_nan,
        "Rent or buy",
        check=Check("TCO_IRR", _CASH),
    ),
    _step(
        "payback_years",
        "Payback",
        "years",
        "first time the cumulative net cash flow reaches 0, linear within the year",
        '=IF(COUNT(<payback_point@0:last>)=0,"no payback within life",MIN(<payback_point@0:last>))',
        decision_steps.payback_of_table,
        "Rent or buy",
        check=Check("TCO_PAYBACK_YEARS", _CASH),
    ),
    _step(
        "npv_per_unit_rent",
        "NPV of $1 of rent per GPU-hour",
        "USD",
        "NPV of the revenue at $1 per GPU-hour, after tax",
        "=(<revenue@0>+NPV([cost_of_capital],<revenue@1:last>))/[rent_usd_per_gpu_hour]*(1-[tax_rate])",
        decision_steps.npv_per_unit_rent,
        "Rent or buy",
        output=False,
    ),
    _step(
        "breakeven_rent_usd_per_gpu_hour",
        "Break-even rent (NPV = 0)",
        "USD/GPU-h",
        "rent - NPV / NPV of $1 of rent (NPV is linear in the rent); with take-or-pay contracts the "
        "market rent, the contracts as given: below 0 where the contracts alone pay, a text where "
        "no GPU-hour is sold at the market rent",
        f'=IF([npv_per_unit_rent]=0,"{decision_steps.NO_MARKET_RENT}",'
        "[rent_usd_per_gpu_hour]-[npv_usd_per_gpu]/[npv_per_unit_rent])",
        decision_steps.breakeven_rent_of_table,
        "Rent or buy",
        args=("rent_usd_per_gpu_hour", "npv_usd_per_gpu", "npv_per_unit_rent"),
        check=Check("TCO_BREAKEVEN_RENT", _CASH),
    ),
    _step(
        "breakeven_utilisation",
        "Break-even utilisation (NPV = 0)",
        "fraction",
        "utilisation x (1 - NPV / (NPV of $1 of rent x rent)): NPV is a straight line in the "
        "utilisation (tax a share of profit, losses credited), so this is its root, with tax, "
        "decline, escalation and residual",
        "=IF(AND([utilisation]*(1-[npv_usd_per_gpu]/([npv_per_unit_rent]*[rent_usd_per_gpu_hour]))>0,"
        "[utilisation]*(1-[npv_usd_per_gpu]/([npv_per_unit_rent]*[rent_usd_per_gpu_hour]))<=1),"
        "[utilisation]*(1-[npv_usd_per_gpu]/([npv_per_unit_rent]*[rent_usd_per_gpu_hour])),"
        '"no utilisation in (0, 1] breaks even")',
        decision_steps.breakeven_utilisation_of_table,
        "Rent or buy",
        check=Check("TCO_BREAKEVEN_UTILISATION", _CASH),
    ),
    _step(
        "cluster_units",
        "Servers or racks",
        "units",
        "GPUs / GPUs per unit, rounded up",
        "=ROUNDUP([gpus]/[gpus_per_unit],0)",
        decision_steps.cluster_units,
        "Cluster",
    ),
    _step(
        "cluster_gpus_installed",
        "GPUs installed",
        "GPU",
        "servers or racks x GPUs per unit: every cluster total below counts these",
        "=[cluster_units]*[gpus_per_unit]",
        decision_steps.cluster_gpus_installed,
        "Cluster",
    ),
    _step(
        "cluster_capex_usd",
        "Cluster capex",
        "USD",
        "GPUs installed x capex per GPU",
        "=[cluster_gpus_installed]*[capex_per_gpu]",
        decision_steps.cluster_capex,
        "Cluster",
    ),
    _step(
        "cluster_it_mw",
        "Cluster IT load",
        "MW",
        "GPUs installed x IT kW per GPU / 1000",
        "=[cluster_gpus_installed]*[it_kw_per_gpu]/k_kw_per_mw",
        decision_steps.cluster_it_mw,
        "Cluster",
    ),
    _step(
        "cluster_facility_mw",
        "Cluster facility power",
        "MW",
        "IT MW x PUE",
        "=[cluster_it_mw]*[pue]",
        decision_steps.cluster_facility_mw,
        "Cluster",
    ),
    _step(
        "cluster_mwh_per_year",
        "Cluster energy per year at full load",
        "MWh",
        "facility MW x 8760",
        "=[cluster_facility_mw]*k_hours_per_year",
        decision_steps.cluster_mwh_per_year,
        "Cluster",
    ),
    _step(
        "cluster_opex_usd_per_year",
        "Cluster opex per year",
        "USD",
        "opex per GPU-hour x 8760 x GPUs installed",
        "=[opex_usd_per_gpu_hour]*k_hours_per_year*[cluster_gpus_installed]",
        decision_steps.cluster_per_year,
        "Cluster",
    ),
    _step(
        "cluster_tco_usd_per_year",
        "Cluster TCO per year",
        "USD",
        "TCO per GPU-hour x 8760 x GPUs installed",
        "=[tco_usd_per_gpu_hour]*k_hours_per_year*[cluster_gpus_installed]",
        decision_steps.cluster_per_year,
        "Cluster",
    ),
)

#: the results of the cluster as a financed project (udfs/project.py, docs/project.md) that the
#: evaluator and batch runs give beside the steps' (in the finance workbook: the period table of
#: workbook/finance/projectflows.py): key -> (label, unit, how, the per-GPU result it is or multiplies)
PROJECT_OUTPUTS: dict[str, tuple[str, str, str, str]] = {
    "equity_irr": ("Equity IRR", "1/year", "IRR of the equity cash flows (annual effective)", "equity_irr"),
    "equity_npv_usd_per_gpu": (
        "Equity NPV",
        "USD",
        "NPV of the equity cash flows at the cost of equity",
        "equity_npv_usd_per_gpu",
    ),
    "min_dscr": (
        "Lowest debt-service cover",
        "ratio",
        "lowest (revenue + opex + tax) / debt service over the repayment periods",
        "min_dscr",
    ),
    "peak_funding_usd_per_gpu": (
        "Peak funding per GPU",
        "USD",
        "the most negative cumulative equity cash flow (undiscounted)",
        "peak_funding_usd_per_gpu",
    ),
    "avg_dscr": (
        "Mean debt-service cover",
        "ratio",
        "simple mean of CFADS / debt service over the repayment periods",
        "avg_dscr",
    ),
    "llcr": (
        "Loan-life cover ratio",
        "ratio",
        "CFADS of the repayment periods at the debt rate, at in-service, / the debt then",
        "llcr",
    ),
    "plcr": (
        "Project-life cover ratio",
        "ratio",
        "CFADS of the life at the debt rate, at in-service, / the debt then",
        "plcr",
    ),
    "dscr_breach_periods": (
        "Periods below the DSCR covenant",
        "periods",
        "repayment periods whose DSCR is below covenant_dscr",
        "dscr_breach_periods",
    ),
    "debt_usd_per_gpu": ("Debt per GPU", "USD", "the debt drawn with the capex", "debt_usd_per_gpu"),
    "max_ltv": (
        "Highest loan to value",
        "ratio",
        "highest debt at a period's end / the collateral value then (value curve x capex; NaN without debt)",
        "max_ltv",
    ),
    "ltv_at_maturity": (
        "Loan to value at maturity",
        "ratio",
        "the loan to value at the end of the tenor (NaN without debt)",
        "ltv_at_maturity",
    ),
    "ltv_breach_periods": (
        "Periods above the LTV covenant",
        "periods",
        "periods whose loan to value is above max_ltv_covenant (0 without a covenant)",
        "ltv_breach_periods",
    ),
    "cluster_npv_usd": ("Cluster NPV", "USD", "NPV per GPU x GPUs installed", "npv_usd_per_gpu"),
    "cluster_equity_npv_usd": (
        "Cluster equity NPV",
        "USD",
        "equity NPV per GPU x GPUs installed",
        "equity_npv_usd_per_gpu",
    ),
    "cluster_peak_funding_usd": (
        "Cluster peak funding",
        "USD",
        "peak funding per GPU x GPUs installed",
        "peak_funding_usd_per_gpu",
    ),
}

#: the prefix of a reference system's quantity in :data:`COMPARISONS` (``[ref_mfu]``)
REF_PREFIX = "ref_"

#: the comparisons of a system with a reference system (the first column of Compare, H100 in the
#: published tables, the first system of ``gputco compare``): ``[name]`` is this system's quantity,
#: ``[ref_name]`` the reference's, ``[other]`` an earlier comparison. Every place that compares
#: (Compare sheet, CLI, published speed-ups) runs these: one definition, one verdict rule.
COMPARISONS: tuple[Step, ...] = (
    Step(
        "tco_ratio",
        "TCO ratio vs the reference",
        "x",
        "TCO per GPU-hour / the reference's: the break-even speed-up only where availability x "
        "utilisation x goodput are equal",
        "=[tco_usd_per_gpu_hour]/[ref_tco_usd_per_gpu_hour]",
        decision_steps.ratio,
        ("tco_usd_per_gpu_hour", "ref_tco_usd_per_gpu_hour"),
        "Compare",
    ),
    Step(
        "breakeven_speedup",
        "Break-even speed-up",
        "x",
        "(delivered cost per GPU-hour / goodput) / the reference's: the kept tokens per second, "
        "against the reference's, at which the cost per token is equal",
        "=([delivered_usd_per_gpu_hour]/[goodput])/([ref_delivered_usd_per_gpu_hour]/[ref_goodput])",
        decision_steps.breakeven_speedup,
        ("delivered_usd_per_gpu_hour", "goodput", "ref_delivered_usd_per_gpu_hour", "ref_goodput"),
        "Compare",
    ),
    Step(
        "speedup",
        "Speed-up in kept tokens per second",
        "x",
        "(tokens/s per GPU x goodput) / the reference's, at the MFUs entered",
        "=[tokens_per_gpu_second]*[goodput]/([ref_tokens_per_gpu_second]*[ref_goodput])",
        decision_steps.kept_speedup,
        ("tokens_per_gpu_second", "goodput", "ref_tokens_per_gpu_second", "ref_goodput"),
        "Compare",
    ),
    Step(
        "breakeven_mfu",
        "Break-even MFU",
        "fraction",
        "reference MFU x break-even speed-up x reference peak / peak (x FLOPs per token / the "
        "reference's): the cost per token equals the reference's",
        "=[ref_mfu]*[breakeven_speedup]*[ref_peak_tflops]/[peak_tflops]*[flops_per_token]/[ref_flops_per_token]",
        decision_steps.breakeven_mfu,
        (
            "ref_mfu",
            "breakeven_speedup",
            "ref_peak_tflops",
            "peak_tflops",
            "flops_per_token",
            "ref_flops_per_token",
        ),
        "Compare",
    ),
    Step(
        "cost_per_mtok_ratio",
        "Cost per token vs the reference",
        "x",
        "cost per Mtok / the reference's = break-even speed-up / speed-up; below 1: cheaper",
        "=[usd_per_mtok]/[ref_usd_per_mtok]",
        decision_steps.ratio,
        ("usd_per_mtok", "ref_usd_per_mtok"),
        "Compare",
    ),
    Step(
        "verdict",
        "Verdict at the MFUs entered",
        "text",
        'cost per token ratio below 1: "cheaper per token", else "not cheaper per token"',
        '=IF([cost_per_mtok_ratio]<1,"cheaper per token","not cheaper per token")',
        decision_steps.verdict,
        ("cost_per_mtok_ratio",),
        "Compare",
    ),
    Step(
        "rent_parity",
        "Rent parity vs the reference's rent",
        "USD/GPU-h",
        "reference rent x kept tokens/s / the reference's: renting this system at it costs the "
        "reference's per token (across types: the peaks differ)",
        "=[ref_rent_usd_per_gpu_hour]*[tokens_per_gpu_second]*[goodput]/([ref_tokens_per_gpu_second]*[ref_goodput])",
        decision_steps.rent_parity,
        (
            "ref_rent_usd_per_gpu_hour",
            "tokens_per_gpu_second",
            "goodput",
            "ref_tokens_per_gpu_second",
            "ref_goodput",
        ),
        "Compare",
    ),
)
_COMPARISONS = {c.key: c for c in COMPARISONS}


def comparison(key: str) -> Step:
    return _COMPARISONS[key]


def compare(this: Mapping[str, object], reference: Mapping[str, object]) -> dict[str, object]:
    """Every comparison of :data:`COMPARISONS` for a system's quantities ``this`` against the
    reference's (scalars or arrays; a missing optional quantity, the rent, gives NaN).

    >>> q = {"tco_usd_per_gpu_hour": 2.0, "delivered_usd_per_gpu_hour": 2.5, "goodput": 1.0}
    >>> r = {"tco_usd_per_gpu_hour": 1.0, "delivered_usd_per_gpu_hour": 1.25, "goodput": 0.8}
    >>> compare(q, r)
    {'tco_ratio': 2.0, 'breakeven_speedup': 1.6}
    """
    values: dict[str, object] = {**this, **{REF_PREFIX + k: v for k, v in reference.items()}}
    for c in COMPARISONS:
        if all(a in values for a in c.args):
            args = [values[a] for a in c.args]
            values[c.key] = c.func(*[float("nan") if a is None else a for a in args])
    return {c.key: values[c.key] for c in COMPARISONS if c.key in values}


def comparison_formula(key: str, ref: Callable[[str], str | None]) -> str:
    """The Excel formula of comparison ``key``: ``ref(name)`` places this system's quantities,
    ``ref("ref_" + name)`` the reference's and ``ref(other)`` an earlier comparison; with a
    reference rent the formula is guarded ("needs rent_usd_per_gpu_hour" where it is blank)."""
    text = REF.sub(lambda m: ref(m.group(1)) or m.group(0), _COMPARISONS[key].formula)
    needs = [
        a
        for a in _COMPARISONS[key].args
        if a.removeprefix(REF_PREFIX) in _INPUTS and _INPUTS[a.removeprefix(REF_PREFIX)].default == OPTIONAL
    ]
    if not needs:
        return text
    test = ",".join(f"ISNUMBER({ref(n)})" for n in needs)
    names = " and ".join(dict.fromkeys(n.removeprefix(REF_PREFIX) for n in needs))
    return f'=IF(AND({test}),{text[1:]},"needs {names}")'


_INPUTS = {i.key: i for i in INPUTS}
_STEPS = {s.key: s for s in STEPS}


def add_step(new: Step) -> None:
    """Add a step to the chain, after the steps it reads (an extension's own result).

    Everything that shows the chain picks it up: :func:`gputco.udfs.scenario.evaluate` and batch output
    columns, the finance workbook's Model row and ``out_`` names, the scenario workbooks' columns
    and the docs. Its operands must be inputs or earlier steps.
    """
    global STEPS
    if new.key in _STEPS or new.key in _INPUTS:
        raise ValueError(f"{new.key} is already a quantity of the chain")
    unknown = [a for a in new.args if a not in _STEPS and a not in _INPUTS and a not in _YEAR_STEPS]
    if unknown or set(operands(new.formula)) != set(new.args):
        raise ValueError(
            f"step {new.key}: operands {operands(new.formula)} must be its args "
            f"{list(new.args)}, each an input or an earlier step"
        )
    STEPS = (*STEPS, new)
    _STEPS[new.key] = new


#: the scenario inputs (everything a SPEC, a batch row or an Inputs cell can set), in order
SCENARIO_INPUTS: tuple[Input, ...] = tuple(i for i in INPUTS if i.scenario_input)


def outputs() -> dict[str, str]:
    """Every result column of :func:`gputco.udfs.scenario.evaluate` and batch runs, with its unit, in
    chain order (the echoed inputs capex and other cost where the chain uses them)."""
    out = {"capex_per_gpu": "USD"}
    for s in STEPS:
        if s.key == "opex_usd_per_gpu_hour":
            out["other_usd_per_gpu_hour"] = "USD/GPU-hour"
        if s.output:
            out[s.key] = s.unit
    return out


def get_input(key: str) -> Input:
    return _INPUTS[key]


def step(key: str) -> Step:
    return _STEPS[key]


def is_step(key: str) -> bool:
    return key in _STEPS


def is_input(key: str) -> bool:
    return key in _INPUTS


def formula(
    key: str,
    ref: Callable[[str], str | None],
    *,
    template: str | None = None,
    year: Callable[[str, str], str | None] | None = None,
) -> str:
    """The Excel formula of step ``key`` (or of ``template``) with every ``[name]`` replaced.

    ``ref(name)`` gives the reference of a quantity (a cell, a column, a named cell, a literal),
    or None where it has no place of its own: a step is then inlined in parentheses, so a block
    that shows only the results can still compute them in one cell. ``year(column, spec)`` gives
    the reference of a per-year table cell or range (``<net@0>``, ``<net@1:last>``,
    ``<cumulative@prev>``; spec "" is the same year).
    """
    if key in _YEAR_STEPS and template is None:
        text = _YEAR_STEPS[key].formula
    else:
        text = _STEPS[key].formula if template is None else template
    if year is not None:
        text = YEAR_REF.sub(lambda m: _year_operand(m.group(1), m.group(2) or "", year), text)
    elif YEAR_REF.search(text):
        raise KeyError(f"{key} reads the per-year table; give its references (year=...)")

    def sub(m: re.Match) -> str:
        name = m.group(1)
        where = ref(name)
        if where is not None:
            return where
        if name in _STEPS:
            return "(" + formula(name, ref, year=year)[1:] + ")"
        raise KeyError(f"{name} has no reference here and is not a step of the chain")

    return REF.sub(sub, text)


def expand(template: str, ref: Callable[[str], str | None], cells: Callable[[str, str], str | None]) -> str:
    """The one expander of a table's template (the per-year table's columns, the project's
    period lines of :mod:`gputco.udfs.periodlines`, a sheet's run table): ``ref(name)`` gives
    each ``[name]`` (None inlines a chain step), ``cells(line, spec)`` each ``<line@spec>`` (spec
    "" for the same row; None inlines a per-year column of the same year)."""
    return formula("", ref, template=template, year=cells)


def _year_operand(column: str, spec: str, year: Callable[[str, str], str | None]) -> str:
    """A per-year reference; a column with no place of its own (``year`` gives None) is inlined
    in parentheses for the same year, as :func:`formula` inlines a step."""
    where = year(column, spec)
    if where is not None:
        return where
    if spec or column not in _YEAR_STEPS:
        raise KeyError(
            f"<{column}@{spec}> needs cells of its own: only a column of the same year can be inlined"
        )
    text = YEAR_REF.sub(
        lambda m: _year_operand(m.group(1), m.group(2) or "", year), _YEAR_STEPS[column].formula
    )
    return "(" + text[1:] + ")"


def year_cells_needed(keys: list[str] | tuple[str, ...]) -> list[str]:
    """The per-year columns that need cells of their own to compute the steps ``keys``: those a
    step reads, and those a column reads from another year (``<cumulative@prev>``); the others
    can be inlined. In :data:`YEAR_STEPS` order.

    >>> year_cells_needed(["npv_usd_per_gpu", "payback_years"])
    ['net', 'cumulative', 'payback_point']
    """
    need: set[str] = set()
    for s in closure(keys):
        need |= {m.group(1) for m in YEAR_REF.finditer(s.formula)} & set(_YEAR_STEPS)
    seen: set[str] = set()

    def visit(column: str) -> None:
        if column in seen:
            return
        seen.add(column)
        for m in YEAR_REF.finditer(_YEAR_STEPS[column].formula):
            name, spec = m.group(1), m.group(2) or ""
            if name in _YEAR_STEPS:
                if spec:
                    need.add(name)
                visit(name)

    for column in list(need):
        visit(column)
    return [y.key for y in YEAR_STEPS if y.key in need]


def optional_inputs_of(key: str) -> list[str]:
    """The optional inputs (no default: the rent) that a step or per-year column needs."""
    seen: set[str] = set()
    found: list[str] = []

    def visit(name: str) -> None:
        if name in seen:
            return
        seen.add(name)
        if name in _INPUTS and _INPUTS[name].default == OPTIONAL:
            found.append(name)
        node = _STEPS.get(name) or _YEAR_STEPS.get(name)
        for a in node.args if node else ():
            visit(a)

    visit(key)
    return found


def reads_year_table(key: str) -> bool:
    """Does the step read the per-year cash-flow table (directly or through other steps)?"""
    s = _STEPS.get(key)
    return s is not None and any(a in _YEAR_STEPS or reads_year_table(a) for a in s.args)


def closure(keys: list[str] | tuple[str, ...]) -> list[Step]:
    """The steps needed to compute ``keys``, in chain order."""
    need: set[str] = set()

    def visit(name: str) -> None:
        if name in _STEPS and name not in need:
            need.add(name)
            for a in _STEPS[name].args:
                visit(a)

    for k in keys:
        visit(k)
    return [s for s in STEPS if s.key in need]


def inputs_of(keys: list[str] | tuple[str, ...]) -> list[str]:
    """The chain inputs the steps of ``keys`` read, in :data:`INPUTS` order."""
    used = {a for s in closure(keys) for a in s.args}
    return [i.key for i in INPUTS if i.key in used]


def is_quantity(name: str) -> bool:
    """True for the key of a chain input or step."""
    return name in _INPUTS or name in _STEPS


# --- one name, one meaning: the chain's paid-in-cash results and the project's ------------------

#: the prefix of the cluster project's own results where the chain has a result of the same kind
#: (docs/project.md, "Which NPV is which")
PROJECT_PREFIX = "project_"
#: the steps that read the per-year table which the project's routes compute from the project's
#: period table instead (:data:`gputco.udfs.yearflows.FROM_FLOWS` and the steps on them; a step
#: added later reads the yearly table there too, refusing project terms, and keeps its key)
PROJECT_NAMED = (
    "npv_usd_per_gpu",
    "irr",
    "payback_years",
    "npv_per_unit_rent",
    "breakeven_rent_usd_per_gpu_hour",
    "breakeven_utilisation",
)


def project_name(key: str) -> str:
    """The name of the chain's result ``key`` on the routes that compute it from the cluster
    project's period table (build, ramp, contracts, curves, tax depreciation): batch, the scenario
    workbooks, :func:`gputco.udfs.scenario.evaluate` and :func:`gputco.udfs.project.results`. A
    step that reads the per-year table (paid in cash, in service at once: the finance workbook's
    Model and Compare, TCO_NPV, TCO_IRR...) keeps its key for that table's number; the project's
    number carries :data:`PROJECT_PREFIX`, so one name has one meaning on every route. Any other
    result keeps its key (:data:`PROJECT_NAMED`).

    >>> project_name("npv_usd_per_gpu"), project_name("tco_usd_per_gpu_hour")
    ('project_npv_usd_per_gpu', 'tco_usd_per_gpu_hour')
    """
    return PROJECT_PREFIX + key if key in PROJECT_NAMED else key


def step_of(name: str) -> str:
    """The chain's key of the result ``name`` (:func:`project_name`'s inverse).

    >>> step_of("project_irr"), step_of("usd_per_mtok")
    ('irr', 'usd_per_mtok')
    """
    key = name[len(PROJECT_PREFIX) :] if name.startswith(PROJECT_PREFIX) else ""
    return key if key in PROJECT_NAMED else name


def renamed(name: str) -> str | None:
    """The project's name of a result once given under the chain's (:func:`project_name`), or
    None where ``name`` was not renamed."""
    if name in PROJECT_NAMED and _STEPS[name].output:
        return project_name(name)
    return None


def renamed_error(name: str, new: str, where: str) -> RenamedError:
    """The error that refuses ``name`` where the cluster project's result is ``new`` (``where``:
    what ``name`` is, as the message says it: "batch column", "result")."""
    return RenamedError(
        f"{where} {name!r} is now {new!r}: there it is the cluster project's result, computed from "
        f"its period table (build, ramp, contracts, curves, tax depreciation); {name!r} names the "
        "chain's paid-in-cash result (the yearly table: the finance workbook's Model, the TCO_NPV, "
        'TCO_IRR... functions). docs/project.md, "Which NPV is which"',
        name,
        new,
    )


class Results(dict):
    """Results by name: an old name of a project result (:func:`renamed`) raises a KeyError that
    names the new one, never the other number."""

    def __missing__(self, key):
        new = renamed(key) if isinstance(key, str) else None
        if new is not None:
            raise renamed_error(key, new, "result")
        raise KeyError(key)
