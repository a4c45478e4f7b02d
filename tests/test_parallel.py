"""Scoring a run file in several processes gives what one process gives."""

import io
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irmetrics import Qrels, Run, evaluate
from irmetrics._parallel import WorkerError, _job_ranges, parallel_possible
from irmetrics.errors import DuplicateEntryError, TrecFormatError
from irmetrics.trec import MAX_LINE

pytestmark = [
    pytest.mark.skipif(not parallel_possible(__file__),
                       reason="needs fork (the parallel route is Linux/Unix only)"),
    pytest.mark.fork,
    pytest.mark.slow,  # worker processes  # (conftest: in a fresh process where this one has threads)
]

MEASURES = ["map", "P_5", "ndcg_cut_10", "recip_rank", "bpref", "num_ret", "num_rel_ret",
            "Rprec", "iprec_at_recall_0.10", "ERR@10", "Judged@5"]


def write_run(path, lines):
    path.write_text("".join(lines), encoding="utf-8")
    return str(path)


def make_data(seed, n_queries=9, depth=12, grouped=True):
    rng = random.Random(seed)
    qrels = {}
    lines = []
    for q in range(n_queries):
        qid = f"q{q}"
        docs = [f"d{rng.randrange(40)}" for _ in range(depth)]
        docs = list(dict.fromkeys(docs))
        qrels[qid] = {f"d{rng.randrange(40)}": rng.choice((-1, 0, 1, 2)) for _ in range(6)}
        for rank, d in enumerate(docs, 1):
            lines.append(f"{qid} Q0 {d} {rank} {rng.choice((1.0, 2.0, 2.5, 3.0))} tag{seed}\n")
    lines.append("zz Q0 d1 1 1.0 tag\n")  # a query without judgments: skipped, with a warning
    if not grouped:
        rng.shuffle(lines)
    return qrels, lines


