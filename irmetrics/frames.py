"""DataFrames in and out: pandas, polars and pyarrow, without importing them.

irmetrics depends on none of these libraries.  A frame is recognised by the
module its type comes from (``type(obj).__module__``), so that checking
whether an argument is a frame never imports anything; the library itself
is imported only to *build* a frame (:func:`evaluation_frame`,
:func:`comparison_frame`), and a missing one is an :class:`ImportError`
naming the extra to install (``pip install irmetrics[pandas]``).

Catalogue
---------
In: :func:`is_frame`, :func:`qrels_table`, :func:`run_table` (what
``Qrels(df)``, ``Run(df)``, ``Qrels.from_dataframe``, ``Run.from_dataframe``
and :func:`~irmetrics.evaluate` use).

Out: :func:`evaluation_frame`, :func:`comparison_frame`,
(what ``Evaluation.to_dataframe()`` and ``Comparison.to_dataframe()``
return; the HTML of ``Evaluation._repr_html_()`` is in :mod:`irmetrics.formats`).

Columns
-------
Found by name, in any order; other columns are ignored:

=============  ==============================================================
query id       ``query_id`` (ir_datasets, ir_measures), ``qid`` (PyTerrier)
document id    ``doc_id``, ``docno`` (PyTerrier), ``docid``
relevance      ``relevance``, ``label`` (PyTerrier), ``rel``
score          ``score``
=============  ==============================================================

The first name present wins (PyTerrier's result frames hold both ``docno``,
the document's id, and ``docid``, Terrier's internal number: ``docno`` is
used).  ``columns={"query_id": "topic", ...}`` names the columns of any other
frame, by role: ``query_id``, ``doc_id`` and ``relevance`` (qrels) or
``score`` (runs).

Ids become what a TREC file gives: a ``str`` column is kept as it is
(``"007"`` stays ``"007"``), an integer column becomes decimal strings
(``7`` -> ``"7"``); floats, bools and missing values are errors.  Values
follow the rules of :class:`~irmetrics.Qrels` and :class:`~irmetrics.Run`
(relevance an ``int``, integral floats such as ``1.0`` accepted; score a
real number, infinities allowed, NaN not).  Errors are those of
:meth:`~irmetrics.Qrels.from_records`: a
:class:`~irmetrics.errors.TrecFormatError` whose ``line`` is the 1-based row
position (``df.iloc[line - 1]``), a
:class:`~irmetrics.errors.DuplicateEntryError` naming both rows.

Columns are read whole (``Series.tolist()``, ``Series.to_list()``,
``ChunkedArray.to_pylist()``), checked with C-level passes (``map``,
``set``), and each query's documents become a dict in one
``dict(zip(...))``: no Python statement runs per row unless a value needs
converting one by one (mixed types) or is wrong.  Rows of one query are
best kept together (as any run file and sorted frame has them); scattered
rows are still right, only slower.
"""

from __future__ import annotations

import math
from itertools import groupby
from typing import (
    TYPE_CHECKING,
    Any,
    Callable,
    Dict,
    List,
    Mapping,
    Optional,
    Sequence,
    Tuple,
    TypeVar,
)

from .data import _COLUMN_NAMES, _as_id, _as_relevance, _as_score
from .errors import DuplicateEntryError, InvalidArgumentError, TrecFormatError
from .trec import MAX_LABEL, MIN_LABEL

if TYPE_CHECKING:
    from .compare import Comparison
    from .evaluate import Evaluation

__all__ = [
    "choose_columns",
    "QUERY_COLUMNS",
    "DOC_COLUMNS",
    "RELEVANCE_COLUMNS",
    "SCORE_COLUMNS",
    "BACKENDS",
    "is_frame",
    "qrels_table",
    "run_table",
    "evaluation_frame",
    "comparison_frame",
]

#: Column names looked for, by role, first match first: the table records
#: (:meth:`~irmetrics.Qrels.from_records`) and the Dask and Spark engines use.
QUERY_COLUMNS = _COLUMN_NAMES["query_id"]
DOC_COLUMNS = _COLUMN_NAMES["doc_id"]
RELEVANCE_COLUMNS = _COLUMN_NAMES["relevance"]
SCORE_COLUMNS = _COLUMN_NAMES["score"]

