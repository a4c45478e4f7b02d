"""The C/W/L framework: a user model, and the five quantities it gives.

A C/W/L measure (Moffat, Bailey, Scholer, Thomas, TOIS 2017; Azzopardi,
Thomas, Moffat, SIGIR 2019, whose cwl-eval this follows) is its
continuation vector ``C_i``: the probability that a user who has read rank
*i* goes on to rank *i + 1*, which may read the gains ``g_i`` (in [0, 1]) and
costs ``c_i`` of the ranking.  Over a depth of ``n = 1000`` ranks (the
ranking cut there, or padded), with ``P_i = prod_{j<i} C_j``:

* weights ``W_i = P_i / sum_k P_k``, stopping ``L_i = P_i (1 - C_i)``;
* ``EU = sum W_i g_i`` (the measure's value), ``ETU = sum L_i G_i``,
  ``EC = sum W_i c_i``, ``ETC = sum L_i K_i`` (``G``, ``K``: the gains and
  costs so far), ``ED = 1 / W_1`` (the expected depth);
* the residuals ``ResEU`` ... ``ResED``: each quantity when every unjudged
  document and every rank past the ranking's end gains 1, minus its value
  when they gain 0 (cwl-eval's ``-r``).  For a static measure (C free of the
  gains: INSQ, SDCG, RBP, TBG, U-measure) ``ResEU`` is the weight of those
  ranks, :func:`residual`, the one residual kernel, which trec_eval 10.0's
  ``rbp_resid`` reaches too (RBP's weights, an unbounded horizon); for an
  adaptive one (INST, BPM, NERR) the weights move too, and a residual may be
  negative.

Each measure is one continuation function of :data:`MODELS` (its gains,
costs, parameter and cutoff), and one function here that reads labels in
rank order, as :mod:`irmetrics.metrics` does: :func:`inst`, :func:`insq`,
:func:`bpm`, :func:`nerr8`, :func:`nerr9`, :func:`nerr10`, :func:`nerr11`,
:func:`sdcg`, :func:`tbg`, :func:`u_measure`, and :func:`rbp_cwl` (RBP's
five quantities and residuals).  A label scales to the gain ``(min(label,
max_rel) - min_rel) / (max_rel - min_rel)`` (at least 0), as ir_measures
scales it; ``None`` is unjudged.  Sums use :func:`math.fsum`.

>>> round(inst([3, 0, 2], max_rel=3), 6)   # cwl-eval's INST-T=1.0 on gains 1, 0, 2/3
0.683303
>>> sdcg([1, 1], 2, max_rel=1)
1.0
"""

from __future__ import annotations

import math
from functools import lru_cache, reduce
from itertools import accumulate, chain, compress, takewhile
from operator import add, mul
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

from ._checks import (
    Label,
    check_choice,
    check_k,
    check_labels,
    check_positive_real,
    check_probability,
    check_rel,
)
from .errors import InvalidArgumentError

__all__ = ["inst", "insq", "bpm", "nerr8", "nerr9", "nerr10", "nerr11", "sdcg", "tbg",
           "u_measure", "rbp_cwl"]

#: The ranks every C/W/L quantity is computed over (cwl-eval's --max_depth).
DEPTH = 1000
#: cwl-eval's column headings, in its order: the quantities and their residuals.
QUANTITIES = ("EU", "ETU", "EC", "ETC", "ED", "ResEU", "ResETU", "ResEC", "ResETC", "ResED")

#: A continuation function: (gains, costs, the measure's parameter, its
#: cutoff) over DEPTH ranks -> C_1..C_n.
Model = Callable[[List[float], List[float], float, int], List[float]]
Gains = Sequence[Optional[float]]  # None: unjudged


# === The continuation functions (cwl-eval's cwl/ruler/measures) ==============


