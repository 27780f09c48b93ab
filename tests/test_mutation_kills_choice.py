"""What the mutation run (python -m bench.mutation, docs/testing.md) found the value bounds' and
the robust choice's own tests not to notice: a model number at its bound, a count of one, the
weighted mean that counts an unscored set as 0, the calibration of a set that agrees, the
coverage of a topic, ties with the pick, when the lead is noise, the stability of a pick between
two points, and what leaving one set out transfers."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from touche.bounds import MODEL_LIMIT, checked_array, checked_count
from touche.guard import OutputFolder
from touche.retrieval.experiments.robust import (
    Choice,
    SetScores,
    _agreement_with_best_judged,
    choose_robustly,
    coverage,
    criterion_values,
    leave_one_set_out,
    tied_with_pick,
    weighted_mean,
)


# --------------------------------------------------------------------------- bounds
def test_a_model_number_at_its_bound_is_kept_and_one_beyond_refused():
    assert checked_array([MODEL_LIMIT, -MODEL_LIMIT], "coef").tolist() == [MODEL_LIMIT, -MODEL_LIMIT]
    with pytest.raises(ValueError, match=r"coef\[0\] is 1000001.0"):
        checked_array([MODEL_LIMIT + 1], "coef")
    assert checked_array([0.0, 5.0], "idf", low=0, high=5.0).tolist() == [0.0, 5.0]


def test_a_count_is_a_whole_number_of_at_least_one_and_comes_back_as_int():
    assert checked_count(1, "examples") == 1 and checked_count(np.int64(3), "examples") == 3
    assert type(checked_count(np.int64(3), "examples")) is int
    for bad in (0, -1, True, 2.0, "3"):
        with pytest.raises(ValueError, match="expected a whole number ≥ 1"):
            checked_count(bad, "examples")
    assert checked_count(0, "n", low=0) == 0


# --------------------------------------------------------------------------- robust
def test_the_weighted_mean_counts_an_unscored_set_as_zero_and_no_weight_as_undefined():
    values = np.array([[math.nan, 0.5], [0.4, 0.2]])
    assert weighted_mean(values, [1, 1]).tolist() == [0.25, pytest.approx(0.3)]
    nothing = weighted_mean(values, [0, 0])
    assert nothing.shape == (2,) and np.isnan(nothing).all()
    means = np.array([[0.5, 0.1], [0.3, 0.3]])
    assert criterion_values(means, [3, 1], "weighted_mean").tolist() == [pytest.approx(0.4), pytest.approx(0.3)]


def test_a_set_that_ranks_the_points_as_the_judged_one_does_keeps_its_weight():
    means = np.array([[0.5, 0.40], [0.3, 0.20], [0.1, 0.05], [0.2, 0.10]])  # same order on both sets
    assert _agreement_with_best_judged(means, np.array([1.0, 0.5])).tolist() == [1.0, 1.0]
    reversed_ = means[:, [0]].repeat(2, axis=1) * np.array([1, -1])
    assert _agreement_with_best_judged(reversed_, np.array([1.0, 0.5])).tolist() == [1.0, 0.0]


def test_coverage_is_the_share_of_a_topics_judged_documents_the_collection_holds():
    judged = {"1": {"a": 1, "b": 0, "c": 2, "d": 0}, "2": {}}
    assert coverage(judged, {"a", "c", "x"}, ["1", "2", "3"]) == {"1": 0.5}


def test_points_tied_with_the_pick_and_none_when_a_value_is_missing():
    assert tied_with_pick([0.5, 0.5, 0.3, 0.5], [0, 1, 3, 2]) == [1, 3]
    assert tied_with_pick([None, None], [0, 1]) == [] and tied_with_pick([0.5, None], [0, 1]) == []
    assert tied_with_pick([], []) == []


def _choice(order, lead):
    return Choice("c", ["p1", "p2", "p3"], ["s"], [1.0], np.zeros((3, 1)), np.zeros(3), order,
                  np.zeros((3, 1, 2)), np.zeros(3), lead)


def test_a_lead_whose_interval_reaches_zero_is_noise():
    assert _choice([0, 2, 1], (0.0, 0.2)).lead_is_noise is True
    assert _choice([0, 2, 1], (0.01, 0.2)).lead_is_noise is False
    assert _choice([0], (math.nan, math.nan)).lead_is_noise is False  # no runner-up, no lead
    assert _choice([0, 2, 1], (0.01, 0.2)).runner_up == 2 and _choice([0], (0, 0)).runner_up is None
    assert _choice([1, 0], (0.01, 0.2)).runner_up == 0


def _set(name, weight, per_point):
    return SetScores(name, weight, {p: dict(zip(map(str, range(1, len(v) + 1)), v)) for p, v in per_point.items()})


def test_a_point_better_on_every_topic_is_the_pick_in_every_draw_even_between_two():
    dev = _set("dev", 1.0, {"good": [0.9, 0.8, 0.7, 0.9, 0.8], "bad": [0.1, 0.2, 0.1, 0.3, 0.2]})
    choice = choose_robustly([dev], ["good", "bad"], "weighted_mean", resamples=200, seed=3)
    assert choice.order == [0, 1] and choice.pick_share.tolist() == [1.0, 0.0]
    assert 0.5 < choice.lead_interval[0] <= choice.lead_interval[1] < 0.8 and not choice.lead_is_noise
    once = choose_robustly([dev], ["good", "bad"], "weighted_mean", resamples=1, seed=3)
    assert once.pick_share.tolist() == [1.0, 0.0]  # one draw is a draw: not "every point picked"


def test_leaving_one_set_out_picks_on_the_others_and_scores_there():
    a = _set("a", 1.0, {"p1": [0.9, 0.9], "p2": [0.5, 0.5], "p3": [0.1, 0.1]})
    b = _set("b", 0.5, {"p1": [0.2, 0.2], "p2": [0.6, 0.6], "p3": [0.4, 0.4]})
    transfers = leave_one_set_out([a, b], ["p1", "p2", "p3"], "weighted_mean")
    assert [(t.left_out, t.pick, t.score, t.rank, t.best) for t in transfers] == \
        [("a", "p2", 0.5, 2.0, "p1"), ("b", "p1", pytest.approx(0.2), 3.0, "p2")]
    assert leave_one_set_out([a], ["p1"], "weighted_mean") == []


# --------------------------------------------------------------------------- choose
QUALITY = "quality:touche.nDCG@5"
BASE_VARIANT = Path(__file__).resolve().parent.parent / "configs" / "task1" / "examples" / "2-krovetz-bm25.yaml"


def _two_measures(tmp_path, quality_values):
    """The three points of test_choose_trust, with a quality mean per point and quality qrels."""
    from tests.experiments.test_choose_trust import _three
    results = _three(tmp_path)
    results.manifest.sets[0].qrels["quality"] = "q"
    for record, value in zip(results.records, quality_values):
        record.measures[QUALITY] = value
    return results


def test_the_second_measure_is_the_quality_one_on_another_qrels_file(tmp_path):
    from touche.retrieval.experiments.choose.picks import default_second_measure
    results = _two_measures(tmp_path, [0.5, 0.4, 0.3])
    assert default_second_measure(results, "relevance:touche.nDCG@5") == QUALITY
    assert default_second_measure(results, QUALITY) == "relevance:touche.nDCG@5"
    results.manifest.sets[0].qrels.pop("quality")
    assert default_second_measure(results, "relevance:touche.nDCG@5") is None


def test_the_best_by_the_second_measure_is_the_second_pick_or_shares_the_first(tmp_path):
    from touche.retrieval.experiments.choose.picks import pick
    other = pick(_two_measures(tmp_path / "a", [0.3, 0.4, 0.9]), second=QUALITY, count=2)
    assert [c.record.point for c in other] == [1, 3] and other[1].reason == f"best by {QUALITY}"
    assert other[1].loss is not None  # shown with its loss on the main measure
    same = pick(_two_measures(tmp_path / "b", [0.9, 0.4, 0.3]), second=QUALITY, count=2)
    assert same[0].reason == f"best by relevance:touche.nDCG@5 and by {QUALITY}"
    assert same[1].reason.startswith(f"next best by {QUALITY} that differs")


def test_a_max_loss_of_zero_is_allowed():
    from touche.retrieval.experiments.choose.picks import pick
    with pytest.raises(Exception) as raised:
        pick(None, max_loss=0)  # past the check: fails on the missing results, not on --max-loss
    assert "--max-loss" not in str(raised.value)


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


def test_a_points_name_and_tag_say_its_settings_and_stay_within_the_limit():
    from touche.retrieval.experiments.choose.picks import TAG_LIMIT, derive_tag, point_slug
    from touche.retrieval.experiments.sweep import Record
    assert point_slug({"analyzer.stemmer": "krovetz", "retrieval.similarity.k1": 1.2}) == "krovetz_k1-1.2"
    assert point_slug({"retrieval.similarity": {"name": "lmdirichlet", "mu": 300}}) == "lmdirichlet-mu-300"
    short = Record("k", 7, {"retrieval.similarity.k1": 1.2}, {}, "r", 0.0)
    assert derive_tag("touche-bm25", short, set()) == "touche-bm25-k1-1.2"
    assert derive_tag("touche-bm25", short, {"touche-bm25-k1-1.2"}) == "touche-bm25-k1-1.2-p7"
    long_ = Record("k", 12, {f"query.field_weights.field{i}": i / 10 for i in range(12)}, {}, "r", 0.0)
    tag = derive_tag("touche-krovetz-bm25", long_, set())
    assert len(tag) <= TAG_LIMIT and tag.endswith("-p12") and tag.startswith("touche-krovetz-bm25-field0-0_field1-0.1")


def test_a_point_extends_cannot_express_is_written_as_a_complete_variant(tmp_path):
    from touche.config import load_variant
    from touche.retrieval.experiments.choose.picks import Pick, write_choice
    from touche.retrieval.experiments.sweep import Record
    base = tmp_path / "configs" / "base.yaml"
    base.parent.mkdir()
    base.write_text("extends: " + str(BASE_VARIANT) + "\ntag: t\n")
    fewer = {"query.field_weights": {"contents": 1.0}}  # the base weighs contents and conclusion
    record = Record("k", 3, fewer, {}, "r", 0.0)
    out = OutputFolder(tmp_path / "chosen")
    path = write_choice(Pick(record, "best"), 1, base, out, "t-p3", "# header\n")
    text = path.read_text()
    assert text.startswith("# header\n# complete variant: `extends` merging cannot express") and "extends:" not in text
    assert load_variant(path).variant.query.field_weights == {"contents": 1.0}
    plain = write_choice(Pick(Record("j", 4, {"retrieval.similarity.k1": 1.0}, {}, "r", 0.0), "next"), 2, base, out,
                         "t-p4", "# header\n")
    assert "extends:" in plain.read_text() and load_variant(plain).variant.retrieval.similarity.k1 == 1.0


def test_a_selection_of_topics_is_copied_beside_the_suite_and_guarded_as_an_output(tmp_path):
    from types import SimpleNamespace

    from touche.retrieval.experiments.choose.picks import Pick, _files, suite_inputs
    from touche.retrieval.experiments.sweep import Record
    sweep = tmp_path / "sweep"
    sweep.mkdir()
    (sweep / "topics.xml").write_text("<topics/>")
    entry = SimpleNamespace(name="dev", corpus="corpus", topics="topics.xml", corpus_files=None,
                            source_topics="all-topics.xml", qrels={"relevance": "q.txt"})
    results = SimpleNamespace(main_set=entry, directory=sweep, path=lambda stored: sweep / stored)
    folder = OutputFolder(tmp_path / "chosen")
    out = folder.path
    corpus, topics = suite_inputs(results, entry, folder)
    assert topics == out / "topics.xml" and topics.read_text() == "<topics/>" and corpus == sweep / "corpus"
    picks = [Pick(Record("k", 1, {"a": 1}, {}, "r", 0.0), "best")]
    assert ("topics copy", out / "topics.xml") in _files(results, picks, tmp_path / "base.yaml", out).writes
    whole = SimpleNamespace(**{**vars(entry), "source_topics": None})
    assert suite_inputs(results, whole, folder)[1] == sweep / "topics.xml"
    assert all(what != "topics copy" for what, _ in _files(SimpleNamespace(**{**vars(results), "main_set": whole}),
                                                           picks, tmp_path / "base.yaml", out).writes)


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
