"""Reliability round 7: an output folder is the command's own, by construction. Each test is one
problem a red team found on f1b1620 (issue 50, docs/reliability.md "Round 7"); the property over
whole sequences of commands is tests/guard/test_output_folders.py. Devices and pipes are made with
mknod/mkfifo inside tmp_path: the system's /dev is never touched."""
from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import threading
import time
from decimal import Decimal
from pathlib import Path

import pandas as pd
import pytest
import yaml

from tests.experiments.test_sweep_reliability import demo_set, write_sets
from tests.shared import cli, demo_run
from touche.errors import ConfigError, InputError, ToucheError
from touche.guard import RECORD, LinkFolder, OutputFolder

REPO = Path(__file__).resolve().parent.parent
DEMO = REPO / "demo"
RELEVANCE = DEMO / "qrels-relevance.txt"
VARIANT = str(REPO / "configs" / "task1" / "examples" / "1-bm25.yaml")


def snapshot(folder: Path) -> dict[str, tuple]:
    """Every path under ``folder`` (links not followed) with its kind, inode and content."""
    found = {}
    for path in sorted(folder.rglob("*")):
        info = path.lstat()
        content = os.readlink(path) if path.is_symlink() else path.read_bytes() if path.is_file() else None
        found[str(path.relative_to(folder))] = (info.st_mode >> 12, info.st_ino, content)
    return found


def private_device(folder: Path) -> Path:
    """A character device like /dev/null, made in ``folder`` (root only)."""
    if os.geteuid() != 0:
        pytest.skip("mknod of a character device needs root")
    device = folder / "null"
    os.mknod(device, 0o666 | 0o020000, os.makedev(1, 3))
    return device


# --------------------------------------------------------------------------- 1. run-all's folder
def test_run_all_without_qrels_keeps_a_users_evaluation_and_page(jvm_started, fixture_corpus, index_root, tmp_path):
    """`run-all -o D` without qrels deleted the user's D/evaluation.md ("it scored the runs this
    call replaced": it never did) and overwrote the user's D/explore.html."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "evaluation.md").write_text("my notes")
    (out / "explore.html").write_text("my page")
    before = snapshot(out)
    code, text = cli("run-all", "-i", str(fixture_corpus), "-o", str(out), "--index-root", str(index_root),
                     "-c", VARIANT)
    assert code == 0, text
    assert {k: v for k, v in snapshot(out).items() if k in before} == before  # untouched, same inodes
    assert "left" in text and "evaluation.md" in text  # said, not silently kept
    two = str(REPO / "configs" / "task1" / "examples" / "2-krovetz-bm25.yaml")
    code, text = cli("run-all", "-i", str(fixture_corpus), "-o", str(out), "--index-root", str(index_root),
                     "--suite", str(_suite(tmp_path, [VARIANT, two])))
    assert code == 2 and "explore.html is a file touche run-all did not make" in text  # it would write the page
    assert (out / "explore.html").read_text() == "my page"


def _suite(tmp_path: Path, variants: list[str]) -> Path:
    path = tmp_path / "suite.yaml"
    path.write_text(yaml.safe_dump({"variants": variants, "primary": variants[0]}))
    return path


def test_a_report_run_all_made_goes_when_it_no_longer_describes_the_runs(jvm_started, fixture_corpus, index_root,
                                                                         tmp_path):
    """Its own evaluation.md, unchanged, still goes when a rerun has no qrels; edited by the
    user, it stays."""
    out = tmp_path / "out"
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 Sa0000001-A00000001 2\n")
    args = ["run-all", "-i", str(fixture_corpus), "-o", str(out), "--index-root", str(index_root), "-c", VARIANT]
    assert cli(*args, "--qrels", str(qrels))[0] == 0 and (out / "evaluation.md").is_file()
    assert cli(*args)[0] == 0 and not (out / "evaluation.md").exists()
    assert cli(*args, "--qrels", str(qrels))[0] == 0
    (out / "evaluation.md").write_text((out / "evaluation.md").read_text() + "\nmy comment\n")
    code, text = cli(*args)
    assert code == 0 and "my comment" in (out / "evaluation.md").read_text()


# --------------------------------------------------------------------------- 2. a sweep's subfolders
def test_a_sweep_never_writes_through_a_sets_link(jvm_started, index_root, tmp_path):
    """A `sets` link in the sweep's folder: the user's topics.xml was replaced, coverage.json and a
    folder of corpus links were added outside the sweep's folder."""
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "dev").mkdir(parents=True)
    (elsewhere / "dev" / "topics.xml").write_text("mine")
    before = snapshot(elsewhere)
    out = tmp_path / "out"
    out.mkdir()
    (out / "sets").symlink_to(elsewhere)
    path = write_sets(tmp_path / "s.yaml", {"dev": demo_set(topics_only=[1, 2])}, out)
    from touche.retrieval.experiments.sweep import run_sweep
    with pytest.raises(ToucheError, match=r"sets is a link \(to .*elsewhere\), which touche sweep would write through"):
        run_sweep(path, index_root=index_root, progress=False)
    assert snapshot(elsewhere) == before and not (out / "runs").exists()


