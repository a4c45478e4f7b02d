"""Tests for irmetrics.data: the Qrels and Run classes."""

import copy
import gzip
import io
import math
from collections import namedtuple
from collections.abc import Mapping
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from irmetrics.data import DEFAULT_RUN_NAME, Qrels, Run
from irmetrics.errors import (
    DuplicateEntryError,
    InvalidArgumentError,
    TrecFormatError,
)

DATA = Path(__file__).parent / "data"

# Named like ir_measures' own record types (defined here: no ir_measures import).
Qrel = namedtuple("Qrel", ["query_id", "doc_id", "relevance", "iteration"])
ScoredDoc = namedtuple("ScoredDoc", ["query_id", "doc_id", "score"])
# What pandas' DataFrame.itertuples(index=False) yields for a qrels frame.
Pandas = namedtuple("Pandas", ["query_id", "doc_id", "relevance"])


# === Construction from dicts ===================================================


def test_qrels_from_dict_basics():
    qrels = Qrels.from_dict({"q1": {"d1": 1, "d2": 0}, "q2": {"d1": -1}})
    assert isinstance(qrels, Mapping)
    assert len(qrels) == 2 and list(qrels) == ["q1", "q2"]
    assert qrels.n_entries == 3
    assert dict(qrels["q1"]) == {"d1": 1, "d2": 0}
    assert "q1" in qrels and "q3" not in qrels
    assert repr(qrels) == "Qrels(2 queries, 3 judgments)"
    assert Qrels({"q1": {"d1": 1}}) == Qrels.from_dict({"q1": {"d1": 1}})


def test_int_ids_are_converted_with_str():
    qrels = Qrels({301: {7: 1}})
    assert qrels.to_dict() == {"301": {"7": 1}}
    run = Run.from_dict({301: {7: 2}})
    assert run.to_dict() == {"301": {"7": 2.0}}
    assert type(run["301"]["7"]) is float


def test_relevance_conversions():
    assert Qrels({"q": {"a": 2.0, "b": Fraction(4, 2), "c": -1}}).to_dict() == {
        "q": {"a": 2, "b": 2, "c": -1}
    }
    assert type(Qrels({"q": {"a": 2.0}})["q"]["a"]) is int


@pytest.mark.parametrize(
    "value, reason",
    [
        (1.5, "must be an int (got float 1.5)"),
        (math.nan, "must be an int (got float nan)"),
        (math.inf, "must be an int (got float inf)"),
        (True, "must be an int, not a bool (got True)"),
        ("1", "must be an int (got str '1')"),
        (None, "must be an int (got NoneType None)"),
    ],
)
def test_bad_relevance(value, reason):
    with pytest.raises(InvalidArgumentError) as info:
        Qrels({"q1": {"d1": value}})
    assert str(info.value) == f"qrels['q1']['d1'] {reason}"


def test_scores():
    run = Run({"q": {"a": 1, "b": math.inf, "c": -math.inf, "d": Fraction(1, 4)}})
    assert run.to_dict() == {"q": {"a": 1.0, "b": math.inf, "c": -math.inf, "d": 0.25}}


@pytest.mark.parametrize(
    "value, reason",
    [
        (math.nan, "must not be NaN"),
        (False, "must be a real number (got bool False)"),
        ("0.5", "must be a real number (got str '0.5')"),
        (None, "must be a real number (got NoneType None)"),
        (1j, "must be a real number (got complex 1j)"),
    ],
)
def test_bad_scores(value, reason):
    with pytest.raises(InvalidArgumentError) as info:
        Run({"q1": {"d1": value}})
    assert str(info.value) == f"run['q1']['d1'] {reason}"


def test_huge_int_score_is_an_error():
    with pytest.raises(InvalidArgumentError, match=r"run\['q'\]\['d'\] must be a real number"):
        Run({"q": {"d": 10**400}})


@pytest.mark.parametrize("bad", [1.0, None, ("q",), b"q", True])
def test_bad_query_ids(bad):
    with pytest.raises(InvalidArgumentError, match="query id in 'qrels' must be a str or an int"):
        Qrels({bad: {"d": 1}})
    with pytest.raises(InvalidArgumentError, match="doc id in qrels\\['q'\\] must be a str or"):
        Qrels({"q": {bad: 1}})


def test_ids_colliding_after_str_conversion():
    with pytest.raises(InvalidArgumentError, match="two query ids that are both '1'"):
        Qrels({1: {"d": 1}, "1": {"e": 1}})
    with pytest.raises(DuplicateEntryError) as info:
        Run({"q": {1: 1.0, "1": 2.0}})
    assert (info.value.qid, info.value.docid) == ("q", "1")


