"""evaluate(): trec_eval's semantics on small hand-built qrels and runs.

Every expected value is derived by hand in a comment; log2(3) = 1.5849625.
"""

import copy
import io
import math
import warnings

import pytest
from oracles import require

from irmetrics import Qrels, Run, evaluate
from irmetrics.cli import _run
from irmetrics.errors import (
    DuplicateEntryError,
    InvalidArgumentError,
    IrmetricsWarning,
    UnknownMeasureError,
)

LOG2_3 = math.log2(3)


def agg(qrels, run, measures, **kwargs):
    return evaluate(qrels, run, measures, **kwargs).aggregate


# === Ranking =================================================================


def test_ties_broken_by_doc_id_descending():
    # equal scores: trec_eval orders c, b, a (strcmp descending)
    qrels = {"q": {"a": 1, "b": 0, "c": 0}}
    run = {"q": {"a": 1.0, "b": 1.0, "c": 1.0}}
    r = agg(qrels, run, ["recip_rank", "P_1", "map"])
    assert r["recip_rank"] == pytest.approx(1 / 3)  # a is third
    assert r["P_1"] == 0.0
    assert r["map"] == pytest.approx(1 / 3)  # (1/3) / R=1


def test_ties_with_numeric_ids_use_string_order():
    # "10" > "9" is False in string order: descending puts "9" before "10"
    qrels = {"q": {"10": 1, "9": 0}}
    run = {"q": {"10": 0.5, "9": 0.5}}
    assert agg(qrels, run, ["recip_rank"])["recip_rank"] == pytest.approx(0.5)


def test_rank_column_is_ignored():
    # The rank column says a first; the scores say b first.
    import io

    run = Run.from_trec(io.StringIO("q Q0 a 1 0.1 t\nq Q0 b 2 0.9 t\n"))
    qrels = {"q": {"a": 1, "b": 0}}
    r = agg(qrels, run, ["recip_rank", "P_1"])
    assert r["recip_rank"] == pytest.approx(0.5)  # a at rank 2 by score
    assert r["P_1"] == 0.0


# === Relevance ===============================================================


def test_relevance_level_for_binary_measures_ndcg_uses_grades():
    qrels = {"q": {"a": 1, "b": 2}}
    run = {"q": {"a": 0.9, "b": 0.8}}
    # level 1: both relevant: P@2 = 1, RR = 1
    # level 2: only b: P@2 = 1/2, RR = 1/2, num_rel = 1
    one = agg(qrels, run, ["P@2", "RR", "num_rel", "nDCG"])
    two = agg(qrels, run, ["P@2", "RR", "num_rel", "nDCG"], relevance_level=2)
    assert (one["P@2"], one["RR"], one["num_rel"]) == (1.0, 1.0, 2)
    assert (two["P@2"], two["RR"], two["num_rel"]) == (0.5, 0.5, 1)
    # nDCG: DCG = 1 + 2/log2(3) = 2.26186; ideal 2 + 1/log2(3) = 2.63093
    expected = (1 + 2 / LOG2_3) / (2 + 1 / LOG2_3)
    assert one["nDCG"] == pytest.approx(expected)
    assert two["nDCG"] == pytest.approx(expected)
    assert expected == pytest.approx(0.85972, abs=1e-5)