def test_a_foreign_file_in_a_sweeps_runs_folder_is_refused_not_read_as_a_run(jvm_started, index_root, tmp_path):
    from touche.retrieval.experiments.sweep import run_sweep
    path = write_sets(tmp_path / "s.yaml", {"dev": demo_set()}, tmp_path / "out")
    run_sweep(path, index_root=index_root, progress=False)
    (tmp_path / "out" / "runs" / "0123456789abcdef.txt").write_text("1 Q0 x 1 1.0 mine\n")
    with pytest.raises(ToucheError, match=r"runs folder .* holds 1 file\(s\) touche sweep did not make"):
        run_sweep(path, index_root=index_root, progress=False)


# --------------------------------------------------------------------------- 3, 4. links to streams
def test_a_run_file_linked_to_a_device_is_refused_before_any_work(jvm_started, fixture_corpus, index_root, tmp_path):
    """D/<variant>.txt → a character device: the run went into the device, run.txt was copied back
    from it and left empty, and the call ended with "run file not found"."""
    device = private_device(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    (out / "1-bm25.txt").symlink_to(device)
    code, text = cli("run-all", "-i", str(fixture_corpus), "-o", str(out), "--index-root", str(index_root),
                     "-c", VARIANT)
    assert code == 2 and "1-bm25.txt is a link" in text and "would write through" in text
    assert sorted(p.name for p in out.iterdir()) == ["1-bm25.txt"]  # no run.txt, no lock, no temporary
    assert (out / "1-bm25.txt").is_symlink() and device.is_char_device()


def test_a_run_file_linked_to_a_pipe_with_a_reader_neither_hangs_nor_leaves_anything(fixture_corpus, index_root,
                                                                                      tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(open(fifo, "rb").read()), daemon=True)
    reader.start()
    out = tmp_path / "out"
    out.mkdir()
    (out / "run.txt").symlink_to(fifo)
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "touche", "run-all", "-i", str(fixture_corpus), "-o", str(out),
                           "--index-root", str(index_root), "-c", VARIANT], capture_output=True, text=True,
                          timeout=120, cwd=REPO)
    assert time.monotonic() - started < 120
    assert done.returncode == 2 and "run.txt is a link" in done.stderr
    assert sorted(p.name for p in out.iterdir()) == ["run.txt"]
    with open(fifo, "wb"):  # let the reader go
        pass
    reader.join(10)
    assert got == [b""]  # nothing was written into the pipe


def test_run_scores_what_it_wrote_into_a_stream_without_reading_it_back(jvm_started, fixture_corpus, index_root,
                                                                       tmp_path):
    """`touche run -o -` used to skip the scores ("the run went to a stream"): the written text is
    kept and scored, the stream is only written into."""
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 Sa0000001-A00000001 2\n")
    code, text = cli("run", "-c", VARIANT, "-i", str(fixture_corpus), "-t", str(fixture_corpus / "topics.xml"),
                     "-o", "-", "--qrels", str(qrels), "--index-root", str(index_root))
    assert code == 0 and "Sa0000001-A00000001" in text and "touche.nDCG@5" in text


