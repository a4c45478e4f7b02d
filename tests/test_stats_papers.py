"""Issue 47, statistics for papers: every statistic against its oracle.

Written before the feature (the module-level skip below goes when it lands).
The oracles are scipy and statsmodels (test dependencies only), exact
enumeration, and arithmetic in comments; no expected value is typed in by
hand without its derivation.  The new names are reached through the module
(``stats.tukey_hsd``), so that until one exists its tests fail on that name
alone (AttributeError) and the others run.

The API these tests propose (the issue's own names kept: ``tukey_hsd``,
``.pvalue``, ``CORRECTIONS``, ``adjust_p_values(method=...)``):

irmetrics.stats
    ``tukey_hsd(*samples, design="one-way")`` -> ``TukeyHSDResult``:
    ``.statistic[i][j]`` = mean_i - mean_j, ``.pvalue[i][j]`` (k x k lists;
    the diagonal 1.0), ``.df`` (residual degrees of freedom),
    ``.residual_variance``, ``.groups(alpha=0.05)`` (one string of letters
    per sample, :func:`letter_groups` of the p-values <= alpha).
    ``design="one-way"``: as ``scipy.stats.tukey_hsd`` (Tukey-Kramer for
    unequal sizes).  ``design="two-way"``: the samples are paired by position
    (topics as blocks, equal lengths n); residual variance V_E and df
    (k-1)(n-1) of the two-way ANOVA without replication;
    q_ij = |mean_i - mean_j| / sqrt(V_E / n); p = P(Q_{k, df} >= q_ij).
    ``randomized_tukey_hsd(*samples, n_resamples=10_000, seed=0, exact=None)``
    -> ``TukeyHSDResult`` (Carterette 2012): each resample permutes every
    topic's k values across the systems; p_ij = share of resamples whose
    range of system means (max - min) is at least |mean_i - mean_j| (equal
    within 1e-9 of the scale counts, as for ``permutation_test``).
    ``exact=True`` enumerates all (k!)^n resamples (p = count / (k!)^n);
    sampled: p = (count + 1) / (n_resamples + 1).  ``exact=None``: exact
    when (k!)^n <= 100,000 (a proposal; only ``True``/``False`` are tested).
    ``letter_groups(different)`` -> one string per system: two systems share
    a letter exactly when ``different[i][j]`` is False (a compact letter
    display, Piepho 2004).
    ``two_way_anova(*samples)`` -> ``AnovaResult`` (NamedTuple): ``ss_system,
    ss_topic, ss_residual, df_system, df_topic, df_residual, f_system,
    p_system, f_topic, p_topic, residual_variance`` (= ss_residual /
    df_residual, Sakai's V_E).
    ``paired_cohens_d(x, y=None, *, confidence=0.95)`` -> ``EffectSize(value,
    ci_low, ci_high, method)``: d = mean(x - y) / sd(x - y) (n - 1 in the
    sd); the interval by inverting the noncentral t: t = d sqrt(n) ~
    nct(n - 1, delta sqrt(n)); method ``"noncentral t"``.
    ``standardized_mean_differences(*samples, confidence=0.95)`` -> k x k
    lists of ``EffectSize`` (the diagonal ``None``): Sakai's
    ES_E = (mean_i - mean_j) / sqrt(V_E); the interval by the noncentral t
    of the pairwise t = ES_E sqrt(n / 2) with df (k-1)(n-1).
    ``paired_t_power(effect_size, n_topics, *, alpha=0.05)`` -> float: the
    two-sided paired t test's power (``TTestPower().power``).
    ``paired_t_topics(effect_size, *, power=0.8, alpha=0.05)`` -> int: the
    smallest n >= 2 whose power is at least *power*.
    ``topic_set_size(min_difference, *, variance=None, samples=None,
    alpha=0.05, power=0.8)`` -> int (Sakai 2016, t-test based):
    ``paired_t_topics(min_difference / sqrt(2 * variance))``, variance the
    per-system score variance sigma^2 (the differences of two systems then
    have variance 2 sigma^2); given ``samples`` instead, sigma^2 is their
    two-way ANOVA's V_E.  Exactly one of the two.
    ``CORRECTIONS`` gains statsmodels' names ``"holm-sidak"``, ``"hommel"``,
    ``"fdr_bh"``, ``"fdr_by"``; today's three keep their place first.

irmetrics.compare
    ``TESTS`` gains ``"tukey-hsd"`` (two-way) and ``"randomized-tukey"``.
    ``compare(..., baseline=None | name | [names], pairs="baseline" | "all")``:
    ``pairs="all"`` compares every pair; a list of baselines compares each
    other run with each baseline (not the baselines with each other).  With
    ``pairs="all"`` the default test is ``"tukey-hsd"`` (the issue: "the
    default in compare()"); against a baseline it stays ``"paired-t"``.
    A Tukey test's p-values are family-wise already: ``p_adjusted ==
    p_value``, whatever the correction.
    Rows gain ``versus`` (the run compared with; ``None`` on a row that only
    carries a mean) and ``effect_size``, ``effect_ci_low``,
    ``effect_ci_high`` (paired Cohen's d of run - versus, at level
    1 - alpha).  Per measure: one mean row per run (in run order), then one
    row per comparison; with ``pairs="all"`` the pairs come in
    ``itertools.combinations(runs, 2)`` order as (run=b, versus=a), so a
    difference is later minus earlier.  ``row(run, measure, versus=...)``.
    ``Comparison.family`` (str, also in ``to_dict()`` and under every table)
    says over which comparisons the correction applies;
    ``Comparison.family_size`` (int) counts those of one measure.
    ``Comparison.letters`` ``{run: "a", ...}`` in run order;
    ``Comparison.marks(measure)`` ``{run: letters of the runs it is
    significantly better than, sorted}``.  With several comparisons per run
    the Markdown, LaTeX and HTML tables become the paper table: runs by
    measures, ``(a) name``, each mean followed by its marks as
    ``<sup>bc</sup>`` (Markdown, HTML) or ``$^{bc}$`` (LaTeX), the test and
    the family named under it; names escaped as today.
irmetrics compare
    ``--pairs all``, ``--baseline`` repeatable, the new ``--test`` and
    ``--correction`` choices; JSON and CSV carry the new keys.
"""

import functools
import itertools
import json
import math
import os
import random
import re
import statistics
import subprocess
import sys
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import assume, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from oracles import require  # noqa: E402

from irmetrics import report, stats  # noqa: E402
from irmetrics.cli import _run  # noqa: E402

# (irmetrics.compare, the attribute of the package, is the function: the
# module's TESTS are imported by name)
from irmetrics.compare import TESTS as COMPARE_TESTS  # noqa: E402
from irmetrics.compare import compare  # noqa: E402
from irmetrics.errors import InvalidArgumentError, UndefinedStatisticError  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]

# scipy's studentized range distribution integrates to epsabs=1e-11 (and
# epsrel=1e-12; scipy/stats/_continuous_distns.py, studentized_range_gen):
# below that absolute size its own p-values carry no more digits, so a
# p-value agrees "to a relative 1e-9" (the issue) or, where the oracle stops,
# to that absolute 1e-11.
TUKEY_RTOL = 1e-9
TUKEY_ATOL = 1e-11
NEW_CORRECTIONS = ("holm-sidak", "hommel", "fdr_bh", "fdr_by")


