"""Learned comparative stance (Task 2 2022): a sentence classifier trained on CompSent-19, and a
passage model over its votes.

**Sentences.** CompSent-19 (Panchenko et al., "Categorizing Comparative Sentences", ArgMining
2019; the authors' data from github.com/uhh-lt/comparative) labels 7,199 web sentences naming
two objects BETTER / WORSE / NONE for the object named first in the sentence. A multinomial
logistic regression reads each sentence with the two objects replaced by ``OBJA`` (named first)
and ``OBJB`` (named second): TF-IDF word 1–3-grams of the masked sentence plus 19 pattern cues
(comparative cue words and which object precedes them, negation, "than", "vs", the rules'
pattern vote, the distance of the objects). Trained on CompSent-19's train split only: 0.863
micro-F1 on its held-out test split (the paper: about 0.85 with gradient boosting on InferSent
embeddings). MiniLM embeddings of the masked sentence were measured as features too: +0.006
micro-F1 at the sentence level, nothing at the passage level (±0.01), for minutes of encoding per
submission; they are not used. The placeholders are given by position in the sentence: a
sentence naming the topic's second object first has BETTER and WORSE swapped.

**Passages** (the hard part: of 343 passages judged NO, 278 have a sentence naming both objects).
A passage that names neither object, or is not English (under 15 % function words), is NO
before any model runs; for the others, two decisions over the sentences that name both objects:

* ``learned``: nothing fitted on Touché labels. NO unless some such sentence is comparative
  (its most likely class is not NONE); the side from the mean of P(first better) − P(second
  better) over those sentences; NEUTRAL when it is 0.
* ``combined``: a 4-class logistic regression (balanced classes) over 37 passage features: 20
  of the sentence votes (their count and share, the largest and mean comparative probability,
  the signed mean, how often each object is named, length, cue sentences) and 17 of the rules
  (retrieval/tasks/task2/stance/patterns.py's evidence and gate, the re-ranking text features: prose share,
  capitals, spam …). It is fitted on the Touché 2022 passage sample, so it is **cross-fitted**: the
  file holds a model per topic-grouped fold, and a topic of the sample is labelled by the model
  whose training data did not hold it (the figure on the sample is the out-of-fold estimate);
  any other topic by the model fitted on all of the sample.

``touche train-stance`` reproduces the shipped file byte for byte from CompSent-19 and the
sample (``data/stance_model.json.gz``; gzip with a fixed time). The model's source and terms are
recorded in the file.
"""
from __future__ import annotations

import gzip
import hashlib
import json
import math
import re
import zlib
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Iterable, Mapping, Sequence

import numpy as np

from touche.bounds import FEATURE_LIMIT, check_linear_output, checked_array, checked_count
from touche.errors import InputError
from touche.retrieval.tasks.task2.features import ObjectMatcher, cue_stems, stopwords, text_features
from touche.retrieval.tasks.task2.objects import ComparedObjects
from touche.retrieval.tasks.task2.stance.patterns import (
    NEGATIONS,
    evidence,
    pattern_vote,
    positions,
    stance_cue_stems,
    takes_stance,
)
from touche.retrieval.tasks.task2.stance.registry import MODEL_FILE  # noqa: E402 (one place says where it lies)
from touche.sources import regular_file
from touche.specs.task2 import RerankSpec, StanceSpec
from touche.stemming.sentences import web_sentences
from touche.stemming.stems import porter as stem_of

PLACEHOLDERS = ("OBJA", "OBJB")
SENTENCE_CLASSES = ("BETTER", "NONE", "WORSE")  # for the object named first in the sentence
PASSAGE_LABELS = ("FIRST", "SECOND", "NEUTRAL", "NO")
SOURCE = ("CompSent-19 (Panchenko, Bondarenko, Franzek, Hagen, Biemann: Categorizing Comparative Sentences, "
          "ArgMining 2019; data from github.com/uhh-lt/comparative, Classification/all_data_files, train.csv); "
          "passage model: the Touché 2022 Task 2 passage sample and stance judgements (cross-fitted by topic)")
