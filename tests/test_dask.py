"""irmetrics.dask.evaluate: a run in a Dask DataFrame gives evaluate()'s numbers.

The run is spread over 7 partitions with each query's rows split across
several of them (as when many tasks write a run), and evaluated on a
``distributed`` cluster of two worker processes: the per-partition function
and its arguments travel by pickle, and the results must equal
``irmetrics.evaluate`` on the same data, value for value.
"""

import random
import subprocess
import sys
import warnings
from concurrent.futures import ThreadPoolExecutor

import pytest
from oracles import require
from test_merge import NAMES, assert_same_evaluation

import irmetrics
import irmetrics.dask
from irmetrics import Qrels
from irmetrics.errors import InvalidArgumentError, IrmetricsWarning, TrecFormatError
from irmetrics.measures import FAMILIES

dd = require("dask.dataframe")
pd = require("pandas")
distributed = require("distributed")


def make_data(seed=7, n_queries=40):
    """A graded qrels and a run of 40 queries with ties, unjudged documents, a
    query only in the run (skipped) and two only in the qrels (missing)."""
    rnd = random.Random(seed)
    qrels, rows = {}, []
    for i in range(n_queries):
        qid = str(300 + i)
        docs = [f"d{j}" for j in range(rnd.randint(1, 30))]
        qrels[qid] = {d: rnd.choice([-1, 0, 0, 1, 2, 3]) for d in rnd.sample(docs, max(1, len(docs) // 2))}
        for d in docs:
            rows.append((qid, d, rnd.choice([0.5, 1.0, 1.5, rnd.random()])))
    rows += [("unjudged", "d1", 1.0), ("unjudged", "d2", 2.0)]
    qrels["only-qrels-1"] = {"d1": 1}
    qrels["only-qrels-2"] = {"d1": 0, "d2": 2}
    rnd.shuffle(rows)  # every query's rows end up in several partitions
    return qrels, rows


QRELS, ROWS = make_data()
RUN = {}
for _q, _d, _s in ROWS:
    RUN.setdefault(_q, {})[_d] = _s


def whole(complete, names=NAMES, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IrmetricsWarning)
        return irmetrics.evaluate(QRELS, RUN, names, complete=complete, **options)


def run_frame(npartitions=7, names=("query_id", "doc_id", "score")):
    frame = pd.DataFrame(ROWS, columns=list(names))
    return dd.from_pandas(frame, npartitions=npartitions, sort=False)


def qrels_frame(names=("query_id", "doc_id", "relevance")):
    return pd.DataFrame([(q, d, r) for q, docs in QRELS.items() for d, r in docs.items()],
                        columns=list(names))


def diversity_names():
    """Every diversity measure (ndeval's), with a cutoff where it takes one."""
    return [f.key + ("@5" if f.param == "optional-cutoff" else "")
            for f in FAMILIES if "ndeval" in f.summary]


def diversity_data(seed=3, n_queries=12):
    """Subtopic qrels (issue 42's query first) and a run with ties, as rows."""
    rnd = random.Random(seed)
    topics = {"q1": {"1": {"d1": 1, "d2": 1}, "2": {"d3": 1}}}
    rows = [("q1", "d1", 3.0), ("q1", "d2", 2.0), ("q1", "d3", 1.0)]
    for i in range(n_queries):
        qid = f"t{i}"
        docs = [f"d{j}" for j in range(rnd.randint(2, 15))]
        topics[qid] = {str(s): {d: rnd.choice([0, 1, 1, 2]) for d in rnd.sample(docs, 2)}
                       for s in range(1, rnd.randint(2, 4) + 1)}
        rows += [(qid, d, float(rnd.choice([1, 2, 3]))) for d in docs]
    rnd.shuffle(rows)
    return Qrels.from_subtopics(topics), rows


def dask_run(rows, npartitions=3, names=("query_id", "doc_id", "score")):
    return dd.from_pandas(pd.DataFrame(rows, columns=list(names)), npartitions=npartitions,
                          sort=False)


def local_scheduler():
    """Dask's synchronous scheduler (no cluster, no thread left behind), with
    the task-based shuffle (a distributed client alive would otherwise plan
    one that needs the cluster)."""
    import dask
    return dask.config.set({"scheduler": "sync", "dataframe.shuffle.method": "tasks"})


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                       dashboard_address=None)
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


def test_queries_are_split_across_partitions():
    # the premise of the tests below: rows of one query in several partitions
    parts = run_frame().to_delayed()
    assert len(parts) == 7
    seen = {}
    for i, part in enumerate(parts):
        for qid in set(part.compute()["query_id"]):
            seen.setdefault(qid, set()).add(i)
    assert sum(len(where) > 1 for where in seen.values()) > 30


@pytest.mark.slow
@pytest.mark.parametrize("complete", [False, True])
def test_distributed_cluster_gives_evaluates_numbers(client, complete):
    with pytest.warns(IrmetricsWarning, match="1 run query has no judgments and was skipped: 'unjudged'"):
        got = irmetrics.dask.evaluate(QRELS, run_frame(), NAMES, complete=complete)
    assert_same_evaluation(got, whole(complete))
    assert got.missing == ("only-qrels-1", "only-qrels-2")
    assert ("only-qrels-1" in got.per_query) is complete
    # the work ran on the cluster's worker processes
    assert len(client.scheduler_info()["workers"]) == 2


@pytest.mark.slow
def test_qrels_as_a_dask_frame_and_pyterrier_names(client):
    run = run_frame(names=("qid", "docno", "score"))
    qrels = dd.from_pandas(qrels_frame(("qid", "docno", "label")), npartitions=3)
    with pytest.warns(IrmetricsWarning):
        got = irmetrics.dask.evaluate(qrels, run, ["map", "nDCG@10", "P(rel=2)@5"], depth=20)
    assert_same_evaluation(got, whole(False, ["map", "nDCG@10", "P(rel=2)@5"], depth=20))


@pytest.mark.slow
def test_columns_mapping_and_options(client):
    run = run_frame(names=("q", "doc", "s"))
    qrels = qrels_frame(("q", "doc", "grade"))
    columns = {"query_id": "q", "doc_id": "doc", "score": "s", "relevance": "grade"}
    with pytest.warns(IrmetricsWarning):
        got = irmetrics.dask.evaluate(qrels, run, NAMES, columns=columns, relevance_level=2,
                                      judged_only=True, complete=True)
    assert_same_evaluation(got, whole(True, relevance_level=2, judged_only=True))


def test_threaded_scheduler_without_a_cluster():
    import dask
    # (the task-based shuffle: with a distributed client alive, as when the
    # tests above ran, Dask would otherwise plan one that needs the cluster)
    # (and a pool of our own, ended here: Dask's default one outlives the test)
    with ThreadPoolExecutor(2) as pool:
        config = {"scheduler": "threads", "pool": pool, "dataframe.shuffle.method": "tasks"}
        with dask.config.set(config), pytest.warns(IrmetricsWarning):
            got = irmetrics.dask.evaluate(QRELS, run_frame(3), ["map", "gm_map", "num_rel_ret"])
    assert_same_evaluation(got, whole(False, ["map", "gm_map", "num_rel_ret"]))


def test_integer_ids_become_strings():
    # An int query id 301 is the TREC file's "301".
    frame = pd.DataFrame({"query_id": [301, 301, 302], "doc_id": [7, 8, 7], "score": [1.0, 2.0, 1.0]})
    run = dd.from_pandas(frame, npartitions=2)
    got = irmetrics.dask.evaluate({"301": {"7": 1}, "302": {"8": 1}}, run, ["map", "num_ret"])
    # 301: doc 7 relevant at rank 2 -> AP 1/2; 302: doc 8 not retrieved -> 0
    assert got.per_query == {"301": {"map": 0.5, "num_ret": 2}, "302": {"map": 0.0, "num_ret": 1}}


def test_errors():
    run = run_frame(2)
    with pytest.raises(InvalidArgumentError, match="'run' must be a Dask DataFrame"):
        irmetrics.dask.evaluate(QRELS, RUN, "map")
    with pytest.raises(InvalidArgumentError) as info:
        irmetrics.dask.evaluate(QRELS, run.rename(columns={"score": "s"}), "map")
    assert str(info.value) == (
        "the Dask DataFrame given as 'run' has no score column (its columns: 'query_id', "
        "'doc_id', 's'); looked for score: 'score'; name the columns with columns={'score': ...}"
    )
    with pytest.raises(InvalidArgumentError, match="a text line"):
        irmetrics.dask.evaluate(QRELS, run, "runid")
    with pytest.raises(InvalidArgumentError, match="'depth' must be"):
        irmetrics.dask.evaluate(QRELS, run, "map", depth=-1)
    # depth 0 (trec_eval's -M 0: nothing retrieved), as evaluate() takes it
    with pytest.warns(IrmetricsWarning):
        got = irmetrics.dask.evaluate(QRELS, run_frame(3), ["map", "num_ret"], depth=0)
    assert_same_evaluation(got, whole(False, ["map", "num_ret"], depth=0))
    # as evaluate(): the warning about the skipped query, then the error
    with pytest.warns(IrmetricsWarning, match="skipped: 'unjudged'"), \
            pytest.raises(InvalidArgumentError) as info:
        irmetrics.dask.evaluate({"x": {"d1": 1}}, run.loc[run.query_id == "unjudged"], "map")
    assert str(info.value) == "no query is both in the run and in the qrels (run: 'unjudged'; qrels: 'x')"
    dup = dd.from_pandas(pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["d", "d"],
                                       "score": [1.0, 2.0]}), npartitions=2)
    with pytest.raises(InvalidArgumentError, match="run: document 'd' appears twice for query 'q'"):
        irmetrics.dask.evaluate({"q": {"d": 1}}, dup, "map")


