"""Money: capital cost as a level annuity, and the operating costs of a GPU-hour.

All functions are vectorised: scalars in give floats out, arrays broadcast. Money is USD, power is kW,
rates are decimals per year, a year is 8760 hours and a month 8760/12 = 730 hours.
"""

from __future__ import annotations

import numpy as np

from . import _check as chk

HOURS_PER_YEAR = 8760.0
HOURS_PER_MONTH = HOURS_PER_YEAR / 12


def _annuity_factors(rate, years):
    """Capital recovery factor and sinking-fund factor, safe at rate = 0.

    CRF = r / (1 - (1 + r)^-n) and SFF = r / ((1 + r)^n - 1); as r -> 0 they tend to 1/n.
    Computed with expm1/log1p; below r = 1e-8 the series SFF = (1 - (n - 1) r / 2) / n is used,
    exact to double precision there and safe for subnormal rates.
    """
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        growth = np.log1p(rate)
        if np.ndim(growth) and np.shape(years) in ((), growth.shape):  # in place: the same values
            growth *= years
            sff = rate / np.expm1(growth, out=growth)  # r / ((1 + r)^n - 1)
        else:
            sff = rate / np.expm1(years * growth)
        if np.ndim(sff) == 0:
            sff = (1.0 - (years - 1.0) * rate / 2.0) / years if rate < 1e-8 else sff
        elif (chk.least(rate) if np.ndim(rate) else rate) < 1e-8:  # the series only where used
            small = np.broadcast_to(rate < 1e-8, sff.shape)
            r, n = (np.broadcast_to(x, sff.shape)[small] for x in (rate, years))
            sff[small] = (1.0 - (n - 1.0) * r / 2.0) / n
    return sff + rate, sff  # CRF = SFF + r


@chk.broadcasting
def tco_capital_per_gpu_hour(capex_per_gpu, cost_of_capital, life_years, residual_fraction=0.0):
    """Capital cost per GPU-hour: the level annual payment that repays the capex, / 8760.

    Parameters
    ----------
    capex_per_gpu : float or array_like
        All-in capital expenditure per GPU, USD (> 0).
    cost_of_capital : float or array_like
        Annual cost of capital (discount rate), decimal per year, in [0, 1].
    life_years : float or array_like
        Economic life, years, in (0, 100].
    residual_fraction : float or array_like, optional
        Resale value at the end of life as a fraction of capex, in [0, 1). Default 0.

    Returns
    -------
    float or ndarray
        USD per GPU-hour.

    Notes
    -----
    The level payment of an annuity with end-of-period payments, Excel's
    ``-PMT(r, n, capex, -residual*capex) / 8760``::

        CRF = r / (1 - (1 + r)^-n)
        per_hour = (capex * CRF - residual * capex * r / ((1 + r)^n - 1)) / 8760

    At r = 0 this is straight-line depreciation, ``capex * (1 - residual) / n / 8760``.

    References
    ----------
    Capital recovery factor: any engineering-economics text; SemiAnalysis "GPU Cloud Economics
    Explained" (2023-12) prices capital as a level debt payment. See docs/facts.md section 2.

    Examples
    --------
    The H100 hyperscaler preset ($31,250 per GPU, 13.05%, 5 years):

    >>> round(tco_capital_per_gpu_hour(31250, 0.1305, 5), 5)
    1.01549
    >>> tco_capital_per_gpu_hour([31250, 54166.67], 0.0, 5)
    array([0.71347032, 1.23668196])
    """
    capex = chk.checked("capex_per_gpu", capex_per_gpu)
    r = chk.checked("cost_of_capital", cost_of_capital)
    n = chk.checked("life_years", life_years)
    res = chk.checked("residual_fraction", residual_fraction)
    crf, sff = _annuity_factors(r, n)
    if np.ndim(crf) and np.shape(res) == () and res == 0.0 and np.shape(capex) in ((), np.shape(crf)):
        crf *= capex  # capex x (CRF - 0 x SFF), in place: the same value (SFF is finite)
        crf /= HOURS_PER_YEAR
        return crf
    return chk.out(capex * (crf - res * sff) / HOURS_PER_YEAR)


@chk.checking
def tco_power_per_gpu_hour(it_kw_per_gpu, pue, usd_per_kwh):
    """Electricity cost per GPU-hour: IT load x PUE x tariff.

    Parameters
    ----------
    it_kw_per_gpu : float or array_like
        IT load per GPU (GPU, host, network, storage share), kW (> 0).
    pue : float or array_like
        Power usage effectiveness, facility power / IT power, in [1, 5].
    usd_per_kwh : float or array_like
        Electricity price, USD per kWh (> 0).

    Returns
    -------
    float or ndarray
        USD per GPU-hour: ``it_kw_per_gpu * pue * usd_per_kwh`` (one hour at that load).

    Examples
    --------
    >>> round(tco_power_per_gpu_hour(1.389, 1.3, 0.087), 6)
    0.157096
    """
    return chk.out(it_kw_per_gpu * pue * usd_per_kwh)


