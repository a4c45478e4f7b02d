"""compare() and ``irmetrics compare``: pairing, tests, corrections, renderings, errors.

Per-query values come from evaluate() (tested elsewhere); the p-values they
lead to are checked against scipy on those values, or by hand in comments.
"""

import csv
import io
import json
import math
import re
import subprocess
import sys
from pathlib import Path

import pytest
from oracles import require, scipy_wilcoxon

from irmetrics import Comparison, Evaluation, compare, evaluate
from irmetrics.cli import _run
from irmetrics.errors import InvalidArgumentError, UnknownMeasureError
from irmetrics.stats import adjust_p_values

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "docs" / "examples"
QRELS = str(EXAMPLES / "qrels.txt")
BM25 = str(EXAMPLES / "bm25.run")
RERANK = str(EXAMPLES / "rerank.run")
MEASURES = ["map", "P@5", "nDCG@10"]

# A small case worked by hand.
# AP per query: base q1 a(rel) x -> 1/2 (R=2); q2 x a(rel) -> 1/2; q3 c -> 1.
#               new  q1 a b -> 1;             q2 a x -> 1;           q3 c -> 1.
SMALL_QRELS = {"q1": {"a": 1, "b": 1}, "q2": {"a": 1}, "q3": {"c": 1}}
SMALL_RUNS = {
    "base": {"q1": {"a": 2, "x": 1}, "q2": {"x": 2, "a": 1}, "q3": {"c": 1}},
    "new": {"q1": {"a": 2, "b": 1}, "q2": {"a": 2, "x": 1}, "q3": {"c": 1}},
}


def run_cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = _run([str(a) for a in argv], out, err)
    return code, out.getvalue(), err.getvalue()


# === The worked example of docs/compare.md ====================================


def docs_block(title):
    """The ```text (or ```console) block after the HTML comment naming it in docs/compare.md."""
    page = (ROOT / "docs" / "compare.md").read_text(encoding="utf-8")
    m = re.search(rf"<!-- {re.escape(title)} -->\n```(?:text|console)\n(.*?)```", page, re.S)
    assert m, f"docs/compare.md has no block {title!r}"
    return m.group(1)


def test_docs_example_text_table_is_what_compare_prints():
    result = compare(QRELS, {"bm25": BM25, "rerank": RERANK}, MEASURES)
    page = docs_block("example: compare text")
    command, expected = page.split("\n", 1)
    assert command == "$ irmetrics compare docs/examples/qrels.txt docs/examples/bm25.run docs/examples/rerank.run -m map -m P@5 -m nDCG@10"
    assert result.to_text() == expected
    code, out, err = run_cli("compare", QRELS, BM25, RERANK, "-m", "map", "-m", "P@5", "-m", "nDCG@10")
    assert (code, out, err) == (0, expected, "")


def test_docs_example_markdown_and_latex():
    result = compare(QRELS, {"bm25": BM25, "rerank": RERANK}, MEASURES)
    assert result.to_markdown() == docs_block("example: compare markdown")
    assert result.to_latex() == docs_block("example: compare latex")


def test_docs_example_numbers_match_scipy():
    sp = require("scipy.stats")
    result = compare(QRELS, {"bm25": BM25, "rerank": RERANK}, MEASURES)
    base = evaluate(QRELS, BM25, MEASURES).per_query
    new = evaluate(QRELS, RERANK, MEASURES).per_query
    assert result.queries == tuple(sorted(base))
    for m in MEASURES:
        x = [new[q][m] for q in result.queries]
        y = [base[q][m] for q in result.queries]
        row = result.row("rerank", m)
        ref = sp.ttest_rel(x, y)
        assert row["p_value"] == pytest.approx(float(ref.pvalue), rel=1e-10)
        assert row["statistic"] == pytest.approx(float(ref.statistic), rel=1e-10)
        # two runs: one comparison per measure, Holm changes nothing
        assert row["p_adjusted"] == row["p_value"]
        diffs = [a - b for a, b in zip(x, y)]
        ci = sp.t.interval(0.95, len(diffs) - 1, loc=sum(diffs) / len(diffs),
                           scale=sp.sem(diffs))
        assert (row["ci_low"], row["ci_high"]) == pytest.approx(ci, rel=1e-9)
        assert row["mean"] == pytest.approx(sum(x) / len(x))
        assert result.row("bm25", m)["mean"] == pytest.approx(sum(y) / len(y))


@pytest.mark.parametrize("test, scipy_name", [("wilcoxon", "wilcoxon"), ("permutation", None)])
def test_other_tests_match_scipy_on_the_example(test, scipy_name):
    sp = require("scipy.stats")
    np = require("numpy")
    result = compare(QRELS, {"bm25": BM25, "rerank": RERANK}, MEASURES, test=test)
    base = evaluate(QRELS, BM25, MEASURES).per_query
    new = evaluate(QRELS, RERANK, MEASURES).per_query
    for m in MEASURES:
        d = np.array([new[q][m] - base[q][m] for q in sorted(base)])
        if scipy_name == "wilcoxon":
            expected = scipy_wilcoxon(sp, d).pvalue   # scipy >= 1.15's meaning on any scipy
        else:  # 8 queries: all 2**8 sign flips, as scipy enumerates them
            expected = sp.permutation_test((d,), np.mean, permutation_type="samples").pvalue
        assert result.row("rerank", m)["p_value"] == pytest.approx(float(expected), rel=1e-10)


# === Semantics ================================================================


