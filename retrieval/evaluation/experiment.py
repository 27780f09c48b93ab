"""Several runs on the same topics, side by side: per-topic values, intervals, tests against a baseline.

What PyTerrier's ``Experiment`` does for its measures, with Touché's: every measure's mean as
``evaluate`` computes it, a 95 % topic-bootstrap interval of that mean, and for each run against
a baseline the mean difference on the topics both are scored on, wins / losses / ties, the paired
randomization test's p and that p corrected for the number of runs tested (Holm by default).

Why our own and not ranx's ``compare``: ranx computes its own measures (no Touché condensed
nDCG, no unjudged-dropped cut by the rank column, no stance or image measures) and its Fisher
test runs in parallel numba threads whose random draws depend on the thread count. The
randomization test a sign-flip matrix (``significance.paired_randomization_test``), the correction
statsmodels' formulas (``significance.corrected``), the interval scipy's bootstrap. Per-topic values come
from the same code as the means (``measures.evaluate_rows_per_topic``), so a table's mean and the
mean of its per-topic rows agree.

Stance macro-F1 is one F1 over all judged rows, not a mean of topics: its per-topic parts (the
confusion counts, ``pooled.py``) are resampled for its interval, and its Δ is the difference of
the two pooled F1s with the paired randomization test that swaps the runs' predictions topic by
topic (whatever ``test`` is: the t and Wilcoxon tests need per-topic values).
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from touche.errors import ToucheError
from touche.retrieval.evaluation import pooled as pooled_measures
from touche.retrieval.evaluation.measures import (
    QrelsArg,
    Rows,
    as_table,
    evaluate_rows_per_topic,
    pooled_parts,
    score_rows,
)
from touche.retrieval.evaluation.registry import parse_measure
from touche.retrieval.evaluation.significance import (
    DEFAULT_BOOTSTRAP,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    PairTest,
    check_test,
    corrected,
    measure_interval,
    pairwise,
    wins_losses_ties,
)
from touche.retrieval.formats.runfile import natural_key

PER_TOPIC_COLUMNS = ["run", "query_id", "measure", "value"]
EXPERIMENT_COLUMNS = ["run", "measure", "mean", "ci_low", "ci_high", "topics", "baseline", "delta", "wins",
                      "losses", "ties", "p", "p_corrected", "significant"]


def per_topic_frame(runs: Mapping[str, Rows], qrels: QrelsArg, measures: Sequence[str] | None = None,
                    *, depth: int = 5) -> pd.DataFrame:
    """The tidy table of every run's per-topic values: ``run, query_id, measure, value`` (the
    layout of ir_measures' ``iter_calc`` with a run column), topics in natural order."""
    records = []
    for name, rows in runs.items():
        for measure, values in evaluate_rows_per_topic(as_table(rows), qrels, measures, depth=depth,
                                                       name=name).items():
            for qid in sorted(values, key=natural_key):
                records.append((name, qid, measure, float(values[qid])))
    return pd.DataFrame.from_records(records, columns=PER_TOPIC_COLUMNS)


RunScores = tuple[dict[str, dict[str, float]], dict[str, dict[str, dict[str, float]]]]


def score_runs(runs: Mapping[str, Rows], qrels: QrelsArg, measures: Sequence[str] | None = None, *,
               depth: int = 5) -> RunScores:
    """({run: {measure: mean}}, {run: {measure: {topic: value}}}): every run scored once."""
    means, per_topic = {}, {}
    for name, rows in runs.items():
        means[name], per_topic[name] = score_rows(as_table(rows), qrels, measures, depth=depth, name=name)
    return means, per_topic


