"""A variant's analyzer (the chain used alike at index and query time) and its index: the
``analyzer:`` and ``index:`` sections of the schema (``touche/config.py``)."""
from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, field_validator, model_validator

from touche.specs import Strict

# ---------------------------------------------------------------- analyzer
FILLER = "_"  # Lucene ShingleFilter's token where a stopword was: "should teachers get tenure" → [_ teachers]


class ShingleSpec(Strict):
    min_size: int = Field(2, ge=2, le=5, description="smallest word n-gram")
    max_size: int = Field(2, ge=2, le=5, description="largest word n-gram")
    keep_unigrams: bool = Field(True, description="also emit the single words")
    filler: str = Field(FILLER, max_length=10, description="the token Lucene puts in an n-gram where the stoplist "
                                                           "removed a word (\"should teachers get tenure\" with "
                                                           "smart: [_ teachers], [teachers _]); \"\" for none: n-grams "
                                                           "of the words that remain ([teachers tenure])")

    @model_validator(mode="after")
    def _order(self):
        if self.max_size < self.min_size:
            raise ValueError(f"max_size ({self.max_size}) must be >= min_size ({self.min_size})")
        if any(c in self.filler for c in "|=") or (self.filler and not self.filler.strip()) or \
                any(c.isspace() for c in self.filler):
            raise ValueError(f"filler {self.filler!r}: a word without spaces, '|' or '=', or \"\" for none")
        return self


class AnalyzerSpec(Strict):
    """The chain used identically at index and query time: tokenizer → possessive → lowercase
    → stoplist → stemmer → shingles."""

    tokenizer: Literal["standard", "classic", "whitespace", "letter"] = Field(
        "standard", description="Lucene tokenizer")
    possessive: bool = Field(True, description="strip English possessive 's (Lucene EnglishPossessiveFilter)")
    lowercase: bool = Field(True, description="lowercase tokens")
    ascii_folding: bool = Field(False, description="fold accents to ASCII (café → cafe)")
    stoplist: str = Field(
        "none", description="none | lucene (33 words) | snowball | smart | terrier | path to a file, one word per line"
    )
    stemmer: Literal["none", "krovetz", "porter"] = Field("none", description="krovetz (KStem) or porter")
    shingles: ShingleSpec | None = Field(None, description="word n-grams; null for none")


# ---------------------------------------------------------------- index
# Which fields exist depends on the corpus family (indexing/corpora.py checks them at run time).
FieldName = Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]*$")]


class IndexSpec(Strict):
    fields: tuple[FieldName, ...] = Field(
        ("contents",), description="text fields to index, as the corpus family names them "
                                   "(args.me: contents = conclusion + premises, conclusion, premises, title)")
    store_raw: bool = Field(True, description="store each record's JSON for re-ranking")
    positions: bool = Field(True, description="index term positions (needed for phrase queries)")
    docvectors: bool = Field(False, description="store term vectors (for feedback models)")
    threads: int = Field(2, ge=1, le=64, description="indexing threads")
    ram_buffer_mb: float = Field(512, ge=16, le=16384, description="IndexWriter RAM buffer")
    optimize: bool = Field(False, description="merge into one segment at the end")

    @field_validator("fields")
    @classmethod
    def _unique_fields(cls, value):
        if len(set(value)) != len(value) or not value:
            raise ValueError("fields must be a non-empty list without repeats")
        return value