def test_every_diversity_measure_equals_evaluate():
    # issue 42: the engine kept only the qrels' flat judgments, so ERR-IA@10
    # of q1 was 0.9619 instead of 0.5711 (P-IA@5 0.6 instead of 0.3).
    qrels, rows = diversity_data()
    run = {}
    for q, d, v in rows:
        run.setdefault(q, {})[d] = v
    names = diversity_names()
    assert len(names) == 9 and "ERR-IA@5" in names and "MAP-IA" in names
    with local_scheduler():
        got = irmetrics.dask.evaluate(qrels, dask_run(rows), names, complete=True)
    assert_same_evaluation(got, irmetrics.evaluate(qrels, run, names, complete=True))
    # q1 by hand: subtopic 1 judges d1, d2 and subtopic 2 judges d3, ranked
    # d1, d2, d3; P-IA@5 = (2/5 + 1/5) / 2 subtopics (the flat qrels: 3/5)
    assert got.per_query["q1"]["P-IA@5"] == pytest.approx(0.3)


@pytest.mark.slow
def test_diversity_on_a_cluster_equals_evaluate(client):
    # the subtopics travel to worker processes (by pickle) with the qrels
    qrels, rows = diversity_data(seed=5)
    names = diversity_names()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IrmetricsWarning)
        got = irmetrics.dask.evaluate(qrels, dask_run(rows, 5), names)
    run = {}
    for q, d, v in rows:
        run.setdefault(q, {})[d] = v
    assert_same_evaluation(got, irmetrics.evaluate(qrels, run, names))


