"""Metrics over relevance labels in rank order.

Every function takes ``labels`` first: the relevance labels of the ranked
documents, rank 1 first, as any iterable of non-negative ints or floats.
``None`` marks an unjudged document; it is never relevant and has gain 0.
Options are keyword-only except the cutoff ``k``.

Catalogue
---------
Binary (a label is relevant when it is ``>= rel``):

* :func:`precision_at_k`, :func:`recall_at_k`, :func:`r_precision`,
  :func:`success_at_k`, :func:`reciprocal_rank`, :func:`average_precision`,
  :func:`rbp`, :func:`rbp_residual`, :func:`judged_at_k`, :func:`unjudged_at_k`
* trec_eval's others: :func:`bpref`, :func:`inferred_ap`,
  :func:`interpolated_precision`, :func:`eleven_point_average`,
  :func:`r_precision_multiple`, :func:`f_measure`

Graded:

* :func:`dcg`, :func:`ndcg`, :func:`err`

ir_measures' others: :func:`compatibility` (Clarke, Vtyurina, Smucker), :func:`accuracy`.
The C/W/L measures (INST, INSQ, BPM, NERR, SDCG, TBG, U) are in :mod:`irmetrics.cwl`.

Each public function validates its arguments once and hands them to a private
kernel (``_name``); :mod:`irmetrics.measures` calls the kernels directly with
inputs it has already validated, so a function and evaluate() give the same
bits.

Arithmetic: where trec_eval 9.0.8 defines a measure, its kernel computes with
trec_eval's operations in trec_eval's order (the m_*.c file it follows is
named in a comment): sums are plain double additions, left to right, with
the terms trec_eval adds (``g / log2(i + 2)``, not ``g * (1 / log2(i + 2))``).
A printed value then sits on the same side of a rounding boundary as
trec_eval's.  The measures trec_eval lacks (ERR, RBP, Judged, the "jk" and
callable discounts) add with :func:`math.fsum`.
"""

from __future__ import annotations

import math
from bisect import bisect_left as _bisect_left
from bisect import bisect_right as _bisect_right
from collections import Counter
from functools import reduce as _reduce
from itertools import accumulate as _accumulate
from itertools import compress as _compress
from operator import add as _add
from typing import (
    Any,
    Callable,
    Dict,
    Iterable,
    List,
    Mapping,
    Optional,
    Sequence,
    Tuple,
    Union,
    cast,
)

from . import _tie_blocks as _t
from . import cwl as _cwl
from ._checks import (
    Label,
    as_number,
    check_int,
    check_k,
    check_labels,
    check_n_relevant,
    check_positive_real,
    check_probability,
    check_rel,
)
from .errors import InvalidArgumentError

__all__ = [
    "precision_at_k",
    "recall_at_k",
    "average_precision",
    "reciprocal_rank",
    "r_precision",
    "success_at_k",
    "judged_at_k",
    "dcg",
    "ndcg",
    "err",
    "rbp",
    "rbp_residual",
    "unjudged_at_k",
    "bpref",
    "inferred_ap",
    "interpolated_precision",
    "eleven_point_average",
    "r_precision_multiple",
    "f_measure",
    "compatibility",
    "accuracy",
]

Number = Union[int, float]
Gain = Union[str, Mapping[Any, Number]]
Discount = Union[str, Callable[[int], float]]



def _left_to_right(terms: Iterable[float]) -> float:
    """C's ``sum += term`` loop: plain double additions in order.

    Not :func:`sum`, which Python 3.12 and later compensate when adding floats.
    """
    return _reduce(_add, terms, 0.0)


# === Helpers =================================================================


def _cut(items: Sequence[Any], k: Optional[int]) -> Sequence[Any]:
    return items if k is None or k >= len(items) else items[:k]


def _relevant_ranks(labels: Sequence[Label], rel: Number) -> List[int]:
    """The 1-based ranks of the labels >= *rel* (*rel* > 0).

    ``compress`` skips the falsy labels (None and 0, never relevant since
    rel > 0) in C, which matters on long rankings that are mostly unjudged.
    """
    return [
        i + 1
        for i in _compress(range(len(labels)), labels)
        if labels[i] >= rel  # type: ignore[operator]
    ]


# === Binary measures =========================================================


# Most binary measures are a function of the ranks of the relevant labels
# (sorted, 1-based): a kernel ``kernel(ranks, n, param, R)`` of them, the
# documents ranked, the measure's parameter (a cutoff, a multiple of R ...;
# unused by some) and R.  evaluate() finds a query's ranks once for all
# measures and calls the same kernels (measures._on_ranks).  bpref and infAP
# read every label: theirs is a formula of (labels, ranks, R).

Kernel = Callable[[Sequence[int], int, Any, int], float]
Formula = Callable[[List[Label], List[int], int], float]


def _binary(
    labels: Iterable[Any], kernel: Optional[Kernel], param: Any, rel: Any, name: str, *,
    n_relevant: Any = None, scores: Any = None, ties: Any = None,
    form: Optional[_t.ClosedForm] = None, formula: Optional[Formula] = None,
    order: Callable[[Number], _t.Order] = _t.by_relevance,
) -> float:
    """A binary measure: ``kernel(ranks, len(labels), param, R)`` (or
    ``formula(labels, ranks, R)``), with the 1-based ranks of the labels >=
    *rel* and R the query's relevant documents (*n_relevant*, by default the
    relevant labels), after the checks every binary measure shares.

    With *scores* and *ties* (:mod:`irmetrics.ties`) the labels are first
    ranked by score: best and worst order each block of tied scores by
    ``order(rel)``; the mean is the closed form *form* at cutoff *param*
    (without one, ``ties="expected"`` is an error naming the measure *name*).
    """
    ls = check_labels(labels)
    r = check_rel(rel)
    ranks = _relevant_ranks(ls, r)
    big_r = check_n_relevant(n_relevant, len(ranks))

    def call(arranged: List[Label], ranks: List[int]) -> float:
        if formula is not None:
            return formula(arranged, ranks, big_r)
        return cast(Kernel, kernel)(ranks, len(arranged), param, big_r)

    if scores is None and ties is None:
        return call(ls, ranks)

    def arrange(arranged: List[Label]) -> float:
        return call(arranged, _relevant_ranks(arranged, r))

    def mean(blocks: List[_t.Block], n: int) -> float:
        return cast(_t.ClosedForm, form)(_t.binary(blocks, r), n, param, big_r)
    return _t.by_score(ls, scores, ties, arrange, order(r), None if form is None else mean, name)


def _hits(ranks: Sequence[int], k: Optional[int]) -> int:
    return len(ranks) if k is None else _bisect_right(ranks, k)


def _precision_r(ranks: Sequence[int], n: int, k: Optional[int], n_relevant: int) -> float:
    # k None: every document ranked (trec_eval's set_P; 0 when none is)
    d = n if k is None else k
    return _hits(ranks, k) / d if d else 0.0