def rel_close(a, b, rtol, atol=0.0):
    return math.isclose(a, b, rel_tol=rtol, abs_tol=atol)


def matrix(m):
    """A k x k result (lists, tuples or an array) as lists of floats."""
    return [[float(v) for v in row] for row in m]


# === Inputs ===================================================================


def system_scores(seed, k, n, *, grid=False, spread=0.12):
    """k systems' scores on the same n topics: topic difficulty + a system
    effect + noise, clipped to [0, 1]; on a grid of tenths (like P@10, with
    ties) when *grid*."""
    rng = random.Random(seed)
    difficulty = [rng.random() for _ in range(n)]
    out = []
    for i in range(k):
        effect = 0.06 * i
        row = []
        for t in range(n):
            v = min(1.0, max(0.0, 0.2 + 0.5 * difficulty[t] + effect + rng.gauss(0, spread)))
            row.append(round(v * 10) / 10 if grid else v)
        out.append(row)
    return out


def unequal_samples(seed, k):
    rng = random.Random(seed)
    return [[rng.gauss(0.4 + 0.05 * i, 0.15) for _ in range(rng.randint(3, 15))]
            for i in range(k)]


# (seed, k, n, grid): seeded inputs for the oracles that cost a numerical
# integral per pair (scipy's tukey_hsd: about 30 ms a pair), too slow for
# hypothesis' hundred examples.
CASES = [(1, 2, 8, False), (2, 3, 12, False), (3, 4, 25, False), (4, 5, 10, True),
         (5, 6, 40, False), (6, 3, 50, True), (7, 4, 3, False)]


@st.composite
def score_matrices(draw, min_k=2, max_k=5, min_n=2, max_n=12):
    k = draw(st.integers(min_k, max_k))
    n = draw(st.integers(min_n, max_n))
    grid = draw(st.booleans())
    # scores on a grid of tenths (ties), or with six decimals as trec_eval
    # prints them (no subnormal spreads that leave scipy's q a ratio of dust)
    elem = (st.integers(0, 10).map(lambda v: v / 10) if grid
            else st.integers(0, 10**6).map(lambda v: v / 10**6))
    return [draw(st.lists(elem, min_size=n, max_size=n)) for _ in range(k)]


# === Oracles (scipy, statsmodels, enumeration) ===============================


def long_frame(samples):
    """The k x n scores as statsmodels reads them: one row per (system, topic)."""
    pd = require("pandas")
    return pd.DataFrame(
        [(f"s{i:02d}", f"t{j:04d}", float(v)) for i, row in enumerate(samples)
         for j, v in enumerate(row)],
        columns=["system", "topic", "score"],
    )


def oracle_two_way_anova(samples):
    """statsmodels' ANOVA table of score ~ system + topic (no interaction:
    one score per cell, so the residual is the interaction); fitted once for
    the samples of several calls (each pair of systems asks for the same)."""
    return _two_way_anova(tuple(map(tuple, samples)))


@functools.lru_cache(maxsize=4)
def _two_way_anova(samples):
    smf = require("statsmodels.formula.api")
    anova = require("statsmodels.stats.anova")
    fit = smf.ols("score ~ C(system) + C(topic)", data=long_frame(samples)).fit()
    table = anova.anova_lm(fit)
    k, n = len(samples), len(samples[0])
    assert table.loc["Residual", "df"] == (k - 1) * (n - 1)
    return table


def oracle_one_way_tukey(samples):
    sp = require("scipy.stats")
    r = sp.tukey_hsd(*samples)
    return matrix(r.statistic), matrix(r.pvalue)


def oracle_two_way_tukey(samples):
    """Two-way Tukey HSD from statsmodels' residual mean square and scipy's
    studentized range: q = |mean_i - mean_j| / sqrt(MSE / n), p = P(Q >= q)
    with k groups and df (k-1)(n-1)."""
    sp = require("scipy.stats")
    table = oracle_two_way_anova(samples)
    mse = float(table.loc["Residual", "mean_sq"])
    df = float(table.loc["Residual", "df"])
    k, n = len(samples), len(samples[0])
    means = [math.fsum(s) / n for s in samples]
    se = math.sqrt(mse / n)
    p = [[1.0 if i == j else float(sp.studentized_range.sf(abs(means[i] - means[j]) / se, k, df))
          for j in range(k)] for i in range(k)]
    return p, mse, df


def oracle_residual_variance_is_usable(samples):
    """False where V_E is 0 or a rounding residue (scores additive in system
    and topic): q is then a ratio of rounding errors."""
    table = oracle_two_way_anova(samples)
    scale = max(abs(v) for row in samples for v in row) or 1.0
    return float(table.loc["Residual", "mean_sq"]) > 1e-10 * scale * scale


def oracle_corrected(p_values, method):
    multitest = require("statsmodels.stats.multitest")
    # multipletests(method="holm") ends with gc.collect(): a full collection of the
    # whole test session's heap on every call, a cost that grows with the heap; it
    # frees memory and changes no value, so it is not run here.
    with mock.patch("gc.collect"):
        return [float(v) for v in multitest.multipletests(p_values, method=method)[1]]


def oracle_power(effect_size, n, alpha):
    power = require("statsmodels.stats.power")
    value = float(power.TTestPower().power(effect_size=effect_size, nobs=n, alpha=alpha,
                                           alternative="two-sided"))
    if math.isnan(value):
        # scipy's nct.cdf is NaN far in its tail (below about 1e-20; e.g. d = 1,
        # n = 69, alpha = 0.01), so statsmodels' P(T' > c) + P(T' < -c) lacks
        # its term on the far side of 0, which is below Phi(-|delta|) (T' < -c
        # needs Z + delta < 0): the other term alone, scipy's nct.sf by the
        # symmetry of the noncentral t, checked below to leave out at most a
        # tenth of the tests' relative tolerance of 1e-6.
        sp = require("scipy.stats")
        delta = abs(effect_size) * math.sqrt(n)
        value = float(sp.nct.sf(sp.t.isf(alpha / 2, n - 1), n - 1, delta))
        assert float(sp.norm.cdf(-delta)) < 1e-7 * value
    return value


def oracle_topics(effect_size, power, alpha):
    """The smallest n >= 2 with power >= *power*: doubling, then bisection
    on statsmodels' power (increasing in n for a fixed nonzero effect)."""
    lo, hi = 1, 2
    while oracle_power(effect_size, hi, alpha) < power:
        lo, hi = hi, hi * 2
    while hi - lo > 1:  # power(lo) < power <= power(hi), or lo = 1
        mid = (lo + hi) // 2
        if oracle_power(effect_size, mid, alpha) >= power:
            hi = mid
        else:
            lo = mid
    return max(2, hi)


