"""Choosing across several development sets (retrieval/experiments/robust.py): how a criterion shows
its value, weights that cannot order anything, worst_case on a set where nothing scores or of zero
weight, a point unscored on a set, the least support of a correlation, exact ties sharing the
draws, a pick tied with the best, the lead's interval and the leave-one-set-out estimate."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from touche.retrieval.experiments.robust import (
    Choice,
    SetScores,
    _agreement_with_best_judged,
    agreement,
    choose_robustly,
    coverage,
    criterion_named,
    criterion_values,
    effective_weights,
    leave_one_set_out,
    tied_with_pick,
    weighted_mean,
)


def _set(name, weight, per_point):
    """A set whose points score ``per_point[p]`` on topics "1", "2", ..."""
    return SetScores(name, weight, {p: {str(t): v for t, v in enumerate(values, 1)} for p, values in per_point.items()})


# --------------------------------------------------------------------------- criteria
def test_a_rank_criterion_shows_the_rank_itself_and_a_score_criterion_the_score():
    assert criterion_named("weighted_rank").shown(-2.5) == 2.5 and criterion_named("calibrated_rank").shown(-1.0) == 1.0
    assert criterion_named("weighted_mean").shown(0.4) == 0.4 and criterion_named("worst_case").shown(0.8) == 0.8


def test_weights_summing_below_zero_give_no_mean():
    values = np.array([[0.5, 0.2], [0.3, 0.4]])
    assert np.isnan(weighted_mean(values, [-1.0, 0.0])).all()
    assert np.isnan(weighted_mean(values, [math.inf, 1.0])).all()


def test_a_negative_weight_orders_nothing_whatever_the_other_sets_weigh():
    means = np.array([[0.5, 0.2], [0.3, 0.4]])
    for criterion in ("weighted_mean", "worst_case", "weighted_rank"):
        assert np.isnan(criterion_values(means, [-1.0, 2.0], criterion)).all()


def test_worst_case_is_the_smallest_share_of_each_sets_best_by_hand():
    means = np.array([[0.8, 0.1], [0.4, 0.4], [0.2, 0.2]])  # best: 0.8 on the first set, 0.4 on the second
    assert criterion_values(means, [1.0, 1.0], "worst_case").tolist() == [0.25, 0.5, 0.25]
    # a set of weight 0 has no say
    assert criterion_values(means, [1.0, 0.0], "worst_case").tolist() == [1.0, 0.5, 0.25]


def test_worst_case_on_a_set_where_no_point_scores_above_zero_gives_every_point_nothing():
    means = np.array([[0.8, 0.0], [0.4, -0.5]])  # the second set's best is 0: no share of it can be told
    assert criterion_values(means, [1.0, 1.0], "worst_case").tolist() == [0.0, 0.0]


def test_worst_case_counts_a_set_a_point_was_not_scored_on_as_nothing():
    means = np.array([[0.8, math.nan], [0.4, 0.4]])
    assert criterion_named("worst_case").values(means, np.array([1.0, 1.0])).tolist() == [0.0, 0.5]


def test_a_point_unscored_on_a_set_of_weight_zero_is_still_ordered_but_not_on_a_set_that_weighs():
    means = np.array([[0.5, math.nan], [0.4, 0.3]])
    assert criterion_values(means, [1.0, 0.0], "weighted_mean").tolist() == [0.5, 0.4]
    values = criterion_values(means, [1.0, 0.5], "weighted_mean")
    assert math.isnan(values[0]) and values[1] == pytest.approx((0.4 + 0.5 * 0.3) / 1.5)


# --------------------------------------------------------------------------- agreement: at least 3 shared points
def test_a_set_agreeing_on_two_points_only_earns_no_weight_three_are_needed():
    two = np.array([[0.5, 0.4], [0.3, 0.2]])  # the same order on both sets, but two points prove nothing
    assert effective_weights(two, [1.0, 0.5], "calibrated_rank").tolist() == [1.0, 0.0]
    three = np.array([[0.1, 0.2], [0.5, 0.4], [0.3, 0.1]])
    rho = stats.spearmanr(three[:, 1], three[:, 0]).statistic  # 0.5
    assert effective_weights(three, [1.0, 0.5], "calibrated_rank").tolist() == [1.0, pytest.approx(0.5 * rho)]
    assert effective_weights(three, [1.0, 0.5], "weighted_rank").tolist() == [1.0, 0.5]


def test_the_agreement_of_two_sets_needs_three_shared_points_and_a_set_agrees_with_itself():
    a = _set("a", 1.0, {"p": [0.1], "q": [0.5], "r": [0.3]})
    b = _set("b", 1.0, {"p": [0.2], "q": [0.1], "r": [0.4]})
    rho = agreement([a, b], ["p", "q", "r"])
    assert rho[0, 0] == rho[1, 1] == 1.0
    assert rho[0, 1] == rho[1, 0] == pytest.approx(stats.spearmanr([0.1, 0.5, 0.3], [0.2, 0.1, 0.4]).statistic)
    few = agreement([a, b], ["p", "q"])
    assert few[0, 0] == few[1, 1] == 1.0 and math.isnan(few[0, 1]) and math.isnan(few[1, 0])


# --------------------------------------------------------------------------- the order and ties
def test_only_points_scoring_exactly_the_picks_value_are_tied_with_it():
    assert tied_with_pick([0.5, 0.3, 0.3], [0, 1, 2]) == []
    assert tied_with_pick([0.3, 0.5, 0.5], [1, 2, 0]) == [2]


def test_points_are_ordered_best_first_and_an_unordered_point_last():
    first = _set("first", 1.0, {"a": [0.3, 0.3], "b": [0.5, 0.5], "c": [0.4, 0.4]})
    second = _set("second", 1.0, {"a": [0.3], "b": [0.5]})  # c not scored here: not ordered
    choice = choose_robustly([first, second], ["a", "b", "c"], "weighted_mean", resamples=10)
    assert choice.order == [1, 0, 2] and math.isnan(choice.values[2])


def test_point_names_may_be_given_as_a_dicts_keys():
    first = _set("first", 1.0, {"good": [0.9, 0.8], "bad": [0.1, 0.2]})
    second = _set("second", 0.5, {"good": [0.7, 0.6], "bad": [0.5, 0.4]})
    choice = choose_robustly([first, second], first.per_topic.keys(), "weighted_mean", resamples=10)
    assert choice.points[choice.pick] == "good"
    transfers = leave_one_set_out([first, second], first.per_topic.keys(), "weighted_mean")
    assert [(t.left_out, t.pick) for t in transfers] == [("first", "good"), ("second", "good")]


# --------------------------------------------------------------------------- noise
def test_a_sweep_of_one_point_picks_it_in_every_draw_and_has_no_lead():
    choice = choose_robustly([_set("s", 1.0, {"only": [0.4, 0.6]})], ["only"], "weighted_mean")
    assert choice.pick_share.tolist() == [1.0] and all(math.isnan(v) for v in choice.lead_interval)
    assert choice.runner_up is None and not choice.lead_is_noise


def test_the_pick_share_follows_the_topics_drawn_by_hand():
    # two topics drawn twice with replacement: a wins unless topic 2 is drawn both times (1 in 4)
    s = SetScores("s", 1.0, {"a": {"1": 1.0, "2": 0.0}, "b": {"1": 0.0, "2": 0.4}})
    choice = choose_robustly([s], ["a", "b"], "weighted_mean")
    assert choice.order == [0, 1]
    assert choice.pick_share[0] == pytest.approx(0.75, abs=0.04)
    assert choice.pick_share[1] == pytest.approx(0.25, abs=0.04)


def test_a_point_scored_on_one_drawn_topic_has_that_topics_value_and_no_value_on_none():
    # b is scored on topic 1 alone (0.9), a on both (0.5): b wins every draw holding topic 1 (3 in 4),
    # whether once or twice; a draw of topic 2 twice leaves b unscored, and a the pick
    s = SetScores("s", 1.0, {"a": {"1": 0.5, "2": 0.5}, "b": {"1": 0.9}})
    choice = choose_robustly([s], ["a", "b"], "weighted_mean")
    assert choice.order == [1, 0]
    assert choice.pick_share[1] == pytest.approx(0.75, abs=0.04)
    # the lead over a, in the draws where both are scored: always 0.4
    assert choice.lead_interval == (pytest.approx(0.4), pytest.approx(0.4))


# --------------------------------------------------------------------------- quietly: no warning from numpy or scipy
def test_a_set_on_which_every_point_scores_the_same_earns_no_weight_and_no_warning():
    import warnings
    means = np.array([[0.5, 0.2], [0.3, 0.2], [0.1, 0.2]])  # the second set cannot tell the points apart
    level = _set("level", 1.0, {"p": [0.2], "q": [0.2], "r": [0.2]})
    varied = _set("varied", 1.0, {"p": [0.5], "q": [0.3], "r": [0.1]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # scipy's ConstantInputWarning, numpy's division by zero
        assert effective_weights(means, [1.0, 0.5], "calibrated_rank").tolist() == [1.0, 0.0]
        # the most completely judged set itself level: no set can agree with it
        assert effective_weights(means[:, ::-1], [1.0, 0.5], "calibrated_rank").tolist() == [1.0, 0.0]
        rho = agreement([varied, level], ["p", "q", "r"])
        assert math.isnan(rho[0, 1]) and math.isnan(rho[1, 0])
        rho = agreement([level, varied], ["p", "q", "r"])
        assert math.isnan(rho[0, 1])
        assert criterion_values(np.array([[0.8, 0.0], [0.4, 0.0]]), [1.0, 1.0], "worst_case").tolist() == [0.0, 0.0]


# --------------------------------------------------------------------------- ties
def test_exact_ties_share_the_draws_and_are_called_ties():
    from touche.retrieval.experiments.robust import SetScores, choose_robustly
    zero = {str(p): {str(t): 0.0 for t in range(1, 6)} for p in (1, 2, 3)}
    choice = choose_robustly([SetScores("a", 1.0, zero), SetScores("b", 0.5, zero)], ["1", "2", "3"], "weighted_mean")
    assert list(choice.pick_share) == pytest.approx([1 / 3] * 3)  # was [1.0, 0, 0]: "picked in 100 %"
    assert choice.tied == [1, 2]


def test_a_pick_without_a_score_on_the_left_out_set_has_no_rank_there():
    from touche.retrieval.experiments.robust import SetScores, leave_one_set_out
    one = {p: {"1": v, "2": v} for p, v in (("1", 0.2), ("2", 0.9), ("3", 0.5))}
    two = {"1": {"1": 0.3, "2": 0.3}}  # a partial sweep: only point 1 ran on set two
    transfers = {t.left_out: t for t in leave_one_set_out([SetScores("one", 1.0, one), SetScores("two", 1.0, two)],
                                                          ["1", "2", "3"], "weighted_mean")}
    assert transfers["two"].pick == "2" and transfers["two"].rank != transfers["two"].rank  # NaN: no rank there


def test_a_pick_tied_with_the_best_ranks_first_where_every_point_ties():
    from touche.retrieval.experiments.robust import SetScores, leave_one_set_out
    per_topic = {p: {"1": 0.5, "2": 0.5} for p in ("1", "2", "3")}
    sets = [SetScores("a", 1.0, per_topic), SetScores("b", 1.0, per_topic)]
    for transfer in leave_one_set_out(sets, ["1", "2", "3"]):
        assert transfer.rank == 1.0 and transfer.best == "1"


def test_the_worst_case_criterion_ignores_sets_of_zero_weight():
    from touche.retrieval.experiments.robust import criterion_values
    means = np.array([[0.8, 0.1], [0.6, 0.6]])  # point 0 is bad on set 1, which weighs nothing
    assert list(criterion_values(means, [1.0, 0.0], "worst_case")) == pytest.approx([1.0, 0.75])
    assert list(criterion_values(means, [1.0, 1.0], "worst_case")) == pytest.approx([1 / 6, 0.75])


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
