"""explain(): why a query gets the value it gets, rank by rank.

:func:`explain` takes the same inputs as :func:`~irmetrics.evaluate` (a
:class:`~irmetrics.Qrels` and a :class:`~irmetrics.Run`, dicts of dicts or
TREC files), one query id and one measure name (trec_eval's or ir_measures'
spelling), and returns an :class:`Explanation`:

* ``value``: the value evaluate() gives for that query, computed by the same
  registry function on the same per-query data (never derived a second time);
* ``rows``: the ranking in the order the measure sees it (score descending,
  ties broken by document id descending, after ``depth`` and
  ``judged_only``), one dict per document with ``rank``, ``doc``, ``score``,
  ``label`` (``None`` unjudged, ``-1`` pooled but not judged), ``tie`` (the
  number of its block of tied scores, or ``None``) and the measure's own terms
  at that rank;
* the normaliser where there is one: ``n_relevant`` (R), ``ideal`` (the ideal
  DCG and the ideal ranking it came from);
* ``str()``: the derivation as a worked example; ``_repr_html_()``: the same
  as a table for notebooks.

The terms come from :data:`_TERMS`, one small function per measure family,
keyed like :data:`irmetrics.measures.FAMILIES`.  They are for reading; the
value is the registry's.

>>> qrels = {"q1": {"a": 1, "b": 1, "c": 1, "d": 1, "e": 0}}
>>> run = {"q1": {"a": 6, "b": 5, "e": 4, "c": 3, "x": 2, "d": 1}}
>>> e = explain(qrels, run, "q1", "AP")
>>> round(e.value, 4)   # (1/1 + 2/2 + 3/4 + 4/6) / 4
0.8542
>>> [r["precision"] for r in e.rows][:3]
[1.0, 1.0, None]
"""

from __future__ import annotations

import math
from typing import (
    Any,
    Callable,
    Dict,
    List,
    Mapping,
    Optional,
    Sequence,
    Tuple,
    Union,
)

from . import metrics as _m
from ._text import one_line, quoted
from .data import Qrels
from .errors import InvalidArgumentError, IrmetricsError, UnknownMeasureError
from .evaluate import _Scorer
from .evaluation import Options, check_options
from .formats import html_table
from .measures import Env, Measure, QueryData, _gain_of, parse_measure
from .sources import open_qrels, open_run

__all__ = ["explain", "Explanation"]

Row = Dict[str, Any]
Number = Union[int, float]

#: Rows shown by ``str()`` and ``_repr_html_()`` at most (``rows`` has them all).
MAX_ROWS_SHOWN = 100
#: Terms written out in a sum before the middle is elided.
_MAX_TERMS_WRITTEN = 12


class Explanation:
    """How one query's value for one measure is derived (see :func:`explain`).

    Attributes: ``query``, ``measure`` (the name as given), ``name`` (the
    canonical name), ``value``, ``rows`` (a list of dicts), ``columns`` (the
    term keys of the rows, in display order), ``formula`` (the formula in
    plain text), ``steps`` (the arithmetic, line by line), ``n_relevant`` (R,
    or ``None`` for measures without it), ``ideal`` (a dict with the ideal
    ranking's ``labels``, ``gains`` and ``dcg``, for the nDCG family; else
    ``None``) and ``shown`` (how many rows the derivation needs).
    """

    def __init__(
        self,
        query: str,
        measure: str,
        name: str,
        value: Any,
        rows: List[Row],
        terms: _Terms,
        options: str,
    ) -> None:
        self.query = query
        self.measure = measure
        self.name = name
        self.value = value
        self.rows = rows
        self.columns = tuple(terms.columns)
        self.formula = terms.formula
        self.steps = tuple(terms.steps)
        self.n_relevant = terms.n_relevant
        self.ideal = terms.ideal
        self.shown = len(rows) if terms.extent is None else min(terms.extent, len(rows))
        self._rest = terms.rest
        self._options = options

    def __repr__(self) -> str:
        return (f"Explanation(query={quoted(self.query)}, measure={quoted(self.measure)}, "
                f"value={_fmt(self.value)}, rows={len(self.rows)})")

    def to_dict(self) -> Dict[str, Any]:
        """Everything as plain data (what ``irmetrics explain --format json`` prints)."""
        return {
            "query": self.query, "measure": self.measure, "name": self.name,
            "value": self.value, "n_relevant": self.n_relevant,
            "ideal": None if self.ideal is None else dict(self.ideal),
            "columns": list(self.columns), "rows": [dict(r) for r in self.rows],
            "formula": self.formula, "steps": list(self.steps),
        }

    # === The derivation as text ===

    def _title(self) -> str:
        alias = "" if self.measure == self.name else f" ({self.name})"
        return f"{one_line(self.measure)}{alias} for query {quoted(self.query)}{self._options}"

    def _table(self) -> Tuple[List[str], List[List[str]]]:
        header = ["rank", "doc", "score", "label", "tie"] + [_HEADERS.get(c, c)
                                                             for c in self.columns]
        cells = []
        for r in self.rows[: min(self.shown, MAX_ROWS_SHOWN)]:
            cells.append([str(r["rank"]), one_line(r["doc"]), _score(r["score"]),
                          _label(r["label"]),
                          "" if r["tie"] is None else f"T{r['tie']}"]
                         + [_cell(r[c]) for c in self.columns])
        return header, cells

    def _notes(self) -> List[str]:
        notes = []
        n = len(self.rows)
        shown = min(self.shown, MAX_ROWS_SHOWN)
        if shown < n:
            if shown < self.shown:
                notes.append(f"ranks {shown + 1}-{n} not shown (see .rows)")
            else:
                where = f"rank {n}" if shown + 1 == n else f"ranks {shown + 1}-{n}"
                notes.append(f"{where} not shown: {self._rest}")
        if not self.rows:
            notes.append("the ranking is empty")
        labels = [r["label"] for r in self.rows[:shown]]
        legend = []
        if any(x is None for x in labels):
            legend.append("'-' not in the qrels (unjudged)")
        if any(x is not None and x < 0 for x in labels):
            legend.append("-1 pooled but not judged")
        if legend:
            notes.append("label " + "; ".join(legend))
        if any(r["tie"] is not None for r in self.rows[:shown]):
            notes.append("T1, T2, ...: blocks of tied scores, in trec_eval's order "
                         "(document id descending)")
        return notes

    def __str__(self) -> str:
        lines = [self._title(), "  " + self.formula, ""]
        header, cells = self._table()
        if cells:
            widths = [max(len(h), *(len(row[i]) for row in cells)) for i, h in enumerate(header)]
            lines.append("  ".join(h.rjust(w) if i != 1 else h.ljust(w)
                                   for i, (h, w) in enumerate(zip(header, widths))).rstrip())
            for row in cells:
                lines.append("  ".join(c.rjust(w) if i != 1 else c.ljust(w)
                                       for i, (c, w) in enumerate(zip(row, widths))).rstrip())
        lines.extend(self._notes())
        lines.append("")
        lines.extend(self.steps)
        lines.append(f"{self.name} = {_fmt(self.value)}")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        """The derivation as an HTML table, for notebooks; every id and name escaped."""
        import html  # only for notebooks

        esc = html.escape
        header, cells = self._table()
        out = [f"<div><p><b>{esc(self._title())}</b><br><code>{esc(self.formula)}</code></p>",
               html_table(header, cells, sep="\n")]
        for line in self._notes() + [""] + list(self.steps):
            if line:
                out.append(f"<p>{esc(line)}</p>")
        out.append(f"<p><b>{esc(self.name)} = {esc(_fmt(self.value))}</b></p></div>")
        return "\n".join(out)


