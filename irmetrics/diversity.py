"""Diversity and novelty measures over subtopics, identical to NIST's ndeval.

A diversity qrels judges each document per *subtopic* (intent, aspect) of a
query.  These measures reward a ranking that covers many subtopics early and
penalise redundancy, as ndeval (version 4.5, the TREC Web track's tool, also
``pyndeval``) computes them; every value equals ndeval's (see
``docs/diversity.md``).

Catalogue
---------
* :func:`alpha_dcg`, :func:`alpha_ndcg`: alpha-DCG@k, alpha-nDCG@k (Clarke et al., SIGIR 2008).
* :func:`err_ia`, :func:`nerr_ia`: ERR-IA@k, nERR-IA@k (Chapelle et al., CIKM 2009).
* :func:`nrbp`, :func:`nnrbp`: novelty- and rank-biased precision (Clarke et al., ICTIR 2009).
* :func:`precision_ia`: intent-aware precision P-IA@k.
* :func:`subtopic_recall`: S-recall@k (ndeval's ``strec``).
* :func:`ap_ia`: intent-aware average precision (ndeval's ``MAP-IA``).

Common ground, ndeval's:

* A document's *labels* map subtopic ids to relevance; it is relevant to a
  subtopic when its label there is ``>= rel`` (ndeval: ``>= 1``; grades do
  not matter).  ``None`` or ``{}`` marks a document with no judgment.
* ``A``, the number of subtopics, counts only the subtopics with at least one
  relevant document; a query with none scores 0.0 on every measure (ndeval
  prints ``nan`` for nNRBP there: 0/0; likewise for alpha = 0 with
  beta = 1, where every NRBP is 0).
* The novelty gain of the document at rank ``i`` (0-based) is
  ``g_i = sum over its relevant subtopics s of (1 - alpha) ** c_s``, where
  ``c_s`` counts the documents above it relevant to ``s``.
* "Collection-independent" normalisation (alpha-DCG, ERR-IA): divide by the
  same sum for an "ideal ideal" list whose every document covers all ``A``
  subtopics (gain ``A * (1 - alpha) ** i``), except at k = 1, which ndeval
  leaves unnormalised.
* "Collection-dependent" normalisation (alpha-nDCG, nERR-IA, nNRBP): divide
  by the value of an ideal ranking of the judged documents, built greedily
  (the exact ideal is NP-hard): at each rank the document with the highest
  novelty gain given the ranks above, ties going to the greater document id.
  A ranking can therefore beat the greedy ideal and score above 1.
* The arithmetic is ndeval's, operation by operation (gains decay by
  repeated multiplication, sums run left to right in doubles, subtopics in
  numeric order), so values are equal to the last bit.
"""

from __future__ import annotations

import heapq
import math
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from ._checks import check_int, check_k, check_list, check_probability, check_rel, kind_of
from .errors import InvalidArgumentError

__all__ = [
    "alpha_dcg",
    "alpha_ndcg",
    "err_ia",
    "nerr_ia",
    "nrbp",
    "nnrbp",
    "precision_ia",
    "subtopic_recall",
    "ap_ia",
]

#: ndeval's output columns, in its order (what ``irmetrics --ndeval`` prints).
NDEVAL_MEASURES = (
    "ERR-IA@5", "ERR-IA@10", "ERR-IA@20", "nERR-IA@5", "nERR-IA@10", "nERR-IA@20",
    "alpha-DCG@5", "alpha-DCG@10", "alpha-DCG@20", "alpha-nDCG@5", "alpha-nDCG@10",
    "alpha-nDCG@20", "NRBP", "nNRBP", "MAP-IA", "P-IA@5", "P-IA@10", "P-IA@20",
    "strec@5", "strec@10", "strec@20",
)

Number = Union[int, float]
# a ranked document relevant to some subtopic: (0-based rank, subtopic positions)
Row = Tuple[int, Tuple[int, ...]]
# a novelty gain at a rank: (0-based rank, gain)
Scored = List[Tuple[int, float]]
SubtopicLabels = Optional[Mapping[Any, Any]]


