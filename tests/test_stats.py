"""irmetrics.stats: the t distribution, the paired tests, intervals and corrections.

Reference values come from scipy (the oracle, imported with ``require`` so the
tests skip locally without it and fail on CI), from brute-force enumeration,
or from arithmetic in a comment.
"""

import itertools
import math
import statistics

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from oracles import require, scipy_wilcoxon, scipy_wilcoxon_is_new

from irmetrics.errors import InvalidArgumentError, IrmetricsError, UndefinedStatisticError
from irmetrics.stats import (
    adjust_p_values,
    bootstrap_ci,
    bootstrap_test,
    paired_t_test,
    permutation_test,
    t_ci,
    t_quantile,
    t_sf,
    wilcoxon_test,
)

# === Strategies ===============================================================

# Per-query scores as IR measures give them: often on a coarse grid (P@5 is a
# multiple of 0.2), so that differences tie and are zero; or any value in [0, 1].
grid_scores = st.integers(0, 10).map(lambda k: k / 10)
real_scores = st.floats(0.0, 1.0, allow_nan=False, allow_infinity=False)


@st.composite
def paired(draw, min_size=2, max_size=60, values=None):
    values = values or st.one_of(grid_scores, real_scores)
    n = draw(st.integers(min_size, max_size))
    coarse = draw(st.booleans())
    elem = grid_scores if coarse else values
    x = draw(st.lists(elem, min_size=n, max_size=n))
    y = draw(st.lists(elem, min_size=n, max_size=n))
    return x, y


def differences(x, y):
    return [a - b for a, b in zip(x, y)]


def rel_close(a, b, rtol):
    return math.isclose(a, b, rel_tol=rtol, abs_tol=0.0)


# === The t distribution =======================================================


def test_t_sf_hand_values():
    # t(1) is Cauchy: P(T > 1) = 1/2 - atan(1)/pi = 1/4
    assert t_sf(1.0, 1) == pytest.approx(0.25, rel=1e-14)
    # t(2): P(T > t) = (1 - t / sqrt(t^2 + 2)) / 2; at t = 2: (1 - 2/sqrt(6)) / 2
    assert t_sf(2.0, 2) == pytest.approx((1 - 2 / math.sqrt(6)) / 2, rel=1e-14)
    assert t_sf(0.0, 7) == 0.5
    assert t_sf(math.inf, 3) == 0.0
    assert t_sf(-math.inf, 3) == 1.0


@pytest.mark.parametrize("df", [1, 2, 3, 4.5, 7, 10, 29, 99, 500, 2000])
def test_t_sf_far_tail_matches_scipy(df):
    sp = require("scipy.stats")
    # t values whose upper tail runs from about 0.4 down to below 1e-12
    for p_target in [0.4, 0.1, 1e-2, 1e-4, 1e-6, 1e-8, 1e-10, 1e-12, 1e-14]:
        t = float(sp.t.isf(p_target, df))
        expected = float(sp.t.sf(t, df))
        assert rel_close(t_sf(t, df), expected, 1e-10), (df, t)
        assert rel_close(t_sf(-t, df), float(sp.t.sf(-t, df)), 1e-12), (df, t)


@given(st.floats(-60, 60), st.integers(1, 400))
def test_t_sf_matches_scipy_everywhere(t, df):
    sp = require("scipy.stats")
    expected = float(sp.t.sf(t, df))
    if abs(t) < 1e-6:
        # scipy loses digits next to t = 0 (t_sf(1e-8, 1): scipy 0.4999999952568131,
        # the Cauchy distribution's exact 0.5 - atan(1e-8) / pi = 0.49999999681690116).
        # There sf(t) = 0.5 - t f(0) + O(t**3), f(0) = Gamma((df + 1) / 2) /
        # (sqrt(df pi) Gamma(df / 2)) the density at 0; the t**3 term is below 1e-18.
        f0 = math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2)) / math.sqrt(df * math.pi)
        expected = 0.5 - t * f0
    assert math.isclose(t_sf(t, df), expected, rel_tol=1e-9, abs_tol=1e-300)


