"""Streaming runs: RunStream against read_run, the scored fast path against
query_data, and evaluate() on files against evaluate() on an in-memory Run.

Every streaming route has a plain twin in the library (read_run, query_data
over rank_documents, Run.from_trec); these tests hold the two to the same
result, on hypothesis data built to hit chunk boundaries, and check a few
values derived by hand (in comments) so that the twins cannot agree on a
wrong answer.
"""

import gzip
import io
import os
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, assume, example, given, settings
from hypothesis import strategies as st
from strategies_runs import qrels_and_runs

from irmetrics import Run, evaluate
from irmetrics.errors import DuplicateEntryError, IrmetricsError, IrmetricsWarning, TrecFormatError
from irmetrics.evaluate import query_data, query_data_from_scores
from irmetrics.trec import RunNotGrouped, RunStream, rank_documents, read_run

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(__file__).parent / "data" / "trec_eval"

#: Tiny chunks put lines, multi-byte characters and query groups across chunk
#: boundaries; the default is one chunk for everything here.  (Sizes 1 and 2
#: split the byte order mark: see test_bom_split_across_tiny_chunks.)
CHUNKS = (3, 7, 64, 1000, 1 << 18)


# === Helpers ===


class NonSeekable:
    """A pipe-like binary stream: read() only, not seekable, no name."""

    def __init__(self, data):
        self._inner = io.BytesIO(data)

    def read(self, n=-1):
        return self._inner.read(n)

    def seekable(self):
        return False


def stream_groups(source, chunk_size=1 << 18):
    """Iterate a RunStream: ([(qid, [docid str], [repr(score)])], tag, lines)."""
    stream = RunStream(source, chunk_size=chunk_size)
    groups = []
    for qid, docids, scores in stream:
        assert all(type(d) is bytes for d in docids)
        assert all(type(s) is float for s in scores)
        assert len(docids) == len(scores)
        groups.append((qid, [d.decode("utf-8") for d in docids], [repr(s) for s in scores]))
    return groups, stream.tag, stream.lines


def read_run_groups(source):
    """read_run's result in stream_groups' shape (repr keeps -0.0 apart from 0.0)."""
    run, tag = read_run(source)
    return [(q, list(docs), [repr(s) for s in docs.values()]) for q, docs in run.items()], tag


def outcome(fn, *args, **kwargs):
    """("ok", result) or (exception class, message, line)."""
    try:
        return ("ok", fn(*args, **kwargs))
    except (TrecFormatError, RunNotGrouped) as exc:
        return (type(exc), str(exc), getattr(exc, "line", None))


def stream_outcome(source, chunk_size):
    res = outcome(stream_groups, source, chunk_size)
    if res[0] == "ok":  # drop the line count: read_run does not report it
        groups, tag, _ = res[1]
        return ("ok", (groups, tag))
    return res


def n_lines(data):
    """Lines as a line reader counts them: a last line without newline counts."""
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


# === 1. RunStream yields what read_run reads ===

# Ids without whitespace in either sense (str.split and bytes.split), without
# surrogates; query ids never start with "#" (that is a comment).
_ID_CHARS = st.characters(
    blacklist_categories=("Cs", "Zs", "Zl", "Zp", "Cc"),
    blacklist_characters="\ufeff",
)
QIDS = st.one_of(
    st.sampled_from(("q1", "q2", "301", "Q0", "é", "\u4e2d\u6587", "run", "q1x")),
    st.text(_ID_CHARS, min_size=1, max_size=4).filter(lambda s: not s.startswith("#")),
)
DOCIDS = st.one_of(
    st.sampled_from(("d1", "d2", "d10", "D1", "#d", "é", "\U0001f600", "Q0", "run")),
    st.text(_ID_CHARS, min_size=1, max_size=6),
)
SCORE_TEXTS = st.one_of(
    st.sampled_from((
        "0", "1", "-2", "+3", "0.5", "-1.25", ".5", "5.", "1e3", "-2.5E-2", "1E+2",
        "-0", "-0.0", "inf", "-inf", "Infinity", "+inf", "007",
    )),
    st.floats(allow_nan=False).map(repr),
    st.integers(-10**6, 10**6).map(str),
)
SEPS = st.sampled_from((" ", " ", " ", "\t", "  ", " \t ", "\t\t"))
COMMENTS = st.one_of(
    st.sampled_from(("#", "# a comment", "#\tq1 Q0 d1 1 1.0 run", "## x", "#!")),
    st.text(_ID_CHARS, max_size=12).map(lambda s: "# " + s),
)


