"""Tables in: dicts, records and DataFrames to ``{query id: {doc id: value}}``.

The one reader of tabular input, below :class:`~irmetrics.Qrels` and
:class:`~irmetrics.Run`: the value checks every road shares (ids, relevance,
scores), the one table of column names (:data:`_COLUMN_NAMES`) and the one
finder of columns (:func:`choose_columns`), which records, DataFrames
(:mod:`irmetrics.frames` documents them) and the Dask and Spark engines
(:mod:`irmetrics._engines`) use.  Nothing here imports pandas, polars or
pyarrow: a frame is recognised by the module its type comes from.
"""

from __future__ import annotations

import math
from itertools import groupby, islice
from numbers import Integral, Real
from operator import itemgetter
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, TypeVar

from ._checks import kind_of
from ._text import quoted
from ._trec_more import read_prefs
from .errors import DuplicateEntryError, InvalidArgumentError, TrecFormatError
from .prefs import Preference
from .trec import MAX_LABEL, MIN_LABEL, Subtopics, _BadField

#: The name a :class:`~irmetrics.Run` gets when its source has none.
DEFAULT_RUN_NAME = "irmetrics"

_RECORDS = "<records>"
#: The column names (record keys) looked for, by role, the first present
#: winning: the one table of records, DataFrames and the Dask and Spark
#: engines.  ``docno`` before ``docid``: PyTerrier's ``docid`` is Terrier's
#: internal number; ``label`` (PyTerrier) before ``rel``.
_COLUMN_NAMES: Dict[str, Tuple[str, ...]] = {
    "query_id": ("query_id", "qid"),
    "doc_id": ("doc_id", "docno", "docid"),
    "relevance": ("relevance", "label", "rel"),
    "score": ("score",),
    "subtopic": ("subtopic", "subtopic_id"),  # diversity records only
}

V = TypeVar("V", int, float)

_ABSENT = object()  # no column or key of a role


#: The frames read, by library: their types, and the attribute listing their columns.
_FRAMES: Dict[str, Tuple[Tuple[str, ...], str]] = {
    "pandas": (("DataFrame",), "columns"),
    "polars": (("DataFrame",), "columns"),
    "pyarrow": (("Table", "RecordBatch"), "column_names"),
}

# === Value checks ===
#
# Each returns the normalised value, or raises ValueError/TypeError with a
# reason; the callers add where the value came from.


def _is_bool(value: Any) -> bool:
    # numpy.bool_ is neither bool nor Integral, but say "bool" for it too.
    return isinstance(value, bool) or kind_of(value) == "bool_"


def _as_id(value: Any) -> str:
    if isinstance(value, str):
        return str.__str__(value)  # (a str subclass as a plain str)
    if isinstance(value, Integral) and not _is_bool(value):
        return str(int(value))
    raise TypeError(f"must be a str or an int (got {kind_of(value)} {value!r})")


def _as_relevance(value: Any) -> int:
    if type(value) is int:
        if not MIN_LABEL <= value <= MAX_LABEL:
            raise ValueError(f"must be between {MIN_LABEL} and {MAX_LABEL} (got {value!r})")
        return value
    if _is_bool(value):
        raise TypeError(f"must be an int, not a bool (got {value!r})")
    if isinstance(value, Integral):
        return _as_relevance(int(value))
    if isinstance(value, Real):
        f = float(value)
        if math.isfinite(f) and f.is_integer():
            return _as_relevance(int(f))
        raise ValueError(f"must be an int (got {kind_of(value)} {value!r})")
    raise TypeError(f"must be an int (got {kind_of(value)} {value!r})")


def _as_score(value: Any) -> float:
    if _is_bool(value) or not isinstance(value, Real):
        raise TypeError(f"must be a real number (got {kind_of(value)} {value!r})")
    try:
        f = float(value)
    except (OverflowError, ValueError) as exc:
        raise ValueError(f"must be a real number ({exc})") from None
    if f != f:
        raise ValueError("must not be NaN")
    return f


