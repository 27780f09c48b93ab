"""The scorers (retrieval/evaluation/scorers.py): trec_eval's per-topic values, stance F1, image precision, by hand."""
from __future__ import annotations

import pytest

from tests.shared import require_shared, run_rows
from touche.retrieval.evaluation.measures import evaluate_rows, evaluate_rows_per_topic
from touche.retrieval.evaluation.scorers import stance_macro_f1, trec_per_topic
from touche.retrieval.formats.gate import load_run


def test_trec_per_topic_scores_the_runs_topics_only():
    rows = run_rows(("1", "a", 1, 2.0), ("1", "b", 2, 1.0))
    qrels = {"1": {"a": 0, "b": 1}, "2": {"c": 1}}
    assert trec_per_topic(rows, qrels, ["P@1", "P@2"]) == {"trec.P@1": {"1": 0.0}, "trec.P@2": {"1": 0.5}}
    assert trec_per_topic(rows, {"2": {"c": 1}}, ["P@1"]) == {"trec.P@1": {}}


def test_stance_macro_f1_of_labels_against_labels():
    assert stance_macro_f1(["FIRST", "NO"], ["FIRST", "NO"]) == 1.0
    assert stance_macro_f1(["FIRST", "SECOND"], ["SECOND", "FIRST"]) == 0.0


def test_image_precision_per_topic_in_topic_order():
    shared = require_shared()
    run = shared / "runs" / "image-2022" / "run-minsc-baseline.txt"
    qrels = shared / "qrels" / "image-2022.qrels"
    per_topic = evaluate_rows_per_topic(load_run(run), qrels, ["image.on_topic_P@10"])["image.on_topic_P@10"]
    assert list(per_topic) == sorted(per_topic, key=int) and len(per_topic) == 50
    mean = evaluate_rows(load_run(run), qrels, ["image.on_topic_P@10"])["image.on_topic_P@10"]
    assert sum(per_topic.values()) / len(per_topic) == pytest.approx(mean, abs=1e-12)
