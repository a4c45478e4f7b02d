"""Tie-aware evaluation (irmetrics.ties, evaluate(ties=...), tie_report, the CLI).

The oracle: on small random queries, every order of the tied documents is
forced with distinct float32-exact scores (small integers) and scored by
pytrec_eval (trec_eval 9.0.8) and by irmetrics' own evaluate(); the modes
must give the mean ("expected"), maximum ("best") and minimum ("worst") of
those values.  Also: query_data_from_scores with many ties against
rank_documents (the O(n log n) placement of issue 18, finding 6).
"""

import io
import itertools
import math
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import require

import irmetrics
from irmetrics import (
    InvalidArgumentError,
    average_precision,
    bpref,
    evaluate,
    f_measure,
    inferred_ap,
    interpolated_precision,
    ndcg,
    precision_at_k,
    r_precision,
    r_precision_multiple,
    recall_at_k,
    reciprocal_rank,
    success_at_k,
    tie_report,
)
from irmetrics.cli import _run
from irmetrics.evaluate import _Scorer, query_data, query_data_from_scores
from irmetrics.measures import parse_measure
from irmetrics.ties import supports
from irmetrics.trec import rank_documents

# measures with every mode, and those with best/worst only (trec_eval names,
# which pytrec_eval knows)
EXPECTED = ["P_2", "recall_3", "map", "map_cut_3", "recip_rank", "ndcg", "ndcg_cut_3",
            "success_1", "Rprec", "num_rel_ret", "set_F"]
EXTREMES = EXPECTED + ["bpref", "infAP", "iprec_at_recall_0.50", "Rprec_mult_0.60"]


def _over_orders(values, mode):
    """What tie *mode* should give, from a measure's value under every order:
    their mean ("expected"), maximum ("best") or minimum ("worst")."""
    if mode == "expected":
        return math.fsum(values) / len(values)
    return max(values) if mode == "best" else min(values)