# === Formatting ==============================================================


_HEADERS = {
    "relevant": "rel", "hits": "hits", "precision": "P@rank", "contribution": "term",
    "nonrel_above": "nonrel above", "penalty": "penalty", "discount": "discount",
    "gain": "gain", "weight": "weight", "stop": "R_i", "reach": "P(reach)",
}


def _fmt(x: Any) -> str:
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, int):
        return str(x)
    if isinstance(x, float):
        return f"{x:.4f}"
    return str(x)


def _cell(x: Any) -> str:
    if x is None:
        return ""
    if isinstance(x, bool):
        return "yes" if x else ""
    return _fmt(x)


def _score(s: float) -> str:
    return f"{s:g}"


def _label(x: Optional[int]) -> str:
    return "-" if x is None else str(x)


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


# === Terms, one function per family =========================================


class _Terms:
    """What a family's term function returns, besides the columns it fills in."""

    def __init__(
        self,
        columns: Sequence[str],
        formula: str,
        steps: Sequence[str],
        *,
        extent: Optional[int] = None,
        rest: str = "they add nothing",
        n_relevant: Optional[int] = None,
        ideal: Optional[Dict[str, Any]] = None,
    ) -> None:
        self.columns = list(columns)
        self.formula = formula
        self.steps = list(steps)
        self.extent = extent  # rows the derivation needs (None: all)
        self.rest = rest  # why the rows after extent need not be shown
        self.n_relevant = n_relevant
        self.ideal = ideal


TermFunction = Callable[[QueryData, Measure, Env, List[Row]], _Terms]


def _k(m: Measure) -> Optional[int]:
    return None if m.param is None else int(m.param)


def _relevance(q: QueryData, m: Measure, env: Env, rows: List[Row]) -> Tuple[Number, List[int]]:
    """Mark each row ``relevant`` and count ``hits`` (relevant so far); the
    relevance threshold and the 1-based relevant ranks."""
    rel = m.rel(env)
    hits = 0
    ranks = []
    for r, x in zip(rows, q.labels):
        r["relevant"] = x is not None and x >= rel
        if r["relevant"]:
            hits += 1
            ranks.append(r["rank"])
        r["hits"] = hits
    return rel, ranks


def _r_text(q: QueryData, rel: Number) -> str:
    levels = ", ".join(f"{c} at label {lvl}" for lvl, c in sorted(q.levels.items(), reverse=True)
                       if lvl >= rel)
    r = q.n_relevant(rel)
    return f"R = {r} (judged documents with label >= {rel}{': ' + levels if levels else ''})"


def _after(ranks: Sequence[int], k: Optional[int]) -> Tuple[Optional[int], str]:
    """Rows needed up to the last relevant rank (or the cutoff, if it comes first)."""
    last = ranks[-1] if ranks else 0
    if k is not None and k <= last:
        return k, f"below the cutoff k = {k}"
    return last, "no relevant document"


def _t_ap(q: QueryData, m: Measure, env: Env, rows: List[Row]) -> _Terms:
    rel, ranks = _relevance(q, m, env, rows)
    k = _k(m)
    terms = []
    for r in rows:
        r["precision"] = r["hits"] / r["rank"] if r["relevant"] else None
        counted = r["relevant"] and (k is None or r["rank"] <= k)
        r["contribution"] = r["precision"] if counted else None
        if counted:
            terms.append(r["precision"])
    big_r = q.n_relevant(rel)
    extent, rest = _after(ranks, k)
    total = math.fsum(terms)
    cut = "" if k is None else f" within the top {k}"
    steps = [
        f"sum of precision at each relevant rank{cut} = {_eq(terms, total)}",
        _r_text(q, rel),
        f"{total:.4f} / {big_r} = {_fmt(total / big_r)}" if big_r else "R = 0: the value is 0",
    ]
    return _Terms(["relevant", "hits", "precision", "contribution"],
                  "AP = (sum of P@rank over the relevant ranks) / R", steps,
                  extent=extent, rest=rest, n_relevant=big_r)


