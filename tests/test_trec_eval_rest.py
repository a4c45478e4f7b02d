"""The rest of trec_eval (issue 44), in both versions: yaap, prefs_*, qrels_jg, set, -Z, -N, -D,
-o, -R qrels, -T trec_results, -h.

Same switch and data as test_trec_eval10.py (see its docstring): ``--trec-eval VERSION`` and
the files of ``tests/data/trec_eval_more``, each written by a trec_eval build. With the switch
given, ``-h`` (with ``-m``, ``-R``, ``-T``) prints that version's help text byte for byte on
stdout, exit 0; without it ``-h`` stays irmetrics' own help. ``-D N`` is accepted; ``-D L.QID``
evaluates QID alone as trec_eval does; debug levels above 0 print nothing extra (trec_eval
prints nothing extra either for the measures of ``official``).
"""

import re

import pytest
from trec_eval_more import MORE, VERSIONS, Expected, assert_prints, run_cli, run_like

from irmetrics import Qrels, evaluate
from irmetrics.errors import InvalidArgumentError


def _both(names):
    return [pytest.param(v, n, id=f"{v}-{n}") for n in names for v in VERSIONS]


# prefs: -R prefs on NIST's prefs.test; qrels_prefs: the prefs measures from ordinary qrels;
# qrels_jg: three judge groups (map_avgjg, P_avgjg, Rprec_mult_avgjg); set; yaap; -Z with both
# z-score files (a missing mean prints -1000000-style values, a 0 deviation `   nan`); -N
# (changes only utility with a non-zero 4th parameter); -o (ignored); -D 0.302 (302 alone);
# -D 1 (nothing extra for official); -R qrels -T trec_results (the defaults).
REST = ["prefs", "prefs.prefs", "qrels_prefs", "qrels_prefs.prefs", "qrels_jg", "set", "yaap",
        "aqZ.z10", "aqZ.z908", "N10.map", "N10.utility", "utility", "o.map", "D302",
        "D1.official", "RT.official"]


@pytest.mark.parametrize("version, name", _both(REST))
def test_prints_what_trec_eval_printed(version, name):
    e = Expected(MORE, version, name)
    assert e.status == 0
    assert_prints(run_like(e, version), e.stdout)


def test_rest_is_the_same_in_both_versions():
    # The data: everything above but official and all_trec (rbp, unj, lround) is version-free.
    for name in REST:
        if not name.startswith(("aqZ", "D", "RT")):
            assert Expected(MORE, "9.0.8", name).stdout == Expected(MORE, "10.0", name).stdout, name


def test_data_shows_what_the_options_do():
    assert Expected(MORE, "10.0", "N10.map").stdout.splitlines() == [
        line for line in Expected(MORE, "10.0", "aq").stdout.splitlines()
        if line.startswith("map ")]
    o = Expected(MORE, "10.0", "o.map").stdout
    assert o == "".join(line + "\n" for line in Expected(MORE, "10.0", "aq").stdout.splitlines()
                        if line.startswith("map ") and "\tall\t" in line)
    assert Expected(MORE, "10.0", "N10.utility").stdout != Expected(MORE, "10.0", "utility").stdout
    assert Expected(MORE, "9.0.8", "D1.official").stdout.count("\tall\t") == 30
    assert "   nan" in Expected(MORE, "10.0", "aqZ.z908").stdout
    assert "-1000000" in Expected(MORE, "10.0", "aqZ.z908").stdout


# Comment lines in prefs and qrels_jg files: 10.0 reads them, 9.0.8 stops (exit 2); irmetrics
# reads them in both modes and prints what each version prints for the files without them.
@pytest.mark.parametrize("version, name, plain", [
    pytest.param(v, n, p, id=f"{v}-{n}") for n, p in
    [("prefs.comment", "prefs"), ("qrels_jg.comments", "qrels_jg")] for v in VERSIONS])
def test_comments_in_prefs_and_jg(version, name, plain):
    e = Expected(MORE, version, name)
    assert e.status == (2 if version == "9.0.8" else 0)
    assert_prints(run_like(e, version), Expected(MORE, version, plain).stdout)


# === -h ===========================================================================

HELP = ["help", "help.m_all_trec", "help.R_prefs", "help.prefs_full", "help.R_qrels_jg",
        "help.R_qrels_prefs", "help.every_measure"]


@pytest.mark.parametrize("version, name", [*_both(HELP),
                                           pytest.param("10.0", "help.new_measures",
                                                        id="10.0-help.new_measures")])
def test_help_as_trec_eval_prints_it(version, name):
    e = Expected(MORE, version, name)
    assert e.status == 0
    code, out, err = run_like(e, version)
    assert (code, err) == (0, "")
    assert out.splitlines() == e.stdout.splitlines()
    assert out == e.stdout


