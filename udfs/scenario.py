"""Scenarios: the whole model chain for many scenarios at once, from named inputs.

A scenario is a set of named inputs (the names below; the finance workbook's Inputs and the batch
files use the same ones). Text inputs pick presets; numeric inputs override what the presets give.
A missing input, or NaN in a numeric one (an empty cell in a CSV), means "use the preset".

>>> out = evaluate({"system": ["H100_HGX", "GB200_NVL72"], "mfu": [0.54, 0.54]})
>>> [round(float(x), 4) for x in out["tco_usd_per_gpu_hour"]]
[1.4199, 2.2494]
>>> round(float(out["usd_per_mtok"][0]), 4)
0.7966
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from . import _check as chk
from . import chain, curves, presets, project, yearflows
from ._parallel import each_chunk
from ._parallel import threads as threads  # scenario.threads(): the chunks evaluate runs at once
from .compute import CONVENTIONS
from .errors import GputcoError, InputRangeError, MissingValueError, UnknownNameError

#: Every scenario input, in column order (the chain's inputs that a scenario can set). Each has
#: ``name``, ``kind`` ("text" or "number"), ``unit``, ``default`` ("preset": from the presets) and
#: ``doc``.
INPUTS = chain.SCENARIO_INPUTS
INPUT_NAMES = tuple(i.name for i in INPUTS)
#: the project's results beside the chain's (docs/project.md): name -> unit
PROJECT_OUTPUTS = {k: v[1] for k, v in chain.PROJECT_OUTPUTS.items()}
#: results :func:`evaluate` gives only where asked for (``extra``): the DSCR break-even rent
#: (:data:`gputco.udfs.project.DSCR_BREAKEVEN`, its search evaluates ``min_dscr`` about 40 times)
#: and its reason's code (:data:`gputco.udfs.project.DSCR_BREAKEVEN_REASONS`; NaN without a rent)
EXTRA_OUTPUTS = (project.DSCR_BREAKEVEN, f"{project.DSCR_BREAKEVEN}_why")
TEXT_INPUTS = tuple(i.name for i in INPUTS if i.kind == "text")


def text_key(name: str, text: str) -> str:
    """The key a text input's value names: a preset's (system, buyer, model), the precision's, a
    project choice's (periods, depreciation method) or the FLOPs convention's; UnknownNameError
    names the input, the value and the keys it may take."""
    if name in ("system", "buyer", "model"):
        return presets.lookup(name, text).key
    if name == "precision":
        return presets.precision_key(text)
    if name in project.CHOICES:
        return project.choice(name, text)
    if name in project.CURVE_TERMS:  # a curve: its text as given, once read (udfs/curves.py)
        curves.parse(name, text)
        return text.strip()
    key = presets.normalize(text)
    if key not in CONVENTIONS:
        raise UnknownNameError("convention", text, CONVENTIONS)
    return key


def __getattr__(name: str) -> object:
    """``OUTPUTS``: every result column with its unit, read from the chain when asked (so a step
    added with :func:`gputco.udfs.chain.add_step` is a result too); the results computed from the
    project's period table under their project names (:func:`gputco.udfs.chain.project_name`:
    ``project_npv_usd_per_gpu``, ``project_irr``...)."""
    if name == "OUTPUTS":
        return {chain.project_name(k): unit for k, unit in chain.outputs().items()}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@dataclass(frozen=True)
class Coded:
    """A text column as integer codes into a list of categories (dictionary encoding)."""

    codes: np.ndarray
    categories: Sequence[str]


@dataclass
class _Shared:
    """A value that depends on the text inputs only: one entry per combination of them that the
    scenarios use (``table``: floats, or a :class:`Coded` of text), and per scenario its
    combination (``codes``). A step whose arguments are all shared or scalar runs on the tables
    (a few entries, not one per scenario); :func:`_full` gathers a value per scenario, once."""

    codes: np.ndarray
    table: Any
    rows: np.ndarray | None = None
    #: the table's least and largest number, worked out once (:meth:`bounds`)
    extent: tuple[float, float] | None = None

    def full(self) -> Any:
        if self.rows is None:
            if isinstance(self.table, Coded):
                return Coded(self.table.codes[self.codes], self.table.categories)
            self.rows = self.table.take(self.codes)
        return self.rows

    def at(self, idx: np.ndarray | slice) -> Any:
        """The value on the scenarios ``idx``; within :func:`gputco.udfs._check.extents_kept`
        numbers carry the table's least and largest, so a check of them reads the table only."""
        if isinstance(self.table, Coded) and self.rows is None:
            return Coded(self.table.codes[self.codes[idx]], self.table.categories)
        got = self.rows[idx] if self.rows is not None else self.table.take(self.codes[idx])
        if not isinstance(self.table, Coded):
            chk.keep_extent(got, *self.bounds())
        return got

    def bounds(self) -> tuple[float, float]:
        """The least and largest number of the table (NaN if it has one: the checks then read
        the values themselves, and name the scenario)."""
        if self.extent is None:
            self.extent = (
                (float(np.min(self.table)), float(np.max(self.table)))
                if np.size(self.table)
                else (np.nan, np.nan)
            )
        return self.extent


