"""The output guard: no command replaces what it reads, writes one file twice, or writes through a
link it did not make.

Every command declares the files and folders it reads and the files and folders it writes
(``Files``; each ``touche/cli`` module's ``files(args)``), and ``check`` (both in
``touche/readwrite.py``, served here as ``guard.Files`` and ``guard.check``) refuses, before any work, an
output that is, or resolves to (symlinks followed), one of its inputs, lies inside an input
folder (a corpus folder, an image collection), or is another of its outputs. Library functions
that decide their outputs later (a suite's run files, the files ``choose`` writes) call ``check``
with the full list before they write the first one; the Python API goes through the same calls.
A folder a command fills (run-all's output, a sweep's and its ``runs/`` and ``sets/``, choose's,
a corpus link folder) is an ``OutputFolder``, the one owner of every path in it: the command
writes, replaces and deletes there only what the folder's record (``.touche-made``) says it made,
unchanged since (a file by its content, a link by its target and inode, a folder as a real
folder), and everything else is left alone or refused before any work. Its subfolders are
``OutputFolder``s too, never a link followed out of it: a sweep once wrote a user's ``topics.xml``
through a ``sets`` link, run-all deleted a user's ``evaluation.md``, and a run file linked to a
device was written into and then copied back empty. A record that names what the command did not
make (forged, stale, copied from elsewhere) gives no licence: the content must match.

Every location a user names for the toolkit to keep things in (an index root, a cache, the helper
jar's folder: by a flag, a setting, the API or their defaults) is an ``OutputFolder`` too
(``named_location``): what is built there is built aside under a temporary of the writer's naming
and placed only where nothing is (``building``), moved only when it is the very thing the toolkit
made (``take``), and taken as the toolkit's without a record only where its content says so
(``adopt``: a jar of our classes only, a shard built on another machine). The index builder once
deleted a user's folder in an index's place, and the jar's compilation renamed itself over a
user's file.
"""
from __future__ import annotations

import contextlib
import glob
import json
import os
import shutil
import stat
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO

from touche.atomic import (
    TEMP_SUFFIX,
    TEMP_TOKEN,
    atomic_open,
    process_alive,
    remove_stale_temporaries,
    temporary_name,
    temporary_owner,
)
from touche.errors import ToucheError
from touche.readwrite import Files, _resolved  # noqa: F401 (what a command reads and writes: guard.Files)
from touche.readwrite import check as check  # served as guard.check
from touche.record import (  # noqa: F401 (the record's names, as the guard's users know them)
    BOOKKEEPING,
    LOCKS,
    OLD_RECORDS,
    RECORD,
    Made,
    _after,
    _appended_lines,
    _plain_name,
    read_record,
)

PathLike = str | os.PathLike[str]


def _append_whole(path: Path, data: bytes) -> int:
    """Append ``data`` to ``path`` (made if absent, never through a link), synced; its size before.
    A write cut short (a full disk) is cut off again, so the file holds whole appends only, and
    the OSError names the file; a file this call made is removed then."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o666)
    size, done = os.fstat(fd).st_size, 0
    try:
        while done < len(data):  # os.write may write less than asked
            done += os.write(fd, data[done:])
        os.fsync(fd)
    except OSError as exc:
        with contextlib.suppress(OSError):
            if os.fstat(fd).st_size == size + done:  # nothing another process appended after it
                os.ftruncate(fd, size)
                if size == 0:
                    os.unlink(path)
        raise OSError(exc.errno, exc.strerror, str(path)) from exc
    finally:
        os.close(fd)
    return size


# ------------------------------------------------------------------- folders a command fills
def made_folder(path: PathLike, what: str = "output folder") -> Path:
    """Create ``path`` (and its parents) as a real folder; refuse when it exists as a symlink or as
    something else than a folder. A command writes and deletes in folders it made, never in the
    folder a link of someone else's points to."""
    path = Path(path)
    if path.is_symlink():
        raise ToucheError(f"the {what} is a symbolic link (to {os.readlink(path)}): the command makes this folder "
                          "itself and would write and delete in the folder the link points to; remove the link "
                          "or give another folder", path=path)
    if path.exists() and not path.is_dir():
        raise ToucheError(f"the {what} exists and is not a folder", path=path)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ToucheError(f"cannot create the {what}: {exc.strerror}", path=path) from None
    return path



TOOLKIT = "touche"  # who makes what an index root or a cache holds: every command of the toolkit alike
RECENT = 10.0  # seconds: a folder this new may be another process's, about to be recorded


