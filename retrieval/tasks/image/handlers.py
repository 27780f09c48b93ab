"""Image retrieval (Touché 2022/2023): 10 PRO and 10 CON images per topic from a text ranking.

The first stage is ordinary Lucene retrieval over the images' text fields (page text, text
near the image in the DOM, alt text, OCR text, crawl queries; ``indexing/images.py``). Then,
per topic (``rows``):

1. the first ``image.candidates`` hits are read back (their stored JSON);
2. near-duplicates are collapsed: images with the same perceptual hash (or within
   ``duplicates.max_distance`` bits) keep only their best-scored copy;
3. every image gets an argumentativeness score (``argumentativeness``) and a stance score
   toward the topic (``stance_score``), both from the text around and inside it;
4. ``select`` splits them into 10 PRO and 10 CON images, each image on one side only.

A topic whose hits hold fewer than 20 distinct images (a tiny collection: the 50-image
sample, our demo) is filled from the rest of the collection, most argumentative first, with
scores below every retrieved image (see ``ImageSpec``). If even the whole collection has
fewer than 20 images, no valid run exists (the IMAGE run format demands exactly 10 per topic
and stance) and the run fails saying so.
"""
from __future__ import annotations

import functools
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Mapping

from touche.errors import ToucheError
from touche.indexing.images import collection_root, image_dirs
from touche.retrieval.formats.runfile import ARGUMENT_STANCES, RunFormat
from touche.retrieval.formats.topics import Topic
from touche.retrieval.search import Ranking, Searcher
from touche.retrieval.tasks import Rows, TaskContext, TaskHandler
from touche.specs.image import ArgumentSpec, ImageSpec, StanceSpec
from touche.stemming.sentiment import compound
from touche.stemming.words import words

__all__ = ["HANDLER", "ImageFeatures", "Candidate", "Choice", "hamming", "collapse_duplicates", "argumentativeness",
           "stance_score", "select", "topic_terms", "term_key", "PER_STANCE", "StanceEvidence"]

PER_STANCE = 10
STANCES = ARGUMENT_STANCES
_NUMBER = re.compile(r"\d[\d.,]*")
_SEGMENT = re.compile(r"(?<=[.!?])\s+|\n+")
# Words that never make a topic term (the question's scaffolding and function words).
_NOT_TOPIC_TERMS = frozenset("""
should shall is are was were be being been do does did can could would will must may might has have had which what
who whom whose why how when where whether we you our us i it its the a an of to in on for and or by with at as from
that this these those there their they them than then so such not no any all more most less other into about over
""".split())
_MAX_SEGMENTS = 40  # sentences per text scored by VADER: enough for a caption or a slide, bounded for papers


# ---------------------------------------------------------------------------- sentiment
@functools.lru_cache(maxsize=65536)
def sentiment(text: str) -> float:
    """Mean VADER compound score of the text's sentences (VADER is made for short texts; a long
    text's single compound saturates at ±1). 0 for text without words."""
    segments = [s for s in _SEGMENT.split(text) if len(s.split()) >= 2][:_MAX_SEGMENTS]
    if not segments:
        return 0.0
    return sum(compound(s) for s in segments) / len(segments)


def tokens(text: str) -> list[str]:
    return words(text)


def term_key(word: str) -> str:
    # A 5-letter prefix: lowered/lowering/lower and networks/networking meet; cheap and
    # predictable for matching topic terms in noisy OCR and DOM text.
    return word[:5]


def topic_terms(title: str) -> frozenset[str]:
    """The title's content words (as 5-letter prefixes), for topic-specific cues."""
    return frozenset(term_key(w) for w in tokens(title) if w not in _NOT_TOPIC_TERMS and len(w) > 2)


# ---------------------------------------------------------------------------- per image
@dataclass(frozen=True)
class ImageFeatures:
    """What the stored record of an image says, read once per image."""

    id: str
    phash: str
    texts: Mapping[str, str]
    rankings: tuple[tuple[str, int], ...] = ()  # (topic, rank) of the crawl
    path: str = ""

    @classmethod
    def from_raw(cls, image_id: str, raw: str | None) -> "ImageFeatures":
        if raw is None:
            raise ToucheError(f"image {image_id} has no stored record in the index (index.store_raw must be true "
                              "for image runs)")
        data = json.loads(raw)
        texts = {k: str(data.get(k) or "") for k in ("page_title", "near_text", "alt_text", "ocr_text", "url_text")}
        rankings = tuple((str(r.get("topic", "")), int(r.get("rank", 0) or 0)) for r in data.get("rankings", []))
        return cls(image_id, str(data.get("phash", "")), texts, rankings, str(data.get("path", "")))

    def crawl_prior(self, topic: str) -> float:
        """1 / (1 + log2 rank) of the best crawl rank for this topic number, else 0."""
        ranks = [rank for t, rank in self.rankings if t == topic and rank > 0]
        return 1.0 / (1.0 + math.log2(min(ranks))) if ranks else 0.0


