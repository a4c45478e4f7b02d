"""Tie-aware evaluation: the value of a measure over the orderings of tied scores.

trec_eval ranks documents by score and breaks ties by document id
(descending), so renaming a document can change a score.  Here a query's
ranking is a sequence of *blocks* of equal scores, and each block may be
ordered in any way.  Four modes:

``"trec_eval"``
    trec_eval's own order (ties by document id descending): today's value.
``"expected"``
    the exact mean over every ordering of every block, in closed form
    (McSherry and Najork, "Computing Information Retrieval Performance
    Measures Efficiently in the Presence of Tied Scores", ECIR 2008): no
    sampling, no enumeration.
``"best"`` / ``"worst"``
    the exact maximum / minimum over those orderings, by building the
    ordering that attains it and scoring it with the measure's one formula.

A block is ``(start, size, labels)``: its first 0-based position, how many
documents it holds, and the labels of its judged documents (``-1`` for
pooled-but-unjudged ones); the rest of the block is unjudged.  Blocks
without a judged document do not matter and are never listed, so a long,
mostly unjudged ranking costs as much as its judged documents.

Closed forms for ``"expected"`` (a block at *s* of *m* documents, *r* of
them relevant, *B* relevant documents in the blocks above it, *K* the
cutoff, never beyond the *n* documents ranked; each position of a block
holds a relevant document with probability r/m):

* relevant in the top K: ``E[rel@K] = sum over blocks of r * c / m``, where
  ``c = min(m, max(0, K - s))`` positions of the block are in the top K.
  Then ``P@k = E[rel@K] / k``, ``recall@k = E[rel@K] / R``,
  ``Rprec = E[rel@min(R, n)] / R``, ``num_rel_ret = E[rel@n]`` and
  ``set_F = (1 + x) E[rel@n] / (x R + n)``, x trec_eval's weight (F is linear in the number of
  relevant retrieved, so its mean is F of the mean).
* ``success@k = 1 - prod over blocks of C(m - r, c) / C(m, c)`` (the chance
  that no relevant document is among the block's first c positions).
* ``RR`` (and ``RR@k``): in the first block holding a relevant document,
  the first one is at offset o with probability
  ``prod_{j<o} (m - j - r) / (m - j) * r / (m - o)``;
  ``E[RR] = sum over o < c of that / (s + o + 1)``.
* ``AP`` and ``AP@k``: ``sum over positions i < K of P(rel at i) *
  E[rel in ranks <= i | rel at i] / (i + 1)``, divided by R, where for
  offset o in the block ``P(rel at i) = r / m`` and the conditional count is
  ``B + 1 + o (r - 1) / (m - 1)``.
* ``nDCG`` and ``nDCG@k``: DCG is linear in the gains, so every position
  of a block gets the block's mean gain (whatever the discount of each
  position, a callable one too); the ideal DCG does not depend on the order.

Orderings for ``"best"`` and ``"worst"`` (within each block; the blocks stay
in place).  "Relevant" is ``label >= rel``; judged non-relevant documents
(``0 <= label < rel``), pooled-unjudged (``-1``) and unjudged ones are told
apart only where the measure does:

* P, recall, AP, RR, success, Rprec, num_rel_ret, set_F, iprec_at_recall,
  Rprec_mult and bpref: best puts the relevant documents first, then the
  unjudged and pooled-unjudged, then the judged non-relevant; worst puts the
  judged non-relevant first, then the unjudged, then the relevant (bpref
  counts judged non-relevant documents above each relevant one; the others
  see only relevant or not).
* nDCG: best sorts the block by gain, decreasing; worst, increasing.
* infAP: a relevant document's term falls as unjudged documents (outside
  the pool) are placed above it, but rises or falls with the judged
  non-relevant and pooled-unjudged ones above it depending on the counts.
  So best puts the unjudged last, worst puts them first, and the order of
  the relevant, non-relevant and pooled-unjudged documents is chosen by
  dynamic programming over how many of each have been placed
  (``O(r * n * p)`` per block).

The tests check every closed form and ordering against the mean, maximum
and minimum over every ordering, scored by pytrec_eval.

>>> from irmetrics import evaluate
>>> run = {"q": {"a": 1.0, "b": 1.0}}          # a relevant, b not: tied
>>> evaluate({"q": {"a": 1}}, run, "recip_rank", ties="expected")["recip_rank"]  # (1 + 1/2) / 2
0.75
>>> evaluate({"q": {"a": 1}}, run, "recip_rank", ties="worst")["recip_rank"]
0.5
"""

