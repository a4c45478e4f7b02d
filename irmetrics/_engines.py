"""What the Dask and Spark integrations share: columns, shards and the merge.

An engine (Dask, Spark) brings each query's rows together in one partition
and calls :func:`score_columns` there, with the qrels sent to every worker
once (with their subtopics: :func:`pack`); the function scores the
partition's queries with the ordinary road
(:func:`~irmetrics.evaluate.evaluate`) and returns a picklable
:class:`~irmetrics.evaluate.Evaluation` (or the ids of a partition whose
queries are all unjudged).  The driver then calls :func:`assemble`, which
merges the parts with :meth:`Evaluation.merge` and adds what only the whole
knows: the judged queries no partition has (scored as empty rankings with
``complete=True``) and the warning about skipped queries.

Columns are found as for DataFrames, by the one finder
(:func:`irmetrics._tabular.choose_columns`), and a qrels frame is read by
:func:`irmetrics.frames.qrels_table` once the engine has collected it.
Nothing here imports pandas, Dask or Spark.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from ._tabular import (
    DEFAULT_RUN_NAME,
    _as_id,
    _as_score,
    choose_columns,
    is_frame,
    qrels_table,
)
from .data import Qrels, Run
from .errors import InvalidArgumentError
from .evaluate import _as_qrels, _evaluate, _warn_skipped, check_measures
from .evaluation import Evaluation, Options, Queries, build, check_options
from .measures import measure_names, parse_measures
from .sources import is_file_source as _is_source

__all__ = ["Options", "Packed", "check_arguments", "run_columns", "table", "qrels_data",
           "pack", "score_columns", "assemble", "RUN_ROLES", "QRELS_ROLES"]

#: The roles of each frame; their column names are those of every other
#: road (records, DataFrames): ``irmetrics._tabular._COLUMN_NAMES``.
RUN_ROLES = ("query_id", "doc_id", "score")
QRELS_ROLES = ("query_id", "doc_id", "relevance")

Result = Union[Evaluation, Tuple[str, ...]]
#: A Qrels as sent to the workers: its flat table and its subtopics (or None).
Packed = Tuple[Dict[str, Dict[str, int]], Optional[Dict[str, Dict[str, Dict[str, int]]]]]


def check_arguments(
    measures: Any, relevance_level: Any, complete: Any, depth: Any, judged_only: Any
) -> Tuple[List[str], Options]:
    """The measure names (stripped) and the options, checked as evaluate() checks them."""
    names = measure_names(measures)
    parsed = parse_measures(names)
    options = check_options(relevance_level=relevance_level, complete=complete, depth=depth,
                            judged_only=judged_only)
    check_measures(names, parsed, options.ties)
    return [n.strip() for n in names], options


def _check_columns(columns: Any) -> Mapping[str, Any]:
    """The *columns* mapping (``{role: column name}``, any of the four roles), checked."""
    if columns is None:
        return {}
    if not isinstance(columns, Mapping):
        raise InvalidArgumentError(
            f"'columns' must map roles such as 'query_id' to column names "
            f"(got {type(columns).__name__})"
        )
    roles = set(RUN_ROLES + QRELS_ROLES)
    unknown = sorted(set(columns) - roles, key=repr)
    if unknown:
        raise InvalidArgumentError(
            f"'columns' has unknown roles {unknown}; the roles are {sorted(roles)}"
        )
    return columns


def _only(columns: Mapping[str, Any], roles: Tuple[str, ...]) -> Dict[str, Any]:
    return {role: name for role, name in columns.items() if role in roles}


def run_columns(
    present: Sequence[Any], source: str, columns: Optional[Mapping[str, Any]]
) -> Tuple[Any, Any, Any]:
    """The run's query id, doc id and score columns, found as in any DataFrame.

    *columns* maps roles (``query_id``, ``doc_id``, ``score``, and the
    qrels' ``relevance``, used by :func:`qrels_data`) to column names, for
    frames with other names; *source* describes the run in messages.
    """
    wanted = _only(_check_columns(columns), RUN_ROLES)
    found = choose_columns(list(present), source, "run", RUN_ROLES, wanted)
    return found["query_id"], found["doc_id"], found["score"]


def _missing(value: Any) -> bool:
    # None (a null from Spark or pyarrow) or pandas' NA
    return value is None or type(value).__name__ == "NAType"


def table(
    qids: Sequence[Any], docids: Sequence[Any], values: Sequence[Any], what: str, value: str
) -> Dict[str, Dict[str, float]]:
    """``{query id: {doc id: score}}`` from a run's three columns (plain lists)."""
    out: Dict[str, Dict[str, Any]] = {}
    prev: Optional[str] = None
    docs: Dict[str, Any] = {}
    for q, d, v in zip(qids, docids, values):
        try:
            qid = q if type(q) is str else _as_id(q)
        except TypeError as exc:
            reason = "is missing (null)" if _missing(q) else str(exc)
            raise InvalidArgumentError(f"{what}: a query id {reason}") from None
        try:
            docid = d if type(d) is str else _as_id(d)
        except TypeError as exc:
            reason = "is missing (null)" if _missing(d) else str(exc)
            raise InvalidArgumentError(f"{what}: a doc id of query {qid!r} {reason}") from None
        try:
            v = _as_score(v)
        except (TypeError, ValueError) as exc:
            reason = "is missing (null)" if _missing(v) else str(exc)
            raise InvalidArgumentError(
                f"{what}: the {value} of query {qid!r}, document {docid!r} {reason}"
            ) from None
        if qid != prev:
            docs = out.setdefault(qid, {})
            prev = qid
        if docid in docs:
            raise InvalidArgumentError(
                f"{what}: document {docid!r} appears twice for query {qid!r}"
            )
        docs[docid] = v
    return out


def qrels_data(
    qrels: Any, columns: Optional[Mapping[str, Any]], collect: Any = None
) -> Qrels:
    """The qrels, with their subtopics if they have any.

    *qrels* is anything :func:`~irmetrics.evaluate` takes, or a frame with
    qrels columns; *collect* turns the engine's own frame (if it is one) into
    ``(a pandas DataFrame or pyarrow Table of its rows, a description such as
    "Spark DataFrame")``, or returns None for anything else.  A frame is read as any DataFrame is
    (:func:`irmetrics.frames.qrels_table`): the same columns, the same checks
    and the same messages, naming the row.
    """
    wanted = _only(_check_columns(columns), QRELS_ROLES)
    if isinstance(qrels, (Qrels, Mapping)) or _is_source(qrels):
        return _as_qrels(qrels)
    local = collect(qrels) if collect is not None else None
    if local is not None:
        frame, source = local
        return Qrels._trusted(qrels_table(frame, columns=wanted, source=source))
    if is_frame(qrels):
        return Qrels._trusted(qrels_table(qrels, columns=wanted))
    raise InvalidArgumentError(
        "'qrels' must be a DataFrame, a Qrels, a dict of dicts or a TREC file "
        f"(got {type(qrels).__name__})"
    )


def pack(qrels: Qrels) -> Packed:
    """What the workers need of *qrels* (plain dicts, picklable): see :func:`score_columns`."""
    return qrels._data, qrels._subtopics


# === On the workers ==========================================================


def score_columns(
    qids: Sequence[Any],
    docids: Sequence[Any],
    scores: Sequence[Any],
    packed: Packed,
    names: Sequence[str],
    options: Options,
) -> Optional[Result]:
    """Score one partition's queries (each query's rows all in this partition).

    *packed* is the whole qrels, from :func:`pack` (the diversity measures
    read its subtopics).

    Returns the partition's evaluation without ``complete`` (the driver adds
    the missing queries once), the ids of its queries when none is judged,
    or None for an empty partition.
    """
    data = table(qids, docids, scores, "run", "score")
    if not data:
        return None
    qrels = Qrels._trusted(*packed)
    unjudged = tuple(sorted(q for q in data if q not in qrels))
    if len(unjudged) == len(data):
        return unjudged
    for qid in unjudged:
        del data[qid]
    # Only judged queries: evaluate() has nothing to warn about (the driver
    # warns, once; catching warnings here would not be thread-safe).
    part = _evaluate(qrels, Run._trusted(data, DEFAULT_RUN_NAME), names, parse_measures(names),
                     replace(options, complete=False))
    # the missing queries are the whole qrels' business: assemble() works them out once
    part.queries = part.queries._replace(skipped=unjudged, missing=())
    return part


# === On the driver ===========================================================


def assemble(
    results: Sequence[Optional[Result]],
    qrels: Qrels,
    names: Sequence[str],
    options: Options,
    stacklevel: int,
) -> Evaluation:
    """The evaluation of the whole run from its partitions' results."""
    complete = options.complete
    parts = [r for r in results if isinstance(r, Evaluation)]
    unjudged = [q for r in results if isinstance(r, tuple) for q in r]
    merged = Evaluation.merge(parts) if parts else None
    rows: Dict[str, Sequence[Any]] = {} if merged is None else dict(merged._rows)
    skipped = tuple(sorted([*(merged.skipped if merged else ()), *unjudged]))
    missing = tuple(sorted(q for q in qrels if q not in rows))
    _warn_skipped(skipped, stacklevel)
    fill: Optional[Evaluation] = None
    if complete and missing:
        # The judged queries no partition has, scored as empty rankings
        # against the whole qrels (as evaluate() scores them).
        fill = _evaluate(qrels, Run._trusted({}, DEFAULT_RUN_NAME), names,
                         parse_measures(names), options)
        for qid in missing:
            rows[qid] = fill._rows[qid]
    source = merged if merged is not None else fill
    if source is None or not rows:
        ids = sorted(unjudged)
        shown = ", ".join(repr(i) for i in ids[:3]) + (", ..." if len(ids) > 3 else "")
        sample = sorted(qrels)[:3]
        judged = ", ".join(repr(i) for i in sample) + (", ..." if len(qrels) > 3 else "")
        raise InvalidArgumentError(
            "no query is both in the run and in the qrels "
            f"(run: {shown or 'no queries'}; qrels: {judged or 'no queries'})"
        )
    queries = Queries(skipped, missing, frozenset(missing if complete else ()))
    return build(source.names, source.measures, rows, DEFAULT_RUN_NAME, options, queries,
                 source.max_label)
