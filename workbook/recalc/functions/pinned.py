"""The volatile functions at a pinned clock and seed: a recalculation that can be repeated.

Excel recomputes NOW, TODAY, RAND, RANDBETWEEN and RANDARRAY on every recalculation, so their
values are never those stored in the file. The engine evaluates them only when the caller pins
them (``gputco recalc --now TIME --seed N``); without that, their cells are unsupported and keep
their stored values.

- NOW and TODAY: the time given (:func:`.datetime.clock_functions`).
- RAND() (Microsoft's RAND page: "an evenly distributed random real number greater than or
  equal to 0 and less than 1"): numpy's ``default_rng(seed).random()``, one draw per cell.
- RANDBETWEEN(bottom, top): a whole number from bottom to top, both included (``integers(...,
  endpoint=True)``). Microsoft's page says neither how fractional bounds are read nor which
  error bottom above top gives; the engine does as LibreOffice 7.4 does (measured 2026-12-02:
  RANDBETWEEN(1.5, 2.5) gives 2 or 3, RANDBETWEEN(-2.5, -1.5) -3 or -2, RANDBETWEEN(2, 1)
  #VALUE!): both bounds rounded half away from zero, bottom above top #VALUE! (listed
  undecided in docs/recalc-excel-rules.md); text that is not a number is #VALUE!.
- RANDARRAY([rows=1], [columns=1], [min=0], [max=1], [whole_number=FALSE]) (Excel 2021): an
  array of ``random()`` scaled to [min, max), or whole numbers from min to max. min above max is
  #VALUE! (Microsoft's RANDARRAY page); a size of 0 is #CALC! (an empty array) and a negative one
  #VALUE! (as SEQUENCE); assumption, not on Microsoft's page: a fractional min or max with
  whole_number TRUE is #VALUE!.

A LET name bound to a draw and used twice (``LET(x, RAND(), x - x)``, 0 in Excel, which
calculates a name once) would be drawn at each use: such cells are unsupported instead
(formula/compile.py).

One generator serves the whole recalculation: cells draw in the engine's evaluation order
(groups in dependency order, a group's cells top to bottom), so the same file with the same seed
gives the same values, and a different seed different ones.
"""

from __future__ import annotations

import datetime as _dt
import math

import numpy as np

from gputco.workbook.recalc.run import vec
from gputco.workbook.recalc.run.values import CALC, VALUE

from ._args import Spec, scalar_nums
from .datetime import clock_functions

#: pinned by ``now`` (``--now``)
CLOCK = frozenset({"NOW", "TODAY"})
#: pinned by ``seed`` (``--seed``)
SEEDED = frozenset({"RAND", "RANDBETWEEN", "RANDARRAY"})
#: the largest whole number a bound may be (2**53: every whole number up to it is a float)
_MAX_WHOLE = 2.0**53


def _half_away(x: np.ndarray) -> np.ndarray:
    """Rounded to whole numbers, halves away from zero."""
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


def pinned_functions(now: _dt.datetime | None, seed: int | None) -> dict[str, Spec]:
    """The table entries for the functions pinned by ``now`` and ``seed`` (either may be None)."""
    out: dict[str, Spec] = {}
    if now is not None:
        out.update(clock_functions(now))
    if seed is not None:
        out.update(random_functions(seed))
    return out


def random_functions(seed: int) -> dict[str, Spec]:
    """RAND, RANDBETWEEN and RANDARRAY drawing from ``numpy.random.default_rng(seed)``."""
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a whole number >= 0 (numpy's default_rng), not {seed!r}")
    rng = np.random.default_rng(seed)

    def rand(ctx):
        return rng.random((ctx.n, 1, 1))

    def randbetween(ctx, bottom, top):
        (lo, hi), errs = scalar_nums(bottom, top)
        shape = np.broadcast_shapes(lo.shape, hi.shape, (ctx.n, 1, 1))
        lo, hi = _half_away(np.broadcast_to(lo, shape)), _half_away(np.broadcast_to(hi, shape))
        bad = (
            ~(np.isfinite(lo) & np.isfinite(hi))
            | (lo > hi)
            | (np.abs(lo) > _MAX_WHOLE)
            | (np.abs(hi) > _MAX_WHOLE)
        )
        safe_lo, safe_hi = np.where(bad, 0.0, lo), np.where(bad, 0.0, hi)
        out = rng.integers(safe_lo.astype(np.int64), safe_hi.astype(np.int64), endpoint=True).astype(
            vec.FLOAT
        )
        if bad.any():
            obj = out.astype(vec.OBJ)
            obj[bad] = VALUE
            out = obj
        return vec.with_errors(out, errs)

    def randarray(ctx, rows=None, columns=None, low=None, high=None, whole=None):
        (r, c, a, b), errs = scalar_nums(rows, columns, low, high)
        flag = None if whole is None else vec.bools(whole)
        if errs is not None:
            return vec.const(errs[1][errs[0]].ravel()[0])
        if flag is not None and flag[1] is not None:
            return vec.const(flag[1][1][flag[1][0]].ravel()[0])
        if any(x is not None and x.size != 1 for x in (r, c, a, b)) or (
            flag is not None and flag[0].size != 1
        ):
            raise ValueError("RANDARRAY with arguments varying by row")  # evaluated cell by cell
        n = 1 if r is None else math.trunc(r.item())
        k = 1 if c is None else math.trunc(c.item())
        first = 0.0 if a is None else a.item()
        last = 1.0 if b is None else b.item()
        integer = flag is not None and bool(flag[0].item())
        if n < 0 or k < 0 or first > last:
            return vec.const(VALUE)
        if n == 0 or k == 0:
            return vec.const(CALC)
        if n * k * ctx.n > 1 << 20:
            raise ValueError(f"RANDARRAY of {n:,} x {k:,} cells")
        shape = (ctx.n, n, k)
        if not integer:
            return first + (last - first) * rng.random(shape)
        if first != math.floor(first) or last != math.floor(last) or max(abs(first), abs(last)) > _MAX_WHOLE:
            return vec.const(VALUE)
        return rng.integers(int(first), int(last), size=shape, endpoint=True).astype(vec.FLOAT)

    return {
        "RAND": Spec(rand, 0, 0, needs_ctx=True),
        "RANDBETWEEN": Spec(randbetween, 2, 2, "vv", needs_ctx=True),
        "RANDARRAY": Spec(randarray, 0, 5, "vvvvv", needs_ctx=True),
    }
