"""One road: the same qrels and run, given as every kind of source, in one
process or two, give identical per-query values and aggregates."""

import gc
import gzip
import io
import os
import random
import subprocess
import sys
import threading
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies_runs import qrels_and_runs

from irmetrics import Qrels, Run, evaluate, explain
from irmetrics._parallel import parallel_possible
from irmetrics.sources import open_run
from irmetrics.trec import write_qrels, write_run

ROOT = Path(__file__).resolve().parents[1]
MEASURES = ["map", "P_5", "ndcg_cut_10", "recip_rank", "bpref", "num_ret", "num_rel_ret",
            "Rprec", "iprec_at_recall_0.10", "infAP", "ERR@10", "Judged@5", "RBP", "gm_map"]


class PipeReader(io.RawIOBase):
    """The read end of an OS pipe fed by a thread: what standard input is."""

    def __init__(self, data):
        super().__init__()
        r, w = os.pipe()
        self._r = os.fdopen(r, "rb", buffering=0)

        def feed():
            with os.fdopen(w, "wb") as f:
                f.write(data)

        self._thread = threading.Thread(target=feed, daemon=True)
        self._thread.start()

    def readable(self):
        return True

    def readinto(self, buf):
        return self._r.readinto(buf)

    def close(self):
        self._r.close()
        super().close()


def text_pipe(text):
    """A text-mode pipe, as ``sys.stdin`` or ``Popen(..., text=True).stdout`` are."""
    return io.TextIOWrapper(io.BufferedReader(PipeReader(text.encode("utf-8"))),
                            encoding="utf-8")


class TextReader:
    """A text-mode stream with nothing but read(): not seekable, no name."""

    def __init__(self, text):
        self.read = io.StringIO(text).read


def run_text(run, tag="r"):
    out = io.StringIO()
    write_run(run, out, name=tag)
    return out.getvalue()


def shuffled(text, seed):
    """The same lines in another order: the run is no longer grouped by query."""
    lines = text.splitlines(keepends=True)
    return "".join(sorted(lines, key=lambda line: hash((seed, line))))


@pytest.mark.fork  # workers=2 forks (conftest)
@given(qrels_and_runs(), st.booleans(), st.booleans(), st.integers(0, 3))
@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@pytest.mark.slow
def test_every_source_kind_gives_the_same_evaluation(tmp_path_factory, data, complete, grouped,
                                                      seed):
    qrels, run = data
    run = {q: docs for q, docs in run.items() if docs}  # a file cannot hold an empty ranking
    if not set(run) & set(qrels):
        return
    folder = tmp_path_factory.mktemp("src")
    text = run_text(run)
    if not grouped:
        text = shuffled(text, seed)
    plain = folder / "run.txt"
    plain.write_text(text, encoding="utf-8")
    packed = folder / "run.txt.gz"
    packed.write_bytes(gzip.compress(text.encode("utf-8")))
    qrels_file = folder / "qrels.txt"
    write_qrels(qrels, str(qrels_file))
    records = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]

    sources = {
        "dict": run,
        "Run": Run(run, name="r"),
        "records": records,
        "path": str(plain),
        "PathLike": plain,
        "gzip path": str(packed),
        "binary file": lambda: open(plain, "rb"),
        "text file": lambda: open(plain, encoding="utf-8"),
        "bytes path": os.fsencode(plain),
        "pipe (standard input)": lambda: PipeReader(text.encode("utf-8")),
        "text pipe (sys.stdin)": lambda: text_pipe(text),
        "gzip pipe": lambda: PipeReader(gzip.compress(text.encode("utf-8"))),
    }
    results = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, source in sources.items():
            got = source() if callable(source) else source
            results[name, 1] = evaluate(qrels, got, MEASURES, complete=complete, workers=1)
            if hasattr(got, "close"):
                got.close()
        results["qrels file", 1] = evaluate(str(qrels_file), str(plain), MEASURES,
                                            complete=complete, workers=1)
        if parallel_possible(str(plain)):
            results["path", 2] = evaluate(qrels, str(plain), MEASURES,
                                                  complete=complete, workers=2)
    first = results["dict", 1]
    for key, result in results.items():
        assert result.per_query == first.per_query, key
        assert result.aggregate == first.aggregate, key
        assert (result.skipped, result.missing) == (first.skipped, first.missing), key


def test_a_source_yields_groups_of_any_input():
    run = {"q2": {"b": 1.0, "a": 2.0}, "q1": {"c": 0.5}}
    in_memory = open_run(run)
    assert [(q, d, s) for q, d, s in in_memory] == [
        ("q1", ["c"], [0.5]), ("q2", ["b", "a"], [1.0, 2.0])]
    assert (in_memory.encoded, in_memory.name) == (False, "irmetrics")
    from_file = open_run(io.BytesIO(b"q2 Q0 b 1 1 x\nq1 Q0 c 1 0.5 x\nq2 Q0 a 2 2 y\n"))
    groups = [(q, d, s) for q, d, s in from_file]
    # not grouped: read again, regrouped, every query whole
    assert from_file.restarted
    assert groups[-2:] == [("q2", [b"b", b"a"], [1.0, 2.0]), ("q1", [b"c"], [0.5])]
    assert (from_file.encoded, from_file.name) == (True, "y")


def test_records_are_a_run():
    qrels = {"q1": {"a": 1}}
    expected = evaluate(qrels, {"q1": {"a": 1.0, "b": 2.0}}, ["map"]).per_query
    assert evaluate(qrels, [("q1", "a", 1.0), ("q1", "b", 2.0)], ["map"]).per_query == expected
    with pytest.raises(ValueError, match="'run' must be a Run, a dict of dicts, records"):
        evaluate(qrels, 42, ["map"])


