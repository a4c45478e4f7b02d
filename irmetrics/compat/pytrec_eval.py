"""pytrec_eval's API on irmetrics: ``from irmetrics.compat import pytrec_eval``.

The public names of pytrec-eval-terrier 0.5.11, with its results bit for bit:
:class:`RelevanceEvaluator` (the same measure names and nicknames, the same
result keys, scores stored in single precision, queries on one side only
left out, ``relevance_level`` and ``judged_docs_only_flag``),
:data:`supported_measures`, :data:`supported_nicknames`,
:func:`compute_aggregated_measure` (numpy's summation order, in pure Python),
:func:`parse_qrel` and :func:`parse_run`; and :func:`install`, which makes
``import pytrec_eval`` give this module to packages that import it
themselves (BEIR, MTEB).  Bad input raises the exception type pytrec_eval
raises; where pytrec_eval crashes or silently gives a wrong number, an
:class:`~irmetrics.errors.InvalidArgumentError` (a ``ValueError``) says why
(docs/from-pytrec-eval.md lists each case).

The module only translates: pytrec_eval's names to the registry's measures
(:mod:`irmetrics.measures`) and its dicts to :func:`irmetrics.evaluate`'s
road, whose values it returns under pytrec_eval's keys.

>>> from irmetrics.compat import pytrec_eval
>>> evaluator = pytrec_eval.RelevanceEvaluator({"q1": {"d1": 1, "d2": 0}}, {"map", "P.1,2"})
>>> evaluator.evaluate({"q1": {"d1": 0.5, "d2": 0.9}})
{'q1': {'map': 0.5, 'P_1': 0.0, 'P_2': 0.5}}
"""

from __future__ import annotations

import collections
import math
import re
import sys
from typing import Any, Dict, Iterable, Iterator, List, Mapping, Set, Tuple

from ..data import Qrels, Run
from ..errors import InvalidArgumentError
from ..evaluate import _evaluate
from ..evaluation import check_options
from ..measures import (
    _BY_TREC,
    FAMILIES,
    MIN_GEO_MEAN,
    TREC_GROUPS,
    Measure,
    expand_trec_argument,
    expand_trec_argument_named,
)

__version__ = "0.5.11"  # the pytrec-eval-terrier release whose API and results this follows
__all__ = ["parse_run", "parse_qrel", "supported_measures", "supported_nicknames",
           "RelevanceEvaluator", "compute_aggregated_measure", "install", "PytrecEvalTypeError"]

#: pytrec_eval's ``supported_measures``: the measures of trec_eval 9.0.8's
#: all_trec (it leaves out those that read preferences or judgment groups, and
#: yaap).
supported_measures: Set[str] = {m.family.key for m in expand_trec_argument("all_trec")}

#: trec_eval's nicknames (its groups), as pytrec_eval lists them; asking for
#: a preference or qrels_jg measure raises ``ValueError``, as pytrec_eval does.
supported_nicknames: Dict[str, Set[str]] = {
    **{group: set(keys) for group, keys in TREC_GROUPS.items()},
    "all_trec": set(supported_measures),
}

_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1
_TRAILING = re.compile(r"\s*")


class PytrecEvalTypeError(InvalidArgumentError, TypeError):
    """Input pytrec_eval refuses with a ``TypeError``: both that and an
    :class:`~irmetrics.errors.InvalidArgumentError`."""


# === Measure names ===========================================================


def _combined(measures: Iterable[str]) -> Dict[str, List[str]]:
    """pytrec_eval's reading of *measures*: nicknames expanded, then each
    family with the parameter lists given for it (``{'P', 'P.7'}`` is ``P``
    with ``['7']``: the cutoff 7 only).  Text after the parameters, which
    pytrec_eval drops, is an error here."""
    expanded: List[str] = []
    for name in measures:
        group = supported_nicknames.get(name)
        expanded.extend(sorted(group) if group is not None else [name])
    params: Dict[str, List[str]] = {}
    for name in expanded:
        if name in supported_measures:
            params.setdefault(name, [])
            continue
        for fam in sorted(supported_measures):
            found = re.match(rf"{re.escape(fam)}[._]([0-9]+(\.[0-9]+)?(,[0-9]+(\.[0-9]+)?)*)", name)
            if found is not None:
                break
        else:
            raise InvalidArgumentError(f"unsupported measure {name}")
        if not _TRAILING.fullmatch(name, found.end()):
            raise InvalidArgumentError(
                f"measure {name!r}: pytrec_eval would read it as "
                f"'{fam}.{found.group(1)}' and drop {name[found.end():]!r}")
        params.setdefault(fam, []).append(found.group(1))
    return params


