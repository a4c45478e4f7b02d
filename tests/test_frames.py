"""irmetrics.frames: DataFrames in (pandas, polars, pyarrow), tables and HTML out.

The reference for every frame input is the same data given as a dict of
dicts or read from a TREC file: results must be identical, not close.
"""

import html
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from oracles import require

import irmetrics
from irmetrics import (
    DuplicateEntryError,
    InvalidArgumentError,
    Qrels,
    Run,
    TrecFormatError,
    compare,
    evaluate,
    frames,
)

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "docs" / "examples"
QRELS = str(EXAMPLES / "qrels.txt")
BM25 = str(EXAMPLES / "bm25.run")
RERANK = str(EXAMPLES / "rerank.run")
MEASURES = ["map", "P@5", "nDCG@10", "num_rel_ret", "gm_map", "bpref"]


@pytest.fixture(scope="module")
def pd():
    return require("pandas")


@pytest.fixture(scope="module")
def pl():
    return require("polars")


@pytest.fixture(scope="module")
def pa():
    return require("pyarrow")


def qrels_frame(pd, path=QRELS, **names):
    cols = ["query_id", "iteration", "doc_id", "relevance"]
    cols = [names.get(c, c) for c in cols]
    return pd.read_csv(path, sep=r"\s+", header=None, names=cols,
                       dtype={cols[0]: str, cols[2]: str})


def run_frame(pd, path=BM25, **names):
    cols = ["query_id", "Q0", "doc_id", "rank", "score", "tag"]
    cols = [names.get(c, c) for c in cols]
    return pd.read_csv(path, sep=r"\s+", header=None, names=cols,
                       dtype={cols[0]: str, cols[2]: str})


# === Recognising frames =======================================================


def test_is_frame_knows_the_three_libraries_and_nothing_else(pd, pl, pa):
    df = pd.DataFrame({"a": [1]})
    assert frames.is_frame(df)
    assert frames.is_frame(pl.DataFrame({"a": [1]}))
    assert frames.is_frame(pa.table({"a": [1]}))
    assert frames.is_frame(df["a"])          # a Series: recognised, to be refused with a hint

    class MyFrame(pd.DataFrame):             # a subclass defined elsewhere (PyTerrier-style)
        pass

    assert frames.is_frame(MyFrame({"a": [1]}))
    for other in ({"q": {"d": 1}}, [("q", "d", 1)], "qrels.txt", None, 3):
        assert not frames.is_frame(other)


# === DataFrames in: identical to dicts and TREC files ========================


def test_pandas_frames_give_the_trec_files_objects(pd):
    assert Qrels(qrels_frame(pd)) == Qrels.from_trec(QRELS)
    assert Run(run_frame(pd), name="bm25") == Run.from_trec(BM25)
    assert Qrels.from_dataframe(qrels_frame(pd)) == Qrels.from_trec(QRELS)
    assert Run.from_dataframe(run_frame(pd), name="bm25") == Run.from_trec(BM25)
    # from_records takes a frame too, by its columns
    assert Qrels.from_records(qrels_frame(pd)) == Qrels.from_trec(QRELS)
    assert Run.from_records(run_frame(pd), name="bm25") == Run.from_trec(BM25)


def test_polars_and_pyarrow_frames_give_the_same_objects(pd, pl, pa):
    q, r = qrels_frame(pd), run_frame(pd)
    expected_q, expected_r = Qrels.from_trec(QRELS), Run.from_trec(BM25)
    for convert in (pl.from_pandas, lambda df: pa.Table.from_pandas(df, preserve_index=False),
                    lambda df: pa.RecordBatch.from_pandas(df, preserve_index=False)):
        assert Qrels(convert(q)) == expected_q
        assert Run(convert(r), name="bm25") == expected_r