def _t_p(q: QueryData, m: Measure, env: Env, rows: List[Row]) -> _Terms:
    rel, ranks = _relevance(q, m, env, rows)
    k = int(m.param or 0)
    hits = sum(1 for x in ranks if x <= k)
    return _Terms(["relevant", "hits"], "P@k = (relevant documents in the top k) / k", [
        f"relevant in the top {k}: {hits}" + (f" (ranks {_list(x for x in ranks if x <= k)})"
                                             if hits else ""),
        f"{hits} / {k} = {_fmt(hits / k)}",
    ], extent=k, rest=f"below the cutoff k = {k}")


def _t_recall(q: QueryData, m: Measure, env: Env, rows: List[Row]) -> _Terms:
    rel, ranks = _relevance(q, m, env, rows)
    k = _k(m)
    hits = sum(1 for x in ranks if k is None or x <= k)
    big_r = q.n_relevant(rel)
    return _Terms(["relevant", "hits"], "recall@k = (relevant documents in the top k) / R", [
        f"relevant in the top {k}: {hits}",
        _r_text(q, rel),
        f"{hits} / {big_r} = {_fmt(hits / big_r)}" if big_r else "R = 0: the value is 0",
    ], extent=k, rest=f"below the cutoff k = {k}", n_relevant=big_r)


def _t_rprec(q: QueryData, m: Measure, env: Env, rows: List[Row]) -> _Terms:
    rel, ranks = _relevance(q, m, env, rows)
    big_r = q.n_relevant(rel)
    hits = sum(1 for x in ranks if x <= big_r)
    steps = [_r_text(q, rel)]
    if big_r:
        steps += [f"relevant in the top R = {big_r}: {hits}",
                  f"{hits} / {big_r} = {_fmt(hits / big_r)}"]
    else:
        steps.append("R = 0: the value is 0")
    return _Terms(["relevant", "hits"], "Rprec = (relevant documents in the top R) / R", steps,
                  extent=big_r, rest=f"below rank R = {big_r}", n_relevant=big_r)


def _t_rprec_mult(q: QueryData, m: Measure, env: Env, rows: List[Row]) -> _Terms:
    rel, ranks = _relevance(q, m, env, rows)
    big_r = q.n_relevant(rel)
    mult = float(m.param if m.param is not None else 1.0)
    cut = int(mult * big_r + 0.9)
    hits = sum(1 for x in ranks if x <= cut)
    steps = [_r_text(q, rel)]
    if big_r and cut > 0:
        steps += [f"cut = int({mult:g} * {big_r} + 0.9) = {cut} (trec_eval's rounding)",
                  f"relevant in the top {cut}: {hits}", f"{hits} / {cut} = {_fmt(hits / cut)}"]
    else:
        steps.append("no rank to cut at (R = 0): the value is 0")
    return _Terms(["relevant", "hits"], "Rprec_mult = (relevant in the top m*R) / (m*R)", steps,
                  extent=cut, rest=f"below rank {cut}", n_relevant=big_r)


def _t_relative_p(q: QueryData, m: Measure, env: Env, rows: List[Row]) -> _Terms:
    rel, ranks = _relevance(q, m, env, rows)
    k = int(m.param or 0)
    big_r = q.n_relevant(rel)
    hits = sum(1 for x in ranks if x <= k)
    d = min(k, big_r)
    return _Terms(["relevant", "hits"], "relative_P@k = (relevant in the top k) / min(k, R)", [
        _r_text(q, rel), f"relevant in the top {k}: {hits}",
        f"{hits} / min({k}, {big_r}) = {_fmt(hits / d)}" if d else "min(k, R) = 0: the value is 0",
    ], extent=k, rest=f"below the cutoff k = {k}", n_relevant=big_r)


def _t_rr(q: QueryData, m: Measure, env: Env, rows: List[Row]) -> _Terms:
    rel, ranks = _relevance(q, m, env, rows)
    k = _k(m)
    first = ranks[0] if ranks and (k is None or ranks[0] <= k) else None
    for r in rows:
        r["contribution"] = 1.0 / r["rank"] if r["rank"] == first else None
    rest = "after the first relevant document"
    if first is None:
        cut = "" if k is None else f" in the top {k}"
        steps = [f"no relevant document{cut}: the value is 0"]
        extent, rest = ((0, "no relevant document") if k is None
                        else (k, f"below the cutoff k = {k}"))
    else:
        steps = [f"the first relevant document is at rank {first}: 1 / {first} = "
                 f"{_fmt(1.0 / first)}"]
        extent = first
    return _Terms(["relevant", "contribution"], "RR = 1 / (rank of the first relevant document)",
                  steps, extent=extent, rest=rest)


def _t_success(q: QueryData, m: Measure, env: Env, rows: List[Row]) -> _Terms:
    rel, ranks = _relevance(q, m, env, rows)
    k = _k(m)
    hit = bool(ranks) and (k is None or ranks[0] <= k)
    steps = [f"a relevant document in the top {k}: " + (f"yes, at rank {ranks[0]}" if hit
                                                         else "no")]
    return _Terms(["relevant"], "success@k = 1 if a relevant document is in the top k, else 0",
                  steps, extent=k, rest=f"below the cutoff k = {k}")


