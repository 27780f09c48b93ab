"""What the mutation run (python -m bench.mutation, docs/testing.md) found the readers' and the
writer's own tests not to notice, written as behaviour a user relies on: where a run or qrels
error points, which format a frame or file is read as, BEIR's qrels, a byte-order mark inside a
file, qrels named or listed, the writer's cut and messages."""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from touche.errors import InputError
from touche.retrieval.formats.gate import frame_format, load_qrels, load_run
from touche.retrieval.formats.qrels import QrelsKind, parse_kind, read_graded_qrels
from touche.retrieval.formats.runfile import RunFormat, detect_format, run_file_problems
from touche.retrieval.formats.runwriter import ranked_rows, write_run


# --------------------------------------------------------------------------- the gate
def test_an_invalid_run_file_is_located_at_its_line_and_names_the_validator(tmp_path):
    run = tmp_path / "run.txt"
    run.write_text("1 Q0 a 1 2.0 t\n1 Q0 b two 1.0 t\n")
    with pytest.raises(InputError) as raised:
        load_run(run, "q0")
    assert raised.value.where == "line 2" and f"touche validate {run} lists every problem" in str(raised.value)
    frame = pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "a"], "score": [2.0, 1.0]})
    with pytest.raises(InputError) as raised:
        load_run(frame, "q0")
    assert "touche validate" not in str(raised.value)  # a frame has no file to validate


@pytest.mark.parametrize("stances, docnos, expected", [
    (["FIRST", "NO"], ["clueweb12-0000wb-00-00000___1", "clueweb12-0000wb-00-00001___1"], RunFormat.STANCE),
    (["PRO", "CON"], ["I0123456789abcdef", "Ifedcba9876543210"], RunFormat.IMAGE),
    ([None, None], ["a", "b"], RunFormat.Q0),
    (["PRO", "CON"], ["s1,s2", "s3,s4"], RunFormat.PAIRS),
])
def test_a_frames_format_follows_its_stance_and_ids(stances, docnos, expected):
    frame = pd.DataFrame({"qid": ["1", "1"], "docno": docnos, "score": [2.0, 1.0]})
    if stances[0] is not None:
        frame["stance"] = stances
    assert frame_format(frame, stances) is expected
    frame.attrs["run_format"] = "q0"  # as search() records it: that wins
    assert frame_format(frame, stances) is RunFormat.Q0


def test_a_frame_with_both_layouts_is_refused_saying_so():
    frame = pd.DataFrame({"qid": ["1"], "docno": ["a"], "query_id": ["1"], "doc_id": ["a"], "score": [1.0]})
    with pytest.raises(InputError, match="it has both layouts"):
        load_run(frame)


def test_a_qrels_frame_row_missing_an_id_is_refused_even_when_the_rest_is_one_word():
    frame = pd.DataFrame({"qid": [None, "1"], "docno": ["a", "b"], "label": [1, 2]})
    with pytest.raises(InputError) as raised:
        load_qrels(frame)
    assert raised.value.where == "row 1"


def test_a_qrels_file_is_parsed_once_per_version(tmp_path):
    path = tmp_path / "q.txt"
    path.write_text("1 0 a 1\n")
    first = load_qrels(path)
    assert load_qrels(path) is first
    path.write_text("1 0 a 1\n1 0 b 2\n")
    assert load_qrels(path) is not first and load_qrels(path).judgments == {"1": {"a": 1, "b": 2}}


# --------------------------------------------------------------------------- qrels
def test_beirs_qrels_with_their_header_read_as_three_columns(tmp_path):
    path = tmp_path / "test.tsv"
    path.write_text("query-id\tcorpus-id\tscore\n1\tdoc-a\t2\n1\tdoc-b\t0\n")
    assert read_graded_qrels(path) == {"1": {"doc-a": 2, "doc-b": 0}}
    path.write_text("1\tdoc-a\t2\n")  # three columns without the header are not BEIR's
    with pytest.raises(InputError, match="expected 4 columns"):
        read_graded_qrels(path)


def test_a_byte_order_mark_inside_a_qrels_file_says_two_files_were_joined(tmp_path):
    path = tmp_path / "q.txt"
    path.write_text("1 0 a 1\n\ufeff1 0 b 2\n", encoding="utf-8")
    with pytest.raises(InputError, match="byte-order mark .* two qrels files concatenated") as raised:
        read_graded_qrels(path)
    assert raised.value.where == "line 2"
    path.write_text("1 0 a\x01 1\n", encoding="utf-8")
    with pytest.raises(InputError, match="control character U\\+0001"):
        read_graded_qrels(path)


def test_a_contradicting_label_says_how_the_topic_was_first_written(tmp_path):
    path = tmp_path / "q.txt"
    path.write_text("01 0 a 1\n1 0 a 2\n")
    with pytest.raises(InputError, match=r"contradicts 1 on line 1 \(written 01 there\)"):
        read_graded_qrels(path)
    path.write_text("1 0 a 1\n1 0 a 2\n")
    with pytest.raises(InputError) as raised:
        read_graded_qrels(path)
    assert "written" not in str(raised.value)


def test_a_qrels_kind_is_read_from_its_name_or_taken_as_given():
    assert parse_kind(QrelsKind.STANCE) is QrelsKind.STANCE
    assert parse_kind("STANCE") is QrelsKind.STANCE and parse_kind("graded") is QrelsKind.GRADED
    with pytest.raises(InputError):
        parse_kind("relevance-ish")


# --------------------------------------------------------------------------- run files
def test_a_run_of_pro_con_and_q0_rows_is_a_pairs_run(tmp_path):
    path = tmp_path / "run.txt"
    path.write_text("1 PRO a 1 3.0 t\n1 CON b 2 2.0 t\n1 Q0 c 3 1.0 t\n")
    assert detect_format(path) is RunFormat.PAIRS


