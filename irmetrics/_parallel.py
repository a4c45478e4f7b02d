"""Evaluating one large run file with several processes.

A run file grouped by query is cut into byte ranges at query boundaries, the
jobs, smaller towards the end of the file, so that workers running at
different speeds (a core shared with another program) finish together.  The
caller gives each worker process the next job when it has answered the last;
a worker scores each with the same code as the single-process route (a
:class:`~irmetrics.sources.RunSource` and the scorer of
:mod:`irmetrics.evaluate`) and sends back the :class:`~irmetrics.Evaluation`
of its queries, which the caller combines with
:meth:`~irmetrics.Evaluation.merge`.

Workers are forked, and only while the calling process has exactly one
thread: they inherit the qrels and the scorer.  With other threads alive
(Jupyter, a thread pool of numpy's) forking could hang (a fork copies every
lock as it is, and a lock another thread held at that moment is never
released in the child), so one process scores the run.  A worker runs
:func:`_serve` on its end of a :mod:`multiprocessing.connection` pipe.  Only
plain, uncompressed files on systems with fork qualify; anything else, and
any run whose queries turn out not to be grouped, goes the single-process
way.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import threading
import warnings
from typing import Any, Callable, Dict, List, Optional, Set, Tuple

from .errors import IrmetricsError, IrmetricsWarning, _warn
from .sources import open_run
from .trec import _GZIP_MAGIC, MAX_LINE

__all__ = [
    "score_in_parallel", "parallel_possible", "auto_workers", "WorkerError",
]

#: Run files this large (bytes) are scored in parallel by default: two forked
#: processes take clearly less time than one from about this size on (see
#: docs/benchmarks.md).
PARALLEL_FROM = 2 << 20

Score = Callable[[Any, Any], Any]


def parallel_possible(source: Any) -> bool:
    """True for a path to a plain (not gzip) regular file on a system with fork."""
    if not isinstance(source, (str, bytes, os.PathLike)) or not hasattr(os, "fork"):
        return False
    try:
        if not os.path.isfile(source):  # (a FIFO is not opened: that would wait)
            return False
        with open(source, "rb") as f:
            return f.read(2) != _GZIP_MAGIC
    except OSError:
        return False


def _threads() -> int:
    """The threads of this process, counted as CPython 3.12's warning about
    fork counts them: the entries of ``/proc/self/task`` where there is one
    (every OS thread, also those C libraries start), else the live
    :mod:`threading` threads."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return threading.active_count()


def auto_workers(source: Any) -> int:
    """How many processes to use when the caller did not say: two for a plain
    run file of PARALLEL_FROM bytes or more, in a process that runs no other
    threads (it is never forked then), else one."""
    if not parallel_possible(source) or _threads() > 1:
        return 1
    try:
        big = os.path.getsize(source) >= PARALLEL_FROM
    except OSError:  # gone since
        return 1
    return min(2, os.cpu_count() or 1) if big else 1


# === The jobs ===

#: At most this many jobs: with more workers than a sixth of it, one job each.
_MAX_JOBS = 255


def _job_ranges(path: str, workers: int) -> List[Tuple[int, int]]:
    """The jobs of *workers* processes: byte ranges starting at new queries,
    smaller towards the end of the file (for each worker, one job of a half
    of its share, then a quarter, an eighth, a sixteenth and two
    thirty-seconds)."""
    size = os.path.getsize(path)
    # each job's part of its worker's share, as a denominator
    parts = (2, 4, 8, 16, 32, 32) if 6 * workers <= _MAX_JOBS else (1,)  # else one job each
    share = [1 / (d * workers) for d in parts for _ in range(workers)]
    offsets = [int(size * f) for f in itertools.accumulate(share[:-1])]
    return _cut_at_queries(path, size, offsets[:_MAX_JOBS - 1])


def _cut_at_queries(path: str, size: int, offsets: List[int]) -> List[Tuple[int, int]]:
    """The ranges between *offsets* (increasing), each starting at a new query.

    A cut is moved forward to the first line whose query differs from the
    line before it; a range that would be empty is dropped.  A line longer
    than the readers take ends the search (in bounded memory): the file is
    then one range, and the reader reports the line.
    """
    cuts = [0]
    with open(path, "rb") as f:
        for offset in offsets:
            pos = max(offset, cuts[-1])
            f.seek(pos)
            if pos > 0 and _too_long(f.readline(MAX_LINE + 1)):  # to the next whole line
                return [(0, size)]
            prev: Optional[bytes] = None
            while True:
                start = f.tell()
                line = f.readline(MAX_LINE + 1)
                if _too_long(line):
                    return [(0, size)]
                if not line:
                    start = size
                    break
                fields = line.split(None, 1)
                if not fields or fields[0].startswith(b"#"):  # a blank line, a comment
                    continue
                if prev is not None and fields[0] != prev:
                    break
                prev = fields[0]
            if start > cuts[-1] and start < size:
                cuts.append(start)
    cuts.append(size)
    return [(a, b) for a, b in zip(cuts, cuts[1:]) if b > a]


