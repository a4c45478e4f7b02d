"""irmetrics.cwl (the C/W/L family), Compat and Accuracy: list functions,
evaluate()'s same bits, hand values, properties and errors.

The oracle comparisons (cwl-eval, ir_measures) are in test_cwl_measures.py.
"""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import labels, persistences

import irmetrics
from irmetrics import cwl, metrics
from irmetrics.errors import InvalidArgumentError

# (measure name over max_rel=3, the list function with its arguments)
FUNCTIONS = [
    ("INST(T=2,max_rel=3)", lambda ls, **kw: cwl.inst(ls, max_rel=3, T=2, **kw)),
    ("INSQ(max_rel=3)", lambda ls, **kw: cwl.insq(ls, max_rel=3, **kw)),
    ("BPM(T=1.5,max_rel=3)@5", lambda ls, **kw: cwl.bpm(ls, 5, max_rel=3, T=1.5, **kw)),
    ("NERR8(max_rel=3)@4", lambda ls, **kw: cwl.nerr8(ls, 4, max_rel=3, **kw)),
    ("NERR9(max_rel=3)@6", lambda ls, **kw: cwl.nerr9(ls, 6, max_rel=3, **kw)),
    ("NERR10(p=0.7,max_rel=3)", lambda ls, **kw: cwl.nerr10(ls, max_rel=3, p=0.7, **kw)),
    ("NERR11(min_rel=1,max_rel=3)", lambda ls, **kw: cwl.nerr11(ls, max_rel=3, min_rel=1, **kw)),
    ("SDCG(max_rel=3)@5", lambda ls, **kw: cwl.sdcg(ls, 5, max_rel=3, **kw)),
    ("TBG(H=3,max_rel=3)", lambda ls, **kw: cwl.tbg(ls, max_rel=3, H=3, **kw)),
    ("UMeasure(L=6,max_rel=3)", lambda ls, **kw: cwl.u_measure(ls, max_rel=3, L=6, **kw)),
    ("RBP(p=0.6,rel=2)", lambda ls, **kw: cwl.rbp_cwl(ls, p=0.6, rel=2, **kw)),
]
STATIC = ("INSQ", "SDCG", "TBG", "UMeasure", "RBP")


def with_quantity(name, quantity):
    head, at, cut = name.partition("@")
    return f"{head[:-1]},quantity={quantity})" + at + cut


def evaluated(labels, names, costs=None):
    """evaluate() on one query whose ranking has *labels* (None: unjudged)."""
    run = {"q": {f"d{i:03d}": float(len(labels) - i) for i in range(len(labels))}}
    qrels = {"q": {f"d{i:03d}": x for i, x in enumerate(labels) if x is not None}}
    qrels["q"]["judged-unranked"] = 0
    options = {} if costs is None else {
        "costs": {"q": {f"d{i:03d}": c for i, c in enumerate(costs)}}}
    return irmetrics.evaluate(qrels, run, names, **options).per_query["q"]


# === evaluate() and the list functions: the same bits ========================

@pytest.mark.parametrize("name, function", FUNCTIONS, ids=[n for n, _ in FUNCTIONS])
@settings(max_examples=15)  # each example: 2 x 10 quantities over 1000 ranks
@given(ls=st.lists(st.one_of(st.integers(0, 3), st.none()), max_size=12),
       costs=st.lists(st.sampled_from([0.5, 1.0, 2.0, 4.0]), min_size=12, max_size=12))
def test_list_functions_give_evaluates_bits(name, function, ls, costs):
    names = [with_quantity(name, q) for q in cwl.QUANTITIES]
    got = evaluated(ls, names, costs[:len(ls)])
    for quantity, key in zip(cwl.QUANTITIES, names):
        if quantity == "EU" and name.startswith("RBP"):  # quantity=EU is irmetrics' RBP, not normalised at 1000
            assert got[key] == irmetrics.rbp(ls, p=0.6, rel=2)
        else:
            assert got[key] == function(ls, quantity=quantity, costs=costs[:len(ls)]), quantity


