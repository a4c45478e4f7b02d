"""The registry: contracts every family meets, names, aliases and errors."""

import math
import re

import pytest

import irmetrics
from irmetrics import measures as M
from irmetrics.errors import InvalidArgumentError, UnknownMeasureError
from irmetrics.measures import (
    FAMILIES,
    TREC_GROUPS,
    Env,
    QueryData,
    expand_trec_argument,
    parse_measure,
    trec_measure_names,
)


def example_params(fam):
    """Parameters to try for a family: none, its first default, or a cutoff."""
    if fam.param == "none":
        return [None]
    if fam.param == "optional-cutoff":
        return [None, 10]
    return [fam.defaults[0] if fam.defaults else 10]


def example_measures():
    out = []
    for fam in FAMILIES:
        implicit = M._IMPLICIT_OPTIONS.get(fam.key, ())
        for param in example_params(fam):
            out.append(M.Measure(fam, param, implicit))
    return out


EXAMPLES = example_measures()
IDS = [m.name for m in EXAMPLES]


# === Contracts over every family ============================================


def test_every_family_has_an_example():
    assert {m.family.key for m in EXAMPLES} == {f.key for f in FAMILIES}


def test_family_keys_are_unique():
    keys = [f.key for f in FAMILIES]
    assert len(keys) == len(set(keys))


@pytest.mark.parametrize("measure", EXAMPLES, ids=IDS)
def test_display_name_round_trips(measure):
    parsed = parse_measure(measure.name)
    assert parsed == measure
    assert parsed.family is measure.family
    assert parsed.name == measure.name


@pytest.mark.parametrize("measure", EXAMPLES, ids=IDS)
def test_is_trec_matches_registry(measure):
    # trec_eval's measures print under trec_eval's name: key or key_param
    if measure.family.trec:
        assert measure.is_trec
        assert measure.name.startswith(measure.family.key)
    else:
        assert not measure.is_trec


NUMERIC = [m for m in EXAMPLES if not m.family.text]


@pytest.mark.parametrize("measure", NUMERIC, ids=[m.name for m in NUMERIC])
@pytest.mark.parametrize(
    "levels", [{}, {0: 3}, {1: 2, 0: 1}, {2: 1, 1: 1}], ids=["no-judgments", "no-rel",
                                                            "binary", "graded"]
)
def test_empty_ranking_gives_a_finite_number(measure, levels):
    env = Env(relevance_level=1, max_label=max(levels, default=0), run_name="r")
    value = measure.compute(QueryData([], dict(levels)), env)
    assert isinstance(value, (int, float)) and not isinstance(value, bool)
    assert math.isfinite(value)


@pytest.mark.parametrize("measure", NUMERIC, ids=[m.name for m in NUMERIC])
def test_value_on_a_small_ranking_is_finite_and_not_negative(measure):
    # a(2) x(unjudged) b(0) c(-1: pooled, unjudged) d(1); judged: 2, 1, 0, 0
    q = QueryData([2, None, 0, -1, 1], {2: 1, 1: 1, 0: 2})
    value = measure.compute(q, Env(relevance_level=1, max_label=2, run_name="r"))
    assert math.isfinite(value)
    # utility = rel - nonrel retrieved may be < 0, and so may yaap = log(...)
    if measure.family.key not in ("utility", "yaap"):
        assert value >= 0


SPARSE_CASES = [
    (5, [(0, 2), (2, 0), (3, -1), (4, 1)], {2: 1, 1: 1, 0: 2}),
    (12, [(3, 1), (11, 3)], {3: 1, 1: 2}),
    (4, [], {1: 1}),
    (0, [], {}),
    (30, [(0, 1), (1, 1), (9, 2), (10, 0), (29, 1)], {2: 1, 1: 4, 0: 1}),
]


@pytest.mark.parametrize("measure", NUMERIC, ids=[m.name for m in NUMERIC])
@pytest.mark.parametrize("n, placed, levels", SPARSE_CASES)
def test_sparse_query_data_gives_what_the_labels_give(measure, n, placed, levels):
    # QueryData.sparse (the file route) against the same labels written out
    labels = [None] * n
    for i, x in placed:
        labels[i] = x
    env = Env(relevance_level=1, max_label=3, run_name="r")
    dense = measure.compute(QueryData(labels, dict(levels)), env)
    sparse = QueryData.sparse(n, list(placed), dict(levels))
    assert measure.compute(sparse, env) == dense
    assert sparse.labels == labels and sparse.n == n


# (measure name, level it reads or None for the evaluation's, the list-level
# function that computes it from the labels, independently of QueryData)
ROW_CASES = [
    ("P@5", None, lambda labels, rel, r: irmetrics.precision_at_k(labels, 5, rel=rel)),
    ("P(rel=2)@5", 2, lambda labels, rel, r: irmetrics.precision_at_k(labels, 5, rel=rel)),
    ("R@10", None, lambda labels, rel, r: irmetrics.recall_at_k(labels, 10, n_relevant=r, rel=rel)),
    ("R(rel=2)@10", 2,
     lambda labels, rel, r: irmetrics.recall_at_k(labels, 10, n_relevant=r, rel=rel)),
    ("AP", None, lambda labels, rel, r: irmetrics.average_precision(labels, n_relevant=r, rel=rel)),
    ("AP(rel=2)", 2,
     lambda labels, rel, r: irmetrics.average_precision(labels, n_relevant=r, rel=rel)),
    ("RR", None, lambda labels, rel, r: irmetrics.reciprocal_rank(labels, rel=rel)),
    ("RR(rel=3)", 3, lambda labels, rel, r: irmetrics.reciprocal_rank(labels, rel=rel)),
]


