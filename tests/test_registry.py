"""The UDF registry: every catalog function is there, documented, and decorated for xlwings.

The xlwings metadata is checked with xlwings's own Windows decorators (``xlwings.udfs.xlfunc`` and
``xlarg``, loaded on Linux by ``gputco.addin.vba``): no stand-in for xlwings itself.
"""

from __future__ import annotations

import importlib
import inspect
import subprocess
import sys
from pathlib import Path

import pytest

from gputco import udfs
from gputco.addin.vba import windows_udfs, windows_udfs_module
from gputco.addin.xlwings_conf import SHEET_NAME, UDF_MODULE, xlwings_conf_rows
from gputco.udfs import ranges
from gputco.udfs.excel import NUMBER, TEXT, ArgDoc

# The UDF catalog (docs/udfs.md; names are part of the product).
CATALOG = [
    "TCO_SYSTEMS",
    "TCO_SYSTEM",
    "TCO_BUYERS",
    "TCO_BUYER",
    "TCO_MODELS",
    "TCO_MODEL",
    "TCO_CAPEX_PER_GPU",
    "TCO_CAPITAL_PER_GPU_HOUR",
    "TCO_POWER_PER_GPU_HOUR",
    "TCO_COLO_PER_GPU_HOUR",
    "TCO_GPU_HOUR",
    "TCO_BREAKDOWN",
    "TCO_RATIO",
    "TCO_FLOPS_PER_TOKEN",
    "TCO_TOKENS_PER_GPU_SECOND",
    "TCO_COST_PER_MTOK",
    "TCO_TRAINING_COST",
    "TCO_TRAINING_DAYS",
    "TCO_BREAKEVEN_MFU",
    "TCO_JOULES_PER_TOKEN",
    "TCO_HOUSEHOLD_YEARS",
]
# Functions beyond the original catalog that udfs exports ("more functions are welcome").
EXTRAS = ["TCO_TOTAL_PER_GPU_HOUR", "TCO_UTILITY_WATTS_PER_GPU"]
# The decisions (their names and argument lists are the product's interface; the break-even
# utilisation became the NPV solve, the old ratio the cash break-even, rent parity cross-type and
# the break-even speed-up/MFU per-system arguments: issue "decision numbers that agree").
DECISIONS = [
    "TCO_DELIVERED_GPU_HOUR",
    "TCO_BREAKEVEN_UTILISATION",
    "TCO_CASH_BREAKEVEN_UTILISATION",
    "TCO_RENT_PARITY",
    "TCO_BREAKEVEN_SPEEDUP",
    "TCO_CASHFLOWS",
    "TCO_NPV",
    "TCO_IRR",
    "TCO_PAYBACK_YEARS",
    "TCO_BREAKEVEN_RENT",
    "TCO_COST_PER_MTOK_AT_RATE",
    "TCO_CO2_TONNES",
    "TCO_CLUSTER",
]
# The cluster as a financed project (keyword names as in its definitions).
# (ranges.PROJECT_FUNCTIONS, which gives them whole years of life, depreciation and debt)
PROJECT = list(ranges.PROJECT_FUNCTIONS)
_CASH = (
    "[residual_fraction], [availability], [utilisation], [tax_rate], [depreciation_years], "
    "[rent_decline_per_year], [opex_escalation_per_year]"
)
_PER_SYSTEM = "[availability_a], [availability_b], [utilisation_a], [utilisation_b], [goodput_a], [goodput_b]"
# The catalog's argument lists, as the product documents them (optional ones in brackets).
DESIGN_SIGNATURES = {
    "TCO_SYSTEM": "TCO_SYSTEM(system, field)",
    "TCO_BUYER": "TCO_BUYER(buyer, field)",
    "TCO_MODEL": "TCO_MODEL(model, field)",
    "TCO_CAPEX_PER_GPU": "TCO_CAPEX_PER_GPU(system, [buyer])",
    "TCO_CAPITAL_PER_GPU_HOUR": "TCO_CAPITAL_PER_GPU_HOUR(capex_per_gpu, cost_of_capital, life_years, [residual_fraction])",
    "TCO_POWER_PER_GPU_HOUR": "TCO_POWER_PER_GPU_HOUR(it_kw_per_gpu, pue, usd_per_kwh)",
    "TCO_COLO_PER_GPU_HOUR": "TCO_COLO_PER_GPU_HOUR(it_kw_per_gpu, usd_per_kw_month)",
    "TCO_GPU_HOUR": "TCO_GPU_HOUR(system, [buyer])",
    "TCO_BREAKDOWN": "TCO_BREAKDOWN(system, [buyer])",
    "TCO_RATIO": "TCO_RATIO(system_a, system_b, [buyer])",
    "TCO_FLOPS_PER_TOKEN": "TCO_FLOPS_PER_TOKEN(model, [seq_len], [convention])",
    "TCO_TOKENS_PER_GPU_SECOND": "TCO_TOKENS_PER_GPU_SECOND(flops_per_token, peak_tflops, mfu)",
    "TCO_COST_PER_MTOK": "TCO_COST_PER_MTOK(gpu_hour_usd, flops_per_token, peak_tflops, mfu, [goodput])",
    "TCO_TRAINING_COST": "TCO_TRAINING_COST(tokens, gpu_hour_usd, flops_per_token, peak_tflops, mfu, [goodput])",
    "TCO_TRAINING_DAYS": "TCO_TRAINING_DAYS(tokens, gpus, flops_per_token, peak_tflops, mfu, [goodput])",
    "TCO_BREAKEVEN_MFU": "TCO_BREAKEVEN_MFU(mfu_a, system_a, system_b, precision, [buyer], "
    + _PER_SYSTEM
    + ")",
    "TCO_BREAKEVEN_SPEEDUP": "TCO_BREAKEVEN_SPEEDUP(system_a, system_b, [buyer], " + _PER_SYSTEM + ")",
    "TCO_JOULES_PER_TOKEN": "TCO_JOULES_PER_TOKEN(utility_watts_per_gpu, flops_per_token, peak_tflops, mfu, [goodput])",
    "TCO_DELIVERED_GPU_HOUR": "TCO_DELIVERED_GPU_HOUR(gpu_hour_usd, [availability], [utilisation])",
    "TCO_BREAKEVEN_UTILISATION": "TCO_BREAKEVEN_UTILISATION(capex_per_gpu, rent_usd_per_gpu_hour, "
    "opex_usd_per_gpu_hour, life_years, cost_of_capital, [residual_fraction], [availability], [tax_rate], "
    "[depreciation_years], [rent_decline_per_year], [opex_escalation_per_year])",
    "TCO_CASH_BREAKEVEN_UTILISATION": "TCO_CASH_BREAKEVEN_UTILISATION(gpu_hour_usd, rent_usd_per_gpu_hour, "
    "[availability])",
    "TCO_RENT_PARITY": "TCO_RENT_PARITY(rent_usd_per_gpu_hour, mfu, reference_mfu, [peak_tflops], "
    "[reference_peak_tflops], [goodput], [reference_goodput])",
    "TCO_CASHFLOWS": "TCO_CASHFLOWS(capex_per_gpu, rent_usd_per_gpu_hour, opex_usd_per_gpu_hour, "
    "life_years, " + _CASH + ")",
    "TCO_IRR": "TCO_IRR(capex_per_gpu, rent_usd_per_gpu_hour, opex_usd_per_gpu_hour, "
    "life_years, " + _CASH + ")",
    "TCO_PAYBACK_YEARS": "TCO_PAYBACK_YEARS(capex_per_gpu, rent_usd_per_gpu_hour, "
    "opex_usd_per_gpu_hour, life_years, " + _CASH + ")",
    "TCO_NPV": "TCO_NPV(capex_per_gpu, rent_usd_per_gpu_hour, opex_usd_per_gpu_hour, life_years, "
    "cost_of_capital, " + _CASH + ")",
    "TCO_BREAKEVEN_RENT": "TCO_BREAKEVEN_RENT(capex_per_gpu, opex_usd_per_gpu_hour, life_years, "
    "cost_of_capital, " + _CASH + ")",
    "TCO_CLUSTER": "TCO_CLUSTER(system, gpus, [buyer])",
    "TCO_COST_PER_MTOK_AT_RATE": "TCO_COST_PER_MTOK_AT_RATE(gpu_hour_usd, tokens_per_gpu_second, [utilisation])",
    "TCO_CO2_TONNES": "TCO_CO2_TONNES(joules, [kg_co2_per_kwh])",
    "TCO_HOUSEHOLD_YEARS": "TCO_HOUSEHOLD_YEARS(joules, [kwh_per_household_year])",
}
WIZARD_LIMIT = 255  # Excel's Function Wizard: description and argument texts