def quiet_evaluate(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return evaluate(*args, **kwargs)


# === 1. query_data_from_scores with many ties =================================

IDS = tuple(f"d{i}" for i in range(30))


@st.composite
def tied_queries(draw):
    docids = draw(st.lists(st.sampled_from(IDS), min_size=1, max_size=30, unique=True))
    # two or three distinct scores: blocks of tied documents, most judged
    scores = draw(st.lists(st.sampled_from((1.0, 2.0, -0.0, 0.0)), min_size=len(docids),
                           max_size=len(docids)))
    judgments = draw(st.dictionaries(st.sampled_from(IDS), st.integers(-1, 3)))
    depth = draw(st.one_of(st.none(), st.integers(1, 32)))
    return judgments, docids, scores, depth, draw(st.booleans())


@given(tied_queries())
def test_query_data_from_scores_many_ties_equals_rank_documents(case):
    judgments, docids, scores, depth, judged_only = case
    slow = query_data(judgments, rank_documents(docids, scores), depth=depth,
                      judged_only=judged_only)
    for members in (None, set(docids)):
        fast = query_data_from_scores(judgments, docids, scores, depth=depth,
                                      judged_only=judged_only, members=members)
        assert list(fast.labels) == list(slow.labels)
        assert fast.levels == slow.levels


def test_query_data_from_scores_one_big_tied_block():
    # 5,000 documents, all with score 1.0: trec_eval's order is by id descending,
    # so the judged d00010 (label 1) and d04000 (label 2) sit at 0-based ranks
    # 4999 - 10 = 4989 and 4999 - 4000 = 999.
    docids = [f"d{i:05d}" for i in range(5000)]
    data = query_data_from_scores({"d00010": 1, "d04000": 2}, docids, [1.0] * 5000,
                                  members=set(docids))
    assert data.relevant_ranks(1) == [1000, 4990]
    assert data.labels[999] == 2 and data.labels[4989] == 1
    assert list(data.labels) == list(query_data({"d00010": 1, "d04000": 2},
                                                rank_documents(docids, [1.0] * 5000)).labels)


class CountingList(list):
    """A list that counts the lookups by index made on it."""

    lookups = 0

    def __getitem__(self, i):
        CountingList.lookups += 1
        return super().__getitem__(i)


def test_query_data_from_scores_tied_documents_are_not_scanned_per_judged_document():
    # Issue 18, finding 6: each judged document in a block of tied scores used to
    # look at every document of the block (n * judged lookups, 100,000 here;
    # 150,000 tied documents took 32 s).  Now each block's ids are sorted once:
    # a few lookups per judged document, whatever n.
    n, judged = 2000, 50
    docids = CountingList(f"d{i:05d}" for i in range(n))
    judgments = {f"d{i:05d}": 1 for i in range(0, n, n // judged)}
    CountingList.lookups = 0
    data = query_data_from_scores(judgments, docids, [1.0] * n)
    assert CountingList.lookups <= 4 * judged
    assert data.relevant_ranks(1) == query_data(
        judgments, rank_documents(list(docids), [1.0] * n)).relevant_ranks(1)


@pytest.mark.fork  # workers=2 forks (conftest)
@pytest.mark.slow
def test_parallel_and_in_memory_give_the_same_tie_values(tmp_path):
    # the worker processes get the mode too
    lines = []
    for q in range(40):
        for d in range(30):
            lines.append(f"q{q} Q0 d{d} {d + 1} {float(d // 3)} run\n")
    path = tmp_path / "run.txt"
    path.write_text("".join(lines), encoding="ascii")
    qrels = {f"q{q}": {f"d{d}": (q + d) % 3 for d in range(0, 30, 4)} for q in range(40)}
    measures = ["map", "ndcg_cut_10", "recip_rank", "P_5"]
    for mode in ("expected", "best", "worst"):
        one = evaluate(qrels, path, measures, ties=mode, workers=1)
        two = evaluate(qrels, path, measures, ties=mode, workers=2)
        mem = evaluate(qrels, irmetrics.Run.from_trec(path), measures, ties=mode)
        assert one.per_query == two.per_query == mem.per_query
        assert one.per_query != evaluate(qrels, path, measures).per_query  # ties matter here


# === 2. Every mode against every order, scored by pytrec_eval =================


@st.composite
def small_queries(draw):
    n = draw(st.integers(1, 6))
    docs = [f"d{i}" for i in range(n)]
    scores = {d: draw(st.sampled_from((1.0, 2.0, 3.0))) for d in docs}
    qrels = {}
    for d in docs + ["u1", "u2"]:  # u1, u2: judged, never retrieved
        label = draw(st.sampled_from((None, None, -1, 0, 1, 2)))
        if label is not None:
            qrels[d] = label
    if not any(v >= 0 for v in qrels.values()):
        qrels["u3"] = 1
    return {"q": qrels}, {"q": scores}


def orderings(scores):
    """Every order of the documents that keeps the blocks of equal scores in place."""
    blocks = [sorted(d for d in scores if scores[d] == v)
              for v in sorted(set(scores.values()), reverse=True)]
    for combo in itertools.product(*[itertools.permutations(b) for b in blocks]):
        order = [d for b in combo for d in b]
        # distinct small integers: exact in float32, which trec_eval reads
        yield {d: float(len(order) - i) for i, d in enumerate(order)}


def all_values(qrels, run, measures, **options):
    """The values of *measures* under every order, by irmetrics (trec_eval mode)."""
    out = {m: [] for m in measures}
    for scores in orderings(run["q"]):
        got = quiet_evaluate(qrels, {"q": scores}, measures, **options).per_query["q"]
        for m in measures:
            out[m].append(got[m])
    return out


def check_modes(qrels, run, values, **options):
    for mode, measures in (("expected", EXPECTED), ("best", EXTREMES), ("worst", EXTREMES)):
        try:
            got = quiet_evaluate(qrels, run, measures, ties=mode, **options).per_query["q"]
        except InvalidArgumentError as exc:  # the one documented gap
            assert "straddles the depth cut" in str(exc) and options.get("judged_only")
            continue
        for m in measures:
            vs = values[m]
            want = _over_orders(vs, mode)
            assert got[m] == pytest.approx(want, abs=1e-12), (mode, m)


@settings(max_examples=150)
@given(small_queries())
def test_modes_equal_mean_max_min_over_every_order_pytrec_eval(case):
    pytrec_eval = require("pytrec_eval")
    qrels, run = case
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(EXTREMES))
    values = {m: [] for m in EXTREMES}
    for scores in orderings(run["q"]):
        theirs = evaluator.evaluate({"q": scores})["q"]
        mine = quiet_evaluate(qrels, {"q": scores}, EXTREMES).per_query["q"]
        for m in EXTREMES:
            assert mine[m] == pytest.approx(theirs[m], abs=1e-12), m
            values[m].append(theirs[m])
    check_modes(qrels, run, values)


@settings(max_examples=100)
@given(small_queries(), st.integers(1, 6), st.booleans())
def test_modes_with_depth_and_judged_only_equal_every_order(case, depth, judged_only):
    qrels, run = case
    values = all_values(qrels, run, EXTREMES, depth=depth, judged_only=judged_only)
    check_modes(qrels, run, values, depth=depth, judged_only=judged_only)


@settings(max_examples=100)
@given(small_queries())
def test_worst_expected_best_in_order_and_attained(case):
    qrels, run = case
    values = all_values(qrels, run, EXTREMES)
    got = {mode: quiet_evaluate(qrels, run, EXPECTED if mode == "expected" else EXTREMES,
                                ties=mode).per_query["q"]
           for mode in ("worst", "expected", "best")}
    for m in EXTREMES:
        assert got["worst"][m] <= got["best"][m]
        # attained: the value of some order, not merely a bound
        assert got["best"][m] in values[m] and got["worst"][m] in values[m], m
        if m in EXPECTED:
            assert got["worst"][m] - 1e-12 <= got["expected"][m] <= got["best"][m] + 1e-12


@st.composite
def untied_queries(draw):
    n = draw(st.integers(0, 12))
    scores = draw(st.lists(st.floats(-5, 5, allow_nan=False), min_size=n, max_size=n,
                           unique=True))
    run = {"q": {f"d{i}": s for i, s in enumerate(scores)}}
    qrels = {"q": draw(st.dictionaries(st.sampled_from([f"d{i}" for i in range(15)]),
                                       st.integers(-1, 3), min_size=1))}
    return qrels, run


@given(untied_queries(), st.one_of(st.none(), st.integers(1, 10)), st.booleans())
def test_without_ties_every_mode_is_trec_eval_bit_for_bit(case, depth, judged_only):
    qrels, run = case
    base = quiet_evaluate(qrels, run, EXTREMES, depth=depth, judged_only=judged_only)
    for mode in ("expected", "best", "worst"):
        measures = EXPECTED if mode == "expected" else EXTREMES
        got = quiet_evaluate(qrels, run, measures, ties=mode, depth=depth,
                             judged_only=judged_only)
        for m in measures:
            assert got.per_query["q"][m] == base.per_query["q"][m], (mode, m)


def test_ties_among_unjudged_documents_change_nothing():
    # d1..d3 tied but unjudged; the one judged document d0 stands alone at rank 1.
    qrels = {"q": {"d0": 1, "x": 0}}
    run = {"q": {"d0": 9.0, "d1": 1.0, "d2": 1.0, "d3": 1.0}}
    base = quiet_evaluate(qrels, run, EXTREMES).per_query["q"]
    for mode in ("expected", "best", "worst"):
        got = quiet_evaluate(qrels, run, EXPECTED if mode == "expected" else EXTREMES,
                             ties=mode).per_query["q"]
        assert all(got[m] == base[m] for m in got)


# === 3. Hand-derived values ===================================================


def test_renaming_example():
    # One relevant and one non-relevant document with one score: trec_eval puts
    # the greater id first.  Relevant first: nDCG 1; second: 1/log2(3) = 0.6309.
    run = {"q": {"doc-a": 2.0, "doc-b": 2.0}}
    assert evaluate({"q": {"doc-b": 1, "doc-a": 0}}, run, "ndcg")["ndcg"] == 1.0
    qrels = {"q": {"doc-a": 1, "doc-b": 0}}
    low = 1 / math.log2(3)
    assert evaluate(qrels, run, "ndcg")["ndcg"] == pytest.approx(low, abs=1e-15)
    assert evaluate(qrels, run, "ndcg", ties="best")["ndcg"] == 1.0
    assert evaluate(qrels, run, "ndcg", ties="worst")["ndcg"] == pytest.approx(low, abs=1e-15)
    # the mean of the two orders
    assert evaluate(qrels, run, "ndcg", ties="expected")["ndcg"] == pytest.approx(
        (1 + low) / 2, abs=1e-15)


def test_expected_by_hand():
    # One relevant document tied with two others at ranks 1-3, R = 1:
    # P@1 = 1/3; RR = (1 + 1/2 + 1/3) / 3 = 11/18; AP = RR (R = 1);
    # success@1 = 1/3; recall@2 = 2/3.
    qrels = {"q": {"a": 1, "b": 0}}
    run = {"q": {"a": 1.0, "b": 1.0, "c": 1.0}}
    got = evaluate(qrels, run, ["P_1", "recip_rank", "map", "success_1", "recall_2"],
                   ties="expected").per_query["q"]
    assert got["P_1"] == pytest.approx(1 / 3, abs=1e-15)
    assert got["recip_rank"] == pytest.approx(11 / 18, abs=1e-15)
    assert got["map"] == pytest.approx(11 / 18, abs=1e-15)
    assert got["success_1"] == pytest.approx(1 / 3, abs=1e-15)
    assert got["recall_2"] == pytest.approx(2 / 3, abs=1e-15)


def test_bpref_best_and_worst_tell_nonrelevant_from_unjudged():
    # Block of three: relevant r, judged non-relevant n, unjudged u; R = 1, N = 1.
    # bpref = 1 - (non-relevant above r) / min(R, N): best 1 (r above n),
    # worst 0 (n above r), whatever u's place.
    qrels = {"q": {"r": 1, "n": 0}}
    run = {"q": {"r": 1.0, "n": 1.0, "u": 1.0}}
    assert evaluate(qrels, run, "bpref", ties="best")["bpref"] == 1.0
    assert evaluate(qrels, run, "bpref", ties="worst")["bpref"] == 0.0


def test_infap_best_puts_a_pooled_unjudged_document_above_the_relevant_one():
    # Ranks: r0 (relevant) 1, x (outside the pool) 2, then p (pooled-unjudged)
    # and r (relevant) tied at ranks 3-4; R = 2, eps = 1e-5, f = (1+eps)/(1+2eps).
    # trec_eval's term at 0-based position j with a relevant, n non-relevant and
    # p pooled above: 1/(j+1) + (j/(j+1)) ((a+n+p)/j) ((a+eps)/(a+n+2eps)).
    # p then r: j = 3, a = 1, p = 1: 1/4 + (3/4)(2/3) f = 1/4 + f/2   (about 0.75)
    # r then p: j = 2, a = 1, p = 0: 1/3 + (2/3)(1/2) f = 1/3 + f/3   (about 0.667)
    # So the best order puts the pooled-unjudged document first (unlike AP),
    # and infAP = (1 + term) / 2.
    eps = 1e-5
    f = (1 + eps) / (1 + 2 * eps)
    qrels = {"q": {"r0": 1, "p": -1, "r": 1}}
    run = {"q": {"r0": 3.0, "x": 2.0, "p": 1.0, "r": 1.0}}
    assert evaluate(qrels, run, "infAP", ties="best")["infAP"] == pytest.approx(
        (1 + 1 / 4 + f / 2) / 2, abs=1e-15)
    assert evaluate(qrels, run, "infAP", ties="worst")["infAP"] == pytest.approx(
        (1 + 1 / 3 + f / 3) / 2, abs=1e-15)


def test_aggregates_from_per_query_values():
    qrels = {"q1": {"a": 1}, "q2": {"c": 1}}
    run = {"q1": {"a": 1.0, "b": 1.0}, "q2": {"c": 2.0, "d": 1.0}}
    got = evaluate(qrels, run, ["map", "gm_map"], ties="expected")
    # q1: AP (1 + 1/2) / 2 = 0.75; q2: 1.  Mean 0.875; geometric sqrt(0.75).
    assert got.per_query["q1"]["map"] == 0.75
    assert got["map"] == 0.875
    assert got["gm_map"] == pytest.approx(math.sqrt(0.75), abs=1e-15)


# === 4. The list functions ====================================================

LIST_CASES = [
    (lambda ls, **t: precision_at_k(ls, 2, **t), True),
    (lambda ls, **t: recall_at_k(ls, 2, n_relevant=8, **t), True),
    (lambda ls, **t: average_precision(ls, **t), True),
    (lambda ls, **t: average_precision(ls, 3, rel=2, **t), True),
    (lambda ls, **t: reciprocal_rank(ls, **t), True),
    (lambda ls, **t: reciprocal_rank(ls, 2, **t), True),
    (lambda ls, **t: r_precision(ls, **t), True),
    (lambda ls, **t: success_at_k(ls, 2, **t), True),
    (lambda ls, **t: ndcg(ls, **t), True),
    (lambda ls, **t: ndcg(ls, 3, gain="exponential", ideal=[3] * 6 + [2] * 6 + [1] * 6, **t),
     True),
    (lambda ls, **t: ndcg(ls, 3, discount="jk", **t), True),
    (lambda ls, **t: f_measure(ls, beta=0.5, **t), True),
    (lambda ls, **t: bpref(ls, **t), False),
    (lambda ls, **t: inferred_ap(ls, **t), False),
    (lambda ls, **t: interpolated_precision(ls, 0.5, **t), False),
    (lambda ls, **t: r_precision_multiple(ls, 0.6, **t), False),
]


@settings(max_examples=150)
@given(st.lists(st.tuples(st.sampled_from((None, 0, 1, 2, 3)), st.sampled_from((1, 2, 3))),
                min_size=1, max_size=6))
def test_list_functions_equal_every_order(pairs):
    labels = [x for x, _ in pairs]
    scores = [s for _, s in pairs]
    blocks = [[x for x, s in pairs if s == v] for v in sorted(set(scores), reverse=True)]
    orders = [[x for b in combo for x in b]
              for combo in itertools.product(*[itertools.permutations(b) for b in blocks])]
    for f, has_expected in LIST_CASES:
        vs = [f(list(o)) for o in orders]
        for mode in (["expected"] if has_expected else []) + ["best", "worst"]:
            want = _over_orders(vs, mode)
            assert f(labels, scores=scores, ties=mode) == pytest.approx(want, abs=1e-12)


def test_list_function_inputs_not_mutated():
    labels, scores = [1, 0, 1], [1.0, 1.0, 0.5]
    average_precision(labels, scores=scores, ties="expected")
    assert labels == [1, 0, 1] and scores == [1.0, 1.0, 0.5]


@pytest.mark.parametrize("kwargs, message", [
    ({"ties": "expected"}, "'ties' needs 'scores'"),
    ({"scores": [1.0, 2.0]}, "'scores' needs 'ties'"),
    ({"scores": [1.0], "ties": "expected"}, "one score per label (got 1 scores for 2"),
    ({"scores": [1.0, float("nan")], "ties": "best"}, "must not hold NaN (at index 1)"),
    ({"scores": [1.0, "x"], "ties": "best"}, "must hold numbers (got 'x' at index 1)"),
    ({"scores": "12", "ties": "best"}, "'scores' must be a sequence of numbers (got str)"),
    ({"scores": 5, "ties": "best"}, "'scores' must be a sequence of numbers (got int)"),
    ({"scores": {1.0, 2.0}, "ties": "best"}, "'scores' must be a sequence of scores, one per "
                                             "label (a list or tuple), not a set"),
    ({"scores": [1.0, 2.0], "ties": "trec_eval"}, "no document ids"),
    ({"scores": [1.0, 2.0], "ties": "mean"}, "'ties' must be one of"),
])
def test_list_function_errors(kwargs, message):
    with pytest.raises(InvalidArgumentError, match="^.*" + message.replace("(", r"\(")
                       .replace(")", r"\)")):
        average_precision([1, 0], **kwargs)


def test_list_function_mode_not_defined():
    with pytest.raises(InvalidArgumentError, match="ties='expected' is not defined for "
                                                   "measure 'bpref'"):
        bpref([1, 0], scores=[1, 1], ties="expected")


# === 5. evaluate() errors ====================================================


def test_bad_mode_names_ties_and_the_modes():
    with pytest.raises(InvalidArgumentError) as info:
        evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, "map", ties="average")
    assert isinstance(info.value, ValueError)
    assert str(info.value) == ("'ties' must be one of 'trec_eval', 'expected', 'best', "
                               "'worst' (got 'average')")


@pytest.mark.parametrize("measure, mode", [("ERR@10", "best"), ("bpref", "expected"),
                                           ("infAP", "expected"), ("Judged@5", "worst")])
def test_measure_without_the_mode_is_an_error(measure, mode):
    with pytest.raises(InvalidArgumentError,
                       match=f"ties='{mode}' is not defined for measure '{measure}'"):
        evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, [measure], ties=mode)


