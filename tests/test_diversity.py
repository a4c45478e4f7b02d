"""Diversity measures (irmetrics.diversity) against ndeval's C code (pyndeval).

pyndeval ranks a query's documents by score, ties by document id
*ascending*; ndeval -traditional and irmetrics rank them like trec_eval
(ties by id descending).  The oracle is therefore fed the ranking irmetrics
evaluates (one distinct score per rank), so that both evaluate the same
ranked list; pyndeval also numbers subtopics in order of first appearance,
so its qrels records go in numeric subtopic order (ndeval's own order).
"""

import io
import math
import warnings
from typing import Any, Dict, List, Tuple

import pytest
from hypothesis import given
from hypothesis import strategies as st

import irmetrics
from irmetrics import Qrels, Run, compare, evaluate
from irmetrics.cli import _run
from irmetrics.diversity import (
    NDEVAL_MEASURES,
    alpha_dcg,
    alpha_ndcg,
    ap_ia,
    err_ia,
    nerr_ia,
    nnrbp,
    nrbp,
    precision_ia,
    subtopic_recall,
)
from irmetrics.errors import DuplicateEntryError, InvalidArgumentError
from irmetrics.metrics import dcg
from irmetrics.trec import read_qrels, read_subtopic_qrels, trec_ranking

pyndeval = pytest.importorskip("pyndeval")

# ndeval's names -> the same measures' ir_measures names
IR_NAMES = {
    "ERR-IA": "ERR_IA", "nERR-IA": "nERR_IA", "alpha-DCG": "alpha_DCG",
    "alpha-nDCG": "alpha_nDCG", "P-IA": "P_IA", "strec": "StRecall",
    "NRBP": "NRBP", "nNRBP": "nNRBP", "MAP-IA": "AP_IA",
}


# === The oracle ==============================================================

def oracle(
    table: Dict[str, Dict[str, Dict[str, int]]], run: Dict[str, Dict[str, float]],
    alpha: float = 0.5, beta: float = 0.5,
) -> Dict[str, Dict[str, float]]:
    """pyndeval's per-query values for the ranking irmetrics evaluates."""
    records = sorted(
        ((q, s, d, v) for q, topics in table.items() for s, docs in topics.items()
         for d, v in docs.items()),
        key=lambda r: int(r[1]),
    )
    ranked = []
    for qid in sorted(run):
        for i, doc in enumerate(trec_ranking(run[qid])):
            ranked.append((qid, doc, float(-i)))
    if not records:
        return {}
    got = pyndeval.ndeval(records, ranked, list(NDEVAL_MEASURES), alpha=alpha, beta=beta)
    # ndeval's nNRBP of a query without relevant subtopics is 0/0; irmetrics says 0.0
    return {q: {m: 0.0 if math.isnan(v) else v for m, v in vals.items()}
            for q, vals in got.items()}


def ours(table: Dict[str, Dict[str, Dict[str, int]]], run: Any, names: List[str]) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return evaluate(Qrels.from_subtopics(table), run, names).per_query


@st.composite
def subtopic_data(draw: Any) -> Tuple[Dict[str, Dict[str, Dict[str, int]]], Dict[str, Dict[str, float]]]:
    """Random diversity qrels and a run: tied scores, unjudged documents,
    queries without a relevant subtopic, queries in one file only."""
    docs = [f"d{i}" for i in range(12)]
    qids = draw(st.lists(st.sampled_from(["1", "2", "3", "4", "10"]), min_size=1, max_size=4,
                         unique=True))
    table: Dict[str, Dict[str, Dict[str, int]]] = {}
    run: Dict[str, Dict[str, float]] = {}
    for qid in qids:
        where = draw(st.sampled_from(["both", "both", "both", "qrels", "run"]))
        if where != "run":
            topics = draw(st.lists(st.sampled_from(["1", "2", "3", "4", "12"]), min_size=1,
                                   max_size=4, unique=True))
            table[qid] = {}
            for s in topics:
                judged = draw(st.dictionaries(st.sampled_from(docs), st.integers(0, 2),
                                              min_size=1, max_size=8))
                table[qid][s] = judged
        if where != "qrels":
            ranked = draw(st.dictionaries(st.sampled_from(docs + ["u1", "u2", "u3"]),
                                          st.sampled_from([0.0, 1.0, 2.0, 2.5, 3.0]),
                                          min_size=1, max_size=14))
            run[qid] = ranked
    if not any(q in table for q in run):  # evaluate() needs one common query
        qid = next(iter(run or {"1": {}}))
        table.setdefault(qid, {"1": {"d0": 1}})
        run.setdefault(qid, {"d0": 1.0})
    return table, run


def assert_close(got: Dict[str, Dict[str, float]], want: Dict[str, Dict[str, float]],
                 names: Dict[str, str]) -> None:
    assert sorted(got) == sorted(want)
    for qid in want:
        for ours_name, theirs_name in names.items():
            assert got[qid][ours_name] == pytest.approx(want[qid][theirs_name], abs=1e-9), (
                qid, ours_name)


# === Differential: evaluate() against pyndeval ================================

@given(subtopic_data(), st.sampled_from([(0.5, 0.5), (0.0, 0.5), (1.0, 0.3), (0.8, 0.7),
                                          (0.3, 1.0), (0.0, 1.0)]))
