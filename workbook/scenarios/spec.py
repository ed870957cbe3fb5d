"""The SPEC of a scenario workbook: a TOML file saying which inputs vary, which are fixed, and how to
probe the base scenario (sensitivity, Monte Carlo). ``gputco scenarios --example`` prints one.

Tables (keys are the scenario input names of :data:`gputco.udfs.scenario.INPUT_NAMES`):

- ``[grid]`` (required): ``input = [value, ...]``; ``zip = [["system", "mfu"]]`` makes the lists of
  a group vary together (one MFU per system); the workbook holds the Cartesian product, one
  row per scenario, the first key varying slowest. At most :data:`MAX_SCENARIOS` rows.
- ``[fixed]``: ``input = value`` for every scenario. Inputs in neither table take their default
  (model gpt3_175b, bf16, palm, 300B tokens, 128 GPUs...) or, for buyer and system values
  (capex, cost of capital, PUE...), the presets of each scenario's system and buyer type.
- ``[base]``: the base scenario of the Sensitivity and Monte Carlo sheets; by default each grid
  input's first value and the ``[fixed]`` values.
- ``[sensitivity]``: ``inputs = [...]`` (default :data:`DEFAULT_DRIVERS`, plus
  :data:`RENT_DRIVERS` when the base gives a rent: utilisation and availability where the base
  leaves them room below 1 for the swing) and ``swing``, the
  fraction each is moved down and up from its base value: one number (default 0.2) or a table
  ``{input = fraction}`` (inputs it leaves out take 0.2). PUE moves its overhead above 1
  (:data:`FLOORS`): PUE 1.3 at 20% gives 1.24 and 1.36, never below 1.
- ``[monte_carlo]``: ``draws`` (default 1000, at most :data:`MAX_DRAWS`), ``seed`` (default 0) and
  ``input = {dist = "...", ...}`` for each random input (see :mod:`gputco.udfs.sampling`).

Every problem raises one :class:`SpecError` whose message starts with the key, e.g.
``grid.pue: pue must be in [1, 5], got 0.9``.

>>> spec = parse_spec({"grid": {"system": ["H100_HGX", "gb200 nvl72"], "mfu": [0.4, 0.5]}})
>>> spec.n_scenarios, spec.grid["system"], spec.base["system"]
(4, ('H100_HGX', 'GB200_NVL72'), 'H100_HGX')
>>> parse_spec({"grid": {"muf": [0.4]}})  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
gputco.workbook.scenarios.spec.SpecError: grid.muf: unknown scenario input 'muf'; valid: ... Did you mean mfu?
"""

from __future__ import annotations

import functools
import math
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from gputco.udfs import ranges, sampling, scenario
from gputco.udfs.errors import GputcoError, UnknownNameError
from gputco.workbook.recalc import budgets, over

#: the most scenarios (rows) a workbook may hold. Measured: 10,000 take about 4 s to write and
#: 0.4 GB of memory, 100,000 about 40 s and 3 GB (the recalculation holds every cell), and Excel
#: itself slows down with millions of formulas; ``gputco batch`` runs millions of scenarios.
MAX_SCENARIOS = 100_000
#: the most Monte Carlo draws
MAX_DRAWS = 100_000
#: the drivers of the Sensitivity sheet when the SPEC names none
DEFAULT_DRIVERS = ("mfu", "usd_per_kwh", "cost_of_capital", "life_years", "pue", "capex_per_gpu")
#: the default move of each driver: +/- 20% of its base value
DEFAULT_SWING = 0.2
DEFAULT_DRAWS = 1000
#: drivers moved about a floor rather than zero: low = floor + (base - floor) x (1 - swing)
#: a curve's shift and slope and the contract escalation multiply by (1 + x): they move as that
#: multiplier, about -1, so a base of 0 at 20% gives -0.2 and +0.2 (docs/scenarios.md)
FLOORS = {
    "pue": 1.0,
    **dict.fromkeys(
        (
            "rent_curve_shift",
            "rent_curve_slope",
            "value_curve_shift",
            "value_curve_slope",
            "contract_escalation_per_year",
        ),
        -1.0,
    ),
}
#: drivers added to the default tornado when the base scenario gives a rent (the NPV's drivers)
RENT_DRIVERS = ("rent_usd_per_gpu_hour", "utilisation", "availability")


