"""Task 2, comparative questions: objects, comparative queries, re-ranking, and the task handlers.

* **Objects and aspect.** 2022 topics list their objects (``<objects>a, b</objects>``); 2020/21
  topics do not, so they are extracted from the title by a handful of patterns over the
  question's surface ("X or Y", "X vs Y", "X better than Y", "prefer X over Y", "difference
  between X and Y", lists "X, Y or Z"), with an elliptic first object completed by the second's
  head ("steel or ceramic knives"). The aspect is what the title asks about beyond the objects
  ("for back pain"). Rules, not a tagger: titles are short questions of a few fixed shapes,
  and a tagger model would have to be downloaded.
* **Query.** A bag of words (the Lucene side sums a term's weight by its count): title content
  words, the objects' words and the aspect repeated by their weights, comparative cue words.
* **Re-ranking.** A formula over features of each hit's text, every feature in [0, 1]:
  retrieval score share, objects present and balanced, sentences that name two objects or
  an object in comparative language, argumentative markers, aspect coverage, length, prose
  quality and spam (``FEATURES``). Weights live in the YAML (``task2.rerank.weights``); the
  shipped ones are set by hand (few, round values) and ``bench/task2_samples.py`` reports what
  they give on the real samples.
* **Handlers.** ``DOCUMENTS_HANDLER`` (task2: ClueWeb12 documents, Q0 runs) and
  ``PASSAGES_HANDLER`` (task2-stance: 2022 passages, stance in column 2, see retrieval/tasks/task2/stance.py).
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Mapping, Sequence

from retrieval.formats.runfile import RunFormat
from retrieval.search import Ranking
from retrieval.tasks import Rows, TaskHandler
from retrieval.formats.topics import Topic
from touche.errors import InputError, ToucheError
from touche.specs.task2 import ComparativeQuerySpec, ObjectsSpec, RerankSpec, Task2Spec

if TYPE_CHECKING:
    from retrieval.session import Session
    from retrieval.search import Searcher
    from touche.config import LoadedVariant

# --------------------------------------------------------------------------- words

_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'+#.-]*[A-Za-z0-9+#]|[A-Za-z0-9]")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-Z0-9])|\n\s*\n?|\s*[•·|]\s*")
STOPWORD_FILE = Path(__file__).resolve().parents[3] / "stemming" / "stoplists" / "smart.txt"

# Question scaffolding and comparison words: neither objects nor aspect.
SCAFFOLD = frozenset("""
a an the is are was were be been do does did can could would will should shall must may might i you we one
it its they their my your our me which what who whom whose why how when where whether or and vs versus than
better best worse worst more most less least over prefer preferred preferable choose choice buy get take
learn use pick go good great difference differences different between compare compared comparison
advantages disadvantages pros cons vice versa really any think there this that these those of to in on at
for with by as about from into terms way thing things
""".split())
COMPARATIVE_ADJECTIVE = re.compile(
    r"^(?:better|worse|best|worst|more|less|most|least|[a-z]{2,}iest|[a-z]{2,}ier|[a-z]{3,}er)$")
_NOT_COMPARATIVE_ER = frozenset("""
water paper computer laptop desktop player number other under after never ever over order power tower
super river summer winter partner member brother mother father sister matter either neither whether
rather answer cancer center water filter user server manager poster cider beer burger charger toner
printer blender processor father later layer leather fever soccer corner dinner lager camera engineer
""".split())
OBJECT_STOP_RIGHT = frozenset("""
better best worse worst which for in is are to when what that than with as because and why who whose
should would could can do does did more less most least better? healthier stronger faster cheaper safer
in terms at on regarding concerning
""".split())
OBJECT_STOP_LEFT = frozenset("""
is are was were which what who better best worse prefer buy take learn use choose get should i you we one
do does did can could would will it between of to a an the major study go pick play watch drink eat
prefer over about for in on at with as more less most least that this really any much even actually think
""".split())

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


@lru_cache(maxsize=1)
def stopwords() -> frozenset[str]:
    return frozenset(w.strip().lower() for w in STOPWORD_FILE.read_text(encoding="utf-8").split() if w.strip())


def stem(word: str) -> str:
    """Porter stem of a lower-cased word: objects match their plurals and inflections
    ("laptops", "knife"/"knives" need the stem; nltk's Porter needs no downloaded data)."""
    return _porter().stem(word)


@lru_cache(maxsize=1)
def _porter():
    from nltk.stem.porter import PorterStemmer

    return PorterStemmer(mode=PorterStemmer.NLTK_EXTENSIONS)


def words(text: str) -> list[str]:
    return [w.lower().strip(".'") for w in _WORD.findall(text)]


def sentences(text: str) -> list[str]:
    """Sentences and lines of a text. A regular expression rather than Punkt: it runs over
    thousands of web pages per topic, and line breaks and bullet separators (menus, lists) are
    sentence ends on the web anyway."""
    return [s for s in (p.strip() for p in _SENTENCE_END.split(text)) if len(s) > 1]


# --------------------------------------------------------------------------- objects and aspect

@dataclass(frozen=True)
class Comparison:
    """What a topic compares: objects (first = the one stance is measured toward) and aspect."""

    objects: tuple[str, ...]
    aspect: tuple[str, ...]  # content words of the aspect

    @property
    def first(self) -> str | None:
        return self.objects[0] if self.objects else None


def _clean_object(tokens: list[str]) -> list[str]:
    while tokens and tokens[0] in ("a", "an", "the", "to", "of", "whether"):
        tokens = tokens[1:]
    while tokens and tokens[-1] in ("a", "an", "the", "to", "of"):
        tokens = tokens[:-1]
    return tokens


def _right_object(tokens: list[str]) -> list[str]:
    out: list[str] = []
    for i, tok in enumerate(tokens):
        if tok in (",", ":", "?", ";", "(", ")"):
            break
        if tok in OBJECT_STOP_RIGHT and out:
            break
        if tok == "the" and i + 1 < len(tokens) and tokens[i + 1] in ("best", "better", "most", "least"):
            break
        if out and COMPARATIVE_ADJECTIVE.match(tok) and tok not in _NOT_COMPARATIVE_ER and i + 1 < len(tokens) \
                and tokens[i + 1] in ("than", "for", "at", "in", "to", "?"):
            break
        out.append(tok)
    return _clean_object(out)


def _left_object(tokens: list[str]) -> list[str]:
    out: list[str] = []
    for tok in reversed(tokens):
        if tok in (",", ":", "?", ";", "(", ")"):
            break
        if tok in OBJECT_STOP_LEFT and tok not in ("a", "an", "the", "to"):
            break
        if COMPARATIVE_ADJECTIVE.match(tok) and tok not in _NOT_COMPARATIVE_ER and out:
            break
        out.insert(0, tok)
    return _clean_object(out)


def _tokens_with_punct(text: str) -> list[str]:
    return [t.lower() for t in re.findall(r"[A-Za-z0-9][A-Za-z0-9'+#.-]*[A-Za-z0-9+#']|[A-Za-z0-9]|[,:?;()]", text)]


_BEFORE_COMPARATIVE = frozenset("more less much far even really any actually a lot is are was were be".split())


def _strip_comparative(tokens: list[str]) -> list[str]:
    """What stands before 'than': 'pasta healthier' → 'pasta'; 'it healthier to bake' → 'bake';
    'Java code more readable' → 'java code'. The comparative is the last one before 'than'."""
    for i in range(len(tokens) - 1, -1, -1):
        tok = tokens[i]
        if not (COMPARATIVE_ADJECTIVE.match(tok) and tok not in _NOT_COMPARATIVE_ER):
            continue
        before, after = tokens[:i], tokens[i + 1:]
        while before and before[-1] in _BEFORE_COMPARATIVE:
            before = before[:-1]
        left = _left_object(before)
        if left and left not in (["it"], ["there"]):
            return left
        return _clean_object([t for t in after if t not in OBJECT_STOP_LEFT])
    return _left_object(tokens)


def extract_objects(title: str, share_head: bool = True) -> tuple[str, ...]:
    """The compared objects of a comparative question title (empty if none is found)."""
    text = re.sub(r"\bvs\.?(?=\s)|\bversus\b", " vs ", title)
    segments = [s for s in re.split(r"\?\s*", text) if s.strip()]
    for segment in segments:
        tokens = _tokens_with_punct(segment)
        found = (_between_and(tokens) or _vs(tokens) or _or_list(tokens, share_head) or _than(tokens)
                 or _over(tokens))
        if found and len(found) >= 2 and all(found):
            return tuple(" ".join(o) for o in found)
    return ()


def _share_head(left: list[str], right: list[str]) -> list[str]:
    """'steel' + 'ceramic knives' → 'steel knives'; not 'quicksort' + 'merge sort' (the head is
    already in the word) nor 'Disneyland' + 'Disney World' (the word extends the right's first)."""
    if len(left) != 1 or len(right) < 2:
        return left
    word = left[0]
    if word.endswith(right[-1]) or word.startswith(right[0]) or right[0].startswith(word):
        return left
    return left + right[1:]


def _split_items(tokens: list[str]) -> list[list[str]]:
    items, current = [], []
    for tok in tokens:
        if tok == ",":
            items.append(_clean_object(current))
            current = []
        else:
            current.append(tok)
    items.append(_clean_object(current))
    return [i for i in items if i]


def _between_and(tokens: list[str]) -> list[list[str]] | None:
    if "between" not in tokens:
        return None
    rest = tokens[tokens.index("between") + 1:]
    if "and" not in rest:
        return None
    cut = rest.index("and")
    lefts, right = _split_items(rest[:cut]), _right_object(rest[cut + 1:])
    if len(lefts) == 1:
        lefts[0] = _share_head(lefts[0], right)
    return [*lefts, right]


def _vs(tokens: list[str]) -> list[list[str]] | None:
    if "vs" not in tokens:
        return None
    cut = tokens.index("vs")
    left, right = _left_object(tokens[:cut]), _right_object(tokens[cut + 1:])
    return [_share_head(left, right), right]


def _or_list(tokens: list[str], share_head: bool) -> list[list[str]] | None:
    if "or" not in tokens:
        return None
    cut = len(tokens) - 1 - tokens[::-1].index("or")
    right = _right_object(tokens[cut + 1:])
    before = tokens[:cut]
    lefts = [_left_object(before)]
    # "…: coffee, green tea or black tea": earlier comma-separated items count only when the
    # list starts after a colon or at the start ("better for the environment, a real or …" is
    # an aspect followed by the objects, not a list).
    start = cut
    while start > 0 and before[start - 1] not in (":",) and not (before[start - 1] in OBJECT_STOP_LEFT
                                                                    and before[start - 1] not in ("a", "an", "the")):
        start -= 1
    items = _split_items(before[start:])
    if len(items) > 1 and (start == 0 or before[start - 1] == ":"):
        lefts = items
    if share_head and len(lefts) == 1:
        lefts[0] = _share_head(lefts[0], right)
    return [*lefts, right]


def _than(tokens: list[str]) -> list[list[str]] | None:
    if "than" not in tokens:
        return None
    cut = tokens.index("than")
    left, right = _strip_comparative(tokens[:cut]), _right_object(tokens[cut + 1:])
    if not left:
        return None
    right = _clean_object([t for t in right if t not in ("that", "those")])
    return [left, right]


def _over(tokens: list[str]) -> list[list[str]] | None:
    if "over" not in tokens:
        return None
    cut = tokens.index("over")
    return [_left_object(tokens[:cut]), _right_object(tokens[cut + 1:])]


def extract_aspect(title: str, objects: Sequence[str]) -> tuple[str, ...]:
    object_words = {w for o in objects for w in words(o)}
    kept = []
    for w in words(title):
        if w in object_words or w in SCAFFOLD or w in stopwords() or len(w) < 2:
            continue
        if COMPARATIVE_ADJECTIVE.match(w) and w not in _NOT_COMPARATIVE_ER:
            continue
        kept.append(w)
    return tuple(dict.fromkeys(kept))


def comparison(topic: Topic, spec: ObjectsSpec | None = None) -> Comparison:
    spec = spec or ObjectsSpec()
    if spec.source == "topic" or (spec.source == "auto" and topic.objects):
        objects = tuple(topic.objects)
    else:
        objects = extract_objects(topic.title, spec.share_head)
    return Comparison(objects, extract_aspect(topic.title, objects))


# --------------------------------------------------------------------------- queries

def comparative_query(topic: Topic, spec: ComparativeQuerySpec, objects: ObjectsSpec | None = None) -> str:
    """The topic's query text; a word repeated n times weighs n in the Lucene query."""
    comp = comparison(topic, objects)
    parts: list[str] = []
    title_words = [w for w in words(topic.title) if w not in SCAFFOLD or w in comp_words(comp)]
    parts += title_words * spec.title_weight
    for obj in comp.objects:
        parts += words(obj) * spec.object_weight
    parts += list(comp.aspect) * spec.aspect_weight
    parts += [w for t in spec.comparative_terms for w in words(t)] * spec.comparative_weight
    if spec.description and topic.description:
        parts += words(topic.description)
    if not parts:
        parts = words(topic.title)
    return " ".join(parts)


def comp_words(comp: Comparison) -> set[str]:
    return {w for o in comp.objects for w in words(o)}


def _spec(loaded: "LoadedVariant") -> Task2Spec:
    return loaded.variant.task2 or Task2Spec()


def session_queries(session: "Session", loaded: "LoadedVariant") -> dict[str, str]:
    spec = _spec(loaded)
    out = {}
    for topic in session.topics:
        text = comparative_query(topic, spec.query, spec.objects)
        if not _WORD.search(text):
            raise InputError("the comparative query is empty (the title has no words)", path=str(session.topics_path),
                             where=f"topic {topic.number}")
        out[topic.number] = text
    return out


# --------------------------------------------------------------------------- features

FEATURES = ("retrieval", "objects_all", "object_share", "object_balance", "cooccurrence", "comparative",
            "comparative_objects", "comparison", "argumentative", "aspect", "length", "language", "prose",
            "capitals", "spam", "dense")


# Features are densities: a page's first 30,000 characters (~5,000 words) tell them as well as
# the whole of a 100-page manual would, at a fraction of the cost.
FEATURE_TEXT_CHARS = 30_000
_STEMS: dict[str, str] = {}


def stem_of(word: str) -> str:
    """Porter stem with a plain dict cache (the hot path of feature extraction)."""
    found = _STEMS.get(word)
    if found is None:
        found = stem(word)
        if len(_STEMS) < 500_000:  # bounded: a whole corpus's vocabulary must not pile up here
            _STEMS[word] = found
    return found


class ObjectMatcher:
    """Finds a topic's objects by Porter stems: an object is named in a sentence when all of its
    content words are (a two-word object may be split: 'Christmas tree, real')."""

    def __init__(self, comp: Comparison):
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
    distinct_share: float  # distinct words / words: keyword stuffing repeats itself
    stems: set[str]
    stem_sentences: dict[str, set[int]]
    comparative: set[int]
    argumentative: set[int]
    spam: int


@lru_cache(maxsize=1)
def _cue_stems() -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    return tuple(frozenset(stem_of(w) for w in cues) for cues in (COMPARATIVE_CUES, ARGUMENTATIVE_CUES, SPAM_CUES))


def _well_formed(words_in: int, stops_in: int, capitals_in: int, last_char: str) -> bool:
    """A sentence of running prose: 6–60 words, ending in . ! ? or :, some function words, not
    mostly capitalised words."""
    return (6 <= words_in <= 60 and last_char in ".!?:\"'”)" and stops_in >= 0.2 * words_in
            and capitals_in <= 0.5 * words_in)


def index_text(text: str, wanted: set[str]) -> TextIndex:
    comparative_stems, argumentative_stems, spam_stems = _cue_stems()
    boundaries = [m.start() for m in _SENTENCE_END.finditer(text)]
    boundaries = [b for b in boundaries if b > 0] + [len(text)]
    stop = stopwords()
    stems: set[str] = set()
    distinct: set[str] = set()
    where: dict[str, set[int]] = {w: set() for w in wanted}
    comparative: set[int] = set()
    argumentative: set[int] = set()
    n_words = n_stop = n_alpha = n_capital = spam = prose = 0
    sentence = 0
    s_words = s_stops = s_capitals = 0
    next_boundary = boundaries[0]
    for match in _WORD.finditer(text):
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
        distinct.add(word)
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
                     len(distinct) / total, stems, where, comparative, argumentative, spam)


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
            found = set(index.stem_sentences.get(s, ())) if found is None else found & index.stem_sentences.get(s, set())
        object_sentences.append(found or set())
    mentions = [len(o) for o in object_sentences]
    n_objects = len(mentions)
    counts: dict[int, int] = {}
    for sents in object_sentences:
        for s in sents:
            counts[s] = counts.get(s, 0) + 1
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


