"""irmetrics.plot: the Axes each function returns, checked by what is drawn
(bars, lines, colours, data), not by pixels."""

import statistics
import sys
from pathlib import Path

import pytest
from oracles import require

from irmetrics import InvalidArgumentError, compare, evaluate, plot

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "docs" / "examples"
QRELS = str(EXAMPLES / "qrels.txt")
BM25 = str(EXAMPLES / "bm25.run")
RERANK = str(EXAMPLES / "rerank.run")


@pytest.fixture(scope="module")
def mpl():
    matplotlib = require("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    yield matplotlib
    plt.close("all")


@pytest.fixture
def ax(mpl):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    yield ax
    plt.close(fig)


def rgba(mpl, color):
    return mpl.colors.to_rgba(color)


# Three queries: new beats base on q1 (AP 1 vs 0.5), loses on q2 (0.5 vs 1),
# ties on q3 (1 and 1); q4: new 1 vs base 1/3 (relevant at rank 3).
QRELS_SMALL = {"q1": {"a": 1}, "q2": {"a": 1}, "q3": {"a": 1}, "q4": {"a": 1}}
RUNS_SMALL = {
    "base": {"q1": {"x": 2, "a": 1}, "q2": {"a": 2, "x": 1}, "q3": {"a": 1},
             "q4": {"x": 3, "y": 2, "a": 1}},
    "new": {"q1": {"a": 2, "x": 1}, "q2": {"x": 2, "a": 1}, "q3": {"a": 1},
            "q4": {"a": 3, "x": 2}},
}


def test_differences_bars_sorted_and_coloured(mpl, ax):
    result = compare(QRELS_SMALL, RUNS_SMALL, ["map", "P@1"])
    got = plot.differences(result, "map", ax=ax)
    assert got is ax
    bars = ax.patches
    # differences: q4 1 - 1/3 = 2/3, q1 1 - 1/2 = 1/2, q3 0, q2 1/2 - 1 = -1/2 (sorted down)
    assert [b.get_height() for b in bars] == pytest.approx([2 / 3, 0.5, 0.0, -0.5])
    assert [t.get_text() for t in ax.get_xticklabels()] == ["q4", "q1", "q3", "q2"]
    colors = [b.get_facecolor() for b in bars]
    assert colors == [rgba(mpl, plot.WIN_COLOR)] * 2 + [rgba(mpl, plot.TIE_COLOR), rgba(mpl, plot.LOSS_COLOR)]
    assert ax.get_title() == "new vs base: 2 better, 1 worse, 1 equal"
    assert ax.get_ylabel() == "map: new \u2212 base"


def test_comparison_plot_is_differences_with_defaults(mpl, ax):
    result = compare(QRELS, {"bm25": BM25, "rerank": RERANK}, ["map", "P@5"])
    got = result.plot(ax=ax)       # first measure, first run after the baseline
    assert got is ax
    per_query = result.per_query
    expected = sorted((per_query["rerank"][q]["map"] - per_query["bm25"][q]["map"] for q in result.queries),
                      reverse=True)
    assert [b.get_height() for b in ax.patches] == expected
    assert ax.get_title().startswith("rerank vs bm25: 8 better")   # compare's row says 8 wins
    assert result.row("rerank", "map")["wins"] == 8


def test_comparison_plot_makes_its_own_axes(mpl):
    import matplotlib.pyplot as plt

    result = compare(QRELS, {"bm25": BM25, "rerank": RERANK}, "P@5")
    ax = result.plot("P@5", run="rerank")
    try:
        assert len(ax.patches) == 8
        # P@5 rerank vs bm25: 6 wins, 2 ties (compare's row)
        row = result.row("rerank", "P@5")
        faces = [b.get_facecolor() for b in ax.patches]
        assert faces.count(rgba(mpl, plot.WIN_COLOR)) == row["wins"] == 6
        assert faces.count(rgba(mpl, plot.TIE_COLOR)) == row["ties"] == 2
    finally:
        plt.close(ax.figure)


def test_differences_argument_errors(mpl, ax):
    result = compare(QRELS_SMALL, RUNS_SMALL, ["map"])
    with pytest.raises(InvalidArgumentError, match=r"^measure 'P@5' is not in the comparison \(measures: 'map'\)$"):
        result.plot("P@5", ax=ax)
    with pytest.raises(InvalidArgumentError, match=r"^run 'base' is not one of the runs compared with the baseline 'base' \('new'\)$"):
        result.plot("map", run="base", ax=ax)
    with pytest.raises(InvalidArgumentError, match=r"^'comparison' must be the Comparison that compare\(\) returns \(got dict\)$"):
        plot.differences({}, "map", ax=ax)


def test_precision_recall_one_line_per_run_with_the_aggregates(mpl, ax):
    bm25 = evaluate(QRELS, BM25, plot.PR_MEASURES)
    rerank = evaluate(QRELS, RERANK, [f"IPrec@{level}" for level in plot.RECALL_LEVELS])  # ir_measures' names
    got = plot.precision_recall({"bm25": bm25, "rerank": rerank}, ax=ax)
    assert got is ax
    assert len(ax.lines) == 2
    assert [line.get_label() for line in ax.lines] == ["bm25", "rerank"]
    assert list(ax.lines[0].get_xdata()) == list(plot.RECALL_LEVELS)
    assert list(ax.lines[0].get_ydata()) == [bm25[m] for m in plot.PR_MEASURES]
    assert list(ax.lines[1].get_ydata()) == [rerank[f"IPrec@{level}"] for level in plot.RECALL_LEVELS]
    # interpolated precision never rises with recall
    for line in ax.lines:
        y = list(line.get_ydata())
        assert all(a >= b for a, b in zip(y, y[1:]))


def test_precision_recall_takes_one_evaluation_or_a_list(mpl, ax):
    bm25 = evaluate(QRELS, BM25, plot.PR_MEASURES)
    plot.precision_recall(bm25, ax=ax)
    assert [line.get_label() for line in ax.lines] == ["bm25"]   # its run name
    ax.clear()
    plot.precision_recall([bm25, evaluate(QRELS, RERANK, plot.PR_MEASURES)], ax=ax)
    assert [line.get_label() for line in ax.lines] == ["bm25", "rerank"]


def test_precision_recall_names_the_missing_levels(mpl, ax):
    partial = evaluate(QRELS, BM25, list(plot.PR_MEASURES[:9]) + ["map"])
    with pytest.raises(InvalidArgumentError, match=r"^run 'bm25' was not evaluated at recall level\(s\) 0.90, 1.00; evaluate it with the measures irmetrics.plot.PR_MEASURES$"):
        plot.precision_recall(partial, ax=ax)
    with pytest.raises(InvalidArgumentError, match=r"^'results' is empty"):
        plot.precision_recall([], ax=ax)


def test_distribution_box_per_system_with_the_medians(mpl, ax):
    bm25 = evaluate(QRELS, BM25, ["map"])
    rerank = evaluate(QRELS, RERANK, ["map"])
    got = plot.distribution({"bm25": bm25, "rerank": rerank}, "map", ax=ax)
    assert got is ax
    # a box plot draws 7 lines per box: 2 whiskers, 2 caps, the box, the median, the fliers
    assert len(ax.lines) == 14
    medians = [line for line in ax.lines if len(line.get_ydata()) == 2
               and line.get_ydata()[0] == line.get_ydata()[1]
               and line.get_ydata()[0] in (statistics.median(bm25.per_query[q]["map"] for q in bm25.per_query),
                                           statistics.median(rerank.per_query[q]["map"] for q in rerank.per_query))]
    assert len(medians) == 2
    assert [t.get_text() for t in ax.get_xticklabels()] == ["bm25", "rerank"]


def test_distribution_violin_from_a_comparison(mpl, ax):
    result = compare(QRELS, {"bm25": BM25, "rerank": RERANK}, ["map"])
    plot.distribution(result, "map", kind="violin", ax=ax)
    bodies = [c for c in ax.collections if type(c).__name__ in ("PolyCollection", "FillBetweenPolyCollection")]
    assert len(bodies) == 2
    assert [t.get_text() for t in ax.get_xticklabels()] == ["bm25", "rerank"]
    with pytest.raises(InvalidArgumentError, match=r"^'kind' must be 'box' or 'violin' \(got 'bar'\)$"):
        plot.distribution(result, "map", kind="bar", ax=ax)
    with pytest.raises(InvalidArgumentError, match=r"^measure 'P@5' is not in the comparison"):
        plot.distribution(result, "P@5", ax=ax)


def test_distribution_unknown_measure(mpl, ax):
    with pytest.raises(InvalidArgumentError, match=r"^run 'bm25' has no measure 'P@5' \(measures: 'map'\)$"):
        plot.distribution([evaluate(QRELS, BM25, "map")], "P@5", ax=ax)


def test_missing_matplotlib_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    result = compare(QRELS_SMALL, RUNS_SMALL, ["map"])
    with pytest.raises(ImportError, match=r"^irmetrics.plot needs matplotlib, which is not installed: pip install 'irmetrics-eval\[plot\]'$"):
        result.plot()


# Names that mathtext would read: "$x^{$" stops the drawing with a
# ParseSyntaxException, "$\alpha$" would show as a Greek letter (issue 42).
MATH_RUNS = {
    "$x^{$": {"$q_1$": {"$m$": 0.1}, "q2": {"$m$": 0.5}, "q3": {"$m$": 0.2}},
    "$\\alpha$": {"$q_1$": {"$m$": 0.2}, "q2": {"$m$": 0.1}, "q3": {"$m$": 0.3}},
}


def _texts(ax):
    texts = [ax.title, ax.xaxis.label, ax.yaxis.label] + list(ax.get_xticklabels())
    legend = ax.get_legend()
    return texts + (list(legend.get_texts()) if legend else [])


def _assert_names_drawn_literally(ax, names):
    ax.figure.canvas.draw()   # mathtext would raise here
    shown = [t for t in _texts(ax) if "$" in t.get_text()]
    assert {n for n in names if any(n in t.get_text() for t in shown)} == set(names)
    for t in shown:
        assert t.get_parse_math() is False, t.get_text()


def test_names_with_dollars_are_drawn_as_they_are_in_every_plot(mpl):
    import matplotlib.pyplot as plt

    result = compare(None, MATH_RUNS, ["$m$"])
    runs_and_measure = ["$x^{$", "$\\alpha$", "$m$"]
    for draw, names in ((lambda ax: result.plot(ax=ax), runs_and_measure + ["$q_1$"]),
                        (lambda ax: plot.distribution(result, "$m$", ax=ax), runs_and_measure)):
        fig, ax = plt.subplots()
        draw(ax)
        _assert_names_drawn_literally(ax, names)
        plt.close(fig)
    fig, ax = plt.subplots()
    qrels = {"q": {"a": 1}}
    runs = {name: evaluate(qrels, {"q": {"a": 1}}, plot.PR_MEASURES) for name in MATH_RUNS}
    plot.precision_recall(runs, ax=ax)
    _assert_names_drawn_literally(ax, list(MATH_RUNS))
    plt.close(fig)


def test_precision_recall_legend_keeps_a_name_starting_with_underscore(mpl, ax):
    # matplotlib leaves out of an automatic legend every label starting with
    # "_": a run named "_bm25" had no legend entry (issue 42).
    bm25 = evaluate(QRELS, BM25, plot.PR_MEASURES)
    plot.precision_recall({"_bm25": bm25, "rerank": bm25}, ax=ax)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["_bm25", "rerank"]
