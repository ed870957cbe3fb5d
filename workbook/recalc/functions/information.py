"""Information: ISNUMBER, ISTEXT, ISBLANK, ISERROR, ISERR, ISNA, ISLOGICAL, ISNONTEXT, NA."""

from __future__ import annotations

import numpy as np

from gputco.workbook.recalc.run import vec
from gputco.workbook.recalc.run.values import NA, XlError

from ._args import Spec


def _is(test, fast_float: bool, fast_bool: bool):
    def impl(x):
        if x.dtype == vec.FLOAT:
            return np.full(x.shape, fast_float)
        if x.dtype == vec.BOOL:
            return np.full(x.shape, fast_bool)
        return np.array([test(v) for v in x.ravel().tolist()], dtype=bool).reshape(x.shape)

    return impl


def _number(v):
    return isinstance(v, float) and not isinstance(v, bool)


FUNCTIONS = {
    "ISNUMBER": Spec(_is(_number, True, False), 1, 1),
    "ISTEXT": Spec(_is(lambda v: isinstance(v, str), False, False), 1, 1),
    "ISNONTEXT": Spec(_is(lambda v: not isinstance(v, str), True, True), 1, 1),
    "ISBLANK": Spec(_is(lambda v: v is None, False, False), 1, 1),
    "ISLOGICAL": Spec(_is(lambda v: isinstance(v, bool), False, True), 1, 1),
    "ISERROR": Spec(_is(lambda v: isinstance(v, XlError), False, False), 1, 1),
    "ISERR": Spec(_is(lambda v: isinstance(v, XlError) and v is not NA, False, False), 1, 1),
    "ISNA": Spec(_is(lambda v: v is NA, False, False), 1, 1),
    "NA": Spec(lambda: vec.const(NA), 0, 0),
}