TOKEN = re.compile(r"[A-Za-z0-9]+(?:['.][A-Za-z0-9]+)*(?:[+#]+(?![A-Za-z0-9]))?")
TFIDF_TOKEN = r"(?u)\b\w[\w']*\b"  # scikit-learn's TfidfVectorizer token_pattern at training time
_TFIDF_TOKEN = re.compile(TFIDF_TOKEN)
_ER = re.compile(r"^[a-z]{3,}i?er$")
# Running English prose has 30–60 % function words; below 15 % (where the re-ranking's language
# band reaches 0) a passage is another language or a keyword list: NO, the model does not run.
MIN_ENGLISH_SHARE = 0.15
_EST = re.compile(r"^[a-z]{3,}i?est$")
CUE_NAMES = ("positive_cues", "negative_cues", "negated_cues", "first_before_cue", "second_before_cue", "vote",
             "vote_first", "vote_second", "comparative_words", "er_words", "est_words", "than", "versus",
             "prefer_over", "negation", "names_first", "names_second", "log_length", "log_object_distance")


def english_share(text: str) -> float:
    """The share of SMART-list function words among the words of two letters or more (a letter
    the tokenizer splits off "débutants" counts for nothing)."""
    words = [t for t in tokens_of(text)[0] if len(t) > 1]
    stop = stopwords()
    return sum(1 for w in words if w in stop) / len(words) if words else 0.0


def is_english(text: str) -> bool:
    return english_share(text) >= MIN_ENGLISH_SHARE


# --------------------------------------------------------------------------- one sentence
@dataclass(frozen=True)
class Sentence:
    """A sentence naming both objects, as the classifier reads it."""
    masked: str            # OBJA for the object named first, OBJB for the other
    cues: np.ndarray       # CUE_NAMES
    first_is_topic_first: bool  # OBJA is the topic's first object


def tokens_of(text: str) -> tuple[list[str], list[int], list[int]]:
    """Lower-cased tokens with their character spans."""
    found = list(TOKEN.finditer(text))
    return [m.group().lower() for m in found], [m.start() for m in found], [m.end() for m in found]


def masked_sentence(tokens: Sequence[str], first: set[int], second: set[int]) -> str:
    """The tokens with the first-named object's as OBJA, the other's as OBJB (a run of one
    object's tokens is one placeholder)."""
    out: list[str] = []
    for i, token in enumerate(tokens):
        mark = PLACEHOLDERS[0] if i in first else PLACEHOLDERS[1] if i in second else None
        if mark is None:
            out.append(token)
        elif not out or out[-1] != mark:
            out.append(mark)
    return " ".join(out)


def cue_features(tokens: Sequence[str], stems: Sequence[str], first: Sequence[int],
                 second: Sequence[int]) -> np.ndarray:
    """The 19 pattern cues of a sentence; ``first``/``second``: positions of the object named
    first / second in it."""
    positive, negative = stance_cue_stems()
    comparative = cue_stems()[0]  # the comparative cue words
    counts: Counter[str] = Counter()
    for i, stem in enumerate(stems):
        sign = 1 if stem in positive else -1 if stem in negative else 0
        counts["comparative"] += stem in comparative
        counts["er"] += bool(_ER.match(tokens[i]))
        counts["est"] += bool(_EST.match(tokens[i]))
        if not sign:
            continue
        counts["positive" if sign > 0 else "negative"] += 1
        counts["negated"] += any(t in NEGATIONS for t in tokens[max(0, i - 3): i])
        before_first = max((p for p in first if p < i), default=-1)
        before_second = max((p for p in second if p < i), default=-1)
        if before_first != before_second:
            counts["first_before" if before_first > before_second else "second_before"] += 1
    vote = pattern_vote(list(tokens), list(stems), list(first), list(second)) if (first or second) else 0.0
    words = set(tokens)
    distance = abs(min(first) - min(second)) if first and second else 0
    return np.array([min(counts["positive"], 3), min(counts["negative"], 3), min(counts["negated"], 2),
                     min(counts["first_before"], 3), min(counts["second_before"], 3), vote, float(vote > 0),
                     float(vote < 0), min(counts["comparative"], 3), min(counts["er"], 3), min(counts["est"], 2),
                     float("than" in words), float(bool(words & {"vs", "versus"})),
                     float(bool(words & {"prefer", "over"})), float(bool(words & NEGATIONS)),
                     float(bool(first)), float(bool(second)), math.log1p(len(tokens)), math.log1p(distance)],
                    dtype=float)