TABLES = ("grid", "fixed", "base", "sensitivity", "monte_carlo")
NUMERIC = tuple(n for n in scenario.INPUT_NAMES if n not in scenario.TEXT_INPUTS)


class SpecError(GputcoError, ValueError):
    """A problem in a scenario SPEC; ``key`` is where (``grid.pue``), the message says what."""

    def __init__(self, key: str, detail: str) -> None:
        self.key = key
        super().__init__(f"{key}: {detail}")


@dataclass(frozen=True)
class MonteCarlo:
    """The Monte Carlo settings: draws, seed and each random input's distribution."""

    draws: int
    seed: int
    dists: dict[str, tuple[str, dict[str, float]]]

    def sample(self) -> dict[str, np.ndarray]:
        """The draws of every random input, from ``numpy.random.default_rng(seed)`` in SPEC order
        (drawn once: every caller gets the same arrays, which nobody may change)."""
        return dict(self._draws)

    @functools.cached_property
    def _draws(self) -> dict[str, np.ndarray]:
        rng = np.random.default_rng(self.seed)
        out = {
            name: sampling.draw(dist, params, self.draws, rng) for name, (dist, params) in self.dists.items()
        }
        for name in set(out) & set(ranges.WHOLE_YEARS):  # whole years, at least one
            out[name] = np.maximum(1.0, np.floor(out[name] + 0.5))
        return out


#: the debt's waterfall inputs (docs/project.md): a SPEC that sets or moves one has its rows read
#: their own row absolutely (Layout's ``absolute_rows``; docs/scenarios.md "LibreOffice's formula
#: groups" says why)
WATERFALL = ("dsra_months", "sweep_fraction", "lockup_dscr")


@dataclass(frozen=True)
class Spec:
    """A validated SPEC. Text values are preset keys (``"H100_HGX"``), numbers are floats."""

    grid: dict[str, tuple]
    fixed: dict[str, object]
    base: dict[str, object]
    drivers: tuple[str, ...] = DEFAULT_DRIVERS
    swings: dict[str, float] = field(default_factory=dict)
    monte_carlo: MonteCarlo | None = None
    #: groups of grid inputs whose lists vary together (``zip = [["system", "mfu"]]``)
    zipped: tuple[tuple[str, ...], ...] = ()

    @property
    def waterfall(self) -> bool:
        """True where a row may have a reserve, sweep or lock-up (:data:`WATERFALL` other than 0
        in [fixed] or [base], listed in [grid], moved by the tornado or drawn by the Monte
        Carlo): LibreOffice 7.4's threaded calculation of formula groups computes such rows
        wrongly, so their formulas read their own row absolutely and form no groups."""
        drawn = self.monte_carlo.dists if self.monte_carlo else {}
        return any(
            self.base.get(k, 0) != 0
            or any(v != 0 for v in self.grid.get(k, ()))
            or k in self.drivers
            or k in drawn
            for k in WATERFALL
        )

    @property
    def n_scenarios(self) -> int:
        return math.prod(len(self.grid[axis[0]]) for axis in self.axes())

    def axes(self) -> list[tuple[str, ...]]:
        """The grid's axes in key order: a zipped group is one axis."""
        return _axes(self.grid, self.zipped)

    def swing(self, driver: str) -> float:
        return self.swings.get(driver, DEFAULT_SWING)

    def grid_columns(self) -> dict[str, object]:
        """The grid as columns, one element per scenario (text as :class:`gputco.udfs.scenario.Coded`)."""
        return _product(self.grid, self.zipped)

    def scenario_inputs(self) -> dict[str, object]:
        """Inputs of every scenario for :func:`gputco.udfs.scenario.evaluate`."""
        return {**self.fixed, **self.grid_columns()}

    @functools.cached_property
    def results(self) -> dict[str, np.ndarray]:
        """:func:`gputco.udfs.scenario.evaluate` of every scenario, in row order (computed once)."""
        return scenario.evaluate(self.scenario_inputs())

    @functools.cached_property
    def draw_results(self) -> dict[str, np.ndarray] | None:
        """The model at every Monte Carlo draw (the base with the drawn inputs; computed once)."""
        if self.monte_carlo is None:
            return None
        return scenario.evaluate({**self.base, **self.monte_carlo.sample()})

    def sensitivity_cases(self) -> list[tuple[str, float, float, float]]:
        """(driver, base value, low value, high value) for each driver: base x (1 -/+ swing),
        or floor + (base - floor) x (1 -/+ swing) for the drivers of :data:`FLOORS`."""
        used = scenario.used_inputs(self.base)
        out = []
        for d in self.drivers:
            b = float(used[d][0])
            s, f = self.swing(d), FLOORS.get(d, 0.0)
            lo, hi = f + (b - f) * (1 - s), f + (b - f) * (1 + s)
            if d in ranges.WHOLE_YEARS:  # whole years, at least one (as the sheet's ROUND)
                lo, hi = max(1.0, _round_half_up(lo)), max(1.0, _round_half_up(hi))
            out.append((d, b, lo, hi))
        return out