@given(ls=st.lists(st.one_of(st.integers(0, 3), st.none()), max_size=15),
       k=st.one_of(st.none(), st.integers(1, 8)))
def test_compat_and_accuracy_give_evaluates_bits(ls, k):
    at = "" if k is None else f"@{k}"
    got = evaluated(ls, ["Compat", "Compat(p=0.5,normalize=False)", "Accuracy" + at])
    judged = [x for x in ls if x is not None] + [0]
    assert got["Compat"] == irmetrics.compatibility(ls, ideal=judged)
    assert got["Compat(p=0.5,normalize=False)"] == irmetrics.compatibility(
        ls, p=0.5, normalize=False, ideal=judged)
    assert got["Accuracy" + at] == irmetrics.accuracy(ls, k)


# === Hand values ============================================================

def test_accuracy_decides_what_ir_measures_leaves_undefined():
    # no relevant document in the top k: 0; no non-relevant one: 1
    assert irmetrics.accuracy([0, 0, 1], 2) == 0.0
    assert irmetrics.accuracy([1, 1, 0], 2) == 1.0
    # 1 - (0 + 2) / (2 non-relevant * 2 relevant)
    assert irmetrics.accuracy([1, 0, 0, 1]) == 0.5


def test_static_residual_is_the_weight_of_the_open_ranks():
    # RBP(p=1/2) on [1, None]: W_i = 2^-i / (1 - 2^-1000); rank 2 and ranks
    # 3..1000 are open: ResEU = (1/2 + 1/4 + ...) = 1/2 (to 1e-300)
    assert cwl.rbp_cwl([1, None], p=0.5) == pytest.approx(0.5, abs=1e-15)
    assert cwl.rbp_cwl([1, 0], p=0.5) == pytest.approx(0.25, abs=1e-15)
    # SDCG@2 of two judged documents: nothing open within k
    assert cwl.sdcg([1, 0], 2, max_rel=1, quantity="ResEU") == 0.0


def test_tbg_with_unit_costs_is_rbp():
    # W_i proportional to 2^(-(i-1)/H): RBP with p = 2^(-1/H)
    ls = [3, None, 0, 2, 1, 0, 3]
    for quantity in cwl.QUANTITIES:
        a = cwl.tbg(ls, max_rel=3, H=5, quantity=quantity)
        b = cwl.quantities("RBP", cwl.scaled(ls, 0, 3), param=2.0 ** (-1 / 5))
        assert a == pytest.approx(b[cwl.QUANTITIES.index(quantity)], abs=1e-12)


def test_adaptive_measures_without_gain_are_their_static_twins():
    # INST with every gain 0 has INSQ's weights; NERR10(p) has RBP(p)'s
    zeros = [0] * 7
    assert cwl.inst(zeros, max_rel=1, T=2, quantity="ED") == cwl.insq(
        zeros, max_rel=1, T=2, quantity="ED")
    assert cwl.nerr10(zeros, max_rel=1, p=0.7, quantity="ED") == pytest.approx(
        cwl.rbp_cwl(zeros, p=0.7, quantity="ED"), abs=1e-12)



def brute_quantities(model, gains, param, k, costs):
    """The module docstring's definition, each case over all DEPTH ranks in
    plain loops: the worst case (unknown ranks gain 0), then best minus worst."""
    cases = []
    for fill in (0.0, 1.0):
        g = [fill if x is None else x for x in gains[:cwl.DEPTH]]
        g += [fill] * (cwl.DEPTH - len(g))
        c = list(costs or [])[:cwl.DEPTH]
        c += [1.0] * (cwl.DEPTH - len(c))
        cont = cwl.MODELS[model][0](g, c, param, k)
        reach = [1.0]
        for x in cont[:-1]:
            reach.append(reach[-1] * x)
        total = math.fsum(reach)
        gained = spent = 0.0
        etu, etc = [], []
        for p, x, gain, cost in zip(reach, cont, g, c):
            gained, spent = gained + gain, spent + cost
            etu.append(p * (1.0 - x) * gained)
            etc.append(p * (1.0 - x) * spent)
        cases.append([math.fsum(p * x for p, x in zip(reach, g)) / total, math.fsum(etu),
                      math.fsum(p * x for p, x in zip(reach, c)) / total, math.fsum(etc), total])
    return cases[0] + [b - a for a, b in zip(*cases)]


