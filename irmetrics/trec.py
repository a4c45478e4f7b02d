"""Reading and writing TREC qrels and run files.

The readers return plain dicts; :class:`irmetrics.data.Qrels` and
:class:`irmetrics.data.Run` wrap them.  Every reader takes a path (``str``, ``bytes`` or
:class:`os.PathLike`) or an open file object, text or binary, and reads
gzip-compressed input transparently (recognised by its magic bytes, whatever
the file is called).

Catalogue
---------
Reading:

* :func:`read_qrels`: ``qid iteration docid relevance`` lines.
* :func:`read_subtopic_qrels`: ``qid subtopic docid relevance`` lines (diversity).
* :func:`read_run`: ``qid Q0 docid rank score tag`` lines (extra columns ignored).
* :func:`read_ranked_list`: ``qid docid`` lines in rank order.

Writing:

* :func:`write_qrels`, :func:`write_subtopic_qrels`, :func:`write_run`.

Ordering:

* :func:`trec_ranking`: the order in which trec_eval evaluates a query's documents.

Format rules shared by the readers: fields are separated by ASCII white space
(as trec_eval reads them), so tabs, runs of spaces and CRLF line ends are
fine, while other characters, such as a no-break space, belong to the field; a UTF-8
byte order mark at the start is skipped; blank lines and lines whose first
non-blank character is ``#`` are skipped; text must be UTF-8.  Every problem
raises :class:`~irmetrics.errors.TrecFormatError` naming the file and the
1-based line; a document id given twice for one query raises
:class:`~irmetrics.errors.DuplicateEntryError` naming both lines.
"""

from __future__ import annotations

import io
import math
import os
from contextlib import contextmanager
from itertools import compress as _compress
from itertools import islice
from itertools import repeat as _repeat
from operator import itemgetter
from operator import ne as _ne
from operator import sub as _sub
from typing import (
    TYPE_CHECKING,
    Any,
    Callable,
    Dict,
    Iterable,
    Iterator,
    List,
    Mapping,
    Optional,
    Sequence,
    Set,
    Tuple,
    Type,
    Union,
    cast,
)

from ._gc import paused_gc
from ._text import quoted
from .errors import (
    DuplicateEntryError,
    InvalidArgumentError,
    IrmetricsError,
    TrecFormatError,
    _warn,
)

if TYPE_CHECKING:
    from typing import IO

    PathOrFile = Union[str, "os.PathLike[str]", IO[str], IO[bytes], io.IOBase]

__all__ = [
    "read_qrels",
    "read_subtopic_qrels",
    "read_run",
    "read_ranked_list",
    "write_qrels",
    "write_subtopic_qrels",
    "write_run",
    "trec_ranking",
    "RunStream",
    "RunNotGrouped",
    "rank_documents",
]

_GZIP_MAGIC = b"\x1f\x8b"
_BOM = b"\xef\xbb\xbf"
# Errors a file object may raise while being read: I/O failures and corrupt
# or truncated gzip data.
# I/O failures; zlib.error (corrupt gzip data) joins when gzip is first read
_READ_ERRORS: Tuple[Type[BaseException], ...] = (OSError, EOFError)
_first, _second, _third = itemgetter(0), itemgetter(1), itemgetter(2)


# === Opening ===


def _gzip() -> Any:
    """The gzip module, imported the first time a gzip file is met."""
    global _READ_ERRORS
    import gzip
    import zlib

    if zlib.error not in _READ_ERRORS:
        _READ_ERRORS = _READ_ERRORS + (zlib.error,)
    return gzip


def _source_name(source: Any) -> str:
    if isinstance(source, (str, bytes, os.PathLike)):
        return os.fsdecode(os.fspath(source))
    name = getattr(source, "name", None)
    if isinstance(name, str) and name:
        return name
    if isinstance(name, bytes) and name:
        return os.fsdecode(name)
    return "<file>"


def _probe_binary(fileobj: Any) -> Tuple[Any, bytes]:
    """Return (a binary stream positioned like *fileobj*, its first two bytes)."""
    peek = getattr(fileobj, "peek", None)
    head = b""
    if peek is not None:
        head = bytes(peek(2)[:2])
    if len(head) >= 2:
        return fileobj, head
    seekable = getattr(fileobj, "seekable", None)
    if seekable is not None and seekable():
        pos = fileobj.tell()
        head = fileobj.read(2)
        fileobj.seek(pos)
        return fileobj, bytes(head)
    # Neither peekable nor seekable: a buffer in front of it gives a peek,
    # and the stream is still read once, in constant memory.
    buffered = io.BufferedReader(_RawReader(fileobj))
    return buffered, bytes(buffered.peek(2)[:2])


class _RawReader(io.RawIOBase):
    """Any object with ``read(n) -> bytes``, as a raw stream (for a buffer)."""

    def __init__(self, fileobj: Any) -> None:
        super().__init__()
        self._read = fileobj.read
        self.name = getattr(fileobj, "name", None)

    def readable(self) -> bool:
        return True

    def readinto(self, buf: Any) -> int:
        data = self._read(len(buf))
        n = len(data)
        buf[:n] = data
        return n


class _TextReader:
    """A text-mode file object read as UTF-8 bytes: what every reader takes,
    and what :class:`_Tee` can copy."""

    def __init__(self, text: Any) -> None:
        self._read = text.read
        self.name = getattr(text, "name", None)

    def read(self, n: int = -1) -> bytes:
        # surrogatepass lets lone surrogates through so that the strict UTF-8
        # decode in the parser reports them with their line number.
        return cast(str, self._read(n)).encode("utf-8", "surrogatepass")


@contextmanager
def _open_lines(source: PathOrFile) -> Iterator[Tuple[Any, str]]:
    """Yield (a binary stream, ``read(n) -> bytes``, and the source's name)."""
    name = _source_name(source)
    if isinstance(source, (str, bytes, os.PathLike)):
        try:
            raw = open(source, "rb")  # noqa: SIM115 - closed below
        except OSError as exc:
            reason = exc.strerror or str(exc)
            raise TrecFormatError(f"cannot open file ({reason})", name) from exc
        try:
            try:
                head = raw.peek(2)[:2]
            except OSError as exc:
                reason = exc.strerror or str(exc)
                raise TrecFormatError(f"cannot read file ({reason})", name) from exc
            if head == _GZIP_MAGIC:
                with _gzip().GzipFile(fileobj=raw, mode="rb") as gz:
                    yield gz, name
            else:
                yield raw, name
        finally:
            raw.close()
        return
    if not callable(getattr(source, "read", None)):
        raise InvalidArgumentError(
            f"expected a path or an open file object (got {type(source).__name__} {source!r})"
        )
    try:
        probe = source.read(0)
    except _READ_ERRORS as exc:
        raise TrecFormatError(f"cannot read file ({exc})", name) from exc
    if isinstance(probe, str):
        yield _TextReader(source), name
        return
    stream, head = _probe_binary(source)
    if head == _GZIP_MAGIC:
        # GzipFile(fileobj=...) leaves the caller's file open when closed.
        with _gzip().GzipFile(fileobj=stream, mode="rb") as gz:
            yield gz, name
    else:
        yield stream, name


def _chunks(stream: Any, size: int) -> Iterator[bytes]:
    """Pieces of at most *size* bytes of a binary stream.

    ``read1`` where the stream has it: what one read of the file or one step
    of gzip gives, so that a read error (a truncated gzip file) loses little
    of what came before it, and the error's "after line N" is close.
    """
    read = getattr(stream, "read1", None) or stream.read
    return iter(lambda: bytes(read(size)), b"")


#: Bytes read at a time by the readers of whole files (the tests make it tiny):
#: the Python objects made from a block of 128 KiB (about a megabyte) stay in
#: a core's cache until freed (measured: a 140,000-line qrels file read in
#: 0.88 of the time 1 MiB blocks took; 32 and 64 KiB within the noise).
_TABLE_BLOCK = 1 << 17

#: RunStream's default (fixed when the module loads).  A run's objects are
#: used again as its queries are scored, so smaller blocks pay on a busy
#: machine: measured (2026-11-27, whole evaluations with two workers,
#: medians of 6 to 10 rounds), the wide 50,000 x 100 run in 0.80 to 0.88
#: and the MS MARCO shape in 0.84 to 0.88 of the time of 128 KiB blocks
#: (0.955 and 0.989 in a benchmark run against the 128 KiB version);
#: 32 and 48 KiB within the noise of 64, 16 and 8 KiB slower.
_RUN_BLOCK = 1 << 16

#: The longest line the readers take (bytes).  No TREC line comes near it; a
#: file whose lines end in CR alone, or that has no line ends, would otherwise
#: be read whole as one line.
MAX_LINE = 16 << 20


class _LineTooLong(Exception):
    """Raised by :class:`_Lines`; the reader adds the file and the line."""


