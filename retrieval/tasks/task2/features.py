"""Task 2 re-ranking: features of each hit's text and the formula over them.

Every feature is in [0, 1]: retrieval score share, objects present and balanced, sentences that
name two objects or an object in comparative language, argumentative markers, aspect coverage,
length, prose quality and spam (``FEATURES``), and the dense similarity of the topic and the
text. Weights live in the YAML (``task2.rerank.weights``); the shipped ones are set by hand
(few, round values) and ``bench/task2_samples.py`` reports what they give on the real samples.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Mapping

from touche.retrieval.search import Ranking
from touche.retrieval.stages.base import place_below
from touche.retrieval.tasks.task2.objects import ComparedObjects
from touche.specs.task2 import RerankSpec
from touche.stemming.sentences import web_sentence_boundaries
from touche.stemming.stems import porter as stem_of
from touche.stemming.stoplists import shipped
from touche.stemming.words import iter_technical_words
from touche.stemming.words import technical_words as words


def stopwords() -> frozenset[str]:
    """The SMART list: function words, for prose features and object content words."""
    return shipped("smart")


# Cue words, matched by Porter stem in the single pass over a text (regular expressions with
# alternations over every word position cost ~10x more on long pages).
COMPARATIVE_CUES = frozenset("""
better worse best worst superior inferior prefer preferable preference compare comparison comparable vs versus
advantage disadvantage pros cons difference differ different unlike whereas than rather instead beat beats
outperform similar alternative drawback benefit downside upside tradeoff trade-off cheaper faster slower
stronger weaker healthier safer easier harder
""".split())
ARGUMENTATIVE_CUES = frozenset("""
because therefore thus hence however although though since consequently opinion experience think believe
feel recommend reason argue argument evidence example instance contrast nevertheless moreover furthermore
addition should must overall conclusion depend worth downside upside problem issue
""".split())
SPAM_CUES = frozenset("""
copyright reserved login signin register subscribe cookie privacy click javascript cart shipping discount
coupon viagra casino loan permalink tweet facebook newsletter advertisement advertise sponsored sitemap rss
""".split())



FEATURES = ("retrieval", "objects_all", "object_share", "object_balance", "cooccurrence", "comparative",
            "comparative_objects", "comparison", "argumentative", "aspect", "length", "language", "prose",
            "capitals", "spam", "dense")


# Features are densities: a page's first 30,000 characters (~5,000 words) tell them as well as
# the whole of a 100-page manual would, at a fraction of the cost.
FEATURE_TEXT_CHARS = 30_000


class ObjectMatcher:
    """Finds a topic's objects by Porter stems: an object is named in a sentence when all of its
    content words are (a two-word object may be split: 'Christmas tree, real')."""

    def __init__(self, comp: ComparedObjects):
        self.objects = [self._stems(o) for o in comp.objects]
        self.aspect = {stem_of(w) for w in comp.aspect}
        self.wanted = set().union(*self.objects) if self.objects else set()

    @staticmethod
    def _stems(obj: str) -> frozenset[str]:
        toks = words(obj)
        content = [t for t in toks if t not in stopwords()] or toks
        return frozenset(stem_of(t) for t in content)


@dataclass
class TextIndex:
    """One pass over a text: counts, and the sentences where wanted stems and cue words occur."""

    n_sentences: int
    n_words: int
    stop_share: float
    alpha_share: float
    capital_share: float  # words starting upper-case: menus and tag clouds are Title Case
    prose_share: float  # words inside well-formed sentences
    stems: set[str]
    stem_sentences: dict[str, set[int]]
    comparative: set[int]
    argumentative: set[int]
    spam: int


@lru_cache(maxsize=1)
def cue_stems() -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """Porter stems of the comparative, argumentative and spam cue words."""
    comparative, argumentative, spam = (frozenset(stem_of(w) for w in cues)
                                        for cues in (COMPARATIVE_CUES, ARGUMENTATIVE_CUES, SPAM_CUES))
    return comparative, argumentative, spam


def _well_formed(words_in: int, stops_in: int, capitals_in: int, last_char: str) -> bool:
    """A sentence of running prose: 6–60 words, ending in . ! ? or :, some function words, not
    mostly capitalised words."""
    return (6 <= words_in <= 60 and last_char in ".!?:\"'”)" and stops_in >= 0.2 * words_in
            and capitals_in <= 0.5 * words_in)


def index_text(text: str, wanted: set[str]) -> TextIndex:
    comparative_stems, argumentative_stems, spam_stems = cue_stems()
    boundaries = web_sentence_boundaries(text)
    boundaries = [b for b in boundaries if b > 0] + [len(text)]
    stop = stopwords()
    stems: set[str] = set()
    where: dict[str, set[int]] = {w: set() for w in wanted}
    comparative: set[int] = set()
    argumentative: set[int] = set()
    n_words = n_stop = n_alpha = n_capital = spam = prose = 0
    sentence = 0
    s_words = s_stops = s_capitals = 0
    next_boundary = boundaries[0]
    for match in iter_technical_words(text):
        while match.start() >= next_boundary and sentence + 1 < len(boundaries):
            if s_words and _well_formed(s_words, s_stops, s_capitals, text[next_boundary - 1: next_boundary].strip()
                                        or text[max(0, next_boundary - 2)]):
                prose += s_words
            s_words = s_stops = s_capitals = 0
            sentence += 1
            next_boundary = boundaries[sentence]
        raw = match.group()
        word = raw.lower().strip(".'")
        n_words += 1
        s_words += 1
        if raw[0].isupper():
            n_capital += 1
            s_capitals += 1
        if word in stop:
            n_stop += 1
            s_stops += 1
        if word.isalpha():
            n_alpha += 1
        s = stem_of(word)
        stems.add(s)
        if s in where:
            where[s].add(sentence)
        if s in comparative_stems:
            comparative.add(sentence)
        elif s in argumentative_stems:
            argumentative.add(sentence)
        elif s in spam_stems:
            spam += 1
    end = text.rstrip()[-1:] if text.strip() else ""
    if s_words and _well_formed(s_words, s_stops, s_capitals, end):
        prose += s_words
    total = max(n_words, 1)
    return TextIndex(sentence + 1, n_words, n_stop / total, n_alpha / total, n_capital / total, prose / total,
                     stems, where, comparative, argumentative, spam)


def _scaled(count: int, total: int, scale: float) -> float:
    return min(1.0, scale * count / total) if total else 0.0


def text_features(text: str, matcher: ObjectMatcher, spec: RerankSpec) -> dict[str, float]:
    """Every feature except retrieval and dense (hit_features adds those), each in [0, 1]."""
    text = text[:FEATURE_TEXT_CHARS]
    index = index_text(text, matcher.wanted)
    n_words, n = index.n_words, index.n_sentences
    if not n_words:
        return {f: 0.0 for f in FEATURES if f not in ("retrieval", "dense")}
    object_sentences = []
    for obj in matcher.objects:
        found = None
        for s in obj:
            found = (
                set(index.stem_sentences.get(s, ())) if found is None else found & index.stem_sentences.get(s, set())
            )
        object_sentences.append(found or set())
    mentions = [len(o) for o in object_sentences]
    n_objects = len(mentions)
    counts: dict[int, int] = {}
    for sents in object_sentences:
        for number in sents:
            counts[number] = counts.get(number, 0) + 1
    with_object = set(counts)
    cooc = sum(1 for c in counts.values() if c >= 2)
    comparative, argumentative = index.comparative, index.argumentative
    present = [m > 0 for m in mentions]
    mean_len = n_words / n
    # Running prose has ~35–60 % function words and sentences of 8–40 words; menus, lists and
    # keyword spam fall outside both.
    language = _band(index.stop_share, 0.3, 0.6, 0.15) * _band(mean_len, 8, 40, 8)
    spam = min(1.0, 0.5 * _scaled(index.spam, n, 1.0)
               + 0.5 * (1 - _band(index.alpha_share, 0.8, 1.0, 0.2)))
    lo, hi = math.log(max(spec.min_words, 1)), math.log(max(spec.max_words, spec.min_words + 2))
    length = min(1.0, max(0.0, (math.log(n_words) - lo) / (hi - lo)))
    return {
        "objects_all": float(n_objects > 0 and all(present)),
        "object_share": sum(present) / n_objects if n_objects else 0.0,
        "object_balance": (min(mentions) / max(mentions)) if n_objects >= 2 and max(mentions) else 0.0,
        "cooccurrence": _scaled(cooc, n, spec.scale),
        "comparative": _scaled(len(comparative), n, spec.scale),
        "comparative_objects": _scaled(len(comparative & with_object), n, spec.scale),
        "comparison": _scaled(len(comparative & {s for s, c in counts.items() if c >= 2}), n, spec.scale),
        "argumentative": _scaled(len(argumentative), n, spec.scale),
        "aspect": len(matcher.aspect & index.stems) / len(matcher.aspect) if matcher.aspect else 0.0,
        "length": length,
        "language": language,
        "prose": index.prose_share,
        "capitals": min(1.0, 2 * index.capital_share),
        "spam": spam,
    }


def _band(value: float, low: float, high: float, slack: float) -> float:
    """1 inside [low, high], falling linearly to 0 at ``slack`` outside."""
    if low <= value <= high:
        return 1.0
    distance = low - value if value < low else value - high
    return max(0.0, 1.0 - distance / slack)


def raw_text(raw: str | None) -> str:
    """The text of a stored record: a passage's contents or a page's title + main text."""
    if not raw:
        return ""
    data = json.loads(raw)
    if "contents" in data:
        return data["contents"]
    return f"{data.get('title', '')}\n\n{data.get('text', '')}"


def hit_features(ranking: Ranking, topics: Mapping[str, ComparedObjects], texts: Mapping[str, str],
                 spec: RerankSpec, dense: Mapping[str, Mapping[str, float]] | None = None,
                 ) -> dict[str, list[tuple[str, dict[str, float]]]]:
    """Features of the top ``spec.depth`` hits of every topic (``dense``: {qid: {docid: cosine}})."""
    out: dict[str, list[tuple[str, dict[str, float]]]] = {}
    for qid, hits in ranking.items():
        head = hits[: spec.depth]
        if not head:
            out[qid] = []
            continue
        top = max(s for _, s in head) or 1.0
        matcher = ObjectMatcher(topics.get(qid, ComparedObjects((), ())))
        rows = []
        for docid, score in head:
            feats = text_features(texts.get(docid, ""), matcher, spec)
            feats["retrieval"] = score / top if top > 0 else 0.0
            feats["dense"] = dense.get(qid, {}).get(docid, 0.0) if dense else 0.0
            rows.append((docid, feats))
        out[qid] = rows
    return out


def formula_score(features: Mapping[str, float], weights) -> float:
    return sum(getattr(weights, name) * features.get(name, 0.0) for name in FEATURES)


def reorder(ranking: Ranking, features: Mapping[str, list[tuple[str, dict[str, float]]]], spec: RerankSpec) -> Ranking:
    """The top ``depth`` hits re-scored by the formula over their ``features``; the rest keep
    their order below them."""

    out: Ranking = {}
    for qid, hits in ranking.items():
        rescored = sorted(((d, formula_score(f, spec.weights)) for d, f in features[qid]), key=lambda h: (-h[1], h[0]))
        tail = hits[spec.depth:]
        out[qid] = rescored + (place_below(tail, rescored[-1][1]) if rescored else tail)
    return out