def _family_measures(fam: str, lists: List[str]) -> List[Tuple[str, Measure]]:
    """The measures of one family and its parameter lists, under pytrec_eval's
    keys: trec_eval's printed names for the families with cutoffs or levels,
    the family's name for the others."""
    family = _BY_TREC[fam]
    parts = sorted({p for given in lists for p in given.split(",")})
    given = ",".join(parts)  # what pytrec_eval hands trec_eval: one list, sorted as text
    if family.param in ("fraction", "multiple") and parts:
        # any number, as trec_eval takes it (a recall level of 2, a multiple of 0)
        values = sorted(map(float, parts))
        return [(family.trec_name(v, ()) or fam, Measure(family, v, ())) for v in values]
    if family.param == "none" and not family.trec_params:
        given = ""  # trec_eval ignores parameters of a measure that takes none
    elif family.trec_params and lists and lists != [given] and not (
            family.trec_params == "levels" and len(lists) == 1):  # a set: taken sorted
        # parameters that are not cutoffs, which pytrec_eval would sort,
        # deduplicate or merge (utility.2,1,0,0 reaches trec_eval as
        # utility.0,1,2; set_F.1 and set_F.2 as set_F.1,2, read as set_F.1)
        raise InvalidArgumentError(
            f"measure {fam!r} with parameters {' and '.join(map(repr, lists))}: pytrec_eval "
            f"would pass {fam}.{given} to trec_eval, another measure; give one list, "
            "in that order")
    found = expand_trec_argument_named(f"{fam}.{given}" if given else fam)
    return [(name if family.param != "none" else fam, m) for name, m in found]


def _checked_int(value: Any, name: str, low: int) -> int:
    """An argument pytrec_eval reads as a C int (``TypeError`` otherwise)."""
    if not isinstance(value, int) or not low <= value <= _INT_MAX:
        raise PytrecEvalTypeError(
            f"{name!r} must be an int from {low} to {_INT_MAX}, as pytrec_eval's C int "
            f"(got {type(value).__name__} {value!r})")
    return int(value)


# === Dicts in ================================================================


def _checked(
    data: Mapping[Any, Any], what: str, kinds: Tuple[type, ...]
) -> Iterator[Tuple[str, Dict[str, Any], Set[type]]]:
    """``(query id, documents, the types of their values)`` of *data*, checked
    as pytrec_eval checks it: str query ids, each mapped to a dict of str doc
    ids to values of *kinds* (``int`` takes bools, as pytrec_eval does); a
    :class:`PytrecEvalTypeError` otherwise."""
    for qid, docs in data.items():
        if not isinstance(qid, str) or not isinstance(docs, dict):
            raise PytrecEvalTypeError(
                f"{what} must map str query ids to dicts (got {type(qid).__name__} {qid!r} "
                f"mapped to {type(docs).__name__})")
        if not set(map(type, docs)) <= {str}:
            for docid in docs:
                if not isinstance(docid, str):
                    raise PytrecEvalTypeError(
                        f"{what}[{qid!r}] has a doc id that is not a str ({docid!r})")
        types = set(map(type, docs.values()))
        if not types <= set(kinds):
            for docid, value in docs.items():
                if not isinstance(value, kinds):
                    raise PytrecEvalTypeError(
                        f"{what}[{qid!r}][{docid!r}] must be "
                        f"{' or '.join(k.__name__ for k in kinds)} (got {type(value).__name__} "
                        f"{value!r})")
        yield qid, docs, types


def _judgments(query_relevance: Mapping[Any, Any]) -> Dict[str, Dict[str, int]]:
    """pytrec_eval's qrels as a table of their own: queries without judgments
    dropped, labels checked (trec_eval counts levels up to the largest label
    plus one in a C int: larger labels hang or corrupt pytrec_eval)."""
    qrels = {qid: docs for qid, docs in query_relevance.items() if len(docs) > 0}
    table = {}
    for qid, docs, types in _checked(qrels, "query_relevance", (int,)):
        labels = docs.values()
        if not (_INT_MIN <= min(labels) and max(labels) < _INT_MAX):
            raise InvalidArgumentError(
                f"query_relevance[{qid!r}] holds a label outside {_INT_MIN}..{_INT_MAX - 1}, "
                f"which pytrec_eval cannot count (got {max(labels, key=abs)})")
        # a copy, as pytrec_eval's; bools as ints, ids as plain str
        table[str(qid)] = dict(docs) if types == {int} else {str(d): int(v)
                                                             for d, v in docs.items()}
    return table


