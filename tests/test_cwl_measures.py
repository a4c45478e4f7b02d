"""Differential tests of issue 46's measures against their oracles.

Every expected value comes from an oracle: ir_measures' providers (cwl_eval,
compat, accuracy, pytrec_eval) for the measures ir_measures names, and
cwl-eval (its command line, and the same code in-process) for the C/W/L
quantities EU, ETU, EC, ETC, ED and their residuals.  What each oracle
computes, and the names used here, are in tests/data/cwl/ORACLES.md.

Ties.  irmetrics ranks tied scores in trec_eval's order (score descending,
then document id descending, docs/evaluate.md).  The oracles do not:
cwl-eval and ir_measures' cwl_eval and accuracy providers keep the input
order of tied documents (Python's stable sort), ir_measures' compat breaks
them by document id ascending.  So each oracle is given the run ranked in
trec_eval's order with its scores replaced by n, n-1, ..., 1 (no ties left,
every score positive): all rank it as irmetrics does.

The values must agree to 1e-9 per query (the oracles use numpy's sums;
cwl-eval's command line prints 4 decimals, so there the bound is half a unit
of the fourth decimal, and the same code run in-process gives the 1e-9 check).
"""

import io
import json
import math
import random
import shutil
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import pytest
from oracles import ON_CI, require

import irmetrics
from irmetrics import IrmetricsWarning
from irmetrics.cli import _run

DATA = Path(__file__).parent / "data" / "cwl"
TOL = 1e-9
CLI_TOL = 0.5e-4 + 1e-12  # cwl-eval prints "{:.4f}"

Qrels = Dict[str, Dict[str, int]]
Run = Dict[str, Dict[str, float]]
PerQuery = Dict[str, Dict[str, float]]

# cwl-eval's ten columns, in the order it prints them (-r adds the last five).
QUANTITIES = ("EU", "ETU", "EC", "ETC", "ED", "ResEU", "ResETU", "ResEC", "ResETC", "ResED")
ATTRIBUTES = ("expected_utility", "expected_total_utility", "expected_cost",
              "expected_total_cost", "expected_items", "residual_expected_utility",
              "residual_expected_total_utility", "residual_expected_cost",
              "residual_expected_total_cost", "residual_expected_items")


# === Runs, rankings and the two sides of each comparison =====================

def trec_order(scores: Mapping[str, float]) -> List[str]:
    """Document ids by score descending, ties by id descending (UTF-8 bytes)."""
    by_id = sorted(scores, key=lambda doc: doc.encode("utf-8"), reverse=True)
    return sorted(by_id, key=lambda doc: -scores[doc])  # stable: ties keep id order


def ranked(run: Run) -> Run:
    """The run in trec_eval's order, scores n..1: every oracle ranks it so."""
    out: Run = {}
    for qid, scores in run.items():
        order = trec_order(scores)
        out[qid] = {doc: float(len(order) - i) for i, doc in enumerate(order)}
    return out


def irmetrics_values(qrels: Any, run: Any, names: Sequence[str], **options: Any) -> PerQuery:
    """irmetrics' per-query values, through the public evaluate()."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IrmetricsWarning)
        result = irmetrics.evaluate(qrels, run, list(names), **options)
    return {qid: {k: float(v) for k, v in values.items()}
            for qid, values in result.per_query.items()}


def provider_values(provider: str, names: Sequence[str], qrels: Qrels, run: Run) -> PerQuery:
    """One ir_measures provider's per-query values, on the run ranked as irmetrics ranks it."""
    ir_measures = require("ir_measures")
    if provider == "cwl_eval":
        require("cwl")
    import logging

    logging.getLogger("ir_measures.cwl_eval").setLevel(logging.ERROR)  # its gain-range notes
    parsed = {ir_measures.parse_measure(name): name for name in names}
    assert len(parsed) == len(names), "two names for one ir_measures measure"
    out: PerQuery = {}
    for metric in ir_measures.providers.registry[provider].iter_calc(list(parsed), qrels,
                                                                     ranked(run)):
        out.setdefault(metric.query_id, {})[parsed[metric.measure]] = float(metric.value)
    return out


