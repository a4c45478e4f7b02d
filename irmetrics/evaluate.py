"""evaluate(): per-query and aggregate scores of a run against qrels.

The semantics are trec_eval 9.0.8's: documents ranked by score descending,
ties broken by document id descending; documents absent from the qrels are
not relevant; negative qrels values mark documents that were pooled but not
judged; queries of the run without judgments are skipped (with a warning);
the aggregate is the mean over the queries evaluated (counts are summed,
``gm_map`` and ``gm_bpref`` are geometric means with trec_eval's floor).
"""

from __future__ import annotations

import functools
import itertools
import math
import os
import sys
from array import array
from bisect import bisect_left as _bisect_left
from bisect import bisect_right as _bisect_right
from operator import itemgetter
from typing import (
    TYPE_CHECKING,
    Any,
    Callable,
    Container,
    Dict,
    Iterable,
    List,
    Mapping,
    NamedTuple,
    Optional,
    Sequence,
    Set,
    Tuple,
    Union,
    cast,
)

from . import _parallel, frames
from . import diversity as _diversity
from ._checks import check_int
from ._gc import paused_gc
from ._text import quoted
from .data import Qrels, Run
from .errors import DuplicateEntryError, InvalidArgumentError, _warn
from .measures import (
    MIN_GEO_MEAN,
    Env,
    Measure,
    QueryData,
    measure_names,
    parse_measures,
    prepared_row,
)
from .sources import RunSource, is_file_source, open_qrels, open_run
from .ties import TIES_KEY, TieInfo, check_measure, check_ties, tie_note_test, tie_value

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
        keys: Sequence[str],
        rows: Dict[str, Sequence[Value]],
        aggregate: Dict[str, Value],
        skipped: Tuple[str, ...],
        missing: Tuple[str, ...],
        run_name: str,
        complete: bool,
        *,
        relevance_level: int = 1,
        depth: Optional[int] = None,
        judged_only: bool = False,
        max_label: int = 0,
        filled: Optional[Iterable[str]] = None,
        scores: str = "float64",
        ties: str = "trec_eval",
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
        # What the aggregates and merge() need besides the rows: the options,
        # the largest label (0 unless a measure reads it), and the rows that
        # are judged queries missing from the run, scored as empty rankings.
        self._options = (relevance_level, depth, judged_only)
        self._scoring = {"scores": scores, "ties": ties}
        self._max_label = max_label
        self._filled = frozenset((missing if complete else ()) if filled is None else filled)

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

    @property
    def options(self) -> Dict[str, Any]:
        """The options of :func:`evaluate` this evaluation was computed with.

        >>> evaluate({"q1": {"d1": 1}}, {"q1": {"d1": 1.0}}, "map", depth=100).options
        {'relevance_level': 1, 'complete': False, 'depth': 100, 'judged_only': False, \
'scores': 'float64', 'ties': 'trec_eval'}
        """
        level, depth, judged_only = self._options
        return {"relevance_level": level, "complete": self.complete, "depth": depth,
                "judged_only": judged_only, **self._scoring}

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
        items = list(self._aggregate.items())
        shown = ", ".join(f"{k}={v:.4f}" if isinstance(v, float) else f"{k}={v}"
                          for k, v in items[:_REPR_MEASURES])
        hidden = len(items) - _REPR_MEASURES
        more = f", ... and {hidden} more measure{'s' if hidden > 1 else ''}" if hidden > 0 else ""
        return f"Evaluation({len(self._rows)} queries: {shown}{more})"

    # === DataFrames and notebooks (bodies in irmetrics.frames) ===

    def to_dataframe(self, *, backend: str = "pandas", aggregate: bool = False) -> Any:
        """The per-query values as a DataFrame: a ``query_id`` column, one column per measure.

        *backend*: ``"pandas"`` or ``"polars"`` (``pip install irmetrics[pandas]``
        or ``[polars]``).  ``aggregate=True``: the aggregate instead, one row
        whose ``query_id`` is ``"all"``.  See
        :func:`irmetrics.frames.evaluation_frame`.
        """
        return frames.evaluation_frame(self, backend=backend, aggregate=aggregate)

    def _repr_html_(self) -> str:
        """What Jupyter shows: the aggregate values to four places, and the number of queries."""
        return frames.evaluation_html(self)


    # === Pickling ============================================================
    # The measures travel as the names they were parsed from (parsed again on
    # arrival, so that they are the registry's own objects and compare equal
    # to those of an evaluation made here); the cached copies stay behind.
    # The rows travel by column, a column of floats as the bytes of an array
    # of doubles (exact): a worker's part of 25,000 queries unpickles in a
    # quarter of the time of a dict of lists.

    def __getstate__(self) -> Dict[str, Any]:
        state = dict(self.__dict__)
        state["measures"] = None
        state["_table"] = state["_per_query_copy"] = state["_aggregate_copy"] = None
        state["_rows"] = None
        state["_packed"] = _pack_rows(self._rows, len(self._keys))
        return state

    def __setstate__(self, state: Dict[str, Any]) -> None:
        packed = state.pop("_packed", None)
        self.__dict__.update(state)
        if packed is not None:
            self._rows = _unpack_rows(*packed)
        self.measures = tuple(parse_measures(list(self.names))) if self.names else ()

    # === Merging =============================================================

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
        if not parts:
            raise InvalidArgumentError("'parts' must hold at least one Evaluation (got none)")
        for i, part in enumerate(parts):
            if not isinstance(part, Evaluation):
                raise InvalidArgumentError(
                    f"'parts' must hold Evaluation objects (got {type(part).__name__} at {i})"
                )
        first = parts[0]
        for i, part in enumerate(parts[1:], 1):
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
            if part._max_label != first._max_label:
                raise InvalidArgumentError(
                    f"parts 0 and {i} were scored with different largest relevance labels "
                    f"({first._max_label} and {part._max_label}, read by measures such as "
                    "ERR): evaluate every part against the same qrels"
                )
        # The queries of each part's run, scored or skipped, must be disjoint.
        # (Checked on the merged table itself, in C: no second table of
        # owners, which the largest merges could not afford.)
        rows: Dict[str, Sequence[Value]] = {}
        skipped_in: Dict[str, int] = {}
        for i, part in enumerate(parts):
            mine: Mapping[str, Sequence[Value]] = part._rows
            if part._filled:
                mine = {q: r for q, r in part._rows.items() if q not in part._filled}
            # (views on both sides: the shorter is the one walked)
            if not (rows.keys().isdisjoint(mine.keys())
                    and skipped_in.keys().isdisjoint(mine.keys())
                    and rows.keys().isdisjoint(part.skipped)
                    and skipped_in.keys().isdisjoint(part.skipped)):
                qid = next(q for q in itertools.chain(mine, part.skipped)
                           if q in rows or q in skipped_in)
                j = next(k for k, other in enumerate(parts)
                         if qid in other.skipped
                         or (qid in other._rows and qid not in other._filled))
                raise InvalidArgumentError(
                    f"query {qid!r} is in parts {j} and {i}: "
                    "merged parts must hold disjoint sets of queries"
                )
            rows.update(mine)
            skipped_in.update(dict.fromkeys(part.skipped, i))
        # Judged queries missing from a part's run, scored as empty rankings:
        # kept if no part's run has them.
        filled: Dict[str, Sequence[Value]] = {}
        for part in parts:
            for qid in part._filled:
                if qid in part._rows and qid not in rows and qid not in skipped_in:
                    filled.setdefault(qid, part._rows[qid])
        missing: Set[str] = set()
        for part in parts:
            missing.update(q for q in part.missing if q not in rows and q not in skipped_in)
        rows.update(filled)
        skipped = sorted(set(itertools.chain.from_iterable(p.skipped for p in parts)))
        run_name = ""
        for part in parts:
            run_name = part.run_name or run_name
        level, depth, judged_only = first._options
        return cls._build(
            first.names, first.measures, first._keys, rows, filled, tuple(skipped),
            tuple(sorted(missing)), run_name, first.complete, relevance_level=level,
            depth=depth, judged_only=judged_only, max_label=first._max_label,
            scores=first._scoring["scores"], ties=first._scoring["ties"],
        )

    @classmethod
    def _build(
        cls,
        names: Sequence[str],
        measures: Sequence[Measure],
        keys: Sequence[str],
        rows: Mapping[str, Sequence[Value]],
        filled: Iterable[str],
        skipped: Tuple[str, ...],
        missing: Tuple[str, ...],
        run_name: str,
        complete: bool,
        *,
        relevance_level: int,
        depth: Optional[int],
        judged_only: bool,
        max_label: int,
        scores: str = "float64",
        ties: str = "trec_eval",
        final: bool = True,
    ) -> Evaluation:
        """An evaluation from per-query rows (any order), its aggregates computed here.

        A dict of *rows* becomes the evaluation's own table (when in query-id
        order): the callers hand over a table they made for it.
        ``final=False`` makes a part that only :meth:`merge` reads: rows in
        the order given, no aggregates (the merge computes them, over the whole).
        """
        ordered: Dict[str, Sequence[Value]] = rows if isinstance(rows, dict) else dict(rows)
        if final:
            ids = sorted(ordered)
            # Rows read in query-id order (the usual run file) are kept as
            # they are (measured: 1.3 ms against 14 ms for the table made
            # again, 50,000 queries); else the ids sorted, then the rows
            # looked up (0.6 of the time of sorting (id, row) pairs, and
            # 2.6 MB less at the peak).
            if ids != list(ordered):
                ordered = {qid: ordered[qid] for qid in ids}
        filled = frozenset(filled)
        aggregate: Dict[str, Value] = {}
        if ordered and final:
            by_name = dict(zip(names, measures))
            scored = [qid not in filled for qid in ordered] if filled else [True] * len(ordered)
            # one column at a time (the whole table transposed at once was
            # 2 MB more at the peak for 50,000 queries, in the same time)
            aggregate = {key: _aggregate(by_name[key], list(map(itemgetter(c), ordered.values())),
                                         scored, run_name)
                         for c, key in enumerate(keys)}
        return cls(
            names, measures, keys, ordered, aggregate, skipped, missing, run_name, complete,
            relevance_level=relevance_level, depth=depth, judged_only=judged_only,
            max_label=max_label, filled=filled, scores=scores, ties=ties,
        )


