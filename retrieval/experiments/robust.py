"""Choosing across several development sets: criteria, their noise, and what a choice transfers.

A Touché participant chooses on last year's topics and submits for this year's. Last year's
judgements cover only what that year's systems retrieved, so a development set can be *biased*,
not just small: on the args.me sample the 2020 topics ranked 48 configurations opposite to fully
judged 2021 topics (Spearman −0.76), while agreeing with another biased set (+0.78). The argmax of
one set is then the wrong pick with confidence. What this module offers instead:

* **criteria** that combine the sets (``CRITERIA``), each set weighted by how completely it is
  judged (its *judged coverage*, see ``coverage``) unless the sweep says otherwise:
  ``calibrated_rank`` (default) the weighted mean of the point's rank on each set, where a set's
  weight is its coverage times its agreement (Spearman's rho, floored at 0) with the most
  completely judged set: a biased set votes only as far as it ranks the points as the judged one
  does; ``weighted_rank`` the same with coverage alone (ranks ignore how far apart the sets'
  scales lie: a partly judged set scores everything lower); ``worst_case`` the smallest of the
  point's score / the set's best score; ``weighted_mean`` the weighted mean of the scores;
* **noise**: topics drawn again with replacement within every set (the same draw for every
  point): how often the pick stays the pick, and the interval of its lead over the runner-up;
* **leave one set out**: choose on all sets but one and score the pick on the one left out: the
  expected transfer of the procedure to topics it did not see, beside the left-out set's own
  best (what could have been had);
* **agreement**: Spearman correlations of the points' scores between sets (two biased sets that
  agree are no evidence);
* **effects**: what one value of a swept key does against the axis' first value, per set, from
  the pairs of points that differ only in it, with a topic-bootstrap interval.

Everything works on per-topic values of one measure (``{point: {topic: value}}`` per set); a
point's mean on a set is the mean over the topics it is scored on (Touché's nDCG leaves out a
topic whose cut holds no judged document), as the sweep's tables show it.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from numpy.typing import ArrayLike

from touche.retrieval.evaluation.significance import DEFAULT_SEED, bootstrap_interval

DEFAULT_CRITERION = "calibrated_rank"
STABILITY_RESAMPLES = 1000


@dataclass(frozen=True)
class SetScores:
    """One development set's per-topic values of the sort measure, per point."""
    name: str
    weight: float
    per_topic: Mapping[str, Mapping[str, float]]  # point → topic → value

    def mean(self, point: str) -> float:
        values = self.per_topic.get(point)
        return float(np.mean(list(values.values()))) if values else math.nan


def coverage(judged: Mapping[str, Mapping[str, object]], collection: set[str] | frozenset[str],
             topics: Sequence[str]) -> dict[str, float]:
    """Per topic: the share of its judged documents that the collection holds (1.0 = a perfect
    ranking of the collection scores 1.0; a sample gathered from other systems' results holds a
    part of them, and what it misses is what those systems did not find)."""
    out = {}
    for topic in topics:
        docs = judged.get(topic, {})
        if docs:
            out[topic] = sum(1 for d in docs if d in collection) / len(docs)
    return out


# --------------------------------------------------------------------------- the matrix
def _means(sets: Sequence[SetScores], points: Sequence[str]) -> np.ndarray:
    return np.array([[s.mean(p) for s in sets] for p in points], dtype=float).reshape(len(points), len(sets))


def _ranks(column: np.ndarray) -> np.ndarray:
    """1 = best; ties share their mean rank; an undefined score ranks last."""
    from scipy import stats  # here, not at import: scipy.stats takes 0.7 s to load
    filled = np.where(np.isnan(column), -np.inf, column)
    return stats.rankdata(-filled, method="average")


