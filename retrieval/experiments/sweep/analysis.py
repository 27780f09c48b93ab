"""What a sweep's records say, computed once: the sets' coverage and weights, the order of the
points (by the measure on one set, by the criterion over several), its noise, the leave-one-set-
out transfers, the sets' agreement and every swept value's effect. The reports only format it,
and the manifest stores its choice for ``touche choose``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from touche.retrieval.evaluation.significance import paired_on_common
from touche.retrieval.experiments.robust import (
    Choice,
    Effect,
    SetScores,
    Transfer,
    agreement,
    choose_robustly,
    criterion_named,
    effective_weights,
    effects,
    leave_one_set_out,
    usable_weights,
)
from touche.retrieval.experiments.sweep.loading import Sweep
from touche.retrieval.experiments.sweep.sets import MOSTLY_UNJUDGED, mean_coverage, set_coverage
from touche.retrieval.experiments.sweep.spec import several_sets_columns, swept_keys
from touche.retrieval.experiments.sweep.store import Record


@dataclass(frozen=True)
class SetSummary:
    name: str
    topics: int
    coverage: dict[str, float]  # per topic
    weight: float  # what the criterion starts from: given, else the mean coverage (NaN: unknown)
    used_weight: float  # what the criterion gave it
    finished: int  # runs with a record

    @property
    def mean_coverage(self) -> float:
        return mean_coverage(self.coverage)

    @property
    def median_coverage(self) -> float:
        return float(np.median(list(self.coverage.values()))) if self.coverage else math.nan

    @property
    def mostly_unjudged(self) -> bool:
        return bool(self.coverage) and self.mean_coverage < MOSTLY_UNJUDGED


@dataclass(frozen=True)
class SweepAnalysis:
    sweep: Sweep
    records: list[Record]  # finished runs, set by set in point order
    sets: list[SetSummary]
    header: list[str]  # of the results table (CSV and Markdown)
    rows: list[list[Any]]
    ranked: list[Record] = field(default_factory=list)  # one set: best first by the measure
    choice: Choice | None = None  # several sets: the criterion's order with its noise
    why_no_pick: str = ""  # several sets: why nothing is picked
    scores: list[SetScores] = field(default_factory=list)
    transfers: list[Transfer] = field(default_factory=list)
    agreement: np.ndarray | None = None
    effects: list[Effect] = field(default_factory=list)

    @property
    def runs(self) -> int:
        return len(self.sweep.jobs())

    @property
    def indexes(self) -> int:
        return len({r.index for r in self.records if r.index})  # "": a run file of an older sweep, cost unknown

    @property
    def pick(self) -> int | None:
        """The index of the best point (None when nothing is ordered)."""
        if self.choice is not None:
            return self.choice.pick if self.choice.order else None
        return self.ranked[0].point - 1 if self.ranked else None


def sort_records(records: list[Record], measure: str) -> list[Record]:
    """Best first by ``measure``; undefined values last; ties in point order."""
    def key(record: Record):
        value = record.measures.get(measure, math.nan)
        return (math.isnan(value), -value if not math.isnan(value) else 0.0, record.point)
    return sorted(records, key=key)


def p_values_against_best(records: list[Record], measure: str) -> dict[str, float]:
    """Paired randomization p of each point against the best point, on their common topics."""
    ordered = sort_records(records, measure)
    if not ordered or measure not in ordered[0].per_topic:
        return {}
    best = ordered[0].per_topic[measure]
    out = {}
    for record in ordered[1:]:
        other = record.per_topic.get(measure)
        if other is not None:
            out[record.key] = paired_on_common(other, best)[1]
    return out


def measure_columns(records: list[Record], main: str) -> list[str]:
    columns = list(dict.fromkeys(m for r in records for m in r.measures))
    return [main] + [c for c in columns if c != main]


def every_measure_column(measure: str, set_name: str) -> str:
    """A column of the results table of several sets: one measure on one set."""
    return f"{measure} ({set_name})"


def analyse(sweep: Sweep, records: list[Record]) -> SweepAnalysis:
    fmt = next(iter(sorted(sweep.corpus_formats)))
    coverages = {dev.name: set_coverage(dev, sweep.qrels_name, fmt, sweep.set_folder(dev)) for dev in sweep.sets}
    if sweep.several:
        return _several(sweep, records, coverages)
    return _one(sweep, records, coverages)


def _one(sweep: Sweep, records: list[Record], coverages: dict[str, dict[str, float]]) -> SweepAnalysis:
    (dev,) = sweep.sets
    main = sweep.spec.measure
    keys = swept_keys(sweep.spec)
    measures = measure_columns(records, main)
    ranked = sort_records(records, main)
    p_values = p_values_against_best(records, main)
    header = ["rank", "point", *keys, *measures, "p_vs_best", "index", "seconds", "run", "key"]
    rows = [[rank, r.point, *(r.overrides.get(k) for k in keys), *(r.measures.get(m, math.nan) for m in measures),
             p_values.get(r.key, math.nan), r.index, r.seconds, r.run, r.key] for rank, r in enumerate(ranked, 1)]
    summary = SetSummary(dev.name, len(dev.selected_topics()), coverages.get(dev.name) or {}, 1.0, 1.0, len(records))
    return SweepAnalysis(sweep, records, [summary], header, rows, ranked=ranked)


def set_scores(sweep: Sweep, records: list[Record], weights: list[float]) -> list[SetScores]:
    """Each set's per-topic values of the sort measure, per point number."""
    by_key = {r.key: r for r in records}
    out = []
    for dev, weight in zip(sweep.sets, weights):
        per_topic = {}
        for point, key in zip(sweep.points, dev.keys):
            record = by_key.get(key)
            if record is not None and sweep.spec.measure in record.per_topic:
                per_topic[str(point.number)] = record.per_topic[sweep.spec.measure]
        out.append(SetScores(dev.name, weight, per_topic))
    return out


