"""compare() on 10,000 queries x 3 runs, 10,000 resamples, beside ranx's compare.

    python benchmarks/compare.py                       # irmetrics of this tree
    python benchmarks/compare.py --ranx /tmp/ranxenv/bin/python --before ../old

ranx is never a dependency of irmetrics: give the Python of a separate
virtual environment that has it (``python3 -m venv /tmp/ranxenv &&
/tmp/ranxenv/bin/pip install ranx``).  Both read the same qrels and run files
(written here, seeded); irmetrics scores the runs once (not timed) and times
``compare(None, evaluations, ["map"], ...)``, the statistics alone; ranx
times ``compare(qrels, runs, ["map"], ...)`` after one warm-up call (numba's
compilation), which also computes AP (compiled: a small share).  Every
measurement is a process of its own; the repetitions are interleaved (tool
by tool, round by round), and the script prints the median and the range
of each, in seconds, with the load average before and after: the machine
may be shared.  ``--before DIR`` adds another tree's irmetrics.
"""

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

IRMETRICS = """
import sys, time
from irmetrics import Qrels, compare, evaluate
qrels = Qrels.from_trec(sys.argv[1])
runs = {f"r{i}": evaluate(qrels, path, ["map"]) for i, path in enumerate(sys.argv[2:5])}
pairs, test = sys.argv[5], sys.argv[6]
start = time.perf_counter()
options = {} if pairs == "baseline" else {"pairs": pairs}  # (older trees: no pairs=)
compare(None, runs, ["map"], test=test, n_resamples=10_000, seed=0, **options)
print(time.perf_counter() - start)
"""

RANX = """
import sys, time
from ranx import Qrels, Run, compare
qrels = Qrels.from_file(sys.argv[1], kind="trec")
runs = [Run.from_file(path, kind="trec") for path in sys.argv[2:5]]
test = sys.argv[6]
compare(qrels, runs, ["map"], stat_test=test, n_permutations=10)  # numba compiles
start = time.perf_counter()
compare(qrels, runs, ["map"], stat_test=test, n_permutations=10_000)
print(time.perf_counter() - start)
"""

# (label, irmetrics pairs and test, or ranx test)
CASES = [
    ("permutation test, 2 comparisons with the baseline", "irmetrics", "baseline", "permutation"),
    ("bootstrap test, 2 comparisons with the baseline", "irmetrics", "baseline", "bootstrap"),
    ("permutation test, all 3 pairs", "irmetrics", "all", "permutation"),
    ("randomised Tukey HSD, all 3 pairs", "irmetrics", "all", "randomized-tukey"),
    ("t test, 2 comparisons with the baseline", "irmetrics", "baseline", "paired-t"),
    ("Fisher's randomization test, all 3 pairs", "ranx", "all", "fisher"),
    ("Tukey's HSD (classic), all 3 pairs", "ranx", "all", "tukey"),
    ("t test, all 3 pairs", "ranx", "all", "student"),
]


def write_inputs(folder, queries=10_000, docs=20, seed=47):
    """A qrels file and three runs of growing quality, seeded."""
    rng = random.Random(seed)
    qrels = os.path.join(folder, "qrels.txt")
    with open(qrels, "w") as f:
        for q in range(queries):
            for d in range(docs):
                f.write(f"q{q} 0 d{d} {1 if d < 5 else 0}\n")
    paths = []
    for i in range(3):
        path = os.path.join(folder, f"r{i}.run")
        with open(path, "w") as f:
            for q in range(queries):
                scores = sorted(((rng.random() + (0.1 * i if d < 5 else 0.0), d)
                                 for d in range(docs)), reverse=True)
                for rank, (s, d) in enumerate(scores, 1):
                    f.write(f"q{q} Q0 d{d} {rank} {s:.6f} r{i}\n")
        paths.append(path)
    return qrels, paths


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranx", help="a Python that has ranx")
    parser.add_argument("--before", help="another tree's irmetrics, timed beside")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    trees = {"irmetrics": ROOT}
    if args.before:
        trees["irmetrics (before)"] = os.path.abspath(args.before)
    with tempfile.TemporaryDirectory() as folder:
        qrels, paths = write_inputs(folder)
        jobs = []
        for label, tool, pairs, test in CASES:
            if tool == "ranx":
                if args.ranx:
                    jobs.append((f"ranx: {label}", [args.ranx, "-c", RANX], None, pairs, test))
                continue
            for name, tree in trees.items():
                if name != "irmetrics" and (pairs == "all" or test == "randomized-tukey"):
                    continue  # (not in older trees)
                jobs.append((f"{name}: {label}", [sys.executable, "-c", IRMETRICS], tree,
                             pairs, test))
        times = {job[0]: [] for job in jobs}
        print(f"load average before: {os.getloadavg()}", flush=True)
        for _ in range(args.repeat):  # interleaved: every job once per round
            for label, argv, tree, pairs, test in jobs:
                env = dict(os.environ, PYTHONPATH=tree or "")
                done = subprocess.run(argv + [qrels, *paths, pairs, test], env=env, cwd=folder,
                                      capture_output=True, text=True, check=True)
                times[label].append(float(done.stdout.split()[-1]))
        print(f"load average after: {os.getloadavg()}\n")
        print("| what | median (s) | min - max (s) |\n|---|---:|---:|")
        for label, values in times.items():
            print(f"| {label} | {statistics.median(values):.2f} | "
                  f"{min(values):.2f} - {max(values):.2f} |")


if __name__ == "__main__":
    main()
