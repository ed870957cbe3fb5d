"""Text: CONCATENATE, CONCAT, UPPER, LOWER, LEN, TRIM, EXACT, LEFT, RIGHT, MID, REPT, VALUE."""

from __future__ import annotations

import math

import numpy as np

from gputco.workbook.recalc.run import vec
from gputco.workbook.recalc.run.rangeval import materialize
from gputco.workbook.recalc.run.values import MAX_TEXT, VALUE, XlError, parse_number

from ._args import Spec, row_errors, scalar_nums


def _text_map(func):
    """A function of one text, applied element-wise; errors pass through."""

    def impl(x):
        t, e = vec.texts(x)
        out = vec.from_list([func(s) for s in t.ravel().tolist()], t.shape)
        return vec.with_errors(out, e)

    return impl


def _concatenate(*args):
    out, errs = vec.const(""), []
    for a in args:
        if a is None:
            continue
        t, e = vec.texts(a)
        out = out + t
        errs.append(e)
    return vec.with_errors(vec.cap_text(out), vec.merge(*errs))


def _concat(*args):
    """CONCAT joins every cell of ranges too (row by row); a row whose cells hold an error is
    that error, the other rows of the group are joined as usual."""
    pieces, arrays = [], []
    for a in args:
        if a is None:
            continue
        arr = materialize(a)
        arrays.append(arr)
        t, _ = vec.texts(arr)
        m = t.shape[0]
        pieces.append(
            np.array(
                ["".join(x if isinstance(x, str) else "" for x in r) for r in t.reshape(m, -1).tolist()],
                dtype=object,
            )
        )
    if not pieces:
        return vec.const("")
    out = pieces[0].reshape(-1, 1, 1)
    for p in pieces[1:]:
        out = out + p.reshape(-1, 1, 1)
    out = vec.cap_text(out)
    errs = row_errors(arrays)
    if errs is None:
        return out
    out = np.broadcast_to(out, (len(errs), 1, 1)).copy()
    for i, e in enumerate(errs):
        if e is not None:
            out[i, 0, 0] = e
    return out


def _trim(s: str) -> str:
    return " ".join(p for p in s.split(" ") if p)


def _exact(a, b):
    ta, ea = vec.texts(a)
    tb, eb = vec.texts(b)
    return vec.with_errors(np.asarray(ta == tb, dtype=bool), vec.merge(ea, eb))


def _slicer(kind: str):
    def impl(text, a=None, b=None):
        t, et = vec.texts(text)
        if kind == "mid":
            (start, count), en = scalar_nums(a, b)
        else:
            (count,), en = scalar_nums(a if a is not None else vec.const(1.0))
            start = None
        shape = np.broadcast_shapes(t.shape, count.shape, *(() if start is None else (start.shape,)))
        ts = np.broadcast_to(t, shape).ravel().tolist()
        ns = np.broadcast_to(np.trunc(count), shape).ravel().tolist()
        ss = (
            np.broadcast_to(np.trunc(start), shape).ravel().tolist() if start is not None else [1.0] * len(ts)
        )
        out = []
        for s, n, st in zip(ts, ns, ss, strict=True):
            if n < 0 or st < 1 or n != n or st != st:  # (NaN where an argument is an error)
                out.append(VALUE)
            elif kind == "left":
                out.append(s[: int(n)])
            elif kind == "right":
                out.append(s[max(0, len(s) - int(n)) :] if n else "")
            else:
                out.append(s[int(st) - 1 : int(st) - 1 + int(n)])
        return vec.with_errors(vec.from_list(out, shape), vec.merge(et, en))

    return impl


def _rept(text, times):
    t, et = vec.texts(text)
    (n,), en = scalar_nums(times)
    shape = np.broadcast_shapes(t.shape, n.shape)
    out = [
        _rept_one(s, k)
        for s, k in zip(
            np.broadcast_to(t, shape).ravel().tolist(),
            np.broadcast_to(n, shape).ravel().tolist(),
            strict=True,
        )
    ]
    return vec.with_errors(vec.from_list(out, shape), vec.merge(et, en))


def _rept_one(s: str, k: float):
    """``s`` repeated ``k`` times; #VALUE! for a negative count or a text too long for a cell."""
    if not 0 <= k < math.inf:
        return VALUE
    k = int(k)
    return VALUE if len(s) * k > MAX_TEXT else s * k


def _value(x):
    if x.dtype == vec.FLOAT:
        return x

    def conv(v):
        if isinstance(v, str):
            n = parse_number(v)
            return VALUE if n is None else n
        if isinstance(v, XlError):
            return v  # VALUE(#N/A) is #N/A
        return v if isinstance(v, float) else 0.0 if v is None else VALUE

    return vec.elementwise(conv, x)


FUNCTIONS = {
    "CONCATENATE": Spec(_concatenate, 1, 255),
    "CONCAT": Spec(_concat, 1, 255, "r"),
    "UPPER": Spec(_text_map(str.upper), 1, 1),
    "LOWER": Spec(_text_map(str.lower), 1, 1),
    "LEN": Spec(_text_map(lambda s: float(len(s))), 1, 1),
    "TRIM": Spec(_text_map(_trim), 1, 1),
    "EXACT": Spec(_exact, 2, 2),
    "LEFT": Spec(_slicer("left"), 1, 2),
    "RIGHT": Spec(_slicer("right"), 1, 2),
    "MID": Spec(_slicer("mid"), 3, 3),
    "REPT": Spec(_rept, 2, 2),
    "VALUE": Spec(_value, 1, 1),
}
