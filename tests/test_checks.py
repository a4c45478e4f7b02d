"""Tests for irmetrics._checks: the argument validation every function shares."""

import math
import re
from fractions import Fraction

import pytest

from irmetrics import _checks
from irmetrics.errors import InvalidArgumentError, InvalidLabelError, IrmetricsError

np = pytest.importorskip("numpy")


# === Error hierarchy =========================================================


def test_error_classes_refine_value_error():
    assert issubclass(IrmetricsError, ValueError)
    assert issubclass(InvalidArgumentError, IrmetricsError)
    assert issubclass(InvalidLabelError, InvalidArgumentError)


# === check_labels ============================================================


def test_check_labels_returns_a_new_list():
    given = [1, 0, None, 2.5]
    out = _checks.check_labels(given)
    assert out == [1, 0, None, 2.5]
    assert out is not given
    out.append(7)
    assert given == [1, 0, None, 2.5]


@pytest.mark.parametrize(
    "given",
    [(1, 0, 2), iter([1, 0, 2]), (x for x in [1, 0, 2]), range(1, -1, -1)],
    ids=["tuple", "iterator", "generator", "range"],
)
def test_check_labels_accepts_any_iterable(given):
    expected = [1, 0, 2] if not isinstance(given, range) else [1, 0]
    assert _checks.check_labels(given) == expected


def test_check_labels_coerces_numpy_scalars_to_builtins():
    out = _checks.check_labels(np.array([1, 0, 3], dtype=np.int64))
    assert out == [1, 0, 3]
    assert all(type(x) is int for x in out)
    out = _checks.check_labels(np.array([1.5, 0.0], dtype=np.float64))
    assert out == [1.5, 0.0]
    assert all(type(x) is float for x in out)
    out = _checks.check_labels(np.array([1, None, 2], dtype=object))
    assert out == [1, None, 2]


def test_check_labels_coerces_fraction_to_float():
    out = _checks.check_labels([Fraction(1, 2)])
    assert out == [0.5] and type(out[0]) is float


@pytest.mark.parametrize(
    "bad, shown",
    [
        (-1, "-1"),
        (-0.5, "-0.5"),
        (float("nan"), "nan"),
        (float("inf"), "inf"),
        ("a", "'a'"),
        (np.float64("nan"), "nan"),
        (np.int64(-3), "-3"),
        ([1], "[1]"),
    ],
)
def test_check_labels_rejects_bad_label_naming_position(bad, shown):
    with pytest.raises(InvalidLabelError, match=r"labels\[2\] \(rank 3\)") as info:
        _checks.check_labels([1, 0, bad, 1])
    assert shown in str(info.value)
    assert info.value.position == 2


def test_check_labels_uses_the_argument_name():
    with pytest.raises(InvalidLabelError, match=r"ideal\[0\] \(rank 1\)"):
        _checks.check_labels([-2], "ideal")


@pytest.mark.parametrize("bad", ["102", b"12", 5, None, 2.0])
def test_check_labels_rejects_non_iterables_and_strings(bad):
    with pytest.raises(InvalidArgumentError, match="'labels' must be an iterable"):
        _checks.check_labels(bad)


# === check_k =================================================================


def test_check_k_accepts_positive_ints():
    assert _checks.check_k(1) == 1
    assert _checks.check_k(np.int64(7)) == 7 and type(_checks.check_k(np.int64(7))) is int
    assert _checks.check_k(None) is None


@pytest.mark.parametrize(
    "bad, shown",
    [(0, "(got 0)"), (-1, "(got -1)"), (True, "(got bool True)"), (2.0, "(got float 2.0)"),
     ("3", "(got str '3')")],
)
def test_check_k_rejects(bad, shown):
    with pytest.raises(InvalidArgumentError) as info:
        _checks.check_k(bad)
    assert str(info.value) == "'k' must be a positive int " + shown


def test_check_k_required():
    with pytest.raises(InvalidArgumentError, match=r"'k' must be a positive int \(got None\)"):
        _checks.check_k(None, optional=False)


# === numbers =================================================================


def test_check_positive_real():
    assert _checks.check_positive_real(2, "beta") == 2.0
    for bad in (0, -1.0, math.inf, math.nan, True, "1"):
        with pytest.raises(InvalidArgumentError, match="'beta'"):
            _checks.check_positive_real(bad, "beta")


def test_check_rel_keeps_ints_and_rejects_zero():
    assert _checks.check_rel(2) == 2 and type(_checks.check_rel(2)) is int
    assert _checks.check_rel(0.5) == 0.5
    with pytest.raises(InvalidArgumentError, match=r"'rel'.*\(got 0\)"):
        _checks.check_rel(0)


@pytest.mark.parametrize("bad", [0, 1, 1.5, -0.1, math.nan, True])
def test_check_probability_rejects(bad):
    with pytest.raises(InvalidArgumentError, match=r"'p' must be a number in \(0, 1\)") as info:
        _checks.check_probability(bad)
    assert repr(bad) in str(info.value)


