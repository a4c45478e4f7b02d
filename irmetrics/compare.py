"""compare(): is a run better than the baseline, and is the difference real?

Every run is scored with :func:`~irmetrics.evaluate`; the per-query values of
each run are paired with the baseline's, query by query, and tested with one
of the tests of :mod:`irmetrics.stats`; the p-values of each measure are
corrected for the number of runs compared with the baseline.
"""

from __future__ import annotations

import math
from itertools import combinations
from typing import Any, Dict, Iterable, List, Mapping, NamedTuple, Optional, Sequence, Tuple, Union

from . import frames, plot, report, stats
from ._checks import check_choice, check_finite
from ._tabular import _query_id
from .errors import InvalidArgumentError, UndefinedStatisticError
from .evaluate import Evaluation, _as_qrels, evaluate
from .measures import measure_names as _measure_list
from .measures import parse_measures
from .report import ROW_KEYS

__all__ = ["compare", "Comparison", "TESTS"]

#: The tests :func:`compare` runs, by name.
TESTS = ("paired-t", "wilcoxon", "permutation", "bootstrap", "tukey-hsd", "randomized-tukey")
#: The tests that compare all the runs at once and control the family of
#: all pairs themselves (their p-values are not corrected again).
FAMILY_TESTS = ("tukey-hsd", "randomized-tukey")
#: What :func:`compare` pairs: each run with the baseline(s), or every pair.
PAIRS = ("baseline", "all")


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
        stats._check_resampling(n_resamples, seed)
        return cls(test, correction, level, n_resamples, seed)

    @property
    def ci_method(self) -> str:
        """The interval that inverts the test (the bootstrap's for Wilcoxon)."""
        drawn = f"{self.n_resamples} resamples, seed {self.seed}"
        return {"paired-t": "t interval", "tukey-hsd": "Tukey HSD, simultaneous",
                "permutation": f"permutation test inversion, {drawn} (exact to 20 queries)",
                "randomized-tukey": f"randomised Tukey HSD, simultaneous, {drawn}"
                }.get(self.test, f"percentile bootstrap, {drawn}")

    def family(self, samples: List[List[float]]) -> Optional[stats.TukeyHSDResult]:
        """The result of a test of all pairs at once, or None."""
        level = 1.0 - self.alpha
        if self.test == "tukey-hsd":
            return stats.tukey_hsd(*samples, design="two-way", confidence=level)
        if self.test == "randomized-tukey":
            return stats.randomized_tukey_hsd(
                *samples, n_resamples=self.n_resamples, seed=self.seed, confidence=level)
        return None

    def resampled_means(
        self, samples: List[List[float]]
    ) -> Optional[Tuple[int, List[List[float]]]]:
        """(e, m): m[r] is run r's mean difference from the first run, times
        2**-e (no overflow), over the same bootstrap resamples of the
        queries, for the bootstrap and Wilcoxon tests (None for the others): each
        comparison's interval, and the bootstrap test, read them."""
        if self.test not in ("bootstrap", "wilcoxon"):
            return None
        first = samples[0]
        e, scaled = stats._scaled([v - f for s in samples[1:] for v, f in zip(s, first)])
        n = len(first)
        columns = [scaled[i : i + n] for i in range(0, len(scaled), n)]
        sums = stats._bootstrap_sums(columns, self.n_resamples, stats._rng(self.seed))
        return e, [[0.0] * self.n_resamples] + [[v / n for v in c] for c in sums]

    def significance(
        self, d: List[float], means: Optional[Tuple[int, List[float]]],
        family: Optional[Tuple[float, float]],
    ) -> Tuple[float, Optional[float], Optional[Tuple[float, float, int]]]:
        """(statistic, p-value, the interval that inverts the test times
        2**-e and e, or None) of the test of the differences *d*; *means*:
        (e, their resampled means times 2**-e); *family*: (p-value, margin)
        of the pair from a test of all pairs at once (statistic mean(d))."""
        mean = stats._mean(d)
        if self.test in FAMILY_TESTS:  # (None: the family's test is undefined, noted)
            if family is None:
                return mean, None, None
            return mean, family[0], (mean - family[1], mean + family[1], 0)
        if self.test == "bootstrap" and means is not None:
            e, resampled = means
            return mean, stats._shift_p_value(resampled, [math.ldexp(v, -e) for v in d]), None
        if self.test == "permutation":
            result, own = stats._permutation(d, None, self.n_resamples, self.seed, None,
                                             self.alpha)
            return result.statistic, result.p_value, own
        result = stats.wilcoxon_test(d) if self.test == "wilcoxon" else stats.paired_t_test(d)
        return result.statistic, result.p_value, None

    def interval(self, d: List[float], means: Optional[Tuple[int, List[float]]],
                 own: Optional[Tuple[float, float, int]]) -> Tuple[float, float]:
        """The confidence interval (level 1 - alpha) of the mean of *d*: the
        test's *own*, else the bootstrap's (*means*) or the t interval."""
        if own is not None:
            if not math.isfinite(own[0] - own[1]):
                raise InvalidArgumentError("the test rejects no difference at this alpha with "
                                           f"{len(d)} queries: the interval is unbounded")
            return stats._finite_interval(*own, "interval")
        if means is None:
            return stats.t_ci(d, confidence=1.0 - self.alpha)
        if len(set(d)) == 1:
            return d[0], d[0]
        return stats._percentile_interval(means[1], 1.0 - self.alpha, means[0])


