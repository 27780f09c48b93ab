"""``rm3``: pseudo-relevance feedback (RM3, Lavrenko & Croft 2001; Abdul-Jaleel et al. 2004).

The top ``fb_docs`` arguments of the first ranking are taken as relevant: each term's
relevance-model weight is Σ_d P(t|d) · P(d|q) (P(d|q) ∝ the retrieval score), the
``fb_terms`` heaviest terms (no stopwords, no numbers) form the expansion, interpolated with
the original query by ``original_weight``, and the topics are searched again with the same
analyzer, fields and similarity. In Python over the stored raw arguments (the index keeps no
term vectors by default); our searcher weighs a query term by its count, so weights become
counts at a resolution of ``resolution`` repetitions.
"""
from __future__ import annotations

from collections import Counter
from typing import Literal

from pydantic import Field

from touche.indexing.records import Argument
from touche.retrieval.search import Ranking
from touche.retrieval.stages.base import Stage, StageContext
from touche.specs.weights import Weight
from touche.stemming.stoplists import shipped
from touche.stemming.words import words


class RM3(Stage):
    """Expands each topic's query with terms of its top arguments and searches again."""

    name: Literal["rm3"] = "rm3"
    fb_docs: int = Field(10, ge=1, le=100, description="feedback arguments (top of the first ranking)")
    fb_terms: int = Field(10, ge=1, le=100, description="expansion terms")
    original_weight: Weight = Field(0.5, ge=0, le=1, description="share of the original query in the new one")
    resolution: int = Field(20, ge=2, le=100, description="repetitions that stand for the whole query weight")

    def apply(self, ranking: Ranking, ctx: StageContext) -> Ranking:
        stop = shipped("smart")
        expanded: dict[str, str] = {}
        for qid, hits in ranking.items():
            top = hits[: self.fb_docs]
            raws = ctx.searcher.raw([d for d, _ in top])
            total_score = sum(max(s, 0.0) for _, s in top) or 1.0
            model: Counter = Counter()  # term → its weight, a float (most_common orders them)
            for docid, score in top:
                raw = raws.get(docid)
                if not raw:
                    continue
                argument = Argument.from_json(raw)
                tokens = [t for t in words(f"{argument.conclusion} {argument.premises_text}")
                          if t not in stop and not t.isdigit() and len(t) > 2]
                if not tokens:
                    continue
                counts = Counter(tokens)
                for term, count in counts.items():
                    model[term] += (count / len(tokens)) * (max(score, 0.0) / total_score)  # type: ignore[assignment]
            query = ctx.queries[qid]
            if not model:
                expanded[qid] = query
                continue
            best = model.most_common(self.fb_terms)
            mass = sum(w for _, w in best) or 1.0
            original = max(1, round(self.resolution * self.original_weight))
            parts = [query] * original
            for term, weight in best:
                repeats = round(self.resolution * (1 - self.original_weight) * weight / mass)
                parts += [term] * repeats
            expanded[qid] = " ".join(parts)
        return ctx.search(expanded)
