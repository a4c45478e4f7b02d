"""The registry of measure names.

One table, :data:`FAMILIES`, maps every measure irmetrics knows to the
function in :mod:`irmetrics.metrics` that computes it, how it is averaged over
queries, how it evaluates under tied scores, how :func:`~irmetrics.explain`
derives it rank by rank, and the names it answers to: trec_eval's (``P_5``, ``map_cut_100``,
``ndcg_cut_10``, ``iprec_at_recall_0.10``) and ir_measures' (``P@5``,
``AP@100``, ``nDCG@10``, ``P(rel=2)@5``, ``RBP(p=0.8)``).  :func:`evaluate`,
the command line's ``-m``, the "did you mean" of errors, the tie modes,
explain and the docs all read this table; there is no other list.

>>> parse_measure("nDCG@10").name
'ndcg_cut_10'
>>> parse_measure("P(rel=2)@5").name
'P(rel=2)@5'
>>> parse_measure("iprec_at_recall_0.1").name
'iprec_at_recall_0.10'
"""

from __future__ import annotations

import math
import re
from typing import (
    Any,
    Callable,
    Dict,
    Iterable,
    List,
    Mapping,
    NamedTuple,
    Optional,
    Sequence,
    Tuple,
    TypeVar,
    Union,
    cast,
)

from . import _tie_blocks as _t
from . import cwl as _cwl
from . import diversity as _d
from . import metrics as _m
from . import prefs as _prefs
from .errors import InvalidArgumentError, UnknownMeasureError

__all__ = [
    "Measure",
    "Family",
    "FAMILIES",
    "QueryData",
    "parse_measure",
    "parse_measures",
    "known_names",
    "trec_measure_names",
    "expand_trec_argument",
    "expand_trec_argument_named",
    "check_version",
    "TREC_EVAL",
    "TREC_EVAL_VERSIONS",
    "MIN_GEO_MEAN",
]

#: trec_eval's floor for a per-query value inside a geometric mean.
MIN_GEO_MEAN = 0.00001

Param = Optional[Union[int, float]]
Options = Tuple[Tuple[str, Any], ...]
Label = Optional[int]
_T = TypeVar("_T")
Subtopics = Tuple[Mapping[str, Mapping[Any, int]], List[Tuple[int, Any]]]
#: A query's linear gains, and the DCGs of their first ranks as far as a
#: measure has summed them (QueryData.linear_gains): (0-based rank, gain) of
#: the ranked documents with a label > 0; the gain of every judged document
#: with a label > 0, best first; the DCG after each of the first positive
#: gains; the ideal DCG after each of the first ideal ranks.  The DCG
#: kernels of irmetrics.metrics (nDCG, ndcg_rel, Rndcg) extend the DCGs, left
#: to right, as far as they are asked for: one measure costs the additions of
#: a direct DCG, and more measures and cutoffs make none twice.
LinearGains = Tuple[List[Tuple[int, float]], List[float], List[float], List[float]]


# === Per-query data ==========================================================


class QueryData:
    """What every measure needs to know about one query.

    ``labels``: the relevance of each ranked document in evaluation order: the
    qrels value (an int >= 0) for judged documents, ``-1`` for documents that
    were pooled but not judged (negative qrels values), ``None`` for documents
    absent from the qrels.  ``levels``: how many judged documents the query has
    at each relevance value >= 0.  ``n``: how many documents are ranked.

    Rankings are mostly unjudged: :meth:`sparse` builds the data from the
    ranks of the labelled documents alone, and the list of labels is then
    made only if a measure asks for it.
    """

    __slots__ = ("_labels", "levels", "n", "_placed", "_cache", "_relevant", "subtopics",
                 "costs", "groups", "prefs")
    _labels: Optional[Sequence[Label]]  # made when asked for, for sparse data

    def __init__(self, labels: Sequence[Label], levels: Dict[int, int]) -> None:
        self._fill(len(labels), [(i, x) for i, x in enumerate(labels) if x is not None], levels)
        self._labels = labels

    @classmethod
    def sparse(cls, n: int, placed: List[Tuple[int, int]], levels: Dict[int, int],
               judged_only: bool = False) -> QueryData:
        """*n* ranked documents, unjudged except ``(index, label)`` of *placed*
        (sorted by index, each index below *n*); with *judged_only*, the
        judged documents of *placed* alone (``judged_only``: the unjudged and
        pooled-unjudged dropped, positions closed up).

        >>> QueryData.sparse(4, [(1, 2), (3, 0)], {2: 1, 0: 1}).labels
        [None, 2, None, 0]
        >>> QueryData.sparse(4, [(1, 2), (2, -1), (3, 0)], {2: 1, 0: 1}, True).labels
        [2, 0]
        """
        if judged_only:
            return cls([x for _, x in placed if x >= 0], levels)
        self = cls.__new__(cls)
        self._fill(n, placed, levels)
        return self

    def _fill(self, n: int, placed: List[Tuple[int, int]], levels: Dict[int, int]) -> None:
        self._labels = None
        self.levels = levels
        self.n = n
        self._placed = placed
        self._cache: Dict[Any, Any] = {}
        # relevant(): the ranks and R at each level asked for
        self._relevant: Dict[Union[int, float], Tuple[List[int], int]] = {}
        # for the diversity measures (irmetrics.diversity), set by the scorer
        # when one is asked for: (the query's {subtopic: {doc id: label}},
        # [(rank index, doc id)] of its judged ranked documents)
        self.subtopics: Optional[Subtopics] = None
        # each ranked document's cost, for the C/W/L measures (irmetrics.cwl),
        # set by the scorer when evaluate() is given costs; None: 1 each
        self.costs: Optional[List[float]] = None
        # for the measures over judgment groups (Family.reads "groups"), set by
        # the scorer: each group's data, in the byte order of the group ids
        # (None: one group, the query's labels)
        self.groups: Optional[List[QueryData]] = None
        # for the preference measures (Family.reads "prefs"), set by the
        # scorer (None: the preferences of the labels, as trec_eval's -R
        # qrels_prefs reads a qrels, tied scores aside)
        self.prefs: Optional[_prefs.Prefs] = None

    @property
    def labels(self) -> Sequence[Label]:
        if self._labels is None:
            labels: List[Label] = [None] * self.n
            for i, x in self._placed:
                labels[i] = x
            self._labels = labels
        return self._labels

    def _cached(self, key: Any, make: Callable[..., _T], *args: Any) -> _T:
        """``make(*args)``, computed once for this query."""
        v: Optional[_T] = self._cache.get(key)
        if v is None:
            v = self._cache[key] = make(*args)
        return v

    def relevant(self, rel: Union[int, float]) -> Tuple[List[int], int]:
        """The 1-based ranks of the labels >= *rel* (*rel* > 0) and R, the
        judged documents with a label >= *rel*: what the binary measures
        read, found once per level."""
        v = self._relevant.get(rel)
        if v is None:
            big_r = sum(c for lvl, c in self.levels.items() if lvl >= rel)
            v = self._relevant[rel] = ([i + 1 for i, x in self._placed if x >= rel], big_r)
        return v

    def n_relevant(self, rel: Union[int, float]) -> int:
        """Judged documents with relevance >= *rel* (R)."""
        return self.relevant(rel)[1]

    def n_nonrelevant(self, rel: Union[int, float]) -> int:
        """Judged documents with 0 <= relevance < *rel*."""
        return sum(c for lvl, c in self.levels.items() if lvl < rel)

    def relevant_ranks(self, rel: Union[int, float]) -> List[int]:
        """1-based ranks of the labels >= *rel* (*rel* > 0), found once per level."""
        return self.relevant(rel)[0]

    def placed(self) -> List[Tuple[int, int]]:
        """``(0-based rank, label)`` of the ranked documents in the qrels."""
        return self._placed

    def linear_gains(self) -> LinearGains:
        """The linear gains the DCG measures read (see ``LinearGains``)."""
        v: Optional[LinearGains] = self._cache.get("linear")
        if v is None:
            ideal: List[float] = []  # every judged positive document's, best first
            for lvl in sorted(self.levels, reverse=True):
                if lvl <= 0:
                    break
                ideal += [float(lvl)] * self.levels[lvl]
            positive = [(i, float(x)) for i, x in self._placed if x > 0]
            v = self._cache["linear"] = (positive, ideal, [], [])
        return v



# === trec_eval's versions =====================================================


class TrecEval(NamedTuple):
    """What a version of trec_eval computes and prints its own way (the measures
    it has are in the families' entries, ``Names.since`` and ``Names.all_trec``)."""

    name: str
    #: a recall level times R as a number of relevant documents (iprec_at_recall,
    #: 11pt_avg): ``(long)(x + 0.9)`` in 9.0.8, ``lround(x)`` in 10.0
    recall_cutoff: _m.RecallCutoff
    recall_cutoff_text: str  # the same, as explain() writes it, of "x"
    #: whether ``-c`` evaluates the judged queries the run lacks: 10.0 does
    #: (as empty rankings; ``-q`` prints their rows), 9.0.8 adds nothing for
    #: them but to num_q and num_rel
    evaluates_missing: bool


#: The versions of trec_eval irmetrics reproduces, oldest first; the first is the default.
TREC_EVAL: Dict[str, TrecEval] = {
    "9.0.8": TrecEval("9.0.8", _m._cutoff_908, "int(x + 0.9)", False),
    "10.0": TrecEval("10.0", _m._lround, "lround(x)", True),
}
TREC_EVAL_VERSIONS = tuple(TREC_EVAL)


class Env(NamedTuple):
    """Evaluation-wide settings a measure may read."""

    relevance_level: int = 1
    max_label: int = 0
    run_name: str = ""
    trec_eval: TrecEval = TREC_EVAL["9.0.8"]
    collection_size: int = 0  # trec_eval's -N, which utility reads


# === Measures ================================================================


class Measure(NamedTuple):
    """A parsed measure: a family, its parameter and its options."""

    family: Family
    param: Param
    options: Options

    @property
    def name(self) -> str:
        """The canonical name: trec_eval's where trec_eval has the measure."""
        return self.family.display(self.param, self.options)

    @property
    def is_trec(self) -> bool:
        """Whether trec_eval computes this measure (and prints it by this name)."""
        return self.family.trec_name(self.param, self.options) is not None

    def option(self, key: str, default: Any = None) -> Any:
        for k, v in self.options:
            if k == key:
                return v
        return default

    def rel(self, env: Env) -> Union[int, float]:
        return cast(Union[int, float], self.option("rel", env.relevance_level))

    def compute(self, q: QueryData, env: Env) -> Any:
        """The value for one query: a number, or a str for the text lines."""
        return self.family.compute(q, self, env)


Compute = Callable[[QueryData, Measure, Env], Any]


class Names(NamedTuple):
    """The names a family answers to besides its key (trec_eval's name)."""

    ir: Optional[str] = None  # ir_measures' style: AP for map (and map_cut, with a cutoff)
    trec: bool = True  # whether trec_eval has it (then it prints it by its key)
    aliases: Tuple[str, ...] = ()  # more names, e.g. ndeval's for the diversity measures
    metric: Optional[str] = None  # its public function, in irmetrics.metrics or .diversity
    since: str = "9.0.8"  # the first trec_eval version that has it (TREC_EVAL)
    all_trec: bool = True  # in trec_eval's group all_trec (of the versions that have it)


class Takes(NamedTuple):
    """What a measure of the family takes: a parameter, options, and what
    the scorer gives it besides the labels."""

    # "none", "cutoff" (int k, required), "optional-cutoff", "fraction" (a
    # recall level in [0, 1]) or "multiple" (a positive float)
    param: str = "none"
    defaults: Tuple[Union[int, float], ...] = ()  # trec_eval's, for ``-m name``
    # name -> parser; None: rel alone, the option of every binary measure
    options: Optional[Mapping[str, Callable[[str], Any]]] = None
    # The option that holds what trec_eval reads after the dot of ``-m
    # name.params`` for the measures that print ``name_params`` (gain maps,
    # set_F's weight, utility's coefficients, 11pt_avg's levels).
    trec_params: Optional[str] = None
    # "labels" alone; "groups", a QueryData per judgment group (trec_eval's
    # -R qrels_jg); "prefs", the query's preferences counted against its
    # ranking (irmetrics.prefs)
    reads: str = "labels"


class Output(NamedTuple):
    """How the family's values are averaged and printed."""

    # "mean", "sum", "gm", "first" (the first query's) or "name" (the run's)
    aggregate: str = "mean"
    is_count: bool = False  # an integer count (printed %d)
    per_query: bool = True  # printed in trec_eval's per-query blocks
    in_summary: bool = True  # printed in trec_eval's "all" block
    text: bool = False  # a str, not a number


_PLAIN_NAMES, _NOTHING, _MEAN = Names(), Takes(), Output()


class Family:
    """One kind of measure (one trec_eval name) and everything the registry knows of it:
    its formula (*compute*), names, parameters, output, how it evaluates
    under tied scores (*ties*; None: only trec_eval's order) and how explain()
    derives its value rank by rank (*explain*; None: the rows and labels only)."""

    def __init__(
        self,
        key: str,
        compute: Compute,
        summary: str,
        *,
        names: Names = _PLAIN_NAMES,
        takes: Takes = _NOTHING,
        output: Output = _MEAN,
        ties: Optional[Ties] = None,
        explain: Optional[TermFunction] = None,
    ) -> None:
        self.key = key
        self.compute = compute
        self.summary = summary
        # the records' fields, in their order
        self.ir, trec, self.aliases, self.metric, self.since, self.all_trec = names
        self.trec = key if trec else None
        self.param, self.defaults, options, self.trec_params, self.reads = takes
        self.options = dict(_REL if options is None else options)
        self.aggregate, self.count, self.per_query, self.in_summary, self.text = output
        self.ties = ties
        self.explain = explain

    def __repr__(self) -> str:
        return f"<measure family {self.key}>"

    def __reduce__(self) -> Tuple[Any, Tuple[str]]:
        # A family travels (to an engine's worker) as its key and is the
        # registry's own on arrival: its formulas need not pickle.
        return (_registered, (self.key,))

    def trec_name(self, param: Param, options: Options) -> Optional[str]:
        """trec_eval's name for this measure, or None if trec_eval lacks it.

        trec_eval prints ``name_params`` for a measure given parameters that
        are not cutoffs (``set_F_0.5``, ``ndcg_1=1,2=3``): that name too.
        """
        if self.trec is None:
            return None
        if options:
            if len(options) == 1 and options[0][0] == self.trec_params:
                value = options[0][1]
                if not isinstance(value, str):  # not gain=exp
                    return f"{self.trec}_{_format_option(value)}"
            return None
        if param is None:
            return self.trec
        return f"{self.trec}_{_format_param(param, self.param)}"

    def display(self, param: Param, options: Options) -> str:
        t = self.trec_name(param, options)
        if t is not None:
            return t
        base = self.ir or self.key
        if options:
            base += "(" + ",".join(f"{k}={_format_option(v)}" for k, v in options) + ")"
        if param is not None:
            base += "@" + (f"{param:g}" if isinstance(param, float) else str(param))
        return base


def _format_param(param: Union[int, float], kind: str) -> str:
    if kind in ("fraction", "multiple"):
        return f"{float(param):.2f}"
    return str(param)


def _format_number(v: Union[int, float]) -> str:
    # the shortest text that reads back as the same number
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e16:
        return str(int(v))
    return repr(v)


def _format_option(v: Any) -> str:
    if isinstance(v, tuple) and v and isinstance(v[0], tuple):  # a gain map
        return ",".join(f"{lvl}={_format_number(g)}" for lvl, g in v)
    if isinstance(v, tuple):  # numbers: coefficients, recall levels
        return ",".join(_format_number(x) for x in v)
    if isinstance(v, (int, float)):
        return _format_number(v)
    return str(v)


# === Computations ============================================================
# Each reads the per-query data and calls the one formula in irmetrics.metrics.


def _on_ranks(kernel: _m.Kernel, option: Optional[str] = None, default: Any = None) -> Compute:
    """A binary measure's computation from its kernel in irmetrics.metrics
    (see ``metrics._binary``): of the relevant ranks, the documents ranked,
    the measure's parameter (or its *option*, else *default*) and R."""
    def compute(q: QueryData, m: Measure, env: Env) -> float:
        ranks, big_r = q.relevant(m.rel(env))
        param = m.param if option is None else m.option(option, default)
        return kernel(ranks, q.n, param, big_r)
    return compute