def _t_counts(q: QueryData, m: Measure, env: Env, rows: List[Row]) -> _Terms:
    key = m.family.key
    if key == "num_ret":
        return _Terms([], "num_ret = documents ranked",
                      [f"documents ranked: {len(rows)}"], extent=0,
                      rest="every ranked document counts once")
    if key == "num_q":
        return _Terms([], "num_q = 1 for each query evaluated", ["this query counts 1"],
                      extent=0, rest="the ranking does not matter")
    rel, ranks = _relevance(q, m, env, rows)
    if key == "num_rel":
        return _Terms([], "num_rel = R, judged documents with label >= rel", [_r_text(q, rel)],
                      extent=0, rest="R does not depend on the ranking",
                      n_relevant=q.n_relevant(rel))
    if key == "num_nonrel_judged_ret":
        for r in rows:
            r["nonrelevant"] = r["label"] is not None and 0 <= r["label"] < rel
        count = sum(1 for r in rows if r["nonrelevant"])
        return _Terms(["nonrelevant"], f"judged documents ranked with 0 <= label < {rel}",
                      [f"judged non-relevant ranked: {count}"])
    # num_rel_ret
    return _Terms(["relevant", "hits"], "num_rel_ret = relevant documents ranked", [
        f"relevant documents ranked: {len(ranks)}" + (f" (ranks {_list(ranks)})" if ranks else ""),
    ], extent=ranks[-1] if ranks else 0, rest="no relevant document")


def _t_set(q: QueryData, m: Measure, env: Env, rows: List[Row]) -> _Terms:
    rel, ranks = _relevance(q, m, env, rows)
    key = m.family.key
    n, hits, big_r = len(rows), len(ranks), q.n_relevant(rel)
    steps = [f"retrieved: n = {n}; relevant retrieved: {hits}", _r_text(q, rel)]
    extent, rest = ranks[-1] if ranks else 0, "no relevant document"
    if key == "set_P":
        formula = "set_P = (relevant retrieved) / retrieved"
        steps.append(f"{hits} / {n} = {_fmt(hits / n)}" if n else "nothing retrieved: 0")
    elif key == "set_recall":
        formula = "set_recall = (relevant retrieved) / R"
        steps.append(f"{hits} / {big_r} = {_fmt(hits / big_r)}" if big_r else "R = 0: 0")
    elif key == "set_relative_P":
        formula = "set_relative_P = (relevant retrieved) / min(retrieved, R)"
        d = min(n, big_r)
        steps.append(f"{hits} / min({n}, {big_r}) = {_fmt(hits / d)}" if d else "min = 0: 0")
    elif key == "set_map":
        formula = "set_map = set_P * set_recall = (relevant retrieved)^2 / (retrieved * R)"
        steps.append(f"({hits} / {n}) * ({hits} / {big_r}) = {_fmt(hits * hits / (n * big_r))}"
                     if n and big_r else "nothing retrieved or R = 0: 0")
    elif key == "utility":
        formula = "utility = (relevant retrieved) - (non-relevant retrieved)"
        steps.append(f"{hits} - {n - hits} = {hits - (n - hits)}")
    else:  # set_F
        x = float(m.option("weight", 1.0))  # trec_eval's x, the usual F's beta**2
        formula = "set_F = (1 + x) P R / (x P + R), P and R of the retrieved set"
        if hits and big_r and n:
            p, r = hits / n, hits / big_r
            steps += [f"P = {hits} / {n} = {_fmt(p)}; R = {hits} / {big_r} = {_fmt(r)}; "
                      f"x = {x:g}",
                      f"(1 + {x:g}) * {_fmt(p)} * {_fmt(r)} / "
                      f"({x:g} * {_fmt(p)} + {_fmt(r)})"]
        else:
            steps.append("nothing relevant retrieved: 0")
    return _Terms(["relevant", "hits"], formula, steps, extent=extent, rest=rest,
                  n_relevant=big_r)


def _t_bpref(q: QueryData, m: Measure, env: Env, rows: List[Row]) -> _Terms:
    rel, ranks = _relevance(q, m, env, rows)
    big_r, big_n = q.n_relevant(rel), q.n_nonrelevant(rel)
    bound = min(big_r, big_n)
    seen = 0
    terms = []
    for r in rows:
        x = r["label"]
        r["nonrel_above"] = r["penalty"] = r["contribution"] = None
        if x is None or x < 0:
            continue
        if x >= rel:
            r["nonrel_above"] = seen
            r["penalty"] = min(seen, bound) / bound if seen else 0.0
            r["contribution"] = 1.0 - r["penalty"]
            terms.append(r["contribution"])
        else:
            seen += 1
    total = math.fsum(terms)
    steps = [
        _r_text(q, rel),
        f"N = {big_n} judged non-relevant documents; min(R, N) = {bound}",
        f"sum of (1 - min(nonrel above, {bound}) / {bound}) = {_sum_text(terms)} = "
        f"{_fmt(total)}",
        f"{total:.4f} / {big_r} = {_fmt(total / big_r)}" if big_r else "R = 0: the value is 0",
    ]
    extent, rest = _after(ranks, None)
    return _Terms(["relevant", "nonrel_above", "penalty", "contribution"],
                  "bpref = (1/R) * sum over relevant ranked of "
                  "(1 - min(judged non-relevant above, min(R, N)) / min(R, N))",
                  steps, extent=extent, rest=rest, n_relevant=big_r)