@pytest.mark.parametrize("df", [1, 2, 5, 30, 250])
@pytest.mark.parametrize("p", [1e-12, 1e-6, 0.025, 0.3, 0.5, 0.7, 0.975, 1 - 1e-9])
def test_t_quantile_matches_scipy(p, df):
    sp = require("scipy.stats")
    assert math.isclose(t_quantile(p, df), float(sp.t.ppf(p, df)), rel_tol=1e-9, abs_tol=1e-12)


def test_t_quantile_inverts_t_sf():
    for df in (1, 3, 12):
        for p in (0.9, 0.99, 0.999999):
            assert t_sf(t_quantile(p, df), df) == pytest.approx(1 - p, rel=1e-9)


@pytest.mark.parametrize("bad", [0, -1, math.inf, math.nan, "3", True])
def test_t_df_must_be_positive(bad):
    with pytest.raises(InvalidArgumentError, match="'df' must be a positive finite number"):
        t_sf(1.0, bad)


@pytest.mark.parametrize("bad", [0.0, 1.0, -0.5, 2])
def test_t_quantile_p_in_open_interval(bad):
    with pytest.raises(InvalidArgumentError, match=r"'p' must be in \(0, 1\)"):
        t_quantile(bad, 3)


# === Paired t test ============================================================


def test_paired_t_hand_example():
    # d = 0.1, 0.2, 0, 0.3: mean 0.15, s^2 = (0.0025 + 0.0025 + 0.0225 + 0.0225) / 3
    # = 0.05 / 3, se = sqrt(0.05 / 12), t = 0.15 / 0.0645497 = 2.3238
    r = paired_t_test([0.5, 0.7, 0.6, 0.9], [0.4, 0.5, 0.6, 0.6])
    assert r.statistic == pytest.approx(0.15 / math.sqrt(0.05 / 12), rel=1e-12)
    assert r.method == "paired-t"


@given(paired())
def test_paired_t_matches_scipy(xy):
    sp = require("scipy.stats")
    x, y = xy
    d = differences(x, y)
    assume(len(set(d)) > 1)
    # Nearly constant differences make t a ratio of rounding errors: skip them.
    assume(statistics.pstdev(d) > 1e-9 * max(abs(v) for v in d))
    expected = sp.ttest_rel(x, y)
    # scipy's t overflows on subnormal differences (-inf for d = 0, -2.2e-308, where
    # ours, computed on the differences scaled up, is -1.0): nothing to compare
    assume(math.isfinite(expected.statistic))
    got = paired_t_test(x, y)
    # t near 0 is a rounding residue of the mean (1e-17 vs scipy's 0.0): absolute there
    assert math.isclose(got.statistic, float(expected.statistic), rel_tol=1e-10, abs_tol=1e-12)
    assert rel_close(got.p_value, float(expected.pvalue), 1e-10)


def test_paired_t_tiny_p_value_matches_scipy():
    sp = require("scipy.stats")
    # a large, consistent improvement: p far below 1e-12
    x = [0.5 + 0.01 * (i % 7) for i in range(40)]
    y = [v - 0.2 - 0.001 * (i % 5) for i, v in enumerate(x)]
    expected = float(sp.ttest_rel(x, y).pvalue)
    assert expected < 1e-12
    assert rel_close(paired_t_test(x, y).p_value, expected, 1e-9)


def test_paired_t_constant_differences_are_undefined():
    with pytest.raises(UndefinedStatisticError, match="differences are all equal .*undefined"):
        paired_t_test([1.0, 2.0, 3.0], [0.5, 1.5, 2.5])  # d = 0.5 three times, exactly
    with pytest.raises(UndefinedStatisticError, match="t statistic is undefined"):
        paired_t_test([0.5, 0.6], [0.5, 0.6])


@pytest.mark.parametrize("scale", [1e308, 2.0**1023, 1e-300, 5e-324 * 2**10])
def test_paired_t_at_any_scale_is_the_t_of_the_scaled_values(scale):
    # t = mean / (s / sqrt(n)) does not change when every d is multiplied by
    # the same factor, nor does p: d = scale * (1, -1, 1) has the t and p of
    # (1, -1, 1), which scipy gives (mean 1/3, s = sqrt(4/3), t = 1/2, p = 2/3
    # with 2 degrees of freedom).  scipy itself is wrong at these scales (t = 0
    # at 1e308, its squares overflow; inf at 1e-300, they underflow); irmetrics
    # raised OverflowError and ZeroDivisionError (issue 42).
    sp = require("scipy.stats")
    unit = [1.0, -1.0, 1.0]
    expected = sp.ttest_1samp(unit, 0.0)
    got = paired_t_test([scale * v for v in unit])
    assert got.statistic == pytest.approx(float(expected.statistic), rel=1e-14)
    assert got.p_value == pytest.approx(float(expected.pvalue), rel=1e-13)
    # The interval scales with d: (scale * low, scale * high) where finite.
    low, high = t_ci(unit)
    if scale < 1e300:
        assert t_ci([scale * v for v in unit]) == pytest.approx((scale * low, scale * high),
                                                                  rel=1e-14)