_p = _on_ranks(_m._precision_r)
_recall = _on_ranks(_m._recall_r)
_ap = _on_ranks(_m._average_precision_r)
_rr = _on_ranks(_m._reciprocal_rank_r)
_rprec = _on_ranks(_m._r_precision_multiple_r)  # Rprec's and Rprec_mult's (None: R)
_bin_g = _on_ranks(_m._binary_g)


def _judged(q: QueryData, m: Measure, env: Env) -> float:
    return _m._judged(q.labels, _opt_int(m.param))


def _bpref(q: QueryData, m: Measure, env: Env) -> float:
    rel = m.rel(env)
    judged = [x for _, x in q.placed()]  # the labels of the ranked documents in the qrels
    return _m._bpref(judged, q.n_relevant(rel), q.n_nonrelevant(rel), rel)


def _infap(q: QueryData, m: Measure, env: Env) -> float:
    rel = m.rel(env)
    return _m._inferred_ap_placed(q.placed(), q.n_relevant(rel), rel)


def _iprec(q: QueryData, m: Measure, env: Env) -> float:
    # m_iprec_at_recall.c: 11pt_avg's kernel at one level
    ranks, big_r = q.relevant(m.rel(env))
    level = (float(m.param or 0.0),)
    return _m._interpolated_sum(ranks, q.n, level, big_r, env.trec_eval.recall_cutoff)


def _11pt(q: QueryData, m: Measure, env: Env) -> float:
    ranks, big_r = q.relevant(m.rel(env))
    levels = m.option("levels", _m._ELEVEN_POINTS)
    return _m._eleven_point_average_r(ranks, q.n, levels, big_r, env.trec_eval.recall_cutoff)


def _gain_of(m: Measure) -> Callable[[Optional[Union[int, float]]], float]:
    # Gains of judged levels; pooled-unjudged (negative) and unjudged (None)
    # documents gain nothing.  A trec_eval gain map leaves unlisted levels at
    # their own value (setup_gains in m_ndcg.c).
    gain = m.option("gain", "linear")
    table: Dict[Union[int, float], float] = {} if gain in ("linear", "exp") else dict(gain)

    def gain_of(x: Optional[Union[int, float]]) -> float:
        if x is None or x < 0:
            return 0.0
        if gain == "exp":
            return _m._exp_gain(x)
        return table.get(x, float(x))

    return gain_of


def _gains_and_ideal(q: QueryData, m: Measure) -> Tuple[List[float], List[float]]:
    """The gains of the ranked documents and the ideal's positive gains,
    highest first, under the measure's gain option."""
    gain_of = _gain_of(m)
    return [gain_of(x) for x in q.labels], [g for _, g in _ideal_pairs(q, gain_of)]


def _ndcg(q: QueryData, m: Measure, env: Env) -> float:
    k = _opt_int(m.param)
    gain, discount = m.option("gain"), m.option("discount", "log2")
    if gain is None and discount == "log2":  # from the judged ranks alone
        return _m._ndcg_running(k, *q.linear_gains())
    gains, ideal = _gains_and_ideal(q, m)
    return _m._ndcg_gains(gains, ideal, k, _m._discount_function(discount, None))


def prepared_row(measures: Sequence[Measure], env: Env) -> Callable[[QueryData], List[Any]]:
    """The function of a query's data that gives the values of *measures*:
    what a scorer calls for every query."""
    computes = [(m.family.compute, m) for m in measures]
    return lambda q: [compute(q, m, env) for compute, m in computes]


def _err_max_label(m: Measure, env: Env) -> int:
    """ERR's max_label option, or else the evaluation's highest label."""
    return int(m.option("max_label", env.max_label))


def _err(q: QueryData, m: Measure, env: Env) -> float:
    max_label = _err_max_label(m, env)
    top = max((x for _, x in q.placed()), default=0)
    if top > max_label:
        raise InvalidArgumentError(
            f"ERR: a label {top} exceeds max_label={max_label}; give ERR(max_label=...)"
        )
    return _m._err(q.labels, _opt_int(m.param), max_label)  # (it passes over labels <= 0)


def _rbp(q: QueryData, m: Measure, env: Env) -> float:
    if m.option("quantity") is not None:  # its C/W/L quantities and residuals
        if m.param is not None:
            raise InvalidArgumentError(f"measure {m.name!r}: RBP's quantities are C/W/L's, "
                                       "over 1000 ranks; give no cutoff")
        return _cwl_measure(q, m, env)
    gain_of = _m._binary_gain(m.rel(env))
    return _m._rbp(q.labels, float(m.option("p", 0.8)), _opt_int(m.param), gain_of)


# --- trec_eval 10.0's measures (Names.since): rbp, rbp_resid, unj, dcg, ideal_dcg


def _rbp_p_and_gains(m: Measure) -> Tuple[float, Dict[Any, float]]:
    """p (default 0.9) and the gain map of trec_eval's rbp parameters."""
    gains = dict(m.option("params", ()))
    return gains.pop("p", 0.9), gains


def _rbp_gain_of(q: QueryData, given: Dict[Any, float]) -> Callable[[Any], float]:
    """m_rbp.c's gains: each level from 0 to the query's top has its own value
    as gain unless *given*; when a gain lies outside [0, 1], every gain g
    becomes (g - min) / (max - min)."""
    table = {lvl: float(lvl) for lvl in range(max(q.levels, default=-1) + 1)}
    table.update(given)
    lo, hi = min(table.values(), default=0.0), max(table.values(), default=0.0)
    if lo < 0 or hi > 1:
        table = {lvl: (g - lo) / (hi - lo) for lvl, g in table.items()}
    return lambda x: table.get(x, 0.0)


def _rbp_trec(q: QueryData, m: Measure, env: Env) -> float:
    p, gains = _rbp_p_and_gains(m)
    return _m._rbp(q.labels, p, None, _rbp_gain_of(q, gains))


def _rbp_resid(q: QueryData, m: Measure, env: Env) -> float:
    # the one residual (irmetrics.cwl.residual), of RBP's weights at an
    # unbounded horizon; the gains do not move it
    p, _ = _rbp_p_and_gains(m)
    unknown = _m._unknown(q.labels)
    # m_rbp_resid.c sets its value only when some document is unjudged (else 0)
    return _cwl.residual(unknown, [p], None) if any(unknown) else 0.0


def _unj(q: QueryData, m: Measure, env: Env) -> float:
    return _m._unjudged(q.labels, _opt_int(m.param))


def _dcg(q: QueryData, m: Measure, env: Env) -> float:
    # m_ndcg.c's results_dcg (nDCG's numerator): the same additions as ndcg's
    dcg = _dcg_of(q, m, _nonzero_and_ideal(q, m)[0])
    return dcg[-1] if dcg else 0.0


def _ideal_dcg(q: QueryData, m: Measure, env: Env) -> float:
    ideal_dcg = _nonzero_and_ideal(q, m)[2]  # m_ndcg.c's ideal_dcg (nDCG's denominator)
    return ideal_dcg[-1] if ideal_dcg else 0.0


def check_version(name: str, m: Measure, version: str) -> None:
    """An InvalidArgumentError if trec_eval *version* lacks measure *m* (named *name*)."""
    if TREC_EVAL_VERSIONS.index(m.family.since) > TREC_EVAL_VERSIONS.index(version):
        raise InvalidArgumentError(
            f"measure {name!r} is trec_eval {m.family.since}'s, not {version}'s: ask for "
            f"--trec-eval {m.family.since} on the command line "
            f"(evaluate(..., trec_eval={m.family.since!r}))")


def _num_ret(q: QueryData, m: Measure, env: Env) -> float:
    return q.n


def _num_rel(q: QueryData, m: Measure, env: Env) -> float:
    return q.n_relevant(m.rel(env))


def _num_rel_ret(q: QueryData, m: Measure, env: Env) -> float:
    return len(q.relevant_ranks(m.rel(env)))


def _num_q(q: QueryData, m: Measure, env: Env) -> float:
    return 1


def _num_nonrel_judged_ret(q: QueryData, m: Measure, env: Env) -> float:
    rel = m.rel(env)
    return sum(1 for _, x in q.placed() if 0 <= x < rel)


# The measures of the retrieved set, as kernels of the relevant ranks (as
# many as the relevant retrieved), the documents retrieved and R.


def _set_map_r(ranks: Sequence[int], n: int, param: None, r: int) -> float:
    return (len(ranks) * len(ranks)) / (n * r) if n and r else 0.0


_UTILITY = (1.0, -1.0, 0.0, 0.0)  # trec_eval's coefficients: relevant minus non-relevant


def _utility(q: QueryData, m: Measure, env: Env) -> float:
    # m_utility.c: p1 * a + p2 * b + p3 * c + p4 * d over the contingency
    # table (a relevant retrieved, b non-relevant retrieved, c relevant not
    # retrieved, d the rest of the collection: trec_eval's collection size,
    # -N, 0 unless given, plus a - retrieved - R).
    ranks, big_r = q.relevant(m.rel(env))
    return _utility_table(len(ranks), q.n, big_r, m, env)[1]


def _utility_table(a: int, ret: int, big_r: int, m: Measure, env: Env) -> Tuple[str, float]:
    """utility's sum over the contingency table, written out, and its value."""
    p = cast(Tuple[float, ...], m.option("coefficients", _UTILITY))
    cells = (a, ret - a, big_r - a, env.collection_size + a - ret - big_r)
    text = " + ".join(f"{w:g} * {n}" for w, n in zip(p, cells))
    return text, p[0] * cells[0] + p[1] * cells[1] + p[2] * cells[2] + p[3] * cells[3]


_set_map = _on_ranks(_set_map_r)


def _relative_p_r(ranks: Sequence[int], n: int, k: Optional[int], r: int) -> float:
    # m_rel_P.c: relevant in the top k over min(k, R); k None: every document
    # retrieved (set_relative_P, as set_P is P's and set_recall recall's)
    d = min(n if k is None else k, r)
    return _m._hits(ranks, k) / d if d else 0.0


_relative_p = _on_ranks(_relative_p_r)
_yaap = _on_ranks(_m._yaap_r)


def _on_prefs(kernel: Callable[[_prefs.Prefs], float]) -> Compute:
    """A preference measure's computation from its formula in irmetrics.prefs."""
    def compute(q: QueryData, m: Measure, env: Env) -> float:
        if q.prefs is None:  # the labels' own: one judgment group, one sub-group
            lines = [("0", "0", str(i), float(x)) for i, x in q.placed()]
            lines += [("0", "0", f"u{level}.{i}", float(level))
                      for level, count in q.levels.items()
                      for i in range(count - sum(x == level for _, x in q.placed()))]
            q.prefs = _prefs.count_prefs(lines, [str(i) for i, _ in q.placed()])
        return kernel(q.prefs)
    return compute


def _over_groups(compute: Compute) -> Compute:
    """trec_eval's ``*_avgjg`` measures: *compute* over each judgment group's
    data, summed in the groups' order and divided by their number."""
    def average(q: QueryData, m: Measure, env: Env) -> float:
        groups = [q] if q.groups is None else q.groups
        total = _m._left_to_right(compute(group, m, env) for group in groups)
        return total / len(groups) if len(groups) > 1 else total
    return average


def _nonzero_and_ideal(
    q: QueryData, m: Measure
) -> Tuple[List[Tuple[int, float]], List[float], List[float]]:
    """The non-zero gains ``(0-based rank, gain)`` of the ranking, the
    ideal's positive gains, highest first, and the ideal DCG after each,
    under the measure's gain option."""
    if m.option("gain") is None:
        positive, ideal, _, idcg = q.linear_gains()
        return positive, ideal, _m._running_dcg(ideal, idcg)
    gains, ideal = _gains_and_ideal(q, m)
    nz = [(i, g) for i, g in enumerate(gains) if g]
    return nz, ideal, _m._running_dcg(ideal, [])


def _dcg_of(q: QueryData, m: Measure, nz: Sequence[Tuple[int, float]]) -> List[float]:
    """The DCG after each of the non-zero gains *nz*: under linear gains the
    query's own, made once for the measures that read it."""
    out = q.linear_gains()[2] if m.option("gain") is None else []
    return _m._running_dcg_sparse(nz, out)


def _g(q: QueryData, m: Measure, env: Env) -> float:
    nz, ideal, _ = _nonzero_and_ideal(q, m)
    return _m._g_sparse(nz, ideal)


def _ndcg_rel(q: QueryData, m: Measure, env: Env) -> float:
    nz, _, ideal_dcg = _nonzero_and_ideal(q, m)
    return _m._ndcg_rel_sparse(nz, _dcg_of(q, m, nz), ideal_dcg)


def _rndcg(q: QueryData, m: Measure, env: Env) -> float:
    if q.n_relevant(env.relevance_level) == 0:
        return 0.0
    nz, ideal, ideal_dcg = _nonzero_and_ideal(q, m)
    return _m._rndcg_sparse(q.n, nz, _dcg_of(q, m, nz), ideal, ideal_dcg)


def _runid(q: QueryData, m: Measure, env: Env) -> str:
    return env.run_name


def _relstring(q: QueryData, m: Measure, env: Env) -> str:
    # trec_eval's relstring: one character per document of the top 10: the
    # judgment 0-9, '>' above 9, '-' outside the qrels, '.' pooled but unjudged.
    top = min(m.option("length", 10), q.n)
    chars = ["-"] * top
    for i, x in q.placed():  # by rank
        if i >= top:
            break
        chars[i] = "." if x < 0 else ">" if x > 9 else str(x)
    return "".join(chars)


# --- Diversity (ndeval's measures over subtopics; formulas in irmetrics.diversity)


def _subtopic_ranking(q: QueryData, rel: Union[int, float]) -> _d.Ranked:
    """The ranking over the query's subtopics at *rel*: evaluate() gives the
    subtopic judgments (QueryData.subtopics); without them the labels are
    taken for one subtopic."""
    if q.subtopics is None:
        # labels alone (no subtopic judgments): one subtopic, as a plain
        # qrels; a ranked document is named by its rank index, and the
        # relevant documents not ranked by negative numbers
        docs: Dict[Any, int] = {i: x for i, x in q.placed() if x >= 0}
        placed: List[Tuple[int, Any]] = [(i, i) for i in docs]
        missing = q.n_relevant(rel) - sum(1 for x in docs.values() if x >= rel)
        for j in range(1, missing + 1):
            docs[-j] = int(math.ceil(rel))
        judgments: Mapping[str, Mapping[Any, int]] = {"0": docs}
    else:
        judgments, placed = q.subtopics
    topics = _d.Topics(judgments, rel)
    return _d.Ranked(topics, topics.rows(placed), q.n)


def _on_subtopics(kernel: _d.Kernel) -> Compute:
    """A diversity measure's computation from its kernel in irmetrics.diversity:
    of the ranking, the measure's cutoff (else the documents ranked), alpha and beta."""
    def compute(q: QueryData, m: Measure, env: Env) -> float:
        k = q.n if m.param is None else int(m.param)
        alpha, beta = float(m.option("alpha", 0.5)), float(m.option("beta", 0.5))
        rel = m.rel(env)  # the ranking over the subtopics, made once for the query's measures
        return kernel(q._cached(("ia", rel), _subtopic_ranking, q, rel), k, alpha, beta)
    return compute


_nrbp = _on_subtopics(_d._nrbp)
_nnrbp = _on_subtopics(_d._nnrbp)
_p_ia = _on_subtopics(_d._precision_ia)
_strec = _on_subtopics(_d._subtopic_recall)
_ap_ia = _on_subtopics(_d._ap_ia)


# --- The C/W/L measures (irmetrics.cwl): one computation; a family is its model


def _cwl_gains(labels: Sequence[_t.Label], m: Measure, env: Env) -> List[Optional[float]]:
    """The gains the C/W/L measure *m* reads from *labels* (None: unjudged): RBP's binary,
    the others' labels scaled by min_rel and max_rel (by default the
    evaluation's highest label, as ERR's max_label)."""
    if m.family.key == "RBP":
        rel = m.rel(env)
        return [None if x is None or x < 0 else float(x >= rel) for x in labels]
    low, top = m.option("min_rel", 0), m.option("max_rel")
    if top is not None and top <= low:
        raise InvalidArgumentError(f"measure {m.name!r}: max_rel must be above min_rel")
    return _cwl.scaled(labels, low, env.max_label if top is None else top)