def test_evaluate_with_frames_equals_evaluate_with_dicts_and_files(pd, pl, pa):
    by_file = evaluate(QRELS, BM25, MEASURES)
    by_dict = evaluate(Qrels.from_trec(QRELS).to_dict(), Run.from_trec(BM25).to_dict(), MEASURES)
    q, r = qrels_frame(pd), run_frame(pd)
    inputs = [(q, r), (pl.from_pandas(q), pl.from_pandas(r)),
              (pa.Table.from_pandas(q), pa.Table.from_pandas(r)), (q, pl.from_pandas(r))]
    for qrels, run in inputs:
        got = evaluate(qrels, run, MEASURES)
        assert got.per_query == by_file.per_query == by_dict.per_query
        assert got.aggregate == by_dict.aggregate == by_file.aggregate


def test_compare_with_frames_equals_compare_with_files(pd, pl):
    measures = ["map", "P@5", "nDCG@10"]
    by_file = compare(QRELS, {"bm25": BM25, "rerank": RERANK}, measures)
    got = compare(qrels_frame(pd), {"bm25": run_frame(pd), "rerank": pl.from_pandas(run_frame(pd, RERANK))},
                  measures)
    assert got.rows == by_file.rows
    assert got.per_query == by_file.per_query


def test_evaluate_options_apply_to_frames_as_to_dicts(pd):
    q, r = qrels_frame(pd), run_frame(pd)
    options = dict(relevance_level=2, complete=True, depth=5, judged_only=True)
    assert (evaluate(q, r, MEASURES, **options).per_query
            == evaluate(QRELS, BM25, MEASURES, **options).per_query)


def test_frames_are_not_changed(pd):
    r = run_frame(pd)
    before = r.copy()
    Run(r)
    evaluate(qrels_frame(pd), r, ["map"])
    assert r.equals(before)


# === Columns ==================================================================


def test_pyterrier_names_in_any_order_extra_columns_ignored(pd):
    # PyTerrier: qid, docno, label (qrels); qid, docid (Terrier's number), docno, rank, score
    q = pd.DataFrame({"label": [1, 0], "docno": ["d1", "d2"], "qid": ["q1", "q1"], "iteration": [0, 0]})
    assert Qrels(q) == {"q1": {"d1": 1, "d2": 0}}
    r = pd.DataFrame({"qid": ["q1", "q1"], "docid": [17, 4], "docno": ["d1", "d2"],
                      "rank": [0, 1], "score": [2.0, 1.0], "query": ["a b", "a b"]})
    assert Run(r).to_dict() == {"q1": {"d1": 2.0, "d2": 1.0}}   # docno, not docid


@pytest.mark.parametrize("names", [
    ("query_id", "doc_id", "relevance"), ("qid", "docno", "label"), ("qid", "docid", "rel"),
])
def test_every_documented_name_is_found(pd, names):
    q = pd.DataFrame({names[0]: ["q1"], names[1]: ["d1"], names[2]: [2]})
    assert Qrels(q) == {"q1": {"d1": 2}}


# Two names of one role in the same rows, with different values: (role, the
# name that wins, the one that loses, the winner's value, the loser's).
# The order of irmetrics.frames' *_COLUMNS tables.
RIVALS = [
    ("query_id", "query_id", "qid", "A", "B"),
    ("doc_id", "doc_id", "docno", "A", "B"),
    ("doc_id", "docno", "docid", "A", "B"),    # PyTerrier: docid is Terrier's number
    ("relevance", "relevance", "label", 2, 0),
    ("relevance", "relevance", "rel", 2, 0),
    ("relevance", "label", "rel", 2, 0),
]


def rival_rows(role, winner, loser, won, lost, value="relevance"):
    """Two rows holding both names of *role* (each other role under its first
    name, the value under *value*), and {qid: {docid: value}} by the winner."""
    rows, expected = [], {}
    for i in range(2):
        row = {"query_id": "q", "doc_id": f"d{i}", value: 1}
        del row[role]
        tail = str(i) if role == "doc_id" else ""   # two documents, not one twice
        row[winner], row[loser] = (f"{won}{tail}", f"{lost}{tail}") if tail else (won, lost)
        picked = {**row, role: row[winner]}
        expected.setdefault(picked["query_id"], {})[picked["doc_id"]] = picked[value]
        rows.append(row)
    return rows, expected