def _rent_drivers(base: Mapping, swing: float) -> tuple[str, ...]:
    """:data:`RENT_DRIVERS` that the swing can move within their range: utilisation and
    availability (fractions of at most 1) only where the base leaves room below 1 for the swing up
    (base x (1 + swing) <= 1; at the default 1 there is none, so list them yourself with a base
    below 1 to see them)."""
    used = scenario.used_inputs(dict(base))
    out = []
    for d in RENT_DRIVERS:
        hi = float(used[d][0]) * (1 + swing)
        if ranges.of(d).hi == math.inf or hi <= ranges.of(d).hi:
            out.append(d)
    return tuple(out)


def _round_half_up(x: float) -> float:
    """Excel's ROUND(x, 0) for x >= 0 (halves away from zero; Python's round() goes to even)."""
    return float(math.floor(x + 0.5))


def load_spec(path: str | Path, limits=None) -> Spec:
    """Read and validate a SPEC file (TOML); ``limits`` (default: the budgets the environment
    sets, see :func:`gputco.workbook.recalc.budgets`) bounds its nesting (``max_spec_depth``)."""
    from gputco.workbook.xlsx.files import check_input

    limits = budgets() if limits is None else limits
    path = check_input(path)
    deep = f"{path}: tables and arrays nested more than {limits.max_spec_depth} deep"
    try:
        data = tomllib.loads(_read_spec(path, limits).decode("utf-8"))
    except UnicodeDecodeError:
        raise SpecError(str(path), "not a text file (TOML is UTF-8 text)") from None
    except tomllib.TOMLDecodeError as err:
        raise SpecError(str(path), f"not valid TOML: {err}") from None
    except RecursionError:  # deeper than the TOML reader can go: far past any budget
        raise over("max_spec_depth", deep, limits) from None
    if _depth(data) > limits.max_spec_depth:
        raise over("max_spec_depth", deep, limits)
    return parse_spec(data)


def _read_spec(path: Path, limits) -> bytes:
    """The SPEC's bytes, refused past ``max_spec_bytes`` before any is parsed (a 100 MB SPEC took
    85 s and 2.2 GiB in the TOML reader): the size on disk first, then what is read (a pipe or a
    file that grows), at most one byte past the budget."""
    big = f"{path}: the SPEC is larger than {limits.max_spec_bytes:,} bytes"
    try:
        if path.stat().st_size > limits.max_spec_bytes:
            raise over("max_spec_bytes", big, limits)
        with open(path, "rb") as fh:
            data = fh.read(limits.max_spec_bytes + 1)
    except OSError as err:
        raise SpecError(str(path), f"cannot read it ({err.strerror or err})") from None
    if len(data) > limits.max_spec_bytes:
        raise over("max_spec_bytes", big, limits)
    return data


def _depth(data: object) -> int:
    """How deep tables and arrays nest (a scalar is 0), without recursion.

    >>> _depth({"a": [1, {"b": [2]}]}), _depth(3)
    (4, 0)
    """
    deepest, stack = 0, [(data, 1)]
    while stack:
        item, level = stack.pop()
        kids = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if kids is None:
            continue
        deepest = max(deepest, level)
        stack.extend((k, level + 1) for k in kids)
    return deepest