@st.composite
def run_texts(draw, *, max_queries=6):
    """(text, expected groups): a grouped run written in many styles.

    The expected groups are built from the entries as they are generated,
    not by reading the text back.
    """
    qids = draw(st.lists(QIDS, min_size=1, max_size=max_queries, unique=True))
    tag = draw(st.sampled_from(("run", "tag\u00e9", "r1")))
    other_tag = draw(st.sampled_from((tag, tag, "other")))
    crlf = draw(st.booleans())
    eol = "\r\n" if crlf else "\n"
    lines = []
    expected = []
    first_entry = True
    last_tag = tag
    for qid in qids:
        docids = draw(st.lists(DOCIDS, min_size=1, max_size=12, unique=True))
        scores = []
        for docid in docids:
            while draw(st.integers(0, 9)) == 9:  # now and then a blank or comment
                lines.append(draw(st.one_of(st.sampled_from(("", " ", "\t", " \t ")), COMMENTS)))
            sep = draw(SEPS)
            score = draw(SCORE_TEXTS)
            q0 = draw(st.sampled_from(("Q0", "Q0", "Q0", "0")))
            line_tag = tag if first_entry else draw(st.sampled_from((tag, tag, tag, other_tag)))
            first_entry = False
            last_tag = line_tag  # the run's name is the last entry line's tag (trec_eval's runid)
            fields = [qid, q0, docid, str(draw(st.integers(0, 999))), score, line_tag]
            if draw(st.integers(0, 7)) == 7:  # extra columns
                fields += draw(st.lists(st.sampled_from(("x", "1", "#", "Q0")), min_size=1,
                                        max_size=3))
            lead = draw(st.sampled_from(("", "", "", " ", "\t")))
            trail = draw(st.sampled_from(("", "", "", " ", "\t")))
            lines.append(lead + sep.join(fields) + trail)
            scores.append(repr(float(score)))
        expected.append((qid, docids, scores))
    text = eol.join(lines)
    if draw(st.booleans()):
        text += eol
    return text, (expected, last_tag)