# === Checks ==================================================================


def _subtopic_id(value: Any, where: str) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    raise InvalidArgumentError(f"{where}: a subtopic id must be a str or an int (got {value!r})")


def _label(value: Any, where: str) -> Number:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        raise InvalidArgumentError(f"{where}: a label must be a number (got {value!r})")
    return value


def subtopic_order(ids: Iterable[str]) -> List[str]:
    """Subtopic (or topic) ids in ndeval's order: numbers by value (ndeval's
    only kind), then the rest."""
    return sorted(ids, key=lambda s: (0, int(s), s) if s.isascii() and s.isdigit() else (1, 0, s))


# === Per-query preparation ===================================================


class Topics:
    """One query's judgments as the measures read them.

    ``relevant``: ``{doc id: positions of the subtopics it is relevant to}``
    (documents relevant to none are left out: they gain nothing, and ndeval's
    greedy ideal puts them last); ``n_relevant``: relevant documents per
    subtopic position; ``n_subtopics``: ``A``.  Positions follow
    :func:`subtopic_order` over the subtopics with a relevant document.
    """

    __slots__ = ("ids", "relevant", "n_relevant", "n_subtopics", "_ideal")

    def __init__(self, judgments: Mapping[str, Mapping[Any, Number]], rel: Number) -> None:
        topics = [s for s, docs in judgments.items() if any(v >= rel for v in docs.values())]
        relevant: Dict[Any, List[int]] = {}
        counts: List[int] = []
        self.ids = subtopic_order(topics)
        for j, s in enumerate(self.ids):
            n = 0
            for doc, v in judgments[s].items():
                if v >= rel:
                    relevant.setdefault(doc, []).append(j)
                    n += 1
            counts.append(n)
        self.relevant: Dict[Any, Tuple[int, ...]] = {d: tuple(p) for d, p in relevant.items()}
        self.n_relevant = counts
        self.n_subtopics = len(counts)
        self._ideal: Dict[float, Scored] = {}

    def rows(self, placed: Iterable[Tuple[int, Any]]) -> List[Row]:
        """The relevant documents among ``(rank, doc id)`` pairs (sorted by rank)."""
        out = []
        for i, doc in placed:
            subs = self.relevant.get(doc)
            if subs is not None:
                out.append((i, subs))
        return out

    def ideal(self, alpha: float) -> Scored:
        """The gains of ndeval's greedy ideal ranking (cached per alpha)."""
        got = self._ideal.get(alpha)
        if got is None:
            got = self._ideal[alpha] = _greedy_ideal(self.relevant, self.n_subtopics, alpha)
        return got


class Ranked:
    """A ranking as the formulas read it: the query's *topics*, the relevant
    ranked *rows*, the ranking's length *n*, ``A`` (*a*, by default the
    topics' subtopics) and the relevant documents per subtopic (*n_relevant*,
    by default the topics'); its novelty gains computed once per alpha."""

    __slots__ = ("topics", "rows", "n", "a", "n_relevant", "_novelty")

    def __init__(self, topics: Topics, rows: List[Row], n: int, a: Optional[int] = None) -> None:
        self.topics = topics
        self.rows = rows
        self.n = n
        self.a = topics.n_subtopics if a is None else a
        self.n_relevant: Sequence[int] = topics.n_relevant
        self._novelty: Dict[float, Scored] = {}

    def novelty(self, alpha: float) -> Scored:
        """The novelty gains of the relevant ranked documents (cached per alpha)."""
        got = self._novelty.get(alpha)
        if got is None:
            got = self._novelty[alpha] = _novelty(self.rows, self.topics.n_subtopics, alpha)
        return got

    def top(self, k: int) -> List[Tuple[int, ...]]:
        """The subtopic positions of each relevant ranked document in the top *k*."""
        return [subs for i, subs in self.rows if i < k]


