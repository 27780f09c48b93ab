"""PyTerrier's frames in and out (touche/pyterrier/frames.py): topics from Topic records, an
``irds:`` reference or a plain dataset; which qrels give ``label`` and the warning for judgements
the main qrels lack; the run format a read run keeps; renumbered topic ids; queries without a word;
a tag with spaces written quoted and read back; ``write_run`` closing a gap in the ranks."""
from __future__ import annotations

import logging
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.pyterrier.test_measures import _frame
from tests.shared import DEMO
from touche import datasets as ds
from touche.pyterrier import frames
from touche.retrieval.formats.gate import load_run
from touche.retrieval.formats.runfile import RunFormat
from touche.retrieval.formats.topics import Topic

T1_2021 = "argsme/2020-04-01/touche-2021-task-1"
LOGGER = "touche.pyterrier.frames"


# --------------------------------------------------------------------------- topics
def test_topic_records_become_the_queries_frame():
    """Topic records (what load_topics gives) are topics too: no dataset is looked for in a list."""
    frame = frames.topics([Topic("3", "Is homework beneficial?", "desc", "narr", ("a", "b"))])
    assert frame.to_dict(orient="records") == [{"qid": "3", "query": "Is homework beneficial?",
                                                "title": "Is homework beneficial?", "description": "desc",
                                                "narrative": "narr", "objects": "a, b"}]


class _PlainDataset:
    """A PyTerrier dataset without ir_datasets behind it: only get_topics()."""

    def get_topics(self):
        return pd.DataFrame({"qid": ["7", "8"], "query": ["school uniforms", "nuclear energy"]})


def test_a_dataset_without_ir_datasets_gives_its_own_topics_frame():
    """A dataset with no irds_ref: its get_topics() frame, as the queries frame of the toolkit."""
    frame = frames.topics(_PlainDataset())
    assert frame["qid"].tolist() == ["7", "8"]
    assert frame["query"].tolist() == frame["title"].tolist() == ["school uniforms", "nuclear energy"]


@pytest.fixture
def irds_home(tmp_path, monkeypatch) -> Path:
    """An ir_datasets cache of our own holding Touché 2021 Task 1's topics and qrels (the demo's)."""
    monkeypatch.setenv("IR_DATASETS_HOME", str(tmp_path / "ir_datasets"))
    monkeypatch.delenv("TOUCHE_DATASETS_CACHE", raising=False)
    dataset = ds.dataset(T1_2021)
    for f, source in [(dataset.topics, DEMO / "topics.xml"),
                      *((f, DEMO / f"qrels-{name}.txt") for name, f in dataset.qrels.items())]:
        target = ds.cached_path(f)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
    return tmp_path


def test_an_irds_reference_gives_the_datasets_topics_and_all_its_qrels(irds_home):
    """``irds:<id>`` reads the dataset's topics file, and its qrels: relevance as ``label``,
    quality as a column of its own."""
    assert frames.topics("irds:" + T1_2021).equals(frames.topics(DEMO / "topics.xml"))
    judged = frames.qrels("irds:" + T1_2021)
    assert judged.equals(frames.qrels({"relevance": DEMO / "qrels-relevance.txt",
                                       "quality": DEMO / "qrels-quality.txt"}))
    assert list(judged.columns) == ["qid", "docno", "label", "quality"]


# --------------------------------------------------------------------------- qrels
def _qrels(path: Path, rows: list[tuple[str, str, int]]) -> Path:
    path.write_text("".join(f"{q} 0 {d} {v}\n" for q, d, v in rows))
    return path


def test_relevance_gives_the_label_whatever_the_order_the_qrels_are_named_in(tmp_path):
    """{quality, relevance}: ``label`` is relevance's, ``quality`` its own column; without
    relevance the first qrels named give ``label``."""
    quality = _qrels(tmp_path / "q.txt", [("1", "d1", 2), ("1", "d2", 0)])
    relevance = _qrels(tmp_path / "r.txt", [("1", "d1", 1), ("1", "d2", 3)])
    both = frames.qrels({"quality": quality, "relevance": relevance})
    assert both.to_dict(orient="records") == [{"qid": "1", "docno": "d1", "label": 1, "quality": 2},
                                              {"qid": "1", "docno": "d2", "label": 3, "quality": 0}]
    alone = frames.qrels({"quality": quality, "other": relevance})
    assert alone["label"].tolist() == [2, 0] and alone["other"].tolist() == [1, 3]