def _cwl_all(q: QueryData, m: Measure, env: Env, residuals: bool = True) -> List[float]:
    """The ten quantities of C/W/L measure *m* on one query (the worst case's
    five alone unless *residuals*), made once for every quantity asked of it
    (irmetrics.cwl.quantities)."""
    key = ("cwl", m.family.key, m.param, tuple(o for o in m.options if o[0] != "quantity"),
           m.rel(env))
    got: Optional[List[float]] = q._cache.get(key)
    if got is None or residuals and len(got) < len(_cwl.QUANTITIES):
        got = q._cache[key] = _cwl.quantities(m.family.key, _cwl_gains(q.labels, m, env),
                                              costs=q.costs, residuals=residuals, **_cwl_args(m))
    return got


def _cwl_args(m: Measure) -> Dict[str, Any]:
    """The model's parameter and cutoff of C/W/L measure *m*, as irmetrics.cwl takes them."""
    return {"param": float(m.option(_cwl.MODELS[m.family.key][1], 0.0)),
            "k": _cwl.DEPTH if m.param is None else int(m.param)}


def _cwl_measure(q: QueryData, m: Measure, env: Env) -> float:
    quantity = m.option("quantity", "EU")
    return _cwl_all(q, m, env, quantity.startswith("Res"))[_cwl.QUANTITIES.index(quantity)]


def _cwl_family(key: str) -> Compute:
    """The computation of C/W/L family *key*: its own function, as the scorer
    tells computations apart by function, parameter and options."""
    def compute(q: QueryData, m: Measure, env: Env) -> float:
        return _cwl_measure(q, m, env)
    compute.__name__ = f"_cwl_{key}"
    return compute


def _compat(q: QueryData, m: Measure, env: Env) -> float:
    ranked = [(i, x) for i, x in q.placed() if x > 0]
    return _m._compat(ranked, q.levels, q.n, m.option("p", 0.95), m.option("normalize", True))


_accuracy = _on_ranks(_m._accuracy_r)


def _opt_int(param: Param) -> Optional[int]:
    return None if param is None else int(param)


# === Tied scores (irmetrics.ties) ============================================
# A family that has ties="expected", "best" and "worst" says how in its entry
# (Ties): its mean over the orderings of tied scores (a closed form of
# irmetrics.ties; None when it has best and worst only), the ordering that
# attains its best and worst values, and how the command line's note tells
# from the blocks whether the order moves it.

Expected = Callable[[Measure, QueryData, List[_t.Block], int, Env], Any]


class Ties(NamedTuple):
    """How a family evaluates under ties (see :mod:`irmetrics.ties`).

    ``note``: "free" (the order moves nothing), "ap", "count" (relevant in
    the top k), "count_R" (in the top R), "count_n" (in the whole ranking),
    "rr", "success", "ndcg", "binary" (a binary measure whose best and
    worst are computed to tell) or "labels" (the same for any measure: a
    block mixing labels, the unjudged among them, may move it).
    """

    expected: Optional[Expected]
    order: Callable[[Measure, Env], _t.Order]
    note: str
    #: None when the modes are defined for one of the family's measures, with
    #: costs given or not (True); else why not, for the error
    why_not: Callable[[Measure, bool], Optional[str]] = lambda m, costs: None


def _by_relevance(m: Measure, env: Env) -> _t.Order:
    return _t.by_relevance(m.rel(env))


def _by_gain(m: Measure, env: Env) -> _t.Order:
    return _t.by_gain(_gain_of(m))


def _binary_ties(form: _t.ClosedForm, note: str, option: Optional[str] = None,
                 default: Any = None) -> Ties:
    """A binary measure whose mean is the closed form *form*, of its
    parameter (or its *option*, else *default*) as in :func:`_on_ranks`."""
    def expected(m: Measure, q: QueryData, blocks: List[_t.Block], n: int, env: Env) -> float:
        rel = m.rel(env)
        param = _opt_int(m.param) if option is None else m.option(option, default)
        return form(_t.binary(blocks, rel), n, param, q.n_relevant(rel))
    return Ties(expected, _by_relevance, note)


def _ndcg_expected(m: Measure, q: QueryData, blocks: List[_t.Block], n: int, env: Env) -> float:
    k = _opt_int(m.param)
    disc = _m._discount_function(m.option("discount", "log2"), None)
    gains = _t.mean_gains(blocks, n if k is None else min(k, n), _gain_of(m))
    return _m._ndcg_gains(gains, _gains_and_ideal(q, m)[1], k, disc)


def _dcg_expected(m: Measure, q: QueryData, blocks: List[_t.Block], n: int, env: Env) -> float:
    return _m._dcg_gains(_t.mean_gains(blocks, n, _gain_of(m)), None, _m._log2_discount)


# trec_eval 10.0's rbp is linear in the gains, rbp_resid and unj in whether
# each rank is judged: each position of a block takes the block's mean.
def _rbp_expected(m: Measure, q: QueryData, blocks: List[_t.Block], n: int, env: Env) -> float:
    p, given = _rbp_p_and_gains(m)
    return _m._rbp(_t.mean_gains(blocks, n, _rbp_gain_of(q, given)), p, None, float)


def _judged_share(blocks: List[_t.Block], n: int) -> List[float]:
    """The chance that each of the first *n* positions holds a judged document."""
    return _t.mean_gains(blocks, n, lambda x: float(x is not None and x >= 0))


def _resid_expected(m: Measure, q: QueryData, blocks: List[_t.Block], n: int, env: Env) -> float:
    # p^n counts only when some document is unjudged: the chance of that is
    # success's, with the unjudged documents as the "relevant" ones
    p = _rbp_p_and_gains(m)[0]
    total, w = _m._weighted([1.0 - judged for judged in _judged_share(blocks, n)], p)
    unjudged = [(s, size, size - r) for s, size, r in _t.binary(blocks, 0)]
    covered = sum(min(size, n - s) for s, size, _ in blocks if s < n)
    some = 1.0 if covered < n else _t.expected_success(unjudged, n, None, 0)
    return some * w + (1.0 - p) * total


def _unj_expected(m: Measure, q: QueryData, blocks: List[_t.Block], n: int, env: Env) -> float:
    d = n if m.param is None else int(m.param)
    return (min(d, n) - math.fsum(_judged_share(blocks, min(d, n)))) / d if d else 0.0


def _by_unjudged(m: Measure, env: Env) -> _t.Order:
    return _t.by_gain(lambda x: float(x is None or x < 0))  # best: the unjudged first


def _by_rbp_gain(m: Measure, env: Env) -> _t.Order:
    # m_rbp.c's gains in the order of the levels' given gains (its scaling
    # keeps the order); an unjudged document gains no more than any level
    given = _rbp_p_and_gains(m)[1]
    return _t.by_gain(lambda x: -math.inf if x is None or x < 0 else given.get(x, float(x)))


_ORDER_FREE = Ties(lambda m, q, blocks, n, env: m.compute(q, env), _by_relevance, "free")
_BINARY_EXTREMES = Ties(None, _by_relevance, "binary")
_AP_TIES = _binary_ties(_t.expected_ap, "ap")
_RR_TIES = _binary_ties(_t.expected_rr, "rr")
_NDCG_TIES = Ties(_ndcg_expected, _by_gain, "ndcg")


# RBP and the static C/W/L models' EU (unit costs: the weights W_i read no
# document) are sums of W_i g_i: the mean gives each rank its block's mean
# gain (unjudged: 0), best and worst sort the gains.
def _cwl_gain_of(m: Measure, env: Env) -> Callable[[_t.Label], float]:
    return lambda x: _cwl_gains([x], m, env)[0] or 0.0


def _cwl_expected(m: Measure, q: QueryData, blocks: List[_t.Block], n: int, env: Env) -> float:
    gains = _t.mean_gains(blocks, n, _cwl_gain_of(m, env))
    if m.family.key == "RBP" and m.option("quantity") is None:  # RBP's own value
        return _m._rbp(gains, float(m.option("p", 0.8)), _opt_int(m.param), float)
    return _cwl.quantities(m.family.key, gains, residuals=False, **_cwl_args(m))[0]


def _cwl_why_not(m: Measure, costs: bool) -> Optional[str]:
    """Why C/W/L measure *m* has no tie modes (None: it has them): an adaptive
    model, a quantity other than EU, or *costs* given."""
    if m.family.key in _cwl.ADAPTIVE:
        return "an adaptive C/W/L model's weights read the gains, which the order moves"
    if m.option("quantity", "EU") != "EU":
        return "only its EU quantity, the value, has tie modes"
    return "the order of tied documents moves the costs, so the weights" if costs else None


_CWL_TIES = Ties(_cwl_expected, lambda m, env: _t.by_gain(_cwl_gain_of(m, env)), "labels",
                 _cwl_why_not)


def _why_not(m: Measure, mode: str, costs: bool) -> Optional[str]:
    """None when ties *mode* (not "trec_eval") is defined for *m*, with *costs*
    given or not; else why not ("": the family has no tie modes)."""
    ties = m.family.ties
    if ties is None:
        return ""
    why = ties.why_not(m, costs)
    if why is None and mode == "expected" and ties.expected is None:
        return "it has 'best' and 'worst' only"
    return why


def supports(m: Measure, mode: str, *, costs: bool = False) -> bool:
    """Whether ties *mode* is defined for measure *m*, with *costs* given or not."""
    return mode == "trec_eval" or _why_not(m, mode, costs) is None


def check_measure(name: str, m: Measure, mode: str, *, costs: bool = False) -> None:
    """An InvalidArgumentError unless ties *mode* is defined for *m* (named
    *name*), with *costs* given or not: the one check, made before scoring."""
    why = None if mode == "trec_eval" else _why_not(m, mode, costs)
    if why is None:
        return
    if costs and supports(m, mode):
        raise InvalidArgumentError(f"measure {name!r} with costs: ties={mode!r} is not defined "
                                   f"({why})")
    have = sorted(f.key for f in FAMILIES if supports(Measure(f, None, ()), mode, costs=costs))
    raise InvalidArgumentError(f"ties={mode!r} is not defined for measure {name!r} "
                               f"({why + '; ' if why else ''}it is for: {', '.join(have)})")


def tie_value(mode: str, m: Measure, q: QueryData, info: _t.TieInfo, env: Env,
              judged_only: bool) -> Any:
    """The value of *m* on one query under ties *mode* ("expected", "best", "worst").

    *q* is the query's data in trec_eval's order, *info* its blocks; the mode
    is defined for *m* under the evaluation's options (:func:`check_measure`
    checked it before any query was scored, costs included).
    """
    ties = cast(Ties, m.family.ties)
    blocks = q._cached("tie blocks", info.blocks)
    if mode == "expected":
        blocks, n = _t.judged_only(blocks, info.n) if judged_only else (blocks, info.n)
        return cast(Expected, ties.expected)(m, q, blocks, n, env)
    placed = ties.order(m, env)(blocks, info.n, mode == "best", judged_only)
    kept: List[Tuple[int, int]] = sorted(
        (i, int(x)) for i, x in placed if i < info.n and x is not None)  # qrels labels: ints
    return m.compute(QueryData.sparse(info.n, kept, q.levels, judged_only), env)


# Whether the order of tied scores moves a value (the command line's note).
#
# The note asks, for each query, whether any requested measure with best and
# worst takes two values over the orderings of its tied blocks.  Computing
# both extremes of every measure costs far more than the evaluation, so the
# answer is found from the blocks themselves wherever it is exact, and the
# extremes are computed only for the measures and queries where it is not.
#
# A block whose documents all look alike to a measure cannot move it.  For
# the binary measures (a document is relevant, label >= rel, or not), a block
# that mixes relevant and other documents (the unjudged included) at 0-based
# start s, of m documents, r of them relevant, moves:
#
# * AP (note "ap") iff s < K (K: the cutoff, at most the n documents
#   evaluated): some ordering puts a relevant document at s and another at
#   s + 1, and swapping the two changes its term (or drops it at the cutoff);
# * a count of relevant documents in the top K ("count": P@k, recall@k;
#   "count_R": Rprec, K = min(R, n); "count_n": num_rel_ret and set_F, K = n)
#   iff s < K < s + m: the best ordering holds min(r, c) of them above the
#   cut, the worst max(0, r - (m - c)), c = K - s, and the two differ iff
#   0 < c < m;
# * RR and success from the first relevant position of the best ordering
#   (the first block holding a relevant document, at its start) and of the
#   worst one (that block's s + m - r).
#
# nDCG with linear gains and the log2 discount moves iff a block mixing
# gains starts above the cut: the discounts of a block's positions above the
# cut fall strictly (0 below it), so sorting its gains down and up gives two
# different sums (the ideal does not move).  The other measures ("binary";
# nDCG with other options) need a block mixing relevant and other documents
# (bpref and infAP read only the documents above a relevant one), or (nDCG)
# any mixed block;
# then the best and worst values are computed as for ties="best" and
# "worst".  With judged_only, unjudged documents drop out and positions close
# up: the same reasoning on the judged documents' blocks, unless a block
# straddles the depth cut (then everything is computed).  These decide on
# the exact values, where the computed extremes of two different values
# could only agree by rounding (a difference below the precision of a
# double); the tests compare them with best != worst on random queries.


class _Rule(NamedTuple):
    kind: str  # the family's note (not "free"), or "compute" (the extremes)
    rel: int  # the relevance level of a binary measure (0: every label counts)
    cut: Optional[int]  # the cutoff k; None: all n ("count_R": R)
    measure: Measure


def _note_rule(m: Measure, env: Env, costs: Optional[Mapping[str, Any]]) -> Optional[_Rule]:
    ties = m.family.ties
    if ties is None or ties.note == "free" or not supports(m, "best", costs=costs is not None):
        return None
    kind, k = ties.note, _opt_int(m.param)
    if kind == "ndcg":  # its options: gain and discount
        simple = m.option("gain") in (None, "linear") and m.option("discount") in (None, "log2")
        return _Rule("ndcg" if simple else "compute", 0, k, m)
    rel = int(m.rel(env))  # the boundary checked it: an int >= 1
    if kind in ("binary", "labels"):
        return _Rule("compute", rel if kind == "binary" else 0, None, m)
    return _Rule(kind, rel, k, m)


def tie_note_test(
    measures: Sequence[Measure], env: Env, judged_only: bool, costs: Optional[Mapping[str, Any]]
) -> Callable[[QueryData, _t.TieInfo], bool]:
    """The command line's note: a function of one query's data (in trec_eval's
    order) and blocks telling whether the order of its tied scores moves the
    value of any of *measures* that has ties "best" and "worst", with the
    *costs* given (None: none; the order-free counts aside): whether best and
    worst differ for one of them."""
    rules = [r for r in (_note_rule(m, env, costs) for m in dict.fromkeys(measures)) if r]
    # the decisions from the blocks first, the computed extremes last
    rules.sort(key=lambda r: r.kind == "compute")

    def moved(q: QueryData, info: _t.TieInfo) -> bool:
        blocks, n = info.tied, info.n  # only blocks of two or more can move a value
        if not _t.mixed(blocks):
            return False  # every block holds one label: nothing can move
        if judged_only:
            if any(s + size > n and any(x is not None and x >= 0 for x in labels)
                   for s, size, labels in blocks):
                return any(_extremes_differ(r.measure, q, info, env, judged_only)
                           for r in rules)
            blocks, n = _t.judged_only(info.blocks(), n)
            blocks = [b for b in blocks if b[1] > 1]
        levels: Dict[int, _t.Levels] = {}
        gains_from = -1  # the start of the first block mixing gains (n: none)
        for rule in rules:
            cut = n if rule.cut is None else min(rule.cut, n)
            if rule.kind == "ndcg":
                if gains_from < 0:
                    gains_from = next((s for s, size, labels in blocks
                                       if _t.gains_mixed(size, labels)), n)
                if gains_from < cut:
                    return True
                continue
            at = levels.get(rule.rel)
            if at is None and rule.rel:
                ranks = q.relevant_ranks(rule.rel)
                at = levels[rule.rel] = _t.Levels(blocks, rule.rel, ranks[0] - 1 if ranks else -1)
            if rule.kind == "compute":
                mixed = at.mixed if at is not None else _t.mixed(blocks)
                if mixed and _extremes_differ(rule.measure, q, info, env, judged_only):
                    return True
                continue
            at = cast(_t.Levels, at)  # the other kinds are binary: rel >= 1
            if rule.kind == "count_R":
                cut = min(q.n_relevant(rule.rel), n)
            if rule.kind == "ap":
                if at.mixed and at.mixed[0][0] < cut:
                    return True
            elif rule.kind.startswith("count"):
                if any(s < cut < s + size for s, size in at.mixed):
                    return True
            elif 0 <= at.first_best < cut:
                worst = at.first_worst
                if (worst != at.first_best) if rule.kind == "rr" else worst >= cut:
                    return True
        return False

    return moved


