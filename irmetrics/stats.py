"""Statistics for comparing systems over the same queries, and for planning
how many queries (topics) an experiment needs.

Pure Python, standard library only; the values agree with scipy's and
statsmodels'.  The distributions behind them are in ``_distributions.py``.

=============================  ================================================
:func:`t_sf`                   Student t survival function, accurate far in
                               the tail
:func:`t_quantile`             its inverse (for confidence intervals)
:func:`paired_t_test`          two-sided paired t test (``scipy.stats.ttest_rel``)
:func:`wilcoxon_test`          Wilcoxon signed-rank test (``scipy.stats.wilcoxon``)
:func:`permutation_test`       paired randomization (sign-flip) test of the mean
:func:`permutation_ci`         the interval of the mean difference that inverts it
:func:`bootstrap_test`         paired bootstrap test of the mean (shift method)
:func:`bootstrap_ci`           percentile bootstrap interval of the mean difference
:func:`randomized_tukey_hsd`   randomised Tukey HSD of k systems (Carterette 2012)
:func:`t_ci`                   t interval of the mean difference
:func:`adjust_p_values`        Holm, Bonferroni, Holm-Sidak, Hommel,
                               Benjamini-Hochberg and -Yekutieli corrections
:func:`two_way_anova`          system x topic ANOVA without replication, and
                               its residual variance V_E
:func:`tukey_hsd`              Tukey's HSD of every pair, one-way
                               (``scipy.stats.tukey_hsd``) or two-way
:func:`letter_groups`          a compact letter display of which differ
:func:`paired_cohens_d`        paired Cohen's d, with a noncentral t interval
:func:`standardized_mean_differences`
                               Sakai's ES_E of every pair, likewise
:func:`paired_t_power`         the paired t test's power (``TTestPower``)
:func:`paired_t_topics`        the topics it needs for a given power
:func:`topic_set_size`         Sakai's topic set size for a difference in
                               mean scores
=============================  ================================================

Every test takes paired samples ``x`` and ``y`` (or the differences ``x - y``
alone, with ``y`` left out) and returns a :class:`SignificanceResult`.  Data whose
test statistic is undefined (for example differences that are all equal, for
the t test) raise :class:`~irmetrics.errors.UndefinedStatisticError` rather
than return NaN.

>>> x = [0.61, 0.42, 0.55, 0.70, 0.38, 0.49]
>>> y = [0.52, 0.40, 0.50, 0.61, 0.39, 0.41]
>>> r = paired_t_test(x, y)
>>> round(r.statistic, 4), round(r.p_value, 4)
(3.1623, 0.025)
"""

from __future__ import annotations

import math
import string
import struct
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable
from itertools import accumulate, chain, combinations, groupby, islice, permutations, repeat
from numbers import Real
from operator import add, itemgetter, sub
from typing import TYPE_CHECKING, Any, Iterable, List, NamedTuple, Optional, Sequence, Tuple

from ._checks import check_choice, check_finite, check_int, check_list, check_positive_real
from ._distributions import (
    _solve,
    f_sf,
    nct_cdf,
    nct_noncentrality,
    studentized_range_sf,
    t_two_tailed,
    t_upper,
)
from .errors import InvalidArgumentError, UndefinedStatisticError

if TYPE_CHECKING:
    import random

__all__ = [
    "SignificanceResult",
    "t_sf",
    "t_quantile",
    "paired_t_test",
    "wilcoxon_test",
    "permutation_test",
    "permutation_ci",
    "bootstrap_test",
    "bootstrap_ci",
    "randomized_tukey_hsd",
    "t_ci",
    "adjust_p_values",
    "CORRECTIONS",
    "two_way_anova",
    "AnovaResult",
    "tukey_hsd",
    "TukeyHSDResult",
    "letter_groups",
    "EffectSize",
    "paired_cohens_d",
    "standardized_mean_differences",
    "paired_t_power",
    "paired_t_topics",
    "topic_set_size",
]

#: The names :func:`adjust_p_values` accepts (statsmodels' names for the new ones).
CORRECTIONS = ("holm", "bonferroni", "none", "holm-sidak", "hommel", "fdr_bh", "fdr_by")

# Sums of sign-flipped differences that are equal in exact arithmetic can
# differ in the last bits when added in another order; values within this
# fraction of sum(|d|) of the observed one count as ties (as "at least as
# extreme").  Float error of such a sum is below n * eps * sum(|d|).
_TIE_RTOL = 1e-9
# Above this many pairs the randomization test samples sign flips instead of
# enumerating all 2**n of them (the enumeration meets in the middle: 2 * 2**(n/2)).
_EXACT_MAX_N = 20


class SignificanceResult(NamedTuple):
    """What a test returns: the statistic, the two-sided p-value, the method used."""

    statistic: float
    p_value: float
    method: str


# === The Student t distribution ==============================================


def _check_real(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, Real) or math.isnan(float(value)):
        raise InvalidArgumentError(f"{name!r} must be a real number (got {value!r})")
    return float(value)


def t_sf(t: float, df: float) -> float:
    """Survival function of Student's t distribution: P(T > t).

    P(T > t) = I_x(df/2, 1/2) / 2 for t > 0, with x = df / (df + t^2), where I
    is the regularized incomplete beta function (a continued fraction, with
    ``math.lgamma``).  The relative error stays near 1e-14 far into the tail,
    so p-values of 1e-12 and below are as accurate as ordinary ones.

    >>> t_sf(0.0, 5)
    0.5
    >>> round(t_sf(2.015048373, 5), 6)      # the 95th percentile of t(5)
    0.05
    >>> t_sf(-1.0, 1) + t_sf(1.0, 1)        # symmetry
    1.0
    """
    t = _check_real(t, "t")
    df = check_positive_real(df, "df")
    half = t_two_tailed(t, df) / 2.0
    return half if t >= 0 else 1.0 - half


def t_quantile(p: float, df: float) -> float:
    """The quantile of Student's t distribution: the t with P(T <= t) = p.

    Solved from :func:`t_sf` by Newton's method inside a bisection bracket,
    to full float precision; p must be in (0, 1).

    >>> round(t_quantile(0.975, 10), 6)
    2.228139
    >>> t_quantile(0.5, 3)
    0.0
    >>> round(t_quantile(0.025, 10), 6)
    -2.228139
    """
    p = _check_level(p, "'p'")
    df = check_positive_real(df, "df")
    if p == 0.5:
        return 0.0
    q = p if p < 0.5 else 1.0 - p  # the tail probability, found on t > 0
    t = t_upper(q, df)
    return -t if p < 0.5 else t


# === Input ====================================================================


def _numbers(values: Iterable[Any], name: str) -> List[float]:
    items = check_list(values, name, "a sequence of numbers", "a sequence of numbers in order")
    return [check_finite(v, f"{name}[{i}]") for i, v in enumerate(items)]


def _differences(x: Iterable[float], y: Optional[Iterable[float]], minimum: int = 2) -> List[float]:
    """``x - y`` element by element (or ``x`` itself without ``y``), validated."""
    xs = _numbers(x, "x")
    if y is None:
        d = xs
    else:
        ys = _numbers(y, "y")
        if len(xs) != len(ys):
            raise InvalidArgumentError(
                f"'x' and 'y' must have the same length (got {len(xs)} and {len(ys)})"
            )
        d = [a - b for a, b in zip(xs, ys)]
        for i, (v, a, b) in enumerate(zip(d, xs, ys)):
            if not math.isfinite(v):
                raise InvalidArgumentError(
                    f"x[{i}] - y[{i}] is beyond the largest float ({a!r} - {b!r}): "
                    "the difference has no finite value"
                )
    if len(d) < minimum:
        raise InvalidArgumentError(f"a paired test needs at least {minimum} pairs (got {len(d)})")
    return d


def _scaled(d: Sequence[float]) -> Tuple[int, List[float]]:
    """(e, d * 2**-e) with the largest |value| in [1/2, 1): sums and squares of
    the scaled values neither overflow nor underflow, and scaling by a power of
    two is exact (a value below 2**-1000 of the largest may lose low bits,
    too small to change any sum), so statistics computed on them, scaled
    back by 2**e, are those of *d*."""
    top = max((abs(v) for v in d), default=0.0)
    if top == 0.0:
        return 0, list(d)
    e = math.frexp(top)[1]
    return e, [math.ldexp(v, -e) for v in d]


def _mean(values: Sequence[float]) -> float:
    """The mean, correctly rounded (math.fsum), for any finite values: values
    whose sum passes the largest float are summed scaled down."""
    try:
        return math.fsum(values) / len(values)
    except OverflowError:
        e, scaled = _scaled(values)
        return math.ldexp(math.fsum(scaled) / len(scaled), e)


