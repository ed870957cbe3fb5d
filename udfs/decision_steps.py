"""The decision steps of the chain: functions of arrays (per year, per scenario, per cluster)
that :mod:`gputco.udfs.chain` composes; no presets and no chain here, so the chain can import them
and :mod:`gputco.udfs.decisions` (the TCO_ functions, which run the chain) can use them too.
"""

from __future__ import annotations

import numpy as np

from . import _check as chk
from . import flows
from .finance import HOURS_PER_YEAR

CHEAPER, NOT_CHEAPER = "cheaper per token", "not cheaper per token"
#: what the break-even rent says where no GPU-hour is sold at the market rent (every GPU under
#: contract for the whole life): the workbooks' text and batch's breakeven_rent_why
NO_MARKET_RENT = "no market rent: every GPU is under contract for the whole life"


@chk.broadcasting
def tco_delivered_gpu_hour(gpu_hour_usd, availability=1.0, utilisation=1.0):
    """TCO per GPU-hour actually available and used: ``gpu_hour_usd / (availability x utilisation)``.

    >>> round(tco_delivered_gpu_hour(2.2494, 64 / 72, 0.9), 4)
    2.8118
    """
    usd = chk.checked("gpu_hour_usd", gpu_hour_usd)
    a = chk.checked("availability", availability)
    u = chk.checked("utilisation", utilisation)
    return chk.out(usd / (a * u))


@chk.broadcasting
def tco_cash_breakeven_utilisation(gpu_hour_usd, rent_usd_per_gpu_hour, availability=1.0):
    """The cash break-even utilisation: ``TCO / (availability x rent)``, undiscounted and untaxed.

    The utilisation at which the rent earned per installed hour pays the TCO per GPU-hour (whose
    capital part is the level annuity). It ignores tax, a falling rent, rising opex and the
    timing of the residual; :func:`tco_breakeven_utilisation` solves NPV = 0 with all of them.

    >>> round(tco_cash_breakeven_utilisation(1.42, 2.0, 0.9), 4)
    0.7889
    """
    usd = chk.checked("gpu_hour_usd", gpu_hour_usd)
    rent = chk.checked("rent_usd_per_gpu_hour", rent_usd_per_gpu_hour)
    a = chk.checked("availability", availability)
    with np.errstate(all="ignore"):  # a tiny availability x rent: inf, not a Python ZeroDivisionError
        return chk.out(np.asarray(usd, dtype=float) / (np.asarray(a, dtype=float) * rent))


def breakeven_utilisation_of_table(utilisation, npv_usd_per_gpu, npv_per_unit_rent, rent_usd_per_gpu_hour):
    """The chain's break-even utilisation: ``u x (1 - NPV / (NPV of $1 of rent x rent))``, NaN where
    it is not in (0, 1] (NPV is linear in the utilisation, see :func:`tco_breakeven_utilisation`)."""
    u = np.asarray(utilisation, dtype=float)
    with np.errstate(all="ignore"):
        out = u * (
            1.0 - np.asarray(npv_usd_per_gpu, dtype=float) / (npv_per_unit_rent * rent_usd_per_gpu_hour)
        )
    return chk.out(np.where((out > 0) & (out <= 1), out, np.nan))


def ratio(value, reference):
    """This system's quantity over the reference's."""
    with np.errstate(all="ignore"):
        return chk.out(np.asarray(value, dtype=float) / reference)


def breakeven_speedup(delivered_usd_per_gpu_hour, goodput, ref_delivered_usd_per_gpu_hour, ref_goodput):
    """(Delivered cost per GPU-hour / goodput) over the reference's: the ratio of kept tokens per
    second at which the cost per token is equal (the TCO ratio when availability x utilisation x
    goodput are equal)."""
    return ratio(
        np.asarray(delivered_usd_per_gpu_hour, dtype=float) / goodput,
        np.asarray(ref_delivered_usd_per_gpu_hour, dtype=float) / ref_goodput,
    )


def breakeven_mfu(
    ref_mfu, breakeven_speedup, ref_peak_tflops, peak_tflops, flops_per_token, ref_flops_per_token
):
    """The MFU at which this system's cost per token equals the reference's, exactly:
    reference MFU x break-even speed-up x (reference peak / peak) x (FLOPs per token / reference's)."""
    with np.errstate(all="ignore"):
        return chk.out(
            np.asarray(ref_mfu, dtype=float)
            * breakeven_speedup
            * ref_peak_tflops
            / peak_tflops
            * flops_per_token
            / ref_flops_per_token
        )


