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
of each, in seconds (wall, and the CPU time of the process), with the load
average before and after: the machine may be shared.  ``--before DIR`` adds
another tree's irmetrics (one that has ``pairs=``).  ``--parts`` times, in
CPU seconds, what those cases are made of: the bootstrap resamples of
compare()'s intervals for the bootstrap and Wilcoxon tests (two difference
columns, and one as ``bootstrap_ci``), one permutation test (alone, and with
the interval that inverts it, as compare() runs it) and the randomised Tukey
HSD, on the same per-query values (a tree without ``stats._permutation``
fails on that part).
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
start, cpu = time.perf_counter(), time.process_time()
compare(None, runs, ["map"], pairs=pairs, test=test, n_resamples=10_000, seed=0)
print(time.perf_counter() - start, time.process_time() - cpu)
"""

PARTS = """
import sys, time
from irmetrics import Qrels, evaluate, stats
from irmetrics.compare import _Statistics
qrels = Qrels.from_trec(sys.argv[1])
tables = [evaluate(qrels, path, ["map"])._per_query for path in sys.argv[2:5]]
samples = [[float(t[q]["map"]) for q in sorted(tables[0])] for t in tables]
d = [a - b for a, b in zip(samples[1], samples[0])]
for part, call in [
    ("bootstrap resamples, 2 columns", lambda: _Statistics(
        "bootstrap", "holm", 0.05, 10_000, 0).resampled_means(samples)),
    ("bootstrap resamples, 1 column (bootstrap_ci)", lambda: stats.bootstrap_ci(d)),
    ("one permutation test", lambda: stats.permutation_test(d)),
    ("one permutation test with its interval (compare())",
     lambda: stats._permutation(d, None, 10_000, 0, None, 0.05)),
    ("randomised Tukey HSD, 3 runs", lambda: stats.randomized_tukey_hsd(*samples)),
]:
    cpu = time.process_time()
    call()
    print(f"{part}\t{time.process_time() - cpu}")
"""

RANX = """
import sys, time
from ranx import Qrels, Run, compare
qrels = Qrels.from_file(sys.argv[1], kind="trec")
runs = [Run.from_file(path, kind="trec") for path in sys.argv[2:5]]
test = sys.argv[6]
compare(qrels, runs, ["map"], stat_test=test, n_permutations=10)  # numba compiles
start, cpu = time.perf_counter(), time.process_time()
compare(qrels, runs, ["map"], stat_test=test, n_permutations=10_000)
print(time.perf_counter() - start, time.process_time() - cpu)
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
    parser.add_argument("--parts", action="store_true", help="time the parts instead")
    args = parser.parse_args()
    trees = {"irmetrics": ROOT}
    if args.before:
        trees["irmetrics (before)"] = os.path.abspath(args.before)
    with tempfile.TemporaryDirectory() as folder:
        qrels, paths = write_inputs(folder)
        jobs = []
        for label, tool, pairs, test in [] if args.parts else CASES:
            if tool == "ranx":
                if args.ranx:
                    jobs.append((f"ranx: {label}", [args.ranx, "-c", RANX], None, pairs, test))
                continue
            for name, tree in trees.items():
                jobs.append((f"{name}: {label}", [sys.executable, "-c", IRMETRICS], tree,
                             pairs, test))
        if args.parts:
            jobs = [(name, [sys.executable, "-c", PARTS], tree, "-", "-")
                    for name, tree in trees.items()]
        times = {}
        print(f"load average before: {os.getloadavg()}", flush=True)
        for _ in range(args.repeat):  # interleaved: every job once per round
            for label, argv, tree, pairs, test in jobs:
                env = dict(os.environ, PYTHONPATH=tree or "")
                done = subprocess.run(argv + [qrels, *paths, pairs, test], env=env, cwd=folder,
                                      capture_output=True, text=True, check=True)
                if args.parts:  # CPU s of each part
                    for line in done.stdout.splitlines():
                        part, cpu = line.split("\t")
                        times.setdefault(f"{label}: {part}", []).append((None, float(cpu)))
                else:  # wall s, CPU s
                    wall, cpu = map(float, done.stdout.split()[-2:])
                    times.setdefault(label, []).append((wall, cpu))
        print(f"load average after: {os.getloadavg()}\n")
        print("| what | wall s: median (min - max) | CPU s |\n|---|---:|---:|")
        for label, values in times.items():
            print(f"| {label} | {_spread([w for w, _ in values])} | "
                  f"{_spread([c for _, c in values])} |")


def _spread(values):
    if None in values:
        return ""
    return f"{statistics.median(values):.2f} ({min(values):.2f} - {max(values):.2f})"


if __name__ == "__main__":
    main()
