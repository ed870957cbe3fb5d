"""The buyer's decisions: delivered GPU-hours, rent against buy, cash flows with NPV, IRR, payback.

Per GPU, in USD, hours of 8,760 a year, end-of-year cash flows as Excel's PMT/NPV/IRR assume.

- Delivered cost per GPU-hour = TCO per GPU-hour / (availability x utilisation): the cost of an
  hour that is up and used (or sold).
- Break-even utilisation = the utilisation at which NPV = 0 with every cash-flow input (NPV is a
  straight line in the utilisation: solved exactly); the cash break-even utilisation is the
  undiscounted, untaxed ratio TCO / (availability x rent).
- Rent parity = reference rent x kept tokens per second / the reference's (tokens per second x
  goodput): the rent at which renting this system costs the reference's per token, across types.
- The comparisons with a reference (break-even speed-up and MFU on the delivered cost, the verdict
  from the cost-per-Mtok ratio) are the step functions of :data:`gputco.udfs.chain.COMPARISONS`.
- Cash flows of owning one GPU and renting it out, signed as cash: year 0 = -capex; years
  1..life = revenue (rent x 8760 x availability x utilisation, falling by ``rent_decline_per_year``
  a year) - opex (opex per GPU-hour x 8760, rising by ``opex_escalation_per_year``) - tax; the
  residual value (residual_fraction x capex) in the last year. Tax = tax_rate x (revenue - opex -
  depreciation + residual), straight-line depreciation of the capex to zero over
  ``depreciation_years`` (default: the life); negative tax is a credit. The per-year columns are
  the steps of :data:`gputco.udfs.chain.YEAR_STEPS`; this module runs them.

With availability = utilisation = 1 and no tax, decline or escalation, the break-even rent equals
TCO_TOTAL_PER_GPU_HOUR (the annuity identity):

>>> capex, opex = 31250.0, 0.4044520643835616
>>> round(tco_breakeven_rent(capex, opex, 5, 0.1305), 6)
1.41994
>>> round(tco_npv(capex, 2.0, opex, 5, 0.1305), 2)
17850.43
>>> round(tco_irr(capex, 2.0, opex, 5), 6)
0.346044
>>> round(tco_payback_years(capex, 2.0, opex, 5), 4)
2.2358
"""

from __future__ import annotations

import numpy as np

from . import _check as chk
from . import chain, flows, yearflows
from .decision_steps import (  # noqa: F401 (the chain's steps, also part of this module's API)
    CHEAPER,
    NOT_CHEAPER,
    _npv,
    _rate_column,
    breakeven_mfu,
    breakeven_rent_of_table,
    breakeven_speedup,
    breakeven_utilisation_of_table,
    cluster_capex,
    cluster_facility_mw,
    cluster_gpus_installed,
    cluster_it_mw,
    cluster_mwh_per_year,
    cluster_per_year,
    cluster_units,
    irr_or_nan,
    kept_speedup,
    npv_of_table,
    npv_per_unit_rent,
    payback_of_table,
    ratio,
    rent_parity,
    tco_cash_breakeven_utilisation,
    tco_delivered_gpu_hour,
    verdict,
    year_capex,
    year_cumulative,
    year_depreciation,
    year_net,
    year_opex,
    year_payback_point,
    year_residual,
    year_revenue,
    year_tax,
)
from .errors import MissingValueError, NoSolutionError

#: the longest life a cash-flow table has (years 0..MAX_LIFE)
MAX_LIFE = 15
YEARS = np.arange(MAX_LIFE + 1, dtype=float)


#: the cash-flow inputs every TCO_ function below needs, in their order
CASH_REQUIRED = ("capex_per_gpu", "rent_usd_per_gpu_hour", "opex_usd_per_gpu_hour", "life_years")
#: the optional cash-flow inputs after them, with their defaults (None: the life)
CASH_OPTIONAL: dict[str, object] = {
    "residual_fraction": 0.0,
    "availability": 1.0,
    "utilisation": 1.0,
    "tax_rate": 0.0,
    "depreciation_years": None,
    "rent_decline_per_year": 0.0,
    "opex_escalation_per_year": 0.0,
}
#: the cash-flow inputs of the TCO_ functions below (their keyword names)
CASH_TERMS = (*CASH_REQUIRED, *CASH_OPTIONAL)