def _finite_interval(low: float, high: float, e: int, what: str) -> Tuple[float, float]:
    """(low, high) * 2**e, or a clear error when a bound passes the largest float."""
    try:
        return math.ldexp(low, e), math.ldexp(high, e)
    except OverflowError:
        raise InvalidArgumentError(
            f"the {what} of the mean difference reaches beyond the largest float: "
            "the differences are too large to give a finite interval"
        ) from None


def _check_resampling(n_resamples: Any, seed: Optional[int]) -> Tuple[int, random.Random]:
    """*n_resamples* checked, and the generator of *seed* (:func:`_rng`)."""
    return check_int(n_resamples, "n_resamples", 1, what="a positive int"), _rng(seed)


def _check_level(value: Any, name: str = "'confidence'", what: str = "in (0, 1)") -> float:
    """A number strictly between 0 and 1 (a confidence level, t_quantile's p,
    compare()'s alpha), or an error naming it *name* and saying it must be *what*."""
    if isinstance(value, bool) or not isinstance(value, Real) or not 0.0 < float(value) < 1.0:
        raise InvalidArgumentError(f"{name} must be {what} (got {value!r})")
    return float(value)


#: The smallest alpha of compare(): below it the quantile 1 - alpha/2 of the
#: confidence intervals (or their level 1 - alpha) rounds to 1 in double precision.
ALPHA_MIN = 1.6653345369377348e-16


def _check_alpha(alpha: Any, name: str = "'alpha'") -> float:
    """compare()'s *alpha* as a float, or an error that names it as *name* (the
    command line passes ``--alpha``) with the value given."""
    level = 1.0 - _check_level(alpha, name, "a number in (0, 1)")
    if not (level < 1.0 and (1.0 + level) / 2.0 < 1.0):
        raise InvalidArgumentError(
            f"{name} must be at least {ALPHA_MIN!r} (got {alpha!r}): below that the "
            "quantile 1 - alpha/2 of the confidence interval rounds to 1 in double precision"
        )
    return float(alpha)


# === The paired t test ========================================================


def _t_statistic(
    d: Sequence[float], what: str = "the t statistic"
) -> Tuple[int, float, float, float]:
    """(e, mean * 2**-e, standard error * 2**-e, t) of the differences,
    computed on them scaled by 2**-e (:func:`_scaled`: no overflow, no
    underflow, the same t); undefined if all are equal (the error says
    that *what* is undefined)."""
    n = len(d)
    if len(set(d)) == 1:
        raise UndefinedStatisticError(
            f"the {n} differences are all equal ({d[0]!r}): their standard deviation "
            f"is 0, so {what} is undefined"
        )
    e, scaled = _scaled(d)
    mean = math.fsum(scaled) / n
    var = math.fsum((v - mean) ** 2 for v in scaled) / (n - 1)
    se = math.sqrt(var / n)
    return e, mean, se, mean / se


def paired_t_test(x: Iterable[float], y: Optional[Iterable[float]] = None) -> SignificanceResult:
    """Two-sided paired Student t test of mean(x - y) = 0.

    d = x - y; t = mean(d) / (s / sqrt(n)), s the sample standard deviation
    (n - 1 in the denominator); p = P(|T| >= |t|), T ~ t(n - 1).  Equal to
    ``scipy.stats.ttest_rel(x, y)``.  At least two pairs are needed, and the
    differences must not all be equal
    (:class:`~irmetrics.errors.UndefinedStatisticError`).

    >>> r = paired_t_test([0.5, 0.7, 0.6, 0.9], [0.4, 0.5, 0.6, 0.6])
    >>> round(r.statistic, 6), round(r.p_value, 6)   # d = 0.1, 0.2, 0, 0.3
    (2.32379, 0.102728)
    >>> r.method
    'paired-t'
    """
    d = _differences(x, y)
    t = _t_statistic(d)[3]
    p = t_two_tailed(t, len(d) - 1)
    return SignificanceResult(t, min(1.0, max(0.0, p)), "paired-t")


def t_ci(
    x: Iterable[float], y: Optional[Iterable[float]] = None, *, confidence: float = 0.95
) -> Tuple[float, float]:
    """Confidence interval of mean(x - y) from the t distribution.

    mean(d) -/+ t_{(1 + confidence)/2, n-1} * s / sqrt(n).  Differences that
    are all equal give the degenerate interval (d, d).

    >>> low, high = t_ci([0.5, 0.7, 0.6, 0.9], [0.4, 0.5, 0.6, 0.6])
    >>> round(low, 4), round(high, 4)
    (-0.0554, 0.3554)
    """
    confidence = _check_level(confidence)
    d = _differences(x, y)
    if len(set(d)) == 1:
        return d[0], d[0]
    e, mean, se, _ = _t_statistic(d)
    half = t_quantile((1.0 + confidence) / 2.0, len(d) - 1) * se
    return _finite_interval(mean - half, mean + half, e, "t interval")


# === The Wilcoxon signed-rank test ============================================


def _average_ranks(values: Sequence[float]) -> Tuple[List[float], List[int]]:
    """Average ranks (1-based) of *values*, and the sizes of the groups of ties."""
    ranks = [0.0] * len(values)
    groups = []
    below = 0  # values ranked before the group
    order = sorted(range(len(values)), key=values.__getitem__)
    for _, group in groupby(order, key=values.__getitem__):
        tied = list(group)
        for i in tied:
            ranks[i] = below + (len(tied) + 1) / 2.0  # the mean of ranks below+1 .. below+len
        groups.append(len(tied))
        below += len(tied)
    return ranks, groups


def _subset_sum_counts(weights: Sequence[int]) -> List[int]:
    """counts[s] = number of subsets of *weights* (non-negative ints) summing to s."""
    counts = [1]
    for w in weights:
        grown = counts + [0] * w
        for s, c in enumerate(counts):
            grown[s + w] += c
        counts = grown
    return counts


def _two_sided_from_counts(counts: Sequence[int], k_low: int, k_high: int) -> float:
    """2 * min(P(T <= k_low), P(T >= k_high)), clipped at 1, T with the given counts."""
    total = sum(counts)
    below = sum(counts[: max(0, k_low + 1)])
    above = sum(counts[max(0, k_high):])
    return min(1.0, 2 * min(below, above) / total)


