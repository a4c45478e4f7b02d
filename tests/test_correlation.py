"""Tests for irmetrics.correlation: kendall_tau_weighted (RC) and weighted_tau."""

import itertools
import math
import random
import warnings
from collections import Counter
from fractions import Fraction
from typing import Any, Callable, Dict, List, Optional, Sequence
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import require

from irmetrics import correlation
from irmetrics.correlation import kendall_tau_weighted, weighted_tau
from irmetrics.errors import InvalidArgumentError, InvalidLabelError


def close(a: float, b: float, tol: float = 1e-12) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return math.isclose(a, b, rel_tol=tol, abs_tol=tol)


# The pair weights w(i, j), 1-based ranks i < j, as documented.
PAIR_WEIGHTS: Dict[Optional[str], Callable[[int, int], float]] = {
    None: lambda i, j: 1.0,
    "dcg": lambda i, j: abs(1 / math.log2(i + 1) - 1 / math.log2(j + 1)),
    "hyperbolic": lambda i, j: 1 / i + 1 / j,
    "reciprocal": lambda i, j: 1 / (i * j),
}
SCHEMES = list(PAIR_WEIGHTS)


def _custom(i: int, j: int) -> float:
    return float(j - i) + (1.0 if i == 1 else 0.0)


def _sgn(z: int) -> int:
    return (z > 0) - (z < 0)


def brute_rc(labels: Sequence[Any], w: Callable[[int, int], float]) -> float:
    """Liu's RC straight from the definition: max over every ideal ranking.

    Documents are named by their given rank 1..n, so pi(u) = u; an ideal
    ranking pi_l is any permutation whose labels do not increase.
    """
    values = [0 if x is None else x for x in labels]
    n = len(values)
    if n == 0:
        return 0.0
    if n == 1:
        return 1.0
    pairs = [(u, v) for u in range(1, n + 1) for v in range(u + 1, n + 1)]
    total = math.fsum(w(u, v) for u, v in pairs)
    if total == 0:
        return 1.0
    best = -1.0
    for order in itertools.permutations(range(1, n + 1)):
        if any(values[a - 1] < values[b - 1] for a, b in zip(order, order[1:])):
            continue  # not ideal
        pos = {doc: k for k, doc in enumerate(order, start=1)}
        num = math.fsum(w(u, v) * (1 + _sgn((u - v) * (pos[u] - pos[v]))) for u, v in pairs)
        best = max(best, num / (2 * total))
    return best


def brute_weighted_tau(
    x: Sequence[float],
    y: Sequence[float],
    rank: Sequence[int],
    weigher: Callable[[int], float],
    additive: bool,
) -> float:
    """Vigna's tau from the pair definition, O(n^2), for one given rank array."""
    n = len(x)
    w = [weigher(r) for r in rank]
    tot: List[float] = []
    untied_x: List[float] = []
    untied_y: List[float] = []
    signed: List[float] = []
    for i in range(n):
        for j in range(i + 1, n):
            pw = w[i] + w[j] if additive else w[i] * w[j]
            tot.append(pw)
            if x[i] != x[j]:
                untied_x.append(pw)
            if y[i] != y[j]:
                untied_y.append(pw)
            signed.append(
                pw * _sgn((x[i] > x[j]) - (x[i] < x[j])) * _sgn((y[i] > y[j]) - (y[i] < y[j]))
            )
    den = math.fsum(untied_x) * math.fsum(untied_y)
    if den <= 0:
        return math.nan
    return max(-1.0, min(1.0, math.fsum(signed) / math.sqrt(den)))


# === kendall_tau_weighted: reference values ===


def test_seed_example_is_two_thirds() -> None:
    # Labels [1, 0, 1]; ideal rankings of docs (1, 2, 3) are (1, 3, 2) and (3, 1, 2).
    # Against (1, 3, 2): pair (1,2): sgn((1-2)(1-3)) = +1 -> 2
    #                    pair (1,3): sgn((1-3)(1-2)) = +1 -> 2
    #                    pair (2,3): sgn((2-3)(3-2)) = -1 -> 0
    # tau_K = (2 + 2 + 0) / (2 * 3) = 2/3; against (3, 1, 2) it is 1/3; RC = max = 2/3.
    assert kendall_tau_weighted([1, 0, 1]) == 2 / 3
    assert brute_rc([1, 0, 1], PAIR_WEIGHTS[None]) == 2 / 3


