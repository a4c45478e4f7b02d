"""The ir_measures provider ``irmetrics`` against ir_measures' pytrec_eval provider (issue 45).

How ir_measures (0.4.3, read in site-packages) finds and orders providers:

* ``ir_measures.providers.registry`` is a plain dict, provider name to
  provider instance; ``ir_measures.providers.register(provider)`` stores
  ``registry[provider.NAME] = provider``.  There is no entry point and no
  plugin discovery: a provider exists once the module that calls
  ``register`` has been imported.
* The module-level functions (``ir_measures.iter_calc``, ``calc_aggregate``,
  ``calc``, ``evaluator``) belong to ``ir_measures.DefaultPipeline``, a
  ``FallbackProvider`` over a list fixed when ``ir_measures`` is imported:
  runtime, pytrec_eval, cwl_eval, compat, pyndeval, judged, msmarco, gdeval,
  accuracy, ranx.  For each provider in that order it takes the measures the
  provider ``supports()`` (and ``is_available()``); a provider registered
  later is never in it.  So with pytrec_eval installed the default pipeline
  always computes trec_eval's measures with pytrec_eval.
* What a user must do today to compute with irmetrics: ``import
  irmetrics.ir_measures`` (registers it), then call the provider itself,
  ``ir_measures.providers.registry["irmetrics"].calc_aggregate(measures,
  qrels, run)`` (or ``.iter_calc``, ``.calc``, ``.evaluator``), or build a
  pipeline, ``ir_measures.providers.FallbackProvider([registry["irmetrics"],
  ir_measures.DefaultPipeline])``.  What would remove that step upstream:
  a ``provider=`` argument on the module-level functions, or providers
  discovered through an entry point group and placed in DefaultPipeline.
* ``Provider.supports(measure)`` compares the measure's name and each
  parameter against the provider's ``SUPPORTED_MEASURES`` templates
  (``Any()``, ``Choices(...)``); ``Evaluator.iter_calc`` adds
  ``measure.DEFAULT`` (0.0) for each qrels query the run lacks, after the
  computed values, sorted by (measure, query id).
* The pytrec_eval provider passes the scores to pytrec_eval, which stores
  them as C floats: single precision, so the irmetrics provider must read
  them so.  It yields, per pytrec_eval invocation (one per relevance level
  and judged-only setting), the queries in the run's order; ``MeanAgg`` adds
  the values in the order yielded, so equal aggregates to the last bit need
  the same order of queries.

The measures compared are every concrete instance of the pytrec_eval
provider's ``SUPPORTED_MEASURES`` templates over a grid of parameters (cutoffs,
rel, judged_only, gains, beta, recall levels) that provider supports.

Until issue 45's module lands this file is skipped (the one line marked
below); the lead removes that line, after which the provider's absence fails.
"""

import itertools
import math
from typing import Any, Dict, List, Tuple

import pytest
from compat_cases import random_case
from oracles import require

ir_measures = require("ir_measures")
require("pytrec_eval")


from ir_measures import providers  # noqa: E402
from ir_measures.providers.base import NOT_PROVIDED  # noqa: E402

import irmetrics.ir_measures  # noqa: E402,F401  (registers the provider)

ORACLE = providers.registry["pytrec_eval"]

#: trec_eval's 0/0 cells (test_compat_pytrec_eval.NAN_MAY_BE_ZERO).
NAN_MAY_BE_ZERO = False

GRID: Dict[str, Tuple[Any, ...]] = {
    "cutoff": (NOT_PROVIDED, 1, 3, 10, 100),
    "rel": (NOT_PROVIDED, 1, 2),
    "judged_only": (NOT_PROVIDED, False, True),
    "dcg": ("log2",),
    "gains": (NOT_PROVIDED, {0: 0, 1: 1, 2: 3, 3: 7, 4: 15}),
    "beta": (1.0, 0.5, 2.0),
    "relative": (False, True),
    "recall": (0.0, 0.1, 0.25, 0.5, 1.0),
}


