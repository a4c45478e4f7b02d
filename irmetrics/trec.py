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

import codecs
import io
import math
import os
import zlib
from bisect import bisect_right
from contextlib import ExitStack, contextmanager
from itertools import accumulate, groupby
from operator import itemgetter
from typing import (
    TYPE_CHECKING,
    Any,
    Callable,
    Dict,
    Iterable,
    Iterator,
    List,
    Mapping,
    NamedTuple,
    Optional,
    Set,
    Tuple,
    Union,
    cast,
)

from ._checks import kind_of
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

#: What a path may be given as (what :func:`open` takes).
_PATHS = (str, bytes, os.PathLike)
_GZIP_MAGIC = b"\x1f\x8b"
_BOM = b"\xef\xbb\xbf"
# Errors a file object may raise while being read: I/O failures, and
# zlib.error (corrupt gzip data).
_READ_ERRORS = (OSError, EOFError, zlib.error)


# === Opening ===


def _source_name(source: Any) -> str:
    if isinstance(source, _PATHS):
        return os.fsdecode(os.fspath(source))
    name = getattr(source, "name", None)
    if isinstance(name, (str, bytes)) and name:
        return os.fsdecode(name)
    return "<file>"


def _probe_binary(fileobj: Any) -> Tuple[Any, bytes]:
    """Return (a binary stream positioned like *fileobj*, its first two bytes)."""
    peek = getattr(fileobj, "peek", None)
    if peek is not None:
        head = bytes(peek(2)[:2])
        if len(head) >= 2:
            return fileobj, head
    # Not peekable, or a peek gave less: a buffer in front of it gives a
    # peek, and the stream is still read once, in constant memory.
    buffered = io.BufferedReader(_Chain([fileobj], getattr(fileobj, "name", None)))
    return buffered, bytes(buffered.peek(2)[:2])


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


def _open_path(path: Any, name: str) -> Any:
    """A file given by path, opened to read its bytes, or the error naming it."""
    try:
        return open(path, "rb")  # noqa: SIM115 - the caller closes it
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise TrecFormatError(f"cannot open file ({reason})", name) from exc


@contextmanager
def _open_lines(source: PathOrFile) -> Iterator[Tuple[Any, str]]:
    """Yield (a binary stream of the source's bytes, gzip undone, and its name)."""
    name = _source_name(source)
    with ExitStack() as opened:
        fileobj: Any = source
        stream: Any
        if isinstance(source, _PATHS):
            fileobj = opened.enter_context(_open_path(source, name))
        elif not callable(getattr(source, "read", None)):
            raise InvalidArgumentError(
                f"expected a path or an open file object (got {type(source).__name__} {source!r})"
            )
        try:
            if isinstance(fileobj.read(0), str):
                stream, head = _TextReader(fileobj), b""
            else:
                stream, head = _probe_binary(fileobj)
        except _READ_ERRORS as exc:
            reason = getattr(exc, "strerror", None) or str(exc)
            raise TrecFormatError(f"cannot read file ({reason})", name) from exc
        if head == _GZIP_MAGIC:
            import gzip  # (only when a gzip file is met)

            # GzipFile(fileobj=...) leaves the file it reads open when closed.
            stream = opened.enter_context(gzip.GzipFile(fileobj=stream, mode="rb"))
        yield stream, name


#: Bytes read at a time (the tests make it tiny): the Python objects made
#: from one block stay in a core's cache while they are used.
_BLOCK = 1 << 16

#: The longest line the readers take (bytes).  No TREC line comes near it; a
#: file whose lines end in CR alone, or that has no line ends, would otherwise
#: be read whole as one line.
MAX_LINE = 16 << 20


class _LineTooLong(Exception):
    """Raised by :func:`_lines`; the reader adds the file and the line."""


def _lines(stream: Any, size: int, left: int = -1) -> Iterator[Tuple[bytes, bool]]:
    """Blocks of whole lines of a binary stream, read *size* bytes at a time
    (and no more than *left* bytes in all, if not -1), in linear time.

    Yields ``(block, unterminated)``: *block* ends with a line end; the
    file's last line, if it has none, comes last with one added and
    *unterminated* true.  A line longer than :data:`MAX_LINE` raises
    :class:`_LineTooLong`; the pieces of a long line are kept in a list and
    joined once, never re-copied piece by piece.  ``read1`` where the stream
    has it: what one read of the file or one step of gzip gives, so that a
    read error (a truncated gzip file) loses little of what came before it,
    and the error's "after line N" is close.
    """
    read = getattr(stream, "read1", None) or stream.read
    partial: List[Any] = []  # pieces of the line being read
    held = 0  # their bytes
    while left:
        piece = bytes(read(size if left < 0 else min(size, left)))
        if not piece:
            break
        if left > 0:
            left -= len(piece)
        cut = piece.rfind(b"\n") + 1
        if cut == 0:
            partial.append(piece)
            held += len(piece)
            if held > MAX_LINE:
                raise _LineTooLong()
            continue
        if partial:
            if held + piece.find(b"\n") > MAX_LINE:
                raise _LineTooLong()
            # one copy: the line's start joined with a view of the piece
            partial.append(memoryview(piece)[:cut])
            block = b"".join(partial)
        else:
            block = piece[:cut] if cut < len(piece) else piece
        partial = [piece[cut:]] if cut < len(piece) else []
        held = len(piece) - cut
        yield block, False
    if partial:
        yield b"".join(partial) + b"\n", True