def _greedy_ideal(relevant: Mapping[Any, Tuple[int, ...]], n: int, alpha: float) -> Scored:
    """ndeval's idealResult: rank by highest novelty gain given the ranks above,
    ties to the greater document id.

    Documents relevant to the same subtopics always have the same gain, so
    they wait in one group, greatest id on top.  Gains only fall as ranks
    fill, so a group's last computed gain is an upper bound of its gain now:
    the groups wait in a heap by (last gain, top id), and the group on top
    is taken once its gain, brought up to date, still tops the heap (a lazy
    greedy, rather than ndeval's quadratic scan; the same choices, as the
    tests check against ndeval).
    """
    order = sorted(relevant)
    position = {d: i for i, d in enumerate(order)}
    groups: Dict[Tuple[int, ...], List[int]] = {}
    for d in order:  # ascending: each group's greatest id last
        groups.setdefault(relevant[d], []).append(position[d])
    signatures = list(groups)
    stacks = [groups[sig] for sig in signatures]
    gains = [1.0] * n
    keep = 1.0 - alpha
    # (-gain, -top id, group): heapq's smallest is the greatest (gain, id)
    heap = [(-float(len(sig)), -stacks[g][-1], g) for g, sig in enumerate(signatures)]
    heapq.heapify(heap)
    out: Scored = []
    rank = 0
    while heap:
        _, top, g = heap[0]
        score = 0.0
        for j in signatures[g]:
            score += gains[j]
        if heap[0] != (-score, top, g):
            heapq.heapreplace(heap, (-score, top, g))
            if heap[0][2] != g:
                continue  # another group may be better: look again
        # g tops the heap with its current gain: rank its greatest document
        heapq.heappop(heap)
        for j in signatures[g]:
            gains[j] *= keep
        out.append((rank, score))
        rank += 1
        stack = stacks[g]
        stack.pop()
        if stack:
            heapq.heappush(heap, (-score, -stack[-1], g))
    return out


# === The formulas (ndeval's arithmetic) ======================================


def _novelty(rows: Sequence[Row], n: int, alpha: float) -> Scored:
    # the novelty gain of each relevant ranked document (ndeval's "score")
    gains = [1.0] * n
    keep = 1.0 - alpha
    out: Scored = []
    for i, subs in rows:
        score = 0.0
        for j in subs:
            score += gains[j]
            gains[j] *= keep
        out.append((i, score))
    return out


def _dcg_term(gain: float, i: int) -> float:
    return gain * (math.log(2.0) / math.log(i + 2.0))


def _err_term(gain: float, i: int) -> float:
    return gain / (i + 1)


def _dcg_slopes(x: float) -> Tuple[float, float, float]:
    # w(x) = log(2) / log(x + 2) and the first two derivatives of log(w)
    ln = math.log(x + 2.0)
    return math.log(2.0) / ln, -1.0 / ((x + 2.0) * ln), (1.0 + ln) / ((x + 2.0) * ln) ** 2


def _err_slopes(x: float) -> Tuple[float, float, float]:
    # w(x) = 1 / (x + 1) and the first two derivatives of log(w)
    return 1.0 / (x + 1.0), -1.0 / (x + 1.0), 1.0 / (x + 1.0) ** 2


#: Ranks of the ideal ideal list summed one by one before the tail's formula.
_EXACT_RANKS = 1 << 16

# Gauss-Legendre nodes and weights, 8 points on [-1, 1] (the positive half)
_GAUSS = (
    (0.18343464249564978, 0.36268378337836166),
    (0.525532409916329, 0.3137066458778869),
    (0.7966664774136267, 0.22238103445337443),
    (0.9602898564975362, 0.10122853629037706),
)


