"""``dense``: the topic and each argument of the head under the MiniLM sentence encoder.

The cosine of the topic title and the argument (conclusion, then premises, cut at
``max_tokens`` word pieces) is a relevance signal that does not need the words to match
("Is vaping with e-cigarettes safe?" — "electronic cigarettes harm the lungs"). The stage
re-scores the top ``depth`` hits by retrieval score / best + ``weight`` × cosine. The encoder
is retrieval/encoders/dense.py (all-MiniLM-L6-v2 from the PyPI model package, run with numpy).
"""
from __future__ import annotations

from typing import Literal

from pydantic import Field

from touche.errors import ToucheError
from touche.indexing.records import Argument
from touche.retrieval.encoders import dense
from touche.retrieval.search import Ranking
from touche.retrieval.stages.base import Stage, StageContext, add_to_head
from touche.specs.weights import Weight


class DenseSimilarity(Stage):
    """Adds the sentence-encoder cosine of topic and argument to the head's scores."""

    name: Literal["dense"] = "dense"
    depth: int = Field(50, ge=1, le=1000, description="re-rank this many top hits (each is encoded once)")
    weight: Weight = Field(1.0, ge=-10, le=10, description="weight of the cosine added to retrieval score / best score")
    model: str = Field("all-MiniLM-L6-v2", description="packaged model name, or a folder in the sentence-transformers "
                                                       "layout (relative to the variant)")
    query: Literal["title", "title+description"] = Field("title", description="the topic text that is encoded")
    max_tokens: int = Field(256, ge=16, le=512, description="word pieces of each argument that are encoded")
    batch_size: int = Field(8, ge=1, le=256, description="texts encoded per forward pass (one pass per core at a time)")

    def apply(self, ranking: Ranking, ctx: StageContext) -> Ranking:
        try:
            folder = dense.resolve_model(self.model, ctx.variant_path.parent)
        except ToucheError as exc:
            raise ToucheError(exc.message, path=ctx.variant_path, where="rerank: dense.model") from None
        enc = dense.encoder(folder, self.max_tokens)
        head = {qid: [d for d, _ in hits[: self.depth]] for qid, hits in ranking.items()}
        raws = ctx.searcher.raw(list(dict.fromkeys(d for ids in head.values() for d in ids)))
        texts = {}
        for docid, raw in raws.items():
            if raw:
                argument = Argument.from_json(raw)
                texts[docid] = f"{argument.conclusion}. {argument.premises_text}"
        queries = {qid: (t.title if self.query == "title" else f"{t.title} {t.description}".strip())
                   for qid, t in ctx.topics.items() if qid in head}
        cosines = dense.similarities(enc, queries, head, texts, batch_size=self.batch_size, progress=ctx.progress)
        return add_to_head(ranking, self.depth, cosines, self.weight)