# === Finding the columns ===


def _first_present(present: Any, names: Sequence[Any]) -> Any:
    """The first of *names* in *present* (a list of columns, a mapping), or _ABSENT."""
    return next((name for name in names if name in present), _ABSENT)


def _record_values(record: Mapping[Any, Any], roles: Sequence[str], index: int) -> List[Any]:
    """The values of a mapping record, by role: each role's first key present."""
    found = []
    for role in roles:
        key = _first_present(record, _COLUMN_NAMES[role])
        if key is _ABSENT:
            names = " or ".join(repr(k) for k in _COLUMN_NAMES[role])
            raise TrecFormatError(f"record has no key {names}", _RECORDS, index)
        found.append(record[key])
    return found


def choose_columns(
    seen: List[Any],
    source: str,
    what: str,
    roles: Sequence[str],
    columns: Any,
    index: Sequence[Any] = (),
) -> Dict[str, Any]:
    """{role: column name} for every role of *roles*, from the column names *seen*.

    The one finder of columns, for DataFrames and the Dask and Spark engines
    (:mod:`irmetrics._engines`); records use its rule key by key
    (:func:`_record_values`).  *columns* (``{role: name}``, any subset,
    checked) first, then the role's names in :data:`_COLUMN_NAMES`, the
    first present winning.  *source* describes the frame in messages
    (``"pandas DataFrame"``); *index* holds the names of a pandas index, for
    a hint when the ids are there.

    >>> choose_columns(["qid", "docno", "docid", "score"], "frame", "run",
    ...                ("query_id", "doc_id", "score"), None)
    {'query_id': 'qid', 'doc_id': 'docno', 'score': 'score'}
    """
    chosen: Dict[str, Any] = {}
    if columns is not None:
        if not isinstance(columns, Mapping):
            raise InvalidArgumentError(
                f"'columns' must be a mapping of role to column name, e.g. "
                f"{{'query_id': 'topic'}} (got {type(columns).__name__})"
            )
        for role, name in columns.items():
            if role not in roles:
                raise InvalidArgumentError(
                    f"'columns' key {role!r} is not a role of {what}; the roles are "
                    + ", ".join(repr(r) for r in roles)
                )
            if name not in seen:
                raise InvalidArgumentError(
                    f"columns[{role!r}] is {name!r}, which the {source} given as {what!r} "
                    f"does not have (its columns: {_names(seen)})"
                )
            chosen[role] = name
    missing = []
    for role in roles:
        if role not in chosen:
            name = _first_present(seen, _COLUMN_NAMES[role])
            if name is _ABSENT:
                missing.append(role)
            else:
                chosen[role] = name
    if missing:
        looked = "; ".join(
            f"{role}: {' or '.join(map(repr, _COLUMN_NAMES[role]))}" for role in missing
        )
        example = ", ".join(f"{role!r}: ..." for role in missing)
        hint = ""
        if any(n in _COLUMN_NAMES[r] for r in missing for n in index):
            hint = "; the index holds some of them: call .reset_index() first"
        raise InvalidArgumentError(
            f"the {source} given as {what!r} has no {' and no '.join(missing)} column "
            f"(its columns: {_names(seen)}); looked for {looked}; name the columns with "
            f"columns={{{example}}}{hint}"
        )
    for name in chosen.values():
        if seen.count(name) > 1:
            raise InvalidArgumentError(
                f"the {source} given as {what!r} has two columns named {name!r}"
            )
    return chosen


def _names(seen: List[Any]) -> str:
    return ", ".join(repr(n) for n in seen) if seen else "none"


# === Dicts and records ===