@given(run_texts(), st.sampled_from(CHUNKS), st.booleans())
@settings(suppress_health_check=[HealthCheck.too_slow])
def test_stream_equals_read_run_binary(case, chunk_size, bom):
    text, (expected, tag) = case
    data = (b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8")
    groups, got_tag, lines = stream_groups(io.BytesIO(data), chunk_size)
    assert read_run_groups(io.BytesIO(data)) == (expected, tag)
    assert (groups, got_tag) == (expected, tag)
    assert lines == n_lines(data)


@given(run_texts(max_queries=4), st.booleans())
@settings(max_examples=50)
def test_stream_equals_read_run_text_mode(case, bom):
    text, (expected, tag) = case
    text = ("\ufeff" if bom else "") + text
    groups, got_tag, lines = stream_groups(io.StringIO(text))
    assert read_run_groups(io.StringIO(text)) == (expected, tag)
    assert (groups, got_tag) == (expected, tag)
    assert lines == n_lines(text.encode("utf-8"))


@given(run_texts(max_queries=4), st.sampled_from(CHUNKS), st.booleans())
@settings(max_examples=40)
def test_stream_equals_read_run_paths_and_gzip(case, chunk_size, compress):
    text, (expected, tag) = case
    data = text.encode("utf-8")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "run.txt"
        path.write_bytes(gzip.compress(data) if compress else data)
        for source in (path, str(path)):
            groups, got_tag, lines = stream_groups(source, chunk_size)
            assert (groups, got_tag) == (expected, tag)
            assert lines == n_lines(data)
        assert read_run_groups(path) == (expected, tag)
        with open(path, "rb") as f:
            assert stream_groups(f, chunk_size)[:2] == (expected, tag)


def test_stream_by_hand():
    # Three queries; q2 crosses every 7-byte chunk; a comment, a blank line,
    # CRLF, tabs, an extra column, '-0' and 'inf' scores.
    data = (
        b"q1 Q0 d1 1 2.5 bm25\r\n"
        b"q1\tQ0\td2\t2\t-0\tbm25\textra\n"
        b"# q1 Q0 d9 9 9 bm25\n"
        b"\n"
        b"q2 Q0 \xc3\xa9 1 inf bm25\n"
        b"q2 Q0 d1 2 1e-3 bm25\n"
        b"q3  Q0  d7  1  -4  bm25"
    )
    expected = [
        ("q1", ["d1", "d2"], ["2.5", "-0.0"]),
        ("q2", ["é", "d1"], ["inf", "0.001"]),
        ("q3", ["d7"], ["-4.0"]),
    ]
    for chunk in (1 << 18, 7, 3):
        assert stream_groups(io.BytesIO(data), chunk) == (expected, "bm25", 7)
    # members and positions describe the query just yielded
    stream = RunStream(io.BytesIO(data))
    seen = [(qid, stream.members, stream.positions) for qid, _, _ in stream]
    assert seen == [("q1", {b"d1", b"d2"}, {b"d1": 0, b"d2": 1}),
                    ("q2", {"é".encode(), b"d1"}, {"é".encode(): 0, b"d1": 1}),
                    ("q3", {b"d7"}, {b"d7": 0})]


def test_stream_can_be_iterated_again_from_a_path(tmp_path):
    path = tmp_path / "run"
    path.write_bytes(b"q1 Q0 d1 1 1 t\nq2 Q0 d1 1 1 t\n")
    stream = RunStream(path, chunk_size=7)
    first = [(q, d, s) for q, d, s in stream]
    assert (stream.tag, stream.lines) == ("t", 2)
    assert [(q, d, s) for q, d, s in stream] == first == [
        ("q1", [b"d1"], [1.0]), ("q2", [b"d1"], [1.0])]
    assert (stream.tag, stream.lines) == ("t", 2)


# --- Spots where the fast path (six fields a line) and read_run must agree ---


@pytest.mark.parametrize("chunk_size", CHUNKS)
@pytest.mark.parametrize("data", [
    # A commented-out entry ("#" glued to the query id): six fields, Q0 and
    # the tag in place.  read_run skips it as a comment.
    b"q1 Q0 d1 1 1 t\n#q1 Q0 d2 2 1 t\nq1 Q0 d3 3 1 t\n",
    b"q1 Q0 d1 1 1 t\n#q1 Q0 d2 2 1 t\n",
    b"q1 Q0 d1 1 1 t\n#q1 Q0 d2 2 1 t\nq2 Q0 d3 3 1 t\n",
], ids=["inside-query", "at-end", "between-queries"])
def test_commented_out_entry_is_skipped(data, chunk_size):
    expected = read_run_groups(io.BytesIO(data))
    assert "#q1" not in [q for q, _, _ in expected[0]]
    assert stream_outcome(io.BytesIO(data), chunk_size) == ("ok", expected)


@pytest.mark.parametrize("char", ["\u00a0", "\u2003", "\u3000", "\x1c", "\x1f", "\x85"])
def test_only_ascii_whitespace_separates_fields(char):
    # trec_eval splits fields on ASCII white space (C's isspace); any other
    # character, a no-break space included, belongs to the field.
    # By hand: "q1 Q0 d<c>x 1 5 t" has 6 fields, docid 'd<c>x', score 5.0, tag 't'.
    data = f"q1 Q0 d{char}x 1 5 t\n".encode()
    expected = ([("q1", [f"d{char}x"], ["5.0"])], "t")
    assert read_run_groups(io.BytesIO(data)) == expected
    for chunk in CHUNKS:
        assert stream_outcome(io.BytesIO(data), chunk) == ("ok", expected)


@pytest.mark.parametrize("score", ["\u0661\u0662", "\uff11.\uff15", "\u0967", "1_0", "1_000.5"])
def test_scores_are_read_as_trec_eval_reads_them(score):
    # C's atof reads ASCII digits only, and stops at "_" (Python's float
    # would read "1_0" as 10): such a score is an error, not another number.
    data = f"q1 Q0 d1 1 {score} t\n".encode()
    with pytest.raises(TrecFormatError, match=r"line 1: score must be a number"):
        read_run(io.BytesIO(data))
    for chunk in CHUNKS:
        with pytest.raises(TrecFormatError, match=r"line 1: score must be a number"):
            list(RunStream(io.BytesIO(data), chunk_size=chunk))


@pytest.mark.parametrize("chunk_size", [1, 2])
def test_bom_split_across_tiny_chunks(chunk_size):
    data = b"\xef\xbb\xbfq1 Q0 d1 1 1 t\n"
    assert stream_groups(io.BytesIO(data), chunk_size) == ([("q1", ["d1"], ["1.0"])], "t", 1)


# === 2. Grouping ===


@given(run_texts(), st.sampled_from(CHUNKS))
@settings(max_examples=50)
def test_grouped_run_never_raises_and_keeps_file_order(case, chunk_size):
    text, (expected, _) = case
    groups, _, _ = stream_groups(io.BytesIO(text.encode("utf-8")), chunk_size)
    assert [g[0] for g in groups] == [e[0] for e in expected]


@given(st.lists(st.tuples(st.sampled_from(["q1", "q2", "q10"]),
                          st.one_of(st.integers(1, 4), st.integers(5, 40))),
                min_size=1, max_size=12),
       st.integers(16, 400))
@example([("q1", 3), ("q2", 1), ("q10", 1), ("q2", 1), ("q1", 1)], 400)  # q2 q10 q2 in 3
@example([("q1", 30), ("q2", 30), ("q10", 5), ("q2", 1)], 600)  # groups across blocks
@settings(max_examples=300)
def test_queries_of_any_sizes_across_block_boundaries(runs, chunk_size):
    # Runs of lines of one query, of any lengths, read in blocks that cut
    # them anywhere: each block's first query may go on from the last block.  The
    # expectation is built line by line here: consecutive lines of one
    # query are one group, and a query coming back after another one is
    # RunNotGrouped at the line where it comes back.
    lines, owners = [], []
    for q, k in runs:
        for _ in range(k):
            lines.append(f"{q} Q0 d{len(lines)} {len(lines) + 1} {len(lines)}.5 t\n")
            owners.append(q)
    expected, again = [], None
    for lineno, q in enumerate(owners, 1):
        if expected and expected[-1][0] == q:
            expected[-1][1].append(lineno)
        elif any(e[0] == q for e in expected):
            again = (q, lineno)
            break
        else:
            expected.append((q, [lineno]))
    stream = RunStream(io.BytesIO("".join(lines).encode()), chunk_size=chunk_size)
    got = []
    try:
        for qid, docids, scores in stream:
            got.append((qid, [int(d[1:]) + 1 for d in docids]))
            # each score stays with its document: line i's is i.5, rising
            assert len(scores) == len(docids)
            assert all(a < b for a, b in zip(scores, scores[1:]))
    except RunNotGrouped as exc:
        assert again == (exc.qid, exc.line)
    else:
        assert again is None
    assert got == expected  # every query before the one that came back, whole


UNGROUPED = (
    b"q1 Q0 d1 1 3 t\n"      # 1
    b"q1 Q0 d2 2 2 t\n"      # 2
    b"q2 Q0 d1 1 1 t\n"      # 3
    b"\n"                    # 4
    b"# back to q1\n"        # 5
    b"q1 Q0 d3 3 1 t\n"      # 6: q1 again, after q2
    b"q3 Q0 d1 1 1 t\n"      # 7
)


def test_ungrouped_run_raises_for_every_chunk_size():
    for chunk_size in range(1, len(UNGROUPED) + 2):
        stream = RunStream(io.BytesIO(UNGROUPED), chunk_size=chunk_size)
        seen = []
        with pytest.raises(RunNotGrouped) as info:
            for qid, docids, scores in stream:
                seen.append((qid, docids, scores))
        assert (info.value.qid, info.value.line) == ("q1", 6), chunk_size
        assert str(info.value) == "query 'q1' appears again on line 6 after other queries"
        # Only whole queries come out before the exception.
        assert seen == [("q1", [b"d1", b"d2"], [3.0, 2.0]), ("q2", [b"d1"], [1.0])], chunk_size
        assert stream.tag == "t"


def test_ungrouped_run_from_a_text_file_object():
    with pytest.raises(RunNotGrouped) as info:
        stream_groups(io.StringIO(UNGROUPED.decode()))
    assert (info.value.qid, info.value.line) == ("q1", 6)


def test_tag_and_lines():
    stream = RunStream(io.BytesIO(b"# c\n\nq1 Q0 d1 1 1 first\nq1 Q0 d2 2 1 second\n\n"))
    assert (stream.tag, stream.lines) == (None, 0)
    assert [q for q, _, _ in stream] == ["q1"]
    assert (stream.tag, stream.lines) == ("second", 5)  # tag of the last entry line


# === 3. Errors: the same as read_run's ===

COLS = "expected at least 6 columns (qid Q0 docid rank score tag), got {}"
SWAPPED_QRELS = ("; this looks like qrels (qid iteration docid relevance): were the qrels and "
                 "the run given in the wrong order?")
FILLER = b"".join(b"q1 Q0 f%d 1 1 t\n" % i for i in range(40))  # 40 lines, ~600 bytes

ERROR_CASES = {
    "short-line": (b"q1 Q0 d1 1 1.0 t\nq1 Q0 d2 2 1.0\n", 2, COLS.format(5)),
    # four fields with an integer last: a qrels line (TREC DL's have Q0 too)
    "short-first": (b"q1 Q0 d1 1\n", 1, COLS.format(4) + SWAPPED_QRELS),
    "short-score": (b"q1 Q0 d1 1.5\n", 1, COLS.format(4)),
    "long-then-short": (b"q1 Q0 d1 1 2.0 t X\nQ0 d2 2 1.0 t\n", 2, COLS.format(5)),
    "short-then-long": (b"q1 Q0 d1 1 2.0\nt q1 Q0 d2 1.0 t\n", 1, COLS.format(5)),
    "short-in-slow-block": (b"q1 Q0 d1 1 1 t\n# c\nq1 Q0 d2\n", 3, COLS.format(3)),
    "word-score": (b"q1 Q0 d1 1 1 t\nq1 Q0 d2 2 high t\n", 2,
                   "score must be a number (got 'high')"),
    "comma-score": (b"q1 Q0 d1 1 1,5 t\n", 1, "score must be a number (got '1,5')"),
    "nan": (b"q1 Q0 d1 1 nan t\n", 1, "score must not be NaN (got 'nan')"),
    "NaN-later": (b"q1 Q0 d1 1 1 t\nq2 Q0 d1 1 -NaN t\n", 2,
                  "score must not be NaN (got '-NaN')"),
    "bad-utf8": (b"q1 Q0 d\xff 1 1 t\n", 1,
                 "line is not valid UTF-8 (invalid start byte at byte 8)"),
    "bad-utf8-comment": (b"q1 Q0 d1 1 1 t\n# caf\xe9\n", 2,
                         "line is not valid UTF-8 (invalid continuation byte at byte 6)"),
    "truncated-utf8-at-end": (b"q1 Q0 d1 1 1 t\nq1 Q0 d\xc3", 2,
                              "line is not valid UTF-8 (unexpected end of data at byte 8)"),
    "truncated-utf8-mid-file": (b"q1 Q0 d\xc3\nq1 Q0 d2 1 1 t\n", 1,
                                "line is not valid UTF-8 (invalid continuation byte at byte 8)"),
    "short-then-bad-utf8": (b"q1 Q0 d1 1 1 t\nq1 Q0 d1\nq1 Q0 d\xff 1 1 t\n", 2,
                            COLS.format(3)),
    "bad-utf8-then-short": (b"q1 Q0 d1 1 1 t\nq1 Q0 d\xff\nq1 Q0\n", 2,
                            "line is not valid UTF-8 (invalid start byte at byte 8)"),
    "dup": (b"q1 Q0 d1 1 1 t\nq1 Q0 d1 2 1 t\n", 2,
            "document 'd1' appears twice for query 'q1' (lines 1 and 2)"),
    "dup-far-apart": (b"q1 Q0 d1 1 1 t\n" + FILLER + b"q1 Q0 d1 2 1 t\n", 42,
                      "document 'd1' appears twice for query 'q1' (lines 1 and 42)"),
    "dup-across-blank-and-comment": (
        b"q1 Q0 d1 1 1 t\nq1 Q0 d2 2 1 t\n\n# c\nq1 Q0 d3 3 1 t\n  \nq1 Q0 d2 4 1 t\n", 7,
        "document 'd2' appears twice for query 'q1' (lines 2 and 7)"),
    "dup-after-filler-and-comments": (
        b"q2 Q0 x 1 1 t\n" + FILLER + b"#c\n\n" + FILLER.replace(b" f", b" g") + b"q1 Q0 f39 1 1 t\n",
        84, "document 'f39' appears twice for query 'q1' (lines 41 and 84)"),
    "dup-unicode": ("q\u00e9 Q0 \u00e9 1 1 t\nq\u00e9 Q0 \u00e9 2 1 t\n".encode(), 2,
                    "document 'é' appears twice for query 'qé' (lines 1 and 2)"),
    "dup-then-bad-score": (b"q1 Q0 d1 1 1 t\nq1 Q0 d1 2 1 t\nq1 Q0 d2 3 x t\n", 2,
                           "document 'd1' appears twice for query 'q1' (lines 1 and 2)"),
    # five fields, each space-separated: five spaces a line like a good one
    "leading-space-five-numbers": (b"q1 Q0 d1 1 2.5 9\n 1 2 3 4 5\nq1 Q0 d3 3 0.5 9\n", 2,
                                   COLS.format(5)),
    "trailing-space-five-fields": (b"q1 Q0 d1 1 2.5 9\nq1 Q0 d2 2 1 \nq1 Q0 d3 3 0.5 9\n", 2,
                                   COLS.format(5)),
    "double-space-five-fields": (b"q1 Q0 d1 1 2.5 9\nq1 Q0  2 1 7\n", 2, COLS.format(5)),
    "empty": (b"", None, "no run entries (empty file)"),
    "only-comments": (b"# a\n\n#b c d e f g\n  \n", None,
                      "no run entries (only blank lines and comments)"),
    "only-comment-no-newline": (b"# a", None, "no run entries (only blank lines and comments)"),
    "only-bom": (b"\xef\xbb\xbf", None, "no run entries (only blank lines and comments)"),
}


def _expected_message(source, line, reason):
    return f"{source}: {reason}" if line is None else f"{source}, line {line}: {reason}"


@pytest.mark.parametrize("name", sorted(ERROR_CASES))
def test_errors_match_read_run(name, tmp_path):
    data, line, reason = ERROR_CASES[name]
    kind = DuplicateEntryError if "dup" in name else TrecFormatError
    path = tmp_path / "bad.run"
    path.write_bytes(data)
    # Hand-derived: class, line and message of read_run's error.
    for source, shown in ((io.BytesIO(data), "<file>"), (path, str(path))):
        with pytest.raises(TrecFormatError) as info:
            read_run(source)
        assert type(info.value) is kind
        assert (info.value.line, str(info.value)) == (line, _expected_message(shown, line, reason))
    # The stream raises the same, whatever the chunking and the source.
    want = (kind, _expected_message(str(path), line, reason), line)
    want_anon = (kind, _expected_message("<file>", line, reason), line)
    for chunk in CHUNKS:
        assert stream_outcome(path, chunk) == want, chunk
        assert stream_outcome(io.BytesIO(data), chunk) == want_anon, chunk
        assert stream_outcome(NonSeekable(data), chunk) == want_anon, chunk
    gz = tmp_path / "bad.run.gz"
    gz.write_bytes(gzip.compress(data))
    assert stream_outcome(gz, 7) == (kind, _expected_message(str(gz), line, reason), line)


@given(run_texts(max_queries=4), st.sampled_from(CHUNKS), st.data())
@settings(max_examples=60)
def test_duplicate_anywhere_matches_read_run(case, chunk_size, data):
    # Copy one entry line of a generated run to a later place in its query:
    # both readers must name the same two lines.
    text, _ = case
    lines = text.encode("utf-8").split(b"\n")
    entries = [i for i, ln in enumerate(lines) if ln.split() and not ln.split()[0].startswith(b"#")]
    i = data.draw(st.sampled_from(entries))
    qid = lines[i].split()[0]
    same = [j for j in entries if j > i and lines[j].split()[0] == qid]
    last = same[-1] if same else i
    at = data.draw(st.integers(i + 1, last + 1))
    lines.insert(at, lines[i].rstrip(b"\r"))
    blob = b"\n".join(lines)
    want = outcome(read_run, io.BytesIO(blob))
    assert want[0] is DuplicateEntryError
    assert f"(lines {i + 1} and {at + 1})" in want[1]
    assert stream_outcome(io.BytesIO(blob), chunk_size) == want


# === 4. query_data_from_scores equals query_data over rank_documents ===

QD_IDS = ("d1", "d2", "d10", "D1", "é", "e", "\u4e2d", "a", "b", "c", "z", "zz")
QD_SCORES = (0.0, -0.0, 1.0, 1.0, 2.0, -1.0, float("inf"), float("-inf"), 0.5)


@st.composite
def scored_queries(draw):
    docids = draw(st.lists(st.sampled_from(QD_IDS), max_size=len(QD_IDS), unique=True))
    scores = draw(st.lists(st.sampled_from(QD_SCORES), min_size=len(docids),
                           max_size=len(docids)))
    pool = st.sampled_from(QD_IDS + ("u1", "u2"))  # some judged ids never retrieved
    # up to every id: more than 8 judgments take the pass over the ranking
    judgments = draw(st.dictionaries(pool, st.integers(-2, 3), max_size=len(QD_IDS) + 2))
    depth = draw(st.one_of(st.none(), st.integers(1, len(QD_IDS) + 3)))
    return judgments, docids, scores, depth, draw(st.booleans()), draw(st.booleans())


@given(scored_queries())
def test_query_data_from_scores_equals_query_data(case):
    judgments, docids, scores, depth, judged_only, as_bytes = case
    if as_bytes:
        judgments = {d.encode("utf-8"): v for d, v in judgments.items()}
        docids = [d.encode("utf-8") for d in docids]
    slow = query_data(judgments, rank_documents(docids, scores), depth=depth,
                      judged_only=judged_only)
    fast = query_data_from_scores(judgments, docids, scores, depth=depth,
                                  judged_only=judged_only)
    assert list(fast.labels) == list(slow.labels)
    assert fast.levels == slow.levels
    # the same with the judged documents looked up by position (RunStream's)
    by_member = query_data_from_scores(judgments, docids, scores, depth=depth,
                                       judged_only=judged_only, members=set(docids))
    assert list(by_member.labels) == list(slow.labels)
    assert by_member.levels == slow.levels
    # str judgments and the docids as bytes, as a run file gives them (encode)
    if not as_bytes:
        encoded = [d.encode("utf-8") for d in docids]
        for members in (None, set(encoded)):
            mixed = query_data_from_scores(judgments, encoded, scores, depth=depth,
                                           judged_only=judged_only, members=members,
                                           encode=True)
            assert list(mixed.labels) == list(slow.labels)
            assert mixed.levels == slow.levels


def test_query_data_from_scores_by_hand():
    # Order: d2 (0.9), then the 0.5 tie broken by id descending: d3, d1; then d4 (0.1).
    # Labels: d2 unjudged -> None, d3 -> 0, d1 -> 2, d4 -> -1 (pooled, unjudged).
    judgments = {"d1": 2, "d3": 0, "d4": -3, "d9": 1}
    docids, scores = ["d1", "d2", "d3", "d4"], [0.5, 0.9, 0.5, 0.1]
    data = query_data_from_scores(judgments, docids, scores)
    assert data.labels == [None, 0, 2, -1]
    assert data.levels == {2: 1, 0: 1, 1: 1}
    assert query_data_from_scores(judgments, docids, scores, depth=2).labels == [None, 0]
    # judged_only keeps judged documents only: unjudged (None) and pooled-unjudged (-1) go.
    assert query_data_from_scores(judgments, docids, scores, judged_only=True).labels == [0, 2]
    assert query_data_from_scores(judgments, docids, scores, depth=2,
                                  judged_only=True).labels == [0]


# === 4b. Scores written with a fixed number of places ===


def _format_score(value, places):
    return f"{value:.{places}f}"


@pytest.mark.slow
@given(qr=qrels_and_runs(), places=st.sampled_from([0, 1, 3]), data=st.data())
@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
def test_evaluate_file_of_fixed_decimals_equals_in_memory(qr, places, data):
    # Scores written with a fixed number of places (as most retrieval
    # systems write them) must give what the floats of the same text give,
    # ties (equal texts) included.
    qrels, run = qr
    lines = [f"{q} Q0 {d} {i} {_format_score(s, places)} tag\n"
             for q, docs in run.items() for i, (d, s) in enumerate(docs.items(), 1)]
    assume(lines)
    as_floats = {}
    for line in lines:
        q, _, d, _, score, _ = line.split()
        as_floats.setdefault(q, {})[d] = float(score)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "run.txt"
        path.write_text("".join(lines), encoding="utf-8")
        expected = result_of(qrels, Run.from_dict(as_floats, name="tag"))
        assert result_of(qrels, path) == expected
        assert result_of(qrels, path, workers=2) == expected


# === 5. evaluate() on a file equals evaluate() on the Run read in memory ===

MEASURES = ["map", "P_5", "ndcg_cut_10", "recip_rank", "bpref", "infAP", "num_ret",
            "num_rel_ret", "iprec_at_recall_0.10", "Rprec", "ERR@10", "Judged@5"]


def result_of(qrels, run, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IrmetricsWarning)
        try:
            r = evaluate(qrels, run, MEASURES, **options)
        except ValueError as exc:
            return (type(exc), str(exc))
    return (r.per_query, r.aggregate, r.skipped, r.missing, r.run_name)


def _binary_file(path):
    with open(path, "rb") as f:
        yield f


def _gzip_path(path):
    gz = path.with_name(path.name + ".gz")
    gz.write_bytes(gzip.compress(path.read_bytes()))
    yield gz


#: Each way of handing evaluate() the run file at a path (generators: file
#: objects are consumed, and the file must stay open while evaluated).
ROUTES = {
    "path": lambda path: iter([path]),
    "str-path": lambda path: iter([str(path)]),
    "binary-file": _binary_file,
    "gzip-path": _gzip_path,
    "non-seekable": lambda path: iter([NonSeekable(path.read_bytes())]),
}


def check_routes(qrels, path, routes=tuple(ROUTES), **options):
    expected = result_of(qrels, Run.from_trec(path), **options)
    for name in routes:
        for source in ROUTES[name](path):
            assert result_of(qrels, source, **options) == expected, name
    return expected


OPTIONS = st.fixed_dictionaries({
    "complete": st.booleans(),
    "depth": st.one_of(st.none(), st.integers(1, 12)),
    "judged_only": st.booleans(),
    "relevance_level": st.integers(1, 3),
})


@pytest.mark.parametrize("route", sorted(ROUTES))
@given(qr=qrels_and_runs(), grouped=st.booleans(), options=OPTIONS, data=st.data())
# No shrinking: each step writes files and evaluates twice, and a failure
# here took ~40 s to shrink; test_evaluate_by_hand_ungrouped is the small case.
@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow],
          phases=[Phase.explicit, Phase.reuse, Phase.generate])