def test_negative_qrels_are_never_relevant_and_not_in_r():
    # ranking: a(-1) b(1) x(unjudged) c(0) e(-2) d(1); R = 2 (b, d)
    qrels = {"q": {"a": -1, "b": 1, "c": 0, "d": 1, "e": -2}}
    run = {"q": {"a": 0.9, "b": 0.8, "x": 0.7, "c": 0.6, "e": 0.55, "d": 0.5}}
    r = agg(qrels, run, ["num_rel", "num_rel_ret", "P_1", "recip_rank", "map", "bpref",
                         "infAP", "num_nonrel_judged_ret"])
    assert r["num_rel"] == 2
    assert r["num_rel_ret"] == 2
    assert r["P_1"] == 0.0  # a is -1: not relevant
    assert r["recip_rank"] == 0.5
    # map = (1/2 + 2/6) / 2 = 0.416667
    assert r["map"] == pytest.approx((1 / 2 + 2 / 6) / 2)
    # bpref: judged non-relevant N = 1 (c; a and e are not counted).
    #   b: 0 non-relevant above -> 1;  d: c above -> 1 - min(1, 1)/min(R=2, N=1) = 0
    #   bpref = (1 + 0) / 2
    assert r["bpref"] == pytest.approx(0.5)
    # infAP (trec_eval m_infAP.c): at a relevant doc at rank k,
    #   1/k + (k-1)/k * (pooled above / (k-1)) * (rel above + eps)/(rel+nonrel above + 2 eps)
    #   where "pooled" counts qrels entries, negative ones included.
    #   b, k=2: 1/2 + 1/2 * 1/1 * eps/(2 eps) = 0.75
    #   d, k=6: pooled above a, b, c, e = 4; rel above 1, nonrel above 1:
    #           1/6 + 5/6 * 4/5 * 1/2 = 0.5
    #   infAP = (0.75 + 0.5) / R=2 = 0.625
    assert r["infAP"] == pytest.approx(0.625)
    assert r["num_nonrel_judged_ret"] == 1  # c only


def test_negative_qrels_agree_with_pytrec_eval():
    pytrec_eval = require("pytrec_eval")
    qrels = {"q": {"a": -1, "b": 1, "c": 0, "d": 2, "e": -2, "f": 1},
             "r": {"a": 0, "b": -1, "c": 1}}
    run = {"q": {"a": 0.9, "b": 0.8, "x": 0.7, "c": 0.6, "e": 0.55, "d": 0.5},
           "r": {"b": 3.0, "a": 2.0, "z": 1.5, "c": 1.0}}
    names = ["infAP", "bpref", "map", "num_rel", "num_rel_ret", "P_5", "recip_rank",
             "ndcg", "ndcg_cut_5", "Rprec", "num_nonrel_judged_ret"]
    expected = pytrec_eval.RelevanceEvaluator(qrels, set(names)).evaluate(run)
    got = evaluate(qrels, run, names).per_query
    for qid in expected:
        for name in names:
            assert got[qid][name] == pytest.approx(expected[qid][name]), (qid, name)


def test_ndcg_ideal_over_all_judged_documents():
    # c (grade 3) is judged but not retrieved: it belongs in the ideal.
    qrels = {"q": {"a": 1, "b": 2, "c": 3}}
    run = {"q": {"a": 0.9, "b": 0.8}}
    r = agg(qrels, run, ["ndcg", "ndcg_cut_1", "ndcg_cut_2", "nDCG@2"])
    dcg2 = 1 + 2 / LOG2_3  # 2.26186
    # uncut: ideal 3, 2, 1: 3 + 2/log2(3) + 1/2 = 4.76186 -> 0.47500
    assert r["ndcg"] == pytest.approx(dcg2 / (3 + 2 / LOG2_3 + 0.5))
    # cut at 1: 1 / 3
    assert r["ndcg_cut_1"] == pytest.approx(1 / 3)
    # cut at 2: ideal 3 + 2/log2(3) = 4.26186 -> 0.53072
    assert r["ndcg_cut_2"] == pytest.approx(dcg2 / (3 + 2 / LOG2_3))
    assert r["nDCG@2"] == r["ndcg_cut_2"]


def test_ndcg_zero_grade_documents_do_not_enter_ideal():
    qrels = {"q": {"a": 0, "b": 1}}
    run = {"q": {"b": 0.9, "a": 0.8}}
    assert agg(qrels, run, ["ndcg"])["ndcg"] == 1.0


def test_precision_divides_by_k():
    qrels = {"q": {"a": 1, "b": 1}}
    run = {"q": {"a": 0.9, "x": 0.8}}
    r = agg(qrels, run, ["P@10", "P_2", "P@1"])
    assert r["P@10"] == pytest.approx(0.1)  # 1 / 10, not 1 / 2 retrieved
    assert r["P_2"] == 0.5
    assert r["P@1"] == 1.0


# === Which queries ============================================================


