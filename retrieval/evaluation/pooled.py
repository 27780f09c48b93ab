"""Measures pooled over topics (stance macro-F1: one F1 over every judged row), resampled and
tested from per-topic parts computed once.

A pooled measure is a function of a sum over topics: stance macro-F1 of the confusion counts
summed over the topics. So each topic's counts are computed once (``Pooled.parts``) and every
bootstrap draw or randomization flip is a weighted sum of them, a matrix product, instead of
recomputing the F1 from the rows (what took 74 of 87 s of a page of 16 stance runs).

* ``interval``: topics drawn with replacement (fixed seed), the percentile interval;
* ``paired_test``: the paired randomization test for pooled measures: under the null hypothesis
  the two runs' predictions are exchangeable topic by topic, so each flip swaps the two runs'
  parts on the topics it flips; p as ``significance.paired_randomization_test`` counts it, with
  the same flips (exact when all can be enumerated).
"""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from touche.retrieval.evaluation.resampling import (
    DEFAULT_BOOTSTRAP,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    TIE_TOLERANCE,
    sign_flips,
)
from touche.retrieval.formats.qrels import STANCE_LABELS
from touche.retrieval.formats.runfile import natural_key


@dataclass(frozen=True)
class Pooled:
    """Per-topic additive parts of a pooled measure and the measure of their sum."""
    topics: tuple[str, ...]
    parts: np.ndarray  # topics × (the part's shape)
    value: Callable[[np.ndarray], np.ndarray]  # summed parts (leading axes kept) → the measure

    def total(self) -> float:
        return float(self.value(self.parts.sum(axis=0)))

    def total_on(self, topics: Sequence[str]) -> float:
        """The measure on the topics it shares with ``topics``."""
        shared = sorted(set(self.topics) & set(topics), key=natural_key)
        return float(self.value(self.restricted(shared).parts.sum(axis=0))) if shared else math.nan

    def per_topic(self) -> dict[str, float]:
        values = self.value(self.parts)
        return {t: float(v) for t, v in zip(self.topics, values) if not math.isnan(v)}

    def restricted(self, topics: Sequence[str]) -> "Pooled":
        index = {t: i for i, t in enumerate(self.topics)}
        zero = np.zeros((1, *self.parts.shape[1:]), self.parts.dtype)
        rows = np.concatenate([self.parts, zero])[[index.get(t, len(self.topics)) for t in topics]]
        return Pooled(tuple(topics), rows, self.value)


# --------------------------------------------------------------------------- stance
def confusion(rows, judgments: Mapping[str, Mapping[str, str]]) -> Pooled:
    """Each judged topic's confusion counts (truth × prediction over the stance labels) of the
    rows that predict a stance (``Q0`` predicts none and is left out, as ``stance_f1`` does)."""
    labels = {label: i for i, label in enumerate(STANCE_LABELS)}
    topics = sorted((q for q in judgments if judgments[q]), key=natural_key)
    index = {t: i for i, t in enumerate(topics)}
    counts = np.zeros((len(topics), len(labels), len(labels)), np.int64)
    for row in rows:
        predicted = labels.get(row.column2)
        topic = index.get(row.qid)
        if predicted is None or topic is None:
            continue
        truth = labels.get(judgments[row.qid].get(row.docid, ""))
        if truth is not None:
            counts[topic, truth, predicted] += 1
    return Pooled(tuple(topics), counts, macro_f1)


def macro_f1(counts: np.ndarray) -> np.ndarray:
    """Macro-F1 of confusion counts (``…, truth, predicted``) as ``scorers.stance_f1`` computes it:
    the mean over the labels that occur as truth or prediction, 0 for a label never right; nan
    without a judged row."""
    counts = np.asarray(counts, float)
    tp = np.diagonal(counts, axis1=-2, axis2=-1)
    truth, predicted = counts.sum(axis=-1), counts.sum(axis=-2)
    present = (truth + predicted) > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        f1 = np.where(tp > 0, 2 * tp / (truth + predicted), 0.0)
        return np.where(present.any(axis=-1), (f1 * present).sum(axis=-1) / present.sum(axis=-1), np.nan)


def accuracy(counts: np.ndarray) -> np.ndarray:
    counts = np.asarray(counts, float)
    total = counts.sum(axis=(-2, -1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, np.diagonal(counts, axis1=-2, axis2=-1).sum(axis=-1) / total, np.nan)


# --------------------------------------------------------------------------- resampling
def interval(pooled: Pooled, *, resamples: int = DEFAULT_BOOTSTRAP, seed: int = DEFAULT_SEED,
             confidence: float = 0.95) -> tuple[float, float]:
    """The percentile interval of the pooled measure when topics are drawn with replacement."""
    n = len(pooled.topics)
    if n < 2:
        return math.nan, math.nan
    drawn = np.random.default_rng(seed).integers(0, n, (resamples, n))
    flat = (np.arange(resamples)[:, None] * n + drawn).ravel()
    weights = np.bincount(flat, minlength=resamples * n).reshape(resamples, n).astype(float)
    values = pooled.value(np.tensordot(weights, pooled.parts, axes=(1, 0)))
    values = values[~np.isnan(values)]
    if not len(values):
        return math.nan, math.nan
    tail = (1 - confidence) / 2 * 100
    return float(np.percentile(values, tail)), float(np.percentile(values, 100 - tail))


def paired_test(run: Pooled, base: Pooled, *, resamples: int = DEFAULT_RESAMPLES,
                seed: int = DEFAULT_SEED) -> tuple[float, float]:
    """(run − base on the topics both are judged on, two-sided p of the swap test)."""
    topics = sorted(set(run.topics) & set(base.topics), key=natural_key)
    if len(topics) < 2:
        return math.nan, math.nan
    a, b = run.restricted(topics).parts, base.restricted(topics).parts
    observed = float(run.value(a.sum(axis=0)) - run.value(b.sum(axis=0)))
    if math.isnan(observed):
        return math.nan, math.nan
    if np.array_equal(a, b):
        return observed, 1.0
    signs, exact = sign_flips(len(topics), resamples, seed)
    swapped = (signs < 0).astype(float)  # a flip of a topic swaps the two runs' parts there
    difference = (b - a).reshape(len(topics), -1)
    shift = (swapped @ difference).reshape(-1, *a.shape[1:])
    null = run.value(a.sum(axis=0) + shift) - run.value(b.sum(axis=0) - shift)
    gamma = abs(observed) * 1e-12 + TIE_TOLERANCE * 1e-3
    adjustment = 0 if exact else 1
    less = ((null <= observed + gamma).sum() + adjustment) / (len(null) + adjustment)
    greater = ((null >= observed - gamma).sum() + adjustment) / (len(null) + adjustment)
    return observed, float(min(1.0, 2 * min(less, greater)))
