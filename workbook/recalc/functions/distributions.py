"""Statistical distributions: normal, lognormal, Student's t, chi-squared, F, gamma, beta,
binomial, negative binomial, hypergeometric, Poisson, exponential and Weibull, as Microsoft's
function reference defines them, with the legacy names Excel keeps (NORMDIST, TDIST, CHIDIST, ...).

The special functions are written here with the standard library (scipy is not a dependency):

- the normal CDF from :func:`math.erfc` (full double precision in both tails); its inverse from
  P. J. Acklam's rational approximation polished by Halley steps on that CDF;
- the regularised incomplete gamma function P(a, x) (and Q = 1 - P computed directly, so upper
  tails keep their digits) by its power series for x < a + 1 and by the Legendre continued fraction
  otherwise (modified Lentz), with log-gamma prefactors (Numerical Recipes, 3rd ed., 6.2);
- the regularised incomplete beta function I_x(a, b) (and 1 - I_x) by its continued fraction,
  evaluated on whichever side of (a + 1)/(a + b + 2) converges (NR 6.4); the caller passes x and
  1 - x separately where 1 - x is known exactly (t and F tails);
- the inverses (CHISQ.INV, T.INV, F.INV, GAMMA.INV, BETA.INV, BINOM.INV) by bisection of the CDF
  down to adjacent doubles (geometric steps while the bracket spans magnitudes), on the tail the
  probability is given for; Excel documents its inverses as iterative searches the same way.

Domain errors are Microsoft's: #NUM! for an argument outside its range (the ranges are in each
function's docstring), #VALUE! for a non-numeric argument, an error argument propagating first
(leftmost). Degrees of freedom, trials and counts are truncated to integers, as Excel does.
"""

from __future__ import annotations

import math

from gputco.workbook.recalc.run.values import DIV0, NUM, XlError

from ._args import Spec, scalar_function

_EPS = 1e-16
_TINY = 1e-300
_SQRT2 = math.sqrt(2.0)
_SQRT2PI = math.sqrt(2.0 * math.pi)
_MAX_DF = 1e10  # Excel: degrees of freedom of 10^10 or more are #NUM!


def _flag(v) -> bool:
    """A logical argument (cumulative, tails as TRUE/FALSE): non-zero is TRUE."""
    return v is not None and v != 0


# --- special functions ----------------------------------------------------------------------


def norm_cdf(z: float) -> float:
    """Standard normal CDF, accurate in both tails."""
    return 0.5 * math.erfc(-z / _SQRT2)


def norm_pdf(z: float) -> float:
    return math.exp(-0.5 * z * z) / _SQRT2PI


_A = (-3.969683028665376e01, 2.209460984245205e02, -2.759285104469687e02, 1.383577518672690e02,
      -3.066479806614716e01, 2.506628277459239e00)  # fmt: skip
_B = (-5.447609879822406e01, 1.615858368580409e02, -1.556989798598866e02, 6.680131188771972e01,
      -1.328068155288572e01)  # fmt: skip
_C = (-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e00, -2.549732539343734e00,
      4.374664141464968e00, 2.938163982698783e00)  # fmt: skip
_D = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e00, 3.754408661907416e00)


def norm_inv(p: float) -> float:
    """Standard normal quantile for 0 < p < 1: Acklam's approximation (relative error below
    1.2e-9), then Halley steps on :func:`norm_cdf` to full precision."""
    if p > 0.5:
        return -norm_inv(1.0 - p)  # 1 - p is exact for p >= 0.5
    if p < 0.02425:
        q = math.sqrt(-2.0 * math.log(p))
        num = ((((_C[0] * q + _C[1]) * q + _C[2]) * q + _C[3]) * q + _C[4]) * q + _C[5]
        x = num / ((((_D[0] * q + _D[1]) * q + _D[2]) * q + _D[3]) * q + 1.0)
    else:
        q = p - 0.5
        r = q * q
        num = (((((_A[0] * r + _A[1]) * r + _A[2]) * r + _A[3]) * r + _A[4]) * r + _A[5]) * q
        x = num / (((((_B[0] * r + _B[1]) * r + _B[2]) * r + _B[3]) * r + _B[4]) * r + 1.0)
    for _ in range(3):
        e = norm_cdf(x) - p
        u = e * _SQRT2PI * math.exp(0.5 * x * x)
        x -= u / (1.0 + 0.5 * x * u)
    return x


