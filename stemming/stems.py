"""Python-side stemming for features (the index's stemming is Lucene's, in the analyzer chain).

- ``porter``: the Porter stemmer through PyStemmer (Snowball's C implementation, ~50x faster
  than nltk's pure-Python one on the hot path of Task 2's features, which stem every word of
  thousands of pages per topic).
- ``s_stem``: Harman's S-stemmer (1991), plurals only: enough for overlap features of sentence
  pairs, and predictable.
"""
from __future__ import annotations

from functools import lru_cache

import Stemmer


@lru_cache(maxsize=1)
def _porter_stemmer() -> Stemmer.Stemmer:
    return Stemmer.Stemmer("porter")


@lru_cache(maxsize=500_000)
def porter(word: str) -> str:
    """Porter stem of a lowercased word."""
    return _porter_stemmer().stemWord(word)


@lru_cache(maxsize=500_000)
def s_stem(word: str) -> str:
    """Harman's S-stemmer (1991): folds plurals only."""
    if len(word) > 3 and word.endswith("ies") and not word.endswith(("eies", "aies")):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("es") and not word.endswith(("aes", "ees", "oes")):
        return word[:-1]
    if len(word) > 2 and word.endswith("s") and not word.endswith(("us", "ss")):
        return word[:-1]
    return word