@pytest.mark.parametrize("bad", [[("q", "d", 1)], "qrels", None, {"q": [("d", 1)]}])
def test_from_dict_needs_a_mapping_of_mappings(bad):
    with pytest.raises(InvalidArgumentError, match="must be a mapping"):
        Qrels(bad)


def test_empty_queries_and_empty_objects_are_kept():
    qrels = Qrels({"q1": {}, "q2": {"d": 1}})
    assert list(qrels) == ["q1", "q2"] and dict(qrels["q1"]) == {}
    assert qrels.n_entries == 1
    assert len(Run({})) == 0 and repr(Run({})) == "Run(0 queries, 0 documents, name='irmetrics')"


def test_run_name():
    assert Run({}).name == DEFAULT_RUN_NAME == "irmetrics"
    assert Run({}, name="bm25").name == "bm25"
    for bad in ["", "my run", None, 3]:
        with pytest.raises(InvalidArgumentError, match="'name' must be a non-empty str"):
            Run({}, name=bad)
    run = Run({}, name="x")
    with pytest.raises(AttributeError):
        run.name = "y"


# === Read-only, not mutated, not shared =========================================


def test_read_only_at_both_levels():
    qrels = Qrels({"q": {"d": 1}})
    run = Run({"q": {"d": 1.0}})
    for obj in (qrels, run):
        with pytest.raises(TypeError):
            obj["q"]["d"] = 5
        with pytest.raises(TypeError):
            obj["q"] = {}
        with pytest.raises(TypeError):
            del obj["q"]
        with pytest.raises(TypeError):
            del obj["q"]["d"]
        with pytest.raises(AttributeError):
            obj.pop("q")
        with pytest.raises(AttributeError):
            obj["q"].update({"e": 1})
        with pytest.raises(AttributeError):
            obj.extra = 1  # __slots__: no stray attributes


def test_input_is_neither_mutated_nor_shared():
    given_dict = {"q": {"b": 1.0, "a": 2.0}, 7: {"x": 3}}
    before = copy.deepcopy(given_dict)
    run = Run(given_dict)
    assert given_dict == before
    given_dict["q"]["c"] = 9.0
    given_dict["new"] = {}
    assert "c" not in run["q"] and "new" not in run
    out = run.to_dict()
    out["q"]["z"] = 1.0
    assert "z" not in run["q"]

    records = [("q", "d", 1), ("q", "e", 0)]
    frozen = list(records)
    Qrels.from_records(records)
    assert records == frozen


# === Equality, repr, ranking ====================================================


def test_equality():
    a = Qrels({"q": {"d": 1, "e": 0}})
    assert a == Qrels({"q": {"e": 0, "d": 1}})
    assert a != Qrels({"q": {"d": 1}})
    assert a == {"q": {"d": 1, "e": 0}}  # a Mapping compares by content
    assert a != Run({"q": {"d": 1, "e": 0}})
    assert a != 3 and a != {"q": 3}
    assert Run({"q": {"d": 1.0}}, name="x") != Run({"q": {"d": 1.0}}, name="y")
    assert Run({"q": {"d": 1.0}}, name="x") == Run({"q": {"d": 1}}, name="x")
    with pytest.raises(TypeError):
        hash(a)


def test_repr_singular():
    assert repr(Qrels({"q": {"d": 1}})) == "Qrels(1 query, 1 judgment)"
    assert repr(Run({"q": {"d": 1}}, name="t")) == "Run(1 query, 1 document, name='t')"


def test_ranking_ties_broken_by_doc_id_descending():
    run = Run({"q": {"d1": 1.0, "d3": 2.0, "d2": 1.0, "d10": 1.0, "a": -math.inf}})
    assert run.ranking("q") == ["d3", "d2", "d10", "d1", "a"]
    assert Run({"q": {}}).ranking("q") == []
    with pytest.raises(KeyError):
        run.ranking("missing")
    with pytest.raises(KeyError):
        run["missing"]


# === Records ===================================================================


def test_qrels_from_ir_measures_namedtuples_and_itertuples_rows():
    records = [Qrel("q1", "d1", 1, "0"), Qrel("q1", "d2", 0, "0"), Pandas(2, 5, 3)]
    assert Qrels.from_records(records) == {"q1": {"d1": 1, "d2": 0}, "2": {"5": 3}}


def test_run_from_scored_docs_generator_and_lists():
    records = (ScoredDoc(f"q{i % 2}", f"d{i}", i / 2) for i in range(4))
    run = Run.from_records(records, name="gen")
    assert run == Run({"q0": {"d0": 0.0, "d2": 1.0}, "q1": {"d1": 0.5, "d3": 1.5}}, name="gen")
    assert Run.from_records([["q", "d", 1, "ignored", "too"]]).to_dict() == {"q": {"d": 1.0}}


