"""Nothing half-done passes for done: concurrent writers, full disks, killed indexing, no network."""
from __future__ import annotations

import errno
import signal
import socket
import subprocess
import sys
import time


from test_pipeline import REPO, SUITE, cli


def test_second_writer_to_the_same_output_is_refused(jvm_started, fixture_corpus, tmp_path):
    from filelock import FileLock
    out = tmp_path / "out"
    out.mkdir()
    with FileLock(str(out / ".touche.lock")):  # another process is writing there
        code, text = cli("run-all", "-i", str(fixture_corpus), "-o", str(out))
    assert code == 2 and "another touche process is writing to this output directory" in text
    assert not list(out.glob("*.txt"))


def test_disk_full_while_writing_a_run_leaves_nothing_behind(jvm_started, fixture_corpus, tmp_path, monkeypatch,
                                                             index_root):
    import retrieval.formats.runfile as runfile

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device", str(tmp_path / "out" / "1-bm25.txt"))

    monkeypatch.setattr(runfile, "_write_lines", full)
    monkeypatch.setenv("TOUCHE_INDEX_ROOT", str(index_root))
    code, text = cli("run-all", "-i", str(fixture_corpus), "-o", str(tmp_path / "out"))
    assert code == 2 and "No space left on device" in text and "Traceback" not in text
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == []  # no run, no temporary, no lock


def test_malformed_topics_in_the_input_directory(tmp_path, fixture_corpus):
    tira = tmp_path / "in"
    tira.mkdir()
    (tira / "args.json").write_text((fixture_corpus / "args-fixture.json").read_text())
    (tira / "topics.xml").write_text("<topics>\n<topic><number>1</number><title>Unclosed</topic>\n</topics>\n")
    code, text = cli("run-all", "-i", str(tira), "-o", str(tmp_path / "out"))
    assert code == 2 and str(tira / "topics.xml") in text and "line 2" in text


def test_a_tira_run_makes_no_network_call(jvm_started, fixture_corpus, tmp_path, monkeypatch, index_root):
    from retrieval.suite import run_suite

    def refuse(*args, **kwargs):
        raise AssertionError(f"network call attempted: {args}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    assert run_suite(SUITE, fixture_corpus, tmp_path / "out", index_root=index_root, progress=False).run_txt.is_file()
    assert (tmp_path / "out" / "run.txt").is_file()


def test_killed_indexing_is_recovered_by_the_next_run(tmp_path):
    """kill -9 in the middle of indexing: no index passes for finished; the rerun builds it."""
    from bench.synthetic import write_corpus
    corpus = write_corpus(tmp_path / "corpus" / "args.json", n_docs=40_000, seed=3)
    root = tmp_path / "indexes"
    touche = [sys.executable, "-m", "touche", "index", "-c", str(REPO / "configs" / "task1" / "examples" / "1-bm25.yaml"),
              "-i", str(corpus.parent), "--index-root", str(root)]
    process = subprocess.Popen(touche, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=REPO)
    deadline = time.time() + 120
    while time.time() < deadline and not list(root.glob(".argsme-*.tmp-*")):
        time.sleep(0.05)
    time.sleep(1.0)  # well into indexing
    assert process.poll() is None, "indexing finished before it could be interrupted"
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert list(root.glob(".argsme-*.tmp-*")), "the half-built index stays in its temporary directory"
    assert not [p for p in root.glob("argsme-*") if p.is_dir()], "nothing was moved into place"
    rerun = subprocess.run(touche, capture_output=True, text=True, cwd=REPO, timeout=600)
    assert rerun.returncode == 0, rerun.stdout + rerun.stderr
    assert "documents: 40000" in rerun.stdout
    assert not list(root.glob(".argsme-*.tmp-*")), "the dead build's temporary directory was cleaned up"
