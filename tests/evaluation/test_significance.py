"""Paired significance tests and their guards (retrieval/evaluation/significance.py), held against
values computed independently: scipy's t-test and Wilcoxon test, the randomization test's p by
exact enumeration or from the documented seeded draw, ``pairwise`` equal to each pair tested
alone; where a difference becomes a tie, the two-topic minimum of each test, the floor of a sampled
p, and which argument mistakes are refused."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from scipy import stats

from touche.errors import ToucheError
from touche.retrieval.evaluation import significance
from touche.retrieval.evaluation.resampling import TIE_TOLERANCE
from touche.retrieval.evaluation.significance import (
    DEFAULT_SEED,
    PairTest,
    bootstrap_interval,
    check_correction,
    check_resamples,
    check_test,
    p_floor,
    paired_randomization_test,
    paired_t_test,
    paired_wilcoxon_test,
    pairwise,
    per_topic_scores,
    wins_losses_ties,
)

FAST = settings(max_examples=15, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def exact_sign_flip_p(steps: list[int]) -> float:
    """The two-sided randomization p of differences ``steps / 20``, every flip enumerated, counted
    in whole numbers: means equal in exact arithmetic are equal (twice the smaller tail, at most 1)."""
    observed = sum(steps)
    sums = [sum(s * d for s, d in zip(signs, steps)) for signs in itertools.product((1, -1), repeat=len(steps))]
    less = sum(s <= observed for s in sums) / len(sums)
    greater = sum(s >= observed for s in sums) / len(sums)
    return min(1.0, 2 * min(less, greater))


def drawn_sign_flip_p(steps: list[int], resamples: int, seed: int) -> float:
    """The sampled p: ``resamples`` flips of the documented seeded draw (``random < 0.5`` is a
    flip), the tails counted as (hits + 1) / (resamples + 1), in whole numbers."""
    signs = np.where(np.random.default_rng(seed).random((resamples, len(steps))) < 0.5, -1, 1)
    sums = signs @ np.array(steps)
    observed = sum(steps)
    less = ((sums <= observed).sum() + 1) / (resamples + 1)
    greater = ((sums >= observed).sum() + 1) / (resamples + 1)
    return min(1.0, 2 * min(less, greater))


def as_runs(steps: list[int]) -> tuple[list[float], list[float]]:
    """Two runs whose per-topic differences are ``steps / 20`` (both in [0, 1] as nDCG is)."""
    base = [0.5 - (s / 40) for s in steps]
    return [b + s / 20 for b, s in zip(base, steps)], base


# --------------------------------------------------------------------------- per-topic scores
def test_a_bad_cut_off_is_refused_before_any_file_is_read(tmp_path):
    """``touche.nDCG@0`` is named as the mistake even when the run and qrels do not exist yet."""
    with pytest.raises(ToucheError, match=r"cut-off of touche.nDCG@0 must be a positive whole number"):
        per_topic_scores(tmp_path / "no-run.txt", tmp_path / "no-qrels.txt", "touche.nDCG@0")


# --------------------------------------------------------------------------- t-test
def test_the_t_test_of_two_topics_is_scipys():
    """Two topics are the fewest a paired t-test takes: scipy's value, not nan."""
    a, b = [0.2, 0.9], [0.1, 0.3]
    expected = stats.ttest_rel(a, b)
    assert paired_t_test(a, b) == pytest.approx((expected.statistic, expected.pvalue))
    assert all(math.isnan(v) for v in paired_t_test([0.7], [0.1]))  # one topic: undefined


@pytest.mark.filterwarnings("ignore:Precision loss:RuntimeWarning")  # scipy on differences nearly alike
@FAST
@given(st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1)), min_size=2, max_size=12),
       st.randoms(use_true_random=False))
def test_the_t_test_is_scipys_and_ignores_the_topic_order(pairs, rnd):
    a, b = [x for x, _ in pairs], [y for _, y in pairs]
    diffs = np.subtract(a, b)
    t, p = paired_t_test(a, b)
    if np.ptp(diffs) <= TIE_TOLERANCE:
        assert math.isnan(t) and math.isnan(p)
    else:
        expected = stats.ttest_rel(a, b)
        assert (t, p) == pytest.approx((expected.statistic, expected.pvalue), nan_ok=True)
    order = list(range(len(pairs)))
    rnd.shuffle(order)
    assert paired_t_test([a[i] for i in order], [b[i] for i in order]) == pytest.approx((t, p), nan_ok=True)


