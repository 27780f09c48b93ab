"""Training the learned stance (``touche train-stance``): the sentence classifier on CompSent-19,
the passage model on the Touché 2022 passage sample, cross-fitted by topic.

scikit-learn fits (its TfidfVectorizer and LogisticRegression: well-kept, deterministic with
lbfgs); the result is a few arrays in a gzipped JSON file that ``stance_model`` applies with
numpy, so a run needs no scikit-learn object and no pickle. Retraining from the same data gives
the same bytes (tests/tasks/test_stance_model.py).
"""
from __future__ import annotations

import csv
import gzip
import html
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import numpy as np

from touche.atomic import write_bytes
from touche.errors import InputError
from touche.indexing.corpora import open_corpus
from touche.retrieval.evaluation.measures import f1_per_label, stance_macro_f1
from touche.retrieval.formats.gate import load_qrels, load_topics
from touche.retrieval.formats.qrels import QrelsKind
from touche.retrieval.formats.runfile import canonical_topic
from touche.retrieval.tasks.task2.objects import ComparedObjects, comparison
from touche.retrieval.tasks.task2.stance.learned import (
    CUE_NAMES,
    PASSAGE_FEATURES,
    PASSAGE_LABELS,
    PLACEHOLDERS,
    SENTENCE_CLASSES,
    SOURCE,
    TFIDF_TOKEN,
    PassageClassifier,
    Sentence,
    SentenceClassifier,
    gated_evidence,
    learned_label,
    sentence_of,
    tokens_of,
    topic_key,
)
from touche.retrieval.tasks.task2.stance.registry import STANCE_MODELS
from touche.specs.task2 import StanceSpec

SENTENCE_C = 3.0      # chosen by 5-fold cross-validation on CompSent-19's train split
TFIDF_MIN_DF = 2
CUE_WEIGHT = 0.3      # the cues' scale beside the unit-length TF-IDF vector
PASSAGE_C = 0.3
FOLDS = 5
_SPAN = re.compile(r"<span[^>]*>(.*?):\[(OBJECT_[AB])\]</span>", re.S)
_TAG = re.compile(r"<[^>]+>")


# --------------------------------------------------------------------------- CompSent-19
def compsent_sentence(row: dict, where: str) -> tuple[Sentence, str]:
    """A CompSent-19 row as the classifier reads it, and its label for the object named first.

    The label compares the object marked ``[OBJECT_A]`` in ``sentence_html`` with the other;
    tokens overlapping each marked span are that object's (the ``object_a``/``object_b``
    columns are not always in sentence order)."""
    marked = row.get("sentence_html") or ""
    label = row.get("most_frequent_label")
    if label not in SENTENCE_CLASSES:
        raise InputError(f"most_frequent_label {label!r} is not BETTER, WORSE or NONE", where=where)
    text, spans, last = [], {}, 0
    for m in _SPAN.finditer(marked):
        text.append(html.unescape(_TAG.sub("", marked[last:m.start()])))
        start = sum(len(t) for t in text)
        name = html.unescape(m.group(1))
        text.append(name)
        spans[m.group(2)[-1]] = (start, start + len(name))
        last = m.end()
    text.append(html.unescape(_TAG.sub("", marked[last:])))
    if set(spans) != {"A", "B"}:
        raise InputError("sentence_html does not mark both [OBJECT_A] and [OBJECT_B]", where=where)
    sentence = "".join(text)
    tokens, starts, ends = tokens_of(sentence)
    over = {k: [i for i, (s, e) in enumerate(zip(starts, ends)) if s < hi and e > lo] for k, (lo, hi) in spans.items()}
    a, b = over["A"], [i for i in over["B"] if i not in over["A"]]
    a_first = min(a, default=0) <= min(b, default=len(tokens))
    named_first, named_second = (a, b) if a_first else (b, a)
    if not a_first:  # the label is for A, named second here: from the first-named object's side
        label = {"BETTER": "WORSE", "WORSE": "BETTER", "NONE": "NONE"}[label]
    return sentence_of(tokens, named_first, named_second, True), label