def test_evaluate_equals_pyndeval(data: Any, params: Tuple[float, float]) -> None:
    table, run = data
    alpha, beta = params
    want = oracle(table, run, alpha, beta)
    opts = f"alpha={alpha},beta={beta}"
    names = {}
    for m in NDEVAL_MEASURES:
        base, _, k = m.partition("@")
        ir = IR_NAMES[base]
        if base in ("P-IA", "strec", "MAP-IA"):
            names[f"{ir}@{k}" if k else ir] = m
        elif base in ("NRBP", "nNRBP"):
            names[f"{ir}({opts})"] = m
        else:
            names[f"{ir}(alpha={alpha})@{k}"] = m
    assert_close(ours(table, run, list(names)), want, names)


@given(subtopic_data())
def test_ndeval_names_from_a_file(data: Any) -> None:
    # ndeval's own names, the qrels read from a file, the run streamed from one
    table, run = data
    want = oracle(table, run)
    qrels_file = io.StringIO("".join(
        f"{q} {s} {d} {v}\n" for q, topics in table.items() for s, docs in topics.items()
        for d, v in docs.items()))
    qrels = Qrels.from_trec(qrels_file)
    run_file = _run_bytes(run)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = evaluate(qrels, run_file, list(NDEVAL_MEASURES)).per_query
    assert_close(got, want, {m: m for m in NDEVAL_MEASURES})


def _run_bytes(run: Dict[str, Dict[str, float]]) -> io.BytesIO:
    out = io.StringIO()
    Run(run, name="r").to_trec(out)
    return io.BytesIO(out.getvalue().encode())


@given(subtopic_data(), st.integers(1, 20))
def test_list_level_functions_equal_pyndeval(data: Any, k: int) -> None:
    # the public functions, given a query's judgments as ideal, at any cutoff <= 20
    table, run = data
    want = oracle(table, run, alpha=0.5, beta=0.5)
    qrels = Qrels.from_subtopics(table)
    for qid in want:
        topics = qrels.subtopics(qid)
        labels = [{s: docs[d] for s, docs in topics.items() if d in docs} or None
                  for d in trec_ranking(run[qid])]
        a = sum(1 for docs in topics.values() if any(v >= 1 for v in docs.values()))
        counts = {s: sum(1 for v in docs.values() if v >= 1) for s, docs in topics.items()}
        w = {m: v for m, v in want[qid].items()}
        if k in (5, 10, 20):
            assert alpha_dcg(labels, k, n_subtopics=a) == pytest.approx(w[f"alpha-DCG@{k}"])
            assert alpha_ndcg(labels, k, ideal=topics) == pytest.approx(w[f"alpha-nDCG@{k}"])
            assert err_ia(labels, k, n_subtopics=a) == pytest.approx(w[f"ERR-IA@{k}"])
            assert nerr_ia(labels, k, ideal=topics) == pytest.approx(w[f"nERR-IA@{k}"])
            assert precision_ia(labels, k, n_subtopics=a) == pytest.approx(w[f"P-IA@{k}"])
            assert subtopic_recall(labels, k, n_subtopics=a) == pytest.approx(w[f"strec@{k}"])
        assert nrbp(labels, n_subtopics=a) == pytest.approx(w["NRBP"], abs=1e-9)
        assert nnrbp(labels, ideal=topics) == pytest.approx(w["nNRBP"], abs=1e-9)
        assert ap_ia(labels, n_relevant=counts) == pytest.approx(w["MAP-IA"], abs=1e-9)


@given(subtopic_data(), st.integers(1, 20))
def test_any_cutoff_equals_pyndeval(data: Any, k: int) -> None:
    table, run = data
    names = [f"{m}@{k}" for m in ("alpha-DCG", "alpha-nDCG", "ERR-IA", "nERR-IA", "P-IA",
                                  "strec")]
    records = sorted(((q, s, d, v) for q, t in table.items() for s, docs in t.items()
                      for d, v in docs.items()), key=lambda r: int(r[1]))
    ranked = [(q, d, float(-i)) for q in sorted(run) for i, d in enumerate(trec_ranking(run[q]))]
    want = pyndeval.ndeval(records, ranked, names)
    assert_close(ours(table, run, names), want, {n: n for n in names})


# === The command line: ndeval's CSV ===========================================

# /tmp-style example; the expected text is what ndeval 4.5 (ndeval.c from the
# pyndeval 0.0.8 sdist, compiled with gcc) printed for `ndeval -traditional
# qrels run` (and plain `ndeval`: the run's ranks agree with its scores).
NDEVAL_QRELS = "1 1 a 1\n1 2 b 1\n1 3 c 0\n2 1 x 0\n2 2 y 0\n"
NDEVAL_RUN = "1 Q0 a 1 3 r\n1 Q0 z 2 2 r\n1 Q0 b 3 1 r\n2 Q0 x 1 1 r\n3 Q0 a 1 1 r\n"
NDEVAL_CSV = """\
runid,topic,ERR-IA@5,ERR-IA@10,ERR-IA@20,nERR-IA@5,nERR-IA@10,nERR-IA@20,alpha-DCG@5,alpha-DCG@10,alpha-DCG@20,alpha-nDCG@5,alpha-nDCG@10,alpha-nDCG@20,NRBP,nNRBP,MAP-IA,P-IA@5,P-IA@10,P-IA@20,strec@5,strec@10,strec@20
r,1,0.484115,0.480955,0.480898,0.888889,0.888889,0.888889,0.493916,0.487322,0.487155,0.919721,0.919721,0.919721,0.468750,0.833333,0.666667,0.200000,0.100000,0.050000,1.000000,1.000000,1.000000
r,2,0.000000,0.000000,0.000000,0.000000,0.000000,0.000000,0.000000,0.000000,0.000000,0.000000,0.000000,0.000000,0.000000,-nan,0.000000,0.000000,0.000000,0.000000,0.000000,0.000000,0.000000
r,3,0.000000,0.000000,0.000000,0.000000,0.000000,0.000000,0.000000,0.000000,0.000000,0.000000,0.000000,0.000000,0.000000,0.000000,0.000000,0.000000,0.000000,0.000000,0.000000,0.000000,0.000000
r,amean,0.242057,0.240478,0.240449,0.444444,0.444444,0.444444,0.246958,0.243661,0.243577,0.459860,0.459860,0.459860,0.234375,-nan,0.333333,0.100000,0.050000,0.025000,0.500000,0.500000,0.500000
"""