def test_complete_averages_over_every_qrels_query():
    qrels = {"q1": {"a": 1, "b": 1}, "q2": {"c": 1, "d": 0, "e": 2}}
    run = {"q1": {"a": 0.9, "x": 0.8}}
    plain = evaluate(qrels, run, ["map", "num_rel", "num_q", "P@2"])
    full = evaluate(qrels, run, ["map", "num_rel", "num_q", "P@2"], complete=True)
    # q1: map = (1/1)/2 = 0.5, P@2 = 1/2
    assert plain.aggregate == {"map": 0.5, "num_rel": 2, "num_q": 1, "P@2": 0.5}
    assert plain.missing == ("q2",)
    # complete: q2 is an empty ranking: map 0, P@2 0; num_rel 2 + 2 = 4
    assert full.aggregate["map"] == pytest.approx(0.25)
    assert full.aggregate["P@2"] == pytest.approx(0.25)
    assert full.aggregate["num_rel"] == 4
    assert full.aggregate["num_q"] == 2
    assert full.per_query["q2"] == {"map": 0.0, "num_rel": 2, "num_q": 1, "P@2": 0.0}
    assert full.missing == ("q2",)


def test_depth_cuts_each_ranking():
    qrels = {"q": {"a": 0, "b": 1}}
    run = {"q": {"a": 0.9, "b": 0.8}}
    full = agg(qrels, run, ["num_ret", "map", "recip_rank"])
    cut = agg(qrels, run, ["num_ret", "map", "recip_rank"], depth=1)
    assert full == {"num_ret": 2, "map": 0.5, "recip_rank": 0.5}
    assert cut == {"num_ret": 1, "map": 0.0, "recip_rank": 0.0}


def test_judged_only_drops_unjudged_documents():
    qrels = {"q": {"a": 1, "b": 0}}
    run = {"q": {"x": 0.9, "a": 0.8, "y": 0.7, "b": 0.6}}
    assert agg(qrels, run, ["recip_rank", "num_ret"]) == {"recip_rank": 0.5, "num_ret": 4}
    # judged only: a, b -> RR 1, 2 retrieved
    assert agg(qrels, run, ["recip_rank", "num_ret"], judged_only=True) == {
        "recip_rank": 1.0, "num_ret": 2}


def test_gm_map_geometric_mean_with_floor():
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    run = {"q1": {"x": 0.9, "a": 0.8}, "q2": {"x": 1.0}}
    # AP: q1 = 1/2, q2 = 0 -> floored at 1e-5.  gm = sqrt(0.5 * 1e-5) = 0.00223607
    r = agg(qrels, run, ["gm_map", "map"])
    assert r["gm_map"] == pytest.approx(math.sqrt(0.5 * 1e-5))
    assert r["map"] == 0.25


def test_counts_are_summed_as_ints():
    qrels = {"q1": {"a": 1, "b": 1}, "q2": {"b": 1}}
    run = {"q1": {"a": 1.0, "c": 0.5}, "q2": {"b": 1.0}}
    r = agg(qrels, run, ["num_ret", "num_rel", "num_rel_ret", "num_q"])
    assert r == {"num_ret": 3, "num_rel": 3, "num_rel_ret": 2, "num_q": 2}
    assert all(type(v) is int for v in r.values())


def test_skipped_run_query_warns():
    qrels = {"q1": {"a": 1}}
    run = {"q1": {"a": 1.0}, "zz": {"a": 1.0}}
    with pytest.warns(IrmetricsWarning, match="zz"):
        result = evaluate(qrels, run, ["map"])
    assert result.skipped == ("zz",)
    assert list(result.per_query) == ["q1"]
    assert result.aggregate["map"] == 1.0


def test_no_common_query_is_an_error():
    with pytest.warns(IrmetricsWarning):
        with pytest.raises(InvalidArgumentError, match="no query"):
            evaluate({"q1": {"a": 1}}, {"q2": {"a": 1.0}}, ["map"])


# === Results =================================================================


def test_results_keyed_by_names_asked_for():
    qrels = {"q": {"a": 1}}
    run = {"q": {"a": 1.0, "b": 0.5}}
    result = evaluate(qrels, run, ["P@5", "P_5", "nDCG@10", "ndcg_cut_10"])
    assert list(result.aggregate) == ["P@5", "P_5", "nDCG@10", "ndcg_cut_10"]
    assert result.aggregate["P@5"] == result.aggregate["P_5"] == pytest.approx(0.2)
    assert list(result.per_query["q"]) == ["P@5", "P_5", "nDCG@10", "ndcg_cut_10"]
    assert result["nDCG@10"] == result["ndcg_cut_10"] == 1.0


