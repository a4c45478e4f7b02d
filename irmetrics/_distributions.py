"""The probability distributions behind the statistics, in pure Python.

=================================  ===========================================
:func:`studentized_range_sf`       P(Q > q), Q the studentized range of k means
                                   with *df* degrees of freedom (Tukey's HSD)
:func:`nct_cdf`                    P(T <= t), T the noncentral t (power), and
:func:`nct_noncentrality`          its inverse in the noncentrality (effect
                                   size intervals)
:func:`chi_mean`                   E[g(S)], S = sqrt(X / df), X chi-squared:
                                   the one outer integral of both
:func:`trapezoid`                  the quadrature: the trapezoid rule, its
                                   step halved until two results agree
:func:`normal_sf`                  P(Z > z), accurate far in the tail
:func:`t_two_tailed`, :func:`t_upper`  Student's t (tail and quantile),
                                   :func:`f_sf` the F distribution, from
                                   :func:`betainc`
=================================  ===========================================

The studentized range and the noncentral t are both averages over the
estimated standard deviation S (relative to the true one): with the range R
of k standard normal variables, Q = R / S and P(Q > q) = E[P(R > q S)]; with
Z standard normal, T = (Z + nc) / S and P(T <= t) = E[Phi(t S - nc)].  Both
are one integral over S (:func:`chi_mean`) of a function computed in closed
form (the normal) or by one more integral (the range).  Each is computed on
the side where it is small (survival functions as sums of positive terms, no
``1 - cdf``), so small probabilities keep their relative accuracy.
"""

from __future__ import annotations

import math
from typing import Callable, Tuple

_SQRT2 = math.sqrt(2.0)
_INV_SQRT2 = 1.0 / _SQRT2
_SQRT_2PI = math.sqrt(2.0 * math.pi)

_EPS = 2.220446049250313e-16
_TINY = 1e-300


# === The Student t and F distributions ======================================


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz).

    Converges quickly for ``x < (a + 1) / (a + b + 2)``; the caller swaps the
    arguments otherwise.
    """
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c = 1.0
    d = 1.0 / _off_zero(1.0 - qab * x / qap)
    h = d
    for m in range(1, 100_000):
        m2 = 2 * m
        even = m * (b - m) * x / ((qam + m2) * (a + m2))
        odd = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        for aa in (even, odd):  # one step of the fraction each
            d = 1.0 / _off_zero(1.0 + aa * d)
            c = _off_zero(1.0 + aa / c)
            delta = d * c
            h *= delta
        if abs(delta - 1.0) < 4 * _EPS:
            return h
    raise ArithmeticError(  # pragma: no cover - needs a, b far beyond any query count
        f"incomplete beta continued fraction did not converge (a={a}, b={b}, x={x})"
    )


def _off_zero(v: float) -> float:
    """*v*, or a tiny positive number in its place when it is nearly 0 (Lentz's guard)."""
    return _TINY if abs(v) < _TINY else v


def betainc(a: float, b: float, x: float, y: float) -> float:
    """The regularized incomplete beta function I_x(a, b), with ``y = 1 - x``.

    ``y`` is passed separately so that a caller who knows it exactly (as the
    t distribution does) loses nothing to ``1 - x``.  The continued fraction is
    evaluated on the side where it converges, so the result has a small
    *relative* error whenever it is the small one of I_x(a, b) and
    I_y(b, a) = 1 - I_x(a, b): that is what keeps far-tail p-values accurate.
    """
    if x <= 0.0:
        return 0.0
    if y <= 0.0:
        return 1.0
    log_front = (
        a * math.log(x) + b * math.log(y) - (math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b))
    )
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _betacf(a, b, x) / a
    return 1.0 - math.exp(log_front) * _betacf(b, a, y) / b


def t_two_tailed(t: float, df: float) -> float:
    """P(|T| >= |t|) for T ~ Student t with *df* degrees of freedom."""
    t2 = t * t
    if math.isinf(t2):  # |t| beyond 1e154: x underflows anyway
        return 0.0
    # x = df / (df + t^2) and 1 - x = t^2 / (df + t^2), each computed directly
    # (t = 0 gives x = 1: p = 1)
    return betainc(df / 2.0, 0.5, df / (df + t2), t2 / (df + t2))


def t_upper(q: float, df: float) -> float:
    """The t > 0 with P(T > t) = q, for 0 < q < 1/2 (:func:`_solve` in a
    bracket found by doubling)."""
    lo, hi = 0.0, 1.0
    while t_two_tailed(hi, df) / 2.0 > q:  # ends by 2**512, where the tail is 0
        lo, hi = hi, hi * 2.0
    return _solve(lambda t: t_two_tailed(t, df) / 2.0 - q, lo, hi, 4 * _EPS)


