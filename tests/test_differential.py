"""Differential tests: :func:`irmetrics.evaluate` against trec_eval 9.0.8.

The oracle is pytrec-eval-terrier (trec_eval 9.0.8 compiled as a Python
extension).  Every measure both tools share is compared, per query and in the
aggregate, on hypothesis-generated qrels and runs (see
``tests/strategies_runs.py``): all of pytrec_eval's families with their
default parameters (``P`` -> ``P_5`` .. ``P_1000``, ``iprec_at_recall`` ->
eleven levels, ...), under relevance level 1 and 2 and with judged-only
evaluation (trec_eval ``-J``).

How pytrec_eval reports some measures per query:

* ``gm_map`` and ``gm_bpref``: the log of the value floored at 1e-5 (the
  summary is the exp of the mean of those logs); irmetrics reports the plain
  value per query, so the comparison takes ``log(max(v, 1e-5))`` of it.
* ``num_q``: 1 per query.
* ``runid`` and ``relstring``: text lines of trec_eval's report, which
  pytrec_eval returns as 0.0; irmetrics' evaluate() refuses them (the command
  line prints them), so they are not compared.

Every value must be *equal*, to the last bit: irmetrics computes trec_eval's
measures with trec_eval's operations in trec_eval's order.  pytrec_eval
stores scores as single-precision floats (the ``v9.0.8`` tag), irmetrics as
doubles (the ``trec_eval-9.0.8`` tag); the generated scores are all exact in
single precision (``tests/strategies_runs.py``), so both rank alike.  The
aggregates are derived from pytrec_eval's per-query values the way trec_eval
derives them: added left to right in query-id order.
"""

import math
import random
import warnings
from typing import Any, Dict, List, Mapping, Tuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import require
from strategies_runs import qrels_and_runs

from irmetrics import evaluate
from irmetrics.errors import IrmetricsWarning
from irmetrics.measures import MIN_GEO_MEAN, parse_measure

TEXT_MEASURES = ("runid", "relstring")
GM_MEASURES = ("gm_map", "gm_bpref")

Qrels = Dict[str, Dict[str, int]]
RunDict = Dict[str, Dict[str, float]]


# === The oracle ==============================================================


@pytest.fixture(scope="module")
def pytrec_eval() -> Any:
    return require("pytrec_eval")


_NAMES: List[str] = []


def shared_names(pytrec_eval: Any) -> List[str]:
    """Every per-query key pytrec_eval produces for all of its families with
    default parameters, less the text lines: the names asked of irmetrics.

    (A function, not a fixture: hypothesis would print the 93 names with
    every falsifying example.)"""
    if not _NAMES:
        ev = pytrec_eval.RelevanceEvaluator({"q": {"d": 1}}, oracle_measures(pytrec_eval))
        keys = ev.evaluate({"q": {"d": 1.0}})["q"]
        _NAMES.extend(sorted(keys))
    return _NAMES


def oracle_measures(pytrec_eval: Any) -> List[str]:
    """Every family of pytrec_eval but the text lines.

    Never ask pytrec_eval for ``relstring``: with an empty ranking it corrupts
    memory (m_relstring.c keeps its string in a static buffer that
    te_chk_and_malloc and clear_relstr manage inconsistently) and the process
    crashes with SIGSEGV, e.g. on ``{'q1': {'d1': 0}}`` and ``{'q1': {}}``
    with ``relstring`` and ``gm_bpref`` requested.  pytrec_eval reports it
    (and ``runid``) as 0.0 anyway.
    """
    return sorted(set(pytrec_eval.supported_measures) - set(TEXT_MEASURES))


def test_names_cover_every_family(pytrec_eval: Any) -> None:
    names = shared_names(pytrec_eval)
    # The comparison is only as good as its list of names: every family of
    # pytrec_eval except the text lines must be there, each name must mean
    # that family in irmetrics, and the defaults must be expanded.
    families = {parse_measure(n).family.key for n in names}
    assert families == set(pytrec_eval.supported_measures) - set(TEXT_MEASURES)
    for n in names:
        assert parse_measure(n).name == n
    assert {"P_5", "P_1000", "iprec_at_recall_0.00", "iprec_at_recall_1.00",
            "Rprec_mult_0.20", "Rprec_mult_2.00", "success_1", "ndcg_cut_10",
            "map_cut_1000", "relative_P_500"} <= set(names)
    assert len(names) == 93


