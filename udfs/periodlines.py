"""The cluster project's period table, described once: every line of it, as the chain's steps are.

A project (docs/project.md) is a table of periods 0..build + life (years, or months with
``periods = "month"``) whose lines are written here once, each with its key, label, unit, a
plain-language "how", one Excel formula template and its Python computation:

- :data:`SCALARS`: the project's terms as the lines use them (periods a year, the build and the
  life in periods, the debt at in-service and its level payment...), one value per project;
- :data:`TAX_LINES`: the tax years 1..:data:`TAX_YEARS` (the MACRS rate and the deduction);
- :data:`PERIOD_LINES`: the periods (operations, tax, debt, equity), in the order they are
  computed (a line reads only lines above it, or lines of earlier periods).

Templates are in the chain's one dialect (:mod:`gputco.udfs.chain`): ``[name]`` a scalar
quantity (an input of the chain or a :data:`SCALARS` line), ``k_*`` a unit constant, and, as in
the chain's per-year table, ``<line>`` another line of the same period, ``<line@prev>`` the
period before (0 in the first), ``<line@all>`` the whole line (every period, or every tax year),
``<line@0:p>`` periods 0 to this one (``<line@1:t>`` tax years 1 to this one), ``<period>`` the
period's number and ``<tax_year>`` the tax year's. :func:`gputco.udfs.chain.expand` is the one
expander: the finance workbook's period table (``workbook/finance/projectflows.py``), the scenario
rows' period cells (``workbook/scenarios/projectcells.py``) and docs/project.md's table
(``python -m gputco.addin.chain_docs``) come from here, each saying where a line lives.

Each line's ``func`` computes it for every project at once, period by period (:func:`evaluate`):
the table's definition in Python, which the compiled flows of :mod:`gputco.udfs.project` (the
runs of equal periods batch uses) are held to (tests/test_periodlines.py). A new line is a row
of :data:`PERIOD_LINES` here: it appears in both workbooks' tables, in docs and in
:func:`evaluate`.

>>> line("net").formula
'=<capex>+<revenue>+<opex>+<residual>+<tax>'
>>> from gputco.udfs import project
>>> out = evaluate(project.terms({"capex_per_gpu": 1000.0, "rent_usd_per_gpu_hour": 0.05,
...                               "opex_usd_per_gpu_hour": 0.01, "life_years": 2}))
>>> [round(float(x), 2) for x in out["net"][:, 0]]
[-1000.0, 350.4, 350.4]
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import chain, curves, ranges
from .finance import HOURS_PER_YEAR

#: what the period table says where the residual and the value curve disagree by more than half
RESIDUAL_WARNING = "residual_fraction differs from the value curve's end-of-life value by more than half"
#: what the period table says where the grace period does not fit the tenor
GRACE_CHECK = "debt_grace_months must be whole periods (a multiple of 12 by year) below the tenor"
#: the longest life (years) a project has, and so the tax years of the table
TAX_YEARS = 15
#: IRS Publication 946 (2023), Appendix A, Table A-1 (docs/project.md quotes it)
MACRS = {
    "macrs_5": (20.00, 32.00, 19.20, 11.52, 11.52, 5.76),
    "macrs_7": (14.29, 24.49, 17.49, 12.49, 8.93, 8.92, 8.93, 4.46),
}
DEPRECIATION_METHODS = ("straight_line", *MACRS)
#: ``debt_repayment``: level (an annuity, today's), straight (equal principal), sculpted (service =
#: CFADS / one cover, the cover that repays the debt at maturity)
REPAYMENTS = ("level", "straight", "sculpted")
#: ``debt_sizing``: fraction (debt_fraction x capex, today's) or dscr (the largest sculpted debt
#: whose cover is target_dscr, capped at debt_fraction x capex)
SIZINGS = ("fraction", "dscr")
#: ``tax_losses``: refund (a period's loss is a tax credit, today's) or carry_forward (a loss is
#: carried to later periods, the tax paid is never negative; docs/project.md)
TAX_LOSSES = ("refund", "carry_forward")
#: ``debt_rate_basis``: fixed (``debt_rate``, today's) or floating (the base rate of the year of
#: operation from ``base_rate_curve`` + ``debt_spread``; docs/project.md "Floating debt")
RATE_BASES = curves.RATE_BASES
#: what the inputs check says where floating debt lacks its curve or is given a debt rate, and
#: where fixed debt is given a curve or a spread (the Python routes raise errors naming them)
FLOATING_CHECK = (
    "debt_rate_basis floating needs base_rate_curve and leaves debt_rate at its default (the cost of capital)"
)
FIXED_CHECK = "base_rate_curve and debt_spread need debt_rate_basis floating (fixed: debt_rate alone)"
#: what the period table says where dscr sizing meets another repayment
SIZING_CHECK = 'debt_sizing "dscr" needs debt_repayment "sculpted"'
#: what the inputs check says of a debt tenor that breaks its rule (the one rule of every route)
TENOR_CHECK = f"debt_years must be {ranges.TENOR_RULE}"
#: what the period table says where the reserve's months are not whole periods
RESERVE_CHECK = "dsra_months must be whole periods (a multiple of 12 by year)"
#: what the results say where sculpted debt cannot be repaid
UNPAYABLE = "debt_repayment sculpted: no repayment period has CFADS > 0, so the debt cannot be repaid"


def unpayable(result: str, cover: str) -> str:
    """A workbook result's formula (``=...``) that says :data:`UNPAYABLE` instead where sculpted
    debt cannot be repaid; ``cover`` is a cell of the line ``sculpt_cover`` (0 there)."""
    return (
        f'=IF(AND([debt_repayment]="sculpted",[debt_at_in_service]>0,{cover}=0),"{UNPAYABLE}",{result[1:]})'
    )


@dataclass(frozen=True)
class Line:
    """One line of the project's table: ``key`` = ``func(v)`` for every project at once, in Excel
    ``formula`` (the chain's dialect, see the module). ``v`` is the period being computed
    (:class:`Period`): ``v["x"]`` a scalar or a line of this period, ``v.prev("x")``,
    ``v.all("x")``, ``v.upto("x")``, ``v.number``."""

    key: str
    label: str
    unit: str
    how: str
    formula: str
    func: Callable[[Any], Any]


def _curve_text(curve: str, label: str, how: str) -> Line:
    """The line ``<curve>_factors``: the curve term as text, its preset's factors where it names a
    finance preset (:func:`curves.excel_text`); Python takes the term as given."""
    return Line(
        f"{curve}_factors", label, "text", how, "=" + curves.excel_text(f"[{curve}]"), lambda v: v[curve]
    )


def _if(test, yes, no=0.0):
    return np.where(test, yes, no)


def _not_whole(x):
    """True where ``x`` (periods) is not a whole number: the inputs check's rule for a tenor, a
    grace and a reserve (Excel: ``x<>ROUNDUP(x,0)``)."""
    return x != np.ceil(x)


def _taxable(v):
    """A period's taxable income: revenue + opex - depreciation + residual."""
    return v["revenue"] + v["opex"] - v["depreciation"] + v["residual"]


def _ramp_sum(months, ramp):
    """The ramp of months 1..m summed, in closed form for a whole number of ramp months:
    m^2 / (2 ramp) within the ramp, ramp / 2 + m - ramp after it; m without a ramp."""
    with np.errstate(all="ignore"):
        inside = months**2 / (2 * ramp)
    return np.where(ramp == 0, months, np.where(months <= ramp, inside, ramp / 2 + months - ramp))


def _ramp_sum_formula(months: str) -> str:
    return (
        f"IF([ramp_months]=0,{months},IF({months}<=[ramp_months],({months})^2/(2*[ramp_months]),"
        f"[ramp_months]/2+{months}-[ramp_months]))"
    )


def _payment(balance, rate, periods):
    with np.errstate(all="ignore"):
        level = np.where(rate > 0, balance * rate / (1 - (1 + rate) ** (-periods)), balance / periods)
    return np.where(balance > 0, level, 0.0)


def _floating(v, year, fixed):
    """The debt's period rate: ``fixed``, or with debt_rate_basis floating (1 + the base-rate
    curve's rate of ``year`` + the spread)^(1 / periods a year) - 1 (docs/project.md "Floating debt")."""
    base = curves.factor_at(v["base_rate_curve"], np.broadcast_to(year, v["debt_spread"].shape))
    return np.where(
        v["debt_rate_basis"] == "floating",
        (1 + base + v["debt_spread"]) ** (1 / v["periods_per_year"]) - 1,
        fixed,
    )


def _floating_formula(year: str, fixed: str) -> str:
    """:func:`_floating`'s template: ``year`` and ``fixed`` expressions of the chain's dialect."""
    return (
        '=IF([debt_rate_basis]="floating",(1+'
        + curves.excel_at("[base_rate_curve_factors]", year)
        + f"+[debt_spread])^(1/[periods_per_year])-1,{fixed})"
    )


#: the project's terms as the lines use them, one value per project
SCALARS: list[Line] = [
    Line(
        "periods_per_year",
        "Periods a year",
        "",
        "1 by year, 12 by month",
        '=IF([periods]="month",k_months_per_year,1)',
        lambda v: np.where(v["periods"] == "month", 12.0, 1.0),
    ),
    Line(
        "months_per_period",
        "Months a period",
        "months",
        "12 by year, 1 by month",
        "=k_months_per_year/[periods_per_year]",
        lambda v: 12.0 / v["periods_per_year"],
    ),
    Line(
        "hours_per_period",
        "Hours a period",
        "h",
        "8760 / periods a year",
        "=k_hours_per_year/[periods_per_year]",
        lambda v: HOURS_PER_YEAR / v["periods_per_year"],
    ),
    Line(
        "build_periods",
        "Build, periods",
        "",
        "the in-service period; by year a whole number of years",
        "=[build_months]/[months_per_period]",
        lambda v: v["build_months"] / v["months_per_period"],
    ),
    Line(
        "life_periods",
        "Life, periods",
        "",
        "the last period of the life after the build",
        "=[life_years]*[periods_per_year]",
        lambda v: v["life_years"] * v["periods_per_year"],
    ),
    Line(
        "project_inputs_check",
        "Project inputs fit together",
        "text",
        "empty when they do; else what to change (the results say it too)",
        '=IF([build_periods]<>ROUNDUP([build_periods],0),"build_months must be a multiple of 12 with periods year",'
        f'IF(OR([debt_years]>[life_years],[debt_years]<=0),"{TENOR_CHECK.replace(chr(34), chr(34) * 2)}",'
        "IF(AND([debt_fraction]>0,[debt_years]*[periods_per_year]<>ROUNDUP([debt_years]*[periods_per_year],0)),"
        f'"{TENOR_CHECK.replace(chr(34), chr(34) * 2)}",'
        "IF(AND([debt_fraction]>0,OR([debt_grace_months]/[months_per_period]<>ROUNDUP([debt_grace_months]"
        "/[months_per_period],0),[debt_grace_months]/[months_per_period]>=[debt_years]*[periods_per_year])),"
        f'"{GRACE_CHECK}",'
        'IF(AND([debt_fraction]>0,[debt_sizing]="dscr",[debt_repayment]<>"sculpted"),'
        f'"{SIZING_CHECK.replace(chr(34), chr(34) * 2)}",'
        "IF(AND([debt_fraction]>0,[dsra_months]/[months_per_period]<>ROUNDUP([dsra_months]/[months_per_period],0)),"
        f'"{RESERVE_CHECK}",'
        f'IF(AND([debt_rate_basis]="floating",OR([base_rate_curve]="",[debt_rate]<>[cost_of_capital])),"{FLOATING_CHECK}",'
        f'IF(AND([debt_rate_basis]<>"floating",OR([base_rate_curve]<>"",[debt_spread]<>0)),"{FIXED_CHECK}",'
        'IF([depreciation_years]>[life_years],"depreciation_years must be within the life","")))))))))',
        lambda v: np.where(
            _not_whole(v["build_periods"]),
            "build_months must be a multiple of 12 with periods year",
            np.where(
                (v["debt_years"] > v["life_years"]) | (v["debt_years"] <= 0),
                TENOR_CHECK,
                np.where(
                    (v["debt_fraction"] > 0) & _not_whole(v["debt_years"] * v["periods_per_year"]),
                    TENOR_CHECK,
                    np.where(
                        (v["debt_fraction"] > 0)
                        & (
                            _not_whole(v["debt_grace_months"] / v["months_per_period"])
                            | (
                                v["debt_grace_months"] / v["months_per_period"]
                                >= v["debt_years"] * v["periods_per_year"]
                            )
                        ),
                        GRACE_CHECK,
                        np.where(
                            (v["debt_fraction"] > 0)
                            & (v["debt_sizing"] == "dscr")
                            & (v["debt_repayment"] != "sculpted"),
                            SIZING_CHECK,
                            np.where(
                                (v["debt_fraction"] > 0)
                                & _not_whole(v["dsra_months"] / v["months_per_period"]),
                                RESERVE_CHECK,
                                np.where(
                                    (v["debt_rate_basis"] == "floating")
                                    & (
                                        np.isnan(v["base_rate_curve"][:, 0])
                                        | (v["debt_rate"] != v["cost_of_capital"])
                                    ),
                                    FLOATING_CHECK,
                                    np.where(
                                        (v["debt_rate_basis"] != "floating")
                                        & (~np.isnan(v["base_rate_curve"][:, 0]) | (v["debt_spread"] != 0)),
                                        FIXED_CHECK,
                                        np.where(
                                            v["depreciation_years"] > v["life_years"],
                                            "depreciation_years must be within the life",
                                            "",
                                        ),
                                    ),
                                ),
                            ),
                        ),
                    ),
                ),
            ),
        ),
    ),
    _curve_text(
        "rent_curve",
        "Rent curve, factors by year",
        "the factors of the finance preset the rent curve names (Presets sheet), else as typed",
    ),
    Line(
        "value_curve_factors",
        "Value curve, factors by year",
        "text",
        "the factors of the finance preset the value curve names (Presets sheet), else as typed; "
        "empty: the base curve (value_base)",
        '=IF([value_curve]="",INDEX(fin_value,MATCH("value_base.factors",fin_id,0)),'
        + curves.excel_text("[value_curve]")
        + ")",
        lambda v: v["value_curve"],
    ),
    Line(
        "end_value_fraction",
        "Value curve at the end of the life",
        "fraction",
        "the GPUs' value (build + life) years after purchase, as a fraction of the capex (the cash "
        "flows keep residual_fraction)",
        "=("
        + curves.excel_value_at("[value_curve_factors]", "[build_periods]/[periods_per_year]+[life_years]")
        + ")*"
        + curves.excel_moved(
            "[value_curve_shift]", "[value_curve_slope]", "[build_periods]/[periods_per_year]+[life_years]"
        ),
        lambda v: (
            curves.value_at(v["value_curve"], v["build_periods"] / v["periods_per_year"] + v["life_years"])
            * curves.moved(
                v["value_curve_shift"],
                v["value_curve_slope"],
                v["build_periods"] / v["periods_per_year"] + v["life_years"],
            )
        ),
    ),
    Line(
        "residual_check",
        "Residual against the value curve",
        "text",
        "a warning where a residual_fraction > 0 is given and differs from the curve's end-of-life "
        "value by more than half; empty where it is within half, and for a residual of 0 (not "
        "modelled: no disagreement)",
        "=IF(AND([residual_fraction]>0,ABS([residual_fraction]-[end_value_fraction])>[end_value_fraction]/2),"
        f'"{RESIDUAL_WARNING}","")',
        lambda v: np.where(
            (v["residual_fraction"] > 0)
            & (np.abs(v["residual_fraction"] - v["end_value_fraction"]) > v["end_value_fraction"] / 2),
            RESIDUAL_WARNING,
            "",
        ),
    ),
    _curve_text(
        "base_rate_curve",
        "Base-rate curve, rates by year",
        "floating debt: the rates of the finance preset the base-rate curve names (Presets sheet), "
        "else as typed",
    ),
    Line(
        "debt_period_rate",
        "Debt rate a period",
        "fraction",
        "(1 + annual rate)^(1 / periods a year) - 1; floating, the first year's: the base-rate "
        "curve's t0 + the spread (the build's rate too)",
        _floating_formula("0", "(1+[debt_rate])^(1/[periods_per_year])-1"),
        lambda v: _floating(v, 0, (1 + v["debt_rate"]) ** (1 / v["periods_per_year"]) - 1),
    ),
    Line(
        "debt_drawn_usd_per_gpu",
        "Debt drawn with the capex",
        "USD",
        "debt share x capex",
        "=[debt_fraction]*[capex_per_gpu]",
        lambda v: v["debt_fraction"] * v["capex_per_gpu"],
    ),
    Line(
        "debt_at_in_service",
        "Debt at in-service",
        "USD",
        "with the build's interest added",
        "=[debt_drawn_usd_per_gpu]*(1+[debt_period_rate])^[build_periods]",
        lambda v: v["debt_drawn_usd_per_gpu"] * (1 + v["debt_period_rate"]) ** v["build_periods"],
    ),
    Line(
        "tenor_periods",
        "Debt tenor, periods",
        "",
        "debt years x periods a year",
        "=[debt_years]*[periods_per_year]",
        lambda v: v["debt_years"] * v["periods_per_year"],
    ),
    Line(
        "grace_periods",
        "Debt grace, periods",
        "",
        "interest only from in-service for this many periods: debt grace months / months a period",
        "=[debt_grace_months]/[months_per_period]",
        lambda v: v["debt_grace_months"] / v["months_per_period"],
    ),
    Line(
        "repay_periods",
        "Debt repayment, periods",
        "",
        "the tenor's periods after the grace",
        "=[tenor_periods]-[grace_periods]",
        lambda v: v["tenor_periods"] - v["grace_periods"],
    ),
    Line(
        "dsra_periods",
        "Debt service reserve, periods",
        "",
        "the reserve holds the scheduled service of this many periods ahead: dsra months / months a period",
        "=[dsra_months]/[months_per_period]",
        lambda v: v["dsra_months"] / v["months_per_period"],
    ),
    Line(
        "prepaying",
        "Prepayments possible",
        "",
        "1 where a sweep or a lock-up can prepay the debt (sweep_fraction > 0 or lockup_dscr > 0), "
        "else 0: the debt then follows its schedule",
        "=IF(AND([debt_fraction]>0,OR([sweep_fraction]>0,[lockup_dscr]>0)),1,0)",
        lambda v: _if((v["debt_fraction"] > 0) & ((v["sweep_fraction"] > 0) | (v["lockup_dscr"] > 0)), 1.0),
    ),
    Line(
        "debt_payment",
        "Level debt payment a period",
        "USD",
        "the annuity that repays the debt at in-service over the repayment periods (Excel PMT; "
        "level repayment)",
        "=IF([debt_at_in_service]>0,IF([debt_period_rate]>0,[debt_at_in_service]*[debt_period_rate]"
        "/(1-(1+[debt_period_rate])^(-[repay_periods])),[debt_at_in_service]/[repay_periods]),0)",
        lambda v: _payment(v["debt_at_in_service"], v["debt_period_rate"], v["repay_periods"]),
    ),
    Line(
        "debt_straight_principal",
        "Straight principal a period",
        "USD",
        "the debt at in-service / the repayment periods (straight repayment)",
        "=IF(AND([debt_at_in_service]>0,[repay_periods]>0),[debt_at_in_service]/[repay_periods],0)",
        lambda v: np.divide(
            v["debt_at_in_service"],
            v["repay_periods"],
            out=np.zeros_like(v["debt_at_in_service"]),
            where=(v["debt_at_in_service"] > 0) & (v["repay_periods"] > 0),
        ),
    ),
]


def _macrs_rate(v):
    t = v.number
    out = np.zeros_like(v["capex_per_gpu"], dtype=float)
    for name, table in MACRS.items():
        if t <= len(table):
            out = np.where(v["depreciation_method"] == name, table[t - 1] / 100.0, out)
    return out


#: the tax years 1..TAX_YEARS from in-service (``<tax_year>`` the year)
TAX_LINES: list[Line] = [
    Line(
        "macrs",
        "MACRS rate of the method",
        "fraction",
        "the method's percentage for this recovery year (0 after its last, and for straight line)",
        '=IF(OR([depreciation_method]="straight_line",<tax_year>>MAX(macrs_years)),0,'
        "INDEX(macrs_rates,<tax_year>,MATCH([depreciation_method],macrs_methods,0)))",
        _macrs_rate,
    ),
    Line(
        "macrs_sum",
        "MACRS rates summed",
        "fraction",
        "the rates of tax years 1 to this one",
        "=SUM(<macrs@1:t>)",
        lambda v: v.upto("macrs").sum(axis=0),
    ),
    Line(
        "deduction",
        "deduction",
        "USD",
        "bonus x capex in year 1, the method on the rest; by MACRS the basis left at the end of the life",
        "=IF(<tax_year>>[life_years],0,"
        '(IF([depreciation_method]="straight_line",IF(<tax_year><=[depreciation_years],'
        "[capex_per_gpu]*(1-[bonus_depreciation_fraction])/[depreciation_years],0),"
        "[capex_per_gpu]*(1-[bonus_depreciation_fraction])*<macrs>)"
        "+IF(<tax_year>=1,[bonus_depreciation_fraction]*[capex_per_gpu],0))"
        '+IF(AND([depreciation_method]<>"straight_line",<tax_year>=[life_years]),'
        "[capex_per_gpu]*(1-[bonus_depreciation_fraction])*(1-<macrs_sum>),0))",
        lambda v: _if(
            v.number > v["life_years"],
            0.0,
            _if(
                v["depreciation_method"] == "straight_line",
                _if(
                    v.number <= v["depreciation_years"],
                    v["capex_per_gpu"] * (1 - v["bonus_depreciation_fraction"]) / v["depreciation_years"],
                ),
                v["capex_per_gpu"] * (1 - v["bonus_depreciation_fraction"]) * v["macrs"],
            )
            + (v["bonus_depreciation_fraction"] * v["capex_per_gpu"] if v.number == 1 else 0.0)
            + _if(
                (v["depreciation_method"] != "straight_line") & (v.number == v["life_years"]),
                v["capex_per_gpu"] * (1 - v["bonus_depreciation_fraction"]) * (1 - v["macrs_sum"]),
            ),
        ),
    ),
]


def _rent_factor(v):
    """The rent curve's factor of the year of operation, or (1 - decline)^year without a curve,
    x (1 + rent_curve_shift) x (1 + rent_curve_slope)^year (docs/project.md)."""
    f = curves.factor_at(v["rent_curve"], v["year"])
    f = np.where(np.isnan(f), (1 - v["rent_decline_per_year"]) ** v["year"], f)
    return f * curves.moved(v["rent_curve_shift"], v["rent_curve_slope"], v["year"])


_RENT_FACTOR = (
    '(IF([rent_curve]="",(1-[rent_decline_per_year])^<year>,'
    + curves.excel_at("[rent_curve_factors]", "<year>")
    + "))*"
    + curves.excel_moved("[rent_curve_shift]", "[rent_curve_slope]", "<year>")
)


def _revenue(v, contract_rent):
    return _if(
        (v["live"] == 1) & np.isfinite(v["rent_usd_per_gpu_hour"]),
        v["hours_per_period"]
        * v["availability"]
        * (
            v["rent_usd_per_gpu_hour"]
            * v["utilisation"]
            * v["ramp"]
            * v["rent_factor"]
            * (1 - v["contracted_fraction"] * v["contract"])
            + contract_rent * v["contracted_fraction"] * v["contract"]
        ),
    )


_REVENUE = (
    "=IF(AND(<live>=1,ISNUMBER([rent_usd_per_gpu_hour])),[hours_per_period]*[availability]"
    "*([rent_usd_per_gpu_hour]*[utilisation]*<ramp>*<rent_factor>"
    "*(1-[contracted_fraction]*<contract>)+{contract_rent}*[contracted_fraction]*<contract>),0)"
)


def _sculpted_period(v):
    """1 in the repayment periods (grace < k <= tenor) with CFADS > 0, else 0."""
    return _if(
        (v["live"] == 1) & (v["k"] > v["grace_periods"]) & (v["k"] <= v["tenor_periods"]) & (v["cfads"] > 0),
        1.0,
    )


def _debt_scale(v):
    pv, owed = v.all("sculpt_pv").sum(axis=0), v["debt_at_in_service"]
    with np.errstate(all="ignore"):
        sized = np.minimum(1.0, pv / v["target_dscr"] / np.where(owed > 0, owed, 1.0))
    return np.where((v["debt_sizing"] == "dscr") & (owed > 0) & (pv > 0), sized, 1.0)


def _sculpted_service(v):
    c = v["sculpt_cover"]
    with np.errstate(all="ignore"):
        return np.where((v["cfads"] > 0) & (c > 0), v["cfads"] / np.where(c > 0, c, 1.0), v["interest"])


def _level_service(v):
    """The level payment: fixed, the annuity of the debt at in-service; floating, the annuity of
    the opening balance over the repayment periods left (this one too) at the period's rate."""
    left = v["repay_periods"] - (v["k"] - 1 - v["grace_periods"])
    again = _payment(v["opening"], v["period_rate"], np.where(left > 0, left, 1.0))
    return np.where(v["debt_rate_basis"] == "floating", again, v["debt_payment"])


def _at(line, index):
    """``line`` (periods, rows) at period ``index`` (rows,) of each row."""
    return np.take_along_axis(line, np.asarray(index, dtype=int)[None, :], axis=0)[0]


def _opening(v):
    k, p, i = v["k"], v.number, v["debt_period_rate"]
    j = np.maximum(k - 1 - v["grace_periods"], 0.0)  # payments made (none in the grace)
    with np.errstate(all="ignore"):
        repaid = np.where(i > 0, v["debt_payment"] * ((1 + i) ** j - 1) / i, v["debt_payment"] * j)
        during = np.where(
            v["debt_repayment"] == "straight",
            v["debt_at_in_service"] - v["debt_straight_principal"] * j,
            v["debt_at_in_service"] * (1 + i) ** j - repaid,
        )
        during = np.where(
            (v["debt_repayment"] == "sculpted") | (v["debt_rate_basis"] == "floating"),
            v.prev("closing"),
            during,
        )
        build = v["debt_drawn_usd_per_gpu"] * v["debt_scale"] * (1 + i) ** (p - 1)
    if p == 0:
        return np.zeros_like(k)
    return np.where(k <= 1, build, np.where(k - 1 <= v["tenor_periods"], during, 0.0))


#: the periods 0..build + life, in the order they are computed
PERIOD_LINES: list[Line] = [
    Line(
        "k",
        "operating period",
        "",
        "the period's number from in-service (0 and below: paying the capex and the build)",
        "=<period>-[build_periods]",
        lambda v: v.number - v["build_periods"],
    ),
    Line(
        "live",
        "in service",
        "",
        "1 in operating periods 1..life, else 0",
        "=IF(AND(<k>>=1,<k><=[life_periods]),1,0)",
        lambda v: _if((v["k"] >= 1) & (v["k"] <= v["life_periods"]), 1.0),
    ),
    Line(
        "year",
        "year of operation",
        "",
        "whole years since in-service (0 in the first)",
        "=IF(<live>=1,ROUNDUP(<k>/[periods_per_year],0)-1,0)",
        lambda v: _if(v["live"] == 1, np.ceil(v["k"] / v["periods_per_year"]) - 1),
    ),
    Line(
        "period_rate",
        "debt rate of the period",
        "fraction",
        "the debt rate a period; floating, (1 + the base-rate curve's rate of the year of operation "
        "(past its last, the last; t0 in the build) + the spread)^(1 / periods a year) - 1",
        _floating_formula("<year>", "[debt_period_rate]"),
        lambda v: _floating(v, v["year"], v["debt_period_rate"]),
    ),
    Line(
        "ramp_to",
        "ramp summed to the period's end",
        "months",
        "in service: the ramp of months 1..m summed, m = this period's last month from in-service",
        "=IF(<live>=1," + _ramp_sum_formula("<k>*[months_per_period]") + ",0)",
        lambda v: _if(v["live"] == 1, _ramp_sum(v["k"] * v["months_per_period"], v["ramp_months"])),
    ),
    Line(
        "ramp_from",
        "ramp summed before the period",
        "months",
        "in service: the ramp of months 1..m summed, m = the period before's last month",
        "=IF(<live>=1," + _ramp_sum_formula("(<k>-1)*[months_per_period]") + ",0)",
        lambda v: _if(v["live"] == 1, _ramp_sum((v["k"] - 1) * v["months_per_period"], v["ramp_months"])),
    ),
    Line(
        "ramp",
        "ramp",
        "fraction",
        "the mean over the period's months m of min(1, (m - 1/2) / ramp months)",
        "=IF(<live>=1,(<ramp_to>-<ramp_from>)/[months_per_period],0)",
        lambda v: _if(v["live"] == 1, (v["ramp_to"] - v["ramp_from"]) / v["months_per_period"]),
    ),
    Line(
        "contract",
        "contract share of the period",
        "fraction",
        "the part of the period within the contract's term",
        "=IF(<live>=1,MAX(0,MIN(1,[contract_years]*[periods_per_year]-(<k>-1))),0)",
        lambda v: _if(
            v["live"] == 1,
            np.maximum(0.0, np.minimum(1.0, v["contract_years"] * v["periods_per_year"] - (v["k"] - 1))),
        ),
    ),
    Line(
        "rent_factor",
        "rent factor of the year",
        "fraction",
        "the rent curve's factor of the year of operation (past its last, the last), or "
        "(1 - decline)^year without a curve, x (1 + rent_curve_shift) x (1 + rent_curve_slope)^year",
        "=IF(<live>=1," + _RENT_FACTOR + ",0)",
        lambda v: _if(v["live"] == 1, _rent_factor(v)),
    ),
    Line(
        "revenue",
        "revenue",
        "USD",
        "hours x availability x (market rent x utilisation x ramp x rent factor on the GPUs "
        "not under contract + contract rent x (1 + contract escalation)^year on those under it)",
        _REVENUE.format(
            contract_rent="[contract_rent_usd_per_gpu_hour]*(1+[contract_escalation_per_year])^<year>"
        ),
        lambda v: _revenue(
            v, v["contract_rent_usd_per_gpu_hour"] * (1 + v["contract_escalation_per_year"]) ** v["year"]
        ),
    ),
    Line(
        "sold",
        "revenue at the market rent",
        "USD",
        "the revenue without the contracts' rent: the part a break-even rent scales",
        _REVENUE.format(contract_rent="0"),
        lambda v: _revenue(v, 0.0),
    ),
    Line(
        "opex",
        "opex",
        "USD",
        "-(opex at full load less the power an idle GPU saves) x hours - the yearly lines / "
        "periods a year - software x hours, all x (1 + escalation)^year",
        "=IF(<live>=1,(-[opex_usd_per_gpu_hour]*[hours_per_period]"
        "+[power_usd_per_gpu_hour]*(1-[idle_power_fraction])*[hours_per_period]*(1-[utilisation]"
        "*[availability]*<ramp>)-(([maintenance_fraction_per_year]+[insurance_fraction_per_year])"
        "*[capex_per_gpu]+[staff_usd_per_gpu_year])/[periods_per_year]-[software_usd_per_gpu_hour]"
        "*[hours_per_period])*(1+[opex_escalation_per_year])^<year>,0)",
        lambda v: _if(
            v["live"] == 1,
            (
                -v["opex_usd_per_gpu_hour"] * v["hours_per_period"]
                + v["power_usd_per_gpu_hour"]
                * (1 - v["idle_power_fraction"])
                * v["hours_per_period"]
                * (1 - v["utilisation"] * v["availability"] * v["ramp"])
                - (
                    (v["maintenance_fraction_per_year"] + v["insurance_fraction_per_year"])
                    * v["capex_per_gpu"]
                    + v["staff_usd_per_gpu_year"]
                )
                / v["periods_per_year"]
                - v["software_usd_per_gpu_hour"] * v["hours_per_period"]
            )
            * (1 + v["opex_escalation_per_year"]) ** v["year"],
        ),
    ),
    Line(
        "power_use",
        "power an idle GPU saves, per unit of utilisation",
        "USD",
        "the slope of the opex in the utilisation (the break-even utilisation reads it)",
        "=IF(<live>=1,[power_usd_per_gpu_hour]*(1-[idle_power_fraction])*[hours_per_period]"
        "*[availability]*<ramp>*(1+[opex_escalation_per_year])^<year>,0)",
        lambda v: _if(
            v["live"] == 1,
            v["power_usd_per_gpu_hour"]
            * (1 - v["idle_power_fraction"])
            * v["hours_per_period"]
            * v["availability"]
            * v["ramp"]
            * (1 + v["opex_escalation_per_year"]) ** v["year"],
        ),
    ),
    Line(
        "depreciation",
        "tax depreciation (memo)",
        "USD",
        "the tax year's deduction spread over its periods",
        "=IF(<live>=1,INDEX(<deduction@all>,<year>+1)/[periods_per_year],0)",
        lambda v: _if(v["live"] == 1, v.tax_year_of("deduction", v["year"]) / v["periods_per_year"]),
    ),
    Line(
        "residual",
        "residual",
        "USD",
        "residual fraction x capex in the last period of the life",
        "=IF(<k>=[life_periods],[residual_fraction]*[capex_per_gpu],0)",
        lambda v: _if(v["k"] == v["life_periods"], v["residual_fraction"] * v["capex_per_gpu"]),
    ),
    Line(
        "loss_pool",
        "tax losses carried forward",
        "USD",
        "with tax_losses carry_forward: max(0, the pool before - taxable income), taxable income = "
        "revenue + opex - depreciation + residual (losses not yet used; what is left after the life "
        "is lost); 0 with refund",
        '=IF([tax_losses]="carry_forward",MAX(0,<loss_pool@prev>-(<revenue>+<opex>-<depreciation>+<residual>)),0)',
        lambda v: _if(v["tax_losses"] == "carry_forward", np.maximum(0.0, v.prev("loss_pool") - _taxable(v))),
    ),
    Line(
        "tax",
        "tax",
        "USD",
        "-tax rate x taxable income; with tax_losses refund a loss is a credit, with carry_forward "
        "-tax rate x max(0, taxable income - the loss pool before) (tax paid, no credit)",
        '=IF([tax_losses]="carry_forward",-MAX(0,<revenue>+<opex>-<depreciation>+<residual>-<loss_pool@prev>)*[tax_rate],'
        "(<depreciation>-(<revenue>+<opex>+<residual>))*[tax_rate])",
        lambda v: np.where(
            v["tax_losses"] == "carry_forward",
            -np.maximum(0.0, _taxable(v) - v.prev("loss_pool")) * v["tax_rate"],
            (v["depreciation"] - (v["revenue"] + v["opex"] + v["residual"])) * v["tax_rate"],
        ),
    ),
    Line(
        "capex",
        "capex",
        "USD",
        "-capex in period 0",
        "=IF(<period>=0,-[capex_per_gpu],0)",
        lambda v: -v["capex_per_gpu"] if v.number == 0 else 0.0 * v["capex_per_gpu"],
    ),
    Line(
        "net",
        "project net",
        "USD",
        "capex + revenue + opex + residual + tax",
        "=<capex>+<revenue>+<opex>+<residual>+<tax>",
        lambda v: v["capex"] + v["revenue"] + v["opex"] + v["residual"] + v["tax"],
    ),
    Line(
        "net_pv",
        "project net, discounted",
        "USD",
        "at the cost of capital, (1 + rate)^(-period / periods a year)",
        "=<net>*(1+[cost_of_capital])^(-<period>/[periods_per_year])",
        lambda v: v["net"] * (1 + v["cost_of_capital"]) ** (-v.number / v["periods_per_year"]),
    ),
    Line(
        "cumulative",
        "cumulative project net",
        "USD",
        "running sum of the project net",
        chain.year_step("cumulative").formula,
        lambda v: v.prev("cumulative") + v["net"],
    ),
    Line(
        "payback_point",
        "payback within this period",
        "periods",
        "period - 1 + what was still owed / this period's net, where the cumulative turns >= 0",
        chain.year_step("payback_point").formula.replace("<year>", "<period>"),
        lambda v: _if(
            (v.prev("cumulative") < 0) & (v["cumulative"] >= 0),
            v.number - 1 - v.prev("cumulative") / np.where(v["net"] == 0, np.nan, v["net"]),
            np.nan,
        ),
    ),
    Line(
        "cfads",
        "CFADS",
        "USD",
        "cash available for debt service: revenue + opex + tax",
        "=<revenue>+<opex>+<tax>",
        lambda v: v["revenue"] + v["opex"] + v["tax"],
    ),
    Line(
        "sculpt_count",
        "sculpted periods so far",
        "",
        "m(k): the repayment periods (grace < k <= tenor) with CFADS > 0 up to this one",
        "=<sculpt_count@prev>+IF(AND(<live>=1,<k>>[grace_periods],<k><=[tenor_periods],<cfads>>0),1,0)",
        lambda v: v.prev("sculpt_count") + _sculpted_period(v),
    ),
    Line(
        "sculpt_log",
        "sculpted periods' rates, compounded",
        "",
        "the sum of LN(1 + the period's rate) over the repayment periods with CFADS > 0 up to this "
        "one (floating debt discounts the sculpted CFADS by EXP(-it))",
        "=<sculpt_log@prev>+IF(AND(<live>=1,<k>>[grace_periods],<k><=[tenor_periods],<cfads>>0),LN(1+<period_rate>),0)",
        lambda v: v.prev("sculpt_log") + _if(_sculpted_period(v) == 1, np.log1p(v["period_rate"])),
    ),
    Line(
        "sculpt_pv",
        "sculpted CFADS, PV",
        "USD",
        "CFADS x (1 + period rate)^(-m(k)) in the repayment periods with CFADS > 0; floating, "
        "CFADS x EXP(-the sculpted periods' rates compounded)",
        "=IF(AND(<live>=1,<k>>[grace_periods],<k><=[tenor_periods],<cfads>>0),"
        '<cfads>*IF([debt_rate_basis]="floating",EXP(-<sculpt_log>),(1+[debt_period_rate])^(-<sculpt_count>)),0)',
        lambda v: _if(
            _sculpted_period(v) == 1,
            v["cfads"]
            * np.where(
                v["debt_rate_basis"] == "floating",
                np.exp(-v["sculpt_log"]),
                (1 + v["debt_period_rate"]) ** (-v["sculpt_count"]),
            ),
        ),
    ),
    Line(
        "debt_scale",
        "debt scale (sizing)",
        "fraction",
        "1, or with debt_sizing dscr the largest debt whose sculpted cover is target_dscr: "
        "min(1, the sculpt PVs summed / target_dscr / the debt at in-service) (1 where no repayment "
        "period has CFADS > 0)",
        '=IF(AND([debt_sizing]="dscr",[debt_at_in_service]>0,SUM(<sculpt_pv@all>)>0),'
        "MIN(1,SUM(<sculpt_pv@all>)/[target_dscr]/[debt_at_in_service]),1)",
        lambda v: _debt_scale(v),
    ),
    Line(
        "sculpt_cover",
        "sculpted cover",
        "ratio",
        "c = the sculpt PVs summed / the debt at in-service x the debt scale (0 without debt or "
        "without a repayment period with CFADS > 0): sculpted service = CFADS / c repays the debt at "
        "maturity",
        "=IF(AND([debt_at_in_service]>0,SUM(<sculpt_pv@all>)>0),"
        "SUM(<sculpt_pv@all>)/([debt_at_in_service]*<debt_scale>),0)",
        lambda v: np.divide(
            v.all("sculpt_pv").sum(axis=0),
            v["debt_at_in_service"] * v["debt_scale"],
            out=np.zeros_like(v["debt_at_in_service"]),
            where=(v["debt_at_in_service"] > 0) & (v.all("sculpt_pv").sum(axis=0) > 0),
        ),
    ),
    Line(
        "drawn",
        "debt drawn",
        "USD",
        "the debt, drawn with the capex in period 0 (x the debt scale)",
        "=IF(<period>=0,[debt_drawn_usd_per_gpu]*<debt_scale>,0)",
        lambda v: (
            v["debt_drawn_usd_per_gpu"] * v["debt_scale"] if v.number == 0 else 0.0 * v["capex_per_gpu"]
        ),
    ),
    Line(
        "opening",
        "scheduled debt at start",
        "USD",
        "during the build the drawn debt with its interest added, then the balance at in-service "
        "after j = max(0, k - 1 - grace periods) payments: level, an annuity's remaining balance; "
        "straight, less j straight principals; sculpted or floating, the balance at the end of the period before",
        "=IF(<period>=0,0,IF(<k><=1,[debt_drawn_usd_per_gpu]*<debt_scale>*(1+[debt_period_rate])^(<period>-1),"
        'IF(<k>-1<=[tenor_periods],IF(OR([debt_repayment]="sculpted",[debt_rate_basis]="floating"),<closing@prev>,IF([debt_repayment]="straight",[debt_at_in_service]'
        "-[debt_straight_principal]*MAX(0,<k>-1-[grace_periods]),"
        "[debt_at_in_service]*(1+[debt_period_rate])^MAX(0,<k>-1-[grace_periods])"
        "-IF([debt_period_rate]>0,[debt_payment]*((1+[debt_period_rate])^MAX(0,<k>-1-[grace_periods])-1)"
        "/[debt_period_rate],[debt_payment]*MAX(0,<k>-1-[grace_periods])))),0)))",
        _opening,
    ),
    Line(
        "capitalised",
        "interest capitalised (build)",
        "USD",
        "interest added to the balance during the build",
        "=IF(<k><=0,<opening>*[debt_period_rate],0)",
        lambda v: _if(v["k"] <= 0, v["opening"] * v["debt_period_rate"]),
    ),
    Line(
        "paying",
        "repaying",
        "",
        "1 in operating periods within the tenor",
        "=IF(AND(<live>=1,<k><=[tenor_periods]),1,0)",
        lambda v: _if((v["live"] == 1) & (v["k"] <= v["tenor_periods"]), 1.0),
    ),
    Line(
        "interest",
        "scheduled interest",
        "USD",
        "the opening balance x the period's rate, while repaying (the schedule, before any prepayment)",
        "=IF(<paying>=1,<opening>*<period_rate>,0)",
        lambda v: _if(v["paying"] == 1, v["opening"] * v["period_rate"]),
    ),
    Line(
        "service",
        "scheduled debt service",
        "USD",
        "the schedule before any prepayment, while repaying: the interest in the grace periods, then the level payment (level; "
        "floating, the annuity of the opening balance over the repayment periods left at the period's rate), the "
        "interest + the straight principal (straight), or CFADS / the sculpted cover where CFADS > 0 "
        "and the interest where not (sculpted)",
        '=IF(<paying>=1,IF(<k><=[grace_periods],<interest>,IF([debt_repayment]="straight",'
        '<interest>+[debt_straight_principal],IF([debt_repayment]="sculpted",'
        "IF(AND(<cfads>>0,<sculpt_cover>>0),<cfads>/<sculpt_cover>,<interest>),"
        'IF([debt_rate_basis]="floating",IF(<period_rate>>0,<opening>*<period_rate>/(1-(1+<period_rate>)'
        "^(-([repay_periods]-(<k>-1-[grace_periods])))),<opening>/([repay_periods]-(<k>-1-[grace_periods]))),"
        "[debt_payment])))),0)",
        lambda v: _if(
            v["paying"] == 1,
            _if(
                v["k"] <= v["grace_periods"],
                v["interest"],
                _if(
                    v["debt_repayment"] == "straight",
                    v["interest"] + v["debt_straight_principal"],
                    _if(v["debt_repayment"] == "sculpted", _sculpted_service(v), _level_service(v)),
                ),
            ),
        ),
    ),
    Line(
        "principal",
        "scheduled principal",
        "USD",
        "scheduled debt service - scheduled interest",
        "=<service>-<interest>",
        lambda v: v["service"] - v["interest"],
    ),
    Line(
        "closing",
        "scheduled debt at end",
        "USD",
        "opening + drawn + capitalised - scheduled principal; sculpted, 0 from the last repayment "
        "period with CFADS > 0 (repaid there: no rounding's dust left to bear interest)",
        '=IF(AND([debt_repayment]="sculpted",<k>>=1,<sculpt_count>>0,<sculpt_count>=MAX(<sculpt_count@all>)),0,'
        "<opening>+<drawn>+<capitalised>-<principal>)",
        lambda v: np.where(
            (v["debt_repayment"] == "sculpted")
            & (v["k"] >= 1)
            & (v["sculpt_count"] > 0)
            & (v["sculpt_count"] >= v.all("sculpt_count").max(axis=0)),
            0.0,
            v["opening"] + v["drawn"] + v["capitalised"] - v["principal"],
        ),
    ),
    Line(
        "service_sum",
        "service so far",
        "USD",
        "the scheduled debt service of periods 0..p summed (the reserve reads it)",
        "=<service_sum@prev>+<service>",
        lambda v: v.prev("service_sum") + v["service"],
    ),
    # the waterfall (docs/project.md "Reserve, sweep and lock-up"): what the debt is paid, the
    # reserve, the prepayments; without a reserve, sweep or lock-up it is the schedule, bit for bit
    Line(
        "service_ahead",
        "scheduled service ahead",
        "USD",
        "the scheduled debt service of the next dsra periods (p + 1 .. p + dsra periods, within the life)",
        "=INDEX(<service_sum@all>,MIN(<period>+[dsra_periods],[build_periods]+[life_periods])+1)-<service_sum>",
        lambda v: (
            _at(
                v.all("service_sum"),
                np.minimum(v.number + v["dsra_periods"], v["build_periods"] + v["life_periods"]),
            )
            - v["service_sum"]
        ),
    ),
    Line(
        "owed",
        "debt at start",
        "USD",
        "the scheduled debt at start; where prepayments are possible (prepaying), from in-service "
        "the debt at end of the period before",
        "=IF(OR([prepaying]=0,<k><=1),<opening>,<owed_end@prev>)",
        lambda v: np.where((v["prepaying"] == 0) | (v["k"] <= 1), v["opening"], v.prev("owed_end")),
    ),
    Line(
        "paid_interest",
        "interest paid",
        "USD",
        "the scheduled interest; where prepaying, the debt at start x the period rate while repaying",
        "=IF([prepaying]=0,<interest>,IF(<paying>=1,<owed>*<period_rate>,0))",
        lambda v: np.where(
            v["prepaying"] == 0, v["interest"], _if(v["paying"] == 1, v["owed"] * v["period_rate"])
        ),
    ),
    Line(
        "paid_principal",
        "principal paid",
        "USD",
        "the scheduled principal; where prepaying, at most the debt at start (a prepayment shortens "
        "the schedule from its end: inverse order of maturity), and all of it at maturity or where "
        "the schedule is repaid",
        "=IF([prepaying]=0,<principal>,IF(AND(<k>>=1,OR(<k>=[tenor_periods],<closing>=0)),<owed>,"
        "MIN(<principal>,<owed>)))",
        lambda v: np.where(
            v["prepaying"] == 0,
            v["principal"],
            np.where(
                (v["k"] >= 1) & ((v["k"] == v["tenor_periods"]) | (v["closing"] == 0)),
                v["owed"],
                np.minimum(v["principal"], v["owed"]),
            ),
        ),
    ),
    Line(
        "paid_service",
        "debt service",
        "USD",
        "interest paid + principal paid (the scheduled service without prepayments); the DSCR's denominator",
        "=IF([prepaying]=0,<service>,<paid_interest>+<paid_principal>)",
        lambda v: np.where(v["prepaying"] == 0, v["service"], v["paid_interest"] + v["paid_principal"]),
    ),
    Line(
        "dscr",
        "DSCR",
        "ratio",
        "CFADS / debt service in each period with service (empty without)",
        '=IF(<paid_service>>0,<cfads>/<paid_service>,"")',
        lambda v: np.divide(
            v["cfads"], v["paid_service"], out=np.full_like(v["cfads"], np.nan), where=v["paid_service"] > 0
        ),
    ),
    Line(
        "reserve_target",
        "reserve target",
        "USD",
        "from in-service to the period before maturity, while debt is owed after this period's "
        "principal: the scheduled service ahead; else 0 (released)",
        "=IF(AND(<k>>=0,<k><[tenor_periods],OR(<k>=0,<owed>-<paid_principal>>0)),<service_ahead>,0)",
        lambda v: _if(
            (v["k"] >= 0)
            & (v["k"] < v["tenor_periods"])
            & ((v["k"] == 0) | (v["owed"] - v["paid_principal"] > 0)),
            v["service_ahead"],
        ),
    ),
    Line(
        "reserve_draw",
        "reserve drawn",
        "USD",
        "in service, what the reserve pays of a shortfall (debt service > CFADS): min(the reserve "
        "before, the shortfall)",
        "=IF(<k>>=1,MIN(<reserve@prev>,MAX(0,<paid_service>-<cfads>)),0)",
        lambda v: _if(
            v["k"] >= 1, np.minimum(v.prev("reserve"), np.maximum(0.0, v["paid_service"] - v["cfads"]))
        ),
    ),
    Line(
        "reserve_in",
        "reserve funded",
        "USD",
        "at in-service (k = 0) the target, paid by the equity; then topped up to the target from the "
        "cash after service (at most that cash)",
        "=IF(<k>=0,<reserve_target>,IF(<k>>=1,MIN(MAX(0,<reserve_target>-(<reserve@prev>-<reserve_draw>)),"
        "MAX(0,<cfads>-<paid_service>)),0))",
        lambda v: np.where(
            v["k"] == 0,
            v["reserve_target"],
            _if(
                v["k"] >= 1,
                np.minimum(
                    np.maximum(0.0, v["reserve_target"] - (v.prev("reserve") - v["reserve_draw"])),
                    np.maximum(0.0, v["cfads"] - v["paid_service"]),
                ),
            ),
        ),
    ),
    Line(
        "reserve_out",
        "reserve released",
        "USD",
        "in service, what the reserve holds above its target after a draw, to the equity (all of it "
        "at maturity)",
        "=IF(<k>>=1,MAX(0,<reserve@prev>-<reserve_draw>-<reserve_target>),0)",
        lambda v: _if(
            v["k"] >= 1, np.maximum(0.0, v.prev("reserve") - v["reserve_draw"] - v["reserve_target"])
        ),
    ),
    Line(
        "reserve",
        "reserve at end",
        "USD",
        "the reserve before + funded - drawn - released (never below 0)",
        "=<reserve@prev>+<reserve_in>-<reserve_draw>-<reserve_out>",
        lambda v: v.prev("reserve") + v["reserve_in"] - v["reserve_draw"] - v["reserve_out"],
    ),
    Line(
        "free_cash",
        "free cash",
        "USD",
        "the cash after service and the reserve, in service: CFADS - debt service + reserve drawn - "
        "reserve funded",
        "=IF(<k>>=1,<cfads>-<paid_service>+<reserve_draw>-<reserve_in>,0)",
        lambda v: _if(v["k"] >= 1, v["cfads"] - v["paid_service"] + v["reserve_draw"] - v["reserve_in"]),
    ),
    Line(
        "locked",
        "locked up",
        "",
        "1 where lockup_dscr > 0 and the period's DSCR (CFADS / debt service) is below it, else 0",
        "=IF(AND([lockup_dscr]>0,<paid_service>>0),IF(<cfads><[lockup_dscr]*<paid_service>,1,0),0)",
        lambda v: _if(
            (v["lockup_dscr"] > 0)
            & (v["paid_service"] > 0)
            & (v["cfads"] < v["lockup_dscr"] * v["paid_service"]),
            1.0,
        ),
    ),
    Line(
        "trapped",
        "trapped, prepaid",
        "USD",
        "locked up: the cash after service and reserve (if > 0), at most the debt left after this "
        "period's principal, prepays the debt instead of going to the equity",
        "=IF(AND(<k>>=1,<locked>=1),MIN(<owed>-<paid_principal>,MAX(0,<free_cash>)),0)",
        lambda v: _if(
            (v["k"] >= 1) & (v["locked"] == 1),
            np.minimum(v["owed"] - v["paid_principal"], np.maximum(0.0, v["free_cash"])),
        ),
    ),
    Line(
        "swept",
        "swept, prepaid",
        "USD",
        "not locked up: sweep_fraction x the cash after service and reserve (if > 0), at most the "
        "debt left after this period's principal, prepays the debt",
        "=IF(AND(<k>>=1,<locked>=0,[sweep_fraction]>0),MIN(<owed>-<paid_principal>,[sweep_fraction]*MAX(0,<free_cash>)),0)",
        lambda v: _if(
            (v["k"] >= 1) & (v["locked"] == 0) & (v["sweep_fraction"] > 0),
            np.minimum(
                v["owed"] - v["paid_principal"], v["sweep_fraction"] * np.maximum(0.0, v["free_cash"])
            ),
        ),
    ),
    Line(
        "owed_end",
        "debt at end",
        "USD",
        "the scheduled debt at end; where prepaying, debt at start + drawn + capitalised - principal "
        "paid - trapped - swept",
        "=IF([prepaying]=0,<closing>,<owed>+<drawn>+<capitalised>-<paid_principal>-<trapped>-<swept>)",
        lambda v: np.where(
            v["prepaying"] == 0,
            v["closing"],
            v["owed"] + v["drawn"] + v["capitalised"] - v["paid_principal"] - v["trapped"] - v["swept"],
        ),
    ),
    Line(
        "debt_fee",
        "upfront fee",
        "USD",
        "debt_upfront_fee_fraction x the debt drawn, paid by the equity at the draw (not deducted "
        "from tax: an assumption)",
        "=IF(<period>=0,[debt_upfront_fee_fraction]*<drawn>,0)",
        lambda v: _if(v.number == 0, v["debt_upfront_fee_fraction"] * v["drawn"]),
    ),
    Line(
        "value_fraction",
        "GPUs' market value",
        "fraction",
        "the value curve at the period's end, t = period / periods a year years after purchase (the "
        "factors of whole years joined linearly; past the last, the last) x (1 + value_curve_shift) "
        "x (1 + value_curve_slope)^t",
        "=("
        + curves.excel_value_at("[value_curve_factors]", "<period>/[periods_per_year]")
        + ")*"
        + curves.excel_moved("[value_curve_shift]", "[value_curve_slope]", "<period>/[periods_per_year]"),
        lambda v: (
            curves.value_at(v["value_curve"], v.number / v["periods_per_year"])
            * curves.moved(v["value_curve_shift"], v["value_curve_slope"], v.number / v["periods_per_year"])
        ),
    ),
    Line(
        "collateral",
        "collateral value",
        "USD",
        "market value fraction x capex",
        "=<value_fraction>*[capex_per_gpu]",
        lambda v: v["value_fraction"] * v["capex_per_gpu"],
    ),
    Line(
        "ltv",
        "loan to value",
        "ratio",
        "debt at end / collateral value (0 without debt, and from the end of the tenor: repaid)",
        "=IF(AND(<owed_end>>0,<k><[tenor_periods]),<owed_end>/<collateral>,0)",
        lambda v: np.divide(
            v["owed_end"],
            v["collateral"],
            out=np.zeros_like(v["owed_end"]),
            where=(v["owed_end"] > 0) & (v["k"] < v["tenor_periods"]),
        ),
    ),
    Line(
        "ltv_breach",
        "LTV above the covenant",
        "",
        "1 where a covenant is set (max_ltv_covenant > 0) and the LTV is above it",
        "=IF(AND([max_ltv_covenant]>0,<ltv>>[max_ltv_covenant]),1,0)",
        lambda v: _if((v["max_ltv_covenant"] > 0) & (v["ltv"] > v["max_ltv_covenant"]), 1.0),
    ),
    Line(
        "recovery",
        "recovery if sold",
        "USD",
        "what the lender recovers if the GPUs are sold at the period's end: the smaller of the "
        "collateral value and the debt",
        "=MIN(<collateral>,<owed_end>)",
        lambda v: np.minimum(v["collateral"], v["owed_end"]),
    ),
    Line(
        "shield",
        "interest tax shield",
        "USD",
        "tax rate x interest paid",
        "=[tax_rate]*<paid_interest>",
        lambda v: v["tax_rate"] * v["paid_interest"],
    ),
    Line(
        "equity",
        "equity net",
        "USD",
        "project net + debt drawn - debt service + interest tax shield - upfront fee - reserve "
        "funded + reserve drawn + reserve released - trapped - swept",
        "=<net>+<drawn>-<paid_service>+<shield>-<debt_fee>-<reserve_in>+<reserve_draw>+<reserve_out>-<trapped>-<swept>",
        lambda v: (
            v["net"]
            + v["drawn"]
            - v["paid_service"]
            + v["shield"]
            - v["debt_fee"]
            - v["reserve_in"]
            + v["reserve_draw"]
            + v["reserve_out"]
            - v["trapped"]
            - v["swept"]
        ),
    ),
    Line(
        "loan_log",
        "debt rates compounded from in-service",
        "",
        "the sum of LN(1 + the period's rate) over the operating periods up to this one (floating "
        "debt discounts the LLCR's and PLCR's CFADS by EXP(-it))",
        "=<loan_log@prev>+IF(<k>>=1,LN(1+<period_rate>),0)",
        lambda v: v.prev("loan_log") + _if(v["k"] >= 1, np.log1p(v["period_rate"])),
    ),
    Line(
        "loan_discount",
        "debt discount factor to in-service",
        "fraction",
        "(1 + debt rate)^(-k / periods a year); floating, EXP(-the rates compounded from in-service)",
        '=IF([debt_rate_basis]="floating",EXP(-<loan_log>),(1+[debt_rate])^(-<k>/[periods_per_year]))',
        lambda v: np.where(
            v["debt_rate_basis"] == "floating",
            np.exp(-v["loan_log"]),
            (1 + v["debt_rate"]) ** (-v["k"] / v["periods_per_year"]),
        ),
    ),
    Line(
        "cfads_loan_pv",
        "CFADS of the loan's life, at in-service",
        "USD",
        "CFADS x the debt discount factor in the periods with debt service (the LLCR's numerator summed)",
        "=IF(<paid_service>>0,<cfads>*<loan_discount>,0)",
        lambda v: _if(v["paid_service"] > 0, v["cfads"] * v["loan_discount"]),
    ),
    Line(
        "cfads_life_pv",
        "CFADS of the project's life, at in-service",
        "USD",
        "CFADS x the debt discount factor (the PLCR's numerator summed)",
        "=<cfads>*<loan_discount>",
        lambda v: v["cfads"] * v["loan_discount"],
    ),
    Line(
        "cum_equity",
        "cumulative equity",
        "USD",
        "running sum of the equity net",
        "=SUM(<equity@0:p>)",
        lambda v: v.upto("equity").sum(axis=0),
    ),
    Line(
        "equity_pv",
        "equity net, discounted",
        "USD",
        "at the cost of equity",
        "=<equity>*(1+[cost_of_equity])^(-<period>/[periods_per_year])",
        lambda v: v["equity"] * (1 + v["cost_of_equity"]) ** (-v.number / v["periods_per_year"]),
    ),
    Line(
        "cum_equity_pv",
        "cumulative equity, discounted",
        "USD",
        "running sum of the discounted equity net",
        "=SUM(<equity_pv@0:p>)",
        lambda v: v.upto("equity_pv").sum(axis=0),
    ),
]

_ALL = {x.key: x for x in (*SCALARS, *TAX_LINES, *PERIOD_LINES)}


def line(key: str) -> Line:
    """The line (or scalar) ``key``."""
    return _ALL[key]


def is_line(key: str) -> bool:
    return key in _ALL


def table_of(key: str) -> str:
    """Which table ``key`` is in: "scalar", "tax" or "period"."""
    if any(x.key == key for x in SCALARS):
        return "scalar"
    return "tax" if any(x.key == key for x in TAX_LINES) else "period"


def place(
    name: str,
    at: str,
    n: int,
    first: int,
    last: int,
    one: Callable[[int], str],
    span: Callable[[int, int, bool], str],
    where: str,
) -> str | None:
    """Where ``<name@at>`` of a template points from row ``n`` of a table whose rows of ``name``
    run ``first``..``last``: ``one(i)`` names row i, ``span(a, b, whole)`` rows a..b (``whole``
    for the full line). None for ``at`` "" (this row, which each table places its own way); a
    spec other than all, 0:p, 1:t or prev has no place in ``where``. The one reading of the
    specs, for the finance workbook's period table and the scenario rows' cells.

    >>> place("x", "prev", 0, 0, 9, str, None, "t"), place("x", "0:p", 3, 0, 9, str, lambda a, b, w: f"{a}:{b}", "t")
    ('0', '0:3')
    """
    if at == "all":
        return span(first, last, True)
    if at in ("0:p", "1:t"):
        return span(first, n, False)
    if at == "prev":
        return "0" if n == first else one(n - 1)
    if at:
        raise ValueError(f"<{name}@{at}> has no place in {where}")
    return None


class Period:
    """The values :func:`evaluate` has for one period (or tax year) ``number``: scalars, this
    period's lines, and every earlier period's."""

    def __init__(self, scalars: dict, done: dict[str, list], number: int, tax: dict[str, np.ndarray]):
        self.scalars, self.done, self.number, self.tax = scalars, done, number, tax
        self.now: dict[str, np.ndarray] = {}

    def __getitem__(self, name: str):
        if name in self.now:
            return self.now[name]
        if name in self.done and len(self.done[name]) > self.number:  # a line of an earlier block
            return self.done[name][self.number]
        return self.scalars[name]

    def prev(self, name: str):
        got = self.done[name]
        return got[self.number - 1] if self.number else np.zeros_like(self.scalars["capex_per_gpu"])

    def upto(self, name: str) -> np.ndarray:
        return np.array([*self.done[name][: self.number], self[name]])

    def all(self, name: str) -> np.ndarray:
        """Every period of a line of an earlier block (:func:`blocks`)."""
        return np.array(self.done[name])

    def tax_year_of(self, name: str, year) -> np.ndarray:
        """``name`` of tax year ``year + 1`` (0-based ``year``), row by row (0 beyond the table)."""
        table = self.tax[name]
        index = np.clip(np.asarray(year, dtype=int), 0, table.shape[0] - 1)
        got = np.take_along_axis(table, index[None, :], axis=0)[0]
        return np.where(np.asarray(year) < table.shape[0], got, 0.0)


def blocks() -> list[list[Line]]:
    """:data:`PERIOD_LINES` in blocks computed one after the other over every period: a line that
    reads ``<x@all>`` of a period line starts a block (x's block is complete by then)."""
    out: list[list[Line]] = [[]]
    keys: set[str] = set()
    for x in PERIOD_LINES:
        if any(f"<{k}@all>" in x.formula for k in keys):
            out.append([])
            keys = set()
        out[-1].append(x)
        keys.add(x.key)
    return out


def evaluate(t: Mapping[str, np.ndarray], periods: int | None = None) -> dict[str, np.ndarray]:
    """Every line of the projects of checked terms ``t`` (:func:`gputco.udfs.project.terms`;
    :func:`gputco.udfs.project.period_lines` takes the inputs), from the lines' Python
    computations: each scalar (rows,), each tax line (TAX_YEARS, rows), each period line
    (periods, rows), periods 0..``periods`` - 1 (default: the longest build + life of the rows,
    + 1). As the workbooks' formulas compute them, in Python."""
    n = t["capex_per_gpu"].size
    scalars: dict[str, Any] = {
        k: np.asarray(v, dtype=float)
        for k, v in t.items()
        if k not in ("ppy", "method", "repayment", "sizing", "losses", "rate_basis")
    }
    scalars["debt_rate_basis"] = np.array(RATE_BASES, dtype=object)[t["rate_basis"]].astype(str)
    scalars["tax_losses"] = np.array(TAX_LOSSES, dtype=object)[t["losses"]].astype(str)
    scalars["debt_sizing"] = np.array(SIZINGS, dtype=object)[t["sizing"]].astype(str)
    scalars["debt_repayment"] = np.array(REPAYMENTS, dtype=object)[t["repayment"]].astype(str)
    scalars["periods"] = np.where(t["ppy"] == 12, "month", "year")
    scalars["depreciation_method"] = np.array(DEPRECIATION_METHODS, dtype=object)[t["method"]].astype(str)
    assert scalars["periods"].shape == (n,)
    one = Period(scalars, {}, 0, {})
    for x in SCALARS:
        scalars[x.key] = x.func(one)
    tax: dict[str, np.ndarray] = {}
    done: dict[str, list] = {x.key: [] for x in TAX_LINES}
    for year in range(1, TAX_YEARS + 1):
        v = Period(scalars, done, year, tax)
        for x in TAX_LINES:
            v.now[x.key] = np.broadcast_to(np.asarray(x.func(v), dtype=float), (n,))
        for k, got in v.now.items():
            done[k].append(got)
    tax = {k: np.array(got) for k, got in done.items()}
    if periods is None:
        periods = int(np.max(scalars["build_periods"] + scalars["life_periods"])) + 1
    done = {x.key: [] for x in PERIOD_LINES}
    for block in blocks():
        for p in range(periods):
            v = Period(scalars, done, p, tax)
            for x in block:
                v.now[x.key] = np.broadcast_to(np.asarray(x.func(v), dtype=float), (n,))
            for k, got in v.now.items():
                done[k].append(got)
    return {**scalars, **tax, **{k: np.array(got) for k, got in done.items()}}