def _query_id(raw: Any, what: str, seen: Mapping[str, Any], of: str = "in") -> str:
    """A dict's query id as str, not one *seen* already under another type;
    *what* names the dict in messages ("'qrels'", "run 'a'"), *of* is the word
    before it ("query id in 'qrels' must be ...")."""
    try:
        qid = _as_id(raw)
    except TypeError as exc:
        raise InvalidArgumentError(f"query id {of} {what} {exc}") from None
    if qid in seen:
        raise InvalidArgumentError(
            f"{what} has two query ids that are both {qid!r} as str (got {raw!r})"
        )
    return qid


def _from_dict(
    data: Any, what: str, convert: Callable[[List[Any]], List[V]]
) -> Dict[str, Dict[str, V]]:
    """``{qid: {docid: value}}`` of a dict of dicts, each query's ids and
    values converted as columns (*convert* is :func:`_relevances` or :func:`_scores`)."""
    if not isinstance(data, Mapping):
        raise InvalidArgumentError(
            f"{what!r} must be a mapping of query id to a mapping of doc id to value "
            f"(got {kind_of(data)})"
        )
    out: Dict[str, Dict[str, V]] = {}
    for raw_qid, raw_docs in data.items():
        qid = _query_id(raw_qid, repr(what), out)
        if not isinstance(raw_docs, Mapping):
            raise InvalidArgumentError(
                f"{what}[{raw_qid!r}] must be a mapping of doc id to value "
                f"(got {kind_of(raw_docs)})"
            )
        keys = list(raw_docs)
        try:
            docids = _ids(keys)
        except _BadField as bad:
            raise InvalidArgumentError(f"doc id in {what}[{raw_qid!r}] {bad}") from None
        try:
            values = convert(list(raw_docs.values()))
        except _BadField as bad:
            raise InvalidArgumentError(f"{what}[{raw_qid!r}][{keys[bad.row]!r}] {bad}") from None
        docs = out[qid] = dict(zip(docids, values))
        if len(docs) != len(keys):
            # Only possible when an int and a str id collide, e.g. 1 and "1".
            seen = set()
            for docid in docids:
                if docid in seen:
                    raise DuplicateEntryError(f"<{what}>", None, None, qid, docid)
                seen.add(docid)
    return out


def _record_fields(record: Any, roles: Sequence[str], index: int) -> Sequence[Any]:
    """A record's items, one per role: the first items of a tuple, a list or
    another iterable, or a mapping's values (:func:`_record_values`)."""
    items: Sequence[Any] = ()
    if isinstance(record, (tuple, list)):
        items = record[: len(roles)]
    elif isinstance(record, Mapping):
        return _record_values(record, roles, index)
    elif not isinstance(record, (str, bytes)):
        try:
            items = tuple(islice(record, len(roles)))
        except TypeError:
            pass
    if len(items) == len(roles):
        return items
    # Iterating a DataFrame yields its column names: say what to pass instead.
    hint = "; for a DataFrame pass df.itertuples(index=False)" if isinstance(record, str) else ""
    raise TrecFormatError(
        f"expected a ({', '.join(roles)}) record or a mapping "
        f"(got {kind_of(record)} {record!r}{hint})",
        _RECORDS,
        index,
    )


def _record_columns(records: Any, roles: Sequence[str]) -> List[List[Any]]:
    """The items of *records* as columns, one per role, converted
    (:func:`_converted`), each record checked for its shape (errors name its
    1-based index)."""
    try:
        if isinstance(records, (str, bytes, Mapping)):
            raise TypeError
        iterator = iter(records)
    except TypeError:
        raise InvalidArgumentError(
            f"'records' must be an iterable of ({', '.join(roles)}) records "
            f"(got {kind_of(records)})"
        ) from None
    rows = [_record_fields(record, roles, index) for index, record in enumerate(iterator, 1)]
    columns = [list(map(itemgetter(i), rows)) for i in range(len(roles))]
    return _converted(roles, columns, _labels(roles), _RECORDS)


