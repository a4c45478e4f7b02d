"""Benchmark irmetrics against the peers installed here, each in its own process.

    pip install -e '.[bench]'
    python benchmarks/run.py                 # everything, about 10 minutes
    python benchmarks/run.py --quick         # smaller data, one repetition
    python benchmarks/run.py --before ../old # also another tree's irmetrics

Every measurement is a whole process (interpreter start, imports, reading the
TREC files, evaluating nDCG@10, AP, RR@10, P@10 and R@100 per query), timed
as wall-clock seconds, median of the repetitions, with the peak resident
memory of that process.  Ratios are against pytrec_eval measured in the same
run: absolute times on a shared machine are noise, ratios much less so.
Nothing here asserts; the script prints tables (Markdown) for
docs/benchmarks.md.

``--before DIR`` adds the irmetrics of another source tree (a ``git worktree``
of an earlier commit, say) as one more tool, for before/after figures from
one run.  Every process starts in an empty directory, so that PYTHONPATH
alone decides which irmetrics it imports (a ``-c`` process started in a
checkout would import that checkout's, whatever PYTHONPATH says); each tree's
is checked before anything is timed.
"""

import argparse
import atexit
import functools
import importlib.util
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from typing import Dict, List, Optional, Sequence, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from generate import generate  # noqa: E402

MEASURES = "nDCG@10, AP, RR@10, P@10, R@100"

# One script per tool; argv[1] is the qrels file, argv[2] the run file.  Each
# builds per-query results for the five measures, the way a user of that tool
# would, and touches them so that nothing is skipped lazily.
SCRIPTS: Dict[str, str] = {
    "irmetrics": """
        import sys
        from irmetrics import evaluate
        r = evaluate(sys.argv[1], sys.argv[2], ["nDCG@10", "AP", "RR@10", "P@10", "R@100"])
        assert len(r.per_query) > 0
    """,
    "irmetrics ties=expected": """
        import sys
        from irmetrics import evaluate
        r = evaluate(sys.argv[1], sys.argv[2], ["nDCG@10", "AP", "RR@10", "P@10", "R@100"],
                     ties="expected")
        assert len(r.per_query) > 0
    """,
    "irmetrics CLI": """
        import sys
        from irmetrics.cli import main
        sys.stdout = open("/dev/null", "w")
        sys.exit(main([sys.argv[1], sys.argv[2], "-q", "--quiet", "-m", "ndcg_cut.10",
                       "-m", "map", "-m", "RR@10", "-m", "P.10", "-m", "recall.100"]))
    """,
    "pytrec_eval": """
        import sys
        import pytrec_eval
        qrels = {}
        with open(sys.argv[1]) as f:
            for line in f:
                q, _, d, r = line.split()
                qrels.setdefault(q, {})[d] = int(r)
        run = {}
        with open(sys.argv[2]) as f:
            for line in f:
                q, _, d, _, s, _ = line.split()[:6]
                run.setdefault(q, {})[d] = float(s)
        # trec_eval has no RR@10: recip_rank is its closest measure
        ev = pytrec_eval.RelevanceEvaluator(
            qrels, {"ndcg_cut.10", "map", "recip_rank", "P.10", "recall.100"})
        res = ev.evaluate(run)
        assert len(res) > 0
    """,
    "ranx": """
        import sys
        from ranx import Qrels, Run, evaluate
        qrels = Qrels.from_file(sys.argv[1], kind="trec")
        run = Run.from_file(sys.argv[2], kind="trec")
        evaluate(qrels, run, ["ndcg@10", "map", "mrr@10", "precision@10", "recall@100"],
                 return_mean=False, make_comparable=True)
    """,
    "ir_measures": """
        import sys
        import ir_measures
        from ir_measures import AP, RR, P, R, nDCG
        qrels = list(ir_measures.read_trec_qrels(sys.argv[1]))
        run = list(ir_measures.read_trec_run(sys.argv[2]))
        res = list(ir_measures.iter_calc([nDCG@10, AP, RR@10, P@10, R@100], qrels, run))
        assert len(res) > 0
    """,
}
MODULES = {"pytrec_eval": "pytrec_eval", "ranx": "ranx", "ir_measures": "ir_measures"}
# The slowest peers are measured on the smaller runs only, to keep the whole
# benchmark near ten minutes (run lines; None: no limit).
MAX_LINES: Dict[str, Optional[int]] = {"ranx": 2_000_000, "ir_measures": 4_000_000}


def available(tool: str) -> bool:
    mod = MODULES.get(tool)
    return mod is None or importlib.util.find_spec(mod) is not None


@functools.cache
def neutral() -> str:
    """Where every measured process starts: an empty directory (see the
    docstring), made once and removed at exit."""
    path = tempfile.mkdtemp(prefix="irmetrics-bench-")
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    return path


