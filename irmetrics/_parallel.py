"""Evaluating one large run file with several processes.

A run file grouped by query is cut into byte ranges at query boundaries, the
jobs; forked worker processes take the jobs one after another, in file
order, and score each with the same code as the single-process route (a
:class:`~irmetrics.sources.RunSource` and the scorer of
:mod:`irmetrics.evaluate`), sending back the :class:`~irmetrics.Evaluation`
of each job's queries, which the caller combines with
:meth:`~irmetrics.Evaluation.merge`.  The jobs get smaller towards the end of
the file, so that workers running at different speeds (a core shared with
another program) finish together.
Only plain, uncompressed files on platforms with ``fork`` qualify; anything
else, and any run whose queries turn out not to be grouped, goes the
single-process way.  The workers are plain forks (``os.fork``) that send their
reply through a pipe: ``multiprocessing`` would cost more to import than a
small file takes to score.

A process is forked only while it has exactly one thread (see
:func:`_threads`): a fork copies every lock as it is, and a lock that another
thread held at that moment (the import lock, logging's, the allocator's of a C
extension) is never released in the child, which then waits forever.  With
other threads alive the run is scored in the calling process, with the same
values.
"""

from __future__ import annotations

import functools
import io
import itertools
import os
import struct
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
PARALLEL_FROM = 2 << 20  # measured: two processes 0.73-0.82 of one's time at 3.4 MB, even at 1.7 MB

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


#: Jobs are handed out as one byte each.
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
    order_keys: bool = False,
) -> Tuple[Any, ...]:
    """In a forked worker: score the queries of ``path[start:end]``; the reply."""
    # the same road as one process: a source (of this slice) and the scorer;
    # a query split between slices is for the parent to notice
    source = open_run(_Slice(path, start, end), keep_duplicates=True, regroup=False,
                      order_keys=order_keys)
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


# The memory the workers share with the parent: a stop flag (byte 0; set by
# a worker whose job failed or found the run not grouped: later jobs are not
# needed), then (queries, lines, job) of each worker, for progress and to
# say which job a worker that died was doing.
_HEAD = 8
_SLOT = struct.Struct("qqq")


def _jobs(
    score: Callable[[Any, Any], Any],
    path: str,
    ranges: List[Tuple[int, int]],
    jobs: int,
    counters: Any,
    slot: int,
    parent: int,
    order_keys: bool,
    emit: Callable[[Any], None],
) -> None:
    """In a forked worker: take jobs (their indexes, a byte each, from the
    pipe *jobs*) until there are none left; *emit* ``(job, reply)`` for each
    as soon as it is done (the parent unpickles it while the rest goes on)."""
    at = _HEAD + _SLOT.size * slot
    job = -1  # the job under way
    queries = lines = 0  # read in it so far
    done_queries = done_lines = 0  # read in the jobs done

    def progress(q: int, n: int) -> None:
        nonlocal queries, lines
        queries, lines = q, n
        # Every 64 queries (measured: writing the counters for each took 1%
        # of a worker's time): what the parent shows, and whether it is
        # still there (if not, nobody wants the answer).  Between jobs the
        # counters are exact.
        if not q & 63:
            _SLOT.pack_into(counters, at, done_queries + q, done_lines + n, job)
            if os.getppid() != parent:
                os._exit(1)

    while not counters[0]:
        # between jobs, -1: one taken now and not yet written here is the
        # first that nobody answered (see _collect)
        _SLOT.pack_into(counters, at, done_queries, done_lines, -1)
        taken = os.read(jobs, 1)
        if not taken:
            break
        job = taken[0]
        queries = lines = 0
        _SLOT.pack_into(counters, at, done_queries, done_lines, job)
        start, end = ranges[job]
        reply = _work(score, path, start, end, progress, order_keys)
        if reply[0] != "ok":
            counters[0] = 1
        emit((job, reply))
        done_queries += queries
        done_lines += lines


