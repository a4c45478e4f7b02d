"""The ir_measures provider ``irmetrics``: ``import irmetrics.ir_measures`` registers it.

ir_measures (and PyTerrier through it) computes each measure with a
*provider*; this module adds one named ``irmetrics``, which computes the
measures of ir_measures' ``pytrec_eval`` provider with
:mod:`irmetrics.compat.pytrec_eval` in place of pytrec_eval: the same
translation of measures into trec_eval's names, the same invocations (one
per relevance level, judged-only setting and gain map), and so the same
values, scores read in single precision, as that provider gives.  The
measures beyond those that irmetrics' registry computes (``RR@k``,
``NumRel(rel=2)``, ``Judged``, ``RBP(rel=1)``, the C/W/L measures ``INST``,
``INSQ``, ``BPM``, ``NERR8`` to ``NERR11`` and ``SDCG``, ``Compat``,
``Accuracy``, and ndeval's diversity measures, which read the qrels'
``iteration`` field as the subtopic, as ir_measures' pyndeval provider does)
it computes by name, the measure's ``str()`` read by irmetrics' parser,
through :func:`irmetrics.evaluate`, scores read in single precision too.

ir_measures' module-level functions (``ir_measures.calc_aggregate``, ...)
use its ``DefaultPipeline``, a list of providers fixed when ir_measures is
imported, which never includes a provider registered later: call this one
by name (docs/from-pytrec-eval.md shows how).  Importing this module imports
ir_measures (``pip install 'irmetrics-eval[ir_measures]'``).

>>> import ir_measures
>>> from irmetrics.ir_measures import provider
>>> provider.calc_aggregate([ir_measures.AP], {"q1": {"d1": 1}}, {"q1": {"d1": 0.5, "d2": 0.9}})
{AP: 0.5}
"""

from __future__ import annotations

from typing import Any, Dict, Iterable, Iterator, List, Tuple

from .compat import pytrec_eval as _drop_in
from .data import Qrels
from .errors import _optional_import
from .evaluate import evaluate

__all__ = ["provider", "register"]


#: ir_measures' providers whose measures irmetrics' registry computes too.
_PROVIDERS = ("msmarco", "cwl_eval", "compat", "accuracy", "judged", "pyndeval")


def _beyond(ir: Any) -> List[Any]:
    """The measures irmetrics' registry computes beyond the pytrec_eval
    provider's, as ir_measures' own providers declare them (msmarco's RR@k,
    cwl_eval's, compat's, accuracy's, judged's, pyndeval's), and NumRel at
    any level."""
    declared = [m for name in _PROVIDERS for m in ir.providers.registry[name].SUPPORTED_MEASURES]
    return [*declared, ir.measures._NumRel(rel=ir.providers.base.Any())]


def _evaluators(ir: Any) -> Tuple[Any, Any]:
    """The evaluator of the measures beyond pytrec_eval's, and the one of both kinds."""

    class Native(ir.providers.Evaluator):  # type: ignore[misc]
        """The measures beyond pytrec_eval's, by name through :func:`irmetrics.evaluate`."""

        def __init__(self, asked: List[Any], qrels: Any, qids: Iterable[str]) -> None:
            super().__init__(asked, qids)
            records = ir.util.QrelsConverter(qrels).as_namedtuple_iter()  # iteration: subtopic
            self.qrels = Qrels.from_subtopic_records(
                (r.query_id, r.iteration, r.doc_id, r.relevance) for r in records)
            self.groups: Dict[bool, Dict[str, Any]] = {}
            for m in asked:  # judged_only is an option of an evaluation in irmetrics
                kept = {k: v for k, v in m.params.items() if k != "judged_only"}
                group = self.groups.setdefault(m.params.get("judged_only") is True, {})
                group[str(type(m)(**kept))] = m

        def _iter_calc(self, run: Any) -> Iterator[Any]:
            run = ir.util.RunConverter(run).as_dict_of_dict()
            judged = {q: docs for q, docs in run.items() if self.qrels.get(q)}
            for judged_only, named in self.groups.items() if judged else ():
                found = evaluate(self.qrels, judged, list(named), judged_only=judged_only,
                                 scores="float32")
                for qid, values in found.per_query.items():
                    for name, m in named.items():
                        yield ir.Metric(query_id=qid, measure=m, value=values[name])

    class Both(ir.providers.Evaluator):  # type: ignore[misc]
        """pytrec_eval's measures and the others, each kind by its evaluator."""

        def __init__(self, asked: List[Any], parts: List[Any], qids: Iterable[str]) -> None:
            super().__init__(asked, qids)
            self.parts = parts

        def _iter_calc(self, run: Any) -> Iterator[Any]:
            for part in self.parts:
                yield from part.iter_calc(run)

    return Native, Both


def register() -> Any:
    """Register a new ``irmetrics`` provider with ir_measures
    (``ir_measures.providers.registry["irmetrics"]``) and return it."""
    # ir_measures (which imports its providers)
    ir = _optional_import("ir_measures", "irmetrics.ir_measures", "ir_measures")
    trec_provider = ir.providers.pytrec_eval_provider.PytrecEvalProvider
    trec, (Native, Both) = trec_provider(), _evaluators(ir)

    class IrmetricsProvider(trec_provider):  # type: ignore[misc, valid-type]
        """ir_measures' pytrec_eval provider, computing with irmetrics, and
        the measures beyond it that irmetrics' registry computes."""

        NAME = "irmetrics"
        SUPPORTED_MEASURES = [*trec_provider.SUPPORTED_MEASURES, *_beyond(ir)]

        def initialize(self) -> None:
            self.pytrec_eval = _drop_in

        def install_instructions(self) -> str:
            return "pip install irmetrics-eval"

        def _evaluator(self, asked: Iterable[Any], qrels: Any) -> Any:
            asked = list(asked)
            by_trec = [m for m in asked if trec.supports(m)]
            if len(by_trec) == len(asked):  # the pytrec_eval provider's road alone
                return super()._evaluator(asked, qrels)
            qids = set(ir.util.QrelsConverter(qrels).as_dict_of_dict())
            native = Native([m for m in asked if m not in by_trec], qrels, qids)
            if not by_trec:
                return native
            return Both(asked, [super()._evaluator(by_trec, qrels), native], qids)

    found = IrmetricsProvider()
    ir.providers.register(found)
    return found


#: The provider, registered when this module is imported (as ir_measures'
#: own providers are when it imports them).
provider = register()
