"""Evaluating a run held in a Spark DataFrame: :func:`evaluate`.

Spark does the distribution: the run is repartitioned by query id, so that
each query's rows are in one partition, and ``mapInPandas`` scores each
partition's queries with the ordinary per-query code of
:func:`irmetrics.evaluate`, the qrels broadcast to the executors once.  Each
partition sends back its :class:`~irmetrics.evaluate.Evaluation` (pickled,
one row); the driver merges them with :meth:`Evaluation.merge
<irmetrics.evaluate.Evaluation.merge>`.  The result equals
:func:`irmetrics.evaluate` on the same data, bit for bit, unlike Spark
MLlib's ``RankingMetrics``, which knows only binary relevance and defines
MAP differently (see the guide "Past one machine").

PySpark is imported only when :func:`evaluate` is called; the executors
need irmetrics, pandas and pyarrow: ``pip install 'irmetrics-eval[spark]'``.
"""

from __future__ import annotations

import functools
import pickle
from typing import Any, Iterable, Iterator, List, Mapping, Optional, Sequence, Union

from . import _engines
from .errors import InvalidArgumentError
from .evaluate import Evaluation

__all__ = ["evaluate"]


def _import_pyspark() -> Any:
    try:
        import pyspark.sql
    except ImportError:
        raise ImportError(
            "irmetrics.spark needs PySpark, pandas and pyarrow: pip install 'irmetrics-eval[spark]'"
        ) from None
    return pyspark.sql


def _is_spark_frame(x: Any) -> bool:
    return hasattr(x, "sparkSession") and callable(getattr(x, "mapInPandas", None))


def _collect(frame: Any) -> Any:
    """A Spark DataFrame's rows as a plain frame of lists (None for anything else)."""
    if not _is_spark_frame(frame):
        return None
    names = list(frame.columns)
    rows = frame.collect()
    return _Columns({name: [row[i] for row in rows] for i, name in enumerate(names)})


class _Columns(dict):  # type: ignore[type-arg]
    """Collected columns, readable as ``frame[name].tolist()`` like pandas'."""

    @property
    def columns(self) -> Sequence[str]:
        return list(self)

    def __getitem__(self, name: Any) -> Any:
        return _List(dict.__getitem__(self, name))


class _List(list):  # type: ignore[type-arg]
    def tolist(self) -> Any:
        return self


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
) -> Evaluation:
    """Score a Spark DataFrame *run* against *qrels*, as :func:`irmetrics.evaluate` does.

    run:
        A Spark DataFrame with a query id, a document id and a score column:
        ``query_id``, ``doc_id``, ``score``, or PyTerrier's ``qid``,
        ``docno``, ``score``; other columns are ignored.  Ids may be strings
        or integers (an integer becomes its decimal string).
    qrels:
        A Spark or pandas DataFrame with ``query_id``, ``doc_id``,
        ``relevance`` columns (or ``qid``, ``docno``, ``label``), or anything
        :func:`irmetrics.evaluate` takes.  The qrels are collected on the
        driver and broadcast to the executors once.
    measures, relevance_level, complete, depth, judged_only:
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
    names, options = _engines.check_arguments(
        measures, relevance_level, complete, depth, judged_only
    )
    _import_pyspark()
    if not _is_spark_frame(run):
        raise InvalidArgumentError(
            f"'run' must be a Spark DataFrame (got {type(run).__name__}); "
            "irmetrics.evaluate() takes the others"
        )
    query, doc, score = _engines.find_columns(
        list(run.columns), _engines.RUN_COLUMNS, columns, "run"
    )
    judgments = _engines.qrels_data(qrels, columns, _collect)
    shared = run.sparkSession.sparkContext.broadcast(judgments)
    try:
        work = functools.partial(_score_partition, query=query, doc=doc, score=score,
                                 qrels=shared, names=names, options=options)
        parts = run.select(query, doc, score).repartition(query).mapInPandas(
            work, "part binary"
        )
        results = [pickle.loads(row[0]) for row in parts.collect()]
    finally:
        shared.unpersist()
    return _engines.assemble(results, judgments, names, options, stacklevel=3)


def _score_partition(
    batches: Iterator[Any], *, query: str, doc: str, score: str, qrels: Any,
    names: Sequence[str], options: _engines.Options,
) -> Iterator[Any]:
    # Runs on an executor: every batch of one partition, which holds whole
    # queries; yields one row, the partition's result pickled, in a frame of
    # the batches' own type (pandas', imported by Spark).
    frame_type: Any = None
    qids: List[Any] = []
    docids: List[Any] = []
    scores: List[Any] = []
    for batch in batches:
        frame_type = type(batch)
        qids += batch[query].tolist()
        docids += batch[doc].tolist()
        scores += batch[score].tolist()
    result = _engines.score_columns(qids, docids, scores, qrels.value, names, options)
    if result is not None:
        yield frame_type({"part": [pickle.dumps(result, pickle.HIGHEST_PROTOCOL)]})