def _full(value: Any) -> Any:
    """A used value as the steps take it per scenario: shared ones gathered, others as they are."""
    return value.full() if isinstance(value, _Shared) else value


def _coded(name: str, value: object) -> Coded:
    if isinstance(value, Coded):
        return value
    if value is None or isinstance(value, str):
        default = chain.get_input(name).default
        # one code for every scenario (a column of n zeros cost a millisecond per million)
        return Coded(np.zeros(1, dtype=np.intp), [cast(str, default) if value is None else value])
    arr = np.asarray(value, dtype=object)
    if name in project.CURVE_TERMS:  # an empty cell: no curve (None would read as "None")
        arr = np.array(["" if v is None else v for v in arr.reshape(-1).tolist()], dtype=object)
    cats, codes = np.unique(arr.astype(str), return_inverse=True)
    return Coded(codes.reshape(-1), list(cats))


def _resolve(kind: str, col: str, coded: Coded) -> list:
    try:
        return [presets.lookup(kind, c) for c in coded.categories]
    except UnknownNameError as err:
        raise UnknownNameError(col, err.value, err.valid) from None


def _length(inputs: Mapping[str, Any]) -> int:
    lengths = {
        len(v.codes) if isinstance(v, Coded) else np.shape(v)[0]
        for v in inputs.values()
        if isinstance(v, Coded) or not (v is None or isinstance(v, str) or np.ndim(v) == 0)
    }
    if len(lengths) > 1:
        raise InputRangeError("scenario columns", sorted(lengths), "columns of one length")
    return lengths.pop() if lengths else 1


def _override(inputs, name, preset_values, n):
    """The preset values (scalar or per scenario), replaced by the user's where given and not NaN."""
    if inputs.get(name) is None:
        return preset_values
    user = chk.as_float(name, inputs[name])
    if user.ndim == 0:
        return preset_values if np.isnan(user) else float(user)
    nan = np.isnan(user)
    return np.where(nan, _full(preset_values), user) if nan.any() else user


def used_inputs(inputs: Mapping[str, Any]) -> dict[str, np.ndarray]:
    """The numeric values the chain uses for every scenario: the user's, else the presets'.

    Parameters
    ----------
    inputs : mapping of str to scalar, array_like or Coded
        As for :func:`evaluate`.

    Returns
    -------
    dict of str to ndarray
        Every numeric input of :data:`INPUT_NAMES` (``capex_per_gpu`` is the system's preset
        price x the buyer's ``capex_multiplier`` unless given) plus ``flops_per_token``, one value
        per scenario. The sensitivity sheet of a scenario workbook moves these values.

    Examples
    --------
    >>> used = used_inputs({"system": "GB200_NVL72", "mfu": 0.5})
    >>> round(float(used["pue"][0]), 3), round(float(used["capex_per_gpu"][0]))
    (1.3, 54167)
    """
    n, used = _used(inputs)
    _run(used, n, until="flops_per_token")
    keys = [*(i.name for i in INPUTS if i.kind == "number"), "flops_per_token"]
    return {k: np.broadcast_to(np.asarray(_full(used[k]), dtype=float), (n,)) for k in keys}