def _t_infap(q: QueryData, m: Measure, env: Env, rows: List[Row]) -> _Terms:
    # The counts trec_eval's m_infap.c reads at each relevant rank, and the
    # estimate it adds there (eps = 1e-5).
    rel, ranks = _relevance(q, m, env, rows)
    eps = 0.00001
    rel_so_far = nonrel_so_far = pooled = 0
    terms = []
    for j, r in enumerate(rows):
        x = r["label"]
        r["judged_above"] = r["contribution"] = None
        if x is None:
            continue
        if x < 0:
            pooled += 1
            continue
        if x < rel:
            nonrel_so_far += 1
            continue
        r["judged_above"] = f"{rel_so_far}+{nonrel_so_far}+{pooled}"
        if j == 0:
            t = 1.0
        else:
            t = (1.0 / (j + 1) + (j / (j + 1)) * ((rel_so_far + nonrel_so_far + pooled) / j)
                 * ((rel_so_far + eps) / (rel_so_far + nonrel_so_far + 2 * eps)))
        r["contribution"] = t
        terms.append(t)
        rel_so_far += 1
    big_r = q.n_relevant(rel)
    total = math.fsum(terms)
    extent, rest = _after(ranks, None)
    return _Terms(["relevant", "judged_above", "contribution"],
                  "infAP = (1/R) * sum over relevant ranks k of 1/k + ((k-1)/k) * "
                  "(pooled above / (k-1)) * (r + eps) / (r + n + 2 eps)", [
                      "judged_above: relevant + non-relevant + pooled-unjudged above the rank",
                      f"sum of the estimates = {_eq(terms, total)}",
                      _r_text(q, rel),
                      f"{total:.4f} / {big_r} = {_fmt(total / big_r)}" if big_r
                      else "R = 0: the value is 0",
                  ], extent=extent, rest=rest, n_relevant=big_r)


def _precisions(rows: List[Row]) -> None:
    for r in rows:
        r["precision"] = r["hits"] / r["rank"] if r["relevant"] else None


def _t_iprec(q: QueryData, m: Measure, env: Env, rows: List[Row]) -> _Terms:
    rel, ranks = _relevance(q, m, env, rows)
    _precisions(rows)
    big_r = q.n_relevant(rel)
    level = float(m.param if m.param is not None else 0.0)
    need = max(int(level * big_r + 0.9), 1)
    eligible = []
    for r in rows:
        r["counts"] = bool(r["relevant"] and r["hits"] >= need)
        if r["counts"]:
            eligible.append(r["precision"])
    steps = [_r_text(q, rel)]
    if big_r:
        steps.append(f"recall {level:.2f} needs max(int({level:.2f} * {big_r} + 0.9), 1) = "
                     f"{need} relevant documents (trec_eval 9.0.8's rounding)")
        steps.append(f"the highest precision at a relevant rank with at least {need} found: "
                     + (f"max({_sum_text(eligible).replace(' + ', ', ')})" if eligible
                        else "none: 0"))
    else:
        steps.append("R = 0: the value is 0")
    extent, rest = _after(ranks, None)
    return _Terms(["relevant", "hits", "precision", "counts"],
                  "iprec_at_recall = max P@rank over the relevant ranks where recall >= level",
                  steps, extent=extent, rest=rest, n_relevant=big_r)


def _t_11pt(q: QueryData, m: Measure, env: Env, rows: List[Row]) -> _Terms:
    rel, ranks = _relevance(q, m, env, rows)
    _precisions(rows)
    big_r = q.n_relevant(rel)
    steps = [_r_text(q, rel)]
    if big_r:
        points = [_m._interpolated_precision(q.labels, lvl, big_r, rel)
                  for lvl in _m._ELEVEN_POINTS]
        steps.append("interpolated precision at recall 0.0, 0.1, ..., 1.0: "
                     + ", ".join(_fmt(p) for p in points))
        steps.append(f"({_sum_text(points)}) / 11 = {_fmt(math.fsum(points) / 11)}")
    else:
        steps.append("R = 0: the value is 0")
    extent, rest = _after(ranks, None)
    return _Terms(["relevant", "hits", "precision"],
                  "11pt_avg = mean of iprec_at_recall at recall 0.0, 0.1, ..., 1.0", steps,
                  extent=extent, rest=rest, n_relevant=big_r)


def _t_bin_g(q: QueryData, m: Measure, env: Env, rows: List[Row]) -> _Terms:
    rel, ranks = _relevance(q, m, env, rows)
    terms = []
    for r in rows:
        r["nonrel_above"] = r["rank"] - r["hits"] if r["relevant"] else None
        r["contribution"] = 1.0 / math.log2(2 + r["nonrel_above"]) if r["relevant"] else None
        if r["relevant"]:
            terms.append(r["contribution"])
    big_r = q.n_relevant(rel)
    total = math.fsum(terms)
    extent, rest = _after(ranks, None)
    return _Terms(["relevant", "nonrel_above", "contribution"],
                  "binG = (1/R) * sum over relevant ranked of 1 / log2(2 + non-relevant above)", [
                      f"sum = {_eq(terms, total)}", _r_text(q, rel),
                      f"{total:.4f} / {big_r} = {_fmt(total / big_r)}" if big_r and terms
                      else "no relevant document ranked (or R = 0): 0",
                  ], extent=extent, rest=rest, n_relevant=big_r)


def _gains(
    q: QueryData, m: Measure, rows: List[Row]
) -> Tuple[List[float], List[Tuple[int, float]]]:
    """The gain of each row and the ideal ranking (label, gain), best first, as
    the measure computes them."""
    if m.option("gain") is None:
        gains = q.gains()
        ideal = []
        for lvl in sorted(q.levels, reverse=True):
            if lvl > 0:
                ideal.extend([(lvl, float(lvl))] * q.levels[lvl])
        return list(gains), ideal
    gain_of = _gain_of(m)
    gains = [gain_of(x) for x in q.labels]
    pairs = [(lvl, gain_of(lvl)) for lvl in q.levels for _ in range(q.levels[lvl])]
    pairs.sort(key=lambda p: p[1], reverse=True)
    return gains, [p for p in pairs if p[1] > 0]