def f_sf(f: float, df1: float, df2: float) -> float:
    """P(F > f) for F with (df1, df2) degrees of freedom: I_x(df2/2, df1/2),
    x = df2 / (df2 + df1 f), on its accurate side (:func:`betainc`)."""
    return betainc(df2 / 2.0, df1 / 2.0, df2 / (df2 + df1 * f), df1 * f / (df2 + df1 * f))


# === The normal distribution ==================================================


def normal_sf(z: float) -> float:
    """P(Z > z) for Z standard normal (erfc: relative accuracy in both tails)."""
    return 0.5 * math.erfc(z / _SQRT2)


# === The mean over the estimated standard deviation ============================

# The mean of chi_mean is taken where the density of log S is above exp(-_TAIL)
# times its largest value (exp(-100) is 4e-44): smaller probabilities lose
# their relative accuracy.
_TAIL = 100.0
# Two results of the trapezoid rule that agree to this fraction (the error of
# the finer one is then far smaller, about this squared).
_AGREE = 1e-8


def _log_density_bounds(df: float) -> Tuple[float, float]:
    """A u < 0 < v beyond which psi = (df / 2)(2u - e^(2u) + 1), the log of
    the density of log S over its peak, is below -_TAIL: psi <= (df/2)(2u + 1)
    bounds the left, and with e^(2v) = e (4 _TAIL / df + 2), log(x) <= x - 1
    gives psi(v) <= -(e - 1) _TAIL on the right."""
    return -_TAIL / df - 1.0, 0.5 * math.log(4.0 * _TAIL / df + 2.0) + 0.5


def trapezoid(f: Callable[[float], float], low: float, high: float, step: float) -> float:
    """The integral of *f* over [low, high], f negligible at both ends: the
    trapezoid rule, its step halved from about *step* until two results agree
    to 1e-8.  On a smooth f that vanishes at the ends the rule's error falls
    as exp(-c / h) or faster, so that halving h at least squares it: the
    result, one halving past that agreement, is good to about 1e-16."""
    n = max(2, math.ceil((high - low) / step))
    h = (high - low) / n
    total = math.fsum(f(low + i * h) for i in range(n + 1))
    estimate = total * h
    for _ in range(12):
        total += math.fsum(f(low + (i + 0.5) * h) for i in range(n))
        n, h = 2 * n, h / 2.0
        if abs(total * h - estimate) <= _AGREE * abs(total * h):
            break
        estimate = total * h
    return total * h


def _log_chi_constant(x: float) -> float:
    """log 2 + x log x - x - lgamma(x): for x >= 50 from Stirling's series
    (log 2 + log(x) / 2 - log(2 pi) / 2 - 1/(12x) + 1/(360x^3) - 1/(1260x^5)
    + 1/(1680x^7), the next term below 1e-18), which the difference of large
    terms would leave with an error of about 1e-16 x log x."""
    if x < 50.0:
        return math.log(2.0) + x * math.log(x) - x - math.lgamma(x)
    inv = 1.0 / x
    inv2 = inv * inv
    series = inv * (1 / 12 - inv2 * (1 / 360 - inv2 * (1 / 1260 - inv2 / 1680)))
    return math.log(2.0) + 0.5 * math.log(x) - 0.5 * math.log(2.0 * math.pi) - series


def chi_mean(g: Callable[[float], float], df: float, centre: float = 0.0) -> float:
    """E[g(S)] for S = sqrt(X / df), X chi-squared with *df* degrees of freedom
    and g bounded, *centre* about where log S weighs most in the mean.

    With s = e^u the density of u = log S is
    exp(c + (df / 2)(2u - e^(2u) + 1)), c = log 2 + (df/2) log(df/2) - df/2 -
    lgamma(df/2): log-concave, its peak at u = 0, its width about
    w = 1 / sqrt(2 df), its left tail falling only as e^(df u).  With
    u = centre + w sinh(t) both tails fall double exponentially in t, and
    the trapezoid rule in t (:func:`trapezoid`) converges fast.
    """
    half = df / 2.0
    low, high = _log_density_bounds(df)
    width = 1.0 / math.sqrt(2.0 * df)

    log_c = _log_chi_constant(half)

    def integrand(t: float) -> float:
        u = centre + width * math.sinh(t)
        log_h = log_c + half * (2.0 * u - math.exp(2.0 * u) + 1.0)
        if log_h < -745.0:
            return 0.0
        return math.exp(log_h) * g(math.exp(u)) * width * math.cosh(t)

    return trapezoid(integrand, math.asinh(min(low - centre, -width) / width),
                     math.asinh(max(high - centre, width) / width), 0.5)