def _inst(g: List[float], c: List[float], t: float, k: int) -> List[float]:
    # INST: T_i = T - G_i, the gain still wanted; C_i = ((i+T+T_i-1)/(i+T+T_i))^2
    return [((i + t + (t - gained) - 1.0) / (i + t + (t - gained))) ** 2.0
            for i, gained in enumerate(accumulate(g), 1)]


def _insq(g: List[float], c: List[float], t: float, k: int) -> List[float]:
    return [((i + 2.0 * t - 1.0) / (i + 2.0 * t)) ** 2.0 for i in range(1, len(g) + 1)]


def _bpm(g: List[float], c: List[float], t: float, k: int) -> List[float]:
    # static BPM: go on while the gain so far is below T and the cost so far below K
    going = takewhile(lambda gk: gk[0] < t and gk[1] < k, zip(accumulate(g), accumulate(c)))
    n = len(list(going))
    return [1.0] * n + [0.0] * (len(g) - n)


def _nerr8(g: List[float], c: List[float], t: float, k: int) -> List[float]:
    return [1.0 - x if i < k else 0.0 for i, x in enumerate(g, 1)]


def _nerr9(g: List[float], c: List[float], t: float, k: int) -> List[float]:
    return [(i / (i + 1.0)) * (1.0 - x) if i < k else 0.0 for i, x in enumerate(g, 1)]


def _nerr10(g: List[float], c: List[float], p: float, k: int) -> List[float]:
    return [p * (1 - x) for x in g]


def _nerr11(g: List[float], c: List[float], t: float, k: int) -> List[float]:
    return [((i + 2.0 * t - 1.0) / (i + 2.0 * t)) ** 2.0 * (1.0 - x) for i, x in enumerate(g, 1)]


def _sdcg(g: List[float], c: List[float], t: float, k: int) -> List[float]:
    return [math.log(i + 1, 2.0) / math.log(i + 2, 2.0) if i < k else 0.0
            for i in range(1, len(g) + 1)]


def _rbp(g: List[float], c: List[float], p: float, k: int) -> List[float]:
    return [p] * len(g)


def _from_weights(w: List[float]) -> List[float]:
    """The continuation of weights given directly: C_i = w_{i+1} / w_i, C_n = 0."""
    return [b / a if a > 0.0 else 0.0 for a, b in zip(w, w[1:])] + [0.0]


def _tbg(g: List[float], c: List[float], h: float, k: int) -> List[float]:
    # W_i proportional to the decay D(x) = H 2^(-x/H) / ln 2 at the cost K_{i-1} spent before i
    spent = [0.0] + list(accumulate(c))[:-1]
    return _from_weights([(h * 2.0 ** (-x / h)) / math.log(2.0, math.e) for x in spent])


def _u_measure(g: List[float], c: List[float], length: float, k: int) -> List[float]:
    # W_i proportional to max(0, 1 - K_{i-1} / L), and 0 at the last rank
    spent = [0.0] + list(accumulate(c))[:-2]
    return _from_weights([max(0.0, 1.0 - x / length) for x in spent] + [0.0])


#: name -> (continuation function, the name of its parameter: "" for none)
MODELS: Dict[str, Tuple[Model, str]] = {
    "INST": (_inst, "T"), "INSQ": (_insq, "T"), "BPM": (_bpm, "T"), "NERR8": (_nerr8, ""),
    "NERR9": (_nerr9, ""), "NERR10": (_nerr10, "p"), "NERR11": (_nerr11, "T"),
    "SDCG": (_sdcg, ""), "RBP": (_rbp, "p"), "TBG": (_tbg, "H"), "UMeasure": (_u_measure, "L"),
}
#: The models whose continuation reads the gains; the others' (static) reads
#: only the parameter, the cutoff and the costs.
ADAPTIVE = frozenset({"INST", "BPM", "NERR8", "NERR9", "NERR10", "NERR11"})


# === The machinery ===========================================================