def assert_agree(got: PerQuery, want: PerQuery, tol: float = TOL, *, same_queries: bool = True
                 ) -> int:
    """Every oracle value equals irmetrics' to ``tol``; returns how many were compared."""
    assert want, "the oracle gave no value: nothing was compared"
    if same_queries:
        assert sorted(got) == sorted(want)
    compared = 0
    for qid, values in sorted(want.items()):
        for name, expected in values.items():
            value = got[qid][name]
            assert abs(value - expected) <= tol, (
                f"{name} on query {qid!r}: irmetrics {value!r}, oracle {expected!r}")
            compared += 1
    return compared


# === Random qrels and runs with ties =========================================

def random_case(seed: int, *, n_queries: int = 8, max_label: int = 3, negatives: bool = True,
                long_query: bool = False) -> Tuple[Qrels, Run]:
    """Graded qrels and a run with many tied scores, seeded.

    Query ids q0, q1, ... (``n_queries``); document ids d1..d40 (so that trec_eval's byte order,
    d9 > d40 > d4 > d39, differs from numeric order).  q0 has no relevant
    document; q1 retrieves only unjudged documents; the others judge 8 to 25
    documents with labels 0..max_label (and -1, a document pooled but not
    judged, when ``negatives``) and retrieve 1 to 25 documents, scores drawn
    from six values (one of them negative) so that most rankings have ties.
    With ``long_query``, one more query, q999, retrieves 1003 documents: past cwl-eval's depth of
    1000, which the C/W/L oracles cut at.
    """
    rng = random.Random(seed)
    pool = [f"d{i}" for i in range(1, 41)]
    labels = list(range(max_label + 1)) + ([-1] if negatives else [])
    score_values = [-0.5, 0.0, 1.0, 1.5, 2.0, 3.25]
    qrels: Qrels = {}
    run: Run = {}
    for q in range(n_queries):
        qid = f"q{q}"
        judged = rng.sample(pool, rng.randint(8, 25))
        if q == 0:
            qrels[qid] = {doc: 0 for doc in judged}
        else:
            qrels[qid] = {doc: rng.choice(labels) for doc in judged}
            qrels[qid][judged[0]] = max_label  # at least one relevant document
        if q == 1:
            retrieved = [doc for doc in pool if doc not in qrels[qid]][: rng.randint(1, 10)]
        else:
            retrieved = rng.sample(pool, rng.randint(1, 25))
        run[qid] = {doc: rng.choice(score_values) for doc in retrieved}
    if long_query:
        qrels["q999"] = {f"u{i}": rng.choice(labels[:max_label + 1]) for i in range(0, 1003, 7)}
        run["q999"] = {f"u{i}": float(rng.randint(0, 50)) for i in range(1003)}
    return qrels, run


SEEDS = (11, 22, 33)


# === The measures ir_measures takes from cwl-eval ============================
# ir_measures' cwl_eval provider: labels clipped to [min_rel, max_rel] (negative
# ones to 0 first) and scaled to gains (label - min_rel) / (max_rel - min_rel);
# a document not in the qrels has gain 0; the ranking is cut or padded (gain 0)
# to depth 1000; the value is cwl-eval's expected utility (EU).

CWL_MEASURES = (
    "INST(max_rel=3)",
    "INST(T=3,max_rel=3)",
    "INST(T=0.5,max_rel=1)",
    "INST(T=2,min_rel=1,max_rel=3)",
    "INSQ(max_rel=3)",
    "INSQ(T=2.5,max_rel=3)",
    "INSQ(T=1,max_rel=1)",
    "BPM(max_rel=3)@10",
    "BPM(T=2,max_rel=3)@5",
    "BPM(T=0.5,max_rel=1)@3",
    "BPM(T=1,max_rel=3)@1000",
    "NERR8(max_rel=3)@5",
    "NERR8(max_rel=1)@10",
    "NERR8(max_rel=3)@1",
    "NERR9(max_rel=3)@5",
    "NERR9(max_rel=2)@20",
    "NERR10(max_rel=3)",
    "NERR10(p=0.5,max_rel=3)",
    "NERR10(p=0.8,max_rel=1)",
    "NERR11(max_rel=3)",
    "NERR11(T=2,max_rel=3)",
    "NERR11(T=0.5,min_rel=1,max_rel=2)",
    "SDCG(max_rel=3)@5",
    "SDCG(max_rel=3)@10",
    "SDCG(max_rel=2)@1",
    "SDCG(min_rel=1,max_rel=3)@20",
)