@pytest.mark.parametrize("version", VERSIONS)
def test_help_with_an_unknown_measure(version):
    # trec_eval: "trec_eval: illegal measure 'all'", exit 1, no help. irmetrics: exit 2.
    e = Expected(MORE, version, "help.m_all")
    assert (e.status, e.stdout) == (1, "") and "'all'" in e.stderr
    code, out, err = run_like(e, version)
    assert (code, out) == (2, "")
    assert "'all'" in err


def test_help_new_measures_in_9_0_8_names_the_switch():
    e = Expected(MORE, "9.0.8", "help.new_measures")
    assert e.status == 1
    code, out, err = run_like(e, "9.0.8")
    assert (code, out) == (2, "")
    assert "--trec-eval 10.0" in err


@pytest.mark.parametrize("version", VERSIONS)
def test_usage_and_version(version):
    # One file argument: trec_eval prints its usage on stderr, exit 1; irmetrics exit 2.
    e = Expected(MORE, version, "usage")
    assert (e.status, e.stdout) == (1, "")
    code, out, _ = run_like(e, version)
    assert (code, out) == (2, "")


# === Every measure, group and -R format of the help text is accepted ===============

# Explanations that lack their final newline glue the next measure's name to their last line
# (trec_eval's text, kept byte for byte): these names follow such a line.
GLUED = {"set_map", "ideal_dcg", "rbp"}


def help_measures(version):
    names = []
    for name in ("help.every_measure", "help.new_measures"):
        e = Expected(MORE, version, name)
        if e.status:
            continue
        text = e.stdout.split("Individual measure documentation for requested measures\n")[1]
        names += re.findall(r"(?m)^([A-Za-z0-9_]+)$", text)
        names += [g for g in GLUED if re.search(rf"(?m)\S{g}$", text)]
    return sorted(set(names))


def test_help_lists_every_measure():
    # te_trec_measures of each version: 52 in 9.0.8; 10.0 adds dcg, ideal_dcg, rbp, rbp_resid, unj
    old, new = help_measures("9.0.8"), help_measures("10.0")
    assert len(old) == 52
    assert sorted(set(new) - set(old)) == ["dcg", "ideal_dcg", "rbp", "rbp_resid", "unj"]
    assert set(old) <= set(new)


def _where(measure):
    """(-R format, qrels, run, stored output that has this measure's -q lines) for a measure."""
    if measure.startswith("prefs_"):
        return ["-R", "prefs"], "prefs.test", "prefs.results.test", "prefs"
    if measure.endswith("_avgjg"):
        return ["-R", "qrels_jg"], "qrels.123", "results.test", "qrels_jg"
    if measure == "yaap":
        return [], "qrels.test", "results.test", "yaap"
    if measure == "set_map":
        return [], "qrels.test", "results.test", "set"
    return [], "qrels.test", "results.test", "aq"


@pytest.mark.parametrize("version, measure", [
    pytest.param(v, m, id=f"{v}-{m}") for v in VERSIONS for m in help_measures(v)
    if m not in ("dcg", "ideal_dcg")])
def test_every_measure_of_the_help_is_accepted(version, measure):
    # `-q -m NAME`: every line printed is a line the stored output of that version has.
    fmt, qrels, run, stored = _where(measure)
    code, out, err = run_cli(["--trec-eval", version, "-q", *fmt, "-m", measure, qrels, run], MORE)
    assert code == 0, err
    assert out
    lines = set(Expected(MORE, version, stored).stdout.splitlines())
    assert [line for line in out.splitlines() if line not in lines] == []


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("group, stored", [("official", "official"), ("all_trec", "a"),
                                           ("set", "set"), ("prefs", "prefs.prefs"),
                                           ("all_prefs", "prefs"), ("qrels_jg", "qrels_jg")])
def test_every_group(version, group, stored):
    e = Expected(MORE, version, stored)
    assert_prints(run_like(e, version), e.stdout)


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("fmt", ["qrels", "prefs", "qrels_prefs", "qrels_jg"])
def test_every_rel_format_is_accepted(version, fmt):
    # the help names qrels, prefs and qrels_prefs; qrels_jg is in formats.c (NIST's test uses it)
    if fmt != "qrels_jg":
        assert f"'{fmt}'" in Expected(MORE, version, "help").stdout
    files = {"qrels": ("qrels.test", "results.test", ["-m", "map"]),
             "prefs": ("prefs.test", "prefs.results.test", ["-m", "prefs_simp"]),
             "qrels_prefs": ("qrels.test", "results.test", ["-m", "prefs_simp"]),
             "qrels_jg": ("qrels.123", "results.test", ["-m", "map_avgjg"])}[fmt]
    qrels, run, measure = files
    code, out, err = run_cli(["--trec-eval", version, "-R", fmt, "-T", "trec_results",
                              *measure, qrels, run], MORE)
    assert code == 0, err
    assert out.count("\tall\t") == 1


