"""Energy: joules per trained token, US household-years of electricity and tonnes of CO2.

Energy accounting follows SemiAnalysis 2025-08-20: all-in utility power per GPU (GPU, CPU, network,
storage, other, times the facility PUE) divided by tokens per second per GPU.
"""

from __future__ import annotations

from . import _check as chk
from . import presets
from .compute import tco_tokens_per_gpu_second

#: EIA: average US residential electricity use in 2022, kWh per household per year
KWH_PER_HOUSEHOLD_YEAR = 10_791.0
JOULES_PER_KWH = 3.6e6
#: US EIA FAQ 74, 2022: 1,650 Mt CO2 / 4,230,672 GWh of US net generation (udfs/data/grid_factors.toml)
KG_CO2_PER_KWH_US = presets.catalog("grid")["us_average"].value("kg_co2_per_kwh")


@chk.checking
def tco_utility_watts_per_gpu(it_kw_per_gpu, pue):
    """All-in utility power per GPU: IT load x PUE, in watts.

    Parameters
    ----------
    it_kw_per_gpu, pue : float or array_like
        As in :func:`gputco.udfs.finance.tco_power_per_gpu_hour`.

    Returns
    -------
    float or ndarray
        W per GPU drawn from the utility.

    Examples
    --------
    >>> round(tco_utility_watts_per_gpu(1.389, 1.288), 1)
    1789.0
    """
    return chk.out(it_kw_per_gpu * pue * 1000.0)


@chk.checking
def tco_joules_per_token(utility_watts_per_gpu, flops_per_token, peak_tflops, mfu, goodput=1.0):
    """Energy per trained token: utility W per GPU / tokens per second per GPU.

    Parameters
    ----------
    utility_watts_per_gpu : float or array_like
        All-in facility power per GPU including PUE, W (> 0).
    flops_per_token, peak_tflops, mfu : float or array_like
        As in :func:`gputco.udfs.compute.tco_tokens_per_gpu_second`.
    goodput : float or array_like, optional
        Fraction of paid GPU time kept as training progress, in (0, 1] (default 1).

    Returns
    -------
    float or ndarray
        J per token.

    References
    ----------
    SemiAnalysis 2025-08-20: 2.46 J/token (FP8) and 3.63 J/token (BF16) for GPT-3 175B on H100;
    both fit about 1,789 W per GPU (docs/facts.md section 2).

    Examples
    --------
    >>> round(tco_joules_per_token(1789, 1.07899e12, 1978.9, 0.395), 3)
    2.469
    """
    tps = tco_tokens_per_gpu_second(flops_per_token, peak_tflops, mfu)
    return chk.out(chk.ratio(utility_watts_per_gpu, tps) / goodput)


@chk.broadcasting
def tco_household_years(joules, kwh_per_household_year=KWH_PER_HOUSEHOLD_YEAR):
    """Energy as years of an average US household's electricity.

    Parameters
    ----------
    joules : float or array_like
        Energy, J (>= 0).
    kwh_per_household_year : float or array_like, optional
        kWh per household per year (> 0). Default 10,791 kWh (EIA, 2022 US average).

    Returns
    -------
    float or ndarray
        Household-years: ``joules / (kwh_per_household_year * 3.6e6)``.

    References
    ----------
    US EIA, "How much electricity does an American home use?" (2022: 10,791 kWh), quoted by
    SemiAnalysis 2025-08-20.

    Examples
    --------
    300B GPT-3 tokens at 2.469 J/token:

    >>> round(tco_household_years(300e9 * 2.469), 1)
    19.1
    """
    j = chk.checked("joules", joules)
    kwh = chk.checked("kwh_per_household_year", kwh_per_household_year)
    return chk.out(j / (kwh * JOULES_PER_KWH))


# --- steps of the chain (udfs.chain) ------------------------------------------------------------


@chk.broadcasting
def joules_per_token_at_rate(utility_watts_per_gpu, tokens_per_gpu_second, goodput=1.0):
    """Energy per kept token: utility watts per GPU / tokens per second per GPU / goodput, J/token.

    >>> round(joules_per_token_at_rate(1805.7, 724.4), 3)
    2.493
    """
    w = chk.checked("utility_watts_per_gpu", utility_watts_per_gpu)
    g = chk.checked("goodput", goodput)
    return chk.out(
        chk.fresh_divided(chk.ratio(w, chk.checked("tokens_per_gpu_second", tokens_per_gpu_second)), g)
    )