def _too_long(source: str, lineno: int) -> TrecFormatError:
    return TrecFormatError(
        f"line is longer than {MAX_LINE >> 20} MiB (a file without line ends, or with "
        "CR alone as the line end?)",
        source,
        lineno,
    )


class _Lines:
    """Blocks of whole lines from pieces of a stream, in linear time.

    Iterating yields ``(block, unterminated)``: *block* ends with a line end;
    the file's last line, if it has none, comes last with one added and
    *unterminated* true.  A UTF-8 byte order mark at the start is taken off
    (``bom`` tells whether there was one).  A line longer than
    :data:`MAX_LINE` raises :class:`_LineTooLong`; the pieces of a long line
    are kept in a list and joined once, never re-copied piece by piece.
    """

    def __init__(self, pieces: Iterable[bytes]) -> None:
        self._pieces = pieces
        self.bom = False

    def __iter__(self) -> Iterator[Tuple[bytes, bool]]:
        partial: List[Any] = []  # pieces of the line being read
        size = 0
        head = True  # the BOM is looked for in the first three bytes
        for piece in self._pieces:
            cut = piece.rfind(b"\n") + 1
            if cut == 0:
                partial.append(piece)
                size += len(piece)
                if size > MAX_LINE:
                    raise _LineTooLong()
                continue
            if partial:
                if size + piece.find(b"\n") > MAX_LINE:
                    raise _LineTooLong()
                # one copy: the line's start joined with a view of the piece
                # (measured: a run read in 0.985 of the time of two copies)
                partial.append(memoryview(piece)[:cut])
                block = b"".join(partial)
            else:
                block = piece[:cut] if cut < len(piece) else piece
            partial = [piece[cut:]] if cut < len(piece) else []
            size = len(piece) - cut
            if head:
                head = False
                if block.startswith(_BOM):
                    self.bom = True
                    block = block[len(_BOM) :]
            yield block, False
        if partial:
            last = b"".join(partial)
            if head and last.startswith(_BOM):
                self.bom = True
                last = last[len(_BOM) :]
            yield last + b"\n", True  # (a BOM alone: one empty line)


def _line_blocks(stream: Any, size: int) -> Iterator[bytes]:
    """Blocks of whole lines, the BOM taken off; the last may lack its line end."""
    for block, unterminated in _Lines(_chunks(stream, size)):
        yield block[:-1] if unterminated else block


# === Line-level helpers (only called on the slow or failing path) ===


def _number(text: Any, kind: Callable[[Any], Any]) -> Any:
    """float() or int() of a field, as C's atof/atol read it: ASCII digits
    only, and no "_" (which Python accepts as a digit separator)."""
    if not text.isascii() or ("_" in text if isinstance(text, str) else b"_" in text):
        raise ValueError(text)
    return kind(text)


def _decode_error(source: str, lineno: int, exc: UnicodeDecodeError) -> TrecFormatError:
    return TrecFormatError(
        f"line is not valid UTF-8 ({exc.reason} at byte {exc.start + 1})", source, lineno
    )


def _utf8_error(data: bytes) -> UnicodeDecodeError:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc
    raise ValueError("valid UTF-8")  # pragma: no cover - only called on invalid data


def _read_error(source: str, lineno: int, exc: BaseException) -> TrecFormatError:
    if isinstance(exc, UnicodeDecodeError):
        # A text-mode file object failed to decode ahead of us.
        return TrecFormatError(f"file is not valid text after line {lineno} ({exc})", source)
    return TrecFormatError(f"cannot read file after line {lineno} ({exc})", source)


def _empty_error(source: str, kind: str, lineno: int) -> TrecFormatError:
    if lineno == 0:
        return TrecFormatError(f"no {kind} entries (empty file)", source)
    return TrecFormatError(f"no {kind} entries (only blank lines and comments)", source)


def _first_line(
    docs: Mapping[str, object], blocks: List[Tuple[int, int]], docid: str
) -> Optional[int]:
    """The line on which *docid* was first read.

    *blocks* lists ``(line, index)`` for every run of consecutive lines of one
    query: the entry at position ``index`` of *docs* was read on ``line`` and
    the following entries of the block on the following lines.  Keeping blocks
    rather than one line number per entry costs almost nothing per line.
    """
    index = list(docs).index(docid)
    for line, start in reversed(blocks):
        if start <= index:
            return line + index - start
    return None  # pragma: no cover - every entry belongs to a block


def _duplicate(
    source: str,
    docs: Mapping[str, object],
    blocks: List[Tuple[int, int]],
    lineno: int,
    qid: str,
    docid: str,
) -> DuplicateEntryError:
    return DuplicateEntryError(source, _first_line(docs, blocks, docid), lineno, qid, docid)


# === Readers ===
#
def read_qrels(source: PathOrFile) -> Dict[str, Dict[str, int]]:
    """Read a qrels file: ``qid iteration docid relevance`` per line.

    Returns ``{qid: {docid: relevance}}`` in file order.  Relevance is an
    integer and may be negative (trec_eval's -1 marks a pooled but unjudged
    document).  Exactly four columns are required.  The second column is
    ignored, unless it takes two different values within some query: it
    then names subtopics (a diversity qrels file, see
    :func:`read_subtopic_qrels`), and a document judged for several
    subtopics gets its highest relevance.

    >>> import io
    >>> read_qrels(io.StringIO("q1 0 d1 1\\nq1 0 d2 0\\nq2 0 d1 2\\n"))
    {'q1': {'d1': 1, 'd2': 0}, 'q2': {'d1': 2}}
    >>> read_qrels(io.StringIO("q1 0 d1\\n"))
    Traceback (most recent call last):
    ...
    irmetrics.errors.TrecFormatError: <file>, line 1: expected 4 columns
    (qid iteration docid relevance), got 3
    """
    with _open_lines(source) as (lines, name), paused_gc():
        return _parse_qrels(lines, name)[0]


def read_subtopic_qrels(source: PathOrFile) -> Dict[str, Dict[str, Dict[str, int]]]:
    """Read a diversity qrels file: ``qid subtopic docid relevance`` per line.

    The TREC Web track's format (ndeval's): the second column, trec_eval's
    ignored "iteration", is the subtopic (intent, aspect) the judgment is
    for.  Returns ``{qid: {subtopic: {docid: relevance}}}`` in file order; a
    document may be judged for several subtopics of a query, but only once
    for each.  A file whose second column never takes two values within a
    query (``0``, ``Q0``, an iteration number) is a plain qrels file, read
    as one subtopic, ``"0"``, a query.

    >>> import io
    >>> read_subtopic_qrels(io.StringIO("q1 1 d1 1\\nq1 2 d1 1\\nq1 2 d2 0\\n"))
    {'q1': {'1': {'d1': 1}, '2': {'d1': 1, 'd2': 0}}}
    >>> read_subtopic_qrels(io.StringIO("q1 1 d1 1\\nq1 2 d1 1\\nq1 1 d1 0\\n"))
    Traceback (most recent call last):
    ...
    irmetrics.errors.DuplicateEntryError: <file>, line 3: document 'd1' appears twice
    for query 'q1', subtopic '1' (lines 1 and 3)
    """
    flat, table = _read_qrels_tables(source)
    table = table or {}
    return {qid: table[qid] if qid in table else {"0": docs} for qid, docs in flat.items()}


def _read_qrels_tables(
    source: PathOrFile,
) -> Tuple[Dict[str, Dict[str, int]], Optional[Dict[str, Dict[str, Dict[str, int]]]]]:
    # both tables of _parse_qrels, for Qrels.from_trec
    with _open_lines(source) as (lines, name), paused_gc():
        return _parse_qrels(lines, name)


def _read_qrels_keeping_duplicates(
    source: PathOrFile,
) -> Tuple[
    Dict[str, Dict[str, int]],
    Optional[Dict[str, Dict[str, Dict[str, int]]]],
    List[DuplicateEntryError],
]:
    """:func:`_read_qrels_tables`, but a repeated document is listed, not
    raised (its first judgment kept): evaluate() raises it only for a query it
    evaluates, as trec_eval looks only at those.  Only a query's first
    repeat is listed: one is enough to refuse or to warn about the query."""
    duplicates: List[DuplicateEntryError] = []
    with _open_lines(source) as (lines, name), paused_gc():
        flat, subtopics = _parse_qrels(lines, name, duplicates)
    return flat, subtopics, duplicates