#: why a break-even utilisation is missing
NO_BREAKEVEN_UTILISATION = "no utilisation in (0, 1] breaks even"


@chk.parameters(
    (*CASH_REQUIRED, "cost_of_capital"), {k: v for k, v in CASH_OPTIONAL.items() if k != "utilisation"}
)
def tco_breakeven_utilisation(cost_of_capital, **terms):
    """The utilisation at which owning one GPU and renting it out has NPV = 0 at the cost of capital,
    with every cash-flow input (tax, rent decline, opex escalation, residual, availability).

    Only the revenue depends on the utilisation, in proportion, and the tax is a fixed share of
    the profit (a loss is a credit), so NPV is a straight line in the utilisation whose slope, the
    NPV of the after-tax revenue at full use, is positive whenever rent > 0 and tax < 1: NPV rises
    with utilisation and has one root, ``u* = 1 - NPV(u=1) / ((1 - tax) x NPV of the revenue at
    u=1)``, solved exactly (no search). Where u* is not in (0, 1] the error says
    "no utilisation in (0, 1] breaks even" (above 1: renting out never pays; at or below 0: owning
    pays at any utilisation).

    >>> round(tco_breakeven_utilisation(31250, 2.0, 0.4045, 5, 0.1305), 6)
    0.709994
    """
    cols, shape = cash_flow_columns(**terms, utilisation=1.0, function="TCO_BREAKEVEN_UTILISATION")
    rate = chk.checked("cost_of_capital", cost_of_capital)
    r = np.broadcast_to(np.asarray(rate, dtype=float), shape).reshape(-1, 1)
    tax = np.broadcast_to(np.asarray(chk.checked("tax_rate", terms["tax_rate"]), dtype=float), shape)
    tax = tax.reshape(-1)
    per_rent = _npv(cols["revenue"], r) * (1.0 - tax)
    u = breakeven_utilisation_of_table(1.0, _npv(cols["net"], r), per_rent, 1.0)
    if np.isnan(u).any():
        raise NoSolutionError(NO_BREAKEVEN_UTILISATION)
    return _shaped(u, shape)


@chk.parameters(
    ("rent_usd_per_gpu_hour", "mfu", "reference_mfu"),
    {"peak_tflops": None, "reference_peak_tflops": None, "goodput": 1.0, "reference_goodput": 1.0},
)
def tco_rent_parity(peak_tflops, reference_peak_tflops, **args):
    """The rent at which this system costs the same per token rented as the reference at ``rent``:
    ``rent x (MFU x peak x goodput) / (reference MFU x reference peak x reference goodput)``, the
    ratio of kept tokens per second on the same model.

    Without the peaks (one GPU type, two clouds) it is ``rent x mfu / reference_mfu`` (SemiAnalysis,
    2025-08: a cloud whose MFU is 10% below the market's should rent for about 10% less). Across
    types give both peaks: the GB200's higher peak makes its parity rent far above the H100's.

    >>> round(tco_rent_parity(2.0, 0.36, 0.40), 4)
    1.8
    >>> round(tco_rent_parity(2.0, 0.4184, 0.4146, 5000, 1978.9), 4)
    5.0996
    """
    if (peak_tflops is None) != (reference_peak_tflops is None):
        given, missing = (
            ("peak_tflops", "reference_peak_tflops")
            if reference_peak_tflops is None
            else ("reference_peak_tflops", "peak_tflops")
        )
        chk.checked(given, peak_tflops if reference_peak_tflops is None else reference_peak_tflops)
        raise MissingValueError(missing, "give both peaks (across types) or neither (one type)")
    if peak_tflops is not None:
        args.update(peak_tflops=peak_tflops, reference_peak_tflops=reference_peak_tflops)
    chk.broadcast(**args)
    v = {k: chk.checked(k, x) for k, x in args.items()}
    peak = v.get("peak_tflops", 1.0)
    ref_peak = v.get("reference_peak_tflops", 1.0)
    return rent_parity(
        v["rent_usd_per_gpu_hour"],
        v["mfu"] * peak,
        v["goodput"],
        v["reference_mfu"] * ref_peak,
        v["reference_goodput"],
    )


