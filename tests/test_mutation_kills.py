"""Behaviour the mutation run (``python -m bench.mutation``, docs/testing.md) found untested: each
test here failed a mutant that survived the rest of the suite, and says what a user relies on.
Where a library defines the value (scipy's tests, ir_measures), the value is compared with it."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats

from touche.errors import EnvironmentProblem, InputError, ToucheError
from touche.retrieval.evaluation import significance
from touche.retrieval.evaluation.resampling import DEFAULT_RESAMPLES
from touche.retrieval.evaluation.significance import (
    PairTest,
    bootstrap_interval,
    check_test,
    p_floor,
    paired_randomization_test,
    paired_t_test,
    paired_wilcoxon_test,
    pairwise,
    wins_losses_ties,
)


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


# --------------------------------------------------------------------------- measures on rows
def test_measures_on_a_list_of_rows_equal_those_on_the_file(tmp_path):
    from tests.shared import RELEVANCE
    from touche.retrieval.evaluation.measures import evaluate, evaluate_rows, evaluate_rows_per_topic, score_rows
    from touche.retrieval.formats.gate import read_run
    by_topic: dict[str, list[tuple[int, str]]] = {}
    for line in RELEVANCE.read_text().splitlines():  # each topic's judged documents, worst first
        qid, _, doc, label = line.split()
        by_topic.setdefault(qid, []).append((int(label), doc))
    run = tmp_path / "run.txt"
    run.write_text("".join(f"{qid} Q0 {doc} {rank} {100 - rank} t\n" for qid, docs in by_topic.items()
                           for rank, (_, doc) in enumerate(sorted(docs), 1)))
    rows = read_run(run)
    assert evaluate_rows(rows, RELEVANCE) == evaluate(run, RELEVANCE)
    assert "touche.nDCG@5" in evaluate_rows(rows, RELEVANCE)  # the default depth is 5
    means, per_topic = score_rows(rows, RELEVANCE)
    assert means == evaluate(run, RELEVANCE)
    assert per_topic == evaluate_rows_per_topic(rows, RELEVANCE)
    assert per_topic["touche.nDCG@5"] and means["touche.nDCG@5"] == pytest.approx(
        np.mean(list(per_topic["touche.nDCG@5"].values())))


# --------------------------------------------------------------------------- the gate's frame paths
def test_a_qrels_frame_row_without_a_topic_or_document_is_refused_with_its_row():
    from touche.retrieval.formats.gate import load_qrels
    for qid, doc in ((None, "d2"), ("1", None), (float("nan"), "d2"), ("1", float("nan"))):
        frame = pd.DataFrame({"query_id": ["1", qid], "doc_id": ["d1", doc], "relevance": [1, 2]})
        with pytest.raises(InputError, match="row 2"):
            load_qrels(frame)


def test_a_run_frame_without_scores_is_a_located_error():
    from touche.retrieval.formats.gate import load_run
    with pytest.raises(InputError, match="needs the columns .*score"):
        load_run(pd.DataFrame({"query_id": ["1"], "doc_id": ["d1"]}))


def test_the_gate_says_how_many_more_errors_there_are(tmp_path):
    from touche.retrieval.formats.gate import load_run
    run = tmp_path / "run.txt"
    run.write_text("1 Q0 a 1 x t\n1 Q0 b 2 y t\n1 Q0 c 3 z t\n")
    with pytest.raises(InputError, match=r"and 2 more error\(s\)"):
        load_run(run)
    run.write_text("1 Q0 a 1 x t\n")
    with pytest.raises(InputError) as one:
        load_run(run)
    assert "more error" not in str(one.value)


def test_the_gate_reads_topics_with_their_titles(tmp_path):
    from touche.retrieval.formats.gate import load_topics
    topics = tmp_path / "topics.xml"
    topics.write_text("<topics><topic><number>7</number><title>Is it good?</title></topic></topics>")
    loaded = load_topics(topics)
    assert [(t.number, t.title) for t in loaded] == [("7", "Is it good?")]


# --------------------------------------------------------------------------- settings
@pytest.mark.parametrize("text, size", [("2g", 2 * 2**30), ("1500m", 1500 * 2**20), ("256M", 256 * 2**20),
                                        ("300000k", 300000 * 2**10), ("1t", 2**40)])
def test_a_valid_heap_setting_is_parsed_to_its_size(monkeypatch, text, size):
    from touche.settings import heap_bytes, setting
    monkeypatch.setenv("TOUCHE_JVM_HEAP", text)
    assert setting("TOUCHE_JVM_HEAP") == text and heap_bytes(text) == size


def test_a_heap_below_256m_or_unset_is_refused_or_defaulted(monkeypatch):
    from touche.settings import setting
    monkeypatch.setenv("TOUCHE_JVM_HEAP", "255m")
    with pytest.raises(EnvironmentProblem, match="TOUCHE_JVM_HEAP"):
        setting("TOUCHE_JVM_HEAP")
    monkeypatch.setenv("TOUCHE_JVM_HEAP", "  ")
    assert setting("TOUCHE_JVM_HEAP") == "2g"


# --------------------------------------------------------------------------- choose's losses and criteria
def test_max_loss_admits_a_loss_up_to_and_including_it():
    from touche.retrieval.experiments.choose.loss import Loss, allowed
    worse = Loss(-0.05, 0.01, 40)
    assert worse.significantly_worse and not allowed(worse, None)
    assert allowed(worse, 0.05) and not allowed(worse, 0.049) and not allowed(worse, 0.0)
    assert allowed(Loss(-0.05, 0.2, 40), 0.0)  # not significant: allowed whatever --max-loss says
    assert not Loss(0.05, 0.01, 40).significantly_worse  # better, however significant
    assert not Loss(-0.05, None, 1).significantly_worse


def test_a_loss_without_per_topic_values_says_so():
    from touche.retrieval.experiments.choose.loss import Loss
    assert Loss(math.nan, None, 0).text() == "no per-topic values to compare"
    assert Loss(-0.0123, 0.0004, 10).text() == "Δ -0.012, p = 4.0e-4"
    assert Loss(0.5, 0.25, 10).text() == "Δ +0.500, p = 0.250"
    assert Loss(0.5, None, 1).text() == "Δ +0.500, no test"


def test_the_worst_case_criterion_ignores_sets_of_zero_weight():
    from touche.retrieval.experiments.robust import criterion_values
    means = np.array([[0.8, 0.1], [0.6, 0.6]])  # point 0 is bad on set 1, which weighs nothing
    assert list(criterion_values(means, [1.0, 0.0], "worst_case")) == pytest.approx([1.0, 0.75])
    assert list(criterion_values(means, [1.0, 1.0], "worst_case")) == pytest.approx([1 / 6, 0.75])


# --------------------------------------------------------------------------- every setting's valid values
@pytest.mark.parametrize("name, text, value", [
    ("TOUCHE_JVM_GC", "parallel", ("-XX:+UseParallelGC",)), ("TOUCHE_JVM_GC", "-XX:+UseZGC", ("-XX:+UseZGC",)),
    ("TOUCHE_JVM_GC", "G1", ("-XX:+UseG1GC",)), ("TOUCHE_WORKERS", "1", 1), ("TOUCHE_WORKERS", " 3 ", 3),
    ("TOUCHE_INDEX_LOCK_TIMEOUT", "0", 0.0), ("TOUCHE_INDEX_LOCK_TIMEOUT", "2.5", 2.5),
    ("TOUCHE_OCR", "off", False), ("TOUCHE_OCR", " Yes ", True), ("TOUCHE_INDEX_HANDOVER", " strings", "strings"),
    ("TOUCHE_INDEX_ROOT", "/tmp/x y", __import__("pathlib").Path("/tmp/x y")),
])
def test_every_setting_parses_its_valid_values(monkeypatch, name, text, value):
    from touche.settings import setting
    monkeypatch.setenv(name, text)
    assert setting(name) == value


@pytest.mark.parametrize("name, text", [("TOUCHE_JVM_GC", "epsilon"), ("TOUCHE_JVM_GC", "serial g1"),
                                        ("TOUCHE_WORKERS", "0"), ("TOUCHE_INDEX_LOCK_TIMEOUT", "-1"),
                                        ("TOUCHE_INDEX_LOCK_TIMEOUT", "inf"), ("TOUCHE_OCR", "maybe"),
                                        ("TOUCHE_INDEX_HANDOVER", "zip")])
def test_every_setting_refuses_what_it_does_not_take(monkeypatch, name, text):
    from touche.settings import setting
    monkeypatch.setenv(name, text)
    with pytest.raises(EnvironmentProblem, match=name):
        setting(name)


def test_a_path_setting_refuses_a_nul_byte():  # the environment itself cannot hold one
    from touche.settings import parse_path
    with pytest.raises(ValueError, match="NUL"):
        parse_path("a\0b")


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


def test_a_bootstrap_of_close_but_unequal_values_is_an_interval():
    low, high = bootstrap_interval([0.5, 0.6, 0.55, 0.52])
    assert 0.5 <= low < high <= 0.6


# --------------------------------------------------------------------------- choose's losses, in full
def _record(point: int, per_topic: dict | None = None, run: str = "run.txt"):
    from types import SimpleNamespace
    return SimpleNamespace(point=point, per_topic=per_topic or {}, run=run)


def test_significance_of_a_loss_is_strict_at_alpha_and_at_no_difference():
    from touche.retrieval.experiments.choose.loss import ALPHA, Loss
    assert not Loss(-0.1, ALPHA, 20).significantly_worse  # p = α is not below α
    assert Loss(-0.1, ALPHA * 0.999, 20).significantly_worse
    assert not Loss(0.0, 0.001, 20).significantly_worse  # no loss at all
    assert Loss(-0.1, 0.001, 20).text() == "Δ -0.100, p = 0.001"  # 0.001 itself is printed, not "< 0.001"


def test_why_a_pick_is_allowed_says_what_was_compared():
    from touche.retrieval.experiments.choose.loss import Loss, why_allowed
    assert why_allowed(Loss(-0.05, None, 1), None) == "against pick 1: Δ -0.050, no test"
    assert why_allowed(Loss(-0.05, 0.3, 9), None) == "not significantly worse than pick 1 (Δ -0.050, p = 0.300)"
    assert why_allowed(Loss(-0.05, 0.01, 9), 0.1).startswith("significantly worse than pick 1 (Δ -0.050, p = 0.010)")


def test_losses_pool_the_topics_of_every_set_each_under_its_own_name():
    from types import SimpleNamespace

    from touche.retrieval.experiments.choose.loss import LossToBest
    measure = "relevance:touche.nDCG@5"
    best = {"a": _record(1, {measure: {"1": 0.9, "2": 0.8}}), "b": _record(1, {measure: {"1": 0.7}})}
    other = {"a": _record(2, {measure: {"1": 0.5, "2": 0.4}})}  # never ran on set b
    results = SimpleNamespace(several=True, by_set={"a": {1: best["a"], 2: other["a"]}, "b": {1: best["b"]}})
    losses = LossToBest(results, measure)
    assert losses.values(best["a"]) == {"a/1": 0.9, "a/2": 0.8, "b/1": 0.7}
    assert losses.values(other["a"]) == {"a/1": 0.5, "a/2": 0.4}
    loss = losses.of(other["a"], best["a"])
    assert (round(loss.delta, 9), loss.topics) == (-0.4, 2) and loss.p is not None
    no_qrels = SimpleNamespace(sets=[SimpleNamespace(name="a", qrels={}), SimpleNamespace(name="b", qrels={})])
    nothing = SimpleNamespace(several=True, by_set={"a": {3: _record(3)}, "b": {}}, manifest=no_qrels)
    assert LossToBest(nothing, measure).values(_record(3)) is None  # no values on any set: None, not {}
    empty = LossToBest(nothing, measure).of(_record(3), best["a"])
    assert math.isnan(empty.delta) and empty.p is None and empty.topics == 0


def test_a_loss_reads_the_run_again_when_the_sweep_stored_no_values(tmp_path):
    from types import SimpleNamespace

    from tests.shared import RELEVANCE, demo_run
    from touche.retrieval.evaluation.significance import per_topic_scores
    from touche.retrieval.experiments.choose.loss import LossToBest
    demo_run(tmp_path / "run.txt")
    entry = SimpleNamespace(name="dev", qrels={"quality": "missing.txt", "relevance": str(RELEVANCE)})
    results = SimpleNamespace(several=False, main_set=entry, manifest=SimpleNamespace(sets=[entry]),
                              directory=tmp_path, path=lambda p: Path(p))
    expected = per_topic_scores(tmp_path / "run.txt", RELEVANCE, "touche.nDCG@5")
    assert LossToBest(results, "relevance:touche.nDCG@5").values(_record(1)) == expected  # by its qrels name
    first = SimpleNamespace(name="dev", qrels={"relevance": str(RELEVANCE)})
    results.manifest.sets, results.main_set = [first], first
    assert LossToBest(results, "touche.nDCG@5").values(_record(1)) == expected  # no name: the set's first qrels


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