def _read_run_ranks(
    source: PathOrFile, *, traditional: bool = False
) -> Tuple[Dict[str, Dict[str, float]], str]:
    """A run as ndeval reads it, for ``irmetrics --ndeval``: ``({qid:
    {docid: score}}, tag of the first line)``, where a document's score is
    minus its rank, so that the ranking follows the rank column (a natural
    number given once per query), or, with *traditional*, its score."""
    first: List[str] = []

    def entry(fields: List[str], lineno: int, _: int) -> Tuple[str, Union[float, str]]:
        # name: the source's, bound by the with statement below
        score = _run_score(fields, name, lineno)
        if not (fields[3].isascii() and fields[3].isdigit()):
            raise TrecFormatError(
                f"rank must be a natural number (got {fields[3]!r})", name, lineno
            )
        if not first:
            first.append(fields[5])
        return fields[2], score if traditional else fields[3]

    def fast(block: bytes) -> Optional[Tuple[List[str], List[str], List[Any]]]:
        columns = _rank_columns(block, traditional)
        if columns is None:
            return None
        if not first:
            first.append(columns[3])
        return columns[0], columns[1], columns[2]

    with _open_lines(source) as (lines, name), paused_gc():
        out = _parse_table(lines, name, "run", entry, fast)[0]
    if not traditional:
        # The ranks as the file writes them, compared as integers (exactly: a
        # float would take 10**23 and 10**23 - 1 for one rank); a document's
        # score is then minus its place in the rank order.
        for qid, docs in out.items():
            seen: Dict[int, str] = {}
            for text in docs.values():
                rank = int(text)
                if rank in seen:  # ndeval: "duplicate rank"
                    # (digits only: shown as they are)
                    twice = (f"rank {text} appears twice" if seen[rank] == text
                             else f"ranks {seen[rank]} and {text} are one rank")
                    raise TrecFormatError(f"{twice} for query {quoted(qid)}", name)
                seen[rank] = text
            order = sorted(docs, key=lambda d: int(docs[d]))
            out[qid] = {d: -float(i) for i, d in enumerate(order, 1)}
    return out, first[0]


def _rank_columns(
    block: bytes, traditional: bool
) -> Optional[Tuple[List[str], List[str], Union[List[float], List[str]], str]]:
    # (qids, docids, scores or ranks as written, first tag) of a block of plain
    # six-column run lines with natural ranks and plain scores, or None
    if not block.isascii() or b"#" in block or _MARK in block or b"_" in block:
        return None
    if b"\x1c" in block or b"\x1d" in block or b"\x1e" in block or b"\x1f" in block:
        return None
    n = block.count(b"\n") + (not block.endswith(b"\n"))
    text = (block if block.endswith(b"\n") else block + b"\n").decode("ascii")
    toks = text.replace("\n", " \x01\n").split()
    if len(toks) != 7 * n or toks[6::7].count("\x01") != n:
        return None
    ranks = toks[3::7]
    if not "".join(ranks).isdigit():
        return None
    try:
        scores = list(map(float, toks[4::7]))
    except ValueError:
        return None
    if any(map(math.isnan, scores)):
        return None
    keys = scores if traditional else ranks
    return toks[0::7], toks[2::7], keys, toks[5]


def read_run(source: PathOrFile) -> Tuple[Dict[str, Dict[str, float]], str]:
    """Read a run file: ``qid Q0 docid rank score tag`` per line.

    Returns ``({qid: {docid: score}}, tag)`` where *tag* is the sixth column
    of the last entry line (trec_eval's run id).  Columns after the sixth are
    ignored, and so is the rank column: like trec_eval, the ranking comes from
    the scores (see :func:`trec_ranking`).  Scores may be infinite, not NaN.

    >>> import io
    >>> read_run(io.StringIO("q1 Q0 d1 1 2.5 bm25\\nq1 Q0 d2 2 1.0 bm25\\n"))
    ({'q1': {'d1': 2.5, 'd2': 1.0}}, 'bm25')
    >>> read_run(io.StringIO("q1 Q0 d1 1 high bm25\\n"))
    Traceback (most recent call last):
    ...
    irmetrics.errors.TrecFormatError: <file>, line 1: score must be a number (got 'high')
    """
    with _open_lines(source) as (lines, name), paused_gc():
        return _parse_run(lines, name)


def read_ranked_list(source: PathOrFile) -> Dict[str, Dict[str, float]]:
    """Read a ranked list: ``qid docid`` per line, best document first.

    Returns ``{qid: {docid: score}}`` with score ``-rank`` (rank counted from
    1 within each query, in file order), so that :func:`trec_ranking` gives
    back the file order.  Exactly two columns are required.

    >>> import io
    >>> read_ranked_list(io.StringIO("q1 d7\\nq1 d3\\nq2 d3\\n"))
    {'q1': {'d7': -1.0, 'd3': -2.0}, 'q2': {'d3': -1.0}}
    """
    with _open_lines(source) as (lines, name), paused_gc():
        return _parse_ranked_list(lines, name)


def _parse_table(
    lines: Any,
    source: str,
    kind: str,
    entry: Callable[[List[str], int, int], Tuple[str, Any]],
    fast: Optional[Callable[[bytes], Optional[Tuple[List[str], List[str], List[Any]]]]] = None,
    duplicates: Optional[List[DuplicateEntryError]] = None,
) -> Tuple[Dict[str, Dict[str, Any]], List[str]]:
    """The loop the three readers share.

    A document given twice for a query is an error; with a *duplicates*
    list, the first such repeat of each query is appended there instead, and
    the first entry kept (so that finding where a repeated document was
    first read, which walks the query's entries, happens once a query).
    Blocks of blank lines are counted, not split.

    *entry* checks one line's fields and returns ``(docid, value)``; it gets
    the fields, the line number and how many entries the query has so far.
    Returns ``{qid: {docid: value}}`` and the fields of the last entry line.
    The query of the previous line is remembered, so that consecutive lines of
    one query (the usual layout) cost one string comparison instead of a dict
    lookup, and a "#" (a comment, never a valid query id) is only looked for
    when the query changes.

    *fast*, given a block of whole lines, returns its ``(qids, docids,
    values)`` columns when every line is a plain, valid entry, or None; the
    block's entries are then added a query at a time (:func:`_add_columns`),
    and any block it declines goes line by line.
    """
    out: Dict[str, Dict[str, Any]] = {}
    repeated: Set[str] = set()  # queries with a listed repeat
    blocks = _Segments()
    # where _add_columns lists a repeat of an earlier block's entry
    repeats = None if duplicates is None else (source, duplicates, repeated)
    docs: Dict[str, Any] = {}
    prev: Optional[str] = None
    last_fields: List[str] = []
    lineno = 0
    try:
        for block in _line_blocks(lines, _TABLE_BLOCK):
            if not block.strip():  # blank lines only (ASCII white space, as split())
                lineno += block.count(b"\n") + (not block.endswith(b"\n"))
                prev = None
                continue
            columns = None if fast is None else fast(block)
            if columns is not None and _add_columns(out, blocks, columns, lineno, repeats):
                last_line = block.rstrip(b"\n").rsplit(b"\n", 1)[-1]
                last_fields = last_line.decode("ascii").split()
                lineno += len(columns[0])
                prev = None
                continue
            block_lines = block.split(b"\n")
            # the last piece: empty after a final line end, else the file's
            # last line, without one
            last = block_lines.pop()
            unterminated = not block.endswith(b"\n")
            if unterminated:
                block_lines.append(last)
            for i, line in enumerate(block_lines):
                lineno += 1
                try:
                    line.decode("utf-8")
                except UnicodeDecodeError:
                    # reported as the line with its line end reads
                    if not (unterminated and i == len(block_lines) - 1):
                        line += b"\n"
                    raise _decode_error(source, lineno, _utf8_error(line)) from None
                # trec_eval's fields: split on ASCII white space only
                fields = [f.decode("utf-8") for f in line.split()]
                if not fields:
                    prev = None
                    continue
                qid = fields[0]
                if qid != prev:
                    if qid[0] == "#":
                        prev = None
                        continue
                    got = out.get(qid)
                    if got is None:
                        got = out[qid] = {}
                        blocks.begin(qid)
                    docs = got
                    blocks.of(qid).append((lineno, len(docs)))
                    prev = qid
                docid, value = entry(fields, lineno, len(docs))
                if docid in docs:
                    if duplicates is None:
                        raise _duplicate(source, docs, blocks.of(qid), lineno, qid, docid)
                    if qid not in repeated:
                        repeated.add(qid)
                        duplicates.append(
                            _duplicate(source, docs, blocks.of(qid), lineno, qid, docid))
                    # (the query's entries after it need no segment: no other
                    # repeat of the query is looked up)
                    continue
                docs[docid] = value
                last_fields = fields
    except _READ_ERRORS + (UnicodeDecodeError,) as exc:
        raise _read_error(source, lineno, exc) from exc
    except _LineTooLong:
        raise _too_long(source, lineno + 1) from None
    if not out:
        raise _empty_error(source, kind, lineno)
    return out, last_fields


