"""irmetrics.spark.evaluate: a run in a Spark DataFrame gives evaluate()'s numbers.

Spark runs in local mode with two executor threads (``local[2]``) and Python
workers in separate processes, so the per-partition function and the
broadcast qrels travel by pickle as on a cluster.  These tests need pyspark
and Java; without them they are skipped, with the reason, and the `spark`
marker exempts exactly these skips from CI's "a skip is a failure" rule
(tests/conftest.py; the exemption is tested at the end of this file).
"""

import importlib.util
import os
import random
import shutil
import subprocess
import sys
import textwrap
import warnings

import pytest
from test_merge import NAMES, assert_same_evaluation

import irmetrics
import irmetrics.spark
from irmetrics import Qrels
from irmetrics.errors import InvalidArgumentError, IrmetricsWarning, TrecFormatError
from irmetrics.measures import FAMILIES

HAVE_SPARK = importlib.util.find_spec("pyspark") is not None and (
    shutil.which("java") is not None or bool(os.environ.get("JAVA_HOME"))
)


def needs_spark(test):
    """Mark a Spark test: skipped, with the reason, without pyspark or Java;
    slow (it starts a JVM)."""
    skip = pytest.mark.skipif(not HAVE_SPARK, reason="the Spark tests need pyspark and Java "
                              "(pip install 'irmetrics-eval[spark]', and a JDK on the PATH)")
    return pytest.mark.slow(pytest.mark.spark(skip(test)))


