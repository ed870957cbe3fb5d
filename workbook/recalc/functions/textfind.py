"""Text search: FIND (case-sensitive, no wildcards) and SEARCH (case-insensitive, with ``*`` ``?``
and ``~`` escapes), Excel's semantics.

FIND/SEARCH(find_text, within_text, [start_num=1]) give the 1-based position of the first match
at or after ``start_num``; no match, or ``start_num`` below 1 or greater than the length of
``within_text``, is #VALUE!. An empty ``find_text`` matches at ``start_num`` (Microsoft's FIND page).
"""

from __future__ import annotations

import re

import numpy as np

from gputco.workbook.recalc.run import vec
from gputco.workbook.recalc.run.values import VALUE

from ._args import Spec, scalar_nums


def _search_regex(pattern: str):
    """SEARCH's wildcards as a regex: * any run, ? one character, ~x a literal x."""
    out, i = [], 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "~" and i + 1 < len(pattern) and pattern[i + 1] in "*?~":
            out.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        out.append(".*?" if ch == "*" else "." if ch == "?" else re.escape(ch))
        i += 1
    return re.compile("".join(out), re.I | re.S)


def _finder(case_sensitive: bool):
    def one(needle: str, hay: str, start: float):
        if not start >= 1 or start > max(len(hay), 1):
            return VALUE
        s = int(start) - 1
        if case_sensitive:
            pos = hay.find(needle, s)
        else:
            m = _search_regex(needle).search(hay, s)
            pos = -1 if m is None else m.start()
        return VALUE if pos < 0 else float(pos + 1)

    def impl(find_text, within, start=None):
        tf, ef = vec.texts(find_text)
        tw, ew = vec.texts(within)
        (st,), es = scalar_nums(start if start is not None else vec.const(1.0))
        st = np.trunc(st)
        shape = np.broadcast_shapes(tf.shape, tw.shape, st.shape)
        out = [
            one(a, b, c)
            for a, b, c in zip(
                np.broadcast_to(tf, shape).ravel().tolist(),
                np.broadcast_to(tw, shape).ravel().tolist(),
                np.broadcast_to(st, shape).ravel().tolist(),
                strict=True,
            )
        ]
        return vec.with_errors(vec.from_list(out, shape), vec.merge(ef, ew, es))

    return impl


FUNCTIONS = {
    "FIND": Spec(_finder(True), 2, 3),
    "SEARCH": Spec(_finder(False), 2, 3),
}
