"""irmetrics' command line against the trec_eval C binary, side by side.

    python benchmarks/trec_eval_c.py                       # build trec_eval from the
                                                           # pytrec-eval-terrier sdist
    python benchmarks/trec_eval_c.py --source DIR          # or from a trec_eval checkout
    python benchmarks/trec_eval_c.py --trec-eval BINARY    # or use a built binary

Each measurement is a whole process, ``-q -m all_trec QRELS RUN`` with the
output thrown away, timed as wall-clock seconds (median of the repetitions,
the programs alternating).  The shapes (``--shapes``, all by default):
``small``, 200 queries x 1,000 documents (the MS MARCO generator of
``generate.py``, scaled); ``graded``, 200 queries x 1,000 documents with
about 200 graded judgments a query and 4-decimal scores that tie now and then
(``tie_note.py``'s gauss shape); ``robust04``, ``generate.py``'s dense
Robust04-like shape; ``msmarco``, the MS MARCO shape itself
(``--msmarco-scale``: 1.0, the default, for its 6,980 queries x 1,000
documents).  The outputs are compared too: they must be byte-identical.
``--tree DIR`` (repeatable) times the irmetrics of other source trees in the
same rounds, for before/after figures.

irmetrics runs as ``python -m irmetrics`` from this checkout, with the
interpreter of a new virtual environment that holds nothing else, as an
installed or vendored copy runs: a development environment's editable
install adds its own import hook to every interpreter start, which is
not irmetrics' cost.  trec_eval is built with its own Makefile, as NIST
ships it (``-g``, no optimisation flags); ``--cflags`` builds it with other
flags (``--cflags=-O2`` for an optimised trec_eval).

trec_eval is built in a temporary directory and deleted afterwards; its
source is never copied into this repository.  The pytrec-eval-terrier source
distribution fetches trec_eval 9.0.8 (tag ``v9.0.8``, scores as floats) from
GitHub when it is prepared; without a network, a C compiler or ``make``, the
row is skipped and the reason printed.  That build (like pytrec_eval)
stores scores as single-precision floats, so where two scores differ only
beyond float precision it ranks them as a tie and the outputs differ (the
last column says so); a build of NIST's ``trec_eval-9.0.8`` tag
(``--source``) stores doubles, as irmetrics does.  Nothing here asserts;
the script prints a Markdown table.
"""

import argparse
import glob
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.request
from typing import List, Optional, Sequence, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from generate import SHAPES, generate  # noqa: E402
from tie_note import generate as generate_graded  # noqa: E402

TREC_EVAL_908 = "https://github.com/usnistgov/trec_eval/archive/v9.0.8.tar.gz"


CFLAGS: Optional[str] = None  # --cflags: added to the Makefile's include and version flags


def _make(source: str, work: str) -> str:
    """Build trec_eval from a source tree copied into *work*; return the binary."""
    tree = os.path.join(work, "trec_eval")
    shutil.copytree(source, tree)
    make = ["make", "-s"]
    if CFLAGS is not None:
        make.append(f'CFLAGS={CFLAGS} -I. -DVERSIONID=\\"9.0.8\\"')
    subprocess.run(make, cwd=tree, check=True, capture_output=True)
    binary = os.path.join(tree, "trec_eval")
    if not os.path.exists(binary):
        raise RuntimeError(f"make in {source} built no trec_eval binary")
    return binary


def _from_sdist(work: str) -> str:
    """trec_eval as the pytrec-eval-terrier source distribution gets it."""
    for tool in ("cc", "make"):
        if shutil.which(tool) is None:
            raise RuntimeError(f"no {tool!r} on PATH")
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-binary", ":all:", "--no-deps",
         "--no-build-isolation", "pytrec-eval-terrier", "-d", work],
        capture_output=True, text=True,
    )
    sdists = glob.glob(os.path.join(work, "pytrec_eval_terrier-*.tar.gz"))
    if sdists:
        with tarfile.open(sdists[0]) as tar:
            tar.extractall(work)  # noqa: S202 - a package from PyPI, in a temp dir
        found = glob.glob(os.path.join(work, "pytrec_eval_terrier-*", "trec_eval*", "Makefile"))
        if found:
            return _make(os.path.dirname(found[0]), work)
    # The sdist's setup.py downloads trec_eval itself: do the same.
    try:
        archive = os.path.join(work, "trec_eval-9.0.8.tar.gz")
        urllib.request.urlretrieve(TREC_EVAL_908, archive)  # noqa: S310 - fixed https URL
    except OSError as exc:
        raise RuntimeError(f"cannot fetch trec_eval 9.0.8: {exc}") from None
    with tarfile.open(archive) as tar:
        tar.extractall(work)  # noqa: S202 - NIST's release archive, in a temp dir
    found = glob.glob(os.path.join(work, "trec_eval-*", "Makefile"))
    if not found:
        raise RuntimeError("the trec_eval archive has no Makefile")
    return _make(os.path.dirname(found[0]), work)