def _gamma_prefix(a: float, x: float) -> float:
    return math.exp(-x + a * math.log(x) - math.lgamma(a))


def gamma_pq(a: float, x: float) -> tuple[float, float]:
    """(P(a, x), Q(a, x)): the regularised lower and upper incomplete gamma functions."""
    if x <= 0.0:
        return 0.0, 1.0
    if x < a + 1.0:
        term = total = 1.0 / a
        ap = a
        for _ in range(100_000):
            ap += 1.0
            term *= x / ap
            total += term
            if abs(term) < abs(total) * _EPS:
                break
        p = min(1.0, total * _gamma_prefix(a, x))
        return p, 1.0 - p
    b = x + 1.0 - a
    c, d = 1.0 / _TINY, 1.0 / b
    h = d
    for i in range(1, 100_000):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = _TINY if abs(d) < _TINY else d
        c = b + an / c
        c = _TINY if abs(c) < _TINY else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < _EPS:
            break
    q = min(1.0, _gamma_prefix(a, x) * h)
    return 1.0 - q, q


def _beta_cf(a: float, b: float, x: float) -> float:
    """The continued fraction of I_x(a, b) (modified Lentz)."""
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (_TINY if abs(d) < _TINY else d)
    h = d
    for m in range(1, 100_000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (_TINY if abs(d) < _TINY else d)
        c = 1.0 + aa / c
        c = _TINY if abs(c) < _TINY else c
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (_TINY if abs(d) < _TINY else d)
        c = 1.0 + aa / c
        c = _TINY if abs(c) < _TINY else c
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < _EPS:
            break
    return h


def beta_i(a: float, b: float, x: float, y: float | None = None) -> tuple[float, float]:
    """(I_x(a, b), 1 - I_x(a, b)), the regularised incomplete beta function and its complement;
    ``y`` is 1 - x when the caller knows it more exactly than ``1 - x``."""
    y = 1.0 - x if y is None else y
    if x <= 0.0:
        return 0.0, 1.0
    if y <= 0.0:
        return 1.0, 0.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log(y))
    if x < (a + 1.0) / (a + b + 2.0):
        i = front * _beta_cf(a, b, x) / a
        return i, 1.0 - i
    j = front * _beta_cf(b, a, y) / b
    return 1.0 - j, j


def _bisect(f, target: float, lo: float, hi: float, increasing: bool = True) -> float:
    """x in [lo, hi] where the monotone ``f`` crosses ``target``, to adjacent doubles."""
    for _ in range(3000):
        if lo > 0.0 and hi > 4.0 * lo:
            mid = math.sqrt(lo * hi)
        elif hi < 0.0 and lo < 4.0 * hi:
            mid = -math.sqrt(lo * hi)
        else:
            mid = 0.5 * (lo + hi)
        if not lo < mid < hi:
            break
        if (f(mid) < target) == increasing:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def _positive_root(f, target: float, increasing: bool = True) -> float:
    """The x > 0 where a monotone ``f`` on (0, inf) crosses ``target`` (bracket grown first)."""
    hi = 1.0
    while ((f(hi) < target) == increasing) and hi < 1e300:
        hi *= 16.0
    return _bisect(f, target, _TINY, hi, increasing)


# --- shared argument checks -----------------------------------------------------------------


def _df(v: float) -> float | XlError:
    """Degrees of freedom: truncated; below 1 or 10^10 and above is #NUM!."""
    d = math.trunc(v)
    return NUM if d < 1 or d >= _MAX_DF else float(d)