def experiment(runs: Mapping[str, Rows], qrels: QrelsArg, measures: Sequence[str] | None = None, *,
               baseline: str | int | None = 0, correction: str = "holm", test: str = "randomization",
               alpha: float = 0.05, depth: int = 5,
               resamples: int = DEFAULT_RESAMPLES, bootstrap: int = DEFAULT_BOOTSTRAP,
               seed: int = DEFAULT_SEED, scores: RunScores | None = None, cache: dict | None = None,
               intervals: bool = True) -> pd.DataFrame:
    """One row per run and measure (columns ``EXPERIMENT_COLUMNS``); see the module docstring.

    ``baseline``: a run's name or position (default the first); None for no tests. ``scores``:
    ``score_runs``' result when the caller has it already. ``delta`` is
    the mean difference run − baseline on the topics both are scored on; ``p`` the two-sided p of
    the paired ``test`` (``significance.SIGNIFICANCE_TESTS``: randomization, t, wilcoxon),
    ``p_corrected`` after ``correction`` over the runs tested per measure, ``significant``
    whether it is below ``alpha``. ``cache``: a dict kept between calls on the same runs (the
    per-topic parts of pooled measures and the p of each pair, computed once: the tests are
    symmetric); ``intervals=False`` skips the bootstrap
    intervals (nan) when only the tests are wanted.
    """
    names = list(runs)
    if not names:
        raise ToucheError("an experiment needs at least one run")
    if not 0 < alpha < 1:
        raise ToucheError(f"alpha must lie between 0 and 1, got {alpha}")
    check_test(test)
    base = _baseline_name(names, baseline)
    rows = {name: as_table(r) for name, r in runs.items()}
    means, per_topic = scores if scores is not None else score_runs(rows, qrels, measures, depth=depth)
    measure_names = list(dict.fromkeys(m for name in names for m in means[name]))
    out = []
    untested, counted, pooled_tested = [], [], []
    parts: dict[tuple, object] = cache if cache is not None else {}

    def parts_of(name: str, measure: str):
        if (name, measure) not in parts:
            parts[name, measure] = pooled_parts(rows[name], qrels, measure)
        return parts[name, measure]

    for measure in measure_names:
        tests: list[dict] = []
        against = _paired(names, base, per_topic, measure, test, resamples, seed) \
            if base is not None and not parse_measure(measure).integer else {}
        for name in names:
            values = per_topic[name].get(measure)
            row = {"run": name, "measure": measure, "mean": means[name].get(measure, math.nan),
                   "baseline": base, "delta": math.nan, "wins": np.nan, "losses": np.nan, "ties": np.nan,
                   "p": math.nan, "p_corrected": math.nan, "significant": None}
            tested = base is not None and name != base
            if values is not None:
                low, high = measure_interval(measure, list(values.values()), resamples=bootstrap, seed=seed) \
                    if intervals else (math.nan, math.nan)
                row.update(ci_low=low, ci_high=high, topics=len(values))
                if tested and parse_measure(measure).integer:
                    if measure not in counted:  # a count (stance.N) is no effectiveness: nothing to test
                        counted.append(measure)
                elif tested:
                    found = against[name]
                    row.update(delta=found.delta if found.topics else math.nan, wins=found.wins,
                               losses=found.losses, ties=found.ties, p=found.p)
                    tests.append(row)
            elif (mine := parts_of(name, measure)) is not None:
                low, high = pooled_measures.interval(mine, resamples=bootstrap, seed=seed) \
                    if intervals else (math.nan, math.nan)
                row.update(ci_low=low, ci_high=high, topics=len(mine.topics))
                theirs = parts_of(base, measure) if tested and base is not None else None
                if theirs is not None:
                    key = ("p", measure, "swap", frozenset((name, base)))
                    if key in parts:
                        shared = set(mine.topics) & set(theirs.topics)
                        delta = mine.total_on(theirs.topics) - theirs.total_on(mine.topics) if len(shared) > 1 \
                            else math.nan  # as paired_test: fewer than two topics, no difference
                        p = parts[key]
                        wins, losses, ties = wins_losses_ties(mine.per_topic(), theirs.per_topic())
                    else:
                        found = pooled_pair_test(mine, theirs, resamples=resamples, seed=seed)
                        delta, p, wins, losses, ties = found.delta, found.p, found.wins, found.losses, found.ties
                        parts[key] = p
                    row.update(wins=wins, losses=losses, ties=ties, delta=delta, p=p)
                    tests.append(row)
                    if measure not in pooled_tested:
                        pooled_tested.append(measure)
            else:
                row.update(ci_low=math.nan, ci_high=math.nan, topics=0)
                if tested and measure not in untested:
                    untested.append(measure)
            out.append(row)
        for row, p in zip(tests, corrected([t["p"] for t in tests], correction)):
            row["p_corrected"] = p
            row["significant"] = None if math.isnan(p) else bool(p < alpha)
    frame = pd.DataFrame(out, columns=EXPERIMENT_COLUMNS)
    frame = frame.astype({"wins": "Int64", "losses": "Int64", "ties": "Int64", "topics": "Int64"})
    # why some rows have no delta or p: said in the frame itself (pandas keeps attrs with it)
    frame.attrs["notes"] = [f"{m}: no delta or p against the baseline: it is not a mean over topics and has no "
                            "per-topic parts to resample" for m in untested] + \
        [f"{m}: one value over all judged rows, not a mean of topics: Δ is the difference of the two pooled values "
         "(on the topics both are judged on), p the paired randomization test swapping the two runs' predictions "
         "topic by topic, the interval resamples topics; wins and losses compare per-topic values"
         for m in pooled_tested] + \
        [f"{m}: a count, not an effectiveness measure: not tested against the baseline" for m in counted]
    return frame


def pooled_pair_test(run: pooled_measures.Pooled, base: pooled_measures.Pooled, *,
                     resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED) -> PairTest:
    """A pooled measure of ``run`` against ``base``: Δ the difference of the two pooled values on
    the topics both are judged on, p the paired randomization test swapping their parts topic by
    topic (``pooled.paired_test``), wins and losses each topic's own value against the other's.
    What every table of the toolkit (and PyTerrier's, ``touche.pyterrier``) tests a pooled
    measure with, whatever test the means get."""
    delta, p = pooled_measures.paired_test(run, base, resamples=resamples, seed=seed)
    wins, losses, ties = wins_losses_ties(run.per_topic(), base.per_topic())
    return PairTest(delta, p, wins, losses, ties)


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


def _paired(names: list[str], base: str, per_topic, measure: str, test: str, resamples: int,
            seed: int) -> dict[str, PairTest]:
    """Each run with per-topic values on ``measure`` against the baseline, tested at once."""
    tested = [n for n in names if n != base and per_topic[n].get(measure) is not None]
    values = [per_topic[base].get(measure) or {}] + [per_topic[n][measure] for n in tested]
    return dict(zip(tested, pairwise(values, [(0, k) for k in range(1, len(values))], test, resamples=resamples,
                                     seed=seed)))