def records_table(records: Any, value_role: str) -> Dict[str, Dict[str, Any]]:
    """``{query id: {doc id: value}}`` from ``(query_id, doc_id, value)``
    records (tuples, lists or mappings), or from a DataFrame by its usual
    column names; *value_role* is ``"relevance"`` or ``"score"``.  Errors
    name the record's 1-based index."""
    if is_frame(records):
        return _table(records, "qrels" if value_role == "relevance" else "run", value_role, None)
    roles = ("query_id", "doc_id", value_role)
    qids, docids, values = _record_columns(records, roles)
    return _group(qids, docids, values, _RECORDS)


def _split_topics(table: Subtopics) -> Tuple[Dict[str, Dict[str, int]], Subtopics]:
    """``{qid: {subtopic: {doc: relevance}}}`` as a flat table (each
    document's highest relevance) and the queries with subtopics other than "0"."""
    flat: Dict[str, Dict[str, int]] = {}
    kept: Subtopics = {}
    for qid, topics in table.items():
        if list(topics) == ["0"]:
            flat[qid] = topics["0"]
        else:
            kept[qid] = topics
            docs = flat[qid] = {}
            for judged in topics.values():
                for doc, value in judged.items():
                    if value > docs.get(doc, value - 1):
                        docs[doc] = value
    return flat, kept


def subtopics_from_dict(data: Any) -> Tuple[Dict[str, Dict[str, int]], Subtopics]:
    """:func:`_split_topics` of ``{query id: {subtopic: {doc id: relevance}}}``, checked."""
    if not isinstance(data, Mapping):
        raise InvalidArgumentError(
            "'qrels' must be a mapping of query id to a mapping of subtopic to a mapping "
            f"of doc id to relevance (got {kind_of(data)})"
        )
    table: Subtopics = {}
    for raw_qid, topics in data.items():
        qid = _query_id(raw_qid, "'qrels'", table)
        table[qid] = _from_dict(topics, f"qrels[{raw_qid!r}]", _relevances)
    return _split_topics(table)


def subtopics_from_records(records: Any) -> Tuple[Dict[str, Dict[str, int]], Subtopics]:
    """:func:`_split_topics` of ``(query_id, subtopic, doc_id, relevance)``
    records; a (query, subtopic, document) given twice names both records."""
    roles = ("query_id", "subtopic", "doc_id", "relevance")
    qids, topics, docids, values = _record_columns(records, roles)
    table: Subtopics = {}
    for (qid, topic), docs in _group(list(zip(qids, topics)), docids, values, _RECORDS).items():
        table.setdefault(qid, {})[topic] = docs
    return _split_topics(table)


def prefs_tables(
    source: Any,
) -> Tuple[Dict[str, Dict[str, int]], Subtopics, Dict[str, List[Preference]]]:
    """Qrels' tables of preferences, from trec_eval's ``-R prefs`` file or
    ``{query id: [(judgment group, sub-group, doc id, level)]}``: the
    judgments as a plain qrels (1 for a document some line gives a level
    above 0, else 0), no subtopics, and the preferences."""
    if isinstance(source, Mapping):
        prefs = {str(q): [_preference(q, line) for line in lines] for q, lines in source.items()}
    else:
        prefs = read_prefs(source)
    data: Dict[str, Dict[str, int]] = {}
    for qid, lines in prefs.items():
        docs = data.setdefault(qid, {})
        for _, _, doc, level in lines:
            docs[doc] = max(docs.get(doc, 0), 1 if level > 0.0 else 0)
    return data, {}, prefs


def _preference(qid: Any, line: Any) -> Preference:
    """One ``(judgment group, sub-group, doc id, level)`` of query *qid*, checked."""
    try:
        group, sub, doc, level = line
        value = float(level)
    except (TypeError, ValueError):
        value = math.nan
    if not -math.inf < value < math.inf:
        raise InvalidArgumentError(
            f"the preferences of query {quoted(str(qid))} must be (judgment group, sub-group, "
            f"doc id, level) tuples with a finite level (got {line!r})")
    return str(group), str(sub), str(doc), value