def sentence_of(tokens: list[str], first: list[int], second: list[int], first_is_topic_first: bool,
                stems: list[str] | None = None) -> Sentence:
    stems = stems if stems is not None else [stem_of(t) for t in tokens]
    return Sentence(masked_sentence(tokens, set(first), set(second)), cue_features(tokens, stems, first, second),
                    first_is_topic_first)


def comparative_sentences(text: str, matcher: ObjectMatcher) -> tuple[list[Sentence], int, int, int, int]:
    """The passage's sentences that name both of the topic's objects, each oriented by which is
    named first; with the counts of sentences, of sentences naming each object, and of words."""
    out: list[Sentence] = []
    n_sentences = n_first = n_second = n_words = 0
    first_obj, second_obj = matcher.objects[0], matcher.objects[1]
    shared = first_obj & second_obj  # "Windows 8" / "Windows XP": find each by what is its own
    own_first, own_second = (first_obj - shared) or first_obj, (second_obj - shared) or second_obj
    for sentence in web_sentences(text):
        n_sentences += 1
        tokens, _, _ = tokens_of(sentence)
        n_words += len(tokens)
        stems = [stem_of(t) for t in tokens]
        a = positions(tokens, stems, own_first)
        b = positions(tokens, stems, own_second)
        n_first += bool(a)
        n_second += bool(b)
        if a and b:
            a_first = min(a) <= min(b)
            named_first, named_second = (a, b) if a_first else (b, a)
            out.append(sentence_of(tokens, named_first, named_second, a_first, stems))
    return out, n_sentences, n_first, n_second, n_words


# --------------------------------------------------------------------------- the sentence classifier
class SentenceClassifier:
    """The shipped multinomial LR over TF-IDF n-grams of the masked sentence and its cues,
    applied with numpy (the same arithmetic as scikit-learn's TfidfVectorizer and
    LogisticRegression at training time)."""

    def __init__(self, model: Mapping):
        tfidf = model["tfidf"]
        self.vocabulary = {term: i for i, term in enumerate(tfidf["vocabulary"])}
        self.idf = np.asarray(tfidf["idf"], dtype=float)
        self.ngrams = tuple(tfidf["ngram_range"])
        self.cue_mean = np.asarray(model["cues"]["mean"], dtype=float)
        self.cue_scale = np.asarray(model["cues"]["scale"], dtype=float)
        self.cue_weight = float(model["cues"]["weight"])
        self.coef = np.asarray(model["coef"], dtype=float)  # classes × (vocabulary + cues)
        self.intercept = np.asarray(model["intercept"], dtype=float)
        self.classes = tuple(model["classes"])

    def _tfidf(self, text: str) -> dict[int, float]:
        words = _TFIDF_TOKEN.findall(text.lower())
        counts: Counter = Counter()
        low, high = self.ngrams
        for n in range(low, high + 1):
            for i in range(len(words) - n + 1):
                index = self.vocabulary.get(" ".join(words[i:i + n]))
                if index is not None:
                    counts[index] += 1
        weights = {i: (1.0 + math.log(c)) * self.idf[i] for i, c in counts.items()}
        norm = math.sqrt(sum(w * w for w in weights.values())) or 1.0
        return {i: w / norm for i, w in weights.items()}

    def probabilities(self, sentences: Sequence[Sentence]) -> np.ndarray:
        """rows: P(BETTER), P(NONE), P(WORSE) for the object named first (``classes`` order)."""
        if not sentences:
            return np.zeros((0, len(self.classes)))
        vocabulary_size = len(self.idf)
        logits = np.tile(self.intercept, (len(sentences), 1))
        cues = (np.stack([s.cues for s in sentences]) - self.cue_mean) / self.cue_scale * self.cue_weight
        logits += cues @ self.coef[:, vocabulary_size:].T
        for row, sentence in enumerate(sentences):
            for index, weight in self._tfidf(sentence.masked).items():
                logits[row] += weight * self.coef[:, index]
        logits -= logits.max(axis=1, keepdims=True)
        exp = np.exp(logits)
        return exp / exp.sum(axis=1, keepdims=True)