def test_evaluate_file_equals_in_memory(route, qr, grouped, options, data):
    qrels, run = qr
    lines = [f"{q} Q0 {d} {i} {s!r} tag\n"
             for q, docs in run.items() for i, (d, s) in enumerate(docs.items(), 1)]
    assume(lines)
    if not grouped:
        lines = data.draw(st.permutations(lines))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "run.txt"
        path.write_text("".join(lines), encoding="utf-8")
        check_routes(qrels, path, (route,), **options)


def test_evaluate_by_hand_ungrouped(tmp_path):
    # q1: d1 (rel) 0.9, d2 (non-rel) 0.8, d3 (rel) 0.7, lines interleaved with q2.
    # AP q1 = (1/1 + 2/3) / 2 = 0.8333...; q2: d5 (rel) first: AP 1.
    qrels = {"q1": {"d1": 1, "d2": 0, "d3": 1}, "q2": {"d5": 1}}
    path = tmp_path / "run"
    path.write_text("q1 Q0 d1 1 0.9 r\nq2 Q0 d5 1 3 r\nq1 Q0 d2 2 0.8 r\nq1 Q0 d3 3 0.7 r\n")
    with pytest.raises(RunNotGrouped):
        stream_groups(path)
    per_query, aggregate, skipped, missing, name = check_routes(qrels, path)
    assert per_query["q1"]["map"] == pytest.approx((1 + 2 / 3) / 2)
    assert per_query["q2"]["map"] == 1.0
    assert aggregate["num_ret"] == 4 and aggregate["num_rel_ret"] == 3
    assert (skipped, missing, name) == ((), (), "r")


