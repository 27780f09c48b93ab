"""The one way this toolkit writes an output file or folder: write beside it, then rename.

A reader (TIRA, a sweep resuming, a second process) sees the old file or the new one, never
half of one. Only a regular file (or nothing) is renamed over: ``-`` is standard output, and an
existing named pipe, character device or terminal (or a link to one: ``/dev/stdout``,
``/dev/null``) is written into, the whole text at once once it is complete; anything else (a
folder, a socket, a block device) is refused before any work (``check_output``). Renaming over
``/dev/null`` as root once replaced the machine's /dev/null with a regular file. Temporary names
share one pattern, ``.<name>.~touche.<pid>.<12 hex>.tmp``, so a later run removes the leftovers of
a killed one (``remove_stale_temporaries``, before every write): the ``~touche`` token and the
random part are what no user's file carries by accident (``.run.txt.999999.backup.tmp``, a
user's, was once deleted as a dead process' temporary). Files get the permissions
``open()`` would give them (0666 minus the umask), not ``mkstemp``'s 0600: a run written inside
a Docker container must stay readable to the host's user.
"""
from __future__ import annotations

import contextlib
import errno
import glob
import os
import re
import shutil
import stat
import sys
import tempfile
import time
import uuid
import zipfile
from pathlib import Path, PurePosixPath
from typing import IO, Callable, Iterator

from touche.errors import InputError, ToucheError
from touche.settings import setting

TEMP_SUFFIX = ".tmp"
TEMP_TOKEN = ".~touche."  # in every temporary's name: no user names a file so by accident
_TEMPORARY = re.compile(r"\.(?P<name>.+)\.~touche\.(?P<pid>[0-9]{1,10})\.[0-9a-f]{12}\.tmp")
STDOUT = "-"  # an output path that means standard output


def is_stdout(path: str | os.PathLike | None) -> bool:
    return path is not None and os.fspath(path) == STDOUT


def output_kind(path: str | os.PathLike) -> str:
    """How ``path`` is written: ``"stdout"`` (``-``), ``"stream"`` (an existing named pipe,
    character device or terminal, or a link to one: written into), ``"file"`` (a regular file,
    a link to one, or nothing yet: written beside, then renamed), or what else is there
    (``"folder"``, ``"socket"``, ``"block device"``), which no command writes."""
    if is_stdout(path):
        return "stdout"
    try:
        mode = os.stat(path).st_mode  # links followed, /dev/stdout's /proc link too
    except (FileNotFoundError, NotADirectoryError):
        return "file"  # nothing there yet (or a link to nothing: the link is replaced); its folder is made or refused
    except OSError as exc:
        raise ToucheError(f"cannot write here: {exc.strerror}", path=path) from None
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISFIFO(mode) or stat.S_ISCHR(mode):
        return "stream"
    return "folder" if stat.S_ISDIR(mode) else "socket" if stat.S_ISSOCK(mode) else \
        "block device" if stat.S_ISBLK(mode) else "special file"


def check_output(path: str | os.PathLike, what: str = "output") -> str:
    """``output_kind(path)``, or a located error when the ``what`` cannot be written there."""
    kind = output_kind(path)
    if kind == "folder":
        raise ToucheError(f"is a directory; give the {what}'s name", path=path)
    if kind not in ("stdout", "stream", "file"):
        raise ToucheError(f"is a {kind}, not a file: the {what} is written to a file, a named pipe, a character "
                          "device or standard output (-)", path=path)
    return kind