def parse_spec(data: Mapping[str, object]) -> Spec:
    """Validate a SPEC already read from TOML (a dict of tables)."""
    for key in data:
        if key not in TABLES:
            raise SpecError(key, _unknown("SPEC table", key, TABLES))
    tables = {}
    for key in TABLES:
        value = data.get(key, {})
        if not isinstance(value, dict):
            raise SpecError(key, f"must be a table ([{key}]), got {_show(value)}")
        tables[key] = value
    if not tables["grid"]:
        raise SpecError(
            "grid",
            "the SPEC needs a [grid] table: at least one input with a list of values, e.g. mfu = [0.4, 0.5]",
        )
    zipped = _zipped(tables["grid"].get("zip", []), tables["grid"])
    in_zip = {name for group in zipped for name in group}
    grid = {
        name: _grid_values(name, values, repeats=name in in_zip)
        for name, values in tables["grid"].items()
        if name != "zip"
    }
    n = math.prod(len(grid[axis[0]]) for axis in _axes(grid, zipped))
    if n > MAX_SCENARIOS:
        sizes = " x ".join(f"{k} {len(v)}" for k, v in grid.items())
        raise SpecError(
            "grid",
            f"{n:,} scenarios ({sizes}) is more than the limit of "
            f"{MAX_SCENARIOS:,} rows of formulas; shorten the lists, or run them "
            "with gputco batch (no formulas, millions of rows)",
        )
    fixed = {}
    for name, value in tables["fixed"].items():
        if name in grid:
            raise SpecError(f"fixed.{name}", "also in [grid]; give it in one of the two")
        fixed[name] = _scalar(f"fixed.{name}", name, value)
    base = {**fixed, **{k: v[0] for k, v in grid.items()}}
    base.update({name: _scalar(f"base.{name}", name, v) for name, v in tables["base"].items()})
    if "mfu" not in base:
        raise SpecError(
            "grid", "every scenario needs an MFU: put mfu in [grid] (a list) or [fixed] (one value)"
        )
    spec = Spec(grid, fixed, base, zipped=zipped)
    _check_values(spec, tables["base"])
    drivers, swings = _sensitivity(tables["sensitivity"])
    if "inputs" not in tables["sensitivity"] and "rent_usd_per_gpu_hour" in base:
        swing = tables["sensitivity"].get("swing", DEFAULT_SWING)
        one = DEFAULT_SWING if isinstance(swing, dict) else float(swing)  # one swing: theirs too
        added = _rent_drivers(base, one)  # with a rent: the NPV's drivers
        drivers = (*drivers, *added)
        swings = {**{d: one for d in added}, **swings}
    spec = Spec(grid, fixed, base, drivers, swings, _monte_carlo(tables["monte_carlo"]), zipped)
    _check_sensitivity(spec)
    _check_draws(spec)
    return spec


# --- values ----------------------------------------------------------------------------------


def _input_name(path: str, name: str) -> str:
    if name not in scenario.INPUT_NAMES:
        raise SpecError(path, _unknown("scenario input", name, scenario.INPUT_NAMES))
    return name


def _grid_values(name: str, values: object, repeats: bool = False) -> tuple:
    """A grid input's list; a value listed twice is an error unless the list is zipped (two
    systems may share 0.9 availability or 1,152 GPUs)."""
    path = f"grid.{_input_name(f'grid.{name}', name)}"
    if not isinstance(values, list):
        raise SpecError(
            path,
            f"must be a list of values, e.g. {name} = [...], got "
            f"{_show(values)} (one value for every scenario goes in [fixed])",
        )
    if not values:
        raise SpecError(path, "the list is empty; give at least one value")
    out = tuple(_scalar(path, name, v) for v in values)
    seen = set()
    for v in out:
        if v in seen and not repeats:
            raise SpecError(path, f"{_show(v)} is listed twice")
        seen.add(v)
    return out


def _scalar(path: str, name: str, value: object) -> object:
    """One validated value: a preset key for text inputs, a finite float for numbers."""
    _input_name(path, name)
    if isinstance(value, list | dict):
        raise SpecError(
            path,
            f"one value expected, got {_show(value)}"
            + (" (lists of values go in [grid])" if isinstance(value, list) else ""),
        )
    if name in scenario.TEXT_INPUTS:
        if not isinstance(value, str):
            raise SpecError(path, f"must be text (a name), got {_show(value)}")
        try:
            return scenario.text_key(name, value)
        except GputcoError as err:
            raise SpecError(path, str(err)) from None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise SpecError(path, f"must be a number, got {_show(value)}")
    if not math.isfinite(value):
        raise SpecError(path, f"must be a finite number, got {value}")
    return float(value)