@pytest.mark.parametrize("options", [
    {}, {"complete": True}, {"complete": True, "depth": 100}, {"judged_only": True},
    {"relevance_level": 2}, {"depth": 5},
], ids=["default", "c", "c-M100", "J", "l2", "M5"])
@pytest.mark.parametrize("run_file,grouped", [("results.test", True), ("results.trunc", False)])
def test_evaluate_trec_eval_files(tmp_path, run_file, grouped, options):
    path = tmp_path / run_file
    path.write_bytes((DATA / run_file).read_bytes())
    if grouped:
        assert len(stream_groups(path)[0]) == len(Run.from_trec(path))
    else:
        with pytest.raises(RunNotGrouped):
            stream_groups(path)
    expected = check_routes(DATA / "qrels.test", path, **options)
    assert isinstance(expected[0], dict) and expected[0]


# === 6. The command line reads '-' like the file ===


def cli(*argv, input=None):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run(
        [sys.executable, "-m", "irmetrics", *[str(a) for a in argv]],
        input=input, capture_output=True, cwd=str(ROOT), env=env, timeout=120,
    )
    return proc.returncode, proc.stdout, proc.stderr


@pytest.mark.slow
@pytest.mark.parametrize("run_file", ["results.test", "results.trunc"])
def test_cli_stdin_equals_path(run_file):
    args = ["-q", "-c", "-m", "map", "-m", "P.5,10", "-m", "ndcg_cut.10", "-m", "num_ret",
            "--format", "trec"]
    data = (DATA / run_file).read_bytes()
    from_path = cli(DATA / "qrels.test", DATA / run_file, *args)
    from_stdin = cli(DATA / "qrels.test", "-", *args, input=data)
    assert from_path[0] == 0, from_path[2]
    assert from_stdin == from_path
    assert b"map                   \tall\t" in from_stdin[1]


