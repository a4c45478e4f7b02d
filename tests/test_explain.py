"""explain(): the value is evaluate()'s, the rows are trec_eval's order, the
terms add up, the text and HTML say it, and bad input is the library's error."""

import html
import io
import json
import math
import re
import sys
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies_runs import qrels_and_runs

from irmetrics import Explanation, Qrels, Run, evaluate, explain
from irmetrics.cli import main
from irmetrics.errors import (
    DuplicateEntryError,
    InvalidArgumentError,
    IrmetricsWarning,
    UnknownMeasureError,
)
from irmetrics.evaluation import check_options
from irmetrics.explain import MAX_ROWS_SHOWN
from irmetrics.measures import FAMILIES, parse_measure

# The seeds' worked example: relevance 1,1,0,1,0,1 down the ranking, four
# relevant documents in all.
SEED_QRELS = {"q1": {"d1": 1, "d2": 1, "d3": 0, "d4": 1, "d5": 0, "d6": 1}}
SEED_RUN = {"q1": {"d1": 0.9, "d2": 0.8, "d3": 0.7, "d4": 0.6, "d5": 0.5, "d6": 0.4}}


# === Every measure of the registry ==========================================


def _names():
    """One or more names for every family that has a number per query, with
    parameters and options (the text lines runid and relstring have none)."""
    params = {
        "none": [None],
        "cutoff": [1, 3, 10],
        "optional-cutoff": [None, 4],
        "fraction": [0.0, 0.3, 1.0],
        "multiple": [0.2, 1.0, 2.0],
    }
    extra = {
        "rel": [(("rel", 2),)],
        "gain": [(("gain", "exp"),), (("gain", ((0, 0.5), (1, 1.0), (3, 7.0))),)],
        "discount": [(("discount", "jk"),)],
        "beta": [(("beta", 0.5),)],
        "max_label": [(("max_label", 4),)],
        "p": [(("p", 0.5),)],
        "params": [(("params", (("p", 0.5),)),)],  # trec_eval 10.0's rbp_p=0.5
    }
    names = []
    for fam in FAMILIES:
        if fam.text:
            continue
        for param in params[fam.param]:
            option_sets = [()]
            for key in fam.options:
                option_sets += extra.get(key, [])
            for options in option_sets:
                if fam.key == "RBP":
                    options = tuple(sorted(dict((("p", 0.8),) + options).items()))
                names.append(fam.display(param, options))
    return names


NAMES = _names()
# the names trec_eval 9.0.8 has (evaluate()'s default refuses 10.0's)
NAMES_908 = [n for n in NAMES if parse_measure(n).family.since == "9.0.8"]


def test_the_names_cover_the_registry_and_parse_back():
    families = {parse_measure(n).family.key for n in NAMES}
    assert families == {f.key for f in FAMILIES if not f.text}
    # the families with terms of their own (explain= in their entries) have
    # trec_eval's and the other measures this module was written with
    explained = {f.key for f in FAMILIES if f.explain is not None}
    assert {"map", "ndcg_cut", "bpref", "infAP", "G", "Rndcg", "ERR", "RBP", "Judged",
            "RR_cut", "set_F", "11pt_avg", "iprec_at_recall"} <= explained
    for name in NAMES:  # each name is one measure, and its canonical name the same one
        m = parse_measure(name)
        assert parse_measure(m.name) == m


def test_set_f_steps_use_trec_evals_weight():
    # set_F.4 is (4 + 1) P R / (4 P + R); the steps showed b = 1 for any weight (issue 42)
    from irmetrics import explain

    e = explain({"q": {"a": 1, "b": 1, "c": 1}}, {"q": {"a": 2.0, "b": 1.0, "x": 0.5}},
                "q", "F(beta=2)")
    # P = 2/3, R = 2/3: F = 5 * (4/9) / (4 * 2/3 + 2/3) = (20/9) / (10/3) = 2/3
    assert e.value == pytest.approx(2 / 3, abs=1e-15)
    assert any("x = 4" in step for step in e.steps)
    assert any(step.startswith("(1 + 4) *") for step in e.steps)


options = st.fixed_dictionaries({
    "relevance_level": st.sampled_from((1, 1, 2)),
    "depth": st.sampled_from((None, None, 3, 10)),
    "judged_only": st.booleans(),
    "trec_eval": st.sampled_from(("9.0.8", "10.0")),
})