def _too_long(line: bytes) -> bool:
    return len(line) > MAX_LINE and not line.endswith(b"\n")


class WorkerError(RuntimeError):
    """A worker process ended without an answer (killed, for instance by the
    out-of-memory killer, or crashed).  Not an error of the input."""


# === In a worker ===
# A worker is forked from a process with one thread: it inherits the
# scorer.  It runs with SIGINT blocked, and SIGTERM too unless the caller's
# disposition is the default: Ctrl-C is the caller's to handle (it stops the
# workers), and a SIGTERM that the application ignores or handles does not
# end them either.
# It ends when the caller says so, when its connection closes (the caller has
# died, when it waits for a job) or when sending fails (when it is scoring).
# Its messages: ("progress", queries, lines) of the job under way, every 64
# queries; then the job's reply: ("ok", part, warnings), ("again",) (the run
# is not grouped, or has an error: one process reads it and says which) or
# ("failed", the exception) (a bug, or no memory).


def _serve(  # pragma: no cover - runs in the worker (the tests see its effects)
    conn: Any, score: Score, path: str, blocked: Set[signal.Signals], theirs: List[Any]
) -> None:
    """The life of a forked worker: score the jobs (byte ranges of *path*)
    the caller sends on *conn* until it sends None or goes, then exit.  The
    caller's connections (*theirs*) are closed here, so that each connection
    ends with the caller."""
    code = 1
    try:
        for other in theirs:
            other.close()
        # not the caller's handler; still blocked where the caller's
        # disposition is not the default
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        with contextlib.suppress(EOFError, OSError):  # the caller has gone
            for start, end in iter(conn.recv, None):
                conn.send(_work(conn, score, path, start, end))
        code = 0
    finally:  # no cleanup of the caller's state (atexit, buffered output)
        os._exit(code)


def _work(conn: Any, score: Score, path: str, start: int, end: int) -> Tuple[Any, ...]:
    """Score the queries of ``path[start:end]``; the reply."""

    def progress(queries: int, lines: int) -> None:
        if not queries & 63:
            conn.send(("progress", queries, lines))

    try:
        with warnings.catch_warnings(record=True) as caught:  # sent to the caller
            warnings.simplefilter("always")
            # the same road as one process: a source (of this slice) and the
            # scorer; a query split between slices is for the caller to notice
            source = open_run(path, keep_duplicates=True, regroup=False, span=(start, end))
            part = score(source, progress)
    except IrmetricsError:
        return ("again",)
    except BaseException as exc:  # reported, never swallowed
        return ("failed", f"{type(exc).__name__}: {exc}")
    warned = []
    for w in caught:  # the library's go to the caller; others show here, as usual
        if issubclass(w.category, IrmetricsWarning):
            warned.append(str(w.message))
        else:
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)
    return ("ok", part, warned)


# === In the caller ===


class _Terminated(BaseException):
    """SIGTERM arrived while the workers ran: unwind, stop them, then die of it."""


def _on_sigterm(signum: int, frame: Any) -> None:
    raise _Terminated()


class _Worker:
    """A worker as the caller sees it: its pid and its end of the connection."""

    def __init__(self, pid: int, conn: Any) -> None:
        self.pid = pid
        self.conn = conn
        self.exitcode: Optional[int] = None

    def stop(self) -> Optional[int]:
        """End it (SIGKILL: it holds nothing that needs cleaning up; a process
        that has ended keeps its status) and reap it, once; its exit code."""
        self.conn.close()
        if self.exitcode is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
            self.exitcode = os.waitstatus_to_exitcode(os.waitpid(self.pid, 0)[1])
        return self.exitcode


def _start(
    count: int, score: Score, path: str, blocked: Set[signal.Signals], started: List[_Worker]
) -> None:
    """Fork up to *count* workers into *started* (fewer when the system gives
    no more processes or descriptors), each serving *score* and *path*
    (:func:`_serve`).  *blocked*: the signals the workers block."""
    from multiprocessing.connection import Pipe

    for _ in range(count):
        try:
            here, there = Pipe()
        except OSError:  # no descriptor left (EMFILE)
            return
        # signals arriving while the child starts would run the caller's handlers in it
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
        try:
            pid = os.fork()
            if pid == 0:  # pragma: no cover - the worker (the tests see its effects)
                _serve(there, score, path, blocked, [here] + [w.conn for w in started])
        except OSError:  # no process to be had (EAGAIN, ENOMEM, EMFILE)
            here.close()
            return
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
            there.close()
        started.append(_Worker(pid, here))


def _describe_death(exitcode: Optional[int]) -> str:
    if exitcode is not None and exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        hint = " (out of memory?)" if -exitcode == signal.SIGKILL else ""
        return f"was killed by {name}{hint}"
    return f"ended with exit code {exitcode} without an answer"