@pytest.mark.parametrize("space", ["\t", "\x0b", "\x0c", "\r"])
def test_a_field_of_other_white_space_is_no_field(space):
    # "q1 Q0 <ws> 1 5 t" has five spaces, like a six-field line, but white
    # space is no field: five fields, an error, as read_run says.
    data = f"q1 Q0 d1 1 5 t\nq1 Q0 {space} 1 5 t\n".encode()
    with pytest.raises(TrecFormatError) as expected:
        read_run(io.BytesIO(data))
    assert "got 5" in str(expected.value)
    for chunk in CHUNKS:
        with pytest.raises(TrecFormatError) as got:
            list(RunStream(io.BytesIO(data), chunk_size=chunk))
        assert str(got.value) == str(expected.value)


def test_blank_lines_are_skipped_in_bulk():
    # 100,000 blank lines between two entries: they were split and looked at
    # one by one (a gzip of 1 GB of blank lines took minutes); now a block of
    # blank lines is counted whole, so no line of them reaches the line
    # reader, and the lines after them keep their numbers (line 100,002).
    from unittest import mock

    import irmetrics.trec as trec

    calls = [0]
    plain = trec._line_by_line

    def counted(block, *args):
        calls[0] += block.count(b"\n")
        return plain(block, *args)

    data = b"q1 Q0 d1 1 1 t\n" + b"\n" * 50_000 + b" \t\r\n" * 50_000 + b"q1 Q0 d2 2 x t\n"
    for chunk_size in (1 << 16, 1000):
        calls[0] = 0
        with mock.patch.object(trec, "_line_by_line", counted), \
                pytest.raises(TrecFormatError) as info:
            list(RunStream(io.BytesIO(data), chunk_size=chunk_size))
        assert info.value.line == 100_002
        # at most the lines of the two blocks holding an entry
        assert calls[0] <= 2 * chunk_size, chunk_size


