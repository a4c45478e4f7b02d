"""What the Dask and Spark integrations share: columns, shards and the merge.

An engine (Dask, Spark) brings each query's rows together in one partition
and calls :func:`score_columns` there, with the qrels sent to every worker
once; the function scores the partition's queries with the ordinary road
(:func:`~irmetrics.evaluate.evaluate`) and returns a picklable
:class:`~irmetrics.evaluate.Evaluation` (or the ids of a partition whose
queries are all unjudged).  The driver then calls :func:`assemble`, which
merges the parts with :meth:`Evaluation.merge` and adds what only the whole
knows: the judged queries no partition has (scored as empty rankings with
``complete=True``) and the warning about skipped queries.

Nothing here imports pandas, Dask or Spark: a frame is anything with
``columns`` and ``frame[name].tolist()``.
"""

from __future__ import annotations

import warnings
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from ._checks import check_int
from .data import DEFAULT_RUN_NAME, Qrels, Run, _as_id, _as_relevance, _as_score
from .errors import InvalidArgumentError, IrmetricsWarning
from .evaluate import Evaluation, _as_qrels, evaluate
from .measures import parse_measures
from .sources import is_file_source as _is_source

__all__ = ["Options", "check_arguments", "find_columns", "table", "qrels_data",
           "score_columns", "assemble", "RUN_COLUMNS", "QRELS_COLUMNS"]

#: (role, the column names looked for, in order): ir_measures' and PyTerrier's.
RUN_COLUMNS = (("query_id", ("query_id", "qid")), ("doc_id", ("doc_id", "docno", "docid")),
               ("score", ("score",)))
QRELS_COLUMNS = (("query_id", ("query_id", "qid")), ("doc_id", ("doc_id", "docno", "docid")),
                 ("relevance", ("relevance", "label", "rel")))

#: (relevance_level, complete, depth, judged_only), checked.
Options = Tuple[int, bool, Optional[int], bool]
Result = Union[Evaluation, Tuple[str, ...]]


def check_arguments(
    measures: Any, relevance_level: Any, complete: Any, depth: Any, judged_only: Any
) -> Tuple[List[str], Options]:
    """The measure names (stripped) and the options, checked as evaluate() checks them."""
    names = [measures] if isinstance(measures, str) else list(measures)
    parsed = parse_measures(names)
    for name, m in zip(names, parsed):
        if m.family.text:
            raise InvalidArgumentError(
                f"measure {name!r} is a text line of trec_eval's report, not a number; "
                "the command line prints it"
            )
    level = check_int(relevance_level, "relevance_level", 1)
    if depth is not None:
        depth = check_int(depth, "depth", 0)  # 0: nothing retrieved, as evaluate() and -M 0
    if not isinstance(complete, bool):
        raise InvalidArgumentError(f"'complete' must be a bool (got {complete!r})")
    if not isinstance(judged_only, bool):
        raise InvalidArgumentError(f"'judged_only' must be a bool (got {judged_only!r})")
    return [n.strip() for n in names], (level, complete, depth, judged_only)


def find_columns(
    present: Sequence[str],
    wanted: Tuple[Tuple[str, Tuple[str, ...]], ...],
    columns: Optional[Mapping[str, str]],
    what: str,
) -> Tuple[str, ...]:
    """The names of the columns playing each role of *wanted*, in its order.

    *columns* maps a role (``query_id``, ``doc_id``, ``score``,
    ``relevance``) to a column name, for frames with other names.
    """
    if columns is not None and not isinstance(columns, Mapping):
        raise InvalidArgumentError(
            f"'columns' must map roles such as 'query_id' to column names "
            f"(got {type(columns).__name__})"
        )
    roles = {role for role, _ in QRELS_COLUMNS + RUN_COLUMNS}
    unknown = sorted(set(columns or {}) - roles)
    if unknown:
        raise InvalidArgumentError(
            f"'columns' has unknown roles {unknown}; the roles are {sorted(roles)}"
        )
    present = [str(c) for c in present]
    found = []
    for role, names in wanted:
        if columns and role in columns:
            name = columns[role]
            if name not in present:
                raise InvalidArgumentError(
                    f"{what} has no column {name!r} (columns={{{role!r}: {name!r}}}); "
                    f"its columns are {present}"
                )
            found.append(name)
            continue
        for name in names:
            if name in present:
                found.append(name)
                break
        else:
            looked = " or ".join(repr(n) for n in names)
            raise InvalidArgumentError(
                f"{what} has no {role} column: looked for {looked} in {present}; "
                f"name it with columns={{{role!r}: ...}}"
            )
    return tuple(found)