def _extremes_differ(m: Measure, q: QueryData, info: _t.TieInfo, env: Env,
                     judged_only: bool) -> bool:
    return bool(tie_value("best", m, q, info, env, judged_only)
                != tie_value("worst", m, q, info, env, judged_only))


# === Explain terms (irmetrics.explain) ======================================
# A family's entry may give, as explain=, how its value is derived rank by
# rank: a function of the query's Ranking (its data, the measure, the
# settings and the rows: dicts with rank, doc, score, label and tie, in the
# order the measure sees them) that adds the measure's own terms to each row
# and says how they add up.  The terms are for reading; the value is compute's.

Row = Dict[str, Any]
Number = Union[int, float]

#: Terms written out in a sum before the middle is elided.
_MAX_TERMS_WRITTEN = 12


class Terms(NamedTuple):
    """What a family's explain function returns, besides the columns it fills in."""

    columns: List[str]
    formula: str
    steps: List[str]
    extent: Optional[int] = None  # rows the derivation needs (None: all)
    rest: str = "they add nothing"  # why the rows after extent need not be shown
    n_relevant: Optional[int] = None
    ideal: Optional[Dict[str, Any]] = None


class Ranking:
    """What a family's explain function reads: one query's data *q*, the
    measure *m* (its cutoff *k*, its relevance level *rel* and the query's R,
    *big_r*), the settings *env* and the *rows* it adds its terms to."""

    def __init__(self, q: QueryData, m: Measure, env: Env, rows: List[Row]) -> None:
        self.q = q
        self.m = m
        self.env = env
        self.rows = rows
        self.k = _opt_int(m.param)
        self.rel = m.rel(env)
        self.big_r = q.n_relevant(self.rel)

    def relevant_ranks(self, precision: bool = False) -> List[int]:
        """Mark each row ``relevant``, count ``hits`` (relevant so far) and,
        with *precision*, give the relevant rows their ``precision`` (hits /
        rank); the 1-based relevant ranks."""
        ranks: List[int] = []
        for r, x in zip(self.rows, self.q.labels):
            r["relevant"] = x is not None and x >= self.rel
            if r["relevant"]:
                ranks.append(r["rank"])
            r["hits"] = len(ranks)
            if precision:
                r["precision"] = len(ranks) / r["rank"] if r["relevant"] else None
        return ranks

    def r_text(self) -> str:
        """R, and how many judged documents of each relevant label make it."""
        levels = ", ".join(f"{c} at label {lvl}" for lvl, c
                           in sorted(self.q.levels.items(), reverse=True) if lvl >= self.rel)
        return (f"R = {self.big_r} (judged documents with label >= {self.rel}"
                f"{': ' + levels if levels else ''})")

    def inside(self, rank: int) -> bool:
        """Whether 1-based *rank* is within the cutoff."""
        return self.k is None or rank <= self.k


TermFunction = Callable[[Ranking], Terms]


def _fmt(x: Any) -> str:
    if isinstance(x, bool):
        return "yes" if x else "no"
    return f"{x:.4f}" if isinstance(x, float) else str(x)


def _list(items: Any) -> str:
    return ", ".join(_fmt(x) for x in items)


def _sum_text(terms: Sequence[Number]) -> str:
    """``a + b + c`` (the middle elided when long)."""
    if not terms:
        return "0"
    parts = [_fmt(t) for t in terms]
    if len(parts) > _MAX_TERMS_WRITTEN:
        parts = parts[:3] + [f"... ({len(parts) - 6} more)"] + parts[-3:]
    return " + ".join(parts)


def _eq(terms: Sequence[Number], total: float) -> str:
    """``a + b = total``, or ``total`` alone for one term or none."""
    return _fmt(total) if len(terms) <= 1 else f"{_sum_text(terms)} = {_fmt(total)}"


def _divide(a: Number, b: Number, zero: str = "R = 0: the value is 0") -> str:
    """``a / b = value``, or *zero* when *b* is 0."""
    return f"{_fmt(a)} / {_fmt(b)} = {_fmt(a / b)}" if b else zero


def _summed(rows: List[Row]) -> Tuple[List[float], float]:
    """The rows' contributions (where they have one) and their sum."""
    terms = [r["contribution"] for r in rows if r["contribution"] is not None]
    return terms, math.fsum(terms)


def _top(k: Optional[int]) -> Tuple[Optional[int], str]:
    """Terms' extent and rest for a measure of the top *k* rows."""
    return k, f"below the cutoff k = {k}"


def _after(ranks: Sequence[int], k: Optional[int]) -> Tuple[Optional[int], str]:
    """Rows needed up to the last relevant rank (or the cutoff, if it comes first)."""
    last = ranks[-1] if ranks else 0
    if k is not None and k <= last:
        return _top(k)
    return last, "no relevant document"


def _over_r(c: Ranking, columns: List[str], formula: str, ranks: Sequence[int], summed: str,
            *before: str) -> Terms:
    """The terms of a measure that adds the rows' contributions (*summed*
    says what they are) and divides the sum by R: AP, bpref, infAP, binG."""
    terms, total = _summed(c.rows)
    steps = [*before, f"{summed} = {_eq(terms, total)}", c.r_text(), _divide(total, c.big_r)]
    return Terms(columns, formula, steps, *_after(ranks, c.k), n_relevant=c.big_r)


def _terms_ap(c: Ranking) -> Terms:
    ranks = c.relevant_ranks(precision=True)
    for r in c.rows:
        r["contribution"] = r["precision"] if r["relevant"] and c.inside(r["rank"]) else None
    cut = "" if c.k is None else f" within the top {c.k}"
    return _over_r(c, ["relevant", "hits", "precision", "contribution"],
                   "AP = (sum of P@rank over the relevant ranks) / R", ranks,
                   f"sum of precision at each relevant rank{cut}")


def _k(c: Ranking, *_: Any) -> int:
    return int(c.k or 0)


def _big_r(c: Ranking, *_: Any) -> int:
    return c.big_r


def _n(c: Ranking) -> int:  # the set measures' cut: every document retrieved
    return len(c.rows)


def _min_r(c: Ranking, cut: int) -> int:
    return min(cut, c.big_r)


def _the_count(hits: int, *_: Any) -> List[str]:  # the count is the value: no more steps
    return []


#: The last steps of a count of relevant documents: of (the count, the cut,
#: R, the measure).
CountSteps = Callable[[int, int, int, Ranking], List[str]]


def _hits_terms(formula: str, cut_of: Callable[[Ranking], int],
                over: Optional[Callable[[Ranking, int], int]] = None,
                last: Optional[CountSteps] = None) -> TermFunction:
    """The terms of the relevant documents in the top ``cut_of(c)`` ranks,
    counted and divided by ``over(c, cut)`` (None: the cut; or, with *last*, its steps):
    P, recall, Rprec, Rprec_mult, relative_P, and the measures of the
    retrieved set (the cut: every document retrieved)."""

    def terms(c: Ranking) -> Terms:
        ranks = c.relevant_ranks()
        cut = cut_of(c)
        hits = _m._hits(ranks, cut)
        found = f" (ranks {_list(ranks[:hits])})" if hits else ""
        steps = [c.r_text(), f"relevant in the top {cut}: {hits}{found}"]
        if last is not None:
            steps += last(hits, cut, c.big_r, c)
        else:
            divisor = cut if over is None else over(c, cut)
            steps.append(_divide(hits, divisor, "nothing to divide by: the value is 0"))
        return Terms(["relevant", "hits"], formula, steps, cut, f"below rank {cut}",
                     n_relevant=c.big_r)

    return terms


_terms_p = _hits_terms("P@k = (relevant documents in the top k) / k", _k, _k)
_terms_recall = _hits_terms("recall@k = (relevant documents in the top k) / R", _k, _big_r)
_terms_rprec = _hits_terms("Rprec = (relevant documents in the top R) / R", _big_r, _big_r)
_terms_rprec_mult = _hits_terms(
    "Rprec_mult = (relevant in the top m*R) / (m*R), m*R as int(m * R + 0.9) (trec_eval's "
    "rounding)", lambda c: int(float(c.m.param or 1.0) * c.big_r + 0.9))
_terms_relative_p = _hits_terms("relative_P@k = (relevant in the top k) / min(k, R)", _k, _min_r)
_terms_num_rel_ret = _hits_terms("num_rel_ret = relevant documents ranked", _n, last=_the_count)


def _terms_rr(c: Ranking) -> Terms:
    ranks = c.relevant_ranks()
    first = ranks[0] if ranks and c.inside(ranks[0]) else None
    for r in c.rows:
        r["contribution"] = 1.0 / r["rank"] if r["rank"] == first else None
    if first is None:
        cut = "" if c.k is None else f" in the top {c.k}"
        extent, rest = (0, "no relevant document") if c.k is None else _top(c.k)
        steps = [f"no relevant document{cut}: the value is 0"]
    else:
        extent, rest = first, "after the first relevant document"
        steps = [f"the first relevant document is at rank {first}: 1 / {first} = "
                 f"{_fmt(1.0 / first)}"]
    return Terms(["relevant", "contribution"], "RR = 1 / (rank of the first relevant document)",
                 steps, extent, rest)


def _terms_success(c: Ranking) -> Terms:
    ranks = c.relevant_ranks()
    hit = bool(ranks) and c.inside(ranks[0])
    return Terms(["relevant"], "success@k = 1 if a relevant document is in the top k, else 0",
                 [f"a relevant document in the top {c.k}: "
                  + (f"yes, at rank {ranks[0]}" if hit else "no")], *_top(c.k))


def _terms_num_ret(c: Ranking) -> Terms:
    return Terms([], "num_ret = documents ranked", [f"documents ranked: {len(c.rows)}"],
                 0, "every ranked document counts once")


def _terms_num_q(c: Ranking) -> Terms:
    return Terms([], "num_q = 1 for each query evaluated", ["this query counts 1"],
                 0, "the ranking does not matter")


def _terms_num_rel(c: Ranking) -> Terms:
    return Terms([], "num_rel = R, judged documents with label >= rel", [c.r_text()],
                 0, "R does not depend on the ranking", n_relevant=c.big_r)


def _terms_num_nonrel(c: Ranking) -> Terms:
    for r in c.rows:
        r["nonrelevant"] = r["label"] is not None and 0 <= r["label"] < c.rel
    count = sum(1 for r in c.rows if r["nonrelevant"])
    return Terms(["nonrelevant"], f"judged documents ranked with 0 <= label < {c.rel}",
                 [f"judged non-relevant ranked: {count}"])


def _set_map_steps(hits: int, n: int, big_r: int, c: Ranking) -> List[str]:
    if not n or not big_r:
        return ["nothing retrieved or R = 0: 0"]
    return [f"({hits} / {n}) * ({hits} / {big_r}) = {_fmt(hits * hits / (n * big_r))}"]


def _utility_steps(hits: int, n: int, big_r: int, c: Ranking) -> List[str]:
    # coefficients times relevant retrieved, non-relevant retrieved, relevant
    # not retrieved, the rest of the collection (-N, 0 unless given)
    text, value = _utility_table(hits, n, big_r, c.m, c.env)
    return [f"{text} = {_fmt(value)}"]


def _set_f_steps(hits: int, n: int, big_r: int, c: Ranking) -> List[str]:
    if not (hits and big_r and n):
        return ["nothing relevant retrieved: 0"]
    x = float(c.m.option("weight", 1.0))  # trec_eval's x, the usual F's beta**2
    p, r = hits / n, hits / big_r
    return [f"P = {hits} / {n} = {_fmt(p)}; R = {hits} / {big_r} = {_fmt(r)}; x = {x:g}",
            f"(1 + {x:g}) * {_fmt(p)} * {_fmt(r)} / ({x:g} * {_fmt(p)} + {_fmt(r)})"]


def _terms_bpref(c: Ranking) -> Terms:
    ranks = c.relevant_ranks()
    big_n = c.q.n_nonrelevant(c.rel)
    bound = min(c.big_r, big_n)
    seen = 0  # judged non-relevant documents so far
    for r in c.rows:
        r["nonrel_above"] = r["penalty"] = r["contribution"] = None
        if r["relevant"]:
            r["nonrel_above"] = seen
            r["penalty"] = min(seen, bound) / bound if seen else 0.0
            r["contribution"] = 1.0 - r["penalty"]
        elif r["label"] is not None and r["label"] >= 0:
            seen += 1
    return _over_r(c, ["relevant", "nonrel_above", "penalty", "contribution"],
                   "bpref = (1/R) * sum over relevant ranked of "
                   "(1 - min(judged non-relevant above, min(R, N)) / min(R, N))", ranks,
                   f"sum of (1 - min(nonrel above, {bound}) / {bound})",
                   f"N = {big_n} judged non-relevant documents; min(R, N) = {bound}")


def _terms_infap(c: Ranking) -> Terms:
    # The counts trec_eval's m_infap.c reads at each relevant rank, and the
    # estimate it adds there.
    ranks = c.relevant_ranks()
    rel_so_far = nonrel_so_far = pooled = 0
    for j, r in enumerate(c.rows):
        r["judged_above"] = r["contribution"] = None
        if r["relevant"]:
            r["judged_above"] = f"{rel_so_far}+{nonrel_so_far}+{pooled}"
            r["contribution"] = _t.infap_term(rel_so_far, nonrel_so_far, pooled, j)
            rel_so_far += 1
        elif r["label"] is not None:
            if r["label"] < 0:
                pooled += 1
            else:
                nonrel_so_far += 1
    return _over_r(c, ["relevant", "judged_above", "contribution"],
                   "infAP = (1/R) * sum over relevant ranks k of 1/k + ((k-1)/k) * "
                   "(pooled above / (k-1)) * (r + eps) / (r + n + 2 eps)", ranks,
                   "sum of the estimates",
                   "judged_above: relevant + non-relevant + pooled-unjudged above the rank")


def _terms_iprec(c: Ranking) -> Terms:
    ranks = c.relevant_ranks(precision=True)
    level = float(c.m.param or 0.0)
    version = c.env.trec_eval
    need = max(version.recall_cutoff(level * c.big_r), 1)
    for r in c.rows:
        r["counts"] = bool(r["relevant"] and r["hits"] >= need)
    eligible = [r["precision"] for r in c.rows if r["counts"]]
    steps = [c.r_text()]
    if c.big_r:
        rounded = version.recall_cutoff_text.replace("x", f"{level:.2f} * {c.big_r}")
        steps.append(f"recall {level:.2f} needs max({rounded}, 1) = {need} relevant documents "
                     f"(trec_eval {version.name}'s rounding)")
        steps.append(f"the highest precision at a relevant rank with at least {need} found: "
                     + (f"max({_sum_text(eligible).replace(' + ', ', ')})" if eligible
                        else "none: 0"))
    else:
        steps.append("R = 0: the value is 0")
    return Terms(["relevant", "hits", "precision", "counts"],
                 "iprec_at_recall = max P@rank over the relevant ranks where recall >= level",
                 steps, *_after(ranks, None), n_relevant=c.big_r)


def _terms_11pt(c: Ranking) -> Terms:
    ranks = c.relevant_ranks(precision=True)
    levels = c.m.option("levels", _m._ELEVEN_POINTS)
    at = ("0.0, 0.1, ..., 1.0" if levels == _m._ELEVEN_POINTS
          else ", ".join(f"{lvl:g}" for lvl in levels))
    steps = [c.r_text()]
    if not c.big_r:
        steps.append("R = 0: the value is 0")
    elif list(levels) == sorted(levels):
        points = [_m._interpolated_sum(ranks, len(c.rows), (lvl,), c.big_r,
                                       c.env.trec_eval.recall_cutoff) for lvl in levels]
        steps.append(f"interpolated precision at recall {at}: " + _list(points))
        mean = math.fsum(points) / len(points)
        steps.append(f"({_sum_text(points)}) / {len(points)} = {_fmt(mean)}")
    else:
        # m_11pt_avg.c walks the levels from the last; a level it has passed
        # takes the final value (see metrics._interpolated_sum)
        steps.append(f"levels out of order: trec_eval's walk from the last level gives "
                     f"{_fmt(c.m.compute(c.q, c.env))}")
    return Terms(["relevant", "hits", "precision"],
                 f"11pt_avg = mean of iprec_at_recall at recall {at}", steps,
                 *_after(ranks, None), n_relevant=c.big_r)


