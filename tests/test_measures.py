"""The registry: contracts every family meets, names, aliases and errors."""

import math

import pytest

from irmetrics import measures as M
from irmetrics.errors import InvalidArgumentError, UnknownMeasureError
from irmetrics.measures import (
    FAMILIES,
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
    if measure.family.key != "utility":  # utility = rel - nonrel retrieved may be < 0
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


@pytest.mark.parametrize("key", trec_measure_names())
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
    assert {m.family.key for m in expanded} == set(trec_measure_names())
    assert all(m.is_trec for m in expanded)
    assert len({m.name for m in expanded}) == len(expanded)


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
    # trec_eval set_F.x weighs (x + 1) P R / (x P + R): x = beta**2, so x=4 is beta=2
    # (stored as the weight x itself, so that the arithmetic is trec_eval's)
    (m,) = expand_trec_argument("set_F.4")
    assert m.option("weight") == 4.0
    assert m == parse_measure("SetF(beta=2)") == parse_measure("set_F_4")
    assert m.name == "set_F_4"


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
        parse_measure("P_avgjg")
