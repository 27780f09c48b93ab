"""What a command made in a folder it fills: the record ``.touche-made`` the guard keeps there.

One JSON line per write (appended: workers of one sweep write into one ``runs/`` folder at once),
naming the entry and what it was when the command left it: a file by its content (size, SHA-256,
and for a growing file its earlier states), a link by its target and inode, a folder as a real
folder. ``touche/guard.py``'s ``OutputFolder`` writes the record and licenses a replacement or a
deletion only by what it says, unchanged since; a record that names what the command did not make
(forged, stale, copied from elsewhere) gives no licence, since the content must match.
"""
from __future__ import annotations

import hashlib
import json
import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from touche.errors import ToucheError

# What a command made in a folder, one JSON line per write (appended: workers of one sweep write
# into one runs/ folder at once). Hidden, and no suffix a corpus reader looks for.
RECORD = ".touche-made"
# Records of toolkits before content was recorded: never trusted, never refused (a rerun in such a
# folder refuses to replace what they name, since nothing says it is unchanged).
OLD_RECORDS = frozenset({".touche-links"})
LOCKS = frozenset({".touche.lock", ".sweep.lock"})
BOOKKEEPING = frozenset({RECORD, *LOCKS, *OLD_RECORDS})


BLOCK = 1 << 20  # bytes read at a time to hash a file: any size gives the same digest


def _content_digest(path: Path) -> str:
    """The SHA-256 of the file's content."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(BLOCK):
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
    in_place: bool = False  # a file the command changes in place (a database): its own while it is the
    # regular file it made (its inode), whatever it holds now
    # a growing file's earlier (size, sha256) states, from the record's earlier lines: a power cut
    # may keep the record's last line and lose the file's last append, leaving an earlier state
    earlier: tuple[tuple[int, str], ...] = field(default=(), compare=False)

    @classmethod
    def of(cls, path: Path, command: str, *, grows: bool = False, in_place: bool = False) -> "Made":
        info = os.lstat(path)
        if stat.S_ISLNK(info.st_mode):
            return cls("link", target=os.readlink(path), inode=info.st_ino, command=command)
        if stat.S_ISDIR(info.st_mode):
            return cls("folder", inode=info.st_ino, command=command)
        if not stat.S_ISREG(info.st_mode):
            raise ToucheError("is no file, folder or link: a command makes none of those", path=path)
        return cls("file", info.st_size, _content_digest(path), inode=info.st_ino, mtime_ns=info.st_mtime_ns,
                   grows=grows, command=command, in_place=in_place)

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
        if self.in_place:
            return info.st_ino == self.inode
        if (info.st_size, info.st_ino, info.st_mtime_ns) == (self.size, self.inode, self.mtime_ns):
            return True
        try:
            if self.grows:
                return _begins_with_one_of(path, info.st_size, (*self.earlier, (self.size, self.sha256)))
            return info.st_size == self.size and _content_digest(path) == self.sha256
        except OSError:
            return False

    def line(self, name: str) -> str:
        fields = {k: v for k, v in self.__dict__.items() if v not in ("", 0, False)}
        fields.pop("earlier", None)  # a growing file's earlier states are lines of their own (lines())
        return json.dumps({"name": name, **fields}) + "\n"

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
                block = handle.read(min(BLOCK, length - done))
                if not block:
                    return False
                digest.update(block)
                done += len(block)
            if digest.hexdigest() == sha:
                matched = length
        if matched is None:
            return False
        handle.seek(matched)
        return _appended_lines(handle.read())


def _appended_lines(tail: bytes) -> bool:
    """Whether ``tail`` is what appends of JSON lines leave after a recorded state: each line
    whole or torn, so each begins with ``{`` (a line started afresh after a torn one, or two
    workers' appends after it, leave empty lines), after the NUL bytes a power cut leaves where a
    file's new size reached the disk and its data did not. A line of other text is someone's
    edit: the file is no longer the command's to rewrite."""
    return all(not (kept := line.lstrip(b"\0")) or kept.startswith(b"{") for line in tail.split(b"\n"))


EARLIER_STATES = 32  # of a growing file: a power cut loses the last few appends at most


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