def _ideal_ideal(
    k: int, alpha: float, n: int, term: Callable[[float, int], float],
    slopes: Callable[[float], Tuple[float, float, float]],
) -> float:
    """``sum(term(A * (1 - alpha) ** i, i) for i < k)``: the ideal ideal list's
    value at k, added as ndeval adds it (the gain decays by multiplication).

    The terms never grow, so once one leaves the sum unchanged every later
    one does too, and the loop stops there with the full loop's value: for
    any alpha not near 0 within a few hundred ranks, whatever k is.  If
    the sum still moves after :data:`_EXACT_RANKS` ranks (alpha near 0 and
    a larger k), the remaining ranks are added by :func:`_ideal_tail`, so no
    cutoff, however large, costs more than that many ranks.
    """
    gain = float(n)
    ideal = 0.0
    keep = 1.0 - alpha
    for i in range(min(k, _EXACT_RANKS)):
        total = ideal + term(gain, i)
        if total == ideal:
            return ideal
        ideal = total
        gain *= keep
    if k <= _EXACT_RANKS:
        return ideal
    return ideal + _ideal_tail(_EXACT_RANKS, k - 1, alpha, n, slopes, ideal)


def _ideal_tail(
    first: int, last: int, alpha: float, n: int,
    slopes: Callable[[float], Tuple[float, float, float]], above: float,
) -> float:
    """``sum(f(i) for first <= i <= last)``, ``f(x) = A (1 - alpha)^x w(x)``,
    by the Euler-Maclaurin formula: the integral (Gauss-Legendre on panels
    at most half their start and ``1 / -log(1 - alpha)`` wide) plus the end
    corrections up to the third derivative.  It is reached only with
    ``alpha`` below about ``40 / _EXACT_RANKS``, where the next correction
    is below ``f * (alpha + 1 / first) ** 5 / 30240``: far below a double's
    precision of the sum."""
    c = math.log1p(-alpha)  # f(x) = A exp(c x) w(x)

    def f(x: float) -> float:
        return n * math.exp(c * x) * slopes(x)[0]

    def derivatives(x: float) -> Tuple[float, float]:
        # with h = log(w) and its derivatives h1, h2, h3: the first derivative of f
        # is f (c + h1), the third f ((c + h1)^3 + 3 (c + h1) h2 + h3); h3 (about
        # 2 / x^3) is left out, below 1e-14 at x >= first
        w, h1, h2 = slopes(x)
        fx = n * math.exp(c * x) * w
        s = c + h1
        return fx * s, fx * (s * s * s + 3.0 * s * h2)

    a, end = float(first), float(last)
    integral = 0.0
    while a < end:
        if c < 0.0 and n * math.exp(c * a) * slopes(a)[0] / -c < (above + integral) * 2.0**-60:
            break  # the rest of the integral, below f(a) / -c, cannot change the sum
        width = a / 2.0 if c == 0.0 else min(a / 2.0, -1.0 / c)
        b = min(a + width, end)
        mid, half = (a + b) / 2.0, (b - a) / 2.0
        integral += half * math.fsum(wt * (f(mid - half * x) + f(mid + half * x))
                                     for x, wt in _GAUSS)
        a = b
    d1_first, d3_first = derivatives(float(first))
    d1_last, d3_last = derivatives(end)
    return math.fsum([
        integral, (f(float(first)) + f(end)) / 2.0,
        (d1_last - d1_first) / 12.0, -(d3_last - d3_first) / 720.0,
    ])


def _normalised(
    scored: Scored, k: int, alpha: float, n: int, term: Callable[[float, int], float],
    slopes: Callable[[float], Tuple[float, float, float]],
) -> float:
    """``sum(term(g_i, i) for i < k)`` over the same sum for the ideal ideal
    list (gain A * (1 - alpha) ** i), the latter left out at k = 1."""
    if n == 0 or k < 1:
        return 0.0
    total = 0.0
    for i, score in scored:
        if i >= k:
            break
        total += term(score, i)
    if k == 1:
        return total
    return total / _ideal_ideal(k, alpha, n, term, slopes)


# The one signature of the kernels: (ranking, cutoff k, alpha, beta); a kernel
# without a cutoff, alpha or beta ignores it.
Kernel = Callable[[Ranked, int, float, float], float]