#: The libraries :func:`evaluation_frame` and :func:`comparison_frame` build for.
BACKENDS = ("pandas", "polars")

_LIBRARIES = ("pandas", "polars", "pyarrow")

V = TypeVar("V", int, float)

# === Recognising a frame ===


def _library(obj: Any) -> Optional[str]:
    """'pandas', 'polars' or 'pyarrow' when *obj* is one of theirs, else None."""
    for cls in type(obj).__mro__:
        root = cls.__module__.partition(".")[0]
        if root in _LIBRARIES:
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


def _describe(obj: Any, lib: str) -> str:
    return f"{lib} {type(obj).__name__}"


def _column_names(obj: Any, lib: str, what: str) -> List[Any]:
    kind = type(obj).__name__
    if lib == "pandas" and kind == "DataFrame":
        return list(obj.columns)
    if lib == "polars" and kind == "DataFrame":
        return list(obj.columns)
    if lib == "pyarrow" and kind in ("Table", "RecordBatch"):
        return list(obj.column_names)
    if kind == "LazyFrame":
        hint = "call .collect() on it first"
    elif kind in ("Series", "ChunkedArray", "Array") or kind.endswith("Array"):
        hint = ("a single column has no query and document ids; pass the whole "
                "DataFrame, with query id, doc id and value columns")
    else:
        hint = "pass a pandas or polars DataFrame or a pyarrow Table"
    raise InvalidArgumentError(f"{what!r} is a {_describe(obj, lib)}: {hint}")


def _column(obj: Any, lib: str, name: Any) -> List[Any]:
    if lib == "pandas":
        values: List[Any] = obj[name].tolist()
    elif lib == "polars":
        values = obj.get_column(name).to_list()
    else:
        values = obj.column(name).to_pylist()
    return values


# === Finding the columns ===


def _find_columns(
    obj: Any, lib: str, what: str, roles: Dict[str, Tuple[str, ...]], columns: Any, source: str
) -> Dict[str, Any]:
    """{role: column name} for every role of *roles*, or an error saying what is missing."""
    seen = _column_names(obj, lib, what)
    index = [n for n in obj.index.names if n is not None] if lib == "pandas" else []
    return choose_columns(seen, source, what, roles, columns, index)


