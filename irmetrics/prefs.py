"""Preference measures: trec_eval's ``prefs_*`` over judged preferences between documents.

A query's preferences come in judgment groups (JG: one user's information
need) and judgment sub-groups (JSG) within them: inside a JSG, a document
with a higher level is preferred to one with a lower level (trec_eval's
``-R prefs`` file, ``qid jg jsg docno level``; an ordinary qrels is one JSG
per group, ``-R qrels_prefs``).  A JG with one JSG is a set of equivalence
classes, one per level; a JG with several is a partial order, closed under
transitivity.  Each preference A > B is *fulfilled* when A is ranked above B;
it is *retrieved* when both are retrieved, *implied* when one is, and does
*not occur* when neither is (``form_prefs_counts.c``).

:func:`count_prefs` counts them for one query; the ``prefs_*`` functions
below are the 14 measures of trec_eval's ``m_prefs_*.c``, each adding in
trec_eval's order (left to right in doubles).  Levels above 0 are relevant,
0 is non-relevant.

>>> p = count_prefs([("g", "s", "a", 2.0), ("g", "s", "b", 1.0), ("g", "s", "c", 0.0)],
...                 ["b", "a"])
>>> prefs_simp(p)   # a > b not fulfilled; a > c and b > c implied and fulfilled
0.6666666666666666
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections import Counter
from typing import Dict, Iterable, List, Mapping, NamedTuple, Sequence, Tuple

from .errors import InvalidArgumentError
from .metrics import _left_to_right

__all__ = ["count_prefs", "Prefs", "JudgmentGroup", "prefs_num_prefs_poss", "prefs_num_prefs_ful",
           "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair", "prefs_avgjg",
           "prefs_avgjg_rnonrel", "prefs_simp_ret", "prefs_pair_ret", "prefs_avgjg_ret",
           "prefs_avgjg_rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp", "prefs_avgjg_imp"]

Preference = Tuple[str, str, str, float]  # (judgment group, sub-group, doc id, level)


class JudgmentGroup(NamedTuple):
    """One judgment group's counts (``JG`` of ``trec_eval.h``): preferences
    fulfilled and possible among retrieved documents (``ret``), with one of
    the two retrieved (``imp``), with neither (``notoccur``); its relevant and
    non-relevant documents, retrieved or not.  ``ecs``: its equivalence
    classes, ``(level, sorted docid ranks)`` best first, when it has one
    sub-group (its preferences are counted class by class, not listed);
    else ``pairs`` (every preference ``(i, j)``, i preferred); ``levels``:
    each document's level."""

    ful_ret: int
    poss_ret: int
    ful_imp: int
    poss_imp: int
    notoccur: int
    rel: int
    rel_ret: int
    nonrel: int
    nonrel_ret: int
    ecs: List[Tuple[float, List[int]]]
    pairs: List[Tuple[int, int]]
    levels: Dict[int, float]


class Prefs(NamedTuple):
    """A query's preferences against a ranking: its judgment groups and its
    documents (``judged``, the first ``judged_ret`` of them retrieved, by
    docid rank: rank order, then the others by id)."""

    groups: List[JudgmentGroup]
    judged: int
    judged_ret: int


def _judgment_prefs(topics: Mapping[str, Mapping[str, int]]) -> List[Preference]:
    """The preferences of a query's judgments ``{judgment group: {doc id:
    label}}`` (trec_eval's ``-R qrels_prefs``): each group one sub-group
    ``"0"``, the labels as levels."""
    return [(group, "0", doc, float(label))
            for group, docs in topics.items() for doc, label in docs.items()]


def count_prefs(preferences: Iterable[Preference], retrieved: Sequence[str], *,
                query: str = "") -> Prefs:
    """The preferences of one query counted against the judged documents it
    *retrieved*, in rank order (trec_eval's ``form_prefs_counts``)."""
    prefs = list(preferences)
    rank = {d: i for i, d in enumerate(retrieved)}
    for d in sorted({d for _, _, d, _ in prefs} - rank.keys()):
        rank[d] = len(rank)
    rows = sorted((jg, jsg, -level, rank[d]) for jg, jsg, d, level in prefs)
    groups = []
    start = 0
    for i in range(1, len(rows) + 1):
        if i == len(rows) or rows[i][0] != rows[start][0]:
            block = [(jsg, -neg, r) for _, jsg, neg, r in rows[start:i]]
            groups.append(_group(block, len(retrieved), len(rank), query, rows[start][0]))
            start = i
    return Prefs(groups, len(rank), len(retrieved))