def read_compsent(path: Path) -> tuple[list[Sentence], list[str]]:
    sentences, labels = [], []
    try:
        handle = open(path, newline="", encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read CompSent-19: {exc.strerror}", path=path) from None
    with handle:
        number = 1
        try:
            reader = csv.DictReader(handle)
            missing = {"sentence_html", "most_frequent_label"} - set(reader.fieldnames or ())
            if missing:
                raise InputError(f"not a CompSent-19 file: no column {', '.join(sorted(missing))}", path=path)
            for number, row in enumerate(reader, start=2):
                try:
                    sentence, label = compsent_sentence(row, f"line {number}")
                except InputError as exc:
                    raise InputError(exc.message, path=path, where=exc.where) from None
                sentences.append(sentence)
                labels.append(label)
        except UnicodeDecodeError as exc:  # decoded in blocks: the header read may meet it already
            raise InputError(f"not UTF-8 text ({exc.reason}): CompSent-19's CSV is UTF-8", path=path,
                             where=f"after line {number}") from None
    return sentences, labels


def check_trainable(labels: list[str], path: Path, what: str) -> None:
    """A classifier needs examples of at least two classes: said with the file, before fitting."""
    if not labels:
        raise InputError(f"holds no {what} (only a header?): nothing to train on", path=path)
    classes = sorted(set(labels))
    if len(classes) < 2:
        raise InputError(f"all {len(labels)} {what}s are labelled {classes[0]}: a classifier needs at least two "
                         "classes", path=path)


def _round(values, digits: int = 6) -> list:
    return [float(f"{v:.{digits}g}") for v in np.asarray(values, dtype=float).ravel()]


def train_sentences(sentences: list[Sentence], labels: list[str]) -> dict:
    """The sentence classifier, JSON-ready (see stance_model.SentenceClassifier)."""
    from scipy import sparse
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression

    tfidf = TfidfVectorizer(ngram_range=(1, 3), min_df=TFIDF_MIN_DF, sublinear_tf=True, lowercase=True,
                            token_pattern=TFIDF_TOKEN)
    texts = tfidf.fit_transform([s.masked for s in sentences])
    cues = np.stack([s.cues for s in sentences])
    mean, scale = cues.mean(axis=0), cues.std(axis=0)
    scale[scale == 0] = 1.0
    x = sparse.hstack([texts, sparse.csr_matrix((cues - mean) / scale * CUE_WEIGHT)]).tocsr()
    fitted = LogisticRegression(C=SENTENCE_C, max_iter=5000).fit(x, labels)
    vocabulary = sorted(tfidf.vocabulary_, key=tfidf.vocabulary_.get)
    return {"classes": [str(c) for c in fitted.classes_], "placeholders": list(PLACEHOLDERS),
            "tfidf": {"ngram_range": [1, 3], "sublinear_tf": True, "vocabulary": vocabulary,
                      "idf": _round(tfidf.idf_)},
            "cues": {"names": list(CUE_NAMES), "mean": _round(mean), "scale": _round(scale), "weight": CUE_WEIGHT},
            "coef": [_round(row) for row in fitted.coef_], "intercept": _round(fitted.intercept_),
            "examples": len(labels)}


@dataclass(frozen=True)
class SentenceScores:
    micro: float
    macro: float
    per_class: dict[str, float]
    n: int


def score_sentences(model: dict, sentences: list[Sentence], labels: list[str]) -> SentenceScores:
    """F1 of the shipped arithmetic (numpy, rounded weights) on labelled sentences."""
    classifier = SentenceClassifier(model)
    predicted = [classifier.classes[i] for i in classifier.probabilities(sentences).argmax(axis=1)]
    per_class = f1_per_label(labels, predicted, SENTENCE_CLASSES)
    micro = sum(1 for t, p in zip(labels, predicted) if t == p) / len(labels) if labels else float("nan")
    return SentenceScores(micro, sum(per_class.values()) / len(per_class), per_class, len(labels))


# --------------------------------------------------------------------------- Touché 2022 passages
@dataclass(frozen=True)
class JudgedPassages:
    features: np.ndarray          # passages × PASSAGE_FEATURES
    labels: list[str]
    topics: list[str]             # topic keys
    numbers: list[str]            # topic numbers (reports)
    learned: list[str]            # the CompSent-only decision (stance_model.learned_label)
    open: list[bool]              # the models run (some object named, English); else NO


def judged_sample(passages: Path, qrels: Path, topics: Path
                  ) -> Iterator[tuple[ComparedObjects, str, str, str, str, str]]:
    """Each judged passage the sample holds, by topic number and passage id: (comparison, topic
    key, topic number, passage id, text, judged label)."""
    judged = load_qrels(qrels, QrelsKind.STANCE).judgments
    by_number = {canonical_topic(t.number): t for t in load_topics(topics)}
    texts = {docid: values[0] for docid, values, _ in open_corpus("passages", passages).documents(["contents"])}
    for qid in sorted(judged, key=int):
        topic = by_number.get(qid)
        if topic is None:
            continue
        comp = comparison(topic)
        key = topic_key(topic.title, comp.objects)
        for docid in sorted(d for d in judged[qid] if d in texts):
            yield comp, key, qid, docid, texts[docid], str(judged[qid][docid])  # a stance label


def judged_passages(classifier_model: dict, passages: Path, qrels: Path, topics: Path) -> JudgedPassages:
    """Every judged passage of the sample that the sample holds, with its features."""
    classifier = SentenceClassifier(classifier_model)
    rows, labels, keys, numbers, learned, open_ = [], [], [], [], [], []
    for comp, key, qid, _, text, label in judged_sample(passages, qrels, topics):
        ev = gated_evidence(text, comp, classifier)  # as the learned models decide (registry.py)
        # a passage turned away is NO before the model runs: its features are never read
        rows.append(ev.features if ev is not None else np.zeros(len(PASSAGE_FEATURES)))
        labels.append(label)
        keys.append(key)
        numbers.append(qid)
        learned.append(learned_label(ev) if ev is not None else "NO")
        open_.append(ev is not None)
    if not rows:
        raise InputError("no judged passage of the qrels is in the passage file", path=passages)
    return JudgedPassages(np.stack(rows), labels, keys, numbers, learned, open_)


def _fit_passages(x: np.ndarray, y: list[str]) -> dict:
    from sklearn.linear_model import LogisticRegression
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    fitted = LogisticRegression(C=PASSAGE_C, max_iter=5000, class_weight="balanced").fit((x - mean) / scale, y)
    return {"classes": [str(c) for c in fitted.classes_], "features": list(PASSAGE_FEATURES), "mean": _round(mean),
            "scale": _round(scale), "coef": [_round(row) for row in fitted.coef_],
            "intercept": _round(fitted.intercept_),
            "examples": len(y)}


def topic_folds(keys: list[str], folds: int = FOLDS) -> list[list[str]]:
    """The topics, in the order they come (by topic number), dealt into ``folds`` groups: topics
    1, 6, 11, … form the first. Fixed before any figure was seen; other deals of the 50 topics move
    the out-of-fold macro-F1 by about ±0.01 (docs/task2.md)."""
    order = list(dict.fromkeys(keys))
    return [sorted(order[f::folds]) for f in range(folds)]


def train_passages(data: JudgedPassages) -> tuple[dict, list[str]]:
    """The passage model on every topic and one per fold (fitted without the fold's topics), and
    the out-of-fold labels: what the cross-fitted file gives each judged passage."""
    folds, out_of_fold = _cross_fit(data, topic_folds(data.topics))
    return {"all": _fit_open(data, set(data.topics)), "folds": folds}, out_of_fold


def _fit_open(data: JudgedPassages, topics: set[str]) -> dict:
    """Fitted on the passages of ``topics`` that the model would see at run time (the others are
    NO before it runs)."""
    inside = [i for i, k in enumerate(data.topics) if k in topics and data.open[i]]
    return _fit_passages(data.features[inside], [data.labels[i] for i in inside])


def _cross_fit(data: JudgedPassages, deal: list[list[str]]) -> tuple[list[dict], list[str]]:
    """A model per group of topics, fitted without them, and each passage's label by the model
    that never saw its topic."""
    out_of_fold = ["NO"] * len(data.labels)
    folds = []
    every = set(data.topics)
    for held in deal:
        model = _fit_open(data, every - set(held))
        classifier = PassageClassifier(model)
        for i, k in enumerate(data.topics):
            if k in held and data.open[i]:
                out_of_fold[i] = classifier.label(data.features[i])
        folds.append({"topics": list(held), "model": model})
    return folds, out_of_fold


@dataclass(frozen=True)
class Trained:
    model: dict                # what ``save`` writes
    passages: JudgedPassages   # the judged passages it was fitted on
    out_of_fold: list[str]     # their labels by the fold models that never saw their topics


def train(compsent_train: Path, passages: Path, qrels: Path, topics: Path) -> Trained:
    sentences, labels = read_compsent(compsent_train)
    check_trainable(labels, compsent_train, "sentence")
    sentence_model = train_sentences(sentences, labels)
    data = judged_passages(sentence_model, passages, qrels, topics)
    opened = [label for label, seen in zip(data.labels, data.open) if seen]
    if not opened:
        raise InputError("no judged passage reaches the passage model: none names two objects of its topic "
                         "(topics without <objects>, and titles that name no two objects?)", path=topics)
    check_trainable(opened, qrels, "judged passage the model sees")
    passage_model, out_of_fold = train_passages(data)
    return Trained({"format": 1, "source": SOURCE,
                    "terms": "CompSent-19: the authors' public research data (github.com/uhh-lt/"
            "comparative); Touché 2022 judgements: the organisers' public qrels",
            "sentences": sentence_model, "passages": passage_model, "labels": list(PASSAGE_LABELS)},
                   data, out_of_fold)


def save(model: dict, path: Path) -> Path:
    """Gzipped JSON with a fixed time in the gzip header: the same model, the same bytes."""
    raw = json.dumps(model, sort_keys=True, separators=(",", ":")).encode("utf-8")
    return write_bytes(path, gzip.compress(raw, compresslevel=9, mtime=0))


def judged_labels(model_path: Path, passages: Path, qrels: Path,
                  topics: Path) -> tuple[list[str], dict[str, list[str]], list[str]]:
    """Every judged passage of the sample labelled by each stance model as a run labels it (the
    combined model: each topic by the fold model that never saw it): (truth, {model: labels},
    each passage's topic number)."""
    truth: list[str] = []
    numbers: list[str] = []
    spec = StanceSpec()
    labellers = {name: model.labeller(spec.model_copy(update={"model": name}), model_path)
                 for name, model in STANCE_MODELS.items()}
    labels: dict[str, list[str]] = {name: [] for name in labellers}
    for comp, key, qid, _, text, label in judged_sample(passages, qrels, topics):
        truth.append(label)
        numbers.append(qid)
        for name, labeller in labellers.items():
            labels[name].append(labeller(text, comp, key))
    return truth, labels, numbers


def out_of_fold_spread(data: JudgedPassages, deals: int = 10, seed: int = 0) -> list[float]:
    """The combined model's out-of-fold macro-F1 under ``deals`` random deals of the topics into
    folds: how much the figure of the shipped deal owes to which topics fell together."""
    rng = np.random.default_rng(seed)
    topics = list(dict.fromkeys(data.topics))
    out = []
    for _ in range(deals):
        order = list(rng.permutation(topics))
        _, predicted = _cross_fit(data, [order[f::FOLDS] for f in range(FOLDS)])
        out.append(stance_macro_f1(data.labels, predicted))
    return out