def precision_at_k(
    labels: Iterable[Any],
    k: int,
    *,
    rel: Number = 1,
    scores: Optional[Sequence[float]] = None,
    ties: Optional[str] = None,
) -> float:
    """Precision at rank *k*: the relevant labels in the top *k*, divided by *k*.

    ``P@k = |{i <= k : label_i >= rel}| / k``

    The divisor is *k* even when fewer than *k* documents were ranked, as in
    trec_eval's ``P_k`` (a system that returns fewer documents is not
    rewarded for it).

    >>> precision_at_k([1, 0, 1, 0], 2)
    0.5
    >>> precision_at_k([1], 4)   # 1 relevant / 4, not 1 / 1
    0.25
    >>> precision_at_k([2, 1, 0], 3, rel=2)
    0.3333333333333333
    """
    kk = check_k(k, optional=False)
    return _binary(labels, _precision_r, kk, rel, "P", scores=scores, ties=ties,
                   form=_t.expected_precision)


def _recall_r(ranks: Sequence[int], n: int, k: Optional[int], n_relevant: int) -> float:
    return _hits(ranks, k) / n_relevant if n_relevant else 0.0


def recall_at_k(
    labels: Iterable[Any],
    k: int,
    *,
    n_relevant: Optional[int] = None,
    rel: Number = 1,
    scores: Optional[Sequence[float]] = None,
    ties: Optional[str] = None,
) -> float:
    """Recall at rank *k*: relevant labels in the top *k* over ``n_relevant``.

    ``R@k = |{i <= k : label_i >= rel}| / n_relevant``

    ``n_relevant`` is the number of relevant documents the query has; by
    default the relevant labels in the whole list.  A query with no relevant
    documents scores 0.0 (as in trec_eval).

    >>> recall_at_k([1, 0, 1, 0], 2)
    0.5
    >>> recall_at_k([1, 0, 1, 0], 2, n_relevant=4)
    0.25
    """
    kk = check_k(k, optional=False)
    return _binary(labels, _recall_r, kk, rel, "recall", n_relevant=n_relevant,
                   scores=scores, ties=ties, form=_t.expected_recall)


def _average_precision_r(ranks: Sequence[int], n: int, k: Optional[int], n_relevant: int) -> float:
    if n_relevant == 0:
        return 0.0
    # m_map.c / m_map_cut.c: sum += rel_so_far / rank, left to right
    top = ranks if k is None else ranks[: _bisect_right(ranks, k)]
    return _left_to_right(hits / i for hits, i in enumerate(top, 1)) / n_relevant


def _yaap_r(ranks: Sequence[int], n: int, param: None, n_relevant: int) -> float:
    # m_yaap.c (Robertson's "yet another AP"): log((1 + s) / (1 + R - s)), s
    # the sum of average precision's numerator (rel_so_far / rank, left to right)
    total = _left_to_right(hits / i for hits, i in enumerate(ranks, 1))
    return math.log((1.0 + total) / (1.0 + n_relevant - total))


def average_precision(
    labels: Iterable[Any],
    k: Optional[int] = None,
    *,
    n_relevant: Optional[int] = None,
    rel: Number = 1,
    scores: Optional[Sequence[float]] = None,
    ties: Optional[str] = None,
) -> float:
    """Average precision: precision at each relevant rank, summed, over ``n_relevant``.

    ``AP@k = (1 / n_relevant) * sum(P@i for i <= k if label_i >= rel)``

    ``n_relevant`` is the number of relevant documents the query has, retrieved
    or not.  By default it is the number of relevant labels in *labels*, which is
    right only when *labels* covers every candidate document.  **Passing only
    the retrieved labels without ``n_relevant`` overstates AP**: relevant
    documents the system never retrieved must still count in the denominator
    (they contribute precision 0).  A query with no relevant documents scores
    0.0.  With a cutoff *k*, the denominator is still ``n_relevant`` (trec_eval's
    ``map_cut_k``).

    >>> average_precision([1, 0, 1, 0])          # (1/1 + 2/3) / 2
    0.8333333333333333
    >>> average_precision([1, 0, 1, 0], n_relevant=4)   # (1/1 + 2/3) / 4
    0.41666666666666663
    >>> average_precision([1, 0, 1, 0], 2, n_relevant=2)
    0.5
    """
    kk = check_k(k)
    return _binary(labels, _average_precision_r, kk, rel, "map", n_relevant=n_relevant,
                   scores=scores, ties=ties, form=_t.expected_ap)


def _reciprocal_rank_r(ranks: Sequence[int], n: int, k: Optional[int], n_relevant: int) -> float:
    if ranks and (k is None or ranks[0] <= k):
        return 1.0 / ranks[0]
    return 0.0


def reciprocal_rank(
    labels: Iterable[Any],
    k: Optional[int] = None,
    *,
    rel: Number = 1,
    scores: Optional[Sequence[float]] = None,
    ties: Optional[str] = None,
) -> float:
    """Reciprocal rank: ``1 / rank`` of the first relevant label within *k*, else 0.0.

    Mean reciprocal rank (MRR) averages this over *all* queries, counting 0.0
    for a query whose list has no relevant label.

    >>> reciprocal_rank([0, 0, 1, 1])
    0.3333333333333333
    >>> reciprocal_rank([0, 0, 1, 1], 2)
    0.0
    """
    kk = check_k(k)
    return _binary(labels, _reciprocal_rank_r, kk, rel, "recip_rank", scores=scores, ties=ties,
                   form=_t.expected_rr)


def r_precision(
    labels: Iterable[Any],
    *,
    n_relevant: Optional[int] = None,
    rel: Number = 1,
    scores: Optional[Sequence[float]] = None,
    ties: Optional[str] = None,
) -> float:
    """R-precision: precision at rank R, where R = ``n_relevant``.

    ``Rprec = |{i <= R : label_i >= rel}| / R``

    R defaults to the relevant labels in the list.  A query with no relevant
    documents scores 0.0.

    >>> r_precision([1, 0, 1, 0])        # R = 2: one relevant in the top 2
    0.5
    >>> r_precision([1, 0, 1, 0], n_relevant=4)
    0.5
    """
    return _binary(labels, _r_precision_multiple_r, None, rel, "Rprec", n_relevant=n_relevant,
                   scores=scores, ties=ties, form=_t.expected_r_precision)


def _success_r(ranks: Sequence[int], n: int, k: Optional[int], n_relevant: int) -> float:
    return 1.0 if _reciprocal_rank_r(ranks, n, k, n_relevant) else 0.0


def success_at_k(
    labels: Iterable[Any],
    k: int,
    *,
    rel: Number = 1,
    scores: Optional[Sequence[float]] = None,
    ties: Optional[str] = None,
) -> float:
    """Success at *k*: 1.0 if a relevant label is in the top *k*, else 0.0.

    >>> success_at_k([0, 0, 1], 2)
    0.0
    >>> success_at_k([0, 0, 1], 3)
    1.0
    """
    kk = check_k(k, optional=False)
    return _binary(labels, _success_r, kk, rel, "success", scores=scores, ties=ties,
                   form=_t.expected_success)