# === 6. tie_report ===========================================================


def test_tie_report_rows_sorted_by_spread():
    # q1: relevant a tied with b: RR 1 or 1/2 (trec_eval: b > a, so 1/2);
    # q2: relevant c tied with three others: RR 1 .. 1/4 (trec_eval: c < d, e, f: 1/4);
    # q3: no tie.  Expected q2 = (1 + 1/2 + 1/3 + 1/4) / 4 = 25/48.
    qrels = {"q1": {"a": 1}, "q2": {"c": 1}, "q3": {"g": 1}}
    run = {"q1": {"a": 1.0, "b": 1.0},
           "q2": {"c": 1.0, "d": 1.0, "e": 1.0, "f": 1.0},
           "q3": {"g": 2.0, "h": 1.0}}
    report = tie_report(qrels, run, "recip_rank")
    assert [r.query for r in report.rows] == ["q2", "q1"]
    q2, q1 = report.rows
    assert (q2.worst, q2.trec_eval, q2.best) == (0.25, 0.25, 1.0)
    assert q2.expected == pytest.approx(25 / 48, abs=1e-15)
    assert q2.spread == 0.75
    assert (q1.worst, q1.trec_eval, q1.expected, q1.best) == (0.5, 0.5, 0.75, 1.0)
    assert report.n_queries == 3
    text = str(report)
    assert text.splitlines()[0] == ("recip_rank: 2 of 3 queries depend on the order of "
                                    "tied scores")
    assert text.splitlines()[2].split() == ["q2", "0.2500", "0.2500", "0.5208", "1.0000",
                                            "0.7500"]