def evaluate_quietly(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return evaluate(*args, **kwargs)


@given(st.integers(0, 10_000), st.integers(2, 5), st.booleans(), st.booleans())
@settings(max_examples=25, deadline=None)
def test_parallel_equals_one_process(tmp_path_factory, seed, workers, grouped, complete):
    qrels, lines = make_data(seed, grouped=grouped)
    path = write_run(tmp_path_factory.mktemp("run") / "run.txt", lines)
    one = evaluate_quietly(qrels, path, MEASURES, workers=1, complete=complete)
    many = evaluate_quietly(qrels, path, MEASURES, workers=workers, complete=complete)
    memory = evaluate_quietly(qrels, Run.from_trec(path), MEASURES, complete=complete)
    assert many.per_query == one.per_query == memory.per_query
    assert many.aggregate == one.aggregate == memory.aggregate
    assert many.skipped == one.skipped == ("zz",)
    assert many.missing == one.missing
    assert many.run_name == one.run_name == memory.run_name


def test_jobs_start_at_new_queries_and_get_smaller(tmp_path):
    # The workers' jobs: ranges that cover the file, each starting at a new
    # query; for each worker a half of its share, a quarter, ... and two
    # thirty-seconds, so that the last jobs are small (a worker slowed down
    # takes fewer of them).  With more workers than a byte can number six
    # jobs of, one job each.
    qrels, lines = make_data(5, n_queries=2000, depth=20)
    path = write_run(tmp_path / "run.txt", lines)
    data = open(path, "rb").read()
    size = len(data)
    for workers in (2, 3, 43):
        jobs = _job_ranges(str(path), workers)
        assert jobs[0][0] == 0 and jobs[-1][1] == size
        assert all(a[1] == b[0] for a, b in zip(jobs, jobs[1:]))
        for start, _ in jobs[1:]:
            before = data[:start].rstrip(b"\n").rsplit(b"\n", 1)[-1].split()[0]
            assert data[start:].split()[0] != before
        if workers == 43:  # 6 x 43 > 255: one job each, of about the same size
            assert len(jobs) == workers
            continue
        assert len(jobs) == 6 * workers
        sizes = [b - a for a, b in jobs]
        line = max(map(len, lines)) * 20  # a cut moves forward by a query at most
        for level, share in enumerate([2, 4, 8, 16, 32, 32]):
            for got in sizes[level * workers:(level + 1) * workers]:
                assert abs(got - size / (share * workers)) <= 2 * line


def test_ranges_start_at_new_queries(tmp_path):
    qrels, lines = make_data(3, n_queries=7, depth=10)
    path = write_run(tmp_path / "run.txt", lines)
    data = open(path, "rb").read()
    for workers in (1, 2, 3, 8, 50):
        ranges = _job_ranges(path, workers)
        assert ranges[0][0] == 0 and ranges[-1][1] == len(data)
        assert all(a[1] == b[0] for a, b in zip(ranges, ranges[1:]))
        for start, _ in ranges[1:]:
            # a range starts at a line whose query differs from the line before
            before = data[:start].rstrip(b"\n").rsplit(b"\n", 1)[-1].split()[0]
            assert data[start:].split()[0] != before


def test_errors_name_the_line_of_the_whole_file(tmp_path):
    qrels, lines = make_data(5, n_queries=6, depth=10)
    bad = len(lines) - 5  # a line near the end: in the last range
    q, q0, d, rank, _, tag = lines[bad].split()
    lines[bad] = f"{q} {q0} {d} {rank} oops {tag}\n"  # a score that is not a number
    path = write_run(tmp_path / "run.txt", lines)
    with pytest.raises(TrecFormatError) as one:
        evaluate_quietly(qrels, path, ["map"], workers=1)
    with pytest.raises(TrecFormatError) as many:
        evaluate_quietly(qrels, path, ["map"], workers=3)
    assert str(many.value) == str(one.value)
    assert one.value.line == bad + 1
    assert "score must be a number (got 'oops')" in str(one.value)


def test_duplicates_name_both_lines_of_the_whole_file(tmp_path):
    qrels, lines = make_data(6, n_queries=6, depth=10)
    last_query = lines[-2].split()[0]
    first = next(i for i, line in enumerate(lines) if line.split()[0] == last_query)
    lines[first + 2] = lines[first]  # the same document twice in the last query
    path = write_run(tmp_path / "run.txt", lines)
    with pytest.raises(DuplicateEntryError) as many:
        evaluate_quietly(qrels, path, ["map"], workers=3)
    with pytest.raises(DuplicateEntryError) as one:
        evaluate_quietly(qrels, path, ["map"], workers=1)
    assert str(many.value) == str(one.value)
    assert (many.value.first_line, many.value.line) == (first + 1, first + 3)


def test_a_query_split_across_ranges_falls_back_to_memory(tmp_path):
    # q1's lines come back at the end: the ranges cannot be scored apart.
    lines = [f"q{q} Q0 d{i} {i} {10 - i} t\n" for q in range(4) for i in range(1, 9)]
    lines.append("q1 Q0 d99 9 0.5 t\n")
    path = write_run(tmp_path / "run.txt", lines)
    qrels = {f"q{q}": {"d1": 1, "d99": 1} for q in range(4)}
    many = evaluate(qrels, path, ["map", "num_ret"], workers=3)
    memory = evaluate(qrels, Run.from_trec(io.StringIO("".join(lines))), ["map", "num_ret"])
    assert many.per_query == memory.per_query
    assert many.per_query["q1"]["num_ret"] == 9


def test_qrels_file_and_run_file(tmp_path):
    qrels, lines = make_data(8)
    qpath = tmp_path / "qrels.txt"
    Qrels.from_dict(qrels).to_trec(str(qpath))
    path = write_run(tmp_path / "run.txt", lines)
    a = evaluate_quietly(str(qpath), path, ["map"], workers=2)
    b = evaluate_quietly(qrels, path, ["map"], workers=1)
    assert a.per_query == b.per_query


def test_default_worker_count(tmp_path, monkeypatch):
    # Two processes from PARALLEL_FROM bytes (2 MiB) of plain run file on,
    # one below it, for gzip files and open files, and with other threads.
    import gzip
    import os
    import threading

    from irmetrics import _parallel
    from irmetrics._parallel import PARALLEL_FROM, auto_workers

    # Threads that earlier tests left in this process (Dask's offload thread,
    # Spark's py4j threads) are not this test's: count only the ones it starts.
    count, before = _parallel._threads, _parallel._threads()
    monkeypatch.setattr(_parallel, "_threads", lambda: count() - before + 1)

    assert PARALLEL_FROM == 2 << 20
    small, big = tmp_path / "small.run", tmp_path / "big.run"
    for path, size in ((small, PARALLEL_FROM - 1), (big, PARALLEL_FROM)):
        with open(path, "wb") as f:
            f.truncate(size)  # sparse: the size without the writing
    packed = tmp_path / "big.run.gz"
    packed.write_bytes(gzip.compress(b"q Q0 d 1 1 t\n") + b"\0" * PARALLEL_FROM)
    expected = min(2, os.cpu_count() or 1)
    assert auto_workers(str(small)) == 1
    assert auto_workers(str(big)) == expected
    assert auto_workers(big) == expected  # a PathLike
    assert auto_workers(str(packed)) == 1
    with open(big, "rb") as f:
        assert auto_workers(f) == 1
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert auto_workers(str(big)) == 1
    finally:
        stop.set()
        other.join()


# === Safety: threads, signals, dead workers ===

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.filterwarnings("ignore::irmetrics.errors.IrmetricsWarning")
def test_threads_calling_with_workers_are_independent(tmp_path):
    # Before: module-level state shared by concurrent calls gave other files'
    # values, errors naming another thread's file, or "worker failed: no state".
    cases = []
    for seed in range(4):
        qrels, lines = make_data(100 + seed, n_queries=12, depth=15)
        path = write_run(tmp_path / f"run{seed}.txt", lines)
        expected = evaluate_quietly(qrels, path, MEASURES, workers=1)
        cases.append((qrels, path, expected))
    results = {}
    errors = []

    def work(i):
        qrels, path, _ = cases[i % 4]
        try:
            for _ in range(3):
                got = evaluate(qrels, path, MEASURES, workers=2)  # (filters are not thread-safe)
                results.setdefault(i, []).append(got)
        except BaseException as exc:  # recorded, the assertion below names it
            errors.append(repr(exc))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    for i in range(8):
        expected = cases[i % 4][2]
        for got in results[i]:
            assert got.per_query == expected.per_query
            assert got.aggregate == expected.aggregate


@pytest.fixture(scope="module")
def big_files(tmp_path_factory):
    """A run file large enough (about 90 MB) that two workers take a while."""
    folder = tmp_path_factory.mktemp("big")
    block = "".join(f"Q0 d{d} {d} {1000 - d}.25 big\n" for d in range(1000))
    with open(folder / "run", "w") as f:
        for q in range(3000):
            f.write(block.replace("Q0", f"q{q} Q0"))
    with open(folder / "qrels", "w") as f:
        for q in range(3000):
            f.write(f"q{q} 0 d7 1\nq{q} 0 d500 2\n")
    return str(folder / "qrels"), str(folder / "run")


def children(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(c) for c in f.read().split()]
    except OSError:
        return []


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split()[2] != "Z"
    except OSError:
        return False


def busy(pid, seconds=0.1):
    """Wait until process *pid* has used *seconds* of CPU time."""
    ticks = os.sysconf("SC_CLK_TCK") * seconds
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        if int(fields[11]) + int(fields[12]) >= ticks:  # utime + stime
            return
        time.sleep(0.01)
    pytest.fail(f"process {pid} did not start working")


# The command line with a thread alive (it is not forked: one process scores the run).
THREADED_CLI = ("import sys, threading; "
                "threading.Thread(target=threading.Event().wait, daemon=True).start(); "
                "from irmetrics.cli import console; console()")


def start_cli(qrels, run, threaded=False):
    """The command line scoring *run* with --workers 2, and its workers once
    they have started (with a thread alive: none, once it is at work)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    command = ["-c", THREADED_CLI] if threaded else ["-m", "irmetrics"]
    proc = subprocess.Popen(
        # all_trec: long enough to be interrupted, and answers larger than a
        # pipe's buffer (a worker blocks sending them until the parent reads)
        [sys.executable, *command, "--workers", "2", "-m", "all_trec", qrels, run],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=ROOT,
    )
    if threaded:
        busy(proc.pid, 1.0)  # past reading the qrels: scoring the run
        assert children(proc.pid) == []
        return proc, []
    deadline = time.monotonic() + 30
    while len(children(proc.pid)) < 2:
        if time.monotonic() > deadline or proc.poll() is not None:
            proc.kill()
            pytest.fail("the workers did not start")
        time.sleep(0.01)
    return proc, children(proc.pid)


needs_proc = pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="needs Linux /proc")


@needs_proc
@pytest.mark.parametrize("threaded", [False, True], ids=["forked", "one-process"])
@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, -signal.SIGTERM)])
def test_a_signal_to_the_parent_alone_ends_the_workers(big_files, sig, code, threaded):
    # Before: SIGINT to the parent alone (Jupyter's interrupt) hung forever,
    # SIGTERM left the workers blocked forever.  With a thread alive there are
    # no workers: the one process ends the same way.
    proc, workers = start_cli(*big_files, threaded=threaded)
    os.kill(proc.pid, sig)  # the parent only, not its process group
    sent = time.monotonic()
    try:
        _, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        for w in workers:
            os.kill(w, signal.SIGKILL)
        pytest.fail("the command line did not end after the signal")
    assert proc.returncode == code
    assert time.monotonic() - sent < 3  # promptly: not after the workers' work
    if sig == signal.SIGINT:
        assert err.decode().splitlines() == ["irmetrics: interrupted"]
    time.sleep(0.2)
    assert [w for w in workers if alive(w)] == []


@needs_proc
def test_a_killed_worker_is_a_one_line_error(big_files):
    proc, workers = start_cli(*big_files)
    busy(workers[0])  # it has taken a job (a quarter of the file, seconds of work)
    os.kill(workers[0], signal.SIGKILL)  # as the out-of-memory killer would
    _, err = proc.communicate(timeout=30)
    lines = err.decode().splitlines()
    assert proc.returncode == 1
    assert len(lines) == 1
    assert re.fullmatch(r"irmetrics: error: the worker process scoring bytes \d+-\d+ of "
                        r".*run was killed by SIGKILL \(out of memory\?\)", lines[0])
    assert [w for w in workers if alive(w)] == []


def test_workers_send_evaluation_parts_that_merge_makes_the_whole(tmp_path, monkeypatch):
    # Issue 13, item 4: the parallel route is one more user of the road: each
    # worker returns the Evaluation of its queries and Evaluation.merge makes
    # the whole; no second aggregation.
    from irmetrics import Evaluation

    qrels, lines = make_data(7, n_queries=40, depth=20)
    path = write_run(tmp_path / "run.txt", lines)
    calls = []
    merge = Evaluation.merge.__func__

    def spy(cls, parts):
        parts = list(parts)
        calls.append(parts)
        return merge(cls, parts)

    monkeypatch.setattr(Evaluation, "merge", classmethod(spy))
    got = evaluate_quietly(qrels, path, MEASURES, workers=2)
    expected = evaluate_quietly(qrels, path, MEASURES, workers=1)
    assert len(calls) == 2  # one merge per evaluation
    parallel_parts = calls[0]
    # a part per job (range of the file: twelve for two workers, smaller
    # towards the end; fewer where cuts meet) and the part of the judged
    # queries the run lacks
    jobs = _job_ranges(str(path), 2)
    assert 2 < len(jobs) <= 12
    assert len(parallel_parts) == len(jobs) + 1
    assert all(isinstance(p, Evaluation) for p in parallel_parts)
    job_queries = [set(p._rows) | set(p.skipped) for p in parallel_parts[:-1]]
    assert all(job_queries)
    assert sum(map(len, job_queries)) == len(set().union(*job_queries))  # disjoint
    assert set(got.per_query) == set().union(*job_queries) - set(got.skipped)
    assert got.per_query == expected.per_query
    assert got.aggregate == expected.aggregate


def test_a_warning_from_a_worker_reaches_the_caller_with_the_files_line(tmp_path):
    # Before: a warning raised while a worker read its range (here a line of
    # 11 fields) stayed in the worker: two processes showed nothing.
    from irmetrics.errors import IrmetricsWarning

    qrels = {f"q{q}": {"d3": 1} for q in range(30)}
    lines = [f"q{q} Q0 d{d} {d} {50 - d}.5 tag\n" for q in range(30) for d in range(40)]
    lines[25 * 40 + 5] = lines[25 * 40 + 5].rstrip("\n") + " x y z w v\n"  # file line 1006
    path = write_run(tmp_path / "run.txt", lines)
    shown = {}
    for workers in (1, 2):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            evaluate(qrels, path, ["map"], workers=workers)
        shown[workers] = [(w.category, str(w.message), w.filename) for w in caught]
    assert shown[2] == shown[1]
    assert len(shown[2]) == 1
    category, message, filename = shown[2][0]
    assert category is IrmetricsWarning
    assert message.startswith(f"{path}, line 1006: 11 fields")
    assert filename == __file__  # the caller's line, as from one process


def test_when_no_process_can_be_forked_one_process_scores_the_run(tmp_path, monkeypatch):
    # fork failing (EAGAIN: too many processes) is not the input's fault:
    # the run is scored in the calling process, with the same values.
    import errno

    qrels, lines = make_data(11, n_queries=20)
    path = write_run(tmp_path / "run.txt", lines)
    expected = evaluate_quietly(qrels, path, MEASURES, workers=1)
    opened = len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else None

    def no_fork():
        raise OSError(errno.EAGAIN, "Resource temporarily unavailable")

    monkeypatch.setattr(os, "fork", no_fork)
    got = evaluate_quietly(qrels, path, MEASURES, workers=2)
    assert got.per_query == expected.per_query
    assert got.aggregate == expected.aggregate
    if opened is not None:  # the pipe made for the worker was closed
        assert len(os.listdir("/proc/self/fd")) == opened


# === What one process reports, the workers report (review of the jobs) ===


@pytest.mark.parametrize("complete", [False, True])
def test_an_empty_run_file_is_the_same_error_with_workers(tmp_path, complete):
    # Before: with workers=2 an empty file made no job and no error
    # ({'map': 0.0} with complete=True).
    path = write_run(tmp_path / "run.txt", [])
    with pytest.raises(TrecFormatError, match="no run entries") as one:
        evaluate({"q1": {"d1": 1}}, path, ["map"], workers=1, complete=complete)
    with pytest.raises(TrecFormatError, match="no run entries") as many:
        evaluate({"q1": {"d1": 1}}, path, ["map"], workers=2, complete=complete)
    assert str(many.value) == str(one.value)


def _lines_of(qid, docs, first_rank=1):
    return [f"{qid} Q0 {d} {first_rank + i} {1 - (first_rank + i) / 1000:.3f} run\n"
            for i, d in enumerate(docs)]


def test_an_ungrouped_run_with_errors_reports_what_one_process_reports(tmp_path):
    # q01 comes back at line 601 with d5 again (lines 6 and 601); q03 has d0
    # twice (lines 602 and 701).  One process regroups at the repeat and
    # reports q01's duplicate; before, two workers' jobs reported q03's.
    lines = _lines_of("q01", [f"d{i}" for i in range(100)])
    lines += _lines_of("q02", [f"d{i}" for i in range(500)])
    lines += _lines_of("q01", ["d5"], 101)
    lines += _lines_of("q03", [f"d{i}" for i in range(99)] + ["d0"])
    for n in range(4, 17):
        lines += _lines_of(f"q{n:02d}", [f"d{i}" for i in range(100)])
    path = write_run(tmp_path / "run.txt", lines)
    qrels = {f"q{n:02d}": {"d1": 1} for n in range(1, 17)}
    errors = {}
    for workers in (1, 2, 3):
        with pytest.raises(DuplicateEntryError) as info:
            evaluate_quietly(qrels, path, ["map"], workers=workers)
        errors[workers] = str(info.value)
    assert errors[1].endswith("line 601: document 'd5' appears twice for query 'q01' "
                              "(lines 6 and 601)")
    assert errors[2] == errors[3] == errors[1]


def test_warnings_before_an_error_reach_the_caller_with_workers_too(tmp_path):
    # A line of 12 fields (a warning) at line 3, a bad score at line 701:
    # before, two workers raised the error and lost the warning.
    lines = [f"q{q:03d} Q0 d{i} {i + 1} {1 - i / 100:.2f} run\n"
             for q in range(40) for i in range(20)]
    lines[2] = lines[2].rstrip("\n") + " x y z w v u\n"
    lines[700] = "q035 Q0 d0 1 abc run\n"
    path = write_run(tmp_path / "run.txt", lines)
    qrels = {f"q{q:03d}": {"d1": 1} for q in range(40)}
    seen = {}
    for workers in (1, 2):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with pytest.raises(TrecFormatError) as info:
                evaluate(qrels, path, ["map"], workers=workers)
        seen[workers] = (str(info.value), [str(w.message) for w in caught])
    assert seen[2] == seen[1]
    message, shown = seen[1]
    assert message.endswith("line 701: score must be a number (got 'abc')")
    assert len(shown) == 1 and ", line 3: 12 fields" in shown[0]


def _failing_at(monkeypatch, tmp_path, qid, action):
    """Make the scorer do *action* when it meets *qid* and every other job
    take a second; return the file where each job writes its first query."""
    import importlib

    evaluate_module = importlib.import_module("irmetrics.evaluate")
    original = evaluate_module._Road.score
    log = tmp_path / "jobs.log"
    log.write_text("")

    class Source:
        def __init__(self, source):
            self.__dict__["_source"] = source

        def __getattr__(self, name):
            return getattr(self._source, name)

        def __iter__(self):
            for i, group in enumerate(self._source):
                if i == 0:
                    with open(log, "a") as f:
                        f.write(group[0] + "\n")
                if group[0] == qid:
                    action()
                yield group
            time.sleep(1)

    def score(road, source, progress=None):
        return original(road, Source(source), progress)

    monkeypatch.setattr(evaluate_module._Road, "score", score)
    return log


def _job_of(path, qid):
    """The byte range of the job (two workers) that holds *qid*'s first line."""
    data = open(path, "rb").read()
    at = data.index(f"{qid} Q0".encode())
    return next((a, b) for a, b in _job_ranges(path, 2) if a <= at < b)


@pytest.mark.parametrize("how", ["killed", "crashed"])
def test_a_worker_that_dies_stops_the_others_and_names_its_job(tmp_path, monkeypatch, how):
    # Before: the other worker went on taking every remaining job (a second
    # each here) before the error came.  A worker killed by SIGKILL (as by
    # the out-of-memory killer) is named with the bytes of the job it held.
    qrels, lines = make_data(12, n_queries=60, depth=30)
    path = write_run(tmp_path / "run.txt", lines)
    ranges = _job_ranges(path, 2)
    assert len(ranges) == 12
    # a query in the middle of the second job, which the second worker takes first
    data = open(path, "rb").read()
    middle = data.index(b"\n", (ranges[1][0] + ranges[1][1]) // 2) + 1
    failing = data[middle:].split()[0].decode()

    def die():
        if how == "killed":
            os.kill(os.getpid(), signal.SIGKILL)
        raise MemoryError("no more")

    log = _failing_at(monkeypatch, tmp_path, failing, die)
    with pytest.raises(WorkerError) as info:
        evaluate_quietly(qrels, path, ["map"], workers=2)
    if how == "killed":
        start, end = _job_of(path, failing)
        assert str(info.value) == (f"the worker process scoring bytes {start}-{end} of {path} "
                                   "was killed by SIGKILL (out of memory?)")
    else:
        assert str(info.value) == "a worker process failed: MemoryError: no more"
    # the two first jobs (and at most the one the other worker was taking
    # then): not the rest
    started = log.read_text().split()
    assert len(started) <= 3 < len(ranges)


# === No fork of a threaded process; signals, descriptors, a BOM (issue 42) ===


def one_thread_only():
    """Fail where this process runs other threads: it is never forked then,
    and a test of the workers would test one process (conftest runs the tests
    marked ``fork`` in a fresh process where this one has threads)."""
    try:  # (counted as the library counts them)
        threads = len(os.listdir("/proc/self/task"))
    except OSError:
        threads = threading.active_count()
    if threads > 1:
        pytest.fail(f"this process runs {threads} threads: irmetrics does not fork it")


def run_lines(qid_count, depth, seed, tag):
    rng = random.Random(seed)
    lines = []
    for q in range(qid_count):
        for rank, doc in enumerate(rng.sample(range(5 * depth), depth), 1):
            lines.append(f"q{q} Q0 d{doc} {rank} {rng.randrange(10**6) / 1000} {tag}\n")
    return lines


# The script of one try of the stress test: six threads, each calling
# evaluate(..., workers=2) six times; every result must equal the one-process
# result, computed before the threads start.  It prints "ok" and exits 0.
STRESS = """
import sys, threading, warnings
warnings.simplefilter("ignore")
from irmetrics import _parallel, evaluate
qrels, runs = sys.argv[1], sys.argv[2:]
expected = [evaluate(qrels, r, ["map", "P_10"], workers=1).per_query for r in runs]
errors = []
def work(i):
    try:
        for k in range(6):
            j = (i + k) % len(runs)
            got = evaluate(qrels, runs[j], ["map", "P_10"], workers=2).per_query
            if got != expected[j]:
                errors.append(("differs", i, k))
    except BaseException as exc:
        errors.append(repr(exc))
threads = [threading.Thread(target=work, args=(i,)) for i in range(6)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print("ok" if not errors else errors)
"""


def marked_processes(marker):
    """The pids of the processes whose environment holds *marker* (a try's
    workers inherit it, and outlive it only as orphans of init)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                if marker.encode() in f.read().split(b"\0"):
                    found.append(int(entry))
        except OSError:
            pass
    return found


@needs_proc
@pytest.mark.slow
def test_threads_calling_with_workers_never_hang_and_leave_no_process(tmp_path):
    # Issue 42: 6 threads x 6 calls of evaluate(..., workers=2) on four runs
    # of 18,000 lines hung in about 1 try in 6: a worker forked while another
    # thread held the import lock waited for it forever (at `import pickle`),
    # outlived its parent and ignored SIGTERM.  Each try runs in a process
    # bounded by a timeout, so that a hang fails the test.  Now the calls
    # (threads alive) run in one process each.
    qrels = {}
    runs = []
    for n in range(4):
        lines = run_lines(180, 100, n, f"run{n}")  # 180 queries x 100 = 18,000 lines
        runs.append(write_run(tmp_path / f"run{n}.txt", lines))
    for q in range(180):
        qrels[f"q{q}"] = {f"d{d}": d % 3 for d in range(0, 500, 7)}
    qpath = tmp_path / "qrels.txt"
    Qrels.from_dict(qrels).to_trec(str(qpath))
    # Two tries at a time (the machine's two cores), each in its own process
    # with its own timeout; both are ended and looked for before either's
    # outcome is asserted.
    for first in range(0, 20, 2):
        tries = [start_stress_try(attempt, qpath, runs) for attempt in (first, first + 1)]
        for attempt, outcome, left in [end_stress_try(*one) for one in tries]:
            assert (attempt, *outcome) == (attempt, "ok", "")
            assert left == []


def start_stress_try(attempt, qpath, runs):
    """Start try *attempt* of the stress test: the try, its marker, its process."""
    marker = f"IRMETRICS_STRESS_TRY={os.getpid()}-{attempt}"
    name, value = marker.split("=")
    env = dict(os.environ, PYTHONPATH=str(ROOT), **{name: value})
    proc = subprocess.Popen([sys.executable, "-c", STRESS, str(qpath), *runs],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    return attempt, marker, proc


def end_stress_try(attempt, marker, proc):
    """Wait for a try (60 seconds at most), end it and the processes it left;
    the try, its output and error output, and the pids of those it left."""
    try:
        out, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        out, err = b"", b"timed out"
    finally:
        proc.kill()
        proc.wait()
        left = marked_processes(marker)
        for pid in left:  # (not to leave them on the machine either)
            os.kill(pid, signal.SIGKILL)
    return attempt, (out.decode().strip(), err.decode()), left


def test_without_fork_one_process_gives_the_same_numbers(tmp_path, monkeypatch):
    # As on Windows: os.fork absent; workers=2 is one process, same values.
    qrels, lines = make_data(21, n_queries=30)
    path = write_run(tmp_path / "run.txt", lines)
    expected = evaluate_quietly(qrels, path, MEASURES, workers=1)
    monkeypatch.delattr(os, "fork")
    assert not parallel_possible(path)
    got = evaluate_quietly(qrels, path, MEASURES, workers=2)
    assert got.per_query == expected.per_query
    assert got.aggregate == expected.aggregate


def test_a_process_with_other_threads_scores_in_one_process(tmp_path, monkeypatch):
    # Forking while another thread holds a lock can hang the child: with a
    # thread alive, workers=2 forks nothing and one process gives the same
    # values, without a warning; once the thread has ended, two workers.
    one_thread_only()
    qrels, lines = make_data(22, n_queries=30)
    path = write_run(tmp_path / "run.txt", lines)
    expected = evaluate_quietly(qrels, path, MEASURES, workers=1)
    from irmetrics import _parallel

    forks = []
    fork = os.fork
    monkeypatch.setattr(os, "fork", lambda: forks.append(1) or fork())
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = evaluate(qrels, path, MEASURES, workers=2)
        with warnings.catch_warnings(record=True) as alone_caught:
            warnings.simplefilter("always")
            evaluate(qrels, path, MEASURES, workers=1)
    finally:
        stop.set()
        other.join()
    assert forks == []  # one process
    assert [str(w.message) for w in caught] == [str(w.message) for w in alone_caught]
    assert got.per_query == expected.per_query
    assert got.aggregate == expected.aggregate
    # join() returns before the OS thread is gone from /proc/self/task
    deadline = time.monotonic() + 10
    while _parallel._threads() > 1 and time.monotonic() < deadline:
        time.sleep(0.01)
    alone = evaluate_quietly(qrels, path, MEASURES, workers=2)  # the thread has ended
    assert len(forks) == 2  # two workers, forked
    assert alone.per_query == expected.per_query


@pytest.mark.filterwarnings("ignore::irmetrics.errors.IrmetricsWarning")
def test_with_a_thread_alive_warnings_and_errors_name_the_files_lines(tmp_path):
    # What the forked workers report, one process reports (a thread alive).
    one_thread_only()
    lines = [f"q{q:03d} Q0 d{i} {i + 1} {1 - i / 100:.2f} run\n"
             for q in range(40) for i in range(20)]
    lines[2] = lines[2].rstrip("\n") + " x y z w v u\n"  # line 3: a warning
    path = write_run(tmp_path / "run.txt", lines)
    lines[700] = "q035 Q0 d0 1 abc run\n"  # line 701: an error
    bad = write_run(tmp_path / "bad.txt", lines)
    qrels = {f"q{q:03d}": {"d1": 1} for q in range(40)}
    seen = {}
    for threaded in (False, True):
        stop = threading.Event()
        other = threading.Thread(target=stop.wait)
        if threaded:
            other.start()
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                got = evaluate(qrels, path, ["map"], workers=2)
                with pytest.raises(TrecFormatError) as info:
                    evaluate(qrels, bad, ["map"], workers=2)
        finally:
            stop.set()
            if threaded:
                other.join()
        seen[threaded] = (got.per_query, str(info.value), [str(w.message) for w in caught])
    assert seen[True] == seen[False]
    assert seen[True][1].endswith("line 701: score must be a number (got 'abc')")
    assert len(seen[True][2]) == 2 and all(", line 3: 12 fields" in m for m in seen[True][2])


@pytest.mark.slow
def test_a_script_with_a_thread_alive_scores_in_one_process(tmp_path):
    # A script (no main guard) with a thread alive asking for two workers:
    # its top level runs once, nothing is forked, the same value, nothing on
    # stderr, and it exits (no process waits for another).
    qrels, lines = make_data(25, n_queries=30)
    path = write_run(tmp_path / "run.txt", lines)
    qpath = tmp_path / "qrels.txt"
    Qrels.from_dict(qrels).to_trec(str(qpath))
    log = tmp_path / "log.txt"
    script = tmp_path / "script.py"
    script.write_text(
        "import os, threading, warnings\n"
        "from irmetrics import evaluate\n"
        f"open({str(log)!r}, 'a').write('top level\\n')\n"
        "threading.Thread(target=threading.Event().wait, daemon=True).start()\n"
        "warnings.simplefilter('ignore')\n"
        "forks, fork = [], os.fork\n"
        "os.fork = lambda: forks.append(1) or fork()\n"
        f"print(evaluate({str(qpath)!r}, {path!r}, ['map'], workers=2).aggregate['map'])\n"
        "print(len(forks))\n"
    )
    done = subprocess.run([sys.executable, str(script)], capture_output=True, timeout=120,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    expected = evaluate_quietly(qrels, path, ["map"], workers=1).aggregate["map"]
    assert (done.returncode, done.stdout, done.stderr) == (0, f"{expected!r}\n0\n".encode(), b"")
    assert log.read_text() == "top level\n"


def test_a_bytes_path_is_scored_in_parallel(tmp_path, monkeypatch):
    # bytes paths are paths everywhere (as for open()): the same workers, the
    # same values as the str path (issue 42)
    one_thread_only()
    qrels, lines = make_data(22, n_queries=30)
    path = write_run(tmp_path / "run.txt", lines)
    expected = evaluate_quietly(qrels, path, MEASURES, workers=1)
    forks = []
    fork = os.fork
    monkeypatch.setattr(os, "fork", lambda: forks.append(1) or fork())
    got = evaluate_quietly(qrels, os.fsencode(path), MEASURES, workers=2)
    assert len(forks) == 2
    assert got.per_query == expected.per_query


def python_312_or_newer():
    """An interpreter of Python 3.12 or newer (which warns about forking a
    process with threads): this one, one on the PATH, or pyenv's; None."""
    import glob

    if sys.version_info >= (3, 12):
        return sys.executable
    found = [shutil.which(name) for name in ("python3.13", "python3.12")]
    found += sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.1[2-9]*/bin/python3")))
    for python in filter(None, found):
        try:
            done = subprocess.run([python, "-c", "import sys; print(sys.version_info >= (3, 12))"],
                                  capture_output=True, timeout=30)
        except OSError:
            continue
        if done.stdout == b"True\n":  # (a pyenv shim of a version not selected fails)
            return python
    return None


@pytest.mark.slow
def test_no_deprecation_warning_about_fork_with_a_thread_alive(tmp_path):
    # Python 3.12+ warns (DeprecationWarning) when a process with threads
    # forks; before, workers=2 with a thread alive warned twice per call.
    # Now two forks without threads, none with a thread alive.
    python = python_312_or_newer()
    if python is None:
        pytest.skip("needs Python 3.12 or newer (its warning about fork)")
    qrels, lines = make_data(23, n_queries=30)
    path = write_run(tmp_path / "run.txt", lines)
    qpath = tmp_path / "qrels.txt"
    Qrels.from_dict(qrels).to_trec(str(qpath))
    # (the warning is recorded: CPython does not raise it, even as an error)
    script = (
        "import os, sys, threading, warnings\n"
        "from irmetrics import evaluate\n"
        "q, r = sys.argv[1:]\n"
        "forks, fork = [], os.fork\n"
        "os.fork = lambda: forks.append(1) or fork()\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        "    one = evaluate(q, r, ['map'], workers=1).per_query\n"
        "    alone = evaluate(q, r, ['map'], workers=2).per_query\n"
        "    stop = threading.Event()\n"
        "    t = threading.Thread(target=stop.wait, daemon=True); t.start()\n"
        "    threaded = evaluate(q, r, ['map'], workers=2).per_query\n"
        "    stop.set(); t.join()\n"
        "print(one == alone == threaded, len(forks))\n"
        "print([str(w.message) for w in caught if w.category is DeprecationWarning])\n"
    )
    done = subprocess.run([python, "-c", script, str(qpath), path], capture_output=True,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=120)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"True 2\n[]\n", b"")


# The script of the SIGTERM tests: SIGTERM ignored or handled by a handler
# that returns, then an evaluation with two workers of the big file.
SIGTERM_SCRIPT = """
import signal, sys
from irmetrics import evaluate
handled = []
if sys.argv[3] == "ignored":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
else:
    signal.signal(signal.SIGTERM, lambda signum, frame: handled.append(signum))
e = evaluate(sys.argv[1], sys.argv[2], ["map", "P_10"], workers=2)
print(repr(e.aggregate["map"]), repr(e.aggregate["P_10"]), len(e.per_query), handled)
"""


@needs_proc
@pytest.mark.slow
@pytest.mark.parametrize("how", ["ignored", "handled"])
def test_sigterm_ignored_or_handled_lets_the_evaluation_finish(big_files, how):
    # Issue 42: before, a SIGTERM during parallel scoring raised
    # KeyboardInterrupt even where the application ignores SIGTERM or handles
    # it and returns (graceful shutdown); one process would have finished.
    qrels, run = big_files
    proc = subprocess.Popen([sys.executable, "-c", SIGTERM_SCRIPT, qrels, run, how],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=dict(os.environ, PYTHONPATH=str(ROOT)))
    deadline = time.monotonic() + 60
    while len(children(proc.pid)) < 2:
        if time.monotonic() > deadline or proc.poll() is not None:
            proc.kill()
            pytest.fail("the workers did not start")
        time.sleep(0.01)
    workers = children(proc.pid)
    os.kill(proc.pid, signal.SIGTERM)
    try:
        out, err = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail("the evaluation did not end")
    # every query ranks d0..d999 by score, d7 (label 1) at rank 8 and d500
    # (label 2) at rank 501: AP = (1/8 + 2/501) / 2, P@10 = 1/10 (the means
    # of 3,000 equal values: up to rounding)
    handled = "[15]" if how == "handled" else "[]"  # SIGTERM is 15 on Linux
    assert (proc.returncode, err) == (0, b"")
    got_map, p10, num_q, seen = out.decode().split(maxsplit=3)
    assert float(got_map) == pytest.approx((1 / 8 + 2 / 501) / 2, rel=1e-12)
    assert float(p10) == pytest.approx(0.1, rel=1e-12)
    assert (num_q, seen.strip()) == ("3000", handled)
    assert [w for w in workers if alive(w)] == []


@needs_proc
@pytest.mark.slow
def test_workers_end_soon_when_the_parent_is_killed(big_files):
    proc, workers = start_cli(*big_files)
    busy(workers[0])
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate()
    deadline = time.monotonic() + 10
    while [w for w in workers if alive(w)] and time.monotonic() < deadline:
        time.sleep(0.05)
    left = [w for w in workers if alive(w)]
    for w in left:
        os.kill(w, signal.SIGKILL)
    assert left == []


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs resource limits (POSIX)")
def test_too_few_file_descriptors_start_fewer_workers(tmp_path):
    # Issue 42: `ulimit -n 64; irmetrics --workers 300 ...` ended with "Too
    # many open files" (exit 2).  Fewer processes (or one) give the same output.
    import resource

    lines = run_lines(600, 20, 24, "fds")  # 600 queries: 255 jobs for 300 workers
    path = write_run(tmp_path / "run.txt", lines)
    qpath = tmp_path / "qrels.txt"
    Qrels.from_dict({f"q{q}": {f"d{q % 100}": 1, "d3": 2} for q in range(600)}).to_trec(
        str(qpath))
    assert len(_job_ranges(path, 300)) == 255

    def limit():
        resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))

    outputs = []
    for workers in ("1", "300"):
        done = subprocess.run(
            [sys.executable, "-m", "irmetrics", "--workers", workers, "-q", "-m", "map",
             "-m", "P_10", str(qpath), path],
            capture_output=True, env=dict(os.environ, PYTHONPATH=str(ROOT)),
            preexec_fn=limit, timeout=120,
        )
        outputs.append((done.returncode, done.stdout, done.stderr))
    assert outputs[1] == outputs[0]
    # two measures for each of the 600 queries and for all: 1,202 lines
    assert outputs[0][0] == 0 and outputs[0][1].count(b"\n") == 1202


