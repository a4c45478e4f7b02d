"""Rank correlation between rankings.

Both functions are pure Python and take any iterable; neither mutates its input.

Functions
---------
kendall_tau_weighted
    Liu's rank correlation RC: weighted Kendall tau between a ranking, given
    as relevance labels in rank order, and the best ideal ranking.  Result in
    [0, 1].  O(n log n) for the built-in weights, O(n^2) for a callable.
weighted_tau
    Vigna's weighted tau between two score sequences, the same value as
    ``scipy.stats.weightedtau(x, y, ...).statistic``.  Result in [-1, 1] or
    NaN when undefined.  O(n log n).
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections import Counter
from itertools import repeat
from numbers import Integral
from operator import itemgetter, mul
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

from ._checks import as_number, check_labels, check_list, is_real, kind_of, shown
from .errors import InvalidArgumentError

__all__ = ["kendall_tau_weighted", "weighted_tau"]

PairWeight = Callable[[int, int], float]
Weigher = Callable[[int], float]
Score = Union[int, float]

# The position weights of the built-in pair schemes (1-based rank -> weight).
_WEIGHT_SCHEMES = ("dcg", "hyperbolic", "reciprocal")


# === Earlier entries in lower slots (a Fenwick tree) ===


def _earlier_below(
    slots: Iterable[int], size: int, weights: Iterable[float]
) -> Iterator[Tuple[int, float]]:
    """For each entry in turn (a slot in 0 .. size-1 and a weight), the number
    and the weight sum of the earlier entries in lower slots, in O(log size)
    each: prefix sums over slots kept in a Fenwick tree."""
    count = [0] * (size + 1)
    weight = [0.0] * (size + 1)
    for slot, w in zip(slots, weights):
        below = 0
        total = 0.0
        i = slot
        while i > 0:
            below += count[i]
            total += weight[i]
            i -= i & -i
        yield below, total
        i = slot + 1
        while i <= size:
            count[i] += 1
            weight[i] += w
            i += i & -i


def _dense_ranks(values: Sequence[Any]) -> Tuple[List[int], int]:
    """Map each value to its 0-based dense rank (ascending); also return the number of ranks."""
    index = {v: r for r, v in enumerate(sorted(set(values)))}
    return [index[v] for v in values], len(index)


# === Rank correlation RC (Liu) ===


def _check_pair_weights(weights: Any) -> Union[None, str, PairWeight]:
    if weights is None or callable(weights):
        return weights  # type: ignore[no-any-return]
    expected = ", ".join(repr(s) for s in _WEIGHT_SCHEMES)
    if isinstance(weights, str):
        if weights in _WEIGHT_SCHEMES:
            return weights
        raise InvalidArgumentError(
            f"unknown weighting scheme {weights!r} for 'weights'; expected one of {expected}"
        )
    raise InvalidArgumentError(
        f"'weights' must be None, a callable w(i, j) or one of {expected} "
        f"(got {kind_of(weights)} {weights!r})"
    )


def _weight(value: Any, name: str, ranks: Tuple[int, ...]) -> float:
    """A weight the user's *name* returned for *ranks* (a rank or a pair of
    ranks): a finite non-negative number."""
    v = as_number(value)
    if not 0.0 <= v < math.inf:
        where = f"ranks {ranks[0]} and {ranks[1]}" if len(ranks) == 2 else f"rank {ranks[0]}"
        raise InvalidArgumentError(
            f"{name!r} must return a finite non-negative number (got {shown(value)} for {where})"
        )
    return v


def _rc_named(labels: Sequence[Score], scheme: str) -> Tuple[float, float]:
    """Total and discordant pair weight for a built-in scheme, in O(n log n)."""
    n = len(labels)
    if scheme == "dcg":
        f = [1.0 / math.log2(i + 1) for i in range(1, n + 1)]
        # w(i, j) = f(i) - f(j) for i < j, as f decreases: f(i) is added
        # (n - i) times and subtracted (i - 1) times.
        total = math.fsum(f[i - 1] * (n + 1 - 2 * i) for i in range(1, n + 1))
    else:
        f = [1.0 / i for i in range(1, n + 1)]
        if scheme == "hyperbolic":
            # w(i, j) = f(i) + f(j): every rank takes part in n - 1 pairs.
            total = (n - 1) * math.fsum(f)
        else:
            # w(i, j) = f(i) * f(j), summed as f(j) times the sum of f before j.
            terms = []
            prefix = 0.0
            for fj in f:
                terms.append(fj * prefix)
                prefix += fj
            total = math.fsum(terms)
    slots, size = _dense_ranks(labels)
    discordant: List[float] = []
    # Earlier positions u < v with a strictly smaller label: each (u, v) is discordant.
    for fv, (count, weight) in zip(f, _earlier_below(slots, size, f)):
        if count:
            if scheme == "dcg":
                discordant.append(weight - count * fv)
            elif scheme == "hyperbolic":
                discordant.append(weight + count * fv)
            else:
                discordant.append(weight * fv)
    return total, math.fsum(discordant)


def _rc_callable(labels: Sequence[Score], weights: PairWeight) -> Tuple[float, float]:
    """Total and discordant pair weight for an arbitrary w(i, j), in O(n^2)."""
    n = len(labels)
    every: List[float] = []
    discordant: List[float] = []
    for u in range(n):
        lu = labels[u]
        for v in range(u + 1, n):
            w = _weight(weights(u + 1, v + 1), "weights", (u + 1, v + 1))
            every.append(w)
            if lu < labels[v]:
                discordant.append(w)
    return math.fsum(every), math.fsum(discordant)


def kendall_tau_weighted(
    labels: Iterable[Any], *, weights: Union[None, str, PairWeight] = None
) -> float:
    """Rank correlation RC: weighted Kendall tau against the best ideal ranking.

    Liu, *Learning to Rank for Information Retrieval* (2011), section 1.3.3::

        tau_K(pi, pi_l) = sum_{u<v} w(u,v) (1 + sgn((pi(u)-pi(v)) (pi_l(u)-pi_l(v))))
                          / (2 sum_{u<v} w(u,v))
        RC = max over ideal rankings pi_l of tau_K(pi, pi_l)

    where *pi* is the given ranking and an ideal ranking *pi_l* sorts the
    documents by decreasing label, ties in any order.  The maximum puts every
    tied pair in its given order, so a pair of ranks u < v is discordant
    exactly when ``labels[u] < labels[v]`` and::

        RC = 1 - (sum of w(u, v) over discordant pairs) / (sum of w(u, v) over all pairs)

    Parameters
    ----------
    labels
        Relevance labels in rank order (rank 1 first): non-negative numbers,
        ``None`` for an unjudged document, which counts as label 0.  Bools
        are refused (:class:`~irmetrics.errors.InvalidLabelError`): RC
        compares graded labels.  Sets, dicts and DataFrames are refused
        (:class:`~irmetrics.errors.UnorderedRankingError`): they have no
        rank order.
    weights
        The weight w(i, j) of the pair at 1-based ranks i < j of the given
        ranking:

        - ``None``: every pair weighs 1 (Kendall's tau rescaled to [0, 1]);
        - ``"dcg"``: w(i, j) = 1/log2(i + 1) - 1/log2(j + 1), the difference
          of the DCG discounts of the two ranks;
        - ``"hyperbolic"``: w(i, j) = 1/i + 1/j (Vigna's additive hyperbolic
          weighing);
        - ``"reciprocal"``: w(i, j) = 1/(i j);
        - a callable ``w(i, j)`` returning a finite non-negative number
          (called once per pair, so O(n^2)).

    Notes
    -----
    Edge cases: no labels give 0.0; one label gives 1.0 (no pair, the ranking
    is trivially ideal); when every pair weighs 0 the result is 1.0 (no pair
    weighs against the ranking).  With ``weights=None`` the value is computed
    from exact integer counts, so it is the correctly rounded fraction.

    Examples
    --------
    >>> kendall_tau_weighted([1, 0, 1])       # pairs (1,2), (1,3) agree; (2,3) not
    0.6666666666666666
    >>> kendall_tau_weighted([2, 1, 1, 0])    # a perfect ranking
    1.0
    >>> kendall_tau_weighted([1, 0, 1], weights="reciprocal")  # 1 - (1/6) / 1
    0.8333333333333334
    >>> kendall_tau_weighted([0, 1], weights=lambda i, j: 1.0 / j)
    0.0
    >>> kendall_tau_weighted([])
    0.0
    """
    checked = check_labels(labels, allow_bool=False)
    scheme = _check_pair_weights(weights)
    values: List[Score] = [0 if x is None else x for x in checked]
    n = len(values)
    if n == 0:
        return 0.0
    if n == 1:
        return 1.0
    if scheme is None:
        pairs = n * (n - 1) // 2
        # A pair u < v is discordant when labels[u] < labels[v]: with the
        # labels negated, an earlier larger value, which _discordant_counts
        # counts at both of its ends.  Integer arithmetic: one correctly
        # rounded division.
        discordant_pairs = sum(_discordant_counts([-x for x in values])) // 2
        return (pairs - discordant_pairs) / pairs
    if isinstance(scheme, str):
        total, discordant = _rc_named(values, scheme)
    else:
        total, discordant = _rc_callable(values, scheme)
    if total == 0.0:
        return 1.0
    return min(1.0, max(0.0, (total - discordant) / total))


# === Weighted tau (Vigna) ===

def _check_scores(values: Any, name: str) -> List[Score]:
    items = check_list(values, name, "an iterable of numbers",
                       "a sequence of scores, one per element (a list or tuple)")
    for i, x in enumerate(items):
        kind = type(x)
        if kind is int or (kind is float and math.isfinite(x)):
            continue  # the common case, checked first: a plain score
        if is_real(x) and isinstance(x, Integral):  # an int too large for a float is fine
            items[i] = int(x)
        elif is_real(x) and math.isfinite(x):
            items[i] = float(x)
        else:
            raise InvalidArgumentError(f"{name}[{i}] must be a finite real number (got {shown(x)})")
    return items


def _check_rank(rank: Any, n: int) -> Optional[List[int]]:
    """Validate an explicit rank array and reduce it to dense 0-based ranks."""
    items = check_list(rank, "rank", "True, False, None or an iterable of non-negative ints",
                       "a sequence of ranks, one per element (a list or tuple)")
    if len(items) != n:
        raise InvalidArgumentError(
            f"'rank' must have the same length as 'x' and 'y', {n} (got {len(items)})"
        )
    for i, r in enumerate(items):
        if not is_real(r) or not isinstance(r, Integral) or r < 0:
            raise InvalidArgumentError(
                f"rank[{i}] must be a non-negative int (got {kind_of(r)} {r!r})"
            )
    # Like scipy, only the order of the given ranks matters: they become dense ranks.
    return _dense_ranks([int(r) for r in items])[0]


def _weigh(rank: Iterable[int], weigher: Optional[Weigher]) -> List[float]:
    """The weight of each rank; ``None`` is the hyperbolic weigher 1 / (r + 1)."""
    if weigher is None:
        # Always finite and positive: nothing to check.
        return [1.0 / (r + 1) for r in rank]
    return [_weight(weigher(r), "weigher", (r,)) for r in rank]


def _walk(
    a: Sequence[Score], b: Sequence[Score]
) -> Tuple[List[Score], List[Score], List[int]]:
    """a and b in increasing lexicographic (a, b) order, and the indices in that order.

    Equal pairs keep their index order.  Read backwards, this order is the
    decreasing lexicographic rank that scipy uses (rank 0 = the largest pair,
    of equal pairs the later index first): position k has rank n - 1 - k.
    """
    sorted_a, sorted_b, order = map(list, zip(*sorted(zip(a, b, range(len(a))))))
    return sorted_a, sorted_b, order


def _tie_weight(groups: Iterable[Tuple[float, float]]) -> float:
    """Product weight of the pairs inside each group, from its (sum, sum of squares)."""
    return math.fsum((s * s - sq) / 2 for s, sq in groups)


def _groups(keys: Iterable[Any], w: Sequence[float]) -> List[Tuple[float, float]]:
    """The (sum, sum of squares) of the weights of each group of equal keys."""
    acc: Dict[Any, List[float]] = {}
    for key, wi in zip(keys, w):
        acc.setdefault(key, []).append(wi)
    return [(math.fsum(ws), math.fsum(x * x for x in ws)) for ws in acc.values()]


# --- Discordance along the walk ---
#
# Along the walk (increasing (a, b)), a pair j < k is discordant exactly when
# b[j] > b[k]: then a[j] < a[k], since within equal a the walk has b in
# increasing order.  Each quantity below has a plain O(n log n) Fenwick
# version and a bisect version.  C-level bisect and list.insert make the
# latter the faster for small n, but each insert moves O(n) pointers, so it
# loses for large n; the thresholds are where the two cross.  The tests
# check each pair of versions against each other and against brute force.

_BISECT_COUNTS_MAX = 30_000
_BISECT_WEIGHT_MAX = 600


def _discordant_counts(b: Sequence[Score]) -> List[int]:
    """For each k, the number of j with b[j] > b[k] for j < k, or b[j] < b[k] for j > k."""
    # Breaking the ties in b by position changes neither count: an earlier
    # equal value then ranks below b[k] (not "earlier and larger"), a later
    # one above (not "later and smaller").  So rank the elements by
    # (b, position), a permutation without ties: if `before` of the k earlier
    # elements rank below k, then k - before earlier ones rank above it and
    # rank[k] - before later ones below it.
    n = len(b)
    rank = [0] * n
    for r, k in enumerate(sorted(range(n), key=b.__getitem__)):  # a stable sort
        rank[k] = r
    before = _earlier_smaller(rank)
    return [k + r - 2 * e for k, r, e in zip(range(n), rank, before)]


def _earlier_smaller(perm: Sequence[int]) -> List[int]:
    """For each k, the number of j < k with perm[j] < perm[k], for a permutation of 0 .. n-1."""
    if len(perm) <= _BISECT_COUNTS_MAX:
        return _earlier_smaller_bisect(perm)
    return _earlier_smaller_fenwick(perm)


def _earlier_smaller_fenwick(perm: Sequence[int]) -> List[int]:
    return [count for count, _ in _earlier_below(perm, len(perm), repeat(0.0))]


def _earlier_smaller_bisect(perm: Sequence[int]) -> List[int]:
    seen: List[int] = []  # the earlier values, sorted
    out: List[int] = []
    for p in perm:
        i = bisect_left(seen, p)
        seen.insert(i, p)
        out.append(i)
    return out


def _discordant_weight(b: Sequence[Score], w: Sequence[float]) -> float:
    """The sum of w[j] * w[k] over the pairs j < k with b[j] > b[k]."""
    if len(b) <= _BISECT_WEIGHT_MAX:
        return _discordant_weight_bisect(b, w)
    return _discordant_weight_fenwick(b, w)


def _discordant_weight_fenwick(b: Sequence[Score], w: Sequence[float]) -> float:
    slots, size = _dense_ranks(b)
    # Slots counted down from the largest b: "earlier and larger" is "earlier and lower".
    down = [size - 1 - s for s in slots]
    parts: List[float] = []
    for wk, (_, weight) in zip(w, _earlier_below(down, size, w)):
        if weight:
            parts.append(wk * weight)
    return math.fsum(parts)


def _discordant_weight_bisect(b: Sequence[Score], w: Sequence[float]) -> float:
    seen: List[Score] = []  # the earlier values, sorted
    seen_w: List[float] = []  # their weights, in the same order
    parts: List[float] = []
    for v, wk in zip(b, w):
        i = bisect_right(seen, v)
        if i < len(seen):
            # Earlier and larger.  A plain sum of non-negative terms is
            # accurate to n ulps, and much faster than fsum here.
            parts.append(wk * sum(seen_w[i:]))
        seen.insert(i, v)
        seen_w.insert(i, wk)
    return math.fsum(parts)


# --- Tau from the walk ---


def _partner_counts(
    a: Sequence[Score], b: Sequence[Score]
) -> Tuple[List[int], List[int], List[int]]:
    """Along the walk of (a, b): for each element, its partners untied in a,
    untied in b, and concordant minus discordant.

    With additive weights a pair weighs w[i] + w[j], so every sum over pairs
    is a sum over elements of w[i] times such a count: exact integers, then
    one fsum each, without the cancellation of T - U - V + T_ab - 2 D.
    """
    n = len(a)
    a_count = Counter(a)
    b_count = Counter(b)
    tied_a = list(map(a_count.__getitem__, a))  # the element itself included
    tied_b = list(map(b_count.__getitem__, b))
    tied_ab: Iterable[int]
    if len(a_count) == n or len(b_count) == n:
        tied_ab = repeat(1, n)  # no pair is tied in both
    else:
        pairs = list(zip(a, b))
        tied_ab = map(Counter(pairs).__getitem__, pairs)
    disc = _discordant_counts(b)
    untied_a = [n - m for m in tied_a]
    untied_b = [n - m for m in tied_b]
    # The partners tied in neither are concordant or discordant.
    signed = [u - q + r - 2 * d for u, q, r, d in zip(untied_a, tied_b, tied_ab, disc)]
    return untied_a, untied_b, signed


def _additive_tau(
    w: Sequence[float], untied_a: Sequence[int], untied_b: Sequence[int], signed: Sequence[int]
) -> float:
    """Vigna's additive tau from the weights and the :func:`_partner_counts` of the walk."""
    den_a = math.fsum(map(mul, w, untied_a))
    den_b = math.fsum(map(mul, w, untied_b))
    return _tau(math.fsum(map(mul, w, signed)), den_a, den_b)


def _tau(num: float, den_a: float, den_b: float) -> float:
    """``num / sqrt(den_a den_b)``, clipped to [-1, 1]."""
    if not (den_a > 0.0 and den_b > 0.0):
        return math.nan  # a constant a or b, or no weight on the untied pairs
    return min(1.0, max(-1.0, num / math.sqrt(den_a) / math.sqrt(den_b)))


def _product_tau(a: Sequence[Score], b: Sequence[Score], w: Sequence[float]) -> float:
    """Vigna's tau with pair weight w[i] * w[j]; a, b and w in the order of the walk."""
    n = len(w)
    a_ties = n - len(set(a))
    b_ties = n - len(set(b))
    if a_ties == n - 1 or b_ties == n - 1:
        return math.nan  # a constant a or b
    tot = _tie_weight([(math.fsum(w), math.fsum(x * x for x in w))])  # one group of all
    # Without ties no pair is inside a group: skip the grouping.
    u = _tie_weight(_groups(a, w)) if a_ties else 0.0
    v = _tie_weight(_groups(b, w)) if b_ties else 0.0
    t = _tie_weight(_groups(zip(a, b), w)) if a_ties and b_ties else 0.0
    d = _discordant_weight(b, w)
    return _tau(math.fsum([tot, -u, -v, t, -2.0 * d]), tot - u, tot - v)


def weighted_tau(
    x: Iterable[Any],
    y: Iterable[Any],
    *,
    weigher: Optional[Weigher] = None,
    additive: bool = True,
    rank: Union[bool, None, Iterable[int]] = True,
) -> float:
    """Vigna's weighted tau between two score sequences.

    Vigna, "A weighted correlation index for rankings with ties", WWW 2015.
    Each element i gets a rank r(i) (0 = most important) and a weight
    ``weigher(r(i))``; a pair weighs the sum (``additive=True``) or the product
    of its two weights.  With C and D the weight of the concordant and
    discordant pairs, T the total weight, U and V the weight of the pairs
    tied in x and in y::

        tau = (C - D) / sqrt((T - U) (T - V))

    This is the value of ``scipy.stats.weightedtau(x, y, rank=rank,
    weigher=weigher, additive=additive).statistic`` (clipped to [-1, 1]).

    Parameters
    ----------
    x, y
        Scores of the same elements: finite real numbers (bools rejected),
        the same length.  Higher score means more important.
    weigher
        Maps a 0-based rank to a finite non-negative weight; ``None`` is the
        hyperbolic weigher ``1 / (r + 1)``.
    additive
        Combine the weights of a pair by sum (True) or product (False).
    rank
        ``True``: the mean of the values with the rank by decreasing
        lexicographic (x, y) and by decreasing lexicographic (y, x);
        ``None``: the decreasing lexicographic (x, y) rank only;
        ``False``: the element's index is its rank;
        an iterable of non-negative ints, one per element: only their order
        matters (they are reduced to dense ranks 0, 1, 2, ... as scipy does).

    Notes
    -----
    Edge cases: empty input, a constant x or a constant y give NaN (as scipy);
    so does a zero denominator (every pair untied in x, or in y, weighs 0),
    where scipy returns -1.0.  NaN scores are rejected (scipy treats them as
    the smallest score).  Length mismatch raises
    :class:`~irmetrics.errors.InvalidArgumentError`.

    Examples
    --------
    >>> round(weighted_tau([12, 2, 1, 12, 2], [1, 4, 7, 1, 0]), 12)
    -0.566949681537
    >>> round(weighted_tau([12, 2, 1, 12, 2], [1, 4, 7, 1, 0], additive=False), 12)
    -0.622057169518
    >>> round(weighted_tau([12, 2, 1, 12, 2], [1, 4, 7, 1, 0], rank=None), 12)
    -0.415765230104
    >>> weighted_tau([1, 2, 3], [10, 20, 30])
    1.0
    >>> weighted_tau([1, 1, 1], [1, 2, 3])
    nan
    """
    xs = _check_scores(x, "x")
    ys = _check_scores(y, "y")
    n = len(xs)
    if len(ys) != n:
        raise InvalidArgumentError(f"'x' and 'y' must have the same length (got {n} and {len(ys)})")
    if weigher is not None and not callable(weigher):
        raise InvalidArgumentError(
            f"'weigher' must be None or a callable (got {kind_of(weigher)} {weigher!r})"
        )
    if not isinstance(additive, bool):
        raise InvalidArgumentError(
            f"'additive' must be a bool (got {kind_of(additive)} {additive!r})"
        )
    explicit: Optional[List[int]] = None
    if rank is not True and rank is not False and rank is not None:
        explicit = _check_rank(rank, n)
    if n < 2:
        return math.nan  # no pair
    a, b, order = _walk(xs, ys)
    if rank is True or rank is None:
        # Walk position k has the lexicographic rank n - 1 - k.
        w = _weigh(range(n), weigher)[::-1]
    else:
        by_element = _weigh(range(n) if explicit is None else explicit, weigher)
        w = [by_element[i] for i in order]
    if not additive:
        first = _product_tau(a, b, w)
    else:
        counts = _partner_counts(a, b)
        first = _additive_tau(w, *counts)
    if rank is not True:
        return first
    # The other direction walks (y, x), with the same weight at each position.
    # Equal pairs are in index order along the first walk too, so the walk of
    # (b, a) lists the positions of the first walk in the order of the second.
    a, b, back = _walk(b, a)
    if not additive:
        second = _product_tau(a, b, w)
    else:
        # Partner counts belong to elements, not directions: reorder, swapped.
        take = itemgetter(*back)
        untied_x, untied_y, signed = counts
        second = _additive_tau(w, take(untied_y), take(untied_x), take(signed))
    return (first + second) / 2
