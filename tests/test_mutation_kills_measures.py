"""What the mutation run (python -m bench.mutation, docs/testing.md) found the measure registry's
and the scorers' own tests not to notice, as behaviour a user relies on: what a measure name
means (its qrels, its depth, its label, whether it is a count or has per-topic values), which
rows a family reads, which measure a table ranks by, trec_eval's per-topic values, stance F1 of
labels, image precision per topic."""
from __future__ import annotations

import pytest

from shared import require_shared
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