def _add_columns(
    out: Dict[str, Dict[str, Any]],
    blocks: _Segments,
    columns: Tuple[List[str], List[str], List[Any]],
    lineno: int,
    repeats: Optional[Tuple[str, List[DuplicateEntryError], Set[str]]] = None,
) -> bool:
    """Add a block's entries (lines ``lineno + 1`` on) to *out*, a query at a
    time; False, with *out* untouched, if a docid repeats within a query or a
    query comes back within the block (the line-by-line loop then reports
    the first, and takes the second); *blocks* gets the block's queries and
    where each begins (see :class:`_Segments`).  A docid an earlier block
    gave the query is listed as :func:`_parse_table` lists it, given
    *repeats* ``(source, duplicates, queries listed)``; else False too."""
    qids, docids, values = columns
    n = len(qids)
    # the lines where the query changes, found in C (measured: 13% faster
    # than a comparison loop, 30,000 lines of 3 a query), and each query's
    # table made in C loops too, from the next *size* pairs of one iterator
    # (measured: 17% less time than a loop over the queries, 50,000 queries
    # of 3.3 lines; the whole read 19% less than slicing both columns)
    starts = [0, *_compress(range(1, n), map(_ne, qids[1:], qids))]
    sizes = list(map(_sub, [*starts[1:], n], starts))
    tables = list(map(dict, map(islice, _repeat(zip(docids, values)), sizes)))
    if list(map(len, tables)) != sizes:
        return False
    new = dict(zip(map(qids.__getitem__, starts), tables))
    if len(new) != len(starts):
        return False
    # (the queries in both, found in C and in the block's order, in which
    # their tables lie: a block usually begins with the rest of the last
    # one's final query)
    again = [] if out.keys().isdisjoint(new) else list(filter(out.__contains__, new))
    clash = [q for q in again if not out[q].keys().isdisjoint(new[q])]
    if clash and repeats is None:
        return False
    order = list(new)
    if again:  # queries earlier lines began: one more segment each
        # (usually only the block's first; else where each one begins, once)
        where = ({order[0]: starts[0]} if again == [order[0]]
                 else dict(zip(order, starts)))
        for q in clash:  # (in the block's order, which is the lines')
            source, duplicates, listed = cast(Any, repeats)
            old, got = out[q], new[q]
            if q not in listed:
                listed.add(q)
                at, docid = next((i, d) for i, d in enumerate(got) if d in old)
                line = lineno + 1 + where[q] + at
                duplicates.append(_duplicate(source, old, blocks.of(q), line, q, docid))
            fresh = got.keys() - old.keys()  # (the first judgment is kept)
            new[q] = {d: v for d, v in got.items() if d in fresh} if fresh else {}
        for q in again:
            blocks.of(q).append((lineno + 1 + where[q], len(out[q])))
            out[q].update(new.pop(q))
    out.update(new)
    blocks.read_whole(lineno + 1, order, starts)
    return True


class _Segments:
    """Each query's segments: ``(first line, number of entries before it)``
    of each run of its lines, what :func:`_first_line` reads to find the
    line of a document's first entry.

    A block read in one piece by :func:`_add_columns` is kept as its first
    line, its queries and the index of each one's first entry; a query's
    first line is worked out from them only when asked for (a repeated
    entry, or the query going on later).  Measured: a qrels file of 140,000
    lines and 50,000 queries read in 66 against 79 ms with a table of every
    query's first line (medians of seven).
    """

    __slots__ = ("_table", "_whole", "_indexed")

    def __init__(self) -> None:
        # {query: its segments, or its first line (an int) until asked for}
        self._table: Dict[str, Union[int, List[Tuple[int, int]]]] = {}
        # (first line, queries, starts) of each block read in one piece; the
        # first _indexed ones have their queries' first lines in the table
        self._whole: List[Tuple[int, List[str], List[int]]] = []
        self._indexed = 0

    def begin(self, qid: str) -> None:
        """A query whose first line is read line by line (its segments follow)."""
        self._table[qid] = []

    def read_whole(self, line: int, qids: List[str], starts: List[int]) -> None:
        """A block whose queries *qids* begin at entries *starts*, counted from *line*."""
        self._whole.append((line, qids, starts))

    def of(self, qid: str) -> List[Tuple[int, int]]:
        """*qid*'s segments, a list the caller may extend."""
        got = self._table.get(qid)
        if got is None:
            # Read in one piece, in one block (a query whose lines go on in a
            # later block has its list before that block is kept): usually
            # the last block's last query, which the next block goes on with;
            # else the blocks not yet in the table go in, once each.
            line, qids, starts = self._whole[-1]
            if qids[-1] == qid:
                got = line + starts[-1]
            else:
                self._index()
                got = self._table[qid]
        if isinstance(got, int):
            got = self._table[qid] = [(got, 0)]
        return got

    def _index(self) -> None:
        table = self._table
        for line, qids, starts in self._whole[self._indexed:]:
            for qid, at in zip(qids, starts):
                table.setdefault(qid, line + at)  # a query's list stays
        self._indexed = len(self._whole)


def _parse_qrels(
    lines: Any, source: str, duplicates: Optional[List[DuplicateEntryError]] = None
) -> Tuple[Dict[str, Dict[str, int]], Optional[Dict[str, Dict[str, Dict[str, int]]]]]:
    """``({qid: {docid: relevance}}, subtopics)``: *subtopics* is None for a
    plain file, else ``{qid: {subtopic: {docid: relevance}}}`` for the queries
    judged under two subtopics or under one other than ``0``, whose documents
    get their highest relevance in the first table.

    The second column names subtopics only in a file where it takes two
    different values within one query (docs/data.md): a constant column
    (``0``, ``Q0``, an iteration number) is ignored, as trec_eval ignores
    it.  An entry whose second column differs from that of its query's first
    line is read under the key ``"docid subtopic"`` (white space never
    occurs in a field), so that the one duplicate check covers (query,
    subtopic, document); the keys of the queries that had one are split
    afterwards.  A block read whole holds plain keys only: one value in its
    second column, every query's first.  With a *duplicates* list, a
    repeated entry is appended there instead of raised.
    """
    usual: Optional[str] = None  # the file's first second column, ...
    firsts: Dict[str, str] = {}  # ... and each query's first where it differs
    mixed: Dict[str, None] = {}  # the queries with two values (in file order)

    def entry(fields: List[str], lineno: int, seen: int) -> Tuple[str, int]:
        nonlocal usual
        if len(fields) != 4:
            raise TrecFormatError(
                f"expected 4 columns (qid iteration docid relevance), got {len(fields)}"
                + _swapped_hint(fields, "run"),
                source,
                lineno,
            )
        try:
            value = _relevance(fields[3])
        except ValueError:
            raise TrecFormatError(
                f"relevance must be an integer (got {fields[3]!r})", source, lineno
            ) from None
        if not MIN_LABEL <= value <= MAX_LABEL:
            raise TrecFormatError(
                f"relevance must be between {MIN_LABEL} and {MAX_LABEL} (got {fields[3]!r})",
                source,
                lineno,
            )
        qid, topic = fields[0], fields[1]
        if usual is None:
            usual = topic
        if seen == 0:  # the query's first line
            if topic != usual:
                firsts[qid] = topic
            return fields[2], value
        if topic == firsts.get(qid, usual):
            return fields[2], value
        mixed[qid] = None
        return f"{fields[2]} {topic}", value

    def fast(block: bytes) -> Optional[Tuple[List[str], List[str], List[int]]]:
        nonlocal usual
        columns = _qrels_columns(block)
        if columns is None:
            return None
        qids, docids, values, topics = columns
        if usual is None:
            usual = topics[0]
        if topics.count(usual) != len(topics) or not firsts.keys().isdisjoint(qids):
            return None  # (another value: line by line)
        return qids, docids, values

    def named(exc: DuplicateEntryError) -> DuplicateEntryError:
        # a repeat in a query read with subtopics names its subtopic
        docid, sep, topic = exc.docid.partition(" ")
        if not sep and exc.qid not in mixed:
            return exc
        return DuplicateEntryError(exc.source, exc.first_line, exc.line, exc.qid, docid,
                                   topic or firsts.get(exc.qid, usual))

    try:
        out = _parse_table(lines, source, "qrels", entry, fast, duplicates)[0]
    except DuplicateEntryError as exc:
        raise named(exc) from None
    if duplicates:
        duplicates[:] = map(named, duplicates)
    if not mixed:
        return out, None
    table: Dict[str, Dict[str, Dict[str, int]]] = {}
    for qid, docs in out.items():
        first = firsts.get(qid, cast(str, usual))
        if qid not in mixed:
            if first != "0":  # one subtopic, named as in the file
                table[qid] = {first: docs}
            continue
        # split the keys, group runs of one subtopic, and take each
        # document's highest relevance, a query at a time in C loops
        keys = list(docs)
        values = list(docs.values())
        parts = list(map(str.partition, keys, _repeat(" ")))
        docids = list(map(_first, parts))
        subtopics = list(map(_third, parts))
        n = len(keys)
        starts = [0, *_compress(range(1, n), map(_ne, subtopics[1:], subtopics))]
        by_topic: Dict[str, Dict[str, int]] = {}
        for a, b in zip(starts, [*starts[1:], n]):
            by_topic.setdefault(subtopics[a] or first, {}).update(zip(docids[a:b], values[a:b]))
        # sorted by relevance, the highest is written last; then file order
        best = dict(sorted(zip(docids, values), key=_second))
        order = dict.fromkeys(docids)
        table[qid] = by_topic
        out[qid] = dict(zip(order, map(best.__getitem__, order)))
    return out, table