@pytest.mark.parametrize("level", [1, 2])
@pytest.mark.parametrize("n, placed, levels", SPARSE_CASES)
def test_a_row_gives_each_measure_at_its_own_level(n, placed, levels, level):
    # Every value of a scorer's row, at the evaluation's level or the
    # measure's own, as the list-level function gives it from the labels
    # written out.
    measures = [parse_measure(name) for name, _, _ in ROW_CASES]
    env = Env(relevance_level=level, max_label=3, run_name="r")
    row = M.prepared_row(measures, env)(QueryData.sparse(n, list(placed), dict(levels)))
    labels = [0] * n  # unjudged (None) and pooled-unjudged (-1) are not relevant
    for i, x in placed:
        labels[i] = max(x, 0)
    for (name, own, reference), value in zip(ROW_CASES, row):
        rel = level if own is None else own
        relevant = sum(c for lvl, c in levels.items() if lvl >= rel)
        if relevant == 0 and name.startswith(("R", "AP")) and not name.startswith("RR"):
            expected = 0.0  # trec_eval's recall and AP of a query without relevant documents
        else:
            expected = reference(labels, rel, relevant)
        assert value == expected, (name, level)


# nDCG from a sparse query's placed documents is what the list-level
# function gives from the labels written out.
NDCG_CASES = ["nDCG@10", "nDCG", "nDCG@3"]


@pytest.mark.parametrize("level", [1, 2])
@pytest.mark.parametrize("n, placed, levels", SPARSE_CASES)
def test_ndcg_of_sparse_data_equals_the_list_function(n, placed, levels, level):
    measures = [parse_measure(name) for name in NDCG_CASES]
    env = Env(relevance_level=level, max_label=3, run_name="r")
    row = M.prepared_row(measures, env)(QueryData.sparse(n, list(placed), dict(levels)))
    labels = [0] * n  # unjudged and pooled-unjudged gain nothing
    for i, x in placed:
        labels[i] = max(x, 0)
    ideal = [lvl for lvl, c in levels.items() for _ in range(c)]  # every judged label
    for name, value in zip(NDCG_CASES, row):
        k = int(name[5:]) if "@" in name else None
        assert value == irmetrics.ndcg(labels, k, ideal=ideal), name


@pytest.mark.parametrize("key", trec_measure_names("10.0"))
def test_every_trec_name_parses(key):
    expanded = expand_trec_argument(key)
    assert expanded
    for m in expanded:
        assert m.family.key == key
        assert m.is_trec
        assert parse_measure(m.name) == m
    fam = expanded[0].family
    if fam.param == "none":
        assert parse_measure(key).name == key
    else:
        # trec_eval's default parameters, in its printed form
        assert [m.param for m in expanded] == list(fam.defaults)


def test_trec_measure_names_in_trec_eval_order():
    names = trec_measure_names()
    # the order of trec_eval 9.0.8's all_trec output (tests/data/trec_eval)
    assert names[:12] == ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map",
                          "gm_map", "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P"]
    assert "ERR" not in names and "RBP" not in names and "Judged" not in names


# === Names ===================================================================


@pytest.mark.parametrize(
    "name, key",
    [
        ("AP", "map"), ("AP@100", "map_cut"), ("nDCG", "ndcg"), ("nDCG@10", "ndcg_cut"),
        ("RR", "recip_rank"), ("RR@10", "RR_cut"), ("P@5", "P"), ("R@10", "recall"),
        ("Success@5", "success"), ("ERR", "ERR"), ("ERR@20", "ERR"), ("RBP", "RBP"),
        ("RBP(p=0.5)", "RBP"), ("Judged@10", "Judged"), ("Judged", "Judged"),
        ("NumRet", "num_ret"), ("NumRel", "num_rel"), ("NumRelRet", "num_rel_ret"),
        ("NumQ", "num_q"), ("Rprec", "Rprec"), ("bpref", "bpref"), ("Bpref", "bpref"),
        ("infAP", "infAP"), ("SetP", "set_P"), ("SetR", "set_recall"), ("SetF", "set_F"),
        ("IPrec@0.5", "iprec_at_recall"), ("GMAP", "gm_map"),
    ],
)
def test_ir_aliases_parse(name, key):
    assert parse_measure(name).family.key == key