# === The comparison ==========================================================


def _oracle(pytrec_eval: Any, qrels: Qrels, run: RunDict, *, relevance_level: int = 1,
            judged_only: bool = False) -> Dict[str, Dict[str, float]]:
    ev = pytrec_eval.RelevanceEvaluator(
        qrels, oracle_measures(pytrec_eval), relevance_level=relevance_level,
        judged_docs_only_flag=judged_only,
    )
    result: Dict[str, Dict[str, float]] = ev.evaluate(run)
    return result


def _irmetrics(qrels: Qrels, run: RunDict, names: List[str], **kwargs: Any) -> Any:
    """evaluate(), checking the warning for run queries without judgments."""
    run_only = sorted(q for q in run if q not in qrels)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = evaluate(qrels, run, names, **kwargs)
    ours = [w for w in caught if issubclass(w.category, IrmetricsWarning)]
    if run_only:
        assert len(ours) == 1, [str(w.message) for w in caught]
        message = str(ours[0].message)
        for qid in run_only[:5]:
            assert repr(qid) in message
        assert list(result.skipped) == run_only
    else:
        assert ours == [], [str(w.message) for w in ours]
        assert result.skipped == ()
    assert list(result.missing) == sorted(q for q in qrels if q not in run)
    return result


def _per_query_as_oracle(name: str, value: float) -> float:
    """irmetrics' per-query value in the form pytrec_eval reports it."""
    if name in GM_MEASURES:
        return math.log(max(value, MIN_GEO_MEAN))
    return float(value)


def _left_to_right(values: List[float]) -> float:
    total = 0.0
    for v in values:
        total += v
    return total


def _aggregate_of_oracle(name: str, values: List[float]) -> float:
    """trec_eval's summary from the per-query values, in query-id order
    (te_acc_meas_s adds them as the queries come, te_calc_avg_meas_s
    divides by their number)."""
    how = parse_measure(name).family.aggregate
    if how == "sum":
        return _left_to_right(values)
    if how == "gm":  # the per-query values are already logs
        return math.exp(_left_to_right(values) / len(values))
    assert how == "mean", (name, how)
    return _left_to_right(values) / len(values)


def compare(pytrec_eval: Any, qrels: Qrels, run: RunDict, names: List[str], *,
            relevance_level: int = 1, judged_only: bool = False) -> None:
    """Assert that irmetrics and trec_eval agree on every name, per query and overall."""
    # pytrec_eval is not given the queries it is not memory-safe on (see
    # _unsafe_for_trec_eval); their values are derived by hand instead.
    safe = {q: docs for q, docs in run.items() if not _unsafe_for_trec_eval(qrels.get(q), docs)}
    expected = _oracle(pytrec_eval, qrels, safe, relevance_level=relevance_level,
                       judged_only=judged_only) if safe else {}
    for qid in run:
        if qid in qrels and qid not in safe:
            n_rel = sum(1 for v in qrels[qid].values() if v >= relevance_level)
            n_ret = _num_ret(qrels[qid], run[qid], judged_only)
            expected[qid] = {name: _nothing_relevant_retrieved(name, n_rel, n_ret)
                             for name in names}
    got = _irmetrics(qrels, run, names, relevance_level=relevance_level,
                     judged_only=judged_only)
    per_query = got.per_query
    # Same queries: those both in the run and in the qrels.
    assert sorted(per_query) == sorted(expected) == sorted(q for q in run if q in qrels)
    diffs: List[Tuple[str, str, float, float]] = []
    nan_cells = set()
    for qid, theirs in expected.items():
        empty = _num_ret(qrels[qid], run[qid], judged_only) == 0
        n_rel = sum(1 for v in qrels[qid].values() if v >= relevance_level)
        for name in names:
            mine = _per_query_as_oracle(name, per_query[qid][name])
            if empty and qid in safe and _nan_on_empty(name, n_rel):
                # trec_eval divides 0 by 0 (see _nan_on_empty); irmetrics must
                # give 0.0, its value for every ranking with nothing retrieved.
                assert math.isnan(theirs[name]) and mine == 0.0, (qid, name, mine)
                nan_cells.add((qid, name))
            elif mine != theirs[name]:
                diffs.append((qid, name, mine, theirs[name]))
    assert not diffs, _report(diffs, qrels, run, relevance_level, judged_only)
    aggregate = got.aggregate
    for name in names:
        values = [0.0 if (q, name) in nan_cells else expected[q][name] for q in sorted(expected)]
        want = _aggregate_of_oracle(name, values)
        assert aggregate[name] == want, (name, aggregate[name], want)


