"""The output guard: no command replaces what it reads, writes one file twice, or writes through a
link it did not make.

Every command declares the files and folders it reads and the files and folders it writes
(``Files``; each ``touche/cli`` module's ``files(args)``), and ``check`` refuses, before any work, an
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
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO

from touche.atomic import atomic_open, check_output, is_stdout, temporary_owner
from touche.errors import ToucheError

PathLike = str | os.PathLike[str]


@dataclass(frozen=True)
class Files:
    """What a command reads and writes: ``(what, path)`` pairs, named for the messages."""
    reads: tuple[tuple[str, Path], ...] = ()
    writes: tuple[tuple[str, Path], ...] = ()
    folders: tuple[tuple[str, Path], ...] = ()  # folders it creates (or fills) with files of its own

    @classmethod
    def of(cls, reads: Iterable[tuple[str, PathLike | None]] = (), writes: Iterable[tuple[str, PathLike | None]] = (),
           folders: Iterable[tuple[str, PathLike | None]] = ()) -> "Files":
        """Leaves out the entries whose path is None (an option not given)."""
        def kept(pairs):  # an ir_datasets id (irds:…) is no file of the user's
            return tuple((what, Path(p)) for what, p in pairs
                         if p is not None and str(p) != "" and not str(p).startswith("irds:"))
        return cls(kept(reads), kept(writes), kept(folders))

    def __add__(self, other: "Files") -> "Files":
        return Files(self.reads + other.reads, self.writes + other.writes, self.folders + other.folders)


def _resolved(path: Path) -> Path:
    return Path(os.path.realpath(path))  # symlinks followed, also for a file that does not exist yet


def _inside(path: Path, folder: Path) -> bool:
    return path != folder and folder in path.parents


def _is_character_device(path: Path) -> bool:
    try:
        return stat.S_ISCHR(os.stat(path).st_mode)
    except OSError:
        return False


def check(files: Files) -> None:
    """Refuse (ToucheError naming both) an output that is, or resolves to, an input or another
    output, an output inside an input folder, an output folder that is an input or holds one
    the command would replace, an output file that is one of the command's folders (or would
    hold one), and an output that is no file (a folder, a socket; ``-``, a pipe or a device is
    written into)."""
    reads = [(what, given, _resolved(given)) for what, given in files.reads]
    read_folders = [(what, given, real) for what, given, real in reads if real.is_dir()]
    streams = [(what, given) for what, given in files.writes if is_stdout(given)]
    if len(streams) > 1:
        raise ToucheError(f"the {streams[0][0]} and the {streams[1][0]} both go to standard output (-), where they "
                          "would run into each other; give one of them a file name")
    outputs = [(what, given, _resolved(given)) for what, given in files.writes if not is_stdout(given)]
    folders = [(what, given, _resolved(given)) for what, given in files.folders]
    for i, (what, given, real) in enumerate(outputs):
        check_output(given, what)
        for in_what, in_given, in_real in reads:
            if real == in_real:
                raise ToucheError(f"the {what} would replace the {in_what} it reads ({in_given}); "
                                  "give another output name", path=given)
        for in_what, in_given, in_real in read_folders:
            if _inside(real, in_real):
                raise ToucheError(f"the {what} would be written inside the {in_what} ({in_given}), which the "
                                  "command reads; write it elsewhere", path=given)
        for other_what, other_given, other_real in outputs[:i]:
            if real == other_real and _is_character_device(real):
                continue  # /dev/null twice: each written into whole, nothing replaced
            if real == other_real and check_output(given, what) == "stream":
                raise ToucheError(f"the {what} and the {other_what} both go to the named pipe {other_given}, where "
                                  "they would run into each other; give one of them a file name", path=given)
            if real == other_real:
                raise ToucheError(f"the {what} and the {other_what} are one file ({other_given}): the second "
                                  "would replace the first; give each its own name", path=given)
        for folder_what, folder_given, folder_real in folders:
            if real == folder_real or _inside(folder_real, real):
                raise ToucheError(f"the {what} is the {folder_what} ({folder_given}), or a folder the command "
                                  "fills lies inside it: one path cannot be both; give each its own", path=given)
    for what, given, real in folders:
        for in_what, in_given, in_real in reads:
            if real == in_real or _inside(real, in_real):
                raise ToucheError(f"the {what} is the {in_what} it reads, or lies inside it ({in_given}); "
                                  "give another folder", path=given)


# ------------------------------------------------------------------- folders a command fills
# What a command made in a folder, one JSON line per write (appended: workers of one sweep write
# into one runs/ folder at once). Hidden, and no suffix a corpus reader looks for.
RECORD = ".touche-made"
# Records of toolkits before content was recorded: never trusted, never refused (a rerun in such a
# folder refuses to replace what they name, since nothing says it is unchanged).
OLD_RECORDS = frozenset({".touche-links"})
LOCKS = frozenset({".touche.lock", ".sweep.lock"})
BOOKKEEPING = frozenset({RECORD, *LOCKS, *OLD_RECORDS})


def _content_digest(path: Path) -> str:
    """The SHA-256 of the file's content."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


