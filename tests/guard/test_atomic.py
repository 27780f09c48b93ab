"""The writer (touche/atomic.py): every output whole or not at all. A dead writer's temporaries are
removed by the next write while a live writer's are kept and its process never signalled; a synced
write syncs the text before the rename; a check that refuses leaves the old file; standard output
(``-``), a named pipe and a device are written into, never replaced; a built folder is placed
only where nothing of someone else's is."""
from __future__ import annotations

import contextlib
import io
import os
import signal
import stat
import subprocess
import threading
import time
from pathlib import Path

import pytest

from tests.shared import RELEVANCE, REPO, VARIANT, cli, demo_run
from touche.atomic import (
    atomic_directory,
    atomic_open,
    check_output,
    output_kind,
    process_alive,
    remove_stale_temporaries,
    temporary_name,
    temporary_owner,
    write_bytes,
    write_text,
)
from touche.errors import ToucheError

RANDOM = "0123456789ab"  # the 12 hex digits of a temporary's name


def _finished_pid() -> int:
    """The id of a process that ran and was reaped: nothing runs under it now."""
    done = subprocess.Popen(["true"])
    done.wait()
    return done.pid


def _temporary(folder: Path, name: str, pid: int) -> Path:
    return folder / f".{name}.~touche.{pid}.{RANDOM}.tmp"


@contextlib.contextmanager
def _deadline(seconds: int):
    """A guard: a write that blocks for ever ends the test instead of the run."""
    def expire(signum, frame):
        raise TimeoutError(f"still blocked after {seconds} s")
    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


# --------------------------------------------------------------------------- stale temporaries
def test_the_next_write_removes_a_dead_writers_temporaries_and_keeps_a_live_writers(tmp_path):
    """A killed writer's leftovers (a file, and a folder of atomic_directory's) go; a running
    writer's temporary stays, and that writer is neither signalled nor disturbed."""
    dead = _finished_pid()
    left_file = _temporary(tmp_path, "run.txt", dead)
    left_file.write_text("half a run")
    left_folder = tmp_path / f".run.txt.~touche.{dead}.{'ba9876543210'}.tmp"
    left_folder.mkdir()
    (left_folder / "part").write_text("half")
    live = subprocess.Popen(["sleep", "30"])
    try:
        running = _temporary(tmp_path, "run.txt", live.pid)
        running.write_text("being written")
        write_text(tmp_path / "run.txt", "1 Q0 d 1 1.0 t\n")
        with pytest.raises(subprocess.TimeoutExpired):
            live.wait(timeout=0.3)  # a SIGHUP (os.kill(pid, 1)) would have ended the sleep
        assert running.read_text() == "being written"
    finally:
        live.kill()
        live.wait()
    assert not left_file.exists() and not left_folder.exists()
    assert (tmp_path / "run.txt").read_text() == "1 Q0 d 1 1.0 t\n"


def test_remove_stale_temporaries_counts_what_it_removed_and_spares_others_and_its_own(tmp_path):
    dead = _finished_pid()
    mine = _temporary(tmp_path, "run.txt", os.getpid())  # this process writes it right now
    other_output = _temporary(tmp_path, "run.txt.gz", dead)  # a dead writer's, of another output
    users = tmp_path / f".run.txt.~touche.{dead}.backup.tmp"  # not our pattern: a user's file
    stale = [_temporary(tmp_path, "run.txt", dead), tmp_path / f".run.txt.~touche.{dead}.{'f' * 12}.tmp"]
    for path in (mine, other_output, users, *stale):
        path.write_text("x")
    assert remove_stale_temporaries(tmp_path / "run.txt") == 2
    assert [path.exists() for path in (mine, other_output, users, *stale)] == [True, True, True, False, False]
    assert remove_stale_temporaries(tmp_path / "run.txt") == 0


def test_the_liveness_probe_says_true_for_a_running_process_and_false_for_a_gone_one():
    assert process_alive(os.getpid()) is True
    assert process_alive(_finished_pid()) is False