def test_tests_and_intervals_of_values_near_the_largest_float():
    # Sums of +-1e308 overflowed (OverflowError from math.fsum).  Each result
    # is that of d / 1e308 = (1, 1, -1) times 1e308: the sign-flip sums of
    # (1, 1, -1) are +-1 (6 of 8) and +-3 (2 of 8), all at least |1|: p = 1;
    # mean 1/3.
    big = [1e308, 1e308, -1e308]
    r = permutation_test(big)
    assert (r.p_value, r.method) == (1.0, "exact")
    assert r.statistic == pytest.approx(1e308 / 3, rel=1e-15)
    unit = [1.0, 1.0, -1.0]
    # The bootstrap's resampled means, and so its p and interval, are those of
    # (1, 1, -1), scaled (the same seed draws the same resamples).
    b, u = bootstrap_test(big, n_resamples=300), bootstrap_test(unit, n_resamples=300)
    assert b.p_value == u.p_value and b.statistic == pytest.approx(1e308 * u.statistic, rel=1e-15)
    low, high = bootstrap_ci(unit, n_resamples=300)
    assert bootstrap_ci(big, n_resamples=300) == pytest.approx((1e308 * low, 1e308 * high),
                                                                rel=1e-15)
    # The t interval here is 1/3 -/+ 4.30 * 2/3 (times 1e308): 2.9e308 has no
    # float, so a clear error, not inf.
    with pytest.raises(InvalidArgumentError, match=(
            "^the t interval of the mean difference reaches beyond the largest float")):
        t_ci(big)
    # A difference beyond the largest float: a clear error naming the pair.
    with pytest.raises(InvalidArgumentError, match=(
            r"^x\[1\] - y\[1\] is beyond the largest float \(1e\+308 - -1e\+308\)")):
        paired_t_test([0.0, 1e308], [0.5, -1e308])
    with pytest.raises(InvalidArgumentError, match=r"^x\[0\] - y\[0\] is beyond"):
        wilcoxon_test([1e308, 0.0], [-1e308, 1.0])


def test_t_ci_matches_scipy():
    sp = require("scipy.stats")
    x = [0.31, 0.52, 0.44, 0.9, 0.12, 0.5]
    y = [0.2, 0.5, 0.47, 0.6, 0.1, 0.3]
    d = differences(x, y)
    mean, se = statistics.fmean(d), statistics.stdev(d) / math.sqrt(len(d))
    low, high = sp.t.interval(0.9, len(d) - 1, loc=mean, scale=se)
    assert t_ci(x, y, confidence=0.9) == pytest.approx((low, high), rel=1e-10)


def test_paired_input_is_validated():
    with pytest.raises(InvalidArgumentError, match="same length"):
        paired_t_test([1, 2, 3], [1, 2])
    with pytest.raises(InvalidArgumentError, match="at least 2 pairs"):
        paired_t_test([1.0], [0.0])
    with pytest.raises(InvalidArgumentError, match=r"x\[1\] must be a finite number"):
        paired_t_test([1.0, math.nan, 2.0], [0.0, 0.0, 0.0])
    with pytest.raises(InvalidArgumentError, match=r"y\[0\] must be a finite number"):
        paired_t_test([1.0, 2.0], [True, 0.0])
    # an int beyond the largest float: refused by name, not a bare OverflowError
    for test in (paired_t_test, permutation_test, bootstrap_ci):
        with pytest.raises(InvalidArgumentError, match=r"x\[0\] must be a finite number"):
            test([10**400, 1.0], [0.0, 0.0])
        with pytest.raises(InvalidArgumentError, match=r"y\[1\] must be a finite number"):
            test([1.0, 2.0], [0.0, -(10**400)])
    with pytest.raises(InvalidArgumentError, match=r"^'x' must be a sequence of numbers \(got str\)"):
        paired_t_test("12", [1.0, 2.0])
    with pytest.raises(InvalidArgumentError, match=r"^'y' must be a sequence of numbers \(got int\)"):
        paired_t_test([1.0, 2.0], 3)
    # a set has no order, so no pairing: refused, not paired in hash order
    with pytest.raises(InvalidArgumentError, match=r"^'x' must be a sequence of numbers in order, not a set"):
        paired_t_test({1.0, 2.0}, [1.0, 2.0])
    assert issubclass(UndefinedStatisticError, IrmetricsError)