def _t_ndcg(q: QueryData, m: Measure, env: Env, rows: List[Row]) -> _Terms:
    k = _k(m)
    disc = _m._discount_function(m.option("discount", "log2"), None)
    gains, ideal = _gains(q, m, rows)
    terms = []
    for i, r in enumerate(rows):
        inside = k is None or r["rank"] <= k
        r["gain"] = gains[i] if inside else None
        r["discount"] = disc(r["rank"]) if inside else None
        r["contribution"] = gains[i] * r["discount"] if inside and gains[i] else None
        if r["contribution"] is not None:
            terms.append(r["contribution"])
    top = ideal if k is None else ideal[:k]
    ideal_terms = [g * disc(i) for i, (_, g) in enumerate(top, 1)]
    dcg, idcg = math.fsum(terms), math.fsum(ideal_terms)
    last = max((r["rank"] for r in rows if r["contribution"] is not None), default=0)
    extent, rest = (k, f"below the cutoff k = {k}") if k is not None else (last, "no gain")
    gain = m.option("gain", "linear")
    gain_text = {"linear": "the label", "exp": "2^label - 1"}.get(gain) or (
        "the map " + ", ".join(f"{lvl}={g:g}" for lvl, g in gain) + " (other labels: themselves)")
    dtext = "1 / log2(rank + 1)" if m.option("discount", "log2") == "log2" else \
        "1 for ranks below 2, else 1 / log2(rank)"
    steps = [
        f"gain = {gain_text}; discount = {dtext}",
        f"DCG = {_eq(terms, dcg)}",
        "ideal ranking (labels): " + (_list(lvl for lvl, _ in top) if top else "none")
        + (f" (the top {k})" if k is not None else ""),
        f"IDCG = {_eq(ideal_terms, idcg)}",
        f"{dcg:.4f} / {idcg:.4f} = {_fmt(dcg / idcg)}" if idcg > 0 else "IDCG = 0: the value is 0",
    ]
    return _Terms(["gain", "discount", "contribution"],
                  "nDCG = DCG / IDCG, DCG = sum of gain * discount over the ranks", steps,
                  extent=extent, rest=rest,
                  ideal={"labels": [lvl for lvl, _ in top], "gains": [g for _, g in top],
                         "dcg": idcg})


def _t_ndcg_running(q: QueryData, m: Measure, env: Env, rows: List[Row]) -> _Terms:
    # ndcg_rel and Rndcg: DCG and IDCG accumulated rank by rank, and their
    # ratio at each rank (the points those measures average).
    gains, pairs = _gains(q, m, rows)
    ideal = [g for _, g in pairs]
    dcg = idcg = 0.0
    for i, r in enumerate(rows):
        d = math.log2(i + 2)
        r["gain"] = gains[i]
        if gains[i]:
            dcg += gains[i] / d
        if i < len(ideal):
            idcg += ideal[i] / d
        r["dcg"] = dcg
        r["idcg"] = idcg
        r["ratio"] = dcg / idcg if idcg > 0 else None
    if m.family.key == "ndcg_rel":
        points = [r["ratio"] for r in rows if r["gain"] > 0]
        missing = len(ideal) - len(points)
        formula = ("ndcg_rel = mean over the relevant documents of DCG/IDCG at their rank "
                   "(unretrieved ones: at the end of the ranking)")
        end_idcg = idcg
        for i in range(len(rows), len(ideal)):  # the ideal goes on past the ranking
            end_idcg += ideal[i] / math.log2(i + 2)
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
    else:
        formula = ("Rndcg = mean of DCG/IDCG at the ranks where the ideal gain changes level, "
                   "and at the end of the ranking")
        steps = [f"ideal gains: {_list(ideal)}",
                 "DCG/IDCG is read where the ideal gain steps down (see the idcg column)"]
    return _Terms(["gain", "dcg", "idcg", "ratio"], formula, steps,
                  ideal={"labels": [lvl for lvl, _ in pairs], "gains": list(ideal),
                         "dcg": math.fsum(g / math.log2(i + 2) for i, g in enumerate(ideal))})


def _t_g(q: QueryData, m: Measure, env: Env, rows: List[Row]) -> _Terms:
    gains, pairs = _gains(q, m, rows)
    ideal = [g for _, g in pairs]
    gained = cost = 0.0
    terms = []
    for i, r in enumerate(rows):
        g = gains[i]
        gained += g
        ig = ideal[i] if i < len(ideal) else 0.0
        cost += ig if ig >= 1.0 else 1.0
        r["gain"] = g
        r["cost"] = cost
        r["gained"] = gained
        r["contribution"] = g / math.log2(2 + cost - gained) if g else None
        if g:
            terms.append(r["contribution"])
    total_ideal = math.fsum(ideal)
    total = math.fsum(terms)
    return _Terms(["gain", "cost", "gained", "contribution"],
                  "G = (1 / total ideal gain) * sum of gain / log2(2 + cost - gained)", [
                      f"sum = {_eq(terms, total)}",
                      f"total ideal gain = {_fmt(total_ideal)}",
                      f"{total:.4f} / {total_ideal:.4f} = {_fmt(total / total_ideal)}"
                      if total_ideal > 0 else "no ideal gain: 0",
                  ], ideal={"labels": [lvl for lvl, _ in pairs], "gains": list(ideal),
                            "dcg": None})


