"""Touché Task 1 2022: pairs of argumentative sentences with a stance (task ``task1-pairs``).

Design, two index levels over one corpus (``corpus.format: argsme-sentences``):

1. **Arguments.** The Session indexes the variant's corpus as usual (``index.fields`` are
   argument fields: contents, conclusion, premises, title); its ranking, after any ``rerank:``
   stages, gives the *candidate arguments*. Their stored raw JSON holds their sentences.
2. **Sentences.** The handler derives a variant whose only index field is ``sentence`` and
   passes it to ``indexing.builder.ensure_index``: the same corpus yields one document per
   sentence id, in an index cached and shared like any other (same analyzer, key differs by the
   field). Searching it with the topic's query gives each sentence its own relevance score.

Then, per topic:

* **Candidates**: the sentences of the top ``candidates.arguments`` arguments (plus, if asked,
  the arguments of the top sentence hits), filtered by length and argumentativeness.
  Duplicates (same ``text_key``: many arguments share their debate's title as conclusion) are
  handled here, not in the index: every id stays the sentence's own corpus id, two sentences of
  equal text are never paired, two pairs of the same two texts are never both written, and a
  text's sentence relevance is the best of its copies.
* **Sentence features** in [0, 1]: relevance (sentence and argument retrieval scores),
  argumentativeness (argumentative markers, length, debate-procedure and question penalties),
  representativeness (cosine of the sentence's stemmed content words with the rest of its
  argument).
* **Pairs**: within one argument (its conclusion with its best premises; premises at most
  ``building.window`` positions apart, in reading order) and across arguments of the same
  stance (the best sentences of the top arguments of each stance). args.me's stance is a
  premise's stance toward *its own conclusion*, which shapes two defaults: the conclusion of an
  argument whose premises are CON is the claim they attack, so it is not paired at all; and
  "same stance" across arguments means agreement only among arguments sharing their
  conclusion (one debate), unless the stance is made topic-relative (``stance.conclusion_polarity``).
* **Pair score**: weighted means of the two sentences' features, plus coherence (cosine
  overlap of the two sentences), a same-argument and a conclusion bonus, minus a contradiction
  cue (overlapping sentences of which exactly one is negated); near-duplicates (overlap of at
  least ``score.max_overlap``: paraphrases repeat, they do not summarise) are not paired.
  Every weight is in ``pairs:``.
* **Selection**: best first, no text pair twice, a text in at most ``max_per_sentence`` pairs
  until nothing else is left; when fewer than ``min_pairs`` come out, more arguments are taken
  (doubling up to the whole ranking), then the sentence filters are relaxed; a topic that still
  has fewer gets a warning.
* **Stance** (toward the topic): args.me's premise stance where the argument has one,
  optionally flipped when a cue lexicon finds the conclusion opposed to the topic, or the
  lexicon alone; ``Q0`` when unknown.

Text features use a light Python tokenizer (lower-cased words, SMART stoplist, Harman's
S-stemmer): they compare a few hundred sentences per topic, where a JVM round trip per
sentence would cost more than the features themselves.
"""
from __future__ import annotations

import logging
import math
import re
import time
from collections import Counter
from dataclasses import dataclass
from typing import Callable, Iterable, Mapping, Sequence

from touche.indexing.sentences import CONCLUSION, SENTENCE_FIELDS, Sentence, SentencedArgument, parse_sentence_id, text_key
from touche.retrieval.query import query_text
from touche.retrieval.formats.runfile import ARGUMENT_STANCES, RunFormat
from touche.retrieval.search import Ranking
from touche.retrieval.tasks import Rows, TaskContext, TaskHandler
from touche.stemming.stems import s_stem  # plurals only: overlap features need no more, and nltk's Porter was most of the pair-building time
from touche.stemming.stoplists import shipped
from touche.stemming.words import words
from touche.config import BM25, LMDirichlet, Variant
from touche.errors import ConfigError
from touche.specs.pairs import PairsSpec, StanceSpec