@settings(max_examples=60)
@given(data=qrels_and_runs(), opts=options, pick=st.integers(min_value=0))
def test_value_is_evaluates_for_every_measure(data, opts, pick):
    qrels, run = data
    q, r = Qrels.from_dict(qrels), Run.from_dict(run)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IrmetricsWarning)
        names = NAMES if opts["trec_eval"] == "10.0" else NAMES_908
        result = evaluate(q, r, names, **opts)
    qids = sorted(result.per_query)
    qid = qids[pick % len(qids)]
    for name in names:
        e = explain(q, r, qid, name, **opts)
        assert e.value == result.per_query[qid][name], name
        assert type(e.value) is type(result.per_query[qid][name]), name
        # the derivation's own last number (from the terms) agrees with the
        # value to the four places shown
        last = re.search(r"= (-?\d+(?:\.\d+)?)$", e.steps[-1])
        if last:
            assert abs(float(last.group(1)) - e.value) <= 1.0001e-4, (name, e.steps[-1])
        shown = f"{e.value:.4f}" if isinstance(e.value, float) else str(e.value)
        assert str(e).splitlines()[-1] == f"{e.name} = {shown}"
        assert e._repr_html_().endswith(f"<p><b>{html.escape(e.name)} = {shown}</b></p></div>")


@settings(max_examples=60)
@given(data=qrels_and_runs(), opts=options, pick=st.integers(min_value=0))
def test_rows_are_in_trec_eval_order(data, opts, pick):
    qrels, run = data
    qid = sorted(set(qrels) & set(run))[pick % len(set(qrels) & set(run))]
    e = explain(qrels, run, qid, "P@5", **opts)
    expected = sorted(run[qid].items(), key=lambda item: (item[1], item[0]), reverse=True)
    if opts["depth"] is not None:
        expected = expected[: opts["depth"]]
    labels = []
    for doc, _ in expected:
        x = qrels[qid].get(doc)
        labels.append(-1 if x is not None and x < 0 else x)
    pairs = [(d, s, x) for (d, s), x in zip(expected, labels)
             if not opts["judged_only"] or (x is not None and x >= 0)]
    assert [(r["doc"], r["score"], r["label"]) for r in e.rows] == pairs
    assert [r["rank"] for r in e.rows] == list(range(1, len(pairs) + 1))
    # a tie block holds exactly the neighbours with the same score
    for i, row in enumerate(e.rows):
        same = [j for j in (i - 1, i + 1) if 0 <= j < len(e.rows)
                and e.rows[j]["score"] == row["score"]]
        assert (row["tie"] is not None) == bool(same)
        assert all(e.rows[j]["tie"] == row["tie"] for j in same)


def _close(a, b):
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-15)


@settings(max_examples=60)
@given(data=qrels_and_runs(), pick=st.integers(min_value=0), k=st.sampled_from((1, 3, 10)))
def test_the_terms_add_up_to_the_value(data, pick, k):
    qrels, run = data
    qid = sorted(set(qrels) & set(run))[pick % len(set(qrels) & set(run))]

    def terms(e):
        return [r["contribution"] for r in e.rows if r.get("contribution") is not None]

    ap = explain(qrels, run, qid, f"AP@{k}")
    if ap.n_relevant:
        assert _close(math.fsum(terms(ap)) / ap.n_relevant, ap.value)
    else:
        assert ap.value == 0.0 and ap.n_relevant == 0
    p = explain(qrels, run, qid, f"P@{k}")
    assert sum(1 for r in p.rows[:k] if r["relevant"]) / k == p.value
    nd = explain(qrels, run, qid, f"nDCG@{k}")
    idcg = nd.ideal["dcg"]
    assert _close(math.fsum(nd.ideal["gains"][i] / math.log2(i + 2)
                            for i in range(len(nd.ideal["gains"]))), idcg)
    if idcg > 0:
        assert _close(math.fsum(terms(nd)) / idcg, nd.value)
        # the ideal ranking: the judged labels, best first, cut at k
        best = sorted((x for x in qrels[qid].values() if x > 0), reverse=True)[:k]
        assert nd.ideal["labels"] == best
    else:
        assert nd.value == 0.0
    for name, scale in (("bpref", "R"), ("infAP", "R"), ("binG", "R"), ("RBP", "rbp"),
                        ("ERR", 1.0), ("G", "ideal")):
        e = explain(qrels, run, qid, name)
        total = math.fsum(terms(e))
        if scale == "R":
            want = total / e.n_relevant if e.n_relevant and total else 0.0
        elif scale == "rbp":
            want = (1 - 0.8) * total
        elif scale == "ideal":
            ideal = math.fsum(e.ideal["gains"])
            want = total / ideal if ideal > 0 else 0.0
        else:
            want = total
        assert _close(want, e.value), name


