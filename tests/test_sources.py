"""One road: the same qrels and run, given as every kind of source, in one
process or two, give identical per-query values and aggregates."""

import gzip
import io
import os
import threading
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies_runs import qrels_and_runs

from irmetrics import Qrels, Run, evaluate
from irmetrics._parallel import parallel_possible
from irmetrics.sources import open_run
from irmetrics.trec import write_qrels, write_run

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


def run_text(run, tag="r"):
    out = io.StringIO()
    write_run(run, out, name=tag)
    return out.getvalue()


def shuffled(text, seed):
    """The same lines in another order: the run is no longer grouped by query."""
    lines = text.splitlines(keepends=True)
    return "".join(sorted(lines, key=lambda line: hash((seed, line))))


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
        "pipe (standard input)": lambda: PipeReader(text.encode("utf-8")),
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