log = logging.getLogger(__name__)

__all__ = ["HANDLER", "pair_rows", "PairBuilder", "Candidate", "Pair", "TopicPairs", "sentence_variant",
           "argumentativeness", "polarity", "argument_stance", "STANCES"]

STANCES = ARGUMENT_STANCES
_CLAUSE_END = re.compile(r"[.;:!?,]")


# ---------------------------------------------------------------- text features
def _stopwords() -> frozenset[str]:
    return shipped("smart")


def content_terms(tokens: Iterable[str]) -> Counter:
    """Stemmed content words: what topical overlap is measured on."""
    stop = _stopwords()
    return Counter(s_stem(t) for t in tokens if t not in stop and not t.isdigit() and len(t) > 1)


def cosine(a: Mapping[str, int], b: Mapping[str, int]) -> float:
    if not a or not b:
        return 0.0
    if len(a) > len(b):
        a, b = b, a
    dot = sum(v * b.get(k, 0) for k, v in a.items())
    if not dot:
        return 0.0
    return dot / math.sqrt(sum(v * v for v in a.values()) * sum(v * v for v in b.values()))


def similarity_to_rest(own: Mapping[str, int], whole: Mapping[str, int], whole_norm2: float) -> float:
    """cosine(own, whole - own) without building whole - own (``whole`` holds ``own``; arguments
    of thousands of words would make the subtraction the slowest step of pair building)."""
    dot = own_norm2 = cross = 0
    for term, count in own.items():
        total = whole[term]
        dot += count * (total - count)
        own_norm2 += count * count
        cross += count * total
    rest_norm2 = whole_norm2 - 2 * cross + own_norm2
    if dot <= 0 or rest_norm2 <= 0:
        return 0.0
    return dot / math.sqrt(own_norm2 * rest_norm2)


def _phrases(*items: str) -> re.Pattern:
    """One regex for word-bounded phrases (longest first, so 'as a result' wins over 'as')."""
    ordered = sorted({i.strip() for i in items}, key=len, reverse=True)
    return re.compile(r"(?<![\w])(?:" + "|".join(re.escape(i).replace(r"\ ", r"\s+") for i in ordered) + r")(?![\w])")


# Cues of claims and reasons (discourse markers, modals of obligation, causal and evidential
# verbs, evaluative words). Our own list, after the marker lexicons of argument mining.
ARGUMENT_MARKERS = _phrases(
    "because", "since", "therefore", "thus", "hence", "consequently", "as a result", "due to", "so that",
    "lead to", "leads to", "led to", "leading to", "result in", "results in", "cause", "causes", "caused",
    "means that", "this means", "which means", "shows that", "show that", "showed that", "proves", "prove",
    "evidence", "study", "studies", "research", "data", "statistics", "percent", "%", "for example",
    "for instance", "such as", "in fact", "if", "unless", "although", "even though", "however", "whereas",
    "should", "must", "ought", "need to", "needs to", "have to", "has to", "cannot", "can't", "would",
    "better", "worse", "important", "necessary", "essential", "harm", "harmful", "benefit", "benefits",
    "beneficial", "risk", "risks", "dangerous", "effective", "unfair", "fair", "wrong", "right to",
    "increase", "increases", "reduce", "reduces", "improve", "improves", "protect", "protects", "prevent",
    "prevents", "cost", "costs", "afford", "responsible", "justified", "unjust", "rights",
)
# Debate-portal procedure, meta talk and spam: such sentences argue nothing about the topic.
NOISE_MARKERS = _phrases(
    "vote pro", "vote con", "vote for", "please vote", "voters", "next round", "this round", "last round",
    "previous round", "previous rounds", "final round", "round one", "round two", "round three", "round 1",
    "round 2", "round 3", "my opponent", "opponent's", "forfeit", "forfeited", "thank you", "thanks",
    "good luck", "i accept", "accepted", "acceptance", "challenge", "rebuttal", "rebuttals", "sources",
    "definitions", "resolution", "burden of proof", "rest my case", "over to you", "lol", "haha",
    "http", "https", "www", ".com", "click", "subscribe", "followers", "typos", "placeholder",
    "character limit", "sidetracked", "off topic", "debate", "debating", "i will keep this short",
    "where i stand", "let me start", "my case", "my position", "here are my reasons", "my main point",
)
NEGATIONS = frozenset("not no never nor neither none nobody nothing cannot without".split())

