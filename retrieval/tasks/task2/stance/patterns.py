"""Stance of a passage toward the first of a topic's objects (Touché Task 2 2022).

Labels: ``FIRST`` (the passage favours the first object), ``SECOND`` (the second), ``NEUTRAL``
(it compares them without a preference) and ``NO`` (no stance: it does not compare them).

Two kinds of evidence, both offline and explainable (no model to download):

* *comparative patterns* within a sentence: "A is better/faster/cheaper … than B", "prefer A
  over/to B", "A beats/outperforms B", "B is worse than A", with negation ("not better")
  flipping the direction. Which object stands before the comparative word decides the side;
  cue words that flip the polarity (worse, slower, inferior, …) are listed in ``NEGATIVE_CUES``.
* *sentiment* of sentences naming only one object, by VADER (its lexicon ships inside the
  ``vaderSentiment`` package): positive about A is evidence for FIRST, positive about B for
  SECOND.

A *gate* first decides whether the passage takes a stance at all: in the 2022 judgments a
passage without stance is nearly always one that does not compare the objects in running text
(of the judged passages labelled NO, 80 % are judged non-relevant). So a passage is NO unless it
names every object, has a sentence naming an object in comparative language, and a share of its
words (``gate_min_prose``) lies in well-formed sentences: the re-ranking features of
retrieval/tasks/task2/features.py.

evidence = comparative_weight × mean pattern vote + sentiment_weight × mean sentiment vote
(both in [-1, 1]); then |evidence| ≤ margin → NEUTRAL, else the favoured side. Without the gate
(``gate: false``): no object named, or too little evidence without both objects → NO.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from touche.retrieval.tasks.task2.features import ObjectMatcher, text_features
from touche.retrieval.tasks.task2.objects import ComparedObjects
from touche.specs.task2 import RerankSpec, StanceSpec
from touche.stemming.sentences import web_sentences as sentences
from touche.stemming.sentiment import compound
from touche.stemming.stems import porter as stem_of
from touche.stemming.words import technical_words as words

# Comparative words in favour of what stands before them ("A is better than B").
POSITIVE_CUES = frozenset("""
better superior faster cheaper safer healthier easier stronger nicer smarter preferable best greater
more reliable efficient powerful cleaner quieter lighter tastier richer beats outperforms wins prefer
preferred favor favour recommend
""".split())
# … and against it ("A is worse than B").
NEGATIVE_CUES = frozenset("""
worse inferior slower costlier pricier riskier harder weaker heavier louder poorer less worst loses
""".split())
NEGATIONS = frozenset("not no never n't isn't aren't wasn't don't doesn't didn't cannot can't won't".split())


@dataclass(frozen=True)
class StanceEvidence:
    comparative: float  # mean pattern vote of the sentences with one, in [-1, 1]
    sentiment: float  # mean sentiment vote, in [-1, 1]
    named: tuple[bool, bool]  # first / second object named anywhere
    compared: bool  # some sentence names both objects


@lru_cache(maxsize=1)
def stance_cue_stems() -> tuple[frozenset[str], frozenset[str]]:
    return frozenset(stem_of(w) for w in POSITIVE_CUES), frozenset(stem_of(w) for w in NEGATIVE_CUES)


def positions(tokens: list[str], stems: list[str], obj: frozenset[str]) -> list[int]:
    """Token positions where the object is named (its last content word)."""
    if not obj:
        return []
    if len(obj) == 1:
        (only,) = tuple(obj)
        return [i for i, s in enumerate(stems) if s == only]
    # multi-word objects: all their stems within a window of 4 tokens
    return [i for i, s in enumerate(stems) if s in obj and obj <= set(stems[max(0, i - 3): i + 4])]


def pattern_vote(tokens: list[str], stems: list[str], first: list[int], second: list[int]) -> float:
    """+1: the sentence says the first object is better; -1: the second; 0: no pattern."""
    positive, negative = stance_cue_stems()
    votes = 0.0
    for i, s in enumerate(stems):
        sign = 1 if s in positive else -1 if s in negative else 0
        if tokens[i] == "more" and i + 1 < len(tokens) and tokens[i + 1] in ("expensive", "difficult", "dangerous"):
            sign = -1
        if not sign:
            continue
        if any(t in NEGATIONS for t in tokens[max(0, i - 3): i]):
            sign = -sign
        before_first = [p for p in first if p < i]
        before_second = [p for p in second if p < i]
        # the subject of the comparison is the object named closest before the cue word
        last_first = max(before_first, default=-1)
        last_second = max(before_second, default=-1)
        if last_first < 0 and last_second < 0:
            # "prefer A over B", "better: A" — the object right after the cue is the subject
            after_first = min((p for p in first if p > i), default=None)
            after_second = min((p for p in second if p > i), default=None)
            if after_first is None and after_second is None:
                continue
            subject_is_first = after_second is None or (after_first is not None and after_first < after_second)
        else:
            subject_is_first = last_first > last_second
        votes += sign if subject_is_first else -sign
    return max(-1.0, min(1.0, votes))


def evidence(text: str, comp: ComparedObjects) -> StanceEvidence:
    if len(comp.objects) < 2:
        return StanceEvidence(0.0, 0.0, (False, False), False)
    matcher = ObjectMatcher(comp)
    first_obj, second_obj = matcher.objects[0], matcher.objects[1]
    pattern_votes: list[float] = []
    sentiment_votes: list[float] = []
    named_first = named_second = compared = False
    for sentence in sentences(text):
        tokens = words(sentence)
        stems = [stem_of(t) for t in tokens]
        first = positions(tokens, stems, first_obj)
        second = positions(tokens, stems, second_obj)
        named_first |= bool(first)
        named_second |= bool(second)
        if not first and not second:
            continue
        if first and second:
            compared = True
        vote = pattern_vote(tokens, stems, first, second)
        if vote:
            pattern_votes.append(vote)
        elif bool(first) != bool(second):
            polarity = compound(sentence)
            if abs(polarity) >= 0.3:
                sentiment_votes.append(polarity if first else -polarity)
    mean = lambda xs: sum(xs) / len(xs) if xs else 0.0  # noqa: E731
    return StanceEvidence(mean(pattern_votes), mean(sentiment_votes), (named_first, named_second), compared)


def takes_stance(text: str, comp: ComparedObjects, spec: StanceSpec, features: dict[str, float] | None = None) -> bool:
    """The gate: every object named, comparative language about one, enough running prose
    (``features``: the text's re-ranking features, when the caller has them)."""
    features = features or text_features(text, ObjectMatcher(comp), RerankSpec())
    return (features["objects_all"] > 0 and features["comparative_objects"] > 0
            and features["prose"] >= spec.gate_min_prose)


def decide(ev: StanceEvidence, spec: StanceSpec, gated: bool = False) -> str:
    """The label from the evidence; ``gated``: the gate has already said the passage takes a stance."""
    if gated:
        score = spec.comparative_weight * ev.comparative + spec.sentiment_weight * ev.sentiment
        if abs(score) <= spec.margin:
            return "NEUTRAL"
        return "FIRST" if score > 0 else "SECOND"
    if not any(ev.named):
        return "NO"
    score = spec.comparative_weight * ev.comparative + spec.sentiment_weight * ev.sentiment
    strength = spec.comparative_weight * abs(ev.comparative) + spec.sentiment_weight * abs(ev.sentiment)
    if strength < spec.min_evidence and not ev.compared:
        return "NO"
    if abs(score) <= spec.margin:
        if spec.neutral_needs_both and not all(ev.named):
            return "NO"
        return "NEUTRAL"
    return "FIRST" if score > 0 else "SECOND"


def label_stance(text: str, comp: ComparedObjects, spec: StanceSpec) -> str:
    """FIRST, SECOND, NEUTRAL or NO for one passage."""
    if spec.method == "none" or len(comp.objects) < 2:
        return "NO"
    if spec.gate:
        if not takes_stance(text, comp, spec):
            return "NO"
        return decide(evidence(text, comp), spec, gated=True)
    return decide(evidence(text, comp), spec)
