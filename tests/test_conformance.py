"""Conformance with trec_eval 9.0.8 on trec_eval's own test files.

The inputs and the ``expected.*.txt`` files in ``tests/data/trec_eval`` are
NIST trec_eval's ``test/`` folder and what trec_eval 9.0.8 printed for each
command below; see ``tests/data/README.md``.  The command line must reproduce
them line for line.  ``tests/data/trec_eval/random`` adds 35 random pairs with
trec_eval's output for 14 option sets each (see
:func:`test_random_pair_prints_what_trec_eval_printed`).
"""

import gzip
import io
import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from oracles import require

from irmetrics import Qrels, Run, evaluate
from irmetrics.cli import _run
from irmetrics.errors import IrmetricsWarning
from irmetrics.measures import parse_measure

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(__file__).parent / "data" / "trec_eval"

# (expected file, trec_eval's command-line arguments before QRELS RUN, qrels, run)
# -- the commands of shared/conformance/trec_eval/README.md.
COMMANDS = [
    ("expected.official.txt", [], "qrels.test", "results.test"),
    ("expected.all_trec.q.txt", ["-q", "-m", "all_trec"], "qrels.test", "results.test"),
    ("expected.all_trec.q.c.trunc.txt", ["-q", "-c", "-m", "all_trec"],
     "qrels.test", "results.trunc"),
    ("expected.all_trec.q.c.M100.trunc.txt", ["-q", "-c", "-M100", "-m", "all_trec"],
     "qrels.test", "results.trunc"),
    ("expected.all_trec.q.l2.rel_level.txt", ["-q", "-l2", "-m", "all_trec"],
     "qrels.rel_level", "results.test"),
    ("expected.params.q.txt",
     ["-q", "-m", "P.5,7,3", "-m", "recall.20,2000", "-m", "ndcg_cut.10,20,23",
      "-m", "success.2,5,20", "-m", "map_cut.5,50"],
     "qrels.test", "results.test"),
]


def run_cli(argv):
    out, err = io.StringIO(), io.StringIO()
    code = _run([str(a) for a in argv], out, err)
    return code, out.getvalue(), err.getvalue()


def expected_lines(name):
    return (DATA / name).read_text(encoding="ascii").splitlines()


def parse_report(lines):
    """{(measure, query): printed value} of a trec_eval report."""
    out = {}
    for line in lines:
        measure, qid, value = line.split("\t")
        out[(measure.strip(), qid)] = value
    return out


def only_the_tie_note(err):
    """trec_eval's test run has tied scores that move some values: the CLI's one
    line pointing at --ties (tests/test_ties.py) is all it may print there."""
    return re.fullmatch(r"(irmetrics: note: tied scores move the values of \d+ "
                        r"quer(y|ies) \(e\.g\. '\d+'\); see --ties and 'irmetrics ties'\n)?",
                        err) is not None


@pytest.mark.parametrize(
    "expected, options, qrels, run", COMMANDS, ids=[c[0] for c in COMMANDS]
)
def test_cli_prints_what_trec_eval_printed(expected, options, qrels, run):
    code, out, err = run_cli([*options, DATA / qrels, DATA / run])
    assert code == 0, err
    assert only_the_tie_note(err), err
    # Lists of lines, so that a failure points at the first differing line.
    assert out.splitlines() == expected_lines(expected)
    assert out.endswith("\n")


def test_cli_output_is_byte_identical_to_trec_eval():
    # Same check on the raw text: tabs, padding and the final newline.
    code, out, _ = run_cli([DATA / "qrels.test", DATA / "results.test"])
    assert code == 0
    assert out == (DATA / "expected.official.txt").read_text(encoding="ascii")


