"""What the mutation run (python -m bench.mutation, docs/testing.md) found the input gate's and the
run-file writer's own tests not to notice, written as behaviour a user relies on: how a run or
qrels frame of the wrong columns, ranks or labels is refused and named, qrels given as an object,
a missing file, and the writer's defaults (scores unchanged), its returned run, its refusals of a
folder or a user's file before any work, and a run synced to disk in an output folder."""
from __future__ import annotations

import contextlib
import os
import threading
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from touche.errors import InputError, ToucheError
from touche.guard import OutputFolder
from touche.retrieval.formats.gate import load_qrels, load_run, run_layout
from touche.retrieval.formats.qrels import Qrels, QrelsKind
from touche.retrieval.formats.runfile import RunFormat, RunRow
from touche.retrieval.formats.runwriter import WrittenRun, ranked_rows, render_run, write_run


# --------------------------------------------------------------------------- run frames
def test_a_run_frame_without_scores_is_told_the_columns_it_has():
    """A frame of one layout but no score column is told which columns it has; only a frame of
    both layouts is told it has both."""
    with pytest.raises(InputError, match=r"; it has the columns query_id, doc_id$"):
        run_layout(pd.DataFrame({"query_id": ["1"], "doc_id": ["a"]}))
    with pytest.raises(InputError, match=r"; it has both layouts$"):
        run_layout(pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "qid": ["1"], "docno": ["a"], "score": [1.0]}))


@pytest.mark.parametrize("ranks", [["x", "y"], [1, "2nd"], pd.Series(["1", "2"], dtype=object)])
def test_a_rank_column_holding_words_is_refused_as_no_numbers(ranks):
    """Only numbers rank: words in a rank column (as text, or among numbers in a column of
    objects) are a located error, never read as numbers or a bare pandas error."""
    frame = pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "score": [1.0, 1.0], "rank": ranks})
    with pytest.raises(InputError, match=r"the rank column must hold numbers \(got \w+ values such as") as raised:
        load_run(frame)
    assert raised.value.where == "row 1"


# --------------------------------------------------------------------------- qrels
def test_qrels_already_read_pass_the_gate_as_they_are():
    qrels = Qrels(QrelsKind.GRADED, {"1": {"a": 1}}, "mine")
    assert load_qrels(qrels) is qrels


def test_a_missing_qrels_file_or_a_folder_is_refused_by_name(tmp_path):
    with pytest.raises(InputError, match="qrels file not found") as raised:
        load_qrels(tmp_path / "qrels.txt")
    assert raised.value.path == str(tmp_path / "qrels.txt")
    with pytest.raises(InputError, match="is a folder, not a qrels file"):
        load_qrels(tmp_path)


def test_qrels_read_from_a_pipe_are_read_anew_every_time(tmp_path):
    """Files are parsed once per version (path, time, size), but a pipe's stat (size 0, a time)
    says nothing of what it gives next: its qrels are read from it every time, even when its stat
    looks unchanged."""
    fifo = tmp_path / "qrels"
    os.mkfifo(fifo)

    def write(text: str) -> None:
        with contextlib.suppress(BrokenPipeError), open(fifo, "w") as handle:
            handle.write(text)

    judged = []
    for label in ("1", "2"):
        os.utime(fifo, ns=(10 ** 18, 10 ** 18))  # the same stat both times
        writer = threading.Thread(target=write, args=(f"1 0 doc-a {label}\n",), daemon=True)
        writer.start()
        try:
            judged.append(load_qrels(fifo, "graded").judgments)
        finally:
            if writer.is_alive():  # (the pipe was not opened: let the writer go)
                reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
                writer.join(5)
                os.close(reader)
    assert judged == [{"1": {"doc-a": 1}}, {"1": {"doc-a": 2}}]


def test_a_qrels_frames_errors_carry_its_name():
    frame = pd.DataFrame({"qid": ["1"], "docno": ["a"], "label": ["maybe"]})
    with pytest.raises(InputError) as raised:
        load_qrels(frame, name="mine")
    assert raised.value.path == "qrels frame 'mine'" and raised.value.where == "row 1"
    with pytest.raises(InputError) as raised:
        load_qrels(frame)
    assert raised.value.path == "qrels frame"


def test_a_qrels_frames_labels_read_as_its_file_would_hold_them():
    """A float column's 2.0 is label 2; 1.5 is refused as a file's label 1.5 is (an InputError on
    its row, not a ValueError about topic ids); a truth value is no label."""
    frame = pd.DataFrame({"qid": [1, 2], "docno": ["a", "b"], "label": [2.0, np.float32(-2.0)]})
    assert load_qrels(frame).judgments == {"1": {"a": 2}, "2": {"b": -2}}
    with pytest.raises(InputError, match=r"relevance label '1\.5' is not an integer") as raised:
        load_qrels(pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "label": [1.0, 1.5]}))
    assert raised.value.where == "row 2"
    with pytest.raises(InputError, match="relevance label '1.5' is not an integer"):
        load_qrels(pd.DataFrame({"qid": ["1"], "docno": ["a"], "label": [1.5]}), kind="graded")
    with pytest.raises(InputError, match="cannot tell the qrels format from label 'True'"):
        load_qrels(pd.DataFrame({"qid": ["1"], "docno": ["a"], "label": [True]}))


