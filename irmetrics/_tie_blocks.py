"""The arithmetic of tied blocks, below every formula: closed forms of the
expected values, the orderings that attain the best and the worst, and the
tie note's cheap decisions.  It knows no measure by name: each list function
of :mod:`irmetrics.metrics` declares its tie support next to its formula, and
each family of :mod:`irmetrics.measures` its own.  The modes and the closed
forms are described in :mod:`irmetrics.ties`, the public module.
"""

from __future__ import annotations

import math
from itertools import groupby
from operator import itemgetter
from typing import Any, Callable, Dict, Iterable, List, NamedTuple, Optional, Sequence, Tuple, Union

from ._checks import check_choice, check_list, is_real
from .errors import InvalidArgumentError

__all__ = ["MODES", "check_ties", "TIES_KEY", "TieInfo"]

#: The accepted values of ``ties``.
MODES = ("trec_eval", "expected", "best", "worst")

#: Where :func:`irmetrics.evaluate.query_data_from_scores` leaves a query's
#: blocks in its :class:`~irmetrics.measures.QueryData` (only when a judged
#: document is tied with another document).
TIES_KEY = "ties"

Label = Optional[Union[int, float]]
Block = Tuple[int, int, List[Label]]
#: A block seen by a binary measure: (start, size, relevant documents in it).
Binary = Tuple[int, int, int]
Placed = List[Tuple[int, Label]]
#: A closed form of a binary measure: (binary blocks, n, its parameter (the
#: cutoff k; set_F's weight), R) -> value.
ClosedForm = Callable[[List[Binary], int, Any, int], float]
#: An ordering of the blocks: (blocks, n, best, judged_only) -> (position, label)
#: of the labelled documents once each block is ordered.
Order = Callable[[List[Block], int, bool, bool], Placed]


class TieInfo(NamedTuple):
    """One query's judged documents by block of equal scores, above the depth cut.

    ``n``: documents evaluated (``depth``); ``tied``: the blocks of two or
    more documents holding a judged one, ``(start, size, labels)`` (the
    labels sorted), by start, each starting above *n*; ``single``:
    ``(position, label)`` of the judged documents alone in their block.
    The tie note reads ``tied``; the modes read every block (:meth:`blocks`).
    """

    n: int
    tied: List[Block]
    single: List[Tuple[int, int]]

    def blocks(self) -> List[Block]:
        """Every block holding a judged document, by start."""
        singles: List[Block] = [(p, 1, [x]) for p, x in self.single]
        return sorted(singles + self.tied, key=itemgetter(0))


def check_ties(ties: Any) -> str:
    """*ties* if it is one of :data:`MODES`, else an InvalidArgumentError."""
    return check_choice(ties, "ties", MODES)


# === Blocks ==================================================================


def judged_only(blocks: List[Block], n: int) -> Tuple[List[Block], int]:
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


def binary(blocks: List[Block], rel: Union[int, float]) -> List[Binary]:
    """Each block as ``(start, size, relevant documents in it)``."""
    return [(s, m, _relevant(labels, rel)) for s, m, labels in blocks]


def _relevant(labels: Iterable[Label], rel: Union[int, float]) -> int:
    """How many of *labels* are relevant (>= *rel*)."""
    return sum(1 for x in labels if x is not None and x >= rel)


# === Expected values (closed forms) ==========================================


def _cut(n: int, k: Optional[int]) -> int:
    return n if k is None else min(k, n)


def _above(bb: List[Binary], cut: int) -> Iterable[Tuple[int, int, int, int]]:
    """The blocks that start above position *cut*: ``(start, size, relevant,
    positions above cut)``."""
    for s, m, r in bb:
        c = min(m, cut - s)
        if c <= 0:
            return
        yield s, m, r, c


def _rel_at(bb: List[Binary], cut: int) -> float:
    """Expected relevant documents in the first *cut* positions."""
    total = 0.0
    for _, m, r, c in _above(bb, cut):
        if r:
            total += r if c == m else r * c / m
    return total


def expected_precision(bb: List[Binary], n: int, k: Optional[int], n_rel: int) -> float:
    return _rel_at(bb, _cut(n, k)) / int(k or 1)


def expected_recall(bb: List[Binary], n: int, k: Optional[int], n_rel: int) -> float:
    return _rel_at(bb, _cut(n, k)) / n_rel if n_rel else 0.0


def expected_r_precision(bb: List[Binary], n: int, k: Optional[int], n_rel: int) -> float:
    return _rel_at(bb, min(n_rel, n)) / n_rel if n_rel else 0.0


def expected_relevant_retrieved(bb: List[Binary], n: int, k: Optional[int], n_rel: int) -> float:
    return _rel_at(bb, n)