# === Errors ===


def _number(text: bytes, kind: Callable[[bytes], Any]) -> Any:
    """float() or int() of a field, as C's atof/atol read it: ASCII digits
    only, and no "_" (which Python accepts as a digit separator)."""
    if not text.isascii() or b"_" in text:
        raise ValueError(text)
    return kind(text)


def _utf8_error(source: str, lineno: int, line: bytes) -> Optional[TrecFormatError]:
    """The error of a *line* that is not valid UTF-8, else None."""
    try:
        line.decode("utf-8")
    except UnicodeDecodeError as exc:
        reason = f"{exc.reason} at byte {exc.start + 1}"
        return TrecFormatError(f"line is not valid UTF-8 ({reason})", source, lineno)
    return None


def _read_error(source: str, lineno: int, exc: BaseException) -> TrecFormatError:
    if isinstance(exc, UnicodeDecodeError):
        # A text-mode file object failed to decode ahead of us.
        return TrecFormatError(f"file is not valid text after line {lineno} ({exc})", source)
    return TrecFormatError(f"cannot read file after line {lineno} ({exc})", source)


#: Where a query's entries were read: ``(index, starts, row)`` for each
#: block holding some of them, the first there being the query's entry
#: *index* and the block's row *row* (*starts*: the block's ``_Rows.starts``).
#: Lines are worked out only for an error.
Where = List[Tuple[int, List[Tuple[int, int]], int]]


def _line_of(where: Where, index: int) -> int:
    """The line of a query's entry *index*."""
    start, starts, row = next(w for w in reversed(where) if w[0] <= index)
    return _row_line(starts, row + index - start)


def _row_line(starts: List[Tuple[int, int]], row: int) -> int:
    """The line of a block's *row*, given ``(row, line)`` where each run of
    its consecutive entry lines begins."""
    first, line = starts[bisect_right(starts, (row, MAX_LINE)) - 1]
    return line + row - first


def _first_line(docs: Mapping[str, object], where: Where, docid: str) -> int:
    """The line on which *docid*, an entry of *docs*, was read (see :func:`_line_of`)."""
    return _line_of(where, list(docs).index(docid))


# === Lines as columns ===
#
# Every reader takes a block of whole lines at a time and makes it columns
# with a few calls in C: each line end becomes a token of its own (_MARK),
# the block is split on ASCII white space once (as trec_eval splits), and a
# block where every line has the format's number of fields is then one
# check, every (width + 1)-th token being a line end; column c is the slice
# ``fields[c::width + 1]``.  A block holding anything else (a comment, a
# blank line, a line of another width, the mark itself) is split line by
# line into the same layout.  Numbers are parsed a column at a time, once.

# (made at run time: one-byte bytes are shared objects, so this is the very
# object split() returns for each mark, and counting marks compares identities;
# the literal b"\x01" loaded from a .pyc is another object, compared byte-wise)
_MARK = bytes([1])


class _Format(NamedTuple):
    """What a line of one kind of file holds."""

    kind: str  # the file's kind, for messages ("qrels", "run", "ranked list")
    width: int  # the fields read from each line
    exact: bool  # lines must have exactly *width* fields (else at least)
    expected: str  # the message for a line of another number of fields
    other: str  # the kind a line of another width may be a line of (see _swapped_hint)


_QRELS = _Format("qrels", 4, True, "expected 4 columns (qid iteration docid relevance)", "run")
_RUN = _Format("run", 6, False, "expected at least 6 columns (qid Q0 docid rank score tag)",
               "qrels")
_RANKED_LIST = _Format("ranked list", 2, True, "expected 2 columns (qid docid) in a ranked list",
                       "")


class _Rows(NamedTuple):
    """The entry lines of a block, as fields: column c is ``fields[c::stride]``.

    *starts* lists ``(row, line)`` where each run of consecutive entry lines
    begins; *error* is the block's first bad line, raised once the rows
    before it are taken; *wide* is ``(line, fields)`` of the first line with
    more than :data:`_MANY_FIELDS` fields (a run's), else None; *end* is the
    number of the block's last line; *underscore*: the block holds a ``_``
    (which ``float()`` takes between digits, C's atof not).
    """

    fields: List[bytes]
    stride: int
    starts: List[Tuple[int, int]]
    error: Optional[TrecFormatError]
    wide: Optional[Tuple[int, int]]
    end: int
    underscore: bool = True

    @property
    def n(self) -> int:
        """The number of rows."""
        return len(self.fields) // self.stride

    def column(self, c: int) -> List[bytes]:
        return self.fields[c :: self.stride]

    def line(self, row: int) -> int:
        """The line *row* was read on."""
        return _row_line(self.starts, row)

    def cut(self, row: int, error: TrecFormatError) -> _Rows:
        """The rows before *row*, with *error* (on its line) to raise after them."""
        return self._replace(fields=self.fields[: row * self.stride], error=error)