def run_cli(argv: List[str]) -> Tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = _run(argv, out, err)
    return code, out.getvalue(), err.getvalue()


def test_cli_ndeval_prints_ndevals_csv(tmp_path: Any) -> None:
    (tmp_path / "q").write_text(NDEVAL_QRELS)
    (tmp_path / "r").write_text(NDEVAL_RUN)
    code, out, _ = run_cli(["--ndeval", str(tmp_path / "q"), str(tmp_path / "r")])
    assert code == 0
    assert out == NDEVAL_CSV


def ndeval_csv(table: Dict[str, Dict[str, Dict[str, int]]], run: Dict[str, Dict[str, float]],
               runid: str, order: Any = trec_ranking) -> str:
    """ndeval's CSV built from pyndeval's values: a line per run topic in
    numeric order (0.0 for those without judgments), amean = the C sum over
    the lines / the topics in both files, NaN printed as -nan.  *order*
    gives a query's documents in rank order."""
    records = sorted(((q, s, d, v) for q, t in table.items() for s, docs in t.items()
                      for d, v in docs.items()), key=lambda r: int(r[1]))
    ranked = [(q, d, float(-i)) for q in sorted(run) for i, d in enumerate(order(q, run[q]))]
    values = pyndeval.ndeval(records, ranked, list(NDEVAL_MEASURES))

    def fmt(v: float) -> str:
        return "-nan" if math.isnan(v) else f"{v:.6f}"

    lines = ["runid,topic," + ",".join(NDEVAL_MEASURES)]
    totals = [0.0] * len(NDEVAL_MEASURES)
    for qid in sorted(run, key=int):
        row = [values[qid][m] for m in NDEVAL_MEASURES] if qid in values else \
            [0.0] * len(NDEVAL_MEASURES)
        for i, v in enumerate(row):
            totals[i] += v
        lines.append(f"{runid},{qid}," + ",".join(map(fmt, row)))
    lines.append(f"{runid},amean," + ",".join(fmt(t / len(values)) for t in totals))
    return "\n".join(lines) + "\n"


@given(subtopic_data(), st.randoms(use_true_random=False))
def test_cli_ndeval_equals_pyndeval(tmp_path_factory: Any, data: Any, rnd: Any) -> None:
    # ndeval orders a query by the rank column, which need not follow the
    # scores; --traditional orders it by score (trec_eval's order)
    table, run = data
    tmp = tmp_path_factory.mktemp("nd")
    Qrels.from_subtopics(table).to_trec(tmp / "q")
    ranks = {q: dict(zip(docs, rnd.sample(range(1, 100), len(docs)))) for q, docs in run.items()}
    (tmp / "r").write_text("".join(
        f"{q} Q0 {d} {ranks[q][d]} {score} sys1\n" for q, docs in run.items()
        for d, score in docs.items()))
    code, out, _ = run_cli(["--ndeval", str(tmp / "q"), str(tmp / "r")])
    assert code == 0
    assert out == ndeval_csv(table, run, "sys1",
                             lambda q, docs: sorted(docs, key=ranks[q].__getitem__))
    code, out, _ = run_cli(["--ndeval", "--traditional", str(tmp / "q"), str(tmp / "r")])
    assert code == 0
    assert out == ndeval_csv(table, run, "sys1", lambda q, docs: trec_ranking(docs))


def test_cli_ndeval_run_name_and_ranks(tmp_path: Any) -> None:
    (tmp_path / "q").write_text(NDEVAL_QRELS)
    # ndeval names the run by its first line
    (tmp_path / "r").write_text(NDEVAL_RUN.replace("3 Q0 a 1 1 r", "3 Q0 a 1 1 other"))
    code, out, _ = run_cli(["--ndeval", str(tmp_path / "q"), str(tmp_path / "r")])
    assert code == 0 and out == NDEVAL_CSV
    (tmp_path / "r").write_text("1 Q0 a 1 3 r\n1 Q0 b 1 2 r\n")
    code, out, err = run_cli(["--ndeval", str(tmp_path / "q"), str(tmp_path / "r")])
    assert code == 2 and out == ""
    assert err == f"irmetrics: error: {tmp_path / 'r'}: rank 1 appears twice for query '1'\n"


