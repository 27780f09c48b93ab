"""Stoplists read one way, in Python as Lucene reads them (StopFilterFactory, format wordset):
one word per line, blank lines and ``#`` comment lines skipped. The SMART file opens with a
licence header; splitting the whole file on whitespace once made its ~90 header words
(``text``, ``research``, ``retrieval`` …) stopwords of Task 2."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

STOPLIST_DIR = Path(__file__).resolve().parent / "stoplists"


def read_stoplist(path: str | Path) -> frozenset[str]:
    """The words of a stoplist file, lowercased."""
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    return frozenset(w.strip().lower() for w in lines if w.strip() and not w.lstrip().startswith("#"))


@lru_cache(maxsize=None)
def shipped(name: str) -> frozenset[str]:
    """One of the lists shipped in stemming/stoplists (``smart``, ``terrier``)."""
    return read_stoplist(STOPLIST_DIR / f"{name}.txt")