def table(
    qids: Sequence[Any], docids: Sequence[Any], values: Sequence[Any], what: str, value: str
) -> Dict[str, Dict[str, Any]]:
    """``{query id: {doc id: value}}`` from three columns (plain lists)."""
    convert = _as_score if value == "score" else _as_relevance
    out: Dict[str, Dict[str, Any]] = {}
    prev: Optional[str] = None
    docs: Dict[str, Any] = {}
    for q, d, v in zip(qids, docids, values):
        try:
            qid = q if type(q) is str else _as_id(q)
        except TypeError as exc:
            raise InvalidArgumentError(f"{what}: a query id {exc}") from None
        try:
            docid = d if type(d) is str else _as_id(d)
        except TypeError as exc:
            raise InvalidArgumentError(f"{what}: a doc id of query {qid!r} {exc}") from None
        try:
            v = convert(v)
        except (TypeError, ValueError) as exc:
            raise InvalidArgumentError(
                f"{what}: the {value} of query {qid!r}, document {docid!r} {exc}"
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


def _is_frame(x: Any) -> bool:
    return hasattr(x, "columns") and hasattr(x, "__getitem__") and not isinstance(x, Mapping)


def qrels_data(
    qrels: Any, columns: Optional[Mapping[str, str]], collect: Any = None
) -> Dict[str, Dict[str, int]]:
    """The qrels as ``{query id: {doc id: relevance}}``.

    *qrels* is anything :func:`~irmetrics.evaluate` takes, or a frame with
    qrels columns; *collect* turns the engine's own frame (if it is one) into
    a pandas one, or returns None for anything else.
    """
    if isinstance(qrels, (Qrels, Mapping)) or _is_source(qrels):
        return _as_qrels(qrels)._data
    local = collect(qrels) if collect is not None else None
    if local is None and _is_frame(qrels):
        local = qrels
    if local is None:
        raise InvalidArgumentError(
            "'qrels' must be a DataFrame, a Qrels, a dict of dicts or a TREC file "
            f"(got {type(qrels).__name__})"
        )
    q, d, r = find_columns(list(local.columns), QRELS_COLUMNS, columns, "qrels")
    return table(local[q].tolist(), local[d].tolist(), local[r].tolist(), "qrels", "relevance")


# === On the workers ==========================================================


def score_columns(
    qids: Sequence[Any],
    docids: Sequence[Any],
    scores: Sequence[Any],
    qrels: Dict[str, Dict[str, int]],
    names: Sequence[str],
    options: Options,
) -> Optional[Result]:
    """Score one partition's queries (each query's rows all in this partition).

    Returns the partition's evaluation without ``complete`` (the driver adds
    the missing queries once), the ids of its queries when none is judged,
    or None for an empty partition.
    """
    data = table(qids, docids, scores, "run", "score")
    if not data:
        return None
    unjudged = tuple(sorted(q for q in data if q not in qrels))
    if len(unjudged) == len(data):
        return unjudged
    for qid in unjudged:
        del data[qid]
    # Only judged queries: evaluate() has nothing to warn about (the driver
    # warns, once; catching warnings here would not be thread-safe).
    level, _, depth, judged_only = options
    part = evaluate(Qrels._trusted(qrels), Run._trusted(data, DEFAULT_RUN_NAME), names,
                    relevance_level=level, depth=depth, judged_only=judged_only)
    part.skipped = unjudged
    part.missing = ()  # the whole qrels' business: assemble() works it out once
    return part


# === On the driver ===========================================================


def assemble(
    results: Sequence[Optional[Result]],
    qrels: Dict[str, Dict[str, int]],
    names: Sequence[str],
    options: Options,
    stacklevel: int,
) -> Evaluation:
    """The evaluation of the whole run from its partitions' results."""
    level, complete, depth, judged_only = options
    parts = [r for r in results if isinstance(r, Evaluation)]
    unjudged = [q for r in results if isinstance(r, tuple) for q in r]
    merged = Evaluation.merge(parts) if parts else None
    rows: Dict[str, Sequence[Any]] = {} if merged is None else dict(merged._rows)
    skipped = tuple(sorted([*(merged.skipped if merged else ()), *unjudged]))
    missing = tuple(sorted(q for q in qrels if q not in rows))
    if skipped:
        shown = ", ".join(repr(s) for s in skipped[:5]) + (", ..." if len(skipped) > 5 else "")
        warnings.warn(
            f"{len(skipped)} run quer{'y has' if len(skipped) == 1 else 'ies have'} no "
            f"judgments and {'was' if len(skipped) == 1 else 'were'} skipped: {shown}",
            IrmetricsWarning,
            stacklevel=stacklevel,
        )
    fill: Optional[Evaluation] = None
    if complete and missing:
        # The judged queries no partition has, scored as empty rankings
        # against the whole qrels (as evaluate() scores them).
        fill = evaluate(Qrels._trusted(qrels), Run._trusted({}, DEFAULT_RUN_NAME), names,
                        relevance_level=level, complete=True, depth=depth,
                        judged_only=judged_only)
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
    return Evaluation._build(
        source.names, source.measures, source._keys, rows, missing if complete else (),
        skipped, missing, DEFAULT_RUN_NAME, complete, relevance_level=level, depth=depth,
        judged_only=judged_only, max_label=source._max_label,
    )
