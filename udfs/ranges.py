"""The valid range of every numeric input, in one table.

The model's checks (:mod:`gputco.udfs._check`), the UDF argument docs
(:mod:`gputco.udfs.excel`), scenario SPEC
and batch validation (which run the model) and the workbooks' data validation all read
:data:`RANGES`. Where one function takes a narrower range than the rest (a cash-flow table has
whole years only), :data:`FUNCTION_RANGES` says so for that function and argument.

>>> str(of("pue")), str(of("mfu")), str(of("capex_per_gpu"))
('[1, 5]', '(0, 1]', '> 0')
>>> of("cost_of_capital").excel("D5")
'AND(ISNUMBER(D5),D5>=0,D5<=1)'
"""

from __future__ import annotations

import math
from dataclasses import dataclass

INF = math.inf


def tenor_rule(life: float | None = None) -> str:
    """The debt tenor's rule (``debt_years``), one text on every route: the functions, batch,
    SPECs and the finance workbook's inputs (``life``: the row's life, where the tenor passes it).

    >>> tenor_rule(5)
    'a whole number of periods in (0, life_years = 5] (whole years with periods "year", whole months with "month")'
    """
    life_years = "life_years" if life is None else f"life_years = {life:g}"
    return f'a whole number of periods in (0, {life_years}] (whole years with periods "year", whole months with "month")'


#: the debt tenor's rule, one on every route (:func:`tenor_rule`)
TENOR_RULE = tenor_rule()


@dataclass(frozen=True)
class Range:
    """An interval of valid values, optionally whole numbers only."""

    lo: float = -INF
    hi: float = INF
    lo_open: bool = False
    hi_open: bool = False
    whole: bool = False
    #: what an error says the value must be, where the interval alone is not the rule (the debt
    #: tenor: :data:`TENOR_RULE`)
    rule: str | None = None

    @property
    def valid(self) -> str:
        """What an error says a bad value must be: the rule where there is one, else the interval
        (a whole number in it)."""
        return self.rule if self.rule else str(self) if self.whole else self.interval

    def __str__(self) -> str:
        if self.hi == INF and self.lo > -INF:
            text = f"{'>' if self.lo_open else '>='} {_num(self.lo)}"
        else:
            left = "(" if self.lo_open else "["
            right = ")" if self.hi_open or self.hi == INF else "]"
            text = f"{left}{_num(self.lo)}, {_num(self.hi)}{right}"
        return f"a whole number in {text}" if self.whole else text

    @property
    def interval(self) -> str:
        """The interval in bracket notation, as error messages say it: ``(0, inf)``."""
        left = "(" if self.lo_open else "["
        right = ")" if self.hi_open or self.hi == INF else "]"
        return f"{left}{_num(self.lo)}, {_num(self.hi)}{right}"

    def excel(self, ref: str) -> str:
        """An Excel condition that is TRUE when the cell ``ref`` holds a valid value."""
        terms = [f"ISNUMBER({ref})"]
        if self.lo > -INF:
            terms.append(f"{ref}{'>' if self.lo_open else '>='}{_num(self.lo)}")
        if self.hi < INF:
            terms.append(f"{ref}{'<' if self.hi_open else '<='}{_num(self.hi)}")
        if self.whole:
            terms.append(f"{ref}=ROUNDUP({ref},0)")  # whole: x = ROUNDUP(x, 0) for either sign
        return f"AND({','.join(terms)})"


def _num(x: float) -> str:
    if x in (INF, -INF):
        return "inf" if x > 0 else "-inf"
    return f"{x:g}"


POSITIVE = Range(0.0, lo_open=True)
NON_NEGATIVE = Range(0.0)
FRACTION = Range(0.0, 1.0, lo_open=True)  # (0, 1]: MFU, availability, utilisation, goodput

