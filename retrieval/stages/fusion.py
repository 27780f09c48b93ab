"""Reciprocal-rank fusion (Cormack et al., 2009) of several rankings.

Ours rather than pyserini's ``reciprocal_rank_fusion``: that one works on TrecRun files through
pandas; here rankings are in memory and ties must break by docid for reproducible runs.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Sequence

from retrieval.search import Ranking


def reciprocal_rank_fusion(rankings: Sequence[Ranking], k: int = 60, depth: int = 1000) -> Ranking:
    topics = sorted({qid for r in rankings for qid in r})
    fused: Ranking = {}
    for qid in topics:
        scores: dict[str, float] = defaultdict(float)
        for ranking in rankings:
            for rank, (docid, _) in enumerate(ranking.get(qid, [])[:depth], start=1):
                scores[docid] += 1.0 / (k + rank)
        fused[qid] = sorted(scores.items(), key=lambda h: (-h[1], h[0]))[:depth]
    return fused
