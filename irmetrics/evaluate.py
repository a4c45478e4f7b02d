"""evaluate(): per-query and aggregate scores of a run against qrels.

The semantics are trec_eval 9.0.8's: documents ranked by score descending,
ties broken by document id descending; documents absent from the qrels are
not relevant; negative qrels values mark documents that were pooled but not
judged; queries of the run without judgments are skipped (with a warning);
the aggregate is the mean over the queries evaluated (counts are summed,
``gm_map`` and ``gm_bpref`` are geometric means with trec_eval's floor).
"""

import math
import os
import warnings
from bisect import bisect_left as _bisect_left
from bisect import bisect_right as _bisect_right
from itertools import compress as _compress
from itertools import repeat as _repeat
from operator import is_not as _is_not
from typing import (
    TYPE_CHECKING,
    Any,
    Callable,
    Container,
    Dict,
    Iterable,
    List,
    Mapping,
    Optional,
    Sequence,
    Tuple,
    Union,
)

from . import _parallel
from ._checks import check_int
from ._gc import paused_gc
from .data import Qrels, Run
from .errors import InvalidArgumentError, IrmetricsWarning
from .measures import MIN_GEO_MEAN, Env, Measure, QueryData, parse_measures
from .ties import TIES_KEY, TieInfo, check_measure, check_ties, supports, tie_value
from .trec import RunNotGrouped, RunStream

if TYPE_CHECKING:
    from .trec import PathOrFile

__all__ = ["evaluate", "Evaluation"]