@pytest.mark.parametrize(
    "a, b",
    [
        ("P_5", "P@5"), ("map_cut_100", "AP@100"), ("ndcg_cut_10", "nDCG@10"),
        ("iprec_at_recall_0.1", "IPrec@0.1"), ("iprec_at_recall_0.10", "IPrec@0.1"),
        ("recall_1000", "R@1000"), ("success_1", "Success@1"), ("map", "AP"),
        ("recip_rank", "RR"), ("set_P", "SetP"), ("num_ret", "NumRet"),
        ("RBP", "RBP(p=0.8)"), ("ndcg", "nDCG(gain=linear)"), ("ndcg_cut_5", "nDCG(discount=log2)@5"),
        ("set_F", "SetF(beta=1)"), (" P_5 ", "P@5"),
    ],
)
def test_equivalent_spellings_are_equal(a, b):
    assert parse_measure(a) == parse_measure(b)
    assert parse_measure(a).name == parse_measure(b).name


@pytest.mark.parametrize(
    "a, b", [("P_5", "P_10"), ("P@5", "P(rel=2)@5"), ("nDCG@10", "nDCG(gain=exp)@10"),
             ("map", "map_cut_1000"), ("RBP", "RBP(p=0.5)"), ("RR", "RR@10")],
)
def test_different_measures_are_different(a, b):
    assert parse_measure(a) != parse_measure(b)
    assert parse_measure(a).name != parse_measure(b).name


def test_canonical_names():
    assert parse_measure("nDCG@10").name == "ndcg_cut_10"
    assert parse_measure("IPrec@0.1").name == "iprec_at_recall_0.10"
    assert parse_measure("P(rel=2)@5").name == "P(rel=2)@5"
    assert parse_measure("RBP").name == "RBP(p=0.8)"
    assert parse_measure("Rprec_mult_0.2").name == "Rprec_mult_0.20"


@pytest.mark.parametrize(
    "name",
    ["nDCG(gain=1=0.5,2=3)", "nDCG(gain=1=3,2=0.5)@10", "nDCG(gain=exp,discount=jk)@5",
     "SetF(beta=0.3333333333)", "RBP(p=0.123456789)"],
)
def test_names_with_options_round_trip(name):
    # The name of a parsed measure must parse back to the same measure (it is
    # what the command line prints and what evaluate() results can be fed with).
    m = parse_measure(name)
    assert parse_measure(m.name) == m


@pytest.mark.parametrize("arg", ["set_F.0.5", "ndcg.1=0.5,2=3"])
def test_expanded_trec_parameters_round_trip(arg):
    for m in expand_trec_argument(arg):
        assert parse_measure(m.name) == m


# === Errors ==================================================================


@pytest.mark.parametrize(
    "name, suggestion",
    [("mpa", "map"), ("nDGC@10", "nDCG"), ("ndgc_cut_10", "ndcg_cut"), ("recal_10", "recall"),
     ("ndcg_cutt_10", "ndcg_cut"), ("Ndcg@10", "ndcg"), ("bperf", "bpref")],
)
def test_unknown_names_suggest(name, suggestion):
    with pytest.raises(UnknownMeasureError) as info:
        parse_measure(name)
    assert suggestion in info.value.suggestions
    assert info.value.name == name
    assert str(info.value).startswith(f"unknown measure {name!r}; did you mean ")


def test_unknown_name_without_close_match():
    with pytest.raises(UnknownMeasureError) as info:
        parse_measure("zzzzzz")
    assert info.value.suggestions == ()
    assert str(info.value) == "unknown measure 'zzzzzz'"


@pytest.mark.parametrize(
    "name, fragment",
    [
        ("P@0", "cutoff must be a positive int (got '0')"),
        ("P_0", "cutoff must be a positive int (got '0')"),
        ("P@x", "cutoff must be a positive int (got 'x')"),
        ("P@5.5", "cutoff must be a positive int (got '5.5')"),
        ("P@-1", "cutoff must be a positive int (got '-1')"),
        ("Judged@0", "cutoff must be a positive int"),
        ("iprec_at_recall_1.5", "recall level must be in [0, 1] (got '1.5')"),
        ("IPrec@-0.1", "recall level must be in [0, 1]"),
        ("Rprec_mult_0", "multiple of R must be a positive number"),
        ("RBP(p=2)", "'p' must be a number in (0, 1) (got '2')"),
        ("RBP(p=x)", "'p' must be a number in (0, 1) (got 'x')"),
        ("P(rel=0)@5", "'rel' must be a positive int (got '0')"),
        ("AP(rel=x)", "'rel' must be a positive int (got 'x')"),
        ("P(foo=1)@5", "unknown option 'foo=1' (options of P: rel)"),
        ("nDCG(rel=2)@5", "unknown option 'rel=2'"),
        ("nDCG(gain=cubic)@5", "'gain' must be linear, exp or level=gain pairs"),
        ("nDCG(discount=ln)@5", "'discount' must be log2 or jk"),
        ("ERR(max_label=0)", "'max_label' must be a positive int"),
        ("SetF(beta=0)", "'beta' must be a positive number"),
        ("P(rel=2,rel=3)@5", "option 'rel' given twice"),
        ("P", "needs a parameter, e.g. 'P_5'"),
        ("IPrec", "needs a cutoff"),
        ("map@5", "map takes no cutoff"),
        ("", "must not be empty"),
    ],
)
def test_bad_parameters_raise_invalid_argument(name, fragment):
    with pytest.raises(InvalidArgumentError) as info:
        parse_measure(name)
    assert fragment in str(info.value)
    assert not isinstance(info.value, UnknownMeasureError)


