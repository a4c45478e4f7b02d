"""compare(): is a run better than the baseline, and is the difference real?

Every run is scored with :func:`~irmetrics.evaluate`; the per-query values of
each run are paired with the baseline's, query by query, and tested with one
of the tests of :mod:`irmetrics.stats`; the p-values of each measure are
corrected for the number of runs compared with the baseline.
"""

from __future__ import annotations

import math
from numbers import Real
from typing import Any, Dict, Iterable, List, Mapping, NamedTuple, Optional, Sequence, Tuple, Union

from . import frames, plot, report, stats
from ._tabular import _query_id
from .errors import InvalidArgumentError, UndefinedStatisticError
from .evaluate import Evaluation, _as_qrels, evaluate
from .measures import measure_names as _measure_list
from .measures import parse_measures
from .report import ROW_KEYS

__all__ = ["compare", "Comparison", "TESTS"]

#: The tests :func:`compare` runs, by name.
TESTS = ("paired-t", "wilcoxon", "permutation", "bootstrap")


Row = Dict[str, Any]
Table = Dict[str, Dict[str, float]]


class _Statistics(NamedTuple):
    """How the runs are compared: the test, the correction of its p-values,
    alpha, and the resampling of the sampled tests and the bootstrap."""

    test: str
    correction: str
    alpha: float
    n_resamples: int
    seed: Optional[int]

    @classmethod
    def checked(cls, test: str, correction: str, alpha: Any, n_resamples: int,
                seed: Optional[int]) -> _Statistics:
        """The options validated (alpha made a float)."""
        if test not in TESTS:
            raise InvalidArgumentError(
                f"unknown test {test!r}; expected one of {', '.join(map(repr, TESTS))}"
            )
        stats.adjust_p_values([], method=correction)  # (stats checks the correction's name)
        level = stats._check_alpha(alpha)
        stats._check_resamples(n_resamples)
        stats._rng(seed)
        return cls(test, correction, level, n_resamples, seed)

    @property
    def ci_method(self) -> str:
        if self.test == "paired-t":
            return "t interval"
        return f"percentile bootstrap, {self.n_resamples} resamples, seed {self.seed}"

    def significance(self, d: List[float]) -> stats.SignificanceResult:
        """The test of the differences *d*."""
        if self.test == "paired-t":
            return stats.paired_t_test(d)
        if self.test == "wilcoxon":
            return stats.wilcoxon_test(d)
        sampled = stats.permutation_test if self.test == "permutation" else stats.bootstrap_test
        return sampled(d, n_resamples=self.n_resamples, seed=self.seed)

    def interval(self, d: List[float]) -> Tuple[float, float]:
        """The confidence interval (level 1 - alpha) of the mean of *d*."""
        if self.test == "paired-t":
            return stats.t_ci(d, confidence=1.0 - self.alpha)
        return stats.bootstrap_ci(d, confidence=1.0 - self.alpha,
                                  n_resamples=self.n_resamples, seed=self.seed)


