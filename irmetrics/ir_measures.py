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

from typing import Any

from .compat import pytrec_eval as _drop_in

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

    class IrmetricsProvider(PytrecEvalProvider):  # type: ignore[misc, unused-ignore]
        """ir_measures' pytrec_eval provider, computing with irmetrics."""

        NAME = "irmetrics"

        def initialize(self) -> None:
            self.pytrec_eval = _drop_in

        def install_instructions(self) -> str:
            return "pip install irmetrics-eval"

    found = IrmetricsProvider()  # type: ignore[no-untyped-call, unused-ignore]
    providers.register(found)  # type: ignore[no-untyped-call, unused-ignore]
    return found


#: The provider, registered when this module is imported (as ir_measures'
#: own providers are when it imports them).
provider = register()
