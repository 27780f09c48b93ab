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
import time
from collections import Counter
from dataclasses import dataclass
from typing import Callable, Iterable, Mapping, Sequence

from touche.config import BM25, LMDirichlet, VariantSpec
from touche.errors import ConfigError
from touche.indexing.sentences import (
    CONCLUSION,
    SENTENCE_FIELDS,
    Sentence,
    SentencedArgument,
    parse_sentence_id,
    text_key,
)
from touche.retrieval.formats.runfile import ARGUMENT_STANCES
from touche.retrieval.query import query_text
from touche.retrieval.search import Ranking
from touche.retrieval.tasks import Rows, TaskContext
from touche.retrieval.tasks.task1.features import (
    argument_stance,
    argumentativeness,
    content_terms,
    cosine,
    is_negated,
    polarity,
    similarity_to_rest,
    topic_polarity,
)
from touche.specs.pairs import PairsSpec
from touche.stemming.words import words

log = logging.getLogger(__name__)

__all__ = ["pair_rows", "PairBuilder", "Candidate", "Pair", "TopicPairs", "sentence_variant",
           "argumentativeness", "polarity", "argument_stance", "STANCES"]

STANCES = ARGUMENT_STANCES


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
                   sentence_relevance: Mapping[str, float], t_polarity: int,
                   filters: _Filters) -> list[ArgumentCandidates]:
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
            premises = sorted((c for c in argument.candidates if not c.is_conclusion),
                              key=lambda c: c.sentence.position)
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
def sentence_variant(variant: VariantSpec) -> VariantSpec:
    """The variant whose index holds one document per sentence (same corpus and analyzer)."""
    return variant.model_copy(update={"index": variant.index.model_copy(update={"fields": SENTENCE_FIELDS}),
                                      "rerank": ()})


def _similarity(variant: VariantSpec, spec: PairsSpec) -> BM25 | LMDirichlet:
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
        return {i: found for i in ids if (found := self._cache.get(i)) is not None}


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