def tree_env(root: str) -> Dict[str, str]:
    """The environment of a process that imports the irmetrics of *root*."""
    path = [root, *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    return dict(os.environ, PYTHONPATH=os.pathsep.join(path))


def imported_from(root: str) -> str:
    """The irmetrics package a measured process of *root* imports (its directory)."""
    done = subprocess.run(
        [sys.executable, "-c", "import irmetrics, os; print(os.path.dirname(irmetrics.__file__))"],
        env=tree_env(root), cwd=neutral(), capture_output=True, text=True, check=True,
    )
    return os.path.realpath(done.stdout.strip())


def measure(code: str, args: Sequence[str], root: str = ROOT) -> Tuple[float, float, float]:
    """Run *code* in a fresh interpreter importing the irmetrics of *root*:
    (wall seconds, CPU seconds, peak RSS MB)."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code), *args],
        env=tree_env(root), cwd=neutral(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    err = proc.stderr.read().decode() if proc.stderr else ""
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"benchmark process failed ({proc.returncode}):\n{err}")
    cpu = usage.ru_utime + usage.ru_stime
    return wall, cpu, usage.ru_maxrss / 1024.0


def summary(runs: Sequence[Tuple[float, float, float]]) -> Tuple[float, float, float]:
    """Median wall and CPU seconds, largest peak RSS."""
    return (
        statistics.median(r[0] for r in runs),
        statistics.median(r[1] for r in runs),
        max(r[2] for r in runs),
    )


def run_table(
    qrels: str, run: str, tools: List[str], repeat: int, n_lines: int,
    trees: Optional[Dict[str, str]] = None,
) -> List[List[str]]:
    # The tools take turns, one run each per round, so that a machine that
    # slows down or speeds up meanwhile (a shared one does) weighs on all
    # of them alike, and the ratios hold.
    # each tool: (script, source tree); a tree of --before runs the library's script
    trees = trees or {}
    setups = {tool: (SCRIPTS[tool], ROOT) for tool in tools}
    setups.update({name: (SCRIPTS["irmetrics"], root) for name, root in trees.items()})
    runs: Dict[str, List[Tuple[float, float, float]]] = {}
    for tool, (code, root) in setups.items():
        limit = MAX_LINES.get(tool)
        if limit is not None and n_lines > limit:
            continue
        print(f"  {tool} ...", file=sys.stderr, flush=True)
        try:
            # one untimed run first: file cache, bytecode and JIT caches warm
            measure(code, [qrels, run], root)
            runs[tool] = []
        except RuntimeError as exc:
            print(f"  {tool} failed: {exc}", file=sys.stderr)
    for _ in range(repeat):
        for tool in list(runs):
            code, root = setups[tool]
            try:
                runs[tool].append(measure(code, [qrels, run], root))
            except RuntimeError as exc:  # pragma: no cover - it ran once already
                print(f"  {tool} failed: {exc}", file=sys.stderr)
                del runs[tool]
    results = {tool: summary(r) for tool, r in runs.items()}
    base: Optional[float] = results["pytrec_eval"][0] if "pytrec_eval" in results else None
    rows = []
    for tool, (wall, cpu, rss) in results.items():
        ratio = f"{wall / base:.2f}" if base else "n/a"
        rows.append([tool, f"{wall:.2f}", f"{cpu:.2f}", f"{rss:,.0f} MB", ratio])
    if "irmetrics" in results and "irmetrics ties=expected" in results:
        # issue 14's budget: tie-aware evaluation at most 1.5 x the default
        cost = results["irmetrics ties=expected"][0] / results["irmetrics"][0]
        rows.append(["(ties=expected / default irmetrics)", "", "", "", f"{cost:.2f}"])
    return rows


def markdown(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def single_list(repeat: int) -> str:
    """ndcg on one list against scikit-learn; weighted_tau against scipy."""
    code = """
        import random, sys, timeit
        from irmetrics import ndcg, weighted_tau
        rng = random.Random(7)
        out = []
        try:
            from sklearn.metrics import ndcg_score
        except ImportError:
            ndcg_score = None
        for n in (10, 1000):
            labels = [rng.choice((0, 0, 1, 2, 3)) for _ in range(n)]
            ours = min(timeit.repeat(lambda: ndcg(labels, 10), number=200, repeat=5)) / 200
            if ndcg_score is not None:
                # scikit-learn wants true relevance and scores; a ranking is
                # given as decreasing scores, as lists (what the caller has)
                y_true = [labels]; y_score = [list(range(n, 0, -1))]
                theirs = min(timeit.repeat(lambda: ndcg_score(y_true, y_score, k=10),
                                           number=50, repeat=5)) / 50
                out.append(f"ndcg@10, {n} labels|{ours*1e6:.1f} us|"
                           f"{theirs*1e6:.1f} us|{theirs/ours:.0f}x")
            else:
                out.append(f"ndcg@10, {n} labels|{ours*1e6:.1f} us|n/a|n/a")
        try:
            from scipy.stats import weightedtau
        except ImportError:
            weightedtau = None
        for n in (10, 100, 1000, 100000):
            x = [rng.random() for _ in range(n)]
            y = [v + rng.random() for v in x]
            num = max(1, 20000 // n)
            ours = min(timeit.repeat(lambda: weighted_tau(x, y), number=num, repeat=3)) / num
            if weightedtau is not None:
                theirs = min(timeit.repeat(lambda: weightedtau(x, y), number=num, repeat=3)) / num
                out.append(f"weighted_tau, n={n}|{ours*1e6:.1f} us|"
                           f"{theirs*1e6:.1f} us|{theirs/ours:.2f}x")
            else:
                out.append(f"weighted_tau, n={n}|{ours*1e6:.1f} us|n/a|n/a")
        print("\\n".join(out))
    """
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=tree_env(ROOT),
                          cwd=neutral(), capture_output=True, text=True, check=True)
    rows = [line.split("|") for line in done.stdout.strip().splitlines()]
    return markdown(["call", "irmetrics", "peer", "peer / irmetrics"], rows)


def import_time(repeat: int = 7) -> str:
    base = [measure("pass", [])[0] for _ in range(repeat)]
    ours = [measure("import irmetrics", [])[0] for _ in range(repeat)]
    cost = 1000 * (statistics.median(ours) - statistics.median(base))
    return (f"Importing irmetrics: {cost:.0f} ms "
            f"(a process that imports it, minus one that does not; median of {repeat})")


def main() -> None:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--data", default=os.path.join(ROOT, "bench-data"),
                   help="where generated data is kept (default: bench-data/)")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--quick", action="store_true", help="small data, one repetition")
    p.add_argument("--tools", default=",".join(SCRIPTS))
    p.add_argument("--sizes", default="msmarco:0.25,msmarco:0.5,msmarco:1,wide:1",
                   help="shape:scale pairs to measure (default: the four of the docs)")
    p.add_argument("--before", action="append", default=[], metavar="DIR",
                   help="a source tree whose irmetrics is measured too (repeatable)")
    args = p.parse_args()
    args.data = os.path.abspath(args.data)  # the measured processes start elsewhere
    trees: Dict[str, str] = {}
    for d in args.before:
        name = base = f"irmetrics @ {os.path.basename(os.path.normpath(d))}"
        again = 1
        while name in trees:
            again += 1
            name = f"{base} ({again})"
        trees[name] = os.path.abspath(d)
    for name, root in [("irmetrics", ROOT), *trees.items()]:
        want = os.path.realpath(os.path.join(root, "irmetrics"))
        try:
            got = imported_from(root)
        except subprocess.CalledProcessError as exc:
            p.error(f"{name}: a process given {root} cannot import irmetrics:\n{exc.stderr}")
        if got != want:
            p.error(f"{name}: a process given {root} imports {got}, not {want}")
        # Installed packages come with bytecode; a source checkout may not
        # have it yet (PYTHONDONTWRITEBYTECODE): compile it, as an install would.
        subprocess.run([sys.executable, "-m", "compileall", "-q", want], check=True)
    repeat = 1 if args.quick else args.repeat
    tools = [t for t in args.tools.split(",") if t in SCRIPTS and available(t)]
    missing = [t for t in SCRIPTS if not available(t)]

    print(f"# Benchmarks\n\nMachine: {platform.platform()}, Python {platform.python_version()}, "
          f"{os.cpu_count()} CPUs. Tools not installed, left out: "
          f"{', '.join(missing) or 'none'}.\n")
    print(import_time() + "\n")

    sizes = [("msmarco", 0.1)] if args.quick else [
        (shape, float(scale)) for shape, scale in
        (item.split(":") for item in args.sizes.split(","))]
    for shape, scale in sizes:
        print(f"  generating {shape} x{scale} ...", file=sys.stderr, flush=True)
        qrels, run = generate(shape, args.data, scale=scale)
        with open(run, "rb") as f:
            n_lines = sum(chunk.count(b"\n") for chunk in iter(lambda: f.read(1 << 20), b""))
        print(f"## {shape} x{scale:g}: {n_lines:,} run lines\n")
        print(f"Per-query {MEASURES}; whole process, median of {repeat}.\n")
        rows = run_table(qrels, run, tools, repeat, n_lines, trees)
        print(markdown(["tool", "wall s", "CPU s", "peak RSS", "time / pytrec_eval"], rows) + "\n")

    print("## One list per call\n")
    print(single_list(repeat) + "\n")


if __name__ == "__main__":
    main()