@chk.checking
def training_energy_kwh(tokens, joules_per_token):
    """Energy of a run: ``tokens x J/token / 3.6e6``, kWh.

    >>> round(training_energy_kwh(300e9, 2.493))
    207750
    """
    return chk.out(joules_per_token * (tokens / JOULES_PER_KWH))


@chk.checking
def household_years_of_run(tokens, joules_per_token, kwh_per_household_year=KWH_PER_HOUSEHOLD_YEAR):
    """Energy of a run in US household-years: ``tokens x J/token / (kWh per year x 3.6e6)``.

    >>> round(household_years_of_run(300e9, 2.493), 2)
    19.25
    """
    return chk.out(joules_per_token * (tokens / (kwh_per_household_year * JOULES_PER_KWH)))


@chk.checking
def tokens_per_household_year(kwh_per_household_year, joules_per_token):
    """Tokens trained with one US household-year of electricity: ``kWh x 3.6e6 / (J/token)``.

    >>> round(tokens_per_household_year(10791, 2.493) / 1e9, 1)
    15.6
    """
    return chk.out(kwh_per_household_year * JOULES_PER_KWH / joules_per_token)


@chk.broadcasting
def tco_co2_tonnes(joules, kg_co2_per_kwh=KG_CO2_PER_KWH_US):
    """CO2 emitted generating an amount of electricity: ``joules / 3.6e6 * kg_co2_per_kwh / 1000``.

    Parameters
    ----------
    joules : float or array_like
        Electricity drawn from the grid, J (>= 0); utility-side, i.e. including the PUE.
    kg_co2_per_kwh : float or array_like, optional
        Grid emission factor, kg CO2 per kWh (>= 0). Default 0.390, the US average of 2022 (US EIA,
        FAQ 74: 1,650 million tonnes of CO2 from 4.23 trillion kWh). Other factors (US coal- and
        gas-fired plants) are in udfs/data/grid_factors.toml, see :func:`grid_factor`.

    Returns
    -------
    float or ndarray
        Tonnes (1000 kg) of CO2.

    References
    ----------
    US EIA, "How much carbon dioxide is produced per kilowatthour of U.S. electricity generation?"
    (2022 data).

    Examples
    --------
    300B GPT-3 tokens at 2.469 J/token (SemiAnalysis 2025-08-20's FP8 run) on the US grid:

    >>> round(tco_co2_tonnes(300e9 * 2.469), 1)
    80.2
    >>> tco_co2_tonnes([3.6e9, 0.0], 0.5).tolist()
    [0.5, 0.0]
    """
    j = chk.non_negative("joules", joules)
    return _tonnes(j, chk.non_negative("kg_co2_per_kwh", kg_co2_per_kwh))


def _tonnes(joules, kg_co2_per_kwh):
    """The arithmetic of :func:`tco_co2_tonnes` on checked inputs, ``joules x kg/kWh / 3.6e6 /
    1000`` as one multiply of the joules (the rest taken together first)."""
    return chk.out(joules * (kg_co2_per_kwh / (JOULES_PER_KWH * 1000.0)))


def grid_factor(name="us_average"):
    """A sourced grid emission factor in kg CO2 per kWh (udfs/data/grid_factors.toml).

    >>> grid_factor("US natural gas")
    0.4404
    """
    return presets.lookup("grid", name).value("kg_co2_per_kwh")


@chk.broadcasting
def co2_tonnes_of_run(tokens, joules_per_token, kg_co2_per_kwh=KG_CO2_PER_KWH_US):
    """CO2 of a training run's electricity: ``tokens x J/token / 3.6e6 x kg/kWh / 1000``, tonnes.

    >>> round(co2_tonnes_of_run(300e9, 2.493), 1)
    81.0
    """
    n = chk.checked("tokens", tokens)
    j = chk.checked("joules_per_token", joules_per_token)
    return _tonnes(j, n * chk.non_negative("kg_co2_per_kwh", kg_co2_per_kwh))
