"""irmetrics: information-retrieval evaluation in pure Python.

trec_eval's numbers, from the standard library alone.

Metrics over relevance labels in rank order (rank 1 first):

==========================  =================================================
:func:`precision_at_k`      relevant in the top k, divided by k
:func:`recall_at_k`         relevant in the top k, divided by R
:func:`average_precision`   mean precision at the relevant ranks (over R)
:func:`reciprocal_rank`     1 / rank of the first relevant label
:func:`r_precision`         precision at rank R
:func:`success_at_k`        1 if a relevant label is in the top k
:func:`judged_at_k`         fraction of the top k that is judged
:func:`dcg`, :func:`ndcg`   (normalised) discounted cumulative gain
:func:`err`                 expected reciprocal rank
:func:`rbp`                 rank-biased precision
:func:`bpref`               binary preference
:func:`inferred_ap`         inferred average precision
:func:`interpolated_precision`, :func:`eleven_point_average`,
:func:`r_precision_multiple`, :func:`f_measure`   trec_eval's others
==========================  =================================================

Diversity over subtopics, identical to ndeval: :func:`alpha_dcg`,
:func:`alpha_ndcg`, :func:`err_ia`, :func:`nerr_ia`, :func:`nrbp`,
:func:`nnrbp`, :func:`precision_ia`, :func:`subtopic_recall`, :func:`ap_ia`.

Rank correlation: :func:`kendall_tau_weighted` (Liu's RC) and
:func:`weighted_tau` (Vigna's weighted tau).

Whole runs: :class:`Qrels`, :class:`Run` and :func:`evaluate`, with
trec_eval's semantics; the command line ``irmetrics QRELS RUN``.
Tied scores: ``evaluate(..., ties="expected")`` (or ``"best"``, ``"worst"``)
and :func:`tie_report` (see :mod:`irmetrics.ties`).
:func:`explain` shows how one query's value is derived, rank by rank
(``irmetrics explain``).

Comparing systems: :func:`compare` (runs against a baseline: means,
differences, confidence intervals, corrected p-values; ``irmetrics compare``)
and the tests behind it, equal to scipy's: :func:`paired_t_test`,
:func:`wilcoxon_test`, :func:`permutation_test`, :func:`bootstrap_test`,
:func:`bootstrap_ci`, :func:`t_ci`, :func:`adjust_p_values`, and the Student t
distribution (:func:`t_sf`, :func:`t_quantile`); see :mod:`irmetrics.stats`.
Many systems and planning: :func:`tukey_hsd` (with :func:`letter_groups`),
:func:`two_way_anova`, :func:`paired_cohens_d`,
:func:`standardized_mean_differences`, :func:`paired_t_power`,
:func:`paired_t_topics`, :func:`topic_set_size`.

>>> from irmetrics import ndcg
>>> ndcg([3, 2, 3, 0, 1, 2], 6) < 1.0
True
"""

from __future__ import annotations

# The modules whose every public name is public here too (stats' but its
# CORRECTIONS): their own __all__ is the one list (a new list function goes in
# its module's __all__ only).
from . import correlation, diversity, errors, metrics, stats
from .compare import Comparison, compare
from .correlation import *  # noqa: F403
from .data import Qrels, Run
from .diversity import *  # noqa: F403
from .errors import *  # noqa: F403
from .evaluate import Evaluation, evaluate
from .explain import Explanation, explain
from .metrics import *  # noqa: F403
from .stats import *  # noqa: F403
from .tie_report import TieReport, tie_report

__version__ = "0.1.0.dev0"

__all__ = ["__version__"]
__all__ += metrics.__all__
__all__ += diversity.__all__
__all__ += correlation.__all__
__all__ += [
    # runs
    "Qrels",
    "Run",
    "evaluate",
    "Evaluation",
    "tie_report",
    "TieReport",
    "explain",
    "Explanation",
    # comparing systems, and the tests behind it (below)
    "compare",
    "Comparison",
]
__all__ += [name for name in stats.__all__ if name != "CORRECTIONS"]
__all__ += errors.__all__