def _check_values(spec: Spec, base_table: Mapping) -> None:
    """Run the model on the base and the whole grid (kept: :attr:`Spec.results`); where the grid
    fails, on each grid list first, to name the list at fault."""
    where = {**{k: "fixed" for k in spec.fixed}, **{k: "grid" for k in spec.grid}}
    _evaluate(lambda: scenario.evaluate(spec.base), "base", blame=where | {k: "base" for k in base_table})
    try:
        spec.results  # noqa: B018 (evaluated here, once, and kept)
    except GputcoError:
        first = {**spec.fixed, **{k: v[0] for k, v in spec.grid.items()}}
        for name, values in spec.grid.items():
            probe = {**first, name: list(values)}
            blame = {k: v for k, v in where.items() if k != name}
            _evaluate(lambda probe=probe: scenario.evaluate(probe), f"grid.{name}", blame=blame)
        _evaluate(lambda: spec.results, "grid", blame=where)


def _evaluate(run, path: str, blame: Mapping[str, str] | None = None) -> None:
    try:
        run()
    except GputcoError as err:
        arg = getattr(err, "arg", None)
        if arg == "peak_tflops" and blame and arg not in blame:
            arg = "precision"  # a system without that precision's peak: the precision is the fix
        if blame and arg in blame:
            path = f"{blame[arg]}.{arg}"
        raise SpecError(path, str(err)) from None


# --- sensitivity and Monte Carlo -------------------------------------------------------------


def _sensitivity(table: Mapping) -> tuple[tuple[str, ...], dict[str, float]]:
    for key in table:
        if key not in ("inputs", "swing"):
            raise SpecError(f"sensitivity.{key}", _unknown("sensitivity key", key, ("inputs", "swing")))
    drivers = table.get("inputs", list(DEFAULT_DRIVERS))
    if not isinstance(drivers, list) or not drivers:
        raise SpecError(
            "sensitivity.inputs",
            f"must be a non-empty list of numeric inputs, e.g. "
            f"{list(DEFAULT_DRIVERS[:2])}, got {_show(drivers)}",
        )
    for d in drivers:
        if not isinstance(d, str):
            raise SpecError("sensitivity.inputs", f"must list input names, got {_show(d)}")
        _input_name("sensitivity.inputs", d)
        if d not in NUMERIC:
            raise SpecError(
                "sensitivity.inputs", f"{d} is text; only numeric inputs can be moved: {', '.join(NUMERIC)}"
            )
    if len(set(drivers)) < len(drivers):
        twice = next(d for d in drivers if drivers.count(d) > 1)
        raise SpecError("sensitivity.inputs", f"{twice} is listed twice")
    swing = table.get("swing", DEFAULT_SWING)
    if isinstance(swing, dict):
        swings = {}
        for d, s in swing.items():
            if d not in drivers:
                raise SpecError(f"sensitivity.swing.{d}", "not one of sensitivity.inputs")
            swings[d] = _fraction(f"sensitivity.swing.{d}", s)
    else:
        s = _fraction("sensitivity.swing", swing)
        swings = {d: s for d in drivers}
    return tuple(drivers), swings