def _terms_bin_g(c: Ranking) -> Terms:
    ranks = c.relevant_ranks()
    for r in c.rows:
        r["nonrel_above"] = r["rank"] - r["hits"] if r["relevant"] else None
        r["contribution"] = 1.0 / math.log2(2 + r["nonrel_above"]) if r["relevant"] else None
    return _over_r(c, ["relevant", "nonrel_above", "contribution"],
                   "binG = (1/R) * sum over relevant ranked of 1 / log2(2 + non-relevant above)",
                   ranks, "sum")


def _gains(c: Ranking) -> Tuple[List[float], List[Tuple[int, float]]]:
    """The gains of the ranked documents, under the measure's gain option, and
    ``(label, gain)`` of the ideal ranking's positive gains, highest first."""
    return _gains_and_ideal(c.q, c.m)[0], _ideal_pairs(c.q, _gain_of(c.m))


def _ideal_pairs(q: QueryData, gain_of: Callable[[Label], float]) -> List[Tuple[int, float]]:
    """``(label, gain)`` of the ideal ranking's positive gains, highest first."""
    pairs = [(lvl, gain_of(lvl)) for lvl in q.levels for _ in range(q.levels[lvl])]
    pairs.sort(key=lambda p: p[1], reverse=True)
    return [p for p in pairs if p[1] > 0]


def _ideal_of(pairs: List[Tuple[int, float]], dcg: Optional[float]) -> Dict[str, Any]:
    """The ideal ranking as :attr:`Terms.ideal` gives it."""
    return {"labels": [lvl for lvl, _ in pairs], "gains": [g for _, g in pairs], "dcg": dcg}


def _terms_ndcg(c: Ranking) -> Terms:
    k = c.k
    discount = c.m.option("discount", "log2")
    disc = _m._discount_function(discount, None)
    gains, pairs = _gains(c)
    for r, g in zip(c.rows, gains):
        inside = c.inside(r["rank"])
        r["gain"] = g if inside else None
        r["discount"] = disc(r["rank"]) if inside else None
        # m_ndcg.c's term, gain / log2(rank + 1): dcg adds these left to right
        r["contribution"] = (g / math.log2(r["rank"] + 1) if discount == "log2"
                             else g * r["discount"]) if inside and g else None
    terms, dcg = _summed(c.rows)
    top = pairs[:k]
    ideal_terms = [g * disc(i) for i, (_, g) in enumerate(top, 1)]
    idcg = math.fsum(ideal_terms)
    last = max((r["rank"] for r in c.rows if r["contribution"] is not None), default=0)
    extent, rest = _top(k) if k is not None else (last, "no gain")
    gain = c.m.option("gain", "linear")
    gain_text = {"linear": "the label", "exp": "2^label - 1"}.get(gain) or (
        "the map " + ", ".join(f"{lvl}={g:g}" for lvl, g in gain) + " (other labels: themselves)")
    dtext = "1 / log2(rank + 1)" if discount == "log2" else \
        "1 for ranks below 2, else 1 / log2(rank)"
    steps = [
        f"gain = {gain_text}; discount = {dtext}",
        f"DCG = {_eq(terms, dcg)}",
        "ideal ranking (labels): " + (_list(lvl for lvl, _ in top) if top else "none")
        + (f" (the top {k})" if k is not None else ""),
        f"IDCG = {_eq(ideal_terms, idcg)}",
        _divide(dcg, idcg, "IDCG = 0: the value is 0"),
    ]
    return Terms(["gain", "discount", "contribution"],
                 "nDCG = DCG / IDCG, DCG = sum of gain * discount over the ranks", steps,
                 extent, rest, ideal=_ideal_of(top, idcg))


def _running_dcg(c: Ranking) -> Tuple[List[Tuple[int, float]], float, float]:
    """Give each row its gain, DCG and IDCG so far and their ratio (the points
    ndcg_rel and Rndcg average); the ideal pairs, the DCG at the end of the
    ranking and the whole ideal's DCG (it may go on past the ranking)."""
    gains, pairs = _gains(c)
    ideal_dcg = _m._running_dcg([g for _, g in pairs], [])  # the ideal's, after each gain
    dcg = 0.0
    for i, r in enumerate(c.rows):
        if gains[i]:
            dcg += gains[i] / math.log2(i + 2)
        idcg = ideal_dcg[min(i, len(pairs) - 1)] if pairs else 0.0
        r.update(gain=gains[i], dcg=dcg, idcg=idcg, ratio=dcg / idcg if idcg > 0 else None)
    return pairs, dcg, ideal_dcg[-1] if pairs else 0.0


def _running_terms(pairs: List[Tuple[int, float]], idcg: float, formula: str,
                   steps: List[str]) -> Terms:
    return Terms(["gain", "dcg", "idcg", "ratio"], formula, steps, ideal=_ideal_of(pairs, idcg))


def _terms_ndcg_rel(c: Ranking) -> Terms:
    pairs, dcg, end_idcg = _running_dcg(c)
    ideal = [g for _, g in pairs]
    points = [r["ratio"] for r in c.rows if r["gain"] > 0]
    missing = len(ideal) - len(points)
    end = dcg / end_idcg if end_idcg > 0 else 0.0
    steps = [f"ideal gains: {_list(ideal)}",
             f"DCG/IDCG at the relevant ranks: {_sum_text(points) if points else 'none'}"]
    if missing > 0:
        steps.append(f"{missing} relevant document(s) not retrieved, each counting DCG/IDCG "
                     f"at the end: {dcg:.4f} / {end_idcg:.4f} = {_fmt(end)}")
    if ideal:
        total = math.fsum(points + [missing * end])
        steps.append(f"({_sum_text(points + [end] * missing)}) / {len(ideal)} = "
                     f"{_fmt(total / len(ideal))}")
    else:
        steps.append("no relevant document: 0")
    return _running_terms(pairs, end_idcg, "ndcg_rel = mean over the relevant documents of "
                          "DCG/IDCG at their rank (unretrieved ones: at the end of the ranking)",
                          steps)


def _terms_rndcg(c: Ranking) -> Terms:
    pairs, _, idcg = _running_dcg(c)
    return _running_terms(pairs, idcg, "Rndcg = mean of DCG/IDCG at the ranks where the ideal gain "
                          "changes level, and at the end of the ranking", [
                              f"ideal gains: {_list(g for _, g in pairs)}",
                              "DCG/IDCG is read where the ideal gain steps down "
                              "(see the idcg column)"])


def _terms_g(c: Ranking) -> Terms:
    gains, pairs = _gains(c)
    gained = cost = 0.0
    for i, (r, g) in enumerate(zip(c.rows, gains)):
        gained += g
        ig = pairs[i][1] if i < len(pairs) else 0.0
        cost += ig if ig >= 1.0 else 1.0
        r.update(gain=g, cost=cost, gained=gained,
                 contribution=g / math.log2(2 + cost - gained) if g else None)
    terms, total = _summed(c.rows)
    total_ideal = math.fsum(g for _, g in pairs)
    return Terms(["gain", "cost", "gained", "contribution"],
                 "G = (1 / total ideal gain) * sum of gain / log2(2 + cost - gained)", [
                     f"sum = {_eq(terms, total)}", f"total ideal gain = {_fmt(total_ideal)}",
                     _divide(total, total_ideal, "no ideal gain: 0"),
                 ], ideal=_ideal_of(pairs, None))


def _terms_dcg(c: Ranking) -> Terms:
    # trec_eval 10.0's dcg and ideal_dcg: nDCG's numerator and denominator
    t = _terms_ndcg(c)
    if c.m.family.key == "dcg":
        return t._replace(formula="dcg = sum of gain / log2(rank + 1) over the ranks",
                          steps=t.steps[:2])
    return t._replace(columns=[], formula="ideal_dcg = dcg of the judged documents, best first",
                      steps=t.steps[:1] + t.steps[2:4], extent=0,
                      rest="the ranking does not matter")


def _terms_rbp_trec(c: Ranking) -> Terms:
    # trec_eval 10.0's rbp (m_rbp.c) and rbp_resid (m_rbp_resid.c): the
    # weights p^(rank - 1) by repeated products, the terms added left to right
    p, given = _rbp_p_and_gains(c.m)
    resid, gain_of = c.m.family.key == "rbp_resid", _rbp_gain_of(c.q, given)
    w = 1.0
    for r in c.rows:
        r["weight"], r["unjudged"] = w, r["label"] is None or r["label"] < 0
        r["gain"] = None if r["unjudged"] else gain_of(r["label"])
        r["contribution"] = (w if r["unjudged"] else None) if resid else \
            (r["gain"] * w if r["gain"] else None)
        w *= p
    terms = [r["contribution"] for r in c.rows if r["contribution"] is not None]
    total = _m._left_to_right(terms)
    if not resid:
        top = max(c.q.levels, default=-1)
        table = ", ".join(f"{lvl} -> {_fmt(gain_of(lvl))}" for lvl in range(top + 1))
        return Terms(["gain", "weight", "contribution"], "rbp = (1 - p) * sum of gain * "
                     f"p^(rank - 1), p = {p:g}, gains in [0, 1]", [
                         f"gain by label: {table or 'none'} (m_rbp.c's scaling)",
                         f"sum = {_eq(terms, total)}",
                         f"(1 - {p:g}) * {_fmt(total)} = {_fmt((1.0 - p) * total)}"])
    return Terms(["unjudged", "weight", "contribution"], "rbp_resid = (1 - p) * sum of "
                 f"p^(rank - 1) over the unjudged ranks + p^n, p = {p:g}", [
                     f"sum = {_eq(terms, total)}; past the end: p^{len(c.rows)} = {_fmt(w)}",
                     f"{_fmt(w)} + (1 - {p:g}) * {_fmt(total)} = {_fmt(w + (1.0 - p) * total)}"
                     if terms else "no unjudged document: the value is 0 (m_rbp_resid.c)"])


def _terms_yaap(c: Ranking) -> Terms:
    t = _terms_ap(c)  # its rows: P@rank at each relevant rank, s their sum
    s = _m._left_to_right(r["contribution"] for r in c.rows if r["contribution"] is not None)
    return t._replace(formula="yaap = log((1 + s) / (1 + R - s)), s = the sum of P@rank over "
                      "the relevant ranks (AP's numerator)", steps=t.steps[:2] + [
                          f"log((1 + {_fmt(s)}) / (1 + {c.big_r} - {_fmt(s)})) = "
                          f"{_fmt(c.m.compute(c.q, c.env))}"])


def _terms_avgjg(c: Ranking) -> Terms:
    # the measure in each judgment group (a query's data without groups is
    # one), added in the groups' order and divided by their number
    groups = [c.q] if c.q.groups is None else c.q.groups
    values = [c.m.compute(g, c.env) for g in groups]
    total = _m._left_to_right(values)
    steps = [f"judgment group {i} (the groups by id): {_fmt(v)}, R = {g.n_relevant(c.rel)}"
             for i, (g, v) in enumerate(zip(groups, values), 1)]
    steps.append(f"({_sum_text(values)}) / {len(values)} = {_fmt(total / len(values))}"
                 if len(values) > 1 else f"one judgment group: {_fmt(total)}")
    return Terms([], f"{c.m.family.key} = (sum over the query's judgment groups of "
                 f"{c.m.family.key[:-6]} in the group) / groups", steps)


def _terms_prefs(c: Ranking) -> Terms:
    # every prefs_* family's: each judgment group's preferences fulfilled
    # (the preferred document ranked above the other, or retrieved and the
    # other not) and possible, by where the two documents are
    value = c.m.compute(c.q, c.env)  # (it counts q.prefs if the scorer did not)
    key, p = c.m.family.key, cast(_prefs.Prefs, c.q.prefs)
    areas = 1 if key.endswith("_ret") else 2 if key.endswith("_imp") else 3
    counts, steps = [], []
    for i, g in enumerate(p.groups, 1):
        classes = " > ".join(f"{lvl:g} ({len(ranks)})" for lvl, ranks in g.ecs)
        steps.append(f"judgment group {i}: " + (f"levels {classes}" if g.ecs else "a partial order")
                     + f"; fulfilled/possible: both retrieved {g.ful_ret}/{g.poss_ret}, one "
                     f"{g.ful_imp}/{g.poss_imp}, neither 0/{g.notoccur}")
        counts.append(_prefs._in_areas(g, areas))
    ful, poss = sum(f for f, _ in counts), sum(n for _, n in counts)
    if "simp" in key:
        steps.append(f"{ful} / {poss} = {_fmt(value)}" if poss else "nothing possible: 0")
    elif key in ("prefs_avgjg", "prefs_avgjg_ret", "prefs_avgjg_imp"):
        ratios = [f / n if n else 0.0 for f, n in counts]
        steps.append(f"({_sum_text(ratios)}) / {len(ratios)} = {_fmt(value)}")
    else:
        steps.append(f"{c.m.family.summary[:-1]}: {_fmt(value)}")
    return Terms([], f"{key}: {c.m.family.summary} A preference is fulfilled when its "
                 "preferred document is ranked above the other", steps)


def _terms_err(c: Ranking) -> Terms:
    max_label = _err_max_label(c.m, c.env)
    reach = 1.0
    for r, x in zip(c.rows, c.q.labels):
        g = x if x is not None and x > 0 else 0
        stop = (2.0 ** (g - max_label) - 2.0 ** -max_label) if g and max_label > 0 else 0.0
        inside = c.inside(r["rank"])
        r["stop"] = stop if inside else None
        r["reach"] = reach if inside else None
        r["contribution"] = reach * stop / r["rank"] if inside and stop else None
        if inside:
            reach *= 1.0 - stop
    terms, total = _summed(c.rows)
    return Terms(["stop", "reach", "contribution"],
                 "ERR = sum of P(reach rank) * R_rank / rank, R = (2^label - 1) / 2^max_label",
                 [f"max_label = {max_label}", f"ERR = {_eq(terms, total)}"], *_top(c.k))


def _terms_rbp(c: Ranking) -> Terms:
    if c.m.option("quantity") is not None:  # a C/W/L quantity, which compute gives
        return _terms_cwl(c)
    ranks = c.relevant_ranks()
    p = float(c.m.option("p", 0.8))
    w = 1.0
    for r in c.rows:
        r["weight"] = w if c.inside(r["rank"]) else None
        r["contribution"] = w if c.inside(r["rank"]) and r["relevant"] else None
        w *= p
    terms, total = _summed(c.rows)
    unknown = _m._unknown(_m._cut(c.q.labels, c.k))
    unjudged = [r["weight"] for r, u in zip(c.rows, unknown) if u]
    return Terms(["relevant", "weight", "contribution"],
                 f"RBP = (1 - p) * sum of p^(rank - 1) over the relevant ranks, p = {p:g}", [
                     f"sum = {_eq(terms, total)}",
                     f"residual (the unjudged ranks and those past rank {len(unknown)} at gain "
                     f"1): p^{len(unknown)} + (1 - {p:g}) * ({_sum_text(unjudged)}) = "
                     f"{_fmt(_cwl.residual(unknown, [p], None))}",
                     f"(1 - {p:g}) * {total:.4f} = {_fmt((1.0 - p) * total)}",
                 ], *_after(ranks, c.k))


def _terms_judged(c: Ranking) -> Terms:
    top = c.rows[:c.k]
    for r in c.rows:
        r["judged"] = r["label"] is not None and r["label"] >= 0
    judged = sum(1 for r in top if r["judged"])
    if c.m.family.key == "unj":  # trec_eval 10.0's unj@k: the unjudged over k itself
        return Terms(["judged"], "unj@k = (unjudged documents in the top k) / k",
                     [_divide(len(top) - judged, c.k or len(top), "nothing ranked: 0")],
                     *_top(c.k))
    return Terms(["judged"], "Judged@k = (judged documents in the top k) / min(k, ranked)",
                 [_divide(judged, len(top), "nothing ranked: 0")], *_top(c.k))