def oracle_measures() -> List[Any]:
    """Every concrete measure over GRID the pytrec_eval provider supports."""
    found: Dict[str, Any] = {}
    for template in ORACLE.SUPPORTED_MEASURES:
        names = sorted(template.params)
        for values in itertools.product(*(GRID[n] for n in names)):
            params = {n: v for n, v in zip(names, values) if v is not NOT_PROVIDED}
            measure = type(template)()(**params)
            try:
                if not ORACLE.supports(measure):
                    continue
            except (AssertionError, ValueError, TypeError, KeyError):  # (validate_params asserts)
                continue
            found.setdefault(str(measure), measure)
    return [found[k] for k in sorted(found)]


MEASURES = oracle_measures()


@pytest.fixture(scope="module")
def provider() -> Any:
    return providers.registry["irmetrics"]


def test_importing_the_module_registers_the_provider(provider: Any) -> None:
    assert provider.NAME == "irmetrics"
    assert isinstance(provider, providers.Provider)
    assert provider.is_available()


def test_the_measure_list_covers_every_template() -> None:
    # Each of the pytrec_eval provider's templates gave at least one measure,
    # and the grid reached the parameters that change the invocation.
    assert {m.NAME for m in MEASURES} == {t.NAME for t in ORACLE.SUPPORTED_MEASURES}
    assert len(MEASURES) > 100
    text = " ".join(map(str, MEASURES))
    for piece in ("rel=2", "judged_only=True", "gains=", "beta=0.5", "IPrec@0.25"):
        assert piece in text, piece


def test_the_provider_supports_every_measure_pytrec_eval_does(provider: Any) -> None:
    missing = [str(m) for m in MEASURES if not provider.supports(m)]
    assert not missing


def _same(mine: Any, theirs: Any) -> bool:
    mine, theirs = float(mine), float(theirs)
    if math.isnan(theirs):
        return math.isnan(mine) or (NAN_MAY_BE_ZERO and mine == 0.0)
    return mine == theirs and math.copysign(1.0, mine) == math.copysign(1.0, theirs)


def _by_key(metrics: Any) -> Dict[Tuple[str, str], float]:
    out: Dict[Tuple[str, str], float] = {}
    for metric in metrics:
        key = (metric.query_id, str(metric.measure))
        assert key not in out, f"{key} given twice"
        out[key] = metric.value
    return out


def _assert_same(mine: Dict[Any, Any], theirs: Dict[Any, Any], context: str) -> None:
    assert sorted(mine) == sorted(theirs), context
    diffs = [(k, mine[k], v) for k, v in theirs.items() if not _same(mine[k], v)]
    assert not diffs, f"{context}: (key, irmetrics, pytrec_eval) {diffs[:10]}"


@pytest.mark.parametrize("seed", range(12))
def test_iter_calc_equals_the_pytrec_eval_provider(provider: Any, seed: int) -> None:
    qrels, run = random_case(seed)
    theirs = _by_key(ORACLE.iter_calc(MEASURES, qrels, run))
    mine = _by_key(provider.iter_calc(MEASURES, qrels, run))
    _assert_same(mine, theirs, f"seed {seed}")


@pytest.mark.parametrize("seed", range(12))
def test_calc_aggregate_equals_the_pytrec_eval_provider(provider: Any, seed: int) -> None:
    qrels, run = random_case(seed)
    theirs = {str(m): v for m, v in ORACLE.calc_aggregate(MEASURES, qrels, run).items()}
    mine = {str(m): v for m, v in provider.calc_aggregate(MEASURES, qrels, run).items()}
    _assert_same(mine, theirs, f"seed {seed}")


def _many_queries(seed: int) -> Tuple[Dict[str, Dict[str, int]], Dict[str, Dict[str, float]]]:
    """About 40 queries: enough for the order of additions to change a mean."""
    qrels: Dict[str, Dict[str, int]] = {}
    run: Dict[str, Dict[str, float]] = {}
    for i in range(20):
        q, r = random_case(seed * 1000 + i)
        qrels.update({f"{i}-{k}": v for k, v in q.items()})
        run.update({f"{i}-{k}": v for k, v in r.items()})
    return qrels, run


@pytest.mark.parametrize("seed", range(3))
def test_calc_aggregate_over_many_queries(provider: Any, seed: int) -> None:
    # MeanAgg adds in the order iter_calc yields: equal to the last bit only
    # if the provider yields the queries in pytrec_eval's order.
    qrels, run = _many_queries(seed)
    theirs = {str(m): v for m, v in ORACLE.calc_aggregate(MEASURES, qrels, run).items()}
    mine = {str(m): v for m, v in provider.calc_aggregate(MEASURES, qrels, run).items()}
    _assert_same(mine, theirs, f"seed {seed}")


