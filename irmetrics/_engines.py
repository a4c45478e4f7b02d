"""What the Dask and Spark integrations share: columns, shards and the merge.

An engine (Dask, Spark) brings each query's rows together in one partition
and calls :func:`score_columns` there, with the qrels sent to every worker
once (with their subtopics: :func:`pack`); the function scores the
partition's queries with evaluate()'s scorer and returns its picklable part,
as each worker process of one machine does.  The driver then calls
:func:`assemble`, which makes the whole of the parts as
:func:`~irmetrics.evaluate` does: the judged queries no partition has
(scored as empty rankings with ``complete=True``), the warning about skipped
queries, :meth:`Evaluation.merge`.

Columns are found as for DataFrames, by the one finder
(:func:`irmetrics._tabular.choose_columns`), and a qrels frame is read by
:func:`irmetrics.frames.qrels_table` once the engine has collected it.
Nothing here imports pandas, Dask or Spark.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Mapping, Optional, Sequence, Tuple

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
from .evaluate import _as_qrels, _Part, _road, _score_part, _whole
from .evaluation import Evaluation, Options
from .measures import parse_measures
from .sources import is_file_source as _is_source
from .sources import open_run

__all__ = ["Options", "Packed", "run_columns", "table", "qrels_data",
           "pack", "score_columns", "assemble", "RUN_ROLES", "QRELS_ROLES"]

#: The roles of each frame; their column names are those of every other
#: road (records, DataFrames): ``irmetrics._tabular._COLUMN_NAMES``.
RUN_ROLES = ("query_id", "doc_id", "score")
QRELS_ROLES = ("query_id", "doc_id", "relevance")

#: A Qrels as sent to the workers: its flat table and its subtopics (or None).
Packed = Tuple[Dict[str, Dict[str, int]], Optional[Dict[str, Dict[str, Dict[str, int]]]]]


def _only(columns: Any, roles: Tuple[str, ...]) -> Dict[str, Any]:
    """The names *columns* (``{role: column name}``, any of the run's and the
    qrels' roles, checked) gives to *roles*, one frame's."""
    if columns is None:
        return {}
    if not isinstance(columns, Mapping):
        raise InvalidArgumentError(
            f"'columns' must map roles such as 'query_id' to column names "
            f"(got {type(columns).__name__})"
        )
    known = set(RUN_ROLES + QRELS_ROLES)
    unknown = sorted(set(columns) - known, key=repr)
    if unknown:
        raise InvalidArgumentError(
            f"'columns' has unknown roles {unknown}; the roles are {sorted(known)}"
        )
    return {role: name for role, name in columns.items() if role in roles}


def run_columns(
    present: Sequence[Any], source: str, columns: Optional[Mapping[str, Any]]
) -> Tuple[Any, Any, Any]:
    """The run's query id, doc id and score columns, found as in any DataFrame.

    *columns* maps roles (``query_id``, ``doc_id``, ``score``, and the
    qrels' ``relevance``, used by :func:`qrels_data`) to column names, for
    frames with other names; *source* describes the run in messages.
    """
    wanted = _only(columns, RUN_ROLES)
    found = choose_columns(list(present), source, "run", RUN_ROLES, wanted)
    return found["query_id"], found["doc_id"], found["score"]


def _missing(value: Any) -> bool:
    # None (a null from Spark or pyarrow) or pandas' NA
    return value is None or type(value).__name__ == "NAType"


def _checked(convert: Callable[[Any], Any], value: Any, what: str) -> Any:
    """*value* converted, or the error naming *what* it is."""
    try:
        return convert(value)
    except (TypeError, ValueError) as exc:
        reason = "is missing (null)" if _missing(value) else str(exc)
        raise InvalidArgumentError(f"{what} {reason}") from None


def table(
    qids: Sequence[Any], docids: Sequence[Any], values: Sequence[Any], what: str, value: str
) -> Dict[str, Dict[str, float]]:
    """``{query id: {doc id: score}}`` from a run's three columns (plain lists)."""
    out: Dict[str, Dict[str, Any]] = {}
    prev: Optional[str] = None
    docs: Dict[str, Any] = {}
    for q, d, v in zip(qids, docids, values):
        qid = q if type(q) is str else _checked(_as_id, q, f"{what}: a query id")
        docid = d if type(d) is str else _checked(_as_id, d, f"{what}: a doc id of query {qid!r}")
        if type(v) is not float or v != v:
            v = _checked(_as_score, v, f"{what}: the {value} of query {qid!r}, document {docid!r}")
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
    wanted = _only(columns, QRELS_ROLES)
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
) -> Optional[_Part]:
    """Score one partition's queries (each query's rows all in this partition):
    its part of the whole, or None for an empty partition.

    *packed* is the whole qrels, from :func:`pack` (the diversity measures
    read its subtopics).
    """
    data = table(qids, docids, scores, "run", "score")
    if not data:
        return None
    qrels = Qrels._trusted(*packed)
    layout, new_scorer = _road(qrels, names, parse_measures(names), options)
    return _score_part(new_scorer, layout, open_run(Run._trusted(data, DEFAULT_RUN_NAME)))


# === On the driver ===========================================================


def assemble(
    results: Sequence[Optional[_Part]], qrels: Qrels, names: Sequence[str], options: Options
) -> Evaluation:
    """The evaluation of the whole run from its partitions' parts."""
    layout, new_scorer = _road(qrels, names, parse_measures(names), options)
    # a part of no queries, for the run's name when no partition has any
    parts = [_score_part(new_scorer, layout, open_run(Run._trusted({}, DEFAULT_RUN_NAME)))]
    parts += [part for part in results if part is not None]
    return _whole(qrels, [], parts, layout, new_scorer)