def test_hand_computed_named_schemes() -> None:
    # [1, 0, 1]: the only discordant pair is ranks (2, 3).
    # hyperbolic: W = (1 + 1/2) + (1 + 1/3) + (1/2 + 1/3) = 11/3, D = 1/2 + 1/3 = 5/6,
    #             RC = (11/3 - 5/6) / (11/3) = 17/22.
    assert math.isclose(kendall_tau_weighted([1, 0, 1], weights="hyperbolic"), 17 / 22)
    # reciprocal: W = 1/2 + 1/3 + 1/6 = 1, D = 1/6, RC = 5/6.
    assert math.isclose(kendall_tau_weighted([1, 0, 1], weights="reciprocal"), 5 / 6)
    # dcg: d(r) = 1/log2(r + 1): d(1) = 1, d(2) = 1/log2(3), d(3) = 1/2.
    #      W = (1 - d2) + (1 - 1/2) + (d2 - 1/2) = 1, D = d2 - 1/2, RC = 3/2 - 1/log2(3).
    assert math.isclose(kendall_tau_weighted([1, 0, 1], weights="dcg"), 1.5 - 1 / math.log2(3))
    # callable w(i, j) = j - i (+1 when i = 1): w(1,2) = 2, w(1,3) = 3, w(2,3) = 1;
    #      W = 6, D = 1, RC = 5/6.
    assert math.isclose(kendall_tau_weighted([1, 0, 1], weights=_custom), 5 / 6)


def test_hand_computed_reversed() -> None:
    # [0, 1, 2]: all three pairs discordant -> 0 for every scheme.
    for scheme in SCHEMES:
        assert kendall_tau_weighted([0, 1, 2], weights=scheme) == 0.0
    # [0, 0, 1]: pairs (1,3), (2,3) discordant, (1,2) tied -> concordant; RC = 1/3.
    assert kendall_tau_weighted([0, 0, 1]) == 1 / 3


def test_none_weights_is_exact_fraction() -> None:
    # [3, 1, 2, 0, 2]: discordant pairs (2,3), (2,5), (4,5) -> 3 of 10; RC = 7/10.
    assert kendall_tau_weighted([3, 1, 2, 0, 2]) == float(Fraction(7, 10))


def test_unjudged_counts_as_zero() -> None:
    assert kendall_tau_weighted([None, 1, 0]) == kendall_tau_weighted([0, 1, 0])
    assert kendall_tau_weighted([1, None, 0]) == 1.0


def test_edge_cases() -> None:
    assert kendall_tau_weighted([]) == 0.0
    assert kendall_tau_weighted([], weights="dcg") == 0.0
    assert kendall_tau_weighted([5]) == 1.0
    assert kendall_tau_weighted([0], weights=lambda i, j: -1.0) == 1.0  # never called
    assert kendall_tau_weighted([0, 1, 2], weights=lambda i, j: 0.0) == 1.0  # no weight at all
    # Only the pair (1, 2) carries weight and it is concordant.
    assert kendall_tau_weighted([2, 1, 3], weights=lambda i, j: float(i == 1 and j == 2)) == 1.0


# === kendall_tau_weighted: brute force and fast path vs plain ===

small_labels = st.lists(st.one_of(st.integers(0, 3), st.none()), min_size=0, max_size=6)


@pytest.mark.parametrize("scheme", SCHEMES + ["callable"])
@settings(max_examples=150, deadline=None)
@given(labels=small_labels)
def test_matches_brute_force(scheme: Optional[str], labels: List[Optional[int]]) -> None:
    if scheme == "callable":
        got = kendall_tau_weighted(labels, weights=_custom)
        want = brute_rc(labels, _custom)
    else:
        got = kendall_tau_weighted(labels, weights=scheme)
        want = brute_rc(labels, PAIR_WEIGHTS[scheme])
    assert close(got, want), (got, want)