def _swapped_hint(fields: Sequence[Any], other: str) -> str:
    """Words for a line of the wrong width that reads as a line of the *other*
    format: a run line (6 fields or more, a number in the fifth) given as
    qrels, or a qrels line (4 fields, an integer in the fourth) given as a run."""
    try:
        if other == "run" and len(fields) >= 6:
            _number(fields[4], float)
            return ("; this looks like a run (qid Q0 docid rank score tag): "
                    "were the qrels and the run given in the wrong order?")
        if other == "qrels" and len(fields) == 4:
            _relevance(fields[3] if isinstance(fields[3], str) else fields[3].decode())
            return ("; this looks like qrels (qid iteration docid relevance): "
                    "were the qrels and the run given in the wrong order?")
    except (ValueError, UnicodeDecodeError):
        pass
    return ""


#: The range of relevance labels (a C int's, as trec_eval sizes arrays by the
#: largest label): beyond it, gains overflow doubles and trec_eval's arrays
#: would not fit in memory, so a larger label is an error at reading time.
MIN_LABEL = -(2**31)
MAX_LABEL = 2**31 - 1


def _relevance(text: str) -> int:
    """An integer label; one written with a decimal point and zeros (``1.0``,
    as pandas writes integers stored as floats) is that integer, as C's atol
    reads it.  ``1.5`` or ``0,9`` (which atol would read as 1 and 0) are errors."""
    try:
        return int(_number(text, int))
    except ValueError:
        whole, point, zeros = text.partition(".")
        if point and whole.lstrip("+-").isdigit() and zeros.strip("0") == "":
            return int(_number(whole, int))
        raise


#: The labels written most often, as their ints, in range by construction
#: (measured: a qrels file of 140,000 lines and 50,000 queries read in 79
#: against 87 ms with ``int()`` and the range check, medians of seven, with
#: the queries two blocks share found in C, in :func:`_add_columns`).
_LABELS = {str(v): v for v in range(-1, 10)}


def _qrels_columns(block: bytes) -> Optional[Tuple[List[Any], ...]]:
    """(qids, docids, relevance, second columns) of a block of plain qrels
    lines, or None.

    Plain: ASCII, no comment, exactly four fields a line and integer
    relevance; each line end is made a token of its own, so that the field
    count is one check (every fifth token a line end).
    """
    if not block.isascii() or b"#" in block or _MARK in block:
        return None
    if b"\x1c" in block or b"\x1d" in block or b"\x1e" in block or b"\x1f" in block:
        return None  # str.split() takes these for white space, trec_eval does not
    n = block.count(b"\n") + (not block.endswith(b"\n"))
    text = (block if block.endswith(b"\n") else block + b"\n").decode("ascii")
    toks = text.replace("\n", " \x01\n").split()
    if len(toks) != 5 * n or toks[4::5].count("\x01") != n:
        return None
    column = toks[3::5]
    if b"_" in block and "_" in "".join(column):
        return None  # int() reads "1_0" as 10, C's atol as 1: the slow path says so
    try:  # the usual labels looked up
        values = list(map(_LABELS.__getitem__, column))
    except KeyError:
        try:
            values = list(map(int, column))
        except ValueError:
            return None
        if values and (max(values) > MAX_LABEL or min(values) < MIN_LABEL):
            return None  # the slow path names the line
    return toks[0::5], toks[2::5], values, toks[1::5]


def _run_score(fields: Sequence[Any], source: str, lineno: int) -> float:
    """Check a run line's fields (``str`` or ``bytes``) and return its score.

    The one place for the run format's rules, used by :func:`read_run` and by
    the slow path of :class:`RunStream`, so that both report the same errors.
    """
    if len(fields) < 6:
        raise TrecFormatError(
            f"expected at least 6 columns (qid Q0 docid rank score tag), got {len(fields)}"
            + _swapped_hint(fields, "qrels"),
            source,
            lineno,
        )
    text = fields[4] if isinstance(fields[4], str) else fields[4].decode("utf-8")
    try:
        score: float = _number(text, float)
    except ValueError:
        raise TrecFormatError(f"score must be a number (got {text!r})", source, lineno) from None
    if score != score:
        raise TrecFormatError(f"score must not be NaN (got {text!r})", source, lineno)
    return score


def _parse_run(lines: Any, source: str) -> Tuple[Dict[str, Dict[str, float]], str]:
    wide: List[int] = []

    def entry(fields: List[str], lineno: int, _: int) -> Tuple[str, float]:
        score = _run_score(fields, source, lineno)  # checks the columns first
        if len(fields) > _MANY_FIELDS and not wide:
            wide.append(lineno)
            _many_fields_warning(source, lineno, len(fields))
        return fields[2], score

    out, last = _parse_table(lines, source, "run", entry)
    return out, last[5]


def _parse_ranked_list(lines: Any, source: str) -> Dict[str, Dict[str, float]]:
    def entry(fields: List[str], lineno: int, seen: int) -> Tuple[str, float]:
        if len(fields) != 2:
            raise TrecFormatError(
                f"expected 2 columns (qid docid) in a ranked list, got {len(fields)}",
                source,
                lineno,
            )
        return fields[1], -float(seen + 1)

    return _parse_table(lines, source, "ranked list", entry)[0]


# === Streaming a run, one query at a time ===


class RunNotGrouped(IrmetricsError):
    """Raised by :class:`RunStream` when a query's lines are not contiguous.

    Not an error of the input: the caller reads the run again with
    :meth:`RunStream.regrouped`, which holds it in memory (``evaluate()``
    does so by itself).  An :class:`~irmetrics.errors.IrmetricsError`, so
    that whoever iterates a stream directly meets only the library's errors.
    """

    def __init__(self, qid: str, line: int) -> None:
        super().__init__(f"query {qid!r} appears again on line {line} after other queries")
        self.qid = qid
        self.line = line


class _Tee:
    """A binary reader that keeps a copy of what it reads in a spool file
    (in memory up to 4 MiB, then on disk), so that a stream that cannot be
    read twice (a pipe, standard input) can be given again."""

    def __init__(self, raw: Any) -> None:
        import tempfile

        self.raw = raw
        self.spool = tempfile.SpooledTemporaryFile(max_size=4 << 20)  # noqa: SIM115
        self.name = getattr(raw, "name", None)

    def read(self, n: int = -1) -> bytes:
        data = bytes(self.raw.read(n))
        if not self.spool.closed:
            self.spool.write(data)
        return data

    def readable(self) -> bool:
        return True

    def close(self) -> None:
        """Close the copy (the stream copied is the caller's, left open)."""
        self.spool.close()

    def replay(self) -> Any:
        """A reader giving everything read so far, then the rest of the input."""
        self.spool.seek(0)
        return _Chain(self.spool, self.raw, self.name)


class _Chain(io.RawIOBase):
    def __init__(self, first: Any, second: Any, name: Any) -> None:
        super().__init__()
        self._parts = [first, second]
        self.name = name

    def readable(self) -> bool:
        return True

    def readinto(self, buf: Any) -> int:
        if len(buf) == 0:
            return 0
        while self._parts:
            data = self._parts[0].read(len(buf))
            if data:
                buf[: len(data)] = data
                return len(data)
            self._parts.pop(0)
        return 0


def _is_regular_file(path: Any) -> bool:
    import stat

    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return True  # opening it will report the problem, with the file's name


#: A run line with more fields than this is probably two lines run together
#: (a file without a final line end, concatenated with another): a warning.
_MANY_FIELDS = 10


def _many_fields_warning(source: str, lineno: int, n: int) -> None:
    _warn(
        f"{source}, line {lineno}: {n} fields, of which only the first 6 are read; two lines "
        "run together (a file without a final line end, concatenated with another)?"
    )