def test_records_as_dict_rows():
    rows = [
        {"query_id": "q", "doc_id": "a", "relevance": 2},
        {"qid": "q", "docid": "b", "rel": 1},
        {"qid": "q", "docno": "c", "label": 0, "other": "ignored"},
    ]
    assert Qrels.from_records(rows) == {"q": {"a": 2, "b": 1, "c": 0}}
    run_rows = [{"qid": 1, "docno": "a", "score": 0.5}]
    assert Run.from_records(run_rows).to_dict() == {"1": {"a": 0.5}}


def test_records_empty_iterable_gives_an_empty_object():
    assert len(Qrels.from_records([])) == 0
    assert Run.from_records(iter(())).n_entries == 0


@pytest.mark.parametrize(
    "bad, reason",
    [
        (
            ("q", "d"),
            "expected a (query_id, doc_id, relevance) record or a mapping (got tuple ('q', 'd'))",
        ),
        (
            "qd1",
            "expected a (query_id, doc_id, relevance) record or a mapping (got str 'qd1'; "
            "for a DataFrame pass df.itertuples(index=False))",
        ),
        (5, "expected a (query_id, doc_id, relevance) record or a mapping (got int 5)"),
        ({"qid": "q", "doc_id": "d"}, "record has no key 'relevance' or 'label' or 'rel'"),
        ({"q": "q", "doc_id": "d", "rel": 1}, "record has no key 'query_id' or 'qid'"),
        (("q", "d", 0.5), "relevance must be an int (got float 0.5)"),
        (("q", 1.5, 1), "doc id must be a str or an int (got float 1.5)"),
        ((None, "d", 1), "query id must be a str or an int (got NoneType None)"),
    ],
)
def test_bad_records_name_the_index(bad, reason):
    with pytest.raises(TrecFormatError) as info:
        Qrels.from_records([("q", "x", 1), ("q", "y", 1), bad])
    err = info.value
    assert (err.source, err.line, err.reason) == ("<records>", 3, reason)
    assert str(err) == f"<records>, line 3: {reason}"


def test_bad_run_records():
    with pytest.raises(TrecFormatError) as info:
        Run.from_records([("q", "d", math.nan)])
    assert str(info.value) == "<records>, line 1: score must not be NaN"
    with pytest.raises(TrecFormatError, match="record has no key 'score'"):
        Run.from_records([{"qid": "q", "docid": "d", "relevance": 1}])


def test_duplicate_records_name_both_indexes():
    records = [("q", "a", 1), ("q", "b", 1), ("r", "a", 1), ("q", "c", 1), ("q", "b", 0)]
    with pytest.raises(DuplicateEntryError) as info:
        Qrels.from_records(records)
    err = info.value
    assert (err.source, err.first_line, err.line, err.qid, err.docid) == (
        "<records>",
        2,
        5,
        "q",
        "b",
    )
    with pytest.raises(DuplicateEntryError):
        Run.from_records([("q", 1, 1.0), ("q", "1", 2.0)])


@pytest.mark.parametrize("bad", [None, 3, "q d 1", {"q": {"d": 1}}])
def test_records_must_be_an_iterable_of_records(bad):
    with pytest.raises(InvalidArgumentError, match="'records' must be an iterable"):
        Qrels.from_records(bad)


# === TREC files =================================================================


def test_qrels_trec_round_trip(tmp_path):
    qrels = Qrels({"301": {"FBIS-1": 1, "FBIS-2": -1}, "302": {"x": 4}})
    for name in ["q.txt", "q.gz"]:
        qrels.to_trec(tmp_path / name)
        assert Qrels.from_trec(tmp_path / name) == qrels
    assert (tmp_path / "q.txt").read_text() == "301 0 FBIS-1 1\n301 0 FBIS-2 -1\n302 0 x 4\n"


def test_run_trec_round_trip_keeps_name_and_floats(tmp_path):
    run = Run({"q2": {"a": 0.1 + 0.2, "b": 1e-300, "c": -math.inf}, "q1": {"z": 5}}, name="mine")
    path = tmp_path / "run.txt"
    run.to_trec(path)
    back = Run.from_trec(path)
    assert back == run and back.name == "mine" and list(back) == ["q2", "q1"]
    assert back["q2"]["a"] == 0.1 + 0.2
    assert Run.from_trec(path, name="other").name == "other"


def test_run_from_gzip_written_by_the_gzip_module(tmp_path):
    path = tmp_path / "run.gz"
    with gzip.open(path, "wt") as f:
        f.write("q Q0 a 1 0.5 gz\nq Q0 b 2 0.25 gz\n")
    run = Run.from_trec(path)
    assert run.name == "gz" and run.ranking("q") == ["a", "b"]