# --------------------------------------------------------------------------- 5. what passes for ours
def test_a_users_file_named_like_a_dead_writers_temporary_is_kept(tmp_path):
    from touche.atomic import write_text
    user = tmp_path / ".run.txt.999999.backup.tmp"
    user.write_text("mine")
    write_text(tmp_path / "run.txt", "1 Q0 a 1 1.0 t\n")
    assert user.read_text() == "mine"


def test_the_liveness_probe_asks_and_never_signals(tmp_path):
    """A temporary of a live writer is kept, and the probe delivers nothing: os.kill(pid, 1) in its
    place would hang up the process (here a sleep that SIGHUP ends)."""
    from touche.atomic import process_alive, remove_stale_temporaries
    live = subprocess.Popen(["sleep", "30"])
    try:
        temporary = tmp_path / f".run.txt.~touche.{live.pid}.0123456789ab.tmp"
        temporary.write_text("half")
        assert process_alive(live.pid) and remove_stale_temporaries(tmp_path / "run.txt") == 0
        time.sleep(0.2)
        assert live.poll() is None and temporary.exists()
    finally:
        live.kill()
        live.wait()
    assert process_alive(live.pid) is False  # reaped: the id runs nothing now
    assert remove_stale_temporaries(tmp_path / "run.txt") == 1 and not temporary.exists()


def test_a_forged_or_stale_record_gives_no_licence(tmp_path):
    """A forged record (names only, or a copy with another content) once got a user's symlink
    deleted: the content has to match what the command made."""
    folder = tmp_path / "corpus"
    folder.mkdir()
    target = tmp_path / "data.json"
    target.write_text("{}")
    (folder / "mine.json").symlink_to(target)
    (folder / RECORD).write_text('{"name": "mine.json", "kind": "link", "target": "/elsewhere"}\n'
                                 'mine.json\n{"name": "notes.txt", "kind": "file", "size": 4, "sha256": "00"}\n')
    (folder / "notes.txt").write_text("mine")
    with pytest.raises(ToucheError, match=r"did not make \(mine.json, notes.txt\)"):
        LinkFolder(folder).sync({"data.json": target})
    assert (folder / "mine.json").is_symlink() and (folder / "notes.txt").read_text() == "mine"
    made = OutputFolder(tmp_path / "out")
    made.write_text("a.txt", "ours")
    assert made.ours("a.txt")
    (tmp_path / "out" / "a.txt").write_text("edited")  # changed since: no longer the command's
    assert not made.ours("a.txt") and not made.remove("a.txt") and (tmp_path / "out" / "a.txt").exists()
    with pytest.raises(ToucheError, match=r"changed since this command made it"):
        made.write_text("a.txt", "again")


def test_a_record_or_lock_linked_elsewhere_is_never_written_through(tmp_path):
    from touche.folderlock import folder_lock
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    out = tmp_path / "out"
    out.mkdir()
    (out / RECORD).symlink_to(victim)
    (out / ".touche.lock").symlink_to(victim)
    with pytest.raises(ToucheError, match="link or no file"):
        OutputFolder(out).write_text("a.txt", "x")
    with pytest.raises(ToucheError, match="cannot take the lock"):
        with folder_lock(out, ".touche.lock", "held"):
            pass
    assert victim.read_text() == "precious"


