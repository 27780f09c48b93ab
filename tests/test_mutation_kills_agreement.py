"""How two rankings agree without qrels (touche.retrieval.evaluation.agreement): RBO's persistence
must lie strictly between 0 and 1, τ_AP is undefined below two items and gives a tied pair half
credit, the batched Jaccard of every pair is the one-pair Jaccard, a page's pair count is a whole
number and its values are given to six decimals. The mutation run (python -m bench.mutation,
docs/testing.md) found these untested."""
from __future__ import annotations

import math

import numpy as np
import pytest

from touche.retrieval.evaluation.agreement import agreement, jaccard, pair_count, rbo, tau_ap_one_way


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