# --- comparisons with a reference system (the chain's COMPARISONS) -----------------------------


# --- cash flows --------------------------------------------------------------------------------


def _terms(given: dict, function):
    """The checked scalar terms of a cash-flow table (a mapping of :data:`CASH_TERMS`), each as a
    column (n, 1) for broadcasting."""
    args = {**given}
    if args.get("depreciation_years") is None:
        args["depreciation_years"] = args["life_years"]
    chk.broadcast(**args)
    terms = {k: chk.checked(k, v, function) for k, v in args.items()}
    life, dep = np.asarray(terms["life_years"]), np.asarray(terms["depreciation_years"])
    over = np.broadcast_to(dep > life, np.broadcast(dep, life).shape)
    if over.any():
        i = np.flatnonzero(over)[0]
        raise chk.InputRangeError(
            "depreciation_years",
            np.broadcast_to(dep, over.shape).flat[i],
            f"[1, life_years = {np.broadcast_to(life, over.shape).flat[i]:g}]",
        )
    shape = np.broadcast(*[np.asarray(v) for v in terms.values()]).shape
    return {
        k: np.broadcast_to(np.asarray(v, dtype=float), shape).reshape(-1, 1) for k, v in terms.items()
    }, shape


@chk.parameters(CASH_REQUIRED, CASH_OPTIONAL, {"function": "TCO_CASHFLOWS"})
def cash_flow_columns(function, **terms):
    """Every per-year column (:data:`gputco.udfs.chain.YEAR_STEPS`) as an array (scenarios, 16 years),
    years 0..15; years after the life are 0. Returns (columns, the scenarios' shape)."""
    t, shape = _terms(terms, function)
    values: dict[str, np.ndarray] = {**t, "year": YEARS.reshape(1, -1)}
    for step in chain.YEAR_STEPS:
        values[step.key] = step.func(*(values[a] for a in step.args))
    n = int(np.prod(shape)) if shape else 1
    return {s.key: np.broadcast_to(values[s.key], (n, MAX_LIFE + 1)) for s in chain.YEAR_STEPS}, shape


def _shaped(x: np.ndarray, shape: tuple) -> np.ndarray | float:
    return chk.out(x.reshape(shape) if shape else x.reshape(()))


@chk.parameters(CASH_REQUIRED, CASH_OPTIONAL)
def tco_cashflows(**terms):
    """The cash flows of owning one GPU and renting it out, one row per year 0..life.

    Returns
    -------
    list of lists
        A header row ``year, capex, revenue, opex, depreciation, tax, residual, net, cumulative``
        (USD; outflows negative, depreciation a positive memo), then one row per year.

    >>> rows = tco_cashflows(31250, 2.0, 0.4045, 5)
    >>> rows[0]
    ['year', 'capex', 'revenue', 'opex', 'depreciation', 'tax', 'residual', 'net', 'cumulative']
    >>> rows[1][:3], rows[2][:4], round(rows[-1][-1], 2)
    ([0.0, -31250.0, 0.0], [1.0, 0.0, 17520.0, -3543.42], 38632.9)
    """
    cols, shape = cash_flow_columns(**terms)
    if shape:
        raise chk.InputShapeError("life_years", shape, "one scenario (single values) for a table")
    life = int(np.asarray(terms["life_years"]))
    table = [["year", *(chain.year_step(k).heading for k in TABLE_COLUMNS)]]
    for y in range(life + 1):
        table.append([float(y), *(float(cols[k][0, y]) for k in TABLE_COLUMNS)])
    return table


#: the columns of TCO_CASHFLOWS after the year, in the documented order
TABLE_COLUMNS = ("capex_cf", "revenue", "opex_cf", "depreciation", "tax", "residual_cf", "net", "cumulative")


#: scenarios whose cash flows the TCO_ functions below build at once (memory stays bounded by
#: about 2 x 16 years x CHUNK_ROWS x 8 bytes whatever the size of the arrays given)
CHUNK_ROWS = 32_768