def hit_features(ranking: Ranking, topics: Mapping[str, Comparison], texts: Mapping[str, str],
                 spec: RerankSpec, dense: Mapping[str, Mapping[str, float]] | None = None,
                 ) -> dict[str, list[tuple[str, dict[str, float]]]]:
    """Features of the top ``spec.depth`` hits of every topic (``dense``: {qid: {docid: cosine}})."""
    out = {}
    for qid, hits in ranking.items():
        head = hits[: spec.depth]
        if not head:
            out[qid] = []
            continue
        top = max(s for _, s in head) or 1.0
        matcher = ObjectMatcher(topics.get(qid, Comparison((), ())))
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
    from retrieval.stages.quality import place_below

    out: Ranking = {}
    for qid, hits in ranking.items():
        rescored = sorted(((d, formula_score(f, spec.weights)) for d, f in features[qid]), key=lambda h: (-h[1], h[0]))
        tail = hits[spec.depth:]
        out[qid] = rescored + (place_below(tail, rescored[-1][1]) if rescored else tail)
    return out


def rerank(ranking: Ranking, topics: Mapping[str, Comparison], texts: Mapping[str, str], spec: RerankSpec,
           dense: Mapping[str, Mapping[str, float]] | None = None) -> Ranking:
    """The top ``depth`` hits re-scored by the formula; the rest keep their order below them."""
    return reorder(ranking, hit_features(ranking, topics, texts, spec, dense), spec)