Value = Union[int, float]


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
    ``complete=True``, else left out).
    """

    def __init__(
        self,
        names: Sequence[str],
        measures: Sequence[Measure],
        keys: Sequence[str],
        rows: Dict[str, Sequence[Value]],
        aggregate: Dict[str, Value],
        skipped: Tuple[str, ...],
        missing: Tuple[str, ...],
        run_name: str,
        complete: bool,
    ) -> None:
        self.names = tuple(names)
        self.measures = tuple(measures)
        # {qid: values in the order of keys}, qids sorted: the dicts of dicts
        # are made from it when first read
        self._keys = tuple(keys)
        self._rows = rows
        self._aggregate = aggregate
        self._table: Optional[Dict[str, Dict[str, Value]]] = None
        self._per_query_copy: Optional[Dict[str, Dict[str, Value]]] = None
        self._aggregate_copy: Optional[Dict[str, Value]] = None
        self.skipped = skipped
        self.missing = missing
        self.run_name = run_name
        self.complete = complete

    def _dicts(self) -> Dict[str, Dict[str, Value]]:
        keys = self._keys
        return {q: dict(zip(keys, row)) for q, row in self._rows.items()}

    @property
    def _per_query(self) -> Dict[str, Dict[str, Value]]:
        """The per-query table the library itself reads (never handed out)."""
        if self._table is None:
            self._table = self._dicts()
        return self._table

    @property
    def per_query(self) -> Dict[str, Dict[str, Value]]:
        if self._per_query_copy is None:
            self._per_query_copy = self._dicts()
        return self._per_query_copy

    @property
    def aggregate(self) -> Dict[str, Value]:
        if self._aggregate_copy is None:
            self._aggregate_copy = dict(self._aggregate)
        return self._aggregate_copy

    def __getitem__(self, name: str) -> Value:
        return self._aggregate[name]

    def to_dict(self) -> Dict[str, Any]:
        """Everything as plain data (what ``--format json`` prints)."""
        return {
            "run": self.run_name,
            "measures": list(self.names),
            "aggregate": dict(self._aggregate),
            "per_query": self._dicts(),
            "skipped_queries": list(self.skipped),
            "missing_queries": list(self.missing),
            "complete": self.complete,
        }

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={v:.4f}" if isinstance(v, float) else f"{k}={v}"
                          for k, v in list(self._aggregate.items())[:4])
        more = ", ..." if len(self._aggregate) > 4 else ""
        return f"Evaluation({len(self._rows)} queries: {shown}{more})"


def _as_qrels(qrels: Any) -> Qrels:
    if isinstance(qrels, Qrels):
        return qrels
    if isinstance(qrels, Mapping):
        return Qrels.from_dict(qrels)
    if _is_source(qrels):
        return Qrels.from_trec(qrels)
    raise InvalidArgumentError(
        f"'qrels' must be a Qrels, a dict of dicts or a TREC file (got {type(qrels).__name__})"
    )


def _is_source(x: Any) -> bool:
    return isinstance(x, (str, os.PathLike)) or callable(getattr(x, "read", None))


def _as_run(run: Any) -> Run:
    if isinstance(run, Run):
        return run
    if isinstance(run, Mapping):
        return Run.from_dict(run)
    raise InvalidArgumentError(
        f"'run' must be a Run, a dict of dicts or a TREC file (got {type(run).__name__})"
    )


def _levels(judgments: Mapping[Any, int]) -> Tuple[Dict[int, int], bool]:
    """Judged documents per relevance value >= 0, and whether any is negative."""
    levels: Dict[int, int] = {}
    negative = False
    for v in judgments.values():
        if v >= 0:
            levels[v] = levels.get(v, 0) + 1
        else:
            negative = True
    return levels, negative


def _finish_labels(
    labels: List[Optional[int]], negative: bool, judged_only: bool
) -> List[Optional[int]]:
    if negative:  # pooled but unjudged: one marker value, -1
        labels = [-1 if x is not None and x < 0 else x for x in labels]
    if judged_only:
        labels = [x for x in labels if x is not None and x >= 0]
    return labels


def query_data(
    judgments: Mapping[Any, int],
    ranking: Sequence[Any],
    *,
    depth: Optional[int] = None,
    judged_only: bool = False,
) -> QueryData:
    """Turn one query's judgments and ranked document ids into labels.

    *ranking* holds document ids in evaluation order, of the same type
    (``str`` or ``bytes``) as the keys of *judgments*.
    """
    if depth is not None and len(ranking) > depth:
        ranking = ranking[:depth]
    levels, negative = _levels(judgments)
    labels = _finish_labels(list(map(judgments.get, ranking)), negative, judged_only)
    return QueryData(labels, levels)


def query_data_from_scores(
    judgments: Mapping[Any, int],
    docids: Sequence[Any],
    scores: Sequence[float],
    *,
    depth: Optional[int] = None,
    judged_only: bool = False,
    members: Optional[Container[Any]] = None,
) -> QueryData:
    """:func:`query_data` for one query's unsorted documents, without sorting them all.

    Only the judged documents' ranks matter, and a document's rank is one
    plus the number of documents above it: those with a higher score, and
    those with an equal score and a greater id (trec_eval's order, as in
    :func:`~irmetrics.trec.rank_documents`).  The scores are sorted once, as
    plain floats, and each judged document is placed by bisection.  The result
    equals ``query_data(judgments, rank_documents(docids, scores), ...)``; the
    tests check that.  *members*, the set of *docids*, lets the judged
    documents be looked up one by one (usually far fewer than the ranked
    ones).
    """
    judged: List[Tuple[int, int]]
    if members is None:
        raw: List[Any] = list(map(judgments.get, docids))
        judged = [(i, raw[i]) for i in _compress(range(len(raw)), map(_is_not, raw, _repeat(None)))]
    else:
        hits = [(d, v) for d, v in judgments.items() if d in members]
        if len(hits) > 8:  # many: one dict beats a scan of the list for each
            at = dict(zip(docids, range(len(docids)))).__getitem__
        else:
            at = docids.index
        judged = [(at(d), v) for d, v in hits]
    n = len(docids) if depth is None else min(len(docids), depth)
    levels, _ = _levels(judgments)
    placed: List[Tuple[int, int]] = []
    # (block start, block size, label) of each judged document in a block of
    # tied scores: what irmetrics.ties needs to reorder the blocks
    blocks: List[Tuple[int, int, int]] = []
    if judged:
        ascending = sorted(scores)
        total = len(ascending)
        tied: List[Tuple[int, int, int, int]] = []  # (index, label, start, size)
        for i, label in judged:
            s = scores[i]
            above = total - _bisect_right(ascending, s)
            size = total - above - _bisect_left(ascending, s)
            label = -1 if label < 0 else label
            if size > 1:
                tied.append((i, label, above, size))
            elif above < n:
                placed.append((above, label))
        if tied:
            # Within a block of tied scores, a document's rank adds the number
            # of the block's documents with a greater id: each block's ids are
            # sorted once and bisected (one pass over the scores gathers them).
            blocks = [(above, 1, label) for above, label in placed]
            wanted: Dict[float, List[Any]] = {scores[i]: [] for i, _, _, _ in tied}
            for d, t in zip(docids, scores):
                ids = wanted.get(t)
                if ids is not None:
                    ids.append(d)
            for ids in wanted.values():
                ids.sort()
            for i, label, above, size in tied:
                if above >= n:
                    continue
                ids = wanted[scores[i]]
                rank = above + size - _bisect_right(ids, docids[i])
                if rank < n:
                    placed.append((rank, label))
                blocks.append((above, size, label))
        placed.sort()
    if judged_only:
        data = QueryData([x for _, x in placed if x >= 0], levels)
    else:
        data = QueryData.sparse(n, placed, levels)
    if blocks:
        # only when a judged document is tied with another document
        blocks.sort()
        data._cache[TIES_KEY] = TieInfo(len(docids), n, blocks)
    return data


def evaluate(
    qrels: Union[Qrels, Mapping[str, Mapping[str, int]], "PathOrFile"],
    run: Union[Run, Mapping[str, Mapping[str, float]], "PathOrFile"],
    measures: Union[str, Iterable[str]],
    *,
    relevance_level: int = 1,
    complete: bool = False,
    depth: Optional[int] = None,
    judged_only: bool = False,
    workers: Optional[int] = None,
    ties: str = "trec_eval",
) -> Evaluation:
    """Score *run* against *qrels* with trec_eval's semantics.

    qrels, run:
        :class:`~irmetrics.Qrels` and :class:`~irmetrics.Run` objects,
        dicts of dicts (pytrec_eval's form), or TREC files (paths or open
        files, gzip or not).  A run file is evaluated while it is read, one
        query at a time, in constant memory; a run whose queries are not
        grouped (a query's lines interrupted by another query's) is read
        whole into memory instead, with the same result.

    measures:
        Names in trec_eval's style (``map``, ``P_5``, ``ndcg_cut_10``) or
        ir_measures' (``AP``, ``P@5``, ``nDCG@10``, ``P(rel=2)@5``); see
        :mod:`irmetrics.measures`.  The result is keyed by the names given.
    relevance_level:
        Judgments ``>=`` this level are relevant for binary measures
        (trec_eval ``-l``); nDCG uses the judgments themselves as gains.
    complete:
        Average over every judged query, a query missing from the run scoring
        as an empty ranking (trec_eval ``-c``).  Otherwise only queries in both.
    depth:
        Evaluate only the top *depth* documents of each ranking (``-M``).
    judged_only:
        Drop unjudged documents from rankings before scoring (``-J``).
    workers:
        With a path to a plain run file, score it in up to this many
        processes (forked; Linux and other systems with ``fork``).  Results
        are the same as with one.  ``None`` (the default): two for a plain
        run file of 16 MB or more when the calling process runs no other
        threads, else one.
    ties:
        How documents with equal scores are ordered (see :mod:`irmetrics.ties`):
        ``"trec_eval"`` (the default: by document id, descending),
        ``"expected"`` (the exact mean over every order of the tied
        documents), ``"best"`` or ``"worst"`` (the maximum or minimum over
        them).  A measure a mode is not defined for is an error.

    Run queries that have no judgments are skipped, with an
    :class:`~irmetrics.errors.IrmetricsWarning` naming them.

    >>> qrels = {"q1": {"d1": 1, "d2": 0, "d3": 2}}
    >>> run = {"q1": {"d1": 0.9, "d2": 0.8, "d4": 0.7}}
    >>> result = evaluate(qrels, run, ["P@2", "map", "nDCG"])
    >>> result.aggregate["P@2"]
    0.5
    >>> round(result.aggregate["map"], 4)   # (1/1) / 2 relevant
    0.5
    """
    names = [measures] if isinstance(measures, str) else list(measures)
    parsed = parse_measures(names)
    check_ties(ties)
    for name, m in zip(names, parsed):
        check_measure(name, m, ties)
    for name, m in zip(names, parsed):
        if m.family.text:
            raise InvalidArgumentError(
                f"measure {name!r} is a text line of trec_eval's report, not a number; "
                "the command line prints it"
            )
    return _evaluate(
        qrels, run, [n.strip() for n in names], parsed,
        relevance_level=relevance_level, complete=complete, depth=depth,
        judged_only=judged_only, stacklevel=4, workers=workers, ties=ties,
    )


def _evaluate(
    qrels: Any,
    run: Any,
    names: Sequence[str],
    parsed: Sequence[Measure],
    *,
    relevance_level: int,
    complete: bool,
    depth: Optional[int],
    judged_only: bool,
    stacklevel: int = 2,
    progress: Optional[Callable[[int, int], None]] = None,
    workers: Optional[int] = None,
    ties: str = "trec_eval",
    detect_ties: bool = False,
) -> Evaluation:
    level = check_int(relevance_level, "relevance_level", 1)
    if workers is not None:
        workers = check_int(workers, "workers", 1)
    if depth is not None:
        depth = check_int(depth, "depth", 1)
    if not isinstance(complete, bool):
        raise InvalidArgumentError(f"'complete' must be a bool (got {complete!r})")
    if not isinstance(judged_only, bool):
        raise InvalidArgumentError(f"'judged_only' must be a bool (got {judged_only!r})")
    # The cyclic collector is off while the tables are built (see _gc).
    with paused_gc():
        q = _as_qrels(qrels)
        unique = list(dict.fromkeys(parsed))

        def new_scorer() -> "_Scorer":
            return _Scorer(q, unique, level, depth, judged_only, ties, detect_ties)

        scorer = new_scorer()
        in_memory = isinstance(run, (Run, Mapping)) or not _is_source(run)
        processes = 1
        if not in_memory:
            processes = _parallel.auto_workers(run) if workers is None else workers
        if in_memory:
            scorer.add_run(_as_run(run))
        elif processes > 1 and _parallel.parallel_possible(run):
            got = _parallel.score_in_parallel(os.fspath(run), new_scorer, processes, progress)
            if got is None:  # not grouped by query: the whole run in memory
                scorer.add_run(Run.from_trec(run))
            else:
                scorer.values, seen, scorer.skipped, scorer.run_name = got
                scorer.seen = dict.fromkeys(seen)
        else:
            stream = RunStream(run)
            try:
                scorer.add_stream(stream, progress)
            except RunNotGrouped:
                # The documented slower route: the whole run in memory.
                scorer = new_scorer()
                scorer.add_run(Run.from_trec(stream.rewind()))

        skipped = tuple(sorted(scorer.skipped))
        missing = tuple(sorted(qid for qid in q if qid not in scorer.seen))
        if skipped:
            shown = ", ".join(repr(s) for s in skipped[:5]) + (", ..." if len(skipped) > 5 else "")
            warnings.warn(
                f"{len(skipped)} run quer{'y has' if len(skipped) == 1 else 'ies have'} no "
                f"judgments and {'was' if len(skipped) == 1 else 'were'} skipped: {shown}",
                IrmetricsWarning,
                stacklevel=stacklevel,
            )
        if complete:
            for qid in missing:
                scorer.add(qid, [])
        evaluated = sorted(scorer.values)
        if not evaluated:
            raise InvalidArgumentError(
                "no query is both in the run and in the qrels "
                f"(run: {_sample(scorer.seen)}; qrels: {_sample(q)})"
            )
        # One column per name asked for (a name asked twice counts once).
        index = {m: i for i, m in enumerate(unique)}
        keys: List[str] = []
        cols: List[int] = []
        for name, m in zip(names, parsed):
            if name not in keys:
                keys.append(name)
                cols.append(index[m])
        values = scorer.values
        rows: Dict[str, Sequence[Value]]
        if cols == list(range(len(unique))):
            rows = {qid: values[qid] for qid in evaluated}
        else:
            rows = {qid: [values[qid][c] for c in cols] for qid in evaluated}
        columns = list(zip(*rows.values()))
        filled = set(missing) if complete else set()
        scored = [qid not in filled for qid in rows]
        aggregate = {key: _aggregate(unique[col], list(column), scored, scorer.run_name)
                     for key, col, column in zip(keys, cols, columns)}
        result = Evaluation(
            names, parsed, keys, rows, aggregate, skipped, missing, scorer.run_name, complete
        )
        result._tie_moved = tuple(sorted(scorer.tie_moved))  # type: ignore[attr-defined]
        return result


class _Scorer:
    """Scores queries one at a time; keeps only the values."""

    def __init__(
        self,
        qrels: Qrels,
        measures: Sequence[Measure],
        level: int,
        depth: Optional[int],
        judged_only: bool,
        ties: str = "trec_eval",
        detect_ties: bool = False,
    ) -> None:
        self.qrels = qrels
        self.measures = measures
        # each measure's function, found once
        self._computes = [(m.family.compute, m) for m in measures]
        self.level = level
        # the largest label, for measures with a max_label option left unset
        needs_max = any("max_label" in m.family.options and m.option("max_label") is None
                        for m in measures)
        self.max_label = _max_label(qrels) if needs_max else 0
        self.depth = depth
        self.judged_only = judged_only
        self.run_name = ""
        self.values: Dict[str, List[Value]] = {}
        self.seen: Dict[str, None] = {}
        self.skipped: List[str] = []
        self._env: Optional[Env] = None
        # tie-aware evaluation (irmetrics.ties): the mode, and whether to
        # note the queries whose values move with the order of tied scores
        self.ties = ties
        self.detect_ties = detect_ties
        self.tie_moved: List[str] = []

    def add(self, qid: str, ranking: Sequence[Any]) -> None:
        """Score one query from its ranked document ids (``str``)."""
        judged = self.qrels.get(qid)
        if judged is None:
            self.seen[qid] = None
            self.skipped.append(qid)
            return
        self._score(qid, query_data(judged, ranking, depth=self.depth,
                                    judged_only=self.judged_only))

    def add_run(self, run: Run) -> None:
        self.run_name = run.name
        scored = self.ties != "trec_eval" or self.detect_ties
        for qid in sorted(run):
            if scored:  # the tie blocks come from the scores
                self._add_scored(qid, run[qid])
            else:
                self.add(qid, run.ranking(qid))

    def _add_scored(self, qid: str, scores: Mapping[str, float]) -> None:
        judged = self.qrels.get(qid)
        if judged is None:
            self.seen[qid] = None
            self.skipped.append(qid)
            return
        docids = list(scores)
        self._score(qid, query_data_from_scores(
            judged, docids, [scores[d] for d in docids], depth=self.depth,
            judged_only=self.judged_only))

    def _score(self, qid: str, data: QueryData) -> None:
        self.seen[qid] = None
        env = self._env
        if env is None or env.run_name != self.run_name:
            env = self._env = Env(self.level, self.max_label, self.run_name)
        self.values[qid] = [f(data, m, env) for f, m in self._computes]
        info = data._cache.get(TIES_KEY) if self.ties != "trec_eval" or self.detect_ties else None
        if info is not None:  # a judged document is tied with another document
            self._score_ties(qid, data, info, env)

    def _score_ties(self, qid: str, data: QueryData, info: TieInfo, env: Env) -> None:
        if self.ties != "trec_eval":
            self.values[qid] = [tie_value(self.ties, m, data, info, env, self.judged_only)
                                for _, m in self._computes]
        if self.detect_ties:
            for _, m in self._computes:
                if supports(m, "best") and m.family.key not in ("num_q", "num_ret", "num_rel") \
                        and tie_value("best", m, data, info, env, self.judged_only) != \
                        tie_value("worst", m, data, info, env, self.judged_only):
                    self.tie_moved.append(qid)
                    break

    def add_stream(
        self, stream: RunStream, progress: Optional[Callable[[int, int], None]]
    ) -> None:
        judgments_of = self.qrels._data.get  # the plain dict under the read-only views
        depth, judged_only = self.depth, self.judged_only
        done = 0
        for qid, docids, scores in stream:
            self.run_name = stream.tag or ""
            judged = judgments_of(qid)
            if judged is None:
                self.seen[qid] = None
                self.skipped.append(qid)
                continue
            encoded = {d.encode("utf-8"): v for d, v in judged.items()}
            self._score(qid, query_data_from_scores(
                encoded, docids, scores, depth=depth, judged_only=judged_only,
                members=stream.members,
            ))
            done += 1
            if progress is not None:
                progress(done, stream.lines)
        self.run_name = stream.tag or ""


def _aggregate(m: Measure, vals: List[Value], scored: List[bool], run_name: str) -> Value:
    """The aggregate of one measure over the queries' values (in query order).

    *scored* tells, for each value, whether its query was in the run (False:
    a judged query that ``complete=True`` scored as an empty ranking).
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
    if how == "sum":
        return int(sum(vals))
    trec = m.family.trec is not None
    if how == "gm":
        logs = [math.log(max(v, MIN_GEO_MEAN)) for v, s in zip(vals, scored) if s]
        total = _left_to_right(logs) if trec else math.fsum(logs)
        if len(logs) < len(vals):
            total += (len(vals) - len(logs)) * math.log(MIN_GEO_MEAN)
        return math.exp(total / len(vals))
    return (_left_to_right(vals) if trec else math.fsum(vals)) / len(vals)


def _left_to_right(vals: Iterable[Value]) -> float:
    # C's loop: plain double additions in order.  Not sum(), which Python
    # 3.12 and later compensate (Neumaier) when adding floats.
    total = 0.0
    for v in vals:
        total += v
    return total


def _max_label(qrels: Qrels) -> int:
    top = 0
    for judged in qrels.values():
        for v in judged.values():
            if v > top:
                top = v
    return top


def _sample(mapping: Mapping[str, Any]) -> str:
    ids = sorted(mapping)[:3]
    if not ids:
        return "no queries"
    return ", ".join(repr(i) for i in ids) + (", ..." if len(mapping) > 3 else "")
