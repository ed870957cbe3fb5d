"""TCO from presets: a system bought by a buyer type, and the comparisons between systems.

These functions take preset names (``"H100_HGX"``, ``"hyperscaler"``) and compose the numeric
functions of :mod:`gputco.udfs.finance` and :mod:`gputco.udfs.compute`. Names may be arrays too:
results broadcast.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
from collections.abc import Iterator

import numpy as np

from . import _check as chk
from . import chain, presets
from .errors import MissingValueError, UnknownNameError
from .scenario import cost_per_gpu_hour

BREAKDOWN_COMPONENTS = ("capital", "power", "facility", "other", "total")


def _broadcast(func):
    """Call ``func`` directly on scalars; broadcast it element-wise when any argument is an array."""

    signature = inspect.signature(func)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        if not any(isinstance(a, list | tuple | np.ndarray) for a in (*args, *kwargs.values())):
            return func(*args, **kwargs)
        try:
            named = signature.bind(*args, **kwargs).arguments
        except TypeError:
            return func(*args, **kwargs)  # the wrong arguments: Python's own error
        chk.broadcast(**named)
        return np.vectorize(func, otypes=[float])(*args, **kwargs)

    return wrapper


def _breakdown(system, buyer):
    parts = cost_per_gpu_hour({"system": chk.text("system", system), "buyer": chk.text("buyer", buyer)})
    return {
        "capital": parts["capital_usd_per_gpu_hour"],
        "power": parts["power_usd_per_gpu_hour"],
        "facility": parts["facility_usd_per_gpu_hour"],
        "other": parts["other_usd_per_gpu_hour"],
        "total": parts["tco_usd_per_gpu_hour"],
    }


@_broadcast
def tco_capex_per_gpu(system, buyer=presets.DEFAULT_BUYER):
    """All-in capex per GPU for a buyer type: unit all-in price / GPUs per unit x capex multiplier.

    Parameters
    ----------
    system : str
        System preset, e.g. "H100_HGX", "GB200_NVL72".
    buyer : str, optional
        Buyer type: "hyperscaler" (default), "neocloud_giant", "emerging_neocloud".

    Returns
    -------
    float
        USD per GPU.

    References
    ----------
    SemiAnalysis 2025-08-20: $250k per H100 server and $3.9M per GB200 NVL72 rack, all-in.

    Examples
    --------
    >>> tco_capex_per_gpu("H100_HGX")
    31250.0
    >>> round(tco_capex_per_gpu("GB200_NVL72"), 2)
    54166.67
    """
    s, b = presets.system(system), presets.buyer(buyer)
    return s.value("capex_per_gpu") * b.value("capex_multiplier")


@_broadcast
def tco_gpu_hour(system, buyer=presets.DEFAULT_BUYER):
    """Total TCO per GPU-hour of a system for a buyer type, from presets.

    Parameters
    ----------
    system : str
        System preset.
    buyer : str, optional
        Buyer type; default "hyperscaler".

    Returns
    -------
    float
        USD per GPU-hour: capital + power + facility + other (see :func:`tco_breakdown`).

    Examples
    --------
    >>> round(tco_gpu_hour("H100_HGX"), 3)
    1.42
    """
    return _breakdown(system, buyer)["total"]


def tco_breakdown(system, buyer=presets.DEFAULT_BUYER):
    """The TCO per GPU-hour by component, as a table with a header row; ``system`` and ``buyer``
    as for :func:`tco_gpu_hour`.

    Returns
    -------
    list of lists
        ``[["component", "usd_per_gpu_hour"], ["capital", x], ["power", x], ["facility", x],
        ["other", x], ["total", x]]``.

    Examples
    --------
    >>> [(name, round(x, 4)) for name, x in tco_breakdown("H100_HGX")[1:]]
    [('capital', 1.0154), ('power', 0.1571), ('facility', 0.2474), ('other', 0.0), ('total', 1.4199)]
    """
    parts = _breakdown(system, buyer)
    return [["component", "usd_per_gpu_hour"]] + [[k, float(parts[k])] for k in BREAKDOWN_COMPONENTS]


@_broadcast
def tco_ratio(system_a, system_b, buyer=presets.DEFAULT_BUYER):
    """TCO per GPU-hour of b / that of a: the per-GPU speed-up b needs to break even with a.

    Parameters
    ----------
    system_a, system_b : str
        System presets; a is the reference (e.g. "H100_HGX"), b the challenger ("GB200_NVL72").
    buyer : str, optional
        Buyer type; default "hyperscaler".

    Returns
    -------
    float
        ``tco_gpu_hour(b) / tco_gpu_hour(a)``.

    References
    ----------
    SemiAnalysis 2025-08-20: GB200 NVL72 TCO per GPU is about 1.6x the H100's.

    Examples
    --------
    >>> round(tco_ratio("H100_HGX", "GB200_NVL72"), 3)
    1.584
    """
    with naming("system_b"):
        b = _breakdown(system_b, buyer)["total"]
    with naming("system_a"):
        a = _breakdown(system_a, buyer)["total"]
    return chain.compare({"tco_usd_per_gpu_hour": b}, {"tco_usd_per_gpu_hour": a})["tco_ratio"]


#: the arguments of the comparisons after the systems (and precision), with their defaults: the
#: buyer type, then each system's availability, utilisation and goodput
PAIR_OPTIONAL: dict[str, object] = {
    "buyer": presets.DEFAULT_BUYER,
    **{f"{k}_{side}": 1.0 for k in ("availability", "utilisation", "goodput") for side in "ab"},
}


def _delivered_pair(system_a, system_b, buyer, **sides):
    """The comparison quantities of b and of its reference a: delivered cost per GPU-hour, goodput
    (``sides``: each system's availability, utilisation and goodput, :data:`PAIR_OPTIONAL`)."""
    pair = []
    for system, suffix in ((system_a, "_a"), (system_b, "_b")):
        with naming("system" + suffix):
            tco = _breakdown(system, buyer)["total"]
        av = chk.checked("availability" + suffix, sides["availability" + suffix])
        ut = chk.checked("utilisation" + suffix, sides["utilisation" + suffix])
        pair.append(
            {
                "tco_usd_per_gpu_hour": tco,
                "delivered_usd_per_gpu_hour": tco / (av * ut),
                "goodput": chk.checked("goodput" + suffix, sides["goodput" + suffix]),
            }
        )
    return pair[1], pair[0]


@contextlib.contextmanager
def naming(arg: str) -> Iterator[None]:
    """Errors about a system inside the block name the argument (``system_a``), not "system".

    >>> with naming("system_b"):
    ...     tco_gpu_hour("H100")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    gputco.udfs.errors.UnknownNameError: unknown system_b 'H100'; valid: ...
    """
    try:
        yield
    except UnknownNameError as err:
        if err.arg != "system":
            raise
        raise UnknownNameError(arg, err.value, err.valid) from None
    except MissingValueError as err:
        if not str(err).startswith("system "):
            raise
        err.args = (f"{arg}: {err}",)
        raise


@_broadcast
@chk.parameters(("system_a", "system_b"), PAIR_OPTIONAL)
def tco_breakeven_speedup(**pair):
    """The kept tokens per second b needs, against a's, for the same cost per token:
    ``(delivered_b / goodput_b) / (delivered_a / goodput_a)``, delivered = TCO / (availability x
    utilisation) (the chain's comparison ``breakeven_speedup``).

    With the availabilities, utilisations and goodputs equal it is :func:`tco_ratio`.

    Examples
    --------
    GB200 NVL72 with 64 of its 72 GPUs available (two spare nodes) against H100 at 0.9:

    >>> round(tco_breakeven_speedup("H100_HGX", "GB200_NVL72"), 3)
    1.584
    >>> round(tco_breakeven_speedup("H100_HGX", "GB200_NVL72", availability_a=0.9, availability_b=64 / 72), 3)
    1.604
    """
    this, ref = _delivered_pair(**pair)
    return chain.compare(this, ref)["breakeven_speedup"]


@_broadcast
@chk.parameters(("mfu_a", "system_a", "system_b", "precision"), PAIR_OPTIONAL)
def tco_breakeven_mfu(mfu_a, precision, **pair):
    """The MFU system b needs for the same cost per token as system a at ``mfu_a``, exactly.

    ``mfu_b = mfu_a x break-even speed-up x (peak_a / peak_b)`` at the same precision and model,
    the break-even speed-up on the delivered cost and goodput (:func:`tco_breakeven_speedup`).

    Parameters
    ----------
    mfu_a : float
        MFU reached on system a, in (0, 1].
    system_a, system_b : str
        System presets.
    precision : {"bf16", "fp8", "fp4"}
        Precision of the run; both systems must have that peak.
    buyer : str, optional
        Buyer type; default "hyperscaler".
    availability_a, availability_b, utilisation_a, utilisation_b, goodput_a, goodput_b : float, optional
        Each system's availability, utilisation and goodput; default 1.

    Returns
    -------
    float
        Break-even MFU on system b (may exceed 1: then b cannot break even).

    Examples
    --------
    H100 BF16 at 54% MFU (SemiAnalysis, Dec 2024) against GB200 NVL72:

    >>> round(tco_breakeven_mfu(0.54, "H100_HGX", "GB200_NVL72", "bf16"), 4)
    0.3386
    """
    u = chk.checked("mfu_a", mfu_a)
    this, ref = _delivered_pair(**pair)
    system_a, system_b = pair["system_a"], pair["system_b"]
    with naming("system_a"):
        ref.update(mfu=u, peak_tflops=presets.peak_tflops(system_a, precision), flops_per_token=1.0)
    with naming("system_b"):
        this.update(peak_tflops=presets.peak_tflops(system_b, precision), flops_per_token=1.0)
    return chain.compare(this, ref)["breakeven_mfu"]


def _table(kind):
    rows = []
    presets_ = presets.catalog(kind)
    fields = list(presets.TEXT_FIELDS[kind])
    numeric = list(presets.REQUIRED_FIELDS[kind])
    if kind == "system":
        numeric.insert(numeric.index("unit_all_in_usd") + 1, "capex_per_gpu")
    for key, p in presets_.items():
        rows.append([key, *(p.texts.get(f, "") for f in fields), *(p.get(f) for f in numeric)])
    return [["key", *fields, *numeric], *rows]


def tco_systems():
    """Table of the system presets, header row first (one row per system, one column per field);
    :func:`tco_buyers` and :func:`tco_models` are the same for the other presets.

    Examples
    --------
    >>> table = tco_systems()
    >>> table[0][:4]
    ['key', 'label', 'gpus_per_unit', 'unit_price_usd']
    >>> [row[0] for row in table[1:]]
    ['H100_HGX', 'GB200_NVL72', 'H200_HGX', 'B200_HGX', 'B300_HGX', 'GB300_NVL72', 'MI300X', 'MI325X',
     'MI355X', 'H800_HGX']
    >>> [row[0] for row in tco_buyers()[1:]]
    ['hyperscaler', 'neocloud_giant', 'emerging_neocloud']
    >>> [row[0] for row in tco_models()[1:]]
    ['gpt3_175b', 'llama3_8b', 'llama3_70b', 'llama3_405b', 'deepseek_v3', 'qwen3_235b_a22b',
     'llama4_maverick', 'llama4_scout', 'gpt_oss_120b']
    """
    return _table("system")


def tco_buyers():
    """Table of the buyer-type presets, header row first (examples: :func:`tco_systems`)."""
    return _table("buyer")


def tco_models():
    """Table of the model-architecture presets, header row first (examples: :func:`tco_systems`)."""
    return _table("model")


def tco_system(system, field):
    """One field of a system preset (None where the system has none, e.g. H100 FP4 peak);
    :func:`tco_buyer` and :func:`tco_model` are the same for the other presets.

    Examples
    --------
    >>> tco_system("H100 HGX", "peak_tflops_bf16")
    989.4
    >>> tco_buyer("Hyperscaler", "pue")
    1.3
    >>> tco_model("llama3_405b", "layers")
    126.0
    """
    return presets.field("system", system, field)


def tco_buyer(buyer, field):
    """One field of a buyer-type preset (examples: :func:`tco_system`)."""
    return presets.field("buyer", buyer, field)


def tco_model(model, field):
    """One field of a model preset (examples: :func:`tco_system`)."""
    return presets.field("model", model, field)