from __future__ import annotations

import math
import numbers
from typing import (
    Any,
    Callable,
    Dict,
    Iterable,
    List,
    NamedTuple,
    Optional,
    Sequence,
    Tuple,
    Union,
)

from . import metrics as _m
from .errors import InvalidArgumentError
from .measures import Env, Measure, QueryData, _gain_of, _opt_int

__all__ = ["MODES", "check_ties", "check_measure", "supports", "tie_value", "TIES_KEY",
           "TieInfo"]

#: The accepted values of ``ties``.
MODES = ("trec_eval", "expected", "best", "worst")

#: Where :func:`irmetrics.evaluate.query_data_from_scores` leaves a query's
#: blocks in its :class:`~irmetrics.measures.QueryData` (only when a judged
#: document is tied with another document).
TIES_KEY = "ties"

Label = Optional[Union[int, float]]
Block = Tuple[int, int, List[Label]]


class TieInfo(NamedTuple):
    """One query's judged documents, placed by block of equal scores.

    ``total``: documents ranked; ``n``: documents evaluated (``depth``);
    ``entries``: ``(block start, block size, label)`` of every judged
    document whose block starts above *n*, sorted.
    """

    total: int
    n: int
    entries: List[Tuple[int, int, int]]


# === Which measures each mode has ============================================

_ORDER_FREE = frozenset({"runid", "num_q", "num_ret", "num_rel"})
_EXPECTED = frozenset({
    "P", "recall", "map", "gm_map", "map_cut", "recip_rank", "RR_cut", "ndcg", "ndcg_cut",
    "success", "Rprec", "num_rel_ret", "set_F",
}) | _ORDER_FREE
_EXTREMES = _EXPECTED | {"bpref", "gm_bpref", "infAP", "iprec_at_recall", "Rprec_mult"}
_GAIN = frozenset({"ndcg", "ndcg_cut"})


def check_ties(ties: Any) -> str:
    """*ties* if it is one of :data:`MODES`, else an InvalidArgumentError."""
    if not isinstance(ties, str) or ties not in MODES:
        raise InvalidArgumentError(
            f"'ties' must be one of {', '.join(repr(x) for x in MODES)} (got {ties!r})"
        )
    return ties


def supports(m: Measure, mode: str) -> bool:
    """Whether *mode* is defined for measure *m*."""
    if mode == "trec_eval":
        return True
    return m.family.key in (_EXPECTED if mode == "expected" else _EXTREMES)


def check_measure(name: str, m: Measure, mode: str) -> None:
    if not supports(m, mode):
        have = sorted(_EXPECTED if mode == "expected" else _EXTREMES)
        raise InvalidArgumentError(
            f"ties={mode!r} is not defined for measure {name!r} "
            f"(it is for: {', '.join(have)})"
        )


# === Blocks ==================================================================


def _blocks(entries: Iterable[Tuple[int, int, Any]]) -> List[Block]:
    """Group ``(start, size, label)`` entries (sorted by start) into blocks."""
    out: List[Block] = []
    for start, size, label in entries:
        if out and out[-1][0] == start:
            out[-1][2].append(label)
        else:
            out.append((start, size, [label]))
    return out


def _judged_only(blocks: List[Block], n: int) -> Tuple[List[Block], int]:
    """The blocks once unjudged and pooled-unjudged documents are dropped
    (``judged_only``): only judged labels count, and positions close up."""
    out: List[Block] = []
    at = 0
    for start, size, labels in blocks:
        kept: List[Label] = [x for x in labels if x is not None and x >= 0]
        if start + size > n and kept:
            raise InvalidArgumentError(
                "ties='expected' with judged_only is not defined when a block of tied "
                "judged documents straddles the depth cut"
            )
        if kept:
            out.append((at, len(kept), kept))
            at += len(kept)
    return out, at