def _used(inputs: Mapping[str, Any], need_mfu: bool = True) -> tuple[int, dict[str, Any]]:
    """(number of scenarios, the numeric values the chain uses: scalars, per-scenario arrays, or
    :class:`_Shared` tables of the values that depend on the text inputs only)."""
    unknown = set(inputs) - set(INPUT_NAMES)
    if unknown:
        raise UnknownNameError("scenario input", sorted(unknown)[0], INPUT_NAMES)
    if need_mfu and inputs.get("mfu") is None:
        raise MissingValueError("mfu", "every scenario needs an MFU in (0, 1]")
    n = _length(inputs)
    text = {name: _coded(name, inputs.get(name)) for name in TEXT_INPUTS}
    codes, combo = _combinations(text)

    tables = {
        "system": _resolve("system", "system", text["system"]),
        "buyer": _resolve("buyer", "buyer", text["buyer"]),
        "model": _resolve("model", "model", text["model"]),
    }
    precs = [presets.precision_key(p) for p in text["precision"].categories]
    for conv in text["convention"].categories:
        if presets.normalize(conv) not in CONVENTIONS:
            raise UnknownNameError("convention", conv, CONVENTIONS)

    def shared(table: Any) -> Any:
        """A value per combination of the text inputs: a scalar where there is one."""
        if codes is None:
            return table if isinstance(table, Coded) else float(table[0])
        return _Shared(codes, table)

    def preset(p: chain.Preset) -> np.ndarray:
        """A preset field per combination of the text inputs."""
        rows, at = tables[p.table], combo[p.table]
        if "{precision}" not in p.field:
            return np.array([r.value(p.field) for r in rows], dtype=float)[at]
        tab = np.array(
            [
                [
                    np.nan
                    if r.get(p.field.format(precision=pr)) is None
                    else r.get(p.field.format(precision=pr))
                    for pr in precs
                ]
                for r in rows
            ]
        )
        return tab[at, combo["precision"]]

    used: dict[str, Any] = {
        k: shared(Coded(combo[k], text[k].categories))
        for k in ("convention", *project.CHOICES, *project.CURVE_TERMS)
    }
    for i in chain.INPUTS:
        if i.kind == "text":
            continue
        if i.default is None:  # required (mfu): checked by the steps that read it
            used[i.key] = inputs.get(i.key)
        elif i.default == chain.OPTIONAL:  # NaN where not given: its steps are empty there
            used[i.key] = _override(inputs, i.key, np.nan, n)
        elif isinstance(i.default, chain.Like):
            used[i.key] = _override(inputs, i.key, used[i.default.key], n)
        elif i.default != chain.PRESET:
            used[i.key] = _override(inputs, i.key, float(cast(Any, i.default)), n)
        else:
            value = np.ones(len(combo["system"]))
            for p in i.presets:
                value = value * preset(p)
            got = _override(inputs, i.key, shared(value), n) if i.scenario_input else shared(value)
            # every combination in a shared table is some scenario's: its NaN is a scenario's
            missing = np.isnan(got.table if isinstance(got, _Shared) else got)
            if missing.any():  # a preset the system does not have (FP4 on H100), not given
                if isinstance(got, _Shared):
                    missing = missing[got.codes]
                row = int(np.argmax(missing)) if missing.ndim else 0
                sy = tables["system"][_code_at(text["system"], row)].key
                pr = precs[_code_at(text["precision"], row)]
                raise MissingValueError(
                    i.key,
                    f"system {sy} has no {pr} {i.key} preset (scenario {row}); give "
                    f"{i.key} or another precision",
                )
            used[i.key] = got
    return n, used


def _code_at(coded: Coded, row: int) -> int:
    codes = np.asarray(coded.codes).reshape(-1)
    return int(codes[row] if codes.size > 1 else codes[0])


#: the most combinations of text inputs counted by a table (more: sorted out with np.unique)
_MAX_COMBINATIONS = 1 << 22


