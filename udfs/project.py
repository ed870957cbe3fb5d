"""The cluster as a financed project: the cash flows of one GPU from paying the capex to the end of
its life, by year or by month, with build and ramp, contracts, the opex lines, debt and tax
depreciation; and the results of many scenarios at once (project and equity NPV and IRR, the
lowest debt-service cover, the peak funding), chunk by chunk of rows.

Every term is per GPU, USD, signed as cash (outflows negative), end of period. The definitions
(docs/project.md) in short, with ``ppy`` periods a year (1: ``periods = "year"``, 12: ``"month"``),
``b`` build periods and ``L = life x ppy`` operating periods ``k = 1..L`` (period ``b + k``):

- period 0: -capex; the debt ``debt_fraction x capex`` is drawn then.
- revenue_k = 8760 / ppy x availability x (contracted share_k x contract rent x (1 +
  contract escalation)^y + (1 - contracted share_k) x rent x utilisation x ramp_k x
  (1 - decline)^y), y = the whole years since in-service,
  contracted share_k = contracted_fraction x the part of period k within ``contract_years``;
  ramp_k = the mean over the period's months m of min(1, (m - 1/2) / ramp_months).
- opex_k = -(opex - power x (1 - idle) x (1 - utilisation x availability x ramp_k)) x 8760 / ppy
  - (maintenance x capex + staff + insurance x capex) / ppy - software x 8760 / ppy, all x
  (1 + escalation)^y (``opex`` is today's opex per GPU-hour at full load, ``power`` its power part).
- depreciation (tax): bonus x capex in the in-service year, then the method on the rest
  (straight line over ``depreciation_years``, or MACRS, :data:`MACRS`), each year's amount spread
  over its periods; the basis left at the end of the life is deducted then.
- tax_k = -tax rate x (revenue + opex - depreciation + residual); the residual
  (residual_fraction x capex) in the last period; project net = capex + revenue + opex + tax +
  residual (today's cash flows at the defaults, term by term).
- debt: the balance grows at the period rate (1 + debt_rate)^(1/ppy) - 1 during the build; from
  in-service level payments repay it over ``debt_years x ppy`` periods; equity net = project net +
  debt drawn - debt service + tax rate x interest; CFADS = revenue + opex + tax; DSCR = CFADS /
  payment over the repayment periods.

>>> out = results({"capex_per_gpu": 31250.0, "rent_usd_per_gpu_hour": 2.0,
...                "opex_usd_per_gpu_hour": 0.4045, "life_years": 5.0, "cost_of_capital": 0.1})
>>> round(float(out["project_npv_usd_per_gpu"][0]), 2), round(float(out["project_irr"][0]), 6)
(21732.23, 0.346027)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

import numpy as np

from . import _check as chk
from . import chain, curves, flows, periodlines, ranges
from ._parallel import each_chunk
from .errors import InputRangeError, NoSolutionError, UnknownNameError
from .finance import HOURS_PER_YEAR

#: ``periods``: name -> periods per year
PERIODS = {"year": 1, "month": 12}
#: IRS Publication 946 (2023), Appendix A, Table A-1: MACRS, general depreciation system, 200%
#: declining balance switching to straight line, half-year convention; percent of the basis by
#: recovery year (docs/project.md quotes the table with its source; the period lines' table holds it)
MACRS = periodlines.MACRS
DEPRECIATION_METHODS = periodlines.DEPRECIATION_METHODS

#: the numeric terms of a project and their defaults (a str: the value of that term)
TERMS: dict[str, object] = {
    "capex_per_gpu": None,
    "rent_usd_per_gpu_hour": None,
    "opex_usd_per_gpu_hour": None,
    "life_years": None,
    "cost_of_capital": 0.0,
    "residual_fraction": 0.0,
    "availability": 1.0,
    "utilisation": 1.0,
    "tax_rate": 0.0,
    "depreciation_years": "life_years",
    "rent_decline_per_year": 0.0,
    "opex_escalation_per_year": 0.0,
    "power_usd_per_gpu_hour": 0.0,
    "idle_power_fraction": 1.0,
    "build_months": 0.0,
    "ramp_months": 0.0,
    "maintenance_fraction_per_year": 0.0,
    "staff_usd_per_gpu_year": 0.0,
    "insurance_fraction_per_year": 0.0,
    "software_usd_per_gpu_hour": 0.0,
    "contracted_fraction": 0.0,
    "contract_rent_usd_per_gpu_hour": "rent_usd_per_gpu_hour",
    "contract_years": "life_years",
    "contract_escalation_per_year": 0.0,
    "debt_fraction": 0.0,
    "debt_rate": "cost_of_capital",
    "debt_years": "life_years",
    "cost_of_equity": "cost_of_capital",
    "bonus_depreciation_fraction": 0.0,
    "covenant_dscr": 1.0,
    "max_ltv_covenant": 0.0,
    "debt_grace_months": 0.0,
    "target_dscr": 1.3,
    "rent_curve_shift": 0.0,
    "rent_curve_slope": 0.0,
    "value_curve_shift": 0.0,
    "value_curve_slope": 0.0,
    "dsra_months": 0.0,
    "sweep_fraction": 0.0,
    "lockup_dscr": 0.0,
    "debt_upfront_fee_fraction": 0.0,
    "debt_spread": 0.0,
}
#: the lender's terms: after the text terms among the project functions' optional arguments (so
#: the arguments before them keep their places)
LENDER_TERMS = ("covenant_dscr",)
#: the shape of the debt (docs/project.md): after the market curves among the project functions'
#: optional arguments (so the arguments before them keep their places)
DEBT_TERMS = ("debt_repayment", "debt_grace_months", "debt_sizing", "target_dscr")
#: the curves' level shifts and tilts (docs/project.md, "Shifting and tilting a curve"): the
#: factor at t x (1 + shift) x (1 + slope)^t; last among the project functions' optional
#: arguments (so the arguments before them keep their places)
MOVE_TERMS = ("rent_curve_shift", "rent_curve_slope", "value_curve_shift", "value_curve_slope")
#: how a tax loss counts (docs/project.md): after the curves' moves among the project functions'
#: optional arguments (so the arguments before them keep their places)
TAX_TERMS = ("tax_losses",)
#: the contract rent's escalation per year (docs/project.md): the contract rent of year y of
#: operation = contract rent x (1 + escalation)^y; after how a tax loss counts among the project
#: functions' optional arguments (so the arguments before them keep their places)
CONTRACT_TERMS = ("contract_escalation_per_year",)
#: the waterfall's terms (docs/project.md "Reserve, sweep, lock-up and fee"): last among the
#: project functions' optional arguments (so the arguments before them keep their places)
WATERFALL_TERMS = ("dsra_months", "sweep_fraction", "lockup_dscr", "debt_upfront_fee_fraction")
#: floating debt (docs/project.md "Floating debt"): how the rate is set, the base-rate curve and
#: the spread over it; last among the project functions' optional arguments (so the arguments
#: before them keep their places)
FLOATING_TERMS = ("debt_rate_basis", "base_rate_curve", "debt_spread")
#: ``debt_rate_basis``: fixed (``debt_rate``, today's) or floating (``base_rate_curve`` +
#: ``debt_spread``, the base rate of each year of operation)
RATE_BASES = periodlines.RATE_BASES
#: ``tax_losses``: refund (a loss is a tax credit, today's) or carry_forward (carried to later periods)
TAX_LOSSES = periodlines.TAX_LOSSES
#: ``debt_repayment``: level (today's annuity), straight (equal principal) or sculpted
REPAYMENTS = periodlines.REPAYMENTS
#: ``debt_sizing``: fraction (debt_fraction x capex) or dscr (sized to target_dscr, sculpted)
SIZINGS = periodlines.SIZINGS
#: the columns of TCO_PROJECT_CASHFLOWS: USD per GPU, signed as cash (depreciation a positive memo)
TABLE_COLUMNS = (
    "period",
    "capex",
    "revenue",
    "opex",
    "depreciation",
    "tax",
    "residual",
    "net",
    "debt_drawn",
    "debt_service",
    "interest_tax_shield",
    "equity",
    "cumulative_equity",
    "debt_fee",
    "reserve_flow",
    "prepaid",
)
#: the numeric terms of the market curves (docs/finance-presets.md): the TCO_ functions take them
#: after the choices
MARKET_TERMS = ("max_ltv_covenant",)
#: the terms every project function needs (its first arguments)
_REQUIRED = (
    "capex_per_gpu",
    "rent_usd_per_gpu_hour",
    "opex_usd_per_gpu_hour",
    "life_years",
    "cost_of_capital",
)
#: the text terms and their defaults
CHOICES = {
    "periods": "year",
    "depreciation_method": "straight_line",
    "debt_repayment": "level",
    "debt_sizing": "fraction",
    "tax_losses": "refund",
    "debt_rate_basis": "fixed",
}
#: the keys each text term takes
_VALID = {
    "periods": tuple(PERIODS),
    "depreciation_method": DEPRECIATION_METHODS,
    "debt_repayment": REPAYMENTS,
    "debt_sizing": SIZINGS,
    "tax_losses": TAX_LOSSES,
    "debt_rate_basis": RATE_BASES,
}
#: the curves by year (udfs/curves.py: text "1, 0.85", a finance preset key, numbers), empty by
#: default: ``rent_curve`` (the rent in year t of operation = the rent x factor t; empty: the
#: constant decline (1 - rent_decline_per_year)^t, today's), ``value_curve`` (the GPUs' market
#: value t years after purchase = capex x factor t, joined linearly between whole years; the
#: collateral of the loan-to-value lines and results), ``base_rate_curve`` (with
#: ``debt_rate_basis`` floating: the base rate in year t of operation, to which ``debt_spread`` adds)
CURVE_TERMS = {"rent_curve": "", "value_curve": "", "base_rate_curve": ""}
#: the curve a project without one takes (None: none, the term's own default applies): the GPUs'
#: market value, the base curve of the finance presets (udfs/data/finance.toml value_base)
CURVE_DEFAULTS = {"value_curve": "value_base"}
#: the inputs of the chain that only the project's cash flows read (scenario inputs; the finance
#: workbook carries them in its period tables, the scenario workbooks along each row)
PROJECT_INPUTS = (
    "periods",
    *(k for k in list(TERMS)[list(TERMS).index("idle_power_fraction") :]),
    "depreciation_method",
    *CURVE_TERMS,
    "debt_repayment",
    "debt_sizing",
    "tax_losses",
    "debt_rate_basis",
)
#: the financed project's results, under these names on every route (the finance workbook's
#: Model rows out_<key>_<n> too): the equity's, the lender's and the debt drawn
FINANCED = (
    "equity_irr",
    "equity_npv_usd_per_gpu",
    "min_dscr",
    "peak_funding_usd_per_gpu",
    "avg_dscr",
    "llcr",
    "plcr",
    "dscr_breach_periods",
    "debt_usd_per_gpu",
)
#: the loan-to-value results (the value curve's collateral)
LTV = ("max_ltv", "ltv_at_maturity", "ltv_breach_periods")
#: the project's (unlevered) NPV, IRR and payback: ``project_`` names, as on every route that
#: computes them from the period table (docs/project.md "Which NPV is which"; the chain's
#: ``npv_usd_per_gpu``, ``irr``, ``payback_years`` are the paid-in-cash yearly table's)
PROJECT_NPV, PROJECT_IRR, PROJECT_PAYBACK = "project_npv_usd_per_gpu", "project_irr", "project_payback_years"
#: the old names of the project's results (before they carried ``project_``) -> the new ones:
#: asked for by an old name, :func:`results` raises an error naming the new one
RENAMED = {
    "npv_usd_per_gpu": PROJECT_NPV,
    "irr": PROJECT_IRR,
    "payback_years": PROJECT_PAYBACK,
    "irr_why": f"{PROJECT_IRR}_why",
}
#: the results :func:`results` can give
RESULTS = (
    PROJECT_NPV,
    PROJECT_IRR,
    PROJECT_PAYBACK,
    "revenue_npv",
    *FINANCED,
    *LTV,
    "dscr_breakeven_rent_usd_per_gpu_hour",
)
#: the DSCR break-even rent: the market rent at which ``min_dscr`` = ``covenant_dscr``
#: (docs/project.md "DSCR break-even rent"); its reasons where there is none (``*_why`` codes)
DSCR_BREAKEVEN = "dscr_breakeven_rent_usd_per_gpu_hour"
DSCR_BREAKEVEN_REASONS = (
    "",
    "no debt service: debt_fraction is 0, so there is no DSCR to break even",
    "debt_repayment 'sculpted' or debt_sizing 'dscr': the debt service follows CFADS, so min_dscr "
    "does not cross covenant_dscr at one market rent; use level or straight repayment with "
    "fraction sizing",
    "min_dscr stays below covenant_dscr at every market rent: a repayment period's CFADS does not "
    "rise with the market rent (no market GPU-hour sold then: contracts or the ramp)",
    periodlines.UNPAYABLE,
)
#: the results of one pass over the flows (:func:`results`' default): all but the DSCR break-even
#: rent, whose search evaluates ``min_dscr`` about 40 times (ask for it by name)
ONE_PASS = tuple(k for k in RESULTS if k != DSCR_BREAKEVEN)
#: the relative width the DSCR break-even rent's bisection stops at
DSCR_BREAKEVEN_TOLERANCE = 1e-10
NEED_DEBT = ("min_dscr", "avg_dscr", "llcr", "plcr", "dscr_breach_periods")
#: the longest life (years) a project has
MAX_LIFE = periodlines.TAX_YEARS
#: about this many floats per flow array in one chunk (rows x periods, 8 MiB): memory stays
#: bounded (five such arrays and the IRR's temporaries) whatever the number of rows; by month
#: 2^20 ran 15-25% faster than 2^21 and as fast as 2^19 (benchmarks/bench_project.py's case)
CHUNK_CELLS = 1 << 20


def _choice(name: str, value: Any, n: int, valid) -> np.ndarray:
    """A text term as indices into ``valid``, one per row (``value``: text, an array of texts, or
    codes into categories, as :class:`gputco.udfs.scenario.Coded`)."""
    given: Any = CHOICES[name] if value is None else value
    if isinstance(given, str):  # one text for every row
        if given not in valid:
            raise UnknownNameError(name, given, tuple(valid))
        return np.full(n, list(valid).index(given))
    if hasattr(given, "codes"):
        cats, codes = np.array(list(given.categories), dtype=object), np.asarray(given.codes)
        codes = np.broadcast_to(codes, (n,)) if codes.size == 1 else codes
    else:
        arr = np.broadcast_to(np.asarray(given, dtype=object), (n,))
        cats, codes = np.unique(arr.astype(str), return_inverse=True)
    for c in cats:
        if str(c) not in valid:
            raise UnknownNameError(name, str(c), tuple(valid))
    index = np.array([list(valid).index(str(c)) for c in cats])
    return index[codes.reshape(-1)]


def choice(name: str, text: str) -> str:
    """The key a text term names (``periods``, ``depreciation_method``), case and spaces aside;
    an error names the term and the valid keys.

    >>> choice("periods", " Month")
    'month'
    """
    valid = _VALID[name]
    key = text.strip().lower()
    if key not in valid:
        raise UnknownNameError(name, text, valid)
    return key


def _size(v: Any) -> int:
    return np.size(v.codes) if hasattr(v, "codes") else np.size(v)


def terms(values: Mapping[str, object], function: str = "TCO_CASHFLOWS") -> dict[str, np.ndarray]:
    """The checked terms of the projects in ``values`` (a mapping of the names of :data:`TERMS` and
    :data:`CHOICES` to scalars or 1-d arrays of one length; a missing or None term takes its
    default), each a float array (rows,); ``ppy`` (periods per year) and ``method`` (an index into
    :data:`DEPRECIATION_METHODS`) as integer arrays. Errors name the term, the value and the
    valid range (and the row of an array)."""
    unknown = set(values) - set(TERMS) - set(CHOICES) - set(CURVE_TERMS)
    if unknown:
        raise UnknownNameError("project term", sorted(unknown)[0], (*TERMS, *CHOICES, *CURVE_TERMS))
    sizes = {
        _size(v)
        for k, v in values.items()
        if v is not None and _size(v) != 1 and not (k in CURVE_TERMS and curves.is_one_curve(v))
    }
    if len(sizes) > 1:
        raise InputRangeError("project terms", sorted(sizes), "arrays of one length")
    n = sizes.pop() if sizes else 1
    out: dict[str, np.ndarray] = {}
    for k, default in TERMS.items():
        v = values.get(k)
        if v is None:
            if default is None:
                raise chk.MissingValueError(k, "a project needs it")
            v = out[default] if isinstance(default, str) else default
        x = np.asarray(chk.checked(k, v, function), dtype=float)
        out[k] = np.broadcast_to(x, (n,)) if x.ndim == 0 else x.reshape(-1)
    ppy = np.array(list(PERIODS.values()))[_choice("periods", values.get("periods"), n, PERIODS)]
    out["ppy"] = ppy
    out["method"] = _choice("depreciation_method", values.get("depreciation_method"), n, DEPRECIATION_METHODS)
    out["repayment"] = _choice("debt_repayment", values.get("debt_repayment"), n, REPAYMENTS)
    out["sizing"] = _choice("debt_sizing", values.get("debt_sizing"), n, SIZINGS)
    out["losses"] = _choice("tax_losses", values.get("tax_losses"), n, TAX_LOSSES)
    out["rate_basis"] = _choice("debt_rate_basis", values.get("debt_rate_basis"), n, RATE_BASES)
    for k in CURVE_TERMS:  # (rows, factors), NaN in a row without a curve
        default = CURVE_DEFAULTS.get(k)
        out[k] = curves.table(k, values.get(k), n, None if default is None else curves.parse(k, default))
    _check_together(out)
    return out


def period_lines(values: Mapping[str, object]) -> dict[str, np.ndarray]:
    """Every line of the projects in ``values`` (as :func:`terms` takes them), period by period,
    from the period lines' Python computations (:func:`gputco.udfs.periodlines.evaluate`).

    >>> lines = period_lines({"capex_per_gpu": 1000.0, "rent_usd_per_gpu_hour": 0.05,
    ...                       "opex_usd_per_gpu_hour": 0.01, "life_years": 2, "periods": "month"})
    >>> lines["net"].shape, round(float(lines["revenue"][1, 0]), 2)
    ((25, 1), 36.5)
    """
    return periodlines.evaluate(terms(values))


#: the debt tenor's rule, one on every route (the functions, batch, SPECs, both workbooks)
TENOR_RULE = ranges.TENOR_RULE


#: the grace period's rule (with debt): whole periods, shorter than the tenor
GRACE_RULE = 'whole periods (a multiple of 12 months with periods "year")'


def _check_together(t: dict[str, np.ndarray]) -> None:
    """The terms that bound one another: depreciation and debt within the life, a debt tenor of
    whole periods where there is debt, a build of whole years in year mode."""
    life = t["life_years"]
    if life.size == 0:  # no project (an empty range): nothing bounds anything
        return
    for k in ("depreciation_years", "debt_years"):
        if np.max(t[k]) <= np.min(life):  # two reductions: every row within every life
            continue
        bad = t[k] > life
        if bad.any():
            i = int(np.argmax(bad))
            rule = ranges.tenor_rule(life[i]) if k == "debt_years" else f"(0, life_years = {life[i]:g}]"
            raise InputRangeError(k, t[k][i], rule, (i,) if life.size > 1 else None)
    periods = t["debt_years"] * t["ppy"]
    bad = (periods != np.round(periods)) & (t["debt_fraction"] > 0)
    if bad.any():
        i = int(np.argmax(bad))
        raise InputRangeError("debt_years", t["debt_years"][i], TENOR_RULE, (i,) if life.size > 1 else None)
    grace = t["debt_grace_months"]
    if np.any(grace):  # interest only from in-service: whole periods, within the tenor
        per = 12.0 / t["ppy"]
        bad = (t["debt_fraction"] > 0) & ((grace % per != 0) | (grace >= t["debt_years"] * 12.0))
        if bad.any():
            i = int(np.argmax(bad))
            raise InputRangeError(
                "debt_grace_months",
                grace[i],
                f"[0, {t['debt_years'][i] * 12.0:g}) months (below the tenor, debt_years x 12) in {GRACE_RULE}",
                (i,) if life.size > 1 else None,
            )
    reserve = t["dsra_months"]
    if np.any(reserve):  # the reserve holds whole periods of service
        bad = (t["debt_fraction"] > 0) & (reserve % (12.0 / t["ppy"]) != 0)
        if bad.any():
            i = int(np.argmax(bad))
            raise InputRangeError(
                "dsra_months", reserve[i], f"whole months in {GRACE_RULE}", (i,) if life.size > 1 else None
            )
    _check_rate_basis(t)
    bad = (t["sizing"] == 1) & (t["repayment"] != 2) & (t["debt_fraction"] > 0)
    if bad.any():  # dscr sizing sculpts the service: another repayment is refused, not redefined
        i = int(np.argmax(bad))
        raise InputRangeError(
            "debt_sizing",
            "dscr",
            f'"fraction" with debt_repayment "{REPAYMENTS[int(t["repayment"][i])]}" (dscr sizing needs '
            'debt_repayment "sculpted")',
            (i,) if life.size > 1 else None,
        )
    if not np.any(t["build_months"]):
        return
    bad = (t["ppy"] == 1) & (t["build_months"] % 12 != 0)
    if bad.any():
        i = int(np.argmax(bad))
        raise InputRangeError(
            "build_months",
            t["build_months"][i],
            'a multiple of 12 with periods "year"',
            (i,) if life.size > 1 else None,
        )


def _check_rate_basis(t: dict[str, np.ndarray]) -> None:
    """Floating rows need a base-rate curve and leave ``debt_rate`` at its default (the cost of
    capital); fixed rows take no curve and no spread (docs/project.md "Floating debt"): an input
    that another one makes unused is an error naming both, never ignored."""
    floating = t["rate_basis"] == 1
    curve = ~np.isnan(t["base_rate_curve"][:, 0])
    rows = t["life_years"].size > 1

    def at(bad: np.ndarray) -> tuple[int, tuple[int, ...] | None]:
        i = int(np.argmax(bad))
        return i, ((i,) if rows else None)

    bad = floating & ~curve
    if bad.any():
        i, index = at(bad)
        raise chk.MissingValueError(
            "base_rate_curve" + (f" (element [{i}])" if index else ""),
            "debt_rate_basis floating needs it: the base rate by year of operation, a finance preset "
            "key (sofr_2026, sofr_2026_falling) or rates as text ('0.043, 0.039')",
        )
    bad = floating & (t["debt_rate"] != t["cost_of_capital"])
    if bad.any():
        i, index = at(bad)
        raise InputRangeError(
            "debt_rate",
            float(t["debt_rate"][i]),
            f"a value left at its default, the cost_of_capital ({t['cost_of_capital'][i]:g}), with "
            "debt_rate_basis floating: the rate is then base_rate_curve + debt_spread",
            index,
        )
    bad = ~floating & curve
    if bad.any():
        i, index = at(bad)
        raise InputRangeError(
            "base_rate_curve",
            curves.text(tuple(t["base_rate_curve"][i])),
            "a blank with debt_rate_basis fixed (the rate is debt_rate); set debt_rate_basis floating to use it",
            index,
        )
    bad = ~floating & (t["debt_spread"] != 0)
    if bad.any():
        i, index = at(bad)
        raise InputRangeError(
            "debt_spread",
            float(t["debt_spread"][i]),
            "a 0 with debt_rate_basis fixed (the rate is debt_rate); set debt_rate_basis floating to add "
            "a spread to base_rate_curve",
            index,
        )


def power_usd_per_gpu_hour(full_load_usd_per_gpu_hour, idle_power_fraction, utilisation, availability):
    """Power per installed GPU-hour: the full-load cost x (idle + (1 - idle) x utilisation x
    availability); at ``idle_power_fraction`` 1 (the default) the full-load cost.

    >>> round(power_usd_per_gpu_hour(0.2, 0.3, 0.5, 0.9), 6)
    0.123
    """
    idle = np.asarray(idle_power_fraction, dtype=float)
    return chk.out(full_load_usd_per_gpu_hour * (idle + (1.0 - idle) * utilisation * availability))


def depreciation_fractions(method: str, depreciation_years: float, life_years: int, bonus: float = 0.0):
    """The fraction of the capex deducted in each tax year 1..life: the bonus in year 1, the method
    on the rest, what is left in the last year of the life (so they sum to 1).

    >>> [round(x, 4) for x in depreciation_fractions("macrs_5", 5, 5)]
    [0.2, 0.32, 0.192, 0.1152, 0.1728]
    >>> depreciation_fractions("straight_line", 4, 4, bonus=0.5)
    [0.625, 0.125, 0.125, 0.125]
    """
    t = terms(
        {
            "capex_per_gpu": 1.0,
            "rent_usd_per_gpu_hour": 1.0,
            "opex_usd_per_gpu_hour": 0.0,
            "life_years": float(life_years),
            "depreciation_years": float(depreciation_years),
            "bonus_depreciation_fraction": bonus,
            "depreciation_method": method,
        }
    )
    return _tax_years(t, int(life_years))[:, 0].tolist()


def _distinct(codes: np.ndarray) -> set[int]:
    """The distinct values of an array of small whole numbers >= 0 (periods, method codes): one
    count of each, not a sort."""
    return set(np.flatnonzero(np.bincount(np.ravel(codes))).tolist()) if np.size(codes) else set()


def _tax_years(t: dict[str, np.ndarray], max_life: int) -> np.ndarray:
    """USD deducted in tax years 1..max_life (years, rows), 0 after the life: bonus x capex in
    year 1, the method on the rest; for MACRS the basis left at the end of the life then."""
    capex, life, dep = t["capex_per_gpu"], t["life_years"], t["depreciation_years"]
    bonus = t["bonus_depreciation_fraction"]
    rest = capex * (1.0 - bonus)
    years = np.arange(1, max_life + 1, dtype=float)[:, None]
    used = _distinct(t["method"])  # the methods the rows use
    straight = (years <= dep) if used == {0} else (t["method"] == 0) & (years <= dep)
    out = np.where(straight, rest / dep, 0.0)
    for code, name in enumerate(DEPRECIATION_METHODS[1:], start=1):
        if code not in used:
            continue
        pct = np.zeros(max_life)
        table = np.array(MACRS[name][:max_life]) / 100.0
        pct[: table.size] = table
        out += np.where(t["method"] == code, pct[:, None] * rest, 0.0)
    out[0] += bonus * capex
    if np.min(life) < max_life:  # (else every year counted lies within every life)
        out *= years <= life
    if used != {0}:
        macrs = t["method"] > 0
        left = capex - out.sum(axis=0)
        out += np.where((years == life) & macrs, left, 0.0)
    return out


def project_flows(t: dict[str, np.ndarray], table: bool = False) -> dict[str, Any]:
    """The flows of rows that share one ``ppy``, each (T, rows) as :class:`gputco.udfs.flows.Periodic`
    runs of equal periods, T = 1 + the longest build + life in periods: ``net`` (project),
    ``revenue`` (the part proportional to the rent), ``equity``, ``service`` (debt service,
    positive), ``cfads``; and per row ``payment`` (the level payment), ``first`` and ``last`` (the
    repayment periods); ``power_use`` (the power an idle GPU saves per unit of utilisation,
    positive; None at ``idle_power_fraction`` 1); with ``table`` the lines of
    TCO_PROJECT_CASHFLOWS as tables."""
    build = np.rint(t["build_months"] * t["ppy"] / 12.0).astype(int)
    if build.min() == build.max():
        return _flows_of_one_build(t, int(build[0]), table)
    builds = np.unique(build)
    n = build.size
    parts = [
        (rows, _flows_of_one_build({k: v[rows] for k, v in t.items()}, int(b), table))
        for b in builds
        for rows in [np.flatnonzero(build == b)]
    ]
    out: dict[str, Any] = {"levered": any(f["levered"] for _, f in parts), "lines": {}}
    for key in ("net", "revenue", "power_use", "equity", "service", "cfads"):
        if key == "power_use" and all(f[key] is None for _, f in parts):
            out[key] = None
            continue
        out[key] = flows.stack(
            [(rows, f[key] if f[key] is not None else _zeros(f["net"])) for rows, f in parts], n
        )
    for key in ("payment", "scheduled", "unpayable", "drawn", "first", "last"):
        out[key] = np.zeros(n, dtype=parts[0][1][key].dtype)
        for rows, f in parts:
            out[key][rows] = f[key]
    if any(f["closing"] is not None for _, f in parts):
        out["closing"] = flows.stack(
            [(rows, f["closing"] if f["closing"] is not None else _zeros(f["net"])) for rows, f in parts], n
        )
    else:
        out["closing"] = None
    return out


#: a period rate below this is tiny: balance x rate loses bits (a subnormal rate rounds the product)
#: and (1 + rate)^k - 1 cancels, so the level payment and the balance use the annuity factor
#: -expm1(-n log1p(i)) / i, which is exact there (n for the smallest rates); above it the usual
#: expressions, to the last bit as before
TINY_RATE = 1e-8


def level_payment(balance, i, n):
    """The level payment that repays ``balance`` over ``n`` periods at period rate ``i`` (Excel's
    PMT, signs aside): balance x i / (1 - (1 + i)^-n), balance / n at 0, 0 without a balance.

    >>> float(level_payment(np.array([2812.5]), np.array([5e-324]), 1)[0])  # the smallest rate
    2812.5
    """
    with np.errstate(all="ignore"):
        factor = -np.expm1(-n * np.log1p(i))
        level = np.where(i >= TINY_RATE, balance * i / factor, balance / (factor / i))
        return np.where(balance > 0, np.where(i > 0, level, balance / n), 0.0)


def _per_period(yearly, ppy):
    """A yearly rate's rate a period, (1 + yearly)^(1/ppy) - 1, to the last bit (also at tiny rates)."""
    return np.expm1(np.log1p(yearly) / ppy)