def test_inputs_are_not_mutated_and_iterators_accepted():
    x, y = [0.3, 0.5, 0.9], [0.1, 0.5, 0.2]
    before = (list(x), list(y))
    a = paired_t_test(iter(x), iter(y))
    assert (x, y) == before
    assert a == paired_t_test(x, y) == paired_t_test(differences(x, y))


# === Wilcoxon =================================================================


@pytest.mark.parametrize("zero_method", ["wilcox", "pratt", "zsplit"])
@pytest.mark.parametrize("method", ["auto", "exact", "approx"])
@settings(max_examples=50)  # 9 combinations; scipy's permutation branch is slow
@given(xy=paired(max_size=70))
def test_wilcoxon_matches_scipy(xy, method, zero_method):
    sp = require("scipy.stats")
    x, y = xy
    if method == "exact" and not scipy_wilcoxon_is_new():
        # scipy < 1.15 (the last for Python 3.9 is 1.13) has an exact test only
        # without ties or zeros (oracles.scipy_wilcoxon): x is moved apart there.
        x = [a + (i + 1) / 1024 for i, a in enumerate(x)]
        nonzero = [abs(v) for v in differences(x, y) if v != 0]
        assume(len(set(nonzero)) == len(nonzero) == len(x))
    d = differences(x, y)
    assume(any(v != 0 for v in d))
    scipy_method = {"approx": "asymptotic"}.get(method, method)
    expected = scipy_wilcoxon(sp, x, y, zero_method=zero_method, method=scipy_method)
    got = wilcoxon_test(x, y, zero_method=zero_method, method=method)
    assert got.statistic == pytest.approx(float(expected.statistic), rel=1e-12, abs=1e-12)
    # scipy < 1.15 takes an exact upper tail as 1 - cdf: absolute error about 1e-16
    old_exact = method == "exact" and not scipy_wilcoxon_is_new()
    assert rel_close(got.p_value, float(expected.pvalue), 1e-10) or (
        got.p_value < 1e-300 and float(expected.pvalue) < 1e-300
    ) or (old_exact and abs(got.p_value - float(expected.pvalue)) < 1e-15)


@given(paired(max_size=40))
def test_wilcoxon_continuity_correction_matches_scipy(xy):
    sp = require("scipy.stats")
    x, y = xy
    assume(any(a != b for a, b in zip(x, y)))
    expected = scipy_wilcoxon(sp, x, y, correction=True, method="asymptotic")
    got = wilcoxon_test(x, y, correction=True, method="approx")
    assert rel_close(got.p_value, float(expected.pvalue), 1e-10)


def test_wilcoxon_auto_rule():
    # scipy's rule: > 50 pairs -> normal approximation; no ties, no zeros -> exact;
    # ties or zeros with <= 13 pairs -> all 2**n sign flips; otherwise approximation.
    distinct = [i / 100 + 0.001 for i in range(1, 15)]
    assert wilcoxon_test(distinct).method == "exact"
    assert wilcoxon_test(distinct[:12] + [0.0]).method == "permutation"
    assert wilcoxon_test(distinct[:13] + [0.0]).method == "approx"
    assert wilcoxon_test([0.5, -0.5, 0.25]).method == "permutation"  # tied |d|
    assert wilcoxon_test([(-1) ** i * (i + 1) for i in range(51)]).method == "approx"


