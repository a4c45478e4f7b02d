"""Hostile input shapes: time and peak memory of the command line on each.

    python benchmarks/pathological.py            # about two minutes
    python benchmarks/pathological.py --quick    # a tenth of the sizes

Each case is one run of ``python -m irmetrics --workers 1`` in a fresh
process: wall seconds and the process's own peak resident memory
(``VmHWM``, Linux; one process, so that it is the whole evaluation's).
Nothing here asserts; the script prints a Markdown table for
docs/benchmarks.md.  Generated files go to a temporary folder.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time
from typing import Callable, List, Optional, Sequence, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The command line, then its own peak memory on standard error.
WRAPPER = ("import sys, irmetrics.cli as c; rc = c.main(sys.argv[1:]); "
           "sys.stderr.write(open('/proc/self/status').read()); sys.exit(rc)")


def run_cli(args: Sequence[str], feed: Optional[Callable[[object], None]] = None
            ) -> Tuple[float, float, int, str]:
    """(wall seconds, peak RSS MB, exit code, first line of standard error)."""
    env = dict(os.environ, PYTHONPATH=ROOT)
    start = time.perf_counter()
    # one process (--workers 1): the peak is then the whole evaluation's
    proc = subprocess.Popen([sys.executable, "-c", WRAPPER, "--quiet", "--workers", "1", *args],
                            env=env,
                            stdin=subprocess.PIPE if feed else subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if feed is not None:
        writer = threading.Thread(target=feed, args=(proc.stdin,))
        writer.start()
    err = proc.stderr.read().decode() if proc.stderr else ""
    proc.wait()
    if feed is not None:
        writer.join()
    wall = time.perf_counter() - start
    peak = next((int(line.split()[1]) / 1024 for line in err.splitlines()
                 if line.startswith("VmHWM:")), float("nan"))
    first = next((line for line in err.splitlines() if line.startswith("irmetrics")), "")
    return wall, peak, proc.returncode, first


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true")
    args = p.parse_args()
    scale = 10 if args.quick else 1
    rows: List[List[str]] = []
    with tempfile.TemporaryDirectory() as tmp:
        qrels = os.path.join(tmp, "qrels")

        # 1. One query, 1M documents all tied, 1,000 of them judged.
        n = 1_000_000 // scale
        with open(qrels, "w") as f:
            f.write("".join(f"q1 0 d{i} {i % 3}\n" for i in range(0, n, n // 1000)))
        tied = os.path.join(tmp, "tied.run")
        with open(tied, "w") as f:
            f.write("".join(f"q1 Q0 d{i} {i} 1.0 tied\n" for i in range(n)))
        wall, peak, rc, _ = run_cli(["-m", "map", "-m", "ndcg", qrels, tied])
        rows.append([f"{n:,} tied documents in one query", f"{wall:.2f}", f"{peak:.0f} MB",
                     str(rc)])

        # 2. One query with 5M documents, distinct scores.
        n = 5_000_000 // scale
        deep = os.path.join(tmp, "deep.run")
        with open(deep, "w") as f:
            for start in range(0, n, 100_000):
                f.write("".join(f"q1 Q0 d{i} {i} {n - i} deep\n"
                                for i in range(start, min(n, start + 100_000))))
        wall, peak, rc, _ = run_cli(["-m", "map", "-m", "ndcg", qrels, deep])
        rows.append([f"one query of {n:,} documents", f"{wall:.2f}", f"{peak:.0f} MB", str(rc)])

        # 3. A 100 MB line without a line end (CR line ends): a clear error.
        size = 100_000_000 // scale
        line = os.path.join(tmp, "cr.run")
        with open(line, "wb") as f:
            piece = b"q1 Q0 d1 1 0.5 r\r" * 60_000
            for _ in range(size // len(piece) + 1):
                f.write(piece)
        wall, peak, rc, err = run_cli(["-m", "map", qrels, line])
        rows.append([f"a {size // 1_000_000} MB line without line ends", f"{wall:.2f}",
                     f"{peak:.0f} MB", f"{rc} (`{err[:60]}...`)"])

        # 4. A 1 GB stream on standard input (grouped, 1,000 documents a query).
        total = 1_000_000_000 // scale
        block = "".join(f"Q0 d{d} {d} {1000 - d}.5 stdin\n" for d in range(1000)).encode()
        queries = total // (len(block) + 6000)

        def feed(pipe: object) -> None:
            try:
                for q in range(queries):
                    pipe.write(block.replace(b"Q0", b"q%d Q0" % q))  # type: ignore[attr-defined]
            finally:
                pipe.close()  # type: ignore[attr-defined]

        with open(qrels, "w") as f:
            f.write("".join(f"q{q} 0 d{q % 1000} 1\n" for q in range(queries)))
        wall, peak, rc, _ = run_cli(["-m", "map", "-m", "P_10", qrels, "-"], feed)
        rows.append([f"a {total / 1e9:g} GB stream on standard input ({queries:,} queries)",
                     f"{wall:.2f}", f"{peak:.0f} MB", str(rc)])

    print("| input | wall s | peak RSS | exit code |")
    print("|---|---:|---:|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
