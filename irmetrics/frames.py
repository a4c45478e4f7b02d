"""DataFrames in and out: pandas, polars and pyarrow, without importing them.

irmetrics depends on none of these libraries.  A frame is recognised by the
module its type comes from (``type(obj).__module__``), so that checking
whether an argument is a frame never imports anything; the library itself
is imported only to *build* a frame (:func:`evaluation_frame`,
:func:`comparison_frame`), and a missing one is an :class:`ImportError`
naming the extra to install (``pip install 'irmetrics-eval[pandas]'``).

Catalogue
---------
In: :func:`is_frame`, :func:`qrels_table`, :func:`run_table` (what
``Qrels(df)``, ``Run(df)``, ``Qrels.from_dataframe``, ``Run.from_dataframe``
and :func:`~irmetrics.evaluate` use; they are written in
``irmetrics/_tabular.py``, the one reader of tables, with records and the
Dask and Spark engines).

Out: :func:`evaluation_frame`, :func:`comparison_frame`,
:func:`evaluation_html` (from :mod:`irmetrics.formats`; what ``Evaluation.to_dataframe()``,
``Comparison.to_dataframe()`` and ``Evaluation._repr_html_()`` return; they
read only the plain attributes of what they are given, so that
:class:`~irmetrics.Evaluation` can call them without this module importing
it).

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
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple

from ._checks import check_choice
from ._tabular import _COLUMN_NAMES, choose_columns, is_frame, qrels_table, run_table
from .errors import InvalidArgumentError, _optional_import
from .formats import evaluation_html

if TYPE_CHECKING:
    from .compare import Comparison
    from .evaluate import Evaluation

__all__ = ["choose_columns", "QUERY_COLUMNS", "DOC_COLUMNS", "RELEVANCE_COLUMNS", "SCORE_COLUMNS",
           "BACKENDS", "is_frame", "qrels_table", "run_table", "evaluation_frame",
           "comparison_frame", "evaluation_html"]

#: Column names looked for, by role, first match first: the table records
#: (:meth:`~irmetrics.Qrels.from_records`) and the Dask and Spark engines use.
QUERY_COLUMNS = _COLUMN_NAMES["query_id"]
DOC_COLUMNS = _COLUMN_NAMES["doc_id"]
RELEVANCE_COLUMNS = _COLUMN_NAMES["relevance"]
SCORE_COLUMNS = _COLUMN_NAMES["score"]

#: The libraries :func:`evaluation_frame` and :func:`comparison_frame` build for.
BACKENDS = ("pandas", "polars")


# === Frames out ===


#: pandas' dtype of each kind: (without missing values, with them); None: pandas' own.
_PANDAS_TYPES: Dict[str, Tuple[Optional[str], Optional[str]]] = {
    "int": ("int64", "Int64"), "bool": ("bool", "boolean"), "float": ("float64", "float64"),
    "str": (None, None),
}


def _build(columns: Dict[str, List[Any]], kinds: Dict[str, str], backend: str, purpose: str) -> Any:
    """A frame of *backend* from {name: values}; kinds: 'str', 'int', 'float' or 'bool'."""
    if backend == "polars":
        pl = _optional_import("polars", purpose, "polars")
        types = {"str": pl.String, "int": pl.Int64, "float": pl.Float64, "bool": pl.Boolean}
        return pl.DataFrame(
            [pl.Series(name, values, dtype=types[kinds[name]]) for name, values in columns.items()]
        )
    pd = _optional_import("pandas", purpose, "pandas")
    series = {}
    for name, values in columns.items():
        kind = kinds[name]
        if kind == "float":
            values = [math.nan if v is None else v for v in values]
        dtype = _PANDAS_TYPES[kind][any(v is None for v in values)]
        series[name] = pd.Series(values, dtype=dtype, name=name)
    return pd.DataFrame(series)


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
    backend = check_choice(backend, "backend", BACKENDS)
    if not isinstance(aggregate, bool):
        raise InvalidArgumentError(f"'aggregate' must be a bool (got {aggregate!r})")
    if aggregate:
        rows: Dict[str, Any] = {"all": [evaluation._aggregate[k] for k in evaluation._keys]}
    else:
        rows = evaluation._rows
    columns: Dict[str, List[Any]] = {"query_id": list(rows)}
    kinds = {"query_id": "str"}
    for c, key in enumerate(evaluation._keys):
        column = [row[c] for row in rows.values()]
        kinds[key] = "int" if all(type(v) is int for v in column) else "float"
        columns[key] = column if kinds[key] == "int" else [float(v) for v in column]
    return _build(columns, kinds, backend, "Evaluation.to_dataframe()")


#: The columns of a comparison's rows, in order, and the kind of each:
#: :data:`irmetrics.compare.ROW_KEYS` are its keys.
_ROW_KINDS = {
    "measure": "str", "run": "str", "baseline": "bool", "mean": "float",
    "difference": "float", "ci_low": "float", "ci_high": "float", "statistic": "float",
    "p_value": "float", "p_adjusted": "float", "significant": "bool", "wins": "int",
    "ties": "int", "losses": "int", "note": "str", "versus": "str", "effect_size": "float",
    "effect_ci_low": "float", "effect_ci_high": "float",
}


def comparison_frame(comparison: Comparison, *, backend: str = "pandas") -> Any:
    """The rows of *comparison* as a DataFrame: one row per measure and run.

    Columns: :data:`~irmetrics.compare.ROW_KEYS` in that order (``measure``,
    ``run``, ``baseline``, ``mean``, ``difference``, ``ci_low``, ``ci_high``,
    ``statistic``, ``p_value``, ``p_adjusted``, ``significant``, ``wins``,
    ``ties``, ``losses``, ``note``, ``versus``, ``effect_size``,
    ``effect_ci_low``, ``effect_ci_high``); what does not apply (the baseline's
    difference, a p-value the test leaves undefined) is missing (NaN or
    ``<NA>`` in pandas, null in polars).
    """
    backend = check_choice(backend, "backend", BACKENDS)
    columns = {k: [r[k] for r in comparison._rows] for k in _ROW_KINDS}
    return _build(columns, _ROW_KINDS, backend, "Comparison.to_dataframe()")