def test_wilcoxon_exact_by_enumeration():
    # Brute force: over all 2**n sign patterns of ranks 1..n, count R+ >= observed.
    d = [0.3, -0.1, 0.5, 0.2, 0.7, -0.4, 0.6]  # ranks of |d|: 3,1,5,2,7,4,6; R- = 1 + 4 = 5
    n = len(d)
    r_plus = 28 - 5
    sums = [sum(r for r, s in zip(range(1, n + 1), signs) if s) for signs in itertools.product([0, 1], repeat=n)]
    p = 2 * min(sum(s <= r_plus for s in sums), sum(s >= r_plus for s in sums)) / 2**n
    got = wilcoxon_test(d)
    assert (got.statistic, got.method) == (5.0, "exact")
    assert got.p_value == pytest.approx(p, rel=1e-15)


def test_wilcoxon_all_zero_is_undefined():
    with pytest.raises(UndefinedStatisticError, match="all zero"):
        wilcoxon_test([0.2, 0.3], [0.2, 0.3])


def test_wilcoxon_rejects_unknown_options():
    with pytest.raises(InvalidArgumentError, match="'zero_method' must be one of"):
        wilcoxon_test([1.0, 2.0], zero_method="drop")
    with pytest.raises(InvalidArgumentError, match="'method' must be one of 'auto', 'exact', 'approx'"):
        wilcoxon_test([1.0, 2.0], method="asymptotic")


# === Randomization test =======================================================


def brute_force_permutation_p(d):
    """Count sign patterns with |sum| >= |observed sum| (tolerance for float ties)."""
    observed = abs(math.fsum(d))
    tol = 1e-9 * math.fsum(abs(v) for v in d)
    count = sum(
        1 for signs in itertools.product([1, -1], repeat=len(d))
        if abs(math.fsum(s * v for s, v in zip(signs, d))) >= observed - tol
    )
    return count / 2 ** len(d)


@given(paired(min_size=2, max_size=10))
def test_permutation_exact_equals_brute_force(xy):
    x, y = xy
    d = differences(x, y)
    got = permutation_test(x, y)
    assert got.method == "exact"
    assert got.p_value == brute_force_permutation_p(d)
    assert got.statistic == pytest.approx(math.fsum(d) / len(d))


def test_permutation_hand_example():
    # d = 0.1, 0.2, 0, 0.3 (sum 0.6); signed sums with |s| >= 0.6: +-(0.1+0.2+0.3), each
    # with the zero's sign free: 2 * 2 = 4 of 16 -> p = 0.25
    assert permutation_test([0.5, 0.7, 0.6, 0.9], [0.4, 0.5, 0.6, 0.6]).p_value == 0.25