# === The evaluator ===========================================================

_BPREF = ("bpref", "gm_bpref")
_NO_RANKING = ("runid", "num_q")  # the families trec_eval computes without ranking
_COUNTS = ("num_ret", "num_rel")


class RelevanceEvaluator:
    """pytrec_eval's evaluator: qrels and measures given once, then
    :meth:`evaluate` for each run.

    *measures*: trec_eval's names (``map``, ``P``), with parameters
    (``P.5,10``, ``P_5``) and nicknames (``official``, ``set``,
    ``all_trec``), as pytrec_eval reads them.  *relevance_level*: labels
    from it up are relevant (trec_eval's ``-l``); *judged_docs_only_flag*:
    unjudged documents are dropped from rankings (``-J``).
    """

    def __init__(
        self,
        query_relevance: Mapping[str, Mapping[str, int]],
        measures: Iterable[str],
        relevance_level: int = 1,
        judged_docs_only_flag: bool = False,
    ) -> None:
        if isinstance(relevance_level, int) and relevance_level < 0:
            raise InvalidArgumentError(
                f"'relevance_level' must be >= 1 (got {relevance_level}); pytrec_eval reads a "
                "negative level as a huge one and finds nothing relevant")
        level = _checked_int(relevance_level, "relevance_level", 1)
        judged_only = bool(_checked_int(judged_docs_only_flag, "judged_docs_only_flag", _INT_MIN))
        measures = list(measures)  # (None or a number: TypeError, as in pytrec_eval)
        for name in measures:
            if not isinstance(name, str):
                raise PytrecEvalTypeError(f"a measure must be a str (got {name!r})")
        params = _combined(measures)
        self._qrels = Qrels._trusted(_judgments(query_relevance))
        self._options = check_options(relevance_level=level, judged_only=judged_only,
                                      scores="float32")
        # the families in trec_eval's order, as pytrec_eval's keys
        asked = [f.key for f in FAMILIES if f.key in params]
        self._keys: Dict[str, Measure] = {}
        for key in asked:
            self._keys.update(_family_measures(key, params[key]))
        # pytrec_eval reads freed memory (and often crashes) on a query with
        # an empty ranking or only negative labels when bpref or gm_bpref
        # follows another measure that ranks the documents
        self._undefined = any(a in _BPREF and any(b not in _NO_RANKING for b in asked[:i])
                              for i, a in enumerate(asked))
        # trec_eval's interpolated precision starts from num_rel_ret / num_ret,
        # 0/0 with nothing (judged) retrieved: NaN at the levels whose rank
        # cutoff, (long) (level * R + 0.9), is 0 (level 0.0, which 11pt_avg's
        # default levels hold, or any level when R = 0); irmetrics gives 0.0
        self._nan_levels = {k: (m.param,) if m.param is not None else m.option("levels", (0.0,))
                            for k, m in self._keys.items()
                            if m.family.key in ("iprec_at_recall", "11pt_avg")}

    def evaluate(self, scores: Mapping[str, Mapping[str, float]]) -> Dict[str, Dict[str, float]]:
        """``{query id: {key: value}}`` for the queries of *scores* that have
        judgments, in the order of *scores*; ``{}`` for an empty run."""
        if not scores:
            return {}
        if not isinstance(scores, dict):
            raise PytrecEvalTypeError(f"'scores' must be a dict (got {type(scores).__name__})")
        judged = self._qrels._data
        common = {}
        for qid, docs, types in _checked(scores, "scores", (float, int)):
            if qid not in judged:
                continue
            common[str(qid)] = docs
            if self._undefined and (not docs or max(judged[qid].values()) < 0):
                what = "only negative labels" if docs else "an empty ranking"
                raise InvalidArgumentError(
                    f"query {qid!r} has {what}: with bpref or gm_bpref after another measure, "
                    "pytrec_eval reads memory it never set there (and often crashes); ask for "
                    "bpref alone")
            if any(issubclass(t, float) for t in types) and any(map(math.isnan, docs.values())):
                raise InvalidArgumentError(f"scores[{qid!r}] holds a NaN score, which has no "
                                           "place in a ranking")
        if not common:
            return {}
        numbers = {k: m for k, m in self._keys.items() if not m.family.text}
        if self._nan_levels:
            numbers.update({f" {k}": Measure(_BY_TREC[k], None, ()) for k in _COUNTS})
        per_query: Dict[str, Dict[str, Any]] = {q: {} for q in common}
        if numbers:
            run = Run._trusted(common, "")
            per_query = _evaluate(self._qrels, run, list(numbers), list(numbers.values()),
                                  self._options).per_query
        out = {q: {k: _value(m, per_query[q].get(k)) for k, m in self._keys.items()}
               for q in common}
        for q, values in out.items():
            if self._nan_levels and per_query[q][" num_ret"] == 0:
                big_r = per_query[q][" num_rel"]
                for key, levels in self._nan_levels.items():
                    if any(int(level * big_r + 0.9) == 0 for level in levels):
                        values[key] = math.nan
        return out


