"""trec_eval 10.0 (issue 44): irmetrics prints what 10.0 prints, byte for byte, when asked to.

The switch these tests assume (the builder follows it; the issue's "What to build"):

- Command line: ``--trec-eval VERSION``, VERSION ``9.0.8`` (the default, as today) or ``10.0``;
  any other value is a usage error (exit 2) whose message lists the two. It selects the
  semantics and the output: ``lround`` cutoffs of ``iprec_at_recall``/``11pt_avg``, ``-c -q``
  rows for the queries missing from the run, ``rbp``/``rbp_resid``/``unj``/``dcg``/``ideal_dcg``
  (``all_trec`` gains ``rbp``, ``rbp_resid``, ``unj_5``, ``unj_10``, ``unj_20``), and, with the
  switch given, ``-h`` as that trec_eval prints it (test_trec_eval_rest.py).
- Python: ``evaluate(..., trec_eval="10.0")`` (``"9.0.8"`` the default), the same names.
- In 9.0.8 mode ``rbp``, ``rbp_resid``, ``unj``, ``dcg`` and ``ideal_dcg`` are unknown to trec_eval:
  irmetrics refuses them (exit 2) with a message that names ``--trec-eval 10.0``.
- Where trec_eval exits non-zero on bad input, irmetrics keeps its own convention (exit 2, one
  ``irmetrics: error:`` line, nothing on stdout) rather than trec_eval's 1, 2 or 4.

Expected outputs are the files of ``tests/data/trec_eval_more`` (and ``tests/data/trec_eval10``),
each written by a trec_eval build ("10.0" is the fixed 10.0 build of its README). Sections follow
the issue: 1 cutoffs, 2 ``-c -q``, 3 new measures, 4 comments and standard input, 5 defects of
10.0 not copied, then the random pairs. Documented differences (docs/trec_eval.md) are tested as
"irmetrics prints X instead", X again from a binary: the fixed build, or the same build on an
input without the defect's trigger.
"""

import gzip
import json
import math
import warnings
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies_runs import qrels_and_runs
from trec_eval_more import (
    MORE,
    REPRO,
    VERSIONS,
    Expected,
    assert_prints,
    only_the_tie_note,
    per_query_blocks,
    run_cli,
    run_like,
)

RANDOM10 = Path(__file__).parent / "data" / "trec_eval10" / "random" / "pairs.json.gz"
RANDOM908 = Path(__file__).parent / "data" / "trec_eval" / "random" / "pairs.json.gz"


def _same_in_both(folder, names):
    return [pytest.param(folder, v, n, id=f"{v}-{n}") for n in names for v in VERSIONS]


# === The switch ===============================================================


def test_default_is_9_0_8():
    # Without --trec-eval, 9.0.8's truncated cutoffs (iprec_at_recall_0.70 0.6667).
    e = Expected(REPRO, "9.0.8", "iprec")
    assert_prints(run_cli(e.args, REPRO), e.stdout)


@pytest.mark.parametrize("version", VERSIONS)
def test_switch_selects_the_version(version):
    e = Expected(REPRO, version, "iprec")
    assert_prints(run_like(e, version), e.stdout)


def test_switch_equals_form():
    e = Expected(REPRO, "10.0", "iprec")
    assert_prints(run_cli(["--trec-eval=10.0", *e.args], REPRO), e.stdout)


@pytest.mark.parametrize("bad", ["9", "10", "10.0-rc3", "8.1", ""])
def test_unknown_version_is_a_usage_error(bad):
    code, out, err = run_cli(["--trec-eval", bad, "-m", "map", "qrels.iprec", "run.iprec"], REPRO)
    assert (code, out) == (2, "")
    assert "--trec-eval" in err and "9.0.8" in err and "10.0" in err, err


# === 1. Cutoffs rounded (lround), not truncated ===============================
# iprec: qrels a, b relevant, x not; run a, x, b. 0.7 * 2 relevant: 9.0.8 (long)(1.4 + 0.9) = 2
# documents (0.6667), 10.0 lround(1.4) = 1 (1.0000); 11pt_avg 0.8485 / 0.9091.
# rprec_mult: Rprec_mult keeps its +0.9 in 10.0 (the same line in both).