def test_judgements_the_main_qrels_lack_are_left_out_with_a_warning_counting_them(tmp_path, caplog):
    """PyTerrier's qrels have one row per judged document: quality judgements of documents the
    relevance qrels do not judge are dropped, and a warning says how many."""
    relevance = _qrels(tmp_path / "r.txt", [("1", "d1", 1)])
    quality = _qrels(tmp_path / "q.txt", [("1", "d1", 2), ("1", "d2", 1), ("2", "d3", 0)])
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        judged = frames.qrels({"relevance": relevance, "quality": quality})
    assert judged.to_dict(orient="records") == [{"qid": "1", "docno": "d1", "label": 1, "quality": 2}]
    [record] = [r for r in caplog.records if r.name == LOGGER]
    assert record.getMessage().startswith("warning: 2 quality judgement(s) are of documents the relevance qrels "
                                          "do not judge: left out")


def test_qrels_judging_the_same_documents_warn_nothing(tmp_path, caplog):
    relevance = _qrels(tmp_path / "r.txt", [("1", "d1", 1), ("1", "d2", 0)])
    quality = _qrels(tmp_path / "q.txt", [("1", "d2", 2)])
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        judged = frames.qrels({"relevance": relevance, "quality": quality})
    assert [r for r in caplog.records if r.name == LOGGER] == []
    assert judged["quality"].isna().tolist() == [True, False]


# --------------------------------------------------------------------------- run files
def test_a_read_run_keeps_its_format_where_its_columns_would_not_tell_it(tmp_path):
    """A Task 2 2022 run that predicts no stance (Q0 beside passage ids) is a STANCE run; its
    frame says so (attrs), so loading or writing the frame again keeps the format."""
    run = tmp_path / "passages.txt"
    run.write_text("".join(f"1 Q0 clueweb12-0000wb-00-00000___{n} {n} {10 - n} t\n" for n in range(1, 4)))
    frame = frames.read_run(run)
    assert frame.attrs["run_format"] == "stance" and frame["stance"].tolist() == ["Q0"] * 3
    assert load_run(frame).format is RunFormat.STANCE
    assert load_run(frame.drop(columns="stance").assign(stance="Q0")).format is RunFormat.STANCE
    assert frame["rank"].tolist() == [0, 1, 2]


# --------------------------------------------------------------------------- topic ids
def test_other_topic_ids_are_numbered_in_order_of_appearance_and_given_back():
    """x1, x2, x1, y: topics 1, 2, 1, 3; the returned function gives results their ids back."""
    queries = pd.DataFrame({"qid": ["x1", "x2", "x1", "y"], "query": ["a", "b", "a", "c"]})
    numbered, back = frames.numbered_topics(queries)
    assert numbered["qid"].tolist() == ["1", "2", "1", "3"]
    results = pd.DataFrame({"qid": ["3", "1"], "docno": ["d", "e"]})
    assert back(results)["qid"].tolist() == ["y", "x1"]


@settings(max_examples=30, derandomize=True, deadline=None)
@given(st.lists(st.text(alphabet="abxyz-_0123456789", min_size=1, max_size=4), min_size=1, max_size=8))
def test_numbering_and_giving_back_restores_every_topic_id(ids):
    """Whatever the ids: numbered ones are whole numbers 1…n of the distinct ids, and giving
    back the numbered frame's ids restores the original ones."""
    queries = pd.DataFrame({"qid": ids, "query": ["q"] * len(ids)})
    numbered, back = frames.numbered_topics(queries)
    assert back(numbered)["qid"].tolist() == ids
    if not all(i.isdigit() for i in ids):
        assert sorted(set(numbered["qid"]), key=int) == [str(n) for n in range(1, len(set(ids)) + 1)]


