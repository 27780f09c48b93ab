"""The range of every number a model file may hold (touche/bounds.py): the largest score a linear
model can give, computed by hand for models with a mean, a scale, an intercept, several classes,
per-feature input ranges and a factor, accepted up to exactly 10^20 and refused beyond; a value no
float holds named; model values and labels at their bounds kept, one beyond refused; a count a
whole number of at least one."""
from __future__ import annotations

import math

import numpy as np
import pytest

from touche.bounds import FEATURE_LIMIT, MODEL_LIMIT, OUTPUT_LIMIT, check_linear_output, checked_array, checked_count


def test_the_bound_of_a_plain_model_is_every_feature_at_its_limit_against_its_weight():
    """2·x1 − 3·x2 + 1 with |x_i| ≤ 10^8: at most 2·10^8 + 3·10^8 + 1."""
    assert check_linear_output([[2.0, -3.0]], 1.0, "m") == 5 * FEATURE_LIMIT + 1


def test_a_negative_intercept_adds_to_the_bound_as_much_as_a_positive_one():
    assert check_linear_output([[2.0, -3.0]], -7.0, "m") == 5 * FEATURE_LIMIT + 7


def test_the_bound_of_a_standardised_model_counts_the_mean_and_the_scale():
    """(x − mean) / scale with mean (10, −20), scale (2, 4): |x1 − 10| ≤ 10^8 + 10, halved;
    |x2 + 20| ≤ 10^8 + 20, quartered; weights 2 and −3, intercept 1."""
    bound = check_linear_output([[2.0, -3.0]], 1.0, "m", mean=[10.0, -20.0], scale=[2.0, 4.0])
    assert bound == pytest.approx(2 * (1e8 + 10) / 2 + 3 * (1e8 + 20) / 4 + 1, rel=1e-15)


def test_the_bound_of_several_classes_is_the_largest_class_and_the_factor_scales_it():
    """Two classes, x1 + 5 and −x2 − 7, inputs within ±1 and ±2: at most 6 and 9; × |−2|."""
    assert check_linear_output([[1.0, 0.0], [0.0, -1.0]], [5.0, -7.0], "m", inputs=[1.0, 2.0]) == 9.0
    assert check_linear_output([[1.0, 0.0], [0.0, -1.0]], [5.0, -7.0], "m", inputs=[1.0, 2.0], factor=-2.0) == 18.0
    assert check_linear_output([[1.0, 0.0], [0.0, -1.0]], [5.0, -7.0], "m", inputs=3.0) == 10.0


def test_a_model_that_can_score_exactly_ten_to_the_twenty_is_accepted_and_one_beyond_refused():
    assert check_linear_output([[1e12]], 0.0, "m") == OUTPUT_LIMIT  # 10^12 · 10^8, exact in floats
    with pytest.raises(ValueError, match=r"the sentence classifier can score 1e\+20 on a text"):
        check_linear_output([[1.0000001e12]], 0.0, "the sentence classifier")


@pytest.mark.parametrize("scale", [[0.0], [1e-300], [math.nan]])
def test_a_vanishing_or_missing_scale_is_refused(scale):
    """A deviation of 1e-300 once passed every value check and made scores of 8e304."""
    with pytest.raises(ValueError, match=r"can score (inf|nan|[0-9.]+e\+[0-9]+) on a text"):
        check_linear_output([[1.0]], 0.0, "the passage model", mean=[0.0], scale=scale)


def test_an_integer_no_float_holds_is_named_not_the_valid_value_before_it():
    with pytest.raises(ValueError, match=r"^w holds 10000000000000000000… \(401 characters\), which is no "
                                         r"finite number"):
        checked_array([1.0, 10**400], "w")


def test_a_non_number_is_quoted_whole_up_to_forty_characters_and_by_its_head_beyond():
    with pytest.raises(ValueError, match=r"^w holds '(x{38})', not a number$"):
        checked_array([1.0, "x" * 38], "w")  # its repr: 40 characters
    with pytest.raises(ValueError, match=r"^w holds 'x{19}… \(41 characters\), not a number$"):
        checked_array([1.0, "x" * 39], "w")


# --------------------------------------------------------------------------- bounds, at the bounds
def test_model_values_and_labels_are_accepted_at_their_bounds_and_refused_past_them():
    from touche.bounds import LABEL_MAX, LABEL_MIN, MODEL_LIMIT, checked_array, checked_count, label_problem
    assert list(checked_array([MODEL_LIMIT, -MODEL_LIMIT], "x", (2,))) == [MODEL_LIMIT, -MODEL_LIMIT]
    for bad in (MODEL_LIMIT * 1.000001, -MODEL_LIMIT * 1.000001):
        with pytest.raises(ValueError, match=r"x\[0\]"):
            checked_array([bad], "x")
    assert list(checked_array([0.5, 2.0], "s", above=0.5 - 1e-12)) == [0.5, 2.0]
    with pytest.raises(ValueError, match="above 0.5"):
        checked_array([0.5], "s", above=0.5)
    assert label_problem(LABEL_MIN) is None and label_problem(LABEL_MAX) is None
    assert label_problem(LABEL_MAX + 1) and label_problem(LABEL_MIN - 1)
    assert checked_count(1, "n") == 1
    for bad in (0, True, 1.0, "3"):
        with pytest.raises(ValueError, match="whole number"):
            checked_count(bad, "n")


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