def oriented(probabilities: np.ndarray, sentences: Sequence[Sentence], classes: Sequence[str]) -> np.ndarray:
    """rows: P(the topic's first object better), P(its second better), P(no comparison)."""
    better, none, worse = (list(classes).index(c) for c in SENTENCE_CLASSES)
    out = np.zeros((len(sentences), 3))
    for row, (p, s) in enumerate(zip(probabilities, sentences)):
        out[row] = (p[better], p[worse], p[none]) if s.first_is_topic_first else (p[worse], p[better], p[none])
    return out


# --------------------------------------------------------------------------- passages
LEARNED_FEATURES = ("log_sentences_both", "share_sentences_both", "max_comparative", "mean_comparative",
                    "comparative_sentences", "share_comparative", "signed_sum", "signed_mean", "max_first",
                    "max_second", "log_names_first", "log_names_second", "names_first", "names_second",
                    "log_words", "log_sentences", "aspect_coverage", "no_aspect", "cue_sentence_share",
                    "aspect_with_both")
RULE_TEXT_FEATURES = ("objects_all", "object_balance", "cooccurrence", "comparative", "comparative_objects",
                      "comparison", "argumentative", "aspect", "length", "language", "prose", "capitals", "spam")
PASSAGE_FEATURES = LEARNED_FEATURES + ("rules_comparative", "rules_sentiment", "rules_compared", "rules_gate") \
    + RULE_TEXT_FEATURES


@dataclass(frozen=True)
class PassageEvidence:
    """What the passage models read: the oriented sentence probabilities and passage features."""
    votes: np.ndarray      # sentences naming both objects × (P first better, P second better, P none)
    features: np.ndarray   # PASSAGE_FEATURES
    named: bool            # some sentence names one of the objects


def passage_evidence(text: str, comp: ComparedObjects, classifier: SentenceClassifier) -> PassageEvidence:
    matcher = ObjectMatcher(comp)
    sentences, n_sentences, n_first, n_second, n_words = comparative_sentences(text, matcher)
    votes = oriented(classifier.probabilities(sentences), sentences, classifier.classes)
    comparative = 1.0 - votes[:, 2] if len(votes) else np.zeros(0)
    signed = votes[:, 0] - votes[:, 1] if len(votes) else np.zeros(0)
    cue_sentences = sum(1 for s in sentences if s.cues[0] + s.cues[1] + s.cues[8] > 0)
    words = {stem_of(t) for t in tokens_of(text)[0]} if matcher.aspect else set()
    aspect = len(matcher.aspect & words) / len(matcher.aspect) if matcher.aspect else -1.0
    with_aspect = 0.0
    if matcher.aspect:
        with_aspect = float(any(matcher.aspect & {stem_of(t) for t in s.masked.split()} for s in sentences))
    share = max(n_sentences, 1)
    learned = [math.log1p(len(votes)), len(votes) / share, float(comparative.max(initial=0)),
               float(comparative.mean()) if len(votes) else 0.0, float((comparative > 0.5).sum()),
               float((comparative > 0.5).sum()) / share, float((signed * comparative).sum()),
               float((signed * comparative).sum() / max(comparative.sum(), 1e-6)), float(signed.max(initial=0)),
               float((-signed).max(initial=0)), math.log1p(n_first), math.log1p(n_second), float(n_first > 0),
               float(n_second > 0), math.log1p(n_words), math.log1p(n_sentences), max(aspect, 0.0),
               float(aspect < 0), cue_sentences / share, with_aspect]
    ev = evidence(text, comp)
    text_values = text_features(text, matcher, RerankSpec())
    rules = [ev.comparative, ev.sentiment, float(ev.compared),
             float(takes_stance(text, comp, StanceSpec(), text_values))]
    rules += [text_values[k] for k in RULE_TEXT_FEATURES]
    return PassageEvidence(votes, np.asarray(learned + rules, dtype=float), bool(n_first or n_second))