def _prob(p: float, *, zero: bool, one: bool) -> bool:
    """Whether p is a probability in range (0 and 1 included when ``zero``/``one``)."""
    return (p > 0.0 or (zero and p == 0.0)) and (p < 1.0 or (one and p == 1.0))


# --- normal and lognormal -------------------------------------------------------------------


def _norm_dist(x, mean, sd, cumulative):
    """NORM.DIST(x, mean, standard_dev, cumulative): standard_dev <= 0 is #NUM!."""
    if sd <= 0.0:
        return NUM
    z = (x - mean) / sd
    return norm_cdf(z) if _flag(cumulative) else norm_pdf(z) / sd


def _norm_s_dist(z, cumulative):
    return norm_cdf(z) if _flag(cumulative) else norm_pdf(z)


def _norm_inv(p, mean, sd):
    """NORM.INV(probability, mean, standard_dev): 0 < probability < 1, standard_dev > 0."""
    if not _prob(p, zero=False, one=False) or sd <= 0.0:
        return NUM
    return mean + sd * norm_inv(p)


def _norm_s_inv(p):
    return norm_inv(p) if _prob(p, zero=False, one=False) else NUM


def _lognorm_dist(x, mean, sd, cumulative):
    """LOGNORM.DIST(x, mean, standard_dev, cumulative): x <= 0 or standard_dev <= 0 is #NUM!."""
    if x <= 0.0 or sd <= 0.0:
        return NUM
    z = (math.log(x) - mean) / sd
    return norm_cdf(z) if _flag(cumulative) else norm_pdf(z) / (sd * x)


def _lognorm_inv(p, mean, sd):
    """LOGNORM.INV(probability, mean, standard_dev): 0 < probability < 1, standard_dev > 0."""
    if not _prob(p, zero=False, one=False) or sd <= 0.0:
        return NUM
    return math.exp(mean + sd * norm_inv(p))


def _standardize(x, mean, sd):
    return NUM if sd <= 0.0 else (x - mean) / sd


def _phi(x):
    return norm_pdf(x)


def _gauss(z):
    """GAUSS(z): the probability of lying between the mean and z standard deviations from it."""
    return norm_cdf(z) - 0.5 if z <= 0 else 0.5 - norm_cdf(-z)


def _confidence_norm(alpha, sd, size):
    """CONFIDENCE.NORM(alpha, standard_dev, size): 0 < alpha < 1, standard_dev > 0, size >= 1."""
    n = math.trunc(size)
    if not 0.0 < alpha < 1.0 or sd <= 0.0 or n < 1:
        return NUM
    return -norm_inv(alpha / 2.0) * sd / math.sqrt(n)


def _confidence_t(alpha, sd, size):
    """CONFIDENCE.T(alpha, standard_dev, size): as CONFIDENCE.NORM; a size of 1 is #DIV/0!."""
    n = math.trunc(size)
    if not 0.0 < alpha < 1.0 or sd <= 0.0 or n < 1:
        return NUM
    if n == 1:
        return DIV0
    return _t_upper_inv(alpha / 2.0, float(n - 1)) * sd / math.sqrt(n)


# --- Student's t ----------------------------------------------------------------------------


def t_upper(t: float, df: float) -> float:
    """P(T > t) for t >= 0 (x = df/(df + t^2) and 1 - x passed separately)."""
    s = df + t * t
    return 0.5 * beta_i(df / 2.0, 0.5, df / s, t * t / s)[0]


def _t_cdf(t: float, df: float) -> float:
    return 1.0 - t_upper(t, df) if t >= 0 else t_upper(-t, df)


def _t_pdf(t: float, df: float) -> float:
    lg = math.lgamma((df + 1) / 2) - math.lgamma(df / 2)
    return math.exp(lg - 0.5 * math.log(df * math.pi) - (df + 1) / 2 * math.log1p(t * t / df))


def _t_upper_inv(q: float, df: float) -> float:
    """The t >= 0 with P(T > t) = q, for 0 < q <= 0.5."""
    if q >= 0.5:
        return 0.0
    return _positive_root(lambda t: t_upper(t, df), q, increasing=False)


