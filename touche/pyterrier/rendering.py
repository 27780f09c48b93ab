"""``pt.Experiment``'s table for measures that are no mean of topics (stance macro-F1, pooled over
every judged row; stance.N, a count): their value is computed from the topics' parts, and a test
against a baseline is the toolkit's pooled test, not PyTerrier's test of per-topic values.

PyTerrier 1.1 averages every measure's per-topic values (``_rendering._mean_of_measures``) and
tests each against the baseline with ``test`` (the paired t-test) on those values. For a pooled
measure both are wrong: the mean of each topic's own F1 is not the F1 of all rows, and a test
of the pooled value needs its parts resampled. So, for the measures whose values are
``scoring.PooledValue``:

* the mean is the measure of the summed parts (the leaderboard's F1; a count's total), also in
  ``batch_size`` runs, whose per-topic values come from several evaluations;
* with ``baseline=``, ``+``/``-`` count the topics whose own value beats or trails the
  baseline's, and the p-value is the paired randomization test swapping the two runs' parts
  topic by topic (``touche explore``'s and ``api.experiment``'s, whatever ``test`` is), corrected
  with the other columns' ``correction``; a count is not tested (nan), as ``api.experiment``
  does. A warning says so once per experiment.

Every other measure goes through PyTerrier's own code unchanged.
"""
from __future__ import annotations

import functools
import math
import warnings
from typing import Any

import numpy as np
import pandas as pd
from pyterrier._evaluation import _rendering

from touche.pyterrier.scoring import COUNT, PooledValue, pooled_total
from touche.retrieval.evaluation.experiment import pooled_pair_test
from touche.retrieval.evaluation.pooled import Pooled
from touche.retrieval.formats.runfile import canonical_topic, natural_key

_original_mean = _rendering._mean_of_measures
_original_averages: Any = _rendering.RenderFromPerQuery.averages  # overloaded on Literal flags: called as given


def _mean_of_measures(result: dict, measures=None, num_q=None) -> dict:
    means = _original_mean(result, measures, num_q)
    for name in means:
        total = pooled_total(values.get(name) for values in result.values())
        if total is not None:
            means[name] = total
    return means


def pooled_of(per_query: dict[str, dict[str, Any]], name: str) -> Pooled | None:
    """A system's ``Pooled`` of a measure from its per-topic ``PooledValue``s (None if it has none)."""
    values: dict[str, PooledValue] = {}
    for qid, row in per_query.items():
        value = row.get(name)
        if isinstance(value, PooledValue) and value.part is not None:
            values[canonical_topic(str(qid))] = value
    if not values:
        return None
    topics = sorted(values, key=natural_key)
    parts = [part for t in topics if (part := values[t].part) is not None]
    return Pooled(tuple(topics), np.stack(parts), values[topics[0]].measure_of)


def _kind(per_query: dict[str, dict[str, Any]], name: str) -> str | None:
    for row in per_query.values():
        value = row.get(name)
        if isinstance(value, PooledValue):
            return value.kind
    return None


@functools.wraps(_original_averages)
def averages(self, dataframe: bool = True, highlight: str | None = None, mrt_needed: bool = False):
    baseline = self.baseline
    per_query = self.systemEvalDictsPerQ[baseline] if baseline is not None else {}
    ours = {} if baseline is None or not dataframe else \
        {m: k for m in _measure_names(per_query) if (k := _kind(per_query, m))}
    if not ours:
        return _original_averages(self, dataframe, highlight, mrt_needed)
    frame = _original_averages(self, True, None, mrt_needed)
    notes = []
    for name, kind in ours.items():
        pcol = f"{name} p-value"
        if pcol not in frame.columns:
            continue
        for column in (f"{name} +", f"{name} -", pcol):
            frame[column] = frame[column].astype(float)
        theirs = pooled_of(self.systemEvalDictsPerQ[baseline], name)
        for i in range(len(self.systems)):
            if i == baseline:
                continue
            mine = pooled_of(self.systemEvalDictsPerQ[i], name)
            if kind == COUNT or mine is None or theirs is None:
                found = None
            else:
                found = pooled_pair_test(mine, theirs)
            frame.loc[i, [f"{name} +", f"{name} -", pcol]] = \
                [math.nan] * 3 if found is None else [found.wins, found.losses, found.p]
        if self.correction is not None:
            _correct(frame, pcol, baseline, self.correction, self.correction_alpha)
        notes.append(f"{name}: a count, not an effectiveness measure: not tested against the baseline (nan)"
                     if kind == COUNT else
                     f"{name} is one value over all judged rows, not a mean of topics: its p-value is the paired "
                     "randomization test swapping the two runs' predictions topic by topic (touche explore's), "
                     "whatever test= is; + and - compare each topic's own value")
    frame.attrs["notes"] = notes
    for note in notes:
        warnings.warn(note, stacklevel=2)
    return _highlighted(frame, highlight, mrt_needed) if highlight else frame


def _measure_names(per_query: dict[str, dict[str, Any]]) -> list[str]:
    return list(dict.fromkeys(m for row in per_query.values() for m in row))


def _correct(frame: pd.DataFrame, pcol: str, baseline: int, method: str, alpha: float) -> None:
    """The correction PyTerrier applies to the other p-value columns, applied to this one again."""
    import statsmodels.stats.multitest
    others = frame[pcol].drop(frame.index[baseline])
    defined = others.notna()
    reject = pd.Series(False, index=others.index)
    corrected = pd.Series(math.nan, index=others.index)
    if defined.any():
        r, c, _, _ = statsmodels.stats.multitest.multipletests(others[defined], alpha=alpha, method=method)
        reject[defined], corrected[defined] = r, c
    frame[pcol.replace("p-value", "reject")] = np.insert(reject.to_numpy(), baseline, False)
    frame[pcol + " corrected"] = np.insert(corrected.to_numpy(), baseline, math.nan)


def _highlighted(frame: pd.DataFrame, highlight: str, mrt_needed: bool):
    """PyTerrier's highlighting of the best value per column (its own column kinds)."""
    kinds = {}
    for column in frame.columns[1:]:
        if column.endswith(" -") or column == "mrt":
            kinds[column] = "-"
        elif column.endswith(" +") or not column.endswith(("p-value", "reject", "corrected")):
            kinds[column] = "+"
    style = _rendering._color_cols if highlight in ("color", "colour") else \
        _rendering._bold_cols if highlight == "bold" else None
    return frame.style.apply(style, axis=0, col_type=kinds) if style else frame


def install() -> None:
    """Put these into PyTerrier's renderer (once; importing touche.pyterrier does it)."""
    _rendering._mean_of_measures = _mean_of_measures
    setattr(_rendering.RenderFromPerQuery, "averages", averages)  # noqa: B010 (mypy: no method assignment)