def argumentativeness(features: ImageFeatures, spec: ArgumentSpec) -> float:
    """Weighted mean of text amount, chart cues, emotion and argument words, in [0, 1]."""
    ocr_text = features.texts.get("ocr_text", "")
    ocr_tokens = tokens(ocr_text)
    own = " ".join(features.texts.get(f, "") for f in spec.text_fields)
    own_tokens = tokens(own)
    text_signal = min(1.0, len(ocr_tokens) / spec.text_words)
    chart_hits = sum(1 for t in ocr_tokens + tokens(features.texts.get("alt_text", "")) if t in spec.chart_words)
    numbers = len(_NUMBER.findall(ocr_text))
    chart_signal = min(1.0, 0.34 * chart_hits + 0.34 * min(1, ocr_text.count("%")) + 0.05 * numbers)
    emotion_signal = min(1.0, abs(sentiment(own)) * 1.5)
    cue_signal = min(1.0, sum(1 for t in own_tokens if t in spec.argument_words) / 3)
    weights = (spec.text_weight, spec.chart_weight, spec.emotion_weight, spec.cue_weight)
    signals = (text_signal, chart_signal, emotion_signal, cue_signal)
    return sum(w * s for w, s in zip(weights, signals)) / sum(weights)


@dataclass(frozen=True)
class StanceEvidence:
    score: float                       # in [-1, 1]; > 0 is PRO
    sentiment: float                   # weighted VADER mean, after the topic's sign flip
    flipped: bool                      # the topic asks to remove something
    pro_cues: tuple[str, ...] = ()     # cue words found
    con_cues: tuple[str, ...] = ()


def _cue_words(words: list[str], cues: frozenset[str], terms: frozenset[str], window: int) -> list[str]:
    if window <= 0 or not terms:
        return [w for w in words if w in cues]
    near = [i for i, w in enumerate(words) if term_key(w) in terms]
    found = []
    for i, w in enumerate(words):
        if w in cues and any(abs(i - j) <= window for j in near):
            found.append(w)
    return found


def is_negative_topic(title: str, spec: StanceSpec) -> bool:
    return spec.flip_negative_topics and any(w in spec.negative_topic_words for w in tokens(title))


def stance_score(features: ImageFeatures, title: str, spec: StanceSpec) -> StanceEvidence:
    """The stance of an image toward the topic titled ``title`` (see StanceSpec)."""
    total = sum(spec.text_weights.values())
    mood = sum(w * sentiment(features.texts.get(f, "")) for f, w in spec.text_weights.items() if w) / total
    flipped = is_negative_topic(title, spec)
    if flipped:
        mood = -mood
    terms = topic_terms(title)
    pro: list[str] = []
    con: list[str] = []
    pro_set, con_set = frozenset(spec.pro_cues), frozenset(spec.con_cues)
    for f, w in spec.text_weights.items():
        if not w:
            continue
        words = tokens(features.texts.get(f, ""))
        pro += _cue_words(words, pro_set, terms, spec.cue_window)
        con += _cue_words(words, con_set, terms, spec.cue_window)
    cues = (len(pro) - len(con)) / (len(pro) + len(con) + 1)
    score = max(-1.0, min(1.0, spec.sentiment_weight * mood + spec.cue_weight * cues + spec.prior))
    return StanceEvidence(score, mood, flipped, tuple(pro), tuple(con))


# ---------------------------------------------------------------------------- duplicates
def hamming(a: str, b: str) -> int:
    """Bits in which two 0/1 hash strings differ; hashes of different lengths never match."""
    if len(a) != len(b):
        return max(len(a), len(b))
    return sum(x != y for x, y in zip(a, b))