MODEL_ARGS = [("INST", 2.0, 1000), ("INSQ", 1.0, 1000), ("BPM", 1.5, 5), ("NERR8", 0.0, 4),
              ("NERR9", 0.0, 6), ("NERR10", 0.7, 1000), ("NERR11", 1.0, 1000),
              ("SDCG", 0.0, 5), ("TBG", 3.0, 1000), ("UMeasure", 6.0, 1000), ("RBP", 0.6, 1000)]


@pytest.mark.parametrize("model, param, k", MODEL_ARGS, ids=[m for m, _, _ in MODEL_ARGS])
@settings(max_examples=10, deadline=None)
@given(gains=st.lists(st.sampled_from([None, 0.0, 0.25, 1.0]), max_size=1100),
       costs=st.none() | st.lists(st.sampled_from([0.5, 1.0, 2.0]), max_size=1100))
def test_quantities_are_their_definition(model, param, k, gains, costs):
    # quantities makes a static model's vectors once and sums the ranks past
    # the ranking's end in closed form; the definition sums every rank
    got = cwl.quantities(model, gains, param=param, k=k, costs=costs)
    want = brute_quantities(model, gains, param, k, costs)
    assert got == pytest.approx(want, rel=1e-12, abs=1e-12)
    if model in cwl.ADAPTIVE:  # EU: the same sum (the ranks after P_i = 0 add 0)
        assert got[0] == want[0]

# === Properties =============================================================

@pytest.mark.parametrize("name, function", FUNCTIONS, ids=[n for n, _ in FUNCTIONS])
@settings(max_examples=25)
@given(ls=st.lists(st.one_of(st.integers(0, 3), st.none()), max_size=15))
def test_bounds(name, function, ls):
    eu, etu, ec, etc, ed, res_eu = (function(ls, quantity=q) for q in cwl.QUANTITIES[:6])
    assert 0.0 <= eu <= 1.0 + 1e-12
    assert ed >= 1.0 - 1e-12 and 0.0 <= etu <= ed + 1e-9
    assert ec == pytest.approx(1.0)  # unit costs: EC = sum W_i = 1
    assert 0.0 <= etc <= ed + 1e-9
    if name.startswith(STATIC):
        assert res_eu >= -1e-12 and eu + res_eu <= 1.0 + 1e-12
        if None not in ls:
            assert function(ls, quantity="ResED") == 0.0


@pytest.mark.parametrize("name, function",
                         [f for f in FUNCTIONS if f[0].startswith(("INSQ", "SDCG", "RBP", "TBG"))],
                         ids=lambda x: x if isinstance(x, str) else "")
@given(ls=st.lists(st.integers(0, 3), min_size=2, max_size=12), data=st.data())
def test_a_better_document_moving_up_never_lowers_a_static_measure(name, function, ls, data):
    # their weights do not rise with the rank (U-measure's do at odd costs)
    i = data.draw(st.integers(0, len(ls) - 2))
    if ls[i] >= ls[i + 1]:
        return
    swapped = ls[:i] + [ls[i + 1], ls[i]] + ls[i + 2:]
    assert function(swapped) >= function(ls) - 1e-12


@given(ls=labels(max_label=3), p=persistences())
def test_rbp_residual_bounds(ls, p):
    res = cwl.rbp_cwl(ls, p=p)
    assert res >= 0.0
    assert cwl.rbp_cwl(ls, p=p, quantity="EU") + res <= 1.0 + 1e-12


@given(ls=st.lists(st.one_of(st.integers(0, 3), st.none()), max_size=15))
def test_compat_bounds(ls):
    judged = [x for x in ls if x is not None] + [2]
    normalized = irmetrics.compatibility(ls, ideal=judged)
    assert 0.0 <= normalized <= 1.0 + 1e-12
    assert irmetrics.compatibility(ls, normalize=False, ideal=judged) <= normalized + 1e-12
    assert irmetrics.compatibility(sorted(judged, reverse=True)) == pytest.approx(1.0)