def test_cli_measures_by_name_and_formats(tmp_path: Any) -> None:
    (tmp_path / "q").write_text(NDEVAL_QRELS)
    (tmp_path / "r").write_text(NDEVAL_RUN)
    code, out, _ = run_cli(["-q", "-m", "alpha-nDCG@5", "-m", "NRBP(alpha=0.5,beta=0.5)",
                            "-m", "strec@10", str(tmp_path / "q"), str(tmp_path / "r")])
    assert code == 0
    # query 1 from ndeval's CSV above; "all" is the mean over queries 1 and 2
    assert "alpha_nDCG@5          \t1\t0.9197\n" in out
    assert "NRBP                  \t1\t0.4688\n" in out
    assert "StRecall@10           \tall\t0.5000\n" in out
    code, out, _ = run_cli(["--format", "json", "-m", "P-IA@5", str(tmp_path / "q"),
                            str(tmp_path / "r")])
    assert code == 0 and '"P_IA@5": 0.1' in out  # canonical name; (0.2 + 0) / 2
    code, out, _ = run_cli(["--format", "csv", "-m", "MAP-IA", str(tmp_path / "q"),
                            str(tmp_path / "r")])
    assert code == 0 and "all,AP_IA,0.3333333333333333\n" in out  # (2/3 + 0) / 2


def test_cli_ndeval_refuses_measures(tmp_path: Any) -> None:
    (tmp_path / "q").write_text(NDEVAL_QRELS)
    (tmp_path / "r").write_text(NDEVAL_RUN)
    code, out, err = run_cli(["--ndeval", "-m", "map", str(tmp_path / "q"), str(tmp_path / "r")])
    assert code == 2 and out == "" and "--ndeval" in err and "Traceback" not in err


# === Properties ===============================================================

labels_st = st.lists(
    st.one_of(st.none(), st.dictionaries(st.sampled_from(["1", "2", "3", "4"]),
                                         st.integers(0, 2), max_size=4)),
    max_size=15)


@given(labels_st, st.integers(1, 15), st.sampled_from([0.0, 0.25, 0.5, 1.0]))
def test_normalised_values_in_unit_interval(labels: Any, k: int, alpha: float) -> None:
    assert 0.0 <= precision_ia(labels, k) <= 1.0
    assert 0.0 <= subtopic_recall(labels, k) <= 1.0
    assert 0.0 <= ap_ia(labels) <= 1.0
    for f in (alpha_ndcg, nerr_ia):
        v = f(labels, k, alpha=alpha)
        assert v >= 0.0
        if alpha == 0.0 or k == 1:  # there the greedy ideal is the best ranking
            assert v <= 1.0 + 1e-12
    v = nnrbp(labels, alpha=alpha)
    assert v >= 0.0 and (alpha != 0.0 or v <= 1.0 + 1e-12)


@given(labels_st, st.integers(2, 15))
def test_alpha_zero_is_dcg_of_subtopic_counts(labels: Any, k: int) -> None:
    # no novelty penalty: the gain of a document is the number of subtopics it
    # is relevant to, and the ideal ideal list has A at every rank
    counts = [sum(1 for v in (x or {}).values() if v >= 1) for x in labels]
    a = len({s for x in labels for s, v in (x or {}).items() if v >= 1})
    want = dcg(counts, k) / dcg([a] * k, k) if a else 0.0
    assert alpha_dcg(labels, k, alpha=0.0) == pytest.approx(want, abs=1e-12)
    assert alpha_dcg(labels, 1, alpha=0.0) == (counts[0] if counts and a else 0.0)


@given(st.integers(1, 6), st.lists(st.none(), max_size=5))
def test_covering_every_subtopic_at_rank_1(n: int, tail: Any) -> None:
    first = {str(s): 1 for s in range(1, n + 1)}
    labels = [first, *tail]
    assert subtopic_recall(labels, 1) == 1.0
    assert alpha_ndcg(labels, 1) == 1.0
    # through evaluate() too: one document judged for every subtopic
    table = {"7": {str(s): {"d1": 1, "d9": 1} for s in range(1, n + 1)}}
    got = evaluate(Qrels.from_subtopics(table), {"7": {"d1": 2.0, "x": 1.0}}, ["strec@1"])
    assert got.per_query["7"]["strec@1"] == 1.0


def test_hand_example() -> None:
    # 2 subtopics; ranking: d1 {1}, d2 {1}, d3 {2}; alpha = 0.5
    # gains: 1, 0.5, 1; alpha-DCG@3 = (1 + 0.5/log2(3) + 1/2) / (2 + 1/log2(3) + 0.5/2)
    labels = [{"1": 1}, {"1": 1}, {"2": 1}]
    num = 1 + 0.5 / math.log2(3) + 0.5
    den = 2 + 1 / math.log2(3) + 0.25
    assert alpha_dcg(labels, 3) == pytest.approx(num / den)
    # ideal: d1 {1}, d3 {2}, d2 {1}: gains 1, 1, 0.5
    ideal = 1 + 1 / math.log2(3) + 0.25
    assert alpha_ndcg(labels, 3) == pytest.approx(num / ideal)
    # P-IA@2 = 2 / (2 * 2); S-recall@2 = 1/2
    assert precision_ia(labels, 2) == 0.5
    assert subtopic_recall(labels, 2) == 0.5
    # AP_1 = (1/1 + 2/2) / 2 = 1; AP_2 = (1/3) / 1; MAP-IA = (1 + 1/3) / 2
    assert ap_ia(labels) == pytest.approx(2 / 3)


