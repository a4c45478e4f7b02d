"""An evaluation written out: trec_eval's lines, JSON, CSV and HTML.

What the command line prints, for a library user too::

    result = irmetrics.evaluate(qrels, run, ["map", "P_10"])
    print(irmetrics.formats.trec_text(result, per_query=True), end="")

Catalogue
---------
:func:`trec_text` (trec_eval's ``%-22s\\t%s\\t%6.4f`` lines, byte for byte;
:func:`trec_blocks` yields them a query at a time), :func:`json_text`,
:func:`csv_text` (``query,measure,value`` rows) and :func:`csv_lines`
(any rows, spreadsheet-safe), :func:`ndeval_text` (ndeval's CSV, what
``irmetrics --ndeval`` prints), :func:`evaluation_html` (what Jupyter shows)
and :func:`html_table`, the one HTML table writer of the library (explain
and the comparison reports use it too).

Each function reads an :class:`~irmetrics.evaluate.Evaluation`'s fields and
imports nothing of the road, so anything that holds an evaluation can call it.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Collection, Iterable, Iterator, List, Optional, Sequence

from ._tabular import DEFAULT_RUN_NAME
from ._text import strict_json
from .diversity import NDEVAL_MEASURES, subtopic_order

if TYPE_CHECKING:
    from .data import Qrels
    from .evaluation import Evaluation
    from .measures import Measure

__all__ = ["trec_text", "trec_blocks", "json_text", "csv_text", "csv_lines", "ndeval_text",
           "evaluation_html", "html_table"]

# === trec_eval's lines =========================================================


def trec_text(result: Evaluation, *, per_query: bool = False, summary: bool = True) -> str:
    """trec_eval's relational output: ``%-22s\\t%s\\t%6.4f`` lines.

    *per_query*: a block of lines per query first (trec_eval ``-q``);
    *summary*: the lines of ``all`` (trec_eval prints them unless ``-n``).

    >>> from irmetrics import evaluate
    >>> trec_text(evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, ["map", "num_q"])).splitlines()
    ['map                   \\tall\\t1.0000', 'num_q                 \\tall\\t1']
    """
    return "".join(trec_blocks(result, per_query=per_query, summary=summary))


def _trec_template(name: str, m: Measure, zscores: bool = False) -> str:
    # One %-format per measure, made once: "%-22s\t%s\t%6.4f\n" with the
    # name filled in; counts print as integers, text lines as text.  Z-scores
    # (trec_eval -Z) print as "Z%-22s\t%s\t%6.4f\n", counts too.
    if m.family.text:
        value = "'%s'" if m.family.key == "relstring" else "%s"
    else:
        value = "%d" if m.family.count and not zscores else "%6.4f"
        name = f"Z{name:<22}" if zscores else name
    return f"{name:<22}".replace("%", "%%") + "\t%s\t" + value + "\n"


def trec_blocks(result: Evaluation, *, per_query: bool = False,
                summary: bool = True, zscores: bool = False) -> Iterator[str]:
    """The text of :func:`trec_text`, one query's block at a time, then the
    summary; *zscores*: the lines of trec_eval ``-Z`` (see :mod:`irmetrics.zscores`)."""
    pairs = list(zip(result.names, result.measures))
    if per_query:
        shown = [(name, m) for name, m in pairs if m.family.per_query]
        # one template for a query's lines, given (qid, value, qid, value, ...)
        template = "".join(_trec_template(name, m, zscores) for name, m in shown)
        columns = [result._keys.index(name) for name, _ in shown]
        # under -c, trec_eval 9.0.8 prints no rows for the queries the run lacks; 10.0 does
        missing = set() if result._options.version.evaluates_missing else set(result.missing)
        for qid, row in result._rows.items():
            if qid in missing:
                continue
            yield template % tuple([x for c in columns for x in (qid, row[c])])
    if summary:
        agg = result._aggregate
        yield "".join(_trec_template(name, m, zscores) % ("all", agg[name])
                      for name, m in pairs if m.family.in_summary)


# === JSON and CSV ==============================================================


def json_text(result: Evaluation, *, per_query: bool = True, summary: bool = True) -> str:
    """:meth:`~irmetrics.evaluate.Evaluation.to_dict` as indented strict JSON
    (non-finite numbers as strings), without ``per_query`` or ``aggregate``
    if not wanted."""
    data = result.to_dict()
    if not per_query:
        del data["per_query"]
    if not summary:
        del data["aggregate"]
    return strict_json(data, indent=2, sort_keys=False) + "\n"


def _csv_cell(value: Any) -> str:
    """One CSV field: RFC 4180 quoting, and text that a spreadsheet would run
    as a formula (a leading ``= + - @``, tab or carriage return) prefixed with
    ``'``.  Numbers are written as Python writes them; ``None`` is empty."""
    if value is None:
        return ""
    if isinstance(value, (bool, int, float)):
        return repr(value) if isinstance(value, float) else str(value)
    text = str(value)
    if text[:1] in ("=", "+", "-", "@", "\t", "\r"):
        text = "'" + text
    if any(c in text for c in ',"\r\n'):
        text = '"' + text.replace('"', '""') + '"'
    return text


def csv_lines(rows: Iterable[Sequence[Any]]) -> str:
    """Rows as CSV lines (see :func:`_csv_cell`)."""
    return "".join(",".join(map(_csv_cell, row)) + "\n" for row in rows)