def _left_to_right(terms):
    """C's ``sum += term``, in order (not sum(), which compensates in Python 3.12+)."""
    total = 0.0
    for t in terms:
        total += t
    return total


def _contributions(e):
    return [r["contribution"] for r in e.rows if r.get("contribution") is not None]


# trec_eval 10.0's measures, and the measures outside all_trec both versions have
TERMS_10 = ["rbp", "rbp_p=0.5", "rbp_1=0.5,2=1,p=0.95", "rbp_resid", "rbp_resid_p=0.5",
            "unj_5", "unj_20", "dcg", "ideal_dcg"]
TERMS_BOTH = ["yaap", "map_avgjg", "P_avgjg_5", "Rprec_mult_avgjg_0.60"]


@settings(max_examples=60)
@given(data=qrels_and_runs(), opts=options, pick=st.integers(min_value=0))
def test_the_terms_of_10_0_and_outside_all_trec_give_the_value_bit_for_bit(data, opts, pick):
    # explain's value is evaluate()'s, and its terms added in the order
    # trec_eval adds them give that value to the last bit
    q, r = Qrels.from_dict(data[0]), Run.from_dict(data[1])
    names = TERMS_BOTH + (TERMS_10 if opts["trec_eval"] == "10.0" else [])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IrmetricsWarning)
        result = evaluate(q, r, names, **opts)
    qids = sorted(result.per_query)
    for qid in qids[pick % len(qids):][:2]:
        for name in names:
            e = explain(q, r, qid, name, **opts)
            value = result.per_query[qid][name]
            assert e.value == value, (qid, name)
            terms, n = _contributions(e), len(e.rows)
            p = {"rbp_p=0.5": 0.5, "rbp_resid_p=0.5": 0.5, "rbp_1=0.5,2=1,p=0.95": 0.95}.get(
                name, 0.9)
            if name.startswith("rbp_resid"):
                unjudged = [row["rank"] for row in e.rows if row["label"] is None
                            or row["label"] < 0]
                assert [row["rank"] for row in e.rows if row["contribution"] is not None] == unjudged
                tail = 1.0
                for _ in range(n):  # m_rbp_resid.c's p^n, by repeated products
                    tail *= p
                assert value == (tail + (1 - p) * _left_to_right(terms) if unjudged else 0.0)
            elif name.startswith("rbp"):
                assert value == (1 - p) * _left_to_right(terms), name
                for row in e.rows:  # each term: its gain times p^(rank - 1)
                    if row["contribution"] is not None:
                        assert row["contribution"] == pytest.approx(
                            row["gain"] * p ** (row["rank"] - 1), rel=1e-12)
            elif name.startswith("unj"):
                k = int(name[4:])
                assert value == sum(1 for row in e.rows[:k] if not row["judged"]) / k
            elif name == "dcg":
                assert value == _left_to_right(terms)
            elif name == "ideal_dcg":
                assert value == _left_to_right(
                    g / math.log2(i + 2) for i, g in enumerate(e.ideal["gains"]))
            elif name == "yaap":
                s = _left_to_right(terms)
                assert value == math.log((1 + s) / (1 + e.n_relevant - s))
            else:  # one judgment group: the measure itself, the last step says so
                assert e.steps[-1] == f"one judgment group: {value:.4f}"


def test_judgment_groups_are_each_explained_and_averaged():
    # group 1 judges d1 and d3 relevant, group 2 d2: AP (1 + 2/3) / 2 = 0.8333 and
    # 1/2, (0.8333 + 0.5) / 2 = 0.6667; each group's value is evaluate()'s on
    # that group's judgments alone
    groups = {"1": {"d1": 1, "d3": 1}, "2": {"d2": 1, "d3": 0}}
    qrels = Qrels.from_subtopics({"q": groups})
    run = {"q": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}
    e = explain(qrels, run, "q", "map_avgjg")
    alone = [evaluate({"q": groups[g]}, run, "map")["map"] for g in ("1", "2")]
    assert alone == [pytest.approx((1 + 2 / 3) / 2), 0.5]
    assert e.value == (alone[0] + alone[1]) / 2
    assert e.steps == ("judgment group 1 (the groups by id): 0.8333, R = 2",
                       "judgment group 2 (the groups by id): 0.5000, R = 1",
                       "(0.8333 + 0.5000) / 2 = 0.6667")