# Stance cue lexicon: words for (+1) or against (-1) the thing they are said of. Negation
# within the three preceding words flips a cue; the side after "than" is the one compared
# against and is ignored ("more good than harm" is for).
_PRO_CUES = frozenset("""
legal legalize legalized legalise legalised legalizing allow allowed allowing allows permit permitted
support supports supported good great benefit benefits beneficial essential necessary important
improve improves improved helps help helpful positive right fair safe safer effective deserve deserves
expand expanded introduce introduced adopt adopted keep kept protect protects best better advantage
advantages valuable useful needed worth boosts boost succeed success successful answer norm
""".split())
_CON_CUES = frozenset("""
ban banned banning bans abolish abolished abolishing abolition prohibit prohibited illegal outlaw
outlawed forbid forbidden close closed closing phase stop eliminate eliminated restrict restricted
against bad worse worst harm harms harmful hurt hurts damage damaging dangerous danger risky cruel
cruelty wrong unfair unsafe unaffordable unrealistic impossible discourage discourages negative fail
fails failed useless waste overpaid expensive costly unnecessary unjust immoral
""".split())


def polarity_score(text: str) -> int:
    """Sum of stance cues (+1 for, -1 against), negation-aware, the 'than' side ignored."""
    score = 0
    for clause in _CLAUSE_END.split(text.lower()):
        tokens = words(clause)
        if "than" in tokens:
            tokens = tokens[: tokens.index("than")]
        for i, token in enumerate(tokens):
            value = 1 if token in _PRO_CUES else -1 if token in _CON_CUES else 0
            if value:
                window = tokens[max(0, i - 3):i]
                if any(w in NEGATIONS or w.endswith("n't") for w in window):
                    value = -value
                score += value
    return score


def polarity(text: str) -> int:
    """-1, 0 or +1: the sign of ``polarity_score``."""
    score = polarity_score(text)
    return (score > 0) - (score < 0)


def is_negated(tokens: Sequence[str]) -> bool:
    """An odd number of negations: the sentence says the opposite of its un-negated form."""
    return sum(1 for t in tokens if t in NEGATIONS or t.endswith("n't")) % 2 == 1


def length_feature(n_words: int, ideal: tuple[int, int]) -> float:
    low, high = ideal
    if n_words < low:
        return max(0.0, (n_words - low / 2) / (low / 2))
    if n_words > high:
        return max(0.0, 1.0 - (n_words - high) / high)
    return 1.0


def argumentativeness(text: str, n_words: int, spec, conclusion: bool = False) -> float:
    """[0, 1]: weighted markers and length (at least ``conclusion_prior`` for a conclusion),
    minus noise and question penalties."""
    text_lower = text.lower()
    markers = min(1.0, len(set(m.group(0) for m in ARGUMENT_MARKERS.finditer(text_lower))) / 2)
    value = (spec.markers * markers + spec.length * length_feature(n_words, spec.ideal_words)) / (spec.markers + spec.length)
    if conclusion:
        value = max(value, spec.conclusion_prior)
    if NOISE_MARKERS.search(text_lower):
        value -= spec.noise_penalty
    if text.rstrip().endswith("?"):
        value -= spec.question_penalty
    return min(1.0, max(0.0, value))