def test_a_growing_file_cut_back_to_a_state_it_had_stays_the_commands(tmp_path):
    """A power cut may keep the record's last line and lose the file's last append (the sweep's
    results.jsonl then lacks a line the record counts): the file is still the command's, to repair;
    an edit inside what it wrote is not."""
    folder = OutputFolder(tmp_path / "out", command="touche sweep")
    lines = [b'{"key": "a"}\n', b'{"key": "b"}\n', b'{"key": "c"}\n']
    for line in lines:
        folder.append("results.jsonl", line)
    path = tmp_path / "out" / "results.jsonl"
    for cut in (len(lines[0]) + len(lines[1]), len(lines[0]) + len(lines[1]) + 5, len(lines[0])):
        os.truncate(path, cut)  # an earlier state, or one with a torn (here zeroed) line after it
        fresh = OutputFolder(tmp_path / "out", command="touche sweep")
        assert fresh.ours("results.jsonl"), cut
    path.write_bytes(b'{"key": "X"}\n')  # not a state it wrote
    assert not OutputFolder(tmp_path / "out", command="touche sweep").ours("results.jsonl")
    os.truncate(path, 0)  # empty: no state it recorded (its first append had a line)
    assert not OutputFolder(tmp_path / "out", command="touche sweep").ours("results.jsonl")


def test_a_growing_file_with_a_users_text_after_what_the_command_wrote_is_no_longer_its(tmp_path):
    """What follows the last recorded state may be a crash's unrecorded or torn append (JSON
    lines, the command's to repair) or a user's edit (any other text), which the command must
    not rewrite away: the state machine of tests/guard/test_output_folders.py found a sweep compacting
    a hand-appended note out of results.jsonl."""
    out = tmp_path / "out"
    folder = OutputFolder(out, command="touche sweep")
    folder.append("results.jsonl", b'{"key": "a"}\n')
    path = out / "results.jsonl"
    recorded = path.read_bytes()
    for tail in (b'{"key": "b"}\n', b'{"ke', b'{"ke\n{"key": "c"}\n', b'{"ke\n\n{"key": "c"}\n', b"\0" * 9,
                 b'\0\0{"key": "c"}\n'):
        path.write_bytes(recorded + tail)  # unrecorded appends, whole, torn or zeroed by a power cut
        assert OutputFolder(out, command="touche sweep").ours("results.jsonl"), tail
    for tail in (b"\nedited by hand\n", b"note", b'{"key": "b"}\n# mine\n', b" {", b"\0x"):
        path.write_bytes(recorded + tail)
        assert not OutputFolder(out, command="touche sweep").ours("results.jsonl"), tail
    with pytest.raises(ToucheError, match="results.jsonl"):
        OutputFolder(out, command="touche sweep").append("results.jsonl", b'{"key": "d"}\n')
    assert path.read_bytes() == recorded + b"\0x"  # refused before writing
    with pytest.raises(ValueError, match="only JSON lines"):
        OutputFolder(tmp_path / "other", command="touche sweep").append("results.jsonl", b"plain text\n")


def test_a_lock_removed_between_open_and_lock_is_not_shared(tmp_path, monkeypatch):
    """A finished holder removes its lock file; a command that opened the old file just before
    would lock a file no longer there while a third locks the new one: it takes the new one."""
    import touche.folderlock as folderlock
    out = tmp_path / "out"
    out.mkdir()
    opened = folderlock._open_lock_file
    calls = []

    def opened_then_removed(folder, name, path):
        fd = opened(folder, name, path)
        calls.append(fd)
        if len(calls) == 1:
            path.unlink()  # the holder finished meanwhile
        return fd

    monkeypatch.setattr(folderlock, "_open_lock_file", opened_then_removed)
    with folderlock.folder_lock(out, ".touche.lock", "held"):
        assert len(calls) == 2  # the first, removed, file was let go
        held = os.stat(out / ".touche.lock").st_ino
        monkeypatch.setattr(folderlock, "_open_lock_file", opened)
        with pytest.raises(ToucheError, match="held"):  # the file in place is the one held
            with folderlock.folder_lock(out, ".touche.lock", "held"):
                pass
        assert os.stat(out / ".touche.lock").st_ino == held
    assert not (out / ".touche.lock").exists()