def _prefs_counts(judged, scores, depth):
    """Brute force over every pair of a plain qrels' documents (-R qrels_prefs:
    a higher label preferred): (fulfilled, possible) with both documents
    retrieved, one, neither.  The preference measures rank tied scores by
    document id ascending (form_prefs_counts.c)."""
    ranked = sorted(scores, key=lambda d: (-scores[d], d))[:depth]
    rank = {d: i for i, d in enumerate(ranked) if d in judged}
    counts = {"both": [0, 0], "one": [0, 0], "neither": [0, 0]}
    for a in judged:
        for b in judged:
            if judged[a] > judged[b]:  # a preferred to b
                area = {2: "both", 1: "one", 0: "neither"}[(a in rank) + (b in rank)]
                counts[area][1] += 1
                counts[area][0] += a in rank and (b not in rank or rank[a] < rank[b])
    return counts


PREFS_AREAS = re.compile(r"both retrieved (\d+)/(\d+), one (\d+)/(\d+), neither 0/(\d+)$")


@settings(max_examples=60)
@given(data=qrels_and_runs(), depth=st.sampled_from((None, 3, 10)), pick=st.integers(0))
def test_prefs_terms_are_the_counts_of_every_pair(data, depth, pick):
    qrels, run = data
    qid = sorted(set(qrels) & set(run))[pick % len(set(qrels) & set(run))]
    want = _prefs_counts(qrels[qid], run[qid], depth)
    values = evaluate(qrels, run, list(measures_named("prefs_")), depth=depth).per_query[qid]
    for name in measures_named("prefs_"):
        e = explain(qrels, run, qid, name, depth=depth)
        assert e.value == values[name], name
        (group,) = e.steps[:-1]  # a plain qrels: one judgment group
        both_f, both_p, one_f, one_p, neither = map(int, PREFS_AREAS.search(group).groups())
        assert [both_f, both_p, one_f, one_p, neither] == [
            *want["both"], *want["one"], want["neither"][1]]
    ful, poss = both_f + one_f, both_p + one_p + neither
    assert values["prefs_num_prefs_ful"] == ful and values["prefs_num_prefs_poss"] == poss
    for name, f, n in (("prefs_simp", ful, poss), ("prefs_simp_ret", both_f, both_p),
                       ("prefs_simp_imp", ful, both_p + one_p)):
        assert values[name] == (f / n if n else 0.0), name
        step = explain(qrels, run, qid, name, depth=depth).steps[-1]
        assert step == (f"{f} / {n} = {values[name]:.4f}" if n else "nothing possible: 0")


def measures_named(prefix):
    return [f.key for f in FAMILIES if f.key.startswith(prefix)]


# === Hand-derived examples ===================================================


def test_the_seed_ap_example():
    e = explain(SEED_QRELS, SEED_RUN, "q1", "AP")
    # (1/1 + 2/2 + 3/4 + 4/6) / 4 = 3.41667 / 4 = 0.854167
    assert e.value == pytest.approx((1 + 1 + 3 / 4 + 4 / 6) / 4, abs=1e-15)
    assert [r["precision"] for r in e.rows] == [1.0, 1.0, None, 0.75, None, 4 / 6]
    assert e.n_relevant == 4
    text = str(e)
    assert text.splitlines()[-1] == "map = 0.8542"
    assert "3.4167 / 4 = 0.8542" in text
    assert e.measure == "AP" and e.name == "map"


def test_ndcg_example_and_ideal():
    qrels = {"q": {"a": 3, "b": 2, "c": 3, "d": 0, "e": 1, "f": 2}}
    run = {"q": {"a": 6, "b": 5, "c": 4, "d": 3, "e": 2, "f": 1}}
    e = explain(qrels, run, "q", "nDCG@6")
    # DCG = 3 + 2/log2(3) + 3/2 + 0 + 1/log2(6) + 2/log2(7) = 6.861
    # IDCG (3, 3, 2, 2, 1, 0) = 3 + 3/log2(3) + 2/2 + 2/log2(5) + 1/log2(6) = 7.1409
    assert e.ideal["labels"] == [3, 3, 2, 2, 1]
    dcg = 3 + 2 / math.log2(3) + 3 / 2 + 1 / math.log2(6) + 2 / math.log2(7)
    idcg = 3 + 3 / math.log2(3) + 1 + 2 / math.log2(5) + 1 / math.log2(6)
    assert e.value == pytest.approx(dcg / idcg, abs=1e-12)
    assert [r["gain"] for r in e.rows] == [3.0, 2.0, 3.0, 0.0, 1.0, 2.0]
    assert str(e).splitlines()[-1] == f"ndcg_cut_6 = {dcg / idcg:.4f}"