@pytest.mark.parametrize("seed", SEEDS)
def test_cwl_measures_equal_ir_measures_cwl_eval(seed: int) -> None:
    qrels, run = random_case(seed, long_query=(seed == SEEDS[0]))
    want = provider_values("cwl_eval", CWL_MEASURES, qrels, run)
    got = irmetrics_values(qrels, run, CWL_MEASURES)
    assert assert_agree(got, want) == len(want) * len(CWL_MEASURES)


def test_bpm_by_hand() -> None:
    # Labels 0, 1, 1 with max_rel=1: gains 0, 1, 1.  BPM(T=1)@10 continues
    # while the gain so far is below T=1 and the rank below K=10: C1 = 1
    # (gain 0), C2 = 0 (gain 1 >= T).  So the user reads ranks 1 and 2, each
    # with weight 1/2: EU = (0 + 1) / 2 = 0.5, ETU = 1 (total gain at rank 2).
    qrels = {"q": {"a": 0, "b": 1, "c": 1}}
    run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}
    names = ["BPM(T=1,max_rel=1)@10", "BPM(T=1,max_rel=1,quantity=ETU)@10",
             "BPM(T=1,max_rel=1,quantity=ED)@10"]
    got = irmetrics_values(qrels, run, names)["q"]
    assert got[names[0]] == 0.5
    assert got[names[1]] == 1.0
    assert got[names[2]] == 2.0
    assert_agree({"q": {names[0]: got[names[0]]}}, provider_values("cwl_eval", names[:1], qrels, run))


def test_sdcg_by_hand() -> None:
    # Gains 1 and 1/2 (labels 2, 1; max_rel=2), k=2: the discounts 1/log2(2) = 1
    # and 1/log2(3); SDCG@2 = (1 + 0.5 / log2(3)) / (1 + 1 / log2(3)) = 0.80690...
    qrels = {"q": {"a": 2, "b": 1}}
    run = {"q": {"a": 2.0, "b": 1.0}}
    got = irmetrics_values(qrels, run, ["SDCG(max_rel=2)@2"])["q"]["SDCG(max_rel=2)@2"]
    expected = (1 + 0.5 / math.log2(3)) / (1 + 1 / math.log2(3))
    assert abs(got - expected) <= TOL


# === Compat, Accuracy, SetAP, SetP(relative=True) ============================

COMPAT_MEASURES = ("Compat", "Compat(p=0.8)", "Compat(p=0.5,normalize=True)",
                   "Compat(p=0.95,normalize=False)")


@pytest.mark.parametrize("seed", SEEDS)
def test_compat_equals_ir_measures_compat(seed: int) -> None:
    qrels, run = random_case(seed)
    want = provider_values("compat", COMPAT_MEASURES, qrels, run)
    got = irmetrics_values(qrels, run, COMPAT_MEASURES)
    assert assert_agree(got, want) == len(want) * len(COMPAT_MEASURES)


def test_compat_name_with_its_default() -> None:
    # ir_measures drops p=0.95, the default: "Compat(p=0.95)" is "Compat".
    qrels, run = random_case(SEEDS[0])
    got = irmetrics_values(qrels, run, ["Compat(p=0.95)", "Compat"])
    assert all(v["Compat(p=0.95)"] == v["Compat"] for v in got.values())


ACCURACY_MEASURES = ("Accuracy", "Accuracy@3", "Accuracy@5", "Accuracy(rel=2)@10")