# --------------------------------------------------------------------------- handlers

def _texts(searcher: "Searcher", ranking: Ranking, depth: int) -> dict[str, str]:
    ids = list(dict.fromkeys(d for hits in ranking.values() for d, _ in hits[:depth]))
    return {d: raw_text(r) for d, r in searcher.raw(ids).items()}


def task_rerank(session: "Session", loaded: "LoadedVariant", ranking: Ranking, searcher: "Searcher") -> Ranking:
    """The comparative re-ranking (the pipeline applies it before any fusion stage)."""
    spec = _spec(loaded).rerank
    if not spec.enabled:
        return ranking
    return reorder(ranking, rerank_features(session, loaded, ranking, searcher), spec)


def rerank_features(session: "Session", loaded: "LoadedVariant", ranking: Ranking,
                    searcher: "Searcher") -> dict[str, list[tuple[str, dict[str, float]]]]:
    """Every formula feature of each topic's top ``depth`` hits; the dense one only when it weighs."""
    spec = _spec(loaded)
    comps = {t.number: comparison(t, spec.objects) for t in session.topics}
    texts = _texts(searcher, ranking, spec.rerank.depth)
    dense = dense_scores(session, loaded, ranking, texts) if spec.rerank.weights.dense else None
    return hit_features(ranking, comps, texts, spec.rerank, dense)


