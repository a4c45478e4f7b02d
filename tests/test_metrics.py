"""Tests for irmetrics.metrics.

Four layers: hand-derived reference values (arithmetic in the comments),
contracts every public function meets, bad input, and hypothesis properties
(bounds, metamorphic relations, agreement with the brute-force definitions at
the bottom of this file, written independently of the library).
"""

import inspect
import math
import re
from fractions import Fraction as F

import pytest
import strategies as s
from hypothesis import assume, given
from hypothesis import strategies as st

from irmetrics import cwl, metrics
from irmetrics.errors import InvalidArgumentError, InvalidLabelError, IrmetricsError
from irmetrics.metrics import (
    accuracy,
    average_precision,
    bpref,
    compatibility,
    dcg,
    eleven_point_average,
    err,
    f_measure,
    inferred_ap,
    interpolated_precision,
    judged_at_k,
    ndcg,
    precision_at_k,
    r_precision,
    r_precision_multiple,
    rbp,
    rbp_residual,
    recall_at_k,
    reciprocal_rank,
    success_at_k,
    unjudged_at_k,
)

np = pytest.importorskip("numpy")

log2 = math.log2
TIGHT = dict(rel=1e-12, abs=1e-15)


def close(x):
    """pytest.approx with a tight tolerance (floats from a handful of operations)."""
    return pytest.approx(float(x), **TIGHT)


# === Reference values: the lab notes (seeds) =================================

SEED3_Q1 = [2, 1, 0, 3, 0, 1]
SEED3_Q2 = [3, 0, 1, 2]


def test_seed003_cumulative_gain():
    # CG@6 is DCG with no discount.  q1: 2+1+0+3+0+1 = 7; q2: 3+0+1+2 = 6
    # (the seed agrees: 7 and 6, mean 6.5).
    assert dcg(SEED3_Q1, 6, discount=lambda i: 1.0) == 7.0
    assert dcg(SEED3_Q2, 6, discount=lambda i: 1.0) == 6.0


def test_seed003_dcg():
    # q1: 2/log2(2) + 1/log2(3) + 3/log2(5) + 1/log2(7)
    #   = 2 + 0.63092975 + 1.29202967 + 0.35620719 = 4.27916661  (seed: 4.28, right;
    #   metrics.dcg's docstring says 4.2795, which is wrong in the 4th decimal)
    q1 = dcg(SEED3_Q1, 6)
    assert q1 == close(2 + 1 / log2(3) + 3 / log2(5) + 1 / log2(7))
    assert q1 == pytest.approx(4.2791666, abs=1e-7)
    # q2: 3/log2(2) + 0/log2(3) + 1/log2(4) + 2/log2(5) = 3 + 0.5 + 0.8613531 = 4.3613531.
    # The seed writes the same terms but gets 3.86: its arithmetic is off by 0.5
    # (and so are its mean DCG 4.07, really 4.3202599, and NDCG below).
    q2 = dcg(SEED3_Q2, 6)
    assert q2 == close(3 + 0.5 + 2 / log2(5))
    assert q2 == pytest.approx(4.3613531, abs=5e-8)
    assert (q1 + q2) / 2 == pytest.approx(4.3202599, abs=5e-8)


def test_seed003_ndcg():
    # IDCG@6 q1: ideal [3, 2, 1, 1, 0, 0]: 3 + 2/log2(3) + 1/log2(4) + 1/log2(5)
    #          = 3 + 1.2618595 + 0.5 + 0.4306766 = 5.1925361 (seed 5.19, right)
    # NDCG q1 = 4.2791666 / 5.1925361 = 0.8240995 (seed 0.82, right)
    idcg1 = 3 + 2 / log2(3) + 0.5 + 1 / log2(5)
    dcg1 = 2 + 1 / log2(3) + 3 / log2(5) + 1 / log2(7)
    assert ndcg(SEED3_Q1, 6) == close(dcg1 / idcg1)
    assert ndcg(SEED3_Q1, 6) == pytest.approx(0.8240995, abs=1e-7)
    # IDCG@6 q2: ideal [3, 2, 1, 0]: 3 + 2/log2(3) + 1/log2(4) = 4.7618595 (seed right)
    # NDCG q2 = 4.3613531 / 4.7618595 = 0.9158929; the seed's 0.81 comes from its
    # wrong DCG 3.86.  Mean NDCG = (0.8240995 + 0.9158929) / 2 = 0.8699962, not 0.815.
    idcg2 = 3 + 2 / log2(3) + 0.5
    dcg2 = 3 + 0.5 + 2 / log2(5)
    assert ndcg(SEED3_Q2, 6) == close(dcg2 / idcg2)
    assert ndcg(SEED3_Q2, 6) == pytest.approx(0.9158929, abs=1e-7)
    mean = math.fsum([ndcg(SEED3_Q1, 6), ndcg(SEED3_Q2, 6)]) / 2
    assert mean == pytest.approx(0.8699962, abs=1e-7)


def test_seed003_map():
    # q1 relevant at ranks 1, 2, 4, 6: (1/1 + 2/2 + 3/4 + 4/6) / 4 = (41/12) / 4 = 41/48
    #   = 0.8541667.  The seed writes 0.67 for 4/6 and gets 0.855; exact is 0.8542.
    # q2 relevant at ranks 1, 3, 4: (1/1 + 2/3 + 3/4) / 3 = (29/12) / 3 = 29/36 = 0.8055556
    # MAP = (41/48 + 29/36) / 2 = (123 + 116) / 288 = 239/288 = 0.8298611 (seed: 0.83)
    ap1 = average_precision([1, 1, 0, 1, 0, 1])
    ap2 = average_precision([1, 0, 1, 1])
    assert ap1 == close(F(41, 48))
    assert ap2 == close(F(29, 36))
    assert (ap1 + ap2) / 2 == close(F(239, 288))


SEED4_GRADES = [4.0, 3.0, 2.0, 1.0, 3.0, 1.0, 2.0]


def test_seed004_thresholding():
    # "relevant when the grade is > 2": grades 4,3,2,1,3,1,2 -> 1,1,0,0,1,0,0.
    # With integer-valued grades, "> 2" is ">= 3", i.e. rel=3.
    binary = [1 if g > 2 else 0 for g in SEED4_GRADES]
    assert binary == [1, 1, 0, 0, 1, 0, 0]
    assert precision_at_k(SEED4_GRADES, 7, rel=3) == close(F(3, 7))
    assert precision_at_k(binary, 7) == close(F(3, 7))


def test_seed004_average_precision_with_unretrieved_relevant():
    # m1 = 6 relevant documents, 3 of them ranked (ranks 1, 2, 5):
    # (1/1 + 2/2 + 3/5) / 6 = (13/5) / 6 = 13/30 (the seed's value, right)
    assert average_precision(SEED4_GRADES, n_relevant=6, rel=3) == close(F(13, 30))
    assert average_precision([1, 1, 0, 0, 1, 0, 0], n_relevant=6) == close(F(13, 30))
    # Without n_relevant only the 3 ranked relevant count: (13/5) / 3 = 13/15.
    assert average_precision([1, 1, 0, 0, 1, 0, 0]) == close(F(13, 15))


def test_seed004_reciprocal_rank():
    # First relevant (grade > 2) at rank 1: RR = 1/1.
    assert reciprocal_rank(SEED4_GRADES, rel=3) == 1.0
    assert reciprocal_rank([1, 1, 0, 0, 1, 0, 0]) == 1.0


def test_seed004_web_examples():
    # q1: 4 relevant at ranks 1, 2, 5, 7: (1/1 + 2/2 + 3/5 + 4/7) / 4
    #   = (2 + 21/35 + 20/35) / 4 = (111/35) / 4 = 111/140
    q1 = [1, 1, 0, 0, 1, 0, 1]
    assert average_precision(q1) == close(F(111, 140))
    # q2: 5 relevant at ranks 2, 3, 6, 29, 58:
    # (1/2 + 2/3 + 3/6 + 4/29 + 5/58) / 5 = (5/3 + 13/58) / 5 = (329/174) / 5 = 329/870
    q2 = [0] * 58
    for rank in (2, 3, 6, 29, 58):
        q2[rank - 1] = 1
    assert average_precision(q2) == close(F(329, 870))
    # Cut at 8: ranks 29 and 58 contribute 0 but still count in the 5:
    # (1/2 + 2/3 + 3/6) / 5 = (5/3) / 5 = 1/3
    assert average_precision(q2, 8) == close(F(1, 3))
    assert average_precision(q2[:8], n_relevant=5) == close(F(1, 3))


def _first_relevant_at(rank, length=None):
    """A 0/1 list whose first relevant label is at *rank* (None: no relevant)."""
    if rank is None:
        return [0] * (length or 0)
    return [0] * (rank - 1) + [1] + [0] * ((length or rank) - rank)


def test_seed001_mean_reciprocal_rank():
    # Five queries: first relevant at 4, none, none (nothing retrieved), 5, 10.
    # MRR = (1/4 + 0 + 0 + 1/5 + 1/10) / 5 = 0.55 / 5 = 0.11 = 11/100.
    # (The seed's MRR_eval code appends only for queries with a hit and so would
    # divide by 3, giving 0.1833; the prose value 0.11 is the right one.)
    runs = [
        _first_relevant_at(4, 7),
        _first_relevant_at(None, 6),
        [],
        _first_relevant_at(5),
        _first_relevant_at(10, 12),
    ]
    rrs = [reciprocal_rank(r) for r in runs]
    assert rrs == [0.25, 0.0, 0.0, 0.2, 0.1]
    assert math.fsum(rrs) / len(rrs) == close(F(11, 100))