def accuracy_oracle(qrels: Qrels, run: Run) -> Tuple[PerQuery, List[Tuple[str, str]]]:
    """ir_measures' accuracy provider, query by query.

    It reports nothing for a query with no relevant document in the top k, and
    divides by zero for one whose top k has no non-relevant document; those
    (query, measure) pairs are returned apart, irmetrics' own decision
    (tests/data/cwl/ORACLES.md).
    """
    out: PerQuery = {}
    undefined: List[Tuple[str, str]] = []
    for qid in run:
        for name in ACCURACY_MEASURES:
            try:
                values = provider_values("accuracy", [name], {qid: qrels[qid]}, {qid: run[qid]})
            except ZeroDivisionError:
                undefined.append((qid, name))
                continue
            if values:
                out.setdefault(qid, {}).update(values[qid])
            else:
                undefined.append((qid, name))
    return out, undefined


@pytest.mark.parametrize("seed", SEEDS)
def test_accuracy_equals_ir_measures_accuracy(seed: int) -> None:
    qrels, run = random_case(seed, n_queries=20)
    want, undefined = accuracy_oracle(qrels, run)
    got = irmetrics_values(qrels, run, ACCURACY_MEASURES)
    compared = assert_agree(got, want, same_queries=False)
    assert compared + len(undefined) == len(run) * len(ACCURACY_MEASURES)
    assert compared >= len(undefined)  # the comparison covers most of the sample


SET_MEASURES = ("SetAP", "SetAP(rel=2)", "SetP(relative=True)", "SetP(rel=2,relative=True)",
                "SetRelP")


@pytest.mark.parametrize("seed", SEEDS)
def test_set_measures_equal_ir_measures_pytrec_eval(seed: int) -> None:
    qrels, run = random_case(seed)
    want = provider_values("pytrec_eval", SET_MEASURES[:-1], qrels, run)
    got = irmetrics_values(qrels, run, SET_MEASURES)
    assert assert_agree(got, want) == len(want) * (len(SET_MEASURES) - 1)
    # SetRelP is ir_measures' registered alias of SetP(relative=True).
    assert all(v["SetRelP"] == v["SetP(relative=True)"] for v in got.values())


def test_ties_are_broken_as_irmetrics_ranks() -> None:
    # The oracles' input order is irmetrics' ranking (the premise of every test here).
    qrels, run = random_case(SEEDS[1])
    for qid, scores in run.items():
        assert list(ranked(run)[qid]) == irmetrics.Run(run).ranking(qid)
        assert trec_order(scores) == irmetrics.Run(run).ranking(qid)


# === The C/W/L quantities against cwl-eval ===================================
# A spec: the irmetrics name (EU; the other quantities add quantity=...), the
# cwl-eval class and its arguments, and whether its gains are graded (label /
# max_rel) or binary (label >= rel: RBP, which irmetrics computes on binary
# relevance).


class Spec:
    def __init__(self, name: str, cls: str, args: Tuple[Any, ...], binary: bool = False):
        self.name, self.cls, self.args, self.binary = name, cls, args, binary

    def metric_line(self) -> str:  # a line of cwl-eval's -m file; "1.0" is a float, "1" an int
        return f"{self.cls}({','.join(repr(a) for a in self.args)})"

    def metric(self) -> Any:
        from cwl.ruler import cwl_ruler

        return getattr(cwl_ruler, self.cls)(*self.args)

    def __repr__(self) -> str:
        return self.name


def with_quantity(name: str, quantity: str) -> str:
    """'INST(T=1,max_rel=5)' -> 'INST(T=1,max_rel=5,quantity=ETU)'; EU is the name itself."""
    if quantity == "EU":
        return name
    head, at, cutoff = name.partition("@")
    if head.endswith(")"):
        head = f"{head[:-1]},quantity={quantity})"
    else:
        head = f"{head}(quantity={quantity})"
    return head + at + cutoff