def test_choose_never_replaces_a_users_yaml_named_like_a_pick(jvm_started, index_root, tmp_path):
    from touche.retrieval.experiments.choose import choose
    from touche.retrieval.experiments.sweep import run_sweep
    path = write_sets(tmp_path / "s.yaml", {"dev": demo_set()}, tmp_path / "sweep")
    run_sweep(path, index_root=index_root, progress=False)
    (first,) = choose(tmp_path / "sweep", tmp_path / "scratch", count=1, reference=False)
    out = tmp_path / "chosen"
    out.mkdir()
    mine = out / first.path.name
    mine.write_text("my variant\n")
    with pytest.raises(ToucheError, match=rf"{mine.name} is a file touche choose did not make"):
        choose(tmp_path / "sweep", out, count=1, reference=False)
    assert mine.read_text() == "my variant\n" and sorted(p.name for p in out.iterdir()) == [mine.name]


# --------------------------------------------------------------------------- 6, 7, 8. tracebacks and models
@pytest.mark.parametrize("name", ["trec.nDCG(rel=1)@5", "trec.nDCG(foo=1)@5", "trec.P(judged=1)@5"])
def test_a_parameter_ir_measures_lacks_is_refused_by_name(tmp_path, name):
    run = demo_run(tmp_path / "run.txt")
    code, text = cli("evaluate", str(run), str(RELEVANCE), "--measures", name)
    assert code == 2 and "Traceback" not in text and "takes no parameter" in text and "its parameters:" in text


def _quality_model() -> dict:
    from touche.retrieval.stages.quality.model import MODEL_FILE
    return json.loads(MODEL_FILE.read_text())


@pytest.mark.parametrize("change, message", [
    ({"intercept": 10 ** 400}, r"intercept holds 1000.*\(401 characters\), which is no finite number"),
    ({"coef": [10 ** 400] + _quality_model()["coef"][1:]}, r"coef holds .* which is no finite number"),
    ({"std": [1e-300] + _quality_model()["std"][1:]}, r"can score .*e\+30\d on a text of up to 10\^8 characters"),
    ({"std": [1e-20] + _quality_model()["std"][1:]}, r"a deviation or scale that small"),
])
def test_a_quality_model_that_cannot_score_finitely_is_refused_at_load(tmp_path, change, message):
    from touche.retrieval.stages.quality.model import load
    path = tmp_path / "quality_model.json"
    path.write_text(json.dumps({**_quality_model(), **change}))
    with pytest.raises(InputError, match=message):
        load(path)


def test_a_stance_model_with_a_huge_integer_or_a_vanishing_scale_is_refused_at_load(tmp_path):
    from touche.retrieval.tasks.task2.stance.learned import MODEL_FILE, load
    for where, value in ((("sentences", "intercept"), [10 ** 400, 0, 0]), (("passages", "all", "scale"), 1e-300)):
        data = json.loads(gzip.decompress(MODEL_FILE.read_bytes()))
        node = data
        for key in where[:-1]:
            node = node[key]
        node[where[-1]] = value if isinstance(value, list) else [value] + node[where[-1]][1:]
        path = tmp_path / f"{where[-1]}.json.gz"
        path.write_bytes(gzip.compress(json.dumps(data).encode()))
        with pytest.raises(InputError, match=r"no finite number a float can hold|can score"):
            load(path)


# --------------------------------------------------------------------------- 9. digits, ids, invisible tags
def test_digits_other_than_0_to_9_are_no_number(tmp_path):
    run = tmp_path / "run.txt"
    run.write_text("1 Q0 a 1 \u0661.5 t\n")
    code, text = cli("validate", str(run))
    assert code == 1 and "score '\u0661.5' is not a finite number in the digits 0-9" in text
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 a \u0662\n")
    code, text = cli("evaluate", str(demo_run(tmp_path / "r.txt")), str(qrels))
    assert code == 2 and "\u0662" in text


@pytest.mark.parametrize("qid, why", [(True, "is a truth value"), (1.5, "is a number that is not whole"),
                                      (float("inf"), "is a number that is not whole")])
