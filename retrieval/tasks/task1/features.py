"""The text features and stance cues of Task 1 2022's sentence pairs (pairs.py): content
terms and their cosines, argumentative and noise markers, polarity cues, and an argument's stance
toward the topic. A light Python tokenizer (lower-cased words, SMART stoplist, Harman's
S-stemmer): the features compare a few hundred sentences per topic, where a JVM round trip per
sentence would cost more than the features themselves."""
from __future__ import annotations

import math
import re
from collections import Counter
from typing import Iterable, Mapping, Sequence

from touche.indexing.sentences import SentencedArgument
from touche.retrieval.formats.runfile import ARGUMENT_STANCES as STANCES
from touche.specs.pairs import StanceSpec
from touche.stemming.stems import s_stem  # plurals only: overlap features need no more
from touche.stemming.stoplists import shipped
from touche.stemming.words import words

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
    value = (spec.markers * markers + spec.length * length_feature(n_words, spec.ideal_words)) / (
        spec.markers + spec.length
    )
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
