"""An input given as a pipe is read once (touche/sources.py): a run, qrels or topics file that is a
FIFO or a process substitution is read whole the first time a command looks at it, and every later
look (telling a run from qrels, detecting the format, validating, scoring) sees the same bytes."""
from __future__ import annotations

import os
import shlex
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from touche import sources
from touche.api import evaluate as api_evaluate
from touche.cli import main
from touche.retrieval.formats.gate import load_qrels, load_run, load_topics

RUN = "".join(f"1 Q0 d{i} {i} {10 - i} t\n" for i in range(1, 6)) + "2 Q0 d9 1 3.5 t\n"
QRELS = "1 0 d1 2\n1 0 d4 1\n2 0 d9 1\n"
TOPICS = ("<topics><topic><number>1</number><title>Should zoos exist?</title></topic>"
          "<topic><number>2</number><title>Is vaping safe?</title></topic></topics>")


class Fifo:
    """A named pipe in the test's folder whose writer gives its text to the first reader only; a
    reader that opens it again finds it empty (as a drained process substitution is), never
    blocks for ever."""

    def __init__(self, path: Path, text: str):
        self.path, self.text, self.stop = path, text, threading.Event()
        os.mkfifo(path)
        self.thread = threading.Thread(target=self._write, daemon=True)
        self.thread.start()

    def _write(self):
        first = True
        while not self.stop.is_set():
            with open(self.path, "w") as handle:  # blocks until a reader opens it
                if first and not self.stop.is_set():
                    handle.write(self.text)
                first = False

    def close(self):
        self.stop.set()
        fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK)  # releases a writer waiting for a reader
        os.close(fd)
        self.thread.join(5)


@pytest.fixture
def fifo(tmp_path):
    made = []

    def make(name: str, text: str) -> Path:
        made.append(Fifo(tmp_path / name, text))
        return made[-1].path
    yield make
    for pipe in made:
        pipe.close()


def files(tmp_path):
    (tmp_path / "run.txt").write_text(RUN)
    (tmp_path / "qrels.txt").write_text(QRELS)
    return tmp_path / "run.txt", tmp_path / "qrels.txt"


def test_validate_reads_a_run_given_as_a_pipe(fifo, capsys):
    assert main(["validate", str(fifo("run", RUN))]) == 0
    assert "valid as Q0 run" in capsys.readouterr().out


@pytest.mark.parametrize("piped", ["run", "qrels", "both"])
def test_evaluate_scores_a_run_and_qrels_given_as_pipes_as_it_scores_files(tmp_path, fifo, capsys, piped):
    run, qrels = files(tmp_path)
    assert main(["evaluate", str(run), str(qrels), "--measures", "touche.nDCG@5,trec.P@5"]) == 0
    expected = capsys.readouterr().out
    args = [str(fifo("r", RUN)) if piped in ("run", "both") else str(run),
            str(fifo("q", QRELS)) if piped in ("qrels", "both") else str(qrels)]
    assert main(["evaluate", *args, "--measures", "touche.nDCG@5,trec.P@5"]) == 0
    out = capsys.readouterr().out

    def numbers(text):  # the table's cells but the run's label (it names the file)
        return [[cell.strip() for cell in line.split("|")[2:]] for line in text.splitlines()[2:]]
    assert numbers(out) == numbers(expected) and "1.000" in out


def test_the_gate_reads_each_input_kind_from_a_pipe_once(tmp_path, fifo):
    run, qrels = files(tmp_path)
    assert load_run(fifo("r", RUN)).records() == load_run(run).records()
    assert load_qrels(fifo("q", QRELS)).judgments == load_qrels(qrels).judgments
    (tmp_path / "topics.xml").write_text(TOPICS)
    assert load_topics(fifo("t.xml", TOPICS)) == load_topics(tmp_path / "topics.xml")


def test_the_api_scores_a_piped_run_as_its_file(tmp_path, fifo):
    run, qrels = files(tmp_path)
    assert api_evaluate(str(fifo("r", RUN)), str(qrels), ["touche.nDCG@5"]) == \
        api_evaluate(str(run), str(qrels), ["touche.nDCG@5"])


def test_within_one_command_a_pipe_is_read_once_and_outside_each_reader_reads_it(fifo):
    pipe = fifo("r", RUN)
    with sources.reading():
        assert sources.read_bytes(pipe) == RUN.encode() == sources.read_bytes(pipe)
    assert sources.read_bytes(pipe) == b""  # a new command: the drained pipe, not the last one's bytes


def test_a_regular_file_is_read_from_disk_every_time(tmp_path):
    path = tmp_path / "run.txt"
    path.write_text("a")
    with sources.reading():
        assert sources.read_bytes(path) == b"a"
        path.write_text("b")
        assert sources.read_bytes(path) == b"b" and not sources.is_stream(path)


def _bash(command: str, cwd: Path) -> subprocess.CompletedProcess:
    touche = Path(sys.executable).with_name("touche")
    return subprocess.run(["bash", "-c", command.replace("touche ", f"{shlex.quote(str(touche))} ", 1)], cwd=cwd,
                          capture_output=True, text=True, timeout=120)


def test_process_substitutions_are_read_once(tmp_path):
    """``<(cat run.txt)``: /dev/fd/N, a pipe its reader can open only once with content."""
    files(tmp_path)
    done = _bash("touche validate <(cat run.txt)", tmp_path)
    assert done.returncode == 0 and "valid as Q0 run" in done.stdout, done.stderr
    done = _bash("touche evaluate <(cat run.txt) <(cat qrels.txt) --measures touche.nDCG@5", tmp_path)
    plain = _bash("touche evaluate run.txt qrels.txt --measures touche.nDCG@5", tmp_path)
    assert done.returncode == 0 and plain.returncode == 0, done.stderr
    assert [c.strip() for c in done.stdout.splitlines()[2].split("|")[2:]] == \
        [c.strip() for c in plain.stdout.splitlines()[2].split("|")[2:]]
