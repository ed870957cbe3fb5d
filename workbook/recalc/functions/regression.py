"""LINEST, LOGEST, TREND, GROWTH: least-squares regression, as Excel returns it.

LINEST(known_y's, [known_x's], [const=TRUE], [stats=FALSE]) fits ``y = m1*x1 + ... + mk*xk + b``.
known_y's is one column (then each column of known_x's is a variable) or one row (each row a
variable); with one variable, y and x may be any shape of the same size; known_x's defaults to
1, 2, 3... The result's first row is ``mk, ..., m1, b`` (the coefficients in reverse order of the
x's); with stats TRUE four more rows follow (Microsoft's LINEST page): standard errors of the
coefficients and of b; r² and the standard error of y; the F statistic and the degrees of
freedom; the regression and residual sums of squares. Cells of rows 3-5 past the second column
are #N/A. With const FALSE, b is 0 (its standard error #N/A) and r² and F are about the uncentred
sums (y is not reduced by its mean), as in Excel. A cell that is not a number is #VALUE!; sizes
that do not match are #REF!; fewer observations than coefficients #NUM!.

Collinear x's: as Microsoft documents for Excel ([MS-OI29500] 2.1.985, LINEST: "vectors in
known-xs that are collinear ... are omitted from the regression calculations. The vectors are
given a coefficient of 0 and a standard error of 0 ... df is affected"), an x column that the
columns before it (and the constant, with const TRUE) already span is left out: coefficient 0,
standard error 0, and df counts only the columns kept. The columns are taken in order, so of two
equal columns the second is dropped. LibreOffice 7.4 does not drop them (it returns the
meaningless solution of a near-singular system: tests/test_recalc_arrays_lo.py lists it).

- LOGEST(known_y's, [known_x's], [const], [stats]): LINEST of ln(y), its first row raised to
  ``e`` (``y = b * m1^x1 * ...``; const FALSE makes b 1); the statistics are those of the
  fit of ln(y). A y of 0 or less is #NUM!.
- TREND(known_y's, [known_x's], [new_x's], [const]): the fitted line's values at new_x's (by
  default at known_x's): with one variable, one value per cell of new_x's, in its shape; with k
  variables new_x's has k columns (rows) and the result one value per row (column).
- GROWTH(known_y's, [known_x's], [new_x's], [const]): TREND of the exponential curve of LOGEST.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gputco.workbook.recalc.run import vec
from gputco.workbook.recalc.run.values import NA, NUM, REF, VALUE, XlError

from ._args import Spec
from .arrays import _strict_numbers, full

#: a column counts as spanned by the ones kept before it when what it adds is below this share
#: of its length (exact combinations leave rounding noise of about 1e-15)
_COLLINEAR = 1e-10


@dataclass
class _Data:
    y: np.ndarray  # (n,) observations
    x: np.ndarray  # (n, k) one column per variable
    by_row: bool  # known_y's is a row: variables are rows of known_x's
    shape: tuple[int, int]  # known_y's shape (the default new_x's of one variable)


@dataclass
class _Fit:
    coef: np.ndarray  # (k,) slopes, 0 for the columns left out
    b: float
    kept: np.ndarray  # (k,) bool
    design: np.ndarray  # (n, p) the columns kept, then the constant
    params: np.ndarray  # (p,) their coefficients
    const: bool


def _data(ys, xs) -> _Data | XlError:
    y, err = _strict_numbers(full(ys))
    if err is not None:
        return err
    if y.shape[0] != 1:
        raise ValueError("a regression over arrays varying by row")
    y = y[0]
    xa = None
    if xs is not None:
        xa, err = _strict_numbers(full(xs))
        if err is not None:
            return err
        if xa.shape[0] != 1:
            raise ValueError("a regression over arrays varying by row")
        xa = xa[0]
    n = y.size
    if y.shape[1] == 1 or y.shape[0] == 1:
        by_row = y.shape[1] != 1
        yv = y.ravel()
        if xa is None:
            x = np.arange(1, n + 1, dtype=vec.FLOAT)[:, None]
        elif xa.shape == y.shape:
            x = xa.reshape(n, 1)
        else:
            x = xa.T if by_row else xa
            if x.shape[0] != n:
                return REF
        return _Data(yv, x, by_row, y.shape)
    # two-dimensional known_y's: one variable of the same shape
    if xa is not None and xa.shape != y.shape:
        return REF
    x = np.arange(1, n + 1, dtype=vec.FLOAT) if xa is None else xa.ravel()
    return _Data(y.ravel(), x[:, None], False, y.shape)


def _fit(d: _Data, use_const: bool) -> _Fit | XlError:
    """Least squares, leaving out each x column already spanned by those kept before it."""
    n, k = d.x.shape
    if n < k + (1 if use_const else 0):
        return NUM
    kept = np.zeros(k, dtype=bool)
    basis = [np.ones(n)] if use_const else []
    for j in range(k):
        col = d.x[:, j]
        size = float(np.linalg.norm(col))
        if basis:
            a = np.column_stack(basis)
            resid = col - a @ np.linalg.lstsq(a, col, rcond=None)[0]
        else:
            resid = col
        if size > 0 and float(np.linalg.norm(resid)) > _COLLINEAR * size:
            kept[j] = True
            basis.append(col)
    cols = [d.x[:, j] for j in range(k) if kept[j]] + ([np.ones(n)] if use_const else [])
    design = np.column_stack(cols) if cols else np.zeros((n, 0))
    params = np.linalg.lstsq(design, d.y, rcond=None)[0] if cols else np.zeros(0)
    coef = np.zeros(k)
    coef[kept] = params[: int(kept.sum())]
    b = float(params[-1]) if use_const else 0.0
    return _Fit(coef, b, kept, design, params, use_const)


def _predict(f: _Fit, x: np.ndarray) -> np.ndarray:
    return x @ f.coef + f.b


def _fitted(ys, xs, const, log: bool, flags_ok: bool = True):
    """(data, fit) of y on x (of log y for LOGEST/GROWTH), or the error to show (``flags_ok``:
    the caller's other flags were read)."""
    d = _data(ys, xs)
    if isinstance(d, XlError):
        return d
    use_const = _flag(const, True)
    if use_const is None or not flags_ok:
        return VALUE
    if log:
        if (d.y <= 0).any():
            return NUM
        d.y = np.log(d.y)
    f = _fit(d, use_const)
    return f if isinstance(f, XlError) else (d, f)


def _estimate(ys, xs, const, stats, log: bool):
    want_stats = _flag(stats, False)
    fitted = _fitted(ys, xs, const, log, want_stats is not None)
    if isinstance(fitted, XlError):
        return vec.const(fitted)
    d, f = fitted
    k = d.x.shape[1]
    top = np.array([*f.coef[::-1].tolist(), f.b])
    if log:
        top = np.exp(top)
    if not want_stats:
        return top.reshape(1, 1, k + 1)
    out = _statistics(d, f)
    out[0] = top.tolist()
    return out.reshape(1, 5, k + 1)


def _statistics(d: _Data, f: _Fit) -> np.ndarray:
    """LINEST's rows 2-5 (row 1 left for the coefficients)."""
    n, k = d.x.shape
    used = int(f.kept.sum())
    p = used + (1 if f.const else 0)
    fitted = f.design @ f.params if p else np.zeros(n)
    ss_resid = float(np.sum((d.y - fitted) ** 2))
    ss_reg = float(np.sum((fitted - d.y.mean()) ** 2)) if f.const else float(np.sum(fitted**2))
    df = n - p
    out = np.full((5, k + 1), NA, dtype=object)
    if df > 0:
        sey2 = ss_resid / df
        se = np.sqrt(np.diag(sey2 * np.linalg.inv(f.design.T @ f.design))) if p else np.zeros(0)
        se_x = np.zeros(k)
        se_x[f.kept] = se[:used]
        out[1, :k] = se_x[::-1].tolist()
        out[1, k] = float(se[-1]) if f.const else NA
        out[2, 1] = float(np.sqrt(sey2))
        out[3, 0] = (ss_reg / used) / sey2 if sey2 > 0 and used else NUM
    else:
        out[1, :] = NUM if f.const else [*([NUM] * k), NA]
        out[2, 1] = NUM
        out[3, 0] = NUM
    total = ss_reg + ss_resid
    out[2, 0] = ss_reg / total if total > 0 else NUM
    out[3, 1] = float(df)
    out[4, 0], out[4, 1] = ss_reg, ss_resid
    return out


def _linest(ys, xs=None, const=None, stats=None):
    return _estimate(ys, xs, const, stats, log=False)


def _logest(ys, xs=None, const=None, stats=None):
    return _estimate(ys, xs, const, stats, log=True)


def _trend_of(log: bool):
    def impl(ys, xs=None, new_xs=None, const=None):
        fitted = _fitted(ys, xs, const, log)
        if isinstance(fitted, XlError):
            return vec.const(fitted)
        d, f = fitted
        k = d.x.shape[1]
        if new_xs is None:
            new = d.x.T.reshape(k, *d.shape) if k == 1 else (d.x.T if d.by_row else d.x)
            new = new[0] if k == 1 else new
        else:
            new, err = _strict_numbers(full(new_xs))
            if err is not None:
                return vec.const(err)
            if new.shape[0] != 1:
                raise ValueError("TREND/GROWTH with new_x's varying by row")
            new = new[0]
        if k == 1:
            out = _predict(f, new.reshape(-1, 1)).reshape(new.shape)
        else:
            rows = new.T if d.by_row else new
            if rows.shape[1] != k:
                return vec.const(REF)
            out = _predict(f, rows)
            out = out.reshape(1, -1) if d.by_row else out.reshape(-1, 1)
        if log:
            out = np.exp(out)
        return vec.finish(out[None].astype(vec.FLOAT), None)

    return impl


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
    "LOGEST": Spec(_logest, 1, 4, "aavv"),
    "TREND": Spec(_trend_of(False), 1, 4, "aaav"),
    "GROWTH": Spec(_trend_of(True), 1, 4, "aaav"),
}