def test_check_probability_accepts_inside():
    assert _checks.check_probability(0.5) == 0.5


@pytest.mark.parametrize("interval, inside, outside", [
    ("[0, 1]", [0, 1, 0.5], [-0.1, 1.5, math.nan]),
    ("(0, 1]", [1, 0.5], [0, 1.5]),
])
def test_check_probability_closed_ends(interval, inside, outside):
    for v in inside:
        assert _checks.check_probability(v, "alpha", interval) == v
    for v in outside:
        with pytest.raises(InvalidArgumentError, match=re.escape(
                f"'alpha' must be a number in {interval} (got {v!r})")):
            _checks.check_probability(v, "alpha", interval)
    with pytest.raises(InvalidArgumentError, match=re.escape("(got str '1')")):
        _checks.check_probability("1", "alpha", interval)


def test_check_list():
    assert _checks.check_list((1, 2), "x", "a sequence") == [1, 2]
    assert _checks.check_list(iter([3]), "x", "a sequence") == [3]
    for bad, kind in (("ab", "str"), (b"ab", "bytes"), (5, "int")):
        with pytest.raises(InvalidArgumentError, match=re.escape(
                f"'x' must be a sequence (got {kind})")):
            _checks.check_list(bad, "x", "a sequence")
    with pytest.raises(UnorderedRankingError, match="^'x' must be numbers in order, not a set"):
        _checks.check_list({1, 2}, "x", "a sequence", "numbers in order")


def test_check_n_relevant():
    assert _checks.check_n_relevant(None, 3) == 3
    assert _checks.check_n_relevant(5, 3) == 5
    with pytest.raises(
        InvalidArgumentError,
        match=re.escape("'n_relevant' must be at least the number of relevant labels given, 3 (got 2)"),
    ):
        _checks.check_n_relevant(2, 3)
    for bad in (2.0, True, "4"):
        with pytest.raises(InvalidArgumentError, match="'n_relevant' must be a non-negative int"):
            _checks.check_n_relevant(bad, 0)


def test_check_int():
    assert _checks.check_int(4, "n_nonrelevant", 2) == 4
    with pytest.raises(InvalidArgumentError, match=r"'n_nonrelevant' must be an int >= 2 \(got 1\)"):
        _checks.check_int(1, "n_nonrelevant", 2)
    with pytest.raises(InvalidArgumentError, match=r"\(got bool True\)"):
        _checks.check_int(True, "n_nonrelevant", 0)


def test_check_labels_reads_bools_as_a_relevance_mask():
    # True and False are Python (and numpy) integers: 1 and 0, as plain ints.
    got = _checks.check_labels([True, False, np.bool_(True), np.bool_(False)])
    assert got == [1, 0, 1, 0]
    assert all(type(x) is int for x in got)


def test_errors_survive_pickling():
    # Errors cross process boundaries (evaluate(workers=...), multiprocessing
    # users): each must come back equal in type, message and attributes.
    import pickle

    from irmetrics.errors import DuplicateEntryError, TrecFormatError, UnknownMeasureError

    cases = [
        InvalidLabelError("labels[2] (rank 3) must be ...", 2),
        UnknownMeasureError("ndgc", ["ndcg"]),
        TrecFormatError("score must be a number (got 'x')", "run.txt", 7),
        DuplicateEntryError("run.txt", 3, 9, "q1", "d1"),
    ]
    for exc in cases:
        back = pickle.loads(pickle.dumps(exc))
        assert type(back) is type(exc) and str(back) == str(exc)
        assert vars(back) == vars(exc)


# === Rankings are ordered (issue 18, finding 9) ==============================

import collections  # noqa: E402
import types  # noqa: E402

import irmetrics  # noqa: E402
from irmetrics.errors import UnorderedRankingError  # noqa: E402

# Every public function taking labels: (function, extra positional args).
LABEL_FUNCTIONS = [
    (irmetrics.precision_at_k, (2,)), (irmetrics.recall_at_k, (2,)),
    (irmetrics.average_precision, ()), (irmetrics.reciprocal_rank, ()),
    (irmetrics.r_precision, ()), (irmetrics.success_at_k, (2,)),
    (irmetrics.judged_at_k, ()), (irmetrics.dcg, ()), (irmetrics.ndcg, ()),
    (irmetrics.err, ()), (irmetrics.rbp, ()), (irmetrics.rbp_residual, ()),
    (irmetrics.unjudged_at_k, ()), (irmetrics.bpref, ()),
    (irmetrics.inferred_ap, ()), (irmetrics.interpolated_precision, (0.5,)),
    (irmetrics.eleven_point_average, ()), (irmetrics.r_precision_multiple, (2.0,)),
    (irmetrics.f_measure, ()), (irmetrics.kendall_tau_weighted, ()),
    (irmetrics.compatibility, ()), (irmetrics.accuracy, ()),
]