def _unsafe_for_trec_eval(judged: Any, scored: Mapping[str, float]) -> bool:
    """Whether trec_eval (as pytrec_eval) corrupts memory on this query.

    Two cases crash the process (SIGSEGV) or hang it, depending on the
    measures asked for and on what ran before, at any relevance level:

    * an empty ranking, e.g. qrels ``{'q1': {'d1': 0}}`` and run
      ``{'q1': {}}`` with just ``{'gm_bpref', 'recip_rank'}`` (or
      ``{'gm_bpref', 'relstring'}``).  trec_eval's command line never has one
      (a results file has no empty query); pytrec_eval passes it through.
    * a query whose judgments are all negative, e.g. qrels ``{'q': {'a': -1}}``
      and run ``{'q': {'b': 1.0}}`` with ``{'gm_bpref', 'recip_rank'}``.  In
      form_res_rels.c max_rel is then -1, so ``rel_levels`` is allocated with
      ``max_rel + 1 = 0`` entries and ``num_rel_levels`` is never assigned (it
      keeps whatever the previous query left in the static ``saved_res_rels``);
      measures that walk ``rel_levels[0 .. num_rel_levels)`` read and write
      out of bounds.  This one the command line reaches too (a topic judged
      only with -1 lines): a trec_eval bug.

    In both cases nothing relevant is retrieved and every measure's value
    follows from its definition (see _nothing_relevant_retrieved).
    """
    if judged is None:
        return False  # not evaluated by either tool
    return not scored or all(v < 0 for v in judged.values())


def _nothing_relevant_retrieved(name: str, n_rel: int, n_ret: int) -> float:
    """A measure's value, in pytrec_eval's form, for a query that retrieved
    *n_ret* documents none of them relevant nor judged (hand-derived): R for
    num_rel, n_ret for num_ret, -n_ret for utility (each retrieved document
    is non-relevant: 0 * 1 + n_ret * -1), 1 for num_q, log(1e-5) for the gm_
    measures (the value 0 floored), and 0 for everything else (no relevant
    document retrieved, no judged non-relevant one either)."""
    if name == "num_rel":
        return float(n_rel)
    if name == "num_ret":
        return float(n_ret)
    if name == "utility":
        return float(-n_ret)
    if name == "num_q":
        return 1.0
    if name in GM_MEASURES:
        return math.log(MIN_GEO_MEAN)
    return 0.0


def _num_ret(judged: Mapping[str, int], scored: Mapping[str, float], judged_only: bool) -> int:
    """trec_eval's num_ret: the ranking's length (judged documents only under -J)."""
    if judged_only:
        return sum(1 for d in scored if judged.get(d, -1) >= 0)
    return len(scored)


def _nan_on_empty(name: str, n_rel: int) -> bool:
    """Whether trec_eval 9.0.8 gives NaN for this measure on an empty ranking.

    m_iprec_at_recall.c and m_11pt_avg.c start from
    ``int_precis = (double) rr.num_rel_ret / (double) rr.num_ret``, 0/0 when
    nothing is retrieved.  A recall level whose cutoff
    ``(long) (level * R + 0.9)`` is 0 (level 0.0 always; every level when
    R = 0) is never reached by the (empty) loop over ranks and gets that NaN;
    the other levels are skipped as unreachable and stay 0.0.  11pt_avg sums
    the levels, level 0.0 among them, so it is always NaN.  The command line
    reaches this with -J when every retrieved document of a query is
    unjudged, as pytrec_eval does here (empty rankings are never given to
    it, see _unsafe_for_trec_eval).  irmetrics answers 0.0: nothing
    retrieved, no precision, as for every other measure of an empty ranking.
    """
    if name == "11pt_avg":
        return True
    if name.startswith("iprec_at_recall_"):
        level = float(name.rsplit("_", 1)[1])
        return int(level * n_rel + 0.9) == 0
    return False