def _alpha_dcg(r: Ranked, k: int, alpha: float, beta: float) -> float:
    """sum(g_i * log(2) / log(i + 2) for i < k), normalised by :func:`_normalised`."""
    return _normalised(r.novelty(alpha), k, alpha, r.a, _dcg_term, _dcg_slopes)


def _err_ia(r: Ranked, k: int, alpha: float, beta: float) -> float:
    """sum(g_i / (i + 1) for i < k), normalised by :func:`_normalised`."""
    return _normalised(r.novelty(alpha), k, alpha, r.a, _err_term, _err_slopes)


def _alpha_ndcg(r: Ranked, k: int, alpha: float, beta: float) -> float:
    run = _alpha_dcg(r, k, alpha, beta)
    if not run:
        return 0.0
    return run / _normalised(r.topics.ideal(alpha), k, alpha, r.a, _dcg_term, _dcg_slopes)


def _nerr_ia(r: Ranked, k: int, alpha: float, beta: float) -> float:
    # ndeval tests the run's alpha-DCG, not its ERR, for zero (the same thing)
    if not _alpha_dcg(r, k, alpha, beta):
        return 0.0
    ideal = _normalised(r.topics.ideal(alpha), k, alpha, r.a, _err_term, _err_slopes)
    return _err_ia(r, k, alpha, beta) / ideal


def _rbp(scored: Scored, alpha: float, beta: float, n: int) -> float:
    """sum(g_i * beta ** i) * (1 - (1 - alpha) * beta) / A, over the whole ranking."""
    if n == 0:
        return 0.0
    total = 0.0
    decay = 1.0
    at = 0
    for i, score in scored:
        while at < i:  # beta ** i as ndeval gets it: one multiplication a rank
            decay *= beta
            at += 1
        total += score * decay
    return total * ((1 - (1 - alpha) * beta) / n)


def _nrbp(r: Ranked, k: int, alpha: float, beta: float) -> float:
    return _rbp(r.novelty(alpha), alpha, beta, r.a)


def _nnrbp(r: Ranked, k: int, alpha: float, beta: float) -> float:
    """The ranking's NRBP over the greedy ideal's."""
    best = _rbp(r.topics.ideal(alpha), alpha, beta, r.a)
    # ndeval divides anyway: 0/0 (nan) for a query without relevant subtopics,
    # and for alpha = 0 with beta = 1, where every NRBP is 0
    return _nrbp(r, k, alpha, beta) / best if best else 0.0


def _precision_ia(r: Ranked, k: int, alpha: float, beta: float) -> float:
    """(relevant (document, subtopic) pairs in the top k) / (k * A)."""
    if r.a == 0 or k < 1:
        return 0.0
    return sum(map(len, r.top(k))) / (k * r.a)


def _subtopic_recall(r: Ranked, k: int, alpha: float, beta: float) -> float:
    """(subtopics with a relevant document in the top k) / A."""
    if r.a == 0 or k < 1:
        return 0.0
    return len(set().union(*r.top(k))) / r.a


def _ap_ia(r: Ranked, k: int, alpha: float, beta: float) -> float:
    """mean over subtopics s of AP_s: sum(P@i over ranks i relevant to s) / R_s."""
    n_relevant = r.n_relevant
    n = len(n_relevant)
    if n == 0:
        return 0.0
    count = [0] * n
    total = [0.0] * n
    for i, subs in r.rows:
        for j in subs:
            count[j] += 1
            total[j] += count[j] / (i + 1)
    ap = 0.0
    for j in range(n):
        if n_relevant[j]:
            ap += total[j] / n_relevant[j]
    return ap / n


# === List-level functions ====================================================


