"""The range of every number a model file may hold (``touche/bounds.py``): what the mutation run
(``python -m bench.mutation``) found untested: the largest score a linear model can give, computed
by hand for models with a mean, a scale, an intercept, several classes, per-feature input ranges
and a factor, accepted up to exactly 10^20 and refused beyond; a value no float holds is named
(not the valid one before it); a value is quoted whole up to 40 characters."""
from __future__ import annotations

import math

import pytest

from touche.bounds import FEATURE_LIMIT, OUTPUT_LIMIT, check_linear_output, checked_array


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