def nct_inverse(t, df, target):
    """The noncentrality nc with P(T' <= t) = target, T' ~ nct(df, nc)
    (decreasing in nc): brentq on scipy's noncentral t."""
    sp = require("scipy.stats")
    optimize = require("scipy.optimize")

    def f(nc):
        return float(sp.nct.cdf(t, df, nc)) - target

    # Steps of 1: scipy's nct.cdf is NaN far in its tail (below about 1e-20,
    # e.g. nct.cdf(-2.94, 96, 6.56)), so the bracket stays near the root.
    width = 1.0
    lo, hi = t - width, t + width
    while f(lo) < 0:
        lo -= width
    while f(hi) > 0:
        hi += width
    return optimize.brentq(f, lo, hi, xtol=1e-14, rtol=1e-15, maxiter=500)


def oracle_cohens_d(x, y, confidence):
    """Paired Cohen's d (d_z) and its noncentral-t interval."""
    d = [a - b for a, b in zip(x, y)]
    n = len(d)
    value = statistics.fmean(d) / statistics.stdev(d)
    t = value * math.sqrt(n)
    low = nct_inverse(t, n - 1, (1 + confidence) / 2) / math.sqrt(n)
    high = nct_inverse(t, n - 1, (1 - confidence) / 2) / math.sqrt(n)
    return value, low, high


def oracle_sakai_es(samples, i, j, confidence):
    """Sakai's ES_E = (mean_i - mean_j) / sqrt(V_E), V_E from statsmodels;
    the interval from the pairwise t = ES_E sqrt(n / 2), df (k-1)(n-1)."""
    table = oracle_two_way_anova(samples)
    v_e = float(table.loc["Residual", "mean_sq"])
    df = float(table.loc["Residual", "df"])
    n = len(samples[0])
    value = (statistics.fmean(samples[i]) - statistics.fmean(samples[j])) / math.sqrt(v_e)
    scale = math.sqrt(n / 2)
    t = value * scale
    low = nct_inverse(t, df, (1 + confidence) / 2) / scale
    high = nct_inverse(t, df, (1 - confidence) / 2) / scale
    return value, low, high


def exact_randomized_tukey(samples):
    """Carterette's randomised Tukey HSD by enumeration: every one of the
    (k!)^n ways to permute each topic's k values across the systems; p_ij =
    share whose range of system means is >= |mean_i - mean_j| (within 1e-9
    of the largest |score|: ranges equal in exact arithmetic may differ in
    their last bits)."""
    k, n = len(samples), len(samples[0])
    columns = [[samples[i][t] for i in range(k)] for t in range(n)]
    means = [math.fsum(s) / n for s in samples]
    tol = 1e-9 * max(abs(v) for s in samples for v in s)
    ranges = []
    for choice in itertools.product(*(list(itertools.permutations(c)) for c in columns)):
        sums = [math.fsum(col[i] for col in choice) for i in range(k)]
        ranges.append((max(sums) - min(sums)) / n)
    total = len(ranges)
    return [[sum(1 for r in ranges if r >= abs(means[i] - means[j]) - tol) / total
             for j in range(k)] for i in range(k)]


def exact_sign_flip(d):
    """The paired randomization test by enumeration of all 2^n sign flips."""
    observed = abs(math.fsum(d))
    tol = 1e-9 * math.fsum(abs(v) for v in d)
    count = sum(1 for signs in itertools.product((1, -1), repeat=len(d))
                if abs(math.fsum(s * v for s, v in zip(signs, d))) >= observed - tol)
    return count / 2 ** len(d)


def exact_bootstrap(d):
    """The shift-method bootstrap test by enumeration of all n^n resamples
    (ordered draws with replacement, each of probability n^-n)."""
    n = len(d)
    mean = math.fsum(d) / n
    w = [v - mean for v in d]
    target = abs(mean) - 1e-9 * math.fsum(abs(v) for v in d) / n
    count = sum(1 for idx in itertools.product(range(n), repeat=n)
                if abs(math.fsum(w[i] for i in idx) / n) >= target)
    return count / n ** n


def within_monte_carlo(sampled, exact, b):
    """|sampled - exact| within three Monte Carlo standard errors of a
    proportion from b draws, plus the 1 / (b + 1) that (count + 1) / (b + 1)
    may add."""
    se = math.sqrt(exact * (1 - exact) / b)
    return abs(sampled - exact) <= 3 * se + 1 / (b + 1) + 1e-15


# === 2. Tukey's HSD, one-way (scipy.stats.tukey_hsd) ==========================


@pytest.mark.parametrize("seed, k, n, grid", CASES)
def test_one_way_tukey_equals_scipy(seed, k, n, grid):
    samples = system_scores(seed, k, n, grid=grid)
    statistic, pvalue = oracle_one_way_tukey(samples)
    got = stats.tukey_hsd(*samples)
    for i in range(k):
        for j in range(k):
            assert rel_close(matrix(got.pvalue)[i][j], pvalue[i][j], TUKEY_RTOL, TUKEY_ATOL), (i, j)
            assert rel_close(matrix(got.statistic)[i][j], statistic[i][j], 1e-12, 1e-15)


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_one_way_tukey_unequal_sizes_equals_scipy(seed):
    # Tukey-Kramer: scipy's standard error per pair with 1/n_i + 1/n_j
    samples = unequal_samples(seed, 4)
    _, pvalue = oracle_one_way_tukey(samples)
    got = matrix(stats.tukey_hsd(*samples).pvalue)
    for i, j in itertools.product(range(4), repeat=2):
        assert rel_close(got[i][j], pvalue[i][j], TUKEY_RTOL, TUKEY_ATOL), (i, j)


@settings(max_examples=15)  # one numerical integral per pair in the oracle
@given(score_matrices(max_k=4))
def test_one_way_tukey_equals_scipy_on_any_scores(samples):
    assume(all(statistics.pstdev(s) > 1e-6 for s in samples))  # some spread in every group
    _, pvalue = oracle_one_way_tukey(samples)
    got = matrix(stats.tukey_hsd(*samples).pvalue)
    k = len(samples)
    for i, j in itertools.product(range(k), repeat=2):
        assert rel_close(got[i][j], pvalue[i][j], TUKEY_RTOL, TUKEY_ATOL), (i, j)


def test_tukey_p_values_are_symmetric_with_ones_on_the_diagonal():
    samples = system_scores(21, 4, 15)
    for result in (stats.tukey_hsd(*samples), stats.tukey_hsd(*samples, design="two-way")):
        p = matrix(result.pvalue)
        s = matrix(result.statistic)
        for i in range(4):
            assert p[i][i] == 1.0 and s[i][i] == 0.0
            for j in range(4):
                assert p[i][j] == p[j][i] and s[i][j] == -s[j][i]


def test_tukey_needs_two_samples_and_two_values():
    with pytest.raises(InvalidArgumentError):
        stats.tukey_hsd([0.1, 0.2, 0.3])
    with pytest.raises(InvalidArgumentError):
        stats.tukey_hsd([0.1], [0.2])
    with pytest.raises(InvalidArgumentError, match="same length"):
        stats.tukey_hsd([0.1, 0.2, 0.3], [0.2, 0.4], design="two-way")
    with pytest.raises(InvalidArgumentError, match="design"):
        stats.tukey_hsd([0.1, 0.2], [0.2, 0.4], design="three-way")


# === 2. Tukey's HSD, two-way with topics as blocks ============================