def _judgments(ideal: Any) -> Dict[str, Dict[Any, Number]]:
    """*ideal*, the query's judgments ``{subtopic: {doc id: label}}``, checked."""
    if not isinstance(ideal, Mapping):
        raise InvalidArgumentError(
            "'ideal' must be the query's judgments, {subtopic: {doc id: label}} "
            f"(got {kind_of(ideal)})"
        )
    judged = {}
    for s, docs in ideal.items():
        sid = _subtopic_id(s, "ideal")
        if not isinstance(docs, Mapping):
            raise InvalidArgumentError(
                f"ideal[{s!r}] must be a mapping of doc id to label (got {kind_of(docs)})"
            )
        judged[sid] = {d: _label(v, f"ideal[{s!r}]") for d, v in docs.items()}
    return judged


def _prepare(
    labels: Iterable[SubtopicLabels],
    rel: Any,
    ideal: Optional[Mapping[Any, Mapping[Any, Any]]] = None,
    n_subtopics: Any = None,
) -> Ranked:
    """The ranking: the topics of the query (from *ideal*, else from *labels*),
    and A (*n_subtopics*, by default the subtopics with a relevant document)."""
    r = check_rel(rel)
    what = "a sequence with one {subtopic: label} mapping (or None) per ranked document"
    ranked: List[Dict[str, Number]] = []
    for i, item in enumerate(check_list(labels, "labels", what, what)):
        if item is None:
            ranked.append({})
            continue
        if not isinstance(item, Mapping):
            raise InvalidArgumentError(
                f"labels[{i}] must be a {{subtopic: label}} mapping or None "
                f"(got {kind_of(item)} {item!r})"
            )
        where = f"labels[{i}]"
        ranked.append({_subtopic_id(s, where): _label(v, where) for s, v in item.items()})
    if ideal is None:
        # the ranked documents are the judged ones; the greater id wins a tie
        # of the greedy ideal, so the earlier ranked gets the greater id
        judged: Dict[str, Dict[Any, Number]] = {}
        for i, item in enumerate(ranked):
            for s, v in item.items():
                judged.setdefault(s, {})[-i] = v
    else:
        judged = _judgments(ideal)
    topics = Topics(judged, r)
    # the ranked documents' labels, against the subtopic positions
    position = {s: j for j, s in enumerate(topics.ids)}
    rows: List[Row] = []
    for i, item in enumerate(ranked):
        subs = tuple(sorted(position[s] for s, v in item.items() if v >= r and s in position))
        if subs:
            rows.append((i, subs))
    a = topics.n_subtopics
    if n_subtopics is not None:
        what = f"an int at least the number of subtopics the labels cover, {a}"
        a = check_int(n_subtopics, "n_subtopics", a, what=what)
    return Ranked(topics, rows, len(ranked), a)


def _value(kernel: Kernel, r: Ranked, k: Any = None, alpha: Any = 0.5, beta: Any = 0.5) -> float:
    """*kernel*'s value of the ranking *r* (:func:`_prepare`'s), the other arguments checked."""
    al = check_probability(alpha, "alpha", "[0, 1]")
    be = check_probability(beta, "beta", "(0, 1]")
    kk = check_k(k)
    return kernel(r, r.n if kk is None else kk, al, be)


def alpha_dcg(
    labels: Iterable[SubtopicLabels],
    k: Optional[int] = None,
    *,
    alpha: float = 0.5,
    n_subtopics: Optional[int] = None,
    rel: Number = 1,
) -> float:
    """alpha-DCG@k with ndeval's "collection-independent" normalisation.

    ``alpha-DCG@k = sum(g_i / log2(i + 2)) / sum(A (1 - alpha)^i / log2(i + 2))``, both over i < k,

    where ``g_i = sum((1 - alpha) ** c_s)`` over the subtopics ``s`` the
    document at rank ``i`` (0-based) is relevant to, ``c_s`` counting the
    documents above it relevant to ``s``; at k = 1 the value is ``g_0``
    itself (ndeval leaves rank 1 unnormalised).  *labels* holds one
    ``{subtopic: label}`` mapping (or None) per ranked document;
    *n_subtopics* (``A``) defaults to the subtopics the labels cover;
    ``k=None`` is the whole list.

    >>> labels = [{"1": 1, "2": 1}, {"1": 1}, None, {"3": 1}]
    >>> round(alpha_dcg(labels, 1), 6)   # g_0 = 1 + 1
    2.0
    >>> # (2 + 0.5/log2(3)) / (3 + 1.5/log2(3)) = 2.315465 / 3.946395
    >>> round(alpha_dcg(labels, 2), 6)
    0.586729
    """
    return _value(_alpha_dcg, _prepare(labels, rel, n_subtopics=n_subtopics), k, alpha)