def learned_label(ev: PassageEvidence) -> str:
    """CompSent-19 alone: NO unless a sentence naming both objects is comparative; the side from
    the mean of P(first better) − P(second better) over those; NEUTRAL at 0."""
    comparative = ev.votes[ev.votes.argmax(axis=1) != 2] if len(ev.votes) else ev.votes
    if not len(comparative):
        return "NO"
    score = float(np.mean(comparative[:, 0] - comparative[:, 1]))
    return "NEUTRAL" if score == 0 else "FIRST" if score > 0 else "SECOND"


class PassageClassifier:
    """A standardised multinomial LR over PASSAGE_FEATURES."""

    def __init__(self, model: Mapping):
        self.mean = np.asarray(model["mean"], dtype=float)
        self.scale = np.asarray(model["scale"], dtype=float)
        self.coef = np.asarray(model["coef"], dtype=float)
        self.intercept = np.asarray(model["intercept"], dtype=float)
        self.classes = tuple(model["classes"])

    def label(self, features: np.ndarray) -> str:
        logits = ((features - self.mean) / self.scale) @ self.coef.T + self.intercept
        return self.classes[int(np.argmax(logits))]


def topic_key(title: str, objects: Iterable[str]) -> str:
    """A topic by what it asks (its number differs between copies and years)."""
    text = " ".join(title.lower().split()) + "\0" + ",".join(o.lower().strip() for o in objects)
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:12]


@dataclass(frozen=True)
class LearnedStanceClassifiers:
    sentences: SentenceClassifier
    passages: PassageClassifier                      # fitted on every topic of its sample
    folds: tuple[tuple[frozenset[str], PassageClassifier], ...]  # (topics left out, fitted on the rest)

    def passage_model_for(self, key: str | None) -> PassageClassifier:
        """The model that never saw this topic: a fold model for a topic of the training sample."""
        for topics, model in self.folds:
            if key in topics:
                return model
        return self.passages


def load(path: Path = MODEL_FILE) -> LearnedStanceClassifiers:
    path = regular_file(path, "stance model file", "write one with `touche train-stance -o FILE`")
    stat = path.stat()
    return _load(path.resolve(), stat.st_mtime_ns, stat.st_size)


MODEL_FORMAT = 1


@lru_cache(maxsize=4)
def _load(path: Path, mtime_ns: int, size: int) -> LearnedStanceClassifiers:
    """Parsed and checked once per version of the file: its format, the feature and cue names it
    was trained with (a file of another feature order would load and mislabel) and every array's
    shape, so that a damaged file is an error naming it, never an IndexError mid-run."""
    try:
        raw = path.read_bytes()
        data = json.loads(gzip.decompress(raw) if path.suffix == ".gz" else raw)
    except (OSError, EOFError, ValueError, zlib.error) as exc:  # truncated gzip, not JSON, not UTF-8
        raise InputError(f"not a stance model written by `touche train-stance` (cannot be read: {exc})",
                         path=path) from None
    try:
        check_model_data(data)
        return LearnedStanceClassifiers(SentenceClassifier(data["sentences"]),
                                        PassageClassifier(data["passages"]["all"]),
                                        tuple((frozenset(f["topics"]), PassageClassifier(f["model"]))
                                              for f in data["passages"]["folds"]))
    except (ValueError, KeyError, TypeError, IndexError) as exc:
        raise InputError(f"not a stance model written by `touche train-stance`: {exc}", path=path) from None