def test_seed001_map_divides_by_all_relevant():
    # The seed's MAP_eval divides by the relevant documents *retrieved*; AP
    # divides by all relevant.  2 relevant retrieved at ranks 1 and 3 of a query
    # with 4 relevant: (1/1 + 2/3) / 4 = 5/12, not (5/3) / 2 = 5/6.
    assert average_precision([1, 0, 1], n_relevant=4) == close(F(5, 12))
    assert average_precision([1, 0, 1]) == close(F(5, 6))


def test_seed002_dcg_ndcg():
    # Labels 1, 2, 3, 0; the ideal order is 3, 2, 1, 0.
    # DCG  = 1/log2(2) + 2/log2(3) + 3/log2(4) + 0 = 1 + 1.2618595 + 1.5 = 3.7618595
    # IDCG = 3/log2(2) + 2/log2(3) + 1/log2(4) + 0 = 3 + 1.2618595 + 0.5 = 4.7618595
    # NDCG = 3.7618595 / 4.7618595 = 0.7899980
    labels = [1, 2, 3, 0]
    d = 1 + 2 / log2(3) + 1.5
    i = 3 + 2 / log2(3) + 0.5
    assert dcg(labels) == close(d)
    assert dcg([3, 2, 1, 0]) == close(i)
    assert ndcg(labels) == close(d / i)
    assert ndcg(labels) == pytest.approx(0.7899980, abs=1e-7)
    # The seed's "common form" (2**rel - 1) / log2(i + 1):
    # DCG = 1/1 + 3/log2(3) + 7/2 + 0 = 6.3927893; IDCG = 7 + 3/log2(3) + 1/2 = 9.3927893
    # NDCG = 6.3927893 / 9.3927893 = 0.6806061
    de = 1 + 3 / log2(3) + 3.5
    ie = 7 + 3 / log2(3) + 0.5
    assert dcg(labels, gain="exponential") == close(de)
    assert ndcg(labels, gain="exponential") == close(de / ie)
    assert ndcg(labels, gain="exponential") == pytest.approx(0.6806061, abs=1e-7)


def test_seed000_001_jarvelin_kekalainen_discount():
    # DCG_n = rel_1 + sum_{i>=2} rel_i / log2(i).
    # [2, 1, 0, 3, 0, 1]: 2 + 1/log2(2) + 0 + 3/log2(4) + 0 + 1/log2(6)
    #                  = 2 + 1 + 1.5 + 0.3868528 = 4.8868528
    d = 2 + 1 + 1.5 + 1 / log2(6)
    assert dcg(SEED3_Q1, discount="jk") == close(d)
    # ideal [3, 2, 1, 1, 0, 0]: 3 + 2/log2(2) + 1/log2(3) + 1/log2(4) = 6.1309298
    i = 3 + 2 + 1 / log2(3) + 0.5
    assert ndcg(SEED3_Q1, discount="jk") == close(d / i)
    # Seed 002's labels: 1 + 2/1 + 3/log2(3) + 0 = 4.8927893;
    # ideal 3 + 2/1 + 1/log2(3) + 0 = 5.6309298.
    assert dcg([1, 2, 3, 0], discount="jk") == close(3 + 3 / log2(3))
    assert ndcg([1, 2, 3, 0], discount="jk") == close((3 + 3 / log2(3)) / (5 + 1 / log2(3)))


def test_jk_discount_base():
    # base 3: ranks 1, 2 (< 3) undiscounted, rank 3 gets 1/log3(3) = 1,
    # rank 4 gets 1/log3(4) = ln 3 / ln 4 = 0.7924813.  Total 3 + 0.7924813.
    assert dcg([1, 1, 1, 1], discount="jk", base=3) == close(3 + math.log(3) / math.log(4))
    # base 2 is the default: rank 2 gets 1/log2(2) = 1
    assert dcg([3, 2], discount="jk") == 5.0
    assert dcg([3, 2], discount="jk", base=2) == 5.0


# === Reference values: every public function =================================


def test_precision_at_k_values():
    assert precision_at_k([1, 0, 1, 0], 2) == 0.5  # 1 relevant / 2
    assert precision_at_k([1, 0, 1, 0], 4) == 0.5  # 2 / 4
    # Fewer documents than k: the divisor stays k (trec_eval P_k).
    assert precision_at_k([1], 4) == 0.25  # 1 / 4, not 1 / 1
    assert precision_at_k([1, 1, 0], 5) == close(F(2, 5))
    assert precision_at_k([2, 1, 0], 3, rel=2) == close(F(1, 3))  # only the 2 counts
    assert precision_at_k([None, 1, None], 3) == close(F(1, 3))  # None is not relevant
    assert precision_at_k([0.5, 1.5], 2, rel=1) == 0.5  # 1.5 >= 1, 0.5 < 1


def test_recall_at_k_values():
    assert recall_at_k([1, 0, 1, 0], 2) == 0.5  # 1 of the 2 relevant in the list
    assert recall_at_k([1, 0, 1, 0], 2, n_relevant=4) == 0.25  # 1 / 4
    assert recall_at_k([2, 1, 0], 5, rel=2) == 1.0  # the one label >= 2 is in the top 5
    assert recall_at_k([0, 0], 2) == 0.0  # no relevant documents
    assert recall_at_k([0, 1, 1], 1, n_relevant=3) == 0.0


def test_average_precision_values():
    assert average_precision([1, 0, 1, 0]) == close(F(5, 6))  # (1/1 + 2/3) / 2
    assert average_precision([1, 0, 1, 0], n_relevant=4) == close(F(5, 12))  # (1 + 2/3) / 4
    assert average_precision([1, 0, 1, 0], 2, n_relevant=2) == 0.5  # (1/1) / 2
    # k does not change the default n_relevant (relevant labels in the whole list):
    # [0, 1, 1] cut at 2: (1/2) / 2 = 1/4
    assert average_precision([0, 1, 1], 2) == 0.25
    assert average_precision([0, 2, 1], rel=2) == 0.5  # relevant only at rank 2: (1/2) / 1
    assert average_precision([0, 0]) == 0.0


def test_reciprocal_rank_values():
    assert reciprocal_rank([0, 0, 1, 1]) == close(F(1, 3))
    assert reciprocal_rank([0, 0, 1, 1], 2) == 0.0  # first relevant at 3 > k
    assert reciprocal_rank([1, 2], rel=2) == 0.5
    assert reciprocal_rank([None, 0, 3]) == close(F(1, 3))


def test_r_precision_values():
    assert r_precision([1, 0, 1, 0]) == 0.5  # R = 2, top 2 hold 1
    assert r_precision([1, 0, 1, 0], n_relevant=4) == 0.5  # R = 4, top 4 hold 2
    assert r_precision([0, 1, 1, 1]) == close(F(2, 3))  # R = 3, top 3 hold 2
    assert r_precision([1], n_relevant=3) == close(F(1, 3))  # list shorter than R
    assert r_precision([0, 0]) == 0.0


def test_success_at_k_values():
    assert success_at_k([0, 0, 1], 2) == 0.0
    assert success_at_k([0, 0, 1], 3) == 1.0
    assert success_at_k([0, 1], 5, rel=2) == 0.0
    assert success_at_k([0, 2], 5, rel=2) == 1.0


def test_judged_at_k_values():
    assert judged_at_k([1, None, 0, None], 2) == 0.5  # 1 of 2 judged
    assert judged_at_k([1, None], 10) == 0.5  # divisor min(k, n) = 2
    assert judged_at_k([None, None, 0]) == close(F(1, 3))
    assert judged_at_k([0, 0]) == 1.0  # label 0 is judged


def test_dcg_values():
    assert dcg([3, 2]) == close(3 + 2 / log2(3))
    assert dcg([3, 2], 10) == dcg([3, 2])  # k beyond the list
    assert dcg([3, 2, 1], 1) == 3.0
    assert dcg([None, 2]) == close(2 / log2(3))  # None has gain 0
    # exponential: [1, 2] -> (2**1 - 1)/1 + (2**2 - 1)/log2(3) = 1 + 3/log2(3) = 2.8927893
    assert dcg([1, 2], gain="exponential") == close(1 + 3 / log2(3))
    assert dcg([1, 2], gain="exp") == dcg([1, 2], gain="exponential")
    # a gain mapping: {0: 0, 1: 2.5, 2: 1.0}; [2, 1, 0] -> 1.0 + 2.5/log2(3) = 2.5773243
    assert dcg([2, 1, 0], gain={0: 0, 1: 2.5, 2: 1.0}) == close(1.0 + 2.5 / log2(3))
    # float labels are their own linear gain: 0.5/1 + 1.5/log2(3)
    assert dcg([0.5, 1.5]) == close(0.5 + 1.5 / log2(3))
    # a callable discount gets 1-based ranks: 1/i -> 3/1 + 2/2 + 1/3
    assert dcg([3, 2, 1], discount=lambda i: 1.0 / i) == close(F(13, 3))