def expected_f(bb: List[Binary], n: int, weight: float, n_rel: int) -> float:
    """set_F's mean: F is linear in the relevant retrieved (x = *weight*)."""
    if not n_rel or not n:
        return 0.0
    return (1.0 + weight) * _rel_at(bb, n) / (weight * n_rel + n)


def expected_rr(bb: List[Binary], n: int, k: Optional[int], n_rel: int) -> float:
    for s, m, r, c in _above(bb, _cut(n, k)):
        if not r:
            continue
        total = 0.0
        none_yet = 1.0  # no relevant document in the block's first o positions
        for o in range(c):
            total += none_yet * r / (m - o) / (s + o + 1)
            none_yet *= (m - o - r) / (m - o)
            if none_yet <= 0.0:
                break
        return total
    return 0.0


def expected_success(bb: List[Binary], n: int, k: Optional[int], n_rel: int) -> float:
    none = 1.0
    for _, m, r, c in _above(bb, _cut(n, k)):
        for o in range(c):
            if not r:
                break
            none *= (m - o - r) / (m - o)
            if none <= 0.0:
                return 1.0
    return 1.0 - none


def expected_ap(bb: List[Binary], n: int, k: Optional[int], n_rel: int) -> float:
    if not n_rel:
        return 0.0
    total = 0.0
    above = 0
    for s, m, r, c in _above(bb, _cut(n, k)):
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


def mean_gains(blocks: List[Block], top: int, gain_of: Callable[[Label], float]) -> List[float]:
    """The gains of the first *top* positions when each position of a block
    gets the block's mean gain (DCG is linear in the gains)."""
    gains = [0.0] * top
    for s, size, labels in blocks:
        if s >= top:
            break
        g = math.fsum([gain_of(x) for x in labels]) / size
        for i in range(s, min(s + size, top)):
            gains[i] = g
    return gains


# === Best and worst orderings ================================================

def _arrange(blocks: List[Block], key: Callable[[Label], Any]) -> Placed:
    """Each block ordered by *key* (lower first; the documents not listed are
    unjudged), as ``(position, label)`` of the labelled documents."""
    placed: Placed = []
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


def by_relevance(rel: Union[int, float]) -> Order:
    """Best: the relevant documents (label >= *rel*) first, then the unjudged
    and pooled-unjudged, then the judged non-relevant; worst: the reverse."""
    def order(blocks: List[Block], n: int, best: bool, judged_only: bool) -> Placed:
        def kind(x: Label) -> int:
            if x is None or x < 0:
                return 1
            if x >= rel:
                return 0 if best else 2
            return 2 if best else 0
        return _arrange(blocks, kind)
    return order


def by_gain(gain_of: Callable[[Label], float]) -> Order:
    """Best: each block by gain, decreasing; worst: increasing."""
    def order(blocks: List[Block], n: int, best: bool, judged_only: bool) -> Placed:
        return _arrange(blocks, (lambda x: -gain_of(x)) if best else gain_of)
    return order


_EPS = 0.00001  # trec_eval's INFAP_EPSILON


def infap_term(a: int, nn: int, p: int, j: int) -> float:
    """trec_eval's infAP term (m_infap.c) for a relevant document at 0-based
    position *j* with *a* relevant, *nn* non-relevant and *p*
    pooled-unjudged documents above it."""
    if j == 0:
        return 1.0
    return 1.0 / (j + 1) + (j / (j + 1)) * ((a + nn + p) / j) * (
        (a + _EPS) / (a + nn + 2 * _EPS))


