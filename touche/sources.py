"""An input file is read once: a pipe or a process substitution (``<(cat run.txt)``, a FIFO) can be
read only once, so within one command (``reading()``) the first reader that asks reads it whole
into memory, and every later one (a look at its first line to tell a run from qrels, the format
detection, the validator, the scorer) gets the same bytes.

Why: each of those opened the path anew, so the second found the pipe drained. ``touche validate
<(cat run.txt)`` said "the run has no rows", ``evaluate run <(cat qrels)`` "line 1: expected 4
columns … found 2", and ``evaluate <(cat run) …`` "run file not found" (a pipe is no regular file).
A regular file is read from disk each time (it can be read again, and may be large).
"""
from __future__ import annotations

import contextlib
import contextvars
import io
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

from touche.budgets import MAX_STREAM_BYTES, READ_CHUNK
from touche.errors import InputError

# (device, inode) of each pipe read in the current command → its bytes
_READ: contextvars.ContextVar[dict[tuple[int, int], bytes] | None] = contextvars.ContextVar("touche_read",
                                                                                            default=None)


@contextlib.contextmanager
def reading() -> Iterator[None]:
    """One command's reads: a pipe read in it is kept for its later readers (nested: the outer
    command's). Outside of one, each reader reads a pipe for itself."""
    if _READ.get() is not None:
        yield
        return
    token = _READ.set({})
    try:
        yield
    finally:
        _READ.reset(token)


def is_stream(path: str | os.PathLike) -> bool:
    """Whether ``path`` is (or links to) a pipe, socket or character device: readable once."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode)


def exists(path: str | os.PathLike) -> bool:
    """A file or a stream a reader can open (``/dev/fd/63`` of a process substitution is one)."""
    return Path(path).is_file() or is_stream(path)


def read_bytes(path: str | os.PathLike, what: str = "input") -> bytes:
    """The content of ``path``: a regular file from disk, a stream once per command."""
    if not is_stream(path):
        return Path(path).read_bytes()
    info = os.stat(path)
    key = (info.st_dev, info.st_ino)
    memo = _READ.get()
    if memo is not None and key in memo:
        return memo[key]
    data = _drain(path, what)
    if memo is not None:
        memo[key] = data
    return data


def _drain(path: str | os.PathLike, what: str) -> bytes:
    chunks, size = [], 0
    with open(path, "rb") as handle:
        while chunk := handle.read(READ_CHUNK):
            size += len(chunk)
            if size > MAX_STREAM_BYTES:
                raise InputError(f"the {what} given as a pipe holds more than {MAX_STREAM_BYTES // 2**20} MB, which "
                                 "is held in memory to be read once: write it to a file and give that", path=path)
            chunks.append(chunk)
    return b"".join(chunks)


def open_text(path: str | os.PathLike, encoding: str = "utf-8-sig", what: str = "input",
              errors: str | None = None) -> TextIO:
    """``open(path, encoding=…)`` that reads a stream once per command (``read_bytes``)."""
    if not is_stream(path):
        return open(path, encoding=encoding, errors=errors)
    return io.TextIOWrapper(io.BytesIO(read_bytes(path, what)), encoding=encoding, errors=errors)


def regular_file(path: str | os.PathLike, what: str, missing: str = "") -> Path:
    """``path`` when it is a regular file (or a link to one), else a located InputError saying
    what is there instead: a model read from a folder was "not found", and one read from a
    device (``/dev/zero``) would have been read for ever. ``missing``: how to make one."""
    path = Path(path)
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        raise InputError(f"the {what} does not exist" + (f" ({missing})" if missing else ""), path=path) from None
    if stat.S_ISREG(mode):
        return path
    kind = "a folder" if stat.S_ISDIR(mode) else "a named pipe" if stat.S_ISFIFO(mode) else \
        "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "a socket"
    raise InputError(f"is {kind}, not the {what} (a file)", path=path)
