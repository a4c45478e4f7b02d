"""The result of :func:`~irmetrics.evaluate`: :class:`Evaluation`, its options and merge.

Catalogue
---------
:class:`Options`, :func:`check_options`: the options of an evaluation,
checked once where they are given, then carried by the scorer, the
evaluation, explain, the tie report and the engines.

:class:`Evaluation`: per-query values (one table, ``{qid: row}``), the
aggregates, the queries skipped or missing, the options; picklable, so that
worker processes and engines send their parts.

:meth:`Evaluation.merge` (the whole from parts of disjoint queries),
:func:`aggregate` (one measure over the queries, in trec_eval's order).
"""

from __future__ import annotations

import functools
import itertools
import math
from operator import itemgetter
from typing import (
    Any,
    Dict,
    FrozenSet,
    Iterable,
    List,
    Mapping,
    NamedTuple,
    Optional,
    Sequence,
    Set,
    Tuple,
    Union,
)

from . import formats, frames
from ._checks import as_number, check_choice, check_int
from ._tie_blocks import check_ties
from .errors import InvalidArgumentError
from .measures import MIN_GEO_MEAN, TREC_EVAL, TREC_EVAL_VERSIONS, Measure, TrecEval, parse_measures
from .metrics import _left_to_right

__all__ = ["TREC_EVAL_VERSIONS", "Options", "check_options", "Queries", "Evaluation", "aggregate"]

Value = Union[int, float]
Rows = Dict[str, Sequence[Value]]

# === Options ===================================================================


class Options(NamedTuple):
    """The options of an evaluation, checked (see :func:`check_options`);
    immutable (``options._replace(ties="best")`` makes another).

    The first six and ``trec_eval`` are :func:`~irmetrics.evaluate`'s
    keywords; ``detect_ties``: note the queries whose values move with the
    order of tied scores (the command line's note).
    """

    relevance_level: int = 1
    complete: bool = False
    depth: Optional[int] = None
    judged_only: bool = False
    scores: str = "float64"
    ties: str = "trec_eval"
    detect_ties: bool = False
    trec_eval: str = "9.0.8"
    #: each document's cost, for the C/W/L measures: {query: {document: cost}}
    costs: Optional[Mapping[str, Mapping[str, float]]] = None
    collection_size: int = 0

    @property
    def float32(self) -> bool:
        return self.scores == "float32"

    @property
    def version(self) -> TrecEval:
        """What the trec_eval version followed does its own way (measures.TREC_EVAL)."""
        return TREC_EVAL[self.trec_eval]

    def public(self) -> Dict[str, Any]:
        """What :attr:`Evaluation.options` shows (``detect_ties`` aside)."""
        shown = self._asdict()
        del shown["detect_ties"]
        if self.costs is None:
            del shown["costs"]
        return shown


def check_options(
    *,
    relevance_level: Any = 1,
    complete: Any = False,
    depth: Any = None,
    judged_only: Any = False,
    scores: Any = "float64",
    ties: Any = "trec_eval",
    detect_ties: bool = False,
    trec_eval: Any = "9.0.8",
    costs: Any = None,
    collection_size: Any = 0,
) -> Options:
    """:class:`Options` from the keywords of :func:`~irmetrics.evaluate`, each
    checked (an :class:`~irmetrics.errors.InvalidArgumentError` naming it).

    >>> check_options(depth=100).depth
    100
    """
    level = check_int(relevance_level, "relevance_level", 1)
    if scores not in ("float64", "float32"):
        raise InvalidArgumentError(f"'scores' must be 'float64' or 'float32' (got {scores!r})")
    if depth is not None:
        depth = check_int(depth, "depth", 0)  # 0: nothing retrieved (trec_eval -M 0)
    for name, flag in (("complete", complete), ("judged_only", judged_only)):
        if not isinstance(flag, bool):
            raise InvalidArgumentError(f"{name!r} must be a bool (got {flag!r})")
    check_choice(trec_eval, "trec_eval", TREC_EVAL_VERSIONS)
    size = check_int(collection_size, "collection_size", 0)
    return Options(level, complete, depth, judged_only, scores, check_ties(ties), detect_ties,
                   trec_eval, None if costs is None else _checked_costs(costs), size)