class Criterion:
    """How the sets' scores order the points: one registered class per name (``CRITERIA``).

    ``values`` gives one value per point, higher is better, NaN where the point cannot be
    ordered; ``shown`` turns a value into the number the reports print (a rank is computed
    negated, so that higher is better, and shown as the rank itself)."""
    name: ClassVar[str]
    description: ClassVar[str]
    units: ClassVar[str] = "score"
    shown_negated: ClassVar[bool] = False

    def weights(self, means: np.ndarray, weights: np.ndarray) -> np.ndarray:
        """The weights this criterion gives the sets (their own, unless it calibrates them)."""
        return weights

    def values(self, means: np.ndarray, weights: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def shown(self, value: float) -> float:
        return -value if self.shown_negated else value


CRITERIA: dict[str, Criterion] = {}


def register_criterion(criterion: type[Criterion]) -> type[Criterion]:
    """Make a criterion selectable as ``criterion:`` in sweep files (usable as a decorator)."""
    CRITERIA[criterion.name] = criterion()
    return criterion


def criterion_named(name: str) -> Criterion:
    try:
        return CRITERIA[name]
    except KeyError:
        raise ValueError(f"unknown criterion {name!r}; known: {', '.join(CRITERIA)}") from None


def weighted_mean(values: ArrayLike, weights: ArrayLike) -> np.ndarray:
    """The weighted mean over the last axis; an undefined value counts as 0 (a point not scored
    on a set has nothing there), and no positive weight gives NaN. The one weighted mean of the
    experiments (criterion, plot, the shipped reference)."""
    w = np.asarray(weights, dtype=float)
    total = w.sum()
    if not np.isfinite(total) or total <= 0:
        return np.full(np.shape(values)[:-1], np.nan)
    return np.where(np.isnan(values), 0.0, values) @ (w / total)


class WeightedRank(Criterion):
    name = "weighted_rank"
    description = "the coverage-weighted mean of the point's rank on each set (1 = best)"
    units = "ranks"
    shown_negated = True

    def values(self, means, weights):
        ranks = np.column_stack([_ranks(means[:, s]) for s in range(means.shape[1])])
        return -weighted_mean(ranks, self.weights(means, weights))


class CalibratedRank(WeightedRank):
    name = "calibrated_rank"
    description = ("the weighted mean of the point's rank on each set (1 = best); a set's weight is its judged "
                   "coverage times how far it ranks the points as the most completely judged set does "
                   "(Spearman's rho, 0 when it does not agree)")

    def weights(self, means, weights):
        return weights * _agreement_with_best_judged(means, weights)


class WorstCase(Criterion):
    name = "worst_case"
    description = "the smallest, over the sets, of the point's score divided by the best score on that set"

    def values(self, means, weights):
        best = np.nanmax(np.where(np.isnan(means), -np.inf, means), axis=0)
        scaled = np.where(best > 0, means / np.where(best > 0, best, 1.0), 0.0)
        return np.nanmin(np.where(np.isnan(scaled), 0.0, scaled)[:, weights > 0], axis=1)


class WeightedMean(Criterion):
    name = "weighted_mean"
    description = "the coverage-weighted mean of the point's scores"

    def values(self, means, weights):
        return weighted_mean(means, weights)


for _criterion in (CalibratedRank, WeightedRank, WorstCase, WeightedMean):  # the order the docs list them
    register_criterion(_criterion)


def heaviest(weights: Sequence[float]) -> int:
    """The set a choice leans on most: the largest weight (an undefined one counts as none), the
    first of equals. What a chosen suite runs on, and whose record stands for the pick."""
    w = np.asarray(weights, dtype=float)
    return int(np.argmax(np.where(np.isnan(w), -np.inf, w)))


def usable_weights(weights: ArrayLike) -> bool:
    """Whether the sets' weights can order anything: all finite, not negative, one above 0."""
    w = np.asarray(weights, dtype=float)
    return bool(len(w)) and bool(np.all(np.isfinite(w))) and bool(np.all(w >= 0)) and bool(w.sum() > 0)


def criterion_values(means: np.ndarray, weights: Sequence[float], criterion: str = DEFAULT_CRITERION) -> np.ndarray:
    """One value per point, higher is better (a weighted rank is returned negated); all NaN when
    the weights cannot order anything (none positive, or one not finite). A point without a score
    on a set that weighs (not run there yet: ``choose --partial``; nothing judged in any of its
    cuts) is not ordered (NaN) and takes no part in ordering the others: counted as 0 or ranked
    last, what was not measured decided its place."""
    rule = criterion_named(criterion)
    w = np.asarray(weights, dtype=float)
    out = np.full(means.shape[0], np.nan)
    if means.shape[1] == 0 or not usable_weights(w):
        return out
    scored = ~np.isnan(means[:, w > 0]).any(axis=1)
    if scored.any():
        out[scored] = rule.values(means[scored], w)
    return out


def effective_weights(means: np.ndarray, weights: Sequence[float], criterion: str) -> np.ndarray:
    """The weights a criterion gives the sets: their own, times (calibrated_rank) their agreement
    with the most completely judged set."""
    return criterion_named(criterion).weights(means, np.asarray(weights, dtype=float))


def _agreement_with_best_judged(means: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Per set: 1 for the most heavily weighted (most completely judged) set, else Spearman's rho
    of its scores with that set's, floored at 0: a set votes only as far as it ranks the points as
    the completely judged set does. Two biased sets that agree with each other earn nothing by it."""
    from scipy import stats
    reference = int(np.argmax(weights))
    out = np.ones(means.shape[1])
    for s in range(means.shape[1]):
        if s == reference:
            continue
        both = ~np.isnan(means[:, s]) & ~np.isnan(means[:, reference])
        rho = 0.0
        if both.sum() >= 3 and np.ptp(means[both, s]) > 0 and np.ptp(means[both, reference]) > 0:
            rho = float(stats.spearmanr(means[both, s], means[both, reference]).statistic)
        out[s] = max(0.0, rho)
    return out


def _best(values: np.ndarray) -> int:
    """The best point (first of equals: points are in the sweep's order)."""
    filled = np.where(np.isnan(values), -np.inf, values)
    return int(np.argmax(filled))


# --------------------------------------------------------------------------- results
@dataclass(frozen=True)
class Choice:
    criterion: str
    points: list[str]
    sets: list[str]
    weights: list[float]
    means: np.ndarray            # points × sets
    values: np.ndarray           # the criterion per point (higher is better)
    order: list[int]             # points, best first
    intervals: np.ndarray        # points × sets × 2: 95 % topic-bootstrap interval of each mean
    pick_share: np.ndarray       # per point: share of topic resamples in which it is the pick
    lead_interval: tuple[float, float]  # the pick's criterion minus the runner-up's, 95 % over resamples

    @property
    def pick(self) -> int:
        return self.order[0]

    @property
    def runner_up(self) -> int | None:
        return self.order[1] if len(self.order) > 1 else None

    @property
    def lead_is_noise(self) -> bool:
        """Whether topic resampling cannot tell the pick from the runner-up (its lead's 95 %
        interval reaches 0 or below)."""
        return self.runner_up is not None and not self.lead_interval[0] > 0

    @property
    def tied(self) -> list[int]:
        """The points whose criterion equals the pick's exactly: the sweep's order, not the data,
        put the pick first."""
        return tied_with_pick(self.values, self.order)


def tied_with_pick(values: Sequence[float | None] | np.ndarray, order: Sequence[int]) -> list[int]:
    if not order:
        return []
    best = values[order[0]]
    return [i for i in order[1:] if values[i] is not None and best is not None and values[i] == best]


def choose_robustly(sets: Sequence[SetScores], points: Sequence[str], criterion: str = DEFAULT_CRITERION, *,
                    resamples: int = STABILITY_RESAMPLES, seed: int = DEFAULT_SEED) -> Choice:
    """The points ordered by the criterion, with intervals and the pick's stability."""
    points = list(points)
    means = _means(sets, points)
    weights = [s.weight for s in sets]
    values = criterion_values(means, weights, criterion)
    # nothing is picked when the criterion orders nothing (no usable weight, no scored point):
    # the first point "picked in 100 %" would be a tie dressed up as a decision
    order = [] if np.isnan(values).all() else \
        sorted(range(len(points)), key=lambda i: (-(values[i] if not math.isnan(values[i]) else -math.inf), i))
    intervals = np.array([[bootstrap_interval(list(s.per_topic.get(p, {}).values()), seed=seed) for s in sets]
                          for p in points], dtype=float).reshape(len(points), len(sets), 2)
    share, lead = _stability(sets, points, weights, criterion, order, resamples, seed)
    return Choice(criterion, points, [s.name for s in sets], weights, means, values, order, intervals, share, lead)


def _resampled_means(sets: Sequence[SetScores], points: Sequence[str], resamples: int,
                     rng: np.random.Generator) -> np.ndarray:
    """resamples × points × sets: each set's topics drawn with replacement, the same draw for
    every point; a point's mean over the drawn topics it is scored on."""
    out = np.full((resamples, len(points), len(sets)), np.nan)
    for s, scores in enumerate(sets):
        topics = sorted({t for p in points for t in scores.per_topic.get(p, {})})
        if not topics:
            continue
        index = {t: i for i, t in enumerate(topics)}
        values = np.zeros((len(topics), len(points)))
        scored = np.zeros((len(topics), len(points)))
        for j, p in enumerate(points):
            for t, v in scores.per_topic.get(p, {}).items():
                values[index[t], j], scored[index[t], j] = v, 1.0
        draws = rng.integers(0, len(topics), size=(resamples, len(topics)))
        counts = np.zeros((resamples, len(topics)))
        np.add.at(counts, (np.repeat(np.arange(resamples), len(topics)), draws.ravel()), 1.0)
        totals, n = counts @ values, counts @ scored
        with np.errstate(invalid="ignore", divide="ignore"):
            out[:, :, s] = np.where(n > 0, totals / n, np.nan)
    return out


def _stability(sets, points, weights, criterion, order, resamples, seed) -> tuple[np.ndarray, tuple[float, float]]:
    if not order:
        return np.zeros(len(points)), (math.nan, math.nan)
    if len(points) < 2 or resamples < 1:
        return np.ones(len(points)), (math.nan, math.nan)
    rng = np.random.default_rng(seed)
    drawn = _resampled_means(sets, points, resamples, rng)
    picks = np.zeros(len(points))
    leads: list[float] = []
    for b in range(resamples):
        values = criterion_values(drawn[b], weights, criterion)
        if not np.isnan(values).all():
            # exact ties share the draw: the first of equals is the grid's order, not a decision
            # (every point at 0.0 was "picked in 100 % of the draws")
            best = np.flatnonzero(values == np.nanmax(values))
            picks[best] += 1 / len(best)
        leads.append(values[order[0]] - values[order[1]])
    drawn_leads = np.asarray(leads, dtype=float)
    drawn_leads = drawn_leads[~np.isnan(drawn_leads)]
    lead = ((float(np.percentile(drawn_leads, 2.5)), float(np.percentile(drawn_leads, 97.5))) if len(drawn_leads)
            else (math.nan, math.nan))
    return picks / resamples, lead


@dataclass(frozen=True)
class Transfer:
    """Choosing on every set but ``left_out``: the pick and what it scores on the set left out."""
    left_out: str
    pick: str
    score: float          # the pick's mean on the left-out set
    rank: float           # its rank there among all points (1 = best)
    best: str             # the left-out set's own best point
    best_score: float
    naive: dict[str, tuple[str, float]]  # per other set: its own argmax and that point's score on left_out


def leave_one_set_out(sets: Sequence[SetScores], points: Sequence[str],
                      criterion: str = DEFAULT_CRITERION) -> list[Transfer]:
    """For each set: the criterion's pick on the other sets, scored on it (needs ≥ 2 sets)."""
    points = list(points)
    means = _means(sets, points)
    out: list[Transfer] = []
    if len(sets) < 2:
        return out
    for s, held in enumerate(sets):
        others = [i for i in range(len(sets)) if i != s]
        values = criterion_values(means[:, others], [sets[i].weight for i in others], criterion)
        if np.isnan(values).all():
            continue  # the other sets order nothing: no pick to transfer
        pick = _best(values)
        column = means[:, s]
        best = _best(column)
        naive = {sets[i].name: (points[_best(means[:, i])], float(column[_best(means[:, i])])) for i in others}
        # a pick without a score on the left-out set (not run there yet) has no rank there
        # its place among the set's points: 1 + the points strictly better (tied with the best, it is 1,
        # as the set's own best beside it is: a mean rank said "2 of 3" beside "(point 1)" when all tied)
        rank = math.nan if math.isnan(column[pick]) else float(1 + np.sum(np.nan_to_num(column, nan=-np.inf)
                                                                             > column[pick]))
        out.append(Transfer(held.name, points[pick], float(column[pick]), rank, points[best], float(column[best]),
                            naive))
    return out


def agreement(sets: Sequence[SetScores], points: Sequence[str]) -> np.ndarray:
    """sets × sets: Spearman's rho of the points' means (nan where fewer than 3 points are shared)."""
    from scipy import stats
    means = _means(sets, list(points))
    k = len(sets)
    rho = np.eye(k)
    for a in range(k):
        for b in range(a + 1, k):
            both = ~np.isnan(means[:, a]) & ~np.isnan(means[:, b])
            value = math.nan
            if both.sum() >= 3 and np.ptp(means[both, a]) > 0 and np.ptp(means[both, b]) > 0:
                value = float(stats.spearmanr(means[both, a], means[both, b]).statistic)
            rho[a, b] = rho[b, a] = value
    return rho


@dataclass(frozen=True)
class Effect:
    axis: str
    value: object
    reference: object
    pairs: int
    per_set: dict[str, tuple[float, float, float, int]]  # set → (mean difference, CI low, CI high, topics)


def effects(sets: Sequence[SetScores], coordinates: Mapping[str, Mapping[str, object]],
            axes: Sequence[tuple[str, Sequence[object]]], *, seed: int = DEFAULT_SEED) -> list[Effect]:
    """For every axis and every value but its first: the mean per-topic difference of the points
    with that value against the points with the first value that agree on every other axis
    (paired, topic by topic), per set, with its 95 % topic-bootstrap interval."""
    out = []
    for label, values in axes:
        if len(values) < 2:
            continue
        reference = values[0]
        for value in values[1:]:
            pairs = []
            for point, coords in coordinates.items():
                if coords.get(label) != value:
                    continue
                twin = {**coords, label: reference}
                match = next((q for q, c in coordinates.items() if dict(c) == twin), None)
                if match is not None:
                    pairs.append((point, match))
            per_set = {}
            for scores in sets:
                by_topic: dict[str, list[float]] = {}
                for with_value, without in pairs:
                    a, b = scores.per_topic.get(with_value, {}), scores.per_topic.get(without, {})
                    for topic in sorted(set(a) & set(b)):
                        by_topic.setdefault(topic, []).append(a[topic] - b[topic])
                # topics in a fixed order: the bootstrap's draws index them (a set's order would
                # follow PYTHONHASHSEED, and the interval with it)
                diffs = [float(np.mean(by_topic[t])) for t in sorted(by_topic)]
                if diffs:
                    low, high = bootstrap_interval(diffs, seed=seed)
                    per_set[scores.name] = (float(np.mean(diffs)), low, high, len(diffs))
            out.append(Effect(label, value, reference, len(pairs), per_set))
    return out