@pytest.mark.parametrize("ties", ["trec_eval", "best", "worst"])
def test_measures_averaged_differently_keep_their_own_columns(ties):
    # map and gm_map (bpref and gm_bpref) are one computation per query,
    # made once: each name still gets its values and its own mean.
    qrels = {"q1": {"a": 1, "b": 0, "c": 2}, "q2": {"b": 1}}
    run = {"q1": {"x": 0.9, "a": 0.8, "b": 0.8, "c": 0.1}, "q2": {"x": 1.0, "y": 0.9, "b": 0.5}}
    names = ["gm_bpref", "map", "P_5", "bpref", "gm_map", "AP"]
    result = evaluate(qrels, run, names, ties=ties)
    assert list(result.per_query["q1"]) == names
    for name in names:
        alone = evaluate(qrels, run, [name], ties=ties)
        assert result.aggregate[name] == alone.aggregate[name], name
        for qid in qrels:
            assert result.per_query[qid][name] == alone.per_query[qid][name], (name, qid)
    assert result.aggregate["gm_map"] != result.aggregate["map"]


def test_single_measure_string():
    result = evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, "map")
    assert result.aggregate == {"map": 1.0}


def test_plain_dict_and_float_results():
    qrels = {"q1": {"a": 1}, "q2": {"a": 1}}
    run = {"q1": {"a": 1.0}, "q2": {"b": 1.0}}
    result = evaluate(qrels, run, ["map", "num_ret"])
    assert type(result.aggregate) is dict
    assert type(result.per_query) is dict
    assert all(type(v) is dict for v in result.per_query.values())
    assert type(result.aggregate["map"]) is float
    assert type(result.per_query["q1"]["map"]) is float
    # the copies are made once: reading them in a loop costs nothing...
    assert result.per_query is result.per_query
    assert result.aggregate is result.aggregate
    # ...and changing them does not change the evaluation itself
    result.aggregate["map"] = 99.0
    result.per_query["q1"]["map"] = 99.0
    assert result["map"] == 0.5
    assert result.to_dict()["aggregate"]["map"] == 0.5
    assert result.to_dict()["per_query"]["q1"]["map"] == 1.0


def test_inputs_unchanged():
    qrels = {"q1": {"a": 1, "b": -1, "c": 0}, "q2": {"d": 2}}
    run = {"q1": {"a": 0.1, "b": 0.5, "x": 0.5}, "q3": {"a": 1.0}, "q2": {"d": 1}}
    names = ["map", "ndcg_cut_5", "infAP"]
    before = copy.deepcopy((qrels, run, names))
    with pytest.warns(IrmetricsWarning):
        evaluate(qrels, run, names, complete=True, depth=2, judged_only=True)
    assert (qrels, run, names) == before
    assert list(run["q1"]) == ["a", "b", "x"]  # insertion order kept too
    q, r = Qrels(qrels), Run(run, name="r")
    q_dict, r_dict = q.to_dict(), r.to_dict()
    with pytest.warns(IrmetricsWarning):
        evaluate(q, r, names)
    assert q.to_dict() == q_dict and r.to_dict() == r_dict


def test_unknown_measure_error_with_suggestions():
    with pytest.raises(UnknownMeasureError) as info:
        evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, ["mpa"])
    assert "map" in info.value.suggestions
    assert "did you mean" in str(info.value)
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("name", ["relstring", "runid"])
def test_text_measures_rejected(name):
    with pytest.raises(InvalidArgumentError, match=name):
        evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, ["map", name])


@pytest.mark.parametrize(
    "kwargs",
    [{"relevance_level": 0}, {"depth": -1}, {"complete": 1}, {"judged_only": "yes"}],
)
def test_bad_options(kwargs):
    with pytest.raises(InvalidArgumentError):
        evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, ["map"], **kwargs)


# === Gain options ============================================================