def _t_dist(x, df, cumulative):
    """T.DIST(x, deg_freedom, cumulative): deg_freedom < 1 is #NUM!."""
    d = _df(df)
    if isinstance(d, XlError):
        return d
    return _t_cdf(x, d) if _flag(cumulative) else _t_pdf(x, d)


def _t_dist_2t(x, df):
    """T.DIST.2T(x, deg_freedom): x < 0 or deg_freedom < 1 is #NUM!."""
    d = _df(df)
    if isinstance(d, XlError) or x < 0:
        return NUM
    return min(1.0, 2.0 * t_upper(x, d))


def _t_dist_rt(x, df):
    d = _df(df)
    if isinstance(d, XlError):
        return d
    return t_upper(x, d) if x >= 0 else 1.0 - t_upper(-x, d)


def _tdist(x, df, tails):
    """TDIST(x, deg_freedom, tails): x < 0, tails not 1 or 2 is #NUM!."""
    d, k = _df(df), math.trunc(tails)
    if isinstance(d, XlError) or x < 0 or k not in (1, 2):
        return NUM
    return min(1.0, k * t_upper(x, d))


def _t_inv(p, df):
    """T.INV(probability, deg_freedom): 0 < probability < 1, deg_freedom >= 1."""
    d = _df(df)
    if isinstance(d, XlError) or not _prob(p, zero=False, one=False):
        return NUM
    return -_t_upper_inv(p, d) if p < 0.5 else _t_upper_inv(1.0 - p, d)


def _t_inv_2t(p, df):
    """T.INV.2T(probability, deg_freedom) and TINV: 0 < probability <= 1, deg_freedom >= 1."""
    d = _df(df)
    if isinstance(d, XlError) or not _prob(p, zero=False, one=True):
        return NUM
    return _t_upper_inv(p / 2.0, d)


# --- chi-squared, gamma, exponential, Poisson -----------------------------------------------


def _chisq_dist(x, df, cumulative):
    """CHISQ.DIST(x, deg_freedom, cumulative): x < 0 or deg_freedom outside 1..10^10 is #NUM!."""
    d = _df(df)
    if isinstance(d, XlError) or x < 0:
        return NUM
    if _flag(cumulative):
        return gamma_pq(d / 2.0, x / 2.0)[0]
    return _gamma_pdf(x, d / 2.0, 2.0)


def _chisq_dist_rt(x, df):
    """CHISQ.DIST.RT(x, deg_freedom) and CHIDIST: x < 0 is #NUM!."""
    d = _df(df)
    if isinstance(d, XlError) or x < 0:
        return NUM
    return gamma_pq(d / 2.0, x / 2.0)[1]


def _chisq_inv(p, df):
    """CHISQ.INV(probability, deg_freedom): 0 <= probability < 1 (0 gives 0)."""
    d = _df(df)
    if isinstance(d, XlError) or not _prob(p, zero=True, one=False):
        return NUM
    return _gamma_inv(p, d / 2.0, 2.0, upper=False)


def _chisq_inv_rt(p, df):
    """CHISQ.INV.RT(probability, deg_freedom) and CHIINV: 0 < probability <= 1 (1 gives 0)."""
    d = _df(df)
    if isinstance(d, XlError) or not _prob(p, zero=False, one=True):
        return NUM
    return _gamma_inv(p, d / 2.0, 2.0, upper=True)


def _gamma_pdf(x: float, a: float, b: float) -> float:
    if x == 0.0:
        return 1.0 / b if a == 1.0 else (0.0 if a > 1.0 else math.inf)
    return math.exp((a - 1.0) * math.log(x) - x / b - math.lgamma(a) - a * math.log(b))


def _gamma_inv(p: float, a: float, b: float, upper: bool) -> float:
    """x with P(a, x/b) = p (or Q(a, x/b) = p when ``upper``)."""
    if (p == 0.0 and not upper) or (p == 1.0 and upper):
        return 0.0
    k = 1 if upper else 0
    return b * _positive_root(lambda t: gamma_pq(a, t)[k], p, increasing=not upper)