def alpha_ndcg(
    labels: Iterable[SubtopicLabels],
    k: Optional[int] = None,
    *,
    alpha: float = 0.5,
    ideal: Optional[Mapping[Any, Mapping[Any, Any]]] = None,
    rel: Number = 1,
) -> float:
    """alpha-nDCG@k: alpha-DCG@k over that of ndeval's greedy ideal ranking.

    ``alpha-nDCG@k = alpha-DCG@k(labels) / alpha-DCG@k(greedy ideal)`` (0.0
    when the top k has no relevant document).  *ideal* is the query's
    judgments ``{subtopic: {doc id: label}}`` (``Qrels.subtopics(qid)``),
    from which the ideal is built greedily, ties to the greater document id;
    by default the documents of *labels* themselves (ties to the earlier).

    >>> labels = [{"1": 1}, {"1": 1}, {"2": 1}]
    >>> # ideal: {1}, {2}, {1}; (1 + 0.5/log2(3)) / (1 + 1/log2(3)) = 1.315465 / 1.630930
    >>> round(alpha_ndcg(labels, 2), 6)
    0.806574
    """
    return _value(_alpha_ndcg, _prepare(labels, rel, ideal=ideal), k, alpha)


def err_ia(
    labels: Iterable[SubtopicLabels],
    k: Optional[int] = None,
    *,
    alpha: float = 0.5,
    n_subtopics: Optional[int] = None,
    rel: Number = 1,
) -> float:
    """ERR-IA@k as ndeval computes it (collection-independent normalisation).

    ``ERR-IA@k = sum(g_i / (i + 1) for i < k) / sum(A (1 - alpha)^i / (i + 1) for i < k)``

    with the novelty gains ``g_i`` of :func:`alpha_dcg` (ndeval's intent-aware
    ERR with binary judgments: each subtopic stops the user with probability
    alpha); at k = 1 the value is ``g_0``.

    >>> round(err_ia([{"1": 1}, {"2": 1}], 2), 6)   # (1 + 1/2) / (2 + 0.5)
    0.6
    """
    return _value(_err_ia, _prepare(labels, rel, n_subtopics=n_subtopics), k, alpha)


def nerr_ia(
    labels: Iterable[SubtopicLabels],
    k: Optional[int] = None,
    *,
    alpha: float = 0.5,
    ideal: Optional[Mapping[Any, Mapping[Any, Any]]] = None,
    rel: Number = 1,
) -> float:
    """nERR-IA@k: ERR-IA@k over that of ndeval's greedy ideal ranking (see :func:`alpha_ndcg`).

    >>> round(nerr_ia([{"1": 1}, {"1": 1}, {"2": 1}], 2), 6)   # 1.25 / 1.5
    0.833333
    """
    return _value(_nerr_ia, _prepare(labels, rel, ideal=ideal), k, alpha)


def nrbp(
    labels: Iterable[SubtopicLabels],
    *,
    alpha: float = 0.5,
    beta: float = 0.5,
    n_subtopics: Optional[int] = None,
    rel: Number = 1,
) -> float:
    """Novelty- and rank-biased precision over the whole ranking.

    ``NRBP = (1 - (1 - alpha) * beta) / A * sum(g_i * beta ** i)``

    with the novelty gains ``g_i`` of :func:`alpha_dcg` and the patience
    *beta* in (0, 1].

    >>> nrbp([{"1": 1}, None, {"2": 1}])   # (1 - 0.25) / 2 * (1 + 0.25)
    0.46875
    """
    return _value(_nrbp, _prepare(labels, rel, n_subtopics=n_subtopics), None, alpha, beta)