# === The studentized range =====================================================

# Above this many degrees of freedom S is taken as 1 (the range of k normal
# means itself), as scipy.stats.studentized_range does.
_DF_ASYMPTOTIC = 100_000.0


def _range_sf(w: float, k: int) -> float:
    """P(R > w), R the range of k standard normal variables.

    P(R > w) = k * integral of phi(z) [Q(z)^(k-1) - (Q(z) - Q(z+w))^(k-1)] dz
    (the smallest value at z, some other beyond z + w), with Q the normal
    survival function; a^m - b^m is summed as (a - b) * sum a^i b^(m-1-i),
    positive terms, so that a small P(R > w) keeps its relative accuracy.
    The integrand peaks near z = -w/2 and falls as exp(-(z + w/2)^2) or
    faster: the trapezoid rule over z = -w/2 -/+ 9.  For k = 2, R / sqrt(2)
    is |Z|: P(R > w) = erfc(w / 2).
    """
    if k == 2:
        return math.erfc(w / 2.0)
    m = k - 1
    erfc, exp = math.erfc, math.exp

    def integrand(z: float) -> float:
        a = 0.5 * erfc(z * _INV_SQRT2)
        c = 0.5 * erfc((z + w) * _INV_SQRT2)
        b = a - c
        total = b_power = 1.0
        for _ in range(m - 1):
            b_power *= b
            total = a * total + b_power
        return exp(-0.5 * z * z) * c * total

    return min(1.0, k / _SQRT_2PI * trapezoid(integrand, -w / 2.0 - 9.0, -w / 2.0 + 9.0, 0.5))


def studentized_range_sf(q: float, k: int, df: float) -> float:
    """P(Q > q), Q = R / S the studentized range: R the range of k standard
    normal variables, S^2 an independent chi-squared over *df*.

    P(Q > q) = E[P(R > q S)] (:func:`chi_mean` of :func:`_range_sf`); from
    100,000 degrees of freedom on, P(R > q) itself, as scipy does.
    """
    if q <= 0.0:
        return 1.0
    if math.isinf(q):
        return 0.0
    if df >= _DF_ASYMPTOTIC:
        return _range_sf(q, k)
    # the peak of the mean's integrand, where the range's tail (about
    # exp(-(q s)^2 / 4)) meets the density of S
    centre = 0.5 * math.log(df / (df + q * q / 2.0))
    return min(1.0, chi_mean(lambda s: _range_sf(q * s, k), df, centre))


# === The noncentral t ==========================================================


def nct_cdf(t: float, df: float, nc: float) -> float:
    """P(T <= t), T = (Z + nc) / S the noncentral t with *df* degrees of
    freedom and noncentrality *nc*: E[Phi(t S - nc)] (:func:`chi_mean`).
    Its survival function is ``nct_cdf(-t, df, -nc)``."""
    return min(1.0, chi_mean(lambda s: normal_sf(nc - t * s), df))


def _solve(f: Callable[[float], float], low: float, high: float, tol: float = 1e-13) -> float:
    """The x in [low, high] where f, decreasing with f(low) > 0 > f(high),
    crosses 0: regula falsi, Illinois variant (an end that stays twice in a
    row has its value halved), to *tol* of |x|."""
    f_low, f_high = f(low), f(high)
    side = 0
    x = low
    for _ in range(200):
        x = (low * f_high - high * f_low) / (f_high - f_low)
        if not low < x < high:
            x = (low + high) / 2.0
        fx = f(x)
        if fx > 0:
            low, f_low = x, fx
            f_high = f_high / 2.0 if side == 1 else f_high
            side = 1
        elif fx < 0:
            high, f_high = x, fx
            f_low = f_low / 2.0 if side == -1 else f_low
            side = -1
        if fx == 0 or high - low <= tol * max(1.0, abs(x)):
            break
    return x


def nct_noncentrality(t: float, df: float, probability: float) -> float:
    """The noncentrality nc with P(T <= t) = *probability*, T noncentral t
    with *df* degrees of freedom (P decreases in nc): how a confidence
    interval of a standardised effect is found from its t."""

    def excess(nc: float) -> float:
        return nct_cdf(t, df, nc) - probability

    low, high = t - 1.0, t + 1.0
    while excess(low) <= 0:
        low -= 2.0 * (t - low)
    while excess(high) >= 0:
        high += 2.0 * (high - t)
    return _solve(excess, low, high)