_PASSAGE_MODEL_KEYS = {"features": None, "classes": None, "mean": None, "scale": None, "coef": None, "intercept": None}
# The keys a model file holds (None: a value, not a mapping to look into): a missing one is named
# by its whole path (it was "not a stance model …: 'tfidf'", a bare KeyError).
MODEL_KEYS = {"format": None,
              "sentences": {"tfidf": {"vocabulary": None, "idf": None}, "cues": {"names": None, "mean": None,
                                                                                  "scale": None},
                            "classes": None, "coef": None, "intercept": None},
              "passages": {"all": _PASSAGE_MODEL_KEYS, "folds": None}}


def _missing_key(data, keys: dict, where: str = "") -> str | None:
    """The first key of ``keys`` that ``data`` lacks, as a dotted path (or that is no mapping)."""
    if not isinstance(data, dict):
        return f"{where} (not a mapping)" if where else "the top level (not a mapping)"
    for key, inner in keys.items():
        path = f"{where}.{key}" if where else key
        if key not in data:
            return path
        if inner is not None and (found := _missing_key(data[key], inner, path)):
            return found
    return None


def check_model_data(data) -> None:
    """Raise ValueError naming the first thing a model file's data has wrong."""
    if not isinstance(data, dict) or data.get("format") != MODEL_FORMAT:
        found = data.get("format") if isinstance(data, dict) else type(data).__name__
        raise ValueError(f"format {found!r}, expected {MODEL_FORMAT}")
    missing = _missing_key(data, MODEL_KEYS)
    if missing is None:
        folds = data["passages"]["folds"]
        if not isinstance(folds, list):
            missing = "passages.folds (not a list)"
        for i, fold in enumerate(folds if isinstance(folds, list) else []):
            missing = missing or _missing_key(fold, {"topics": None, "model": _PASSAGE_MODEL_KEYS},
                                              f"passages.folds[{i}]")
    if missing:
        raise ValueError(f"its key {missing} is missing (a file of `touche train-stance` has it)")
    sentences = data["sentences"]
    vocabulary = len(sentences["tfidf"]["vocabulary"])
    if tuple(sentences["cues"]["names"]) != CUE_NAMES:
        raise ValueError("its sentence cues are not the ones this version computes (retrain it)")
    if sorted(sentences["classes"]) != sorted(SENTENCE_CLASSES):
        raise ValueError(f"sentence classes {sentences['classes']}, expected {list(SENTENCE_CLASSES)}")
    classes = len(sentences["classes"])
    # shapes and values: every number finite and in range (NaN idf values labelled every passage alike)
    lowest, highest = checked_array(sentences["tfidf"]["ngram_range"], "sentences.tfidf.ngram_range", (2,), low=1,
                                    high=10)
    if lowest > highest or not float(lowest).is_integer() or not float(highest).is_integer():
        raise ValueError(f"sentences.tfidf.ngram_range {sentences['tfidf']['ngram_range']}: two whole numbers, "
                         "the first no larger")
    checked_array(sentences["tfidf"]["idf"], "sentences.tfidf.idf", (vocabulary,), low=0)
    mean = checked_array(sentences["cues"]["mean"], "sentences.cues.mean", (len(CUE_NAMES),))
    scale = checked_array(sentences["cues"]["scale"], "sentences.cues.scale", (len(CUE_NAMES),), above=0)
    weight = float(checked_array(sentences["cues"].get("weight", 1.0), "sentences.cues.weight", (), low=0))
    coef = checked_array(sentences["coef"], "sentences.coef", (classes, vocabulary + len(CUE_NAMES)))
    intercept = checked_array(sentences["intercept"], "sentences.intercept", (classes,))
    # a sentence's TF-IDF vector has unit length (each weight within 0…1), its cues are standardised and weighted
    cue_scale = scale / weight if weight else scale
    check_linear_output(coef, intercept, "the sentence classifier",
                        inputs=[1.0] * vocabulary + [FEATURE_LIMIT] * len(CUE_NAMES),
                        mean=[0.0] * vocabulary + list(mean), scale=[1.0] * vocabulary + list(cue_scale))
    checked_count(sentences.get("examples", 1), "sentences.examples")
    passages = data["passages"]
    for where, model in [("passages.all", passages["all"])] + [(f"passages.folds[{i}]", f["model"])
                                                              for i, f in enumerate(passages["folds"])]:
        if tuple(model["features"]) != PASSAGE_FEATURES:
            raise ValueError(f"{where}: its passage features are not the ones this version computes (retrain it)")
        if not set(model["classes"]) <= set(PASSAGE_LABELS):
            raise ValueError(f"{where}: labels {model['classes']} beyond {list(PASSAGE_LABELS)}")
        labels = len(model["classes"])
        mean = checked_array(model["mean"], f"{where}.mean", (len(PASSAGE_FEATURES),))
        scale = checked_array(model["scale"], f"{where}.scale", (len(PASSAGE_FEATURES),), above=0)
        coef = checked_array(model["coef"], f"{where}.coef", (labels, len(PASSAGE_FEATURES)))
        intercept = checked_array(model["intercept"], f"{where}.intercept", (labels,))
        check_linear_output(coef, intercept, where, mean=mean, scale=scale)
        checked_count(model.get("examples", 1), f"{where}.examples")