_FLOATS = {float}


def _pack_rows(
    rows: Mapping[str, Sequence[Value]], width: int
) -> Tuple[List[str], List[Any]]:
    """``(qids, columns)``: a column of floats as the bytes of an array of
    doubles, any other column (counts, text) as a list."""
    columns: List[Any] = []
    for values in zip(*rows.values()) if rows else [()] * width:
        if set(map(type, values)) == _FLOATS:
            columns.append(array("d", values).tobytes())
        else:
            columns.append(list(values))
    return list(rows), columns


def _unpack_rows(qids: List[str], columns: List[Any]) -> Dict[str, Sequence[Value]]:
    """The rows :func:`_pack_rows` packed."""
    if not columns:
        return {qid: () for qid in qids}
    lists = [column if isinstance(column, list) else array("d", column).tolist()
             for column in columns]
    return dict(zip(qids, zip(*lists)))  # rows as tuples: read only, and smaller


#: How many measures ``repr(Evaluation)`` shows before saying how many more there are.
_REPR_MEASURES = 8


def _as_qrels(qrels: Any) -> Qrels:
    return open_qrels(qrels)[0]


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
    encode: bool = False,
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
    ones).  *encode*: the keys of *judgments* are ``str`` and the docids
    their UTF-8 ``bytes`` (a run read from a file).
    """
    judged: List[Tuple[int, int]] = []
    if members is None:
        if encode:
            judgments = {d.encode("utf-8"): v for d, v in judgments.items()}
        judged = [(i, v) for i, v in enumerate(map(judgments.get, docids)) if v is not None]
    else:
        # one loop (measured: 0.8 of 7.1 us a query less than a table of
        # encoded judgments and two comprehensions, 100 ranked, 2.8 judged)
        at: Callable[[Any], int] = docids.index
        for d, v in judgments.items():
            if encode:
                d = d.encode()
            if d in members:
                if len(judged) == 8:  # many: one dict beats a scan of the list for each
                    at = dict(zip(docids, range(len(docids)))).__getitem__
                judged.append((at(d), v))
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
            right = _bisect_right(ascending, s)
            above = total - right
            label = -1 if label < 0 else label
            # tied with another document when the score before its last is
            # no smaller (one bisection for the others: measured, a query of
            # the wide run ranked in 4.59 against 5.03 us, with encode() above)
            if right > 1 and not ascending[right - 2] < s:
                tied.append((i, label, above, right - _bisect_left(ascending, s)))
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
    qrels: Union[Qrels, Mapping[str, Mapping[str, int]], PathOrFile],
    run: Union[Run, Mapping[str, Mapping[str, float]], PathOrFile],
    measures: Union[str, Iterable[str]],
    *,
    relevance_level: int = 1,
    complete: bool = False,
    depth: Optional[int] = None,
    judged_only: bool = False,
    workers: Optional[int] = None,
    scores: str = "float64",
    ties: str = "trec_eval",
) -> Evaluation:
    """Score *run* against *qrels* with trec_eval's semantics.

    qrels, run:
        :class:`~irmetrics.Qrels` and :class:`~irmetrics.Run` objects,
        dicts of dicts (pytrec_eval's form), DataFrames (pandas, polars,
        pyarrow; columns by name, see :mod:`irmetrics.frames`), or TREC
        files (paths or open files, gzip or not).  A run file is evaluated while it is read, one
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
        Evaluate only the top *depth* documents of each ranking (``-M``);
        0 evaluates every query of the run with nothing retrieved, as
        trec_eval's ``-M 0`` does.
    judged_only:
        Drop unjudged documents from rankings before scoring (``-J``).
    workers:
        With a path to a plain run file, score it in up to this many
        processes (on POSIX systems: forked from a process with one
        thread; spawned where other threads run, for files of 32 MB or
        more).  Results are the same as with one.  ``None`` (the default):
        two for a plain run file of 2 MB or more when the calling process
        runs no other threads, else one.
    scores:
        ``"float64"`` (the default): scores are compared as doubles, as
        trec_eval 9.0.8 (tag ``trec_eval-9.0.8``) stores them.
        ``"float32"``: scores are first rounded to single precision, as the
        float builds store them (tag ``v9.0.8``, and the copy inside
        pytrec-eval-terrier), so that scores equal in single precision tie;
        this reproduces pytrec_eval's numbers exactly.
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
    names = measure_names(measures)
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
        judged_only=judged_only, workers=workers, scores=scores, ties=ties,
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
    progress: Optional[Callable[[int, int], None]] = None,
    workers: Optional[int] = None,
    scores: str = "float64",
    ties: str = "trec_eval",
    detect_ties: bool = False,
) -> Evaluation:
    level = check_int(relevance_level, "relevance_level", 1)
    if scores not in ("float64", "float32"):
        raise InvalidArgumentError(
            f"'scores' must be 'float64' or 'float32' (got {scores!r})"
        )
    float32 = scores == "float32"
    if workers is not None:
        workers = check_int(workers, "workers", 1)
    if depth is not None:
        depth = check_int(depth, "depth", 0)
    if not isinstance(complete, bool):
        raise InvalidArgumentError(f"'complete' must be a bool (got {complete!r})")
    if not isinstance(judged_only, bool):
        raise InvalidArgumentError(f"'judged_only' must be a bool (got {judged_only!r})")
    # The cyclic collector is off while the tables are built (see _gc).
    with paused_gc():
        q, qrels_duplicates = open_qrels(qrels)
        layout = _layout(names, parsed, complete, scores, ties)
        unique = layout.unique
        needs_max = any("max_label" in m.family.options and m.option("max_label") is None
                        for m in unique)
        max_label = _max_label(q) if needs_max else 0

        # (a partial, not a closure: spawned workers are sent it pickled)
        new_scorer: Callable[[], _Scorer] = functools.partial(
            _Scorer, q, unique, level, depth, judged_only, float32, ties, detect_ties,
            max_label=max_label)

        # The one road: a source of query groups, the scorer, an Evaluation
        # part; one process scores one part, parallel workers one part each
        # (of a range of the file), and Evaluation.merge makes the whole.
        # The scorer only ranks by the scores: a file's may come as exact
        # integer keys (cheaper to read), except where they are rounded to
        # single precision first.
        score = functools.partial(_score_part, new_scorer, layout)
        source = open_run(run, keep_duplicates=True, order_keys=not float32)
        parts: Optional[List[_Part]] = None
        if is_file_source(run):
            processes = _parallel.auto_workers(run) if workers is None else workers
            if processes > 1 and _parallel.parallel_possible(run):
                parts = _parallel.score_in_parallel(os.fsdecode(run), score, processes, progress,
                                                    order_keys=not float32)
        if parts is None:  # one process (or a run not grouped by query)
            parts = [score(source, progress)]
        return _whole(q, qrels_duplicates, parts, layout, new_scorer)