def specs_for(max_rel: int) -> List[Spec]:
    m = max_rel
    return [
        Spec(f"INST(T=1,max_rel={m})", "INSTCWLMetric", (1.0,)),
        Spec(f"INST(T=2.5,max_rel={m})", "INSTCWLMetric", (2.5,)),
        Spec(f"INSQ(T=1,max_rel={m})", "INSQCWLMetric", (1.0,)),
        Spec(f"BPM(T=1,max_rel={m})@1000", "BPMCWLMetric", (1.0, 1000)),
        Spec(f"BPM(T=1000,max_rel={m})@10", "BPMCWLMetric", (1000.0, 10)),
        Spec(f"BPM(T=1.2,max_rel={m})@10", "BPMCWLMetric", (1.2, 10)),
        Spec(f"SDCG(max_rel={m})@10", "NDCGCWLMetric", (10,)),
        Spec(f"NERR8(max_rel={m})@5", "NERReq8CWLMetric", (5,)),
        Spec(f"NERR9(max_rel={m})@10", "NERReq9CWLMetric", (10,)),
        Spec(f"NERR10(p=0.9,max_rel={m})", "NERReq10CWLMetric", (0.9,)),
        Spec(f"NERR11(T=2,max_rel={m})", "NERReq11CWLMetric", (2.0,)),
        Spec(f"TBG(H=22,max_rel={m})", "TBGCWLMetric", (22,)),
        Spec(f"TBG(max_rel={m})", "TBGCWLMetric", (224,)),
        Spec(f"UMeasure(L=50,max_rel={m})", "UMeasureCWLMetric", (50,)),
        Spec(f"UMeasure(L=10,max_rel={m})", "UMeasureCWLMetric", (10,)),
        Spec(f"UMeasure(max_rel={m})", "UMeasureCWLMetric", (1000,)),
        Spec("RBP(p=0.9)", "RBPCWLMetric", (0.9,), binary=True),
        Spec("RBP", "RBPCWLMetric", (0.8,), binary=True),
        Spec("RBP(p=0.5,rel=2)", "RBPCWLMetric", (0.5,), binary=True),
    ]


class CwlFiles:
    """cwl-eval's inputs for one case: a gain file per kind of gain, a result file, costs."""

    def __init__(self, directory: Path, qrels: Qrels, run: Run, max_rel: int,
                 element_types: Dict[Tuple[str, str], str], costs: Optional[Dict[str, float]]):
        self.dir, self.qrels, self.run, self.max_rel = directory, qrels, run, max_rel
        self.result = directory / "result_file"
        with open(self.result, "w") as out:
            for qid in sorted(run):
                for rank, doc in enumerate(trec_order(run[qid]), 1):
                    out.write(f"{qid} {element_types[qid, doc]} {doc} {rank} {run[qid][doc]!r} R\n")
        self.cost = None
        if costs is not None:
            self.cost = directory / "cost_file"
            self.cost.write_text("".join(f"{t} {c!r}\n" for t, c in costs.items()))
        # irmetrics' costs: per document, from its element type; a type the
        # cost file lacks costs 1.0, cwl-eval's --min_cost and --max_cost.
        self.doc_costs = None
        if costs is not None:
            self.doc_costs = {qid: {doc: costs[element_types[qid, doc]] for doc in docs
                                    if element_types[qid, doc] in costs}
                              for qid, docs in run.items()}

    def gain_file(self, spec: Spec) -> Path:
        if spec.binary:
            rel = int(spec.name.split("rel=")[1].split(")")[0]) if "rel=" in spec.name else 1
            path = self.dir / f"binary_gains_{rel}"
            gain = lambda label: 1.0 if label >= rel else 0.0  # noqa: E731
        else:
            path = self.dir / f"gains_{self.max_rel}"
            gain = lambda label: max(label, 0) / self.max_rel  # noqa: E731
        if not path.exists():
            path.write_text("".join(f"{qid} 0 {doc} {gain(label)!r}\n"
                                    for qid, docs in self.qrels.items()
                                    for doc, label in docs.items()))
        return path

    def groups(self, specs: Sequence[Spec]) -> Dict[Path, List[Spec]]:
        out: Dict[Path, List[Spec]] = {}
        for spec in specs:
            out.setdefault(self.gain_file(spec), []).append(spec)
        return out


