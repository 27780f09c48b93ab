"""Each pick's loss against pick 1 (retrieval/experiments/choose/loss.py): significance strict at
alpha and at no difference, --max-loss admitting a loss up to and including it, the text that
says what was compared, the topics of every set pooled under their own names, the run read again
when the sweep stored no per-topic values, and no loss either way round without them."""
from __future__ import annotations

import math
from pathlib import Path
from types import SimpleNamespace

from touche.retrieval.experiments.choose.loss import LossToBest


# --------------------------------------------------------------------------- choose's losses and criteria
def test_max_loss_admits_a_loss_up_to_and_including_it():
    from touche.retrieval.experiments.choose.loss import Loss, allowed
    worse = Loss(-0.05, 0.01, 40)
    assert worse.significantly_worse and not allowed(worse, None)
    assert allowed(worse, 0.05) and not allowed(worse, 0.049) and not allowed(worse, 0.0)
    assert allowed(Loss(-0.05, 0.2, 40), 0.0)  # not significant: allowed whatever --max-loss says
    assert not Loss(0.05, 0.01, 40).significantly_worse  # better, however significant
    assert not Loss(-0.05, None, 1).significantly_worse


def test_a_loss_without_per_topic_values_says_so():
    from touche.retrieval.experiments.choose.loss import Loss
    assert Loss(math.nan, None, 0).text() == "no per-topic values to compare"
    assert Loss(-0.0123, 0.0004, 10).text() == "Δ -0.012, p = 4.0e-4"
    assert Loss(0.5, 0.25, 10).text() == "Δ +0.500, p = 0.250"
    assert Loss(0.5, None, 1).text() == "Δ +0.500, no test"


# --------------------------------------------------------------------------- choose's losses, in full
def _record(point: int, per_topic: dict | None = None, run: str = "run.txt"):
    from types import SimpleNamespace
    return SimpleNamespace(point=point, per_topic=per_topic or {}, run=run)


def test_significance_of_a_loss_is_strict_at_alpha_and_at_no_difference():
    from touche.retrieval.experiments.choose.loss import ALPHA, Loss
    assert not Loss(-0.1, ALPHA, 20).significantly_worse  # p = α is not below α
    assert Loss(-0.1, ALPHA * 0.999, 20).significantly_worse
    assert not Loss(0.0, 0.001, 20).significantly_worse  # no loss at all
    assert Loss(-0.1, 0.001, 20).text() == "Δ -0.100, p = 0.001"  # 0.001 itself is printed, not "< 0.001"


def test_why_a_pick_is_allowed_says_what_was_compared():
    from touche.retrieval.experiments.choose.loss import Loss, why_allowed
    assert why_allowed(Loss(-0.05, None, 1), None) == "against pick 1: Δ -0.050, no test"
    assert why_allowed(Loss(-0.05, 0.3, 9), None) == "not significantly worse than pick 1 (Δ -0.050, p = 0.300)"
    assert why_allowed(Loss(-0.05, 0.01, 9), 0.1).startswith("significantly worse than pick 1 (Δ -0.050, p = 0.010)")


def test_losses_pool_the_topics_of_every_set_each_under_its_own_name():
    from types import SimpleNamespace

    from touche.retrieval.experiments.choose.loss import LossToBest
    measure = "relevance:touche.nDCG@5"
    best = {"a": _record(1, {measure: {"1": 0.9, "2": 0.8}}), "b": _record(1, {measure: {"1": 0.7}})}
    other = {"a": _record(2, {measure: {"1": 0.5, "2": 0.4}})}  # never ran on set b
    results = SimpleNamespace(several=True, by_set={"a": {1: best["a"], 2: other["a"]}, "b": {1: best["b"]}})
    losses = LossToBest(results, measure)
    assert losses.values(best["a"]) == {"a/1": 0.9, "a/2": 0.8, "b/1": 0.7}
    assert losses.values(other["a"]) == {"a/1": 0.5, "a/2": 0.4}
    loss = losses.of(other["a"], best["a"])
    assert (round(loss.delta, 9), loss.topics) == (-0.4, 2) and loss.p is not None
    no_qrels = SimpleNamespace(sets=[SimpleNamespace(name="a", qrels={}), SimpleNamespace(name="b", qrels={})])
    nothing = SimpleNamespace(several=True, by_set={"a": {3: _record(3)}, "b": {}}, manifest=no_qrels)
    assert LossToBest(nothing, measure).values(_record(3)) is None  # no values on any set: None, not {}
    empty = LossToBest(nothing, measure).of(_record(3), best["a"])
    assert math.isnan(empty.delta) and empty.p is None and empty.topics == 0


def test_a_loss_reads_the_run_again_when_the_sweep_stored_no_values(tmp_path):
    from types import SimpleNamespace

    from tests.shared import RELEVANCE, demo_run
    from touche.retrieval.evaluation.significance import per_topic_scores
    from touche.retrieval.experiments.choose.loss import LossToBest
    demo_run(tmp_path / "run.txt")
    entry = SimpleNamespace(name="dev", qrels={"quality": "missing.txt", "relevance": str(RELEVANCE)})
    results = SimpleNamespace(several=False, main_set=entry, manifest=SimpleNamespace(sets=[entry]),
                              directory=tmp_path, path=lambda p: Path(p))
    expected = per_topic_scores(tmp_path / "run.txt", RELEVANCE, "touche.nDCG@5")
    assert LossToBest(results, "relevance:touche.nDCG@5").values(_record(1)) == expected  # by its qrels name
    first = SimpleNamespace(name="dev", qrels={"relevance": str(RELEVANCE)})
    results.manifest.sets, results.main_set = [first], first
    assert LossToBest(results, "touche.nDCG@5").values(_record(1)) == expected  # no name: the set's first qrels


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