def _child(
    work: Callable[[Callable[[Any], None]], None], send: int, mask: Any, term: Any
) -> None:  # pragma: no cover - runs in the forked process (the tests see its effects)
    """The body of a forked worker: *work*, which sends its replies with the
    function it is given (each pickled, in a frame of its own, see
    :func:`_replies`), then ``("done",)``; exit.

    It starts with SIGINT and SIGTERM blocked (see :func:`score_in_parallel`)
    and unblocks them (*mask*: the parent's signal mask) once its own
    handlers are set: the parent's handlers never run here.  Ctrl-C is the
    parent's to handle; SIGTERM (*term*) ends the worker where it ends the
    parent, and is ignored where the parent ignores or handles it.
    """
    import pickle  # (imported by the parent before the fork: no import here)
    import signal

    def emit(reply: Any) -> None:
        data = pickle.dumps(reply, pickle.HIGHEST_PROTOCOL)
        view = memoryview(_FRAME.pack(len(data)) + data)
        while view:
            view = view[os.write(send, view):]

    code = 0
    try:
        # The parent handles Ctrl-C and SIGTERM and stops the workers itself.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, term)
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        try:
            work(emit)
            emit(("done",))
        except BaseException as exc:  # reported, never swallowed
            emit(("failed", f"{type(exc).__name__}: {exc}"))
    except BaseException:
        code = 1
    finally:
        # no cleanup of the parent's state (atexit, buffered output): leave now
        os._exit(code)


#: A frame: the length of the pickle that follows.
_FRAME = struct.Struct("<Q")


#: How much the parent reads from a worker's pipe at a time: a reply of a
#: megabyte then never sits in memory twice (the parent's peak is the
#: benchmark's peak memory).
_READ = 1 << 16


def _replies(buffer: bytearray) -> List[Any]:
    """The replies of the whole frames at the start of *buffer*, unpickled
    where they lie (no copy of them), and taken out of it."""
    import pickle

    replies = []
    at = 0
    with memoryview(buffer) as view:
        while len(view) - at >= _FRAME.size:
            (size,) = _FRAME.unpack_from(view, at)
            start = at + _FRAME.size
            if len(view) - start < size:
                break
            replies.append(pickle.loads(view[start:start + size]))
            at = start + size
    del buffer[:at]
    return replies


class _Worker:
    """A forked worker as the parent sees it: its pid, the read end of its
    pipe, what it sent so far and, once reaped, its exit code."""

    def __init__(self, pid: int, recv: int) -> None:
        self.pid = pid
        self.recv = recv
        self.buffer = bytearray()  # what it sent, up to the end of its last whole frame
        self.done = False  # it sent its last frame
        self.exitcode: Optional[int] = None
        self.died = False  # ended without its last frame
        self.job: Optional[int] = None  # the job it was doing then

    def reap(self, block: bool) -> bool:
        """Collect the worker's exit status; False if it is still running."""
        if self.exitcode is None:
            try:
                pid, status = os.waitpid(self.pid, 0 if block else os.WNOHANG)
            except ChildProcessError:  # pragma: no cover - reaped elsewhere
                self.exitcode = -1
                return True
            if pid == 0:
                return False
            self.exitcode = os.waitstatus_to_exitcode(status)
        return True


def _stop_signals() -> Any:
    import signal

    return {signal.SIGINT, signal.SIGTERM}


class _NoFork(Exception):
    """No worker can be started: os.fork or os.pipe failed (no memory, too
    many processes or open files) or the process runs other threads."""


class _Terminated(BaseException):
    """SIGTERM arrived while the workers ran: unwind, stop them, then die of it."""


def _on_sigterm(signum: int, frame: Any) -> None:
    raise _Terminated()


def _describe_death(exitcode: Optional[int]) -> str:
    if exitcode is not None and exitcode < 0:
        import signal

        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        hint = " (out of memory?)" if -exitcode == signal.SIGKILL else ""
        return f"was killed by {name}{hint}"
    return f"ended with exit code {exitcode} without an answer"


def _stop(workers: List[_Worker]) -> None:
    """End every worker still running, at once (SIGKILL: a worker holds
    nothing that needs cleaning up); none outlives the call."""
    import signal

    for w in workers:
        if not w.reap(block=False):
            try:
                os.kill(w.pid, signal.SIGKILL)
            except ProcessLookupError:  # pragma: no cover - it just ended
                pass
            w.reap(block=True)