# === DataFrames ===


def _library(obj: Any) -> Optional[str]:
    """'pandas', 'polars' or 'pyarrow' when *obj* is one of theirs, else None."""
    for cls in type(obj).__mro__:
        root = cls.__module__.partition(".")[0]
        if root in _FRAMES:
            return root
    return None


def is_frame(obj: Any) -> bool:
    """Whether *obj* is a pandas, polars or pyarrow object (imports none of them).

    True also for their Series and lazy frames, so that the functions taking
    frames can say what to pass instead.

    >>> is_frame({"q1": {"d1": 1}}), is_frame([("q1", "d1", 1)])
    (False, False)
    """
    return _library(obj) is not None


def _column_names(obj: Any, lib: str, what: str) -> List[Any]:
    kinds, names = _FRAMES[lib]
    kind = type(obj).__name__
    if kind in kinds:
        return list(getattr(obj, names))
    if kind == "LazyFrame":
        hint = "call .collect() on it first"
    elif kind in ("Series", "ChunkedArray", "Array") or kind.endswith("Array"):
        hint = ("a single column has no query and document ids; pass the whole "
                "DataFrame, with query id, doc id and value columns")
    else:
        hint = "pass a pandas or polars DataFrame or a pyarrow Table"
    raise InvalidArgumentError(f"{what!r} is a {lib} {kind}: {hint}")


def _column(obj: Any, lib: str, name: Any) -> List[Any]:
    """One column of a frame as a list."""
    if lib == "pandas":
        column: List[Any] = obj[name].tolist()
    elif lib == "polars":
        column = obj.get_column(name).to_list()
    else:
        column = obj.column(name).to_pylist()
    return column


# === Converting the columns ===
#
# Each takes a whole column as a list and returns the converted list, with
# C-level passes when the column has one type, else value by value (raising
# _BadField for the first bad value; the caller says where it came from).


def _ids(values: List[Any]) -> List[str]:
    kinds = set(map(type, values))
    if kinds <= {str}:
        return values
    if kinds <= {str, int}:
        return list(map(str, values))
    return _one_by_one(values, _as_id)


def _relevances(values: List[Any]) -> List[int]:
    kinds = set(map(type, values))
    if kinds <= {int}:
        labels = values
    elif kinds == {float} and all(map(float.is_integer, values)):
        labels = list(map(int, values))
    else:
        labels = []
    # in range as from files; else value by value, naming the row
    if len(labels) == len(values) and (
        not labels or MIN_LABEL <= min(labels) and max(labels) <= MAX_LABEL
    ):
        return labels
    return _one_by_one(values, _as_relevance)


def _scores(values: List[Any]) -> List[float]:
    kinds = set(map(type, values))
    try:
        if kinds <= {float}:
            scores: List[float] = values
        elif kinds <= {float, int}:
            scores = list(map(float, values))
        else:
            scores = []
        if len(scores) == len(values) and not any(map(math.isnan, scores)):
            return scores
    except OverflowError:
        pass
    return _one_by_one(values, _as_score)


def _one_by_one(values: List[Any], convert: Callable[[Any], Any]) -> List[Any]:
    out = []
    for row, value in enumerate(values):
        try:
            out.append(convert(value))
        except (TypeError, ValueError) as exc:
            raise _BadField(row, str(exc)) from None
    return out


#: The converter of each role's column.
_CONVERT: Dict[str, Callable[[List[Any]], List[Any]]] = {
    "query_id": _ids,
    "doc_id": _ids,
    "subtopic": _ids,
    "relevance": _relevances,
    "score": _scores,
}


def _labels(roles: Sequence[str]) -> List[str]:
    """The roles as messages name them: ``query_id`` is "query id"."""
    return [role.replace("_", " ") for role in roles]


