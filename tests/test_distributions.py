"""irmetrics/_distributions.py, and the edges of issue 47's statistics.

The oracles are scipy (Boost's Student t and noncentral t) and identities:
with two systems the studentized range over sqrt(2) is |T|, so
P(Q > q) = 2 P(T > q / sqrt(2)) exactly, in the far tail too, where
scipy's own studentized range (1 - cdf, integrated to 1e-11) has no digits.
"""

import math

import pytest
from oracles import require

from irmetrics import _distributions as dist
from irmetrics import stats
from irmetrics.errors import InvalidArgumentError, UndefinedStatisticError


@pytest.mark.parametrize("df", [1, 2, 3, 7, 30, 195, 1000, 20000])
@pytest.mark.parametrize("q", [0.01, 0.5, 2.0, 5.0, 10.0, 20.0])
def test_studentized_range_of_two_is_students_t_far_into_the_tail(df, q):
    sp = require("scipy.stats")
    expected = 2.0 * float(sp.t.sf(q / math.sqrt(2.0), df))
    assert expected > 0.0
    assert math.isclose(dist.studentized_range_sf(q, 2, df), expected, rel_tol=1e-11)


def test_studentized_range_edges():
    assert dist.studentized_range_sf(0.0, 5, 10) == 1.0
    assert dist.studentized_range_sf(math.inf, 5, 10) == 0.0
    # from 100,000 degrees of freedom on, the range itself (as scipy):
    # for k = 2, P(|Z1 - Z2| > q) = erfc(q / 2)
    assert dist.studentized_range_sf(3.0, 2, 200_000) == math.erfc(1.5)


@pytest.mark.parametrize("t, df, nc", [(1.0, 5, 0.5), (-2.0, 10, 1.0), (3.0, 30, 5.0),
                                       (20.0, 99, 18.0), (2.0, 1000, 2.5), (0.5, 2, 3.0)])
def test_noncentral_t_equals_scipy_and_inverts(t, df, nc):
    sp = require("scipy.stats")
    p = dist.nct_cdf(t, df, nc)
    assert math.isclose(p, float(sp.nct.cdf(t, df, nc)), rel_tol=1e-10, abs_tol=1e-14)
    assert math.isclose(dist.nct_noncentrality(t, df, p), nc, rel_tol=1e-9, abs_tol=1e-9)


def test_additive_scores_have_no_residual():
    # x_ij = system effect + topic effect: V_E = 0, so F, Tukey's q and the
    # standardised differences are undefined, not infinite
    samples = [[0.1, 0.3, 0.6], [0.2, 0.4, 0.7], [0.5, 0.7, 1.0]]
    anova = stats.two_way_anova(*samples)
    assert anova.residual_variance == pytest.approx(0.0, abs=1e-30)
    exact = stats.two_way_anova([0.0, 0.5], [0.25, 0.75])  # binary fractions: exactly 0
    assert exact.residual_variance == 0.0 and exact.f_system is None and exact.p_system is None
    with pytest.raises(UndefinedStatisticError, match="residual variance"):
        stats.tukey_hsd([0.0, 0.5], [0.25, 0.75], design="two-way")
    with pytest.raises(UndefinedStatisticError, match="residual variance"):
        stats.standardized_mean_differences([0.0, 0.5], [0.25, 0.75])


def test_inputs_are_iterables_and_not_mutated():
    a, b, c = [0.2, 0.4, 0.6, 0.5], [0.3, 0.5, 0.5, 0.6], [0.5, 0.7, 0.8, 0.9]
    copies = [list(a), list(b), list(c)]
    result = stats.tukey_hsd(iter(a), (v for v in b), tuple(c), design="two-way")
    assert [a, b, c] == copies
    assert result.pvalue == stats.tukey_hsd(a, b, c, design="two-way").pvalue


def test_bad_arguments_are_named():
    with pytest.raises(InvalidArgumentError, match="'different' must be a square matrix"):
        stats.letter_groups([[False, True], [True]])
    with pytest.raises(InvalidArgumentError, match="'n_topics'"):
        stats.paired_t_power(0.5, 1)
    with pytest.raises(InvalidArgumentError, match="'effect_size'"):
        stats.paired_t_topics(0.0)
    with pytest.raises(InvalidArgumentError, match="'power'"):
        stats.paired_t_topics(0.5, power=1.0)
    with pytest.raises(InvalidArgumentError, match="'variance'"):
        stats.topic_set_size(0.05, variance=-1.0)
    with pytest.raises(InvalidArgumentError, match="'alpha'"):
        stats.tukey_hsd([0.1, 0.2], [0.3, 0.5]).groups(alpha=2)


def test_letters_go_past_the_alphabet():
    # 60 systems, each different from every other: 60 groups of one
    k = 60
    letters = stats.letter_groups([[i != j for j in range(k)] for i in range(k)])
    assert len(set(letters)) == k and all(len(v) == 1 and v.isalpha() for v in letters)