@dataclass(frozen=True)
class Made:
    """An entry as the command left it: what licenses replacing or deleting it later. A file is
    known by its content (a copied or moved folder keeps the licence; an edited file loses it);
    its stat at the time only spares hashing it again when nothing has changed."""
    kind: str  # "file" | "folder" | "link"
    size: int = 0
    sha256: str = ""
    target: str = ""  # a link's
    inode: int = 0
    mtime_ns: int = 0
    grows: bool = False  # a file of JSON lines the command appends to: its own while it begins with
    # what it wrote and goes on with JSON lines only (whole, or torn by a crash)
    command: str = ""  # which command made it: one folder may hold what two commands made
    # a growing file's earlier (size, sha256) states, from the record's earlier lines: a power cut
    # may keep the record's last line and lose the file's last append, leaving an earlier state
    earlier: tuple[tuple[int, str], ...] = field(default=(), compare=False)

    @classmethod
    def of(cls, path: Path, command: str, *, grows: bool = False) -> "Made":
        info = os.lstat(path)
        if stat.S_ISLNK(info.st_mode):
            return cls("link", target=os.readlink(path), inode=info.st_ino, command=command)
        if stat.S_ISDIR(info.st_mode):
            return cls("folder", inode=info.st_ino, command=command)
        if not stat.S_ISREG(info.st_mode):
            raise ToucheError("is no file, folder or link: a command makes none of those", path=path)
        return cls("file", info.st_size, _content_digest(path), inode=info.st_ino, mtime_ns=info.st_mtime_ns,
                   grows=grows, command=command)

    def matches(self, path: Path) -> bool:
        """Whether ``path`` is still what the command made."""
        try:
            info = os.lstat(path)
        except OSError:
            return False
        if self.kind == "link":
            return stat.S_ISLNK(info.st_mode) and info.st_ino == self.inode and os.readlink(path) == self.target
        if self.kind == "folder":
            return stat.S_ISDIR(info.st_mode)
        if self.kind != "file" or not stat.S_ISREG(info.st_mode):
            return False
        if (info.st_size, info.st_ino, info.st_mtime_ns) == (self.size, self.inode, self.mtime_ns):
            return True
        try:
            if self.grows:
                return _begins_with_one_of(path, info.st_size, (*self.earlier, (self.size, self.sha256)))
            return info.st_size == self.size and _content_digest(path) == self.sha256
        except OSError:
            return False

    def line(self, name: str) -> str:
        fields = {k: v for k, v in self.__dict__.items() if k != "earlier" and v not in ("", 0, False)}
        return json.dumps({"name": name, **fields}, ensure_ascii=False) + "\n"

    def lines(self, name: str) -> list[str]:
        """The record's lines for this entry, a growing file's earlier states first."""
        states = [replace(self, size=size, sha256=sha, earlier=()) for size, sha in self.earlier]
        return [state.line(name) for state in states] + [self.line(name)]


