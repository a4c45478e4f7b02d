"""evaluate(): per-query and aggregate scores of a run against qrels.

The semantics are trec_eval 9.0.8's: documents ranked by score descending,
ties broken by document id descending; documents absent from the qrels are
not relevant; negative qrels values mark documents that were pooled but not
judged; queries of the run without judgments are skipped (with a warning);
the aggregate is the mean over the queries evaluated (counts are summed,
``gm_map`` and ``gm_bpref`` are geometric means with trec_eval's floor).
"""

from __future__ import annotations

import itertools
import os
from array import array
from bisect import bisect_right as _bisect_right
from collections import Counter
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
    Tuple,
    Union,
)

from . import _parallel
from . import diversity as _diversity
from ._checks import check_int
from ._gc import paused_gc
from ._text import quoted
from ._tie_blocks import TIES_KEY, Block, TieInfo
from .data import Qrels, Run
from .errors import DuplicateEntryError, InvalidArgumentError, _warn
from .evaluation import Evaluation, Options, Queries, check_options
from .measures import (
    Env,
    Measure,
    QueryData,
    Subtopics,
    check_measure,
    check_version,
    measure_names,
    parse_measures,
    prepared_row,
    tie_note_test,
    tie_value,
)
from .prefs import Prefs, _judgment_prefs, count_prefs
from .sources import RunSource, open_qrels, open_run

if TYPE_CHECKING:
    from .trec import PathOrFile

__all__ = ["evaluate", "Evaluation"]

Value = Union[int, float]


def _as_qrels(qrels: Any) -> Qrels:
    return open_qrels(qrels)[0]


