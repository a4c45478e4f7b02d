"""tie_report(): which queries' values depend on the order of tied scores.

For one measure, every query whose value changes with the order of its
tied documents, with the value under each ties mode of
:mod:`irmetrics.ties` (worst, trec_eval's, expected, best), sorted by the
spread (best minus worst), largest first.
"""

from __future__ import annotations

import warnings
from typing import Any, Dict, List, NamedTuple, Optional

from ._text import one_line, quoted
from .data import Run
from .errors import InvalidArgumentError
from .evaluate import _as_qrels, _checked, _evaluate
from .measures import supports
from .sources import is_file_source as _is_source

__all__ = ["tie_report", "TieReport", "TieRow"]


class TieRow(NamedTuple):
    """One query of a :class:`TieReport` (``expected`` is None where the
    measure has no expected value)."""

    query: str
    worst: float
    trec_eval: float
    expected: Optional[float]
    best: float

    @property
    def spread(self) -> float:
        """best - worst: how far the order of tied documents moves the value."""
        return self.best - self.worst


class TieReport:
    """The result of :func:`tie_report`: ``rows`` (:class:`TieRow`, largest
    spread first), ``measure``, ``n_queries`` (queries evaluated) and
    ``str()`` a table."""

    def __init__(self, measure: str, rows: List[TieRow], n_queries: int) -> None:
        self.measure = measure
        self.rows = rows
        self.n_queries = n_queries

    def __str__(self) -> str:
        head = (f"{one_line(self.measure)}: {len(self.rows)} of {self.n_queries} "
                f"quer{'y' if self.n_queries == 1 else 'ies'} "
                f"depend{'s' if len(self.rows) == 1 else ''} on the order of tied scores")
        if not self.rows:
            return head + "\n"
        queries = [one_line(r.query) for r in self.rows]  # ids from a file: no escapes
        width = max(5, max(map(len, queries)))
        lines = [head, f"{'query':<{width}}  {'worst':>7}  {'trec_eval':>9}  "
                       f"{'expected':>8}  {'best':>7}  {'spread':>7}"]
        for query, r in zip(queries, self.rows):
            exp = "-" if r.expected is None else f"{r.expected:.4f}"
            lines.append(f"{query:<{width}}  {r.worst:>7.4f}  {r.trec_eval:>9.4f}  "
                         f"{exp:>8}  {r.best:>7.4f}  {r.spread:>7.4f}")
        return "\n".join(lines) + "\n"

    def __repr__(self) -> str:
        return f"TieReport({quoted(self.measure)}: {len(self.rows)} of {self.n_queries} queries)"


def tie_report(
    qrels: Any,
    run: Any,
    measure: str,
    *,
    relevance_level: int = 1,
    depth: Optional[int] = None,
    judged_only: bool = False,
    trec_eval: str = "9.0.8",
) -> TieReport:
    """The queries of *run* whose *measure* depends on the order of tied scores.

    *qrels* and *run* are as for :func:`~irmetrics.evaluate`; *measure* is
    one name (``"nDCG@10"``, ``"map"``) with ``"best"`` and ``"worst"``
    defined (see :mod:`irmetrics.ties`).  Each row holds a query's worst,
    trec_eval, expected (None where undefined) and best value; rows are
    sorted by spread, largest first, then by query id.

    >>> qrels = {"q1": {"a": 1}, "q2": {"c": 1}}
    >>> run = {"q1": {"a": 1.0, "b": 1.0}, "q2": {"c": 2.0, "d": 1.0}}
    >>> print(tie_report(qrels, run, "recip_rank"), end="")
    recip_rank: 1 of 2 queries depends on the order of tied scores
    query    worst  trec_eval  expected     best   spread
    q1      0.5000     0.5000    0.7500   1.0000   0.5000
    """
    if not isinstance(measure, str):
        raise InvalidArgumentError(
            f"'measure' must be one measure name (got {quoted(measure)})")
    # checked as evaluate() checks them, with "best" defined for the measure
    _, (m,), options = _checked([measure], relevance_level=relevance_level, depth=depth,
                                judged_only=judged_only, ties="best", trec_eval=trec_eval)
    qrels = _as_qrels(qrels)  # read once, evaluated up to four times
    if _is_source(run):
        run = Run.from_trec(run)
    modes = ["trec_eval", "worst", "best"] + (["expected"] if supports(m, "expected") else [])
    values: Dict[str, Dict[str, float]] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for mode in modes:
            result = _evaluate(qrels, run, [measure], [m], options._replace(ties=mode))
            values[mode] = {q: float(row[0]) for q, row in result._rows.items()}
    rows = []
    for q, worst in values["worst"].items():
        best = values["best"][q]
        if best != worst:
            expected = values.get("expected", {}).get(q)
            rows.append(TieRow(q, worst, values["trec_eval"][q], expected, best))
    rows.sort(key=lambda r: (-r.spread, r.query))
    return TieReport(measure, rows, len(values["worst"]))
