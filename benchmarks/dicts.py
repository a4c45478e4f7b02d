"""``evaluate()`` from dicts against pytrec_eval, the way their users call them.

    python benchmarks/dicts.py                            # this checkout
    python benchmarks/dicts.py --tree OLD --tree .        # side by side
    python benchmarks/dicts.py --shape msmarco --scale 0.25

The qrels and the run are read into plain dicts once (``{qid: {docid:
label}}``, ``{qid: {docid: score}}``), outside the timing. Then, in the same
process and taking turns, each round times ``irmetrics.evaluate(qrels, run,
measures)`` (per-query values touched) and
``pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)`` (the
evaluator built each time, as a script builds it once per run), and the same
call on ``irmetrics.compat.pytrec_eval``, the drop-in, as BEIR makes it. The default
shape is ``robust04`` of ``generate.py`` (100 queries, about 1,400 graded
judgments each, 1,000 ranked documents). Each ``--tree`` is measured in a
process of its own, with its own pytrec_eval column, so that every ratio
compares two figures of one process. Nothing asserts; the script prints a
Markdown table: the median wall-clock seconds of each and their ratios to
pytrec_eval's, with each ratio's spread over the rounds (lowest and highest).
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from generate import generate  # noqa: E402

IRMETRICS = ["nDCG@10", "AP", "RR", "P@10", "R@100"]
# trec_eval has no RR@10: recip_rank is the same measure as irmetrics' RR
PYTREC = {"ndcg_cut.10", "map", "recip_rank", "P.10", "recall.100"}

CHILD = r"""
import json, statistics, sys, time
import pytrec_eval
from irmetrics import evaluate
from irmetrics.compat import pytrec_eval as drop_in
qrels_path, run_path, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
measures, pytrec_measures = json.loads(sys.argv[4]), set(json.loads(sys.argv[5]))
qrels, run = {}, {}
with open(qrels_path) as f:
    for line in f:
        q, _, d, r = line.split()
        qrels.setdefault(q, {})[d] = int(r)
with open(run_path) as f:
    for line in f:
        q, _, d, _, s, _ = line.split()[:6]
        run.setdefault(q, {})[d] = float(s)
ours, drop, theirs = [], [], []
for i in range(rounds + 1):
    start = time.perf_counter()
    result = evaluate(qrels, run, measures)
    assert len(result.per_query) == len(run)
    middle = time.perf_counter()
    values = pytrec_eval.RelevanceEvaluator(qrels, pytrec_measures).evaluate(run)
    assert len(values) == len(run)
    end = time.perf_counter()
    mine = drop_in.RelevanceEvaluator(qrels, pytrec_measures).evaluate(run)
    assert mine == values
    last = time.perf_counter()
    if i:  # the first round warms caches
        ours.append(middle - start)
        theirs.append(end - middle)
        drop.append(last - end)
out = [statistics.median(ours), statistics.median(drop), statistics.median(theirs)]
for mine in (ours, drop):
    ratios = [a / b for a, b in zip(mine, theirs)]
    out += [statistics.median(ratios), min(ratios), max(ratios)]
print(json.dumps(out))
"""


def measure(root: str, qrels: str, run: str, rounds: int) -> list:
    env = dict(os.environ, PYTHONPATH=os.path.abspath(root))
    out = subprocess.run(
        [sys.executable, "-c", CHILD, qrels, run, str(rounds), json.dumps(IRMETRICS),
         json.dumps(sorted(PYTREC))],
        capture_output=True, text=True, check=True, env=env, cwd=tempfile.gettempdir(),
    )
    return json.loads(out.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", action="append", default=[], metavar="DIR",
                        help="a source tree whose irmetrics is measured (repeatable)")
    parser.add_argument("--shape", default="robust04")
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--data", default=os.path.join(tempfile.gettempdir(), "irmetrics-bench"))
    args = parser.parse_args()
    qrels, run = generate(args.shape, args.data, scale=args.scale)
    trees = args.tree or [ROOT]
    for tree in trees:  # the bytecode an install would have (PYTHONDONTWRITEBYTECODE aside)
        subprocess.run([sys.executable, "-m", "compileall", "-q",
                        os.path.join(os.path.abspath(tree), "irmetrics")], check=True)
    print(f"{args.shape} x{args.scale:g}, {args.rounds} rounds, medians\n")
    print("| tree | evaluate() s | drop-in s | pytrec_eval s | evaluate() / pytrec_eval "
          "(lowest-highest) | drop-in / pytrec_eval (lowest-highest) |")
    print("|---|---|---|---|---|---|")
    for tree in trees:
        ours, drop, theirs, *spreads = measure(tree, qrels, run, args.rounds)
        ratios = [f"{r:.2f} ({lo:.2f}-{hi:.2f})" for r, lo, hi in zip(*[iter(spreads)] * 3)]
        print(f"| {os.path.basename(os.path.abspath(tree))} | {ours:.3f} | {drop:.3f} | "
              f"{theirs:.3f} | {' | '.join(ratios)} |")


if __name__ == "__main__":
    main()
