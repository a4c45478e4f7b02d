"""irmetrics.prefs and irmetrics.zscores by hand (trec_eval's own outputs: test_trec_eval_rest.py)."""

import io
import math
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from irmetrics import Qrels, evaluate
from irmetrics.errors import InvalidArgumentError, TrecFormatError
from irmetrics.prefs import (
    count_prefs,
    prefs_avgjg,
    prefs_avgjg_rnonrel,
    prefs_num_prefs_ful,
    prefs_num_prefs_ful_ret,
    prefs_num_prefs_poss,
    prefs_pair,
    prefs_simp,
    prefs_simp_imp,
    prefs_simp_ret,
)
from irmetrics.zscores import MISSING_ZSCORE, zscored


def test_equivalence_classes_by_hand():
    # one sub-group: a(2) > b(1) > c(0), a > c; ranking b, a (c not retrieved).
    # docid ranks: b 0, a 1, c 2.  a > b: both retrieved, not fulfilled; a > c and
    # b > c: implied, fulfilled.
    p = count_prefs([("g", "s", "a", 2.0), ("g", "s", "b", 1.0), ("g", "s", "c", 0.0)], ["b", "a"])
    (g,) = p.groups
    assert (g.ful_ret, g.poss_ret, g.ful_imp, g.poss_imp, g.notoccur) == (0, 1, 2, 2, 0)
    assert (g.rel, g.rel_ret, g.nonrel, g.nonrel_ret) == (2, 2, 1, 0)
    assert (prefs_num_prefs_poss(p), prefs_num_prefs_ful(p), prefs_num_prefs_ful_ret(p)) == (3, 2, 0)
    assert prefs_simp(p) == 2 / 3 and prefs_simp_ret(p) == 0.0 and prefs_simp_imp(p) == 2 / 3
    # R = 2 >= N = 1: ful + rel_ret * (R - N) = 2 + 2 over poss + rel * (R - N) = 3 + 2
    assert prefs_avgjg_rnonrel(p) == 4 / 5


def test_sub_groups_are_closed_under_transitivity():
    # s1: a > b; s2: b > c.  Transitivity adds a > c: 3 preferences, all fulfilled by a, b, c.
    prefs = [("g", "s1", "a", 1.0), ("g", "s1", "b", 0.5), ("g", "s2", "b", 2.0),
             ("g", "s2", "c", 1.0)]
    p = count_prefs(prefs, ["a", "b", "c"])
    assert sorted(p.groups[0].pairs) == [(0, 1), (0, 2), (1, 2)]
    assert prefs_simp(p) == 1.0
    assert prefs_simp(count_prefs(prefs, ["c", "b", "a"])) == 0.0
    with pytest.raises(InvalidArgumentError, match="inconsistent preferences"):
        count_prefs(prefs + [("g", "s3", "c", 2.0), ("g", "s3", "a", 1.0)], [])


def test_pairs_and_groups():
    # two groups disagree on a and b: the pair scores 1/2; per group 1 and 0
    p = count_prefs([("u1", "0", "a", 1.0), ("u1", "0", "b", 0.0),
                     ("u2", "0", "b", 1.0), ("u2", "0", "a", 0.0)], ["a", "b"])
    assert [g.ecs for g in p.groups] == [[(1.0, [0]), (0.0, [1])], [(1.0, [1]), (0.0, [0])]]
    assert prefs_pair(p) == 0.5 and prefs_simp(p) == 0.5 and prefs_avgjg(p) == 0.5