def by_infap(rel: Union[int, float]) -> Order:
    """infAP's: the unjudged last (best) or first (worst), the rest of each
    block by dynamic programming over its relevant, non-relevant and
    pooled-unjudged documents."""
    def order(blocks: List[Block], n: int, best: bool, judged_only: bool) -> Placed:
        placed: Placed = []
        a0 = n0 = p0 = 0  # relevant, non-relevant, pooled-unjudged above the block
        for s, size, labels in blocks:
            rels = [x for x in labels if x is not None and x >= rel]
            nons = [x for x in labels if x is not None and 0 <= x < rel]
            pools = [x for x in labels if x is not None and x < 0]
            rest: Sequence[Label] = ()
            if judged_only:  # dropped like the unjudged: they only fill positions
                rest, pools = pools, []
            unj = size - len(rels) - len(nons) - len(pools)
            kinds = _infap_order(len(rels), len(nons), len(pools), s + (0 if best else unj), n,
                                 a0, n0, p0, best, judged_only)
            its = {"r": iter(rels), "n": iter(nons), "p": iter(pools)}
            seq: List[Label] = [next(its[kind]) for kind in kinds]
            filler: List[Label] = list(rest) + [None] * (unj - len(rest))
            for i, x in enumerate(seq + filler if best else filler + seq):
                if x is not None:
                    placed.append((s + i, x))
            a0 += len(rels)
            n0 += len(nons)
            p0 += len(pools)
        return placed
    return order


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
    # f[(i, j, k)]: the best (worst) sum with i, j, k of each placed, the kind
    # placed last and the counts before it; max and min keep the first of
    # equal sums, so "r" wins a tie, then "n"
    pick = max if best else min
    f: Dict[Tuple[int, int, int], Tuple[float, str, Tuple[int, int, int]]] = {}
    f[(0, 0, 0)] = (0.0, "", (0, 0, 0))
    for i in range(nr + 1):
        for j in range(nn + 1):
            for k in range(np_ + 1):
                options = []
                if i:
                    pos = first + i - 1 + j + k
                    t = 0.0
                    if pos < n:
                        a, nnn, pp = a0 + i - 1, n0 + j, p0 + k
                        t = infap_term(a, nnn, pp, a + nnn if judged_only else pos)
                    options.append((f[(i - 1, j, k)][0] + t, "r", (i - 1, j, k)))
                if j:
                    options.append((f[(i, j - 1, k)][0], "n", (i, j - 1, k)))
                if k:
                    options.append((f[(i, j, k - 1)][0], "p", (i, j, k - 1)))
                if options:
                    f[(i, j, k)] = pick(options, key=itemgetter(0))
    order: List[str] = []
    at = (nr, nn, np_)
    while at != (0, 0, 0):
        _, kind, at = f[at]
        order.append(kind)
    order.reverse()
    return order


# === Whether the order of tied scores can move a value (the command line's note)
# (see irmetrics.measures.tie_note_test, which decides for each measure)


class Levels:
    """One query's tied blocks seen at one relevance level."""

    __slots__ = ("mixed", "first_best", "first_worst")

    def __init__(self, tied: List[Block], rel: int, first: int) -> None:
        # (start, size) of the blocks mixing relevant and other documents;
        # the first relevant position of the best and the worst ordering (-1:
        # none), from *first*, the first in trec_eval's order (-1: none),
        # unless a tied block holding a relevant document starts at or before it
        self.mixed: List[Tuple[int, int]] = []
        self.first_best = self.first_worst = first
        found = False
        for s, size, labels in tied:
            r = _relevant(labels, rel)
            if r:
                if not found and (first < 0 or s <= first):
                    self.first_best = s
                    self.first_worst = s + size - r
                found = True
                if r < size:
                    self.mixed.append((s, size))


def gains_mixed(size: int, labels: List[Label]) -> bool:
    # linear gains tell apart the labels above 0; the others (and the
    # unjudged documents) gain 0
    gains = {x if x is not None and x > 0 else 0 for x in labels}
    return len(gains) > 1 or (size > len(labels) and 0 not in gains)


def mixed(blocks: List[Block]) -> bool:
    """Whether a block mixes labels (the unjudged documents among them)."""
    return any(size > len(labels) or len(set(labels)) > 1 for _, size, labels in blocks)


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
    listed = check_list(scores, "scores", "a sequence of numbers",
                        "a sequence of scores, one per label (a list or tuple)")
    out: List[float] = []
    for i, s in enumerate(listed):
        if not is_real(s):
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


def by_score(
    labels: List[Label], scores: Any, ties: Any, call: Callable[[List[Label]], float],
    order: Order, expected: Optional[Callable[[List[Block], int], float]], name: str,
) -> float:
    """A list function's value under *ties*: *labels* (checked) are ranked by
    *scores* (descending), each block of equal scores in every order.

    *call* scores one ordering of the labels: best and worst call it on the
    ordering *order* builds; *expected* gives the mean from the blocks and
    the number of labels (None: the function has no closed form, and
    ``ties="expected"`` is an error).  *name* is the measure's, for that error.
    """
    checked, mode = check_scores(labels, scores, ties)
    if mode == "expected" and expected is None:
        raise InvalidArgumentError(
            f"ties='expected' is not defined for measure {name!r} (it is for "
            "'best' and 'worst')")
    ranking = sorted(range(len(labels)), key=lambda i: -checked[i])
    blocks: List[Block] = []
    start = 0
    for _, tied in groupby(ranking, key=checked.__getitem__):
        block = [labels[i] for i in tied]
        blocks.append((start, len(block), block))
        start += len(block)
    n = len(labels)
    if expected is not None and mode == "expected":
        return float(expected(blocks, n))
    arranged: List[Label] = [None] * n
    for p, x in order(blocks, n, mode == "best", False):
        arranged[p] = x
    return call(arranged)