def cwl_in_process(files: CwlFiles, specs: Sequence[Spec]) -> PerQuery:
    """cwl-eval's main() without its printing: the same reading, ranking and measuring."""
    require("cwl")
    from cwl.cwl_eval import read_in_cost_file
    from cwl.ruler.ranking import RankingMaker
    from cwl.seeker.trec_qrel_handler import TrecQrelHandler

    costs = read_in_cost_file(str(files.cost)) if files.cost else None
    out: PerQuery = {}
    for gain_path, group in files.groups(specs).items():
        qrh = TrecQrelHandler(str(gain_path))
        qrh.validate_gains(min_gain=0.0, max_gain=1.0)
        topics: Dict[str, List[Tuple[str, str]]] = {}
        for line in files.result.read_text().splitlines():
            topic, element_type, doc, _rank, _score, _tag = line.split()
            topics.setdefault(topic, []).append((doc, element_type))
        for topic, items in topics.items():
            maker = RankingMaker(topic, qrh, costs, max_gain=1.0, max_cost=1.0, min_cost=1.0,
                                 max_n=1000)
            for doc, element_type in items:
                maker.add(doc, element_type)
            ranking = maker.get_ranking()
            for spec in group:
                metric = spec.metric()
                metric.residuals = True
                metric.measure(ranking)
                for quantity, attribute in zip(QUANTITIES, ATTRIBUTES):
                    out.setdefault(topic, {})[with_quantity(spec.name, quantity)] = float(
                        getattr(metric, attribute))
    return out


def cwl_command_line(files: CwlFiles, specs: Sequence[Spec]) -> PerQuery:
    """cwl-eval's command line (-r: residuals), one run per gain file; its 4-decimal output."""
    script = shutil.which("cwl-eval", path=str(Path(sys.executable).parent)) or shutil.which(
        "cwl-eval")
    if script is None:
        if ON_CI:
            pytest.fail("cwl-eval's command line is required when CI=true")
        pytest.skip("cwl-eval's command line not installed")
    out: PerQuery = {}
    for gain_path, group in files.groups(specs).items():
        metrics_file = files.dir / "metrics_file"
        metrics_file.write_text("".join(spec.metric_line() + "\n" for spec in group))
        command = [sys.executable, script, str(gain_path), str(files.result), "-m",
                   str(metrics_file), "-r"]
        if files.cost:
            command += ["-c", str(files.cost)]
        # cwl-eval writes cwl.log in its working directory.
        done = subprocess.run(command, cwd=files.dir, capture_output=True, text=True,
                              timeout=120, check=True)
        rows = [line.split("\t") for line in done.stdout.splitlines()]
        by_topic: Dict[str, List[List[str]]] = {}
        for row in rows:
            by_topic.setdefault(row[0], []).append(row)
        for topic, topic_rows in by_topic.items():
            assert len(topic_rows) == len(group)  # one row per metric, in the file's order
            for spec, row in zip(group, topic_rows):
                assert row[1].strip() == spec.metric().name().strip()  # the metric we asked for
                for quantity, text in zip(QUANTITIES, row[2:]):
                    out.setdefault(topic, {})[with_quantity(spec.name, quantity)] = float(text)
    return out


def irmetrics_command_line(files: CwlFiles, names: Sequence[str]) -> PerQuery:
    """irmetrics' command line on cwl-eval's result file, with its cost file
    given as --cost-file: the per-query values of its JSON."""
    qrels = files.dir / "qrels"
    qrels.write_text("".join(f"{qid} 0 {doc} {label}\n" for qid, docs in files.qrels.items()
                             for doc, label in docs.items()))
    argv = [a for name in names for a in ("-m", name)] + ["-q", "-n", "--format", "json"]
    if files.cost is not None:
        argv += ["--cost-file", str(files.cost)]
    out, err = io.StringIO(), io.StringIO()
    assert _run(argv + [str(qrels), str(files.result)], out, err) == 0, err.getvalue()
    data = json.loads(out.getvalue())
    given = dict(zip(data["measures"], names))  # the command line prints names canonical
    return {qid: {given[k]: float(v) for k, v in values.items()}
            for qid, values in data["per_query"].items()}