# ---------------------------------------------------------------- stance
def argument_stance(argument: SentencedArgument, topic_polarity: int, spec: StanceSpec) -> str:
    """PRO, CON (toward the topic) or Q0."""
    if spec.source == "none":
        return "Q0"
    corpus = argument.stance if argument.stance in STANCES else ""
    if corpus and spec.source in ("corpus", "corpus+lexicon"):
        if spec.conclusion_polarity:
            conclusion = polarity(argument.argument.conclusion)
            if conclusion and conclusion != topic_polarity:
                return "CON" if corpus == "PRO" else "PRO"
        return corpus
    if spec.source in ("lexicon", "corpus+lexicon"):
        text = " ".join(s.text for s in argument.sentences)
        score = polarity_score(text) * topic_polarity
        if score >= spec.lexicon_margin and score > 0:
            return "PRO"
        if score <= -spec.lexicon_margin and score < 0:
            return "CON"
    return "Q0"


def topic_polarity(title: str) -> int:
    """A question 'Should X?' proposes X (+1) unless its cue words say otherwise ('Should X be banned?')."""
    return polarity(title) or 1


# ---------------------------------------------------------------- candidates and pairs
@dataclass(slots=True)
class Candidate:
    sentence: Sentence
    key: str
    terms: Counter
    negated: bool
    words: int
    relevance: float = 0.0
    argumentativeness: float = 0.0
    representativeness: float = 0.0
    individual: float = 0.0

    @property
    def id(self) -> str:
        return self.sentence.id

    @property
    def is_conclusion(self) -> bool:
        return self.sentence.role == CONCLUSION


@dataclass(slots=True)
class ArgumentCandidates:
    record: SentencedArgument
    rank: int
    stance: str
    candidates: list[Candidate]


@dataclass(slots=True)
class Pair:
    first: Candidate
    second: Candidate
    kind: str  # "conclusion-premise" | "premises" | "cross"
    stance: str
    score: float = 0.0

    @property
    def docid(self) -> str:
        return f"{self.first.id},{self.second.id}"

    @property
    def same_argument(self) -> bool:
        return self.first.sentence.argument_id == self.second.sentence.argument_id


@dataclass
class TopicPairs:
    qid: str
    pairs: list[Pair]
    arguments_used: int
    relaxed: bool
    seconds: float = 0.0
    warning: str | None = None


@dataclass(frozen=True, slots=True)
class _AnalysedSentence:
    sentence: Sentence
    key: str
    terms: Counter
    negated: bool
    words: int
    argumentativeness: float


@dataclass(frozen=True, slots=True)
class _Analysed:
    sentences: list[_AnalysedSentence]
    whole: Counter  # the argument's content terms
    whole_norm2: float


_ANALYSED_CACHE = 50_000  # arguments whose analysis is kept (a run's topics share many)


@dataclass(frozen=True)
class _Filters:
    min_words: int
    min_words_conclusion: int
    max_words: int
    min_argumentativeness: float