@pytest.mark.parametrize("folder, version, name",
                         _same_in_both(REPRO, ["iprec", "iprec.default", "rprec_mult"]))
def test_cutoffs(folder, version, name):
    e = Expected(folder, version, name)
    assert_prints(run_like(e, version), e.stdout)


# NIST's test commands: official (4 lines differ between the versions), all_trec with and without
# -q, -l2 with relstring.20, every parameter form of its meas_params test; aq.rel_level is
# all_trec on graded labels (rbp's gains normalised by the top level).
@pytest.mark.parametrize("folder, version, name", _same_in_both(
    MORE, ["official", "a", "aq", "aql", "meas_params", "aq.rel_level"]))
def test_nist_commands(folder, version, name):
    e = Expected(folder, version, name)
    want = e.stdout
    if name == "aql":
        # Documented (docs/trec_eval.md, one measure asked for twice): all_trec's relstring and
        # relstring.20 both print; trec_eval prints only relstring_20. relstring's line is the
        # first 10 characters of relstring_20's, printed before it.
        want = "".join(_with_relstring(line) for line in want.splitlines(keepends=True))
    if name == "meas_params":
        # Documented (a cutoff must be an int): ndcg_cut.10,20,23.4 is refused; trec_eval reads
        # 23.4 as 23, so irmetrics given 23 prints trec_eval's lines.
        code, out, err = run_like(e, version)
        assert (code, out) == (2, "") and "'23.4'" in err, err
        e.args = [a.replace("23.4", "23") for a in e.args]
    assert_prints(run_like(e, version), want)


def _with_relstring(line):
    if not line.startswith("relstring_20 "):
        return line
    _, qid, value = line.rstrip("\n").split("\t")
    return f"{'relstring':<22}\t{qid}\t{value[:11]}'\n" + line


# === 2. -c -q prints the queries missing from the run ==========================
# aqc/aqcM: results.trunc lacks 302; missing.c: q2 judged, not in the run.


@pytest.mark.parametrize("folder, version, name", [
    *_same_in_both(MORE, ["aqc", "aqcM"]),
    *_same_in_both(REPRO, ["missing.c", "missing"]),
    pytest.param(REPRO, "10.0", "missing.c.rbp", id="10.0-missing.c.rbp"),
])
def test_complete_prints_missing_queries_in_10(folder, version, name):
    e = Expected(folder, version, name)
    assert_prints(run_like(e, version), e.stdout)


def test_complete_changes_no_all_line():
    # The data behind the rule: with -c the `all` blocks of the two versions are the same, and
    # 10.0's extra rows are q2's: num_rel 1 (its judgment), every other value 0.
    old = per_query_blocks(Expected(REPRO, "9.0.8", "missing.c").stdout)
    new = per_query_blocks(Expected(REPRO, "10.0", "missing.c").stdout)
    assert old["all"] == new["all"]
    assert "q2" not in old
    assert "num_rel               \tq2\t1" in new["q2"]
    assert all(line.split("\t")[2] in {"0", "0.0000"} for line in new["q2"]
               if not line.startswith("num_rel "))
    rbp = per_query_blocks(Expected(REPRO, "10.0", "missing.c.rbp").stdout)
    assert "relstring             \tq2\t''" in rbp["q2"]


# === 3. New measures ===========================================================
# qrels.graded: q1 labels 0-3 with an unjudged and an unretrieved relevant document, q2 0/1,
# q3 only 2, q4 a -1 label, q5 only in the run.

NEW_MEASURE_COMMANDS = ["rbp.default", "rbp.p", "rbp.gains", "rbp_resid.p", "unj", "rbp.l2",
                        "dcg", "dcg.gains.dcg_only", "ideal_dcg.gains.only", "ndcg.graded"]


@pytest.mark.parametrize("name", [n for n in NEW_MEASURE_COMMANDS if n != "ideal_dcg.gains.only"]
                         + ["ideal_dcg.gains.doubled"])