def test_qrels_kinds_are_the_same():
    qrels = {"q1": {"a": 1, "b": 0}}
    run = {"q1": {"a": 1.0, "b": 2.0}}
    text = io.StringIO()
    write_qrels(qrels, text)
    assert (evaluate(Qrels(qrels), run, ["map"]).per_query
            == evaluate(io.StringIO(text.getvalue()), run, ["map"]).per_query
            == evaluate(qrels, run, ["map"]).per_query)


# Issue 42: a run not grouped by query is read again from a copy of what was
# read; a text-mode stream was not copied, and lost the lines read before the
# run was found ungrouped (4,096 of them, silently).
UNGROUPED = "".join(["A Q0 a 1 3 r\n", "B Q0 b 1 2 r\n", "A Q0 c 2 1 r\n"]
                    + [f"q{i} Q0 d 1 1 r\n" for i in range(5000)])
UNGROUPED_QRELS = {"A": {"c": 1}, "q4500": {"d": 1}}


@pytest.mark.parametrize("kind", ["path", "bytes path", "binary pipe", "text pipe",
                                  "text reader", "text file", "StringIO"])
def test_an_ungrouped_run_reads_the_same_from_every_kind_of_stream(tmp_path, kind):
    # Hand-derived: A ranks a (score 3, not relevant) then c (relevant): AP
    # 1/2; q4500 ranks d, relevant: AP 1; B has no judgments.  map 0.75 over
    # two queries (a stream that lost A's first line gave 1.0 over one).
    path = tmp_path / "run.txt"
    path.write_text(UNGROUPED, encoding="utf-8")
    sources = {
        "path": lambda: str(path),
        "bytes path": lambda: os.fsencode(path),
        "binary pipe": lambda: PipeReader(UNGROUPED.encode()),
        "text pipe": lambda: text_pipe(UNGROUPED),
        "text reader": lambda: TextReader(UNGROUPED),
        "text file": lambda: open(path, encoding="utf-8"),
        "StringIO": lambda: io.StringIO(UNGROUPED),
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # B has no judgments
        result = evaluate(UNGROUPED_QRELS, sources[kind](), ["map", "num_q"])
    assert result.aggregate == {"map": 0.75, "num_q": 2}
    explained = explain(UNGROUPED_QRELS, sources[kind](), "A", "map")
    assert "map = 0.5000" in str(explained)


@pytest.mark.parametrize("grouped", [True, False])
def test_a_run_from_a_pipe_leaves_no_file_open(grouped):
    # The copy of a pipe (a spool file) is closed once the run is read,
    # grouped or not: nothing is left for the garbage collector to warn about.
    text = UNGROUPED if not grouped else "".join(sorted(UNGROUPED.splitlines(True)))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        evaluate(UNGROUPED_QRELS, PipeReader(text.encode()), ["map"])
        evaluate(UNGROUPED_QRELS, text_pipe(text), ["map"])
        gc.collect()
    assert [w for w in caught if issubclass(w.category, ResourceWarning)] == []


@pytest.mark.slow
@pytest.mark.parametrize("stdin", ["sys.stdin", "sys.stdin.buffer"])
def test_an_ungrouped_run_from_standard_input(tmp_path, stdin):
    # The reproducer as a user meets it: the run on standard input,
    # ResourceWarnings made errors (and an unclosed spool file reported on
    # stderr by the collector).
    qrels = tmp_path / "qrels.txt"
    write_qrels(UNGROUPED_QRELS, str(qrels))
    code = ("import gc, sys, warnings, irmetrics\n"
            "warnings.simplefilter('ignore', irmetrics.errors.IrmetricsWarning)\n"
            f"e = irmetrics.evaluate({str(qrels)!r}, {stdin}, ['map', 'num_q'])\n"
            "gc.collect()\n"
            "print(e.aggregate['map'], e.aggregate['num_q'])\n")
    done = subprocess.run([sys.executable, "-W", "error::ResourceWarning", "-c", code],
                          input=UNGROUPED.encode(), capture_output=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(
                              [str(ROOT), os.environ.get("PYTHONPATH", "")])})
    assert (done.returncode, done.stdout, done.stderr) == (0, b"0.75 2\n", b"")


# === An ungrouped run from a file object that reads once =======================


class _ReadOnce(io.RawIOBase):
    """Readable once, in pieces of 1,000 bytes, with no seek and no peek."""

    def __init__(self, data):
        self._data = io.BytesIO(data)

    def readable(self):
        return True

    def readinto(self, buf):
        chunk = self._data.read(min(len(buf), 1000))
        buf[: len(chunk)] = chunk
        return len(chunk)


def test_an_ungrouped_run_from_a_non_seekable_file_object(tmp_path):
    # Guards the re-reading of an ungrouped run from the copy of what was
    # read (issue 18, finding 1): the file's numbers, not the unread rest's.
    rng = random.Random(1)
    lines = [f"q{q} Q0 d{d} {d} {rng.random():.6f} run\n" for q in range(8) for d in range(50)]
    rng.shuffle(lines)
    run = tmp_path / "ungrouped.run"
    run.write_text("".join(lines))
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"q{q} 0 d{d} {rng.randint(0, 2)}\n"
                             for q in range(8) for d in range(0, 50, 7)))
    expected = evaluate(str(qrels), Run.from_trec(str(run)), ["map", "num_ret"])
    got = evaluate(str(qrels), _ReadOnce(run.read_bytes()), ["map", "num_ret"])
    assert got.per_query == expected.per_query and got.aggregate == expected.aggregate