def choose_columns(
    seen: List[Any],
    source: str,
    what: str,
    roles: Dict[str, Tuple[str, ...]],
    columns: Any,
    index: Sequence[Any] = (),
) -> Dict[str, Any]:
    """{role: column name} for every role of *roles*, from the column names *seen*.

    The one finder of columns, for the frames here and the Dask and Spark
    engines (:mod:`irmetrics._engines`): *columns* (``{role: name}``, any
    subset, checked) first, then each role's names in their order, the
    first present winning.  *source* describes the frame in messages
    (``"pandas DataFrame"``); *index* holds the names of a pandas index, for
    a hint when the ids are there.
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
    for role, candidates in roles.items():
        if role in chosen:
            continue
        for name in candidates:
            if name in seen:
                chosen[role] = name
                break
        else:
            missing.append(role)
    if missing:
        looked = "; ".join(f"{role}: {' or '.join(map(repr, roles[role]))}" for role in missing)
        example = ", ".join(f"{role!r}: ..." for role in missing)
        hint = ""
        if any(n in roles[r] for r in missing for n in index):
            hint = "; the index holds some of them: call .reset_index() first"
        raise InvalidArgumentError(
            f"the {source} given as {what!r} has no {' and no '.join(missing)} column "
            f"(its columns: {_names(seen)}); looked for {looked}; name the columns with "
            f"columns={{{example}}}{hint}"
        )
    names = list(chosen.values())
    for name in names:
        if seen.count(name) > 1:
            raise InvalidArgumentError(
                f"the {source} given as {what!r} has two columns named {name!r}"
            )
    return chosen


def _names(seen: List[Any]) -> str:
    return ", ".join(repr(n) for n in seen) if seen else "none"


# === Converting the columns ===
#
# Each takes a whole column as a list and returns the converted list, with
# C-level passes when the column has one type, else value by value (naming
# the row of the first bad value).


def _ids(values: List[Any], role: str, column: Any, source: str) -> List[str]:
    kinds = set(map(type, values))
    if kinds <= {str}:
        return values
    if kinds <= {str, int}:
        return list(map(str, values))
    return _one_by_one(values, _as_id, role, column, source)


def _relevances(values: List[Any], column: Any, source: str) -> List[int]:
    kinds = set(map(type, values))
    if kinds <= {int}:
        labels = values
    elif kinds == {float} and all(map(float.is_integer, values)):
        labels = list(map(int, values))
    else:
        labels = []
    # in range as from dicts and files; else value by value, naming the row
    if len(labels) == len(values) and (
        not labels or MIN_LABEL <= min(labels) and max(labels) <= MAX_LABEL
    ):
        return labels
    return _one_by_one(values, _as_relevance, "relevance", column, source)


def _scores(values: List[Any], column: Any, source: str) -> List[float]:
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
    return _one_by_one(values, _as_score, "score", column, source)


def _one_by_one(
    values: List[Any], convert: Callable[[Any], Any], role: str, column: Any, source: str
) -> List[Any]:
    out = []
    for row, value in enumerate(values, 1):
        try:
            out.append(convert(value))
        except (TypeError, ValueError) as exc:
            raise TrecFormatError(f"{role} (column {column!r}) {exc}", source, row) from None
    return out


def _group(
    qids: List[str], docids: List[str], values: List[V], source: str
) -> Dict[str, Dict[str, V]]:
    """{qid: {docid: value}}: one dict(zip(...)) per run of rows of one query."""
    out: Dict[str, Dict[str, V]] = {}
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


def _raise_duplicate(qids: List[str], docids: List[str], source: str) -> None:
    first: Dict[Tuple[str, str], int] = {}
    for row, key in enumerate(zip(qids, docids), 1):
        at = first.setdefault(key, row)
        if at != row:
            raise DuplicateEntryError(source, at, row, key[0], key[1])
    raise AssertionError("unreachable: a duplicate was counted but not found")  # pragma: no cover


def _table(
    frame: Any,
    what: str,
    value_role: str,
    value_names: Tuple[str, ...],
    convert: Callable[[List[Any], Any, str], List[Any]],
    columns: Any,
    described: Optional[str] = None,
) -> Dict[str, Dict[str, Any]]:
    lib = _library(frame)
    if lib is None:
        raise InvalidArgumentError(
            f"{what!r} must be a pandas or polars DataFrame or a pyarrow Table "
            f"(got {type(frame).__name__})"
        )
    roles = {"query_id": QUERY_COLUMNS, "doc_id": DOC_COLUMNS, value_role: value_names}
    described = described or _describe(frame, lib)
    found = _find_columns(frame, lib, what, roles, columns, described)
    source = f"<{described}>"
    qcol, dcol, vcol = found["query_id"], found["doc_id"], found[value_role]
    qids = _ids(_column(frame, lib, qcol), "query id", qcol, source)
    docids = _ids(_column(frame, lib, dcol), "doc id", dcol, source)
    values = convert(_column(frame, lib, vcol), vcol, source)
    return _group(qids, docids, values, source)


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
    return _table(frame, "qrels", "relevance", RELEVANCE_COLUMNS, _relevances, columns, source)


def run_table(
    frame: Any, *, columns: Optional[Mapping[str, Any]] = None
) -> Dict[str, Dict[str, float]]:
    """``{query id: {doc id: score}}`` from a frame (see the module's docstring)."""
    return _table(frame, "run", "score", SCORE_COLUMNS, _scores, columns)


# === Frames out ===


def _missing(name: str, purpose: str) -> ImportError:
    return ImportError(
        f"{purpose} needs {name}, which is not installed: pip install irmetrics[{name}]",
        name=name,
    )


def _check_backend(backend: Any) -> str:
    if backend not in BACKENDS:
        raise InvalidArgumentError(
            f"'backend' must be one of {', '.join(map(repr, BACKENDS))} (got {backend!r})"
        )
    return str(backend)


def _build(columns: Dict[str, List[Any]], kinds: Dict[str, str], backend: str, purpose: str) -> Any:
    """A frame of *backend* from {name: values}; kinds: 'str', 'int', 'float' or 'bool'."""
    if backend == "polars":
        try:
            import polars as pl  # type: ignore[import-not-found, unused-ignore]
        except ImportError:
            raise _missing("polars", purpose) from None
        types = {"str": pl.String, "int": pl.Int64, "float": pl.Float64, "bool": pl.Boolean}
        return pl.DataFrame(
            [pl.Series(name, values, dtype=types[kinds[name]]) for name, values in columns.items()]
        )
    try:
        import pandas as pd  # type: ignore[import-untyped, import-not-found, unused-ignore]
    except ImportError:
        raise _missing("pandas", purpose) from None
    series = {}
    for name, values in columns.items():
        kind = kinds[name]
        nullable = any(v is None for v in values)
        if kind == "int":
            dtype: Optional[str] = "Int64" if nullable else "int64"
        elif kind == "bool":
            dtype = "boolean" if nullable else "bool"
        elif kind == "float":
            dtype = "float64"
            values = [math.nan if v is None else v for v in values]
        else:
            dtype = None  # pandas' own string dtype
        series[name] = pd.Series(values, dtype=dtype, name=name)
    return pd.DataFrame(series)


def _numeric_kind(values: List[Any]) -> str:
    return "int" if all(type(v) is int for v in values) else "float"


def evaluation_frame(
    evaluation: Evaluation, *, backend: str = "pandas", aggregate: bool = False
) -> Any:
    """The per-query values (or the aggregate) of *evaluation* as a DataFrame.

    One row per query, in the evaluation's (sorted) query order, the query
    id in a ``query_id`` column, then one column per measure named as it
    was asked for.  With ``aggregate=True``: one row, ``query_id`` ``"all"``
    (as trec_eval prints it), the aggregate values in the same columns, so
    that the two frames concatenate.  Columns whose values are all ints
    (the counts, such as ``num_rel``) are integer columns, the others float.
    """
    backend = _check_backend(backend)
    if not isinstance(aggregate, bool):
        raise InvalidArgumentError(f"'aggregate' must be a bool (got {aggregate!r})")
    keys = list(evaluation._keys)
    if aggregate:
        qids = ["all"]
        rows: List[Any] = [[evaluation._aggregate[k] for k in keys]]
    else:
        qids = list(evaluation._rows)
        rows = list(evaluation._rows.values())
    columns: Dict[str, List[Any]] = {"query_id": qids}
    kinds = {"query_id": "str"}
    by_measure = list(zip(*rows)) if rows else [() for _ in keys]
    for key, values in zip(keys, by_measure):
        column = list(values)
        kinds[key] = _numeric_kind(column)
        columns[key] = column if kinds[key] == "int" else [float(v) for v in column]
    return _build(columns, kinds, backend, "Evaluation.to_dataframe()")


_COMPARISON_KINDS = {
    "measure": "str", "run": "str", "baseline": "bool", "mean": "float",
    "difference": "float", "ci_low": "float", "ci_high": "float", "statistic": "float",
    "p_value": "float", "p_adjusted": "float", "significant": "bool", "wins": "int",
    "ties": "int", "losses": "int", "note": "str",
}


def comparison_frame(comparison: Comparison, *, backend: str = "pandas") -> Any:
    """The rows of *comparison* as a DataFrame: one row per measure and run.

    Columns: :data:`~irmetrics.compare.ROW_KEYS` in that order (``measure``,
    ``run``, ``baseline``, ``mean``, ``difference``, ``ci_low``, ``ci_high``,
    ``statistic``, ``p_value``, ``p_adjusted``, ``significant``, ``wins``,
    ``ties``, ``losses``, ``note``); what does not apply (the baseline's
    difference, a p-value the test leaves undefined) is missing (NaN or
    ``<NA>`` in pandas, null in polars).
    """
    backend = _check_backend(backend)
    rows = comparison._rows
    keys = list(rows[0]) if rows else list(_COMPARISON_KINDS)
    columns = {k: [r[k] for r in rows] for k in keys}
    kinds = {k: _COMPARISON_KINDS.get(k, "str") for k in keys}
    return _build(columns, kinds, backend, "Comparison.to_dataframe()")