def test_a_live_process_probed_is_not_signalled(tmp_path):
    """Asking whether a writer runs delivers nothing to it (signal 0): its temporary is kept and
    it goes on running."""
    live = subprocess.Popen(["sleep", "30"])
    try:
        temporary = _temporary(tmp_path, "run.txt", live.pid)
        temporary.write_text("half")
        assert process_alive(live.pid) is True
        assert remove_stale_temporaries(tmp_path / "run.txt") == 0
        with pytest.raises(subprocess.TimeoutExpired):
            live.wait(timeout=0.3)
        assert temporary.read_text() == "half"
    finally:
        live.kill()
        live.wait()


def test_another_users_process_counts_as_alive():
    """A process we may not signal (another user's) runs: its temporaries must stay. Here a sleep
    of user 65533, probed while this process acts as user 65534."""
    if os.geteuid() != 0:
        pytest.skip("needs root to act as two other users")
    other = subprocess.Popen(["sleep", "30"], user=65533)
    try:
        os.seteuid(65534)
        try:
            alive = process_alive(other.pid)
        finally:
            os.seteuid(0)
        assert alive is True
    finally:
        other.kill()
        other.wait()


def test_a_temporary_is_recognised_as_its_outputs_only(tmp_path):
    path = tmp_path / "run.txt"
    temporary = temporary_name(path)
    assert temporary_owner(temporary, "run.txt") == os.getpid()
    assert temporary_owner(temporary, "run.txt.gz") is None
    assert temporary_owner(tmp_path / ".run.txt.999999.backup.tmp", "run.txt") is None


# --------------------------------------------------------------------------- the write itself
def test_fsync_syncs_the_complete_temporary_before_it_is_renamed_into_place(tmp_path, monkeypatch):
    """A run written with fsync=True is on disk, whole, before the name points at it, and the
    folder is synced after the rename: a power cut can leave the old run or the new one, never an
    empty or truncated run, and not a rename that is lost."""
    events = []
    real_fsync, real_replace = os.fsync, os.replace
    monkeypatch.setattr(os, "fsync", lambda fd: events.append(("fsync", os.fstat(fd).st_ino, os.fstat(fd).st_size))
                        or real_fsync(fd))
    monkeypatch.setattr(os, "replace", lambda a, b: events.append(("replace", os.stat(a).st_ino, Path(b).name))
                        or real_replace(a, b))
    text = "1 Q0 d 1 1.0 t\n" * 1000
    with atomic_open(tmp_path / "run.txt", "w", fsync=True) as handle:
        handle.write(text)
    final = (tmp_path / "run.txt").stat().st_ino
    folder = tmp_path.stat().st_ino
    assert events == [("fsync", final, len(text)), ("replace", final, "run.txt"),
                      ("fsync", folder, tmp_path.stat().st_size)]


def test_a_check_that_refuses_leaves_the_old_file_and_no_temporary(tmp_path):
    path = tmp_path / "run.txt"
    path.write_text("the old run\n")
    seen = []

    def refuse(temporary: Path) -> None:
        seen.append(temporary.read_text())
        raise ToucheError("not a valid run")

    with pytest.raises(ToucheError, match="not a valid run"):
        with atomic_open(path, check=refuse) as handle:
            handle.write("a bad run\n")
    assert seen == ["a bad run\n"]  # the check saw the whole text
    assert path.read_text() == "the old run\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.txt"]


def test_a_check_that_refuses_writes_nothing_to_standard_output():
    def refuse(temporary: Path) -> None:
        raise ToucheError("not a valid run")

    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(ToucheError, match="not a valid run"):
        with atomic_open("-", check=refuse) as handle:
            handle.write("a bad run\n")
    assert out.getvalue() == ""


@pytest.mark.parametrize("encoding", ["latin-1", "utf-8", "utf-16"])
def test_a_text_only_standard_output_gets_the_text_in_the_encoding_asked_for(encoding):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        with atomic_open("-", encoding=encoding) as handle:
            handle.write("café – Straße\n" if encoding != "latin-1" else "café Straße\n")
    assert out.getvalue() == ("café – Straße\n" if encoding != "latin-1" else "café Straße\n")