def test_tie_report_without_expected_and_errors():
    qrels = {"q": {"r": 1, "n": 0}}
    run = {"q": {"r": 1.0, "n": 1.0}}
    (row,) = tie_report(qrels, run, "bpref").rows
    assert (row.worst, row.expected, row.best) == (0.0, None, 1.0)  # see the bpref test
    assert " - " in str(tie_report(qrels, run, "bpref"))
    with pytest.raises(InvalidArgumentError, match="not defined for measure 'ERR'"):
        tie_report(qrels, run, "ERR")


def test_tie_report_of_the_example_run():
    # docs/examples/bm25.run: query 107 ranks doc107-30 (relevant) and doc107-02
    # (judged non-relevant) at one score, 9.822, at ranks 28-29.
    report = tie_report("docs/examples/qrels.txt", "docs/examples/bm25.run", "map")
    assert [r.query for r in report.rows] == ["107"]
    row = report.rows[0]
    assert row.trec_eval == row.best  # "doc107-30" > "doc107-02": relevant first
    assert row.worst < row.expected < row.best
    assert row.expected == pytest.approx((row.best + row.worst) / 2, abs=1e-15)


# === 7. The command line =====================================================


def run_cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = _run([str(a) for a in argv], out, err)
    return code, out.getvalue(), err.getvalue()


QRELS = "docs/examples/qrels.txt"
BM25 = "docs/examples/bm25.run"


def test_cli_ties_option(monkeypatch):
    monkeypatch.chdir(irmetrics.__path__[0] + "/..")
    code, out, err = run_cli("--ties", "expected", "-m", "map", QRELS, BM25)
    assert code == 0 and err == ""
    want = evaluate(QRELS, BM25, "map", ties="expected")["map"]
    assert out == f"map                   \tall\t{want:.4f}\n"
    assert out != run_cli("-m", "map", QRELS, BM25)[1]  # 0.5540, not trec_eval's 0.5541


def test_cli_bad_mode_and_undefined_measure(monkeypatch):
    monkeypatch.chdir(irmetrics.__path__[0] + "/..")
    code, out, err = run_cli("--ties", "mean", "-m", "map", QRELS, BM25)
    assert (code, out) == (2, "")
    assert err == ("irmetrics: error: 'ties' must be one of 'trec_eval', 'expected', "
                   "'best', 'worst' (got 'mean')\n")
    code, out, err = run_cli("--ties", "expected", "-m", "bpref", QRELS, BM25)
    assert (code, out) == (2, "")
    assert err.startswith("irmetrics: error: ties='expected' is not defined for measure "
                          "'bpref'") and err.count("\n") == 1