def first_rate(t: dict[str, np.ndarray], ppy) -> np.ndarray:
    """The debt's period rate of each row in the build and the first year of operation:
    (1 + debt_rate)^(1/ppy) - 1, or with ``debt_rate_basis`` floating (1 + base rate t0 + spread)^(1/ppy)
    - 1 (docs/project.md "Floating debt"); as :func:`period_rates` gives, to the last bit."""
    i = _per_period(t["debt_rate"], ppy)
    floating = t["rate_basis"] == 1
    if floating.any():
        i = np.where(floating, _per_period(t["base_rate_curve"][:, 0] + t["debt_spread"], ppy), i)
    return i


def period_rates(t: dict[str, np.ndarray], ppy, build, periods: int) -> np.ndarray:
    """(periods, rows): the debt's rate of periods 0..periods - 1 (the interest of period p on the
    balance at the end of period p - 1; 0 in period 0): a fixed row's one rate (1 + debt_rate)^(1/ppy)
    - 1 in every period; a floating row's (1 + base + spread)^(1/ppy) - 1, base = base_rate_curve's
    factor of the period's year of operation (whole years since in-service, past the last factor the
    last; the build and the periods after the life take t0), docs/project.md "Floating debt"."""
    n = t["capex_per_gpu"].size
    fixed = _per_period(t["debt_rate"], ppy)
    out = np.broadcast_to(fixed, (periods, n)).copy()
    floating = t["rate_basis"] == 1
    if floating.any():
        k = np.arange(periods, dtype=float)[:, None] - build
        live = (k >= 1) & (k <= t["life_years"] * ppy)
        year = np.where(live, np.ceil(k / ppy) - 1, 0.0)
        table = t["base_rate_curve"]
        at = np.minimum(year, table.shape[1] - 1).astype(np.intp)
        base = table[np.arange(n)[None, :], at]
        out = np.where(floating, _per_period(base + t["debt_spread"], ppy), out)
    out[0] = 0.0
    return out