# === Ordinary measures on subtopic qrels ======================================

@given(subtopic_data())
def test_ordinary_measures_use_the_highest_label(data: Any) -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    table, run = data
    flat: Dict[str, Dict[str, int]] = {}
    for q, topics in table.items():
        docs: Dict[str, int] = {}
        for judged in topics.values():
            for d, v in judged.items():
                docs[d] = max(docs.get(d, v), v)
        flat[q] = docs
    common = [q for q in run if q in flat]
    want = pytrec_eval.RelevanceEvaluator(flat, {"map", "ndcg", "P"}).evaluate(
        {q: run[q] for q in common})
    qrels_file = io.StringIO("".join(
        f"{q} {s} {d} {v}\n" for q, topics in table.items() for s, docs in topics.items()
        for d, v in docs.items()))
    qrels = Qrels.from_trec(qrels_file)
    assert qrels.to_dict() == flat
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = evaluate(qrels, run, ["map", "ndcg", "P_5"]).per_query
    for q in want:
        for m in ("map", "ndcg", "P_5"):
            assert got[q][m] == pytest.approx(want[q][m], abs=1e-12)


# === Reading subtopic qrels ===================================================

def test_subtopic_qrels_file() -> None:
    text = "1 1 a 1\n1 2 a 2\n1 2 b 0\n2 0 c 1\n"
    qrels = Qrels.from_trec(io.StringIO(text))
    assert qrels.has_subtopics
    assert qrels.to_dict() == {"1": {"a": 2, "b": 0}, "2": {"c": 1}}
    assert qrels.subtopics("1") == {"1": {"a": 1}, "2": {"a": 2, "b": 0}}
    assert qrels.subtopics("2") == {"0": {"c": 1}}
    assert read_qrels(io.StringIO(text)) == qrels.to_dict()
    assert read_subtopic_qrels(io.StringIO(text)) == {
        "1": {"1": {"a": 1}, "2": {"a": 2, "b": 0}}, "2": {"0": {"c": 1}}}
    out = io.StringIO()
    qrels.to_trec(out)
    assert Qrels.from_trec(io.StringIO(out.getvalue())) == qrels


def test_plain_qrels_have_one_subtopic() -> None:
    qrels = Qrels.from_trec(io.StringIO("1 0 a 1\n1 0 b 0\n"))
    assert not qrels.has_subtopics
    assert qrels.subtopics("1") == {"0": {"a": 1, "b": 0}}
    assert repr(qrels) == "Qrels(1 query, 2 judgments)"


@pytest.mark.parametrize("block", [1 << 16, 1])
def test_duplicate_subtopic_entry_names_both_lines(block: int) -> None:
    from unittest import mock

    from irmetrics import trec

    text = "1 1 a 1\n1 2 a 1\n1 1 a 0\n"
    with mock.patch.object(trec, "_BLOCK", block), pytest.raises(DuplicateEntryError) as info:
        Qrels.from_trec(io.StringIO(text))
    assert str(info.value) == ("<file>, line 3: document 'a' appears twice for query '1', "
                               "subtopic '1' (lines 1 and 3)")
    assert info.value.subtopic == "1"


def test_subtopics_read_the_same_in_blocks_of_any_size() -> None:
    from unittest import mock

    from irmetrics import trec

    text = "".join(f"{q} {s} d{d} {(q + s + d) % 3}\n" for q in range(3) for s in range(3)
                   for d in range(5))
    fast = Qrels.from_trec(io.StringIO(text))
    with mock.patch.object(trec, "_BLOCK", 1):  # each line a block of its own
        slow = Qrels.from_trec(io.StringIO(text))
    assert fast == slow and fast.has_subtopics
    assert fast.subtopics("0") == slow.subtopics("0")


def test_from_subtopic_records() -> None:
    qrels = Qrels.from_subtopic_records([
        ("q1", 1, "d1", 1), {"qid": "q1", "subtopic": "2", "docno": "d1", "rel": 2},
    ])
    assert qrels.subtopics("q1") == {"1": {"d1": 1}, "2": {"d1": 2}}
    assert qrels["q1"]["d1"] == 2
    with pytest.raises(irmetrics.errors.TrecFormatError, match="line 1"):
        Qrels.from_subtopic_records([("q1", "d1", 1)])
    assert Qrels.from_subtopics({"q": {"0": {"d": 1}}}) == Qrels({"q": {"d": 1}})


# === Validation ===============================================================

@pytest.mark.parametrize("call, message", [
    (lambda: alpha_ndcg([{"1": 1}], 5, alpha=1.5), "'alpha' must be a number in [0, 1]"),
    (lambda: nrbp([{"1": 1}], beta=0), "'beta' must be a number in (0, 1]"),
    (lambda: err_ia([{"1": 1}], 0), "'k' must be a positive int (got 0)"),
    (lambda: precision_ia([3], 1), "labels[0] must be a {subtopic: label} mapping"),
    (lambda: precision_ia({"1": 1}, 1), "(or None) per ranked document, not a dict"),
    (lambda: precision_ia(5, 1), "(or None) per ranked document (got int)"),
    (lambda: alpha_dcg([{"1": 1, "2": 1}], 1, n_subtopics=1), "'n_subtopics' must be"),
    (lambda: evaluate({"q": {"d": 1}}, {"q": {"d": 1.0}}, "nNRBP(beta=1.5)"), "'beta'"),
    (lambda: evaluate({"q": {"d": 1}}, {"q": {"d": 1.0}}, "alpha-nDCG(alpha=-1)@5"), "'alpha'"),
])
def test_bad_arguments(call: Any, message: str) -> None:
    with pytest.raises(InvalidArgumentError) as info:
        call()
    assert message in str(info.value)


