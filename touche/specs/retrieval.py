"""How a variant queries its index: the ``query:`` and ``retrieval:`` sections of the schema
(``touche/config.py``)."""
from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from touche.specs import Strict
from touche.specs.similarity import BM25, Similarity, bm25_unless_named
from touche.specs.weights import FieldWeights


# ---------------------------------------------------------------- query and retrieval
class QuerySpec(Strict):
    text: Literal["title", "title+description"] = Field("title", description="which topic parts form the query")
    field_weights: FieldWeights = Field({"contents": 1.0}, description="field → weight; fields must be indexed")
    drop_question_words: bool = Field(
        False, description="drop interrogative scaffolding (should, is, do, …) before analysis")
    stance_neutral: bool = Field(
        False, description="drop stance-bearing verbs (ban, allow, legalize, …) so pro and con match alike")

    @field_validator("field_weights")
    @classmethod
    def _weights(cls, value):
        for name, weight in value.items():
            if not 0 < weight <= 100:
                raise ValueError(f"weight of '{name}' must be in (0, 100], got {weight}")
        if not value:
            raise ValueError("at least one field needs a weight")
        return value


class RetrievalSpec(Strict):
    similarity: Similarity = Field(default_factory=BM25)
    top_k: int = Field(1000, ge=1, le=1000, description="hits per topic (Touché allows at most 1,000)")
    threads: int = Field(2, ge=1, le=64, description="topics searched in parallel")

    _bm25_unless_named = field_validator("similarity", mode="before")(bm25_unless_named)