def test_ndcg_exponential_gain():
    qrels = {"q": {"a": 1, "b": 2}}
    run = {"q": {"a": 0.9, "b": 0.8}}
    # gains 2**1-1 = 1, 2**2-1 = 3.  DCG = 1 + 3/log2(3) = 2.89279
    # ideal 3 + 1/log2(3) = 3.63093 -> 0.79670
    r = agg(qrels, run, ["nDCG(gain=exp)@10", "nDCG(gain=exp)"])
    expected = (1 + 3 / LOG2_3) / (3 + 1 / LOG2_3)
    assert r["nDCG(gain=exp)@10"] == pytest.approx(expected)
    assert r["nDCG(gain=exp)"] == pytest.approx(expected)
    assert expected == pytest.approx(0.79670, abs=1e-5)


def test_ndcg_gain_map_fractional():
    # level 1 -> 0.5, level 2 -> 3.  Ranking a(1) c(0) b(2): gains 0.5, 0, 3
    # DCG = 0.5 + 0 + 3/log2(4) = 2.0; ideal 3, 0.5: 3 + 0.5/log2(3) = 3.31546
    qrels = {"q": {"a": 1, "b": 2, "c": 0}}
    run = {"q": {"a": 0.9, "c": 0.8, "b": 0.7}}
    r = agg(qrels, run, ["nDCG(gain=1=0.5,2=3)"])
    assert r["nDCG(gain=1=0.5,2=3)"] == pytest.approx(2.0 / (3 + 0.5 / LOG2_3))


def test_ndcg_gain_map_ideal_is_ordered_by_gain_not_label():
    # level 1 -> 3, level 2 -> 0.5: the best document is the level-1 one.
    # Ranking b(2) a(1): gains 0.5, 3: DCG = 0.5 + 3/log2(3) = 2.39279
    # ideal by gain: 3, 0.5: 3 + 0.5/log2(3) = 3.31546 -> 0.72170
    # (an ideal ordered by label, 2 then 1, would give 0.5 + 3/log2(3) -> 1.0)
    qrels = {"q": {"a": 1, "b": 2}}
    run = {"q": {"b": 0.9, "a": 0.8}}
    r = agg(qrels, run, ["nDCG(gain=1=3,2=0.5)", "nDCG(gain=1=3,2=0.5)@1"])
    assert r["nDCG(gain=1=3,2=0.5)"] == pytest.approx((0.5 + 3 / LOG2_3) / (3 + 0.5 / LOG2_3))
    assert r["nDCG(gain=1=3,2=0.5)@1"] == pytest.approx(0.5 / 3)


# === ERR, RBP, Judged ========================================================


def test_err_hand_values():
    # max_label = 2 (largest grade in the qrels).  R(g) = (2**g - 1) / 4:
    # a: 3/4, b: 1/4.  Ranking c(0) a(2) b(1):
    # ERR = (1/2)(3/4) + (1/3)(1 - 3/4)(1/4) = 0.375 + 1/48 = 0.3958333
    qrels = {"q": {"a": 2, "b": 1, "c": 0}}
    run = {"q": {"c": 0.9, "a": 0.8, "b": 0.7}}
    r = agg(qrels, run, ["ERR", "ERR@2", "ERR@1", "ERR(max_label=4)@2"])
    assert r["ERR"] == pytest.approx(0.375 + 1 / 48)
    assert r["ERR@2"] == pytest.approx(0.375)
    assert r["ERR@1"] == 0.0
    # max_label 4: R(2) = 3/16; ERR@2 = (1/2)(3/16) = 0.09375
    assert r["ERR(max_label=4)@2"] == pytest.approx(3 / 32)


def test_rbp_hand_values():
    # relevant at ranks 1 and 3
    qrels = {"q": {"a": 1, "b": 0, "c": 2}}
    run = {"q": {"a": 0.9, "b": 0.8, "c": 0.7}}
    r = agg(qrels, run, ["RBP(p=0.5)", "RBP", "RBP(p=0.5)@2", "RBP(p=0.5,rel=2)"])
    assert r["RBP(p=0.5)"] == pytest.approx(0.5 * (1 + 0.25))  # 0.625
    assert r["RBP"] == pytest.approx(0.2 * (1 + 0.64))  # p = 0.8: 0.328
    assert r["RBP(p=0.5)@2"] == pytest.approx(0.5)  # rank 3 cut off
    assert r["RBP(p=0.5,rel=2)"] == pytest.approx(0.5 * 0.25)  # only c