@pytest.mark.parametrize("seed, k, n, grid", CASES)
def test_two_way_tukey_equals_studentized_range_of_the_anova(seed, k, n, grid):
    samples = system_scores(seed, k, n, grid=grid)
    assert oracle_residual_variance_is_usable(samples)
    pvalue, mse, df = oracle_two_way_tukey(samples)
    got = stats.tukey_hsd(*samples, design="two-way")
    assert got.df == df == (k - 1) * (n - 1)
    assert rel_close(got.residual_variance, mse, 1e-10)
    for i, j in itertools.product(range(k), repeat=2):
        assert rel_close(matrix(got.pvalue)[i][j], pvalue[i][j], TUKEY_RTOL, TUKEY_ATOL), (i, j)


@settings(max_examples=15)
@given(score_matrices(max_k=4, min_n=2))
def test_two_way_tukey_on_any_scores(samples):
    assume(oracle_residual_variance_is_usable(samples))
    pvalue, _, _ = oracle_two_way_tukey(samples)
    got = matrix(stats.tukey_hsd(*samples, design="two-way").pvalue)
    k = len(samples)
    for i, j in itertools.product(range(k), repeat=2):
        assert rel_close(got[i][j], pvalue[i][j], TUKEY_RTOL, TUKEY_ATOL), (i, j)


def test_two_way_tukey_removes_the_topic_effect():
    # Metamorphic: adding a constant per topic (harder or easier topics)
    # changes no difference of means and no residual: the p-values stay;
    # the one-way test, which counts it as noise, loses power.
    samples = system_scores(31, 4, 20)
    shift = [0.3 * ((t * 7) % 5) for t in range(20)]
    shifted = [[v + s for v, s in zip(row, shift)] for row in samples]
    a = matrix(stats.tukey_hsd(*samples, design="two-way").pvalue)
    b = matrix(stats.tukey_hsd(*shifted, design="two-way").pvalue)
    for i, j in itertools.product(range(4), repeat=2):
        assert rel_close(a[i][j], b[i][j], 1e-7, 1e-11)
    one_way = matrix(stats.tukey_hsd(*shifted).pvalue)
    assert one_way[0][3] > b[0][3]


# === 3. Two-way ANOVA without replication =====================================


@pytest.mark.parametrize("seed, k, n, grid", CASES)
def test_two_way_anova_equals_statsmodels(seed, k, n, grid):
    samples = system_scores(seed, k, n, grid=grid)
    table = oracle_two_way_anova(samples)
    got = stats.two_way_anova(*samples)
    for name, row in (("system", "C(system)"), ("topic", "C(topic)"), ("residual", "Residual")):
        assert rel_close(getattr(got, f"ss_{name}"), float(table.loc[row, "sum_sq"]), 1e-10)
        assert getattr(got, f"df_{name}") == table.loc[row, "df"]
    assert rel_close(got.residual_variance, float(table.loc["Residual", "mean_sq"]), 1e-10)
    for name, row in (("system", "C(system)"), ("topic", "C(topic)")):
        assert rel_close(getattr(got, f"f_{name}"), float(table.loc[row, "F"]), 1e-9)
        assert rel_close(getattr(got, f"p_{name}"), float(table.loc[row, "PR(>F)"]), 1e-9, 1e-300)


@given(score_matrices())
def test_two_way_anova_sums_of_squares_add_up(samples):
    # SS_total = SS_system + SS_topic + SS_residual (balanced design)
    got = stats.two_way_anova(*samples)
    values = [v for row in samples for v in row]
    grand = statistics.fmean(values)
    total = math.fsum((v - grand) ** 2 for v in values)
    assert math.isclose(got.ss_system + got.ss_topic + got.ss_residual, total,
                        rel_tol=1e-9, abs_tol=1e-12)
    assert got.ss_residual >= 0.0


# === 3. Effect sizes ==========================================================


@pytest.mark.parametrize("seed, n", [(41, 5), (42, 12), (43, 30), (44, 100)])
@pytest.mark.parametrize("confidence", [0.9, 0.95, 0.99])
def test_paired_cohens_d_and_its_noncentral_t_interval(seed, n, confidence):
    x, y = system_scores(seed, 2, n, spread=0.2)
    value, low, high = oracle_cohens_d(x, y, confidence)
    got = stats.paired_cohens_d(x, y, confidence=confidence)
    # 1e-7: a normal approximation of the interval misses by 1e-3 or more;
    # four printed decimals need far less than 1e-7.
    assert rel_close(got.value, value, 1e-12)
    assert rel_close(got.ci_low, low, 1e-7, 1e-9)
    assert rel_close(got.ci_high, high, 1e-7, 1e-9)
    assert got.method == "noncentral t"
    assert got.ci_low < got.value < got.ci_high


def test_paired_cohens_d_of_differences_alone_and_undefined_when_constant():
    x, y = system_scores(45, 2, 10)
    d = [a - b for a, b in zip(x, y)]
    assert stats.paired_cohens_d(d) == stats.paired_cohens_d(x, y)
    with pytest.raises(UndefinedStatisticError, match="standard deviation"):
        stats.paired_cohens_d([0.25, 0.5], [0.0, 0.25])  # d = 0.25 twice: sd 0


@pytest.mark.parametrize("seed, k, n", [(51, 3, 10), (52, 5, 25), (53, 4, 60)])
def test_sakai_standardized_mean_difference_from_the_anova(seed, k, n):
    samples = system_scores(seed, k, n)
    got = stats.standardized_mean_differences(*samples, confidence=0.95)
    for i in range(k):
        assert got[i][i] is None
        for j in range(k):
            if i == j:
                continue
            value, low, high = oracle_sakai_es(samples, i, j, 0.95)
            es = got[i][j]
            assert rel_close(es.value, value, 1e-10)
            assert rel_close(es.ci_low, low, 1e-7, 1e-9)
            assert rel_close(es.ci_high, high, 1e-7, 1e-9)
            assert es.method == "noncentral t"


# === 4. Corrections (statsmodels.stats.multitest.multipletests) ===============

p_value_lists = st.lists(
    st.one_of(st.floats(0.0, 1.0), st.floats(1e-12, 1e-3),
              st.sampled_from([0.0, 1e-300, 0.01, 0.05, 0.5, 1.0])),
    min_size=1, max_size=30,
)


def test_the_new_corrections_are_registered():
    assert stats.CORRECTIONS[:3] == ("holm", "bonferroni", "none")
    assert set(NEW_CORRECTIONS) <= set(stats.CORRECTIONS)
    assert set(COMPARE_TESTS) >= {"tukey-hsd", "randomized-tukey"}


@pytest.mark.parametrize("method", ["holm", "bonferroni", *NEW_CORRECTIONS])
@given(ps=p_value_lists)
def test_corrections_equal_statsmodels(method, ps):
    expected = oracle_corrected(ps, method)
    got = stats.adjust_p_values(ps, method=method)
    assert len(got) == len(ps)
    for g, e in zip(got, expected):
        assert math.isclose(g, e, rel_tol=1e-12, abs_tol=1e-12)


@pytest.mark.parametrize("method", NEW_CORRECTIONS)
@given(ps=p_value_lists)
def test_corrections_do_not_lower_p_values_or_break_their_order(method, ps):
    got = stats.adjust_p_values(ps, method=method)
    for p, a in zip(ps, got):
        assert p <= a + 1e-15 and 0.0 <= a <= 1.0
    for (p1, a1), (p2, a2) in itertools.combinations(zip(ps, got), 2):
        if p1 < p2:
            assert a1 <= a2 + 1e-15