def _converted(
    roles: Sequence[str], columns: Sequence[Any], labels: Sequence[str], source: str
) -> List[List[Any]]:
    """Each role's column converted (ids to str, labels to int, scores to float);
    a bad value names its 1-based row."""
    out: List[List[Any]] = []
    for role, values, label in zip(roles, columns, labels):
        try:
            out.append(_CONVERT[role](values))
        except _BadField as bad:
            raise TrecFormatError(f"{label} {bad}", source, bad.row + 1) from None
    return out


def _group(
    qids: List[Any], docids: List[str], values: List[V], source: str
) -> Dict[Any, Dict[str, V]]:
    """{qid: {docid: value}}: one dict(zip(...)) per run of rows of one query
    (or of one (query, subtopic) pair)."""
    out: Dict[Any, Dict[str, V]] = {}
    start = 0
    for qid, rows in groupby(qids):
        end = start + len(list(rows))
        docs = out.get(qid)
        if docs is None:
            docs = out[qid] = dict(zip(docids[start:end], values[start:end]))
            expected = end - start
        else:  # the query's rows are not all together
            expected = len(docs) + end - start
            docs.update(zip(docids[start:end], values[start:end]))
        if len(docs) != expected:
            _raise_duplicate(qids, docids, source)
        start = end
    return out


def _raise_duplicate(qids: List[Any], docids: List[str], source: str) -> None:
    first: Dict[Tuple[Any, str], int] = {}
    for row, key in enumerate(zip(qids, docids), 1):
        at = first.setdefault(key, row)
        if at != row:
            qid, subtopic = key[0] if isinstance(key[0], tuple) else (key[0], None)
            raise DuplicateEntryError(source, at, row, qid, key[1], subtopic)
    raise AssertionError("unreachable: a duplicate was counted but not found")  # pragma: no cover


def _table(
    frame: Any, what: str, value_role: str, columns: Any, described: Optional[str] = None
) -> Dict[str, Dict[str, Any]]:
    lib = _library(frame)
    if lib is None:
        raise InvalidArgumentError(
            f"{what!r} must be a pandas or polars DataFrame or a pyarrow Table "
            f"(got {type(frame).__name__})"
        )
    roles = ("query_id", "doc_id", value_role)
    described = described or f"{lib} {type(frame).__name__}"
    seen = _column_names(frame, lib, what)
    index = [n for n in frame.index.names if n is not None] if lib == "pandas" else []
    found = choose_columns(seen, described, what, roles, columns, index)
    names = [found[role] for role in roles]
    labels = [f"{label} (column {name!r})" for label, name in zip(_labels(roles), names)]
    values = [_column(frame, lib, name) for name in names]
    source = f"<{described}>"
    qids, docids, converted = _converted(roles, values, labels, source)
    return _group(qids, docids, converted, source)


def qrels_table(
    frame: Any, *, columns: Optional[Mapping[str, Any]] = None, source: Optional[str] = None
) -> Dict[str, Dict[str, int]]:
    """``{query id: {doc id: relevance}}`` from a frame (see the module's docstring).

    *source* names the frame in errors about its values when it is a copy of
    another (the Dask and Spark engines' qrels, collected: ``"Spark
    DataFrame"``); by default, the frame's own kind (``"pandas DataFrame"``).

    >>> qrels_table([("q1", "d1", 1)])
    Traceback (most recent call last):
    ...
    irmetrics.errors.InvalidArgumentError: 'qrels' must be a pandas or polars DataFrame
    or a pyarrow Table (got list)
    """
    return _table(frame, "qrels", "relevance", columns, source)


def run_table(
    frame: Any, *, columns: Optional[Mapping[str, Any]] = None
) -> Dict[str, Dict[str, float]]:
    """``{query id: {doc id: score}}`` from a frame (see the module's docstring)."""
    return _table(frame, "run", "score", columns)