def _fraction(path: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < 1:
        raise SpecError(path, f"must be a fraction in (0, 1), e.g. 0.2 for +/-20%, got {_show(value)}")
    return float(value)


def _check_sensitivity(spec: Spec) -> None:
    for d, b, lo, hi in spec.sensitivity_cases():
        for label, value in (("low", lo), ("high", hi)):
            try:
                scenario.evaluate({**spec.base, d: value})
            except GputcoError as err:
                raise SpecError(
                    f"sensitivity.{d}",
                    f"the {label} case ({d} = {value:g}, the "
                    f"base {b:g} moved by {spec.swing(d):.0%}) is invalid: {err}; "
                    f"give a smaller swing, e.g. swing = {{ {d} = 0.1 }}",
                ) from None


def _monte_carlo(table: Mapping) -> MonteCarlo | None:
    if not table:
        return None
    draws = table.get("draws", DEFAULT_DRAWS)
    if isinstance(draws, bool) or not isinstance(draws, int) or not 1 <= draws <= MAX_DRAWS:
        raise SpecError(
            "monte_carlo.draws", f"must be a whole number in [1, {MAX_DRAWS:,}], got {_show(draws)}"
        )
    seed = table.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise SpecError("monte_carlo.seed", f"must be a whole number >= 0, got {_show(seed)}")
    dists = {}
    for name, value in table.items():
        if name in ("draws", "seed"):
            continue
        path = f"monte_carlo.{name}"
        if name not in scenario.INPUT_NAMES:
            raise SpecError(
                path, _unknown("Monte Carlo key (draws, seed or an input)", name, ("draws", "seed", *NUMERIC))
            )
        if name not in NUMERIC:
            raise SpecError(path, f"{name} is text; only numeric inputs take a distribution")
        if not isinstance(value, dict) or "dist" not in value:
            raise SpecError(
                path,
                "must be a table with dist and its parameters, e.g. "
                '{ dist = "uniform", low = 0.05, high = 0.12 }, got ' + _show(value),
            )
        params = {k: v for k, v in value.items() if k != "dist"}
        try:
            for k, v in params.items():
                if isinstance(v, bool) or not isinstance(v, int | float):
                    raise SpecError(f"{path}.{k}", f"must be a number, got {_show(v)}")
            dists[name] = (value["dist"], sampling.check(str(value["dist"]), params))
        except GputcoError as err:
            if isinstance(err, SpecError):
                raise
            raise SpecError(path, str(err)) from None
    if not dists:
        raise SpecError(
            "monte_carlo",
            "give at least one input's distribution, e.g. mfu = "
            '{ dist = "triangular", low = 0.35, mode = 0.45, high = 0.55 }',
        )
    return MonteCarlo(draws, seed, dists)


def _check_draws(spec: Spec) -> None:
    mc = spec.monte_carlo
    if mc is None:
        return
    try:
        spec.draw_results  # noqa: B018 (evaluated here, once, and kept)
        return
    except GputcoError:
        pass
    for name, values in mc.sample().items():  # which input's draws are at fault
        try:
            scenario.evaluate({**spec.base, name: values})
        except GputcoError as err:
            raise SpecError(
                f"monte_carlo.{name}",
                f"some draws are invalid: {err}; narrow the distribution or bound it with min/max",
            ) from None
    spec.draw_results  # noqa: B018 (fails again: the draws together)


# --- helpers ---------------------------------------------------------------------------------


def _zipped(value: object, table: Mapping) -> tuple[tuple[str, ...], ...]:
    """``zip = [["system", "mfu"], ...]`` in [grid]: inputs whose lists vary together (one MFU per
    system), each group of grid inputs with lists of one length."""
    if value == []:
        return ()
    if not isinstance(value, list) or not all(isinstance(g, list) and len(g) >= 2 for g in value):
        raise SpecError(
            "grid.zip",
            f'must be a list of groups of grid inputs, e.g. zip = [["system", "mfu"]], got {_show(value)}',
        )
    seen: set[str] = set()
    groups = []
    for group in value:
        for name in group:
            if name not in table or name == "zip":
                raise SpecError("grid.zip", f"{name!r} is not a list in [grid]")
            if name in seen:
                raise SpecError("grid.zip", f"{name!r} is in two groups")
            seen.add(name)
        lengths = {len(table[name]) if isinstance(table[name], list) else 1 for name in group}
        if len(lengths) > 1:
            sizes = ", ".join(f"{name} {len(table[name])}" for name in group)
            raise SpecError(
                "grid.zip", f"the lists of {', '.join(group)} vary together and need one length, got {sizes}"
            )
        groups.append(tuple(group))
    return tuple(groups)


def _axes(grid: Mapping[str, tuple], zipped) -> list[tuple[str, ...]]:
    """The grid's axes in key order: a zipped group is one axis, every other input its own."""
    group_of = {name: g for g in zipped for name in g}
    axes: list[tuple[str, ...]] = []
    for name in grid:
        axis = group_of.get(name, (name,))
        if axis not in axes:
            axes.append(axis)
    return axes


def _product(grid: Mapping[str, tuple], zipped=()) -> dict[str, object]:
    """Cartesian product of the axes as columns: the first varies slowest (as itertools.product);
    the inputs of a zipped group take their values together."""
    axes = _axes(grid, zipped)
    sizes = [len(grid[axis[0]]) for axis in axes]
    n = math.prod(sizes)
    index = np.arange(n)
    out = {}
    stride = n
    for axis, size in zip(axes, sizes, strict=True):
        stride //= size
        codes = (index // stride) % size
        for name in axis:
            values = grid[name]
            if name in scenario.TEXT_INPUTS:
                out[name] = scenario.Coded(codes, list(values))
            else:
                out[name] = np.asarray(values, dtype=float)[codes]
    return {name: out[name] for name in grid}


def _unknown(what: str, name: object, valid) -> str:
    return str(UnknownNameError(what, name, valid))


def _show(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