def test_11pt_avg_with_levels_explains_those_levels():
    # ranking a (rel), x (non-rel), b (rel); R = 3 (c is never ranked).
    # Interpolated precision: recall 1/3 -> 1.0, 2/3 -> 2/3, 1.0 -> 0 (c not found).
    # Levels 0.25, 0.5, 0.75 are (int)(level * 3 + 0.9) = 1, 2, 3 relevant documents:
    # (1 + 2/3 + 0) / 3 = 0.5556.
    qrels = {"q1": {"a": 1, "b": 1, "x": 0, "c": 1}}
    run = {"q1": {"a": 3, "x": 2, "b": 1}}
    e = explain(qrels, run, "q1", "11pt_avg.0.25,0.5,0.75")
    assert e.value == pytest.approx((1 + 2 / 3) / 3, abs=1e-15)
    text = str(e)
    assert "at recall 0.25, 0.5, 0.75" in text
    assert "(1.0000 + 0.6667 + 0.0000) / 3 = 0.5556" in text
    assert "/ 11" not in text
    # levels out of order follow trec_eval's walk (metrics._interpolated_sum); the
    # text says so and gives the value instead of a mean that is not it
    e = explain(qrels, run, "q1", "11pt_avg.0.5,0.25")
    assert f"out of order: trec_eval's walk from the last level gives {e.value:.4f}" in str(e)


def test_rr_and_unjudged_labels():
    qrels = {"q": {"a": 0, "b": 1, "p": -3}}
    run = {"q": {"x": 3, "p": 2, "a": 1.5, "b": 1}}
    e = explain(qrels, run, "q", "recip_rank")
    assert [r["label"] for r in e.rows] == [None, -1, 0, 1]
    assert e.value == 0.25  # first relevant at rank 4: 1/4
    assert [r["contribution"] for r in e.rows] == [None, None, None, 0.25]
    text = str(e)
    assert "'-' not in the qrels" in text and "-1 pooled but not judged" in text


def test_ties_are_marked_in_trec_eval_order():
    e = explain({"q": {"b": 1}}, {"q": {"a": 1.0, "b": 1.0, "c": 2.0}}, "q", "P@3")
    # c first (2.0), then the tie 1.0 broken by id descending: b before a
    assert [(r["doc"], r["tie"]) for r in e.rows] == [("c", None), ("b", 1), ("a", 1)]
    assert "T1" in str(e)


def test_long_rankings_are_cut_in_the_text_only():
    run = {"q": {f"d{i:04d}": float(-i) for i in range(300)}}
    e = explain({"q": {"d0000": 1}}, run, "q", "map")
    assert len(e.rows) == 300
    text = str(e)
    assert "ranks 2-300 not shown: no relevant document" in text
    e = explain({"q": {"d0000": 1}}, run, "q", "Judged")
    assert f"ranks {MAX_ROWS_SHOWN + 1}-300 not shown (see .rows)" in str(e)


def test_options_are_those_of_evaluate():
    qrels = {"q": {"a": 2, "b": 1, "c": 0}}
    run = {"q": {"a": 1, "x": 3, "b": 2, "c": 0}}
    for opts in ({"relevance_level": 2}, {"depth": 2}, {"judged_only": True}):
        e = explain(qrels, run, "q", "map", **opts)
        assert e.value == evaluate(qrels, run, "map", **opts).per_query["q"]["map"]
    assert [r["doc"] for r in explain(qrels, run, "q", "map", judged_only=True).rows] == [
        "b", "a", "c"]
    assert "depth=2" in str(explain(qrels, run, "q", "map", depth=2)).splitlines()[0]


def test_files_are_read_as_evaluate_reads_them(tmp_path):
    qrels = tmp_path / "qrels"
    run = tmp_path / "run"
    qrels.write_text("q1 0 d\u00e9 1\nq1 0 d2 0\nq1 0 d10 2\nq2 0 a 1\n", encoding="utf-8")
    run.write_text("q2 Q0 a 1 1.0 r\nq1 Q0 d2 1 0.5 r\nq1 Q0 d\u00e9 2 0.5 r\n"
                   "q1 Q0 d10 3 0.50000001 r\n", encoding="utf-8")
    for scores in ("float64", "float32"):
        got = explain(str(qrels), str(run), "q1", "nDCG", scores=scores)
        want = evaluate(str(qrels), str(run), "nDCG", scores=scores).per_query["q1"]["nDCG"]
        assert got.value == want
    # in single precision 0.50000001 ties with 0.5: d\u00e9 > d2 > d10 by id
    assert [r["doc"] for r in explain(str(qrels), str(run), "q1", "P@3",
                                      scores="float32").rows] == ["d\u00e9", "d2", "d10"]
    assert explain(str(qrels), str(run), "q1", "P@3").rows[0]["doc"] == "d10"