def _padded(gains: Gains, costs: Optional[Sequence[float]], fill: float,
            depth: int) -> Tuple[List[float], List[float]]:
    """Gains and costs over *depth* ranks: unjudged and padded ranks gain
    *fill* (1 in the best case, 0 in the worst); a rank without a cost costs 1."""
    g = [fill if x is None else x for x in gains[:depth]]
    c = list(costs[:depth]) if costs is not None else []
    return g + [fill] * (depth - len(g)), c + [1.0] * (depth - len(c))


def _model(model: str, g: List[float], c: List[float], param: float, k: int) -> Any:
    """What does not read the gains once the continuation C_i is made: C_i,
    the reach ``P_i = C_1 ... C_(i-1)``, the stopping L_i, EC, ETC and ED.
    The ranks from where P_i underflows to 0 add nothing and are left out."""
    cont = MODELS[model][0](g, c, param, k)
    reach = list(accumulate([1.0] + cont[:-1], mul))
    if not reach[-1]:  # P_i is 0 from the rank where it underflows on
        del reach[reach.index(0.0):]
    stop = [p * (1.0 - x) for p, x in zip(reach, cont)]
    total = math.fsum(reach)
    return (cont, reach, stop, math.fsum(map(mul, reach, c)) / total,
            math.fsum(map(mul, stop, accumulate(c))), total)


@lru_cache(maxsize=16)
def _static(model: str, param: float, k: int, costs: Optional[Tuple[float, ...]],
            depth: int) -> Any:
    """A static model's :func:`_model`, made once per measure (and costs; a
    few kept, as costs given per query make one each)."""
    return _model(model, *_padded([], costs, 0.0, depth), param, k)


@lru_cache(maxsize=1024)
def _tail(key: Tuple[Any, ...], m: int) -> Tuple[float, float, float]:
    """A static model's sums over the ranks past m (*key*: :func:`_static`'s
    arguments): of P_i, of L_i, and of j L_i at the j-th of them (what they
    add when each gains 1)."""
    _, reach, stop, *_ = _static(*key)
    return (math.fsum(reach[m:]), math.fsum(stop[m:]),
            math.fsum(map(mul, stop[m:], range(1, len(stop) + 1))))


def _quantities(vecs: Any, g: List[float], fill: float, tail: Sequence[float]) -> List[float]:
    """EU, ETU, EC, ETC, ED of :func:`_model`'s *vecs* over gains *g*, the
    ranks past them (*tail*: :func:`_tail`'s sums) gaining *fill* each."""
    _, reach, stop, ec, etc, total = vecs
    gained = list(accumulate(g, initial=0.0))
    return [math.fsum(chain(map(mul, reach, g), [fill * tail[0]])) / total,
            math.fsum(chain(map(mul, stop, gained[1:]), [gained[-1] * tail[1], fill * tail[2]])),
            ec, etc, total]


def quantities(model: str, gains: Gains, *, param: float = 1.0, k: int = DEPTH,
               costs: Optional[Sequence[float]] = None, depth: int = DEPTH,
               residuals: bool = True) -> List[float]:
    """The ten quantities of :data:`QUANTITIES` for C/W/L measure *model* (its
    parameter *param*, its cutoff *k*) over *gains* in rank order (None:
    unjudged) and *costs* (None: 1 each): the worst case's five, then best
    minus worst (the residuals; 0 when no rank is unknown, and left out when
    not *residuals*).  A static model's vectors are made once
    (:func:`_static`, :func:`_tail`), a query's work is over its own ranks,
    and ResEU is :func:`residual`."""
    static = model not in ADAPTIVE
    key = (model, param, k, None if costs is None else tuple(costs[:depth]), depth)
    m = min(len(gains), depth) if static else depth
    tail = _tail(key, m) if static else (0.0, 0.0, 0.0)
    open_ranks = residuals and (None in gains[:depth] or len(gains) < depth)
    cases = []
    for fill in (0.0, 1.0) if open_ranks else (0.0,):
        g, c = _padded(gains, costs, fill, m)
        vecs = _static(*key) if static else _model(model, g, c, param, k)
        cases.append(_quantities(vecs, g, fill, tail))
    res = [b - a for a, b in zip(cases[0], cases[-1])]
    if static and open_ranks:
        res[0] = residual([x is None for x in gains], vecs[0], depth)
    return cases[0] + res if residuals else cases[0]


