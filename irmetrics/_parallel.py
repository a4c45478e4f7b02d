"""Evaluating one large run file with several processes.

A run file grouped by query is cut into byte ranges at query boundaries, the
jobs, smaller towards the end of the file, so that workers running at
different speeds (a core shared with another program) finish together.  The
caller gives each worker process the next job when it has answered the last;
a worker scores each with the same code as the single-process route (a
:class:`~irmetrics.sources.RunSource` and the scorer of
:mod:`irmetrics.evaluate`) and sends back the :class:`~irmetrics.Evaluation`
of its queries, which the caller combines with
:meth:`~irmetrics.Evaluation.merge`.  Messages go through
:mod:`multiprocessing.connection`.

A worker is forked while the calling process has exactly one thread (it
inherits the qrels and the scorer).  With other threads alive (Jupyter, a
thread pool of numpy's) forking could hang: a fork copies every lock as it
is, and a lock another thread held at that moment is never released in the
child.  The workers are then spawned (``posix_spawn``: a new interpreter that
imports irmetrics, never the caller's ``__main__``) and sent the scorer,
qrels included, once.  Only plain, uncompressed files on POSIX systems
qualify; anything else, and any run whose queries turn out not to be
grouped, goes the single-process way.
"""

from __future__ import annotations

import io
import itertools
import os
import signal
import sys
import warnings
from typing import Any, Callable, Dict, List, Optional, Set, Tuple

from .errors import (
    DuplicateEntryError,
    IrmetricsError,
    IrmetricsWarning,
    TrecFormatError,
    _warn,
)
from .sources import open_run
from .trec import _BOM, MAX_LINE, RunNotGrouped

__all__ = [
    "score_in_parallel", "parallel_possible", "auto_workers", "WorkerError",
]

#: Run files this large (bytes) are scored in parallel by default.
#: (Two forked processes take clearly less time than one from about this
#: size on: see docs/benchmarks.md.)
PARALLEL_FROM = 2 << 20

#: Workers are spawned (the caller runs other threads) only for run files this
#: large: each starts an interpreter and unpickles the qrels, which a smaller
#: file does not pay back (see docs/benchmarks.md); one process scores it.
SPAWN_FROM = 32 << 20

_GZIP_MAGIC = b"\x1f\x8b"


def parallel_possible(source: Any) -> bool:
    """True for a path to a plain (not gzip) regular file on a system with fork."""
    if not isinstance(source, (str, bytes, os.PathLike)):
        return False
    if not hasattr(os, "fork"):
        return False
    try:
        if not os.path.isfile(source):
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
        import threading

        return threading.active_count()


def auto_workers(source: Any) -> int:
    """How many processes to use when the caller did not say: two for a plain
    run file of PARALLEL_FROM bytes or more, in a process that runs no other
    threads (it is never forked then), else one."""
    if not isinstance(source, (str, bytes, os.PathLike)) or _threads() > 1:
        return 1
    try:
        big = os.path.getsize(source) >= PARALLEL_FROM
    except OSError:
        return 1
    return min(2, os.cpu_count() or 1) if big and parallel_possible(source) else 1


def _first_field(line: bytes) -> Optional[bytes]:
    fields = line.split(None, 1)
    if not fields or fields[0].startswith(b"#"):
        return None
    return fields[0]


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
                q = _first_field(line)
                if q is None:
                    continue
                if prev is not None and q != prev:
                    break
                prev = q
            if start > cuts[-1] and start < size:
                cuts.append(start)
    cuts.append(size)
    return [(a, b) for a, b in zip(cuts, cuts[1:]) if b > a]


def _too_long(line: bytes) -> bool:
    return len(line) > MAX_LINE and not line.endswith(b"\n")


