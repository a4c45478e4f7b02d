"""Evaluation.merge: evaluations of disjoint query sets combine into the whole.

The contract: evaluate each shard of a run (against the same qrels, with the
same measures and options), merge the parts, and get exactly what evaluating
the whole run gives: the same per-query values, every aggregate equal bit
for bit (it is recomputed from the merged per-query values, in query-id
order), the same counts, skipped and missing queries, and with
``complete=True`` the same queries scored as empty rankings.
"""

import math
import pickle
import warnings

import pytest
from hypothesis import given
from hypothesis import strategies as st
from strategies_runs import qrels_and_runs

from irmetrics import Evaluation, evaluate
from irmetrics import measures as M
from irmetrics.errors import InvalidArgumentError, IrmetricsError, IrmetricsWarning


def registry_names():
    """One name per parameter choice of every family that has an aggregate
    (the text families, runid and relstring, are not numbers)."""
    names = []
    for fam in M.FAMILIES:
        if fam.text or fam.since != "9.0.8":  # evaluated with trec_eval 9.0.8's measures
            continue
        implicit = M._IMPLICIT_OPTIONS.get(fam.key, ())
        if fam.param == "none":
            params = [None]
        elif fam.param == "optional-cutoff":
            params = [None, 3]
        elif fam.param == "cutoff":
            params = [3]
        else:
            params = [fam.defaults[len(fam.defaults) // 2]]
        names += [M.Measure(fam, p, implicit).name for p in params]
    # options too: a relevance level of its own, and an explicit largest label
    return names + ["P(rel=2)@3", "nDCG(gain=exp)@5", "ERR(max_label=4)@5"]


NAMES = registry_names()


def needs_max_label(name):
    m = M.parse_measure(name)
    # ERR's max_label, and the C/W/L measures' max_rel, default to the qrels' largest label
    return any(key in m.family.options and m.option(key) is None
               for key in ("max_label", "max_rel"))


def quiet_evaluate(qrels, run, names=NAMES, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IrmetricsWarning)
        return evaluate(qrels, run, names, **options)


def evaluable(qrels, run):
    """Whether evaluate() accepts the pair (a query in both)."""
    return any(q in qrels for q in run)


def same_values(a, b):
    """Equal, and of the same type (an int count stays an int)."""
    return a == b and type(a) is type(b) and not (isinstance(a, float) and math.copysign(1, a) != math.copysign(1, b))


def assert_same_evaluation(got, want):
    assert got.names == want.names
    assert got.measures == want.measures
    assert list(got.per_query) == list(want.per_query)  # query ids, in sorted order
    for qid, values in want.per_query.items():
        assert list(got.per_query[qid]) == list(values), qid
        for name, v in values.items():
            assert same_values(got.per_query[qid][name], v), (qid, name, got.per_query[qid][name], v)
    assert list(got.aggregate) == list(want.aggregate)
    for name, v in want.aggregate.items():
        assert same_values(got.aggregate[name], v), (name, got.aggregate[name], v)
    assert got.missing == want.missing
    assert got.skipped == want.skipped
    assert got.complete == want.complete
    assert got.options == want.options
    assert got.run_name == want.run_name
    assert got.to_dict()["per_query"] == want.to_dict()["per_query"]


@st.composite
def partitions(draw):
    """(qrels, shards): each query id of the qrels and the run assigned to one
    of 1..4 shards, a shard being (its queries' judgments, its queries' run).
    A shard without a query that is both judged and run cannot be evaluated
    on its own (evaluate() says so): it is left out."""
    qrels, run = draw(qrels_and_runs())
    k = draw(st.integers(min_value=1, max_value=4))
    where = {qid: draw(st.integers(min_value=0, max_value=k - 1)) for qid in sorted({*qrels, *run})}
    shards = []
    for i in range(k):
        shard = ({q: j for q, j in qrels.items() if where[q] == i},
                 {q: docs for q, docs in run.items() if where[q] == i})
        if evaluable(*shard):
            shards.append(shard)
    return qrels, shards


def union(dicts):
    return {k: v for d in dicts for k, v in d.items()}


# === Merging to the whole =====================================================


@given(partitions(), st.booleans(), st.randoms(use_true_random=False))
def test_any_partition_of_a_run_merges_to_the_whole(data, complete, rnd):
    # Every shard of the run evaluated against the whole qrels.
    qrels, shards = data
    whole = quiet_evaluate(qrels, union(r for _, r in shards), complete=complete)
    parts = [quiet_evaluate(qrels, r, complete=complete) for _, r in shards]
    rnd.shuffle(parts)  # the order of the parts does not matter
    assert_same_evaluation(Evaluation.merge(parts), whole)


@given(partitions(), st.booleans())
def test_partitioned_qrels_merge_to_the_whole(data, complete):
    # Each shard evaluated against its own queries' judgments only: the same,
    # for the measures that do not read the largest label of the whole qrels
    # (see test_different_largest_labels_are_an_error).
    _, shards = data
    names = [n for n in NAMES if not needs_max_label(n)]
    whole = quiet_evaluate(union(q for q, _ in shards), union(r for _, r in shards), names,
                           complete=complete)
    parts = [quiet_evaluate(q, r, names, complete=complete) for q, r in shards]
    assert_same_evaluation(Evaluation.merge(parts), whole)


def test_merge_by_hand():
    # q1: d1 relevant at rank 1, AP 1; q2: d2 relevant at rank 2, AP 1/2;
    # q3 judged, in no shard: with complete=True an empty ranking, AP 0.
    qrels = {"q1": {"d1": 1}, "q2": {"d2": 1}, "q3": {"d3": 1}}
    a = evaluate(qrels, {"q1": {"d1": 1.0}}, ["map", "gm_map", "num_q", "num_ret"], complete=True)
    b = evaluate(qrels, {"q2": {"d9": 1.0, "d2": 0.5}}, ["map", "gm_map", "num_q", "num_ret"],
                 complete=True)
    assert a.missing == ("q2", "q3") and b.missing == ("q1", "q3")
    merged = Evaluation.merge([b, a])
    assert list(merged.per_query) == ["q1", "q2", "q3"]
    assert merged.missing == ("q3",)
    # map: (1 + 0.5 + 0) / 3 = 0.5
    assert merged["map"] == 0.5
    # gm_map: exp((log 1 + log 0.5 + log 1e-5) / 3), the floor for the empty q3
    assert merged["gm_map"] == math.exp((0.0 + math.log(0.5) + math.log(1e-5)) / 3)
    # num_q: 3 queries; num_ret: 1 + 2 + 0 retrieved
    assert merged["num_q"] == 3 and merged["num_ret"] == 3
    assert type(merged["num_q"]) is int


def test_merge_of_one_part_is_that_part():
    qrels = {"q1": {"d1": 1, "d2": 2}, "q2": {"d1": 1}}
    run = {"q1": {"d1": 0.5, "d2": 0.1}, "q2": {"d3": 1.0}}
    whole = evaluate(qrels, run, NAMES)
    assert_same_evaluation(Evaluation.merge([whole]), whole)


def test_merge_is_not_an_average_of_averages():
    # Two shards of unequal size: the mean of the shards' means, (1 + 0.25) / 2,
    # is not the mean of the queries, (1 + 0 + 0.5 + 0.25) / 4 ... with P@2.
    qrels = {"a": {"d1": 1}, "b": {"d1": 1}, "c": {"d1": 1}, "d": {"d1": 1}}
    run_a = {"a": {"d1": 2.0, "d2": 1.0}}                      # P@2 = 1/2
    run_b = {"b": {"d2": 1.0}, "c": {"d2": 1.0, "d1": 0.5}, "d": {"d9": 1.0}}  # 0, 1/2, 0
    merged = Evaluation.merge([evaluate(qrels, run_a, "P@2"), evaluate(qrels, run_b, "P@2")])
    assert merged["P@2"] == (0.5 + 0.0 + 0.5 + 0.0) / 4 == 0.25
    assert merged["P@2"] != (0.5 + (0.5 / 3)) / 2


def test_run_name_is_the_last_parts():
    from irmetrics import Run
    qrels = {"q1": {"d1": 1}, "q2": {"d1": 1}}
    a = evaluate(qrels, Run({"q1": {"d1": 1.0}}, name="first"), "map")
    b = evaluate(qrels, Run({"q2": {"d1": 1.0}}, name="second"), "map")
    assert Evaluation.merge([a, b]).run_name == "second"
    assert Evaluation.merge([b, a]).run_name == "first"


def test_merge_leaves_the_parts_alone():
    qrels = {"q1": {"d1": 1}, "q2": {"d2": 1}}
    a = evaluate(qrels, {"q1": {"d1": 1.0}}, ["map", "P@5"], complete=True)
    b = evaluate(qrels, {"q2": {"d2": 1.0}}, ["map", "P@5"], complete=True)
    before = (a.to_dict(), b.to_dict())
    Evaluation.merge([a, b])
    assert (a.to_dict(), b.to_dict()) == before


# === Errors ===================================================================

QRELS = {"q1": {"d1": 1, "d2": 0}, "q2": {"d1": 2}, "q3": {"d3": 1}}
RUN_1 = {"q1": {"d1": 1.0, "d2": 2.0}}
RUN_2 = {"q2": {"d1": 1.0}, "q3": {"d1": 0.5}}


def test_overlapping_queries_are_an_error():
    a = evaluate(QRELS, RUN_1, "map")
    b = evaluate(QRELS, {"q1": {"d1": 1.0}, "q2": {"d1": 1.0}}, "map")
    with pytest.raises(InvalidArgumentError) as info:
        Evaluation.merge([a, b])
    assert str(info.value) == (
        "query 'q1' is in parts 0 and 1: merged parts must hold disjoint sets of queries"
    )
    assert isinstance(info.value, ValueError)


def test_a_skipped_query_in_two_parts_is_an_overlap():
    with pytest.warns(IrmetricsWarning):
        a = evaluate(QRELS, {"q1": {"d1": 1.0}, "zz": {"d1": 1.0}}, "map")
    with pytest.warns(IrmetricsWarning):
        b = evaluate(QRELS, {"q2": {"d1": 1.0}, "zz": {"d1": 1.0}}, "map")
    with pytest.raises(InvalidArgumentError, match="query 'zz' is in parts 0 and 1"):
        Evaluation.merge([a, b])


def test_queries_filled_in_by_several_parts_are_no_overlap():
    # complete=True: q3 is filled in by both parts (missing from each shard).
    a = evaluate(QRELS, RUN_1, "map", complete=True)
    b = evaluate(QRELS, {"q2": {"d1": 1.0}}, "map", complete=True)
    assert "q3" in a.per_query and "q3" in b.per_query
    merged = Evaluation.merge([a, b])
    assert merged.missing == ("q3",)
    # q1 AP: d1 relevant at rank 2 -> 1/2; q2 AP 1; q3 0: (0.5 + 1 + 0) / 3
    assert merged["map"] == (0.5 + 1.0 + 0.0) / 3


def test_different_measures_are_an_error():
    a = evaluate(QRELS, RUN_1, ["map", "P@5"])
    b = evaluate(QRELS, RUN_2, ["map", "P@10"])
    with pytest.raises(InvalidArgumentError) as info:
        Evaluation.merge([a, b])
    assert str(info.value) == "parts 0 and 1 have different measures: ['map', 'P@5'] and ['map', 'P@10']"


def test_the_same_measures_in_another_order_are_an_error():
    a = evaluate(QRELS, RUN_1, ["map", "P@5"])
    b = evaluate(QRELS, RUN_2, ["P@5", "map"])
    with pytest.raises(InvalidArgumentError, match="different measures"):
        Evaluation.merge([a, b])


@pytest.mark.parametrize("option, one, other", [
    ("relevance_level", 1, 2),
    ("complete", False, True),
    ("depth", None, 10),
    ("judged_only", False, True),
])
def test_different_options_are_an_error(option, one, other):
    a = evaluate(QRELS, RUN_1, "map", **{option: one})
    b = evaluate(QRELS, RUN_2, "map", **{option: other})
    with pytest.raises(InvalidArgumentError) as info:
        Evaluation.merge([a, b])
    assert str(info.value) == (
        f"parts 0 and 1 were evaluated with different options: {option}={one!r} and {option}={other!r}"
    )


def test_different_largest_labels_are_an_error():
    # ERR without max_label reads the largest label of the qrels: 1 in one
    # shard's judgments, 2 in the other's, so the shards' values are not the
    # whole's.
    a = evaluate({"q1": QRELS["q1"]}, RUN_1, "ERR@5")
    b = evaluate({"q2": QRELS["q2"], "q3": QRELS["q3"]}, RUN_2, "ERR@5")
    with pytest.raises(InvalidArgumentError) as info:
        Evaluation.merge([a, b])
    assert str(info.value) == (
        "parts 0 and 1 were scored with different largest relevance labels (1 and 2, "
        "read by measures such as ERR): evaluate every part against the same qrels"
    )
    # Against the same qrels they merge.
    merged = Evaluation.merge([evaluate(QRELS, RUN_1, "ERR@5"), evaluate(QRELS, RUN_2, "ERR@5")])
    assert merged.per_query == evaluate(QRELS, {**RUN_1, **RUN_2}, "ERR@5").per_query


@pytest.mark.parametrize("parts, message", [
    ([], "'parts' must hold at least one Evaluation (got none)"),
    ([{"map": 0.5}], "'parts' must hold Evaluation objects (got dict at 0)"),
])
def test_bad_parts(parts, message):
    with pytest.raises(IrmetricsError) as info:
        Evaluation.merge(parts)
    assert str(info.value) == message


def test_parts_may_be_any_iterable():
    a = evaluate(QRELS, RUN_1, "map")
    b = evaluate(QRELS, RUN_2, "map")
    assert Evaluation.merge(iter([a, b])).per_query == evaluate(QRELS, {**RUN_1, **RUN_2}, "map").per_query


# === Pickling =================================================================


@given(partitions(), st.booleans())
def test_unpickled_parts_merge_to_the_whole(data, complete):
    qrels, shards = data
    whole = quiet_evaluate(qrels, union(r for _, r in shards), complete=complete)
    parts = [quiet_evaluate(qrels, r, complete=complete) for _, r in shards]
    for protocol in (2, pickle.HIGHEST_PROTOCOL):
        back = [pickle.loads(pickle.dumps(p, protocol=protocol)) for p in parts]
        assert_same_evaluation(Evaluation.merge(back), whole)


def test_pickle_round_trip():
    ev = evaluate(QRELS, {**RUN_1, **RUN_2}, NAMES, complete=True, depth=5, relevance_level=1)
    ev.per_query  # noqa: B018 - fill the caches, which pickling leaves behind
    back = pickle.loads(pickle.dumps(ev))
    assert_same_evaluation(back, ev)
    assert back.options == {"relevance_level": 1, "complete": True, "depth": 5, "judged_only": False,
                            "scores": "float64", "ties": "trec_eval", "trec_eval": "9.0.8",
                            "collection_size": 0}
    # the measures are the registry's own again, not copies of its families
    assert all(m.family is n.family for m, n in zip(back.measures, ev.measures))
    assert back.measures == ev.measures
    assert repr(back) == repr(ev)
    # merging the unpickled evaluation with itself is still an overlap
    with pytest.raises(InvalidArgumentError, match="is in parts 0 and 1"):
        Evaluation.merge([ev, back])


def test_options_property():
    ev = evaluate(QRELS, RUN_1, "map", relevance_level=2, judged_only=True)
    assert ev.options == {"relevance_level": 2, "complete": False, "depth": None, "judged_only": True,
                          "scores": "float64", "ties": "trec_eval", "trec_eval": "9.0.8",
                          "collection_size": 0}


def test_parts_scored_differently_do_not_merge():
    # float32 scores and tie modes change values: such parts are not one evaluation
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    run1, run2 = {"q1": {"a": 0.3, "x": 0.3}}, {"q2": {"b": 1.0}}
    for option, other in (("scores", "float32"), ("ties", "worst")):
        a = evaluate(qrels, run1, ["map"])
        b = evaluate(qrels, run2, ["map"], **{option: other})
        with pytest.raises(ValueError, match=f"different options: {option}="):
            Evaluation.merge([a, b])