def score_in_parallel(
    path: str,
    score: Callable[[Any, Any], Any],
    workers: int,
    progress: Optional[Callable[[int, int], None]] = None,
    *,
    order_keys: bool = False,
) -> Optional[List[Any]]:
    """Score the queries of *path* in up to *workers* processes.

    *score* ``(source, progress)`` scores one source of query groups and
    returns its part (:class:`irmetrics.evaluate._Part`: an Evaluation, the
    duplicates let pass, the queries tied scores move); the workers call it
    on each job, a range of the file (a source with *order_keys*, as
    :func:`~irmetrics.sources.open_run` takes it).  Returns the parts in
    file order, or None (the caller then scores the run in this process)
    when the file makes fewer than two jobs, the run is not grouped by
    query, a job met an error in the run (one process reports the error,
    and the warnings before it, as it always does), or the system forks no
    process.
    Nothing is shared between calls: concurrent calls from threads are
    independent (and scored in their own process: a process with other
    threads is never forked).  Fewer workers than asked are started when the
    system gives no more processes or pipes, none (and None is returned) when
    it gives none.  Ctrl-C while the workers run stops them before the
    exception goes on; so does SIGTERM when its disposition is the default,
    which then ends the process as it would have; a SIGTERM that the
    application ignores or handles lets the evaluation finish.  A worker that
    dies is a :class:`WorkerError`.
    """
    import mmap
    import pickle  # noqa: F401 - for the workers: a fork imports nothing
    import select  # noqa: F401 - before the pipes take the last descriptors
    import signal
    import threading

    if _threads() > 1:  # never forked: one process scores the run
        return None
    ranges = _job_ranges(path, workers)
    if len(ranges) < 2:  # an empty file, or one query: one process says what it is
        return None
    workers = min(workers, len(ranges))
    counters = mmap.mmap(-1, _HEAD + _SLOT.size * workers)
    for slot in range(workers):
        _SLOT.pack_into(counters, _HEAD + _SLOT.size * slot, 0, 0, -1)
    # the jobs, in file order, a byte each: every worker takes the next one
    # when it is done with the last (the pipe's reads do not interleave)
    try:
        jobs, jobs_in = os.pipe()
    except OSError:  # no descriptor left (EMFILE, ENFILE): one process will do
        counters.close()
        return None
    os.write(jobs_in, bytes(range(len(ranges))))
    os.close(jobs_in)
    procs: List[_Worker] = []
    replies: Dict[int, Any] = {}
    failed: List[str] = []
    # SIGTERM with its default disposition ends the process: the workers are
    # stopped first.  Ignored or handled by the application, it is left to it.
    on_main = threading.current_thread() is threading.main_thread()
    default_term = signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
    term = signal.SIG_DFL if default_term else signal.SIG_IGN
    old_sigterm: Any = None
    if on_main and default_term:
        old_sigterm = signal.signal(signal.SIGTERM, _on_sigterm)
    terminated = no_fork = False
    try:
        parent = os.getpid()
        for slot in range(workers):
            work = functools.partial(_jobs, score, path, ranges, jobs, counters, slot, parent,
                                     order_keys)
            try:
                _fork(work, procs, workers, term)
            except _NoFork:
                if not procs:
                    raise
                break  # fewer workers: those started take every job
        _collect(procs, counters, len(ranges), replies, failed, progress)
    except _Terminated:
        terminated = True
    except _NoFork:
        no_fork = True
    finally:
        _stop(procs)
        for w in procs:
            os.close(w.recv)
        os.close(jobs)
        counters.close()
        if old_sigterm is not None:
            signal.signal(signal.SIGTERM, old_sigterm)
    if terminated:  # die of the signal as the process would have, now that it is alone
        os.kill(os.getpid(), signal.SIGTERM)
        raise KeyboardInterrupt  # pragma: no cover - the process has ended
    if no_fork:  # no worker could be started: the caller scores the run in one process
        return None
    if failed:
        raise WorkerError(f"a worker process failed: {failed[0]}")
    return _parts(path, ranges, replies, procs)


#: The pipe buffers of all workers' replies together, at most 1 MiB each
#: (Linux's /proc/sys/fs/pipe-max-size by default): well within the pipe
#: memory a user may hold (64 MiB by default) beyond which the kernel gives
#: every new pipe of that user, in any program, a small buffer.
_PIPE_BUDGET = 16 << 20


def _widen(fd: int, workers: int) -> None:
    """Let a worker write a reply of up to a megabyte (a job of 12,500
    queries is 0.6 MB) without waiting for the parent to read the pipe's
    default 64 KiB at a time.  Measured on the wide 50,000 x 100 run: each
    worker waited 16-34 ms in its writes, 11-23 ms with the wider pipe.
    Where the call is missing (not Linux, Python 3.9) or refused, the pipe
    stays as it is."""
    size = min(1 << 20, _PIPE_BUDGET // workers)
    if size <= 1 << 16:
        return
    try:
        import fcntl

        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, size)
    except (ImportError, AttributeError, OSError):
        pass