def test_plain_qrels_is_one_subtopic() -> None:
    # with one subtopic, S-recall@k is success@k and P-IA@k is P@k
    qrels = {"q": {"a": 1, "b": 0, "c": 1}}
    run = {"q": {"a": 1.0, "b": 3.0, "c": 2.0, "x": 0.5}}
    got = evaluate(qrels, run, ["strec@1", "strec@2", "P-IA@2", "P@2"]).per_query["q"]
    assert got["strec@1"] == 0.0 and got["strec@2"] == 1.0
    assert got["P-IA@2"] == got["P@2"] == 0.5


# === The other roads: depth, judged_only, processes, compare() ================

@given(subtopic_data(), st.integers(1, 6))
def test_depth_and_judged_only_equal_pyndeval_on_the_cut_run(data: Any, depth: int) -> None:
    # -M keeps the top DEPTH of each ranking (ndeval -M); -J drops the
    # documents absent from the qrels first: the oracle gets the cut runs
    table, run = data
    flat = Qrels.from_subtopics(table)
    cut = {q: {d: docs[d] for d in trec_ranking(docs)[:depth]} for q, docs in run.items()}
    judged = {q: {d: s for d, s in docs.items() if q in flat and d in flat[q]}
              for q, docs in run.items()}
    names = list(NDEVAL_MEASURES)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got_cut = evaluate(flat, run, names, depth=depth).per_query
        got_judged = evaluate(flat, run, names, judged_only=True).per_query
    assert_close(got_cut, oracle(table, cut), {m: m for m in names})
    want = oracle(table, {q: docs for q, docs in judged.items() if docs})
    for q in got_judged:  # a query whose ranking empties scores 0.0 everywhere
        if q not in want:
            assert set(got_judged[q].values()) == {0.0}
    assert_close({q: v for q, v in got_judged.items() if q in want}, want,
                 {m: m for m in names})


@pytest.mark.slow
def test_processes_give_the_same_values(tmp_path: Any) -> None:
    import random

    rng = random.Random(3)
    table = {str(q): {str(s): {f"d{i}": int(rng.random() < 0.3) for i in range(40)}
                      for s in range(1, 4)} for q in range(1, 30)}
    run = {str(q): {f"d{i}": float(rng.randint(0, 9)) for i in range(60)} for q in range(1, 30)}
    Qrels.from_subtopics(table).to_trec(tmp_path / "q")
    Run(run, name="r").to_trec(tmp_path / "r")
    names = ["alpha-nDCG@10", "nNRBP", "MAP-IA", "P-IA@5", "strec@20", "ERR-IA@5"]
    one = evaluate(str(tmp_path / "q"), str(tmp_path / "r"), names, workers=1)
    two = evaluate(str(tmp_path / "q"), str(tmp_path / "r"), names, workers=2)
    assert one.per_query == two.per_query
    assert_close(one.per_query, oracle(table, run), {n: n for n in names})


def test_compare_reaches_the_diversity_measures() -> None:
    table = {"1": {"1": {"a": 1}, "2": {"b": 1}}, "2": {"1": {"a": 1, "c": 1}, "2": {"c": 1}}}
    runs = {"good": {"1": {"a": 2.0, "b": 1.0}, "2": {"c": 2.0, "a": 1.0}},
            "bad": {"1": {"x": 2.0, "a": 1.0}, "2": {"x": 2.0, "a": 1.0}}}
    result = compare(Qrels.from_subtopics(table), runs, ["alpha-nDCG@2"], baseline="bad")
    # good covers every subtopic in its top 2 as the greedy ideal does: 1.0 on both queries
    assert result.per_query["good"] == {"1": {"alpha-nDCG@2": 1.0}, "2": {"alpha-nDCG@2": 1.0}}


# === The greedy ideal against ndeval's loop, literally ========================

def ndeval_ideal(relevant: Dict[str, Tuple[int, ...]], judged: List[str], n: int,
                 alpha: float) -> List[float]:
    """ndeval's idealResult over every judged document, then computeDCG's gains."""
    gains = [1.0] * n
    left = sorted(judged)
    out = []
    while left:
        where, best = -1, 0.0
        for i, d in enumerate(left):
            score = 0.0
            for j in relevant.get(d, ()):
                score += gains[j]
            if where == -1 or score > best or (score == best and d > left[where]):
                where, best = i, score
        d = left.pop(where)
        for j in relevant.get(d, ()):
            gains[j] *= 1.0 - alpha
        out.append(best)
    return out


@given(st.dictionaries(st.sampled_from([f"d{i:02d}" for i in range(30)]),
                       st.frozensets(st.integers(0, 4), max_size=5), max_size=30),
       st.sampled_from([0.0, 0.2, 0.5, 0.8, 1.0]))
