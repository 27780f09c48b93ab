"""What a pick of ``touche choose`` loses against pick 1 (touche.retrieval.experiments.choose.loss)
when only one of the two has per-topic values: no loss and no test, either way round (not a
crash). The mutation run (python -m bench.mutation, docs/testing.md) found this untested."""
from __future__ import annotations

import math
from types import SimpleNamespace

from touche.retrieval.experiments.choose.loss import LossToBest


def _record(point: int, per_topic: dict | None = None):
    return SimpleNamespace(point=point, per_topic=per_topic or {}, run="run.txt")


def test_a_point_without_per_topic_values_has_no_loss_either_way_round():
    measure = "relevance:touche.nDCG@5"
    best = _record(1, {measure: {"1": 0.9, "2": 0.8}})
    bare = _record(2)  # stored no values, and its set has no qrels to score the run again
    no_qrels = SimpleNamespace(sets=[SimpleNamespace(name="a", qrels={})])
    results = SimpleNamespace(several=True, by_set={"a": {1: best, 2: bare}}, manifest=no_qrels)
    losses = LossToBest(results, measure)
    assert losses.values(best) == {"a/1": 0.9, "a/2": 0.8} and losses.values(bare) is None
    for mine, theirs in ((bare, best), (best, bare)):
        loss = losses.of(mine, theirs)
        assert math.isnan(loss.delta) and loss.p is None and loss.topics == 0
        assert loss.text() == "no per-topic values to compare" and not loss.significantly_worse
