"""irmetrics' command line against the trec_eval C binary, side by side.

    python benchmarks/trec_eval_c.py                       # build trec_eval from the
                                                           # pytrec-eval-terrier sdist
    python benchmarks/trec_eval_c.py --source DIR          # or from a trec_eval checkout
    python benchmarks/trec_eval_c.py --trec-eval BINARY    # or use a built binary

Each measurement is a whole process, ``-q -m all_trec QRELS RUN`` with the
output thrown away, timed as wall-clock seconds (median of the repetitions,
the two programs alternating).  The shapes: 200 queries x 1,000 documents
(the MS MARCO generator of ``generate.py``, scaled) and the MS MARCO shape
itself (``--msmarco-scale``: 1.0, the default, for its 6,980 queries x 1,000
documents).  Both programs' outputs are compared too: they must be
byte-identical.

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
            subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           check=True, env=env)
            out.append(time.perf_counter() - start)
    return [statistics.median(t) for t in times]


def bare_python(work: str) -> str:
    """The interpreter of a new virtual environment with nothing installed."""
    venv = os.path.join(work, "venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", venv], check=True)
    return os.path.join(venv, "bin", "python")


def output(argv: Sequence[str], env: Optional[dict] = None) -> bytes:
    return subprocess.run(argv, capture_output=True, check=True, env=env).stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trec-eval", metavar="BINARY", help="a trec_eval binary to use")
    parser.add_argument("--source", metavar="DIR", help="a trec_eval source tree to build")
    parser.add_argument("--data", default=os.path.join(tempfile.gettempdir(), "irmetrics-bench"))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--msmarco-scale", type=float, default=1.0,
                        help="scale of the MS MARCO shape (1.0: 6,980 queries)")
    parser.add_argument("--cflags", help="build trec_eval with these CFLAGS (e.g. -O2)")
    args = parser.parse_args()
    global CFLAGS
    CFLAGS = args.cflags

    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    n_msmarco = SHAPES["msmarco"][0]
    shapes: List[Tuple[str, float]] = [
        ("200 queries x 1,000 documents", 200 / n_msmarco),
        (f"MS MARCO shape, {int(n_msmarco * args.msmarco_scale):,} queries x 1,000 documents",
         args.msmarco_scale),
    ]
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
        subprocess.run([sys.executable, "-m", "compileall", "-q", os.path.join(ROOT, "irmetrics")],
                       check=True)  # the bytecode an install would have
        print("| shape | trec_eval (C) s | irmetrics s | irmetrics / C | same output |")
        print("|---|---|---|---|---|")
        for label, scale in shapes:
            qrels, run = generate("msmarco", args.data, scale=scale)
            ours = [python, "-m", "irmetrics", "-q", "--quiet", "-m", "all_trec", qrels, run]
            if binary is None:
                (t_ours,) = median_walls([(ours, env)], args.repeat)
                print(f"| {label} | skipped: {reason} | {t_ours:.2f} | — | — |")
                continue
            theirs = [binary, "-q", "-m", "all_trec", qrels, run]
            t_c, t_ours = median_walls([(theirs, None), (ours, env)], args.repeat)
            same = output(theirs) == output(ours, env)
            print(f"| {label} | {t_c:.2f} | {t_ours:.2f} | {t_ours / t_c:.2f} | "
                  f"{'yes' if same else 'NO'} |")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
