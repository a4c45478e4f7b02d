"""Plots of evaluations and comparisons, with matplotlib.

matplotlib is imported when a function here is called, never before; without
it the call raises an :class:`ImportError` that says
``pip install 'irmetrics-eval[plot]'``.  Every function draws on the matplotlib
Axes given as ``ax=`` (a new figure's when none is given) and returns it, so
that plots can be placed in subplots and restyled.

Catalogue
---------
:func:`differences`       per-query differences between a run and the baseline
                          of a :func:`~irmetrics.compare` result, sorted, wins
                          and losses coloured (also ``Comparison.plot()``)
:func:`precision_recall`  the 11-point interpolated precision-recall curve of
                          one or more runs (evaluate them with
                          :data:`PR_MEASURES`)
:func:`distribution`      the distribution of a measure over the queries, one
                          box (or violin) per system
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Sequence, Tuple

from .errors import InvalidArgumentError, _optional_import
from .evaluate import Evaluation

if TYPE_CHECKING:
    from .compare import Comparison

__all__ = ["differences", "precision_recall", "distribution", "PR_MEASURES", "RECALL_LEVELS",
           "WIN_COLOR", "LOSS_COLOR", "TIE_COLOR"]

#: The recall levels of the 11-point curve.
RECALL_LEVELS = tuple(i / 10 for i in range(11))
#: The measures :func:`precision_recall` reads: pass them to :func:`~irmetrics.evaluate`.
PR_MEASURES = tuple(f"iprec_at_recall_{level:.2f}" for level in RECALL_LEVELS)

#: Bar colours of :func:`differences`: better than the baseline, worse, equal.
WIN_COLOR = "#2ca02c"
LOSS_COLOR = "#d62728"
TIE_COLOR = "#7f7f7f"


def _axes(ax: Any) -> Any:
    """*ax*, or a new figure's Axes; matplotlib imported here."""
    plt = _optional_import("matplotlib.pyplot", "irmetrics.plot", "plot", "matplotlib")
    if ax is None:
        _, ax = plt.subplots()
    return ax


# Run names, measure names and query ids come from outside: they are drawn as
# they are, never read as mathtext ("$...$"), passed as parse_math=False to
# every text that holds one.
_LITERAL = {"parse_math": False}


def _is_comparison(obj: Any) -> bool:
    # A Comparison is known by what the plots read of it: irmetrics.compare
    # imports this module (Comparison.plot()), so this one cannot import it.
    return all(hasattr(obj, name) for name in ("baseline", "runs", "measures", "queries",
                                                "_per_query", "row"))


def _check_measure(comparison: Any, measure: str) -> None:
    if measure not in comparison.measures:
        raise InvalidArgumentError(
            f"measure {measure!r} is not in the comparison "
            f"(measures: {', '.join(map(repr, comparison.measures))})"
        )


# === Per-query differences ===


def differences(
    comparison: Comparison,
    measure: Optional[str] = None,
    *,
    run: Optional[str] = None,
    ax: Any = None,
) -> Any:
    """Bars of ``run - baseline`` for *measure*, one per paired query, sorted.

    Largest gain first; bars are :data:`WIN_COLOR` where the run beats the
    baseline, :data:`LOSS_COLOR` where it loses, :data:`TIE_COLOR` (height
    0) where they are equal.  The title counts them.  Query ids label the
    x axis when there are at most 40 queries.

    comparison:
        A :func:`~irmetrics.compare` result.
    measure:
        One of its measures; default the first.
    run:
        One of its runs other than the baseline; default the first.
    """
    if not _is_comparison(comparison):
        raise InvalidArgumentError(
            f"'comparison' must be the Comparison that compare() returns "
            f"(got {type(comparison).__name__})"
        )
    if measure is None:
        measure = comparison.measures[0]
    _check_measure(comparison, measure)
    # (all pairs: the differences from the first run)
    baseline = comparison.runs[0] if comparison.baseline is None else comparison.baseline
    others = [r for r in comparison.runs if r != baseline]
    if run is None:
        run = others[0]
    elif run not in others:
        raise InvalidArgumentError(
            f"run {run!r} is not one of the runs compared with the baseline {baseline!r} "
            f"({', '.join(map(repr, others))})"
        )
    table = comparison._per_query
    pairs = sorted(
        ((table[run][q][measure] - table[baseline][q][measure], q) for q in comparison.queries),
        key=lambda p: (-p[0], p[1]),
    )
    deltas = [d for d, _ in pairs]
    colors = [WIN_COLOR if d > 0 else LOSS_COLOR if d < 0 else TIE_COLOR for d in deltas]
    ax = _axes(ax)
    from matplotlib.patches import Patch  # type: ignore[import-not-found, unused-ignore]

    positions = list(range(len(pairs)))
    ax.bar(positions, deltas, color=colors, width=0.8)
    ax.axhline(0.0, color="black", linewidth=0.8)
    if len(pairs) <= 40:
        ax.set_xticks(positions)
        ax.set_xticklabels([q for _, q in pairs], rotation=90, **_LITERAL)
    else:
        ax.set_xticks([])
    counts = comparison.row(run, measure)  # the queries won, lost and tied, as compare() counts
    ax.set_xlabel("query (sorted by difference)")
    ax.set_ylabel(f"{measure}: {run} \u2212 {baseline}", **_LITERAL)
    ax.set_title(f"{run} vs {baseline}: {counts['wins']} better, {counts['losses']} worse, "
                 f"{counts['ties']} equal", **_LITERAL)
    ax.legend(handles=[Patch(color=WIN_COLOR, label="better"),
                       Patch(color=LOSS_COLOR, label="worse")])
    return ax


