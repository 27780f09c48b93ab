"""Agreement of two rankings without judgements (retrieval/evaluation/agreement.py), against values
derived by hand (Webber et al.'s eq. 32 summed term by term; τ_AP's C(i) counted)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from touche.retrieval.evaluation.agreement import (
    AGREEMENT_MEASURES,
    Pair,
    agreement,
    jaccard,
    kendall_tau,
    pair_count,
    pair_index,
    rbo,
    shared_ranks,
    tau_ap,
    tau_ap_one_way,
)

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


def test_jaccard_and_rank_correlations_over_the_shared_documents_by_hand():
    assert jaccard(S, T, 5) == pytest.approx(4 / 6)
    x, y = shared_ranks(S, T, 5)  # a, b, c, e: both top 5s hold them (d and f one only)
    assert x.tolist() == [1, 2, 3, 5] and y.tolist() == [2, 1, 3, 4]
    # 6 pairs, 1 discordant (ab)
    assert kendall_tau(S, T, 5) == pytest.approx(5 / 6 - 1 / 6)
    # C(i)/(i-1) = 0, 2/2, 3/3 → 2/3 · 2 − 1, both ways
    assert tau_ap_one_way(x, y) == pytest.approx(1 / 3) and tau_ap_one_way(y, x) == pytest.approx(1 / 3)
    assert tau_ap(S, T, 5) == pytest.approx(1 / 3) == tau_ap(T, S, 5)


def test_rank_correlations_of_rankings_that_share_fewer_than_two_documents_are_undefined():
    """Over the union (the last round's definition) two disjoint top 10s read as anti-correlated
    (τ −0.69); what they share says nothing about order, and Jaccard@10 says how little they share."""
    disjoint = [f"x{i}" for i in range(10)], [f"y{i}" for i in range(10)]
    one = [f"x{i}" for i in range(10)], ["x3"] + [f"y{i}" for i in range(9)]
    for a, b in (disjoint, one):
        assert math.isnan(kendall_tau(a, b)) and math.isnan(tau_ap(a, b))
    assert jaccard(*disjoint, 10) == 0.0


def test_every_pair_once_with_means_over_shared_topics():
    rankings = {"x": {"1": S, "2": S}, "y": {"1": T, "2": S, "3": T}, "z": {"1": S}}
    found = agreement(rankings)
    assert found.measures == list(AGREEMENT_MEASURES) and found.means.shape == (3, 5)
    assert [found.value("x", "y", "RBO", t) for t in ("1", "2", "3")] == \
        [pytest.approx(0.750555, abs=1e-6), 1.0, None]  # topic 3 is not x's
    assert found.value("x", "y", "RBO") == pytest.approx((0.750555 + 1) / 2, abs=1e-6)
    assert found.value("z", "x", "RBO") == found.value("x", "z", "RBO") == 1.0
    assert pair_index(0, 2, 3) == pair_index(2, 0, 3) == 1 and pair_index(1, 2, 3) == 2
    with pytest.raises(ValueError, match="unknown agreement measure"):
        agreement(rankings, measures=["RBO", "nDCG"])


def test_kendall_tau_is_scipys_tau_b_over_the_shared_documents():
    from scipy import stats
    rng = __import__("numpy").random.default_rng(5)
    for _ in range(50):
        a = [f"d{i}" for i in rng.permutation(30)[:12]]
        b = [f"d{i}" for i in rng.permutation(30)[:rng.integers(3, 12)]]
        x, y = shared_ranks(a, b, 10)
        expected = stats.kendalltau(x, y).statistic if len(x) >= 2 else math.nan
        assert kendall_tau(a, b, 10) == pytest.approx(expected, abs=1e-12, nan_ok=True)


def test_every_pair_of_a_topic_at_once_equals_the_pair_functions():
    """The batch form (a page of 100 runs has 4,950 pairs a topic) against each pair's function,
    on lists of every length (empty, shorter than 10, uneven) and runs that lack a topic."""
    import numpy as np
    rng = np.random.default_rng(1)
    rankings = {f"r{r}": {str(t): [f"d{i}" for i in rng.permutation(60)[:int(rng.integers(0, 40))]]
                          for t in range(5)} for r in range(12)}
    del rankings["r3"]["2"]
    found = agreement(rankings)
    names = list(rankings)
    for t in map(str, range(5)):
        for i, first in enumerate(names):
            for second in names[i + 1:]:
                a, b = rankings[first].get(t), rankings[second].get(t)
                for name, function in AGREEMENT_MEASURES.items():
                    value = found.value(first, second, name, t)
                    expected = None if a is None or b is None else function(Pair(a, b))
                    if expected is None or math.isnan(expected):
                        assert value is None, (t, first, second, name)
                    else:
                        assert value == pytest.approx(expected, abs=1e-6), (t, first, second, name)


@pytest.mark.parametrize("p", [0.0, 1.0, -0.5, 1.5, math.nan])
def test_rbo_persistence_is_checked_one_way_at_every_door(p, tmp_path):
    """rbo and agreement raised a bare ValueError, the explorer a ToucheError of its own wording:
    one check (check_persistence) now, a user's error (exit 2) and a ValueError alike."""
    from touche.errors import ToucheError
    from touche.retrieval.evaluation.agreement import agreement, check_persistence
    from touche.retrieval.experiments.explorer.build import write_explorer
    run = tmp_path / "a.txt"
    run.write_text("1 Q0 d1 1 1 t\n")
    for door in (lambda: rbo(S, T, p), lambda: agreement({"a": {"1": S}, "b": {"1": T}}, p=p),
                 lambda: check_persistence(p), lambda: write_explorer([run], None, tmp_path / "p.html", rbo_p=p)):
        with pytest.raises(ToucheError, match=r"RBO's persistence p must lie strictly between 0 and 1") as raised:
            door()
        assert isinstance(raised.value, ValueError)
    assert not (tmp_path / "p.html").exists()


# --------------------------------------------------------------------------- agreement.py
def test_two_empty_rankings_agree_fully_and_pairs_are_counted():
    from touche.retrieval.evaluation.agreement import agreement, jaccard, pair_count
    found = agreement({"a": {"1": []}, "b": {"1": []}}, measures=["Jaccard@5"])
    assert found.value("a", "b", "Jaccard@5") == 1.0 == jaccard([], [], 5)
    assert [pair_count(n) for n in (1, 2, 4)] == [0, 1, 6]


def test_a_registered_agreement_measure_without_a_batch_form_runs_pair_by_pair(monkeypatch):
    from touche.retrieval.evaluation import agreement as module
    monkeypatch.setitem(module.AGREEMENT_MEASURES, "same top", lambda pair: float(pair.a[:1] == pair.b[:1]))
    found = module.agreement({"a": {"1": ["x", "y"]}, "b": {"1": ["x", "z"]}, "c": {"1": ["y"]}},
                             measures=["same top"])
    assert [found.value("a", "b", "same top"), found.value("a", "c", "same top")] == [1.0, 0.0]


@pytest.mark.parametrize("p", [0, 0.0, 1, 1.5, -0.2])
def test_rbo_persistence_outside_the_open_unit_interval_is_refused(p):
    with pytest.raises(ValueError, match="persistence p must lie strictly between 0 and 1"):
        rbo(["a", "b"], ["b", "a"], p)
    with pytest.raises(ValueError, match="persistence p must lie strictly between 0 and 1"):
        agreement({"x": {"1": ["a", "b"]}, "y": {"1": ["b", "a"]}}, p=p)


def test_tau_ap_of_fewer_than_two_items_is_undefined():
    value = tau_ap_one_way(np.array([1.0]), np.array([1.0]))
    assert isinstance(value, float) and math.isnan(value)


@pytest.mark.parametrize("n", [2, 3, 5])
def test_tau_ap_against_a_truth_that_ties_everything_is_zero(n):
    """A tied pair is neither ordered right nor wrong: half credit, so a truth of one tie says nothing."""
    assert tau_ap_one_way(np.arange(1.0, n + 1), np.ones(n)) == pytest.approx(0.0)


def test_tau_ap_with_one_tied_pair_by_hand():
    """Order 1, 2, 3 against truth ranks 1, 1, 2: C(2) = ½ (the tie), C(3) = 2;
    τ_AP = 2 / (n − 1) · (½ / 1 + 2 / 2) − 1 = 0.5."""
    assert tau_ap_one_way(np.array([1.0, 2.0, 3.0]), np.array([1.0, 1.0, 2.0])) == pytest.approx(0.5)
    assert tau_ap_one_way(np.array([1.0, 2.0, 3.0]), np.array([1.0, 2.0, 3.0])) == pytest.approx(1.0)
    assert tau_ap_one_way(np.array([1.0, 2.0, 3.0]), np.array([3.0, 2.0, 1.0])) == pytest.approx(-1.0)


def test_every_pairs_jaccard_is_the_one_pair_jaccard():
    """Lists longer and shorter than the cut, empty and disjoint: each pair's Jaccard@5 and @10
    on the page is ``jaccard`` of the two lists."""
    lists = {"long": [f"d{i}" for i in range(12)], "shifted": [f"d{i}" for i in range(3, 15)],
             "short": ["d4", "d1", "x"], "other": ["y1", "y2", "y3", "y4", "y5", "y6"], "one": ["d0"]}
    rankings = {run: {"1": docs} for run, docs in lists.items()}
    table = agreement(rankings, measures=["Jaccard@5", "Jaccard@10"])
    names = list(lists)
    for i, first in enumerate(names):
        for second in names[i + 1:]:
            for k in (5, 10):
                expected = round(jaccard(lists[first], lists[second], k), 6)
                assert table.value(first, second, f"Jaccard@{k}", "1") == expected, (first, second, k)


def test_values_are_given_to_six_decimals():
    a, b = ["a", "b", "c", "d", "e"], ["b", "a", "x", "d", "c"]
    exact = rbo(a, b, 0.87)
    assert round(exact, 6) != round(exact, 7)  # the example needs a seventh decimal
    table = agreement({"x": {"1": a}, "y": {"1": b}}, p=0.87, measures=["RBO"])
    assert table.value("x", "y", "RBO", "1") == round(exact, 6) == table.value("y", "x", "RBO")


def test_the_number_of_pairs_is_a_whole_number():
    """What the page's refusal prints (``4,950 pairs``, not ``4,950.0``)."""
    assert [pair_count(n) for n in (0, 1, 2, 3, 100)] == [0, 0, 1, 3, 4950]
    assert all(type(pair_count(n)) is int for n in (3, 100)) and f"{pair_count(100):,}" == "4,950"


def test_empty_rankings_agree_fully_with_each_other_and_not_at_all_with_a_ranking():
    """Two runs that return nothing for a topic agree fully (RBO and Jaccard 1, as the pair
    functions say); either against a run that ranks documents agrees not at all (0); the batch
    form of a page with all three gives the same."""
    assert rbo([], [], 0.9) == 1.0 == jaccard([], [], 5)
    assert rbo(["a"], [], 0.9) == 0.0 == rbo([], ["a"], 0.9) == jaccard([], ["a"], 10)
    table = agreement({"x": {"1": []}, "y": {"1": []}, "z": {"1": ["a", "b"]}},
                      measures=["RBO", "Jaccard@5", "Jaccard@10"])
    for measure in ("RBO", "Jaccard@5", "Jaccard@10"):
        assert table.value("x", "y", measure, "1") == 1.0, measure
        assert table.value("x", "z", measure, "1") == 0.0 == table.value("z", "y", measure, "1"), measure