# === Expected values (closed forms) ==========================================


def _binary(blocks: List[Block], rel: Union[int, float]) -> List[Tuple[int, int, int]]:
    return [(s, m, sum(1 for x in labels if x is not None and x >= rel))
            for s, m, labels in blocks]


def _rel_at(bb: List[Tuple[int, int, int]], cut: int) -> float:
    """Expected relevant documents in the first *cut* positions."""
    total = 0.0
    for s, m, r in bb:
        c = min(m, cut - s)
        if c <= 0:
            break
        if r:
            total += r if c == m else r * c / m
    return total


def _expected_rr(bb: List[Tuple[int, int, int]], cut: int) -> float:
    for s, m, r in bb:
        if s >= cut:
            return 0.0
        if not r:
            continue
        total = 0.0
        none_yet = 1.0  # no relevant document in the block's first o positions
        for o in range(min(m, cut - s)):
            total += none_yet * r / (m - o) / (s + o + 1)
            none_yet *= (m - o - r) / (m - o)
            if none_yet <= 0.0:
                break
        return total
    return 0.0


def _expected_success(bb: List[Tuple[int, int, int]], cut: int) -> float:
    none = 1.0
    for s, m, r in bb:
        c = min(m, cut - s)
        if c <= 0:
            break
        for o in range(c):
            if not r:
                break
            none *= (m - o - r) / (m - o)
            if none <= 0.0:
                return 1.0
    return 1.0 - none


def _expected_ap(bb: List[Tuple[int, int, int]], cut: int, n_rel: int) -> float:
    if not n_rel:
        return 0.0
    total = 0.0
    above = 0
    for s, m, r in bb:
        c = min(m, cut - s)
        if c <= 0:
            break
        if r:
            if m == 1:
                total += (above + 1) / (s + 1)
            else:
                p = r / m
                step = (r - 1) / (m - 1)
                for o in range(c):
                    total += p * (above + 1 + o * step) / (s + o + 1)
        above += r
    return total / n_rel


def _expected(m: Measure, q: QueryData, blocks: List[Block], n: int, env: Env) -> Any:
    key = m.family.key
    if key in _ORDER_FREE:
        return m.compute(q, env)
    if key in _GAIN:
        return _expected_ndcg(m, q, blocks, n)
    rel = m.rel(env)
    bb = _binary(blocks, rel)
    n_rel = q.n_relevant(rel)
    k = _opt_int(m.param)
    cut = n if k is None else min(k, n)
    if key == "P":
        return _rel_at(bb, cut) / int(m.param or 1)
    if key == "recall":
        return _rel_at(bb, cut) / n_rel if n_rel else 0.0
    if key == "Rprec":
        return _rel_at(bb, min(n_rel, n)) / n_rel if n_rel else 0.0
    if key == "num_rel_ret":
        return _rel_at(bb, n)
    if key == "set_F":
        if not n_rel or not n:
            return 0.0
        x = float(m.option("weight", 1.0))  # trec_eval's x, the usual F's beta**2
        return (1.0 + x) * _rel_at(bb, n) / (x * n_rel + n)
    if key == "success":
        return _expected_success(bb, cut)
    if key in ("recip_rank", "RR_cut"):
        return _expected_rr(bb, cut)
    # map, gm_map, map_cut
    return _expected_ap(bb, cut, n_rel)