def csv_text(result: Evaluation, *, per_query: bool = True, summary: bool = True) -> str:
    """``query,measure,value`` rows: each query's values, then ``all``'s."""
    rows: List[Sequence[Any]] = [["query", "measure", "value"]]
    if per_query:
        for qid, values in result._per_query.items():
            rows += [[qid, name, values[name]] for name in result.names]
    if summary:
        rows += [["all", name, v] for name, v in result._aggregate.items()]
    return csv_lines(rows)


# === ndeval's CSV =============================================================


def ndeval_text(result: Evaluation, qrels: Qrels) -> str:
    """ndeval's output of an evaluation of :data:`~irmetrics.diversity.NDEVAL_MEASURES`.

    A header, a line per run query (those without judgments score 0.0),
    then ``amean``, the sum over the lines (left to right, in topic order)
    over the number of queries both in the run and in *qrels* (with
    ``complete=True``, in *qrels*).  A query without any relevant subtopic
    has nNRBP 0/0, which ndeval prints as ``-nan``, as here.
    """
    lines = ["runid,topic," + ",".join(NDEVAL_MEASURES) + "\n"]
    missing = set(result.missing)
    # ndeval's topics are numbers, sorted as such; each is printed as the
    # file writes it (ndeval's %d would print '01' and '1' both as 1)
    queries = subtopic_order([q for q in result._rows if q not in missing] + list(result.skipped))
    columns = [result._keys.index(name) for name in NDEVAL_MEASURES]
    nnrbp = NDEVAL_MEASURES.index("nNRBP")
    level = result.options["relevance_level"]
    totals = [0.0] * len(columns)
    runid = result.run_name
    for qid in queries:
        row = result._rows.get(qid)
        values = [0.0] * len(columns) if row is None else [float(row[c]) for c in columns]
        if row is not None and not any(v >= level for v in qrels[qid].values()):
            values[nnrbp] = math.nan  # ndeval's 0/0
        for i, v in enumerate(values):
            totals[i] += v
        lines.append(f"{runid},{qid}," + ",".join(map(_ndeval_number, values)) + "\n")
    evaluated = len(qrels) if result.complete else len(result._rows)
    means = [t / evaluated if evaluated else math.nan for t in totals]
    lines.append(f"{runid},amean," + ",".join(map(_ndeval_number, means)) + "\n")
    return "".join(lines)


def _ndeval_number(v: float) -> str:
    # C's printf("%.6f"); x86's 0/0 is a NaN with the sign bit set: "-nan"
    return "-nan" if v != v else f"{v:.6f}"


# === HTML ======================================================================


def html_table(
    header: Sequence[str],
    rows: Iterable[Sequence[str]],
    *,
    caption: Optional[str] = None,
    css_class: Optional[str] = None,
    right: Collection[int] = (),
    sep: str = "",
    markup: bool = False,
) -> str:
    """An HTML table, every cell escaped (*markup*: the cells are HTML
    already, escaped by the caller); *right*: the columns aligned right;
    *sep*: what goes between the table's parts (``"\\n"``: a row a line).

    >>> html_table(["a"], [["<1>"]])
    '<table><thead><tr><th>a</th></tr></thead><tbody><tr><td>&lt;1&gt;</td></tr></tbody></table>'
    """
    import html  # only for notebooks

    esc = html.escape
    cell = str if markup else esc
    start = f'<table class="{esc(css_class)}">' if css_class else "<table>"
    if caption is not None:
        start += f"<caption>{esc(caption)}</caption>"
    head = "<thead><tr>" + "".join(f"<th>{esc(h)}</th>" for h in header) + "</tr></thead>"
    body = ["<tr>" + "".join(f'<td style="text-align: right">{cell(c)}</td>' if i in right
                             else f"<td>{cell(c)}</td>" for i, c in enumerate(row)) + "</tr>"
            for row in rows]
    return sep.join([start, head, "<tbody>", *body, "</tbody></table>"])


def evaluation_html(evaluation: Evaluation) -> str:
    """A compact HTML table of the aggregate values, to four places.

    The caption gives the run's name and the number of queries; skipped and
    missing queries are counted below the table.  Every id and name is
    HTML-escaped.
    """
    import html

    n = len(evaluation._rows)
    named = evaluation.run_name and evaluation.run_name != DEFAULT_RUN_NAME
    run = f"run {evaluation.run_name!r}: " if named else ""
    rows = [[str(name), f"{value:.4f}" if isinstance(value, float) else str(value)]
            for name, value in evaluation._aggregate.items()]
    notes = []
    if evaluation.skipped:
        k = len(evaluation.skipped)
        notes.append(f"{k} run quer{'y' if k == 1 else 'ies'} without judgments skipped")
    if evaluation.missing:
        k = len(evaluation.missing)
        scored = "scored as empty rankings" if evaluation.complete else "left out"
        notes.append(f"{k} judged quer{'y' if k == 1 else 'ies'} missing from the run, {scored}")
    footer = f"<p><small>{html.escape('; '.join(notes))}.</small></p>" if notes else ""
    table = html_table(["measure", "value"], rows, css_class="irmetrics-evaluation",
                       caption=f"{run}{n} {'query' if n == 1 else 'queries'}", right=(1,))
    return table + footer