def _judged(labels: Sequence[Label], k: Optional[int]) -> float:
    # judged: not None, nor negative (pooled but unjudged, from evaluate())
    top = _cut(labels, k)
    return (len(top) - sum(_unknown(top))) / len(top) if top else 0.0


def judged_at_k(labels: Iterable[Any], k: Optional[int] = None) -> float:
    """Judged at *k*: the fraction of the top *k* documents that carry a label.

    ``Judged@k = |{i <= min(k, n) : label_i is not None}| / min(k, n)``

    The divisor is the number of documents actually ranked in the top *k*
    (ir_measures' ``Judged@k``); an empty list scores 0.0.

    >>> judged_at_k([1, None, 0, None], 2)
    0.5
    >>> judged_at_k([1, None], 10)
    0.5
    """
    ls = check_labels(labels)
    kk = check_k(k)
    return _judged(ls, kk)


# === Graded measures =========================================================


_LN2 = math.log(2.0)


def _exp_gain(x: Label) -> float:
    # 2**x - 1, exact for integer labels; expm1 keeps small fractional labels
    # from rounding to a gain of 0.
    if x is None:
        return 0.0
    if x > 1023:
        raise InvalidArgumentError(
            f"'labels': the exponential gain 2**{x!r} - 1 is too large for a float"
        )
    return 2.0**x - 1.0 if x >= 1 else math.expm1(x * _LN2)


def _gain_function(gain: Any) -> Callable[[Label], float]:
    if gain == "linear":
        return lambda x: 0.0 if x is None else float(x)
    if gain in ("exponential", "exp"):
        return _exp_gain
    if isinstance(gain, Mapping):
        table = {}
        for label, g in gain.items():
            if isinstance(g, bool) or not isinstance(g, (int, float)) or not (0 <= g < math.inf):
                raise InvalidArgumentError(
                    f"'gain' must map labels to finite non-negative numbers "
                    f"(got {g!r} for label {label!r})"
                )
            table[label] = float(g)

        def mapped(x: Label) -> float:
            if x is None:
                return 0.0
            try:
                return table[x]
            except KeyError:
                raise InvalidArgumentError(
                    f"'gain' has no entry for label {x!r} (known labels: "
                    f"{sorted(table, key=repr)})"
                ) from None

        return mapped
    raise InvalidArgumentError(
        f"'gain' must be 'linear', 'exponential' or a mapping label -> gain (got {gain!r})"
    )


def _log2_discount(i: int) -> float:
    return 1.0 / math.log2(i + 1)


def _discount_function(discount: Any, base: Optional[float]) -> Callable[[int], float]:
    if discount == "log2":
        if base is not None:
            raise InvalidArgumentError("'base' applies only to discount='jk' (got discount='log2')")
        return _log2_discount
    if discount == "jk":
        b = 2.0 if base is None else check_positive_real(base, "base")
        if b <= 1.0:
            raise InvalidArgumentError(f"'base' must be greater than 1 (got {base!r})")
        ln_b = math.log(b)
        return lambda i: 1.0 if i < b else ln_b / math.log(i)
    if callable(discount):
        if base is not None:
            raise InvalidArgumentError("'base' applies only to discount='jk'")
        return _checked_callable_discount(discount)
    raise InvalidArgumentError(
        f"'discount' must be 'log2', 'jk' or a callable rank -> weight (got {discount!r})"
    )


def _checked_callable_discount(fn: Callable[[int], float]) -> Callable[[int], float]:
    def discount(i: int) -> float:
        w = fn(i)
        if isinstance(w, bool) or not isinstance(w, (int, float)) or not (0.0 <= w < math.inf):
            raise InvalidArgumentError(
                f"'discount' must return a finite non-negative number (got {w!r} at rank {i})"
            )
        return float(w)

    return discount


def _dcg_gains(gains: Sequence[float], k: Optional[int], disc: Callable[[int], float]) -> float:
    """DCG@k of the gains of a ranking, from its non-zero gains."""
    top = _cut(gains, k)
    nz = [(i, top[i]) for i in _compress(range(len(top)), top)]
    if disc is _log2_discount:  # m_ndcg.c / m_ndcg_cut.c, left to right
        return _left_to_right(g / math.log2(i + 2) for i, g in nz)
    return math.fsum([g * disc(i + 1) for i, g in nz])


def dcg(
    labels: Iterable[Any],
    k: Optional[int] = None,
    *,
    gain: Gain = "linear",
    discount: Discount = "log2",
    base: Optional[float] = None,
) -> float:
    """Discounted cumulative gain of the top *k* labels.

    ``DCG@k = sum(gain(label_i) * discount(i) for i <= k)``

    gain:
        ``"linear"`` (the label itself, trec_eval), ``"exponential"``
        (``2**label - 1``, Burges et al.), or a mapping label -> gain.
    discount:
        ``"log2"`` (default): ``1 / log2(i + 1)``, as trec_eval and Burges et al.
        ``"jk"``: the original Jarvelin-Kekalainen form with log base *base*
        (default 2): ranks ``i < base`` are not discounted, later ranks get
        ``1 / log_base(i)``.  Or a callable rank -> weight (1-based ranks).

    ``None`` labels have gain 0.

    >>> round(dcg([2, 1, 0, 3, 0, 1], 6), 4)   # 2/1 + 1/log2(3) + 3/log2(5) + 1/log2(7)
    4.2792
    >>> dcg([3, 2], discount="jk")             # 3 + 2/log2(2)
    5.0
    >>> round(dcg([1, 2], gain="exponential"), 6)   # 1/1 + 3/log2(3)
    2.892789
    """
    ls = check_labels(labels)
    kk = check_k(k)
    gain_of = _gain_function(gain)
    disc = _discount_function(discount, base)
    return _dcg_gains([gain_of(x) for x in ls], kk, disc)


def _ndcg_gains(
    gains: Sequence[float], ideal_gains: Sequence[float], k: Optional[int],
    disc: Callable[[int], float],
) -> float:
    """nDCG@k from the gains of the ranking and the ideal gains, highest first."""
    idcg = _dcg_gains(ideal_gains, k, disc)
    if idcg <= 0.0:
        return 0.0
    return _dcg_gains(gains, k, disc) / idcg


