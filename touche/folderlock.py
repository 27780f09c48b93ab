"""One command at a time in an output folder: the lock file a run-all or a sweep holds while it
writes there, made so that a lock file is the toolkit's by its content and nothing else in its
place is written into or deleted (see docs/reliability.md, "What a command may touch")."""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import signal
import stat
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

from touche.atomic import TEMP_SUFFIX, TEMP_TOKEN
from touche.errors import Terminated, ToucheError


@contextlib.contextmanager
def sigterm_interrupts() -> Iterator[None]:
    """Within: SIGTERM raises ``Terminated`` (an interruption) instead of ending the process where it
    stands, so locks and temporaries are released on the way out. Only the main thread receives
    signals; elsewhere, and where a handler of someone else's is installed, nothing changes."""
    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGTERM) not in (signal.SIG_DFL, None):
        yield
        return

    def stop(signum, frame):
        raise Terminated()
    signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


@contextlib.contextmanager
def folder_lock(folder: Path, name: str, held_message: str, *, wait: float = 0.0) -> Iterator[None]:
    """One command at a time in ``folder``: an exclusive lock on ``folder/name``, removed after, so
    a finished folder holds what the command made only (TIRA uploads it whole); held by another
    process, refused with ``held_message`` at once or after ``wait`` seconds (two builds of one
    index: the second waits, then uses what the first built). The lock file is
    made whole (a line of ours with a random token, linked into place), so a lock file is the
    toolkit's exactly when it holds such a line: one a killed command left is taken over, anything
    else in its place (a file of someone else's, empty or not, a link, a pipe) is refused, never
    written into or deleted."""
    path = folder / name
    deadline = time.monotonic() + wait
    for _attempt in range(ATTEMPTS):
        fd = _open_lock_file(folder, name, path)
        if fd is None:
            continue  # removed between its placing and our open: place it again
        try:
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except OSError:
                    if time.monotonic() >= deadline:
                        raise ToucheError(held_message, path=folder) from None
                    time.sleep(POLL)
            if not _names_this_file(path, fd):
                continue  # its holder finished and removed it between our open and our lock: take the new one
            try:
                with sigterm_interrupts():  # a killed holder removes its lock too
                    yield
            finally:
                # still the lock file it holds, not something put in its place or written into
                with contextlib.suppress(OSError):
                    if _names_this_file(path, fd) and _holds_the_mark(fd):
                        path.unlink()
            return
        finally:
            os.close(fd)
    raise ToucheError(f"cannot take the lock {name}: it keeps being replaced", path=folder)


ATTEMPTS = 100  # a lock file replaced this often under us is someone's loop, not a race: said
POLL = 0.1  # seconds between two tries of a held lock while waiting for it


def _open_lock_file(folder: Path, name: str, path: Path) -> int | None:
    """An open descriptor of the lock file, placed first when missing; None when it vanished
    before it could be opened. Read through the descriptor, so what is checked is what is locked."""
    if not path.exists():  # a link to nowhere too: placing fails on it, and the open below says why
        with contextlib.suppress(FileExistsError):  # another command made it meanwhile: its lock decides
            _place_lock_file(path)
    try:
        fd = os.open(path, os.O_RDWR | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY)  # a device: no side effects
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ToucheError(f"cannot take the lock {name} ({exc.strerror}): remove it if it is a link or a folder",
                          path=folder) from None
    if not _holds_the_mark(fd):
        os.close(fd)
        raise ToucheError(f"cannot take the lock {name}: it is a pipe, a device or a file of someone else's (a lock "
                          "holds a line of touche's); remove it", path=folder)
    return fd


def _names_this_file(path: Path, fd: int) -> bool:
    """Whether ``path`` is still the file open as ``fd`` (not removed or replaced meanwhile)."""
    try:
        return os.lstat(path).st_ino == os.fstat(fd).st_ino
    except OSError:
        return False


# A lock's line: the words and a random token, as a temporary's name carries one: no file of
# anyone else's holds it by accident (a file holding just "touche lock" once passed for a lock and
# was deleted).
LOCK_PREFIX = b"touche lock "
LOCK_LINE = re.compile(rb"touche lock [0-9a-f]{32}\n")
LOCK_SIZE = len(LOCK_PREFIX) + 33


def lock_line() -> bytes:
    return LOCK_PREFIX + uuid.uuid4().hex.encode("ascii") + b"\n"


def _place_lock_file(path: Path) -> None:
    """The lock file with its line, appearing whole: written aside, then linked to its name (a
    link fails where anything exists, so nothing is replaced)."""
    temporary = path.with_name(f".{path.name}{TEMP_TOKEN}{os.getpid()}.{uuid.uuid4().hex[:12]}{TEMP_SUFFIX}")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o666)
    try:
        os.write(fd, lock_line())
    finally:
        os.close(fd)
    try:
        os.link(temporary, path)
    finally:
        temporary.unlink()


def _holds_the_mark(fd: int) -> bool:
    """A regular file holding a lock line of the toolkit's and nothing else."""
    info = os.fstat(fd)
    return (stat.S_ISREG(info.st_mode) and info.st_size == LOCK_SIZE
            and LOCK_LINE.fullmatch(os.pread(fd, LOCK_SIZE, 0)) is not None)
