"""The readers and the evaluation road on hostile input (issue 18's findings,
issue 12's reading rules): every path gives the same numbers or the same
library error, in linear time and bounded memory."""

import gzip
import io
import os
import random
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracles import require

from irmetrics import Qrels, Run, evaluate
from irmetrics.cli import _run
from irmetrics.errors import DuplicateEntryError, IrmetricsError, IrmetricsWarning, TrecFormatError
from irmetrics.trec import MAX_LINE, RunStream, read_qrels, read_run

ROOT = Path(__file__).resolve().parents[1]


def run_cli(argv, stdin=None):
    out, err = io.StringIO(), io.StringIO()
    code = _run([str(a) for a in argv], out, err)
    return code, out.getvalue(), err.getvalue()


def cli_process(argv, **kwargs):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "irmetrics", *map(str, argv)],
                          capture_output=True, env=env, cwd=ROOT, **kwargs)


def ungrouped(tmp_path, n_queries=50, depth=400, seed=1):
    rng = random.Random(seed)
    lines = [f"q{q} Q0 d{d} {d} {rng.random():.6f} run\n"
             for q in range(n_queries) for d in range(depth)]
    rng.shuffle(lines)
    run = tmp_path / "ungrouped.run"
    run.write_text("".join(lines))
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"q{q} 0 d{d} {rng.randint(0, 2)}\n"
                             for q in range(n_queries) for d in range(0, depth, 7)))
    return qrels, run


# === Finding 1: an ungrouped run from a stream is read once ===


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_ungrouped_run_from_a_pipe_a_fifo_or_stdin_gives_the_file_s_numbers(tmp_path):
    # Before: the fallback re-opened the path or reused the stream and saw
    # only the unread rest: 49 queries / 48,672 documents instead of 50 / 100,000.
    qrels, run = ungrouped(tmp_path)
    argv = ["-m", "num_q", "-m", "num_ret", "-m", "map", "-m", "P_10"]
    by_path = cli_process([*argv, qrels, run])
    assert by_path.returncode == 0 and b"num_ret               \tall\t20000\n" in by_path.stdout
    data = run.read_bytes()
    for name in ("-", "/dev/stdin"):
        piped = cli_process([*argv, qrels, name], input=data)
        assert (piped.returncode, piped.stdout) == (0, by_path.stdout), name
    gz = gzip.compress(data)
    piped = cli_process([*argv, qrels, "-"], input=gz)
    assert (piped.returncode, piped.stdout) == (0, by_path.stdout)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "irmetrics", *argv, str(qrels), str(fifo)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=ROOT)
    with open(fifo, "wb") as f:
        f.write(data)
    out, _ = proc.communicate(timeout=60)
    assert (proc.returncode, out) == (0, by_path.stdout)


def test_ungrouped_run_from_a_non_seekable_file_object(tmp_path):
    qrels, run = ungrouped(tmp_path, n_queries=8, depth=50)
    expected = evaluate(str(qrels), Run.from_trec(str(run)), ["map", "num_ret"])

    class Pipe(io.RawIOBase):  # readable once, no seek, no peek
        def __init__(self, data):
            self._data = io.BytesIO(data)

        def readable(self):
            return True

        def readinto(self, buf):
            chunk = self._data.read(min(len(buf), 1000))
            buf[: len(chunk)] = chunk
            return len(chunk)

    got = evaluate(str(qrels), Pipe(run.read_bytes()), ["map", "num_ret"])
    assert got.per_query == expected.per_query and got.aggregate == expected.aggregate


# === Finding 4: short lines are errors with file and line ===


@pytest.mark.parametrize("line", ["q1", "q1 Q0", "q1 Q0 d3 3 0.5"])
def test_a_short_run_line_names_file_and_line(tmp_path, line):
    # Before: an IndexError traceback in the streaming reader for 1 or 2 columns.
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 d1 1\n")
    run = tmp_path / "run"
    run.write_text("q1 Q0 d1 1 0.9 r\nq1 Q0 d2 2 0.8 r\n" + line)  # a truncated last line
    n = len(line.split())
    message = f"{run}, line 3: expected at least 6 columns (qid Q0 docid rank score tag), got {n}"
    code, out, err = run_cli(["-m", "map", qrels, run])
    assert (code, out, err) == (2, "", f"irmetrics: error: {message}\n")
    with pytest.raises(TrecFormatError) as info:
        evaluate(str(qrels), str(run), ["map"])
    assert str(info.value) == message
    with pytest.raises(TrecFormatError) as info:
        evaluate(str(qrels), io.BytesIO(run.read_bytes()), ["map"])
    assert info.value.line == 3