@pytest.mark.parametrize("scheme", SCHEMES)
@settings(max_examples=100, deadline=None)
@given(labels=st.lists(st.floats(0, 4, allow_nan=False) | st.integers(0, 4), max_size=40))
def test_named_scheme_equals_its_callable(scheme: Optional[str], labels: List[float]) -> None:
    fast = kendall_tau_weighted(labels, weights=scheme)
    plain = kendall_tau_weighted(labels, weights=PAIR_WEIGHTS[scheme])
    assert close(fast, plain), (fast, plain)


# === kendall_tau_weighted: properties ===


@pytest.mark.parametrize("scheme", SCHEMES)
@given(labels=st.lists(st.integers(0, 4), max_size=30))
def test_range_and_perfect(scheme: Optional[str], labels: List[int]) -> None:
    value = kendall_tau_weighted(labels, weights=scheme)
    assert isinstance(value, float)
    assert 0.0 <= value <= 1.0
    if labels:
        assert kendall_tau_weighted(sorted(labels, reverse=True), weights=scheme) == 1.0
        if len(set(labels)) > 1:
            # The worst ranking has every label-distinct pair discordant.
            assert kendall_tau_weighted(sorted(labels), weights=scheme) < 1.0
        if scheme is None and len(labels) > 1:
            # Exactly: with unit weights the worst ranking keeps only the tied
            # pairs, RC = (pairs tied in label) / (all pairs), one rounding.
            n = len(labels)
            tied = sum(c * (c - 1) // 2 for c in Counter(labels).values())
            assert kendall_tau_weighted(sorted(labels)) == tied / (n * (n - 1) // 2)


@given(labels=st.lists(st.one_of(st.integers(0, 4), st.none()), max_size=20))
def test_input_not_mutated_and_iterables_accepted(labels: List[Optional[int]]) -> None:
    before = list(labels)
    value = kendall_tau_weighted(labels, weights="dcg")
    assert labels == before
    assert kendall_tau_weighted(tuple(labels), weights="dcg") == value
    assert kendall_tau_weighted(iter(labels), weights="dcg") == value
    assert kendall_tau_weighted(x for x in labels) == kendall_tau_weighted(labels)


# === kendall_tau_weighted: errors ===


def test_rc_errors() -> None:
    with pytest.raises(InvalidLabelError, match=r"labels\[1\] \(rank 2\) must be a finite non-negative"):
        kendall_tau_weighted([1, -1])
    with pytest.raises(InvalidLabelError, match=r"labels\[0\] \(rank 1\) must be a number or None"):
        kendall_tau_weighted(["1", 0])
    with pytest.raises(
        InvalidArgumentError,
        match=r"^unknown weighting scheme 'ndcg' for 'weights'; expected one of "
        r"'dcg', 'hyperbolic', 'reciprocal'$",
    ):
        kendall_tau_weighted([1, 0], weights="ndcg")
    with pytest.raises(InvalidArgumentError, match=r"'weights' must be None, a callable"):
        kendall_tau_weighted([1, 0], weights=3)  # type: ignore[arg-type]
    with pytest.raises(
        InvalidArgumentError,
        match=r"'weights' must return a finite non-negative number \(got -1 for ranks 1 and 2\)",
    ):
        kendall_tau_weighted([1, 0], weights=lambda i, j: -1)
    with pytest.raises(InvalidArgumentError, match=r"'weights' must return .*got nan for ranks"):
        kendall_tau_weighted([1, 0], weights=lambda i, j: math.nan)
    with pytest.raises(InvalidArgumentError, match=r"'weights' must return .*got str '1'"):
        kendall_tau_weighted([1, 0], weights=lambda i, j: "1")  # type: ignore[arg-type,return-value]


# === weighted_tau ===


def test_weighted_tau_reference_values() -> None:
    # The example of scipy's documentation, whose printed values we reproduce.
    x = [12, 2, 1, 12, 2]
    y = [1, 4, 7, 1, 0]
    assert close(weighted_tau(x, y), -0.56694968153682723)
    assert close(weighted_tau(x, y, additive=False), -0.62205716951801038)
    assert close(weighted_tau(x, y, weigher=lambda r: 1), -0.47140452079103173)
    assert close(weighted_tau(x, y, rank=None), -0.4157652301037516)
    assert close(weighted_tau(y, x, rank=None), -0.7181341329699028)


def test_weighted_tau_by_hand() -> None:
    # x = [1, 2, 3], y = [1, 3, 2], rank=False (r = index), hyperbolic weigher:
    # element weights 1, 1/2, 1/3; pairs (0,1): 3/2 concordant, (0,2): 4/3 concordant,
    # (1,2): 5/6 discordant; no ties. tau = (3/2 + 4/3 - 5/6) / (3/2 + 4/3 + 5/6) = 2 / (11/3).
    assert close(weighted_tau([1, 2, 3], [1, 3, 2], rank=False), 6 / 11)
    # Product: (1/2 + 1/3 - 1/6) / (1/2 + 1/3 + 1/6) = 2/3.
    assert close(weighted_tau([1, 2, 3], [1, 3, 2], rank=False, additive=False), 2 / 3)


def test_weighted_tau_edge_cases() -> None:
    assert math.isnan(weighted_tau([], []))
    assert math.isnan(weighted_tau([1], [2]))
    assert math.isnan(weighted_tau([1, 1, 1], [1, 2, 3]))
    assert math.isnan(weighted_tau([1, 2, 3], [0, 0, 0], rank=False))
    # All weight zero: 0/0.  scipy returns -1.0 here (an artefact of clipping NaN); we say NaN.
    assert math.isnan(weighted_tau([1, 2, 3], [3, 1, 2], weigher=lambda r: 0.0))
    assert close(weighted_tau([1, 2, 3], [1, 2, 3]), 1.0)
    assert close(weighted_tau([1, 2, 3], [3, 2, 1]), -1.0)


@st.composite
def score_pairs(draw: Callable[..., Any]) -> Any:
    """Two equal-length score lists with many ties: small ints or one-decimal floats."""
    n = draw(st.integers(0, 25))
    ints = st.integers(0, 3)
    floats = st.floats(-2, 2, allow_nan=False).map(lambda v: round(v, 1))
    x = draw(st.lists(draw(st.sampled_from([ints, floats])), min_size=n, max_size=n))
    y = draw(st.lists(draw(st.sampled_from([ints, floats])), min_size=n, max_size=n))
    return x, y


WEIGHERS: Dict[str, Optional[Callable[[int], float]]] = {
    "hyperbolic": None,
    "constant": lambda r: 1.0,
    "square": lambda r: 1.0 / (r + 1) ** 2,
    "exp": lambda r: math.exp(-r / 3),
}


@pytest.mark.parametrize("weigher", list(WEIGHERS))
@pytest.mark.parametrize("additive", [True, False])
@pytest.mark.parametrize("rank", [True, False, None, "explicit"])
@settings(max_examples=60, deadline=None)
@given(xy=score_pairs(), data=st.data())
def test_weighted_tau_matches_scipy(
    weigher: str, additive: bool, rank: Any, xy: Any, data: Any
) -> None:
    stats = require("scipy.stats")
    x, y = xy
    their_rank = rank
    if rank == "explicit":
        rank = data.draw(st.lists(st.integers(0, 8), min_size=len(x), max_size=len(x)))
        # scipy >= 1.16 reduces an explicit rank to dense ranks (0, 1, ...) before
        # weighing, as irmetrics does; scipy 1.13 to 1.15 (the last for Python 3.9
        # and 3.10) weighs the values as given. Dense ranks ask every scipy the same
        # question; irmetrics gets the values as drawn.
        their_rank = [sorted(set(rank)).index(r) for r in rank]
    w = WEIGHERS[weigher]
    ours = weighted_tau(x, y, weigher=w, additive=additive, rank=rank)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy warns about samples too small for tau
        theirs = float(stats.weightedtau(x, y, rank=their_rank, weigher=w, additive=additive).statistic)
    assert close(ours, theirs), (ours, theirs)


@pytest.mark.parametrize("additive", [True, False])
@settings(max_examples=100, deadline=None)
@given(xy=score_pairs(), data=st.data())
def test_weighted_tau_matches_pair_definition(additive: bool, xy: Any, data: Any) -> None:
    x, y = xy
    rank = data.draw(st.permutations(range(len(x))))
    ours = weighted_tau(x, y, rank=rank, additive=additive)
    want = brute_weighted_tau(x, y, rank, lambda r: 1 / (r + 1), additive)
    assert close(ours, want), (ours, want)


@settings(max_examples=100, deadline=None)
@given(xy=score_pairs())
def test_weighted_tau_constant_weigher_is_kendall_tau_b(xy: Any) -> None:
    stats = require("scipy.stats")
    x, y = xy
    if len(set(x)) < 2 or len(set(y)) < 2:
        return
    ours = weighted_tau(x, y, weigher=lambda r: 1.0)
    assert close(ours, float(stats.kendalltau(x, y).statistic)), ours


@given(xy=score_pairs())
def test_weighted_tau_properties(xy: Any) -> None:
    x, y = xy
    x_before, y_before = list(x), list(y)
    value = weighted_tau(x, y)
    assert (x, y) == (x_before, y_before)
    if not math.isnan(value):
        assert -1.0 <= value <= 1.0
    # rank=True averages both directions, so it is symmetric.
    assert close(weighted_tau(y, x), value)
    assert close(weighted_tau(iter(x), tuple(y)), value)
    # Reversing y with a fixed rank flips the sign.
    assert close(weighted_tau(x, [-v for v in y], rank=False), -weighted_tau(x, y, rank=False))
    if len(set(x)) > 1:
        assert close(weighted_tau(x, x), 1.0)


# === weighted_tau: fast paths vs plain versions ===

tied_values = st.lists(st.integers(0, 4) | st.floats(-2, 2).map(lambda v: round(v, 1)), max_size=60)


def brute_discordant_counts(b: Sequence[float]) -> List[int]:
    """For each k: earlier and larger, or later and smaller (the discordant partners on the walk)."""
    n = len(b)
    return [
        sum(1 for j in range(n) if (j < k and b[j] > b[k]) or (j > k and b[j] < b[k]))
        for k in range(n)
    ]


@settings(max_examples=200, deadline=None)
@given(b=tied_values)
def test_discordant_counts_match_definition(b: List[float]) -> None:
    want = brute_discordant_counts(b)
    assert correlation._discordant_counts(b) == want
    # The same counts through the plain Fenwick version.
    with mock.patch.object(correlation, "_BISECT_COUNTS_MAX", -1):
        assert correlation._discordant_counts(b) == want


@settings(max_examples=200, deadline=None)
@given(perm=st.integers(0, 80).flatmap(lambda n: st.permutations(range(n))))
def test_earlier_smaller_bisect_equals_fenwick(perm: List[int]) -> None:
    fast = correlation._earlier_smaller_bisect(perm)
    assert fast == correlation._earlier_smaller_fenwick(perm)
    assert fast == [sum(1 for j in range(k) if perm[j] < perm[k]) for k in range(len(perm))]


@settings(max_examples=200, deadline=None)
@given(b=tied_values, data=st.data())
def test_discordant_weight_bisect_equals_fenwick(b: List[float], data: Any) -> None:
    w = data.draw(st.lists(st.floats(0, 3), min_size=len(b), max_size=len(b)))
    n = len(b)
    want = math.fsum(w[j] * w[k] for k in range(n) for j in range(k) if b[j] > b[k])
    fast = correlation._discordant_weight_bisect(b, w)
    plain = correlation._discordant_weight_fenwick(b, w)
    assert close(fast, want) and close(plain, want), (fast, plain, want)


def _random_scores(n: int, tied: bool, seed: int) -> List[float]:
    rng = random.Random(seed)
    if tied:
        return [rng.randint(0, 4) for _ in range(n)]
    return [rng.random() for _ in range(n)]


@pytest.mark.parametrize("additive", [True, False])
@pytest.mark.parametrize("rank", [True, False, None])
@pytest.mark.parametrize("n, tied", [(150, True), (150, False), (700, True), (700, False)])
def test_weighted_tau_plain_paths_agree_at_larger_n(
    additive: bool, rank: Any, n: int, tied: bool
) -> None:
    # n above the multiplicative bisect threshold and below it; both forced to Fenwick too.
    stats = require("scipy.stats")
    x = _random_scores(n, tied, seed=n)
    y = _random_scores(n, tied, seed=n + 1)
    theirs = float(stats.weightedtau(x, y, rank=rank, additive=additive).statistic)
    ours = weighted_tau(x, y, rank=rank, additive=additive)
    with mock.patch.multiple(correlation, _BISECT_COUNTS_MAX=-1, _BISECT_WEIGHT_MAX=-1):
        plain = weighted_tau(x, y, rank=rank, additive=additive)
    assert close(ours, theirs) and close(plain, theirs), (ours, plain, theirs)


class _Score(float):
    """A float subclass: not a plain float, so it takes the per-element checks."""


def test_weighted_tau_unusual_scores_take_the_plain_checks() -> None:
    x = [12, 2, 1, 12, 2]
    y = [1, 4, 7, 1, 0]
    want = weighted_tau(x, y)
    assert weighted_tau([_Score(v) for v in x], y) == want
    assert weighted_tau([float(v) for v in x], y) == want
    # An int too large for a float: math.isfinite overflows, the checks accept it.
    assert weighted_tau([10**400, 2, 1, 10**400, 2], y) == want
    assert weighted_tau([10**400, 2.0, 1, 10**400, 2.0], y) == want


def test_weighted_tau_errors() -> None:
    with pytest.raises(
        InvalidArgumentError,
        match=r"^'x' and 'y' must have the same length "
        r"\(got 2 and 3\)$",
    ):
        weighted_tau([1, 2], [1, 2, 3])
    with pytest.raises(
        InvalidArgumentError,
        match=r"^x\[1\] must be a finite real number "
        r"\(got nan\)$",
    ):
        weighted_tau([1, math.nan], [1, 2])
    with pytest.raises(
        InvalidArgumentError,
        match=r"^y\[0\] must be a finite real number "
        r"\(got bool True\)$",
    ):
        weighted_tau([1, 2], [True, 2])
    with pytest.raises(
        InvalidArgumentError,
        match=r"y\[1\] must be a finite real number "
        r"\(got inf\)",
    ):
        weighted_tau([1, 2], [1, math.inf])
    with pytest.raises(InvalidArgumentError, match=r"^x\[2\] must be a finite real number \(got -inf\)$"):
        weighted_tau([1, 2.5, -math.inf], [1, 2, 3])
    with pytest.raises(InvalidArgumentError, match=r"^x\[1\] must be a finite real number \(got str '2'\)$"):
        weighted_tau([1, "2"], [1, 2])
    with pytest.raises(InvalidArgumentError, match=r"'x' must be an iterable of numbers"):
        weighted_tau("12", [1, 2])
    with pytest.raises(InvalidArgumentError, match=r"'y' must be an iterable of numbers"):
        weighted_tau([1, 2], 3)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match=r"'weigher' must be None or a callable"):
        weighted_tau([1, 2], [1, 2], weigher=2)  # type: ignore[arg-type]
    with pytest.raises(
        InvalidArgumentError,
        match=r"'weigher' must return a finite non-negative "
        r"number \(got -1 for rank \d\)",
    ):
        weighted_tau([1, 2], [1, 2], weigher=lambda r: -1)
    with pytest.raises(InvalidArgumentError, match=r"'additive' must be a bool \(got int 1\)"):
        weighted_tau([1, 2], [1, 2], additive=1)  # type: ignore[arg-type]
    with pytest.raises(
        InvalidArgumentError,
        match=r"'rank' must have the same length as 'x' "
        r"and 'y', 2 \(got 3\)",
    ):
        weighted_tau([1, 2], [1, 2], rank=[0, 1, 2])
    with pytest.raises(
        InvalidArgumentError,
        match=r"rank\[1\] must be a non-negative int "
        r"\(got int -1\)",
    ):
        weighted_tau([1, 2], [1, 2], rank=[0, -1])
    with pytest.raises(
        InvalidArgumentError,
        match=r"rank\[0\] must be a non-negative int "
        r"\(got float 0.5\)",
    ):
        weighted_tau([1, 2], [1, 2], rank=[0.5, 1])  # type: ignore[list-item]
    with pytest.raises(InvalidArgumentError, match=r"'rank' must be True, False, None"):
        weighted_tau([1, 2], [1, 2], rank="01")  # type: ignore[arg-type]


# === Rankings are ordered; bools are no RC labels (issue 18, finding 9) ======


def test_kendall_tau_weighted_refuses_bools_as_its_docs_say():
    # It used to return 1.0 for [True, False]; docs/correlation.md says bools raise.
    with pytest.raises(InvalidLabelError, match=r"^labels\[0\] \(rank 1\) must be a number or "
                       r"None, not a bool \(got True\)"):
        kendall_tau_weighted([True, False])
    with pytest.raises(InvalidLabelError, match=r"labels\[1\] \(rank 2\) .*not a bool"):
        kendall_tau_weighted([1, False], weights="dcg")


def test_kendall_tau_weighted_refuses_sets_and_dicts():
    from irmetrics.errors import UnorderedRankingError

    for labels in ({2, 0, 1}, frozenset({2, 0, 1}), {0: 2, 1: 0}, {"a": 1}.values()):
        with pytest.raises(UnorderedRankingError, match=r"^'labels' must be a sequence of "
                           r"relevance labels in rank order") as info:
            kendall_tau_weighted(labels)
        assert isinstance(info.value, TypeError)


def test_weighted_tau_refuses_unordered_scores_and_ranks():
    from irmetrics.errors import UnorderedRankingError

    with pytest.raises(UnorderedRankingError, match=r"^'x' must be a sequence of scores, one per "
                       r"element \(a list or tuple\), not a set"):
        weighted_tau({1, 2, 3}, [1, 2, 3])
    with pytest.raises(UnorderedRankingError, match=r"^'y' must be .* not a dict "):
        weighted_tau([1, 2, 3], {0: 1, 1: 2, 2: 3})
    with pytest.raises(UnorderedRankingError, match=r"^'rank' must be a sequence of ranks"):
        weighted_tau([1, 2, 3], [1, 2, 3], rank=frozenset({0, 1, 2}))
    # Generators keep working: x and y agree, tau = 1.
    assert weighted_tau((v for v in [1, 2, 3]), iter([10, 20, 30])) == 1.0


def test_range_and_perfect_exact_values() -> None:
    # labels 1, 0, 2, 0: pairs (1-based ranks) and whether discordant
    # (l_u < l_v): (1,2) no, (1,3) yes, (1,4) no, (2,3) yes, (2,4) no (tie),
    # (3,4) no.  Unit weights: 1 - 2/6 = 2/3.
    assert kendall_tau_weighted([1, 0, 2, 0]) == 4 / 6
    # reciprocal w = 1/(ij): total 1/2 + 1/3 + 1/4 + 1/6 + 1/8 + 1/12 = 35/24;
    # discordant 1/3 + 1/6 = 1/2 = 12/24; RC = 23/35.
    assert kendall_tau_weighted([1, 0, 2, 0], weights="reciprocal") == pytest.approx(23 / 35, rel=1e-15)
    # hyperbolic w = 1/i + 1/j: total (n - 1)(1 + 1/2 + 1/3 + 1/4) = 3 * 25/12 = 25/4;
    # discordant (1 + 1/3) + (1/2 + 1/3) = 13/6; RC = 1 - (13/6)/(25/4) = 1 - 26/75 = 49/75.
    assert kendall_tau_weighted([1, 0, 2, 0], weights="hyperbolic") == pytest.approx(49 / 75, rel=1e-15)
    assert kendall_tau_weighted([2, 1, 0, 0], weights="dcg") == 1.0
    assert kendall_tau_weighted([0, 1]) == 0.0   # the one pair discordant