def _report(diffs: List[Tuple[str, str, float, float]], qrels: Qrels, run: RunDict,
            relevance_level: int, judged_only: bool) -> str:
    lines = [f"relevance_level={relevance_level} judged_only={judged_only}"]
    lines += [f"  {qid} {name}: irmetrics {mine!r} trec_eval {theirs!r}"
              for qid, name, mine, theirs in diffs[:20]]
    if len(diffs) > 20:
        lines.append(f"  ... and {len(diffs) - 20} more")
    lines.append(f"  qrels={qrels!r}")
    lines.append(f"  run={run!r}")
    return "\n".join(lines)


# === Properties ==============================================================


@given(data=qrels_and_runs())
def test_agrees_with_trec_eval(pytrec_eval: Any, data: Tuple[Qrels, RunDict]) -> None:
    qrels, run = data
    compare(pytrec_eval, qrels, run, shared_names(pytrec_eval))


@given(data=qrels_and_runs())
def test_agrees_with_trec_eval_at_relevance_level_2(
        pytrec_eval: Any, data: Tuple[Qrels, RunDict]) -> None:
    qrels, run = data
    compare(pytrec_eval, qrels, run, shared_names(pytrec_eval), relevance_level=2)


@given(data=qrels_and_runs())
def test_agrees_with_trec_eval_judged_only(
        pytrec_eval: Any, data: Tuple[Qrels, RunDict]) -> None:
    qrels, run = data
    compare(pytrec_eval, qrels, run, shared_names(pytrec_eval), judged_only=True)


# === Fixed cases =============================================================
# Small examples of each subtle case the properties found or must keep
# reaching, compared in all three settings, plus hand-derived values.

FIXED_CASES = {
    # Every score equal: trec_eval's order is doc id descending in byte order,
    # 'é' (0xC3 0xA9) > 'd2' > 'd10' > 'd1' > 'D1'.
    "byte-order-ties": (
        {"q1": {"é": 2, "d10": 0, "D1": 1, "d1": -1}},
        {"q1": {"d10": 1.0, "D1": 1.0, "é": 1.0, "d2": 1.0, "d1": 1.0}},
    ),
    # trec_eval 9.0.8 turns recall 0.3 of R = 4 into (long)(1.2 + 0.9) = 2
    # relevant documents (later versions: lround(1.2) = 1).
    "iprec-rounding": (
        {"q1": {"a": 1, "b": 0, "c": 0, "d": 1, "e": 1, "f": 1}},
        {"q1": {"a": 4.0, "b": 3.0, "c": 2.0, "d": 1.0}},
    ),
    # Under -J nothing is left: trec_eval's iprec_at_recall_0.00 and
    # 11pt_avg are 0/0 (see _nan_on_empty).
    "judged-only-leaves-nothing": (
        {"q1": {"a": 1, "b": 0}, "q2": {"c": 2}},
        {"q1": {"x": 1.0, "y": 2.0}, "q2": {"c": 0.5}},
    ),
    # Queries pytrec_eval is not memory-safe on (see _unsafe_for_trec_eval):
    # an empty ranking, and a query judged only with -1.
    "empty-ranking": ({"q1": {"d1": 0}, "q2": {"a": 1}}, {"q1": {}, "q2": {"a": 1.0}}),
    "only-negative-judgments": (
        {"q1": {"a": -1}, "q2": {"a": 1}},
        {"q1": {"a": 1.0, "b": 2.0}, "q2": {"a": 1.0}},
    ),
    # A run-only query (skipped with a warning), a qrels-only query (left
    # out), a query with no relevant document, graded labels, ties.
    "query-sets": (
        {"q1": {"a": 0, "b": -1}, "q2": {"a": 3, "b": 1, "c": 4}, "q3": {"z": 1}},
        {"q1": {"a": 1.0, "b": 1.0}, "q2": {"c": 0.5, "b": 0.5, "a": 0.5, "x": 1.0},
         "q9": {"a": 1.0}},
    ),
}


@pytest.mark.parametrize("relevance_level, judged_only", [(1, False), (2, False), (1, True)])
@pytest.mark.parametrize("case", sorted(FIXED_CASES))
def test_fixed_case_agrees_with_trec_eval(pytrec_eval: Any, case: str, relevance_level: int,
                                          judged_only: bool) -> None:
    qrels, run = FIXED_CASES[case]
    compare(pytrec_eval, qrels, run, shared_names(pytrec_eval),
            relevance_level=relevance_level, judged_only=judged_only)


