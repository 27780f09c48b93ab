"""Python-side words, one module for every task (Lucene analyzers do the indexing; these serve
features, pairing and stance, where Python looks at texts itself).

Two tokenisers, because two kinds of text need them:
- ``words``: lowercase letters and digits with an inner apostrophe (``don't``, typographic ’
  folded to '); prose (arguments, sentences, captions, OCR).
- ``technical_words``: also keeps ``+ # . -`` inside a word (``c++``, ``c#``, ``node.js``,
  ``e-mail``), as comparative questions name such objects; trailing dots and quotes are cut.
``punctuated_tokens`` adds the punctuation that bounds phrases (object extraction), and
``query_words`` keeps case for query rewriting.
"""
from __future__ import annotations

import re

_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_TECHNICAL_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'+#.-]*[A-Za-z0-9+#]|[A-Za-z0-9]")
_PUNCTUATED = re.compile(r"[A-Za-z0-9][A-Za-z0-9'+#.-]*[A-Za-z0-9+#']|[A-Za-z0-9]|[,:?;()]")
_QUERY_WORD = re.compile(r"\w[\w'-]*")


def words(text: str) -> list[str]:
    """Lowercased words of prose."""
    return _WORD.findall(text.lower().replace("’", "'"))


def technical_words(text: str) -> list[str]:
    """Lowercased words that may hold ``+ # . -`` (``c++``, ``node.js``)."""
    return [w.lower().strip(".'") for w in _TECHNICAL_WORD.findall(text)]


def has_technical_word(text: str) -> bool:
    return _TECHNICAL_WORD.search(text) is not None


def punctuated_tokens(text: str) -> list[str]:
    """Lowercased technical words and the punctuation marks ``, : ? ; ( )`` between them."""
    return [t.lower() for t in _PUNCTUATED.findall(text)]


def query_words(text: str) -> list[str]:
    """Words of a query as written (case kept), for dropping question or stance words."""
    return _QUERY_WORD.findall(text)


def has_query_word(text: str) -> bool:
    return _QUERY_WORD.search(text) is not None


def iter_technical_words(text: str):
    """``technical_words`` as regex matches, with positions and case (one pass over a page)."""
    return _TECHNICAL_WORD.finditer(text)