def _expected_ndcg(m: Measure, q: QueryData, blocks: List[Block], n: int) -> float:
    k = _opt_int(m.param)
    disc = _m._discount_function(m.option("discount", "log2"), None)
    gain_of = _gain_of(m)
    top = n if k is None else min(k, n)
    gains = [0.0] * top
    for s, size, labels in blocks:
        if s >= top:
            break
        g = math.fsum([gain_of(x) for x in labels]) / size
        for i in range(s, min(s + size, top)):
            gains[i] = g
    if not m.options or m.options == (("discount", "log2"),):
        ideal = q.ideal_gains()
    else:
        ideal_labels: List[Label] = []
        for lvl, c in q.levels.items():
            ideal_labels.extend([lvl] * c)
        ideal = [g for g in _m._ideal_gains(ideal_labels, gain_of, k) if g > 0]
    return _m._ndcg_gains(gains, ideal, k, disc)


# === Best and worst orderings ================================================

Key = Callable[[Label], Any]


def _binary_keys(rel: Union[int, float], best: bool) -> Key:
    def kind(x: Label) -> int:
        if x is None or x < 0:
            return 1
        if x >= rel:
            return 0 if best else 2
        return 2 if best else 0
    return kind


def _gain_keys(m: Measure, best: bool) -> Key:
    gain_of = _gain_of(m)
    if best:
        return lambda x: -gain_of(x)
    return gain_of


def _arrange(blocks: List[Block], key: Key) -> List[Tuple[int, Label]]:
    """Each block ordered by *key* (lower first; the documents not listed are
    unjudged), as ``(position, label)`` of the labelled documents."""
    placed: List[Tuple[int, Label]] = []
    for s, size, labels in blocks:
        listed = sorted(labels, key=key)
        unlisted = size - len(labels)
        k_none = key(None)
        i = s
        filled = False
        for x in listed:
            if not filled and key(x) >= k_none:
                i += unlisted
                filled = True
            if x is not None:
                placed.append((i, x))
            i += 1
    return placed


_EPS = 0.00001  # trec_eval's INFAP_EPSILON


def _infap_term(a: int, nn: int, p: int, j: int) -> float:
    # trec_eval's term for a relevant document at 0-based position j with a
    # relevant, nn non-relevant and p pooled-unjudged documents above it
    if j == 0:
        return 1.0
    fj = float(j)
    return 1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * ((a + nn + p) / fj) * (
        (a + _EPS) / (a + nn + 2 * _EPS))


def _arrange_infap(
    blocks: List[Block], rel: Union[int, float], n: int, best: bool, judged_only: bool
) -> List[Tuple[int, Label]]:
    placed: List[Tuple[int, Label]] = []
    a0 = n0 = p0 = 0  # relevant, non-relevant, pooled-unjudged above the block
    for s, size, labels in blocks:
        rels = [x for x in labels if x is not None and x >= rel]
        nons = [x for x in labels if x is not None and 0 <= x < rel]
        pools = [x for x in labels if x is not None and x < 0]
        if judged_only:  # dropped like the unjudged: they only fill positions
            rest = pools
            pools = []
        else:
            rest = []
        unj = size - len(rels) - len(nons) - len(pools)
        order = _infap_order(len(rels), len(nons), len(pools), s + (0 if best else unj), n,
                             a0, n0, p0, best, judged_only)
        its = {"r": iter(rels), "n": iter(nons), "p": iter(pools)}
        seq: List[Label] = [next(its[kind]) for kind in order]
        filler: List[Label] = list(rest) + [None] * (unj - len(rest))
        for i, x in enumerate(seq + filler if best else filler + seq):
            if x is not None:
                placed.append((s + i, x))
        a0 += len(rels)
        n0 += len(nons)
        p0 += len(pools)
    return placed


