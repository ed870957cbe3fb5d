"""gputco's model: GPU-cluster TCO, cost per trained token and energy, as vectorised numpy functions.

Every function of the UDF registry (docs/udfs.md) is exported here under its lower-case Excel name,
e.g. ``gputco.udfs.tco_cost_per_mtok`` is ``=TCO_COST_PER_MTOK(...)`` in Excel and
``gputco.udfs.tco_npv`` is ``=TCO_NPV(...)`` (tests/test_registry.py checks every one). Scalars in give floats
out; arrays broadcast. Errors derive from :class:`gputco.udfs.errors.GputcoError`.

``gputco.udfs.UDFS`` is the registry of the Excel functions (Excel name -> Excel-facing callable with its
argument docs in ``.udf_spec``, see :mod:`gputco.udfs.registry`), loaded on first use. Nothing in
``udfs`` imports xlwings: ``gputco.addin.xlwings_udfs`` applies xlwings's decorators.

>>> from gputco import udfs
>>> round(udfs.tco_gpu_hour("H100_HGX"), 2)
1.42
"""

from . import chain  # first: the chain loads its step modules (decisions reads the chain back)
from ._version import __version__
from .compute import (
    CONVENTIONS,
    flops_per_token_arch,
    flops_per_token_megatron,
    flops_per_token_palm,
    tco_cost_per_mtok,
    tco_cost_per_mtok_at_rate,
    tco_flops_per_token,
    tco_tokens_per_gpu_second,
    tco_training_cost,
    tco_training_days,
)
from .decisions import (
    tco_breakeven_rent,
    tco_breakeven_utilisation,
    tco_cash_breakeven_utilisation,
    tco_cashflows,
    tco_cluster,
    tco_delivered_gpu_hour,
    tco_irr,
    tco_npv,
    tco_payback_years,
    tco_rent_parity,
)
from .energy import (
    KG_CO2_PER_KWH_US,
    KWH_PER_HOUSEHOLD_YEAR,
    tco_co2_tonnes,
    tco_household_years,
    tco_joules_per_token,
    tco_utility_watts_per_gpu,
)
from .errors import (
    GputcoError,
    InputRangeError,
    InputShapeError,
    InputTypeError,
    MissingValueError,
    UnknownNameError,
)
from .finance import (
    HOURS_PER_YEAR,
    tco_capital_per_gpu_hour,
    tco_colo_per_gpu_hour,
    tco_power_per_gpu_hour,
    tco_total_per_gpu_hour,
)
from .project import (
    tco_avg_dscr,
    tco_debt_per_gpu,
    tco_dscr_breakeven_rent,
    tco_equity_irr,
    tco_equity_npv,
    tco_llcr,
    tco_min_dscr,
    tco_peak_funding,
    tco_project_cashflows,
    tco_project_irr,
    tco_project_npv,
)
from .tco import (
    tco_breakdown,
    tco_breakeven_mfu,
    tco_breakeven_speedup,
    tco_buyer,
    tco_buyers,
    tco_capex_per_gpu,
    tco_gpu_hour,
    tco_model,
    tco_models,
    tco_ratio,
    tco_system,
    tco_systems,
)

__all__ = [
    "CONVENTIONS",
    "HOURS_PER_YEAR",
    "KG_CO2_PER_KWH_US",
    "KWH_PER_HOUSEHOLD_YEAR",
    "GputcoError",
    "InputRangeError",
    "InputShapeError",
    "InputTypeError",
    "MissingValueError",
    "UnknownNameError",
    "__version__",
    "chain",
    "flops_per_token_arch",
    "flops_per_token_megatron",
    "flops_per_token_palm",
    "tco_avg_dscr",
    "tco_breakdown",
    "tco_breakeven_mfu",
    "tco_breakeven_rent",
    "tco_breakeven_speedup",
    "tco_breakeven_utilisation",
    "tco_buyer",
    "tco_buyers",
    "tco_capex_per_gpu",
    "tco_capital_per_gpu_hour",
    "tco_cash_breakeven_utilisation",
    "tco_cashflows",
    "tco_cluster",
    "tco_co2_tonnes",
    "tco_colo_per_gpu_hour",
    "tco_cost_per_mtok",
    "tco_cost_per_mtok_at_rate",
    "tco_debt_per_gpu",
    "tco_delivered_gpu_hour",
    "tco_dscr_breakeven_rent",
    "tco_equity_irr",
    "tco_equity_npv",
    "tco_flops_per_token",
    "tco_gpu_hour",
    "tco_household_years",
    "tco_irr",
    "tco_joules_per_token",
    "tco_llcr",
    "tco_min_dscr",
    "tco_model",
    "tco_models",
    "tco_npv",
    "tco_payback_years",
    "tco_peak_funding",
    "tco_power_per_gpu_hour",
    "tco_project_cashflows",
    "tco_project_irr",
    "tco_project_npv",
    "tco_ratio",
    "tco_rent_parity",
    "tco_system",
    "tco_systems",
    "tco_tokens_per_gpu_second",
    "tco_total_per_gpu_hour",
    "tco_training_cost",
    "tco_training_days",
    "tco_utility_watts_per_gpu",
]


def __getattr__(name: str) -> object:
    """Load the UDF registry on first access of ``gputco.udfs.UDFS``; ``gputco.udfs.scenario`` and
    ``gputco.udfs.chain`` are submodules (``import udfs`` then ``gputco.udfs.scenario.evaluate(...)``)."""
    if name == "UDFS":
        from .registry import UDFS

        return UDFS
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