def unordered_containers():
    # ndcg({0: 1, 1: 0, 2: 2}) used to score the keys 0, 1, 2; a set is
    # iterated in hash order; a Counter or a dict view is no ranking either.
    d = {"d1": 1, "d2": 0, "d3": 2}
    return {
        "set": {1, 0, 2},
        "frozenset": frozenset({1, 0, 2}),
        "dict": {0: 1, 1: 0, 2: 2},
        "ordered dict": collections.OrderedDict(d),
        "counter": collections.Counter([1, 1, 0, 2]),
        "mappingproxy": types.MappingProxyType(d),
        "keys": d.keys(),
        "values": d.values(),
        "items": d.items(),
    }


def test_every_public_label_function_is_listed():
    # A new metric function must be added to LABEL_FUNCTIONS (and so refuse sets).
    listed = {f.__name__ for f, _ in LABEL_FUNCTIONS}
    assert set(irmetrics.metrics.__all__) | {"kendall_tau_weighted"} == listed


@pytest.mark.parametrize("kind", sorted(unordered_containers()))
@pytest.mark.parametrize("fn, args", LABEL_FUNCTIONS, ids=lambda x: getattr(x, "__name__", ""))
def test_unordered_rankings_are_refused(fn, args, kind):
    given = unordered_containers()[kind]
    with pytest.raises(UnorderedRankingError, match=r"^'labels' must be a sequence of relevance "
                       r"labels in rank order \(a list or tuple, rank 1 first\), not a ") as info:
        fn(given, *args)
    # Both the library's error (a ValueError) and a TypeError.
    assert isinstance(info.value, TypeError)
    assert isinstance(info.value, InvalidArgumentError)
    assert isinstance(info.value, ValueError)


def test_unordered_ranking_messages_say_what_to_pass():
    with pytest.raises(UnorderedRankingError, match=r"not a set, which has no order .*"
                       r"pass a list in rank order, e\.g\. list\(\.\.\.\) of the ranking "
                       r"or sorted\(\.\.\.\) by rank$"):
        irmetrics.ndcg({1, 0, 2})
    with pytest.raises(UnorderedRankingError, match=r"not a dict \(iterating it gives its keys\); "
                       r"pass the values in rank order, e\.g\. \[d\[doc\] for doc in ranking\], "
                       r"or list\(d\.values\(\)\) if the mapping is in rank order$"):
        irmetrics.ndcg({0: 1, 1: 0, 2: 2})
    with pytest.raises(UnorderedRankingError, match=r"not a dict_values view"):
        irmetrics.ndcg({"a": 1}.values())
    with pytest.raises(UnorderedRankingError, match=r"'ideal' must be a sequence .* not a set"):
        irmetrics.ndcg([1, 0], ideal={1, 2})


def test_a_dataframe_gets_a_hint_and_a_series_is_a_sequence():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"rank": [2, 1], "label": [0, 1]})
    with pytest.raises(UnorderedRankingError, match=r"not a pandas DataFrame \(iterating it gives "
                       r"its column names\); pass one column in rank order, e\.g\. "
                       r"df\.sort_values\('rank'\)\['label'\]\.tolist\(\)"):
        irmetrics.precision_at_k(df, 1)
    # One column, in rank order, is a sequence: labels 1, 0 -> P@1 = 1.
    assert irmetrics.precision_at_k(df.sort_values("rank")["label"], 1) == 1.0
    assert irmetrics.precision_at_k(df.sort_values("rank")["label"].tolist(), 1) == 1.0


@pytest.mark.parametrize("module, hint", [("pandas.core.frame", r"\.tolist\(\)"),
                                          ("polars.dataframe.frame", r"\.to_list\(\)")])
def test_dataframes_are_recognised_without_importing_their_library(module, hint):
    # By the module and name of their type (polars need not be installed).
    frame = type("DataFrame", (), {"__module__": module, "__iter__": lambda s: iter(["label"])})
    root = module.split(".")[0]
    with pytest.raises(UnorderedRankingError, match=rf"not a {root} DataFrame .*{hint}"):
        _checks.check_labels(frame())


@pytest.mark.parametrize(
    "given",
    [lambda: [2, 0, 1], lambda: (2, 0, 1), lambda: (x for x in [2, 0, 1]),
     lambda: iter([2, 0, 1]), lambda: collections.deque([2, 0, 1]), lambda: range(2, -1, -1)],
    ids=["list", "tuple", "generator", "iterator", "deque", "range"],
)
def test_iterables_in_rank_order_keep_working(given):
    # labels 2, 0, 1 (range: 2, 1, 0): P@2 = 1/2 and 1.
    expected = 1.0 if isinstance(given(), range) else 0.5
    assert irmetrics.precision_at_k(given(), 2) == expected