def _gamma_dist(x, alpha, beta, cumulative):
    """GAMMA.DIST(x, alpha, beta, cumulative): x < 0, alpha <= 0 or beta <= 0 is #NUM!."""
    if x < 0 or alpha <= 0 or beta <= 0:
        return NUM
    if _flag(cumulative):
        return gamma_pq(alpha, x / beta)[0]
    return _gamma_pdf(x, alpha, beta)


def _gamma_inv_fn(p, alpha, beta):
    """GAMMA.INV(probability, alpha, beta): 0 <= probability < 1, alpha > 0, beta > 0."""
    if not _prob(p, zero=True, one=False) or alpha <= 0 or beta <= 0:
        return NUM
    return _gamma_inv(p, alpha, beta, upper=False)


def _gamma(x):
    """GAMMA(number): 0 and negative integers are #NUM! (and results too large for a double)."""
    if x <= 0 and x == math.trunc(x):
        return NUM
    return math.gamma(x)


def _gammaln(x):
    """GAMMALN(x) and GAMMALN.PRECISE(x): x <= 0 is #NUM!."""
    return NUM if x <= 0 else math.lgamma(x)


def _expon_dist(x, lam, cumulative):
    """EXPON.DIST(x, lambda, cumulative): x < 0 or lambda <= 0 is #NUM!."""
    if x < 0 or lam <= 0:
        return NUM
    return -math.expm1(-lam * x) if _flag(cumulative) else lam * math.exp(-lam * x)


def _poisson_dist(x, mean, cumulative):
    """POISSON.DIST(x, mean, cumulative): x truncated; x < 0 or mean < 0 is #NUM!."""
    k = math.trunc(x)
    if k < 0 or mean < 0:
        return NUM
    if mean == 0:
        return 1.0 if (k == 0 or _flag(cumulative)) else 0.0
    if _flag(cumulative):
        return gamma_pq(k + 1.0, mean)[1]
    return math.exp(k * math.log(mean) - mean - math.lgamma(k + 1.0))


def _weibull_dist(x, alpha, beta, cumulative):
    """WEIBULL.DIST(x, alpha, beta, cumulative): x < 0, alpha <= 0 or beta <= 0 is #NUM!."""
    if x < 0 or alpha <= 0 or beta <= 0:
        return NUM
    z = (x / beta) ** alpha
    if _flag(cumulative):
        return -math.expm1(-z)
    return alpha / beta**alpha * x ** (alpha - 1.0) * math.exp(-z)


# --- F and beta -----------------------------------------------------------------------------


def _f_tails(x: float, d1: float, d2: float) -> tuple[float, float]:
    s = d1 * x + d2
    return beta_i(d1 / 2.0, d2 / 2.0, d1 * x / s, d2 / s)


def _f_dist(x, d1, d2, cumulative):
    """F.DIST(x, deg_freedom1, deg_freedom2, cumulative): x < 0 or a deg_freedom < 1 is #NUM!."""
    a, b = _df(d1), _df(d2)
    if isinstance(a, XlError) or isinstance(b, XlError) or x < 0:
        return NUM
    if _flag(cumulative):
        return _f_tails(x, a, b)[0]
    if x == 0:
        return 0.0 if a > 2 else (1.0 if a == 2 else math.inf)
    lg = math.lgamma((a + b) / 2) - math.lgamma(a / 2) - math.lgamma(b / 2)
    return math.exp(
        lg + a / 2 * math.log(a / b) + (a / 2 - 1) * math.log(x) - (a + b) / 2 * math.log1p(a * x / b)
    )


def _f_dist_rt(x, d1, d2):
    """F.DIST.RT(x, deg_freedom1, deg_freedom2) and FDIST: x < 0 is #NUM!."""
    a, b = _df(d1), _df(d2)
    if isinstance(a, XlError) or isinstance(b, XlError) or x < 0:
        return NUM
    return _f_tails(x, a, b)[1]


