"""Random draws for Monte Carlo scenarios: uniform, normal, triangular and lognormal inputs.

Draws come from a numpy :class:`numpy.random.Generator` that the caller seeds, so the same seed and
the same distributions (in the same order) give the same draws on every machine and run.

Parameters by distribution (all in the input's own unit):

========== ===================== =============================================================
dist       parameters            meaning
========== ===================== =============================================================
uniform    low, high             every value in [low, high) equally likely
normal     mean, sd              Gaussian; optional min/max truncate it (out-of-range draws are
                                 drawn again, so the shape inside the bounds is kept)
triangular low, mode, high       peak at mode, zero at low and high
lognormal  median, sigma         exp(N(ln median, sigma)): sigma is the sd of ln(value), e.g.
                                 0.1 for about +/-10%; optional min/max as for normal
========== ===================== =============================================================

>>> rng = np.random.default_rng(7)
>>> draw("triangular", {"low": 0.35, "mode": 0.45, "high": 0.55}, 3, rng).round(4)
array([0.4634, 0.5047, 0.483 ])
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from . import _check as chk
from .errors import InputRangeError, MissingValueError, UnknownNameError

#: required parameters of each distribution
DISTRIBUTIONS: dict[str, tuple[str, ...]] = {
    "uniform": ("low", "high"),
    "normal": ("mean", "sd"),
    "triangular": ("low", "mode", "high"),
    "lognormal": ("median", "sigma"),
}
#: optional truncation bounds, for the unbounded distributions only
BOUNDS = ("min", "max")
TRUNCATABLE = ("normal", "lognormal")
#: rounds of redrawing out-of-bounds values before giving up (the bounds hold almost no mass)
MAX_ROUNDS = 200


def check(dist: str, params: Mapping[str, object]) -> dict[str, float]:
    """Validate a distribution's name and parameters; return the parameters as floats.

    >>> check("uniform", {"low": 0.05, "high": 0.12})
    {'low': 0.05, 'high': 0.12}
    >>> check("normal", {"mean": 0.13})
    Traceback (most recent call last):
    ...
    gputco.udfs.errors.MissingValueError: sd is required: normal needs mean, sd
    """
    if dist not in DISTRIBUTIONS:
        raise UnknownNameError("distribution", dist, DISTRIBUTIONS)
    needed = DISTRIBUTIONS[dist]
    allowed = needed + (BOUNDS if dist in TRUNCATABLE else ())
    for name in params:
        if name not in allowed:
            raise UnknownNameError(f"{dist} parameter", name, allowed)
    for name in needed:
        if name not in params:
            raise MissingValueError(name, f"{dist} needs {', '.join(needed)}")
    p = {name: float(chk.number(name, params[name])) for name in params}
    if dist == "uniform" and not p["low"] < p["high"]:
        raise InputRangeError("high", p["high"], f"(low, inf) = ({p['low']:g}, inf)")
    if dist == "triangular":
        if not p["low"] < p["high"]:
            raise InputRangeError("high", p["high"], f"(low, inf) = ({p['low']:g}, inf)")
        chk.number("mode", p["mode"], p["low"], p["high"])
    if dist == "normal":
        chk.positive("sd", p["sd"])
    if dist == "lognormal":
        chk.positive("median", p["median"])
        chk.positive("sigma", p["sigma"])
    if "min" in p and "max" in p and not p["min"] < p["max"]:
        raise InputRangeError("max", p["max"], f"(min, inf) = ({p['min']:g}, inf)")
    return p


def draw(dist: str, params: Mapping[str, object], n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` draws of one distribution (see the module docstring for the parameters).

    Parameters
    ----------
    dist : {"uniform", "normal", "triangular", "lognormal"}
    params : mapping of str to float
        The distribution's parameters; ``min``/``max`` truncate normal and lognormal draws.
    n : int
        Number of draws (>= 1).
    rng : numpy.random.Generator
        The source of randomness (``numpy.random.default_rng(seed)``).

    Returns
    -------
    ndarray
        ``n`` floats.

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> x = draw("normal", {"mean": 0.13, "sd": 0.05, "min": 0.0}, 10_000, rng)
    >>> bool(x.min() >= 0.0), round(float(np.median(x)), 2)
    (True, 0.13)
    """
    p = check(dist, params)
    n = int(chk.positive("n", n))
    out = _raw(dist, p, n, rng)
    lo, hi = p.get("min", -np.inf), p.get("max", np.inf)
    bad = (out < lo) | (out > hi)
    rounds = 0
    while bad.any():
        rounds += 1
        if rounds > MAX_ROUNDS:
            raise InputRangeError(
                "min/max",
                [lo, hi],
                f"bounds that hold a fair share of the {dist} distribution "
                f"(after {MAX_ROUNDS} redraws {int(bad.sum())} of {n} draws are still outside)",
            )
        out[bad] = _raw(dist, p, int(bad.sum()), rng)
        bad = (out < lo) | (out > hi)
    return out


def _raw(dist: str, p: dict[str, float], n: int, rng: np.random.Generator) -> np.ndarray:
    if dist == "uniform":
        return rng.uniform(p["low"], p["high"], n)
    if dist == "normal":
        return rng.normal(p["mean"], p["sd"], n)
    if dist == "triangular":
        return rng.triangular(p["low"], p["mode"], p["high"], n)
    return rng.lognormal(np.log(p["median"]), p["sigma"], n)


def describe(dist: str, params: Mapping[str, float]) -> str:
    """A one-line description, e.g. ``triangular(low=0.35, mode=0.45, high=0.55)``.

    >>> describe("normal", {"mean": 0.13, "sd": 0.02, "min": 0.0})
    'normal(mean=0.13, sd=0.02, min=0)'
    """
    return f"{dist}(" + ", ".join(f"{k}={v:g}" for k, v in params.items()) + ")"