class Comparison:
    """The result of :func:`compare`.

    ``rows``: one plain dict per measure and run (baseline first), keys
    :data:`ROW_KEYS`; the baseline's row has ``None`` for what compares.
    ``row(run, measure)``: one of them.  ``queries``: the paired query ids;
    ``left_out``: ``{run: query ids scored for that run but not for every
    run}``; ``per_query``: ``{run: {qid: {measure: value}}}`` over the paired
    queries; ``notes``: sentences about what was left out or undefined.
    ``test``, ``correction``, ``alpha``, ``confidence`` and ``ci_method``:
    how they were compared.
    ``to_dict()``, ``to_text()`` (also ``str()``), ``to_markdown()``,
    ``to_latex()`` and ``_repr_html_()`` render it.
    """

    def __init__(
        self,
        statistics: _Statistics,
        *,
        runs: Sequence[str],
        measures: Sequence[str],
        queries: Sequence[str],
        left_out: Dict[str, Tuple[str, ...]],
        per_query: Dict[str, Table],
        rows: List[Row],
        notes: List[str],
    ) -> None:
        self.runs = tuple(runs)
        self.baseline = self.runs[0]
        self.measures = tuple(measures)
        self.test = statistics.test
        self.correction = statistics.correction
        self.alpha = statistics.alpha
        self.confidence = 1.0 - self.alpha
        self.ci_method = statistics.ci_method
        self.queries = tuple(queries)
        self._left_out = left_out
        self._per_query = per_query
        self._rows = rows
        self.notes = tuple(notes)

    @property
    def rows(self) -> List[Row]:
        return [dict(r) for r in self._rows]

    @property
    def left_out(self) -> Dict[str, Tuple[str, ...]]:
        return dict(self._left_out)

    @property
    def per_query(self) -> Dict[str, Table]:
        return {
            run: {q: dict(v) for q, v in table.items()} for run, table in self._per_query.items()
        }

    def row(self, run: str, measure: str) -> Row:
        """The row of *run* for *measure*."""
        for r in self._rows:
            if r["run"] == run and r["measure"] == measure:
                return dict(r)
        raise InvalidArgumentError(
            f"no row for run {run!r} and measure {measure!r} "
            f"(runs: {', '.join(map(repr, self.runs))}; "
            f"measures: {', '.join(map(repr, self.measures))})"
        )

    def to_dict(self) -> Dict[str, Any]:
        """Everything as plain data (what ``--format json`` prints)."""
        return {
            "baseline": self.baseline,
            "runs": list(self.runs),
            "measures": list(self.measures),
            "test": self.test,
            "correction": self.correction,
            "alpha": self.alpha,
            "confidence": self.confidence,
            "ci_method": self.ci_method,
            "queries": list(self.queries),
            "left_out": {k: list(v) for k, v in self._left_out.items()},
            "rows": self.rows,
            "notes": list(self.notes),
        }

    # === Rendering, DataFrames and plots: the functions of irmetrics.report,
    # irmetrics.frames and irmetrics.plot, which take the comparison first ===

    to_text = __str__ = report.text
    to_markdown = report.markdown
    to_latex = report.latex
    _repr_html_ = report.html
    to_dataframe = frames.comparison_frame
    plot = plot.differences

    def __repr__(self) -> str:
        return (
            f"Comparison(baseline={self.baseline!r}, runs={len(self.runs)}, "
            f"measures={list(self.measures)!r}, test={self.test!r}, "
            f"queries={len(self.queries)})"
        )


# === compare() ================================================================


def compare(
    qrels: Any,
    runs: Mapping[str, Any],
    measures: Union[str, Iterable[str]],
    *,
    baseline: Optional[str] = None,
    test: str = "paired-t",
    alpha: float = 0.05,
    correction: str = "holm",
    n_resamples: int = 10_000,
    seed: Optional[int] = 0,
    relevance_level: int = 1,
    complete: bool = False,
    depth: Optional[int] = None,
    judged_only: bool = False,
    trec_eval: str = "9.0.8",
) -> Comparison:
    """Compare runs with a baseline, measure by measure, query by query.

    qrels, runs:
        *runs* maps a name to what :func:`~irmetrics.evaluate` takes (a
        :class:`~irmetrics.Run`, a dict ``{qid: {docid: score}}``, a run file)
        or to an :class:`~irmetrics.Evaluation` already computed (it must
        hold the measures).  With ``qrels=None`` the runs are already scored:
        each is an Evaluation or a dict ``{qid: {measure: value}}`` (query
        ids str or int, as for :class:`~irmetrics.Qrels`; two that are the
        same str, such as ``1`` and ``"1"``, are an error).
    measures:
        Measure names, as for :func:`~irmetrics.evaluate`; only measures
        averaged by the arithmetic mean (not ``gm_map`` or the counts).
    baseline:
        The name of the run the others are compared with; default the first.
    test:
        ``"paired-t"`` (Student), ``"wilcoxon"`` (signed-rank, scipy's
        defaults), ``"permutation"`` (sign-flip randomization; exact up to
        20 queries) or ``"bootstrap"`` (shift method); all two-sided.
    alpha, correction:
        Significance level, and ``"holm"``, ``"bonferroni"`` or ``"none"``,
        applied over the comparisons of each measure (runs - 1 of them).  A
        difference is significant when its adjusted p-value is <= alpha;
        alpha is at least :data:`ALPHA_MIN` (below it 1 - alpha/2 rounds to 1).
    n_resamples, seed:
        For the sampled tests and the bootstrap interval
        (``random.Random(seed)``; the same seed gives the same report).
    relevance_level, complete, depth, judged_only, trec_eval:
        Passed to :func:`~irmetrics.evaluate`.

    Queries are paired by id.  Only queries scored for every run are compared
    (with ``complete=True``, evaluate() scores a judged query missing from a
    run as an empty ranking, so every judged query is); the others are listed
    in ``left_out`` and in the notes.  The confidence interval (level
    1 - alpha) of the mean difference is the t interval for ``"paired-t"``
    and the percentile bootstrap otherwise.  A test the data leave undefined
    (the t test on differences that are all equal; Wilcoxon on all-zero
    differences) has ``p_value=None`` and a note saying why.

    >>> qrels = {"q1": {"a": 1, "b": 1}, "q2": {"a": 1}, "q3": {"c": 1}}
    >>> runs = {
    ...     "base": {"q1": {"a": 2, "x": 1}, "q2": {"x": 2, "a": 1}, "q3": {"c": 1}},
    ...     "new": {"q1": {"a": 2, "b": 1}, "q2": {"a": 2, "x": 1}, "q3": {"c": 1}},
    ... }
    >>> result = compare(qrels, runs, ["map", "P@1"])
    >>> row = result.row("new", "map")   # AP per query: base 0.5, 0.5, 1; new 1, 1, 1
    >>> round(row["difference"], 4), row["wins"], row["ties"], row["losses"]
    (0.3333, 2, 1, 0)
    >>> round(row["p_value"], 4)         # d = 0.5, 0.5, 0: t = 2, 2 degrees of freedom
    0.1835
    """
    statistics = _Statistics.checked(test, correction, alpha, n_resamples, seed)
    ordered = _ordered_runs(runs, baseline)
    measure_names = list(dict.fromkeys(m.strip() for m in _measure_list(measures)))
    tables = _score(qrels, runs, ordered, measure_names, relevance_level=relevance_level,
                    complete=complete, depth=depth, judged_only=judged_only,
                    trec_eval=trec_eval)
    common, left_out, notes = _pair(tables, scored=qrels is None)
    rows: List[Row] = []
    for measure in measure_names:
        rows += _measure_rows(tables, ordered, common, measure, notes, statistics)
    per_query = {
        name: {qid: {m: float(tables[name][qid][m]) for m in measure_names} for qid in common}
        for name in ordered
    }
    return Comparison(
        statistics, runs=ordered, measures=measure_names, queries=common,
        left_out=left_out, per_query=per_query, rows=rows, notes=notes,
    )