@pytest.mark.parametrize("docno", ["a b", "", "a\tb"])
def test_a_qrels_frame_field_that_is_not_one_word_is_refused(docno):
    frame = pd.DataFrame({"qid": ["1"], "docno": [docno], "label": [1]})
    with pytest.raises(InputError, match="topic, document and label must each be one word") as raised:
        load_qrels(frame)
    assert raised.value.where == "row 1"


# --------------------------------------------------------------------------- the writer
TIED = {"1": [("b", 1.0), ("a", 1.0), ("c", 0.5)]}


def test_the_writer_keeps_scores_as_given_unless_asked_to_untie():
    """By default scores are written unchanged (ties ordered by docid); ``untie`` makes them
    strictly decreasing in the same order."""
    rows = ranked_rows(TIED, "q0")
    assert [(r.docid, r.rank, r.score) for r in rows] == [("a", 1, 1.0), ("b", 2, 1.0), ("c", 3, 0.5)]
    untied = ranked_rows(TIED, "q0", untie=True)
    assert [r.docid for r in untied] == ["a", "b", "c"] and untied[0].score > untied[1].score > untied[2].score
    text, warnings = render_run(TIED, "q0", "t")
    assert text == "1 Q0 a 1 1.0 t\n1 Q0 b 2 1.0 t\n1 Q0 c 3 0.5 t\n"
    assert [w.kind for w in warnings] == ["tied score(s)"]


@pytest.mark.parametrize("name", ["stance", "STANCE", RunFormat.STANCE])
def test_a_run_is_rendered_and_written_with_its_format_named_as_text(tmp_path, name):
    rows = {"1": [("doc-a", 2.0, "FIRST"), ("doc-b", 1.0, "NO")]}
    text, _ = render_run(rows, name, "t")
    assert text == "1 FIRST doc-a 1 2.0 t\n1 NO doc-b 2 1.0 t\n"
    written = write_run(str(tmp_path / "run.txt"), rows, name, "t")
    assert written.fmt is RunFormat.STANCE and written.path == tmp_path / "run.txt"
    assert (tmp_path / "run.txt").read_text() == text
    assert load_run(written).records() == [RunRow("1", "FIRST", "doc-a", 1, 2.0, "t"),
                                           RunRow("1", "NO", "doc-b", 2, 1.0, "t")]


def test_a_written_run_that_does_not_read_back_names_its_file(tmp_path):
    """The gate reads a written run from memory; an error about it names the file it went to."""
    written = WrittenRun(tmp_path / "mine.txt", b"1 Q0 a 1 high t\n", RunFormat.Q0)
    with pytest.raises(InputError) as raised:
        load_run(written)
    assert raised.value.path == str(tmp_path / "mine.txt") and raised.value.where == "line 1"


def test_a_folder_named_like_the_run_is_refused_by_what_it_is(tmp_path):
    (tmp_path / "run.txt").mkdir()
    with pytest.raises(ToucheError, match="is a directory; give the run file's name"):
        write_run(tmp_path / "run.txt", {"1": [("a", 1.0)]}, "q0", "t")


def test_a_users_file_in_the_output_folder_is_refused_before_the_rows_are_even_read(tmp_path):
    """The refusal to replace what the command did not make comes first, whatever else is wrong
    (here the rows), and leaves the user's file as it was."""
    folder = OutputFolder(tmp_path / "out")
    (folder.path / "run.txt").write_text("mine\n")
    with pytest.raises(ToucheError, match="run.txt in the output folder is a file this command did not make"):
        write_run(folder.path / "run.txt", {"1": [("a", "not a score")]}, "q0", "t", into=folder)
    assert (folder.path / "run.txt").read_text() == "mine\n"


def test_a_run_written_into_an_output_folder_is_synced_before_it_is_renamed_in(tmp_path, monkeypatch):
    """A submission's file survives a power cut: the run file itself (not only the folder's
    record) is synced to disk. Its path may be given as text."""
    folder = OutputFolder(tmp_path / "out")
    synced: list[int] = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: synced.append(os.fstat(fd).st_ino) or real(fd))
    written = write_run(str(folder.path / "run.txt"), {"1": [("a", 1.0)]}, "q0", "t", into=folder)
    assert written.path == folder.path / "run.txt" and isinstance(written.path, Path)
    assert (folder.path / "run.txt").stat().st_ino in synced