def named_location(path: PathLike, what: str) -> "OutputFolder":
    """A folder a user names for the toolkit to keep things in (an index root, a cache: by a flag,
    a setting, an argument or their default), owned as an output folder is: the toolkit creates,
    replaces and deletes there only what its record says it made. The folder itself may be a link
    its user made to keep it on another disk (followed once, to the folder they meant); nothing
    inside it is followed."""
    path = Path(path)
    if path.is_symlink() and Path(os.path.realpath(path)).is_dir():
        path = Path(os.path.realpath(path))
    return OutputFolder(path, what, command=TOOLKIT)


def _listed(names: Iterable[str], shown: int = 8) -> str:
    names = sorted(names)
    return ", ".join(names[:shown]) + (f" and {len(names) - shown} more" if len(names) > shown else "")


class OutputFolder:
    """A folder a command fills, and the one owner of every path in it.

    The command writes, replaces and deletes here only through this object, and only what the
    record says it made, unchanged since; a name it means to write that holds anything else (a
    user's file, a link, a pipe, a file it made but someone edited) is refused, before any work
    when the command ``claim``s its names first. Subfolders are ``folder(name)``: made here or
    recorded as made here, never a link followed out. Everything else is left alone."""

    def __init__(self, path: PathLike, what: str = "output folder", *, command: str = "this command"):
        self.path = made_folder(path, what)
        self.what = what
        self.command = command
        self.made = read_record(self.path)

    def __repr__(self) -> str:
        return f"OutputFolder({str(self.path)!r})"

    # ----------------------------------------------------------------------- licences
    def ours(self, name: str) -> bool:
        """Whether the entry ``name`` is what this command made there, unchanged."""
        entry = self.made.get(name)
        return entry is not None and entry.command == self.command and entry.matches(self.path / name)

    def foreign(self, name: str) -> str | None:
        """Why the command may not replace or delete ``name`` (None: absent, or its own)."""
        path = self.path / name
        if not (path.exists() or path.is_symlink()):
            return None
        if self.ours(name):
            return None
        if name in self.made and self.made[name].command != self.command:
            return f"what {self.made[name].command or 'another command'} made, not {self.command}"
        if name in self.made:
            return f"changed since {self.command} made it (its content or kind is not what it wrote)"
        if path.is_symlink():
            return f"a link (to {os.readlink(path)}), which {self.command} would write through"
        kind = "a folder" if path.is_dir() else "a file" if path.is_file() else "a pipe, device or socket"
        return f"{kind} {self.command} did not make (its record, {RECORD}, does not name it)"

    def claim(self, names: Iterable[str], *, refuse: Callable[[Path], bool] = lambda entry: False,
              because: str = "") -> "OutputFolder":
        """Before any work: refuse (one located error listing them) the ``names`` the command will
        write that hold something it did not make, and the other entries ``refuse`` selects that it
        did not make (a run file run-all did not write would be submitted with its own)."""
        names = set(names)
        record = self.path / RECORD
        if record.is_symlink() or (record.exists() and not record.is_file()):
            raise ToucheError(f"{RECORD}, where {self.command} records what it makes, is a link or no file: remove "
                              "it", path=record)
        self._compact()
        blocked = {name: why for name in names if (why := self.foreign(name))}
        others = [e.name for e in self._entries() if e.name not in names and e.name not in BOOKKEEPING
                  and temporary_owner(e.name) is None and refuse(e) and not self.ours(e.name)]
        if blocked:
            first, why = sorted(blocked.items())[0]
            raise ToucheError(f"the {self.what} holds {len(blocked)} entr{'y' if len(blocked) == 1 else 'ies'} "
                              f"{self.command} would replace but did not make ({_listed(blocked)}): {first} is {why}; "
                              "remove or rename them, or give another folder", path=self.path)
        if others:
            raise ToucheError(f"the {self.what} holds {len(others)} file(s) {self.command} did not make "
                              f"({_listed(others)}); {because or 'they would pass for its own'}: remove them or "
                              "give another folder", path=self.path)
        return self

    def check_writable(self, name: str) -> Path:
        """The path of ``name``, or a located error when the command may not replace it."""
        if not _plain_name(name) or name in BOOKKEEPING:
            raise ValueError(f"not an entry name a command writes: {name!r}")
        why = self.foreign(name)
        if why:
            raise ToucheError(f"{name} in the {self.what} is {why}; {self.command} replaces only what it made: "
                              "remove or rename it, or give another folder", path=self.path / name)
        return self.path / name

    def _compact(self) -> None:
        """Rewrite a record grown long (a line per write, over many calls) as one line per entry it
        still names; by the command that claims the folder, while no worker appends."""
        record = self.path / RECORD
        try:
            lines = sum(1 for _ in record.open("rb")) if stat.S_ISREG(os.lstat(record).st_mode) else 0
        except OSError:
            return
        if lines > 2 * sum(1 + len(entry.earlier) for entry in self.made.values()) + 64:
            with atomic_open(record, "w") as handle:
                handle.writelines(line for name, entry in sorted(self.made.items()) for line in entry.lines(name))

    def _entries(self) -> list[Path]:
        return list(self.path.iterdir())

    def _note(self, name: str, entry: Made | None, *, undo: Callable[[], None] | None = None) -> None:
        """Append what ``name`` now is (None: gone) to the record, one whole line, synced. When the
        line cannot be written (a full disk), the record is cut back to what it held, ``undo``
        takes back what the line was to record (so nothing is left that the record does not name),
        and the error names the record: a full disk once left ``.touche-made`` empty, and the
        command then refused its own run file as one it did not make."""
        line = (entry.line(name) if entry is not None else json.dumps({"name": name, "gone": True}) + "\n").encode()
        record = self.path / RECORD
        with contextlib.suppress(FileNotFoundError):
            if not stat.S_ISREG(os.lstat(record).st_mode):
                raise ToucheError(f"{RECORD}, where {self.command} records what it made, is a link or no file: "
                                  "remove it", path=record)
        try:
            _append_whole(record, line)
        except OSError as exc:
            if undo is not None:
                with contextlib.suppress(OSError):
                    undo()
            raise OSError(exc.errno, f"{exc.strerror or exc} (while recording {name} in it; the record was left as it "
                                     "was" + (f" and {name} taken back" if undo is not None else "") + ")",
                          str(record)) from exc
        if entry is None:
            self.made.pop(name, None)
        else:
            self.made[name] = _after(self.made.get(name), entry)

    # ----------------------------------------------------------------------- writes
    @contextlib.contextmanager
    def open(self, name: str, mode: str = "w", *, check: Callable[[Path], None] | None = None,
             **options) -> Iterator[IO]:
        """``atomic_open`` of the entry ``name``: refused now unless absent or its own, checked
        again and recorded just before the rename (the record never lacks what is there)."""
        path = self.check_writable(name)
        before = self.made.get(name)
        noted = False

        def checked(temporary: Path) -> None:
            nonlocal noted
            if check is not None:
                check(temporary)
            self.check_writable(name)  # nothing slipped in while the text was written
            # Recorded before the rename (the rename keeps the file's inode and time): a record that
            # cannot be written leaves the old file in place, never a new one the record lacks.
            self._note(name, Made.of(temporary, self.command))
            noted = True

        try:
            with atomic_open(path, mode, check=checked, **options) as handle:
                yield handle
        except BaseException:
            if noted:  # recorded, then not renamed: the record names again what is there
                with contextlib.suppress(OSError):
                    self._note(name, before if before is not None and before.matches(path) else None)
            raise

    def write_text(self, name: str, text: str, *, newline: str | None = "") -> Path:
        with self.open(name, "w", newline=newline) as handle:
            handle.write(text)
        return self.path / name

    def write_bytes(self, name: str, data: bytes) -> Path:
        with self.open(name, "wb") as handle:
            handle.write(data)
        return self.path / name

    def append(self, name: str, data: bytes) -> None:
        """One O_APPEND write of ``data``, synced (a results file that grows a line per run).
        ``data`` is JSON lines: what follows a recorded state is judged the command's by that."""
        if not _appended_lines(data):
            raise ValueError(f"{name}: only JSON lines are appended, got {data[:40]!r}")
        path = self.check_writable(name)
        existed = path.exists() or path.is_symlink()
        if existed and not stat.S_ISREG(os.lstat(path).st_mode):
            raise ToucheError(f"{name} in the {self.what} is a link or a folder, not a file {self.command} appends "
                              "to", path=path)
        size = _append_whole(path, data)

        def take_back() -> None:  # the file as its record last saw it, unless another worker appended since
            if os.stat(path).st_size == size + len(data):
                if existed:
                    os.truncate(path, size)
                else:
                    path.unlink()
        self._note(name, Made.of(path, self.command, grows=True), undo=take_back)

    def remove(self, name: str) -> bool:
        """Delete ``name`` if it is the command's own, unchanged (a file or a link; a folder only
        when it holds nothing but its record); leave anything else. Whether it was removed."""
        if not self.ours(name):
            return False
        path = self.path / name
        if self.made[name].kind == "folder":
            try:
                if [entry.name for entry in path.iterdir()] == [RECORD] and (path / RECORD).is_file() \
                        and not (path / RECORD).is_symlink():
                    (path / RECORD).unlink()  # what it recorded there is gone: the record names nothing left
                path.rmdir()
            except OSError:
                return False
        else:
            path.unlink()
        self._note(name, None)
        return True

    def folder(self, name: str, what: str | None = None, *,
               adopt: bool | Callable[[Path], bool] = False) -> "OutputFolder":
        """The subfolder ``name``, made here (and recorded) or recorded as made here: its own
        ``OutputFolder``. A link, a file or a folder the record does not name is refused; with
        ``adopt`` (or when ``adopt(path)`` says so), a real folder the record does not name is taken
        as one the toolkit made elsewhere or before records were kept (a cache's folder, a name only
        the toolkit gives): recorded, and what it holds left as it is, since its entries are not
        recorded (read, never replaced)."""
        path = self.path / name
        made = False
        if not (path.exists() or path.is_symlink()):
            with contextlib.suppress(FileExistsError):
                path.mkdir()
                made = True
        if not made and not self.ours(name):
            self._await_record(name)
            if not (adopt and name not in self.made and stat.S_ISDIR(os.lstat(path).st_mode)
                    and (adopt is True or adopt(path))):
                self.check_writable(name)
        what = what or f"{name} folder of the {self.what}"
        child = OutputFolder(path, what, command=self.command)
        if not self.ours(name):
            self._note(name, Made.of(path, self.command), undo=path.rmdir if made else None)
        return child

    def _await_record(self, name: str) -> None:
        """A folder made a moment ago by another process of the same command (two sweep workers
        filling one cache) is recorded by it right after, before anything is put in it: read the
        record again for a second before taking a new, empty folder for someone else's."""
        try:
            info = os.lstat(self.path / name)
            if not stat.S_ISDIR(info.st_mode) or time.time() - info.st_ctime > RECENT:
                return
            with os.scandir(self.path / name) as entries:
                if next(entries, None) is not None:
                    return
        except OSError:
            return
        for _ in range(20):
            self.made = read_record(self.path)
            if self.ours(name):
                return
            time.sleep(0.05)

    # ------------------------------------------------------------------ whole entries built aside
    @contextlib.contextmanager
    def building(self, name: str, *, folder: bool = True, resume: bool = False, in_place: bool = False
                 ) -> Iterator[Path]:
        """A temporary of the writer's naming beside ``name`` for the toolkit (Lucene, an unpacker,
        the jar tool) to fill: a folder made now, or (``folder=False``) the path of a file a tool
        creates; placed at ``name`` when the block ends without an error, removed otherwise.
        ``name`` is checked now, before any work, and again just before the placing: a folder goes
        only where nothing is (what a folder holds is no one's to replace), a file only where
        nothing or a file of the command's own is. A folder another process of the command placed
        meanwhile (the same build) is kept and the temporary dropped. ``resume``: the temporary a
        killed build left (of a dead process, ours by its name) is taken over, its work kept.
        ``in_place``: a file the command then changes in place (``Made.in_place``)."""
        path = self.check_writable(name)
        if folder and (path.exists() or path.is_symlink()):
            raise ToucheError(f"{name} in the {self.what} exists: {self.command} places a folder only where nothing "
                              "is; remove or rename it, or give another folder", path=path)
        temporary = self._taken_over(path) if resume else None
        remove_stale_temporaries(path)
        if temporary is None:
            temporary = temporary_name(path)
            if folder:
                temporary.mkdir()
        try:
            yield temporary
            self._place(name, temporary, folder, in_place)
        except BaseException:
            if folder:
                shutil.rmtree(temporary, ignore_errors=True)
            else:
                with contextlib.suppress(FileNotFoundError):
                    temporary.unlink()
            raise

    def _taken_over(self, path: Path) -> Path | None:
        """The newest folder a killed build of ``path`` left, renamed as this process's temporary
        (a rename: two resuming processes never share it); None when there is none."""
        found = []
        for candidate in self.path.glob(f".{glob.escape(path.name)}{TEMP_TOKEN}*{TEMP_SUFFIX}"):
            pid = temporary_owner(candidate, path.name)
            with contextlib.suppress(OSError):
                if pid is not None and pid != os.getpid() and not process_alive(pid) \
                        and stat.S_ISDIR(os.lstat(candidate).st_mode):
                    found.append((os.lstat(candidate).st_mtime_ns, candidate))
        for _, candidate in sorted(found, reverse=True):
            mine = temporary_name(path)
            with contextlib.suppress(OSError):
                os.rename(candidate, mine)
                return mine
        return None

    def _place(self, name: str, temporary: Path, folder: bool, in_place: bool = False) -> None:
        path = self.path / name
        if folder:
            self.made = read_record(self.path)
            if self.ours(name):  # placed meanwhile by another process of the command: the same build
                shutil.rmtree(temporary, ignore_errors=True)
                return
            self.check_writable(name)
            if path.exists() or path.is_symlink():
                raise ToucheError(f"{name} appeared in the {self.what} while {self.command} built it; it is kept and "
                                  "what was built dropped: remove or rename it, and run again", path=path)
            os.rename(temporary, path)
        else:
            self.check_writable(name)  # nothing slipped in while it was built
            os.replace(temporary, path)
        self._note(name, Made.of(path, self.command, in_place=in_place))

    def intact(self, name: str) -> bool:
        """Whether ``name`` is the command's own and, a folder, the very folder it made (its inode):
        what may be moved whole elsewhere, contents and all."""
        if not self.ours(name):
            return False
        entry = self.made[name]
        return entry.kind != "folder" or os.lstat(self.path / name).st_ino == entry.inode

    def take(self, name: str, into: Path) -> None:
        """Move the entry ``name``, the command's own and ``intact``, to ``into`` (a temporary being
        built: finished shards moved into their index)."""
        if not self.intact(name):
            raise ToucheError(f"{name} in the {self.what} is {self.foreign(name) or 'not the folder it made'}; "
                              f"{self.command} moves only what it made", path=self.path / name)
        os.rename(self.path / name, into)
        self._note(name, None)

    def adopt(self, name: str, recognised: Callable[[Path], bool], *, in_place: bool = False) -> bool:
        """Whether ``name`` is the command's own, recording it first when the record does not name
        it and ``recognised`` tells it by its content for what the toolkit makes there (a helper
        jar of our classes only, made before records were kept; a shard built on another machine):
        a regular file or a real folder, never a link."""
        if self.ours(name):
            return True
        path = self.path / name
        try:
            mode = os.lstat(path).st_mode
        except OSError:
            return False
        if name in self.made or not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)) or not recognised(path):
            return False
        self._note(name, Made.of(path, self.command, in_place=in_place))
        return True

    def create(self, name: str, data: bytes) -> bool:
        """Create the file ``name`` holding ``data`` only where nothing is (one process of many
        wins); whether this call created it."""
        path = self.check_writable(name)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o666)
        except FileExistsError:
            return False
        try:
            os.write(fd, data)
        finally:
            os.close(fd)
        self._note(name, Made.of(path, self.command), undo=path.unlink)
        return True

    def link(self, name: str, target: Path) -> None:
        """Make the link ``name`` → ``target`` (replacing only a link of its own)."""
        path = self.check_writable(name)
        if path.is_symlink():
            path.unlink()
        path.symlink_to(target)
        self._note(name, Made.of(path, self.command), undo=path.unlink)