def test_registry_is_the_catalog_plus_the_extras():
    assert list(udfs.UDFS)[: len(CATALOG + EXTRAS + DECISIONS)] == CATALOG + EXTRAS + DECISIONS


def test_a_spec_documents_exactly_the_arguments_of_its_function():
    """A TCO_ function's arguments are its plain function's parameters: a doc for a name it does
    not take, or a parameter with no doc (neither shared nor its own), is an error."""
    from gputco.udfs.registry import _spec

    stray = ArgDoc("x", "an argument tco_gpu_hour does not take", "")
    with pytest.raises(TypeError, match=r"TCO_GPU_HOUR: docs for \['x'\]"):
        _spec(udfs.tco_gpu_hour, "TCO per GPU-hour", "TCO", "USD/GPU-hour", ("H100_HGX",), docs=(stray,))

    def tco_undocumented(system, nameless):
        return 0.0

    with pytest.raises(TypeError, match=r"no doc for \['nameless'\]"):
        _spec(tco_undocumented, "an extension's function", "nothing", "", ("H100_HGX", 1))
    assert [a.name for a in _spec(udfs.tco_gpu_hour, "s", "r", "u", ()).args] == ["system", "buyer"]


def test_registry_is_read_only():
    with pytest.raises(TypeError):
        udfs.UDFS["TCO_NEW"] = print


