"""Z-scores: an evaluation's values in units of deviation from reference means (trec_eval ``-Z``).

Each query's value of each measure becomes ``(value - mean) / deviation``,
with the mean and deviation a table gives for that query and measure (a
reference set of runs'; trec_eval's ``-Z FILE``, read by
:func:`irmetrics._trec_more.read_zscores`); the ``all`` values are then
averaged (or summed, for counts) from the z-scores as trec_eval averages
the values (``convert_zscores.c``).  As in trec_eval: a query or measure
the table lacks, or a deviation of 0 with a value other than the mean, gives
-1000000; ``num_q`` stays the number of queries, and the text lines
(``runid``, ``relstring``) stay as they are.

>>> from irmetrics import evaluate
>>> result = evaluate({"q1": {"a": 1, "b": 0}}, {"q1": {"a": 1.0, "b": 0.5}}, ["P_1", "num_ret"])
>>> zscored(result, {"q1": {"P_1": (0.5, 0.25), "num_ret": (2.0, 0.0)}}).per_query
{'q1': {'P_1': 2.0, 'num_ret': 0.0}}
"""

from __future__ import annotations

from typing import Dict, List, Mapping, Optional, Tuple

from .evaluation import Evaluation, Value, aggregate
from .metrics import _left_to_right

__all__ = ["zscored", "MISSING_ZSCORE"]

#: trec_eval's MISSING_ZSCORE_VALUE: a z-score the table cannot give.
MISSING_ZSCORE = -1000000.0

Table = Mapping[str, Mapping[str, Tuple[float, float]]]


def _z(value: float, stats: Optional[Tuple[float, float]]) -> float:
    if stats is None:
        return MISSING_ZSCORE
    mean, deviation = stats
    if deviation:
        return (value - mean) / deviation
    return 0.0 if value == mean else MISSING_ZSCORE


def zscored(result: Evaluation, table: Table) -> Evaluation:
    """*result* with z-scores for values: ``table[qid][measure name]`` is the
    ``(mean, deviation)`` of that query's values of that measure."""
    keys = result._keys
    by_name = dict(zip(result.names, result.measures))
    kept = [by_name[k].family.text or by_name[k].family.key == "num_q" for k in keys]
    rows: Dict[str, List[Value]] = {}
    for qid, row in result._rows.items():
        stats = table.get(qid, {})
        rows[qid] = [v if keep else _z(v, stats.get(k)) for k, v, keep in zip(keys, row, kept)]
    z = Evaluation(result.names, result.measures, rows, result.run_name, result._options,
                   result.queries, result.max_label, final=False)
    scored = [qid not in result.queries.filled for qid in rows]
    for c, key in enumerate(keys):
        m = by_name[key]
        column = [row[c] for row in rows.values()]
        if m.family.key == "num_q":
            z._aggregate[key] = float(len(column))
        elif m.family.aggregate == "sum":  # summed as doubles, not counted
            z._aggregate[key] = _left_to_right(column)
        else:
            z._aggregate[key] = aggregate(m, column, scored, result.run_name,
                                          result._options.version.evaluates_missing)
    return z