class _Slice(io.RawIOBase):
    """A read-only window ``[start, end)`` on a file.

    The readers take a UTF-8 byte order mark off the start of what they
    read, which is the start of a file everywhere else.  A window starting
    in mid-file on a line that begins with one (files concatenated) shows one
    more in front of it, which they take off instead: the line keeps its
    mark, as when one process reads the whole file (issue 42).
    """

    def __init__(self, path: str, start: int, end: int) -> None:
        super().__init__()
        self._f = open(path, "rb")  # noqa: SIM115 - closed in close()
        self._f.seek(start)
        self._head = b""  # what the window shows before the file's bytes
        if start > 0 and self._f.read(len(_BOM)) == _BOM:
            self._head = _BOM
        self._f.seek(start)
        self._start = start
        self._end = end
        self._left = end - start
        self._shown = 0  # how much of _head was read
        self.name = path

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._shown + self._f.tell() - self._start

    def seek(self, pos: int, whence: int = 0) -> int:
        if whence != 0:  # pragma: no cover - RunStream seeks to absolute positions
            raise io.UnsupportedOperation("only absolute seeks")
        self._shown = min(pos, len(self._head))
        at = pos - self._shown
        self._f.seek(self._start + at)
        self._left = self._end - self._start - at
        return pos

    def readinto(self, buf: Any) -> int:
        data = self.read(len(buf))
        buf[: len(data)] = data
        return len(data)

    def read(self, size: Optional[int] = -1) -> bytes:
        """Up to *size* bytes (the rest of the window for -1 or None), copied
        once from the file: the readers take blocks with ``read1``, which
        ``RawIOBase`` would make from ``readinto`` with two more copies."""
        head = self._head[self._shown:]
        if head and size != 0:
            head = head if size is None or size < 0 else head[:size]
            self._shown += len(head)
            return head
        n = self._left if size is None or size < 0 else min(size, self._left)
        if n <= 0:
            return b""
        data = self._f.read(n)
        self._left -= len(data)
        return data

    read1 = read

    def peek(self, n: int = 0) -> bytes:
        pos = self._f.tell()
        data = self._f.read(min(max(n, 1), self._left))
        self._f.seek(pos)
        return self._head[self._shown:] + data

    def close(self) -> None:
        self._f.close()
        super().close()


def _lines_before(path: str, offset: int) -> int:
    n = 0
    with open(path, "rb") as f:
        left = offset
        while left > 0:
            chunk = f.read(min(left, 1 << 20))
            if not chunk:
                break
            n += chunk.count(b"\n")
            left -= len(chunk)
    return n


def _shift(exc: TrecFormatError, lines: int) -> TrecFormatError:
    """The same error with line numbers counted from the start of the file."""
    line = None if exc.line is None else exc.line + lines
    if isinstance(exc, DuplicateEntryError):
        first = None if exc.first_line is None else exc.first_line + lines
        return DuplicateEntryError(exc.source, first, line, exc.qid, exc.docid)
    return TrecFormatError(exc.reason, exc.source, line)


def _shift_message(message: str, path: str, lines: int) -> str:
    """A warning's ``FILE, line N: ...`` with N counted from the start of the file."""
    head = f"{path}, line "
    number, sep, rest = message[len(head):].partition(":")
    if not message.startswith(head) or not sep or not number.isdigit():
        return message
    return f"{head}{int(number) + lines}:{rest}"


class WorkerError(RuntimeError):
    """A worker process ended without an answer (killed, for instance by the
    out-of-memory killer, or crashed).  Not an error of the input."""