def wilcoxon_test(
    x: Iterable[float],
    y: Optional[Iterable[float]] = None,
    *,
    zero_method: str = "wilcox",
    method: str = "auto",
    correction: bool = False,
) -> SignificanceResult:
    """Two-sided Wilcoxon signed-rank test, as ``scipy.stats.wilcoxon`` computes it.

    d = x - y.  The |d| are ranked (ties get their average rank); R+ is the
    sum of the ranks of the positive d, R- of the negative; the statistic is
    min(R+, R-).  Zero differences are handled by *zero_method*: ``"wilcox"``
    drops them, ``"pratt"`` ranks them and then leaves them out of R+ and R-
    (adjusting the normal approximation, Cureton 1967), ``"zsplit"`` splits
    their ranks between R+ and R-.

    *method*:

    - ``"exact"``: the null distribution of R+ with no ties (all 2**m
      subsets of ranks 1..m, m the differences ranked); a non-integer R+
      (from ties) is rounded conservatively, as scipy does.
    - ``"approx"``: z = (R+ - m(m+1)/4) / sigma with the tie-corrected
      sigma^2 = (m(m+1)(2m+1) - sum(t^3 - t)/2) / 24 (Pratt: minus the zeros'
      share); p = 2 * Phi(-|z|).  ``correction=True`` moves z by 0.5 / sigma
      towards 0 (continuity correction).
    - ``"auto"`` (scipy's rule): with more than 50 pairs, ``"approx"``; else
      with no ties and no zeros, ``"exact"``; else with at most 13 pairs, the
      exact distribution of R+ given the tied ranks (all 2**n sign flips,
      what scipy's permutation test enumerates; reported as
      ``"permutation"``); else ``"approx"``.

    Differences that are all zero raise
    :class:`~irmetrics.errors.UndefinedStatisticError`.

    >>> r = wilcoxon_test([0.5, 0.7, 0.6, 0.9, 0.3, 0.8], [0.4, 0.45, 0.75, 0.6, 0.35, 0.2])
    >>> r.statistic, r.p_value, r.method   # R- = 1 + 3; 7 of 64 subsets of 1..6 sum to <= 4
    (4.0, 0.21875, 'exact')
    """
    check_choice(zero_method, "zero_method", ("wilcox", "pratt", "zsplit"))
    check_choice(method, "method", ("auto", "exact", "approx"))
    if not isinstance(correction, bool):
        raise InvalidArgumentError(f"'correction' must be a bool (got {correction!r})")
    d = _differences(x, y, minimum=1)
    n = len(d)
    n_zero = sum(1 for v in d if v == 0)
    if n_zero == n:
        raise UndefinedStatisticError(
            f"the {n} differences are all zero: the signed-rank statistic is undefined"
        )
    kept = [v for v in d if v != 0] if zero_method == "wilcox" else d
    m = len(kept)
    ranks, groups = _average_ranks([abs(v) for v in kept])
    r_plus = math.fsum(r for r, v in zip(ranks, kept) if v > 0)
    r_minus = math.fsum(r for r, v in zip(ranks, kept) if v < 0)
    has_ties = any(g > 1 for g in groups)
    if zero_method == "zsplit":
        half_zero = math.fsum(r for r, v in zip(ranks, kept) if v == 0) / 2.0
        r_plus += half_zero
        r_minus += half_zero
    statistic = min(r_plus, r_minus)

    if method == "auto":
        if n > 50:
            method = "approx"
        elif not has_ties and n_zero == 0:
            method = "exact"
        elif n <= 13:
            method = "permutation"
        else:
            method = "approx"

    if method == "exact":
        counts = _subset_sum_counts(range(1, m + 1))
        p = _two_sided_from_counts(counts, math.ceil(r_plus), math.floor(r_plus))
    elif method == "permutation":
        # R+ = (zsplit's constant) + the ranks of the nonzero d that are
        # positive: enumerate which of them are, on doubled (integer) ranks.
        nonzero = [round(2 * r) for r, v in zip(ranks, kept) if v != 0]
        observed = round(2 * math.fsum(r for r, v in zip(ranks, kept) if v > 0))
        p = _two_sided_from_counts(_subset_sum_counts(nonzero), observed, observed)
    else:
        mean = m * (m + 1) * 0.25
        var24 = m * (m + 1) * (2.0 * m + 1)
        tie_groups = groups
        if zero_method == "pratt" and n_zero:
            mean -= n_zero * (n_zero + 1) * 0.25
            var24 -= n_zero * (n_zero + 1) * (2.0 * n_zero + 1)
            tie_groups = groups[1:]  # the zeros rank lowest: they are the first group
        var24 -= sum(g**3 - g for g in tie_groups) / 2.0
        se = math.sqrt(var24 / 24.0)
        z = (r_plus - mean) / se
        if correction:
            z -= math.copysign(0.5 / se, z) if z != 0 else 0.0
        p = min(1.0, math.erfc(abs(z) / math.sqrt(2.0)))
    return SignificanceResult(statistic, p, method)


# === Randomization and bootstrap ==============================================


def _signed_sums(values: Sequence[float]) -> List[float]:
    """The sums of +/-v over all 2**len(values) sign choices."""
    sums = [0.0]
    for v in values:
        sums = [s + v for s in sums] + [s - v for s in sums]
    return sums


def _rng(seed: Optional[int]) -> random.Random:
    import random

    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise InvalidArgumentError(f"'seed' must be an int or None (got {seed!r})")
    return random.Random(seed)


def _resampling(
    x: Iterable[float], y: Optional[Iterable[float]], n_resamples: Any, seed: Optional[int]
) -> Tuple[int, random.Random, int, List[float]]:
    """What every resampling test checks first, in this order: *n_resamples*,
    *seed* (its generator) and the differences, returned scaled by 2**-e
    (:func:`_scaled`, exact: no sum, mean or shift of them overflows)."""
    n, rng = _check_resampling(n_resamples, seed)
    e, d = _scaled(_differences(x, y))
    return n, rng, e, d


def permutation_test(x: Iterable[float], y: Optional[Iterable[float]] = None, *,
                     n_resamples: int = 10_000, seed: Optional[int] = 0,
                     exact: Optional[bool] = None) -> SignificanceResult:
    """Paired randomization test of mean(x - y) = 0, by flipping signs.

    Under the null hypothesis each difference d_i is as likely to be +d_i as
    -d_i.  p is the share of sign assignments whose |mean| is at least the
    observed |mean(d)| (equal within 1e-9 * sum|d| counts as at least: float
    sums in another order differ in their last bits).

    With ``exact=True`` (the default, ``None``, for up to 20 pairs) all 2**n
    assignments are counted (meeting in the middle: two halves of 2**(n/2)
    sums each) and p = count / 2**n, the observed assignment included.
    Otherwise *n_resamples* random assignments are drawn from
    ``random.Random(seed)`` and p = (count + 1) / (n_resamples + 1), which is
    never 0 (Phipson and Smyth 2010).  The statistic is mean(d).

    >>> r = permutation_test([0.5, 0.7, 0.6, 0.9], [0.4, 0.5, 0.6, 0.6])
    >>> r.p_value, r.method   # |sum| >= 0.6 for 4 of the 16 sign flips
    (0.25, 'exact')
    >>> r = permutation_test([0.5, 0.7, 0.6, 0.9], [0.4, 0.5, 0.6, 0.6], exact=False, seed=1)
    >>> r.method, 0.2 < r.p_value < 0.3
    ('sampled', True)
    """
    return _permutation(x, y, n_resamples, seed, exact, None)[0]


def permutation_ci(x: Iterable[float], y: Optional[Iterable[float]] = None, *,
                   confidence: float = 0.95, n_resamples: int = 10_000, seed: Optional[int] = 0,
                   exact: Optional[bool] = None) -> Tuple[float, float]:
    """The confidence interval of mean(x - y) that inverts
    :func:`permutation_test`: every shift delta whose test of d - delta,
    over the same sign flips (same *seed*, *n_resamples*, *exact*), has
    p > 1 - confidence: the confidence set of a family of tests, their
    acceptance regions (Lehmann and Romano, *Testing Statistical
    Hypotheses*), derived here for this test.

    With signs s, A = sum s_i d_i and B = sum s_i, the test of d - delta
    counts the flips with |A - delta B| >= |S - n delta| (S = sum d).
    Squared, that is (A - S + (n - B) delta)(A + S - (n + B) delta) >= 0:
    for B = +/-n it holds for every delta; otherwise for delta between the
    roots (S - A)/(n - B) and (S + A)/(n + B), a closed interval that
    holds mean(d) (at delta = mean(d) the product is (A - S B / n)**2).
    So the count falls away from mean(d) on both sides, and the ends of
    the interval are order statistics of the roots: with K the smallest
    count whose p exceeds 1 - confidence and m = K minus the flips that
    always count, the m-th smallest lower root and the m-th largest upper
    root (the test rejects just beyond them).  If m <= 0 the test rejects
    no shift at this level (too few pairs or resamples, for example 4
    pairs exactly: p >= 2/16): the interval is (-inf, inf).  Differences
    that are all equal to c give (c, c).  Sampled, the ends are those roots;
    exact, they are found by bisection on delta with the count of all 2**n
    flips (meeting in the middle, as the test; ties within 1e-13 sum|d|, the
    float error of the sums), to the float.  (The test counts sums within
    1e-9 sum|d| of the observed as ties: the two agree but within that.)

    >>> low, high = permutation_ci([0.5, 0.7, 0.6, 0.9], [0.4, 0.5, 0.6, 0.6], confidence=0.8)
    >>> round(low, 9) == 0.0, round(high, 9)   # d = 0.1, 0.2, 0, 0.3; 2 of 16 flips always count
    (True, 0.3)
    """
    alpha = 1.0 - _check_level(confidence)
    low, high, e = _permutation(x, y, n_resamples, seed, exact, alpha)[1]
    return _finite_interval(low, high, e, "permutation interval")