@pytest.mark.parametrize("rivals", RIVALS, ids=lambda r: f"{r[1]}-over-{r[2]}")
def test_one_column_precedence_for_records_and_every_frame(pd, pl, pa, rivals):
    # issue 42: a frame with both label and rel used label, the same rows as
    # records used rel. Every road takes the first name of the table.
    rows, expected = rival_rows(*rivals)
    assert Qrels.from_records(rows) == expected
    assert Qrels(pd.DataFrame(rows)) == expected
    assert Qrels(pl.DataFrame(rows)) == expected
    assert Qrels(pa.Table.from_pylist(rows)) == expected
    if rivals[0] != "relevance":   # the run's ids too
        runs, scored = rival_rows(*rivals, value="score")
        assert Run.from_records(runs) == scored
        assert Run(pd.DataFrame(runs)) == scored
        assert Run(pl.DataFrame(runs)) == scored
        assert Run(pa.Table.from_pylist(runs)) == scored


def test_the_precedence_table_is_the_documented_one():
    # what the module's docstring and docs/guides/pandas.md say, in order
    assert frames.QUERY_COLUMNS == ("query_id", "qid")
    assert frames.DOC_COLUMNS == ("doc_id", "docno", "docid")
    assert frames.RELEVANCE_COLUMNS == ("relevance", "label", "rel")
    assert frames.SCORE_COLUMNS == ("score",)
    assert {(r[0], r[1], r[2]) for r in RIVALS} >= {
        (role, a, b)
        for role, names in (("query_id", frames.QUERY_COLUMNS), ("doc_id", frames.DOC_COLUMNS),
                            ("relevance", frames.RELEVANCE_COLUMNS))
        for a, b in zip(names, names[1:])
    }


def test_columns_mapping_names_other_columns(pd, pl):
    df = pd.DataFrame({"topic": ["1", "1"], "pid": ["a", "b"], "grade": [3, 0], "qid": ["x", "x"]})
    # columns= wins over the usual names (qid is present but not the query id here)
    assert Qrels.from_dataframe(df, columns={"query_id": "topic", "doc_id": "pid",
                                             "relevance": "grade"}) == {"1": {"a": 3, "b": 0}}
    runs = pl.DataFrame({"q": ["1"], "doc_id": ["a"], "sim": [0.5]})
    run = Run.from_dataframe(runs, columns={"query_id": "q", "score": "sim"}, name="x")
    assert run.to_dict() == {"1": {"a": 0.5}} and run.name == "x"


def test_columns_mapping_errors(pd):
    df = pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "score": [1.0]})
    with pytest.raises(InvalidArgumentError, match=r"^'columns' key 'relevance' is not a role of run; the roles are 'query_id', 'doc_id', 'score'$"):
        Run.from_dataframe(df, columns={"relevance": "score"})
    with pytest.raises(InvalidArgumentError, match=r"^columns\['score'\] is 'sim', which the pandas DataFrame given as 'run' does not have \(its columns: 'query_id', 'doc_id', 'score'\)$"):
        Run.from_dataframe(df, columns={"score": "sim"})
    with pytest.raises(InvalidArgumentError, match=r"^'columns' must be a mapping"):
        Run.from_dataframe(df, columns=["query_id"])


def test_no_usable_columns_lists_what_was_seen_and_looked_for(pd):
    df = pd.DataFrame({"topic": ["1"], "doc": ["a"], "sim": [1.0]})
    with pytest.raises(InvalidArgumentError) as info:
        Run(df)
    assert str(info.value) == (
        "the pandas DataFrame given as 'run' has no query_id and no doc_id and no score column "
        "(its columns: 'topic', 'doc', 'sim'); looked for query_id: 'query_id' or 'qid'; "
        "doc_id: 'doc_id' or 'docno' or 'docid'; score: 'score'; name the columns with "
        "columns={'query_id': ..., 'doc_id': ..., 'score': ...}"
    )
    assert isinstance(info.value, ValueError)
    # a qrels frame handed over as a run: no score column
    with pytest.raises(InvalidArgumentError, match=r"has no score column \(its columns: 'query_id', 'doc_id', 'relevance'\)"):
        evaluate({"1": {"a": 1}}, pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "relevance": [1]}), "map")


