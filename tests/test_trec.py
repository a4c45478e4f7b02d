"""Tests for irmetrics.trec: reading and writing TREC qrels, runs and ranked lists."""

import gzip
import io
import math
import os
from functools import partial
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irmetrics import evaluate
from irmetrics.cli import _run
from irmetrics.errors import (
    DuplicateEntryError,
    InvalidArgumentError,
    IrmetricsError,
    IrmetricsWarning,
    TrecFormatError,
)
from irmetrics.trec import (
    MAX_LINE,
    RunStream,
    _read_qrels_tables,
    read_qrels,
    read_ranked_list,
    read_run,
    trec_ranking,
    write_qrels,
    write_run,
)

DATA = Path(__file__).parent / "data"
CONFORMANCE = Path(__file__).resolve().parents[2] / "shared" / "conformance" / "trec_eval"

QRELS_TEXT = "q1 0 d1 1\nq1 0 d2 0\nq2 0 d1 2\nq2 0 d3 -1\n"
QRELS = {"q1": {"d1": 1, "d2": 0}, "q2": {"d1": 2, "d3": -1}}
RUN_TEXT = "q1 Q0 d1 1 2.5 tagA\nq1 Q0 d2 2 1.25 tagA\nq2 Q0 d9 1 -3 tagA\n"
RUN = {"q1": {"d1": 2.5, "d2": 1.25}, "q2": {"d9": -3.0}}


def write_bytes(tmp_path, data, name="file.txt"):
    path = tmp_path / name
    path.write_bytes(data)
    return path


class NoPeekNoSeek(io.RawIOBase):
    """A binary stream like a pipe: readable, but neither seekable nor peekable."""

    def __init__(self, data):
        self._inner = io.BytesIO(data)

    def readable(self):
        return True

    def readinto(self, buffer):
        chunk = self._inner.read(min(len(buffer), 7))
        buffer[: len(chunk)] = chunk
        return len(chunk)


# === Sources: paths, file objects, gzip ======================================


def test_read_from_text_and_binary_file_objects():
    assert read_qrels(io.StringIO(QRELS_TEXT)) == QRELS
    assert read_qrels(io.BytesIO(QRELS_TEXT.encode())) == QRELS
    assert read_run(io.StringIO(RUN_TEXT)) == (RUN, "tagA")
    assert read_run(io.BytesIO(RUN_TEXT.encode())) == (RUN, "tagA")


def test_read_from_str_path_and_pathlike(tmp_path):
    path = write_bytes(tmp_path, QRELS_TEXT.encode())
    assert read_qrels(str(path)) == QRELS
    assert read_qrels(path) == QRELS


def test_read_from_files_opened_by_open(tmp_path):
    path = write_bytes(tmp_path, RUN_TEXT.encode())
    with open(path, "rb") as f:
        assert read_run(f) == (RUN, "tagA")
        assert not f.closed  # the caller's file is left open
    with open(path, encoding="utf-8") as f:
        assert read_run(f) == (RUN, "tagA")


@pytest.mark.parametrize("name", ["qrels.gz", "qrels.txt", "qrels"])
def test_gzip_is_detected_by_magic_bytes_not_the_name(tmp_path, name):
    path = write_bytes(tmp_path, gzip.compress(QRELS_TEXT.encode()), name)
    assert read_qrels(path) == QRELS
    with open(path, "rb") as f:
        assert read_qrels(f) == QRELS
    assert read_qrels(io.BytesIO(path.read_bytes())) == QRELS


def test_gzip_file_written_by_the_gzip_module(tmp_path):
    path = tmp_path / "run.gz"
    with gzip.open(path, "wt", encoding="utf-8") as f:
        f.write(RUN_TEXT)
    assert read_run(path) == (RUN, "tagA")
    with gzip.open(path, "rb") as f:  # an already-decompressing file object
        assert read_run(f) == (RUN, "tagA")


@pytest.mark.parametrize("compress", [False, True])
def test_stream_that_can_neither_peek_nor_seek(compress):
    data = QRELS_TEXT.encode()
    if compress:
        data = gzip.compress(data)
    assert read_qrels(NoPeekNoSeek(data)) == QRELS


def test_source_name_in_errors(tmp_path):
    bad = b"q1 0 d1\n"
    path = write_bytes(tmp_path, bad, "bad.qrels")
    with pytest.raises(TrecFormatError) as info:
        read_qrels(path)
    assert info.value.source == str(path)
    with open(path, "rb") as f, pytest.raises(TrecFormatError) as info:
        read_qrels(f)
    assert info.value.source == str(path)
    with pytest.raises(TrecFormatError) as info:
        read_qrels(io.BytesIO(bad))
    assert info.value.source == "<file>"
    named = io.BytesIO(bad)
    named.name = "<stdin>"
    with pytest.raises(TrecFormatError) as info:
        read_qrels(named)
    assert str(info.value).startswith("<stdin>, line 1: ")


def test_not_a_path_or_file():
    with pytest.raises(InvalidArgumentError, match="expected a path or an open file object"):
        read_qrels(42)


# === Format: whitespace, BOM, CRLF, comments ==================================


def test_tabs_runs_of_spaces_crlf_and_bom():
    text = "\ufeffq1\t0\t d1   1\r\nq1 0 d2 0\r\n\r\n  q2 0 d1 2\r\nq2 0 d3 -1"
    assert read_qrels(io.BytesIO(text.encode())) == QRELS
    assert read_qrels(io.StringIO(text)) == QRELS


def test_comments_and_blank_lines_are_skipped():
    text = "# a comment\n\n   \nq1 0 d1 1\n   # indented comment q1 0 d1 5\n#q1 0 d2 3\nq1 0 d2 0\n"
    text += "q2 0 d1 2\n\nq2 0 d3 -1\n"
    assert read_qrels(io.StringIO(text)) == QRELS