#: The attributes :meth:`Comparison.to_dict` gives, in its order.
_DICT_KEYS = ("baseline", "baselines", "pairs", "runs", "measures", "test", "correction",
              "family", "family_size", "alpha", "confidence", "ci_method", "queries",
              "left_out", "rows", "notes")


class Comparison:
    """The result of :func:`compare`.

    ``rows``: plain dicts, keys :data:`ROW_KEYS`, measure by measure.  With
    one baseline, one row per run (baseline first): the baseline's mean,
    then each run's mean and its comparison with the baseline.  Otherwise
    (several baselines, all pairs) one row per run with its mean
    (``versus`` None), then one row per comparison of ``run`` with
    ``versus``.  ``row(run, measure, versus=None)``: one of them.
    ``queries``: the paired query ids; ``left_out``: ``{run: query ids
    scored for that run but not for every run}``; ``per_query``: ``{run:
    {qid: {measure: value}}}`` over the paired queries; ``notes``: sentences
    about what was left out or undefined.  ``test``, ``correction``,
    ``alpha``, ``confidence`` and ``ci_method``: how they were compared;
    ``family`` (words) and ``family_size``: the comparisons of one measure
    over which the p-values are corrected.  ``letters`` and ``marks()``: the
    letter marks of the tables for papers.
    ``to_dict()``, ``to_text()`` (also ``str()``), ``to_markdown()``,
    ``to_latex()`` and ``to_html()`` (Jupyter's ``_repr_html_()``) render it.
    """

    def __init__(
        self,
        statistics: _Statistics,
        *,
        design: _Design,
        measures: Sequence[str],
        queries: Sequence[str],
        left_out: Dict[str, Tuple[str, ...]],
        per_query: Dict[str, Table],
        rows: List[Row],
        notes: List[str],
    ) -> None:
        self.runs = tuple(design.runs)
        self.baselines = design.baselines
        self.baseline = design.baselines[0] if design.baselines else None
        self.pairs = design.pairs
        self.family = design.family
        self.family_size = design.size
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

    @property
    def letters(self) -> Dict[str, str]:
        """Each run's letter in the tables for papers, in run order: a, b, ..."""
        return dict(zip(self.runs, stats._letters(len(self.runs))))

    def marks(self, measure: str) -> Dict[str, str]:
        """{run: the letters of the runs it is significantly better than}
        for *measure* (sorted; better: a larger mean)."""
        letters = self.letters
        out: Dict[str, List[str]] = {run: [] for run in self.runs}
        for r in self._rows:
            if r["measure"] == measure and r["versus"] is not None and r["significant"]:
                if r["difference"] > 0:
                    out[r["run"]].append(letters[r["versus"]])
                elif r["difference"] < 0:
                    out[r["versus"]].append(letters[r["run"]])
        return {run: "".join(sorted(set(marks))) for run, marks in out.items()}

    def row(self, run: str, measure: str, versus: Optional[str] = None) -> Row:
        """The first row of *run* for *measure* (its comparison with *versus*)."""
        for r in self._rows:
            if r["run"] == run and r["measure"] == measure and versus in (None, r["versus"]):
                return dict(r)
        raise InvalidArgumentError(
            f"no row for run {run!r}" + (f" versus {versus!r}" if versus else "")
            + f" and measure {measure!r} (runs: {', '.join(map(repr, self.runs))}; "
            f"measures: {', '.join(map(repr, self.measures))})"
        )

    def to_dict(self) -> Dict[str, Any]:
        """Everything as plain data (what ``--format json`` prints): the
        attributes :data:`_DICT_KEYS` names, in its order, tuples as lists."""
        data = {key: getattr(self, key) for key in _DICT_KEYS}
        data["left_out"] = {k: list(v) for k, v in self._left_out.items()}
        return {k: list(v) if isinstance(v, tuple) else v for k, v in data.items()}

    # === Rendering, DataFrames and plots: the functions of irmetrics.report,
    # irmetrics.frames and irmetrics.plot, which take the comparison first ===

    to_text = __str__ = report.text
    to_markdown = report.markdown
    to_latex = report.latex
    to_html = _repr_html_ = report.html
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
    baseline: Union[None, str, Sequence[str]] = None,
    pairs: str = "baseline",
    test: Optional[str] = None,
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
    baseline, pairs:
        ``pairs="baseline"``: each run is compared with *baseline* (a run's
        name; default the first run), or, given a list of names, with each
        of them (the baselines are not compared with each other).
        ``pairs="all"``: every pair of runs (in ``itertools.combinations``
        order, later run minus earlier), no baseline.
    test:
        ``"paired-t"`` (Student), ``"wilcoxon"`` (signed-rank, scipy's
        defaults), ``"permutation"`` (sign-flip randomization; exact up to
        20 queries), ``"bootstrap"`` (shift method), ``"tukey-hsd"`` (Tukey's
        HSD, two-way: topics as blocks) or ``"randomized-tukey"`` (Carterette
        2012); all two-sided.  Default: ``"tukey-hsd"`` with ``pairs="all"``,
        else ``"paired-t"``.
    alpha, correction:
        Significance level, and a correction of :data:`irmetrics.stats.CORRECTIONS`
        (``"holm"``, ``"bonferroni"``, ``"none"``, ...), applied over the
        comparisons of each measure (the ``family``; a Tukey test controls it
        itself, and its p-values are not corrected again).  A
        difference is significant when its adjusted p-value is <= alpha;
        alpha is at least :data:`ALPHA_MIN` (below it 1 - alpha/2 rounds to 1).
    n_resamples, seed:
        For the sampled tests and their intervals
        (``random.Random(seed)``; the same seed gives the same report).
        Each comparison's sampled permutation test starts from the seed, so
        the comparisons read the same sign flips: each p-value is a valid
        randomization test on its own; the tests of a family are not
        independent (nor are their data: comparisons with one baseline
        share its values).
    relevance_level, complete, depth, judged_only, trec_eval:
        Passed to :func:`~irmetrics.evaluate`.

    Queries are paired by id.  Only queries scored for every run are compared
    (with ``complete=True``, evaluate() scores a judged query missing from a
    run as an empty ranking, so every judged query is); the others are listed
    in ``left_out`` and in the notes.  The confidence interval (level
    1 - alpha) of the mean difference is the one that inverts the test
    (``ci_method``): the t interval for ``"paired-t"``; Tukey's simultaneous
    interval for ``"tukey-hsd"``, and its randomised counterpart (the
    quantile of the resampled ranges) for ``"randomized-tukey"``; for
    ``"permutation"`` the shifts the sign-flip test does not reject, over the
    same flips (:func:`~irmetrics.stats.permutation_ci`; none when no shift
    can be rejected); the percentile bootstrap for ``"bootstrap"`` and
    ``"wilcoxon"`` (the queries resampled once for all the comparisons of a
    measure).  Every comparison also has paired Cohen's d with its
    noncentral t interval.  A test the data leave undefined
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
    if test is None:
        test = "tukey-hsd" if pairs == "all" else "paired-t"
    design = _design(runs, baseline, pairs, family_test=test in FAMILY_TESTS)
    statistics = _Statistics.checked(test, correction, alpha, n_resamples, seed)
    ordered = design.runs
    measure_names = list(dict.fromkeys(m.strip() for m in _measure_list(measures)))
    tables = _score(qrels, runs, ordered, measure_names, relevance_level=relevance_level,
                    complete=complete, depth=depth, judged_only=judged_only,
                    trec_eval=trec_eval)
    common, left_out, notes = _pair(tables, scored=qrels is None)
    rows: List[Row] = []
    for measure in measure_names:
        rows += _measure_rows(tables, design, common, measure, notes, statistics)
    per_query = {
        name: {qid: {m: float(tables[name][qid][m]) for m in measure_names} for qid in common}
        for name in ordered
    }
    return Comparison(
        statistics, design=design, measures=measure_names, queries=common,
        left_out=left_out, per_query=per_query, rows=rows, notes=notes,
    )