def ndcg(
    labels: Iterable[Any],
    k: Optional[int] = None,
    *,
    ideal: Optional[Iterable[Any]] = None,
    gain: Gain = "linear",
    discount: Discount = "log2",
    base: Optional[float] = None,
    scores: Optional[Sequence[float]] = None,
    ties: Optional[str] = None,
) -> float:
    """Normalised DCG: ``DCG@k / IDCG@k``.

    ``IDCG@k`` is the DCG of the *ideal* labels sorted by decreasing gain and
    cut at *k*.  ``ideal`` should hold the labels of every judged document of
    the query, in any order, so that relevant documents the system did not
    retrieve still count; by default it is *labels* itself.  Sorting is by
    gain, so a gain mapping that is not monotone in the label is handled
    correctly.  An ideal DCG of 0 (no relevant document) gives 0.0; a perfect
    ranking gives exactly 1.0.  ``gain``, ``discount`` and ``base`` are as in
    :func:`dcg`.

    ``ideal`` must contain every label of the ranking that has a positive
    gain (a ranking cannot beat its ideal); otherwise the call fails.

    >>> round(ndcg([2, 1, 0, 3, 0, 1], 6), 4)  # 4.2792 / 5.1925
    0.8241
    >>> ndcg([3, 2, 1, 0])
    1.0
    >>> round(ndcg([1, 0], ideal=[1, 1, 0]), 4)   # 1 / (1 + 1/log2(3))
    0.6131
    """
    ls = check_labels(labels)
    kk = check_k(k)
    gain_of = _gain_function(gain)
    disc = _discount_function(discount, base)
    il = ls if ideal is None else check_labels(ideal, "ideal")
    if ideal is not None:
        _check_ideal_covers(ls, il, gain_of)
    # the ideal: the gains highest first, cut at k (k None: all)
    ideal_gains = sorted((gain_of(x) for x in il if x is not None), reverse=True)[:kk]

    def call(ranked: List[Label]) -> float:
        return _ndcg_gains([gain_of(x) for x in ranked], ideal_gains, kk, disc)

    if scores is None and ties is None:
        return call(ls)

    # ranked by score (irmetrics.ties): the mean gives every position of a
    # block of tied scores the block's mean gain (DCG is linear in the gains);
    # best and worst sort each block by gain
    def order(blocks: List[_t.Block], n: int, best: bool, judged_only: bool) -> _t.Placed:
        if callable(discount):
            # sorting by gain attains the extreme only for a discount that
            # never rises with the rank; the mean needs no such thing
            raise InvalidArgumentError(
                f"ties={ties!r} needs discount='log2' or 'jk': it sorts each tied block by "
                "gain, the best (worst) order only for a discount that never rises with the "
                "rank, which a callable need not be; ties='expected' takes any discount")
        return _t.by_gain(gain_of)(blocks, n, best, judged_only)

    def expected(blocks: List[_t.Block], n: int) -> float:
        gains = _t.mean_gains(blocks, n if kk is None else min(kk, n), gain_of)
        return _ndcg_gains(gains, ideal_gains, kk, disc)

    return _t.by_score(ls, scores, ties, call, order, expected, "ndcg")


def _check_ideal_covers(
    labels: Sequence[Label], ideal: Sequence[Label], gain_of: Callable[[Label], float]
) -> None:
    need = Counter(x for x in labels if x is not None and gain_of(x) > 0)
    have = Counter(ideal)
    for label, count in need.items():
        if have[label] < count:
            raise InvalidArgumentError(
                f"'ideal' must contain every judged label of the ranking: label {label!r} "
                f"appears {count} time(s) in 'labels' but {have[label]} in 'ideal'"
            )


def _err(labels: Sequence[Label], k: Optional[int], max_label: Number) -> float:
    if max_label <= 0:
        return 0.0
    floor = 2.0**-max_label  # 0.0 for huge scales, without overflow
    not_stopped = 1.0
    terms = []
    for i, x in enumerate(_cut(labels, k), 1):
        if x is None or x <= 0:
            continue
        # (2**x - 1) / 2**max_label, written so that large labels do not overflow
        r = 2.0 ** (x - max_label) - floor
        terms.append(not_stopped * r / i)
        not_stopped *= 1.0 - r
    return math.fsum(terms)


def err(
    labels: Iterable[Any], k: Optional[int] = None, *, max_label: Optional[Number] = None
) -> float:
    """Expected reciprocal rank (Chapelle et al. 2009).

    ``ERR@k = sum(1/i * R_i * prod(1 - R_j for j < i) for i <= k)`` with
    ``R_i = (2**label_i - 1) / 2**max_label``.

    ``max_label`` is the highest grade of the scale (the grade of a document
    that fully satisfies the user); by default the largest label given.  A
    label above ``max_label`` is an error.  All-zero labels give 0.0.

    >>> err([2, 0, 1], max_label=2)   # 3/4 + (1/4) * (1/4) / 3
    0.7708333333333334
    >>> err([1, 1])                   # 1/2 + (1/2) * (1/2) / 2
    0.625
    """
    ls = check_labels(labels)
    kk = check_k(k)
    top = max((x for x in ls if x is not None), default=0)
    if max_label is None:
        return _err(ls, kk, top)
    if not 0.0 <= as_number(max_label) < math.inf:
        raise InvalidArgumentError(
            f"'max_label' must be a finite non-negative number (got {max_label!r})"
        )
    if top > max_label:
        raise InvalidArgumentError(
            f"'max_label' must be at least the largest label given, {top!r} (got {max_label!r})"
        )
    return _err(ls, kk, max_label)


def _rbp(labels: Sequence[Label], p: float, k: Optional[int],
         gain_of: Callable[[Number], float]) -> float:
    """Rank-biased precision: ``(1 - p) * sum(gain_of(label_i) * w_i)`` over
    the judged ranks of the top k (k None: all), ``w_i = p**(i - 1)`` made by
    repeated products and the sum added left to right, as trec_eval 10.0's
    m_rbp.c makes them (gains in [0, 1]; *gain_of* is the variant's gain
    scaling: binary for ``RBP``, the levels scaled to [0, 1] for trec_eval
    10.0's ``rbp``).  Its residual is :func:`irmetrics.cwl.residual`'s."""
    gains = [0.0 if x is None or x < 0 else gain_of(x) for x in _cut(labels, k)]
    return (1.0 - p) * _weighted(gains, p)[0]


def _weighted(values: Sequence[float], p: float) -> Tuple[float, float]:
    """The sum of ``values[i] * p**i``, m_rbp.c's weights (repeated products)
    and additions (left to right; a zero term adds nothing), and ``p**n``."""
    total, w = 0.0, 1.0
    for v in values:
        total += v * w
        w *= p
    return total, w


def _binary_gain(rel: Number) -> Callable[[Label], float]:
    """Gain 1 for a label >= *rel*, else 0."""
    return lambda x: 1.0 if x is not None and x >= rel else 0.0


def _rbp_gain(labels: Sequence[Label], rel: Number, max_label: Optional[Number]) -> Any:
    if max_label is None:
        return _binary_gain(rel)
    m = check_positive_real(max_label, "max_label")
    top = max((x for x in labels if x is not None), default=0)
    if top > m:
        raise InvalidArgumentError(
            f"'max_label' must be at least the largest label given, {top!r} (got {max_label!r})")
    # gain label / max(max_label, 1): trec_eval 10.0's rbp gains (m_rbp.c maps
    # gains outside [0, 1] by (g - min) / (max - min), and min is level 0's gain, 0)
    scale = float(m) if m > 1 else 1.0
    return lambda x: 0.0 if x is None or x <= 0 else x / scale


