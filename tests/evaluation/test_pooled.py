"""Pooled measures (stance macro-F1) resampled from per-topic confusion counts: the same F1 as the
scorer, the interval and the swap test against brute force."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from touche.retrieval.evaluation import pooled
from touche.retrieval.evaluation.measures import evaluate_rows
from touche.retrieval.evaluation.scorers import stance_f1
from touche.retrieval.evaluation.significance import paired_randomization_test
from touche.retrieval.formats.qrels import STANCE_LABELS
from touche.retrieval.formats.runfile import RunRow


def _runs(seed: int, topics: int = 6, per_topic: int = 7):
    """Stance qrels and two runs labelling the judged passages (plus unjudged and Q0 rows)."""
    rng = np.random.default_rng(seed)
    qrels, a, b = {}, [], []
    for t in range(1, topics + 1):
        qid = str(t)
        qrels[qid] = {f"p{t}-{i}": STANCE_LABELS[rng.integers(4)] for i in range(per_topic)}
        for run, skill in ((a, 0.7), (b, 0.4)):
            for i, (docid, truth) in enumerate(qrels[qid].items()):
                label = truth if rng.random() < skill else STANCE_LABELS[rng.integers(4)]
                run.append(RunRow(qid, label if i % 5 else "Q0", docid, i + 1, 100.0 - i, "t"))
            run.append(RunRow(qid, "FIRST", f"unjudged-{t}", per_topic + 1, 1.0, "t"))
    return qrels, a, b


def test_pooled_f1_and_its_per_topic_values_are_the_scorers():
    qrels, a, _ = _runs(1)
    parts = pooled.confusion(a, qrels)
    assert parts.total() == pytest.approx(stance_f1(a, qrels).f1_macro, abs=1e-12)
    for qid, value in parts.per_topic().items():
        assert value == pytest.approx(stance_f1([r for r in a if r.qid == qid], qrels).f1_macro, abs=1e-12)
    # accuracy by hand on one topic
    rows = [r for r in a if r.qid == "1" and r.column2 != "Q0" and r.docid in qrels["1"]]
    right = sum(r.column2 == qrels["1"][r.docid] for r in rows)
    assert pooled.accuracy(parts.parts[0]) == pytest.approx(right / len(rows))


def test_swap_test_is_the_exact_enumeration_of_swaps():
    qrels, a, b = _runs(2, topics=6)
    pa, pb = pooled.confusion(a, qrels), pooled.confusion(b, qrels)
    delta, p = pooled.paired_test(pa, pb)
    observed = stance_f1(a, qrels).f1_macro - stance_f1(b, qrels).f1_macro
    assert delta == pytest.approx(observed, abs=1e-12)
    by_topic = {q: ([r for r in a if r.qid == q], [r for r in b if r.qid == q]) for q in qrels}
    nulls = []
    for swaps in itertools.product((False, True), repeat=len(by_topic)):
        x = [r for (q, (ra, rb)), s in zip(by_topic.items(), swaps) for r in (rb if s else ra)]
        y = [r for (q, (ra, rb)), s in zip(by_topic.items(), swaps) for r in (ra if s else rb)]
        nulls.append(stance_f1(x, qrels).f1_macro - stance_f1(y, qrels).f1_macro)
    nulls = np.array(nulls)
    less, greater = (nulls <= observed + 1e-12).mean(), (nulls >= observed - 1e-12).mean()
    assert p == pytest.approx(min(1.0, 2 * min(less, greater)))


def test_interval_resamples_topics_and_identical_runs_have_p_one():
    qrels, a, _ = _runs(3, topics=12)
    parts = pooled.confusion(a, qrels)
    low, high = pooled.interval(parts)
    assert low < parts.total() < high
    # the same draws by hand: recompute the F1 of each resample from its rows
    rng = np.random.default_rng(20220401)
    drawn = rng.integers(0, 12, (2000, 12))
    values = [pooled.macro_f1(parts.parts[d].sum(axis=0)) for d in drawn[:50]]
    by_rows = [stance_f1([r for i in d for r in a if r.qid == parts.topics[i]], qrels).f1_macro for d in drawn[:50]]
    assert np.allclose(values, by_rows)
    assert pooled.paired_test(parts, parts)[1] == 1.0


def test_pooled_parts_of_a_labelled_measure_give_its_value(tmp_path):
    from touche.retrieval.evaluation.measures import pooled_parts
    qrels = tmp_path / "stance.qrels"
    qrels.write_text("1 0 a FIRST\n1 0 b NO\n2 0 c SECOND\n")
    rows = [RunRow("1", "FIRST", "a", 1, 2.0, "t"), RunRow("1", "FIRST", "b", 2, 1.0, "t"),
            RunRow("2", "SECOND", "c", 1, 1.0, "t")]
    parts = pooled_parts(rows, {"stance": qrels}, "stance:stance.F1_macro")
    assert parts.topics == ("1", "2")
    assert parts.total() == pytest.approx(evaluate_rows(rows, {"stance": qrels}, ["stance.F1_macro"])
                                          ["stance:stance.F1_macro"])
    assert pooled_parts(rows, {"stance": qrels}, "other:stance.F1_macro") is None


# --------------------------------------------------------------------------- pooled.py
def _accuracy_pooled(parts):
    import numpy as np

    from touche.retrieval.evaluation.pooled import Pooled, accuracy
    return Pooled(tuple(str(i + 1) for i in range(len(parts))), np.array(parts, float), accuracy)


RIGHT, WRONG = [[1, 0], [0, 0]], [[0, 1], [0, 0]]


def test_the_swap_test_counts_the_observed_split_as_its_own_and_is_exact_on_two_topics():
    """Two topics, all four flips: run right on topic 1 and wrong on 2, base wrong on both.
    Observed 0.5; the flips give 0.5, −0.5, 0.5, −0.5: two of four as large, p = 1 either way."""
    from touche.retrieval.evaluation.pooled import paired_test
    run, base = _accuracy_pooled([RIGHT, WRONG]), _accuracy_pooled([WRONG, WRONG])
    assert paired_test(run, base) == (0.5, 1.0)
    assert paired_test(base, run) == (-0.5, 1.0)
    lonely = _accuracy_pooled([RIGHT])
    assert all(v != v for v in paired_test(lonely, lonely))  # one topic: (nan, nan)
    empty = _accuracy_pooled([[[0, 0], [0, 0]], [[0, 0], [0, 0]]])
    assert all(v != v for v in paired_test(empty, empty))  # nothing judged: nan, not a test


def test_accuracy_and_the_measure_on_some_topics():
    from touche.retrieval.evaluation.pooled import accuracy
    assert float(accuracy([[1, 0], [0, 0]])) == 1.0 and float(accuracy([[0, 1], [0, 0]])) == 0.0
    pooled = _accuracy_pooled([RIGHT, WRONG, RIGHT])
    assert pooled.total_on(["1", "3", "9"]) == 1.0 and pooled.total_on(["1", "2"]) == 0.5
    assert pooled.total_on(["9"]) != pooled.total_on(["9"])  # nan: no shared topic
    assert pooled.restricted(["2", "9"]).parts.tolist() == [WRONG, [[0, 0], [0, 0]]]


def test_the_bootstrap_interval_is_the_percentile_interval_of_topics_drawn_with_replacement():
    import numpy as np

    from touche.retrieval.evaluation.pooled import accuracy, interval
    pooled = _accuracy_pooled([RIGHT, WRONG, RIGHT, [[2, 1], [0, 1]]])
    parts = np.array(pooled.parts)
    drawn = np.random.default_rng(7).integers(0, 4, (500, 4))
    values = np.array([float(accuracy(parts[d].sum(axis=0))) for d in drawn])
    assert interval(pooled, resamples=500, seed=7, confidence=0.9) == \
        (pytest.approx(np.percentile(values, 5)), pytest.approx(np.percentile(values, 95)))
    two = interval(_accuracy_pooled([RIGHT, WRONG]), resamples=200, seed=1)
    assert 0 <= two[0] <= two[1] <= 1
    assert all(v != v for v in interval(_accuracy_pooled([RIGHT]), resamples=10))
    assert all(v != v for v in interval(_accuracy_pooled([[[0, 0], [0, 0]]] * 3), resamples=10))


def test_a_sampled_swap_test_never_gives_p_zero():
    """30 topics, 1,000 sampled flips: the run is right on every topic and the base wrong, so no
    flip reaches the observed difference (only 'no flip' would, one in 2^30): p = 2 · 1/1001, the
    observed split counted as one of the draws, as paired_randomization_test counts a sample."""
    from touche.retrieval.evaluation.pooled import paired_test
    run, base = _accuracy_pooled([RIGHT] * 30), _accuracy_pooled([WRONG] * 30)
    assert paired_test(run, base, resamples=1000, seed=5) == (1.0, pytest.approx(2 / 1001))
    assert paired_test(base, run, resamples=1000, seed=5) == (-1.0, pytest.approx(2 / 1001))


def test_the_interval_reads_the_percentiles_its_confidence_names():
    import numpy as np

    from touche.retrieval.evaluation.pooled import accuracy, interval
    rng = np.random.default_rng(0)
    parts = [[[int(a), int(b)], [0, 0]] for a, b in rng.integers(0, 9, (40, 2))]  # 40 topics, spread accuracies
    pooled = _accuracy_pooled(parts)
    drawn = np.random.default_rng(11).integers(0, 40, (300, 40))
    values = np.array([float(accuracy(np.array(parts, float)[d].sum(axis=0))) for d in drawn])
    for confidence in (0.9, 0.5):
        tail = (1 - confidence) / 2 * 100
        assert interval(pooled, resamples=300, seed=11, confidence=confidence) == \
            (pytest.approx(np.percentile(values, tail), abs=1e-12),
             pytest.approx(np.percentile(values, 100 - tail), abs=1e-12))
    assert np.percentile(values, 5) != np.percentile(values, 5.05)  # the data tells the two apart


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
