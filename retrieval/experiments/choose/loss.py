"""What each pick of ``touche choose`` loses against the best point, and whether significantly.

A pick made for diversity should differ from the best, not be clearly worse than it: a point whose
per-topic scores are significantly below the best's (paired randomization test, two-sided,
uncorrected, α = 0.05) wastes a submission slot. ``LossToBest`` computes the mean difference on
the topics both points are scored on and the test's p, from the per-topic values the sweep stored
(the run scored again against the set's qrels where it stored none for the measure). With several
sets the topics of all sets are pooled (each set's topics its own), unweighted.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from touche.errors import ToucheError
from touche.render import number as format_number
from touche.render import p_text
from touche.retrieval.evaluation.significance import (
    DEFAULT_RESAMPLES,
    paired_on_common,
    per_topic_scores,
    split_measure,
)

ALPHA = 0.05


@dataclass(frozen=True)
class Loss:
    """A point against the best: ``delta`` = point − best (mean over ``topics`` shared topics),
    ``p`` the paired test's (None: no per-topic values, or fewer than two shared topics)."""
    delta: float
    p: float | None
    topics: int

    @property
    def significantly_worse(self) -> bool:
        return self.p is not None and self.p < ALPHA and self.delta < 0

    def text(self) -> str:
        if math.isnan(self.delta):
            return "no per-topic values to compare"
        p = "no test" if self.p is None else f"p = {p_text(self.p, ALPHA)}"
        return f"Δ {self.delta:+.3f}, {p}"


class LossToBest:
    """Each record's loss against ``best`` on ``measure``, its per-topic values read once."""

    def __init__(self, results, measure: str, resamples: int = DEFAULT_RESAMPLES):
        self.results = results
        self.measure = measure
        self.resamples = resamples
        self._values: dict[int, dict[str, float] | None] = {}

    def values(self, record) -> dict[str, float] | None:
        """Topic → value of a point (with several sets: ``set/topic`` over every set it ran on)."""
        if record.point not in self._values:
            if self.results.several:
                pooled = {}
                for name, records in self.results.by_set.items():
                    found = records.get(record.point)
                    values = self._of_record(found, name) if found is not None else None
                    pooled.update({f"{name}/{t}": v for t, v in (values or {}).items()})
                self._values[record.point] = pooled or None
            else:
                self._values[record.point] = self._of_record(record, self.results.main_set.name)
        return self._values[record.point]

    def _of_record(self, record, set_name: str) -> dict[str, float] | None:
        stored = record.per_topic.get(self.measure)
        if stored is not None:
            return stored
        qrels_name, bare = split_measure(self.measure)
        entry = next(e for e in self.results.manifest.sets if e.name == set_name)
        qrels = entry.qrels.get(qrels_name) if qrels_name else next(iter(entry.qrels.values()), None)
        if qrels is None:
            return None
        try:
            return per_topic_scores(self.results.directory / record.run, self.results.path(qrels), bare)
        except ToucheError:
            return None  # a measure without per-topic values (a pooled one): no test, said as such

    def of(self, record, best) -> Loss:
        mine, theirs = self.values(record), self.values(best)
        if mine is None or theirs is None:
            return Loss(math.nan, None, 0)
        delta, p, topics = paired_on_common(mine, theirs, resamples=self.resamples)
        return Loss(delta, None if math.isnan(p) else p, topics)


def allowed(loss: Loss, max_loss: float | None) -> bool:
    """Whether a point may be picked for diversity: not significantly worse than the best, or
    (``--max-loss``) losing no more than ``max_loss`` however significant."""
    if not loss.significantly_worse:
        return True
    return max_loss is not None and -loss.delta <= max_loss


def why_allowed(loss: Loss, max_loss: float | None) -> str:
    if loss.significantly_worse:
        return f"significantly worse than pick 1 ({loss.text()}) but within --max-loss {format_number(max_loss)}"
    if loss.p is None:
        return f"against pick 1: {loss.text()}"
    return f"not significantly worse than pick 1 ({loss.text()})"
