"""The one run-file writer (retrieval/formats/runwriter.py): ranks, ties (untie), the line format,
sorted and deterministic whatever the input order, written whole into its output folder and synced
(a failed rename or write leaves the old file and no temporary), and read back as written
(Hypothesis round trips)."""
from __future__ import annotations

import errno
import os
import string
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.formats.test_runfile import image_id, pair_id
from tests.shared import cli
from touche.bounds import SCORE_LIMIT
from touche.errors import InputError, ToucheError
from touche.guard import OutputFolder
from touche.retrieval.formats import runfile, runwriter
from touche.retrieval.formats.gate import load_run, read_run
from touche.retrieval.formats.runfile import (
    RunFormat,
    RunRow,
    Severity,
    run_file_problems,
)
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


def image_rows(topic: str = "1", start: int = 0) -> dict[str, list[tuple[str, float, str]]]:
    pro = [(image_id(start + i), 1.0 - i / 100, "PRO") for i in range(10)]
    con = [(image_id(start + 10 + i), 1.0 - i / 100, "CON") for i in range(10)]
    return {topic: pro + con}


def lines_of(path: Path) -> list[list[str]]:
    return [line.split() for line in path.read_text().splitlines()]


def leftovers(directory: Path, keep: set[str]) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name not in keep)


# ------------------------------------------------------------------------------- writing


def test_writer_sorts_by_score_and_breaks_ties_by_docid(tmp_path: Path) -> None:
    out = tmp_path / "run.txt"
    rows = {"10": [("d", 1.0), ("b", 2.0), ("c", 2.0), ("a", 0.5)], "2": [("z", 3.0), ("y", 3.0)]}
    write_run(out, rows, RunFormat.Q0, "tag")
    assert lines_of(out) == [
        ["2", "Q0", "y", "1", "3.0", "tag"],
        ["2", "Q0", "z", "2", "3.0", "tag"],
        ["10", "Q0", "b", "1", "2.0", "tag"],
        ["10", "Q0", "c", "2", "2.0", "tag"],
        ["10", "Q0", "d", "3", "1.0", "tag"],
        ["10", "Q0", "a", "4", "0.5", "tag"],
    ]


def test_writer_is_deterministic_whatever_the_input_order(tmp_path: Path) -> None:
    entries = [(f"doc{i}", float(i % 3)) for i in range(30)]
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    write_run(first, {"1": entries}, "q0", "t")
    write_run(second, {"1": list(reversed(entries))}, "q0", "t")
    assert first.read_bytes() == second.read_bytes()


def test_writer_accepts_run_rows_and_keeps_scores_exactly(tmp_path: Path) -> None:
    out = tmp_path / "run.txt"
    scores = [0.1 + 0.2, 1e-300, 123456789.123456789, -2.5]
    records = [RunRow("1", "FIRST", f"p{i}", 99, s, "ignored") for i, s in enumerate(scores)]
    write_run(out, records, RunFormat.STANCE, "mine")
    back = read_run(out, RunFormat.STANCE)
    assert [r.score for r in back] == sorted(scores, reverse=True)
    assert [r.rank for r in back] == [1, 2, 3, 4]
    assert {r.tag for r in back} == {"mine"} and {r.column2 for r in back} == {"FIRST"}


def test_writer_cuts_each_topic_to_max_per_topic(tmp_path: Path) -> None:
    out = tmp_path / "run.txt"
    write_run(out, {"1": [(f"d{i}", i) for i in range(1500)], "2": [("x", 1)]}, RunFormat.Q0, "t")
    rows = read_run(out)
    assert sum(r.qid == "1" for r in rows) == 1000
    assert rows[0].docid == "d1499" and rows[999].docid == "d500"
    write_run(out, {"1": [(f"d{i}", i) for i in range(20)]}, RunFormat.Q0, "t", max_per_topic=5)
    assert [r.docid for r in read_run(out)] == ["d19", "d18", "d17", "d16", "d15"]


