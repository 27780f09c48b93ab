"""A sweep's analysis (retrieval/experiments/sweep/analysis.py): records sorted best first, each
point tested against the best, each row's rank, a set's weight from its judged coverage, the runs
each set finished, several sets' means with intervals, a best point on the grid's edge said, and
why nothing is picked."""
from __future__ import annotations

import math
from types import SimpleNamespace

import pytest
import scipy.stats  # noqa: F401 - loaded while collecting (0.7 s), not inside the first test that ranks
import yaml

from tests.experiments.test_robust import _choice
from tests.shared import DEMO, RELEVANCE, cli
from touche.retrieval.experiments.robust import (
    SetScores,
)
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


# --------------------------------------------------------------------------- sweeps and choose
def test_a_sweep_says_when_its_best_point_is_on_the_grids_edge(jvm_started, index_root, tmp_path):
    from tests.experiments.test_sweep_reliability import demo_set, write_sets
    path = write_sets(tmp_path / "s.yaml", {"a": demo_set()}, tmp_path / "out")
    data = yaml.safe_load(path.read_text())
    data["sets"], data["grid"] = None, {"retrieval.similarity.k1": [0.3, 0.9, 2.0]}
    data.update(corpus=str(DEMO / "args.me"), topics=str(DEMO / "topics.xml"), qrels={"relevance": str(RELEVANCE)})
    del data["sets"]
    path.write_text(yaml.safe_dump(data))
    code, text = cli("sweep", str(path), "--index-root", str(index_root), "--quiet")
    assert code == 0, text
    results = (tmp_path / "out" / "results.md").read_text()
    best = next(line for line in results.splitlines() if line.startswith("- best:"))
    edge = "(the largest tried)" if "k1=2" in best else "(the smallest tried)" if "k1=0.3" in best else None
    if edge:
        assert "lies on the grid's edge**: retrieval.similarity.k1" in results and edge in results
        assert "note: the best point lies on the grid's edge" in text
    else:
        assert "grid's edge" not in results
    names = sorted(p.name for p in (tmp_path / "out" / "runs").glob("*.txt"))
    assert [n.split("--")[0] for n in names] == ["k1-0.3", "k1-0.9", "k1-2"]


# --------------------------------------------------------------------------- the sweep's analysis
def _record(point, value, per_topic=None, index=""):
    from touche.retrieval.experiments.sweep import Record
    measures = {} if value is None else {"m": value}
    return Record(key=f"k{point}", point=point, overrides={}, measures=measures, run=f"runs/{point}.txt", seconds=1.0,
                  index=index, per_topic={"m": per_topic} if per_topic else {})


def test_records_are_sorted_best_first_undefined_last_ties_in_point_order():
    from touche.retrieval.experiments.sweep.analysis import sort_records
    records = [_record(1, 0.5), _record(2, math.nan), _record(3, 0.7), _record(4, 0.5), _record(5, None)]
    assert [r.point for r in sort_records(records, "m")] == [3, 1, 4, 2, 5]


def test_each_point_is_tested_against_the_best_on_their_common_topics():
    from touche.retrieval.evaluation.significance import paired_on_common
    from touche.retrieval.experiments.sweep.analysis import p_values_against_best
    best = {"1": 0.9, "2": 0.8, "3": 0.7, "4": 0.9}
    other = {"1": 0.1, "2": 0.2, "3": 0.1}
    records = [_record(1, 0.3, other), _record(2, 0.8, best), _record(3, 0.2)]  # point 3: no per-topic values
    assert p_values_against_best(records, "m") == {"k1": paired_on_common(other, best)[1]}
    assert p_values_against_best(records, "m")["k1"] < 0.3
    assert p_values_against_best([_record(1, 0.5)], "m") == {} and p_values_against_best([], "m") == {}


def test_the_main_measure_is_the_first_column_and_each_other_one_follows_once():
    from touche.retrieval.experiments.sweep import Record
    from touche.retrieval.experiments.sweep.analysis import measure_columns
    records = [Record("a", 1, {}, {"x": 1.0, "m": 2.0}, "r", 0.0), Record("b", 2, {}, {"y": 1.0, "x": 0.5}, "r", 0.0)]
    assert measure_columns(records, "m") == ["m", "x", "y"]


def test_a_sets_coverage_summary():
    from touche.retrieval.experiments.sweep.analysis import SetSummary
    partly = SetSummary("dev", 3, {"1": 0.2, "2": 0.4, "3": 0.9}, 0.5, 0.5, 3)
    assert partly.mean_coverage == pytest.approx(0.5) and partly.median_coverage == 0.4
    assert partly.mostly_unjudged is False
    assert SetSummary("dev", 2, {"1": 0.2, "2": 0.4}, 0.3, 0.3, 2).mostly_unjudged is True
    empty = SetSummary("dev", 0, {}, 1.0, 1.0, 0)
    assert empty.mostly_unjudged is False and math.isnan(empty.median_coverage)