def _rows(block: bytes, lineno: int, form: _Format, source: str, unterminated: bool) -> _Rows:
    """The entries of *block*, whole lines numbered from ``lineno + 1`` (the
    last one's line end added by :func:`_lines` if *unterminated*)."""
    valid = block.isascii() or _utf8_error(source, lineno, block) is None
    stride = form.width + 1
    if valid and b"#" not in block and _MARK not in block:
        marked = block.replace(b"\n", b" " + _MARK + b"\n")
        n = (len(marked) - len(block)) // 2  # the lines (each grew by two bytes)
        fields = marked.split()
        if len(fields) == stride * n and fields[form.width :: stride].count(_MARK) == n:
            return _Rows(fields, stride, [(0, lineno + 1)], None, None, lineno + n, b"_" in block)
    return _line_by_line(block, lineno, form, source, None if valid else unterminated)


def _line_by_line(
    block: bytes, lineno: int, form: _Format, source: str, unterminated: Optional[bool]
) -> _Rows:
    """:func:`_rows` for a block holding other lines than entries of the
    format's width (comments, blank lines, a line of another width), or a
    line that is not valid UTF-8, whose lines are then checked (*unterminated*
    not None: whether the last one's line end was added)."""
    width = form.width
    fields: List[bytes] = []
    starts: List[Tuple[int, int]] = []
    error: Optional[TrecFormatError] = None
    wide: Optional[Tuple[int, int]] = None
    follows = False  # the line before was an entry
    lines = block.split(b"\n")
    lines.pop()  # (what follows the last line end)
    for line, text in enumerate(lines, lineno + 1):
        if unterminated is not None and not text.isascii():
            end = b"" if unterminated and line == lineno + len(lines) else b"\n"
            error = _utf8_error(source, line, text + end)
            if error is not None:
                break
        got = text.split()
        if not got or got[0].startswith(b"#"):
            follows = False
            continue
        if len(got) != width and (form.exact or len(got) < width):
            message = f"{form.expected}, got {len(got)}" + _swapped_hint(got, form.other)
            error = TrecFormatError(message, source, line)
            break
        if wide is None and len(got) > _MANY_FIELDS:
            wide = (line, len(got))
        if not follows:
            starts.append((len(fields) // (width + 1), line))
            follows = True
        fields += got[:width]
        fields.append(_MARK)
    return _Rows(fields, width + 1, starts or [(0, lineno + 1)], error, wide, lineno + len(lines))


class _BadField(Exception):
    """A field a column's parser refuses (a file's, or a table's in
    ``_tabular.py``): its row (0-based), and why."""

    def __init__(self, row: int, message: str) -> None:
        super().__init__(message)
        self.row = row


def _parsed(
    rows: _Rows, c: int, parse: Callable[[List[bytes], bool], List[Any]], source: str
) -> Tuple[_Rows, List[Any]]:
    """Column *c* of *rows* parsed, and the rows: cut before a bad field,
    whose error comes after them unless the block's own is earlier."""
    try:
        return rows, parse(rows.column(c), rows.underscore)
    except _BadField as bad:
        rows = rows.cut(bad.row, TrecFormatError(str(bad), source, rows.line(bad.row)))
        return rows, parse(rows.column(c), rows.underscore)


#: The labels written most often, as their ints (in range by construction):
#: a look-up costs less than int().
_LABELS = {str(v).encode(): v for v in range(-1, 10)}


def _labels(texts: List[bytes], underscore: bool = True) -> List[int]:
    """Relevance labels (see :func:`_relevance`)."""
    try:
        return list(map(_LABELS.__getitem__, texts))
    except KeyError:
        pass
    values = []
    for row, text in enumerate(texts):  # one by one, and why one fails
        try:
            value = _relevance(text)
        except ValueError:
            raise _BadField(row, f"relevance must be an integer (got {text.decode()!r})") from None
        if not MIN_LABEL <= value <= MAX_LABEL:
            raise _BadField(row, f"relevance must be between {MIN_LABEL} and {MAX_LABEL} "
                                 f"(got {text.decode()!r})")
        values.append(value)
    return values


def _scores(texts: List[bytes], underscore: bool = True) -> List[float]:
    """Run scores, read as C's atof reads them (no ``_`` between digits,
    looked for if *underscore*); not NaN."""
    try:
        scores = list(map(float, texts))
    except ValueError:
        scores = []
    if len(scores) == len(texts) and not (underscore and b"_" in b"".join(texts)):
        total = sum(scores)  # NaN if a score is NaN (or inf - inf): then look closer
        if total == total or not any(map(math.isnan, scores)):
            return scores
    scores = []
    for row, text in enumerate(texts):  # the one that fails, and why
        try:
            score = _number(text, float)
        except ValueError:
            raise _BadField(row, f"score must be a number (got {text.decode()!r})") from None
        if score != score:
            raise _BadField(row, f"score must not be NaN (got {text.decode()!r})")
        scores.append(score)
    return scores


def _natural(texts: List[bytes], underscore: bool = True) -> List[bytes]:
    """Ranks (ndeval's): natural numbers, kept as written."""
    if b"".join(texts).isdigit():
        return texts
    for row, text in enumerate(texts):
        if not text.isdigit():
            raise _BadField(row, f"rank must be a natural number (got {text.decode()!r})")
    return texts  # pragma: no cover - an empty column is all digits


def _decoded(texts: List[bytes]) -> List[str]:
    """A column of valid UTF-8 fields (no white space in them) as ``str``, in one call."""
    return b"\n".join(texts).decode("utf-8").split("\n") if texts else []


def _runs(qids: List[bytes]) -> Iterator[Tuple[int, int]]:
    """``(start, end)`` of each run of equal query ids (compared in C)."""
    ends = list(accumulate(len(list(run)) for _, run in groupby(qids)))
    return zip([0, *ends[:-1]], ends)


# === Readers ===


class _Table:
    """``{qid: {key: value}}`` in file order, built a block at a time.

    A key given twice for a query raises :class:`DuplicateEntryError`
    naming both lines; with a *duplicates* list, the first repeat of each
    query is appended there instead and the first entry kept.  Each query
    keeps where its entries were read (:data:`Where`), what
    :func:`_first_line` reads: a query's entries are walked once, at its
    first repeat, so that a file of repeats is read in linear time.
    """

    def __init__(self, source: str, duplicates: Optional[List[DuplicateEntryError]] = None):
        self.source = source
        self.out: Dict[str, Dict[str, Any]] = {}
        self.duplicates = duplicates
        self.listed: Set[str] = set()  # queries with a repeat listed
        self.where: Dict[str, Where] = {}

    def add(self, rows: _Rows, qids: List[bytes], keys: List[str], values: List[Any]) -> None:
        """Add *rows*, given their columns, a run of one query's lines at a time."""
        for a, b in _runs(qids):
            qid = qids[a].decode()
            got = self.out.get(qid)
            new = dict(zip(keys[a:b], values[a:b]))
            self.where.setdefault(qid, []).append((len(got or ()), rows.starts, a))
            if len(new) != b - a or (got and not got.keys().isdisjoint(new)):
                self._repeat(rows, qid, a, keys[a:b], values[a:b])
            elif got is None:
                self.out[qid] = new
            else:
                got.update(new)

    def _repeat(self, rows: _Rows, qid: str, a: int, keys: List[str], values: List[Any]) -> None:
        # a run of lines repeating a key: entry by entry
        got = self.out.setdefault(qid, {})
        for row, key, value in zip(range(a, a + len(keys)), keys, values):
            if key not in got:
                got[key] = value
            elif qid not in self.listed:
                first = _first_line(got, self.where[qid], key)
                error = DuplicateEntryError(self.source, first, rows.line(row), qid, key)
                if self.duplicates is None:
                    raise error
                self.listed.add(qid)
                self.duplicates.append(error)


class _Reader:
    """The entry lines of a binary stream, a block of rows at a time: the
    one loop of every reader (blank blocks counted, not split; read errors
    and long lines named by line; a file without entries refused).  ``lines``
    counts the lines read, ``tag`` is a run's last tag.  With a *span*
    ``(start, end)``, only those bytes of a file are read, from *start* (the
    start of a line, not of the file), and lines are counted from there but
    in a warning or a repeated document, which :meth:`line` names."""

    def __init__(self, stream: Any, name: str, form: _Format, size: int = _BLOCK,
                 span: Optional[Tuple[int, int]] = None) -> None:
        self.stream = stream
        self.name = name
        self.form = form
        self.size = size
        self.span = span
        self.lines = 0
        self.tag: Optional[bytes] = None
        self.warned = False
        self.before: Optional[int] = None  # the lines before the span, once counted

    def __iter__(self) -> Iterator[_Rows]:
        entries = bom = False
        first = self.span is None or self.span[0] == 0
        left = -1
        if self.span is not None:
            self.stream.seek(self.span[0])
            left = self.span[1] - self.span[0]
        try:
            for block, unterminated in _lines(self.stream, self.size, left):
                if first and block.startswith(_BOM):  # (taken off the file's first line)
                    bom = True
                    block = block[len(_BOM) :]
                first = False
                if block.isspace():  # blank lines only (ASCII white space, as split())
                    self.lines += block.count(b"\n")
                    continue
                rows = _rows(block, self.lines, self.form, self.name, unterminated)
                entries = entries or rows.n > 0
                yield rows  # which the caller may cut before a bad field, and raise
                self.lines = rows.end
        except _READ_ERRORS + (UnicodeDecodeError,) as exc:  # (a text-mode file's)
            raise _read_error(self.name, self.lines, exc) from exc
        except _LineTooLong:
            raise TrecFormatError(f"line is longer than {MAX_LINE >> 20} MiB (a file without "
                                  "line ends, or with CR alone as the line end?)",
                                  self.name, self.lines + 1) from None
        if not entries:
            empty = self.lines == 0 and not bom
            what = "empty file" if empty else "only blank lines and comments"
            raise TrecFormatError(f"no {self.form.kind} entries ({what})", self.name)

    def scored(self, rows: _Rows) -> Tuple[_Rows, List[float]]:
        """A run's rows, cut before a bad score, and their scores; a line of
        many fields before the first bad line is warned about, once a file."""
        rows, scores = _parsed(rows, 4, _scores, self.name)
        bad = rows.end + 1 if rows.error is None else cast(int, rows.error.line)
        if rows.wide is not None and not self.warned and rows.wide[0] < bad:
            self.warned = True
            line, n = rows.wide
            _warn(f"{self.name}, line {self.line(line)}: {n} fields, of which only the first 6 "
                  "are read; two lines run together (a file without a final line end, "
                  "concatenated with another)?")
        if rows.n:
            self.tag = rows.fields[-2]
        return rows, scores

    def line(self, line: int) -> int:
        """A line counted from the start of what is read, counted from the
        start of the file (the lines before a span counted the first time)."""
        if self.span is None:
            return line
        if self.before is None:
            self.before = _count_lines(self.stream.fileno(), self.span[0])
        return self.before + line


def _count_lines(fd: int, end: int) -> int:
    """The line ends in the first *end* bytes of the file *fd*, read a MiB at
    a time without moving it."""
    step = 1 << 20
    return sum(os.pread(fd, min(step, end - at), at).count(b"\n") for at in range(0, end, step))


def _read_table(
    source: PathOrFile,
    form: _Format,
    add: Callable[[_Reader, _Table, _Rows], _Rows],
    duplicates: Optional[List[DuplicateEntryError]] = None,
) -> Tuple[Dict[str, Dict[str, Any]], _Reader]:
    """The table of a whole file, each block's rows given to *add*, and its
    reader; the error of the rows *add* took (cut before a bad field) raised."""
    with _open_lines(source) as (stream, name), paused_gc():
        reader = _Reader(stream, name, form)
        table = _Table(name, duplicates)
        for rows in reader:
            rows = add(reader, table, rows)
            if rows.error is not None:
                raise rows.error
    return table.out, reader


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

    def add(reader: _Reader, table: _Table, rows: _Rows) -> _Rows:
        rows, scores = reader.scored(rows)
        table.add(rows, rows.column(0), _decoded(rows.column(2)), scores)
        return rows

    out, reader = _read_table(source, _RUN, add)
    return out, cast(bytes, reader.tag).decode()


def read_ranked_list(source: PathOrFile) -> Dict[str, Dict[str, float]]:
    """Read a ranked list: ``qid docid`` per line, best document first.

    Returns ``{qid: {docid: score}}`` with score ``-rank`` (rank counted from
    1 within each query, in file order), so that :func:`trec_ranking` gives
    back the file order.  Exactly two columns are required.

    >>> import io
    >>> read_ranked_list(io.StringIO("q1 d7\\nq1 d3\\nq2 d3\\n"))
    {'q1': {'d7': -1.0, 'd3': -2.0}, 'q2': {'d3': -1.0}}
    """

    def add(reader: _Reader, table: _Table, rows: _Rows) -> _Rows:
        table.add(rows, rows.column(0), _decoded(rows.column(1)), [None] * rows.n)
        return rows

    out = _read_table(source, _RANKED_LIST, add)[0]
    return {qid: {d: -float(i) for i, d in enumerate(docs, 1)} for qid, docs in out.items()}


def _read_run_ranks(
    source: PathOrFile, *, traditional: bool = False
) -> Tuple[Dict[str, Dict[str, float]], str]:
    """A run as ndeval reads it, for ``irmetrics --ndeval``: ``({qid:
    {docid: score}}, tag of the first line)``, where a document's score is
    minus its rank, so that the ranking follows the rank column (a natural
    number given once per query), or, with *traditional*, its score."""
    first: List[bytes] = []

    def add(reader: _Reader, table: _Table, rows: _Rows) -> _Rows:
        rows, scores = _parsed(rows, 4, _scores, table.source)
        rows, ranks = _parsed(rows, 3, _natural, table.source)
        if not first and rows.n:
            first.append(rows.fields[5])
        table.add(rows, rows.column(0), _decoded(rows.column(2)),
                  scores[: rows.n] if traditional else _decoded(ranks))
        return rows

    out, reader = _read_table(source, _RUN, add)
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
                    raise TrecFormatError(f"{twice} for query {quoted(qid)}", reader.name)
                seen[rank] = text
            order = sorted(docs, key=lambda d: int(docs[d]))
            out[qid] = {d: -float(i) for i, d in enumerate(order, 1)}
    return out, first[0].decode()


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
    return _read_qrels_tables(source)[0]


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


#: Diversity judgments: {qid: {subtopic: {doc id: relevance}}}.
Subtopics = Dict[str, Dict[str, Dict[str, int]]]


def _read_qrels_tables(
    source: PathOrFile, duplicates: Optional[List[DuplicateEntryError]] = None
) -> Tuple[Dict[str, Dict[str, int]], Optional[Subtopics]]:
    """``({qid: {docid: relevance}}, subtopics)``: *subtopics* is None for a
    plain file, else ``{qid: {subtopic: {docid: relevance}}}`` for the queries
    judged under two subtopics or under one other than ``0``, whose documents
    get their highest relevance in the first table.  With a *duplicates*
    list, a repeated document is appended there instead of raised (its first
    judgment kept): evaluate() raises it only for a query it evaluates, as
    trec_eval looks only at those.  Only a query's first repeat is listed:
    one is enough to refuse or to warn about the query.

    The second column names subtopics only in a file where it takes two
    different values within one query (docs/data.md): a constant column
    (``0``, ``Q0``, an iteration number) is ignored, as trec_eval ignores
    it.  An entry whose second column differs from that of its query's first
    line is keyed ``"docid subtopic"`` (white space never occurs in a
    field), so that the one duplicate check covers (query, subtopic,
    document); the keys of the queries that had one are split afterwards.
    """
    topics = _Topics()

    def add(reader: _Reader, table: _Table, rows: _Rows) -> _Rows:
        rows, labels = _parsed(rows, 3, _labels, table.source)
        qids = rows.column(0)
        keys = topics.keys(qids, rows.column(1), _decoded(rows.column(2)), table.out, rows.line)
        table.add(rows, qids, keys, labels)
        return rows

    try:
        out = _read_table(source, _QRELS, add, duplicates)[0]
    except DuplicateEntryError as exc:
        raise topics.named(exc) from None
    if duplicates:
        duplicates[:] = map(topics.named, duplicates)
    return out, topics.split(out)


class _Topics:
    """The second column of a qrels file, as :func:`_read_qrels_tables` reads it."""

    def __init__(self) -> None:
        self.usual: Optional[bytes] = None  # the file's first second column, ...
        # ... each query's first where it differs or was read in a block of two values
        self.firsts: Dict[bytes, bytes] = {}
        self.mixed: Dict[str, int] = {}  # the queries with two values: the line of the second

    def keys(self, qids: List[bytes], topics: List[bytes], docids: List[str],
             known: Mapping[str, Any], line: Callable[[int], int]) -> List[str]:
        """The keys of a block's entries: the docid, or ``"docid subtopic"``."""
        if not qids:
            return docids
        usual = self.usual = topics[0] if self.usual is None else self.usual
        firsts = self.firsts
        if topics.count(usual) == len(topics) and firsts.keys().isdisjoint(qids):
            return docids  # (the usual file: one value throughout)
        keys = []
        for i, (q, t, d) in enumerate(zip(qids, topics, docids)):
            # a query read before (in a block of one value) began with the usual one
            first = firsts.setdefault(q, usual if q.decode() in known else t)
            if t == first:
                keys.append(d)
            else:
                self.mixed.setdefault(q.decode(), line(i))
                keys.append(f"{d} {t.decode()}")
        return keys

    def first(self, qid: str) -> str:
        return self.firsts.get(qid.encode(), cast(bytes, self.usual)).decode()

    def named(self, exc: DuplicateEntryError) -> DuplicateEntryError:
        """A repeat in a query read with subtopics, naming its subtopic: one
        whose line names another subtopic than its query's first, or that comes
        after a line that did (whatever the size of the blocks read)."""
        docid, sep, topic = exc.docid.partition(" ")
        at = exc.line or 0
        if not sep and self.mixed.get(exc.qid, at) >= at:
            return exc
        return DuplicateEntryError(exc.source, exc.first_line, exc.line, exc.qid, docid,
                                   topic or self.first(exc.qid))

    def split(self, out: Dict[str, Dict[str, int]]) -> Optional[Subtopics]:
        """The subtopics' table, *out* made ``{qid: {docid: highest relevance}}``."""
        if not self.mixed:
            return None
        table: Subtopics = {}
        for qid, docs in out.items():
            first = self.first(qid)
            if qid not in self.mixed:
                if first != "0":  # one subtopic, named as in the file
                    table[qid] = {first: docs}
                continue
            by_topic: Dict[str, Dict[str, int]] = {}
            best: Dict[str, int] = {}
            for key, value in docs.items():
                docid, _, topic = key.partition(" ")
                by_topic.setdefault(topic or first, {})[docid] = value
                if best.get(docid, value) <= value:
                    best[docid] = value
            table[qid] = by_topic
            out[qid] = best
        return table


def _swapped_hint(fields: List[bytes], other: str) -> str:
    """Words for a line of the wrong width that reads as a line of the *other*
    format: a run line (6 fields or more, a number in the fifth) given as
    qrels, or a qrels line (4 fields, an integer in the fourth) given as a run."""
    try:
        if other == "run" and len(fields) >= 6:
            _number(fields[4], float)
            return ("; this looks like a run (qid Q0 docid rank score tag): "
                    "were the qrels and the run given in the wrong order?")
        if other == "qrels" and len(fields) == 4:
            _relevance(fields[3])
            return ("; this looks like qrels (qid iteration docid relevance): "
                    "were the qrels and the run given in the wrong order?")
    except ValueError:
        pass
    return ""


#: The range of relevance labels (a C int's, as trec_eval sizes arrays by the
#: largest label): beyond it, gains overflow doubles and trec_eval's arrays
#: would not fit in memory, so a larger label is an error at reading time.
MIN_LABEL = -(2**31)
MAX_LABEL = 2**31 - 1


def _relevance(text: bytes) -> int:
    """An integer label; one written with a decimal point and zeros (``1.0``,
    as pandas writes integers stored as floats) is that integer, as C's atol
    reads it.  ``1.5`` or ``0,9`` (which atol would read as 1 and 0) are errors."""
    try:
        return int(_number(text, int))
    except ValueError:
        whole, point, zeros = text.partition(b".")
        if point and whole.lstrip(b"+-").isdigit() and zeros.strip(b"0") == b"":
            return int(_number(whole, int))
        raise


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

    def close(self) -> None:
        """Close the copy (the stream copied is the caller's, left open)."""
        self.spool.close()

    def replay(self) -> Any:
        """A reader giving everything read so far, then the rest of the input."""
        self.spool.seek(0)
        return _Chain([self.spool, self.raw], self.name)


class _Chain(io.RawIOBase):
    """Objects with ``read(n) -> bytes``, one after the other, as a raw
    stream (for a buffer in front of it)."""

    def __init__(self, parts: List[Any], name: Any) -> None:
        super().__init__()
        self._parts = parts
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


#: A run line with more fields than this is probably two lines run together
#: (a file without a final line end, concatenated with another): a warning.
_MANY_FIELDS = 10


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
    just yielded, and ``positions`` maps each to its index.  With *span*
    ``(start, end)``, a file is read from byte *start* (the start of a line)
    to *end* only (a worker process's part): ``lines`` counts from *start*,
    while a warning or a repeated document names the line of the file.

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
        chunk_size: int = _BLOCK,
        grouped: bool = True,
        keep_duplicates: bool = False,
        span: Optional[Tuple[int, int]] = None,
    ) -> None:
        self.name = _source_name(source)
        self.span = span
        # With keep_duplicates, a document given twice for a query is not an
        # error of the stream: the query is yielded with both entries, and
        # ``duplicates`` lists the errors the caller may raise (trec_eval
        # looks only at the documents it evaluates).
        self.keep_duplicates = keep_duplicates
        self.duplicates: List[DuplicateEntryError] = []
        self._reader: Optional[_Reader] = None
        self.members: Set[bytes] = set()
        self._docs: List[bytes] = []
        self.chunk_size = chunk_size
        self.grouped = grouped
        self._source: Any = source
        self._start: Optional[int] = None
        self._tee: Optional[_Tee] = None
        # what the stream opened itself and closes: a copy (a _Tee), a
        # non-regular file given by path
        self._owned: List[Any] = []
        # a source that cannot be read twice is copied as it is read, for
        # regrouped(): a FIFO or a device given by path, or a pipe, standard input
        self._copy = False
        if isinstance(source, _PATHS):
            self._copy = not os.path.isfile(source)  # (a missing file: its error when opened)
        else:
            seekable = getattr(source, "seekable", None)
            if seekable is not None and seekable():
                self._start = source.tell()
            else:
                self._copy = grouped and callable(getattr(source, "read", None))

    @property
    def positions(self) -> Dict[bytes, int]:
        """``{docid: index}`` of the query just yielded."""
        return dict(zip(self._docs, range(len(self._docs))))

    def regrouped(self) -> RunStream:
        """The run again, from its start, each query's lines gathered from
        wherever they are (the whole run is held in memory)."""
        source = self._source
        if self._tee is not None:
            source = self._tee.replay()
        elif self._start is not None:
            source.seek(self._start)
        again = RunStream(
            source, chunk_size=self.chunk_size, grouped=False,
            keep_duplicates=self.keep_duplicates, span=self.span,
        )
        again.name = self.name
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

    @property
    def lines(self) -> int:
        """The lines read so far."""
        return 0 if self._reader is None else self._reader.lines

    @property
    def tag(self) -> Optional[str]:
        """The run's name: the tag of the last entry line read."""
        tag = None if self._reader is None else self._reader.tag
        return None if tag is None else tag.decode()

    def __iter__(self) -> Iterator[Tuple[str, List[bytes], List[float]]]:
        self._reader = None
        if self._copy and self._tee is None:  # opened and copied when first read
            raw = self._source
            if isinstance(raw, _PATHS):
                raw = _open_path(raw, self.name)  # closed by close()
                self._owned.append(raw)
            elif isinstance(raw.read(0), str):
                raw = _TextReader(raw)  # copied as its UTF-8, what the readers read
            self._tee = _Tee(raw)
            self._owned.append(self._tee)
            self._source = self._tee
        try:
            with _open_lines(self._source) as (stream, _):
                self._reader = _Reader(stream, self.name, _RUN, self.chunk_size, self.span)
                yield from self._groups(self._reader)
        except RunNotGrouped:
            raise
        except BaseException:
            self.close()
            raise
        self.close()

    def _groups(self, reader: _Reader) -> Iterator[Tuple[str, List[bytes], List[float]]]:
        # Each query is gathered as a _Group; grouped, it is yielded when
        # the next one begins, else all are yielded at the end.
        held: Dict[bytes, _Group] = {}  # ungrouped: every query, in file order
        done: Set[bytes] = set()
        cur: Optional[_Group] = None
        for rows in reader:
            rows, scores = reader.scored(rows)
            qids, docids = rows.column(0), rows.column(2)
            for a, b in _runs(qids):
                q = qids[a]
                if not self.grouped:
                    held.setdefault(q, _Group(q)).add(rows, a, docids[a:b], scores[a:b])
                    continue
                if cur is None or cur.qid != q:
                    if cur is not None:
                        yield self._finish(cur)
                        done.add(cur.qid)
                    if q in done:
                        raise RunNotGrouped(q.decode(), rows.line(a))
                    cur = _Group(q)
                cur.add(rows, a, docids[a:b], scores[a:b])
            if rows.error is not None:
                if cur is not None and self.grouped:
                    self._finish(cur)  # a repeated document first
                raise rows.error
        for group in [cur] if cur is not None else held.values():
            yield self._finish(group)

    def _finish(self, group: _Group) -> Tuple[str, List[bytes], List[float]]:
        qid, docs = group.qid.decode(), group.docids
        # the duplicate check; the set is kept for the caller, who can look
        # judged documents up in it without hashing every docid again
        self.members = set(docs)
        self._docs = docs
        if self.duplicates:
            self.duplicates = []
        if len(self.members) != len(docs):
            line_of = cast(_Reader, self._reader).line
            seen: Dict[bytes, int] = {}
            for i, d in enumerate(docs):
                if d not in seen:
                    seen[d] = i
                    continue
                first = line_of(_line_of(group.where, seen[d]))
                line = line_of(_line_of(group.where, i))
                error = DuplicateEntryError(self.name, first, line, qid, d.decode("utf-8"))
                if not self.keep_duplicates:
                    raise error
                self.duplicates.append(error)
        return qid, docs, group.scores


class _Group:
    """One query's lines as :class:`RunStream` gathers them: its docids and
    scores, and where they were read (:data:`Where`)."""

    __slots__ = ("qid", "docids", "scores", "where")

    def __init__(self, qid: bytes) -> None:
        self.qid = qid
        self.docids: List[bytes] = []
        self.scores: List[float] = []
        self.where: Where = []

    def add(self, rows: _Rows, a: int, docids: List[bytes], scores: List[float]) -> None:
        self.where.append((len(self.docids), rows.starts, a))
        if self.docids:
            self.docids += docids
            self.scores += scores
        else:  # (the usual case, a query within one block: no copy)
            self.docids, self.scores = docids, scores


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


def _check_name(name: Any) -> str:
    """A run's name, which is written as one field (by :func:`write_run`)."""
    if not isinstance(name, str) or name.split() != [name]:
        raise InvalidArgumentError(
            f"'name' must be a non-empty str without whitespace (got {kind_of(name)} {name!r})"
        )
    return str.__str__(name)


@contextmanager
def _open_writer(dest: PathOrFile) -> Iterator[Any]:
    """Yield a callable that writes one str chunk to *dest*."""
    if isinstance(dest, _PATHS):
        import gzip

        opener = gzip.open if os.fsdecode(os.fspath(dest)).endswith(".gz") else open
        with opener(dest, "wt", encoding="utf-8", newline="\n") as f:
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
    yield codecs.getwriter("utf-8")(cast(Any, dest)).write if binary else dest.write


def write_qrels(qrels: Mapping[str, Mapping[str, int]], dest: PathOrFile) -> None:
    """Write *qrels* as ``qid 0 docid relevance`` lines, in mapping order.

    *dest* is a path (a name ending in ``.gz`` is written gzip-compressed) or
    an open file object, text or binary, which is left open.

    >>> import sys
    >>> write_qrels({"q1": {"d1": 1, "d2": 0}}, sys.stdout)
    q1 0 d1 1
    q1 0 d2 0
    """
    _write_queries(dest, ((qid, {"0": docs}) for qid, docs in qrels.items()), _judgment_lines)


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
    _write_queries(dest, qrels.items(), _judgment_lines)


def _write_queries(
    dest: PathOrFile, queries: Iterable[Tuple[str, Any]], lines: Callable[[str, Any], Iterator[str]]
) -> None:
    """Each query's *lines* (given its id and its data), a query at a time,
    its id checked to read back as written."""
    with _open_writer(dest) as write:
        for qid, data in queries:
            _check_id(qid, "query id")
            write("".join(lines(qid, data)))


def _judgment_lines(qid: str, topics: Mapping[str, Mapping[str, int]]) -> Iterator[str]:
    """``qid subtopic docid relevance`` lines, every id and label checked to
    read back as written."""
    for subtopic, docs in topics.items():
        _check_id(subtopic, "subtopic", qid)
        for docid, rel in docs.items():
            _check_id(docid, "document id", qid)
            if type(rel) is not int or not MIN_LABEL <= rel <= MAX_LABEL:
                raise InvalidArgumentError(
                    f"cannot write relevance {rel!r} (query {qid!r}, document "
                    f"{docid!r}): relevance must be an int between {MIN_LABEL} "
                    f"and {MAX_LABEL}"
                )
            yield f"{qid} {subtopic} {docid} {rel}\n"


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
    _check_name(name)

    def lines(qid: str, docs: Mapping[str, float]) -> Iterator[str]:
        for rank, docid in enumerate(trec_ranking(docs), 1):
            _check_id(docid, "document id", qid)
            score = float(docs[docid])
            if math.isnan(score):
                raise InvalidArgumentError(
                    f"cannot write a NaN score (query {qid!r}, document {docid!r})"
                )
            yield f"{qid} Q0 {docid} {rank} {score!r} {name}\n"

    _write_queries(dest, run.items(), lines)
