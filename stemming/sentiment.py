"""Sentiment, one VADER instance for every task (images and Task 2 stance)."""
from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=1)
def vader():
    """The VADER analyzer. Its lexicon ships inside the vaderSentiment package (nothing is
    downloaded); imported on first use because loading the lexicon takes a moment."""
    from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer
    return SentimentIntensityAnalyzer()


def compound(text: str) -> float:
    """VADER's compound score of a text, in [-1, 1]."""
    return vader().polarity_scores(text)["compound"]