def test_ndcg_gain_mapping_sorts_by_gain_not_label():
    gain = {0: 0, 1: 2.5, 2: 1.0}
    # [2, 1, 0]: DCG = 1.0 + 2.5/log2(3) = 2.5773243
    # ideal by gain [2.5, 1.0, 0] (labels 1, 2, 0): IDCG = 2.5 + 1.0/log2(3) = 3.1309298
    # nDCG = 2.5773243 / 3.1309298 = 0.8231818 (sorting by label would wrongly give 1.0)
    got = ndcg([2, 1, 0], gain=gain)
    assert got == close((1.0 + 2.5 / log2(3)) / (2.5 + 1.0 / log2(3)))
    assert got == pytest.approx(0.8231818, abs=1e-7)
    assert ndcg([1, 2, 0], gain=gain) == 1.0


def test_exponential_gain_of_a_tiny_label_is_not_lost():
    # gain = 2**x - 1 = expm1(x ln 2); for x = 1e-20 that is 6.931e-21 > 0, so a
    # one-document ranking is its own ideal and nDCG = 1.0.  Computing
    # 2.0**x - 1.0 in floating point gives exactly 0 (2.0**1e-20 rounds to 1.0),
    # which turns the ideal DCG into 0 and nDCG into 0.0.
    assert dcg([1e-20], gain="exponential") == close(math.expm1(1e-20 * math.log(2)))
    assert ndcg([1e-20], gain="exponential") == 1.0


def test_ndcg_ideal_with_unretrieved_relevant():
    # ranking [1, 0], judged labels of the query [1, 1, 0]:
    # DCG = 1; IDCG = 1 + 1/log2(3) = 1.6309298; nDCG = 0.6131472
    assert ndcg([1, 0], ideal=[1, 1, 0]) == close(1 / (1 + 1 / log2(3)))
    # ranking [2, 0] at k=2, query labels [2, 0, 1, 3] in any order:
    # DCG@2 = 2; IDCG@2 over [3, 2] = 3 + 2/log2(3) = 4.2618595; nDCG = 0.4692787
    assert ndcg([2, 0], 2, ideal=[2, 0, 1, 3]) == close(2 / (3 + 2 / log2(3)))
    # ideal as a generator and with None (unjudged, gain 0) is fine
    assert ndcg([1, 0], ideal=(x for x in [None, 1, 1, 0])) == close(1 / (1 + 1 / log2(3)))
    # k beyond the list: the ideal is cut at k, not at len(labels):
    # [1] with ideal [1, 1], k=5: DCG 1, IDCG 1 + 1/log2(3)
    assert ndcg([1], 5, ideal=[1, 1]) == close(1 / (1 + 1 / log2(3)))


def test_ndcg_ideal_must_cover_the_ranking():
    with pytest.raises(InvalidArgumentError, match=r"'ideal'.*label 2"):
        ndcg([2, 0], ideal=[1, 1, 0])


def test_ndcg_values():
    assert ndcg([3, 2, 1, 0]) == 1.0
    assert ndcg([0, 0]) == 0.0  # ideal DCG 0 -> 0.0
    assert ndcg([None, None]) == 0.0
    # [0, 1] at k=1: DCG@1 = 0, IDCG@1 = 1 -> 0
    assert ndcg([0, 1], 1) == 0.0
    # [0, 1]: (1/log2(3)) / 1 = 0.6309298
    assert ndcg([0, 1]) == close(1 / log2(3))


def test_err_values():
    # R_i = (2**g - 1) / 2**max.  [2, 0, 1], max 2: R = 3/4, 0, 1/4
    # ERR = 3/4 + (1 - 3/4)(1 - 0) * (1/4) / 3 = 3/4 + 1/48 = 37/48
    assert err([2, 0, 1], max_label=2) == close(F(37, 48))
    # [1, 1], max 1: R = 1/2, 1/2: 1/2 + (1/2)(1/2)/2 = 5/8
    assert err([1, 1]) == close(F(5, 8))
    # [3, 2, 1, 0] cut at 2, max 3: R = 7/8, 3/8: 7/8 + (1/8)(3/8)/2 = 7/8 + 3/128 = 115/128
    assert err([3, 2, 1, 0], 2, max_label=3) == close(F(115, 128))
    # [0, 4], max 4: R2 = 15/16, at rank 2: 15/32
    assert err([0, 4]) == close(F(15, 32))
    # [None, 1]: None is not relevant: (1/2) / 2 = 1/4
    assert err([None, 1]) == 0.25
    # max_label above the data: [1], max 2: R = 1/4
    assert err([1], max_label=2) == 0.25
    assert err([0, 0]) == 0.0


def test_err_large_grade_does_not_overflow():
    # A grade of 1100 is a valid label (finite, non-negative).  R_1 =
    # (2**1100 - 1) / 2**1100 = 1 - 2**-1100, which rounds to 1.0, so ERR = 1.0.
    assert err([1100, 0]) == pytest.approx(1.0, abs=1e-12)


def test_rbp_values():
    assert rbp([1, 0, 1], p=0.5) == 0.625  # 0.5 * (1 + 0.5**2)
    assert rbp([1, 1, 1], p=0.8, k=2) == close(0.2 * 1.8)  # 0.2 * (1 + 0.8)
    assert rbp([0, 2, 1], p=0.5, rel=2) == 0.25  # 0.5 * 0.5
    # default p = 0.8: [0, 1] -> 0.2 * 0.8 = 0.16
    assert rbp([0, 1]) == close(0.2 * 0.8)


def test_bpref_values():
    # [1, 0, 1, None, 1]: R = 3, N = 1, min(R, N) = 1.
    # rank 1: 0 nonrel above -> 1; rank 3: 1 above -> 1 - 1/1 = 0; rank 5: 0.  (1 + 0 + 0)/3
    assert bpref([1, 0, 1, None, 1]) == close(F(1, 3))
    # R = 3, N = 5, min = 3: rel at 2 (1 above): 1 - 1/3; rel at 4 (2 above): 1 - 2/3.
    # (2/3 + 1/3) / 3 = 1/3
    assert bpref([0, 1, 0, 1], n_relevant=3, n_nonrelevant=5) == close(F(1, 3))
    # more non-relevant above than R: R = 1, N = 3, min = 1: 1 - min(3, 1)/1 = 0
    assert bpref([0, 0, 0, 1]) == 0.0
    # N = 0: every relevant ranked document scores 1: [1, None, 1], R = 3 -> 2/3
    assert bpref([1, None, 1], n_relevant=3) == close(F(2, 3))
    # rel = 2: label 1 is judged non-relevant.  [1, 2]: R = 1, N = 1 -> 1 - 1/1 = 0
    assert bpref([1, 2], rel=2) == 0.0


def test_inferred_ap_fully_judged():
    eps = 1e-5
    # Every document judged: 1/k + ((k-1)/k) * (r + eps)/(r + n + 2eps).
    # [1, 0, 1]: rank 1 -> 1; rank 3: 1/3 + (2/3)(1 + eps)/(2 + 2eps) = 1/3 + 1/3.
    # (1 + 2/3) / 2 = 5/6 (exactly AP here, since (1 + eps)/(2(1 + eps)) = 1/2)
    assert inferred_ap([1, 0, 1], n_relevant=2) == close(F(5, 6))
    # [0, 1]: rank 2: 1/2 + (1/2) * (0 + eps)/(0 + 1 + 2eps) = 0.5 + 4.9999e-6
    assert inferred_ap([0, 1]) == close(0.5 + 0.5 * eps / (1 + 2 * eps))


def test_inferred_ap_unjudged_above_counts_as_non_relevant():
    # trec_eval 9.0.8 m_infAP.c: a document outside the pool (None here) is
    # skipped but keeps its rank, and the precision estimate above a relevant
    # document at 0-based position j is scaled by the judged fraction:
    #   1/(j+1) + (j/(j+1)) * ((r + n + u)/j) * ((r + eps)/(r + n + 2 eps))
    # (r, n judged relevant/non-relevant above, u pooled-unjudged above, always
    # 0 here).  [None, 1, 0, None], R = 2: relevant at j = 1 with r = n = 0:
    #   1/2 + (1/2) * (0/1) * ... = 1/2;  infAP = (1/2) / 2 = 1/4.
    # (pytrec_eval on qrels {d2: 1, d3: 0, d9: 1}, run d1..d4 gives infAP 0.25.)
    assert inferred_ap([None, 1, 0, None], n_relevant=2) == 0.25
    # [1, None, 1], R = 2: j = 0 -> 1; j = 2 with r = 1, n = 0:
    #   1/3 + (2/3) * (1/2) * (1 + eps)/(1 + 2 eps) = 1/3 + (1/3)(1.00001/1.00002)
    eps = 1e-5
    expected = (1 + 1 / 3 + (1 / 3) * (1 + eps) / (1 + 2 * eps)) / 2
    assert inferred_ap([1, None, 1], n_relevant=2) == close(expected)


