"""Evaluating a run held in a Dask DataFrame: :func:`evaluate`.

A run too large for one machine, or one that already lives as Parquet files
written by many tasks, can be evaluated where it is.  Dask does the
distribution: the run is shuffled so that each query's rows are in one
partition, each partition's queries are scored by the ordinary per-query
code of :func:`irmetrics.evaluate` on a worker, with the qrels sent to every
worker once, and the partitions' :class:`~irmetrics.evaluate.Evaluation`
objects are merged on the client with :meth:`Evaluation.merge
<irmetrics.evaluate.Evaluation.merge>`.  The result equals
:func:`irmetrics.evaluate` on the same data: the same per-query values and
the same aggregates, bit for bit.

It works with any Dask scheduler, including a ``distributed`` cluster of
worker processes (use the client as usual; nothing here needs to know it).
Dask is imported only when :func:`evaluate` is called:
``pip install 'irmetrics-eval[dask]'``.
"""

from __future__ import annotations

import uuid
from typing import Any, Iterable, Mapping, Optional, Union

from . import _engines
from .evaluate import Evaluation

__all__ = ["evaluate"]


def _import_dask() -> Any:
    try:
        import dask
        import dask.dataframe  # noqa: F401 - the DataFrame collection must be there
    except ImportError:
        raise ImportError(
            "irmetrics.dask needs Dask with its DataFrame: pip install 'irmetrics-eval[dask]'"
        ) from None
    return dask


def _is_dask_frame(x: Any) -> bool:
    return hasattr(x, "npartitions") and callable(getattr(x, "shuffle", None))


def _rows(frame: Any) -> Any:
    return frame.compute()


DASK = _engines.Engine("Dask", _import_dask, _is_dask_frame, _rows)


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
    """Score a Dask DataFrame *run* against *qrels*, as :func:`irmetrics.evaluate` does.

    run:
        A Dask DataFrame with a query id, a document id and a score column:
        ``query_id``, ``doc_id``, ``score`` (ir_measures' names), or
        ``qid``, ``docno``, ``score`` (PyTerrier's); other columns are
        ignored.  A query's rows may be spread over any number of
        partitions.  Ids may be strings or integers (an integer becomes its
        decimal string, as in a TREC file).
    qrels:
        A Dask, pandas or polars DataFrame or a pyarrow Table with
        ``query_id``, ``doc_id``, ``relevance`` columns (or ``qid``,
        ``docno``, ``label``: the names and checks of
        :meth:`Qrels.from_dataframe <irmetrics.Qrels.from_dataframe>`), or
        anything :func:`irmetrics.evaluate` takes (a :class:`~irmetrics.Qrels`,
        with subtopics for the diversity measures, a dict of dicts, a TREC
        file).  The qrels are gathered on the client and sent to each worker
        once.
    measures, relevance_level, complete, depth, judged_only, trec_eval:
        As for :func:`irmetrics.evaluate`.
    columns:
        Column names for frames that use others, by role:
        ``{"query_id": "q", "doc_id": "doc", "score": "s", "relevance": "rel"}``
        (any subset).

    The run's name (``run_name``) is ``"irmetrics"``, as for a
    :class:`~irmetrics.Run` built without one.  Run queries without
    judgments are skipped with one :class:`~irmetrics.errors.IrmetricsWarning`,
    raised here.

    Example (with a ``distributed`` client, a run written as Parquet by many
    tasks)::

        import dask.dataframe as dd
        from distributed import Client
        import irmetrics.dask

        client = Client()                          # or Client("scheduler:8786")
        run = dd.read_parquet("runs/bm25/*.parquet")
        result = irmetrics.dask.evaluate("qrels.txt", run, ["map", "nDCG@10"])
    """
    options = dict(relevance_level=relevance_level, complete=complete, depth=depth,
                   judged_only=judged_only, trec_eval=trec_eval)
    dask, road, (query, doc, score) = _engines.prepare(DASK, qrels, run, measures, columns, options)
    # One copy of the road (the qrels with their subtopics, the measures) in
    # the graph, named so that Dask does not hash it, and not searched for
    # Dask objects: each worker receives it once.
    shared = dask.delayed(road, name=f"irmetrics-road-{uuid.uuid4().hex}", traverse=False)
    shuffled = run[[query, doc, score]].shuffle(on=query)
    score_partition = dask.delayed(_score_partition, pure=True)
    tasks = [score_partition(part, query, doc, score, shared) for part in shuffled.to_delayed()]
    return _engines.assemble(dask.compute(*tasks), road)


def _score_partition(frame: Any, query: str, doc: str, score: str, road: Any) -> Any:
    # Runs on a worker, on a pandas DataFrame holding whole queries.
    return _engines.score_columns(frame[query].tolist(), frame[doc].tolist(),
                                  frame[score].tolist(), road)