@pytest.mark.slow
def test_cli_notes_ties_that_move_a_value(monkeypatch):
    monkeypatch.chdir(irmetrics.__path__[0] + "/..")
    code, out, err = run_cli("-m", "map", QRELS, BM25)
    assert code == 0
    assert err == ("irmetrics: note: tied scores move the values of 1 query (e.g. '107'); "
                   "see --ties and 'irmetrics ties'\n")
    # P_5 does not move (the tie is at ranks 28-29): no note
    assert run_cli("-m", "P_5", QRELS, BM25)[2] == ""
    # the same note when worker processes score the file
    assert run_cli("--workers", "2", "-m", "map", QRELS, BM25)[2] == err


def test_cli_ties_subcommand(monkeypatch):
    monkeypatch.chdir(irmetrics.__path__[0] + "/..")
    code, out, err = run_cli("ties", "-m", "map", QRELS, BM25)
    assert (code, err) == (0, "")
    assert out == str(tie_report(QRELS, BM25, "map"))
    assert out.splitlines()[2].split()[0] == "107"
    code, out, err = run_cli("ties", QRELS, BM25)  # no -m
    assert code == 2 and out == "" and err.startswith("irmetrics ties: error:")
    assert err.count("\n") == 1 and "Traceback" not in err
    code, out, err = run_cli("ties", "-m", "ERR@10", QRELS, BM25)
    assert code == 2 and "not defined for measure 'ERR@10'" in err


def test_expected_set_f_keeps_trec_evals_weight():
    # a set measure does not depend on the order: every mode equals trec_eval's value.
    # a, then d, x, b tied: n = 4, 2 of R = 3 relevant retrieved, P = 1/2, R = 2/3;
    # set_F.4 = 5 * (1/2) * (2/3) / (4 * (1/2) + 2/3) = (5/3) / (8/3) = 0.625
    # (ties="expected" used weight 1 whatever the measure's: 4/7; issue 42)
    qrels = {"q": {"a": 1, "b": 1, "c": 1, "d": 0}}
    run = {"q": {"a": 2.0, "d": 1.0, "x": 1.0, "b": 1.0}}
    for mode in ("trec_eval", "expected", "best", "worst"):
        got = quiet_evaluate(qrels, run, ["set_F.4", "F(beta=2)"], ties=mode)
        assert got["set_F.4"] == pytest.approx(0.625, abs=1e-15), mode
        assert got["F(beta=2)"] == pytest.approx(0.625, abs=1e-15), mode
    # the list function: beta = 2 is trec_eval's weight 4
    assert f_measure([1, 0, None, 1], n_relevant=3, beta=2, scores=[2, 1, 1, 1],
                     ties="expected") == pytest.approx(0.625, abs=1e-15)


def test_expected_ndcg_takes_a_callable_discount():
    # a tied block's positions each get the block's mean gain, whatever the discount:
    # labels 2, 0, 1 tied at the top (mean gain 1), then 3, 0 tied (mean 1.5);
    # discount 1/i: DCG@4 = 1/1 + 1/2 + 1/3 + 1.5/4 = 2.208333...; ideal 3, 2, 1, 0:
    # 3 + 2/2 + 1/3 = 4.333333...; nDCG@4 = 2.208333 / 4.333333 = 0.509615...
    labels, scores = [2, 0, 1, 3, 0], [1, 1, 1, 0.5, 0.5]
    got = ndcg(labels, 4, scores=scores, ties="expected", discount=lambda i: 1.0 / i)
    assert got == pytest.approx((1 + 1 / 2 + 1 / 3 + 1.5 / 4) / (3 + 1 + 1 / 3), rel=1e-15)
    # the mean over the 3! * 2! orders, scored one by one
    every = [ndcg([labels[i] for i in a + b], 4, ideal=labels, discount=lambda i: 1.0 / i)
             for a in itertools.permutations([0, 1, 2]) for b in itertools.permutations([3, 4])]
    assert got == pytest.approx(math.fsum(every) / len(every), rel=1e-14)
    # jk with another base never rises with the rank: best is the maximum over the orders
    best = ndcg(labels, 4, scores=scores, ties="best", discount="jk", base=3)
    assert best == max(ndcg([labels[i] for i in a + b], 4, ideal=labels, discount="jk", base=3)
                       for a in itertools.permutations([0, 1, 2])
                       for b in itertools.permutations([3, 4]))
    # best and worst sort blocks by gain: not the extreme for a discount that rises
    with pytest.raises(InvalidArgumentError, match="never rises with the rank"):
        ndcg(labels, 4, scores=scores, ties="best", discount=lambda i: float(i))


# === 8. The note's cheap decision (issue 42) ==================================
# The command line notes the queries whose values the order of tied scores
# moves.  It used to compute the best and the worst value of every measure of
# every query with a tied judged document; now it decides from the blocks and
# computes the extremes only where that cannot decide.  The oracle is the old
# definition, through the public tie-aware values: best != worst.

NOTE_MEASURES = [
    "P_1", "P_3", "P(rel=2)@2", "recall_2", "R@4", "map", "gm_map", "map_cut_2",
    "AP(rel=2)", "recip_rank", "RR@2", "RR(rel=2)", "success_1", "Success@3", "Rprec",
    "Rprec(rel=2)", "num_rel_ret", "NumRelRet(rel=2)", "set_F", "SetF(beta=0.5)", "ndcg",
    "ndcg_cut_2", "nDCG(gain=exp)@3", "nDCG(discount=jk)", "ndcg_0=2,1=0,2=-1", "bpref",
    "gm_bpref", "infAP", "infAP(rel=2)", "iprec_at_recall_0.50", "Rprec_mult_0.60",
    "num_ret", "num_rel",
]


def tie_note(qrels, run, names, **options):
    """The queries of the command line's note (what _run prints the count of)."""
    from irmetrics.evaluate import _evaluate
    from irmetrics.evaluation import check_options
    from irmetrics.measures import parse_measures

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = _evaluate(qrels, run, names, parse_measures(names),
                           check_options(detect_ties=True, **options))
    return set(result.tie_moved)