def _infap_order(
    nr: int, nn: int, np_: int, first: int, n: int, a0: int, n0: int, p0: int,
    best: bool, judged_only: bool,
) -> List[str]:
    """The order of a block's relevant (r), non-relevant (n) and pooled (p)
    documents, placed from position *first* on, that maximises (best) or
    minimises the sum of the relevant documents' infAP terms: dynamic
    programming over how many of each have been placed."""
    if nr == 0:
        return ["n"] * nn + ["p"] * np_
    f: Dict[Tuple[int, int, int], Tuple[float, str]] = {(0, 0, 0): (0.0, "")}
    for i in range(nr + 1):
        for j in range(nn + 1):
            for k in range(np_ + 1):
                if i == j == k == 0:
                    continue
                pick: Optional[Tuple[float, str]] = None
                if i:
                    pos = first + i - 1 + j + k
                    t = 0.0
                    if pos < n:
                        a, nnn, pp = a0 + i - 1, n0 + j, p0 + k
                        t = _infap_term(a, nnn, pp, a + nnn if judged_only else pos)
                    pick = (f[(i - 1, j, k)][0] + t, "r")
                for c in ((f[(i, j - 1, k)][0], "n") if j else None,
                          (f[(i, j, k - 1)][0], "p") if k else None):
                    if c is not None and (pick is None or (c[0] > pick[0] if best
                                                           else c[0] < pick[0])):
                        pick = c
                if pick is not None:  # always: (i, j, k) is not (0, 0, 0)
                    f[(i, j, k)] = pick
    order: List[str] = []
    i, j, k = nr, nn, np_
    while i or j or k:
        kind = f[(i, j, k)][1]
        order.append(kind)
        if kind == "r":
            i -= 1
        elif kind == "n":
            j -= 1
        else:
            k -= 1
    order.reverse()
    return order


def _placed_for(
    m: Measure, blocks: List[Block], n: int, env: Env, best: bool, judged_only: bool
) -> List[Tuple[int, Label]]:
    key = m.family.key
    if key == "infAP":
        return _arrange_infap(blocks, m.rel(env), n, best, judged_only)
    if key in _GAIN:
        return _arrange(blocks, _gain_keys(m, best))
    return _arrange(blocks, _binary_keys(m.rel(env), best))


# === Per query ===============================================================


def tie_value(
    mode: str, m: Measure, q: QueryData, info: TieInfo, env: Env, judged_only: bool
) -> Any:
    """The value of *m* on one query under ties *mode* ("expected", "best", "worst").

    *q* is the query's data in trec_eval's order, *info* its blocks.
    """
    blocks = _blocks(info.entries)
    if mode == "expected":
        n = info.n
        if judged_only:
            blocks, n = _judged_only(blocks, info.n)
        return _expected(m, q, blocks, n, env)
    placed = _placed_for(m, blocks, info.n, env, mode == "best", judged_only)
    kept: List[Tuple[int, int]] = sorted(
        (i, int(x)) for i, x in placed if i < info.n and x is not None)  # qrels labels: ints
    if judged_only:
        data = QueryData([x for _, x in kept if x >= 0], q.levels)
    else:
        data = QueryData.sparse(info.n, kept, q.levels)
    return m.compute(data, env)


# === Whether the order of tied scores moves a value (the command line's note) =
#
# The note asks, for each query, whether any requested measure with best and
# worst takes two values over the orderings of its tied blocks.  Computing
# both extremes of every measure costs far more than the evaluation, so the
# answer is found from the blocks themselves wherever it is exact, and the
# extremes are computed only for the measures and queries where it is not.
#
# A block whose documents all look alike to a measure cannot move it.  For
# the binary measures (a document is relevant, label >= rel, or not), a block
# that mixes relevant and other documents (the unjudged included) at 0-based
# start s, of m documents, r of them relevant, moves:
#
# * AP (map, gm_map, map_cut@k) iff s < K (K: the cutoff, at most the n
#   documents evaluated): some ordering puts a relevant document at s and
#   another at s + 1, and swapping the two changes its term (or drops it at
#   the cutoff);
# * a count of relevant documents in the top K (P@k, recall@k, Rprec with
#   K = min(R, n), num_rel_ret and set_F with K = n) iff s < K < s + m: the
#   best ordering holds min(r, c) of them above the cut, the worst
#   max(0, r - (m - c)), c = K - s, and the two differ iff 0 < c < m;
# * RR and success from the first relevant position of the best ordering
#   (the first block holding a relevant document, at its start) and of the
#   worst one (that block's s + m - r).
#
# nDCG with linear gains and the log2 discount moves iff a block mixing
# gains starts above the cut: the discounts of a block's positions above the
# cut fall strictly (0 below it), so sorting its gains down and up gives two
# different sums (the ideal does not move).  The other measures (bpref,
# infAP, iprec_at_recall, Rprec_mult, other options) need a block mixing
# relevant and other documents (bpref and infAP read only the documents
# above a relevant one), or any mixed block; then the best and worst values
# are computed as for ties="best" and "worst".  With
# judged_only, unjudged documents drop out and positions close up: the same
# reasoning on the judged documents' blocks, unless a block straddles the
# depth cut (then everything is computed).  These decide on the exact
# values, where the computed extremes of two different values could only
# agree by rounding (a difference below the precision of a double); the
# tests compare them with best != worst on random queries.