# === The steps of compare() ===================================================


#: The smallest alpha (below it 1 - alpha/2 rounds to 1): stats' own.
ALPHA_MIN = stats.ALPHA_MIN


def _ordered_runs(runs: Any, baseline: Optional[str]) -> List[str]:
    """The run names, the baseline first."""
    if not isinstance(runs, Mapping):
        raise InvalidArgumentError(
            f"'runs' must be a mapping of run names to runs (got {type(runs).__name__})"
        )
    if len(runs) < 2:
        raise InvalidArgumentError(f"compare() needs at least two runs (got {len(runs)})")
    names = list(runs)
    for name in names:
        if not isinstance(name, str):
            raise InvalidArgumentError(f"run names must be str (got {name!r})")
    if baseline is None:
        baseline = names[0]
    elif baseline not in runs:
        raise InvalidArgumentError(
            f"baseline {baseline!r} is not one of the runs ({', '.join(map(repr, names))})"
        )
    return [baseline] + [n for n in names if n != baseline]


def _score(
    qrels: Any, runs: Mapping[str, Any], ordered: Sequence[str], measure_names: List[str],
    **options: Any,
) -> Dict[str, Table]:
    """Each run's per-query values: evaluated here, or given already scored."""
    if qrels is not None:
        for name, m in zip(measure_names, parse_measures(measure_names)):
            if m.family.aggregate != "mean":
                raise InvalidArgumentError(
                    f"measure {name!r} is not averaged by the arithmetic mean "
                    f"(its aggregate is {_AGGREGATES.get(m.family.aggregate, 'text')}); "
                    "compare() tests means of per-query values"
                )
        qrels = _as_qrels(qrels)
    tables: Dict[str, Table] = {}
    for name in ordered:
        run = runs[name]
        if qrels is None or isinstance(run, Evaluation):
            tables[name] = _scored_table(name, run, measure_names)
        else:
            tables[name] = evaluate(qrels, run, measure_names, **options)._per_query
    return tables


def _pair(
    tables: Dict[str, Table], *, scored: bool = False
) -> Tuple[List[str], Dict[str, Tuple[str, ...]], List[str]]:
    """The queries scored for every run, those left out per run, and a note
    that names, for each run lacking some, the queries it lacks (*scored*:
    the runs came scored, so complete=True would not change them)."""
    common = sorted(set.intersection(*(set(t) for t in tables.values())))
    left_out = {
        name: tuple(sorted(set(t) - set(common))) for name, t in tables.items()
        if len(t) > len(common)
    }
    if len(common) < 2:
        shown = ", ".join(map(repr, common)) if common else "none"
        raise InvalidArgumentError(
            f"compare() needs at least two queries scored for every run (got {len(common)}: "
            f"{shown})"
        )
    notes: List[str] = []
    if left_out:
        every = set().union(*(set(t) for t in tables.values()))
        missing = {name: sorted(every - set(t)) for name, t in tables.items()}
        parts = "; ".join(
            f"not scored for {name!r}: {_sample(ids)}" for name, ids in missing.items() if ids
        )
        hint = "" if scored else "; complete=True (-c) scores a missing query as 0"
        notes.append(
            f"{len(every) - len(common)} of {len(every)} queries are not scored for every "
            f"run and are left out ({parts}){hint}."
        )
    return common, left_out, notes