def test_new_measures_in_10(name):
    e = Expected(REPRO, "10.0", name)
    assert_prints(run_like(e, "10.0"), e.stdout)


def _halves(out, doubled):
    """Lines of *out* (gains 1=0.5,2=1,3=4) whose values are half of *doubled*'s (gains
    1=1,2=2,3=8: the same sums times 2, exactly), to the printed precision."""
    got, want = out.splitlines(), doubled.splitlines()
    assert [g.split("\t")[1] for g in got] == [w.split("\t")[1] for w in want]
    return all(abs(2 * float(g.split("\t")[2]) - float(w.split("\t")[2])) <= 1e-4
               for g, w in zip(got, want))


def test_ideal_dcg_with_fractional_gains():
    # Documented (docs/trec_eval.md, fractional gains): trec_eval 10.0 sorts gains 0.5, 0 and 1
    # as equal (their differences truncated to int), so its ideal ranking stops at level 0's
    # gain 0 before level 1's 0.5 (q1 7.0237, q2 0). irmetrics sorts by the real gain: half of
    # 10.0's ideal_dcg with the doubled gains, which that sort gets right.
    e = Expected(REPRO, "10.0", "ideal_dcg.gains.only")
    code, out, err = run_like(e, "10.0")
    assert code == 0, err
    assert out.splitlines()[1] != e.stdout.splitlines()[1]  # q2: 10.0 prints 0.0000
    doubled = Expected(REPRO, "10.0", "ideal_dcg.gains.doubled").stdout
    assert _halves(out, doubled)


@pytest.mark.parametrize("name", NEW_MEASURE_COMMANDS)
def test_new_measures_refused_in_9_0_8(name):
    # 9.0.8 exits 1, "trec_eval: illegal measure 'rbp'"; irmetrics exits 2 and says how to get it.
    e = Expected(REPRO, "9.0.8", name)
    if e.status == 0:  # ndcg.graded: 9.0.8 has ndcg
        assert_prints(run_like(e, "9.0.8"), e.stdout)
        return
    assert "illegal measure" in e.stderr
    for argv in (["--trec-eval", "9.0.8", *e.args], e.args):
        code, out, err = run_cli(argv, REPRO)
        assert (code, out) == (2, ""), err
        assert "--trec-eval 10.0" in err, err


@pytest.mark.parametrize("measure", ["rbp", "rbp_resid", "unj", "dcg", "ideal_dcg", "rbp.p=0.8",
                                     "unj.3,7,50", "rbp_resid.p=0.8", "unj_5"])
def test_each_new_name_refused_in_9_0_8_names_the_switch(measure):
    code, out, err = run_cli(["-m", measure, "qrels.graded", "run.graded"], REPRO)
    assert (code, out) == (2, ""), err
    assert "--trec-eval 10.0" in err, err


def test_evaluate_takes_the_version():
    # evaluate(trec_eval="10.0") gives the values the 10.0 command line prints (%6.4f of them).
    from irmetrics import Qrels, Run, evaluate

    e = Expected(REPRO, "10.0", "rbp.default")
    printed = {}
    for line in e.stdout.splitlines():
        name, qid, value = line.split("\t")
        printed[(name.strip(), qid)] = value
    names = list(dict.fromkeys(n for n, _ in printed))
    assert names == ["rbp", "rbp_resid", "unj_5", "unj_10", "unj_20"]
    result = evaluate(Qrels.from_trec(REPRO / "qrels.graded"), Run.from_trec(REPRO / "run.graded"),
                      names, trec_eval="10.0")
    for (name, qid), value in printed.items():
        got = result.aggregate[name] if qid == "all" else result.per_query[qid][name]
        assert f"{got:6.4f}" == value, (name, qid)
    iprec = evaluate(Qrels.from_trec(REPRO / "qrels.iprec"), Run.from_trec(REPRO / "run.iprec"),
                     ["iprec_at_recall_0.70"], trec_eval="10.0")
    want = Expected(REPRO, "10.0", "iprec").stdout.splitlines()[0].split("\t")[2]
    assert f"{iprec.aggregate['iprec_at_recall_0.70']:6.4f}" == want