@pytest.mark.parametrize("name", DESIGN_SIGNATURES)
def test_signatures_are_the_design_catalogs(name):
    assert udfs.UDFS[name].udf_spec.signature == DESIGN_SIGNATURES[name]


@pytest.mark.parametrize("name", CATALOG + EXTRAS + DECISIONS + PROJECT)
def test_every_udf_is_named_documented_and_wraps_its_plain_function(name):
    udf = udfs.UDFS[name]
    spec = udf.udf_spec
    assert udf.__name__ == spec.name == name  # xlwings takes the Excel name from __name__
    assert name.startswith("TCO_") and name == name.upper()
    # The product's convention: Python name = Excel name in lower case, in udfs
    assert spec.plain is getattr(udfs, name.lower())
    assert inspect.signature(udf) == inspect.signature(spec.plain)
    assert udf.__doc__ == spec.summary
    assert 20 <= len(udf.__doc__) <= WIZARD_LIMIT
    assert spec.returns and spec.example_formula.startswith(f"={name}(")
    assert [a.name for a in spec.args] == list(inspect.signature(spec.plain).parameters)
    for arg in spec.args:
        assert arg.doc and len(arg.wizard_text) <= WIZARD_LIMIT, arg
        assert arg.kind != NUMBER or arg.unit, f"{name}.{arg.name} has no unit"
        param = inspect.signature(spec.plain).parameters[arg.name]
        assert arg.optional == (param.default is not param.empty)
        if arg.optional:
            assert arg.default == param.default
            assert "Optional" in arg.wizard_text
    assert spec.table == (
        name
        in {
            "TCO_SYSTEMS",
            "TCO_BUYERS",
            "TCO_MODELS",
            "TCO_BREAKDOWN",
            "TCO_CASHFLOWS",
            "TCO_CLUSTER",
            "TCO_PROJECT_CASHFLOWS",
        }
    )


