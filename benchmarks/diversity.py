"""Diversity evaluation from files: irmetrics against pyndeval (ndeval's C code).

    pip install -e '.[test]'                 # pyndeval is in the test extra
    python benchmarks/diversity.py           # 200 queries x 1,000 documents, 5 subtopics
    python benchmarks/diversity.py --quick   # 50 queries, one repetition

Each measurement is a whole process: interpreter start, imports, reading
the qrels and run files, and ndeval's 21 measures (ERR-IA, nERR-IA,
alpha-DCG, alpha-nDCG at 5, 10, 20; NRBP, nNRBP, MAP-IA; P-IA and strec at
5, 10, 20) for every query, the way a user of each tool would do it
(pyndeval reads no files: the script parses them into its tuples, as
ir_measures does).  Times are the median of the repetitions, as CPU time
(user + system, what a loaded shared machine disturbs least) and
wall-clock; the ratios are what to read, absolute times are noise.
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
import textwrap
import time
from typing import Dict, List, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

MEASURES = [
    "ERR-IA@5", "ERR-IA@10", "ERR-IA@20", "nERR-IA@5", "nERR-IA@10", "nERR-IA@20",
    "alpha-DCG@5", "alpha-DCG@10", "alpha-DCG@20", "alpha-nDCG@5", "alpha-nDCG@10",
    "alpha-nDCG@20", "NRBP", "nNRBP", "MAP-IA", "P-IA@5", "P-IA@10", "P-IA@20",
    "strec@5", "strec@10", "strec@20",
]

SCRIPTS: Dict[str, str] = {
    "irmetrics": f"""
        import sys
        from irmetrics import evaluate
        r = evaluate(sys.argv[1], sys.argv[2], {MEASURES!r})
        assert len(r.per_query) > 0
    """,
    "irmetrics --ndeval": """
        import sys
        from irmetrics.cli import main
        sys.stdout = open("/dev/null", "w")
        sys.exit(main(["--ndeval", sys.argv[1], sys.argv[2]]))
    """,
    "pyndeval": f"""
        import sys
        import pyndeval
        qrels = []
        with open(sys.argv[1]) as f:
            for line in f:
                q, s, d, r = line.split()
                qrels.append((q, s, d, int(r)))
        run = []
        with open(sys.argv[2]) as f:
            for line in f:
                q, _, d, _, score, _ = line.split()
                run.append((q, d, float(score)))
        r = pyndeval.ndeval(qrels, run, {MEASURES!r})
        assert len(r) > 0
    """,
}


def generate(directory: str, queries: int, docs: int, subtopics: int, seed: int = 7) -> None:
    """A run of *docs* scored documents per query and a diversity qrels in
    the TREC Web track's layout: 300 judged documents a query (half of them
    retrieved), each judged for every subtopic, relevant with probability
    0.1 (a document relevant to some subtopic: about 41%)."""
    rng = random.Random(seed)
    with open(os.path.join(directory, "qrels"), "w") as qf, \
            open(os.path.join(directory, "run"), "w") as rf:
        for q in range(1, queries + 1):
            ranked = [f"clueweb-{q}-{i:05d}" for i in range(docs)]
            judged = rng.sample(ranked, 150) + [f"clueweb-{q}-x{i:04d}" for i in range(150)]
            lines = []
            for s in range(1, subtopics + 1):
                for d in judged:
                    lines.append(f"{q} {s} {d} {int(rng.random() < 0.1)}\n")
            qf.write("".join(lines))
            scores = sorted((round(rng.random() * 100, 3) for _ in ranked), reverse=True)
            rf.write("".join(f"{q} Q0 {d} {i + 1} {s} bench\n"
                             for i, (d, s) in enumerate(zip(ranked, scores))))


def run_once(script: str, qrels: str, run: str) -> Tuple[float, float]:
    """Wall-clock and CPU (user + system) seconds of one process."""
    env = dict(os.environ, PYTHONPATH=ROOT)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", textwrap.dedent(script), qrels, run],
                   check=True, env=env, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def timed(qrels: str, run: str, repeat: int) -> Dict[str, Tuple[float, float]]:
    """Median wall-clock and CPU seconds per tool; the tools take turns, so
    that a change of load on the machine falls on all of them."""
    got: Dict[str, List[Tuple[float, float]]] = {name: [] for name in SCRIPTS}
    for _ in range(repeat):
        for name, script in SCRIPTS.items():
            got[name].append(run_once(script, qrels, run))
    return {name: (statistics.median(w for w, _ in times), statistics.median(c for _, c in times))
            for name, times in got.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="50 queries, one repetition")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    queries = 50 if args.quick else 200
    repeat = 1 if args.quick else args.repeat
    with tempfile.TemporaryDirectory() as tmp:
        generate(tmp, queries, 1000, 5)
        qrels, run = os.path.join(tmp, "qrels"), os.path.join(tmp, "run")
        results = timed(qrels, run, repeat)
    wall0, cpu0 = results["pyndeval"]
    print(f"{queries} queries x 1,000 documents, 5 subtopics, 21 measures; "
          f"median of {repeat} (seconds, whole process)\n")
    print("| tool | CPU seconds | vs pyndeval | wall seconds | vs pyndeval |")
    print("|---|---|---|---|---|")
    for name, (wall, cpu) in results.items():
        print(f"| {name} | {cpu:.2f} | {cpu / cpu0:.2f}x | {wall:.2f} | {wall / wall0:.2f}x |")


if __name__ == "__main__":
    main()