def test_differences_within_the_tie_tolerance_are_constant_whatever_the_topic_order():
    """Constant differences (spread at most the tie tolerance) have no t; a spread of 1.6e-9 is
    no longer constant, whichever topic comes first (the middle one first used to say constant)."""
    zeros = [0.0, 0.0, 0.0]
    assert all(math.isnan(v) for v in paired_t_test([0.3, 0.3 + 0.5e-9, 0.3], zeros))
    assert all(math.isnan(v) for v in paired_t_test([TIE_TOLERANCE, 0.0], [0.0, 0.0]))  # spread exactly the tolerance
    expected = stats.ttest_rel([0.0, 0.8e-9, 1.6e-9], zeros)
    for order in itertools.permutations([0.0, 0.8e-9, 1.6e-9]):
        assert paired_t_test(list(order), zeros) == pytest.approx((expected.statistic, expected.pvalue))


# --------------------------------------------------------------------------- randomization test
@FAST
@given(st.lists(st.integers(-6, 6), min_size=2, max_size=9))
@example([-3, -1, -2, 1])   # below the base: the lower tail decides
@example([2, -2])           # mean difference 0: p is 1
@example([4, -4, 2, -2, 1, -1])
def test_an_enumerated_randomization_p_is_the_exact_count(steps):
    """Up to 16 topics every sign flip is enumerated: the p equals the count in exact arithmetic,
    means equal there counting as equal though the floats sum them in another order."""
    a, b = as_runs(steps)
    assert paired_randomization_test(a, b) == pytest.approx(exact_sign_flip_p(steps), abs=1e-12)


@pytest.mark.parametrize("seed", [DEFAULT_SEED, 5])
def test_a_sampled_randomization_p_counts_hits_plus_one_over_resamples_plus_one(seed):
    """20 topics, 199 resamples: drawn flips, the p as the docstring counts it, never below the floor."""
    for steps in ([1, -2, 3, 1, 0, 2, -1, 1, 1, 2, -3, 1, 0, 1, 2, 1, -1, 1, 1, 0],
                  [-1, -2, 1, -1, 0, -2, -1, 1, -1, -2, 1, -1, 0, -1, 2, -1, -1, -1, 1, 0],
                  [3, 2, 4, 1, 2, 3, 1, 2, 5, 1, 2, 3, 1, 2, 4, 1, 2, 3, 1, 2]):
        a, b = as_runs(steps)
        p = paired_randomization_test(a, b, resamples=199, seed=seed)
        assert p == pytest.approx(drawn_sign_flip_p(steps, 199, seed), abs=1e-12)
        assert p >= p_floor(199) and round(p * 200 / 2, 9) == round(p * 200 / 2)  # whole hits


def test_one_resample_is_the_fewest_and_gives_p_1():
    a, b = as_runs([1] * 20)
    assert paired_randomization_test(a, b, resamples=1) == 1.0 == p_floor(1)


@pytest.mark.parametrize("bad", [0, -3, 2.5, True, "100"])
def test_resamples_must_be_a_positive_whole_number(bad):
    with pytest.raises(ToucheError, match="at least one resample, a whole number"):
        paired_randomization_test([0.1, 0.2], [0.3, 0.1], resamples=bad)
    with pytest.raises(ToucheError, match="at least one resample, a whole number"):
        pairwise([{"1": 0.1, "2": 0.2}, {"1": 0.3, "2": 0.1}], [(0, 1)], resamples=bad)


def test_a_numpy_count_of_resamples_is_accepted_as_a_plain_int():
    checked = check_resamples(np.int64(500))
    assert checked == 500 and type(checked) is int


@FAST
@given(st.integers(0, 10 ** 7))
def test_the_floor_of_a_sampled_p_is_a_probability(resamples):
    floor = p_floor(resamples)
    assert 0 < floor <= 1
    if resamples >= 1:
        assert floor == pytest.approx(2 / (resamples + 1))


# --------------------------------------------------------------------------- Wilcoxon
def test_wilcoxon_drops_differences_within_the_tie_tolerance_as_scipy_drops_zeros():
    """A difference of at most 1e-9 (also exactly 1e-9) is a tie: dropped as ``zero_method="wilcox"``
    drops zeros, not ranked as the smallest difference."""
    real = [0.3, -0.1, 0.2, 0.4, 0.5, -0.25, 0.35, -0.05]
    expected = stats.wilcoxon(real).pvalue
    assert expected != pytest.approx(stats.wilcoxon(real + [TIE_TOLERANCE]).pvalue)  # ranking the tie would show
    for tie in (1e-12, TIE_TOLERANCE):
        a = real + [tie]
        b = [0.0] * len(a)
        assert a[-1] - b[-1] == tie
        assert paired_wilcoxon_test(a, b) == pytest.approx(expected)
        assert paired_wilcoxon_test(a, b) == pytest.approx(stats.wilcoxon(real + [0], zero_method="wilcox").pvalue)