def test_interpolated_precision_values():
    # [0, 1, 1, 0], R = 2: recall 1/2 at rank 2 (P = 1/2), 1 at rank 3 (P = 2/3).
    # level 0.5: best of 1/2 and 2/3 = 2/3; level 1.0: 2/3
    assert interpolated_precision([0, 1, 1, 0], 0.5) == close(F(2, 3))
    assert interpolated_precision([0, 1, 1, 0], 1.0) == close(F(2, 3))
    # [0, 1, 0, 1] level 0: max(1/2, 2/4) = 1/2
    assert interpolated_precision([0, 1, 0, 1], 0) == 0.5
    # recall 0.6 never reached: 1 of R = 2 retrieved -> 0
    assert interpolated_precision([1, 0], 0.6, n_relevant=2) == 0.0
    assert interpolated_precision([0, 0], 0.0) == 0.0


def test_interpolated_precision_off_grid_level_uses_trec_eval_rounding():
    # trec_eval 9.0.8 m_iprec_at_recall.c turns a recall level into a number of
    # relevant documents as (long)(level * R + 0.9).  [1, 0, 0, 1], R = 2,
    # level 0.52: (long)(1.04 + 0.9) = 1 relevant document, so the value is the
    # best precision at or after the first relevant rank: max(1/1, 2/4) = 1.0.
    # (pytrec_eval iprec_at_recall.0.52 on this ranking: 1.0.)
    assert interpolated_precision([1, 0, 0, 1], 0.52) == 1.0
    # On the standard grid both readings agree: level 0.5 -> (long)(1.9) = 1 -> 1.0
    assert interpolated_precision([1, 0, 0, 1], 0.5) == 1.0


def test_eleven_point_average_values():
    # [1, 0, 1], R = 2: levels 0.0-0.5 need 1 relevant -> max(1, 2/3) = 1;
    # levels 0.6-1.0 need 2 -> 2/3.  (6 * 1 + 5 * 2/3) / 11 = (28/3) / 11 = 28/33
    assert eleven_point_average([1, 0, 1]) == close(F(28, 33))
    # [0, 1], R = 1: every level needs 1 relevant -> 1/2 at each of 11 points
    assert eleven_point_average([0, 1]) == close(0.5)
    # R = 2 with only one retrieved at rank 1: levels 0-0.5 -> 1, 0.6-1.0 -> 0: 6/11
    assert eleven_point_average([1, 0], n_relevant=2) == close(F(6, 11))


def test_r_precision_multiple_values():
    # rank = (int)(multiple * R + 0.9)
    # [1, 0, 1, 0], R = 2, multiple 2: int(4.9) = 4 -> 2/4
    assert r_precision_multiple([1, 0, 1, 0], 2.0) == 0.5
    # multiple 0.6: int(1.2 + 0.9) = 2 -> P@2 = 1/2
    assert r_precision_multiple([1, 0, 1, 0], 0.6) == 0.5
    # multiple 0.2, R = 3: int(0.6 + 0.9) = 1 -> P@1 of [1] = 1
    assert r_precision_multiple([1], 0.2, n_relevant=3) == 1.0
    # cutoff beyond the list: [1, 1], R = 2, multiple 2 -> rank 4: 2 relevant / 4
    assert r_precision_multiple([1, 1], 2.0) == 0.5
    # multiple 1 is R-precision: [0, 1, 1, 1] -> 2/3
    assert r_precision_multiple([0, 1, 1, 1], 1.0) == close(F(2, 3))


def test_f_measure_values():
    # P = 2/4, R = 2/4: F1 = 2 * (1/4) / 1 = 1/2
    assert f_measure([1, 0, 1, 0], n_relevant=4) == 0.5
    # F_beta = (1 + b^2) P R / (b^2 P + R), as the docstring defines beta.
    # [1, 0, 0, 1]: P = 1/2, R = 1.  beta 2: 5 * (1/2) / (4 * 1/2 + 1) = 5/6
    assert f_measure([1, 0, 0, 1], beta=2.0) == close(F(5, 6))
    # beta 0.5: 1.25 * 0.5 / (0.25 * 0.5 + 1) = 0.625 / 1.125 = 5/9
    assert f_measure([1, 0, 0, 1], beta=0.5) == close(F(5, 9))
    # None documents are retrieved: [1, None], R = 1: P = 1/2, R = 1 -> F1 = 2/3
    assert f_measure([1, None]) == close(F(2, 3))
    assert f_measure([0, 0], n_relevant=3) == 0.0


# === Contracts over every public function ====================================

# (function, extra keyword arguments it needs)
CONTRACT_TABLE = [
    (precision_at_k, {"k": 3}),
    (recall_at_k, {"k": 3}),
    (average_precision, {}),
    (reciprocal_rank, {}),
    (r_precision, {}),
    (success_at_k, {"k": 3}),
    (judged_at_k, {}),
    (dcg, {}),
    (ndcg, {}),
    (err, {}),
    (rbp, {}),
    (rbp_residual, {}),
    (unjudged_at_k, {}),
    (bpref, {}),
    (inferred_ap, {}),
    (interpolated_precision, {"recall": 0.5}),
    (eleven_point_average, {}),
    (r_precision_multiple, {"multiple": 1.0}),
    (f_measure, {}),
    (compatibility, {}),
    (accuracy, {}),
]
CONTRACT_IDS = [f.__name__ for f, _ in CONTRACT_TABLE]
NORMALISED = [(f, kw) for f, kw in CONTRACT_TABLE if f is not dcg]

SAMPLE = [2, 0, 1, 3, 0, 1, 0, 2]
SAMPLE_WITH_NONE = [2, None, 0, 1, None, 3, 0]


def _accepts(fn, name):
    return name in inspect.signature(fn).parameters


def test_contract_table_covers_all_exactly():
    names = [f.__name__ for f, _ in CONTRACT_TABLE]
    assert len(names) == len(set(names))
    assert set(names) == set(metrics.__all__)
    for name in metrics.__all__:
        assert callable(getattr(metrics, name))


@pytest.mark.parametrize("fn, kw", CONTRACT_TABLE, ids=CONTRACT_IDS)
def test_empty_labels_give_zero(fn, kw):
    result = fn([], **kw)
    assert type(result) is float
    # the residual of nothing ranked is the whole weight, p**0
    assert result == (1.0 if fn is rbp_residual else 0.0)


@pytest.mark.parametrize("fn, kw", CONTRACT_TABLE, ids=CONTRACT_IDS)
@pytest.mark.parametrize("given", [SAMPLE, SAMPLE_WITH_NONE], ids=["ints", "with_none"])
def test_returns_float_and_does_not_mutate(fn, kw, given):
    original = list(given)
    copy = list(given)
    result = fn(copy, **kw)
    assert type(result) is float
    assert math.isfinite(result)
    assert copy == original


@pytest.mark.parametrize("fn, kw", CONTRACT_TABLE, ids=CONTRACT_IDS)
@pytest.mark.parametrize("given", [SAMPLE, SAMPLE_WITH_NONE], ids=["ints", "with_none"])
def test_any_iterable_gives_the_same_result(fn, kw, given):
    expected = fn(list(given), **kw)
    assert fn(tuple(given), **kw) == expected
    assert fn(iter(given), **kw) == expected
    assert fn((x for x in given), **kw) == expected


@pytest.mark.parametrize("fn, kw", CONTRACT_TABLE, ids=CONTRACT_IDS)
def test_numpy_arrays_give_the_same_result(fn, kw):
    expected = fn(SAMPLE, **kw)
    assert fn(np.array(SAMPLE, dtype=np.int64), **kw) == expected
    assert fn(np.array(SAMPLE, dtype=np.float64), **kw) == expected
    assert fn(np.array(SAMPLE_WITH_NONE, dtype=object), **kw) == fn(SAMPLE_WITH_NONE, **kw)


@pytest.mark.parametrize("fn, kw", CONTRACT_TABLE, ids=CONTRACT_IDS)
def test_none_is_never_relevant(fn, kw):
    # None behaves as an unjudged document: never relevant, gain 0.  Replacing a
    # None by 0 changes only the measures that tell judged from unjudged.
    with_none = fn([None, 1, None], **kw)
    assert type(with_none) is float
    if fn not in (judged_at_k, unjudged_at_k, rbp_residual, bpref, inferred_ap):
        assert with_none == fn([0, 1, 0], **kw)


@pytest.mark.parametrize("fn, kw", CONTRACT_TABLE, ids=CONTRACT_IDS)
@given(ls=s.labels())
def test_any_valid_labels_give_a_finite_float_and_are_not_mutated(fn, kw, ls):
    before = list(ls)
    result = fn(ls, **kw)
    assert type(result) is float and math.isfinite(result)
    assert ls == before


# === Bad input ===============================================================

K_FUNCS = [(f, kw) for f, kw in CONTRACT_TABLE if _accepts(f, "k")]
REL_FUNCS = [(f, kw) for f, kw in CONTRACT_TABLE if _accepts(f, "rel")]
NREL_FUNCS = [(f, kw) for f, kw in CONTRACT_TABLE if _accepts(f, "n_relevant")]


def test_bad_input_tables_are_complete():
    assert {f.__name__ for f, _ in K_FUNCS} == {
        "precision_at_k", "recall_at_k", "average_precision", "reciprocal_rank",
        "success_at_k", "judged_at_k", "dcg", "ndcg", "err", "rbp", "rbp_residual",
        "unjudged_at_k", "accuracy"}
    assert len(REL_FUNCS) == 14
    assert len(NREL_FUNCS) == 9