def test_a_frame_topic_id_that_is_no_topic_is_refused_by_row(qid, why):
    from touche.retrieval.formats.gate import load_run
    frame = pd.DataFrame({"query_id": ["1", qid], "doc_id": ["a", "b"], "score": [1.0, 0.5]})
    with pytest.raises(InputError, match=rf"row 2: topic id {qid!r} {why}"):
        load_run(frame)


def test_an_invisible_character_in_a_tag_or_id_is_warned_about(tmp_path):
    run = tmp_path / "run.txt"
    run.write_text("1 Q0 a 1 1.0 t\u202ex\n")
    code, text = cli("validate", str(run), "--verbose")
    assert code == 0 and "U+202E" in text and "RIGHT-TO-LEFT OVERRIDE" in text and "warning" in text


# --------------------------------------------------------------------------- 10. messages
def test_nan_in_a_variant_is_called_not_a_number(tmp_path, fixture_corpus):
    code, text = cli("run", "-c", VARIANT, "--set", "retrieval.similarity.k1=.nan", "-i", str(fixture_corpus), "-t",
                     str(fixture_corpus / "topics.xml"), "-o", str(tmp_path / "run.txt"))
    assert code == 2 and "expected a finite number (not .nan or .inf)" in text and "≤" not in text


def test_a_score_just_past_the_bound_is_told_apart_from_it_without_a_rank_warning(tmp_path):
    run = tmp_path / "run.txt"
    run.write_text("1 Q0 a 1 3.4028235e38 t\n1 Q0 b 2 1.0 t\n")
    code, text = cli("validate", str(run), "--verbose")
    assert "score 3.4028235e+38 lies beyond ±3.4028234663852886e+38" in text
    assert "ranks start at" not in text and "1 error(s)" in text


def test_a_long_label_is_quoted_as_written(tmp_path):
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 a 999999999999999999999\n")
    code, text = cli("evaluate", str(demo_run(tmp_path / "r.txt")), str(qrels))
    assert code == 2 and "label 999999999999999999999 lies outside" in text


def test_a_rank_column_of_ints_as_objects_orders_ties():
    from touche.retrieval.formats.gate import load_run
    frame = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "score": [1.0, 1.0],
                          "rank": pd.Series([2, 1], dtype=object)})
    assert load_run(frame).frame["docid"].tolist() == ["b", "a"]


def test_a_signalling_nan_score_is_named_not_a_bare_error():
    from touche.retrieval.formats.gate import load_run
    frame = pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "score": [Decimal("sNaN")]})
    with pytest.raises(InputError, match=r"docid a: score Decimal\('sNaN'\) is not finite"):
        load_run(frame)


def test_two_outputs_into_one_private_device_are_both_written_into(tmp_path):
    device = private_device(tmp_path)
    a, b = demo_run(tmp_path / "a.txt", tag="a"), demo_run(tmp_path / "b.txt", tag="b")
    code, text = cli("compare", str(a), str(b), str(RELEVANCE), "-o", str(device), "--plot", str(device))
    assert code == 0, text
    assert device.is_char_device()
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    code, text = cli("compare", str(a), str(b), str(RELEVANCE), "-o", str(fifo), "--plot", str(fifo))
    assert code == 2 and "would run into each other" in text


# --------------------------------------------------------------------------- 11. a run read and written
def test_write_run_says_it_closes_a_gap_in_the_ranks():
    from touche.pyterrier import frames
    assert "not ``f`` byte for byte" in frames.write_run.__doc__ and "gap" in frames.write_run.__doc__


def test_config_errors_stay_config_errors():
    from touche.config import load_variant
    with pytest.raises(ConfigError, match=r"^--set retrieval.similarity.k1=abc: retrieval.similarity.k1: expected a "
                                          r"number \(got 'abc'\) \(in variant .*1-bm25.yaml\)$"):
        load_variant(VARIANT, {"retrieval.similarity.k1": "abc"})
