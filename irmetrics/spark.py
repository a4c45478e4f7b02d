"""Evaluating a run held in a Spark DataFrame: :func:`evaluate`.

Spark does the distribution: the run is repartitioned by query id, so that
each query's rows are in one partition, and ``mapInArrow`` scores each
partition's queries with the ordinary per-query code of
:func:`irmetrics.evaluate`, the qrels (with their subtopics) broadcast to the
executors once.  Each partition sends back its
:class:`~irmetrics.evaluate.Evaluation` (pickled, one row), or the irmetrics
error its rows raised, which the driver raises as it is (its irmetrics class
and message, not Spark's ``PythonException``);
the driver merges the evaluations with :meth:`Evaluation.merge
<irmetrics.evaluate.Evaluation.merge>`.  The result equals
:func:`irmetrics.evaluate` on the same data, bit for bit, unlike Spark
MLlib's ``RankingMetrics``, which knows only binary relevance and defines
MAP differently (see the guide "Past one machine").

PySpark (3.3 or later, for ``mapInArrow``) is imported only when
:func:`evaluate` is called; the executors need irmetrics, pandas and
pyarrow: ``pip install 'irmetrics-eval[spark]'``.
"""

from __future__ import annotations

import functools
import pickle
from typing import Any, Iterable, Iterator, Mapping, Optional, Union

from . import _engines
from .errors import IrmetricsError
from .evaluate import Evaluation

__all__ = ["evaluate"]


def _import_pyspark() -> Any:
    try:
        import pyspark.sql
    except ImportError:
        raise ImportError(
            "irmetrics.spark needs PySpark, pandas and pyarrow: pip install 'irmetrics-eval[spark]'"
        ) from None
    if not hasattr(pyspark.sql.DataFrame, "mapInArrow"):
        raise ImportError(
            "irmetrics.spark needs PySpark 3.3 or later (DataFrame.mapInArrow): "
            "pip install -U 'irmetrics-eval[spark]'"
        )
    return pyspark.sql


def _is_spark_frame(x: Any) -> bool:
    return hasattr(x, "sparkSession") and callable(getattr(x, "mapInPandas", None))


def _rows(frame: Any) -> Any:
    """A Spark DataFrame's rows as a pyarrow Table.

    Through ``collect()``, so that nulls stay None (pandas would make a null
    label NaN) and every Spark version gives the same Python values.
    """
    import pyarrow  # type: ignore[import-untyped, import-not-found, unused-ignore]

    rows = frame.collect()
    names = list(frame.columns)
    table = pyarrow.table({str(i): [row[i] for row in rows] for i in range(len(names))})
    return table.rename_columns(names)


SPARK = _engines.Engine("Spark", _import_pyspark, _is_spark_frame, _rows)


def evaluate(
    qrels: Any,
    run: Any,
    measures: Union[str, Iterable[str]],
    *,
    relevance_level: int = 1,
    complete: bool = False,
    depth: Optional[int] = None,
    judged_only: bool = False,
    columns: Optional[Mapping[str, str]] = None,
    trec_eval: str = "9.0.8",
) -> Evaluation:
    """Score a Spark DataFrame *run* against *qrels*, as :func:`irmetrics.evaluate` does.

    run:
        A Spark DataFrame with a query id, a document id and a score column:
        ``query_id``, ``doc_id``, ``score``, or PyTerrier's ``qid``,
        ``docno``, ``score``; other columns are ignored.  Ids may be strings
        or integers (an integer becomes its decimal string).
    qrels:
        A Spark, pandas or polars DataFrame or a pyarrow Table with
        ``query_id``, ``doc_id``, ``relevance`` columns (or ``qid``,
        ``docno``, ``label``: the names and checks of
        :meth:`Qrels.from_dataframe <irmetrics.Qrels.from_dataframe>`), or
        anything :func:`irmetrics.evaluate` takes (a :class:`~irmetrics.Qrels`,
        with subtopics for the diversity measures).  The qrels are collected
        on the driver and broadcast to the executors once.
    measures, relevance_level, complete, depth, judged_only, trec_eval:
        As for :func:`irmetrics.evaluate`.
    columns:
        Column names for frames that use others, by role (``query_id``,
        ``doc_id``, ``score``, ``relevance``).

    The run's name is ``"irmetrics"``, as for a :class:`~irmetrics.Run` built
    without one.  Run queries without judgments are skipped with one
    :class:`~irmetrics.errors.IrmetricsWarning`, raised on the driver.

    Example::

        from pyspark.sql import SparkSession
        import irmetrics.spark

        spark = SparkSession.builder.getOrCreate()
        run = spark.read.parquet("runs/bm25/")
        result = irmetrics.spark.evaluate("qrels.txt", run, ["map", "nDCG@10"])
    """
    options = dict(relevance_level=relevance_level, complete=complete, depth=depth,
                   judged_only=judged_only, trec_eval=trec_eval)
    _, road, (query, doc, score) = _engines.prepare(SPARK, qrels, run, measures, columns, options)
    shared = run.sparkSession.sparkContext.broadcast(road)
    try:
        work = functools.partial(_score_partition, road=shared)
        parts = run.select(query, doc, score).repartition(query).mapInArrow(work, "part binary")
        results = [pickle.loads(row[0]) for row in parts.collect()]
    finally:
        shared.unpersist()
    for result in results:
        if isinstance(result, IrmetricsError):
            raise result  # an executor's: the error evaluate() raises for the same rows
    return _engines.assemble(results, road)


def _score_partition(batches: Iterator[Any], *, road: Any) -> Iterator[Any]:
    # Runs on an executor: the batches (pyarrow's: a null is None, unlike in
    # pandas, where it is NaN) of one partition, which holds whole queries,
    # their columns query id, doc id, score; yields one row, the partition's
    # result or irmetrics error pickled.
    import pyarrow  # type: ignore[import-untyped, import-not-found, unused-ignore]

    got = list(batches)
    if not got:
        return
    table = pyarrow.Table.from_batches(got)
    qids, docids, scores = (table.column(i).to_pylist() for i in range(3))
    result: Any
    try:
        result = _engines.score_columns(qids, docids, scores, road.value)
    except IrmetricsError as exc:  # raised on the driver as it is
        result = exc
    part = pickle.dumps(result, pickle.HIGHEST_PROTOCOL)
    yield pyarrow.RecordBatch.from_pydict({"part": [part]})