# === The steps of compare() ===================================================


#: The smallest alpha (below it 1 - alpha/2 rounds to 1): stats' own.
ALPHA_MIN = stats.ALPHA_MIN


class _Design(NamedTuple):
    """What is compared: the runs in order, the baselines, and the
    comparisons (run, versus) of each measure, the family in words."""

    runs: List[str]
    baselines: Tuple[str, ...]
    pairs: str
    comparisons: List[Tuple[str, str]]
    family: str
    size: int  # of the family

    @property
    def one_baseline(self) -> bool:
        """Each run compared once, with one baseline: a run's row holds its
        mean and its comparison (the rows and tables of one baseline)."""
        return len(self.baselines) == 1


def _design(runs: Any, baseline: Any, pairs: str, *, family_test: bool) -> _Design:
    """The runs (the baselines first) and their comparisons, checked.  The
    family is every pair of runs when every pair is compared or the test
    compares them all at once (*family_test*)."""
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
    check_choice(pairs, "pairs", PAIRS)
    if pairs == "all":
        if baseline is not None:
            raise InvalidArgumentError("'baseline' cannot be given with pairs='all' "
                                       "(every pair of runs is compared)")
        bases: List[str] = []
        others = names
        comparisons = [(b, a) for a, b in combinations(names, 2)]
    else:
        bases = [names[0]] if baseline is None else [baseline] if isinstance(baseline, str) \
            else list(baseline)
        for name in bases:
            if name not in runs:
                raise InvalidArgumentError(
                    f"baseline {name!r} is not one of the runs ({', '.join(map(repr, names))})"
                )
        others = [n for n in names if n not in bases]
        if not others or len(set(bases)) != len(bases):
            raise InvalidArgumentError(
                f"'baseline' must name distinct runs and leave one to compare (got {baseline!r})")
        comparisons = [(r, b) for b in bases for r in others]
    if pairs == "all" or family_test:
        m = len(names) * (len(names) - 1) // 2
        family = f"the {m} pairs of runs of each measure"
    else:
        m = len(comparisons)
        family = f"the {m} comparison{'s' if m != 1 else ''} of each measure"
        if len(bases) > 1:
            family += f" (each other run with each of the {len(bases)} baselines)"
    return _Design(bases + others, tuple(bases), pairs, comparisons, family, m)


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
    tables: Dict[str, Table], design: _Design, common: Sequence[str], measure: str,
    notes: List[str], statistics: _Statistics,
) -> List[Row]:
    """One measure's rows: the runs' means, then each comparison (run,
    versus) tested, its p-values corrected over the family; undefined tests
    add a note.  One loop of comparisons, whatever the pairing."""
    runs = design.runs
    samples = [[float(tables[name][qid][measure]) for qid in common] for name in runs]
    means = [stats._mean(v) for v in samples]
    index = {name: i for i, name in enumerate(runs)}
    shown = design.baselines if design.one_baseline else runs
    rows = [_row(measure, name, name in design.baselines, means[index[name]]) for name in shown]
    pairs = [(index[r], index[v]) for r, v in design.comparisons]
    differences = [[v - b for v, b in zip(samples[i], samples[j])] for i, j in pairs]
    for (i, j), d in zip(pairs, differences):
        for qid, v, b, diff in zip(common, samples[i], samples[j], d):
            if not math.isfinite(diff):
                whom = "the baseline" if design.baselines else "run"
                raise InvalidArgumentError(
                    f"run {runs[i]!r}, query {qid!r}, measure {measure!r}: the difference from "
                    f"{whom} {runs[j]!r} ({v!r} - {b!r}) is beyond the largest float"
                )
    family: Optional[stats.TukeyHSDResult]
    try:
        family = statistics.family(samples)
    except UndefinedStatisticError as exc:
        family = None
        notes.append(f"{measure}: no p-value: {exc}.")
    resampled = statistics.resampled_means(samples)
    compared = []
    for (i, j), d in zip(pairs, differences):
        row = _row(measure, runs[i], False, means[i], runs[j])
        row["difference"] = stats._mean(d)
        row["wins"] = sum(1 for v in d if v > 0)
        row["ties"] = sum(1 for v in d if v == 0)
        row["losses"] = sum(1 for v in d if v < 0)
        drawn = None if resampled is None else (
            resampled[0], [a - b for a, b in zip(resampled[1][i], resampled[1][j])])
        who = runs[i] if design.one_baseline else f"{runs[i]} vs {runs[j]}"
        own = None
        try:
            row["statistic"], row["p_value"], own = statistics.significance(
                d, drawn, None if family is None else (family.pvalue[i][j], family.margin[i][j]))
        except UndefinedStatisticError as exc:
            row["note"] = f"{report.TEST_TITLES[statistics.test]} undefined: {exc}"
            notes.append(f"{who}, {measure}: no p-value: {exc}.")
        try:
            row["ci_low"], row["ci_high"] = statistics.interval(d, drawn, own)
        except InvalidArgumentError as exc:  # a bound beyond the largest float
            row["note"] = "; ".join(filter(None, [row["note"], f"no interval: {exc}"]))
            notes.append(f"{who}, {measure}: no confidence interval: {exc}.")
        try:
            effect = stats.paired_cohens_d(d, confidence=1.0 - statistics.alpha)
            row.update(effect_size=effect.value, effect_ci_low=effect.ci_low,
                       effect_ci_high=effect.ci_high)
        except (UndefinedStatisticError, InvalidArgumentError):
            pass  # (differences all equal: no standard deviation)
        compared.append(row)
    tested = [r for r in compared if r["p_value"] is not None]
    p_values = [r["p_value"] for r in tested]
    if statistics.test not in FAMILY_TESTS:
        p_values = stats.adjust_p_values(p_values, method=statistics.correction)
    for r, p in zip(tested, p_values):
        r["p_adjusted"] = p
        r["significant"] = p <= statistics.alpha
    return rows + compared


_AGGREGATES = {"sum": "a sum", "gm": "a geometric mean", "first": "text"}


def _row(measure: str, run: str, is_baseline: bool, mean: float,
         versus: Optional[str] = None) -> Row:
    """A row: a run's mean, or (*versus* given) its comparison, to be filled."""
    row: Row = dict.fromkeys(ROW_KEYS)
    row.update(measure=measure, run=run, versus=versus, baseline=is_baseline, mean=mean,
               significant=None if versus is None else False)
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
            row[m] = check_finite(values[m], f"run {name!r}, query {qid!r}, measure {m!r}:")
        out[qid] = row
    return out


def _sample(ids: Sequence[str]) -> str:
    shown = ", ".join(repr(i) for i in ids[:5])
    return shown + (f", ... ({len(ids)} in all)" if len(ids) > 5 else "")