def prepare_output_directory(directory: Path) -> None:
    """Create ``directory`` if need be; a located error now, not after the work, when it cannot
    be created or written."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ToucheError(f"cannot create the output directory: {exc.strerror}", path=directory) from None
    if not os.access(directory, os.W_OK):
        raise ToucheError("the output directory is not writable", path=directory)


def check_writable(path: Path, what: str = "run file") -> str:
    """A located error now, not after the work, when the file ``path`` (a ``what``) could not be
    written; else how it is written (``output_kind``)."""
    kind = check_output(path, what)
    if kind == "file":
        prepare_output_directory(Path(path).parent)
    return kind


def temporary_name(path: Path) -> Path:
    """A unique hidden sibling of ``path`` in our naming pattern."""
    return path.with_name(f".{path.name}{TEMP_TOKEN}{os.getpid()}.{uuid.uuid4().hex[:12]}{TEMP_SUFFIX}")


def temporary_owner(candidate: Path | str, name: str | None = None) -> int | None:
    """The id of the process whose temporary ``candidate`` is (of the output ``name``, if given):
    None when the name does not follow our pattern exactly."""
    match = _TEMPORARY.fullmatch(Path(candidate).name)
    if match is None or (name is not None and match["name"] != name):
        return None
    return int(match["pid"])


def remove_stale_temporaries(path: Path) -> int:
    """Remove the temporaries of ``path`` that a killed process left (kill -9, a power cut): ours
    by their exact name, and their writer's process gone. A link is removed itself, never
    followed. Returns how many were removed."""
    removed = 0
    for candidate in path.parent.glob(f".{glob.escape(path.name)}{TEMP_TOKEN}*{TEMP_SUFFIX}"):
        pid = temporary_owner(candidate, path.name)
        if pid is None or pid == os.getpid() or process_alive(pid):
            continue
        with contextlib.suppress(OSError):
            if candidate.is_dir() and not candidate.is_symlink():
                shutil.rmtree(candidate)
            else:
                candidate.unlink()
            removed += 1
    return removed


def process_alive(pid: int) -> bool:
    """Whether a process with this id runs (a writer whose temporaries must stay). Signal 0 only
    asks: nothing is delivered to the process."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive
        return True
    return True


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike, mode: str = "w", *, encoding: str | None = "utf-8",
                newline: str | None = "\n", fsync: bool = False,
                check: Callable[[Path], None] | None = None) -> Iterator[IO]:
    """``with atomic_open(p) as f: f.write(...)``: ``p`` appears complete when the block ends
    without an exception; on any exception (KeyboardInterrupt included) nothing is left behind.
    ``check`` gets the written temporary file before it is moved in place (a run file is
    validated as written); it raises to refuse it."""
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_open writes files: mode 'w' or 'wb', not {mode!r}")
    if check_output(path) != "file":
        with _into_stream(path, mode, encoding=encoding, newline=newline, check=check) as handle:
            yield handle
        return
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(path)
    temporary = temporary_name(path)
    # os.open with 0o666 lets the umask decide the final permissions, as open() does.
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        if mode == "wb":
            handle = os.fdopen(descriptor, "wb")
        else:
            handle = os.fdopen(descriptor, "w", encoding=encoding, newline=newline)
        with handle:
            yield handle
            handle.flush()
            if fsync:
                os.fsync(handle.fileno())
        if check is not None:
            check(temporary)
        os.replace(temporary, path)
        if fsync:  # the rename itself survives a power cut only once its folder is synced
            _sync_folder(path.parent)
    except BaseException as exc:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        if isinstance(exc, OSError) and not exc.filename:
            # A failed write or flush (a full disk) names no file, and the flush on close raises
            # again over the first error: say which output could not be written.
            raise OSError(exc.errno, f"{exc.strerror or exc} (while writing it; nothing was left behind)",
                          str(path)) from exc
        raise


def _sync_folder(folder: Path) -> None:
    """Sync a folder's entries (where the file system can: not every one opens a folder)."""
    try:
        descriptor = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass  # e.g. EINVAL on a file system that does not sync folders: the file itself is synced
    finally:
        os.close(descriptor)


@contextlib.contextmanager
def _into_stream(path: str | os.PathLike, mode: str, *, encoding: str | None, newline: str | None,
                 check: Callable[[Path], None] | None) -> Iterator[IO]:
    """Standard output, a pipe or a device gets the text only once it is whole (and checked):
    it is written to a private temporary file first, then copied in; the stream itself is
    opened for writing, never replaced."""
    with tempfile.TemporaryDirectory(prefix="touche-output-") as folder:
        temporary = Path(folder) / "output"
        handle: IO
        if mode == "wb":
            handle = open(temporary, "wb")
        else:
            handle = open(temporary, "w", encoding=encoding, newline=newline)
        with handle:
            yield handle
        if check is not None:
            check(temporary)
        with open(temporary, "rb") as source:
            if is_stdout(path) and hasattr(sys.stdout, "buffer"):
                sys.stdout.flush()
                shutil.copyfileobj(source, sys.stdout.buffer)
                sys.stdout.buffer.flush()
            elif is_stdout(path):  # a text stream only (redirect_stdout, a notebook): text goes as text
                if mode == "wb":
                    raise ToucheError("standard output here takes text only: give a file name for this output")
                sys.stdout.write(source.read().decode(encoding or "utf-8"))
            else:
                with _open_stream(path) as stream:  # O_WRONLY on a pipe or device: no rename, no unlink
                    shutil.copyfileobj(source, stream)


