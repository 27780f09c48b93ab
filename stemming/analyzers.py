"""Analyzer specs → real Lucene analyzers (CustomAnalyzer factories), one chain for index and query.

The order is fixed and follows Anserini's English analyzer: tokenizer → possessive → lowercase
→ ASCII folding → stoplist → stemmer → shingles. Stopping before stemming matches the lists,
which hold surface forms; shingles come last so they join stemmed words.
"""
from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

from touche import jvm
from touche.config import FILLER, AnalyzerSpec
from touche.errors import ConfigError

STOPLIST_DIR = Path(__file__).resolve().parent / "stoplists"
# Named lists: ours ship in stemming/stoplists; Lucene's Snowball list is read from the jar.
NAMED_STOPLISTS = {
    "smart": ("smart.txt", "wordset"),
    "terrier": ("terrier.txt", "wordset"),
    "snowball": ("org/apache/lucene/analysis/snowball/english_stop.txt", "snowball"),
}
_TOKENIZERS = {"standard": "standard", "classic": "classic", "whitespace": "whitespace", "letter": "letter"}
_STEMMERS = {"krovetz": "kStem", "porter": "porterStem"}


def stoplist_path(stoplist: str, base_dir: Path | None = None) -> Path | None:
    """The file a stoplist given as a path names (relative to the variant's folder), or None for
    none and the named lists."""
    if stoplist in ("none", "lucene") or stoplist in NAMED_STOPLISTS:
        return None
    path = Path(stoplist)
    if not path.is_absolute() and base_dir is not None:
        path = base_dir / path
    return path


def stoplist_filter(stoplist: str, base_dir: Path | None = None) -> str | None:
    """The Lucene stop-filter spec for a stoplist name or file, or None for no stopping."""
    if stoplist == "none":
        return None
    if stoplist == "lucene":
        return "stop|ignoreCase=true"  # StopFilterFactory's default = EnglishAnalyzer's 33 words
    if stoplist in NAMED_STOPLISTS:
        resource, fmt = NAMED_STOPLISTS[stoplist]
        return f"stop|ignoreCase=true|words={resource}|format={fmt}"
    path = stoplist_path(stoplist, base_dir)
    assert path is not None  # a file: the named lists were handled above
    if not path.is_file():
        raise ConfigError(f"analyzer.stoplist: '{stoplist}' is neither a known list "
                          f"(none, lucene, snowball, smart, terrier) nor a file")
    _check_utf8(path)
    resolved = str(path.resolve())
    if any(c in resolved for c in "|=,"):  # the separators of the filter spec handed to Lucene
        raise ConfigError(f"analyzer.stoplist: the path {resolved!r} holds '|', '=' or ',', which Lucene's "
                          "analyzer factory cannot read in a file name; move or rename the file")
    return f"stop|ignoreCase=true|words={resolved}|format=wordset"


def _check_utf8(path: Path) -> None:
    """Lucene reads a word list as UTF-8 and throws MalformedInputException (no file, no place)
    on anything else: read it here first and say where it breaks."""
    try:
        path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        line = exc.object[:exc.start].count(b"\n") + 1
        raise ConfigError(f"analyzer.stoplist: not UTF-8 text: byte 0x{exc.object[exc.start]:02x} at offset "
                          f"{exc.start} cannot be decoded ({exc.reason}); save the list as UTF-8",
                          path=path, where=f"line {line}") from None
    except OSError as exc:
        raise ConfigError(f"analyzer.stoplist: cannot read the file ({exc.strerror})", path=path) from None


def files_read(spec: AnalyzerSpec, base_dir: Path | None = None) -> list[Path]:
    """The files of ours the chain reads (a stoplist given as a path), resolved as the chain
    resolves them: what an index must be keyed by, besides the spec as written."""
    path = stoplist_path(spec.stoplist, base_dir)
    return [] if path is None else [path.resolve()]


def content_key(spec: AnalyzerSpec, base_dir: Path | None = None) -> str:
    """Digest of the contents of every file the chain reads ("" when it reads none): two
    variants whose stoplist.txt differ, or one whose file was edited, get different indexes."""
    files = files_read(spec, base_dir)
    if not files:
        return ""
    digest = hashlib.sha256()
    for path in files:
        try:
            digest.update(path.read_bytes())
        except OSError as exc:
            raise ConfigError(f"analyzer.stoplist: cannot read '{spec.stoplist}' ({exc.strerror})", path=path) from None
        digest.update(b"\0")
    return digest.hexdigest()[:16]


def filter_chain(spec: AnalyzerSpec, base_dir: Path | None = None) -> tuple[str, list[str]]:
    """(tokenizer, token filters) in the string form the Java side takes: ``name|key=value``."""
    filters: list[str] = []
    if spec.possessive:
        filters.append("englishPossessive")
    if spec.lowercase:
        filters.append("lowercase")
    if spec.ascii_folding:
        filters.append("asciiFolding")
    stop = stoplist_filter(spec.stoplist, base_dir)
    if stop:
        filters.append(stop)
    if spec.stemmer != "none":
        filters.append(_STEMMERS[spec.stemmer])
    if spec.shingles is not None:
        s = spec.shingles
        if s.filler == "":  # no filler: close the stop filter's gaps, so n-grams join the words that remain
            filters.append("closeGaps")
        filters.append(f"shingle|minShingleSize={s.min_size}|maxShingleSize={s.max_size}"
                       f"|outputUnigrams={'true' if s.keep_unigrams else 'false'}"
                       + (f"|fillerToken={s.filler}" if s.filler not in ("", FILLER) else ""))
    return _TOKENIZERS[spec.tokenizer], filters


def build(spec: AnalyzerSpec, base_dir: Path | None = None):
    """A Lucene ``Analyzer`` for the spec (cached per spec: building one parses stoplists)."""
    tokenizer, filters = filter_chain(spec, base_dir)
    return _build_cached(tokenizer, tuple(filters))


@lru_cache(maxsize=32)
def _build_cached(tokenizer: str, filters: tuple[str, ...]):
    analyzers = jvm.autoclass("touche.lucene.Analyzers")
    return analyzers.build(str(STOPLIST_DIR), tokenizer, list(filters))


def tokens(spec: AnalyzerSpec, text: str, field: str = "contents", base_dir: Path | None = None) -> list[str]:
    """The exact tokens the chain produces for ``text`` (what the index and the query see);
    ``base_dir``: the variant file's folder, against which a relative stoplist path resolves."""
    analyzers = jvm.autoclass("touche.lucene.Analyzers")
    return list(analyzers.tokens(build(spec, base_dir), field, text))