def _by_pairs(lines, retrieved):
    """form_prefs_counts.c and m_prefs_pair.c to the letter, for groups of one
    sub-group: every preference of every group enumerated, classified by the
    areas of its docid ranks, and the pairs' shares summed in trec_eval's loops."""
    rank = {d: i for i, d in enumerate(retrieved)}
    for d in sorted({d for _, _, d, _ in lines} - rank.keys()):
        rank[d] = len(rank)
    njr, judged = len(retrieved), len(rank)
    counts, tallies = Counter(), []
    for jg in sorted({jg for jg, _, _, _ in lines}):
        members = [(rank[d], level) for g, _, d, level in lines if g == jg]
        tally = [0] * 5  # ful_ret, not_ret, ful_imp, not_imp, notoccur
        for r1, l1 in members:
            for r2, l2 in members:
                if l1 > l2:
                    counts[r1, r2] += 1
                    if r1 < r2:
                        tally[0 if r2 < njr else 2 if r1 < njr else 4] += 1
                    else:
                        tally[1 if r1 < njr else 3 if r2 < njr else 4] += 1
        tallies.append(tally)
    total, n = 0.0, 0
    for rows, columns in [((0, njr), lambda i: (i + 1, njr)), ((0, njr), lambda i: (njr, judged)),
                          ((njr, judged), lambda i: (i + 1, judged))]:
        for i in range(*rows):
            for j in range(*columns(i)):
                if counts[i, j] or counts[j, i]:
                    n += 1
                    total += counts[i, j] / (counts[i, j] + counts[j, i]) if i < njr else 0.0
    return tallies, total / n if n else 0.0


@given(groups=st.lists(st.dictionaries(st.sampled_from("abcdefg"), st.sampled_from([0.0, 1.0, 2.0]),
                                       min_size=1), min_size=1, max_size=3),
       retrieved=st.lists(st.sampled_from("abcdefgh"), unique=True), twice=st.booleans())
def test_counts_equal_the_enumeration_of_every_preference(groups, retrieved, twice):
    # the classes' counts (no preference enumerated) against every preference, one by one;
    # a line given twice counts twice in its group, once in prefs_pair (trec_eval's)
    lines = [(f"g{n}", "s", d, level) for n, g in enumerate(groups) for d, level in g.items()]
    lines += lines[:1] if twice else []
    p = count_prefs(lines, retrieved)
    tallies, pair = _by_pairs(lines, retrieved)
    assert [[g.ful_ret, g.poss_ret - g.ful_ret, g.ful_imp, g.poss_imp - g.ful_imp, g.notoccur]
            for g in p.groups] == tallies
    assert prefs_pair(p) == pair


def test_a_group_of_non_relevant_documents_makes_rnonrel_0():
    # u2 has only level 0: its Rnonrel ratio is 0/0, NaN in trec_eval, whose sum is then
    # not > 0: the value is 0 whatever u1 scores (test data: rest/small, q1)
    p = count_prefs([("u1", "0", "a", 1.0), ("u1", "0", "b", 0.0),
                     ("u2", "0", "c", 0.0), ("u2", "0", "d", 0.0)], ["a", "b"])
    assert prefs_avgjg(p) == 0.5 and prefs_avgjg_rnonrel(p) == 0.0


def test_qrels_from_prefs_file_and_dict():
    text = "q1 u1 s1 a 2\n# a comment\nq1 u1 s1 b 0\n\nq2 u1 s1 c 1.5\n"
    from_file = Qrels.from_prefs(io.StringIO(text))
    from_dict = Qrels.from_prefs({"q1": [("u1", "s1", "a", 2), ("u1", "s1", "b", 0)],
                                  "q2": [("u1", "s1", "c", 1.5)]})
    assert from_file == from_dict
    assert from_file.to_dict() == {"q1": {"a": 1, "b": 0}, "q2": {"c": 1}}
    assert repr(from_file) == "Qrels(2 queries, 3 judgments, with preferences)"
    with pytest.raises(TrecFormatError, match=r"^<file>, line 2: expected 5 columns"):
        Qrels.from_prefs(io.StringIO("q1 u1 s1 a 2\nq1 u1 b 0\n"))
    with pytest.raises(TrecFormatError, match=r"line 1: the level must be a number"):
        Qrels.from_prefs(io.StringIO("q1 u1 s1 a high\n"))