class _Layout(NamedTuple):
    """What makes an Evaluation of a scorer's values: the names asked for and
    their measures, the distinct measures scored (``unique``), the columns
    kept (one per distinct name, as indexes into ``unique``), the options."""

    names: Tuple[str, ...]
    measures: Tuple[Measure, ...]
    unique: Tuple[Measure, ...]
    keys: Tuple[str, ...]
    cols: Tuple[int, ...]
    complete: bool
    scores: str
    ties: str


def _layout(
    names: Sequence[str], parsed: Sequence[Measure], complete: bool, scores: str, ties: str
) -> _Layout:
    unique = tuple(dict.fromkeys(parsed))
    index = {m: i for i, m in enumerate(unique)}
    keys: List[str] = []
    cols: List[int] = []
    for name, m in zip(names, parsed):  # a name asked twice counts once
        if name not in keys:
            keys.append(name)
            cols.append(index[m])
    return _Layout(tuple(names), tuple(parsed), unique, tuple(keys), tuple(cols), complete,
                   scores, ties)


class _Part(NamedTuple):
    """One process's share of an evaluation: the Evaluation of the queries it
    scored, the duplicates it let pass (to be warned about) and the queries
    whose values tied scores move (the command line's note)."""

    evaluation: Evaluation
    ignored: List[Tuple[DuplicateEntryError, str]]
    tie_moved: List[str]


