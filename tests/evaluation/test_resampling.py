"""The resampling every randomization test and bootstrap shares (retrieval/evaluation/resampling.py):
which sign flips a test of n topics sees (all 2^n up to 16 topics, else the seeded stream's first
rows), that they are read-only and drawn once, the default number of resamples, and bootstrap
intervals of one, two, equal and close values."""
from __future__ import annotations

import itertools
import math
import runpy

import numpy as np
import pytest
from scipy import stats

from touche.retrieval.evaluation import resampling, significance
from touche.retrieval.evaluation.resampling import DEFAULT_RESAMPLES, EXACT_FLIPS, sign_flips
from touche.retrieval.evaluation.significance import (
    bootstrap_interval,
    p_floor,
    paired_randomization_test,
    pairwise,
)


@pytest.fixture()
def fresh_streams(monkeypatch):
    """An empty stream cache, so that what a test draws is all the cache holds."""
    monkeypatch.setattr(resampling, "_STREAMS", {})
    return resampling


def seeded_flips(resamples: int, n: int, seed: int) -> np.ndarray:
    """The documented draw: ``default_rng(seed).random((resamples, n)) < 0.5`` is a flip (-1)."""
    return np.where(np.random.default_rng(seed).random((resamples, n)) < 0.5, -1.0, 1.0)


# --------------------------------------------------------------------------- exact: every flip
@pytest.mark.parametrize("n", [1, 3, 5])
def test_few_topics_get_every_sign_vector_exactly_once(n):
    signs, exact = sign_flips(n, 10_000, 7)
    assert exact is True and signs.shape == (2 ** n, n)
    assert sorted(map(tuple, signs.tolist())) == sorted(itertools.product((-1.0, 1.0), repeat=n))


def test_sixteen_topics_are_enumerated_even_when_fewer_resamples_are_asked():
    """Up to 2^16 flips every one is enumerated whatever ``resamples`` says: the p is exact."""
    assert EXACT_FLIPS == 65_536
    signs, exact = sign_flips(16, 100, 7)
    assert exact is True and signs.shape == (65_536, 16)
    codes = (signs < 0).astype(np.int64) @ (1 << np.arange(16, dtype=np.int64))  # each row as a 16-bit number
    assert np.array_equal(np.sort(codes), np.arange(65_536)) and set(np.unique(signs)) == {-1.0, 1.0}
    assert sign_flips(17, 100, 7)[1] is False  # 2^17 > 65,536: drawn


def test_a_fresh_load_of_the_module_enumerates_sixteen_topics():
    """The limit as the module sets it when loaded (run from its file into a fresh namespace, not
    the copy earlier tests used): 16 topics are enumerated with 100 resamples asked, 17 are drawn."""
    fresh = runpy.run_path(resampling.__file__)
    assert fresh["EXACT_FLIPS"] == 65_536
    assert fresh["sign_flips"](16, 100, 7)[1] is True and fresh["sign_flips"](17, 100, 7)[1] is False


def test_an_exact_p_goes_below_the_floor_of_the_resamples_asked():
    """16 topics all better: only the identity and the all-flipped vector are as extreme, so the
    exact two-sided p is 2 / 65,536 even with 100 resamples asked (whose floor would be 2 / 101)."""
    a, b = [0.5 + 0.01 * i for i in range(16)], [0.1] * 16
    assert paired_randomization_test(a, b, resamples=100) == pytest.approx(2 / 65_536)
    assert paired_randomization_test(a, b, resamples=100) < p_floor(100)


def test_every_flip_is_read_only():
    """The matrix is shared by every test of n topics: no caller can change it for the next."""
    signs, _ = sign_flips(4, 10_000, 7)
    with pytest.raises(ValueError, match="read-only"):
        signs[0, 0] = 5.0


# --------------------------------------------------------------------------- drawn: the seeded stream
def test_drawn_flips_are_the_documented_seeded_draw(fresh_streams):
    signs, exact = sign_flips(20, 300, 11)
    assert exact is False and signs.shape == (300, 20)
    np.testing.assert_array_equal(signs, seeded_flips(300, 20, 11))
    assert set(np.unique(signs)) == {-1.0, 1.0}


