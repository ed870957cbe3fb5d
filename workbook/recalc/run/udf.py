"""Custom (user-defined) functions such as gputco's ``TCO_*`` in headless recalculation.

A custom function is a plain Python callable taking Excel-shaped arguments exactly as xlwings
passes them: ``float``, ``None`` for an empty cell, ``str``, ``bool``, or a list of row lists for
a range; it returns a number, a ``"#..."`` error text, or a list of lists shaped like its range
inputs. For a group of n rows the callable is called ONCE with each per-row argument as an n x 1
list of lists (constants stay scalars), and its n x 1 result is mapped back to the rows. A text
result stays a text, also one starting with ``#`` (``"#N/A unknown system ..."``): Excel with
xlwings and LibreOffice with the gputco add-in show a failing TCO_ function as that text, so
``ISERROR`` is FALSE and ``ISTEXT`` TRUE there, and here too. Rows whose arguments hold an error
get that error without calling the function. If the one vectorised call fails, the rows are
called one by one; an exception in one call gives #VALUE! in that cell and is recorded in ``problems``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from gputco.workbook.recalc.base import vec
from gputco.workbook.recalc.base.rangeval import RangeVal, materialize
from gputco.workbook.recalc.base.values import VALUE, XlError, error
from gputco.workbook.recalc.functions import Spec


class TableResult(Exception):
    """A custom function returned a table (more than one value) where one value was expected."""


def spec_for(name: str, func: Callable, problems: list[str]) -> Spec:
    """The evaluator spec of a custom function (arguments passed raw: ranges stay ranges)."""

    def impl(ctx, *args):
        return call(name, func, ctx, args, problems)

    return Spec(impl, 0, 255, "r", needs_ctx=True)


def _python(v):
    if isinstance(v, np.floating):
        return float(v)
    if isinstance(v, np.bool_):
        return bool(v)
    return v


def _from_python(v):
    """A custom function's return value as an Excel value (a ``#...`` text stays a text)."""
    if isinstance(v, bool | np.bool_):
        return bool(v)
    if isinstance(v, int | float | np.integer | np.floating):
        x = float(v)
        return x if np.isfinite(x) else error("#NUM!")
    if v is None or isinstance(v, str):
        return v
    return VALUE


def call(name: str, func: Callable, ctx, args, problems: list[str]) -> np.ndarray:
    n = ctx.n
    scalars: list = []  # per argument: ("const", value) | ("rows", (m,) values) | ("range", LoL)
    for a in args:
        if a is None:
            scalars.append(("omit", None))
            continue
        arr = materialize(a) if isinstance(a, RangeVal) else a
        m, h, w = arr.shape
        if isinstance(a, RangeVal) and (a.h != h or a.w != w):  # clipped rows are blank
            pad = np.empty((m, a.h, a.w), dtype=object)
            pad[:, :h, :] = arr
            arr, h, w = pad, a.h, a.w
        if h == 1 and w == 1:
            vals = arr.reshape(m)
            scalars.append(("const", _python(vals[0])) if m == 1 else ("rows", vals))
        elif m == 1:
            scalars.append(("range", [[_python(v) for v in row] for row in arr[0].tolist()]))
        else:
            scalars.append(("moving", arr))
    # rows whose per-row arguments hold an error give that error
    out = np.empty(n, dtype=object)
    todo = np.ones(n, dtype=bool)
    for kind, v in scalars:
        if kind == "const" and isinstance(v, XlError):
            return vec.const(v)
        if kind == "rows":
            for i, x in enumerate(np.broadcast_to(v, (n,)).tolist()):
                if todo[i] and isinstance(x, XlError):
                    out[i], todo[i] = x, False
    rows = np.flatnonzero(todo)
    kinds = [k for k, _ in scalars]
    if not any(k in ("rows", "moving") for k, _ in scalars):
        value = _one(name, func, [v for _, v in scalars], kinds, problems, ctx, 0)
        return value if isinstance(value, np.ndarray) else vec.const(value)
    if len(rows) and not any(k in ("range", "moving") for k, _ in scalars):
        batch = [
            [[_python(x)] for x in np.broadcast_to(v, (n,))[rows]] if k == "rows" else v for k, v in scalars
        ]
        got = _batch(func, _trim(batch, kinds), len(rows))
        if got is not None:
            out[rows] = got
            return out.reshape(n, 1, 1)
    for i in rows.tolist():
        argv = []
        for kind, v in scalars:
            if kind == "rows":
                argv.append(_python(np.broadcast_to(v, (n,))[i]))
            elif kind == "moving":
                argv.append([[_python(x) for x in row] for row in v[i].tolist()])
            else:
                argv.append(v)
        out[i] = _one(name, func, argv, kinds, problems, ctx, i)
    return out.reshape(n, 1, 1)


def _trim(argv: list, kinds: list) -> list:
    """Drop trailing omitted arguments so the function's own defaults apply."""
    argv = list(argv)
    k = len(argv)
    while k and kinds[k - 1] == "omit":
        k -= 1
    return argv[:k]


def _batch(func, argv, n):
    try:
        res = func(*argv)
    except Exception:  # fall back to one call per row, which records the error
        return None
    if isinstance(res, np.ndarray):
        res = res.tolist()
    if not isinstance(res, list | tuple) or len(res) != n:
        return None
    flat = []
    for row in res:
        if isinstance(row, list | tuple):
            if len(row) != 1:
                return None
            row = row[0]
        flat.append(_from_python(row))
    return flat


def _one(name, func, argv, kinds, problems, ctx, i):
    try:
        res = func(*_trim(argv, kinds))
    except Exception as err:  # a UDF failure shows as #VALUE!, and is reported
        problems.append(
            f"{name} raised {type(err).__name__}: {err} (row {int(ctx.rows[min(i, len(ctx.rows) - 1)])})"
        )
        return VALUE
    if isinstance(res, np.ndarray):
        res = res.tolist()
    if isinstance(res, list | tuple):
        cells = [x for row in res for x in (row if isinstance(row, list | tuple) else [row])]
        if len(cells) != 1:
            if ctx.array and ctx.n == 1:  # an array formula (a block, or a spill) takes a table
                return _table(res)
            raise TableResult(name)
        res = cells[0]
    return _from_python(res)


def _table(res) -> np.ndarray:
    """A table (rows of cells, or one list of values: a column) as a (1, h, w) array; short
    rows are padded with #N/A, as Excel pads an array."""
    rows = [list(r) if isinstance(r, list | tuple) else [r] for r in res]
    w = max(len(r) for r in rows)
    out = np.full((1, len(rows), w), error("#N/A"), dtype=object)
    for i, r in enumerate(rows):
        out[0, i, : len(r)] = [_from_python(x) for x in r]
    return out