@pytest.mark.slow
def test_python_dash_m_irmetrics_matches_trec_eval():
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run(
        [sys.executable, "-m", "irmetrics", "-q", "-m", "all_trec",
         str(DATA / "qrels.test"), str(DATA / "results.test")],
        capture_output=True, text=True, cwd=str(ROOT), env=env, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert only_the_tie_note(proc.stderr), proc.stderr
    assert proc.stdout.splitlines() == expected_lines("expected.all_trec.q.txt")


def test_main_with_capsys(capsys):
    from irmetrics.cli import main

    code = main([str(DATA / "qrels.test"), str(DATA / "results.test")])
    captured = capsys.readouterr()
    assert code == 0
    assert captured.out.splitlines() == expected_lines("expected.official.txt")


# === evaluate() against the printed values =================================


@pytest.fixture(scope="module")
def qrels_test():
    return Qrels.from_trec(DATA / "qrels.test")


@pytest.fixture(scope="module")
def results_test():
    return Run.from_trec(DATA / "results.test")


def _numeric_names(report):
    names = []
    for measure, _ in report:
        if measure not in names and measure != "runid" and measure != "relstring":
            names.append(measure)
    return names


def test_evaluate_official_aggregate_equals_printed(qrels_test, results_test):
    report = parse_report(expected_lines("expected.official.txt"))
    names = _numeric_names(report)
    assert len(names) == 29  # 30 official lines minus runid
    result = evaluate(qrels_test, results_test, names)
    assert results_test.name == report[("runid", "all")]
    for name in names:
        printed = report[(name, "all")]
        value = result.aggregate[name]
        if parse_measure(name).family.count:
            assert isinstance(value, int), name
            assert str(value) == printed, name
        else:
            # trec_eval prints %6.4f; Python's formatting rounds the same way.
            assert f"{value:6.4f}" == printed, name


@pytest.mark.parametrize(
    "expected, kwargs, qrels, run",
    [
        ("expected.all_trec.q.txt", {}, "qrels.test", "results.test"),
        ("expected.all_trec.q.c.trunc.txt", {"complete": True}, "qrels.test", "results.trunc"),
        ("expected.all_trec.q.c.M100.trunc.txt", {"complete": True, "depth": 100},
         "qrels.test", "results.trunc"),
        ("expected.all_trec.q.l2.rel_level.txt", {"relevance_level": 2},
         "qrels.rel_level", "results.test"),
    ],
    ids=["all_trec", "complete", "complete-depth", "level2"],
)
def test_evaluate_all_trec_per_query_and_aggregate(expected, kwargs, qrels, run):
    report = parse_report(expected_lines(expected))
    names = _numeric_names(report)
    result = evaluate(Qrels.from_trec(DATA / qrels), Run.from_trec(DATA / run), names, **kwargs)
    per_query = result.per_query
    checked = 0
    for (name, qid), printed in report.items():
        if name in ("runid", "relstring"):
            continue
        value = result.aggregate[name] if qid == "all" else per_query[qid][name]
        if parse_measure(name).family.count:
            assert str(int(value)) == printed, (name, qid)
        else:
            assert f"{value:6.4f}" == printed, (name, qid)
        checked += 1
    assert checked > 200


def test_complete_averages_missing_topic_as_zero():
    # results.trunc lacks topic 302.  trec_eval -c prints num_q 3 and the
    # all-line map is (map_301 + 0 + map_303) / 3 (values from the expected file).
    report = parse_report(expected_lines("expected.all_trec.q.c.trunc.txt"))
    assert report[("num_q", "all")] == "3"
    qrels, run = Qrels.from_trec(DATA / "qrels.test"), Run.from_trec(DATA / "results.trunc")
    result = evaluate(qrels, run, ["map", "num_q", "num_rel"], complete=True)
    assert result.missing == ("302",)
    assert result.aggregate["num_q"] == 3
    per = result.per_query
    assert per["302"]["map"] == 0.0
    assert math.isclose(result.aggregate["map"], (per["301"]["map"] + per["303"]["map"]) / 3)
    assert str(result.aggregate["num_rel"]) == report[("num_rel", "all")]
    without = evaluate(qrels, run, ["num_q"])
    assert without.aggregate["num_q"] == 2


# === evaluate() against pytrec_eval on the same files ======================

PYTREC_MEASURES = [
    "map", "gm_map", "Rprec", "bpref", "recip_rank", "P_5", "P_10", "P_100", "recall_10",
    "recall_1000", "ndcg", "ndcg_cut_10", "ndcg_cut_1000", "map_cut_100", "success_1",
    "success_10", "iprec_at_recall_0.10", "infAP", "set_P", "set_recall", "set_F",
    "Rprec_mult_0.20", "11pt_avg", "num_ret", "num_rel", "num_rel_ret", "utility", "binG",
    "G", "ndcg_rel", "Rndcg", "relative_P_10", "set_map", "set_relative_P", "gm_bpref",
    "num_nonrel_judged_ret",
]


@pytest.mark.parametrize("qrels_name", ["qrels.test", "qrels.rel_level"])
def test_per_query_agrees_with_pytrec_eval(qrels_name):
    pytrec_eval = require("pytrec_eval")
    qrels = Qrels.from_trec(DATA / qrels_name)
    run = Run.from_trec(DATA / "results.test")
    # pytrec_eval takes families and returns every default parameter, keyed
    # by trec_eval's printed names (P_5, iprec_at_recall_0.10, ...).
    families = {parse_measure(m).family.key for m in PYTREC_MEASURES}
    evaluator = pytrec_eval.RelevanceEvaluator(qrels.to_dict(), families)
    expected = evaluator.evaluate(run.to_dict())
    result = evaluate(qrels, run, PYTREC_MEASURES)
    assert sorted(result.per_query) == sorted(expected)
    for qid, values in result.per_query.items():
        for name, value in values.items():
            family = parse_measure(name).family
            if not family.per_query:
                continue
            assert value == pytest.approx(expected[qid][name], abs=1e-9), (qid, name)


def test_run_query_absent_from_qrels_is_skipped_not_scored(qrels_test):
    run = Run.from_dict({"301": {"FBIS3-10082": 1.0}, "999": {"d": 1.0}})
    with pytest.warns(IrmetricsWarning, match="999"):
        result = evaluate(qrels_test, run, ["num_q"])
    assert result.aggregate["num_q"] == 1
    assert result.skipped == ("999",)


# === trec_eval's arithmetic order ===


def test_mean_adds_in_trec_evals_order(tmp_path):
    # Issue 12's reproducer: AP per query 1, 1, (1/2 + 2/3) / 2, (1/2 + 2/3) / 4.
    # Exactly, the mean is 2.875 / 4 = 0.71875, which %.4f rounds to 0.7188
    # (half to even); added left to right in doubles, as trec_eval 9.0.8
    # adds them, the sum falls just below 2.875, and trec_eval prints 0.7187.
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 a 1\nq2 0 a 1\nq3 0 b 1\nq3 0 c 1\n"
                     "q4 0 b 1\nq4 0 c 1\nq4 0 d 1\nq4 0 e 1\n")
    run = tmp_path / "run"
    lines = ["q1 Q0 a 1 1 r", "q2 Q0 a 1 1 r"]
    for q in ("q3", "q4"):
        lines += [f"{q} Q0 x 1 3 r", f"{q} Q0 b 2 2 r", f"{q} Q0 c 3 1 r"]
    run.write_text("\n".join(lines) + "\n")
    code, out, _ = run_cli(["-m", "map", qrels, run])
    assert (code, out) == (0, "map                   \tall\t0.7187\n")
    ap = [1.0, 1.0, (1 / 2 + 2 / 3) / 2, (1 / 2 + 2 / 3) / 4]
    total = 0.0
    for v in ap:
        total += v
    result = evaluate(str(qrels), str(run), ["map"])
    assert result.aggregate["map"] == total / 4 != math.fsum(ap) / 4