class PairBuilder:
    """Builds one topic's pairs from its argument hits and sentence hits (no JVM involved)."""

    def __init__(self, spec: PairsSpec):
        self.spec = spec
        self._analysed: dict[str, _Analysed] = {}
        c = spec.candidates
        self.strict = _Filters(c.min_words, c.min_words_conclusion, c.max_words, c.min_argumentativeness)
        self.relaxed = _Filters(1, 1, 10**9, 0.0)

    # ---- the whole topic, with expansion
    def build(self, qid: str, title: str, hits: Sequence[tuple[str, float]], sentence_hits: Sequence[tuple[str, float]],
              fetch: Callable[[list[str]], Mapping[str, SentencedArgument]]) -> TopicPairs:
        started = time.perf_counter()
        spec = self.spec
        t_polarity = topic_polarity(title)
        argument_relevance = _minmax({d: s for d, s in hits})
        best_sentence = max((s for _, s in sentence_hits), default=0.0)
        sentence_relevance = {sid: (s / best_sentence if best_sentence > 0 else 0.0) for sid, s in sentence_hits}
        order = [d for d, _ in hits]
        extra = []  # arguments of top sentence hits (sentence-first retrieval)
        for sid, _ in sentence_hits[: spec.candidates.sentence_hits]:
            extra.append(parse_sentence_id(sid)[0])
        depth = min(spec.candidates.arguments, len(order)) if order else 0
        attempts = [(depth, self.strict)]
        if spec.candidates.expand:
            while depth < len(order):
                depth = min(len(order), depth * 2)
                attempts.append((depth, self.strict))
            attempts.append((len(order), self.relaxed))
        selected: list[Pair] = []
        used = 0
        relaxed = False
        for depth, filters in attempts:
            ids = _unique(order[:depth] + extra)
            records = fetch(ids)
            arguments = [records[i] for i in ids if i in records]
            candidates = self.candidates(arguments, argument_relevance, sentence_relevance, t_polarity, filters)
            selected = self.select(self.score(self.pairs(candidates)))
            used, relaxed = len(arguments), filters is self.relaxed
            if len(selected) >= spec.selection.min_pairs:
                break
        warning = None
        if len(selected) < spec.selection.min_pairs:
            warning = (f"topic {qid}: only {len(selected)} pairs from {used} retrieved arguments (Touché asks for at "
                       f"least {spec.selection.min_pairs}); the collection supplies no more for this query")
        return TopicPairs(qid, selected, used, relaxed, time.perf_counter() - started, warning)

    # ---- candidates
    def analyse(self, record: SentencedArgument) -> "_Analysed":
        """What a topic does not change: tokens, terms, argumentativeness (cached per argument)."""
        found = self._analysed.get(record.id)
        if found is not None:
            return found
        if len(self._analysed) >= _ANALYSED_CACHE:
            self._analysed.clear()
        sentences = []
        whole: Counter = Counter()
        for sentence in record.sentences:
            key = text_key(sentence.text)
            if not key:
                continue
            tokens = words(sentence.text)
            terms = content_terms(tokens)
            whole.update(terms)
            conclusion = sentence.role == CONCLUSION
            sentences.append(_AnalysedSentence(sentence, key, terms, is_negated(tokens), len(tokens), argumentativeness(
                sentence.text, len(tokens), self.spec.argumentativeness, conclusion)))
        analysed = _Analysed(sentences, whole, sum(v * v for v in whole.values()))
        self._analysed[record.id] = analysed
        return analysed

    def candidates(self, arguments: Sequence[SentencedArgument], argument_relevance: Mapping[str, float],
                   sentence_relevance: Mapping[str, float], t_polarity: int, filters: _Filters) -> list[ArgumentCandidates]:
        spec, w = self.spec, self.spec.score
        analysed = [self.analyse(record) for record in arguments]
        best_by_key: dict[str, float] = {}  # a text's sentence relevance: the best of its copies
        for a in analysed:
            for s in a.sentences:
                score = sentence_relevance.get(s.sentence.id, 0.0)
                if score > best_by_key.get(s.key, -1.0):
                    best_by_key[s.key] = score
        out = []
        for rank, (record, a) in enumerate(zip(arguments, analysed)):
            argument_score = argument_relevance.get(record.id, 0.0)
            attacked = spec.building.conclusion_needs_support and record.stance == "CON"
            kept = []
            seen_keys = set()
            for s in a.sentences:
                conclusion = s.sentence.role == CONCLUSION
                if attacked and conclusion:
                    continue
                minimum = filters.min_words_conclusion if conclusion else filters.min_words
                if not minimum <= s.words <= filters.max_words or s.key in seen_keys \
                        or s.argumentativeness < filters.min_argumentativeness:
                    continue
                seen_keys.add(s.key)  # a sentence repeated inside one argument counts once
                candidate = Candidate(s.sentence, s.key, s.terms, s.negated, s.words)
                candidate.relevance = (spec.relevance.sentence * best_by_key.get(s.key, 0.0)
                                       + spec.relevance.argument * argument_score)
                candidate.argumentativeness = s.argumentativeness
                candidate.representativeness = similarity_to_rest(s.terms, a.whole, a.whole_norm2)
                candidate.individual = (w.relevance * candidate.relevance + w.argumentativeness * s.argumentativeness
                                        + w.representativeness * candidate.representativeness)
                kept.append(candidate)
            if kept:
                out.append(ArgumentCandidates(record, rank, argument_stance(record, t_polarity, spec.stance), kept))
        return out

    # ---- pairs
    def pairs(self, arguments: Sequence[ArgumentCandidates]) -> list[Pair]:
        b = self.spec.building
        pairs: list[Pair] = []
        for argument in arguments:
            conclusions = [c for c in argument.candidates if c.is_conclusion]
            premises = sorted((c for c in argument.candidates if not c.is_conclusion), key=lambda c: c.sentence.position)
            if conclusions and b.conclusion_premises:
                best = sorted(premises, key=lambda c: (-c.individual, c.sentence.position))[: b.conclusion_premises]
                pairs += [Pair(conclusions[0], p, "conclusion-premise", argument.stance) for p in best
                          if p.key != conclusions[0].key]
            if b.window:
                for i, first in enumerate(premises):
                    for second in premises[i + 1:]:
                        if second.sentence.position - first.sentence.position > b.window:
                            break
                        if first.key != second.key:
                            pairs.append(Pair(first, second, "premises", argument.stance))
        if b.cross_arguments:
            groups: dict[tuple[str, str], list[ArgumentCandidates]] = {}
            for argument in arguments:  # in rank order, so each group is too
                if argument.stance in STANCES:
                    claim = text_key(argument.record.argument.conclusion) if b.cross_same_conclusion else ""
                    groups.setdefault((argument.stance, claim), []).append(argument)
            for (stance, _), members in groups.items():
                if len(members) > 1:
                    pairs += self.cross_pairs(members[: b.cross_arguments], stance)
        return pairs

    def cross_pairs(self, arguments: Sequence[ArgumentCandidates], stance: str) -> list[Pair]:
        picked: list[list[Candidate]] = []
        taken: set[str] = set()
        for argument in arguments:
            best = []
            for c in sorted(argument.candidates, key=lambda c: (-c.individual, c.sentence.position)):
                if c.key not in taken:
                    best.append(c)
                    taken.add(c.key)
                if len(best) == self.spec.building.cross_sentences:
                    break
            picked.append(best)
        pairs = []
        for i, firsts in enumerate(picked):  # the higher-ranked argument's sentence comes first
            for seconds in picked[i + 1:]:
                pairs += [Pair(a, b, "cross", stance) for a in firsts for b in seconds]
        return pairs

    # ---- scores and selection
    def score(self, pairs: list[Pair]) -> list[Pair]:
        """Scores the pairs; near-duplicate pairs are dropped."""
        w = self.spec.score
        kept = []
        for pair in pairs:
            a, b = pair.first, pair.second
            overlap = cosine(a.terms, b.terms)
            if overlap >= w.max_overlap:
                continue
            contradiction = overlap >= w.contradiction_overlap and a.negated != b.negated
            pair.score = (w.relevance * (a.relevance + b.relevance) / 2
                          + w.argumentativeness * (a.argumentativeness + b.argumentativeness) / 2
                          + w.representativeness * (a.representativeness + b.representativeness) / 2
                          + w.coherence * overlap
                          + w.same_argument * pair.same_argument
                          + w.conclusion * (a.is_conclusion or b.is_conclusion)
                          - w.contradiction * contradiction)
            kept.append(pair)
        return kept

    def select(self, pairs: list[Pair]) -> list[Pair]:
        s = self.spec.selection
        ordered = sorted(pairs, key=lambda p: (-p.score, p.docid))
        chosen: list[Pair] = []
        deferred: list[Pair] = []
        seen: set[frozenset] = set()
        uses: Counter = Counter()
        for pair in ordered:
            texts = frozenset((pair.first.key, pair.second.key))
            if texts in seen:
                continue
            if uses[pair.first.key] >= s.max_per_sentence or uses[pair.second.key] >= s.max_per_sentence:
                deferred.append(pair)
                continue
            seen.add(texts)
            uses.update(texts)
            chosen.append(pair)
        for pair in deferred:  # the diversity limit yields to the pair count
            texts = frozenset((pair.first.key, pair.second.key))
            if texts not in seen:
                seen.add(texts)
                chosen.append(pair)
        chosen = chosen[: s.max_pairs]
        _monotone(chosen)
        return chosen