def test_ids_in_the_index_get_a_hint(pd):
    df = pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "score": [1.0]}).set_index("query_id")
    with pytest.raises(InvalidArgumentError, match=r"the index holds some of them: call \.reset_index\(\) first$"):
        Run(df)


def test_duplicate_column_names_are_an_error(pd):
    df = pd.DataFrame([["1", "a", 1.0, 2.0]], columns=["query_id", "doc_id", "score", "score"])
    with pytest.raises(InvalidArgumentError, match=r"has two columns named 'score'$"):
        Run(df)


def test_series_and_lazy_frames_say_what_to_pass(pd, pl):
    with pytest.raises(InvalidArgumentError, match=r"^'run' is a pandas Series: a single column has no query and document ids; pass the whole DataFrame"):
        Run(pd.Series([1.0, 2.0]))
    with pytest.raises(InvalidArgumentError, match=r"^'qrels' is a polars LazyFrame: call \.collect\(\) on it first$"):
        evaluate(pl.LazyFrame({"query_id": ["1"]}), {"1": {"a": 1.0}}, "map")


# === Ids ======================================================================


def test_integer_id_columns_become_decimal_strings(pd, pl, pa):
    data = {"query_id": [7, 7, 301], "doc_id": [1, 20, 3], "relevance": [1, 0, 2]}
    expected = {"7": {"1": 1, "20": 0}, "301": {"3": 2}}
    assert Qrels(pd.DataFrame(data)) == expected
    assert Qrels(pl.DataFrame(data)) == expected
    assert Qrels(pa.table(data)) == expected
    # and the same as the TREC file that says the same
    import io
    assert Qrels(pd.DataFrame(data)) == Qrels.from_trec(io.StringIO("7 0 1 1\n7 0 20 0\n301 0 3 2\n"))


def test_string_ids_are_kept_as_they_are(pd, pl, pa):
    data = {"query_id": ["007", "007"], "doc_id": ["0042", " x"], "score": [1.0, 2.0]}
    for frame in (pd.DataFrame(data), pl.DataFrame(data), pa.table(data)):
        assert Run(frame).to_dict() == {"007": {"0042": 1.0, " x": 2.0}}


def test_mixed_object_id_column_is_converted_value_by_value(pd):
    df = pd.DataFrame({"query_id": pd.Series(["q1", 2], dtype=object), "doc_id": ["a", "b"],
                       "relevance": [1, 1]})
    assert Qrels(df) == {"q1": {"a": 1}, "2": {"b": 1}}


def test_float_and_missing_ids_are_errors_naming_the_row(pd):
    df = pd.DataFrame({"query_id": [1.0, 2.0], "doc_id": ["a", "b"], "relevance": [1, 1]})
    with pytest.raises(TrecFormatError) as info:
        Qrels(df)
    assert str(info.value) == ("<pandas DataFrame>, line 1: query id (column 'query_id') must be "
                               "a str or an int (got float 1.0)")
    assert info.value.line == 1
    df = pd.DataFrame({"query_id": ["1", None], "doc_id": ["a", "b"], "score": [1.0, 1.0]})
    with pytest.raises(TrecFormatError, match=r"^<pandas DataFrame>, line 2: query id \(column 'query_id'\) must be a str or an int"):
        Run(df)


# === Values ===================================================================