def median_walls(
    commands: Sequence[Tuple[Sequence[str], Optional[dict]]], repeat: int
) -> List[float]:
    """The median wall-clock time of each command, the commands alternating."""
    times: List[List[float]] = [[] for _ in commands]
    for _ in range(repeat):
        for argv, env, out in zip(*zip(*commands), times):
            start = time.perf_counter()
            # started elsewhere: `python -m` puts the working directory first
            # on sys.path, and a checkout there would shadow PYTHONPATH's tree
            subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           check=True, env=env, cwd=tempfile.gettempdir())
            out.append(time.perf_counter() - start)
    return [statistics.median(t) for t in times]


def bare_python(work: str) -> str:
    """The interpreter of a new virtual environment with nothing installed."""
    venv = os.path.join(work, "venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", venv], check=True)
    return os.path.join(venv, "bin", "python")


def output(argv: Sequence[str], env: Optional[dict] = None) -> bytes:
    return subprocess.run(argv, capture_output=True, check=True, env=env,
                          cwd=tempfile.gettempdir()).stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trec-eval", metavar="BINARY", help="a trec_eval binary to use")
    parser.add_argument("--source", metavar="DIR", help="a trec_eval source tree to build")
    parser.add_argument("--data", default=os.path.join(tempfile.gettempdir(), "irmetrics-bench"))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--msmarco-scale", type=float, default=1.0,
                        help="scale of the MS MARCO shape (1.0: 6,980 queries)")
    parser.add_argument("--cflags", help="build trec_eval with these CFLAGS (e.g. -O2)")
    parser.add_argument("--shapes", default="small,graded,robust04,msmarco",
                        help="comma-separated: small, graded, robust04, msmarco")
    parser.add_argument("--tree", action="append", default=[], metavar="DIR",
                        help="an irmetrics source tree to time (repeatable; default: this one)")
    args = parser.parse_args()
    global CFLAGS
    CFLAGS = args.cflags

    trees = [os.path.abspath(t) for t in (args.tree or [ROOT])]
    n_msmarco = SHAPES["msmarco"][0]
    makers = {
        "small": ("200 queries x 1,000 documents",
                  lambda: generate("msmarco", args.data, scale=200 / n_msmarco)),
        "graded": ("200 queries x 1,000 documents, ~200 graded judgments, 4-decimal scores",
                   lambda: generate_graded(args.data, "gauss")),
        "robust04": ("Robust04-like, 100 queries x 1,000 documents, ~1,400 judgments",
                     lambda: generate("robust04", args.data)),
        "msmarco": (f"MS MARCO shape, {int(n_msmarco * args.msmarco_scale):,} queries "
                    "x 1,000 documents",
                    lambda: generate("msmarco", args.data, scale=args.msmarco_scale)),
    }
    os.makedirs(args.data, exist_ok=True)
    work = tempfile.mkdtemp(prefix="trec_eval-build-")
    try:
        binary: Optional[str] = args.trec_eval
        reason = ""
        if binary is None:
            try:
                binary = _make(args.source, work) if args.source else _from_sdist(work)
            except (RuntimeError, OSError, subprocess.CalledProcessError) as exc:
                reason = str(exc) or type(exc).__name__
        python = bare_python(work)
        for tree in trees:  # the bytecode an install would have
            subprocess.run([sys.executable, "-m", "compileall", "-q",
                            os.path.join(tree, "irmetrics")], check=True)
        names = [os.path.basename(t) for t in trees]
        print("| shape | trec_eval (C) s | " + " | ".join(
            f"{n} s (/ C)" for n in names) + " | same output |")
        print("|---|---|" + "---|" * len(trees) + "---|")
        for shape in args.shapes.split(","):
            label, make = makers[shape]
            qrels, run = make()
            ours = []
            for tree in trees:
                env = dict(os.environ, PYTHONPATH=tree)
                ours.append(([python, "-m", "irmetrics", "-q", "--quiet", "-m", "all_trec",
                              qrels, run], env))
            if binary is None:
                times = median_walls(ours, args.repeat)
                cells = " | ".join(f"{t:.2f}" for t in times)
                print(f"| {label} | skipped: {reason} | {cells} | — |")
                continue
            theirs = [binary, "-q", "-m", "all_trec", qrels, run]
            t_c, *times = median_walls([(theirs, None), *ours], args.repeat)
            same = all(output(theirs) == output(argv, env) for argv, env in ours)
            cells = " | ".join(f"{t:.2f} ({t / t_c:.2f})" for t in times)
            print(f"| {label} | {t_c:.2f} | {cells} | {'yes' if same else 'NO'} |")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