class RunStream:
    r"""Read a TREC run one query at a time, in constant memory.

    Iterating yields ``(qid, docids, scores)`` for each block of consecutive
    lines of one query, in file order: *docids* are ``bytes`` (the file's
    UTF-8, validated), *scores* floats.  TREC runs are grouped by query; if a
    query comes back after another one started, iteration raises
    :class:`RunNotGrouped`, and :meth:`regrouped` reads the run again, whole,
    in memory.  A source that cannot be read twice (a pipe, a FIFO, standard
    input) is copied to a spool file as it is read, so that the second
    reading sees all of it; a regular file is simply opened again.  All
    format rules and errors are those of :func:`read_run`.  ``lines`` counts
    the lines read so far, ``tag`` is the run's name (the tag of the last line
    read, trec_eval's run id), ``members`` is the set of docids of the query
    just yielded, and ``positions`` maps each to its index.

    >>> import io
    >>> stream = RunStream(io.BytesIO(b"q1 Q0 d1 1 2.5 bm25\nq1 Q0 d2 2 1.0 bm25\n"))
    >>> [(q, d, s) for q, d, s in stream]
    [('q1', [b'd1', b'd2'], [2.5, 1.0])]
    >>> stream.tag
    'bm25'
    """

    def __init__(
        self,
        source: PathOrFile,
        *,
        chunk_size: int = _RUN_BLOCK,
        grouped: bool = True,
        keep_duplicates: bool = False,
    ) -> None:
        self.name = _source_name(source)
        # With keep_duplicates, a document given twice for a query is not an
        # error of the stream: the query is yielded with both entries, and
        # ``duplicates`` lists the errors the caller may raise (trec_eval
        # looks only at the documents it evaluates).
        self.keep_duplicates = keep_duplicates
        self.duplicates: List[DuplicateEntryError] = []
        self.tag: Optional[str] = None
        self.lines = 0
        self.members: Set[bytes] = set()
        self._docs: List[bytes] = []
        self._group_size = 1
        self.chunk_size = chunk_size
        self.grouped = grouped
        self._source: Any = source
        self._start: Optional[int] = None
        self._tee: Optional[_Tee] = None
        # what the stream opened itself and closes: a copy (a _Tee), a
        # non-regular file given by path
        self._owned: List[Any] = []
        self._wide = False  # a line with many fields was warned about
        # Scores may be yielded as exact order keys (see _decimal_keys) for a
        # consumer that only ranks by them (evaluate's scorer sets this).
        self._order_keys = False
        self._unpointed = False  # a block's decimals differed in length (see _block)
        if isinstance(source, (str, bytes, os.PathLike)):
            if not _is_regular_file(source):
                self._open_path = True  # opened (and copied) when first read
        else:
            seekable = getattr(source, "seekable", None)
            if seekable is not None and seekable():
                self._start = source.tell()
            elif grouped and callable(getattr(source, "read", None)):
                # a pipe, standard input: copied as it is read, text as
                # its UTF-8 (what the readers read it as), for regrouped()
                probe = source.read(0)
                raw = _TextReader(source) if isinstance(probe, str) else source
                self._tee = _Tee(raw)
                self._owned.append(self._tee)
                self._source = self._tee

    _open_path = False

    @property
    def positions(self) -> Dict[bytes, int]:
        """``{docid: index}`` of the query just yielded."""
        return dict(zip(self._docs, range(len(self._docs))))

    def regrouped(self) -> RunStream:
        """The run again, from its start, each query's lines gathered from
        wherever they are (the whole run is held in memory)."""
        if self._tee is not None:
            source: Any = self._tee.replay()
        elif self._start is not None:
            self._source.seek(self._start)
            source = self._source
        else:
            source = self._source
        again = RunStream(
            source, chunk_size=self.chunk_size, grouped=False,
            keep_duplicates=self.keep_duplicates,
        )
        again.name = self.name
        again._order_keys = self._order_keys
        again._owned += self._owned
        self._owned = []
        return again

    def close(self) -> None:
        """Close what the stream opened itself (the copy of a pipe, a FIFO or
        a device given by path); the iteration does so when it ends, unless
        it raised :class:`RunNotGrouped` (:meth:`regrouped` reads the copy)."""
        owned, self._owned = self._owned, []
        for f in owned:
            f.close()

    def __iter__(self) -> Iterator[Tuple[str, List[bytes], List[float]]]:
        self.lines = 0
        self.tag = None
        if self._open_path and self._tee is None:
            try:
                raw = open(self._source, "rb")  # noqa: SIM115 - closed by close()
            except OSError as exc:
                reason = exc.strerror or str(exc)
                raise TrecFormatError(f"cannot open file ({reason})", self.name) from exc
            self._tee = _Tee(raw)
            self._owned += [raw, self._tee]
            self._source = self._tee
        try:
            with _open_lines(self._source) as (stream, _):
                yield from self._groups(_chunks(stream, self.chunk_size), self.name)
        except RunNotGrouped:
            raise
        except BaseException:
            self.close()
            raise
        self.close()

    # The state of the query being read: its id, the docids and scores so far,
    # and (first index, first line) of every run of consecutive lines, so that
    # a duplicate can be reported with both line numbers.
    def _groups(
        self, chunks: Iterator[bytes], name: str
    ) -> Iterator[Tuple[str, List[bytes], List[Any]]]:
        done: Dict[bytes, int] = {}
        # queries held back when the run is read ungrouped: {qid: (docids,
        # scores, segments, scale)}, yielded at the end in order of first appearance
        held: Dict[bytes, Tuple[List[bytes], List[Any], List[Tuple[int, int]], Optional[int]]] = {}
        cur_q: Optional[bytes] = None
        cur_docs: List[bytes] = []
        cur_scores: List[Any] = []
        cur_segments: List[Tuple[int, int]] = []
        cur_scale: Optional[int] = None
        lines = _Lines(chunks)
        try:
            for data, unterminated in lines:
                # the query the block may go on with, and its lines so far
                carry = (cur_q, len(cur_docs)) if self.grouped else (None, 0)
                for q, docs, scores, segments, scale in self._block(
                    data, name, unterminated, carry
                ):
                    if q is None:  # an error in the block: report a duplicate first
                        if cur_q is not None and self.grouped:
                            self._finish(cur_q, cur_docs, cur_scores, cur_segments, name)
                        raise cast(TrecFormatError, docs)
                    if not self.grouped:
                        got = held.get(q)
                        if got is None:
                            held[q] = (docs, scores, list(segments), scale)
                        else:
                            base = len(got[0])
                            got[0].extend(docs)
                            if scale != got[3]:  # keys of two scales: floats for both
                                got[1][:] = _as_floats(got[1], got[3])
                                held[q] = got = got[:3] + (None,)
                                scores = _as_floats(scores, scale)
                            got[1].extend(scores)
                            got[2].extend((base + i, ln) for i, ln in segments)
                        continue
                    if q == cur_q:
                        base = len(cur_docs)
                        cur_docs.extend(docs)
                        if scale != cur_scale:  # keys of two scales: floats for both
                            cur_scores = _as_floats(cur_scores, cur_scale)
                            scores = _as_floats(scores, scale)
                            cur_scale = None
                        cur_scores.extend(scores)
                        cur_segments.extend((base + i, ln) for i, ln in segments)
                        continue
                    if cur_q is not None:
                        yield self._finish(cur_q, cur_docs, cur_scores, cur_segments, name)
                        done[cur_q] = cur_segments[0][1]
                    if q in done:
                        raise RunNotGrouped(q.decode("utf-8"), segments[0][1])
                    cur_q, cur_docs, cur_scores, cur_segments = q, docs, scores, list(segments)
                    cur_scale = scale
        except _READ_ERRORS + (UnicodeDecodeError,) as exc:  # (a text-mode file's)
            raise _read_error(name, self.lines, exc) from exc
        except _LineTooLong:
            raise _too_long(name, self.lines + 1) from None
        if cur_q is not None:
            yield self._finish(cur_q, cur_docs, cur_scores, cur_segments, name)
        for q, (docs, scores, segments, _) in held.items():
            yield self._finish(q, docs, scores, segments, name)
        if self.tag is None:
            raise _empty_error(name, "run", max(self.lines, int(lines.bom)))

    def _finish(
        self,
        q: bytes,
        docs: List[bytes],
        scores: List[float],
        segments: List[Tuple[int, int]],
        name: str,
    ) -> Tuple[str, List[bytes], List[float]]:
        qid = q.decode()
        # the duplicate check; the set is kept for the caller, who can look
        # judged documents up in it without hashing every docid again
        self.members = set(docs)
        self._docs = docs
        if self.duplicates:
            self.duplicates = []
        if len(self.members) != len(docs):
            seen: Dict[bytes, int] = {}
            for i, d in enumerate(docs):
                if d in seen:
                    first_line = _segment_line(segments, seen[d])
                    line = _segment_line(segments, i)
                    error = DuplicateEntryError(name, first_line, line, qid, d.decode("utf-8"))
                    if not self.keep_duplicates:
                        raise error
                    self.duplicates.append(error)
                else:
                    seen[d] = i
        return qid, docs, scores

    def _block(
        self,
        block: bytes,
        name: str,
        unterminated: bool = False,
        carry: Tuple[Optional[bytes], int] = (None, 0),
    ) -> Iterator[Tuple[Any, Any, Any, Any, Optional[int]]]:
        """Split a block of whole lines into runs of one query.

        Yields ``(qid, docids, scores, [(index, line), ...], scale)`` per run,
        and ``(None, error, None, None, None)`` when a line is malformed.
        *scale* is None for float scores, else the number of decimals of the
        block's integer order keys (see :func:`_decimal_keys`).  The fast path
        (:func:`_columns`) takes blocks of plain ASCII where every line has
        exactly six fields; anything else (comments, blank lines, extra
        columns, other bytes, a bad score) goes line by line, as
        :func:`read_run` reads.  *carry*: the query the last block ended with
        and its lines there (a block usually begins with the rest of a query).
        """
        base = self.lines
        if not block.strip():  # blank lines only: counted, not split
            self.lines = base + block.count(b"\n")
            return
        columns = _columns(block, self._order_keys and not self._unpointed)
        scores: List[Any] = []
        scale: Optional[int] = None
        if columns is not None:
            texts, pointed = columns[3], columns[5]
            keys = _decimal_keys(texts, pointed) if self._order_keys else None
            if keys is not None:
                scores, scale = keys
            else:
                if pointed:  # decimals of different lengths: points again, and
                    # no more "_" for them in this stream (floats it will be)
                    self._unpointed = True
                    texts = [t.replace(b"_", b".") for t in texts]
                if not _float_scores(texts, block, scores):
                    columns = None
        if columns is None:
            yield from self._slow_block(block, name, unterminated)
            return
        n, qids, docids, _, tag, _ = columns
        self.tag = tag.decode("ascii")
        self.lines = base + n
        start = 0
        size = self._group_size
        carry_q, carried = carry
        while start < n:
            q = qids[start]
            # Runs usually give every query as many lines as the last one:
            # try that first (the rest of it for the query the last block
            # ended with, the rest of the block for the last), checked in C;
            # else walk to the next query (measured: walking at both ends of
            # every block took 2.5% of the time of the MS MARCO shape).
            going_on = start == 0 and q == carry_q
            end = min(start + (size - carried if going_on and carried < size else size), n)
            if not (
                qids[end - 1] == q
                and (end == n or qids[end] != q)
                and qids[start:end].count(q) == end - start
            ):
                end = start + 1
                while end < n and qids[end] == q:
                    end += 1
                if end < n and not going_on:  # a whole query: its size is the next guess
                    size = end - start
            yield q, docids[start:end], scores[start:end], [(0, base + start + 1)], scale
            start = end
        self._group_size = size

    def _slow_block(
        self, block: bytes, name: str, unterminated: bool
    ) -> Iterator[Tuple[Any, Any, Any, Any, Optional[int]]]:
        lineno = self.lines
        cur_q: Optional[bytes] = None
        docs: List[bytes] = []
        scores: List[float] = []
        segments: List[Tuple[int, int]] = []
        prev_line = -1
        try:
            lines = block.split(b"\n")[:-1]
            last = len(lines) - 1
            for i, line in enumerate(lines):
                lineno += 1
                parsed = _parse_run_line(line, name, lineno, unterminated and i == last)
                if parsed is None:
                    continue
                q, docid, score, tag, n_fields = parsed
                if n_fields > _MANY_FIELDS and not self._wide:
                    self._wide = True
                    _many_fields_warning(name, lineno, n_fields)
                self.tag = tag.decode("utf-8")
                if q != cur_q:
                    if cur_q is not None:
                        yield cur_q, docs, scores, segments, None
                    cur_q, docs, scores, segments = q, [], [], []
                    prev_line = -1
                if lineno != prev_line + 1:
                    segments.append((len(docs), lineno))
                prev_line = lineno
                docs.append(docid)
                scores.append(score)
        except TrecFormatError as exc:
            if cur_q is not None:
                yield cur_q, docs, scores, segments, None
            yield None, exc, None, None, None
            return
        self.lines = lineno
        if cur_q is not None:
            yield cur_q, docs, scores, segments, None