def kept_speedup(tokens_per_gpu_second, goodput, ref_tokens_per_gpu_second, ref_goodput):
    """Kept tokens per second per GPU (tokens/s x goodput) over the reference's."""
    return ratio(
        np.asarray(tokens_per_gpu_second, dtype=float) * goodput,
        np.asarray(ref_tokens_per_gpu_second, dtype=float) * ref_goodput,
    )


def verdict(cost_per_mtok_ratio):
    """The one verdict rule: cost per Mtok over the reference's below 1 is "cheaper per token"."""
    r = np.asarray(cost_per_mtok_ratio, dtype=float)
    out = np.where(r < 1, CHEAPER, NOT_CHEAPER)
    return str(out) if out.ndim == 0 else out


def rent_parity(
    ref_rent_usd_per_gpu_hour, tokens_per_gpu_second, goodput, ref_tokens_per_gpu_second, ref_goodput
):
    """Reference rent x kept tokens per second / the reference's: at this rent the cost per token
    rented equals the reference's."""
    with np.errstate(all="ignore"):
        return chk.out(
            np.asarray(ref_rent_usd_per_gpu_hour, dtype=float)
            * tokens_per_gpu_second
            * goodput
            / (np.asarray(ref_tokens_per_gpu_second, dtype=float) * ref_goodput)
        )


def _npv(net: np.ndarray, rate: np.ndarray) -> np.ndarray:
    return flows.npv(net, np.asarray(rate, dtype=float).reshape(-1))


def irr_or_nan(net: np.ndarray) -> np.ndarray:
    """:func:`tco_irr` per row of a net cash-flow array, NaN where there is none (batch)."""
    return flows.irr(net)[0]


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
    """The rent with NPV = 0: rent - NPV / (NPV of $1 of rent); NPV is linear in the rent. With
    take-or-pay contracts it is the market rent (the contracts' rent as given, docs/project.md);
    NaN where no GPU-hour is sold at the market rent (every GPU under contract for the life: the
    rent moves nothing, so no rent breaks even: :data:`NO_MARKET_RENT`), not an infinity. Below 0
    where the contracts alone make the NPV positive: kept as the number (the line's root, which no
    market can charge; docs/project.md).

    >>> breakeven_rent_of_table([2.0, 2.0], [100.0, 100.0], [50.0, 0.0]).tolist()
    [0.0, nan]
    """
    weight = np.asarray(npv_per_unit_rent, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = (
            np.asarray(rent_usd_per_gpu_hour, dtype=float) - np.asarray(npv_usd_per_gpu, dtype=float) / weight
        )
    return chk.out(np.where(weight != 0, out, np.nan))


@chk.broadcasting
def cluster_units(gpus, gpus_per_unit):
    """Servers or racks for ``gpus`` GPUs, rounded up."""
    g = chk.checked("gpus", gpus)
    per = chk.checked("gpus_per_unit", gpus_per_unit)
    return chk.out(np.ceil(g / per))


def cluster_gpus_installed(cluster_units, gpus_per_unit):
    """GPUs installed: whole servers or racks x GPUs per unit (1,008 for 1,000 GB200 typed)."""
    return chk.out(np.asarray(cluster_units, dtype=float) * gpus_per_unit)


def cluster_capex(gpus_installed, capex_per_gpu):
    """Capex of the cluster: GPUs installed x all-in capex per GPU, USD."""
    return chk.out(np.asarray(gpus_installed, dtype=float) * capex_per_gpu)


def cluster_it_mw(gpus_installed, it_kw_per_gpu):
    """IT load of the GPUs installed, MW."""
    return chk.out(
        np.asarray(gpus_installed, dtype=float) * chk.checked("it_kw_per_gpu", it_kw_per_gpu) / 1000.0
    )


def cluster_facility_mw(cluster_it_mw, pue):
    """Facility power of the cluster (IT x PUE), MW."""
    return chk.out(np.asarray(cluster_it_mw) * chk.checked("pue", pue))


def cluster_mwh_per_year(cluster_facility_mw):
    """Energy of the cluster in a year at full load, MWh."""
    return chk.out(np.asarray(cluster_facility_mw) * HOURS_PER_YEAR)


def cluster_per_year(usd_per_gpu_hour, gpus_installed):
    """A cost per GPU-hour for the GPUs installed for a year: x 8760 x GPUs installed, USD."""
    return chk.out(np.asarray(usd_per_gpu_hour) * HOURS_PER_YEAR * np.asarray(gpus_installed, dtype=float))