def test_a_bom_in_mid_file_is_part_of_its_line_whatever_the_workers(tmp_path):
    # Issue 42: `cat a.run b.run`, b.run from Windows.  A UTF-8 BOM is taken
    # off only at the very start of a file; in mid-file it stays part of the
    # line, whose query is then '\ufeffq9' (unjudged: skipped, with a
    # warning).  Before, a worker whose range started on that line took it off.
    one_thread_only()
    lines = _lines_of("q1", ["d1", "d2", "d3"]) + _lines_of("q2", ["d1", "d2", "d3"])
    lines += _lines_of("q3", ["d1", "d2", "d3"]) + _lines_of("q4", ["d1", "d2", "d3"])
    windows = "\ufeff" + "".join(_lines_of("q9", ["d1", "d2", "d3"]))
    path = write_run(tmp_path / "run.txt", lines + [windows])
    data = open(path, "rb").read()
    bom_at = data.index(b"\xef\xbb\xbf")
    assert bom_at > 0 and bom_at in [a for a, _ in _job_ranges(path, 2)]
    qrels = {"q1": {"d2": 1}, "q2": {"d3": 1}, "q3": {"d1": 1}, "q4": {"d2": 1},
             "q9": {"d1": 1}}
    seen = {}
    for workers in (1, 2):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = evaluate(qrels, path, ["map", "num_ret"], workers=workers)
        seen[workers] = (got.per_query, got.skipped, [str(w.message) for w in caught])
    assert seen[2] == seen[1]
    per_query, skipped, shown = seen[1]
    assert skipped == ("\ufeffq9",)
    # q9's lines without the mark: d2, d3 (d1 was on the marked line), d1 judged
    assert per_query["q9"] == {"map": 0.0, "num_ret": 2}
    assert len(shown) == 1 and "'\\ufeffq9'" in shown[0]


# === A long line with workers ===


def test_a_long_line_is_an_error_with_workers_too(tmp_path):
    # Guards the cutting of the file for the workers: it reads lines in
    # bounded memory, and a line over MAX_LINE is the reader's error.
    run = tmp_path / "run"
    run.write_bytes(b"q1 Q0 d1 1 0.5 r\n" + b"x" * (MAX_LINE + 10))
    assert _job_ranges(str(run), 2) == [(0, run.stat().st_size)]
    with pytest.raises(TrecFormatError, match="line 2: line is longer than 16 MiB"):
        evaluate({"q1": {"d1": 1}}, str(run), ["map"], workers=2)
