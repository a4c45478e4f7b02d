"""The probability distributions behind the statistics, in pure Python.

=================================  ===========================================
:func:`studentized_range_sf`       P(Q > q), Q the studentized range of k means
                                   with *df* degrees of freedom (Tukey's HSD)
:func:`nct_cdf`                    P(T <= t), T the noncentral t (effect size
                                   intervals, power)
:func:`chi_mean`                   E[g(S)], S = sqrt(X / df), X chi-squared:
                                   the one outer integral of both
:func:`integrate`                  adaptive Gauss-Kronrod quadrature
:func:`normal_sf`                  P(Z > z), accurate far in the tail
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

import heapq
import math
from typing import Callable, Sequence, Tuple

__all__ = ["normal_sf", "integrate", "chi_mean", "studentized_range_sf", "nct_cdf"]

_SQRT2 = math.sqrt(2.0)
_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)

# === The normal distribution ==================================================


def normal_sf(z: float) -> float:
    """P(Z > z) for Z standard normal (erfc: relative accuracy in both tails)."""
    return 0.5 * math.erfc(z / _SQRT2)


def _normal_pdf(z: float) -> float:
    return math.exp(-0.5 * z * z - _LOG_SQRT_2PI)


# === Quadrature ================================================================

# The 15-point Kronrod rule and the 7-point Gauss rule it extends, on [-1, 1]
# (QUADPACK's qk15): nodes from the outside in, the last one 0.
_KRONROD_NODES = (
    0.991455371120812639206854697526329, 0.949107912342758524526189684047851,
    0.864864423359769072789712788640926, 0.741531185599394439863864773280788,
    0.586087235467691130294144845693013, 0.405845151377397166906606412076961,
    0.207784955007898467600689403773245, 0.0,
)
_KRONROD_WEIGHTS = (
    0.022935322010529224963732008058970, 0.063092092629978553290700663189204,
    0.104790010322250183839876322541518, 0.140653259715525918745189590510238,
    0.169004726639267902826583426598550, 0.190350578064785409913256402421014,
    0.204432940075298892414161999234649, 0.209482141084727828012999174891714,
)
# The Gauss weights of the odd nodes above (1, 3, 5 and 7 counted from 0).
_GAUSS_WEIGHTS = (
    0.129484966168869693270611432679082, 0.279705391489276667901467771423780,
    0.381830050505118944950369775488975, 0.417959183673469387755102040816327,
)

_Panel = Tuple[float, float, float, float]  # (-error, a, b, value)


def _kronrod(f: Callable[[float], float], a: float, b: float) -> _Panel:
    """The 15-point Kronrod estimate of the integral of f over [a, b] and its
    error, |Kronrod - Gauss|, as a panel of :func:`integrate`'s heap."""
    mid, half = (a + b) / 2.0, (b - a) / 2.0
    centre = f(mid)
    kronrod = [_KRONROD_WEIGHTS[7] * centre]
    gauss = [_GAUSS_WEIGHTS[3] * centre]
    for i in range(7):
        pair = f(mid - half * _KRONROD_NODES[i]) + f(mid + half * _KRONROD_NODES[i])
        kronrod.append(_KRONROD_WEIGHTS[i] * pair)
        if i % 2:
            gauss.append(_GAUSS_WEIGHTS[i // 2] * pair)
    value = math.fsum(kronrod) * half
    return -abs(value - math.fsum(gauss) * half), a, b, value


def integrate(
    f: Callable[[float], float], points: Sequence[float], *, rel: float = 1e-13,
    limit: int = 500,
) -> float:
    """The integral of *f* from points[0] to points[-1], the points splitting
    the range where f changes its shape.

    Globally adaptive (as QUADPACK's qag): the panel of largest error
    (|Kronrod 15 - Gauss 7|, which overstates the Kronrod value's error on
    smooth functions by orders of magnitude) is halved until the errors sum
    to at most *rel* times the integral, or *limit* panels are reached.
    """
    heap = [_kronrod(f, a, b) for a, b in zip(points, points[1:])]
    heapq.heapify(heap)
    while len(heap) < limit:
        if -math.fsum(p[0] for p in heap) <= rel * abs(math.fsum(p[3] for p in heap)):
            break
        _, a, b, _ = heapq.heappop(heap)
        mid = (a + b) / 2.0
        heapq.heappush(heap, _kronrod(f, a, mid))
        heapq.heappush(heap, _kronrod(f, mid, b))
    return math.fsum(p[3] for p in heap)


# === The mean over the estimated standard deviation ============================

# The integrand of chi_mean is dropped where the density of S is below
# exp(-_TAIL) times its largest value (exp(-60) is 9e-27).
_TAIL = 60.0


def _log_density_bounds(df: float) -> Tuple[float, float]:
    """The u < 0 < v where psi = (df / 2)(2u - e^(2u) + 1), the log of the
    density of log S over its peak, falls to -_TAIL: Newton's method from
    outside the root (psi is concave, so the steps never pass it)."""
    half = df / 2.0
    out = []
    for u in (-_TAIL / df - 1.0, 0.5 * math.log(2.0 * _TAIL / half + 2.0) + 0.5):
        for _ in range(100):
            step = (half * (2.0 * u - math.exp(2.0 * u) + 1.0) + _TAIL) / (
                df * (1.0 - math.exp(2.0 * u)))
            u -= step
            if abs(step) <= 1e-12 * max(1.0, abs(u)):
                break
        out.append(u)
    return out[0], out[1]


def chi_mean(g: Callable[[float], float], df: float) -> float:
    """E[g(S)] for S = sqrt(X / df), X chi-squared with *df* degrees of freedom
    and g bounded.

    With s = e^u the density of u = log S is
    exp(c + (df / 2)(2u - e^(2u) + 1)), c = log 2 + (df/2) log(df/2) - df/2 -
    lgamma(df/2): log-concave with its peak at u = 0 and width about
    1 / sqrt(2 df), so one smooth integrand for every df (:func:`integrate`,
    the range cut where the density falls below exp(-60) of its peak).
    """
    half = df / 2.0
    log_c = math.log(2.0) + half * math.log(half) - half - math.lgamma(half)
    low, high = _log_density_bounds(df)
    width = 1.0 / math.sqrt(2.0 * df)
    points = [low] + [w * width for w in (-4.0, -2.0, -1.0, 0.0, 1.0, 2.0, 4.0)
                      if low < w * width < high] + [high]

    def integrand(u: float) -> float:
        log_h = log_c + half * (2.0 * u - math.exp(2.0 * u) + 1.0)
        return math.exp(log_h) * g(math.exp(u)) if log_h > -745.0 else 0.0

    return integrate(integrand, points)


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
    The integrand peaks near z = -w/2 and falls as exp(-(z + w/2)^2).
    """
    if w <= 0.0:
        return 1.0
    m = k - 1

    def integrand(z: float) -> float:
        a = normal_sf(z)
        c = normal_sf(z + w)
        b = a - c
        total, b_power = 1.0, 1.0
        for _ in range(m - 1):
            b_power *= b
            total = a * total + b_power
        return k * _normal_pdf(z) * c * total

    centre = -w / 2.0
    return min(1.0, integrate(integrand, [centre + t for t in (-9.0, -3.0, 0.0, 3.0, 9.0)]))


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
    return min(1.0, chi_mean(lambda s: _range_sf(q * s, k), df))


# === The noncentral t ==========================================================


def nct_cdf(t: float, df: float, nc: float) -> float:
    """P(T <= t), T = (Z + nc) / S the noncentral t with *df* degrees of
    freedom and noncentrality *nc*: E[Phi(t S - nc)] (:func:`chi_mean`).
    Its survival function is ``nct_cdf(-t, df, -nc)``."""
    return min(1.0, chi_mean(lambda s: normal_sf(nc - t * s), df))