def test_one_measure_at_a_time(provider: Any) -> None:
    # A measure alone takes another invocation of pytrec_eval than in the
    # crowd (the provider groups them by rel and judged_only).
    for seed in range(3):
        qrels, run = random_case(seed)
        for measure in MEASURES:
            theirs = _by_key(ORACLE.iter_calc([measure], qrels, run))
            mine = _by_key(provider.iter_calc([measure], qrels, run))
            _assert_same(mine, theirs, f"seed {seed}, {measure}")


def test_single_precision_scores(provider: Any) -> None:
    # 'a' (relevant) above 'b' in double precision, tied in single precision,
    # where 'b' > 'a' goes first.
    qrels = {"q": {"a": 1, "b": 0}}
    apart = {"q": {"a": 1.0 + 1e-9, "b": 1.0}}
    tied = {"q": {"a": 1.0, "b": 1.0}}
    measures = [ir_measures.AP, ir_measures.RR, ir_measures.P @ 1, ir_measures.nDCG]
    theirs = _by_key(ORACLE.iter_calc(measures, qrels, apart))
    assert theirs == _by_key(ORACLE.iter_calc(measures, qrels, tied))  # the oracle ties them
    _assert_same(_by_key(provider.iter_calc(measures, qrels, apart)), theirs, "apart")


def test_evaluator_serves_several_runs(provider: Any) -> None:
    qrels, _ = random_case(20)
    mine = provider.evaluator(MEASURES, qrels)
    theirs = ORACLE.evaluator(MEASURES, qrels)
    for seed in (20, 21, 22):
        _, run = random_case(seed)
        _assert_same(_by_key(mine.iter_calc(run)), _by_key(theirs.iter_calc(run)), str(seed))


def test_ir_measures_records_and_parsed_measures(provider: Any) -> None:
    # The other input forms ir_measures takes: Qrel and ScoredDoc records,
    # measures parsed from their names.
    qrels, run = random_case(5)
    qrel_records = [ir_measures.Qrel(q, d, r) for q, docs in qrels.items() for d, r in docs.items()]
    run_records = [ir_measures.ScoredDoc(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    measures = [ir_measures.parse_measure(n) for n in
                ("nDCG@10", "AP", "P(rel=2)@5", "R@100", "RR", "Bpref",
                 "SetF(beta=0.5)", "IPrec@0.3", "NumRet(rel=1)", "infAP")]
    _assert_same(_by_key(provider.iter_calc(measures, qrel_records, run_records)),
                 _by_key(ORACLE.iter_calc(measures, qrel_records, run_records)), "records")


INSTALLED_CHILD = '''
import json, sys
from irmetrics.compat import pytrec_eval as drop
drop.install()
import ir_measures
qrels, run = json.loads(sys.stdin.read())
measures = [ir_measures.parse_measure(n) for n in sys.argv[1:]]
values = {str(m): v for m, v in ir_measures.calc_aggregate(measures, qrels, run).items()}
assert ir_measures.pytrec_eval.pytrec_eval is drop
print(json.dumps(values))
'''


@pytest.mark.slow
def test_install_routes_the_default_pipeline_through_the_drop_in() -> None:
    # Code that calls ir_measures' module-level functions (DefaultPipeline)
    # gets irmetrics through ir_measures' own pytrec_eval provider once
    # install() ran before its first evaluation, with the same values.
    import json
    import os
    import subprocess
    import sys
    qrels, run = _many_queries(4)
    names = ["nDCG@10", "AP", "P(rel=2)@5", "R@100", "RR", "Bpref", "IPrec@0.0",
             "nDCG(judged_only=True)@10"]
    measures = [ir_measures.parse_measure(n) for n in names]
    theirs = {str(m): v for m, v in ir_measures.calc_aggregate(measures, qrels, run).items()}
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    done = subprocess.run([sys.executable, "-c", INSTALLED_CHILD, *names], env=env,
                          input=json.dumps([qrels, run]), capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    _assert_same(json.loads(done.stdout), theirs, "installed")