def _value(m: Measure, value: Any) -> float:
    """A value of irmetrics' as pytrec_eval gives it: a float; for gm_map and
    gm_bpref the logarithm trec_eval keeps per query (floored at
    MIN_GEO_MEAN); for the text lines (runid, relstring) 0.0, a number
    pytrec_eval returns without setting it."""
    if m.family.text:
        return 0.0
    if m.family.aggregate == "gm":
        return math.log(max(value, MIN_GEO_MEAN))
    return float(value)


# === Aggregates ==============================================================


def _pairwise_sum(values: List[float], start: int, n: int) -> float:
    """numpy's pairwise summation of ``values[start:start + n]`` (its
    ``pairwise_sum``: blocks of 128 summed in eight lanes), so that the
    aggregates equal ``numpy.mean`` and ``numpy.sum`` to the last bit."""
    if n < 8:
        total = -0.0
        for x in values[start:start + n]:
            total += x
        return total
    if n <= 128:
        lanes = values[start:start + 8]
        end = start + n - n % 8
        for i in range(start + 8, end, 8):
            for j in range(8):
                lanes[j] += values[i + j]
        total = ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + (
            (lanes[4] + lanes[5]) + (lanes[6] + lanes[7]))
        for x in values[end:start + n]:
            total += x
        return total
    half = n // 2
    half -= half % 8
    return _pairwise_sum(values, start, half) + _pairwise_sum(values, start + half, n - half)


def compute_aggregated_measure(measure: str, values: Iterable[float]) -> float:
    """Aggregate per-query values as pytrec_eval does: the sum for ``num_*``,
    ``exp(mean)`` for ``gm_*`` (whose per-query values are logarithms), else
    the mean; ``nan`` for no values (but 0.0 for a sum).

    >>> compute_aggregated_measure("map", [0.5, 0.25])
    0.375
    """
    values = list(values)
    for value in values:
        if not isinstance(value, (int, float)):
            raise PytrecEvalTypeError(
                f"'values' must hold numbers (got {type(value).__name__} {value!r})")
    floats = list(map(float, values))
    total = 0.0 + _pairwise_sum(floats, 0, len(floats))
    if measure.startswith(("num_", "gm_")) and all(isinstance(v, int) for v in values):
        total = float(sum(values))  # numpy sums ints exactly
    if measure.startswith("num_"):
        return total
    if not values:
        return math.nan
    return math.exp(total / len(values)) if measure.startswith("gm_") else total / len(values)


# === Files and install() =====================================================


def parse_run(f_run: Iterable[str]) -> Dict[str, Dict[str, float]]:
    """``{query id: {doc id: score}}`` of a TREC run's lines (six fields each)."""
    run: Dict[str, Dict[str, float]] = collections.defaultdict(dict)
    for line in f_run:
        query_id, _, object_id, _, score, _ = line.strip().split()
        if object_id in run[query_id]:
            raise AssertionError(f"document {object_id!r} repeated in query {query_id!r}")
        run[query_id][object_id] = float(score)
    return run


def parse_qrel(f_qrel: Iterable[str]) -> Dict[str, Dict[str, int]]:
    """``{query id: {doc id: label}}`` of a TREC qrels file's lines (four fields each)."""
    qrel: Dict[str, Dict[str, int]] = collections.defaultdict(dict)
    for line in f_qrel:
        query_id, _, object_id, relevance = line.strip().split()
        if object_id in qrel[query_id]:
            raise AssertionError(f"document {object_id!r} repeated in query {query_id!r}")
        qrel[query_id][object_id] = int(relevance)
    return qrel


def install() -> None:
    """Make ``import pytrec_eval`` give this module, for packages that import
    pytrec_eval themselves (BEIR, MTEB): call it before importing them."""
    sys.modules["pytrec_eval"] = sys.modules[__name__]