def test_writer_ranks_image_runs_per_stance(tmp_path: Path) -> None:
    out = tmp_path / "run.txt"
    rows = image_rows("3")
    rows["1"] = list(reversed(image_rows("1", start=100)["1"]))
    write_run(out, rows, RunFormat.IMAGE, "img")
    written = read_run(out, RunFormat.IMAGE)
    assert [(r.qid, r.column2) for r in written[::10]] == [("1", "PRO"), ("1", "CON"), ("3", "PRO"), ("3", "CON")]
    assert [r.rank for r in written[:20]] == list(range(1, 11)) * 2
    assert run_file_problems(out, RunFormat.IMAGE) == []


@pytest.mark.parametrize(
    "tag, message",
    [("", "non-empty"), ("tab\there", "spaces allowed"), ("line\nbreak", "spaces allowed"), ('say "x"', "no quotes")],
)
def test_writer_rejects_bad_tags(tmp_path: Path, tag: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        write_run(tmp_path / "run.txt", {"1": [("a", 1.0)]}, RunFormat.Q0, tag)
    assert leftovers(tmp_path, set()) == []


def test_a_tag_with_spaces_is_written_in_quotes_as_official_runs_wrote_it(tmp_path: Path) -> None:
    write_run(tmp_path / "run.txt", {"1": [("a", 1.0)]}, RunFormat.Q0, "Colbert edinburg")
    assert (tmp_path / "run.txt").read_text() == '1 Q0 a 1 1.0 "Colbert edinburg"\n'
    assert [r.tag for r in read_run(tmp_path / "run.txt", RunFormat.Q0)] == ["Colbert edinburg"]


@pytest.mark.parametrize(
    "rows, fmt, message",
    [
        ({"1": [("a", 1.0), ("a", 2.0)]}, RunFormat.Q0, "docid a given twice for topic 1"),
        ({"1": [("a b", 1.0)]}, RunFormat.Q0, "without whitespace"),
        ({"1": [("a", float("nan"))]}, RunFormat.Q0, "not finite"),
        ({"1": [("a", "high")]}, RunFormat.Q0, "not a number"),
        ({"1": [("a", 1.0, "PRO")]}, RunFormat.Q0, "'PRO' is not allowed in a Q0 run"),
        ({"1": [(image_id(1), 1.0)]}, RunFormat.IMAGE, "needs the stance"),
        ({"1": [(image_id(1), 1.0, "PRO"), (image_id(1), 0.5, "CON")]}, RunFormat.IMAGE, "given twice"),
        ({}, RunFormat.Q0, "no rows"),
    ],
)
def test_writer_rejects_bad_rows(tmp_path: Path, rows: dict, fmt: RunFormat, message: str) -> None:
    with pytest.raises(InputError, match=message):
        write_run(tmp_path / "run.txt", rows, fmt, "t")
    assert leftovers(tmp_path, set()) == []


def test_writer_returns_warnings_and_raises_on_validation_errors(tmp_path: Path) -> None:
    warnings = write_run(tmp_path / "pairs.txt", {"1": [(pair_id(i), 1.0) for i in range(3)]}, RunFormat.PAIRS,
                         "t").warnings
    assert any("at least 100" in p.message for p in warnings)
    assert all(p.severity is Severity.WARNING for p in warnings)
    with pytest.raises(InputError, match=r"run\.txt, line 1: .*not 'I' followed by 16 hex"):
        write_run(tmp_path / "run.txt", {"1": [("I123", 1.0, "PRO")]}, RunFormat.IMAGE, "t")


# -------------------------------------------------------------------------------- atomic


def test_failed_rename_leaves_old_file_and_no_temporary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "run.txt"
    out.write_text("old content\n")

    def broken_replace(src: object, dst: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(runfile.os, "replace", broken_replace)
    with pytest.raises(OSError, match="disk full"):
        write_run(out, {"1": [("a", 1.0)]}, RunFormat.Q0, "t")
    assert out.read_text() == "old content\n"
    assert leftovers(tmp_path, {"run.txt"}) == []


def test_failure_mid_write_leaves_no_partial_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "run.txt"

    def half_then_crash(handle, lines) -> None:  # type: ignore[no-untyped-def]
        lines = list(lines)
        handle.writelines(lines[: len(lines) // 2])
        handle.flush()
        raise KeyboardInterrupt

    monkeypatch.setattr(runwriter, "_write_lines", half_then_crash)
    with pytest.raises(KeyboardInterrupt):
        write_run(out, {"1": [(f"d{i}", float(i)) for i in range(100)]}, RunFormat.Q0, "t")
    assert not out.exists()
    assert leftovers(tmp_path, set()) == []


def test_invalid_output_is_never_renamed_into_place(tmp_path: Path) -> None:
    out = tmp_path / "run.txt"
    write_run(out, image_rows(), RunFormat.IMAGE, "good")
    before = out.read_bytes()
    short = {"1": image_rows()["1"][:19]}  # 9 CON images
    with pytest.raises(InputError, match=r"topic 1 \(CON\) has 9 images; exactly 10"):
        write_run(out, short, RunFormat.IMAGE, "bad")
    assert out.read_bytes() == before
    assert leftovers(tmp_path, {"run.txt"}) == []


# ------------------------------------------------------------------------------ property
_IDS = st.text(alphabet=string.ascii_letters + string.digits + "-_.:", min_size=1, max_size=12)
_SCORES = st.one_of(
    st.floats(min_value=-SCORE_LIMIT, max_value=SCORE_LIMIT, width=64),  # what trec_eval's 32-bit floats hold
    st.sampled_from([0.0, 1.0, -1.0, 0.5]),  # frequent ties
)


@st.composite
def runs(draw: st.DrawFn) -> tuple[RunFormat, dict[str, list[tuple[str, float, str]]]]:
    fmt = draw(st.sampled_from([RunFormat.Q0, RunFormat.STANCE, RunFormat.PAIRS]))
    topics = draw(st.lists(st.integers(1, 120).map(str), min_size=1, max_size=4, unique=True))
    out = {}
    for qid in topics:
        if fmt is RunFormat.PAIRS:
            docids = draw(st.lists(st.integers(0, 10_000).map(pair_id), min_size=1, max_size=15, unique=True))
        else:
            docids = draw(st.lists(_IDS, min_size=1, max_size=15, unique=True))
        out[qid] = [(d, draw(_SCORES), draw(st.sampled_from(fmt.column2_values))) for d in docids]
    return fmt, out


@settings(max_examples=150, deadline=None)
@given(runs())
def test_write_then_read_round_trips(run: tuple[RunFormat, dict[str, list[tuple[str, float, str]]]]) -> None:
    fmt, rows = run
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "run.txt"
        write_run(path, rows, fmt, "prop-tag")
        back = read_run(path, fmt)
        assert [p for p in run_file_problems(path, fmt) if p.is_error] == []
        rewritten = Path(directory) / "again.txt"
        write_run(rewritten, back, fmt, "prop-tag")
        assert rewritten.read_bytes() == path.read_bytes()
    expected = []
    for qid in sorted(rows, key=int):
        ranked = sorted(rows[qid], key=lambda e: (-e[1], e[0]))
        expected += [RunRow(qid, c2, d, rank, s, "prop-tag") for rank, (d, s, c2) in enumerate(ranked, start=1)]
    assert back == expected


@settings(max_examples=50, deadline=None)
@given(
    st.lists(st.integers(1, 50).map(str), min_size=1, max_size=3, unique=True),
    st.lists(st.floats(0, 1), min_size=20, max_size=20),
    st.randoms(use_true_random=False),
)
def test_image_write_then_read_round_trips(topics: list[str], scores: list[float], rng) -> None:  # type: ignore[no-untyped-def]
    rows = {}
    for t, qid in enumerate(topics):
        entries = [(image_id(1000 * t + i), scores[i], "PRO" if i < 10 else "CON") for i in range(20)]
        rng.shuffle(entries)
        rows[qid] = entries
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "run.txt"
        write_run(path, rows, RunFormat.IMAGE, "img")
        back = read_run(path, RunFormat.IMAGE)
    assert len(back) == 20 * len(topics)
    for qid in topics:
        for stance in ("PRO", "CON"):
            group = [r for r in back if r.qid == qid and r.column2 == stance]
            assert [r.rank for r in group] == list(range(1, 11))
            assert [(-r.score, r.docid) for r in group] == sorted((-r.score, r.docid) for r in group)
            assert {(r.docid, r.score) for r in group} == {(d, s) for d, s, c in rows[qid] if c == stance}


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