def test_evaluate_refuses_new_names_in_9_0_8():
    from irmetrics import Qrels, Run, evaluate

    with pytest.raises(ValueError, match="10.0"):
        evaluate(Qrels.from_trec(REPRO / "qrels.graded"), Run.from_trec(REPRO / "run.graded"),
                 ["rbp"], trec_eval="9.0.8")


# === 4. Comment lines and standard input =======================================
# irmetrics reads comments and `-` in both modes (9.0.8 refuses both: exit 2). Where a build
# refuses or crashes, what irmetrics prints is that build's output on the same input without
# the comment lines (`*.stripped`, made with grep -v; reproducers/README).


@pytest.mark.parametrize("version", VERSIONS)
def test_nist_qrels_with_comments(version):
    e = Expected(MORE, version, "official.with-comments")
    want = Expected(MORE, version, "official").stdout
    assert e.status == (2 if version == "9.0.8" else 0)
    assert_prints(run_like(e, version), want)


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("name, stripped", [
    ("comments", "comments.stripped"),             # `#` lines, `#` in a docno, text after col 6
    ("comments2", "comments.stripped.c"),          # 10.0 reads the 2nd of two `#` lines as query #
    ("comments_last", "comments.stripped"),        # 10.0 segfaults (exit 139)
    ("comments_indented", "comments.stripped"),    # both builds: Malformed line 2
])
def test_comment_lines(version, name, stripped):
    e = Expected(REPRO, version, name)
    assert_prints(run_like(e, version), Expected(REPRO, version, stripped).stdout)


def test_comment_defects_are_in_the_data():
    assert Expected(REPRO, "10.0", "comments").status == 0
    assert "\t#\t" in Expected(REPRO, "10.0", "comments2").stdout
    assert Expected(REPRO, "10.0", "comments_last").status == 139
    assert "Malformed line 2" in Expected(REPRO, "10.0", "comments_indented").stderr


@pytest.mark.parametrize("version", VERSIONS)
def test_hash_query_is_a_comment_in_both_modes(version):
    # 9.0.8 evaluates query `#q` (num_q 2); 10.0 and irmetrics skip the lines (num_q 1).
    e = Expected(REPRO, version, "hashq")
    assert ("\t#q\t" in e.stdout) == (version == "9.0.8")
    assert_prints(run_like(e, version), Expected(REPRO, version, "hashq.stripped").stdout)


@pytest.mark.parametrize("version", VERSIONS)
def test_blank_qrels_line_is_read_in_both_modes(version):
    # Both builds: "Malformed line 2", exit 2. irmetrics reads qrels.blank as qrels.iprec.
    e = Expected(REPRO, version, "blank")
    assert e.status == 2
    assert_prints(run_like(e, version), Expected(REPRO, version, "iprec").stdout)


@pytest.mark.slow
@pytest.mark.parametrize("version", VERSIONS)
def test_nist_run_on_standard_input(version):
    # `python -m irmetrics QRELS - < results.test`; 9.0.8 cannot read '-' (exit 2), irmetrics
    # prints in 9.0.8 mode what 9.0.8 prints for the file.
    e = Expected(MORE, version, "official.stdin")
    assert e.status == (2 if version == "9.0.8" else 0)
    assert_prints(run_like(e, version), Expected(MORE, version, "official").stdout)


@pytest.mark.slow
def test_small_run_on_standard_input():
    e = Expected(REPRO, "10.0", "stdin")
    assert_prints(run_like(e, "10.0"), e.stdout)


# === 5. Defects of 10.0 not copied ============================================


def test_defect_exit_4_on_a_query_missing_from_the_run():
    # 10.0 as released: q1's rows, then "result qid 'q2' not found in qrels", exit 4 (its -h
    # says such queries are ignored). irmetrics skips q2, as the fixed build and 9.0.8 do.
    release = Expected(REPRO, "10.0-release", "missing")
    assert release.status == 4 and "'q2' not found" in release.stderr
    assert "\tall\t" not in release.stdout
    e = Expected(REPRO, "10.0", "missing")
    assert e.status == 0
    assert_prints(run_like(e, "10.0"), e.stdout)
    assert "are also ignored by default" in Expected(MORE, "10.0", "help").stdout