def _group(block: List[Tuple[str, float, int]], njr: int, judged: int, query: str,
           jg: str) -> JudgmentGroup:
    """One judgment group's preferences (sorted by sub-group, level down, rank)."""
    where = f"query {query!r}, judgment group {jg!r}"
    ecs: List[Tuple[float, List[int]]] = []
    pairs: List[Tuple[int, int]] = []
    levels: Dict[int, float] = {}
    tally = [0, 0, 0, 0, 0]  # ful_ret, not_ret, ful_imp, not_imp, notoccur
    if len({jsg for jsg, _, _ in block}) == 1:  # equivalence classes: counted, not enumerated
        for _, level, r in block:
            if levels.setdefault(r, level) != level:
                raise InvalidArgumentError(f"{where}: a document has two levels in one sub-group")
            if not ecs or ecs[-1][0] != level:
                ecs.append((level, []))
            ecs[-1][1].append(r)
        for a, (_, first) in enumerate(ecs):
            ret1 = bisect_left(first, njr)
            for _, second in ecs[a + 1:]:
                ret2 = bisect_left(second, njr)
                ful = _before(first[:ret1], second[:ret2])
                not1, not2 = len(first) - ret1, len(second) - ret2
                for n, count in enumerate([ful, ret1 * ret2 - ful, ret1 * not2, not1 * ret2,
                                           not1 * not2]):
                    tally[n] += count
        rel = [r for level, ranks in ecs if level > 0.0 for r in ranks]
        nonrel = [r for level, ranks in ecs if not level > 0.0 for r in ranks]
    else:  # a partial order: each sub-group's, closed under transitivity
        pairs = _closure(block, levels, judged, where)
        rel = [r for r, level in levels.items() if level > 0.0]
        nonrel = [r for r, level in levels.items() if level == 0.0]
        for i, j in pairs:  # both retrieved: i above j or not; i retrieved; j; neither
            tally[(i > j) if max(i, j) < njr else 2 if i < njr else 3 if j < njr else 4] += 1
    ful_ret, not_ret, ful_imp, not_imp, notoccur = tally
    return JudgmentGroup(ful_ret, not_ret + ful_ret, ful_imp, not_imp + ful_imp, notoccur,
                         len(rel), sum(r < njr for r in rel), len(nonrel),
                         sum(r < njr for r in nonrel), ecs, pairs, levels)


def _before(first: Sequence[int], second: Sequence[int]) -> int:
    """How many pairs of *first* and *second* (both sorted) rank the first's
    document above the second's: the preferences of the two classes fulfilled."""
    return sum(bisect_left(first, r) for r in second)


def _closure(block: List[Tuple[str, float, int]], levels: Dict[int, float], judged: int,
             where: str) -> List[Tuple[int, int]]:
    """The preferences of a group of several sub-groups: within each, every
    document over those of lower levels; then every preference transitivity
    implies.  Sets *levels*."""
    above = [0] * judged  # bit j of above[i]: i preferred to j
    for n, (jsg, level, r) in enumerate(block):
        old = levels.get(r, -1.0)
        if (old > 0.0 and level == 0.0) or (old == 0.0 and level > 0.0):
            raise InvalidArgumentError(f"{where}: a document has both level 0 and another")
        levels[r] = level
        for jsg2, level2, r2 in block[n + 1:]:
            if jsg2 == jsg and level2 != level:
                above[r] |= 1 << r2
    members = sorted(levels)
    for k in members:  # Warshall's transitive closure
        bit = 1 << k
        for i in members:
            if above[i] & bit:
                above[i] |= above[k]
    pairs = []
    for i in members:
        for j in members:
            if above[i] >> j & 1 and i != j:
                if above[j] >> i & 1:
                    raise InvalidArgumentError(f"{where}: inconsistent preferences "
                                               f"(two documents each preferred to the other)")
                pairs.append((i, j))
    return pairs


# === The measures (m_prefs_*.c) ===============================================


def _ratio(ful: int, poss: int) -> float:
    # C's double division: 0 / 0 is NaN, and a NaN sum fails "sum > 0.0"
    return ful / poss if poss else math.nan


def prefs_num_prefs_poss(p: Prefs) -> int:
    return sum(g.poss_ret + g.poss_imp + g.notoccur for g in p.groups)


def prefs_num_prefs_ful(p: Prefs) -> int:
    return sum(g.ful_ret + g.ful_imp for g in p.groups)


def prefs_num_prefs_ful_ret(p: Prefs) -> int:
    return sum(g.ful_ret for g in p.groups)


def _in_areas(g: JudgmentGroup, areas: int) -> Tuple[int, int]:
    """A group's preferences (fulfilled, possible) whose documents are both
    retrieved (*areas* 1), one at least (2), or any (3: neither, none fulfilled)."""
    ful, poss = g.ful_ret, g.poss_ret
    if areas > 1:
        ful, poss = ful + g.ful_imp, poss + g.poss_imp
    return ful, poss + (g.notoccur if areas > 2 else 0)


def _simple(ful: int, poss: int) -> float:
    return ful / poss if poss else 0.0


def prefs_simp(p: Prefs) -> float:
    return _simple(prefs_num_prefs_ful(p), prefs_num_prefs_poss(p))


def prefs_simp_ret(p: Prefs) -> float:
    return _simple(prefs_num_prefs_ful_ret(p), sum(g.poss_ret for g in p.groups))


def prefs_simp_imp(p: Prefs) -> float:
    return _simple(prefs_num_prefs_ful(p), sum(g.poss_ret + g.poss_imp for g in p.groups))