def test_runid_is_the_tag_of_the_last_line(tmp_path):
    # get_trec_results.c keeps the run_id of the last content line.
    (tmp_path / "q").write_text("q1 0 a 1\n")
    (tmp_path / "r").write_text("q1 Q0 a 1 1 first\nq1 Q0 b 2 0 last\n# a comment\n")
    code, out, _ = run_cli(["-m", "runid", tmp_path / "q", tmp_path / "r"])
    assert (code, out) == (0, "runid                 \tall\tlast\n")


# === Random pairs: every printed line ========================================

RANDOM = DATA / "random" / "pairs.json.gz"


@pytest.fixture(scope="module")
def random_pairs():
    with gzip.open(RANDOM, "rt", encoding="utf-8") as f:
        return json.load(f)


def _random_case_names():
    with gzip.open(RANDOM, "rt", encoding="utf-8") as f:
        return sorted(json.load(f)["cases"])


def _random_cases():
    """The pairs, every 7th in the quick run (`-m "not slow"`), all in the full one."""
    return [pytest.param(name, marks=[] if i % 7 == 0 else [pytest.mark.slow])
            for i, name in enumerate(_random_case_names())]


def _is_nan(value):
    return value.strip() in ("nan", "-nan")


@pytest.mark.parametrize("case", _random_cases())
def test_random_pair_prints_what_trec_eval_printed(random_pairs, case, tmp_path):
    # Each pair under each of the 14 option sets: the same lines, byte for
    # byte, except the differences docs/trec_eval.md documents that these
    # pairs reach: where trec_eval exits with an error its output is no
    # reference (none here), and where it prints nan or -nan (0/0: an
    # iprec_at_recall level of a query with nothing retrieved under -J, and
    # the summary of such a level) irmetrics prints a number, 0.0000 for
    # the query.
    data = random_pairs["cases"][case]
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text(data["qrels"], encoding="utf-8")
    run.write_text(data["run"], encoding="utf-8")
    compared = 0
    for options, expected in zip(random_pairs["optsets"], data["outputs"]):
        if expected["rc"] != 0:
            continue
        code, out, err = run_cli([*options, qrels, run])
        assert code == 0, (options, err)
        want, got = expected["stdout"].splitlines(), out.splitlines()
        assert len(got) == len(want), options
        for w, g in zip(want, got):
            w_name, w_qid, w_value = w.split("\t")
            if _is_nan(w_value):
                g_name, g_qid, g_value = g.split("\t")
                assert (g_name, g_qid) == (w_name, w_qid), options
                if w_qid != "all":
                    assert g_value == "0.0000", (options, w)
                else:
                    assert not math.isnan(float(g_value)), (options, w)
                continue
            assert g == w, options
            compared += 1
    assert compared > 1000