def _checked_costs(costs: Any) -> Dict[str, Dict[str, float]]:
    """*costs*, ``{query: {document: cost}}`` with finite costs >= 0, as plain dicts."""
    out: Dict[str, Dict[str, float]] = {}
    for qid, docs in (costs.items() if isinstance(costs, Mapping) else [("", None)]):
        if not isinstance(docs, Mapping):
            raise InvalidArgumentError("'costs' must map query ids to {document id: cost} "
                                       f"(got {type(costs).__name__} {costs!r:.60})")
        out[qid] = {}
        for doc, cost in docs.items():
            value = as_number(cost)
            if not 0.0 <= value < math.inf:
                raise InvalidArgumentError(f"'costs' of query {qid!r}, document {doc!r} must be "
                                           f"a finite number >= 0 (got {cost!r})")
            out[qid][doc] = value
    return out


# === Evaluation ================================================================


class Queries(NamedTuple):
    """The query ids of an evaluation besides its rows: ``skipped`` (run
    queries without judgments), ``missing`` (judged queries the run lacks),
    ``filled`` (those of the rows that are missing queries scored as empty
    rankings) and ``tie_moved`` (queries whose values tied scores move)."""

    skipped: Tuple[str, ...] = ()
    missing: Tuple[str, ...] = ()
    filled: FrozenSet[str] = frozenset()
    tie_moved: Tuple[str, ...] = ()