def rbp(
    labels: Iterable[Any], *, p: float = 0.8, k: Optional[int] = None, rel: Number = 1,
    max_label: Optional[Number] = None,
) -> float:
    """Rank-biased precision (Moffat and Zobel 2008).

    ``RBP = (1 - p) * sum(gain_i * p**(i - 1) for i <= k)``

    *p* is the user's persistence, in (0, 1).  The gain is binary (1 for a
    label ``>= rel``) unless *max_label* is given: then it is graded, ``label
    / max(max_label, 1)``, as trec_eval 10.0's ``rbp`` scales a query's
    levels (give it the query's largest judged label for the same bits as
    ``evaluate(..., ["rbp"], trec_eval="10.0")``).  Unjudged documents (None)
    gain nothing; :func:`rbp_residual` says how much they could add.

    >>> rbp([1, 0, 1], p=0.5)    # 0.5 * (1 + 0.25)
    0.625
    >>> rbp([3, 0, 1], p=0.5, max_label=3)    # 0.5 * (1 + 0.25 / 3)
    0.5416666666666666
    """
    ls = check_labels(labels)
    pp = check_probability(p)
    kk = check_k(k)
    r = check_rel(rel)
    return _rbp(ls, pp, kk, _rbp_gain(ls, r, max_label))


def rbp_residual(labels: Iterable[Any], *, p: float = 0.8, k: Optional[int] = None) -> float:
    """The residual of :func:`rbp`: how much it could still rise.

    ``(1 - p) * sum(p**(i - 1) for unjudged i <= m) + p**m``, m = min(k, n):
    the weight of the unjudged documents (None) and of every rank past the
    top m, as if all had the top gain: :func:`irmetrics.cwl.residual` at an
    unbounded horizon (trec_eval 10.0's ``rbp_resid``, which prints 0 instead
    for a ranking with no unjudged document).

    >>> rbp_residual([1, None, 0], p=0.5)    # 0.5 * 0.5 + 0.125
    0.375
    """
    ls = check_labels(labels)
    pp = check_probability(p)
    return _cwl.residual(_unknown(_cut(ls, check_k(k))), [pp], None)


def _unknown(labels: Sequence[Label]) -> List[bool]:
    """Which labels are unjudged: None, or negative (pooled but not judged)."""
    return [x is None or x < 0 for x in labels]


def _unjudged(labels: Sequence[Label], k: Optional[int]) -> float:
    """Unjudged in the top k over k (None: n)."""
    top = _cut(labels, k)
    d = len(top) if k is None else k
    return sum(_unknown(top)) / d if d else 0.0


def unjudged_at_k(labels: Iterable[Any], k: Optional[int] = None) -> float:
    """Unjudged at *k* (trec_eval 10.0's ``unj``): the fraction of the top
    *k* documents that carry no label.

    ``unj@k = |{i <= min(k, n) : label_i is None}| / k``

    Unlike :func:`judged_at_k`, the divisor is *k* itself: ranks past the
    end of a shorter ranking count as judged, as trec_eval counts them.
    ``k=None`` divides by the length of the list (an empty list: 0.0).

    >>> unjudged_at_k([1, None, 0, None], 2)
    0.5
    >>> unjudged_at_k([1, None], 10)
    0.1
    """
    ls = check_labels(labels)
    kk = check_k(k)
    return _unjudged(ls, kk)


# === trec_eval's other measures ==============================================


def _bpref(labels: Sequence[Label], n_relevant: int, n_nonrelevant: int, rel: Number) -> float:
    # trec_eval 9.0.8 (m_bpref.c): each relevant ranked document is penalised
    # by the judged non-relevant documents above it, at most min(R, N) of them.
    # Unjudged documents (None, and the negative labels evaluate() uses for
    # pooled-but-unjudged documents) are passed over.
    # The sum is m_bpref.c's: 1.0 - min(n, R) / min(N, R), left to right.
    if n_relevant == 0:
        return 0.0
    bound = min(n_nonrelevant, n_relevant)
    nonrel_seen = 0
    total = 0.0
    for x in labels:
        if x is None or x < 0:
            continue
        if x >= rel:
            if nonrel_seen:
                total += 1.0 - min(nonrel_seen, n_relevant) / bound
            else:
                total += 1.0
        else:
            nonrel_seen += 1
    return total / n_relevant


def bpref(
    labels: Iterable[Any],
    *,
    n_relevant: Optional[int] = None,
    n_nonrelevant: Optional[int] = None,
    rel: Number = 1,
    scores: Optional[Sequence[float]] = None,
    ties: Optional[str] = None,
) -> float:
    """Binary preference (Buckley and Voorhees 2004), as trec_eval computes it.

    ``bpref = (1/R) * sum(1 - min(n_above(r), min(R, N)) / min(R, N))`` over the
    relevant ranked documents r, where ``n_above(r)`` counts the judged
    non-relevant documents ranked above r, R = ``n_relevant`` and N =
    ``n_nonrelevant`` (judged non-relevant documents of the query; defaults
    count the labels given).  Unjudged (``None``) documents are ignored.
    When N = 0 every relevant ranked document scores 1.

    >>> bpref([1, 0, 1, None, 1])   # R=3, N=1: (1 + 0 + 0) / 3
    0.3333333333333333
    """
    r = check_rel(rel)

    def formula(ls: List[Label], ranks: List[int], big_r: int) -> float:
        found = sum(1 for x in ls if x is not None and x < r)
        nn = found if n_nonrelevant is None else check_int(n_nonrelevant, "n_nonrelevant", found)
        return _bpref(ls, big_r, nn, r)
    return _binary(labels, None, None, r, "bpref", n_relevant=n_relevant, scores=scores,
                   ties=ties, formula=formula)


def _inferred_ap_placed(
    placed: Iterable[Tuple[int, Number]], n_relevant: int, rel: Number
) -> float:
    # trec_eval 9.0.8 (m_infap.c), after Yilmaz and Aslam (2006), over the
    # (0-based rank, label) of the documents in the judgment pool (documents
    # outside it, None, only move the ranks); a negative label (only from
    # evaluate()) is one that was pooled but not judged.
    if n_relevant == 0:
        return 0.0
    total = 0.0  # m_infap.c's inf_ap, added left to right
    rel_so_far = nonrel_so_far = pooled_unjudged = 0
    for j, x in placed:
        if x < 0:
            pooled_unjudged += 1
        elif x < rel:
            nonrel_so_far += 1
        else:
            total += _t.infap_term(rel_so_far, nonrel_so_far, pooled_unjudged, j)
            rel_so_far += 1
    return total / n_relevant


