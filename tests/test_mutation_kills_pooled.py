"""Measures pooled over topics (touche.retrieval.evaluation.pooled): for an additive measure the
swap test is the paired randomization test of the per-topic values (a pooled difference of 1e-7 is
a difference, a zero difference has p 1, never above), the bootstrap interval leaves out draws on
which the measure is undefined, and macro-F1 takes counts as plain lists. The mutation run
(python -m bench.mutation, docs/testing.md) found these untested."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from touche.retrieval.evaluation import pooled
from touche.retrieval.evaluation.significance import paired_randomization_test


def additive(values) -> pooled.Pooled:
    """A pooled measure that is the plain sum of per-topic values."""
    return pooled.Pooled(tuple(str(t) for t in range(1, len(values) + 1)), np.asarray(values, float),
                         lambda summed: np.asarray(summed, float))


@settings(max_examples=12, derandomize=True, deadline=None)
@given(st.lists(st.integers(-5, 5), min_size=2, max_size=8))
@example([3, -3])           # no difference in sum: p 1
@example([-2, -1, 3, -4])
def test_an_additive_pooled_swap_test_is_the_randomization_test(steps):
    run = [s / 20 for s in steps]
    delta, p = pooled.paired_test(additive(run), additive([0.0] * len(run)))
    assert delta == pytest.approx(sum(run))
    assert p == pytest.approx(paired_randomization_test(run, [0.0] * len(run)), abs=1e-12)
    assert 0 < p <= 1


def test_a_pooled_difference_of_1e_7_is_not_a_tie():
    """Two topics, sums 0.5 + 5e-8 against 0: only the unflipped assignment is as extreme, p = 2/4."""
    assert pooled.paired_test(additive([0.5, 5e-8]), additive([0.0, 0.0])) == (pytest.approx(0.50000005), 0.5)
    assert pooled.paired_test(additive([0.5, -0.5]), additive([0.0, 0.0]))[1] == 1.0


def test_the_interval_leaves_out_draws_on_which_the_measure_is_undefined():
    """Topic 3 has no judged stance row: a draw of only topic 3 has no F1 and is left out, not a
    nan interval. The same draws recomputed by hand."""
    parts = np.zeros((3, 4, 4))
    parts[0] = np.diag([2, 1, 0, 0])
    parts[0, 0, 1] = 1
    parts[1] = np.diag([0, 3, 1, 0])
    parts[1, 2, 0] = 2
    measure = pooled.Pooled(("1", "2", "3"), parts, pooled.macro_f1)
    low, high = pooled.interval(measure, resamples=500, seed=4)
    drawn = np.random.default_rng(4).integers(0, 3, (500, 3))
    values = np.array([pooled.macro_f1(parts[d].sum(axis=0)) for d in drawn])
    assert np.isnan(values).any()  # the example draws topic 3 alone
    kept = values[~np.isnan(values)]
    assert (low, high) == pytest.approx(tuple(np.percentile(kept, [2.5, 97.5])))
    empty = pooled.Pooled(("1", "2"), np.zeros((2, 4, 4)), pooled.macro_f1)
    assert all(np.isnan(pooled.interval(empty, resamples=50)))


def test_macro_f1_takes_counts_as_plain_lists():
    """Truth × prediction of two labels, by hand: F1 of label 0 is 2·2/(3+2), of label 1 2·1/(1+2)."""
    counts = [[2, 1], [0, 1]]  # truth 0: 2 right, 1 called 1; truth 1: 1 right
    f1_first, f1_second = 2 * 2 / (3 + 2), 2 * 1 / (1 + 2)
    assert float(pooled.macro_f1(counts)) == pytest.approx((f1_first + f1_second) / 2)
    assert float(pooled.accuracy(counts)) == pytest.approx(3 / 4)