def test_integral_float_labels_are_accepted_and_others_refused(pd, pl):
    assert Qrels(pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "label": [1.0, 0.0]})) == {"1": {"a": 1, "b": 0}}
    assert Qrels(pl.DataFrame({"qid": ["1"], "docno": ["a"], "label": [2.0]}))["1"]["a"] == 2
    bad = pd.DataFrame({"qid": ["1", "1", "1"], "docno": ["a", "b", "c"], "label": [1.0, 0.5, 1.0]})
    with pytest.raises(TrecFormatError) as info:
        Qrels(bad)
    assert str(info.value) == ("<pandas DataFrame>, line 2: relevance (column 'label') must be "
                               "an int (got float 0.5)")
    nan = pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "label": [1.0, float("nan")]})
    with pytest.raises(TrecFormatError, match=r"^<pandas DataFrame>, line 2: relevance \(column 'label'\) must be an int \(got float nan\)$"):
        Qrels(nan)
    with pytest.raises(TrecFormatError, match=r"line 1: relevance \(column 'label'\) must be an int, not a bool"):
        Qrels(pd.DataFrame({"qid": ["1"], "docno": ["a"], "label": [True]}))


def test_labels_out_of_range_are_refused_naming_the_row(pd, pl, pa):
    # issue 42: 2**40 went in from a frame, refused from dicts and files. The
    # range is trec_eval's (a C int): -2**31 to 2**31 - 1.
    top, bottom = 2**31 - 1, -(2**31)
    ok = {"qid": ["1", "1"], "docno": ["a", "b"], "label": [top, bottom]}
    for make in (pd.DataFrame, pl.DataFrame, pa.table):
        assert Qrels(make(ok)) == {"1": {"a": top, "b": bottom}}
    reason = "must be between -2147483648 and 2147483647"
    for big in (2**40, top + 1, bottom - 1):
        data = {"qid": ["1", "1", "1"], "docno": ["a", "b", "c"], "label": [1, big, 0]}
        for make, source in ((pd.DataFrame, "pandas DataFrame"), (pl.DataFrame, "polars DataFrame"),
                             (pa.table, "pyarrow Table")):
            with pytest.raises(TrecFormatError) as info:
                Qrels(make(data))
            assert str(info.value) == (
                f"<{source}>, line 2: relevance (column 'label') {reason} (got {big})"
            )
            assert info.value.line == 2
        # the same value from records (the row's index), dicts and files is refused too
        with pytest.raises(TrecFormatError, match=rf"^<records>, line 2: relevance {reason}"):
            Qrels.from_records(list(zip(data["qid"], data["docno"], data["label"])))
    # integral floats (a label column with a missing value, filled) too
    floats = pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "label": [1.0, 2.0**40]})
    with pytest.raises(TrecFormatError) as info:
        Qrels(floats)
    assert str(info.value) == f"<pandas DataFrame>, line 2: relevance (column 'label') {reason} (got 1099511627776)"


def test_scores_finite_or_infinite_not_nan(pd, pa):
    inf = float("inf")
    df = pd.DataFrame({"qid": ["1", "1", "1"], "docno": ["a", "b", "c"], "score": [inf, -inf, 3]})
    assert Run(df).to_dict() == {"1": {"a": inf, "b": -inf, "c": 3.0}}
    ints = pd.DataFrame({"qid": ["1"], "docno": ["a"], "score": [3]})
    assert type(Run(ints)["1"]["a"]) is float
    nan = pa.table({"qid": ["1", "1"], "docno": ["a", "b"], "score": [1.0, float("nan")]})
    with pytest.raises(TrecFormatError) as info:
        Run(nan)
    assert str(info.value) == "<pyarrow Table>, line 2: score (column 'score') must not be NaN"
    strings = pd.DataFrame({"qid": ["1"], "docno": ["a"], "score": ["0.5"]})
    with pytest.raises(TrecFormatError, match=r"line 1: score \(column 'score'\) must be a real number \(got str '0.5'\)"):
        Run(strings)


def test_duplicates_name_both_rows(pd, pl):
    df = pd.DataFrame({"qid": ["1", "1", "2", "1"], "docno": ["a", "b", "a", "a"], "score": [1.0, 2.0, 3.0, 4.0]})
    for frame, source in ((df, "<pandas DataFrame>"), (pl.from_pandas(df), "<polars DataFrame>")):
        with pytest.raises(DuplicateEntryError) as info:
            Run(frame)
        assert str(info.value) == f"{source}, line 4: document 'a' appears twice for query '1' (lines 1 and 4)"
        assert (info.value.first_line, info.value.line, info.value.qid, info.value.docid) == (1, 4, "1", "a")
    # within one block of rows, too; and an int id equal to a str id is the same id
    with pytest.raises(DuplicateEntryError, match=r"line 2: document '5' appears twice for query '1' \(lines 1 and 2\)"):
        Qrels(pd.DataFrame({"qid": ["1", "1"], "docno": pd.Series([5, "5"], dtype=object), "label": [1, 1]}))