# === Names, options, ties, explain, errors ==================================

def test_names_and_defaults():
    assert irmetrics.measures.parse_measure("INST(max_rel=3)") == irmetrics.measures.parse_measure(
        "INST(T=1,max_rel=3,quantity=EU)")
    assert irmetrics.measures.parse_measure("SetP(relative=True)").name == "set_relative_P"
    assert irmetrics.measures.parse_measure("SetP(relative=False)").name == "set_P"
    assert irmetrics.measures.parse_measure("SetAP").name == "set_map"
    assert irmetrics.measures.parse_measure("Compat(p=0.95)").name == "Compat(p=0.95)"


@pytest.mark.parametrize("name, message", [
    ("INST(max_rel=3,quantity=EX)", "'quantity' must be one of EU, ETU"),
    ("INST(T=0,max_rel=3)", "'T' must be a positive number"),
    ("Compat(normalize=maybe)", "'normalize' must be True or False"),
    ("SetP(relative=2)", "'relative' must be True or False"),
])
def test_bad_options_are_refused_when_parsed(name, message):
    with pytest.raises(InvalidArgumentError, match=message):
        irmetrics.measures.parse_measure(name)


@pytest.mark.parametrize("name, message", [
    ("INST(min_rel=3,max_rel=2)", "max_rel must be above min_rel"),
    ("RBP(quantity=ResEU)@10", "give no cutoff"),
])
def test_bad_combinations_are_refused_when_evaluated(name, message):
    with pytest.raises(InvalidArgumentError, match=message):
        evaluated([1, 0], [name])


def test_ties_name_the_measure():
    with pytest.raises(InvalidArgumentError,
                       match=r"ties='expected' is not defined for measure 'INST\(max_rel=2\)'"):
        irmetrics.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0, "b": 1.0}}, "INST(max_rel=2)",
                           ties="expected")


def test_costs_are_checked():
    with pytest.raises(InvalidArgumentError, match="'costs' of query 'q', document 'a'"):
        irmetrics.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, "TBG", costs={"q": {"a": -1}})
    with pytest.raises(InvalidArgumentError, match="'costs' must map query ids"):
        irmetrics.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, "TBG", costs=[1.0])


def test_costs_under_judged_only_follow_the_judged_ranking():
    # judged_only drops x: the costs are those of a (2.0) and b (0.5)
    qrels = {"q": {"a": 1, "b": 0}}
    run = {"q": {"a": 3.0, "x": 2.0, "b": 1.0}}
    costs = {"q": {"a": 2.0, "x": 7.0, "b": 0.5}}
    got = irmetrics.evaluate(qrels, run, "TBG(H=2,max_rel=1,quantity=ETC)", judged_only=True,
                             costs=costs)
    assert got.per_query["q"]["TBG(H=2,max_rel=1,quantity=ETC)"] == cwl.tbg(
        [1, 0], max_rel=1, H=2, quantity="ETC", costs=[2.0, 0.5])
    assert "costs" not in irmetrics.evaluate(qrels, run, "TBG").options


def test_explain_shows_the_quantities_and_residuals():
    e = irmetrics.explain({"q": {"a": 2, "b": 0}}, {"q": {"a": 2.0, "x": 1.5, "b": 1.0}}, "q",
                          "INST(max_rel=2)")
    assert e.value == cwl.inst([2, None, 0], max_rel=2)
    assert [r["gain"] for r in e.rows] == [1.0, None, 0.0]
    assert math.isclose(e.rows[0]["weight"] * 1.0, e.rows[0]["contribution"])
    assert any(step.startswith("residuals") and "ResEU = " in step for step in e.steps)