def _several(sweep: Sweep, records: list[Record], coverages: dict[str, dict[str, float]]) -> SweepAnalysis:
    criterion = criterion_named(sweep.spec.criterion)
    weights = [dev.weight if dev.weight is not None else mean_coverage(coverages.get(dev.name) or {})
               for dev in sweep.sets]
    scores = set_scores(sweep, records, weights)
    numbers = [str(p.number) for p in sweep.points]
    why = _why_no_pick(sweep, records, scores, weights)
    choice = choose_robustly(scores, numbers, sweep.spec.criterion) if not why else None
    if choice is not None and not choice.order:
        why = f"{criterion.name} orders no point on these scores"
    means = choice.means if choice is not None else np.full((len(numbers), len(scores)), np.nan)
    # a choice exists only when the weights can order (_why_no_pick)
    used = effective_weights(means, weights, criterion.name) if choice is not None else np.full(len(weights), np.nan)
    done = {r.key for r in records}
    finished = {dev.name: sum(1 for k in dev.keys if k in done) for dev in sweep.sets}
    summaries = [SetSummary(dev.name, len(dev.selected_topics()), coverages.get(dev.name) or {}, weights[s],
                            float(used[s]), finished[dev.name]) for s, dev in enumerate(sweep.sets)]
    keys = swept_keys(sweep.spec)
    header = several_sets_columns(keys, [dev.name for dev in sweep.sets], sweep.spec.criterion)
    by_key = {r.key: r for r in records}
    every = [(dev, measure_columns([by_key[k] for k in dev.keys if k in by_key], sweep.spec.measure))
             for dev in sweep.sets]  # every measure of every set, beside the criterion's
    header += [every_measure_column(m, dev.name) for dev, measures in every for m in measures]
    rows = []
    if choice is not None:
        for rank, i in enumerate(choice.order, 1):
            point = sweep.points[i]
            if np.isnan(choice.means[i]).all():
                continue
            row = [rank, point.number, *(point.overrides.get(k) for k in keys)]
            for s, _ in enumerate(sweep.sets):
                row += [choice.means[i, s], choice.intervals[i, s, 0], choice.intervals[i, s, 1],
                        len(scores[s].per_topic.get(str(point.number), {}))]
            row += [criterion.shown(choice.values[i]), choice.pick_share[i]]
            row += [by_key[dev.keys[i]].measures.get(m, math.nan) if dev.keys[i] in by_key else math.nan
                    for dev, measures in every for m in measures]
            rows.append(row)
    coordinates = {str(p.number): dict(p.coordinates) for p in sweep.points}
    transfers = leave_one_set_out(scores, numbers, sweep.spec.criterion) if choice is not None else []
    return SweepAnalysis(sweep, records, summaries, header, rows, choice=choice, why_no_pick=why, scores=scores,
                         transfers=transfers, agreement=agreement(scores, numbers),
                         effects=effects(scores, coordinates, [(a.label, a.values) for a in sweep.axes]))


def _why_no_pick(sweep: Sweep, records: list[Record], scores: list[SetScores], weights: list[float]) -> str:
    """Why the criterion must not pick (empty: it may): a set without a single scored run would
    tie every point on it; weights that are all 0 or unknown order nothing."""
    empty = [dev.name for dev, s in zip(sweep.sets, scores) if not s.per_topic]
    if empty and records and not any(sweep.spec.measure in r.per_topic for r in records):
        return (f"{sweep.spec.measure} has no per-topic values, which the criterion over several sets needs "
                "(choose a measure such as relevance:touche.nDCG@5)")
    if empty:
        return (f"set(s) {', '.join(empty)} have no finished run yet: every point would tie there "
                "(finish the sweep: rerun `touche sweep`)")
    unknown = [dev.name for dev, w in zip(sweep.sets, weights) if not math.isfinite(w)]
    if unknown:
        return (f"the judged coverage of set(s) {', '.join(unknown)} could not be computed (their corpus could not "
                "be read): give them a weight: in the sweep file")
    if not usable_weights(weights):
        return "no set has a positive weight: the criterion orders nothing"
    return ""