def test_run_tag_comes_from_the_last_entry_line():
    # trec_eval 9.0.8 keeps the run_id of the last content line (get_trec_results.c)
    text = "# header line with many fields a b c d\nq1 Q0 d1 1 1.0 first\nq1 Q0 d2 2 0.5 second\n# end x\n"
    run, tag = read_run(io.StringIO(text))
    assert tag == "second"
    assert run == {"q1": {"d1": 1.0, "d2": 0.5}}


def test_run_extra_columns_and_rank_are_ignored():
    text = "q1 Q0 d1 not-a-rank 1.0 tag extra junk here\nq1 Q0 d2 1 3 tag\n"
    assert read_run(io.StringIO(text)) == ({"q1": {"d1": 1.0, "d2": 3.0}}, "tag")


def test_results_trunc_with_junk_after_the_sixth_column():
    run, tag = read_run(DATA / "results.trunc")
    assert tag == "STANDARD"
    assert list(run) == ["301", "303"]
    assert sum(map(len, run.values())) == 584
    assert run["301"]["FBIS3-27619"] == 2.138276  # "  2.138276\tSTANDARD more junk at"
    assert run["303"]["FT934-4015"] == 1.875063


def test_queries_keep_file_order_and_noncontiguous_blocks_merge():
    text = "q2 0 d1 1\nq1 0 d1 1\nq2 0 d2 0\n"
    assert read_qrels(io.StringIO(text)) == {"q2": {"d1": 1, "d2": 0}, "q1": {"d1": 1}}
    assert list(read_qrels(io.StringIO(text))) == ["q2", "q1"]


def test_negative_relevance_and_infinite_scores_are_kept():
    assert read_qrels(io.StringIO("q 0 d -1\n")) == {"q": {"d": -1}}
    run, _ = read_run(io.StringIO("q Q0 a 1 inf t\nq Q0 b 2 -Infinity t\n"))
    assert run == {"q": {"a": math.inf, "b": -math.inf}}


def test_non_ascii_ids():
    text = "q\u00e9 0 d\u2603 1\n"
    assert read_qrels(io.BytesIO(text.encode("utf-8"))) == {"q\u00e9": {"d\u2603": 1}}


# === Ranked lists =============================================================


def test_ranked_list_scores_are_minus_rank_per_query():
    text = "q1 d7\nq1 d3\nq2 d3\nq1 d1\n"
    got = read_ranked_list(io.StringIO(text))
    assert got == {"q1": {"d7": -1.0, "d3": -2.0, "d1": -3.0}, "q2": {"d3": -1.0}}
    assert trec_ranking(got["q1"]) == ["d7", "d3", "d1"]


@pytest.mark.parametrize("line, n", [("q1 d1 3.5", 3), ("q1", 1), ("q1 Q0 d1 1 2.0 t", 6)])
def test_ranked_list_wrong_column_count(line, n):
    with pytest.raises(TrecFormatError) as info:
        read_ranked_list(io.StringIO(f"q1 d0\n{line}\n"))
    assert str(info.value) == (
        f"<file>, line 2: expected 2 columns (qid docid) in a ranked list, got {n}"
    )
    assert info.value.line == 2


# === Malformed input ==========================================================


def check_error(exc_info, source, line, reason):
    err = exc_info.value
    assert isinstance(err, IrmetricsError) and isinstance(err, ValueError)
    assert (err.source, err.line, err.reason) == (source, line, reason)
    where = source if line is None else f"{source}, line {line}"
    assert str(err) == f"{where}: {reason}"


@pytest.mark.parametrize("line, n", [("q1 0 d2", 3), ("q1 0 d2 1 extra", 5), ("q1", 1)])
def test_qrels_wrong_column_count(tmp_path, line, n):
    path = write_bytes(tmp_path, f"q1 0 d1 1\n\n{line}\n".encode())
    with pytest.raises(TrecFormatError) as info:
        read_qrels(path)
    check_error(info, str(path), 3, f"expected 4 columns (qid iteration docid relevance), got {n}")


@pytest.mark.parametrize("n", [1, 3, 5])
def test_run_too_few_columns(tmp_path, n):
    fields = "q1 Q0 d2 2 1.0 tag".split()[:n]
    path = write_bytes(tmp_path, f"q1 Q0 d1 1 2.0 tag\n{' '.join(fields)}\n".encode())
    with pytest.raises(TrecFormatError) as info:
        read_run(path)
    check_error(
        info, str(path), 2, f"expected at least 6 columns (qid Q0 docid rank score tag), got {n}"
    )


# "1.0" is read as 1 (pandas writes integer labels so); see "Relevance labels" below
@pytest.mark.parametrize("value", ["1.5", "x", "1.01", "", "0x1"])
def test_qrels_relevance_must_be_an_integer(tmp_path, value):
    path = write_bytes(tmp_path, f"q1 0 d1 1\nq1 0 d2 {value} \n".encode())
    if value == "":
        expected = "expected 4 columns (qid iteration docid relevance), got 3"
    else:
        expected = f"relevance must be an integer (got {value!r})"
    with pytest.raises(TrecFormatError) as info:
        read_qrels(path)
    check_error(info, str(path), 2, expected)


@pytest.mark.parametrize("value", ["high", "1,5", "--1"])
def test_run_score_must_be_a_number(tmp_path, value):
    path = write_bytes(tmp_path, f"q1 Q0 d1 1 {value} t\n".encode())
    with pytest.raises(TrecFormatError) as info:
        read_run(path)
    check_error(info, str(path), 1, f"score must be a number (got {value!r})")


@pytest.mark.parametrize("value", ["nan", "NaN", "-nan"])
def test_run_score_must_not_be_nan(tmp_path, value):
    path = write_bytes(tmp_path, f"q1 Q0 d0 1 1 t\nq1 Q0 d1 1 {value} t\n".encode())
    with pytest.raises(TrecFormatError) as info:
        read_run(path)
    check_error(info, str(path), 2, f"score must not be NaN (got {value!r})")


