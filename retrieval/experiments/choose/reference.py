"""The reference ``touche choose`` holds a sweep's picks against: the shipped suite's primary for
the sweep's task, run on the sweep's own corpus, topics and qrels.

A sweep around a weak base can hand in five runs all worse than the suite the toolkit ships; the
reference says so. But the shipped primary was itself tuned on some judgements (the suite's
``tuned_on``): scored on those again it is in-sample and reads higher than new topics will, so
the comparison says when the sweep's judgements are the ones it was tuned on (``Qrels.digest``)
and gives the out-of-sample figure the suite records, where there is one.
"""
from __future__ import annotations

import logging
import math
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from touche.config import TunedOn, load_suite, load_variant
from touche.errors import ToucheError
from touche.paths import CONFIGS, default_index_root
from touche.render import number as format_number
from touche.retrieval.evaluation.measures import evaluate
from touche.retrieval.evaluation.significance import split_measure
from touche.retrieval.experiments.robust import weighted_mean
from touche.retrieval.experiments.sweep import Record
from touche.retrieval.formats.gate import load_qrels
from touche.retrieval.session import Session

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Reference:
    """The shipped suite's primary variant, run on the sweep's own corpus, topics and qrels (with
    sets: on each; ``value`` is then the weighted mean over them, ``per_set`` the scores).
    ``in_sample``: the sweep's qrels the primary was tuned on (names), ``tuned_on`` what the suite
    says of its tuning."""
    variant: Path
    measure: str
    value: float
    per_set: dict[str, float] = field(default_factory=dict)
    tuned_on: TunedOn | None = None
    in_sample: tuple[str, ...] = ()

    @property
    def cross_validated(self) -> float | None:
        if self.tuned_on is None:
            return None
        bare = self.measure.split(",")[0]
        return self.tuned_on.cross_validated.get(bare)

    def caveat(self) -> str:
        """What a reader must know before comparing with it: in-sample, and the out-of-sample figure."""
        if not self.in_sample or self.tuned_on is None:
            return ""
        text = (f"{self.variant.name} was tuned on the judgements this sweep is scored with "
                f"({', '.join(self.in_sample)}), {self.tuned_on.data}: its {format_number(self.value)} is in-sample "
                "and optimistic")
        if self.cross_validated is not None:
            text += (f". Out of sample (weights chosen on other topics) it scores {format_number(self.cross_validated)}"
                     + (f", as measured by {self.tuned_on.source}" if self.tuned_on.source else ""))
        return text


def shipped_reference(results, measure: str, *, index_root: Path | None = None,
                      progress: bool = False) -> Reference | None:
    """The shipped suite's primary for the sweep's task (``configs/<task>/suite.yaml``), run on
    each of the sweep's sets and scored by ``measure`` on its qrels; None when the task has no
    shipped suite. Says what it runs and how to skip it first: a dense re-ranker takes minutes."""
    task = load_variant(results.manifest.base).variant.task
    suite_file = CONFIGS / task / "suite.yaml"
    if not suite_file.is_file():
        return None
    suite_path, suite = load_suite(suite_file)
    primary = suite_path.parent / suite.primary
    log.info("choose: running the shipped suite's primary %s/%s on the sweep's %s as a reference (the whole "
             "variant, re-ranking included: minutes for a dense one); --no-reference skips it",
             task, primary.name, "data" if not results.several else f"{len(results.manifest.sets)} sets")
    qrels_name, bare = split_measure(measure)
    values = {}
    for entry in results.manifest.sets:
        session = Session(results.path(entry.corpus), results.path(entry.topics), index_root or default_index_root(),
                          progress=progress)
        qrels = {name: results.path(q) for name, q in entry.qrels.items()}
        try:
            result = session.run(load_variant(primary))
            with tempfile.TemporaryDirectory(prefix="touche-reference-") as folder:
                run = session.write(result, Path(folder) / "run.txt")
                scores = evaluate(run, qrels if qrels_name else next(iter(qrels.values())), [bare])
        finally:
            session.close()
        found = scores.get(measure, scores.get(bare))
        if found is None:
            return None
        values[entry.name] = found
    in_sample = tuple(in_sample_qrels(results, suite.tuned_on))
    if not results.several:
        return Reference(primary, measure, next(iter(values.values())), tuned_on=suite.tuned_on, in_sample=in_sample)
    return Reference(primary, f"{measure}, weighted mean over the sets", weighted(results, values), values,
                     tuned_on=suite.tuned_on, in_sample=in_sample)


def in_sample_qrels(results, tuned_on: TunedOn | None) -> list[str]:
    """The sweep's qrels files (``set:name``) holding the judgements the primary was tuned on."""
    if tuned_on is None:
        return []
    digests = set(tuned_on.qrels.values())
    found = []
    for entry in results.manifest.sets:
        for name, path in entry.qrels.items():
            try:
                digest = load_qrels(results.path(path)).digest()
            except (OSError, ToucheError):
                continue  # unreadable now: the comparison does not hang on it
            if digest in digests:
                found.append(f"{entry.name}:{name}" if results.several else name)
    return found


def weighted(results, values: Mapping[str, float | None]) -> float:
    """The weighted mean over the sets, as the criterion weighted them (NaN when a set has none)."""
    if any(v is None or math.isnan(v) for v in values.values()):
        return math.nan
    known = {n: v for n, v in values.items() if v is not None}  # every one, as checked above
    weights = results.weights
    return float(weighted_mean([known[n] for n in weights], list(weights.values())))


def reference_value(results, record: Record, shipped: Reference) -> float:
    """A point's value in the reference's terms: its measure, or with sets its weighted mean."""
    if not shipped.per_set:
        return record.measures.get(shipped.measure, math.nan)
    measure = results.manifest.measure
    return weighted(results, {name: getattr(results.by_set.get(name, {}).get(record.point), "measures", {})
                              .get(measure) for name in results.weights})
