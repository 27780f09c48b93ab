"""``dedup``: near-duplicate removal in the head of each ranking.

args.me repeats arguments: the same premise posted in several debates, a conclusion quoted back
by the opponent, one user's text pasted into every round. Touché's assessors judged each copy,
but a ranking that shows one text five times shows one argument. Of each cluster of near
duplicates in the top ``depth`` hits the best ranked one stays; the others move below the
head, in their order (deterministic: rank decides, ties by docid as the ranking had them).

Two arguments are near duplicates when their premises, lowercased and reduced to letters and
digits, are equal, or when the Jaccard overlap of their word ``shingle``-grams reaches
``threshold``.
"""
from __future__ import annotations

import re
from typing import Literal

from pydantic import Field

from touche.indexing.records import Argument
from touche.retrieval.search import Ranking
from touche.retrieval.stages.base import Stage, StageContext, place_below

_NON_WORD = re.compile(r"[^a-z0-9]+")


def signature_words(raw: str | None, part: str) -> list[str]:
    if not raw:
        return []
    argument = Argument.from_json(raw)
    text = {"premises": argument.premises_text, "conclusion": argument.conclusion,
            "both": f"{argument.conclusion} {argument.premises_text}"}[part]
    return [w for w in _NON_WORD.split(text.lower()) if w]


def shingles(words: list[str], n: int) -> frozenset[tuple[str, ...]]:
    if len(words) < n:
        return frozenset([tuple(words)]) if words else frozenset()
    return frozenset(tuple(words[i:i + n]) for i in range(len(words) - n + 1))


class NearDuplicates(Stage):
    """Keep the best ranked argument of each cluster of near duplicates in the head."""

    name: Literal["dedup"] = "dedup"
    depth: int = Field(100, ge=1, le=1000, description="look for duplicates among this many top hits")
    text: Literal["premises", "conclusion", "both"] = Field("premises", description="the text compared")
    shingle: int = Field(5, ge=1, le=20, description="word n-grams compared by Jaccard overlap")
    threshold: float = Field(0.8, gt=0, le=1, description="Jaccard overlap from which two texts are duplicates "
                                                           "(1: exact copies only)")

    def apply(self, ranking: Ranking, ctx: StageContext) -> Ranking:
        out: Ranking = {}
        for qid, hits in ranking.items():
            head, tail = hits[: self.depth], hits[self.depth:]
            raws = ctx.searcher.raw([d for d, _ in head])
            kept: list[tuple[str, float]] = []
            dropped: list[tuple[str, float]] = []
            seen_exact: set[str] = set()
            seen_shingles: list[frozenset] = []
            for docid, score in head:
                words = signature_words(raws.get(docid), self.text)
                exact = " ".join(words)
                grams = shingles(words, self.shingle)
                duplicate = bool(words) and (exact in seen_exact or any(
                    _jaccard(grams, other, self.threshold) >= self.threshold for other in seen_shingles))
                if duplicate:
                    dropped.append((docid, score))
                    continue
                kept.append((docid, score))
                if words:
                    seen_exact.add(exact)
                    seen_shingles.append(grams)
            rest = dropped + tail
            out[qid] = kept + (place_below(rest, kept[-1][1]) if kept and rest else rest)
        return out


def _jaccard(a: frozenset, b: frozenset, needed: float = 0.0) -> float:
    if not a or not b:
        return 0.0
    # Jaccard ≤ |small| / |large|: sizes alone rule most pairs out without intersecting
    small, large = (a, b) if len(a) <= len(b) else (b, a)
    if len(small) / len(large) < needed:
        return 0.0
    common = len(small & large)
    return common / (len(a) + len(b) - common)