def test_defect_nan_under_complete_and_judged_only():
    # 10.0 -c -J: q2 (missing from the run) gets -nan for iprec_at_recall_0.00 and 11pt_avg, and
    # so do their `all` lines. run.missing holds only judged documents, so -J removes nothing:
    # irmetrics prints what 10.0 prints without -J (missing.c.iprec).
    e = Expected(REPRO, "10.0", "missing.cJ")
    nan = [line for line in e.stdout.splitlines() if line.endswith("-nan")]
    assert [tuple(line.split("\t")[:2]) for line in nan] == [
        ("iprec_at_recall_0.00  ", "q2"), ("11pt_avg              ", "q2"),
        ("iprec_at_recall_0.00  ", "all"), ("11pt_avg              ", "all")]
    assert_prints(run_like(e, "10.0"), Expected(REPRO, "10.0", "missing.c.iprec").stdout)
    # 9.0.8 prints numbers there, and irmetrics with it
    e908 = Expected(REPRO, "9.0.8", "missing.cJ")
    assert "nan" not in e908.stdout
    assert_prints(run_like(e908, "9.0.8"), e908.stdout)


def test_defect_rbp_reads_uninitialised_min_max():
    # m_rbp.c reads min/max before setting them; built with -O2 the release prints other rbp
    # values on graded qrels (only rbp lines differ). irmetrics prints the fixed build's.
    fixed = Expected(MORE, "10.0", "aq.rel_level")
    o2 = Expected(MORE, "10.0-release-O2", "aq.rel_level")
    differing = [a for a, b in zip(o2.stdout.splitlines(), fixed.stdout.splitlines()) if a != b]
    assert differing and all(line.startswith("rbp ") for line in differing)
    assert_prints(run_like(fixed, "10.0"), fixed.stdout)


def test_defect_two_gain_lists_crash():
    # Found while building the reproducers (not in the issue): 10.0 aborts (double free, exit
    # 134) when dcg and ideal_dcg both get gain parameters. irmetrics prints both measures: per
    # query, the dcg line of the dcg-only command then the ideal_dcg line of the other.
    # (ideal_dcg's values: those of test_ideal_dcg_with_fractional_gains)
    e = Expected(REPRO, "10.0", "dcg.gains")
    assert (e.status, e.stdout) == (134, "")
    code, out, err = run_like(e, "10.0")
    assert code == 0, err
    got = per_query_blocks(out)
    dcg = per_query_blocks(Expected(REPRO, "10.0", "dcg.gains.dcg_only").stdout)
    assert [got[q][0] for q in got] == [dcg[q][0] for q in dcg]
    ideal = "".join(got[q][1] + "\n" for q in got)
    assert _halves(ideal, Expected(REPRO, "10.0", "ideal_dcg.gains.doubled").stdout)


# === Random pairs: every printed line ==========================================


def _pairs(path):
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return json.load(f)


@pytest.fixture(scope="module")
def pairs10():
    return _pairs(RANDOM10)


def _cases(path, every):
    with gzip.open(path, "rt", encoding="utf-8") as f:
        names = sorted(json.load(f)["cases"])
    return [pytest.param(name, marks=[] if i % every == 0 else [pytest.mark.slow])
            for i, name in enumerate(names)]


def _is_nan(value):
    return value.strip() in ("nan", "-nan")