def test_a_duplicate_below_the_depth_is_ignored_as_by_evaluate(tmp_path):
    qrels = tmp_path / "qrels"
    run = tmp_path / "run"
    qrels.write_text("q 0 a 1\n", encoding="utf-8")
    run.write_text("q Q0 a 1 3 r\nq Q0 b 2 2 r\nq Q0 b 3 1 r\n", encoding="utf-8")
    with pytest.raises(DuplicateEntryError, match="appears twice"):
        explain(str(qrels), str(run), "q", "P@1")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IrmetricsWarning)
        want = evaluate(str(qrels), str(run), "P@1", depth=1).per_query["q"]["P@1"]
    assert explain(str(qrels), str(run), "q", "P@1", depth=1).value == want == 1.0


def test_depth_0_retrieves_nothing():
    e = explain(SEED_QRELS, SEED_RUN, "q1", "map", depth=0)
    assert e.rows == [] and e.value == 0.0 and e.n_relevant == 4  # 0 / R
    assert "the ranking is empty" in str(e)


def test_complete_explains_a_missing_query_as_an_empty_ranking():
    qrels = {"q": {"a": 1}, "r": {"b": 1}}
    run = {"q": {"a": 1.0}}
    with pytest.raises(InvalidArgumentError, match="query 'r' is not in the run"):
        explain(qrels, run, "r", "map")
    e = explain(qrels, run, "r", "map", complete=True)
    assert e.rows == [] and e.value == 0.0
    assert e.value == evaluate(qrels, run, "map", complete=True).per_query["r"]["map"]
    assert "the ranking is empty" in str(e)


def test_inputs_are_not_mutated():
    qrels = {"q": {"a": 1, "b": -1}}
    run = {"q": {"a": 1.0, "b": 1.0}}
    before = (repr(qrels), repr(run))
    explain(qrels, run, "q", "infAP", judged_only=True)
    assert (repr(qrels), repr(run)) == before


# === Text, HTML, dict ========================================================


def test_html_escapes_ids_and_names():
    qrels = {"<q&>": {"<b>x</b>": 1, "a\"'": 0}}
    run = {"<q&>": {"<b>x</b>": 2.0, "a\"'": 1.0}}
    e = explain(qrels, run, "<q&>", "P@2")
    page = e._repr_html_()
    assert "<b>x</b>" not in page and "&lt;b&gt;x&lt;/b&gt;" in page
    assert "&lt;q&amp;&gt;" in page and "a&quot;&#x27;" in page
    assert page.count("<tr>") == 1 + len(e.rows)  # the header and one row per document
    assert "P_2 = 0.5000" in page


def test_to_dict_is_plain_json():
    e = explain(SEED_QRELS, SEED_RUN, "q1", "nDCG@3")
    d = json.loads(json.dumps(e.to_dict()))
    assert d["value"] == e.value and d["rows"] == e.rows and d["name"] == "ndcg_cut_3"
    assert isinstance(e, Explanation) and "ndcg" not in repr(e).split("measure=")[0]


def test_a_family_without_terms_shows_its_rows(monkeypatch):
    monkeypatch.setattr(parse_measure("P@2").family, "explain", None)
    e = explain(SEED_QRELS, SEED_RUN, "q1", "P@2")
    assert e.value == 1.0 and e.columns == () and len(e.rows) == 6
    assert "no per-rank terms" in str(e) and str(e).endswith("P_2 = 1.0000")


# === Errors ==================================================================


def test_an_unknown_measure_is_named_with_suggestions():
    with pytest.raises(UnknownMeasureError, match="'mapp'.*did you mean 'map'"):
        explain(SEED_QRELS, SEED_RUN, "q1", "mapp")
    with pytest.raises(InvalidArgumentError, match="'relstring' is a text line"):
        explain(SEED_QRELS, SEED_RUN, "q1", "relstring")
    with pytest.raises(InvalidArgumentError, match="'measure' must be one measure name"):
        explain(SEED_QRELS, SEED_RUN, "q1", ["map"])


def test_an_unknown_query_is_named():
    with pytest.raises(InvalidArgumentError, match="unknown query 'q9'"):
        explain(SEED_QRELS, SEED_RUN, "q9", "map")
    with pytest.raises(InvalidArgumentError, match="query 'q2' has no judgments"):
        explain(SEED_QRELS, {**SEED_RUN, "q2": {"a": 1.0}}, "q2", "map")
    with pytest.raises(InvalidArgumentError, match="'query' must be a query id"):
        explain(SEED_QRELS, SEED_RUN, 1, "map")


