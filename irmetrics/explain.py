"""explain(): why a query gets the value it gets, rank by rank.

:func:`explain` takes the same inputs as :func:`~irmetrics.evaluate` (a
:class:`~irmetrics.Qrels` and a :class:`~irmetrics.Run`, dicts of dicts or
TREC files), one query id and one measure name (trec_eval's or ir_measures'
spelling), and returns an :class:`Explanation`:

* ``value``: the value evaluate() gives for that query, computed by the same
  registry function on the same per-query data (never derived a second time);
* ``rows``: the ranking in the order the measure sees it (score descending,
  ties broken by document id descending, after ``depth`` and
  ``judged_only``), one dict per document with ``rank``, ``doc``, ``score``,
  ``label`` (``None`` unjudged, ``-1`` pooled but not judged), ``tie`` (the
  number of its block of tied scores, or ``None``) and the measure's own terms
  at that rank;
* the normaliser where there is one: ``n_relevant`` (R), ``ideal`` (the ideal
  DCG and the ideal ranking it came from);
* ``str()``: the derivation as a worked example; ``_repr_html_()``: the same
  as a table for notebooks.

The terms come from the measure's family: its entry in
:data:`irmetrics.measures.FAMILIES` gives them (``explain=``).  They are for
reading; the value is the registry's.

>>> qrels = {"q1": {"a": 1, "b": 1, "c": 1, "d": 1, "e": 0}}
>>> run = {"q1": {"a": 6, "b": 5, "e": 4, "c": 3, "x": 2, "d": 1}}
>>> e = explain(qrels, run, "q1", "AP")
>>> round(e.value, 4)   # (1/1 + 2/2 + 3/4 + 4/6) / 4
0.8542
>>> [r["precision"] for r in e.rows][:3]
[1.0, 1.0, None]
"""

from __future__ import annotations

from itertools import groupby
from operator import itemgetter
from typing import (
    Any,
    Dict,
    List,
    Mapping,
    Optional,
    Sequence,
    Tuple,
)

from ._text import one_line, quoted
from .data import Qrels
from .errors import InvalidArgumentError, IrmetricsError, UnknownMeasureError
from .evaluate import _checked, _Scorer
from .evaluation import Options
from .formats import html_table
from .measures import Env, QueryData, Ranking, Row, Terms, _fmt, parse_measure
from .report import aligned
from .sources import open_qrels, open_run

__all__ = ["explain", "Explanation"]

#: Rows shown by ``str()`` and ``_repr_html_()`` at most (``rows`` has them all).
MAX_ROWS_SHOWN = 100


class Explanation:
    """How one query's value for one measure is derived (see :func:`explain`).

    Attributes: ``query``, ``measure`` (the name as given), ``name`` (the
    canonical name), ``value``, ``rows`` (a list of dicts), ``columns`` (the
    term keys of the rows, in display order), ``formula`` (the formula in
    plain text), ``steps`` (the arithmetic, line by line), ``n_relevant`` (R,
    or ``None`` for measures without it), ``ideal`` (a dict with the ideal
    ranking's ``labels``, ``gains`` and ``dcg``, for the nDCG family; else
    ``None``) and ``shown`` (how many rows the derivation needs).
    """

    def __init__(
        self,
        query: str,
        measure: str,
        name: str,
        value: Any,
        rows: List[Row],
        terms: Terms,
        options: str,
    ) -> None:
        self.query = query
        self.measure = measure
        self.name = name
        self.value = value
        self.rows = rows
        self.columns = tuple(terms.columns)
        self.formula = terms.formula
        self.steps = tuple(terms.steps)
        self.n_relevant = terms.n_relevant
        self.ideal = terms.ideal
        self.shown = len(rows) if terms.extent is None else min(terms.extent, len(rows))
        self._rest = terms.rest
        self._options = options

    def __repr__(self) -> str:
        return (f"Explanation(query={quoted(self.query)}, measure={quoted(self.measure)}, "
                f"value={_fmt(self.value)}, rows={len(self.rows)})")

    def to_dict(self) -> Dict[str, Any]:
        """Everything as plain data (what ``irmetrics explain --format json`` prints)."""
        return {
            "query": self.query, "measure": self.measure, "name": self.name,
            "value": self.value, "n_relevant": self.n_relevant,
            "ideal": None if self.ideal is None else dict(self.ideal),
            "columns": list(self.columns), "rows": [dict(r) for r in self.rows],
            "formula": self.formula, "steps": list(self.steps),
        }

    # === The derivation as text ===

    def _title(self) -> str:
        alias = "" if self.measure == self.name else f" ({self.name})"
        return f"{one_line(self.measure)}{alias} for query {quoted(self.query)}{self._options}"

    def _table(self) -> Tuple[List[str], List[List[str]]]:
        header = ["rank", "doc", "score", "label", "tie"] + [_HEADERS.get(c, c)
                                                             for c in self.columns]
        cells = []
        for r in self.rows[: min(self.shown, MAX_ROWS_SHOWN)]:
            cells.append([str(r["rank"]), one_line(r["doc"]), f"{r['score']:g}",
                          "-" if r["label"] is None else str(r["label"]),
                          "" if r["tie"] is None else f"T{r['tie']}"]
                         + [_cell(r[c]) for c in self.columns])
        return header, cells

    def _notes(self) -> List[str]:
        notes = []
        n = len(self.rows)
        shown = min(self.shown, MAX_ROWS_SHOWN)
        if shown < n:
            if shown < self.shown:
                notes.append(f"ranks {shown + 1}-{n} not shown (see .rows)")
            else:
                where = f"rank {n}" if shown + 1 == n else f"ranks {shown + 1}-{n}"
                notes.append(f"{where} not shown: {self._rest}")
        if not self.rows:
            notes.append("the ranking is empty")
        labels = [r["label"] for r in self.rows[:shown]]
        legend = []
        if any(x is None for x in labels):
            legend.append("'-' not in the qrels (unjudged)")
        if any(x is not None and x < 0 for x in labels):
            legend.append("-1 pooled but not judged")
        if legend:
            notes.append("label " + "; ".join(legend))
        if any(r["tie"] is not None for r in self.rows[:shown]):
            notes.append("T1, T2, ...: blocks of tied scores, in trec_eval's order "
                         "(document id descending)")
        return notes

    def __str__(self) -> str:
        lines = [self._title(), "  " + self.formula, ""]
        header, cells = self._table()
        if cells:  # the header and the rows, right-aligned but for the doc column
            lines.extend(aligned([header] + cells, {1}))
        lines.extend(self._notes())
        lines.append("")
        lines.extend(self.steps)
        lines.append(f"{self.name} = {_fmt(self.value)}")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        """The derivation as an HTML table, for notebooks; every id and name escaped."""
        import html  # only for notebooks

        esc = html.escape
        header, cells = self._table()
        out = [f"<div><p><b>{esc(self._title())}</b><br><code>{esc(self.formula)}</code></p>",
               html_table(header, cells, sep="\n")]
        for line in self._notes() + [""] + list(self.steps):
            if line:
                out.append(f"<p>{esc(line)}</p>")
        out.append(f"<p><b>{esc(self.name)} = {esc(_fmt(self.value))}</b></p></div>")
        return "\n".join(out)