def _fork(
    work: Callable[[Callable[[Any], None]], None], procs: List[_Worker], workers: int,
    term: Any,
) -> None:
    """Start a worker doing *work* (see :func:`_child`, which sets SIGTERM to
    *term*) and add it to *procs*, the workers started before, whose pipe
    ends the new one closes (added before a signal can interrupt: an
    exception from a handler finds it there, and it is stopped); *workers*:
    how many there will be.  :class:`_NoFork` if the system gives no pipe or
    process, or if this process has other threads."""
    import signal

    try:
        recv, send = os.pipe()
    except OSError:  # no descriptor left (EMFILE, ENFILE)
        raise _NoFork() from None
    _widen(send, workers)
    # Ctrl-C or SIGTERM arriving while the child starts would run the
    # parent's handlers in it: blocked until it has its own.
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, _stop_signals())
    try:
        # Counted last, just before the fork: only this thread could have
        # started another since.
        if _threads() > 1:
            pid = -1
        else:
            try:
                pid = os.fork()
            except OSError:  # no process to be had (EAGAIN, ENOMEM)
                pid = -1
        if pid == 0:  # pragma: no cover - the worker
            os.close(recv)
            for w in procs:  # the other workers' pipe ends, inherited by the fork
                os.close(w.recv)
            _child(work, send, mask, term)
        os.close(send)
        if pid < 0:
            os.close(recv)
            raise _NoFork()
        procs.append(_Worker(pid, recv))
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def _collect(
    procs: List[_Worker],
    counters: Any,
    jobs: int,
    replies: Dict[int, Any],
    failed: List[str],
    progress: Optional[Callable[[int, int], None]],
) -> None:
    """Read the workers' frames until every one has ended: each job's reply
    into *replies* (by job), a worker's crash into *failed*; a worker that
    ended without its last frame is marked dead, with the job it held.
    Returns early (the caller stops the other workers) once the evaluation
    cannot succeed here: a crash, a death with a job unanswered, or a job
    that failed or found the run not grouped (one process takes over then)."""
    import select

    poller = select.poll()
    pending = {}
    for slot, w in enumerate(procs):
        poller.register(w.recv, select.POLLIN | select.POLLHUP)
        pending[w.recv] = slot
    while pending:
        for fd, _ in poller.poll(250):
            w = procs[pending[fd]]
            chunk = os.read(fd, _READ)
            if chunk:
                w.buffer += chunk
                for reply in _replies(w.buffer):
                    if reply[0] == "done":
                        w.done = True
                    elif reply[0] == "failed":
                        failed.append(reply[1])
                        return
                    else:
                        replies[reply[0]] = reply[1]
                        if reply[1][0] != "ok":
                            return
                continue
            poller.unregister(fd)  # the end of its replies: it has exited, or is exiting
            slot = pending.pop(fd)
            w.reap(block=True)
            if not w.done:  # it died; the job it was doing names it in the message
                job = _SLOT.unpack_from(counters, _HEAD + _SLOT.size * slot)[2]
                w.died = True
                if 0 <= job < jobs and job not in replies:
                    w.job = job
                    return
                # between jobs: any job it took and never wrote down is the
                # first unanswered one when the others are done (see _parts)
        if progress is not None:
            done = [_SLOT.unpack_from(counters, _HEAD + _SLOT.size * slot)
                    for slot in range(len(procs))]
            progress(sum(q for q, _, _ in done), sum(n for _, n, _ in done))


def _parts(
    path: str, ranges: List[Tuple[int, int]], replies: Dict[int, Any], procs: List[_Worker]
) -> Optional[List[Any]]:
    """The jobs' parts in file order; None if a job failed or the run turned
    out not to be grouped by query (one process then reads the run, and
    gives exactly its errors and warnings, whatever the jobs saw).  A job
    without a reply names the worker that died with it."""
    unanswered = [i for i in range(len(ranges)) if i not in replies]
    dead = [w for w in procs if w.died]
    if unanswered and dead:
        holder = next((w for w in dead if w.job is not None), dead[0])
        job = unanswered[0] if holder.job is None else holder.job
        raise WorkerError(
            f"the worker process scoring bytes {ranges[job][0]}-{ranges[job][1]} of {path} "
            f"{_describe_death(holder.exitcode)}"
        )
    if any(reply[0] != "ok" for reply in replies.values()):
        return None
    if unanswered:  # pragma: no cover - every job is answered, or one failed
        start, end = ranges[unanswered[0]]
        raise WorkerError(f"no worker process answered for bytes {start}-{end} of {path}")
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