# === More cases (tests/data/trec_eval_more/rest) ====================================

MORE_REST = MORE / "rest"
SMALL = ["small", "small.M2", "prefs.M20", "qrels_prefs.rel_level", "qrels_jg.J",
         "qrels_jg.params", "yaap.l2", "Z.small", "qrels_jg.c"]


@pytest.mark.parametrize("version, name", _both(SMALL))
def test_more_cases_print_what_trec_eval_printed(version, name):
    e = Expected(MORE_REST, version, name)
    assert e.status == 0
    assert_prints(run_like(e, version), e.stdout)


@pytest.mark.parametrize("version, name", [
    ("9.0.8", "small.c"), ("9.0.8", "N.utility.c"), ("10.0", "small.c")])
def test_a_query_missing_from_the_run_under_c(version, name):
    # 9.0.8 adds nothing for it (num_q and num_rel count it), whose empty ranking is
    # not 0 for these: small.c: prefs_num_prefs_poss (q3's x > y possible), N.utility.c:
    # utility (302's R - R + (100 - R) = 100); irmetrics in 9.0.8 mode does the same.
    # 10.0 evaluates it, as irmetrics does in 10.0 mode.
    e = Expected(MORE_REST, version, name)
    code, out, _ = run_like(e, version)
    assert code == 0
    assert out == e.stdout


def test_10_0_placeholder_ranking_under_c_is_a_documented_difference():
    # docs/trec_eval.md: 10.0 scores 302 (missing from the run) against a one-document
    # placeholder whose document counts as retrieved for utility: 98, not 100; the
    # all line moves with it ((-758 + 98 - 56) / 3 = -238.6667).
    e = Expected(MORE_REST, "10.0", "N.utility.c")
    code, out, _ = run_like(e, "10.0")
    assert code == 0
    differ = [(a, b) for a, b in zip(out.splitlines(), e.stdout.splitlines()) if a != b]
    assert differ == [
        ("utility_1,-1,1,1      \t302\t100.0000", "utility_1,-1,1,1      \t302\t98.0000"),
        ("utility_1,-1,1,1      \tall\t-238.0000", "utility_1,-1,1,1      \tall\t-238.6667")]


def test_inconsistent_preferences_are_an_error():
    # trec_eval: "doc 'i' has both 0 and non-0 rel_level assigned", exit 4
    qrels = Qrels.from_prefs({"q": [("u", "s1", "i", 0.0), ("u", "s1", "c", 1.0),
                                    ("u", "s2", "i", 2.0), ("u", "s2", "a", 1.0)]})
    with pytest.raises(InvalidArgumentError, match="query 'q', judgment group 'u': a document "
                                                   "has both level 0 and another"):
        evaluate(qrels, {"q": {"a": 1.0}}, "prefs_simp")


# === Every option of the help text is accepted ======================================

# An argument for each option that takes one (trec_eval's help writes -M's long name with
# one dash, "-Max_retrieved_per_topic"; its getopt table has "--Max_retrieved_per_topic").
_OPTION_VALUES = {"m": "map", "l": "1", "D": "0", "N": "10", "M": "100", "R": "qrels",
                  "T": "trec_results", "Z": "zscores_file.9.0.8"}


def help_options(version):
    """(short, long) option names of trec_eval's help text, in its order."""
    text = Expected(MORE, version, "help").stdout
    pairs = re.findall(r"(?m)^ -?(-[A-Za-z_]+)\b.*:\n -([A-Za-z])\b", text)
    return [(short, long.lstrip("-")) for long, short in pairs]


@pytest.mark.parametrize("version", VERSIONS)
def test_every_option_of_the_help_is_accepted(version):
    options = help_options(version)
    assert [s for s, _ in options] == list("hvqmclnDNMJRTZ")
    for short, long in options:
        value = _OPTION_VALUES.get(short)
        for form in ([f"-{short}"], [f"--{long}"]):
            argv = [*form, value] if value else form
            if short in "hv":  # help and version (argparse's, printed on sys.stdout), no files
                code, out, err = run_cli(["--trec-eval", version, *argv], MORE)
                assert code == 0 and (out.startswith("trec_eval [-h]") or short == "v"), form
                continue
            code, out, err = run_cli(["--trec-eval", version, *argv, "-m", "map", "qrels.test",
                                      "results.test"], MORE)
            assert code == 0, (form, err)
            assert out.count("\tall\t") == (0 if short == "n" else 1), form
    # -o, trec_eval's obsolete option, is not in its help; accepted too
    assert run_cli(["-o", "-m", "map", "qrels.test", "results.test"], MORE)[0] == 0