def all_names(specs: Sequence[Spec]) -> List[str]:
    return [with_quantity(spec.name, q) for spec in specs for q in QUANTITIES]


# --- cwl-eval's own example files (tests/data/cwl, from the ireval/cwl repository)

def example_files(directory: Path, with_costs: bool) -> CwlFiles:
    """cwl-eval's examples as a CwlFiles: gains 0, 0.2, ..., 1 are labels 0..5 over max_rel=5."""
    qrels: Qrels = {}
    for line in (DATA / "gain_file").read_text().splitlines():
        topic, _, doc, gain = line.split()
        label = round(float(gain) * 5)
        assert label / 5 == float(gain)  # the same double cwl-eval reads
        qrels.setdefault(topic, {})[doc] = label
    binary = {(t, d): int(g) for t, _, d, g in
              (line.split() for line in (DATA / "qrel_file").read_text().splitlines())}
    assert binary == {(t, d): int(label >= 1) for t, docs in qrels.items()
                      for d, label in docs.items()}  # qrel_file is gain_file's label >= 1
    run: Run = {}
    element_types: Dict[Tuple[str, str], str] = {}
    for line in (DATA / "result_file").read_text().splitlines():
        topic, element_type, doc, _rank, score, _tag = line.split()
        run.setdefault(topic, {})[doc] = float(score)
        element_types[topic, doc] = element_type
    for scores in run.values():  # no ties: file order is score order
        assert list(scores) == trec_order(scores)
    costs = None
    if with_costs:
        costs = {t: float(c) for t, c in
                 (line.split() for line in (DATA / "cost_file").read_text().splitlines())}
    return CwlFiles(directory, qrels, run, 5, element_types, costs)


def irmetrics_cwl_values(files: CwlFiles, names: Sequence[str]) -> PerQuery:
    options = {} if files.doc_costs is None else {"costs": files.doc_costs}
    return irmetrics_values(files.qrels, files.run, names, **options)


@pytest.mark.parametrize("with_costs", [False, True], ids=["unit-costs", "cost-file"])
def test_cwl_examples_in_process(tmp_path: Path, with_costs: bool) -> None:
    files = example_files(tmp_path, with_costs)
    specs = specs_for(5)
    want = cwl_in_process(files, specs)
    got = irmetrics_cwl_values(files, all_names(specs))
    assert assert_agree(got, want) == 3 * len(specs) * len(QUANTITIES)


@pytest.mark.slow
@pytest.mark.parametrize("with_costs", [False, True], ids=["unit-costs", "cost-file"])
def test_cwl_examples_command_line(tmp_path: Path, with_costs: bool) -> None:
    files = example_files(tmp_path, with_costs)
    specs = specs_for(5)
    want = cwl_command_line(files, specs)
    # The in-process replica is cwl-eval's command line, to its 4 decimals.
    assert_agree(cwl_in_process(files, specs), want, CLI_TOL)
    got = irmetrics_cwl_values(files, all_names(specs))
    assert assert_agree(got, want, CLI_TOL) == 3 * len(specs) * len(QUANTITIES)
    # and irmetrics' command line, given the same result and cost files
    got = irmetrics_command_line(files, all_names(specs))
    assert assert_agree(got, want, CLI_TOL) == 3 * len(specs) * len(QUANTITIES)


# --- random pairs

def random_cwl_files(directory: Path, seed: int, with_costs: bool) -> CwlFiles:
    """A random case as cwl-eval's files: gains label / 3 (cwl-eval refuses a
    negative gain, so no -1 labels), element types E1..E4 and, with costs,
    a cost file that prices E1..E3 (E4 is missing: cost 1.0)."""
    qrels, run = random_case(seed, negatives=False)
    rng = random.Random(seed + 1)
    element_types = {(qid, doc): rng.choice(["E1", "E2", "E3", "E4"])
                     for qid, docs in run.items() for doc in docs}
    costs = {"E1": 0.5, "E2": 1.0, "E3": rng.choice([2.0, 3.5, 7.25])} if with_costs else None
    return CwlFiles(directory, qrels, run, 3, element_types, costs)