def test_unknown_correction_lists_every_name():
    with pytest.raises(InvalidArgumentError) as info:
        stats.adjust_p_values([0.1], method="fdr")
    for name in stats.CORRECTIONS:
        assert repr(name) in str(info.value)


# === 5. Power and topic set size (statsmodels' TTestPower) ====================


@given(d=st.floats(-2.0, 2.0).filter(lambda v: abs(v) > 1e-3), n=st.integers(2, 500),
       alpha=st.sampled_from([0.001, 0.01, 0.05, 0.1]))
def test_paired_t_power_equals_statsmodels(d, n, alpha):
    assert rel_close(stats.paired_t_power(d, n, alpha=alpha), oracle_power(d, n, alpha), 1e-6)


def test_power_without_an_effect_is_alpha():
    # d = 0: the test rejects with probability alpha (the noncentral t is the t)
    for alpha in (0.01, 0.05):
        assert rel_close(stats.paired_t_power(0.0, 20, alpha=alpha), alpha, 1e-9)
        assert rel_close(oracle_power(0.0, 20, alpha), alpha, 1e-9)


@given(d=st.floats(0.1, 2.0), power=st.floats(0.5, 0.95),
       alpha=st.sampled_from([0.01, 0.05, 0.1]))
def test_paired_t_topics_equals_statsmodels(d, power, alpha):
    expected = oracle_topics(d, power, alpha)
    # Skip targets within 1e-9 of a power statsmodels reaches at some n: the
    # answer then hangs on the last digits of two implementations.
    assume(abs(oracle_power(d, expected, alpha) - power) > 1e-9)
    got = stats.paired_t_topics(d, power=power, alpha=alpha)
    assert isinstance(got, int) and got == expected


@pytest.mark.parametrize("min_difference, variance", [(0.05, 0.02), (0.1, 0.05), (0.02, 0.01)])
def test_sakai_topic_set_size_from_a_variance(min_difference, variance):
    expected = oracle_topics(min_difference / math.sqrt(2 * variance), 0.8, 0.05)
    got = stats.topic_set_size(min_difference, variance=variance, alpha=0.05, power=0.8)
    assert got == expected


@pytest.mark.parametrize("seed", [61, 62])
def test_sakai_topic_set_size_from_runs(seed):
    samples = system_scores(seed, 5, 30)
    v_e = float(oracle_two_way_anova(samples).loc["Residual", "mean_sq"])
    expected = oracle_topics(0.05 / math.sqrt(2 * v_e), 0.8, 0.05)
    assert stats.topic_set_size(0.05, samples=samples) == expected
    assert stats.topic_set_size(
        0.05, variance=stats.two_way_anova(*samples).residual_variance) == expected
    with pytest.raises(InvalidArgumentError):
        stats.topic_set_size(0.05, variance=v_e, samples=samples)
    with pytest.raises(InvalidArgumentError):
        stats.topic_set_size(0.05)


# === 2. Randomised Tukey HSD (Carterette 2012) and the other resampling tests ==

SMALL = [(71, 3, 5, True), (72, 3, 5, False), (73, 3, 4, True)]


@pytest.mark.parametrize("seed, k, n, grid", SMALL)
def test_randomized_tukey_exact_equals_enumeration(seed, k, n, grid):
    samples = system_scores(seed, k, n, grid=grid, spread=0.2)
    expected = exact_randomized_tukey(samples)
    got = matrix(stats.randomized_tukey_hsd(*samples, exact=True).pvalue)
    for i, j in itertools.product(range(k), repeat=2):
        assert rel_close(got[i][j], expected[i][j], 1e-12), (i, j)


@pytest.mark.parametrize("seed, k, n, grid", SMALL)
def test_randomized_tukey_sampled_within_three_monte_carlo_errors(seed, k, n, grid):
    samples = system_scores(seed, k, n, grid=grid, spread=0.2)
    expected = exact_randomized_tukey(samples)
    b = 4000
    got = matrix(stats.randomized_tukey_hsd(*samples, exact=False, n_resamples=b, seed=5).pvalue)
    for i, j in itertools.combinations(range(k), 2):
        assert within_monte_carlo(got[i][j], expected[i][j], b), (i, j, got[i][j], expected[i][j])


@pytest.mark.parametrize("seed", [81, 82])
def test_permutation_test_sampled_within_three_monte_carlo_errors(seed):
    x, y = system_scores(seed, 2, 12, spread=0.15)
    d = [a - b for a, b in zip(x, y)]
    expected = exact_sign_flip(d)
    b = 5000
    got = stats.permutation_test(d, exact=False, n_resamples=b, seed=seed)
    assert got.method == "sampled"
    assert within_monte_carlo(got.p_value, expected, b)
    assert stats.permutation_test(d, exact=True).p_value == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("seed", [83, 84])
def test_bootstrap_test_within_three_monte_carlo_errors(seed):
    x, y = system_scores(seed, 2, 6, spread=0.15)
    d = [a - b for a, b in zip(x, y)]
    expected = exact_bootstrap(d)  # 6^6 = 46,656 resamples
    b = 5000
    got = stats.bootstrap_test(d, n_resamples=b, seed=seed)
    assert within_monte_carlo(got.p_value, expected, b)


def test_compare_resamples_the_queries_once_for_every_comparison():
    # The bootstrap's draws depend on n, n_resamples and seed only: compare()
    # resamples a measure's queries once, and each baseline comparison's
    # interval and bootstrap test are those of stats on its differences alone.
    names, runs = scored_runs(127, 4, 30)
    result = compare(None, runs, ["m"], test="bootstrap", n_resamples=400, seed=5)
    base = values(runs, "run0", "m")
    for name in names[1:]:
        d = [a - b for a, b in zip(values(runs, name, "m"), base)]
        row = result.row(name, "m")
        assert (row["ci_low"], row["ci_high"]) == stats.bootstrap_ci(
            d, confidence=0.95, n_resamples=400, seed=5)
        assert row["p_value"] == stats.bootstrap_test(d, n_resamples=400, seed=5).p_value


def test_bootstrap_sums_are_the_sums_of_rows_drawn_uniformly():
    # Every row is drawn with probability 1/n: over many resamples each
    # row's share of the draws is 1/n within a few standard errors (n = 301:
    # four blocks of 76 cells, the last 3 empty: drawn again; rows 0 and 75
    # end the first block, 151 and 300 the third and the last).
    import random as _random

    n, b = 301, 400
    columns = [[1.0 if i == j else 0.0 for i in range(n)] for j in (0, 75, 151, 300)]
    sums = stats._bootstrap_sums(columns, b, _random.Random(3))
    for column in sums:  # draws of that one row, Binomial(n * b, 1/n) in all
        assert abs(math.fsum(column) - b) <= 4 * math.sqrt(b)
        assert all(float(v).is_integer() for v in column)