@pytest.mark.parametrize("fn, kw", K_FUNCS, ids=[f.__name__ for f, _ in K_FUNCS])
@pytest.mark.parametrize(
    "bad, shown", [(0, "0"), (-1, "-1"), (True, "bool True"), (2.0, "float 2.0"), ("3", "str '3'")]
)
def test_bad_k(fn, kw, bad, shown):
    kw = {**kw, "k": bad}
    with pytest.raises(InvalidArgumentError) as info:
        fn([1, 0, 1], **kw)
    assert isinstance(info.value, IrmetricsError) and isinstance(info.value, ValueError)
    assert str(info.value) == f"'k' must be a positive int (got {shown})"


@pytest.mark.parametrize("fn, kw", CONTRACT_TABLE, ids=CONTRACT_IDS)
@pytest.mark.parametrize(
    "bad, shown",
    [(-1, "-1"), (float("nan"), "nan"), (float("inf"), "inf"), ("a", "'a'")],
    ids=["negative", "nan", "inf", "str"],
)
def test_bad_label(fn, kw, bad, shown):
    with pytest.raises(InvalidLabelError, match=r"labels\[2\] \(rank 3\)") as info:
        fn([1, 0, bad, 1], **kw)
    assert isinstance(info.value, IrmetricsError) and isinstance(info.value, ValueError)
    assert shown in str(info.value)
    assert info.value.position == 2


@pytest.mark.parametrize("fn, kw", CONTRACT_TABLE, ids=CONTRACT_IDS)
@pytest.mark.parametrize("bad", ["1010", 3, None], ids=["str", "int", "None"])
def test_labels_not_an_iterable(fn, kw, bad):
    with pytest.raises(InvalidArgumentError, match="'labels' must be an iterable"):
        fn(bad, **kw)


@pytest.mark.parametrize("bad", [0, 1, 1.5, -0.2, True])
def test_bad_p(bad):
    with pytest.raises(InvalidArgumentError, match=r"'p' must be a number in \(0, 1\)") as info:
        rbp([1, 0], p=bad)
    assert repr(bad) in str(info.value)


@pytest.mark.parametrize("fn, kw", NREL_FUNCS, ids=[f.__name__ for f, _ in NREL_FUNCS])
def test_n_relevant_below_the_relevant_given(fn, kw):
    # two relevant labels given, n_relevant=1
    with pytest.raises(
        InvalidArgumentError,
        match=re.escape("'n_relevant' must be at least the number of relevant labels given, 2 (got 1)"),
    ):
        fn([1, 1, 0], n_relevant=1, **kw)


@pytest.mark.parametrize("fn, kw", REL_FUNCS, ids=[f.__name__ for f, _ in REL_FUNCS])
@pytest.mark.parametrize("bad, shown", [(0, "(got 0)"), (-1, "(got -1)"), ("1", "'1'"), (True, "True")])
def test_bad_rel(fn, kw, bad, shown):
    with pytest.raises(InvalidArgumentError, match="'rel'") as info:
        fn([1, 0], rel=bad, **kw)
    assert shown in str(info.value)


@pytest.mark.parametrize("fn", [dcg, ndcg])
def test_unknown_gain_and_discount(fn):
    with pytest.raises(InvalidArgumentError, match=r"'gain'.*\(got 'quadratic'\)"):
        fn([1, 0], gain="quadratic")
    with pytest.raises(InvalidArgumentError, match=r"'discount'.*\(got 'log10'\)"):
        fn([1, 0], discount="log10")
    with pytest.raises(InvalidArgumentError, match=r"'gain' has no entry for label 3"):
        fn([3, 0], gain={0: 0, 1: 1})
    with pytest.raises(InvalidArgumentError, match=r"'gain' must map labels to finite non-negative numbers"):
        fn([1], gain={0: 0, 1: float("nan")})
    with pytest.raises(InvalidArgumentError, match="'base'"):
        fn([1], discount="jk", base=1)
    with pytest.raises(InvalidArgumentError, match="'base' applies only"):
        fn([1], base=3)
    with pytest.raises(InvalidArgumentError, match=r"'discount' must return .*at rank 1"):
        fn([1], discount=lambda i: -1.0)


def test_other_bad_parameters():
    with pytest.raises(InvalidArgumentError, match=r"'max_label' must be at least .* 3"):
        err([3, 1], max_label=2)
    with pytest.raises(InvalidArgumentError, match=r"'max_label'.*\(got -1\)"):
        err([0], max_label=-1)
    with pytest.raises(InvalidArgumentError, match=r"'recall' must be a number in \[0, 1\] \(got 1.5\)"):
        interpolated_precision([1], 1.5)
    with pytest.raises(InvalidArgumentError, match=r"'multiple'.*\(got 0\)"):
        r_precision_multiple([1], 0)
    with pytest.raises(InvalidArgumentError, match=r"'beta'.*\(got -1.0\)"):
        f_measure([1], beta=-1.0)
    with pytest.raises(InvalidArgumentError, match=r"'n_nonrelevant' must be an int >= 1 \(got 0\)"):
        bpref([1, 0], n_nonrelevant=0)
    with pytest.raises(InvalidLabelError, match=r"ideal\[1\] \(rank 2\)"):
        ndcg([1], ideal=[1, -1])


# === Brute-force definitions (independent of the library) ====================


def bf_is_rel(x, rel):
    return x is not None and x >= rel


def bf_precision(ls, k, rel=1):
    hits = 0
    for i in range(min(k, len(ls))):
        if bf_is_rel(ls[i], rel):
            hits += 1
    return F(hits, k)


def bf_n_rel(ls, rel=1):
    return len([x for x in ls if bf_is_rel(x, rel)])


def bf_recall(ls, k, rel=1):
    total = bf_n_rel(ls, rel)
    if total == 0:
        return F(0)
    return F(bf_n_rel(ls[:k], rel), total)


def bf_average_precision(ls, k=None, rel=1):
    total = bf_n_rel(ls, rel)
    if total == 0:
        return F(0)
    top = ls if k is None else ls[:k]
    acc = F(0)
    for i in range(len(top)):
        if bf_is_rel(top[i], rel):
            acc += bf_precision(top, i + 1, rel)  # precision at this rank
    return acc / total


def bf_reciprocal_rank(ls, rel=1):
    for i in range(len(ls)):
        if bf_is_rel(ls[i], rel):
            return F(1, i + 1)
    return F(0)


def bf_r_precision(ls, rel=1):
    r = bf_n_rel(ls, rel)
    if r == 0:
        return F(0)
    return F(bf_n_rel(ls[:r], rel), r)


def bf_dcg(ls, k=None):
    top = ls if k is None else ls[:k]
    total = 0.0
    for i in range(len(top)):
        g = 0.0 if top[i] is None else float(top[i])
        total += g / math.log(i + 2, 2)
    return total


def bf_ndcg(ls, k=None):
    ideal = sorted((x for x in ls if x is not None), reverse=True)
    idcg = bf_dcg(ideal, k)
    return 0.0 if idcg == 0 else bf_dcg(ls, k) / idcg


def bf_err(ls, max_label):
    total = 0.0
    for i in range(len(ls)):
        stop_here = 1.0
        for j in range(i):  # probability the user got past every earlier document
            g = 0 if ls[j] is None else ls[j]
            stop_here *= 1 - (2 ** g - 1) / 2 ** max_label
        g = 0 if ls[i] is None else ls[i]
        total += stop_here * (2 ** g - 1) / 2 ** max_label / (i + 1)
    return total


def bf_rbp(ls, p, rel=1):
    total = 0.0
    for i in range(len(ls)):
        if bf_is_rel(ls[i], rel):
            total += p ** i
    return (1 - p) * total


def fclose(expected):
    return pytest.approx(float(expected), rel=1e-12, abs=1e-12)


@given(ls=s.labels(), k=s.ks(), rel=s.rels())
def test_precision_matches_brute_force(ls, k, rel):
    assert precision_at_k(ls, k, rel=rel) == fclose(bf_precision(ls, k, rel))


@given(ls=s.labels(), k=s.ks(), rel=s.rels())
def test_recall_matches_brute_force(ls, k, rel):
    assert recall_at_k(ls, k, rel=rel) == fclose(bf_recall(ls, k, rel))


@given(ls=s.labels(), k=s.optional_ks(), rel=s.rels())
def test_average_precision_matches_brute_force(ls, k, rel):
    assert average_precision(ls, k, rel=rel) == fclose(bf_average_precision(ls, k, rel))


@given(ls=s.labels(), rel=s.rels())
def test_reciprocal_rank_matches_brute_force(ls, rel):
    assert reciprocal_rank(ls, rel=rel) == fclose(bf_reciprocal_rank(ls, rel))


@given(ls=s.labels(), rel=s.rels())
def test_r_precision_matches_brute_force(ls, rel):
    assert r_precision(ls, rel=rel) == fclose(bf_r_precision(ls, rel))


@given(ls=s.labels(), k=s.optional_ks())
def test_dcg_ndcg_match_brute_force(ls, k):
    assert dcg(ls, k) == fclose(bf_dcg(ls, k))
    assert ndcg(ls, k) == fclose(bf_ndcg(ls, k))


@given(ls=s.labels(allow_float=False))
def test_err_matches_brute_force(ls):
    top = max((x for x in ls if x is not None), default=0)
    expected = 0.0 if top == 0 else bf_err(ls, top)
    assert err(ls) == fclose(expected)
    assert err(ls, max_label=s.MAX_LABEL) == fclose(bf_err(ls, s.MAX_LABEL))


