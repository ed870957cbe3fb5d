"""The buyer's decisions: delivered GPU-hours, rent against buy, cash flows with NPV, IRR, payback.

Per GPU, in USD, hours of 8,760 a year, end-of-year cash flows as Excel's PMT/NPV/IRR assume.

- Delivered cost per GPU-hour = TCO per GPU-hour / (availability x utilisation): the cost of an
  hour that is up and used (or sold).
- Break-even utilisation of owning against renting at ``rent`` = TCO / (availability x rent).
- MFU-adjusted rent parity = reference rent x mfu / reference_mfu: the price at which a cloud
  reaching ``mfu`` gives the same cost per token as the reference reaching ``reference_mfu``.
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
from . import chain
from .errors import NoSolutionError
from .finance import HOURS_PER_YEAR

#: the longest life a cash-flow table has (years 0..MAX_LIFE)
MAX_LIFE = 15
YEARS = np.arange(MAX_LIFE + 1, dtype=float)


def tco_delivered_gpu_hour(gpu_hour_usd, availability=1.0, utilisation=1.0):
    """TCO per GPU-hour actually available and used: ``gpu_hour_usd / (availability x utilisation)``.

    >>> round(tco_delivered_gpu_hour(2.2494, 64 / 72, 0.9), 4)
    2.8118
    """
    chk.broadcast(gpu_hour_usd=gpu_hour_usd, availability=availability, utilisation=utilisation)
    usd = chk.checked("gpu_hour_usd", gpu_hour_usd)
    a = chk.checked("availability", availability)
    u = chk.checked("utilisation", utilisation)
    return chk.out(usd / (a * u))


def tco_breakeven_utilisation(gpu_hour_usd, rent_usd_per_gpu_hour, availability=1.0):
    """Utilisation above which owning beats renting: ``TCO / (availability x rent)``.

    Above 1: renting is cheaper even at full use.

    >>> round(tco_breakeven_utilisation(1.42, 2.0, 0.9), 4)
    0.7889
    """
    chk.broadcast(
        gpu_hour_usd=gpu_hour_usd, rent_usd_per_gpu_hour=rent_usd_per_gpu_hour, availability=availability
    )
    usd = chk.checked("gpu_hour_usd", gpu_hour_usd)
    rent = chk.checked("rent_usd_per_gpu_hour", rent_usd_per_gpu_hour)
    a = chk.checked("availability", availability)
    return chk.out(usd / (a * rent))


def tco_rent_parity(rent_usd_per_gpu_hour, mfu, reference_mfu):
    """The rent at which a cloud reaching ``mfu`` costs the same per token as the reference
    reaching ``reference_mfu`` at ``rent``: ``rent x mfu / reference_mfu``.

    SemiAnalysis (2025-08): a cloud whose MFU is 10% below the market's should rent for about
    10% less to give the same performance per dollar.

    >>> round(tco_rent_parity(2.0, 0.36, 0.40), 4)
    1.8
    """
    chk.broadcast(rent_usd_per_gpu_hour=rent_usd_per_gpu_hour, mfu=mfu, reference_mfu=reference_mfu)
    rent = chk.checked("rent_usd_per_gpu_hour", rent_usd_per_gpu_hour)
    return chk.out(rent * chk.checked("mfu", mfu) / chk.checked("reference_mfu", reference_mfu))


# --- cash flows --------------------------------------------------------------------------------


def _terms(
    capex_per_gpu,
    rent_usd_per_gpu_hour,
    opex_usd_per_gpu_hour,
    life_years,
    residual_fraction,
    availability,
    utilisation,
    tax_rate,
    depreciation_years,
    rent_decline_per_year,
    opex_escalation_per_year,
    function,
):
    """The checked scalar terms of a cash-flow table, each as a column (n, 1) for broadcasting."""
    depreciation_years = life_years if depreciation_years is None else depreciation_years
    args = {
        "capex_per_gpu": capex_per_gpu,
        "rent_usd_per_gpu_hour": rent_usd_per_gpu_hour,
        "opex_usd_per_gpu_hour": opex_usd_per_gpu_hour,
        "life_years": life_years,
        "residual_fraction": residual_fraction,
        "availability": availability,
        "utilisation": utilisation,
        "tax_rate": tax_rate,
        "depreciation_years": depreciation_years,
        "rent_decline_per_year": rent_decline_per_year,
        "opex_escalation_per_year": opex_escalation_per_year,
    }
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


def cash_flow_columns(
    capex_per_gpu,
    rent_usd_per_gpu_hour,
    opex_usd_per_gpu_hour,
    life_years,
    residual_fraction=0.0,
    availability=1.0,
    utilisation=1.0,
    tax_rate=0.0,
    depreciation_years=None,
    rent_decline_per_year=0.0,
    opex_escalation_per_year=0.0,
    *,
    function="TCO_CASHFLOWS",
):
    """Every per-year column (:data:`gputco.udfs.chain.YEAR_STEPS`) as an array (scenarios, 16 years),
    years 0..15; years after the life are 0. Returns (columns, the scenarios' shape)."""
    t, shape = _terms(
        capex_per_gpu,
        rent_usd_per_gpu_hour,
        opex_usd_per_gpu_hour,
        life_years,
        residual_fraction,
        availability,
        utilisation,
        tax_rate,
        depreciation_years,
        rent_decline_per_year,
        opex_escalation_per_year,
        function,
    )
    values: dict[str, np.ndarray] = {**t, "year": YEARS.reshape(1, -1)}
    for step in chain.YEAR_STEPS:
        values[step.key] = step.func(*(values[a] for a in step.args))
    n = int(np.prod(shape)) if shape else 1
    return {s.key: np.broadcast_to(values[s.key], (n, MAX_LIFE + 1)) for s in chain.YEAR_STEPS}, shape


def _shaped(x: np.ndarray, shape: tuple) -> np.ndarray | float:
    return chk.out(x.reshape(shape) if shape else x.reshape(()))


def tco_cashflows(
    capex_per_gpu,
    rent_usd_per_gpu_hour,
    opex_usd_per_gpu_hour,
    life_years,
    residual_fraction=0.0,
    availability=1.0,
    utilisation=1.0,
    tax_rate=0.0,
    depreciation_years=None,
    rent_decline_per_year=0.0,
    opex_escalation_per_year=0.0,
):
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
    cols, shape = cash_flow_columns(
        capex_per_gpu,
        rent_usd_per_gpu_hour,
        opex_usd_per_gpu_hour,
        life_years,
        residual_fraction,
        availability,
        utilisation,
        tax_rate,
        depreciation_years,
        rent_decline_per_year,
        opex_escalation_per_year,
    )
    if shape:
        raise chk.InputShapeError("life_years", shape, "one scenario (single values) for a table")
    life = int(np.asarray(life_years))
    table = [["year", *(chain.year_step(k).heading for k in TABLE_COLUMNS)]]
    for y in range(life + 1):
        table.append([float(y), *(float(cols[k][0, y]) for k in TABLE_COLUMNS)])
    return table


#: the columns of TCO_CASHFLOWS after the year, in the documented order
TABLE_COLUMNS = ("capex_cf", "revenue", "opex_cf", "depreciation", "tax", "residual_cf", "net", "cumulative")


def _npv(net: np.ndarray, rate: np.ndarray) -> np.ndarray:
    return (net / (1.0 + rate) ** YEARS).sum(axis=1)


def tco_npv(
    capex_per_gpu,
    rent_usd_per_gpu_hour,
    opex_usd_per_gpu_hour,
    life_years,
    cost_of_capital,
    residual_fraction=0.0,
    availability=1.0,
    utilisation=1.0,
    tax_rate=0.0,
    depreciation_years=None,
    rent_decline_per_year=0.0,
    opex_escalation_per_year=0.0,
):
    """Net present value of the cash flows at the cost of capital, USD per GPU.

    Year 0 undiscounted, year t divided by (1 + cost_of_capital)^t: Excel's
    ``=net_0 + NPV(rate, net_1..net_life)``.

    >>> round(tco_npv(31250, 2.0, 0.4045, 5, 0.10), 2)
    21732.23
    """
    cols, shape = cash_flow_columns(
        capex_per_gpu,
        rent_usd_per_gpu_hour,
        opex_usd_per_gpu_hour,
        life_years,
        residual_fraction,
        availability,
        utilisation,
        tax_rate,
        depreciation_years,
        rent_decline_per_year,
        opex_escalation_per_year,
        function="TCO_NPV",
    )
    rate = chk.checked("cost_of_capital", cost_of_capital)
    r = np.broadcast_to(np.asarray(rate, dtype=float), shape).reshape(-1, 1)
    return _shaped(_npv(cols["net"], r), shape)


#: the rates NPV is evaluated at to bracket the IRR's roots, in (-100%, 1e8%], and the discount
#: factors of years 0..15 at each
_IRR_GRID = np.unique(
    np.concatenate([-1.0 + np.geomspace(1e-9, 1.0, 200)[:-1], np.geomspace(1e-9, 1e6, 400), [0.0]])
)
with np.errstate(all="ignore"):
    _IRR_DISCOUNT = (1.0 + _IRR_GRID)[:, None] ** -YEARS[None, :]
_NO_SIGN_CHANGE = "no IRR: the cash flows never change sign"
_NO_ROOT = "no IRR: NPV does not reach 0 at any rate above -100%"


def _irr_rows(net: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """The IRR of every cash-flow row (rows x years), NaN where there is none, and why ("" where
    there is one). NPV is evaluated on a grid of rates for all rows at once; each sign change is
    bisected (all at once) and where several roots exist, the one nearest the workbook's starting
    guess is taken (-50% when the undiscounted net is a loss, else 10%). Rows whose NPV overflows
    somewhere on the grid are solved one by one on the rates where it is finite."""
    net = np.asarray(net, dtype=float).reshape(-1, YEARS.size)
    n = len(net)
    out = np.full(n, np.nan)
    why = [""] * n
    changes = (net > 0).any(axis=1) & (net < 0).any(axis=1)
    with np.errstate(all="ignore"):
        values = net @ _IRR_DISCOUNT.T
    finite = np.isfinite(values).all(axis=1)
    for i in np.flatnonzero(~changes):
        why[i] = _NO_SIGN_CHANGE
    for i in np.flatnonzero(changes & ~finite):  # the same search on the finite rates
        keep = np.isfinite(values[i])
        out[i] = _nearest_roots(net[i : i + 1], values[i : i + 1, keep], _IRR_GRID[keep])[0]
    rows = np.flatnonzero(changes & finite)
    if rows.size:
        out[rows] = _nearest_roots(net[rows], values[rows])
    for i in np.flatnonzero(changes & np.isnan(out)):
        why[i] = _NO_ROOT
    return out, why


def _nearest_roots(net: np.ndarray, values: np.ndarray, grid: np.ndarray = _IRR_GRID) -> np.ndarray:
    """For rows whose NPV is finite at the rates ``grid`` (``values``: rows x rates): the root
    nearest the guess, NaN if none."""
    sign = np.sign(values)
    zr, zj = np.nonzero(sign == 0)
    cr, cj = np.nonzero(sign[:, :-1] * sign[:, 1:] < 0)
    lo, hi, flo = grid[cj], grid[cj + 1], values[cr, cj]
    active = np.ones(cr.size, dtype=bool)
    for _ in range(200):
        if not active.any():
            break
        mid = 0.5 * (lo + hi)
        with np.errstate(all="ignore"):
            fmid = (net[cr] / (1.0 + mid)[:, None] ** YEARS).sum(axis=1)
        same = np.sign(fmid) == np.sign(flo)
        lo = np.where(active & same, mid, lo)
        flo = np.where(active & same, fmid, flo)
        hi = np.where(active & ~same, mid, hi)
        active &= ~(hi - lo <= 1e-15 * np.maximum(1.0, np.abs(mid)))
    row = np.concatenate([zr, cr])
    root = np.concatenate([grid[zj], 0.5 * (lo + hi)])
    out = np.full(len(net), np.nan)
    if row.size:
        guess = np.where(net.sum(axis=1) < 0, -0.5, 0.1)[row]
        order = np.lexsort((np.abs(root - guess), row))
        first = np.unique(row[order], return_index=True)[1]
        out[row[order][first]] = root[order][first]
    return out


def tco_irr(
    capex_per_gpu,
    rent_usd_per_gpu_hour,
    opex_usd_per_gpu_hour,
    life_years,
    residual_fraction=0.0,
    availability=1.0,
    utilisation=1.0,
    tax_rate=0.0,
    depreciation_years=None,
    rent_decline_per_year=0.0,
    opex_escalation_per_year=0.0,
):
    """Internal rate of return of the cash flows (decimal per year): the rate at which NPV = 0.

    Without a sign change, or without a root, there is no IRR: the error says which. Where the
    cash flows change sign more than once and NPV has several roots, the one nearest the
    workbook's starting guess is returned (-50% when the undiscounted net is a loss, else 10%).
    Excel's IRR (Newton's method, 20 steps) can fail to reach a deeply negative IRR that this
    function finds; the workbook then shows #NUM! and its Checks row does not apply.

    >>> round(tco_irr(31250, 2.0, 0.4045, 5), 6)
    0.346027
    """
    cols, shape = cash_flow_columns(
        capex_per_gpu,
        rent_usd_per_gpu_hour,
        opex_usd_per_gpu_hour,
        life_years,
        residual_fraction,
        availability,
        utilisation,
        tax_rate,
        depreciation_years,
        rent_decline_per_year,
        opex_escalation_per_year,
        function="TCO_IRR",
    )
    out, why = _irr_rows(cols["net"])
    missing = [w for w in why if w]
    if missing:
        raise NoSolutionError(missing[0])
    return _shaped(out, shape)


def irr_or_nan(net: np.ndarray) -> np.ndarray:
    """:func:`tco_irr` per row of a net cash-flow array, NaN where there is none (batch)."""
    return _irr_rows(net)[0]


def tco_payback_years(
    capex_per_gpu,
    rent_usd_per_gpu_hour,
    opex_usd_per_gpu_hour,
    life_years,
    residual_fraction=0.0,
    availability=1.0,
    utilisation=1.0,
    tax_rate=0.0,
    depreciation_years=None,
    rent_decline_per_year=0.0,
    opex_escalation_per_year=0.0,
):
    """Years until the undiscounted cumulative net cash flow (residual included) reaches 0,
    linear within the year; an error "no payback within life" where it never does.

    >>> round(tco_payback_years(31250, 2.0, 0.4045, 5), 4)
    2.2359
    """
    cols, shape = cash_flow_columns(
        capex_per_gpu,
        rent_usd_per_gpu_hour,
        opex_usd_per_gpu_hour,
        life_years,
        residual_fraction,
        availability,
        utilisation,
        tax_rate,
        depreciation_years,
        rent_decline_per_year,
        opex_escalation_per_year,
        function="TCO_PAYBACK_YEARS",
    )
    years = np.asarray(payback_of_table(cols["payback_point"]), dtype=float).reshape(-1)
    if np.isnan(years).any():
        raise NoSolutionError("no payback within life: the cumulative cash flow stays below 0")
    return _shaped(years, shape)


def tco_breakeven_rent(
    capex_per_gpu,
    opex_usd_per_gpu_hour,
    life_years,
    cost_of_capital,
    residual_fraction=0.0,
    availability=1.0,
    utilisation=1.0,
    tax_rate=0.0,
    depreciation_years=None,
    rent_decline_per_year=0.0,
    opex_escalation_per_year=0.0,
):
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
    kw = dict(
        residual_fraction=residual_fraction,
        availability=availability,
        utilisation=utilisation,
        tax_rate=tax_rate,
        depreciation_years=depreciation_years,
        rent_decline_per_year=rent_decline_per_year,
        opex_escalation_per_year=opex_escalation_per_year,
    )
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


def year_capex(year, capex_per_gpu):
    return np.where(year == 0, -capex_per_gpu, 0.0)


def year_revenue(year, life_years, rent_usd_per_gpu_hour, availability, utilisation, rent_decline_per_year):
    live = (year >= 1) & (year <= life_years)
    with np.errstate(all="ignore"):
        growth = (1.0 - rent_decline_per_year) ** (year - 1.0)
    return np.where(live, rent_usd_per_gpu_hour * HOURS_PER_YEAR * availability * utilisation * growth, 0.0)


def year_opex(year, life_years, opex_usd_per_gpu_hour, opex_escalation_per_year):
    live = (year >= 1) & (year <= life_years)
    with np.errstate(all="ignore"):
        growth = (1.0 + opex_escalation_per_year) ** (year - 1.0)
    return np.where(live, -opex_usd_per_gpu_hour * HOURS_PER_YEAR * growth, 0.0)


def year_depreciation(year, capex_per_gpu, depreciation_years):
    return np.where((year >= 1) & (year <= depreciation_years), capex_per_gpu / depreciation_years, 0.0)


def year_residual(year, life_years, residual_fraction, capex_per_gpu):
    return np.where(year == life_years, residual_fraction * capex_per_gpu, 0.0)


def year_tax(tax_rate, revenue, opex, depreciation, residual):
    return 0.0 - tax_rate * (revenue + opex - depreciation + residual)


def year_net(capex, revenue, opex, tax, residual):
    return capex + revenue + opex + tax + residual


def year_cumulative(net):
    return np.cumsum(net, axis=-1)


def year_payback_point(year, cumulative, net):
    """Where the cumulative net turns >= 0 within a year: year - 1 + still owed / net; else NaN."""
    prev = np.concatenate([np.zeros_like(cumulative[..., :1]), cumulative[..., :-1]], axis=-1)
    with np.errstate(all="ignore"):
        point = year - 1.0 - prev / net
    return np.where((prev < 0) & (cumulative >= 0), point, np.nan)


# --- scalar summaries of the table (the chain's steps) -----------------------------------------


def _rate_column(rate, n):
    return np.broadcast_to(
        np.asarray(rate, dtype=float).reshape(-1, 1) if np.ndim(rate) else np.asarray(rate, dtype=float),
        (n, 1),
    )


def npv_of_table(net, cost_of_capital):
    """Year 0 + NPV(cost of capital, years 1..15) of a net cash-flow table (scenarios, years)."""
    net = np.asarray(net, dtype=float)
    r = chk.checked("cost_of_capital", cost_of_capital)
    return chk.out(_npv(net, _rate_column(r, len(net))))


def payback_of_table(payback_point):
    """The first payback point of each row (NaN: no payback within life)."""
    p = np.asarray(payback_point, dtype=float)
    with np.errstate(all="ignore"):
        first = np.where(np.isnan(p), np.inf, p).min(axis=-1)
    return chk.out(np.where(np.isinf(first), np.nan, first))


def npv_per_unit_rent(revenue, cost_of_capital, rent_usd_per_gpu_hour, tax_rate):
    """NPV of the after-tax revenue of $1 of rent per GPU-hour (the rent's weight in the NPV)."""
    revenue = np.asarray(revenue, dtype=float)
    r = _rate_column(chk.checked("cost_of_capital", cost_of_capital), len(revenue))
    rent = np.asarray(chk.checked("rent_usd_per_gpu_hour", rent_usd_per_gpu_hour), dtype=float)
    tax = np.asarray(chk.checked("tax_rate", tax_rate), dtype=float)
    return chk.out(_npv(revenue, r) / rent * (1.0 - tax))


def breakeven_rent_of_table(rent_usd_per_gpu_hour, npv_usd_per_gpu, npv_per_unit_rent):
    """The rent with NPV = 0: rent - NPV / (NPV of $1 of rent); NPV is linear in the rent."""
    return chk.out(
        np.asarray(rent_usd_per_gpu_hour, dtype=float)
        - np.asarray(npv_usd_per_gpu, dtype=float) / npv_per_unit_rent
    )


# --- cluster totals ----------------------------------------------------------------------------


def cluster_units(gpus, gpus_per_unit):
    """Servers or racks for ``gpus`` GPUs, rounded up."""
    chk.broadcast(gpus=gpus, gpus_per_unit=gpus_per_unit)
    g = chk.checked("gpus", gpus)
    per = chk.checked("gpus_per_unit", gpus_per_unit)
    return chk.out(np.ceil(g / per))


def cluster_capex(cluster_units, gpus_per_unit, capex_per_gpu):
    """Capex of the cluster: units x GPUs per unit x all-in capex per GPU, USD."""
    return chk.out(np.asarray(cluster_units) * gpus_per_unit * capex_per_gpu)


def cluster_it_mw(gpus, it_kw_per_gpu):
    """IT load of the cluster, MW."""
    return chk.out(
        np.asarray(chk.checked("gpus", gpus)) * chk.checked("it_kw_per_gpu", it_kw_per_gpu) / 1000.0
    )


def cluster_facility_mw(cluster_it_mw, pue):
    """Facility power of the cluster (IT x PUE), MW."""
    return chk.out(np.asarray(cluster_it_mw) * chk.checked("pue", pue))


def cluster_mwh_per_year(cluster_facility_mw):
    """Energy of the cluster in a year at full load, MWh."""
    return chk.out(np.asarray(cluster_facility_mw) * HOURS_PER_YEAR)


def cluster_per_year(usd_per_gpu_hour, gpus):
    """A cost per GPU-hour for the whole cluster for a year: x 8760 x GPUs, USD."""
    return chk.out(np.asarray(usd_per_gpu_hour) * HOURS_PER_YEAR * chk.checked("gpus", gpus))


CLUSTER_ROWS = (
    "gpus",
    "cluster_units",
    "cluster_capex_usd",
    "cluster_it_mw",
    "cluster_facility_mw",
    "cluster_mwh_per_year",
    "cluster_opex_usd_per_year",
    "cluster_tco_usd_per_year",
)


def tco_cluster(system, gpus, buyer="hyperscaler"):
    """Totals for a cluster of ``gpus`` GPUs of a system for a buyer type, as a label/value table:
    GPUs, units (servers or racks, rounded up), capex, IT MW, facility MW, MWh a year at full
    load, opex and TCO a year.

    >>> rows = tco_cluster("GB200_NVL72", 1000)
    >>> rows[2], round(rows[3][1] / 1e6, 1), round(rows[5][1], 3)
    (['cluster_units', 14.0], 54.6, 2.184)
    """
    from .scenario import evaluate  # the chain, run for this one cluster

    n = float(chk.checked("gpus", gpus))
    out = evaluate(
        {"system": chk.text("system", system), "buyer": chk.text("buyer", buyer), "gpus": [n], "mfu": [1.0]}
    )
    return [["quantity", "value"], ["gpus", n]] + [[k, float(out[k][0])] for k in CLUSTER_ROWS[1:]]