@pytest.mark.parametrize("n, b", [(301, 400), (1001, 100)])
def test_bootstrap_resamples_are_multinomial(n, b):
    # Each resample's counts of the n rows, read exactly from the sums of
    # columns (column j is 1024**t at row 5j + t, 0 elsewhere: a count, below
    # 1024, fills 10 bits of an integer below 2**50, which floats add exactly
    # in any order), must be Multinomial(n; 1/n, ..., 1/n), the ordinary
    # bootstrap: n draws in all; the rows of the first block of the split by
    # halves (76 of 301, 126 of 1001, the last block's empty cells drawn
    # again, an odd count's last draw paired with no draw) Binomial(n, p) in
    # mean and variance; the number of distinct rows
    # drawn, D = n - sum of the indicators of the rows never drawn, of mean
    # n (1 - q), q = (1 - 1/n)**n, and variance n q + n (n - 1)(1 - 2/n)**n
    # - n**2 q**2; the rows' totals over all the resamples uniform
    # (chi-square, n - 1 degrees of freedom).  Each within 4 standard errors.
    import random as _random

    columns = [[1024.0 ** (i - j) if j <= i < j + 5 else 0.0 for i in range(n)]
               for j in range(0, n, 5)]
    sums = stats._bootstrap_sums(columns, b, _random.Random(11))
    counts = [[(int(column[r]) >> 10 * t) & 1023 for column in sums for t in range(5)][:n]
              for r in range(b)]
    assert all(sum(c) == n for c in counts)

    def mean_var(values):
        m = math.fsum(values) / len(values)
        return m, math.fsum((v - m) ** 2 for v in values) / (len(values) - 1)

    first = 76 if n == 301 else 126  # the first block's rows
    p = first / n
    m, v = mean_var([sum(c[:first]) for c in counts])
    assert abs(m - n * p) <= 4 * math.sqrt(n * p * (1 - p) / b)
    assert abs(v - n * p * (1 - p)) <= 4 * n * p * (1 - p) * math.sqrt(2 / (b - 1))
    q, q2 = (1 - 1 / n) ** n, (1 - 2 / n) ** n
    var_d = n * q + n * (n - 1) * q2 - n * n * q * q
    m, v = mean_var([sum(1 for x in c if x) for c in counts])
    assert abs(m - n * (1 - q)) <= 4 * math.sqrt(var_d / b)
    assert abs(v - var_d) <= 4 * var_d * math.sqrt(2 / (b - 1))
    chi2 = math.fsum((sum(c[i] for c in counts) - b) ** 2 / b for i in range(n))
    assert abs(chi2 - (n - 1)) <= 4 * math.sqrt(2 * (n - 1))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6), min_size=2, max_size=300),
       st.integers(1, 40), st.integers(0, 2**32))
def test_bootstrap_sums_are_exact(d, b, seed):
    # The sums are exact on the values' grid (2**k, n * max|q| <= 2**53), so
    # that no rounding depends on how the draws are grouped: a constant
    # column sums to n times itself in every resample (every resample has
    # exactly n draws, whatever the blocks, the odd counts and the empty
    # cells); the negated column's sums are the negated sums; a column's
    # sums do not depend on the columns beside it (their draws are shared);
    # doubling the values doubles the sums (the grid follows the exponent).
    import random as _random

    n = len(d)
    negated = [-v for v in d]
    doubled = [2.0 * v for v in d]
    alone = stats._bootstrap_sums([d], b, _random.Random(seed))[0]
    together = stats._bootstrap_sums([[0.75] * n, d, negated, doubled], b, _random.Random(seed))
    assert together[0] == [0.75 * n] * b  # (0.75 lies on every grid)
    assert together[1] == alone
    assert together[2] == [-v for v in alone]
    assert together[3] == [2.0 * v for v in alone]


@st.composite
def difference_relations(draw, max_k=7):
    """A symmetric "significantly different" relation on k systems."""
    k = draw(st.integers(1, max_k))
    upper = {pair: draw(st.booleans()) for pair in itertools.combinations(range(k), 2)}
    return [[i != j and upper[min(i, j), max(i, j)] for j in range(k)] for i in range(k)]


@given(difference_relations())
def test_letter_groups_share_a_letter_exactly_when_not_different(different):
    letters = stats.letter_groups(different)
    assert len(letters) == len(different) and all(letters)
    for i, j in itertools.combinations(range(len(different)), 2):
        assert bool(set(letters[i]) & set(letters[j])) is (not different[i][j]), (i, j)


def test_tukey_groups_follow_the_p_values():
    samples = system_scores(91, 5, 40)
    for result in (stats.tukey_hsd(*samples, design="two-way"),
                   stats.randomized_tukey_hsd(*samples, n_resamples=500, seed=1)):
        p = matrix(result.pvalue)
        different = [[i != j and p[i][j] <= 0.05 for j in range(5)] for i in range(5)]
        assert result.groups(alpha=0.05) == stats.letter_groups(different)


# === Seeds: the same seed gives the same p-values, run after run =============


def _seeded_values():
    samples = system_scores(101, 4, 30)
    d = [a - b for a, b in zip(samples[1], samples[0])]
    return {
        "randomized_tukey": matrix(stats.randomized_tukey_hsd(
            *samples, n_resamples=300, seed=9, exact=False).pvalue),
        "permutation": stats.permutation_test(d, n_resamples=300, seed=9, exact=False).p_value,
        "bootstrap": stats.bootstrap_test(d, n_resamples=300, seed=9).p_value,
        "bootstrap_ci": list(stats.bootstrap_ci(d, n_resamples=300, seed=9)),
    }


def test_same_seed_same_p_values():
    assert _seeded_values() == _seeded_values()
    samples = system_scores(102, 3, 30)
    a = stats.randomized_tukey_hsd(*samples, n_resamples=300, seed=1, exact=False)
    b = stats.randomized_tukey_hsd(*samples, n_resamples=300, seed=1, exact=False)
    assert matrix(a.pvalue) == matrix(b.pvalue)


@pytest.mark.slow
def test_same_seed_same_p_values_in_another_process():
    # Another process with another hash seed: nothing may hang on set or
    # dict order of str.
    code = ("import json, sys; sys.path.insert(0, 'tests'); "
            "import test_stats_papers as t; print(json.dumps(t._seeded_values()))")
    env = dict(os.environ, PYTHONHASHSEED="12345",
               PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout) == json.loads(json.dumps(_seeded_values()))


# === 1. compare(): all pairs, several baselines, the family named ============


def scored_runs(seed, k, n, grid=False):
    """k runs already scored (qrels=None): {name: {qid: {"m": v, "n": w}}}."""
    samples = system_scores(seed, k, n, grid=grid)
    other = system_scores(seed + 1000, k, n, grid=True)
    names = [f"run{i}" for i in range(k)]
    runs = {name: {f"q{t:03d}": {"m": samples[i][t], "n": other[i][t]} for t in range(n)}
            for i, name in enumerate(names)}
    return names, runs


def values(runs, name, measure):
    return [runs[name][q][measure] for q in sorted(runs[name])]


def pair_row(result, run, versus, measure):
    return result.row(run, measure, versus=versus)


def comparison_rows(result, measure):
    return [r for r in result.rows if r["measure"] == measure and r["versus"] is not None]


