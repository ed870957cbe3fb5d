"""LINEST: least-squares regression, as the array of coefficients and statistics Excel returns.

LINEST(known_y's, [known_x's], [const=TRUE], [stats=FALSE]) fits ``y = m1*x1 + ... + mk*xk + b``.
known_y's is one column (then each column of known_x's is a variable) or one row (each row a
variable); known_x's defaults to 1, 2, 3... The result's first row is ``mk, ..., m1, b`` (the
coefficients in reverse order of the x's); with stats TRUE four more rows follow (Microsoft's
LINEST page): standard errors of the coefficients and of b; r² and the standard error of y; the F
statistic and the degrees of freedom; the regression and residual sums of squares. Cells of rows
3-5 past the second column are #N/A. With const FALSE, b is 0 (its standard error #N/A) and r² and
F are about the uncentred sums (y is not reduced by its mean), as in Excel. A cell that is not a
number is #VALUE!; sizes that do not match are #REF!; fewer observations than coefficients
#NUM!. Collinear x's (which Excel detects and drops) are not handled: #NUM!.
"""

from __future__ import annotations

import numpy as np

from .. import vec
from ..values import NA, NUM, REF, VALUE
from . import Spec
from .arrays import _strict_numbers, full


def _linest(ys, xs=None, const=None, stats=None):
    y, err = _strict_numbers(full(ys))
    if err is not None:
        return vec.const(err)
    if y.shape[0] != 1:
        raise ValueError("LINEST with arrays varying by row")
    use_const = _flag(const, True)
    want_stats = _flag(stats, False)
    if use_const is None or want_stats is None:
        return vec.const(VALUE)
    y = y[0]
    if y.shape[1] == 1:
        yv, by_row = y[:, 0], False
    elif y.shape[0] == 1:
        yv, by_row = y[0], True
    else:
        raise ValueError("LINEST with a two-dimensional known_y's")
    n = len(yv)
    if xs is None:
        x = np.arange(1, n + 1, dtype=vec.FLOAT)[:, None]
    else:
        xa, err = _strict_numbers(full(xs))
        if err is not None:
            return vec.const(err)
        xa = xa[0]
        if by_row:
            xa = xa.T
        if xa.shape[0] != n:
            return vec.const(REF)
        x = xa
    k = x.shape[1]
    design = np.hstack([x, np.ones((n, 1))]) if use_const else x
    p = design.shape[1]
    if n < p or np.linalg.matrix_rank(design) < p:
        return vec.const(NUM)
    coef, *_ = np.linalg.lstsq(design, yv, rcond=None)
    slopes = coef[:k][::-1]
    b = coef[k] if use_const else 0.0
    top = [*slopes.tolist(), float(b)]
    if not want_stats:
        return np.array(top, dtype=vec.FLOAT).reshape(1, 1, k + 1)
    fitted = design @ coef
    ss_resid = float(np.sum((yv - fitted) ** 2))
    ss_reg = float(np.sum((fitted - yv.mean()) ** 2)) if use_const else float(np.sum(fitted ** 2))
    df = n - p
    out = np.full((5, k + 1), NA, dtype=object)
    out[0] = top
    if df > 0:
        sey2 = ss_resid / df
        cov = sey2 * np.linalg.inv(design.T @ design)
        se = np.sqrt(np.diag(cov))
        out[1, :k] = se[:k][::-1].tolist()
        out[1, k] = float(se[k]) if use_const else NA
        out[2, 1] = float(np.sqrt(sey2))
        out[3, 0] = (ss_reg / k) / sey2 if sey2 > 0 else NUM
    else:
        out[1, :] = NUM if use_const else [*([NUM] * k), NA]
        out[2, 1] = NUM
        out[3, 0] = NUM
    total = ss_reg + ss_resid
    out[2, 0] = ss_reg / total if total > 0 else NUM
    out[3, 1] = float(df)
    out[4, 0], out[4, 1] = ss_reg, ss_resid
    return out.reshape(1, 5, k + 1)


def _flag(x, default: bool) -> bool | None:
    """A TRUE/FALSE argument (numbers non-zero; omitted: the default); None for text."""
    if x is None:
        return default
    b, e = vec.bools(x)
    if e is not None or b.size != 1:
        return None
    return bool(b.ravel()[0])


FUNCTIONS = {
    "LINEST": Spec(_linest, 1, 4, "aavv"),
}