_MARK = b"\x01"  # a line-end token for the second layout, which takes no block holding it
# What is left of a block of six-field lines with single spaces once every
# byte but the space and the line end is deleted: five spaces a line.
_NOT_SPACE_POINT_OR_LINE_END = bytes(b for b in range(256) if b not in b" .\n")
_SIX_FIELDS = b"     \n"
# ... and the same with a point in the fifth field, the score, and nowhere else
_SIX_FIELDS_POINTED = b"    . \n"


def _columns(
    block: bytes, points: bool = False
) -> Optional[Tuple[int, List[bytes], List[bytes], List[bytes], bytes, bool]]:
    """The columns of a block of plain run lines, or None for the slow path.

    Returns ``(lines, qids, docids, score texts, tag of the last line,
    pointed)``.  Two layouts qualify, both plain ASCII with no comment and
    exactly six fields a line: single spaces between fields and LF or CRLF
    line ends (the usual layout, checked in C without finding the line ends
    one by one), or any ASCII white space, each line end then made a token of
    its own.  With *points*, in the usual layout, where every line has one
    point and it is in the score (``38.133``), the points are read as ``_``
    (``38_133``, which ``int()`` reads as 38133: see :func:`_decimal_keys`)
    and *pointed* is true; such a block holds no ``_`` of its own.
    """
    if not block.isascii() or b"#" in block:
        return None
    if (
        b"\t" not in block
        and b"\x0b" not in block
        and b"\x0c" not in block
        and (b"\r" not in block or block.count(b"\r") == block.count(b"\r\n"))
    ):
        # one pass over the block: its spaces, points and line ends
        marks = block.translate(None, _NOT_SPACE_POINT_OR_LINE_END)
        pointed = False
        if b"." in marks:
            n = len(marks) // len(_SIX_FIELDS_POINTED)
            pointed = points and marks == _SIX_FIELDS_POINTED * n and b"_" not in block
            if not pointed:
                marks = marks.replace(b".", b"")
        if not pointed:
            n = len(marks) // len(_SIX_FIELDS)
        if pointed or marks == _SIX_FIELDS * n:
            # Five spaces a line: six fields, unless one is empty (a double,
            # leading or trailing space), which the number of tokens shows.
            toks = (block.replace(b".", b"_") if pointed else block).split()
            if len(toks) != 6 * n:
                return None
            return n, toks[0::6], toks[2::6], toks[4::6], toks[-1], pointed
    if _MARK in block:
        return None
    # Any other white space: each line end becomes a token of its own, so
    # that every line having exactly six fields is one check, every seventh
    # token being a line end.
    n = block.count(b"\n")
    toks = block.replace(b"\n", b" " + _MARK + b"\n").split()
    if len(toks) != 7 * n or toks[6::7].count(_MARK) != n:
        return None
    return n, toks[0::7], toks[2::7], toks[4::7], toks[-2], False


def _float_scores(texts: List[bytes], block: bytes, out: List[float]) -> bool:
    """Fill *out* with the scores of the fast path as floats; False when a
    score needs the slow path (which reads it, or says what is wrong)."""
    try:
        out.extend(map(float, texts))
    except ValueError:
        return False
    if b"_" in block and b"_" in b"".join(texts):
        return False  # float() reads "1_0" as 10, C's atof as 1: the slow path says so
    total = sum(out)  # NaN if a score is NaN (or inf - inf): then look closer
    return not (total != total and any(map(math.isnan, out)))


# digits to "0", to see the shape of a column of decimals
_DIGITS_TO_ZERO = bytes.maketrans(b"123456789", b"000000000")