_NOTE_AP = frozenset({"map", "gm_map", "map_cut"})
_NOTE_COUNT = frozenset({"P", "recall", "Rprec", "num_rel_ret", "set_F"})
_NOTE_FIRST = frozenset({"recip_rank", "RR_cut", "success"})
_NOTE_BINARY = _NOTE_AP | _NOTE_COUNT | _NOTE_FIRST | {
    "bpref", "gm_bpref", "infAP", "iprec_at_recall", "Rprec_mult"}


class _Rule(NamedTuple):
    kind: str  # "ap", "count", "rr", "success", "ndcg", or "compute" (the extremes)
    rel: int  # the relevance level of a binary measure (0: every label counts)
    cut: Optional[int]  # the cutoff k; None: all n (for "count" with rel_cut: R)
    rel_cut: bool  # "count": the cut is R (Rprec)
    measure: Measure


def _note_rule(m: Measure, env: Env) -> Optional[_Rule]:
    key = m.family.key
    if not supports(m, "best") or key in _ORDER_FREE:
        return None
    if key in _GAIN:
        simple = all(k in ("gain", "discount") for k, _ in m.options) and \
            m.option("gain") in (None, "linear") and m.option("discount") in (None, "log2")
        return _Rule("ndcg" if simple else "compute", 0, _opt_int(m.param), False, m)
    rel = m.rel(env)
    if key not in _NOTE_BINARY or isinstance(rel, bool) or not isinstance(rel, int) or rel < 1:
        return _Rule("compute", 0, None, False, m)
    if key in _NOTE_AP:
        return _Rule("ap", rel, _opt_int(m.param), False, m)
    if key in _NOTE_COUNT and (key != "set_F" or all(k == "rel" for k, _ in m.options)):
        cut = None if key in ("num_rel_ret", "set_F", "Rprec") else _opt_int(m.param)
        return _Rule("count", rel, cut, key == "Rprec", m)
    if key in ("recip_rank", "RR_cut"):
        return _Rule("rr", rel, _opt_int(m.param), False, m)
    if key == "success":
        return _Rule("success", rel, _opt_int(m.param), False, m)
    return _Rule("compute", rel, None, False, m)


class _Levels:
    """One query's blocks seen at one relevance level."""

    __slots__ = ("mixed", "first_best", "first_worst")

    def __init__(self, blocks: List[Block], rel: int) -> None:
        # (start, size) of the blocks mixing relevant and other documents;
        # the first relevant position of the best and the worst ordering (-1: none)
        self.mixed: List[Tuple[int, int]] = []
        self.first_best = self.first_worst = -1
        for s, size, labels in blocks:
            r = 0
            for x in labels:
                if x is not None and x >= rel:
                    r += 1
            if r:
                if self.first_best < 0:
                    self.first_best = s
                    self.first_worst = s + size - r
                if r < size:
                    self.mixed.append((s, size))