# === Finding 5: standard input in constant memory ===


@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="needs Linux /proc")
def test_standard_input_is_read_in_constant_memory(tmp_path):
    # Before: the binary probe read all of standard input (2.17 GB for a
    # 1.1 GB stream).  A 68 MB stream (gzip-compressed) must stay well below 68 MB.
    block = "".join(f"Q0 d{d} {d} {1000 - d}.5 run\n" for d in range(1000))
    text = "".join(block.replace("Q0", f"q{q} Q0") for q in range(2500))
    assert len(text) > 65_000_000
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"q{q} 0 d3 1\n" for q in range(2500)))
    # The peak resident memory of the command itself (VmHWM is reset by exec,
    # unlike ru_maxrss, which counts the forked copy of this test process).
    code = ("import sys, irmetrics.cli as c; rc = c.main(sys.argv[1:]); "
            "sys.stderr.write(open('/proc/self/status').read()); sys.exit(rc)")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    data = gzip.compress(text.encode(), compresslevel=1)
    done = subprocess.run([sys.executable, "-c", code, "-m", "num_ret", str(qrels), "-"],
                          input=data, capture_output=True, env=env, cwd=ROOT)
    assert done.returncode == 0
    assert done.stdout == b"num_ret               \tall\t2500000\n"
    peak = next(int(line.split()[1]) for line in done.stderr.decode().splitlines()
                if line.startswith("VmHWM:"))
    assert peak < 50_000  # KiB: the interpreter, the tables, a 4 MiB spool


# === Finding 7: a long line in linear time, with a clear error ===