def moved_by_extremes(qrels, run, names, **options):
    """The queries where ties="best" and ties="worst" differ for a measure
    (the counts num_ret and num_rel aside: the note does not count them)."""
    from irmetrics.measures import parse_measures

    names = [n for n, m in zip(names, parse_measures(names))
             if m.family.key not in ("num_ret", "num_rel")]
    if not names:
        return set()
    best = quiet_evaluate(qrels, run, names, ties="best", **options).per_query
    worst = quiet_evaluate(qrels, run, names, ties="worst", **options).per_query
    return {q for q in best if best[q] != worst[q]}


@st.composite
def tied_runs(draw):
    qrels, run = {}, {}
    for q in range(draw(st.integers(1, 3))):
        n = draw(st.integers(1, 8))
        docs = [f"d{i}" for i in range(n)]
        run[f"q{q}"] = {d: draw(st.sampled_from((1.0, 2.0, 3.0))) for d in docs}
        judged = {}
        for d in docs + ["u1", "u2"]:  # u1, u2: judged, never retrieved
            label = draw(st.sampled_from((None, None, -1, 0, 1, 2, 3)))
            if label is not None:
                judged[d] = label
        if not any(v >= 0 for v in judged.values()):
            judged["u3"] = 1
        qrels[f"q{q}"] = judged
    names = draw(st.lists(st.sampled_from(NOTE_MEASURES), min_size=1, max_size=6,
                          unique=True))
    options = {
        "relevance_level": draw(st.sampled_from((1, 1, 2))),
        "depth": draw(st.one_of(st.none(), st.integers(1, 8))),
        "judged_only": draw(st.booleans()),
    }
    return qrels, run, names, options


@settings(max_examples=400)
@given(tied_runs())
def test_tie_note_names_the_queries_whose_best_and_worst_differ(case):
    qrels, run, names, options = case
    assert tie_note(qrels, run, names, **options) == moved_by_extremes(qrels, run, names,
                                                                        **options)


def tie_shape(n_queries=30, n_docs=60, seed=7):
    """Queries with graded judgments and scores rounded so that some tie."""
    import random

    rng = random.Random(seed)
    qrels, run = {}, {}
    for q in range(n_queries):
        run[f"q{q}"] = {f"d{i}": float(rng.randrange(400)) for i in range(n_docs)}
        qrels[f"q{q}"] = {f"d{i}": rng.choice((0, 0, 1, 2, 3))
                          for i in rng.sample(range(n_docs + 10), 20)}
    return qrels, run


def test_tie_note_of_all_trec_computes_no_tie_aware_value(monkeypatch):
    # Issue 42: the note of `-q -m all_trec` took the best and the worst value
    # of every measure of every query with a tied judged document (2.7 of 3.2 s
    # on 200 queries x 1,000 documents).  For these measures the blocks decide.
    import sys

    import irmetrics.measures as ties_module
    from irmetrics.cli import _measures

    evaluate_module = sys.modules["irmetrics.evaluate"]  # (the name is the function's)

    qrels, run = tie_shape()
    pairs = _measures(["all_trec"])
    names = [n for n, _ in pairs]
    # the note looks at the measures with best and worst (numbers: not runid)
    want = moved_by_extremes(qrels, run, [n for n, m in pairs
                                          if ties_module.supports(m, "best") and n != "runid"])
    assert 0 < len(want) < len(qrels)  # some queries move, some do not
    calls = []

    real = ties_module.tie_value

    def counted(mode, *args):
        calls.append(mode)
        return real(mode, *args)

    monkeypatch.setattr(evaluate_module, "tie_value", counted)
    monkeypatch.setattr(ties_module, "tie_value", counted)
    got = tie_note(qrels, run, names, relevance_level=1, depth=None, judged_only=False)
    assert got == want
    assert calls == []


def test_tie_note_computes_extremes_only_where_blocks_mix_relevant_documents(monkeypatch):
    # bpref is decided by computing its extremes, but only for a query with a
    # block that mixes relevant and other documents: q1's tie (a non-relevant
    # and an unjudged document) cannot move it, q2's can.
    import sys

    import irmetrics.measures as ties_module

    qrels = {"q1": {"a": 1, "b": 0}, "q2": {"a": 1, "b": 0}}
    run = {"q1": {"a": 3.0, "b": 2.0, "c": 2.0}, "q2": {"a": 2.0, "b": 2.0, "c": 1.0}}
    real = ties_module.tie_value
    calls = []

    def counted(mode, m, q, info, env, judged_only):
        calls.append(info.n)
        return real(mode, m, q, info, env, judged_only)

    monkeypatch.setattr(sys.modules["irmetrics.evaluate"], "tie_value", counted)
    monkeypatch.setattr(ties_module, "tie_value", counted)
    assert tie_note(qrels, run, ["bpref"], relevance_level=1, depth=None,
                    judged_only=False) == {"q2"}
    assert len(calls) == 2  # best and worst of q2 alone


# === 9. trec_eval 10.0's measures and yaap (issue 44) ==========================
# Brute force: every order of the tied documents, each scored by the formulas
# below (written from m_rbp.c, m_rbp_resid.c, m_unj.c, m_ndcg.c and m_yaap.c,
# not from irmetrics); the modes must give their mean, maximum and minimum.


def _ref_values(judged, labels):
    """{measure: value} of one ranking's *labels* (the documents evaluated, in
    order; None unjudged, -1 pooled), *judged* the query's qrels."""
    top = max([x for x in judged.values() if x >= 0], default=0)
    # m_rbp.c: each level over the top one (unjudged and pooled documents gain 0)
    gains = [0 if x is None or x < 0 else x / top if top > 1 else x for x in labels]
    rbp = {p: (1 - p) * sum(g * p ** i for i, g in enumerate(gains))
           for p in (0.9, 0.5)}
    unjudged = [i for i, x in enumerate(labels) if x is None or x < 0]
    resid = {p: ((1 - p) * sum(p ** i for i in unjudged) + p ** len(labels)) if unjudged else 0.0
             for p in (0.9, 0.5)}
    dcg = sum(x / math.log2(i + 2) for i, x in enumerate(labels) if x is not None and x > 0)
    ideal = sorted((x for x in judged.values() if x > 0), reverse=True)
    hits, s = 0, 0.0
    for i, x in enumerate(labels, 1):
        if x is not None and x >= 1:
            hits += 1
            s += hits / i
    big_r = sum(1 for x in judged.values() if x >= 1)
    return {
        "rbp": rbp[0.9], "rbp_p=0.5": rbp[0.5], "rbp_resid": resid[0.9],
        "rbp_resid_p=0.5": resid[0.5],
        "unj_2": sum(1 for i in unjudged if i < 2) / 2,
        "unj_5": sum(1 for i in unjudged if i < 5) / 5,
        "dcg": dcg, "ideal_dcg": sum(g / math.log2(i + 2) for i, g in enumerate(ideal)),
        "yaap": math.log((1 + s) / (1 + big_r - s)),
    }


