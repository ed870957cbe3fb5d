"""Conditional aggregates: COUNTIF(S), SUMIF(S), AVERAGEIF(S), MAXIFS, MINIFS, with criteria.

A criterion is a number (cells equal to it), a text with an optional leading operator (``">5"``,
``"<>done"``, ``"=abc"``), wildcards ``*`` ``?`` (``~`` escapes) for text equality (``"*"``
matches text cells only, as Microsoft documents), ``""`` for blank cells, a boolean (``TRUE`` or the
text ``"TRUE"``), or an error (an error cell, or the text ``"#N/A"``: cells holding that error; with
``"<>"`` every other cell). A text criterion that reads as a number (``"3"``, ``"=3"``) matches the
number and the text "3". Texts compare case-insensitively. Ranges are usually fixed while the
criteria vary per row (``SUMIF($A:$A, A2, $B:$B)``): each distinct criterion is matched against
the range once and the rows share the result.
"""

from __future__ import annotations

import numpy as np

from gputco.workbook.recalc.run import vec
from gputco.workbook.recalc.run.rangeval import dims, materialize
from gputco.workbook.recalc.run.values import DIV0, ERRORS, VALUE, XlError, approx_equal, parse_number

from ._args import Spec, wildcard

_OPS = ("<=", ">=", "<>", "<", ">", "=")


def _criterion(c):
    """(operator, operand, text) of a criterion value.

    ``text`` is the operand as typed when a text criterion reads as a number or a boolean
    (``"3"``, ``"=TRUE"``): with ``=`` and ``<>`` it also matches text cells spelling it.
    """
    if isinstance(c, str):
        op = next((o for o in _OPS if c.startswith(o)), "")
        rest = c[len(op) :]
        op = op or "="
        if rest.upper() in ERRORS:
            return (op, ERRORS[rest.upper()], None)  # "#N/A": matches error cells of that code
        if rest.upper() in ("TRUE", "FALSE") and op in ("=", "<>"):
            return (op, rest.upper() == "TRUE", rest.lower())
        num = parse_number(rest) if rest.strip() else None
        return (op, rest, None) if num is None else (op, num, rest.lower())
    if c is None:
        return ("=", 0.0, None)  # an empty criterion cell means 0 (Excel)
    return ("=", c, None)  # a number, boolean or error value: cells equal to it


def _mask(values: np.ndarray, crit) -> np.ndarray:
    """Which cells of a flat array meet one criterion."""
    op, x, text = _criterion(crit)
    if isinstance(x, float) and not isinstance(x, bool) and values.dtype == vec.FLOAT:
        with np.errstate(invalid="ignore"):
            eq = (values == x) | (np.abs(values - x) < np.maximum(abs(x), np.abs(values)) * 2**-48)
        return {
            "=": eq,
            "<>": ~eq,
            "<": (values < x) & ~eq,
            ">": (values > x) & ~eq,
            "<=": (values < x) | eq,
            ">=": (values > x) | eq,
        }[op]
    test = _element_test(op, x)
    if text is not None and op in ("=", "<>"):
        plain = test

        def test(v):  # "3" also matches the text "3" (a number stored as text)
            if isinstance(v, str):
                return (v.lower() == text) == (op == "=")
            return plain(v)

    return np.array([test(v) for v in values.tolist()], dtype=bool)


def _element_test(op, x):
    if isinstance(x, XlError):
        return {"=": lambda v: v is x, "<>": lambda v: v is not x}.get(op, lambda v: False)
    if isinstance(x, str):
        if x == "":
            blank = {"=": lambda v: v is None or v == "", "<>": lambda v: v is not None and v != ""}
            return blank.get(op, lambda v: False)
        rx = wildcard(x) if op in ("=", "<>") else None
        low = x.lower()

        def text_test(v):
            if not isinstance(v, str):
                return op == "<>"
            hit = rx.fullmatch(v) is not None if rx else v.lower() == low
            if op in ("=", "<>"):
                return hit if op == "=" else not hit
            s = v.lower()
            return {"<": s < low, ">": s > low, "<=": s <= low, ">=": s >= low}[op]

        return text_test
    if isinstance(x, bool):
        return lambda v: (isinstance(v, bool) and v == x) == (op != "<>")

    def num_test(v):
        if isinstance(v, bool) or not isinstance(v, float):
            return op == "<>"
        eq = approx_equal(v, x)
        return {
            "=": eq,
            "<>": not eq,
            "<": v < x and not eq,
            ">": v > x and not eq,
            "<=": v < x or eq,
            ">=": v > x or eq,
        }[op]

    return num_test


def _masks(pairs, m_rows: int):
    """Per formula row, the AND of the criteria masks over the (fixed or moving) ranges."""
    out = None
    for rng, crit in pairs:
        arr = materialize(rng)
        flat = arr.reshape(arr.shape[0], -1)
        crits = crit.reshape(-1).tolist()
        m = max(flat.shape[0], len(crits), m_rows)
        cache: dict = {}
        rows = []
        for i in range(m):
            c = crits[min(i, len(crits) - 1)]
            block = min(i, flat.shape[0] - 1)
            key = (block, type(c), c)
            if key not in cache:
                cache[key] = _mask(flat[block], c)
            rows.append(cache[key])
        out = (
            rows
            if out is None
            else [
                a if isinstance(a, XlError) else b if isinstance(b, XlError) else _and(a, b)
                for a, b in zip(_spread(out, m), _spread(rows, m), strict=True)
            ]
        )
    return out