def test_a_frame_without_qid_passes_unchanged_for_the_gate_to_name():
    frame = pd.DataFrame({"query": ["a"]})
    passed, back = frames.numbered_topics(frame)
    assert passed is frame
    results = pd.DataFrame({"qid": ["1"]})
    assert back(results) is results


# --------------------------------------------------------------------------- queries without a word
def test_a_title_only_frame_drops_the_queries_without_a_word():
    """Without a ``query`` column the title is what is searched: a title of ``?`` gets no results."""
    frame = pd.DataFrame({"qid": ["1", "2"], "title": ["school uniforms", "?"]})
    assert frames.answerable(frame)["qid"].tolist() == ["1"]


def test_a_frame_without_query_or_title_or_rows_passes_unchanged():
    without = pd.DataFrame({"qid": ["1"], "text": ["?"]})
    assert frames.answerable(without) is without
    empty = pd.DataFrame({"qid": [], "query": []})
    assert frames.answerable(empty) is empty


def test_the_warning_quotes_at_most_80_characters_of_the_query(caplog):
    frame = pd.DataFrame({"qid": ["1", "2"], "query": ["?" * 200, "nuclear energy"]})
    with caplog.at_level(logging.WARNING, logger=LOGGER), pytest.warns(UserWarning) as said:
        kept = frames.answerable(frame)
    assert kept["qid"].tolist() == ["2"]
    [record] = [r for r in caplog.records if r.name == LOGGER]
    assert record.getMessage() == f"warning: topic 1: the query {'?' * 80!r} has no word: no results for it"
    assert [str(w.message) for w in said] == [record.getMessage().removeprefix("warning: ")]


# --------------------------------------------------------------------------- documents' columns
def _results(qids, docnos, scores) -> pd.DataFrame:
    return pd.DataFrame({"qid": qids, "docno": docnos, "score": scores})


def test_a_stage_carries_the_documents_own_columns_to_the_documents_both_hold():
    """A text loaded before a re-scoring stage stays with its document (matched by qid and
    docno, ids compared as text); a document the stage brought in has none."""
    given_ = pd.DataFrame({"qid": [1, 1], "docno": ["a", "b"], "score": [1.0, 2.0], "text": ["A", "B"]})
    results = _results(["1", "1", "1"], ["b", "a", "new"], [9.0, 8.0, 7.0])
    out = frames.carried(results, given_)
    assert out["docno"].tolist() == ["b", "a", "new"] and out["score"].tolist() == [9.0, 8.0, 7.0]
    assert out["text"].tolist()[:2] == ["B", "A"] and pd.isna(out["text"].iloc[2])


def test_nothing_is_carried_without_document_ids_or_new_columns():
    """No docno on either side, or no column the results lack: the results as they are."""
    results = _results(["1"], ["a"], [1.0])
    assert frames.carried(results, pd.DataFrame({"qid": ["1"], "text": ["A"]})) is results
    assert frames.carried(pd.DataFrame({"qid": ["1"], "score": [1.0]}),
                          pd.DataFrame({"qid": ["1"], "docno": ["a"], "text": ["A"]})).columns.tolist() == \
        ["qid", "score"]
    assert frames.carried(results, _results(["1"], ["a"], [5.0]).assign(rank=0)) is results


def test_a_re_ranker_keeps_only_its_candidates_with_their_columns_ranked_again_from_0():
    """A stage that searched again brought document c: it is dropped, the candidates keep their
    text, and the ranks run 0, 1, … within each query in the results' order."""
    candidates = pd.DataFrame({"qid": ["1", "1", "2"], "docno": ["a", "b", "d"], "score": [1.0, 0.5, 1.0],
                               "rank": [0, 1, 0], "text": ["A", "B", "D"]})
    results = pd.DataFrame({"qid": ["1", "1", "1", "2"], "docno": ["b", "c", "a", "d"],
                            "score": [3.0, 2.0, 1.0, 5.0], "rank": [0, 1, 2, 0]})
    kept = frames.only_candidates(results, candidates)
    assert kept[["qid", "docno", "text", "rank"]].values.tolist() == [["1", "b", "B", 0], ["1", "a", "A", 1],
                                                                    ["2", "d", "D", 0]]
    assert kept["score"].tolist() == [3.0, 1.0, 5.0]