def _score_part(
    new_scorer: Callable[[], _Scorer],
    layout: _Layout,
    source: RunSource,
    progress: Optional[Callable[[int, int], None]] = None,
) -> _Part:
    """Score every query of *source*: the same in one process and in each worker."""
    scorer = new_scorer()
    scorer.consume(source, progress)
    return _Part(scorer.part(layout), scorer.ignored_duplicates, scorer.tie_moved)


def _whole(
    qrels: Qrels,
    qrels_duplicates: Sequence[DuplicateEntryError],
    parts: Sequence[_Part],
    layout: _Layout,
    new_scorer: Callable[[], _Scorer],
) -> Evaluation:
    """The evaluation of the whole run from its parts: the warnings, the
    judged queries the run lacks (scored as empty rankings with ``complete``),
    the checks, then :meth:`Evaluation.merge`."""
    for part in parts:
        for error, why in part.ignored:
            _warn(f"{error}; trec_eval does not look at it, and neither does irmetrics: {why}")
    run_parts = [part.evaluation for part in parts]
    skipped = sorted(set(itertools.chain.from_iterable(e.skipped for e in run_parts)))
    if skipped:
        shown = ", ".join(repr(s) for s in skipped[:5]) + (", ..." if len(skipped) > 5 else "")
        _warn(
            f"{len(skipped)} run quer{'y has' if len(skipped) == 1 else 'ies have'} no "
            f"judgments and {'was' if len(skipped) == 1 else 'were'} skipped: {shown}"
        )
    # The judged queries missing from the run: one more part, whose rows (with
    # complete=True) are empty rankings; it carries the run's name, which
    # runid reads.
    # Only judged queries are scored, and the parts' are disjoint (one part,
    # or the parallel jobs' checked by _parallel): as many as the qrels hold
    # is all of them, and none is missing.
    missing: List[str] = []
    if sum(len(e._rows) for e in run_parts) != len(qrels._data):
        present = set(skipped).union(*(e._rows.keys() for e in run_parts))
        # (the qrels' ids walked in C: 2.2 ms against 3.3 for the difference
        # of two sets, 50,000 queries)
        missing = sorted(itertools.filterfalse(present.__contains__, qrels._data))
    rest = new_scorer()
    for e in run_parts:
        rest.run_name = e.run_name or rest.run_name
    if layout.complete:
        for qid in missing:
            rest.add(qid, [])
    run_parts.append(rest.part(layout, filled=missing if layout.complete else (),
                               missing=missing))
    for error in qrels_duplicates:
        if any(error.qid in e._rows for e in run_parts):  # a judgment that would count twice
            raise error
        _warn(f"{error}; trec_eval does not look at it, and neither does irmetrics: "
              "its query is not evaluated")
    if not any(e._rows for e in run_parts):
        seen = itertools.chain(skipped, *(e._rows for e in run_parts))
        raise InvalidArgumentError(
            "no query is both in the run and in the qrels "
            f"(run: {_sample(dict.fromkeys(seen))}; qrels: {_sample(qrels)})"
        )
    result = Evaluation.merge(run_parts)
    moved = itertools.chain.from_iterable(part.tie_moved for part in parts)
    result._tie_moved = tuple(sorted(moved))  # type: ignore[attr-defined]
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
        float32: bool = False,
        ties: str = "trec_eval",
        detect_ties: bool = False,
        *,
        max_label: Optional[int] = None,
    ) -> None:
        self.qrels = qrels
        self.float32 = float32
        self.measures = measures
        # the function of a query's data giving its values, made for the Env (below)
        self._row: Optional[Callable[[QueryData], List[Any]]] = None
        self.level = level
        # the largest label, for measures with a max_label option left unset
        if max_label is None:
            needs_max = any("max_label" in m.family.options and m.option("max_label") is None
                            for m in measures)
            max_label = _max_label(qrels) if needs_max else 0
        self.max_label = max_label
        self.depth = depth
        self.judged_only = judged_only
        self.run_name = ""
        self.values: Dict[str, List[Value]] = {}
        self.seen: Dict[str, None] = {}
        self.skipped: Dict[str, None] = {}  # (a dict: ordered, and a query counts once)
        # duplicates trec_eval never looks at (below the depth cut, or in a
        # query without judgments): (error, why it is harmless), warned about
        self.ignored_duplicates: List[Tuple[DuplicateEntryError, str]] = []
        self._env: Optional[Env] = None
        # diversity measures read the ranks of the judged documents too
        self._subtopics = any(m.family.metric in _diversity.__all__ for m in measures)
        # tie-aware evaluation (irmetrics.ties): the mode, and whether to
        # note the queries whose values move with the order of tied scores
        self.ties = ties
        self.detect_ties = detect_ties
        self.tie_moved: List[str] = []
        self._tie_note: Optional[Tuple[Env, Callable[[QueryData, TieInfo], bool]]] = None

    def part(
        self, layout: _Layout, filled: Sequence[str] = (), missing: Sequence[str] = ()
    ) -> Evaluation:
        """The Evaluation of the queries scored so far, one part of the whole
        for :meth:`Evaluation.merge`, which sorts the queries and computes the
        aggregates.  *filled*: the judged queries missing from the run that
        were scored as empty rankings; *missing*: every judged query missing
        from the run."""
        values, cols = self.values, layout.cols
        rows: Dict[str, Sequence[Value]]
        if cols == tuple(range(len(self.measures))):
            rows = cast(Dict[str, Sequence[Value]], values)  # the scorer's: its last use
        else:
            rows = {qid: [row[c] for c in cols] for qid, row in values.items()}
        return Evaluation._build(
            layout.names, layout.measures, layout.keys, rows, filled,
            tuple(sorted(self.skipped)), tuple(missing), self.run_name, layout.complete,
            relevance_level=self.level, depth=self.depth, judged_only=self.judged_only,
            max_label=self.max_label, scores=layout.scores, ties=layout.ties, final=False,
        )

    def add(self, qid: str, ranking: Sequence[Any]) -> None:
        """Score one query from its ranked document ids (``str``)."""
        judged = self.qrels.get(qid)
        if judged is None:
            self.seen[qid] = None
            self.skipped[qid] = None
            return
        data = query_data(judged, ranking, depth=self.depth, judged_only=self.judged_only)
        if self._subtopics:
            data.subtopics = self._subtopic_data(qid, lambda numbered: query_data(
                numbered, ranking, depth=self.depth, judged_only=self.judged_only))
        self._score(qid, data)

    def _subtopic_data(
        self, qid: str, rank: Callable[[Dict[str, int]], QueryData]
    ) -> Tuple[Mapping[str, Mapping[str, int]], List[Tuple[int, str]]]:
        """For the diversity measures: the query's judgments per subtopic and
        ``(rank index, doc id)`` of its judged ranked documents.  *rank* places
        judgments like the query's own; given each judged document's number
        as its label, it tells where each one is ranked, with the same order,
        depth and ``judged_only`` as every other measure."""
        flat = self.qrels._data[qid]
        if self.judged_only:  # every judged document shapes the ranks
            docs = list(flat)
            numbered = {d: (i if flat[d] >= 0 else -1) for i, d in enumerate(docs)}
        else:  # only documents relevant somewhere (label >= 1) gain anything
            docs = [d for d, v in flat.items() if v >= 1]
            numbered = dict(zip(docs, range(len(docs))))
        data = rank(numbered)
        got = data._placed if data._placed is not None else enumerate(data.labels)
        placed = [(i, docs[x]) for i, x in got if x is not None and x >= 0]
        return self.qrels._topics(qid), placed

    def _score(self, qid: str, data: QueryData) -> None:
        self.seen[qid] = None
        env = self._env
        row = self._row
        if env is None or row is None or env.run_name != self.run_name:
            env = self._env = Env(self.level, self.max_label, self.run_name)
            row = self._row = prepared_row(self.measures, env)
        self.values[qid] = row(data)
        info = data._cache.get(TIES_KEY) if self.ties != "trec_eval" or self.detect_ties else None
        if info is not None:  # a judged document is tied with another document
            self._score_ties(qid, data, info, env)

    def _score_ties(self, qid: str, data: QueryData, info: TieInfo, env: Env) -> None:
        if self.ties != "trec_eval":
            self.values[qid] = [tie_value(self.ties, m, data, info, env, self.judged_only)
                                for m in self.measures]
        if self.detect_ties:
            note = self._tie_note
            if note is None or note[0] is not env:  # made once (per run name)
                note = self._tie_note = (env, tie_note_test(self.measures, env,
                                                            self.judged_only))
            if note[1](data, info):
                self.tie_moved.append(qid)

    def consume(
        self, source: RunSource, progress: Optional[Callable[[int, int], None]] = None
    ) -> None:
        """Score every query of *source*, one group at a time (the one road)."""
        judgments_of = self.qrels._data.get  # the plain dict under the read-only views
        depth, judged_only = self.depth, self.judged_only
        encoded = source.encoded
        done = 0
        restarted = False
        members: Optional[Container[Any]]
        for qid, docids, scores in source:
            if source.restarted and not restarted:  # the run again, regrouped
                restarted = True
                self.values.clear()
                self.seen.clear()
                self.skipped.clear()
                self.ignored_duplicates.clear()
                done = 0
            judged: Optional[Mapping[Any, int]] = judgments_of(qid)
            if judged is None:
                self.seen[qid] = None
                self.skipped[qid] = None
                self.ignored_duplicates.extend(
                    (d, "its query has no judgments") for d in source.duplicates
                )
                continue
            if self.float32:
                scores = _as_float32(scores)
            members = source.members
            if source.duplicates:
                docids, scores = self._cut_duplicates(docids, scores, source.duplicates)
                members = None
            self.run_name = source.name
            data = query_data_from_scores(
                judged, docids, scores, depth=depth, judged_only=judged_only, members=members,
                encode=encoded,
            )
            if self._subtopics:
                data.subtopics = self._subtopic_data(qid, _ranker(
                    docids, scores, depth, judged_only, members, encoded))
            self._score(qid, data)
            done += 1
            if progress is not None:
                progress(done, source.lines)
        self.run_name = source.name

    def _cut_duplicates(
        self, docids: List[bytes], scores: List[float], found: List[DuplicateEntryError]
    ) -> Tuple[List[bytes], List[float]]:
        """One query's ranking cut at the depth, where some documents repeat.

        trec_eval sorts a query's documents, keeps the top ``-M`` and only
        then looks for duplicates: a repeat within the documents evaluated is
        an error (raised as the stream reported it), one below the cut is
        never seen (noted for a warning).  Returns the documents kept.
        """
        depth = self.depth
        if depth is None:
            raise found[0]
        order = sorted(range(len(docids)), key=lambda i: (scores[i], docids[i]), reverse=True)
        top = order[:depth]
        kept = [docids[i] for i in top]
        if len(set(kept)) != len(kept):
            counts: Dict[bytes, int] = {}
            for d in kept:
                counts[d] = counts.get(d, 0) + 1
            for error in found:
                if counts.get(error.docid.encode("utf-8"), 0) > 1:
                    raise error
        self.ignored_duplicates.extend((e, f"below the depth cut ({depth})") for e in found)
        return kept, [scores[i] for i in top]