def inferred_ap(
    labels: Iterable[Any],
    *,
    n_relevant: Optional[int] = None,
    rel: Number = 1,
    scores: Optional[Sequence[float]] = None,
    ties: Optional[str] = None,
) -> float:
    """Inferred average precision (Yilmaz and Aslam 2006), as trec_eval's ``infAP``.

    For a relevant document at rank k > 1 the estimated precision is
    ``1/k + ((k-1)/k) * (j / (k-1)) * (r + eps) / (r + n + 2 eps)``, where r and
    n are the judged relevant and non-relevant documents above rank k, j = r + n
    the judged ones, and eps = 1e-5: documents outside the judgment pool
    (``None``) count as non-relevant, and the judged ones stand for the pool.
    The sum is divided by R = ``n_relevant``.

    >>> round(inferred_ap([1, 0, 1]), 4)       # all judged: AP's (1 + 2/3) / 2
    0.8333
    >>> round(inferred_ap([1, None, 1]), 4)    # rank 2 unjudged: (1 + 1/3 + 2/3 * 1/2 * 1) / 2
    0.8333
    """
    r = check_rel(rel)

    def formula(ls: List[Label], ranks: List[int], big_r: int) -> float:
        return _inferred_ap_placed([(j, x) for j, x in enumerate(ls) if x is not None], big_r, r)
    return _binary(labels, None, None, r, "infAP", n_relevant=n_relevant, scores=scores,
                   ties=ties, formula=formula, order=_t.by_infap)


def _interpolated_maxima(ranks: Sequence[int], n_ret: int) -> List[float]:
    """The interpolated precision once c relevant documents are found, for
    each c from 0 to ``len(ranks)``: the highest precision at a relevant rank
    at or past the c-th, walking from the end of the ranking (c = 0 takes
    the final value; nothing retrieved gives 0.0).  Only the relevant ranks
    are visited: the precision at a non-relevant rank is below that at the
    relevant rank before it, which the walk reaches later, so the maxima are
    trec_eval's (m_iprec_at_recall.c)."""
    best = len(ranks) / n_ret if n_ret else 0.0
    maxima = [best] * (len(ranks) + 1)
    for hits in range(len(ranks), 0, -1):
        p = hits / ranks[hits - 1]
        if best < p:
            best = p
        maxima[hits] = best
    maxima[0] = best
    return maxima


def _cutoff_908(x: float) -> int:
    """trec_eval 9.0.8's number of relevant documents for recall level times R
    *x*: ``(long)(x + 0.9)``."""
    return int(x + 0.9)


def _lround(x: float) -> int:
    """trec_eval 10.0's: C's ``lround(x)``, halves away from zero (x >= 0);
    ``x - int(x)`` is exact, where ``floor(x + 0.5)`` can round up."""
    whole = int(x)
    return whole + 1 if x - whole >= 0.5 else whole


RecallCutoff = Callable[[float], int]


def _interpolated_sum(
    ranks: Sequence[int], n_ret: int, levels: Sequence[float], n_relevant: int,
    cutoff: RecallCutoff = _cutoff_908,
) -> float:
    """The sum of the interpolated precisions at *levels* (recall levels),
    added as m_11pt_avg.c adds them.

    trec_eval 9.0.8 (m_iprec_at_recall.c, m_11pt_avg.c): each level becomes a
    number of relevant documents, ``(long)(level * R + 0.9)`` (*cutoff*;
    10.0 uses lround, :func:`_lround`); the levels are taken from the last, as the walk from the
    end of the ranking reaches their numbers (:func:`_interpolated_maxima`);
    the last levels, never reached (more relevant documents than were
    retrieved), add nothing; a level the walk has passed (levels out of
    order), or of number 0, takes the final value, and so does every level
    before it.  With nothing retrieved trec_eval divides 0 by 0 (it prints
    nan); the sum is 0.0 here.
    """
    maxima = _interpolated_maxima(ranks, n_ret)
    cutoffs = [cutoff(level * n_relevant) for level in levels]
    last = len(cutoffs)
    while last and cutoffs[last - 1] > len(ranks):
        last -= 1
    hits = len(ranks)
    total = 0.0
    for cut in reversed(cutoffs[:last]):
        hits = cut if 1 <= cut <= hits else 0
        total += maxima[hits]
    return total


def interpolated_precision(
    labels: Iterable[Any],
    recall: float,
    *,
    n_relevant: Optional[int] = None,
    rel: Number = 1,
    scores: Optional[Sequence[float]] = None,
    ties: Optional[str] = None,
) -> float:
    """Interpolated precision at a recall level (trec_eval's ``iprec_at_recall``).

    The highest precision at any rank where at least ``int(recall * R + 0.9)``
    relevant documents have been seen (R = ``n_relevant``; trec_eval 9.0.8's
    rounding, and at least one); 0.0 when that many are never seen.

    >>> interpolated_precision([0, 1, 1, 0], 0.5)   # best of P@2=1/2, P@3=2/3
    0.6666666666666666
    """
    level = check_probability(recall, "recall", "[0, 1]")
    return _binary(labels, _interpolated_sum, (level,), rel, "iprec_at_recall",
                   n_relevant=n_relevant, scores=scores, ties=ties)


_ELEVEN_POINTS = tuple(i / 10 for i in range(11))


def _eleven_point_average_r(
    ranks: Sequence[int], n_ret: int, levels: Sequence[float], n_relevant: int,
    cutoff: RecallCutoff = _cutoff_908,
) -> float:
    # m_11pt_avg.c: the sum over the levels, divided by the number of levels
    return _interpolated_sum(ranks, n_ret, levels, n_relevant, cutoff) / len(levels)


def eleven_point_average(
    labels: Iterable[Any], *, n_relevant: Optional[int] = None, rel: Number = 1
) -> float:
    """The mean of interpolated precision at recall 0.0, 0.1, ..., 1.0 (``11pt_avg``).

    Each point is :func:`interpolated_precision` at that recall level.

    >>> round(eleven_point_average([1, 0, 1]), 4)   # (6 * 1 + 5 * 2/3) / 11
    0.8485
    """
    return _binary(labels, _eleven_point_average_r, _ELEVEN_POINTS, rel, "11pt_avg",
                   n_relevant=n_relevant)


def _r_precision_multiple_r(
    ranks: Sequence[int], n: int, multiple: Optional[float], n_relevant: int
) -> float:
    # m_Rprec_mult.c: relevant in the top cut over cut, the cut computed as
    # (int)(multiple * R + 0.9) (the retrieved documents beyond the ranking
    # count as non-relevant); R = 0 gives cut 0.  Rprec is multiple None:
    # the cut is R itself, as int(1.0 * R + 0.9) is
    cut = n_relevant if multiple is None else int(multiple * n_relevant + 0.9)
    if cut <= 0:
        return 0.0
    return _hits(ranks, cut) / cut