def vectors(model: str, gains: Gains, *, param: float, k: int,
            costs: Optional[Sequence[float]]) -> Tuple[List[float], List[float]]:
    """The worst case's continuations C_i and weights W_i of *model* (what
    explain shows; :func:`quantities` has the arguments' meaning)."""
    cont, reach, *_, total = _model(model, *_padded(gains, costs, 0.0, DEPTH), param, k)
    return cont, [p / total for p in reach] + [0.0] * (len(cont) - len(reach))


def scaled(labels: Iterable[Label], min_rel: float, max_rel: float) -> List[Optional[float]]:
    """Labels as gains in [0, 1], ir_measures' scaling: None and negative
    labels (pooled, unjudged) stay unjudged."""
    span = max_rel - min_rel
    return [None if x is None or x < 0 else
            (min(max(x, min_rel), max_rel) - min_rel) / span if span > 0 else 0.0
            for x in labels]


# === The residual ============================================================


def residual(unknown: Sequence[bool], cont: Sequence[float],
             horizon: Optional[int] = DEPTH) -> float:
    """The residual of EU (ResEU) of a user model whose weights the unknown
    ranks do not move: the weight of the unknown ranks.

    The unknown ranks are those *unknown* marks (its length m is the
    ranking's, cut where the measure cuts it: unjudged documents) and the
    ranks past m up to *horizon*.  With ``P_i = C_1 ... C_(i-1)`` made by
    repeated products and the reaches of the unknown ranks added left to right
    (trec_eval 10.0's m_rbp_resid.c's order):

    * a finite *horizon* h (cwl-eval's DEPTH; *cont*: C_1 ... C_h): the
      weights are normalised over it, ``W_i = P_i / sum_{j<=h} P_j``, and
      ``ResEU = sum_{unknown i<=h} P_i / sum_{j<=h} P_j``;
    * an unbounded *horizon* (None), for a geometric user (*cont*: ``[p]``,
      C_i = p at every rank: RBP): ``W_i = (1 - p) P_i`` sum to 1 unnormalised,
      the ranks past m weigh ``P_(m+1) = p^m``, and
      ``ResEU = p^m + (1 - p) sum_{unknown i<=m} P_i``: trec_eval 10.0's
      ``rbp_resid`` (which prints 0 when nothing is unjudged: the registry's).

    >>> residual([False, True], [0.5], None)   # p^2 + (1 - p) p
    0.5
    >>> residual([False, True], [0.5] * 3)     # (P_2 + P_3) / (P_1 + P_2 + P_3)
    0.42857142857142855
    """
    m = len(unknown) if horizon is None else min(len(unknown), horizon)
    marked = list(unknown[:m]) + [True] * ((m if horizon is None else horizon) - m)
    steps = [cont[0]] * m if horizon is None else cont[:len(marked)]
    reach = list(accumulate(steps, mul, initial=1.0))  # P_1 ... P_(n+1)
    open_reach = reduce(add, compress(reach[:-1], marked), 0.0)
    if horizon is None:
        return reach[-1] + (1.0 - cont[0]) * open_reach
    return open_reach / reduce(add, reach[:-1], 0.0)


# === The list functions ======================================================