def test_judged_hand_values():
    # ranking a(1) x(-) b(-1: pooled, not judged) c(0)
    qrels = {"q": {"a": 1, "b": -1, "c": 0}}
    run = {"q": {"a": 0.9, "x": 0.8, "b": 0.7, "c": 0.6}}
    r = agg(qrels, run, ["Judged@1", "Judged@2", "Judged@4", "Judged@10", "Judged"])
    assert r["Judged@1"] == 1.0
    assert r["Judged@2"] == 0.5
    assert r["Judged@4"] == 0.5  # a and c
    assert r["Judged@10"] == 0.5  # divisor: the 4 documents ranked
    assert r["Judged"] == 0.5


# === The garbage collector ==================================================


@pytest.mark.parametrize("enabled", [True, False])
def test_collector_state_is_left_as_it_was(enabled, tmp_path):
    # evaluate() and the readers pause the cyclic collector while they build
    # their tables; afterwards, also after an error, it is as the caller left it.
    import gc

    from irmetrics.errors import TrecFormatError

    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 d1 1\n")
    run = tmp_path / "run"
    run.write_text("q1 Q0 d1 1 1.0 t\n")
    bad = tmp_path / "bad"
    bad.write_text("q1 Q0 d1 1 x t\n")
    was = gc.isenabled()
    try:
        if not enabled:
            gc.disable()
        assert evaluate(str(qrels), str(run), ["P@1"]).aggregate == {"P@1": 1.0}
        assert gc.isenabled() is enabled
        with pytest.raises(TrecFormatError):
            evaluate(str(qrels), str(bad), ["P@1"])
        assert gc.isenabled() is enabled
        with pytest.raises(TrecFormatError):
            Qrels.from_trec(str(bad))
        assert gc.isenabled() is enabled
    finally:
        if was:
            gc.enable()


# === One options record ===============================================




def test_options_are_checked_once_into_a_frozen_record():
    from irmetrics.evaluation import Options, check_options

    options = check_options(relevance_level=2, depth=0, scores="float32", ties="best")
    assert options == Options(2, False, 0, False, "float32", "best")
    assert options.float32
    with pytest.raises(AttributeError):
        options.depth = 5  # type: ignore[misc]
    assert options._replace(ties="worst").ties == "worst" and options.ties == "best"
    for bad, message in [({"relevance_level": 0}, "'relevance_level' must be an int >= 1"),
                         ({"depth": -1}, "'depth' must be an int >= 0"),
                         ({"complete": 1}, "'complete' must be a bool"),
                         ({"scores": "half"}, "'scores' must be 'float64' or 'float32'"),
                         ({"ties": "random"}, "'ties' must be one of")]:
        with pytest.raises(InvalidArgumentError, match=message):
            check_options(**bad)


def test_an_evaluation_carries_its_options_and_tie_note_as_fields():
    import pickle

    from irmetrics.evaluate import _evaluate
    from irmetrics.evaluation import check_options
    from irmetrics.measures import parse_measures

    qrels = {"q1": {"a": 1}, "q2": {"c": 1}}
    run = {"q1": {"a": 1.0, "b": 1.0}, "q2": {"c": 2.0, "d": 1.0}}
    result = _evaluate(qrels, run, ["recip_rank"], parse_measures(["recip_rank"]),
                       check_options(depth=10, detect_ties=True))
    assert result.tie_moved == ("q1",)  # a and b tied: recip_rank 1 or 1/2
    assert result.options["depth"] == 10 and "detect_ties" not in result.options
    again = pickle.loads(pickle.dumps(result))
    assert (again.tie_moved, again.options, again.per_query) == (
        result.tie_moved, result.options, result.per_query)
    assert evaluate(qrels, run, "recip_rank").tie_moved == ()  # only when asked for


# === Duplicates trec_eval never looks at: warnings, not errors =================
# (issue 12, item 5) A document twice in a query is an error where it would
# change a value, and a warning where trec_eval never looks at it.


def _cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = _run([str(a) for a in argv], out, err)
    return code, out.getvalue(), err.getvalue()