def r_precision_multiple(
    labels: Iterable[Any],
    multiple: float,
    *,
    n_relevant: Optional[int] = None,
    rel: Number = 1,
    scores: Optional[Sequence[float]] = None,
    ties: Optional[str] = None,
) -> float:
    """Precision at rank ``multiple * R`` (trec_eval's ``Rprec_mult``).

    The rank is ``int(multiple * R + 0.9)``, trec_eval's rounding.

    >>> r_precision_multiple([1, 0, 1, 0], 2.0)   # R = 2, precision at rank 4
    0.5
    """
    m = check_positive_real(multiple, "multiple")
    return _binary(labels, _r_precision_multiple_r, m, rel, "Rprec_mult",
                   n_relevant=n_relevant, scores=scores, ties=ties)


def _f_measure_r(ranks: Sequence[int], n_ret: int, weight: float, n_relevant: int) -> float:
    # m_set_F.c: (x + 1) P R / (x P + R), x the weight of recall (beta**2)
    hits = len(ranks)
    if hits == 0:
        return 0.0
    precision = hits / n_ret
    recall = hits / n_relevant
    return (weight + 1.0) * precision * recall / (weight * precision + recall)


def f_measure(
    labels: Iterable[Any],
    *,
    n_relevant: Optional[int] = None,
    beta: float = 1.0,
    rel: Number = 1,
    scores: Optional[Sequence[float]] = None,
    ties: Optional[str] = None,
) -> float:
    """The F measure of the retrieved set (trec_eval's ``set_F``).

    ``F = (1 + beta**2) * P * R / (beta**2 * P + R)`` with P and R the
    precision and recall of the whole list.  0.0 when nothing relevant is
    ranked.  trec_eval's parameter (``-m set_F.x``) is ``x = beta**2``.

    >>> f_measure([1, 0, 1, 0], n_relevant=4)   # P = 1/2, R = 1/2
    0.5
    """
    b = check_positive_real(beta, "beta")
    return _binary(labels, _f_measure_r, b * b, rel, "set_F", n_relevant=n_relevant,
                   scores=scores, ties=ties, form=_t.expected_f)


# === trec_eval's experimental gain measures (used by evaluate() only) =========
# *gains* are the gains of the ranked documents, rank 1 first (0 for
# unjudged documents; a gain map may make some negative); *ideal* the
# positive gains of every judged document, highest first.  Each follows its
# m_*.c file: sums left to right, ``g / log2(rank + 1)``.


def _binary_g(ranks: Sequence[int], n: int, param: None, n_relevant: int) -> float:
    # m_binG.c: each relevant document (1-based ranks) earns 1 / log2(2 + the
    # number of non-relevant documents ranked above it), summed and divided
    # by R: at 0-based position i, the h-th relevant, 1 / log2(3 + i - h).
    total = _left_to_right(1.0 / math.log2(2 + rank - hits) for hits, rank in enumerate(ranks, 1))
    return total / n_relevant if ranks and n_relevant else 0.0


def _running_dcg(
    gains: Sequence[float], out: List[float], top: Optional[int] = None
) -> List[float]:
    """*out*, the DCG after each of the first gains of a ranking (rank 1
    first), extended to the first *top* (None: all): m_ndcg.c's ``sum +=
    gain / log2(rank + 1)``, left to right, so that the DCG at any cutoff is
    one of these prefixes, the same bits however far it was taken before
    (:func:`_running_dcg_sparse` of every gain)."""
    return _running_dcg_sparse(list(enumerate(gains[:top])), out, top)


def _running_dcg_sparse(
    nz: Sequence[Tuple[int, float]], out: List[float], top: Optional[int] = None
) -> List[float]:
    """*out*, the DCG after each of the first non-zero gains *nz* ``(0-based
    rank, gain)`` of a ranking, extended to the first *top* (None: all): the
    additions of :func:`_running_dcg`, made only at the non-zero gains."""
    total = out[-1] if out else 0.0
    for i, g in nz[len(out):top]:
        total += g / math.log2(i + 2)
        out.append(total)
    return out


def _ndcg_running(
    k: Optional[int], positive: Sequence[Tuple[int, float]], ideal: Sequence[float],
    dcg: List[float], idcg: List[float],
) -> float:
    """nDCG@k from the positive gains ``(0-based rank, gain)`` of a ranking
    and the ideal gains, highest first; *dcg*, the DCG after each of the
    first positive gains, and *idcg*, the ideal's (:func:`_running_dcg`),
    are extended only as far as *k* needs: the additions of one cutoff are
    a direct DCG's, and more cutoffs make none twice."""
    top = len(ideal) if k is None or k > len(ideal) else k
    if len(idcg) < top:
        _running_dcg(ideal, idcg, top)
    if not top or idcg[top - 1] <= 0.0:
        return 0.0
    # (k,) sorts before every (rank k, gain): the number of gains above k
    hits = len(positive) if k is None else _bisect_left(positive, (k,))
    _running_dcg_sparse(positive, dcg, hits)
    return (dcg[hits - 1] if hits else 0.0) / idcg[top - 1]


def _g_sparse(nz: Sequence[Tuple[int, float]], ideal: Sequence[float]) -> float:
    """m_G.c over the non-zero gains *nz* ``(0-based rank, gain)`` of a
    ranking, by rank order.

    A document of gain g at rank i earns g / log2(2 + cost(i) - gained(i)),
    where cost(i) sums the ideal gains of ranks <= i (at least 1 per rank)
    and gained(i) the ranking's gains; the sum is divided by the sum of the
    ideal gains.  Both sums are added rank by rank, as trec_eval adds them,
    up to the last non-zero gain (past it, nothing more is earned).
    """
    m = len(ideal)
    total_ideal = _left_to_right(ideal)
    if total_ideal <= 0:
        return 0.0
    last = nz[-1][0] + 1 if nz else 0
    # what each rank up to the last non-zero gain adds to cost(i), then cost(i)
    steps = [g if g >= 1.0 else 1.0 for g in ideal[:last]] + [1.0] * (last - m)
    cost = list(_accumulate(steps))
    total = gained = 0.0
    for i, g in nz:
        gained += g
        total += g / math.log2(2 + cost[i] - gained)
    return total / total_ideal


def _ndcg_rel_sparse(
    nz: Sequence[Tuple[int, float]], dcg: Sequence[float], prefix: Sequence[float]
) -> float:
    # m_ndcg_rel.c: nDCG taken at each document of positive gain (with the
    # ideal DCG accumulated so far) and averaged over the ideal's documents;
    # those not retrieved count the nDCG at the end of the ranking.  The
    # loop over ranks only changes the sums at the non-zero gains and the
    # ideal's ranks: those are visited, with the same additions in order.
    # *dcg*: the DCG after each non-zero gain (_running_dcg_sparse);
    # *prefix*: the ideal DCG after each ideal rank (_running_dcg).
    m = len(prefix)
    if m == 0:
        return 0.0  # trec_eval: 0/0, then 0
    total = 0.0
    seen = 0
    for (i, g), dcg_ in zip(nz, dcg):
        if g > 0:
            total += dcg_ / prefix[i if i < m else m - 1]
            seen += 1
    total += (m - seen) * (dcg[-1] if dcg else 0.0) / prefix[m - 1]
    return total / m if total > 0.0 else 0.0