def test_the_pick_of_one_set_is_its_best_point_and_indexes_count_distinct_builds():
    from touche.retrieval.experiments.sweep.analysis import SweepAnalysis
    ranked = [_record(2, 0.9, index="i1"), _record(1, 0.5, index="i1"), _record(3, 0.1, index="")]
    analysis = SweepAnalysis(sweep=None, records=ranked, sets=[], header=[], rows=[], ranked=ranked)
    assert analysis.pick == 1 and analysis.indexes == 1
    assert SweepAnalysis(sweep=None, records=[], sets=[], header=[], rows=[]).pick is None
    none_ordered = _choice([], (math.nan, math.nan))
    assert SweepAnalysis(sweep=None, records=[], sets=[], header=[], rows=[], choice=none_ordered).pick is None
    assert SweepAnalysis(sweep=None, records=[], sets=[], header=[], rows=[],
                         choice=_choice([2, 0, 1], (0.1, 0.2))).pick == 2


def _several_sets_sweep():
    from types import SimpleNamespace

    from touche.retrieval.experiments.sweep import Record
    points = [SimpleNamespace(number=n, overrides={"a": n}, coordinates={"a": n}) for n in (1, 2)]
    sets = [SimpleNamespace(name="full", weight=1.0, keys=["f1", "f2"], selected_topics=lambda: ["1", "2", "3"]),
            SimpleNamespace(name="part", weight=0.5, keys=["p1", "p2"], selected_topics=lambda: ["4", "5", "6"])]
    values = {"f1": [0.9, 0.5, 0.7], "f2": [0.2, 0.3, 0.1], "p1": [0.6, 0.8, 0.4], "p2": [0.5, 0.2, 0.3]}
    records = [Record(key, int(key[1]), {"a": int(key[1])}, {"m": sum(v) / 3}, "r", 0.0,
                      per_topic={"m": dict(zip(("1", "2", "3") if key[0] == "f" else ("4", "5", "6"), v))})
               for key, v in values.items()]
    spec = SimpleNamespace(measure="m", criterion="weighted_mean")
    return SimpleNamespace(sets=sets, points=points, spec=spec, axes=[]), records


def test_several_sets_give_each_point_its_means_with_intervals_and_the_pick(monkeypatch):
    from touche.retrieval.experiments.sweep import analysis
    monkeypatch.setattr(analysis, "swept_keys", lambda spec: ["a"])
    sweep, records = _several_sets_sweep()
    found = analysis._several(sweep, records, {"full": {"1": 1.0}, "part": {"4": 0.4}})
    assert found.pick == 0 and found.why_no_pick == ""
    rank, point, a, mean, low, high, topics = found.rows[0][:7]
    assert (rank, point, a, topics) == (1, 1, 1, 3) and low < mean < high
    assert [s.coverage for s in found.sets] == [{"1": 1.0}, {"4": 0.4}]


def test_one_set_keeps_its_coverage(monkeypatch):
    from types import SimpleNamespace

    from touche.retrieval.experiments.sweep import analysis
    monkeypatch.setattr(analysis, "swept_keys", lambda spec: ["a"])
    sweep, records = _several_sets_sweep()
    one = SimpleNamespace(**{**vars(sweep), "sets": sweep.sets[:1]})
    found = analysis._one(one, records[:2], {"full": {"1": 0.5, "2": 1.0}})
    assert found.sets[0].coverage == {"1": 0.5, "2": 1.0} and found.ranked[0].point == 1


def test_why_nothing_is_picked_says_which_set_and_what_to_do():
    from touche.retrieval.experiments.robust import SetScores
    from touche.retrieval.experiments.sweep.analysis import _why_no_pick
    sweep, records = _several_sets_sweep()
    scored = [SetScores("full", 1.0, {"1": {"1": 0.5}}), SetScores("part", 0.5, {"1": {"4": 0.5}})]
    assert _why_no_pick(sweep, records, scored, [1.0, 0.5]) == ""
    assert "the judged coverage of set(s) part could not be computed" in \
        _why_no_pick(sweep, records, scored, [1.0, math.nan])
    assert _why_no_pick(sweep, records, scored,
                        [0.0, 0.0]) == "no set has a positive weight: the criterion orders nothing"
    empty = [scored[0], SetScores("part", 0.5, {})]
    assert "set(s) part have no finished run yet" in _why_no_pick(sweep, records, empty, [1.0, 0.5])
