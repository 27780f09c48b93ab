"""Re-ranking stages over a first-stage ``Ranking``.

Each stage re-scores the top ``depth`` hits of each topic; the hits below keep their order and
are placed after the re-ranked ones, so scores stay strictly consistent with the ranking.
"""
from __future__ import annotations

import math
from typing import Callable, Mapping

from indexing.records import Argument
from retrieval.search import Ranking
from touche.config import ArgumentQualitySpec

RawLookup = Callable[[list[str]], Mapping[str, str | None]]


def premise_words(raw: str | None) -> int:
    if raw is None:
        return 0
    return len(Argument.from_json(raw).premises_text.split())


def argument_quality(ranking: Ranking, spec: ArgumentQualitySpec, raw: RawLookup) -> Ranking:
    """Length prior for arguments: normalised retrieval score × short-argument penalty
    + length_weight × log(1 + words) / log(1 + max_words)."""
    out: Ranking = {}
    for qid, hits in ranking.items():
        head, tail = hits[: spec.depth], hits[spec.depth:]
        if not head:
            out[qid] = []
            continue
        texts = raw([d for d, _ in head])
        top = max(s for _, s in head) or 1.0
        rescored = []
        for docid, score in head:
            words = premise_words(texts.get(docid))
            value = score / top
            if words < spec.min_words:
                value *= spec.short_penalty
            value += spec.length_weight * math.log1p(min(words, spec.max_words)) / math.log1p(spec.max_words)
            rescored.append((docid, value))
        rescored.sort(key=lambda h: (-h[1], h[0]))
        out[qid] = rescored + place_below(tail, rescored[-1][1])
    return out


def place_below(hits: list[tuple[str, float]], floor: float) -> list[tuple[str, float]]:
    """Scores for ``hits`` strictly below ``floor`` that keep their relative order."""
    if not hits:
        return []
    best = max(s for _, s in hits)
    scale = best if best > 0 else 1.0
    return [(d, floor - 1e-6 - (1.0 - s / scale)) for d, s in hits]