def test_list_function_errors():
    with pytest.raises(InvalidArgumentError, match="'max_rel' must be a positive"):
        cwl.inst([1], max_rel=0)
    with pytest.raises(InvalidArgumentError, match="'min_rel' must be below 'max_rel'"):
        cwl.inst([1], max_rel=2, min_rel=2)
    with pytest.raises(InvalidArgumentError, match="'quantity' must be one of"):
        cwl.insq([1], max_rel=1, quantity="eu")
    with pytest.raises(InvalidArgumentError, match="'k' must be a positive int"):
        cwl.sdcg([1], 0, max_rel=1)
    with pytest.raises(InvalidArgumentError, match="'ideal' must hold every relevant label"):
        irmetrics.compatibility([2], ideal=[1])


def test_explain_accuracy_and_compat_terms():
    qrels, run = {"q": {"a": 1, "b": 0, "c": 2}}, {"q": {"b": 3.0, "a": 2.0, "x": 1.5, "c": 1.0}}
    e = irmetrics.explain(qrels, run, "q", "Accuracy")
    assert [r["nonrel_above"] for r in e.rows] == [None, 1, None, 2]
    assert e.value == 1 - 3 / (2 * 2) == irmetrics.accuracy([0, 1, None, 2])
    e = irmetrics.explain(qrels, run, "q", "Compat")
    # the ideal: c (2), then a (1); a enters both prefixes at depth 2, c at depth 4
    assert [r["overlap"] for r in e.rows] == [0, 1, 1, 2]
    assert e.value == irmetrics.compatibility([0, 1, None, 2])


@settings(max_examples=200, deadline=None)
@given(ls=labels(), p=persistences())
def test_rbp_residual_is_one_concept_with_two_horizons(ls, p):
    # The residual of RBP is one quantity in two variants of cwl.residual:
    # trec_eval 10.0's rbp_resid (metrics.rbp_residual, the horizon unbounded,
    # weights (1 - p) p^(i-1) summing to 1) and cwl-eval's ResEU (over its 1000
    # ranks, whose weights it normalises to sum to 1).  The second is the
    # first without the ranks past 1000 (p^1000), over the weight of ranks
    # 1..1000, 1 - p^1000.
    if p >= 1 or len(ls) > 1000:
        return
    unbounded = metrics.rbp_residual(ls, p=p)
    assert cwl.rbp_cwl(ls, p=p) == pytest.approx((unbounded - p ** 1000) / (1 - p ** 1000),
                                                 rel=1e-12, abs=1e-15)


def test_explain_takes_evaluates_costs_and_shows_the_residual():
    qrels, run = {"q": {"a": 2, "b": 0}}, {"q": {"a": 2.0, "x": 1.5, "b": 1.0}}
    costs = {"q": {"a": 2.0, "x": 0.5}}
    name = "TBG(H=2,max_rel=2)"
    e = irmetrics.explain(qrels, run, "q", name, costs=costs)
    assert e.value == irmetrics.evaluate(qrels, run, name, costs=costs).per_query["q"][name]
    assert e.value == cwl.tbg([2, None, 0], max_rel=2, H=2, costs=[2.0, 0.5, 1.0])
    assert [r["cost"] for r in e.rows] == [2.0, 0.5, 1.0]
    # TBG is static: the unknown ranks (x, and 4..1000) weigh ResEU
    res = cwl.tbg([2, None, 0], max_rel=2, H=2, costs=[2.0, 0.5, 1.0], quantity="ResEU")
    assert any(s.startswith(f"the unknown ranks weigh {res:.4f}") for s in e.steps)
    # RBP: the residual of rbp_residual, p^3 + (1 - p) p
    e = irmetrics.explain(qrels, run, "q", "RBP(p=0.5)")
    assert metrics.rbp_residual([2, None, 0], p=0.5) == 0.125 + 0.25
    assert any(s.startswith("residual") and s.endswith("= 0.3750") for s in e.steps)
    e = irmetrics.explain(qrels, run, "q", "RBP(p=0.5,quantity=ResEU)")  # the C/W/L terms
    assert e.value == cwl.rbp_cwl([2, None, 0], p=0.5)
    assert "continuation" in e.rows[0]