def _compare_pair(data, optsets, version, tmp_path):
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text(data["qrels"], encoding="utf-8")
    run.write_text(data["run"], encoding="utf-8")
    # documented (docs/trec_eval.md, a query judged only with -1): trec_eval reads the levels
    # of the query before such a query; ideal_dcg prints that query's ideal DCG, irmetrics 0
    only_negative = {}
    for line in data["qrels"].splitlines():
        qid, _, _, label = line.split()
        only_negative[qid] = only_negative.get(qid, True) and int(label) < 0
    compared = 0
    for options, expected in zip(optsets, data["outputs"]):
        assert expected["rc"] == 0
        code, out, err = run_cli(["--trec-eval", version, *options, qrels, run], tmp_path)
        assert code == 0, (options, err)
        want, got = expected["stdout"].splitlines(), out.splitlines()
        assert len(got) == len(want), options
        stale = set()  # the measures of such lines: their `all` lines differ too
        for w, g in zip(want, got):
            w_name, w_qid, w_value = w.split("\t")
            if w != g and w_name.strip() == "ideal_dcg" and only_negative.get(w_qid):
                assert g == f"{w_name}\t{w_qid}\t0.0000", (options, w)
                stale.add(w_name)
                continue
            if w != g and w_qid == "all" and w_name in stale:
                assert g.split("\t")[:2] == [w_name, "all"], options
                continue
            if _is_nan(w_value):
                # documented: 0/0 under -J; irmetrics prints 0.0000 for the query, a number for all
                g_name, g_qid, g_value = g.split("\t")
                assert (g_name, g_qid) == (w_name, w_qid), options
                if w_qid != "all":
                    assert g_value == "0.0000", (options, w)
                else:
                    assert not math.isnan(float(g_value)), (options, w)
                continue
            assert g == w, options
            compared += 1
    return compared


@pytest.mark.parametrize("case", _cases(RANDOM10, 7))
def test_random_pair_prints_what_trec_eval_10_printed(pairs10, case, tmp_path):
    assert _compare_pair(pairs10["cases"][case], pairs10["optsets"], "10.0", tmp_path) > 1000


@pytest.fixture(scope="module")
def pairs908():
    return _pairs(RANDOM908)


@pytest.mark.parametrize("case", _cases(RANDOM908, 35))
def test_random_pair_with_explicit_9_0_8(pairs908, case, tmp_path):
    # The 9.0.8 pairs (tests/test_conformance.py runs them without the switch) with it.
    assert _compare_pair(pairs908["cases"][case], pairs908["optsets"], "9.0.8", tmp_path) > 1000


def test_random_pairs_10_are_what_the_readme_says(pairs10):
    assert len(pairs10["cases"]) == 35
    assert len(pairs10["optsets"]) == 18
    assert pairs10["optsets"][:14] == _pairs(RANDOM908)["optsets"]
    assert pairs10["optsets"][14:] == [
        ["-q", "-m", "rbp", "-m", "rbp_resid", "-m", "unj"],
        ["-q", "-m", "rbp.p=0.8", "-m", "rbp_resid.p=0.8", "-m", "unj.3,7,50"],
        ["-q", "-m", "iprec_at_recall", "-m", "11pt_avg"],
        ["-q", "-m", "dcg", "-m", "ideal_dcg"],
    ]
    nan_optsets = set()
    for data in pairs10["cases"].values():
        for options, expected in zip(pairs10["optsets"], data["outputs"]):
            assert expected["rc"] == 0
            if any(_is_nan(line.split("\t")[2]) for line in expected["stdout"].splitlines()):
                nan_optsets.add(tuple(options))
    assert nan_optsets == {("-J", "-q", "-m", "official")}


def test_only_the_tie_note_is_strict():
    # the helper the tests above rely on accepts the note and nothing else
    assert only_the_tie_note("")
    assert not only_the_tie_note("irmetrics: error: x\n")


# === The list functions give evaluate()'s bits =================================