class LinkFolder:
    """A folder of symlinks a command keeps (a corpus given as a list of files), read whole as a
    corpus: anything in it the command did not make is refused (it would be indexed beside the
    listed files), never replaced or deleted."""

    def __init__(self, folder: PathLike | OutputFolder, what: str = "corpus folder"):
        self.output = folder if isinstance(folder, OutputFolder) else None
        self.folder = Path(folder.path if isinstance(folder, OutputFolder) else folder)
        self.what = what

    def sync(self, wanted: dict[str, Path]) -> None:
        """Make the folder hold exactly these links (name → target) among the ones it made."""
        links = self.output or OutputFolder(self.folder, self.what, command="this command")
        links.what = self.what
        wanted = {name: _resolved(target) for name, target in wanted.items()}
        foreign = [e.name for e in links._entries() if e.name not in BOOKKEEPING and temporary_owner(e.name) is None
                   and not links.ours(e.name) and not self._links_to(e, wanted)]
        if foreign:
            raise ToucheError(f"the {self.what} holds {len(foreign)} file(s) this command did not make "
                              f"({_listed(foreign)}); it is read whole as the corpus, so they would be indexed "
                              "beside the listed files: remove them or give another folder", path=self.folder)
        for name in sorted(set(links.made) - wanted.keys()):
            links.remove(name)
        for name, target in wanted.items():
            path = self.folder / name
            if path.is_symlink() and _resolved(path) == target:
                if not links.ours(name):
                    links._note(name, Made.of(path, links.command))  # a right link made before its record
                continue
            links.link(name, target)

    @staticmethod
    def _links_to(entry: Path, wanted: dict[str, Path]) -> bool:
        """A link at a wanted name that already points where it should (made before its record)."""
        return entry.name in wanted and entry.is_symlink() and _resolved(entry) == wanted[entry.name]