def _permutation(
    x: Iterable[float], y: Optional[Iterable[float]], n_resamples: Any, seed: Optional[int],
    exact: Optional[bool], alpha: Optional[float],
) -> Tuple[SignificanceResult, Tuple[float, float, int]]:
    """The permutation test, and (given *alpha*, else NaNs) the interval
    that inverts it, times 2**-e, and e, from one draw of sign flips
    (:func:`permutation_ci`)."""
    # scaled: which sums of the differences are extreme does not change
    n_resamples, rng, e, d = _resampling(x, y, n_resamples, seed)
    n = len(d)
    exact = _check_exact(exact, n <= _EXACT_MAX_N)
    method = "exact" if exact else "sampled"
    observed = math.fsum(d)
    target = abs(observed) - _TIE_RTOL * math.fsum(abs(v) for v in d)
    mean = math.ldexp(observed / n, e)
    if exact:
        total, count = 1 << n, _exact_count(d, _TIE_RTOL)
    else:
        columns = [d] if alpha is None else [d, [1.0] * n]  # the sums s_i d_i, and of the signs
        sums = _flipped_sums(columns, n_resamples, rng)
        total, count = n_resamples, sum(1 for s in sums[0] if abs(s) >= target)

    def p_value(count: int) -> float:
        return count / total if exact else (count + 1) / (total + 1)

    result = SignificanceResult(mean, p_value(count), method)
    if alpha is None:
        return result, (math.nan, math.nan, e)
    needed = _accepted(alpha, p_value, total)
    bounded = [] if exact else [(a, b) for a, b in zip(*sums) if abs(b) != n]
    m = needed - (2 if exact else total - len(bounded))  # minus the flips that always count
    if m <= 0:
        return result, (-math.inf, math.inf, e)
    if exact:
        return result, (_exact_end(d, needed, -1.0), _exact_end(d, needed, 1.0), e)
    roots = [((observed - a) / (n - b), (observed + a) / (n + b)) for a, b in bounded]
    return result, (sorted(map(min, roots))[m - 1], sorted(map(max, roots))[-m], e)


def _exact_count(d: Sequence[float], rtol: float) -> int:
    """How many of the 2**n sign flips of *d* have |sum| at least |sum(d)|,
    ties within *rtol* * sum|d| (the float error of the sums), meeting in the
    middle: two halves of 2**(n/2) sums each.  A target <= 0 (e.g. all d
    are 0): every flip is at least as extreme."""
    target = abs(math.fsum(d)) - rtol * math.fsum(map(abs, d))
    if target <= 0:
        return 1 << len(d)
    half = len(d) // 2
    left = _signed_sums(d[:half])
    right = sorted(_signed_sums(d[half:]))
    size = len(right)
    return sum(size - bisect_left(right, target - a) + bisect_right(right, -target - a)
               for a in left)


def _exact_end(d: Sequence[float], needed: int, side: float) -> float:
    """The end on *side* (-1 or 1) of the exact interval of mean(d), |d| < 1:
    the farthest shift whose test of d - delta counts at least *needed* of
    the 2**n flips (:func:`_exact_count`, ties within 1e-13 sum|d|).  Every
    root lies in (-1, 1) (a root is the mean of the flipped, or of the kept,
    differences), so bisection from mean(d) and 2 * side finds it, to the
    float or to 2**-60 (the largest |d| is at least 1/2)."""
    inside, outside = math.fsum(d) / len(d), 2.0 * side
    while abs(outside - inside) > 2.0**-60:
        mid = (inside + outside) / 2.0
        if mid in (inside, outside):  # (adjacent floats)
            break
        # ties within the float error of the sums (below n * eps * sum|d|)
        if _exact_count([v - mid for v in d], 1e-13) >= needed:
            inside = mid
        else:
            outside = mid
    return inside


def _check_exact(exact: Any, default: bool) -> bool:
    """*exact* checked (a bool, or None for *default*)."""
    if exact is not None and not isinstance(exact, bool):
        raise InvalidArgumentError(f"'exact' must be a bool or None (got {exact!r})")
    return default if exact is None else exact


def _accepted(alpha: float, p_value: Callable[[int], float], total: int) -> int:
    """The smallest count of resamples at least as extreme whose p-value
    (*p_value* of the count, of at most *total*) exceeds *alpha*: the test
    accepts from that count on."""
    count = int(alpha * total)
    while count > 0 and p_value(count - 1) > alpha:
        count -= 1
    while p_value(count) <= alpha:
        count += 1
    return count


def _flipped_sums(
    columns: Sequence[Sequence[float]], n_resamples: int, rng: random.Random
) -> List[List[float]]:
    """Each column's sum under each of *n_resamples* random sign flips (the
    same flips for every column).  Per 8 rows (the last padded with zeros),
    a table of the 256 signed sums of theirs and a random byte per resample
    (bit i set flips the i-th): each table is read for all the resamples at
    once, in C."""
    n = len(columns[0])
    cells = [rng.randbytes(n_resamples) for _ in range(0, n, 8)]
    padded = [list(c) + [0.0] * (-n % 8) for c in columns]
    return [_added_up((_gather(_signed_sums(c[i : i + 8]), b)
                       for i, b in zip(range(0, n, 8), cells)), n_resamples) for c in padded]


def _gather(table: Sequence[float], cells: Sequence[int]) -> Sequence[float]:
    """``[table[c] for c in cells]``, in C."""
    return itemgetter(*cells)(table) if len(cells) > 1 else [table[c] for c in cells]


def _added_up(parts: Iterable[Sequence[float]], size: int) -> List[float]:
    """The element-wise sums of *parts*, sequences of *size* numbers: added
    64 parts at a time, in C (``zip`` and ``sum``)."""
    totals = [0.0] * size
    parts = iter(parts)
    while True:
        chunk = list(islice(parts, 64))
        if not chunk:
            return totals
        totals = list(map(add, totals, map(sum, zip(*chunk))))