def test_random_pairs_cover_the_documented_cases(random_pairs):
    # The data is what the README beside it says: 35 pairs, 14 option sets,
    # trec_eval exiting 0 on each, and nan lines only under -J.
    assert len(random_pairs["cases"]) == 35
    assert len(random_pairs["optsets"]) == 14
    nan_optsets = set()
    for data in random_pairs["cases"].values():
        for options, expected in zip(random_pairs["optsets"], data["outputs"]):
            assert expected["rc"] == 0
            if any(_is_nan(line.split("\t")[2]) for line in expected["stdout"].splitlines()):
                nan_optsets.add(tuple(options))
    assert nan_optsets == {("-J", "-q", "-m", "official")}


# === trec_eval's command line: per-query arithmetic, parameters, flags ======


def _write(tmp_path, qrels, run):
    q, r = tmp_path / "qrels", tmp_path / "run"
    q.write_text(qrels)
    r.write_text(run)
    return q, r


def test_per_query_average_precision_prints_trec_evals_digits(tmp_path):
    # Issue 12: 8 relevant, ranked x(6) r1(5) .. r5(1): AP = (1/2 + 2/3 +
    # 3/4 + 4/5 + 5/6) / 8, exactly 0.44375; trec_eval adds left to right
    # in doubles (m_map.c), lands just above, and prints 0.4438.
    qrels = "".join(f"q1 0 r{i} 1\n" for i in range(1, 9))
    run = "q1 Q0 x 1 6 t\n" + "".join(f"q1 Q0 r{i} {i + 1} {6 - i} t\n" for i in range(1, 6))
    q, r = _write(tmp_path, qrels, run)
    code, out, err = run_cli(["-q", "-m", "map", q, r])
    assert (code, err) == (0, "")
    assert out == "map                   \tq1\t0.4438\nmap                   \tall\t0.4438\n"