def _pair(p: Prefs, areas: int) -> float:
    """prefs_pair (*areas* 3), _imp (2), _ret (1): each pair of documents
    ordered by some group scores the share of its groups the ranking
    fulfils; the mean over the pairs of the first *areas* areas (both
    retrieved; one; neither, which scores 0)."""
    docs = [r for g in p.groups for r in ([r for _, ranks in g.ecs for r in ranks] or g.levels)]
    if len(set(docs)) == len(docs):  # no pair in two groups (m_prefs_pair.c: then prefs_simp's)
        return [prefs_simp_ret, prefs_simp_imp, prefs_simp][areas - 1](p)
    c: Counter[Tuple[int, int]] = Counter()
    for g in p.groups:  # every preference, one by one
        c.update(g.pairs or ((r1, r2) for n, (_, first) in enumerate(g.ecs)
                             for _, second in g.ecs[n + 1:] for r1 in first for r2 in second))
    njr = p.judged_ret
    found = {(min(i, j), max(i, j)) for i, j in c}
    total, n = 0.0, 0
    for i, j in sorted(found, key=lambda ij: (ij[0] >= njr, ij[1] >= njr, ij)):
        area = 1 + (j >= njr) + (i >= njr)
        if area > areas:
            continue
        n += 1
        if area < 3:
            forward = c.get((i, j), 0)
            total += forward / (forward + c.get((j, i), 0))
    return total / n if n else 0.0


def prefs_pair(p: Prefs) -> float:
    return _pair(p, 3)


def prefs_pair_ret(p: Prefs) -> float:
    return _pair(p, 1)


def prefs_pair_imp(p: Prefs) -> float:
    return _pair(p, 2)


def _over_groups(p: Prefs, ratios: Iterable[float]) -> float:
    """The mean of the groups' *ratios* (in order), 0 unless their sum is > 0."""
    total = _left_to_right(ratios)
    return total / len(p.groups) if total > 0.0 else 0.0


def prefs_avgjg(p: Prefs) -> float:
    return _over_groups(p, (_simple(*_in_areas(g, 3)) for g in p.groups))


def prefs_avgjg_ret(p: Prefs) -> float:
    return _over_groups(p, (_simple(*_in_areas(g, 1)) for g in p.groups))


def prefs_avgjg_imp(p: Prefs) -> float:
    return _over_groups(p, (_simple(*_in_areas(g, 2)) for g in p.groups))


def prefs_avgjg_rnonrel(p: Prefs) -> float:
    """prefs_avgjg with each group's non-relevant documents cut (or padded) to R."""
    return _rnonrel(p, retrieved_only=False)


def prefs_avgjg_rnonrel_ret(p: Prefs) -> float:
    """prefs_avgjg_ret with each group's retrieved non-relevant documents cut
    (or padded) to the relevant retrieved ones."""
    return _rnonrel(p, retrieved_only=True)


def _rnonrel(p: Prefs, *, retrieved_only: bool) -> float:
    """The two prefs_avgjg_Rnonrel measures: over all the group's documents,
    or over its retrieved ones only."""
    ratios = []
    for g in p.groups:
        r, n = (g.rel_ret, g.nonrel_ret) if retrieved_only else (g.rel, g.nonrel)
        ful, poss = _in_areas(g, 1 if retrieved_only else 3)
        if r >= n:  # padded with relevant documents (trec_eval's: rel, not rel_ret, both ways)
            ful += g.rel_ret * (r - n)
            poss += g.rel * (r - n)
        else:
            ful, poss = _recount(g, p, r, retrieved_only=retrieved_only)
        ratios.append(_ratio(ful, poss))
    return _over_groups(p, ratios)


def _recount(g: JudgmentGroup, p: Prefs, keep: int, *, retrieved_only: bool) -> Tuple[int, int]:
    """(fulfilled, possible) of a group with only its first *keep*
    non-relevant documents (``recalculate`` of m_prefs_avgjg_Rnonrel*.c,
    its quirks kept: the last class stands for the non-relevant one, and
    it is also compared with its own first *keep* documents)."""
    njr = p.judged_ret
    ful = poss = 0
    scope = njr if retrieved_only else p.judged
    if g.ecs:
        classes = [ranks[:bisect_left(ranks, scope)] for _, ranks in g.ecs]
        comparisons = [(a, b) for n, a in enumerate(classes) for b in classes[n + 1:-1]]
        comparisons += [(a, classes[-1][:keep]) for a in classes]
        for first, second in comparisons:  # fulfilled: the first retrieved and above
            ful += _before(first[:bisect_left(first, njr)], second)
            poss += len(first) * len(second)
        return ful, poss
    seen, cut = 0, scope
    for i in range(scope):
        if g.levels.get(i) == 0.0:
            seen += 1
            if seen == g.rel + 1:
                cut = i
                break
    for i, j in g.pairs:
        if i >= scope or j >= scope or any(x >= cut and g.levels.get(x) == 0.0 for x in (i, j)):
            continue
        if i < njr and i < j:
            ful += 1
        else:
            poss += 1
    return ful, poss + ful