def test_score_increases_are_counted_and_a_second_gap_is_not_repeated(tmp_path):
    path = tmp_path / "run.txt"
    path.write_text("1 Q0 a 1 1.0 t\n1 Q0 b 2 2.0 t\n1 Q0 c 4 1.0 t\n1 Q0 d 6 3.0 t\n")
    problems = run_file_problems(path, "q0")
    increases = [p.message for p in problems if "must not increase" in p.message]
    assert len(increases) == 1 and "(2 places in this topic)" in increases[0]
    assert len([p for p in problems if p.kind == "gap in the ranks"]) == 1


# --------------------------------------------------------------------------- the writer
def test_the_writer_cuts_where_asked_and_at_one_row(tmp_path):
    rows = {"1": [("a", 3.0), ("b", 2.0), ("c", 1.0)], "2": [("d", 1.0)]}
    assert [(r.qid, r.docid) for r in ranked_rows(rows, "q0", max_per_topic=2)] == [("1", "a"), ("1", "b"),
                                                                                    ("2", "d")]
    assert len(ranked_rows(rows, "q0")) == 4
    write_run(str(tmp_path / "one.txt"), rows, "q0", "t", max_per_topic=1)  # a str path, the smallest cut
    assert (tmp_path / "one.txt").read_text().splitlines() == ["1 Q0 a 1 3.0 t", "2 Q0 d 1 1.0 t"]
    with pytest.raises(InputError, match="at least 1"):
        write_run(tmp_path / "none.txt", rows, "q0", "t", max_per_topic=0)


def test_a_score_of_hundreds_of_digits_is_refused_showing_its_length(tmp_path):
    with pytest.raises(InputError, match=r"score 10000000000000000000… \(401 digits\) lies beyond"):
        write_run(tmp_path / "run.txt", {"1": [("a", 10 ** 400)]}, "q0", "t")
    assert not (tmp_path / "run.txt").exists()


def test_a_document_twice_names_its_two_stances_in_an_image_run_only(tmp_path):
    with pytest.raises(InputError, match=r"docid I0123456789abcdef given twice for topic 1 \(PRO and CON\)"):
        ranked_rows({"1": [("I0123456789abcdef", 2.0, "PRO"), ("I0123456789abcdef", 1.0, "CON")]}, "image")
    with pytest.raises(InputError) as raised:
        ranked_rows({"1": [("a", 2.0), ("a", 1.0)]}, "q0")
    assert "given twice for topic 1" in str(raised.value) and "(Q0" not in str(raised.value)


def test_equal_scores_keep_the_given_order_when_asked(tmp_path):
    rows = {"1": [("c", 1.0), ("a", 1.0), ("b", 2.0)]}
    assert [r.docid for r in ranked_rows(rows, "q0")] == ["b", "a", "c"]
    assert [r.docid for r in ranked_rows(rows, "q0", ties="given")] == ["b", "c", "a"]
    with pytest.raises(ValueError, match="ties must be one of docid, given"):
        ranked_rows(rows, "q0", ties="score")
    write_run(tmp_path / "given.txt", rows, "q0", "t", ties="given")
    assert [line.split()[2] for line in Path(tmp_path / "given.txt").read_text().splitlines()] == ["b", "c", "a"]


def test_a_run_frames_problems_are_named_by_row_and_frame_name():
    frame = pd.DataFrame({"qid": ["1", "1"], "docno": ["a", None], "score": [2.0, 1.0]})
    with pytest.raises(InputError) as raised:
        load_run(frame, name="mine")
    assert str(raised.value).startswith("run frame 'mine': row 2: the document id is missing")
    with pytest.raises(InputError) as raised:
        load_run(frame.assign(qid=[None, "1"], docno=["a", "b"]))
    assert str(raised.value).startswith("run frame: row 1: the topic id is missing")


def test_a_rank_column_of_bools_or_with_a_gap_is_refused_at_its_row():
    frame = pd.DataFrame({"qid": ["1", "1", "1"], "docno": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    with pytest.raises(InputError, match="the rank column must hold numbers"):
        load_run(frame.assign(rank=[True, False, True]))
    with pytest.raises(InputError) as raised:
        load_run(frame.assign(rank=[0.0, 1.0, float("nan")]))
    assert raised.value.where == "row 3"
    assert load_run(frame.assign(rank=[2, 1, 0])).records()[0].docid == "a"  # scores decide, ranks break ties


def test_a_qrels_frame_of_other_columns_names_both_layouts():
    with pytest.raises(InputError, match="a qrels frame needs the columns query_id, doc_id, relevance or "
                                         "qid, docno, label"):
        load_qrels(pd.DataFrame({"topic": ["1"], "doc": ["a"], "grade": [1]}))


def test_topic_records_pass_the_gate_as_they_are():
    from touche.retrieval.formats.gate import load_topics
    from touche.retrieval.formats.topics import Topic
    topics = [Topic("1", "Should teachers get tenure?", "", "", ())]
    assert load_topics(topics) == topics
    with pytest.raises(InputError, match="topics must be a file, a queries frame or Topic records"):
        load_topics([("1", "x")])


def test_a_run_file_is_flushed_to_disk_before_it_replaces_the_old_one(tmp_path, monkeypatch):
    """A submission's file survives a power cut: write_run syncs it before the rename."""
    import os

    synced = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: synced.append(fd) or real(fd))
    write_run(tmp_path / "run.txt", {"1": [("a", 1.0)]}, "q0", "t")
    assert synced