def test_small_case_by_hand():
    result = compare(SMALL_QRELS, SMALL_RUNS, ["map", "P@1"])
    row = result.row("new", "map")
    # d = 0.5, 0.5, 0: mean 1/3, s = sqrt(1/12), se = 1/6, t = 2 with 2 df:
    # P(|T| > 2) = 1 - 2 / sqrt(2^2 + 2) = 0.18350
    assert row["difference"] == pytest.approx(1 / 3)
    assert row["statistic"] == pytest.approx(2.0)
    assert row["p_value"] == pytest.approx(1 - 2 / math.sqrt(6), rel=1e-12)
    assert (row["wins"], row["ties"], row["losses"]) == (2, 1, 0)
    assert row["significant"] is False
    base = result.row("base", "map")
    assert base["baseline"] is True and base["p_value"] is None and base["wins"] is None
    assert base["mean"] == pytest.approx(2 / 3)


def test_undefined_comparison_is_left_out_of_the_correction():
    runs = {"bm25": BM25, "rerank": RERANK, "self": BM25}
    result = compare(QRELS, runs, ["P@10", "map"], correction="holm")
    # "self" is bm25 again: every difference is 0, the t test is undefined
    same = result.row("self", "map")
    assert same["p_value"] is None and same["significant"] is False
    assert "undefined" in same["note"]
    assert any(n.startswith("self, map: no p-value") for n in result.notes)
    # so only one p-value per measure is defined, and Holm leaves it unchanged
    assert result.row("rerank", "map")["p_adjusted"] == result.row("rerank", "map")["p_value"]


def test_bonferroni_across_runs_of_a_measure():
    sp = require("scipy.stats")
    result = compare(QRELS, {"bm25": BM25, "rerank": RERANK, "mixed": _mixed_run()}, ["map"],
                     correction="bonferroni")
    ps = [result.row(n, "map")["p_value"] for n in ("rerank", "mixed")]
    # two comparisons of map: each p-value times 2, capped at 1
    assert [result.row(n, "map")["p_adjusted"] for n in ("rerank", "mixed")] == [
        min(1.0, 2 * p) for p in ps
    ]
    base = evaluate(QRELS, BM25, ["map"]).per_query
    new = evaluate(QRELS, RERANK, ["map"]).per_query
    x = [new[q]["map"] for q in sorted(base)]
    y = [base[q]["map"] for q in sorted(base)]
    assert ps[0] == pytest.approx(float(sp.ttest_rel(x, y).pvalue), rel=1e-10)


def _mixed_run():
    """bm25's rankings for half the queries, rerank's for the others."""
    from irmetrics import Run

    bm25, rerank = Run.from_trec(BM25), Run.from_trec(RERANK)
    out = {}
    for i, q in enumerate(sorted(bm25)):
        src = bm25 if i % 2 else rerank
        out[q] = dict(src[q])
    return out


def test_holm_three_comparisons_by_hand():
    # precomputed per-query values: qrels=None
    q = [f"q{i}" for i in range(6)]
    base = {k: {"m": 0.5} for k in q}
    runs = {
        "base": base,
        "a": {k: {"m": 0.5 + d} for k, d in zip(q, [0.3, 0.2, 0.25, 0.35, 0.3, 0.2])},
        "b": {k: {"m": 0.5 + d} for k, d in zip(q, [0.1, -0.1, 0.05, 0.0, 0.2, -0.05])},
        "c": {k: {"m": 0.5 + d} for k, d in zip(q, [0.1, 0.05, 0.0, 0.1, 0.15, 0.02])},
    }
    result = compare(None, runs, ["m"], correction="holm")
    raw = [result.row(n, "m")["p_value"] for n in "abc"]
    order = sorted(range(3), key=raw.__getitem__)
    # Holm by hand: smallest x3, next x2 (at least the previous), largest x1 (at least the previous)
    expected = [0.0] * 3
    running = 0.0
    for factor, i in zip((3, 2, 1), order):
        running = max(running, min(1.0, factor * raw[i]))
        expected[i] = running
    assert [result.row(n, "m")["p_adjusted"] for n in "abc"] == pytest.approx(expected)
    assert expected == pytest.approx(adjust_p_values(raw, method="holm"))
    for n, p in zip("abc", expected):
        assert result.row(n, "m")["significant"] is (p <= 0.05)


def test_queries_missing_from_a_run_are_left_out_and_said():
    qrels = {"q1": {"a": 1}, "q2": {"a": 1}, "q3": {"a": 1}, "q4": {"a": 1}}
    runs = {
        "one": {"q1": {"a": 1, "b": 2}, "q2": {"a": 1}, "q3": {"a": 1}, "q4": {"b": 1}},
        "two": {"q1": {"a": 1}, "q2": {"a": 1, "b": 2}, "q3": {"b": 1}},
    }
    result = compare(qrels, runs, ["P@1"])
    assert result.queries == ("q1", "q2", "q3")
    assert result.left_out == {"one": ("q4",)}
    # The note names the run that lacks q4 ("two"), not the one that has it
    # (issue 42: it said "(one: 'q4')").
    assert result.notes[0] == (
        "1 of 4 queries are not scored for every run and are left out "
        "(not scored for 'two': 'q4'); complete=True (-c) scores a missing query as 0."
    )
    assert result.notes[0] in result.to_text()
    # complete=True: q4 scores as an empty ranking for "two" (0), so all four are paired
    full = compare(qrels, runs, ["P@1"], complete=True)
    assert full.queries == ("q1", "q2", "q3", "q4") and full.left_out == {}
    assert full.per_query["two"]["q4"] == {"P@1": 0.0}


def test_precomputed_evaluations_and_dicts():
    evs = {name: evaluate(QRELS, path, MEASURES) for name, path in
           (("bm25", BM25), ("rerank", RERANK))}
    assert isinstance(evs["bm25"], Evaluation)
    from_files = compare(QRELS, {"bm25": BM25, "rerank": RERANK}, MEASURES)
    assert compare(QRELS, evs, MEASURES).rows == from_files.rows
    assert compare(None, evs, MEASURES).rows == from_files.rows
    tables = {name: ev.per_query for name, ev in evs.items()}
    assert compare(None, tables, MEASURES).rows == from_files.rows


