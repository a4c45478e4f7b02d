"""The cost of the command line's tie note (issue 42): ``-q -m all_trec``
with the note (the default, ``--ties trec_eval``) and without it.

    python benchmarks/tie_note.py                          # this checkout
    python benchmarks/tie_note.py --tree OLD --tree .      # side by side

The shape: 200 queries x 1,000 documents, about 200 graded judgments a query
(labels 0-3, 180 of them retrieved), scores rounded to 4 decimals: drawn
from gauss(20, 6) (a few tied pairs a query) or uniform in [0, 1) (about
50).  Each measurement is a whole process, its output thrown away; "without
the note" runs the same command line with the note's detection turned off
(there is no option for it).  Times are medians of the repetitions, as
wall-clock and as CPU time (user + system of the process and its workers).
Nothing asserts; the script prints a Markdown table.
"""

import argparse
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from typing import List, Tuple

WITHOUT_NOTE = """
import dataclasses, sys
import irmetrics.cli as cli
evaluate = cli._evaluate
def without_note(qrels, run, names, parsed, options, **kwargs):
    options = dataclasses.replace(options, detect_ties=False)
    return evaluate(qrels, run, names, parsed, options, **kwargs)
cli._evaluate = without_note
sys.exit(cli.main(sys.argv[1:]))
"""
WITH_NOTE = "import sys, irmetrics.cli as cli; sys.exit(cli.main(sys.argv[1:]))"


def generate(out_dir: str, scores: str, seed: int = 42) -> Tuple[str, str]:
    rng = random.Random(seed)
    qrels_path = os.path.join(out_dir, f"ties-{scores}.qrels")
    run_path = os.path.join(out_dir, f"ties-{scores}.run")
    with open(qrels_path, "w") as qf, open(run_path, "w") as rf:
        for q in range(200):
            qid = str(1000 + q)
            docs = rng.sample(range(8_800_000), 1000)
            judged = rng.sample(docs, 180) + [rng.randrange(8_800_000) for _ in range(20)]
            rels = {d: rng.choice((0, 0, 0, 1, 1, 2, 3)) for d in judged}
            for d in sorted(rels):
                qf.write(f"{qid} 0 {d} {rels[d]}\n")
            draw = (lambda: rng.gauss(20.0, 6.0)) if scores == "gauss" else rng.random
            ranked = sorted((round(draw(), 4) for _ in docs), reverse=True)
            rf.write("".join(f"{qid} Q0 {d} {r} {s:.4f} bench\n"
                             for r, (d, s) in enumerate(zip(docs, ranked), 1)))
    return qrels_path, run_path


def timed(argv: List[str], env: dict, cwd: str) -> Tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True,
                   env=env, cwd=cwd)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", action="append", help="an irmetrics checkout (repeatable)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--data", default=os.path.join(tempfile.gettempdir(), "irmetrics-ties"))
    args = parser.parse_args()
    trees = [os.path.abspath(t) for t in (args.tree or [os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))])]
    os.makedirs(args.data, exist_ok=True)
    print("| scores | tree | with note: wall s / CPU s | without: wall s / CPU s "
          "| note adds (CPU) |")
    print("|---|---|---|---|---|")
    for scores in ("gauss", "uniform"):
        qrels, run = generate(args.data, scores)
        for tree in trees:
            env = dict(os.environ)
            env["PYTHONPATH"] = tree
            cases = [[sys.executable, "-c", code, "-q", "-m", "all_trec", qrels, run]
                     for code in (WITH_NOTE, WITHOUT_NOTE)]
            got: List[List[Tuple[float, float]]] = [[], []]
            for _ in range(args.repeat):  # the two alternate
                for i, argv in enumerate(cases):
                    got[i].append(timed(argv, env, tree))  # (python -c reads its cwd first)
            (w1, c1), (w0, c0) = [(statistics.median(w for w, _ in g),
                                   statistics.median(c for _, c in g)) for g in got]
            print(f"| {scores} | {tree} | {w1:.2f} / {c1:.2f} | {w0:.2f} / {c0:.2f} "
                  f"| {100 * (c1 / c0 - 1):+.0f}% |")


if __name__ == "__main__":
    main()