# === Formatting ==============================================================


#: Column headers that differ from the rows' keys.
_HEADERS = {
    "relevant": "rel", "precision": "P@rank", "contribution": "term",
    "nonrel_above": "nonrel above", "stop": "R_i", "reach": "P(reach)",
}


def _cell(x: Any) -> str:
    if x is None or x is False:
        return ""
    return _fmt(x)


# === explain() ===============================================================


def explain(
    qrels: Any,
    run: Any,
    query: str,
    measure: str,
    *,
    relevance_level: int = 1,
    complete: bool = False,
    depth: Optional[int] = None,
    judged_only: bool = False,
    scores: str = "float64",
    trec_eval: str = "9.0.8",
    costs: Any = None,
    collection_size: int = 0,
) -> Explanation:
    """Explain the value of *measure* for one *query*: the ranking and the arithmetic.

    *qrels*, *run* and the keyword options are those of
    :func:`~irmetrics.evaluate` (*costs*: each document's cost, which the
    C/W/L measures read; *collection_size*: trec_eval's -N, which utility
    reads); *measure* is one name in trec_eval's or
    ir_measures' spelling (``map``, ``AP``, ``ndcg_cut_10``, ``nDCG@10``,
    ``P(rel=2)@5``).  ``explain(...).value`` equals
    ``evaluate(...).per_query[query][measure]`` with the same options.

    An unknown measure raises :class:`~irmetrics.errors.UnknownMeasureError`
    (with suggestions); a query that is not evaluated (in neither input, not
    judged, or not in the run without ``complete=True``) raises
    :class:`~irmetrics.errors.InvalidArgumentError` naming it.

    >>> e = explain({"q": {"a": 2, "b": 1}}, {"q": {"a": 1.0, "b": 2.0}}, "q", "nDCG")
    >>> [(r["rank"], r["doc"], r["gain"]) for r in e.rows]
    [(1, 'b', 1.0), (2, 'a', 2.0)]
    >>> e.ideal["labels"], round(e.value, 4)   # (1 + 2/log2(3)) / (2 + 1/log2(3))
    ([2, 1], 0.8597)
    """
    _check_measure(qrels, query, measure)
    _, (m,), options = _checked([measure], relevance_level=relevance_level, complete=complete,
                                depth=depth, judged_only=judged_only, scores=scores,
                                trec_eval=trec_eval, costs=costs,
                                collection_size=collection_size)
    table, qrels_duplicates = open_qrels(qrels)
    # The run is scored by evaluate()'s own scorer, on this query only; its
    # hook keeps the query's documents as scored and their data.
    kept: List[Tuple[Sequence[Any], Sequence[float], QueryData]] = []
    scorer = _Scorer(table, [m], options, queries={query},
                     on_query=lambda qid, docids, scores, data: kept.append((docids, scores, data)))
    source = open_run(run, keep_duplicates=True)
    scorer.consume(source)
    in_run = query in scorer.seen  # scored, or skipped for want of judgments
    _check_query(table, query, in_run, complete)
    for error in qrels_duplicates:
        if error.qid == query:
            raise error
    if not in_run:
        scorer.add_empty(query)  # as evaluate(complete=True) scores it
    docids, run_scores, data = kept[-1]
    value = scorer.values[query][0]  # evaluate()'s value for the query
    env = Env(options.relevance_level, scorer.max_label, scorer.run_name, options.version,
              options.collection_size)
    judgments: Mapping[Any, int] = table[query]
    if source.encoded:
        judgments = {d.encode("utf-8"): v for d, v in judgments.items()}
    rows = _rows(docids, run_scores, judgments, data, options, source.encoded)
    if m.family.explain is None:  # the ranking and labels it reads, without terms
        terms = Terms([], m.family.summary,
                      ["(no per-rank terms for this measure: the rows show the labels it reads)"])
    else:
        terms = m.family.explain(Ranking(data, m, env, rows))
    return Explanation(query, measure.strip(), m.name, value, rows, terms, _options_text(options))