def test_a_line_without_line_ends_is_an_error_in_linear_time(tmp_path):
    # Before: the unfinished line was re-copied with every chunk: 100 MB took 29 s.
    run = tmp_path / "run"
    run.write_bytes(b"q1 Q0 d1 1 0.5 r\r" * (MAX_LINE // 17 + 2))  # CR line ends only
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 d1 1\n")
    start = time.perf_counter()
    code, _, err = run_cli(["-m", "map", qrels, run])
    elapsed = time.perf_counter() - start
    assert code == 2
    assert err == (f"irmetrics: error: {run}, line 1: line is longer than 16 MiB (a file "
                   "without line ends, or with CR alone as the line end?)\n")
    for reader in (read_run, read_qrels):
        with pytest.raises(TrecFormatError, match="line 1: line is longer than 16 MiB"):
            reader(str(run))
    assert elapsed < 10  # quadratic re-copying took minutes at this size


def test_a_long_but_legal_last_line_is_read(tmp_path):
    # many small chunks of one line, joined once
    line = "q1 Q0 " + "d" * 100_000 + " 1 0.5 r"
    stream = RunStream(io.BytesIO(line.encode()), chunk_size=7)
    assert [(q, len(d[0])) for q, d, _ in stream] == [("q1", 100_000)]


# === Finding 16: two lines run together ===


def test_a_line_with_many_fields_is_warned_about(tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 d1 1\n")
    run = tmp_path / "run"
    # a first file without a final line end, concatenated with a second
    run.write_text("q1 Q0 d2 1 0.9 r\nq1 Q0 d1 2 0.5 rq1 Q0 d3 1 0.7 r\n")
    code, out, err = run_cli(["-m", "num_ret", qrels, run])
    assert code == 0 and out == "num_ret               \tall\t2\n"
    assert err == (f"irmetrics: warning: {run}, line 2: 11 fields, of which only the first 6 "
                   "are read; two lines run together (a file without a final line end, "
                   "concatenated with another)?\n")
    with pytest.warns(IrmetricsWarning, match="line 2: 11 fields") as caught:
        read_run(str(run))
    assert caught[0].filename == __file__


# === Issue 12, item 6 and issue 18, finding 8: labels ===


def test_integral_labels_written_as_floats_are_read():
    qrels = read_qrels(io.StringIO("q1 0 a 1.0\nq1 0 b 2.00\nq1 0 c 0.\nq1 0 d -1.0\n"))
    assert qrels == {"q1": {"a": 1, "b": 2, "c": 0, "d": -1}}
    assert all(type(v) is int for v in qrels["q1"].values())


@pytest.mark.parametrize("text", ["1.5", "0,9", "1e3", "one", "1.0.0", ".0", "2147483648",
                                  "-2147483649", "1" + "0" * 30])
def test_labels_that_are_not_integers_in_range_are_errors(text):
    with pytest.raises(TrecFormatError) as info:
        read_qrels(io.StringIO(f"q1 0 a 1\nq1 0 b {text}\n"))
    assert info.value.line == 2
    assert f"(got {text!r})" in str(info.value)


def test_huge_labels_from_dicts_are_errors():
    # Before: 10**30 with -m all_trec gave "math domain error" (G), 10**400
    # with ndcg an OverflowError.
    for label in (2**31, 10**30, 10**400, -(2**31) - 1):
        with pytest.raises(IrmetricsError, match=r"qrels\['q'\]\['a'\] must be between"):
            Qrels({"q": {"a": label}})
    assert Qrels({"q": {"a": 2**31 - 1}})["q"]["a"] == 2**31 - 1


def test_the_largest_labels_give_finite_numbers():
    top = 2**31 - 1
    result = evaluate({"q": {"a": top, "b": 1, "c": 0}}, {"q": {"b": 3, "a": 2, "c": 1}},
                      ["ndcg", "G", "Rndcg", "ndcg_rel", "ERR@10", "map"])
    for name, value in result.aggregate.items():
        assert 0.0 <= value <= 1.0, name


# === Issue 12, item 5: duplicates trec_eval never looks at ===


def test_a_duplicate_below_the_depth_cut_is_evaluated_with_a_warning(tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 a 1\nq1 0 b 1\n")
    run = tmp_path / "run"
    run.write_text("q1 Q0 a 1 3 r\nq1 Q0 x 2 2 r\nq1 Q0 b 3 1 r\nq1 Q0 x 4 0.5 r\n")
    # -M 3: trec_eval keeps a, x, b and never sees the second x
    code, out, err = run_cli(["-M", "3", "-m", "map", "-m", "num_ret", qrels, run])
    assert code == 0
    assert out == "num_ret               \tall\t3\nmap                   \tall\t0.8333\n"
    assert err == (f"irmetrics: warning: {run}, line 4: document 'x' appears twice for query "
                   "'q1' (lines 2 and 4); trec_eval does not look at it, and neither does "
                   "irmetrics: below the depth cut (3)\n")
    # within the cut the value would change: still an error naming both lines
    code, out, err = run_cli(["-M", "4", "-m", "map", qrels, run])
    assert (code, out) == (2, "")
    assert "line 4: document 'x' appears twice for query 'q1' (lines 2 and 4)" in err
    with pytest.raises(DuplicateEntryError):
        evaluate(str(qrels), str(run), ["map"])


def test_a_duplicate_in_a_query_without_judgments_is_a_warning(tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 a 1\n")
    run = tmp_path / "run"
    run.write_text("q1 Q0 a 1 3 r\nq2 Q0 y 1 2 r\nq2 Q0 y 2 1 r\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = evaluate(str(qrels), str(run), ["map"])
    assert result.aggregate == {"map": 1.0}
    messages = [str(w.message) for w in caught]
    assert any("document 'y' appears twice for query 'q2'" in m
               and m.endswith("its query has no judgments") for m in messages)
    assert all(w.filename == __file__ for w in caught)


# === Issue 12, item 7: scores as single-precision floats ===


def test_float32_scores_tie_where_the_float_build_ties(tmp_path):
    # a 0.30000001 and b 0.3 are the same float32: tied, b (greater id) first,
    # so the relevant a is at rank 2 (AP 0.5); as doubles a is first (AP 1.0).
    qrels = {"q": {"a": 1}}
    run = {"q": {"a": 0.30000001, "b": 0.3}}
    assert evaluate(qrels, run, ["map"]).aggregate["map"] == 1.0
    assert evaluate(qrels, run, ["map"], scores="float32").aggregate["map"] == 0.5
    (tmp_path / "q").write_text("q 0 a 1\n")
    (tmp_path / "r").write_text("q Q0 a 1 0.30000001 x\nq Q0 b 2 0.3 x\n")
    code, out, _ = run_cli(["--float32-scores", "-m", "map", tmp_path / "q", tmp_path / "r"])
    assert (code, out) == (0, "map                   \tall\t0.5000\n")
    with pytest.raises(IrmetricsError, match="'scores' must be 'float64' or 'float32'"):
        evaluate(qrels, run, ["map"], scores="double")


@given(st.data())
@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_float32_scores_reproduce_pytrec_eval(data):
    pytrec_eval = require("pytrec_eval")
    rng = random.Random(data.draw(st.integers(0, 10**6)))
    qrels, run = {}, {}
    for q in range(4):
        qrels[f"q{q}"] = {f"d{d}": rng.choice((0, 1, 2)) for d in rng.sample(range(30), 12)}
        # scores that differ beyond float precision, so that float32 merges some
        base = [rng.choice((0.1, 0.2, 0.3, 0.7)) for _ in range(20)]
        run[f"q{q}"] = {f"d{d}": b + rng.choice((0.0, 1e-9, 3e-9)) for d, b in
                        zip(rng.sample(range(30), 20), base)}
    measures = {"map", "P_5", "ndcg_cut_10", "recip_rank", "bpref", "Rprec"}
    expected = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    got = evaluate(qrels, run, sorted(measures), scores="float32").per_query
    for q, values in expected.items():
        for m, v in values.items():
            assert got[q][m] == pytest.approx(v, abs=1e-12), (q, m)


# === The readers under fuzzing: only the library's errors come out ===


FIELD = st.one_of(st.sampled_from(["q1", "q2", "Q0", "0", "d1", "d2", "1", "-1", "0.5", "1e3",
                                   "nan", "inf", "#", "1.0", "x", "é", "1_0", "99999999999"]),
                  st.text(max_size=4))
SEP = st.sampled_from([" ", "\t", "  ", " \t", "\x0b", "\xa0"])
LINE = st.builds(lambda fields, sep: sep.join(fields), st.lists(FIELD, max_size=8), SEP)
TEXTS = st.builds(lambda lines, end: end.join(lines), st.lists(LINE, max_size=8),
                  st.sampled_from(["\n", "\r\n", "\r"]))


def _only_library_errors(call, *args, **kwargs):
    try:
        call(*args, **kwargs)
    except IrmetricsError:
        pass


@given(st.one_of(TEXTS.map(lambda t: t.encode("utf-8", "surrogatepass")), st.binary(max_size=200)),
       st.sampled_from(["utf-8", "latin-1", None]), st.booleans())
@settings(max_examples=300)
@pytest.mark.filterwarnings("ignore::irmetrics.errors.IrmetricsWarning")
def test_fuzzed_input_raises_only_library_errors(data, encoding, compressed):
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


def test_a_qrels_duplicate_in_a_query_not_evaluated_is_a_warning(tmp_path):
    # trec_eval checks the judgments of the queries it evaluates only
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 a 1\nq2 0 b 1\nq2 0 b 0\n")
    run = tmp_path / "run"
    run.write_text("q1 Q0 a 1 3 r\n")
    code, out, err = run_cli(["-m", "map", qrels, run])
    assert (code, out) == (0, "map                   \tall\t1.0000\n")
    assert err == (f"irmetrics: warning: {qrels}, line 3: document 'b' appears twice for query "
                   "'q2' (lines 2 and 3); trec_eval does not look at it, and neither does "
                   "irmetrics: its query is not evaluated\n")
    # evaluated (in the run, or scored as missing with -c): an error
    code, out, err = run_cli(["-c", "-m", "map", qrels, run])
    assert (code, out) == (2, "")
    assert "line 3: document 'b' appears twice for query 'q2' (lines 2 and 3)" in err
    run.write_text("q1 Q0 a 1 3 r\nq2 Q0 b 1 3 r\n")
    with pytest.raises(DuplicateEntryError):
        evaluate(str(qrels), str(run), ["map"])
    with pytest.raises(DuplicateEntryError):  # a Qrels object holds no duplicates
        Qrels.from_trec(str(qrels))


def test_a_long_line_is_an_error_with_workers_too(tmp_path):
    # the cutting of the file for the workers reads lines in bounded memory
    from irmetrics._parallel import _job_ranges

    run = tmp_path / "run"
    run.write_bytes(b"q1 Q0 d1 1 0.5 r\n" + b"x" * (MAX_LINE + 10))
    assert _job_ranges(str(run), 2) == [(0, run.stat().st_size)]
    with pytest.raises(TrecFormatError, match="line 2: line is longer than 16 MiB"):
        evaluate({"q1": {"d1": 1}}, str(run), ["map"], workers=2)


def test_a_stream_of_an_ungrouped_run_raises_a_library_error():
    # Found by the fuzzer above: iterating RunStream directly over a run whose
    # query comes back after another raised RunNotGrouped, a bare Exception.
    data = b"0 q1 q1 q1 0 q1\nq1 q1 q1 q1 0 q1\n0 q1 q1 q1 0 q1"
    with pytest.raises(IrmetricsError, match="query '0' appears again on line 3"):
        list(RunStream(io.BytesIO(data), chunk_size=5))