def test_permutation_matches_scipy_exact():
    np = require("numpy")
    sp = require("scipy.stats")
    d = [0.12, -0.05, 0.3, 0.21, 0.0, 0.07, -0.11, 0.19, 0.02]
    ref = sp.permutation_test(
        (np.array(d),), np.mean, permutation_type="samples", n_resamples=10**6
    )
    assert permutation_test(d).p_value == pytest.approx(float(ref.pvalue), rel=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_permutation_sampled_converges_to_exact(seed):
    d = [0.12, -0.05, 0.3, 0.21, 0.0, 0.07, -0.11, 0.19, 0.02, -0.2, 0.08, 0.15]
    exact = permutation_test(d).p_value
    b = 20_000
    sampled = permutation_test(d, exact=False, n_resamples=b, seed=seed)
    assert sampled.method == "sampled"
    # binomial standard error of a proportion from b draws; 5 SE + the +1 of (count+1)/(b+1)
    se = math.sqrt(exact * (1 - exact) / b)
    assert abs(sampled.p_value - exact) <= 5 * se + 2 / b


def test_permutation_same_seed_same_result():
    d = [0.01 * ((i * 37) % 23 - 11) for i in range(40)]
    a = permutation_test(d, seed=7, n_resamples=2000)
    assert a.method == "sampled"
    assert a == permutation_test(d, seed=7, n_resamples=2000)
    assert bootstrap_ci(d, seed=7, n_resamples=500) == bootstrap_ci(d, seed=7, n_resamples=500)
    assert bootstrap_test(d, seed=7, n_resamples=500) == bootstrap_test(d, seed=7, n_resamples=500)


def test_permutation_all_zero_differences_p_is_one():
    # every sign flip gives |sum| = 0 >= 0
    assert permutation_test([0.5, 0.5, 0.5], [0.5, 0.5, 0.5]).p_value == 1.0


def test_permutation_sampled_p_is_never_zero():
    d = [0.5] * 30  # observed is the most extreme of 2**30; (0 + 1) / (B + 1) at least
    r = permutation_test(d, n_resamples=999)
    assert r.method == "sampled" and r.p_value >= 1 / 1000


# === Bootstrap ================================================================


def test_percentile_matches_numpy():
    np = require("numpy")
    from irmetrics.stats import _percentile

    values = sorted([0.3, 0.1, 0.7, 0.2, 0.9, 0.5, 0.55])
    for q in (0.0, 0.025, 0.3, 0.5, 0.975, 1.0):
        assert _percentile(values, q) == pytest.approx(float(np.percentile(values, 100 * q)))


def test_bootstrap_ci_constant_differences_is_a_point():
    assert bootstrap_ci([0.25] * 5, n_resamples=200) == (0.25, 0.25)


def test_bootstrap_ci_close_to_normal_theory_for_large_n():
    # The bootstrap distribution of the mean is approximately normal with sd
    # s * sqrt((n-1)/n) / sqrt(n): the 95% interval is mean +- 1.96 of that.
    d = [((i * 7919) % 101) / 100 - 0.4 for i in range(400)]
    mean = statistics.fmean(d)
    sd = statistics.pstdev(d) / math.sqrt(len(d))
    low, high = bootstrap_ci(d, n_resamples=4000, seed=3)
    assert low == pytest.approx(mean - 1.96 * sd, abs=0.15 * sd)
    assert high == pytest.approx(mean + 1.96 * sd, abs=0.15 * sd)


def test_bootstrap_test_shift_method():
    # A big shift relative to the spread: no centred resample reaches it.
    r = bootstrap_test([1.0, 1.1, 0.9, 1.05, 0.95, 1.0], n_resamples=999)
    assert r.p_value == pytest.approx(1 / 1000)
    # No shift at all: every centred resample mean is >= 0 in absolute value.
    assert bootstrap_test([0.1, -0.1, 0.2, -0.2], n_resamples=99).p_value == 1.0


def test_resampling_arguments_validated():
    with pytest.raises(InvalidArgumentError, match="'n_resamples' must be a positive int"):
        permutation_test([1.0, 2.0], n_resamples=0, exact=False)
    with pytest.raises(InvalidArgumentError, match="'seed' must be an int or None"):
        bootstrap_ci([1.0, 2.0], seed=1.5)
    with pytest.raises(InvalidArgumentError, match=r"'confidence' must be in \(0, 1\)"):
        bootstrap_ci([1.0, 2.0], confidence=95)


# === Corrections ==============================================================


def test_holm_hand_checked():
    # sorted: 0.01 (x4) = 0.04, 0.02 (x3) = 0.06, 0.03 (x2) = 0.06, 0.2 (x1) = 0.2
    assert adjust_p_values([0.2, 0.01, 0.03, 0.02], method="holm") == pytest.approx(
        [0.2, 0.04, 0.06, 0.06]
    )
    # monotone: sorted 0.04 (x3) = 0.12, then 0.045 (x2) = 0.09 would fall below it: raised to 0.12
    assert adjust_p_values([0.045, 0.04, 0.5], method="holm") == pytest.approx([0.12, 0.12, 0.5])
    # capped at 1
    assert adjust_p_values([0.6, 0.7], method="holm") == [1.0, 1.0]


def test_bonferroni_and_none_hand_checked():
    assert adjust_p_values([0.01, 0.3], method="bonferroni") == [0.02, 0.6]
    assert adjust_p_values([0.01, 0.6], method="bonferroni") == [0.02, 1.0]
    assert adjust_p_values([0.01, 0.6], method="none") == [0.01, 0.6]
    assert adjust_p_values([], method="holm") == []


@given(st.lists(st.floats(0, 1), max_size=12))
def test_holm_between_raw_and_bonferroni(ps):
    holm = adjust_p_values(ps, method="holm")
    bonf = adjust_p_values(ps, method="bonferroni")
    for p, h, b in zip(ps, holm, bonf):
        assert p <= h <= b
    # monotone in the raw p-values
    for (p1, h1), (p2, h2) in itertools.combinations(zip(ps, holm), 2):
        if p1 < p2:
            assert h1 <= h2


def test_corrections_reject_bad_input():
    with pytest.raises(InvalidArgumentError, match="unknown correction 'fdr'; expected one of 'holm', 'bonferroni', 'none'"):
        adjust_p_values([0.1], method="fdr")
    with pytest.raises(InvalidArgumentError, match=r"p_values\[1\] must be in \[0, 1\]"):
        adjust_p_values([0.1, 1.5])


# === Intervals that invert the tests ==========================================


def _flip_counts(d, delta, signs):
    """How many sign vectors give |sum s_i (d_i - delta)| >= |sum (d_i - delta)|:
    the randomization test of d - delta, computed directly (no algebra)."""
    observed = abs(math.fsum(v - delta for v in d))
    tol = 1e-9 * math.fsum(abs(v - delta) for v in d)
    return sum(1 for s in signs
               if abs(math.fsum(si * (v - delta) for si, v in zip(s, d))) >= observed - tol)


@pytest.mark.parametrize("n, seed", [(6, 1), (7, 2), (9, 3), (10, 4)])
def test_permutation_ci_exact_is_the_brute_force_inversion(n, seed):
    import random

    from irmetrics.stats import permutation_ci
    rng = random.Random(seed)
    d = [round(rng.gauss(0.1, 0.3), 3) for _ in range(n)]
    signs = list(itertools.product((1, -1), repeat=n))
    alpha = 0.1

    def accepted(delta):  # p = count / 2**n > alpha
        return _flip_counts(d, delta, signs) / 2**n > alpha

    # Candidate ends: |A - delta B| = |S - n delta| for each sign vector (A =
    # sum s_i d_i, B = sum s_i, S = sum d): delta = (S - A)/(n - B) or
    # (S + A)/(n + B); the acceptance region's ends are among them.
    S = math.fsum(d)
    roots = set()
    for s in signs:
        a, b = math.fsum(si * v for si, v in zip(s, d)), sum(s)
        roots.update(r for r in ((S - a) / (n - b) if b != n else None,
                                 (S + a) / (n + b) if b != -n else None) if r is not None)
    inside = sorted(r for r in roots if accepted(r))
    low, high = permutation_ci(d, confidence=1 - alpha, exact=True)
    assert low == pytest.approx(inside[0], rel=1e-12, abs=1e-12)
    assert high == pytest.approx(inside[-1], rel=1e-12, abs=1e-12)
    # on a grid across the data's range: accepted exactly inside [low, high]
    eps = 1e-6
    for delta in [min(d) - 0.1 + k * (max(d) - min(d) + 0.2) / 200 for k in range(201)]:
        if low + eps < delta < high - eps or delta < low - eps or delta > high + eps:
            assert accepted(delta) == (low <= delta <= high)


@pytest.mark.parametrize("n, seed, n_resamples", [(12, 5, 199), (23, 6, 499), (40, 7, 999)])
def test_permutation_ci_sampled_ends_are_where_the_test_turns(n, seed, n_resamples):
    # The ends are roots of the sampled test of d - delta over the same flips
    # (same seed): p > alpha at the ends and just inside, p <= alpha just outside.
    import random

    from irmetrics.stats import permutation_ci
    rng = random.Random(seed)
    d = [rng.gauss(0.05, 0.2) for _ in range(n)]
    alpha = 0.05
    low, high = permutation_ci(d, confidence=1 - alpha, n_resamples=n_resamples, seed=seed,
                               exact=False)

    def p(delta):
        return permutation_test([v - delta for v in d], n_resamples=n_resamples, seed=seed,
                                exact=False).p_value

    eps = 1e-7 * (high - low)
    assert p(low) > alpha and p(high) > alpha
    assert p(low + eps) > alpha and p(high - eps) > alpha
    assert p(low - eps) <= alpha and p(high + eps) <= alpha
    assert low < statistics.mean(d) < high


def test_permutation_ci_covers_the_mean():
    # 400 normal samples of 30 (mean 0.3): the 95% interval should hold 0.3
    # in 95% of them; 3 standard errors: sqrt(0.95 * 0.05 / 400) = 0.011.
    import random

    from irmetrics.stats import permutation_ci
    covered = 0
    for seed in range(400):
        rng = random.Random(seed)
        d = [rng.gauss(0.3, 1.0) for _ in range(30)]
        low, high = permutation_ci(d, n_resamples=999, seed=seed)
        covered += low <= 0.3 <= high
    assert abs(covered / 400 - 0.95) <= 3 * 0.011


def test_permutation_ci_degenerate_cases():
    from irmetrics.stats import permutation_ci
    # all equal: every flip but all + and all - has |B| < n and then
    # (A - S B/n)**2 = 0 only at delta = c: the interval is (c, c)
    assert permutation_ci([0.25] * 30, exact=False) == (0.25, 0.25)
    assert permutation_ci([0.25] * 8) == (0.25, 0.25)
    # 4 pairs, exact: p >= 2/16 = 0.125 > 0.05 for every shift: unbounded
    assert permutation_ci([0.1, 0.2, 0.0, 0.3]) == (-math.inf, math.inf)
    # (with 10 resamples p >= 1/11 > 0.05, likewise)
    assert permutation_ci([0.1, 0.2, 0.0, 0.3] * 10, n_resamples=10) == (-math.inf, math.inf)
    # scale-free: d * 2**900 gives the interval * 2**900
    d = [0.1, 0.25, -0.05, 0.3, 0.2, 0.15, 0.4, -0.1]
    low, high = permutation_ci(d)
    assert permutation_ci([math.ldexp(v, 900) for v in d]) == (math.ldexp(low, 900),
                                                                math.ldexp(high, 900))
    with pytest.raises(InvalidArgumentError, match="'confidence' must be in"):
        permutation_ci(d, confidence=1.0)


def test_tukey_margins_invert_the_tests():
    import random

    from irmetrics.stats import randomized_tukey_hsd, tukey_hsd
    sp = require("scipy.stats")
    rng = random.Random(8)
    samples = [[rng.random() + 0.1 * i for _ in range(12)] for i in range(4)]
    # one-way: scipy's simultaneous interval (Tukey-Kramer) half-width
    ci = sp.tukey_hsd(*samples).confidence_interval(0.9)
    got = tukey_hsd(*samples, confidence=0.9)
    for i, j in itertools.combinations(range(4), 2):
        assert got.margin[i][j] == pytest.approx((ci.high[i][j] - ci.low[i][j]) / 2, rel=1e-9)
    # two-way: q_0.95(k = 4, df = 3 * 11) * sqrt(V_E / n)
    two = tukey_hsd(*samples, design="two-way")
    q = sp.studentized_range.ppf(0.95, 4, 33)
    assert two.margin[0][3] == pytest.approx(q * math.sqrt(two.residual_variance / 12), rel=1e-9)
    # randomised: the interval excludes 0 exactly when p <= alpha
    for seed in range(10):
        for alpha in (0.05, 0.2):
            r = randomized_tukey_hsd(*samples, n_resamples=199, seed=seed, confidence=1 - alpha)
            for i, j in itertools.combinations(range(4), 2):
                assert (abs(r.statistic[i][j]) > r.margin[i][j]) == (r.pvalue[i][j] <= alpha)


def test_randomized_tukey_margin_exact_is_the_enumerated_quantile():
    from irmetrics.stats import randomized_tukey_hsd
    samples = [[0.2, 0.3, 0.4, 0.1, 0.5], [0.5, 0.6, 0.7, 0.2, 0.9], [0.2, 0.4, 0.3, 0.3, 0.4]]
    n = 5
    # every way to permute each topic's 3 values across the systems: 6**5
    ranges = []
    for perms in itertools.product(list(itertools.permutations(range(3))), repeat=n):
        sums = [math.fsum(samples[p[c]][t] for t, p in enumerate(perms)) for c in range(3)]
        ranges.append((max(sums) - min(sums)) / n)
    ranges.sort(reverse=True)
    # p = count / 6**5 > 0.05 from count K = floor(0.05 * 7776) + 1 = 389 on:
    # the margin is the 389-th largest range of means, plus the tie tolerance
    # (1e-9 * n * max|value| on the sums: 1e-9 * 0.9 on the means)
    r = randomized_tukey_hsd(*samples, exact=True)
    assert r.margin[0][1] == pytest.approx(ranges[388] + 0.9e-9, rel=1e-12)
    assert r.margin[0][1] == r.margin[1][2] and r.margin[0][0] == 0.0
