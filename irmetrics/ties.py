"""Tie-aware evaluation: the value of a measure over the orderings of tied scores.

trec_eval ranks documents by score and breaks ties by document id
(descending), so renaming a document can change a score.  Here a query's
ranking is a sequence of *blocks* of equal scores, and each block may be
ordered in any way.  Four modes:

``"trec_eval"``
    trec_eval's own order (ties by document id descending): today's value.
``"expected"``
    the exact mean over every ordering of every block, in closed form
    (McSherry and Najork, "Computing Information Retrieval Performance
    Measures Efficiently in the Presence of Tied Scores", ECIR 2008): no
    sampling, no enumeration.
``"best"`` / ``"worst"``
    the exact maximum / minimum over those orderings, by building the
    ordering that attains it and scoring it with the measure's one formula.

A block is ``(start, size, labels)``: its first 0-based position, how many
documents it holds, and the labels of its judged documents (``-1`` for
pooled-but-unjudged ones); the rest of the block is unjudged.  Blocks
without a judged document do not matter and are never listed, so a long,
mostly unjudged ranking costs as much as its judged documents.

Closed forms for ``"expected"`` (a block at *s* of *m* documents, *r* of
them relevant, *B* relevant documents in the blocks above it, *K* the
cutoff, never beyond the *n* documents ranked; each position of a block
holds a relevant document with probability r/m):

* relevant in the top K: ``E[rel@K] = sum over blocks of r * c / m``, where
  ``c = min(m, max(0, K - s))`` positions of the block are in the top K.
  Then ``P@k = E[rel@K] / k``, ``recall@k = E[rel@K] / R``,
  ``Rprec = E[rel@min(R, n)] / R``, ``num_rel_ret = E[rel@n]`` and
  ``set_F = (1 + x) E[rel@n] / (x R + n)``, x trec_eval's weight (F is linear in the number of
  relevant retrieved, so its mean is F of the mean).
* ``success@k = 1 - prod over blocks of C(m - r, c) / C(m, c)`` (the chance
  that no relevant document is among the block's first c positions).
* ``RR`` (and ``RR@k``): in the first block holding a relevant document,
  the first one is at offset o with probability
  ``prod_{j<o} (m - j - r) / (m - j) * r / (m - o)``;
  ``E[RR] = sum over o < c of that / (s + o + 1)``.
* ``AP`` and ``AP@k``: ``sum over positions i < K of P(rel at i) *
  E[rel in ranks <= i | rel at i] / (i + 1)``, divided by R, where for
  offset o in the block ``P(rel at i) = r / m`` and the conditional count is
  ``B + 1 + o (r - 1) / (m - 1)``.
* ``nDCG`` and ``nDCG@k``: DCG is linear in the gains, so every position
  of a block gets the block's mean gain (whatever the discount of each
  position, a callable one too); the ideal DCG does not depend on the order.
  So do trec_eval 10.0's ``dcg`` and ``rbp`` (weights ``p**i``), ``RBP``,
  and the EU of the static C/W/L models without costs (fixed weights W_i).
* ``unj@k`` and ``rbp_resid``: each position of a block is unjudged with
  probability u/m (u its unjudged and pooled-unjudged documents; a position
  outside every block is unjudged); ``rbp_resid`` adds ``p**n`` times the
  chance that some document is unjudged (success's form, the unjudged
  documents as the relevant ones), as trec_eval gives 0 when none is.

Orderings for ``"best"`` and ``"worst"`` (within each block; the blocks stay
in place).  "Relevant" is ``label >= rel``; judged non-relevant documents
(``0 <= label < rel``), pooled-unjudged (``-1``) and unjudged ones are told
apart only where the measure does:

* P, recall, AP, RR, success, Rprec, num_rel_ret, set_F, iprec_at_recall,
  Rprec_mult and bpref: best puts the relevant documents first, then the
  unjudged and pooled-unjudged, then the judged non-relevant; worst puts the
  judged non-relevant first, then the unjudged, then the relevant (bpref
  counts judged non-relevant documents above each relevant one; the others
  see only relevant or not).
* nDCG, dcg, rbp, RBP, the static C/W/L models' EU: best sorts the block by
  gain, decreasing; worst, increasing.
* unj, rbp_resid: best puts the unjudged documents first; worst, last.
* yaap: as AP (it rises with AP's sum); its mean has no closed form.
* infAP: a relevant document's term falls as unjudged documents (outside
  the pool) are placed above it, but rises or falls with the judged
  non-relevant and pooled-unjudged ones above it depending on the counts.
  So best puts the unjudged last, worst puts them first, and the order of
  the relevant, non-relevant and pooled-unjudged documents is chosen by
  dynamic programming over how many of each have been placed
  (``O(r * n * p)`` per block).

This module is the arithmetic of blocks alone: it knows no measure by name.
Each list function of :mod:`irmetrics.metrics` declares, next to its formula,
which closed form and which ordering its ``scores=``/``ties=`` take, and each
family of the registry (:mod:`irmetrics.measures`) declares the same for
:func:`~irmetrics.evaluate`'s ``ties=``.

The tests check every closed form and ordering against the mean, maximum
and minimum over every ordering, scored by pytrec_eval.

>>> from irmetrics import evaluate
>>> run = {"q": {"a": 1.0, "b": 1.0}}          # a relevant, b not: tied
>>> evaluate({"q": {"a": 1}}, run, "recip_rank", ties="expected")["recip_rank"]  # (1 + 1/2) / 2
0.75
>>> evaluate({"q": {"a": 1}}, run, "recip_rank", ties="worst")["recip_rank"]
0.5
"""

from ._tie_blocks import MODES, TIES_KEY, TieInfo, check_ties
from .measures import check_measure, supports, tie_value

__all__ = ["MODES", "check_ties", "check_measure", "supports", "tie_value", "TIES_KEY",
           "TieInfo"]