def test_wilcoxon_of_two_differing_topics_is_scipys():
    """Two non-zero differences are the fewest the test takes: scipy's exact p (0.5), not 1."""
    assert paired_wilcoxon_test([0.5, 0.9, 0.3], [0.2, 0.4, 0.3]) == pytest.approx(stats.wilcoxon([0.3, 0.5]).pvalue)
    assert paired_wilcoxon_test([0.5, 0.9, 0.3], [0.2, 0.4, 0.3]) == pytest.approx(0.5)
    assert paired_wilcoxon_test([0.5, 0.3], [0.2, 0.3]) == 1.0  # one difference: nothing to tell
    assert math.isnan(paired_wilcoxon_test([0.5], [0.2]))


# --------------------------------------------------------------------------- wins, losses, ties
def test_a_difference_of_exactly_the_tie_tolerance_is_a_tie():
    better = {"1": TIE_TOLERANCE, "2": 0.0, "3": 0.5, "4": 0.1}
    base = {"1": 0.0, "2": TIE_TOLERANCE, "3": 0.2, "4": 0.4}
    assert wins_losses_ties(better, base) == (1, 1, 2)
    [pair] = pairwise([base, better], [(0, 1)])
    assert (pair.wins, pair.losses, pair.ties, pair.topics) == (1, 1, 2, 4)


# --------------------------------------------------------------------------- many pairs at once
def test_pairwise_two_topics_are_tested():
    """Two common topics are the fewest a pair is tested on: diffs 0.2, 0.4 → p 2/4 by hand;
    diffs 0.5, -0.5 → mean 0, p 1 (never above 1)."""
    values = [{"1": 0.2, "2": 0.5}, {"1": 0.4, "2": 0.9}, {"1": 0.7, "2": 0.0}]
    first, second = pairwise(values, [(0, 1), (0, 2)])
    assert (first.delta, first.p, first.wins, first.ties) == (pytest.approx(0.3), 0.5, 2, 0)
    assert second.delta == pytest.approx(0.0) and second.p == 1.0 and (second.wins, second.losses) == (1, 1)
    assert pairwise(values, [(0, 1)], "t")[0].p == pytest.approx(stats.ttest_rel([0.4, 0.9], [0.2, 0.5]).pvalue)
    assert pairwise(values, [(0, 1)], "wilcoxon")[0].p == pytest.approx(stats.wilcoxon([0.2, 0.4]).pvalue)
    one = pairwise([{"1": 0.2}, {"1": 0.4}], [(0, 1)])[0]
    assert math.isnan(one.p) and one.topics == 1


def test_pairwise_sampled_p_is_each_pairs_own_test():
    """Above 16 topics the flips are drawn: each pair's p is the one-pair test's, hits + 1 counted."""
    rng = np.random.default_rng(3)
    steps = rng.integers(-4, 5, (5, 20))
    values = [{str(t): 0.5 + s / 20 for t, s in enumerate(row)} for row in steps]
    values.append({str(t): 0.5 for t in range(20)})
    pairs = [(5, i) for i in range(5)] + [(5, 5)]
    tested = pairwise(values, pairs, resamples=199, seed=7)
    for (i, j), result in zip(pairs, tested):
        a, b = [values[j][str(t)] for t in range(20)], [values[i][str(t)] for t in range(20)]
        assert result.p == pytest.approx(paired_randomization_test(a, b, resamples=199, seed=7))
        if i != j:
            assert result.p == pytest.approx(drawn_sign_flip_p(list(steps[j]), 199, 7))
        assert result.exact is False and result.wins + result.losses + result.ties == 20
    assert tested[-1].p == 1.0  # a run against itself