def _rndcg_sparse(
    n: int,
    nz: Sequence[Tuple[int, float]],
    dcg: Sequence[float],
    ideal: Sequence[float],
    prefix: Sequence[float],
) -> float:
    """m_Rndcg.c: nDCG taken where the ideal gain changes level (and at the
    end of the ranking), averaged.

    trec_eval walks the ranks; a point is taken at each rank i (1 <= i <= m,
    m the ideal's length) where the ideal gain differs from the rank
    before's (at m it drops to 0), with the DCG of the ranks before i and
    the ideal DCG of the ideal ranks before i; and one more at the end of
    the ranking when it is longer than m + 1.  The sums are the same
    additions, in order, made only where they change.  *dcg*: the DCG after
    each non-zero gain (:func:`_running_dcg_sparse`); *prefix*: the ideal
    DCG after each ideal rank (:func:`_running_dcg`).
    """
    m = len(ideal)
    if m == 0:
        return 0.0  # trec_eval: 0/0 (nan)
    boundaries = [i for i in range(1, m) if ideal[i] != ideal[i - 1]]
    boundaries.append(m)
    total = 0.0
    for b in boundaries:
        # (b,) sorts before every (rank b, gain): the non-zero gains above rank b + 1
        above = _bisect_left(nz, (b,))
        total += (dcg[above - 1] if above else 0.0) / prefix[b - 1]
    points = len(boundaries)
    if n > m + 1:
        total += (dcg[-1] if dcg else 0.0) / prefix[m - 1]
        points += 1
    return total / points


# === ir_measures' others =====================================================


def _compat(ranked: Sequence[Tuple[int, int]], levels: Mapping[int, int], n: int, p: float,
            normalize: bool) -> float:
    """Compatibility of a ranking with its ideal, from *ranked*, the ``(0-based
    rank, label)`` of its documents with a label > 0 by rank, the judged
    documents per label (*levels*) and the *n* documents ranked.

    The ideal ranks the relevant documents by label, ties in the ranking's
    order, those not ranked last.  A relevant document ranked at r and placed
    at s in the ideal is in both prefixes from depth max(r, s) on, so the
    overlaps come from counting where each enters.
    """
    overlaps, size = _compat_overlaps(ranked, levels, n)
    if not size:
        return 0.0
    score = _rbo(overlaps, p)
    if normalize:
        best = _rbo([min(i, size) for i in range(1, len(overlaps) + 1)], p)
        if best > 0.0:
            score /= best
    return score


def _compat_overlaps(ranked: Sequence[Tuple[int, int]], levels: Mapping[int, int],
                     n: int) -> Tuple[List[int], int]:
    """The overlaps of the ranking with its ideal at depth 1 .. max(n, ideal's
    length), and the ideal's length (see :func:`_compat`)."""
    start: Dict[int, int] = {}  # each label's next place in the ideal
    size = 0
    for lvl in sorted((x for x in levels if x > 0), reverse=True):
        start[lvl] = size
        size += levels[lvl]
    enters = [0] * max(n, size)
    for r, lvl in ranked:
        enters[max(r, start[lvl])] += 1
        start[lvl] += 1
    return list(_accumulate(enters)), size


def _rbo(overlaps: Sequence[int], p: float) -> float:
    """RBO of two prefixes' *overlaps* at depth 1, 2, ...: sum p^(i-1) overlap_i / i
    over sum p^(i-1)."""
    weights = list(_accumulate([1.0] + [p] * (len(overlaps) - 1), lambda a, b: a * b))
    return math.fsum(w * o / i for i, (w, o) in enumerate(zip(weights, overlaps), 1)) / \
        math.fsum(weights)


def compatibility(labels: Iterable[Any], *, p: float = 0.95, normalize: bool = True,
                  ideal: Optional[Iterable[Any]] = None) -> float:
    """Compatibility (Clarke, Vtyurina, Smucker, TOIS 2021): rank-biased overlap
    of the ranking with the ideal ranking of the relevant (label > 0) documents.

    ``RBO(a, b) = sum_{i<=d} p^(i-1) |a[:i] & b[:i]| / i / sum_{i<=d} p^(i-1)``,
    ``d = max(len(ranking), len(ideal))``; with *normalize*, divided by
    ``RBO(ideal, ideal)``.  The ideal sorts the relevant documents by label,
    ties in the ranking's order, the unranked last; *ideal* holds every
    judged label of the query (by default *labels*).  No relevant document: 0.

    >>> round(compatibility([1, 0, 2]), 4)   # (.95/2 + .95**2 * 2/3) / (1 + .95 + .95**2 * 2/3)
    0.4219
    """
    ls = check_labels(labels)
    pp = check_probability(p)
    if not isinstance(normalize, bool):
        raise InvalidArgumentError(f"'normalize' must be a bool (got {normalize!r})")
    il = ls if ideal is None else check_labels(ideal, "ideal")
    levels = Counter(x for x in il if x is not None and x > 0)
    ranked = [(i, x) for i, x in enumerate(ls) if x is not None and x > 0]
    # labels may be floats here: _compat's labels are only compared and counted
    for _, x in ranked:
        if levels[x] == 0:
            raise InvalidArgumentError(f"'ideal' must hold every relevant label of the "
                                       f"ranking (it lacks {x!r})")
    return _compat(ranked, levels, len(ls), pp, normalize)  # type: ignore[arg-type]


def _accuracy_r(ranks: Sequence[int], n: int, k: Optional[int], n_relevant: int) -> float:
    # ir_measures' accuracy: leaves a top k without a relevant document out,
    # and divides by zero on one without a non-relevant one; 0 and 1 here
    top = n if k is None else min(k, n)
    hits = _hits(ranks, top)
    if not hits:
        return 0.0
    nonrelevant = top - hits
    if not nonrelevant:
        return 1.0
    above = sum(rank - 1 - i for i, rank in enumerate(ranks[:hits]))
    return 1.0 - above / (nonrelevant * hits)


def accuracy(labels: Iterable[Any], k: Optional[int] = None, *, rel: Number = 1) -> float:
    """Accuracy (ir_measures'): in the top *k*, 1 minus the mean over the relevant
    documents of the fraction of the non-relevant ones ranked above it.

    ``1 - sum_{d relevant} nonrel_above(d) / (nonrel_k * rel_k)``; a top k
    without a relevant document scores 0, one without a non-relevant 1.

    >>> accuracy([0, 1, 1, 0])   # 1 non-relevant above each of 2, of 2
    0.5
    """
    return _binary(labels, _accuracy_r, check_k(k), rel, "Accuracy")
