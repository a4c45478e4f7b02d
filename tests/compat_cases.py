"""Random qrels and runs as dicts, for the tests of issue 45's compatibility layers.

Shared by ``test_compat_pytrec_eval.py`` and ``test_ir_measures_provider.py``.
Seeded ``random`` rather than hypothesis: each test compares many measure sets
on the same inputs, and a seed names a failing case in one number.

The generated inputs reach:

* ties (scores from a small set), broken by document id in byte order
  (ids such as 'd1' < 'd10' < 'd2', upper case, non-ASCII);
* scores that differ only beyond single precision (``1.0`` and
  ``1.0 + 1e-9``): pytrec_eval stores scores as C floats, so they tie;
* graded labels 0..4, negative labels (-1), unjudged retrieved documents;
* queries only in the qrels, queries only in the run, a qrels query with no
  judgment at all (``{}``, which pytrec_eval drops).

With ``safe=True`` (the default) nothing is generated that makes
pytrec-eval-terrier corrupt memory (see ``test_compat_pytrec_eval``'s
docstring): every query of both sides has a non-empty ranking, and no query's
judgments are all negative.  ``safe=False`` adds empty rankings and
all-negative queries, for the measure sets known to survive them.
"""

import random
from typing import Dict, Tuple

Qrels = Dict[str, Dict[str, int]]
RunDict = Dict[str, Dict[str, float]]

QUERY_IDS = ("q1", "q2", "q10", "Q3", "301", "é", "q 7")
TRICKY_DOC_IDS = ("d1", "d10", "d2", "D1", "d", "d1a", "é", "e", "0", "00", "9", "\u4e2d")
DOC_IDS = TRICKY_DOC_IDS + tuple(f"x{i:02d}" for i in range(40))
TIE_SCORES = (-1.5, 0.0, 0.25, 0.5, 1.0, 2.0, 3.0)


def _score(rng: random.Random) -> float:
    kind = rng.random()
    if kind < 0.5:
        return rng.choice(TIE_SCORES)
    if kind < 0.7:  # equal to a tie score in single precision, not in double
        return rng.choice(TIE_SCORES) + rng.choice((1e-9, -1e-9, 3e-10))
    if kind < 0.8:
        return float(rng.randint(-3, 3))
    return rng.uniform(-10.0, 10.0)  # a double, rounded to float32 by the oracle


def random_case(seed: int, *, safe: bool = True) -> Tuple[Qrels, RunDict]:
    """``(qrels, run)`` for *seed*: at least one query on both sides."""
    rng = random.Random(seed)
    qids = list(QUERY_IDS)
    rng.shuffle(qids)
    n_both = rng.randint(1, 3)
    both, rest = qids[:n_both], qids[n_both:]
    qrels: Qrels = {}
    run: RunDict = {}
    for qid in both:
        labels = rng.choice(((-1, 0, 1, 2, 3, 4), (0, 1), (0, 0, 0, 1), (-1, 0), (0, 2, 4)))
        size = rng.choice((1, 2, 3, 5, 8, 13, 20))
        pool = TRICKY_DOC_IDS if rng.random() < 0.3 else DOC_IDS
        judged = {d: rng.choice(labels) for d in rng.sample(pool, min(size, len(pool)))}
        if safe and all(v < 0 for v in judged.values()):
            judged[next(iter(judged))] = 0
        qrels[qid] = judged
        n = rng.choice((1, 2, 3, 5, 8, 13, 20, 30))
        candidates = list(judged) + list(pool)
        docs = []
        for d in rng.sample(candidates, min(n, len(candidates))):
            if d not in docs:
                docs.append(d)
        run[qid] = {d: _score(rng) for d in docs}
    if rest and rng.random() < 0.5:  # a query only in the qrels
        qrels[rest.pop()] = {rng.choice(DOC_IDS): rng.choice((0, 1, 2))}
    if rest and rng.random() < 0.4:  # a query only in the run
        run[rest.pop()] = {d: _score(rng) for d in rng.sample(DOC_IDS, 3)}
    if rest and rng.random() < 0.2:  # a qrels query with no judgment
        qrels[rest.pop()] = {}
    if not safe:
        target = rng.choice(both)
        if rng.random() < 0.5:
            run[target] = {}
        else:
            qrels[target] = {d: -1 for d in qrels[target]}
    return qrels, run