def _terms_accuracy(c: Ranking) -> Terms:
    c.relevant_ranks()
    top = c.rows[:c.k]
    for r in c.rows:
        inside = r["relevant"] and r["rank"] <= len(top)
        r["nonrel_above"] = r["rank"] - r["hits"] if inside else None
    above = [r["nonrel_above"] for r in top if r["nonrel_above"] is not None]
    nonrel = len(top) - len(above)
    value = c.m.compute(c.q, c.env)
    last = (f"1 - ({_sum_text(above)}) / ({nonrel} * {len(above)}) = {_fmt(value)}"
            if above and nonrel else f"no {'non-' if above else ''}relevant document: {value:g}")
    return Terms(["relevant", "nonrel_above"], "Accuracy@k = 1 - (sum over the relevant in the "
                 "top k of the non-relevant above) / (non-relevant * relevant in the top k)", [
                     f"in the top {len(top)}: {len(above)} relevant, {nonrel} non-relevant "
                     "(unjudged included)", last], *_top(c.k))


def _terms_compat(c: Ranking) -> Terms:
    ranked = [(i, x) for i, x in c.q.placed() if x > 0]
    overlaps, size = _m._compat_overlaps(ranked, c.q.levels, c.q.n)
    for r, overlap in zip(c.rows, overlaps):
        r["overlap"] = overlap
    p = c.m.option("p", 0.95)
    ideal = sorted((x for x in c.q.levels for _ in range(c.q.levels[x]) if x > 0), reverse=True)
    return Terms(["overlap"], "Compat = RBO(ranking, ideal) / RBO(ideal, ideal), RBO = "
                 "sum p^(i-1) overlap_i / i / sum p^(i-1) to depth max(n, ideal's length)", [
                     f"ideal (labels; the ranked first, in rank order): {_list(ideal) or 'none'}",
                     f"p = {p:g}; depth {len(overlaps)}; RBO(ranking, ideal) = "
                     f"{_fmt(_m._rbo(overlaps, p) if size else 0.0)}",
                     f"Compat = {_fmt(c.m.compute(c.q, c.env))}"])


def _terms_cwl(c: Ranking) -> Terms:
    # every C/W/L family's: the worst case's continuation and weight at each
    # rank, the five quantities and the residuals (the value is compute's)
    m, q = c.m, c.q
    gains = _cwl_gains(q.labels, m, c.env)
    cont, weights = _cwl.vectors(m.family.key, gains, costs=q.costs, **_cwl_args(m))
    costs: Sequence[Optional[float]] = [None] * len(gains) if q.costs is None else q.costs
    for r, g, x, w, cost in zip(c.rows, gains, cont, weights, costs):
        r.update(gain=g, cost=cost, continuation=x, weight=w, contribution=w * g if g else None)
    terms, _ = _summed(c.rows)
    v = dict(zip(_cwl.QUANTITIES, _cwl_all(q, m, c.env)))
    rest = math.fsum(weights[len(c.rows):])
    unjudged = math.fsum(w for w, g in zip(weights, gains) if g is None)

    def listed(names: Sequence[str]) -> str:
        return ", ".join(f"{n} = {_fmt(v[n])}" for n in names)

    return Terms(["gain"] + ["cost"] * (q.costs is not None) + ["continuation", "weight",
                                                               "contribution"],
                 f"{m.family.summary} EU = sum of W_i g_i over {_cwl.DEPTH} ranks, W_i = "
                 "C_1 ... C_(i-1) / sum_j C_1 ... C_(j-1)", [
                     "gain: unjudged documents, and the ranks past the ranking's end, gain 0",
                     f"EU = {_eq(terms, v['EU'])}",
                     f"{listed(_cwl.QUANTITIES[1:5])} (ED = 1 / W_1)",
                     f"the unknown ranks weigh {_fmt(unjudged + rest)}: the unjudged "
                     f"{_fmt(unjudged)}, those past the ranking's end, to {_cwl.DEPTH}, "
                     f"{_fmt(rest)} (ResEU when they move no weight: irmetrics.cwl.residual)",
                     "residuals (unjudged and past-the-end ranks at gain 1, minus at gain 0): "
                     + listed(_cwl.QUANTITIES[5:]),
                     f"the value is {listed([m.option('quantity', 'EU')])}",
                 ])


# === Option parsers ==========================================================


def _ranged(
    name: str, convert: Callable[[str], Any], ok: Callable[[Any], bool], what: str
) -> Callable[[str], Any]:
    """The parser of option *name*: its value *convert*-ed, which must be *ok*
    (else an error saying it must be *what*)."""

    def parse(value: str) -> Any:
        try:
            v = convert(value)
        except ValueError:
            raise InvalidArgumentError(f"{name!r} must be {what} (got {value!r})") from None
        if not ok(v):
            raise InvalidArgumentError(f"{name!r} must be {what} (got {value!r})")
        return v

    return parse


_opt_rel = _ranged("rel", int, lambda v: v >= 1, "a positive int")
_opt_p = _ranged("p", float, lambda v: 0.0 < v < 1.0, "a number in (0, 1)")
_opt_max_label = _ranged("max_label", int, lambda v: v >= 1, "a positive int")
_opt_alpha = _ranged("alpha", float, lambda v: 0.0 <= v <= 1.0, "a number in [0, 1]")
_opt_nrbp_beta = _ranged("beta", float, lambda v: 0.0 < v <= 1.0, "a number in (0, 1]")


_opt_positive = {name: _ranged(name, float, lambda v: 0.0 < v < math.inf, "a positive number")
                 for name in ("T", "H", "L", "beta")}
_opt_min_rel = _ranged("min_rel", int, lambda v: v >= 0, "an int >= 0")
_opt_max_rel = _ranged("max_rel", int, lambda v: v >= 1, "a positive int")
_opt_quantity = _ranged("quantity", str, lambda v: v in _cwl.QUANTITIES,
                        "one of " + ", ".join(_cwl.QUANTITIES))


def _boolean(name: str) -> Callable[[str], Any]:
    text = _ranged(name, str.lower, lambda v: v in ("true", "false"), "True or False")
    return lambda value: text(value) == "true"


def _opt_gain(value: str) -> Any:
    if value in ("linear", "exp"):
        return value
    if value == "exponential":
        return "exp"
    # trec_eval's form: level=gain pairs, e.g. 1=0.5,2=3 (';' also accepted).
    # As in trec_eval, a gain may be 0 or negative; a level is a judgment
    # value (>= 0), given once.
    pairs: Dict[int, float] = {}
    for part in value.replace(";", ",").split(","):
        lvl, sep, g = part.partition("=")
        try:
            level, gain = int(lvl), float(g)
        except ValueError:
            sep = ""
        if not sep or level < 0 or not -math.inf < gain < math.inf:
            raise InvalidArgumentError(
                f"'gain' must be linear, exp or level=gain pairs (levels >= 0, finite "
                f"gains), such as 1=1,2=3 (got {value!r})"
            )
        if level in pairs:
            raise InvalidArgumentError(f"'gain' gives level {level} twice (got {value!r})")
        pairs[level] = gain
    return tuple(sorted(pairs.items()))


def _floats(value: str) -> Tuple[float, ...]:
    """Comma-separated finite numbers; a ValueError otherwise."""
    numbers = tuple(float(v) for v in value.split(","))
    if not all(-math.inf < v < math.inf for v in numbers):
        raise ValueError(value)
    return numbers


# set_F's parameter in trec_eval: x in (x + 1) P R / (x P + R), beta**2
_opt_weight = _ranged("weight", float, lambda v: 0 <= v < math.inf, "one finite number >= 0")
_opt_coefficients = _ranged(
    "coefficients", _floats, lambda v: len(v) == 4, "4 finite numbers, such as 1,-1,0,0")
_opt_levels = _ranged("levels", _floats, lambda v: all(0.0 <= x <= 1.0 for x in v),
                      "recall levels in [0, 1], such as 0.2,0.5,0.8")
_opt_discount = _ranged("discount", str, lambda v: v in ("log2", "jk"), "log2 or jk")


def _rbp_params(value: str, gains: bool) -> Tuple[Tuple[Any, float], ...]:
    """trec_eval's rbp parameters, ``name=value`` pairs: ``p`` and, with
    *gains*, ``level=gain`` (``1=0.5,2=1,p=0.95``); the gains by level, then p."""
    levels: List[str] = []
    p: Tuple[Tuple[str, float], ...] = ()
    for part in value.split(","):
        key, sep, number = part.partition("=")
        if key.strip() == "p" and not p:
            p = (("p", _opt_p(number.strip())),)
        elif not (gains and sep and key.strip() != "p"):
            raise InvalidArgumentError(
                f"the parameters must be p=P{', level=gain' if gains else ''} "
                f"(p once, in (0, 1); got {value!r})")
        else:
            levels.append(part)
    return cast(Tuple[Tuple[Any, float], ...], _opt_gain(",".join(levels)) if levels else ()) + p


_opt_length = _ranged("length", int, lambda v: v >= 0, "an int >= 0")


_REL: Dict[str, Callable[[str], Any]] = {"rel": _opt_rel}
_CWL: Dict[str, Callable[[str], Any]] = {
    "min_rel": _opt_min_rel, "max_rel": _opt_max_rel, "quantity": _opt_quantity}
_GAIN = Takes(options={"gain": _opt_gain}, trec_params="gain")  # a trec_eval gain map
_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
_MULTIPLES = tuple(i / 5 for i in range(1, 11))
_IA: Dict[str, Callable[[str], Any]] = {"alpha": _opt_alpha, "rel": _opt_rel}
_IA_NRBP: Dict[str, Callable[[str], Any]] = {**_IA, "beta": _opt_nrbp_beta}


# === The registry ============================================================
# One family per trec_eval name, in trec_eval's order: the command line prints
# measures in this order.  ``ir`` is the ir_measures-style name; a name such
# as AP answers for two families, map (no cutoff) and map_cut (AP@k).

_SUM = Output("sum", is_count=True)
_GM = Output("gm", per_query=False)
_NO_OPTIONS = Takes(options={})
_AT_K = Takes("cutoff", _CUTOFFS)
_IA_AT_K = Takes("optional-cutoff", options=_IA)
_COUNT_IN_TOP_K = _binary_ties(_t.expected_precision, "count")

_PREFS_SUMMARIES = (
    ("prefs_num_prefs_poss", "Preferences possible, retrieved or not."),
    ("prefs_num_prefs_ful", "Preferences fulfilled (implied ones included)."),
    ("prefs_num_prefs_ful_ret", "Preferences fulfilled between retrieved documents."),
    ("prefs_simp", "Preferences fulfilled over possible."),
    ("prefs_pair", "Mean over document pairs of the share of their preferences fulfilled."),
    ("prefs_avgjg", "prefs_simp of each judgment group, averaged over groups."),
    ("prefs_avgjg_Rnonrel", "prefs_avgjg with non-relevant documents cut or padded to R."),
    ("prefs_simp_ret", "prefs_simp between retrieved documents."),
    ("prefs_pair_ret", "prefs_pair between retrieved documents."),
    ("prefs_avgjg_ret", "prefs_avgjg between retrieved documents."),
    ("prefs_avgjg_Rnonrel_ret", "prefs_avgjg_Rnonrel between retrieved documents."),
    ("prefs_simp_imp", "prefs_simp without the pairs of which neither is retrieved."),
    ("prefs_pair_imp", "prefs_pair without the pairs of which neither is retrieved."),
    ("prefs_avgjg_imp", "prefs_avgjg without the pairs of which neither is retrieved."),
)
_OUTSIDE_ALL_TREC = Names(all_trec=False)


def _cwl_takes(key: str, cutoff: bool) -> Takes:
    """A C/W/L family's options: min_rel, max_rel, quantity and its model's parameter."""
    options = dict(_CWL)
    name = _cwl.MODELS[key][1]
    if name:
        options[name] = _opt_p if name == "p" else _opt_positive[name]
    return Takes("cutoff" if cutoff else "none", options=options)


#: The C/W/L measures (irmetrics.cwl): ir_measures' names, cwl-eval's user
#: models; one computation, a family is its continuation (cwl.MODELS[key]).
#: Each: its key, whether it takes a cutoff, its public function, its summary.
_CWL_SUMMARIES = (
    ("INST", False, "inst", "INST: C_i = ((i + T + T_i - 1) / (i + T + T_i))^2, T_i = T - G_i."),
    ("INSQ", False, "insq", "INSQ: C_i = ((i + 2T - 1) / (i + 2T))^2."),
    ("BPM", True, "bpm", "Static BPM: C_i = 1 while G_i < T and K_i < k, then 0."),
    ("NERR8", True, "nerr8", "NERR (eq. 8): C_i = 1 - g_i for i < k, then 0."),
    ("NERR9", True, "nerr9", "NERR (eq. 9): C_i = i / (i + 1) (1 - g_i) for i < k, then 0."),
    ("NERR10", False, "nerr10", "NERR (eq. 10): C_i = p (1 - g_i)."),
    ("NERR11", False, "nerr11", "NERR (eq. 11): C_i = ((i + 2T - 1) / (i + 2T))^2 (1 - g_i)."),
    ("SDCG", True, "sdcg", "Scaled DCG@k: C_i = log2(i + 1) / log2(i + 2) for i < k."),
    ("TBG", False, "tbg", "Time-biased gain: W_i proportional to 2^(-K_(i-1) / H)."),
    ("UMeasure", False, "u_measure", "U-measure: W_i proportional to max(0, 1 - K_(i-1) / L)."),
)
_CWL_FAMILIES = tuple(
    Family(key, _cwl_family(key), summary, names=Names(key, False, metric=metric),
           takes=_cwl_takes(key, cutoff), ties=_CWL_TIES, explain=_terms_cwl)
    for key, cutoff, metric, summary in _CWL_SUMMARIES)

_PREFS_FAMILIES = tuple(
    Family(key, _on_prefs(getattr(_prefs, key.replace("Rnonrel", "rnonrel"))), summary,
           takes=Takes(options={}, reads="prefs"), output=_SUM if "_num_" in key else _MEAN,
           names=_OUTSIDE_ALL_TREC, explain=_terms_prefs)
    for key, summary in _PREFS_SUMMARIES)