def collapse_duplicates(ordered: Iterable[tuple[str, str]], max_distance: int = 0) -> tuple[list[str], dict[str, str]]:
    """(kept ids, {dropped id: the kept id it duplicates}) for (id, phash) pairs best first.

    Images without a phash are never duplicates. With ``max_distance`` 0 this is a dict look-up;
    otherwise each image is compared with the kept ones (a topic has at most 1,000 hits).
    """
    kept: list[str] = []
    dropped: dict[str, str] = {}
    exact: dict[str, str] = {}
    kept_hashes: list[tuple[str, str]] = []
    for image_id, phash in ordered:
        if phash:
            twin = exact.get(phash)
            if twin is None and max_distance > 0:
                twin = next((i for i, h in kept_hashes if hamming(h, phash) <= max_distance), None)
            if twin is not None:
                dropped[image_id] = twin
                continue
            exact[phash] = image_id
            kept_hashes.append((image_id, phash))
        kept.append(image_id)
    return kept, dropped


# ---------------------------------------------------------------------------- selection
@dataclass(frozen=True)
class Candidate:
    id: str
    relevance: float          # in [0, 1]
    argumentative: float      # in [0, 1]
    stance: float             # in [-1, 1]
    crawl: float = 0.0        # in [0, 1]
    retrieved: bool = True    # False: filled in from the collection


@dataclass(frozen=True)
class Choice:
    id: str
    stance: str
    score: float
    tier: int  # 2 preferred side, 1 filled from the hits, 0 filled from the collection


def _quality(c: Candidate, spec: ImageSpec) -> float:
    weights = (spec.relevance_weight, spec.argumentative_weight, spec.stance_weight, spec.crawl_weight)
    values = (c.relevance, c.argumentative, abs(c.stance), c.crawl)
    return sum(w * v for w, v in zip(weights, values)) / sum(weights)


def select(candidates: list[Candidate], spec: ImageSpec, per_stance: int = PER_STANCE) -> list[Choice]:
    """``per_stance`` PRO and ``per_stance`` CON images, each image on one side only.

    Preferred images (stance beyond the neutral band) go to their side, best quality first.
    A short side is then filled from the remaining retrieved images (those leaning its way
    first), then from the unretrieved ones. Raises ValueError if fewer than 2 × per_stance
    candidates are given.
    """
    if len(candidates) < 2 * per_stance:
        raise ValueError(f"{len(candidates)} distinct images; {2 * per_stance} are needed")
    band = spec.stance.neutral_band
    quality = {c.id: _quality(c, spec) for c in candidates}
    chosen: dict[str, list[Choice]] = {s: [] for s in STANCES}
    taken: set[str] = set()

    def take(stance: str, pool: list[Candidate], tier: int, key) -> None:
        for c in sorted(pool, key=key):
            if len(chosen[stance]) >= per_stance:
                return
            if c.id in taken:
                continue
            taken.add(c.id)
            chosen[stance].append(Choice(c.id, stance, tier + quality[c.id], tier))

    retrieved = [c for c in candidates if c.retrieved]
    rest = [c for c in candidates if not c.retrieved]
    by_quality = lambda c: (-quality[c.id], c.id)  # noqa: E731
    # Preferred sides first, the side with fewer preferred images choosing first: an image that
    # could go either way is never taken from the side that needs it more.
    # A strong stance does not make a barely relevant image a good answer.
    relevant = [c for c in retrieved if c.relevance >= spec.min_relevance]
    preferred = {"PRO": [c for c in relevant if c.stance > band], "CON": [c for c in relevant if c.stance < -band]}
    for stance in sorted(STANCES, key=lambda s: len(preferred[s])):
        take(stance, preferred[stance], 2, by_quality)
    for stance in sorted(STANCES, key=lambda s: len(chosen[s])):
        sign = 1 if stance == "PRO" else -1
        # Relevant images leaning this way first, then the other relevant ones, then the rest.
        take(stance, retrieved, 1, lambda c, sign=sign: (c.relevance < spec.min_relevance,
                                                         -sign * c.stance > spec.stance.neutral_band,
                                                         -quality[c.id], c.id))
    for stance in sorted(STANCES, key=lambda s: len(chosen[s])):
        sign = 1 if stance == "PRO" else -1
        take(stance, rest, 0, lambda c, sign=sign: (-c.argumentative, -sign * c.stance, c.id))
    return [choice for stance in STANCES for choice in _strictly_decreasing(chosen[stance])]


def _strictly_decreasing(choices: list[Choice]) -> list[Choice]:
    """Scores in rank order, nudged down where equal: a run file with ties is read differently
    by trec_eval (by docid) and Touché's evaluator (by rank)."""
    out: list[Choice] = []
    previous = math.inf
    for choice in sorted(choices, key=lambda c: -c.score):
        score = round(min(choice.score, previous - 1e-6), 6)
        out.append(Choice(choice.id, choice.stance, score, choice.tier))
        previous = score
    return out