def test_duplicate_document_names_both_lines(tmp_path):
    text = "q1 0 d1 1\nq1 0 d2 1\nq2 0 d1 1\n# comment\nq1 0 d3 0\n\nq1 0 d2 0\n"
    path = write_bytes(tmp_path, text.encode())
    with pytest.raises(DuplicateEntryError) as info:
        read_qrels(path)
    err = info.value
    assert (err.first_line, err.line, err.qid, err.docid) == (2, 7, "q1", "d2")
    assert str(err) == (
        f"{path}, line 7: document 'd2' appears twice for query 'q1' (lines 2 and 7)"
    )


@pytest.mark.parametrize(
    "reader, lines",
    [
        (read_qrels, ["q 0 a 1", "q 0 b 1", "r 0 a 1", "q 0 c 1", "q 0 b 0"]),
        (
            read_run,
            ["q Q0 a 1 1 t", "q Q0 b 2 1 t", "r Q0 a 1 1 t", "q Q0 c 3 1 t", "q Q0 b 4 1 t"],
        ),
        (read_ranked_list, ["q a", "q b", "r a", "q c", "q b"]),
    ],
)
def test_duplicates_in_every_reader(reader, lines):
    with pytest.raises(DuplicateEntryError) as info:
        reader(io.StringIO("\n".join(lines)))
    assert (info.value.first_line, info.value.line) == (2, 5)


def test_the_same_doc_in_two_queries_is_not_a_duplicate():
    assert read_qrels(io.StringIO("q1 0 d 1\nq2 0 d 1\n")) == {"q1": {"d": 1}, "q2": {"d": 1}}


def test_undecodable_bytes_name_the_line(tmp_path):
    path = write_bytes(tmp_path, b"q1 0 d1 1\nq1 0 d\xff2 1\n")
    with pytest.raises(TrecFormatError) as info:
        read_qrels(path)
    assert (info.value.source, info.value.line) == (str(path), 2)
    assert "not valid UTF-8" in info.value.reason


def test_latin1_text_file_object_that_fails_to_decode(tmp_path):
    path = write_bytes(tmp_path, b"q1 0 d1 1\nq1 0 d\xe92 1\n")
    with open(path, encoding="utf-8") as f, pytest.raises(TrecFormatError) as info:
        read_qrels(f)
    assert info.value.source == str(path)
    assert "not valid text" in info.value.reason


@pytest.mark.parametrize(
    "reader, kind",
    [(read_qrels, "qrels"), (read_run, "run"), (read_ranked_list, "ranked list")],
)
def test_empty_file(tmp_path, reader, kind):
    path = write_bytes(tmp_path, b"")
    with pytest.raises(TrecFormatError) as info:
        reader(path)
    check_error(info, str(path), None, f"no {kind} entries (empty file)")
    path = write_bytes(tmp_path, b"\xef\xbb\xbf# only a comment\n\n")
    with pytest.raises(TrecFormatError) as info:
        reader(path)
    check_error(info, str(path), None, f"no {kind} entries (only blank lines and comments)")


def test_empty_gzip_file(tmp_path):
    path = write_bytes(tmp_path, gzip.compress(b""), "empty.gz")
    with pytest.raises(TrecFormatError, match=r"no qrels entries \(empty file\)"):
        read_qrels(path)


def test_missing_file(tmp_path):
    path = tmp_path / "nope.txt"
    with pytest.raises(TrecFormatError) as info:
        read_qrels(path)
    assert info.value.source == str(path) and info.value.line is None
    assert str(info.value).startswith(f"{path}: cannot open file (")
    assert isinstance(info.value.__cause__, FileNotFoundError)


def test_directory(tmp_path):
    with pytest.raises(TrecFormatError) as info:
        read_run(tmp_path)
    assert info.value.source == str(tmp_path) and info.value.line is None
    assert isinstance(info.value.__cause__, OSError)


