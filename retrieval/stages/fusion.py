"""``rrf``: reciprocal-rank fusion (Cormack et al., 2009) of this variant's ranking with others'.

Ours rather than pyserini's ``reciprocal_rank_fusion``: that one works on TrecRun files through
pandas; here rankings are in memory and ties must break by docid for reproducible runs.
"""
from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Literal, Sequence

from pydantic import Field, model_validator

from touche.retrieval.search import Ranking
from touche.retrieval.stages.base import Stage, StageContext
from touche.specs.weights import RRF_MAX_K, FusionWeights


def reciprocal_rank_fusion(rankings: Sequence[Ranking], k: int = 60, depth: int = 1000,
                           weights: Sequence[float] | None = None) -> Ranking:
    """Σ w / (k + rank) over the rankings (``weights``: one each, default 1)."""
    weights = list(weights) if weights is not None else [1.0] * len(rankings)
    topics = sorted({qid for r in rankings for qid in r})
    fused: Ranking = {}
    for qid in topics:
        scores: dict[str, float] = defaultdict(float)
        for ranking, weight in zip(rankings, weights):
            for rank, (docid, _) in enumerate(ranking.get(qid, [])[:depth], start=1):
                scores[docid] += weight / (k + rank)
        fused[qid] = sorted(scores.items(), key=lambda h: (-h[1], h[0]))[:depth]
    return fused


class ReciprocalRankFusion(Stage):
    """Reciprocal-rank fusion of this variant's ranking with other variants' rankings."""

    name: Literal["rrf"] = "rrf"
    variants: tuple[str, ...] = Field(..., min_length=1, description="other variant files (relative to this one)")
    k: int = Field(60, ge=1, le=RRF_MAX_K, description="RRF constant: score = Σ 1 / (k + rank); at most "
                                                        f"{RRF_MAX_K:,}, where consecutive ranks still get scores a "
                                                        "32-bit score tells apart")
    include_self: bool = Field(True, description="fuse this variant's own ranking too")
    weights: FusionWeights | None = Field(None, description="one weight per fused ranking, this variant's "
                                                                "first (with include_self), then each of variants: "
                                                                "score = Σ weight / (k + rank); default 1 each")

    @model_validator(mode="after")
    def _one_weight_each(self):
        if self.weights is not None:
            wanted = len(self.variants) + (1 if self.include_self else 0)
            if len(self.weights) != wanted:
                raise ValueError(f"weights: {len(self.weights)} given for {wanted} fused ranking(s)")
            if any(not 0 <= w <= 1000 for w in self.weights):
                raise ValueError("weights: each within 0…1000")
        return self

    def fused_variants(self, variant_dir: Path) -> tuple[Path, ...]:
        return tuple(variant_dir / other for other in self.variants)

    def apply(self, ranking: Ranking, ctx: StageContext) -> Ranking:
        others = [ctx.run_variant(path) for path in self.fused_variants(ctx.variant_path.parent)]
        return reciprocal_rank_fusion(([ranking] if self.include_self else []) + others, k=self.k, depth=ctx.top_k,
                                      weights=self.weights)
