"""The ir_measures provider ``irmetrics``: ``import irmetrics.ir_measures`` registers it.

ir_measures (and PyTerrier through it) computes each measure with a
*provider*; this module adds one named ``irmetrics``, which computes the
measures of ir_measures' ``pytrec_eval`` provider with
:mod:`irmetrics.compat.pytrec_eval` in place of pytrec_eval: the same
translation of measures into trec_eval's names, the same invocations (one
per relevance level, judged-only setting and gain map), and so the same
values, scores read in single precision, as that provider gives.

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

from typing import Any, Dict, Iterable, Iterator, List

from .compat import pytrec_eval as _drop_in
from .data import Qrels
from .evaluate import evaluate

__all__ = ["provider", "register"]


def register() -> Any:
    """Register a new ``irmetrics`` provider with ir_measures
    (``ir_measures.providers.registry["irmetrics"]``) and return it."""
    try:
        from ir_measures import providers  # type: ignore[import-not-found, unused-ignore]
        from ir_measures.providers.pytrec_eval_provider import (  # type: ignore[import-not-found, unused-ignore]
            PytrecEvalProvider,
        )
    except ImportError:
        raise ImportError(
            "irmetrics.ir_measures needs ir_measures, which is not installed: "
            "pip install 'irmetrics-eval[ir_measures]'",
            name="ir_measures",
        ) from None

    from ir_measures import Metric, measures, util  # type: ignore[import-not-found, unused-ignore]
    from ir_measures.providers.base import (  # type: ignore[import-not-found, unused-ignore]
        NOT_PROVIDED,
        Any as Anything,
        Choices,
    )

    # The measures irmetrics' registry computes beyond the pytrec_eval
    # provider's, as ir_measures' own providers declare them (msmarco's RR@k,
    # cwl_eval's, compat's, accuracy's, judged's, pyndeval's)
    cwl = {"min_rel": Anything(), "max_rel": Anything(required=True)}
    ia = {"rel": Anything(), "judged_only": Anything()}
    beyond = [
        measures._RR(cutoff=Anything(required=True), **ia),
        measures._NumRel(rel=Anything()),
        measures._Judged(cutoff=Anything()),
        measures._RBP(cutoff=Choices(NOT_PROVIDED), p=Anything(), rel=Anything(required=True)),
        measures._INST(T=Anything(), **cwl), measures._INSQ(T=Anything(), **cwl),
        measures._BPM(cutoff=Anything(), T=Anything(), **cwl),
        measures._SDCG(cutoff=Anything(), dcg=Choices("log2"), **cwl),
        measures._NERR8(cutoff=Anything(), **cwl), measures._NERR9(cutoff=Anything(), **cwl),
        measures._NERR10(p=Anything(), **cwl), measures._NERR11(T=Anything(), **cwl),
        measures._Compat(p=Anything(), normalize=Anything()),
        measures._Accuracy(cutoff=Anything(), rel=Anything()),
        measures._alpha_DCG(cutoff=Anything(), alpha=Anything(), **ia),
        measures._alpha_nDCG(cutoff=Anything(), alpha=Anything(), **ia),
        measures._ERR_IA(cutoff=Anything(), **ia), measures._nERR_IA(cutoff=Anything(), **ia),
        measures._NRBP(alpha=Anything(), beta=Anything(), rel=Anything()),
        measures._nNRBP(alpha=Anything(), beta=Anything(), rel=Anything()),
        measures._AP_IA(**ia), measures._P_IA(cutoff=Anything(), **ia),
        measures._StRecall(cutoff=Anything(), rel=Anything()),
    ]
    trec = PytrecEvalProvider()  # type: ignore[no-untyped-call, unused-ignore]

    class Native(providers.Evaluator):  # type: ignore[misc, unused-ignore]
        """The measures beyond pytrec_eval's, by name through :func:`irmetrics.evaluate`."""

        def __init__(self, asked: List[Any], qrels: Any, qids: Iterable[str]) -> None:
            super().__init__(asked, qids)
            records = util.QrelsConverter(qrels).as_namedtuple_iter()  # iteration: subtopic
            self.qrels = Qrels.from_subtopic_records(
                (r.query_id, r.iteration, r.doc_id, r.relevance) for r in records)
            self.groups: Dict[bool, Dict[str, Any]] = {}
            for m in asked:  # judged_only is an evaluation's option in irmetrics
                kept = {k: v for k, v in m.params.items() if k != "judged_only"}
                self.groups.setdefault(m.params.get("judged_only") is True, {})[str(type(m)(**kept))] = m

        def _iter_calc(self, run: Any) -> Iterator[Any]:
            run = util.RunConverter(run).as_dict_of_dict()
            judged = {q: docs for q, docs in run.items() if self.qrels.get(q)}
            for judged_only, named in self.groups.items() if judged else ():
                found = evaluate(self.qrels, judged, list(named), judged_only=judged_only,
                                 scores="float32")
                for qid, values in found.per_query.items():
                    for name, m in named.items():
                        yield Metric(query_id=qid, measure=m, value=values[name])

    class Both(providers.Evaluator):  # type: ignore[misc, unused-ignore]
        """pytrec_eval's measures and the others, each by its evaluator."""

        def __init__(self, asked: List[Any], parts: List[Any], qids: Iterable[str]) -> None:
            super().__init__(asked, qids)
            self.parts = parts

        def _iter_calc(self, run: Any) -> Iterator[Any]:
            for part in self.parts:
                yield from part.iter_calc(run)

    class IrmetricsProvider(PytrecEvalProvider):  # type: ignore[misc, unused-ignore]
        """ir_measures' pytrec_eval provider, computing with irmetrics, and
        the measures beyond it that irmetrics' registry computes."""

        NAME = "irmetrics"
        SUPPORTED_MEASURES = [*PytrecEvalProvider.SUPPORTED_MEASURES, *beyond]

        def initialize(self) -> None:
            self.pytrec_eval = _drop_in

        def install_instructions(self) -> str:
            return "pip install irmetrics-eval"

        def _evaluator(self, asked: Iterable[Any], qrels: Any) -> Any:
            asked = list(asked)
            by_trec = [m for m in asked if trec.supports(m)]
            if len(by_trec) == len(asked):
                return super()._evaluator(asked, qrels)
            qids = set(util.QrelsConverter(qrels).as_dict_of_dict())
            native = Native([m for m in asked if m not in by_trec], qrels, qids)
            if not by_trec:
                return native
            return Both(asked, [super()._evaluator(by_trec, qrels), native], qids)

    found = IrmetricsProvider()  # type: ignore[no-untyped-call, unused-ignore]
    providers.register(found)  # type: ignore[no-untyped-call, unused-ignore]
    return found


#: The provider, registered when this module is imported (as ir_measures'
#: own providers are when it imports them).
provider = register()