FAMILIES: Tuple[Family, ...] = (
    Family("runid", _runid, "The run's name (the tag column of its last line).",
           takes=_NO_OPTIONS, output=Output("name", per_query=False, text=True),
           ties=_ORDER_FREE),
    Family("num_q", _num_q, "Number of queries evaluated.", names=Names("NumQ"),
           takes=_NO_OPTIONS, output=Output("sum", is_count=True, per_query=False),
           ties=_ORDER_FREE, explain=_terms_num_q),
    Family("num_ret", _num_ret, "Number of documents retrieved.", names=Names("NumRet"),
           takes=_NO_OPTIONS, output=_SUM, ties=_ORDER_FREE, explain=_terms_num_ret),
    Family("num_rel", _num_rel, "Number of relevant documents (R).", names=Names("NumRel"),
           output=_SUM, ties=_ORDER_FREE, explain=_terms_num_rel),
    Family("num_rel_ret", _num_rel_ret, "Number of relevant documents retrieved.",
           names=Names("NumRelRet"), output=_SUM,
           ties=_binary_ties(_t.expected_relevant_retrieved, "count_n"),
           explain=_terms_num_rel_ret),
    Family("map", _ap, "Average precision over the whole ranking (denominator R).",
           names=Names("AP", metric="average_precision"), ties=_AP_TIES, explain=_terms_ap),
    Family("gm_map", _ap, "Geometric mean over queries of average precision (floor 1e-5).",
           names=Names("GMAP", metric="average_precision"), output=_GM, ties=_AP_TIES,
           explain=_terms_ap),
    Family("Rprec", _rprec, "Precision at rank R.", names=Names("Rprec", metric="r_precision"),
           ties=_binary_ties(_t.expected_r_precision, "count_R"), explain=_terms_rprec),
    Family("bpref", _bpref, "Binary preference.", names=Names("Bpref", metric="bpref"),
           ties=_BINARY_EXTREMES, explain=_terms_bpref),
    Family("recip_rank", _rr, "Reciprocal rank of the first relevant document.",
           names=Names("RR", metric="reciprocal_rank"), ties=_RR_TIES, explain=_terms_rr),
    Family("iprec_at_recall", _iprec, "Interpolated precision at a recall level.",
           names=Names("IPrec", metric="interpolated_precision"),
           takes=Takes("fraction", _m._ELEVEN_POINTS), ties=_BINARY_EXTREMES, explain=_terms_iprec),
    Family("P", _p, "Precision at rank k (divided by k).",
           names=Names("P", metric="precision_at_k"), takes=_AT_K, ties=_COUNT_IN_TOP_K,
           explain=_terms_p),
    Family("relstring", _relstring, "The first 10 relevance values, as a string.",
           takes=Takes(options={"length": _opt_length}, trec_params="length"),
           output=Output("first", in_summary=False, text=True)),
    Family("recall", _recall, "Recall at rank k.", names=Names("R", metric="recall_at_k"),
           takes=_AT_K, ties=_binary_ties(_t.expected_recall, "count"), explain=_terms_recall),
    Family("infAP", _infap, "Inferred average precision.",
           names=Names("infAP", metric="inferred_ap"), explain=_terms_infap,
           ties=Ties(None, lambda m, env: _t.by_infap(m.rel(env)), "binary")),
    Family("gm_bpref", _bpref, "Geometric mean over queries of bpref (floor 1e-5).",
           names=Names(metric="bpref"), output=_GM, ties=_BINARY_EXTREMES,
           explain=_terms_bpref),
    Family("Rprec_mult", _rprec, "Precision at rank multiple * R.",
           names=Names(metric="r_precision_multiple"), takes=Takes("multiple", _MULTIPLES),
           ties=_BINARY_EXTREMES, explain=_terms_rprec_mult),
    Family("utility", _utility, "Set utility: relevant retrieved minus non-relevant retrieved.",
           takes=Takes(options={"rel": _opt_rel, "coefficients": _opt_coefficients},
                       trec_params="coefficients"),
           explain=_hits_terms("utility = p1 * relevant retrieved + p2 * non-relevant retrieved + "
                               "p3 * relevant not retrieved + p4 * the rest (1, -1, 0, 0)",
                               _n, last=_utility_steps)),
    Family("11pt_avg", _11pt, "Mean interpolated precision at recall 0.0, 0.1, ..., 1.0.",
           names=Names(metric="eleven_point_average"),
           takes=Takes(options={"rel": _opt_rel, "levels": _opt_levels}, trec_params="levels"),
           explain=_terms_11pt),
    Family("binG", _bin_g, "Binary G (trec_eval's experimental measure).", explain=_terms_bin_g),
    Family("G", _g, "G (trec_eval's experimental gain measure).", takes=_GAIN, explain=_terms_g),
    Family("dcg", _dcg, "DCG of the whole ranking (nDCG's numerator; trec_eval 10.0).",
           names=Names(metric="dcg", since="10.0", all_trec=False),
           takes=_GAIN, ties=Ties(_dcg_expected, _by_gain, "ndcg"), explain=_terms_dcg),
    Family("ideal_dcg", _ideal_dcg, "DCG of the ideal ranking (nDCG's denominator; "
           "trec_eval 10.0).", names=Names(since="10.0", all_trec=False),
           takes=_GAIN, ties=_ORDER_FREE, explain=_terms_dcg),
    Family("ndcg", _ndcg, "nDCG of the whole ranking; the ideal is every judged document.",
           names=Names("nDCG", metric="ndcg"),
           takes=Takes(options={"gain": _opt_gain, "discount": _opt_discount},
                       trec_params="gain"),
           ties=_NDCG_TIES, explain=_terms_ndcg),
    Family("ndcg_rel", _ndcg_rel, "nDCG averaged over relevant documents (experimental).",
           takes=_GAIN, explain=_terms_ndcg_rel),
    Family("Rndcg", _rndcg, "nDCG averaged at the R levels (experimental).",
           takes=_GAIN, explain=_terms_rndcg),
    Family("ndcg_cut", _ndcg, "nDCG of the top k; the ideal is cut at k too.",
           names=Names("nDCG", metric="ndcg"),
           takes=Takes("cutoff", _CUTOFFS, {"gain": _opt_gain, "discount": _opt_discount}),
           ties=_NDCG_TIES, explain=_terms_ndcg),
    Family("map_cut", _ap, "Average precision of the top k (denominator R).",
           names=Names("AP", metric="average_precision"), takes=_AT_K, ties=_AP_TIES,
           explain=_terms_ap),
    Family("relative_P", _relative_p, "Relevant in the top k over min(k, R).", takes=_AT_K,
           explain=_terms_relative_p),
    Family("success", _on_ranks(_m._success_r), "1 if a relevant document is in the top k.",
           names=Names("Success", metric="success_at_k"), takes=Takes("cutoff", (1, 5, 10)),
           ties=_binary_ties(_t.expected_success, "success"), explain=_terms_success),
    Family("set_P", _p, "Precision of the whole retrieved set.", names=Names("SetP"),
           explain=_hits_terms("set_P = (relevant retrieved) / retrieved", _n)),
    Family("set_relative_P", _relative_p, "Relevant retrieved over min(retrieved, R).",
           names=Names("SetRelP"),
           explain=_hits_terms(
               "set_relative_P = (relevant retrieved) / min(retrieved, R)", _n, _min_r)),
    Family("set_recall", _recall, "Recall of the whole retrieved set.", names=Names("SetR"),
           explain=_hits_terms("set_recall = (relevant retrieved) / R", _n, _big_r)),
    Family("set_map", _set_map, "Set precision times set recall.", names=Names("SetAP"),
           explain=_hits_terms(
               "set_map = set_P * set_recall = (relevant retrieved)^2 / (retrieved * R)",
               _n, last=_set_map_steps)),
    Family("set_F", _on_ranks(_m._f_measure_r, "weight", 1.0), "F measure of the retrieved set.",
           names=Names("SetF", metric="f_measure"),
           takes=Takes(options={"rel": _opt_rel, "beta": _opt_positive["beta"],
                                "weight": _opt_weight}, trec_params="weight"),
           ties=_binary_ties(_t.expected_f, "count_n", "weight", 1.0),
           explain=_hits_terms("set_F = (1 + x) P R / (x P + R), P and R of the retrieved set",
                               _n, last=_set_f_steps)),
    Family("num_nonrel_judged_ret", _num_nonrel_judged_ret,
           "Number of judged non-relevant documents retrieved.", output=_SUM,
           explain=_terms_num_nonrel),
    # Outside all_trec: preferences (trec_eval's -R prefs and -R qrels_prefs;
    # irmetrics.prefs), over judgment groups (-R qrels_jg; a Qrels' groups
    # are its subtopics, a plain query has one), and yaap.
    *_PREFS_FAMILIES,
    Family("map_avgjg", _over_groups(_ap), "map averaged over the query's judgment groups.",
           takes=Takes(reads="groups"), names=_OUTSIDE_ALL_TREC, explain=_terms_avgjg),
    Family("P_avgjg", _over_groups(_p), "P at k averaged over the query's judgment groups.",
           takes=Takes("cutoff", _CUTOFFS, reads="groups"), names=_OUTSIDE_ALL_TREC,
           explain=_terms_avgjg),
    Family("Rprec_mult_avgjg", _over_groups(_rprec),
           "Rprec_mult averaged over the query's judgment groups.",
           takes=Takes("multiple", _MULTIPLES, reads="groups"), names=_OUTSIDE_ALL_TREC,
           explain=_terms_avgjg),
    Family("yaap", _yaap, "Yet another AP: log((1 + s) / (1 + R - s)), s the sum of map's.",
           names=_OUTSIDE_ALL_TREC, ties=_BINARY_EXTREMES, explain=_terms_yaap),
    Family("rbp", _rbp_trec, "Rank-biased precision, gains scaled to [0, 1] (trec_eval 10.0).",
           names=Names(metric="rbp", since="10.0"),
           takes=Takes(options={"params": lambda v: _rbp_params(v, True)}, trec_params="params"),
           ties=Ties(_rbp_expected, _by_rbp_gain, "labels"), explain=_terms_rbp_trec),
    Family("rbp_resid", _rbp_resid, "What unjudged documents and the ranks past the end could "
           "add to rbp; 0 if none is unjudged (trec_eval 10.0).",
           names=Names(metric="rbp_residual", since="10.0"),
           takes=Takes(options={"params": lambda v: _rbp_params(v, False)},
                       trec_params="params"),
           ties=Ties(_resid_expected, _by_unjudged, "labels"), explain=_terms_rbp_trec),
    Family("unj", _unj, "Unjudged documents in the top k, over k (trec_eval 10.0).",
           names=Names(metric="unjudged_at_k", since="10.0"),
           takes=Takes("cutoff", (5, 10, 20), options={}),
           ties=Ties(_unj_expected, _by_unjudged, "labels"), explain=_terms_judged),
    # Measures trec_eval 9.0.8 does not have: irmetrics' own names.
    Family("RR_cut", _rr, "Reciprocal rank within the top k.",
           names=Names("RR", trec=False, metric="reciprocal_rank"),
           takes=Takes("cutoff"), ties=_RR_TIES, explain=_terms_rr),
    Family("ERR", _err, "Expected reciprocal rank.", names=Names("ERR", False, metric="err"),
           takes=Takes("optional-cutoff", options={"max_label": _opt_max_label}),
           explain=_terms_err),
    Family("RBP", _rbp, "Rank-biased precision (binary); quantity=: its C/W/L quantities.",
           names=Names("RBP", False, metric="rbp"),
           takes=Takes("optional-cutoff",
                       options={"p": _opt_p, "rel": _opt_rel, "quantity": _opt_quantity}),
           ties=_CWL_TIES, explain=_terms_rbp),
    Family("Judged", _judged, "Fraction of the top k documents that are judged.",
           names=Names("Judged", False, metric="judged_at_k"),
           takes=Takes("optional-cutoff", options={}), explain=_terms_judged),
    # The C/W/L measures (irmetrics.cwl)
    *_CWL_FAMILIES,
    Family("Compat", _compat, "Compatibility: rank-biased overlap with the ideal ranking.",
           names=Names("Compat", False, metric="compatibility"),
           takes=Takes(options={"p": _opt_p, "normalize": _boolean("normalize")}),
           explain=_terms_compat),
    Family("Accuracy", _accuracy, "Accuracy: 1 - mean share of the top k's non-relevant "
           "documents above each relevant one.", names=Names("Accuracy", False, metric="accuracy"),
           takes=Takes("optional-cutoff"), explain=_terms_accuracy),
    # ndeval's diversity measures over subtopics (irmetrics.diversity); the
    # ir_measures name is the canonical one, ndeval's an alias.
    Family("alpha-DCG", _on_subtopics(_d._alpha_dcg),
           "alpha-DCG of the top k over the ideal ideal's (ndeval; subtopic qrels).",
           names=Names("alpha_DCG", False, ("alpha-DCG",), "alpha_dcg"), takes=_IA_AT_K),
    Family("alpha-nDCG", _on_subtopics(_d._alpha_ndcg),
           "alpha-DCG of the top k over the greedy ideal's (ndeval; subtopic qrels).",
           names=Names("alpha_nDCG", False, ("alpha-nDCG",), "alpha_ndcg"), takes=_IA_AT_K),
    Family("ERR-IA", _on_subtopics(_d._err_ia),
           "Intent-aware ERR of the top k over the ideal ideal's (ndeval; subtopic qrels).",
           names=Names("ERR_IA", False, ("ERR-IA",), "err_ia"), takes=_IA_AT_K),
    Family("nERR-IA", _on_subtopics(_d._nerr_ia),
           "Intent-aware ERR of the top k over the greedy ideal's (ndeval; subtopic qrels).",
           names=Names("nERR_IA", False, ("nERR-IA",), "nerr_ia"), takes=_IA_AT_K),
    Family("NRBP", _nrbp, "Novelty- and rank-biased precision (ndeval; subtopic qrels).",
           names=Names("NRBP", False, metric="nrbp"), takes=Takes(options=_IA_NRBP)),
    Family("nNRBP", _nnrbp, "NRBP over the greedy ideal's (ndeval; subtopic qrels).",
           names=Names("nNRBP", False, metric="nnrbp"), takes=Takes(options=_IA_NRBP)),
    Family("MAP-IA", _ap_ia, "Intent-aware average precision (ndeval; subtopic qrels).",
           names=Names("AP_IA", False, ("MAP-IA",), "ap_ia")),
    Family("P-IA", _p_ia, "Intent-aware precision at k (ndeval; subtopic qrels).",
           names=Names("P_IA", False, ("P-IA",), "precision_ia"), takes=Takes("optional-cutoff")),
    Family("strec", _strec, "Subtopic recall: subtopics covered in the top k (ndeval).",
           names=Names("StRecall", False, ("strec",), "subtopic_recall"),
           takes=Takes("optional-cutoff")),
)


def _registered(key: str) -> Family:
    """The family of the registry whose key is *key* (how a family unpickles)."""
    for family in FAMILIES:
        if family.key == key:
            return family
    raise InvalidArgumentError(f"no measure family {key!r} in this version of irmetrics")

_BY_TREC: Dict[str, Family] = {f.key: f for f in FAMILIES if f.trec}
# ir_measures-style name -> (its family without a cutoff, with a cutoff); a
# name of one family gives it for both, and the family's checks refuse
_BY_IR: Dict[str, Tuple[Family, Family]] = {}
for _f in FAMILIES:
    for _name in (_f.ir, *_f.aliases) if _f.ir else ():
        _plain, _cut = _BY_IR.get(_name, (_f, _f))
        if _f.param in ("none", "optional-cutoff"):
            _plain = _f
        if _f.param != "none":
            _cut = _f
        _BY_IR[_name] = (_plain, _cut)
del _f, _name, _plain, _cut

#: trec_eval's "official" measures (what it prints without -m).
OFFICIAL = (
    "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
    "bpref", "recip_rank", "iprec_at_recall", "P",
)
_PREFS = tuple(key for key, _ in _PREFS_SUMMARIES)
#: trec_eval's other groups of -m (measures.c's nicknames) but all_trec, and
#: the measures all_trec leaves out.
TREC_GROUPS: Dict[str, Tuple[str, ...]] = {
    "official": OFFICIAL,
    "set": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P",
            "set_recall", "set_relative_P", "set_map", "set_F"),
    "all_prefs": ("runid", "num_q", *_PREFS),
    "prefs": ("runid", "num_q", *_PREFS[:6]),
    "qrels_jg": ("runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg"),
}

# Options that are always present (so that RBP and RBP(p=0.8) are one measure).
_IMPLICIT_OPTIONS: Dict[str, Options] = {
    "RBP": (("p", 0.8),), "INST": (("T", 1.0),), "INSQ": (("T", 1.0),), "BPM": (("T", 1.0),),
    "NERR10": (("p", 0.9),), "NERR11": (("T", 1.0),), "TBG": (("H", 224.0),),
    "UMeasure": (("L", 1000.0),), "Compat": (("p", 0.95),),
}
_DEFAULT_OPTION_VALUES: Dict[str, Any] = {
    "gain": "linear", "discount": "log2", "weight": 1.0, "coefficients": _UTILITY,
    "levels": _m._ELEVEN_POINTS, "length": 10, "alpha": 0.5, "beta": 0.5,
    "min_rel": 0, "quantity": "EU", "normalize": True,
}


# === Parsing =================================================================


def known_names() -> List[str]:
    """Every measure name the parser accepts before ``(``, ``@`` or ``_k``."""
    return sorted(set(_BY_TREC) | set(_BY_IR) | {_F_BETA}, key=lambda n: (n.lower(), n))


def trec_measure_names(version: str = TREC_EVAL_VERSIONS[0]) -> List[str]:
    """trec_eval *version*'s measure names irmetrics implements, in trec_eval's order."""
    last = TREC_EVAL_VERSIONS.index(version)
    return [f.key for f in FAMILIES if f.trec and TREC_EVAL_VERSIONS.index(f.since) <= last]


# Other tools' names for irmetrics' measures (lower case): ir_measures'
# aliases, ranx's and scikit-learn's words; the suggestion keeps the cutoff
# and options the user wrote.
_FOREIGN: Dict[str, str] = {
    "recall": "R", "precision": "P", "prec": "P", "mrr": "RR", "map": "AP", "ndcg": "nDCG",
    "rprec": "Rprec", "r-precision": "Rprec", "hits": "Success", "hit_rate": "Success",
    "hitrate": "Success", "f1": "F", "fscore": "F", "f_measure": "F", "err": "ERR",
}


def _cutoff_name(name: str, k: str) -> Optional[str]:
    """A name for measure *name* at cutoff *k*, or None: trec_eval's ``-m``
    form for its families (``P.10``; for ndcg its cut version's, ``ndcg_cut.10``),
    else ir_measures' ``name@k``."""
    fam = _BY_TREC.get(name)
    if fam is not None and fam.param == "none" and fam.ir:  # the family of its name@k
        name, fam = fam.ir, _BY_IR[fam.ir][1]
    if fam is not None and fam.trec:
        return f"{fam.key}.{k}" if fam.param in ("cutoff", "optional-cutoff") else None
    if name in _BY_IR and _BY_IR[name][1].param != "none":
        return f"{name}@{k}"
    return None


