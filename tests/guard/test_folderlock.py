"""The lock a run-all or a sweep holds on its output folder (touche/folderlock.py): a lock another
command took after ours was removed is not deleted when we finish; no descriptor is left open; a
user's file of any content in the lock's place is refused and kept; a record or lock linked
elsewhere is never written through; a lock removed between open and lock is not shared."""
from __future__ import annotations

import os
import re
import signal
import stat
import subprocess
import sys

import pytest

import touche.folderlock as folderlock
from tests.shared import cli
from touche.errors import ToucheError
from touche.folderlock import folder_lock
from touche.guard import RECORD, OutputFolder

NAME = ".touche.lock"
TOKEN_LINE = re.compile(rb"touche lock [0-9a-f]{32}\n")


def _a_lock_line(data: bytes) -> bool:
    return TOKEN_LINE.fullmatch(data) is not None


def _open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))  # read only


def test_a_lock_another_command_took_after_ours_was_removed_outlives_ours(tmp_path):
    """Someone removed our lock file while we held it and another command locked a new one: when
    we finish, theirs stays (it is not the file we hold)."""
    ours = folder_lock(tmp_path, NAME, "held")
    ours.__enter__()
    (tmp_path / NAME).unlink()
    theirs = folder_lock(tmp_path, NAME, "held")
    theirs.__enter__()
    theirs_line = (tmp_path / NAME).read_bytes()
    ours.__exit__(None, None, None)
    assert (tmp_path / NAME).read_bytes() == theirs_line and _a_lock_line(theirs_line)
    with pytest.raises(ToucheError, match="held by them"):
        with folder_lock(tmp_path, NAME, "held by them"):
            pass
    theirs.__exit__(None, None, None)
    assert not (tmp_path / NAME).exists()


def test_a_lock_written_into_while_held_is_left_in_place(tmp_path):
    with folder_lock(tmp_path, NAME, "held"):
        line = (tmp_path / NAME).read_bytes()
        with open(tmp_path / NAME, "ab") as handle:
            handle.write(b"a note someone added\n")
    assert (tmp_path / NAME).read_bytes() == line + b"a note someone added\n"


def test_taking_and_releasing_a_lock_leaves_no_descriptor_open(tmp_path):
    before = _open_descriptors()
    for _ in range(5):
        with folder_lock(tmp_path, NAME, "held"):
            pass
    assert _open_descriptors() == before


# "touche lock\n" was the lock's whole line once (the output-folder state machine drew it and saw
# a user's file deleted); a line of the right form with one character off is no lock either
@pytest.mark.parametrize("content", [b"my notes\n", b"", b"touche lock\n", b"touche lock\n\n", b"touche lockX",
                                     b"x" * 45, b"touche lock " + b"0" * 31 + b"g\n", b"touche lock " + b"0" * 32,
                                     b"touche lock " + b"A" * 32 + b"\n", b"touche lock " + b"0" * 32 + b"\n\n"])
def test_a_users_file_in_the_locks_place_is_refused_and_kept(tmp_path, content):
    (tmp_path / NAME).write_bytes(content)
    before = _open_descriptors()
    with pytest.raises(ToucheError, match=r"cannot take the lock \.touche\.lock: it is a pipe, a device or a file of "
                                          r"someone else's"):
        with folder_lock(tmp_path, NAME, "held"):
            pass
    assert (tmp_path / NAME).read_bytes() == content and _open_descriptors() == before


def test_a_pipe_in_the_locks_place_is_refused_without_waiting(tmp_path):
    os.mkfifo(tmp_path / NAME)
    with pytest.raises(ToucheError, match="it is a pipe, a device or a file of someone else's"):
        with folder_lock(tmp_path, NAME, "held"):
            pass
    assert stat.S_ISFIFO(os.lstat(tmp_path / NAME).st_mode)


def test_the_lock_file_is_made_as_every_output_is(tmp_path):
    umask = os.umask(0o022)
    os.umask(umask)
    with folder_lock(tmp_path, NAME, "held"):
        assert stat.S_IMODE(os.stat(tmp_path / NAME).st_mode) == 0o666 & ~umask
        first = (tmp_path / NAME).read_bytes()
    with folder_lock(tmp_path, NAME, "held"):
        second = (tmp_path / NAME).read_bytes()
    assert _a_lock_line(first) and _a_lock_line(second) and first != second  # a fresh token each time


def test_a_lock_that_vanishes_before_it_is_opened_is_placed_again(tmp_path, monkeypatch):
    placed = folderlock._place_lock_file
    calls = []

    def placed_then_removed_once(path):
        placed(path)
        calls.append(path)
        if len(calls) == 1:
            path.unlink()  # a finishing holder's clean-up, between our placing and our open

    monkeypatch.setattr(folderlock, "_place_lock_file", placed_then_removed_once)
    with folder_lock(tmp_path, NAME, "held"):
        assert len(calls) == 2 and _a_lock_line((tmp_path / NAME).read_bytes())


def test_a_lock_replaced_on_every_attempt_is_given_up_on(tmp_path, monkeypatch):
    """Not a race but someone's loop: after ATTEMPTS tries the command says so instead of spinning."""
    opened = []
    monkeypatch.setattr(folderlock, "_open_lock_file", lambda folder, name, path: opened.append(path))
    with pytest.raises(ToucheError, match=r"cannot take the lock \.touche\.lock: it keeps being replaced"):
        with folder_lock(tmp_path, NAME, "held"):
            pass
    assert len(opened) == folderlock.ATTEMPTS


def test_the_lock_a_killed_command_left_is_taken_over_and_removed(tmp_path):
    """A command killed while it holds the lock leaves its file; its lock died with it, so the
    next command takes the file over and removes it when done."""
    holder = subprocess.Popen([sys.executable, "-c", f"""
import sys
from pathlib import Path
from touche.folderlock import folder_lock
with folder_lock(Path({str(tmp_path)!r}), {NAME!r}, "held"):
    print("locked", flush=True)
    sys.stdin.read()
"""], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert holder.stdout.readline() == b"locked\n"
        with pytest.raises(ToucheError, match="held"):  # while it lives, its lock holds
            with folder_lock(tmp_path, NAME, "held"):
                pass
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    left = (tmp_path / NAME).read_bytes()
    assert _a_lock_line(left)
    with folder_lock(tmp_path, NAME, "held"):
        assert (tmp_path / NAME).read_bytes() == left  # taken over, not replaced
    assert not (tmp_path / NAME).exists()


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


def test_second_writer_to_the_same_output_is_refused(jvm_started, fixture_corpus, tmp_path):
    from touche.folderlock import folder_lock
    out = tmp_path / "out"
    out.mkdir()
    with folder_lock(out, ".touche.lock", "held"):  # another touche process is writing there
        code, text = cli("run-all", "-i", str(fixture_corpus), "-o", str(out))
    assert code == 2 and "another touche process is writing to this output directory" in text
    assert not list(out.glob("*.txt"))