def test_byte_order_ties_by_hand() -> None:
    qrels, run = FIXED_CASES["byte-order-ties"]
    got = evaluate(qrels, run, ["P_5", "recip_rank", "bpref", "num_nonrel_judged_ret"])
    # Ranking é(2), d2(unjudged), d10(0), d1(-1), D1(1): 2 relevant in 5.
    assert got["P_5"] == 2 / 5
    assert got["recip_rank"] == 1.0
    # R = 2, N = 1 (d10; d1 is -1): é has no non-relevant above (1), D1 has
    # d10 above: 1 - min(1, 1) / 1 = 0.  (1 + 0) / 2.
    assert got["bpref"] == 0.5
    assert got["num_nonrel_judged_ret"] == 1


def test_iprec_rounding_by_hand(pytrec_eval: Any) -> None:
    qrels, run = FIXED_CASES["iprec-rounding"]
    got = evaluate(qrels, run, ["iprec_at_recall_0.20", "iprec_at_recall_0.30",
                                "iprec_at_recall_0.50", "iprec_at_recall_0.60", "11pt_avg"])
    # Relevant at ranks 1 and 4 of R = 4: precision 1/1, then 2/4.
    # Levels 0.0-0.2 need 1 relevant (1.0), 0.3-0.5 need 2 ((long)(0.3 * 4
    # + 0.9) = 2: 0.5), 0.6-1.0 need 3 or more (0.0): (3 * 1 + 3 * 0.5) / 11.
    assert got["iprec_at_recall_0.20"] == 1.0
    assert got["iprec_at_recall_0.30"] == 0.5
    assert got["iprec_at_recall_0.50"] == 0.5
    assert got["iprec_at_recall_0.60"] == 0.0
    # m_11pt_avg.c adds the levels from 1.0 down: 0 * 5 + 0.5 * 3 + 1.0 * 3
    assert got["11pt_avg"] == (0.5 + 0.5 + 0.5 + 1.0 + 1.0 + 1.0) / 11
    theirs = _oracle(pytrec_eval, qrels, run)["q1"]
    assert theirs["iprec_at_recall_0.30"] == 0.5  # 9.0.8, not lround


def test_trec_eval_nan_on_nothing_judged_retrieved(pytrec_eval: Any) -> None:
    # The exclusion in compare() is exactly what trec_eval does: NaN at level
    # 0.0 (cutoff 0) and in 11pt_avg, 0.0 at the levels it skips.
    qrels, run = FIXED_CASES["judged-only-leaves-nothing"]
    theirs = _oracle(pytrec_eval, qrels, run, judged_only=True)["q1"]
    assert math.isnan(theirs["iprec_at_recall_0.00"]) and math.isnan(theirs["11pt_avg"])
    assert theirs["iprec_at_recall_0.10"] == 0.0
    got = evaluate(qrels, run, ["iprec_at_recall_0.00", "11pt_avg", "num_ret"],
                   judged_only=True).per_query["q1"]
    assert got == {"iprec_at_recall_0.00": 0.0, "11pt_avg": 0.0, "num_ret": 0}


def test_unsafe_queries_by_hand() -> None:
    # The values _nothing_relevant_retrieved stands in for, by hand.
    names = ["num_ret", "num_rel", "num_rel_ret", "utility", "map", "gm_map", "bpref",
             "ndcg", "P_5", "set_F", "infAP", "11pt_avg", "num_q"]
    empty = evaluate({"q1": {"d1": 1, "d2": 2, "d3": 0}}, {"q1": {}}, names).per_query["q1"]
    assert empty == {"num_ret": 0, "num_rel": 2, "num_rel_ret": 0, "utility": 0.0,
                     "map": 0.0, "gm_map": 0.0, "bpref": 0.0, "ndcg": 0.0, "P_5": 0.0,
                     "set_F": 0.0, "infAP": 0.0, "11pt_avg": 0.0, "num_q": 1}
    negative = evaluate({"q1": {"a": -1}}, {"q1": {"a": 1.0, "b": 2.0}}, names).per_query["q1"]
    # Two retrieved, none relevant: utility 0 * 1 + 2 * -1.
    assert negative == {**empty, "num_ret": 2, "num_rel": 0, "utility": -2.0}


def test_run_only_query_warns_and_is_skipped() -> None:
    qrels, run = FIXED_CASES["query-sets"]
    with pytest.warns(IrmetricsWarning, match="1 run query has no judgments.*'q9'"):
        got = evaluate(qrels, run, ["map"])
    assert got.skipped == ("q9",)
    assert got.missing == ("q3",)
    assert sorted(got.per_query) == ["q1", "q2"]