def test_parameterised_measures_print_trec_evals_names(tmp_path):
    # The names trec_eval 9.0.8 prints: name_ and the parameters as written
    # (set_F, ndcg, G, ...), cutoffs sorted (P.10,5 prints P_5 then P_10).
    q, r = _write(tmp_path, "q1 0 a 2\nq1 0 b 0\nq1 0 c 1\n", "q1 Q0 a 1 2 t\nq1 Q0 b 2 1 t\n")
    code, out, err = run_cli(["-m", "set_F.0.5", "-m", "ndcg.1=1,2=3", "-m", "G.2=4",
                              "-m", "utility.1,-1,0,0", "-m", "P.10,5", q, r])
    assert (code, err) == (0, "")
    assert [line.split("\t")[0].rstrip() for line in out.splitlines()] == [
        "P_5", "P_10", "utility_1,-1,0,0", "G_2=4", "ndcg_1=1,2=3", "set_F_0.5"]


@pytest.mark.parametrize("arg", ["P.5,5", "map_cut.10,10", "Rprec_mult.0.5,0.50"])
def test_duplicate_cutoffs_are_an_error(tmp_path, arg):
    # meas_init.c stops on them ("duplicate cutoffs detected", exit 2)
    q, r = _write(tmp_path, "q1 0 a 1\n", "q1 Q0 a 1 1 t\n")
    code, out, err = run_cli(["-m", arg, q, r])
    assert code == 2
    assert out == ""
    assert "duplicate cutoffs" in err


def test_trec_evals_long_option_names(tmp_path):
    q, r = _write(tmp_path, "q1 0 a 2\nq1 0 b 0\nq2 0 c 1\n",
                  "q1 Q0 a 1 2 t\nq1 Q0 x 2 1 t\nq1 Q0 b 3 0 t\nq3 Q0 c 1 1 t\n")
    short = run_cli(["-q", "-c", "-l", "2", "-n", "-J", "-M", "2", "-m", "P.1,2", q, r])
    for long_names in (
        ["--query_eval_wanted", "--complete_rel_info_wanted", "--level_for_rel", "2",
         "--nosummary", "--Judged_docs_only", "--Max_retrieved_per_topic", "2",
         "--measure", "P.1,2"],
        ["--query_eval_wanted", "--complete_rel_info_wanted", "--level_for_rel=2",
         "--nosummary", "--judged_docs_only", "--max_retrieved_per_topic=2",
         "--measure=P.1,2"],
    ):
        assert run_cli([*long_names, q, r]) == short
    # -J -M 2 on q1: a(2) and x (unjudged) kept, then x dropped: P_1 = 1
    # (relevant at level 2), P_2 = 1/2
    assert short[1] == "P_1                   \tq1\t1.0000\nP_2                   \tq1\t0.5000\n"


def test_version_short_and_long(capsys):
    import irmetrics
    from irmetrics.cli import main

    for flag in ("-v", "--version"):
        with pytest.raises(SystemExit) as exc:
            main([flag])
        assert exc.value.code == 0
        assert capsys.readouterr().out.strip() == f"irmetrics {irmetrics.__version__}"