def make_data(seed=17, n_queries=30):
    """Graded qrels and a shuffled run with ties, a query only in the run and
    one only in the qrels."""
    rnd = random.Random(seed)
    qrels, rows = {}, []
    for i in range(n_queries):
        qid = f"q{i}"
        docs = [f"d{j}" for j in range(rnd.randint(1, 25))]
        qrels[qid] = {d: rnd.choice([-1, 0, 1, 2]) for d in rnd.sample(docs, max(1, len(docs) // 2))}
        rows += [(qid, d, rnd.choice([0.5, 1.0, rnd.random()])) for d in docs]
    rows += [("unjudged", "d1", 1.0)]
    qrels["only-qrels"] = {"d1": 1, "d2": 2}
    rnd.shuffle(rows)
    return qrels, rows


QRELS, ROWS = make_data()
RUN = {}
for _q, _d, _s in ROWS:
    RUN.setdefault(_q, {})[_d] = _s


def whole(names=NAMES, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IrmetricsWarning)
        return irmetrics.evaluate(QRELS, RUN, names, **options)


@pytest.fixture(scope="module")
def spark():
    from pyspark.sql import SparkSession

    # the Python workers must be this interpreter (pandas, pyarrow, irmetrics)
    saved = {k: os.environ.get(k) for k in ("PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON")}
    os.environ["PYSPARK_PYTHON"] = os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    session = (SparkSession.builder.master("local[2]").appName("irmetrics-tests")
               .config("spark.ui.enabled", "false")
               .config("spark.sql.shuffle.partitions", "5")
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


def run_frame(spark, names=("query_id", "doc_id", "score")):
    schema = f"{names[0]} string, {names[1]} string, {names[2]} double"
    return spark.createDataFrame(ROWS, schema).repartition(7)


@pytest.mark.slow
@needs_spark
@pytest.mark.parametrize("complete", [False, True])
def test_local_spark_gives_evaluates_numbers(spark, complete):
    with pytest.warns(IrmetricsWarning, match="1 run query has no judgments and was skipped: 'unjudged'"):
        got = irmetrics.spark.evaluate(QRELS, run_frame(spark), NAMES, complete=complete)
    assert_same_evaluation(got, whole(complete=complete))
    assert got.missing == ("only-qrels",)


@pytest.mark.slow
@needs_spark
def test_qrels_as_a_spark_frame_with_pyterrier_names(spark):
    qrels = spark.createDataFrame(
        [(q, d, r) for q, docs in QRELS.items() for d, r in docs.items()],
        "qid string, docno string, label int",
    )
    run = run_frame(spark, ("qid", "docno", "score"))
    names = ["map", "gm_map", "nDCG@10", "P(rel=2)@5", "num_rel_ret"]
    with pytest.warns(IrmetricsWarning):
        got = irmetrics.spark.evaluate(qrels, run, names, depth=10, complete=True)
    assert_same_evaluation(got, whole(names, depth=10, complete=True))


@pytest.mark.slow
@needs_spark
def test_integer_ids_and_columns_mapping(spark):
    run = spark.createDataFrame([(301, 7, 1.0), (301, 8, 2.0), (302, 7, 1.0)],
                                "q long, doc long, s double")
    got = irmetrics.spark.evaluate({"301": {"7": 1}, "302": {"8": 1}}, run, ["map", "num_ret"],
                                   columns={"query_id": "q", "doc_id": "doc", "score": "s"})
    # 301: doc 7 relevant at rank 2 -> AP 1/2; 302: doc 8 not retrieved -> 0
    assert got.per_query == {"301": {"map": 0.5, "num_ret": 2}, "302": {"map": 0.0, "num_ret": 1}}


@pytest.mark.slow
@needs_spark
def test_errors(spark):
    with pytest.raises(InvalidArgumentError, match="'run' must be a Spark DataFrame"):
        irmetrics.spark.evaluate(QRELS, RUN, "map")
    with pytest.raises(InvalidArgumentError) as info:
        irmetrics.spark.evaluate(QRELS, run_frame(spark, ("query_id", "doc", "score")), "map")
    assert str(info.value) == (
        "the Spark DataFrame given as 'run' has no doc_id column (its columns: 'query_id', "
        "'doc', 'score'); looked for doc_id: 'doc_id' or 'docno' or 'docid'; name the columns "
        "with columns={'doc_id': ...}"
    )


def diversity_names():
    """Every diversity measure (ndeval's), with a cutoff where it takes one."""
    return [f.key + ("@5" if f.param == "optional-cutoff" else "")
            for f in FAMILIES if "ndeval" in f.summary]


@needs_spark
def test_every_diversity_measure_equals_evaluate(spark):
    # issue 42: the engine kept only the qrels' flat judgments, so ERR-IA@10
    # was 0.9619 instead of 0.5711 (P-IA@5 0.6 instead of 0.3).
    rnd = random.Random(11)
    topics = {"q1": {"1": {"d1": 1, "d2": 1}, "2": {"d3": 1}}}
    rows = [("q1", "d1", 3.0), ("q1", "d2", 2.0), ("q1", "d3", 1.0)]
    for i in range(10):
        docs = [f"d{j}" for j in range(rnd.randint(2, 12))]
        topics[f"t{i}"] = {str(s): {d: rnd.choice([0, 1, 2]) for d in rnd.sample(docs, 2)}
                           for s in range(1, rnd.randint(2, 4) + 1)}
        rows += [(f"t{i}", d, float(rnd.choice([1, 2, 3]))) for d in docs]
    qrels = Qrels.from_subtopics(topics)
    run = {}
    for q, d, v in rows:
        run.setdefault(q, {})[d] = v
    names = diversity_names()
    assert len(names) == 9 and "ERR-IA@5" in names and "MAP-IA" in names
    frame = spark.createDataFrame(rows, "query_id string, doc_id string, score double")
    got = irmetrics.spark.evaluate(qrels, frame.repartition(4), names)
    assert_same_evaluation(got, irmetrics.evaluate(qrels, run, names))
    # q1 by hand: subtopic 1 judges d1, d2 and subtopic 2 judges d3, ranked
    # d1, d2, d3; P-IA@5 = (2/5 + 1/5) / 2 subtopics (the flat qrels: 3/5)
    assert got.per_query["q1"]["P-IA@5"] == pytest.approx(0.3)


@needs_spark
def test_column_precedence_and_qrels_checks_are_those_of_frames(spark):
    # issue 42: qrels with both label and rel used label here, rel as records
    rows = [("q", "a", 2, 0), ("q", "b", 0, 1)]
    qrels = spark.createDataFrame(rows, "qid string, docno string, label int, rel int")
    assert Qrels.from_records(qrels.toPandas().to_dict("records")) == {"q": {"a": 2, "b": 0}}
    run = spark.createDataFrame([("q", "a", 7, 1.0), ("q", "b", 8, 2.0)],
                                "qid string, docno string, docid long, score double")
    got = irmetrics.spark.evaluate(qrels, run, ["map", "num_rel"])
    # by hand: label gives a (2) relevant, at rank 2: AP 1/2; rel would give b, AP 1
    assert got.per_query == {"q": {"map": 0.5, "num_rel": 1}}
    # the label range, and the message naming the row, as Qrels(frame) gives them
    big = spark.createDataFrame([("q", "a", 1), ("q", "b", 2**40)],
                                "query_id string, doc_id string, relevance long")
    with pytest.raises(TrecFormatError) as info:
        irmetrics.spark.evaluate(big, run.select("qid", "docno", "score"), "map")
    assert str(info.value) == (
        "<Spark DataFrame>, line 2: relevance (column 'relevance') must be between "
        "-2147483648 and 2147483647 (got 1099511627776)"
    )
    # a null label is missing, not NaN
    null = spark.createDataFrame([("q", "a", 1), ("q", "b", None)],
                                 "query_id string, doc_id string, relevance int")
    with pytest.raises(TrecFormatError) as info:
        irmetrics.spark.evaluate(null, run.select("qid", "docno", "score"), "map")
    assert str(info.value) == (
        "<Spark DataFrame>, line 2: relevance (column 'relevance') must be an int "
        "(got NoneType None)"
    )


@needs_spark
def test_executor_errors_reach_the_caller_as_irmetrics_errors(spark):
    # issue 42: a null score was "must not be NaN", and every error raised on
    # an executor reached the caller as Spark's PythonException
    schema = "query_id string, doc_id string, score double"
    qrels = {"q": {"a": 1}}
    null = spark.createDataFrame([("q", "a", 1.0), ("q", "b", None)], schema)
    with pytest.raises(InvalidArgumentError) as info:
        irmetrics.spark.evaluate(qrels, null, "map")
    assert type(info.value) is InvalidArgumentError
    assert str(info.value) == "run: the score of query 'q', document 'b' is missing (null)"
    nan = spark.createDataFrame([("q", "a", 1.0), ("q", "b", float("nan"))], schema)
    with pytest.raises(InvalidArgumentError) as info:
        irmetrics.spark.evaluate(qrels, nan, "map")
    assert str(info.value) == "run: the score of query 'q', document 'b' must not be NaN"
    twice = spark.createDataFrame([("q", "a", 1.0), ("q", "a", 2.0)], schema)
    with pytest.raises(InvalidArgumentError) as info:
        irmetrics.spark.evaluate(qrels, twice, "map")
    assert str(info.value) == "run: document 'a' appears twice for query 'q'"
    assert type(info.value) is InvalidArgumentError


def test_missing_pyspark_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyspark", None)   # import pyspark now fails
    monkeypatch.setitem(sys.modules, "pyspark.sql", None)
    with pytest.raises(ImportError) as info:
        irmetrics.spark.evaluate(QRELS, RUN, "map")
    assert str(info.value) == (
        "irmetrics.spark needs PySpark, pandas and pyarrow: pip install 'irmetrics-eval[spark]'"
    )


# === CI's rule, and the one exemption ========================================


@pytest.mark.slow
def test_on_ci_only_spark_tests_may_be_skipped(tmp_path):
    # With CI=true, tests/conftest.py turns a skip into a failure, except for
    # a test marked `spark` (the Spark tests, skipped without pyspark or Java).
    shutil.copy(os.path.join(os.path.dirname(__file__), "conftest.py"), tmp_path / "conftest.py")
    (tmp_path / "test_skips.py").write_text(textwrap.dedent("""
        import pytest

        @pytest.mark.spark
        @pytest.mark.skip(reason="no pyspark here")
        def test_spark_skip():
            pass

        @pytest.mark.skip(reason="no oracle here")
        def test_other_skip():
            pass

        @pytest.mark.spark
        def test_spark_failure():
            assert False
    """), encoding="utf-8")
    env = {**os.environ, "CI": "true"}
    env.pop("HYPOTHESIS_PROFILE", None)
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly", "-rA",
         str(tmp_path / "test_skips.py")],
        cwd=tmp_path, env=env, capture_output=True, text=True,
    )
    out = proc.stdout
    assert "SKIPPED [1] test_skips.py:4: no pyspark here" in out, out
    # a skip decided before the test runs fails its setup: an error
    assert "ERROR test_skips.py::test_other_skip" in out, out   # (pytest < 9 adds no reason here)
    assert "skipped on CI, where every test must run: " in out, out
    assert "FAILED test_skips.py::test_spark_failure" in out, out   # only skips are exempt
    assert "1 failed, 1 skipped, 1 error" in out, out
    assert proc.returncode == 1