def tie_note_test(
    measures: Sequence[Measure], env: Env, judged_only: bool
) -> Callable[[QueryData, TieInfo], bool]:
    """The command line's note: a function of one query's data (in trec_eval's
    order) and blocks telling whether the order of its tied scores moves the
    value of any of *measures* that has ties "best" and "worst" (the order-free
    counts aside): whether best and worst differ for one of them."""
    rules = [r for r in (_note_rule(m, env) for m in dict.fromkeys(measures)) if r is not None]
    # the decisions from the blocks first, the computed extremes last
    rules.sort(key=lambda r: r.kind == "compute")

    def moved(q: QueryData, info: TieInfo) -> bool:
        blocks = _blocks(info.entries)
        n = info.n
        if not any(size > len(labels) or len(set(labels)) > 1
                   for _, size, labels in blocks if size > 1):
            return False  # every block holds one label: nothing can move
        if judged_only:
            if any(s + size > n and any(x is not None and x >= 0 for x in labels)
                   for s, size, labels in blocks):
                return any(_extremes_differ(r.measure, q, info, env, judged_only)
                           for r in rules)
            blocks, n = _judged_only(blocks, n)
        levels: Dict[int, _Levels] = {}
        could: Dict[int, bool] = {}  # by relevance level: _could_move
        gains_from = -1  # the start of the first block mixing gains (n: none)
        for rule in rules:
            if rule.kind == "compute":
                c = could.get(rule.rel)
                if c is None:
                    c = could[rule.rel] = _could_move(blocks, rule.rel)
                if c and _extremes_differ(rule.measure, q, info, env, judged_only):
                    return True
                continue
            if rule.kind == "ndcg":
                if gains_from < 0:
                    gains_from = next((s for s, size, labels in blocks
                                       if size > 1 and _gains_mixed(size, labels)), n)
                if gains_from < (n if rule.cut is None else min(rule.cut, n)):
                    return True
                continue
            rel = rule.rel
            at = levels.get(rel)
            if at is None:
                at = levels[rel] = _Levels(blocks, rel)
            if rule.rel_cut:
                cut = min(q.n_relevant(rel), n)
            else:
                cut = n if rule.cut is None else min(rule.cut, n)
            if rule.kind == "ap":
                if at.mixed and at.mixed[0][0] < cut:
                    return True
            elif rule.kind == "count":
                if any(s < cut < s + size for s, size in at.mixed):
                    return True
            elif 0 <= at.first_best < cut:
                worst = at.first_worst
                if (worst != at.first_best) if rule.kind == "rr" else worst >= cut:
                    return True
        return False

    return moved


def _gains_mixed(size: int, labels: List[Label]) -> bool:
    # linear gains tell apart the labels above 0; the others (and the
    # unjudged documents) gain 0
    gains = {x if x is not None and x > 0 else 0 for x in labels}
    return len(gains) > 1 or (size > len(labels) and 0 not in gains)


def _could_move(blocks: List[Block], rel: int) -> bool:
    """Whether a block mixes relevant documents (label >= *rel*) with others,
    or (*rel* 0) mixes any labels."""
    for _, size, labels in blocks:
        if size == 1:
            continue
        if not rel:
            if size > len(labels) or len(set(labels)) > 1:
                return True
        else:
            r = sum(1 for x in labels if x is not None and x >= rel)
            if 0 < r < size:
                return True
    return False


def _extremes_differ(
    m: Measure, q: QueryData, info: TieInfo, env: Env, judged_only: bool
) -> bool:
    return bool(tie_value("best", m, q, info, env, judged_only)
                != tie_value("worst", m, q, info, env, judged_only))


# === One list of labels with scores (the metric functions' scores=, ties=) ====


def check_scores(labels: Sequence[Any], scores: Any, ties: Any) -> Tuple[List[float], str]:
    """Validate the list functions' ``scores`` and ``ties``."""
    if scores is None:
        raise InvalidArgumentError(f"'ties' needs 'scores' (got ties={ties!r} and no scores)")
    if ties is None:
        raise InvalidArgumentError(
            "'scores' needs 'ties': one of 'expected', 'best', 'worst'"
        )
    if ties not in ("expected", "best", "worst"):
        raise InvalidArgumentError(
            "'ties' must be one of 'expected', 'best', 'worst' for a list of labels, "
            f"which has no document ids to break ties by (got {ties!r})"
        )
    if isinstance(scores, (str, bytes, set, frozenset, dict)):
        raise InvalidArgumentError(
            f"'scores' must be a sequence of numbers (got {type(scores).__name__})")
    out: List[float] = []
    for i, s in enumerate(scores):
        if isinstance(s, bool) or not isinstance(s, numbers.Real):
            raise InvalidArgumentError(f"'scores' must hold numbers (got {s!r} at index {i})")
        f = float(s)
        if math.isnan(f):
            raise InvalidArgumentError(f"'scores' must not hold NaN (at index {i})")
        out.append(f)
    if len(out) != len(labels):
        raise InvalidArgumentError(
            f"'scores' must have one score per label (got {len(out)} scores "
            f"for {len(labels)} labels)"
        )
    return out, ties