# === Precision-recall ===


def _named(results: Any, what: str) -> List[Tuple[str, Any]]:
    """[(name, Evaluation)] from an Evaluation, a sequence of them or a mapping."""
    if isinstance(results, Evaluation):
        items: List[Tuple[Any, Any]] = [(results.run_name, results)]
    elif isinstance(results, Mapping):
        items = list(results.items())
    elif isinstance(results, (list, tuple)):
        items = [(getattr(r, "run_name", None), r) for r in results]
    else:
        raise InvalidArgumentError(
            f"{what!r} must be an Evaluation, a list of them or a dict of name to Evaluation "
            f"(got {type(results).__name__})"
        )
    if not items:
        raise InvalidArgumentError(f"{what!r} is empty: give at least one Evaluation")
    for name, result in items:
        if not isinstance(result, Evaluation):
            raise InvalidArgumentError(
                f"{what!r}: {name!r} must be an Evaluation (got {type(result).__name__})"
            )
    return [(str(name), result) for name, result in items]


def _curve(name: str, result: Any) -> List[float]:
    found: Dict[float, str] = {}
    for key, m in zip(result.names, result.measures):
        if m.family.trec == "iprec_at_recall" and not m.options and m.param is not None:
            found.setdefault(round(float(m.param), 2), key.strip())
    missing = [f"{level:.2f}" for level in RECALL_LEVELS if level not in found]
    if missing:
        raise InvalidArgumentError(
            f"run {name!r} was not evaluated at recall level(s) {', '.join(missing)}; "
            "evaluate it with the measures irmetrics.plot.PR_MEASURES"
        )
    return [float(result._aggregate[found[level]]) for level in RECALL_LEVELS]


def precision_recall(results: Any, *, ax: Any = None) -> Any:
    """The 11-point interpolated precision-recall curve of each run, one line each.

    results:
        An :class:`~irmetrics.Evaluation`, a list of them (labelled by their
        run names) or a dict ``{label: Evaluation}``, evaluated with
        :data:`PR_MEASURES` (``iprec_at_recall_0.00`` ... ``_1.00``, or the
        same levels spelt ``IPrec@0.1``).  The curve is made of their
        aggregate values: trec_eval's mean interpolated precision at each
        recall level.
    """
    curves = [(name, _curve(name, result)) for name, result in _named(results, "results")]
    ax = _axes(ax)
    lines = [ax.plot(RECALL_LEVELS, values, marker="o", label=name)[0] for name, values in curves]
    ax.set_xlabel("recall")
    ax.set_ylabel("interpolated precision")
    ax.set_title("11-point interpolated precision-recall")
    ax.set_xlim(0.0, 1.0)
    ax.set_ylim(0.0, 1.05)
    ax.grid(True, alpha=0.3)
    # matplotlib before 3.10 leaves out of a legend every label starting with
    # "_", even one given explicitly: the legend is made with stand-ins that
    # cannot start so, and each entry then shows its run's name as written.
    legend = ax.legend(lines, [f"run {i}" for i in range(len(lines))])
    for text, (name, _) in zip(legend.get_texts(), curves):
        text.set_text(name)
        text.set_parse_math(False)
    return ax


# === Distributions ===


def _values(results: Any, measure: str) -> List[Tuple[str, List[float]]]:
    if _is_comparison(results):
        _check_measure(results, measure)
        table = results._per_query
        return [(run, [table[run][q][measure] for q in results.queries]) for run in results.runs]
    out = []
    for name, result in _named(results, "results"):
        if measure not in result._keys:
            raise InvalidArgumentError(
                f"run {name!r} has no measure {measure!r} "
                f"(measures: {', '.join(map(repr, result._keys))})"
            )
        column = result._keys.index(measure)
        out.append((name, [float(row[column]) for row in result._rows.values()]))
    return out


def distribution(
    results: Any, measure: str, *, kind: str = "box", ax: Any = None
) -> Any:
    """The distribution of *measure* over the queries: one box (or violin) per system.

    results:
        A :func:`~irmetrics.compare` result (its paired queries), an
        :class:`~irmetrics.Evaluation`, a list of them or a dict
        ``{label: Evaluation}`` (each its own queries).
    kind:
        ``"box"`` (median, quartiles, whiskers at 1.5 IQR, outliers) or
        ``"violin"`` (a kernel density, with the median marked).
    """
    if kind not in ("box", "violin"):
        raise InvalidArgumentError(f"'kind' must be 'box' or 'violin' (got {kind!r})")
    data = _values(results, measure)
    ax = _axes(ax)
    positions = list(range(1, len(data) + 1))
    series: Sequence[List[float]] = [values for _, values in data]
    if kind == "box":
        ax.boxplot(series, positions=positions)
    else:
        ax.violinplot(series, positions=positions, showmedians=True)
    ax.set_xticks(positions)
    ax.set_xticklabels([name for name, _ in data], **_LITERAL)
    ax.set_ylabel(measure, **_LITERAL)
    ax.set_title(f"{measure} over queries", **_LITERAL)
    return ax