# ---------------------------------------------------------------------------- the handler
@dataclass
class _Scorer:
    """Per-run memo of image features, argumentativeness and stances (topics share images)."""

    spec: ImageSpec
    searcher: Searcher
    features: dict[str, ImageFeatures] = field(default_factory=dict)
    argument: dict[str, float] = field(default_factory=dict)

    def load(self, ids: Iterable[str]) -> None:
        missing = [i for i in dict.fromkeys(ids) if i not in self.features]
        for start in range(0, len(missing), 1000):
            batch = missing[start:start + 1000]
            for image_id, raw in self.searcher.raw(batch).items():
                self.features[image_id] = ImageFeatures.from_raw(image_id, raw)

    def argumentative(self, image_id: str) -> float:
        if image_id not in self.argument:
            self.argument[image_id] = argumentativeness(self.features[image_id], self.spec.argumentative)
        return self.argument[image_id]

    def candidate(self, image_id: str, topic: Topic, relevance: float, retrieved: bool) -> Candidate:
        f = self.features[image_id]
        stance = stance_score(f, topic.title, self.spec.stance).score
        return Candidate(image_id, relevance, self.argumentative(image_id), stance, f.crawl_prior(topic.number),
                         retrieved)


def _collection_ids(corpus: Path) -> list[str]:
    return [d.name for d in image_dirs(collection_root(corpus))]


def topic_rows(topic: Topic, hits: list[tuple[str, float]], scorer: _Scorer,
               collection: Callable[[], list[str]]) -> list[tuple[str, float, str]]:
    spec = scorer.spec
    hits = hits[:spec.candidates]
    scorer.load(i for i, _ in hits)
    best = max((s for _, s in hits), default=0.0)
    relevance = {i: (s / best if best > 0 else 0.0) for i, s in hits}
    ordered = [i for i, _ in hits]
    if spec.duplicates.enabled:
        ordered, _ = collapse_duplicates(((i, scorer.features[i].phash) for i in ordered), spec.duplicates.max_distance)
    candidates = [scorer.candidate(i, topic, relevance[i], True) for i in ordered]
    if len(candidates) < 2 * PER_STANCE:
        candidates += _fill(topic, candidates, hits, scorer, collection)
    try:
        choices = select(candidates, spec)
    except ValueError as exc:
        raise ToucheError(f"topic {topic.number}: {exc}. An image run needs exactly {PER_STANCE} PRO and "
                          f"{PER_STANCE} CON images per topic, each image once"
                          + ("; image.fill is 'none', so unretrieved images are not used" if spec.fill == "none" else
                             "; the whole collection is too small for a valid run")) from None
    return [(c.id, c.score, c.stance) for c in choices]


def _fill(topic: Topic, candidates: list[Candidate], hits: list[tuple[str, float]], scorer: _Scorer,
          collection: Callable[[], list[str]]) -> list[Candidate]:
    """Unretrieved images for a topic whose hits are too few (tiny collections only)."""
    spec = scorer.spec
    if spec.fill == "none":
        return []
    have = {c.id for c in candidates} | {i for i, _ in hits}
    rest = [i for i in collection() if i not in have]
    scorer.load(rest)
    kept_hashes = [(c.id, scorer.features[c.id].phash) for c in candidates]
    if spec.duplicates.enabled:
        # Collapse the filler against the retrieved images too; only if that leaves too few are
        # duplicates let back in (a valid run beats a collapsed one).
        order = sorted(rest, key=lambda i: (-scorer.argumentative(i), i))
        kept, _ = collapse_duplicates(kept_hashes + [(i, scorer.features[i].phash) for i in order],
                                      spec.duplicates.max_distance)
        unretrieved = set(rest)
        distinct = [i for i in kept if i in unretrieved]
        if len(candidates) + len(distinct) >= 2 * PER_STANCE:
            rest = distinct
    return [scorer.candidate(i, topic, 0.0, False) for i in rest]


def image_rows(ctx: TaskContext, ranking: Ranking) -> Rows:
    spec = ctx.variant.image or ImageSpec()
    scorer = _Scorer(spec, ctx.searcher)
    collection = functools.lru_cache(maxsize=1)(lambda: _collection_ids(ctx.corpus))
    # Every topic gets its 20 images, also one the first stage found nothing for.
    return {t.number: topic_rows(t, ranking.get(t.number, []), scorer, collection) for t in ctx.topics}


HANDLER = TaskHandler(RunFormat.IMAGE, ("images",), image_rows)