TEN = ["rbp", "rbp_p=0.5", "rbp_resid", "rbp_resid_p=0.5", "unj_2", "unj_5", "dcg",
       "ideal_dcg"]


@settings(max_examples=150)
@given(small_queries(), st.one_of(st.none(), st.integers(1, 6)), st.booleans())
def test_trec_eval_10_measures_modes_equal_every_order(case, depth, judged_only):
    qrels, run = case
    judged = qrels["q"]
    values = {m: [] for m in TEN + ["yaap"]}
    for scores in orderings(run["q"]):
        order = sorted(scores, key=scores.get, reverse=True)[:depth]
        labels = [judged.get(d) for d in order]
        if judged_only:
            labels = [x for x in labels if x is not None and x >= 0]
        want = _ref_values(judged, labels)
        got = quiet_evaluate(qrels, {"q": scores}, TEN + ["yaap"], trec_eval="10.0",
                             depth=depth, judged_only=judged_only).per_query["q"]
        for m in values:
            assert got[m] == pytest.approx(want[m], abs=1e-12), m
            values[m].append(want[m])
    for mode in ("expected", "best", "worst"):
        names = TEN if mode == "expected" else TEN + ["yaap"]
        try:
            got = quiet_evaluate(qrels, run, names, ties=mode, trec_eval="10.0", depth=depth,
                                 judged_only=judged_only).per_query["q"]
        except InvalidArgumentError as exc:  # the one documented gap
            assert "straddles the depth cut" in str(exc) and judged_only
            continue
        for m in names:
            vs = values[m]
            want = _over_orders(vs, mode)
            assert got[m] == pytest.approx(want, abs=1e-12), (mode, m)


def test_rbp_best_and_worst_follow_a_gain_map():
    # rbp.1=1,2=0.5: label 1 gains more than label 2 (then the levels are kept,
    # all in [0, 1]); a (2) and b (1) tied at the top: best puts b first:
    # 0.5 * (1 + 0.5 * 0.5) = 0.625, worst a first: 0.5 * (0.5 + 0.5 * 1) = 0.5
    qrels, run = {"q": {"a": 2, "b": 1}}, {"q": {"a": 1.0, "b": 1.0}}
    name = "rbp_1=1,2=0.5,p=0.5"
    got = {mode: quiet_evaluate(qrels, run, [name], ties=mode, trec_eval="10.0")[name]
           for mode in ("best", "worst", "expected")}
    assert got == {"best": 0.625, "worst": 0.5, "expected": 0.5625}


@pytest.mark.parametrize("measure", ["yaap", "prefs_simp", "map_avgjg", "P_avgjg_5"])
def test_measures_without_expected_name_the_measure(measure):
    with pytest.raises(InvalidArgumentError,
                       match=f"ties='expected' is not defined for measure '{measure}'"):
        evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, [measure], ties="expected")


@settings(max_examples=200)
@given(tied_runs())
def test_tie_note_of_trec_eval_10_measures(case):
    qrels, run, _, options = case
    names = ["rbp", "rbp_1=1,2=0.5,p=0.5", "rbp_resid", "unj_2", "dcg", "ideal_dcg", "yaap"]
    names = names[:1 + sum(map(ord, str(sorted(run)))) % len(names)]
    assert tie_note(qrels, run, names, trec_eval="10.0", **options) == moved_by_extremes(
        qrels, run, names, trec_eval="10.0", **options)


# === RBP and the static C/W/L models' EU (issue 46 item 5) ====================

CWL = ["RBP(p=0.8)", "RBP(p=0.5)@3", "RBP(quantity=EU,rel=2)", "INSQ(max_rel=2)",
       "SDCG(max_rel=2)@3", "TBG(H=2,max_rel=2)", "UMeasure(L=3,max_rel=2)"]


@settings(max_examples=100)
@given(small_queries())
def test_cwl_modes_equal_mean_max_min_over_every_order(case):
    qrels, run = case
    values = {m: [] for m in CWL}
    for scores in orderings(run["q"]):
        order = sorted(scores, key=scores.get, reverse=True)
        labels = [qrels["q"].get(d) for d in order]
        labels = [None if x is None or x < 0 else x for x in labels]  # pooled: unjudged
        got = quiet_evaluate(qrels, {"q": scores}, CWL).per_query["q"]
        # the list function scores the order on its own
        assert got["INSQ(max_rel=2)"] == pytest.approx(irmetrics.cwl.insq(labels, max_rel=2))
        for m in CWL:
            values[m].append(got[m])
    for mode in ("expected", "best", "worst"):
        got = quiet_evaluate(qrels, run, CWL, ties=mode).per_query["q"]
        for m in CWL:
            vs = values[m]
            want = _over_orders(vs, mode)
            assert got[m] == pytest.approx(want, abs=1e-12), (mode, m)


@pytest.mark.parametrize("measure", ["INST(max_rel=2)", "BPM(max_rel=2)@3", "NERR10(max_rel=2)",
                                     "RBP(quantity=ResEU)", "INSQ(max_rel=2,quantity=ETU)",
                                     "SDCG(max_rel=2,quantity=ResEU)@3"])
@pytest.mark.parametrize("mode", ["expected", "best", "worst"])
def test_cwl_measures_without_tie_modes_name_the_measure(measure, mode):
    with pytest.raises(InvalidArgumentError, match=f"ties='{mode}' is not defined for measure"):
        evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, [measure], ties=mode)