@pytest.mark.parametrize("opts, message", [
    ({"relevance_level": 0}, "'relevance_level' must be an int >= 1"),
    ({"depth": -1}, "'depth' must be an int >= 0"),
    ({"judged_only": 1}, "'judged_only' must be a bool"),
    ({"scores": "half"}, "'scores' must be 'float64' or 'float32'"),
])
def test_bad_options(opts, message):
    with pytest.raises(InvalidArgumentError, match=message):
        explain(SEED_QRELS, SEED_RUN, "q1", "map", **opts)


# === The command line ========================================================


def _files(tmp_path):
    qrels = tmp_path / "qrels.txt"
    run = tmp_path / "run.txt"
    qrels.write_text("".join(f"q1 0 {d} {x}\n" for d, x in SEED_QRELS["q1"].items()))
    run.write_text("".join(f"q1 Q0 {d} {i} {s} tag\n"
                           for i, (d, s) in enumerate(SEED_RUN["q1"].items(), 1)))
    return str(qrels), str(run)


def test_cli_explain_prints_the_derivation(tmp_path, capsys):
    qrels, run = _files(tmp_path)
    assert main(["explain", "-m", "AP", qrels, run, "q1"]) == 0
    out, err = capsys.readouterr()
    assert out == str(explain(qrels, run, "q1", "AP")) + "\n"
    assert out.rstrip().endswith("map = 0.8542") and err == ""