def _list_value(model: str, labels: Iterable[Any], k: Any, param: Any,
                max_rel: Any, min_rel: Any, quantity: str,
                costs: Optional[Iterable[Any]]) -> float:
    """One quantity of *model* from labels, each argument checked once (its
    model's parameter, named in :data:`MODELS`: p in (0, 1), others > 0)."""
    k = check_k(k, optional=False)
    ls = check_labels(labels)
    name = MODELS[model][1]
    if name:
        param = check_probability(param) if name == "p" else check_positive_real(param, name)
    top = check_positive_real(max_rel, "max_rel")
    low = 0.0 if min_rel == 0 else check_positive_real(min_rel, "min_rel")
    if low >= top:
        raise InvalidArgumentError(f"'min_rel' must be below 'max_rel' (got {min_rel!r}, "
                                   f"{max_rel!r})")
    cs = None if costs is None else [1.0 if x is None else float(x)
                                     for x in check_labels(costs, "costs")]
    which = QUANTITIES.index(check_choice(quantity, "quantity", QUANTITIES))
    return quantities(model, scaled(ls, low, top), param=param, k=k,
                      costs=cs, residuals=which >= 5)[which]


def inst(labels: Iterable[Any], *, max_rel: float, T: float = 1.0, min_rel: float = 0,
         quantity: str = "EU", costs: Optional[Iterable[Any]] = None) -> float:
    """INST (Moffat, Bailey, Scholer, Thomas, ADCS 2015): a user who wants a
    total gain T.

    ``C_i = ((i + T + T_i - 1) / (i + T + T_i))^2``, ``T_i = T - G_i``.
    *quantity*: one of :data:`QUANTITIES` (default EU, the value); *costs*:
    each rank's cost (default 1).

    >>> round(inst([1, 0], max_rel=1), 6)   # G = T from rank 1: P_i = 1/i^2, EU = W_1
    ... # = 1 / sum_{i<=1000} 1/i^2
    0.608297
    """
    return _list_value("INST", labels, DEPTH, T, max_rel, min_rel, quantity, costs)


def insq(labels: Iterable[Any], *, max_rel: float, T: float = 1.0, min_rel: float = 0,
         quantity: str = "EU", costs: Optional[Iterable[Any]] = None) -> float:
    """INSQ (Moffat, Scholer, Thomas, ADCS 2012): ``C_i = ((i + 2T - 1) / (i + 2T))^2``.

    >>> round(insq([1], max_rel=1), 6)   # P_i = (2 / (i+1))^2: 1 / sum_{i<=1000} P_i
    0.388238
    """
    return _list_value("INSQ", labels, DEPTH, T, max_rel, min_rel, quantity, costs)


def bpm(labels: Iterable[Any], k: int, *, max_rel: float, T: float = 1.0, min_rel: float = 0,
        quantity: str = "EU", costs: Optional[Iterable[Any]] = None) -> float:
    """The static Bejeweled Player Model (Zhang et al., SIGIR 2017): the user
    stops once the gain so far reaches T or the cost so far reaches *k*.

    >>> bpm([0, 1, 1], 10, max_rel=1)   # ranks 1 and 2 read: (0 + 1) / 2
    0.5
    """
    return _list_value("BPM", labels, k, T, max_rel, min_rel, quantity, costs)


def nerr8(labels: Iterable[Any], k: int, *, max_rel: float, min_rel: float = 0,
          quantity: str = "EU", costs: Optional[Iterable[Any]] = None) -> float:
    """NERR, equation 8 (Azzopardi, Mackenzie, Moffat, ICTIR 2021):
    ``C_i = 1 - g_i`` above rank *k*, 0 from it.

    >>> nerr8([0, 1, 1], 5, max_rel=1)   # W = 1/2, 1/2 on ranks 1 and 2
    0.5
    """
    return _list_value("NERR8", labels, k, 0.0, max_rel, min_rel, quantity, costs)


def nerr9(labels: Iterable[Any], k: int, *, max_rel: float, min_rel: float = 0,
          quantity: str = "EU", costs: Optional[Iterable[Any]] = None) -> float:
    """NERR, equation 9: ``C_i = i / (i + 1) (1 - g_i)`` above rank *k*, 0 from it.

    >>> round(nerr9([0, 1], 5, max_rel=1), 6)   # W_1, W_2 = 2/3, 1/3
    0.333333
    """
    return _list_value("NERR9", labels, k, 0.0, max_rel, min_rel, quantity, costs)