def _work(
    score: Callable[[Any, Any], Any],
    path: str,
    start: int,
    end: int,
    progress: Callable[[int, int], None],
) -> Tuple[Any, ...]:
    """In a worker: score the queries of ``path[start:end]``; the reply."""
    # the same road as one process: a source (of this slice) and the scorer;
    # a query split between slices is for the parent to notice
    source = open_run(_Slice(path, start, end), keep_duplicates=True, regroup=False)
    try:
        with warnings.catch_warnings(record=True) as caught:  # sent to the parent
            warnings.simplefilter("always")
            part = score(source, progress)
        warned = []
        for w in caught:  # the library's go to the parent; others show here, as usual
            if issubclass(w.category, IrmetricsWarning):
                warned.append(str(w.message))
            else:
                warnings.showwarning(w.message, w.category, w.filename, w.lineno)
        if part.ignored or warned:  # their line numbers, counted from the start of the file
            before = _lines_before(path, start)
            part = part._replace(ignored=[(_shift(e, before), why) for e, why in part.ignored])
            warned = [_shift_message(m, path, before) for m in warned]
        return ("ok", part, warned)
    except RunNotGrouped:
        return ("not grouped",)
    except TrecFormatError as exc:
        return ("error", _shift(exc, _lines_before(path, start)))
    except IrmetricsError as exc:
        return ("error", exc)


# === In a worker ===
# A worker is forked (from a process with one thread: it inherits the
# scorer) or spawned (a new interpreter, sent the scorer once).  It starts
# with SIGINT blocked, and SIGTERM too unless the caller's disposition is the
# default: Ctrl-C is the caller's to handle (it stops the workers), and a
# SIGTERM that the application ignores or handles does not end them either.
# It ends when the caller says so, when its connection closes (the caller has
# died, when it waits for a job) or when sending fails (when it is scoring).


def _serve(conn: Any, score: Callable[[Any, Any], Any], path: str) -> None:
    """Score the jobs (byte ranges) the caller sends until it sends None or
    goes, reporting progress every 64 queries and then the job's reply; an
    exception is reported (never swallowed) and ends the worker."""
    done = [0, 0]  # queries and lines read in the jobs done
    last = [0, 0]  # in the job under way

    def progress(queries: int, lines: int) -> None:
        last[:] = queries, lines
        if not queries & 63:
            conn.send(("progress", done[0] + queries, done[1] + lines))

    while True:
        try:
            job = conn.recv()
        except EOFError:  # the caller has gone
            return
        if job is None:
            return
        last[:] = 0, 0
        try:
            start, end = job
            reply: Tuple[Any, ...] = ("done", _work(score, path, start, end, progress))
        except BaseException as exc:
            reply = ("failed", f"{type(exc).__name__}: {exc}")
        conn.send(reply)  # OSError (EPIPE) if the caller has gone
        if reply[0] == "failed":
            return
        done[:] = done[0] + last[0], done[1] + last[1]


def _spawned() -> None:  # pragma: no cover - runs in a spawned worker
    """The body of a spawned worker: its connection is its standard input."""
    from multiprocessing.connection import Connection

    conn = Connection(0)
    try:
        _serve(conn, *conn.recv())
    except (EOFError, OSError):  # the caller has gone before sending the scorer
        pass


# === In the caller ===


class _Terminated(BaseException):
    """SIGTERM arrived while the workers ran: unwind, stop them, then die of it."""


def _on_sigterm(signum: int, frame: Any) -> None:
    raise _Terminated()


class _Worker:
    """A worker as the caller sees it: its pid, its end of the connection,
    the job it holds (an index into the jobs, None for none)."""

    def __init__(self, pid: int, conn: Any) -> None:
        self.pid = pid
        self.conn = conn
        self.job: Optional[int] = None
        self.exitcode: Optional[int] = None

    def stop(self) -> Optional[int]:
        """End it (SIGKILL: it holds nothing that needs cleaning up) unless
        it has ended, and reap it; its exit code."""
        self.conn.close()
        if self.exitcode is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid == 0:
                try:
                    os.kill(self.pid, signal.SIGKILL)
                except ProcessLookupError:  # pragma: no cover - it just ended
                    pass
                pid, status = os.waitpid(self.pid, 0)
            self.exitcode = os.waitstatus_to_exitcode(status)
        return self.exitcode