def _projectkernels(work: int) -> Any:
    """The kernel of the flows for ``work`` (rows x operating periods): interpreted for small
    work, compiled for batch-sized work (:func:`gputco.udfs._jit.kernels` chooses)."""
    from . import _jit, _projectkernels

    return _jit.kernels(_projectkernels, work)


def _zeros(like: flows.Periodic) -> flows.Periodic:
    return flows.Periodic(np.zeros((1, like.shape[1])), [like.shape[0]])


def _flows_of_one_build(t: dict[str, np.ndarray], b: int, table: bool) -> dict[str, Any]:
    """:func:`project_flows` of rows that share a build of ``b`` periods: period by period in the
    order of time, a period that every row's terms make equal to the one before (the months of
    an operating year after the ramp) joining its run. A level-payment loan's interest falls
    geometrically: interest_k = payment - (payment - i balance) (1 + i)^(k - 1) in repayment
    period k, so the equity flows are runs plus that one geometric term (its tax shield)."""
    ppy = int(t["ppy"][0])
    n = t["capex_per_gpu"].size
    h = HOURS_PER_YEAR / ppy
    capex, tax = t["capex_per_gpu"], t["tax_rate"]
    life = np.rint(t["life_years"] * ppy).astype(int)
    max_life = int(np.max(t["life_years"]))
    dep_years = _tax_years(t, max_life)  # USD per tax year (years, rows)
    a, u, idle = t["availability"], t["utilisation"], t["idle_power_fraction"]
    merchant = t["rent_usd_per_gpu_hour"] * h * a
    contract = t["contract_rent_usd_per_gpu_hour"] * h * a * t["contracted_fraction"]
    contracted_periods = t["contract_years"] * ppy
    opex_rate = -t["opex_usd_per_gpu_hour"] * h
    power_var = t["power_usd_per_gpu_hour"] * (1.0 - idle) * h  # the part an idle GPU saves
    fixed = -(
        (t["maintenance_fraction_per_year"] + t["insurance_fraction_per_year"]) * capex / ppy
        + t["staff_usd_per_gpu_year"] / ppy
        + t["software_usd_per_gpu_hour"] * h
    )
    # the rent's shift s and tilt g (docs/project.md) folded into the terms the kernel takes: the
    # rent x (1 + s), a yearly factor (1 - decline)(1 + g), a curve's factor t x (1 + g)^t
    shift, slope = t["rent_curve_shift"], t["rent_curve_slope"]
    moved = bool(np.any(shift) or np.any(slope))
    decline, escalation = 1.0 - t["rent_decline_per_year"], 1.0 + t["opex_escalation_per_year"]
    if moved:
        merchant = merchant * (1.0 + shift)
        decline = decline * (1.0 + slope)
    # a rent curve (udfs/curves.py) where a row has one: its factor of each year of operation
    rent_curve = t.get("rent_curve")
    curved = rent_curve is not None and not bool(np.all(np.isnan(rent_curve[:, 0])))
    rent_factor = np.ascontiguousarray(rent_curve, dtype=float) if curved else np.full((1, 1), np.nan)
    if curved and moved:  # past the last factor the last holds, tilted on: a factor a year of the life
        years = max(rent_factor.shape[1], int(np.ceil(np.max(t["life_years"]))))
        held = np.pad(rent_factor, ((0, 0), (0, years - rent_factor.shape[1])), mode="edge")
        rent_factor = np.ascontiguousarray(
            held * curves.moved(0.0, slope[:, None], np.arange(years)[None, :])
        )
    residual = t["residual_fraction"] * capex
    # debt: the balance at in-service and the level payment over the tenor (none without a loan)
    tenor = np.rint(t["debt_years"] * ppy).astype(int)
    drawn = t["debt_fraction"] * capex
    debt = bool(np.any(drawn > 0))
    grace = np.rint(t["debt_grace_months"] * ppy / 12.0).astype(int)
    floating = t["rate_basis"] == 1  # the rate of each period from the base-rate curve + the spread
    if debt:
        i = first_rate(t, ppy)  # (1 + rate)^(1/ppy) - 1, to the last bit (floating: the first year's)
        balance = drawn * (1.0 + i) ** b
        payment = level_payment(balance, i, tenor)  # 0 without a balance
        # rows whose service is not today's level payment from in-service, or whose cash after
        # service runs through a reserve, a sweep or a lock-up: scheduled period by period after
        # the kernel (which gives them no service)
        water = (balance > 0) & ((t["dsra_months"] > 0) | (t["sweep_fraction"] > 0) | (t["lockup_dscr"] > 0))
        scheduled = (balance > 0) & ((t["repayment"] != 0) | (grace > 0) | water | floating)
        if scheduled.any():
            payment = np.where(scheduled, 0.0, payment)
    else:
        balance, payment = np.zeros(n), np.zeros(n)
        scheduled = np.zeros(n, dtype=bool)
    kmax, kmin = int(np.max(life)), int(np.min(life))
    sold_base, opex_base, fixed_base = merchant * u, opex_rate, fixed  # falling / rising by year
    powered = bool(np.any(power_var))
    ramp_end = float(np.max(t["ramp_months"]))  # months; after it every row sells in full
    extra = bool(np.any(fixed))
    has_contract = bool(np.any(contract))
    dep_per = dep_years / ppy  # per period of each tax year
    # the last periods of the lives (the residual; nothing after) and of the repayments
    ends = _distinct(life)
    repaid = _distinct(tenor[balance > 0]) if debt else set()
    # without debt the equity flows are the project's and there is no debt service (nor a cover)
    keys = [
        "net",
        "revenue",
        *(("cfads", "service", "equity") if debt else ()),
        *(("power_use",) if powered else ()),
    ]
    # rows whose losses are carried forward: their tax recomputed from these lines after the kernel
    carried = t["losses"] == 1
    lines = ("revenue", "opex", "depreciation", "tax", "residual") if table or carried.any() else ()
    # each run's values, written in place (a run per operating period at most, and two before)
    runs = {k: np.empty((2 + kmax, n)) for k in keys}
    lines_all = np.empty((5, 2 + kmax, n)) if lines else np.empty((5, 1, 1))
    runs.update({f"line_{x}": lines_all[j] for j, x in enumerate(lines)})
    lengths: list[int] = []

    def add(length: int, **values) -> None:
        for k, into in runs.items():
            into[len(lengths)] = values.get(k, 0.0)
        lengths.append(length)

    add(1, net=-capex, equity=-capex + drawn)
    if b:
        add(b)
    # the runs: a period every row's terms make equal to the one before joins its run
    run_of = np.full(kmax + 1, -1, dtype=np.int64)  # the run each operating period starts (-1: none)
    under_before = None
    for k in range(1, kmax + 1):
        ramping = (k - 1) * (12 // ppy) + 0.5 < ramp_end
        under = np.clip(contracted_periods - (k - 1), 0.0, 1.0) if has_contract else None
        same = (
            k > 1
            and (k - 1) % ppy != 0
            and not ramping
            and not (k - 2) * (12 // ppy) + 0.5 < ramp_end
            and k not in ends
            and k - 1 not in ends
            and k - 1 not in repaid
            and (under is None or under_before is None or np.array_equal(under, under_before))
        )
        under_before = under
        if same:  # every row's flows equal the period before's: the run grows
            lengths[-1] += 1
            continue
        run_of[k] = len(lengths)
        lengths.append(1)
    unused = np.empty((1, 1))

    def row(v) -> np.ndarray:
        """A term as the kernel takes it: one float per row, contiguous."""
        return np.ascontiguousarray(np.broadcast_to(np.asarray(v, dtype=float), (n,)))

    _projectkernels(n * run_of.size).operating_runs(
        run_of,
        ppy,
        kmin,
        max_life,
        has_contract,
        powered,
        extra,
        debt,
        bool(lines),
        np.ascontiguousarray(life, dtype=np.int64),
        np.ascontiguousarray(np.broadcast_to(tenor, (n,)), dtype=np.int64),
        *(row(v) for v in (sold_base, opex_base, power_var, fixed_base, decline)),
        curved,
        rent_factor,
        *(row(v) for v in (escalation, u, a, tax)),
        row(t["contracted_fraction"]),
        row(contract),
        row(1.0 + t["contract_escalation_per_year"]),
        row(contracted_periods),
        row(t["ramp_months"]),
        ramp_end,
        row(residual),
        row(payment),
        np.ascontiguousarray(dep_per, dtype=float),
        *(runs.get(k, unused) for k in ("net", "revenue", "cfads", "service", "equity", "power_use")),
        lines_all,
    )
    got: dict[str, Any] = {k: flows.Periodic(runs[k][: len(lengths)], lengths) for k in runs}
    if not debt:
        got["equity"] = got["net"]
        got["service"] = got["cfads"] = _zeros(got["net"])
    else:
        shield = tax * (payment - i * balance)  # tax x (payment - interest of the first period)
        shield = np.where(scheduled, 0.0, shield)
        if np.any(shield):
            span = np.where(balance > 0, tenor, 0)
            got["equity"] = flows.Periodic(
                got["equity"].values, lengths, (shield, np.full(n, b + 1), span, 1.0 + i)
            )
    if carried.any():  # the tax paid of rows carrying losses forward: by period (runs of one)
        rows = np.flatnonzero(carried)
        got.update({f"line_{x}": _dense(got[f"line_{x}"]) for x in lines})
        taxable = sum(got[f"line_{x}"].values[:, rows] for x in ("revenue", "opex", "residual"))
        paid = carried_tax(taxable - got["line_depreciation"].values[:, rows], tax[rows])
        change = paid - got["line_tax"].values[:, rows]
        got["line_tax"].values[:, rows] = paid
        for key in ("net", "cfads", "service", "equity") if debt else ("net",):
            got[key] = _dense(got[key])  # every period line a table of the same periods
            if key != "service":
                got[key].values[:, rows] += change
        if not debt:
            got["equity"] = got["net"]
    closing, unpayable = None, np.zeros(n, dtype=bool)
    flowed: dict[str, np.ndarray] = {}  # the reserve's and the prepayments' table lines (waterfall rows)
    if scheduled.any():  # the debt's lines by period (runs of one), the scheduled rows' debt in them
        got.update({k: _dense(got[k]) for k in ("cfads", "service", "equity")})  # the debt's lines
        rows = np.flatnonzero(scheduled)
        sub = {k: v[rows] for k, v in (("i", i), ("balance", balance), ("grace", grace), ("tenor", tenor))}
        periods = got["cfads"].values.shape[0]
        # the rate of each period where a row floats (fixed rows: their one rate in each)
        rates = (
            period_rates({k: _rows(v, rows) for k, v in t.items()}, ppy, b, periods)
            if floating[rows].any()
            else None
        )
        every = rows.size == n  # every row scheduled: its lines as they are, not copies
        service, interest, closing_rows, stuck, scale = _scheduled_debt(
            got["cfads"].values if every else got["cfads"].values[:, rows],
            b,
            t["repayment"][rows],
            **sub,
            sized=t["sizing"][rows] == 1,
            target=t["target_dscr"][rows],
            rates=rates,
            floating=floating[rows],
        )
        if np.any(scale != 1.0):  # a debt sized to its cover: less drawn at period 0
            got["equity"].values[0, rows] += drawn[rows] * (scale - 1.0)
            drawn = drawn.copy()
            drawn[rows] *= scale
        poured: Any = 0.0  # the equity's cash the reserve and the prepayments move (waterfall rows)
        if water.any():  # the reserve, sweep and lock-up after the schedule
            wet = water[rows]
            w = rows[wet]
            # the schedule's own arrays where every row has the waterfall (they are replaced by
            # what is paid), else copies of its rows; the kernel writes what is paid over them
            whole = wet.all()
            paid = _waterfall(
                got["cfads"].values if every and whole else got["cfads"].values[:, w],
                service if whole else service[:, wet],
                interest if whole else interest[:, wet],
                closing_rows if whole else closing_rows[:, wet],
                b,
                balance=balance[w] * scale[wet],
                i=np.broadcast_to(i[w], (periods, w.size)) if rates is None else rates[:, wet],
                tenor=tenor[w],
                end=b + life[w],
                reserve=np.rint(t["dsra_months"][w] * ppy / 12.0).astype(int),
                sweep=t["sweep_fraction"][w],
                lockup=t["lockup_dscr"][w],
            )
            if whole:
                service, interest, closing_rows, reserved, prepaid = paid
                poured = reserved - prepaid
            else:
                service, interest, closing_rows = service.copy(), interest.copy(), closing_rows.copy()
                service[:, wet], interest[:, wet], closing_rows[:, wet], reserved, prepaid = paid
                poured = np.zeros_like(service)
                poured[:, wet] = reserved - prepaid
            if table:
                flowed = {k: np.zeros_like(got["cfads"].values) for k in ("reserve_flow", "prepaid")}
                flowed["reserve_flow"][:, w], flowed["prepaid"][:, w] = reserved, -prepaid
        if every:  # the whole table: no gather and scatter of every row
            got["service"].values[...] = service
            got["equity"].values[...] += tax * interest - service + poured
            closing = closing_rows
        else:
            got["service"].values[:, rows] = service
            got["equity"].values[:, rows] += tax[rows] * interest - service + poured
            closing = np.zeros_like(got["cfads"].values)
            closing[:, rows] = closing_rows
        closing = flows.Periodic(closing, got["cfads"].lengths)
        unpayable[rows] = stuck
    fee = t["debt_upfront_fee_fraction"] * drawn
    if np.any(fee):  # the upfront fee: paid by the equity at the draw (period 0, a run of its own)
        got["equity"].values[0] -= fee
    out: dict[str, Any] = {
        "levered": debt,
        "lines": {},
        **{k: got[k] for k in ("net", "revenue", "cfads", "service", "equity")},
        "power_use": got.get("power_use"),
        "payment": payment,
        "scheduled": scheduled,
        "unpayable": unpayable,
        "drawn": drawn,
        "closing": closing,
        "first": np.full(n, b + 1),
        "last": b + tenor,
    }
    if table:
        service, net, equity = (got[k].dense() for k in ("service", "net", "equity"))
        out["lines"] = {f: got[f"line_{f}"].dense() for f in lines}
        out["lines"]["capex"] = np.zeros_like(net)
        out["lines"]["capex"][0] = -capex
        out["lines"]["debt_drawn"] = np.zeros_like(net)
        out["lines"]["debt_drawn"][0] = drawn  # x the debt scale where sized to a cover
        out["lines"]["debt_service"] = -service
        out["lines"]["debt_fee"] = np.zeros_like(net)
        out["lines"]["debt_fee"][0] = -fee
        for name in ("reserve_flow", "prepaid"):
            out["lines"][name] = flowed[name] if name in flowed else np.zeros_like(net)
        out["lines"]["interest_tax_shield"] = (
            equity
            - net
            - out["lines"]["debt_drawn"]
            + service
            - out["lines"]["debt_fee"]
            - out["lines"]["reserve_flow"]
            - out["lines"]["prepaid"]
        )
        out["lines"]["net"], out["lines"]["equity"] = net, equity
        out["lines"]["cumulative_equity"] = np.cumsum(equity, axis=0)
    return out


def carried_tax(taxable: np.ndarray, rate: np.ndarray) -> np.ndarray:
    """The tax paid (periods, rows), signed as cash, of taxable income ``taxable`` (periods, rows)
    with tax_losses carry_forward (docs/project.md): a running loss pool, pool_p = max(0, pool_(p-1)
    - taxable_p), tax_p = -rate x max(0, taxable_p - pool_(p-1)); no credit; periods in turn, rows at
    once (the period lines ``loss_pool`` and ``tax`` define it)."""
    pool, paid = np.zeros(taxable.shape[1]), np.zeros_like(taxable)
    for p in range(taxable.shape[0]):
        paid[p] = -np.maximum(0.0, taxable[p] - pool) * rate
        pool = np.maximum(0.0, pool - taxable[p])
    return paid


def _dense(f: flows.Periodic) -> flows.Periodic:
    """``f`` as runs of one period (a table of its own, to write into)."""
    return flows.Periodic(f.dense(), np.ones(f.shape[0], dtype=np.int64))  # a new table


def _scheduled_debt(cfads, b: int, shape, i, balance, grace, tenor, sized, target, rates=None, floating=None):
    """Debt service, interest and the balance at each operating period's end (periods, rows) of rows with
    debt ``balance`` at in-service (after ``b`` build periods at the period rate ``i``), repaid
    over operating periods ``grace + 1 .. tenor`` by ``shape`` (an index into
    :data:`REPAYMENTS`), interest only in the grace: period by period, rows at once
    (docs/project.md; the period lines ``opening`` .. ``closing`` define it); and the rows whose
    sculpted debt cannot be repaid (no repayment period with CFADS > 0: interest only); and each
    row's debt scale (``sized`` rows: min(1, the sculpted PV / ``target`` / ``balance``), else 1).
    With ``rates`` (periods, rows; :func:`period_rates`) the ``floating`` rows' interest is the
    balance x the period's rate, their level payment the annuity of the balance left over the
    repayment periods left at the period's rate, and their sculpted CFADS discounted at the
    compounded rates of the counted periods (docs/project.md "Floating debt")."""
    periods, m = cfads.shape
    service, interest, closing = np.zeros((periods, m)), np.zeros((periods, m)), np.zeros((periods, m))
    repay = (tenor - grace).astype(float)
    level = level_payment(balance, i, repay)
    straight = balance / repay
    # sculpted: service = CFADS / c in the repayment periods with CFADS > 0, c = the sum of their
    # CFADS x (1 + i)^(-m(k)) / the balance (m(k): such periods up to k); 0 where there is none
    top = min(int(tenor.max()), periods - 1 - b)
    k = np.arange(1, top + 1)[:, None]
    flow = cfads[b + 1 : b + 1 + top]
    counted = (k > grace) & (k <= tenor) & (flow > 0) & (shape == 2)
    count, total = np.cumsum(counted, axis=0), counted.sum(axis=0)
    with np.errstate(all="ignore"):
        # (1 + i)^-count, the powers computed once per distinct rate and count (the same bits)
        (rate_u,), rate_of = _distinct_rows(i)
        discount = ((1.0 + rate_u) ** -np.arange(top + 1)[:, None])[count, rate_of]
        if rates is not None:  # floating: the compounded rates of the counted periods
            r = rates[b + 1 : b + 1 + top]
            discount = np.where(
                floating, np.exp(-np.cumsum(np.where(counted, np.log1p(r), 0.0), axis=0)), discount
            )
        pv = np.where(counted, flow * discount, 0.0).sum(axis=0)
        # dscr sizing: the largest debt whose cover is the target, capped at the fraction's
        scale = np.where(sized & (pv > 0), np.minimum(1.0, pv / target / balance), 1.0)
        balance = balance * scale
        cover = np.where(pv > 0, pv / balance, 0.0)
        sculpted = np.where(counted & (cover > 0), flow / np.where(cover > 0, cover, 1.0), np.nan)
    owed = balance.copy()
    # sculpted: repaid at the last repayment period with CFADS > 0 (0 from there: no rounding's dust)
    for step in range(1, int(tenor.max()) + 1):
        p = b + step
        if p >= periods:
            break
        live = step <= tenor
        rate = i if rates is None else rates[p]
        due = np.where(live, owed * rate, 0.0)
        if rates is not None:  # floating: the annuity of what is owed over the periods left, at this rate
            level = np.where(
                floating, level_payment(owed, rate, repay - np.maximum(step - 1 - grace, 0)), level
            )
        shaped = np.where(shape == 1, straight, np.where(shape == 0, level - due, 0.0))
        if step <= top:
            shaped = np.where((shape == 2) & ~np.isnan(sculpted[step - 1]), sculpted[step - 1] - due, shaped)
        principal = np.where(live & (step > grace), shaped, 0.0)
        interest[p], service[p] = due, due + principal
        owed = np.where(live, owed - principal, 0.0)
        if step <= top:
            owed = np.where((shape == 2) & (total > 0) & (count[step - 1] >= total), 0.0, owed)
        closing[p] = owed
    return service, interest, closing, (shape == 2) & (cover == 0), scale


def _waterfall(cfads, service, interest, closing, b: int, balance, i, tenor, end, reserve, sweep, lockup):
    """The debt service, interest and balance at each period's end actually paid (periods, rows),
    the equity's cash moved by the reserve (- funded + drawn + released) and the prepayments
    (trapped + swept), of rows whose scheduled ``service``, ``interest`` and ``closing`` (periods,
    rows, :func:`_scheduled_debt`) run through a debt service reserve of ``reserve`` periods, a
    ``sweep`` and a ``lockup`` cover, by the kernel :func:`gputco.udfs._projectkernels.waterfall_rows`
    (docs/project.md; the period lines ``service_ahead`` .. ``owed_end`` define it). ``balance``:
    the debt at in-service; ``end``: each row's last period (build + life). What is paid is
    written over ``service``, ``interest`` and ``closing`` (the caller's own copies: the kernel
    reads a row's period before it writes it, and never again)."""
    periods, m = cfads.shape
    paid_service, paid_interest, owed_end = service, interest, closing
    reserved, prepaid_all = np.zeros_like(cfads), np.zeros_like(cfads)
    so_far = np.cumsum(service, axis=0) if np.any(reserve > 0) else np.zeros((1, 1))

    def rows(v, dtype=float) -> np.ndarray:
        return np.ascontiguousarray(v, dtype=dtype)

    _projectkernels(m * periods).waterfall_rows(
        *(rows(x) for x in (cfads, service, interest, closing, so_far)),
        int(b),
        rows(balance),
        rows(i),  # (periods, rows)
        rows(tenor, np.int64),
        rows(end, np.int64),
        rows(reserve, np.int64),
        rows(sweep),
        rows(lockup),
        paid_service,
        paid_interest,
        owed_end,
        reserved,
        prepaid_all,
    )
    return paid_service, paid_interest, owed_end, reserved, prepaid_all


def _chunks(t: dict[str, np.ndarray]):
    """Row indices in chunks that share one ``ppy``, each small enough for bounded memory, rows of
    one number of periods (1 + build + life) together so that no chunk carries the trailing zeros
    of shorter projects (a remainder under 256 rows joins the next ones)."""
    periods = 1 + np.rint(t["build_months"] * t["ppy"] / 12.0) + np.rint(t["life_years"] * t["ppy"])
    for ppy in np.unique(t["ppy"]):
        rows = np.flatnonzero(t["ppy"] == ppy)
        rows = rows[np.argsort(periods[rows], kind="stable")]
        p = periods[rows].astype(int)
        s = 0
        while s < rows.size:
            same = int(np.searchsorted(p, p[s], side="right"))
            e = min(s + max(256, CHUNK_CELLS // p[s]), same) if same - s >= 256 else min(rows.size, s + 256)
            yield rows[s:e]
            s = e


def results(
    values: Mapping[str, object], need=ONE_PASS, function: str = "TCO_CASHFLOWS"
) -> dict[str, np.ndarray]:
    """The results ``need`` (of :data:`RESULTS`) of every project in ``values`` (see :func:`terms`),
    each a float array (rows,); ``project_irr_why`` and ``equity_irr_why`` give why an IRR is missing
    (:data:`gputco.udfs.flows.REASONS`); the DSCR break-even rent (asked by name: by default
    :data:`ONE_PASS`) comes with ``dscr_breakeven_rent_usd_per_gpu_hour_why``
    (:data:`DSCR_BREAKEVEN_REASONS`). NPVs discount period p by (1 + rate)^(-p / ppy); IRRs are
    annual effective; payback in years from the capex; ``revenue_npv`` is the NPV of the revenue
    proportional to the rent, before tax; ``min_dscr`` is NaN without debt;
    ``peak_funding_usd_per_gpu`` is the most negative cumulative equity cash flow (undiscounted).
    A name not in :data:`RESULTS` is an error; an old name (:data:`RENAMED`: ``npv_usd_per_gpu``,
    ``irr``, ``payback_years``) says the new one, and so does the returned mapping asked for it."""
    if isinstance(need, str):
        need = (need,)
    for k in need:
        if k in RENAMED:
            raise chain.renamed_error(k, RENAMED[k], "project result")
        if k not in RESULTS:
            raise UnknownNameError("project result", k, RESULTS)
    return _Results(_results(terms(values, function), need))


class _Results(dict):
    """:func:`results`' mapping: an old name (:data:`RENAMED`) raises an error naming the new one."""

    def __missing__(self, key):
        if key in RENAMED:
            raise chain.renamed_error(key, RENAMED[key], "project result")
        raise KeyError(key)


def _results(t: dict[str, np.ndarray], need) -> dict[str, np.ndarray]:
    """:func:`results` of checked terms ``t``."""
    n = t["capex_per_gpu"].size
    if DSCR_BREAKEVEN in need:
        rest = tuple(k for k in need if k != DSCR_BREAKEVEN)
        got = _results(t, rest) if rest else {"unpayable": np.zeros(n, dtype=bool)}
        got[DSCR_BREAKEVEN], got[f"{DSCR_BREAKEVEN}_why"] = dscr_breakeven_rent(t)
        return got
    out = {k: np.full(n, np.nan) for k in need}
    out["unpayable"] = np.zeros(n, dtype=bool)
    if PROJECT_IRR in need:
        out[f"{PROJECT_IRR}_why"] = np.zeros(n, dtype=np.int8)
    if "equity_irr" in need:
        out["equity_irr_why"] = np.zeros(n, dtype=np.int8)

    def chunk(rows: np.ndarray) -> None:
        sub = {k: _rows(v, rows) for k, v in t.items()}
        f = project_flows(sub)
        ppy = int(sub["ppy"][0])
        for k, v in summaries(f, sub, ppy, need).items():
            out[k][rows] = v

    each_chunk(chunk, _chunks(t))
    return out


def dscr_breakeven_rent(t: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The market rent (USD per GPU-hour) at which ``min_dscr`` = ``covenant_dscr`` of each row of
    checked terms ``t``, contracts as given (their rent is the one ``t`` holds), and a code into
    :data:`DSCR_BREAKEVEN_REASONS` (0: found; else the value is NaN). With level or straight
    repayment and fraction sizing the debt service does not depend on the market rent and each
    period's CFADS is nondecreasing in it, so ``min_dscr`` is: a bisection on every row at once
    between 0 and a rent doubled until the covenant holds, to :data:`DSCR_BREAKEVEN_TOLERANCE`
    relative. 0 where the covenant holds even at a market rent of 0; none (code 3) where it does
    not hold at 2^64 x the given rent (at least 1 USD) (docs/project.md)."""
    n = t["capex_per_gpu"].size
    cov = t["covenant_dscr"]

    def low(rent: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        got = _results({**t, "rent_usd_per_gpu_hour": rent}, ("min_dscr",))
        return got["min_dscr"], got["unpayable"]

    why = np.zeros(n, dtype=np.int8)
    why[(t["repayment"] == REPAYMENTS.index("sculpted")) | (t["sizing"] == SIZINGS.index("dscr"))] = 2
    lo = np.zeros(n)
    at0, stuck = low(lo)
    why[(why == 0) & (t["debt_fraction"] <= 0)] = 1
    why[(why == 0) & stuck] = 4
    why[(why == 0) & np.isnan(at0)] = 1
    hi = np.maximum(np.asarray(t["rent_usd_per_gpu_hour"], dtype=float), 1.0).copy()
    for _ in range(64):  # doubling up to 2^64 (1.8e19) x the rent: past it, no rent is a market's
        m, _stuck = low(hi)
        short = (why == 0) & (at0 < cov) & ~(m >= cov)
        if not short.any():
            break
        hi = np.where(short, hi * 2.0, hi)
    m, _stuck = low(hi)
    why[(why == 0) & (at0 < cov) & ~(m >= cov)] = 3
    open_ = (why == 0) & (at0 < cov)
    for _ in range(2200):  # each halves the bracket: ends within the tolerance long before
        going = open_ & (hi - lo > DSCR_BREAKEVEN_TOLERANCE * hi)
        if not going.any():
            break
        mid = np.where(going, 0.5 * (lo + hi), hi)
        m, _stuck = low(mid)
        up = going & (m >= cov)
        hi, lo = np.where(up, mid, hi), np.where(going & ~up, mid, lo)
    rent = np.where(open_, hi, 0.0)
    return np.where(why == 0, rent, np.nan), why


def _rows(v: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """A term on some rows: a term every row shares (a scalar broadcast) stays one, unread."""
    if v.ndim == 1 and v.strides == (0,) and v.size:
        return np.broadcast_to(v[:1], rows.shape)
    return v[rows]


#: the results a debt that cannot be repaid leaves without a number (NaN, ``unpayable`` True)
ON_DEBT = tuple(
    k
    for k in RESULTS
    if k not in (PROJECT_NPV, PROJECT_IRR, PROJECT_PAYBACK, "revenue_npv", "debt_usd_per_gpu")
)


def summaries(f, t, ppy: int, need=ONE_PASS) -> dict[str, np.ndarray]:
    """The results ``need`` of flows ``f`` (:func:`project_flows`) of rows with terms ``t``; where
    sculpted debt cannot be repaid (:data:`gputco.udfs.periodlines.UNPAYABLE`) the results on the
    debt are NaN and ``unpayable`` says so."""
    with np.errstate(all="ignore"):  # an IRR search may overflow at rates near -100%: handled
        got = _summaries(f, t, ppy, need)
    stuck = f.get("unpayable")
    if stuck is not None and stuck.any():
        for k in ON_DEBT:
            if k in got:
                got[k] = np.where(stuck, np.nan, got[k])
    got["unpayable"] = np.zeros(t["capex_per_gpu"].size, dtype=bool) if stuck is None else stuck
    return got


def _summaries(f, t, ppy: int, need) -> dict[str, np.ndarray]:
    got: dict[str, np.ndarray] = {}
    if PROJECT_NPV in need:
        got[PROJECT_NPV] = flows.npv(f["net"], t["cost_of_capital"], ppy, by_period=True)
    if "revenue_npv" in need:
        got["revenue_npv"] = flows.npv(f["revenue"], t["cost_of_capital"], ppy, by_period=True)
    if PROJECT_IRR in need:
        got[PROJECT_IRR], got[f"{PROJECT_IRR}_why"] = flows.irr(f["net"], ppy, by_period=True)
    if PROJECT_PAYBACK in need:
        got[PROJECT_PAYBACK] = flows.payback(f["net"], ppy, by_period=True)
    same = not f["levered"]  # no debt: the equity flows are the project's, bit for bit
    if "equity_irr" in need:
        if same and PROJECT_IRR in got:
            got["equity_irr"], got["equity_irr_why"] = (
                got[PROJECT_IRR].copy(),
                got[f"{PROJECT_IRR}_why"].copy(),
            )
        else:
            got["equity_irr"], got["equity_irr_why"] = flows.irr(f["equity"], ppy, by_period=True)
    if "equity_npv_usd_per_gpu" in need:
        got["equity_npv_usd_per_gpu"] = flows.npv(f["equity"], t["cost_of_equity"], ppy, by_period=True)
    if "min_dscr" in need:  # over the repayment periods: those with a payment (service > 0)
        service, cfads = f["service"].values, f["cfads"].values  # runs of one partition
        with np.errstate(all="ignore"):
            cover = np.where(service > 0, cfads / service, np.inf)
        low = cover.min(axis=0)
        got["min_dscr"] = np.where(np.isfinite(low), low, np.nan)
    if "peak_funding_usd_per_gpu" in need:
        got["peak_funding_usd_per_gpu"] = np.minimum(flows.lowest_sum(f["equity"], by_period=True), 0.0)
    if "debt_usd_per_gpu" in need:
        got["debt_usd_per_gpu"] = f["drawn"]
    lender = [k for k in ("avg_dscr", "dscr_breach_periods", "llcr", "plcr") if k in need]
    if lender and same:  # no debt: no cover ratios, nothing to compute
        got.update({k: np.full(t["capex_per_gpu"].size, np.nan) for k in lender})
    elif lender:
        got.update(_lender(f, t, ppy, need))
    ltv = [k for k in ("max_ltv", "ltv_at_maturity", "ltv_breach_periods") if k in need]
    if ltv and same:  # no debt: no loan to value, no breach (as _ltv gives), nothing to compute
        n = t["capex_per_gpu"].size
        none = {
            "max_ltv": np.full(n, np.nan),
            "ltv_at_maturity": np.full(n, np.nan),
            "ltv_breach_periods": np.zeros(n),
        }
        got.update({k: none[k] for k in ltv})
    elif ltv:
        got.update({k: v for k, v in _ltv(f, t, ppy).items() if k in need})
    return got


def _lender(f, t, ppy: int, need) -> dict[str, np.ndarray]:
    """The lender's results of flows ``f`` (docs/project.md): over the periods with debt service,
    the mean DSCR and the count below ``covenant_dscr``; LLCR and PLCR, the CFADS of the repayment
    periods (of the life) discounted at the debt rate to in-service over the balance then. NaN
    without debt."""
    service, cfads = f["service"].values, f["cfads"].values  # runs of one partition
    lengths = np.asarray(f["service"].lengths, dtype=float)[:, None]
    paying = service > 0
    n = np.sum(np.where(paying, lengths, 0.0), axis=0)
    with np.errstate(all="ignore"):
        cover = np.where(paying, cfads / service, 0.0)
        none = np.where(n > 0, 0.0, np.nan)
        out: dict[str, np.ndarray] = {}
        if "avg_dscr" in need:
            out["avg_dscr"] = np.sum(lengths * cover, axis=0) / n + none
        if "dscr_breach_periods" in need:
            low = paying & (cover < t["covenant_dscr"])
            out["dscr_breach_periods"] = np.sum(np.where(low, lengths, 0.0), axis=0) + none
        if "llcr" in need or "plcr" in need:
            # at in-service PV / (drawn x (1 + rate)^(build / ppy)) = at period 0 PV / drawn
            rate, grow = t["debt_rate"], 1.0 / f["drawn"]
            floating = t["rate_basis"] == 1
            if floating.any():  # at the compounded rates of the periods (docs/project.md "Floating debt")
                dense, owing = f["cfads"].dense(), f["service"].dense() > 0
                build = np.rint(t["build_months"] * ppy / 12.0)
                rates = period_rates(t, ppy, build, dense.shape[0])
                discount = np.exp(-np.cumsum(np.log1p(rates), axis=0))
            if "llcr" in need:
                loan = flows.Periodic(np.where(paying, cfads, 0.0), f["cfads"].lengths)
                out["llcr"] = flows.npv(loan, rate, ppy, by_period=True) * grow + none
                if floating.any():
                    pv = np.sum(np.where(owing, dense, 0.0) * discount, axis=0)
                    out["llcr"] = np.where(floating, pv * grow + none, out["llcr"])
            if "plcr" in need:
                out["plcr"] = flows.npv(f["cfads"], rate, ppy, by_period=True) * grow + none
                if floating.any():
                    out["plcr"] = np.where(
                        floating, np.sum(dense * discount, axis=0) * grow + none, out["plcr"]
                    )
    return out


def _ltv(f, t, ppy: int) -> dict[str, np.ndarray]:
    """The loan-to-value results: debt at each period's end (the level-payment schedule's balance,
    0 after the tenor) / the collateral (value curve x capex) over periods 0..build + life: the
    highest, the one at maturity (the end of the tenor; NaN without debt) and how many periods
    are above ``max_ltv_covenant`` (where one is set, > 0). As the period lines ``ltv``."""
    capex = t["capex_per_gpu"]
    b = np.rint(t["build_months"] * ppy / 12.0)
    life, tenor = np.rint(t["life_years"] * ppy), np.rint(t["debt_years"] * ppy)
    i = first_rate(t, ppy)  # floating rows' balance comes from their schedule after the build
    drawn = f["drawn"]
    balance = drawn * (1.0 + i) ** b
    pay = f["payment"]
    # periods 0..build + tenor (within the life): after the tenor no debt is left, so the loan to
    # value is 0 there, which neither the highest nor a breach can be
    p = np.arange(int(np.max(b + np.minimum(tenor, life))) + 1, dtype=float)[:, None]
    k = p - b
    scheduled = f.get("closing") is not None  # some rows' balance from their schedule
    # the (periods, rows) factors that depend on a row's rate and build (or its value curve) only
    # are computed once per distinct rate and build (curve): the same operations on the same
    # numbers, so the same bits, at a fraction of the cost where rows share their terms
    (iu, bu), rate_of = _distinct_rows(i, b)
    with np.errstate(all="ignore"):
        if scheduled and f["scheduled"].all():
            during = f["closing"].dense()[: p.size]
        else:
            ku = np.maximum(p - bu, 0.0)
            grown = ((1.0 + iu) ** ku)[:, rate_of]
            # (1 + i)^k - 1 is 0 in floats for i below about 1e-16: expm1(k log1p(i)) / i is k there
            tiny = (np.expm1(ku * np.log1p(iu)))[:, rate_of] if np.any((i < TINY_RATE) & (i > 0)) else 0.0
            kk = np.maximum(k, 0.0)
            repaid = np.where(
                i >= TINY_RATE, pay * (grown - 1.0) / i, np.where(i > 0, pay * (tiny / i), pay * kk)
            )
            during = balance * grown - repaid
            if scheduled:
                during = np.where(f["scheduled"], f["closing"].dense()[: p.size], during)
        closing = np.where(k <= 0, drawn * ((1.0 + iu) ** p)[:, rate_of], np.where(k < tenor, during, 0.0))
        (table, shift, slope), curve_of = _distinct_rows(
            t["value_curve"], t["value_curve_shift"], t["value_curve_slope"], size=capex.size
        )
        years = np.broadcast_to(p / ppy, (p.size, table.shape[0])).T
        value = curves.value_at(table, years).T[:, curve_of] * capex
        value = value * curves.moved(shift, slope, p / ppy)[:, curve_of]
        ltv = np.where(closing > 0, closing / value, 0.0)
    ltv = np.where(p <= b + life, ltv, 0.0)
    cov = t["max_ltv_covenant"]
    levered = drawn > 0
    at = np.minimum(b + tenor, b + life).astype(np.intp)
    return {
        "max_ltv": np.where(levered, ltv.max(axis=0), np.nan),
        "ltv_at_maturity": np.where(levered, ltv[at, np.arange(capex.size)], np.nan),
        "ltv_breach_periods": np.where(cov > 0, (ltv > cov).sum(axis=0), 0.0).astype(float),
    }


def _distinct_rows(
    *columns: np.ndarray, size: int | None = None
) -> tuple[tuple[np.ndarray, ...], np.ndarray]:
    """The distinct rows of ``columns`` (each one value per row, or a table with a row per row;
    scalars broadcast to ``size`` rows) and, for each row, the index of its distinct row: the
    columns are ``tuple(c[index])``, bit for bit (rows are told apart by their bytes).

    >>> (rate,), of = _distinct_rows(np.array([0.1, 0.2, 0.1]))
    >>> rate.tolist(), of.tolist()
    ([0.1, 0.2], [0, 1, 0])
    """
    n = size if size is not None else np.asarray(columns[0]).shape[0]
    parts = [
        np.broadcast_to(np.asarray(c, dtype=float), (n, *np.shape(c)[1:])).reshape(n, -1) for c in columns
    ]
    rows = np.ascontiguousarray(np.hstack(parts))
    keys = rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))).ravel()
    _, first, of = np.unique(keys, return_index=True, return_inverse=True)
    out, at = [], 0
    for c, part in zip(columns, parts, strict=True):
        width = part.shape[1]
        picked = rows[first, at : at + width]
        at += width
        out.append(picked.reshape((first.size, *np.shape(c)[1:])) if np.ndim(c) > 1 else picked[:, 0])
    return tuple(out), of.ravel()


# --- the TCO_ functions of the project (udfs/registry.py) --------------------------------------

#: the arguments of every project function after the required five, with their defaults (None:
#: the default of :data:`TERMS`, another term's value)
OPTIONAL_ARGS: dict[str, object] = {
    **{
        k: (None if isinstance(v, str) else v)
        for k, v in TERMS.items()
        if k not in _REQUIRED
        and k not in LENDER_TERMS
        and k not in MARKET_TERMS
        and k not in DEBT_TERMS
        and k not in MOVE_TERMS
        and k not in CONTRACT_TERMS
        and k not in WATERFALL_TERMS
        and k not in FLOATING_TERMS
    },
    **{
        k: v
        for k, v in CHOICES.items()
        if k not in DEBT_TERMS and k not in TAX_TERMS and k not in FLOATING_TERMS
    },
    **{k: TERMS[k] for k in LENDER_TERMS},
    # the market curves' arguments after the lender's: a workbook's positional calls keep their places
    **{k: TERMS[k] for k in MARKET_TERMS},
    **dict.fromkeys(k for k in CURVE_TERMS if k not in FLOATING_TERMS),
    # the debt's shape after the curves, for the same reason
    **{k: {**CHOICES, **TERMS}[k] for k in DEBT_TERMS},
    # the curves' shifts and tilts last, for the same reason
    **{k: TERMS[k] for k in MOVE_TERMS},
    # how a tax loss counts after the moves, for the same reason
    **{k: CHOICES[k] for k in TAX_TERMS},
    # the contract rent's escalation after it, for the same reason
    **{k: TERMS[k] for k in CONTRACT_TERMS},
    # the waterfall after it, for the same reason
    **{k: TERMS[k] for k in WATERFALL_TERMS},
    # floating debt last, for the same reason
    "debt_rate_basis": CHOICES["debt_rate_basis"],
    "base_rate_curve": None,
    "debt_spread": TERMS["debt_spread"],
}


def _arguments(signature, args, kwargs) -> tuple[dict[str, object], tuple]:
    """A project function's arguments checked as numbers (broadcast together, flattened) and
    texts, and the shape of the scenarios; errors name the argument."""
    bound = signature.bind(*args, **kwargs)
    bound.apply_defaults()
    given = dict(bound.arguments)
    out: dict[str, object] = {k: chk.text(k, given.pop(k)) for k in CHOICES}
    for k in CURVE_TERMS:  # one curve for every scenario: text, a preset key or a range of factors
        curve = given.pop(k)
        out[k] = curves.parse(k, curve.tolist() if isinstance(curve, np.ndarray) else curve)
    numbers = {k: v for k, v in given.items() if v is not None}
    chk.broadcast(**numbers)
    arrays = {k: chk.as_float(k, v) for k, v in numbers.items()}
    shape = np.broadcast_shapes(*(a.shape for a in arrays.values()))
    out.update({k: np.broadcast_to(a, shape).reshape(-1) if shape else a for k, a in arrays.items()})
    return out, shape


def _project_function(result: str | None, name: str, doc: str | None):
    """A function of the scalar ``result`` of one project or of arrays of them (of one shape),
    with the keyword arguments of :data:`TERMS` and :data:`CHOICES`; a missing IRR is an error
    that says why."""
    import inspect

    def function(*args, **kwargs):
        if result is None:
            return _project_table(*args, **kwargs)
        flat, shape = _arguments(signature, args, kwargs)
        out = results(flat, (result,), name.upper())
        why = out.get(f"{result}_why")
        if result == DSCR_BREAKEVEN and why.any():
            raise NoSolutionError(DSCR_BREAKEVEN_REASONS[int(why[np.argmax(why != 0)])])
        if why is not None and (why != flows.FOUND).any():
            raise NoSolutionError(flows.REASONS[int(why[np.argmax(why != flows.FOUND)])])
        if result in ON_DEBT and out["unpayable"].any():
            raise NoSolutionError(periodlines.UNPAYABLE)
        if result in NEED_DEBT and np.isnan(out[result]).any():
            raise NoSolutionError("no debt service: debt_fraction is 0, so there is no cover ratio")
        value = out[result]
        return chk.out(value.reshape(shape) if shape else value.reshape(()))

    params = [inspect.Parameter(k, inspect.Parameter.POSITIONAL_OR_KEYWORD) for k in _REQUIRED]
    params += [
        inspect.Parameter(k, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=v)
        for k, v in OPTIONAL_ARGS.items()
    ]
    signature = inspect.Signature(params)
    cast(Any, function).__signature__ = signature
    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    return function


_EXAMPLE = """

    >>> round({name}(31250, 2.0, 0.4045, 5, 0.1, periods="month", build_months=12, ramp_months=3,
    ...              debt_fraction=0.6, debt_rate=0.09, debt_years=4, tax_rate=0.21,
    ...              depreciation_method="macrs_5"), 4)
    {value}
    """

#: the project's TCO_ functions: Python name, result, what it is, the doctest's value
_FUNCTIONS = (
    (
        "tco_project_npv",
        PROJECT_NPV,
        """NPV of one GPU as a project (build, ramp, contracts, opex lines, tax depreciation; by
    year or month), USD per GPU at the cost of capital: the unlevered cash flows, debt aside.""",
        "11802.6129",
    ),
    (
        "tco_project_irr",
        PROJECT_IRR,
        "IRR of the project (unlevered) cash flows, annual effective (monthly: (1 + monthly IRR)^12 - 1).",
        "0.212",
    ),
    (
        "tco_equity_irr",
        "equity_irr",
        """IRR of the equity cash flows: project flows + debt drawn - debt service + the interest
    tax shield, annual effective.""",
        "0.3471",
    ),
    (
        "tco_equity_npv",
        "equity_npv_usd_per_gpu",
        "NPV of the equity cash flows at cost_of_equity (default: the cost of capital), USD per GPU.",
        "12933.9194",
    ),
    (
        "tco_min_dscr",
        "min_dscr",
        """The lowest debt-service cover over the repayment periods: (revenue + opex + tax of the
    project) / debt service; an error without debt.""",
        "0.1353",
    ),
    (
        "tco_avg_dscr",
        "avg_dscr",
        """The mean debt-service cover over the repayment periods (a simple mean of CFADS / debt
    service); an error without debt.""",
        "1.9739",
    ),
    (
        "tco_llcr",
        "llcr",
        """Loan-life cover ratio: the CFADS of the repayment periods discounted at the debt rate to
    in-service, over the debt then; an error without debt.""",
        "1.9658",
    ),
    (
        "tco_dscr_breakeven_rent",
        DSCR_BREAKEVEN,
        """The market rent (USD per GPU-hour) at which the lowest DSCR equals covenant_dscr, the
    contracts as given (level or straight repayment); 0 where the covenant holds even at a market
    rent of 0; an error without debt, with sculpted repayment or dscr sizing, or where no market
    rent reaches the covenant.""",
        "6.545",
    ),
    (
        "tco_debt_per_gpu",
        "debt_usd_per_gpu",
        "The debt drawn with the capex, USD per GPU (debt_fraction x capex).",
        "18750.0",
    ),
    (
        "tco_peak_funding",
        "peak_funding_usd_per_gpu",
        """The most negative cumulative equity cash flow (undiscounted), USD per GPU: the equity
    the project needs at its worst.""",
        "-12927.9159",
    ),
)


def _project_table(*args, **kwargs):
    """The cash flows of one GPU as a project, one row per period 0..build + life (years, or
    months with ``periods="month"``): a header row (:data:`TABLE_COLUMNS`), then the periods.

    >>> rows = tco_project_cashflows(31250, 2.0, 0.4045, 5, 0.1, periods="month", build_months=2,
    ...                              debt_fraction=0.5, debt_rate=0.09, debt_years=4)
    >>> rows[0][:4], len(rows), [round(x, 2) for x in rows[4][1:4]]
    (['period', 'capex', 'revenue', 'opex'], 64, [0.0, 1460.0, -295.29])
    """
    given, shape = _arguments(_TABLE_SIGNATURE, args, kwargs)
    if shape:
        raise chk.InputShapeError("capex_per_gpu", shape, "one project (single values) for a table")
    f = project_flows(terms(given, "TCO_PROJECT_CASHFLOWS"), table=True)
    lines = f["lines"]
    rows = [list(TABLE_COLUMNS)]
    for p in range(f["net"].shape[0]):
        rows.append([float(p), *(float(lines[k][p, 0]) + 0.0 for k in TABLE_COLUMNS[1:])])  # no -0
    return rows


def _made(name: str):
    """The project function ``name`` of :data:`_FUNCTIONS`, its docstring with its example."""
    ((result, doc, value),) = [(r, d, v) for n, r, d, v in _FUNCTIONS if n == name]
    return _project_function(result, name, doc + _EXAMPLE.format(name=name, value=value))


tco_project_npv = _made("tco_project_npv")
tco_project_irr = _made("tco_project_irr")
tco_equity_irr = _made("tco_equity_irr")
tco_equity_npv = _made("tco_equity_npv")
tco_min_dscr = _made("tco_min_dscr")
tco_peak_funding = _made("tco_peak_funding")
tco_avg_dscr = _made("tco_avg_dscr")
tco_llcr = _made("tco_llcr")
tco_debt_per_gpu = _made("tco_debt_per_gpu")
tco_dscr_breakeven_rent = _made("tco_dscr_breakeven_rent")

tco_project_cashflows = _project_function(None, "tco_project_cashflows", _project_table.__doc__)
_TABLE_SIGNATURE = tco_project_cashflows.__signature__