def test_cwl_tie_modes_with_costs_name_the_measure():
    qrels, run = {"q": {"a": 1, "b": 0}}, {"q": {"a": 1.0, "b": 1.0}}
    with pytest.raises(InvalidArgumentError, match="measure 'INSQ.*' with costs: ties='best' is not defined"):
        evaluate(qrels, run, ["INSQ(max_rel=1)"], ties="best", costs={"q": {"a": 2.0}})
    # and trec_eval's order with costs is as before
    assert evaluate(qrels, run, ["INSQ(max_rel=1)"], costs={"q": {"a": 2.0}})


@pytest.fixture
def nothing_scored(monkeypatch):
    """Scoring a query fails the test: a refusal must come before any scoring."""
    def score(self, qid, data):
        raise AssertionError(f"query {qid!r} was scored")
    monkeypatch.setattr(_Scorer, "_score", score)


COSTS_REFUSED = ("measure 'INSQ(max_rel=1)' with costs: ties='best' is not defined (the order "
                 "of tied documents moves the costs, so the weights)")


def test_cwl_tie_modes_with_costs_are_refused_before_scoring(nothing_scored):
    # once, when the options are checked, with or without a query given costs
    # (the run's file does not even exist: it is never opened)
    qrels = {"q": {"a": 1, "b": 0}}
    for costs in ({"q": {"a": 2.0}}, {}):
        with pytest.raises(InvalidArgumentError) as info:
            evaluate(qrels, "no/such/run", ["map", "INSQ(max_rel=1)"], ties="best", costs=costs)
        assert str(info.value) == COSTS_REFUSED


def test_with_costs_other_measures_keep_their_tie_modes():
    # a (relevant) and b tied at the top: RR 1 at best, 1/2 at worst; costs
    # move nothing but the C/W/L measures
    qrels, run = {"q": {"a": 1, "b": 0}}, {"q": {"a": 1.0, "b": 1.0}}
    for mode, want in (("best", 1.0), ("worst", 0.5), ("expected", 0.75)):
        assert evaluate(qrels, run, ["recip_rank", "ndcg"], ties=mode,
                        costs={"q": {"a": 2.0}})["recip_rank"] == want
    assert supports(parse_measure("INSQ(max_rel=1)"), "best")
    assert not supports(parse_measure("INSQ(max_rel=1)"), "best", costs=True)
    assert supports(parse_measure("map"), "best", costs=True)


def test_cli_cost_file_with_a_tie_mode_is_refused_before_scoring(tmp_path, nothing_scored):
    qrels, run, costs = tmp_path / "qrels", tmp_path / "run", tmp_path / "costs"
    qrels.write_text("q 0 a 1\nq 0 b 0\n", encoding="ascii")
    run.write_text("q Q0 a 1 1.0 r\nq Q0 b 2 1.0 r\n", encoding="ascii")
    costs.write_text("Q0 2\n", encoding="ascii")
    code, out, err = run_cli("--ties", "best", "--cost-file", costs, "-m", "map",
                             "-m", "INSQ(max_rel=1)", qrels, run)
    # the command line names a measure as it prints it
    want = COSTS_REFUSED.replace("INSQ(max_rel=1)", "INSQ(T=1,max_rel=1)")
    assert (code, out, err) == (2, "", f"irmetrics: error: {want}\n")


def test_cli_ties_subcommand_keeps_the_cwl_tie_modes(monkeypatch):
    # 'irmetrics ties' takes no cost file, so the C/W/L measures keep their modes
    monkeypatch.chdir(irmetrics.__path__[0] + "/..")
    code, out, err = run_cli("ties", "-m", "INSQ(max_rel=1)", QRELS, BM25)
    assert (code, err) == (0, "")
    assert out == str(tie_report(QRELS, BM25, "INSQ(max_rel=1)"))
    code, out, err = run_cli("ties", "--cost-file", "costs", "-m", "INSQ(max_rel=1)", QRELS, BM25)
    assert (code, out) == (2, "") and err.count("\n") == 1
    assert err.startswith("irmetrics ties: error: unrecognized arguments: --cost-file")


@pytest.mark.parametrize("measure, mode, why", [
    ("INSQ(max_rel=2,quantity=ETU)", "best", "only its EU quantity, the value, has tie modes"),
    ("RBP(quantity=ResEU)", "expected", "only its EU quantity, the value, has tie modes"),
    ("INST(max_rel=2)", "worst",
     "an adaptive C/W/L model's weights read the gains, which the order moves"),
    ("bpref", "expected", "it has 'best' and 'worst' only"),
])
def test_refusals_say_why_when_the_family_has_tie_modes(measure, mode, why, nothing_scored):
    # the list of families that have the mode names this one's (but INST's,
    # for which every C/W/L family but the adaptive ones stands): the reason
    # says what of it has the mode
    with pytest.raises(InvalidArgumentError) as info:
        evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, [measure], ties=mode)
    assert str(info.value).startswith(
        f"ties='{mode}' is not defined for measure '{measure}' ({why}; it is for: ")


def test_rbp_expected_by_hand():
    # a (relevant) and b tied at the top, p = 0.5: orders give 0.5 and 0.25
    qrels, run = {"q": {"a": 1, "b": 0}}, {"q": {"a": 1.0, "b": 1.0}}
    got = {mode: evaluate(qrels, run, ["RBP(p=0.5)"], ties=mode)["RBP(p=0.5)"]
           for mode in ("expected", "best", "worst")}
    assert got == {"expected": 0.375, "best": 0.5, "worst": 0.25}


@settings(max_examples=100)
@given(tied_runs())
def test_tie_note_of_cwl_measures(case):
    qrels, run, _, options = case
    names = ["RBP(p=0.5)", "INSQ(max_rel=3)", "SDCG(max_rel=3)@3"]
    want = moved_by_extremes(qrels, run, names, **options)
    assert tie_note(qrels, run, names, **options) == want
    # a measure without tie modes adds nothing to the note
    assert tie_note(qrels, run, names + ["INST(max_rel=3)"], **options) == want


def test_tie_note_with_costs_leaves_the_cwl_measures_out():
    qrels, run = {"q": {"a": 1, "b": 0}}, {"q": {"a": 1.0, "b": 1.0}}
    assert tie_note(qrels, run, ["INSQ(max_rel=1)"], costs={"q": {"a": 2.0}}) == set()
    # the other measures are noted as without costs
    assert tie_note(qrels, run, ["INSQ(max_rel=1)", "recip_rank"], costs={"q": {}}) == {"q"}
    assert tie_note(qrels, run, ["INSQ(max_rel=1)"]) == {"q"}