@settings(max_examples=150)
@given(data=qrels_and_runs(), p=st.sampled_from((0.5, 0.8, 0.9, 0.95)), k=st.integers(1, 30))
def test_list_functions_equal_evaluate_in_10(data, p, k):
    from irmetrics import evaluate, rbp, rbp_residual, unjudged_at_k
    from irmetrics.trec import trec_ranking

    qrels, run = data
    names = ["rbp", f"rbp_p={p}", "rbp_resid", f"rbp_resid_p={p}", f"unj_{k}"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = evaluate(qrels, run, names, trec_eval="10.0")
    for qid, got in result.per_query.items():
        judged = qrels[qid]
        ranked = trec_ranking(run[qid])
        # a negative label (pooled, not judged) is unjudged: None for the list functions
        labels = [None if judged.get(d, -1) < 0 else judged[d] for d in ranked]
        top = max([x for x in judged.values() if x >= 0] + [1])
        assert got["rbp"] == rbp(labels, p=0.9, max_label=top), qid
        assert got[f"rbp_p={p}"] == rbp(labels, p=p, max_label=top), qid
        unjudged = None in labels  # else trec_eval 10.0 leaves rbp_resid at 0
        assert got["rbp_resid"] == (rbp_residual(labels, p=0.9) if unjudged else 0.0), qid
        assert got[f"rbp_resid_p={p}"] == (rbp_residual(labels, p=p) if unjudged else 0.0)
        assert got[f"unj_{k}"] == unjudged_at_k(labels, k), qid


# === The version reaches everything that evaluates =============================


def test_explain_tie_report_and_compare_take_the_version():
    from irmetrics import compare, evaluate, explain, tie_report

    qrels, run = REPRO / "qrels.iprec", REPRO / "run.iprec"
    # iprec_at_recall_0.70: 9.0.8 0.6667, 10.0 1.0 (test_cutoffs)
    e = explain(qrels, run, "q1", "iprec_at_recall_0.70", trec_eval="10.0")
    assert e.value == 1.0
    assert any("lround(0.70 * 2), 1) = 1 " in step for step in e.steps), e.steps
    assert "trec_eval 10.0" in str(e).splitlines()[0]
    assert explain(qrels, run, "q1", "iprec_at_recall_0.70").value == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match="--trec-eval 10.0"):
        explain(qrels, run, "q1", "rbp")
    # a and x tied: in 10.0 one relevant document reaches recall 0.7, so the order of the
    # tie moves the value (a first: 1, x first: 1/2 then 2/3); in 9.0.8 both are needed (2/3)
    tied = {"q1": {"a": 1.0, "x": 1.0, "b": 0.5}}
    report = tie_report(qrels, tied, "iprec_at_recall_0.70", trec_eval="10.0")
    assert [(r.query, r.worst, r.best) for r in report.rows] == [("q1", 2 / 3, 1.0)]
    assert tie_report(qrels, tied, "iprec_at_recall_0.70").rows == []
    graded, runs = REPRO / "qrels.graded", {"a": REPRO / "run.graded", "b": tied}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c = compare(graded, runs, ["rbp", "unj_5"], trec_eval="10.0", complete=True)
        want = evaluate(graded, REPRO / "run.graded", ["rbp", "unj_5"], trec_eval="10.0",
                        complete=True).per_query
    assert c.per_query["a"] == want
    with pytest.raises(ValueError, match="--trec-eval 10.0"):
        compare(graded, runs, ["rbp"], complete=True)


@pytest.mark.parametrize("command", ["explain", "ties", "compare"])
def test_every_command_takes_the_switch(command, tmp_path):
    other = tmp_path / "other.run"
    other.write_text("q1 Q0 a 1 1 r\nq1 Q0 x 2 1 r\nq1 Q0 b 3 0.5 r\n", encoding="ascii")
    argv = {"explain": ["explain", "-m", "iprec_at_recall_0.70", "qrels.iprec", "run.iprec", "q1"],
            "ties": ["ties", "-m", "iprec_at_recall_0.70", "qrels.iprec", other],
            "compare": ["compare", "-c", "-m", "rbp", "qrels.graded", "run.graded", other]}[command]
    code, out, err = run_cli([*argv, "--trec-eval", "10.0"], REPRO)
    assert code == 0, err
    if command == "explain":
        assert out.splitlines()[-1] == "iprec_at_recall_0.70 = 1.0000"
    if command == "ties":  # (test_explain_tie_report_and_compare_take_the_version)
        assert out.startswith("iprec_at_recall_0.70: 1 of 1 query depends"), out
        assert run_cli(argv, REPRO)[1].startswith("iprec_at_recall_0.70: 0 of 1 "), out
    if command == "compare":  # rbp is 10.0's: refused without the switch
        code, out, err = run_cli(argv, REPRO)
        assert code == 2 and "--trec-eval 10.0" in err, err