def test_a_text_mode_file_that_is_not_valid_text_is_a_format_error(tmp_path):
    # The text layer fails to decode before the reader sees a line: the
    # library's error naming the file, as read_run gives, not UnicodeDecodeError.
    path = tmp_path / "bad.run"
    path.write_bytes(b"q1 Q0 d1 1 1 t\nq1 Q0 d\xff 2 1 t\n")
    with open(path, encoding="utf-8") as f, pytest.raises(TrecFormatError) as info:
        list(RunStream(f))
    assert str(info.value).startswith(f"{path}: file is not valid text after line ")
    with open(path, encoding="utf-8") as f, pytest.raises(TrecFormatError):
        evaluate({"q1": {"d1": 1}}, f, ["map"])


# === RunStream on a long last line and an ungrouped run ===


def test_a_long_but_legal_last_line_is_read():
    # Guards the joining of a line cut into many small chunks: joined once.
    line = "q1 Q0 " + "d" * 100_000 + " 1 0.5 r"
    stream = RunStream(io.BytesIO(line.encode()), chunk_size=7)
    assert [(q, len(d[0])) for q, d, _ in stream] == [("q1", 100_000)]


def test_a_stream_of_an_ungrouped_run_raises_a_library_error():
    # Guards RunNotGrouped being an IrmetricsError.  Found by the readers'
    # fuzz test (test_trec.py): iterating RunStream directly over a run whose
    # query comes back after another raised RunNotGrouped, a bare Exception.
    data = b"0 q1 q1 q1 0 q1\nq1 q1 q1 q1 0 q1\n0 q1 q1 q1 0 q1"
    with pytest.raises(IrmetricsError, match="query '0' appears again on line 3"):
        list(RunStream(io.BytesIO(data), chunk_size=5))


# === A byte range of a file (span=) =============================================


def test_a_span_reads_its_bytes_and_names_the_files_lines(tmp_path):
    head = b"q1 Q0 d1 1 2 t\nq1 Q0 d2 2 1 t\n"
    body = b"\xef\xbb\xbfq2 Q0 d1 1 2 t\nq4 Q0 d1 1 2 t\nq4 Q0 d1 2 1 t\n"  # a BOM, a repeat
    path = tmp_path / "run"
    path.write_bytes(head + body + b"q3 Q0 d1 1 2 t\n")
    stream = RunStream(str(path), span=(len(head), len(head) + len(body)),
                       keep_duplicates=True)
    groups = [(qid, docids) for qid, docids, _ in stream]
    # the BOM kept (not the file's start), q3 not read
    assert groups == [("\ufeffq2", [b"d1"]), ("q4", [b"d1", b"d1"])]
    assert stream.lines == 3  # counted from the span's start
    assert [(e.first_line, e.line) for e in stream.duplicates] == [(4, 5)]  # the file's