def _suggestions(text: str, base: str) -> List[str]:
    """Working names for an unknown *base* (of *text*): another tool's word
    (``Recall@100``: ``R@100``), a case slip (``NDCG@10``: ``nDCG@10``), a
    cutoff glued to the name (``ndcg10``: ``ndcg_cut.10``)."""
    suffix = text.strip()[len(base):] if text.strip().startswith(base) else ""
    out: List[str] = []
    lower = base.lower()
    if lower in _FOREIGN:
        out.append(_FOREIGN[lower] + suffix)
    by_lower: Dict[str, List[str]] = {}
    # with a cutoff or options the name is ir_measures' style: its names only
    for name in (*_BY_IR, *(() if suffix else _BY_TREC)):
        by_lower.setdefault(name.lower(), []).append(name)
    for name in by_lower.get(lower, []):
        if name != base:
            out.append(name + suffix)
    glued = re.fullmatch(r"([A-Za-z][A-Za-z_\-]*?)[_.\-]?([0-9]+)", base)
    if glued and not suffix:
        name, k = glued.group(1), glued.group(2)
        for cand in (name, *by_lower.get(name.lower(), []), _FOREIGN.get(name.lower(), "")):
            hit = _cutoff_name(cand, k) if cand else None
            if hit is not None:
                out.append(hit)
                break
    return list(dict.fromkeys(out))


def _unknown(text: str, base: str) -> UnknownMeasureError:
    candidates = known_names()
    import difflib  # only when a name is wrong

    close = difflib.get_close_matches(base, candidates, n=3, cutoff=0.6)
    if not close:
        lower: Dict[str, str] = {}
        for c in candidates:
            lower.setdefault(c.lower(), c)
        hits = difflib.get_close_matches(base.lower(), list(lower), n=3, cutoff=0.6)
        close = [lower[c] for c in hits]
    first = _suggestions(text, base)
    return UnknownMeasureError(text, list(dict.fromkeys(first + close))[:4])


def _parse_param(fam: Family, raw: str, text: str) -> Union[int, float]:
    """*fam*'s parameter *raw* (a family that takes one) of measure *text*."""
    if fam.param in ("cutoff", "optional-cutoff"):
        value: Union[int, float] = int(raw) if raw.isdigit() else 0
        ok, what = value >= 1, "the cutoff must be a positive int"
    else:
        try:
            value = float(raw)
        except ValueError:
            value = math.nan
        if fam.param == "fraction":
            ok, what = 0.0 <= value <= 1.0, "the recall level must be in [0, 1]"
        else:
            ok, what = 0.0 < value < math.inf, "the multiple of R must be a positive number"
    if not ok:
        raise InvalidArgumentError(f"measure {text!r}: {what} (got {raw!r})")
    return value


def _parse_options(
    fam: Family, raw: str, text: str, only: Optional[Tuple[str, ...]] = None
) -> Dict[str, Any]:
    """The options *raw* of measure *text*, read by *fam*'s parsers: all of
    them, or *only* these (F's)."""
    names = fam.options if only is None else only
    opts: Dict[str, Any] = {}
    for part in _split_options(raw):
        key, sep, value = part.partition("=")
        key = key.strip()
        if not sep or key not in names:
            allowed = ", ".join(sorted(names)) or "none"
            hint = "" if only else _option_hint(fam, text, part, key, value)
            raise InvalidArgumentError(
                f"measure {text!r}: unknown option {part.strip()!r} "
                f"(options of {_F_BETA if only else fam.ir or fam.key}: {allowed}){hint}"
            )
        if key in opts:
            raise InvalidArgumentError(f"measure {text!r}: option {key!r} given twice")
        opts[key] = _option(fam.options[key], value.strip(), text)
    return opts


def _option(parse: Callable[[str], Any], value: str, text: str) -> Any:
    """An option read from *value* by its parser; an error names the measure *text*."""
    try:
        return parse(value)
    except InvalidArgumentError as exc:
        raise InvalidArgumentError(f"measure {text!r}: {exc}") from None


def _option_hint(fam: Family, text: str, part: str, key: str, value: str) -> str:
    """How to say what an unknown option *part* of *text* asks for, or ''."""
    if key == "judged_only":
        return ("; judged_only applies to a whole evaluation, not one measure: "
                "evaluate(qrels, run, measures, judged_only=True), or -J on the command line")
    v = value.strip().strip("'\"").lower()
    fix: Optional[str] = None
    if key == "dcg" and "gain" in fam.options:  # ir_measures' nDCG(dcg=...)
        fix = {"log2": "", "exp-log2": "gain=exp"}.get(v)
    elif key in ("gains", "gain_map") and "gain" in fam.options:
        return "; give the gains as level=gain pairs: gain=0=0,1=1,2=3"
    elif key == "beta" and fam.key == "RBP":
        fix = f"p={value.strip()}"
    else:
        import difflib  # only when an option is wrong

        close = difflib.get_close_matches(key, list(fam.options), n=1, cutoff=0.6)
        if close:
            fix = f"{close[0]}={value.strip()}"
    if fix is None:
        return ""
    suggestion = text.strip().replace(part.strip(), fix, 1)
    suggestion = suggestion.replace("(,", "(").replace(",)", ")").replace(",,", ",")
    suggestion = suggestion.replace("()", "")
    return f"; did you mean {suggestion!r}?"


def _split_options(raw: str) -> List[str]:
    # A gain map has commas inside (gain=1=1,2=3): a piece that starts with a
    # number belongs to the option before it.
    parts: List[str] = []
    for piece in raw.split(","):
        head = piece.split("=", 1)[0].strip().lstrip("-+")
        if parts and (head.isdigit() or "=" not in piece):
            parts[-1] += "," + piece
        else:
            parts.append(piece)
    return [p for p in parts if p.strip()]


def _normalise_options(fam: Family, opts: Dict[str, Any]) -> Options:
    # Options equal to their defaults are dropped, so that P(rel=1)@5 is P_5
    # only when evaluate() runs with relevance_level=1; rel is kept as given.
    opts = dict(opts)
    if fam.key == "set_F" and "beta" in opts:
        # SetF(beta=b) is ir_measures': it hands b to trec_eval as set_F's x, the
        # weight in (x + 1) P R / (x P + R), which is the usual F-beta's beta**2
        if "weight" in opts:
            raise InvalidArgumentError(
                "give SetF's 'beta' or set_F's 'weight' (the same trec_eval parameter), "
                "not both")
        opts["weight"] = opts.pop("beta")
    out = {k: v for k, v in opts.items() if _DEFAULT_OPTION_VALUES.get(k, object()) != v}
    for k, v in _IMPLICIT_OPTIONS.get(fam.key, ()):
        out.setdefault(k, v)
    return tuple(sorted(out.items()))


def parse_measure(text: str) -> Measure:
    """Parse one measure name, in trec_eval's or ir_measures' style.

    >>> parse_measure("P_5") == parse_measure("P@5")
    True
    >>> parse_measure("AP@100").name
    'map_cut_100'
    >>> parse_measure("RBP(p=0.5)").name
    'RBP(p=0.5)'
    """
    if not isinstance(text, str):
        raise InvalidArgumentError(f"a measure name must be a str (got {type(text).__name__})")
    s = text.strip()
    if not s:
        raise InvalidArgumentError("a measure name must not be empty")
    if s in TREC_GROUPS or s == "all_trec":
        names = [m.name for m in expand_trec_argument(s)]
        raise InvalidArgumentError(
            f"{s!r} is a group of trec_eval's command line (-m {s}), not one measure; "
            f"name its {len(names)} measures instead: {', '.join(names)}"
        )
    base, opts_raw, param_raw = _split(s)
    if opts_raw is None and param_raw is None and base != _F_BETA:
        found = _parse_trec(s, text)
        if found is not None:
            return found
    if base == _F_BETA:
        return _parse_f_beta(text, opts_raw, param_raw)
    if base == "NumRet" and opts_raw and opts_raw.replace(" ", "").startswith("rel="):
        # ir_measures writes NumRelRet as NumRet(rel=1)
        base = "NumRelRet"
    if base == "SetP" and opts_raw and "relative" in opts_raw:
        base, opts_raw = _set_p_relative(opts_raw, text)
    pair = _BY_IR.get(base)
    fam = _BY_TREC.get(base) if pair is None else pair[param_raw is not None]
    if fam is None:
        raise _unknown(text, base)
    if pair is None:  # trec_eval's name: its options are read before its cutoff
        options = _normalise_options(fam, _parse_options(fam, opts_raw or "", text))
    if param_raw is None and fam.param not in ("none", "optional-cutoff"):
        raise InvalidArgumentError(f"measure {text!r} needs a cutoff, e.g. '{base}@10'")
    if param_raw is not None and fam.param == "none":
        hint = _cutoff_name(base, param_raw)
        raise InvalidArgumentError(
            f"measure {text!r}: {base} takes no cutoff"
            + (f"; did you mean {hint!r}?" if hint else ""))
    if pair is not None:
        options = _normalise_options(fam, _parse_options(fam, opts_raw or "", text))
    param = None if param_raw is None else _parse_param(fam, param_raw, text)
    return Measure(fam, param, options)


def _set_p_relative(opts_raw: str, text: str) -> Tuple[str, str]:
    """ir_measures' SetP(relative=True) is SetRelP (trec_eval's set_relative_P)."""
    kept, relative = [], False
    for part in opts_raw.split(","):
        key, _, value = part.partition("=")
        if key.strip() == "relative":
            relative = _option(_boolean("relative"), value.strip(), text)
        else:
            kept.append(part)
    return "SetRelP" if relative else "SetP", ",".join(kept)


def _parse_trec(s: str, text: str) -> Optional[Measure]:
    """One measure in trec_eval's forms (``map``, ``P_5``, ``set_F_0.5``,
    ``ndcg_cut.10``), or None if *s* is in none of them."""
    fam = _BY_TREC.get(s)
    if fam is not None:
        if fam.param not in ("none", "optional-cutoff"):
            example = f"{s}_{fam.defaults[0]}" if fam.defaults else f"{s}_10"
            raise InvalidArgumentError(f"measure {text!r} needs a parameter, e.g. {example!r}")
        return Measure(fam, None, _normalise_options(fam, {}))
    head, _, tail = s.rpartition("_")
    name, dot, params = s.partition(".")
    fam = _BY_TREC.get(head)
    if fam is not None and fam.param != "none" and tail.replace(".", "", 1).isdigit():
        found = _trec_measures(fam, tail, text)
    elif dot and name in _BY_TREC:  # trec_eval's -m form, e.g. ndcg_cut.10
        found = _trec_measures(_BY_TREC[name], params, s)
    elif fam is not None and fam.trec_params and tail:  # set_F_0.5, ndcg_1=1,2=3
        found = _trec_measures(fam, tail, text)
    else:
        return None
    if len(found) != 1:
        raise InvalidArgumentError(
            f"measure {text!r} names {len(found)} measures; give them one by one "
            f"(e.g. {found[0][1].name!r})"
        )
    return found[0][1]


#: The usual F-beta of the retrieved set, (1 + beta**2) P R / (beta**2 P + R):
#: trec_eval's set_F with x = beta**2 (ir_measures has no measure of this name).
_F_BETA = "F"


def _parse_f_beta(text: str, opts_raw: Optional[str], param_raw: Optional[str]) -> Measure:
    """``F(beta=b)``: set_F with trec_eval's x = b**2 (named ``set_F_<b**2>``)."""
    fam = _BY_TREC["set_F"]
    if param_raw is not None:
        raise InvalidArgumentError(f"measure {text!r}: F takes no cutoff (it is a set measure)")
    opts = _parse_options(fam, opts_raw or "", text, only=("beta", "rel"))
    if "beta" in opts:  # SetF's beta (trec_eval's x) is F's beta squared
        opts["beta"] = opts["beta"] * opts["beta"]
    return Measure(fam, None, _normalise_options(fam, opts))


def _split(s: str) -> Tuple[str, Optional[str], Optional[str]]:
    base, param = s, None
    if "@" in base:
        base, param = base.rsplit("@", 1)
        param = param.strip()
    opts = None
    if base.endswith(")") and "(" in base:
        base, opts = base[:-1].split("(", 1)
    return base.strip(), opts, param


def measure_names(names: Any) -> List[str]:
    """*names* (``measures`` of evaluate() and compare()) as a list of str.

    A single str is one name; otherwise an iterable of str, at least one.
    """
    if isinstance(names, str):
        return [names]
    try:
        items = None if isinstance(names, (bytes, bytearray)) else list(names)
    except TypeError:
        items = None
    if items is None:
        raise InvalidArgumentError(
            "'measures' must be a measure name or an iterable of measure names, "
            f"e.g. ['map', 'nDCG@10'] (got {type(names).__name__} {names!r})"
        )
    if not items:
        raise InvalidArgumentError("'measures' must name at least one measure (got none)")
    for i, name in enumerate(items):
        if not isinstance(name, str):
            raise InvalidArgumentError(
                f"'measures' must hold measure names (str); measures[{i}] is "
                f"{type(name).__name__} {name!r}"
            )
    return items


def parse_measures(names: Union[str, Iterable[str]]) -> List[Measure]:
    """Parse several measure names (a single str is one name)."""
    return [parse_measure(n) for n in measure_names(names)]


def expand_trec_argument(arg: str, version: str = "9.0.8") -> List[Measure]:
    """Expand one trec_eval ``-m`` argument: ``P.5,10``, ``ndcg_cut``, ``official``.

    A family given without parameters gets trec_eval's default parameters;
    ``all_trec`` is trec_eval *version*'s group of that name.

    >>> [m.name for m in expand_trec_argument("P.10,5")]
    ['P_5', 'P_10']
    >>> len(expand_trec_argument("official"))   # 10 + 11 recall levels + 9 cutoffs
    30
    """
    return [m for _, m in expand_trec_argument_named(arg, version)]


def expand_trec_argument_named(arg: str, version: str = "9.0.8") -> List[Tuple[str, Measure]]:
    """:func:`expand_trec_argument` with the name trec_eval prints for each.

    Cutoffs are sorted and must be distinct (trec_eval stops on ``P.5,5``:
    "duplicate cutoffs"); recall levels and multiples print with two
    decimals (``iprec_at_recall_0.33``).  A measure whose parameters are
    not cutoffs prints ``name_`` and its parameters as written
    (``set_F.0.50`` prints ``set_F_0.50``, ``ndcg.1=1,2=3`` prints
    ``ndcg_1=1,2=3``).

    >>> expand_trec_argument_named("set_F.0.50")[0][0]
    'set_F_0.50'
    """
    if arg in TREC_GROUPS or arg == "all_trec":
        # all_trec: trec_eval version's measures but those its group leaves out
        keys = TREC_GROUPS.get(arg) or tuple(k for k in trec_measure_names(version)
                                              if _BY_TREC[k].all_trec)
        out: List[Tuple[str, Measure]] = []
        for key in keys:
            out.extend(expand_trec_argument_named(key))
        return out
    name, sep, params = arg.partition(".")
    fam = _BY_TREC.get(name)
    if fam is None:
        raise _unknown(arg, name)
    return _trec_measures(fam, params if sep else None, arg)


def _trec_measures(fam: Family, params: Optional[str], text: str) -> List[Tuple[str, Measure]]:
    """The measures of trec_eval's ``-m key.params`` (*params* None: ``-m
    key``, its default parameters) with the names trec_eval prints."""
    if params == "":
        raise InvalidArgumentError(f"measure {text!r}: no parameter after the '.'")
    if fam.param == "none":
        if params is None:
            return [(fam.key, Measure(fam, None, _normalise_options(fam, {})))]
        if not fam.trec_params:
            raise InvalidArgumentError(f"trec_eval measure {fam.key!r} takes no parameters here")
        value = _option(fam.options[fam.trec_params], params, text)
        options = _normalise_options(fam, {fam.trec_params: value})
        return [(f"{fam.key}_{params}", Measure(fam, None, options))]
    values: Sequence[Union[int, float]] = fam.defaults
    if params is not None:
        values = sorted(_parse_param(fam, v.strip(), text) for v in params.split(","))
    for a, b in zip(values, values[1:]):
        if a == b:
            raise InvalidArgumentError(
                f"measure {text!r}: duplicate cutoffs ({_format_param(a, fam.param)}); "
                "trec_eval stops on them too"
            )
    return [(fam.trec_name(v, ()) or fam.key, Measure(fam, v, ())) for v in values]