@pytest.mark.filterwarnings("ignore:Precision loss:RuntimeWarning")  # scipy on the constant rows it is not asked for
def test_pairwise_t_test_of_many_pairs_is_scipys():
    """Eight pairs and more are tested at once: each is scipy's paired t-test, nan where the
    differences are constant (spread at most the tie tolerance); a t-test's p has no resampling
    floor, so it is exact."""
    rng = np.random.default_rng(11)
    zero = np.zeros(12)
    runs = [zero] + [rng.random(12) for _ in range(9)] + [zero + 0.05, np.tile([TIE_TOLERANCE, 0.0], 6)]
    values = [{str(t): float(v) for t, v in enumerate(run)} for run in runs]
    pairs = [(0, j) for j in range(1, len(runs))]
    tested = pairwise(values, pairs, "t")
    assert all(r.exact is True for r in tested)
    assert all(r.exact is True for r in pairwise(values, pairs[:2], "wilcoxon"))
    for (i, j), result in zip(pairs[:-2], tested[:-2]):
        assert result.p == pytest.approx(stats.ttest_rel(runs[j], runs[i]).pvalue)
    assert math.isnan(tested[-2].p) and tested[-2].delta == pytest.approx(0.05)  # constant shift: no t
    assert math.isnan(tested[-1].p) and tested[-1].ties == 12  # spread exactly the tolerance: ties, no t
    assert [r.p for r in pairwise(values, pairs[:3], "t")] == pytest.approx([r.p for r in tested[:3]])


# --------------------------------------------------------------------------- bootstrap interval
def test_the_default_interval_is_the_95_percent_percentile_interval():
    """Recomputed with numpy: 2,000 draws of the topics (the fixed seed), the 2.5th and 97.5th
    percentiles of their means."""
    x = np.array([0.1, 0.4, 0.35, 0.8, 0.2, 0.55, 0.9, 0.05])
    draws = np.random.default_rng(DEFAULT_SEED).integers(0, len(x), (2_000, len(x)))
    low, high = np.percentile(x[draws].mean(axis=1), [2.5, 97.5])
    assert bootstrap_interval(x) == pytest.approx((low, high), abs=1e-12)


@FAST
@given(st.lists(st.floats(0, 1), min_size=2, max_size=10))
@example([0.5, 0.5 + 0.8e-9, 0.5 + 0.3e-9])
def test_the_interval_holds_the_mean_within_the_values_range(values):
    low, high = bootstrap_interval(values, resamples=200)
    mean = float(np.mean(values))
    assert low <= mean + 1e-12 and mean - 1e-12 <= high and min(values) <= low <= high <= max(values)


def test_identical_values_have_their_value_as_the_interval():
    assert bootstrap_interval([0.25, 0.25, 0.25]) == (0.25, 0.25)
    for order in itertools.permutations([0.25, 0.25 + 0.6e-9, 0.25 + 0.3e-9]):  # ties: their range, in any order
        assert bootstrap_interval(list(order)) == (0.25, 0.25 + 0.6e-9)
    assert bootstrap_interval([0.0] * 9 + [TIE_TOLERANCE]) == (0.0, TIE_TOLERANCE)  # spread exactly the tolerance
    assert all(math.isnan(v) for v in bootstrap_interval([0.25]))


# --------------------------------------------------------------------------- names
def test_a_correction_is_checked_by_name():
    assert check_correction("fdr_bh") == "fdr_bh"
    with pytest.raises(ToucheError, match="unknown correction 'sidak'; use one of holm, bonferroni, fdr_bh, none"):
        check_correction("sidak")


# --------------------------------------------------------------------------- significance
def test_the_paired_t_test_is_scipys_on_differences_of_one_sign_and_undefined_when_constant():
    a, b = [0.5, 0.6, 0.7, 0.9, 0.4], [0.1, 0.3, 0.2, 0.4, 0.35]
    expected = stats.ttest_rel(a, b)
    assert paired_t_test(a, b) == pytest.approx((expected.statistic, expected.pvalue), rel=1e-12)
    assert paired_t_test(b, a)[0] == pytest.approx(-expected.statistic) and paired_t_test(b, a)[1] == pytest.approx(
        expected.pvalue)
    assert all(math.isnan(v) for v in paired_t_test([0.5, 0.6, 0.7], [0.4, 0.5, 0.6]))  # constant +0.1
    assert all(math.isnan(v) for v in paired_t_test([0.5], [0.4]))


def test_wilcoxon_is_scipys_and_needs_two_differences():
    a, b = [0.5, 0.6, 0.7, 0.9, 0.4, 0.8], [0.1, 0.3, 0.2, 0.95, 0.35, 0.8]
    nonzero = np.array(a) - np.array(b)
    assert paired_wilcoxon_test(a, b) == pytest.approx(stats.wilcoxon(nonzero[nonzero != 0]).pvalue)
    assert paired_wilcoxon_test([0.5, 0.6], [0.5, 0.6]) == 1.0 and math.isnan(paired_wilcoxon_test([0.5], [0.4]))