def _combinations(text: dict[str, Coded]) -> tuple[np.ndarray | None, dict[str, np.ndarray]]:
    """The combinations of the text inputs the scenarios use: per scenario its combination (None
    where every scenario has the same one), and per text input its category code in each
    combination."""
    combined, strides, size, fixed = None, {}, 1, {}
    for name, coded in text.items():
        c = np.asarray(coded.codes).reshape(-1)
        k = len(coded.categories)
        if c.size <= 1 or k == 1:
            fixed[name] = int(c[0]) if c.size else 0
            continue
        c = c.astype(np.intp, copy=False)
        strides[name] = (size, k)
        combined = c if combined is None else combined + c * size
        size *= k
    if combined is None:
        return None, {name: np.array([v], dtype=np.intp) for name, v in fixed.items()}
    if size <= _MAX_COMBINATIONS:
        present = np.bincount(combined, minlength=size) > 0
        found = np.flatnonzero(present)
        if found.size < size:  # only the combinations some scenario has (no step sees the others)
            combined = (np.cumsum(present) - 1)[combined]
    else:
        found, combined = np.unique(combined, return_inverse=True)
    combo = {name: np.full(found.size, v, dtype=np.intp) for name, v in fixed.items()}
    for name, (stride, k) in strides.items():
        combo[name] = (found // stride) % k
    return combined, combo


#: scenarios whose per-year cash-flow table is built at once: memory for the rent-or-buy steps is
#: bounded by about CHUNK_ROWS x 16 years x 8 bytes per table column, whatever the scenario count
CHUNK_ROWS = 32768


def _run(
    used: dict[str, Any], n: int, until: str | None = None, wanted: tuple[str, ...] = ()
) -> dict[str, Any]:
    """Run the chain's steps in order on the used values (up to and including ``until``).

    A step whose arguments depend on the text inputs only runs once on their tables; the steps
    that read a per-scenario value run on chunks of :data:`ROW_CHUNK` scenarios, one chunk
    through all of them at a time (their temporaries stay in the cache). A step that reads an
    optional input (the rent), directly or through other steps or the per-year table, runs only
    on the scenarios that give it; it is NaN on the others. The steps that read the per-year
    table run after the others (no other step reads them), on chunks of :data:`CHUNK_ROWS`
    scenarios, so the table never exists for all scenarios at once. Where a step fails, the
    steps run again one after the other on every scenario, so the error is the one the first
    failing step gives for the first bad scenario. The shared values among ``wanted`` (the
    values the caller takes per scenario) are gathered chunk by chunk with the per-scenario
    steps, while each chunk's combinations are in the cache, not once over all scenarios each.
    """
    plan = []
    for entry in _plan():
        plan.append(entry)
        if entry[0].key == until:
            break
    try:
        _by_kind(plan, used, n, wanted)
    except GputcoError:
        for step, reads_table, optional in plan:
            if not reads_table:
                used[step.key] = _on_given_rows(step, used, n) if optional else _apply(step, used)
        raise AssertionError("a step failed on chunks but not on every scenario") from None
    table = [step for step, reads_table, _ in plan if reads_table]
    if table:
        _table_steps(table, used, n, tuple(k for k in wanted if k in EXTRA_OUTPUTS))
    return used


#: scenarios per chunk of the steps that read a per-scenario value (8 bytes each: 512 KiB arrays)
ROW_CHUNK = 1 << 16


def _by_kind(plan: list, used: dict[str, Any], n: int, wanted: tuple[str, ...] = ()) -> None:
    """The steps of ``plan`` but those reading the per-year table: the shared ones at once, the
    per-scenario ones chunk by chunk, then the optional ones."""
    rows: list[chain.Step] = []
    later: list[chain.Step] = []
    pending: set[str] = set()
    for step, reads_table, optional in plan:
        if reads_table:
            continue
        if optional:
            later.append(step)
        elif pending.intersection(step.args) or any(_per_row(used[a]) for a in step.args):
            rows.append(step)
            pending.add(step.key)
        else:
            used[step.key] = _apply(step, used)
    if rows:
        row_keys = {step.key for step in rows}
        read_later = {a for step, _, _ in plan if step.key not in row_keys for a in step.args}
        read_later.update(yearflows.INPUTS)  # the per-year table reads its inputs by name
        kept = {*wanted, *read_later} if wanted else None
        _row_steps(rows, used, n, [k for k in wanted if _gathered(used.get(k))], kept)
    for step in later:
        used[step.key] = _on_given_rows(step, used, n)


def _row_steps(
    steps: list[chain.Step], used: dict[str, Any], n: int, shared: list[str], kept: set[str] | None = None
) -> None:
    """Steps that read per-scenario values, a chunk of scenarios through all of them at a time;
    the ``shared`` values (gathered per scenario for the caller) are gathered chunk by chunk too,
    each into its column, which the steps that read it read there. Of the steps' results only
    those in ``kept`` (None: all) get a column for every scenario: an intermediate no caller and
    no later step reads stays in its chunk."""
    keys = {step.key for step in steps}
    reads = {a for step in steps for a in step.args if a not in keys}
    if any(not isinstance(used[a], np.ndarray | _Shared) and _per_row(used[a]) for a in reads):
        for step in steps:  # lists as given: each step converts (and checks) them
            used[step.key] = _apply(step, used)
        return
    out = {key: np.empty(n) for key in (*keys, *shared) if kept is None or key in kept or key in shared}
    extents = {
        a: used[a].bounds()
        for a in (*reads, *shared)
        if isinstance(used[a], _Shared) and not isinstance(used[a].table, Coded)
    }

    def chunk(rows: slice) -> None:
        with chk.extents_kept():  # an array several steps check is reduced once
            here = {a: out[a][rows] for a in shared}
            for a in shared:
                used[a].table.take(used[a].codes[rows], out=here[a], mode="clip")  # codes in range
            here.update((a, _rows_of(used[a], rows, n)) for a in reads if a not in here)
            for a, (least, most) in extents.items():  # gathered from a table: its extent
                if a in here:
                    chk.keep_extent(here[a], least, most)
            for step in steps:
                here[step.key] = got = step.func(*(here[a] for a in step.args))
                if step.key in out:
                    out[step.key][rows] = got

    each_chunk(chunk, (slice(start, min(n, start + ROW_CHUNK)) for start in range(0, n, ROW_CHUNK)))
    for a in shared:
        used[a].rows = out.pop(a)
    used.update(out)


def _gathered(value: Any) -> bool:
    """Whether a used value is a shared table of numbers not yet gathered per scenario."""
    return isinstance(value, _Shared) and value.rows is None and not isinstance(value.table, Coded)


_PLANS: list[tuple[tuple, list]] = []


def _plan() -> list[tuple[chain.Step, bool, tuple[str, ...]]]:
    """Each step of the chain with whether it reads the per-year table and the optional inputs
    it needs; worked out once per set of steps (a step added to the chain makes a new one)."""
    if not _PLANS or _PLANS[0][0] is not chain.STEPS:
        plan = [
            (s, chain.reads_year_table(s.key), tuple(chain.optional_inputs_of(s.key))) for s in chain.STEPS
        ]
        _PLANS[:] = [(chain.STEPS, plan)]
    return _PLANS[0][1]


def _apply(step: chain.Step, used: dict[str, Any]) -> Any:
    """A step on the used values: on the tables where every argument is shared or a scalar (the
    result is shared too), else per scenario. An error on the tables is raised again by the run
    per scenario, which names the scenario."""
    args = [used[a] for a in step.args]
    tables = [a for a in args if isinstance(a, _Shared)]
    if tables and not any(_per_row(a) for a in args):
        try:
            got = step.func(*(a.table if isinstance(a, _Shared) else a for a in args))
        except GputcoError:
            pass
        else:
            table = tables[0].table
            size = len(table.codes) if isinstance(table, Coded) else len(table)
            return _Shared(tables[0].codes, np.broadcast_to(np.asarray(got, dtype=float), (size,)))
    return step.func(*(_full(a) for a in args))


def _per_row(value: Any) -> bool:
    """Whether a used value has one element per scenario (an array, or a list as given)."""
    if isinstance(value, _Shared | Coded):
        return False
    return isinstance(value, list | tuple) or np.ndim(value) > 0


def _rows_of(value: object, rows: np.ndarray | slice, n: int) -> Any:
    """A used value on some scenarios: per-scenario arrays sliced, scalars as they are."""
    if isinstance(value, _Shared):
        return value.at(rows)
    if isinstance(value, Coded):  # one text for every scenario
        return value
    arr = np.asarray(value, dtype=float)
    return arr[rows] if arr.ndim and arr.shape[0] == n else arr


def _at(value: Any, idx: np.ndarray, n: int) -> Any:
    """A used value on the scenarios ``idx``, one element each (scalars repeated)."""
    if isinstance(value, _Shared):
        return value.at(idx)
    if isinstance(value, Coded):
        return Coded(np.broadcast_to(value.codes, (n,))[idx], value.categories)
    return np.broadcast_to(np.asarray(value, dtype=float), (n,))[idx]


def _on_given_rows(step: chain.Step, used: dict[str, Any], n: int) -> np.ndarray | np.float64:
    """A step that depends on optional inputs, on the rows that give the ones it needs (NaN
    elsewhere)."""
    given = _given(used, chain.optional_inputs_of(step.key), n)
    if not given.any():
        return _NOTHING
    out = np.full(n, np.nan)
    out[given] = step.func(*(_rows_of(used[a], given, n) for a in step.args))
    return out


#: a result no scenario has (no scenario gives its optional input): NaN, as a scalar
_NOTHING = np.float64(np.nan)


def _given(used: dict[str, Any], names, n: int) -> np.ndarray:
    """The scenarios that give every optional input of ``names`` (not NaN)."""
    given = None
    for k in names:
        value = np.asarray(_full(used[k]), dtype=float)
        if value.ndim == 0:  # one value for all: all or none
            if np.isnan(value):
                return np.zeros(n, dtype=bool)
            continue
        here = ~np.isnan(value)
        given = here if given is None else given & here
    return np.ones(n, dtype=bool) if given is None else given


_YEAR_KEYS = frozenset(y.key for y in chain.YEAR_STEPS)


def _table_steps(steps: list[chain.Step], used: dict[str, Any], n: int, extra: tuple[str, ...] = ()) -> None:
    """The steps that read the per-year table (chain.YEAR_STEPS), chunk by chunk of the scenarios
    that give the table's optional inputs (the rent); NaN on the others. Where every step that
    reads a column of the table has a kernel in :data:`gputco.udfs.yearflows.FROM_FLOWS`, only
    the table's net and revenue are built (:func:`gputco.udfs.yearflows.by_period`); otherwise
    the table's every column, by the chain's own functions; with ``extra`` (of
    :data:`EXTRA_OUTPUTS`) those too."""
    needs = {k for y in chain.YEAR_STEPS for k in chain.optional_inputs_of(y.key)}
    rows = np.flatnonzero(_given(used, needs, n))
    for key in (*(s.key for s in steps), *chain.PROJECT_OUTPUTS, *extra):
        used[key] = np.full(n, np.nan) if rows.size else _NOTHING
    if not rows.size:
        return
    gives = {s.key: _given(used, chain.optional_inputs_of(s.key), n) for s in steps}
    fast = all(s.key in yearflows.FROM_FLOWS for s in steps if _YEAR_KEYS & set(s.args))

    def chunk(start: int) -> None:
        with chk.extents_kept():  # an array several checks read is reduced once
            for idx in _period_groups(used, rows[start : start + CHUNK_ROWS], n):
                group(idx)

    def group(idx: np.ndarray) -> None:
        """The steps on the scenarios ``idx`` of one kind of period."""
        values = _year_flows(used, idx, n) if fast else _year_table(used, idx, n)
        here: dict[str, Any] = {}  # the used values on these rows, each gathered once
        for s in steps:
            sub = gives[s.key][idx]
            if not sub.any():
                continue
            if fast and s.key in yearflows.FROM_FLOWS:
                for a in _kernel_inputs(s):
                    if a not in here:
                        here[a] = _rows_of(used[a], idx, n)
                got = yearflows.FROM_FLOWS[s.key](values, here)
                if not sub.all():
                    got = np.where(sub, got, np.nan)
            else:
                args = [values[a] if a in values else _rows_of(used[a], idx, n) for a in s.args]
                if not sub.all():
                    args = [a[sub] if np.ndim(a) and len(a) == idx.size else a for a in args]
                got = np.full(idx.size, np.nan)
                got[sub] = s.func(*args)
            values[s.key] = got
            used[s.key][idx] = got
        if fast:
            _project_results(values, used, idx, n, extra)

    each_chunk(chunk, range(0, rows.size, CHUNK_ROWS))


def _kernel_inputs(step: chain.Step) -> list[str]:
    """The used values a FROM_FLOWS kernel may read: the step's arguments that are not columns of
    the per-year table, the cost of capital and the tax rate."""
    return list(
        dict.fromkeys([*(a for a in step.args if a not in _YEAR_KEYS), "cost_of_capital", "tax_rate"])
    )


def _of_scenario(err: InputRangeError, idx: np.ndarray, n: int) -> InputRangeError:
    """``err`` of the scenarios ``idx`` again, naming the scenario by its index among all ``n``;
    a group of one scenario among several is named too (its error has no index of its own), so
    batch can say the row."""
    if err.index is not None:
        at: tuple[int, ...] | None = (int(idx[err.index[0]]),)
    else:
        at = (int(idx[0]),) if idx.size == 1 and n > 1 else None
    return InputRangeError(err.arg, err.value, err.valid, at)


def _whole_years(a: str, arr: np.ndarray, idx: np.ndarray, n: int) -> np.ndarray | float:
    """Life and depreciation are whole years 1..15 where the table is built; an error names the
    scenario (its index among all the scenarios)."""
    try:
        return chk.checked(a, arr, "TCO_CASHFLOWS")
    except InputRangeError as err:
        raise _of_scenario(err, idx, n) from None


def _year_flows(used: dict[str, Any], idx: np.ndarray, n: int) -> dict[str, Any]:
    """The cash flows of the scenarios ``idx`` (periods, scenarios), which share one kind of
    period; an error names the scenario (its index among all the scenarios)."""
    cols: dict[str, Any] = {}
    for a in yearflows.INPUTS:
        v = used[a]  # a value shared by every scenario stays one (the terms broadcast it)
        arr = _at(v, idx, n) if a == "capex_per_gpu" or isinstance(v, _Shared) or _per_row(v) else v
        cols[a] = _whole_years(a, arr, idx, n) if a in ("life_years", "depreciation_years") else arr
    try:
        return yearflows.by_period(cols)
    except InputRangeError as err:
        raise _of_scenario(err, idx, n) from None


def _period_groups(used: dict[str, Any], idx: np.ndarray, n: int):
    """The scenarios ``idx`` in groups that share one kind of period (year, month)."""
    codes = _at(used["periods"], idx, n).codes
    if codes.min() == codes.max():
        yield idx
        return
    for c in np.unique(codes):
        yield idx[codes == c]


def _project_results(
    values: dict[str, Any], used: dict[str, Any], idx: np.ndarray, n: int, extra: tuple[str, ...] = ()
) -> None:
    """The project's own results (:data:`gputco.udfs.chain.PROJECT_OUTPUTS`) of the scenarios
    ``idx`` from their flows, per GPU and for the cluster (x GPUs installed); with ``extra`` the
    DSCR break-even rent and its reason (:func:`gputco.udfs.project.dscr_breakeven_rent`)."""
    t = values["terms"]
    # without debt the equity flows are the project's: their IRR is the chain's irr step's, not
    # solved a second time; their NPV at a cost of equity equal to the cost of capital likewise
    reused = {}
    if not values["levered"]:
        if "irr" in values:
            reused["equity_irr"] = values["irr"]
        if "npv_usd_per_gpu" in values and np.array_equal(t["cost_of_equity"], t["cost_of_capital"]):
            reused["equity_npv_usd_per_gpu"] = values["npv_usd_per_gpu"]
    need = tuple(
        v[3] for v in chain.PROJECT_OUTPUTS.values() if not chain.is_step(v[3]) and v[3] not in reused
    )
    got = {**project.summaries(values, t, values["ppy"], need), **reused}
    gpus = _at(used["cluster_gpus_installed"], idx, n)
    for key in chain.PROJECT_OUTPUTS:
        per_gpu = chain.PROJECT_OUTPUTS[key][3]
        value = _at(used[per_gpu], idx, n) if chain.is_step(per_gpu) else got[per_gpu]  # the step's own
        used[key][idx] = value * gpus if key.startswith("cluster_") else value
    if extra:
        used[EXTRA_OUTPUTS[0]][idx], used[EXTRA_OUTPUTS[1]][idx] = project.dscr_breakeven_rent(t)


def _refuse_project_terms(used: dict[str, Any], idx: np.ndarray, n: int) -> None:
    """An error naming the first project input of the scenarios ``idx`` away from its default."""
    for name in project.PROJECT_INPUTS:
        default = {**project.CHOICES, **project.CURVE_TERMS}.get(name, project.TERMS.get(name))
        value = _at(used[name], idx, n)
        if isinstance(value, Coded):
            off = np.asarray(value.categories, dtype=str)[value.codes] != default
        elif isinstance(default, str):  # its default is another input's value
            off = ~np.isnan(value) & (value != _at(used[default], idx, n))
        else:
            off = value != default
        if off.any():
            at = int(np.argmax(off))
            got: str | float
            if isinstance(value, Coded):
                got = str(value.categories[int(value.codes[at])])
            else:
                got = float(value[at])
            shown = f"the {default}" if name not in project.CHOICES and isinstance(default, str) else default
            raise InputRangeError(
                name,
                got,
                f"its default ({shown}) where a step added without a kernel reads the per-year table, "
                "which has no project terms (docs/project.md)",
                (int(idx[at]),),
            )


def _year_table(used: dict[str, Any], idx: np.ndarray, n: int) -> dict[str, Any]:
    """The per-year cash-flow columns (chain.YEAR_STEPS) of the scenarios ``idx``, each an array
    (scenarios, 16 years). The table has no project terms (build, debt, MACRS...): a scenario
    that sets one to other than its default is refused, never computed without it."""
    _refuse_project_terms(used, idx, n)
    values: dict[str, Any] = {"year": np.arange(16, dtype=float).reshape(1, -1)}
    names = {a for y in chain.YEAR_STEPS for a in y.args} - _YEAR_KEYS
    for a in names - {"year"}:
        arr = _at(used[a], idx, n)
        if a in ("life_years", "depreciation_years"):
            arr = _whole_years(a, arr, idx, n)
        values[a] = np.asarray(arr, dtype=float).reshape(-1, 1)
    for y in chain.YEAR_STEPS:
        values[y.key] = y.func(*(values[a] for a in y.args))
    return {y.key: values[y.key] for y in chain.YEAR_STEPS}


def cost_per_gpu_hour(inputs: Mapping[str, Any]) -> dict[str, Any]:
    """The cost steps of the chain (capex to TCO per GPU-hour) without an MFU.

    >>> round(float(cost_per_gpu_hour({"system": "H100_HGX"})["tco_usd_per_gpu_hour"]), 4)
    1.4199
    """
    n, used = _used(inputs, need_mfu=False)
    return {k: _full(v) for k, v in _run(used, n, until="tco_usd_per_gpu_hour").items()}


def evaluate(inputs: Mapping[str, Any], extra: tuple[str, ...] = ()) -> dict[str, np.ndarray]:
    """Run the full chain for every scenario.

    Parameters
    ----------
    inputs : mapping of str to scalar, array_like or Coded
        Columns named as in :data:`INPUT_NAMES` (unknown names are an error). Text columns may be
        :class:`Coded` (dictionary-encoded, fast for millions of rows).

    Returns
    -------
    dict of str to ndarray
        The columns of :data:`OUTPUTS`, one value per scenario: each step of
        :data:`gputco.udfs.chain.STEPS` computed by its numpy function, those that read the cash
        flows from the project's period table and named so (``project_npv_usd_per_gpu``,
        ``project_irr``, ``project_payback_years``...: docs/project.md, "Which NPV is which";
        an old name raises an error naming the new one); then those of :data:`PROJECT_OUTPUTS`
        (the financed project: equity IRR and NPV, lowest DSCR, peak funding, cluster NPV; NaN
        without a rent); and those of ``extra`` (of :data:`EXTRA_OUTPUTS`: asked for by name, as
        ``gputco batch --dscr-breakeven`` does).
    """
    unknown = set(extra) - set(EXTRA_OUTPUTS)
    if unknown:
        raise UnknownNameError("extra output", sorted(unknown)[0], EXTRA_OUTPUTS)
    n, used = _used(inputs)
    keys = (*chain.outputs(), *chain.PROJECT_OUTPUTS, *extra)
    out = _run(used, n, wanted=keys)
    return chain.Results(
        (chain.project_name(k), np.broadcast_to(np.asarray(_full(out[k]), dtype=float), (n,))) for k in keys
    )
