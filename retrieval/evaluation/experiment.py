"""Several runs on the same topics, side by side: per-topic values, intervals, tests against a baseline.

What PyTerrier's ``Experiment`` does for its measures, with Touché's: every measure's mean as
``evaluate`` computes it, a 95 % topic-bootstrap interval of that mean, and for each run against
a baseline the mean difference on the topics both are scored on, wins / losses / ties, the paired
randomization test's p and that p corrected for the number of runs tested (Holm by default).

Why our own and not ranx's ``compare``: ranx computes its own measures (no Touché condensed
nDCG, no unjudged-dropped cut by the rank column, no stance or image measures) and its Fisher
test runs in parallel numba threads whose random draws depend on the thread count. The
randomization test is scipy's (``significance.paired_randomization_test``), the correction
statsmodels' (``significance.corrected``), the interval scipy's bootstrap. Per-topic values come
from the same code as the means (``measures.evaluate_rows_per_topic``), so a table's mean and the
mean of its per-topic rows agree.

Stance macro-F1 is one F1 over all judged rows, not a mean of topics: its interval resamples
topics and recomputes the F1; it gets no p-value (a per-topic test does not apply).
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from touche.retrieval.evaluation.measures import (QrelsArg, cached_qrels, canonical_topic, canonical_topics,
                                                  evaluate_rows_per_topic, named_qrels, score_rows)
from touche.retrieval.evaluation.registry import parse_measure
from touche.retrieval.evaluation.significance import (DEFAULT_BOOTSTRAP, DEFAULT_RESAMPLES, DEFAULT_SEED, TIE_TOLERANCE,
                                                      bootstrap_interval, corrected, paired_randomization_test,
                                                      split_measure)
from touche.retrieval.formats.runfile import RunRow, natural_key
from touche.errors import ToucheError

PER_TOPIC_COLUMNS = ["run", "query_id", "measure", "value"]
EXPERIMENT_COLUMNS = ["run", "measure", "mean", "ci_low", "ci_high", "topics", "baseline", "delta", "wins",
                      "losses", "ties", "p", "p_corrected", "significant"]


def per_topic_frame(runs: Mapping[str, Sequence[RunRow]], qrels: QrelsArg, measures: Sequence[str] | None = None,
                    *, depth: int = 5) -> pd.DataFrame:
    """The tidy table of every run's per-topic values: ``run, query_id, measure, value`` (the
    layout of ir_measures' ``iter_calc`` with a run column), topics in natural order."""
    records = []
    for name, rows in runs.items():
        for measure, values in evaluate_rows_per_topic(list(rows), qrels, measures, depth=depth).items():
            for qid in sorted(values, key=natural_key):
                records.append((name, qid, measure, float(values[qid])))
    return pd.DataFrame.from_records(records, columns=PER_TOPIC_COLUMNS)


RunScores = tuple[dict[str, dict[str, float]], dict[str, dict[str, dict[str, float]]]]


def score_runs(runs: Mapping[str, Sequence[RunRow]], qrels: QrelsArg, measures: Sequence[str] | None = None, *,
               depth: int = 5) -> RunScores:
    """({run: {measure: mean}}, {run: {measure: {topic: value}}}): every run scored once."""
    means, per_topic = {}, {}
    for name, rows in runs.items():
        means[name], per_topic[name] = score_rows(list(rows), qrels, measures, depth=depth)
    return means, per_topic


