"""What the mutation run (python -m bench.mutation, docs/testing.md) found the measure registry's
and the scorers' own tests not to notice, as behaviour a user relies on: what a measure name
means (its qrels, its depth, its label, whether it is a count or has per-topic values), which
rows a family reads, which measure a table ranks by, trec_eval's per-topic values, stance F1 of
labels, image precision per topic."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.shared import require_shared
from touche.errors import ToucheError
from touche.retrieval.evaluation.measures import evaluate_rows, evaluate_rows_per_topic
from touche.retrieval.evaluation.registry import check_trec_name, parse_measure, ranking_measure
from touche.retrieval.evaluation.scorers import stance_macro_f1, trec_per_topic
from touche.retrieval.formats.gate import load_qrels, load_run
from touche.retrieval.formats.runfile import RunRow
from touche.retrieval.formats.runtable import RowNeed


# --------------------------------------------------------------------------- names
def test_a_measure_name_says_its_qrels_depth_and_label():
    named = parse_measure("quality:touche.nDCG@5")
    assert (named.qrels, named.name, named.cutoff) == ("quality", "touche.nDCG@5", 5)
    bare = parse_measure("touche2021.nDCG@10")
    assert bare.qrels is None and bare.cutoff == 10 and parse_measure("stance.F1_macro").cutoff is None
    assert bare.label("relevance") == "relevance:touche2021.nDCG@10" and bare.label(None) == "touche2021.nDCG@10"


def test_stance_n_is_a_per_topic_count_and_f1_a_pooled_value():
    n, f1 = parse_measure("stance.N"), parse_measure("stance.F1_macro")
    assert (n.has_per_topic, n.integer) == (True, True)
    assert (f1.has_per_topic, f1.integer) == (False, False)
    assert parse_measure("touche.nDCG@5").integer is False


def test_each_ndcg_reads_the_rows_its_order_cuts():
    family = parse_measure("touche.nDCG@5").family
    assert family.rows_needed([parse_measure("touche.nDCG@5")]) == RowNeed(rank_depth=5, score_depth=0)
    assert family.rows_needed([parse_measure("touche2021.nDCG@10")]) == RowNeed(rank_depth=0, score_depth=10)
    assert family.rows_needed([parse_measure("touche.nDCG@5"), parse_measure("touche2021.nDCG@3")]) == \
        RowNeed(rank_depth=5, score_depth=3)


def test_a_table_ranks_by_the_leaderboards_measure_else_the_first_effectiveness_one():
    assert ranking_measure(["relevance:trec.Judged@5", "relevance:touche.nDCG@5"]) == "relevance:touche.nDCG@5"
    assert ranking_measure(["trec.Judged@5", "trec.nDCG@5", "trec.P@10"]) == "trec.nDCG@5"
    assert ranking_measure(["trec.Judged@5"]) == "trec.Judged@5"
    assert ranking_measure(["stance:stance.N", "stance:stance.F1_macro"]) == "stance:stance.F1_macro"
    assert parse_measure("touche.nDCG@5").family.describes_judgements(parse_measure("touche.nDCG@5")) is False


def test_a_trec_label_parameter_must_be_a_whole_label_within_bounds():
    check_trec_name(parse_measure("trec.P(rel=2)@10"))  # accepted
    with pytest.raises(ToucheError, match="rel=2000|2000"):
        check_trec_name(parse_measure("trec.P(rel=2000)@10"))


# --------------------------------------------------------------------------- values
def _rows(*entries):
    return [RunRow(qid, "Q0", docid, rank, score, "t") for qid, docid, rank, score in entries]


def test_trec_per_topic_scores_the_runs_topics_only():
    rows = _rows(("1", "a", 1, 2.0), ("1", "b", 2, 1.0))
    qrels = {"1": {"a": 0, "b": 1}, "2": {"c": 1}}
    assert trec_per_topic(rows, qrels, ["P@1", "P@2"]) == {"trec.P@1": {"1": 0.0}, "trec.P@2": {"1": 0.5}}
    assert trec_per_topic(rows, {"2": {"c": 1}}, ["P@1"]) == {"trec.P@1": {}}


def test_stance_macro_f1_of_labels_against_labels():
    assert stance_macro_f1(["FIRST", "NO"], ["FIRST", "NO"]) == 1.0
    assert stance_macro_f1(["FIRST", "SECOND"], ["SECOND", "FIRST"]) == 0.0


def test_stance_n_per_topic_and_f1_pooled_through_the_public_functions(tmp_path):
    qrels = tmp_path / "stance.qrels"
    qrels.write_text("1 0 a FIRST\n1 0 b NO\n2 0 c SECOND\n")
    run = tmp_path / "run.txt"
    run.write_text("1 FIRST a 1 3.0 t\n1 NO b 2 2.0 t\n2 FIRST c 1 1.0 t\n2 NO d 2 0.5 t\n")
    table = load_run(run, "stance")
    assert evaluate_rows_per_topic(table, qrels, ["stance.N"]) == {"stance.N": {"1": 2.0, "2": 1.0}}
    assert evaluate_rows_per_topic(table, qrels, ["stance.F1_macro"]) == {}
    family = parse_measure("stance.N").family
    assert family.per_topic([parse_measure("stance.F1_macro")], table.records(), load_qrels(qrels).judgments) == {}
    assert evaluate_rows(table, qrels, ["stance.N"]) == {"stance.N": 3}


def test_image_precision_per_topic_in_topic_order():
    shared = require_shared()
    run = shared / "runs" / "image-2022" / "run-minsc-baseline.txt"
    qrels = shared / "qrels" / "image-2022.qrels"
    per_topic = evaluate_rows_per_topic(load_run(run), qrels, ["image.on_topic_P@10"])["image.on_topic_P@10"]
    assert list(per_topic) == sorted(per_topic, key=int) and len(per_topic) == 50
    mean = evaluate_rows(load_run(run), qrels, ["image.on_topic_P@10"])["image.on_topic_P@10"]
    assert sum(per_topic.values()) / len(per_topic) == pytest.approx(mean, abs=1e-12)


# --------------------------------------------------------------------------- measures.py
def test_names_as_ir_measures_users_write_them():
    """A bare nDCG@5 is trec_eval's (unjudged documents count as 0); Touché's is touche.nDCG@5."""
    def label(name):
        measure = parse_measure(name)
        return measure.label(measure.qrels)
    assert label("nDCG@5") == "trec.nDCG@5" and label("touche.nDCG@5") == "touche.nDCG@5"
    assert label("quality:P@10") == "quality:trec.P@10"


@pytest.mark.parametrize("name", ["touche.nDCG@0", "trec.P@\u0665", "touche.nDCG@00"])
def test_a_cut_off_of_zero_or_of_other_digits_is_refused(name):
    from touche.retrieval.evaluation.measures import check_cutoffs
    with pytest.raises(ToucheError, match="must be a positive whole number"):
        check_cutoffs([name])
    check_cutoffs(["touche.nDCG@1", "trec.P@10"])


def test_a_trec_label_parameter_is_refused_before_scoring(tmp_path):
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 a 1\n")
    with pytest.raises(ToucheError, match="2000"):
        evaluate_rows(_rows(("1", "a", 1, 1.0)), qrels, ["trec.P(rel=2000)@10"])


def test_several_qrels_frames_need_names():
    import pandas as pd

    from touche.retrieval.evaluation.measures import named_qrels
    frame = pd.DataFrame({"qid": ["1"], "docno": ["a"], "label": [1]})
    with pytest.raises(ToucheError, match="several qrels frames need names"):
        named_qrels([frame, frame])
    assert [name for name, _ in named_qrels(["x/task1-relevance.qrels", "x/task1-quality.qrels"])] == \
        ["relevance", "quality"]


def test_qrels_are_named_from_one_source_a_list_or_a_mapping(tmp_path):
    import pandas as pd

    from touche.retrieval.evaluation.measures import named_qrels
    from touche.retrieval.formats.qrels import Qrels, QrelsKind
    qrels = Qrels(QrelsKind.GRADED, {"1": {"a": 1}}, "q")
    frame = pd.DataFrame({"qid": ["1"], "docno": ["a"], "label": [1]})
    assert named_qrels("q.txt") == [(None, Path("q.txt"))]
    assert named_qrels(tmp_path) == [(None, tmp_path)]
    assert named_qrels(qrels) == [(None, qrels)]
    assert [name for name, _ in named_qrels(frame)] == [None]
    assert named_qrels({"relevance": "r.txt", "quality": frame}) == [("relevance", Path("r.txt")), ("quality", frame)]
    assert named_qrels(["a/r.txt", "b/r.txt"]) == [("a/r", Path("a/r.txt")), ("b/r", Path("b/r.txt"))]


def test_rows_without_a_file_are_read_in_their_format():
    from touche.retrieval.evaluation.measures import as_table
    from touche.retrieval.formats.runfile import RunFormat
    pairs = [RunRow("1", "PRO", "s1,s2", 1, 1.0, "t")]
    images = [RunRow("1", "PRO", "I0123456789abcdef", 1, 1.0, "t")]
    stance = [RunRow("1", "FIRST", "d", 1, 1.0, "t")]
    plain = [RunRow("1", "Q0", "d", 1, 1.0, "t")]
    assert [as_table(r).format for r in (pairs, images, stance, plain)] == \
        [RunFormat.PAIRS, RunFormat.IMAGE, RunFormat.STANCE, RunFormat.Q0]


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


# --------------------------------------------------------------------------- agreement.py
def test_two_empty_rankings_agree_fully_and_pairs_are_counted():
    from touche.retrieval.evaluation.agreement import agreement, jaccard, pair_count
    found = agreement({"a": {"1": []}, "b": {"1": []}}, measures=["Jaccard@5"])
    assert found.value("a", "b", "Jaccard@5") == 1.0 == jaccard([], [], 5)
    assert [pair_count(n) for n in (1, 2, 4)] == [0, 1, 6]


def test_a_registered_agreement_measure_without_a_batch_form_runs_pair_by_pair(monkeypatch):
    from touche.retrieval.evaluation import agreement as module
    monkeypatch.setitem(module.AGREEMENT_MEASURES, "same top", lambda pair: float(pair.a[:1] == pair.b[:1]))
    found = module.agreement({"a": {"1": ["x", "y"]}, "b": {"1": ["x", "z"]}, "c": {"1": ["y"]}},
                             measures=["same top"])
    assert [found.value("a", "b", "same top"), found.value("a", "c", "same top")] == [1.0, 0.0]


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