def test_a_block_device_is_refused_before_any_work(tmp_path):
    device = tmp_path / "disk"
    try:
        os.mknod(device, stat.S_IFBLK | 0o600, os.makedev(7, 0))
    except PermissionError:
        pytest.skip("cannot make a device node here")
    assert output_kind(device) == "block device"
    with pytest.raises(ToucheError, match="is a block device, not a file"):
        check_output(device, "run file")
    with pytest.raises(ToucheError, match="is a block device"):
        write_text(device, "x")
    assert stat.S_ISBLK(os.lstat(device).st_mode)


# --------------------------------------------------------------------------- named pipes
def test_a_named_pipe_nobody_reads_is_refused_after_the_wait_without_spinning(tmp_path, monkeypatch):
    """Refused about TOUCHE_PIPE_WAIT seconds after (not at once, not much later), the waiting
    done asleep (the process' CPU is not burnt meanwhile)."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    monkeypatch.setenv("TOUCHE_PIPE_WAIT", "0.3")
    started, cpu = time.monotonic(), time.thread_time()
    with _deadline(5), pytest.raises(ToucheError, match=r"no process reads this named pipe \(waited 0.3 s"):
        write_text(fifo, "1 Q0 d 1 1.0 t\n")
    took, spent = time.monotonic() - started, time.thread_time() - cpu
    assert 0.3 <= took < 0.9
    assert spent < 0.03  # a tenth of the wait: asleep, not polling without pause
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_a_named_pipe_read_late_and_slowly_gets_every_byte(tmp_path, monkeypatch):
    """The reader starts after the writer and reads only once the pipe's buffer is full: the
    writer waits for it, then writes at its pace (no 'resource temporarily unavailable')."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    monkeypatch.setenv("TOUCHE_PIPE_WAIT", "5")
    data = bytes(range(256)) * 2048  # 512 KiB: several times a pipe's buffer
    got = []

    def reader():
        time.sleep(0.1)
        with open(fifo, "rb") as stream:
            time.sleep(0.2)
            got.append(stream.read())

    thread = threading.Thread(target=reader)
    thread.start()
    try:
        with _deadline(5):
            write_bytes(fifo, data)
    finally:
        thread.join(5)
    assert got == [data]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


# --------------------------------------------------------------------------- the other writers
def test_write_bytes_writes_the_bytes_and_returns_the_path(tmp_path):
    data = bytes(range(256))
    assert write_bytes(str(tmp_path / "model.bin"), data) == tmp_path / "model.bin"
    assert (tmp_path / "model.bin").read_bytes() == data


def test_atomic_directory_builds_in_a_hidden_folder_and_renames_it_into_place(tmp_path):
    """Given as a string, in a folder that does not exist yet: the block gets an existing empty
    folder beside the target; the target appears only when the block ends."""
    target = tmp_path / "new" / "data" / "corpus"
    with atomic_directory(str(target)) as building:
        assert building.is_dir() and not any(building.iterdir())
        assert building.parent == target.parent and building.name.startswith(".corpus.~touche.")
        (building / "a.json").write_text("{}")
        assert not target.exists()
    assert (target / "a.json").read_text() == "{}"
    assert [p.name for p in target.parent.iterdir()] == ["corpus"]


def test_atomic_directory_replaces_an_empty_folder(tmp_path):
    target = tmp_path / "corpus"
    target.mkdir()
    with atomic_directory(target) as building:
        (building / "a.json").write_text("{}")
    assert [p.name for p in target.iterdir()] == ["a.json"]


def test_atomic_directory_keeps_what_appeared_in_the_target_meanwhile_and_names_the_target(tmp_path):
    """The empty target folder got a file while the corpus was built: nothing of it is deleted,
    the error names the folder the user gave (not a hidden temporary), and no temporary is left."""
    target = tmp_path / "corpus"
    target.mkdir()
    with pytest.raises(OSError) as refused:
        with atomic_directory(target) as building:
            (building / "a.json").write_text("{}")
            (target / "notes.txt").write_text("a user's")
    assert refused.value.filename == str(target) and refused.value.filename2 is None
    assert [p.name for p in target.iterdir()] == ["notes.txt"]
    assert [p.name for p in tmp_path.iterdir()] == ["corpus"]