def test_a_duplicate_below_the_depth_cut_is_evaluated_with_a_warning(tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 a 1\nq1 0 b 1\n")
    run = tmp_path / "run"
    run.write_text("q1 Q0 a 1 3 r\nq1 Q0 x 2 2 r\nq1 Q0 b 3 1 r\nq1 Q0 x 4 0.5 r\n")
    # -M 3: trec_eval keeps a, x, b and never sees the second x
    code, out, err = _cli("-M", "3", "-m", "map", "-m", "num_ret", qrels, run)
    assert code == 0
    assert out == "num_ret               \tall\t3\nmap                   \tall\t0.8333\n"
    assert err == (f"irmetrics: warning: {run}, line 4: document 'x' appears twice for query "
                   "'q1' (lines 2 and 4); trec_eval does not look at it, and neither does "
                   "irmetrics: below the depth cut (3)\n")
    # within the cut the value would change: still an error naming both lines
    code, out, err = _cli("-M", "4", "-m", "map", qrels, run)
    assert (code, out) == (2, "")
    assert "line 4: document 'x' appears twice for query 'q1' (lines 2 and 4)" in err
    with pytest.raises(DuplicateEntryError):
        evaluate(str(qrels), str(run), ["map"])


def test_a_run_duplicate_in_a_query_without_judgments_is_a_warning(tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 a 1\n")
    run = tmp_path / "run"
    run.write_text("q1 Q0 a 1 3 r\nq2 Q0 y 1 2 r\nq2 Q0 y 2 1 r\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = evaluate(str(qrels), str(run), ["map"])
    assert result.aggregate == {"map": 1.0}
    messages = [str(w.message) for w in caught]
    assert any("document 'y' appears twice for query 'q2'" in m
               and m.endswith("its query has no judgments") for m in messages)
    assert all(w.filename == __file__ for w in caught)


def test_a_qrels_duplicate_in_a_query_not_evaluated_is_a_warning(tmp_path):
    # trec_eval checks the judgments of the queries it evaluates only
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 a 1\nq2 0 b 1\nq2 0 b 0\n")
    run = tmp_path / "run"
    run.write_text("q1 Q0 a 1 3 r\n")
    code, out, err = _cli("-m", "map", qrels, run)
    assert (code, out) == (0, "map                   \tall\t1.0000\n")
    assert err == (f"irmetrics: warning: {qrels}, line 3: document 'b' appears twice for query "
                   "'q2' (lines 2 and 3); trec_eval does not look at it, and neither does "
                   "irmetrics: its query is not evaluated\n")
    # evaluated (in the run, or scored as missing with -c): an error
    code, out, err = _cli("-c", "-m", "map", qrels, run)
    assert (code, out) == (2, "")
    assert "line 3: document 'b' appears twice for query 'q2' (lines 2 and 3)" in err
    run.write_text("q1 Q0 a 1 3 r\nq2 Q0 b 1 3 r\n")
    with pytest.raises(DuplicateEntryError):
        evaluate(str(qrels), str(run), ["map"])
    with pytest.raises(DuplicateEntryError):  # a Qrels object holds no duplicates
        Qrels.from_trec(str(qrels))


# === Scores as single-precision floats (scores="float32") =======================
# (issue 12, item 7; the comparison with pytrec_eval is in test_differential.py)


def test_float32_scores_tie_where_trec_eval_s_float_build_ties(tmp_path):
    # a 0.30000001 and b 0.3 are the same float32: tied, b (greater id) first,
    # so the relevant a is at rank 2 (AP 0.5); as doubles a is first (AP 1.0).
    qrels = {"q": {"a": 1}}
    run = {"q": {"a": 0.30000001, "b": 0.3}}
    assert evaluate(qrels, run, ["map"]).aggregate["map"] == 1.0
    assert evaluate(qrels, run, ["map"], scores="float32").aggregate["map"] == 0.5
    (tmp_path / "q").write_text("q 0 a 1\n")
    (tmp_path / "r").write_text("q Q0 a 1 0.30000001 x\nq Q0 b 2 0.3 x\n")
    code, out, _ = _cli("--float32-scores", "-m", "map", tmp_path / "q", tmp_path / "r")
    assert (code, out) == (0, "map                   \tall\t0.5000\n")
    with pytest.raises(InvalidArgumentError, match="'scores' must be 'float64' or 'float32'"):
        evaluate(qrels, run, ["map"], scores="double")