def test_column_precedence_is_that_of_records_and_frames():
    # issue 42: a qrels frame with both label and rel used label, the same
    # rows as records used rel; the run's docno wins over docid as in frames.
    rows = [{"qid": "q", "docno": "a", "label": 2, "rel": 0},
            {"qid": "q", "docno": "b", "label": 0, "rel": 1}]
    qrels = Qrels.from_records(rows)
    assert qrels == {"q": {"a": 2, "b": 0}}           # label, not rel
    run = dask_run([("q", "a", 7, 1.0), ("q", "b", 8, 2.0)], 2,
                   names=("qid", "docno", "docid", "score"))
    names = ["map", "nDCG@10"]
    expected = irmetrics.evaluate(qrels, {"q": {"a": 1.0, "b": 2.0}}, names)
    with local_scheduler():
        for given in (pd.DataFrame(rows), dd.from_pandas(pd.DataFrame(rows), npartitions=2)):
            assert_same_evaluation(irmetrics.dask.evaluate(given, run, names), expected)
    # by hand: a, the only relevant document (label 2), at rank 2: AP 1/2,
    # nDCG@10 (2 / log2 3) / (2 / log2 2) = 0.6309
    assert expected.per_query == {"q": {"map": 0.5, "nDCG@10": pytest.approx(0.6309, abs=1e-4)}}