def dense_scores(session: "Session", loaded: "LoadedVariant", ranking: Ranking,
                 texts: Mapping[str, str]) -> dict[str, dict[str, float]]:
    """The ``dense`` feature: cosine of each topic's title (and description) with its top hits."""
    from retrieval.encoders import dense

    spec = _spec(loaded).rerank
    try:
        folder = dense.resolve_model(spec.dense.model, loaded.path.parent)
    except ToucheError as exc:
        raise ToucheError(exc.message, path=loaded.path, where="task2.rerank.dense.model") from None
    enc = dense.encoder(folder, spec.dense.max_tokens)
    queries = {t.number: t.title if spec.dense.query == "title" else f"{t.title} {t.description or ''}".strip()
               for t in session.topics}
    head = {qid: [d for d, _ in hits[: spec.depth]] for qid, hits in ranking.items()}
    return dense.similarities(enc, queries, head, texts, batch_size=spec.dense.batch_size, progress=session.progress)


def document_rows(session: "Session", loaded: "LoadedVariant", ranking: Ranking, searcher: "Searcher") -> Rows:
    return {qid: [(d, s, "Q0") for d, s in hits] for qid, hits in ranking.items()}


def passage_rows(session: "Session", loaded: "LoadedVariant", ranking: Ranking, searcher: "Searcher") -> Rows:
    """Every retrieved passage labelled FIRST, SECOND, NEUTRAL or NO toward the first object."""
    from retrieval.tasks.task2.stance import label_stance

    spec = _spec(loaded)
    comps = {t.number: comparison(t, spec.objects) for t in session.topics}
    texts = _texts(searcher, ranking, max((len(h) for h in ranking.values()), default=0))
    rows: Rows = {}
    for qid, hits in ranking.items():
        comp = comps.get(qid, Comparison((), ()))
        rows[qid] = [(d, s, label_stance(texts.get(d, ""), comp, spec.stance)) for d, s in hits]
    return rows


DOCUMENTS_HANDLER = TaskHandler(RunFormat.Q0, ("clueweb12",), document_rows, session_queries, task_rerank)
PASSAGES_HANDLER = TaskHandler(RunFormat.STANCE, ("passages",), passage_rows, session_queries, task_rerank)