def _check_measure(qrels: Any, query: Any, measure: Any) -> None:
    """That *measure* is a measure name and *query* a str; a query and
    measure that seem swapped are said so."""
    if not isinstance(measure, str):
        raise InvalidArgumentError(
            f"'measure' must be one measure name (str) (got {type(measure).__name__})")
    try:
        parse_measure(measure)
    except UnknownMeasureError as exc:
        # the command line's order (-m MEASURE ... QUERY) is not this one's
        signs = []
        if _is_query(qrels, measure):
            signs.append(f"{quoted(measure)} is a query id of the qrels")
        if _is_measure(query):
            signs.append(f"{quoted(query)} is a measure name")
        if signs:
            raise InvalidArgumentError(f"{exc}; {' and '.join(signs)}: {_SWAPPED}") from None
        raise
    if not isinstance(query, str):
        raise InvalidArgumentError(f"'query' must be a query id (str) (got {quoted(query)})")


def _check_query(qrels: Qrels, query: str, in_run: bool, complete: bool) -> None:
    """That evaluate() gives *query* a value: judged, and in the run or *complete*."""
    # a query that is not in the run but is a measure name: swapped arguments?
    swapped = (f"; {quoted(query)} is a measure name: {_SWAPPED}"
               if not in_run and _is_measure(query) else "")
    if query not in qrels:
        if in_run:
            raise InvalidArgumentError(
                f"query {quoted(query)} has no judgments in the qrels: evaluate() skips it")
        raise InvalidArgumentError(
            f"unknown query {quoted(query)}: in neither the run nor the qrels{swapped}")
    if not in_run and not complete:
        raise InvalidArgumentError(
            f"query {quoted(query)} is not in the run: evaluate() leaves it out "
            f"(complete=True scores it as an empty ranking){swapped}")


def _options_text(options: Options) -> str:
    """The options that differ from the defaults, as the title shows them."""
    shown = []
    if options.relevance_level != 1:
        shown.append(f"relevance_level={options.relevance_level}")
    if options.depth is not None:
        shown.append(f"depth={options.depth}")
    if options.judged_only:
        shown.append("judged_only")
    if options.float32:
        shown.append("float32 scores")
    if options.trec_eval != "9.0.8":
        shown.append(f"trec_eval {options.trec_eval}")
    return f" ({', '.join(shown)})" if shown else ""


_SWAPPED = ("the query and the measure seem swapped (explain(qrels, run, query, measure); "
            "on the command line: irmetrics explain -m MEASURE QRELS RUN QUERY)")


def _is_measure(text: Any) -> bool:
    """Whether *text* is a measure name (a str that parses)."""
    try:
        parse_measure(text)
    except IrmetricsError:
        return False
    return True


def _is_query(qrels: Any, text: str) -> bool:
    """Whether *text* is a query id of *qrels* (False when they cannot be read)."""
    try:
        return text in open_qrels(qrels)[0]
    except (IrmetricsError, OSError):
        return False


def _rows(docids: Sequence[Any], scores: Sequence[float], judgments: Mapping[Any, int],
          data: QueryData, options: Options, encoded: bool) -> List[Row]:
    """The ranking as the measure sees it, one dict per document; ``tie``
    numbers the blocks of neighbours with equal scores."""
    rows: List[Row] = []
    for score, doc in sorted(zip(scores, docids), reverse=True)[:options.depth]:
        label = judgments.get(doc)
        if label is not None and label < 0:
            label = -1
        if options.judged_only and (label is None or label < 0):
            continue
        shown = doc.decode("utf-8", "replace") if encoded else doc
        rows.append({"rank": len(rows) + 1, "doc": shown, "score": score, "label": label,
                     "tie": None})
    if [r["label"] for r in rows] != list(data.labels):  # pragma: no cover - a bug if so
        raise RuntimeError("explain(): the ranking disagrees with the evaluation's labels")
    blocks = [list(block) for _, block in groupby(rows, key=itemgetter("score"))]
    for number, block in enumerate((b for b in blocks if len(b) > 1), 1):
        for row in block:
            row["tie"] = number
    return rows