def _open_stream(path: str | os.PathLike) -> IO[bytes]:
    """A pipe or a device opened for writing. A named pipe is waited on for a reader for
    ``TOUCHE_PIPE_WAIT`` seconds, then refused: opened plainly, a pipe nobody reads blocks the
    command for ever, its work done and nothing said."""
    if not stat.S_ISFIFO(os.stat(path).st_mode):
        return open(path, "wb")
    wait = setting("TOUCHE_PIPE_WAIT")
    deadline = time.monotonic() + wait
    while True:
        try:
            fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
            break
        except OSError as exc:
            if exc.errno != errno.ENXIO:  # ENXIO: nobody has it open for reading yet
                raise
            if time.monotonic() >= deadline:
                raise ToucheError(f"no process reads this named pipe (waited {wait:g} s, TOUCHE_PIPE_WAIT): start its "
                                  "reader first, or give a file name", path=path) from None
            time.sleep(0.05)
    os.set_blocking(fd, True)  # the reader is there: write at its pace
    return os.fdopen(fd, "wb")


def write_text(path: str | os.PathLike, text: str, *, encoding: str = "utf-8", newline: str | None = "") -> Path:
    """``text`` as it is (newlines not translated)."""
    with atomic_open(path, "w", encoding=encoding, newline=newline) as handle:
        handle.write(text)
    return Path(path)


def write_bytes(path: str | os.PathLike, data: bytes) -> Path:
    with atomic_open(path, "wb") as handle:
        handle.write(data)
    return Path(path)


@contextlib.contextmanager
def atomic_directory(target: str | os.PathLike) -> Iterator[Path]:
    """Build a folder under a temporary name and rename it into place when the block succeeds (a
    fetched corpus). ``target`` must not exist or be an empty folder: nothing of anyone's is
    deleted to make room. On failure the partial folder is removed."""
    target = Path(target)
    if target.is_symlink() or (target.exists() and not target.is_dir()):
        raise ToucheError("exists and is not a folder of its own (a link or a file): it would be deleted to make "
                          "room; remove it or give another folder", path=target)
    if target.is_dir() and any(target.iterdir()):
        raise ToucheError("the folder exists and is not empty: nothing is replaced; give a new one", path=target)
    target.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(target)
    temporary = temporary_name(target)
    temporary.mkdir()
    try:
        yield temporary
        if target.is_dir() and not target.is_symlink():
            target.rmdir()  # empty, or this fails: nothing that appeared meanwhile is deleted
        os.replace(temporary, target)
    except BaseException:
        shutil.rmtree(temporary, ignore_errors=True)
        raise


def unpack(archive: zipfile.ZipFile, folder: Path, *, on_member: Callable[[int], None] | None = None) -> None:
    """Extract the files of ``archive`` into ``folder``, a temporary of the toolkit's being built
    (an unpacked model, an extracted collection): a file already there at its full size is kept
    (a killed extraction resumes). A member whose name leaves the folder is refused, and so is a
    link or anything else than a file or a folder on a member's way: nothing is written through
    it. ``on_member`` gets each member's size once it is there."""
    root = Path(folder)
    for member in archive.infolist():
        parts = PurePosixPath(member.filename).parts
        if member.filename.startswith("/") or ".." in parts or "\\" in member.filename:
            raise InputError(f"zip member escapes the folder: {member.filename}", path=archive.filename)
        if member.is_dir():
            continue
        relative = Path(*parts)
        out = root / relative
        for step in [*reversed(relative.parents[:-1]), relative]:  # a, a/b, then a/b/file
            try:
                mode = os.lstat(root / step).st_mode
            except FileNotFoundError:
                break
            if stat.S_ISLNK(mode) or not (stat.S_ISREG(mode) if step == relative else stat.S_ISDIR(mode)):
                raise ToucheError("is a link or no file or folder where an archive member goes: nothing is "
                                  "written through it; remove it", path=root / step)
        if not (out.is_file() and out.stat().st_size == member.file_size):
            archive.extract(member, root)
        if on_member is not None:
            on_member(member.file_size)
