"""The UDF registry: the one list of gputco's Excel functions, with their argument docs.

``SPECS`` maps each Excel name (``"TCO_COST_PER_MTOK"``) to its :class:`gputco.udfs.excel.UdfSpec`
(summary, arguments with units, ranges and defaults, result, example formula, the plain numpy
function it wraps) and ``UDFS`` to its Excel-facing callable: it takes Excel-shaped arguments
(see :mod:`gputco.udfs.excel`), never raises, and carries its spec in ``.udf_spec``. Nothing here imports
xlwings: the xlwings module (``gputco.addin.xlwings_udfs``) applies xlwings's decorators to these specs.
The reference page (``docs/udfs.md``), the workbook builders (:func:`udf_call`), the headless
recalculation and the LibreOffice add-in read the same mapping; a function that is not here does
not exist in Excel.

The Python signatures (argument names and defaults) are those of the plain functions in
:mod:`udfs`: one place for them.

A column of MFUs gives a column of costs; the bad cell alone shows an error:

>>> from gputco.udfs.registry import UDFS
>>> UDFS["TCO_COST_PER_MTOK"](1.42, 1.07899e12, 1978.9, [[0.395], [0.5], [1.5]])
[[0.5445], [0.4301], ['#VALUE! mfu must be in (0, 1], got 1.5']]
>>> UDFS["TCO_GPU_HOUR"]("H100_HXG")[:31]
"#N/A unknown system 'H100_HXG';"
>>> UDFS["TCO_GPU_HOUR"].udf_spec.signature
'TCO_GPU_HOUR(system, [buyer])'
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable
from types import MappingProxyType
from typing import Any, cast

from . import chain, compute, decisions, energy, finance, project, tco
from .errors import GputcoError, MissingValueError, UnknownNameError
from .excel import NAME_OR_NUMBER, TEXT, ArgDoc, UdfSpec, call, error_text

# --- arguments shared by several functions -----------------------------------------------------

SYSTEM = ArgDoc("system", 'System preset, e.g. "H100_HGX" or "GB200_NVL72" (list: TCO_SYSTEMS())', "", TEXT)
BUYER = ArgDoc("buyer", 'Buyer type: "hyperscaler", "neocloud_giant" or "emerging_neocloud"', "", TEXT)
GPU_HOUR_USD = ArgDoc("gpu_hour_usd", "TCO (or rental price) per GPU-hour", "USD/GPU-hour")
FLOPS_PER_TOKEN = ArgDoc("flops_per_token", "Training FLOPs per token (TCO_FLOPS_PER_TOKEN)", "FLOP/token")
PEAK_TFLOPS = ArgDoc("peak_tflops", "Dense peak TFLOPS per GPU at the precision used", "TFLOPS (dense)")
MFU = ArgDoc("mfu", "Model FLOPs utilisation as a decimal (0.4 = 40%)", "decimal")
TOKENS = ArgDoc("tokens", "Tokens trained", "tokens")
CAPEX_PER_GPU = ArgDoc("capex_per_gpu", "All-in capex per GPU (TCO_CAPEX_PER_GPU)", "USD/GPU")
COST_OF_CAPITAL = ArgDoc(
    "cost_of_capital", "Annual cost of capital as a decimal (0.13 = 13%)", "decimal/year"
)
LIFE_YEARS = ArgDoc("life_years", "Economic life", "years")
RESIDUAL = ArgDoc(
    "residual_fraction", "Resale value at end of life as a fraction of capex", "fraction of capex"
)
IT_KW = ArgDoc("it_kw_per_gpu", "IT load per GPU (GPU, host, network and storage share)", "kW")
PUE = ArgDoc("pue", "Power usage effectiveness (facility power / IT power)", "ratio")
USD_PER_KWH = ArgDoc("usd_per_kwh", "Electricity price", "USD/kWh")
USD_PER_KW_MONTH = ArgDoc(
    "usd_per_kw_month", "Colocation rent per kW of IT load per month", "USD/(kW x month)"
)
GOODPUT = ArgDoc(
    "goodput",
    "Fraction of paid GPU time that becomes kept training progress "
    "(checkpoint restarts and lost work lower it)",
    "fraction",
)
AVAILABILITY = ArgDoc(
    "availability",
    "Fraction of hours a GPU is up and allocatable (e.g. 64/72 "
    "for a GB200 NVL72 rack run with two nodes spare)",
    "fraction",
)
UTILISATION = ArgDoc("utilisation", "Fraction of available hours used or sold", "fraction")
RENT = ArgDoc("rent_usd_per_gpu_hour", "Rental price of a GPU-hour", "USD/GPU-hour")
OPEX = ArgDoc("opex_usd_per_gpu_hour", "Opex per GPU-hour: power + facility + other", "USD/GPU-hour")
CASH_OPTIONAL = (
    RESIDUAL,
    AVAILABILITY,
    UTILISATION,
    ArgDoc("tax_rate", "Tax on profit (revenue - opex - depreciation); a loss is a credit", "fraction"),
    ArgDoc("depreciation_years", "Straight-line depreciation period; empty for the life", "years"),
    ArgDoc("rent_decline_per_year", "Yearly fall of the rent", "fraction/year"),
    ArgDoc("opex_escalation_per_year", "Yearly rise of the opex", "fraction/year"),
)
SYSTEM_A = dataclasses.replace(SYSTEM, name="system_a", doc='Reference system preset, e.g. "H100_HGX"')
SYSTEM_B = dataclasses.replace(SYSTEM, name="system_b", doc='Challenger system preset, e.g. "GB200_NVL72"')
#: each system's availability, utilisation and goodput in the comparisons (default 1)
PER_SYSTEM = tuple(
    dataclasses.replace(base, name=f"{base.name}_{side}", doc=f"{base.doc}, system_{side}")
    for base in (AVAILABILITY, UTILISATION, GOODPUT)
    for side in ("a", "b")
)
OTHER = ArgDoc("other_usd_per_gpu_hour", "Maintenance, support, insurance per GPU-hour", "USD/GPU-hour")


#: the arguments of the project functions (udfs/project.py) that the cash flows' (:data:`ARGS`) do
#: not document, or not as the project reads them (the opex at full load)
PROJECT_DOCS = (
    ArgDoc("opex_usd_per_gpu_hour", "Opex per GPU-hour at full load: power + facility + other", "USD/GPU-hour"),
    ArgDoc("power_usd_per_gpu_hour", "The power part of the opex at full load (idle_power_fraction applies to it)", "USD/GPU-hour"),
    ArgDoc("idle_power_fraction", "Power an idle GPU draws, fraction of full load", "fraction"),
    ArgDoc("build_months", "Months from paying the capex to in-service (a multiple of 12 by year)", "months"),
    ArgDoc("ramp_months", "Months from in-service to full utilisation, linear", "months"),
    ArgDoc("maintenance_fraction_per_year", "Maintenance a year, fraction of capex", "fraction/year"),
    ArgDoc("staff_usd_per_gpu_year", "Staff cost per GPU a year", "USD/GPU-year"),
    ArgDoc("insurance_fraction_per_year", "Insurance a year, fraction of capex", "fraction/year"),
    ArgDoc("software_usd_per_gpu_hour", "Software licence per installed GPU-hour", "USD/GPU-hour"),
    ArgDoc("contracted_fraction", "Share of the GPUs let take-or-pay", "fraction"),
    ArgDoc("contract_rent_usd_per_gpu_hour", "Take-or-pay rent per available GPU-hour; empty for the rent", "USD/GPU-hour"),
    ArgDoc("contract_years", "Years of the contract from in-service; empty for the life", "years"),
    ArgDoc("debt_fraction", "Share of the capex borrowed when it is paid", "fraction"),
    ArgDoc("debt_rate", "Annual effective debt rate; empty for the cost of capital", "1/year"),
    ArgDoc("debt_years", "Tenor: years from in-service to the last repayment; empty for the life", "years"),
    ArgDoc("cost_of_equity", "Discount rate of the equity flows; empty for the cost of capital", "1/year"),
    ArgDoc("bonus_depreciation_fraction", "Share of the capex deducted in the in-service year", "fraction"),
    ArgDoc("periods", 'Cash-flow periods: "year" (end of year) or "month"', "", TEXT),
    ArgDoc("depreciation_method", 'Tax depreciation: "straight_line", "macrs_5" or "macrs_7" (IRS Pub 946)', "", TEXT),
    ArgDoc("covenant_dscr", "The DSCR covenant the breach count tests against (default 1.0, an assumption)", "ratio"),
    ArgDoc("max_ltv_covenant", "Highest debt / collateral value the loan allows; 0 for none", "ratio"),
    ArgDoc("rent_curve", 'Rent factors by year of operation ("1, 0.85, 0.7225") or a finance preset key; empty for the rent decline', "", TEXT),
    ArgDoc("value_curve", 'Market value of the GPUs, fraction of capex by year ("1, 0.7, 0.5") or a finance preset key; empty for value_base', "", TEXT),
    ArgDoc("debt_repayment", 'Debt repayment: "level" (annuity), "straight" (equal principal) or "sculpted" (service = CFADS / one cover)', "", TEXT),
    ArgDoc("debt_grace_months", "Months of interest only from in-service, whole periods below the tenor", "months"),
    ArgDoc("debt_sizing", 'Debt sizing: "fraction" (debt_fraction x capex) or "dscr" (the largest sculpted debt at target_dscr, capped there)', "", TEXT),
    ArgDoc("target_dscr", "The cover dscr sizing sizes to (default 1.30, an assumption)", "ratio"),
    ArgDoc("rent_curve_shift", "Level shift of the rent path: its factor x (1 + shift)", "fraction"),
    ArgDoc("rent_curve_slope", "Tilt of the rent path: its factor x (1 + slope)^year of operation", "1/year"),
    ArgDoc("value_curve_shift", "Level shift of the value curve: its factor x (1 + shift)", "fraction"),
    ArgDoc("value_curve_slope", "Tilt of the value curve: its factor x (1 + slope)^years after purchase", "1/year"),
    ArgDoc("tax_losses", 'Tax losses: "refund" (a loss is a tax credit) or "carry_forward" (carried to later periods)', "", TEXT),
    ArgDoc("contract_escalation_per_year", "Contract rent escalation a year: year y of operation at the contract rent x (1 + escalation)^y", "1/year"),
    ArgDoc("dsra_months", "Months of scheduled debt service held in a reserve (funded at in-service, released at maturity)", "months"),
    ArgDoc("sweep_fraction", "Share of the cash after service and the reserve that prepays the debt", "fraction"),
    ArgDoc("lockup_dscr", "Below this DSCR a period's cash after service is trapped and prepays the debt; 0 for none", "ratio"),
    ArgDoc("debt_upfront_fee_fraction", "Fee on the debt drawn, paid by the equity at the draw", "fraction"),
    ArgDoc("debt_rate_basis", 'Debt rate: "fixed" (debt_rate) or "floating" (base_rate_curve + debt_spread, by year of operation)', "", TEXT),
    ArgDoc("base_rate_curve", 'Floating debt: the base rate by year of operation ("0.043, 0.039") or a finance preset key (sofr_2026)', "", TEXT),
    ArgDoc("debt_spread", "Floating debt: the spread over the base rate (a spread preset: gputco presets finance)", "1/year"),
)  # fmt: skip
PROJECT_EXAMPLE = (31250, 2.0, 0.4045, 5, 0.1)
#: the lowest DSCR needs debt: 60% of the capex (the 24th argument), the optional ones between as
#: their defaults
DSCR_EXAMPLE = (*PROJECT_EXAMPLE, 0, 1, 1, 0, 5, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2.0, 5, 0.6)


def _field(kind: str, table: str, examples: str) -> ArgDoc:
    return ArgDoc("field", f"{kind} field, e.g. {examples} (the header row of {table})", "", TEXT)


# --- the catalog (docs/udfs.md lists it), the product's names; extras after --------------

#: every argument documented once, by name: a function's arguments are its plain function's
#: parameters, each with the doc of its name here unless its spec gives its own (``docs``)
ARGS: dict[str, ArgDoc] = {
    a.name: a
    for a in (
        SYSTEM,
        BUYER,
        GPU_HOUR_USD,
        FLOPS_PER_TOKEN,
        PEAK_TFLOPS,
        MFU,
        TOKENS,
        CAPEX_PER_GPU,
        COST_OF_CAPITAL,
        LIFE_YEARS,
        IT_KW,
        PUE,
        USD_PER_KWH,
        USD_PER_KW_MONTH,
        dataclasses.replace(USD_PER_KW_MONTH, name="colo_usd_per_kw_month"),
        GOODPUT,
        RENT,
        OPEX,
        *CASH_OPTIONAL,
        SYSTEM_A,
        SYSTEM_B,
        *PER_SYSTEM,
        OTHER,
        ArgDoc("kwh_per_household_year", "Electricity per household per year", "kWh"),
        ArgDoc("kg_co2_per_kwh", "Grid emission factor", "kg CO2/kWh"),
    )
}


def _spec(plain, summary, returns, unit, example, *, table=False, docs=()) -> UdfSpec:
    """The spec of the TCO_ function that wraps ``plain``: its name is the plain function's in
    upper case, its arguments the parameters of ``plain``, each documented by :data:`ARGS` or,
    where ``docs`` has one of that name, by ``docs``."""
    name = plain.__name__.upper()
    own = {a.name: a for a in docs}
    params = list(inspect.signature(plain).parameters)
    unused = sorted(set(own) - set(params))
    missing = [p for p in params if p not in own and p not in ARGS]
    if unused or missing:
        raise TypeError(
            f"{name}: docs for {unused} that {plain.__name__} does not take; no doc for {missing}"
        )
    args = tuple(own.get(p, ARGS.get(p)) for p in params)
    return UdfSpec(name, summary, cast(tuple[ArgDoc, ...], args), returns, unit, example, plain, table=table)


_CATALOG = (
    _spec(
        tco.tco_systems,
        "Table of the system presets (one row per system, one column per field), header row first; spills.",
        "table: key, label, prices, power, dense peak TFLOPS",
        "",
        (),
        table=True,
    ),
    _spec(
        tco.tco_system,
        "One field of a system preset: price, power, dense peak TFLOPS and so on. "
        "Empty where the system has none (H100 FP4 peak).",
        "the field's value in the unit of TCO_SYSTEMS (USD, W, kW, TFLOPS, GPUs) or its label",
        "",
        ("H100_HGX", "capex_per_gpu"),
        docs=(_field("System", "TCO_SYSTEMS()", '"capex_per_gpu", "it_kw_per_gpu", "peak_tflops_fp8"'),),
    ),
    _spec(
        tco.tco_buyers,
        "Table of the buyer-type presets (cost of capital, life, PUE, tariffs, "
        "capex multiplier), header row first; spills.",
        "table: key, label, cost_of_capital, life_years, ...",
        "",
        (),
        table=True,
    ),
    _spec(
        tco.tco_buyer,
        "One field of a buyer-type preset, e.g. its cost of capital or PUE.",
        "the field's value (decimals for rates, years, USD/kWh, USD/(kW x month)) or its label",
        "",
        ("hyperscaler", "cost_of_capital"),
        docs=(_field("Buyer", "TCO_BUYERS()", '"cost_of_capital", "pue", "usd_per_kwh"'),),
    ),
    _spec(
        tco.tco_models,
        "Table of the model-architecture presets (parameters, layers, sizes, "
        "sequence length), header row first; spills.",
        "table: key, label, params, layers, d_model, ...",
        "",
        (),
        table=True,
    ),
    _spec(
        tco.tco_model,
        "One field of a model preset, e.g. its parameter count or sequence length.",
        "the field's value (parameters, layers, tokens) or its label",
        "",
        ("gpt3_175b", "params"),
        docs=(
            ArgDoc(
                "model", 'Model preset: "gpt3_175b", "llama3_8b", "llama3_70b" or "llama3_405b"', "", TEXT
            ),
            _field("Model", "TCO_MODELS()", '"params", "layers", "seq_len"'),
        ),
    ),
    _spec(
        tco.tco_capex_per_gpu,
        "All-in capex per GPU of a system for a buyer type: unit all-in "
        "price / GPUs per unit x the buyer's capex multiplier.",
        "all-in capital expenditure per GPU",
        "USD/GPU",
        ("GB200_NVL72",),
    ),
    _spec(
        finance.tco_capital_per_gpu_hour,
        "Capital cost per GPU-hour: the level annual payment that "
        "repays the capex at the cost of capital over the life (-PMT), less the residual, / 8760.",
        "capital cost per GPU-hour",
        "USD/GPU-hour",
        (31250, 0.1305, 5),
    ),
    _spec(
        finance.tco_power_per_gpu_hour,
        "Electricity cost per GPU-hour: IT load per GPU x PUE x tariff.",
        "electricity cost per GPU-hour",
        "USD/GPU-hour",
        (1.389, 1.3, 0.087),
    ),
    _spec(
        finance.tco_colo_per_gpu_hour,
        "Facility (colocation) cost per GPU-hour: IT load per GPU x rent per kW-month / 730 hours.",
        "colocation cost per GPU-hour",
        "USD/GPU-hour",
        (1.389, 130),
    ),
    _spec(
        tco.tco_gpu_hour,
        "Total cost of ownership per GPU-hour of a system for a buyer type, from "
        "the presets: capital + power + facility + other.",
        "TCO per GPU-hour",
        "USD/GPU-hour",
        ("H100_HGX",),
    ),
    _spec(
        tco.tco_breakdown,
        "TCO per GPU-hour by component (capital, power, facility, other, total) "
        "as a table with a header row; spills.",
        "table: component, usd_per_gpu_hour",
        "USD/GPU-hour",
        ("H100_HGX",),
        table=True,
    ),
    _spec(
        tco.tco_ratio,
        "TCO per GPU-hour of system_b / that of system_a: the break-even speed-up where "
        "availability, utilisation and goodput are equal (else TCO_BREAKEVEN_SPEEDUP).",
        "TCO ratio b / a",
        "x",
        ("H100_HGX", "GB200_NVL72"),
    ),
    _spec(
        compute.tco_flops_per_token,
        "Training FLOPs per token of a model preset: PaLM convention "
        "6N + 12 x layers x d_model x seq_len by default; or 6N, or the architecture-aware "
        "Megatron count.",
        "training FLOPs per token (forward + backward)",
        "FLOP/token",
        ("gpt3_175b",),
        docs=(
            ArgDoc(
                "model",
                'Model preset, e.g. "gpt3_175b"; or a parameter count with convention "6n"',
                "",
                NAME_OR_NUMBER,
            ),
            ArgDoc("seq_len", "Sequence length; empty for the preset's", "tokens"),
            ArgDoc("convention", '"palm" (reproduces the published figures), "6n" or "megatron"', "", TEXT),
        ),
    ),
    _spec(
        compute.tco_tokens_per_gpu_second,
        "Training throughput per GPU: MFU x dense peak TFLOPS x 1e12 / FLOPs per token.",
        "tokens per second per GPU",
        "tokens/s/GPU",
        (1.07899e12, 1978.9, 0.3952),
    ),
    _spec(
        compute.tco_cost_per_mtok,
        "Cost of one million trained tokens: TCO per GPU-hour / (3600 x tokens per second per GPU) x 1e6.",
        "cost per million trained tokens",
        "USD/Mtok",
        (1.42, 1.07899e12, 1978.9, 0.395),
    ),
    _spec(
        compute.tco_training_cost,
        "Cost of a training run: tokens x cost per token at the given TCO "
        "per GPU-hour, FLOPs per token, dense peak and MFU.",
        "cost of the run",
        "USD",
        (300e9, 1.42, 1.07899e12, 1978.9, 0.395),
    ),
    _spec(
        compute.tco_training_days,
        "Wall-clock days of a training run: tokens / (GPUs x tokens per second per GPU) / 86400.",
        "duration of the run",
        "days",
        (300e9, 128, 1.07899e12, 1978.9, 0.395),
        docs=(ArgDoc("gpus", "GPUs in the run", "GPUs"),),
    ),
    _spec(
        tco.tco_breakeven_mfu,
        "The MFU system_b needs for the same cost per token as system_a at "
        "mfu_a, exactly: mfu_a x TCO_BREAKEVEN_SPEEDUP x (peak_a / peak_b). Above 1: b cannot break even.",
        "break-even MFU on system_b",
        "decimal",
        (0.54, "H100_HGX", "GB200_NVL72", "bf16"),
        docs=(
            ArgDoc("mfu_a", "MFU reached on system_a as a decimal", "decimal"),
            ArgDoc(
                "precision",
                'Precision of the run: "bf16", "fp8" or "fp4" (both systems need that peak)',
                "",
                TEXT,
            ),
        ),
    ),
    _spec(
        energy.tco_joules_per_token,
        "Energy per trained token: all-in utility watts per GPU (IT load x PUE) / tokens per second per GPU.",
        "energy per trained token",
        "J/token",
        (1789, 1.07899e12, 1978.9, 0.395),
        docs=(
            ArgDoc(
                "utility_watts_per_gpu",
                "All-in facility power per GPU incl. PUE (TCO_UTILITY_WATTS_PER_GPU)",
                "W",
            ),
        ),
    ),
    _spec(
        energy.tco_household_years,
        "Energy as years of an average US household's electricity (10,791 kWh a year, EIA 2022).",
        "US household-years of electricity",
        "household-years",
        (7.407e11,),
        docs=(ArgDoc("joules", "Energy", "J"),),
    ),
    # extras beyond the original catalog
    _spec(
        finance.tco_total_per_gpu_hour,
        "TCO per GPU-hour from explicit inputs: capital (PMT) + power + colocation + other.",
        "TCO per GPU-hour",
        "USD/GPU-hour",
        (31250, 0.1305, 5, 1.389, 1.3, 0.087, 130),
    ),
    _spec(
        energy.tco_utility_watts_per_gpu,
        "All-in utility power per GPU: IT load x PUE, in watts (the input of TCO_JOULES_PER_TOKEN).",
        "power drawn from the utility per GPU",
        "W",
        (1.389, 1.288),
    ),
    # decisions: delivered hours, rent against buy, cash flows, cluster totals
    _spec(
        decisions.tco_delivered_gpu_hour,
        "TCO per GPU-hour actually available and used: TCO per GPU-hour / (availability x utilisation).",
        "cost of a delivered GPU-hour",
        "USD/GPU-hour",
        (2.2494, 0.8889, 0.9),
    ),
    _spec(
        decisions.tco_breakeven_utilisation,
        "The utilisation at which owning one GPU and renting it out has NPV = 0, with tax, rent "
        "decline, escalation and residual (solved exactly); an error text where none in (0, 1] "
        "does. Paid in cash; the project's: batch's project_breakeven_utilisation.",
        "break-even utilisation",
        "fraction",
        (31250, 2.0, 0.4045, 5, 0.1305),
    ),
    _spec(
        decisions.tco_cash_breakeven_utilisation,
        "The cash break-even utilisation: TCO per GPU-hour / (availability x rent), undiscounted "
        "and untaxed (TCO_BREAKEVEN_UTILISATION solves NPV = 0). Above 1: renting out never pays.",
        "cash break-even utilisation",
        "fraction",
        (1.42, 2.0, 0.9),
    ),
    _spec(
        decisions.tco_rent_parity,
        "Rent that gives the reference's cost per token: rent x (MFU x peak x goodput) / "
        "(reference's); without the peaks (one GPU type) rent x mfu / reference_mfu.",
        "rent parity price",
        "USD/GPU-hour",
        (2.0, 0.36, 0.4),
        docs=(
            ArgDoc("reference_mfu", "MFU the reference rent buys", "decimal"),
            ArgDoc(
                "peak_tflops", "Dense peak of this system at the precision (across types)", "TFLOPS (dense)"
            ),
            ArgDoc("reference_peak_tflops", "Dense peak of the reference system", "TFLOPS (dense)"),
            dataclasses.replace(GOODPUT, name="reference_goodput", doc="Goodput of the reference"),
        ),
    ),
    _spec(
        tco.tco_breakeven_speedup,
        "The kept tokens per second system_b needs, against system_a's, for the same cost per "
        "token: (delivered cost / goodput) of b over a's, delivered = TCO / (availability x "
        "utilisation); TCO_RATIO where those are equal.",
        "break-even speed-up of system_b",
        "x",
        ("H100_HGX", "GB200_NVL72", "hyperscaler", 0.9, 0.8889),
    ),
    _spec(
        decisions.tco_cashflows,
        "Cash flows of owning one GPU and renting it out, years 0..life: capex, "
        "revenue, opex, depreciation (memo), tax, residual, net, cumulative; spills.",
        "table: year, capex, revenue, opex, depreciation, tax, residual, net, cumulative",
        "USD",
        (31250, 2.0, 0.4045, 5),
        table=True,
    ),
    _spec(
        decisions.tco_npv,
        "Net present value of owning one GPU and renting it out, at the cost of "
        "capital (end-of-year cash flows, year 0 undiscounted). Paid in cash (the yearly table); "
        "the project's: TCO_PROJECT_NPV.",
        "NPV per GPU",
        "USD",
        (31250, 2.0, 0.4045, 5, 0.1305),
    ),
    _spec(
        decisions.tco_irr,
        "Internal rate of return of owning one GPU and renting it out (NPV = 0); an "
        "error text where the cash flows never change sign or have no root. Paid in cash (the "
        "yearly table); the project's: TCO_PROJECT_IRR.",
        "IRR",
        "decimal/year",
        (31250, 2.0, 0.4045, 5),
    ),
    _spec(
        decisions.tco_payback_years,
        "Years until the cumulative net cash flow (residual included) reaches "
        "0, linear within the year; an error text where it does not within the life. Paid in "
        "cash (the yearly table); the project's is batch's project_payback_years.",
        "payback",
        "years",
        (31250, 2.0, 0.4045, 5),
    ),
    _spec(
        decisions.tco_breakeven_rent,
        "The rent per GPU-hour with NPV = 0 at the cost of capital; with "
        "availability = utilisation = 1 and no tax it equals TCO_TOTAL_PER_GPU_HOUR. Paid in "
        "cash (the yearly table); the project's is batch's project_breakeven_rent_usd_per_gpu_hour.",
        "break-even rent",
        "USD/GPU-hour",
        (31250, 0.404452, 5, 0.1305),
    ),
    # inference cost and energy equivalents
    _spec(
        compute.tco_cost_per_mtok_at_rate,
        "Cost per million tokens served at a measured throughput: "
        "TCO (or rent) per GPU-hour / utilisation / (3600 x tokens per second per GPU) x 1e6.",
        "cost per million tokens served",
        "USD/Mtok",
        (1.42, 1000.0, 0.6),
        docs=(ArgDoc("tokens_per_gpu_second", "Measured tokens per second per GPU", "tokens/s/GPU"),),
    ),
    _spec(
        energy.tco_co2_tonnes,
        "CO2 emitted generating an amount of electricity: joules / 3.6e6 x kg "
        "CO2 per kWh / 1000 (default: US average 2022, EIA).",
        "tonnes of CO2",
        "t CO2",
        (7.407e11,),
        docs=(ArgDoc("joules", "Electricity drawn from the grid (incl. PUE)", "J"),),
    ),
    _spec(
        decisions.tco_cluster,
        "Totals for a cluster: GPUs, servers or racks (rounded up), capex, IT and "
        "facility MW, MWh a year at full load, opex and TCO a year; spills.",
        "table: quantity, value",
        "",
        ("GB200_NVL72", 1000),
        table=True,
        docs=(ArgDoc("gpus", "GPUs in the cluster", "GPUs"),),
    ),
)


#: the cluster as a financed project (docs/project.md), after the catalog
_PROJECT_SPECS = (
    _spec(
        project.tco_project_cashflows,
        "Cash flows of one GPU as a project, by year or month (periods=\"month\"): capex, revenue, "
        "opex, depreciation, tax, residual, net, debt drawn and service, tax shield, equity; spills.",
        "table: " + ", ".join(project.TABLE_COLUMNS),
        "USD",
        PROJECT_EXAMPLE,
        table=True,
        docs=PROJECT_DOCS,
    ),
    *(
    _spec(
        getattr(project, name.lower()),
        summary,
        returns,
        unit,
        DSCR_EXAMPLE if name in ("TCO_MIN_DSCR", "TCO_AVG_DSCR", "TCO_LLCR", "TCO_DEBT_PER_GPU",
                    "TCO_DSCR_BREAKEVEN_RENT") else PROJECT_EXAMPLE,
        docs=PROJECT_DOCS,
    )
    for name, summary, returns, unit in (
        (
            "TCO_PROJECT_NPV",
            "NPV of one GPU as a project: build, ramp, contracts, opex lines, MACRS "
            "or bonus depreciation, by year or month; the unlevered cash flows at the cost of capital "
            "(batch's project_npv_usd_per_gpu; TCO_NPV is paid in cash).",
            "project NPV per GPU",
            "USD",
        ),
        (
            "TCO_PROJECT_IRR",
            "IRR of one GPU's project (unlevered) cash flows, annual effective "
            "(monthly periods: (1 + monthly IRR)^12 - 1); batch's project_irr (TCO_IRR is paid in cash).",
            "project IRR",
            "decimal/year",
        ),
        (
            "TCO_EQUITY_IRR",
            "IRR of the equity cash flows: project flows + debt drawn - level debt "
            "service + interest tax shield, annual effective.",
            "equity IRR",
            "decimal/year",
        ),
        (
            "TCO_EQUITY_NPV",
            "NPV of the equity cash flows at the cost of equity (default: the cost of capital).",
            "equity NPV per GPU",
            "USD",
        ),
        (
            "TCO_MIN_DSCR",
            "Lowest debt-service cover over the repayment periods: (revenue + opex + "
            "tax) / debt service; an error without debt.",
            "lowest DSCR",
            "ratio",
        ),
        (
            "TCO_AVG_DSCR",
            "Mean debt-service cover over the repayment periods (simple mean of "
            "CFADS / debt service); an error without debt.",
            "mean DSCR",
            "ratio",
        ),
        (
            "TCO_LLCR",
            "Loan-life cover ratio: CFADS of the repayment periods discounted at the "
            "debt rate to in-service, over the debt then; an error without debt.",
            "LLCR",
            "ratio",
        ),
        (
            "TCO_DEBT_PER_GPU",
            "The debt drawn with the capex per GPU: debt_fraction x capex.",
            "debt per GPU",
            "USD",
        ),
        (
            "TCO_PEAK_FUNDING",
            "The most negative cumulative equity cash flow (undiscounted): the "
            "equity the project needs at its worst.",
            "peak funding per GPU",
            "USD",
        ),
        (
            "TCO_DSCR_BREAKEVEN_RENT",
            "The market rent at which the lowest DSCR equals covenant_dscr, contracts as given "
            "(level or straight repayment); 0 where the covenant holds at a rent of 0; an error "
            "without debt, with sculpted repayment or dscr sizing.",
            "DSCR break-even rent",
            "USD/GPU-hour",
        ),
    )
    ),
)  # fmt: skip


def _with_signature(spec: UdfSpec) -> UdfSpec:
    """The spec with each argument's optional flag and default taken from the plain function."""
    params = list(inspect.signature(spec.plain).parameters.values())
    names = [p.name for p in params]
    if names != [a.name for a in spec.args]:
        raise TypeError(
            f"{spec.name}: arguments {[a.name for a in spec.args]} do not match "
            f"{spec.plain.__name__}{tuple(names)}"
        )
    args = tuple(
        dataclasses.replace(
            a, optional=p.default is not p.empty, default=None if p.default is p.empty else p.default
        )
        for a, p in zip(spec.args, params, strict=True)
    )
    return dataclasses.replace(spec, args=args)


