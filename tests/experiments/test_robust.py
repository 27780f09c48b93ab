"""Choosing across several development sets (touche.retrieval.experiments.robust), where the
mutation run (python -m bench.mutation, docs/testing.md) found the behaviour untested: how a
criterion shows its value, weights that cannot order anything, worst_case on a set where nothing
scores, what a point unscored on a set does, the least support of a correlation (3 shared points),
ties with the pick, the order of the points, what topic resampling says when a point is scored on
few topics, a sweep of one point, and point names given as any sequence (a dict's keys)."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from touche.retrieval.experiments.robust import (
    SetScores,
    agreement,
    choose_robustly,
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