def test_lazy_greedy_ideal_is_ndevals(docs: Any, alpha: float) -> None:
    from irmetrics.diversity import _greedy_ideal

    relevant = {d: tuple(sorted(s)) for d, s in docs.items() if s}
    got = [score for _, score in _greedy_ideal(relevant, 5, alpha)]
    want = ndeval_ideal(relevant, list(docs), 5, alpha)
    # the relevant documents come first; the rest of ndeval's list gains nothing
    assert got == want[:len(got)]
    assert all(score == 0.0 for score in want[len(got):])


# === Contracts ================================================================

def test_list_functions_take_iterators_and_leave_input_alone() -> None:
    labels = [{"1": 1, "2": 0}, None, {"2": 2}]
    ideal = {"1": {"a": 1}, "2": {"b": 2, "c": 1}}
    before = (repr(labels), repr(ideal))
    for f in (alpha_dcg, err_ia, precision_ia, subtopic_recall):
        assert f(iter(labels), 2) == f(labels, 2)
    for g in (alpha_ndcg, nerr_ia):
        assert g(iter(labels), 2, ideal=ideal) == g(labels, 2, ideal=ideal)
    assert nrbp(iter(labels)) == nrbp(labels)
    assert nnrbp(iter(labels), ideal=ideal) == nnrbp(labels, ideal=ideal)
    assert ap_ia(iter(labels), n_relevant={"1": 1, "2": 2}) == ap_ia(labels, n_relevant={
        "1": 1, "2": 2})
    assert (repr(labels), repr(ideal)) == before
    # an empty list and a list without relevant labels score 0.0
    for h in (alpha_dcg, alpha_ndcg, err_ia, nerr_ia, precision_ia, subtopic_recall):
        assert h([], None) == 0.0 and h([None, {"1": 0}], 2) == 0.0
    assert nrbp([]) == nnrbp([]) == ap_ia([]) == 0.0


def test_labels_alone_are_one_subtopic() -> None:
    # a QueryData built from labels (no subtopic judgments) scores as a plain
    # qrels does through evaluate(): one subtopic, "0"
    from irmetrics.evaluate import query_data
    from irmetrics.measures import Env, parse_measure

    judgments = {"a": 1, "b": 0, "c": 2, "z": 1}  # z relevant, not retrieved
    run = {"a": 3.0, "b": 2.0, "c": 1.0, "x": 0.5}
    names = ["alpha-nDCG@3", "nERR-IA@2", "nNRBP", "MAP-IA", "P-IA@2", "strec@1"]
    want = evaluate({"q": judgments}, {"q": run}, names).per_query["q"]
    data = query_data(judgments, trec_ranking(run))
    assert {n: parse_measure(n).compute(data, Env()) for n in names} == want
    # by hand: AP of a, c among 3 relevant = (1/1 + 2/3) / 3
    assert want["MAP-IA"] == pytest.approx((1 + 2 / 3) / 3)


def test_qrels_with_subtopics_pickle_and_compare() -> None:
    import pickle

    qrels = Qrels.from_subtopics({"q": {"1": {"a": 1}, "2": {"a": 0, "b": 1}}})
    again = pickle.loads(pickle.dumps(qrels))
    assert again == qrels and again.subtopics("q") == qrels.subtopics("q")
    # the same highest labels, other subtopics: not equal
    assert qrels != Qrels.from_subtopics({"q": {"1": {"a": 1}, "3": {"a": 0, "b": 1}}})
    assert qrels == {"q": {"a": 1, "b": 1}}  # as a mapping: the highest labels
    with pytest.raises(KeyError):
        qrels.subtopics("nope")


def test_a_ranking_can_beat_the_greedy_ideal() -> None:
    # d1 {1,2}, d3 {3,4} and d4 {2,4} all gain 2 at rank 1; the greedy ideal
    # takes d4 (greatest id), then d3 (gain 1 + 0.5, tied with d1): at k = 2
    # it has 2 + 1.5/log2(3), while d1, d3 has 2 + 2/log2(3)
    table = {"1": {"1": {"d1": 1}, "2": {"d0": 1, "d1": 1, "d4": 1},
                   "3": {"d3": 1}, "4": {"d2": 1, "d3": 1, "d4": 1}}}
    run = {"1": {"d1": 2.0, "d3": 1.0}}
    want = (2 + 2 / math.log2(3)) / (2 + 1.5 / math.log2(3))
    got = evaluate(Qrels.from_subtopics(table), run, ["alpha-nDCG@2"]).per_query["1"]
    assert got["alpha-nDCG@2"] == pytest.approx(want) and want > 1.1
    records = [(q, s, d, v) for q, t in table.items() for s, docs in t.items()
               for d, v in docs.items()]
    theirs = pyndeval.ndeval(records, [("1", "d1", 2.0), ("1", "d3", 1.0)], ["alpha-nDCG@2"])
    assert got["alpha-nDCG@2"] == pytest.approx(theirs["1"]["alpha-nDCG@2"])


# === Huge cutoffs (issue 42) ==================================================
# The value at a cutoff beyond the ranking needs the ideal ideal list's sum up
# to that cutoff: it stops when a rank no longer changes the sum, and for
# alpha near 0 adds the ranks beyond 2**16 by a formula, so no cutoff hangs.