def test_max_retrieved_zero_evaluates_nothing_retrieved(tmp_path):
    # form_res_rels.c keeps min(num_results, max_num_docs_per_topic) = 0
    # documents of every query in the run: each is evaluated (num_q counts it)
    # with nothing retrieved.
    q, r = _write(tmp_path, "q1 0 a 1\nq1 0 b 0\nq2 0 c 1\n",
                  "q1 Q0 a 1 2 t\nq1 Q0 b 2 1 t\nq2 Q0 c 1 1 t\n")
    code, out, err = run_cli(["-M", "0", "-m", "num_q", "-m", "num_ret", "-m", "num_rel",
                              "-m", "map", "-m", "P.5", q, r])
    assert (code, err) == (0, "")
    assert [line.split("\t")[2] for line in out.splitlines()] == [
        "2", "0", "2", "0.0000", "0.0000"]
    assert evaluate(str(q), str(r), ["num_ret", "map"], depth=0).aggregate == {
        "num_ret": 0, "map": 0.0}


# === The documented differences (docs/trec_eval.md), from their reproducers ==
# Each shows trec_eval 9.0.8's output next to irmetrics'; here irmetrics'
# side is checked, with the reason it differs.


def test_documented_nan_with_nothing_to_rank(tmp_path):
    # trec_eval: iprec_at_recall_0.00 is 0/0 (-nan) for q1 and for all
    q, r = _write(tmp_path, "q1 0 a 1\nq1 0 b 0\n", "q1 Q0 x 1 1 r\n")
    code, out, _ = run_cli(["-J", "-q", "-m", "iprec_at_recall.0,0.5", q, r])
    assert code == 0
    assert out == ("iprec_at_recall_0.00  \tq1\t0.0000\niprec_at_recall_0.50  \tq1\t0.0000\n"
                   "iprec_at_recall_0.00  \tall\t0.0000\niprec_at_recall_0.50  \tall\t0.0000\n")


def test_documented_num_rel_under_complete_follows_the_level(tmp_path):
    # trec_eval prints num_rel all 3 (every judgment > 0); at level 2 q1 and
    # q2 have one relevant document each: 2.
    q, r = _write(tmp_path, "q1 0 a 1\nq1 0 b 2\nq2 0 c 2\n", "q1 Q0 a 1 1 r\n")
    assert run_cli(["-c", "-l", "2", "-m", "num_rel", q, r]) == (
        0, "num_rel               \tall\t2\n", "")


def test_documented_query_judged_only_with_minus_one(tmp_path):
    # trec_eval exits 4 (the query is the first evaluated); irmetrics: q1
    # has no relevant document (AP 0), q2 AP 1: mean 0.5.
    q, r = _write(tmp_path, "q1 0 a -1\nq2 0 b 1\n", "q1 Q0 a 1 1 r\nq2 Q0 b 1 1 r\n")
    assert run_cli(["-m", "map", q, r]) == (0, "map                   \tall\t0.5000\n", "")


def test_documented_repeated_measure_prints_both(tmp_path):
    # trec_eval prints only P_5 (the first parameter list of P); relevant at
    # ranks 1 and 3: P_5 = 2/5, P_10 = 2/10.
    q, r = _write(tmp_path, "q1 0 a 1\nq1 0 b 0\nq1 0 c 1\n",
                  "q1 Q0 a 1 3 r\nq1 Q0 b 2 2 r\nq1 Q0 c 3 1 r\n")
    assert run_cli(["-m", "P.5", "-m", "P.10", q, r]) == (
        0, "P_5                   \tall\t0.4000\nP_10                  \tall\t0.2000\n", "")


def test_documented_negative_depth_is_refused(tmp_path):
    # trec_eval 9.0.8 crashes (segmentation fault) on -M -1
    q, r = _write(tmp_path, "q1 0 a 1\n", "q1 Q0 a 1 1 r\n")
    code, out, err = run_cli(["-M", "-1", "-m", "map", q, r])
    assert code != 0 and out == "" and "-M" in err
