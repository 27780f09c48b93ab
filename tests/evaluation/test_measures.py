"""Means and per-topic values (retrieval/evaluation/measures.py): the score tables, qrels named
once, rows in their format."""
from __future__ import annotations

from pathlib import Path

import pytest

from touche.errors import ToucheError
from touche.retrieval.evaluation.measures import evaluate_rows, evaluate_rows_per_topic
from touche.retrieval.evaluation.registry import parse_measure, ranking_measure
from touche.retrieval.formats.gate import load_qrels, load_run
from touche.retrieval.formats.runfile import RunRow


def test_a_table_ranks_by_the_leaderboards_measure_else_the_first_effectiveness_one():
    assert ranking_measure(["relevance:trec.Judged@5", "relevance:touche.nDCG@5"]) == "relevance:touche.nDCG@5"
    assert ranking_measure(["trec.Judged@5", "trec.nDCG@5", "trec.P@10"]) == "trec.nDCG@5"
    assert ranking_measure(["trec.Judged@5"]) == "trec.Judged@5"
    assert ranking_measure(["stance:stance.N", "stance:stance.F1_macro"]) == "stance:stance.F1_macro"
    assert parse_measure("touche.nDCG@5").family.describes_judgements(parse_measure("touche.nDCG@5")) is False


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
