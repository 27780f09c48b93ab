"""Similarity choices, shared by the main retrieval stage and any task's second-level search."""
from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import Field

from touche.specs import Strict


class BM25(Strict):
    name: Literal["bm25"] = Field("bm25", description="Okapi BM25 (Lucene's, as Anserini uses it)")
    k1: float = Field(0.9, ge=0, le=10, description="term-frequency saturation")
    b: float = Field(0.4, ge=0, le=1, description="length normalisation")


class LMDirichlet(Strict):
    name: Literal["lmdirichlet"] = Field("lmdirichlet", description="query likelihood with Dirichlet smoothing")
    mu: float = Field(1000.0, gt=0, le=100000, description="Dirichlet prior")


Similarity = Annotated[Union[BM25, LMDirichlet], Field(discriminator="name")]


def bm25_unless_named(value: Any) -> Any:
    """``{k1: 1.2}`` without a name means BM25 (so ``--set retrieval.similarity.k1=1.2`` works on
    a variant that never named its similarity)."""
    if isinstance(value, dict) and "name" not in value:
        return {"name": "bm25", **value}
    return value
