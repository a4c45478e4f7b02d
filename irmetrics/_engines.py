"""What the Dask and Spark integrations share: checks, columns, the road, the merge.

An engine (Dask, Spark) describes itself in an :class:`Engine` and calls
:func:`prepare` first: the measures and options are checked, the run frame
and its columns found, the qrels read, the same way for each engine, into
evaluate()'s road (:class:`irmetrics.evaluate._Road`: the qrels, with their
subtopics, the measures and the options).  The engine sends the road to
every worker once, brings each query's rows together in one partition and
calls :func:`score_columns` there, which scores the partition's queries on
the road and returns its picklable part, as each worker process of one
machine does.  The driver then calls :func:`assemble`, which makes the
whole of the parts as :func:`~irmetrics.evaluate` does: the judged queries
no partition has (scored as empty rankings with ``complete=True``), the
warning about skipped queries, :meth:`Evaluation.merge`.

Columns are found as for DataFrames, by the one finder
(:func:`irmetrics._tabular.choose_columns`), and a qrels frame is read by
:func:`irmetrics.frames.qrels_table` once the engine has collected it.
Nothing here imports pandas, Dask or Spark.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Mapping, NamedTuple, Optional, Sequence, Tuple

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
from .evaluate import _as_qrels, _checked, _Part, _Road
from .evaluation import Evaluation
from .sources import is_file_source as _is_source
from .sources import open_run

__all__ = ["Engine", "prepare", "table", "score_columns", "assemble",
           "RUN_ROLES", "QRELS_ROLES"]

#: The roles of each frame; their column names are those of every other
#: road (records, DataFrames): ``irmetrics._tabular._COLUMN_NAMES``.
RUN_ROLES = ("query_id", "doc_id", "score")
QRELS_ROLES = ("query_id", "doc_id", "relevance")


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


class Engine(NamedTuple):
    """An engine as :func:`prepare` needs it."""

    name: str  # "Dask", "Spark": its DataFrames are "Dask DataFrame"s
    load: Callable[[], Any]  # imports its library (an ImportError naming the extra)
    is_frame: Callable[[Any], bool]  # whether a value is one of its DataFrames
    rows: Callable[[Any], Any]  # one of its DataFrames as a pandas DataFrame or pyarrow Table


def prepare(
    engine: Engine, qrels: Any, run: Any, measures: Any, columns: Any, options: Dict[str, Any]
) -> Tuple[Any, _Road, Tuple[Any, Any, Any]]:
    """The measures and *options* checked (as evaluate() checks them), the
    engine's library loaded, *run* checked to be one of its frames and its
    columns found as in any DataFrame, and the qrels read (:func:`qrels_data`):
    the library (what ``engine.load`` returned), the road (the qrels, the
    measures and the options, for every worker) and the run's query id, doc
    id and score columns.

    *columns* maps roles (``query_id``, ``doc_id``, ``score``, ``relevance``)
    to column names, for frames with other names.
    """
    names, parsed, checked = _checked(measures, **options)
    library = engine.load()
    if not engine.is_frame(run):
        raise InvalidArgumentError(
            f"'run' must be a {engine.name} DataFrame (got {type(run).__name__}); "
            "irmetrics.evaluate() takes the others"
        )
    what = f"{engine.name} DataFrame"
    found = choose_columns(list(run.columns), what, "run", RUN_ROLES, _only(columns, RUN_ROLES))
    road = _Road(qrels_data(qrels, columns, engine), names, parsed, checked)
    return library, road, (found["query_id"], found["doc_id"], found["score"])


def _missing(value: Any) -> bool:
    # None (a null from Spark or pyarrow) or pandas' NA
    return value is None or type(value).__name__ == "NAType"


def _convert(convert: Callable[[Any], Any], value: Any, what: str) -> Any:
    """*value* converted, or the error naming *what* it is."""
    try:
        return convert(value)
    except (TypeError, ValueError) as exc:
        reason = "is missing (null)" if _missing(value) else str(exc)
        raise InvalidArgumentError(f"{what} {reason}") from None


def table(
    qids: Sequence[Any], docids: Sequence[Any], values: Sequence[Any]
) -> Dict[str, Dict[str, float]]:
    """``{query id: {doc id: score}}`` from a run's three columns (plain lists)."""
    out: Dict[str, Dict[str, Any]] = {}
    prev: Optional[str] = None
    docs: Dict[str, Any] = {}
    for q, d, v in zip(qids, docids, values):
        qid = q if type(q) is str else _convert(_as_id, q, "run: a query id")
        docid = d if type(d) is str else _convert(_as_id, d, f"run: a doc id of query {qid!r}")
        if type(v) is not float or v != v:
            v = _convert(_as_score, v, f"run: the score of query {qid!r}, document {docid!r}")
        if qid != prev:
            docs = out.setdefault(qid, {})
            prev = qid
        if docid in docs:
            raise InvalidArgumentError(
                f"run: document {docid!r} appears twice for query {qid!r}"
            )
        docs[docid] = v
    return out


def qrels_data(qrels: Any, columns: Optional[Mapping[str, Any]], engine: Engine) -> Qrels:
    """The qrels, with their subtopics if they have any.

    *qrels* is anything :func:`~irmetrics.evaluate` takes, or a frame with
    qrels columns (the engine's own, collected here, or any DataFrame).  A
    frame is read as any DataFrame is (:func:`irmetrics.frames.qrels_table`):
    the same columns, the same checks and the same messages, naming the row.
    """
    wanted = _only(columns, QRELS_ROLES)
    if isinstance(qrels, (Qrels, Mapping)) or _is_source(qrels):
        return _as_qrels(qrels)
    if engine.is_frame(qrels):
        source = f"{engine.name} DataFrame"
        return Qrels._trusted(qrels_table(engine.rows(qrels), columns=wanted, source=source))
    if is_frame(qrels):
        return Qrels._trusted(qrels_table(qrels, columns=wanted))
    raise InvalidArgumentError(
        "'qrels' must be a DataFrame, a Qrels, a dict of dicts or a TREC file "
        f"(got {type(qrels).__name__})"
    )


# === On the workers ==========================================================


def score_columns(
    qids: Sequence[Any], docids: Sequence[Any], scores: Sequence[Any], road: _Road
) -> _Part:
    """Score one partition's queries (each query's rows all in this partition)
    on *road* (:func:`prepare`'s): its part of the whole."""
    return road.score(open_run(Run._trusted(table(qids, docids, scores), DEFAULT_RUN_NAME)))


# === On the driver ===========================================================


def assemble(parts: Sequence[_Part], road: _Road) -> Evaluation:
    """The evaluation of the whole run from its partitions' parts."""
    return road.whole(parts, run_name=DEFAULT_RUN_NAME)