def _measure_rows(
    tables: Dict[str, Table], ordered: Sequence[str], common: Sequence[str], measure: str,
    notes: List[str], statistics: _Statistics,
) -> List[Row]:
    """One measure's rows: the baseline's mean, then each run tested against it
    (p-values corrected over the runs); undefined tests add a note."""
    baseline = ordered[0]
    base = [float(tables[baseline][qid][measure]) for qid in common]
    rows = [_row(measure, baseline, True, stats._mean(base))]
    for name in ordered[1:]:
        values = [float(tables[name][qid][measure]) for qid in common]
        row = _row(measure, name, False, stats._mean(values))
        d = [v - b for v, b in zip(values, base)]
        for qid, diff, v, b in zip(common, d, values, base):
            if not math.isfinite(diff):
                raise InvalidArgumentError(
                    f"run {name!r}, query {qid!r}, measure {measure!r}: the difference from "
                    f"the baseline {baseline!r} ({v!r} - {b!r}) is beyond the largest float"
                )
        row["difference"] = stats._mean(d)
        row["wins"] = sum(1 for v, b in zip(values, base) if v > b)
        row["ties"] = sum(1 for v, b in zip(values, base) if v == b)
        row["losses"] = sum(1 for v, b in zip(values, base) if v < b)
        try:
            result = statistics.significance(d)
        except UndefinedStatisticError as exc:
            row["note"] = f"{report.TEST_TITLES[statistics.test]} undefined: {exc}"
            notes.append(f"{name}, {measure}: no p-value: {exc}.")
        else:
            row["statistic"] = result.statistic
            row["p_value"] = result.p_value
        try:
            row["ci_low"], row["ci_high"] = statistics.interval(d)
        except InvalidArgumentError as exc:  # a bound beyond the largest float
            row["note"] = "; ".join(filter(None, [row["note"], f"no interval: {exc}"]))
            notes.append(f"{name}, {measure}: no confidence interval: {exc}.")
        rows.append(row)
    tested = [r for r in rows[1:] if r["p_value"] is not None]
    adjusted = stats.adjust_p_values([r["p_value"] for r in tested], method=statistics.correction)
    for r, p in zip(tested, adjusted):
        r["p_adjusted"] = p
        r["significant"] = p <= statistics.alpha
    return rows


_AGGREGATES = {"sum": "a sum", "gm": "a geometric mean", "first": "text"}


def _row(measure: str, run: str, is_baseline: bool, mean: float) -> Row:
    row: Row = dict.fromkeys(ROW_KEYS)
    row.update(measure=measure, run=run, baseline=is_baseline, mean=mean,
               significant=None if is_baseline else False)
    return row


def _scored_table(name: str, scored: Any, measures: Sequence[str]) -> Table:
    """Per-query values already computed: an Evaluation or {qid: {measure: value}}."""
    if isinstance(scored, Evaluation):
        table: Mapping[str, Mapping[str, Any]] = scored._per_query
    elif isinstance(scored, Mapping):
        table = scored
    else:
        raise InvalidArgumentError(
            f"run {name!r}: with qrels=None each run must be an Evaluation or a dict "
            f"{{qid: {{measure: value}}}} (got {type(scored).__name__})"
        )
    out: Table = {}
    for raw_qid, values in table.items():
        qid = _query_id(raw_qid, f"run {name!r}", out, of="of")
        if not isinstance(values, Mapping):
            raise InvalidArgumentError(
                f"run {name!r}, query {qid!r}: expected a dict of measure values "
                f"(got {type(values).__name__})"
            )
        row: Dict[str, float] = {}
        for m in measures:
            if m not in values:
                raise InvalidArgumentError(
                    f"run {name!r}, query {qid!r} has no value for measure {m!r}"
                )
            v = values[m]
            if isinstance(v, bool) or not isinstance(v, Real) or not math.isfinite(float(v)):
                raise InvalidArgumentError(
                    f"run {name!r}, query {qid!r}, measure {m!r}: must be a finite number "
                    f"(got {v!r})"
                )
            row[m] = float(v)
        out[qid] = row
    return out


def _sample(ids: Sequence[str]) -> str:
    shown = ", ".join(repr(i) for i in ids[:5])
    return shown + (f", ... ({len(ids)} in all)" if len(ids) > 5 else "")