def test_scattered_rows_of_a_query_are_gathered(pd):
    df = pd.DataFrame({"qid": ["1", "2", "1", "2"], "docno": ["a", "a", "b", "b"], "score": [1.0, 2.0, 3.0, 4.0]})
    assert Run(df).to_dict() == {"1": {"a": 1.0, "b": 3.0}, "2": {"a": 2.0, "b": 4.0}}


def test_empty_frame_gives_empty_objects(pd):
    df = pd.DataFrame({"query_id": pd.Series([], dtype=str), "doc_id": pd.Series([], dtype=str),
                       "score": pd.Series([], dtype=float)})
    assert len(Run(df)) == 0


def test_categorical_and_large_frames(pd, pl):
    df = pd.DataFrame({"qid": pd.Categorical(["1", "1"]), "docno": ["a", "b"], "label": [1, 0]})
    assert Qrels(df) == {"1": {"a": 1, "b": 0}}
    # 20,000 rows in 200 queries (a smoke test of the grouped path; timing is in the report)
    n = 20_000
    frame = pl.DataFrame({"qid": [i // 100 for i in range(n)], "docno": [f"d{i}" for i in range(n)],
                          "score": [float(i % 97) for i in range(n)]})
    run = Run(frame)
    assert len(run) == 200 and run.n_entries == n and run["7"]["d700"] == 700 % 97


# === Tables out ===============================================================


def test_evaluation_to_dataframe_pandas(pd):
    result = evaluate(QRELS, BM25, ["map", "P@5", "num_rel", "map"])
    df = result.to_dataframe()
    assert list(df.columns) == ["query_id", "map", "P@5", "num_rel"]   # as asked, once each
    assert df["query_id"].tolist() == list(result.per_query)
    for row in df.to_dict("records"):
        qid = row.pop("query_id")
        assert row == result.per_query[qid]
    assert str(df["num_rel"].dtype) == "int64" and str(df["map"].dtype) == "float64"
    agg = result.to_dataframe(aggregate=True)
    assert agg.to_dict("records") == [{"query_id": "all", **result.aggregate}]
    assert list(pd.concat([df, agg])["query_id"])[-1] == "all"


def test_evaluation_to_dataframe_polars(pl):
    result = evaluate(QRELS, BM25, ["nDCG@10", "num_ret"])
    df = result.to_dataframe(backend="polars")
    assert isinstance(df, pl.DataFrame)
    assert df.columns == ["query_id", "nDCG@10", "num_ret"]
    assert df.rows(named=True) == [{"query_id": q, **v} for q, v in result.per_query.items()]
    assert df.schema["num_ret"] == pl.Int64 and df.schema["query_id"] == pl.String
    agg = result.to_dataframe(backend="polars", aggregate=True)
    assert agg.rows(named=True) == [{"query_id": "all", **result.aggregate}]


def test_to_dataframe_argument_errors():
    result = evaluate(QRELS, BM25, ["map"])
    with pytest.raises(InvalidArgumentError, match=r"^'backend' must be one of 'pandas', 'polars' \(got 'arrow'\)$"):
        result.to_dataframe(backend="arrow")
    with pytest.raises(InvalidArgumentError, match=r"^'aggregate' must be a bool \(got 1\)$"):
        result.to_dataframe(aggregate=1)


def test_missing_library_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "polars", None)   # import polars now raises ImportError
    result = evaluate(QRELS, BM25, ["map"])
    with pytest.raises(ImportError, match=r"^Evaluation.to_dataframe\(\) needs polars, which is not installed: pip install 'irmetrics-eval\[polars\]'$"):
        result.to_dataframe(backend="polars")