def nnrbp(
    labels: Iterable[SubtopicLabels],
    *,
    alpha: float = 0.5,
    beta: float = 0.5,
    ideal: Optional[Mapping[Any, Mapping[Any, Any]]] = None,
    rel: Number = 1,
) -> float:
    """NRBP over that of ndeval's greedy ideal ranking (see :func:`alpha_ndcg`).

    >>> nnrbp([{"1": 1}, None, {"2": 1}])   # 1.25 / (1 + 0.5)
    0.8333333333333334
    """
    return _value(_nnrbp, _prepare(labels, rel, ideal=ideal), None, alpha, beta)


def precision_ia(
    labels: Iterable[SubtopicLabels],
    k: Optional[int] = None,
    *,
    n_subtopics: Optional[int] = None,
    rel: Number = 1,
) -> float:
    """Intent-aware precision: precision@k per subtopic, averaged over the ``A`` subtopics.

    ``P-IA@k = |{(i, s) : i < k, label_i[s] >= rel}| / (k * A)``

    >>> precision_ia([{"1": 1, "2": 1}, {"1": 1}, None], 2)   # 3 / (2 * 2)
    0.75
    """
    return _value(_precision_ia, _prepare(labels, rel, n_subtopics=n_subtopics), k)


def subtopic_recall(
    labels: Iterable[SubtopicLabels],
    k: Optional[int] = None,
    *,
    n_subtopics: Optional[int] = None,
    rel: Number = 1,
) -> float:
    """Subtopic recall (S-recall, ndeval's ``strec``): the share of the ``A``
    subtopics with a relevant document in the top k.

    >>> subtopic_recall([{"1": 1}, {"1": 1}, {"2": 1}], 2)
    0.5
    """
    return _value(_subtopic_recall, _prepare(labels, rel, n_subtopics=n_subtopics), k)


def ap_ia(
    labels: Iterable[SubtopicLabels],
    *,
    n_relevant: Optional[Mapping[Any, int]] = None,
    rel: Number = 1,
) -> float:
    """Intent-aware average precision (ndeval's MAP-IA, per query).

    ``AP-IA = (1 / A) * sum over subtopics s of AP_s``, where ``AP_s`` sums
    the precision of subtopic ``s`` at each rank relevant to it and divides
    by ``n_relevant[s]``, the documents relevant to ``s`` (default: those in
    *labels*).

    >>> ap_ia([{"1": 1}, {"2": 1}, {"1": 1}])   # ((1 + 2/3) / 2 + (1/2) / 1) / 2
    0.6666666666666666
    """
    ranked = _prepare(labels, rel)
    topics = ranked.topics
    counts = list(topics.n_relevant)
    if n_relevant is not None:
        if not isinstance(n_relevant, Mapping):
            raise InvalidArgumentError(
                f"'n_relevant' must map subtopic ids to counts (got {kind_of(n_relevant)})"
            )
        given = {_subtopic_id(s, "n_relevant"): c for s, c in n_relevant.items()}
        for s, c in given.items():
            if isinstance(c, bool) or not isinstance(c, int) or c < 0:
                raise InvalidArgumentError(
                    f"n_relevant[{s!r}] must be a non-negative int (got {c!r})"
                )
        for j, s in enumerate(topics.ids):
            c = given.get(s, counts[j])
            if c < counts[j]:
                raise InvalidArgumentError(
                    f"n_relevant[{s!r}] must be at least the relevant labels given, "
                    f"{counts[j]} (got {c})"
                )
            counts[j] = c
        # subtopics no ranked document is relevant to: AP_s = 0, but they count in A
        covered = set(topics.ids)
        counts.extend(c for s, c in given.items() if c and s not in covered)
    ranked.n_relevant = counts
    return _ap_ia(ranked, ranked.n, 0.5, 0.5)