def test_more_topics_after_fewer_get_the_longer_draw(fresh_streams):
    """One stream serves every n: a larger n asked after a smaller one still gets the seeded draw
    of its own shape (the stream is extended, never cut short)."""
    np.testing.assert_array_equal(sign_flips(17, 200, 3)[0], seeded_flips(200, 17, 3))
    np.testing.assert_array_equal(sign_flips(40, 200, 3)[0], seeded_flips(200, 40, 3))
    np.testing.assert_array_equal(sign_flips(25, 200, 3)[0], seeded_flips(200, 25, 3))


def test_drawn_flips_are_read_only(fresh_streams):
    signs, _ = sign_flips(20, 50, 11)
    with pytest.raises(ValueError, match="read-only"):
        signs[0, 0] = 5.0


def test_a_stream_is_drawn_once_and_shared_by_later_tests(fresh_streams):
    """Tests of the same resamples and seed reuse one drawn stream (a page of 100 runs tests
    thousands of pairs), also after another seed was drawn in between."""
    first = sign_flips(20, 100, 1)[0]
    again = sign_flips(20, 100, 1)[0]
    assert np.shares_memory(first, again)
    sign_flips(20, 100, 2)  # another seed: kept beside the first
    assert np.shares_memory(first, sign_flips(20, 100, 1)[0])
    assert np.shares_memory(first, sign_flips(18, 100, 1)[0])  # fewer topics: the same stream's start


def test_at_most_four_streams_are_kept(fresh_streams):
    """10,000 flips of 1,000 topics are 80 MB: the cache is emptied before a fifth stream."""
    for seed in range(4):
        sign_flips(20, 50, seed)
    assert len(fresh_streams._STREAMS) == 4
    sign_flips(20, 50, 4)
    assert len(fresh_streams._STREAMS) == 1
    for seed in range(5, 12):
        sign_flips(20, 50, seed)
        assert len(fresh_streams._STREAMS) <= 4


def test_every_sign_flip_is_enumerated_up_to_sixteen_topics():
    assert sign_flips(16, 10, 1)[1] is True and sign_flips(17, 10_000, 1)[1] is False
    assert sign_flips(17, 2 ** 17, 1)[1] is True
    rng = np.random.default_rng(8)
    a, b = rng.random(12), rng.random(12)
    diffs = a - b
    observed = abs(diffs.mean())
    by_hand = sum(abs(np.dot(signs, diffs) / 12) >= observed - 1e-12
                  for signs in itertools.product((1, -1), repeat=12)) / 2 ** 12
    assert paired_randomization_test(a, b, resamples=10) == pytest.approx(by_hand, abs=1e-12)
    [tested] = pairwise([{str(t): v for t, v in enumerate(x)} for x in (b, a)], [(0, 1)],
                         resamples=10)
    assert tested.p == pytest.approx(by_hand, abs=1e-12) and tested.exact


def test_bootstrap_intervals_of_one_two_and_equal_topics():
    assert all(math.isnan(v) for v in bootstrap_interval([0.4]))
    assert bootstrap_interval([0.3, 0.3]) == (0.3, 0.3)
    low, high = bootstrap_interval([0.2, 0.6])
    assert 0.2 <= low < 0.4 < high <= 0.6  # the mean of two topics, resampled: between them
    expected = stats.bootstrap((np.array([0.1, 0.5, 0.9, 0.3]),), np.mean, confidence_level=0.95, n_resamples=2000,
                               method="percentile", vectorized=True, rng=significance.DEFAULT_SEED)
    assert bootstrap_interval([0.1, 0.5, 0.9, 0.3]) == pytest.approx(
        (expected.confidence_interval.low, expected.confidence_interval.high))


def test_the_default_resamples_are_ten_thousand():
    assert DEFAULT_RESAMPLES == 10_000 and p_floor(DEFAULT_RESAMPLES) == pytest.approx(2 / 10_001)


def test_a_bootstrap_of_close_but_unequal_values_is_an_interval():
    low, high = bootstrap_interval([0.5, 0.6, 0.55, 0.52])
    assert 0.5 <= low < high <= 0.6