def test_text_arguments_name_the_valid_choices():
    buyer = udfs.UDFS["TCO_GPU_HOUR"].udf_spec.args[1]
    assert buyer.kind == TEXT
    for key in ("hyperscaler", "neocloud_giant", "emerging_neocloud"):
        assert key in buyer.doc


def test_nothing_headless_imports_xlwings():
    """The registry, the engine, the workbook builders and batch run without xlwings; only the
    xlwings module (addin.xlwings_udfs) imports it."""
    code = (
        "import sys, tempfile, pathlib, udfs; udfs.UDFS; import udfs.registry, workbook.recalc, "
        "workbook.finance.build, workbook.scenarios.build, workbook.batch.run; "
        "p = pathlib.Path(tempfile.mkdtemp()) / 't.xlsx'; "
        "workbook.finance.build.write_template(p); workbook.recalc.recalc_file(p, p, functions=udfs.UDFS); "
        "assert 'xlwings' not in sys.modules, 'xlwings imported'; "
        "import addin.xlwings_udfs; assert 'xlwings' in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).resolve().parents[1])


def test_udfs_module_answers_only_UDFS_lazily():
    assert udfs.UDFS is importlib.import_module("gputco.udfs.registry").UDFS
    assert not hasattr(udfs, "__xlfunc__")  # xlwings probes module attributes this way
    with pytest.raises(AttributeError):
        udfs.NOT_A_UDF  # noqa: B018


def test_xlwings_windows_decorators_see_every_function_and_argument():
    with windows_udfs_module() as xw_udfs:
        decorated = windows_udfs(xw_udfs)
    assert list(decorated) == list(udfs.UDFS)
    for name, udf in decorated.items():
        spec, meta = udf.udf_spec, udf.__xlfunc__
        assert meta["name"] == name and meta["category"] == "GPU TCO"
        assert meta["ret"]["doc"] == spec.summary and not meta["sub"]
        assert [a["name"] for a in meta["args"]] == [a.name for a in spec.args]
        for info, arg in zip(meta["args"], spec.args, strict=True):
            assert info["doc"] == arg.wizard_text
            # ndim=2 keeps rows and columns apart; err_to_str passes "#N/A" instead of None
            assert info["options"] == {"ndim": 2, "err_to_str": True}
            assert ("optional" in info) == arg.optional
            if arg.optional:
                assert info["optional"] == arg.default  # what xlwings passes for a missing arg
    assert "pythoncom" not in sys.modules and "xlwings.udfs" not in sys.modules


def test_the_xlwings_module_exposes_exactly_the_registry():
    module = importlib.import_module(UDF_MODULE)
    exposed = {n for n in dir(module) if callable(getattr(module, n)) and not n.startswith("_")}
    assert exposed == set(udfs.UDFS)
    assert set(module.__all__) == set(udfs.UDFS)
    for name, udf in udfs.UDFS.items():
        exposed = getattr(module, name)  # xlwings calls getattr(module, NAME)
        assert exposed.udf_spec is udf.udf_spec and exposed.__name__ == name


def test_xlwings_conf_rows():
    rows = xlwings_conf_rows()
    assert SHEET_NAME == "xlwings.conf"
    assert rows[0] == ("UDF Modules", "gputco.addin.xlwings_udfs")
    keys = [k.upper() for k, _ in rows]
    assert len(keys) == len(set(keys)) and all(v for _, v in rows)  # an empty value overrides
    for module in dict(rows)["UDF Modules"].split(";"):
        assert importlib.import_module(module)