def test_qrels_frame_values_are_checked_as_in_any_frame():
    # issue 42: the label range and the message naming the row, as
    # Qrels(frame) gives them
    rows = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "relevance": [1, 2**40]})
    run = dask_run([("q", "a", 1.0)], 1)
    reason = ("relevance (column 'relevance') must be between -2147483648 and 2147483647 "
              "(got 1099511627776)")
    with pytest.raises(TrecFormatError) as info:
        Qrels(rows)
    assert str(info.value) == f"<pandas DataFrame>, line 2: {reason}"
    with local_scheduler():
        with pytest.raises(TrecFormatError) as info:
            irmetrics.dask.evaluate(rows, run, "map")
        assert str(info.value) == f"<pandas DataFrame>, line 2: {reason}"
        with pytest.raises(TrecFormatError) as info:
            irmetrics.dask.evaluate(dd.from_pandas(rows, npartitions=1), run, "map")
        assert str(info.value) == f"<Dask DataFrame>, line 2: {reason}"


def test_a_missing_score_is_called_missing():
    # a null (pandas' NA in a nullable column) is not "NaN"
    frame = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"],
                          "score": pd.array([1.0, None], dtype="Float64")})
    with local_scheduler(), pytest.raises(InvalidArgumentError) as info:
        irmetrics.dask.evaluate({"q": {"a": 1}}, dd.from_pandas(frame, npartitions=1), "map")
    assert str(info.value) == "run: the score of query 'q', document 'b' is missing (null)"


@pytest.mark.slow
def test_importing_irmetrics_dask_imports_no_dask():
    code = ("import sys, irmetrics, irmetrics.dask, irmetrics.spark; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed', 'pyspark', 'pandas')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_missing_dask_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "dask", None)   # import dask now fails
    with pytest.raises(ImportError) as info:
        irmetrics.dask.evaluate(QRELS, RUN, "map")
    assert str(info.value) == "irmetrics.dask needs Dask with its DataFrame: pip install 'irmetrics-eval[dask]'"


def test_the_trec_eval_version_reaches_the_workers():
    # trec_eval 10.0's measures and rounding (issue 44), on the threaded scheduler as above
    import dask

    names = ["rbp", "rbp_resid", "unj_5", "iprec_at_recall_0.10", "11pt_avg"]
    with ThreadPoolExecutor(2) as pool:
        config = {"scheduler": "threads", "pool": pool, "dataframe.shuffle.method": "tasks"}
        with dask.config.set(config), pytest.warns(IrmetricsWarning):
            got = irmetrics.dask.evaluate(QRELS, run_frame(3), names, trec_eval="10.0")
    assert got.options["trec_eval"] == "10.0"
    assert_same_evaluation(got, whole(False, names, trec_eval="10.0"))