def _t_err(q: QueryData, m: Measure, env: Env, rows: List[Row]) -> _Terms:
    k = _k(m)
    max_label = m.option("max_label")
    if max_label is None:
        max_label = env.max_label
    reach = 1.0
    terms = []
    for r, x in zip(rows, q.labels):
        inside = k is None or r["rank"] <= k
        g = x if x is not None and x > 0 else 0
        stop = (2.0 ** (g - max_label) - 2.0 ** -max_label) if g and max_label > 0 else 0.0
        r["stop"] = stop if inside else None
        r["reach"] = reach if inside else None
        r["contribution"] = reach * stop / r["rank"] if inside and stop else None
        if r["contribution"] is not None:
            terms.append(r["contribution"])
        if inside:
            reach *= 1.0 - stop
    total = math.fsum(terms)
    return _Terms(["stop", "reach", "contribution"],
                  "ERR = sum of P(reach rank) * R_rank / rank, R = (2^label - 1) / 2^max_label",
                  [f"max_label = {max_label}", f"ERR = {_eq(terms, total)}"],
                  extent=k, rest=f"below the cutoff k = {k}")


def _t_rbp(q: QueryData, m: Measure, env: Env, rows: List[Row]) -> _Terms:
    rel, ranks = _relevance(q, m, env, rows)
    k = _k(m)
    p = float(m.option("p", 0.8))
    terms = []
    w = 1.0
    for r in rows:
        inside = k is None or r["rank"] <= k
        r["weight"] = w if inside else None
        r["contribution"] = w if inside and r["relevant"] else None
        if r["contribution"] is not None:
            terms.append(w)
        w *= p
    total = math.fsum(terms)
    extent, rest = _after(ranks, k)
    return _Terms(["relevant", "weight", "contribution"],
                  f"RBP = (1 - p) * sum of p^(rank - 1) over the relevant ranks, p = {p:g}", [
                      f"sum = {_eq(terms, total)}",
                      f"(1 - {p:g}) * {total:.4f} = {_fmt((1.0 - p) * total)}",
                  ], extent=extent, rest=rest)


def _t_judged(q: QueryData, m: Measure, env: Env, rows: List[Row]) -> _Terms:
    k = _k(m)
    top = rows if k is None else rows[:k]
    for r in rows:
        r["judged"] = r["label"] is not None and r["label"] >= 0
    judged = sum(1 for r in top if r["judged"])
    return _Terms(["judged"], "Judged@k = (judged documents in the top k) / min(k, ranked)", [
        f"{judged} / {len(top)} = {_fmt(judged / len(top))}" if top else "nothing ranked: 0",
    ], extent=k, rest=f"below the cutoff k = {k}")


def _t_plain(q: QueryData, m: Measure, env: Env, rows: List[Row]) -> _Terms:
    # A family without terms of its own: the ranking and labels it reads.
    return _Terms([], m.family.summary,
                  ["(no per-rank terms for this measure: the rows show the labels it reads)"])


def _list(items: Any) -> str:
    return ", ".join(_fmt(x) for x in items)


#: The terms of each family, keyed like :data:`irmetrics.measures.FAMILIES`
#: (text lines, ``runid`` and ``relstring``, have no value to explain; a
#: family missing here is shown with its rows and labels, without terms).
_TERMS: Dict[str, TermFunction] = {
    "num_q": _t_counts, "num_ret": _t_counts, "num_rel": _t_counts, "num_rel_ret": _t_counts,
    "num_nonrel_judged_ret": _t_counts,
    "map": _t_ap, "gm_map": _t_ap, "map_cut": _t_ap,
    "Rprec": _t_rprec, "Rprec_mult": _t_rprec_mult,
    "bpref": _t_bpref, "gm_bpref": _t_bpref,
    "recip_rank": _t_rr, "RR_cut": _t_rr,
    "iprec_at_recall": _t_iprec, "11pt_avg": _t_11pt,
    "P": _t_p, "recall": _t_recall, "relative_P": _t_relative_p, "success": _t_success,
    "infAP": _t_infap, "utility": _t_set,
    "set_P": _t_set, "set_relative_P": _t_set, "set_recall": _t_set, "set_map": _t_set,
    "set_F": _t_set,
    "binG": _t_bin_g, "G": _t_g,
    "ndcg": _t_ndcg, "ndcg_cut": _t_ndcg, "ndcg_rel": _t_ndcg_running,
    "Rndcg": _t_ndcg_running,
    "ERR": _t_err, "RBP": _t_rbp, "Judged": _t_judged,
}


# === explain() ===============================================================


def explain(
    qrels: Any,
    run: Any,
    query: str,
    measure: str,
    *,
    relevance_level: int = 1,
    complete: bool = False,
    depth: Optional[int] = None,
    judged_only: bool = False,
    scores: str = "float64",
) -> Explanation:
    """Explain the value of *measure* for one *query*: the ranking and the arithmetic.

    *qrels*, *run* and the keyword options are those of
    :func:`~irmetrics.evaluate`; *measure* is one name in trec_eval's or
    ir_measures' spelling (``map``, ``AP``, ``ndcg_cut_10``, ``nDCG@10``,
    ``P(rel=2)@5``).  ``explain(...).value`` equals
    ``evaluate(...).per_query[query][measure]`` with the same options.

    An unknown measure raises :class:`~irmetrics.errors.UnknownMeasureError`
    (with suggestions); a query that is not evaluated (in neither input, not
    judged, or not in the run without ``complete=True``) raises
    :class:`~irmetrics.errors.InvalidArgumentError` naming it.

    >>> e = explain({"q": {"a": 2, "b": 1}}, {"q": {"a": 1.0, "b": 2.0}}, "q", "nDCG")
    >>> [(r["rank"], r["doc"], r["gain"]) for r in e.rows]
    [(1, 'b', 1.0), (2, 'a', 2.0)]
    >>> e.ideal["labels"], round(e.value, 4)   # (1 + 2/log2(3)) / (2 + 1/log2(3))
    ([2, 1], 0.8597)
    """
    m = _measure(qrels, query, measure)
    options = check_options(relevance_level=relevance_level, complete=complete, depth=depth,
                            judged_only=judged_only, scores=scores)
    table, qrels_duplicates = open_qrels(qrels)
    # The run is scored by evaluate()'s own scorer, on this query only; its
    # hook keeps the query's documents as scored and their data.
    kept: List[Tuple[Sequence[Any], Sequence[float], QueryData]] = []
    scorer = _Scorer(table, [m], options, queries={query},
                     on_query=lambda qid, docids, scores, data: kept.append((docids, scores, data)))
    source = open_run(run, keep_duplicates=True)
    scorer.consume(source)
    in_run = bool(kept) or query in scorer.seen
    _check_query(table, query, in_run, complete)
    for error in qrels_duplicates:
        if error.qid == query:
            raise error
    if not in_run:
        scorer.add(query, [])  # as evaluate(complete=True) scores it
    docids, run_scores, data = kept[-1]
    value = scorer.values[query][0]  # evaluate()'s value for the query
    env = Env(options.relevance_level, scorer.max_label, scorer.run_name)
    judgments: Mapping[Any, int] = table[query]
    if source.encoded:
        judgments = {d.encode("utf-8"): v for d, v in judgments.items()}
    rows = _rows(docids, run_scores, judgments, data, options, source.encoded)
    terms = _TERMS.get(m.family.key, _t_plain)(data, m, env, rows)
    return Explanation(query, measure.strip(), m.name, value, rows, terms, _options_text(options))


