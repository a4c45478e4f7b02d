"""What an engine costs on one machine: streaming, Dask and Spark on the same run.

For the MS MARCO-shaped run of ``generate.py`` (at ``--scale``), prints one
table: the wall-clock time of

* ``irmetrics.evaluate(qrels_path, run_path, ...)``: the streaming reader,
  one process (``workers=1``) and the default (two processes for a file of
  2 MB or more);
* ``irmetrics.dask.evaluate`` on a ``distributed.LocalCluster`` of two
  single-threaded worker processes, the run read with ``dd.read_csv``;
* ``irmetrics.spark.evaluate`` on Spark in local mode (``local[2]``), the
  run read with ``spark.read.csv``;

each from the files on disk to the Evaluation (engine start-up is timed
apart), and the peak memory (RSS) of each process involved: the one process
for streaming, each Dask worker, Spark's JVM and its Python workers.  Every
engine's per-query values are checked to equal the streaming ones.  Each
engine runs in a fresh process.

    python benchmarks/engines.py --scale 0.25 --data /tmp/bench

Needs ``pip install irmetrics[dask,spark]`` and Java.  Absolute times on a
shared machine are noise; the ratios are what to read.
"""

import argparse
import json
import os
import subprocess
import sys
import time
from typing import Any, Dict, List

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
MEASURES = ["map", "nDCG@10", "RR@10", "P@10", "R@100"]
RUN_COLUMNS = ["query_id", "q0", "doc_id", "rank", "score", "tag"]


def peak_rss_mb(pid: str = "self") -> float:
    """Peak resident memory (VmHWM) of a process, in MB (Linux)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def descendants_peak_rss(root: int, stop: Any, out: Dict[int, float]) -> None:
    """Until *stop* is set, sample every 0.2 s the RSS of *root*'s descendant
    processes (Spark's Python workers), keeping each one's largest, in MB."""
    while not stop.wait(0.2):
        parents: Dict[int, int] = {}
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    with open(f"/proc/{entry}/stat") as f:
                        parents[int(entry)] = int(f.read().rsplit(")", 1)[1].split()[1])
                except (OSError, IndexError, ValueError):
                    continue
        for pid in parents:
            p, seen = pid, 0
            while p in parents and p != root and seen < 50:
                p, seen = parents[p], seen + 1
            if p == root and pid != root:
                try:
                    with open(f"/proc/{pid}/status") as f:
                        for line in f:
                            if line.startswith("VmRSS:"):
                                mb = int(line.split()[1]) / 1024
                                out[pid] = max(out.get(pid, 0.0), mb)
                except OSError:
                    continue


def job_stream(qrels: str, run: str, workers: Any) -> Dict[str, Any]:
    import irmetrics

    t = time.perf_counter()
    result = irmetrics.evaluate(qrels, run, MEASURES, workers=workers)
    took = time.perf_counter() - t
    return {"seconds": took, "start": 0.0, "memory": {"process": peak_rss_mb()},
            "per_query": result.per_query}


def job_dask(qrels: str, run: str) -> Dict[str, Any]:
    import dask.dataframe as dd
    import distributed

    import irmetrics.dask

    t = time.perf_counter()
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None)
    client = distributed.Client(cluster)
    start = time.perf_counter() - t
    t = time.perf_counter()
    frame = dd.read_csv(run, sep=" ", header=None, names=RUN_COLUMNS,
                        dtype={"query_id": str, "doc_id": str}, blocksize="32MB")
    result = irmetrics.dask.evaluate(qrels, frame, MEASURES)
    took = time.perf_counter() - t
    workers = client.run(peak_rss_mb)
    memory = {f"worker {i + 1}": mb for i, mb in enumerate(workers.values())}
    memory["client"] = peak_rss_mb()
    client.close()
    cluster.close()
    return {"seconds": took, "start": start, "memory": memory, "per_query": result.per_query,
            "partitions": frame.npartitions}


def job_spark(qrels: str, run: str) -> Dict[str, Any]:
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    import irmetrics.spark

    t = time.perf_counter()
    spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
             .config("spark.driver.memory", "2g").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    start = time.perf_counter() - t
    import threading

    jvm_pid = spark.sparkContext._gateway.proc.pid
    workers: Dict[int, float] = {}
    stop = threading.Event()
    watcher = threading.Thread(target=descendants_peak_rss, args=(jvm_pid, stop, workers))
    watcher.start()
    t = time.perf_counter()
    schema = "query_id string, q0 string, doc_id string, rank int, score double, tag string"
    frame = spark.read.csv(run, sep=" ", schema=schema)
    result = irmetrics.spark.evaluate(qrels, frame, MEASURES)
    took = time.perf_counter() - t
    stop.set()
    watcher.join()
    # the Python worker processes the JVM started (sampled while they ran)
    big = sorted(workers.values(), reverse=True)
    memory = {f"python worker {i + 1}": mb for i, mb in enumerate(big[:2])}
    memory["JVM (driver and executors)"] = peak_rss_mb(str(jvm_pid))
    memory["driver (Python)"] = peak_rss_mb()
    spark.stop()
    return {"seconds": took, "start": start, "memory": memory, "per_query": result.per_query}


def child(job: str, qrels: str, run: str) -> None:
    if job == "stream-1":
        out = job_stream(qrels, run, 1)
    elif job == "stream":
        out = job_stream(qrels, run, None)
    elif job == "dask":
        out = job_dask(qrels, run)
    else:
        out = job_spark(qrels, run)
    sys.stdout.write("\n" + json.dumps(out) + "\n")


def run_job(job: str, qrels: str, run: str) -> Dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.run([sys.executable, __file__, "--child", job, qrels, run],
                          capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        raise SystemExit(f"{job} failed:\n{proc.stderr[-3000:]}")
    result: Dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", default=os.path.join(ROOT, "bench-data"))
    p.add_argument("--scale", type=float, default=0.25)
    p.add_argument("--engines", default="stream-1,stream,dask,spark")
    p.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        child(*args.child)
        return
    sys.path.insert(0, HERE)
    from generate import generate

    qrels, run = generate("msmarco", args.data, scale=args.scale)
    lines = sum(1 for _ in open(run, "rb"))
    print(f"msmarco x{args.scale:g}: {lines:,} run lines, {os.path.getsize(run) / 2**20:.0f} MB;"
          f" {', '.join(MEASURES)}\n")
    rows: List[List[str]] = []
    reference = None
    base = None
    names = {"stream-1": "streaming, 1 process", "stream": "streaming, default workers",
             "dask": "Dask LocalCluster, 2 workers", "spark": "Spark local[2]"}
    for job in args.engines.split(","):
        got = run_job(job, qrels, run)
        if reference is None:
            reference = got["per_query"]
        same = "yes" if got["per_query"] == reference else "NO"
        base = base or got["seconds"]
        memory = "; ".join(f"{k} {v:,.0f} MB" for k, v in got["memory"].items())
        rows.append([names[job], f"{got['seconds']:.1f}", f"{got['start']:.1f}",
                     f"{got['seconds'] / base:.1f}", memory, same])
    header = ["engine", "evaluate s", "start-up s", "time / 1 process", "peak RSS",
              "same values"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