def test_baseline_option_and_order():
    result = compare(QRELS, {"bm25": BM25, "rerank": RERANK}, ["map"], baseline="rerank")
    assert result.baseline == "rerank" and result.runs == ("rerank", "bm25")
    assert result.row("bm25", "map")["difference"] < 0
    assert result.row("bm25", "map")["losses"] == 8


@pytest.mark.parametrize("test, interval", [
    ("permutation", "permutation test inversion, 500 resamples, seed 11"),
    ("bootstrap", "percentile bootstrap, 500 resamples, seed 11"),
    ("wilcoxon", "percentile bootstrap, 500 resamples, seed 11"),
])
def test_same_seed_same_report(test, interval):
    runs = {"bm25": BM25, "rerank": RERANK}
    a = compare(QRELS, runs, MEASURES, test=test, seed=11, n_resamples=500)
    b = compare(QRELS, runs, MEASURES, test=test, seed=11, n_resamples=500)
    assert a.to_dict() == b.to_dict()
    assert interval in a.to_text()


def test_results_are_plain_data_and_fresh():
    result = compare(QRELS, {"bm25": BM25, "rerank": RERANK}, MEASURES)
    data = result.to_dict()
    assert json.loads(json.dumps(data)) == data
    rows = result.rows
    rows[0]["mean"] = -1
    assert result.rows[0]["mean"] != -1
    assert [r["run"] for r in data["rows"]] == ["bm25", "rerank"] * 3
    assert set(data["rows"][0]) == set(data["rows"][1])


def test_renderings():
    result = compare(QRELS, {"bm25_v1": BM25, "rerank": RERANK}, ["map", "P@5"])
    html = result._repr_html_()
    assert html.count("<tr>") == 5 and "<table>" in html and "bm25_v1" in html
    assert r"bm25\_v1 (baseline)" in result.to_latex()
    assert "$^{*}$" in result.to_latex()
    md = result.to_markdown()
    assert md.splitlines()[2].startswith("| measure | run | mean |")
    assert str(result) == result.to_text()
    assert repr(result).startswith("Comparison(baseline='bm25_v1'")
    assert isinstance(result, Comparison)


# === Bad input ================================================================


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"test": "t-test"}, "unknown test 't-test'; expected one of 'paired-t', 'wilcoxon', 'permutation', 'bootstrap'"),
        ({"correction": "fdr"}, "unknown correction 'fdr'; expected one of 'holm', 'bonferroni', 'none'"),
        ({"alpha": 1.5}, r"'alpha' must be a number in \(0, 1\) \(got 1.5\)"),
        # 1 - 1e-17 rounds to 1: the message names alpha and its value (issue 42)
        ({"alpha": 1e-17}, r"^'alpha' must be at least 1.6653345369377348e-16 \(got 1e-17\)"),
        ({"baseline": "bm26"}, r"baseline 'bm26' is not one of the runs \('bm25', 'rerank'\)"),
        ({"n_resamples": 0}, "'n_resamples' must be a positive int"),
    ],
)
def test_bad_options(kwargs, message):
    with pytest.raises(InvalidArgumentError, match=message):
        compare(QRELS, {"bm25": BM25, "rerank": RERANK}, ["map"], **kwargs)


def test_smallest_alpha_is_accepted_and_the_next_smaller_refused():
    # ALPHA_MIN: the smallest alpha with (1 + (1 - alpha)) / 2 < 1 in doubles
    # (the quantile of the t interval); the next float down is refused.
    from irmetrics.compare import ALPHA_MIN

    result = compare(SMALL_QRELS, SMALL_RUNS, ["map"], alpha=ALPHA_MIN)
    assert result.row("new", "map")["ci_low"] < result.row("new", "map")["ci_high"]
    with pytest.raises(InvalidArgumentError, match="'alpha' must be at least"):
        compare(SMALL_QRELS, SMALL_RUNS, ["map"], alpha=math.nextafter(ALPHA_MIN, 0.0))


def test_scored_query_ids_that_are_equal_as_str_are_refused():
    # 1 and "1" are one query id once read as str; Qrels and Run refuse the
    # pair, and so does compare(None, ...) instead of keeping one of the two
    # values (issue 42: it kept 0.9).
    runs = {
        "a": {1: {"map": 0.3}, "1": {"map": 0.9}, "2": {"map": 0.5}},
        "b": {"1": {"map": 0.1}, "2": {"map": 0.2}},
    }
    with pytest.raises(
        InvalidArgumentError, match=r"^run 'a' has two query ids that are both '1' as str \(got '1'\)$"
    ):
        compare(None, runs, ["map"])
    # The same words as Qrels and Run use for the same collision.
    from irmetrics import Qrels

    with pytest.raises(InvalidArgumentError, match="has two query ids that are both '1' as str"):
        Qrels({1: {"d": 1}, "1": {"d": 1}})
    # An int id alone is its str, as for Qrels and Run; other keys are refused.
    ok = compare(None, {"a": {1: {"m": 0.1}, 2: {"m": 0.4}}, "b": {"1": {"m": 0.3}, "2": {"m": 0.3}}},
                 ["m"])
    assert ok.queries == ("1", "2")
    with pytest.raises(InvalidArgumentError, match="query id of run 'a' must be a str or an int"):
        compare(None, {"a": {1.5: {"m": 0.1}, 2: {"m": 0.4}}, "b": {"2": {"m": 0.3}}}, ["m"])