#: every numeric argument or input of the model, by name
RANGES: dict[str, Range] = {
    # money and finance
    "capex_per_gpu": POSITIVE,
    "cost_of_capital": Range(0.0, 1.0),
    "life_years": Range(0.0, 100.0, lo_open=True),
    "residual_fraction": Range(0.0, 1.0, hi_open=True),
    "other_usd_per_gpu_hour": NON_NEGATIVE,
    "gpu_hour_usd": POSITIVE,
    "capital_usd_per_gpu_hour": NON_NEGATIVE,
    "power_usd_per_gpu_hour": NON_NEGATIVE,
    "facility_usd_per_gpu_hour": NON_NEGATIVE,
    "opex_usd_per_gpu_hour": NON_NEGATIVE,
    "usd_per_mtok": POSITIVE,
    "capex_multiplier": POSITIVE,
    # power and facility
    "it_kw_per_gpu": POSITIVE,
    "pue": Range(1.0, 5.0),
    "usd_per_kwh": POSITIVE,
    "colo_usd_per_kw_month": NON_NEGATIVE,
    "usd_per_kw_month": NON_NEGATIVE,
    "utility_watts_per_gpu": POSITIVE,
    # compute
    "mfu": FRACTION,
    "mfu_a": FRACTION,
    "peak_tflops": POSITIVE,
    "flops_per_token": POSITIVE,
    "tokens_per_gpu_second": POSITIVE,
    "serve_tokens_per_gpu_second": POSITIVE,
    "tokens": POSITIVE,
    "gpus": POSITIVE,
    "seq_len": POSITIVE,
    # model architecture
    "params": POSITIVE,
    "active_params": POSITIVE,
    "head_dim": POSITIVE,
    "window_layers": NON_NEGATIVE,
    "window": NON_NEGATIVE,
    "utilisation": FRACTION,
    "availability": FRACTION,
    "goodput": FRACTION,
    "reference_mfu": FRACTION,
    "reference_peak_tflops": POSITIVE,
    "reference_goodput": FRACTION,
    # the per-system arguments of the comparisons (TCO_BREAKEVEN_SPEEDUP, TCO_BREAKEVEN_MFU)
    "availability_a": FRACTION,
    "availability_b": FRACTION,
    "utilisation_a": FRACTION,
    "utilisation_b": FRACTION,
    "goodput_a": FRACTION,
    "goodput_b": FRACTION,
    "rent_usd_per_gpu_hour": POSITIVE,
    "tax_rate": Range(0.0, 1.0, hi_open=True),
    "depreciation_years": Range(0.0, 100.0, lo_open=True),
    "rent_decline_per_year": Range(0.0, 1.0, hi_open=True),
    "opex_escalation_per_year": Range(-0.5, 1.0),
    "gpus_per_unit": POSITIVE,
    # the cluster as a financed project (udfs/project.py, docs/project.md)
    "idle_power_fraction": Range(0.0, 1.0),
    "build_months": Range(0.0, 60.0, whole=True),
    "ramp_months": Range(0.0, 60.0, whole=True),
    "maintenance_fraction_per_year": Range(0.0, 1.0),
    "staff_usd_per_gpu_year": NON_NEGATIVE,
    "insurance_fraction_per_year": Range(0.0, 1.0),
    "software_usd_per_gpu_hour": NON_NEGATIVE,
    "contracted_fraction": Range(0.0, 1.0),
    "contract_rent_usd_per_gpu_hour": NON_NEGATIVE,
    "contract_years": Range(0.0, 100.0),
    # the contract rent of year y of operation x (1 + escalation)^y (docs/project.md): > 0
    "contract_escalation_per_year": Range(-1.0, 1.0, lo_open=True),
    "debt_fraction": Range(0.0, 1.0, hi_open=True),
    "debt_rate": Range(0.0, 1.0),
    "debt_years": Range(0.0, 100.0, lo_open=True, rule=TENOR_RULE),
    "cost_of_equity": Range(0.0, 1.0),
    "covenant_dscr": POSITIVE,  # the lender's default covenant (docs/project.md)
    # interest only from in-service; with debt also whole periods below the tenor (udfs/project.py)
    "debt_grace_months": Range(0.0, 180.0, whole=True),
    "target_dscr": POSITIVE,
    # the waterfall (docs/project.md): a reserve of whole months (whole periods with debt), a sweep,
    # a lock-up cover (0: none) and an upfront fee
    "dsra_months": Range(0.0, 180.0, whole=True),
    "sweep_fraction": Range(0.0, 1.0),
    "lockup_dscr": NON_NEGATIVE,
    "debt_upfront_fee_fraction": Range(
        0.0, 1.0, hi_open=True
    ),  # the cover dscr sizing sizes the debt to (an assumption, 1.30)
    # market curves (udfs/curves.py, docs/finance-presets.md): each factor by year of the curve
    "rent_curve": NON_NEGATIVE,
    "value_curve": POSITIVE,  # > 0: the LTV divides by the collateral value
    # a curve's level shift and tilt (docs/project.md): x (1 + shift) x (1 + slope)^t, > 0
    "rent_curve_shift": Range(-1.0, 10.0, lo_open=True),
    "rent_curve_slope": Range(-1.0, 1.0, lo_open=True),
    "value_curve_shift": Range(-1.0, 10.0, lo_open=True),
    "value_curve_slope": Range(-1.0, 1.0, lo_open=True),
    "base_rate_curve": Range(0.0, 1.0),
    "debt_spread": Range(0.0, 1.0),
    "max_ltv_covenant": NON_NEGATIVE,  # 0: none
    "bonus_depreciation_fraction": Range(0.0, 1.0),
    "layers": POSITIVE,
    "d_model": POSITIVE,
    "heads": POSITIVE,
    "kv_heads": POSITIVE,
    "ffn": POSITIVE,
    "vocab": POSITIVE,
    "mlp_matrices": Range(2.0, 3.0),
    # energy
    "joules": NON_NEGATIVE,
    "joules_per_token": POSITIVE,
    "kwh_per_household_year": POSITIVE,
    "kg_co2_per_kwh": NON_NEGATIVE,
    # settings of the finance workbook's MFU sweep and Benchmarks sheet
    "sweep_mfu_start": FRACTION,
    "sweep_mfu_step": Range(0.0, 1.0, lo_open=True, hi_open=True),
    "article_usd_per_gpu_hour": POSITIVE,
    "bench_tokens": POSITIVE,
}