def test_cli_explain_json(tmp_path, capsys):
    qrels, run = _files(tmp_path)
    assert main(["explain", "-m", "nDCG@5", "-M", "4", qrels, run, "q1", "--format",
                 "json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["value"] == evaluate(qrels, run, "nDCG@5", depth=4).per_query["q1"]["nDCG@5"]
    assert len(d["rows"]) == 4


@pytest.mark.parametrize("argv, message", [
    (["-m", "mapp", "Q", "R", "q1"], "unknown measure 'mapp'; did you mean 'map'"),
    (["-m", "map", "Q", "R", "q9"], "unknown query 'q9'"),
    (["-m", "map", "Q", "R"], "the following arguments are required: QUERY"),
    (["Q", "R", "q1"], "the following arguments are required: -m/--measure"),
    (["-m", "map", "-l", "0", "Q", "R", "q1"], "-l must be a relevance level >= 1"),
    (["-m", "map", "Q", "missing.run", "q1"], "missing.run"),
])
def test_cli_explain_errors_are_one_line(tmp_path, capsys, argv, message):
    qrels, run = _files(tmp_path)
    argv = [qrels if a == "Q" else run if a == "R" else a for a in argv]
    assert main(["explain"] + argv) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("irmetrics explain: error: ") and message in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_cli_explain_reads_standard_input(tmp_path, monkeypatch, capsys):
    qrels, run = _files(tmp_path)
    data = open(run, "rb").read()

    class Stdin:
        buffer = io.BytesIO(data)

    monkeypatch.setattr("sys.stdin", Stdin)
    assert main(["explain", "-m", "P@2", qrels, "-", "q1"]) == 0
    assert capsys.readouterr().out.rstrip().endswith("P_2 = 1.0000")


# === Strict JSON, ids without control characters, swapped arguments (issue 42)


def _strict(text):
    """json.loads refusing the bare words Infinity and NaN (not JSON)."""
    def refuse(word):
        raise ValueError(f"not JSON: {word}")
    return json.loads(text, parse_constant=refuse)


def test_cli_explain_json_is_strict_with_infinite_scores(tmp_path, capsys):
    qrels = tmp_path / "q"
    qrels.write_text("q1 0 a 1\nq1 0 b 1\n")
    run = tmp_path / "r"
    # inf and 1e400 (inf as a double) are scores; -inf too
    run.write_text("q1 Q0 a 1 inf t\nq1 Q0 b 2 1e400 t\nq1 Q0 c 3 -inf t\n")
    assert main(["explain", "-m", "map", str(qrels), str(run), "q1", "--format", "json"]) == 0
    d = _strict(capsys.readouterr().out)
    # a and b tie at inf (b first: document id descending), then c
    assert [(r["doc"], r["score"]) for r in d["rows"]] == [
        ("b", "Infinity"), ("a", "Infinity"), ("c", "-Infinity")]
    assert d["value"] == 1.0  # both relevant at ranks 1 and 2: (1/1 + 2/2) / 2


OSC = "\x1b]8;;http://evil.example/\x07click\x1b]8;;\x07"


def test_text_shows_ids_without_control_characters():
    qrels = {f"q{OSC}": {f"d{OSC}": 1}}
    run = {f"q{OSC}": {f"d{OSC}": 1.0, "x": 0.5}}
    e = explain(qrels, run, f"q{OSC}", "AP")
    text = str(e)
    assert "\x1b" not in text and "\x07" not in text
    assert "d ]8;;http://evil.example/ click ]8;; " in text  # each run of them: one space
    assert e.rows[0]["doc"] == f"d{OSC}"  # the data keep the id as it is


@pytest.mark.parametrize("query, measure, signs", [
    ("map", "q1", "'q1' is a query id of the qrels and 'map' is a measure name"),
    ("mapp", "q1", "'q1' is a query id of the qrels"),  # and a misspelt measure
    ("nDCG@10", "qq", "'nDCG@10' is a measure name"),
])
def test_swapped_query_and_measure_are_named(query, measure, signs):
    with pytest.raises(InvalidArgumentError) as info:
        explain(SEED_QRELS, SEED_RUN, query, measure)
    assert str(info.value).startswith(f"unknown measure '{measure}'")
    assert str(info.value).endswith(
        f"; {signs}: the query and the measure seem swapped (explain(qrels, run, query, "
        "measure); on the command line: irmetrics explain -m MEASURE QRELS RUN QUERY)")


def test_a_query_that_is_a_measure_name_hints_at_swapped_arguments():
    # 'P_10' and 'map' both measures: the query is looked for in the run first
    with pytest.raises(InvalidArgumentError, match=r"unknown query 'P_10': in neither the run "
                       r"nor the qrels; 'P_10' is a measure name: the query and the measure "
                       r"seem swapped"):
        explain(SEED_QRELS, SEED_RUN, "P_10", "map")
    with pytest.raises(UnknownMeasureError):  # neither a measure nor a query: no hint
        explain(SEED_QRELS, SEED_RUN, "q1", "qq")


def test_cli_explain_names_swapped_arguments(tmp_path, capsys):
    qrels, run = _files(tmp_path)
    assert main(["explain", "-m", "q1", qrels, run, "map"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("irmetrics explain: error: unknown measure 'q1'")
    assert "seem swapped" in err and err.count("\n") == 1


def test_a_long_query_id_is_cut_in_the_message():
    qid = "q" * 1_000_000
    with pytest.raises(InvalidArgumentError) as info:
        explain(SEED_QRELS, SEED_RUN, qid, "map")
    assert len(str(info.value)) < 300 and "qqq' (1,000,000 characters)" in str(info.value)


def test_explain_scores_only_its_query_with_the_scorer_s_hook(monkeypatch):
    # explain() reads the run with evaluate()'s own scorer, asking it (its
    # per-query hook) for one query: the others are never ranked
    module = sys.modules["irmetrics.evaluate"]  # (irmetrics.evaluate is the function)
    ranked = []
    original = module.query_data_from_scores

    def counting(judgments, docids, *args, **kwargs):
        ranked.append(len(docids))
        return original(judgments, docids, *args, **kwargs)

    monkeypatch.setattr(module, "query_data_from_scores", counting)
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 1}}
    run = {"q1": {"a": 1.0}, "q2": {"b": 1.0, "x": 2.0}, "q3": {"c": 1.0}}
    assert explain(qrels, run, "q2", "map").value == 0.5
    assert ranked == [2]
    assert "_score" not in vars(module._Scorer(Qrels(qrels), [], check_options()))


@pytest.mark.parametrize("measure, size, expected", [
    # qrels a, c, d relevant, b not; run a, b, x: relevant retrieved 1,
    # non-relevant retrieved 2 (b, and the unjudged x), relevant not retrieved
    # 2, the rest of the collection N + 1 - 3 - 3 (trec_eval's m_utility.c)
    ("utility", 0, "1 * 1 + -1 * 2 + 0 * 2 + 0 * -5 = -1.0000"),
    ("utility.2,-1,0.5,0.25", 0, "2 * 1 + -1 * 2 + 0.5 * 2 + 0.25 * -5 = -0.2500"),
    ("utility.2,-1,0.5,0.25", 100, "2 * 1 + -1 * 2 + 0.5 * 2 + 0.25 * 95 = 24.7500"),
])
def test_utility_shows_its_coefficients_and_the_collection_size(measure, size, expected):
    qrels = {"q1": {"a": 1, "b": 0, "c": 1, "d": 1}}
    run = {"q1": {"a": 3.0, "b": 2.0, "x": 1.0}}
    e = explain(qrels, run, "q1", measure, collection_size=size)
    assert e.steps[-1] == expected
    assert e.value == evaluate(qrels, run, [measure], collection_size=size).per_query["q1"][measure]