def _monotone(pairs: list[Pair]) -> None:
    """Deferred pairs may score higher than the last diverse one, and equal scores would leave
    the order to the run writer's docid tie-break: make scores strictly follow our order."""
    for previous, pair in zip(pairs, pairs[1:]):
        if pair.score >= previous.score:
            pair.score = math.nextafter(previous.score, -math.inf)


def _minmax(scores: Mapping[str, float]) -> dict[str, float]:
    if not scores:
        return {}
    low, high = min(scores.values()), max(scores.values())
    if high == low:
        return {d: 1.0 for d in scores}
    return {d: (s - low) / (high - low) for d, s in scores.items()}


def _unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))


# ---------------------------------------------------------------- the task handler
def sentence_variant(variant: Variant) -> Variant:
    """The variant whose index holds one document per sentence (same corpus and analyzer)."""
    return variant.model_copy(update={"index": variant.index.model_copy(update={"fields": SENTENCE_FIELDS}),
                                      "rerank": ()})


def _similarity(variant: Variant, spec: PairsSpec) -> BM25 | LMDirichlet:
    chosen = spec.sentence_retrieval.similarity
    if chosen is None:
        return variant.retrieval.similarity
    if chosen.name == "bm25":
        return BM25(k1=chosen.k1, b=chosen.b)
    return LMDirichlet(mu=chosen.mu)