def _and(a, b):
    if a.shape != b.shape:
        raise ValueError("criteria ranges of different sizes")
    return a & b


def _spread(rows, m):
    return rows if len(rows) == m else [rows[0]] * m


def _reduce(masks, values_rng, how: str):
    if values_rng is None:
        vals = None
    else:
        arr = materialize(values_rng)
        vals = arr.reshape(arr.shape[0], -1)
    out = []
    done: dict[tuple[int, int], object] = {}  # rows sharing a criterion share the answer
    for i, mask in enumerate(masks):
        if isinstance(mask, XlError):
            out.append(mask)
            continue
        block = 0 if vals is None else min(i, vals.shape[0] - 1)
        hit = done.get((id(mask), block))
        if hit is not None:
            out.append(hit)
            continue
        done[(id(mask), block)] = _one_reduce(mask, vals, block, how)
        out.append(done[(id(mask), block)])
    return vec.from_list(out, (len(out), 1, 1))


def _one_reduce(mask, vals, block: int, how: str):
    """COUNT/SUM/AVERAGE of the cells a mask selects (one criterion, one block of values)."""
    if how == "count":
        return float(mask.sum())
    row = vals[block]
    if row.shape != mask.shape:
        mask = _resize(mask, row.shape)
    picked = row[mask]
    if picked.dtype != vec.FLOAT:
        err = next((v for v in picked.tolist() if isinstance(v, XlError)), None)
        if err is not None:
            return err
        picked = np.array(
            [v for v in picked.tolist() if isinstance(v, float) and not isinstance(v, bool)], dtype=float
        )
    if how == "sum":
        return float(picked.sum())
    if how in ("max", "min"):
        return float(picked.max() if how == "max" else picked.min()) if picked.size else 0.0
    return float(picked.mean()) if picked.size else DIV0


def _resize(mask, shape):
    m = np.zeros(shape, dtype=bool)
    k = min(len(mask), len(m))
    m[:k] = mask[:k]
    return m


def _lifted(crits: list[np.ndarray], one):
    """``one(crits)`` with each criterion one value per formula row, or, where a criterion is
    an array (``COUNTIF(A:A, {"a","b"})``), the array of the answers for each of its elements
    (Excel lifts the function over the array: ``SUM(COUNTIF(A:A, {"a","b"}))`` adds them)."""
    h = max(c.shape[1] for c in crits)
    w = max(c.shape[2] for c in crits)
    if h == 1 and w == 1:
        return one(crits)
    cols = []
    for j in range(h):
        for k in range(w):
            cols.append(one([c[:, min(j, c.shape[1] - 1) : min(j, c.shape[1] - 1) + 1,
                               min(k, c.shape[2] - 1) : min(k, c.shape[2] - 1) + 1] for c in crits]))  # fmt: skip
    m = max(c.shape[0] for c in cols)
    out = np.empty((m, h, w), dtype=object)
    for i, c in enumerate(cols):
        out[:, i // w, i % w] = np.broadcast_to(c[:, 0, 0], (m,))
    return out


def _sumif(how):
    def impl(rng, crit, values=None):
        def one(crits):
            masks = _masks([(rng, crits[0])], crits[0].shape[0])
            return _reduce(masks, rng if values is None else values, how)

        return _lifted([crit], one)

    return impl


def _ifs(how):
    def impl(*args):
        first, rest = (None, args) if how == "count" else (args[0], args[1:])
        if len(rest) % 2 or not rest:
            return vec.const(VALUE)
        ranges, crits = list(rest[0::2]), list(rest[1::2])
        size = dims(ranges[0])
        if any(dims(r) != size for r in ranges) or (first is not None and dims(first) != size):
            return vec.const(VALUE)

        def one(cs):
            m = max(c.shape[0] for c in cs)
            return _reduce(_masks(list(zip(ranges, cs, strict=True)), m), first, how)

        return _lifted(crits, one)

    return impl


FUNCTIONS = {
    "COUNTIF": Spec(_sumif("count"), 2, 2, "rv"),
    "SUMIF": Spec(_sumif("sum"), 2, 3, "rvr"),
    "AVERAGEIF": Spec(_sumif("mean"), 2, 3, "rvr"),
    "COUNTIFS": Spec(_ifs("count"), 2, 254, "rv" * 127),
    "SUMIFS": Spec(_ifs("sum"), 3, 255, "r" + "rv" * 127),
    "AVERAGEIFS": Spec(_ifs("mean"), 3, 255, "r" + "rv" * 127),
    "MAXIFS": Spec(_ifs("max"), 3, 255, "r" + "rv" * 127),
    "MINIFS": Spec(_ifs("min"), 3, 255, "r" + "rv" * 127),
}