@given(ls=s.labels(), p=s.persistences(), rel=s.rels())
def test_rbp_matches_brute_force(ls, p, rel):
    assert rbp(ls, p=p, rel=rel) == fclose(bf_rbp(ls, p, rel))


# --- rbp's residual and graded gains, unjudged_at_k (trec_eval 10.0's rbp_resid, rbp, unj)


def bf_rbp_residual(ls, p, k=None):
    top = ls if k is None else ls[:k]
    return (1 - p) * sum(p ** i for i, x in enumerate(top) if x is None) + p ** len(top)


@given(ls=s.labels(), p=s.persistences(), k=s.optional_ks())
def test_rbp_residual_matches_brute_force(ls, p, k):
    assert rbp_residual(ls, p=p, k=k) == fclose(bf_rbp_residual(ls, p, k))


@given(ls=s.labels(), p=s.persistences(), horizon=st.integers(1, 40))
def test_the_residual_with_a_finite_horizon(ls, p, horizon):
    # The residual's other variant (cwl-eval's counts the ranks down to its
    # depth, the weights normalised over them): the reach p^(i-1) of the
    # unjudged ranks and of ranks n+1..horizon, over the reach of ranks 1..horizon.
    unknown = [x is None for x in ls][:horizon] + [True] * max(0, horizon - len(ls))
    reach = [p ** i for i in range(horizon)]
    want = sum(r for r, u in zip(reach, unknown) if u) / sum(reach)
    assert cwl.residual([x is None for x in ls], [p] * horizon, horizon) == fclose(want)


@given(ls=s.labels(), p=s.persistences(), k=s.optional_ks())
def test_rbp_lies_between_its_value_and_value_plus_residual(ls, p, k):
    # Filling every unjudged rank and every rank past the end with the top gain gives RBP
    # plus the residual; any filling lies in between.  (The residual's own sum can round
    # one ulp above 1: all unjudged, (1 - p) * (1 + p + p**2) + p**3.)
    top = max([x for x in ls if x is not None] + [1])
    low, resid = rbp(ls, p=p, k=k, max_label=top), rbp_residual(ls, p=p, k=k)
    assert 0.0 <= low and 0.0 < resid <= 1.0 + 1e-12 and low + resid <= 1.0 + 1e-12
    m = len(ls) if k is None else min(k, len(ls))
    filled = [top if x is None else x for x in ls[:m]] + [top] * 60
    best = rbp(filled, p=p, max_label=top)
    assert best <= low + resid + 1e-12
    assert best == pytest.approx(low + resid - p ** (m + 60), abs=1e-12)


@given(ls=s.graded_labels(), p=s.persistences(), extra=st.integers(0, 3))
def test_rbp_graded_matches_brute_force(ls, p, extra):
    top = max(ls + [1]) + extra
    expected = (1 - p) * sum(x / top * p ** i for i, x in enumerate(ls))
    assert rbp(ls, p=p, max_label=top) == fclose(expected)
    # binary labels: the graded gain (over max_label 1) is the binary one
    binary = [1 if x >= 1 else 0 for x in ls]
    assert rbp(binary, p=p, max_label=1) == rbp(binary, p=p)


def test_rbp_refuses_a_label_above_max_label():
    with pytest.raises(InvalidArgumentError, match="'max_label' must be at least"):
        rbp([3, 1], max_label=2)


@given(ls=s.labels(), k=s.ks())
def test_unjudged_at_k_matches_brute_force(ls, k):
    unjudged = sum(1 for x in ls[:k] if x is None)
    assert unjudged_at_k(ls, k) == unjudged / k
    if k <= len(ls):  # then the two fractions share a divisor
        assert unjudged_at_k(ls, k) == pytest.approx(1.0 - judged_at_k(ls, k), abs=1e-15)
    assert unjudged_at_k(ls) == (sum(1 for x in ls if x is None) / len(ls) if ls else 0.0)


@given(ls=s.graded_labels(), ideal_extra=s.graded_labels(max_size=5), k=s.optional_ks())
def test_ndcg_with_ideal_matches_brute_force(ls, ideal_extra, k):
    ideal = ls + ideal_extra
    ideal_sorted = sorted(ideal, reverse=True)
    idcg = bf_dcg(ideal_sorted, k)
    expected = 0.0 if idcg == 0 else bf_dcg(ls, k) / idcg
    assert ndcg(ls, k, ideal=ideal) == fclose(expected)


# === Properties ==============================================================


@pytest.mark.parametrize("fn, kw", NORMALISED, ids=[f.__name__ for f, _ in NORMALISED])
@given(ls=s.labels(), rel=s.rels())
def test_normalised_measures_lie_in_unit_interval(fn, kw, ls, rel):
    if _accepts(fn, "rel"):
        kw = {**kw, "rel": rel}
    assert 0.0 <= fn(ls, **kw) <= 1.0


@given(ls=s.labels(), recall=s.recall_levels(), k=s.ks(), p=s.persistences(),
       beta=st.floats(min_value=0.1, max_value=10), multiple=st.floats(min_value=0.1, max_value=3))
def test_parametrised_measures_lie_in_unit_interval(ls, recall, k, p, beta, multiple):
    assert 0.0 <= interpolated_precision(ls, recall) <= 1.0
    assert 0.0 <= ndcg(ls, k, gain="exponential", discount="jk") <= 1.0
    assert 0.0 <= err(ls, k) <= 1.0
    assert 0.0 <= rbp(ls, p=p, k=k) <= 1.0
    assert 0.0 <= f_measure(ls, beta=beta) <= 1.0
    assert 0.0 <= r_precision_multiple(ls, multiple) <= 1.0


@pytest.mark.parametrize("gain", ["linear", "exponential"])
@pytest.mark.parametrize("discount", ["log2", "jk"])
@given(ls=s.labels(allow_none=False, min_size=1), k=s.optional_ks())
def test_perfect_ranking_scores_exactly_one(gain, discount, ls, k):
    assume(any(x > 0 for x in ls))
    perfect = sorted(ls, reverse=True)
    assert ndcg(perfect, k, gain=gain, discount=discount) == 1.0
    assert ndcg(perfect, k, ideal=list(reversed(ls)), gain=gain, discount=discount) == 1.0


@given(ls=s.binary_labels(min_size=1))
def test_perfect_binary_ranking(ls):
    assume(any(ls))
    perfect = sorted(ls, reverse=True)
    assert average_precision(perfect) == 1.0
    assert reciprocal_rank(perfect) == 1.0
    assert r_precision(perfect) == 1.0


@given(data=st.data(), ls=s.graded_labels(min_size=2), k=s.ks(), rel=s.rels())
def test_moving_a_better_label_up_never_hurts(data, ls, k, rel):
    i = data.draw(st.integers(min_value=0, max_value=len(ls) - 2), label="i")
    j = data.draw(st.integers(min_value=i + 1, max_value=len(ls) - 1), label="j")
    assume(ls[j] > ls[i])
    swapped = list(ls)
    swapped[i], swapped[j] = swapped[j], swapped[i]
    assert precision_at_k(swapped, k, rel=rel) >= precision_at_k(ls, k, rel=rel)
    assert average_precision(swapped, rel=rel) >= average_precision(ls, rel=rel) - 1e-12
    assert reciprocal_rank(swapped, rel=rel) >= reciprocal_rank(ls, rel=rel)
    assert ndcg(swapped, k) >= ndcg(ls, k) - 1e-12
    assert ndcg(swapped) > ndcg(ls) - 1e-12
    assert dcg(swapped) > dcg(ls)  # strictly: (g_j - g_i)(d_i - d_j) > 0


# (unjudged_at_k divides by k itself: past the list, a larger k lowers it)
OPTIONAL_K = [f for f, _ in K_FUNCS if inspect.signature(f).parameters["k"].default is None
              and f is not unjudged_at_k]


@pytest.mark.parametrize("fn", OPTIONAL_K, ids=[f.__name__ for f in OPTIONAL_K])
@given(ls=s.labels(), extra=st.integers(min_value=0, max_value=5))
def test_k_at_or_beyond_the_list_equals_no_cutoff(fn, ls, extra):
    k = max(len(ls), 1) + extra
    assert fn(ls, k=k) == fn(ls)


@given(ls=s.labels(), extra=st.integers(min_value=0, max_value=5))
def test_k_beyond_the_list_for_required_k(ls, extra):
    n = max(len(ls), 1)
    assert recall_at_k(ls, n + extra) == recall_at_k(ls, n)
    assert success_at_k(ls, n + extra) == success_at_k(ls, n)
    # P@k keeps dividing by k: P@(n + extra) = P@n * n / (n + extra)
    assert precision_at_k(ls, n + extra) == fclose(F(bf_n_rel(ls), n + extra))


@given(ls=s.binary_labels())
def test_fully_judged_inferred_ap_is_close_to_ap(ls):
    # With every document judged infAP differs from AP only through eps = 1e-5.
    assert inferred_ap(ls) == pytest.approx(average_precision(ls), abs=1e-4)


