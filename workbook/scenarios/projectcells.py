"""The cluster as a financed project along a scenario row, in native formulas.

The project's lines are written once (:mod:`gputco.udfs.periodlines`); the finance workbook lays
them out as a period table per system (:mod:`gputco.workbook.finance.projectflows`: one row per
period, one column per line). A scenario row carries the same lines turned on their side: one
cell per period 0..P of the few lines other cells read (:data:`CELLS`), each the line's template
through the chain's one expander (:func:`gputco.udfs.chain.expand`) with ``<period>`` the
period's number, ``[m]`` the row's quantity ``m`` and every other line inlined for the same
period; the tax years' MACRS rates and deductions (1..15) the same way. The row's project terms
as used are :data:`gputco.udfs.periodlines.SCALARS` (:data:`SCALARS`). Written here: the
results read from the cells (:func:`result_formulas`); tests/test_scenarios_project.py holds
them equal to ``gputco.udfs.scenario.evaluate``.

>>> period_formula("live", 3, 12)
'=IF(AND((3-[build_periods])>=1,(3-[build_periods])<=[life_periods]),1,0)'
>>> "[net_p1]:[net_p12]" in result_formulas(12)["npv_usd_per_gpu"]
True
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from gputco.udfs import chain, periodlines, project
from gputco.workbook.finance import projectflows

#: the terms with a cell per period (the others are inlined where they are read)
CELLS = (
    "live",
    "year",
    "ramp",
    "contract",
    "revenue",
    "opex",
    "loss_pool",
    "tax",
    "net",
    "cumulative",
    "payback_point",
    "cfads",
    "period_rate",
    "sculpt_count",
    "sculpt_log",
    "sculpt_pv",
    "interest",
    "closing",
    "equity",
    "cum_equity",
    "dscr",
    "loan_log",
    "cfads_loan_pv",
    "cfads_life_pv",
    "ltv",
    "ltv_breach",
    "sold",
    "power_use",
    # the waterfall's (docs/project.md): read from the period before or read often, so that no
    # formula inlines them (not `service`: as a cell, LibreOffice left the grace months of a sculpted
    # row at 0)
    "service_sum",
    "paid_principal",
    "paid_service",
    "reserve",
    "free_cash",
    "owed_end",
)
#: the tax years 1..TAX_YEARS: the MACRS rate and the deduction of each
TAX_CELLS = ("macrs", "deduction")
TAX_YEARS = periodlines.TAX_YEARS
#: the project's terms as used, one column each (:data:`gputco.udfs.periodlines.SCALARS`)
_SCALARS = {x.key: x for x in periodlines.SCALARS}
SCALARS = tuple(_SCALARS)
#: the most rows x periods a block of rows may carry (beyond it the SPEC is refused). Measured
#: 2026-12-02 on the shared 2-core machine: 600 scenarios by month (73 periods, 43,800
#: row-periods, about 700,000 period cells) take 15 s to write and 0.9 GB; 10,000 by year (7
#: periods, 70,000 row-periods: refused now) 21 s and 2.1 GB
MAX_ROW_PERIODS = 50_000
#: what the project results say where a row's periods do not fit its cells (after an edit)
UNFIT = "cash flows need whole life and depreciation years 1..15 and at most {P} periods"
NEEDS_RENT = "needs rent_usd_per_gpu_hour (give one in the SPEC: the cash-flow columns come with it)"
NO_DEBT = projectflows.NO_DEBT
#: what a row's break-even rent and utilisation say with tax_losses carry_forward: the tax is then
#: not linear in them, their root is searched (udfs/yearflows.py), which no formula does
CARRIED = (
    "tax_losses carry_forward: the break-even is searched, not a formula's line "
    "(gputco batch and scenario.evaluate give it)"
)


def key(term: str, p: int) -> str:
    """The column key of a period's cell: ``net_p3``; a tax year's: ``deduction_t2``."""
    return f"{term}_{'t' if term in TAX_CELLS else 'p'}{p}"


def scalar_formula(name: str) -> str:
    """The template of a project term as used (``[x]``: the row's quantity x)."""
    return _SCALARS[name].formula


def scalar_label(name: str) -> tuple[str, str]:
    return _SCALARS[name].label, _SCALARS[name].unit


def period_formula(term: str, p: int, last: int) -> str:
    """The formula of line ``term`` at period ``p`` of a row with cells 0..``last`` (Layout
    dialect: ``[x]`` the row's quantity or cell x); a line without cells is inlined."""
    return _formula(term, p, last, "p")


def tax_formula(term: str, t: int) -> str:
    """The formula of tax year ``t`` (1-based) of the MACRS rate or the deduction."""
    return _formula(term, t, TAX_YEARS, "t")


def _formula(term: str, n: int, last: int, table: str) -> str:
    """Line ``term`` at period (``table`` "p") or tax year ("t") ``n``, cells 0..``last``
    (tax years 1..``last``), through the chain's one expander."""

    def cells(name: str, at: str) -> str:
        if name in ("period", "tax_year"):
            return str(n)
        first, end = (1, TAX_YEARS) if periodlines.table_of(name) == "tax" else (0, last)
        one = lambda i: f"[{key(name, i)}]"  # noqa: E731
        ref = periodlines.place(
            name, at, n, first, end, one, lambda a, b, _: f"{one(a)}:{one(b)}", "a scenario row"
        )
        if ref is not None:
            return ref
        if name in CELLS or name in TAX_CELLS:
            return f"[{key(name, n)}]"
        return "(" + _formula(name, n, last, table)[1:] + ")"

    return chain.expand(periodlines.line(term).formula, lambda m: f"[{m}]", cells)


def _range(term: str, first: int, last: int) -> str:
    return f"[{key(term, first)}]:[{key(term, last)}]"


def _npv(term: str, rate: str, last: int) -> str:
    """Period 0 + NPV at the period rate (1 + annual)^(1/ppy) - 1 of periods 1..last."""
    return f"[{key(term, 0)}]+NPV((1+[{rate}])^(1/[periods_per_year])-1,{_range(term, 1, last)})"


def _irr(term: str, last: int) -> str:
    """The annual effective IRR of the periods, Excel's IRR started at the chain's guess (-50%
    when the undiscounted sum is a loss, else 10%) per period."""
    flows = _range(term, 0, last)
    guess = f"(1+IF(SUM({flows})<0,-0.5,0.1))^(1/[periods_per_year])-1"
    return f"(1+IRR({flows},{guess}))^[periods_per_year]-1"


def result_formulas(last: int) -> dict[str, str]:
    """The rent-or-buy results and :data:`gputco.udfs.chain.PROJECT_OUTPUTS` of a row with
    period cells 0..``last``, guarded (no rent, inputs that do not fit together, periods beyond
    the cells: a text saying so)."""
    per_rent = f"({_npv('sold', 'cost_of_capital', last)})/[rent_usd_per_gpu_hour]*(1-[tax_rate])"
    power = f"({_npv('power_use', 'cost_of_capital', last)})*(1-[tax_rate])"
    slope = f"(([npv_per_unit_rent]*[rent_usd_per_gpu_hour]-[utilisation]*{power})/[utilisation])"
    util = f"[utilisation]-[npv_usd_per_gpu]/{slope}"
    scale = "(" + period_formula("debt_scale", 0, last)[1:] + ")" if last else "1"
    out = {
        "npv_usd_per_gpu": _npv("net", "cost_of_capital", last),
        "irr": _irr("net", last),
        "payback_years": f'IF(COUNT({_range("payback_point", 0, last)})=0,"no payback within life",'
        f"MIN({_range('payback_point', 0, last)})/[periods_per_year])",
        "npv_per_unit_rent": per_rent,
        "breakeven_rent_usd_per_gpu_hour": f'IF([tax_losses]="carry_forward","{CARRIED}",'
        + chain.step("breakeven_rent_usd_per_gpu_hour").formula[1:]
        + ")",
        "breakeven_utilisation": f'IF([tax_losses]="carry_forward","{CARRIED}",'
        f'IF(AND({util}>0,{util}<=1),{util},"no utilisation in (0, 1] breaks even"))',
        "equity_irr": _irr("equity", last),
        "equity_npv_usd_per_gpu": _npv("equity", "cost_of_equity", last),
        "min_dscr": f'IF([debt_payment]>0,MIN({_range("dscr", 0, last)}),"{NO_DEBT}")',
        "peak_funding_usd_per_gpu": f"MIN(0,MIN({_range('cum_equity', 0, last)}))",
        "avg_dscr": f'IF([debt_payment]>0,AVERAGE({_range("dscr", 0, last)}),"{NO_DEBT}")',
        "llcr": f"IF([debt_payment]>0,SUM({_range('cfads_loan_pv', 0, last)})/([debt_at_in_service]*{scale}),"
        f'"{NO_DEBT}")',
        "plcr": f"IF([debt_payment]>0,SUM({_range('cfads_life_pv', 0, last)})/([debt_at_in_service]*{scale}),"
        f'"{NO_DEBT}")',
        "dscr_breach_periods": f'IF([debt_payment]>0,COUNTIF({_range("dscr", 0, last)},"<"&[covenant_dscr]),'
        f'"{NO_DEBT}")',
        "debt_usd_per_gpu": f"[debt_drawn_usd_per_gpu]*{scale}",
        "max_ltv": f'IF([debt_drawn_usd_per_gpu]>0,MAX({_range("ltv", 0, last)}),"{NO_DEBT}")',
        "ltv_at_maturity": f"IF([debt_drawn_usd_per_gpu]>0,INDEX({_range('ltv', 0, last)},"
        f'[build_periods]+[tenor_periods]+1),"{NO_DEBT}")',
        "ltv_breach_periods": f"SUM({_range('ltv_breach', 0, last)})",
    }
    for name, (_label, _unit, _how, per_gpu) in chain.PROJECT_OUTPUTS.items():
        if name.startswith("cluster_"):
            out[name] = f"[{per_gpu}]*[cluster_gpus_installed]"
    cover = "(" + period_formula("sculpt_cover", 0, last)[1:] + ")" if last else "0"
    on_debt = {*project.ON_DEBT, "cluster_equity_npv_usd", "cluster_peak_funding_usd"}
    return {
        k: _guarded(periodlines.unpayable("=" + v, cover)[1:] if k in on_debt else v, last)
        for k, v in out.items()
    }


def _guarded(formula: str, last: int) -> str:
    if not last:
        return f'="{NEEDS_RENT}"'
    whole = ",".join(
        f"[{n}]<>INT([{n}]),[{n}]<1,[{n}]>{TAX_YEARS}" for n in ("life_years", "depreciation_years")
    )
    return (
        f'=IF(NOT(ISNUMBER([rent_usd_per_gpu_hour])),"needs rent_usd_per_gpu_hour",'
        f'IF([project_inputs_check]<>"",[project_inputs_check],'
        f'IF(OR({whole},[build_periods]+[life_periods]>{last}),"{UNFIT.format(P=last)}",{formula})))'
    )


def _texts(value) -> list[str]:
    if value is None:
        return []
    if hasattr(value, "categories"):
        return [str(c) for c in value.categories]
    if isinstance(value, str):
        return [value]
    return [str(v) for v in value]


def last_period(inputs: Mapping[str, object]) -> int:
    """The last period a block's cells need: the longest build + life of its rows in periods
    (``inputs`` as for :func:`gputco.udfs.scenario.evaluate`); 0 (no cells) where no row gives a
    rent.

    >>> last_period({"system": "H100_HGX", "mfu": 0.4, "rent_usd_per_gpu_hour": 2.0,
    ...              "life_years": 4, "build_months": [0, 6], "periods": "month"})
    54
    >>> last_period({"system": "H100_HGX", "mfu": 0.4, "periods": "year"})
    0
    """
    from gputco.udfs import scenario

    used = scenario.used_inputs(inputs)
    if np.isnan(np.asarray(used["rent_usd_per_gpu_hour"], dtype=float)).all():
        return 0
    ppy = max(
        project.PERIODS[project.choice("periods", t)] for t in _texts(inputs.get("periods")) or ["year"]
    )
    build = float(np.max(used["build_months"])) * ppy / 12
    life = min(float(np.max(used["life_years"])), project.MAX_LIFE)
    return int(math.ceil(build) + math.ceil(life) * ppy)


def uses_project(names) -> bool:
    """Does a SPEC that sets ``names`` need the project's cells?"""
    return any(n in project.PROJECT_INPUTS for n in names)
