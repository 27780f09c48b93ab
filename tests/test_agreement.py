"""Agreement of two rankings without judgements (retrieval/evaluation/agreement.py), against values
derived by hand (Webber et al.'s eq. 32 summed term by term; τ_AP's C(i) counted)."""
from __future__ import annotations

import math

import pytest

from touche.retrieval.evaluation.agreement import (AGREEMENT_MEASURES, agreement, jaccard, kendall_tau, pair_key,
                                                   rbo, tau_ap, tau_ap_one_way, union_ranks)

S, T = list("abcde"), list("bacef")


def test_rbo_by_hand():
    # X_d = 0,2,3,3,4; (1-p)/p Σ X_d/d p^d = (0.81 + 0.729 + 0.492075 + 0.472392) / 9; + 0.8 · 0.9^5
    assert rbo(S, T, 0.9) == pytest.approx(0.750555, abs=1e-6)
    assert rbo(S, T, 0.5) == pytest.approx(151 / 320, abs=1e-9)
    # uneven lists: s = 3, l = 5, X = 1,1,2,2,3, X_s = 2 (eq. 32's second sum and tail)
    assert rbo(list("abc"), list("axbyc"), 0.9) == pytest.approx(0.816220, abs=1e-6)
    assert rbo(list("axbyc"), list("abc"), 0.9) == rbo(list("abc"), list("axbyc"), 0.9)
    assert rbo(S, S) == pytest.approx(1.0) and rbo(S, list("vwxyz")) == 0.0
    assert rbo([], []) == 1.0 and rbo(S, []) == 0.0
    with pytest.raises(ValueError, match="persistence"):
        rbo(S, T, 1.0)


def test_jaccard_and_rank_correlations_over_the_union_by_hand():
    assert jaccard(S, T, 5) == pytest.approx(4 / 6)
    union, x, y = union_ranks(S, T, 5)
    assert union == list("abcdef") and x.tolist() == [1, 2, 3, 4, 5, 6] and y.tolist() == [2, 1, 3, 6, 4, 5]
    # 15 pairs, 3 discordant (ab, de, df), no ties
    assert kendall_tau(S, T, 5) == pytest.approx(12 / 15 - 3 / 15)
    # C(i)/(i-1) = 0, 2/2, 3/3, 3/4, 4/5 → 2/5 · 3.55 − 1; the other way 0, 1, 1, 1, 3/5 → 0.44
    assert tau_ap_one_way(x, y) == pytest.approx(0.42) and tau_ap_one_way(y, x) == pytest.approx(0.44)
    assert tau_ap(S, T, 5) == pytest.approx(0.43) == tau_ap(T, S, 5)
    assert math.isnan(kendall_tau(["a"], ["a"], 5))


def test_every_pair_once_with_means_over_shared_topics():
    rankings = {"x": {"1": S, "2": S}, "y": {"1": T, "2": S, "3": T}, "z": {"1": S}}
    found = agreement(rankings)
    assert list(found.per_topic) == [("x", "y"), ("x", "z"), ("y", "z")]
    assert found.measures == list(AGREEMENT_MEASURES)
    rbo_x_y = [v[0] for v in found.per_topic["x", "y"].values()]
    assert rbo_x_y == [pytest.approx(0.750555, abs=1e-6), 1.0]  # topic 3 is not x's
    assert found.means["x", "y"][0] == pytest.approx((0.750555 + 1) / 2, abs=1e-6)
    assert pair_key(list(rankings), "z", "x") == pair_key(list(rankings), "x", "z") == "0|2"
    with pytest.raises(ValueError, match="unknown agreement measure"):
        agreement(rankings, measures=["RBO", "nDCG"])


def test_kendall_tau_is_scipys_tau_b_with_ties():
    from scipy import stats
    rng = __import__("numpy").random.default_rng(5)
    for _ in range(50):
        a = [f"d{i}" for i in rng.permutation(30)[:12]]
        b = [f"d{i}" for i in rng.permutation(30)[:rng.integers(3, 12)]]
        _, x, y = union_ranks(a, b, 10)  # documents missing from a list tie after it
        assert kendall_tau(a, b, 10) == pytest.approx(stats.kendalltau(x, y).statistic, abs=1e-12)
