"""An index build that fails part-way leaves no index passing for finished: killed (kill -9) the
next build cleans up and builds it whole; out of disk it is a located error; interrupted (Ctrl-C)
it says what stopped (indexing/builder.py, touche/atomic.py)."""
from __future__ import annotations

import signal
import subprocess
import sys
import time

from tests.shared import REPO, cli


def test_killed_indexing_is_recovered_by_the_next_run(tmp_path):
    """kill -9 in the middle of indexing: no index passes for finished; the rerun builds it."""
    from bench.synthetic import write_corpus
    corpus = write_corpus(tmp_path / "corpus" / "args.json", n_docs=40_000, seed=3)
    root = tmp_path / "indexes"
    touche = [sys.executable, "-m", "touche", "index", "-c",
              str(REPO / "configs" / "task1" / "examples" / "1-bm25.yaml"),
              "-i", str(corpus.parent), "--index-root", str(root)]
    process = subprocess.Popen(touche, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=REPO)
    deadline = time.time() + 120
    while time.time() < deadline and not list(root.glob(".argsme-*.~touche.*.tmp")):
        time.sleep(0.05)
    time.sleep(1.0)  # well into indexing
    assert process.poll() is None, "indexing finished before it could be interrupted"
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert list(root.glob(".argsme-*.~touche.*.tmp")), "the half-built index stays in its temporary directory"
    assert not [p for p in root.glob("argsme-*") if p.is_dir()], "nothing was moved into place"
    rerun = subprocess.run(touche, capture_output=True, text=True, cwd=REPO, timeout=600)
    assert rerun.returncode == 0, rerun.stdout + rerun.stderr
    assert "documents: 40000" in rerun.stdout
    assert not list(root.glob(".argsme-*.~touche.*.tmp")), "the dead build's temporary directory was cleaned up"


def test_a_full_disk_while_indexing_is_a_located_error_and_leaves_no_partial_index(jvm_started, fixture_corpus,
                                                                                   tmp_path, monkeypatch):
    """It ended in exit 4 with a 113-line Java trace."""
    import jnius

    import touche.indexing.builder as builder

    def full(*args, **kwargs):
        raise jnius.JavaException("JVM exception occurred: No space left on device", "java.io.IOException",
                                  "No space left on device", [])

    monkeypatch.setattr(builder, "_hand_over", full)
    root = tmp_path / "indexes"
    code, text = cli("index", "-c", str(REPO / "configs" / "task1" / "examples" / "1-bm25.yaml"), "-i",
                     str(fixture_corpus), "--index-root", str(root))
    assert code == 2 and "no space left on device while writing the index" in text and "Traceback" not in text
    assert str(root) in text
    assert [p.name for p in root.iterdir() if not p.name.endswith(".lock")] == []


def _interruptible() -> None:
    """The child gets SIGINT as a terminal would give it, whatever this test process (its JVM, Ray,
    earlier tests) did to its own signal mask and handlers: both are inherited across exec."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_while_indexing_says_what_stopped_and_leaves_no_partial_index(tmp_path):
    """The JVM used to take SIGINT: exit 130 with no word, and the partial index stayed."""
    import json

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    arguments = [{"id": f"S{i:07d}-A1", "conclusion": f"claim {i}",
                  "premises": [{"text": f"premise number {i} about uniforms and energy " * 20, "stance": "PRO"}]}
                 for i in range(80_000)]
    (corpus / "args.json").write_text(json.dumps({"arguments": arguments}))
    root = tmp_path / "indexes"
    process = subprocess.Popen([sys.executable, "-m", "touche", "index", "-c",
                                str(REPO / "configs" / "task1" / "examples" / "1-bm25.yaml"), "-i", str(corpus),
                                "--index-root", str(root)], stderr=subprocess.PIPE, text=True, cwd=REPO,
                               preexec_fn=_interruptible)
    seen = ""
    while "indexing" not in seen:  # the JVM is up and documents are being indexed
        char = process.stderr.read(1)
        if not char:
            break
        seen += char
    time.sleep(0.3)
    process.send_signal(signal.SIGINT)
    err = seen + process.stderr.read()
    assert process.wait(timeout=60) == 130, err[-2000:]
    assert "interrupted: touche index stopped" in err and "Traceback" not in err
    assert [p.name for p in root.iterdir() if not p.name.endswith(".lock")] == []