_SPECS: dict[str, UdfSpec] = {s.name: _with_signature(s) for s in (*_CATALOG, *_PROJECT_SPECS)}
#: every function's spec, Excel name -> UdfSpec (read-only view; :func:`register` adds to it)
SPECS = MappingProxyType(_SPECS)


def make_udf(spec: UdfSpec) -> Callable:
    """The Excel-facing callable of ``spec``: Excel name, wizard docstring, the plain signature."""
    signature = inspect.signature(spec.plain)

    def udf(*args, **kwargs):
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as err:  # wrong number of arguments
            return error_text(GputcoError(f"{err}; usage: {spec.signature}"))
        bound.apply_defaults()
        return call(spec, tuple(bound.arguments.values()))

    udf.__name__ = udf.__qualname__ = spec.name
    udf.__doc__ = spec.summary
    attrs = cast(Any, udf)  # a function object: it takes attributes
    attrs.__signature__ = signature
    attrs.udf_spec = spec
    return udf


_UDFS: dict[str, Callable] = {name: make_udf(spec) for name, spec in SPECS.items()}
#: the registry: Excel name -> Excel-facing callable (read-only view; :func:`register` adds to it)
UDFS = MappingProxyType(_UDFS)


def udf_call(name: str, **operands: str) -> str:
    """A call of the TCO_ function ``name`` in a formula, its arguments given by name.

    ``operands`` maps argument names to formula text (a cell, a name, an expression). The
    arguments are put in the registry's order, so a reordered signature cannot swap two of them;
    an unknown name or a missing required argument raises. Omitted optional arguments are left
    out (trailing) or empty (between given ones).

    >>> udf_call("TCO_POWER_PER_GPU_HOUR", usd_per_kwh="C3", pue="C2", it_kw_per_gpu="C1")
    'TCO_POWER_PER_GPU_HOUR(C1,C2,C3)'
    >>> udf_call("TCO_POWER_PER_GPU_HOUR", it_kw_per_gpu="C1", pue="C2", kwh="C3")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gputco.udfs.errors.UnknownNameError: unknown argument of TCO_POWER_PER_GPU_HOUR 'kwh'; valid: ...
    """
    spec = SPECS[name]
    names = [a.name for a in spec.args]
    for key in operands:
        if key not in names:
            raise UnknownNameError(f"argument of {name}", key, names)
    texts = []
    for a in spec.args:
        if a.name in operands:
            texts.append(operands[a.name])
        elif a.optional:
            texts.append("")
        else:
            raise MissingValueError(a.name, f"{name} needs it ({spec.signature})")
    while texts and texts[-1] == "" and spec.args[len(texts) - 1].optional:
        texts.pop()
    return f"{name}({','.join(texts)})"


