"""Relevance judgments and runs: :class:`Qrels` and :class:`Run`.

Both are read-only mappings keyed by query id:

* :class:`Qrels`: ``{query id: {doc id: relevance}}``, relevance an ``int``
  (negative values such as trec_eval's -1, "pooled but unjudged", are kept).
* :class:`Run`: ``{query id: {doc id: score}}``, score a ``float`` (infinite
  allowed, NaN not), plus the run's ``name`` (its TREC tag).

Ids are always ``str``.  The inner mappings are returned as
:class:`types.MappingProxyType`, so neither level can be changed; build a new
object instead.  Every constructor validates once and copies its input, so
the caller's data is never shared or mutated.

Catalogue
---------
Constructing: ``Qrels(mapping)`` / :meth:`Qrels.from_dict`,
:meth:`Qrels.from_records`, :meth:`Qrels.from_dataframe`,
:meth:`Qrels.from_trec`, and for diversity judgments :meth:`Qrels.from_subtopics`,
:meth:`Qrels.from_subtopic_records`; the same for
:class:`Run`, plus :meth:`Run.from_ranked_list`.

Using: the mapping protocol, ``n_entries``, :meth:`Run.ranking`,
``to_dict()``, ``to_trec()``.

The values are checked, and dicts, records and DataFrames read, by the one
reader of tables (``irmetrics/_tabular.py``); TREC files by
:mod:`irmetrics.trec`.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import (
    TYPE_CHECKING,
    Any,
    Dict,
    Generic,
    Iterable,
    Iterator,
    List,
    Mapping,
    Optional,
)

from ._tabular import (
    DEFAULT_RUN_NAME,
    V,
    _from_dict,
    _relevances,
    _scores,
    is_frame,
    prefs_tables,
    qrels_table,
    records_table,
    run_table,
    subtopics_from_dict,
    subtopics_from_records,
)
from .prefs import Preference
from .trec import (
    Subtopics,
    _check_name,
    _read_qrels_tables,
    read_ranked_list,
    read_run,
    trec_ranking,
    write_run,
    write_subtopic_qrels,
)

if TYPE_CHECKING:
    from .trec import PathOrFile

__all__ = ["Qrels", "Run", "DEFAULT_RUN_NAME"]

def _is_frame(data: Any) -> bool:
    return not isinstance(data, Mapping) and is_frame(data)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


# === The classes ===


class _Table(Mapping[str, Mapping[str, V]], Generic[V]):
    """Shared read-only storage: a dict of dicts, given out as read-only views."""

    __slots__ = ("_data", "_n")

    _data: Dict[str, Dict[str, V]]
    _n: int

    def _set(self, data: Dict[str, Dict[str, V]]) -> None:
        self._data = data
        self._n = sum(map(len, data.values()))

    def __getitem__(self, qid: str) -> Mapping[str, V]:
        # a new view each time: a table holds no view, which would not pickle
        return MappingProxyType(self._data[qid])

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, qid: object) -> bool:
        return qid in self._data

    def to_dict(self) -> Dict[str, Dict[str, V]]:
        """Return a new plain ``dict`` of ``dict`` s.

        >>> Qrels({"q1": {"d1": 1}}).to_dict(), Run({"q1": {"d1": 1}}).to_dict()
        ({'q1': {'d1': 1}}, {'q1': {'d1': 1.0}})
        """
        return {qid: dict(docs) for qid, docs in self._data.items()}

    @property
    def n_entries(self) -> int:
        """The number of (query, document) entries, over all queries."""
        return self._n

    def _key(self) -> Any:
        """What two equal tables of one class share besides their data."""
        return None

    def __eq__(self, other: object) -> bool:
        if isinstance(other, _Table):
            same_kind = type(self) is type(other) and self._key() == other._key()
            return same_kind and self._data == other._data
        if isinstance(other, Mapping):
            try:
                return self._data == {q: dict(docs) for q, docs in other.items()}
            except (TypeError, ValueError):
                return False
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]


class Qrels(_Table[int]):
    """Relevance judgments: a read-only ``{query id: {doc id: relevance}}``.

    ``Qrels(mapping)`` is :meth:`from_dict`.  Relevance is an ``int``; an
    integral float such as ``2.0`` is converted, ``1.5``, NaN and bools are
    errors.  Int ids are converted with ``str()``.  Queries without documents
    are kept.

    >>> qrels = Qrels({"q1": {"d1": 1, "d2": 0}, 2: {"d1": 2.0}})
    >>> qrels
    Qrels(2 queries, 3 judgments)
    >>> qrels["2"]
    mappingproxy({'d1': 2})
    >>> qrels["q1"]["d1"] = 0
    Traceback (most recent call last):
    ...
    TypeError: 'mappingproxy' object does not support item assignment

    Diversity qrels judge documents per subtopic (intent) of a query
    (:meth:`from_subtopics`, :meth:`from_subtopic_records`, or a TREC file
    with subtopic ids in its second column); :meth:`subtopics` gives them
    back, while the mapping itself, which every other measure reads, gives a
    document its highest relevance over the subtopics.
    """

    __slots__ = ("_subtopics", "_prefs")

    _subtopics: Subtopics  # of the queries judged under a subtopic other than "0"
    _prefs: Dict[str, List[Preference]]  # a preferences file's (else none: the judgments')

    def __init__(self, qrels: Mapping[Any, Mapping[Any, Any]]) -> None:
        self._subtopics = {}
        self._prefs = {}
        table = qrels_table(qrels) if _is_frame(qrels) else _from_dict(qrels, "qrels", _relevances)
        self._set(table)

    @classmethod
    def _trusted(cls, data: Dict[str, Dict[str, int]], subtopics: Optional[Subtopics] = None,
                 prefs: Optional[Dict[str, List[Preference]]] = None) -> Qrels:
        # For data already validated (and owned by us): skip the checks.
        self = cls.__new__(cls)
        self._set(data)
        self._subtopics = subtopics or {}
        self._prefs = prefs or {}
        return self

    @classmethod
    def from_prefs(cls, source: Any) -> Qrels:
        """Build from preference judgments: trec_eval's ``-R prefs`` file
        (``qid jg jsg docno level`` lines, a path or an open file) or
        ``{query id: [(judgment group, sub-group, doc id, level)]}``.

        The ``prefs_*`` measures read these preferences (see
        :mod:`irmetrics.prefs`, which also gives the preferences of any other
        Qrels).  Every other measure reads the judgments as a plain qrels: 1
        for a document some line gives a level above 0, else 0.

        >>> qrels = Qrels.from_prefs({"q1": [("u1", "s1", "a", 2.0), ("u1", "s1", "b", 0.0)]})
        >>> qrels["q1"]
        mappingproxy({'a': 1, 'b': 0})
        """
        return cls._trusted(*prefs_tables(source))

    def _only(self, qid: str) -> Qrels:
        """The judgments (subtopics, preferences) of query *qid* alone, or none."""
        return Qrels._trusted({q: self._data[q] for q in self._data if q == qid},
                              {q: t for q, t in self._subtopics.items() if q == qid},
                              {q: p for q, p in self._prefs.items() if q == qid})

    @classmethod
    def from_subtopics(cls, qrels: Mapping[Any, Mapping[Any, Mapping[Any, Any]]]) -> Qrels:
        """Build from diversity judgments ``{query id: {subtopic: {doc id: relevance}}}``.

        Subtopic ids, like other ids, are str (ints are converted).

        >>> qrels = Qrels.from_subtopics({"q1": {1: {"d1": 1, "d2": 0}, 2: {"d2": 2}}})
        >>> qrels["q1"]
        mappingproxy({'d1': 1, 'd2': 2})
        >>> qrels.subtopics("q1")
        {'1': {'d1': 1, 'd2': 0}, '2': {'d2': 2}}
        """
        return cls._trusted(*subtopics_from_dict(qrels))

    @classmethod
    def from_subtopic_records(cls, records: Iterable[Any]) -> Qrels:
        """Build from ``(query_id, subtopic, doc_id, relevance)`` records.

        The order of a diversity qrels line (and of pyndeval's
        ``SubtopicQrel``); a record may also be a mapping with the keys of
        :meth:`from_records` and ``subtopic``/``subtopic_id``.  A (query,
        subtopic, document) given twice is an error naming both records.

        >>> Qrels.from_subtopic_records([("q1", 1, "d1", 1), ("q1", 2, "d1", 0)])
        Qrels(1 query, 1 judgment, with subtopics)
        >>> Qrels.from_subtopic_records([("q1", 1, "d1", 1), ("q1", 1, "d1", 0)])
        Traceback (most recent call last):
        ...
        irmetrics.errors.DuplicateEntryError: <records>, line 2: document 'd1' appears twice
        for query 'q1', subtopic '1' (lines 1 and 2)
        """
        return cls._trusted(*subtopics_from_records(records))

    @property
    def has_subtopics(self) -> bool:
        """Whether some query is judged under a subtopic other than ``"0"``."""
        return bool(self._subtopics)

    def subtopics(self, qid: str) -> Dict[str, Dict[str, int]]:
        """The judgments of query *qid* per subtopic: ``{subtopic: {doc id: relevance}}``.

        A new plain dict.  A query of a plain qrels has one subtopic, ``"0"``.

        >>> Qrels({"q1": {"d1": 1}}).subtopics("q1")
        {'0': {'d1': 1}}
        """
        return {s: dict(docs) for s, docs in self._topics(qid).items()}

    def _topics(self, qid: str) -> Dict[str, Dict[str, int]]:
        # the table itself (not to be changed); KeyError for an unknown query
        got = self._subtopics.get(qid)
        return {"0": self._data[qid]} if got is None else got

    def _key(self) -> Any:
        return self._subtopics, self._prefs

    @classmethod
    def from_dict(cls, qrels: Mapping[Any, Mapping[Any, Any]]) -> Qrels:
        """Build from ``{query id: {doc id: relevance}}`` (pytrec_eval's and ranx's form).

        >>> Qrels.from_dict({"q1": {"d1": 1}, "q2": {}})
        Qrels(2 queries, 1 judgment)
        >>> Qrels.from_dict({"q1": {"d1": 0.5}})
        Traceback (most recent call last):
        ...
        irmetrics.errors.InvalidArgumentError: qrels['q1']['d1'] must be an int (got float 0.5)
        """
        return cls(qrels)

    @classmethod
    def from_records(cls, records: Iterable[Any]) -> Qrels:
        """Build from ``(query_id, doc_id, relevance, ...)`` records.

        Only the first three items of a tuple or list record are used, so
        ir_measures' ``Qrel(query_id, doc_id, relevance, iteration)`` and
        ``DataFrame.itertuples(index=False)`` rows work.  A record may also be
        a mapping with keys ``query_id``/``qid``, ``doc_id``/``docno``/``docid``
        and ``relevance``/``label``/``rel`` (``df.to_dict("records")``); the
        first key present of each role is used, as for DataFrames.
        Errors give the record's 1-based index as ``line``.

        >>> Qrels.from_records([("q1", "d1", 1), {"qid": "q1", "docno": "d2", "rel": 0}])
        Qrels(1 query, 2 judgments)
        >>> Qrels.from_records([("q1", "d1", 1), ("q1", "d1", 0)])
        Traceback (most recent call last):
        ...
        irmetrics.errors.DuplicateEntryError: <records>, line 2: document 'd1' appears twice
        for query 'q1' (lines 1 and 2)
        """
        return cls._trusted(records_table(records, "relevance"))

    @classmethod
    def from_dataframe(cls, frame: Any, *, columns: Optional[Mapping[str, Any]] = None) -> Qrels:
        """Build from a pandas or polars DataFrame or a pyarrow Table.

        Columns are found by name, in any order: ``query_id``/``qid``,
        ``doc_id``/``docno``/``docid`` and ``relevance``/``label``/``rel``;
        others are ignored.  *columns* names them otherwise, by role:
        ``{"query_id": ..., "doc_id": ..., "relevance": ...}`` (any subset).
        An integer id column becomes decimal strings; a string column is kept
        as it is.  ``Qrels(frame)`` and ``Qrels.from_records(frame)`` do the
        same with the usual names.  See :mod:`irmetrics.frames`.
        """
        return cls._trusted(qrels_table(frame, columns=columns))

    @classmethod
    def from_trec(cls, source: PathOrFile) -> Qrels:
        """Read a TREC qrels file (see :func:`irmetrics.trec.read_qrels`).

        >>> import io
        >>> Qrels.from_trec(io.StringIO("301 0 d1 1\\n301 0 d2 -1\\n"))["301"]
        mappingproxy({'d1': 1, 'd2': -1})
        """
        return cls._trusted(*_read_qrels_tables(source))

    def to_trec(self, dest: PathOrFile) -> None:
        """Write as ``qid subtopic docid relevance`` lines (subtopic ``0`` without subtopics).

        >>> import sys
        >>> Qrels({"q1": {"d1": 1}}).to_trec(sys.stdout)
        q1 0 d1 1
        """
        write_subtopic_qrels({qid: self._topics(qid) for qid in self._data}, dest)

    def __repr__(self) -> str:
        queries = "1 query" if len(self) == 1 else f"{len(self)} queries"
        extra = ", with subtopics" if self._subtopics else ""
        extra += ", with preferences" if self._prefs else ""
        return f"Qrels({queries}, {_plural(self._n, 'judgment')}{extra})"


class Run(_Table[float]):
    """Scored documents: a read-only ``{query id: {doc id: score}}`` with a ``name``.

    ``Run(mapping, name=...)`` is :meth:`from_dict`.  Scores are stored as
    ``float``; ints are converted; NaN and bools are errors; infinities are
    allowed.  The order of a query's documents is :meth:`ranking`, never the
    insertion order.

    >>> run = Run({"q1": {"d1": 0.5, "d2": 2}}, name="bm25")
    >>> run
    Run(1 query, 2 documents, name='bm25')
    >>> run.ranking("q1")
    ['d2', 'd1']
    """

    __slots__ = ("_name",)

    def __init__(
        self, run: Mapping[Any, Mapping[Any, Any]], *, name: str = DEFAULT_RUN_NAME
    ) -> None:
        self._name = _check_name(name)
        self._set(run_table(run) if _is_frame(run) else _from_dict(run, "run", _scores))

    @classmethod
    def _trusted(cls, data: Dict[str, Dict[str, float]], name: str) -> Run:
        self = cls.__new__(cls)
        self._name = name
        self._set(data)
        return self

    @property
    def name(self) -> str:
        """The run's name: the TREC tag written in the sixth column."""
        return self._name

    @classmethod
    def from_dict(
        cls, run: Mapping[Any, Mapping[Any, Any]], *, name: str = DEFAULT_RUN_NAME
    ) -> Run:
        """Build from ``{query id: {doc id: score}}`` (pytrec_eval's and ranx's form).

        >>> Run.from_dict({"q1": {"d1": 1.5, "d2": float("inf")}}).ranking("q1")
        ['d2', 'd1']
        >>> Run.from_dict({"q1": {"d1": float("nan")}})
        Traceback (most recent call last):
        ...
        irmetrics.errors.InvalidArgumentError: run['q1']['d1'] must not be NaN
        """
        return cls(run, name=name)

    @classmethod
    def from_records(cls, records: Iterable[Any], *, name: str = DEFAULT_RUN_NAME) -> Run:
        """Build from ``(query_id, doc_id, score, ...)`` records.

        Only the first three items of a tuple or list record are used, so
        ir_measures' ``ScoredDoc(query_id, doc_id, score)`` and
        ``DataFrame.itertuples(index=False)`` rows work.  A record may also be
        a mapping with keys ``query_id``/``qid``, ``doc_id``/``docno``/``docid``
        and ``score`` (the first key present of each role is used).  Errors
        give the record's 1-based index as ``line``.

        >>> Run.from_records([("q1", "d1", 0.5), {"qid": "q1", "docid": "d2", "score": 1}])
        Run(1 query, 2 documents, name='irmetrics')
        """
        name = _check_name(name)
        return cls._trusted(records_table(records, "score"), name)

    @classmethod
    def from_dataframe(
        cls,
        frame: Any,
        *,
        name: str = DEFAULT_RUN_NAME,
        columns: Optional[Mapping[str, Any]] = None,
    ) -> Run:
        """Build from a pandas or polars DataFrame or a pyarrow Table.

        Columns are found by name, in any order: ``query_id``/``qid``,
        ``doc_id``/``docno``/``docid`` and ``score``; others (``rank``,
        ``Q0``, ``iteration``, ...) are ignored, as trec_eval ignores the rank
        column.  *columns* names them otherwise, by role:
        ``{"query_id": ..., "doc_id": ..., "score": ...}`` (any subset).
        ``Run(frame, name=...)`` and ``Run.from_records(frame, name=...)`` do
        the same with the usual names.  See :mod:`irmetrics.frames`.
        """
        name = _check_name(name)
        return cls._trusted(run_table(frame, columns=columns), name)

    @classmethod
    def from_trec(cls, source: PathOrFile, *, name: Optional[str] = None) -> Run:
        """Read a TREC run file (see :func:`irmetrics.trec.read_run`).

        The name is the tag of the last line (trec_eval's runid) unless *name* is given.

        >>> import io
        >>> run = Run.from_trec(io.StringIO("q1 Q0 d1 1 0.5 bm25\\nq1 Q0 d2 2 0.5 bm25\\n"))
        >>> run.name, run.ranking("q1")
        ('bm25', ['d2', 'd1'])
        """
        if name is not None:
            name = _check_name(name)
        data, tag = read_run(source)
        return cls._trusted(data, tag if name is None else name)

    @classmethod
    def from_ranked_list(cls, source: PathOrFile, *, name: str = DEFAULT_RUN_NAME) -> Run:
        """Read ``qid docid`` lines in rank order (see :func:`irmetrics.trec.read_ranked_list`).

        Scores are ``-rank``, so the ranking is the file order.

        >>> import io
        >>> run = Run.from_ranked_list(io.StringIO("q1 d9\\nq1 d2\\n"))
        >>> run.ranking("q1"), run["q1"]["d2"]
        (['d9', 'd2'], -2.0)
        """
        name = _check_name(name)
        return cls._trusted(read_ranked_list(source), name)

    def ranking(self, qid: str) -> List[str]:
        """Return the doc ids of *qid* in trec_eval's order.

        Score descending, equal scores broken by doc id descending (see
        :func:`irmetrics.trec.trec_ranking`).  An unknown *qid* raises
        ``KeyError``.

        >>> Run({"q": {"a": 1.0, "b": 1.0, "c": 3.0}}).ranking("q")
        ['c', 'b', 'a']
        """
        return trec_ranking(self._data[qid])

    def to_trec(self, dest: PathOrFile) -> None:
        """Write as ``qid Q0 docid rank score name`` lines (see :func:`irmetrics.trec.write_run`).

        >>> import sys
        >>> Run({"q1": {"d1": 0.1, "d2": 0.3}}, name="x").to_trec(sys.stdout)
        q1 Q0 d2 1 0.3 x
        q1 Q0 d1 2 0.1 x
        """
        write_run(self._data, dest, name=self._name)

    def _key(self) -> Any:
        return self._name

    def __repr__(self) -> str:
        queries = "1 query" if len(self) == 1 else f"{len(self)} queries"
        return f"Run({queries}, {_plural(self._n, 'document')}, name={self._name!r})"