def _begins_with_one_of(path: Path, size: int, states: Iterable[tuple[int, str]]) -> bool:
    """Whether the file's first bytes are one of the recorded states and what follows is what the
    command's appends leave (lines appended after the last note, or torn by a crash: the command
    that owns the file repairs it). One pass over the file, checking each state's size on the way."""
    wanted = sorted((length, sha) for length, sha in states if length <= size)
    if not wanted:
        return False
    digest, done, matched = hashlib.sha256(), 0, None
    with open(path, "rb") as handle:
        for length, sha in wanted:
            while done < length:
                block = handle.read(min(1 << 20, length - done))
                if not block:
                    return False
                digest.update(block)
                done += len(block)
            if digest.hexdigest() == sha:
                matched = length
        if matched is None:
            return False
        handle.seek(matched)
        return _appended_lines(handle.read(size - matched))


def _appended_lines(tail: bytes) -> bool:
    """Whether ``tail`` is what appends of JSON lines leave after a recorded state: each line
    whole or torn, so each begins with ``{`` (a line started afresh after a torn one, or two
    workers' appends after it, leave empty lines), after the NUL bytes a power cut leaves where a
    file's new size reached the disk and its data did not. A line of other text is someone's
    edit: the file is no longer the command's to rewrite."""
    return all(not (kept := line.lstrip(b"\0")) or kept.startswith(b"{") for line in tail.split(b"\n"))


EARLIER_STATES = 32  # of a growing file: a power cut loses the last few appends at most


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


def _after(before: Made | None, entry: Made) -> Made:
    """``entry`` noted after ``before``: a growing file keeps its earlier states."""
    if entry.grows and before is not None and before.grows and entry.size >= before.size:
        return replace(entry, earlier=(*before.earlier, (before.size, before.sha256))[-EARLIER_STATES:])
    return entry


def _plain_name(name: object) -> bool:
    return isinstance(name, str) and name not in ("", ".", "..") and "/" not in name and "\0" not in name


def read_record(folder: Path) -> dict[str, Made]:
    """What the record in ``folder`` says the command made (the last line of a name wins; a torn,
    foreign or old-format line is no licence)."""
    path = folder / RECORD
    made: dict[str, Made] = {}
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return made  # a link or a folder in the record's place is no record
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return made
    for line in lines:
        try:
            data = json.loads(line)
            name = data.pop("name")
            if not _plain_name(name):
                continue
            if data.get("gone"):
                made.pop(name, None)
                continue
            data.pop("earlier", None)
            entry = Made(**data)
            if entry.kind not in ("file", "folder", "link"):
                continue
        except (ValueError, TypeError, KeyError, AttributeError):
            continue
        made[name] = _after(made.get(name), entry)
    return made


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
        when empty); leave anything else. Whether it was removed."""
        if not self.ours(name):
            return False
        path = self.path / name
        if self.made[name].kind == "folder":
            try:
                path.rmdir()
            except OSError:
                return False
        else:
            path.unlink()
        self._note(name, None)
        return True

    def folder(self, name: str, what: str | None = None) -> "OutputFolder":
        """The subfolder ``name``, made here (and recorded) or recorded as made here: its own
        ``OutputFolder``. A link, a file or a folder the record does not name is refused."""
        path = self.path / name
        if path.exists() or path.is_symlink():
            self.check_writable(name)
        what = what or f"{name} folder of the {self.what}"
        existed = path.exists()
        child = OutputFolder(path, what, command=self.command)
        if not self.ours(name):
            self._note(name, Made.of(path, self.command), undo=None if existed else path.rmdir)
        return child

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
