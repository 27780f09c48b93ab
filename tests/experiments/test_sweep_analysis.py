"""What a sweep's analysis (touche.retrieval.experiments.sweep.analysis) computes for its tables,
where the mutation run (python -m bench.mutation, docs/testing.md) found it untested: each row's
rank (1 = best), a set's weight from its judged coverage when the sweep gives none, the runs each
set finished, the points with nothing to show, and why nothing is picked (no per-topic values, a
set without a finished run, no order at all)."""
from __future__ import annotations

import math
from types import SimpleNamespace

import pytest
import scipy.stats  # noqa: F401 - loaded while collecting (0.7 s), not inside the first test that ranks

from tests.test_mutation_kills_choice import _several_sets_sweep
from touche.retrieval.experiments.robust import SetScores
from touche.retrieval.experiments.sweep import Record, analysis


@pytest.fixture()
def swept_a(monkeypatch):
    monkeypatch.setattr(analysis, "swept_keys", lambda spec: ["a"])


def _with(sweep, **changes):
    return SimpleNamespace(**{**vars(sweep), **changes})


def test_one_sets_rows_are_ranked_from_1_best_first_with_p_against_the_best(swept_a):
    sweep, records = _several_sets_sweep()
    one = _with(sweep, sets=sweep.sets[:1])
    found = analysis._one(one, records[:2], {})
    assert found.header[:4] == ["rank", "point", "a", "m"]
    assert [(row[0], row[1], row[2]) for row in found.rows] == [(1, 1, 1), (2, 2, 2)]
    assert math.isnan(found.rows[0][4]) and 0 < found.rows[1][4] <= 1  # the best has no p against itself
    assert found.pick == 0  # point 1, the first of the sweep's points
    assert (found.sets[0].weight, found.sets[0].used_weight) == (1.0, 1.0)  # the one set carries all the weight


def test_several_sets_rows_are_ranked_from_1_in_the_criterions_order(swept_a):
    sweep, records = _several_sets_sweep()
    found = analysis._several(sweep, records, {})
    assert [(row[0], row[1]) for row in found.rows] == [(1, 1), (2, 2)]
    topics = [row[6] for row in found.rows] + [row[10] for row in found.rows]
    assert topics == [3, 3, 3, 3]
    value, share = (found.rows[0][found.header.index(c)] for c in (sweep.spec.criterion, "pick_share"))
    assert value == pytest.approx(found.choice.values[0]) and 0 <= share <= 1
    # leave one set out: point 1 is best on each set alone (0.7 on full, 0.6 on part), so it transfers
    assert [(t.left_out, t.pick, t.score, t.rank, t.best) for t in found.transfers] == \
        [("full", "1", pytest.approx(0.7), 1.0, "1"), ("part", "1", pytest.approx(0.6), 1.0, "1")]


def test_a_rank_criterion_shows_ranks_in_the_rows(swept_a, monkeypatch):
    from functools import partial
    monkeypatch.setattr(analysis, "choose_robustly", partial(analysis.choose_robustly, resamples=20))  # fast
    sweep, records = _several_sets_sweep()
    ranked = _with(sweep, spec=SimpleNamespace(measure="m", criterion="weighted_rank"))
    found = analysis._several(ranked, records, {})
    column = found.header.index("weighted_rank")
    assert [row[column] for row in found.rows] == [1.0, 2.0]  # point 1 ranks first on both sets


def test_a_set_without_a_given_weight_weighs_its_mean_judged_coverage(swept_a):
    sweep, records = _several_sets_sweep()
    part = _with(sweep.sets[1], weight=None)
    found = analysis._several(_with(sweep, sets=[sweep.sets[0], part]), records, {"part": {"4": 0.5, "5": 1.0}})
    assert [s.weight for s in found.sets] == [1.0, 0.75]
    assert [s.used_weight for s in found.sets] == [1.0, 0.75]  # weighted_mean uses them as they are
    assert [s.finished for s in found.sets] == [2, 2]


def test_without_a_choice_no_set_has_a_used_weight(swept_a):
    sweep, records = _several_sets_sweep()
    found = analysis._several(sweep, [r for r in records if r.key.startswith("f")], {})  # part never ran
    assert found.choice is None and "set(s) part have no finished run yet" in found.why_no_pick
    assert all(math.isnan(s.used_weight) for s in found.sets) and [s.weight for s in found.sets] == [1.0, 0.5]
    assert found.transfers == []  # no choice: nothing to transfer


def test_each_set_counts_the_runs_it_finished(swept_a):
    sweep, records = _several_sets_sweep()
    found = analysis._several(sweep, [r for r in records if r.key != "p2"], {})
    assert [s.finished for s in found.sets] == [2, 1]


def test_a_point_run_on_no_set_has_no_row(swept_a):
    sweep, records = _several_sets_sweep()
    third = SimpleNamespace(number=3, overrides={"a": 3}, coordinates={"a": 3})
    sets = [_with(s, keys=[*s.keys, f"{s.name[0]}3"]) for s in sweep.sets]
    found = analysis._several(_with(sweep, points=[*sweep.points, third], sets=sets), records, {})
    assert [row[1] for row in found.rows] == [1, 2] and found.choice.order[-1] == 2


def test_when_the_criterion_orders_no_point_the_analysis_says_so_and_picks_nothing(swept_a):
    sweep, records = _several_sets_sweep()
    only = [r for r in records if r.key in ("f1", "p2")]  # each point scored on one set only: none on both
    found = analysis._several(sweep, only, {})
    assert found.pick is None and found.rows == []
    assert found.why_no_pick == "weighted_mean orders no point on these scores"


def test_the_sets_scores_hold_only_the_points_with_per_topic_values_of_the_measure():
    sweep, records = _several_sets_sweep()
    bare = Record("p1", 1, {"a": 1}, {"m": 0.5}, "r", 0.0)  # measured, no per-topic values
    scores = analysis.set_scores(sweep, [*records[:3], bare], [1.0, 0.5])
    assert [(s.name, s.weight, sorted(s.per_topic)) for s in scores] == [("full", 1.0, ["1", "2"]),
                                                                        ("part", 0.5, [])]
    assert scores[0].per_topic["2"] == records[1].per_topic["m"]


def test_a_measure_without_per_topic_values_is_named_as_why_nothing_is_picked():
    sweep, records = _several_sets_sweep()
    bare = [Record(r.key, r.point, r.overrides, r.measures, "r", 0.0) for r in records]
    scored = [SetScores("full", 1.0, {}), SetScores("part", 0.5, {})]
    assert analysis._why_no_pick(sweep, bare, scored, [1.0, 0.5]) == (
        "m has no per-topic values, which the criterion over several sets needs (choose a measure such as "
        "relevance:touche.nDCG@5)")
    # no record at all: the sets have not run, whatever the measure
    assert analysis._why_no_pick(sweep, [], scored, [1.0, 0.5]).startswith("set(s) full, part have no finished run")


def test_the_runs_of_an_analysis_are_the_sweeps_jobs():
    sweep = SimpleNamespace(jobs=lambda: ["job1", "job2", "job3"])
    assert analysis.SweepAnalysis(sweep=sweep, records=[], sets=[], header=[], rows=[]).runs == 3