class ArgumentStore:
    """Parsed argument records from the argument index's stored raw JSON, cached per run."""

    def __init__(self, raw: Callable[[list[str]], Mapping[str, str | None]]):
        self._raw = raw
        self._cache: dict[str, SentencedArgument | None] = {}

    def __call__(self, ids: list[str]) -> dict[str, SentencedArgument]:
        missing = [i for i in ids if i not in self._cache]
        if missing:
            for docid, raw in self._raw(missing).items():
                self._cache[docid] = SentencedArgument.from_json(raw) if raw is not None else None
        return {i: self._cache[i] for i in ids if self._cache.get(i) is not None}


def search_sentences(ctx: TaskContext, queries: Mapping[str, str], spec: PairsSpec) -> Ranking:
    """The topics' hits in the sentence-level index (built on first use, then shared)."""
    variant = ctx.variant
    searcher = ctx.open_index(sentence_variant(variant))
    searcher.set_similarity(_similarity(variant, spec))
    return searcher.search(queries, {"sentence": 1.0}, spec.sentence_retrieval.depth, variant.retrieval.threads)


def pair_rows(ctx: TaskContext, ranking: Ranking) -> Rows:
    variant = ctx.variant
    if any(f in SENTENCE_FIELDS for f in variant.index.fields):
        raise ConfigError("task1-pairs: index.fields are the argument-level fields (contents, conclusion, premises, "
                          "title); the sentence index is derived from them", path=ctx.variant_path)
    spec = variant.pairs or PairsSpec()
    topics = {t.number: t for t in ctx.topics}
    queries = {qid: query_text(topics[qid], variant.query, str(ctx.topics_path)) for qid in ranking}
    sentence_ranking = search_sentences(ctx, queries, spec)
    builder = PairBuilder(spec)
    store = ArgumentStore(ctx.searcher.raw)
    rows: Rows = {}
    for qid, hits in ranking.items():
        result = builder.build(qid, topics[qid].title, hits, sentence_ranking.get(qid, []), store)
        if result.warning:
            log.warning("warning: %s: %s", ctx.name, result.warning)
        rows[qid] = [(p.docid, p.score, p.stance) for p in result.pairs]
    return rows


HANDLER = TaskHandler(RunFormat.PAIRS, ("argsme-sentences",), pair_rows)