@pytest.mark.parametrize(
    "name", ["RBP(p=2)", "P(rel=0)@5", "AP(rel=x)", "nDCG(gain=cubic)@5", "SetF(beta=0)",
             "P@0", "P(foo=1)@5"],
)
def test_parameter_errors_name_the_measure(name):
    # STYLE: messages name the argument, the value and the place; with several
    # -m options the place is the measure the user wrote.
    with pytest.raises(InvalidArgumentError) as info:
        parse_measure(name)
    assert repr(name) in str(info.value)


def test_non_str_name():
    with pytest.raises(InvalidArgumentError, match="must be a str"):
        parse_measure(5)  # type: ignore[arg-type]


def test_parse_measures_needs_one():
    with pytest.raises(InvalidArgumentError, match="at least one"):
        M.parse_measures([])
    assert [m.name for m in M.parse_measures("P@5")] == ["P_5"]


def test_errors_are_value_errors():
    assert issubclass(UnknownMeasureError, ValueError)
    assert issubclass(InvalidArgumentError, ValueError)


# === expand_trec_argument ===================================================


def test_expand_official():
    names = [m.name for m in expand_trec_argument("official")]
    # trec_eval 9.0.8 without -m (tests/data/trec_eval/expected.official.txt)
    assert names == [
        "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
        "bpref", "recip_rank",
        *[f"iprec_at_recall_{i / 10:.2f}" for i in range(11)],
        *[f"P_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)],
    ]


def test_expand_all_trec():
    expanded = expand_trec_argument("all_trec")
    # every trec_eval 9.0.8 measure but those of its groups prefs, all_prefs and qrels_jg,
    # and yaap
    outside = {k for g in ("all_prefs", "qrels_jg") for k in TREC_GROUPS[g][2:]} | {"yaap"}
    assert len(outside) == 18
    old = set(trec_measure_names()) - outside
    assert {m.family.key for m in expanded} == old
    assert all(m.is_trec for m in expanded)
    assert len({m.name for m in expanded}) == len(expanded)
    # trec_eval 10.0's all_trec (its measures.c) adds rbp, rbp_resid and unj, not dcg, ideal_dcg
    new = expand_trec_argument("all_trec", "10.0")
    assert {m.family.key for m in new} - old == {"rbp", "rbp_resid", "unj"}
    assert set(trec_measure_names("10.0")) - set(trec_measure_names()) == {
        "rbp", "rbp_resid", "unj", "dcg", "ideal_dcg"}
    assert [m.name for m in new if m.family.since == "10.0"] == [
        "rbp", "rbp_resid", "unj_5", "unj_10", "unj_20"]


def test_expand_with_parameters():
    assert [m.name for m in expand_trec_argument("P.5,10")] == ["P_5", "P_10"]
    assert [m.name for m in expand_trec_argument("iprec_at_recall.0.5")] == [
        "iprec_at_recall_0.50"]
    assert [m.name for m in expand_trec_argument("ndcg_cut")] == [
        f"ndcg_cut_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)]
    assert [m.name for m in expand_trec_argument("success")] == [
        "success_1", "success_5", "success_10"]
    assert [m.name for m in expand_trec_argument("map")] == ["map"]


def test_expand_set_f_parameter_is_beta_squared():
    # trec_eval set_F.x weighs (x + 1) P R / (x P + R): x = beta**2 of the usual
    # F-beta, so x=4 is F(beta=2); ir_measures' SetF(beta=4) hands 4 to trec_eval as x
    # (stored as the weight x itself, so that the arithmetic is trec_eval's)
    (m,) = expand_trec_argument("set_F.4")
    assert m.option("weight") == 4.0
    assert m == parse_measure("F(beta=2)") == parse_measure("SetF(beta=4)")
    assert m == parse_measure("set_F_4") == parse_measure("SetF(weight=4)")
    assert m.name == "set_F_4"


# ir_measures' own test (test_pytrec_eval.py::test_SetF): query 0 retrieves
# D0 D2 D1 D3 D4, relevant D1 D2 D3 (R = 3): P = 3/5, R = 1 (issue 42)
SETF_QRELS = {"0": {"D0": 0, "D1": 1, "D2": 1, "D3": 2, "D4": 0}}
SETF_RUN = {"0": {"D0": 0.8, "D2": 0.7, "D1": 0.3, "D3": 0.4, "D4": 0.1}}


def test_setf_beta_is_ir_measures_trec_eval_weight():
    got = irmetrics.evaluate(SETF_QRELS, SETF_RUN, ["SetF(beta=0.5)", "SetF(beta=2)", "SetF"])
    # ir_measures: SetF(beta=b) is trec_eval's (b + 1) P R / (b P + R):
    # b = 0.5: 1.5 * 0.6 / (0.5 * 0.6 + 1) = 0.9 / 1.3 = 0.6923 (ir_measures' expected value)
    assert got["SetF(beta=0.5)"] == pytest.approx(0.9 / 1.3, abs=1e-15)
    assert round(got["SetF(beta=0.5)"], 4) == 0.6923
    # b = 2: 3 * 0.6 / (2 * 0.6 + 1) = 1.8 / 2.2
    assert got["SetF(beta=2)"] == pytest.approx(1.8 / 2.2, abs=1e-15)
    # b = 1: 2 * 0.6 / 1.6 = 0.75
    assert got["SetF"] == pytest.approx(0.75, abs=1e-15)


def test_f_beta_is_the_usual_f_beta():
    got = irmetrics.evaluate(SETF_QRELS, SETF_RUN, ["F(beta=0.5)", "F(beta=2)", "F"])
    # (1 + beta**2) P R / (beta**2 P + R), P = 0.6, R = 1:
    # beta = 0.5: 1.25 * 0.6 / (0.25 * 0.6 + 1) = 0.75 / 1.15
    assert got["F(beta=0.5)"] == pytest.approx(0.75 / 1.15, abs=1e-15)
    # beta = 2: 5 * 0.6 / (4 * 0.6 + 1) = 3 / 3.4; F (beta = 1) is set_F: 0.75
    assert got["F(beta=2)"] == pytest.approx(3 / 3.4, abs=1e-15)
    assert got["F"] == pytest.approx(0.75, abs=1e-15)
    # the list function's beta is the usual one
    assert irmetrics.f_measure([0, 1, 0, 1, 0], n_relevant=3, beta=0.5) == pytest.approx(
        (1.25 * 0.4 * (2 / 3)) / (0.25 * 0.4 + 2 / 3), abs=1e-15)


@pytest.mark.parametrize("name, message", [
    ("F@5", "F takes no cutoff"),
    ("F(weight=2)", "options of F: beta, rel"),
    ("F(beta=0)", "'beta' must be a positive number"),
    ("F(beta=1,beta=2)", "given twice"),
    ("SetF(beta=2,weight=2)", "not both"),
])
def test_f_beta_refusals(name, message):
    with pytest.raises(InvalidArgumentError, match=re.escape(message)):
        parse_measure(name)


def test_setf_agrees_with_ir_measures():
    ir_measures = pytest.importorskip("ir_measures")
    qrels = [ir_measures.Qrel(q, d, v) for q, docs in SETF_QRELS.items() for d, v in docs.items()]
    run = [ir_measures.ScoredDoc(q, d, s) for q, docs in SETF_RUN.items() for d, s in docs.items()]
    for beta in (0.5, 2.0, 3.0):
        (want,) = [r.value for r in ir_measures.iter_calc([ir_measures.SetF(beta=beta)],
                                                          qrels, run)]
        got = irmetrics.evaluate(SETF_QRELS, SETF_RUN, f"SetF(beta={beta})")
        assert got[f"SetF(beta={beta})"] == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize(
    "arg, error",
    [("bogus", UnknownMeasureError), ("P.0", InvalidArgumentError),
     ("ndcg_cut.1=2", InvalidArgumentError),  # ndcg_cut's parameters are cutoffs
     ("map.5", InvalidArgumentError), ("P.x", InvalidArgumentError)],
)
def test_expand_errors(arg, error):
    with pytest.raises(error):
        expand_trec_argument(arg)


def test_trec_dotted_forms_and_ir_measures_spellings():
    # pytrec_eval users write trec_eval's -m form; ir_measures writes
    # NumRelRet as NumRet(rel=1).
    assert parse_measure("ndcg_cut.10") == parse_measure("ndcg_cut_10")
    assert parse_measure("P.5") == parse_measure("P@5")
    assert parse_measure("NumRet(rel=2)").family.key == "num_rel_ret"
    with pytest.raises(InvalidArgumentError, match=r"names 2 measures"):
        parse_measure("P.5,10")
    with pytest.raises(UnknownMeasureError):
        parse_measure("P_avgj")


# === The measures argument (issue 18, finding 10) ============================


@pytest.mark.parametrize(
    "given, message",
    [
        (None, r"^'measures' must be a measure name or an iterable of measure names, "
               r"e\.g\. \['map', 'nDCG@10'\] \(got NoneType None\)$"),
        (5, r"^'measures' must be a measure name .* \(got int 5\)$"),
        (b"map", r"^'measures' must be a measure name .* \(got bytes b'map'\)$"),
        ([], r"^'measures' must name at least one measure \(got none\)$"),
        (iter(()), r"^'measures' must name at least one measure \(got none\)$"),
        (["map", 5], r"^'measures' must hold measure names \(str\); measures\[1\] is int 5$"),
        (["map", None], r"measures\[1\] is NoneType None$"),
    ],
)
def test_a_bad_measures_argument_names_measures(given, message):
    from irmetrics import compare, evaluate

    qrels = {"q1": {"d1": 1}, "q2": {"d1": 1}}
    run = {"q1": {"d1": 1.0}, "q2": {"d1": 1.0}}
    # evaluate(q, r, None) used to raise TypeError: 'NoneType' object is not iterable.
    with pytest.raises(InvalidArgumentError, match=message):
        evaluate(qrels, run, given)
    with pytest.raises(InvalidArgumentError, match=message):
        compare(qrels, {"a": run, "b": run}, given)
    with pytest.raises(InvalidArgumentError, match=message):
        M.parse_measures(given)


def test_measures_may_be_any_iterable_of_names():
    assert M.measure_names("map") == ["map"]
    assert M.measure_names(("map", "P@5")) == ["map", "P@5"]
    assert M.measure_names(n for n in ["map"]) == ["map"]


# === Exact values for an empty ranking (issue 18, test gaps) ================


@pytest.mark.parametrize("measure", NUMERIC, ids=[m.name for m in NUMERIC])
@pytest.mark.parametrize(
    "levels", [{}, {0: 3}, {1: 2, 0: 1}, {2: 1, 1: 1}], ids=["no-judgments", "no-rel",
                                                            "binary", "graded"]
)
def test_empty_ranking_exact_value(measure, levels):
    # Nothing retrieved: every measure is 0, except the counts of the query
    # itself: num_q is 1 and num_rel the judged relevant (level >= 1).
    env = Env(relevance_level=1, max_label=max(levels, default=0), run_name="r")
    value = measure.compute(QueryData([], dict(levels)), env)
    # yaap: log((1 + 0) / (1 + R - 0)); prefs_num_prefs_poss: the preferences
    # between judged documents of different levels, none retrieved
    big_r = sum(c for lvl, c in levels.items() if lvl >= 1)
    expected = {"num_q": 1, "num_rel": big_r, "yaap": math.log(1 / (1 + big_r)),
                "prefs_num_prefs_poss": sum(levels[a] * levels[b] for a in levels for b in levels
                                            if a > b)}
    # ideal_dcg is the DCG of the qrels' ideal ranking, ranked or not: graded 2 + 1/log2(3),
    # binary 1 + 1/log2(3)
    ideal = sorted((lvl for lvl, c in levels.items() for _ in range(c) if lvl > 0), reverse=True)
    expected["ideal_dcg"] = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    assert value == expected.get(measure.family.key, 0.0)


# === nDCG's gain and discount options with an unretrieved relevant document ==


def test_ndcg_options_take_the_ideal_from_the_qrels():
    from irmetrics import evaluate

    log2 = math.log2
    # d4 (label 3, the best) is judged but not retrieved: the ideal ranking is
    # the qrels' 3, 2, 1, 0, never the run's 2, 1, 0.  Ranked: d1(2) d3(0) d2(1).
    qrels = {"q1": {"d1": 2, "d2": 1, "d3": 0, "d4": 3}}
    run = {"q1": {"d1": 3.0, "d3": 2.0, "d2": 1.0}}
    expected = {
        # exp gains 3, 0, 1: DCG = 3 + 1/log2(4); ideal 7, 3, 1: 7 + 3/log2(3) + 1/2
        "nDCG(gain=exp)": 3.5 / (7 + 3 / log2(3) + 0.5),
        "nDCG(gain=exp)@2": 3 / (7 + 3 / log2(3)),
        # jk (base 2) discounts 1, 1, 1/log2(3): DCG = 2 + 1/log2(3); ideal 3 + 2 + 1/log2(3)
        "nDCG(discount=jk)": (2 + 1 / log2(3)) / (5 + 1 / log2(3)),
        "nDCG(discount=jk)@2": 2 / 5,
        # gains 1 -> 0.5, 2 -> 3, 3 -> 10: DCG = 3 + 0.5/2; ideal 10 + 3/log2(3) + 0.5/2
        "nDCG(gain=1=0.5,2=3,3=10)": 3.25 / (10 + 3 / log2(3) + 0.25),
        "nDCG(gain=1=0.5,2=3,3=10)@2": 3 / (10 + 3 / log2(3)),
        # trec_eval's form; level 3 unlisted keeps its own gain 3:
        # DCG = 3 + 0.5/2; ideal 3 + 3/log2(3) + 0.5/2
        "ndcg.1=0.5,2=3": 3.25 / (3 + 3 / log2(3) + 0.25),
    }
    got = evaluate(qrels, run, list(expected)).aggregate
    for name, value in expected.items():
        assert got[name] == pytest.approx(value, rel=1e-14), name
    # The ideal built from the run (2, 1, 0) would give, for gain=exp,
    # 3.5 / (3 + 1/log2(3)): far from the value above.
    assert got["nDCG(gain=exp)"] < 0.4 < 3.5 / (3 + 1 / log2(3))


def test_ndcg_with_an_unretrieved_relevant_document_matches_pytrec_eval():
    from oracles import require

    from irmetrics import evaluate

    pytrec_eval = require("pytrec_eval")
    qrels = {"q1": {"d1": 2, "d2": 1, "d3": 0, "d4": 3}, "q2": {"a": 1, "b": 4, "c": 0}}
    run = {"q1": {"d1": 3.0, "d3": 2.0, "d2": 1.0}, "q2": {"c": 2.0, "a": 1.0, "x": 0.5}}
    oracle = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg", "ndcg_cut.2"}).evaluate(run)
    got = evaluate(qrels, run, ["ndcg", "ndcg_cut_2"]).per_query
    for qid in qrels:
        assert got[qid]["ndcg"] == pytest.approx(oracle[qid]["ndcg"], rel=1e-12)
        assert got[qid]["ndcg_cut_2"] == pytest.approx(oracle[qid]["ndcg_cut_2"], rel=1e-12)


# === trec_eval's parameters and the names it prints ==========================
# meas_init.c: cutoffs (P, recall, map_cut, ndcg_cut, ...) are sorted, must be
# positive and distinct, and print as name_%ld; recall levels and multiples
# print as name_%3.2f; the other parameters (te_init_meas_s_double_p_double
# and _p_pair) print as name_ followed by the text after the dot.


@pytest.mark.parametrize(
    "arg, printed, canonical",
    [
        ("set_F.0.5", ["set_F_0.5"], ["set_F_0.5"]),
        ("set_F.0.50", ["set_F_0.50"], ["set_F_0.5"]),
        ("set_F.1", ["set_F_1"], ["set_F"]),  # the default weight: one measure
        ("ndcg.1=1,2=3", ["ndcg_1=1,2=3"], ["ndcg_1=1,2=3"]),
        ("ndcg.2=3,1=1", ["ndcg_2=3,1=1"], ["ndcg_1=1,2=3"]),
        ("G.1=2", ["G_1=2"], ["G_1=2"]),
        ("Rndcg.2=0.5", ["Rndcg_2=0.5"], ["Rndcg_2=0.5"]),
        ("ndcg_rel.0=1", ["ndcg_rel_0=1"], ["ndcg_rel_0=1"]),
        ("utility.2,-1,0,0", ["utility_2,-1,0,0"], ["utility_2,-1,0,0"]),
        ("11pt_avg.0.2,0.5,0.8", ["11pt_avg_0.2,0.5,0.8"], ["11pt_avg_0.2,0.5,0.8"]),
        ("relstring.20", ["relstring_20"], ["relstring_20"]),
        ("P.10,5", ["P_5", "P_10"], ["P_5", "P_10"]),
        ("iprec_at_recall.0.333,0.1", ["iprec_at_recall_0.10", "iprec_at_recall_0.33"],
         ["iprec_at_recall_0.10", "iprec_at_recall_0.33"]),
        ("Rprec_mult.1.5", ["Rprec_mult_1.50"], ["Rprec_mult_1.50"]),
    ],
)
def test_trec_printed_names(arg, printed, canonical):
    pairs = M.expand_trec_argument_named(arg)
    assert [name for name, _ in pairs] == printed
    assert [m.name for _, m in pairs] == canonical
    # the printed names read back as measures of the canonical names (the
    # same measures, but for a recall level printed with fewer decimals)
    assert [parse_measure(name).name for name in printed] == canonical


@pytest.mark.parametrize(
    "arg, fragment",
    [
        ("P.5,5", "duplicate cutoffs"),
        ("ndcg_cut.10,5,10", "duplicate cutoffs"),
        ("iprec_at_recall.0.5,0.50", "duplicate cutoffs"),
        ("P.0", "positive"),
        ("P.5,", "positive"),
        ("P.", "no parameter"),
        ("utility.1,-1", "4 finite numbers"),
        ("set_F.0.5,2", "one finite number"),
        ("set_F.-1", "one finite number"),
        ("ndcg.1=2,1=3", "level 1 twice"),
        ("ndcg.-1=2", "levels >= 0"),
        ("G.1", "level=gain"),
        ("11pt_avg.1.5", "[0, 1]"),
        ("binG.2", "takes no parameters"),
    ],
)
def test_trec_parameter_errors(arg, fragment):
    with pytest.raises(InvalidArgumentError, match=re.escape(fragment)):
        M.expand_trec_argument_named(arg)


def _query(labels, levels):
    return QueryData(labels, levels)


def test_gain_maps_of_g_rndcg_ndcg_rel_are_relabelled_qrels():
    # trec_eval's gain map 1=3,2=9 gives level 1 gain 3 and level 2 gain 9
    # (setup_gains in m_G.c, m_Rndcg.c, m_ndcg_rel.c): the same numbers as the
    # default gains of qrels whose labels were 3 and 9.
    env = Env()
    mapped = _query([2, None, 1, 0, 2, -1, 1], {0: 3, 1: 2, 2: 3})
    relabelled = _query([9, None, 3, 0, 9, -1, 3], {0: 3, 3: 2, 9: 3})
    for family in ("G", "Rndcg", "ndcg_rel", "ndcg"):
        m = parse_measure(f"{family}_1=3,2=9")
        plain = parse_measure(family)
        assert m.compute(mapped, env) == plain.compute(relabelled, env), family
        assert m.compute(mapped, env) != plain.compute(mapped, env), family


def test_gain_map_negative_and_zero_gains():
    # m_ndcg.c: a gain may be 0 or negative; a negative gain lowers the DCG,
    # the ideal keeps only positive gains.  Labels [2, 1], levels {1: 1, 2: 1}
    # with 1=-1: DCG = 2/log2(2) + (-1)/log2(3); ideal = 2/log2(2) = 2.
    env = Env()
    q = _query([2, 1], {1: 1, 2: 1})
    m = parse_measure("ndcg_1=-1")
    assert m.compute(q, env) == (2 / math.log2(2) + -1 / math.log2(3)) / (2 / math.log2(2))


def test_utility_coefficients():
    # m_utility.c: p1 a + p2 b + p3 c + p4 d, trec_eval's d without -N being
    # a - retrieved - R.  Ranking rel, non, unjudged, rel; R = 3:
    # a = 2, b = 2, c = 1, d = 2 - 4 - 3 = -5.
    env = Env()
    q = _query([1, 0, None, 1], {0: 2, 1: 3})
    m = parse_measure("utility_2,-0.5,-1,0.25")
    assert m.compute(q, env) == 2.0 * 2 + -0.5 * 2 + -1.0 * 1 + 0.25 * -5
    default = parse_measure("utility")
    assert default.compute(q, env) == 2 - 2


def test_set_f_weight_and_11pt_levels():
    env = Env()
    q = _query([1, 0, 1, 0], {0: 2, 1: 3})
    # P = 2/4, R = 2/3; x = 0.5: (x + 1) P R / (x P + R)
    m = parse_measure("set_F_0.5")
    assert m.compute(q, env) == 1.5 * 0.5 * (2 / 3) / (0.5 * 0.5 + 2 / 3)
    # 11pt_avg.0.5: one level, needing (long)(0.5 * 3 + 0.9) = 2 relevant,
    # best precision from rank 3: 2/3
    m = parse_measure("11pt_avg_0.5")
    assert m.compute(q, env) == (2 / 3) / 1


# === Messages that say how to fix the name (issue 42) ==========================

@pytest.mark.parametrize("name, first", [
    ("Recall@100", "R@100"),          # ir_measures' and ranx's word for recall
    ("Precision@5", "P@5"),
    ("MRR", "RR"),
    ("MAP@10", "AP@10"),
    ("NDCG@10", "nDCG@10"),           # a case slip keeps the cutoff
    ("ndcg10", "ndcg_cut.10"),        # a cutoff glued to trec_eval's name
    ("P10", "P.10"),
    ("AP10", "AP@10"),
    ("f1", "F"),
])
def test_unknown_names_suggest_a_working_name_first(name, first):
    with pytest.raises(UnknownMeasureError) as info:
        parse_measure(name)
    assert info.value.suggestions[0] == first
    assert f"did you mean {first!r}" in str(info.value)
    # the suggestion is a measure irmetrics knows
    parse_measure(first)


@pytest.mark.parametrize("name, hint", [
    ("nDCG(dcg='exp-log2')@10", "did you mean 'nDCG(gain=exp)@10'?"),   # ir_measures' option
    ("nDCG(dcg=log2)@10", "did you mean 'nDCG@10'?"),
    ("P(rell=2)@5", "did you mean 'P(rel=2)@5'?"),
    ("RBP(beta=0.5)", "did you mean 'RBP(p=0.5)'?"),
    ("nDCG(gains={0:0,1:1})@10", "gain=0=0,1=1,2=3"),
    ("nDCG(judged_only=True)@10", "evaluate(qrels, run, measures, judged_only=True)"),
    ("P(judged_only=True)@10", "-J on the command line"),
    ("map@10", "did you mean 'map_cut.10'?"),
    ("recip_rank@10", "did you mean 'RR@10'?"),  # RR_cut is not trec_eval's: no -m form
])
def test_unknown_options_say_what_to_write(name, hint):
    with pytest.raises(InvalidArgumentError) as info:
        parse_measure(name)
    assert hint in str(info.value)
    fixed = re.search(r"did you mean '([^']+)'", str(info.value))
    if fixed:
        parse_measure(fixed.group(1))


@pytest.mark.parametrize("group", ["official", "all_trec"])
def test_command_line_groups_in_evaluate_list_their_measures(group):
    with pytest.raises(InvalidArgumentError) as info:
        irmetrics.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, group)
    message = str(info.value)
    assert f"-m {group}" in message and "command line" in message
    names = [m.name for m in expand_trec_argument(group)]
    assert message.endswith(", ".join(names))
    if group == "official":
        assert "map, gm_map, Rprec" in message and "P_1000" in message


# === The largest labels give finite values =====================================


def test_the_largest_labels_give_values_in_range():
    # Guards the gain arithmetic at label 2**31 - 1 (issue 18, finding 8):
    # every graded measure stays finite and within [0, 1].
    top = 2**31 - 1
    result = irmetrics.evaluate({"q": {"a": top, "b": 1, "c": 0}},
                                {"q": {"b": 3, "a": 2, "c": 1}},
                                ["ndcg", "G", "Rndcg", "ndcg_rel", "ERR@10", "map"])
    for name, value in result.aggregate.items():
        assert 0.0 <= value <= 1.0, name