@chk.checking
def tco_colo_per_gpu_hour(it_kw_per_gpu, usd_per_kw_month):
    """Facility (colocation) cost per GPU-hour: rent per kW of IT load per month / 730 hours.

    Parameters
    ----------
    it_kw_per_gpu : float or array_like
        IT load per GPU, kW (> 0).
    usd_per_kw_month : float or array_like
        Colocation rent, USD per kW of IT load per month (>= 0).

    Returns
    -------
    float or ndarray
        USD per GPU-hour: ``it_kw_per_gpu * usd_per_kw_month * 12 / 8760``.

    Examples
    --------
    >>> round(tco_colo_per_gpu_hour(1.389, 130), 6)
    0.247356
    """
    return chk.out(it_kw_per_gpu * usd_per_kw_month / HOURS_PER_MONTH)


@chk.broadcasting
def tco_total_per_gpu_hour(
    capex_per_gpu,
    cost_of_capital,
    life_years,
    it_kw_per_gpu,
    pue,
    usd_per_kwh,
    colo_usd_per_kw_month,
    residual_fraction=0.0,
    other_usd_per_gpu_hour=0.0,
):
    """Total cost of ownership per GPU-hour from explicit inputs: capital + power + facility + other.

    Parameters
    ----------
    capex_per_gpu : float or array_like
        All-in capex per GPU, USD (> 0).
    cost_of_capital : float or array_like
        Decimal per year, in [0, 1].
    life_years : float or array_like
        Years, in (0, 100].
    it_kw_per_gpu : float or array_like
        IT load per GPU, kW (> 0).
    pue : float or array_like
        Power usage effectiveness, in [1, 5].
    usd_per_kwh : float or array_like
        Electricity price, USD/kWh (> 0).
    colo_usd_per_kw_month : float or array_like
        Colocation rent, USD per kW of IT load per month (>= 0).
    residual_fraction : float or array_like, optional
        Resale value as a fraction of capex, in [0, 1). Default 0.
    other_usd_per_gpu_hour : float or array_like, optional
        Maintenance, support, insurance: USD per GPU-hour (>= 0). Default 0.

    Returns
    -------
    float or ndarray
        USD per GPU-hour. The sum of :func:`tco_capital_per_gpu_hour`,
        :func:`tco_power_per_gpu_hour`, :func:`tco_colo_per_gpu_hour` and the other cost.

    Examples
    --------
    The inputs of the SemiAnalysis fit (docs/facts.md section 3) give the article's $1.42 for an H100:

    >>> round(tco_total_per_gpu_hour(31250, 0.1305, 5, 1.389, 1.3, 0.087, 130), 3)
    1.42
    """
    other = chk.checked("other_usd_per_gpu_hour", other_usd_per_gpu_hour)
    # checked here so that an error names this function's argument, not tco_colo_per_gpu_hour's
    colo = chk.checked("colo_usd_per_kw_month", colo_usd_per_kw_month)
    capital = tco_capital_per_gpu_hour(capex_per_gpu, cost_of_capital, life_years, residual_fraction)
    opex = tco_opex_per_gpu_hour(
        tco_power_per_gpu_hour(it_kw_per_gpu, pue, usd_per_kwh),
        tco_colo_per_gpu_hour(it_kw_per_gpu, colo),
        other,
    )
    return tco_per_gpu_hour(capital, opex)


@chk.broadcasting
def tco_opex_per_gpu_hour(power_usd_per_gpu_hour, facility_usd_per_gpu_hour, other_usd_per_gpu_hour=0.0):
    """Operating cost per GPU-hour: power + facility (colocation) + other, USD per GPU-hour.

    >>> round(tco_opex_per_gpu_hour(0.157096, 0.247352, 0.0), 6)
    0.404448
    """
    power = chk.checked("power_usd_per_gpu_hour", power_usd_per_gpu_hour)
    facility = chk.checked("facility_usd_per_gpu_hour", facility_usd_per_gpu_hour)
    other = chk.checked("other_usd_per_gpu_hour", other_usd_per_gpu_hour)
    return chk.out(power + facility + other)


@chk.broadcasting
def tco_per_gpu_hour(capital_usd_per_gpu_hour, opex_usd_per_gpu_hour):
    """Total cost of ownership per GPU-hour: capital + opex, USD per GPU-hour.

    >>> round(tco_per_gpu_hour(1.01549, 0.404448), 4)
    1.4199
    """
    capital = chk.checked("capital_usd_per_gpu_hour", capital_usd_per_gpu_hour)
    opex = chk.checked("opex_usd_per_gpu_hour", opex_usd_per_gpu_hour)
    return chk.out(capital + opex)