def test_left_out_note_names_each_run_that_lacks_queries():
    # "c" lacks q3, "a" lacks q4 and q5; the runs came scored (qrels=None),
    # so the hint about complete=True, which would change nothing, is not given.
    v = {"m": 0.5}
    runs = {
        "a": {"q1": v, "q2": v, "q3": v},
        "b": {"q1": v, "q2": v, "q3": v, "q4": v, "q5": v},
        "c": {"q1": v, "q2": v, "q4": v, "q5": v},
    }
    result = compare(None, runs, ["m"])
    assert result.queries == ("q1", "q2")
    assert result.left_out == {"a": ("q3",), "b": ("q3", "q4", "q5"), "c": ("q4", "q5")}
    assert result.notes[0] == (
        "3 of 5 queries are not scored for every run and are left out "
        "(not scored for 'a': 'q4', 'q5'; not scored for 'c': 'q3')."
    )


def test_values_near_the_largest_float_give_the_right_p_value():
    # Per-query values +-1e308 (through compare(None, ...)): the t statistic
    # does not depend on the scale, so it is that of d = (-1, 1, -1) (the
    # differences b - a): mean -1/3, s = sqrt(4/3), se = s / sqrt(3) = 2/3,
    # t = -1/2; with 2 degrees of freedom P(|T| >= t) = 1 - t / sqrt(2 + t^2),
    # so p = 1 - (1/2) / (3/2) = 2/3.
    # Before: OverflowError.  The t interval (4.3 * 2/3 * 1e308) has no finite
    # bound: no interval, and a note saying so.
    a = {"1": {"m": 1e308}, "2": {"m": -1e308}, "3": {"m": 1e308}}
    b = {"1": {"m": 0.0}, "2": {"m": 0.0}, "3": {"m": 0.0}}
    result = compare(None, {"a": a, "b": b}, ["m"])
    row = result.row("b", "m")
    assert row["statistic"] == pytest.approx(-0.5, rel=1e-15)
    assert row["p_value"] == pytest.approx(2 / 3, rel=1e-14)
    assert row["mean"] == 0.0 and row["difference"] == pytest.approx(-1e308 / 3, rel=1e-15)
    assert result.row("a", "m")["mean"] == pytest.approx(1e308 / 3, rel=1e-15)
    assert row["ci_low"] is None and row["ci_high"] is None
    assert "no interval" in row["note"]
    assert any(n.startswith("b, m: no confidence interval") for n in result.notes)
    # Every number of to_dict() is finite: strict JSON.
    json.dumps(result.to_dict(), allow_nan=False)
    # The other tests too (their sums of +-1e308 overflowed).
    for test in ("wilcoxon", "permutation", "bootstrap"):
        other = compare(None, {"a": a, "b": b}, ["m"], test=test, n_resamples=200)
        json.dumps(other.to_dict(), allow_nan=False)
    # A difference that is itself beyond the largest float: a clear error.
    c = {"1": {"m": -1e308}, "2": {"m": 1e308}, "3": {"m": 0.0}}
    with pytest.raises(InvalidArgumentError, match=(
            r"^run 'c', query '1', measure 'm': the difference from the baseline 'a' "
            r"\(-1e\+308 - 1e\+308\) is beyond the largest float$")):
        compare(None, {"a": a, "c": c}, ["m"])


def test_fewer_than_two_runs():
    with pytest.raises(InvalidArgumentError, match=r"compare\(\) needs at least two runs \(got 1\)"):
        compare(QRELS, {"bm25": BM25}, ["map"])


def test_fewer_than_two_paired_queries():
    qrels = {"q1": {"a": 1}, "q2": {"a": 1}}
    runs = {"x": {"q1": {"a": 1}}, "y": {"q1": {"a": 1}, "q2": {"a": 1}}}
    with pytest.raises(InvalidArgumentError, match=r"at least two queries scored for every run \(got 1: 'q1'\)"):
        compare(qrels, runs, ["map"])


def test_measures_checked():
    with pytest.raises(UnknownMeasureError):
        compare(QRELS, {"bm25": BM25, "rerank": RERANK}, ["mpa"])
    with pytest.raises(InvalidArgumentError, match="'gm_map' is not averaged by the arithmetic mean"):
        compare(QRELS, {"bm25": BM25, "rerank": RERANK}, ["gm_map"])
    with pytest.raises(InvalidArgumentError, match="run 'b', query 'q1' has no value for measure 'm'"):
        compare(None, {"a": {"q1": {"m": 1}, "q2": {"m": 0}}, "b": {"q1": {}, "q2": {}}}, ["m"])


def test_constant_differences_are_reported_not_nan():
    a = {"q1": {"m": 0.25}, "q2": {"m": 0.5}, "q3": {"m": 0.75}}
    b = {"q1": {"m": 0.75}, "q2": {"m": 1.0}, "q3": {"m": 1.25}}  # +0.5 on each, exactly
    result = compare(None, {"a": a, "b": b}, ["m"])
    row = result.row("b", "m")
    assert row["p_value"] is None and row["p_adjusted"] is None and row["significant"] is False
    assert "t statistic is undefined" in row["note"]
    assert "n/a" in result.to_text() and "t statistic is undefined" in result.to_text()
    assert row["ci_low"] == row["ci_high"] == row["difference"] == 0.5
    identical = compare(None, {"a": a, "b": a}, ["m"])
    assert identical.row("b", "m")["p_value"] is None
    assert "all equal (0.0)" in identical.notes[0]
    # the randomization test is defined for them: every sign flip ties at 0 -> p = 1
    assert compare(None, {"a": a, "b": a}, ["m"], test="permutation").row("b", "m")["p_value"] == 1.0


# === Command line =============================================================