@pytest.mark.parametrize("correction", ["holm", "bonferroni", *NEW_CORRECTIONS])
def test_all_pairs_paired_t_corrected_over_the_family(correction):
    sp = require("scipy.stats")
    names, runs = scored_runs(111, 5, 20)
    result = compare(None, runs, ["m", "n"], pairs="all", test="paired-t", correction=correction)
    pairs = list(itertools.combinations(names, 2))
    assert result.family_size == len(pairs) == 10
    assert result.to_dict()["family"] == result.family
    assert result.family in result.to_text()
    for m in ("m", "n"):
        rows = comparison_rows(result, m)
        assert [(r["run"], r["versus"]) for r in rows] == [(b, a) for a, b in pairs]
        raw = [float(sp.ttest_rel(values(runs, b, m), values(runs, a, m)).pvalue) for a, b in pairs]
        adjusted = oracle_corrected(raw, correction)
        for (a, b), p, adj in zip(pairs, raw, adjusted):
            row = pair_row(result, b, a, m)
            assert rel_close(row["p_value"], p, 1e-10)
            assert math.isclose(row["p_adjusted"], adj, rel_tol=1e-9, abs_tol=1e-12)
            assert row["significant"] is (row["p_adjusted"] <= result.alpha)
            assert row["difference"] == pytest.approx(
                statistics.fmean(values(runs, b, m)) - statistics.fmean(values(runs, a, m)),
                rel=1e-12, abs=1e-15)
        means = [r for r in result.rows if r["measure"] == m and r["versus"] is None]
        assert [r["run"] for r in means] == names
        for r in means:
            assert r["mean"] == pytest.approx(statistics.fmean(values(runs, r["run"], m)))


def test_several_baselines_compare_each_run_with_each():
    sp = require("scipy.stats")
    names, runs = scored_runs(112, 5, 15)
    bases = ["run0", "run3"]
    result = compare(None, runs, ["m"], baseline=bases, test="paired-t", correction="hommel")
    expected_pairs = [(r, b) for b in bases for r in names if r not in bases]
    rows = comparison_rows(result, "m")
    assert sorted((r["run"], r["versus"]) for r in rows) == sorted(expected_pairs)
    assert result.family_size == 6  # 3 other runs x 2 baselines
    raw = [float(sp.ttest_rel(values(runs, r, "m"), values(runs, b, "m")).pvalue)
           for r, b in expected_pairs]
    for (r, b), adj in zip(expected_pairs, oracle_corrected(raw, "hommel")):
        assert math.isclose(pair_row(result, r, b, "m")["p_adjusted"], adj,
                            rel_tol=1e-9, abs_tol=1e-12)


def test_one_baseline_keeps_todays_rows_and_family():
    names, runs = scored_runs(113, 3, 10)
    result = compare(None, runs, ["m"])
    assert result.test == "paired-t" and result.correction == "holm"
    assert result.family_size == 2
    assert result.row("run1", "m") == pair_row(result, "run1", "run0", "m")


@pytest.mark.parametrize("seed, k, n", [(121, 4, 20), (122, 6, 12)])
def test_compare_tukey_equals_the_two_way_oracle(seed, k, n):
    names, runs = scored_runs(seed, k, n)
    samples = [values(runs, name, "m") for name in names]
    pvalue, _, _ = oracle_two_way_tukey(samples)
    result = compare(None, runs, ["m"], pairs="all", test="tukey-hsd")
    for (i, a), (j, b) in itertools.combinations(enumerate(names), 2):
        row = pair_row(result, b, a, "m")
        assert rel_close(row["p_value"], pvalue[i][j], TUKEY_RTOL, TUKEY_ATOL)
        assert row["p_adjusted"] == row["p_value"]  # Tukey controls the family itself


def test_all_pairs_default_to_two_way_tukey():
    names, runs = scored_runs(123, 4, 15)
    result = compare(None, runs, ["m"], pairs="all")
    assert result.test == "tukey-hsd"
    assert result.to_dict() == compare(None, runs, ["m"], pairs="all", test="tukey-hsd").to_dict()


def test_compare_randomized_tukey_is_the_stats_function_and_reproducible():
    names, runs = scored_runs(124, 4, 12)
    samples = [values(runs, name, "m") for name in names]
    a = compare(None, runs, ["m"], pairs="all", test="randomized-tukey", n_resamples=400, seed=3)
    b = compare(None, runs, ["m"], pairs="all", test="randomized-tukey", n_resamples=400, seed=3)
    assert a.to_dict() == b.to_dict()
    p = matrix(stats.randomized_tukey_hsd(*samples, n_resamples=400, seed=3).pvalue)
    for (i, x), (j, y) in itertools.combinations(enumerate(names), 2):
        assert pair_row(a, y, x, "m")["p_value"] == p[i][j]


@pytest.mark.parametrize("test", ["paired-t", "tukey-hsd"])
def test_every_pairwise_row_has_cohens_d_with_its_interval(test):
    names, runs = scored_runs(125, 4, 25)
    result = compare(None, runs, ["m"], pairs="all", test=test, alpha=0.1)
    for a, b in itertools.combinations(names, 2):
        value, low, high = oracle_cohens_d(values(runs, b, "m"), values(runs, a, "m"), 0.9)
        row = pair_row(result, b, a, "m")
        assert rel_close(row["effect_size"], value, 1e-12)
        assert rel_close(row["effect_ci_low"], low, 1e-7, 1e-9)
        assert rel_close(row["effect_ci_high"], high, 1e-7, 1e-9)


def test_bad_pairs_and_baselines():
    names, runs = scored_runs(126, 3, 8)
    with pytest.raises(InvalidArgumentError, match="pairs"):
        compare(None, runs, ["m"], pairs="some")
    with pytest.raises(InvalidArgumentError, match="'nope' is not one of the runs"):
        compare(None, runs, ["m"], baseline=["run0", "nope"])
    with pytest.raises(InvalidArgumentError, match="baseline"):
        compare(None, runs, ["m"], baseline=["run0", "run1"], pairs="all")


# === 6. Letter marks and the tables for papers ================================


def oracle_marks(result, runs, names, measure, pvalue):
    """{run: letters of the runs it beats}: p <= alpha and a larger mean."""
    letters = {name: chr(ord("a") + i) for i, name in enumerate(names)}
    means = {name: statistics.fmean(values(runs, name, measure)) for name in names}
    out = {}
    for i, x in enumerate(names):
        out[x] = "".join(sorted(letters[y] for j, y in enumerate(names)
                                if i != j and pvalue[i][j] <= result.alpha
                                and means[x] > means[y]))
    return letters, out


def marked_comparison():
    # Large system effects over 40 topics: some pairs differ, some do not.
    names, runs = scored_runs(131, 5, 40)
    return names, runs, compare(None, runs, ["m", "n"], pairs="all", test="tukey-hsd")


def test_letter_marks_follow_the_tukey_p_values():
    names, runs, result = marked_comparison()
    for m in ("m", "n"):
        pvalue, _, _ = oracle_two_way_tukey([values(runs, name, m) for name in names])
        letters, marks = oracle_marks(result, runs, names, m, pvalue)
        assert result.letters == letters
        assert result.marks(m) == marks
    assert any(result.marks("m").values())  # the case is not vacuous
    assert not all(result.marks("m").values())