#: the inputs that the cash flows take in whole years (Sensitivity and Monte Carlo move them in
#: whole years too)
WHOLE_YEARS = ("life_years", "depreciation_years", "debt_years")
#: the project's TCO_ functions (udfs/project.py): whole years of life, depreciation and debt
PROJECT_FUNCTIONS = (
    "TCO_PROJECT_CASHFLOWS",
    "TCO_PROJECT_NPV",
    "TCO_PROJECT_IRR",
    "TCO_EQUITY_IRR",
    "TCO_EQUITY_NPV",
    "TCO_MIN_DSCR",
    "TCO_PEAK_FUNDING",
    "TCO_AVG_DSCR",
    "TCO_LLCR",
    "TCO_DEBT_PER_GPU",
    "TCO_DSCR_BREAKEVEN_RENT",
)
#: every TCO_ function that builds the cash flows: the hardware ones and the project's
CASHFLOW_FUNCTIONS = (
    "TCO_CASHFLOWS",
    "TCO_NPV",
    "TCO_IRR",
    "TCO_PAYBACK_YEARS",
    "TCO_BREAKEVEN_RENT",
    *PROJECT_FUNCTIONS,
)
#: narrower ranges of one function's argument: (Excel name, argument) -> range
FUNCTION_RANGES: dict[tuple[str, str], Range] = {
    **{
        (f, a): Range(1.0, 15.0, whole=True)
        for f in CASHFLOW_FUNCTIONS
        for a in WHOLE_YEARS
        if a != "debt_years"
    },
    # the debt tenor: (0, 15] in the functions (their life is at most 15), and (udfs/project.py)
    # within the life, a whole number of periods where there is debt: one rule, TENOR_RULE
    **{(f, "debt_years"): Range(0.0, 15.0, lo_open=True, rule=TENOR_RULE) for f in CASHFLOW_FUNCTIONS},
}


def of(arg: str, function: str | None = None) -> Range:
    """The valid range of ``arg`` (in ``function``, where that function narrows it).

    Raises KeyError for a name the table does not know: every checked argument is in it.
    """
    if function is not None and (function, arg) in FUNCTION_RANGES:
        return FUNCTION_RANGES[(function, arg)]
    return RANGES[arg]