def list_value(
    name: str, labels: Sequence[Label], scores: List[float], ties: str,
    call: Callable[[List[Label]], float], param: Optional[Union[int, float]] = None,
    *, rel: Union[int, float] = 1, n_relevant: Optional[int] = None, beta: float = 1.0,
    ideal: Optional[Iterable[Any]] = None, gain: Any = "linear", discount: Any = "log2",
    base: Optional[float] = None,
) -> float:
    """A list function's value under *ties*: *labels* are ranked by *scores*
    (descending), each block of equal scores in every order.

    *call* scores one ordering of the labels (the function itself, without
    scores): best and worst call it on the ordering that attains them.
    """
    from .measures import FAMILIES

    fam = next(f for f in FAMILIES if f.key == name)
    options: Tuple[Tuple[str, Any], ...] = ()
    if "rel" in fam.options:
        options = (("rel", rel),)
    if name == "set_F":
        options += (("weight", float(beta) ** 2),)
    m = Measure(fam, param, options)
    check_measure(fam.key, m, ties)
    order = sorted(range(len(labels)), key=lambda i: -scores[i])
    entries: List[Tuple[int, int, Label]] = []
    i = 0
    while i < len(order):
        j = i
        while j < len(order) and scores[order[j]] == scores[order[i]]:
            j += 1
        entries.extend((i, j - i, labels[order[p]]) for p in range(i, j))
        i = j
    blocks = _blocks(entries)
    n = len(labels)
    env = Env(relevance_level=1)
    if name in _GAIN:
        disc = _m._discount_function(discount, base)
        if ties != "expected" and callable(discount):
            # best and worst sort each tied block by gain, which attains the
            # extreme only for a discount that never rises with the rank; the
            # mean needs no such thing (every position gets the block's mean gain)
            raise InvalidArgumentError(
                f"ties={ties!r} needs discount='log2' or 'jk': it sorts each tied block by "
                "gain, the best (worst) order only for a discount that never rises with the "
                "rank, which a callable need not be; ties='expected' takes any discount")
        gain_of = _m._gain_function(gain)
        if ties != "expected":
            key = (lambda x: -gain_of(x)) if ties == "best" else gain_of
            return _ordered(blocks, n, _arrange(blocks, key), call)
        k = _opt_int(param)
        top = n if k is None else min(k, n)
        gains = [0.0] * top
        for s, size, ls in blocks:
            g = math.fsum([gain_of(x) for x in ls]) / size
            for p in range(s, min(s + size, top)):
                gains[p] = g
        ideal_gains = _m._ideal_gains(labels if ideal is None else list(ideal), gain_of, k)
        return _m._ndcg_gains(gains, ideal_gains, k, disc)
    if ties != "expected":
        placed = _placed_for(m, blocks, n, env, ties == "best", False)
        return _ordered(blocks, n, placed, call)
    r = sum(1 for x in labels if x is not None and x >= rel)
    if n_relevant is not None:
        r = n_relevant
    q = QueryData([], {math.ceil(rel): r} if r else {})
    judged: List[Block] = [(s, size, [x for x in ls if x is not None])
                           for s, size, ls in blocks]
    return float(_expected(m, q, judged, n, env))


def _ordered(
    blocks: List[Block], n: int, placed: List[Tuple[int, Label]],
    call: Callable[[List[Label]], float],
) -> float:
    arranged: List[Label] = [None] * n
    for p, x in placed:
        arranged[p] = x
    return call(arranged)