def _f_inv_tail(p: float, d1, d2, upper: bool):
    a, b = _df(d1), _df(d2)
    if isinstance(a, XlError) or isinstance(b, XlError) or not _prob(p, zero=not upper, one=upper):
        return NUM
    if (p == 0.0 and not upper) or (p == 1.0 and upper):
        return 0.0
    k = 1 if upper else 0
    return _positive_root(lambda x: _f_tails(x, a, b)[k], p, increasing=not upper)


def _f_inv(p, d1, d2):
    """F.INV(probability, deg_freedom1, deg_freedom2): 0 <= probability < 1."""
    return _f_inv_tail(p, d1, d2, upper=False)


def _f_inv_rt(p, d1, d2):
    """F.INV.RT(probability, deg_freedom1, deg_freedom2) and FINV: 0 < probability <= 1."""
    return _f_inv_tail(p, d1, d2, upper=True)


def _bounds(lo, hi):
    return (0.0 if lo is None else lo), (1.0 if hi is None else hi)


def _beta_dist(x, alpha, beta, cumulative, lo=None, hi=None):
    """BETA.DIST(x, alpha, beta, cumulative, [A=0], [B=1]): alpha <= 0, beta <= 0, x < A,
    x > B or A = B is #NUM!."""
    lo, hi = _bounds(lo, hi)
    if alpha <= 0 or beta <= 0 or x < lo or x > hi or lo == hi:
        return NUM
    w = hi - lo
    z, y = (x - lo) / w, (hi - x) / w
    if _flag(cumulative):
        return beta_i(alpha, beta, z, y)[0]
    if z == 0.0 or y == 0.0:
        edge_a = alpha if z == 0.0 else beta
        if edge_a < 1:
            return NUM
        if edge_a > 1:
            return 0.0
    lb = math.lgamma(alpha + beta) - math.lgamma(alpha) - math.lgamma(beta)
    la = (alpha - 1) * math.log(z) if alpha != 1 else 0.0
    lbb = (beta - 1) * math.log(y) if beta != 1 else 0.0
    return math.exp(lb + la + lbb) / w


def _betadist(x, alpha, beta, lo=None, hi=None):
    """BETADIST(x, alpha, beta, [A], [B]): the cumulative BETA.DIST."""
    return _beta_dist(x, alpha, beta, 1.0, lo, hi)


def _beta_inv(p, alpha, beta, lo=None, hi=None):
    """BETA.INV(probability, alpha, beta, [A=0], [B=1]): 0 < probability <= 1, alpha > 0,
    beta > 0, A < B (Microsoft's remarks)."""
    lo, hi = _bounds(lo, hi)
    if not _prob(p, zero=False, one=True) or alpha <= 0 or beta <= 0 or lo >= hi:
        return NUM
    if p == 1.0:
        return hi
    z = _bisect(lambda t: beta_i(alpha, beta, t)[0], p, 0.0, 1.0)
    return lo + z * (hi - lo)


# --- discrete: binomial, negative binomial, hypergeometric ----------------------------------


def _binom_pmf(k: int, n: int, p: float) -> float:
    if p == 0.0:
        return 1.0 if k == 0 else 0.0
    if p == 1.0:
        return 1.0 if k == n else 0.0
    lc = math.lgamma(n + 1.0) - math.lgamma(k + 1.0) - math.lgamma(n - k + 1.0)
    return math.exp(lc + k * math.log(p) + (n - k) * math.log1p(-p))


def _binom_cdf(k: int, n: int, p: float) -> float:
    if k >= n:
        return 1.0
    if p == 0.0:
        return 1.0
    if p == 1.0:
        return 0.0
    # P(X <= k) = I_{1-p}(n - k, k + 1)
    return beta_i(n - k, k + 1.0, 1.0 - p, p)[0]


