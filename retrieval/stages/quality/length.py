"""``argument_quality``: a length prior for arguments.

Touché Task 1 winners found very short arguments rarely relevant; this stage re-scores the top
``depth`` hits of each topic by normalised retrieval score × short-argument penalty
+ length_weight × log(1 + words) / log(1 + max_words). Hits below keep their order.
"""
from __future__ import annotations

import math
from typing import Literal

from pydantic import Field

from touche.indexing.records import Argument
from touche.retrieval.search import Ranking
from touche.retrieval.stages.base import Stage, StageContext, place_below
from touche.specs.weights import Weight


def premise_words(raw: str | None) -> int:
    if raw is None:
        return 0
    return len(Argument.from_json(raw).premises_text.split())


class ArgumentQuality(Stage):
    """Touché Task 1 winners found very short arguments rarely relevant; this stage adds a
    length prior and penalises texts that look like non-arguments."""

    name: Literal["argument_quality"] = "argument_quality"
    depth: int = Field(100, ge=1, le=1000, description="re-rank this many top hits")
    min_words: int = Field(15, ge=0, description="premises shorter than this are penalised")
    short_penalty: float = Field(0.5, ge=0, le=1, description="score multiplier for too-short arguments")
    length_weight: Weight = Field(0.1, ge=0, le=10,
                                  description="weight of log(1 + words) added to the normalised score")
    max_words: int = Field(1000, ge=1, description="the length bonus stops growing here")

    def apply(self, ranking: Ranking, ctx: StageContext) -> Ranking:
        out: Ranking = {}
        for qid, hits in ranking.items():
            head, tail = hits[: self.depth], hits[self.depth:]
            if not head:
                out[qid] = []
                continue
            texts = ctx.searcher.raw([d for d, _ in head])
            top = max(s for _, s in head) or 1.0
            rescored = []
            for docid, score in head:
                words = premise_words(texts.get(docid))
                value = score / top
                if words < self.min_words:
                    value *= self.short_penalty
                value += self.length_weight * math.log1p(min(words, self.max_words)) / math.log1p(self.max_words)
                rescored.append((docid, value))
            rescored.sort(key=lambda h: (-h[1], h[0]))
            out[qid] = rescored + place_below(tail, rescored[-1][1])
        return out