@given(ls=s.graded_labels(), rel=s.rels())
def test_bpref_without_nonrelevant_above_is_recall(ls, rel):
    # relevant first, then the rest: no judged non-relevant above any relevant one,
    # so every term is 1 and bpref = (relevant ranked) / R = 1
    ordered = [x for x in ls if x >= rel] + [x for x in ls if x < rel]
    expected = 1.0 if any(x >= rel for x in ls) else 0.0
    assert bpref(ordered, rel=rel) == expected


# === The fast path of ndcg (lists of ints 0..15) against the general path ===


@given(
    st.lists(st.one_of(st.integers(0, 20), st.booleans()), max_size=60),
    s.optional_ks(70),
    st.sampled_from(["linear", "exponential", "exp"]),
)
def test_ndcg_fast_path_equals_general_path(labels, k, gain):
    # A list of small ints takes the bytearray fast path; the same labels as a
    # tuple take the general path.  The two must agree to the last bit.
    assert ndcg(labels, k, gain=gain) == ndcg(tuple(labels), k, gain=gain)
    if any(labels) and k is None and all(0 <= x <= 15 for x in labels):
        assert ndcg(sorted(labels, reverse=True), gain=gain) == 1.0


# === Exact values where the range tests only bound them (issue 18, test gaps) ==

# labels 1, 0, 2, 0 (rel=1): relevant at ranks 1 and 3, R = 2, all judged.
EXACT_SAMPLE = [1, 0, 2, 0]
EXACT_VALUES = {
    "precision_at_k": 2 / 3,           # k=3: ranks 1, 3 relevant
    "recall_at_k": 1.0,                # k=3: 2 of R=2
    "average_precision": 5 / 6,        # (1/1 + 2/3) / 2
    "reciprocal_rank": 1.0,            # first relevant at rank 1
    "r_precision": 0.5,                # P@R = P@2 = 1/2
    "success_at_k": 1.0,
    "judged_at_k": 1.0,                # nothing is None
    "ndcg": 2 / (2 + 1 / log2(3)),     # DCG 1/1 + 2/log2(4) = 2; ideal 2/1 + 1/log2(3)
    "err": 0.4375,                     # R = (2^l - 1)/2^2: 1/4 + (1/3)(3/4)(3/4) = 1/4 + 3/16
    "rbp": 0.2 * (1 + 0.8**2),         # (1 - p) (p^0 + p^2), p = 0.8
    "rbp_residual": 0.8**4,            # nothing unjudged: the ranks past 4, p^4
    "unjudged_at_k": 0.0,              # nothing is None
    "bpref": 0.75,                     # (1 + (1 - 1/min(R, N=2))) / 2
    "inferred_ap": 5 / 6,              # all judged: AP
    "interpolated_precision": 1.0,     # recall 0.5 reached at rank 1 with P = 1
    "eleven_point_average": 28 / 33,   # 6 levels <= 0.5 at 1, 5 levels at 2/3: (6 + 10/3)/11
    "r_precision_multiple": 0.5,       # multiple 1: P@2
    "f_measure": 2 / 3,                # P = 2/4, R = 1: 2PR/(P + R)
    # overlaps with the ideal (the 2, then the 1) at depth 1..4: 0, 1, 2, 2; the ideal's 1, 2, 2, 2
    "compatibility": (0.95 / 2 + 0.95**2 * 2 / 3 + 0.95**3 / 2) / (1 + 0.95 + 0.95**2 * 2 / 3 + 0.95**3 / 2),
    "accuracy": 0.75,                  # non-relevant above the relevant: 0, 1; of 2: 1 - 1/(2*2)
}


@pytest.mark.parametrize("fn, kw", NORMALISED, ids=[f.__name__ for f, _ in NORMALISED])
def test_normalised_measures_exact_values(fn, kw):
    assert set(EXACT_VALUES) == {f.__name__ for f, _ in NORMALISED}
    assert fn(EXACT_SAMPLE, **kw) == pytest.approx(EXACT_VALUES[fn.__name__], rel=1e-15)
    # The ends of the unit interval, exactly: nothing relevant scores 0 (but
    # every label is judged), a perfect ranking 1 (inferred_ap is trec_eval's
    # estimate, which stays just under 1).
    tail = 0.8**3  # the residual: the weight past rank 3
    assert fn([0, 0, 0], **kw) == {judged_at_k: 1.0, rbp_residual: tail}.get(fn, 0.0)
    if fn not in (inferred_ap, f_measure, rbp, err, precision_at_k, rbp_residual,
                  unjudged_at_k):
        assert fn([2, 1, 0], **kw) == 1.0


def test_parametrised_measures_exact_values():
    ls = EXACT_SAMPLE
    # recall 0 -> max P over all ranks = 1; 0.75 and 1 -> reached at rank 3, P = 2/3
    assert [interpolated_precision(ls, r) for r in (0.0, 0.75, 1.0)] == [1.0, 2 / 3, 2 / 3]
    # exp gains 1, 0, 3, 0; jk discounts 1, 1, 1/log2(3), 1/log2(4):
    # DCG = 1 + 3/log2(3); ideal gains 3, 1: 3 + 1 = 4
    assert ndcg(ls, gain="exponential", discount="jk") == pytest.approx((1 + 3 / log2(3)) / 4, rel=1e-15)
    assert err(ls, 2) == 0.25                     # the 2 at rank 3 is cut
    assert rbp(ls, p=0.5, k=2) == 0.5             # (1 - p) * 1
    assert f_measure(ls, beta=2) == pytest.approx(5 / 6, rel=1e-15)   # 5 PR / (4P + R), P = 1/2, R = 1
    assert r_precision_multiple(ls, 0.5) == 1.0   # P@1
    assert r_precision_multiple(ls, 2.0) == 0.5   # P@4


# === ndcg's fast path at label 15 and beyond (issue 18, test gaps) ==========


@given(
    st.lists(st.one_of(st.integers(0, 40), st.integers(13, 16), st.just(15)), max_size=40),
    s.optional_ks(45),
    st.sampled_from(["linear", "exponential"]),
)
def test_ndcg_fast_path_equals_general_path_for_labels_up_to_40(labels, k, gain):
    # Labels 0..15 take the fast path (a table of gains up to 15); above it the
    # general path.  Both agree to the last bit, stay <= 1, and a perfect
    # ranking is exactly 1: a fast path that dropped label 15 from its ideal
    # would exceed 1 or differ.
    fast = ndcg(labels, k, gain=gain)
    assert fast == ndcg(tuple(labels), k, gain=gain)
    assert 0.0 <= fast <= 1.0
    if any(labels):
        assert ndcg(sorted(labels, reverse=True), k, gain=gain) == 1.0


def test_ndcg_fast_path_with_label_15_by_hand():
    # [0, 15]: DCG = 15/log2(3); ideal 15/1: 1/log2(3).  Exp gain: same ratio.
    assert ndcg([0, 15]) == pytest.approx(1 / log2(3), rel=1e-15)
    assert ndcg([0, 15], gain="exponential") == pytest.approx(1 / log2(3), rel=1e-15)
    # [15, 14]: perfect.  [14, 15]: (14 + 15/log2(3)) / (15 + 14/log2(3)).
    assert ndcg([15, 14]) == 1.0
    assert ndcg([14, 15]) == pytest.approx((14 + 15 / log2(3)) / (15 + 14 / log2(3)), rel=1e-15)


# === trec_eval's arithmetic, to the last bit =================================
# Each reference value below is built with trec_eval 9.0.8's own operations
# in its own order (the m_*.c file named), as plain double additions.


def _c_sum(terms):
    total = 0.0
    for t in terms:
        total += t
    return total


def test_average_precision_adds_left_to_right():
    # Issue 12's per-query reproducer: 8 relevant, ranks 2..6 relevant.
    # m_map.c: sum += rel_so_far / rank: 1/2 + 2/3 + 3/4 + 4/5 + 5/6 = 3.55,
    # exactly 0.44375 over 8; in doubles left to right the sum is just above
    # 3.55 and %6.4f prints 0.4438 (trec_eval); the correctly rounded sum
    # (math.fsum) prints 0.4437.
    value = average_precision([0, 1, 1, 1, 1, 1], n_relevant=8)
    assert value == _c_sum([1 / 2, 2 / 3, 3 / 4, 4 / 5, 5 / 6]) / 8
    assert f"{value:6.4f}" == "0.4438"
    assert f"{math.fsum([1 / 2, 2 / 3, 3 / 4, 4 / 5, 5 / 6]) / 8:6.4f}" == "0.4437"


def test_dcg_divides_by_log2_left_to_right():
    # m_ndcg.c: results_dcg += gain / log2(rank + 1) over non-zero gains
    labels = [3, 0, 2, 1, 0, 2, 3, 1]
    want = _c_sum(g / math.log2(i + 2) for i, g in enumerate(labels) if g)
    assert dcg(labels) == want
    ideal = _c_sum(g / math.log2(i + 2) for i, g in enumerate(sorted(labels, reverse=True)) if g)
    assert ndcg(labels) == want / ideal
    # the fast path (small int labels) and the general one (floats) agree
    assert ndcg([float(x) for x in labels]) == ndcg(labels)