def _as_float32(scores: List[float]) -> List[float]:
    """The scores rounded to single precision, as trec_eval's float builds store them."""
    return array("f", scores).tolist()


def _ranker(
    docids: Sequence[bytes],
    scores: Sequence[float],
    depth: Optional[int],
    judged_only: bool,
    members: Optional[Container[Any]],
    encoded: bool,
) -> Callable[[Dict[str, int]], QueryData]:
    # _Scorer._subtopic_data's *rank* for a query's group (docids bytes if encoded)
    def rank(numbered: Dict[str, int]) -> QueryData:
        return query_data_from_scores(
            numbered, docids, scores, depth=depth, judged_only=judged_only, members=members,
            encode=encoded,
        )

    return rank


def _aggregate(m: Measure, vals: List[Value], scored: List[bool], run_name: str) -> Any:
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
    # C's loop: plain double additions in order.  sum() adds so before
    # Python 3.12 (a tenth of the time of this loop); 3.12 and later
    # compensate (Neumaier) when adding floats.
    if _PLAIN_SUM:
        return sum(vals, 0.0)
    total = 0.0
    for v in vals:
        total += v
    return total


_PLAIN_SUM = sys.version_info < (3, 12)


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
    return ", ".join(map(quoted, ids)) + (", ..." if len(mapping) > 3 else "")