def _binom_dist(x, trials, p, cumulative):
    """BINOM.DIST(number_s, trials, probability_s, cumulative): number_s and trials truncated;
    number_s < 0, number_s > trials, or probability_s outside 0..1 is #NUM!."""
    k, n = math.trunc(x), math.trunc(trials)
    if k < 0 or k > n or not 0.0 <= p <= 1.0:
        return NUM
    return _binom_cdf(k, n, p) if _flag(cumulative) else _binom_pmf(k, n, p)


def _binom_dist_range(trials, p, s, s2=None):
    """BINOM.DIST.RANGE(trials, probability_s, number_s, [number_s2]): the probability of
    number_s to number_s2 successes; 0 <= number_s <= number_s2 <= trials, 0 <= p <= 1."""
    n, k1 = math.trunc(trials), math.trunc(s)
    k2 = k1 if s2 is None else math.trunc(s2)
    if n < 0 or not 0.0 <= p <= 1.0 or not 0 <= k1 <= n or not k1 <= k2 <= n:
        return NUM
    return math.fsum(_binom_pmf(k, n, p) for k in range(k1, k2 + 1))


def _binom_inv(trials, p, alpha):
    """BINOM.INV(trials, probability_s, alpha) and CRITBINOM: the smallest k with
    BINOM.DIST(k, trials, p, TRUE) >= alpha; trials < 0, p or alpha outside 0..1 is #NUM!."""
    n = math.trunc(trials)
    if n < 0 or not 0.0 <= p <= 1.0 or not 0.0 <= alpha <= 1.0:
        return NUM
    total = 0.0
    for k in range(n + 1):
        total += _binom_pmf(k, n, p)
        if total >= alpha * (1.0 - 1e-15):
            return float(k)
    return float(n)


def _negbinom_dist(f, s, p, cumulative=None):
    """NEGBINOM.DIST(number_f, number_s, probability_s, cumulative): failures before the
    number_s-th success; number_f < 0, number_s < 1 or p outside 0..1 (exclusive) is #NUM!."""
    k, r = math.trunc(f), math.trunc(s)
    if k < 0 or r < 1 or not 0.0 < p < 1.0:
        return NUM
    if _flag(cumulative):
        return beta_i(float(r), k + 1.0, p)[0]
    lc = math.lgamma(k + r) - math.lgamma(k + 1.0) - math.lgamma(float(r))
    return math.exp(lc + r * math.log(p) + k * math.log1p(-p))


def _hypgeom_dist(x, n, big_k, big_n, cumulative=None):
    """HYPGEOM.DIST(sample_s, number_sample, population_s, number_pop, cumulative): all
    truncated; sample_s < max(0, n - N + K), sample_s > min(n, K), n > N, K > N or any < 0
    (N <= 0) is #NUM!."""
    k, n, kk, nn = (math.trunc(v) for v in (x, n, big_k, big_n))
    if nn <= 0 or n < 0 or kk < 0 or n > nn or kk > nn or k < 0:
        return NUM
    if k > min(n, kk) or k < max(0, n - nn + kk):
        return NUM

    def pmf(j: int) -> float:
        return math.comb(kk, j) * math.comb(nn - kk, n - j) / math.comb(nn, n)

    if _flag(cumulative):
        return min(1.0, math.fsum(pmf(j) for j in range(max(0, n - nn + kk), k + 1)))
    return pmf(k)


def _fisher(x):
    return NUM if not -1.0 < x < 1.0 else math.atanh(x)


def _fisherinv(y):
    return math.tanh(y)


# --- the table ------------------------------------------------------------------------------


def _legacy_norms_dist(z):
    return norm_cdf(z)


def _legacy_lognorm_dist(x, mean, sd):
    return _lognorm_dist(x, mean, sd, 1.0)


