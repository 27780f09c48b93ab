"""Reciprocal rank fusion (the ``rrf`` stage, retrieval/stages/fusion.py): the order of documents
whose fused scores tie, and the weights' count and range at their edges."""
from __future__ import annotations

import pytest
from pydantic import ValidationError

from touche.retrieval.stages.fusion import ReciprocalRankFusion, reciprocal_rank_fusion


def test_documents_with_equal_fused_scores_are_ordered_by_id():
    """Two rankings that put a and b at ranks 1 and 2 in opposite orders give both the same score:
    the fused run lists them by document id, whatever the input order, so it is reproducible."""
    one = {"1": [("b", 9.0), ("a", 8.0)]}
    other = {"1": [("a", 7.0), ("b", 6.0)]}
    fused = reciprocal_rank_fusion([one, other], k=60)["1"]
    assert [doc for doc, _ in fused] == ["a", "b"] and fused[0][1] == fused[1][1] == pytest.approx(1 / 61 + 1 / 62)
    assert reciprocal_rank_fusion([other, one], k=60)["1"] == fused


def test_by_default_a_rank_r_adds_1_over_60_plus_r_and_1000_documents_are_kept():
    """Cormack et al.'s constant, and a run's depth: a fused run is a valid run of 1,000 a topic."""
    long = {"1": [(f"d{i:04d}", 2000.0 - i) for i in range(1001)]}
    fused = reciprocal_rank_fusion([long])["1"]
    assert (
        len(fused) == 1000 and fused[0] == ("d0000", pytest.approx(1 / 61)) and fused[-1][1] == pytest.approx(1 / 1060)
    )


def test_without_its_own_ranking_a_variant_gives_one_weight_per_other_variant():
    stage = ReciprocalRankFusion(variants=("a.yaml", "b.yaml"), include_self=False, weights=(1.0, 0.5))
    assert stage.weights == (1.0, 0.5)
    with pytest.raises(ValidationError, match=r"weights: 3 given for 2 fused ranking\(s\)"):
        ReciprocalRankFusion(variants=("a.yaml", "b.yaml"), include_self=False, weights=(1.0, 0.5, 2.0))
    with pytest.raises(ValidationError, match=r"weights: 2 given for 3 fused ranking\(s\)"):
        ReciprocalRankFusion(variants=("a.yaml", "b.yaml"), weights=(1.0, 0.5))


@pytest.mark.parametrize("weight, allowed", [(0.0, True), (1000.0, True), (-0.001, False), (1000.001, False)])
def test_a_weight_is_within_0_and_1000_both_included(weight, allowed):
    """0 switches a ranking off; 1000 is the largest weight a run may give one ranking."""
    if allowed:
        assert ReciprocalRankFusion(variants=("a.yaml",), weights=(1.0, weight)).weights == (1.0, weight)
    else:
        with pytest.raises(ValidationError, match="weights: each within 0…1000"):
            ReciprocalRankFusion(variants=("a.yaml",), weights=(1.0, weight))