HUGE = 10**12
# q1: subtopic 1 {d1}, subtopic 2 {d2, d3}; ranking d1, d2, d4; q2: {d1}, ranking d1
HUGE_QRELS = "q1 1 d1 1\nq1 2 d2 1\nq1 2 d3 1\nq2 1 d1 1\n"
HUGE_RUN = "q1 Q0 d1 1 3 r\nq1 Q0 d2 2 2 r\nq1 Q0 d4 3 1 r\nq2 Q0 d1 1 1 r\n"
# q1: gains 1 (d1), 1 (d2); greedy ideal d3 {2}, d1 {1}, d2 {2}: gains 1, 1, 0.5
Q1_ANDCG = (1 + 1 / math.log2(3)) / (1 + 1 / math.log2(3) + 0.5 / 2)   # 0.867095
Q1_NERR = (1 + 1 / 2) / (1 + 1 / 2 + 0.5 / 3)                          # 0.9


@pytest.mark.slow
def test_huge_cutoffs_from_the_command_line_return(tmp_path: Any) -> None:
    import json
    import os
    import pathlib
    import subprocess
    import sys

    (tmp_path / "q").write_text(HUGE_QRELS)
    (tmp_path / "r").write_text(HUGE_RUN)
    names = [f"{m}@{k}" for k in (HUGE, 3) for m in ("alpha-nDCG", "nERR-IA", "ERR-IA(alpha=0)")]
    argv = [sys.executable, "-m", "irmetrics", "-q", "--format", "json"]
    for name in names:
        argv += ["-m", name]
    env = dict(os.environ)
    root = pathlib.Path(__file__).resolve().parent.parent
    env["PYTHONPATH"] = str(root) + os.pathsep + env.get("PYTHONPATH", "")
    # before the fix the first cutoff looped 10**12 times: the timeout fails it
    proc = subprocess.run(argv + [str(tmp_path / "q"), str(tmp_path / "r")],
                          capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr
    cli = json.loads(proc.stdout)["per_query"]
    assert cli["q1"]["alpha_nDCG@3"] == pytest.approx(Q1_ANDCG, abs=1e-15)
    assert cli["q1"]["nERR_IA@3"] == pytest.approx(Q1_NERR, abs=1e-15)
    for q in ("q1", "q2"):
        assert cli[q][f"alpha_nDCG@{HUGE}"] == pytest.approx(cli[q]["alpha_nDCG@3"], rel=1e-15)
        assert cli[q][f"nERR_IA@{HUGE}"] == pytest.approx(cli[q]["nERR_IA@3"], rel=1e-15)
    # ERR-IA at alpha = 0 over A = 2 subtopics: (1 + 1/2) / (2 * H(k)), H the harmonic
    # number, H(10**12) = ln(10**12) + Euler's gamma + 1 / (2 * 10**12) (to 1e-24)
    h = math.log(HUGE) + 0.5772156649015329 + 0.5 / HUGE
    assert cli["q1"][f"ERR_IA(alpha=0)@{HUGE}"] == pytest.approx(1.5 / (2 * h), rel=1e-13)


def test_huge_cutoff_stops_where_the_ideal_ideal_sum_stops(monkeypatch: Any) -> None:
    import irmetrics.diversity as d

    calls = [0]
    log = math.log

    class CountingMath:
        def __getattr__(self, name: str) -> Any:
            return getattr(math, name)

        @staticmethod
        def log(x: float, *base: float) -> float:
            calls[0] += 1
            if calls[0] > 10**6:  # the old loop: one log per rank up to k
                raise RuntimeError("the ideal ideal sum runs to the cutoff")
            return log(x, *base)

    monkeypatch.setattr(d, "math", CountingMath())
    labels = [{"1": 1, "2": 1}, {"1": 1}, None, {"3": 1}]
    # alpha = 0.5: the ideal ideal gain 3 * 0.5**i underflows to 0 before rank 1100,
    # so the sum at 10**12 is the sum at 1100, to the last bit
    assert alpha_dcg(labels, HUGE) == alpha_dcg(labels, 1100)
    assert err_ia(labels, HUGE) == err_ia(labels, 1100)
    # normalised by the greedy ideal (4 documents), the value past rank 4 stays put
    assert alpha_ndcg(labels, HUGE) == pytest.approx(alpha_ndcg(labels, 4), rel=1e-15)
    assert nerr_ia(labels, HUGE) == pytest.approx(nerr_ia(labels, 4), rel=1e-15)
    assert calls[0] < 10**5


def test_huge_cutoff_with_alpha_near_zero_uses_the_tail_formula(monkeypatch: Any) -> None:
    import irmetrics.diversity as d

    # with the exact sum cut at 1000 ranks, the rest by the formula equals the
    # sum of every term (math.fsum of exp-decayed terms: the reference)
    monkeypatch.setattr(d, "_EXACT_RANKS", 1000)
    for alpha in (0.0, 1e-7, 1e-4):
        c = math.log1p(-alpha)
        k = 50_000
        dcg_ref = math.fsum(2 * math.exp(c * i) * math.log(2) / math.log(i + 2)
                            for i in range(k))
        err_ref = math.fsum(2 * math.exp(c * i) / (i + 1) for i in range(k))
        got_dcg = d._ideal_ideal(k, alpha, 2, d._dcg_term, d._dcg_slopes)
        got_err = d._ideal_ideal(k, alpha, 2, d._err_term, d._err_slopes)
        assert got_dcg == pytest.approx(dcg_ref, rel=1e-13)
        assert got_err == pytest.approx(err_ref, rel=1e-13)