def nerr10(labels: Iterable[Any], *, max_rel: float, p: float = 0.9, min_rel: float = 0,
           quantity: str = "EU", costs: Optional[Iterable[Any]] = None) -> float:
    """NERR, equation 10: ``C_i = p (1 - g_i)``.

    >>> round(nerr10([1], max_rel=1), 6)
    1.0
    """
    return _list_value("NERR10", labels, DEPTH, p, max_rel, min_rel, quantity, costs)


def nerr11(labels: Iterable[Any], *, max_rel: float, T: float = 1.0, min_rel: float = 0,
           quantity: str = "EU", costs: Optional[Iterable[Any]] = None) -> float:
    """NERR, equation 11: ``C_i = ((i + 2T - 1) / (i + 2T))^2 (1 - g_i)``.

    >>> nerr11([1, 1], max_rel=1)
    1.0
    """
    return _list_value("NERR11", labels, DEPTH, T, max_rel, min_rel, quantity, costs)


def sdcg(labels: Iterable[Any], k: int, *, max_rel: float, min_rel: float = 0,
         quantity: str = "EU", costs: Optional[Iterable[Any]] = None) -> float:
    """Scaled DCG@k (Järvelin and Kekäläinen, TOIS 2002, in C/W/L form): DCG@k
    over the DCG@k of k documents of gain 1,
    ``sum_{i<=k} g_i / log2(i+1) / sum_{i<=k} 1 / log2(i+1)``.

    >>> round(sdcg([2, 1], 2, max_rel=2), 6)   # (1 + 0.5/log2 3) / (1 + 1/log2 3)
    0.806574
    """
    return _list_value("SDCG", labels, k, 0.0, max_rel, min_rel, quantity, costs)


def tbg(labels: Iterable[Any], *, max_rel: float, H: float = 224, min_rel: float = 0,
        quantity: str = "EU", costs: Optional[Iterable[Any]] = None) -> float:
    """Time-biased gain (Smucker and Clarke, SIGIR 2012), C/W/L form: ``W_i``
    proportional to ``2^(-K_{i-1}/H)``, the half-life *H* in cost units.

    >>> round(tbg([1], max_rel=1, H=1), 6)   # unit costs: RBP with p = 1/2
    0.5
    """
    return _list_value("TBG", labels, DEPTH, H, max_rel, min_rel, quantity, costs)


def u_measure(labels: Iterable[Any], *, max_rel: float, L: float = 1000, min_rel: float = 0,
              quantity: str = "EU", costs: Optional[Iterable[Any]] = None) -> float:
    """U-measure (Sakai and Dou, SIGIR 2013), C/W/L form: ``W_i`` proportional
    to ``max(0, 1 - K_{i-1} / L)``.

    >>> u_measure([1, 0], max_rel=1, L=2)   # W = 2/3, 1/3
    0.6666666666666666
    """
    return _list_value("UMeasure", labels, DEPTH, L, max_rel, min_rel, quantity, costs)


def rbp_cwl(labels: Iterable[Any], *, p: float = 0.8, rel: float = 1, quantity: str = "ResEU",
            costs: Optional[Iterable[Any]] = None) -> float:
    """RBP's C/W/L quantities (``C_i = p``; binary gains, label >= *rel*), by
    default its residual ResEU: the weight of the unjudged ranks and of
    those past the ranking's end (cwl-eval's, over 1000 ranks).

    >>> round(rbp_cwl([1, None], p=0.5), 6)   # W_2 + W_3 + ... = 1/2
    0.5
    """
    r = check_rel(rel)
    binary = [None if x is None else float(x >= r) for x in check_labels(labels)]
    return _list_value("RBP", binary, DEPTH, p, 1, 0, quantity, costs)