MARK_PATTERNS = {
    "markdown": r"(\d\.\d{4})(?:<sup>([a-z]+)</sup>)?",
    "html": r"(\d\.\d{4})(?:<sup>([a-z]+)</sup>)?",
    "latex": r"(\d\.\d{4})(?:\$\^\{([a-z]+)\}\$)?",
}


@pytest.mark.parametrize("fmt", ["markdown", "latex", "html"])
def test_paper_tables_carry_the_marks_and_name_the_test(fmt):
    names, runs, result = marked_comparison()
    out = {"markdown": result.to_markdown, "latex": result.to_latex,
           "html": result.to_html}[fmt]()
    cells = [(f"{row['mean']:.4f}", result.marks(row["measure"])[row["run"]])
             for m in result.measures for row in result.rows
             if row["measure"] == m and row["versus"] is None]
    found = re.findall(MARK_PATTERNS[fmt], out)
    for mean, mark in cells:
        assert (mean, mark) in found, (mean, mark)
    for name, letter in result.letters.items():
        assert f"({letter}) {name}" in out
    assert report.TEST_TITLES[result.test] in out
    assert result.family in out


HOSTILE_RUN = "a_b%c&d#e$f{g}h~i^j\\k|l<m>n*o\n\np`q"


def hostile_paper_table():
    names, runs = scored_runs(141, 3, 12)
    runs = {("=base" if n == "run0" else HOSTILE_RUN if n == "run1" else n): v
            for n, v in runs.items()}
    return compare(None, runs, ["m"], pairs="all")


def test_paper_tables_escape_names_as_todays_reports():
    result = hostile_paper_table()
    tex = result.to_latex()
    assert (r"a\_b\%c\&d\#e\$f\{g\}h\textasciitilde{}i\textasciicircum{}j\textbackslash{}k"
            r"\textbar{}l\textless{}m\textgreater{}n*o p`q") in tex
    assert "\n\n" not in tex.rstrip("\n")
    md = result.to_markdown()
    assert r"a\_b%c&amp;d\#e&#36;f\{g\}h&#126;i&#94;j\\k\|l&lt;m&gt;n\*o p\`q" in md
    html = result._repr_html_()
    assert "l&lt;m&gt;n" in html and "<m>" not in html
    assert set(re.findall(r"<(\w+)", html)) <= {
        "p", "table", "thead", "tr", "th", "tbody", "td", "br", "small", "sup"}


def test_docs_five_system_table_is_the_printed_one():
    # docs/compare.md shows the Markdown that its example prints (the docs
    # tests run the example and compare the ```text block after it) and the
    # same table as a page renders it: the two must be the same table.
    page = (ROOT / "docs" / "compare.md").read_text(encoding="utf-8")
    printed = re.search(r'pairs="all"\)[^\n]*\nprint\(result\.to_markdown\(\)\)\n```\n\n```text\n'
                        r"(.*?)```", page, re.S)
    rendered = re.search(r"<!-- example: compare papers rendered -->\n(.*?)\n\n", page, re.S)
    assert printed and rendered
    table = [line for line in printed.group(1).splitlines() if line.startswith("|")]
    assert rendered.group(1).splitlines() == table
    assert len(table) == 2 + 5 and "<sup>" in rendered.group(1)


# === 8. DataFrames and the command line =======================================


def test_to_dataframe_has_the_new_columns():
    require("pandas")
    names, runs, result = marked_comparison()
    frame = result.to_dataframe()
    assert len(frame) == len(result.rows)
    for key in ("versus", "effect_size", "effect_ci_low", "effect_ci_high"):
        assert key in frame.columns
    for r, (_, f) in zip(result.rows, frame.iterrows()):
        assert f["run"] == r["run"]
        if r["versus"] is not None:
            assert f["versus"] == r["versus"]
            assert f["p_adjusted"] == r["p_adjusted"] and f["effect_size"] == r["effect_size"]


def trec_files(tmp_path, k=4, n=15, seed=151):
    """A qrels file and k run files whose quality grows with their index."""
    rng = random.Random(seed)
    qrels = tmp_path / "qrels.txt"
    lines = []
    for q in range(n):
        for d in range(10):
            lines.append(f"q{q} 0 d{d} {1 if d < 4 else 0}\n")
    qrels.write_text("".join(lines), encoding="utf-8")
    paths = []
    for i in range(k):
        path = tmp_path / f"sys{i}.run"
        out = []
        for q in range(n):
            scores = {f"d{d}": rng.random() + (0.15 * i if d < 4 else 0.0) for d in range(10)}
            ranked = sorted(scores.items(), key=lambda kv: -kv[1])
            out += [f"q{q} Q0 {doc} {r + 1} {s:.6f} sys{i}\n" for r, (doc, s) in enumerate(ranked)]
        path.write_text("".join(out), encoding="utf-8")
        paths.append(path)
    return qrels, paths


def run_cli(*argv):
    import io

    out, err = io.StringIO(), io.StringIO()
    code = _run([str(a) for a in argv], out, err)
    return code, out.getvalue(), err.getvalue()


def test_cli_all_pairs_json_is_compare(tmp_path):
    from irmetrics import Qrels

    qrels, paths = trec_files(tmp_path)
    code, out, err = run_cli("compare", qrels, *paths, "-m", "map", "-m", "P@5",
                             "--pairs", "all", "--format", "json")
    assert (code, err) == (0, "")
    expected = compare(Qrels.from_trec(str(qrels)),
                       {f"sys{i}": str(p) for i, p in enumerate(paths)},
                       ["map", "P@5"], pairs="all")
    data = json.loads(out)
    assert data == json.loads(json.dumps(expected.to_dict()))
    assert data["test"] == "tukey-hsd" and data["family"] == expected.family


@pytest.mark.parametrize("options, check", [
    (["--pairs", "all", "--test", "paired-t", "--correction", "fdr_bh"],
     lambda d: d["correction"] == "fdr_bh" and len([r for r in d["rows"] if r["versus"]]) == 6),
    (["--baseline", "sys0", "--baseline", "sys1", "--correction", "holm-sidak"],
     lambda d: sorted({r["versus"] for r in d["rows"] if r["versus"]}) == ["sys0", "sys1"]),
    (["--pairs", "all", "--test", "randomized-tukey", "--resamples", "200", "--seed", "4"],
     lambda d: d["test"] == "randomized-tukey"),
])
def test_cli_new_options(tmp_path, options, check):
    qrels, paths = trec_files(tmp_path)
    code, out, err = run_cli("compare", qrels, *paths, "-m", "map", *options, "--format", "json")
    assert (code, err) == (0, ""), err
    assert check(json.loads(out))


def test_cli_markdown_paper_table_and_bad_pairs(tmp_path):
    qrels, paths = trec_files(tmp_path)
    code, out, err = run_cli("compare", qrels, *paths, "-m", "map", "--pairs", "all",
                             "--format", "markdown")
    assert code == 0 and "(a) sys0" in out and report.TEST_TITLES["tukey-hsd"] in out
    code, out, err = run_cli("compare", qrels, *paths, "-m", "map", "--pairs", "some")
    assert code == 2 and out == "" and "invalid choice: 'some'" in err
    assert err.count("\n") == 1