@pytest.mark.parametrize("seed", SEEDS[:2])
@pytest.mark.parametrize("with_costs", [False, True], ids=["unit-costs", "cost-file"])
def test_cwl_random_pairs_in_process(tmp_path: Path, seed: int, with_costs: bool) -> None:
    files = random_cwl_files(tmp_path, seed, with_costs)
    specs = specs_for(3)
    want = cwl_in_process(files, specs)
    got = irmetrics_cwl_values(files, all_names(specs))
    assert assert_agree(got, want) == len(files.run) * len(specs) * len(QUANTITIES)


@pytest.mark.slow
def test_cwl_random_pairs_command_line(tmp_path: Path) -> None:
    # (without costs, the examples' test runs the command line)
    files = random_cwl_files(tmp_path, SEEDS[2], with_costs=True)
    specs = specs_for(3)
    want = cwl_command_line(files, specs)
    got = irmetrics_cwl_values(files, all_names(specs))
    assert assert_agree(got, want, CLI_TOL) == len(files.run) * len(specs) * len(QUANTITIES)
    got = irmetrics_command_line(files, all_names(specs))
    assert assert_agree(got, want, CLI_TOL) == len(files.run) * len(specs) * len(QUANTITIES)


@pytest.mark.parametrize("seed", SEEDS[:2])
def test_cost_file_on_the_command_line(tmp_path: Path, seed: int) -> None:
    # --cost-file reads cwl-eval's cost file and the result file's element
    # types: irmetrics' command line equals cwl-eval (in-process, reading the
    # same files with its own read_in_cost_file) to 1e-9
    files = random_cwl_files(tmp_path, seed, with_costs=True)
    specs = specs_for(3)
    want = cwl_in_process(files, specs)
    got = irmetrics_command_line(files, all_names(specs))
    assert assert_agree(got, want) == len(files.run) * len(specs) * len(QUANTITIES)


def test_cwl_eu_is_ir_measures_value() -> None:
    # quantity=EU, the default, is the measure's plain value, and ir_measures' value.
    qrels, run = random_case(SEEDS[2], negatives=False)
    names = ["INST(T=2,max_rel=3)", "NERR10(p=0.5,max_rel=3)", "SDCG(max_rel=3)@5"]
    explicit = ["INST(T=2,max_rel=3,quantity=EU)", "NERR10(p=0.5,max_rel=3,quantity=EU)",
                "SDCG(max_rel=3,quantity=EU)@5"]
    got = irmetrics_values(qrels, run, names + explicit)
    assert_agree(got, provider_values("cwl_eval", names, qrels, run))
    for values in got.values():
        assert [values[n] for n in names] == [values[n] for n in explicit]


def test_rbp_residual_is_cwl_evals(tmp_path: Path) -> None:
    # RBP's residual: the weight of the unjudged ranks and of those past the
    # ranking's end down to depth 1000, each counted at gain 1.
    qrels, run = random_case(SEEDS[1], negatives=False)
    files = CwlFiles(tmp_path, qrels, run, 3,
                     {(q, d): "Q0" for q, docs in run.items() for d in docs}, None)
    specs = [Spec("RBP(p=0.8)", "RBPCWLMetric", (0.8,), binary=True),
             Spec("RBP(p=0.95,rel=3)", "RBPCWLMetric", (0.95,), binary=True)]
    want = cwl_in_process(files, specs)
    names = [with_quantity(s.name, "ResEU") for s in specs] + [s.name for s in specs]
    got = irmetrics_values(qrels, run, names)
    assert_agree(got, {q: {n: v[n] for n in names} for q, v in want.items()})
    for values in got.values():  # RBP's weights do not depend on the gains
        assert values["RBP(p=0.8,quantity=ResEU)"] >= 0.0