def test_corrupt_and_truncated_gzip(tmp_path):
    data = gzip.compress(QRELS_TEXT.encode() * 50)
    path = write_bytes(tmp_path, data[: len(data) // 2], "cut.gz")
    with pytest.raises(TrecFormatError) as info:
        read_qrels(path)
    assert info.value.source == str(path) and info.value.line is None
    assert "cannot read file" in info.value.reason
    path = write_bytes(tmp_path, b"\x1f\x8b" + b"garbage" * 10, "junk.gz")
    with pytest.raises(TrecFormatError):
        read_qrels(path)


# === Ordering =================================================================


def test_trec_ranking_breaks_ties_by_doc_id_descending():
    scores = {"d1": 0.5, "d10": 0.5, "d2": 0.5, "a": 0.9, "z": -1.0}
    assert trec_ranking(scores) == ["a", "d2", "d10", "d1", "z"]


def test_trec_ranking_byte_order_for_non_ascii():
    # UTF-8 byte order equals code point order: "\u00e9" (c3 a9) > "z" (7a).
    assert trec_ranking({"z": 1.0, "\u00e9": 1.0, "Z": 1.0}) == ["\u00e9", "z", "Z"]


def test_trec_ranking_infinities_and_zero_signs():
    scores = {"a": -math.inf, "b": math.inf, "c": 0.0, "d": -0.0}
    assert trec_ranking(scores) == ["b", "d", "c", "a"]


# === Writers ==================================================================


def test_write_then_read_qrels_text_binary_path_and_gz(tmp_path):
    text = io.StringIO()
    write_qrels(QRELS, text)
    assert text.getvalue() == "q1 0 d1 1\nq1 0 d2 0\nq2 0 d1 2\nq2 0 d3 -1\n"
    binary = io.BytesIO()
    write_qrels(QRELS, binary)
    assert binary.getvalue() == text.getvalue().encode()
    for name in ["q.txt", "q.gz"]:
        write_qrels(QRELS, tmp_path / name)
        assert read_qrels(tmp_path / name) == QRELS
    assert (tmp_path / "q.gz").read_bytes()[:2] == b"\x1f\x8b"
    assert (tmp_path / "q.txt").read_bytes() == text.getvalue().encode()


def test_write_run_ranks_in_trec_order_and_round_trips(tmp_path):
    run = {"q1": {"a": 1.0, "b": 3.0, "c": 1.0}, "q0": {"x": 0.1 + 0.2}}
    out = io.StringIO()
    write_run(run, out, name="mine")
    assert out.getvalue() == (
        "q1 Q0 b 1 3.0 mine\nq1 Q0 c 2 1.0 mine\nq1 Q0 a 3 1.0 mine\n"
        "q0 Q0 x 1 0.30000000000000004 mine\n"
    )
    write_run(run, tmp_path / "r.gz", name="mine")
    assert read_run(tmp_path / "r.gz") == (run, "mine")


def test_write_to_a_gzip_file_object(tmp_path):
    path = tmp_path / "r"
    with gzip.open(path, "wb") as f:
        write_run(RUN, f, name="t")
    assert read_run(path) == (RUN, "t")


@pytest.mark.parametrize(
    "data",
    [{"q 1": {"d": 1}}, {"q": {"d\t1": 1}}, {"": {"d": 1}}, {"q": {"": 1}}, {"#q": {"d": 1}}],
)
def test_ids_that_cannot_be_written(data):
    with pytest.raises(InvalidArgumentError, match="cannot write"):
        write_qrels(data, io.StringIO())
    with pytest.raises(InvalidArgumentError, match="cannot write"):
        write_run(data, io.StringIO())


def test_writer_rejects_bad_values_and_names():
    with pytest.raises(InvalidArgumentError, match="relevance must be an int"):
        write_qrels({"q": {"d": 1.5}}, io.StringIO())
    with pytest.raises(InvalidArgumentError, match="NaN"):
        write_run({"q": {"d": math.nan}}, io.StringIO())
    for name in ["", "two words", 3]:
        with pytest.raises(InvalidArgumentError, match="'name' must be"):
            write_run({"q": {"d": 1.0}}, io.StringIO(), name=name)


def test_writers_do_not_mutate_their_input():
    run = {"q": {"b": 1.0, "a": 2.0}}
    write_run(run, io.StringIO())
    assert run == {"q": {"b": 1.0, "a": 2.0}} and list(run["q"]) == ["b", "a"]


# === Conformance files ========================================================


@pytest.mark.skipif(not CONFORMANCE.is_dir(), reason="shared/conformance not present")
def test_trec_eval_test_files():
    qrels = read_qrels(CONFORMANCE / "qrels.test")
    assert list(qrels) == ["301", "302", "303"]
    assert sum(map(len, qrels.values())) == 3681
    assert sum(rel > 0 for docs in qrels.values() for rel in docs.values()) == 561
    graded = read_qrels(CONFORMANCE / "qrels.rel_level")
    assert {rel for docs in graded.values() for rel in docs.values()} == {-1, 0, 1, 2, 3, 4}
    run, tag = read_run(CONFORMANCE / "results.test")
    assert tag == "STANDARD" and sum(map(len, run.values())) == 1500


# === Properties ===============================================================

# Ids that survive a trip through a TREC file: one non-empty field, and a
# query id must not look like a comment.
ids = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=8).filter(
    lambda s: s.split() == [s]
)
qids = ids.filter(lambda s: not s.startswith("#"))
scores = st.floats(allow_nan=False)
rels = st.integers(min_value=-1, max_value=2**31 - 1)  # the labels a qrels file may hold


@given(st.dictionaries(qids, st.dictionaries(ids, rels, min_size=1), min_size=1, max_size=5))
def test_qrels_round_trip(qrels):
    out = io.BytesIO()
    write_qrels(qrels, out)
    got = read_qrels(io.BytesIO(out.getvalue()))
    assert got == qrels
    assert list(got) == list(qrels)
    assert [list(docs) for docs in got.values()] == [list(docs) for docs in qrels.values()]


@given(st.dictionaries(qids, st.dictionaries(ids, scores, min_size=1), min_size=1, max_size=5))
def test_run_round_trip_gives_identical_floats_and_ranking(run):
    out = io.StringIO()
    write_run(run, out, name="t")
    got, tag = read_run(io.StringIO(out.getvalue()))
    assert tag == "t" and got == run
    for qid, docs in run.items():
        assert [math.copysign(1, got[qid][d]) for d in docs] == [
            math.copysign(1, docs[d]) for d in docs
        ]
        assert trec_ranking(got[qid]) == trec_ranking(docs)


@given(st.dictionaries(qids, st.lists(ids, min_size=1, unique=True), min_size=1, max_size=5))
def test_ranked_list_keeps_file_order(lists):
    text = "".join(f"{q} {d}\n" for q, docs in lists.items() for d in docs)
    got = read_ranked_list(io.StringIO(text))
    assert {q: trec_ranking(docs) for q, docs in got.items()} == lists


def test_os_fspath_of_pathlike_is_used_as_source(tmp_path):
    class P:
        def __fspath__(self):
            return os.fspath(tmp_path / "missing")

    with pytest.raises(TrecFormatError) as info:
        read_qrels(P())
    assert info.value.source == str(tmp_path / "missing")


# === Blocks: wherever they end, the same reading =============================
#
# read_qrels reads blocks of whole lines and splits a block of plain lines
# (four fields each, no comment) in one call, any other block line by line.
# Both must give the same dict, in the same order, and the same error
# (class, message, line), wherever the blocks end.

QRELS_LINE_IDS = st.sampled_from(["q1", "q2", "q3", "301"])
DOC_IDS = st.sampled_from(["d1", "d2", "d3", "d4", "D1"])
RELEVANCE = st.sampled_from(["0", "1", "2", "-1", "+3", "10", "00"])
# the second column: mostly 0, sometimes a subtopic (keys "docid subtopic")
SUBTOPICS = st.sampled_from(["0", "0", "0", "1", "2"])
# What sends a block line by line (or is an error), given to one line in ten,
# so that most blocks are split whole.
ODD_LINES = st.sampled_from([
    "", "  ", "# a comment", "#q1 0 d1 1", "q1 0 d1", "q1", "q1 0 d1 1 extra",
    "q1\t0 d2 1", "q1  0 d2 1", " q2 0 d1 1", "q\u00e9 0 d1 1", "q1 0 \u00e9 2",
    "q1 0 d_5 1", "q1 0 d1 1_0", "q2 0 d2 x", "q3 0 d1 1.5",
    "q1 0 d1\x1c 1", "q2 0\x1fd3 1",  # white space to str.split(), not to trec_eval
])


@st.composite
def qrels_texts(draw, qids=QRELS_LINE_IDS, docs=DOC_IDS):
    lines = []
    for _ in range(draw(st.integers(0, 14))):
        if draw(st.integers(0, 9)) == 0:
            lines.append(draw(ODD_LINES))
        else:
            fields = [draw(qids), draw(SUBTOPICS), draw(docs), draw(RELEVANCE)]
            lines.append(" ".join(fields))
    eol = draw(st.sampled_from(["\n", "\n", "\r\n"]))
    text = eol.join(lines) + draw(st.sampled_from([eol, ""]))
    return (b"\xef\xbb\xbf" if draw(st.booleans()) else b"") + text.encode("utf-8")


def qrels_outcome(data):
    try:
        got = read_qrels(io.BytesIO(data))
    except TrecFormatError as exc:
        return type(exc), str(exc), exc.line
    return [(q, list(docs.items())) for q, docs in got.items()]


def qrels_kept_outcome(data):
    try:
        duplicates = []
        flat, _ = _read_qrels_tables(io.BytesIO(data), duplicates)
    except TrecFormatError as exc:
        return type(exc), str(exc), exc.line
    return ([(q, list(docs.items())) for q, docs in flat.items()],
            [(str(e), e.first_line, e.line) for e in duplicates])


def assert_blocks_read_as_lines(outcome, data, block):
    from unittest import mock

    import irmetrics.trec as trec

    with mock.patch.object(trec, "_BLOCK", 1):  # (each line a block of its own)
        by_line = outcome(data)
    with mock.patch.object(trec, "_BLOCK", block):
        assert outcome(data) == by_line


BLOCK_SIZES = st.sampled_from([1, 5, 16, 40, 1 << 20])


@given(qrels_texts(), BLOCK_SIZES)
def test_qrels_blocks_of_any_size_read_the_same(data, block):
    assert_blocks_read_as_lines(qrels_outcome, data, block)


def first_repeats(data):
    """{qid: (docid, first line, line)} of each query's first repeated
    (query, second column, document), read plainly, line by line (a model
    for the tests: nothing of irmetrics' reader)."""
    first, repeats = {}, {}
    for n, line in enumerate(data.removeprefix(b"\xef\xbb\xbf").split(b"\n"), 1):
        fields = line.split()  # bytes: ASCII white space only, as trec_eval
        if fields and not fields[0].startswith(b"#"):
            qid, subtopic, docid = (f.decode() for f in fields[:3])
            if (qid, subtopic, docid) in first:
                repeats.setdefault(qid, (docid, first[qid, subtopic, docid], n))
            first.setdefault((qid, subtopic, docid), n)
    return repeats


# What evaluate() reads: each query's first repeated entry listed with both of
# its lines, whichever blocks the query's lines came in; few ids, so that
# repeats, and repeats after repeats within one query, are common.
@given(qrels_texts(st.sampled_from(["q1", "q2"]), st.sampled_from(["d1", "d2", "d3"])),
       BLOCK_SIZES)
def test_qrels_blocks_list_each_querys_first_repeat(data, block):
    from unittest import mock

    import irmetrics.trec as trec

    assert_blocks_read_as_lines(qrels_kept_outcome, data, block)
    try:
        with mock.patch.object(trec, "_BLOCK", block):
            repeats = []
            trec._read_qrels_tables(io.BytesIO(data), repeats)
    except TrecFormatError:
        return  # a malformed line: the other tests say which
    listed = {e.qid: (e.docid, e.first_line, e.line) for e in repeats}
    assert len(listed) == len(repeats)  # one a query
    assert listed == first_repeats(data)


def test_a_listed_repeat_names_the_first_repeat_of_each_query():
    # Hand-derived: q1's d1 on lines 1 and 2, d2 on lines 3 and 4: only the
    # first repeat of q1 is listed (one is enough to refuse or warn about the
    # query, and a list of every repeat made repeated files slow: issue 42);
    # q2's d1 on lines 5 and 7 is listed too.
    text = (b"q1 0 d1 1\nq1 0 d1 1\nq1 0 d2 0\nq1 0 d2 0\n"
            b"q2 0 d1 1\nq2 0 d3 1\nq2 0 d1 0\n")
    duplicates = []
    flat, _ = _read_qrels_tables(io.BytesIO(text), duplicates)
    assert flat == {"q1": {"d1": 1, "d2": 0}, "q2": {"d1": 1, "d3": 1}}
    assert [(e.qid, e.docid, e.first_line, e.line) for e in duplicates] == [
        ("q1", "d1", 1, 2), ("q2", "d1", 5, 7)]


def test_qrels_blocks_by_hand():
    # Hand-derived: q1's lines come in two blocks (block size 16 bytes cuts
    # after line 1: "q1 0 d1 1\nq1 0 d2 0\n" is 20 bytes), q2 between them
    # in the file order, and a duplicate across blocks names both lines.
    from unittest import mock

    import irmetrics.trec as trec

    text = b"q1 0 d1 1\nq1 0 d2 0\nq2 0 d1 2\nq1 0 d3 3\n"
    with mock.patch.object(trec, "_BLOCK", 16):
        assert read_qrels(io.BytesIO(text)) == {"q1": {"d1": 1, "d2": 0, "d3": 3},
                                                "q2": {"d1": 2}}
        with pytest.raises(DuplicateEntryError) as info:
            read_qrels(io.BytesIO(text + b"q1 0 d2 1\n"))
    assert (info.value.first_line, info.value.line) == (2, 5)
    # Blocks of 32 bytes cut after line 3: q1, the first of the first
    # block's three queries, is repeated on line 4, in the next block
    with mock.patch.object(trec, "_BLOCK", 32):
        with pytest.raises(DuplicateEntryError) as info:
            read_qrels(io.BytesIO(b"q1 0 d1 1\nq2 0 d1 2\nq3 0 d1 1\nq1 0 d1 0\n"))
    assert (info.value.first_line, info.value.line) == (1, 4)


def test_qrels_fields_are_split_on_ascii_white_space_only():
    assert read_qrels(io.BytesIO(b"q1 0 d1 1\nq2\t0  d2 -1\r\nq2 0 d3 +2")) == {
        "q1": {"d1": 1}, "q2": {"d2": -1, "d3": 2}}
    # \x1c-\x1f are not white space to trec_eval: part of the docid, or no field break
    assert read_qrels(io.BytesIO(b"q1 0 d1\x1c 1\n")) == {"q1": {"d1\x1c": 1}}
    with pytest.raises(TrecFormatError, match="expected 4 columns"):
        read_qrels(io.BytesIO(b"q1 0\x1fd1 1\n"))


def test_write_qrels_refuses_labels_it_could_not_read_back():
    from irmetrics.trec import write_subtopic_qrels

    with pytest.raises(InvalidArgumentError, match="relevance 2147483648"):
        write_qrels({"q1": {"d1": 2**31}}, io.StringIO())
    with pytest.raises(InvalidArgumentError, match="relevance -2147483649"):
        write_subtopic_qrels({"q1": {"1": {"d1": -(2**31) - 1}}}, io.StringIO())


# === Repeated judgments: linear work (issue 42) ===

def first_line_work(text, read):
    """The entries the search for a repeat's first line walked, in all."""
    from unittest import mock

    import irmetrics.trec as trec

    work = [0]
    plain = trec._first_line

    def counted(docs, blocks, docid):
        work[0] += len(docs) + len(blocks)  # list(docs).index, and the blocks walked
        return plain(docs, blocks, docid)

    with mock.patch.object(trec, "_first_line", counted):
        try:
            read(io.BytesIO(text))
        except DuplicateEntryError:
            pass
    return work[0]


@pytest.mark.parametrize("block", [1 << 17, 64])
def test_a_repeated_qrels_file_is_read_in_linear_work(block):
    # One query of 2,000 judgments given twice, and 50 queries of 40 given
    # twice: the first lines of the repeats were looked up one repeat at a
    # time, each walking the query's entries (4,000,000 and 80,000 steps
    # here, minutes on a Robust04-sized file); now once a query, so at most
    # about the number of lines (8,000).
    from unittest import mock

    import irmetrics.trec as trec

    one = "".join(f"q1 0 d{d} 1\n" for d in range(2000))
    many = "".join(f"q{q} 0 d{d} 1\n" for q in range(50) for d in range(40))
    for text in ((one + one).encode(), (many + many).encode()):
        lines = text.count(b"\n")
        with mock.patch.object(trec, "_BLOCK", block):
            for read in (partial(trec._read_qrels_tables, duplicates=[]), read_qrels):
                assert first_line_work(text, read) <= 2 * lines


def test_a_query_with_many_repeats_is_warned_about_once():
    # q2 repeats three judgments and is never evaluated: one warning (it
    # was one a repeat, 40,000 for a query of 40,000 judgments given twice)
    from irmetrics import evaluate
    from irmetrics.errors import IrmetricsWarning

    qrels = b"q1 0 a 1\nq2 0 b 1\nq2 0 c 1\nq2 0 d 1\nq2 0 b 1\nq2 0 c 1\nq2 0 d 1\n"
    with pytest.warns(IrmetricsWarning) as caught:
        evaluate(io.BytesIO(qrels), {"q1": {"a": 1.0}}, ["map"])
    assert [str(w.message) for w in caught] == [
        "<file>, line 5: document 'b' appears twice for query 'q2' (lines 2 and 5); "
        "trec_eval does not look at it, and neither does irmetrics: its query is not "
        "evaluated"]


# === Blank lines (issue 42) ===

BLANKS = b"\n" * 50_000 + b"  \t\r\n" * 50_000 + b"\n"  # 100,001 blank lines


@pytest.mark.parametrize("block", [1 << 17, 100, 7])
@pytest.mark.parametrize("packed", [False, True])
def test_lines_after_a_long_blank_stretch_are_numbered_right(block, packed):
    # Hand-derived: an entry on line 1, 100,001 blank lines (2 to 100,002),
    # a bad line on 100,003.
    from unittest import mock

    import irmetrics.trec as trec

    cases = [(read_qrels, b"q1 0 d1 1\n", b"q1 0 d2 x\n", "relevance must be an integer"),
             (read_run, b"q1 Q0 d1 1 1 t\n", b"q1 Q0 d2 2 x t\n", "score must be a number"),
             (read_ranked_list, b"q1 d1\n", b"q1 d2 x\n", "expected 2 columns")]
    for read, good, bad, reason in cases:
        data = good + BLANKS + bad
        with mock.patch.object(trec, "_BLOCK", block), \
                pytest.raises(TrecFormatError, match=reason) as info:
            read(io.BytesIO(gzip.compress(data) if packed else data))
        assert info.value.line == 100_003, read
        # and a file ending in blank lines, the last without its line end
        got = read(io.BytesIO(good + BLANKS + b"  "))
        assert list(got[0] if read is read_run else got) == ["q1"]
    with pytest.raises(TrecFormatError) as info:
        read_qrels(io.BytesIO(BLANKS + b" "))
    assert str(info.value) == "<file>: no qrels entries (only blank lines and comments)"


# === The second column of a qrels file (issue 42) ===

def test_a_constant_second_column_is_no_subtopic():
    # TREC DL's qrels have Q0 in the second column, others an iteration
    # number: the same value on every line of a query is no subtopic id.
    from irmetrics import Qrels

    plain = Qrels.from_trec(io.StringIO("q1 0 a 1\nq1 0 b 0\nq2 0 a 2\n"))
    for column in ("Q0", "1", "q1-iteration"):
        text = f"q1 {column} a 1\nq1 {column} b 0\nq2 {column} a 2\n"
        got = Qrels.from_trec(io.StringIO(text))
        assert (got, got.has_subtopics, repr(got)) == (
            plain, False, "Qrels(2 queries, 3 judgments)")
        assert got.subtopics("q1") == {"0": {"a": 1, "b": 0}}
    # a value per query (q1's 0, q2's 1) is no subtopic either
    assert not Qrels.from_trec(io.StringIO("q1 0 a 1\nq2 1 a 1\n")).has_subtopics
    # and a repeat names no subtopic 'Q0'
    with pytest.raises(DuplicateEntryError) as info:
        read_qrels(io.StringIO("q1 Q0 a 1\nq1 Q0 a 0\n"))
    assert str(info.value) == ("<file>, line 2: document 'a' appears twice for query 'q1' "
                               "(lines 1 and 2)")


@pytest.mark.parametrize("block", [1 << 17, 24, 9])
def test_a_second_column_with_two_values_in_a_query_names_subtopics(block):
    # The TREC Web track's diversity qrels: q1 judged under subtopics 1 and 2,
    # q2 under 3 alone.  In a file with subtopics every query's column names
    # them, so q2 keeps its subtopic '3'; q3's constant 0 is subtopic '0'.
    from unittest import mock

    import irmetrics.trec as trec
    from irmetrics import Qrels

    text = b"q1 1 a 1\nq1 1 b 0\nq1 2 a 0\nq1 2 c 2\nq2 3 a 1\nq3 0 d 1\nq1 2 e 1\n"
    with mock.patch.object(trec, "_BLOCK", block):
        got = Qrels.from_trec(io.BytesIO(text))
        with pytest.raises(DuplicateEntryError) as info:  # a repeat under q1's first subtopic
            read_qrels(io.BytesIO(text + b"q1 1 b 1\n"))
    assert got.has_subtopics
    assert got.subtopics("q1") == {"1": {"a": 1, "b": 0}, "2": {"a": 0, "c": 2, "e": 1}}
    assert got.subtopics("q2") == {"3": {"a": 1}}
    assert got.subtopics("q3") == {"0": {"d": 1}}
    assert got.to_dict() == {"q1": {"a": 1, "b": 0, "c": 2, "e": 1}, "q2": {"a": 1},
                             "q3": {"d": 1}}
    assert info.value.subtopic == "1" and (info.value.first_line, info.value.line) == (2, 8)


def test_diversity_values_are_the_same_whatever_the_constant_column():
    # One subtopic a query reads the same as an adhoc qrels: the value of
    # alpha-nDCG does not depend on the name of the column's one value.
    from irmetrics import evaluate

    run = {"q1": {"a": 3.0, "b": 2.0, "c": 1.0}}
    values = [evaluate(io.StringIO(f"q1 {c} a 1\nq1 {c} c 1\n"), run,
                       ["alpha-nDCG@10", "ERR-IA@10", "map"]).aggregate
              for c in ("0", "Q0", "7")]
    assert values[0] == values[1] == values[2]


# === Qrels and run given in the wrong order (issue 42) ===

SWAPPED = "were the qrels and the run given in the wrong order?"


def test_a_run_given_as_qrels_and_qrels_as_a_run_say_so(tmp_path):
    from irmetrics import evaluate
    from irmetrics.cli import _run

    qrels = tmp_path / "qrels.txt"
    qrels.write_text("# judged\nq1 0 d1 1\n")
    run = tmp_path / "run.txt"
    run.write_text("q1 Q0 d1 1 2.5 bm25\n")
    with pytest.raises(TrecFormatError) as info:
        evaluate(str(run), str(qrels), ["map"])
    assert str(info.value) == (
        f"{run}, line 1: expected 4 columns (qid iteration docid relevance), got 6; this "
        f"looks like a run (qid Q0 docid rank score tag): {SWAPPED}")
    with pytest.raises(TrecFormatError) as info:
        evaluate(str(qrels), str(qrels), ["map"])
    assert str(info.value) == (
        f"{qrels}, line 2: expected at least 6 columns (qid Q0 docid rank score tag), got 4; "
        f"this looks like qrels (qid iteration docid relevance): {SWAPPED}")
    out, err = io.StringIO(), io.StringIO()
    assert _run(["-m", "map", str(run), str(qrels)], out, err) == 2
    assert f"{run}, line 1: " in err.getvalue() and SWAPPED in err.getvalue()
    # a line of the wrong width that is no line of the other format: no hint
    for text in ("q1 0 d1\n", "q1 0 d1 1 2\n", "q1 Q0 d1 1 high t\n"):
        with pytest.raises(TrecFormatError) as info:
            read_qrels(io.StringIO(text))
        assert "wrong order" not in str(info.value)
    for text in ("q1 Q0 d1 1 2.5\n", "q1 0 d1 x\n"):
        with pytest.raises(TrecFormatError) as info:
            read_run(io.StringIO(text))
        assert "wrong order" not in str(info.value)


# === Lines too short, too long, or run together ===============================


def _cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = _run([str(a) for a in argv], out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("line", ["q1", "q1 Q0", "q1 Q0 d3 3 0.5"])
def test_a_short_last_run_line_names_file_and_line_on_every_road(tmp_path, line):
    # Guards the streaming reader's column check (the command line, a path,
    # a binary stream).  Before (issue 18, finding 4): an IndexError
    # traceback in the streaming reader for 1 or 2 columns.
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 d1 1\n")
    run = tmp_path / "run"
    run.write_text("q1 Q0 d1 1 0.9 r\nq1 Q0 d2 2 0.8 r\n" + line)  # a truncated last line
    n = len(line.split())
    message = f"{run}, line 3: expected at least 6 columns (qid Q0 docid rank score tag), got {n}"
    code, out, err = _cli("-m", "map", qrels, run)
    assert (code, out, err) == (2, "", f"irmetrics: error: {message}\n")
    with pytest.raises(TrecFormatError) as info:
        evaluate(str(qrels), str(run), ["map"])
    assert str(info.value) == message
    with pytest.raises(TrecFormatError) as info:
        evaluate(str(qrels), io.BytesIO(run.read_bytes()), ["map"])
    assert info.value.line == 3


def test_a_file_without_line_ends_is_an_error(tmp_path):
    # Guards the reader's line-length limit (MAX_LINE).  Its cost (issue 18,
    # finding 7: the unfinished line was re-copied with every chunk) is shown
    # by benchmarks/pathological.py's "100 MB line without line ends" row,
    # not timed here: the pieces of a line are joined once (trec._lines).
    run = tmp_path / "run"
    run.write_bytes(b"q1 Q0 d1 1 0.5 r\r" * (MAX_LINE // 17 + 2))  # CR line ends only
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 d1 1\n")
    code, _, err = _cli("-m", "map", qrels, run)
    assert code == 2
    assert err == (f"irmetrics: error: {run}, line 1: line is longer than 16 MiB (a file "
                   "without line ends, or with CR alone as the line end?)\n")
    for reader in (read_run, read_qrels):
        with pytest.raises(TrecFormatError, match="line 1: line is longer than 16 MiB"):
            reader(str(run))


def test_two_lines_run_together_are_warned_about(tmp_path):
    # Guards the warning on a line of more than 6 fields, pointing at the
    # caller's line (issue 18, finding 16).
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 d1 1\n")
    run = tmp_path / "run"
    # a first file without a final line end, concatenated with a second
    run.write_text("q1 Q0 d2 1 0.9 r\nq1 Q0 d1 2 0.5 rq1 Q0 d3 1 0.7 r\n")
    code, out, err = _cli("-m", "num_ret", qrels, run)
    assert code == 0 and out == "num_ret               \tall\t2\n"
    assert err == (f"irmetrics: warning: {run}, line 2: 11 fields, of which only the first 6 "
                   "are read; two lines run together (a file without a final line end, "
                   "concatenated with another)?\n")
    with pytest.warns(IrmetricsWarning, match="line 2: 11 fields") as caught:
        read_run(str(run))
    assert caught[0].filename == __file__


# === Relevance labels: integers in trec_eval's range ===========================
# (issue 12, item 6; issue 18, finding 8)


def test_integral_labels_written_as_floats_are_read_as_ints():
    # pandas writes integer labels as "1.0"
    qrels = read_qrels(io.StringIO("q1 0 a 1.0\nq1 0 b 2.00\nq1 0 c 0.\nq1 0 d -1.0\n"))
    assert qrels == {"q1": {"a": 1, "b": 2, "c": 0, "d": -1}}
    assert all(type(v) is int for v in qrels["q1"].values())


@pytest.mark.parametrize("text", ["1.5", "0,9", "1e3", "one", "1.0.0", ".0", "2147483648",
                                  "-2147483649", "1" + "0" * 30])
def test_labels_that_are_not_integers_in_trec_eval_s_range_are_errors(text):
    with pytest.raises(TrecFormatError) as info:
        read_qrels(io.StringIO(f"q1 0 a 1\nq1 0 b {text}\n"))
    assert info.value.line == 2
    assert f"(got {text!r})" in str(info.value)


# === The readers under fuzzing: only the library's errors come out ===========


FUZZ_FIELD = st.one_of(st.sampled_from(["q1", "q2", "Q0", "0", "d1", "d2", "1", "-1", "0.5",
                                        "1e3", "nan", "inf", "#", "1.0", "x", "é", "1_0",
                                        "99999999999"]),
                       st.text(max_size=4))
FUZZ_SEP = st.sampled_from([" ", "\t", "  ", " \t", "\x0b", "\xa0"])
FUZZ_LINE = st.builds(lambda fields, sep: sep.join(fields), st.lists(FUZZ_FIELD, max_size=8),
                      FUZZ_SEP)
FUZZ_TEXTS = st.builds(lambda lines, end: end.join(lines), st.lists(FUZZ_LINE, max_size=8),
                       st.sampled_from(["\n", "\r\n", "\r"]))


def _only_library_errors(call, *args, **kwargs):
    try:
        call(*args, **kwargs)
    except IrmetricsError:
        pass


@given(st.one_of(FUZZ_TEXTS.map(lambda t: t.encode("utf-8", "surrogatepass")),
                 st.binary(max_size=200)),
       st.sampled_from(["utf-8", "latin-1", None]), st.booleans())
@settings(max_examples=300)
@pytest.mark.filterwarnings("ignore::irmetrics.errors.IrmetricsWarning")
def test_fuzzed_input_raises_only_library_errors(data, encoding, compressed):
    # Guards every reader (qrels, run, RunStream, evaluate on streams) against
    # escaping exceptions: anything but an IrmetricsError fails.
    if compressed:
        data = gzip.compress(data)
    qrels = {"q1": {"d1": 1}, "q2": {"d2": 0}}
    sources = [lambda: io.BytesIO(data)]
    if encoding is not None and not compressed:
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError:
            text = None
        if text is not None:
            sources.append(lambda: io.StringIO(text))
    for make in sources:
        _only_library_errors(read_qrels, make())
        _only_library_errors(read_run, make())
        _only_library_errors(list, RunStream(make(), chunk_size=5))
        _only_library_errors(evaluate, qrels, make(), ["map", "P_5", "ndcg"])
        _only_library_errors(evaluate, make(), {"q1": {"d1": 1.0}}, ["map"])


def test_a_repeat_names_its_subtopic_only_once_the_query_has_two():
    # Line 2 repeats line 1 before line 3 gives q1 a second subtopic: the
    # message does not name a subtopic, whether the file is read whole or line
    # by line (found by the property above, with blocks of 1 and 16 bytes).
    data = b"q1 0 d1 0\nq1 0 d1 0\nq1 1 d1 0\n"
    for block in (1, 16, 1 << 16):
        assert_blocks_read_as_lines(qrels_outcome, data, block)
    with pytest.raises(DuplicateEntryError) as info:
        read_qrels(io.BytesIO(data))
    assert str(info.value) == ("<file>, line 2: document 'd1' appears twice for query 'q1' "
                               "(lines 1 and 2)")