def register(spec: UdfSpec) -> Callable:
    """Add a function to the registry (an extension's own ``TCO_`` function) and return its UDF.

    Everything that reads the registry picks it up: the reference page, the xlwings module, the
    LibreOffice add-in (``gputco addin libreoffice --module M`` imports the extension module ``M``
    inside LibreOffice too) and the recalculation engine.
    """
    if (
        not spec.name.startswith("TCO_")
        or not spec.name.replace("_", "").isalnum()
        or spec.name != spec.name.upper()
    ):
        raise GputcoError(f"a UDF name is upper case with the TCO_ prefix, got {spec.name!r}")
    if spec.name in _SPECS:
        raise GputcoError(f"{spec.name} is already registered")
    spec = _with_signature(spec)
    _SPECS[spec.name] = spec
    _UDFS[spec.name] = udf = make_udf(spec)
    return udf


def check_formula(key: str, ref: Callable[[str], str | None]) -> str:
    """``=TCO_...(...)``: the TCO_ function that checks chain step ``key``, on the same operands as
    the step's formula (:func:`gputco.udfs.chain.formula`; ``ref`` names a quantity's cell).

    Built by argument name (:func:`udf_call`), so a reordered signature cannot swap two
    arguments. Optional arguments the chain has no quantity for are left out.
    """
    s = chain.step(key)
    if s.check is None:
        raise KeyError(f"step {key} has no TCO_ function to check it")
    operands = {}
    for a in SPECS[s.check.udf].args:
        template = s.check.bind.get(a.name)
        if template is None and chain.is_quantity(a.name):
            template = f"[{a.name}]"
        if template is not None:
            operands[a.name] = chain.formula(key, ref, template=template)
    return "=" + udf_call(s.check.udf, **operands)