def _fork(
    score: Callable[[Any, Any], Any], path: str, term_default: bool,
    started: List[_Worker],
) -> _Worker:
    """A worker forked from this process (which has one thread); the other
    workers' connections (*started*) are closed in it, so that each
    connection ends with the caller.  OSError if the system gives none."""
    from multiprocessing.connection import Pipe

    here, there = Pipe()
    # signals arriving while the child starts would run the caller's handlers in it
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the worker (the tests see its effects)
            code = 1
            try:
                here.close()
                for w in started:
                    w.conn.close()
                if term_default:
                    signal.signal(signal.SIGTERM, signal.SIG_DFL)
                    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
                _serve(there, score, path)
                code = 0
            finally:  # no cleanup of the caller's state (atexit, buffered output)
                os._exit(code)
    except OSError:  # no process to be had (EAGAIN, ENOMEM)
        here.close()
        raise
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        there.close()
    return _Worker(pid, here)


def _spawn(term_default: bool) -> _Worker:
    """A worker in a new interpreter (started without fork, so safe with
    other threads alive); it waits for the scorer.  OSError if the system
    gives none."""
    from multiprocessing.connection import Pipe

    # the package as it is imported here (vendored copies too), from where it is
    package = __name__.rpartition(".")[0]
    root = os.path.abspath(__file__)
    for _ in range(package.count(".") + 2):
        root = os.path.dirname(root)
    entry = (f"import sys; sys.path.insert(0, {root!r}); "
             f"from {__name__} import _spawned; _spawned()")
    blocked = {signal.SIGINT} if term_default else {signal.SIGINT, signal.SIGTERM}
    here, there = Pipe()
    try:
        pid = os.posix_spawn(sys.executable, [sys.executable, "-c", entry], os.environ,
                             file_actions=[(os.POSIX_SPAWN_DUP2, there.fileno(), 0)],
                             setsigmask=blocked)
    except OSError:
        here.close()
        raise
    finally:
        there.close()
    return _Worker(pid, here)


def _start(
    count: int, score: Callable[[Any, Any], Any], path: str,
    term_default: bool, started: List[_Worker],
) -> None:
    """Start up to *count* workers into *started* (fewer when the system gives
    no more processes or descriptors): forked while this process has one
    thread, spawned otherwise (forking a process with other threads copies
    the locks they hold, and a child waiting for one waits forever) from
    SPAWN_FROM bytes on; send the spawned ones the scorer."""
    import pickle

    spawned = []
    for _ in range(count):
        try:
            if _threads() == 1:  # counted just before: only this thread can start another
                started.append(_fork(score, path, term_default, started))
            elif (hasattr(os, "posix_spawn") and sys.executable
                  and os.path.getsize(path) >= SPAWN_FROM):
                started.append(_spawn(term_default))
                spawned.append(started[-1])
            else:
                break
        except OSError:  # no process or descriptor left (EAGAIN, ENOMEM, EMFILE)
            break
    if spawned:
        setup = pickle.dumps((score, path), pickle.HIGHEST_PROTOCOL)
        for w in spawned:
            try:
                w.conn.send_bytes(setup)
            except OSError:  # it died starting: its job names it (see _collect)
                pass


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
    score: Callable[[Any, Any], Any],
    workers: int,
    progress: Optional[Callable[[int, int], None]] = None,
) -> Optional[List[Any]]:
    """Score the queries of *path* in up to *workers* processes.

    *score* ``(source, progress)`` scores one source of query groups and
    returns its part (:class:`irmetrics.evaluate._Part`: an Evaluation, the
    duplicates let pass, the queries tied scores move); the workers call it
    on each job, a range of the file (a source, as
    :func:`~irmetrics.sources.open_run` gives it).  It must pickle, for
    spawned workers.  Returns the parts in file order, or None (the caller
    then scores the run in this process) when the file makes fewer than two
    jobs, the run is not grouped by query, a job met an error in the run
    (one process reports the error, and the warnings before it, as it always
    does), or the system starts no process.
    Nothing is shared between calls: concurrent calls from threads are
    independent.  Ctrl-C while the workers run stops them before the
    exception goes on; so does SIGTERM when its disposition is the default,
    which then ends the process as it would have; a SIGTERM that the
    application ignores or handles lets the evaluation finish.  A worker that
    dies is a :class:`WorkerError`.
    """
    import threading

    ranges = _job_ranges(path, workers)
    if len(ranges) < 2:  # an empty file, or one query: one process says what it is
        return None
    # SIGTERM with its default disposition ends the process: the workers are
    # stopped first.  Ignored or handled by the application, it is left to it.
    term_default = signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
    old_sigterm: Any = None
    if term_default and threading.current_thread() is threading.main_thread():
        old_sigterm = signal.signal(signal.SIGTERM, _on_sigterm)
    procs: List[_Worker] = []
    replies: Dict[int, Any] = {}
    terminated = False
    try:
        _start(min(workers, len(ranges)), score, path, term_default, procs)
        if procs:
            _collect(procs, path, ranges, replies, progress)
    except _Terminated:
        terminated = True
    finally:
        for w in procs:
            w.stop()
        if old_sigterm is not None:
            signal.signal(signal.SIGTERM, old_sigterm)
    if terminated:  # die of the signal as the process would have, now that it is alone
        os.kill(os.getpid(), signal.SIGTERM)
        raise KeyboardInterrupt  # pragma: no cover - the process has ended
    return _parts(ranges, replies) if procs else None