def _measure(qrels: Any, query: Any, measure: Any) -> Measure:
    """The measure named *measure*, checked; a query and measure that seem
    swapped are said so."""
    if not isinstance(measure, str):
        raise InvalidArgumentError(
            f"'measure' must be one measure name (str) (got {type(measure).__name__})")
    try:
        m = parse_measure(measure)
    except UnknownMeasureError as exc:
        # the command line's order (-m MEASURE ... QUERY) is not this one's
        signs = []
        if _is_query(qrels, measure):
            signs.append(f"{quoted(measure)} is a query id of the qrels")
        if _is_measure(query):
            signs.append(f"{quoted(query)} is a measure name")
        if signs:
            raise InvalidArgumentError(f"{exc}; {' and '.join(signs)}: {_SWAPPED}") from None
        raise
    if m.family.text:
        raise InvalidArgumentError(
            f"measure {quoted(measure)} is a text line of trec_eval's report, not a number; "
            "the command line prints it")
    if not isinstance(query, str):
        raise InvalidArgumentError(f"'query' must be a query id (str) (got {quoted(query)})")
    return m


def _check_query(qrels: Qrels, query: str, in_run: bool, complete: bool) -> None:
    """That evaluate() gives *query* a value: judged, and in the run or *complete*."""
    # a query that is not in the run but is a measure name: swapped arguments?
    swapped = (f"; {quoted(query)} is a measure name: {_SWAPPED}"
               if not in_run and _is_measure(query) else "")
    if query not in qrels:
        if in_run:
            raise InvalidArgumentError(
                f"query {quoted(query)} has no judgments in the qrels: evaluate() skips it")
        raise InvalidArgumentError(
            f"unknown query {quoted(query)}: in neither the run nor the qrels{swapped}")
    if not in_run and not complete:
        raise InvalidArgumentError(
            f"query {quoted(query)} is not in the run: evaluate() leaves it out "
            f"(complete=True scores it as an empty ranking){swapped}")


def _options_text(options: Options) -> str:
    """The options that differ from the defaults, as the title shows them."""
    shown = []
    if options.relevance_level != 1:
        shown.append(f"relevance_level={options.relevance_level}")
    if options.depth is not None:
        shown.append(f"depth={options.depth}")
    if options.judged_only:
        shown.append("judged_only")
    if options.float32:
        shown.append("float32 scores")
    return f" ({', '.join(shown)})" if shown else ""


_SWAPPED = ("the query and the measure seem swapped (explain(qrels, run, query, measure); "
            "on the command line: irmetrics explain -m MEASURE QRELS RUN QUERY)")


def _is_measure(text: Any) -> bool:
    """Whether *text* is a measure name."""
    if not isinstance(text, str):
        return False
    try:
        parse_measure(text)
    except IrmetricsError:
        return False
    return True


def _is_query(qrels: Any, text: str) -> bool:
    """Whether *text* is a query id of *qrels* (False when they cannot be read)."""
    try:
        return text in open_qrels(qrels)[0]
    except (IrmetricsError, OSError):
        return False


def _rows(docids: Sequence[Any], scores: Sequence[float], judgments: Mapping[Any, int],
          data: QueryData, options: Options, encoded: bool) -> List[Row]:
    """The ranking as the measure sees it, one dict per document."""
    order = sorted(range(len(docids)), key=lambda i: (scores[i], docids[i]), reverse=True)
    judged_only = options.judged_only
    if options.depth is not None:
        order = order[:options.depth]
    ranked = []
    for i in order:
        label = judgments.get(docids[i])
        if label is not None and label < 0:
            label = -1
        if judged_only and (label is None or label < 0):
            continue
        ranked.append((docids[i], scores[i], label))
    if [x for _, _, x in ranked] != list(data.labels):  # pragma: no cover - a bug if so
        raise RuntimeError("explain(): the ranking disagrees with the evaluation's labels")
    rows: List[Row] = []
    block = 0
    for n, (doc, score, label) in enumerate(ranked):
        tied = (n > 0 and ranked[n - 1][1] == score) or (n + 1 < len(ranked)
                                                        and ranked[n + 1][1] == score)
        if tied and not (n > 0 and ranked[n - 1][1] == score):
            block += 1
        rows.append({
            "rank": n + 1,
            "doc": doc.decode("utf-8", "replace") if encoded else doc,
            "score": score,
            "label": label,
            "tie": block if tied else None,
        })
    return rows