def _results(given: dict, function: str, need: tuple[str, ...], cost_of_capital=None):
    """NPV (``npv``), NPV of the revenue (``revenue_npv``), IRR (``irr`` and ``why``) and payback
    (``payback``) of the cash flows of ``given`` (the cash-flow inputs, :data:`CASH_TERMS`),
    checked as ``function``'s, chunk by chunk of :data:`CHUNK_ROWS` scenarios: flat arrays, and
    the scenarios' shape."""
    t, shape = _terms(given, function)
    n = int(np.prod(shape)) if shape else 1
    if cost_of_capital is not None:
        rate = np.broadcast_to(np.asarray(chk.checked("cost_of_capital", cost_of_capital), float), shape)
        rate = rate.reshape(-1)
    out = {k: np.empty(n) for k in need}
    if "irr" in need:
        out["why"] = np.empty(n, dtype=np.int8)
    for s in range(0, n, CHUNK_ROWS):
        e = min(s + CHUNK_ROWS, n)
        f = yearflows.by_period({k: t[k][s:e, 0] for k in CASH_TERMS}, function)
        if "npv" in need:
            out["npv"][s:e] = flows.npv(f["net"], rate[s:e], by_period=True)
        if "revenue_npv" in need:
            out["revenue_npv"][s:e] = flows.npv(f["revenue"], rate[s:e], by_period=True)
        if "irr" in need:
            out["irr"][s:e], out["why"][s:e] = flows.irr(f["net"], by_period=True)
        if "payback" in need:
            out["payback"][s:e] = flows.payback(f["net"], by_period=True)
    return out, shape


@chk.parameters((*CASH_REQUIRED, "cost_of_capital"), CASH_OPTIONAL)
def tco_npv(cost_of_capital, **terms):
    """Net present value of the cash flows at the cost of capital, USD per GPU.

    Year 0 undiscounted, year t divided by (1 + cost_of_capital)^t: Excel's
    ``=net_0 + NPV(rate, net_1..net_life)``.

    >>> round(tco_npv(31250, 2.0, 0.4045, 5, 0.10), 2)
    21732.23
    """
    out, shape = _results(terms, "TCO_NPV", ("npv",), cost_of_capital)
    return _shaped(out["npv"], shape)


@chk.parameters(CASH_REQUIRED, CASH_OPTIONAL)
def tco_irr(**terms):
    """Internal rate of return of the cash flows (decimal per year): the rate at which NPV = 0.

    Without a sign change, or without a root, there is no IRR: the error says which. Where the
    cash flows change sign more than once and NPV has several roots, the one nearest the
    workbook's starting guess is returned (-50% when the undiscounted net is a loss, else 10%).
    Excel's IRR (Newton's method, 20 steps) can fail to reach a deeply negative IRR that this
    function finds; the workbook then shows #NUM! and its Checks row does not apply.

    >>> round(tco_irr(31250, 2.0, 0.4045, 5), 6)
    0.346027
    """
    out, shape = _results(terms, "TCO_IRR", ("irr",))
    if (out["why"] != flows.FOUND).any():
        raise NoSolutionError(flows.REASONS[int(out["why"][np.argmax(out["why"] != flows.FOUND)])])
    return _shaped(out["irr"], shape)


@chk.parameters(CASH_REQUIRED, CASH_OPTIONAL)
def tco_payback_years(**terms):
    """Years until the undiscounted cumulative net cash flow (residual included) reaches 0,
    linear within the year; an error "no payback within life" where it never does.

    >>> round(tco_payback_years(31250, 2.0, 0.4045, 5), 4)
    2.2359
    """
    out, shape = _results(terms, "TCO_PAYBACK_YEARS", ("payback",))
    if np.isnan(out["payback"]).any():
        raise NoSolutionError("no payback within life: the cumulative cash flow stays below 0")
    return _shaped(out["payback"], shape)