def _levels(judgments: Mapping[Any, int]) -> Tuple[Dict[int, int], bool]:
    """Judged documents per relevance value >= 0, and whether any is negative."""
    counts = Counter(judgments.values())
    levels = {v: c for v, c in counts.items() if v >= 0}
    return levels, len(levels) < len(counts)


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
    labels = list(map(judgments.get, ranking))
    if negative:  # pooled but unjudged: one marker value, -1
        labels = [-1 if x is not None and x < 0 else x for x in labels]
    if judged_only:
        labels = [x for x in labels if x is not None and x >= 0]
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
    tests check that.  *members*, the set of *docids*, lets a query with few
    judgments (MS MARCO's) look each one up instead of passing over the
    ranking.  *encode*: the keys of *judgments* are ``str`` and the docids
    their UTF-8 ``bytes`` (a run read from a file); the smaller of the two
    is converted to the other's type (UTF-8 keeps the order of the ids).
    """
    if encode and len(judgments) > len(docids):
        docids = list(map(bytes.decode, docids))
        members = None
    elif encode:
        judgments = {d.encode(): v for d, v in judgments.items()}
    # the positions of the judged documents: found in one pass over the
    # ranking (in C), or for a few judgments, each by a search of the list
    if members is not None and len(judgments) <= 8:
        judged = [docids.index(d) for d in judgments if d in members]
    else:
        judged = list(itertools.compress(range(len(docids)), map(judgments.__contains__, docids)))
    n = len(docids) if depth is None else min(len(docids), depth)
    levels, negative = _levels(judgments)
    if negative:  # pooled but unjudged: one label, -1
        judgments = {d: max(x, -1) for d, x in judgments.items()}
    placed: List[Tuple[int, int]] = []
    tied: List[Tuple[Any, float, int]] = []  # (doc id, score, documents not above it)
    if judged:
        ascending = sorted(scores)
        total = len(ascending)
        for i in judged:
            s = scores[i]
            right = _bisect_right(ascending, s)
            # tied with another document when the score before its last is no smaller
            if right > 1 and not ascending[right - 2] < s:
                tied.append((docids[i], s, right))
            elif total - right < n:
                placed.append((total - right, judgments[docids[i]]))
        if tied:
            # the judged documents alone in their block, and by start the
            # blocks of tied scores above n: what irmetrics.ties reorders
            single = placed[:]
            blocks: Dict[int, Block] = {}
            # Within a block of tied scores, a document's rank adds the number
            # of the block's documents with a greater id: each block's ids are
            # sorted once and bisected (one pass over the scores gathers them).
            wanted: Dict[float, List[Any]] = {s: [] for _, s, _ in tied}
            in_block = list(map(wanted.__contains__, scores))
            for d, t in zip(itertools.compress(docids, in_block),
                            itertools.compress(scores, in_block)):
                wanted[t].append(d)
            for ids in wanted.values():
                ids.sort()
            for d, s, right in tied:
                above = total - right
                if above >= n:
                    continue
                ids = wanted[s]
                label = judgments[d]
                rank = above + len(ids) - _bisect_right(ids, d)
                if rank < n:
                    placed.append((rank, label))
                blocks.setdefault(above, (above, len(ids), []))[2].append(label)
        placed.sort()
    data = QueryData.sparse(n, placed, levels, judged_only)
    if tied:  # only when a judged document is tied with another document
        for _, _, labels in blocks.values():
            labels.sort()
        data._cache[TIES_KEY] = TieInfo(n, sorted(blocks.values()), single)
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
    trec_eval: str = "9.0.8",
    costs: Optional[Mapping[str, Mapping[str, float]]] = None,
    collection_size: int = 0,
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
        processes (on POSIX systems, forked, and only from a process with
        one thread: where other threads run, one process scores it).
        Results are the same as with one.  ``None`` (the default):
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
    trec_eval:
        The version of trec_eval whose semantics irmetrics follows:
        ``"9.0.8"`` (the default) or ``"10.0"`` (see docs/trec_eval.md).
    costs:
        Each document's cost, ``{query: {document: cost}}``, for the C/W/L
        measures (:mod:`irmetrics.cwl`), as cwl-eval's cost file gives them;
        a document without one costs 1.
    collection_size:
        The number of documents in the collection (trec_eval ``-N``), which
        only ``utility``'s fourth coefficient reads (default 0).

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
    names, parsed, options = _checked(
        measures, relevance_level=relevance_level, complete=complete, depth=depth,
        judged_only=judged_only, scores=scores, ties=ties, trec_eval=trec_eval, costs=costs,
        collection_size=collection_size)
    return _evaluate(qrels, run, names, parsed, options, workers=workers)


def _checked(measures: Any, **options: Any) -> Tuple[List[str], List[Measure], Options]:
    """The names asked for (stripped), their measures and the options, checked
    once (for the engines too): each measure a number, with the ``ties``
    mode defined for it."""
    names = measure_names(measures)
    parsed = parse_measures(names)
    checked = check_options(**options)
    for name, m in zip(names, parsed):
        _check_measure(name, m, checked)
        if m.family.text:
            raise InvalidArgumentError(
                f"measure {name!r} is a text line of trec_eval's report, not a number; "
                "the command line prints it"
            )
    return [n.strip() for n in names], list(parsed), checked


def _check_measure(name: str, m: Measure, options: Options) -> None:
    """That measure *m* (named *name*) is defined under *options*: its ``ties``
    mode, with costs given or not, and the trec_eval version."""
    check_measure(name, m, options.ties, costs=options.costs is not None)
    check_version(name, m, options.trec_eval)


def _evaluate(
    qrels: Any,
    run: Any,
    names: Sequence[str],
    parsed: Sequence[Measure],
    options: Options,
    *,
    progress: Optional[Callable[[int, int], None]] = None,
    workers: Optional[int] = None,
) -> Evaluation:
    """:func:`evaluate` of measures already parsed, with options already checked."""
    if workers is not None:
        workers = check_int(workers, "workers", 1)
    # The cyclic collector is off while the tables are built (see _gc).
    with paused_gc():
        q, qrels_duplicates = open_qrels(qrels)
        road = _Road(q, names, parsed, options)
        source = open_run(run, keep_duplicates=True)
        parts: Optional[List[_Part]] = None
        processes = _parallel.auto_workers(run) if workers is None else workers
        if processes > 1 and _parallel.parallel_possible(run):  # a plain run file
            parts = _parallel.score_in_parallel(os.fsdecode(run), road.score, processes, progress)
        # else, or for a run not grouped by query: one process
        return road.whole(parts or [road.score(source, progress)], qrels_duplicates)


class _Part(NamedTuple):
    """One process's share of an evaluation: the Evaluation of the queries it
    scored and the duplicates it let pass (to be warned about)."""

    evaluation: Evaluation
    ignored: List[Tuple[DuplicateEntryError, str]]


def _computation(m: Measure) -> Tuple[Any, ...]:
    """What a measure's value depends on: its formula and tie support, its
    parameter and options (not how it is averaged, as map and gm_map differ)."""
    return (m.family.compute, m.family.ties, m.param, m.options)


class _Road:
    """The one road of every evaluation: a source of query groups, a scorer,
    an Evaluation part; one process scores one part, each parallel job (a
    range of the file) and each engine partition one, and :meth:`whole`
    makes the Evaluation of the parts.

    *names* are the names asked for and *parsed* their measures; the scorer
    makes each distinct computation once (measures that differ only in how
    they are averaged, as map and gm_map do, share one), and a part keeps
    the columns ``cols``, one per distinct name (a name asked twice counts once).
    """

    def __init__(
        self, qrels: Qrels, names: Sequence[str], parsed: Sequence[Measure], options: Options
    ) -> None:
        self.qrels = qrels
        self.names = tuple(names)
        self.measures = tuple(parsed)
        self.options = options
        first: Dict[Tuple[Any, ...], Measure] = {}
        for m in parsed:
            first.setdefault(_computation(m), m)
        self._unique = tuple(first.values())
        keys = list(first)
        by_name = dict(zip(names, parsed))
        self.cols = tuple(keys.index(_computation(m)) for m in by_name.values())
        self._max_label = _max_label(qrels, self._unique)

    def scorer(self) -> _Scorer:
        """A new scorer of the distinct measures."""
        return _Scorer(self.qrels, self._unique, self.options, max_label=self._max_label)

    def score(
        self, source: RunSource, progress: Optional[Callable[[int, int], None]] = None
    ) -> _Part:
        """Score every query of *source*: the same in one process and in each worker."""
        scorer = self.scorer()
        scorer.consume(source, progress)
        return _Part(scorer.part(self), scorer.ignored_duplicates)

    def whole(
        self,
        parts: Sequence[_Part],
        qrels_duplicates: Sequence[DuplicateEntryError] = (),
        run_name: str = "",
    ) -> Evaluation:
        """The evaluation of the whole run from its parts (one process's, the
        workers' or the engine partitions'): the warnings, the judged queries
        the run lacks (scored as empty rankings with ``complete``), the
        checks, then :meth:`Evaluation.merge`.  *run_name*: the run's name
        when no part has one."""
        for part in parts:
            for error, why in part.ignored:
                _warn(f"{error}; trec_eval does not look at it, and neither does irmetrics: {why}")
        run_parts = [part.evaluation for part in parts]
        skipped = sorted(set(itertools.chain.from_iterable(e.skipped for e in run_parts)))
        if skipped:
            shown = ", ".join(repr(s) for s in skipped[:5]) + (", ..." if len(skipped) > 5 else "")
            _warn(f"{len(skipped)} run quer{'y has' if len(skipped) == 1 else 'ies have'} no "
                  f"judgments and {'was' if len(skipped) == 1 else 'were'} skipped: {shown}")
        # The judged queries missing from the run: one more part, whose rows
        # (with complete=True) are empty rankings; it carries the run's name,
        # which runid reads.  Only judged queries are scored, and the parts'
        # are disjoint (one part, or the parallel jobs' checked by _parallel):
        # as many as the qrels hold is all of them, and none is missing.
        missing: List[str] = []
        if sum(len(e._rows) for e in run_parts) != len(self.qrels._data):
            missing = sorted(set(self.qrels._data).difference(*(e._rows for e in run_parts)))
        rest = self.scorer()
        rest.run_name = next((e.run_name for e in reversed(run_parts) if e.run_name), run_name)
        filled = missing if self.options.complete else []  # scored as empty rankings
        for qid in filled:
            rest.add_empty(qid)
        run_parts.append(rest.part(self, filled=filled, missing=missing))
        for error in qrels_duplicates:
            if any(error.qid in e._rows for e in run_parts):  # a judgment that would count twice
                raise error
            _warn(f"{error}; trec_eval does not look at it, and neither does irmetrics: "
                  "its query is not evaluated")
        if not any(e._rows for e in run_parts):  # (then the run's queries are the skipped ones)
            raise InvalidArgumentError(
                "no query is both in the run and in the qrels "
                f"(run: {_sample(dict.fromkeys(skipped))}; qrels: {_sample(self.qrels)})"
            )
        return Evaluation.merge(run_parts)


#: What the scorer calls for each query it scores (explain keeps the query's
#: ranking and data): ``(qid, docids, scores, data)``, the documents as
#: scored (after ``float32`` and the duplicate cut; docids ``bytes`` when the
#: source is encoded).
OnQuery = Callable[[str, Sequence[Any], Sequence[float], QueryData], None]
#: A query's documents as scored (its place): docids, scores, members
#: (their set, or None) and whether the docids are encoded.
_Place = Tuple[Sequence[Any], Sequence[float], Optional[Container[Any]], bool]


class _Scorer:
    """Scores queries one at a time; keeps only the values.

    *queries*: score only these (None: every query); *on_query*: called with
    each query scored (see :data:`OnQuery`).
    """

    def __init__(
        self,
        qrels: Qrels,
        measures: Sequence[Measure],
        options: Options,
        *,
        max_label: Optional[int] = None,
        queries: Optional[Container[str]] = None,
        on_query: Optional[OnQuery] = None,
    ) -> None:
        self.qrels = qrels
        self.measures = measures
        self.options = options
        # the largest label, for measures with a max_label option left unset
        self.max_label = _max_label(qrels, measures) if max_label is None else max_label
        self.queries = queries
        self.on_query = on_query
        self.run_name = ""
        self._reader = _Reader(qrels, measures, options)
        # made for each run name (an Env carries it): a query's data to its
        # values, and the tie note's test (irmetrics.ties) when options.detect_ties
        self._env: Optional[Env] = None
        self._row: Optional[Callable[[QueryData], List[Any]]] = None
        self._tie_note: Optional[Callable[[QueryData, TieInfo], bool]] = None
        self._forget()

    def _forget(self) -> None:
        """No query scored yet (again, when the run comes again regrouped)."""
        self.values: Dict[str, List[Value]] = {}
        self.skipped: Dict[str, None] = {}  # (a dict: ordered, and a query counts once)
        # duplicates trec_eval never looks at (below the depth cut, or in a
        # query without judgments): (error, why it is harmless), warned about
        self.ignored_duplicates: List[Tuple[DuplicateEntryError, str]] = []
        # the queries whose values move with the order of tied scores
        self.tie_moved: List[str] = []

    @property
    def seen(self) -> Container[str]:
        """The queries met: scored, or skipped for want of judgments."""
        return self.values.keys() | self.skipped.keys()

    def part(
        self, road: _Road, filled: Sequence[str] = (), missing: Sequence[str] = ()
    ) -> Evaluation:
        """The Evaluation of the queries scored so far, one part of the whole
        for :meth:`Evaluation.merge`, which sorts the queries and computes the
        aggregates.  *filled*: the judged queries missing from the run that
        were scored as empty rankings; *missing*: every judged query missing
        from the run."""
        rows = {qid: [row[c] for c in road.cols] for qid, row in self.values.items()}
        queries = Queries(tuple(sorted(self.skipped)), tuple(missing), frozenset(filled),
                          tuple(self.tie_moved))
        return Evaluation(road.names, road.measures, rows, self.run_name, self.options, queries,
                          self.max_label, final=False)

    def add_empty(self, qid: str) -> None:
        """Score a judged query the run lacks as an empty ranking (``complete``)."""
        self._query(qid, self.qrels._data[qid], ([], [], None, False))

    def consume(
        self, source: RunSource, progress: Optional[Callable[[int, int], None]] = None
    ) -> None:
        """Score every query of *source*, one group at a time (the one road)."""
        judgments_of = self.qrels._data.get  # the plain dict under the read-only views
        float32 = self.options.float32
        done = 0
        restarted = False
        members: Optional[Container[Any]]
        for qid, docids, scores in source:
            if source.restarted and not restarted:  # the run again, regrouped
                restarted = True
                self._forget()
                done = 0
            judged: Optional[Mapping[Any, int]] = judgments_of(qid)
            if judged is None:
                self.skipped[qid] = None
                self.ignored_duplicates.extend(
                    (d, "its query has no judgments") for d in source.duplicates
                )
                continue
            if float32:  # single precision, as trec_eval's float builds store scores
                scores = array("f", scores).tolist()
            members = source.members
            if source.duplicates:
                depth = self.options.depth
                docids, scores = _cut_duplicates(docids, scores, source.duplicates, depth)
                self.ignored_duplicates.extend(
                    (e, f"below the depth cut ({depth})") for e in source.duplicates)
                members = None
            self.run_name = source.name
            if self.queries is not None and qid not in self.queries:
                continue
            self._query(qid, judged, (docids, scores, members, source.encoded))
            done += 1
            if progress is not None:
                progress(done, source.lines)
        self.run_name = source.name

    def _query(self, qid: str, judged: Mapping[Any, int], place: _Place) -> None:
        """Score one judged query from its documents as scored (*place*)."""
        data = self._reader.data(qid, judged, place)
        self._score(qid, data)
        if self.on_query is not None:
            self.on_query(qid, place[0], place[1], data)

    def _score(self, qid: str, data: QueryData) -> None:
        """The query's values: trec_eval's order's, or under a ``ties`` mode,
        where a judged document is tied with another, the mode's; and
        whether they move with the order of tied scores (the tie note)."""
        options, env, row = self.options, self._env, self._row
        if env is None or row is None or env.run_name != self.run_name:
            env = self._env = Env(options.relevance_level, self.max_label, self.run_name,
                                  options.version, options.collection_size)
            row = self._row = prepared_row(self.measures, env)
            self._tie_note = None
        self.values[qid] = row(data)
        info = (data._cache.get(TIES_KEY) if options.ties != "trec_eval" or options.detect_ties
                else None)
        if info is None:  # no judged document tied with another document, or no matter
            return
        if options.ties != "trec_eval":
            self.values[qid] = [tie_value(options.ties, m, data, info, env, options.judged_only)
                                for m in self.measures]
        if options.detect_ties:
            if self._tie_note is None:
                self._tie_note = tie_note_test(self.measures, env, options.judged_only,
                                               options.costs)
            if self._tie_note(data, info):
                self.tie_moved.append(qid)


class _Reader:
    """What the measures read of one query: its judgments placed in the order
    of its scores (its *place*), and the subtopics, costs, judgment groups or
    preferences when a measure asked for reads them."""

    def __init__(self, qrels: Qrels, measures: Sequence[Measure], options: Options) -> None:
        self.qrels = qrels
        self.options = options
        # diversity measures read the ranks of the judged documents too
        self._subtopics = any(m.family.metric in _diversity.__all__ for m in measures)
        # measures over judgment groups read each group's ranking, preference
        # measures the preferences counted against the ranking
        reads = {m.family.reads for m in measures}
        self._groups, self._prefs = "groups" in reads, "prefs" in reads

    def data(self, qid: str, judged: Mapping[Any, int], place: _Place) -> QueryData:
        """The query's data, for every measure asked for."""
        data = self._rank(judged, place)
        if self._subtopics:
            data.subtopics = self._subtopic_data(qid, place)
        if self.options.costs is not None:
            data.costs = self._cost_data(self.options.costs.get(qid, {}), qid, place)
        if self._groups:
            groups = self.qrels._topics(qid)
            data.groups = [self._rank(groups[g], place) for g in sorted(groups)]
        if self._prefs:
            data.prefs = self._prefs_data(qid, place)
        return data

    def _rank(self, judgments: Mapping[Any, int], place: _Place) -> QueryData:
        """The query's data: *judgments* placed in the order of its scores."""
        docids, scores, members, encoded = place
        options = self.options
        return query_data_from_scores(
            judgments, docids, scores, depth=options.depth, judged_only=options.judged_only,
            members=members, encode=encoded)

    def _ranked_docs(self, qid: str, docs: List[Any],
                     place: _Place) -> Tuple[int, List[Tuple[int, Any]]]:
        """The documents ranked, and ``(rank index, doc)`` of those of *docs*
        ranked: each one's number given as its label, :meth:`_rank` places it
        with the same order, depth and ``judged_only`` as every measure."""
        flat = self.qrels._data[qid]
        judged_only = self.options.judged_only
        numbered = {d: (-1 if judged_only and flat[d] < 0 else i) for i, d in enumerate(docs)}
        data = self._rank(numbered, place)
        return data.n, [(i, docs[x]) for i, x in data.placed()]

    def _subtopic_data(self, qid: str, place: _Place) -> Subtopics:
        """For the diversity measures: the query's judgments per subtopic and
        ``(rank index, doc id)`` of its judged ranked documents."""
        flat = self.qrels._data[qid]
        # under judged_only every judged document shapes the ranks; else only
        # the documents relevant somewhere (label >= 1) gain anything
        docs = list(flat) if self.options.judged_only else [d for d, v in flat.items() if v >= 1]
        return self.qrels._topics(qid), self._ranked_docs(qid, docs, place)[1]

    def _cost_data(self, given: Mapping[str, float], qid: str, place: _Place) -> List[float]:
        """Each ranked document's cost (1 where *given* has none)."""
        docs = list(self.qrels._data[qid] if self.options.judged_only else given)
        n, placed = self._ranked_docs(qid, docs, place)
        costs = [1.0] * n
        for i, d in placed:
            costs[i] = given.get(d, 1.0)
        return costs

    def _prefs_data(self, qid: str, place: _Place) -> Prefs:
        """For the preference measures: the query's preferences counted
        against its ranking, cut at the depth.  trec_eval orders tied scores
        by document id ascending here (``form_prefs_counts.c``), unlike
        everywhere else (descending), and so does this order."""
        docids, scores, _, encoded = place
        preferences = self.qrels._prefs.get(qid)
        if preferences is None:  # a qrels' own: the preferences of its judgments
            preferences = _judgment_prefs(self.qrels._topics(qid))
        judged = {(d.encode() if encoded else d): d for _, _, d, _ in preferences}
        order = sorted(range(len(docids)), key=lambda i: (-scores[i], docids[i]))
        ranked = [docids[i] for i in order[:self.options.depth]]
        retrieved = [judged[d] for d in ranked if d in judged]
        return count_prefs(preferences, retrieved, query=qid)


def _cut_duplicates(
    docids: List[bytes], scores: List[float], found: List[DuplicateEntryError],
    depth: Optional[int],
) -> Tuple[List[bytes], List[float]]:
    """One query's ranking cut at the depth, where some documents repeat.

    trec_eval sorts a query's documents, keeps the top ``-M`` and only
    then looks for duplicates: a repeat within the documents evaluated is
    an error (raised as the stream reported it), one below the cut is
    never seen (the caller notes it for a warning).  Returns the documents kept.
    """
    if depth is None:
        raise found[0]
    order = sorted(range(len(docids)), key=lambda i: (scores[i], docids[i]), reverse=True)
    top = order[:depth]
    kept = [docids[i] for i in top]
    if len(set(kept)) != len(kept):
        counts = Counter(kept)
        for error in found:
            if counts[error.docid.encode("utf-8")] > 1:
                raise error
    return kept, [scores[i] for i in top]


def _max_label(qrels: Qrels, measures: Sequence[Measure]) -> int:
    """The largest label of *qrels* if a measure reads it (a ``max_label``
    option left unset), else 0."""
    if not any(key in m.family.options and m.option(key) is None
               for m in measures for key in ("max_label", "max_rel")):
        return 0
    return max((v for judged in qrels.values() for v in judged.values() if v > 0), default=0)


def _sample(mapping: Mapping[str, Any]) -> str:
    ids = sorted(mapping)[:3]
    if not ids:
        return "no queries"
    return ", ".join(map(quoted, ids)) + (", ..." if len(mapping) > 3 else "")