def test_bpref_and_infap_add_left_to_right():
    labels = [1, 0, None, 1, 0, 0, 1, None, 1]
    # m_bpref.c, R = 4, N = 3: 1, then 1 - min(1, 4) / min(3, 4) for the
    # next, 1 - 3/3, 1 - 3/3
    assert bpref(labels) == _c_sum([1.0, 1.0 - 1 / 3, 1.0 - 3 / 3, 1.0 - 3 / 3]) / 4
    eps = 0.00001

    def term(j, rel_above, nonrel_above):
        return (1.0 / (j + 1) + (j / (j + 1)) * ((rel_above + nonrel_above) / j)
                * ((rel_above + eps) / (rel_above + nonrel_above + 2 * eps)))

    # m_infap.c: relevant at 0-based positions 0, 3, 6, 8
    want = _c_sum([1.0, term(3, 1, 1), term(6, 2, 3), term(8, 3, 3)]) / 4
    assert inferred_ap(labels) == want


def test_eleven_point_average_adds_levels_from_the_top():
    # m_11pt_avg.c: relevant at ranks 1, 3, 4 of R = 5.  Level l needs
    # (long)(l * 5 + 0.9) relevant: 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5 for
    # 0.0..1.0; the best precision from the rank where that many are seen:
    # 1 (0 or 1 needed), 3/4 (2 or 3: max(2/3, 3/4)), 0 (4 or 5: never).
    # The levels are added from 1.0 down.
    labels = [1, 0, 1, 1, 0]
    values = [1.0, 1.0, 1.0, 3 / 4, 3 / 4, 3 / 4, 3 / 4, 0.0, 0.0, 0.0, 0.0]
    assert [interpolated_precision(labels, i / 10, n_relevant=5) for i in range(11)] == values
    assert eleven_point_average(labels, n_relevant=5) == _c_sum(reversed(values)) / 11


def test_f_measure_uses_trec_evals_weight():
    # m_set_F.c: (x + 1) P R / (x P + R) with x = beta**2; P = 2/4, R = 2/3
    p, r = 2 / 4, 2 / 3
    for beta in (1.0, 0.5, 2.0, 0.7):
        x = beta * beta
        assert f_measure([1, 0, 1, 0], n_relevant=3, beta=beta) == (x + 1.0) * p * r / (x * p + r)


# --- trec_eval's gain measures: the kernels against line-by-line C ports ---
# The kernels of G, ndcg_rel and Rndcg visit only the non-zero gains; these
# ports of m_G.c, m_ndcg_rel.c and m_Rndcg.c walk every rank as trec_eval
# does (the ideal as levels of (gain, count), highest gain last), and the
# two must give the same bits.


def _ideal_walk(levels):
    """trec_eval's ideal gain after each step: cur_level/num_at_level."""
    state = {"cur": len(levels) - 1, "num": 0}

    def step():
        state["num"] += 1
        while state["cur"] >= 0 and state["num"] > levels[state["cur"]][1]:
            state["num"] = 1
            state["cur"] -= 1
        return levels[state["cur"]][0] if state["cur"] >= 0 else 0.0

    top = levels[-1][0] if levels else 0.0
    return step, top


def _c_g(gains, levels):
    step, ideal_gain = _ideal_walk(levels)
    results_g = sum_results = sum_ideal = sum_cost = 0.0
    i, n = 0, len(gains)
    while i < n and ideal_gain > 0.0:
        sum_results += gains[i]
        ideal_gain = step()
        if ideal_gain > 0.0:
            sum_ideal += ideal_gain
        sum_cost += ideal_gain if ideal_gain >= 1.0 else 1.0
        if gains[i] != 0:
            results_g += gains[i] / math.log2(2 + sum_cost - sum_results)
        i += 1
    while i < n:
        sum_results += gains[i]
        sum_cost += 1.0
        if gains[i] != 0:
            results_g += gains[i] / math.log2(2 + sum_cost - sum_results)
        i += 1
    while ideal_gain > 0.0:
        ideal_gain = step()
        if ideal_gain > 0.0:
            sum_ideal += ideal_gain
    return results_g / sum_ideal if sum_ideal > 0.0 else 0.0


def _c_ndcg_rel(gains, levels):
    step, ideal_gain = _ideal_walk(levels)
    results_dcg = ideal_dcg = total = 0.0
    num_rel = num_rel_ret = 0
    i, n = 0, len(gains)
    while i < n and ideal_gain > 0.0:
        if gains[i] != 0:
            results_dcg += gains[i] / math.log2(i + 2)
        ideal_gain = step()
        if ideal_gain > 0.0:
            num_rel += 1
            ideal_dcg += ideal_gain / math.log2(i + 2)
        if gains[i] > 0:
            total += results_dcg / ideal_dcg
            num_rel_ret += 1
        i += 1
    while i < n:
        if gains[i] != 0:
            results_dcg += gains[i] / math.log2(i + 2)
        if gains[i] > 0:
            total += results_dcg / ideal_dcg
            num_rel_ret += 1
        i += 1
    while ideal_gain > 0.0:
        ideal_gain = step()
        if ideal_gain > 0.0:
            num_rel += 1
            ideal_dcg += ideal_gain / math.log2(i + 2)
        i += 1
    if ideal_dcg == 0.0:
        return 0.0  # C: 0/0, nan, then "sum > 0" is false
    total += (num_rel - num_rel_ret) * results_dcg / ideal_dcg
    return total / num_rel if total > 0.0 else 0.0


def _c_rndcg(gains, levels):
    step, ideal_gain = _ideal_walk(levels)
    old = ideal_gain
    results_dcg = ideal_dcg = total = 0.0
    points = 0
    i, n = 0, len(gains)
    while i < n and ideal_gain > 0.0:
        ideal_gain = step()
        if old != ideal_gain:
            if ideal_dcg > 0.0:
                total += results_dcg / ideal_dcg
                points += 1
            old = ideal_gain
        if gains[i] != 0:
            results_dcg += gains[i] / math.log2(i + 2)
        if ideal_gain > 0.0:
            ideal_dcg += ideal_gain / math.log2(i + 2)
        i += 1
    if i < n:
        while i < n:
            if gains[i] != 0:
                results_dcg += gains[i] / math.log2(i + 2)
            i += 1
        if ideal_dcg > 0.0:
            total += results_dcg / ideal_dcg
            points += 1
    while ideal_gain > 0.0:
        ideal_gain = step()
        if old != ideal_gain:
            if ideal_dcg > 0.0:
                total += results_dcg / ideal_dcg
                points += 1
            old = ideal_gain
        if ideal_gain > 0.0:
            ideal_dcg += ideal_gain / math.log2(i + 2)
        i += 1
    return total / points if points else 0.0  # C: 0/0 (nan) without points


@st.composite
def _gain_case(draw):
    """Judged levels with counts, a gain per level (integral or not, maybe
    0 or negative), and a ranking drawing from the judged documents and
    unjudged ones (gain 0)."""
    fractional = draw(st.booleans())
    gain_values = (st.sampled_from([-1.0, 0.0, 0.5, 1.25, 2.5, 3.0, 7.0]) if fractional
                   else st.integers(-1, 9).map(float))
    counts = draw(st.dictionaries(st.integers(0, 4), st.integers(0, 4), min_size=1))
    gain = {lvl: draw(gain_values) for lvl in counts}
    pool = [lvl for lvl, c in counts.items() for _ in range(c)]
    # each judged document at most once: a prefix of a shuffle of the pool
    picked = draw(st.permutations(pool))[:draw(st.integers(0, len(pool)))]
    ranking = draw(st.permutations(picked + [None] * draw(st.integers(0, 12))))
    gains = [0.0 if x is None else gain[x] for x in ranking]
    # trec_eval's levels sorted by gain, highest last (ties: any order, same gains)
    levels = sorted(((gain[lvl], c) for lvl, c in counts.items()), key=lambda p: p[0])
    ideal = sorted((g for g, c in levels for _ in range(c) if g > 0), reverse=True)
    return gains, levels, ideal


def _kernels(gains, ideal):
    """G, ndcg_rel and Rndcg from the kernels, given the gains of every rank."""
    nz = [(i, g) for i, g in enumerate(gains) if g]  # (0-based rank, gain) of the non-zero gains
    prefix = metrics._running_dcg(ideal, [])
    dcg = metrics._running_dcg_sparse(nz, [])
    return (metrics._g_sparse(nz, ideal), metrics._ndcg_rel_sparse(nz, dcg, prefix),
            metrics._rndcg_sparse(len(gains), nz, dcg, ideal, prefix))


@given(_gain_case())
def test_gain_measure_kernels_equal_trec_evals_loops(case):
    gains, levels, ideal = case
    assert _kernels(gains, ideal) == (
        _c_g(gains, levels), _c_ndcg_rel(gains, levels), _c_rndcg(gains, levels))


def test_gain_measure_kernels_by_hand():
    # gains 2, 0, 1 (rank 1..3), ideal 2, 1, 1 (one judged 1 not retrieved)
    gains, ideal = [2.0, 0.0, 1.0], [2.0, 1.0, 1.0]
    levels = [(1.0, 2), (2.0, 1)]
    # G: costs 2, 3, 4; gained 2, 2, 3: 2/log2(2) + 1/log2(3) over 4
    g, ndcg_rel, rndcg = _kernels(gains, ideal)
    assert g == (2 / math.log2(2 + 2 - 2) + 1 / math.log2(2 + 4 - 3)) / 4
    assert (g, ndcg_rel, rndcg) == (
        _c_g(gains, levels), _c_ndcg_rel(gains, levels), _c_rndcg(gains, levels))