def score_in_parallel(
    path: str,
    score: Score,
    workers: int,
    progress: Optional[Callable[[int, int], None]] = None,
) -> Optional[List[Any]]:
    """Score the queries of *path* in up to *workers* processes.

    *score* ``(source, progress)`` scores one source of query groups and
    returns its part (:class:`irmetrics.evaluate._Part`: an Evaluation, the
    duplicates let pass, the queries tied scores move); the workers call it
    on each job, a range of the file (a source, as
    :func:`~irmetrics.sources.open_run` gives it).  Returns the parts in
    file order, or None (the caller then scores the run in this process)
    when this process runs other threads (a fork could hang), the file makes
    fewer than two jobs, the run is not grouped by query, a job met an error
    in the run (one process reports the error, and the warnings before it,
    as it always does), or the system starts no process.
    Ctrl-C while the workers run stops them before the
    exception goes on; so does SIGTERM when its disposition is the default,
    which then ends the process as it would have; a SIGTERM that the
    application ignores or handles lets the evaluation finish.  A worker that
    dies is a :class:`WorkerError`.
    """
    # (counted once: only this thread could start another while it forks)
    if _threads() > 1:
        return None
    ranges = _job_ranges(path, workers)
    if len(ranges) < 2:  # an empty file, or one query: one process says what it is
        return None
    # SIGTERM with its default disposition ends the process: the workers are
    # stopped first.  Ignored or handled by the application, it is left to it
    # (and blocked in the workers, as SIGINT is: Ctrl-C is the caller's).
    term_default = signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
    blocked = {signal.SIGINT} if term_default else {signal.SIGINT, signal.SIGTERM}
    old_sigterm: Any = None
    if term_default and threading.current_thread() is threading.main_thread():
        old_sigterm = signal.signal(signal.SIGTERM, _on_sigterm)
    procs: List[_Worker] = []
    try:
        try:
            _start(min(workers, len(ranges)), score, path, blocked, procs)
            replies = _collect(procs, path, ranges, progress) if procs else None
        finally:
            for w in procs:
                w.stop()
            if old_sigterm is not None:
                signal.signal(signal.SIGTERM, old_sigterm)
    except _Terminated:  # die of the signal as the process would have, now that it is alone
        os.kill(os.getpid(), signal.SIGTERM)
        raise KeyboardInterrupt from None  # pragma: no cover - the process has ended
    return None if replies is None else _parts(replies)


def _collect(
    procs: List[_Worker],
    path: str,
    ranges: List[Tuple[int, int]],
    progress: Optional[Callable[[int, int], None]],
) -> Optional[List[Any]]:
    """Give the jobs to the workers in file order, each its next one when it
    has answered; the replies in file order.  None (the caller stops the
    workers, and one process takes over) once a job answered "again"; a
    worker that crashed or died is a :class:`WorkerError`."""
    from multiprocessing.connection import wait

    jobs = iter(range(len(ranges)))
    replies: Dict[int, Any] = {}
    read: Dict[int, Tuple[int, int]] = {}  # queries and lines, by job
    busy: Dict[Any, Tuple[_Worker, int]] = {}  # by connection: the worker, its job

    def give(w: _Worker) -> None:
        job = next(jobs, None)
        with contextlib.suppress(OSError):  # it has died: its end of the connection says so
            w.conn.send(None if job is None else ranges[job])
        if job is None:
            busy.pop(w.conn, None)
        else:
            busy[w.conn] = (w, job)

    for w in procs:
        give(w)
    while busy:
        for ready in wait(list(busy)):
            w, job = busy[ready]
            try:
                message = w.conn.recv()
            except (EOFError, OSError):
                start, end = ranges[job]
                raise WorkerError(f"the worker process scoring bytes {start}-{end} of {path} "
                                  f"{_describe_death(w.stop())}") from None
            if message[0] == "progress":
                read[job] = (message[1], message[2])
            elif message[0] == "failed":
                raise WorkerError(f"a worker process failed: {message[1]}")
            elif message[0] == "again":
                return None
            else:
                replies[job] = message
                give(w)
        if progress is not None:
            progress(sum(q for q, _ in read.values()), sum(n for _, n in read.values()))
    return [replies[i] for i in range(len(ranges))]


def _parts(replies: List[Any]) -> Optional[List[Any]]:
    """The jobs' parts (from their replies, in file order), and their
    warnings given; None if a query is in two of them: the run is not
    grouped by query, and one process reads it."""
    parts = [part for _, part, _ in replies]
    ids = [q for p in parts for q in itertools.chain(p.evaluation._rows, p.evaluation.skipped)]
    if len(set(ids)) != len(ids):
        return None
    for _, _, warned in replies:  # the workers' warnings, as one process gives them
        for message in warned:
            _warn(message)
    return parts