def test_comparison_to_dataframe(pd, pl):
    result = compare(QRELS, {"bm25": BM25, "rerank": RERANK}, ["map", "P@5"])
    df = result.to_dataframe()
    assert len(df) == 4
    records = df.to_dict("records")
    for got, row in zip(records, result.rows):
        for key, value in row.items():
            if value is None:
                assert got[key] is None or pd.isna(got[key]), key
            else:
                assert got[key] == value, key
    rerank_map = df[(df["run"] == "rerank") & (df["measure"] == "map")].iloc[0]
    assert bool(rerank_map["significant"]) == result.row("rerank", "map")["significant"]
    polars_df = result.to_dataframe(backend="polars")
    assert polars_df.rows(named=True) == result.rows   # None stays null, ints stay ints


def test_comparison_row_keys_are_the_columns(pd):
    from irmetrics.compare import ROW_KEYS
    result = compare(QRELS, {"bm25": BM25, "rerank": RERANK}, "map")
    assert tuple(result.to_dataframe().columns) == ROW_KEYS


# === HTML and repr ============================================================


def test_repr_html_is_a_compact_table_of_the_aggregate():
    result = evaluate(QRELS, BM25, ["map", "P@5", "num_rel_ret"])
    text = result._repr_html_()
    assert text.startswith('<table class="irmetrics-evaluation"><caption>run &#x27;bm25&#x27;: 8 queries</caption>')
    cells = re.findall(r"<tr><td>(.*?)</td><td[^>]*>(.*?)</td></tr>", text)
    assert cells == [("map", f"{result['map']:.4f}"), ("P@5", f"{result['P@5']:.4f}"),
                     ("num_rel_ret", str(result["num_rel_ret"]))]
    assert "<p>" not in text   # nothing skipped or missing


def test_repr_html_escapes_names_and_counts_left_out_queries():
    qrels = {"<q1>": {"d": 1}, "q2": {"d": 1}, "q3": {"d": 1}}
    run = Run({"<q1>": {"d": 1.0}, "q9": {"d": 1.0}}, name="a&b<script>")
    with pytest.warns(irmetrics.IrmetricsWarning):
        result = evaluate(qrels, run, ["P@1"])
    text = result._repr_html_()
    assert "<script>" not in text and html.escape("'a&b<script>'") in text
    assert text.endswith("<p><small>1 run query without judgments skipped; "
                         "2 judged queries missing from the run, left out.</small></p>")
    assert "<caption>run &#x27;a&amp;b&lt;script&gt;&#x27;: 1 query</caption>" in text


def test_repr_shows_every_measure_up_to_eight_then_counts_the_rest():
    few = evaluate(QRELS, BM25, ["map", "P@5", "nDCG@10"])
    assert repr(few) == "Evaluation(8 queries: map=0.5541, P@5=0.6000, nDCG@10=0.5912)"
    names = [f"P@{k}" for k in range(1, 11)]
    many = evaluate(QRELS, BM25, names)
    text = repr(many)
    assert text.endswith(", ... and 2 more measures)")
    assert re.findall(r"(P@\d+)=", text) == names[:8]
    nine = evaluate(QRELS, BM25, names[:9])
    assert repr(nine).endswith(", ... and 1 more measure)")


# === The README's three lines =================================================


def test_readme_dataframe_block_runs_and_prints_what_it_shows(pd, monkeypatch):
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    m = re.search(r"<!-- example: dataframes -->\n```python\n(.*?)```", text, re.S)
    assert m, "README.md has no dataframes block"
    code = m.group(1)
    lines = [line for line in code.splitlines() if line.strip() and not line.startswith("#")]
    assert len(lines) == 3
    monkeypatch.chdir(ROOT)
    namespace = {}
    exec(compile(code, "README.md", "exec"), namespace)
    expected = evaluate(QRELS, BM25, ["map", "nDCG@10"]).to_dataframe()
    assert namespace["table"].equals(expected)


# === Imports: nothing heavy ===================================================