def experiment(runs: Mapping[str, Sequence[RunRow]], qrels: QrelsArg, measures: Sequence[str] | None = None, *,
               baseline: str | int | None = 0, correction: str = "holm", alpha: float = 0.05, depth: int = 5,
               resamples: int = DEFAULT_RESAMPLES, bootstrap: int = DEFAULT_BOOTSTRAP,
               seed: int = DEFAULT_SEED, scores: RunScores | None = None) -> pd.DataFrame:
    """One row per run and measure (columns ``EXPERIMENT_COLUMNS``); see the module docstring.

    ``baseline``: a run's name or position (default the first); None for no tests. ``scores``:
    ``score_runs``' result when the caller has it already. ``delta`` is
    the mean difference run − baseline on the topics both are scored on; ``p`` the paired
    randomization test's (two-sided), ``p_corrected`` after ``correction`` over the runs tested
    per measure, ``significant`` whether it is below ``alpha``.
    """
    names = list(runs)
    if not names:
        raise ToucheError("an experiment needs at least one run")
    if not 0 < alpha < 1:
        raise ToucheError(f"alpha must lie between 0 and 1, got {alpha}")
    base = _baseline_name(names, baseline)
    rows = {name: canonical_topics(list(r)) for name, r in runs.items()}
    means, per_topic = scores if scores is not None else score_runs(rows, qrels, measures, depth=depth)
    measure_names = list(dict.fromkeys(m for name in names for m in means[name]))
    out = []
    untested, counted = [], []
    for measure in measure_names:
        tests: list[dict] = []
        for name in names:
            values = per_topic[name].get(measure)
            row = {"run": name, "measure": measure, "mean": means[name].get(measure, math.nan),
                   "baseline": base, "delta": math.nan, "wins": np.nan, "losses": np.nan, "ties": np.nan,
                   "p": math.nan, "p_corrected": math.nan, "significant": None}
            if values is not None:
                low, high = bootstrap_interval(list(values.values()), resamples=bootstrap, seed=seed)
                row.update(ci_low=low, ci_high=high, topics=len(values))
                if base is not None and name != base and parse_measure(measure).integer:
                    if measure not in counted:  # a count (stance.N) is no effectiveness: nothing to test
                        counted.append(measure)
                elif base is not None and name != base:
                    row.update(_against(values, per_topic[base].get(measure, {}), resamples, seed))
                    tests.append(row)
            else:
                low, high, topics = _resampled_interval(rows[name], qrels, measure, bootstrap, seed)
                row.update(ci_low=low, ci_high=high, topics=topics)
                if base is not None and name != base and measure not in untested:
                    untested.append(measure)
            out.append(row)
        for row, p in zip(tests, corrected([t["p"] for t in tests], correction)):
            row["p_corrected"] = p
            row["significant"] = None if math.isnan(p) else bool(p < alpha)
    frame = pd.DataFrame(out, columns=EXPERIMENT_COLUMNS)
    frame = frame.astype({"wins": "Int64", "losses": "Int64", "ties": "Int64", "topics": "Int64"})
    # why some rows have no delta or p: said in the frame itself (pandas keeps attrs with it)
    frame.attrs["notes"] = [f"{m}: no delta or p against the baseline: it is not a mean over topics (one value "
                            "over all judged rows), so a paired per-topic test does not apply; its interval "
                            "resamples topics" for m in untested] + \
        [f"{m}: a count, not an effectiveness measure: not tested against the baseline" for m in counted]
    return frame


def _baseline_name(names: list[str], baseline: str | int | None) -> str | None:
    if baseline is None:
        return None
    if baseline in names:  # a run's name first: runs keyed 1, 2 are named 1 and 2, not positions
        return baseline
    if isinstance(baseline, int) and not isinstance(baseline, bool):
        if not -len(names) <= baseline < len(names):
            raise ToucheError(f"baseline {baseline} is not a run's position (0..{len(names) - 1})")
        return names[baseline]
    if baseline not in names:
        raise ToucheError(f"baseline {baseline!r} is not one of the runs ({', '.join(names)})")
    return str(baseline)


def _against(values: Mapping[str, float], base: Mapping[str, float], resamples: int, seed: int) -> dict:
    """Difference, wins/losses/ties and the randomization p on the topics both runs are scored on."""
    common = sorted(set(values) & set(base), key=natural_key)
    diffs = [values[t] - base[t] for t in common]
    return {"delta": float(np.mean(diffs)) if diffs else math.nan,
            "wins": sum(d > TIE_TOLERANCE for d in diffs), "losses": sum(d < -TIE_TOLERANCE for d in diffs),
            "ties": sum(abs(d) <= TIE_TOLERANCE for d in diffs),
            "p": paired_randomization_test([values[t] for t in common], [base[t] for t in common],
                                           resamples=resamples, seed=seed)}


def _resampled_interval(rows: list[RunRow], qrels: QrelsArg, measure: str, resamples: int,
                        seed: int) -> tuple[float, float, int]:
    """A measure without per-topic values (stance macro-F1): topics drawn with replacement, the
    measure recomputed on their rows (by its family's scorer); the percentile interval."""
    name, bare = split_measure(measure)
    parsed = parse_measure(bare)
    path = dict(named_qrels(qrels)).get(name)
    judged = {canonical_topic(q): v for q, v in cached_qrels(path).judgments.items()} if path is not None else {}
    by_topic: dict[str, list[RunRow]] = {}
    for row in rows:
        if row.qid in judged:
            by_topic.setdefault(row.qid, []).append(row)
    topics = sorted(by_topic, key=natural_key)
    if len(topics) < 2:
        return math.nan, math.nan, len(topics)
    rng = np.random.default_rng(seed)
    values = []
    for _ in range(min(resamples, 1000)):  # each draw recomputes an F1 over thousands of rows
        drawn = rng.integers(0, len(topics), len(topics))
        value = parsed.family.means([parsed], [r for i in drawn for r in by_topic[topics[i]]], judged)[parsed.name]
        if not math.isnan(value):
            values.append(value)
    if not values:
        return math.nan, math.nan, len(topics)
    return float(np.percentile(values, 2.5)), float(np.percentile(values, 97.5)), len(topics)