def gated_evidence(text: str, comp: ComparedObjects, classifier: SentenceClassifier) -> PassageEvidence | None:
    """The evidence the models read, or None for a passage that is NO before any model runs: no
    two objects to compare, empty, not English, or naming neither object."""
    if len(comp.objects) < 2 or not text.strip() or not is_english(text):
        return None
    ev = passage_evidence(text, comp, classifier)
    return ev if ev.named else None


EVIDENCE_CACHE = 100_000  # passages: a submission's five variants retrieve largely the same ones
_EVIDENCE: dict[tuple, PassageEvidence | None] = {}


def cached_evidence(text: str, comp: ComparedObjects, classifier: SentenceClassifier) -> PassageEvidence | None:
    """``gated_evidence``, decided once per passage and topic however many variants label it
    (keyed by the text's digest: the cache holds no texts; emptied when full)."""
    key = (hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest(), comp, classifier)
    if key in _EVIDENCE:
        return _EVIDENCE[key]
    if len(_EVIDENCE) >= EVIDENCE_CACHE:
        _EVIDENCE.clear()
    found = _EVIDENCE[key] = gated_evidence(text, comp, classifier)
    return found


def learned_labeller(model_file: Path):
    """``learned``: the sentence classifier's votes decide (NO for a passage the gate turns away)."""
    model = load(model_file)

    def label(text: str, comp: ComparedObjects, key: str | None) -> str:
        ev = cached_evidence(text, comp, model.sentences)
        return "NO" if ev is None else learned_label(ev)
    return label


def combined_labeller(model_file: Path):
    """``combined``: the passage model that never saw the topic decides."""
    model = load(model_file)

    def label(text: str, comp: ComparedObjects, key: str | None) -> str:
        ev = cached_evidence(text, comp, model.sentences)
        return "NO" if ev is None else model.passage_model_for(key).label(ev.features)
    return label