def _random_bytes(rng: random.Random, count: int, below: int) -> bytes:
    """*count* random bytes, each uniform on [0, below) (rejection of the others)."""
    reject = bytes(range(below, 256))
    out = b""
    while len(out) < count:
        out += rng.randbytes((count - len(out)) * 256 // below + 8).translate(None, reject)
    return out[:count]


def _split_in_halves(counts: List[int], levels: int, rng: random.Random) -> List[List[int]]:
    """How each resample's draws (*counts*) fall into 2**levels equal blocks,
    block by block ([block][resample]): level by level, for all the
    resamples at once, each half of a block gets Binomial(m, 1/2) of its m
    draws, the bits set in m random bits."""
    blocks = [counts]
    for _ in range(levels):
        halves = []
        for block in blocks:
            left = list(map(_bit_count, map(rng.getrandbits, block)))
            halves += [left, list(map(sub, block, left))]
        blocks = halves
    return blocks


_bit_count = getattr(int, "bit_count", None) or (lambda v: bin(v).count("1"))  # (3.9)


def _uniform_rows(rng: random.Random, count: int, n: int) -> List[int]:
    """*count* rows, each uniform on [0, n): 32 random bits below the
    largest multiple of n (rejection of the others), modulo n."""
    bound = (1 << 32) - (1 << 32) % n
    rows: List[int] = []
    while len(rows) < count:
        more = count - len(rows) + 8
        drawn = struct.unpack(f"<{more}I", rng.randbytes(4 * more))
        rows += [v % n for v in drawn if v < bound]
    return rows[:count]


_RESAMPLES_PER_GATHER = 64  # their draws' values stay in the processor's cache


def _add_drawn(sums: List[List[float]], tables: Sequence[Sequence[float]],
               cells: Sequence[int], counts: Sequence[int]) -> None:
    """Add to each column's sums (*sums*) its *table*'s values at *cells*:
    the first counts[0] cells are resample 0's, and so on.  Read and added
    up in C, 64 resamples at a time."""
    start = 0
    for r in range(0, len(counts), _RESAMPLES_PER_GATHER):
        part = counts[r : r + _RESAMPLES_PER_GATHER]
        end = start + sum(part)
        picked = cells[start:end] if end - start > 1 else [*cells[start:end], 0, 0]
        start = end
        get = itemgetter(*picked)  # (from two cells on, itemgetter returns a tuple)
        for total, table in zip(sums, tables):
            drawn = iter(get(table))
            total[r : r + len(part)] = map(
                add, total[r : r + len(part)], map(sum, map(islice, repeat(drawn), part)))


def _pair_table(values: Sequence[float], size: int) -> List[float]:
    """t[a + 256 b] = v[a] + v[b] for cells a and b of a block of *size*
    (v: *values*, then 0.0 up to v[size], the code of no draw).  The table
    is symmetric: two bytes read as one 16-bit number in either byte order
    name the same sum."""
    v = [*values, *[0.0] * (size + 1 - len(values))]
    unused = [0.0] * (255 - size)
    return list(chain.from_iterable([x + w for x in v] + unused for w in v))


def _on_grid(column: Sequence[float], n: int) -> Tuple[List[float], int]:
    """(q, k): the values times 2**k, rounded to integers, k the largest with
    n * max|q| <= 2**53: any n of them add up exactly, in any order."""
    k = 53 - n.bit_length() - math.frexp(max(map(abs, column)))[1]
    return [float(round(math.ldexp(v, k))) for v in column], k


def _bootstrap_sums(
    columns: Sequence[Sequence[float]], n_resamples: int, rng: random.Random
) -> List[List[float]]:
    """Each column's sum over each of *n_resamples* bootstrap resamples of
    the rows (n draws with replacement; the same rows for every column).

    The values are put on a grid (:func:`_on_grid`; for n = 10,000 a step
    of at most 2**-38 of the largest |value|), where every sum is exact: the
    result depends neither on the order of the additions nor on the version
    of Python.  The rows sit in 2**levels blocks of at most 128 cells (the last
    cells empty), so that a random byte names a cell (``b % size``) with
    probability at least 2/3.  Each resample's n draws are split between
    the blocks by halves (:func:`_split_in_halves`).  Then block by block,
    the draws are random bytes, read two at a time: two bytes (16 bits)
    name a cell of the block's table of the sums of every two of its
    values (:func:`_pair_table`), and an odd draw is paired with the code
    of no draw.  The tables are read and added up in C (:func:`_add_drawn`),
    with one more column that counts the draws on empty cells: those are
    drawn again, at the end, among all n rows (:func:`_uniform_rows`).
    Each draw is of any row with probability 1/n, independently: the
    ordinary bootstrap.
    """
    n = len(columns[0])
    on_grid = [_on_grid(c, n) for c in columns]
    grid = [q for q, _ in on_grid]
    levels = max(0, (n - 1).bit_length() - 7)
    size = -(-n >> levels)  # cells per block
    below = 256 - 256 % size
    to_cell = bytes(b % size for b in range(below)) + bytes(256 - below)
    sums = [[0.0] * n_resamples for _ in columns]
    again = [0.0] * n_resamples  # each resample's draws on empty cells
    for block, counts in enumerate(_split_in_halves([n] * n_resamples, levels, rng)):
        first = block * size
        real = min(size, max(0, n - first))  # cells of rows, the others empty
        even = [m + (m & 1) for m in counts]
        cells = bytearray(_random_bytes(rng, sum(even), below).translate(to_cell))
        odd = [a - 1 for a, m in zip(accumulate(even), counts) if m & 1]
        list(map(cells.__setitem__, odd, repeat(size)))  # an odd count's last draw: none
        totals, tables = sums, [_pair_table(q[first : first + real], size) for q in grid]
        if real < size:  # the draws on empty cells: counted in one more column, 1.0 each
            empty = _pair_table([0.0] * real + [1.0] * (size - real), size)
            totals, tables = sums + [again], tables + [empty]
        _add_drawn(totals, tables, array("H", cells), [e >> 1 for e in even])
    if any(again):
        counts = [int(v) for v in again]
        _add_drawn(sums, grid, _uniform_rows(rng, sum(counts), n), counts)
    return [[math.ldexp(v, -k) for v in total] for total, (_, k) in zip(sums, on_grid)]


def _bootstrap_means(d: Sequence[float], n_resamples: int, rng: random.Random) -> List[float]:
    n = len(d)
    return [s / n for s in _bootstrap_sums([d], n_resamples, rng)[0]]


def _percentile(ordered: Sequence[float], q: float) -> float:
    """Linear interpolation between order statistics (numpy's default, "type 7")."""
    h = (len(ordered) - 1) * q
    lo = math.floor(h)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (h - lo) * (ordered[hi] - ordered[lo])


def _percentile_interval(means: Sequence[float], confidence: float, e: int) -> Tuple[float, float]:
    """The (1 - confidence)/2 and (1 + confidence)/2 quantiles of *means*,
    times 2**e (:func:`_finite_interval`)."""
    ordered = sorted(means)
    tail = (1.0 - confidence) / 2.0
    return _finite_interval(_percentile(ordered, tail), _percentile(ordered, 1.0 - tail), e,
                            "bootstrap interval")


def _shift_p_value(means: Sequence[float], d: Sequence[float]) -> float:
    """The bootstrap test's p-value from the resampled means of *d*: the
    share of resamples whose mean, shifted by -mean(d) (the null
    hypothesis), is at least |mean(d)| in absolute value."""
    n = len(d)
    mean = math.fsum(d) / n
    target = abs(mean) - _TIE_RTOL * math.fsum(abs(v) for v in d) / n
    count = sum(1 for m in means if abs(m - mean) >= target)
    return (count + 1) / (len(means) + 1)


def bootstrap_ci(
    x: Iterable[float],
    y: Optional[Iterable[float]] = None,
    *,
    confidence: float = 0.95,
    n_resamples: int = 10_000,
    seed: Optional[int] = 0,
) -> Tuple[float, float]:
    """Percentile bootstrap confidence interval of mean(x - y).

    The n differences are resampled with replacement *n_resamples* times
    (drawn from ``random.Random(seed)``); the interval runs from the
    (1 - confidence)/2 to the (1 + confidence)/2 quantile of the resampled
    means, interpolated linearly between order statistics (numpy's default).
    The same seed gives the same interval, and the same resamples as
    :func:`bootstrap_test`.

    >>> low, high = bootstrap_ci([0.5, 0.7, 0.6, 0.9], [0.4, 0.5, 0.6, 0.6])
    >>> 0.0 <= low < 0.15 < high <= 0.3       # between min(d) and max(d)
    True
    """
    confidence = _check_level(confidence)
    n_resamples, rng, e, d = _resampling(x, y, n_resamples, seed)
    if len(set(d)) == 1:
        return _finite_interval(d[0], d[0], e, "bootstrap interval")
    return _percentile_interval(_bootstrap_means(d, n_resamples, rng), confidence, e)


def bootstrap_test(
    x: Iterable[float],
    y: Optional[Iterable[float]] = None,
    *,
    n_resamples: int = 10_000,
    seed: Optional[int] = 0,
) -> SignificanceResult:
    """Paired bootstrap test of mean(x - y) = 0 (the shift method).

    The differences are shifted to mean 0 (w = d - mean(d), so that the null
    hypothesis holds) and resampled with replacement; p = (count + 1) /
    (n_resamples + 1), count the resamples with |mean(w*)| >= |mean(d)|
    (Efron and Tibshirani 1993, section 16.4).  The statistic is mean(d).
    The resamples are those of :func:`bootstrap_ci` with the same seed
    (mean(w*) = mean(d*) - mean(d)).

    >>> r = bootstrap_test([0.5, 0.7, 0.6, 0.9], [0.4, 0.5, 0.6, 0.6], seed=3)
    >>> r.method, 0.0 < r.p_value < 0.2
    ('bootstrap', True)
    """
    n_resamples, rng, e, d = _resampling(x, y, n_resamples, seed)
    p = _shift_p_value(_bootstrap_means(d, n_resamples, rng), d)
    return SignificanceResult(math.ldexp(math.fsum(d) / len(d), e), p, "bootstrap")


def _combinations(rows: Sequence[Sequence[float]]) -> List[List[float]]:
    """For each system c = 1..k-1, its sum minus system 0's over *rows*
    under each way to permute every row's k values across the k systems
    (the ways in one order for every c: the last row's varying slowest)."""
    tables = []
    for c in range(1, len(rows[0])):
        table = [0.0]
        for row in rows:
            shares = [p[c] - p[0] for p in permutations(row)]
            table = [t + v for v in shares for t in table]
        tables.append(table)
    return tables


def _range_counts(
    samples: List[List[float]], n_resamples: int, rng: random.Random, exact: bool
) -> Tuple[List[float], int]:
    """The range of the k system sums (max - min) over each resample that
    permutes every topic's k values across the systems, and their number.

    Topics go in blocks of b, as many as keep the (k!)**b ways to permute a
    block within a byte (at least one topic); each block's table holds every
    way's sums (:func:`_combinations`).  Sampled: block by block, for all
    resamples at once, a random byte picks each resample's way, and the
    blocks' sums are added in C (:func:`_added_up`).  Exact: every
    combination of every block's ways.
    """
    k, n = len(samples), len(samples[0])
    ways = math.factorial(k)
    per_block = max(1, int(math.log(256, ways) + 1e-9)) if ways <= 256 else 1
    rows = list(zip(*samples))
    blocks = [_combinations(rows[i : i + per_block]) for i in range(0, n, per_block)]
    if exact:
        total = 1
        sums = [[0.0] * (k - 1)]
        for tables in blocks:
            total *= len(tables[0])
            sums = [[a + t[w] for a, t in zip(s, tables)]
                    for w in range(len(tables[0])) for s in sums]
        return [max(0.0, *s) - min(0.0, *s) for s in sums], total
    picks = []  # each block's way for each resample (a byte below a multiple of the ways)
    for tables in blocks:
        size = len(tables[0])
        repeat = 256 // size if size <= 256 else 1
        cells = (_random_bytes(rng, n_resamples, size * repeat) if size <= 256
                 else [rng.randrange(size) for _ in range(n_resamples)])
        picks.append(([t * repeat for t in tables], cells))
    sums = [_added_up((_gather(t[c], cells) for t, cells in picks), n_resamples)
            for c in range(k - 1)]
    return [max(0.0, *s) - min(0.0, *s) for s in zip(*sums)], n_resamples


def randomized_tukey_hsd(*samples: Iterable[float], n_resamples: int = 10_000,
                         seed: Optional[int] = 0, exact: Optional[bool] = None,
                         confidence: float = 0.95) -> TukeyHSDResult:
    """Randomised Tukey HSD (Carterette 2012): every pair of k systems
    measured on the same n topics, the family of all pairs controlled.

    Under the null hypothesis the systems are exchangeable on each topic:
    a resample permutes each topic's k values across the systems.  p_ij is
    the share of resamples whose range of system means (max - min) is at
    least |mean_i - mean_j| (within 1e-9 of the largest |value|: ranges
    equal in exact arithmetic may differ in their last bits).  ``exact=True``
    counts all (k!)**n resamples (p = count / (k!)**n); otherwise
    *n_resamples* are drawn from ``random.Random(seed)`` and
    p = (count + 1) / (n_resamples + 1).  ``exact=None``: exact when
    (k!)**n <= 100,000.  ``df`` and ``residual_variance`` are those of the
    two-way ANOVA of the samples (:func:`two_way_anova`), for reference.
    ``margin`` inverts the test, from the same resamples: c / n, c the
    K-th largest range of system sums (plus the tie tolerance), K the
    smallest count whose p exceeds alpha = 1 - *confidence* (sampled: the
    ceil((1 - alpha)(n_resamples + 1))-th smallest range, the usual Monte
    Carlo quantile).  So mean_i - mean_j +/- margin excludes 0 exactly when
    p_ij <= alpha: the simultaneous intervals of the family.

    >>> r = randomized_tukey_hsd([0.2, 0.3, 0.4], [0.5, 0.6, 0.7], [0.2, 0.4, 0.3])
    >>> r.method, round(r.pvalue[0][1], 4)   # exact: 24 of the 6**3 = 216 resamples
    ('randomized', 0.1111)
    >>> r.pvalue[0][2]                        # equal means: every range is at least 0
    1.0
    """
    alpha = 1.0 - _check_level(confidence)
    n_resamples, rng = _check_resampling(n_resamples, seed)
    data = _samples(samples, "two-way")
    k, n = len(data), len(data[0])
    exact = _check_exact(exact, n * math.log(math.factorial(k)) <= math.log(100_000))
    ranges, total = _range_counts(data, n_resamples, rng, exact)
    ranges.sort()
    sums = [math.fsum(s) for s in data]
    tol = _TIE_RTOL * n * max(abs(v) for s in data for v in s)

    def p_of(count: int) -> float:
        return min(1.0, count / total if exact else (count + 1) / (n_resamples + 1))

    def p_value(i: int, j: int) -> float:
        return p_of(total - bisect_left(ranges, abs(sums[i] - sums[j]) - tol))

    margin = (ranges[total - _accepted(alpha, p_of, total)] + tol) / n
    anova = two_way_anova(*data)
    return _all_pairs([v / n for v in sums], p_value, anova.df_residual,
                      anova.residual_variance, "randomized", lambda i, j: margin)


# === Multiple comparisons =====================================================


def adjust_p_values(p_values: Iterable[float], *, method: str = "holm") -> List[float]:
    """p-values adjusted for multiple comparisons, in the order given.

    With the m p-values sorted, p_(1) <= ... <= p_(m) (every adjusted value
    capped at 1; the step-down and step-up ones keep the order of the raw):

    - ``"bonferroni"``: m p.
    - ``"holm"`` (step-down): max over j <= i of (m - j + 1) p_(j).
    - ``"holm-sidak"`` (step-down): max over j <= i of
      1 - (1 - p_(j))^(m - j + 1).
    - ``"hommel"``: Hommel's (1988) closed test of Simes' tests, as
      statsmodels computes it: for each size s = m .. 2, c_s = min over the
      s largest p-values of s p_(m-s+j) / j, which raises the adjusted values
      of those s to at least c_s and of the others to at least min(s p, c_s).
    - ``"fdr_bh"`` (Benjamini-Hochberg, step-up): min over j >= i of
      m p_(j) / j.
    - ``"fdr_by"`` (Benjamini-Yekutieli): the same times sum_{j=1..m} 1/j.
    - ``"none"``: unchanged.

    Rejecting where the adjusted value is <= alpha controls the family-wise
    error rate at alpha (Bonferroni, Holm, Holm-Sidak under independence,
    Hommel under positive dependence), or the false discovery rate
    (``fdr_bh`` under independence or positive dependence, ``fdr_by`` under
    any dependence).  Equal to statsmodels' ``multipletests``.

    >>> adjust_p_values([0.01, 0.04, 0.03], method="holm")   # 3*0.01, max(2*0.03, .03), 1*0.04
    [0.03, 0.06, 0.06]
    >>> adjust_p_values([0.01, 0.04, 0.03], method="bonferroni")
    [0.03, 0.12, 0.09]
    >>> [round(p, 4) for p in adjust_p_values([0.01, 0.04, 0.03], method="fdr_bh")]
    [0.03, 0.04, 0.04]
    """
    if method not in CORRECTIONS:
        raise InvalidArgumentError(
            f"unknown correction {method!r}; expected one of "
            + ", ".join(repr(c) for c in CORRECTIONS)
        )
    ps = _numbers(p_values, "p_values")
    for i, p in enumerate(ps):
        if not 0.0 <= p <= 1.0:
            raise InvalidArgumentError(f"p_values[{i}] must be in [0, 1] (got {p!r})")
    m = len(ps)
    if method == "none":
        return ps
    if method == "bonferroni":
        return [min(1.0, m * p) for p in ps]
    order = sorted(range(m), key=ps.__getitem__)
    ranked = [ps[i] for i in order]
    if method == "hommel":
        adjusted = _hommel(ranked)
    elif method in ("holm", "holm-sidak"):
        adjusted = list(accumulate(
            [(m - j) * p if method == "holm" else _sidak(p, m - j) for j, p in enumerate(ranked)],
            max))
    else:  # step-up: the running minimum from the largest p-value down
        harmonic = math.fsum(1.0 / j for j in range(1, m + 1)) if method == "fdr_by" else 1.0
        raw = [p / ((j + 1) / m / harmonic) for j, p in enumerate(ranked)]
        adjusted = list(accumulate(reversed(raw), min))[::-1]
    out = [0.0] * m
    for i, value in zip(order, adjusted):
        out[i] = min(1.0, value)
    return out


def _sidak(p: float, m: int) -> float:
    """1 - (1 - p)^m, without the loss of 1 - p for a small p."""
    return 1.0 if p == 1.0 else -math.expm1(m * math.log1p(-p))


def _hommel(ranked: Sequence[float]) -> List[float]:
    """Hommel's adjusted p-values of the sorted *ranked*, in their order (the
    loop of statsmodels' ``multipletests``, so that the values are its own)."""
    m = len(ranked)
    adjusted = list(ranked)
    for size in range(m, 1, -1):
        first = m - size
        bound = min(size * ranked[first + j] / (j + 1) for j in range(size))
        for i in range(m):
            adjusted[i] = max(adjusted[i], bound if i >= first else min(size * ranked[i], bound))
    return adjusted


# === Many systems: two-way ANOVA and Tukey's HSD ==============================


def _samples(samples: Sequence[Iterable[float]], design: str) -> List[List[float]]:
    """The samples as lists of floats: at least two of them; for the two-way
    design (topics as blocks) all of one length n >= 2, for the one-way
    design more values than samples."""
    if len(samples) < 2:
        raise InvalidArgumentError(f"at least two samples are needed (got {len(samples)})")
    out = [_numbers(s, f"samples[{i}]") for i, s in enumerate(samples)]
    sizes = [len(s) for s in out]
    if design == "two-way":
        if len(set(sizes)) > 1:
            raise InvalidArgumentError(
                "the samples of a two-way design must have the same length, one value per "
                f"topic (got lengths {', '.join(map(str, sizes))})"
            )
        if sizes[0] < 2:
            raise InvalidArgumentError(f"a two-way design needs at least 2 topics (got {sizes[0]})")
    elif min(sizes) < 1 or sum(sizes) <= len(out):
        raise InvalidArgumentError(
            "a one-way design needs a value in every sample and more values than samples "
            f"(got lengths {', '.join(map(str, sizes))})"
        )
    return out


class AnovaResult(NamedTuple):
    """The two-way ANOVA without replication (system x topic) of
    :func:`two_way_anova`.  ``f_*`` and ``p_*`` are ``None`` when the residual
    variance is 0 (scores exactly additive in system and topic)."""

    ss_system: float
    ss_topic: float
    ss_residual: float
    df_system: int
    df_topic: int
    df_residual: int
    f_system: Optional[float]
    p_system: Optional[float]
    f_topic: Optional[float]
    p_topic: Optional[float]
    residual_variance: float


def two_way_anova(*samples: Iterable[float]) -> AnovaResult:
    """Two-way ANOVA without replication: k systems (the samples) by n topics
    (the positions), one score per cell.

    With x_ij system i's score on topic j, m_i the system means, t_j the
    topic means and G the grand mean: SS_system = n sum (m_i - G)^2,
    SS_topic = k sum (t_j - G)^2, SS_residual = sum (x_ij - m_i - t_j + G)^2
    (the interaction, as there is one score per cell), with k - 1, n - 1 and
    (k - 1)(n - 1) degrees of freedom; F = (SS / df) / V_E and p = P(F' > F).
    V_E = SS_residual / ((k - 1)(n - 1)) is the residual variance (Sakai's
    V_E), which :func:`tukey_hsd`, :func:`standardized_mean_differences` and
    :func:`topic_set_size` use.  Equal to statsmodels' ``anova_lm`` of
    ``score ~ C(system) + C(topic)``.

    >>> r = two_way_anova([0.2, 0.4, 0.6], [0.3, 0.6, 0.6])
    >>> r.df_system, r.df_topic, r.df_residual
    (1, 2, 2)
    >>> round(r.ss_system, 6), round(r.residual_variance, 6)
    (0.015, 0.005)
    """
    rows = _samples(samples, "two-way")
    k, n = len(rows), len(rows[0])
    grand = _mean([v for row in rows for v in row])
    systems = [_mean(row) for row in rows]
    topics = [_mean([row[j] for row in rows]) for j in range(n)]
    ss_system = n * math.fsum((m - grand) ** 2 for m in systems)
    ss_topic = k * math.fsum((t - grand) ** 2 for t in topics)
    ss_residual = math.fsum(
        (v - m - t + grand) ** 2 for row, m in zip(rows, systems) for v, t in zip(row, topics)
    )
    df_system, df_topic, df_residual = k - 1, n - 1, (k - 1) * (n - 1)
    v_e = ss_residual / df_residual
    f_system = f_topic = p_system = p_topic = None
    if v_e > 0.0:
        f_system, f_topic = ss_system / df_system / v_e, ss_topic / df_topic / v_e
        p_system = f_sf(f_system, df_system, df_residual)
        p_topic = f_sf(f_topic, df_topic, df_residual)
    return AnovaResult(ss_system, ss_topic, ss_residual, df_system, df_topic, df_residual,
                       f_system, p_system, f_topic, p_topic, v_e)


#: The designs of :func:`tukey_hsd`.
DESIGNS = ("one-way", "two-way")


class TukeyHSDResult(NamedTuple):
    """All-pairs comparisons of k systems (:func:`tukey_hsd`).

    ``statistic[i][j]`` is mean_i - mean_j and ``pvalue[i][j]`` its p-value,
    adjusted for the k (k - 1) / 2 comparisons (k x k lists; the diagonal 0
    and 1); ``df`` and ``residual_variance`` are the residual degrees of
    freedom and mean square the test used; ``method`` names it;
    ``margin[i][j]``: the half-width of the simultaneous confidence
    interval of mean_i - mean_j that inverts the test (at the *confidence*
    given), which excludes 0 when ``pvalue[i][j] <= 1 - confidence``.
    """

    statistic: List[List[float]]
    pvalue: List[List[float]]
    df: int
    residual_variance: float
    method: str
    margin: List[List[float]]

    def groups(self, alpha: float = 0.05) -> List[str]:
        """The letters of each system (:func:`letter_groups`): two systems share
        a letter unless their p-value is <= *alpha*."""
        alpha = _check_level(alpha, "'alpha'")
        k = len(self.pvalue)
        return letter_groups(
            [[i != j and self.pvalue[i][j] <= alpha for j in range(k)] for i in range(k)]
        )


def tukey_hsd(*samples: Iterable[float], design: str = "one-way",
              confidence: float = 0.95) -> TukeyHSDResult:
    """Tukey's honestly significant difference test of every pair of samples.

    ``design="one-way"``, as ``scipy.stats.tukey_hsd``: the residual variance
    is the pooled within-sample variance MSE = sum (n_i - 1) s_i^2 / (N - k),
    df = N - k, and q_ij = |m_i - m_j| / sqrt(MSE / 2 (1/n_i + 1/n_j))
    (Tukey-Kramer when the sizes differ).  ``design="two-way"``: the samples
    are paired by position (topics as blocks); the residual variance is the
    two-way ANOVA's V_E (:func:`two_way_anova`), df = (k - 1)(n - 1) and
    q_ij = |m_i - m_j| / sqrt(V_E / n), so that differences between topics,
    which the one-way design counts as noise, are taken out.  In both,
    p_ij = P(Q > q_ij), Q the studentized range of k means with df degrees
    of freedom (``scipy.stats.studentized_range.sf``: a double integral,
    computed by adaptive Gauss-Kronrod quadrature; from 100,000 degrees of
    freedom on, as scipy, the range of k normal means).  A residual variance
    of 0 raises :class:`~irmetrics.errors.UndefinedStatisticError`.  The
    interval that inverts the test (Tukey's simultaneous interval, as
    scipy's ``confidence_interval``): m_i - m_j +/- q * se_ij, q the
    *confidence* quantile of Q (``margin``).

    >>> r = tukey_hsd([0.2, 0.4, 0.6, 0.5], [0.3, 0.5, 0.5, 0.6], [0.5, 0.7, 0.8, 0.9],
    ...               design="two-way")
    >>> r.df, [round(v, 4) for v in r.pvalue[0]]
    (6, [1.0, 0.4827, 0.0008])
    >>> r.groups()
    ['a', 'a', 'b']
    """
    check_choice(design, "design", DESIGNS)
    rows = _samples(samples, design)
    k = len(rows)
    means = [_mean(row) for row in rows]
    sizes = [len(row) for row in rows]
    if design == "two-way":
        df = (k - 1) * (sizes[0] - 1)
        variance = two_way_anova(*rows).residual_variance
    else:
        df = sum(sizes) - k
        variance = math.fsum(
            (v - m) ** 2 for row, m in zip(rows, means) for v in row
        ) / df
    _check_variance(variance, " (every score is explained by the design): the studentized "
                    "range statistic is undefined")

    alpha = 1.0 - _check_level(confidence)

    def se(i: int, j: int) -> float:
        return math.sqrt(variance / 2.0 * (1.0 / sizes[i] + 1.0 / sizes[j]))

    def p_value(i: int, j: int) -> float:
        return studentized_range_sf(abs(means[i] - means[j]) / se(i, j), k, df)

    high = 8.0
    while studentized_range_sf(high, k, df) > alpha:
        high *= 2.0
    q = _solve(lambda v: studentized_range_sf(v, k, df) - alpha, 0.0, high)
    return _all_pairs(means, p_value, df, variance, design, lambda i, j: q * se(i, j))


def _all_pairs(means: Sequence[float], p_value: Callable[[int, int], float], df: int,
               variance: float, method: str, margin: Callable[[int, int], float]
               ) -> TukeyHSDResult:
    """The result of a test of every pair of k systems: the differences of
    their *means*, and p_value(i, j) and margin(i, j) of each pair i < j."""
    k = len(means)
    pvalue = [[1.0] * k for _ in range(k)]
    margins = [[0.0] * k for _ in range(k)]
    for i, j in combinations(range(k), 2):
        pvalue[i][j] = pvalue[j][i] = p_value(i, j)
        margins[i][j] = margins[j][i] = margin(i, j)
    return TukeyHSDResult([[a - b for b in means] for a in means], pvalue, df, variance, method,
                          margins)


def _check_variance(variance: float, why: str) -> None:
    """A residual variance of 0 leaves the statistic undefined: *why* says which."""
    if not variance > 0.0:
        raise UndefinedStatisticError(f"the residual variance is 0{why}")


def letter_groups(different: Sequence[Sequence[bool]]) -> List[str]:
    """A compact letter display: one string of letters per system, two systems
    sharing a letter exactly when ``different[i][j]`` is false.

    Piepho's (2004) insert-and-absorb: start from one group of all systems;
    for each pair that differs, split every group holding both into the
    group without the one and the group without the other; drop groups
    contained in another.  The groups are lettered a, b, ... in the order of
    their first system (then A-Z, then further letters).

    >>> letter_groups([[False, False, True], [False, False, False], [True, False, False]])
    ['a', 'ab', 'b']
    """
    rows = [check_list(row, "different", "a square matrix of bools")
            for row in check_list(different, "different", "a square matrix of bools")]
    k = len(rows)
    if any(len(row) != k for row in rows):
        raise InvalidArgumentError(
            f"'different' must be a square matrix of bools (got {k} rows of lengths "
            f"{', '.join(str(len(row)) for row in rows)})"
        )
    groups: List[frozenset[int]] = [frozenset(range(k))]
    for i, j in combinations(range(k), 2):
        if not (rows[i][j] or rows[j][i]):
            continue
        split = []
        for g in groups:
            split.extend([g - {i}, g - {j}] if i in g and j in g else [g])
        groups = [g for g in dict.fromkeys(split) if not any(g < h for h in split)]
    groups.sort(key=sorted)
    letters = _letters(len(groups))
    return ["".join(letter for letter, g in zip(letters, groups) if i in g) for i in range(k)]


def _letters(count: int) -> List[str]:
    """a-z, A-Z, then the next alphabetic characters after them: *count* letters."""
    out = list(string.ascii_lowercase + string.ascii_uppercase)[:count]
    code = 0xC0
    while len(out) < count:
        if chr(code).isalpha():
            out.append(chr(code))
        code += 1
    return out


# === Effect sizes =============================================================


class EffectSize(NamedTuple):
    """A standardised effect, its confidence interval and how it was found."""

    value: float
    ci_low: float
    ci_high: float
    method: str


def _noncentral_t_interval(
    value: float, scale: float, df: float, confidence: float
) -> EffectSize:
    """*value* with its interval from t = value * scale ~ noncentral t(df,
    delta * scale): the deltas whose t distribution puts the observed t at
    its (1 + confidence)/2 and (1 - confidence)/2 quantiles."""
    t = value * scale
    low = nct_noncentrality(t, df, (1.0 + confidence) / 2.0) / scale
    high = nct_noncentrality(t, df, (1.0 - confidence) / 2.0) / scale
    return EffectSize(value, low, high, "noncentral t")


def paired_cohens_d(
    x: Iterable[float], y: Optional[Iterable[float]] = None, *, confidence: float = 0.95
) -> EffectSize:
    """Paired Cohen's d (d_z): mean(x - y) / sd(x - y), with its confidence
    interval.

    The standard deviation has n - 1 in its denominator.  The interval
    inverts the noncentral t: t = d sqrt(n) follows the noncentral t with
    n - 1 degrees of freedom and noncentrality delta sqrt(n); the bounds are
    the deltas under which the observed t is the (1 + confidence)/2 and
    (1 - confidence)/2 quantile.  Differences that are all equal raise
    :class:`~irmetrics.errors.UndefinedStatisticError`.

    >>> r = paired_cohens_d([0.5, 0.7, 0.6, 0.9], [0.4, 0.5, 0.6, 0.6])
    >>> round(r.value, 4), round(r.ci_low, 4), round(r.ci_high, 4), r.method
    (1.1619, -0.2015, 2.4378, 'noncentral t')
    """
    confidence = _check_level(confidence)
    d = _differences(x, y)
    n = len(d)
    t = _t_statistic(d, "Cohen's d")[3]
    return _noncentral_t_interval(t / math.sqrt(n), math.sqrt(n), n - 1, confidence)


def standardized_mean_differences(
    *samples: Iterable[float], confidence: float = 0.95
) -> List[List[Optional[EffectSize]]]:
    """Sakai's standardised mean differences of every pair of systems, from the
    two-way ANOVA's residual variance.

    ES_E(i, j) = (mean_i - mean_j) / sqrt(V_E), V_E of :func:`two_way_anova`
    (the samples are k systems' scores on the same n topics).  The interval
    inverts the noncentral t of the pairwise t = ES_E sqrt(n / 2), with
    (k - 1)(n - 1) degrees of freedom.  The diagonal is ``None``; a residual
    variance of 0 raises :class:`~irmetrics.errors.UndefinedStatisticError`.

    >>> es = standardized_mean_differences([0.2, 0.4, 0.6, 0.5], [0.3, 0.5, 0.5, 0.6])
    >>> round(es[1][0].value, 4), es[0][0]
    (0.7071, None)
    """
    confidence = _check_level(confidence)
    rows = _samples(samples, "two-way")
    anova = two_way_anova(*rows)
    _check_variance(anova.residual_variance, ": the standardised mean differences are undefined")
    k, n = len(rows), len(rows[0])
    sd = math.sqrt(anova.residual_variance)
    means = [_mean(row) for row in rows]
    out: List[List[Optional[EffectSize]]] = [[None] * k for _ in range(k)]
    for i, j in combinations(range(k), 2):
        es = _noncentral_t_interval((means[i] - means[j]) / sd, math.sqrt(n / 2.0),
                                    anova.df_residual, confidence)
        out[i][j] = es
        out[j][i] = EffectSize(-es.value, -es.ci_high, -es.ci_low, es.method)
    return out


# === Power and topic set size =================================================


def paired_t_power(effect_size: float, n_topics: int, *, alpha: float = 0.05) -> float:
    """The power of the two-sided paired t test at level *alpha* to detect a
    standardised effect d (mean difference over the sd of the differences)
    with n topics.

    With c the 1 - alpha/2 quantile of t(n - 1) and T' the noncentral t with
    n - 1 degrees of freedom and noncentrality d sqrt(n):
    power = P(T' > c) + P(T' < -c).  Equal to statsmodels'
    ``TTestPower().power(d, n, alpha)``.

    >>> round(paired_t_power(0.5, 34), 4)
    0.8078
    >>> round(paired_t_power(0.0, 20), 6)   # no effect: the test's level
    0.05
    """
    d = check_finite(effect_size, "'effect_size'")
    n = check_int(n_topics, "n_topics", 2)
    alpha = _check_level(alpha, "'alpha'")
    return _power(d, n, alpha)


def _power(d: float, n: int, alpha: float) -> float:
    c = t_upper(alpha / 2.0, n - 1)
    nc = d * math.sqrt(n)
    return min(1.0, nct_cdf(-c, n - 1, -nc) + nct_cdf(-c, n - 1, nc))


def paired_t_topics(effect_size: float, *, power: float = 0.8, alpha: float = 0.05) -> int:
    """The number of topics the two-sided paired t test needs to detect a
    standardised effect d with the given *power*: the smallest n >= 2 with
    :func:`paired_t_power` (d, n) >= power (found by doubling, then
    bisection; the power grows with n).

    >>> paired_t_topics(0.5)
    34
    """
    d = abs(_check_real(effect_size, "effect_size"))
    power = _check_level(power, "'power'")
    alpha = _check_level(alpha, "'alpha'")
    if not 0.0 < d < math.inf:
        raise InvalidArgumentError(
            f"'effect_size' must be a finite nonzero number (got {effect_size!r}): "
            "no number of topics detects an effect of 0"
        )
    low, high = 1, 2  # power(low) < power <= power(high), or low = 1
    while _power(d, high, alpha) < power:
        if high > 2**40:
            raise InvalidArgumentError(
                f"'effect_size' {effect_size!r} is too small: more than 2**40 topics needed"
            )
        low, high = high, 2 * high
    while high - low > 1:
        mid = (low + high) // 2
        if _power(d, mid, alpha) >= power:
            high = mid
        else:
            low = mid
    return high


def topic_set_size(
    min_difference: float,
    *,
    variance: Optional[float] = None,
    samples: Optional[Sequence[Iterable[float]]] = None,
    alpha: float = 0.05,
    power: float = 0.8,
) -> int:
    """Sakai's topic set size (t-test based): the topics a paired t test needs
    to detect a difference in mean scores of *min_difference* with *power*.

    sigma^2, the variance of one system's scores (about its mean and its
    topic's), is *variance* or, given *samples* (systems' scores on the same
    topics) instead, their two-way ANOVA's residual variance V_E; the
    differences of two systems then have variance 2 sigma^2, so the number
    is :func:`paired_t_topics` (min_difference / sqrt(2 sigma^2)).  Exactly
    one of *variance* and *samples*.

    >>> topic_set_size(0.05, variance=0.02)
    128
    """
    if (variance is None) == (samples is None):
        raise InvalidArgumentError("give exactly one of 'variance' and 'samples'")
    if samples is not None:
        variance = two_way_anova(*samples).residual_variance
    sigma2 = check_positive_real(variance, "variance")
    difference = _check_real(min_difference, "min_difference")
    return paired_t_topics(difference / math.sqrt(2.0 * sigma2), power=power, alpha=alpha)