def test_evaluate_reads_preferences_of_any_qrels():
    # a plain qrels is one group, one sub-group (trec_eval -R qrels_prefs): d1(2) > d2(1) > d3(0);
    # ranking d2, d1: d2 > d3 and d1 > d3 implied and fulfilled, d1 > d2 not: 2 of 3
    qrels = {"q": {"d1": 2, "d2": 1, "d3": 0}}
    run = {"q": {"d2": 2.0, "d1": 1.0}}
    result = evaluate(qrels, run, ["prefs_simp", "prefs_num_prefs_poss"])
    assert result.aggregate == {"prefs_simp": 2 / 3, "prefs_num_prefs_poss": 3}


def test_judgment_groups_average():
    # group 1 judges d1 relevant, group 2 d2: AP 1 and 1/2, averaged 3/4; a plain
    # query is one group (map_avgjg = map)
    qrels = Qrels.from_subtopics({"q": {"1": {"d1": 1}, "2": {"d2": 1}}})
    run = {"q": {"d1": 2.0, "d2": 1.0}}
    assert evaluate(qrels, run, ["map_avgjg", "P_avgjg_1"]).aggregate == {
        "map_avgjg": 0.75, "P_avgjg_1": 0.5}
    assert evaluate({"q": {"d2": 1}}, run, ["map_avgjg", "map"]).aggregate == {
        "map_avgjg": 0.5, "map": 0.5}


def test_yaap_by_hand():
    # relevant at ranks 1 and 3 of R = 3: s = 1/1 + 2/3; log((1 + s) / (1 + 3 - s))
    result = evaluate({"q": {"a": 1, "b": 1, "c": 1}}, {"q": {"a": 3.0, "x": 2.0, "b": 1.0}},
                      "yaap")
    s = 1 / 1 + 2 / 3
    assert result["yaap"] == math.log((1 + s) / (1 + 3 - s))


def test_collection_size_reaches_utility():
    # utility 0,0,0,1: N + rel_ret - ret - R = 10 + 1 - 2 - 1
    result = evaluate({"q": {"a": 1}}, {"q": {"a": 2.0, "b": 1.0}}, "utility_0,0,0,1",
                      collection_size=10)
    assert result["utility_0,0,0,1"] == 8.0
    with pytest.raises(InvalidArgumentError, match="collection_size"):
        evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, "map", collection_size=-1)


def test_zscores():
    qrels = {"q1": {"a": 1}, "q2": {"a": 1}}
    run = {"q1": {"a": 1.0}, "q2": {"b": 1.0}}
    result = evaluate(qrels, run, ["P_1", "num_ret", "num_q"])
    # q1: P_1 (1 - 0.5) / 0.25 = 2; q2 absent from the table: -1000000;
    # num_ret of q1: deviation 0 and the value is the mean: 0; num_q stays a count
    z = zscored(result, {"q1": {"P_1": (0.5, 0.25), "num_ret": (1.0, 0.0)}})
    assert z.per_query == {"q1": {"P_1": 2.0, "num_ret": 0.0, "num_q": 1},
                           "q2": {"P_1": MISSING_ZSCORE, "num_ret": MISSING_ZSCORE, "num_q": 1}}
    assert z.aggregate == {"P_1": (2.0 + MISSING_ZSCORE) / 2, "num_ret": MISSING_ZSCORE,
                           "num_q": 2.0}
    assert result.per_query["q1"]["P_1"] == 1.0  # not changed


@pytest.mark.parametrize("line", [("u", "s", "d"), ("u", "s", "d", "high"), ("u", "s", "d", math.nan)])
def test_qrels_from_prefs_checks_the_tuples(line):
    with pytest.raises(InvalidArgumentError, match=r"^the preferences of query 'q' must be "
                                                    r"\(judgment group, sub-group, doc id, level\)"):
        Qrels.from_prefs({"q": [line]})