_DEFS = {
    # name: (function, required args, most args)
    "NORM.DIST": (_norm_dist, 4, 4),
    "NORMDIST": (_norm_dist, 4, 4),
    "NORM.S.DIST": (_norm_s_dist, 2, 2),
    "NORMSDIST": (_legacy_norms_dist, 1, 1),
    "NORM.INV": (_norm_inv, 3, 3),
    "NORMINV": (_norm_inv, 3, 3),
    "NORM.S.INV": (_norm_s_inv, 1, 1),
    "NORMSINV": (_norm_s_inv, 1, 1),
    "LOGNORM.DIST": (_lognorm_dist, 4, 4),
    "LOGNORMDIST": (_legacy_lognorm_dist, 3, 3),
    "LOGNORM.INV": (_lognorm_inv, 3, 3),
    "LOGINV": (_lognorm_inv, 3, 3),
    "STANDARDIZE": (_standardize, 3, 3),
    "PHI": (_phi, 1, 1),
    "GAUSS": (_gauss, 1, 1),
    "CONFIDENCE.NORM": (_confidence_norm, 3, 3),
    "CONFIDENCE": (_confidence_norm, 3, 3),
    "CONFIDENCE.T": (_confidence_t, 3, 3),
    "T.DIST": (_t_dist, 3, 3),
    "T.DIST.2T": (_t_dist_2t, 2, 2),
    "T.DIST.RT": (_t_dist_rt, 2, 2),
    "TDIST": (_tdist, 3, 3),
    "T.INV": (_t_inv, 2, 2),
    "T.INV.2T": (_t_inv_2t, 2, 2),
    "TINV": (_t_inv_2t, 2, 2),
    "CHISQ.DIST": (_chisq_dist, 3, 3),
    "CHISQ.DIST.RT": (_chisq_dist_rt, 2, 2),
    "CHIDIST": (_chisq_dist_rt, 2, 2),
    "CHISQ.INV": (_chisq_inv, 2, 2),
    "CHISQ.INV.RT": (_chisq_inv_rt, 2, 2),
    "CHIINV": (_chisq_inv_rt, 2, 2),
    "GAMMA": (_gamma, 1, 1),
    "GAMMALN": (_gammaln, 1, 1),
    "GAMMALN.PRECISE": (_gammaln, 1, 1),
    "GAMMA.DIST": (_gamma_dist, 4, 4),
    "GAMMADIST": (_gamma_dist, 4, 4),
    "GAMMA.INV": (_gamma_inv_fn, 3, 3),
    "GAMMAINV": (_gamma_inv_fn, 3, 3),
    "EXPON.DIST": (_expon_dist, 3, 3),
    "EXPONDIST": (_expon_dist, 3, 3),
    "POISSON.DIST": (_poisson_dist, 3, 3),
    "POISSON": (_poisson_dist, 3, 3),
    "WEIBULL.DIST": (_weibull_dist, 4, 4),
    "WEIBULL": (_weibull_dist, 4, 4),
    "F.DIST": (_f_dist, 4, 4),
    "F.DIST.RT": (_f_dist_rt, 3, 3),
    "FDIST": (_f_dist_rt, 3, 3),
    "F.INV": (_f_inv, 3, 3),
    "F.INV.RT": (_f_inv_rt, 3, 3),
    "FINV": (_f_inv_rt, 3, 3),
    "BETA.DIST": (_beta_dist, 4, 6),
    "BETADIST": (_betadist, 3, 5),
    "BETA.INV": (_beta_inv, 3, 5),
    "BETAINV": (_beta_inv, 3, 5),
    "BINOM.DIST": (_binom_dist, 4, 4),
    "BINOMDIST": (_binom_dist, 4, 4),
    "BINOM.DIST.RANGE": (_binom_dist_range, 3, 4),
    "BINOM.INV": (_binom_inv, 3, 3),
    "CRITBINOM": (_binom_inv, 3, 3),
    "NEGBINOM.DIST": (_negbinom_dist, 4, 4),
    "NEGBINOMDIST": (_negbinom_dist, 3, 3),
    "HYPGEOM.DIST": (_hypgeom_dist, 5, 5),
    "HYPGEOMDIST": (_hypgeom_dist, 4, 4),
    "FISHER": (_fisher, 1, 1),
    "FISHERINV": (_fisherinv, 1, 1),
}

FUNCTIONS = {name: Spec(scalar_function(f, lo), lo, hi) for name, (f, lo, hi) in _DEFS.items()}