def test_cli_formats():
    args = ["compare", QRELS, BM25, RERANK, "-m", "map", "-m", "P@5"]
    code, out, err = run_cli(*args, "--format", "json")
    assert code == 0 and err == ""
    data = json.loads(out)
    assert data["runs"] == ["bm25", "rerank"] and data["measures"] == ["map", "P@5"]
    code, out, _ = run_cli(*args, "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["run"] for r in rows] == ["bm25", "rerank", "bm25", "rerank"]
    assert rows[1]["significant"] == "True"
    for fmt, start in (("markdown", "Baseline 'bm25'"), ("latex", "\\begin{tabular}"),
                       ("html", "<p>Baseline &#x27;bm25&#x27;")):
        code, out, _ = run_cli(*args, "--format", fmt)
        assert code == 0 and out.startswith(start) and out.endswith("\n")
    code, out, _ = run_cli(*args, "--format", "html")  # what to_html() writes, one line more
    assert out == compare(QRELS, {"bm25": BM25, "rerank": RERANK}, ["map", "P@5"]).to_html() + "\n"
    code, out, _ = run_cli(*args, "--test", "permutation", "--baseline", "rerank",
                           "--correction", "none", "--alpha", "0.01")
    assert code == 0 and "Baseline 'rerank'; two-sided paired randomization test" in out
    assert "99% CI" in out and "without correction" in out


@pytest.mark.parametrize(
    "argv, code, message",
    [
        (["compare", QRELS, BM25, "-m", "map"], 2, "needs at least two runs (got 1)"),
        (["compare", QRELS, BM25, RERANK], 2, "the following arguments are required: -m/--measure"),
        (["compare", QRELS, BM25, RERANK, "-m", "map", "--test", "z"], 2, "invalid choice: 'z'"),
        (["compare", QRELS, BM25, BM25, "-m", "map"], 2, "a run file is given twice"),
        (["compare", QRELS, BM25, str(ROOT / "docs"), "-m", "map"], 2, "docs"),
        (["compare", QRELS, BM25, RERANK, "-m", "map", "-l", "0"], 2, "-l"),
        (["compare", QRELS, BM25, RERANK, "-m", "mpa"], 2, "unknown measure 'mpa'"),
        (["compare", QRELS, BM25, "nope.run", "-m", "map"], 2, "nope.run"),
        (["compare", QRELS, BM25, RERANK, "-m", "map", "--baseline", "x"], 2,
         "baseline 'x' is not one of the runs ('bm25', 'rerank')"),
        (["compare", QRELS, BM25, RERANK, "-m", "map", "--alpha", "2"], 2,
         "--alpha must be a number in (0, 1) (got 2.0)"),
        # The option the user gave, with the value given (issue 42: it said
        # "'confidence' must be in (0, 1) (got 1.0)").
        (["compare", QRELS, BM25, RERANK, "-m", "map", "--alpha", "1e-17"], 2,
         "--alpha must be at least 1.6653345369377348e-16 (got 1e-17)"),
        (["compare", QRELS, BM25, RERANK, "-m", "map", "--resamples", "0"], 2,
         "--resamples must be at least 1 (got 0)"),
    ],
)
def test_cli_errors_are_one_line(argv, code, message):
    got, out, err = run_cli(*argv)
    assert got == code and out == ""
    assert err.count("\n") == 1 and err.startswith("irmetrics compare: error: ")
    assert message in err
    assert "Traceback" not in err


def test_cli_compare_does_not_change_plain_evaluation():
    code, out, _ = run_cli(QRELS, BM25, "-m", "map")
    assert (code, out) == (0, "map                   \tall\t0.5541\n")


@pytest.mark.slow
def test_comparing_imports_only_the_standard_library():
    code = (
        "import sys\n"
        "before = set(sys.modules)\n"
        "import irmetrics\n"
        f"irmetrics.compare({QRELS!r}, {{'a': {BM25!r}, 'b': {RERANK!r}}}, ['map'], test='wilcoxon')\n"
        f"irmetrics.compare({QRELS!r}, {{'a': {BM25!r}, 'b': {RERANK!r}}}, ['map'], test='permutation')\n"
        "new = set(sys.modules) - before\n"
        "import os, sysconfig\n"
        "lib = os.path.realpath(sysconfig.get_paths()['stdlib'])\n"
        "def std(m):  # sys.stdlib_module_names is Python 3.10+\n"
        "    if hasattr(sys, 'stdlib_module_names'):\n"
        "        return m.split('.')[0] in sys.stdlib_module_names\n"
        "    f = getattr(sys.modules[m], '__file__', None)\n"
        "    return f is None or (os.path.realpath(f).startswith(lib)\n"
        "                         and 'site-packages' not in f)\n"
        "print(sorted(m for m in new if not std(m) and m.split('.')[0] != 'irmetrics'))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# === Warnings point at the caller's line (issue 18, finding 11) ==============

import warnings  # noqa: E402

from irmetrics import IrmetricsWarning  # noqa: E402
from irmetrics.compare import ROW_KEYS  # noqa: E402

_EXTRA_QUERY_QRELS = {"q1": {"d1": 1}, "q2": {"d2": 1}}
_EXTRA_QUERY_RUN = {"q1": {"d1": 1.0}, "q2": {"d2": 1.0}, "q9": {"d1": 1.0}}  # q9 is unjudged


def test_evaluate_warning_points_at_the_callers_line():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        line = sys._getframe().f_lineno + 1
        evaluate(_EXTRA_QUERY_QRELS, _EXTRA_QUERY_RUN, "map")
    [w] = caught
    assert issubclass(w.category, IrmetricsWarning)
    assert str(w.message) == "1 run query has no judgments and was skipped: 'q9'"
    # stacklevel=4 used to name the frame above the caller (sys:1 at top level).
    assert (w.filename, w.lineno) == (__file__, line)


@pytest.mark.slow
def test_evaluate_warning_from_a_top_level_call_names_the_script(tmp_path):
    script = tmp_path / "top.py"
    script.write_text(
        "import irmetrics\n"
        f"irmetrics.evaluate({_EXTRA_QUERY_QRELS!r}, {_EXTRA_QUERY_RUN!r}, 'map')\n",
        encoding="utf-8",
    )
    proc = subprocess.run([sys.executable, "-W", "always", str(script)], capture_output=True,
                          text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.startswith(f"{script}:2: IrmetricsWarning: 1 run query has no judgments")


def test_compare_warning_points_at_the_callers_line():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        line = sys._getframe().f_lineno + 1
        compare(_EXTRA_QUERY_QRELS, {"a": _EXTRA_QUERY_RUN, "b": _EXTRA_QUERY_RUN}, "map")
    assert len(caught) == 2  # one per run evaluated
    for w in caught:
        assert issubclass(w.category, IrmetricsWarning)
        assert (w.filename, w.lineno) == (__file__, line)


def test_irmetrics_warnings_can_be_filtered_as_errors():
    with warnings.catch_warnings():
        warnings.simplefilter("error", IrmetricsWarning)
        with pytest.raises(IrmetricsWarning):
            evaluate(_EXTRA_QUERY_QRELS, _EXTRA_QUERY_RUN, "map")


def test_every_warning_irmetrics_emits_is_an_irmetrics_warning():
    # Every call of warnings.warn (or of errors._warn) in the package passes
    # IrmetricsWarning or a subclass of it, so one filter covers them all.
    import ast

    import irmetrics.errors as errors

    calls = 0
    for path in sorted((ROOT / "irmetrics").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
            if name not in ("warn", "_warn"):
                continue
            calls += 1
            category = node.args[1] if len(node.args) > 1 else next(
                (k.value for k in node.keywords if k.arg == "category"), None)
            if category is None and name == "_warn":
                continue  # its default is IrmetricsWarning
            assert isinstance(category, ast.Name), (path.name, node.lineno)
            if (path.name, category.id) == ("errors.py", "category"):
                continue  # _warn passes on its argument, typed Type[IrmetricsWarning]
            cls = getattr(errors, category.id, None)
            assert isinstance(cls, type) and issubclass(cls, IrmetricsWarning), (
                path.name, node.lineno, category.id)
    assert calls >= 2  # errors._warn itself and evaluate's


# === Outputs escape what they print (issue 18, findings 13-15) ================

HOSTILE_QID = "<svg/onload=alert(1)>"
# A run name with every LaTeX special, Markdown's |, \ and *, a blank line and HTML.
HOSTILE_RUN = "a_b%c&d#e$f{g}h~i^j\\k|l<m>n*o\n\np`q"
M = "P_x|y"


def hostile_comparison():
    # Scored tables (qrels=None): the hostile query is scored for the
    # baseline only, so it is left out and named in the notes.
    base = {"q1": {M: 0.1}, "q2": {M: 0.3}, HOSTILE_QID: {M: 0.2}}
    new = {"q1": {M: 0.2}, "q2": {M: 0.5}}
    return compare(None, {"=base": base, HOSTILE_RUN: new}, [M])


def test_latex_escapes_names_and_writes_comparisons_in_math_mode():
    tex = hostile_comparison().to_latex()
    assert (r"a\_b\%c\&d\#e\$f\{g\}h\textasciitilde{}i\textasciicircum{}j\textbackslash{}k"
            r"\textbar{}l\textless{}m\textgreater{}n*o p`q & 0.3500 \\") in tex
    assert r"Run & P\_x\textbar{}y \\" in tex
    assert r"(two-sided paired t test, $p \le 0.05$ after Holm correction" in tex
    # No blank line (a paragraph break ends a tabular with an error), and no
    # bare < > | outside math (OT1 prints them as other glyphs).
    assert "\n\n" not in tex.rstrip("\n")
    text_mode = re.sub(r"\$[^$]*\$", "", tex.replace(r"\$", ""))
    assert not re.search(r"[<>|]", text_mode)


def test_latex_comparison_follows_alpha():
    tex = compare(SMALL_QRELS, SMALL_RUNS, "map", alpha=0.1).to_latex()
    assert r"$p \le 0.1$" in tex and "<=" not in tex


def test_html_escapes_every_id_and_name():
    html = hostile_comparison()._repr_html_()
    assert "<svg" not in html and "&lt;svg/onload=alert(1)&gt;" in html
    assert "l&lt;m&gt;n" in html
    assert "<td>P_x|y</td>" in html
    assert re.findall(r"<(\w+)", html) and set(re.findall(r"<(\w+)", html)) <= {
        "p", "table", "thead", "tr", "th", "tbody", "td", "br", "small"}


def test_markdown_escapes_html_pipes_backslashes_and_newlines():
    md = hostile_comparison().to_markdown()
    assert "<svg" not in md and "'&lt;svg/onload=alert(1)&gt;'" in md
    row = next(line for line in md.splitlines() if "0.3500" in line)
    assert row.startswith(
        r"| P\_x\|y | a\_b%c&amp;d\#e&#36;f\{g\}h&#126;i&#94;j\\k\|l&lt;m&gt;n\*o p\`q | 0.3500 |")
    # Each row still has the 8 cells of the header: no unescaped | inside one.
    for line in md.splitlines():
        if line.startswith("|"):
            assert len(re.split(r"(?<!\\)\|", line)) == 10, line
    # A blank line inside a name would have ended the table.
    table = md.split("\n\n")[1]
    lines = table.splitlines()   # header, rule, the baseline's row, the other run's
    assert len(lines) == 4 and all(line.startswith("|") for line in lines)


def test_text_table_keeps_a_name_with_newlines_on_one_line():
    text = hostile_comparison().to_text()
    rows = [line for line in text.splitlines() if line.startswith("P_x|y")]
    assert len(rows) == 2 and "n*o p`q" in rows[1]


def _hostile_files(tmp_path):
    """Qrels and two runs whose query ids a spreadsheet or a browser would run."""
    qids = ["=HYPERLINK(\"http://x\")", "+1+1", "-2", "@SUM(A1)", 'q"uote', "back\\slash",
            "ctl\x01char", "emoji\U0001F600", HOSTILE_QID]
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"{q} 0 d1 1\n{q} 0 d2 1\n" for q in qids), encoding="utf-8")
    a = tmp_path / "=cmd|x.run"
    b = tmp_path / "b.run"
    a.write_text("".join(f"{q} Q0 d1 1 2.0 a\n{q} Q0 d3 2 1.0 a\n" for q in qids), encoding="utf-8")
    b.write_text("".join(f"{q} Q0 d3 1 2.0 b\n{q} Q0 d2 2 1.0 b\n" for q in qids), encoding="utf-8")
    return qids, qrels, a, b


def test_cli_compare_csv_quotes_and_neutralises_formulas(tmp_path):
    qids, qrels, a, b = _hostile_files(tmp_path)
    code, out, err = run_cli("compare", qrels, a, b, "-m", "P@1", "-m", "map", "--format", "csv")
    assert code == 0, err
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == list(ROW_KEYS)
    assert {r[1] for r in rows[1:]} == {"'=cmd|x", "b"}  # the run named by its file: neutralised
    for r in rows[1:]:
        assert r[0] in ("P@1", "map")
        for cell in r:
            assert cell[:1] not in ("=", "+", "@", "\t", "\r"), r
    # Numbers are not neutralised: a negative difference stays a number.
    diffs = [float(r[4]) for r in rows[1:] if r[4]]
    assert diffs and min(diffs) < 0


def test_cli_evaluate_csv_quotes_and_neutralises_formulas(tmp_path):
    qids, qrels, a, _ = _hostile_files(tmp_path)
    code, out, err = run_cli("-q", "-m", "P.1", "--format", "csv", qrels, a)
    assert code == 0, err
    rows = list(csv.reader(io.StringIO(out)))
    got = [r[0] for r in rows[1:-1]]
    expected = {q if q[0] not in "=+-@" else "'" + q for q in qids}
    assert set(got) == expected
    # RFC 4180: a quote is doubled inside a quoted field.
    assert '"q""uote",P_1,1.0\n' in out
    assert rows[-1] == ["all", "P_1", "1.0"]


def test_csv_cells_follow_rfc_4180():
    from irmetrics.formats import _csv_cell

    assert _csv_cell("a,b") == '"a,b"'
    assert _csv_cell('a"b') == '"a""b"'
    assert _csv_cell("a\rb") == '"a\rb"'   # the csv module leaves a lone CR unquoted
    assert _csv_cell("a\nb") == '"a\nb"'
    assert _csv_cell("=1+1") == "'=1+1"
    assert _csv_cell("\t=1") == "'\t=1"
    assert _csv_cell("-1") == "'-1"
    assert _csv_cell(-0.25) == "-0.25" and _csv_cell(3) == "3" and _csv_cell(None) == ""
    assert _csv_cell(True) == "True"


@pytest.mark.parametrize("fmt", ["json"])
def test_cli_json_is_valid_for_any_id(tmp_path, fmt):
    qids, qrels, a, b = _hostile_files(tmp_path)
    code, out, err = run_cli("-q", "-m", "P.1", "--format", fmt, qrels, a)
    assert code == 0, err
    assert set(json.loads(out)["per_query"]) == set(qids)
    code, out, err = run_cli("compare", qrels, a, b, "-m", "P@1", "--format", fmt)
    assert code == 0, err
    data = json.loads(out)
    assert set(data["queries"]) == set(qids) and data["runs"] == ["=cmd|x", "b"]


# Names that some Markdown reads as markup: a link and an image (issue 42:
# _md_escape left [ ] ! alone), bare URLs (GitHub and pymdownx.magiclink link
# them), math, strikethrough, superscript, highlight, an attribute list (the
# attr_list extension puts onclick on the paragraph), and names that begin a
# list, a heading or a quote when a note line starts with them.
MARKUP_NAMES = [
    "![x](http:evil.example/t.png)[click](http:evil.example)",
    "[ref] www.evil.example http://evil.example <http://evil.example>",
    "$x$ ~~s~~ ~t~ ^^u^^ ^v^ ==m== :smile: &amp; &#60;",
    '{: onclick="alert(1)" } *e* _f_ `c` \\',
    "- item",
    "1. first",
    "# heading",
    "> quote",
]


def _render_markdown(text):
    markdown = require("markdown")
    require("pymdownx")
    return markdown.markdown(text, extensions=[
        "tables", "attr_list", "pymdownx.magiclink", "pymdownx.tilde", "pymdownx.caret",
        "pymdownx.mark", "pymdownx.arithmatex"])


def _html_parts(html):
    """[(tag, attrs)] of every start tag, and the text of each <td>, <p>."""
    from html.parser import HTMLParser

    class Parser(HTMLParser):
        def __init__(self):
            super().__init__(convert_charrefs=True)
            self.tags, self.cells, self.paragraphs, self._open = [], [], [], None

        def handle_starttag(self, tag, attrs):
            self.tags.append((tag, attrs))
            if tag in ("td", "p"):
                self._open = (tag, [])

        def handle_endtag(self, tag):
            if self._open and tag == self._open[0]:
                (self.cells if tag == "td" else self.paragraphs).append("".join(self._open[1]))
                self._open = None

        def handle_data(self, data):
            if self._open:
                self._open[1].append(data)

    parser = Parser()
    parser.feed(html)
    return parser.tags, parser.cells, parser.paragraphs


def test_markdown_renders_every_name_as_text_no_link_image_or_markup():
    # Constant differences from the baseline: every run's note line ("NAME,
    # m: no p-value: ...") starts with its name.
    names = ["base"] + MARKUP_NAMES
    runs = {name: {"q1": {"m": i / 16}, "q2": {"m": 0.25 + i / 16}} for i, name in
            enumerate(names)}   # d = i/16 twice, exactly
    result = compare(None, runs, ["m"])
    html = _render_markdown(result.to_markdown())
    tags, cells, paragraphs = _html_parts(html)
    assert {tag for tag, _ in tags} <= {"p", "table", "thead", "tbody", "tr", "th", "td", "br"}, html
    for _, attrs in tags:  # the tables extension aligns cells; nothing else
        assert all(name == "style" and value.startswith("text-align") for name, value in attrs)
    # Each name is shown as it is, in its row and at the start of its note.
    shown_runs = [cells[i] for i in range(1, len(cells), 8)]
    assert shown_runs == names
    footer = paragraphs[-1].split("\n")
    for name in MARKUP_NAMES:
        assert any(line.startswith(f"{name}, m: no p-value") for line in footer), name


def _pdflatex_or_skip():
    """The path of pdflatex with booktabs, or a skip that says what is missing."""
    import shutil

    engine = shutil.which("pdflatex")
    if engine is None:
        pytest.skip("no TeX engine: pdflatex is not installed (CI installs no TeX)")
    found = subprocess.run(["kpsewhich", "booktabs.sty"], capture_output=True, text=True)
    if not found.stdout.strip():
        pytest.skip("TeX has no booktabs.sty (Debian: texlive-latex-recommended)")
    return engine


@pytest.mark.tex
@pytest.mark.slow
def test_latex_table_compiles_and_keeps_names_that_tex_reads_as_arguments(tmp_path):
    # A row starting with "[" was read as the optional argument of the "\\"
    # ending the row before ("Missing number"), or of \midrule; one starting
    # with "*" lost its star to "\\*" (issue 42).  Also every special character.
    engine = _pdflatex_or_skip()
    names = ["[x]", "[1] bm25", "*new", "%&#_{}~^\\$<>|` a-b"]
    runs = {name: {"q1": {"P_x|y": i / 8}, "q2": {"P_x|y": 0.5 - i / 16}}
            for i, name in enumerate(names)}
    tex = compare(None, runs, ["P_x|y"]).to_latex()
    (tmp_path / "doc.tex").write_text(
        "\\pdfcompresslevel=0\\pdfobjcompresslevel=0\n"   # the PDF's text readable below
        "\\documentclass{article}\\usepackage{booktabs}\n"
        "\\begin{document}\n" + tex + "\\end{document}\n", encoding="utf-8")
    done = subprocess.run(
        [engine, "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape", "doc.tex"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stdout[-3000:]
    pdf = (tmp_path / "doc.pdf").read_bytes()
    # The names as typeset ("(" and ")" of the PDF string are written \050 \051).
    assert b"[([x])-333(\\050baseline\\051)]TJ" in pdf
    assert b"[([1])-333(bm25)]TJ" in pdf
    assert b"[(*new)]TJ" in pdf


def test_each_test_reports_the_interval_that_inverts_it():
    from irmetrics import stats
    rng = __import__("random").Random(3)
    runs = {name: {f"q{i:02d}": {"m": rng.random() + shift} for i in range(25)}
            for name, shift in (("a", 0.0), ("b", 0.1), ("c", 0.2))}
    samples = [[runs[name][f"q{i:02d}"]["m"] for i in range(25)] for name in "abc"]
    d = [y - x for x, y in zip(samples[0], samples[1])]  # b - a
    p = compare(None, runs, ["m"], test="permutation", alpha=0.1, n_resamples=300, seed=4)
    row = p.row("b", "m")
    assert (row["ci_low"], row["ci_high"]) == stats.permutation_ci(
        d, confidence=0.9, n_resamples=300, seed=4)
    assert p.ci_method.startswith("permutation test inversion, 300 resamples, seed 4")
    for test, result in [
        ("tukey-hsd", stats.tukey_hsd(*samples, design="two-way", confidence=0.9)),
        ("randomized-tukey", stats.randomized_tukey_hsd(*samples, n_resamples=300, seed=4,
                                                        confidence=0.9)),
    ]:
        t = compare(None, runs, ["m"], test=test, alpha=0.1, n_resamples=300, seed=4)
        row = t.row("b", "m", versus="a")
        assert row["ci_low"] == pytest.approx(row["difference"] - result.margin[1][0], rel=1e-12)
        assert row["ci_high"] == pytest.approx(row["difference"] + result.margin[1][0], rel=1e-12)
        assert row["significant"] == (not row["ci_low"] <= 0.0 <= row["ci_high"])
    assert "simultaneous" in t.ci_method


def test_family_test_undefined_gives_no_p_value_and_the_degenerate_interval():
    # b = a + 0.25 and c = a + 0.5 on every query: the two-way ANOVA's
    # residual variance is 0, so Tukey's HSD is undefined (one note for the
    # measure); each pair's differences are constant: interval (d, d).  (The
    # randomised test is defined: a range of permuted sums, no variance.)
    a = {f"q{i}": {"m": v} for i, v in enumerate([0.25, 0.5, 0.125, 0.75])}
    runs = {"a": a, "b": {q: {"m": v["m"] + 0.25} for q, v in a.items()},
            "c": {q: {"m": v["m"] + 0.5} for q, v in a.items()}}
    result = compare(None, runs, ["m"], pairs="all", test="tukey-hsd")
    row = result.row("c", "m", versus="a")
    assert row["p_value"] is None and row["note"] is None
    assert row["ci_low"] == row["ci_high"] == row["difference"] == 0.5
    assert [n for n in result.notes if n.startswith("m: no p-value")]
