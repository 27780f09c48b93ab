"""The one run-file writer (retrieval/formats/runwriter.py): ranks, ties (untie), the line format,
written whole into its output folder and synced."""
from __future__ import annotations

import errno
import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.shared import cli
from touche.errors import InputError, ToucheError
from touche.guard import OutputFolder
from touche.retrieval.formats.gate import load_run
from touche.retrieval.formats.runfile import RunFormat, RunRow
from touche.retrieval.formats.runwriter import WrittenRun, ranked_rows, render_run, write_run


# --------------------------------------------------------------------------- no ambiguous ties
@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.sampled_from([0.0, 1.0, -0.5, 12.3456789, 1e-30, 3.3e38, -3.3e38]),
                          st.floats(-1e6, 1e6, allow_nan=False, width=64)), min_size=1, max_size=60))
def test_untied_scores_strictly_decrease_for_every_evaluator_and_keep_their_order(scores):
    from touche.retrieval.formats.runwriter import untied
    ranked = sorted(scores, reverse=True)
    out = untied(ranked)
    assert len(out) == len(ranked)
    as32 = np.array([np.float32(repr(v)) for v in out])  # trec_eval reads the written text into a C float
    assert all(a > b for a, b in zip(out, out[1:]))  # Touché 2021 orders by the text as a double
    assert all(a > b for a, b in zip(as32, as32[1:]))
    strict = all(np.float32(a) > np.float32(b) for a, b in zip(ranked, ranked[1:]))
    if strict:  # nothing to untie: each score is the 32-bit float trec_eval read anyway
        assert list(as32) == [np.float32(v) for v in ranked]
    assert all(a <= np.float32(b) for a, b in zip(as32, ranked))  # a score only ever steps down


def test_a_written_run_of_ties_reads_alike_under_trec_eval_and_touches_evaluators(tmp_path):
    """Tied scores in rank order a, b, c: trec_eval reads them c, b, a (document id descending),
    Touché 2021 by score, Touché 2022 by rank. Untied, all three read a, b, c."""
    from touche.retrieval.evaluation.measures import evaluate
    from touche.retrieval.formats.runwriter import write_run
    rows = {"1": [("a", 1.0), ("b", 1.0), ("c", 1.0), ("d", 0.5)]}
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 a 0\n1 0 b 1\n1 0 c 2\n1 0 d 0\n")  # every document judged: one nDCG for all
    names = ["touche.nDCG@5", "touche2021.nDCG@5", "trec.nDCG@5"]
    tied = write_run(tmp_path / "tied.txt", rows, "q0", "t")
    assert any(w.kind == "tied score(s)" for w in tied.warnings)
    before = evaluate(tmp_path / "tied.txt", qrels, names)
    assert before["touche.nDCG@5"] != before["trec.nDCG@5"]  # the ambiguity: two evaluators, two orders
    written = write_run(tmp_path / "run.txt", rows, "q0", "t", untie=True)
    assert not written.warnings
    assert [line.split()[2] for line in (tmp_path / "run.txt").read_text().splitlines()] == ["a", "b", "c", "d"]
    after = evaluate(tmp_path / "run.txt", qrels, names)
    assert after["touche.nDCG@5"] == after["touche2021.nDCG@5"] == pytest.approx(after["trec.nDCG@5"])
    assert after["touche.nDCG@5"] == before["touche.nDCG@5"]  # the rank order is what it was


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


def test_equal_scores_keep_the_given_order_when_asked(tmp_path):
    rows = {"1": [("c", 1.0), ("a", 1.0), ("b", 2.0)]}
    assert [r.docid for r in ranked_rows(rows, "q0")] == ["b", "a", "c"]
    assert [r.docid for r in ranked_rows(rows, "q0", ties="given")] == ["b", "c", "a"]
    with pytest.raises(ValueError, match="ties must be one of docid, given"):
        ranked_rows(rows, "q0", ties="score")
    write_run(tmp_path / "given.txt", rows, "q0", "t", ties="given")
    assert [line.split()[2] for line in Path(tmp_path / "given.txt").read_text().splitlines()] == ["b", "c", "a"]


def test_a_run_file_is_flushed_to_disk_before_it_replaces_the_old_one(tmp_path, monkeypatch):
    """A submission's file survives a power cut: write_run syncs it before the rename."""
    import os

    synced = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: synced.append(fd) or real(fd))
    write_run(tmp_path / "run.txt", {"1": [("a", 1.0)]}, "q0", "t")
    assert synced


def test_disk_full_while_writing_a_run_leaves_nothing_behind(jvm_started, fixture_corpus, tmp_path, monkeypatch,
                                                             index_root):
    import touche.retrieval.formats.runwriter as runwriter

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device", str(tmp_path / "out" / "1-bm25.txt"))

    monkeypatch.setattr(runwriter, "_write_lines", full)
    monkeypatch.setenv("TOUCHE_INDEX_ROOT", str(index_root))
    code, text = cli("run-all", "-i", str(fixture_corpus), "-o", str(tmp_path / "out"))
    assert code == 2 and "No space left on device" in text and "Traceback" not in text
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == []  # no run, no temporary, no lock


def test_a_failed_write_names_the_run_file(jvm_started, fixture_corpus, tmp_path, monkeypatch, index_root):
    import touche.retrieval.formats.runwriter as runwriter

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")  # as a write or flush raises it: no file

    monkeypatch.setattr(runwriter, "_write_lines", full)
    monkeypatch.setenv("TOUCHE_INDEX_ROOT", str(index_root))
    code, text = cli("run-all", "-i", str(fixture_corpus), "-o", str(tmp_path / "out"))
    assert code == 2 and "No space left on device" in text and str(tmp_path / "out") in text and ".txt" in text