def _decimal_keys(texts: List[bytes], pointed: bool = False) -> Optional[Tuple[List[int], int]]:
    """Exact integer order keys for a column of scores written as decimals
    with the same number of digits after the point, or None.

    ``(keys, k)``: each score times ``10**k`` as an int, where every score is
    an optional ``-``, digits, and (for ``k > 0``) a point and exactly *k*
    digits, at most 15 digits in all.  Decimals of at most 15 digits are
    distinct as doubles exactly when they are distinct numbers, and rounding
    keeps their order, so the keys order and tie the documents as the
    doubles trec_eval reads do; ``key / 10**k`` is that double (Python's
    integer division rounds correctly).  *pointed*: the texts have ``_``
    for their point, one each (see :func:`_columns`), which ``int()`` reads
    as a separator of digits.  Parsing a decimal as an int costs about two
    fifths of parsing it as a float (measured: 66 against 168 ns a score, on
    7,500 scores of three decimals; 129 ns with these checks and the point
    taken out here, 90 ns when :func:`_columns` made it ``_``).
    """
    n = len(texts)
    point = b"_" if pointed else b"."
    joined = b" ".join(texts)
    dots = n if pointed else joined.count(b".")
    if dots == 0:
        k = 0
    elif dots == n:
        first = texts[0]
        k = len(first) - 1 - first.find(point)
    else:
        return None
    shape = b" " + joined.translate(_DIGITS_TO_ZERO) + b" "
    # each point followed by exactly k digits and the end of its score
    if dots and shape.count(point + b"0" * k + b" ") != n:
        return None
    # nothing but digits, points and leading signs (no exponent, no "+", no
    # "_", which int() takes between digits); pointed texts are left to
    # int() (their one "_" is the point; it takes nothing else but digits
    # and a sign; measured: 10% of the time of these keys)
    if not pointed and (
        shape.translate(None, b"0- " + point) or shape.count(b"-") != shape.count(b" -")
    ):
        return None
    # at most 15 digits a score: the integer part has at most 15 - k
    if k > 15 or (b"0" * (16 - k) + (point if k else b" ")) in shape:
        return None
    try:  # "_5" or "5_" (".5", "5.") are not ints: then floats
        keys = list(map(int, texts if pointed else joined.replace(b".", b"").split()))
    except ValueError:  # a lone sign or point
        return None
    return (keys, k) if len(keys) == n else None


def _as_floats(scores: List[Any], scale: Optional[int]) -> List[Any]:
    """Order keys of *scale* decimals as the floats they stand for (floats as they are)."""
    if scale is None:
        return scores
    unit = 10**scale
    return [key / unit for key in scores]


def _with_end(chunks: Iterator[bytes]) -> Iterator[Optional[bytes]]:
    yield from chunks
    yield None


def _parse_run_line(
    line: bytes, name: str, lineno: int, unterminated: bool = False
) -> Optional[Tuple[bytes, bytes, float, bytes, int]]:
    """One run line: (qid, docid, score, tag, number of fields), or None for a
    blank or comment line.

    The line is checked as UTF-8 with its line end, as :func:`read_run` reads
    it, unless it was the file's last and had none.
    """
    try:
        (line if unterminated else line + b"\n").decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _decode_error(name, lineno, exc) from None
    fields = line.split()
    if not fields or fields[0].startswith(b"#"):
        return None
    score = _run_score(fields, name, lineno)  # checks the number of fields first
    return fields[0], fields[2], score, fields[5], len(fields)


def _segment_line(segments: List[Tuple[int, int]], index: int) -> int:
    for first, line in reversed(segments):
        if first <= index:
            return line + index - first
    return segments[0][1]  # pragma: no cover - every index is in a segment


def rank_documents(docids: List[bytes], scores: List[float]) -> List[bytes]:
    """Order one query's documents as trec_eval does (see :func:`trec_ranking`).

    >>> rank_documents([b"d1", b"d2", b"d3"], [0.5, 0.9, 0.5])
    [b'd2', b'd3', b'd1']
    """
    return [d for _, d in sorted(zip(scores, docids), reverse=True)]


# === Ordering ===


def trec_ranking(scores: Mapping[str, float]) -> List[str]:
    """Return the document ids of one query in trec_eval's evaluation order.

    Score descending; equal scores are broken by document id *descending* in
    byte order (trec_eval compares ``strcmp(b, a)``; Python compares code
    points, which orders UTF-8 strings the same way).  The rank column of a
    run file plays no part.

    >>> trec_ranking({"d1": 0.5, "d2": 0.9, "d3": 0.5})
    ['d2', 'd3', 'd1']
    """
    return [doc for doc, _ in sorted(scores.items(), key=itemgetter(1, 0), reverse=True)]


# === Writers ===


def _check_id(value: str, what: str, qid: Optional[str] = None) -> None:
    # An id must come back as one field, and a query id starting with "#"
    # would be read back as a comment.
    if value.split() != [value] or (qid is None and value.startswith("#")):
        where = "" if qid is None else f" (query {qid!r})"
        raise InvalidArgumentError(
            f"cannot write {what} {value!r}{where} in TREC format: ids must be non-empty, "
            "contain no whitespace, and query ids must not start with '#'"
        )


@contextmanager
def _open_writer(dest: PathOrFile) -> Iterator[Any]:
    """Yield a callable that writes one str chunk to *dest*."""
    if isinstance(dest, (str, bytes, os.PathLike)):
        path = os.fsdecode(os.fspath(dest))
        if path.endswith(".gz"):
            with _gzip().open(dest, "wt", encoding="utf-8", newline="\n") as fz:
                yield fz.write
        else:
            with open(dest, "w", encoding="utf-8", newline="\n") as f:
                yield f.write
        return
    if not callable(getattr(dest, "write", None)):
        raise InvalidArgumentError(
            f"expected a path or an open file object (got {type(dest).__name__} {dest!r})"
        )
    if isinstance(dest, io.TextIOBase):
        binary = False
    elif isinstance(dest, (io.RawIOBase, io.BufferedIOBase)):
        binary = True
    else:
        mode = getattr(dest, "mode", "")
        binary = isinstance(mode, str) and "b" in mode
    if binary:
        write = cast(Any, dest).write

        def write_bytes(text: str) -> None:
            write(text.encode("utf-8"))

        yield write_bytes
    else:
        yield dest.write


def write_qrels(qrels: Mapping[str, Mapping[str, int]], dest: PathOrFile) -> None:
    """Write *qrels* as ``qid 0 docid relevance`` lines, in mapping order.

    *dest* is a path (a name ending in ``.gz`` is written gzip-compressed) or
    an open file object, text or binary, which is left open.

    >>> import sys
    >>> write_qrels({"q1": {"d1": 1, "d2": 0}}, sys.stdout)
    q1 0 d1 1
    q1 0 d2 0
    """
    with _open_writer(dest) as write:
        for qid, docs in qrels.items():
            _check_id(qid, "query id")
            chunk = []
            for docid, rel in docs.items():
                _check_id(docid, "document id", qid)
                if type(rel) is not int or not MIN_LABEL <= rel <= MAX_LABEL:
                    raise InvalidArgumentError(
                        f"cannot write relevance {rel!r} (query {qid!r}, document {docid!r}): "
                        f"relevance must be an int between {MIN_LABEL} and {MAX_LABEL}"
                    )
                chunk.append(f"{qid} 0 {docid} {rel}\n")
            write("".join(chunk))


def write_subtopic_qrels(
    qrels: Mapping[str, Mapping[str, Mapping[str, int]]], dest: PathOrFile
) -> None:
    """Write ``{qid: {subtopic: {docid: relevance}}}`` as ``qid subtopic docid
    relevance`` lines (a diversity qrels file, see :func:`read_subtopic_qrels`).

    >>> import sys
    >>> write_subtopic_qrels({"q1": {"1": {"d1": 1}, "2": {"d1": 0}}}, sys.stdout)
    q1 1 d1 1
    q1 2 d1 0
    """
    with _open_writer(dest) as write:
        for qid, topics in qrels.items():
            _check_id(qid, "query id")
            chunk = []
            for subtopic, docs in topics.items():
                _check_id(subtopic, "subtopic", qid)
                for docid, rel in docs.items():
                    _check_id(docid, "document id", qid)
                    if type(rel) is not int:
                        raise InvalidArgumentError(
                            f"cannot write relevance {rel!r} (query {qid!r}, document "
                            f"{docid!r}): relevance must be an int"
                        )
                    chunk.append(f"{qid} {subtopic} {docid} {rel}\n")
            write("".join(chunk))


def write_run(
    run: Mapping[str, Mapping[str, float]], dest: PathOrFile, *, name: str = "irmetrics"
) -> None:
    """Write *run* as ``qid Q0 docid rank score name`` lines.

    Queries come in mapping order; documents in :func:`trec_ranking` order
    with ranks 1..n.  Scores are written with ``repr(float)``, the shortest
    text that reads back as the identical float.  *dest* is as for
    :func:`write_qrels`.

    >>> import sys
    >>> write_run({"q1": {"d1": 0.5, "d2": 2}}, sys.stdout, name="bm25")
    q1 Q0 d2 1 2.0 bm25
    q1 Q0 d1 2 0.5 bm25
    """
    if not isinstance(name, str) or name.split() != [name]:
        raise InvalidArgumentError(
            f"'name' must be a non-empty str without whitespace (got {name!r})"
        )
    with _open_writer(dest) as write:
        for qid, docs in run.items():
            _check_id(qid, "query id")
            chunk = []
            for rank, docid in enumerate(trec_ranking(docs), 1):
                _check_id(docid, "document id", qid)
                score = float(docs[docid])
                if math.isnan(score):
                    raise InvalidArgumentError(
                        f"cannot write a NaN score (query {qid!r}, document {docid!r})"
                    )
                chunk.append(f"{qid} Q0 {docid} {rank} {score!r} {name}\n")
            write("".join(chunk))