# === Parameters ==============================================================
# pytrec_eval passes one parameter after the dot to trec_eval (it splits the
# rest on ',' and '='), so set_F.x and 11pt_avg with one level are compared
# directly, and gain maps through a relabelling: the gain map 1=3,2=9,...
# gives the numbers the default gains give on qrels relabelled 1 -> 3,
# 2 -> 9, ... (setup_gains in m_ndcg.c, m_G.c, m_ndcg_rel.c, m_Rndcg.c).

GAIN_MAP = {1: 3, 2: 9, 3: 10, 4: 20}  # increasing: the ideal order is kept


def _safe_part(qrels: Qrels, run: RunDict) -> RunDict:
    return {q: docs for q, docs in run.items()
            if q in qrels and not _unsafe_for_trec_eval(qrels[q], docs)}


@given(data=qrels_and_runs())
def test_single_parameters_agree_with_trec_eval(pytrec_eval: Any,
                                                data: Tuple[Qrels, RunDict]) -> None:
    qrels, run = data
    safe = _safe_part(qrels, run)
    if not safe:
        return
    for param, name in (("set_F.0.5", "set_F_0.5"), ("set_F.3", "set_F_3"),
                        ("11pt_avg.0.3", "11pt_avg_0.3")):
        theirs = pytrec_eval.RelevanceEvaluator(qrels, {param}).evaluate(safe)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", IrmetricsWarning)
            mine = evaluate(qrels, safe, [name]).per_query
        for qid, values in theirs.items():
            key = param.split(".", 1)[0]
            if math.isnan(values[key]):  # 11pt_avg of nothing retrieved: 0/0
                assert mine[qid][name] == 0.0
            else:
                assert mine[qid][name] == values[key], (qid, name)


@given(data=qrels_and_runs())
def test_gain_maps_agree_with_trec_eval_on_relabelled_qrels(
        pytrec_eval: Any, data: Tuple[Qrels, RunDict]) -> None:
    qrels, run = data
    safe = _safe_part(qrels, run)
    if not safe:
        return
    relabelled = {q: {d: GAIN_MAP.get(v, v) for d, v in docs.items()} for q, docs in qrels.items()}
    families = ["ndcg", "G", "ndcg_rel", "Rndcg"]
    theirs = pytrec_eval.RelevanceEvaluator(relabelled, set(families)).evaluate(safe)
    suffix = ",".join(f"{lvl}={g}" for lvl, g in GAIN_MAP.items())
    names = [f"{f}_{suffix}" for f in families]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IrmetricsWarning)
        mine = evaluate(qrels, safe, names).per_query
    for qid, values in theirs.items():
        for family, name in zip(families, names):
            if math.isnan(values[family]):  # Rndcg's 0/0 (nothing at any R level)
                assert mine[qid][name] == 0.0
            else:
                assert mine[qid][name] == values[family], (qid, name)


# === Scores as single-precision floats: pytrec_eval's own ranking ===


@given(st.data())
@settings(max_examples=40)
def test_float32_scores_reproduce_pytrec_eval(pytrec_eval: Any, data: st.DataObject) -> None:
    # Guards scores="float32" (issue 12, item 7): scores that differ beyond
    # single precision tie as pytrec_eval (trec_eval's float build) ties them.
    rng = random.Random(data.draw(st.integers(0, 10**6)))
    qrels: Qrels = {}
    run: RunDict = {}
    for q in range(4):
        qrels[f"q{q}"] = {f"d{d}": rng.choice((0, 1, 2)) for d in rng.sample(range(30), 12)}
        # scores that differ beyond float precision, so that float32 merges some
        base = [rng.choice((0.1, 0.2, 0.3, 0.7)) for _ in range(20)]
        run[f"q{q}"] = {f"d{d}": b + rng.choice((0.0, 1e-9, 3e-9)) for d, b in
                        zip(rng.sample(range(30), 20), base)}
    measures = {"map", "P_5", "ndcg_cut_10", "recip_rank", "bpref", "Rprec"}
    expected = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    got = evaluate(qrels, run, sorted(measures), scores="float32").per_query
    for q, values in expected.items():
        for m, v in values.items():
            assert got[q][m] == pytest.approx(v, abs=1e-12), (q, m)