@pytest.mark.slow
def test_importing_frames_and_plot_imports_nothing_outside_the_standard_library():
    code = textwrap.dedent("""
        import sys
        before = set(sys.modules)
        import irmetrics, irmetrics.frames, irmetrics.plot
        from irmetrics import Qrels, Run, evaluate, frames
        frames.is_frame({}); frames.is_frame([("q", "d", 1)])
        Qrels({"q": {"d": 1}}); Run.from_records([("q", "d", 1.0)])
        evaluate(sys.argv[1], sys.argv[2], ["map", "nDCG@10"])._repr_html_()
        heavy = {"pandas", "polars", "pyarrow", "matplotlib", "numpy", "scipy"}
        new = {m.split(".")[0] for m in set(sys.modules) - before}
        stdlib = getattr(sys, "stdlib_module_names", None)
        bad = sorted(new & heavy) if stdlib is None else sorted(
            m for m in new if m not in stdlib and m != "irmetrics")
        print(bad)
    """)
    proc = subprocess.run([sys.executable, "-c", code, QRELS, BM25], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"



# === The guide's examples that are not code ===================================


def guide():
    return (ROOT / "docs" / "guides" / "notebooks.md").read_text(encoding="utf-8")


def test_guide_error_messages_are_the_real_ones(pd):
    shown = re.findall(r"<!-- example: frame errors -->\n```text\n(.*?)```", guide(), re.S)
    assert len(shown) == 2
    lines = "".join(shown).splitlines()
    got = []
    for make in (lambda: Run(pd.DataFrame({"qid": ["1"], "docno": ["a"], "sim": [0.5]})),
                 lambda: Run(pd.DataFrame({"qid": ["1", "1", "2", "1"], "docno": ["a", "b", "a", "a"],
                                           "score": [1.0, 2.0, 3.0, 4.0]})),
                 lambda: Qrels(pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "label": [1.0, 0.5]}))):
        with pytest.raises(ValueError) as info:
            make()
        got.append(str(info.value))
    assert lines == got


def test_guide_html_table_is_what_jupyter_shows():
    m = re.search(r'<!-- example: evaluation html -->\n<div class="notebook-output">\n(.*?)\n</div>', guide(), re.S)
    assert m, "docs/guides/notebooks.md has no evaluation html block"
    assert evaluate(QRELS, BM25, ["map", "P@5", "nDCG@10"])._repr_html_() == m.group(1)


# === Property: a frame is read as its rows are, as records =====================

ID = st.one_of(st.sampled_from(["q1", "q2", "007", "7", " x"]), st.integers(0, 9))
ROWS = st.lists(st.tuples(st.sampled_from(["1", "2", "3"]), st.sampled_from(["a", "b", "c", "d"]),
                          st.integers(-1, 3)), max_size=12)


def outcome(build):
    try:
        return ("ok", build())
    except DuplicateEntryError as exc:
        return ("duplicate", exc.first_line, exc.line, exc.qid, exc.docid)


@given(rows=ROWS)
def test_frame_equals_records_or_fails_on_the_same_rows(rows):
    pd = require("pandas")
    df = pd.DataFrame(rows, columns=["query_id", "doc_id", "relevance"])
    if not rows:
        df = df.astype({"query_id": str, "doc_id": str, "relevance": int})
    by_frame = outcome(lambda: Qrels(df))
    by_records = outcome(lambda: Qrels.from_records(rows))
    assert by_frame == by_records


@given(rows=st.lists(st.tuples(ID, ID, st.floats(allow_nan=False)), max_size=10))
def test_polars_run_equals_records_or_fails_on_the_same_rows(rows):
    pl = require("polars")
    # polars wants one type per column: the ids as str, as a TREC file gives them
    rows = [(str(q), str(d), s) for q, d, s in rows]
    frame = pl.DataFrame(rows, schema=[("query_id", pl.String), ("doc_id", pl.String), ("score", pl.Float64)],
                         orient="row")
    assert outcome(lambda: Run(frame)) == outcome(lambda: Run.from_records(rows))