def test_atomic_directory_removes_a_dead_builders_leftover_folder(tmp_path):
    dead = _finished_pid()
    leftover = _temporary(tmp_path, "corpus", dead)
    (leftover / "sub").mkdir(parents=True)
    (leftover / "sub" / "part.json").write_text("{")
    with atomic_directory(tmp_path / "corpus") as building:
        (building / "a.json").write_text("{}")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus"]


def test_atomic_directory_that_fails_leaves_nothing_and_raises_the_blocks_own_error(tmp_path):
    with pytest.raises(ValueError, match="the fetch failed"):
        with atomic_directory(tmp_path / "corpus") as building:
            (building / "sub").mkdir()
            (building / "sub" / "a.json").write_text("{}")
            raise ValueError("the fetch failed")
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(ValueError, match="gone already"):  # the partial folder already removed: the same error
        with atomic_directory(tmp_path / "corpus") as building:
            building.rmdir()
            raise ValueError("gone already")
    assert list(tmp_path.iterdir()) == []


def test_a_synced_write_leaves_no_descriptor_open(tmp_path):
    """Every run of a sweep is written with fsync: a descriptor left open per write (the file's or
    its folder's) would exhaust the process's limit over a long sweep."""
    def open_descriptors():
        return len(os.listdir("/proc/self/fd"))
    before = open_descriptors()
    for number in range(20):
        with atomic_open(tmp_path / f"run{number}.txt", "w", fsync=True) as handle:
            handle.write("1 Q0 d 1 1.0 t\n")
    assert open_descriptors() == before


def two_runs(tmp_path: Path) -> tuple[Path, Path]:
    return demo_run(tmp_path / "a.txt", tag="a"), demo_run(tmp_path / "b.txt", tag="b", topics={"1", "2", "3"})


class FifoReader:
    """Reads a named pipe in a thread while a command writes into it (a writer blocks until then)."""

    def __init__(self, path: Path):
        self.data = b""
        self.thread = threading.Thread(target=self._read, args=(path,), daemon=True)
        self.thread.start()

    def _read(self, path: Path) -> None:
        with open(path, "rb") as pipe:
            self.data = pipe.read()

    def text(self) -> str:
        self.thread.join(30)
        return self.data.decode("utf-8")


# --------------------------------------------------------------------------- pipes and devices
def test_a_named_pipe_and_a_private_device_are_written_into_never_replaced(tmp_path):
    """`compare -o FIFO` turned the pipe into a regular file; as root `-o /dev/null` replaced the
    machine's /dev/null. Here a FIFO and a character device of our own (mknod in tmp_path: the
    system's /dev is never touched) stay what they are, and the pipe's reader gets the report."""
    a, b = two_runs(tmp_path)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    reader = FifoReader(fifo)
    code, text = cli("compare", str(a), str(b), str(RELEVANCE), "-o", str(fifo))
    assert code == 0, text
    assert "| topic |" in reader.text() or "touche.nDCG@5" in reader.text()
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    null = tmp_path / "null"
    try:
        os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))  # a private /dev/null
    except PermissionError:
        pytest.skip("mknod needs root (CI and TIRA run as root)")
    link = tmp_path / "stdout-like"
    link.symlink_to(null)  # /dev/stdout is such a link
    for target in (null, link):
        code, text = cli("explore", str(a), str(b), "-o", str(tmp_path / "page.html"), "--csv", str(target))
        assert code == 0, text
        assert stat.S_ISCHR(os.stat(null).st_mode) and stat.S_ISCHR(os.lstat(null).st_mode)
    assert link.is_symlink()


def test_dash_is_standard_output_and_status_lines_move_aside(tmp_path, capfd):
    a, b = two_runs(tmp_path)
    from touche.cli import main
    assert main(["compare", str(a), str(b), str(RELEVANCE), "-o", "-"]) == 0
    out, err = capfd.readouterr()
    assert out.count("## b.txt vs a.txt") == 1 and "wrote" not in out  # the report once, nothing else on stdout
    assert main(["explore", str(a), str(b), "-o", str(tmp_path / "p.html"), "--csv", "-"]) == 0
    out, err = capfd.readouterr()
    assert out.startswith("run,") and "wrote" not in out and "wrote" in err
    assert not (Path.cwd() / "-").exists()
    code, text = cli("explore", str(a), str(b), "-o", "-", "--csv", "-")
    assert code == 2 and "both go to standard output" in text