def _collect(
    procs: List[_Worker],
    path: str,
    ranges: List[Tuple[int, int]],
    replies: Dict[int, Any],
    progress: Optional[Callable[[int, int], None]],
) -> None:
    """Give the jobs to the workers in file order, each its next one when it
    has answered, and put each job's reply into *replies* (by job).  Returns
    early (the caller stops the workers) once a job failed or found the run
    not grouped (one process takes over then); a worker that crashed or died
    is a :class:`WorkerError`."""
    from multiprocessing.connection import wait

    jobs = iter(range(len(ranges)))
    read = {w.conn: (0, 0) for w in procs}  # queries and lines, by worker

    def give(w: _Worker) -> None:
        w.job = next(jobs, None)
        try:
            w.conn.send(None if w.job is None else ranges[w.job])
        except OSError:  # it has died: its end of the connection says so
            pass

    for w in procs:
        give(w)
    busy: Dict[Any, _Worker] = {w.conn: w for w in procs if w.job is not None}
    while busy:
        for ready in wait(list(busy)):
            w = busy[ready]
            try:
                message = w.conn.recv()
            except (EOFError, OSError):
                start, end = ranges[w.job]  # type: ignore[index]
                raise WorkerError(f"the worker process scoring bytes {start}-{end} of {path} "
                                  f"{_describe_death(w.stop())}") from None
            if message[0] == "progress":
                read[w.conn] = (message[1], message[2])
            elif message[0] == "failed":
                raise WorkerError(f"a worker process failed: {message[1]}")
            else:
                replies[w.job] = message[1]  # type: ignore[index]
                if message[1][0] != "ok":
                    return
                give(w)
                if w.job is None:
                    del busy[ready]
        if progress is not None:
            progress(sum(q for q, _ in read.values()), sum(n for _, n in read.values()))


def _parts(ranges: List[Tuple[int, int]], replies: Dict[int, Any]) -> Optional[List[Any]]:
    """The jobs' parts in file order; None if a job failed or the run turned
    out not to be grouped by query (one process then reads the run, and
    gives exactly its errors and warnings, whatever the jobs saw)."""
    if len(replies) < len(ranges) or any(r[0] != "ok" for r in replies.values()):
        return None
    parts = [replies[i][1] for i in range(len(ranges))]
    seen: Set[str] = set()
    count = 0
    for part in parts:
        evaluation = part.evaluation
        seen.update(evaluation._rows, evaluation.skipped)
        count += len(evaluation._rows) + len(evaluation.skipped)
    if len(seen) != count:
        return None  # a query in two ranges: not grouped
    for i in range(len(ranges)):  # the workers' warnings, as one process gives them
        for message in replies[i][2]:
            _warn(message)
    return parts