def test_run_from_trec_with_extra_columns():
    run = Run.from_trec(DATA / "results.trunc")
    assert run.name == "STANDARD" and run.n_entries == 584 and list(run) == ["301", "303"]
    assert repr(run) == "Run(2 queries, 584 documents, name='STANDARD')"


def test_run_from_ranked_list():
    text = "q1 d9\nq1 d2\nq2 d2\n"
    run = Run.from_ranked_list(io.StringIO(text))
    assert run.name == "irmetrics"
    assert run.ranking("q1") == ["d9", "d2"] and run.ranking("q2") == ["d2"]
    assert Run.from_ranked_list(io.StringIO(text), name="seed").name == "seed"
    with pytest.raises(TrecFormatError) as info:
        Run.from_ranked_list(io.StringIO("q1 d1\nq1 Q0 d2 1 1.0 t\n"))
    assert (
        str(info.value) == "<file>, line 2: expected 2 columns (qid docid) in a ranked list, got 6"
    )


def test_errors_from_trec_readers_propagate(tmp_path):
    path = tmp_path / "q.txt"
    path.write_text("q 0 d 1\nq 0 d 1\n")
    with pytest.raises(DuplicateEntryError, match=r"line 2: .*\(lines 1 and 2\)"):
        Qrels.from_trec(path)
    with pytest.raises(TrecFormatError, match="cannot open file"):
        Run.from_trec(tmp_path / "missing")


# === Properties =================================================================

ids = st.one_of(
    st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=6).filter(
        lambda s: s.split() == [s] and not s.startswith("#")
    ),
    st.integers(min_value=0, max_value=10**6),
)
qrels_dicts = st.dictionaries(
    ids, st.dictionaries(ids, st.integers(-1, 4), min_size=1), min_size=1, max_size=4
)
run_dicts = st.dictionaries(
    ids, st.dictionaries(ids, st.floats(allow_nan=False), min_size=1), min_size=1, max_size=4
)


def _distinct_as_str(d):
    # int 1 and str "1" would collide; such inputs are tested separately.
    return len({str(k) for k in d}) == len(d) and all(
        len({str(k) for k in docs}) == len(docs) for docs in d.values()
    )


@given(qrels_dicts.filter(_distinct_as_str))
def test_qrels_round_trip_property(data):
    qrels = Qrels(data)
    assert qrels.to_dict() == {
        str(q): {str(d): r for d, r in docs.items()} for q, docs in data.items()
    }
    out = io.StringIO()
    qrels.to_trec(out)
    assert Qrels.from_trec(io.StringIO(out.getvalue())) == qrels
    assert (
        Qrels.from_records((q, d, r) for q, docs in data.items() for d, r in docs.items()) == qrels
    )


@given(run_dicts.filter(_distinct_as_str), st.sampled_from(["a", "run-1", "\u00e9t\u00e9"]))
def test_run_round_trip_property(data, name):
    run = Run(data, name=name)
    out = io.BytesIO()
    run.to_trec(out)
    back = Run.from_trec(io.BytesIO(out.getvalue()))
    assert back == run
    for qid in run:
        assert back.ranking(qid) == run.ranking(qid)
        scores = [run[qid][d] for d in run.ranking(qid)]
        assert scores == sorted(scores, reverse=True)


def test_qrels_and_runs_pickle_after_their_queries_were_read():
    # Reading a query makes a read-only view of it, which does not pickle;
    # the tables pickle without their views (the engines send them to their workers).
    import pickle

    qrels = Qrels.from_dict({"q1": {"d1": 1}})
    run = Run.from_dict({"q1": {"d1": 0.5}}, name="r")
    assert qrels["q1"]["d1"] == 1 and run["q1"]["d1"] == 0.5
    again = pickle.loads(pickle.dumps(qrels)), pickle.loads(pickle.dumps(run))
    assert again == (qrels, run) and again[1].name == "r"
    assert dict(again[0]["q1"]) == {"d1": 1}


# === Labels from dicts: integers in trec_eval's range ===========================


def test_labels_from_dicts_beyond_trec_eval_s_int_range_are_errors():
    # Guards the label range of Qrels from dicts (as of files and frames).
    # Before (issue 18, finding 8): 10**30 with -m all_trec gave "math domain
    # error" (G), 10**400 with ndcg an OverflowError.
    for label in (2**31, 10**30, 10**400, -(2**31) - 1):
        with pytest.raises(InvalidArgumentError, match=r"qrels\['q'\]\['a'\] must be between"):
            Qrels({"q": {"a": label}})
    assert Qrels({"q": {"a": 2**31 - 1}})["q"]["a"] == 2**31 - 1