# --------------------------------------------------------------------------- a query's columns
def test_a_column_that_differs_within_a_query_is_the_documents_not_the_querys():
    """``text`` (two values in query 1), ``feature`` (a value and a missing one) and ``tags``
    (lists, compared as text: two values) differ within a query: not the query's. ``query`` and
    ``labels`` (the same list in each row of a query) are."""
    frame = pd.DataFrame({"qid": ["1", "1", "2"], "query": ["q1", "q1", "q2"], "docno": ["a", "b", "c"],
                          "score": [2.0, 1.0, 1.0], "text": ["A", "B", "C"], "feature": [0.5, np.nan, 1.0],
                          "tags": [["x"], ["y"], ["z"]], "labels": [["k"], ["k"], ["m"]]})
    part = frames.queries_part(frame)
    assert part.columns.tolist() == ["qid", "query", "labels"]
    assert part.values.tolist() == [["1", "q1", ["k"]], ["2", "q2", ["m"]]]


def test_a_query_with_three_document_texts_keeps_them_out():
    frame = pd.DataFrame({"qid": ["1"] * 3, "query": ["q"] * 3, "text": ["A", "B", "B"]})
    assert frames.queries_part(frame).columns.tolist() == ["qid", "query"]


def test_an_empty_or_qid_less_frame_gives_its_non_document_columns():
    """No rows: the query columns (none of docno, score, rank, stance); no qid: those columns as they are."""
    empty = pd.DataFrame({"qid": [], "query": [], "docno": [], "score": []})
    assert frames.queries_part(empty).columns.tolist() == ["qid", "query"] and frames.queries_part(empty).empty
    qidless = pd.DataFrame({"query": ["a", "a"], "docno": ["d", "e"]})
    assert frames.queries_part(qidless).values.tolist() == [["a"], ["a"]]
    assert frames.queries_part(qidless).columns.tolist() == ["query"]


# --------------------------------------------------------------------------- rankings
def test_an_empty_results_frame_is_an_empty_ranking():
    assert frames.as_ranking(pd.DataFrame()) == {}


def test_equal_scores_keep_the_order_of_the_rank_column_else_of_the_frame():
    """Scores decide; on a tie the rank column does (b ranked before a), and without one the
    frame's order (a before b)."""
    frame = pd.DataFrame({"qid": ["1", "1", "1"], "docno": ["a", "b", "c"], "score": [1.0, 1.0, 2.0],
                          "rank": [2, 1, 0]})
    assert frames.as_ranking(frame) == {"1": [("c", 2.0), ("b", 1.0), ("a", 1.0)]}
    assert frames.as_ranking(frame.drop(columns="rank")) == {"1": [("c", 2.0), ("a", 1.0), ("b", 1.0)]}


# --------------------------------------------------------------------------- a run read and written
def test_write_run_says_it_closes_a_gap_in_the_ranks():
    from touche.pyterrier import frames
    assert "not ``f`` byte for byte" in frames.write_run.__doc__ and "gap" in frames.write_run.__doc__


def test_a_tag_with_spaces_is_written_quoted_and_read_back(tpt, tmp_path):
    frame = _frame([("1", "a", 2.0, 0), ("1", "b", 1.0, 1)])
    path = tmp_path / "run.txt"
    tpt.write_run(frame, path, tag="Colbert edinburg")
    assert path.read_text().splitlines()[0] == '1 Q0 a 1 2.0 "Colbert edinburg"'
    back = tpt.read_run(path)
    assert back[["qid", "docno", "rank"]].values.tolist() == [["1", "a", 0], ["1", "b", 1]]
    from touche.retrieval.formats.gate import load_run
    assert set(load_run(path).frame["tag"]) == {"Colbert edinburg"}
    from touche.errors import InputError
    with pytest.raises(InputError, match="no quotes, tabs or line breaks"):
        tpt.write_run(frame, tmp_path / "bad.txt", tag='say "x"')