def test_a_folder_link_or_file_in_place_of_a_built_folder_is_refused_not_deleted(tmp_path):
    from touche.atomic import atomic_directory
    kept = tmp_path / "kept"
    kept.mkdir()
    (kept / "precious.txt").write_text("x")
    link = tmp_path / "index"
    link.symlink_to(kept)
    with pytest.raises(ToucheError, match="not a folder of its own"):
        with atomic_directory(link):
            raise AssertionError("built")  # never reached: refused before any work
    assert (kept / "precious.txt").read_text() == "x" and link.is_symlink()


def test_standard_output_without_a_binary_buffer_takes_text(capsys):
    import contextlib
    import io

    from touche.atomic import write_text
    with contextlib.redirect_stdout(io.StringIO()) as out:
        write_text("-", "a table\n")
    assert out.getvalue() == "a table\n"


def private_device(folder: Path) -> Path:
    """A character device like /dev/null, made in ``folder`` (root only)."""
    if os.geteuid() != 0:
        pytest.skip("mknod of a character device needs root")
    device = folder / "null"
    os.mknod(device, 0o666 | 0o020000, os.makedev(1, 3))
    return device


def test_run_scores_what_it_wrote_into_a_stream_without_reading_it_back(jvm_started, fixture_corpus, index_root,
                                                                       tmp_path):
    """`touche run -o -` used to skip the scores ("the run went to a stream"): the written text is
    kept and scored, the stream is only written into."""
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 Sa0000001-A00000001 2\n")
    code, text = cli("run", "-c", VARIANT, "-i", str(fixture_corpus), "-t", str(fixture_corpus / "topics.xml"),
                     "-o", "-", "--qrels", str(qrels), "--index-root", str(index_root))
    assert code == 0 and "Sa0000001-A00000001" in text and "touche.nDCG@5" in text


# --------------------------------------------------------------------------- what passes for ours
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


def test_temporaries_left_by_a_killed_writer_are_removed_by_the_next_write(tmp_path):
    """kill -9 during run writing left full-size hidden temporaries that no later run removed."""
    from touche.atomic import write_text

    gone = subprocess.Popen(["true"])
    gone.wait()  # a process id that no longer runs
    target = tmp_path / "run.txt"
    stale = tmp_path / f".run.txt.~touche.{gone.pid}.0123abcd4567.tmp"
    stale.write_bytes(b"x" * 1000)
    mine_running = tmp_path / f".run.txt.~touche.{1}.0123abcd4567.tmp"  # pid 1 runs: a live writer's file stays
    mine_running.write_bytes(b"y")
    other = tmp_path / ".other.txt.~touche.123.0123abcd4567.tmp"  # another file's temporary: not ours to judge
    other.write_bytes(b"z")
    write_text(target, "1 Q0 a 1 1.0 t\n")
    assert not stale.exists() and mine_running.exists() and other.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([".other.txt.~touche.123.0123abcd4567.tmp",
                                                                 mine_running.name, "run.txt"])


def test_run_files_are_readable_by_everyone_the_umask_allows(jvm_started, fixture_corpus, tmp_path, index_root):
    """mkstemp made run.txt 0600: unreadable to the host's user after a Docker run."""
    import os

    old = os.umask(0o022)
    try:
        code, text = cli("run-all", "-i", str(fixture_corpus), "-o", str(tmp_path / "out"), "--index-root",
                         str(index_root), "-c", str(REPO / "configs" / "task1" / "examples" / "1-bm25.yaml"))
    finally:
        os.umask(old)
    assert code == 0, text
    assert {p.name: oct(p.stat().st_mode & 0o777) for p in (tmp_path / "out").iterdir()} == {
        "1-bm25.txt": "0o644", "run.txt": "0o644", ".touche-made": "0o644"}  # the record: what run-all made there