@chk.parameters(("capex_per_gpu", "opex_usd_per_gpu_hour", "life_years", "cost_of_capital"), CASH_OPTIONAL)
def tco_breakeven_rent(capex_per_gpu, opex_usd_per_gpu_hour, life_years, cost_of_capital, **kw):
    """The rent per GPU-hour at which NPV = 0 at the cost of capital.

    NPV is linear in the rent, with slope ``S`` = the NPV of the after-tax revenue per 1 USD of rent
    (computed directly from a rent of 1, not as a difference of two NPVs); from any rent ``p``:
    ``break-even = p - NPV(p) / S``. The first estimate starts from the smallest positive rent
    (the NPV of the costs alone) and is refined once from ``p`` = that estimate, where the cash
    flows nearly cancel, so extreme in-range inputs keep full precision. A slope of 0
    (availability x utilisation so small that no rent can pay) has no break-even.

    >>> round(tco_breakeven_rent(31250, 0.4044520643835616, 5, 0.1305), 6)
    1.41994
    """
    args = (capex_per_gpu, opex_usd_per_gpu_hour, life_years, cost_of_capital)
    _, slope, shape = _npv_and_slope(1.0, *args, **kw)
    tiny = np.finfo(float).tiny  # a rent whose revenue is nothing beside the costs
    costs, _, _ = _npv_and_slope(tiny, *args, **kw)
    with np.errstate(all="ignore"):
        if not np.all(slope > 0):
            raise NoSolutionError(
                "no break-even rent: the revenue of any rent discounts to 0 (availability x "
                "utilisation x 8760 h, discounted over the life, is too small)"
            )
        estimate = tiny - costs / slope
        probe = np.where(np.isfinite(estimate) & (estimate > 0), estimate, 1.0)
    at_probe, _, _ = _npv_and_slope(probe.reshape(shape) if shape else float(probe[0]), *args, **kw)
    return _shaped(probe - at_probe / slope, shape)


def _npv_and_slope(rent, capex, opex, life, rate, **kw):
    """(NPV at ``rent``, d NPV / d rent, shape) per scenario, both as flat arrays."""
    cols, shape = cash_flow_columns(capex, rent, opex, life, function="TCO_BREAKEVEN_RENT", **kw)
    r = chk.checked("cost_of_capital", rate)
    r = np.broadcast_to(np.asarray(r, dtype=float), shape).reshape(-1, 1)
    rents = np.broadcast_to(np.asarray(rent, dtype=float), shape).reshape(-1, 1)
    with np.errstate(all="ignore"):
        per_rent = cols["revenue"] / rents * (1.0 - _tax(kw, shape))  # revenue is linear in the rent
    return _npv(cols["net"], r), _npv(per_rent, r), shape


def _tax(kw, shape):
    t = np.asarray(kw.get("tax_rate", 0.0), dtype=float)
    return np.broadcast_to(t, shape).reshape(-1, 1)


# --- step functions of the chain's per-year table ---------------------------------------------


# --- scalar summaries of the table (the chain's steps) -----------------------------------------


# --- cluster totals ----------------------------------------------------------------------------


CLUSTER_ROWS = (
    "gpus",
    "cluster_units",
    "cluster_gpus_installed",
    "cluster_capex_usd",
    "cluster_it_mw",
    "cluster_facility_mw",
    "cluster_mwh_per_year",
    "cluster_opex_usd_per_year",
    "cluster_tco_usd_per_year",
)


def tco_cluster(system, gpus, buyer="hyperscaler"):
    """Totals for a cluster of ``gpus`` GPUs of a system for a buyer type, as a label/value table:
    GPUs typed, units (servers or racks, rounded up), GPUs installed (units x GPUs per unit),
    and on the GPUs installed: capex, IT MW, facility MW, MWh a year at full load, opex and TCO a
    year.

    >>> rows = tco_cluster("GB200_NVL72", 1000)
    >>> rows[2], rows[3], round(rows[4][1] / 1e6, 1), round(rows[6][1], 3)
    (['cluster_units', 14.0], ['cluster_gpus_installed', 1008.0], 54.6, 2.202)
    """
    from .scenario import evaluate  # the chain, run for this one cluster

    system, buyer = chk.text("system", system), chk.text("buyer", buyer)
    g = chk.checked("gpus", gpus)
    if np.ndim(g):
        raise chk.InputShapeError("gpus", np.shape(g), "one number of GPUs for a table")
    n = float(g)
    out = evaluate({"system": system, "buyer": buyer, "gpus": [n], "mfu": [1.0]})
    return [["quantity", "value"], ["gpus", n]] + [[k, float(out[k][0])] for k in CLUSTER_ROWS[1:]]