class Evaluation:
    """The result of :func:`evaluate`.

    ``per_query``: ``{query id: {measure name: value}}``, query ids in sorted
    order; ``aggregate``: ``{measure name: value}``.  Measure names are the
    strings you asked for.  Both are plain dicts, copied from the
    evaluation's own the first time they are read (so reading them in a loop
    costs nothing, and changing them leaves :meth:`to_dict` and
    :func:`~irmetrics.compare` unaffected).
    ``skipped``: run queries that have no judgments; ``missing``: judged
    queries the run does not have (scored as empty rankings when
    ``complete=True``, else left out).  ``options``: the options of
    :func:`evaluate` it was computed with.

    An evaluation carries everything its aggregates need, so that
    evaluations of disjoint sets of queries, computed anywhere (another
    process, another machine, a pickle on disk), combine into exactly the
    evaluation of the whole with :meth:`merge`.
    """

    def __init__(
        self,
        names: Sequence[str],
        measures: Sequence[Measure],
        rows: Mapping[str, Sequence[Value]],
        run_name: str,
        options: Options,
        queries: Queries,
        max_label: int = 0,
        *,
        final: bool = True,
    ) -> None:
        """An evaluation of per-query *rows* (any order), its aggregates computed here.

        A dict of *rows* becomes the evaluation's own table (when in query-id
        order): the callers hand over a table they made for it.
        ``final=False`` makes a part that only :meth:`merge` reads: rows in
        the order given, no aggregates (the merge computes them, over the whole).
        """
        self.names = tuple(names)
        self.measures = tuple(measures)
        self._keys = tuple(dict.fromkeys(self.names))  # a name asked twice counts once
        table: Rows = rows if isinstance(rows, dict) else dict(rows)
        self._aggregate: Dict[str, Value] = {}
        if final:
            ids = sorted(table)
            if ids != list(table):  # rows read in query-id order are kept as they are
                table = {qid: table[qid] for qid in ids}
            by_name = dict(zip(names, measures))
            scored = [qid not in queries.filled for qid in table]
            if table:
                # one column at a time (less memory than the whole table transposed)
                for c, key in enumerate(self._keys):
                    column = list(map(itemgetter(c), table.values()))
                    self._aggregate[key] = aggregate(by_name[key], column, scored, run_name,
                                                     options.version.evaluates_missing)
        self._rows = table  # {qid: values in the order of _keys}: the one table
        self.run_name = run_name
        self._options = options
        self.queries = queries
        # the largest label (0 unless a measure reads it): merged parts must agree
        self.max_label = max_label

    @property
    def skipped(self) -> Tuple[str, ...]:
        return self.queries.skipped

    @property
    def missing(self) -> Tuple[str, ...]:
        return self.queries.missing

    @property
    def tie_moved(self) -> Tuple[str, ...]:
        """The queries whose values the order of tied scores moves (the
        command line's note; empty unless asked for)."""
        return self.queries.tie_moved

    @property
    def complete(self) -> bool:
        return self._options.complete

    @property
    def _per_query(self) -> Dict[str, Dict[str, Value]]:
        """The per-query table as dicts, made anew (for the library's readers)."""
        keys = self._keys
        return {q: dict(zip(keys, row)) for q, row in self._rows.items()}

    @functools.cached_property
    def per_query(self) -> Dict[str, Dict[str, Value]]:
        return self._per_query

    @functools.cached_property
    def aggregate(self) -> Dict[str, Value]:
        return dict(self._aggregate)

    @property
    def options(self) -> Dict[str, Any]:
        """The options of :func:`evaluate` this evaluation was computed with.

        >>> from irmetrics import evaluate
        >>> evaluate({"q1": {"d1": 1}}, {"q1": {"d1": 1.0}}, "map", depth=100).options
        {'relevance_level': 1, 'complete': False, 'depth': 100, 'judged_only': False, \
'scores': 'float64', 'ties': 'trec_eval', 'trec_eval': '9.0.8', 'collection_size': 0}
        """
        return self._options.public()

    def __getitem__(self, name: str) -> Value:
        return self._aggregate[name]

    def to_dict(self) -> Dict[str, Any]:
        """Everything as plain data (what ``--format json`` prints)."""
        return {
            "run": self.run_name,
            "measures": list(self.names),
            "aggregate": dict(self._aggregate),
            "per_query": self._per_query,
            "skipped_queries": list(self.skipped),
            "missing_queries": list(self.missing),
            "complete": self.complete,
        }

    def __repr__(self) -> str:
        items = list(self._aggregate.items())
        shown = ", ".join(f"{k}={v:.4f}" if isinstance(v, float) else f"{k}={v}"
                          for k, v in items[:_REPR_MEASURES])
        hidden = len(items) - _REPR_MEASURES
        more = f", ... and {hidden} more measure{'s' if hidden > 1 else ''}" if hidden > 0 else ""
        return f"Evaluation({len(self._rows)} queries: {shown}{more})"

    # The DataFrame (with pandas or polars installed) and what Jupyter
    # shows: the functions of irmetrics.frames and irmetrics.formats.
    to_dataframe = frames.evaluation_frame
    _repr_html_ = formats.evaluation_html

    # Pickling: the measures travel as the names they were parsed from
    # (parsed again on arrival, so that they are the registry's own objects);
    # the copies handed out stay behind.

    def __getstate__(self) -> Dict[str, Any]:
        state = {k: v for k, v in self.__dict__.items() if k not in _CACHED}
        state["measures"] = None
        return state

    def __setstate__(self, state: Dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.measures = tuple(parse_measures(list(self.names))) if self.names else ()

    @classmethod
    def merge(cls, parts: Iterable[Evaluation]) -> Evaluation:
        """Combine evaluations of disjoint sets of queries into the evaluation of the whole.

        Each part is :func:`evaluate` of one shard of a run (a file of a job
        array, a partition of a DataFrame), against the same qrels, with the
        same measures (the same names, in the same order) and the same
        options.  The result equals the evaluation of the whole run: the
        same per-query values, and every aggregate (means in trec_eval's
        order, ``gm_map``, counts such as ``num_q``) recomputed from the
        merged per-query values, never averaged from the parts' averages.
        ``skipped`` is every part's skipped queries; ``run_name`` the last
        part's that has one (a TREC file's is the tag of its last line).

        With ``complete=True``, each part scores as empty rankings the judged
        queries missing from *its* shard; the merge keeps those that are
        missing from every shard, and drops the others (another shard has
        them).

        A query id in the runs of two parts, parts with different measures
        or different options, and no parts at all are
        :class:`~irmetrics.errors.InvalidArgumentError`.

        >>> from irmetrics import evaluate
        >>> qrels = {"q1": {"d1": 1}, "q2": {"d2": 1}, "q3": {"d3": 1}}
        >>> a = evaluate(qrels, {"q1": {"d1": 1.0}}, ["map", "num_q"], complete=True)
        >>> b = evaluate(qrels, {"q2": {"d9": 1.0, "d2": 0.5}}, ["map", "num_q"], complete=True)
        >>> whole = Evaluation.merge([a, b])
        >>> whole.aggregate     # (1 + 1/2 + 0) / 3 queries, q3 missing from both
        {'map': 0.5, 'num_q': 3}
        >>> whole.missing
        ('q3',)
        """
        parts = list(parts)
        _check_parts(parts)
        rows, in_runs = _run_rows(parts)
        # Judged queries missing from a part's run (scored as empty rankings,
        # or left out): kept if no part's run has them.
        filled: Rows = {}
        missing: Set[str] = set()
        for part in parts:
            for qid in part.queries.filled:
                if qid not in in_runs:
                    filled.setdefault(qid, part._rows[qid])
            missing.update(q for q in part.missing if q not in in_runs)
        rows.update(filled)
        skipped = sorted(set(itertools.chain.from_iterable(p.skipped for p in parts)))
        moved = sorted(itertools.chain.from_iterable(p.tie_moved for p in parts))
        run_name = next((p.run_name for p in reversed(parts) if p.run_name), "")
        first = parts[0]
        queries = Queries(tuple(skipped), tuple(sorted(missing)), frozenset(filled), tuple(moved))
        return cls(first.names, first.measures, rows, run_name, first._options, queries,
                   first.max_label)


_CACHED = ("per_query", "aggregate")  # the cached_property copies handed out

#: How many measures ``repr(Evaluation)`` shows before saying how many more there are.
_REPR_MEASURES = 8


# === Merging ===================================================================


def _check_parts(parts: List[Evaluation]) -> None:
    """The parts are evaluations with the same measures, options and largest label."""
    if not parts:
        raise InvalidArgumentError("'parts' must hold at least one Evaluation (got none)")
    first = parts[0]
    for i, part in enumerate(parts):  # each compared with the first, checked first
        if not isinstance(part, Evaluation):
            raise InvalidArgumentError(
                f"'parts' must hold Evaluation objects (got {type(part).__name__} at {i})"
            )
        if part.names != first.names:
            raise InvalidArgumentError(
                f"parts 0 and {i} have different measures: "
                f"{list(first.names)} and {list(part.names)}"
            )
        ours, theirs = first.options, part.options
        for key in ours:
            if ours[key] != theirs[key]:
                raise InvalidArgumentError(
                    f"parts 0 and {i} were evaluated with different options: "
                    f"{key}={ours[key]!r} and {key}={theirs[key]!r}"
                )
        if part.max_label != first.max_label:
            raise InvalidArgumentError(
                f"parts 0 and {i} were scored with different largest relevance labels "
                f"({first.max_label} and {part.max_label}, read by measures such as "
                "ERR): evaluate every part against the same qrels"
            )


def _run_rows(parts: List[Evaluation]) -> Tuple[Rows, Dict[str, int]]:
    """The rows of the queries of each part's run, and the part of each query
    of the parts' runs, scored or skipped: the parts' runs must be disjoint."""
    rows: Rows = {}
    part_of: Dict[str, int] = {}
    for i, part in enumerate(parts):
        filled = part.queries.filled
        mine = {q: r for q, r in part._rows.items() if q not in filled} if filled else part._rows
        ids = [*mine, *part.skipped]
        if not part_of.keys().isdisjoint(ids):
            qid = next(q for q in ids if q in part_of)
            raise InvalidArgumentError(
                f"query {qid!r} is in parts {part_of[qid]} and {i}: "
                "merged parts must hold disjoint sets of queries"
            )
        part_of.update(dict.fromkeys(ids, i))
        rows.update(mine)
    return rows, part_of


# === Aggregates ================================================================


def aggregate(m: Measure, vals: List[Value], scored: List[bool], run_name: str,
              missing_evaluated: bool = True) -> Any:
    """The aggregate of one measure over the queries' values (in query order).

    *scored* tells, for each value, whether its query was in the run (False:
    a judged query that ``complete=True`` scored as an empty ranking).
    *missing_evaluated* False (trec_eval 9.0.8): such a query adds nothing
    to a trec_eval measure (its value counts 0), but to num_q and num_rel.
    trec_eval's measures add in trec_eval's order, left to right in doubles,
    so that the printed values are its own: the arithmetic mean adds the
    queries in query-id order; the geometric mean adds the logarithms of the
    queries in the run, then the floor's logarithm once for all the others.
    The measures trec_eval lacks use ``math.fsum``.
    """
    how = m.family.aggregate
    if how == "name":
        return run_name
    if how == "first":
        return vals[0]
    trec = m.family.trec is not None
    if not missing_evaluated and trec and m.family.key not in ("num_q", "num_rel"):
        vals = [v if s else 0 for v, s in zip(vals, scored)]
    if how == "sum":
        return int(sum(vals))
    if how == "gm":
        logs = [math.log(max(v, MIN_GEO_MEAN)) for v, s in zip(vals, scored) if s]
        total = _left_to_right(logs) if trec else math.fsum(logs)
        if len(logs) < len(vals):
            total += (len(vals) - len(logs)) * math.log(MIN_GEO_MEAN)
        return math.exp(total / len(vals))
    return (_left_to_right(vals) if trec else math.fsum(vals)) / len(vals)