def test_a_sampled_randomization_p_is_never_below_its_floor():
    """20 topics, every difference positive: the sampled p is (0 + 1) / (resamples + 1) twice, not 0."""
    a, b = [0.9] * 20, [0.1] * 20
    p = paired_randomization_test(a, b, resamples=99, seed=3)
    assert p == pytest.approx(p_floor(99)) == pytest.approx(2 / 100)
    [result] = pairwise([{str(t): v for t, v in enumerate(b)}, {str(t): v for t, v in enumerate(a)}], [(0, 1)],
                        resamples=99, seed=3)
    assert result.p == pytest.approx(p) and result.exact is False and result.p > 0


values = st.lists(st.sampled_from([0.0, 0.25, 0.5, 1.0]) | st.floats(0, 1), min_size=2, max_size=24)


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(values, min_size=2, max_size=4), st.integers(0, 2**31), st.sampled_from([50, 400, 10_000]),
       st.data())
def test_pairwise_equals_the_test_of_each_pair_for_any_topics_and_seed(runs, seed, resamples, data):
    """The batched tests (the explorer's, choose's) give each pair what testing it alone gives:
    its p, Δ, wins, losses, ties, whether p is exact, on the topics both are scored on."""
    per_run = []
    for values_ in runs:
        kept = data.draw(st.lists(st.booleans(), min_size=len(values_), max_size=len(values_)))
        per_run.append({str(t): v for t, (v, keep) in enumerate(zip(values_, kept)) if keep or t < 2})
    pairs = [(i, j) for i in range(len(per_run)) for j in range(len(per_run)) if i != j]
    for test in ("randomization", "t", "wilcoxon"):
        for (i, j), result in zip(pairs, pairwise(per_run, pairs, test, resamples=resamples, seed=seed)):
            common = sorted(set(per_run[i]) & set(per_run[j]), key=int)
            first, second = [per_run[i][t] for t in common], [per_run[j][t] for t in common]
            alone = significance.SIGNIFICANCE_TESTS[test](second, first, resamples, seed)
            assert (math.isnan(result.p) and math.isnan(alone)) or result.p == pytest.approx(alone, rel=1e-9, abs=1e-12)
            assert result.delta == pytest.approx(np.mean(np.subtract(second, first)) if common else math.nan,
                                                 nan_ok=True)
            assert (result.wins, result.losses, result.ties) == wins_losses_ties(per_run[j], per_run[i])
            assert result.topics == len(common)


def test_pair_test_counts_its_topics():
    assert PairTest(0.1, 0.5, 3, 2, 1).topics == 6


def test_an_unknown_test_name_is_refused_not_taken_for_wilcoxon():
    with pytest.raises(ToucheError, match="unknown significance test 'sign'"):
        check_test("sign")
    with pytest.raises(ToucheError, match="unknown significance test"):
        pairwise([{"1": 0.1, "2": 0.2}, {"1": 0.3, "2": 0.1}], [(0, 1)], "sign")


# --------------------------------------------------------------------------- significance, the edges
def test_one_topic_is_no_test_and_no_common_topic_no_difference():
    from touche.retrieval.evaluation.significance import paired_on_common, split_measure
    assert math.isnan(paired_randomization_test([0.5], [0.4]))
    delta, p, n = paired_on_common({"1": 0.5}, {"2": 0.4})
    assert math.isnan(delta) and math.isnan(p) and n == 0
    delta, p, n = paired_on_common({"1": 0.5, "2": 0.7, "3": 0.1}, {"1": 0.4, "2": 0.2})
    assert (round(delta, 9), n) == (0.3, 2) and 0 < p <= 1
    assert split_measure("relevance:touche.nDCG@5") == ("relevance", "touche.nDCG@5")
    assert split_measure("touche.nDCG@5") == (None, "touche.nDCG@5")
    assert check_test("t") == "t"


def test_differences_within_the_tie_tolerance_are_ties_in_every_test():
    a, b = [1e-9] * 6, [0.0] * 6  # exactly the tolerance: a tie, not six wins
    assert paired_randomization_test(a, b) == 1.0
    [result] = pairwise([{str(t): v for t, v in enumerate(b)}, {str(t): v for t, v in enumerate(a)}], [(0, 1)])
    assert result.p == 1.0 and (result.wins, result.losses, result.ties) == (0, 0, 6)
