"""Sources: every input a user can pass, as the same stream of query groups.

The first stage of the road from input to number (see docs/architecture.md):

* :func:`open_qrels` turns a :class:`~irmetrics.Qrels`, a dict of dicts, a
  DataFrame or a qrels file into a ``Qrels`` (and the repeated judgments of a file, which
  the evaluation raises or warns about as trec_eval would);
* :func:`open_run` turns a :class:`~irmetrics.Run`, a dict of dicts, records,
  a DataFrame (pandas, polars, pyarrow; see :mod:`irmetrics.frames`), or a
  run file (a path, ``-``'s standard input, a gzip file, an open file
  object, a pipe) into a :class:`RunSource`: an iterable of groups
  ``(qid, docids, scores)``, one per query, in constant memory for files.

The rules for runs whose queries are not grouped live here too: the source
notices, reads the run again (from a copy where the input cannot be read
twice) with each query's lines gathered, and yields every query again; its
``restarted`` flag tells the consumer to forget what it saw before.  Every
input error is raised here, naming the file and line.
"""

from __future__ import annotations

import os
from typing import Any, Container, Iterator, List, Mapping, Optional, Tuple, cast

from . import frames
from .data import Qrels, Run
from .errors import DuplicateEntryError, InvalidArgumentError
from .trec import RunNotGrouped, RunStream, _read_qrels_tables

__all__ = ["open_qrels", "open_run", "RunSource", "is_file_source"]

Group = Tuple[str, List[Any], List[float]]


def is_file_source(x: Any) -> bool:
    """A path (``str``, ``bytes`` or :class:`os.PathLike`, as :func:`open`
    takes) or an open file object: what the TREC readers take."""
    return isinstance(x, (str, bytes, os.PathLike)) or callable(getattr(x, "read", None))


def open_qrels(qrels: Any) -> Tuple[Qrels, List[DuplicateEntryError]]:
    """The qrels, and the repeated documents of a qrels file (a ``Qrels`` or a
    dict cannot hold any; see
    :func:`~irmetrics.trec._read_qrels_tables`)."""
    if isinstance(qrels, Qrels):
        return qrels, []
    if isinstance(qrels, Mapping) or frames.is_frame(qrels):
        return Qrels(qrels), []  # (a dict, or a frame by its usual column names)
    if is_file_source(qrels):
        duplicates: List[DuplicateEntryError] = []
        return Qrels._trusted(*_read_qrels_tables(qrels, duplicates)), duplicates
    raise InvalidArgumentError(
        f"'qrels' must be a Qrels, a dict of dicts or a TREC file (got {type(qrels).__name__})"
    )


def as_run(run: Any) -> Run:
    """A run given as an object: a ``Run``, a dict of dicts, or records."""
    if isinstance(run, Run):
        return run
    if isinstance(run, Mapping) or frames.is_frame(run):
        return Run(run)
    if not isinstance(run, (str, bytes)) and hasattr(run, "__iter__"):
        return Run.from_records(run)
    raise InvalidArgumentError(
        f"'run' must be a Run, a dict of dicts, records or a TREC file (got {type(run).__name__})"
    )


class RunSource:
    """One run, whatever its kind, as groups ``(qid, docids, scores)``.

    Attributes describe the group just yielded and the run so far: ``members``
    (a container of its docids, for fast look-ups), ``duplicates`` (errors for
    documents it repeats, kept only when asked for; an in-memory run has
    none), ``lines`` (lines read, for progress, counted from the start of
    what is read), ``name`` (the run's name,
    final once the iteration ends), ``encoded`` (docids are ``bytes``, the
    file's UTF-8, rather than ``str``) and ``restarted`` (the run was not
    grouped by query: every query comes again, whole).

    With *keep_duplicates*, a document repeated in a file is not an error of
    the source: the consumer decides, from ``duplicates``, whether trec_eval
    would have looked at it.  With *span* ``(start, end)``, only those bytes
    of a run file are read (a parallel worker's job, see
    :class:`~irmetrics.trec.RunStream`).  Without *regroup*, a run whose
    queries are not grouped raises :class:`~irmetrics.trec.RunNotGrouped`
    instead of being read again (a worker, which sees a span of the file,
    leaves that to the parent).
    """

    def __init__(
        self,
        run: Any,
        *,
        keep_duplicates: bool = False,
        regroup: bool = True,
        span: Optional[Tuple[int, int]] = None,
    ) -> None:
        self.members: Container[Any] = ()
        self.duplicates: List[DuplicateEntryError] = []
        self.lines = 0
        self.restarted = False
        self._stream: Optional[RunStream] = None
        self._run: Optional[Run] = None
        self._regroup = regroup
        if is_file_source(run):
            self._stream = RunStream(run, keep_duplicates=keep_duplicates, span=span)
            self.name = ""
            self.encoded = True
        else:
            self._run = as_run(run)
            self.name = self._run.name
            self.encoded = False

    def __iter__(self) -> Iterator[Group]:
        stream = self._stream
        if stream is None:
            yield from self._groups_of_run(cast(Run, self._run))
            return
        try:
            try:
                yield from self._groups_of_stream(stream)
            except RunNotGrouped:
                if not self._regroup:
                    raise
                # The documented slower route: the whole run in memory, read
                # again from a copy where the input cannot be re-read.
                again = stream.regrouped()
                self.restarted = True
                try:
                    yield from self._groups_of_stream(again)
                finally:
                    again.close()
        finally:
            stream.close()

    def _groups_of_run(self, run: Run) -> Iterator[Group]:
        for qid in sorted(run):
            docs = run._data[qid]
            self.members = docs
            self.lines += len(docs)
            yield qid, list(docs), list(docs.values())

    def _groups_of_stream(self, stream: RunStream) -> Iterator[Group]:
        for group in stream:
            self.members = stream.members
            self.duplicates = stream.duplicates
            self.lines = stream.lines
            self.name = stream.tag or ""
            yield group
        self.name = stream.tag or ""


#: The run as a :class:`RunSource` (the name the other modules call it by).
open_run = RunSource
